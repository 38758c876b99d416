//! Single-precision transcendental functions emitted as CLIF on whole
//! pieces, with no call per lane.
//!
//! A `float` argument is widened to `double` (an `f32x4` piece becomes two
//! `f64x2`; a uniform value one `f64`), the function is evaluated there by
//! range reduction and a polynomial, and the result is rounded back once.
//! Working in double makes every float input normal (subnormals included),
//! keeps intermediate overflow away, and leaves ~29 spare bits, so the
//! results stay well inside the OpenCL full-profile ULP bounds with short,
//! Taylor-derived polynomials. Every routine here is written once over a
//! "shape" (`f64` or `f64x2`) using only operations the x86-64 backend
//! lowers for both: `fadd fsub fmul fdiv sqrt fmin fmax nearest trunc fcmp`,
//! bitwise ops, `iadd` and shifts by an immediate on `i64`/`i64x2`,
//! `icmp eq` and `bitselect`.
//!
//! Exceptions in single precision: `exp` and `log` of `f32x4` pieces (and
//! the relaxed `exp2 exp10 log2 log10`), and on hosts with FMA `sin`,
//! `cos` and `sincos` of pieces and uniform values alike
//! ([`MathCx::sincos_f32`], the same operations on both shapes).
//!
//! Trigonometric arguments with |x| > 2^20 (and ±inf) are reduced by the
//! Cody–Waite scheme only approximately, so a piece with such a lane
//! branches to an exact per-lane routine (`math.rs`) for those lanes.

use super::super::lanes::{little, Lanes};
use super::super::{FunctionCx, LResult};
use cranelift_codegen::ir::{
    condcodes::FloatCC, condcodes::IntCC, types, BlockArg, ConstantData, FuncRef, InstBuilder,
    MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::FunctionBuilder;
use std::f64::consts::{FRAC_PI_2, LN_10, LN_2, LOG10_2, LOG10_E, LOG2_E, PI};
use vecl_ir::Scalar;

mod dmath;
pub(crate) use dmath::{LG2_HI, LG2_LO, LOG_R, SIMD_F64};

/// The functions of this file (OpenCL names, after `native_`/`half_`).
/// `pow` and `powr` are not among them: in double, their log, exp and
/// special-case selects cost more than glibc's table-driven `pow` called
/// lane by lane (4M floats, one thread: 110 vs 75 ms for `pow`, 87 vs 84
/// for `powr`).
pub(crate) const SIMD_F32: &[&str] = &[
    "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "sinpi",
    "cospi", "tanpi", "pown", "rootn", "atan", "atan2", "asin", "acos", "atanpi", "atan2pi",
    "asinpi", "acospi", "sinh", "cosh", "tanh", "erf", "erfc", "cbrt", "hypot",
];

/// Whether argument `i` of `name` is an `int` (the rest are floats).
pub(crate) fn int_arg(name: &str, i: usize) -> bool {
    matches!(name, "pown" | "rootn") && i == 1
}

/// Beyond this the trig reduction below is not exact enough.
const TRIG_FAST_LIMIT: f64 = 1_048_576.0;
/// 1.5·2^52: adding it leaves an integer-valued double in the low bits.
const MAGIC: f64 = 6_755_399_441_055_744.0;
/// ln 2 split so that `n·LN2_HI` is exact for |n| < 2^11.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// π/2 in three parts, the first two with 33 significant bits.
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_795_950_6e-21;
const SIGN: i64 = i64::MIN;
/// The single-precision `sin`/`cos` ([`MathCx::sincos_f32`]): 2/π, π/2 in
/// three floats (each the rounding of what the ones before leave), and
/// the polynomials' coefficients (`S`: r³ to r⁷, `C`: r⁴ to r⁸).
const TWO_OVER_PI_F32: u32 = 0x3f22_f983;
const PIO2_F32: [u32; 3] = [0x3fc9_0fdb, 0xb33b_bd2e, 0xa6f7_2ced];
const SIN_F32: [u32; 3] = [0xbe2a_aaa2, 0x3c08_837c, 0xb94c_97de];
const COS_F32: [u32; 3] = [0x3d2a_aaa5, 0xbab6_060c, 0x37cc_f1ae];

/// `1/n!` for n = 0..=20.
fn inv_fact(n: usize) -> f64 {
    (1..=n).fold(1.0, |acc, k| acc / k as f64)
}

/// Emits the math CLIF into one function: the kernel's, or a routine's of
/// [`super::routines`]. Only the builder and the host's FMA matter here.
pub(super) struct MathCx<'m, 'f> {
    pub b: &'m mut FunctionBuilder<'f>,
    pub has_fma: bool,
    /// `-cl-fast-relaxed-math`: the relaxed single-precision forms below
    /// (see [`relaxed_form`]).
    pub relaxed: bool,
    /// `-cl-finite-math-only` (or fast-relaxed): arguments and results are
    /// never NaN or infinite, so the single-precision routines skip their
    /// selects for those cases.
    pub finite: bool,
    /// The host is x86-64: `cvttps2dq` converts a float known to be an
    /// integer in `i32` range in one instruction (`x86_cvtt2dq`), where
    /// `fcvt_to_sint_sat` takes seven.
    pub x86: bool,
}

/// Whether `name` on `f32x4` pieces has a cheaper form under
/// `-cl-fast-relaxed-math` (OpenCL C 1.2 §7.4, table 7.3's relaxed
/// column): `exp2 exp10 log2 log10` in single precision (3 + ⌊|2x|⌋ ULP
/// for `exp2`, 8192 for `exp10`, 2^-21 absolute in [0.5, 2] and 3 ULP
/// elsewhere for the logs), and `sin cos` without the exact path for huge
/// arguments (their relaxed bound holds only in [-π, π]). `tan` keeps it:
/// its relaxed bound, 8192 ULP, is not limited to a range.
pub(crate) fn relaxed_form(name: &str) -> bool {
    matches!(
        name,
        "exp2" | "exp10" | "log2" | "log10" | "sin" | "cos" | "sincos"
    )
}

impl MathCx<'_, '_> {
    /// `cond ? x : y` for a scalar `i8` condition or a vector mask.
    fn pick(&mut self, c: Value, x: Value, y: Value) -> Value {
        let t = self.b.func.dfg.value_type(x);
        if t.is_vector() {
            let m = self.vcast(t, c);
            self.b.ins().bitselect(m, x, y)
        } else {
            self.b.ins().select(c, x, y)
        }
    }

    /// `x < y ? x : y` on `f32x4`: one `minps` on x86-64, where `fmin`'s
    /// NaN and signed-zero rules take seven instructions. For clamping an
    /// argument whose NaN is dealt with elsewhere.
    fn pmin(&mut self, x: Value, y: Value) -> Value {
        let c = self.b.ins().fcmp(FloatCC::LessThan, x, y);
        let m = self.vcast(types::F32X4, c);
        self.b.ins().bitselect(m, x, y)
    }

    /// `y < x ? x : y` on `f32x4`: one `maxps` on x86-64 (see [`Self::pmin`]).
    fn pmax(&mut self, x: Value, y: Value) -> Value {
        let c = self.b.ins().fcmp(FloatCC::LessThan, y, x);
        let m = self.vcast(types::F32X4, c);
        self.b.ins().bitselect(m, x, y)
    }

    /// The same 128 bits seen as another vector type.
    fn vcast(&mut self, to: types::Type, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == to {
            v
        } else {
            self.b.ins().bitcast(to, little(), v)
        }
    }

    /// Bytes of `a` (0–15) and `b` (16–31) picked by `idx`.
    fn shuffle_bytes(&mut self, a: Value, b: Value, idx: [u8; 16]) -> Value {
        let a8 = self.vcast(types::I8X16, a);
        let b8 = self.vcast(types::I8X16, b);
        let imm = self.b.func.dfg.immediates.push(idx.to_vec().into());
        self.b.ins().shuffle(a8, b8, imm)
    }

    /// The whole routine `name` on one shape: `args` are `f32x4` pieces
    /// (`i32x4` for an `int` argument) when `piece`, else `f32`/`i32`
    /// scalars; the result is the `float` of the same shape.
    ///
    /// `exact` is the per-lane routine `sin`, `cos` and `tan` fall back to
    /// for huge arguments.
    pub(super) fn routine(
        &mut self,
        name: &str,
        args: &[Value],
        piece: bool,
        exact: Option<FuncRef>,
    ) -> Value {
        let fast = self.routine_fast(name, args, piece);
        match exact {
            Some(f) if !self.relaxed => self.trig_slow_path(f, args[0], fast),
            _ => fast,
        }
    }

    /// `sincos` on one shape (as [`Self::routine`]): the sine and the
    /// cosine from one reduction and one pair of polynomials, each result
    /// the one `sin` and `cos` give to the bit (`trig_d`'s steps; the
    /// e-graph pass merges the polynomials the two `trig_from` repeat).
    /// `exact`: the per-lane `sin` and `cos` for huge arguments.
    pub(super) fn routine_sincos(
        &mut self,
        x: Value,
        piece: bool,
        exact: &[FuncRef],
    ) -> (Value, Value) {
        let (s, c) = if self.has_fma {
            self.sincos_f32(x)
        } else if piece {
            let [lo, hi] = self.widen_f32(x);
            let (sl, cl) = self.sincos_d(lo);
            let (sh, ch) = self.sincos_d(hi);
            (self.narrow_f64(sl, sh), self.narrow_f64(cl, ch))
        } else {
            let w = self.b.ins().fpromote(types::F64, x);
            let (s, c) = self.sincos_d(w);
            (
                self.b.ins().fdemote(types::F32, s),
                self.b.ins().fdemote(types::F32, c),
            )
        };
        match exact {
            [fs, fc] if !self.relaxed => (
                self.trig_slow_path(*fs, x, s),
                self.trig_slow_path(*fc, x, c),
            ),
            _ => (s, c),
        }
    }

    /// `trig_d(x, 0)` and `trig_d(x, 1)` with one reduction.
    fn sincos_d(&mut self, x: Value) -> (Value, Value) {
        let (k, r) = self.trig_reduce(x);
        let s = self.trig_from(k, r, 0);
        let z = self.dcmp(FloatCC::Equal, x, 0.0);
        let s = self.pick(z, x, s);
        let c = self.trig_from(k, r, 1);
        (s, c)
    }

    fn routine_fast(&mut self, name: &str, args: &[Value], piece: bool) -> Value {
        if self.has_fma && matches!(name, "sin" | "cos") {
            let (s, c) = self.sincos_f32(args[0]);
            return if name == "sin" { s } else { c };
        }
        if !piece {
            let wide: Vec<Value> = args
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    if int_arg(name, i) {
                        self.b.ins().fcvt_from_sint(types::F64, *v)
                    } else {
                        self.b.ins().fpromote(types::F64, *v)
                    }
                })
                .collect();
            let r = self.math_d(name, &wide);
            return self.b.ins().fdemote(types::F32, r);
        }
        match name {
            // The hot pair of many kernels stays in single precision.
            "exp" => return self.exp_f32x4(args[0]),
            "log" => return self.log_f32x4(args[0], 0),
            "exp2" if self.relaxed => return self.exp2_f32x4(args[0]),
            "exp10" if self.relaxed => return self.exp10_f32x4(args[0]),
            "log2" if self.relaxed => return self.log_f32x4(args[0], 2),
            "log10" if self.relaxed => return self.log_f32x4(args[0], 10),
            _ => {}
        }
        let wide: Vec<[Value; 2]> = args
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if int_arg(name, i) {
                    self.widen_i32(*v)
                } else {
                    self.widen_f32(*v)
                }
            })
            .collect();
        let lo: Vec<Value> = wide.iter().map(|w| w[0]).collect();
        let hi: Vec<Value> = wide.iter().map(|w| w[1]).collect();
        let lo = self.math_d(name, &lo);
        let hi = self.math_d(name, &hi);
        self.narrow_f64(lo, hi)
    }

    /// Recomputes the lanes of `fast` with |x| > 2^20 (or infinite) with
    /// `exact`: only when there is one is the branch taken.
    fn trig_slow_path(&mut self, exact: FuncRef, x: Value, fast: Value) -> Value {
        let t = self.b.func.dfg.value_type(x);
        let limit = self.b.ins().f32const(TRIG_FAST_LIMIT as f32);
        let ax = self.b.ins().fabs(x);
        let (need, huge) = if t.is_vector() {
            let lv = self.b.ins().splat(types::F32X4, limit);
            let m = self.b.ins().fcmp(FloatCC::GreaterThan, ax, lv);
            (self.b.ins().vany_true(m), Some(m))
        } else {
            (self.b.ins().fcmp(FloatCC::GreaterThan, ax, limit), None)
        };
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, t);
        self.b
            .ins()
            .brif(need, slow, &[], join, &[BlockArg::Value(fast)]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let r = if t.is_vector() {
            let mut r = x;
            for j in 0..4 {
                let v = self.b.ins().extractlane(x, j);
                let call = self.b.ins().call(exact, &[v]);
                let y = self.b.inst_results(call)[0];
                r = self.b.ins().insertlane(r, y, j);
            }
            // Only the huge lanes: a lane's result does not depend on
            // its neighbours'.
            match huge {
                Some(m) => self.pick(m, r, fast),
                None => r,
            }
        } else {
            let call = self.b.ins().call(exact, &[x]);
            self.b.inst_results(call)[0]
        };
        self.b.ins().jump(join, &[BlockArg::Value(r)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }

    /// An `f64` constant shaped like `like` (vectors from the constant
    /// pool, so an arithmetic instruction can take it as a memory operand).
    fn dk(&mut self, like: Value, x: f64) -> Value {
        if self.b.func.dfg.value_type(like).is_vector() {
            self.vconst64(types::F64X2, x.to_bits())
        } else {
            self.b.ins().f64const(x)
        }
    }

    fn vconst64(&mut self, t: types::Type, bits: u64) -> Value {
        let mut bytes = bits.to_le_bytes().to_vec();
        bytes.extend(bits.to_le_bytes());
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(t, c)
    }

    /// An `i64` constant shaped like the integer view of `like`.
    fn ik(&mut self, like: Value, x: i64) -> Value {
        if self.b.func.dfg.value_type(like).is_vector() {
            self.vconst64(types::I64X2, x as u64)
        } else {
            self.b.ins().iconst(types::I64, x)
        }
    }

    /// The bits of a double shape as `i64`/`i64x2`.
    fn dbits(&mut self, v: Value) -> Value {
        if self.b.func.dfg.value_type(v).is_vector() {
            self.vcast(types::I64X2, v)
        } else {
            self.b.ins().bitcast(types::I64, MemFlagsData::new(), v)
        }
    }

    /// A double shape from its bits.
    fn dfrom(&mut self, v: Value) -> Value {
        if self.b.func.dfg.value_type(v).is_vector() {
            self.vcast(types::F64X2, v)
        } else {
            self.b.ins().bitcast(types::F64, MemFlagsData::new(), v)
        }
    }

    /// `c0 + c1·x + c2·x² + …` (Horner; fused when the host has FMA).
    fn poly(&mut self, x: Value, c: &[f64]) -> Value {
        let mut acc = self.dk(x, c[c.len() - 1]);
        for k in c[..c.len() - 1].iter().rev() {
            let kk = self.dk(x, *k);
            acc = if self.has_fma {
                self.b.ins().fma(acc, x, kk)
            } else {
                let m = self.b.ins().fmul(acc, x);
                self.b.ins().fadd(m, kk)
            };
        }
        acc
    }

    fn dcmp(&mut self, cc: FloatCC, a: Value, b: f64) -> Value {
        let k = self.dk(a, b);
        self.b.ins().fcmp(cc, a, k)
    }

    /// Mask of lanes whose sign bit is set (also for ±0 and NaN).
    fn dneg(&mut self, x: Value) -> Value {
        let bx = self.dbits(x);
        let s = self.ik(x, SIGN);
        let m = self.b.ins().band(bx, s);
        let r = self.b.ins().icmp(IntCC::Equal, m, s);
        self.int_mask_to_float(x, r)
    }

    /// An integer comparison result reshaped as the mask a float `pick` takes.
    fn int_mask_to_float(&mut self, like: Value, m: Value) -> Value {
        if self.b.func.dfg.value_type(like).is_vector() {
            self.vcast(types::I64X2, m)
        } else {
            m
        }
    }

    /// `|mag|` with the sign of `s`.
    fn dcopysign(&mut self, mag: Value, s: Value) -> Value {
        let a = self.b.ins().fabs(mag);
        let ab = self.dbits(a);
        let sb = self.dbits(s);
        let k = self.ik(mag, SIGN);
        let sign = self.b.ins().band(sb, k);
        let r = self.b.ins().bor(ab, sign);
        self.dfrom(r)
    }

    fn dneg_if(&mut self, cond: Value, x: Value) -> Value {
        let n = self.b.ins().fneg(x);
        self.pick(cond, n, x)
    }

    fn nan_like(&mut self, like: Value) -> Value {
        self.dk(like, f64::NAN)
    }

    /// `2^n` for an integer-valued double shape `n` with |n| < 1022.
    fn pow2i(&mut self, n: Value) -> Value {
        let m = self.dk(n, MAGIC);
        let t = self.b.ins().fadd(n, m);
        let bits = self.dbits(t);
        let bias = self.ik(n, 1023);
        let e = self.b.ins().iadd(bits, bias);
        let e = self.b.ins().ishl_imm_s(e, 52);
        self.dfrom(e)
    }

    /// `(s, q)` with `e^t = s·(1 + q)`, `s` a power of two and `q` accurate
    /// relative to itself (so `expm1` loses nothing near 0). `t` is clamped
    /// to ±700; NaN propagates into `q`.
    fn exp_parts(&mut self, t: Value) -> (Value, Value) {
        let hi = self.dk(t, 700.0);
        let lo = self.dk(t, -700.0);
        let t = self.b.ins().fmin(t, hi);
        let t = self.b.ins().fmax(t, lo);
        let l2e = self.dk(t, LOG2_E);
        let nf = self.b.ins().fmul(t, l2e);
        let n = self.b.ins().nearest(nf);
        let c_hi = self.dk(t, LN2_HI);
        let c_lo = self.dk(t, LN2_LO);
        let a = self.b.ins().fmul(n, c_hi);
        let r = self.b.ins().fsub(t, a);
        let b = self.b.ins().fmul(n, c_lo);
        let r = self.b.ins().fsub(r, b);
        // q = r + r²/2! + … + r^9/9! = r·P(r) (error < 1e-10 relative)
        let c: Vec<f64> = (1..=9).map(inv_fact).collect();
        let p = self.poly(r, &c);
        let q = self.b.ins().fmul(r, p);
        (self.pow2i(n), q)
    }

    fn exp_d(&mut self, t: Value) -> Value {
        let (s, q) = self.exp_parts(t);
        let sq = self.b.ins().fmul(s, q);
        self.b.ins().fadd(s, sq)
    }

    fn expm1_d(&mut self, t: Value) -> Value {
        let (s, q) = self.exp_parts(t);
        let sq = self.b.ins().fmul(s, q);
        let one = self.dk(t, 1.0);
        let sm = self.b.ins().fsub(s, one);
        self.b.ins().fadd(sq, sm)
    }

    /// `(e, lm)` with `y = 2^e·m`, `lm = ln m`, `m ∈ [√½, √2)`, for a
    /// positive finite normal double `y` (other inputs give garbage that
    /// the callers replace).
    fn log_parts(&mut self, y: Value) -> (Value, Value) {
        let bits = self.dbits(y);
        let eb = self.b.ins().ushr_imm_s(bits, 52);
        let exp_one = self.ik(y, 0x4330_0000_0000_0000);
        let ef = self.b.ins().bor(eb, exp_one);
        let ef = self.dfrom(ef);
        let k = self.dk(y, (1u64 << 52) as f64 + 1023.0);
        let e = self.b.ins().fsub(ef, k);
        let mm = self.ik(y, 0x000F_FFFF_FFFF_FFFF);
        let mant = self.b.ins().band(bits, mm);
        let one_bits = self.ik(y, 0x3FF0_0000_0000_0000);
        let mant = self.b.ins().bor(mant, one_bits);
        let m = self.dfrom(mant);
        let big = self.dcmp(FloatCC::GreaterThan, m, std::f64::consts::SQRT_2);
        let half = self.dk(y, 0.5);
        let mh = self.b.ins().fmul(m, half);
        let m = self.pick(big, mh, m);
        let one = self.dk(y, 1.0);
        let zero = self.dk(y, 0.0);
        let inc = self.pick(big, one, zero);
        let e = self.b.ins().fadd(e, inc);
        // ln m = 2·atanh(s), s = (m-1)/(m+1), |s| < 0.172
        let num = self.b.ins().fsub(m, one);
        let den = self.b.ins().fadd(m, one);
        let s = self.b.ins().fdiv(num, den);
        let z = self.b.ins().fmul(s, s);
        let c: Vec<f64> = (0..7).map(|k| 2.0 / (2 * k + 1) as f64).collect();
        let p = self.poly(z, &c);
        (e, self.b.ins().fmul(s, p))
    }

    /// Natural, base-2 or base-10 logarithm of `y` (`base` 0, 2 or 10),
    /// with the special cases of C99 Annex F.
    fn log_d(&mut self, y: Value, base: u32) -> Value {
        let (e, lm) = self.log_parts(y);
        let r = match base {
            2 => {
                let k = self.dk(y, LOG2_E);
                let a = self.b.ins().fmul(lm, k);
                self.b.ins().fadd(e, a)
            }
            10 => {
                let k1 = self.dk(y, LOG10_2);
                let k2 = self.dk(y, LOG10_E);
                let a = self.b.ins().fmul(e, k1);
                let b = self.b.ins().fmul(lm, k2);
                self.b.ins().fadd(a, b)
            }
            _ => {
                let hi = self.dk(y, LN2_HI);
                let lo = self.dk(y, LN2_LO);
                let a = self.b.ins().fmul(e, hi);
                let b = self.b.ins().fmul(e, lo);
                let b = self.b.ins().fadd(b, lm);
                self.b.ins().fadd(a, b)
            }
        };
        self.log_specials(y, r)
    }

    fn log_specials(&mut self, y: Value, r: Value) -> Value {
        let zero = self.dcmp(FloatCC::Equal, y, 0.0);
        let ninf = self.dk(y, f64::NEG_INFINITY);
        let r = self.pick(zero, ninf, r);
        let inf = self.dcmp(FloatCC::Equal, y, f64::INFINITY);
        let r = self.pick(inf, y, r);
        let neg = self.dcmp(FloatCC::LessThan, y, 0.0);
        let nan = self.nan_like(y);
        let r = self.pick(neg, nan, r);
        let un = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        self.pick(un, y, r)
    }

    fn log1p_d(&mut self, x: Value) -> Value {
        let one = self.dk(x, 1.0);
        let u = self.b.ins().fadd(one, x);
        // The rounding error of 1 + x (Fast2Sum), corrected to first order.
        let ax = self.b.ins().fabs(x);
        let small = self.dcmp(FloatCC::LessThanOrEqual, ax, 1.0);
        let a = self.b.ins().fsub(one, u);
        let a = self.b.ins().fadd(a, x);
        let b = self.b.ins().fsub(x, u);
        let b = self.b.ins().fadd(b, one);
        let c = self.pick(small, a, b);
        let (e, lm) = self.log_parts(u);
        let hi = self.dk(x, LN2_HI);
        let lo = self.dk(x, LN2_LO);
        let p = self.b.ins().fmul(e, hi);
        let q = self.b.ins().fmul(e, lo);
        let cu = self.b.ins().fdiv(c, u);
        let q = self.b.ins().fadd(q, cu);
        let q = self.b.ins().fadd(q, lm);
        let r = self.b.ins().fadd(p, q);
        let r = self.log_specials(u, r);
        let z = self.dcmp(FloatCC::Equal, x, 0.0);
        self.pick(z, x, r)
    }

    /// `(k, r)` with `x = k·π/2 + r`, |r| ≤ π/4 (for |x| ≤ 2^20).
    fn trig_reduce(&mut self, x: Value) -> (Value, Value) {
        let k2 = self.dk(x, 2.0 / PI);
        let t = self.b.ins().fmul(x, k2);
        let k = self.b.ins().nearest(t);
        let mut r = x;
        for c in [PIO2_1, PIO2_2, PIO2_3] {
            let cc = self.dk(x, c);
            let p = self.b.ins().fmul(k, cc);
            r = self.b.ins().fsub(r, p);
        }
        (k, r)
    }

    /// `(sin r, cos r)` for |r| ≤ π/4.
    fn sincos_poly(&mut self, r: Value) -> (Value, Value) {
        let z = self.b.ins().fmul(r, r);
        let sc: Vec<f64> = (0..7)
            .map(|k| {
                let v = inv_fact(2 * k + 1);
                if k % 2 == 1 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let cc: Vec<f64> = (0..8)
            .map(|k| {
                let v = inv_fact(2 * k);
                if k % 2 == 1 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let sp = self.poly(z, &sc);
        let s = self.b.ins().fmul(r, sp);
        let c = self.poly(z, &cc);
        (s, c)
    }

    /// sin, cos or tan (`which` 0, 1, 2) of `k·π/2 + r`.
    fn trig_from(&mut self, k: Value, r: Value, which: u32) -> Value {
        let (s, c) = self.sincos_poly(r);
        let kk = if which == 1 {
            let one = self.dk(k, 1.0);
            self.b.ins().fadd(k, one)
        } else {
            k
        };
        let m = self.dk(k, MAGIC);
        let kb = self.b.ins().fadd(kk, m);
        let kb = self.dbits(kb);
        let zero = self.ik(k, 0);
        let bit0 = self.ik(k, 1);
        let odd = self.b.ins().band(kb, bit0);
        let even = self.b.ins().icmp(IntCC::Equal, odd, zero);
        let even = self.int_mask_to_float(k, even);
        let two = self.ik(k, 2);
        let q2 = self.b.ins().band(kb, two);
        let flip = self.b.ins().ishl_imm_s(q2, 62);
        if which == 2 {
            let t = self.b.ins().fdiv(s, c);
            let nc = self.b.ins().fneg(c);
            let ct = self.b.ins().fdiv(nc, s);
            // An exact pole (tanpi of n + ½): +inf for k ≡ 1, -inf for k ≡ 3 (mod 4).
            let inf = self.dk(k, f64::INFINITY);
            let ib = self.dbits(inf);
            let ib = self.b.ins().bxor(ib, flip);
            let pole = self.dfrom(ib);
            let s0 = self.dcmp(FloatCC::Equal, s, 0.0);
            let ct = self.pick(s0, pole, ct);
            return self.pick(even, t, ct);
        }
        let v = self.pick(even, s, c);
        let vb = self.dbits(v);
        let vb = self.b.ins().bxor(vb, flip);
        self.dfrom(vb)
    }

    fn trig_d(&mut self, x: Value, which: u32) -> Value {
        let (k, r) = self.trig_reduce(x);
        let v = self.trig_from(k, r, which);
        if which == 1 {
            v
        } else {
            let z = self.dcmp(FloatCC::Equal, x, 0.0);
            self.pick(z, x, v)
        }
    }

    /// sinpi / cospi / tanpi: the reduction `x = k/2 + r` is exact.
    fn trigpi_d(&mut self, x0: Value, which: u32) -> Value {
        // Period 2, exactly: x - 2·trunc(x/2) ∈ (-2, 2).
        let half = self.dk(x0, 0.5);
        let h = self.b.ins().fmul(x0, half);
        let th = self.b.ins().trunc(h);
        let two = self.dk(x0, 2.0);
        let t2 = self.b.ins().fmul(th, two);
        let x = self.b.ins().fsub(x0, t2);
        let x2 = self.b.ins().fmul(x, two);
        let k = self.b.ins().nearest(x2);
        let kh = self.b.ins().fmul(k, half);
        let r = self.b.ins().fsub(x, kh);
        let pi = self.dk(x, PI);
        let r = self.b.ins().fmul(r, pi);
        let v = self.trig_from(k, r, which);
        // Infinities give NaN; integers give exact zeros through r = 0.
        let ax = self.b.ins().fabs(x0);
        let inf = self.dcmp(FloatCC::Equal, ax, f64::INFINITY);
        let nan = self.nan_like(x0);
        let v = self.pick(inf, nan, v);
        // Exact zeros (integer x, or n + ½ for cospi) take the signs of
        // C23: sinpi(±n) = ±0, cospi(n + ½) = +0, tanpi(±n) = ±0 for even
        // n and ∓0 for odd n (|x| = 1 after the reduction).
        let z = self.dcmp(FloatCC::Equal, v, 0.0);
        let zero = self.dk(x0, 0.0);
        let signed_zero = match which {
            1 => zero,
            0 => self.dcopysign(zero, x0),
            _ => {
                let sz = self.dcopysign(zero, x0);
                let ax = self.b.ins().fabs(x);
                let odd = self.dcmp(FloatCC::Equal, ax, 1.0);
                self.dneg_if(odd, sz)
            }
        };
        self.pick(z, signed_zero, v)
    }

    /// atan t for 0 ≤ t ≤ 1 (two argument halvings, then a Taylor series).
    fn atan01(&mut self, t: Value) -> Value {
        let one = self.dk(t, 1.0);
        let mut t = t;
        for _ in 0..2 {
            let tt = self.b.ins().fmul(t, t);
            let a = self.b.ins().fadd(tt, one);
            let s = self.b.ins().sqrt(a);
            let d = self.b.ins().fadd(s, one);
            t = self.b.ins().fdiv(t, d);
        }
        let z = self.b.ins().fmul(t, t);
        let c: Vec<f64> = (0..9)
            .map(|k| {
                let v = 1.0 / (2 * k + 1) as f64;
                if k % 2 == 1 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let p = self.poly(z, &c);
        let a = self.b.ins().fmul(t, p);
        let four = self.dk(t, 4.0);
        self.b.ins().fmul(a, four)
    }

    fn atan_d(&mut self, x: Value) -> Value {
        let a = self.b.ins().fabs(x);
        let inv = self.dcmp(FloatCC::GreaterThan, a, 1.0);
        let one = self.dk(x, 1.0);
        let ra = self.b.ins().fdiv(one, a);
        let t = self.pick(inv, ra, a);
        let r = self.atan01(t);
        let h = self.dk(x, FRAC_PI_2);
        let rr = self.b.ins().fsub(h, r);
        let r = self.pick(inv, rr, r);
        self.dcopysign(r, x)
    }

    fn atan2_d(&mut self, y: Value, x: Value) -> Value {
        let ay = self.b.ins().fabs(y);
        let ax = self.b.ins().fabs(x);
        let swap = self.b.ins().fcmp(FloatCC::GreaterThan, ay, ax);
        let num = self.pick(swap, ax, ay);
        let den = self.pick(swap, ay, ax);
        let a = self.b.ins().fdiv(num, den);
        let zero = self.dk(x, 0.0);
        let dz = self.dcmp(FloatCC::Equal, den, 0.0);
        let a = self.pick(dz, zero, a);
        let yi = self.dcmp(FloatCC::Equal, ay, f64::INFINITY);
        let xi = self.dcmp(FloatCC::Equal, ax, f64::INFINITY);
        let both = self.b.ins().band(yi, xi);
        let one = self.dk(x, 1.0);
        let a = self.pick(both, one, a);
        let r = self.atan01(a);
        let h = self.dk(x, FRAC_PI_2);
        let rr = self.b.ins().fsub(h, r);
        let r = self.pick(swap, rr, r);
        let xneg = self.dneg(x);
        let pi = self.dk(x, PI);
        let rp = self.b.ins().fsub(pi, r);
        let r = self.pick(xneg, rp, r);
        let r = self.dcopysign(r, y);
        let un = self.b.ins().fcmp(FloatCC::Unordered, x, y);
        let nan = self.b.ins().fadd(x, y);
        self.pick(un, nan, r)
    }

    fn asin_d(&mut self, x: Value) -> Value {
        let a = self.b.ins().fabs(x);
        let one = self.dk(x, 1.0);
        let p = self.b.ins().fsub(one, a);
        let q = self.b.ins().fadd(one, a);
        let pq = self.b.ins().fmul(p, q);
        let s = self.b.ins().sqrt(pq);
        let t = self.b.ins().fdiv(a, s);
        let r = self.atan_d(t);
        let r = self.dcopysign(r, x);
        let z = self.dcmp(FloatCC::Equal, x, 0.0);
        self.pick(z, x, r)
    }

    fn acos_d(&mut self, x: Value) -> Value {
        let one = self.dk(x, 1.0);
        let p = self.b.ins().fsub(one, x);
        let q = self.b.ins().fadd(one, x);
        let d = self.b.ins().fdiv(p, q);
        let s = self.b.ins().sqrt(d);
        let r = self.atan_d(s);
        let two = self.dk(x, 2.0);
        self.b.ins().fmul(r, two)
    }

    fn hyper_d(&mut self, x: Value, which: u32) -> Value {
        let a = self.b.ins().fabs(x);
        let one = self.dk(x, 1.0);
        let half = self.dk(x, 0.5);
        match which {
            0 => {
                // sinh = (E + E/(E+1))/2, E = expm1|x|
                let e = self.expm1_d(a);
                let e1 = self.b.ins().fadd(e, one);
                let d = self.b.ins().fdiv(e, e1);
                let s = self.b.ins().fadd(e, d);
                let s = self.b.ins().fmul(s, half);
                let r = self.dcopysign(s, x);
                let z = self.dcmp(FloatCC::Equal, x, 0.0);
                self.pick(z, x, r)
            }
            1 => {
                let e = self.exp_d(a);
                let h = self.b.ins().fmul(e, half);
                let ih = self.b.ins().fdiv(half, e);
                self.b.ins().fadd(h, ih)
            }
            _ => {
                // tanh = E/(E+2), E = expm1(2|x|)
                let two = self.dk(x, 2.0);
                let a2 = self.b.ins().fmul(a, two);
                let e = self.expm1_d(a2);
                let d = self.b.ins().fadd(e, two);
                let t = self.b.ins().fdiv(e, d);
                let r = self.dcopysign(t, x);
                let z = self.dcmp(FloatCC::Equal, x, 0.0);
                self.pick(z, x, r)
            }
        }
    }

    /// `(erf |x|, erfc |x|)`, each accurate relative to itself.
    fn erf_parts(&mut self, x: Value) -> (Value, Value) {
        let a = self.b.ins().fabs(x);
        let one = self.dk(x, 1.0);
        // |x| < 2: Maclaurin series of erf.
        let z = self.b.ins().fmul(a, a);
        let k = 2.0 / PI.sqrt();
        let c: Vec<f64> = (0..27)
            .map(|n| {
                let v = k * inv_fact(n) / (2 * n + 1) as f64;
                if n % 2 == 1 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let p = self.poly(z, &c);
        let erf_small = self.b.ins().fmul(a, p);
        // |x| ≥ 2: Laplace's continued fraction for erfc, evaluated forwards.
        let lo = self.dk(x, 2.0);
        let hi = self.dk(x, 11.0);
        let ac = self.b.ins().fmax(a, lo);
        let ac = self.b.ins().fmin(ac, hi);
        let (mut a0, mut a1) = (one, ac);
        let zero = self.dk(x, 0.0);
        let (mut b0, mut b1) = (zero, one);
        for n in 1..=24 {
            let kn = self.dk(x, n as f64 * 0.5);
            let xa = self.b.ins().fmul(ac, a1);
            let ka = self.b.ins().fmul(kn, a0);
            let a2 = self.b.ins().fadd(xa, ka);
            let xb = self.b.ins().fmul(ac, b1);
            let kb = self.b.ins().fmul(kn, b0);
            let b2 = self.b.ins().fadd(xb, kb);
            (a0, a1, b0, b1) = (a1, a2, b1, b2);
        }
        let acc = self.b.ins().fmul(ac, ac);
        let nacc = self.b.ins().fneg(acc);
        let e = self.exp_d(nacc);
        let sp = self.dk(x, PI.sqrt());
        let den = self.b.ins().fmul(a1, sp);
        let num = self.b.ins().fmul(e, b1);
        let erfc_big = self.b.ins().fdiv(num, den);
        let small = self.dcmp(FloatCC::LessThan, a, 2.0);
        let e1 = self.b.ins().fsub(one, erfc_big);
        let erf = self.pick(small, erf_small, e1);
        let e2 = self.b.ins().fsub(one, erf_small);
        let erfc = self.pick(small, e2, erfc_big);
        // NaN stays NaN.
        let un = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let erf = self.pick(un, x, erf);
        let erfc = self.pick(un, x, erfc);
        (erf, erfc)
    }

    fn erf_d(&mut self, x: Value, complement: bool) -> Value {
        let (erf, erfc) = self.erf_parts(x);
        if !complement {
            let r = self.dcopysign(erf, x);
            let z = self.dcmp(FloatCC::Equal, x, 0.0);
            return self.pick(z, x, r);
        }
        let neg = self.dcmp(FloatCC::LessThan, x, 0.0);
        let two = self.dk(x, 2.0);
        let m = self.b.ins().fsub(two, erfc);
        self.pick(neg, m, erfc)
    }

    fn cbrt_d(&mut self, x: Value) -> Value {
        let a = self.b.ins().fabs(x);
        let (e, lm) = self.log_parts(a);
        let hi = self.dk(x, LN2_HI);
        let lo = self.dk(x, LN2_LO);
        let p = self.b.ins().fmul(e, hi);
        let q = self.b.ins().fmul(e, lo);
        let q = self.b.ins().fadd(q, lm);
        let l = self.b.ins().fadd(p, q);
        let third = self.dk(x, 1.0 / 3.0);
        let t = self.b.ins().fmul(l, third);
        let r = self.exp_d(t);
        // One Newton step: r -= (r³ - a) / (3r²).
        let r2 = self.b.ins().fmul(r, r);
        let r3 = self.b.ins().fmul(r2, r);
        let d = self.b.ins().fsub(r3, a);
        let three = self.dk(x, 3.0);
        let den = self.b.ins().fmul(r2, three);
        let c = self.b.ins().fdiv(d, den);
        let r = self.b.ins().fsub(r, c);
        let r = self.dcopysign(r, x);
        let pos = self.dcmp(FloatCC::GreaterThan, a, 0.0);
        let fin = self.dcmp(FloatCC::LessThan, a, f64::INFINITY);
        let ok = self.b.ins().band(pos, fin);
        self.pick(ok, r, x)
    }

    /// `|x|^y` through `2^(y·log2|x|)`, exact at the special cases that
    /// formula already gets right (0, ∞).
    fn pow_abs(&mut self, x: Value, y: Value) -> Value {
        let a = self.b.ins().fabs(x);
        let l = self.log_d(a, 2);
        let t = self.b.ins().fmul(y, l);
        let hi = self.dk(x, 1000.0);
        let lo = self.dk(x, -1000.0);
        let t = self.b.ins().fmin(t, hi);
        let t = self.b.ins().fmax(t, lo);
        let k = self.dk(x, LN_2);
        let t = self.b.ins().fmul(t, k);
        self.exp_d(t)
    }

    /// Masks: y is an integer (±∞ count as even), y is an odd integer.
    fn int_parity(&mut self, y: Value) -> (Value, Value) {
        let ty = self.b.ins().trunc(y);
        let is_int = self.b.ins().fcmp(FloatCC::Equal, ty, y);
        let half = self.dk(y, 0.5);
        let h = self.b.ins().fmul(y, half);
        let th = self.b.ins().trunc(h);
        let frac = self.b.ins().fcmp(FloatCC::NotEqual, th, h);
        (is_int, self.b.ins().band(is_int, frac))
    }

    fn pow_d(&mut self, x: Value, y: Value) -> Value {
        let r = self.pow_abs(x, y);
        let (is_int, odd) = self.int_parity(y);
        let xneg = self.dneg(x);
        let flip = self.b.ins().band(xneg, odd);
        let r = self.dneg_if(flip, r);
        // Negative finite x to a non-integer power.
        let lt = self.dcmp(FloatCC::LessThan, x, 0.0);
        let ninf = self.dcmp(FloatCC::NotEqual, x, f64::NEG_INFINITY);
        let bad = self.b.ins().band(lt, ninf);
        let bad = self.b.ins().band_not(bad, is_int);
        let nan = self.nan_like(x);
        let r = self.pick(bad, nan, r);
        let one = self.dk(x, 1.0);
        let y0 = self.dcmp(FloatCC::Equal, y, 0.0);
        let r = self.pick(y0, one, r);
        let x1 = self.dcmp(FloatCC::Equal, x, 1.0);
        let r = self.pick(x1, one, r);
        let xm1 = self.dcmp(FloatCC::Equal, x, -1.0);
        let ay = self.b.ins().fabs(y);
        let yinf = self.dcmp(FloatCC::Equal, ay, f64::INFINITY);
        let m1 = self.b.ins().band(xm1, yinf);
        self.pick(m1, one, r)
    }

    /// rootn(x, n) with `n` already a double shape.
    fn rootn_d(&mut self, x: Value, n: Value) -> Value {
        let one = self.dk(x, 1.0);
        let y = self.b.ins().fdiv(one, n);
        let r = self.pow_abs(x, y);
        let (_, odd) = self.int_parity(n);
        let xneg = self.dneg(x);
        let flip = self.b.ins().band(xneg, odd);
        let r = self.dneg_if(flip, r);
        let lt = self.dcmp(FloatCC::LessThan, x, 0.0);
        let bad = self.b.ins().band_not(lt, odd);
        let n0 = self.dcmp(FloatCC::Equal, n, 0.0);
        let bad = self.b.ins().bor(bad, n0);
        let nan = self.nan_like(x);
        self.pick(bad, nan, r)
    }

    fn hypot_d(&mut self, x: Value, y: Value) -> Value {
        let xx = self.b.ins().fmul(x, x);
        let yy = self.b.ins().fmul(y, y);
        let s = self.b.ins().fadd(xx, yy);
        let r = self.b.ins().sqrt(s);
        let ax = self.b.ins().fabs(x);
        let ay = self.b.ins().fabs(y);
        let xi = self.dcmp(FloatCC::Equal, ax, f64::INFINITY);
        let yi = self.dcmp(FloatCC::Equal, ay, f64::INFINITY);
        let any = self.b.ins().bor(xi, yi);
        let inf = self.dk(x, f64::INFINITY);
        self.pick(any, inf, r)
    }

    /// One function on double shapes (`a` holds the widened arguments).
    fn math_d(&mut self, name: &str, a: &[Value]) -> Value {
        let x = a[0];
        match name {
            "exp" => self.exp_d(x),
            "exp2" | "exp10" => {
                let k = self.dk(x, if name == "exp2" { LN_2 } else { LN_10 });
                let t = self.b.ins().fmul(x, k);
                self.exp_d(t)
            }
            "expm1" => {
                let r = self.expm1_d(x);
                let z = self.dcmp(FloatCC::Equal, x, 0.0);
                self.pick(z, x, r)
            }
            "log" => self.log_d(x, 0),
            "log2" => self.log_d(x, 2),
            "log10" => self.log_d(x, 10),
            "log1p" => self.log1p_d(x),
            "sin" => self.trig_d(x, 0),
            "cos" => self.trig_d(x, 1),
            "tan" => self.trig_d(x, 2),
            "sinpi" => self.trigpi_d(x, 0),
            "cospi" => self.trigpi_d(x, 1),
            "tanpi" => self.trigpi_d(x, 2),
            "pown" => self.pow_d(x, a[1]),
            "rootn" => self.rootn_d(x, a[1]),
            "atan" => self.atan_d(x),
            "atan2" => self.atan2_d(x, a[1]),
            "asin" => self.asin_d(x),
            "acos" => self.acos_d(x),
            "atanpi" | "atan2pi" | "asinpi" | "acospi" => {
                let r = self.math_d(name.trim_end_matches("pi"), a);
                let k = self.dk(x, 1.0 / PI);
                self.b.ins().fmul(r, k)
            }
            "sinh" => self.hyper_d(x, 0),
            "cosh" => self.hyper_d(x, 1),
            "tanh" => self.hyper_d(x, 2),
            "erf" => self.erf_d(x, false),
            "erfc" => self.erf_d(x, true),
            "cbrt" => self.cbrt_d(x),
            _ => self.hypot_d(x, a[1]),
        }
    }

    /// `f32x4` → two `f64x2`.
    fn widen_f32(&mut self, p: Value) -> [Value; 2] {
        let lo = self.b.ins().fvpromote_low(p);
        let z = self.b.ins().f32const(0.0);
        let zv = self.b.ins().splat(types::F32X4, z);
        let hi = self.shuffle_bytes(
            p,
            zv,
            [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23],
        );
        let hi = self.vcast(types::F32X4, hi);
        [lo, self.b.ins().fvpromote_low(hi)]
    }

    /// `i32x4` → two `f64x2` (exact).
    fn widen_i32(&mut self, p: Value) -> [Value; 2] {
        let lo = self.b.ins().swiden_low(p);
        let hi = self.b.ins().swiden_high(p);
        [lo, hi].map(|v| {
            let m = self.b.ins().f64const(MAGIC);
            let mv = self.b.ins().splat(types::F64X2, m);
            let mb = self.vcast(types::I64X2, mv);
            let s = self.b.ins().iadd(v, mb);
            let f = self.vcast(types::F64X2, s);
            self.b.ins().fsub(f, mv)
        })
    }

    /// Two `f64x2` → one `f32x4` (one rounding).
    fn narrow_f64(&mut self, lo: Value, hi: Value) -> Value {
        let a = self.b.ins().fvdemote(lo);
        let b = self.b.ins().fvdemote(hi);
        let r = self.shuffle_bytes(
            a,
            b,
            [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23],
        );
        self.vcast(types::F32X4, r)
    }

    /// An `f32` constant shaped like `like` (`f32` or `f32x4`).
    fn fk(&mut self, like: Value, x: f32) -> Value {
        if self.b.func.dfg.value_type(like).is_vector() {
            self.sk(x)
        } else {
            self.b.ins().f32const(x)
        }
    }

    /// An `i32` constant shaped like the integer view of `like`.
    fn ik32(&mut self, like: Value, x: i32) -> Value {
        if self.b.func.dfg.value_type(like).is_vector() {
            self.vconst32(types::I32X4, x as u32)
        } else {
            self.b.ins().iconst(types::I32, i64::from(x))
        }
    }

    /// The bits of a float shape as `i32`/`i32x4`.
    fn fbits(&mut self, v: Value) -> Value {
        if self.b.func.dfg.value_type(v).is_vector() {
            self.vcast(types::I32X4, v)
        } else {
            self.b.ins().bitcast(types::I32, MemFlagsData::new(), v)
        }
    }

    /// A float shape from its bits.
    fn ffrom(&mut self, v: Value) -> Value {
        if self.b.func.dfg.value_type(v).is_vector() {
            self.vcast(types::F32X4, v)
        } else {
            self.b.ins().bitcast(types::F32, MemFlagsData::new(), v)
        }
    }

    /// `c[0] + c[1]·z + c[2]·z²` in `float` (fused; the caller checks FMA).
    fn poly_f32(&mut self, z: Value, c: &[u32; 3]) -> Value {
        let c2 = self.fk(z, f32::from_bits(c[2]));
        let c1 = self.fk(z, f32::from_bits(c[1]));
        let c0 = self.fk(z, f32::from_bits(c[0]));
        let acc = self.b.ins().fma(c2, z, c1);
        self.b.ins().fma(acc, z, c0)
    }

    /// `(sin x, cos x)` in single precision on a `float` or an `f32x4`
    /// piece, for |x| ≤ 2^20 (beyond, the caller's exact path): `x = k·π/2
    /// + r` with `k = rint(x·2/π)` and π/2 in three `float`s (`x - k·P1`
    /// is exact, the other two steps round once each), then `r + r³·S(r²)`
    /// and `1 - r²/2 + r⁴·C(r²)` (`S`, `C` fitted for least relative
    /// error on [-π/4, π/4], 4.1e-9 and 1.2e-10), the quadrant from the
    /// bits of `k`. Needs FMA (the host's; the wide code's are the same
    /// operations): measured over every float up to 2^20, at most 1.86
    /// ULP (`docs/builtins.md`). A zero keeps its sign in `sin`.
    fn sincos_f32(&mut self, x: Value) -> (Value, Value) {
        let two_over_pi = self.fk(x, f32::from_bits(TWO_OVER_PI_F32));
        let t = self.b.ins().fmul(x, two_over_pi);
        let k = self.b.ins().nearest(t);
        let nk = self.b.ins().fneg(k);
        let mut r = x;
        for c in PIO2_F32 {
            let c = self.fk(x, f32::from_bits(c));
            r = self.b.ins().fma(nk, c, r);
        }
        let z = self.b.ins().fmul(r, r);
        let ps = self.poly_f32(z, &SIN_F32);
        let rz = self.b.ins().fmul(r, z);
        let s = self.b.ins().fma(rz, ps, r);
        let pc = self.poly_f32(z, &COS_F32);
        let half = self.fk(x, -0.5);
        let h = self.b.ins().fmul(z, half);
        let zz = self.b.ins().fmul(z, z);
        let c = self.b.ins().fma(zz, pc, h);
        let one = self.fk(x, 1.0);
        let c = self.b.ins().fadd(c, one);
        // |k| < 2^22: its two's-complement low bits are those of k + 1.5·2^23.
        let magic = self.fk(x, 12_582_912.0);
        let kb = self.b.ins().fadd(k, magic);
        let kb = self.fbits(kb);
        let bit0 = self.ik32(x, 1);
        let low = self.b.ins().band(kb, bit0);
        let odd = self.b.ins().icmp(IntCC::Equal, low, bit0);
        let (sv, cv) = (self.pick(odd, c, s), self.pick(odd, s, c));
        let two = self.ik32(x, 2);
        let q2 = self.b.ins().band(kb, two);
        let sflip = self.b.ins().ishl_imm_s(q2, 30);
        let kc = self.b.ins().iadd(kb, bit0);
        let q2c = self.b.ins().band(kc, two);
        let cflip = self.b.ins().ishl_imm_s(q2c, 30);
        let sb = self.fbits(sv);
        let sb = self.b.ins().bxor(sb, sflip);
        let sn = self.ffrom(sb);
        let cb = self.fbits(cv);
        let cb = self.b.ins().bxor(cb, cflip);
        let cs = self.ffrom(cb);
        let zero = self.fk(x, 0.0);
        let z0 = self.b.ins().fcmp(FloatCC::Equal, x, zero);
        (self.pick(z0, x, sn), cs)
    }

    /// An `f32x4` constant.
    fn sk(&mut self, x: f32) -> Value {
        self.vconst32(types::F32X4, x.to_bits())
    }

    fn vconst32(&mut self, t: types::Type, bits: u32) -> Value {
        let bytes: Vec<u8> = (0..4).flat_map(|_| bits.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(t, c)
    }

    /// `a·b + c` on `f32x4`, fused when the host has FMA.
    fn smad(&mut self, a: Value, b: Value, c: Value) -> Value {
        if self.has_fma {
            self.b.ins().fma(a, b, c)
        } else {
            let m = self.b.ins().fmul(a, b);
            self.b.ins().fadd(m, c)
        }
    }

    /// `e^x` on an `f32x4` piece in single precision: `x = n·ln2 + r`
    /// (`n·LN2_HI` exact), a degree-6 polynomial, and `2^n` applied
    /// as two normal powers of two so subnormal results round once.
    ///
    /// A piece whose lanes are all in [-87, 87] (no NaN) takes a shorter
    /// path ([`Self::exp_in_range_f32x4`]); the others this general one.
    fn exp_f32x4(&mut self, x: Value) -> Value {
        if self.finite {
            return self.exp_general_f32x4(x);
        }
        // |x| as bits above 87.0's: out of range, infinite or NaN.
        let limit = f32::to_bits(87.0) as i64;
        let out = self.bits_above(x, 0x7fff_ffff, 0, limit);
        self.unless_any(
            out,
            x,
            |cx, x| cx.exp_in_range_f32x4(x),
            |cx, x| cx.exp_general_f32x4(x),
        )
    }

    /// `e^x` for |x| ≤ 87: the result and `2^n` (|n| ≤ 126) are normal, so
    /// the clamps, the split scaling for subnormal results and the NaN
    /// select of [`Self::exp_general_f32x4`] are not needed; the reduction
    /// and polynomial are the same, so the results are too.
    fn exp_in_range_f32x4(&mut self, x: Value) -> Value {
        let (n, r) = self.exp_reduce_f32x4(x);
        let p = self.exp_poly_f32x4(r);
        let ni = self.int_of_f32x4(n);
        let bias = self.vconst32(types::I32X4, 127);
        let be = self.b.ins().iadd(ni, bias);
        let sb = self.b.ins().ishl_imm_s(be, 23);
        let sc = self.vcast(types::F32X4, sb);
        self.b.ins().fmul(p, sc)
    }

    /// The general `e^x` on an `f32x4` piece (every argument).
    fn exp_general_f32x4(&mut self, x: Value) -> Value {
        let hi = self.sk(89.0);
        let lo = self.sk(-104.0);
        let t = self.pmin(x, hi);
        let t = self.pmax(t, lo);
        let (n, r) = self.exp_reduce_f32x4(t);
        self.exp_finish_f32x4(x, n, r)
    }

    /// `t = n·ln2 + r` with `n` integer-valued and |r| ≤ ln2/2; the high
    /// part of ln2 has 15 significant bits, so `n` times it is exact for
    /// the |n| ≤ 151 of float arguments.
    fn exp_reduce_f32x4(&mut self, t: Value) -> (Value, Value) {
        let l2e = self.sk(std::f32::consts::LOG2_E);
        let nf = self.b.ins().fmul(t, l2e);
        let n = self.b.ins().nearest(nf);
        let c_hi = self.sk(f32::from_bits(0x3f31_7200));
        let c_lo = self.sk(1.428_606_8e-6);
        if self.has_fma {
            // One `vfnmadd` each: `t - n·hi` is the same (the product is
            // exact), `- n·lo` rounds once instead of twice.
            let m = self.b.ins().fneg(n);
            let r = self.b.ins().fma(m, c_hi, t);
            return (n, self.b.ins().fma(m, c_lo, r));
        }
        let a = self.b.ins().fmul(n, c_hi);
        let r = self.b.ins().fsub(t, a);
        let b = self.b.ins().fmul(n, c_lo);
        (n, self.b.ins().fsub(r, b))
    }

    /// `2^x` on an `f32x4` piece in single precision (relaxed math):
    /// `x = n + f` exactly, `r = f·ln2`, then as `exp`.
    fn exp2_f32x4(&mut self, x: Value) -> Value {
        let hi = self.sk(129.0);
        let lo = self.sk(-151.0);
        let t = self.pmin(x, hi);
        let t = self.pmax(t, lo);
        let n = self.b.ins().nearest(t);
        let f = self.b.ins().fsub(t, n);
        let ln2 = self.sk(std::f32::consts::LN_2);
        let r = self.b.ins().fmul(f, ln2);
        self.exp_finish_f32x4(x, n, r)
    }

    /// `10^x` on an `f32x4` piece in single precision (relaxed math):
    /// `x = n·log10(2) + d` with `log10(2)` in two parts (`n·hi` exact for
    /// |n| < 2^8), `r = d·ln10`, then as `exp`.
    fn exp10_f32x4(&mut self, x: Value) -> Value {
        let hi = self.sk(39.0);
        let lo = self.sk(-46.0);
        let t = self.pmin(x, hi);
        let t = self.pmax(t, lo);
        let l2t = self.sk(std::f32::consts::LOG2_10);
        let nf = self.b.ins().fmul(t, l2t);
        let n = self.b.ins().nearest(nf);
        let c_hi = f32::from_bits(std::f32::consts::LOG10_2.to_bits() & 0xffff_ff00);
        let c_lo = (LOG10_2 - f64::from(c_hi)) as f32;
        let (c_hi, c_lo) = (self.sk(c_hi), self.sk(c_lo));
        let a = self.b.ins().fmul(n, c_hi);
        let d = self.b.ins().fsub(t, a);
        let b = self.b.ins().fmul(n, c_lo);
        let d = self.b.ins().fsub(d, b);
        let ln10 = self.sk(std::f32::consts::LN_10);
        let r = self.b.ins().fmul(d, ln10);
        self.exp_finish_f32x4(x, n, r)
    }

    /// `e^r · 2^n` for |r| ≤ ln2/2 (`x` the argument, for NaN).
    fn exp_finish_f32x4(&mut self, x: Value, n: Value, r: Value) -> Value {
        let acc = self.exp_poly_f32x4(r);
        // `n` is an integer in [-151, 129], or NaN (then `x` is NaN too and
        // the result is replaced below): no saturation is needed.
        let ni = self.int_of_f32x4(n);
        let n1 = self.b.ins().sshr_imm_s(ni, 1);
        let n2 = self.b.ins().isub(ni, n1);
        let bias = self.vconst32(types::I32X4, 127);
        let mut r = acc;
        for e in [n1, n2] {
            let be = self.b.ins().iadd(e, bias);
            let sb = self.b.ins().ishl_imm_s(be, 23);
            let sc = self.vcast(types::F32X4, sb);
            r = self.b.ins().fmul(r, sc);
        }
        if self.finite {
            return r;
        }
        let un = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        self.pick(un, x, r)
    }

    /// `e^r` for |r| ≤ ln2/2: a degree-6 polynomial `1 + r + r²·Q(r)`,
    /// `Q` fitted for least relative error over that interval (weighted
    /// least squares on Chebyshev nodes, reweighted towards equal ripple):
    /// 3.1e-9 in exact arithmetic, 0.67 ulp evaluated by Horner's rule in
    /// `float` with FMA — the degree-7 Taylor polynomial it replaces gave
    /// 0.69 ulp there, with one more term.
    fn exp_poly_f32x4(&mut self, r: Value) -> Value {
        const C: [u32; 7] = [
            0x3f80_0000, // 1
            0x3f80_0000, // 1
            0x3eff_fffe, // 0.49999994
            0x3e2a_aa49, // 0.16666521
            0x3d2a_ac79, // 0.041668389
            0x3c09_1ced, // 0.0083687128
            0x3ab5_1214, // 0.0013814592
        ];
        let mut acc = self.sk(f32::from_bits(C[6]));
        for k in (0..6).rev() {
            let c = self.sk(f32::from_bits(C[k]));
            acc = self.smad(acc, r, c);
        }
        acc
    }

    /// An integer-valued `f32x4` in `i32` range as `i32x4`.
    fn int_of_f32x4(&mut self, n: Value) -> Value {
        if self.x86 {
            self.b.ins().x86_cvtt2dq(types::I32X4, n)
        } else {
            self.b.ins().fcvt_to_sint_sat(types::I32X4, n)
        }
    }

    /// Whether some lane's bits of `x`, masked with `mask` and less `sub`,
    /// are above `limit` as unsigned numbers: a scalar `i8`.
    ///
    /// x86-64 compares `i32x4` lanes as signed numbers only (an unsigned
    /// `icmp` is four instructions there), so the test is made signed:
    /// `v >u l` is `v + 2^31 >s l - 2^31`, and the `+ 2^31` joins `- sub`
    /// in one add; with nothing to subtract and the sign bit masked off,
    /// the two orders agree as they are.
    fn bits_above(&mut self, x: Value, mask: u32, sub: u32, limit: i64) -> Value {
        let bits = self.vcast(types::I32X4, x);
        let v = if mask == u32::MAX {
            bits
        } else {
            let m = self.vconst32(types::I32X4, mask);
            self.b.ins().band(bits, m)
        };
        let limit = limit as u32;
        let (v, l) = if sub == 0 && mask <= i32::MAX as u32 && limit <= i32::MAX as u32 {
            (v, limit)
        } else {
            let k = self.vconst32(types::I32X4, (1u32 << 31).wrapping_sub(sub));
            (self.b.ins().iadd(v, k), limit ^ (1 << 31))
        };
        let l = self.vconst32(types::I32X4, l);
        let above = self.b.ins().icmp(IntCC::SignedGreaterThan, v, l);
        self.b.ins().vany_true(above)
    }

    /// `usual(x)` unless `any` (a scalar `i8`) is set, then `general(x)`:
    /// the pieces of ordinary arguments skip the special cases' selects.
    fn unless_any(
        &mut self,
        any: Value,
        x: Value,
        usual: impl FnOnce(&mut Self, Value) -> Value,
        general: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Value {
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(join, types::F32X4);
        self.b.ins().brif(any, slow, &[], fast, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let r = usual(self, x);
        self.b.ins().jump(join, &[BlockArg::Value(r)]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let r = general(self, x);
        self.b.ins().jump(join, &[BlockArg::Value(r)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }

    /// `ln x` (`base` 0), `log2 x` or `log10 x` on an `f32x4` piece in
    /// single precision: exponent and mantissa from the bits (subnormals
    /// scaled first), then `ln m = 2·atanh((m-1)/(m+1))`; the exponent's
    /// term is added in the base's units, exactly for `log2`.
    ///
    /// A piece whose lanes are all positive, normal and finite skips the
    /// subnormal scaling and the special cases' selects (the same results).
    fn log_f32x4(&mut self, x: Value, base: u32) -> Value {
        // Bits less those of the least normal, above the span of the
        // normal positive floats: 0, negative, subnormal, infinite or NaN.
        let min_bits = f32::MIN_POSITIVE.to_bits();
        let span = i64::from(f32::MAX.to_bits() - min_bits);
        let out = self.bits_above(x, u32::MAX, min_bits, span);
        self.unless_any(
            out,
            x,
            |cx, x| cx.log_body_f32x4(x, base, true),
            |cx, x| cx.log_body_f32x4(x, base, false),
        )
    }

    /// [`Self::log_f32x4`]'s evaluation; `usual` when every lane is known
    /// to be positive, normal and finite.
    fn log_body_f32x4(&mut self, x: Value, base: u32, usual: bool) -> Value {
        let zero = self.sk(0.0);
        let (xx, sub) = if usual {
            (x, None)
        } else {
            let minp = self.sk(f32::MIN_POSITIVE);
            let sub = self.b.ins().fcmp(FloatCC::LessThan, x, minp);
            let k23 = self.sk(8_388_608.0);
            let xs = self.b.ins().fmul(x, k23);
            (self.pick(sub, xs, x), Some(sub))
        };
        let bits = self.vcast(types::I32X4, xx);
        let eb = self.b.ins().ushr_imm_s(bits, 23);
        let ff = self.vconst32(types::I32X4, 0xff);
        let eb = self.b.ins().band(eb, ff);
        let ef = self.b.ins().fcvt_from_sint(types::F32X4, eb);
        let bias = self.sk(127.0);
        let e = self.b.ins().fsub(ef, bias);
        let e = match sub {
            Some(sub) => {
                let k23e = self.sk(23.0);
                let adj = self.pick(sub, k23e, zero);
                self.b.ins().fsub(e, adj)
            }
            None => e,
        };
        let mm = self.vconst32(types::I32X4, 0x007f_ffff);
        let mant = self.b.ins().band(bits, mm);
        let one_b = self.vconst32(types::I32X4, 0x3f80_0000);
        let mant = self.b.ins().bor(mant, one_b);
        let m = self.vcast(types::F32X4, mant);
        let sq2 = self.sk(std::f32::consts::SQRT_2);
        let big = self.b.ins().fcmp(FloatCC::GreaterThan, m, sq2);
        let half = self.sk(0.5);
        let mh = self.b.ins().fmul(m, half);
        let m = self.pick(big, mh, m);
        let one = self.sk(1.0);
        let inc = self.pick(big, one, zero);
        let e = self.b.ins().fadd(e, inc);
        let f = self.b.ins().fsub(m, one);
        let two = self.sk(2.0);
        let den = self.b.ins().fadd(f, two);
        let s = self.b.ins().fdiv(f, den);
        let z = self.b.ins().fmul(s, s);
        // 2s·(1 + z/3 + … + z⁴/9): the next term, z⁵/11 < 2e-9 for
        // |s| < 0.172, is far below half an ulp.
        let mut acc = self.sk(2.0 / 9.0);
        for k in (1..4).rev() {
            let c = self.sk(2.0 / (2 * k + 1) as f32);
            acc = self.smad(acc, z, c);
        }
        // ln m = 2s + s·z·P(z): the large term 2s is added last.
        let sz = self.b.ins().fmul(s, z);
        let tail = self.b.ins().fmul(sz, acc);
        let s2 = self.b.ins().fadd(s, s);
        let lm = self.b.ins().fadd(s2, tail);
        let r = match base {
            2 => {
                let k = self.sk(std::f32::consts::LOG2_E);
                self.smad(lm, k, e)
            }
            10 => {
                // log10(2) split so `e·hi` is exact (|e| < 2^8).
                let hi = f32::from_bits(std::f32::consts::LOG10_2.to_bits() & 0xffff_f000);
                let lo = (LOG10_2 - f64::from(hi)) as f32;
                let (hi, lo) = (self.sk(hi), self.sk(lo));
                let k = self.sk(std::f32::consts::LOG10_E);
                let a = self.b.ins().fmul(e, hi);
                let t = self.b.ins().fmul(lm, k);
                let b = self.smad(e, lo, t);
                self.b.ins().fadd(a, b)
            }
            _ => {
                let c_hi = self.sk(f32::from_bits(0x3f31_7200));
                let c_lo = self.sk(1.428_606_8e-6);
                let a = self.b.ins().fmul(e, c_hi);
                let b = self.smad(e, c_lo, lm);
                self.b.ins().fadd(a, b)
            }
        };
        if self.finite || usual {
            return r;
        }
        // Special cases: 0 → -inf, +inf → +inf, x < 0 or NaN → NaN.
        let z0 = self.b.ins().fcmp(FloatCC::Equal, x, zero);
        let ninf = self.sk(f32::NEG_INFINITY);
        let r = self.pick(z0, ninf, r);
        let inf = self.sk(f32::INFINITY);
        let is_inf = self.b.ins().fcmp(FloatCC::Equal, x, inf);
        let r = self.pick(is_inf, x, r);
        let neg = self.b.ins().fcmp(FloatCC::LessThan, x, zero);
        let nan = self.sk(f32::NAN);
        let r = self.pick(neg, nan, r);
        let un = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        self.pick(un, x, r)
    }
}

impl FunctionCx<'_, '_> {
    /// A float builtin of [`SIMD_F32`] on one component: a call of the
    /// kernel's routine for it per piece (or one for a uniform value).
    ///
    /// `s` is `F32`, or `F64` for a builtin of [`SIMD_F64`] (`f64x2`
    /// pieces and `f64` values).
    pub(super) fn simd_math(&mut self, name: &str, args: &[Lanes], s: Scalar) -> LResult<Lanes> {
        let uniform = args.iter().all(|a| a.is_uniform());
        let double = s == Scalar::F64;
        let types: Vec<types::Type> = (0..args.len())
            .map(|i| match (int_arg(name, i), uniform, double) {
                (true, true, _) => types::I32,
                (true, false, _) => types::I32X4,
                (false, true, false) => types::F32,
                (false, false, false) => types::F32X4,
                (false, true, true) => types::F64,
                (false, false, true) => types::F64X2,
            })
            .collect();
        let fast = if uniform {
            let f = self.math_routine(name, &types)?;
            let mut a = Vec::with_capacity(args.len());
            for l in args {
                let Lanes::Uniform(v) = l else {
                    return Err(self.internal(format!("{name}: uniform argument expected")));
                };
                a.push(*v);
            }
            let r = self
                .call(f, &a)
                .ok_or_else(|| self.internal(format!("{name}: no result")))?;
            Lanes::Uniform(r)
        } else {
            let pieces: Vec<Vec<Value>> = args
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let s = if int_arg(name, i) { Scalar::I32 } else { s };
                    self.varying(s, l)
                })
                .collect();
            let n = pieces[0].len();
            if n == 1 {
                let f = self.math_routine(name, &types)?;
                let a: Vec<Value> = pieces.iter().map(|p| p[0]).collect();
                let r = self
                    .call(f, &a)
                    .ok_or_else(|| self.internal(format!("{name}: no result")))?;
                Lanes::Varying(vec![r])
            } else {
                // One call for all pieces, through a stack buffer: the
                // arguments' pieces, then the results.
                let f = self.math_routine_pieces(name, &types, n as u32)?;
                let in_bytes = (pieces.len() * n * 16) as u32;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    in_bytes + n as u32 * 16,
                    4,
                ));
                let flags = MemFlagsData::trusted();
                let args_at = self.b.ins().stack_addr(types::I64, slot, 0);
                for (a, arg) in pieces.iter().enumerate() {
                    for (i, v) in arg.iter().enumerate() {
                        self.b
                            .ins()
                            .store(flags, *v, args_at, ((a * n + i) * 16) as i32);
                    }
                }
                let out_at = self.b.ins().stack_addr(types::I64, slot, in_bytes as i32);
                self.b.ins().call(f, &[args_at, out_at]);
                let out = (0..n)
                    .map(|i| self.b.ins().load(types[0], flags, out_at, (i * 16) as i32))
                    .collect();
                Lanes::Varying(out)
            }
        };
        Ok(fast)
    }

    /// The AVX-512 `sincos` of `n` pieces (`crate::zsincos`), imported
    /// once per kernel: on a host that runs it, for whole 16-lane blocks,
    /// when the routine's single-precision steps are the ones the
    /// Cranelift routine takes (FMA).
    fn zmm_sincos(&mut self, n: usize) -> LResult<Option<cranelift_codegen::ir::FuncRef>> {
        let sym = crate::zsincos::SYMBOL;
        if !n.is_multiple_of(4)
            || !self.kernel.has_fma()
            || cranelift_module::Module::isa(self.jit)
                .triple()
                .architecture
                != target_lexicon::Architecture::X86_64
            || crate::zsincos::address().is_none()
        {
            return Ok(None);
        }
        if let Some(f) = self.cache.imported(sym) {
            return Ok(Some(f));
        }
        let conv = cranelift_module::Module::isa(self.jit).default_call_conv();
        let mut sig = cranelift_codegen::ir::Signature::new(conv);
        for _ in 0..3 {
            sig.params
                .push(cranelift_codegen::ir::AbiParam::new(types::I64));
        }
        sig.returns
            .push(cranelift_codegen::ir::AbiParam::new(types::I32));
        let id = cranelift_module::Module::declare_function(
            self.jit,
            sym,
            cranelift_module::Linkage::Import,
            &sig,
        )
        .map_err(|e| self.internal(format!("declaring {sym}: {e}")))?;
        let fref = cranelift_module::Module::declare_func_in_func(self.jit, id, self.b.func);
        self.cache.import(sym.to_string(), fref);
        Ok(Some(fref))
    }

    /// `sincos`: the sine, with the cosine as second result, from one call
    /// of the `sincos` routine (one reduction and one pair of
    /// polynomials where `sin` and `cos` made two: the twiddles of an FFT
    /// stage, `benches/programs.py`).
    pub(super) fn simd_sincos_f32(&mut self, x: &Lanes) -> LResult<(Lanes, Lanes)> {
        let internal = |cx: &Self| cx.internal("sincos: two results expected");
        if let Lanes::Uniform(v) = x {
            let f = self.math_routine("sincos", &[types::F32])?;
            let call = self.b.ins().call(f, &[*v]);
            let r = self.b.inst_results(call).to_vec();
            let [s, c] = r[..] else {
                return Err(internal(self));
            };
            return Ok((Lanes::Uniform(s), Lanes::Uniform(c)));
        }
        let pieces = self.varying(Scalar::F32, x);
        let n = pieces.len();
        if n == 1 {
            let f = self.math_routine("sincos", &[types::F32X4])?;
            let call = self.b.ins().call(f, &[pieces[0]]);
            let r = self.b.inst_results(call).to_vec();
            let [s, c] = r[..] else {
                return Err(internal(self));
            };
            return Ok((Lanes::Varying(vec![s]), Lanes::Varying(vec![c])));
        }
        // One call for all pieces, through a stack buffer: the arguments,
        // then the sines, then the cosines.
        let f = self.math_routine_pieces("sincos", &[types::F32X4], n as u32)?;
        let bytes = (n * 16) as u32;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            3 * bytes,
            4,
        ));
        let flags = MemFlagsData::trusted();
        let args_at = self.b.ins().stack_addr(types::I64, slot, 0);
        for (i, v) in pieces.iter().enumerate() {
            self.b.ins().store(flags, *v, args_at, (i * 16) as i32);
        }
        let out_at = self.b.ins().stack_addr(types::I64, slot, bytes as i32);
        match self.zmm_sincos(n)? {
            // Whole 16-lane blocks on an AVX-512 host: the same steps on
            // 16 lanes at a time (`crate::zsincos`), the routine only when
            // a lane needs the exact path.
            Some(fast) => {
                let blocks = self.b.ins().iconst(types::I64, (n / 4) as i64);
                let call = self.b.ins().call(fast, &[args_at, out_at, blocks]);
                let done = self.b.inst_results(call)[0];
                let (slow, join) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(done, join, &[], slow, &[]);
                self.b.switch_to_block(slow);
                self.b.seal_block(slow);
                self.b.ins().call(f, &[args_at, out_at]);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                self.b.seal_block(join);
            }
            None => {
                self.b.ins().call(f, &[args_at, out_at]);
            }
        }
        let mut load = |j: usize| -> Vec<Value> {
            (0..n)
                .map(|i| {
                    self.b
                        .ins()
                        .load(types::F32X4, flags, out_at, ((j * n + i) * 16) as i32)
                })
                .collect()
        };
        let (s, c) = (load(0), load(1));
        Ok((Lanes::Varying(s), Lanes::Varying(c)))
    }
}

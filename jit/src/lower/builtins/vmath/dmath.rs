//! Double-precision `exp exp2 exp10 log log2 log10 sin cos` emitted as
//! CLIF on `f64x2` pieces and uniform `f64` values, instead of a libm
//! call per lane.
//!
//! The same shapes and operations as the single-precision routines of the
//! parent module, but with no wider type to hide rounding in: each
//! function is arranged so that its large terms are exact and only small
//! corrections round (Cody–Waite reductions with split constants, the
//! `log` of fdlibm's form `f - (hfsq - s·(hfsq + R))`, `cos` as
//! `(1 - z/2)` plus its rounding error plus the tail). The polynomials
//! are truncated Taylor series with enough terms that truncation is
//! below 1/20 ulp. Measured against 200-bit references
//! (`docs/builtins.md`): all within the OpenCL full-profile bounds.
//!
//! `sin` and `cos` with |x| > 2^20 (or infinite) take the exact libm
//! routine lane by lane, behind a branch taken only when a lane needs it.

use super::{inv_fact, MathCx, LN2_HI, LN2_LO, MAGIC, PIO2_1, PIO2_2};
use cranelift_codegen::ir::{condcodes::FloatCC, condcodes::IntCC, BlockArg, FuncRef};
use cranelift_codegen::ir::{InstBuilder, Value};
use std::f64::consts::{FRAC_2_PI, LN_10, LN_2, LOG10_E, LOG2_E};

/// The double builtins with a routine here.
pub(crate) const SIMD_F64: &[&str] =
    &["exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos"];

/// The third and fourth parts of π/2 after `PIO2_1` and `PIO2_2` (33 bits
/// each): the third of 33 bits too, so that `k` times it is exact for
/// |k| < 2^20; the fourth of 53 (`k` times it rounds far below what
/// matters). The four leave 7e-49.
const PIO2_3: f64 = f64::from_bits(0x3ba3_198a_2e00_0000);
const PIO2_4: f64 = f64::from_bits(0x397b_839a_2520_49c1);
/// log10(2) split so that `n·LG2_HI` is exact for |n| < 2^13.
pub(crate) const LG2_HI: f64 = f64::from_bits(0x3fd3_4413_509f_6000);
pub(crate) const LG2_LO: f64 = 3.694_239_077_158_931e-13;
/// `G(z)` of `log`'s `R = z·G(z)`: `(2·atanh(√z)/√z - 2)/z` on
/// [0, 0.02945] (|s| < 0.1716), degree 6, fitted with mpmath's
/// `chebyfit` (relative error 4.7e-16 of `G`, which `R`'s weight in the
/// result, < z/2, makes < 7e-18; the Taylor series needs 10 terms).
pub(crate) const LOG_R: [f64; 7] = [
    0.666_666_666_666_667,
    0.399_999_999_998_992_4,
    0.285_714_286_260_958_9,
    0.222_222_111_151_441_6,
    0.181_828_905_566_956_02,
    0.153_316_740_301_678_6,
    0.146_170_375_487_916_5,
];
/// log2(10).
const LOG2_10: f64 = std::f64::consts::LOG2_10;
/// Beyond this the Cody–Waite reduction of `sin`/`cos` is not exact
/// enough (`k·PIO2_1` must be exact: 33 + 20 bits).
const TRIG_LIMIT_F64: f64 = 1_048_576.0;

impl MathCx<'_, '_> {
    /// `name` of [`SIMD_F64`] on one double shape (`f64x2` or `f64`).
    /// `exact`: the per-lane libm `sin`/`cos` for huge arguments.
    pub(in super::super) fn routine_f64(
        &mut self,
        name: &str,
        x: Value,
        exact: Option<FuncRef>,
    ) -> Value {
        match name {
            "exp" => self.exp_f64(x, 0),
            "exp2" => self.exp_f64(x, 2),
            "exp10" => self.exp_f64(x, 10),
            "log" => self.log_f64(x, 0),
            "log2" => self.log_f64(x, 2),
            "log10" => self.log_f64(x, 10),
            _ => {
                let fast = self.sincos_f64(x, name == "cos");
                match exact {
                    Some(f) => self.trig_slow_path_f64(f, x, fast),
                    None => fast,
                }
            }
        }
    }

    /// `x` clamped to `[lo, hi]`, NaN kept (a compare and a select each).
    fn dclamp(&mut self, x: Value, lo: f64, hi: f64) -> Value {
        let h = self.dk(x, hi);
        let above = self.b.ins().fcmp(FloatCC::GreaterThan, x, h);
        let x = self.pick(above, h, x);
        let l = self.dk(x, lo);
        let below = self.b.ins().fcmp(FloatCC::LessThan, x, l);
        self.pick(below, l, x)
    }

    /// `e^x`, `2^x` or `10^x` (`base` 0, 2, 10): `x = n·log_b(2) + d` with
    /// `n` an integer and the high part of the split constant exact times
    /// `n`, `r = d·ln b` (|r| ≤ ln2/2), `e^r = 1 + r·P(r)` (Taylor to r^13,
    /// truncation < 5e-18), and `2^n` applied as two powers of two so
    /// results near overflow stay finite and subnormal results round
    /// once more only at the last step.
    ///
    /// A shape whose lanes all have results normal and finite (|x| ≤ 708,
    /// 1021 and 307 for the three bases; no NaN) takes a branch without
    /// the clamps and with one power of two: the same results.
    fn exp_f64(&mut self, x: Value, base: u32) -> Value {
        let lim = match base {
            2 => 1021.0,
            10 => 307.0,
            _ => 708.0,
        };
        let ax = self.b.ins().fabs(x);
        let out = self.dcmp(FloatCC::UnorderedOrGreaterThan, ax, lim);
        let any = self.any_lane(out);
        self.unless_any_f64(
            any,
            x,
            |cx, x| cx.exp_body_f64(x, base, true),
            |cx, x| cx.exp_body_f64(x, base, false),
        )
    }

    /// Whether a mask (vector) or condition (scalar) holds in some lane.
    fn any_lane(&mut self, m: Value) -> Value {
        if self.b.func.dfg.value_type(m).is_vector() {
            self.b.ins().vany_true(m)
        } else {
            m
        }
    }

    /// `usual(x)` unless `any` (a scalar `i8`), then `general(x)`.
    fn unless_any_f64(
        &mut self,
        any: Value,
        x: Value,
        usual: impl FnOnce(&mut Self, Value) -> Value,
        general: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Value {
        let t = self.b.func.dfg.value_type(x);
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(join, t);
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

    /// [`Self::exp_f64`]'s evaluation; `usual` when every lane is known to
    /// have a normal finite result.
    fn exp_body_f64(&mut self, x: Value, base: u32, usual: bool) -> Value {
        let (lo, hi) = match base {
            2 => (-1076.0, 1025.0),
            10 => (-325.0, 310.0),
            _ => (-746.0, 710.0),
        };
        let x = if usual { x } else { self.dclamp(x, lo, hi) };
        // n = rint(x·log2 b) from the low bits of `x·log2 b + 1.5·2^52`:
        // the bits of that sum are those of 2^n less the exponent's shift.
        let magic = self.dk(x, MAGIC);
        let nm = if base == 2 {
            self.b.ins().fadd(x, magic)
        } else {
            let k = self.dk(x, if base == 10 { LOG2_10 } else { LOG2_E });
            self.mul_add(x, k, magic)
        };
        let n = self.b.ins().fsub(nm, magic);
        let r = match base {
            2 => {
                let d = self.b.ins().fsub(x, n);
                let l = self.dk(x, LN_2);
                self.b.ins().fmul(d, l)
            }
            10 => {
                let d = self.cody_waite(x, n, &[LG2_HI, LG2_LO]);
                let l = self.dk(x, LN_10);
                self.b.ins().fmul(d, l)
            }
            _ => self.cody_waite(x, n, &[LN2_HI, LN2_LO]),
        };
        let c: Vec<f64> = (1..=13).map(inv_fact).collect();
        let p = self.poly(r, &c);
        let one = self.dk(x, 1.0);
        let p = if self.has_fma {
            self.b.ins().fma(r, p, one)
        } else {
            let q = self.b.ins().fmul(r, p);
            self.b.ins().fadd(one, q)
        };
        if usual {
            // 2^n for |n| ≤ 1021 from the bits of `nm`.
            let bits = self.dbits(nm);
            let bias = self.ik(x, 1023);
            let e = self.b.ins().iadd(bits, bias);
            let e = self.b.ins().ishl_imm_s(e, 52);
            let s = self.dfrom(e);
            return self.b.ins().fmul(p, s);
        }
        // 2^n = 2^n1 · 2^n2, |n1|, |n2| ≤ 539.
        let half = self.dk(x, 0.5);
        let h = self.b.ins().fmul(n, half);
        let n1 = self.b.ins().trunc(h);
        let n2 = self.b.ins().fsub(n, n1);
        let s1 = self.pow2i(n1);
        let s2 = self.pow2i(n2);
        let p = self.b.ins().fmul(p, s1);
        self.b.ins().fmul(p, s2)
    }

    /// `x - n·c[0] - n·c[1] - …`, subtracting in order (each step one
    /// fused operation when the host has FMA: the products are exact or
    /// the step's rounding is the one that matters, either way).
    fn cody_waite(&mut self, x: Value, n: Value, c: &[f64]) -> Value {
        let mut r = x;
        for k in c {
            if self.has_fma {
                let kk = self.dk(x, -*k);
                r = self.b.ins().fma(n, kk, r);
            } else {
                let kk = self.dk(x, *k);
                let p = self.b.ins().fmul(n, kk);
                r = self.b.ins().fsub(r, p);
            }
        }
        r
    }

    /// `a·b + c`, fused when the host has FMA.
    fn mul_add(&mut self, a: Value, b: Value, c: Value) -> Value {
        if self.has_fma {
            self.b.ins().fma(a, b, c)
        } else {
            let m = self.b.ins().fmul(a, b);
            self.b.ins().fadd(m, c)
        }
    }

    /// `ln x`, `log2 x` or `log10 x` (`base` 0, 2, 10): subnormals scaled
    /// by 2^54 first; `x = 2^e·(1 + f)` with `1 + f ∈ [√½, √2)` (`f`
    /// exact), `s = f/(2 + f)`, `ln(1 + f) = f - (hfsq - s·(hfsq + R))`
    /// with `hfsq = f²/2` and `R = z·G(z)`, `z = s²`, `G` ≈ 2/3 + 2z/5 +
    /// … (`2·atanh s = 2s + s·R`; [`LOG_R`]).
    ///
    /// A shape whose lanes are all positive, normal and finite takes a
    /// branch without the subnormal scaling and the special cases' selects
    /// (the same results).
    fn log_f64(&mut self, x: Value, base: u32) -> Value {
        let low = self.dcmp(FloatCC::UnorderedOrLessThan, x, f64::MIN_POSITIVE);
        let inf = self.dcmp(FloatCC::Equal, x, f64::INFINITY);
        let out = self.b.ins().bor(low, inf);
        let any = self.any_lane(out);
        self.unless_any_f64(
            any,
            x,
            |cx, x| cx.log_body_f64(x, base, true),
            |cx, x| cx.log_body_f64(x, base, false),
        )
    }

    /// [`Self::log_f64`]'s evaluation; `usual` when every lane is known to
    /// be positive, normal and finite.
    fn log_body_f64(&mut self, x: Value, base: u32, usual: bool) -> Value {
        let zero = self.dk(x, 0.0);
        let (y, tiny) = if usual {
            (x, None)
        } else {
            let tiny = self.dcmp(FloatCC::LessThan, x, f64::MIN_POSITIVE);
            let k54 = self.dk(x, 18_014_398_509_481_984.0);
            let xs = self.b.ins().fmul(x, k54);
            (self.pick(tiny, xs, x), Some(tiny))
        };
        let bits = self.dbits(y);
        let eb = self.b.ins().ushr_imm_s(bits, 52);
        let exp_one = self.ik(y, 0x4330_0000_0000_0000);
        let ef = self.b.ins().bor(eb, exp_one);
        let ef = self.dfrom(ef);
        let kb = self.dk(y, (1u64 << 52) as f64 + 1023.0);
        let e = self.b.ins().fsub(ef, kb);
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
        let inc = self.pick(big, one, zero);
        let e = self.b.ins().fadd(e, inc);
        let e = match tiny {
            Some(tiny) => {
                let k54e = self.dk(y, 54.0);
                let adj = self.pick(tiny, k54e, zero);
                self.b.ins().fsub(e, adj)
            }
            None => e,
        };
        let f = self.b.ins().fsub(m, one);
        let two = self.dk(y, 2.0);
        let den = self.b.ins().fadd(f, two);
        let s = self.b.ins().fdiv(f, den);
        let z = self.b.ins().fmul(s, s);
        let p = self.poly(z, &LOG_R);
        let big_r = self.b.ins().fmul(z, p);
        let ff = self.b.ins().fmul(f, f);
        let hfsq = self.b.ins().fmul(ff, half);
        let t = self.b.ins().fadd(hfsq, big_r);
        let tail = self.b.ins().fmul(s, t);
        let r = match base {
            2 | 10 => {
                let d = self.b.ins().fsub(hfsq, tail);
                let lm = self.b.ins().fsub(f, d);
                if base == 2 {
                    let k = self.dk(y, LOG2_E);
                    let a = self.b.ins().fmul(lm, k);
                    self.b.ins().fadd(e, a)
                } else {
                    let k = self.dk(y, LOG10_E);
                    let a = self.b.ins().fmul(lm, k);
                    let lo = self.dk(y, LG2_LO);
                    let b = self.b.ins().fmul(e, lo);
                    let a = self.b.ins().fadd(a, b);
                    let hi = self.dk(y, LG2_HI);
                    let h = self.b.ins().fmul(e, hi);
                    self.b.ins().fadd(h, a)
                }
            }
            _ => {
                // e·ln2_hi - ((hfsq - (tail + e·ln2_lo)) - f)
                let lo = self.dk(y, LN2_LO);
                let el = self.b.ins().fmul(e, lo);
                let a = self.b.ins().fadd(tail, el);
                let a = self.b.ins().fsub(hfsq, a);
                let a = self.b.ins().fsub(a, f);
                let hi = self.dk(y, LN2_HI);
                let h = self.b.ins().fmul(e, hi);
                self.b.ins().fsub(h, a)
            }
        };
        if usual {
            r
        } else {
            self.log_specials(x, r)
        }
    }

    /// `sin x` or `cos x` for |x| ≤ 2^20: `x = k·π/2 + (hi + lo)` with π/2
    /// in four parts (the first three of 33 bits, so every step but the
    /// last is exact when the remainder is small), then `sin`/`cos` of
    /// `hi + lo` (|hi| ≤ π/4) by Taylor series to r^17 and r^16, the
    /// quadrant from the bits of `k`.
    fn sincos_f64(&mut self, x: Value, cos: bool) -> Value {
        // k = rint(x·2/π), its low bits those of `x·2/π + 1.5·2^52`.
        let k2 = self.dk(x, FRAC_2_PI);
        let magic = self.dk(x, MAGIC);
        let km = self.mul_add(x, k2, magic);
        let k = self.b.ins().fsub(km, magic);
        let a = self.cody_waite(x, k, &[PIO2_1, PIO2_2, PIO2_3]);
        // hi + lo = a - k·PIO2_4 (`a - hi` is exact).
        let hi = self.cody_waite(a, k, &[PIO2_4]);
        let d = self.b.ins().fsub(a, hi);
        let lo = self.cody_waite(d, k, &[PIO2_4]);
        let z = self.b.ins().fmul(hi, hi);
        let half = self.dk(x, 0.5);
        let hz = self.b.ins().fmul(z, half);
        let one = self.dk(x, 1.0);
        let w1 = self.b.ins().fsub(one, hz);
        // sin: hi + (hi·z·S(z) + lo·(1 - z/2)), S = -1/3! + z/5! - …
        let sc: Vec<f64> = (1..=8)
            .map(|k| {
                let v = inv_fact(2 * k + 1);
                if k % 2 == 1 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let sp = self.poly(z, &sc);
        let v = self.b.ins().fmul(hi, z);
        let lw = self.b.ins().fmul(lo, w1);
        let st = if self.has_fma {
            self.b.ins().fma(v, sp, lw)
        } else {
            let m = self.b.ins().fmul(v, sp);
            self.b.ins().fadd(m, lw)
        };
        let s = self.b.ins().fadd(hi, st);
        // cos: w1 + (((1 - w1) - hz) + (z²·C(z) - hi·lo)), C = 1/4! - z/6! + …
        let cc: Vec<f64> = (2..=8)
            .map(|k| {
                let v = inv_fact(2 * k);
                if k % 2 == 1 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let cp = self.poly(z, &cc);
        let zz = self.b.ins().fmul(z, z);
        let hl = self.b.ins().fmul(hi, lo);
        let ct = if self.has_fma {
            let n = self.b.ins().fneg(hl);
            self.b.ins().fma(zz, cp, n)
        } else {
            let m = self.b.ins().fmul(zz, cp);
            self.b.ins().fsub(m, hl)
        };
        let e1 = self.b.ins().fsub(one, w1);
        let e1 = self.b.ins().fsub(e1, hz);
        let ct = self.b.ins().fadd(e1, ct);
        let c = self.b.ins().fadd(w1, ct);
        // Quadrant: sin x = ±sin r or ±cos r by k mod 4 (cos: k + 1).
        let kb = self.dbits(km);
        let kb = if cos {
            let i1 = self.ik(k, 1);
            self.b.ins().iadd(kb, i1)
        } else {
            kb
        };
        let zero = self.ik(k, 0);
        let bit0 = self.ik(k, 1);
        let odd = self.b.ins().band(kb, bit0);
        let even = self.b.ins().icmp(IntCC::Equal, odd, zero);
        let even = self.int_mask_to_float(k, even);
        let two = self.ik(k, 2);
        let q2 = self.b.ins().band(kb, two);
        let flip = self.b.ins().ishl_imm_s(q2, 62);
        let v = self.pick(even, s, c);
        let vb = self.dbits(v);
        let vb = self.b.ins().bxor(vb, flip);
        let v = self.dfrom(vb);
        if cos {
            v
        } else {
            // sin(±0) = ±0 (the reduction gives +0 for -0).
            let z0 = self.dcmp(FloatCC::Equal, x, 0.0);
            self.pick(z0, x, v)
        }
    }

    /// Recomputes the lanes of `fast` with |x| > 2^20 (or infinite) with
    /// `exact` (libm), behind a branch taken only when there is one.
    fn trig_slow_path_f64(&mut self, exact: FuncRef, x: Value, fast: Value) -> Value {
        let t = self.b.func.dfg.value_type(x);
        let ax = self.b.ins().fabs(x);
        let huge = self.dcmp(FloatCC::GreaterThan, ax, TRIG_LIMIT_F64);
        let need = if t.is_vector() {
            self.b.ins().vany_true(huge)
        } else {
            huge
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
            for j in 0..2 {
                let v = self.b.ins().extractlane(x, j);
                let call = self.b.ins().call(exact, &[v]);
                let y = self.b.inst_results(call)[0];
                r = self.b.ins().insertlane(r, y, j);
            }
            self.pick(huge, r, fast)
        } else {
            let call = self.b.ins().call(exact, &[x]);
            self.b.inst_results(call)[0]
        };
        self.b.ins().jump(join, &[BlockArg::Value(r)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }
}

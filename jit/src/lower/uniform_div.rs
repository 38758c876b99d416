//! `/` and `%` of signed 32-bit lanes by a uniform divisor in vector form
//! (`t % span` of an FFT stage, `span` a loop variable), where the
//! general lowering divides lane by lane with one `idiv` each.
//!
//! - A positive power of two (tested at run time): `q = (x + b) >> s`
//!   with `b = (x >> 31) & (d - 1)` (the bias that makes the arithmetic
//!   shift truncate towards zero), `r = x - (q << s)`: exact for every
//!   `x`, `INT_MIN` included.
//! - Any other divisor, on x86-64: each `i32x4` piece converted to two
//!   `f64x2` (exactly), divided by the divisor in double and truncated
//!   (`cvttpd2dq`):
//!   the quotient of two 32-bit integers is exact there (its rounding
//!   error, below `q·2^-53`, never reaches the distance `1/|d|` from a
//!   non-integer quotient to the next integer), as the wide code's
//!   division (`wide/math.rs`); `r = x - q·d`. The IR's rules for the
//!   cases OpenCL C leaves undefined hold: `x / 0` and `x % 0` are 0
//!   (the divisor is replaced by 1 and the result masked), `INT_MIN / -1`
//!   is `INT_MIN` (`cvttpd2dq`'s out-of-range value for 2^31) and
//!   `INT_MIN % -1` is 0.

use super::lanes::{little, Lanes};
use super::FunctionCx;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, BlockArg, Constant, ConstantData, InstBuilder, Value,
};
use cranelift_module::Module;
use vecl_ir::{BinaryOp, Scalar};

impl FunctionCx<'_, '_> {
    /// Signed 32-bit `/` or `%` of varying lanes `l` by a uniform `d`:
    /// shifts for a positive power of two, else the general form below.
    pub(super) fn signed_div_by_uniform(&mut self, op: BinaryOp, l: &Lanes, d: Value) -> Lanes {
        let x = self.varying(Scalar::I32, l);
        let (pow2, other, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for _ in &x {
            self.b.append_block_param(join, types::I32X4);
        }
        let (positive, below) = self.positive_power_of_two(d);
        self.b.ins().brif(positive, pow2, &[], other, &[]);
        self.enter(pow2);
        let fast = self.signed_pow2_div_rem(op, &x, d, below);
        self.b.ins().jump(join, &fast);
        self.enter(other);
        let general = self.signed_div_rem_general(op, l, &x, d);
        self.b.ins().jump(join, &general);
        self.enter(join);
        Lanes::Varying(self.b.block_params(join).to_vec())
    }

    /// Signed 32-bit `/` or `%` of `l` (its pieces `x`) by any uniform
    /// `d`: in double on x86-64, else lane by lane.
    pub(super) fn signed_div_rem_general(
        &mut self,
        op: BinaryOp,
        l: &Lanes,
        x: &[Value],
        d: Value,
    ) -> Vec<BlockArg> {
        if self.jit.isa().triple().architecture == target_lexicon::Architecture::X86_64 {
            self.signed_div_rem_in_double(op, x, d)
        } else {
            self.div_rem_lane_by_lane(op, Scalar::I32, l, d)
        }
    }

    /// Whether `d` (an `i32`) is a positive power of two (an `i8`), and
    /// `d - 1`.
    pub(super) fn positive_power_of_two(&mut self, d: Value) -> (Value, Value) {
        let (pow2, below) = self.power_of_two(d);
        let positive = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, d, 0);
        (self.b.ins().band(pow2, positive), below)
    }

    /// Signed `x / d` or `x % d` of `i32x4` pieces by a positive power of
    /// two `d` (`below` = `d - 1`): shifts and masks per piece.
    pub(super) fn signed_pow2_div_rem(
        &mut self,
        op: BinaryOp,
        x: &[Value],
        d: Value,
        below: Value,
    ) -> Vec<BlockArg> {
        let shift = self.b.ins().ctz(d);
        let m = self.b.ins().splat(types::I32X4, below);
        x.iter()
            .map(|v| {
                let sign = self.b.ins().sshr_imm_s(*v, 31);
                let bias = self.b.ins().band(sign, m);
                let t = self.b.ins().iadd(*v, bias);
                let q = self.b.ins().sshr(t, shift);
                BlockArg::Value(if op == BinaryOp::Div {
                    q
                } else {
                    let back = self.b.ins().ishl(q, shift);
                    self.b.ins().isub(*v, back)
                })
            })
            .collect()
    }

    /// Signed `x / d` or `x % d` of `i32x4` pieces by any uniform `i32`
    /// `d`, through double (x86-64 only: `cvttpd2dq`).
    pub(super) fn signed_div_rem_in_double(
        &mut self,
        op: BinaryOp,
        x: &[Value],
        d: Value,
    ) -> Vec<BlockArg> {
        self.div_rem_in_double(op, x, d, false)
    }

    /// Unsigned `x / d` or `x % d` of `u32x4` pieces by any uniform `u32`
    /// `d` that is not a power of two, through double (x86-64 only): a
    /// lane `x` is `(x ^ 2^31)` read as signed plus 2^31, exact in double;
    /// the quotient is truncated there (exact, as in the signed form) and
    /// brought back the same way (`cvttpd2dq` of `q - 2^31`, then `^
    /// 2^31`); `r = x - q·d` wraps to the exact remainder. `x / 0` and
    /// `x % 0` are 0.
    pub(super) fn unsigned_div_rem_in_double(
        &mut self,
        op: BinaryOp,
        x: &[Value],
        d: Value,
    ) -> Vec<BlockArg> {
        self.div_rem_in_double(op, x, d, true)
    }

    /// The two forms above: each piece's halves divided in double, the
    /// quotient truncated by `cvttpd2dq`, results masked to 0 for `d = 0`.
    fn div_rem_in_double(
        &mut self,
        op: BinaryOp,
        x: &[Value],
        d: Value,
        unsigned: bool,
    ) -> Vec<BlockArg> {
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
        let one = self.b.ins().iconst(types::I32, 1);
        let dd = self.b.ins().select(zero, one, d);
        // All ones unless `d` is 0: the results are masked with it.
        let all = self.b.ins().iconst(types::I32, -1);
        let none = self.b.ins().iconst(types::I32, 0);
        let keep = self.b.ins().select(zero, none, all);
        let keep = self.b.ins().splat(types::I32X4, keep);
        let df = if unsigned {
            let d64 = self.b.ins().uextend(types::I64, dd);
            self.b.ins().fcvt_from_sint(types::F64, d64)
        } else {
            self.b.ins().fcvt_from_sint(types::F64, dd)
        };
        let df = self.b.ins().splat(types::F64X2, df);
        let dv = self.b.ins().splat(types::I32X4, dd);
        // Unsigned lanes travel biased by 2^31: `x ^ 2^31` as signed,
        // plus 2^31 in double.
        let bias = unsigned.then(|| {
            let sign = self.b.ins().iconst(types::I32, i64::from(i32::MIN));
            let sign = self.b.ins().splat(types::I32X4, sign);
            let half = self.b.ins().f64const(2_147_483_648.0);
            (sign, self.b.ins().splat(types::F64X2, half))
        });
        let zc = self.zero_i64x2();
        let zeros = self.b.ins().vconst(types::I64X2, zc);
        x.iter()
            .map(|v| {
                let lanes = match bias {
                    Some((sign, _)) => self.b.ins().bxor(*v, sign),
                    None => *v,
                };
                let high = self.high_pair(lanes);
                let q = [lanes, high].map(|h| {
                    let w = self.b.ins().swiden_low(h);
                    let mut f = self.b.ins().fcvt_from_sint(types::F64X2, w);
                    if let Some((_, half)) = bias {
                        f = self.b.ins().fadd(f, half);
                    }
                    f = self.b.ins().fdiv(f, df);
                    if let Some((_, half)) = bias {
                        let t = self.b.ins().trunc(f);
                        f = self.b.ins().fsub(t, half);
                    }
                    // `cvttpd2dq` truncates: two `i32`s in the low lanes.
                    let i = self.b.ins().x86_cvtt2dq(types::I64X2, f);
                    self.b.ins().snarrow(i, zeros)
                });
                let mut q = self.low_pairs(q[0], q[1]);
                if let Some((sign, _)) = bias {
                    q = self.b.ins().bxor(q, sign);
                }
                let r = if op == BinaryOp::Div {
                    q
                } else {
                    let p = self.b.ins().imul(q, dv);
                    self.b.ins().isub(*v, p)
                };
                BlockArg::Value(self.b.ins().band(r, keep))
            })
            .collect()
    }

    /// Lanes 2 and 3 of an `i32x4` in lanes 0 and 1.
    fn high_pair(&mut self, v: Value) -> Value {
        let idx: Vec<u8> = (8..16).chain(8..16).collect();
        self.shuffle_i32x4(v, v, idx)
    }

    /// Lanes 0 and 1 of `a`, then lanes 0 and 1 of `b`.
    fn low_pairs(&mut self, a: Value, b: Value) -> Value {
        let idx: Vec<u8> = (0..8).chain(16..24).collect();
        self.shuffle_i32x4(a, b, idx)
    }

    fn shuffle_i32x4(&mut self, a: Value, b: Value, idx: Vec<u8>) -> Value {
        let flags = little();
        let a8 = self.b.ins().bitcast(types::I8X16, flags, a);
        let b8 = self.b.ins().bitcast(types::I8X16, flags, b);
        let imm = self.b.func.dfg.immediates.push(idx.into());
        let s = self.b.ins().shuffle(a8, b8, imm);
        self.b.ins().bitcast(types::I32X4, flags, s)
    }

    fn zero_i64x2(&mut self) -> Constant {
        self.b
            .func
            .dfg
            .constants
            .insert(ConstantData::from(vec![0u8; 16]))
    }
}

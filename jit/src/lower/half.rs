//! `half` ↔ `float` conversions, the only arithmetic on `half` the JIT
//! emits: the `widen-half` pass (`vecl_ir::transform::half`) turns every
//! other operation on `half` into `float` arithmetic between two of these.
//!
//! Half lanes travel as their bits, zero-extended in `i32x4` pieces (see
//! [`super::lanes`]), so both directions are integer bit manipulation on
//! whole pieces (Cranelift has no `f16` vectors to `fpromote`/`fdemote`):
//! exact for every one of the 65,536 halves, every rounding mode, NaN
//! payloads kept in the top mantissa bits as the interpreter keeps them.
//! A uniform value is splatted, converted as a piece and read back from
//! lane 0, so both paths are the same code.

use super::lanes::{carrier, Lanes};
use super::{FunctionCx, LResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use vecl_ir::{Rounding, Scalar};

impl FunctionCx<'_, '_> {
    fn k32(&mut self, bits: u32) -> Value {
        let c = self.b.ins().iconst(types::I32, i64::from(bits as i32));
        self.b.ins().splat(types::I32X4, c)
    }

    /// `half` → `float` or `float` → `half` (rounded by `rounding`) of one
    /// component; other pairs do not reach the JIT.
    pub fn half_convert(
        &mut self,
        l: &Lanes,
        from: Scalar,
        to: Scalar,
        rounding: Rounding,
    ) -> LResult<Lanes> {
        let piece = |cx: &mut Self, p: Value| match (from, to) {
            (Scalar::F16, Scalar::F32) => Some(cx.half_piece_to_float(p)),
            (Scalar::F32, Scalar::F16) => Some(cx.float_piece_to_half(p, rounding)),
            _ => None,
        };
        let unsupported = |cx: &Self| {
            cx.unsupported(format!(
                "conversion of {} to {} (the widen-half pass did not run)",
                from.c_name(),
                to.c_name()
            ))
        };
        match l {
            Lanes::Varying(ps) => {
                let mut out = Vec::with_capacity(ps.len());
                for p in ps {
                    match piece(self, *p) {
                        Some(v) => out.push(v),
                        None => return Err(unsupported(self)),
                    }
                }
                Ok(Lanes::Varying(out))
            }
            Lanes::Uniform(v) => {
                let lane = self.widen_to_lane(from, *v);
                let p = self.b.ins().splat(carrier(from), lane);
                let Some(r) = piece(self, p) else {
                    return Err(unsupported(self));
                };
                let x = self.b.ins().extractlane(r, 0);
                Ok(Lanes::Uniform(self.narrow_from_lane(to, x)))
            }
        }
    }

    /// Four halves (bits in `i32` lanes) → four floats, exactly.
    fn half_piece_to_float(&mut self, p: Value) -> Value {
        let m7fff = self.k32(0x7fff);
        let m8000 = self.k32(0x8000);
        let em = self.b.ins().band(p, m7fff);
        let s = self.b.ins().band(p, m8000);
        let sign = self.b.ins().ishl_imm_u(s, 16);
        let shifted = self.b.ins().ishl_imm_u(em, 13);
        // Normal: rebias the exponent (127 − 15).
        let rebias = self.k32(112 << 23);
        let normal = self.b.ins().iadd(shifted, rebias);
        // Infinity and NaN: all-ones exponent, NaNs made quiet.
        let exp_ones = self.k32(0x7f80_0000);
        let infnan = self.b.ins().bor(shifted, exp_ones);
        let inf_bits = self.k32(0x7c00);
        let is_big = self
            .b
            .ins()
            .icmp(IntCC::SignedGreaterThanOrEqual, em, inf_bits);
        let is_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, em, inf_bits);
        let quiet = self.k32(0x0040_0000);
        let q = self.b.ins().band(is_nan, quiet);
        let infnan = self.b.ins().bor(infnan, q);
        let bits = self.b.ins().bitselect(is_big, infnan, normal);
        // Subnormal (and zero): the mantissa times 2^-24, exact in f32.
        let mf = self.b.ins().fcvt_from_sint(types::F32X4, em);
        let scale = self.b.ins().f32const(f32::from_bits(0x3380_0000));
        let scale = self.b.ins().splat(types::F32X4, scale);
        let sub = self.b.ins().fmul(mf, scale);
        let sub = self.vcast(types::I32X4, sub);
        let min_normal = self.k32(0x400);
        let is_sub = self.b.ins().icmp(IntCC::SignedLessThan, em, min_normal);
        let bits = self.b.ins().bitselect(is_sub, sub, bits);
        let r = self.b.ins().bor(bits, sign);
        self.vcast(types::F32X4, r)
    }

    /// Four floats → four halves (bits in `i32` lanes), rounded once.
    fn float_piece_to_half(&mut self, x: Value, rounding: Rounding) -> Value {
        let u = self.vcast(types::I32X4, x);
        let abs_mask = self.k32(0x7fff_ffff);
        let a = self.b.ins().band(u, abs_mask);
        let hi = self.b.ins().ushr_imm_u(u, 16);
        let m8000 = self.k32(0x8000);
        let sign = self.b.ins().band(hi, m8000);
        let zero = self.k32(0);
        let neg = self.b.ins().icmp(IntCC::NotEqual, sign, zero);

        // Normal results: drop 13 mantissa bits, rebias, round by the rest.
        let t = self.b.ins().ushr_imm_u(a, 13);
        let low13 = self.k32(0x1fff);
        let rem = self.b.ins().band(a, low13);
        let inexact = self.b.ins().icmp(IntCC::NotEqual, rem, zero);
        let inc = match rounding {
            Rounding::Default | Rounding::Rte => {
                let half = self.k32(0x1000);
                let above = self.b.ins().icmp(IntCC::SignedGreaterThan, rem, half);
                let tie = self.b.ins().icmp(IntCC::Equal, rem, half);
                let one = self.k32(1);
                let odd_bit = self.b.ins().band(t, one);
                let odd = self.b.ins().icmp(IntCC::NotEqual, odd_bit, zero);
                let tie_odd = self.b.ins().band(tie, odd);
                self.b.ins().bor(above, tie_odd)
            }
            Rounding::Rtz => zero,
            Rounding::Rtp => self.b.ins().band_not(inexact, neg),
            Rounding::Rtn => self.b.ins().band(inexact, neg),
        };
        let rebias = self.k32(112 << 10);
        let h = self.b.ins().isub(t, rebias);
        // `inc` is −1 where the magnitude rounds up.
        let h = self.b.ins().isub(h, inc);
        let inf = self.k32(0x7c00);
        let max = self.k32(0x7bff);
        let overflow_value = match rounding {
            Rounding::Default | Rounding::Rte => inf,
            Rounding::Rtz => max,
            Rounding::Rtp => self.b.ins().bitselect(neg, max, inf),
            Rounding::Rtn => self.b.ins().bitselect(neg, inf, max),
        };
        let ovf = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, h, inf);
        let h = self.b.ins().bitselect(ovf, overflow_value, h);

        // Below 2^-14: the result is a multiple of 2^-24; round |x|·2^24
        // to an integer (1024 is the smallest normal's bits, as wanted).
        let af = self.vcast(types::F32X4, a);
        let scale = self.b.ins().f32const(16_777_216.0);
        let scale = self.b.ins().splat(types::F32X4, scale);
        let y = self.b.ins().fmul(af, scale);
        let r = match rounding {
            Rounding::Default | Rounding::Rte => self.b.ins().nearest(y),
            Rounding::Rtz => self.b.ins().trunc(y),
            Rounding::Rtp | Rounding::Rtn => {
                let c = self.b.ins().ceil(y);
                let tr = self.b.ins().trunc(y);
                let c = self.vcast(types::I32X4, c);
                let tr = self.vcast(types::I32X4, tr);
                // Away from zero for positives under rtp, negatives under rtn.
                let away_when_neg = rounding == Rounding::Rtn;
                let r = if away_when_neg {
                    self.b.ins().bitselect(neg, c, tr)
                } else {
                    self.b.ins().bitselect(neg, tr, c)
                };
                self.vcast(types::F32X4, r)
            }
        };
        let hs = self.b.ins().fcvt_to_sint_sat(types::I32X4, r);
        let min_normal = self.k32(0x3880_0000);
        let is_sub = self.b.ins().icmp(IntCC::SignedLessThan, a, min_normal);
        let h = self.b.ins().bitselect(is_sub, hs, h);

        // Infinity stays infinite in every mode; NaN keeps its top payload bits.
        let f32_inf = self.k32(0x7f80_0000);
        let is_inf = self.b.ins().icmp(IntCC::Equal, a, f32_inf);
        let h = self.b.ins().bitselect(is_inf, inf, h);
        let is_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, a, f32_inf);
        let payload = self.b.ins().ushr_imm_u(a, 13);
        let low9 = self.k32(0x1ff);
        let payload = self.b.ins().band(payload, low9);
        let qnan = self.k32(0x7e00);
        let nan = self.b.ins().bor(payload, qnan);
        let h = self.b.ins().bitselect(is_nan, nan, h);
        self.b.ins().bor(h, sign)
    }
}

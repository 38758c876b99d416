//! `x / d` of varying `float` or `double` lanes by a uniform divisor that
//! is a power of two (tested at run time): `x * (1 / d)`, a multiply per
//! piece where the general form divides (`-π * k / (float)span` in an FFT
//! stage: eight `divps` per chunk of 32).
//!
//! Bit for bit the division: `1 / d` is then exact, so `x * (1 / d)` and
//! `x / d` are the correct roundings of the same real number, for every
//! `x` (zeros, infinities, NaN, subnormal results alike) and either sign
//! of `d`. The reciprocal is kept normal (`d` of biased exponent 1 to 253
//! for `float`, 1 to 2045 for `double`), so that it stays exact even if
//! subnormal inputs were flushed; any other divisor (zero, subnormal,
//! infinite, NaN, not a power of two) takes the division.

use super::lanes::{carrier, Lanes};
use super::FunctionCx;
use cranelift_codegen::ir::{condcodes::IntCC, types, BlockArg, InstBuilder, MemFlagsData, Value};
use vecl_ir::Scalar;

impl FunctionCx<'_, '_> {
    /// `l / d` for varying `l` and uniform `d` of float type `s`.
    pub(super) fn float_div_by_uniform(&mut self, s: Scalar, l: &Lanes, d: Value) -> Lanes {
        let x = self.varying(s, l);
        let (int, mantissa, shift, top) = match s {
            Scalar::F32 => (types::I32, (1i64 << 23) - 1, 23, 253),
            _ => (types::I64, (1i64 << 52) - 1, 52, 2045),
        };
        let bits = self.b.ins().bitcast(int, MemFlagsData::new(), d);
        let m = self.b.ins().band_imm_s(bits, mantissa);
        let exact = self.b.ins().icmp_imm_s(IntCC::Equal, m, 0);
        // The biased exponent less one, unsigned: below `top` for 1..=top.
        let e = self.b.ins().ushr_imm_u(bits, shift);
        let e = self
            .b
            .ins()
            .band_imm_s(e, if s == Scalar::F32 { 0xff } else { 0x7ff });
        let e = self.b.ins().iadd_imm_s(e, -1);
        let normal = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, e, top);
        let ok = self.b.ins().band(exact, normal);
        let (slow, join) = self.fast_path(ok, x.len(), carrier(s));
        let one = match s {
            Scalar::F32 => self.b.ins().f32const(1.0),
            _ => self.b.ins().f64const(1.0),
        };
        let r = self.b.ins().fdiv(one, d);
        let r = self.b.ins().splat(carrier(s), r);
        let fast: Vec<BlockArg> = x
            .iter()
            .map(|v| BlockArg::Value(self.b.ins().fmul(*v, r)))
            .collect();
        self.b.ins().jump(join, &fast);
        self.enter(slow);
        let dv = self.b.ins().splat(carrier(s), d);
        let general: Vec<BlockArg> = x
            .iter()
            .map(|v| BlockArg::Value(self.b.ins().fdiv(*v, dv)))
            .collect();
        self.b.ins().jump(join, &general);
        self.enter(join);
        Lanes::Varying(self.b.block_params(join).to_vec())
    }
}

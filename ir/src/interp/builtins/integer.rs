//! Integer builtins, computed exactly in `i128`/`u128` and then wrapped or
//! clamped to the result type. `mul24`/`mad24` multiply the full operands:
//! OpenCL defines them only for operands that fit in 24 bits, where the
//! result is the same.

use crate::types::{Scalar, Type};

use super::super::scalar;
use super::{width, Arg, BuiltinError};
use crate::builtin::Builtin;

/// `None` when `name` is not an integer builtin.
pub fn call(name: Builtin, args: &[Arg<'_>], ret: &Type) -> Option<Result<Vec<u64>, BuiltinError>> {
    let rs = ret.scalar()?;
    let s = args.first()?.elem();
    let need = match name {
        Builtin::Abs | Builtin::Clz | Builtin::Ctz | Builtin::Popcount => 1,
        Builtin::AbsDiff
        | Builtin::AddSat
        | Builtin::SubSat
        | Builtin::Hadd
        | Builtin::Rhadd
        | Builtin::MulHi
        | Builtin::Mul24
        | Builtin::Rotate
        | Builtin::Upsample
        | Builtin::Min
        | Builtin::Max => 2,
        Builtin::MadHi | Builtin::MadSat | Builtin::Mad24 | Builtin::Clamp => 3,
        _ => return None,
    };
    if args.len() != need {
        return Some(Err(BuiltinError::BadArgs(format!(
            "takes {need} arguments, {} given",
            args.len()
        ))));
    }
    let bits = s.bits();
    let (lo, hi) = scalar::int_range(s);
    let x = |a: usize, i: usize| scalar::int(args[a].elem(), args[a].lane(i));
    let out = (0..width(ret)).map(|i| {
        let v: i128 = match name {
            Builtin::Abs => x(0, i).abs(),
            Builtin::AbsDiff => (x(0, i) - x(1, i)).abs(),
            Builtin::AddSat => (x(0, i) + x(1, i)).clamp(lo, hi),
            Builtin::SubSat => (x(0, i) - x(1, i)).clamp(lo, hi),
            Builtin::Hadd => (x(0, i) + x(1, i)) >> 1,
            Builtin::Rhadd => (x(0, i) + x(1, i) + 1) >> 1,
            Builtin::MulHi => mul_hi(s, args[0].lane(i), args[1].lane(i)),
            Builtin::MadHi => mul_hi(s, args[0].lane(i), args[1].lane(i)) + x(2, i),
            Builtin::MadSat => mad_sat(s, args[0].lane(i), args[1].lane(i), args[2].lane(i)),
            Builtin::Mul24 => x(0, i).wrapping_mul(x(1, i)),
            Builtin::Mad24 => x(0, i).wrapping_mul(x(1, i)) + x(2, i),
            Builtin::Rotate => {
                let v = scalar::mask(s, args[0].lane(i));
                let r = (scalar::mask(s, args[1].lane(i)) % u64::from(bits)) as u32;
                let rotated = if r == 0 {
                    v
                } else {
                    (v << r) | (v >> (bits - r))
                };
                i128::from(scalar::mask(s, rotated))
            }
            Builtin::Clz => {
                i128::from(scalar::mask(s, args[0].lane(i)).leading_zeros() - (64 - bits))
            }
            Builtin::Ctz => i128::from(scalar::mask(s, args[0].lane(i)).trailing_zeros().min(bits)),
            Builtin::Popcount => i128::from(scalar::mask(s, args[0].lane(i)).count_ones()),
            Builtin::Upsample => {
                let lo_bits = args[1].elem().bits();
                (x(0, i) << lo_bits) | i128::from(scalar::mask(args[1].elem(), args[1].lane(i)))
            }
            Builtin::Min => x(0, i).min(x(1, i)),
            Builtin::Max => x(0, i).max(x(1, i)),
            // OpenCL leaves clamp undefined when min > max; this is fmin(fmax(x, lo), hi).
            _ => x(0, i).max(x(1, i)).min(x(2, i)),
        };
        scalar::from_int(rs, v)
    });
    Some(Ok(out.collect()))
}

/// The high half of the full product, with the operands' signedness.
fn mul_hi(s: Scalar, a: u64, b: u64) -> i128 {
    let bits = s.bits();
    if s.is_signed() {
        // |a|, |b| ≤ 2^63: the product fits in i128.
        (scalar::int(s, a) * scalar::int(s, b)) >> bits
    } else {
        let p = u128::from(scalar::mask(s, a)) * u128::from(scalar::mask(s, b));
        (p >> bits) as i128
    }
}

fn mad_sat(s: Scalar, a: u64, b: u64, c: u64) -> i128 {
    let (lo, hi) = scalar::int_range(s);
    if s.is_signed() {
        (scalar::int(s, a) * scalar::int(s, b) + scalar::int(s, c)).clamp(lo, hi)
    } else {
        // u64::MAX² + u64::MAX < 2^128.
        let p = u128::from(scalar::mask(s, a)) * u128::from(scalar::mask(s, b))
            + u128::from(scalar::mask(s, c));
        p.min(hi as u128) as i128
    }
}

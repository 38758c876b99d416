//! Relational builtins and the ones that pick bits or components:
//! `isequal` … `isunordered`, `isnan`/`isinf`/`isfinite`/`isnormal`/
//! `signbit`, `any`, `all`, `select`, `bitselect`, `shuffle`, `shuffle2`.
//!
//! OpenCL's convention: a scalar test returns the int 1 or 0, a vector test
//! returns -1 (all bits set) or 0 per component, in the result type the
//! front end chose. `select` and `any`/`all` test the most significant bit
//! of each component (also of a scalar `any`/`all` argument), but the whole
//! value of a scalar `select` condition.

use crate::types::Type;

use super::super::scalar;
use super::{width, Arg, BuiltinError};
use crate::builtin::Builtin;

/// `None` when `name` is not one of these builtins.
pub fn call(name: Builtin, args: &[Arg<'_>], ret: &Type) -> Option<Result<Vec<u64>, BuiltinError>> {
    let rs = ret.scalar()?;
    let vector = matches!(ret, Type::Vector(..));
    let n = width(ret);
    let need = |k: usize| {
        if args.len() == k {
            Ok(())
        } else {
            Err(BuiltinError::BadArgs(format!(
                "takes {k} arguments, {} given",
                args.len()
            )))
        }
    };
    if let Err(e) = need(match name {
        Builtin::Isnan
        | Builtin::Isinf
        | Builtin::Isfinite
        | Builtin::Isnormal
        | Builtin::Signbit
        | Builtin::Any
        | Builtin::All => 1,
        Builtin::Shuffle => 2,
        Builtin::Select | Builtin::Bitselect | Builtin::Shuffle2 => 3,
        _ if name.is_relational() => 2,
        _ => return None,
    }) {
        return Some(Err(e));
    }
    let num = |a: usize, i: usize| scalar::float(args[a].elem(), args[a].lane(i));
    let out: Vec<u64> = match name {
        Builtin::Any | Builtin::All => {
            let a = &args[0];
            let mut bits = (0..width(a.ty)).map(|i| scalar::msb(a.elem(), a.lane(i)));
            let t = if name == Builtin::Any {
                bits.any(|b| b)
            } else {
                bits.all(|b| b)
            };
            vec![scalar::from_int(rs, i128::from(t))]
        }
        Builtin::Select => (0..n)
            .map(|i| {
                let c = &args[2];
                let take_b = if matches!(c.ty, Type::Vector(..)) {
                    scalar::msb(c.elem(), c.lane(i))
                } else {
                    scalar::mask(c.elem(), c.lane(i)) != 0
                };
                if take_b {
                    args[1].lane(i)
                } else {
                    args[0].lane(i)
                }
            })
            .collect(),
        Builtin::Bitselect => (0..n)
            .map(|i| {
                scalar::mask(
                    rs,
                    (args[0].lane(i) & !args[2].lane(i)) | (args[1].lane(i) & args[2].lane(i)),
                )
            })
            .collect(),
        Builtin::Shuffle | Builtin::Shuffle2 => {
            let mut src: Vec<u64> = args[0].lanes.to_vec();
            if name == Builtin::Shuffle2 {
                src.extend_from_slice(args[1].lanes);
            }
            let m = args.last()?;
            (0..n)
                .map(|i| {
                    let k = (scalar::mask(m.elem(), m.lane(i)) % src.len().max(1) as u64) as usize;
                    src.get(k).copied().unwrap_or(0)
                })
                .collect()
        }
        _ => (0..n)
            .map(|i| {
                let x = num(0, i);
                let t = match name {
                    Builtin::Isnan => x.is_nan(),
                    Builtin::Isinf => x.is_infinite(),
                    Builtin::Isfinite => x.is_finite(),
                    Builtin::Isnormal => is_normal(args[0].elem(), x),
                    Builtin::Signbit => x.is_sign_negative(),
                    _ => {
                        let y = num(1, i);
                        match name {
                            Builtin::Isequal => x == y,
                            Builtin::Isnotequal => x != y,
                            Builtin::Isgreater => x > y,
                            Builtin::Isgreaterequal => x >= y,
                            Builtin::Isless => x < y,
                            Builtin::Islessequal => x <= y,
                            Builtin::Islessgreater => x.partial_cmp(&y).is_some_and(|o| o.is_ne()),
                            Builtin::Isordered => !x.is_nan() && !y.is_nan(),
                            _ => x.is_nan() || y.is_nan(),
                        }
                    }
                };
                scalar::truth(rs, vector, t)
            })
            .collect(),
    };
    Some(Ok(out))
}

/// Normal in the argument's own format (a float subnormal is normal as f64).
fn is_normal(s: crate::types::Scalar, x: f64) -> bool {
    use crate::types::Scalar;
    let min_normal = match s {
        Scalar::F16 => 2f64.powi(-14),
        Scalar::F32 => f64::from(f32::MIN_POSITIVE),
        _ => f64::MIN_POSITIVE,
    };
    x.is_finite() && x.abs() >= min_normal
}

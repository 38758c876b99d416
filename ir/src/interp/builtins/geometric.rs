//! Geometric builtins: `dot`, `cross`, `length`, `distance`, `normalize`
//! and their `fast_` forms, computed in `f64` and rounded once per result
//! component (more accurate than OpenCL requires, which is what an oracle
//! wants).

use crate::types::{Scalar, Type};

use super::super::scalar;
use super::{width, Arg, BuiltinError};
use crate::builtin::Builtin;

/// `None` when `name` is not a geometric builtin.
pub fn call(name: Builtin, args: &[Arg<'_>], ret: &Type) -> Option<Result<Vec<u64>, BuiltinError>> {
    // The `fast_` forms are computed like the full ones.
    let base = match name {
        Builtin::FastLength => Builtin::Length,
        Builtin::FastNormalize => Builtin::Normalize,
        Builtin::FastDistance => Builtin::Distance,
        b => b,
    };
    let need = match base {
        Builtin::Length | Builtin::Normalize => 1,
        Builtin::Dot | Builtin::Cross | Builtin::Distance => 2,
        _ => return None,
    };
    if args.len() != need {
        return Some(Err(BuiltinError::BadArgs(format!(
            "takes {need} arguments, {} given",
            args.len()
        ))));
    }
    let rs = ret.scalar().unwrap_or(Scalar::F32);
    let comps = |a: &Arg<'_>| -> Vec<f64> {
        (0..width(a.ty))
            .map(|i| scalar::float(a.elem(), a.lane(i)))
            .collect()
    };
    let a = comps(&args[0]);
    let out = match base {
        Builtin::Dot => {
            let b = comps(&args[1]);
            vec![scalar::from_float(
                rs,
                a.iter().zip(&b).map(|(x, y)| x * y).sum(),
            )]
        }
        Builtin::Cross => {
            let b = comps(&args[1]);
            if a.len() < 3 || b.len() < 3 {
                return Some(Err(BuiltinError::BadArgs(
                    "cross takes 3- or 4-component vectors".into(),
                )));
            }
            let mut c = vec![
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            c.resize(width(ret), 0.0);
            c.into_iter().map(|x| scalar::from_float(rs, x)).collect()
        }
        Builtin::Length => vec![scalar::from_float(rs, norm(&a))],
        Builtin::Distance => {
            let b = comps(&args[1]);
            let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
            vec![scalar::from_float(rs, norm(&d))]
        }
        _ => normalize(&a)
            .into_iter()
            .map(|x| scalar::from_float(rs, x))
            .collect(),
    };
    Some(Ok(out))
}

/// Euclidean norm without overflow or underflow in the squares. NaN if a
/// component is NaN, an infinite one included (√(x² + …) is; `hypot`
/// would give inf).
fn norm(v: &[f64]) -> f64 {
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    v.iter().fold(0.0f64, |acc, &x| acc.hypot(x))
}

/// `normalize`: a zero vector stays as it is; a NaN component makes every
/// component NaN; else infinite components count as ±1 and the finite
/// ones as ±0 (OpenCL's rules).
fn normalize(v: &[f64]) -> Vec<f64> {
    if v.iter().any(|x| x.is_nan()) {
        return vec![f64::NAN; v.len()];
    }
    let v: Vec<f64> = if v.iter().any(|x| x.is_infinite()) {
        v.iter()
            .map(|&x| {
                if x.is_infinite() {
                    1.0f64.copysign(x)
                } else {
                    0.0f64.copysign(x)
                }
            })
            .collect()
    } else {
        v.to_vec()
    };
    let n = norm(&v);
    if n == 0.0 {
        return v;
    }
    v.iter().map(|x| x / n).collect()
}

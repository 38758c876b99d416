//! Math builtins that also write through a pointer: `fract`, `modf`,
//! `sincos`, `frexp`, `remquo`, `lgamma_r`. The returned part and the
//! stored part are computed as in [`super::math`] (in `f64`, rounded once).

use crate::types::{AddressSpace, Scalar, StructDef, Type};

use super::super::memory::{Memory, Ptr};
use super::super::scalar;
use super::{width, Arg, BuiltinError};
use crate::builtin::Builtin;

/// `None` when `name` is not one of these builtins.
pub fn call(
    name: Builtin,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
    structs: &[StructDef],
) -> Option<Result<Vec<u64>, BuiltinError>> {
    let need = match name {
        Builtin::Fract | Builtin::Modf | Builtin::Sincos | Builtin::Frexp | Builtin::LgammaR => 2,
        Builtin::Remquo => 3,
        _ => return None,
    };
    if args.len() != need {
        return Some(Err(BuiltinError::BadArgs(format!(
            "takes {need} arguments, {} given",
            args.len()
        ))));
    }
    let out_arg = &args[need - 1];
    let Some(out_ty) = out_arg.ty.pointee().cloned() else {
        return Some(Err(BuiltinError::BadArgs(
            "the last argument must be a pointer".into(),
        )));
    };
    let rs = ret.scalar().unwrap_or(Scalar::F32);
    let os = out_ty.scalar().unwrap_or(Scalar::I32);
    let x = |a: usize, i: usize| scalar::float(args[a].elem(), args[a].lane(i));
    let mut result = Vec::with_capacity(width(ret));
    let mut stored = Vec::with_capacity(width(ret));
    for i in 0..width(ret) {
        let v = x(0, i);
        let (r, s): (f64, u64) = match name {
            Builtin::Fract => {
                let fl = v.floor();
                // The largest value below 1 in the result type.
                let below_one = scalar::float(rs, scalar::from_float(rs, 1.0) - 1);
                let fr = if v.is_infinite() {
                    0.0f64.copysign(v)
                } else {
                    (v - fl).min(below_one)
                };
                (fr, scalar::from_float(os, fl))
            }
            Builtin::Modf => {
                let t = v.trunc();
                let fr = if v.is_infinite() {
                    0.0f64.copysign(v)
                } else {
                    (v - t).copysign(v)
                };
                (fr, scalar::from_float(os, t))
            }
            Builtin::Sincos => (v.sin(), scalar::from_float(os, v.cos())),
            Builtin::Frexp => {
                let (m, e) = frexp(v);
                (m, scalar::from_int(os, i128::from(e)))
            }
            Builtin::LgammaR => {
                let (l, sign) = libm::lgamma_r(v);
                (l, scalar::from_int(os, i128::from(sign)))
            }
            _ => {
                let y = x(1, i);
                let r = libm::remainder(v, y);
                // The low seven bits of the integral quotient, with its sign.
                let q = ((v - r) / y).round();
                let q = if q.is_finite() {
                    (q.abs() % 128.0) as i128 * if q < 0.0 { -1 } else { 1 }
                } else {
                    0
                };
                (r, scalar::from_int(os, q))
            }
        };
        result.push(scalar::from_float(rs, r));
        stored.push(s);
    }
    let p = Ptr::decode(out_arg.lanes.first().copied().unwrap_or(0));
    let space = out_arg.ty.address_space().unwrap_or(AddressSpace::Generic);
    let checked = mem
        .check_space(p, space, u64::from(crate::types::size_of(&out_ty, structs)))
        .and_then(|()| mem.store(p, &out_ty, &stored, structs));
    if let Err(f) = checked {
        return Some(Err(f.into()));
    }
    Some(Ok(result))
}

/// `x = m · 2^e` with `0.5 ≤ |m| < 1`; zero, infinities and NaN give `(x, 0)`.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let e = libm::ilogb(x) + 1;
    (x * 2f64.powi(-e), e)
}

//! Work-group collective functions (OpenCL 2.0): `work_group_all`/`any`,
//! `work_group_broadcast`, `work_group_reduce_<op>` and
//! `work_group_scan_{inclusive,exclusive}_<op>` for `op` in add, min, max.
//!
//! A collective is a barrier with a combine step: every work-item of the
//! group that is still running must reach it (the executor checks that
//! like a barrier), and the combine reads every item's operand. A reduction
//! or scan combines them in the order `group_order` sets (partial results
//! side by side, not one item after the other), the order the JIT's
//! combine follows, so both give the same bits for floats.

use crate::builtin::Builtin;
use crate::types::{Scalar, Type};

use super::arith;
use super::lanes::Lanes;
use super::scalar;
use crate::module::{BinaryOp, CmpOp};

/// Whether `name` is a work-group collective.
pub fn is_collective(name: Builtin) -> bool {
    matches!(name, crate::work_group_builtins!())
}

/// The results for the participating items. `args[a][k]` is argument `a`
/// of participant `k` (in local-linear-id order); `local_ids[k]` its local
/// id. `Err` carries a message for a malformed call.
pub fn combine(
    name: Builtin,
    arg_types: &[&Type],
    args: &[Vec<Lanes>],
    local_ids: &[[u64; 3]],
    ret: &Type,
) -> Result<Vec<Lanes>, String> {
    let n = local_ids.len();
    let s = ret
        .scalar()
        .ok_or_else(|| format!("`{name}` returns {ret:?}"))?;
    let arg = |a: usize, k: usize| {
        args.get(a)
            .and_then(|x| x.get(k))
            .and_then(|l| l.first().copied())
            .unwrap_or(0)
    };
    let arg_scalar = |a: usize| {
        arg_types
            .get(a)
            .and_then(|t| t.scalar())
            .unwrap_or(Scalar::U64)
    };
    let uniform = |v: u64| vec![Lanes::one(v); n];
    // `half` reductions and scans combine in `float` and round each result
    // once, as `sub_group::in_float` explains.
    if s == Scalar::F16 && is_arithmetic(name) {
        let wide: Vec<Vec<Lanes>> = args
            .iter()
            .enumerate()
            .map(|(a, xs)| {
                xs.iter()
                    .map(|l| match a {
                        0 => l
                            .iter()
                            .map(|&h| super::sub_group::half_to_float(h))
                            .collect(),
                        _ => *l,
                    })
                    .collect()
            })
            .collect();
        let mut types: Vec<Type> = arg_types.iter().map(|t| (*t).clone()).collect();
        if let Some(t) = types.first_mut() {
            *t = t.with_scalar(Scalar::F32);
        }
        let types: Vec<&Type> = types.iter().collect();
        let out = combine(
            name,
            &types,
            &wide,
            local_ids,
            &ret.with_scalar(Scalar::F32),
        )?;
        return Ok(out
            .iter()
            .map(|l| {
                l.iter()
                    .map(|&x| super::sub_group::float_to_half(x))
                    .collect()
            })
            .collect());
    }
    use Builtin::*;
    let (kind, op) = match name {
        WorkGroupAll | WorkGroupAny => {
            let s0 = arg_scalar(0);
            let mut truths = (0..n).map(|k| scalar::mask(s0, arg(0, k)) != 0);
            let t = if name == WorkGroupAll {
                truths.all(|b| b)
            } else {
                truths.any(|b| b)
            };
            return Ok(uniform(scalar::from_int(s, i128::from(t))));
        }
        WorkGroupBroadcast => {
            let want: Vec<u64> = (1..args.len())
                .map(|a| scalar::int(arg_scalar(a), arg(a, 0)) as u64)
                .collect();
            let at = local_ids
                .iter()
                .position(|id| want.iter().enumerate().all(|(d, &w)| id[d] == w))
                .ok_or_else(|| {
                    format!("`work_group_broadcast` from local id {want:?}, which is not running")
                })?;
            return Ok(uniform(arg(0, at)));
        }
        WorkGroupReduceAdd => ("reduce", "add"),
        WorkGroupReduceMin => ("reduce", "min"),
        WorkGroupReduceMax => ("reduce", "max"),
        WorkGroupScanInclusiveAdd => ("inclusive", "add"),
        WorkGroupScanInclusiveMin => ("inclusive", "min"),
        WorkGroupScanInclusiveMax => ("inclusive", "max"),
        WorkGroupScanExclusiveAdd => ("exclusive", "add"),
        WorkGroupScanExclusiveMin => ("exclusive", "min"),
        WorkGroupScanExclusiveMax => ("exclusive", "max"),
        _ => return Err(format!("`{name}` is not a work-group collective")),
    };
    let step = |acc: u64, x: u64| -> Result<u64, String> {
        match op {
            "add" => {
                arith::binary(BinaryOp::Add, s, acc, x).ok_or_else(|| format!("`{name}` on {s}"))
            }
            "min" => Ok(if arith::cmp(CmpOp::Lt, s, x, acc) || is_nan(s, acc) {
                x
            } else {
                acc
            }),
            "max" => Ok(if arith::cmp(CmpOp::Gt, s, x, acc) || is_nan(s, acc) {
                x
            } else {
                acc
            }),
            _ => Err(format!("unknown collective `{name}`")),
        }
    };
    let identity = identity(op, s).ok_or_else(|| format!("unknown collective `{name}`"))?;
    // The order is `group_order`'s, which the JIT's combine follows too.
    let failed = std::cell::Cell::new(None);
    let f = |a: u64, x: u64| match step(a, x) {
        Ok(v) => v,
        Err(e) => {
            failed.set(Some(e));
            a
        }
    };
    let mut values: Vec<u64> = (0..n).map(|k| arg(0, k)).collect();
    let out = if kind == "reduce" {
        uniform(crate::group_order::reduce(&values, identity, f))
    } else {
        crate::group_order::scan(&mut values, identity, kind == "exclusive", f);
        values.into_iter().map(Lanes::one).collect()
    };
    match failed.take() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Whether the collective `name` is a reduction or scan.
fn is_arithmetic(name: Builtin) -> bool {
    use Builtin::*;
    matches!(
        name,
        WorkGroupReduceAdd
            | WorkGroupReduceMin
            | WorkGroupReduceMax
            | WorkGroupScanInclusiveAdd
            | WorkGroupScanInclusiveMin
            | WorkGroupScanInclusiveMax
            | WorkGroupScanExclusiveAdd
            | WorkGroupScanExclusiveMin
            | WorkGroupScanExclusiveMax
    )
}

fn is_nan(s: Scalar, bits: u64) -> bool {
    s.is_float() && scalar::float(s, bits).is_nan()
}

/// The identity of `op` on type `s`: 0 for add, the type's largest value
/// for min (+∞ for floats), its smallest for max (−∞).
fn identity(op: &str, s: Scalar) -> Option<u64> {
    let (lo, hi) = scalar::int_range(s);
    Some(match (op, s.is_float()) {
        ("add", _) => 0,
        ("min", true) => scalar::from_float(s, f64::INFINITY),
        ("max", true) => scalar::from_float(s, f64::NEG_INFINITY),
        ("min", false) => scalar::from_int(s, hi),
        ("max", false) => scalar::from_int(s, lo),
        _ => return None,
    })
}

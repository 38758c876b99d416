//! Sub-group functions (`cl_khr_subgroups` and the `cl_khr_subgroup_*`
//! extensions) over one sub-group's active work-items.
//!
//! The executor (`exec.rs`) splits the group into sub-groups as
//! [`crate::sub_group`] says and calls [`combine`] once per sub-group with
//! the items that execute the call, in sub-group local id order. Every
//! operation works on those items only: the core functions
//! (`sub_group_reduce_add`…) require every item of the sub-group to be
//! there, the `non_uniform` ones do not, and both compute the same thing
//! here. Reductions and scans combine in local id order, so a float sum
//! is the sequential sum in that order. A value taken from an item that
//! is not active or not in the sub-group (an undefined result in OpenCL)
//! is 0.

use crate::module::{BinaryOp, CmpOp, Rounding};
use crate::sub_group::{SubGroupFn, SubGroupOp};
use crate::types::{Scalar, Type};

use super::arith;
use super::lanes::Lanes;
use super::scalar;

/// One participating item: its sub-group local id and its argument values.
pub struct Part<'a> {
    pub lid: u64,
    pub args: &'a [Lanes],
}

/// The results of `f` for the participants of one sub-group of `size`
/// items, in the participants' order. `Err` carries a message for a
/// malformed call.
pub fn combine(
    f: SubGroupFn,
    arg_types: &[&Type],
    parts: &[Part<'_>],
    size: u64,
    ret: &Type,
) -> Result<Vec<Lanes>, String> {
    let n = parts.len();
    let arg = |k: usize, a: usize| -> Lanes {
        parts
            .get(k)
            .and_then(|p| p.args.get(a))
            .copied()
            .unwrap_or(Lanes::EMPTY)
    };
    let first = |k: usize, a: usize| arg(k, a).first().copied().unwrap_or(0);
    let s0 = arg_types
        .first()
        .and_then(|t| t.scalar())
        .unwrap_or(Scalar::U32);
    if s0 == Scalar::F16 && combines_values(f) {
        return in_float(f, arg_types, parts, size, ret);
    }
    let width = ret.lanes() as usize;
    let rs = ret.scalar().unwrap_or(Scalar::I32);
    let truth = |t: bool| Lanes::one(scalar::from_int(rs, i128::from(t)));
    let uniform = |l: Lanes| vec![l; n];
    // The value of argument 0 at local id `lid`, or zeros.
    let from = |lid: Option<u64>| -> Lanes {
        lid.and_then(|l| parts.iter().position(|p| p.lid == l))
            .map(|k| arg(k, 0))
            .unwrap_or_else(|| Lanes::splat(0, width))
    };
    let index = |k: usize, a: usize| -> u64 {
        let t = arg_types
            .get(a)
            .and_then(|t| t.scalar())
            .unwrap_or(Scalar::U32);
        scalar::int(t, first(k, a)) as u64
    };
    Ok(match f {
        SubGroupFn::All | SubGroupFn::Any => {
            let mut truths = (0..n).map(|k| scalar::mask(s0, first(k, 0)) != 0);
            let t = if f == SubGroupFn::All {
                truths.all(|b| b)
            } else {
                truths.any(|b| b)
            };
            uniform(truth(t))
        }
        SubGroupFn::AllEqual => {
            let x = first(0, 0);
            let t = (0..n).all(|k| {
                let y = first(k, 0);
                if s0.is_float() {
                    arith::cmp(CmpOp::Eq, s0, x, y)
                } else {
                    scalar::mask(s0, x) == scalar::mask(s0, y)
                }
            });
            uniform(truth(t))
        }
        SubGroupFn::Elect => (0..n).map(|k| truth(k == 0)).collect(),
        SubGroupFn::Broadcast => uniform(from(Some(index(0, 1)))),
        SubGroupFn::BroadcastFirst => uniform(from(parts.first().map(|p| p.lid))),
        SubGroupFn::Ballot => {
            let mut bits = [0u64; 4];
            for (k, p) in parts.iter().enumerate() {
                if scalar::mask(s0, first(k, 0)) != 0 && p.lid < 128 {
                    bits[(p.lid / 32) as usize] |= 1 << (p.lid % 32);
                }
            }
            uniform(bits.into_iter().collect())
        }
        SubGroupFn::Shuffle => (0..n).map(|k| from(Some(index(k, 1)))).collect(),
        SubGroupFn::ShuffleXor => (0..n)
            .map(|k| from(Some(parts[k].lid ^ index(k, 1))))
            .collect(),
        SubGroupFn::ShuffleUp => (0..n)
            .map(|k| from(parts[k].lid.checked_sub(index(k, 1))))
            .collect(),
        SubGroupFn::ShuffleDown => (0..n)
            .map(|k| from(parts[k].lid.checked_add(index(k, 1)).filter(|&l| l < size)))
            .collect(),
        SubGroupFn::Rotate | SubGroupFn::ClusteredRotate => (0..n)
            .map(|k| {
                let c = if f == SubGroupFn::Rotate {
                    size
                } else {
                    index(k, 2)
                }
                .max(1);
                let delta = index(k, 1) as i64;
                let lid = parts[k].lid;
                let base = lid - lid % c;
                let within = (lid % c) as i64 + delta;
                from(Some(base + within.rem_euclid(c as i64) as u64))
            })
            .collect(),
        SubGroupFn::Reduce(SubGroupOp::Add) if s0.is_float() => {
            let values: Vec<(u64, u64)> = (0..n).map(|k| (parts[k].lid, first(k, 0))).collect();
            let add = |a: u64, b: u64| arith::binary(BinaryOp::Add, s0, a, b).unwrap_or(a);
            let per_piece = 16 / s0.size() as usize;
            uniform(Lanes::one(crate::sub_group::float_sum_order(
                &values, per_piece, 0, add,
            )))
        }
        SubGroupFn::Reduce(op) => {
            let acc = fold(op, s0, (0..n).map(|k| first(k, 0)))?;
            uniform(Lanes::one(acc))
        }
        SubGroupFn::ScanInclusive(op) | SubGroupFn::ScanExclusive(op) => {
            let mut acc = identity(op, s0);
            let mut out = Vec::with_capacity(n);
            for k in 0..n {
                let before = acc;
                acc = step(op, s0, acc, first(k, 0))?;
                out.push(Lanes::one(if matches!(f, SubGroupFn::ScanExclusive(_)) {
                    before
                } else {
                    acc
                }));
            }
            out
        }
        SubGroupFn::ClusteredReduce(op) => (0..n)
            .map(|k| {
                let c = index(k, 1).max(1);
                let cluster = parts[k].lid / c;
                let members = (0..n).filter(|&j| parts[j].lid / c == cluster);
                fold(op, s0, members.map(|j| first(j, 0))).map(Lanes::one)
            })
            .collect::<Result<_, _>>()?,
    })
}

/// Whether `f` computes with its operands' values (a reduction or scan
/// of an arithmetic operation) rather than moving or testing them.
fn combines_values(f: SubGroupFn) -> bool {
    match f {
        SubGroupFn::Reduce(op)
        | SubGroupFn::ScanInclusive(op)
        | SubGroupFn::ScanExclusive(op)
        | SubGroupFn::ClusteredReduce(op) => matches!(
            op,
            SubGroupOp::Add | SubGroupOp::Mul | SubGroupOp::Min | SubGroupOp::Max
        ),
        _ => false,
    }
}

/// A `half` reduction or scan as the JIT computes it (`widen-half`
/// rewrites it to `float`): the operands widened to `float` (exactly),
/// combined in `float` in the same order as a `float` operation, and each
/// result rounded to `half` once, to nearest even. OpenCL allows this as
/// well as rounding at each step; one rule for both keeps the interpreter
/// and the JIT comparable bit for bit.
fn in_float(
    f: SubGroupFn,
    arg_types: &[&Type],
    parts: &[Part<'_>],
    size: u64,
    ret: &Type,
) -> Result<Vec<Lanes>, String> {
    let wide: Vec<Vec<Lanes>> = parts
        .iter()
        .map(|p| {
            let mut args = p.args.to_vec();
            if let Some(a) = args.first_mut() {
                *a = a.iter().map(|&h| half_to_float(h)).collect();
            }
            args
        })
        .collect();
    let wide_parts: Vec<Part<'_>> = parts
        .iter()
        .zip(&wide)
        .map(|(p, args)| Part { lid: p.lid, args })
        .collect();
    let mut types: Vec<Type> = arg_types.iter().map(|t| (*t).clone()).collect();
    if let Some(t) = types.first_mut() {
        *t = t.with_scalar(Scalar::F32);
    }
    let types: Vec<&Type> = types.iter().collect();
    let out = combine(f, &types, &wide_parts, size, &ret.with_scalar(Scalar::F32))?;
    Ok(out
        .iter()
        .map(|l| l.iter().map(|&x| float_to_half(x)).collect())
        .collect())
}

/// A `half`'s bits as a `float`'s (exact).
pub(super) fn half_to_float(h: u64) -> u64 {
    super::convert::convert(h, Scalar::F16, Scalar::F32, false, Rounding::Default)
}

/// A `float`'s bits rounded to a `half`'s, to nearest even.
pub(super) fn float_to_half(x: u64) -> u64 {
    super::convert::convert(x, Scalar::F32, Scalar::F16, false, Rounding::Rte)
}

fn fold(op: SubGroupOp, s: Scalar, xs: impl Iterator<Item = u64>) -> Result<u64, String> {
    let mut acc = identity(op, s);
    for x in xs {
        acc = step(op, s, acc, x)?;
    }
    Ok(acc)
}

/// `acc op x`. `min`/`max` keep `acc` on ties and take `x` over a NaN
/// `acc`, as the work-group collectives do.
fn step(op: SubGroupOp, s: Scalar, acc: u64, x: u64) -> Result<u64, String> {
    let bin =
        |b: BinaryOp| arith::binary(b, s, acc, x).ok_or_else(|| format!("sub-group {op:?} on {s}"));
    let is_nan = |bits: u64| s.is_float() && scalar::float(s, bits).is_nan();
    let truth = |t: bool| scalar::from_int(s, i128::from(t));
    let nz = |v: u64| scalar::mask(s, v) != 0;
    match op {
        SubGroupOp::Add => bin(BinaryOp::Add),
        SubGroupOp::Mul => bin(BinaryOp::Mul),
        SubGroupOp::And => bin(BinaryOp::And),
        SubGroupOp::Or => bin(BinaryOp::Or),
        SubGroupOp::Xor => bin(BinaryOp::Xor),
        SubGroupOp::Min => Ok(if arith::cmp(CmpOp::Lt, s, x, acc) || is_nan(acc) {
            x
        } else {
            acc
        }),
        SubGroupOp::Max => Ok(if arith::cmp(CmpOp::Gt, s, x, acc) || is_nan(acc) {
            x
        } else {
            acc
        }),
        SubGroupOp::LogicalAnd => Ok(truth(nz(acc) && nz(x))),
        SubGroupOp::LogicalOr => Ok(truth(nz(acc) || nz(x))),
        SubGroupOp::LogicalXor => Ok(truth(nz(acc) != nz(x))),
    }
}

/// The identity of `op` on `s`: 0 for add, or, xor and logical or/xor; 1
/// for mul and logical and; all ones for and; the largest value for min
/// (+∞), the smallest for max (−∞).
pub fn identity(op: SubGroupOp, s: Scalar) -> u64 {
    let (lo, hi) = scalar::int_range(s);
    match (op, s.is_float()) {
        (SubGroupOp::Mul, true) => scalar::from_float(s, 1.0),
        (SubGroupOp::Mul | SubGroupOp::LogicalAnd, false) => 1,
        (SubGroupOp::LogicalAnd, true) => scalar::from_float(s, 1.0),
        (SubGroupOp::And, _) => scalar::mask(s, u64::MAX),
        (SubGroupOp::Min, true) => scalar::from_float(s, f64::INFINITY),
        (SubGroupOp::Max, true) => scalar::from_float(s, f64::NEG_INFINITY),
        (SubGroupOp::Min, false) => scalar::from_int(s, hi),
        (SubGroupOp::Max, false) => scalar::from_int(s, lo),
        _ => 0,
    }
}

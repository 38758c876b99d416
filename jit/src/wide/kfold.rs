//! Compares folded into the masks they are and-ed with; products by two
//! as sums.
//!
//! A comparison into a mask register takes a mask of its own (`vcmpps
//! k1{k2}, …`: the lanes of `k2` compared, the others cleared), which is
//! the `and` of the comparison and that mask in one instruction. The
//! lowering computes a loop's condition `a < b && c <= d` as two
//! compares, the `and` of the two and the `and` of that with the loop's
//! mask (`KAnd`s); folded, the same lanes come from two compares, each
//! under the mask before it: mandelbrot's trip loses two of its twelve
//! instructions per chunk, and the mask operations were what its four
//! chunks in flight waited for (`docs/wide.md`, "Compares under the
//! loop's mask").

use std::collections::HashMap;

use super::{Bin, Cmp, CmpKind, Op, Program, K};

/// A product of a float value and the constant 2 becomes the value added
/// to itself: the same result in every case (`2x` is exact unless it
/// overflows, to the same infinity either way; a NaN stays the same quiet
/// NaN, -0 stays -0), on an adder instead of one of the two multiply
/// pipes the FMAs share (mandelbrot's `2.0f * zr * zi`, whose FMA takes
/// `2 * zr`: about 4 % of its trip in a hand-written copy,
/// `scripts/mandelbrot_trip.py`).
pub(crate) fn double_as_sum(p: &mut Program) {
    let mut writes: HashMap<u32, usize> = HashMap::new();
    let mut two: Vec<u32> = Vec::new();
    for op in &p.ops {
        for v in super::ra2::written(op).0 {
            *writes.entry(v).or_default() += 1;
        }
        if let Op::Splat { d, bits } = *op {
            if bits == 2.0f32.to_bits() {
                two.push(d.0);
            }
        }
    }
    two.retain(|v| writes.get(v) == Some(&1));
    for op in &mut p.ops {
        if let Op::Bin {
            op: Bin::FMul,
            d,
            a,
            b,
        } = *op
        {
            let x = if two.contains(&a.0) {
                b
            } else if two.contains(&b.0) {
                a
            } else {
                continue;
            };
            *op = Op::Bin {
                op: Bin::FAdd,
                d,
                a: x,
                b: x,
            };
        }
    }
}

/// The masks `op` reads and writes (by number).
fn masks(op: &Op) -> (Vec<u32>, Vec<u32>) {
    let written = super::ra2::written(op).1;
    let named = std::cell::RefCell::new(Vec::new());
    op.map_regs(
        |v| v,
        |k| {
            named.borrow_mut().push(k.0);
            k
        },
    );
    let mut read = named.into_inner();
    // A pure mask operation reads its sources, which may include the
    // mask it writes (`k = k & c`); any other operation names a mask it
    // writes only as its result.
    match *op {
        Op::KAnd { a, b, .. }
        | Op::KAndNot { a, b, .. }
        | Op::KOr { a, b, .. }
        | Op::KXor { a, b, .. } => read = vec![a.0, b.0],
        Op::KNot { a, .. } | Op::KCopy { a, .. } | Op::KHigh { a, .. } => read = vec![a.0],
        Op::KJoin { lo, hi, .. } => read = vec![lo.0, hi.0],
        Op::Compare { within, .. } => read = vec![within.0],
        _ => read.retain(|k| !written.contains(k)),
    }
    read.dedup();
    (read, written)
}

/// Folds `d = m & c`, `c` a comparison of 32-bit lanes read only there
/// and written once, earlier in the same straight-line stretch, into
/// `d = c` compared under `m` at the `and`'s place; and `d = m & (c1 &
/// c2)`, the inner `and` and both compares so read and written, into
/// `c2` under `m`, then `c1` under that (the later compare first, so
/// that the earlier one's operands, ready sooner, wait less). The
/// compares move down to the `and`, so their operands must not be
/// written between. The lanes are the same; only the instructions
/// change.
pub(crate) fn fold_compares_into_masks(p: &mut Program) {
    let mut reads: HashMap<u32, usize> = HashMap::new();
    let mut writes: HashMap<u32, usize> = HashMap::new();
    for op in &p.ops {
        let (r, w) = masks(op);
        for k in r {
            *reads.entry(k).or_default() += 1;
        }
        for k in w {
            *writes.entry(k).or_default() += 1;
        }
    }
    let single = |k: K| reads.get(&k.0) == Some(&1) && writes.get(&k.0) == Some(&1);
    // Where each mask written once was written.
    let mut at: HashMap<u32, usize> = HashMap::new();
    for (i, op) in p.ops.iter().enumerate() {
        for k in super::ra2::written(op).1 {
            at.insert(k, i);
        }
    }
    let ops = &p.ops;
    // The compare writing `k` at `i`, when foldable: a 32-bit kind.
    let compare = |k: K| -> Option<(usize, Op)> {
        let &i = at.get(&k.0)?;
        match ops[i] {
            Op::Compare2 {
                kind: kind @ (CmpKind::F32 | CmpKind::I32 | CmpKind::U32),
                pred,
                d,
                a,
                b,
            } if single(k) => Some((
                i,
                Op::Compare {
                    cmp: Cmp::Pred(kind, pred),
                    d,
                    a,
                    b,
                    within: d,
                },
            )),
            _ => None,
        }
    };
    // Whether the stretch from `i` to `j` is straight and writes none of
    // `op`'s vector operands.
    let clear = |i: usize, j: usize, op: &Op| {
        let Op::Compare { a, b, .. } = *op else {
            return false;
        };
        ops[i + 1..j].iter().all(|o| {
            let w = super::ra2::written(o).0;
            !o.ends_stretch() && !w.contains(&a.0) && !w.contains(&b.0)
        })
    };
    // `op` under the mask `m`, writing `to` if given.
    let under = |op: &Op, m: K, to: Option<K>| match *op {
        Op::Compare { cmp, d, a, b, .. } => Op::Compare {
            cmp,
            d: to.unwrap_or(d),
            a,
            b,
            within: m,
        },
        _ => unreachable!("a compare"),
    };
    let mut replace: HashMap<usize, Vec<Op>> = HashMap::new();
    let mut drop: Vec<usize> = Vec::new();
    // `d = m & (c1 & c2)` first: the inner `and` would fold on its own.
    for (j, op) in ops.iter().enumerate() {
        let Op::KAnd { d, a, b } = *op else {
            continue;
        };
        for (m, x) in [(a, b), (b, a)] {
            let Some(&i) = at.get(&x.0).filter(|_| single(x) && m != x) else {
                continue;
            };
            let Op::KAnd { a: y, b: z, .. } = ops[i] else {
                continue;
            };
            let (Some((iy, cy)), Some((iz, cz))) = (compare(y), compare(z)) else {
                continue;
            };
            if y == z
                || [y, z].contains(&m)
                || drop.contains(&j)
                || replace.contains_key(&i)
                || !(iy < j && iz < j && i < j)
                || !clear(iy, j, &cy)
                || !clear(iz, j, &cz)
                || (i + 1..j).any(|n| ops[n].ends_stretch())
            {
                continue;
            }
            let (first, then, fk) = if iz > iy { (cz, cy, z) } else { (cy, cz, y) };
            replace.insert(j, vec![under(&first, m, None), under(&then, fk, Some(d))]);
            drop.extend([i, iy, iz]);
            break;
        }
    }
    // `d = m & c`.
    for (j, op) in ops.iter().enumerate() {
        let Op::KAnd { d, a, b } = *op else {
            continue;
        };
        if drop.contains(&j) || replace.contains_key(&j) {
            continue;
        }
        for (m, x) in [(a, b), (b, a)] {
            let Some((i, c)) = compare(x) else {
                continue;
            };
            if m != x && i < j && !drop.contains(&i) && clear(i, j, &c) {
                replace.insert(j, vec![under(&c, m, Some(d))]);
                drop.push(i);
                break;
            }
        }
    }
    if replace.is_empty() {
        return;
    }
    let old = std::mem::take(&mut p.ops);
    for (i, op) in old.into_iter().enumerate() {
        if let Some(new) = replace.remove(&i) {
            p.ops.extend(new);
        } else if !drop.contains(&i) {
            p.ops.push(op);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wide::{Bin, V};

    fn cmp(p: &mut Program, kind: CmpKind, a: V, b: V) -> K {
        let d = p.k();
        p.push(Op::Compare2 {
            kind,
            pred: 1,
            d,
            a,
            b,
        });
        d
    }

    /// `m & (x < y && z < w)` as the lowering leaves a loop's condition.
    fn condition(kind: CmpKind) -> (Program, K, K) {
        let mut p = Program::new();
        let (x, y, z, w) = (p.v(), p.v(), p.v(), p.v());
        let m = p.k();
        p.push(Op::AllLanes { d: m });
        p.push(Op::Loop);
        let c1 = cmp(&mut p, CmpKind::I32, x, y);
        let c2 = cmp(&mut p, kind, z, w);
        let both = p.k();
        p.push(Op::KAnd {
            d: both,
            a: c1,
            b: c2,
        });
        let d = p.k();
        p.push(Op::KAnd { d, a: m, b: both });
        p.push(Op::KCopy { d: m, a: d });
        p.push(Op::WhileAny { k: m });
        (p, m, d)
    }

    #[test]
    fn a_loops_condition_becomes_two_compares_under_the_loops_mask() {
        let (mut p, m, d) = condition(CmpKind::F32);
        fold_compares_into_masks(&mut p);
        let compares: Vec<&Op> = p
            .ops()
            .iter()
            .filter(|op| matches!(op, Op::Compare { .. }))
            .collect();
        assert_eq!(compares.len(), 2, "{:?}", p.ops());
        assert!(!p
            .ops()
            .iter()
            .any(|op| matches!(op, Op::KAnd { .. } | Op::Compare2 { .. })));
        // The later compare (the float one) under the loop's mask, the
        // earlier under it, writing the `and`'s result.
        let Op::Compare {
            cmp: Cmp::Pred(CmpKind::F32, 1),
            d: first,
            within,
            ..
        } = *compares[0]
        else {
            panic!("{:?}", compares[0]);
        };
        assert_eq!(within, m);
        assert_eq!(
            *compares[1],
            Op::Compare {
                cmp: Cmp::Pred(CmpKind::I32, 1),
                d,
                a: V(0),
                b: V(1),
                within: first,
            }
        );
    }

    #[test]
    fn products_by_the_constant_two_only_become_sums() {
        let mut p = Program::new();
        let (x, y) = (p.v(), p.v());
        let two = p.constant(2.0f32.to_bits());
        let half = p.constant(0.5f32.to_bits());
        let (d1, d2, d3, d4) = (p.v(), p.v(), p.v(), p.v());
        p.push(Op::Bin {
            op: Bin::FMul,
            d: d1,
            a: two,
            b: x,
        });
        p.push(Op::Bin {
            op: Bin::FMul,
            d: d2,
            a: y,
            b: two,
        });
        p.push(Op::Bin {
            op: Bin::FMul,
            d: d3,
            a: half,
            b: x,
        });
        p.push(Op::Bin {
            op: Bin::IMul,
            d: d4,
            a: two,
            b: x,
        });
        double_as_sum(&mut p);
        let ops = p.ops();
        assert_eq!(
            ops[2],
            Op::Bin {
                op: Bin::FAdd,
                d: d1,
                a: x,
                b: x
            }
        );
        assert_eq!(
            ops[3],
            Op::Bin {
                op: Bin::FAdd,
                d: d2,
                a: y,
                b: y
            }
        );
        assert_eq!(
            ops[4],
            Op::Bin {
                op: Bin::FMul,
                d: d3,
                a: half,
                b: x
            }
        );
        assert_eq!(
            ops[5],
            Op::Bin {
                op: Bin::IMul,
                d: d4,
                a: two,
                b: x
            }
        );
    }

    #[test]
    fn compares_of_64_bit_lanes_stay() {
        let (mut p, _, _) = condition(CmpKind::F64);
        let before = p.ops().to_vec();
        fold_compares_into_masks(&mut p);
        // The outer `and` cannot take the pair; the inner one folds its
        // 32-bit compare under the 64-bit one's mask (the same `and` of
        // sixteen bits), and the 64-bit compare stays as it was.
        assert!(p.ops().iter().any(|op| matches!(
            op,
            Op::Compare2 {
                kind: CmpKind::F64,
                ..
            }
        )));
        assert!(p.ops().len() < before.len());
    }

    #[test]
    fn a_compare_read_twice_or_whose_operand_changes_stays() {
        // Read twice: by the `and` and by a select.
        let mut p = Program::new();
        let (x, y, s) = (p.v(), p.v(), p.v());
        let m = p.k();
        p.push(Op::AllLanes { d: m });
        let c = cmp(&mut p, CmpKind::I32, x, y);
        let d = p.k();
        p.push(Op::KAnd { d, a: m, b: c });
        p.push(Op::Select {
            d: s,
            k: c,
            a: x,
            b: y,
        });
        let before = p.ops().to_vec();
        fold_compares_into_masks(&mut p);
        assert_eq!(p.ops(), &before[..]);

        // An operand written between the compare and the `and`.
        let mut p = Program::new();
        let (x, y) = (p.v(), p.v());
        let m = p.k();
        p.push(Op::AllLanes { d: m });
        let c = cmp(&mut p, CmpKind::I32, x, y);
        p.push(Op::Bin {
            op: Bin::IAdd,
            d: x,
            a: x,
            b: y,
        });
        let d = p.k();
        p.push(Op::KAnd { d, a: m, b: c });
        let before = p.ops().to_vec();
        fold_compares_into_masks(&mut p);
        assert_eq!(p.ops(), &before[..]);

        // A loop's boundary between.
        let mut p = Program::new();
        let (x, y) = (p.v(), p.v());
        let m = p.k();
        p.push(Op::AllLanes { d: m });
        let c = cmp(&mut p, CmpKind::U32, x, y);
        p.push(Op::Loop);
        let d = p.k();
        p.push(Op::KAnd { d, a: m, b: c });
        p.push(Op::WhileAny { k: d });
        let before = p.ops().to_vec();
        fold_compares_into_masks(&mut p);
        assert_eq!(p.ops(), &before[..]);
    }

    #[test]
    fn one_compare_and_a_mask_fold_at_the_ands_place() {
        let mut p = Program::new();
        let (x, y) = (p.v(), p.v());
        let m = p.k();
        p.push(Op::AllLanes { d: m });
        let c = cmp(&mut p, CmpKind::U32, x, y);
        let t = p.v();
        p.push(Op::Bin {
            op: Bin::IAdd,
            d: t,
            a: x,
            b: y,
        });
        let d = p.k();
        p.push(Op::KAnd { d, a: c, b: m });
        fold_compares_into_masks(&mut p);
        assert_eq!(
            *p.ops().last().unwrap(),
            Op::Compare {
                cmp: Cmp::Pred(CmpKind::U32, 1),
                d,
                a: x,
                b: y,
                within: m,
            }
        );
        assert!(!p.ops().iter().any(|op| matches!(op, Op::Compare2 { .. })));
    }
}

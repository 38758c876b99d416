//! Compares folded into the masks they are and-ed with.
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

use super::{Cmp, CmpKind, Op, Program, K};

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
        Op::KNot { a, .. } | Op::KCopy { a, .. } => read = vec![a.0],
        Op::Compare { within, .. } => read = vec![within.0],
        _ => read.retain(|k| !written.contains(k)),
    }
    read.dedup();
    (read, written)
}

/// Whether `op` ends a stretch of straight-line code.
fn boundary(op: &Op) -> bool {
    matches!(
        op,
        Op::Loop
            | Op::WhileAny { .. }
            | Op::WhileCount { .. }
            | Op::IfAny { .. }
            | Op::EndIf
            | Op::Entry(_)
            | Op::WhileEntry(_)
    )
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
            !boundary(o) && !w.contains(&a.0) && !w.contains(&b.0)
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
                || (i + 1..j).any(|n| boundary(&ops[n]))
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

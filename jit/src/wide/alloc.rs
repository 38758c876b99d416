//! Register allocation for a [`Program`]: linear scan over the program's
//! order, no spilling.
//!
//! Each value's interval runs from its first to its last reference. A
//! value referenced inside a loop lives for the whole loop when it is also
//! referenced before or after the loop, or when its first reference inside
//! the loop reads it (a value carried around the back edge). An interval
//! that ends at an operation frees its register for a value that operation
//! defines: every operation reads its sources before it writes (the
//! emitter orders FMA's operands so).

use super::{Op, Program, WideError, K, V};

/// zmm registers per value and k registers (k1–k7) per mask.
#[derive(Clone, Debug)]
pub struct Allocation {
    pub zmm: Vec<u8>,
    pub k: Vec<u8>,
    /// The most zmm and k registers live at once.
    pub zmm_used: u32,
    pub k_used: u32,
}

/// References of one operation: (value, is a read) for vectors and masks,
/// reads first.
fn refs(op: &Op) -> (Vec<(V, bool)>, Vec<(K, bool)>) {
    match *op {
        Op::Splat { d, .. } | Op::Load { d, .. } | Op::Broadcast { d, .. } => {
            (vec![(d, false)], vec![])
        }
        Op::Store { a, .. } => (vec![(a, true)], vec![]),
        Op::Bin { d, a, b, .. } => (vec![(a, true), (b, true), (d, false)], vec![]),
        Op::Fma { d, a, b, c } | Op::FmaD { d, a, b, c } | Op::Fms { d, a, b, c } => {
            (vec![(a, true), (b, true), (c, true), (d, false)], vec![])
        }
        Op::SplatQ { d, .. } => (vec![(d, false)], vec![]),
        Op::Sqrt { d, a } | Op::IntToFloat { d, a } | Op::Copy { d, a } | Op::Un { d, a, .. } => {
            (vec![(a, true), (d, false)], vec![])
        }
        Op::BinMasked { d, a, b, k, .. } => (
            vec![(d, true), (a, true), (b, true), (d, false)],
            vec![(k, true)],
        ),
        Op::FmaMasked { d, a, b, k } | Op::FmaDMasked { d, a, b, k } => (
            vec![(d, true), (a, true), (b, true), (d, false)],
            vec![(k, true)],
        ),
        Op::AllLanes { d } => (vec![], vec![(d, false)]),
        Op::RowLane0 { a, .. } => (vec![(a, true)], vec![]),
        Op::KOr { d, a, b } => (vec![], vec![(a, true), (b, true), (d, false)]),
        Op::Compare {
            d, a, b, within, ..
        } => (vec![(a, true), (b, true)], vec![(within, true), (d, false)]),
        Op::Compare2 { d, a, b, .. } => (vec![(a, true), (b, true)], vec![(d, false)]),
        Op::KAnd { d, a, b } | Op::KAndNot { d, a, b } | Op::KXor { d, a, b } => {
            (vec![], vec![(a, true), (b, true), (d, false)])
        }
        Op::KNot { d, a } | Op::KCopy { d, a } | Op::KHigh { d, a } => {
            (vec![], vec![(a, true), (d, false)])
        }
        Op::KJoin { d, lo, hi } => (vec![], vec![(lo, true), (hi, true), (d, false)]),
        Op::KZero { d } | Op::RunningLanes { d } => (vec![], vec![(d, false)]),
        Op::Select { d, k, a, b } => (vec![(a, true), (b, true), (d, false)], vec![(k, true)]),
        Op::MaskedCopy { d, a, k } => (vec![(d, true), (a, true), (d, false)], vec![(k, true)]),
        Op::Fixup { d, x, table } => (
            vec![(d, true), (x, true), (table, true), (d, false)],
            vec![],
        ),
        Op::Ternlog { d, b, c, .. } => (vec![(d, true), (b, true), (c, true), (d, false)], vec![]),
        Op::Convert { d, a, .. } => (vec![(a, true), (d, false)], vec![]),
        Op::GlobalId { d, .. } | Op::GroupId { d, .. } => (vec![(d, false)], vec![]),
        Op::LoadElems { d, idx, k, .. } | Op::LoadSum { d, idx, k, .. } => {
            (vec![(idx, true), (d, false)], vec![(k, true)])
        }
        Op::FmaSum { d, b, idx, k, .. } => (
            vec![(d, true), (b, true), (idx, true), (d, false)],
            vec![(k, true)],
        ),
        Op::StoreElems { a, idx, k, .. } => (vec![(a, true), (idx, true)], vec![(k, true)]),
        Op::Loop
        | Op::WhileCount { .. }
        | Op::Entry(_)
        | Op::WhileEntry(_)
        | Op::IfEntry(_)
        | Op::EndIf => (vec![], vec![]),
        Op::WhileAny { k } | Op::IfAny { k } => (vec![], vec![(k, true)]),
    }
}

/// The loops of `ops` as (index of `Loop`, index of its end).
fn loops(ops: &[Op]) -> Result<Vec<(usize, usize)>, WideError> {
    let mut open = Vec::new();
    let mut out = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Loop => open.push(i),
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                let b = open.pop().ok_or_else(|| {
                    WideError::Malformed(format!("loop end at {i} without a start"))
                })?;
                out.push((b, i));
            }
            _ => {}
        }
    }
    if let Some(b) = open.pop() {
        return Err(WideError::Malformed(format!("loop at {b} has no end")));
    }
    Ok(out)
}

/// Intervals of `n` values from their references (`at`, index, is a read).
fn intervals(
    n: usize,
    refs: &[(usize, usize, bool)],
    loops: &[(usize, usize)],
) -> Result<Vec<Option<(usize, usize)>>, WideError> {
    let mut iv: Vec<Option<(usize, usize)>> = vec![None; n];
    for &(at, v, _) in refs {
        iv[v] = Some(match iv[v] {
            None => (at, at),
            Some((s, e)) => (s.min(at), e.max(at)),
        });
    }
    // Extend to whole loops until nothing changes (nested loops).
    loop {
        let mut changed = false;
        for &(b, e) in loops {
            for (v, slot) in iv.iter_mut().enumerate() {
                let Some((s, end)) = *slot else { continue };
                // The value's first reference inside the loop (refs are in
                // program order).
                let Some(first) = refs.iter().find(|&&(at, x, _)| x == v && at > b && at < e)
                else {
                    continue;
                };
                let carried = first.2 || s < b || end > e;
                if carried && (s > b || end < e) {
                    *slot = Some((s.min(b), end.max(e)));
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    for (v, i) in iv.iter().enumerate() {
        if let Some((s, _)) = i {
            let read_first = refs
                .iter()
                .find(|&&(at, x, _)| x == v && at == *s)
                .is_some_and(|r| r.2);
            if read_first {
                return Err(WideError::Malformed(format!(
                    "value {v} is read before it is written"
                )));
            }
        }
    }
    Ok(iv)
}

/// Linear scan of `iv` over `regs` registers numbered from `first`.
fn scan(
    iv: &[Option<(usize, usize)>],
    regs: u32,
    first: u8,
    class: &'static str,
) -> Result<(Vec<u8>, u32), WideError> {
    let mut order: Vec<usize> = (0..iv.len()).filter(|&v| iv[v].is_some()).collect();
    order.sort_by_key(|&v| iv[v].map(|(s, _)| s));
    let mut assigned = vec![0u8; iv.len()];
    let mut active: Vec<(usize, u8)> = Vec::new(); // (end, register)
    let mut free: Vec<u8> = (0..regs as u8).rev().map(|r| r + first).collect();
    let mut most = 0;
    for v in order {
        let (s, e) = iv[v].expect("filtered");
        active.retain(|&(end, r)| {
            if end <= s {
                free.push(r);
                false
            } else {
                true
            }
        });
        free.sort_unstable_by(|a, b| b.cmp(a));
        let r = free.pop().ok_or(WideError::OutOfRegisters(regs, class))?;
        assigned[v] = r;
        active.push((e, r));
        most = most.max(active.len() as u32);
    }
    Ok((assigned, most))
}

/// Registers for every value and mask of `p`.
pub fn allocate(p: &Program) -> Result<Allocation, WideError> {
    let ops = p.ops();
    let lp = loops(ops)?;
    let (mut vr, mut kr) = (Vec::new(), Vec::new());
    for (at, op) in ops.iter().enumerate() {
        let (v, k) = refs(op);
        vr.extend(v.into_iter().map(|(x, r)| (at, x.0 as usize, r)));
        kr.extend(k.into_iter().map(|(x, r)| (at, x.0 as usize, r)));
    }
    let viv = intervals(p.next_v as usize, &vr, &lp)?;
    let kiv = intervals(p.next_k as usize, &kr, &lp)?;
    let (zmm, zmm_used) = scan(&viv, 32, 0, "zmm")?;
    let (k, k_used) = scan(&kiv, 7, 1, "k")?;
    Ok(Allocation {
        zmm,
        k,
        zmm_used,
        k_used,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wide::{Arg, Bin};

    #[test]
    fn a_value_carried_around_a_loop_keeps_its_register_through_the_loop() {
        let mut p = Program::new();
        let acc = p.splat_f32(0.0);
        let k = p.all_lanes();
        p.push(Op::Loop);
        let t = p.load(Arg::A0, 0);
        let u = p.bin(Bin::FMul, t, t);
        p.push(Op::Bin {
            op: Bin::FAdd,
            d: acc,
            a: acc,
            b: u,
        });
        p.push(Op::WhileAny { k });
        p.push(Op::Store {
            a: acc,
            arg: Arg::A1,
            off: 0,
        });
        let a = allocate(&p).unwrap();
        // `t` and `u` live inside one iteration and may share; `acc` must
        // differ from both.
        assert_ne!(a.zmm[acc.0 as usize], a.zmm[t.0 as usize]);
        assert_ne!(a.zmm[acc.0 as usize], a.zmm[u.0 as usize]);
        assert_eq!(a.k_used, 1);
    }

    #[test]
    fn more_than_32_live_values_are_refused() {
        let mut p = Program::new();
        let vs: Vec<V> = (0..33).map(|i| p.splat_i32(i)).collect();
        for v in vs {
            p.push(Op::Store {
                a: v,
                arg: Arg::A0,
                off: 0,
            });
        }
        assert_eq!(
            allocate(&p).unwrap_err(),
            WideError::OutOfRegisters(32, "zmm")
        );
    }

    #[test]
    fn a_read_before_any_write_is_malformed() {
        let mut p = Program::new();
        let a = p.v();
        p.push(Op::Store {
            a,
            arg: Arg::A0,
            off: 0,
        });
        assert!(matches!(allocate(&p), Err(WideError::Malformed(_))));
    }
}

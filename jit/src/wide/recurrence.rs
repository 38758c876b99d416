//! Whether a chunk body's loops are bound by a loop-carried chain
//! (`entry::program_for`'s chunks in flight).
//!
//! Chunks in flight overlap the chains of several chunks: they pay where
//! a trip waits on the one before it (mandelbrot's `z = z² + c`, a sum
//! `acc += a[k] * b[k]`), not where a trip's own work is long but
//! independent of the trip before (MRI-Q's `sin` and `cos` of each `k`,
//! whose only carried chain is the accumulation): there the core's
//! scheduler already overlaps the trips of one chunk, and more chunks add
//! only register pressure (MRI-Q at 2^16 points and 512 `k`, one thread:
//! 16.4 ms one chunk at a time, 18.4 ms with four in flight).
//!
//! The estimate: for each value (or mask) a loop reads before it writes
//! it, the longest chain of the loop's operations from its read to its
//! last write, in cycles (`latency`); the loop's recurrence is the
//! longest such chain. A trip of one chunk takes at least its operations
//! over [`ISSUE_WIDTH`] cycles; a loop whose recurrence is shorter than
//! that is bound by its operations, not by the chain, unless it loads
//! per lane (a row of a matrix, a gather): such loads may miss the
//! caches, and the other chunks' loads overlap the misses (a naive
//! `double` matrix product's `k` loop, 47 operations beside a chain of
//! 11 cycles, ran 1.3–1.7x faster with four chunks in flight).

use super::{Bin, Op, Program, K, V};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// Vector operations a core issues per cycle, for the estimate.
pub const ISSUE_WIDTH: u32 = 4;

/// Cycles from an operation's inputs to its result, roughly (AVX-512 on
/// Zen 5 and recent Intel cores).
fn latency(op: &Op) -> u32 {
    match op {
        Op::Fma { .. }
        | Op::Fms { .. }
        | Op::FmaMasked { .. }
        | Op::FmaD { .. }
        | Op::FmaDMasked { .. }
        | Op::FmaSum { .. } => 4,
        Op::Bin { op, .. } | Op::BinMasked { op, .. } => match op {
            Bin::FDiv => 11,
            Bin::DDiv => 13,
            Bin::IAdd
            | Bin::ISub
            | Bin::IXor
            | Bin::IAnd
            | Bin::IOr
            | Bin::Shl
            | Bin::Sar
            | Bin::Shr
            | Bin::IMinS
            | Bin::IMaxS
            | Bin::IMinU
            | Bin::IMaxU
            | Bin::QAdd
            | Bin::QSub
            | Bin::QAnd
            | Bin::QOr
            | Bin::QXor
            | Bin::QShl
            | Bin::QShr
            | Bin::Rotl => 1,
            _ => 4,
        },
        Op::Sqrt { .. } => 15,
        Op::LoadElems { .. } | Op::LoadSum { .. } | Op::Load { .. } | Op::Broadcast { .. } => 5,
        Op::Compare { .. } | Op::Compare2 { .. } | Op::Un { .. } | Op::Fixup { .. } => 3,
        Op::Convert { .. } | Op::IntToFloat { .. } => 4,
        _ => 1,
    }
}

/// A register of the program: a value or a mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Reg {
    V(u32),
    K(u32),
}

/// The registers `op` reads and those it writes.
fn regs(op: &Op) -> (Vec<Reg>, Vec<Reg>) {
    let (wv, wk) = super::ra2::written(op);
    let written: Vec<Reg> = wv
        .iter()
        .map(|&v| Reg::V(v))
        .chain(wk.iter().map(|&k| Reg::K(k)))
        .collect();
    let seen = RefCell::new(Vec::new());
    op.map_regs(
        |v: V| {
            seen.borrow_mut().push(Reg::V(v.0));
            v
        },
        |k: K| {
            seen.borrow_mut().push(Reg::K(k.0));
            k
        },
    );
    let mut seen = seen.into_inner();
    if !op.reads_destination() {
        // A written register counts as read only where it is named again
        // (`d = a + a` names `a` twice; `d = d * b` names `d` twice).
        for w in &written {
            if let Some(i) = seen.iter().position(|r| r == w) {
                seen.remove(i);
            }
        }
    }
    (seen, written)
}

/// An innermost loop of a chunk body, as [`innermost_loops`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopShape {
    /// The longest loop-carried chain, in cycles.
    pub recurrence: u32,
    /// Operations of a trip (those of skipped regions left out).
    pub ops: usize,
    /// Whether a trip loads lanes of their own (not one element for
    /// every lane).
    pub loads_per_lane: bool,
}

impl LoopShape {
    /// Whether other chunks in flight beside this loop's chunk gain: its
    /// chain longer than its operations take to issue, or loads that may
    /// miss.
    pub fn gains_from_chunks_in_flight(&self) -> bool {
        self.recurrence as usize * ISSUE_WIDTH as usize >= self.ops || self.loads_per_lane
    }
}

/// Each innermost loop of `p`.
pub fn innermost_loops(p: &Program) -> Vec<LoopShape> {
    let ops = p.ops();
    let mut out = Vec::new();
    let mut starts: Vec<(usize, bool)> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Loop => {
                if let Some(last) = starts.last_mut() {
                    last.1 = false;
                }
                starts.push((i, true));
            }
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                if let Some((start, innermost)) = starts.pop() {
                    if innermost {
                        out.push(loop_recurrence(&ops[start + 1..=i]));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// One loop's shape from its body (its end included: the test reads the
/// loop's mask).
fn loop_recurrence(body: &[Op]) -> LoopShape {
    let regs: Vec<(Vec<Reg>, Vec<Reg>)> = body.iter().map(regs).collect();
    // Read before written in the body: carried from the trip before.
    let mut written: HashSet<Reg> = HashSet::new();
    let mut carried: Vec<Reg> = Vec::new();
    let mut all_written: HashSet<Reg> = HashSet::new();
    for (r, w) in &regs {
        for x in r {
            if !written.contains(x) && !carried.contains(x) {
                carried.push(*x);
            }
        }
        written.extend(w.iter().copied());
        all_written.extend(w.iter().copied());
    }
    carried.retain(|c| all_written.contains(c));
    let mut longest = 0;
    for &c in &carried {
        let mut dist: HashMap<Reg, u32> = HashMap::new();
        dist.insert(c, 0);
        for (op, (r, w)) in body.iter().zip(&regs) {
            let from = r.iter().filter_map(|x| dist.get(x)).max().copied();
            for x in w {
                match from {
                    Some(d) => {
                        dist.insert(*x, d + latency(op));
                    }
                    None => {
                        dist.remove(x);
                    }
                }
            }
        }
        if let Some(&d) = dist.get(&c) {
            longest = longest.max(d);
        }
    }
    let mut depth = 0usize;
    let mut ops = 0;
    for op in body {
        match op {
            Op::IfAny { .. } | Op::IfEntry(_) => depth += 1,
            Op::EndIf => depth = depth.saturating_sub(1),
            _ => ops += usize::from(depth == 0),
        }
    }
    let loads_per_lane = body.iter().any(|op| match op {
        Op::LoadElems { how, .. } => !how.uniform,
        Op::Load { .. } => true,
        _ => false,
    });
    LoopShape {
        recurrence: longest,
        ops,
        loads_per_lane,
    }
}

/// Whether chunks in flight gain on some innermost loop of `p`
/// ([`LoopShape::gains_from_chunks_in_flight`]).
pub fn chunks_in_flight_gain(p: &Program) -> bool {
    innermost_loops(p)
        .iter()
        .any(LoopShape::gains_from_chunks_in_flight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wide::{Cmp, K};

    /// `x = x * x + c` in a loop of `extra` more independent operations.
    fn looped(extra: usize) -> Program {
        looped_loading(extra, false)
    }

    /// [`looped`], its trip loading 64 bytes when `load`.
    fn looped_loading(extra: usize, load: bool) -> Program {
        let mut p = Program::new();
        let x = p.v();
        let c = p.v();
        p.push(Op::Splat { d: x, bits: 0 });
        p.push(Op::Splat { d: c, bits: 0 });
        let k = p.k();
        p.push(Op::AllLanes { d: k });
        p.push(Op::Loop);
        let t = p.fma(x, x, c);
        p.push(Op::Copy { d: x, a: t });
        let mut y = c;
        if load {
            y = p.v();
            p.push(Op::Load {
                d: y,
                arg: crate::wide::Arg::A0,
                off: 0,
            });
        }
        for _ in 0..extra {
            y = p.bin(Bin::FMul, y, c);
        }
        let keep = p.k();
        p.push(Op::Compare {
            d: keep,
            cmp: Cmp::FLt,
            a: x,
            b: y,
            within: k,
        });
        p.push(Op::KCopy { d: k, a: keep });
        p.push(Op::WhileAny { k });
        p
    }

    #[test]
    fn a_short_loop_on_its_own_chain_is_bound_by_it() {
        let p = looped(2);
        let loops = innermost_loops(&p);
        assert_eq!(loops.len(), 1);
        // The fma and the copy: 5 cycles; the mask's chain 3 + 1.
        assert_eq!(loops[0].recurrence, 5);
        assert!(!loops[0].loads_per_lane);
        assert!(chunks_in_flight_gain(&p));
    }

    #[test]
    fn a_long_trip_beside_a_short_chain_is_bound_by_its_operations() {
        let p = looped(40);
        let shape = innermost_loops(&p)[0];
        assert_eq!(shape.recurrence, 5);
        assert!(shape.ops > 40);
        assert!(!chunks_in_flight_gain(&p));
    }

    #[test]
    fn a_long_trip_that_loads_per_lane_gains_from_chunks_in_flight() {
        let p = looped_loading(40, true);
        let shape = innermost_loops(&p)[0];
        assert!(shape.loads_per_lane);
        assert!(chunks_in_flight_gain(&p));
    }

    #[test]
    fn a_body_without_a_loop_has_none() {
        let mut p = Program::new();
        let x = p.v();
        p.push(Op::Splat { d: x, bits: 0 });
        assert!(innermost_loops(&p).is_empty());
        assert!(!chunks_in_flight_gain(&p));
    }

    #[test]
    fn a_merge_under_a_mask_reads_its_destination() {
        let mut p = Program::new();
        let (acc, a) = (p.v(), p.v());
        let k: K = p.k();
        p.push(Op::AllLanes { d: k });
        p.push(Op::Splat { d: acc, bits: 0 });
        p.push(Op::Splat { d: a, bits: 0 });
        p.push(Op::Loop);
        p.push(Op::FmaMasked { d: acc, a, b: a, k });
        p.push(Op::WhileAny { k });
        // acc → acc through one merged FMA.
        assert_eq!(innermost_loops(&p)[0].recurrence, 4);
    }
}

//! Rows of a group in flight in a barrier kernel's region
//! (`super::regions`): the region's body eight times (a body with a loop;
//! then also four, for the rows left), four times, or two where more
//! would spill, for rows `y` to `y + 7` (`y + 3`…) of a group whose rows
//! are one chunk each, so that a loop
//! bound by one chunk's dependency chain (matmul's `acc += ta[ly][k] *
//! tb[k][lx]`, one FMA after another) gives the core several independent
//! chains, and the work the rows share is done once.
//!
//! A later copy's operations that read what differs between the rows (the
//! id of dimension 1 in rdi, the save area in r14) run between
//! [`EntryStep::NextRow`] and [`EntryStep::BackRow`]; the rows' chunks
//! have the same ids of dimension 0 and so the same running lanes.
//!
//! What is the same in every row is computed once, by the first copy
//! (`SameInEveryRow`): an operation none of whose inputs depends on the
//! row, through the id of dimension 1, a variable saved across a barrier
//! from a value that did, or a skipped stretch. Matmul's `tb[k][lx]` (`k`
//! counted alike in every row, `lx` reloaded from the save area where the
//! first region stored `get_local_id(0)`) is loaded once for the rows, and
//! `k`, its loop's masks and the running lanes are theirs too;
//! `ta[ly][k]` and `acc` are each row's own.
//!
//! Assumes the lowering's invariant that every write is masked by lanes
//! derived from the running lanes (so equal inputs give equal values in
//! the lanes that count), and that a load in a region that also stores to
//! memory may see another row's stores: such a region shares no load.

use super::entry::{has_checked_access, interleave, invariant_ops, loop_ops, Moves, Shared};
use super::ra2::{allocate_ra2, written, Allocated};
use super::{Arg, EntryStep, Op, Program, WideError};
use std::cell::RefCell;
use std::collections::HashSet;

/// Rows of a group a region runs in flight, the most first. Eight only
/// for a body with a loop (a loop bound by one chunk's chain needs eight
/// chains to keep both FMA units busy; a loop-free body gains little
/// over four and would double its copies' compile time).
const ROWS: [u32; 3] = [8, 4, 2];

/// Which save-area slots hold, in every region that stores them, a value
/// the same in every row.
pub(crate) struct SameInEveryRow {
    /// Offsets (in the save area) of slots whose value depends on the row.
    rowed_slots: HashSet<i32>,
}

/// The values and masks of one body that depend on the row.
struct Rowed {
    values: HashSet<u32>,
    masks: HashSet<u32>,
}

/// The values and masks `op` names, read or written.
fn named(op: &Op) -> (Vec<u32>, Vec<u32>) {
    let vs = RefCell::new(Vec::new());
    let ks = RefCell::new(Vec::new());
    op.map_regs(
        |v| {
            vs.borrow_mut().push(v.0);
            v
        },
        |k| {
            ks.borrow_mut().push(k.0);
            k
        },
    );
    (vs.into_inner(), ks.into_inner())
}

/// Whether `op` itself reads something of its row: the id of dimension 1,
/// a save-area slot that holds a row's own value, or, for a bounds-checked
/// access, the work-item a fault reports; or memory a store of the same
/// region may have changed (`stores`).
fn row_source(op: &Op, rowed_slots: &HashSet<i32>, stores: bool) -> bool {
    match op {
        Op::GlobalId { dim, .. } => *dim == 1,
        Op::Load {
            arg: Arg::Save,
            off,
            ..
        }
        | Op::Broadcast {
            arg: Arg::Save,
            off,
            ..
        } => rowed_slots.contains(off),
        Op::LoadElems { how, .. } | Op::LoadSum { how, .. } | Op::FmaSum { how, .. } => {
            stores || how.check.is_some()
        }
        _ => false,
    }
}

/// The values and masks of `body` that depend on the row, given the
/// save-area slots that do: a fixed point over the body (loops carry
/// values back), an operation's results depending on the row when it is a
/// [`row_source`] or names a value or mask that does (a merge names its
/// old value). Everything written in a skipped stretch (`IfAny` to its
/// `EndIf`) counts as the row's own: the copies run such a stretch whole,
/// one after the other, so the second could not read a shared value as
/// the first did.
fn rowed(body: &Program, rowed_slots: &HashSet<i32>) -> Rowed {
    let ops = body.ops();
    let stores = ops.iter().any(|op| matches!(op, Op::StoreElems { .. }));
    let mut r = Rowed {
        values: HashSet::new(),
        masks: HashSet::new(),
    };
    loop {
        let mut changed = false;
        let mut skipped = 0usize;
        for op in ops {
            match op {
                Op::IfAny { .. } => {
                    skipped += 1;
                    continue;
                }
                Op::EndIf => {
                    skipped = skipped.saturating_sub(1);
                    continue;
                }
                _ => {}
            }
            let (wv, wk) = written(op);
            if wv.is_empty() && wk.is_empty() {
                continue;
            }
            let (nv, nk) = named(op);
            let depends = skipped > 0
                || row_source(op, rowed_slots, stores)
                || nv.iter().any(|v| r.values.contains(v))
                || nk.iter().any(|k| r.masks.contains(k));
            if depends {
                for v in wv {
                    changed |= r.values.insert(v);
                }
                for k in wk {
                    changed |= r.masks.insert(k);
                }
            }
        }
        if !changed {
            return r;
        }
    }
}

impl SameInEveryRow {
    /// The slots of the regions `bodies` (one save area for all): a fixed
    /// point, since a slot one region stores may feed what another stores.
    pub(crate) fn of(bodies: &[Program]) -> SameInEveryRow {
        let mut rowed_slots = HashSet::new();
        loop {
            let mut changed = false;
            for body in bodies {
                let r = rowed(body, &rowed_slots);
                for op in body.ops() {
                    if let Op::Store {
                        a,
                        arg: Arg::Save,
                        off,
                    } = op
                    {
                        if r.values.contains(&a.0) {
                            changed |= rowed_slots.insert(*off);
                        }
                    }
                }
            }
            if !changed {
                return SameInEveryRow { rowed_slots };
            }
        }
    }
}

/// Whether `op` reads what differs between the rows: the id
/// of dimension 1 (rdi), the save area (r14) or, for a bounds-checked
/// access, the work-item a fault reports.
fn reads_row(op: &Op) -> bool {
    match op {
        Op::GlobalId { dim, .. } => *dim == 1,
        Op::Load { arg, .. } | Op::Broadcast { arg, .. } | Op::Store { arg, .. } => {
            *arg == Arg::Save
        }
        Op::LoadElems { how, .. } | Op::StoreElems { how, .. } => how.check.is_some(),
        _ => false,
    }
}

/// The body of a region with `rows` rows of the group in flight: `body`
/// `rows` times, the later copies' values and masks renumbered but for
/// those the same in every row (`same`), whose operations only the first
/// copy runs,
/// interleaved operation by operation (`entry::interleave`'s `zip`): a
/// later copy's operation then reads each shared value as the first
/// copy's did, since the first copy's operation, not being shared, wrote
/// none. Also returns how many of the body's loads the rows share.
pub(crate) fn rows_program(
    body: &Program,
    same: &SameInEveryRow,
    rows: u32,
) -> Result<(Program, usize), WideError> {
    let ops = body.ops();
    let (hoisted, inv) = invariant_ops(body);
    let (nv, nk) = body.numbered();
    let r = rowed(body, &same.rowed_slots);
    let mut out: Vec<Op> = ops
        .iter()
        .zip(&hoisted)
        .filter(|(_, h)| **h)
        .map(|(op, _)| op.clone())
        .collect();
    let rest: Vec<&Op> = ops
        .iter()
        .zip(&hoisted)
        .filter(|(_, h)| !**h)
        .map(|(op, _)| op)
        .collect();
    let mut shared = Shared {
        values: inv,
        ..Shared::default()
    };
    let all = |n: u32| 0..n;
    shared
        .values
        .extend(all(nv).filter(|v| !r.values.contains(v)));
    shared
        .masks
        .extend(all(nk).filter(|k| !r.masks.contains(k)));
    // An operation whose results are all shared runs once; stores and
    // control run in both copies.
    shared.skip = rest
        .iter()
        .map(|op| {
            let (wv, wk) = written(op);
            !(wv.is_empty() && wk.is_empty())
                && wv.iter().all(|v| shared.values.contains(v))
                && wk.iter().all(|k| shared.masks.contains(k))
        })
        .collect();
    let next_k = interleave(
        &rest,
        &shared,
        (nv, nk),
        rows,
        true,
        &Moves {
            reads: reads_row,
            to: |c| EntryStep::NextRow(c as i32),
            back: |c| EntryStep::BackRow(c as i32),
            lanes: false,
        },
        &mut out,
    )?;
    // A later row's stretch right after another's: one move between
    // them instead of back to the first row and out again.
    let mut merged: Vec<Op> = Vec::with_capacity(out.len());
    for op in out {
        match (merged.last(), &op) {
            (Some(Op::Entry(EntryStep::BackRow(a))), Op::Entry(EntryStep::NextRow(b))) => {
                let d = b - a;
                merged.pop();
                if d != 0 {
                    merged.push(Op::Entry(EntryStep::NextRow(d)));
                }
            }
            _ => merged.push(op),
        }
    }
    let out = merged;
    let loads = rest
        .iter()
        .zip(&shared.skip)
        .filter(|(op, skip)| {
            **skip
                && matches!(
                    op,
                    Op::LoadElems { .. } | Op::LoadSum { .. } | Op::FmaSum { .. }
                )
        })
        .count();
    Ok((Program::from_ops(out, nv * rows, next_k), loads))
}

/// A region's body with rows in flight.
pub(crate) struct InRows {
    /// Rows in flight.
    pub rows: u32,
    pub program: Program,
    pub alloc: Allocated,
    /// Loads of the body the rows share.
    pub shared_loads: usize,
}

/// Whether a loop of `body` sits inside a skipped stretch (`IfAny`):
/// the copies, interleaved operation by operation, run such a stretch
/// whole one after the other, which `entry::interleave` does only for
/// stretches without loop boundaries.
fn loop_under_if(body: &Program) -> bool {
    let mut skipped = 0usize;
    for op in body.ops() {
        match op {
            Op::IfAny { .. } => skipped += 1,
            Op::EndIf => skipped = skipped.saturating_sub(1),
            Op::Loop if skipped > 0 => return true,
            _ => {}
        }
    }
    false
}

/// The bodies of a region with rows in flight (eight, four or two:
/// [`ROWS`]) and their allocations, when no access is bounds-checked (the
/// rows' operations alternate one by one, so a fault of a later row could
/// be met before one of an earlier row), no loop sits in a skipped
/// stretch, and the copies add at most one spill or reload per 16
/// operations: inside the loops for a body with loops (the rule of two
/// chunks in flight, `entry::program_for`), in the whole body otherwise.
/// Empty for none; with eight rows, also the four-row body when it passes
/// (the rows a group has left, fewer than eight, run four at a time: a
/// group of 16 × 4, 16 × 12). Most rows first.
pub(crate) fn rows_for(
    body: &Program,
    single: &Allocated,
    same: &SameInEveryRow,
) -> Result<Vec<InRows>, WideError> {
    let mut tiers: Vec<InRows> = Vec::new();
    if has_checked_access(body) || loop_under_if(body) {
        return Ok(tiers);
    }
    let looped = body.ops().iter().any(|op| matches!(op, Op::Loop));
    for n in ROWS {
        if n == 8 && !looped {
            continue;
        }
        let (program, shared_loads) = rows_program(body, same, n)?;
        let alloc = allocate_ra2(&program)?;
        let ok = if looped {
            alloc.stack_moves_within(1) <= single.stack_moves_within(1) + loop_ops(&program, 0) / 16
        } else {
            alloc.stack_moves_within(0) <= single.stack_moves_within(0) + program.ops().len() / 16
        };
        if ok {
            tiers.push(InRows {
                rows: n,
                program,
                alloc,
                shared_loads,
            });
            if tiers[0].rows != 8 || tiers.len() == 2 {
                break;
            }
        } else if !tiers.is_empty() {
            break;
        }
    }
    Ok(tiers)
}

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
//! The same machinery runs full chunks of one row in flight
//! (`Along::Chunks`): three or two chunks 16 ids of dimension 0 apart,
//! for a region with a loop of a group whose rows are wider than a chunk
//! (nbody's 256 × 1), their operations that read the chunk's first id or
//! save area between [`EntryStep::NextChunk`] and
//! [`EntryStep::BackChunk`]; nbody's loop control and `tile[j]` are then
//! computed once for the chunks.
//!
//! Assumes the lowering's invariant that every write is masked by lanes
//! derived from the running lanes (so equal inputs give equal values in
//! the lanes that count), and that a load in a region that also stores to
//! memory may see another row's stores: such a region shares no load.

use super::access::Known;
use super::entry::{has_checked_access, interleave, invariant_ops, loop_ops, Moves, Shared};
use super::ra2::{allocate_ra2, written, Allocated};
use super::{Arg, Bin, EntryStep, Op, Program, WideError, V};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// What the copies of a region's body run over: rows of a group whose
/// rows are one chunk each, or full chunks of one row (a group whose rows
/// are wider than a chunk: nbody's 256 × 1), 16 ids of dimension 0 apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Along {
    Rows,
    Chunks,
}

/// Full chunks of a row a region with a loop runs in flight, the most
/// first: the copies share the loop's control and what the loop loads the
/// same in every chunk (nbody's `tile[j]`), and a loop bound by one
/// chunk's chain gets several. (Four: nbody's spilled 33 times in its
/// loop and ran slower than two.)
const CHUNKS: [u32; 2] = [3, 2];

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
    /// Slots whose value in one row is the previous row's plus a constant
    /// (`lower::LoweredRegions::row_steps`): the step.
    row_steps: HashMap<i32, i64>,
    along: Along,
    /// Bytes of one chunk's save area (the next row's is that far on);
    /// 0 when not known, and later rows then move r14 for every access.
    save_bytes: i32,
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
fn row_source(op: &Op, rowed_slots: &HashSet<i32>, stores: bool, along: Along) -> bool {
    match op {
        Op::GlobalId { dim, .. } => *dim == moving_dim(along),
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

/// The dimension whose id differs between the copies.
fn moving_dim(along: Along) -> u8 {
    match along {
        Along::Rows => 1,
        Along::Chunks => 0,
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
fn rowed(body: &Program, rowed_slots: &HashSet<i32>, along: Along) -> Rowed {
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
                || row_source(op, rowed_slots, stores, along)
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
    /// With the save area's `bytes` a chunk: a later row's save-area
    /// accesses address it at a displacement (`displaced_saves`).
    pub(crate) fn with_save_bytes(mut self, bytes: u32) -> SameInEveryRow {
        self.save_bytes = i32::try_from(bytes).unwrap_or(0);
        self
    }

    /// The slots of the regions `bodies` (one save area for all): a fixed
    /// point, since a slot one region stores may feed what another stores.
    /// `row_steps`: the slots' steps from one copy to the next
    /// (`LoweredRegions::row_steps` for rows, `chunk_steps` for chunks);
    /// along chunks, a slot of step 0 holds the same value in every
    /// chunk of a row whatever the bodies compute it from (nbody's
    /// `get_local_size(0)`, a division of the global id by the group's
    /// size, is the same in every chunk of the group).
    pub(crate) fn of(
        bodies: &[Program],
        row_steps: &HashMap<i32, i64>,
        along: Along,
    ) -> SameInEveryRow {
        let mut rowed_slots = HashSet::new();
        let same = |off: &i32| along == Along::Chunks && row_steps.get(off) == Some(&0);
        loop {
            let mut changed = false;
            for body in bodies {
                let r = rowed(body, &rowed_slots, along);
                for op in body.ops() {
                    if let Op::Store {
                        a,
                        arg: Arg::Save,
                        off,
                    } = op
                    {
                        if r.values.contains(&a.0) && !same(off) {
                            changed |= rowed_slots.insert(*off);
                        }
                    }
                }
            }
            if !changed {
                return SameInEveryRow {
                    rowed_slots,
                    row_steps: row_steps.clone(),
                    along,
                    save_bytes: 0,
                };
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

/// Whether `op` reads what differs between the chunks of a row: the
/// chunk's first id (r15: the ids of dimension 0, an access that may
/// address from it) or the save area (r14). The running lanes are all 16
/// in every chunk in flight (full chunks only).
fn reads_chunk(op: &Op) -> bool {
    match op {
        Op::GlobalId { dim, .. } => *dim == 0,
        Op::Load { arg, .. } | Op::Broadcast { arg, .. } | Op::Store { arg, .. } => {
            *arg == Arg::Save
        }
        Op::LoadElems { .. } | Op::StoreElems { .. } | Op::LoadSum { .. } | Op::FmaSum { .. } => {
            true
        }
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
) -> Result<(Program, usize, usize), WideError> {
    let ops = body.ops();
    let (hoisted, inv) = invariant_ops(body);
    let (nv, nk) = body.numbered();
    let r = rowed(body, &same.rowed_slots, same.along);
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
    let moves = match same.along {
        Along::Rows => Moves {
            reads: reads_row,
            to: |c| EntryStep::NextRow(c as i32),
            back: |c| EntryStep::BackRow(c as i32),
            lanes: false,
        },
        Along::Chunks => Moves {
            reads: reads_chunk,
            to: |c| EntryStep::NextChunk(c as i32),
            back: |c| EntryStep::BackChunk(c as i32),
            lanes: false,
        },
    };
    let next_k = interleave(&rest, &shared, (nv, nk), rows, true, &moves, &mut out)?;
    let mut fresh = nv * rows;
    // Along chunks, no part is displaced or stepped (the steps are of
    // dimension 1's ids, the save areas' displacements a row's); what
    // only a later copy read still goes.
    let (out, steps, stepped) = match same.along {
        Along::Rows => {
            let out = displaced_saves(out, same.save_bytes);
            let steps = row_steps(body, same, &r);
            let by_value = value_steps(body, &r, &steps);
            let (out, stepped) = shifted_row_indices(out, (&steps, &by_value), nv, &mut fresh);
            (out, steps, stepped)
        }
        Along::Chunks => (out, HashMap::new(), 0),
    };
    let out = affine_parts(out, &steps, nv);
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
            (Some(Op::Entry(EntryStep::BackChunk(a))), Op::Entry(EntryStep::NextChunk(b))) => {
                let d = b - a;
                merged.pop();
                if d != 0 {
                    merged.push(Op::Entry(EntryStep::NextChunk(d)));
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
    Ok((Program::from_ops(out, fresh, next_k), loads, stepped))
}

/// How much each value of `body` that depends on the row (`r`) grows
/// from one row to the next, modulo 2^32, where its form shows a constant
/// step: the id of dimension 1 by 1, a save-area slot by its
/// [`SameInEveryRow::row_steps`], sums, differences, and products and
/// left shifts by constants of such values and of values the same in
/// every row (step 0). A value written more than once takes the step all
/// its writes agree on (a fixed point: a loop's `x = x + c` keeps the
/// step it came in with); one written in a skipped stretch (`IfAny`,
/// which one row may run and the next skip) has none. Values absent have
/// none.
fn row_steps(body: &Program, same: &SameInEveryRow, r: &Rowed) -> HashMap<u32, i64> {
    let ops = body.ops();
    let mut writes: HashMap<u32, u32> = HashMap::new();
    for op in ops {
        for v in written(op).0 {
            *writes.entry(v).or_default() += 1;
        }
    }
    let mut consts: HashMap<u32, i64> = HashMap::new();
    for op in ops {
        if let Op::Splat { d, bits } = *op {
            if writes.get(&d.0) == Some(&1) {
                consts.insert(d.0, i64::from(bits as i32));
            }
        }
    }
    // `None` for a value with no constant step; absent: none seen yet.
    let mut st: HashMap<u32, Option<i64>> = HashMap::new();
    let bounded = |s: i64| (s.abs() < 1 << 31).then_some(s);
    loop {
        let mut changed = false;
        let mut skipped = 0usize;
        for op in ops {
            match op {
                Op::IfAny { .. } => skipped += 1,
                Op::EndIf => skipped = skipped.saturating_sub(1),
                _ => {}
            }
            let (wv, wk) = written(op);
            let rowed_out: Vec<u32> = wv.into_iter().filter(|v| r.values.contains(v)).collect();
            if rowed_out.is_empty() {
                continue;
            }
            // The step of an input: 0 when the same in every row; `None`
            // when none is known yet (`Some(None)`: none at all).
            let of = |v: V| -> Option<Option<i64>> {
                if r.values.contains(&v.0) {
                    st.get(&v.0).copied()
                } else {
                    Some(Some(0))
                }
            };
            let step: Option<Option<i64>> = match *op {
                // A skipped stretch runs in one row and not the next.
                _ if !wk.is_empty() || skipped > 0 => Some(None),
                Op::GlobalId { dim: 1, .. } => Some(Some(1)),
                Op::Load {
                    arg: Arg::Save,
                    off,
                    ..
                }
                | Op::Broadcast {
                    arg: Arg::Save,
                    off,
                    ..
                } => Some(same.row_steps.get(&off).copied()),
                Op::Copy { a, .. } => of(a),
                Op::Bin { op: bin, a, b, .. } => {
                    let (sa, sb) = (of(a), of(b));
                    let c = consts.get(&b.0).copied();
                    match bin {
                        Bin::IAdd | Bin::ISub => match (sa, sb) {
                            (Some(Some(x)), Some(Some(y))) => {
                                Some(bounded(if bin == Bin::IAdd { x + y } else { x - y }))
                            }
                            (Some(None), _) | (_, Some(None)) => Some(None),
                            _ => None,
                        },
                        Bin::IMul => match (sa, sb, consts.get(&a.0).copied(), c) {
                            (Some(Some(x)), _, _, Some(c)) | (_, Some(Some(x)), Some(c), _) => {
                                Some(x.checked_mul(c).and_then(bounded))
                            }
                            (None, _, _, Some(_)) | (_, None, Some(_), _) => None,
                            _ => Some(None),
                        },
                        Bin::Shl => match (sa, c) {
                            (Some(Some(x)), Some(c)) if (0..31).contains(&c) => {
                                Some(x.checked_mul(1 << c).and_then(bounded))
                            }
                            (None, Some(c)) if (0..31).contains(&c) => None,
                            _ => Some(None),
                        },
                        _ => Some(None),
                    }
                }
                _ => Some(None),
            };
            let Some(step) = step else { continue };
            for v in rowed_out {
                let new = match st.get(&v) {
                    None => step,
                    Some(old) if *old == step => continue,
                    Some(_) => None,
                };
                if st.get(&v) != Some(&new) {
                    st.insert(v, new);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    st.into_iter().filter_map(|(v, s)| Some((v, s?))).collect()
}

/// The loads of sums ([`Op::LoadSum`], [`Op::FmaSum`]) of the rows in
/// flight (`ops`, copies of a body of `nv` values: copy `c` numbers the
/// body's value `v` `v + c · nv`, `steps` the body's values' row steps)
/// whose part in a later row is the first row's plus a constant (matmul's
/// `ta[ly][k]`: `ly · 16`, 16 elements a row) read through the first
/// row's address plus that many bytes (`disp`): one frame slot for the
/// rows, read into r11 once, where each row had its own slot and read it
/// every time. The later rows' parts and what only they read are then
/// dropped (`drop_unread`). A step not known at compile time, or a
/// displacement past 2^24 bytes, keeps the row's own slot.
///
/// The parts are 32-bit lanes, sign-extended apart from the other part
/// of the index: as for the split itself (`lower::split_uniform_indices`),
/// only a row whose part wraps modulo 2^32 against the first row's (no
/// index an unchecked in-bounds access has) addresses differently.
fn affine_parts(ops: Vec<Op>, steps: &HashMap<u32, i64>, nv: u32) -> Vec<Op> {
    let mut unread: Vec<u32> = Vec::new();
    let ops: Vec<Op> = ops
        .into_iter()
        .map(|op| {
            let (Op::LoadSum { part, disp, .. } | Op::FmaSum { part, disp, .. }) = op else {
                return op;
            };
            let (c, first) = (part.0 / nv, part.0 % nv);
            let Some(step) = steps.get(&first).copied().filter(|_| c > 0 && nv > 0) else {
                return op;
            };
            let bytes = i64::from(c) * step * 4 + i64::from(disp);
            if bytes.abs() > 1 << 24 {
                return op;
            }
            unread.push(part.0);
            match op {
                Op::LoadSum {
                    d,
                    ptr,
                    idx,
                    k,
                    how,
                    ..
                } => Op::LoadSum {
                    d,
                    ptr,
                    idx,
                    part: V(first),
                    disp: bytes as i32,
                    k,
                    how,
                },
                Op::FmaSum {
                    d,
                    b,
                    ptr,
                    idx,
                    k,
                    how,
                    ..
                } => Op::FmaSum {
                    d,
                    b,
                    ptr,
                    idx,
                    part: V(first),
                    disp: bytes as i32,
                    k,
                    how,
                },
                op => op,
            }
        })
        .collect();
    // What the later rows' parts read may have had other readers that
    // are themselves unread (and a copy may load a saved variable it
    // never reads): every value is a candidate.
    let all: Vec<u32> = ops.iter().flat_map(|op| written(op).0).collect();
    unread.extend(all);
    drop_unread(ops, unread)
}

/// A later row's stretch (`NextRow(c)` … `BackRow(c)`) of save-area
/// accesses only (`Op::Load`, `Op::Broadcast`, `Op::Store` through
/// r14, matmul's accumulators loaded and stored, `$next` stored, per
/// row) as the same accesses at `c · save_bytes` bytes further, with no
/// move of rdi and r14 (two dependent `add`s a row each way, a chain
/// through r14 across the rows). Offsets past `i32` keep the moves.
fn displaced_saves(ops: Vec<Op>, save_bytes: i32) -> Vec<Op> {
    if save_bytes <= 0 {
        return ops;
    }
    let save_only = |op: &Op| {
        matches!(
            op,
            Op::Load { arg: Arg::Save, .. }
                | Op::Broadcast { arg: Arg::Save, .. }
                | Op::Store { arg: Arg::Save, .. }
        )
    };
    let mut out: Vec<Op> = Vec::with_capacity(ops.len());
    let mut i = 0;
    while i < ops.len() {
        if let Op::Entry(EntryStep::NextRow(c)) = ops[i] {
            let end = ops[i + 1..]
                .iter()
                .position(|op| matches!(op, Op::Entry(EntryStep::BackRow(_))))
                .map(|p| i + 1 + p);
            let inner = end.map(|e| &ops[i + 1..e]);
            let by = c.checked_mul(save_bytes);
            if let (Some(e), Some(inner), Some(by)) = (end, inner, by) {
                let moved = inner.iter().map(|op| {
                    let shifted = |off: i32| off.checked_add(by);
                    match *op {
                        Op::Load { d, arg, off } => {
                            shifted(off).map(|off| Op::Load { d, arg, off })
                        }
                        Op::Broadcast { d, arg, off } => {
                            shifted(off).map(|off| Op::Broadcast { d, arg, off })
                        }
                        Op::Store { a, arg, off } => {
                            shifted(off).map(|off| Op::Store { a, arg, off })
                        }
                        _ => None,
                    }
                });
                let moved: Option<Vec<Op>> = moved.collect();
                if let (Some(moved), true, true) = (
                    moved,
                    ops[e] == Op::Entry(EntryStep::BackRow(c)),
                    inner.iter().all(save_only),
                ) {
                    out.extend(moved);
                    i = e + 1;
                    continue;
                }
            }
        }
        out.push(ops[i].clone());
        i += 1;
    }
    out
}

/// Later rows' consecutive accesses (`Known::Offset`, `FromLane0`;
/// unchecked) whose index is the previous row's plus a step: a constant
/// number of elements (`steps`: matmul's staging stores `ta[ly][lx]`, 16
/// a row) or a constant times a value the same in every row (`by_value`:
/// its loads `a[row · n + t + lx]` and `b[(t + ly) · n + col]`, `n` a
/// row). The later row's index becomes the previous row's plus the step,
/// one `vpaddd` where it was the row's own arithmetic (`vpmulld`, two
/// `vpaddd`; the save area's `row` and `ly` reloaded per row), which
/// `drop_unread` then removes. A constant step is one value for the
/// rows, set before the body's other operations, and the emitter
/// (`ra2::shifted_values`, `access::emit_access`'s shift) addresses the
/// later row's access from the first row's lane 0 in r10 with a
/// displacement, no `vmovd`/`movsxd` of its own.
///
/// The lanes hold the values they held (the steps are modulo 2^32, as
/// the lanes hold the index), so every path of the access, its 32-bit
/// wrap test included, sees what it saw. Only an index written once, by
/// a pure operation, after the previous row's index, itself written once
/// (the copies' `ops`, value `v` of copy `c` numbered `v + c · nv`); new
/// values are numbered from `fresh`.
fn shifted_row_indices(
    ops: Vec<Op>,
    (steps, by_value): (&HashMap<u32, i64>, &HashMap<u32, (i64, u32)>),
    nv: u32,
    fresh: &mut u32,
) -> (Vec<Op>, usize) {
    if nv == 0 {
        return (ops, 0);
    }
    let mut writes: HashMap<u32, u32> = HashMap::new();
    for op in &ops {
        for v in written(op).0 {
            *writes.entry(v).or_default() += 1;
        }
    }
    let once = |v: u32| writes.get(&v) == Some(&1);
    // The step of a row's index from the previous row's.
    enum Step {
        Elems(i64),
        Times(i64, u32),
    }
    // Index value → (the previous row's value, the step).
    let mut chained: HashMap<u32, (u32, Step)> = HashMap::new();
    for op in &ops {
        let (Op::LoadElems { idx, how, .. } | Op::StoreElems { idx, how, .. }) = op else {
            continue;
        };
        let load = matches!(op, Op::LoadElems { .. });
        let (c, first) = (idx.0 / nv, idx.0 % nv);
        if c == 0
            || !how.consecutive
            || !matches!(how.known, Known::Offset | Known::FromLane0)
            || how.check.is_some()
            || (how.uniform && load)
            || !once(idx.0)
            || !once(idx.0 - nv)
        {
            continue;
        }
        let step = match (steps.get(&first), by_value.get(&first)) {
            (Some(&e), _) if e != 0 && e.unsigned_abs() <= MAX_ROW_SHIFT => Step::Elems(e),
            (None, Some(&(f, s))) => Step::Times(f, s),
            _ => continue,
        };
        chained.insert(idx.0, (idx.0 - nv, step));
    }
    if chained.is_empty() {
        return (ops, 0);
    }
    let mut stepped = 0usize;
    // The constant steps, one value each, before everything else.
    let mut consts: HashMap<i64, V> = HashMap::new();
    let mut out: Vec<Op> = Vec::with_capacity(ops.len() + chained.len());
    for (_, step) in chained.values() {
        if let Step::Elems(e) = *step {
            consts.entry(e).or_insert_with(|| {
                let k = V(*fresh);
                *fresh += 1;
                out.push(Op::Splat {
                    d: k,
                    bits: e as i32 as u32,
                });
                k
            });
        }
    }
    let mut seen: HashSet<u32> = HashSet::new();
    for op in ops {
        let (wv, wk) = written(&op);
        let target = match wv.as_slice() {
            [x] if wk.is_empty() && pure(&op) => chained.get(x).map(|t| (*x, t)),
            _ => None,
        };
        let Some((x, (prev, step))) = target.filter(|(_, (prev, _))| seen.contains(prev)) else {
            seen.extend(wv);
            out.push(op);
            continue;
        };
        let (bin, by) = match *step {
            Step::Elems(e) => (Bin::IAdd, consts[&e]),
            Step::Times(f, s) => {
                let (bin, f) = if f < 0 {
                    (Bin::ISub, -f)
                } else {
                    (Bin::IAdd, f)
                };
                if f == 1 {
                    (bin, V(s))
                } else {
                    let (k, t) = (V(*fresh), V(*fresh + 1));
                    *fresh += 2;
                    out.push(Op::Splat {
                        d: k,
                        bits: f as i32 as u32,
                    });
                    out.push(Op::Bin {
                        op: Bin::IMul,
                        d: t,
                        a: V(s),
                        b: k,
                    });
                    (bin, t)
                }
            }
        };
        out.push(Op::Bin {
            op: bin,
            d: V(x),
            a: V(*prev),
            b: by,
        });
        stepped += 1;
        seen.extend(wv);
    }
    (out, stepped)
}

/// The values of `body` depending on the row (`r`) whose step from one
/// row to the next is a constant times a value the same in every row
/// (matmul's `row · n + t + lx`, `(t + ly) · n + col`: `n`), modulo 2^32
/// as the lanes hold them: a product of a value with a constant step
/// (`steps`) and one the same in every row; sums and differences of such
/// steps of the same value and of values the same in every row;
/// copies; left shifts by constants. Only values written once, outside
/// skipped stretches, from such values, and a step's value written once.
/// The factor is bounded by 2^20.
fn value_steps(body: &Program, r: &Rowed, steps: &HashMap<u32, i64>) -> HashMap<u32, (i64, u32)> {
    let ops = body.ops();
    let mut writes: HashMap<u32, u32> = HashMap::new();
    let mut consts: HashMap<u32, i64> = HashMap::new();
    for op in ops {
        for v in written(op).0 {
            *writes.entry(v).or_default() += 1;
        }
    }
    for op in ops {
        if let Op::Splat { d, bits } = *op {
            if writes.get(&d.0) == Some(&1) {
                consts.insert(d.0, i64::from(bits as i32));
            }
        }
    }
    let rowed = |v: V| r.values.contains(&v.0);
    // A step's value: the same in every row, and written once, so that
    // wherever a later row's index reads it, it is the value each row's
    // own arithmetic read.
    let symbol = |v: V| !rowed(v) && writes.get(&v.0) == Some(&1);
    let bounded = |f: i64| (f != 0 && f.unsigned_abs() <= MAX_ROW_SHIFT).then_some(f);
    let mut out: HashMap<u32, (i64, u32)> = HashMap::new();
    let mut skipped = 0usize;
    for op in ops {
        match op {
            Op::IfAny { .. } => skipped += 1,
            Op::EndIf => skipped = skipped.saturating_sub(1),
            _ => {}
        }
        let (wv, wk) = written(op);
        let [d] = wv.as_slice() else { continue };
        if skipped > 0 || !wk.is_empty() || writes.get(d) != Some(&1) || !rowed(V(*d)) {
            continue;
        }
        // Of an input: `Some(Ok((f, s)))` a step of `f · s`, `Some(Err(c))`
        // a constant step (0 for a value the same in every row).
        let of = |v: V| -> Option<Result<(i64, u32), i64>> {
            if !rowed(v) {
                Some(Err(0))
            } else if let Some(&fs) = out.get(&v.0) {
                Some(Ok(fs))
            } else {
                steps.get(&v.0).map(|&c| Err(c))
            }
        };
        let step = match *op {
            Op::Copy { a, .. } => of(a).and_then(|x| x.ok()),
            Op::Bin { op: bin, a, b, .. } => match (bin, of(a), of(b)) {
                (Bin::IMul, Some(Err(c)), _)
                    if c != 0 && symbol(b) && !consts.contains_key(&b.0) =>
                {
                    bounded(c).map(|f| (f, b.0))
                }
                (Bin::IMul, _, Some(Err(c)))
                    if c != 0 && symbol(a) && !consts.contains_key(&a.0) =>
                {
                    bounded(c).map(|f| (f, a.0))
                }
                (Bin::IMul, Some(Ok((f, s))), _) => consts
                    .get(&b.0)
                    .and_then(|&c| f.checked_mul(c))
                    .and_then(bounded)
                    .map(|f| (f, s)),
                (Bin::IMul, _, Some(Ok((f, s)))) => consts
                    .get(&a.0)
                    .and_then(|&c| f.checked_mul(c))
                    .and_then(bounded)
                    .map(|f| (f, s)),
                (Bin::IAdd | Bin::ISub, Some(x), Some(y)) => {
                    let neg = bin == Bin::ISub;
                    match (x, y) {
                        (Ok(fs), Err(0)) => Some(fs),
                        (Err(0), Ok((f, s))) => bounded(if neg { -f } else { f }).map(|f| (f, s)),
                        (Ok((f, s)), Ok((g, t))) if s == t => {
                            bounded(if neg { f - g } else { f + g }).map(|f| (f, s))
                        }
                        _ => None,
                    }
                }
                (Bin::Shl, Some(Ok((f, s))), _) => consts
                    .get(&b.0)
                    .filter(|c| (0..31).contains(*c))
                    .and_then(|&c| f.checked_mul(1 << c))
                    .and_then(bounded)
                    .map(|f| (f, s)),
                _ => None,
            },
            _ => None,
        };
        if let Some(fs) = step {
            out.insert(*d, fs);
        }
    }
    out
}

/// The most elements a later row's index may lie past the first row's
/// for [`shifted_row_indices`] (`access`'s own bound on a shift).
const MAX_ROW_SHIFT: u64 = 1 << 20;

/// Whether `op` only computes the values it writes (no memory, no
/// control, no mask): one [`drop_unread`] may remove and
/// [`shifted_row_indices`] may replace.
fn pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Bin { .. }
            | Op::Copy { .. }
            | Op::Splat { .. }
            | Op::Load { .. }
            | Op::Broadcast { .. }
            | Op::GlobalId { .. }
            | Op::Convert { .. }
    )
}

/// `ops` without the operations that compute only values no one reads
/// any more, from `candidates` back through what only they read: each an
/// operation that writes one value and has no other effect (arithmetic,
/// a constant, a load from the save area or the arguments, an id), every
/// operation naming the value being one of them. Then a later row's
/// move of the entry's registers with nothing left between it and its
/// move back goes too.
fn drop_unread(ops: Vec<Op>, mut candidates: Vec<u32>) -> Vec<Op> {
    let mut gone = vec![false; ops.len()];
    let mut named_by: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        let (vs, _) = named(op);
        for v in vs {
            let at = named_by.entry(v).or_default();
            if at.last() != Some(&i) {
                at.push(i);
            }
        }
    }
    let mut done: HashSet<u32> = HashSet::new();
    while let Some(v) = candidates.pop() {
        if !done.insert(v) {
            continue;
        }
        let Some(at) = named_by.get(&v) else { continue };
        let live: Vec<usize> = at.iter().copied().filter(|&i| !gone[i]).collect();
        let dead = live.iter().all(|&i| {
            let (wv, wk) = written(&ops[i]);
            pure(&ops[i]) && wk.is_empty() && wv == [v]
        });
        if !dead {
            continue;
        }
        for i in live {
            gone[i] = true;
            let (vs, _) = named(&ops[i]);
            for x in vs {
                if x != v {
                    done.remove(&x);
                    candidates.push(x);
                }
            }
        }
    }
    let mut out: Vec<Op> = Vec::with_capacity(ops.len());
    for (op, g) in ops.into_iter().zip(gone) {
        if g {
            continue;
        }
        match (out.last(), &op) {
            (Some(Op::Entry(EntryStep::NextRow(a))), Op::Entry(EntryStep::BackRow(b)))
            | (Some(Op::Entry(EntryStep::NextChunk(a))), Op::Entry(EntryStep::BackChunk(b)))
                if a == b =>
            {
                out.pop();
            }
            _ => out.push(op),
        }
    }
    out
}

/// Whether the rows in flight of `program` (`rows` copies) all store one
/// value, the same in every row, to the save-area slot at `at` (a region
/// graph's `$next`, whose agreement the entry tests after each row's
/// chunk): one store per row, outside skipped stretches and loops, of one
/// value that nothing writes between the first and the last. The rows'
/// chunks have the same running lanes, so the rows' successors are then
/// the same values in the same lanes, and the first row's test decides
/// for all of them (a split found there is reported as before; after it
/// passes, the others' would).
pub(crate) fn one_successor(program: &Program, at: i32, rows: u32, save_bytes: u32) -> bool {
    let save_bytes = i32::try_from(save_bytes).unwrap_or(0);
    let mut row = 0i32;
    let mut depth = 0usize;
    let mut value: Option<V> = None;
    let mut stored: Vec<i32> = Vec::new();
    for op in program.ops() {
        match *op {
            Op::Entry(EntryStep::NextRow(n)) => row += n,
            Op::Entry(EntryStep::BackRow(n)) => row -= n,
            Op::IfAny { .. } | Op::IfEntry(_) | Op::Loop => depth += 1,
            Op::EndIf | Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                depth = depth.saturating_sub(1)
            }
            // A later row's store displaced by whole save areas
            // (`displaced_saves`).
            Op::Store {
                a,
                arg: Arg::Save,
                off,
            } if off == at
                || (save_bytes > 0
                    && off > at
                    && (off - at) % save_bytes == 0
                    && (off - at) / save_bytes < rows as i32) =>
            {
                let row = row
                    + if off == at {
                        0
                    } else {
                        (off - at) / save_bytes
                    };
                if depth > 0 || value.is_some_and(|v| v != a) || stored.contains(&row) {
                    return false;
                }
                value = Some(a);
                stored.push(row);
            }
            _ => {
                if let Some(v) = value {
                    // Written after a row stored it: the rows may differ.
                    if stored.len() < rows as usize && written(op).0.contains(&v.0) {
                        return false;
                    }
                }
            }
        }
    }
    stored.sort_unstable();
    stored == (0..rows as i32).collect::<Vec<_>>()
}

/// A region's body with rows in flight.
pub(crate) struct InRows {
    /// Rows in flight.
    pub rows: u32,
    pub program: Program,
    pub alloc: Allocated,
    /// Loads of the body the rows share.
    pub shared_loads: usize,
    /// Later rows' access indices taken as the previous row's plus a
    /// step (`shifted_row_indices`).
    pub stepped: usize,
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
///
/// Along chunks (`same`), only a body with a loop, three or else two full
/// chunks of a row ([`CHUNKS`]), at most one spill or reload per 8
/// operations inside the loops added; with three, also the two-chunk
/// body when it passes (a row of 32 work-items runs two chunks, one of
/// 80 three and then two).
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
    let counts: &[u32] = match same.along {
        Along::Rows => &ROWS,
        Along::Chunks if looped => &CHUNKS,
        Along::Chunks => &[],
    };
    for &n in counts {
        if n == 8 && !looped {
            continue;
        }
        let (program, shared_loads, stepped) = rows_program(body, same, n)?;
        let alloc = allocate_ra2(&program)?;
        // Chunks in flight may add one move per 8 operations of the
        // loops: they share the loop's control and its loads the same in
        // every chunk, and the moves such a tier adds are mostly reloads
        // of the chunks' invariants (nbody: three chunks, 14 moves in a
        // loop of about 130 operations, ran 7 % faster than two with none;
        // four, 33 moves, slower than two).
        let per = match same.along {
            Along::Rows => 16,
            Along::Chunks => 8,
        };
        let ok = if looped {
            alloc.stack_moves_within(1)
                <= single.stack_moves_within(1) + loop_ops(&program, 0) / per
        } else {
            alloc.stack_moves_within(0) <= single.stack_moves_within(0) + program.ops().len() / 16
        };
        if ok {
            tiers.push(InRows {
                rows: n,
                program,
                alloc,
                shared_loads,
                stepped,
            });
            let more = match same.along {
                Along::Rows => tiers[0].rows == 8,
                Along::Chunks => tiers[0].rows == 3,
            };
            if !more || tiers.len() == 2 {
                break;
            }
        } else if !tiers.is_empty() {
            break;
        }
    }
    Ok(tiers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(v: u32, off: i32) -> Op {
        Op::Store {
            a: V(v),
            arg: Arg::Save,
            off,
        }
    }

    fn row(c: i32, inner: Vec<Op>) -> Vec<Op> {
        let mut ops = vec![Op::Entry(EntryStep::NextRow(c))];
        ops.extend(inner);
        ops.push(Op::Entry(EntryStep::BackRow(c)));
        ops
    }

    #[test]
    fn a_later_rows_save_area_accesses_move_by_whole_save_areas() {
        let ops = row(
            2,
            vec![
                store(0, 64),
                Op::Load {
                    d: V(1),
                    arg: Arg::Save,
                    off: 128,
                },
            ],
        );
        assert_eq!(
            displaced_saves(ops, 704),
            vec![
                store(0, 64 + 2 * 704),
                Op::Load {
                    d: V(1),
                    arg: Arg::Save,
                    off: 128 + 2 * 704,
                },
            ]
        );
    }

    #[test]
    fn a_stretch_that_reads_the_rows_id_or_no_known_size_keeps_its_moves() {
        // The id of dimension 1 is the row's register: the stretch keeps
        // the move for it (and for its save-area access).
        let ops = row(1, vec![store(0, 64), Op::GlobalId { d: V(2), dim: 1 }]);
        assert_eq!(displaced_saves(ops.clone(), 704), ops);
        // An argument access is the same in every row, but only
        // save-area stretches move.
        let args = row(
            1,
            vec![Op::Load {
                d: V(1),
                arg: Arg::Args,
                off: 8,
            }],
        );
        assert_eq!(displaced_saves(args.clone(), 704), args);
        let ops = row(1, vec![store(0, 64)]);
        assert_eq!(displaced_saves(ops.clone(), 0), ops);
    }

    #[test]
    fn one_successor_needs_one_value_stored_by_every_row() {
        let (at, sb) = (640, 704u32);
        // Displaced stores of one value for rows 0..4.
        let one: Vec<Op> = (0..4).map(|c| store(7, at + c * sb as i32)).collect();
        assert!(one_successor(&Program::from_ops(one, 8, 0), at, 4, sb));
        // The same through the row moves.
        let mut moved = vec![store(7, at)];
        for c in 1..4 {
            moved.extend(row(c, vec![store(7, at)]));
        }
        assert!(one_successor(&Program::from_ops(moved, 8, 0), at, 4, sb));
        // A row's own value, a missing row, a store under a loop, or the
        // value written between the stores: each row keeps its test.
        let own: Vec<Op> = (0..4)
            .map(|c| store(7 + c as u32, at + c * sb as i32))
            .collect();
        assert!(!one_successor(&Program::from_ops(own, 16, 0), at, 4, sb));
        let three: Vec<Op> = (0..3).map(|c| store(7, at + c * sb as i32)).collect();
        assert!(!one_successor(&Program::from_ops(three, 8, 0), at, 4, sb));
        let mut looped = vec![Op::Loop];
        looped.extend((0..4).map(|c| store(7, at + c * sb as i32)));
        assert!(!one_successor(&Program::from_ops(looped, 8, 0), at, 4, sb));
        let mut rewritten = vec![store(7, at)];
        rewritten.push(Op::Splat { d: V(7), bits: 1 });
        rewritten.extend((1..4).map(|c| store(7, at + c * sb as i32)));
        assert!(!one_successor(
            &Program::from_ops(rewritten, 8, 0),
            at,
            4,
            sb
        ));
    }
}

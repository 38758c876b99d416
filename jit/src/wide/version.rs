//! A loop-free chunk body versioned on its clamps (`entry::entry_program`).
//!
//! A stencil clamps its neighbours' coordinates to the image
//! (`clamp(x + dx, 0, width - 1)`, conv5x5's 25 taps): an index through
//! such a clamp is not known consecutive, so each access tests its lanes
//! at run time (about 12 instructions a tap, `docs/wide.md`). Yet in all
//! but a row's first and last chunks every such clamp is its operand.
//! This pass finds the clamps `min(max(c, lo), hi)` and `max(min(c, hi),
//! lo)` (the lowering's `clamp` is the first) of a signed `c` that is the
//! global id of dimension 0, or that id plus a value fixed for the row,
//! with bounds fixed for the row, and makes a copy of the body in which
//! each such clamp is its operand `c`, every lane running. There the
//! accesses' indices are the id plus values of the row and constants, so
//! `entry::row_offsets` makes them plain `vmovups` from a row slot with
//! constant displacements.
//!
//! The entry runs that copy for a trip of chunks whose first id lies in a
//! range computed once per row (`EntryStep::RangeStart`, `RangeClamp`,
//! `RangeSlot`): where every lane of the trip runs, each clamp's operand
//! lies within its bounds in all the trip's lanes (in 64 bits: no lane
//! wraps), and no index of a row slot wraps its 32-bit lanes. Another
//! trip (a row's border chunks, its tail) runs the body as it is. Both
//! compute the same lanes: in the copy each removed clamp would have
//! returned its operand.
//!
//! Only a loop-free body without bounds checks is versioned: the chunks
//! in flight share a body's loops, and robust access's fault order is
//! left to the body as it is.

use super::entry::{
    drop_unread, has_checked_access, interleave, reads_chunk, row_invariant_ops, row_offsets,
    Moves, Shared,
};
use super::ra2::written;
use super::{Bin, EntryLoop, EntryStep, EntryTest, Op, Program, WideError, K, V};
use std::collections::{HashMap, HashSet};

/// A clamp made its operand in the versioned copy: the values (by
/// number, fixed for the row) its identity depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Clamp {
    /// The value added to the id in the operand (none: the id itself),
    /// or subtracted from it (`true`).
    pub off: Option<(u32, bool)>,
    pub lo: u32,
    pub hi: u32,
}

/// The copy of a body with its clamps taken as their operands.
pub(super) struct Versioned {
    /// Operations the copy computes once per row, before the row's
    /// chunks: pure operations of values fixed for the row that the body
    /// computes per chunk (through copies of variables, `yy * width`),
    /// their results numbered from the `next_v` given.
    pub row_ops: Vec<Op>,
    /// The values fixed for the row: `row_inv` and `row_ops`' results.
    pub row: HashSet<u32>,
    /// The body's operations (those not computed once per row), their
    /// reads of copied variables taken from the copies' sources, each
    /// clamp's outer `min`/`max` removed and its result renamed to the
    /// operand; the running lanes all 16.
    pub ops: Vec<Op>,
    /// The clamps removed, each once.
    pub clamps: Vec<Clamp>,
}

/// The mask of every lane that the loads [`Versioned::row_ops`] moves
/// out of the chunks read under; the caller sets and numbers it.
pub(super) const ROW_LANES: K = K(u32::MAX);

/// Clamps at most in one versioned body: each costs a few scalar
/// instructions per row.
const MAX_CLAMPS: usize = 16;

/// The values `op` reads and writes, each once (a merge reads what it
/// writes).
fn named(op: &Op) -> Vec<u32> {
    let names = std::cell::RefCell::new(Vec::new());
    op.map_regs(
        |v| {
            names.borrow_mut().push(v.0);
            v
        },
        |k| k,
    );
    names.into_inner()
}

/// `op` reading each value through `to` (a value `op` also writes is
/// left as it is).
fn reading(op: &Op, to: impl Fn(u32) -> Option<u32>) -> Op {
    let (wv, _) = written(op);
    op.map_regs(
        |v| {
            if wv.contains(&v.0) {
                v
            } else {
                to(v.0).map_or(v, V)
            }
        },
        |k| k,
    )
}

/// Whether `op` is a pure lane-wise operation of its reads, unmasked.
fn pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Bin { .. }
            | Op::Fma { .. }
            | Op::Fms { .. }
            | Op::Sqrt { .. }
            | Op::IntToFloat { .. }
            | Op::Convert { .. }
            | Op::Un { .. }
    )
}

/// The versioned copy of `rest` (a loop-free body's operations without
/// those fixed for the row, `row_inv` naming the values those compute),
/// when it has a clamp to take as its operand; new values from `next_v`.
pub(super) fn clamp_version(
    rest: &[&Op],
    row_inv: &HashSet<u32>,
    next_v: &mut u32,
) -> Option<Versioned> {
    let mut defs: HashMap<u32, usize> = HashMap::new();
    for op in rest {
        for v in written(op).0 {
            *defs.entry(v).or_default() += 1;
        }
    }
    let once = |v: u32| defs.get(&v) == Some(&1);
    // Reads of a variable through its last copy, where that copy's
    // source is written once (in a straight stretch: forgotten at a
    // region's edge); the values fixed for the row computed once per row.
    let mut alias: HashMap<u32, u32> = HashMap::new();
    // Values written once that moved to the row's prologue: their new
    // numbers, read so everywhere after (past a region's edge too).
    let mut moved: HashMap<u32, u32> = HashMap::new();
    let mut row: HashSet<u32> = row_inv.clone();
    let mut row_ops: Vec<Op> = Vec::new();
    let mut hoisted: Vec<(Op, u32)> = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    // The running lanes' masks, and whether a store or a region came
    // before: a weight's load (`weights[(dy + 2) * 5 + dx + 2]`) before
    // them reads the same element in every chunk of the call.
    let mut lanes: HashSet<u32> = HashSet::new();
    let mut stored = false;
    for op in rest {
        if op.ends_stretch() {
            alias.clear();
            stored = true;
        }
        match **op {
            Op::RunningLanes { d } => {
                lanes.insert(d.0);
            }
            Op::LoadElems { d, how, k, .. }
                if !stored
                    && how.uniform
                    && how.lane0
                    && how.check.is_none()
                    && how.constant.is_some()
                    && lanes.contains(&k.0)
                    && once(d.0) =>
            {
                // Loaded once per row instead, every lane running.
                let row_d = *next_v;
                *next_v += 1;
                row.insert(row_d);
                row_ops.push(op.map_regs(|v| if v == d { V(row_d) } else { v }, |_| ROW_LANES));
                moved.insert(d.0, row_d);
                continue;
            }
            Op::StoreElems { .. } => stored = true,
            _ => {}
        }
        let op = reading(op, |v| moved.get(&v).or(alias.get(&v)).copied());
        let (wv, _) = written(&op);
        for w in &wv {
            alias.remove(w);
        }
        match op {
            Op::Copy { d, a } if once(a.0) || row.contains(&a.0) => {
                alias.insert(d.0, a.0);
            }
            ref op
                if pure(op)
                    && wv.len() == 1
                    && once(wv[0])
                    && named(op).iter().skip(1).all(|x| row.contains(x)) =>
            {
                // The same operation of the same values once (the
                // lowering computes `yy * width` again every few taps).
                let key = op.map_regs(|v| if v.0 == wv[0] { V(u32::MAX) } else { v }, |k| k);
                let d = match hoisted.iter().find(|(k, _)| *k == key) {
                    Some(&(_, d)) => d,
                    None => {
                        let d = *next_v;
                        *next_v += 1;
                        row.insert(d);
                        row_ops.push(op.map_regs(|v| if v.0 == wv[0] { V(d) } else { v }, |k| k));
                        hoisted.push((key, d));
                        d
                    }
                };
                moved.insert(wv[0], d);
                continue;
            }
            _ => {}
        }
        ops.push(op);
    }
    let rv = |v: V| row.contains(&v.0);
    let once = |v: V| defs.get(&v.0) == Some(&1);
    // Value → what it adds to (or subtracts from) the id of dimension 0.
    let mut offs: HashMap<u32, Option<(u32, bool)>> = HashMap::new();
    // An inner `max(c, lo)` or `min(c, hi)`: value → (is a max, c, bound).
    let mut inner: HashMap<u32, (bool, V, V)> = HashMap::new();
    // The outer operation's index → (its result, the operand c).
    let mut renamed: HashMap<usize, (V, V)> = HashMap::new();
    let mut clamps: Vec<Clamp> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let &Op::Bin { op: bin, d, a, b } = op else {
            if let Op::GlobalId { d, dim: 0 } = *op {
                if once(d) {
                    offs.insert(d.0, None);
                }
            }
            continue;
        };
        if !once(d) {
            continue;
        }
        // The operand first, the other (fixed for the row) second.
        let ordered = |is: &dyn Fn(V) -> bool| {
            if is(a) && rv(b) {
                Some((a, b))
            } else if is(b) && rv(a) {
                Some((b, a))
            } else {
                None
            }
        };
        let is_id = |v: V| offs.get(&v.0) == Some(&None);
        let consecutive = |v: V| offs.contains_key(&v.0);
        match bin {
            Bin::IAdd => {
                if let Some((_, u)) = ordered(&is_id) {
                    offs.insert(d.0, Some((u.0, false)));
                }
            }
            Bin::ISub if is_id(a) && rv(b) => {
                offs.insert(d.0, Some((b.0, true)));
            }
            Bin::IMaxS | Bin::IMinS => {
                let max = bin == Bin::IMaxS;
                let inner_of = |v: V| inner.get(&v.0).is_some_and(|&(m, _, _)| m != max);
                if let Some((t, bound)) = ordered(&inner_of) {
                    let (_, c, other) = inner[&t.0];
                    let (lo, hi) = if max { (bound, other) } else { (other, bound) };
                    let clamp = Clamp {
                        off: offs[&c.0],
                        lo: lo.0,
                        hi: hi.0,
                    };
                    if !clamps.contains(&clamp) {
                        if clamps.len() == MAX_CLAMPS {
                            continue;
                        }
                        clamps.push(clamp);
                    }
                    renamed.insert(i, (d, c));
                } else if let Some((c, bound)) = ordered(&consecutive) {
                    inner.insert(d.0, (max, c, bound));
                }
            }
            _ => {}
        }
    }
    if clamps.is_empty() {
        return None;
    }
    let names: HashMap<u32, V> = renamed.values().map(|&(d, c)| (d.0, c)).collect();
    let mut ops: Vec<Op> = ops
        .iter()
        .enumerate()
        .filter(|(i, _)| !renamed.contains_key(i))
        .map(|(_, op)| match *op {
            Op::RunningLanes { d } => Op::AllLanes { d },
            ref op => op.map_regs(|v| names.get(&v.0).copied().unwrap_or(v), |k| k),
        })
        .collect();
    // The copies into variables nothing reads any more.
    loop {
        let mut reads: HashMap<u32, usize> = HashMap::new();
        for op in &ops {
            let (wv, _) = written(op);
            for x in named(op) {
                if !wv.contains(&x)
                    || matches!(
                        op,
                        Op::BinMasked { .. } | Op::FmaMasked { .. } | Op::FmaDMasked { .. }
                    )
                {
                    *reads.entry(x).or_default() += 1;
                }
            }
        }
        let before = ops.len();
        ops.retain(|op| !matches!(op, Op::Copy { d, .. } if !reads.contains_key(&d.0)));
        if ops.len() == before {
            break;
        }
    }
    Some(Versioned {
        row_ops,
        row,
        ops,
        clamps,
    })
}

/// The rest of `entry::entry_program` for a loop-free body without bounds
/// checks that this module versions on its clamps: `out` the
/// program up to the row's values, `rest` the body's operations run per
/// chunk. Each row then sets its slots (the versioned copy's row offsets,
/// the clamps' values) and its range of first ids
/// ([`EntryStep::RangeStart`]), and its chunk loop runs each trip of
/// `in_flight` chunks either in the versioned copy (the first id within
/// the range, [`EntryTest::Within`]; the copies one after the other,
/// which keeps each chunk's row base in r10 from tap to tap) or as the
/// body is, each chunk with its running lanes ([`EntryTest::Outside`];
/// alternating operation by operation with `zip`).
pub(super) fn versioned_program(
    body: &Program,
    v: Versioned,
    (mut out, rest): (Vec<Op>, Vec<&Op>),
    mut next_v: u32,
    in_flight: u32,
    zip: bool,
) -> Result<Program, WideError> {
    let row_inv = &v.row;
    let (nv, nk) = body.numbered();
    // The row's own mask (its loads'), numbered past the body's copies:
    // `2 * nk * in_flight` and more for the copies' masks (no `KOr` in a
    // loop-free body).
    let row_k = K(2 * nk * in_flight + 1);
    if v.row_ops
        .iter()
        .any(|op| matches!(op, Op::LoadElems { .. }))
    {
        out.push(Op::AllLanes { d: row_k });
    }
    out.extend(v.row_ops.iter().map(|op| {
        op.map_regs(
            |x| x,
            |k| {
                if k == ROW_LANES {
                    row_k
                } else {
                    k
                }
            },
        )
    }));
    let items = 16 * in_flight as i32;
    let mut fast = v.ops.clone();
    // The body's integer constants: a displacement in a row offset.
    let consts = super::entry::row_constants(body, row_inv);
    let (adds, slots) = row_offsets(
        &mut fast,
        row_inv,
        Some(&consts),
        VERSIONED_ROW_SLOTS,
        &mut next_v,
    );
    drop_unread(&mut fast);
    out.extend(adds);
    let mut lane0: Vec<u32> = Vec::new();
    let slot_of = |x: u32, lane0: &mut Vec<u32>| -> u8 {
        let n = lane0.iter().position(|&y| y == x).unwrap_or_else(|| {
            lane0.push(x);
            lane0.len() - 1
        });
        n as u8
    };
    for &(u, _, _) in &slots {
        // Each slot its own, even of a value another shares.
        lane0.push(u);
    }
    let clamps: Vec<(Option<(u8, bool)>, u8, u8)> = v
        .clamps
        .iter()
        .map(|c| {
            (
                c.off.map(|(x, sub)| (slot_of(x, &mut lane0), sub)),
                slot_of(c.lo, &mut lane0),
                slot_of(c.hi, &mut lane0),
            )
        })
        .collect();
    let at = lane0.len() as u8;
    for (slot, &a) in lane0.iter().enumerate() {
        out.push(Op::RowLane0 {
            a: V(a),
            slot: slot as u8,
        });
    }
    out.push(Op::Entry(EntryStep::RangeStart { at, items }));
    for (off, lo, hi) in clamps {
        out.push(Op::Entry(EntryStep::RangeClamp {
            at,
            off,
            lo,
            hi,
            items,
        }));
    }
    for (slot, &(_, dmin, dmax)) in slots.iter().enumerate() {
        out.push(Op::Entry(EntryStep::RangeSlot {
            at,
            slot: slot as u8,
            dmin,
            dmax,
            items,
        }));
    }
    let chunk_moves = |lanes: bool| Moves {
        reads: reads_chunk,
        to: |c| EntryStep::Shift(16 * c as i32),
        back: |c| EntryStep::Shift(-16 * c as i32),
        lanes,
    };
    let shared = Shared {
        values: row_inv.clone(),
        ..Shared::default()
    };
    let mut general = Vec::new();
    let general_k = interleave(
        &rest,
        &shared,
        (nv, nk),
        in_flight,
        zip,
        &chunk_moves(true),
        &mut general,
    )?;
    let fast_refs: Vec<&Op> = fast.iter().collect();
    let mut copies = Vec::new();
    let fast_k = interleave(
        &fast_refs,
        &shared,
        (nv, nk),
        in_flight,
        false,
        &chunk_moves(false),
        &mut copies,
    )?;
    let fast_v = nv * in_flight;
    out.extend([Op::Loop, Op::IfEntry(EntryTest::Within { at })]);
    out.extend(copies.iter().map(|op| {
        op.map_regs(
            |v| {
                if row_inv.contains(&v.0) {
                    v
                } else {
                    V(v.0 + fast_v)
                }
            },
            |k| K(k.0 + general_k),
        )
    }));
    out.extend([Op::EndIf, Op::IfEntry(EntryTest::Outside { at })]);
    out.extend(general);
    out.extend([
        Op::EndIf,
        Op::WhileEntry(EntryLoop::Chunks { step: items }),
        Op::WhileEntry(EntryLoop::Rows),
        Op::WhileEntry(EntryLoop::Planes),
        Op::WhileEntry(EntryLoop::Groups),
    ]);
    if general_k + fast_k > row_k.0 {
        return Err(WideError::Malformed("a row mask among the chunks'".into()));
    }
    Ok(Program::from_ops(out, next_v, row_k.0 + 1))
}

/// Whether `entry::entry_program` versions `body` on its clamps
/// (this module's copy): its chunks then run in one loop over the row,
/// the interior ones in the versioned copy, every lane running, the
/// others with their running lanes.
pub(super) fn versionable(body: &Program) -> bool {
    if has_checked_access(body) || body.ops().contains(&Op::Loop) {
        return false;
    }
    let (per_row, row_inv) = row_invariant_ops(body);
    let rest: Vec<&Op> = body
        .ops()
        .iter()
        .zip(&per_row)
        .filter(|(_, &r)| !r)
        .map(|(op, _)| op)
        .collect();
    let mut next_v = u32::MAX / 2;
    clamp_version(&rest, &row_inv, &mut next_v).is_some()
}

/// Row slots at most of a versioned body's row offsets
/// ([`versioned_program`]): each costs a few scalar instructions per row.
const VERSIONED_ROW_SLOTS: usize = 8;

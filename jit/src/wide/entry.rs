//! A kernel entry around a chunk body: the function the runtime calls
//! (`crate::abi`'s signature). The body ([`Program`], from
//! [`super::lower`]) and the loops around it, over the work-groups of the
//! call, the rows of each group and the chunks of 16 work-items of each
//! row, are one program (`entry_program`) allocated by `regalloc2`: the
//! values the same in every chunk (constants, kernel arguments, launch
//! sizes and what is computed from them alone) are computed once, before
//! the loops, and stay in registers across chunks (or in spill slots,
//! where the allocator must). The loops' own code is scalar
//! ([`EntryStep`], [`EntryLoop`], emitted by `entry_code`).
//!
//! A body with a loop (bound by the latency of its dependency chain, as
//! mandelbrot's) runs four or two chunks in flight when that costs few
//! spills: the body four or two times, interleaved between its loop
//! boundaries (`entry_program`); so does a long loop-free body without
//! bounds checks (Black-Scholes), the chunks' operations alternating one
//! by one. Under robust access, a body whose every tested access is
//! `x[get_global_id(0)]` gets both: the tested body one chunk at a time,
//! and the body without tests, chunks in flight, which a call runs
//! when the launch's ids of dimension 0 index inside every checked buffer
//! (one compare pair per buffer and call); a launch that may fault runs
//! the tested body, whose report is that of the chunks in order.
//!
//! A row's full chunks run in a loop of their own with every lane running
//! (no mask computed or tested; `entry_program`), values of the row's ids
//! computed once per row; the rest of the row, its tail chunk, runs with a
//! k-mask of its running lanes (`RunningLanes`, from edx): no Cranelift
//! code is involved for tails.
//! A launch whose global ids do not fit in 31 bits (offset + size in some
//! dimension past `i32::MAX - 16`) goes to the `fallback` entry (the
//! Cranelift code of the same kernel) before anything is touched, with the
//! caller's arguments unchanged: the body keeps ids and 64-bit indices as
//! 32-bit lanes.
//!
//! Registers (the body may use rax, r10, r11, zmm0–31 and k0–k7 only):
//! rbx the argument block, r12 the `Launch`, r13 the group, r14 the end
//! group, rbp the group's first id of dimension 0, rsi its end, r15 the
//! chunk's first id, rdi the row's id of dimension 1 and r8 its end, r9 the
//! id of dimension 2 and rcx its end, edx the chunk's running lanes (rdx,
//! in the full chunks' loop, the last first id a trip may start at); the
//! group's first id of dimension 1 and its coordinates are kept above the
//! spill slots (the coordinates step with a carry from group to group:
//! two divisions per call, none per group). The launch's
//! stop flag is read after each row and at every back edge of the body's
//! loops; when set the entry returns `KernelStatus::Cancelled`.
//!
//! Facts fixed for the whole call are computed once, before the group
//! loop, into the frame (`access::EntryFrame`): whether the launch
//! is large enough for streaming stores, and under robust access each
//! checked parameter's valid indices. An entry whose stores may stream
//! ends with `sfence`.

use super::access::{
    byte_index_bounds, emit_cold, index_bounds, launch_flags, Base, EntryFrame, Known,
};
use super::emit::{asm_err, assemble_and_map, ConstPool};
use super::ra2::{
    allocate_ra2_pooled, emit_allocated_pooled, written, Allocated, EmitAt, EntryCode,
};
use super::spread::{Spread, StrideParam, SPREAD_BYTES};
use super::{Arg, Bin, EntryLoop, EntryStep, EntryTest, Op, Program, WideError, K, V};
use crate::abi::{checked_offsets as co, launch_offsets as lo, KernelStatus, Launch};
use iced_x86::code_asm::*;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// The entry's signature (`crate::abi`).
pub type KernelEntry =
    unsafe extern "C" fn(*const u8, *const Launch, u64, u64, *mut u8, *mut u8) -> u32;

/// The largest `global_offset + global_size` of a dimension the entry runs
/// itself: every id of a chunk (up to 15 past the last work-item) fits in
/// a signed 32-bit lane.
pub const MAX_ID_END: u64 = i32::MAX as u64 - 16;

/// A compiled kernel entry.
pub struct KernelCode {
    pub(super) _memory: super::arena::CodeMemory,
    pub(super) entry: KernelEntry,
    /// Bytes of machine code.
    pub size: usize,
    /// Spill slots (8 bytes) of the body's frame.
    pub spill_slots: usize,
    /// Operations of the entry's program (the body's, twice with two
    /// chunks in flight, and the loops').
    pub ops: usize,
    /// Chunks of 16 work-items each trip of the chunk loop runs (1 or 2).
    pub chunks_in_flight: usize,
    /// Under robust access, 2 when a launch whose ids of dimension 0 index
    /// inside every checked buffer runs the body without its tests, two
    /// chunks in flight (`checks_follow_the_id`); 0 otherwise.
    pub proven_in_flight: usize,
    /// The widest group (in dimension 0) that runs one chunk at a time
    /// beside the chunks in flight (`narrow_rows`), 0 when none does.
    pub narrow_rows: usize,
    /// Values computed once per call instead of once per chunk.
    pub invariant: usize,
    /// Values computed once per row (of the row's ids) instead of once
    /// per chunk.
    pub row_invariant: usize,
    /// Clamps whose operand lies within their bounds in the interior
    /// chunks of a row, where a version of the body takes them as their
    /// operand (`super::version`); 0 when the body is not versioned.
    pub versioned_clamps: usize,
    /// Row slots: accesses by the id plus a value fixed for the row
    /// address from the chunk's first id plus the slot (`Known::RowOffset`).
    pub row_slots: usize,
    /// Time of allocation, assembly and mapping.
    pub compile_time: Duration,
    /// Accesses of the body: bounds-checked, streaming stores, prefetched
    /// loads (`super::access`).
    pub memory: MemoryCounts,
    /// The bound on `offset + size` past which a launch runs the fallback
    /// ([`EntryOptions::id_end`]).
    pub id_end: u64,
    /// A loop's per-lane accesses lie pages apart: one chunk at a time
    /// (`super::spread`).
    pub spread_fixed: bool,
    /// Parameters that may put a loop's per-lane accesses pages apart,
    /// tested at each call, which then runs one chunk at a time; 0 when
    /// none is (`super::spread`).
    pub spread_tests: usize,
}

/// How many accesses of a body are bounds-checked, stream and prefetch,
/// and how many constants its code reads from memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryCounts {
    pub checked: usize,
    pub streaming: usize,
    pub prefetched: usize,
    /// Accesses of one-byte elements (`access::Access::byte`).
    pub bytes: usize,
    /// Constants read as broadcast memory operands from the code's pool.
    pub constants: usize,
}

impl std::fmt::Debug for KernelCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelCode")
            .field("size", &self.size)
            .field("spill_slots", &self.spill_slots)
            .finish()
    }
}

impl KernelCode {
    /// How the chunk loop runs, for `--explain`: the values kept across
    /// chunks and the chunks in flight.
    pub fn loop_note(&self) -> String {
        let mut note = format!(
            "; chunk loop allocated with the body, {} values computed once per call",
            self.invariant
        );
        if self.row_invariant > 0 {
            note += &format!("; {} once per row", self.row_invariant);
        }
        if self.row_slots > 0 {
            note += &format!(
                "; {} row offsets addressed from the chunk's first id",
                self.row_slots
            );
        }
        if self.versioned_clamps > 0 {
            note += &format!(
                "; {} clamps versioned: a row's interior chunks run a copy of the body that takes them as their operand",
                self.versioned_clamps
            );
        }
        if self.memory.constants > 0 {
            note += &format!(
                "; {} constants read as broadcast memory operands",
                self.memory.constants
            );
        }
        if self.chunks_in_flight > 1 {
            note += &format!("; {} chunks in flight", self.chunks_in_flight);
        }
        if self.narrow_rows > 0 {
            note += &format!(
                "; one at a time in groups at most {} wide",
                self.narrow_rows
            );
        }
        if self.spread_fixed {
            note += &format!(
                "; one chunk at a time: a loop's per-lane accesses lie {SPREAD_BYTES} bytes or more apart"
            );
        }
        if self.spread_tests > 0 {
            note += &format!(
                "; one chunk at a time for the calls whose parameters put a loop's per-lane accesses {SPREAD_BYTES} bytes or more apart ({} tested)",
                self.spread_tests
            );
        }
        if self.proven_in_flight > 1 {
            note += &format!(
                "; {} chunks in flight untested when the launch's ids index inside every checked buffer",
                self.proven_in_flight
            );
        }
        note
    }

    /// The entry, with the signature and contract of `crate::abi`.
    pub fn entry(&self) -> KernelEntry {
        self.entry
    }

    /// The machine code (and the constant pool after it): from the entry,
    /// which need not be the mapping's first byte.
    pub fn bytes(&self) -> &[u8] {
        let at = self.entry as usize - self._memory.as_ptr() as usize;
        &self._memory[at..at + self.size]
    }
}

/// `d = min(start + [r12 + size_at], [r12 + offset_at] + [r12 + global_at])`
/// with `start` in `d` already.
pub(super) fn range_end(
    a: &mut CodeAssembler,
    d: AsmRegister64,
    local_at: i32,
    offset_at: i32,
    global_at: i32,
) -> Result<(), IcedError> {
    a.mov(r10, d)?;
    a.add(r10, qword_ptr(r12 + local_at))?;
    a.mov(r11, qword_ptr(r12 + offset_at))?;
    a.add(r11, qword_ptr(r12 + global_at))?;
    a.mov(d, r10)?;
    a.cmp(d, r11)?;
    a.cmova(d, r11)?;
    Ok(())
}

/// What the entry needs besides the body.
#[derive(Clone, Debug)]
pub struct EntryOptions {
    /// `JitOptions::stream_min_items`: launches of at least this many
    /// work-items stream the stores that may.
    pub stream_min_items: u64,
    /// Robust access: the offset of the checked tail in the argument block.
    pub checked_tail: Option<u32>,
    /// 0, or the dimension (1 or 2) whose work-items the lanes step along
    /// in a copy compiled for such launches (`lane_axis`): the launch's
    /// dimensions 0 and this one come exchanged, and a fault reports the
    /// launch's own ids.
    pub lanes_along: usize,
    /// The bound on `offset + size` in every dimension of the launches
    /// the wide code runs (`int64::launch_end`: [`MAX_ID_END`] unless the
    /// kernel's 64-bit arithmetic needs a smaller one); the others run
    /// the fallback.
    pub id_end: u64,
    /// The loops' per-lane accesses whose lanes may lie pages apart
    /// (`super::spread`): one chunk at a time where they do.
    pub spread: Spread,
}

/// The parameters (with their argument slots) whose bounds the body's
/// accesses test, and the counts of its accesses.
fn memory_facts(body: &Program) -> (Vec<(u32, i32)>, MemoryCounts) {
    let mut checked: Vec<(u32, i32)> = Vec::new();
    let mut n = MemoryCounts::default();
    for op in body.ops() {
        let (ptr, how) = match op {
            Op::LoadElems { ptr, how, .. } | Op::StoreElems { ptr, how, .. } => (*ptr, how),
            _ => continue,
        };
        n.streaming += usize::from(how.stream);
        n.prefetched += usize::from(how.prefetch);
        n.bytes += usize::from(how.byte.is_some());
        if let Some(c) = how.check {
            n.checked += 1;
            if !checked.iter().any(|(p, _)| *p == c.param) {
                checked.push((c.param, ptr));
            }
        }
    }
    (checked, n)
}

/// Emits a piece of the entry's own code inside its program
/// ([`EntryCode`]): the frame keeps the group's first id of dimension 1 at
/// `[rsp + y_start_at]` and its coordinates at `g_at`, and `rows.1` row
/// slots (`Op::RowLane0`) from `rows.0`; `cancelled` is where a set stop
/// flag goes.
fn entry_code(
    a: &mut CodeAssembler,
    code: EntryCode,
    y_start_at: i32,
    g_at: [i32; 3],
    rows: (i32, usize, &[(u8, i32)]),
    cancelled: CodeLabel,
) -> Result<(), IcedError> {
    let q = 8;
    let slot = |n: u8| rows.0 + 8 * i32::from(n);
    // The range's bound at `[rsp + at]` raised (`low`) or lowered to rax.
    let narrow = |a: &mut CodeAssembler, at: i32, low: bool| -> Result<(), IcedError> {
        a.cmp(rax, qword_ptr(rsp + at))?;
        if low {
            a.cmovl(rax, qword_ptr(rsp + at))?;
        } else {
            a.cmovg(rax, qword_ptr(rsp + at))?;
        }
        a.mov(qword_ptr(rsp + at), rax)
    };
    match code {
        EntryCode::Step(EntryStep::Group) => {
            a.mov(rbp, qword_ptr(rsp + g_at[0]))?;
            a.mov(rdx, qword_ptr(rsp + g_at[1]))?;
            // Dimension 2: ids [r9, rcx).
            a.mov(r9, qword_ptr(rsp + g_at[2]))?;
            a.imul_2(r9, qword_ptr(r12 + (lo::LOCAL_SIZE + 2 * q)))?;
            a.add(r9, qword_ptr(r12 + (lo::GLOBAL_OFFSET + 2 * q)))?;
            a.mov(rcx, r9)?;
            range_end(
                a,
                rcx,
                lo::LOCAL_SIZE + 2 * q,
                lo::GLOBAL_OFFSET + 2 * q,
                lo::GLOBAL_SIZE + 2 * q,
            )?;
            // Dimension 1: ids from [rsp + y_start_at] to r8.
            a.mov(r8, rdx)?;
            a.imul_2(r8, qword_ptr(r12 + (lo::LOCAL_SIZE + q)))?;
            a.add(r8, qword_ptr(r12 + (lo::GLOBAL_OFFSET + q)))?;
            a.mov(qword_ptr(rsp + y_start_at), r8)?;
            range_end(
                a,
                r8,
                lo::LOCAL_SIZE + q,
                lo::GLOBAL_OFFSET + q,
                lo::GLOBAL_SIZE + q,
            )?;
            // Dimension 0: ids [rbp, rsi).
            a.imul_2(rbp, qword_ptr(r12 + lo::LOCAL_SIZE))?;
            a.add(rbp, qword_ptr(r12 + lo::GLOBAL_OFFSET))?;
            a.mov(rsi, rbp)?;
            range_end(a, rsi, lo::LOCAL_SIZE, lo::GLOBAL_OFFSET, lo::GLOBAL_SIZE)?;
        }
        EntryCode::Step(EntryStep::Plane) => a.mov(rdi, qword_ptr(rsp + y_start_at))?,
        EntryCode::Step(EntryStep::Row) => a.mov(r15, rbp)?,
        EntryCode::Step(EntryStep::Lanes) => {
            // edx = the low max(0, min(rest, 16)) bits, without a branch.
            a.mov(rax, rsi)?;
            a.sub(rax, r15)?;
            a.xor(r10d, r10d)?;
            a.cmp(rax, r10)?;
            a.cmovl(rax, r10)?;
            a.mov(r10d, 16)?;
            a.cmp(rax, r10)?;
            a.cmovb(r10, rax)?;
            a.mov(edx, 0xffff)?;
            a.bzhi(edx, edx, r10d)?;
        }
        EntryCode::Step(EntryStep::Shift(n)) => a.add(r15, n)?,
        // The regions' own steps (`super::regions`), never in this entry's
        // program.
        EntryCode::Step(
            EntryStep::NextRow(_)
            | EntryStep::BackRow(_)
            | EntryStep::NextChunk(_)
            | EntryStep::BackChunk(_),
        ) => {}
        EntryCode::End(EntryLoop::Chunks { step }, exit) => {
            a.add(r15, step)?;
            a.cmp(r15, rsi)?;
            a.jge(exit)?;
        }
        EntryCode::Back(EntryLoop::Chunks { step }, header) => {
            a.add(r15, step)?;
            a.cmp(r15, rsi)?;
            a.jl(header)?;
        }
        // rdx: the last first id a trip of full chunks may start at.
        EntryCode::End(EntryLoop::Full { step }, exit) => {
            a.add(r15, step)?;
            a.cmp(r15, rdx)?;
            a.jg(exit)?;
        }
        EntryCode::Back(EntryLoop::Full { step }, header) => {
            a.add(r15, step)?;
            a.cmp(r15, rdx)?;
            a.jle(header)?;
        }
        EntryCode::Skip(EntryTest::Full { items, disps }, skip) => {
            a.lea(rdx, qword_ptr(rsi - items))?;
            a.cmp(r15, rdx)?;
            a.jg(skip)?;
            // Each row slot's value s, its accesses adding displacements
            // from dmin to dmax: a full chunk starts at most 16 before the
            // row's end, so its lanes' indices, from r15 + s + dmin to
            // rsi - 1 + s + dmax, stay in i32 when those two do (r15 >= 0
            // and s >= i32::MIN: the low end only with dmin < 0).
            for n in 0..rows.1 {
                let (dmin, dmax) = disps.get(n).copied().unwrap_or((0, 0));
                let slot = rows.0 + 8 * n as i32;
                a.lea(rax, qword_ptr(rsi + (dmax - 1)))?;
                a.add(rax, qword_ptr(rsp + slot))?;
                a.cmp(rax, i32::MAX)?;
                a.jg(skip)?;
                if dmin < 0 {
                    a.lea(rax, qword_ptr(r15 + dmin))?;
                    a.add(rax, qword_ptr(rsp + slot))?;
                    a.cmp(rax, i32::MIN)?;
                    a.jl(skip)?;
                }
            }
            // Robust access: each checked row offset's indices, from
            // r15 + s + dmin to rsi - 1 + s + dmax, inside its buffer's
            // (`bounds`: the first and the last valid index); else the
            // row's chunks take the masked path, whose tests report the
            // first fault.
            for &(n, bounds) in rows.2 {
                let (dmin, dmax) = disps.get(usize::from(n)).copied().unwrap_or((0, 0));
                let slot = rows.0 + 8 * i32::from(n);
                a.lea(rax, qword_ptr(r15 + dmin))?;
                a.add(rax, qword_ptr(rsp + slot))?;
                a.cmp(rax, qword_ptr(rsp + bounds))?;
                a.jl(skip)?;
                a.lea(rax, qword_ptr(rsi + (dmax - 1)))?;
                a.add(rax, qword_ptr(rsp + slot))?;
                a.cmp(rax, qword_ptr(rsp + (bounds + 8)))?;
                a.jg(skip)?;
            }
        }
        EntryCode::Skip(EntryTest::Left, skip) => {
            a.cmp(r15, rsi)?;
            a.jge(skip)?;
        }
        EntryCode::Skip(EntryTest::Within { at }, skip) => {
            let (low, high) = (slot(at), slot(at) + 8);
            a.cmp(r15, qword_ptr(rsp + low))?;
            a.jl(skip)?;
            a.cmp(r15, qword_ptr(rsp + high))?;
            a.jg(skip)?;
        }
        EntryCode::Skip(EntryTest::Outside { at }, skip) => {
            let (low, high) = (slot(at), slot(at) + 8);
            let mut run = a.create_label();
            a.cmp(r15, qword_ptr(rsp + low))?;
            a.jl(run)?;
            a.cmp(r15, qword_ptr(rsp + high))?;
            a.jle(skip)?;
            a.set_label(&mut run)?;
            a.zero_bytes()?;
        }
        EntryCode::Step(EntryStep::RangeStart { at, items }) => {
            a.mov(qword_ptr(rsp + slot(at)), i32::MIN)?;
            a.lea(rax, qword_ptr(rsi - items))?;
            a.mov(qword_ptr(rsp + (slot(at) + 8)), rax)?;
        }
        EntryCode::Step(EntryStep::RangeClamp {
            at,
            off,
            lo,
            hi,
            items,
        }) => {
            // first >= lo - off.
            let less_off = |a: &mut CodeAssembler| match off {
                Some((n, false)) => a.sub(rax, qword_ptr(rsp + slot(n))),
                Some((n, true)) => a.add(rax, qword_ptr(rsp + slot(n))),
                None => Ok(()),
            };
            a.mov(rax, qword_ptr(rsp + slot(lo)))?;
            less_off(a)?;
            narrow(a, slot(at), true)?;
            // first + items - 1 <= hi - off.
            a.mov(rax, qword_ptr(rsp + slot(hi)))?;
            less_off(a)?;
            a.sub(rax, items - 1)?;
            narrow(a, slot(at) + 8, false)?;
        }
        EntryCode::Step(EntryStep::RangeSlot {
            at,
            slot: n,
            dmin,
            dmax,
            items,
        }) => {
            // first + s + dmin >= i32::MIN.
            a.mov(rax, i64::from(i32::MIN) - i64::from(dmin))?;
            a.sub(rax, qword_ptr(rsp + slot(n)))?;
            narrow(a, slot(at), true)?;
            // first + items - 1 + s + dmax <= i32::MAX.
            a.mov(
                rax,
                i64::from(i32::MAX) - i64::from(items - 1) - i64::from(dmax),
            )?;
            a.sub(rax, qword_ptr(rsp + slot(n)))?;
            narrow(a, slot(at) + 8, false)?;
        }
        // Only the chunk loops fold their latches (`compile_entry`'s
        // steps refuse the others).
        EntryCode::Back(_, _) => {}
        EntryCode::End(EntryLoop::Rows, exit) => {
            a.mov(rax, qword_ptr(r12 + lo::STOP_FLAG))?;
            a.cmp(dword_ptr(rax), 0)?;
            a.jne(cancelled)?;
            a.inc(rdi)?;
            a.cmp(rdi, r8)?;
            a.jae(exit)?;
        }
        EntryCode::End(EntryLoop::Planes, exit) => {
            a.inc(r9)?;
            a.cmp(r9, rcx)?;
            a.jae(exit)?;
        }
        EntryCode::End(EntryLoop::Groups, exit) => {
            a.inc(r13)?;
            // The next group's coordinates.
            let mut store_1 = a.create_label();
            let mut store_0 = a.create_label();
            a.mov(rax, qword_ptr(rsp + g_at[0]))?;
            a.inc(rax)?;
            a.cmp(rax, qword_ptr(r12 + lo::NUM_GROUPS))?;
            a.jb(store_0)?;
            a.xor(eax, eax)?;
            a.mov(r10, qword_ptr(rsp + g_at[1]))?;
            a.inc(r10)?;
            a.cmp(r10, qword_ptr(r12 + (lo::NUM_GROUPS + q)))?;
            a.jb(store_1)?;
            a.xor(r10d, r10d)?;
            a.inc(qword_ptr(rsp + g_at[2]))?;
            a.set_label(&mut store_1)?;
            a.zero_bytes()?;
            a.mov(qword_ptr(rsp + g_at[1]), r10)?;
            a.set_label(&mut store_0)?;
            a.zero_bytes()?;
            a.mov(qword_ptr(rsp + g_at[0]), rax)?;
            a.cmp(r13, r14)?;
            a.jae(exit)?;
        }
    }
    Ok(())
}

/// Whether `op` reads the chunk's first id (r15) or its running lanes
/// (edx): with two chunks in flight, the second chunk's such operations
/// run with r15 moved 16 ahead.
pub(super) fn reads_chunk(op: &Op) -> bool {
    matches!(
        op,
        Op::GlobalId { dim: 0, .. }
            | Op::RunningLanes { .. }
            | Op::LoadElems { .. }
            | Op::LoadSum { .. }
            | Op::FmaSum { .. }
            | Op::StoreElems { .. }
    )
}

/// The operations of `body` computing values that are the same in every
/// chunk of a call, which the entry's program computes once, before its
/// loops: values written once, by a constant, a broadcast from the
/// argument block or the launch, or an unmasked operation of such values.
pub(super) fn invariant_ops(body: &Program) -> (Vec<bool>, HashSet<u32>) {
    uniform_ops(body, false)
}

/// The operations of `body` computing values that are the same in every
/// chunk of a row: [`invariant_ops`]' and those of values written once by
/// the row's ids of dimensions 1 and 2 or an unmasked operation of such
/// values (a row's `get_global_id(1) * get_global_size(0)`), which the
/// entry's program computes once per row.
pub(super) fn row_invariant_ops(body: &Program) -> (Vec<bool>, HashSet<u32>) {
    uniform_ops(body, true)
}

/// [`invariant_ops`], with the row's ids as sources when `row`.
fn uniform_ops(body: &Program, row: bool) -> (Vec<bool>, HashSet<u32>) {
    let ops = body.ops();
    let mut defs: HashMap<u32, usize> = HashMap::new();
    for op in ops {
        for v in written(op).0 {
            *defs.entry(v).or_default() += 1;
        }
    }
    let once = |v: V| defs.get(&v.0) == Some(&1);
    let mut inv: HashSet<u32> = HashSet::new();
    let mut hoisted = vec![false; ops.len()];
    for (i, op) in ops.iter().enumerate() {
        let is = |v: &V| inv.contains(&v.0);
        let d = match *op {
            Op::Splat { d, .. }
            | Op::Broadcast {
                d,
                arg: Arg::Args | Arg::Launch,
                ..
            } => d,
            // The group's coordinates: the same in its rows.
            Op::GlobalId { d, dim: 1 | 2 } | Op::GroupId { d, .. } if row => d,
            Op::Bin { d, a, b, .. } if is(&a) && is(&b) => d,
            Op::Fma { d, a, b, c } | Op::Fms { d, a, b, c } if is(&a) && is(&b) && is(&c) => d,
            Op::Sqrt { d, a }
            | Op::IntToFloat { d, a }
            | Op::Convert { d, a, .. }
            | Op::Un { d, a, .. }
                if is(&a) =>
            {
                d
            }
            _ => continue,
        };
        if once(d) {
            inv.insert(d.0);
            hoisted[i] = true;
        }
    }
    (hoisted, inv)
}

/// The end (exclusive) of the piece of `ops` that starts at `i`: past the
/// matching `EndIf` for an `IfAny`, the one operation otherwise.
fn region_end(ops: &[&Op], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, op) in ops.iter().enumerate().skip(i) {
        match op {
            Op::IfAny { .. } => depth += 1,
            Op::EndIf => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 {
            return j + 1;
        }
    }
    ops.len()
}

/// Operations of a loop-free body from which two chunks alternate
/// ([`program_for`]).
const LONG_BODY: usize = 64;

/// A loop-free body runs four chunks alternating when that adds at most
/// one spill or reload per this many operations of the chunk loop
/// ([`program_for`]).
const QUAD_MOVES_PER_OP: usize = 6;

/// Whether `body` bounds-checks an access (robust access): two chunks of
/// it then may not alternate operation by operation, or the fault
/// reported might not be the first in the chunks' order.
pub(super) fn has_checked_access(body: &Program) -> bool {
    body.ops().iter().any(|op| {
        matches!(op, Op::LoadElems { how, .. } | Op::StoreElems { how, .. } if how.check.is_some())
    })
}

/// Whether every bounds-checked access of `body` indexes its buffer by
/// the global id of dimension 0 itself (`Known::FromId`, a vector access):
/// a launch whose ids of that dimension all index inside every checked
/// buffer then proves each of them in bounds, in every chunk and lane,
/// before any runs ([`compile_entry`]'s launch test).
fn checks_follow_the_id(body: &Program) -> bool {
    body.ops().iter().all(|op| match op {
        Op::LoadElems { how, .. } | Op::StoreElems { how, .. } if how.check.is_some() => {
            how.consecutive && how.known == Known::FromId && !how.uniform
        }
        _ => true,
    })
}

/// `body` with its accesses' bounds tests removed: the body the entry runs
/// for a launch that [`checks_follow_the_id`] lets it prove in bounds.
fn without_checks(body: &Program) -> Program {
    let mut plain = body.clone();
    for op in plain.ops_mut() {
        if let Op::LoadElems { how, .. } | Op::StoreElems { how, .. } = op {
            how.check = None;
        }
    }
    plain
}

/// Whether two chunks of `body` may run interleaved with the exact
/// outcome of running them one after the other: under robust access, a
/// fault must be the first one in that order, so every checked access
/// must sit in one straight stretch of the body outside its loops (then
/// all of the first chunk's run before any of the second's). Without
/// checks, each chunk's accesses keep their order; between work-items
/// none is promised.
pub(super) fn interleaving_keeps_faults(body: &Program) -> bool {
    let mut depth = 0usize;
    let mut segment = 0usize;
    let mut checked_in: Option<usize> = None;
    for op in body.ops() {
        match op {
            Op::Loop => {
                depth += 1;
                segment += 1;
            }
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                depth = depth.saturating_sub(1);
                segment += 1;
            }
            Op::LoadElems { how, .. } | Op::StoreElems { how, .. } if how.check.is_some() => {
                if depth > 0 || checked_in.is_some_and(|s| s != segment) {
                    return false;
                }
                checked_in = Some(segment);
            }
            _ => {}
        }
    }
    true
}

/// The program the entry allocates and emits: `body`'s invariant values
/// ([`invariant_ops`]) computed once, then the loops over the groups of
/// the call and the planes and rows of each group ([`EntryStep`],
/// [`EntryLoop`]); in each row, its invariant values
/// ([`row_invariant_ops`]), then two regions ([`Op::IfEntry`]) of the
/// rest of the body:
///
/// - the row's full chunks, `16 * in_flight` work-items a trip
///   ([`EntryTest::Full`], [`EntryLoop::Full`]), with the running lanes
///   all 16 (a mask set once before the loop, [`Op::AllLanes`], whose
///   accesses test no mask), no running lanes computed;
/// - then, while the row has work-items left, one chunk at a time with
///   its running lanes ([`EntryStep::Lanes`]), the masked path (a row's
///   last, partial chunk; and the last full ones with `in_flight` > 1).
///
/// With `in_flight` = 2 or 4, each trip of the full chunks' loop runs
/// that many chunks (each 16 work-items after the one before): the body
/// that many times, with the other copies' values and masks renumbered,
/// interleaved stretch by stretch between its loop boundaries, so the
/// chunks' dependency chains overlap; a loop of the body runs until no
/// chunk has a lane in it (its extra trips for a chunk that is done run
/// with no lane, which changes nothing: every write of the body is
/// masked by the lanes in the loop).
///
/// With `zip` (a loop-free body), the copies alternate operation by
/// operation instead, so that the core's scheduler sees the second
/// chunk's independent work beside the first's long chains (divisions,
/// square roots) rather than a whole body later.
///
/// Without `split`, the rest of the body runs in one loop over all the
/// row's chunks, each with its running lanes (the tested body of a
/// launch that may fault, beside one proven in bounds: `compile_entry`).
/// A loop-free body without bounds checks that has clamps of the id
/// within bounds fixed for the row (`super::version`) runs so too, each
/// trip of chunks in flight either in a copy of the body without those
/// clamps (the trip inside the row's range where they are all their
/// operand) or as it is (`version::versioned_program`).
pub(crate) fn entry_program(
    body: &Program,
    in_flight: u32,
    zip: bool,
    split: bool,
) -> Result<Program, WideError> {
    let ops = body.ops();
    let (hoisted, _) = invariant_ops(body);
    let (per_row, row_inv) = row_invariant_ops(body);
    let (nv, nk) = body.numbered();
    let pick = |which: &dyn Fn(usize) -> bool| -> Vec<&Op> {
        (0..ops.len())
            .filter(|&i| which(i))
            .map(|i| &ops[i])
            .collect()
    };
    let mut out: Vec<Op> = pick(&|i| hoisted[i]).into_iter().cloned().collect();
    out.extend([
        Op::Loop,
        Op::Entry(EntryStep::Group),
        Op::Loop,
        Op::Entry(EntryStep::Plane),
        Op::Loop,
        Op::Entry(EntryStep::Row),
    ]);
    out.extend(pick(&|i| per_row[i] && !hoisted[i]).into_iter().cloned());
    let rest = pick(&|i| !per_row[i]);
    let chunk_moves = |lanes: bool| Moves {
        reads: reads_chunk,
        to: |c| EntryStep::Shift(16 * c as i32),
        back: |c| EntryStep::Shift(-16 * c as i32),
        lanes,
    };
    // Values: the body's chunks [0, nv * in_flight), a versioned copy's
    // the next as many, then the row's new values.
    let mut next_v = 2 * nv * in_flight;
    let versioned = (!split && !has_checked_access(body) && !ops.contains(&Op::Loop))
        .then(|| super::version::clamp_version(&rest, &row_inv, &mut next_v))
        .flatten();
    if let Some(v) = versioned {
        return super::version::versioned_program(body, v, (out, rest), next_v, in_flight, zip);
    }
    if !split {
        out.push(Op::Loop);
        let shared = Shared {
            values: row_inv,
            ..Shared::default()
        };
        let next_k = interleave(
            &rest,
            &shared,
            (nv, nk),
            in_flight,
            zip,
            &chunk_moves(true),
            &mut out,
        )?;
        out.extend([
            Op::WhileEntry(EntryLoop::Chunks {
                step: 16 * in_flight as i32,
            }),
            Op::WhileEntry(EntryLoop::Rows),
            Op::WhileEntry(EntryLoop::Planes),
            Op::WhileEntry(EntryLoop::Groups),
        ]);
        return Ok(Program::from_ops(out, nv * in_flight, next_k));
    }
    // The full chunks: a running-lanes mask written once is all 16 lanes,
    // set before the loop and shared by the chunks in flight; another
    // (never made by the lowering) is set where it was.
    let mut lanes_defs: HashMap<u32, usize> = HashMap::new();
    for op in &rest {
        for k in written(op).1 {
            *lanes_defs.entry(k).or_default() += 1;
        }
    }
    let mut all: HashSet<u32> = HashSet::new();
    let mut full: Vec<Op> = Vec::with_capacity(rest.len());
    for op in &rest {
        match **op {
            Op::RunningLanes { d } if lanes_defs.get(&d.0) == Some(&1) => {
                all.insert(d.0);
            }
            Op::RunningLanes { d } => full.push(Op::AllLanes { d }),
            ref op => full.push(op.clone()),
        }
    }
    // Accesses by the id plus a value fixed for the row: their lane 0
    // from a row slot, set here.
    // A constant added to such a sum is a displacement of the slot's
    // accesses (`in[(i - 1) * w + j + 1]`): the row's test takes it in.
    let mut next_v = nv * (in_flight + 1);
    let consts = row_constants(body, &row_inv);
    let (adds, slots) = row_offsets(&mut full, &row_inv, Some(&consts), ROW_SLOTS, &mut next_v);
    out.extend(adds);
    let mut disps = [(0, 0); ROW_SLOTS];
    for (slot, (u, dmin, dmax)) in slots.into_iter().enumerate() {
        disps[slot] = (dmin, dmax);
        out.push(Op::RowLane0 {
            a: V(u),
            slot: slot as u8,
        });
    }
    drop_unread(&mut full);
    let step = 16 * in_flight as i32;
    out.push(Op::IfEntry(EntryTest::Full { items: step, disps }));
    let mut all_sorted: Vec<u32> = all.iter().copied().collect();
    all_sorted.sort_unstable();
    out.extend(all_sorted.iter().map(|&k| Op::AllLanes { d: K(k) }));
    out.push(Op::Loop);
    let full_refs: Vec<&Op> = full.iter().collect();
    let next_k = interleave(
        &full_refs,
        &Shared {
            values: row_inv.clone(),
            masks: all,
            ..Shared::default()
        },
        (nv, nk),
        in_flight,
        zip,
        &chunk_moves(false),
        &mut out,
    )?;
    out.extend([Op::WhileEntry(EntryLoop::Full { step }), Op::EndIf]);
    // The rest of the row, one chunk at a time with its running lanes;
    // its values and masks numbered past the full chunks'.
    let (tail_v, tail_k) = (nv * in_flight, next_k);
    let mut tail = Vec::new();
    let tail_nk = interleave(
        &rest,
        &Shared {
            values: row_inv.clone(),
            ..Shared::default()
        },
        (nv, nk),
        1,
        false,
        &chunk_moves(true),
        &mut tail,
    )?;
    out.extend([Op::IfEntry(EntryTest::Left), Op::Loop]);
    out.extend(tail.iter().map(|op| {
        op.map_regs(
            |v| {
                if row_inv.contains(&v.0) {
                    v
                } else {
                    V(v.0 + tail_v)
                }
            },
            |k| K(k.0 + tail_k),
        )
    }));
    out.extend([
        Op::WhileEntry(EntryLoop::Chunks { step: 16 }),
        Op::EndIf,
        Op::WhileEntry(EntryLoop::Rows),
        Op::WhileEntry(EntryLoop::Planes),
        Op::WhileEntry(EntryLoop::Groups),
    ]);
    Ok(Program::from_ops(out, next_v, tail_k + tail_nk))
}

/// Row slots at most (`Known::RowOffset`): each costs a test per row.
pub(super) const ROW_SLOTS: usize = 4;

/// The integer constants of `body` fixed for the row, by value: what
/// [`row_offsets`] takes as a displacement where one is added to a row
/// slot's sum.
pub(super) fn row_constants(body: &Program, row_inv: &HashSet<u32>) -> HashMap<u32, u32> {
    body.ops()
        .iter()
        .filter_map(|op| match *op {
            Op::Splat { d, bits } if row_inv.contains(&d.0) => Some((d.0, bits)),
            _ => None,
        })
        .collect()
}

/// Makes the accesses of `full` (the full chunks' operations) through a
/// `__global` buffer whose index is the global id of dimension 0 plus
/// (or less) values of `row_inv` (fixed for the row; a sum of at most
/// [`ROW_TERMS`], in any order) `Known::RowOffset`, one slot per such
/// sum (at most `max_slots`). Returns the operations that add up the
/// sums of several values (new values from `next_v`) and each slot's
/// value with the least and the greatest displacement its accesses add.
/// Such an index's lane 0 is then a scalar sum, no `vmovd`, its
/// lanes consecutive and no wrap to test (the row's guard,
/// `EntryTest::Full`, or the range of a versioned body,
/// `EntryStep::RangeSlot`): lane `l` is `id + l + s` modulo 2^32
/// whatever the order of the additions.
///
/// With `consts` (the body's integer constants fixed for the row, by
/// value: [`row_constants`]), a constant added to the sum is a
/// displacement rather than a term: `in[yy * w + x + dx]` for the five
/// `dx` shares one slot. The row's guard (`EntryTest::Full`) or a
/// versioned body's range takes each slot's least and greatest
/// displacement, which are returned with its value.
pub(super) fn row_offsets(
    full: &mut [Op],
    row_inv: &HashSet<u32>,
    consts: Option<&HashMap<u32, u32>>,
    max_slots: usize,
    next_v: &mut u32,
) -> (Vec<Op>, Vec<(u32, i32, i32)>) {
    let mut defs: HashMap<u32, usize> = HashMap::new();
    for op in full.iter() {
        for v in written(op).0 {
            *defs.entry(v).or_default() += 1;
        }
    }
    let once = |v: V| defs.get(&v.0) == Some(&1);
    let constant = |v: u32| consts.and_then(|c| c.get(&v)).map(|&b| b as i32);
    // Value → the row's values its index adds to the id (none: the id),
    // each with whether it is subtracted, and the constant it adds (within
    // `MAX_ROW_DISP`).
    let mut sums: HashMap<u32, (Vec<(u32, bool)>, i32)> = HashMap::new();
    // `sum` plus (or less, `neg`) the row's value `u`: a displacement
    // when `u` is a constant, else one more term.
    let add = |(terms, disp): &(Vec<(u32, bool)>, i32), u: u32, neg: bool| {
        let folded = constant(u)
            .and_then(|c| {
                if neg {
                    disp.checked_sub(c)
                } else {
                    disp.checked_add(c)
                }
            })
            .filter(|c| c.unsigned_abs() <= MAX_ROW_DISP);
        if let Some(disp) = folded {
            Some((terms.clone(), disp))
        } else if terms.len() < ROW_TERMS {
            let mut terms = terms.clone();
            terms.push((u, neg));
            terms.sort_unstable();
            Some((terms, *disp))
        } else {
            None
        }
    };
    for op in full.iter() {
        match *op {
            Op::GlobalId { d, dim: 0 } if once(d) => {
                sums.insert(d.0, (Vec::new(), 0));
            }
            Op::Bin {
                op: Bin::IAdd,
                d,
                a,
                b,
            } if once(d) => {
                let sum = match (sums.get(&a.0), sums.get(&b.0)) {
                    (Some(sum), None) if row_inv.contains(&b.0) => add(sum, b.0, false),
                    (None, Some(sum)) if row_inv.contains(&a.0) => add(sum, a.0, false),
                    _ => None,
                };
                if let Some(sum) = sum {
                    sums.insert(d.0, sum);
                }
            }
            // The id's sum less a row's value (`k - w`): a subtracted
            // term, or a displacement for a constant. (A value less the
            // id's sum falls from lane to lane: not such an index.)
            Op::Bin {
                op: Bin::ISub,
                d,
                a,
                b,
            } if once(d) => {
                let sum = sums
                    .get(&a.0)
                    .filter(|_| row_inv.contains(&b.0))
                    .and_then(|sum| add(sum, b.0, true));
                if let Some(sum) = sum {
                    sums.insert(d.0, sum);
                }
            }
            _ => {}
        }
    }
    let mut slots: Vec<(Vec<(u32, bool)>, i32, i32)> = Vec::new();
    for op in full.iter_mut() {
        let load = matches!(op, Op::LoadElems { .. });
        let (Op::LoadElems { idx, how, .. } | Op::StoreElems { idx, how, .. }) = op else {
            continue;
        };
        // The id itself is `Known::FromId` already (`access::refine`).
        let Some((terms, disp)) = sums.get(&idx.0).filter(|(t, d)| !t.is_empty() || *d != 0) else {
            continue;
        };
        // Whatever the uniformity analysis and the lowering found of the
        // index, its form shows its lanes consecutive from lane 0 (the
        // id's lanes plus a value equal in all).
        if how.base != Base::Arg || (how.uniform && load) || how.byte.is_some() {
            continue;
        }
        let slot = match slots.iter().position(|x| x.0 == *terms) {
            Some(s) => s,
            None if slots.len() < max_slots => {
                slots.push((terms.clone(), *disp, *disp));
                slots.len() - 1
            }
            None => continue,
        };
        slots[slot].1 = slots[slot].1.min(*disp);
        slots[slot].2 = slots[slot].2.max(*disp);
        how.consecutive = true;
        how.uniform = false;
        how.known = Known::RowOffset(slot as u8, *disp);
    }
    let mut adds = Vec::new();
    let mut values = Vec::new();
    for (terms, dmin, dmax) in slots {
        let mut fresh = || {
            let d = V(*next_v);
            *next_v += 1;
            d
        };
        // The added terms first, then the subtracted ones (from zero when
        // every term is subtracted); no term (the id plus a constant): a
        // slot of zero.
        let first = terms.iter().find(|(_, neg)| !neg).map(|&(u, _)| u);
        let start = match first {
            Some(u) => u,
            None => {
                let d = fresh();
                adds.push(Op::Splat { d, bits: 0 });
                d.0
            }
        };
        let mut skipped = false;
        let sum = terms.iter().fold(start, |a, &(b, neg)| {
            if !neg && Some(b) == first && !skipped {
                skipped = true;
                return a;
            }
            let d = fresh();
            adds.push(Op::Bin {
                op: if neg { Bin::ISub } else { Bin::IAdd },
                d,
                a: V(a),
                b: V(b),
            });
            d.0
        });
        values.push((sum, dmin, dmax));
    }
    (adds, values)
}

/// The largest displacement (elements) a row slot's access may add to
/// it ([`row_offsets`]).
const MAX_ROW_DISP: u32 = 1 << 20;

/// Values of the row at most in a row slot's sum ([`row_offsets`]).
const ROW_TERMS: usize = 3;

/// Removes from `ops` (a copy of a body's operations whose values only it
/// reads) the pure operations whose value, written once, nothing reads:
/// a row offset's sum and the ids it adds (an access of
/// `Known::RowOffset` does not read its index).
pub(super) fn drop_unread(ops: &mut Vec<Op>) {
    loop {
        let mut reads: HashMap<u32, usize> = HashMap::new();
        let mut writes: HashMap<u32, usize> = HashMap::new();
        for op in ops.iter() {
            let unread = match op {
                Op::LoadElems { idx, how, .. } | Op::StoreElems { idx, how, .. }
                    if matches!(how.known, Known::RowOffset(..)) =>
                {
                    Some(idx.0)
                }
                _ => None,
            };
            let (wv, _) = written(op);
            let merges = !matches!(
                op,
                Op::Splat { .. }
                    | Op::SplatQ { .. }
                    | Op::Broadcast { .. }
                    | Op::Bin { .. }
                    | Op::Fma { .. }
                    | Op::Fms { .. }
                    | Op::Un { .. }
                    | Op::Convert { .. }
                    | Op::IntToFloat { .. }
                    | Op::GlobalId { .. }
            );
            let named = std::cell::RefCell::new(Vec::new());
            op.map_regs(
                |v| {
                    named.borrow_mut().push(v.0);
                    v
                },
                |k| k,
            );
            let mut named = named.into_inner();
            // A pure operation's result is its first register named.
            if !merges && !wv.is_empty() {
                named.remove(0);
            }
            for v in named {
                if Some(v) != unread {
                    *reads.entry(v).or_default() += 1;
                }
            }
            for v in wv {
                *writes.entry(v).or_default() += 1;
            }
        }
        let before = ops.len();
        ops.retain(|op| {
            let d = match *op {
                Op::Splat { d, .. }
                | Op::SplatQ { d, .. }
                | Op::Broadcast { d, .. }
                | Op::Bin { d, .. }
                | Op::Fma { d, .. }
                | Op::Fms { d, .. }
                | Op::Un { d, .. }
                | Op::Convert { d, .. }
                | Op::IntToFloat { d, .. }
                | Op::GlobalId { d, .. } => d,
                _ => return true,
            };
            writes.get(&d.0) != Some(&1) || reads.contains_key(&d.0)
        });
        if ops.len() == before {
            return;
        }
    }
}

/// How the copies of a body in flight differ from the first: the
/// entry's steps that move its registers to copy `c`'s chunk and back,
/// which operations read those registers, and whether a copy's
/// [`Op::RunningLanes`] needs [`EntryStep::Lanes`] first.
pub(super) struct Moves {
    pub reads: fn(&Op) -> bool,
    pub to: fn(u32) -> EntryStep,
    pub back: fn(u32) -> EntryStep,
    pub lanes: bool,
}

/// What the copies of a body in flight share: values and masks they do
/// not renumber (computed once, by the first copy or before the loops),
/// and the operations of the body that only the first copy runs (`skip`,
/// by index; empty: none).
#[derive(Default)]
pub(super) struct Shared {
    pub values: HashSet<u32>,
    pub masks: HashSet<u32>,
    pub skip: Vec<bool>,
}

/// The operations of copy `c` at `range` of the body, without those only
/// the first copy runs.
fn own<'o>(
    copies: &'o [Vec<Op>],
    skip: &[bool],
    c: usize,
    range: std::ops::Range<usize>,
) -> Vec<&'o Op> {
    range
        .filter(|&i| c == 0 || !skip.get(i).copied().unwrap_or(false))
        .map(|i| &copies[c][i])
        .collect()
}

/// Appends `in_flight` copies of `rest` (a body without its invariant
/// values) to `out`: the copies' values and masks renumbered (`nv`,
/// `nk`: the body's counts) but for those `shared` names, interleaved stretch
/// by stretch between the body's loop boundaries, or operation by
/// operation with `zip`; a loop runs until no copy has a lane in it.
/// A stretch of copy `c` > 0 that reads the entry's registers of its
/// chunk runs between `moves.to(c)` and `moves.back(c)`. Returns the
/// next free mask number.
pub(super) fn interleave(
    rest: &[&Op],
    shared: &Shared,
    (nv, nk): (u32, u32),
    in_flight: u32,
    zip: bool,
    moves: &Moves,
    out: &mut Vec<Op>,
) -> Result<u32, WideError> {
    let copies: Vec<Vec<Op>> = (0..in_flight)
        .map(|c| {
            rest.iter()
                .map(|op| {
                    op.map_regs(
                        |v| {
                            if shared.values.contains(&v.0) {
                                v
                            } else {
                                V(v.0 + c * nv)
                            }
                        },
                        |k| {
                            if shared.masks.contains(&k.0) {
                                k
                            } else {
                                K(k.0 + c * nk)
                            }
                        },
                    )
                })
                .collect()
        })
        .collect();
    let mut next_k = nk * in_flight;
    let mut s = 0;
    while s <= rest.len() {
        let e = (s..rest.len())
            .find(|&i| {
                matches!(
                    rest[i],
                    Op::Loop | Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_)
                )
            })
            .unwrap_or(rest.len());
        // A stretch of a loop-free body goes operation by operation
        // (the copies' operations alternate), one with loops copy by copy.
        // A skipped region (`IfAny` to its `EndIf`) goes whole, copy by
        // copy: alternating, one copy's region would hold the other's.
        let pieces: Vec<Vec<(usize, Vec<&Op>)>> = if zip {
            let mut pieces = Vec::new();
            let mut i = s;
            while i < e {
                let end = region_end(rest, i);
                pieces.push(
                    (0..copies.len())
                        .map(|c| (c, own(&copies, &shared.skip, c, i..end)))
                        .collect(),
                );
                i = end;
            }
            pieces
        } else {
            vec![(0..copies.len())
                .map(|c| (c, own(&copies, &shared.skip, c, s..e)))
                .collect()]
        };
        for (c, seg) in pieces.into_iter().flatten() {
            let shifted = c != 0 && seg.iter().any(|op| (moves.reads)(op));
            if shifted {
                out.push(Op::Entry((moves.to)(c as u32)));
            }
            for op in seg {
                if moves.lanes && matches!(op, Op::RunningLanes { .. }) {
                    out.push(Op::Entry(EntryStep::Lanes));
                }
                out.push(op.clone());
            }
            if shifted {
                out.push(Op::Entry((moves.back)(c as u32)));
            }
        }
        if e == rest.len() {
            break;
        }
        match copies[0][e] {
            Op::Loop => out.push(Op::Loop),
            Op::WhileAny { k } => {
                let mut joined = k;
                for copy in &copies[1..] {
                    let Op::WhileAny { k: other } = copy[e] else {
                        return Err(WideError::Malformed("copies of unlike shape".into()));
                    };
                    if other == k {
                        // A mask the copies share (rows in flight): or-ed
                        // with itself it is itself.
                        continue;
                    }
                    let d = K(next_k);
                    next_k += 1;
                    out.push(Op::KOr {
                        d,
                        a: joined,
                        b: other,
                    });
                    joined = d;
                }
                out.push(Op::WhileAny { k: joined });
            }
            ref op => return Err(WideError::Malformed(format!("{op:?} in a kernel body"))),
        }
        s = e + 1;
    }
    Ok(next_k)
}

/// Operations of `p` outside its skipped regions (`IfAny` to the matching
/// `EndIf`): those every chunk runs. A rarely taken arm (FDTD's source
/// term, one work-item of 65 536, about 300 operations with its `sin`)
/// says nothing of the length of the chains a chunk runs, nor of how many
/// moves two chunks may add to them.
fn ops_run_always(p: &Program) -> usize {
    let mut depth = 0usize;
    let mut n = 0;
    for op in p.ops() {
        match op {
            Op::IfAny { .. } => depth += 1,
            Op::EndIf if depth > 0 => depth -= 1,
            _ => n += usize::from(depth == 0),
        }
    }
    n
}

/// Operations of `p` inside more than `outer` loops: the body's own
/// loops, below the entry's four (`outer` = 4) or in a region body that
/// has none (`outer` = 0, `super::rows`).
pub(super) fn loop_ops(p: &Program, outer: usize) -> usize {
    let mut depth = 0usize;
    let mut n = 0;
    for op in p.ops() {
        match op {
            Op::Loop => depth += 1,
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                depth = depth.saturating_sub(1)
            }
            _ => n += usize::from(depth > outer),
        }
    }
    n
}

/// The entry's program and its allocation: four or else two chunks in
/// flight when the body has a loop (bound by its dependency chain's
/// latency, which the other chunks' chains overlap), the program adds at
/// most one spill or reload per 16 operations inside the body's loops
/// (where the trips are), and faults stay exact
/// ([`interleaving_keeps_faults`]); four or else two chunks alternating
/// operation by operation for a loop-free body without bounds checks, at
/// most one spill or reload per [`QUAD_MOVES_PER_OP`] (four) or 16 (two)
/// operations of the chunk loop added; one otherwise.
///
/// `spread_fixed` (a loop's per-lane access whose lanes lie a constant
/// stride of pages apart, `super::spread`) keeps a body with a loop to
/// one chunk at a time.
fn program_for(
    body: &Program,
    split: bool,
    spread_fixed: bool,
) -> Result<(Program, Allocated, u32), WideError> {
    let looped = body.ops().iter().any(|op| matches!(op, Op::Loop));
    let split = splits(body, split);
    // One chunk at a time, allocated only when needed: as the fallback,
    // or as the measure of a program of chunks in flight whose moves are
    // past what each test allows even beside a single chunk without any.
    // (A long body's allocations are most of its build: the eight math
    // routines of `math_builtins_tol`, 1 221 operations, took 2.1 ms alone
    // and 4.4 ms with two chunks in flight, half of it in `ra2::build`.)
    let mut single: Option<(Program, Allocated)> = None;
    let single_for = |single: &mut Option<(Program, Allocated)>| -> Result<(), WideError> {
        if single.is_none() {
            let program = entry_program(body, 1, false, split)?;
            let allocated = allocate_ra2_pooled(&program)?;
            *single = Some((program, allocated));
        }
        Ok(())
    };
    // A loop whose trip waits on the trip before (its recurrence, longer
    // than its operations take to issue) or loads lanes that may miss
    // gains from other chunks beside its own; one whose trips overlap
    // anyway only gains registers to spill (`super::recurrence`).
    let chained = super::recurrence::chunks_in_flight_gain(body);
    if looped && chained && !spread_fixed && interleaving_keeps_faults(body) {
        // Inside the body's loops, below the entry's four.
        let inner = |a: &Allocated| a.stack_moves_within(5);
        // Mandelbrot's doubled loop, 2 mask spills and reloads in a trip
        // of about 60 operations, ran 1.8x faster than one chunk at a
        // time: a few moves beside two overlapped chains cost little.
        // With its loop's masks cut down (`lower`), four chunks fit
        // without a move in the loop and take 0.9x the CPU time of two
        // (three: 0.97x).
        for n in [4, 2] {
            let program = entry_program(body, n, false, split)?;
            let allocated = allocate_ra2_pooled(&program)?;
            let allowed = loop_ops(&program, 4) / 16;
            if inner(&allocated) > allowed {
                single_for(&mut single)?;
            }
            let base = single.as_ref().map_or(0, |(_, a)| inner(a));
            if inner(&allocated) <= base + allowed {
                return Ok((program, allocated, n));
            }
        }
    }
    if !looped && ops_run_always(body) >= LONG_BODY && !has_checked_access(body) {
        // A long loop-free body: its chains (divisions, square roots, the
        // polynomials of `exp` and `log`) are long beside the core's
        // scheduler, and the next chunk's work sits a whole body later;
        // two chunks' operations alternating overlap them. Black-Scholes
        // runs 1.3x faster so on one thread (a chunk loop of about 320
        // operations, no spill); saxpy and vadd (about 10
        // operations, bound by memory) ran 10-15 % slower in cache.
        //
        // Four chunks alternating overlap more of them again: Black-Scholes
        // 1.17x faster than two on one thread, with 75 spills and reloads
        // in a chunk loop of 607 operations (loads and stores, which the
        // core has ports to spare for beside the arithmetic). So four when
        // they add at most one spill or reload per 6 operations, else two
        // at one per 16.
        let moves = |a: &Allocated| a.stack_moves_within(4);
        // Four only for a body of at most `4 * LONG_BODY` operations: a
        // longer one's fourfold program is slow to allocate
        // (`erf_blackscholes.cl`, about 1 900 a chunk: 70 ms more) and
        // spills past the limit anyway.
        let quad = body.ops().len() <= 4 * LONG_BODY;
        // Moves are counted in the skipped regions too, and so are the
        // operations that allow them.
        for (n, per) in [(4, QUAD_MOVES_PER_OP), (2, 16)] {
            if n == 4 && !quad {
                continue;
            }
            let program = entry_program(body, n, true, split)?;
            let allocated = allocate_ra2_pooled(&program)?;
            let allowed = program.ops().len() / per;
            if moves(&allocated) > allowed {
                single_for(&mut single)?;
            }
            let base = single.as_ref().map_or(0, |(_, a)| moves(a));
            if moves(&allocated) <= base + allowed {
                return Ok((program, allocated, n));
            }
        }
    }
    single_for(&mut single)?;
    let (program, allocated) = single.ok_or_else(|| WideError::Malformed("no program".into()))?;
    Ok((program, allocated, 1))
}

/// Whether the entry program of `body` splits its rows' full chunks from
/// the rest (`entry_program`'s `split`, asked for as `split`). A long
/// loop-free body keeps one loop over its rows' chunks: the full chunks'
/// split adds a copy of the body to the allocation (Black-Scholes, four
/// chunks in flight and the masked copy: 1.6 -> 2.1 ms to compile, for
/// 5 % less CPU time a launch), where a short body's chunk is mostly the
/// mask's work it saves.
fn splits(body: &Program, split: bool) -> bool {
    let looped = body.ops().iter().any(|op| matches!(op, Op::Loop));
    // A body with versioned clamps runs one loop too
    // (`version::versioned_program`).
    split && (looped || ops_run_always(body) < LONG_BODY) && !super::version::versionable(body)
}

/// The one-chunk program for groups too narrow for `in_flight` chunks of
/// an unsplit program ([`narrow_rows`]), when `body`'s program (asked
/// with `split`) is one.
///
/// An unsplit program runs its `in_flight` copies over a row's chunks
/// whatever the row's width, so on a row of one chunk (a 16 × 16 group:
/// hotspot's stencil, written with `get_local_id`-sized tiles) every
/// later copy runs with no running lane: the whole body's work, each
/// masked access down its out-of-line path, for nothing. hotspot's 2048²
/// step on one thread took 2.0x the CPU time with 16 × 16 groups as with
/// 256 × 1 (`docs/wide.md`).
fn narrow_program(
    body: &Program,
    split: bool,
    in_flight: u32,
) -> Result<Option<(Program, Allocated)>, WideError> {
    if in_flight < 2 || splits(body, split) {
        // A split program runs a row too narrow for its full chunks'
        // trip one chunk at a time already.
        return Ok(None);
    }
    let program = entry_program(body, 1, false, false)?;
    let allocated = allocate_ra2_pooled(&program)?;
    Ok(Some((program, allocated)))
}

/// The widest group (its size in dimension 0) that runs the one-chunk
/// program beside one of `in_flight` chunks: the groups on which at least
/// half the copies of a trip would have no lane.
fn narrow_rows(in_flight: u32) -> u32 {
    16 * (in_flight / 2)
}

/// Jumps to `apart` when one of `params`, times its bytes, is at least
/// [`SPREAD_BYTES`] in magnitude (or overflows): a loop's per-lane access
/// whose lanes lie that far apart (`super::spread`). rbx holds the
/// argument block; rax and r10 are free.
fn emit_spread_test(
    a: &mut CodeAssembler,
    params: &[StrideParam],
    apart: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    for p in params {
        if p.signed {
            a.movsxd(rax, dword_ptr(rbx + p.slot)).map_err(e)?;
        } else {
            a.mov(eax, dword_ptr(rbx + p.slot)).map_err(e)?;
        }
        a.imul_3(rax, rax, p.bytes).map_err(e)?;
        a.jo(apart).map_err(e)?;
        // |x| >= S exactly when x + (S - 1), unsigned, is past 2S - 2.
        a.lea(r10, qword_ptr(rax + (SPREAD_BYTES - 1) as i32))
            .map_err(e)?;
        a.cmp(r10, (2 * SPREAD_BYTES - 2) as i32).map_err(e)?;
        a.ja(apart).map_err(e)?;
    }
    Ok(())
}

/// `wide`, a program of `in_flight` chunks; with `narrow`, first the
/// one-chunk program for the launches whose groups are at most
/// [`narrow_rows`]`(in_flight)` wide, which then jumps to `done`.
fn emit_by_width(
    a: &mut CodeAssembler,
    (wide, narrow): (&Allocated, Option<&Allocated>),
    in_flight: u32,
    at: &mut EmitAt<'_>,
    pool: &mut ConstPool,
    done: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    if let Some(narrow) = narrow {
        let mut wider = a.create_label();
        a.cmp(
            qword_ptr(r12 + lo::LOCAL_SIZE),
            narrow_rows(in_flight) as i32,
        )
        .map_err(e)?;
        a.ja(wider).map_err(e)?;
        emit_allocated_pooled(a, narrow, at, pool)?;
        a.jmp(done).map_err(e)?;
        a.set_label(&mut wider).map_err(e)?;
        a.zero_bytes().map_err(e)?;
    }
    emit_allocated_pooled(a, wide, at, pool)?;
    Ok(())
}

/// The end of every entry: the jump to `fallback` (the Cranelift code of
/// the same kernel) under `fallback_l`, then the whole function with the
/// data of the constant pool `pool` after the code (placed on a 64-byte
/// line) assembled and mapped executable. Returns the mapping, the entry
/// in it and its size in bytes.
pub(super) fn fallback_jump_pool_and_map(
    mut a: CodeAssembler,
    mut fallback_l: CodeLabel,
    fallback: KernelEntry,
    mut pool: ConstPool,
) -> Result<(super::arena::CodeMemory, KernelEntry, usize), WideError> {
    let e = asm_err;
    a.set_label(&mut fallback_l).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(rax, fallback as usize as u64).map_err(e)?;
    a.jmp(rax).map_err(e)?;
    let pool_at = pool.emit_data(&mut a)?;
    let (memory, at, size) = assemble_and_map(&mut a, pool_at)?;
    // SAFETY: the memory holds the function just assembled from byte
    // `at` on, whose calling convention is System V with the signature of
    // `KernelEntry`; it lives as long as the memory, which the caller
    // keeps with the entry.
    let entry = unsafe { std::mem::transmute::<*const u8, KernelEntry>(memory.as_ptr().add(at)) };
    Ok((memory, entry, size))
}

/// The start of every entry: a launch whose ids pass `id_end` in some
/// dimension (offset + size past it, at most [`MAX_ID_END`], or
/// overflowing) jumps to `fallback` before anything is touched;
/// otherwise the six callee-saved registers the entry uses are pushed.
/// `rsi` holds the `Launch`.
pub(super) fn fallback_test_and_saves(
    a: &mut CodeAssembler,
    fallback: CodeLabel,
    id_end: u64,
) -> Result<(), WideError> {
    let id_end = id_end.min(MAX_ID_END);
    let (e, q) = (asm_err, 8);
    for d in 0..3 {
        a.mov(rax, qword_ptr(rsi + (lo::GLOBAL_OFFSET + q * d)))
            .map_err(e)?;
        a.add(rax, qword_ptr(rsi + (lo::GLOBAL_SIZE + q * d)))
            .map_err(e)?;
        a.jc(fallback).map_err(e)?;
        a.mov(r10, id_end).map_err(e)?;
        a.cmp(rax, r10).map_err(e)?;
        a.ja(fallback).map_err(e)?;
    }
    for r in [rbx, rbp, r12, r13, r14, r15] {
        a.push(r).map_err(e)?;
    }
    Ok(())
}

/// Compiles the kernel entry running `body` once per chunk.
pub fn compile_entry(
    body: &Program,
    fallback: KernelEntry,
    opts: &EntryOptions,
) -> Result<KernelCode, WideError> {
    if !super::supported() {
        return Err(WideError::NoAvx512);
    }
    let start = Instant::now();
    // Robust access whose tests all follow the id: the body without them,
    // two chunks in flight if it takes them, for the launches whose ids
    // index inside every checked buffer; the tested body, one chunk at a
    // time, for the others, whose first fault it reports exactly. That
    // body runs for launches that may fault, rarely: one loop over the
    // chunks of a row, not the full chunks' split, whose second copy of
    // the body would add to the allocation (Black-Scholes, robust:
    // 2.0 -> 2.7 ms with it, `docs/wide.md`).
    let untested = if has_checked_access(body) && checks_follow_the_id(body) {
        match program_for(&without_checks(body), true, opts.spread.fixed)? {
            (p, a, n) if n > 1 => Some((p, a, n)),
            _ => None,
        }
    } else {
        None
    };
    let fixed = opts.spread.fixed;
    let (program, alloc, in_flight) = match program_for(body, untested.is_none(), fixed)? {
        // Chunks in flight with the tests: no untested body, so this
        // one runs every launch, split.
        (_, _, n) if n > 1 && untested.is_some() => program_for(body, true, fixed)?,
        tested => tested,
    };
    let had_untested = untested.is_some();
    let proven = untested.filter(|_| in_flight == 1);
    // Each program of chunks in flight with its one-chunk program for
    // narrow groups, where it needs one.
    let narrow = narrow_program(body, !had_untested || in_flight > 1, in_flight)?;
    let proven_narrow = match &proven {
        Some((_, _, n)) => narrow_program(&without_checks(body), true, *n)?,
        None => None,
    };
    // One chunk at a time for the calls whose loops' per-lane accesses
    // lie pages apart (`super::spread`), told by their parameters. (A
    // program of chunks in flight is split: `program_for` was asked to.)
    let spread = if in_flight > 1 && !opts.spread.params.is_empty() {
        let program = entry_program(body, 1, false, splits(body, true))?;
        let allocated = allocate_ra2_pooled(&program)?;
        Some((program, allocated))
    } else {
        None
    };
    let frame = proven
        .as_ref()
        .map_or(0, |(_, a, _)| a.frame())
        .max(alloc.frame())
        .max(
            narrow
                .iter()
                .chain(&proven_narrow)
                .chain(&spread)
                .map(|(_, a)| a.frame())
                .max()
                .unwrap_or(0),
        );
    let (checked, counts) = memory_facts(body);
    let invariant = invariant_ops(body).1.len();
    let row_invariant = row_invariant_ops(body).1.len() - invariant;
    // Row slots (`Op::RowLane0`), the same in both programs.
    let row_slots = program
        .ops()
        .iter()
        .chain(proven.iter().flat_map(|(p, _, _)| p.ops()))
        .chain(
            narrow
                .iter()
                .chain(&proven_narrow)
                .chain(&spread)
                .flat_map(|(p, _)| p.ops()),
        )
        .filter_map(|op| match op {
            Op::RowLane0 { slot, .. } => Some(usize::from(*slot) + 1),
            Op::Entry(EntryStep::RangeStart { at, .. }) => Some(usize::from(*at) + 2),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    // The spill slots, then the group's first id of dimension 1 and its
    // coordinates (stepped with a carry: no division per group), the
    // large-launch flag, scratch for the fault blocks and the accesses of
    // bytes, and each checked parameter's index bounds (and its bounds
    // in bytes, when an access of bytes tests them).
    let y_start_at = frame as i32;
    let g_at = [frame as i32 + 8, frame as i32 + 16, frame as i32 + 24];
    let large_at = frame as i32 + 32;
    let scratch_at = frame as i32 + 64;
    let bounds_at = scratch_at + super::access::SCRATCH_BYTES;
    let params = checked
        .iter()
        .map(|(p, _)| *p as i32 + 1)
        .max()
        .unwrap_or(0);
    let byte_bounds_at =
        super::access::needs_byte_bounds(body.ops()).then_some(bounds_at + 16 * params);
    // Then the row slots.
    let rows_at = bounds_at + 16 * params * if byte_bounds_at.is_some() { 2 } else { 1 };
    // The row slots of checked accesses, with their buffers' bounds.
    let mut row_checks: Vec<(u8, i32)> = Vec::new();
    for op in program.ops() {
        if let Op::LoadElems { how, .. } | Op::StoreElems { how, .. } = op {
            if let (Known::RowOffset(n, _), Some(c)) = (how.known, how.check) {
                let pair = (n, bounds_at + 16 * c.param as i32);
                if !row_checks.contains(&pair) {
                    row_checks.push(pair);
                }
            }
        }
    }
    // Six pushes and the return address leave rsp 8 past a multiple of
    // 16: locals of 8 more than a multiple of 16 align it for calls.
    let locals = rows_at + 8 * row_slots.next_multiple_of(2) as i32 + 8;
    let mut entry_frame = EntryFrame::new(large_at, bounds_at, scratch_at);
    entry_frame.byte_bounds_at = byte_bounds_at;
    entry_frame.rows_at = Some(rows_at);
    entry_frame.group_at = Some(g_at[0]);
    let q = 8;
    let mut a = CodeAssembler::new(64).map_err(asm_err)?;
    let e = asm_err;
    let fallback_l = a.create_label();
    // Launches the body cannot number go to the fallback untouched.
    fallback_test_and_saves(&mut a, fallback_l, opts.id_end)?;
    a.sub(rsp, locals).map_err(e)?;
    a.mov(rbx, rdi).map_err(e)?;
    a.mov(r12, rsi).map_err(e)?;
    a.mov(r13, rdx).map_err(e)?;
    a.mov(r14, rcx).map_err(e)?;
    launch_flags(&mut a, &entry_frame, opts.stream_min_items)?;
    // Robust access: each checked parameter's valid indices.
    if !checked.is_empty() {
        let tail = opts
            .checked_tail
            .ok_or_else(|| WideError::Malformed("a bounds test without a tail".into()))?
            as i32;
        let tables = [(bounds_at, index_bounds as *const () as u64)]
            .into_iter()
            .chain(byte_bounds_at.map(|b| (b, byte_index_bounds as *const () as u64)));
        for (table, bounds) in tables {
            for (param, slot) in &checked {
                let at = tail + co::BOUNDS + co::BOUNDS_ENTRY * *param as i32;
                a.mov(rdi, qword_ptr(rbx + *slot)).map_err(e)?;
                a.mov(rsi, qword_ptr(rbx + at)).map_err(e)?;
                a.mov(rdx, qword_ptr(rbx + (at + 8))).map_err(e)?;
                a.mov(rax, bounds).map_err(e)?;
                a.call(rax).map_err(e)?;
                let at = table + 16 * *param as i32;
                a.movsxd(r10, eax).map_err(e)?;
                a.mov(qword_ptr(rsp + at), r10).map_err(e)?;
                a.sar(rax, 32).map_err(e)?;
                a.mov(qword_ptr(rsp + (at + 8)), rax).map_err(e)?;
            }
        }
    }
    let mut done = a.create_label();
    let mut exit = a.create_label();
    let cancelled = a.create_label();
    // The first group's coordinates: g = g0 + n0 * (g1 + n1 * g2).
    a.mov(rax, r13).map_err(e)?;
    a.xor(edx, edx).map_err(e)?;
    a.div(qword_ptr(r12 + lo::NUM_GROUPS)).map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[0]), rdx).map_err(e)?;
    a.xor(edx, edx).map_err(e)?;
    a.div(qword_ptr(r12 + (lo::NUM_GROUPS + q))).map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[1]), rdx).map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[2]), rax).map_err(e)?;
    // The program's loops run their bodies at least once: a call with no
    // group ends here (every group has at least one work-item in each
    // dimension, so its planes, rows and chunks do).
    a.cmp(r13, r14).map_err(e)?;
    a.jae(done).map_err(e)?;
    let mut steps = |a: &mut CodeAssembler, code: EntryCode| -> Result<(), WideError> {
        if let EntryCode::Back(l, _) = code {
            if !matches!(l, EntryLoop::Chunks { .. } | EntryLoop::Full { .. }) {
                return Err(WideError::Malformed(format!("{l:?} folding its latch")));
            }
        }
        entry_code(
            a,
            code,
            y_start_at,
            g_at,
            (rows_at, row_slots, &row_checks),
            cancelled,
        )
        .map_err(asm_err)
    };
    let mut pool = ConstPool::default();
    if let Some((_, untested, _)) = &proven {
        // The launch's ids of dimension 0, [offset, offset + size): the
        // index of every access that [`checks_follow_the_id`]. Inside
        // every checked buffer's bounds, no access can fault: the body
        // without tests; otherwise the tested one.
        let mut tested = a.create_label();
        a.mov(rax, qword_ptr(r12 + lo::GLOBAL_OFFSET)).map_err(e)?;
        a.mov(r11, rax).map_err(e)?;
        a.add(r11, qword_ptr(r12 + lo::GLOBAL_SIZE)).map_err(e)?;
        a.dec(r11).map_err(e)?;
        for (param, _) in &checked {
            let at = bounds_at + 16 * *param as i32;
            a.cmp(rax, qword_ptr(rsp + at)).map_err(e)?;
            a.jl(tested).map_err(e)?;
            a.cmp(r11, qword_ptr(rsp + (at + 8))).map_err(e)?;
            a.jg(tested).map_err(e)?;
        }
        emit_by_width(
            &mut a,
            (untested, proven_narrow.as_ref().map(|(_, n)| n)),
            proven.as_ref().map_or(1, |(_, _, n)| *n),
            &mut EmitAt {
                release_frame: 0,
                cancel: Some(cancelled),
                entry: Some(&mut entry_frame),
                steps: Some(&mut steps),
                fold_latches: true,
            },
            &mut pool,
            done,
        )?;
        a.jmp(done).map_err(e)?;
        a.set_label(&mut tested).map_err(e)?;
        a.zero_bytes().map_err(e)?;
    }
    if let Some((_, one)) = &spread {
        let mut wide = a.create_label();
        let mut apart = a.create_label();
        emit_spread_test(&mut a, &opts.spread.params, apart)?;
        a.jmp(wide).map_err(e)?;
        a.set_label(&mut apart).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        emit_allocated_pooled(
            &mut a,
            one,
            &mut EmitAt {
                release_frame: 0,
                cancel: Some(cancelled),
                entry: Some(&mut entry_frame),
                steps: Some(&mut steps),
                fold_latches: true,
            },
            &mut pool,
        )?;
        a.jmp(done).map_err(e)?;
        a.set_label(&mut wide).map_err(e)?;
        a.zero_bytes().map_err(e)?;
    }
    emit_by_width(
        &mut a,
        (&alloc, narrow.as_ref().map(|(_, n)| n)),
        in_flight,
        &mut EmitAt {
            release_frame: 0,
            cancel: Some(cancelled),
            entry: Some(&mut entry_frame),
            steps: Some(&mut steps),
            fold_latches: true,
        },
        &mut pool,
        done,
    )?;
    a.set_label(&mut done).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.xor(eax, eax).map_err(e)?;
    a.set_label(&mut exit).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    if counts.streaming > 0 {
        // Streamed stores are weakly ordered: visible before whatever
        // tells another thread that these groups ran.
        a.sfence().map_err(e)?;
    }
    a.add(rsp, locals).map_err(e)?;
    for r in [r15, r14, r13, r12, rbp, rbx] {
        a.pop(r).map_err(e)?;
    }
    a.vzeroupper().map_err(e)?;
    a.ret().map_err(e)?;
    let mut cancelled = cancelled;
    a.set_label(&mut cancelled).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(eax, KernelStatus::Cancelled as u32).map_err(e)?;
    a.jmp(exit).map_err(e)?;
    emit_cold(&mut a, &mut entry_frame, opts, exit)?;
    let constants = pool.len();
    let (memory, entry, code_bytes) = fallback_jump_pool_and_map(a, fallback_l, fallback, pool)?;
    Ok(KernelCode {
        _memory: memory,
        entry,
        size: code_bytes,
        spill_slots: alloc.stats().spill_slots,
        ops: program.ops().len(),
        chunks_in_flight: in_flight as usize,
        proven_in_flight: proven.as_ref().map_or(0, |(_, _, n)| *n as usize),
        narrow_rows: if narrow.is_some() {
            narrow_rows(in_flight) as usize
        } else {
            proven
                .as_ref()
                .filter(|_| proven_narrow.is_some())
                .map_or(0, |(_, _, n)| narrow_rows(*n) as usize)
        },
        invariant,
        row_invariant,
        row_slots,
        versioned_clamps: program
            .ops()
            .iter()
            .filter(|op| matches!(op, Op::Entry(EntryStep::RangeClamp { .. })))
            .count(),
        compile_time: start.elapsed(),
        memory: MemoryCounts {
            constants,
            ..counts
        },
        id_end: opts.id_end,
        spread_fixed: opts.spread.fixed
            && body.ops().iter().any(|op| matches!(op, Op::Loop))
            && interleaving_keeps_faults(body),
        spread_tests: if spread.is_some() {
            opts.spread.params.len()
        } else {
            0
        },
    })
}

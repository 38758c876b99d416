//! The wide entry of kernels with `__local` memory or barriers: the
//! group's chunks run region by region, as Cranelift's chunk driver runs
//! them (`docs/jit.md`, "Barriers").
//!
//! The kernel's body, after `vecl_ir::transform::regions`, is a sequence
//! of regions cut at its top-level barriers; a region graph also writes
//! the index of the region to run next into `$next`. Each region is
//! lowered on its own ([`super::lower::lower_regions`]) into the body of
//! one 16-lane chunk, allocated by `regalloc2`, and placed inside a copy of
//! the row and chunk loops of [`super::entry`]; every chunk of the group
//! runs region `r` before any runs the next. The variables that live in
//! more than one region are kept per chunk in the context area the runtime
//! passes (`context + chunk · save_bytes`, 64 bytes a variable, 128 a `double`), which the
//! chunk's body reloads and stores through `Arg::Save` (r14).
//!
//! After each chunk of a region graph, the running lanes' `$next` must
//! agree with each other and with the group's first chunk (OpenCL requires
//! the whole group to reach each barrier together); a group that splits
//! stops the entry with `KernelStatus::DivergentBarrier` and the two
//! successors reported through `abi::vecl_barrier_divergence`, as the
//! Cranelift code does. `__local` accesses go through the arena the
//! runtime passes (`[rsp + local_at]`), at the offsets of
//! `layout::global_places` for the kernel's `__local` variables and at the
//! argument's offset for a `__local` argument; robust access tests them
//! against the variable's bytes or the argument's range.
//!
//! Registers as in [`super::entry`], except r14: the chunk's save area
//! (the end group is kept in the frame).

use super::access::{byte_index_bounds, emit_cold, index_bounds, Base, EntryFrame};
use super::emit::{asm_err, ConstPool};
use super::entry::{
    fallback_jump_pool_and_map, fallback_test_and_saves, range_end, EntryOptions, KernelCode,
    KernelEntry, MemoryCounts,
};
use super::lower::LoweredRegions;
use super::ra2::{
    allocate_ra2, allocate_ra2_pooled, emit_allocated_pooled, Allocated, EmitAt, EntryCode,
    EntrySteps,
};
use super::rows::{Along, InRows, SameInEveryRow};
use super::{EntryStep, Op, Program, WideError};
use crate::abi::{checked_offsets as co, launch_offsets as lo, KernelStatus, LOCAL_ID_BITS};
use iced_x86::code_asm::*;
use std::time::Instant;
use vecl_ir::transform::regions::{END, REGION_MASK};

/// A buffer whose bounds the bodies' accesses test: the number the tests
/// go by, the argument slot and where the buffer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Checked {
    number: u32,
    slot: i32,
    base: Base,
}

/// The buffers the bodies test, and the counts of their accesses.
fn memory_facts(bodies: &[Program]) -> (Vec<Checked>, MemoryCounts) {
    let mut checked: Vec<Checked> = Vec::new();
    let mut n = MemoryCounts::default();
    for op in bodies.iter().flat_map(|b| b.ops()) {
        let (ptr, how) = match op {
            Op::LoadElems { ptr, how, .. } | Op::StoreElems { ptr, how, .. } => (*ptr, how),
            _ => continue,
        };
        n.streaming += usize::from(how.stream);
        n.prefetched += usize::from(how.prefetch);
        n.bytes += usize::from(how.byte.is_some());
        if let Some(c) = how.check {
            n.checked += 1;
            if !checked.iter().any(|x| x.number == c.param) {
                checked.push(Checked {
                    number: c.param,
                    slot: ptr,
                    base: how.base,
                });
            }
        }
    }
    (checked, n)
}

/// A compiled barrier kernel: its code and the bytes of context it needs
/// per chunk.
pub struct RegionCode {
    pub code: KernelCode,
    /// Bytes of a chunk's save area (`CompiledKernel::context_size` must
    /// give at least this per work-item of a group).
    pub save_bytes: u32,
    /// Regions of the kernel.
    pub regions: usize,
    /// Per region: the rows of a group it runs in flight (for groups
    /// whose rows are one chunk each; `super::rows`), 1 for none.
    pub in_rows: Vec<u32>,
    /// Per region: the fewest rows it runs in flight (its last tier), 1
    /// for none.
    pub least_rows: Vec<u32>,
    /// Loads that the rows in flight share (made once for them).
    pub shared_loads: usize,
    /// Per region: the full chunks of a row it runs in flight (for
    /// groups whose rows are wider than a chunk; `super::rows`), 1 for
    /// none.
    pub in_chunks: Vec<u32>,
    /// Loads that the chunks in flight share.
    pub chunk_shared_loads: usize,
    /// Uniform loads fused into the FMA that reads them, as its broadcast
    /// operand ([`Op::FmaSum`]), in the one-row bodies.
    pub fused_loads: usize,
    /// Loads of sums of later rows in flight read through the first row's
    /// address at a displacement (`rows::affine_parts`), in the bodies
    /// that run the most rows.
    pub displaced_loads: usize,
    /// Accesses of later rows in flight whose index is the previous
    /// row's plus a step (`rows::shifted_row_indices`), in the bodies that
    /// run the most rows.
    pub stepped_indices: usize,
    /// Regions whose rows in flight store one `$next` for all of them,
    /// tested once (`rows::one_successor`).
    pub one_successor: usize,
    /// Set by the selection when the wide code was chosen only for its
    /// rows in flight (a tile loop too light for one chunk at a time):
    /// the fewest rows a region runs in flight. A launch whose groups run
    /// no rows in flight (rows wider than a chunk, fewer rows than that)
    /// is then slower on this code than on Cranelift's, and runs that.
    pub needs_rows: Option<u32>,
}

/// The frame's fields past the spill slots.
struct Frame {
    y_start: i32,
    z_start: i32,
    g: [i32; 3],
    large: i32,
    end_group: i32,
    local: i32,
    context: i32,
    region: i32,
    next: i32,
    scratch: i32,
    bounds: i32,
}

/// Compiles the entry of a kernel whose regions `lowered` holds; `graph`:
/// the regions form a region graph (`$next` chooses the successor), else
/// they run in order. `chunks`: the regions with a loop also get full
/// chunks of a row in flight (`super::rows`), for groups whose rows are
/// wider than a chunk.
pub fn compile_regions(
    lowered: &LoweredRegions,
    fallback: KernelEntry,
    opts: &EntryOptions,
    chunks: bool,
) -> Result<RegionCode, WideError> {
    if !super::supported() {
        return Err(WideError::NoAvx512);
    }
    let start = Instant::now();
    let bodies = &lowered.bodies;
    // Each region's constants read from the code's pool where the
    // instruction takes a memory operand (`ra2::allocate_ra2_pooled`).
    let allocs: Vec<Allocated> = bodies
        .iter()
        .map(allocate_ra2_pooled)
        .collect::<Result<_, _>>()?;
    // Rows in flight only for a kernel that reads the ids of dimension 1
    // (groups of one row, as nbody's, would compile them for nothing).
    let two_d = bodies
        .iter()
        .flat_map(|b| b.ops())
        .any(|op| matches!(op, Op::GlobalId { dim: 1, .. }));
    // The copies in flight (`rows::rows_for`) are allocated without the
    // pool and weighed against the region allocated so too.
    let plain: Vec<Allocated> = if two_d || chunks {
        bodies.iter().map(allocate_ra2).collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    let same = SameInEveryRow::of(bodies, &lowered.row_steps, Along::Rows)
        .with_save_bytes(lowered.save_bytes);
    let multi: Vec<Vec<InRows>> = if two_d {
        bodies
            .iter()
            .zip(&plain)
            .map(|(b, single)| super::rows::rows_for(b, single, &same))
            .collect::<Result<_, _>>()?
    } else {
        bodies.iter().map(|_| Vec::new()).collect()
    };
    // Full chunks of a row in flight, for the regions with a loop, where
    // a group's rows are wider than a chunk.
    let same_chunks = SameInEveryRow::of(bodies, &lowered.chunk_steps, Along::Chunks);
    let chunked: Vec<Vec<InRows>> = if chunks {
        bodies
            .iter()
            .zip(&plain)
            .map(|(b, single)| super::rows::rows_for(b, single, &same_chunks))
            .collect::<Result<_, _>>()?
    } else {
        bodies.iter().map(|_| Vec::new()).collect()
    };
    let spill = allocs
        .iter()
        .chain(multi.iter().flatten().map(|m| &m.alloc))
        .chain(chunked.iter().flatten().map(|m| &m.alloc))
        .map(|a| a.frame())
        .max()
        .unwrap_or(0) as i32;
    let (checked, counts) = memory_facts(bodies);
    let f = Frame {
        y_start: spill,
        z_start: spill + 8,
        g: [spill + 16, spill + 24, spill + 32],
        large: spill + 40,
        end_group: spill + 48,
        local: spill + 56,
        context: spill + 64,
        region: spill + 72,
        next: spill + 80,
        scratch: spill + 128,
        bounds: spill + 128 + super::access::SCRATCH_BYTES,
    };
    let numbers = checked
        .iter()
        .map(|c| c.number as i32 + 1)
        .max()
        .unwrap_or(0);
    // The addresses of the loads of sums (`Op::LoadSum`): the bodies run
    // one after another, so they share the slots.
    let sums = allocs
        .iter()
        .chain(multi.iter().flatten().map(|m| &m.alloc))
        .chain(chunked.iter().flatten().map(|m| &m.alloc))
        .map(|a| super::ra2::sum_slots(a).len())
        .max()
        .unwrap_or(0) as i32;
    let byte_bounds = super::access::needs_byte_bounds(
        bodies
            .iter()
            .flat_map(|b| b.ops())
            .chain(multi.iter().flatten().flat_map(|m| m.program.ops()))
            .chain(chunked.iter().flatten().flat_map(|m| m.program.ops())),
    )
    .then_some(f.bounds + 16 * numbers);
    let sums_at = f.bounds + 16 * numbers * if byte_bounds.is_some() { 2 } else { 1 };
    // Six pushes and the return address leave rsp 8 past a multiple of
    // 16: locals of 8 more than a multiple of 16 align it for calls.
    let locals = sums_at + 16 * ((sums + 1) / 2) + 8;
    let mut frame = EntryFrame::new(f.large, f.bounds, f.scratch);
    frame.byte_bounds_at = byte_bounds;
    frame.local_at = Some(f.local);
    frame.sums_at = Some(sums_at);
    frame.group_at = Some(f.g[0]);
    let q = 8;
    let mut a = CodeAssembler::new(64).map_err(asm_err)?;
    let mut pool = ConstPool::default();
    let e = asm_err;
    let fallback_l = a.create_label();
    // Launches the bodies cannot number go to the fallback untouched.
    fallback_test_and_saves(&mut a, fallback_l, opts.id_end)?;
    a.sub(rsp, locals).map_err(e)?;
    a.mov(rbx, rdi).map_err(e)?;
    a.mov(r12, rsi).map_err(e)?;
    a.mov(r13, rdx).map_err(e)?;
    a.mov(qword_ptr(rsp + f.end_group), rcx).map_err(e)?;
    a.mov(qword_ptr(rsp + f.local), r8).map_err(e)?;
    a.mov(qword_ptr(rsp + f.context), r9).map_err(e)?;
    super::access::launch_flags(&mut a, &frame, opts.stream_min_items)?;
    // Robust access: each tested buffer's valid indices.
    if !checked.is_empty() {
        let tail = opts
            .checked_tail
            .ok_or_else(|| WideError::Malformed("a bounds test without a tail".into()))?
            as i32;
        let tables = [(f.bounds, index_bounds as *const () as u64)]
            .into_iter()
            .chain(byte_bounds.map(|b| (b, byte_index_bounds as *const () as u64)));
        for (table, bounds) in tables {
            for c in &checked {
                let at = tail + co::BOUNDS + co::BOUNDS_ENTRY * c.number as i32;
                match c.base {
                    Base::Arg => {
                        a.mov(rdi, qword_ptr(rbx + c.slot)).map_err(e)?;
                        a.mov(rsi, qword_ptr(rbx + at)).map_err(e)?;
                        a.mov(rdx, qword_ptr(rbx + (at + 8))).map_err(e)?;
                    }
                    Base::LocalArg => {
                        // The argument's range, as offsets into the arena.
                        a.mov(rax, qword_ptr(rsp + f.local)).map_err(e)?;
                        a.mov(rdi, qword_ptr(rbx + c.slot)).map_err(e)?;
                        a.add(rdi, rax).map_err(e)?;
                        a.mov(rsi, qword_ptr(rbx + at)).map_err(e)?;
                        a.add(rsi, rax).map_err(e)?;
                        a.mov(rdx, qword_ptr(rbx + (at + 8))).map_err(e)?;
                        a.add(rdx, rax).map_err(e)?;
                    }
                    Base::LocalAt { offset, size } => {
                        // The variable's own bytes.
                        a.mov(rdi, qword_ptr(rsp + f.local)).map_err(e)?;
                        a.add(rdi, offset as i32).map_err(e)?;
                        a.mov(rsi, rdi).map_err(e)?;
                        a.lea(rdx, qword_ptr(rdi + size as i32)).map_err(e)?;
                    }
                }
                a.mov(rax, bounds).map_err(e)?;
                a.call(rax).map_err(e)?;
                let at = table + 16 * c.number as i32;
                a.movsxd(r10, eax).map_err(e)?;
                a.mov(qword_ptr(rsp + at), r10).map_err(e)?;
                a.sar(rax, 32).map_err(e)?;
                a.mov(qword_ptr(rsp + (at + 8)), rax).map_err(e)?;
            }
        }
    }
    let mut group = a.create_label();
    let mut region_loop = a.create_label();
    let mut next_group = a.create_label();
    let mut done = a.create_label();
    let mut exit = a.create_label();
    let mut cancelled = a.create_label();
    let mut split_lanes = a.create_label();
    let mut split_chunks = a.create_label();
    // The first group's coordinates: g = g0 + n0 * (g1 + n1 * g2).
    a.mov(rax, r13).map_err(e)?;
    a.xor(edx, edx).map_err(e)?;
    a.div(qword_ptr(r12 + lo::NUM_GROUPS)).map_err(e)?;
    a.mov(qword_ptr(rsp + f.g[0]), rdx).map_err(e)?;
    a.xor(edx, edx).map_err(e)?;
    a.div(qword_ptr(r12 + (lo::NUM_GROUPS + q))).map_err(e)?;
    a.mov(qword_ptr(rsp + f.g[1]), rdx).map_err(e)?;
    a.mov(qword_ptr(rsp + f.g[2]), rax).map_err(e)?;
    a.set_label(&mut group).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.cmp(r13, qword_ptr(rsp + f.end_group)).map_err(e)?;
    a.jae(done).map_err(e)?;
    a.mov(qword_ptr(rsp + f.region), 0).map_err(e)?;
    a.set_label(&mut region_loop).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    // The group's rows and chunks (recomputed per region: the bodies
    // leave no register but the frame).
    a.mov(rbp, qword_ptr(rsp + f.g[0])).map_err(e)?;
    a.mov(rdx, qword_ptr(rsp + f.g[1])).map_err(e)?;
    a.mov(r9, qword_ptr(rsp + f.g[2])).map_err(e)?;
    a.imul_2(r9, qword_ptr(r12 + (lo::LOCAL_SIZE + 2 * q)))
        .map_err(e)?;
    a.add(r9, qword_ptr(r12 + (lo::GLOBAL_OFFSET + 2 * q)))
        .map_err(e)?;
    a.mov(qword_ptr(rsp + f.z_start), r9).map_err(e)?;
    a.mov(rcx, r9).map_err(e)?;
    range_end(
        &mut a,
        rcx,
        lo::LOCAL_SIZE + 2 * q,
        lo::GLOBAL_OFFSET + 2 * q,
        lo::GLOBAL_SIZE + 2 * q,
    )
    .map_err(e)?;
    a.mov(r8, rdx).map_err(e)?;
    a.imul_2(r8, qword_ptr(r12 + (lo::LOCAL_SIZE + q)))
        .map_err(e)?;
    a.add(r8, qword_ptr(r12 + (lo::GLOBAL_OFFSET + q)))
        .map_err(e)?;
    a.mov(qword_ptr(rsp + f.y_start), r8).map_err(e)?;
    range_end(
        &mut a,
        r8,
        lo::LOCAL_SIZE + q,
        lo::GLOBAL_OFFSET + q,
        lo::GLOBAL_SIZE + q,
    )
    .map_err(e)?;
    a.imul_2(rbp, qword_ptr(r12 + lo::LOCAL_SIZE)).map_err(e)?;
    a.add(rbp, qword_ptr(r12 + lo::GLOBAL_OFFSET)).map_err(e)?;
    a.mov(rsi, rbp).map_err(e)?;
    range_end(
        &mut a,
        rsi,
        lo::LOCAL_SIZE,
        lo::GLOBAL_OFFSET,
        lo::GLOBAL_SIZE,
    )
    .map_err(e)?;
    // No successor chosen yet by the group's chunks.
    a.mov(qword_ptr(rsp + f.next), -1).map_err(e)?;
    a.mov(r14, qword_ptr(rsp + f.context)).map_err(e)?;
    // Dispatch on the region.
    let mut labels: Vec<CodeLabel> = (0..allocs.len()).map(|_| a.create_label()).collect();
    a.mov(rax, qword_ptr(rsp + f.region)).map_err(e)?;
    for (r, l) in labels.iter().enumerate() {
        a.cmp(rax, r as i32).map_err(e)?;
        a.je(*l).map_err(e)?;
    }
    // A successor naming no region: the group is finished.
    a.jmp(next_group).map_err(e)?;
    let save_bytes = lowered.save_bytes as i32;
    let mut steps = |a: &mut CodeAssembler, code: EntryCode| -> Result<(), WideError> {
        match code {
            EntryCode::Step(EntryStep::NextRow(n)) => next_row(a, n, save_bytes).map_err(asm_err),
            EntryCode::Step(EntryStep::BackRow(n)) => next_row(a, -n, save_bytes).map_err(asm_err),
            EntryCode::Step(EntryStep::NextChunk(n)) => {
                next_chunk(a, n, save_bytes).map_err(asm_err)
            }
            EntryCode::Step(EntryStep::BackChunk(n)) => {
                next_chunk(a, -n, save_bytes).map_err(asm_err)
            }
            _ => Err(WideError::Malformed(format!("{code:?} in a region"))),
        }
    };
    let split = (split_lanes, split_chunks);
    let next = lowered.next_at.map(|at| (&f, at, split));
    for (r, alloc) in allocs.iter().enumerate() {
        a.set_label(&mut labels[r]).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        let mut z_done = a.create_label();
        if !multi[r].is_empty() {
            // Rows in flight where the group's rows are one chunk each
            // (the chunks then run in the order of one at a time): as
            // many of the most rows as fit, then of the next tier, then
            // one at a time.
            let mut single = a.create_label();
            a.mov(rax, rsi).map_err(e)?;
            a.sub(rax, rbp).map_err(e)?;
            a.cmp(rax, 16).map_err(e)?;
            a.ja(single).map_err(e)?;
            let mut z_loop = a.create_label();
            let last = a.create_label();
            let mut y_done = a.create_label();
            a.set_label(&mut z_loop).map_err(e)?;
            a.zero_bytes().map_err(e)?;
            a.cmp(r9, rcx).map_err(e)?;
            a.jae(z_done).map_err(e)?;
            a.mov(rdi, qword_ptr(rsp + f.y_start)).map_err(e)?;
            let mut y_loops: Vec<CodeLabel> = multi[r].iter().map(|_| a.create_label()).collect();
            y_loops.push(last);
            for (t, tier) in multi[r].iter().enumerate() {
                let n = tier.rows as i32;
                let fewer = y_loops[t + 1];
                a.set_label(&mut y_loops[t]).map_err(e)?;
                a.zero_bytes().map_err(e)?;
                a.lea(rax, qword_ptr(rdi + (n - 1))).map_err(e)?;
                a.cmp(rax, r8).map_err(e)?;
                a.jae(fewer).map_err(e)?;
                a.mov(r15, rbp).map_err(e)?;
                chunk_body(
                    &mut a,
                    &tier.alloc,
                    &mut frame,
                    Some(&mut steps),
                    (cancelled, &mut pool),
                )?;
                // The rows' chunks in order (the same lanes: the same ids
                // of dimension 0); one test where the rows store one
                // successor.
                let one = lowered.next_at.is_some_and(|at| {
                    super::rows::one_successor(&tier.program, at, tier.rows, lowered.save_bytes)
                });
                for row in 0..n {
                    if let (Some(at), false) = (lowered.next_at, one && row > 0) {
                        next_test(&mut a, &f, at, split).map_err(e)?;
                    }
                    a.add(r14, save_bytes).map_err(e)?;
                    a.inc(rdi).map_err(e)?;
                }
                a.mov(rax, qword_ptr(r12 + lo::STOP_FLAG)).map_err(e)?;
                a.cmp(dword_ptr(rax), 0).map_err(e)?;
                a.jne(cancelled).map_err(e)?;
                a.jmp(y_loops[t]).map_err(e)?;
            }
            // The rows left, fewer than the last tier's: one at a time.
            a.set_label(&mut y_loops[multi[r].len()]).map_err(e)?;
            a.zero_bytes().map_err(e)?;
            a.cmp(rdi, r8).map_err(e)?;
            a.jae(y_done).map_err(e)?;
            a.mov(r15, rbp).map_err(e)?;
            one_chunk(
                &mut a,
                alloc,
                &mut frame,
                (cancelled, &mut pool),
                next,
                save_bytes,
            )?;
            a.inc(rdi).map_err(e)?;
            a.jmp(y_loops[multi[r].len()]).map_err(e)?;
            a.set_label(&mut y_done).map_err(e)?;
            a.zero_bytes().map_err(e)?;
            a.inc(r9).map_err(e)?;
            a.jmp(z_loop).map_err(e)?;
            a.set_label(&mut single).map_err(e)?;
            a.zero_bytes().map_err(e)?;
        }
        let mut z_loop = a.create_label();
        let mut y_loop = a.create_label();
        let mut y_done = a.create_label();
        let mut x_loop = a.create_label();
        let mut x_done = a.create_label();
        a.set_label(&mut z_loop).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.cmp(r9, rcx).map_err(e)?;
        a.jae(z_done).map_err(e)?;
        a.mov(rdi, qword_ptr(rsp + f.y_start)).map_err(e)?;
        a.set_label(&mut y_loop).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.cmp(rdi, r8).map_err(e)?;
        a.jae(y_done).map_err(e)?;
        a.mov(r15, rbp).map_err(e)?;
        // Full chunks of the row in flight, as many of the most as fit,
        // then of the next tier; the chunks left (a partial last one
        // included) one at a time below, in the order of one at a time.
        let mut c_loops: Vec<CodeLabel> = chunked[r].iter().map(|_| a.create_label()).collect();
        c_loops.push(x_loop);
        for (t, tier) in chunked[r].iter().enumerate() {
            let n = tier.rows as i32;
            let fewer = c_loops[t + 1];
            a.set_label(&mut c_loops[t]).map_err(e)?;
            a.zero_bytes().map_err(e)?;
            a.lea(rax, qword_ptr(r15 + 16 * n)).map_err(e)?;
            a.cmp(rax, rsi).map_err(e)?;
            a.ja(fewer).map_err(e)?;
            chunk_body(
                &mut a,
                &tier.alloc,
                &mut frame,
                Some(&mut steps),
                (cancelled, &mut pool),
            )?;
            // The chunks' `$next` tests in order (all 16 lanes in each).
            for _ in 0..n {
                if let Some(at) = lowered.next_at {
                    next_test(&mut a, &f, at, split).map_err(e)?;
                }
                a.add(r14, save_bytes).map_err(e)?;
                a.add(r15, 16).map_err(e)?;
            }
            a.jmp(c_loops[t]).map_err(e)?;
        }
        a.set_label(&mut x_loop).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.cmp(r15, rsi).map_err(e)?;
        a.jae(x_done).map_err(e)?;
        one_chunk(
            &mut a,
            alloc,
            &mut frame,
            (cancelled, &mut pool),
            next,
            save_bytes,
        )?;
        a.add(r15, 16).map_err(e)?;
        if let (Some(copies), Some(at)) = (&lowered.skips[r], lowered.skip_at) {
            // The chunk's last lane failed the region's `if (lid <
            // bound)`: so do the row's later chunks, which are skipped
            // (their save areas passed over). A partial chunk is the
            // row's last.
            a.cmp(dword_ptr(r14 + (at + 60 - save_bytes)), 0)
                .map_err(e)?;
            a.jne(x_loop).map_err(e)?;
            a.mov(rax, rsi).map_err(e)?;
            a.sub(rax, r15).map_err(e)?;
            a.jbe(x_done).map_err(e)?;
            a.add(rax, 15).map_err(e)?;
            a.shr(rax, 4).map_err(e)?;
            if copies.is_empty() {
                a.imul_3(rax, rax, save_bytes).map_err(e)?;
                a.add(r14, rax).map_err(e)?;
            } else {
                // The group-level variables the region wrote, from the
                // chunk before into each skipped one.
                let mut copy = a.create_label();
                a.set_label(&mut copy).map_err(e)?;
                for &at in copies {
                    a.vmovdqu32(zmm0, zmmword_ptr(r14 + (at - save_bytes)))
                        .map_err(e)?;
                    a.vmovdqu32(zmmword_ptr(r14 + at), zmm0).map_err(e)?;
                }
                a.add(r14, save_bytes).map_err(e)?;
                a.dec(rax).map_err(e)?;
                a.jnz(copy).map_err(e)?;
            }
            a.mov(r15, rsi).map_err(e)?;
        }
        a.jmp(x_loop).map_err(e)?;
        a.set_label(&mut x_done).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.mov(rax, qword_ptr(r12 + lo::STOP_FLAG)).map_err(e)?;
        a.cmp(dword_ptr(rax), 0).map_err(e)?;
        a.jne(cancelled).map_err(e)?;
        a.inc(rdi).map_err(e)?;
        a.jmp(y_loop).map_err(e)?;
        a.set_label(&mut y_done).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.inc(r9).map_err(e)?;
        a.jmp(z_loop).map_err(e)?;
        a.set_label(&mut z_done).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        // The successor: the one the chunks chose, or the next region.
        if lowered.next_at.is_some() {
            a.mov(eax, dword_ptr(rsp + f.next)).map_err(e)?;
            a.and(eax, REGION_MASK as i32).map_err(e)?;
            a.cmp(eax, END as i32).map_err(e)?;
            a.je(next_group).map_err(e)?;
            a.mov(qword_ptr(rsp + f.region), rax).map_err(e)?;
        } else {
            a.mov(qword_ptr(rsp + f.region), r as i32 + 1).map_err(e)?;
        }
        a.jmp(region_loop).map_err(e)?;
    }
    a.set_label(&mut next_group).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.inc(r13).map_err(e)?;
    // The next group's coordinates.
    let mut store_1 = a.create_label();
    let mut store_0 = a.create_label();
    a.mov(rax, qword_ptr(rsp + f.g[0])).map_err(e)?;
    a.inc(rax).map_err(e)?;
    a.cmp(rax, qword_ptr(r12 + lo::NUM_GROUPS)).map_err(e)?;
    a.jb(store_0).map_err(e)?;
    a.xor(eax, eax).map_err(e)?;
    a.mov(r10, qword_ptr(rsp + f.g[1])).map_err(e)?;
    a.inc(r10).map_err(e)?;
    a.cmp(r10, qword_ptr(r12 + (lo::NUM_GROUPS + q)))
        .map_err(e)?;
    a.jb(store_1).map_err(e)?;
    a.xor(r10d, r10d).map_err(e)?;
    a.inc(qword_ptr(rsp + f.g[2])).map_err(e)?;
    a.set_label(&mut store_1).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(qword_ptr(rsp + f.g[1]), r10).map_err(e)?;
    a.set_label(&mut store_0).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(qword_ptr(rsp + f.g[0]), rax).map_err(e)?;
    a.jmp(group).map_err(e)?;
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
    a.set_label(&mut cancelled).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(eax, KernelStatus::Cancelled as u32).map_err(e)?;
    a.jmp(exit).map_err(e)?;
    if lowered.next_at.is_some() {
        emit_split(&mut a, &f, (&mut split_lanes, &mut split_chunks), exit)?;
    }
    emit_cold(&mut a, &mut frame, opts, exit)?;
    let (memory, entry, code_bytes) = fallback_jump_pool_and_map(a, fallback_l, fallback, pool)?;
    Ok(RegionCode {
        code: KernelCode {
            _memory: memory,
            entry,
            size: code_bytes,
            spill_slots: allocs
                .iter()
                .chain(multi.iter().flatten().map(|m| &m.alloc))
                .chain(chunked.iter().flatten().map(|m| &m.alloc))
                .map(|a| a.stats().spill_slots)
                .sum(),
            ops: bodies.iter().map(|b| b.ops().len()).sum::<usize>()
                + multi
                    .iter()
                    .chain(&chunked)
                    .flatten()
                    .map(|m| m.program.ops().len())
                    .sum::<usize>(),
            compile_time: start.elapsed(),
            memory: counts,
            id_end: opts.id_end,
            spread_fixed: false,
            spread_tests: 0,
            chunks_in_flight: 1,
            proven_in_flight: 0,
            narrow_rows: 0,
            invariant: 0,
            row_invariant: 0,
            row_slots: 0,
            versioned_clamps: 0,
        },
        save_bytes: lowered.save_bytes,
        regions: bodies.len(),
        in_rows: multi
            .iter()
            .map(|m| m.first().map_or(1, |m| m.rows))
            .collect(),
        least_rows: multi
            .iter()
            .map(|m| m.last().map_or(1, |m| m.rows))
            .collect(),
        shared_loads: multi
            .iter()
            .filter_map(|m| m.first())
            .map(|m| m.shared_loads)
            .sum(),
        in_chunks: chunked
            .iter()
            .map(|m| m.first().map_or(1, |m| m.rows))
            .collect(),
        chunk_shared_loads: chunked
            .iter()
            .filter_map(|m| m.first())
            .map(|m| m.shared_loads)
            .sum(),
        fused_loads: bodies
            .iter()
            .flat_map(|b| b.ops())
            .filter(|op| matches!(op, Op::FmaSum { .. }))
            .count(),
        stepped_indices: multi
            .iter()
            .filter_map(|m| m.first())
            .map(|m| m.stepped)
            .sum(),
        one_successor: match lowered.next_at {
            Some(at) => multi
                .iter()
                .filter(|m| {
                    !m.is_empty()
                        && m.iter().all(|t| {
                            super::rows::one_successor(&t.program, at, t.rows, lowered.save_bytes)
                        })
                })
                .count(),
            None => 0,
        },
        displaced_loads: multi
            .iter()
            .filter_map(|m| m.first())
            .flat_map(|m| m.program.ops())
            .filter(
                |op| matches!(op, Op::LoadSum { disp, .. } | Op::FmaSum { disp, .. } if *disp != 0),
            )
            .count(),
        needs_rows: None,
    })
}

/// The cold blocks of a group whose work-items chose different successors:
/// two lanes of one chunk (`split_lanes`: zmm0 the lanes' successors, k1
/// the running lanes, k2 those that differ from the first), or a chunk
/// that differs from the group's first (`split_chunks`: eax its
/// successor). Reports both successors and a work-item that chose each
/// (`abi::vecl_barrier_divergence`), then returns
/// `KernelStatus::DivergentBarrier`.
fn emit_split(
    a: &mut CodeAssembler,
    f: &Frame,
    (split_lanes, split_chunks): (&mut CodeLabel, &mut CodeLabel),
    exit: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    let mut report = a.create_label();
    // rdx: the local id of the chunk's lane 0, packed.
    let chunk_local_id = |a: &mut CodeAssembler| -> Result<(), IcedError> {
        a.mov(rdx, r9)?;
        a.sub(rdx, qword_ptr(rsp + f.z_start))?;
        a.shl(rdx, LOCAL_ID_BITS)?;
        a.mov(rax, rdi)?;
        a.sub(rax, qword_ptr(rsp + f.y_start))?;
        a.add(rdx, rax)?;
        a.shl(rdx, LOCAL_ID_BITS)?;
        a.mov(rax, r15)?;
        a.sub(rax, rbp)?;
        a.add(rdx, rax)?;
        Ok(())
    };
    a.set_label(split_lanes).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    // The first running lane and the first that differs from it.
    a.vmovdqu32(zmmword_ptr(rsp + f.scratch), zmm0).map_err(e)?;
    chunk_local_id(a).map_err(e)?;
    a.kmovw(r10d, k1).map_err(e)?;
    a.bsf(r10d, r10d).map_err(e)?;
    a.kmovw(r11d, k2).map_err(e)?;
    a.bsf(r11d, r11d).map_err(e)?;
    a.mov(edi, dword_ptr(rsp + r10 * 4 + f.scratch))
        .map_err(e)?;
    a.lea(rsi, qword_ptr(rdx + r10)).map_err(e)?;
    a.mov(ecx, dword_ptr(rsp + r11 * 4 + f.scratch))
        .map_err(e)?;
    a.add(rdx, r11).map_err(e)?;
    a.jmp(report).map_err(e)?;
    a.set_label(split_chunks).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    // The group's first chunk starts at local id (0, 0, 0); this chunk's
    // first running lane is its lane 0 (a row's lanes start there).
    a.mov(ecx, eax).map_err(e)?;
    chunk_local_id(a).map_err(e)?;
    a.mov(edi, dword_ptr(rsp + f.next)).map_err(e)?;
    a.xor(esi, esi).map_err(e)?;
    // rdi, rsi: the first successor and its work-item; rcx, rdx: the
    // other's.
    a.set_label(&mut report).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.xchg(rdx, rcx).map_err(e)?;
    a.mov(r8, qword_ptr(rsp + f.g[0])).map_err(e)?;
    a.mov(r9, qword_ptr(rsp + f.g[1])).map_err(e)?;
    a.vzeroupper().map_err(e)?;
    // The seventh argument on the stack, which stays 16-aligned.
    a.mov(rax, qword_ptr(rsp + f.g[2])).map_err(e)?;
    a.sub(rsp, 16).map_err(e)?;
    a.mov(qword_ptr(rsp), rax).map_err(e)?;
    a.mov(rax, crate::abi::vecl_barrier_divergence as *const () as u64)
        .map_err(e)?;
    a.call(rax).map_err(e)?;
    a.add(rsp, 16).map_err(e)?;
    a.mov(eax, KernelStatus::DivergentBarrier as u32)
        .map_err(e)?;
    a.jmp(exit).map_err(e)?;
    Ok(())
}

/// One chunk of a region, one row at a time: its lanes (`chunk_lanes`),
/// the allocated body, the `$next` agreement test (`next`: the frame, the
/// save-area offset of `$next` and the cold blocks), and the save area
/// moved on to the next chunk's.
fn one_chunk(
    a: &mut CodeAssembler,
    alloc: &Allocated,
    frame: &mut EntryFrame,
    (cancelled, pool): (CodeLabel, &mut ConstPool),
    next: Option<(&Frame, i32, (CodeLabel, CodeLabel))>,
    save_bytes: i32,
) -> Result<(), WideError> {
    chunk_body(a, alloc, frame, None, (cancelled, pool))?;
    if let Some((f, at, split)) = next {
        next_test(a, f, at, split).map_err(asm_err)?;
    }
    a.add(r14, save_bytes).map_err(asm_err)?;
    Ok(())
}

/// The chunk at r15, or the chunks or rows in flight from it: its running
/// lanes (`chunk_lanes`), then the allocated body with the entry's frame
/// and, for copies in flight, the entry's steps between them.
fn chunk_body<'f>(
    a: &mut CodeAssembler,
    alloc: &Allocated,
    frame: &'f mut EntryFrame,
    steps: Option<&'f mut EntrySteps<'f>>,
    (cancelled, pool): (CodeLabel, &mut ConstPool),
) -> Result<(), WideError> {
    chunk_lanes(a).map_err(asm_err)?;
    emit_allocated_pooled(
        a,
        alloc,
        &mut EmitAt {
            release_frame: 0,
            cancel: Some(cancelled),
            entry: Some(frame),
            steps,
            fold_latches: false,
        },
        pool,
    )?;
    Ok(())
}

/// The running lanes of the chunk at r15 of the row that ends at rsi, in
/// edx.
fn chunk_lanes(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, rsi)?;
    a.sub(rax, r15)?;
    a.mov(edx, 0xffff)?;
    a.mov(r10d, 16)?;
    a.cmp(rax, r10)?;
    a.cmovb(r10, rax)?;
    a.bzhi(edx, edx, r10d)?;
    Ok(())
}

/// After a chunk of a region graph: its running lanes' successor (in its
/// save area at `at`) is the first one's, which every other running lane
/// and the group's first chunk must share; `split`: where they differ
/// ([`emit_split`]).
fn next_test(
    a: &mut CodeAssembler,
    f: &Frame,
    at: i32,
    (split_lanes, split_chunks): (CodeLabel, CodeLabel),
) -> Result<(), IcedError> {
    // The first running lane's successor read from memory (a chunk of
    // the loops has a running lane): shorter than a compress of the lanes
    // and a move out and back, whose latency stood before every chunk's
    // next start.
    a.kmovw(k1, edx)?;
    a.tzcnt(eax, edx)?;
    a.vmovdqu32(zmm0, zmmword_ptr(r14 + at))?;
    a.vpcmpd(k2.k1(), zmm0, dword_bcst(r14 + rax * 4 + at), 4)?;
    a.mov(eax, dword_ptr(r14 + rax * 4 + at))?;
    // Through a general register: cheaper than `kortestw` and a branch
    // on it on Zen 5 (`docs/wide.md`).
    a.kmovw(r11d, k2)?;
    a.test(r11d, r11d)?;
    a.jnz(split_lanes)?;
    let mut first = a.create_label();
    let mut agreed = a.create_label();
    a.cmp(qword_ptr(rsp + f.next), -1)?;
    a.je(first)?;
    a.cmp(dword_ptr(rsp + f.next), eax)?;
    a.jne(split_chunks)?;
    a.jmp(agreed)?;
    a.set_label(&mut first)?;
    a.zero_bytes()?;
    a.mov(qword_ptr(rsp + f.next), rax)?;
    a.set_label(&mut agreed)?;
    a.zero_bytes()?;
    Ok(())
}

/// [`EntryStep::NextChunk`] (`n` chunks along the row) and
/// [`EntryStep::BackChunk`] (`n` negative): the chunk's first id and its
/// save area (the row has that chunk, full: chunks in flight run only
/// then).
fn next_chunk(a: &mut CodeAssembler, n: i32, save: i32) -> Result<(), IcedError> {
    a.add(r15, 16 * n)?;
    a.add(r14, n * save)?;
    Ok(())
}

/// [`EntryStep::NextRow`] (`n` rows down) and [`EntryStep::BackRow`]
/// (`n` negative): the row's id and save area (the group has that row:
/// rows in flight run only then).
fn next_row(a: &mut CodeAssembler, n: i32, save: i32) -> Result<(), IcedError> {
    a.add(rdi, n)?;
    a.add(r14, n * save)?;
    Ok(())
}

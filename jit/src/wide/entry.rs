//! A kernel entry around a chunk body: the function the runtime calls
//! (`crate::abi`'s signature), with the work-group loop, the rows of each
//! group and the chunks of 16 work-items of each row written here, and the
//! body ([`Program`], from [`super::lower`]) allocated by `regalloc2` and
//! placed inside the chunk loop.
//!
//! The tail chunk of a row runs with a k-mask of its running lanes
//! (`RunningLanes`, from edx): no Cranelift code is involved for tails.
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
//! id of dimension 2 and rcx its end, edx the chunk's running lanes; the
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

use super::access::{emit_cold, index_bounds, EntryFrame};
use super::emit::asm_err;
use super::ra2::{allocate_ra2, emit_allocated, EmitAt};
use super::{Op, Program, WideError};
use crate::abi::{checked_offsets as co, launch_offsets as lo, KernelStatus, Launch};
use iced_x86::code_asm::*;
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
    pub(super) _memory: memmap2::Mmap,
    pub(super) entry: KernelEntry,
    /// Bytes of machine code.
    pub size: usize,
    /// Spill slots (8 bytes) of the body's frame.
    pub spill_slots: usize,
    /// Operations of the body.
    pub ops: usize,
    /// Time of allocation, assembly and mapping.
    pub compile_time: Duration,
    /// Accesses of the body: bounds-checked, streaming stores, prefetched
    /// loads (`super::access`).
    pub memory: MemoryCounts,
}

/// How many accesses of a body are bounds-checked, stream and prefetch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryCounts {
    pub checked: usize,
    pub streaming: usize,
    pub prefetched: usize,
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
    /// The entry, with the signature and contract of `crate::abi`.
    pub fn entry(&self) -> KernelEntry {
        self.entry
    }

    /// The machine code.
    pub fn bytes(&self) -> &[u8] {
        &self._memory[..self.size]
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
#[derive(Clone, Copy, Debug)]
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
        if let Some(c) = how.check {
            n.checked += 1;
            if !checked.iter().any(|(p, _)| *p == c.param) {
                checked.push((c.param, ptr));
            }
        }
    }
    (checked, n)
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
    let alloc = allocate_ra2(body)?;
    let frame = alloc.frame();
    let (checked, counts) = memory_facts(body);
    // The spill slots, then the group's first id of dimension 1 and its
    // coordinates (stepped with a carry: no division per group), the
    // large-launch flag, 64 bytes of scratch for the fault blocks, and
    // each checked parameter's index bounds.
    let y_start_at = frame as i32;
    let g_at = [frame as i32 + 8, frame as i32 + 16, frame as i32 + 24];
    let large_at = frame as i32 + 32;
    let scratch_at = frame as i32 + 64;
    let bounds_at = frame as i32 + 128;
    let params = checked
        .iter()
        .map(|(p, _)| *p as i32 + 1)
        .max()
        .unwrap_or(0);
    // Six pushes and the return address leave rsp 8 past a multiple of
    // 16: locals of 8 more than a multiple of 16 align it for calls.
    let locals = bounds_at + 16 * params + 8;
    let mut entry_frame = EntryFrame::new(large_at, bounds_at, scratch_at);
    let q = 8;
    let mut a = CodeAssembler::new(64).map_err(asm_err)?;
    let e = asm_err;
    let mut fallback_l = a.create_label();
    // Launches the body cannot number go to the fallback untouched.
    for d in 0..3 {
        a.mov(rax, qword_ptr(rsi + (lo::GLOBAL_OFFSET + q * d)))
            .map_err(e)?;
        a.add(rax, qword_ptr(rsi + (lo::GLOBAL_SIZE + q * d)))
            .map_err(e)?;
        a.jc(fallback_l).map_err(e)?;
        a.mov(r10, MAX_ID_END).map_err(e)?;
        a.cmp(rax, r10).map_err(e)?;
        a.ja(fallback_l).map_err(e)?;
    }
    for r in [rbx, rbp, r12, r13, r14, r15] {
        a.push(r).map_err(e)?;
    }
    a.sub(rsp, locals).map_err(e)?;
    a.mov(rbx, rdi).map_err(e)?;
    a.mov(r12, rsi).map_err(e)?;
    a.mov(r13, rdx).map_err(e)?;
    a.mov(r14, rcx).map_err(e)?;
    // Whether the launch has enough work-items to stream.
    a.mov(rax, qword_ptr(r12 + lo::GLOBAL_SIZE)).map_err(e)?;
    a.imul_2(rax, qword_ptr(r12 + (lo::GLOBAL_SIZE + q)))
        .map_err(e)?;
    a.imul_2(rax, qword_ptr(r12 + (lo::GLOBAL_SIZE + 2 * q)))
        .map_err(e)?;
    a.mov(r10, opts.stream_min_items).map_err(e)?;
    a.cmp(rax, r10).map_err(e)?;
    a.setae(byte_ptr(rsp + large_at)).map_err(e)?;
    // Robust access: each checked parameter's valid indices.
    if !checked.is_empty() {
        let tail = opts
            .checked_tail
            .ok_or_else(|| WideError::Malformed("a bounds test without a tail".into()))?
            as i32;
        for (param, slot) in &checked {
            let at = tail + co::BOUNDS + co::BOUNDS_ENTRY * *param as i32;
            a.mov(rdi, qword_ptr(rbx + *slot)).map_err(e)?;
            a.mov(rsi, qword_ptr(rbx + at)).map_err(e)?;
            a.mov(rdx, qword_ptr(rbx + (at + 8))).map_err(e)?;
            a.mov(rax, index_bounds as *const () as u64).map_err(e)?;
            a.call(rax).map_err(e)?;
            let at = bounds_at + 16 * *param as i32;
            a.movsxd(r10, eax).map_err(e)?;
            a.mov(qword_ptr(rsp + at), r10).map_err(e)?;
            a.sar(rax, 32).map_err(e)?;
            a.mov(qword_ptr(rsp + (at + 8)), rax).map_err(e)?;
        }
    }
    let mut group = a.create_label();
    let mut z_loop = a.create_label();
    let mut z_done = a.create_label();
    let mut y_loop = a.create_label();
    let mut y_done = a.create_label();
    let mut x_loop = a.create_label();
    let mut x_done = a.create_label();
    let mut done = a.create_label();
    let mut exit = a.create_label();
    let mut cancelled = a.create_label();
    // The first group's coordinates: g = g0 + n0 * (g1 + n1 * g2).
    a.mov(rax, r13).map_err(e)?;
    a.xor(edx, edx).map_err(e)?;
    a.div(qword_ptr(r12 + lo::NUM_GROUPS)).map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[0]), rdx).map_err(e)?;
    a.xor(edx, edx).map_err(e)?;
    a.div(qword_ptr(r12 + (lo::NUM_GROUPS + q))).map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[1]), rdx).map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[2]), rax).map_err(e)?;
    a.set_label(&mut group).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.cmp(r13, r14).map_err(e)?;
    a.jae(done).map_err(e)?;
    a.mov(rbp, qword_ptr(rsp + g_at[0])).map_err(e)?;
    a.mov(rdx, qword_ptr(rsp + g_at[1])).map_err(e)?;
    // Dimension 2: ids [r9, rcx).
    a.mov(r9, qword_ptr(rsp + g_at[2])).map_err(e)?;
    a.imul_2(r9, qword_ptr(r12 + (lo::LOCAL_SIZE + 2 * q)))
        .map_err(e)?;
    a.add(r9, qword_ptr(r12 + (lo::GLOBAL_OFFSET + 2 * q)))
        .map_err(e)?;
    a.mov(rcx, r9).map_err(e)?;
    range_end(
        &mut a,
        rcx,
        lo::LOCAL_SIZE + 2 * q,
        lo::GLOBAL_OFFSET + 2 * q,
        lo::GLOBAL_SIZE + 2 * q,
    )
    .map_err(e)?;
    // Dimension 1: ids from [rsp + y_start_at] to r8.
    a.mov(r8, rdx).map_err(e)?;
    a.imul_2(r8, qword_ptr(r12 + (lo::LOCAL_SIZE + q)))
        .map_err(e)?;
    a.add(r8, qword_ptr(r12 + (lo::GLOBAL_OFFSET + q)))
        .map_err(e)?;
    a.mov(qword_ptr(rsp + y_start_at), r8).map_err(e)?;
    range_end(
        &mut a,
        r8,
        lo::LOCAL_SIZE + q,
        lo::GLOBAL_OFFSET + q,
        lo::GLOBAL_SIZE + q,
    )
    .map_err(e)?;
    // Dimension 0: ids [rbp, rsi).
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
    a.set_label(&mut z_loop).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.cmp(r9, rcx).map_err(e)?;
    a.jae(z_done).map_err(e)?;
    a.mov(rdi, qword_ptr(rsp + y_start_at)).map_err(e)?;
    a.set_label(&mut y_loop).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.cmp(rdi, r8).map_err(e)?;
    a.jae(y_done).map_err(e)?;
    a.mov(r15, rbp).map_err(e)?;
    a.set_label(&mut x_loop).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.cmp(r15, rsi).map_err(e)?;
    a.jae(x_done).map_err(e)?;
    // The running lanes: all 16, or the row's remaining ones.
    // Without a branch: bzhi keeps the low min(rest, 16) bits.
    a.mov(rax, rsi).map_err(e)?;
    a.sub(rax, r15).map_err(e)?;
    a.mov(edx, 0xffff).map_err(e)?;
    a.mov(r10d, 16).map_err(e)?;
    a.cmp(rax, r10).map_err(e)?;
    a.cmovb(r10, rax).map_err(e)?;
    a.bzhi(edx, edx, r10d).map_err(e)?;
    let (zmm_set, _) = emit_allocated(
        &mut a,
        &alloc,
        &mut EmitAt {
            release_frame: 0,
            cancel: Some(cancelled),
            entry: Some(&mut entry_frame),
        },
    )?;
    a.add(r15, 16).map_err(e)?;
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
    a.inc(r13).map_err(e)?;
    // The next group's coordinates.
    let mut store_1 = a.create_label();
    let mut store_0 = a.create_label();
    a.mov(rax, qword_ptr(rsp + g_at[0])).map_err(e)?;
    a.inc(rax).map_err(e)?;
    a.cmp(rax, qword_ptr(r12 + lo::NUM_GROUPS)).map_err(e)?;
    a.jb(store_0).map_err(e)?;
    a.xor(eax, eax).map_err(e)?;
    a.mov(r10, qword_ptr(rsp + g_at[1])).map_err(e)?;
    a.inc(r10).map_err(e)?;
    a.cmp(r10, qword_ptr(r12 + (lo::NUM_GROUPS + q)))
        .map_err(e)?;
    a.jb(store_1).map_err(e)?;
    a.xor(r10d, r10d).map_err(e)?;
    a.inc(qword_ptr(rsp + g_at[2])).map_err(e)?;
    a.set_label(&mut store_1).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[1]), r10).map_err(e)?;
    a.set_label(&mut store_0).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(qword_ptr(rsp + g_at[0]), rax).map_err(e)?;
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
    emit_cold(&mut a, &mut entry_frame, opts, exit)?;
    a.set_label(&mut fallback_l).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(rax, fallback as usize as u64).map_err(e)?;
    a.jmp(rax).map_err(e)?;
    let _ = zmm_set;
    // Position-independent (labels are relative), so assembled at 0.
    let bytes = a.assemble(0).map_err(e)?;
    let mut mem = memmap2::MmapMut::map_anon(bytes.len().max(1))
        .map_err(|e| WideError::Memory(e.to_string()))?;
    mem[..bytes.len()].copy_from_slice(&bytes);
    let memory = mem
        .make_exec()
        .map_err(|e| WideError::Memory(e.to_string()))?;
    // SAFETY: the mapping holds the function just assembled, whose calling
    // convention is System V with the signature of `KernelEntry`; it lives
    // as long as the returned `KernelCode`.
    let entry = unsafe { std::mem::transmute::<*const u8, KernelEntry>(memory.as_ptr()) };
    Ok(KernelCode {
        _memory: memory,
        entry,
        size: bytes.len(),
        spill_slots: alloc.stats().spill_slots,
        ops: body.ops().len(),
        compile_time: start.elapsed(),
        memory: counts,
    })
}

//! The contract between JIT-compiled kernels and the runtime that calls them.
//!
//! One native entry per kernel runs a whole range of work-groups, so the call
//! cost is paid once per range, not per group or per work-item:
//!
//! ```text
//! extern "C" fn entry(
//!     args: *const u8,          // the argument block (layout: CompiledKernel::args)
//!     launch: *const Launch,    // the NDRange
//!     first_group: u64,         // linear group index, inclusive
//!     end_group: u64,           // linear group index, exclusive
//!     local_mem: *mut u8,       // this worker's __local arena (≥ Launch::local_mem_size bytes, 64-aligned,
//!                               //   LOCAL_PAD readable bytes on each side)
//!     context: *mut u8,         // this worker's context area (≥ CompiledKernel::context_size(local size) bytes, 64-aligned)
//! ) -> u32                      // 0 = completed; otherwise a `KernelStatus` code
//! ```
//!
//! Linear group index `g` maps to group ids `(g % n0, (g / n0) % n1, g / (n0 * n1))`
//! where `n = Launch::num_groups`. The last group in a dimension may be
//! smaller than `local_size` (OpenCL 2.0 non-uniform work-groups): its size is
//! `global_size - group_id * local_size`.
//!
//! **Argument block.** Each kernel parameter has a slot at
//! [`ArgSlot::offset`]: scalars and vectors by value (little-endian, vec3 as
//! vec4), `__global`/`__constant` pointers as an 8-byte address, a struct
//! passed by value as its bytes, and a `__local` pointer parameter as an
//! 8-byte **offset into `local_mem`** which the runtime chooses (after
//! `CompiledKernel::static_local_size`, each aligned to 64 bytes). The
//! kernel's own `__local` variables occupy `[0, static_local_size)`.
//!
//! **Checked mode.** A kernel compiled with `JitOptions::checked` tests
//! every load, store, atomic and copy of an active work-item against the
//! memory the launch may touch before making it. The runtime supplies what
//! it knows in a tail appended to the argument block, at
//! `CompiledKernel::checked_tail()` (8-aligned, after the parameter slots;
//! `CompiledKernel::args_size()` includes it):
//!
//! ```text
//! tail + 0            u64  address of this launch's FaultRecord (0: none)
//! tail + 8 + 16 * i   u64  start, u64 end of parameter i:
//!                            __global/__constant pointer: the buffer's bytes
//!                              [start, end)
//!                            __local pointer: [offset, offset + size), as
//!                              offsets into `local_mem` like the slot itself
//!                            a null pointer: u64::MAX, u64::MAX (nothing fits)
//!                            other parameters: unused
//! ```
//!
//! Every non-empty range ends past the first page of the address space (as
//! host memory does): the test of an access of n ≤ 4096 bytes is then
//! `start <= a <= end - n` without a wrap-around guard.
//!
//! The other valid ranges the code knows itself: the `__local` arena
//! `[local_mem, local_mem + Launch::local_mem_size)`, the kernel's
//! module-scope data, a struct parameter's bytes in the argument block, and
//! private memory (a slot's own bytes for the accessing work-item when the
//! pointer is known to come from that slot, else the chunk's private area).
//! On the first violation the entry calls [`vecl_checked_fault`] to fill the
//! [`FaultRecord`] (first writer wins across threads) and returns
//! [`KernelStatus::OutOfBounds`] at once; the runtime stops handing out
//! work-groups and reads the record.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bytes of readable memory the caller provides on each side of the
/// `__local` arena (`[local_mem - LOCAL_PAD, local_mem)` and the same
/// after `local_mem + Launch::local_mem_size`), at least the widest chunk
/// vector (64 lanes of 8 bytes). Unchecked code reads a consecutive
/// `__local` vector whole when it lies within them, though some of its
/// lanes are not running (`in[lid - k]` in the chunk where `lid < k`);
/// those lanes' values are never used. Nothing is written there.
pub const LOCAL_PAD: usize = 512;

/// The NDRange of one launch, as the kernel sees it. `#[repr(C)]`: the JIT
/// reads its fields at fixed offsets.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    pub work_dim: u32,
    pub _pad: u32,
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    /// The enqueued (uniform) local size; the last group may be smaller.
    pub local_size: [u64; 3],
    pub num_groups: [u64; 3],
    /// Bytes of `__local` memory the launch uses (static + argument buffers).
    pub local_mem_size: u64,
    /// Address of the launch's stop flag, a `u32` the code reads at every
    /// loop's back edge: non-zero stops the range with
    /// [`KernelStatus::Cancelled`] (the runtime's cancellation and time
    /// limit; see `vecl_runtime::cancel`). 0 stands for a flag never set
    /// (`CompiledKernel::run_groups` substitutes one).
    pub stop_flag: u64,
}

/// The flag of launches that cannot be stopped (`Launch::stop_flag` 0).
pub static NEVER_STOP: AtomicU32 = AtomicU32::new(0);

impl Launch {
    /// A launch over `global` with `local` work-groups (unused dimensions 1).
    pub fn new(
        work_dim: u32,
        global_offset: [u64; 3],
        global: [u64; 3],
        local: [u64; 3],
    ) -> Launch {
        let mut num_groups = [1u64; 3];
        for d in 0..3 {
            num_groups[d] = global[d].div_ceil(local[d].max(1));
        }
        Launch {
            work_dim,
            _pad: 0,
            global_offset,
            global_size: global,
            local_size: local,
            num_groups,
            local_mem_size: 0,
            stop_flag: 0,
        }
    }

    pub fn total_groups(&self) -> u64 {
        self.num_groups.iter().product()
    }

    pub fn items_per_group(&self) -> u64 {
        self.local_size.iter().product()
    }
}

/// Byte offsets of `Launch` fields, for the code generator.
pub mod launch_offsets {
    pub const WORK_DIM: i32 = 0;
    pub const GLOBAL_OFFSET: i32 = 8;
    pub const GLOBAL_SIZE: i32 = 32;
    pub const LOCAL_SIZE: i32 = 56;
    pub const NUM_GROUPS: i32 = 80;
    pub const LOCAL_MEM_SIZE: i32 = 104;
    pub const STOP_FLAG: i32 = 112;
}

/// Non-zero results of a kernel entry.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelStatus {
    Ok = 0,
    /// Checked mode: an access outside every buffer of the launch.
    OutOfBounds = 1,
    /// A barrier reached by only some work-items of a group (in any mode:
    /// the successor regions the chunks, or the lanes of a chunk at a
    /// barrier checked at run time, choose differ).
    DivergentBarrier = 2,
    /// A builtin failed at run time (e.g. printf buffer exhausted).
    Trap = 3,
    /// The launch's stop flag was set (cancelled, or past its time limit).
    Cancelled = 4,
    /// Checked mode's `__local` checks found a data race, a read of
    /// uninitialised `__local` memory or an atomic mixed with a plain
    /// access (`crate::races`; the report is taken with
    /// `crate::races::take_local_report`).
    LocalMemory = 5,
    /// The code this launch needs (a copy compiled at its first use: the
    /// Cranelift fallback of wide code, the copy trusting no group size)
    /// could not be compiled.
    NoCode = 6,
}

/// Layout of the checked-mode tail of the argument block (offsets from
/// `CompiledKernel::checked_tail()`).
pub mod checked_offsets {
    /// The `FaultRecord` address.
    pub const FAULT_RECORD: i32 = 0;
    /// The first `[start, end)` pair; parameter `i`'s is at `BOUNDS + 16 * i`.
    pub const BOUNDS: i32 = 8;
    /// Bytes per parameter.
    pub const BOUNDS_ENTRY: i32 = 16;

    /// Bytes of the tail for a kernel of `params` parameters.
    pub fn tail_size(params: usize) -> usize {
        BOUNDS as usize + BOUNDS_ENTRY as usize * params
    }
}

/// What kind of access a checked-mode fault was.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Load = 1,
    Store = 2,
    Atomic = 3,
    /// A struct copy (`Stmt::Copy`): either side.
    Copy = 4,
}

impl AccessKind {
    fn from_code(code: u64) -> AccessKind {
        match code {
            2 => AccessKind::Store,
            3 => AccessKind::Atomic,
            4 => AccessKind::Copy,
            _ => AccessKind::Load,
        }
    }

    /// The word a report uses.
    pub fn word(self) -> &'static str {
        match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Atomic => "atomic",
            AccessKind::Copy => "copy",
        }
    }
}

/// Where an access comes from in the source, packed into one word for the
/// call to [`vecl_checked_fault`]: kind in bits 0–7, column in 8–31, line
/// in 32–63 (0 when unknown).
pub fn pack_site(kind: AccessKind, line: u32, col: u32) -> u64 {
    u64::from(kind as u8) | (u64::from(col.min(0x00ff_ffff)) << 8) | (u64::from(line) << 32)
}

/// The first out-of-bounds access of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: AccessKind,
    /// First byte of the access.
    pub address: u64,
    /// Bytes of the access.
    pub size: u64,
    /// `get_global_id(0..3)` of the work-item that made it.
    pub global_id: [u64; 3],
    /// Source position, 0 when unknown.
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [x, y, z] = self.global_id;
        write!(
            f,
            "out-of-bounds {} of {} bytes at {:#x} by work-item ({x}, {y}, {z})",
            self.kind.word(),
            self.size,
            self.address
        )?;
        if self.line != 0 {
            write!(f, " at line {}", self.line)?;
            if self.col != 0 {
                write!(f, ":{}", self.col)?;
            }
        }
        Ok(())
    }
}

/// Where checked code reports its first violation: one per launch, shared by
/// every thread running it. The first claimant fills it; the runtime reads it
/// after the launch has finished.
#[derive(Debug, Default)]
pub struct FaultRecord {
    /// 0 free, 1 being written, 2 written.
    state: AtomicU32,
    address: AtomicU64,
    size: AtomicU64,
    global_id: [AtomicU64; 3],
    site: AtomicU64,
}

impl FaultRecord {
    pub fn new() -> FaultRecord {
        FaultRecord::default()
    }

    /// Records `fault` unless a fault was recorded before.
    pub fn record(&self, fault: &Fault) {
        if self
            .state
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        self.address.store(fault.address, Ordering::Relaxed);
        self.size.store(fault.size, Ordering::Relaxed);
        for (slot, id) in self.global_id.iter().zip(fault.global_id) {
            slot.store(id, Ordering::Relaxed);
        }
        self.site.store(
            pack_site(fault.kind, fault.line, fault.col),
            Ordering::Relaxed,
        );
        self.state.store(2, Ordering::Release);
    }

    /// The recorded fault, if one was completely written.
    pub fn fault(&self) -> Option<Fault> {
        if self.state.load(Ordering::Acquire) != 2 {
            return None;
        }
        let site = self.site.load(Ordering::Relaxed);
        Some(Fault {
            kind: AccessKind::from_code(site & 0xff),
            address: self.address.load(Ordering::Relaxed),
            size: self.size.load(Ordering::Relaxed),
            global_id: [0, 1, 2].map(|d| self.global_id[d].load(Ordering::Relaxed)),
            line: (site >> 32) as u32,
            col: ((site >> 8) & 0x00ff_ffff) as u32,
        })
    }
}

/// Called by checked code on a violation, just before the entry returns
/// [`KernelStatus::OutOfBounds`].
///
/// # Safety
/// `record` is null or points to a live [`FaultRecord`].
pub unsafe extern "C" fn vecl_checked_fault(
    record: *const FaultRecord,
    address: u64,
    size: u64,
    gid0: u64,
    gid1: u64,
    gid2: u64,
    site: u64,
) {
    // SAFETY: null or a live record, per the contract above.
    let Some(record) = (unsafe { record.as_ref() }) else {
        return;
    };
    record.record(&Fault {
        kind: AccessKind::from_code(site & 0xff),
        address,
        size,
        global_id: [gid0, gid1, gid2],
        line: (site >> 32) as u32,
        col: ((site >> 8) & 0x00ff_ffff) as u32,
    });
}

/// Where a work-item of a group that disagreed at a checked barrier was
/// going: the successor it chose (see [`BarrierDivergence`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierPath {
    /// `get_local_id(0..3)` of the work-item.
    pub local_id: [u64; 3],
    /// The successor it chose: a region index in bits 0–19 and, when the
    /// way there passes a barrier, that barrier's number in bits 20–30.
    pub next: u32,
}

/// Two work-items of one group that took different paths at a barrier
/// whose uniformity was checked at run time. The entry records it (see
/// [`vecl_barrier_divergence`]) just before it returns
/// [`KernelStatus::DivergentBarrier`]; the thread that called the entry
/// takes it with [`take_barrier_divergence`], and
/// `CompiledKernel::describe_divergence` puts it in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierDivergence {
    pub group: [u64; 3],
    pub first: BarrierPath,
    pub second: BarrierPath,
}

/// Bits per dimension of a local id packed into one word for
/// [`vecl_barrier_divergence`] (local sizes are far below 2^21).
pub const LOCAL_ID_BITS: u32 = 21;

fn unpack_local_id(packed: u64) -> [u64; 3] {
    let m = (1u64 << LOCAL_ID_BITS) - 1;
    [0, 1, 2].map(|d| (packed >> (LOCAL_ID_BITS * d)) & m)
}

thread_local! {
    /// The divergence the last entry run on this thread recorded.
    static DIVERGENCE: std::cell::Cell<Option<BarrierDivergence>> =
        const { std::cell::Cell::new(None) };
}

/// Called by a kernel whose work-items disagree at a barrier checked at run
/// time, just before the entry returns [`KernelStatus::DivergentBarrier`]:
/// the two successors chosen, the local ids (packed, [`LOCAL_ID_BITS`] per
/// dimension) of a work-item that chose each, and the group's id.
pub extern "C" fn vecl_barrier_divergence(
    next_a: u64,
    lid_a: u64,
    next_b: u64,
    lid_b: u64,
    g0: u64,
    g1: u64,
    g2: u64,
) {
    let d = BarrierDivergence {
        group: [g0, g1, g2],
        first: BarrierPath {
            local_id: unpack_local_id(lid_a),
            next: next_a as u32,
        },
        second: BarrierPath {
            local_id: unpack_local_id(lid_b),
            next: next_b as u32,
        },
    };
    DIVERGENCE.with(|c| c.set(Some(d)));
}

/// The divergence recorded by the last entry that returned
/// [`KernelStatus::DivergentBarrier`] on this thread, if it recorded one
/// (a barrier proven uniform at compile time whose rows of a group
/// disagree records none); clears it.
pub fn take_barrier_divergence() -> Option<BarrierDivergence> {
    DIVERGENCE.with(|c| c.take())
}

/// How the runtime passes one kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// Scalar or vector bytes (`size` bytes).
    Value,
    /// A `__global` or `__constant` buffer: an 8-byte address (or null).
    GlobalPointer,
    /// A `__local` buffer whose size the host sets: an 8-byte offset into the arena.
    LocalPointer,
    /// A struct by value: its `size` bytes.
    ByValStruct,
}

/// Where a parameter lives in the argument block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgSlot {
    pub kind: ArgKind,
    pub offset: u32,
    /// Bytes the host must supply (`clSetKernelArg`'s `arg_size`; 8 for pointers).
    pub size: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn the_first_fault_recorded_wins() {
        let record = FaultRecord::new();
        assert_eq!(record.fault(), None);
        let site = pack_site(AccessKind::Atomic, 12, 7);
        // SAFETY: a live record.
        unsafe { vecl_checked_fault(&record, 0x1000, 4, 9, 1, 2, site) };
        // SAFETY: a live record.
        unsafe { vecl_checked_fault(&record, 0x2000, 8, 3, 0, 0, site) };
        // SAFETY: null is allowed and ignored.
        unsafe { vecl_checked_fault(std::ptr::null(), 0x3000, 8, 3, 0, 0, site) };
        let fault = record.fault().expect("recorded");
        assert_eq!(
            fault,
            Fault {
                kind: AccessKind::Atomic,
                address: 0x1000,
                size: 4,
                global_id: [9, 1, 2],
                line: 12,
                col: 7,
            }
        );
        assert_eq!(
            fault.to_string(),
            "out-of-bounds atomic of 4 bytes at 0x1000 by work-item (9, 1, 2) at line 12:7"
        );
    }

    #[test]
    fn launch_offsets_match_layout() {
        assert_eq!(
            offset_of!(Launch, work_dim) as i32,
            launch_offsets::WORK_DIM
        );
        assert_eq!(
            offset_of!(Launch, global_offset) as i32,
            launch_offsets::GLOBAL_OFFSET
        );
        assert_eq!(
            offset_of!(Launch, global_size) as i32,
            launch_offsets::GLOBAL_SIZE
        );
        assert_eq!(
            offset_of!(Launch, local_size) as i32,
            launch_offsets::LOCAL_SIZE
        );
        assert_eq!(
            offset_of!(Launch, num_groups) as i32,
            launch_offsets::NUM_GROUPS
        );
        assert_eq!(
            offset_of!(Launch, local_mem_size) as i32,
            launch_offsets::LOCAL_MEM_SIZE
        );
    }
}

//! Running every group of a launch through a compiled kernel: the 64-byte
//! aligned local memory and per-thread context the kernel ABI asks for, and
//! the one `run_groups` call that every harness of the tests goes through.

use crate::guarded::{Mapping, PAGE};
use vecl_jit::abi::{checked_offsets as co, FaultRecord, Launch, LOCAL_PAD};
use vecl_jit::CompiledKernel;

/// Zeroed memory of at least `bytes` bytes plus 64 spare bytes, so that a
/// 64-byte aligned start can be found in it ([`align64`]).
pub fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes.div_ceil(16) + 4]
}

/// The first 64-byte aligned address at or after `p` (inside memory from
/// [`aligned`], which has 64 spare bytes for it).
pub fn align64(p: *mut u8) -> *mut u8 {
    let off = (64 - (p as usize) % 64) % 64;
    p.wrapping_add(off)
}

/// Zeroed `__local` memory for one launch: the arena, 64-byte aligned,
/// with [`LOCAL_PAD`] bytes on each side, in a mapping whose pages beyond
/// them are inaccessible on one side, the low and the high side in turn
/// from call to call: a kernel that reads past the padding faults.
struct GuardedLocal {
    _mapping: Mapping,
    arena: *mut u8,
}

static LOW_SIDE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

impl GuardedLocal {
    fn new(bytes: usize) -> GuardedLocal {
        let data = (bytes + 2 * LOCAL_PAD + 64).div_ceil(PAGE) * PAGE;
        let mapping = Mapping::new(data + 2 * PAGE);
        mapping.guard(0, 1);
        mapping.guard(PAGE + data, 1);
        let low = LOW_SIDE.fetch_xor(true, std::sync::atomic::Ordering::Relaxed);
        let start = mapping.start as usize;
        let arena = if low {
            start + PAGE + LOCAL_PAD
        } else {
            let at = start + PAGE + data - LOCAL_PAD - bytes;
            at - at % 64
        };
        GuardedLocal {
            _mapping: mapping,
            arena: arena as *mut u8,
        }
    }
}

/// Runs every group of `launch` through `k` with the argument block
/// `block`, `local_bytes` of `__local` memory (static and arguments, with
/// the padding the kernel ABI promises, guarded past it) and a fresh
/// context; returns the kernel's status.
///
/// # Safety
///
/// `block` must match `k.args()`, and every pointer in it must address
/// memory that outlives the call and is large enough for what the kernel
/// accesses over `launch`.
pub unsafe fn run_all_groups(
    k: &CompiledKernel,
    block: &[u8],
    launch: &mut Launch,
    local_bytes: u64,
) -> u32 {
    launch.local_mem_size = local_bytes;
    let local = GuardedLocal::new(local_bytes as usize);
    let mut context = aligned(k.context_size(launch.items_per_group()) + 64);
    let cp = align64(context.as_mut_ptr() as *mut u8);
    // SAFETY: the caller vouches for the block; local memory (with its
    // padding) and context are large enough and 64-aligned.
    unsafe {
        k.run_groups(
            block.as_ptr(),
            launch,
            0,
            launch.total_groups(),
            local.arena,
            cp,
        )
    }
}

/// Fills the checked tail of an argument block at `tail`
/// ([`vecl_jit::CompiledKernel::checked_tail`]) the way the runtime does:
/// the fault record's address, then `[start, end)` of each parameter
/// (`ranges`, in parameter order) for its bounds table.
pub fn write_checked_tail(
    block: &mut [u8],
    tail: usize,
    record: &FaultRecord,
    ranges: &[(u64, u64)],
) {
    let at = tail + co::FAULT_RECORD as usize;
    block[at..at + 8].copy_from_slice(&(std::ptr::from_ref(record) as u64).to_le_bytes());
    for (i, (start, end)) in ranges.iter().enumerate() {
        let at = tail + co::BOUNDS as usize + co::BOUNDS_ENTRY as usize * i;
        block[at..at + 8].copy_from_slice(&start.to_le_bytes());
        block[at + 8..at + 16].copy_from_slice(&end.to_le_bytes());
    }
}

//! Running every group of a launch through a compiled kernel: the 64-byte
//! aligned local memory and per-thread context the kernel ABI asks for, and
//! the one `run_groups` call that every harness of the tests goes through.

use vecl_jit::abi::Launch;
use vecl_jit::CompiledKernel;

/// Zeroed memory of at least `bytes` bytes plus 64 spare bytes, so that a
/// 64-byte aligned start can be found in it ([`align64`]).
pub fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes.div_ceil(16) + 4]
}

/// The first 64-byte aligned address at or after `p`.
fn align64(p: *mut u8) -> *mut u8 {
    let off = (64 - (p as usize) % 64) % 64;
    // SAFETY: `aligned` allocates 64 spare bytes.
    unsafe { p.add(off) }
}

/// Runs every group of `launch` through `k` with the argument block
/// `block`, `local_bytes` of `__local` memory (static and arguments) and a
/// fresh context; returns the kernel's status.
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
    let mut local = aligned(local_bytes as usize + 64);
    let mut context = aligned(k.context_size(launch.items_per_group()) + 64);
    let lp = align64(local.as_mut_ptr() as *mut u8);
    let cp = align64(context.as_mut_ptr() as *mut u8);
    // SAFETY: the caller vouches for the block; local and context are large
    // enough and 64-aligned.
    unsafe { k.run_groups(block.as_ptr(), launch, 0, launch.total_groups(), lp, cp) }
}

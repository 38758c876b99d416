//! The limits of the vecl device that validation checks against and that
//! the API reports through `clGetDeviceInfo`.
//!
//! They live in the runtime because the runtime enforces them (work-group
//! sizes, `__local` memory, buffer sizes); the API layers only report them.

use std::sync::OnceLock;

/// `CL_DEVICE_MAX_WORK_GROUP_SIZE`.
pub const MAX_WORK_GROUP_SIZE: u64 = 1024;
/// `CL_DEVICE_MAX_WORK_ITEM_SIZES`.
pub const MAX_WORK_ITEM_SIZES: [u64; 3] = [1024, 1024, 1024];
/// `CL_DEVICE_LOCAL_MEM_SIZE`: `__local` bytes per work-group.
pub const LOCAL_MEM_SIZE: u64 = 64 * 1024;
/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` in bits: sub-buffer origins must be
/// multiples of this (128 bytes, the alignment of every allocation). The
/// full profile asks for at least the size of the largest type, `long16`.
pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = 1024;
/// `CL_DEVICE_MAX_PARAMETER_SIZE`: bytes of kernel arguments.
pub const MAX_PARAMETER_SIZE: u64 = 4096;
/// `CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE`.
pub const MAX_CONSTANT_BUFFER_SIZE: u64 = 1024 * 1024;
/// `CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE`: the program-scope `__global`
/// variables of a program together (one block of host memory the
/// program's kernels share).
pub const MAX_GLOBAL_VARIABLE_SIZE: u64 = 64 * 1024 * 1024;
/// `CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE`.
pub const CACHELINE_SIZE: u32 = 64;

/// `CL_DEVICE_GLOBAL_MEM_SIZE`: the host's physical memory.
pub fn global_mem_size() -> u64 {
    static SIZE: OnceLock<u64> = OnceLock::new();
    *SIZE.get_or_init(|| physical_memory().unwrap_or(4 << 30))
}

/// `CL_DEVICE_MAX_MEM_ALLOC_SIZE`: a quarter of the physical memory (the
/// spec's minimum ratio), at least 1 GiB.
pub fn max_mem_alloc_size() -> u64 {
    (global_mem_size() / 4).max(1 << 30)
}

/// Reads `MemTotal` from `/proc/meminfo` (Linux).
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_meet_the_full_profile_minimums() {
        const { assert!(LOCAL_MEM_SIZE >= 32 * 1024) };
        const { assert!(MAX_PARAMETER_SIZE >= 1024) };
        const { assert!(MEM_BASE_ADDR_ALIGN_BITS >= 16 * 64) };
        assert!(max_mem_alloc_size() >= (128 << 20).max(global_mem_size() / 4));
        assert_eq!(
            MEM_BASE_ADDR_ALIGN_BITS as usize / 8,
            crate::host_alloc::ALIGN
        );
    }
}

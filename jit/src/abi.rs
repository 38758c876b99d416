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
//!     local_mem: *mut u8,       // this worker's __local arena (≥ Launch::local_mem_size bytes, 64-aligned)
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
}

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
}

/// Non-zero results of a kernel entry.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelStatus {
    Ok = 0,
    /// Checked mode: an access outside every buffer of the launch.
    OutOfBounds = 1,
    /// Checked mode: a barrier reached by only some work-items of a group.
    DivergentBarrier = 2,
    /// A builtin failed at run time (e.g. printf buffer exhausted).
    Trap = 3,
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

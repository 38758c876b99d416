//! vecl's JIT: Kernel IR → code vectorised across work-items → Cranelift
//! machine code. [`abi`] is the contract with the runtime.
//!
//! [`compile_kernel`] runs the middle passes on the kernel
//! ([`vecl_ir::transform::pipeline`]: inlining, SRA, unrolling, CSE),
//! cuts it into barrier regions, runs the uniformity analysis, lowers the kernel to one Cranelift function that runs a range of
//! work-groups (W work-items per SIMD chunk, see `lower`), and JIT-compiles
//! it. The [`CompiledKernel`] owns the machine code and the kernel's
//! module-scope data.

pub mod abi;
mod collectives;
mod compile;
mod define;
mod error;
mod explain;
mod frame;
mod group_shape;
pub mod guarded;
mod image;
mod kernel;
mod lane_axis;
mod launch_proofs;
mod layout;
mod lower;
mod math;
mod options;
pub mod printf;
pub mod races;
mod regions;
mod sub_group;
mod tiers;
mod timing;
pub mod wide;
mod width;
mod zsincos;

pub(crate) use compile::isa_has;
pub use compile::{compile_kernel, compile_kernel_in, make_tables, OPTIMISED_MAX_CLIF};
pub use error::JitError;
pub use frame::{MAX_FRAME_BYTES, WORKER_STACK_BYTES};
pub use kernel::{CompiledKernel, ModuleData, PreparedLaunch, UNPREFETCHED_AFTER};
pub use options::{JitOptions, PhaseReport, Prefetch, Rsqrt};
pub use tiers::{FinalCode, Tiers};
pub use width::WIDE_WIDTH;

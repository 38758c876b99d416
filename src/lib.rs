//! vecl: a CPU OpenCL device — OpenCL C vectorised across work-items and
//! JIT-compiled with Cranelift — as a safe Rust API.
//!
//! ```no_run
//! use vecl::{Context, Result};
//!
//! fn main() -> Result<()> {
//!     let ctx = Context::new()?;
//!     let program = ctx
//!         .program("kernel void add(global const float* a, global const float* b, global float* c) {
//!                       size_t i = get_global_id(0); c[i] = a[i] + b[i]; }")
//!         .build()?;
//!     let a = ctx.buffer_from(&[1.0f32; 1024])?;
//!     let b = ctx.buffer_from(&[2.0f32; 1024])?;
//!     let c = ctx.buffer::<f32>(1024)?;
//!     let kernel = program.kernel("add")?;
//!     kernel.set_arg_buffer(0, &a)?;
//!     kernel.set_arg_buffer(1, &b)?;
//!     kernel.set_arg_buffer(2, &c)?;
//!     let queue = ctx.queue()?;
//!     queue.launch(&kernel).global(&[1024]).run()?;
//!     assert_eq!(queue.read_vec(&c, &[])?[0], 3.0);
//!     Ok(())
//! }
//! ```
//!
//! Two layers: the typed one ([`Buffer<T>`], [`Kernel::set_arg`],
//! [`Queue::write`]…) and a byte-level one for the C API — raw memory
//! objects ([`Mem`], [`Context::create_raw_buffer`]), byte arguments
//! ([`Kernel::set_arg_bytes`], [`Kernel::set_arg_mem`],
//! [`Kernel::set_arg_local`]), every command with wait lists on
//! [`Queue::raw`], and program binaries. Every error is an [`Error`] whose
//! [`Error::cl_code`] is the OpenCL error code.

#![deny(missing_docs)]
mod binary;
pub mod buffer;
pub mod compiler;
pub mod config;
pub mod context;
pub mod device;
pub mod kernel;
mod kernel_builds;
pub mod pod;
pub mod program;
pub mod queue;
pub mod warm_up;

pub use binary::BinaryType;
pub use buffer::{Buffer, BufferBuilder};
pub use compiler::Safety;
pub use config::Config;
pub use context::Context;
pub use device::{Device, Platform, VectorWidths, IMAGE_EXTENSIONS, IMAGE_SUPPORT};
pub use kernel::{ArgInfo, Kernel, SubGroupInfo, WorkGroupInfo};
pub use pod::{Number, Pod};
pub use program::{CompiledObject, Program, ProgramBuilder};
pub use queue::{KernelLaunch, Queue, QueueBuilder};
pub use vecl_runtime::event::{self, ProfilingInfo};
pub use vecl_runtime::{
    Error, Event, LaunchRules, MapFlags, Mem, MemFlags, NdRange, QueueProperties, Rect, Result,
};

/// The byte-level runtime the C API builds on.
pub use vecl_runtime as runtime;

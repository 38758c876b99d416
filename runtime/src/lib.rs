//! vecl's device runtime: the work-stealing pool, NDRange execution over
//! compiled kernels, memory objects, command queues and events.
//!
//! Everything here is independent of any API: the safe Rust API (`vecl`) and
//! the C API (`vecl-icd`) are both thin layers over these types, and every
//! failure is an [`Error`] whose [`Error::cl_code`] is the OpenCL code.

#![deny(missing_docs)]
pub mod cancel;
pub mod commands;
pub mod device_limits;
pub mod error;
pub mod event;
pub mod host_alloc;
pub mod image;
mod jit_code;
pub mod kernel_args;
pub mod memory;
pub mod ndrange;
pub mod pool;
pub mod pool_trace;
pub mod queue;
pub mod rect;

pub use commands::MapFlags;
pub use error::{Error, Result};
pub use event::{Event, ProfilingInfo};
pub use image::{ImageFormat, ImageInfo, ImageShape, Sampler};
pub use kernel_args::{ArgValue, KernelArgs, KernelCode};
pub use memory::{Mem, MemFlags};
pub use ndrange::{LaunchRules, NdRange};
pub use pool::Pool;
pub use queue::{Queue, QueueProperties};
pub use rect::Rect;
pub use vecl_jit::abi;

//! libvecl.so: vecl's OpenCL C API, loadable by an ICD loader (ocl-icd or the
//! Khronos loader) through `cl_khr_icd`.
//!
//! The crate is a thin C face over the `vecl` crate. Every entry point is an
//! `extern "C"` function that converts its raw arguments and calls a function
//! returning `Result<T, cl_int>` (see `entry`). Only the four symbols the
//! ICD contract requires are exported (`clIcdGetPlatformIDsKHR`,
//! `clGetExtensionFunctionAddress`, `clGetExtensionFunctionAddressForPlatform`,
//! `clGetPlatformInfo`); every other entry point is reached through the
//! dispatch table that is the first field of every handle (`dispatch`,
//! `handle`).
//!
//! One file per API area, named after the functions it holds: `platform`,
//! `device`, `context`, `queue`, `memory`, `image`, `sampler`,
//! `program`, `kernel`, `event`, `enqueue`, `svm`;
//! `unsupported` answers the optional features vecl does not offer
//! (pipes, device-side queues, GL sharing) with the errors the
//! specification prescribes.

#![allow(non_snake_case)]

mod compiler;
mod context;
mod device;
mod device_caps;
mod dispatch;
mod enqueue;
mod entry;
mod event;
mod extension;
mod handle;
mod image;
mod info;
mod kernel;
mod memory;
mod platform;
mod program;
mod queue;
mod sampler;
mod svm;
mod unsupported;

use opencl_sys::cl_int;

/// The driver's own allocations (events, commands, closures) come and go
/// by the hundred thousand per second from many threads at once; mimalloc's
/// per-thread pages serve them without glibc's arena locks and
/// consolidations. Buffers and JIT code are mapped separately.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The result of every API body: a value, or the OpenCL error code to return.
pub(crate) type ClResult<T> = Result<T, cl_int>;

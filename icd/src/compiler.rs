//! The seam between the C API and vecl's compiler and runtime: building a
//! program from OpenCL C, describing its kernels, and launching one.
//!
//! This is the only file that calls into the `vecl` crate. Until that crate
//! offers program builds and kernel launches, [`build`] reports that the
//! compiler is unavailable (`CL_COMPILER_NOT_AVAILABLE`-style build failure
//! with a log saying so), and everything else of the API keeps working.

// The launch-side types are only read once the vecl crate provides kernel
// launches; until then the compiler never produces a kernel.
#![allow(dead_code)]

use opencl_sys::{
    cl_int, cl_kernel_arg_access_qualifier, cl_kernel_arg_address_qualifier,
    cl_kernel_arg_type_qualifier, CL_BUILD_PROGRAM_FAILURE,
};

/// How the host passes one kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A scalar, vector or struct of `size` bytes, by value.
    Value { size: usize },
    /// A `__global` or `__constant` buffer (`cl_mem`, or null).
    Buffer,
    /// A `__local` buffer whose size the host sets (`arg_value` null).
    Local,
}

/// What `clGetKernelArgInfo` reports about a parameter, and how it is set.
#[derive(Clone, Debug)]
pub struct ArgMeta {
    pub name: String,
    pub type_name: String,
    pub address: cl_kernel_arg_address_qualifier,
    pub access: cl_kernel_arg_access_qualifier,
    pub type_qualifier: cl_kernel_arg_type_qualifier,
    pub kind: ArgKind,
}

/// A kernel of a built program.
#[derive(Clone, Debug)]
pub struct KernelMeta {
    pub name: String,
    pub args: Vec<ArgMeta>,
    /// `__attribute__((...))` text, space separated.
    pub attributes: String,
    /// `reqd_work_group_size`, or zeros.
    pub reqd_work_group_size: [usize; 3],
    /// Bytes of `__local` memory the kernel declares itself.
    pub local_mem_size: u64,
    /// Bytes of private memory per work-item.
    pub private_mem_size: u64,
}

/// A built program: its kernels, ready to launch.
#[derive(Debug)]
pub struct Built {
    pub kernels: Vec<KernelMeta>,
    /// Warnings of a successful build.
    pub log: String,
}

/// A kernel argument value at launch time.
#[derive(Clone, Debug)]
pub enum ArgValue {
    Bytes(Vec<u8>),
    /// A buffer's address (null for a null `cl_mem`).
    Address(usize),
    Local(usize),
}

/// One launch: the NDRange, in OpenCL's terms.
#[derive(Clone, Copy, Debug)]
pub struct NdRange {
    pub work_dim: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: [usize; 3],
}

/// A failed build: the error code and the log.
#[derive(Debug)]
pub struct BuildFailure {
    pub code: cl_int,
    pub log: String,
}

/// Compiles OpenCL C `source` with `options` and `#include`-able headers.
pub fn build(
    _source: &str,
    _options: &str,
    _headers: &[(String, String)],
) -> Result<Built, BuildFailure> {
    Err(BuildFailure {
        code: CL_BUILD_PROGRAM_FAILURE,
        log: "vecl: this driver was built without the OpenCL C compiler".to_string(),
    })
}

/// Runs kernel `kernel` of `built` over `range` with `args`; returns
/// `CL_COMPLETE` or a negative error for the event.
pub fn launch(_built: &Built, _kernel: usize, _args: &[ArgValue], _range: &NdRange) -> cl_int {
    opencl_sys::CL_INVALID_PROGRAM_EXECUTABLE
}

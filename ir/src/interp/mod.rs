//! The reference interpreter: runs a kernel of a [`Module`](crate::Module) over an NDRange.
//!
//! It is the oracle of every JIT and front-end test, so it aims at being
//! obviously correct rather than fast:
//! - **Lockstep work-groups** (`exec.rs`): the items of one group execute
//!   the structured IR together under an active mask, statement by
//!   statement, items in local-linear-id order; groups run one after
//!   another in linear group order. Barriers are therefore exact. A barrier
//!   (or work-group collective) must be reached by every item of the group
//!   that has not returned from the kernel; otherwise the run stops with
//!   [`InterpError::DivergentBarrier`]. Items that returned early are not
//!   waited for.
//! - **Checked memory** (`memory.rs`): every pointer is a fat pointer
//!   (object, offset); every load, store, copy, atomic, `vload`/`vstore`,
//!   async copy and pointer-output builtin is checked against the bounds of
//!   its object and against the pointer's address space, and a violation is
//!   [`InterpError::OutOfBounds`] with the kernel, the work-item's global
//!   id, the object, the offset and the source position. Stores into
//!   `__constant` memory are [`InterpError::ReadOnlyWrite`]. `__local`
//!   memory (fresh per group) and private slots start filled with
//!   [`UNINIT_BYTE`]. Nothing a kernel does can panic.
//! - **Exact values** (`arith.rs`, `convert.rs`, `builtins/`): integer
//!   arithmetic wraps, division by zero gives 0, shifts take the amount
//!   modulo the width; `float` arithmetic is done in `f32`, `double` in
//!   `f64`; conversions implement saturation and every rounding mode
//!   exactly (out-of-range float → int without `_sat` also saturates, NaN
//!   gives 0). Math builtins are computed in `f64` and rounded once to the
//!   result type, `native_`/`half_` forms too.
//! - **Builtins**: the OpenCL C 1.2 math, common, integer, geometric and
//!   relational functions, `select`/`bitselect`/`shuffle`/`shuffle2`,
//!   `vloadN`/`vstoreN` and the `half` forms with rounding suffixes,
//!   `fract`/`modf`/`sincos`/`frexp`/`remquo`/`lgamma_r`,
//!   `async_work_group_(strided_)copy`/`wait_group_events`/`prefetch`,
//!   `printf` (output to stdout, or kept by [`run_kernel_capture`]), the
//!   OpenCL 2.0 work-group collectives, the sub-group functions
//!   (`sub_group.rs`, with the size of [`RunOptions`]), and the image builtins
//!   (`read_image*`, `write_image*`, `get_image_*`) on
//!   [`KernelArg::Image`] arguments through [`crate::image`]. Any other name is
//!   [`InterpError::UnsupportedBuiltin`].
//!
//! The interpreter trusts the IR's shape only as far as it must: IR that
//! breaks a verifier rule gives [`InterpError::Malformed`] where it is
//! noticed (run `verify` first for a full diagnosis). A kernel that loops
//! forever makes the interpreter loop forever too.
//!
//! ```
//! use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
//! # use vecl_ir::{builder::FunctionBuilder, *};
//! # let gptr = Type::ptr(AddressSpace::Global, Type::F32);
//! # let mut b = FunctionBuilder::new("double_it", vec![Param { name: "a".into(), ty: gptr.clone(), byval: false }], Type::Void);
//! # let a = b.param(0);
//! # let zero = b.const_u32(0);
//! # let gid = b.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(zero)), Type::U64);
//! # let p = b.push(Inst::Index(a, gid), gptr);
//! # let x = b.load(p);
//! # let y = b.binary(BinaryOp::Add, x, x);
//! # b.store(p, y);
//! # let mut f = b.finish();
//! # f.kernel = Some(KernelInfo::default());
//! # let module = Module { functions: vec![f], ..Module::default() };
//! // `module` holds `kernel void double_it(global float *a) { a[i] += a[i]; }`
//! let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|x| x.to_le_bytes()).collect();
//! let mut args = [KernelArg::Buffer(data)];
//! run_kernel(&module, "double_it", &mut args, &NdRange::linear(4, 2)).unwrap();
//! let KernelArg::Buffer(out) = &args[0] else { unreachable!() };
//! assert_eq!(&out[4..8], &4.0f32.to_le_bytes());
//! ```

mod arith;
mod builtins;
mod collective;
pub(crate) mod convert;
mod error;
mod exec;
mod lanes;
mod launch;
mod memory;
mod scalar;
mod sub_group;

pub use builtins::printf::format_printf;
pub use error::InterpError;
pub use launch::{run_kernel, run_kernel_capture, run_kernel_capture_with, run_kernel_with};

/// How [`run_kernel_with`] runs a launch, besides its [`NdRange`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Work-items per sub-group (see [`crate::sub_group`]): give the SIMD
    /// width of the JIT code the run is compared with, which is its
    /// sub-group size. [`DEFAULT_SUB_GROUP_SIZE`] by default; a kernel's
    /// `reqd_sub_group_size` takes precedence.
    pub sub_group_size: u32,
}

/// The sub-group size of [`run_kernel`]: the JIT's usual width.
pub const DEFAULT_SUB_GROUP_SIZE: u32 = 16;

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            sub_group_size: DEFAULT_SUB_GROUP_SIZE,
        }
    }
}
pub use memory::UNINIT_BYTE;

/// One kernel argument, in parameter order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelArg {
    /// The contents of a `__global` or `__constant` buffer, little-endian.
    /// The kernel sees a pointer to its first byte; stores go into these
    /// bytes, which hold the results after [`run_kernel`] (also after an
    /// error).
    Buffer(Vec<u8>),
    /// A null `__global`/`__constant` pointer (`clSetKernelArg` with NULL).
    Null,
    /// A pointer `offset` bytes into the [`KernelArg::Buffer`] of argument
    /// `arg`: the same buffer passed twice, or a sub-buffer. Accesses are
    /// checked against the whole parent buffer.
    Alias { arg: usize, offset: u64 },
    /// The bytes of a scalar, vector (a 3-vector as 4 elements) or struct
    /// passed by value: exactly `size_of` the parameter's type (for a
    /// `byval` parameter, of its pointee).
    Value(Vec<u8>),
    /// A `__local` pointer argument: the size in bytes of the buffer every
    /// work-group gets (fresh per group, filled with [`UNINIT_BYTE`]).
    Local(usize),
    /// An image argument (`image2d_t`, …; a `__global` pointer in the IR):
    /// its descriptor (whose `data` pointer is ignored) and its pixels, from
    /// pixel (0, 0, 0) of layer 0 laid out by the descriptor's pitches.
    /// `write_image*` stores into these bytes, which hold the results after
    /// [`run_kernel`].
    Image {
        desc: crate::image::ImageDesc,
        pixels: Vec<u8>,
    },
}

/// The NDRange of a launch (`clEnqueueNDRangeKernel`'s arguments).
///
/// Entries of dimensions at and above `work_dim` are ignored (taken as
/// offset 0, size 1). `global_size` need not be a multiple of `local_size`:
/// the last group of a dimension is then smaller (OpenCL 2.0 non-uniform
/// work-groups), and in it `get_local_size` gives its actual size while
/// `get_enqueued_local_size` gives `local_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdRange {
    pub work_dim: u32,
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
}

impl NdRange {
    /// A one-dimensional range of `global` items in groups of `local`.
    pub fn linear(global: u64, local: u64) -> NdRange {
        NdRange {
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [global, 1, 1],
            local_size: [local, 1, 1],
        }
    }

    /// Number of groups in each dimension (the last one possibly partial).
    pub fn num_groups(&self) -> [u64; 3] {
        let mut n = [1; 3];
        for (d, n) in n.iter_mut().enumerate() {
            *n = self.global_size[d].div_ceil(self.local_size[d].max(1));
        }
        n
    }
}

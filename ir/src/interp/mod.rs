//! The reference interpreter: runs a kernel of a [`Module`] over an NDRange.
//!
//! It is the oracle of every JIT and front-end test, so it aims at being
//! obviously correct rather than fast:
//! - **Lockstep work-groups** ([`exec`]): the items of one group execute
//!   the structured IR together under an active mask, so barriers are
//!   exact and a barrier reached by only part of a group is an error
//!   ([`InterpError::DivergentBarrier`]) instead of a hang or silent garbage.
//!   Groups run one after another in linear group order.
//! - **Checked memory** ([`memory`]): every pointer is a fat pointer (object,
//!   offset); every load, store, copy, atomic and `vload`/`vstore` is
//!   bounds-checked against its object and a violation is reported as
//!   [`InterpError::OutOfBounds`] with the kernel, the work-item's global id,
//!   the object and the offset. Nothing a kernel does can panic.
//! - **Exact values** ([`arith`], [`convert`], [`builtins`]): integer
//!   arithmetic wraps, floats use the operand's own precision, conversions
//!   implement every rounding mode and saturation exactly. Math builtins are
//!   computed in `f64` and rounded once to the result type.
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
mod convert;
mod error;
mod exec;
mod lanes;
mod launch;
mod memory;
mod scalar;

pub use error::InterpError;
pub use launch::{run_kernel, run_kernel_capture};
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
    /// The bytes of a scalar, vector (a 3-vector as 4 elements) or struct
    /// passed by value: exactly `size_of` the parameter's type (for a
    /// `byval` parameter, of its pointee).
    Value(Vec<u8>),
    /// A `__local` pointer argument: the size in bytes of the buffer every
    /// work-group gets (fresh per group, filled with [`UNINIT_BYTE`]).
    Local(usize),
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

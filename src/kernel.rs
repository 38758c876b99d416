//! [`Kernel`]: a kernel of a built program with its argument values.
//!
//! Arguments are checked against the kernel's signature as they are set
//! (index, size, and kind: value, buffer or `__local` size); the values
//! are snapshotted into an argument block at each enqueue. Argument and
//! work-group metadata (`clGetKernelArgInfo`, `clGetKernelWorkGroupInfo`)
//! come from the front end's `KernelInfo` and the compiled code.

use crate::buffer::Buffer;
use crate::pod::{value_bytes, Pod};
use std::sync::{Arc, Mutex, MutexGuard};
use vecl_ir::{AccessQualifier, AddressSpace, KernelInfo, Type, TypeQualifiers};
use vecl_runtime::device_limits::MAX_WORK_GROUP_SIZE;
use vecl_runtime::{
    ArgValue, Event, KernelArgs, KernelCode, LaunchRules, Mem, NdRange, Queue as RawQueue, Result,
};

/// What a program knows about one of its kernels.
pub(crate) struct KernelEntry {
    pub(crate) code: Arc<dyn KernelCode>,
    pub(crate) info: KernelInfo,
    pub(crate) param_names: Vec<String>,
    /// Per parameter: its type with typedefs resolved, and the bytes of one
    /// element (the pointee for pointers, the value otherwise).
    pub(crate) param_types: Vec<(Type, u64)>,
    pub(crate) rules: LaunchRules,
}

/// `clGetKernelArgInfo` for one argument.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgInfo {
    /// `CL_KERNEL_ARG_NAME`.
    pub name: String,
    /// `CL_KERNEL_ARG_TYPE_NAME`, e.g. `float*`.
    pub type_name: String,
    /// `CL_KERNEL_ARG_ADDRESS_QUALIFIER` (`Private` for non-pointers).
    pub address: AddressSpace,
    /// `CL_KERNEL_ARG_ACCESS_QUALIFIER`.
    pub access: AccessQualifier,
    /// `CL_KERNEL_ARG_TYPE_QUALIFIER`.
    pub qualifiers: TypeQualifiers,
    /// The parameter's type with typedefs resolved (`type_name` is the
    /// spelling, which may be a typedef's name).
    pub ty: Type,
    /// Bytes of one element: the pointee's size for pointers (a `float4*`
    /// gives 16), the value's size otherwise.
    pub element_size: u64,
}

/// `clGetKernelSubGroupInfo`: the kernel's sub-group size is its SIMD
/// width W, and a group is cut row by row (the work-items that differ only
/// in local id 0) into sub-groups of W, a row whose length is not a
/// multiple of W ending with a shorter one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubGroupInfo {
    /// W.
    pub width: u64,
    /// The kernel's largest work-group.
    pub max_work_group_size: u64,
}

impl SubGroupInfo {
    fn shape(local: &[u64]) -> [u64; 3] {
        std::array::from_fn(|d| local.get(d).copied().unwrap_or(1).max(1))
    }

    /// `CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE` for groups of `local`.
    pub fn max_size_for(&self, local: &[u64]) -> u64 {
        self.width.min(Self::shape(local)[0])
    }

    /// `CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE` for groups of `local`.
    pub fn count_for(&self, local: &[u64]) -> u64 {
        let l = Self::shape(local);
        l[0].div_ceil(self.width) * l[1] * l[2]
    }

    /// `CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT`: a local size of `dims`
    /// dimensions with exactly `count` sub-groups, `count · W` along
    /// dimension 0 (zeros when that is larger than the largest group).
    pub fn local_size_for(&self, count: u64, dims: usize) -> Vec<u64> {
        let mut out = vec![1; dims.max(1)];
        match count.checked_mul(self.width) {
            Some(n) if count > 0 && n <= self.max_work_group_size => out[0] = n,
            _ => out.iter_mut().for_each(|x| *x = 0),
        }
        out
    }

    /// `CL_KERNEL_MAX_NUM_SUB_GROUPS`: groups one work-item wide in
    /// dimension 0 have one sub-group per work-item.
    pub fn max_num(&self) -> u64 {
        self.max_work_group_size
    }
}

/// `clGetKernelWorkGroupInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkGroupInfo {
    /// `CL_KERNEL_WORK_GROUP_SIZE`.
    pub work_group_size: u64,
    /// `CL_KERNEL_COMPILE_WORK_GROUP_SIZE` (zeros without `reqd_work_group_size`).
    pub compile_work_group_size: [u64; 3],
    /// `CL_KERNEL_LOCAL_MEM_SIZE`: the kernel's own `__local` bytes plus the
    /// `__local` arguments set so far.
    pub local_mem_size: u64,
    /// `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE`: the SIMD width.
    pub preferred_work_group_size_multiple: u64,
    /// `CL_KERNEL_PRIVATE_MEM_SIZE`: per-work-item bytes carried across
    /// barriers.
    pub private_mem_size: u64,
}

/// A kernel object. Clones share the argument values (like
/// `clRetainKernel`); [`Kernel::duplicate`] copies them (`clCloneKernel`).
#[derive(Clone)]
pub struct Kernel {
    entry: Arc<KernelEntry>,
    args: Arc<Mutex<KernelArgs>>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name())
            .field("num_args", &self.num_args())
            .finish()
    }
}

impl Kernel {
    pub(crate) fn new(entry: Arc<KernelEntry>) -> Kernel {
        let args = KernelArgs::for_code(&*entry.code);
        Kernel {
            entry,
            args: Arc::new(Mutex::new(args)),
        }
    }

    fn args(&self) -> MutexGuard<'_, KernelArgs> {
        self.args.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `CL_KERNEL_FUNCTION_NAME`.
    pub fn name(&self) -> &str {
        self.entry.code.name()
    }

    /// `CL_KERNEL_NUM_ARGS`.
    pub fn num_args(&self) -> u32 {
        self.entry.code.arg_slots().len() as u32
    }

    /// `CL_KERNEL_ATTRIBUTES`: the attributes as source would spell them.
    pub fn attributes(&self) -> String {
        let mut out = Vec::new();
        if let Some([x, y, z]) = self.entry.info.reqd_work_group_size {
            out.push(format!("reqd_work_group_size({x},{y},{z})"));
        }
        if let Some([x, y, z]) = self.entry.info.work_group_size_hint {
            out.push(format!("work_group_size_hint({x},{y},{z})"));
        }
        if let Some(n) = self.entry.info.reqd_sub_group_size {
            out.push(format!("intel_reqd_sub_group_size({n})"));
        }
        match &self.entry.info.vec_type_hint {
            Some(Type::Scalar(s)) => out.push(format!("vec_type_hint({})", s.c_name())),
            Some(Type::Vector(s, n)) => out.push(format!("vec_type_hint({}{n})", s.c_name())),
            _ => {}
        }
        out.join(" ")
    }

    /// Sets argument `index` to a scalar or vector value.
    ///
    /// A number (or array of numbers, for a vector) must match the
    /// parameter: floating point for `float`/`double`, an integer for the
    /// integer types, as many components (a 3-component vector takes 3 or
    /// 4), else the error is `CL_INVALID_ARG_VALUE`. Other `Pod` types and
    /// [`Kernel::set_arg_bytes`] are checked by size only.
    pub fn set_arg<T: Pod>(&self, index: u32, value: T) -> Result<()> {
        if let (Some(n), Some((ty, _))) = (T::NUMBER, self.entry.param_types.get(index as usize)) {
            let want = match ty {
                Type::Scalar(s) => Some((s.is_float(), 1)),
                Type::Vector(s, k) => Some((s.is_float(), usize::from(*k))),
                _ => None,
            };
            if let Some((float, lanes)) = want {
                let lanes_ok = n.lanes == lanes || (lanes == 3 && n.lanes == 4);
                if n.float != float || !lanes_ok {
                    let kind = |float: bool, lanes: usize| match (float, lanes) {
                        (true, 1) => "a floating-point scalar".to_string(),
                        (false, 1) => "an integer scalar".to_string(),
                        (true, n) => format!("{n} floating-point components"),
                        (false, n) => format!("{n} integer components"),
                    };
                    let i = index as usize;
                    let name = self.entry.param_names.get(i).map_or("", String::as_str);
                    let type_name = self.entry.info.args.get(i).map_or("", |a| &a.type_name);
                    return Err(vecl_runtime::Error::InvalidArgValue(format!(
                        "argument {index} (`{type_name} {name}`) is {}, the value given \
                         (`{}`) is {}",
                        kind(float, lanes),
                        std::any::type_name::<T>(),
                        kind(n.float, n.lanes)
                    )));
                }
            }
        }
        self.set_arg_bytes(index, value_bytes(&value))
    }

    /// Sets argument `index` from raw bytes (`clSetKernelArg` with a value).
    pub fn set_arg_bytes(&self, index: u32, bytes: &[u8]) -> Result<()> {
        self.args().set(index, ArgValue::Bytes(bytes.to_vec()))
    }

    /// Sets a `__global`/`__constant` pointer argument to a typed buffer.
    ///
    /// The buffer's element must have the size of what the parameter points
    /// to (`Buffer<f32>` or `Buffer<i32>` for a `float*`, `Buffer<[f32; 4]>`
    /// for a `float4*`); otherwise the error is `CL_INVALID_ARG_VALUE`.
    /// Parameters to `void` and to structs take any buffer, and
    /// [`Kernel::set_arg_mem`] takes any memory object for any pointer.
    pub fn set_arg_buffer<T: Pod>(&self, index: u32, buffer: &Buffer<T>) -> Result<()> {
        if let Some((ty, element_size)) = self.entry.param_types.get(index as usize) {
            let typed = matches!(ty.pointee(), Some(Type::Scalar(_) | Type::Vector(..)));
            let size = std::mem::size_of::<T>() as u64;
            if typed && size != *element_size {
                return Err(vecl_runtime::Error::InvalidArgValue(format!(
                    "argument {index} points to {element_size}-byte elements, \
                     the buffer holds {size}-byte ones"
                )));
            }
        }
        self.set_arg_mem(index, Some(buffer.raw()))
    }

    /// Sets a pointer argument to a memory object, or to null with `None`.
    pub fn set_arg_mem(&self, index: u32, mem: Option<&Mem>) -> Result<()> {
        self.args().set(index, ArgValue::Buffer(mem.cloned()))
    }

    /// Sets a `__local` pointer argument to `size` bytes of local memory.
    pub fn set_arg_local(&self, index: u32, size: usize) -> Result<()> {
        self.args().set(index, ArgValue::Local(size as u64))
    }

    /// Sets a pointer argument to a raw device address (for API layers that
    /// manage their own buffers).
    ///
    /// # Safety
    /// `address` must be null or valid for every access the kernel makes
    /// through the argument while launches using it run.
    pub unsafe fn set_arg_address(&self, index: u32, address: u64) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { self.args().set_address(index, address) }
    }

    /// Whether argument `index` has been set.
    pub fn is_arg_set(&self, index: u32) -> bool {
        self.args().get(index).is_some()
    }

    /// `clGetKernelArgInfo`.
    pub fn arg_info(&self, index: u32) -> Result<ArgInfo> {
        let info = self
            .entry
            .info
            .args
            .get(index as usize)
            .ok_or(vecl_runtime::Error::InvalidArgIndex(index))?;
        let (ty, element_size) = self
            .entry
            .param_types
            .get(index as usize)
            .ok_or(vecl_runtime::Error::InvalidArgIndex(index))?;
        Ok(ArgInfo {
            name: self
                .entry
                .param_names
                .get(index as usize)
                .cloned()
                .unwrap_or_default(),
            type_name: info.type_name.clone(),
            address: info.address,
            access: info.access,
            qualifiers: info.qualifiers,
            ty: ty.clone(),
            element_size: *element_size,
        })
    }

    /// `clGetKernelWorkGroupInfo`.
    pub fn work_group_info(&self) -> WorkGroupInfo {
        let reqd = self
            .entry
            .info
            .reqd_work_group_size
            .map(|r| r.map(u64::from));
        let simd = u64::from(self.entry.code.simd_width());
        WorkGroupInfo {
            work_group_size: reqd
                .map(|r| r.iter().product())
                .unwrap_or(MAX_WORK_GROUP_SIZE),
            compile_work_group_size: reqd.unwrap_or([0; 3]),
            local_mem_size: self.entry.code.static_local_size() + self.args().local_args_size(),
            preferred_work_group_size_multiple: simd,
            private_mem_size: self.entry.code.private_mem_size(),
        }
    }

    /// The SIMD width the kernel was compiled for.
    pub fn simd_width(&self) -> u32 {
        self.entry.code.simd_width()
    }

    /// `clGetKernelSubGroupInfo`'s answers. A sub-group is one SIMD chunk
    /// of a row of the group (`vecl_ir::sub_group`): W work-items, fewer
    /// at the end of a row whose length is not a multiple of W.
    pub fn sub_group_info(&self) -> SubGroupInfo {
        SubGroupInfo {
            width: u64::from(self.simd_width()),
            max_work_group_size: self.work_group_info().work_group_size,
        }
    }

    /// The kernel's launch rules (non-uniform groups, required size).
    pub fn launch_rules(&self) -> LaunchRules {
        self.entry.rules
    }

    /// How a launch over `range` runs, in words (the groups it runs with
    /// and the dimension along which work-items fill a chunk's lanes);
    /// `None` for an empty range.
    pub fn describe_launch(&self, range: &NdRange) -> Result<Option<String>> {
        let code = &self.entry.code;
        let planned =
            vecl_runtime::ndrange::plan_launch(range, code.simd_width(), &self.entry.rules)?;
        let threads = vecl_runtime::pool::Pool::global().threads();
        Ok(planned.map(|l| vecl_runtime::ndrange::describe_mapping(code.as_ref(), &l, threads)))
    }

    /// `clCloneKernel`: a new kernel object with a copy of the arguments.
    pub fn duplicate(&self) -> Kernel {
        let args = self.args().clone();
        Kernel {
            entry: Arc::clone(&self.entry),
            args: Arc::new(Mutex::new(args)),
        }
    }

    /// Runs the kernel over `range` with the current arguments on the calling
    /// thread (helped by the pool), outside any queue; returns when every
    /// work-group has run. For API layers with their own scheduling.
    pub fn run_blocking(&self, range: &NdRange) -> Result<()> {
        let code = Arc::clone(&self.entry.code);
        let simd = code.simd_width();
        let Some(launch) = vecl_runtime::ndrange::plan_launch(range, simd, &self.entry.rules)?
        else {
            return Ok(());
        };
        let block = self
            .args()
            .build_block(code.args_size(), code.static_local_size())?;
        // Checked code: a fault is reported with its work-item and address.
        let checked = block.checked.clone();
        let name = code.name().to_string();
        // The pool starts with the configured number of threads.
        crate::Config::global();
        vecl_runtime::ndrange::execute(vecl_runtime::Pool::global(), code, block, launch)
            .map_err(|e| checked.and_then(|c| c.error(&name)).unwrap_or(e))
    }

    /// Enqueues the kernel over `range` on a queue (the byte-level entry of
    /// `clEnqueueNDRangeKernel`); errors in the range or the arguments come
    /// back here, a failure while running through the event.
    pub fn enqueue(&self, queue: &RawQueue, range: &NdRange, wait: &[Event]) -> Result<Event> {
        let args = self.args();
        queue.enqueue_kernel(
            Arc::clone(&self.entry.code),
            &args,
            range,
            &self.entry.rules,
            wait,
        )
    }
}

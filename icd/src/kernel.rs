//! Kernels: `clCreateKernel`, `clCreateKernelsInProgram`, `clCloneKernel`,
//! `clSetKernelArg`, `clGetKernelInfo`, `clGetKernelArgInfo`,
//! `clGetKernelWorkGroupInfo`, retain/release.
//!
//! A kernel holds its program's executable, the kernel's description and
//! the argument values set so far; `clEnqueueNDRangeKernel` snapshots the
//! values, so setting arguments after an enqueue never affects it.

use std::ffi::{c_char, c_void};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use opencl_sys::*;

use crate::compiler::{ArgKind, Built, KernelMeta};
use crate::device::check_device;
use crate::device_caps::{self, LOCAL_MEM_SIZE, MAX_WORK_GROUP_SIZE};
use crate::entry::{api, api_create, c_str, write_out};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, Info};
use crate::memory::Mem;
use crate::program::Program;
use crate::ClResult;

/// A kernel argument as set by `clSetKernelArg`.
#[derive(Clone)]
pub enum ArgSet {
    Bytes(Vec<u8>),
    /// A buffer (kept alive while set), or null.
    Buffer(Option<Arc<Object<Mem>>>),
    Local(usize),
}

/// A kernel object.
pub struct Kernel {
    pub program: Arc<Object<Program>>,
    pub built: Arc<Built>,
    /// Index of the kernel in `built.kernels`.
    pub index: usize,
    pub args: Mutex<Vec<Option<ArgSet>>>,
}

cl_type!(Kernel, CL_INVALID_KERNEL);

impl Kernel {
    /// The kernel's description.
    pub fn meta(&self) -> &KernelMeta {
        &self.built.kernels[self.index]
    }

    fn new(
        program: Arc<Object<Program>>,
        built: Arc<Built>,
        index: usize,
        args: Vec<Option<ArgSet>>,
    ) -> ClResult<Arc<Object<Kernel>>> {
        program.live_kernels.fetch_add(1, Ordering::AcqRel);
        Kernel::register(Kernel {
            program,
            built,
            index,
            args: Mutex::new(args),
        })
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.live_kernels.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `clCreateKernel`.
pub unsafe extern "C" fn clCreateKernel(
    program: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    let body = || {
        let program = Program::get(program)?;
        // SAFETY: a NUL-terminated name, per the API contract.
        let name = unsafe { c_str(kernel_name)? };
        let built = program.executable()?;
        let index = built
            .kernels
            .iter()
            .position(|k| k.name == name)
            .ok_or(CL_INVALID_KERNEL_NAME)?;
        let args = vec![None; built.kernels[index].args.len()];
        Ok(Kernel::new(program, built, index, args)?.handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateKernelsInProgram`.
pub unsafe extern "C" fn clCreateKernelsInProgram(
    program: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    api(|| {
        let program = Program::get(program)?;
        let built = program.executable()?;
        let count = built.kernels.len();
        if !kernels.is_null() {
            if (num_kernels as usize) < count {
                return Err(CL_INVALID_VALUE);
            }
            for index in 0..count {
                let args = vec![None; built.kernels[index].args.len()];
                let kernel = Kernel::new(program.clone(), built.clone(), index, args)?;
                // SAFETY: the caller provides num_kernels ≥ count slots.
                unsafe { kernels.add(index).write(kernel.handle()) };
            }
        }
        // SAFETY: null or writable, per the API contract.
        unsafe { write_out(num_kernels_ret, count as cl_uint) };
        Ok(())
    })
}

/// `clCloneKernel`: a new kernel with the same argument values.
pub unsafe extern "C" fn clCloneKernel(
    source_kernel: cl_kernel,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    let body = || {
        let source = Kernel::get(source_kernel)?;
        let args = source
            .args
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Ok(Kernel::new(
            source.program.clone(),
            source.built.clone(),
            source.index,
            args,
        )?
        .handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clRetainKernel`.
pub extern "C" fn clRetainKernel(kernel: cl_kernel) -> cl_int {
    api(|| Kernel::retain(kernel))
}

/// `clReleaseKernel`.
pub extern "C" fn clReleaseKernel(kernel: cl_kernel) -> cl_int {
    api(|| Kernel::release(kernel).map(drop))
}

/// `clSetKernelArg`.
pub unsafe extern "C" fn clSetKernelArg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    api(|| {
        let kernel = Kernel::get(kernel)?;
        let meta = kernel
            .meta()
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        let value = match meta.kind {
            ArgKind::Value { size } => {
                if arg_size != size {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                if arg_value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                // SAFETY: the application passes `arg_size` readable bytes.
                let bytes = unsafe { std::slice::from_raw_parts(arg_value.cast::<u8>(), size) };
                ArgSet::Bytes(bytes.to_vec())
            }
            ArgKind::Buffer => {
                if arg_size != std::mem::size_of::<cl_mem>() {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                // "If the argument is a buffer object, the arg_value pointer
                // can be NULL or point to a NULL value."
                let handle = if arg_value.is_null() {
                    std::ptr::null_mut()
                } else {
                    // SAFETY: the application passes a pointer to a cl_mem.
                    unsafe { arg_value.cast::<cl_mem>().read_unaligned() }
                };
                if handle.is_null() {
                    ArgSet::Buffer(None)
                } else {
                    let mem = Mem::get(handle).map_err(|_| CL_INVALID_MEM_OBJECT)?;
                    if !Arc::ptr_eq(&mem.context, &kernel.program.context) {
                        return Err(CL_INVALID_MEM_OBJECT);
                    }
                    ArgSet::Buffer(Some(mem))
                }
            }
            ArgKind::Local => {
                // "CL_INVALID_ARG_VALUE if the argument is declared with the
                // local qualifier and arg_value is not NULL."
                if !arg_value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                if arg_size == 0 {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                ArgSet::Local(arg_size)
            }
        };
        kernel.args.lock().unwrap_or_else(|p| p.into_inner())[arg_index as usize] = Some(value);
        Ok(())
    })
}

/// `clGetKernelInfo`.
pub unsafe extern "C" fn clGetKernelInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let kernel = Kernel::get(kernel)?;
        let meta = kernel.meta();
        Ok(match param_name {
            CL_KERNEL_FUNCTION_NAME => Info::string(&meta.name),
            CL_KERNEL_NUM_ARGS => Info::value(meta.args.len() as cl_uint),
            CL_KERNEL_REFERENCE_COUNT => Info::value(kernel.ref_count()),
            CL_KERNEL_CONTEXT => Info::value(kernel.program.context.handle()),
            CL_KERNEL_PROGRAM => Info::value(kernel.program.handle()),
            CL_KERNEL_ATTRIBUTES => Info::string(&meta.attributes),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clGetKernelArgInfo`.
pub unsafe extern "C" fn clGetKernelArgInfo(
    kernel: cl_kernel,
    arg_index: cl_uint,
    param_name: cl_kernel_arg_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let kernel = Kernel::get(kernel)?;
        let arg = kernel
            .meta()
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        Ok(match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => Info::value(arg.address),
            CL_KERNEL_ARG_ACCESS_QUALIFIER => Info::value(arg.access),
            CL_KERNEL_ARG_TYPE_NAME => Info::string(&arg.type_name),
            CL_KERNEL_ARG_TYPE_QUALIFIER => Info::value(arg.type_qualifier),
            CL_KERNEL_ARG_NAME => Info::string(&arg.name),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clGetKernelWorkGroupInfo`.
pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_work_group_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let kernel = Kernel::get(kernel)?;
        // The only device may be named or left null.
        if !device.is_null() {
            check_device(device)?;
        }
        let meta = kernel.meta();
        let local_args: u64 = kernel
            .args
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|arg| match arg {
                Some(ArgSet::Local(size)) => *size as u64,
                _ => 0,
            })
            .sum();
        Ok(match param_name {
            CL_KERNEL_WORK_GROUP_SIZE => Info::value(MAX_WORK_GROUP_SIZE),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => Info::array(&meta.reqd_work_group_size),
            CL_KERNEL_LOCAL_MEM_SIZE => Info::value(meta.local_mem_size + local_args),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                Info::value(device_caps::PREFERRED_WORK_GROUP_SIZE_MULTIPLE)
            }
            CL_KERNEL_PRIVATE_MEM_SIZE => Info::value(meta.private_mem_size),
            // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE
            // and device is not a custom device and kernel is not a
            // built-in kernel."
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `__local` bytes available to a launch after the kernel's own.
pub fn local_mem_budget(meta: &KernelMeta) -> u64 {
    LOCAL_MEM_SIZE.saturating_sub(meta.local_mem_size)
}

/// `clGetKernelSubGroupInfo` and its KHR form: vecl's device reports no
/// sub-groups (`CL_DEVICE_MAX_NUM_SUB_GROUPS` is 0).
pub unsafe extern "C" fn clGetKernelSubGroupInfo(
    kernel: cl_kernel,
    _device: cl_device_id,
    _param_name: cl_kernel_sub_group_info,
    _input_value_size: usize,
    _input_value: *const c_void,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    api(|| {
        Kernel::get(kernel)?;
        Err(CL_INVALID_OPERATION)
    })
}

/// `clSetKernelArgSVMPointer`: vecl offers no SVM.
pub unsafe extern "C" fn clSetKernelArgSVMPointer(
    kernel: cl_kernel,
    _arg_index: cl_uint,
    _arg_value: *const c_void,
) -> cl_int {
    api(|| {
        Kernel::get(kernel)?;
        Err(CL_INVALID_OPERATION)
    })
}

/// `clSetKernelExecInfo`: its parameters all concern SVM, which vecl does
/// not offer.
pub unsafe extern "C" fn clSetKernelExecInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    _param_value_size: usize,
    _param_value: *const c_void,
) -> cl_int {
    api(|| {
        Kernel::get(kernel)?;
        match param_name {
            CL_KERNEL_EXEC_INFO_SVM_PTRS | CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
                Err(CL_INVALID_OPERATION)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

//! Kernels: `clCreateKernel`, `clCreateKernelsInProgram`, `clCloneKernel`,
//! `clSetKernelArg`, `clGetKernelInfo`, `clGetKernelArgInfo`,
//! `clGetKernelWorkGroupInfo`, retain/release.
//!
//! A kernel holds its program's executable, the kernel's description and
//! the argument values set so far; `clEnqueueNDRangeKernel` snapshots the
//! values, so setting arguments after an enqueue never affects it.

use std::ffi::{c_char, c_void};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

use opencl_sys::*;

use crate::compiler::{ArgKind, Built, KernelMeta};
use crate::device::check_device;
use crate::entry::{api, api_create, c_str, write_out};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, Info};
use crate::memory::Mem;
use crate::program::Program;
use crate::sampler::Sampler;
use crate::ClResult;

/// Buffers set as arguments, by argument index. They are held weakly: a
/// buffer the application releases while it is still set as an argument is
/// destroyed (and its destructor callbacks run) as if it were not set, as
/// the conformance tests expect. The storage itself stays alive in the
/// argument values of `vecl::Kernel`, and each launch holds its buffers
/// strongly until it has run.
pub type ArgBuffers = Vec<Option<Weak<Object<Mem>>>>;

/// A kernel object.
pub struct Kernel {
    pub program: Arc<Object<Program>>,
    pub built: Arc<Built>,
    /// Index of the kernel in `built.kernels`.
    pub index: usize,
    /// vecl's kernel, which holds the argument values.
    pub raw: vecl::Kernel,
    pub buffers: Mutex<ArgBuffers>,
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
        raw: vecl::Kernel,
        buffers: ArgBuffers,
    ) -> ClResult<Arc<Object<Kernel>>> {
        program.live_kernels.fetch_add(1, Ordering::AcqRel);
        Kernel::register(Kernel {
            program,
            built,
            index,
            raw,
            buffers: Mutex::new(buffers),
        })
    }

    /// A fresh vecl kernel (no arguments set) for kernel `index` of `built`,
    /// with its empty buffer list.
    fn fresh(built: &Built, index: usize) -> ClResult<(vecl::Kernel, ArgBuffers)> {
        let meta = &built.kernels[index];
        let raw = built.program.kernel(&meta.name).map_err(|e| e.cl_code())?;
        Ok((raw, vec![None; meta.args.len()]))
    }

    /// The buffers set as arguments (weakly held).
    fn arg_buffers(&self) -> ArgBuffers {
        self.buffers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Clears the buffer recorded for argument `index` (now set to an SVM
    /// address rather than a buffer).
    pub fn forget_arg_buffer(&self, index: u32) {
        if let Some(slot) = self
            .buffers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(index as usize)
        {
            *slot = None;
        }
    }

    /// The buffers set as arguments that are still alive, held strongly
    /// for a launch.
    pub fn buffers(&self) -> Vec<Arc<Object<Mem>>> {
        self.arg_buffers()
            .iter()
            .filter_map(|buffer| buffer.as_ref().and_then(Weak::upgrade))
            .collect()
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
        let (raw, buffers) = Kernel::fresh(&built, index)?;
        Ok(Kernel::new(program, built, index, raw, buffers)?.handle())
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
                let (raw, buffers) = Kernel::fresh(&built, index)?;
                let kernel = Kernel::new(program.clone(), built.clone(), index, raw, buffers)?;
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
        Ok(Kernel::new(
            source.program.clone(),
            source.built.clone(),
            source.index,
            source.raw.duplicate(),
            source.arg_buffers(),
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
        let mut buffer = None;
        match meta.kind {
            ArgKind::Value => {
                if arg_value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                // SAFETY: the application passes `arg_size` readable bytes.
                let bytes = unsafe { std::slice::from_raw_parts(arg_value.cast::<u8>(), arg_size) };
                // vecl checks the size against the parameter's type.
                kernel.raw.set_arg_bytes(arg_index, bytes)
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
                if !handle.is_null() {
                    let mem = Mem::get(handle).map_err(|_| CL_INVALID_MEM_OBJECT)?;
                    if !Arc::ptr_eq(&mem.context, &kernel.program.context) || mem.is_image() {
                        return Err(CL_INVALID_MEM_OBJECT);
                    }
                    buffer = Some(mem);
                }
                kernel
                    .raw
                    .set_arg_mem(arg_index, buffer.as_ref().map(|mem| &mem.raw))
            }
            ArgKind::Image(image_type) => {
                let mem = image_arg(&kernel, meta.access, image_type, arg_size, arg_value)?;
                let set = kernel.raw.set_arg_mem(arg_index, Some(&mem.raw));
                buffer = Some(mem);
                set
            }
            ArgKind::Sampler => {
                // "CL_INVALID_SAMPLER for an argument declared to be of type
                // sampler_t when the specified arg_value is not a valid
                // sampler object."
                if arg_size != std::mem::size_of::<cl_sampler>() {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                // A null arg_value names no sampler either (the CTS's
                // reading of the rule).
                if arg_value.is_null() {
                    return Err(CL_INVALID_SAMPLER);
                }
                // SAFETY: the application passes a pointer to a cl_sampler.
                let handle = unsafe { arg_value.cast::<cl_sampler>().read_unaligned() };
                let sampler = Sampler::get(handle)?;
                if !Arc::ptr_eq(&sampler.context, &kernel.program.context) {
                    return Err(CL_INVALID_SAMPLER);
                }
                kernel
                    .raw
                    .set_arg_bytes(arg_index, &sampler.raw.bits().to_le_bytes())
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
                kernel.raw.set_arg_local(arg_index, arg_size)
            }
        }
        .map_err(|e| e.cl_code())?;
        kernel.buffers.lock().unwrap_or_else(|p| p.into_inner())[arg_index as usize] =
            buffer.as_ref().map(Arc::downgrade);
        Ok(())
    })
}

/// The image an image argument is set to: "CL_INVALID_MEM_OBJECT for an
/// argument declared to be a memory object when the specified arg_value is
/// not a valid memory object" (a buffer is not an image), and
/// "CL_INVALID_ARG_VALUE if the argument is an image declared with the
/// read_only qualifier and arg_value refers to an image object created with
/// cl_mem_flags of CL_MEM_WRITE_ONLY or if the image argument is declared
/// with the write_only qualifier and arg_value refers to an image object
/// created with cl_mem_flags of CL_MEM_READ_ONLY"; an image of another type
/// than the parameter's is an invalid value too.
fn image_arg(
    kernel: &Kernel,
    access: cl_kernel_arg_access_qualifier,
    image_type: cl_mem_object_type,
    arg_size: usize,
    arg_value: *const c_void,
) -> ClResult<Arc<Object<Mem>>> {
    if arg_size != std::mem::size_of::<cl_mem>() {
        return Err(CL_INVALID_ARG_SIZE);
    }
    if arg_value.is_null() {
        return Err(CL_INVALID_ARG_VALUE);
    }
    // SAFETY: the application passes a pointer to a cl_mem.
    let handle = unsafe { arg_value.cast::<cl_mem>().read_unaligned() };
    let mem = Mem::get(handle).map_err(|_| CL_INVALID_MEM_OBJECT)?;
    if !Arc::ptr_eq(&mem.context, &kernel.program.context) {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    let info = mem.raw.image().ok_or(CL_INVALID_MEM_OBJECT)?;
    let conflicting = match access {
        CL_KERNEL_ARG_ACCESS_READ_ONLY => CL_MEM_WRITE_ONLY,
        CL_KERNEL_ARG_ACCESS_WRITE_ONLY => CL_MEM_READ_ONLY,
        _ => 0,
    };
    if info.image_type != image_type || mem.flags & conflicting != 0 {
        return Err(CL_INVALID_ARG_VALUE);
    }
    Ok(mem)
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
        let info = kernel.raw.work_group_info();
        Ok(match param_name {
            CL_KERNEL_WORK_GROUP_SIZE => Info::value(info.work_group_size as usize),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
                Info::array(&info.compile_work_group_size.map(|n| n as usize))
            }
            CL_KERNEL_LOCAL_MEM_SIZE => Info::value(info.local_mem_size),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                Info::value(info.preferred_work_group_size_multiple as usize)
            }
            CL_KERNEL_PRIVATE_MEM_SIZE => Info::value(info.private_mem_size),
            // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE
            // and device is not a custom device and kernel is not a
            // built-in kernel."
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clGetKernelSubGroupInfo` and its KHR form. A sub-group is one SIMD
/// chunk of a row of the group (`vecl::SubGroupInfo`).
pub unsafe extern "C" fn clGetKernelSubGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: usize,
    input_value: *const c_void,
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
        let info = kernel.raw.sub_group_info();
        let words = input_value_size / std::mem::size_of::<usize>();
        // "CL_INVALID_VALUE if param_name is CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
        // CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE or CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT
        // and the size in bytes specified by input_value_size is not valid
        // or if input_value is NULL."
        let input = |allowed: std::ops::RangeInclusive<usize>| -> ClResult<Vec<u64>> {
            if input_value.is_null()
                || !input_value_size.is_multiple_of(std::mem::size_of::<usize>())
                || !allowed.contains(&words)
            {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: the caller passes `input_value_size` readable bytes
            // at `input_value`, per the API contract.
            let v = unsafe { std::slice::from_raw_parts(input_value as *const usize, words) };
            Ok(v.iter().map(|&x| x as u64).collect())
        };
        Ok(match param_name {
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => {
                Info::value(info.max_size_for(&input(1..=3)?) as usize)
            }
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => {
                Info::value(info.count_for(&input(1..=3)?) as usize)
            }
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
                let count = input(1..=1)?[0];
                let dims = if param_value.is_null() {
                    3
                } else {
                    param_value_size / std::mem::size_of::<usize>()
                };
                if !(1..=3).contains(&dims) {
                    return Err(CL_INVALID_VALUE);
                }
                let local: Vec<usize> = info
                    .local_size_for(count, dims)
                    .iter()
                    .map(|&n| n as usize)
                    .collect();
                Info::array(&local)
            }
            CL_KERNEL_MAX_NUM_SUB_GROUPS => Info::value(info.max_num() as usize),
            // No attribute asks for a number of sub-groups.
            CL_KERNEL_COMPILE_NUM_SUB_GROUPS => Info::value(0usize),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

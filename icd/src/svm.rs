//! Shared virtual memory: `clSVMAlloc`, `clSVMFree`, the `clEnqueueSVM*`
//! commands, `clSetKernelArgSVMPointer` and `clSetKernelExecInfo`.
//!
//! vecl's device is the host CPU, so an SVM allocation is ordinary host
//! memory that kernels address directly: coarse- and fine-grained buffer
//! SVM come for free (the host and the kernels see the same bytes, and
//! nothing needs copying when a region is mapped). Fine-grained *system*
//! SVM (any `malloc` pointer) and SVM atomics are not offered.
//!
//! Each context keeps its allocations in an [`SvmHeap`], which validates
//! frees, answers "is this range SVM" for `CL_MEM_USES_SVM_POINTER` and
//! migrations, and releases whatever the application did not free when
//! the context goes.

use std::alloc::Layout;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Mutex;

use opencl_sys::*;

use crate::compiler::ArgKind;
use crate::context::Context;
use crate::device_caps::CAPS;
use crate::enqueue::check_map_flags;
use crate::entry::{api, slice, UserPtr};
use crate::handle::ClType;
use crate::kernel::Kernel;
use crate::queue::{submit, Queue};
use crate::ClResult;

/// The alignment of an allocation that asks for none: the largest OpenCL C
/// type (`long16`, 128 bytes).
const DEFAULT_ALIGN: usize = 128;

/// The largest alignment `clSVMAlloc` accepts (a 2 MiB huge page).
const MAX_ALIGN: usize = 2 << 20;

/// What `CL_DEVICE_SVM_CAPABILITIES` reports.
pub const SVM_CAPABILITIES: cl_device_svm_capabilities =
    CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER;

/// A context's SVM allocations: start address → layout.
#[derive(Default)]
pub struct SvmHeap {
    blocks: Mutex<BTreeMap<usize, Layout>>,
}

impl SvmHeap {
    fn blocks(&self) -> std::sync::MutexGuard<'_, BTreeMap<usize, Layout>> {
        self.blocks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A zeroed allocation of `size` bytes aligned to `align` (a power of two).
    fn alloc(&self, size: usize, align: usize) -> Option<*mut u8> {
        let layout = Layout::from_size_align(size, align).ok()?;
        // SAFETY: `size` is non-zero (checked by the caller).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        self.blocks().insert(ptr as usize, layout);
        Some(ptr)
    }

    /// Frees the allocation starting at `ptr`; anything else is ignored.
    fn free(&self, ptr: *mut c_void) {
        if let Some(layout) = self.blocks().remove(&(ptr as usize)) {
            // SAFETY: `ptr` came from `alloc` with this layout and has just
            // left the table, so it is freed once.
            unsafe { std::alloc::dealloc(ptr.cast(), layout) };
        }
    }

    /// Whether `[ptr, ptr + len)` lies inside one allocation.
    pub fn contains(&self, ptr: *const c_void, len: usize) -> bool {
        let start = ptr as usize;
        self.blocks()
            .range(..=start)
            .next_back()
            .is_some_and(|(&base, layout)| {
                start
                    .checked_add(len)
                    .is_some_and(|end| end <= base + layout.size() && start < base + layout.size())
            })
    }
}

impl Drop for SvmHeap {
    fn drop(&mut self) {
        let blocks = std::mem::take(self.blocks.get_mut().unwrap_or_else(|p| p.into_inner()));
        for (ptr, layout) in blocks {
            // SAFETY: every entry is a live allocation made with its layout.
            unsafe { std::alloc::dealloc(ptr as *mut u8, layout) };
        }
    }
}

/// `clSVMAlloc`: null for every failure, as the specification asks.
pub unsafe extern "C" fn clSVMAlloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    let Ok(context) = Context::get(context) else {
        return std::ptr::null_mut();
    };
    let access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    // Unknown bits, two access modes, or atomics (which vecl does not
    // offer) make the flags invalid.
    if flags & !(access | CL_MEM_SVM_FINE_GRAIN_BUFFER) != 0 || (flags & access).count_ones() > 1 {
        return std::ptr::null_mut();
    }
    let align = match alignment as usize {
        0 => DEFAULT_ALIGN,
        a if a.is_power_of_two() && a <= MAX_ALIGN => a.max(DEFAULT_ALIGN),
        _ => return std::ptr::null_mut(),
    };
    if size == 0 || size as u64 > CAPS.max_mem_alloc_size {
        return std::ptr::null_mut();
    }
    context
        .svm
        .alloc(size, align)
        .map_or(std::ptr::null_mut(), |ptr| ptr.cast())
}

/// `clSVMFree`: frees at once (the application must not free memory that
/// enqueued commands still use; `clEnqueueSVMFree` is the ordered form).
pub unsafe extern "C" fn clSVMFree(context: cl_context, svm_pointer: *mut c_void) {
    if let Ok(context) = Context::get(context) {
        context.svm.free(svm_pointer);
    }
}

/// The callback of `clEnqueueSVMFree`.
pub type SvmFreeCallback = unsafe extern "C" fn(
    queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    user_data: *mut c_void,
);

/// Reads an application array of `count` pointers (null with `count` 0).
///
/// # Safety
/// `pointers` is null or holds `count` pointers.
unsafe fn pointer_list<T: Copy>(pointers: *const T, count: cl_uint) -> ClResult<Vec<T>> {
    // "CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is
    // non-NULL, or if svm_pointers is NULL and num_svm_pointers is not 0."
    if (count == 0) != pointers.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    if count == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: forwarded contract.
    Ok(unsafe { slice(pointers, count as usize, CL_INVALID_VALUE)? }.to_vec())
}

/// `clEnqueueSVMFree`: frees the pointers (or hands them to the
/// application's callback) once the command runs.
pub unsafe extern "C" fn clEnqueueSVMFree(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    pfn_free_func: Option<SvmFreeCallback>,
    user_data: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        // SAFETY: forwarded contract; the array may be reused once this
        // call returns, so it is copied.
        let mut pointers: Vec<UserPtr> =
            unsafe { pointer_list(svm_pointers.cast_const(), num_svm_pointers)? }
                .into_iter()
                .map(UserPtr)
                .collect();
        let user_data = UserPtr(user_data);
        let owner = queue.clone();
        let work = Box::new(move || {
            // The whole wrapper moves into the closure (a closure using only
            // `user_data.0` would capture the bare pointer).
            let user_data = user_data;
            match pfn_free_func {
                // SAFETY: the application's callback with the signature it
                // passed; the array lives until the callback returns.
                Some(callback) => unsafe {
                    callback(
                        owner.handle(),
                        pointers.len() as cl_uint,
                        pointers.as_mut_ptr().cast(),
                        user_data.0,
                    )
                },
                None => {
                    for pointer in &pointers {
                        owner.context.svm.free(pointer.0);
                    }
                }
            }
            Ok(())
        });
        // SAFETY: forwarded contracts.
        unsafe {
            submit(
                &queue,
                CL_COMMAND_SVM_FREE,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
                work,
            )
        }
    })
}

/// `clEnqueueSVMMemcpy`.
pub unsafe extern "C" fn clEnqueueSVMMemcpy(
    command_queue: cl_command_queue,
    blocking_copy: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        if dst_ptr.is_null() || src_ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (dst, src) = (dst_ptr as usize, src_ptr as usize);
        // A range past the end of the address space is no memory at all.
        if src.checked_add(size).is_none() || dst.checked_add(size).is_none() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr
        // and size result in an overlapping copy."
        if size > 0 && dst < src.saturating_add(size) && src < dst.saturating_add(size) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let work = Box::new(move || {
            // SAFETY: the application promises `size` bytes at both
            // addresses, valid until the command completes.
            unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, size) };
            Ok(())
        });
        // SAFETY: forwarded contracts.
        unsafe {
            submit(
                &queue,
                CL_COMMAND_SVM_MEMCPY,
                blocking_copy != CL_FALSE,
                num_events_in_wait_list,
                event_wait_list,
                event,
                work,
            )
        }
    })
}

/// `clEnqueueSVMMemFill`.
pub unsafe extern "C" fn clEnqueueSVMMemFill(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        // "CL_INVALID_VALUE if svm_ptr is NULL", "if svm_ptr is not aligned
        // to pattern_size bytes", "if pattern is NULL or if pattern_size is
        // 0 or if pattern_size is not one of {1, 2, 4, 8, 16, 32, 64, 128}",
        // "if size is not a multiple of pattern_size".
        if svm_ptr.is_null()
            || pattern.is_null()
            || !pattern_size.is_power_of_two()
            || pattern_size > 128
            || !(svm_ptr as usize).is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
            || (svm_ptr as usize).checked_add(size).is_none()
        {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the application passes `pattern_size` readable bytes.
        let pattern =
            unsafe { std::slice::from_raw_parts(pattern.cast::<u8>(), pattern_size) }.to_vec();
        let dst = svm_ptr as usize;
        let work = Box::new(move || {
            for at in (0..size).step_by(pattern.len()) {
                // SAFETY: the application promises `size` writable bytes at
                // `svm_ptr` until the command completes.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        pattern.as_ptr(),
                        (dst + at) as *mut u8,
                        pattern.len(),
                    )
                };
            }
            Ok(())
        });
        // SAFETY: forwarded contracts.
        unsafe {
            submit(
                &queue,
                CL_COMMAND_SVM_MEMFILL,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
                work,
            )
        }
    })
}

/// `clEnqueueSVMMap`: the memory is already the host's, so a map is an
/// ordering point only.
pub unsafe extern "C" fn clEnqueueSVMMap(
    command_queue: cl_command_queue,
    blocking_map: cl_bool,
    flags: cl_map_flags,
    svm_ptr: *mut c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        if svm_ptr.is_null() || size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        check_map_flags(flags)?;
        // SAFETY: forwarded contracts.
        unsafe {
            submit(
                &queue,
                CL_COMMAND_SVM_MAP,
                blocking_map != CL_FALSE,
                num_events_in_wait_list,
                event_wait_list,
                event,
                Box::new(|| Ok(())),
            )
        }
    })
}

/// `clEnqueueSVMUnmap`: an ordering point, like the map.
pub unsafe extern "C" fn clEnqueueSVMUnmap(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        if svm_ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: forwarded contracts.
        unsafe {
            submit(
                &queue,
                CL_COMMAND_SVM_UNMAP,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
                Box::new(|| Ok(())),
            )
        }
    })
}

/// `clEnqueueSVMMigrateMem`: there is one memory, so migration is an
/// ordering point once the ranges are checked.
pub unsafe extern "C" fn clEnqueueSVMMigrateMem(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *const c_void,
    sizes: *const usize,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        // "CL_INVALID_VALUE if num_svm_pointers is zero or svm_pointers is NULL."
        if num_svm_pointers == 0 || svm_pointers.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: `num_svm_pointers` pointers, per the API contract.
        let pointers = unsafe { pointer_list(svm_pointers.cast_const(), num_svm_pointers)? };
        let sizes = if sizes.is_null() {
            vec![0; pointers.len()]
        } else {
            // SAFETY: `sizes` is null or holds as many sizes as pointers.
            unsafe { slice(sizes, pointers.len(), CL_INVALID_VALUE)? }.to_vec()
        };
        // "CL_INVALID_VALUE if sizes[i] is non-zero range [svm_pointers[i],
        // svm_pointers[i]+sizes[i]) is not contained within an existing
        // clSVMAlloc allocation." A size of 0 names the whole allocation.
        for (&ptr, &len) in pointers.iter().zip(&sizes) {
            if ptr.is_null() || !queue.context.svm.contains(ptr, len.max(1)) {
                return Err(CL_INVALID_VALUE);
            }
        }
        // SAFETY: forwarded contracts.
        unsafe {
            submit(
                &queue,
                CL_COMMAND_SVM_MIGRATE_MEM,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
                Box::new(|| Ok(())),
            )
        }
    })
}

/// `clSetKernelArgSVMPointer`: the kernel receives the address itself,
/// which may point anywhere inside (or past the end of) an SVM allocation.
pub unsafe extern "C" fn clSetKernelArgSVMPointer(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_value: *const c_void,
) -> cl_int {
    api(|| {
        let kernel = Kernel::get(kernel)?;
        let arg = kernel
            .meta()
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        if arg.kind != ArgKind::Buffer {
            return Err(CL_INVALID_ARG_VALUE);
        }
        // SAFETY: the application keeps SVM memory valid while commands that
        // use it run (the SVM contract).
        unsafe { kernel.raw.set_arg_address(arg_index, arg_value as u64) }
            .map_err(|e| e.cl_code())?;
        kernel.forget_arg_buffer(arg_index);
        Ok(())
    })
}

/// `clSetKernelExecInfo`: the SVM pointers a kernel uses indirectly need
/// nothing (all memory is the host's); fine-grained system SVM is not
/// offered, so it can be switched off but not on.
pub unsafe extern "C" fn clSetKernelExecInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    param_value_size: usize,
    param_value: *const c_void,
) -> cl_int {
    api(|| {
        Kernel::get(kernel)?;
        if param_value.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        match param_name {
            CL_KERNEL_EXEC_INFO_SVM_PTRS => {
                if !param_value_size.is_multiple_of(std::mem::size_of::<*const c_void>()) {
                    return Err(CL_INVALID_VALUE);
                }
                Ok(())
            }
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
                if param_value_size != std::mem::size_of::<cl_bool>() {
                    return Err(CL_INVALID_VALUE);
                }
                // SAFETY: a cl_bool, per the size just checked.
                let on = unsafe { param_value.cast::<cl_bool>().read_unaligned() };
                // "CL_INVALID_OPERATION if param_name is
                // CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM and param_value
                // is CL_TRUE but no devices in the context associated with
                // kernel support fine-grain system SVM allocations."
                if on != CL_FALSE {
                    return Err(CL_INVALID_OPERATION);
                }
                Ok(())
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

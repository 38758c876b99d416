//! Enqueued commands: buffer reads, writes, copies (linear and
//! rectangular), fills, maps and unmaps, kernel launches, markers,
//! barriers, migrations.
//!
//! Each entry point checks its arguments as the specification lists them and
//! then submits the runtime's command (`vecl::runtime::Queue::enqueue_*`,
//! which runs it asynchronously and checks sizes with overflow-checked
//! arithmetic), or, for commands with no work of their own (maps, unmaps,
//! markers, barriers, migrations), an empty command in the queue's order
//! ([`Object::<Queue>::enqueue`]). Blocking forms wait for the command's
//! event.

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use opencl_sys::*;
use vecl::runtime::commands::{run_mode, Run};
use vecl::runtime::queue::CommandOrder;
use vecl::runtime::{Event as RawEvent, Rect};

use crate::device_caps::LOCAL_MEM_SIZE;
use crate::entry::{api, api_create, slice, wait_list};
use crate::handle::{ClType, Object};
use crate::kernel::Kernel;
use crate::memory::Mem;
use crate::queue::Queue;
use crate::ClResult;

/// A live memory object (buffer or image) of the queue's context.
pub fn queue_mem(queue: &Object<Queue>, mem: cl_mem) -> ClResult<Arc<Object<Mem>>> {
    let mem = Mem::get(mem)?;
    if !Arc::ptr_eq(&mem.context, &queue.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(mem)
}

/// A live buffer of the queue's context: "CL_INVALID_MEM_OBJECT if buffer
/// is not a valid buffer object" (an image is not).
pub fn queue_buffer(queue: &Object<Queue>, mem: cl_mem) -> ClResult<Arc<Object<Mem>>> {
    let mem = queue_mem(queue, mem)?;
    if mem.is_image() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(mem)
}

/// "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which
/// has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS."
pub fn check_host_read(mem: &Mem) -> ClResult<()> {
    if mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// The write counterpart of [`check_host_read`].
pub fn check_host_write(mem: &Mem) -> ClResult<()> {
    if mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// "CL_INVALID_VALUE if values specified in map_flags are not valid": only
/// `CL_MAP_READ`, `CL_MAP_WRITE` and `CL_MAP_WRITE_INVALIDATE_REGION`, the
/// last one never with the other two. Buffer, image and SVM maps share it.
pub fn check_map_flags(map_flags: cl_map_flags) -> ClResult<()> {
    let valid = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if map_flags & !valid != 0
        || (map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
            && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// The host access a map with `map_flags` needs of `mem`'s flags.
pub fn check_map_access(mem: &Mem, map_flags: cl_map_flags) -> ClResult<()> {
    if map_flags & CL_MAP_READ != 0 {
        check_host_read(mem)?;
    }
    if map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0 {
        check_host_write(mem)?;
    }
    Ok(())
}

/// Hands out the event of a command the runtime accepted, or returns the
/// code of the runtime's refusal.
///
/// # Safety
/// `event_out` is null or writable.
pub unsafe fn handed_out(
    queue: &Arc<Object<Queue>>,
    command_type: cl_command_type,
    submitted: vecl::Result<RawEvent>,
    event_out: *mut cl_event,
) -> ClResult<()> {
    let raw = submitted.map_err(|e| e.cl_code())?;
    // SAFETY: forwarded contract.
    unsafe { queue.hand_out(command_type, raw, event_out) }
}

/// A command with no work of its own: it only takes its place in the
/// queue's order (and, when blocking, waits for it).
///
/// # Safety
/// The wait list and event pointers of the API contract.
unsafe fn ordering_point(
    queue: &Arc<Object<Queue>>,
    command_type: cl_command_type,
    order: CommandOrder,
    blocking: bool,
    num_wait: cl_uint,
    wait_list: *const cl_event,
    event_out: *mut cl_event,
) -> ClResult<()> {
    let run = if blocking { Run::Blocking } else { Run::Small };
    // SAFETY: forwarded contracts.
    unsafe {
        queue.enqueue(
            command_type,
            num_wait,
            wait_list,
            event_out,
            order,
            run,
            Box::new(|| Ok(())),
        )?
    };
    Ok(())
}

/// `clEnqueueReadBuffer`.
pub unsafe extern "C" fn clEnqueueReadBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let mem = queue_buffer(&queue, buffer)?;
        if ptr.is_null() || size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        mem.check_range(offset, size)?;
        check_host_read(&mem)?;
        // SAFETY: forwarded contracts; the application keeps `ptr` valid for
        // `size` bytes until the command completes.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_read(
                &mem.raw,
                offset as u64,
                size as u64,
                ptr.cast(),
                blocking_read != CL_FALSE,
                &wait,
            );
            handed_out(&queue, CL_COMMAND_READ_BUFFER, submitted, event)
        }
    })
}

/// `clEnqueueWriteBuffer`.
pub unsafe extern "C" fn clEnqueueWriteBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let mem = queue_buffer(&queue, buffer)?;
        if ptr.is_null() || size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        mem.check_range(offset, size)?;
        check_host_write(&mem)?;
        // SAFETY: forwarded contracts; the application keeps `ptr` valid for
        // `size` bytes until the command completes.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_write(
                &mem.raw,
                offset as u64,
                size as u64,
                ptr.cast(),
                blocking_write != CL_FALSE,
                &wait,
            );
            handed_out(&queue, CL_COMMAND_WRITE_BUFFER, submitted, event)
        }
    })
}

/// `clEnqueueCopyBuffer`.
pub unsafe extern "C" fn clEnqueueCopyBuffer(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let src = queue_buffer(&queue, src_buffer)?;
        let dst = queue_buffer(&queue, dst_buffer)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        src.check_range(src_offset, size)?;
        dst.check_range(dst_offset, size)?;
        // CL_MEM_COPY_OVERLAP for overlapping regions of one buffer, or of
        // sub-buffers of one buffer: the runtime compares root ranges.
        // SAFETY: forwarded contracts.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_copy(
                &src.raw,
                &dst.raw,
                src_offset as u64,
                dst_offset as u64,
                size as u64,
                &wait,
            );
            handed_out(&queue, CL_COMMAND_COPY_BUFFER, submitted, event)
        }
    })
}

/// Reads a 3-element `size_t` array argument.
///
/// # Safety
/// `ptr` is null or points at three `size_t`s.
pub unsafe fn triple(ptr: *const usize) -> ClResult<[usize; 3]> {
    // SAFETY: forwarded contract.
    let values = unsafe { slice(ptr, 3, CL_INVALID_VALUE)? };
    Ok([values[0], values[1], values[2]])
}

/// A C API rectangle (origin, pitches) as the runtime's.
fn rect(origin: [usize; 3], row_pitch: usize, slice_pitch: usize) -> Rect {
    Rect {
        origin: origin.map(|n| n as u64),
        row_pitch: row_pitch as u64,
        slice_pitch: slice_pitch as u64,
    }
}

/// The direction of a host ↔ buffer rectangle transfer.
enum RectDirection {
    Read,
    Write,
}

/// `clEnqueueReadBufferRect` and `clEnqueueWriteBufferRect`. The runtime
/// resolves the pitches and checks both rectangles with overflow-checked
/// arithmetic: a region, origin or pitch whose extent does not fit is
/// `CL_INVALID_VALUE`.
///
/// # Safety
/// The API contracts of those two functions.
unsafe fn host_rect(
    direction: RectDirection,
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    let queue = Queue::get(command_queue)?;
    let mem = queue_buffer(&queue, buffer)?;
    // SAFETY: forwarded contract.
    let (buffer_origin, host_origin, region) = unsafe {
        (
            triple(buffer_origin)?,
            triple(host_origin)?,
            triple(region)?,
        )
    };
    if ptr.is_null() || region.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    let buffer_rect = rect(buffer_origin, buffer_row_pitch, buffer_slice_pitch);
    let host_rect = rect(host_origin, host_row_pitch, host_slice_pitch);
    let region = region.map(|n| n as u64);
    let blocking = blocking != CL_FALSE;
    // SAFETY: forwarded contracts; the application keeps the host rectangle
    // valid until the command completes.
    unsafe {
        let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
        let (command, submitted) = match direction {
            RectDirection::Read => (
                CL_COMMAND_READ_BUFFER_RECT,
                queue.raw.enqueue_read_rect(
                    &mem.raw,
                    &buffer_rect,
                    &host_rect,
                    region,
                    ptr.cast(),
                    blocking,
                    &wait,
                ),
            ),
            RectDirection::Write => (
                CL_COMMAND_WRITE_BUFFER_RECT,
                queue.raw.enqueue_write_rect(
                    &mem.raw,
                    &buffer_rect,
                    &host_rect,
                    region,
                    ptr.cast(),
                    blocking,
                    &wait,
                ),
            ),
        };
        handed_out(&queue, command, submitted, event)
    }
}
/// `clEnqueueReadBufferRect`.
pub unsafe extern "C" fn clEnqueueReadBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        // SAFETY: forwarded contracts.
        unsafe {
            host_rect(
                RectDirection::Read,
                command_queue,
                buffer,
                blocking_read,
                buffer_origin,
                host_origin,
                region,
                buffer_row_pitch,
                buffer_slice_pitch,
                host_row_pitch,
                host_slice_pitch,
                ptr,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// `clEnqueueWriteBufferRect`.
pub unsafe extern "C" fn clEnqueueWriteBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        // SAFETY: forwarded contracts.
        unsafe {
            host_rect(
                RectDirection::Write,
                command_queue,
                buffer,
                blocking_write,
                buffer_origin,
                host_origin,
                region,
                buffer_row_pitch,
                buffer_slice_pitch,
                host_row_pitch,
                host_slice_pitch,
                ptr.cast_mut(),
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// `clEnqueueCopyBufferRect`.
pub unsafe extern "C" fn clEnqueueCopyBufferRect(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let src = queue_buffer(&queue, src_buffer)?;
        let dst = queue_buffer(&queue, dst_buffer)?;
        // SAFETY: forwarded contract.
        let (src_origin, dst_origin, region) =
            unsafe { (triple(src_origin)?, triple(dst_origin)?, triple(region)?) };
        if region.contains(&0) {
            return Err(CL_INVALID_VALUE);
        }
        let src_rect = rect(src_origin, src_row_pitch, src_slice_pitch);
        let dst_rect = rect(dst_origin, dst_row_pitch, dst_slice_pitch);
        // SAFETY: forwarded contracts.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_copy_rect(
                &src.raw,
                &dst.raw,
                &src_rect,
                &dst_rect,
                region.map(|n| n as u64),
                &wait,
            );
            handed_out(&queue, CL_COMMAND_COPY_BUFFER_RECT, submitted, event)
        }
    })
}

/// `clEnqueueFillBuffer`.
pub unsafe extern "C" fn clEnqueueFillBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let mem = queue_buffer(&queue, buffer)?;
        // "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if
        // pattern_size is not one of { 1, 2, 4, 8, 16, 32, 64, 128 }", and
        // offset and size must be multiples of pattern_size.
        if pattern.is_null() || !pattern_size.is_power_of_two() || pattern_size > 128 {
            return Err(CL_INVALID_VALUE);
        }
        if !offset.is_multiple_of(pattern_size) || !size.is_multiple_of(pattern_size) {
            return Err(CL_INVALID_VALUE);
        }
        mem.check_range(offset, size)?;
        // SAFETY: the application passes `pattern_size` readable bytes.
        let pattern = unsafe { std::slice::from_raw_parts(pattern.cast::<u8>(), pattern_size) };
        // SAFETY: forwarded contracts.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted =
                queue
                    .raw
                    .enqueue_fill(&mem.raw, pattern, offset as u64, size as u64, &wait);
            handed_out(&queue, CL_COMMAND_FILL_BUFFER, submitted, event)
        }
    })
}

/// `clEnqueueMapBuffer`: buffers are host memory, so a map hands out the
/// buffer's own address.
pub unsafe extern "C" fn clEnqueueMapBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let body = || {
        let queue = Queue::get(command_queue)?;
        let mem = queue_buffer(&queue, buffer)?;
        check_map_flags(map_flags)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        mem.check_range(offset, size)?;
        check_map_access(&mem, map_flags)?;
        // SAFETY: offset + size lies inside the buffer (checked above).
        let address = unsafe { mem.base().add(offset) };
        // SAFETY: forwarded contracts.
        let wait = unsafe { queue.wait_list(num_events_in_wait_list, event_wait_list)? };
        mem.map_count.fetch_add(1, Ordering::AcqRel);
        let run = run_mode(blocking_map != CL_FALSE, 0);
        // SAFETY: forwarded contract of the event pointer.
        let mapped = unsafe {
            queue.submit(
                CL_COMMAND_MAP_BUFFER,
                &wait,
                event,
                CommandOrder::Plain,
                run,
                Box::new(|| Ok(())),
            )
        };
        if let Err(code) = mapped {
            // The blocking map failed: the mapping was not handed out.
            mem.map_count.fetch_sub(1, Ordering::AcqRel);
            return Err(code);
        }
        Ok(address.cast::<c_void>())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clEnqueueUnmapMemObject`.
pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    command_queue: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let mem = queue_mem(&queue, memobj)?;
        let address = mapped_ptr as usize;
        let base = mem.base() as usize;
        // "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by
        // clEnqueueMapBuffer or clEnqueueMapImage for memobj."
        if mapped_ptr.is_null() || address < base || address >= base + mem.size {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: forwarded contracts.
        let wait = unsafe { queue.wait_list(num_events_in_wait_list, event_wait_list)? };
        mem.map_count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |count| {
                count.checked_sub(1)
            })
            .map_err(|_| CL_INVALID_VALUE)?;
        // SAFETY: forwarded contract of the event pointer.
        unsafe {
            queue.submit(
                CL_COMMAND_UNMAP_MEM_OBJECT,
                &wait,
                event,
                CommandOrder::Plain,
                Run::Small,
                Box::new(|| Ok(())),
            )?
        };
        Ok(())
    })
}

/// `clEnqueueMigrateMemObjects`: all memory is host memory, so migration is
/// only an ordering point.
pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    command_queue: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        if num_mem_objects == 0 || mem_objects.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: `num_mem_objects` handles, per the API contract.
        let handles = unsafe { slice(mem_objects, num_mem_objects as usize, CL_INVALID_VALUE)? };
        let mems = handles
            .iter()
            .map(|&mem| queue_mem(&queue, mem))
            .collect::<ClResult<Vec<_>>>()?;
        drop(mems);
        // SAFETY: forwarded contracts.
        unsafe {
            ordering_point(
                &queue,
                CL_COMMAND_MIGRATE_MEM_OBJECTS,
                CommandOrder::Plain,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// `clEnqueueMarkerWithWaitList`.
pub unsafe extern "C" fn clEnqueueMarkerWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        // SAFETY: forwarded contracts.
        unsafe {
            ordering_point(
                &queue,
                CL_COMMAND_MARKER,
                CommandOrder::Marker,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// `clEnqueueBarrierWithWaitList`.
pub unsafe extern "C" fn clEnqueueBarrierWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        // SAFETY: forwarded contracts.
        unsafe {
            ordering_point(
                &queue,
                CL_COMMAND_BARRIER,
                CommandOrder::Barrier,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// `clEnqueueMarker` (OpenCL 1.1).
pub unsafe extern "C" fn clEnqueueMarker(
    command_queue: cl_command_queue,
    event: *mut cl_event,
) -> cl_int {
    if event.is_null() {
        return api(|| {
            Queue::get(command_queue)
                .map(drop)
                .and(Err(CL_INVALID_VALUE))
        });
    }
    // SAFETY: forwarded contract.
    unsafe { clEnqueueMarkerWithWaitList(command_queue, 0, std::ptr::null(), event) }
}

/// `clEnqueueBarrier` (OpenCL 1.1).
pub unsafe extern "C" fn clEnqueueBarrier(command_queue: cl_command_queue) -> cl_int {
    // SAFETY: no wait list, no event.
    unsafe {
        clEnqueueBarrierWithWaitList(command_queue, 0, std::ptr::null(), std::ptr::null_mut())
    }
}

/// `clEnqueueWaitForEvents` (OpenCL 1.1): a barrier on the given events.
pub unsafe extern "C" fn clEnqueueWaitForEvents(
    command_queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: forwarded contract.
        let handles = unsafe { wait_list(event_list, num_events, CL_INVALID_VALUE)? };
        for &handle in handles {
            crate::event::Event::get(handle)?;
        }
        // SAFETY: forwarded contracts.
        unsafe {
            ordering_point(
                &queue,
                CL_COMMAND_BARRIER,
                CommandOrder::Barrier,
                false,
                num_events,
                event_list,
                std::ptr::null_mut(),
            )
        }
    })
}

/// An NDRange as the C API states it (unused dimensions 0 offset, size 1).
#[derive(Clone, Copy)]
struct Range {
    offset: [usize; 3],
    global: [usize; 3],
    local: [usize; 3],
}

/// `clEnqueueNDRangeKernel`.
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: forwarded contracts.
    unsafe {
        launch(
            CL_COMMAND_NDRANGE_KERNEL,
            command_queue,
            kernel,
            work_dim,
            global_work_offset,
            global_work_size,
            local_work_size,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// A kernel launch, `clEnqueueNDRangeKernel` or (`command_type`
/// `CL_COMMAND_TASK`) `clEnqueueTask`.
///
/// # Safety
/// The API contract of `clEnqueueNDRangeKernel`.
unsafe fn launch(
    command_type: cl_command_type,
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let kernel = Kernel::get(kernel)?;
        if !Arc::ptr_eq(&kernel.program.context, &queue.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        if !(1..=3).contains(&work_dim) {
            return Err(CL_INVALID_WORK_DIMENSION);
        }
        let dims = work_dim as usize;
        let mut range = Range {
            offset: [0; 3],
            global: [1; 3],
            local: [1; 3],
        };
        // "If global_work_size is NULL, or if any of the values in
        // global_work_size is 0, the kernel command will trivially succeed
        // after its event dependencies are satisfied" (OpenCL 2.1 and later;
        // CL_INVALID_GLOBAL_WORK_SIZE for it is deprecated).
        if global_work_size.is_null() {
            range.global[0] = 0;
        }
        // SAFETY: `work_dim` elements each, per the API contract.
        unsafe {
            if !global_work_size.is_null() {
                range.global[..dims].copy_from_slice(slice(
                    global_work_size,
                    dims,
                    CL_INVALID_GLOBAL_WORK_SIZE,
                )?);
            }
            if !global_work_offset.is_null() {
                range.offset[..dims].copy_from_slice(slice(
                    global_work_offset,
                    dims,
                    CL_INVALID_GLOBAL_OFFSET,
                )?);
            }
        }
        let info = kernel.raw.work_group_info();
        let reqd = info.compile_work_group_size.map(|n| n as usize);
        // With no local size, the runtime picks one at launch: whole SIMD
        // chunks where the global size allows (`vecl_runtime::ndrange`).
        let chosen = local_work_size.is_null() && reqd == [0; 3];
        if local_work_size.is_null() {
            range.local = reqd;
        } else {
            // SAFETY: `work_dim` elements, per the API contract.
            range.local[..dims].copy_from_slice(unsafe {
                slice(local_work_size, dims, CL_INVALID_WORK_GROUP_SIZE)?
            });
        }
        let to_u64 = |v: [usize; 3]| v.map(|n| n as u64);
        let nd_range = vecl::NdRange {
            work_dim,
            offset: to_u64(range.offset),
            global: to_u64(range.global),
            local: (!chosen).then(|| to_u64(range.local)),
        };
        // The launch's own checks (offsets, sizes, a required or uniform
        // group size, overflow), so that a shape it would refuse is this
        // call's error rather than the event's.
        vecl::runtime::ndrange::plan_launch(
            &nd_range,
            kernel.raw.simd_width(),
            &kernel.raw.launch_rules(),
        )
        .map_err(|e| e.cl_code())?;
        // The kernel's own limit on a group, below the device's.
        if range.local.iter().product::<usize>() > info.work_group_size as usize {
            return Err(CL_INVALID_WORK_GROUP_SIZE);
        }
        // "CL_INVALID_KERNEL_ARGS if the kernel argument values have not been
        // specified."
        if !(0..kernel.raw.num_args()).all(|index| kernel.raw.is_arg_set(index)) {
            return Err(CL_INVALID_KERNEL_ARGS);
        }
        if info.local_mem_size > LOCAL_MEM_SIZE {
            return Err(CL_OUT_OF_RESOURCES);
        }
        // SAFETY: forwarded contract.
        let wait = unsafe { queue.wait_list(num_events_in_wait_list, event_wait_list)? };
        // The launch takes the argument values of now (the runtime lays out
        // the argument block at enqueue); the buffer objects stay alive until
        // it has run, so their destructor callbacks wait for it.
        let launched = kernel
            .raw
            .enqueue(&queue.raw, &nd_range, &wait)
            .map_err(|e| e.cl_code())?;
        let buffers = kernel.buffers();
        launched.when_done(Box::new(move |_| drop(buffers)));
        // SAFETY: forwarded contract.
        unsafe { queue.hand_out(command_type, launched, event) }
    })
}

/// `clEnqueueTask`: a launch of one work-item.
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let one = [1usize];
    // SAFETY: forwarded contracts; `one` outlives the call.
    unsafe {
        launch(
            CL_COMMAND_TASK,
            command_queue,
            kernel,
            1,
            std::ptr::null(),
            one.as_ptr(),
            one.as_ptr(),
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// `clEnqueueNativeKernel`: vecl's device has no `CL_EXEC_NATIVE_KERNEL`
/// capability.
pub unsafe extern "C" fn clEnqueueNativeKernel(
    command_queue: cl_command_queue,
    _user_func: Option<unsafe extern "C" fn(*mut c_void)>,
    _args: *mut c_void,
    _cb_args: usize,
    _num_mem_objects: cl_uint,
    _mem_list: *const cl_mem,
    _args_mem_loc: *mut *const c_void,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    api(|| {
        Queue::get(command_queue)?;
        Err(CL_INVALID_OPERATION)
    })
}

/// `clGetKernelSuggestedLocalWorkSizeKHR` (`cl_khr_suggested_local_work_size`):
/// the local size an enqueue of `kernel` over this range with no local size
/// would run with, the runtime's own choice (`reqd_work_group_size` when the
/// kernel has one; otherwise whole SIMD chunks where the global size allows,
/// and partial groups only for programs that allow non-uniform groups).
///
/// # Safety
/// `global_work_offset` is null or holds `work_dim` values;
/// `global_work_size` and `suggested_local_work_size` are null or hold
/// `work_dim` values (the latter writable).
pub unsafe extern "C" fn clGetKernelSuggestedLocalWorkSizeKHR(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    suggested_local_work_size: *mut usize,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let kernel = Kernel::get(kernel)?;
        // "CL_INVALID_CONTEXT if the context associated with kernel is not
        // the same as the context associated with command_queue."
        if !Arc::ptr_eq(&kernel.program.context, &queue.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        if !(1..=3).contains(&work_dim) {
            return Err(CL_INVALID_WORK_DIMENSION);
        }
        let dims = work_dim as usize;
        // "CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL or if any
        // of the values specified in global_work_size are 0."
        // SAFETY: `work_dim` elements, per the API contract.
        let global = unsafe { slice(global_work_size, dims, CL_INVALID_GLOBAL_WORK_SIZE)? };
        if global.contains(&0) {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        if suggested_local_work_size.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_KERNEL_ARGS if all argument values for kernel have
        // not been set."
        if !(0..kernel.raw.num_args()).all(|index| kernel.raw.is_arg_set(index)) {
            return Err(CL_INVALID_KERNEL_ARGS);
        }
        let mut range = vecl::NdRange {
            work_dim,
            offset: [0; 3],
            global: [1; 3],
            local: None,
        };
        for (to, &from) in range.global.iter_mut().zip(global) {
            *to = from as u64;
        }
        if !global_work_offset.is_null() {
            // SAFETY: `work_dim` elements, per the API contract.
            let offset = unsafe { slice(global_work_offset, dims, CL_INVALID_GLOBAL_OFFSET)? };
            for (to, &from) in range.offset.iter_mut().zip(offset) {
                *to = from as u64;
            }
        }
        let launch = vecl::runtime::ndrange::plan_launch(
            &range,
            kernel.raw.simd_width(),
            &kernel.raw.launch_rules(),
        )
        .map_err(|e| e.cl_code())?
        .ok_or(CL_INVALID_GLOBAL_WORK_SIZE)?;
        for d in 0..dims {
            // SAFETY: non-null (checked) with `work_dim` writable elements.
            unsafe {
                suggested_local_work_size
                    .add(d)
                    .write(launch.local_size[d] as usize)
            };
        }
        Ok(())
    })
}

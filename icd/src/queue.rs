//! Command queues: `clCreateCommandQueueWithProperties`,
//! `clCreateCommandQueue` (OpenCL 1.x), retain/release,
//! `clGetCommandQueueInfo`, `clFlush`, `clFinish`, and the common path every
//! enqueue takes ([`Object::<Queue>::submit`]).
//!
//! A queue is the runtime's queue (`vecl::runtime::Queue`), which orders
//! and runs the commands; this layer checks arguments, hands the runtime
//! the wait list and the work, and wraps the runtime's event in a handle.

use std::ffi::c_void;
use std::sync::Arc;

use opencl_sys::*;
use vecl::runtime::commands::Run;
use vecl::runtime::queue::{CommandOrder, Work};
use vecl::runtime::{Event as RawEvent, Queue as RawQueue, QueueProperties};

use crate::context::Context;
use crate::device::{check_device, device_handle};
use crate::entry::{api, api_create, property_list, write_out};
use crate::event::{wait_events, Event};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, Info};
use crate::ClResult;

/// A host command queue on vecl's device.
pub struct Queue {
    pub context: Arc<Object<Context>>,
    pub properties: cl_command_queue_properties,
    /// The property list as given, with its terminating 0 (empty when the
    /// queue was made by `clCreateCommandQueue` or without properties).
    property_list: Vec<cl_queue_properties>,
    /// The runtime's queue: ordering, dependencies, execution.
    pub raw: RawQueue,
}

cl_type!(Queue, CL_INVALID_COMMAND_QUEUE);

const SUPPORTED: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

fn new_queue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    property_list: Vec<cl_queue_properties>,
) -> ClResult<cl_command_queue> {
    let context = Context::get(context)?;
    check_device(device)?;
    // Device-side queues are not offered (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES
    // is 0), so CL_QUEUE_ON_DEVICE is not a valid property value here.
    if properties & !SUPPORTED != 0 {
        return Err(CL_INVALID_VALUE);
    }
    let raw = RawQueue::new(QueueProperties {
        out_of_order: properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
        profiling: properties & CL_QUEUE_PROFILING_ENABLE != 0,
        kernel_timeout: vecl::Config::global().kernel_timeout,
    })
    .map_err(|e| e.cl_code())?;
    let reporter = Arc::clone(&context);
    raw.set_failure_hook(Box::new(move |event, error| {
        report_failure(&reporter, event, error)
    }));
    let queue = Queue::register(Queue {
        context,
        properties,
        property_list,
        raw,
    })?;
    Ok(queue.handle())
}

/// Tells the application that a command failed: through the context's
/// `pfn_notify`, or on stderr when the context has none.
fn report_failure(context: &Context, event: &RawEvent, error: &vecl::Error) {
    let message = format!(
        "vecl: {} failed with {} ({}): {error}",
        command_name(event.command_type()),
        error_name(error.cl_code()),
        error.cl_code()
    );
    context.notify(&message);
}

/// The name of the error codes a command can fail with.
fn error_name(code: cl_int) -> &'static str {
    match code {
        CL_OUT_OF_RESOURCES => "CL_OUT_OF_RESOURCES",
        CL_OUT_OF_HOST_MEMORY => "CL_OUT_OF_HOST_MEMORY",
        CL_MEM_OBJECT_ALLOCATION_FAILURE => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST => {
            "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"
        }
        CL_INVALID_VALUE => "CL_INVALID_VALUE",
        CL_INVALID_OPERATION => "CL_INVALID_OPERATION",
        _ => "an error",
    }
}

/// A command type as the application would name it.
fn command_name(command_type: u32) -> &'static str {
    match command_type {
        CL_COMMAND_NDRANGE_KERNEL => "a kernel (clEnqueueNDRangeKernel)",
        CL_COMMAND_TASK => "a kernel (clEnqueueTask)",
        CL_COMMAND_NATIVE_KERNEL => "a host function",
        _ => "a command",
    }
}

/// `clCreateCommandQueueWithProperties`.
pub unsafe extern "C" fn clCreateCommandQueueWithProperties(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    let body = || {
        let mut flags = 0;
        let mut list = Vec::new();
        // SAFETY: null or a zero-terminated list, per the API contract.
        let pairs = unsafe { property_list(properties) };
        for (key, value) in pairs.unwrap_or_default() {
            match key as cl_uint {
                CL_QUEUE_PROPERTIES => flags = value,
                // Only meaningful for device-side queues, which the
                // property check below rejects.
                CL_QUEUE_SIZE => {
                    if flags & CL_QUEUE_ON_DEVICE == 0 {
                        return Err(CL_INVALID_VALUE);
                    }
                }
                _ => return Err(CL_INVALID_VALUE),
            }
            list.extend([key, value]);
        }
        if !properties.is_null() {
            list.push(0);
        }
        new_queue(context, device, flags, list)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateCommandQueue` (OpenCL 1.x form).
pub unsafe extern "C" fn clCreateCommandQueue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    // SAFETY: forwarded contract of errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            new_queue(context, device, properties, Vec::new())
        })
    }
}

/// `clRetainCommandQueue`.
pub extern "C" fn clRetainCommandQueue(queue: cl_command_queue) -> cl_int {
    api(|| Queue::retain(queue))
}

/// `clReleaseCommandQueue`: flushes the queue, as the specification asks.
pub extern "C" fn clReleaseCommandQueue(queue: cl_command_queue) -> cl_int {
    api(|| Queue::release(queue).map(drop))
}

/// `clGetCommandQueueInfo`.
pub unsafe extern "C" fn clGetCommandQueueInfo(
    queue: cl_command_queue,
    param_name: cl_command_queue_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let queue = Queue::get(queue)?;
        Ok(match param_name {
            CL_QUEUE_CONTEXT => Info::value(queue.context.handle()),
            CL_QUEUE_DEVICE => Info::value(device_handle()),
            CL_QUEUE_REFERENCE_COUNT => Info::value(queue.ref_count()),
            CL_QUEUE_PROPERTIES => Info::value(queue.properties),
            CL_QUEUE_PROPERTIES_ARRAY => Info::array(&queue.property_list),
            CL_QUEUE_SIZE => return Err(CL_INVALID_COMMAND_QUEUE),
            CL_QUEUE_DEVICE_DEFAULT => Info::value(std::ptr::null_mut::<c_void>()),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clFlush`: commands are submitted to the runtime when enqueued, so
/// there is nothing left to flush.
pub extern "C" fn clFlush(queue: cl_command_queue) -> cl_int {
    api(|| Queue::get(queue)?.raw.flush().map_err(|e| e.cl_code()))
}

/// `clFinish`: blocks until every command of the queue is final. A command
/// whose own work failed since the previous `clFinish` (a kernel stopped by
/// checked mode) makes it return that failure's code.
pub extern "C" fn clFinish(queue: cl_command_queue) -> cl_int {
    api(|| Queue::get(queue)?.raw.finish().map_err(|e| e.cl_code()))
}

/// `clSetCommandQueueProperty` (OpenCL 1.0, removed in 1.1): queue
/// properties cannot change after creation.
pub unsafe extern "C" fn clSetCommandQueueProperty(
    queue: cl_command_queue,
    _properties: cl_command_queue_properties,
    _enable: cl_bool,
    _old_properties: *mut cl_command_queue_properties,
) -> cl_int {
    api(|| {
        Queue::get(queue)?;
        Err(CL_INVALID_OPERATION)
    })
}

impl Object<Queue> {
    /// The wait list of an enqueue, checked: live events of this queue's
    /// context.
    ///
    /// # Safety
    /// `wait_list` holds `num_wait` handles (or is null).
    pub unsafe fn wait_list(
        &self,
        num_wait: cl_uint,
        wait_list: *const cl_event,
    ) -> ClResult<Vec<RawEvent>> {
        // SAFETY: forwarded contract.
        unsafe { wait_events(&self.context, num_wait, wait_list) }
    }

    /// Hands a command's runtime event to the application: `event_out`
    /// (when non-null) receives a new handle for it.
    ///
    /// # Safety
    /// `event_out` is null or writable.
    pub unsafe fn hand_out(
        self: &Arc<Self>,
        command_type: cl_command_type,
        raw: RawEvent,
        event_out: *mut cl_event,
    ) -> ClResult<()> {
        if event_out.is_null() {
            return Ok(());
        }
        let event = Event::register(Event {
            context: self.context.clone(),
            queue: Some(self.clone()),
            command_type,
            raw,
        })?;
        // SAFETY: forwarded contract.
        unsafe { write_out(event_out, event.handle()) };
        Ok(())
    }

    /// Submits `work` as a command after `wait` and the queue's order, hands
    /// its event out, and waits for it when `run` is blocking (a failure of
    /// its wait list is then this call's
    /// `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`).
    ///
    /// # Safety
    /// `event_out` is null or writable.
    pub unsafe fn submit(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait: &[RawEvent],
        event_out: *mut cl_event,
        order: CommandOrder,
        run: Run,
        work: Work,
    ) -> ClResult<RawEvent> {
        let raw = self
            .raw
            .submit(command_type, order, wait, run != Run::Async, work);
        // SAFETY: forwarded contract.
        unsafe { self.hand_out(command_type, raw.clone(), event_out)? };
        if run == Run::Blocking {
            wait_blocking(&raw)?;
        }
        Ok(raw)
    }

    /// [`Object::<Queue>::submit`] with the wait list as the C API gives it.
    ///
    /// # Safety
    /// `wait_list` holds `num_wait` handles (or is null); `event_out` is null
    /// or writable.
    pub unsafe fn enqueue(
        self: &Arc<Self>,
        command_type: cl_command_type,
        num_wait: cl_uint,
        wait_list: *const cl_event,
        event_out: *mut cl_event,
        order: CommandOrder,
        run: Run,
        work: Work,
    ) -> ClResult<RawEvent> {
        // SAFETY: forwarded contracts.
        unsafe {
            let wait = self.wait_list(num_wait, wait_list)?;
            self.submit(command_type, &wait, event_out, order, run, work)
        }
    }
}

/// Enqueues `work` as an ordinary command of type `command` and waits for
/// it when `blocking` (the image and SVM commands).
///
/// # Safety
/// `wait_list` holds `num_wait` handles (or is null); `event` is null or
/// writable.
pub unsafe fn submit(
    queue: &Arc<Object<Queue>>,
    command: cl_command_type,
    blocking: bool,
    num_wait: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
    work: Work,
) -> ClResult<()> {
    let run = if blocking { Run::Blocking } else { Run::Async };
    // SAFETY: forwarded contracts.
    unsafe {
        queue.enqueue(
            command,
            num_wait,
            wait_list,
            event,
            CommandOrder::Plain,
            run,
            work,
        )?
    };
    Ok(())
}

/// Waits for a blocking command's event; a failed command reports
/// `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`.
pub fn wait_blocking(event: &RawEvent) -> ClResult<()> {
    event
        .wait()
        .map_err(|_| CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
}

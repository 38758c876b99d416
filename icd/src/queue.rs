//! Command queues: `clCreateCommandQueueWithProperties`,
//! `clCreateCommandQueue` (OpenCL 1.x), retain/release,
//! `clGetCommandQueueInfo`, `clFlush`, `clFinish`, and the common path every
//! enqueue takes ([`Object::<Queue>::enqueue`]).

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use opencl_sys::*;

use crate::context::Context;
use crate::device::{check_device, device_handle};
use crate::entry::{api, api_create, property_list, write_out};
use crate::event::{is_final, wait_events, Event};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, Info};
use crate::scheduler::{submit, Work};
use crate::ClResult;

/// A host command queue on vecl's device.
pub struct Queue {
    pub context: Arc<Object<Context>>,
    pub properties: cl_command_queue_properties,
    /// The property list as given, with its terminating 0 (empty when the
    /// queue was made by `clCreateCommandQueue` or without properties).
    property_list: Vec<cl_queue_properties>,
    state: Mutex<QueueState>,
}

struct QueueState {
    /// Commands not yet final, oldest first.
    outstanding: Vec<Arc<Object<Event>>>,
    /// The last barrier of an out-of-order queue: later commands wait for it.
    last_barrier: Option<Arc<Object<Event>>>,
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
    if properties & !(SUPPORTED | CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    // "CL_INVALID_QUEUE_PROPERTIES if values specified in properties are
    // valid but are not supported by the device." (device-side queues)
    if properties & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) != 0 {
        return Err(CL_INVALID_QUEUE_PROPERTIES);
    }
    let queue = Queue::register(Queue {
        context,
        properties,
        property_list,
        state: Mutex::new(QueueState {
            outstanding: Vec::new(),
            last_barrier: None,
        }),
    })?;
    Ok(queue.handle())
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

/// `clFlush`: commands are submitted when enqueued, so there is nothing
/// left to flush.
pub extern "C" fn clFlush(queue: cl_command_queue) -> cl_int {
    api(|| Queue::get(queue).map(drop))
}

/// `clFinish`: blocks until every command of the queue is final.
pub extern "C" fn clFinish(queue: cl_command_queue) -> cl_int {
    api(|| {
        let queue = Queue::get(queue)?;
        for event in queue.outstanding() {
            event.wait();
        }
        Ok(())
    })
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

/// What a command waits for besides its queue order.
pub enum Barrier {
    /// An ordinary command: its wait list only.
    No,
    /// A barrier or marker without a wait list: every earlier command.
    AllEarlier,
}

impl Object<Queue> {
    /// The queue's commands that are not final yet, oldest first.
    fn outstanding(&self) -> Vec<Arc<Object<Event>>> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        state.outstanding.retain(|event| !is_final(event.status()));
        state.outstanding.clone()
    }

    /// Enqueues a command: checks the wait list, creates its event, works out
    /// its dependencies and submits it. Returns the event; `event_out`
    /// (when non-null) receives a handle to it.
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
        barrier: Barrier,
        work: Work,
    ) -> ClResult<Arc<Object<Event>>> {
        // SAFETY: forwarded contract.
        let mut deps = unsafe { wait_events(&self.context, num_wait, wait_list)? };
        let waited = deps.len();
        let event = Event::new(self.context.clone(), Some(self.clone()), command_type);
        let event = if event_out.is_null() {
            Arc::new(Object::new_unregistered(event))
        } else {
            Event::register(event)?
        };
        {
            let mut state = self
                .state
                .lock()
                .unwrap_or_else(|poison| poison.into_inner());
            state.outstanding.retain(|event| !is_final(event.status()));
            let in_order = self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0;
            if in_order {
                deps.extend(state.outstanding.last().cloned());
            } else {
                if matches!(barrier, Barrier::AllEarlier) && num_wait == 0 {
                    deps.extend(state.outstanding.iter().cloned());
                }
                deps.extend(state.last_barrier.clone());
                if matches!(barrier, Barrier::AllEarlier) {
                    state.last_barrier = Some(event.clone());
                }
            }
            state.outstanding.push(event.clone());
        }
        // SAFETY: forwarded contract.
        unsafe { write_out(event_out, event.handle()) };
        submit(event.clone(), deps, waited, work);
        Ok(event)
    }
}

/// Waits for a blocking command's event; a failed command reports
/// `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`.
pub fn wait_blocking(event: &Object<Event>) -> ClResult<()> {
    if event.wait() < 0 {
        Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    } else {
        Ok(())
    }
}

//! Events: `clCreateUserEvent`, `clSetUserEventStatus`, `clWaitForEvents`,
//! `clGetEventInfo`, `clGetEventProfilingInfo`, `clSetEventCallback`,
//! retain/release.
//!
//! An [`Event`] is the runtime's event (`vecl::runtime::Event`: status,
//! profiling timestamps, waiting, callbacks, the commands that depend on it)
//! plus what the C API names: its context, its queue and its command type.

use std::ffi::c_void;
use std::sync::Arc;

use opencl_sys::*;
use vecl::runtime::event::ProfilingInfo;
use vecl::runtime::Event as RawEvent;

use crate::context::Context;
use crate::entry::{api, api_create, wait_list, UserPtr};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, Info};
use crate::queue::Queue;
use crate::ClResult;

/// An event callback (`clSetEventCallback`).
pub type EventCallback =
    unsafe extern "C" fn(event: cl_event, event_command_status: cl_int, user_data: *mut c_void);

/// An event: one command's (or the application's) execution status.
pub struct Event {
    pub context: Arc<Object<Context>>,
    /// The queue of the command; `None` for user events.
    pub queue: Option<Arc<Object<Queue>>>,
    pub command_type: cl_command_type,
    /// The runtime's event, which the queues order commands by.
    pub raw: RawEvent,
}

cl_type!(Event, CL_INVALID_EVENT);

impl Event {
    /// The current execution status.
    pub fn status(&self) -> cl_int {
        self.raw.status()
    }
}

/// The events of a wait list, checked: each a live event of `context`.
///
/// # Safety
/// `events` is null or holds `num_events` handles.
pub unsafe fn wait_events(
    context: &Arc<Object<Context>>,
    num_events: cl_uint,
    events: *const cl_event,
) -> ClResult<Vec<RawEvent>> {
    // SAFETY: forwarded contract.
    let handles = unsafe { wait_list(events, num_events, CL_INVALID_EVENT_WAIT_LIST)? };
    handles
        .iter()
        .map(|&handle| {
            let event = Event::get(handle).map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
            if !Arc::ptr_eq(&event.context, context) {
                return Err(CL_INVALID_CONTEXT);
            }
            Ok(event.raw.clone())
        })
        .collect()
}

/// `clWaitForEvents`.
pub unsafe extern "C" fn clWaitForEvents(
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    api(|| {
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: forwarded contract.
        let handles = unsafe { wait_list(event_list, num_events, CL_INVALID_VALUE)? };
        let events = handles
            .iter()
            .map(|&handle| Event::get(handle))
            .collect::<ClResult<Vec<_>>>()?;
        // "CL_INVALID_CONTEXT if events specified in event_list do not
        // belong to the same context."
        if events
            .iter()
            .any(|e| !Arc::ptr_eq(&e.context, &events[0].context))
        {
            return Err(CL_INVALID_CONTEXT);
        }
        let raw: Vec<RawEvent> = events.iter().map(|e| e.raw.clone()).collect();
        RawEvent::wait_all(&raw).map_err(|_| CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    })
}

/// `clGetEventInfo`.
pub unsafe extern "C" fn clGetEventInfo(
    event: cl_event,
    param_name: cl_event_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let event = Event::get(event)?;
        Ok(match param_name {
            CL_EVENT_COMMAND_QUEUE => Info::value(
                event
                    .queue
                    .as_ref()
                    .map_or(std::ptr::null_mut(), |queue| queue.handle()),
            ),
            CL_EVENT_CONTEXT => Info::value(event.context.handle()),
            CL_EVENT_COMMAND_TYPE => Info::value(event.command_type),
            CL_EVENT_COMMAND_EXECUTION_STATUS => Info::value(event.status()),
            CL_EVENT_REFERENCE_COUNT => Info::value(event.ref_count()),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clGetEventProfilingInfo`.
pub unsafe extern "C" fn clGetEventProfilingInfo(
    event: cl_event,
    param_name: cl_profiling_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let event = Event::get(event)?;
        // "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE
        // flag is not set for the command-queue, if the execution status
        // of the command identified by event is not CL_COMPLETE or if
        // event is a user event object."
        let profiled = event
            .queue
            .as_ref()
            .is_some_and(|queue| queue.properties & CL_QUEUE_PROFILING_ENABLE != 0);
        if !profiled || event.status() != CL_COMPLETE {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let info = match param_name {
            CL_PROFILING_COMMAND_QUEUED => ProfilingInfo::Queued,
            CL_PROFILING_COMMAND_SUBMIT => ProfilingInfo::Submit,
            CL_PROFILING_COMMAND_START => ProfilingInfo::Start,
            CL_PROFILING_COMMAND_END => ProfilingInfo::End,
            CL_PROFILING_COMMAND_COMPLETE => ProfilingInfo::Complete,
            _ => return Err(CL_INVALID_VALUE),
        };
        let ns = event.raw.profiling(info).map_err(|e| e.cl_code())?;
        Ok(Info::value(ns))
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clCreateUserEvent`.
pub unsafe extern "C" fn clCreateUserEvent(
    context: cl_context,
    errcode_ret: *mut cl_int,
) -> cl_event {
    let body = || {
        let context = Context::get(context)?;
        let event = Event::register(Event {
            context,
            queue: None,
            command_type: CL_COMMAND_USER,
            raw: RawEvent::user(),
        })?;
        Ok(event.handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clSetUserEventStatus`.
pub extern "C" fn clSetUserEventStatus(event: cl_event, execution_status: cl_int) -> cl_int {
    api(|| {
        let event = Event::get(event)?;
        if event.queue.is_some() {
            return Err(CL_INVALID_EVENT);
        }
        // CL_INVALID_VALUE for a status other than CL_COMPLETE or negative;
        // CL_INVALID_OPERATION when the status was set before.
        event
            .raw
            .set_user_status(execution_status)
            .map_err(|e| e.cl_code())
    })
}

/// `clSetEventCallback`.
pub unsafe extern "C" fn clSetEventCallback(
    event: cl_event,
    command_exec_callback_type: cl_int,
    pfn_notify: Option<EventCallback>,
    user_data: *mut c_void,
) -> cl_int {
    api(|| {
        let event = Event::get(event)?;
        let callback = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        if ![CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&command_exec_callback_type) {
            return Err(CL_INVALID_VALUE);
        }
        let user_data = UserPtr(user_data);
        // The callback holds the event, so its handle stays valid until the
        // callback has run.
        let holder = Arc::clone(&event);
        event
            .raw
            .on_status(
                command_exec_callback_type,
                Box::new(move |status| {
                    let user_data = &user_data;
                    // SAFETY: an application callback with the signature it
                    // registered.
                    unsafe { callback(holder.handle(), status, user_data.0) };
                }),
            )
            .map_err(|e| e.cl_code())
    })
}

/// `clRetainEvent`.
pub extern "C" fn clRetainEvent(event: cl_event) -> cl_int {
    api(|| Event::retain(event))
}

/// `clReleaseEvent`.
pub extern "C" fn clReleaseEvent(event: cl_event) -> cl_int {
    api(|| Event::release(event).map(drop))
}

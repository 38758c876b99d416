//! Events: `clCreateUserEvent`, `clSetUserEventStatus`, `clWaitForEvents`,
//! `clGetEventInfo`, `clGetEventProfilingInfo`, `clSetEventCallback`,
//! retain/release.
//!
//! An [`Event`] tracks one command (or a user event): its execution status,
//! its profiling timestamps, the application's callbacks, and the commands
//! waiting for it (see [`crate::scheduler`]). Status changes go through
//! [`Object::<Event>::set_status`], which wakes waiters, runs callbacks and
//! releases dependent commands, in that order, outside the event's lock.

use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use opencl_sys::*;

use crate::context::Context;
use crate::device::now_ns;
use crate::entry::{api, api_create, wait_list, UserPtr};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, Info};
use crate::queue::Queue;
use crate::scheduler::Pending;
use crate::ClResult;

/// An event callback (`clSetEventCallback`).
pub type EventCallback =
    unsafe extern "C" fn(event: cl_event, event_command_status: cl_int, user_data: *mut c_void);

/// An event: one command's execution status.
pub struct Event {
    pub context: Arc<Object<Context>>,
    /// The queue of the command; `None` for user events.
    pub queue: Option<Arc<Object<Queue>>>,
    pub command_type: cl_command_type,
    state: Mutex<EventState>,
    changed: Condvar,
}

struct EventState {
    /// `CL_QUEUED`, `CL_SUBMITTED`, `CL_RUNNING`, `CL_COMPLETE`, or negative.
    status: cl_int,
    /// Queued, submitted, started, ended (device clock, ns).
    times: [u64; 4],
    callbacks: Vec<(cl_int, EventCallback, UserPtr)>,
    dependents: Vec<Arc<Pending>>,
}

cl_type!(Event, CL_INVALID_EVENT);

/// Whether a status is final: complete, or failed.
pub fn is_final(status: cl_int) -> bool {
    status <= CL_COMPLETE
}

impl Event {
    /// A new event in the `CL_QUEUED` state (or `CL_SUBMITTED` for a user
    /// event, which starts "submitted" per the specification).
    pub fn new(
        context: Arc<Object<Context>>,
        queue: Option<Arc<Object<Queue>>>,
        command_type: cl_command_type,
    ) -> Event {
        let now = now_ns();
        let status = if queue.is_some() {
            CL_QUEUED
        } else {
            CL_SUBMITTED
        };
        Event {
            context,
            queue,
            command_type,
            state: Mutex::new(EventState {
                status,
                times: [now, 0, 0, 0],
                callbacks: Vec::new(),
                dependents: Vec::new(),
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, EventState> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The current execution status.
    pub fn status(&self) -> cl_int {
        self.lock().status
    }

    /// Blocks until the event is complete or failed; returns the status.
    pub fn wait(&self) -> cl_int {
        let mut state = self.lock();
        while !is_final(state.status) {
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(|poison| poison.into_inner());
        }
        state.status
    }

    /// Registers a command to be released when this event is final. Returns
    /// `false` (and registers nothing) when the event is final already.
    pub fn add_dependent(&self, pending: &Arc<Pending>) -> bool {
        let mut state = self.lock();
        if is_final(state.status) {
            return false;
        }
        state.dependents.push(pending.clone());
        true
    }
}

impl Object<Event> {
    /// Moves the event to `status`, recording the timestamp, waking
    /// waiters, calling the callbacks whose trigger has been reached and,
    /// when final, releasing dependent commands. A final status never
    /// changes again.
    pub fn set_status(self: &Arc<Self>, status: cl_int) {
        let now = now_ns();
        let (callbacks, dependents) = {
            let mut state = self.lock();
            if is_final(state.status) || status >= state.status {
                return;
            }
            // Fill every timestamp the event skipped over.
            for (slot, reached) in [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE]
                .into_iter()
                .enumerate()
            {
                if status <= reached && state.times[slot + 1] == 0 {
                    state.times[slot + 1] = now;
                }
            }
            state.status = status;
            // A callback fires when the event reaches its trigger status or
            // fails ("terminated abnormally" counts as reaching CL_COMPLETE).
            let (fire, keep): (Vec<_>, Vec<_>) = state
                .callbacks
                .drain(..)
                .partition(|&(trigger, _, _)| status <= trigger);
            state.callbacks = keep;
            let dependents = if is_final(status) {
                std::mem::take(&mut state.dependents)
            } else {
                Vec::new()
            };
            (fire, dependents)
        };
        self.changed.notify_all();
        for (_, callback, user_data) in callbacks {
            // SAFETY: an application callback with the signature it registered.
            unsafe { callback(self.handle(), status, user_data.0) };
        }
        for pending in dependents {
            pending.dependency_done();
        }
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
) -> ClResult<Vec<Arc<Object<Event>>>> {
    // SAFETY: forwarded contract.
    let handles = unsafe { wait_list(events, num_events, CL_INVALID_EVENT_WAIT_LIST)? };
    handles
        .iter()
        .map(|&handle| {
            let event = Event::get(handle).map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
            if !Arc::ptr_eq(&event.context, context) {
                return Err(CL_INVALID_CONTEXT);
            }
            Ok(event)
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
        let mut failed = false;
        for event in &events {
            failed |= event.wait() < 0;
        }
        if failed {
            Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        } else {
            Ok(())
        }
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
        let state = event.lock();
        if !profiled || state.status != CL_COMPLETE {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let [queued, submitted, started, ended] = state.times;
        Ok(Info::value(match param_name {
            CL_PROFILING_COMMAND_QUEUED => queued,
            CL_PROFILING_COMMAND_SUBMIT => submitted,
            CL_PROFILING_COMMAND_START => started,
            CL_PROFILING_COMMAND_END | CL_PROFILING_COMMAND_COMPLETE => ended,
            _ => return Err(CL_INVALID_VALUE),
        }))
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
        let event = Event::register(Event::new(context, None, CL_COMMAND_USER))?;
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
        // "CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a
        // negative integer value."
        if execution_status > CL_COMPLETE {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if the execution_status for event has
        // already been changed by a previous call to clSetUserEventStatus."
        if is_final(event.status()) {
            return Err(CL_INVALID_OPERATION);
        }
        event.set_status(execution_status);
        Ok(())
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
        let status = {
            let mut state = event.lock();
            if state.status > command_exec_callback_type {
                state
                    .callbacks
                    .push((command_exec_callback_type, callback, UserPtr(user_data)));
                return Ok(());
            }
            state.status
        };
        // The trigger status has been reached already: call it now.
        // SAFETY: an application callback with the signature it registered.
        unsafe { callback(event.handle(), status, user_data) };
        Ok(())
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

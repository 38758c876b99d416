//! Events: the status of a command (or a user event) and who waits for it.
//!
//! An event moves `QUEUED → SUBMITTED → RUNNING → COMPLETE`, or to a negative
//! error code, never backwards; each step records a nanosecond timestamp for
//! profiling. Callbacks registered for a status run once the event reaches
//! it (or terminates abnormally), on the thread that changed the status and
//! never under the event's lock, so a callback may enqueue, wait on other
//! events or set user-event status. Queues use the same callbacks to learn
//! when a command's dependencies are done.

use crate::error::{Error, Result};
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

/// `CL_COMPLETE`.
pub const COMPLETE: i32 = 0;
/// `CL_RUNNING`.
pub const RUNNING: i32 = 1;
/// `CL_SUBMITTED`.
pub const SUBMITTED: i32 = 2;
/// `CL_QUEUED`.
pub const QUEUED: i32 = 3;

/// `cl_command_type` values.
pub mod command_type {
    /// `CL_COMMAND_NDRANGE_KERNEL`.
    pub const NDRANGE_KERNEL: u32 = 0x11F0;
    /// `CL_COMMAND_TASK`.
    pub const TASK: u32 = 0x11F1;
    /// `CL_COMMAND_NATIVE_KERNEL`.
    pub const NATIVE_KERNEL: u32 = 0x11F2;
    /// `CL_COMMAND_READ_BUFFER`.
    pub const READ_BUFFER: u32 = 0x11F3;
    /// `CL_COMMAND_WRITE_BUFFER`.
    pub const WRITE_BUFFER: u32 = 0x11F4;
    /// `CL_COMMAND_COPY_BUFFER`.
    pub const COPY_BUFFER: u32 = 0x11F5;
    /// `CL_COMMAND_MAP_BUFFER`.
    pub const MAP_BUFFER: u32 = 0x11FB;
    /// `CL_COMMAND_UNMAP_MEM_OBJECT`.
    pub const UNMAP_MEM_OBJECT: u32 = 0x11FD;
    /// `CL_COMMAND_MARKER`.
    pub const MARKER: u32 = 0x11FE;
    /// `CL_COMMAND_READ_BUFFER_RECT`.
    pub const READ_BUFFER_RECT: u32 = 0x1201;
    /// `CL_COMMAND_WRITE_BUFFER_RECT`.
    pub const WRITE_BUFFER_RECT: u32 = 0x1202;
    /// `CL_COMMAND_COPY_BUFFER_RECT`.
    pub const COPY_BUFFER_RECT: u32 = 0x1203;
    /// `CL_COMMAND_USER`.
    pub const USER: u32 = 0x1204;
    /// `CL_COMMAND_BARRIER`.
    pub const BARRIER: u32 = 0x1205;
    /// `CL_COMMAND_MIGRATE_MEM_OBJECTS`.
    pub const MIGRATE_MEM_OBJECTS: u32 = 0x1206;
    /// `CL_COMMAND_FILL_BUFFER`.
    pub const FILL_BUFFER: u32 = 0x1207;
}

/// Which timestamp `clGetEventProfilingInfo` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfilingInfo {
    /// `CL_PROFILING_COMMAND_QUEUED`.
    Queued,
    /// `CL_PROFILING_COMMAND_SUBMIT`.
    Submit,
    /// `CL_PROFILING_COMMAND_START`.
    Start,
    /// `CL_PROFILING_COMMAND_END`.
    End,
    /// `CL_PROFILING_COMMAND_COMPLETE`.
    Complete,
}

/// Nanoseconds on the device clock (monotonic, from the first use).
pub fn device_time_ns() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

type Callback = Box<dyn FnOnce(i32) + Send>;

struct EventState {
    status: i32,
    /// Why the event failed, when it did.
    failure: Option<Error>,
    /// queued, submit, start, end, complete (ns; 0 = not reached).
    times: [u64; 5],
    /// (trigger status, callback) not yet run.
    callbacks: Vec<(i32, Callback)>,
    user_status_set: bool,
}

struct EventInner {
    command_type: u32,
    is_user: bool,
    profiling: bool,
    state: Mutex<EventState>,
    changed: Condvar,
    /// Work a waiter may run itself instead of sleeping: a ready command
    /// not yet picked up by its queue's executor.
    helper: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

/// A command's or a user's event. Cloning shares it (like `clRetainEvent`).
#[derive(Clone)]
pub struct Event(Arc<EventInner>);

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("command_type", &format_args!("{:#x}", self.0.command_type))
            .field("status", &self.status())
            .finish()
    }
}

impl Event {
    fn with_status(command_type: u32, is_user: bool, profiling: bool, status: i32) -> Event {
        let mut times = [0; 5];
        if profiling {
            times[0] = device_time_ns();
        }
        Event(Arc::new(EventInner {
            command_type,
            is_user,
            profiling,
            state: Mutex::new(EventState {
                status,
                failure: None,
                times,
                callbacks: Vec::new(),
                user_status_set: false,
            }),
            changed: Condvar::new(),
            helper: Mutex::new(None),
        }))
    }

    /// `clCreateUserEvent`: an event in state `CL_SUBMITTED` that the
    /// application completes with [`Event::set_user_status`].
    pub fn user() -> Event {
        Event::with_status(command_type::USER, true, false, SUBMITTED)
    }

    /// A command's event, `CL_QUEUED`, timestamped when `profiling`.
    pub fn for_command(command_type: u32, profiling: bool) -> Event {
        Event::with_status(command_type, false, profiling, QUEUED)
    }

    /// An event that is already complete (for commands that had nothing to do).
    pub fn completed(command_type: u32) -> Event {
        Event::with_status(command_type, false, false, COMPLETE)
    }

    /// `CL_EVENT_COMMAND_TYPE`.
    pub fn command_type(&self) -> u32 {
        self.0.command_type
    }

    /// Whether this is a user event.
    pub fn is_user(&self) -> bool {
        self.0.is_user
    }

    /// `CL_EVENT_COMMAND_EXECUTION_STATUS`.
    pub fn status(&self) -> i32 {
        self.lock().status
    }

    /// The error that made the status negative, if any.
    pub fn failure(&self) -> Option<Error> {
        self.lock().failure.clone()
    }

    /// `CL_EVENT_REFERENCE_COUNT`.
    pub fn reference_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// Whether two handles name the same event.
    pub fn same_event(&self, other: &Event) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, EventState> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the event to `status` (only ever towards complete/error) and
    /// runs the callbacks that became due.
    pub(crate) fn advance(&self, status: i32, failure: Option<Error>) {
        let due = {
            let mut state = self.lock();
            if state.status <= COMPLETE || status >= state.status {
                return;
            }
            state.status = status;
            if status < COMPLETE {
                state.failure = failure;
            }
            if self.0.profiling {
                let now = device_time_ns();
                let reached: &[usize] = match status {
                    SUBMITTED => &[1],
                    RUNNING => &[1, 2],
                    _ => &[1, 2, 3, 4],
                };
                for &i in reached {
                    if state.times[i] == 0 {
                        state.times[i] = now;
                    }
                }
            }
            let (due, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut state.callbacks)
                .into_iter()
                .partition(|(trigger, _)| status <= *trigger);
            state.callbacks = waiting;
            due
        };
        if status <= COMPLETE {
            self.0.changed.notify_all();
        }
        for (_, callback) in due {
            callback(status);
        }
    }

    /// Fails the event with `error` (its status becomes the error's code).
    pub(crate) fn fail(&self, error: Error) {
        self.advance(error.cl_code(), Some(error));
    }

    /// `clSetUserEventStatus`: `CL_COMPLETE` or a negative error, once.
    pub fn set_user_status(&self, status: i32) -> Result<()> {
        if !self.0.is_user {
            return Err(Error::InvalidEvent);
        }
        if status > COMPLETE {
            return Err(Error::InvalidValue(format!(
                "user event status {status} (must be CL_COMPLETE or negative)"
            )));
        }
        {
            let mut state = self.lock();
            if state.user_status_set {
                return Err(Error::InvalidOperation(
                    "user event status already set".into(),
                ));
            }
            state.user_status_set = true;
        }
        let failure = (status < COMPLETE)
            .then(|| Error::OutOfResources(format!("user event set to status {status}")));
        self.advance(status, failure);
        Ok(())
    }

    /// `clSetEventCallback`: runs `callback(status)` once the event reaches
    /// `trigger` (`CL_SUBMITTED`, `CL_RUNNING` or `CL_COMPLETE`) or fails;
    /// at once, on this thread, if it already has.
    pub fn on_status(&self, trigger: i32, callback: Box<dyn FnOnce(i32) + Send>) -> Result<()> {
        if !matches!(trigger, COMPLETE | RUNNING | SUBMITTED) {
            return Err(Error::InvalidValue(format!("callback trigger {trigger}")));
        }
        let now = {
            let mut state = self.lock();
            if state.status > trigger {
                state.callbacks.push((trigger, callback));
                return Ok(());
            }
            state.status
        };
        callback(now);
        Ok(())
    }

    /// Runs `callback(status)` once the event is complete or failed (at
    /// once if it already is).
    pub(crate) fn when_done(&self, callback: Box<dyn FnOnce(i32) + Send>) {
        let now = {
            let mut state = self.lock();
            if state.status > COMPLETE {
                state.callbacks.push((COMPLETE, callback));
                return;
            }
            state.status
        };
        callback(now);
    }

    /// Offers work that completes this event to whoever waits for it.
    pub(crate) fn set_helper(&self, helper: Box<dyn FnOnce() + Send>) {
        *self.0.helper.lock().unwrap_or_else(|e| e.into_inner()) = Some(helper);
    }

    /// Withdraws the offer (the work is being run elsewhere).
    pub(crate) fn clear_helper(&self) {
        self.0
            .helper
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }

    /// Blocks until the event is complete; an error if it failed. When the
    /// command is ready but not yet started, the waiting thread runs it
    /// itself rather than sleeping through two thread wake-ups.
    pub fn wait(&self) -> Result<()> {
        let helper = self
            .0
            .helper
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(helper) = helper {
            helper();
        } else if self.runs_on_pool() {
            // Another thread runs the kernel: take part in it rather than
            // sleep.
            crate::pool::Pool::global().help_while(|| self.status() > COMPLETE);
        }
        let mut state = self.lock();
        while state.status > COMPLETE {
            state = self
                .0
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        if state.status < COMPLETE {
            return Err(Error::ExecStatusErrorForEventsInWaitList);
        }
        Ok(())
    }

    /// Whether the event's command runs its work-groups on the pool.
    fn runs_on_pool(&self) -> bool {
        !self.0.is_user
            && matches!(
                self.0.command_type,
                command_type::NDRANGE_KERNEL | command_type::TASK
            )
    }

    /// `clWaitForEvents`: waits for all; an error if any failed.
    pub fn wait_all(events: &[Event]) -> Result<()> {
        let mut result = Ok(());
        for event in events {
            if let Err(e) = event.wait() {
                result = Err(e);
            }
        }
        result
    }

    /// `clGetEventProfilingInfo`.
    pub fn profiling(&self, info: ProfilingInfo) -> Result<u64> {
        if !self.0.profiling || self.0.is_user {
            return Err(Error::ProfilingInfoNotAvailable);
        }
        let state = self.lock();
        if state.status != COMPLETE {
            return Err(Error::ProfilingInfoNotAvailable);
        }
        Ok(state.times[match info {
            ProfilingInfo::Queued => 0,
            ProfilingInfo::Submit => 1,
            ProfilingInfo::Start => 2,
            ProfilingInfo::End => 3,
            ProfilingInfo::Complete => 4,
        }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI32, Ordering};

    #[test]
    fn status_only_moves_forward() {
        let e = Event::for_command(command_type::MARKER, false);
        assert_eq!(e.status(), QUEUED);
        e.advance(RUNNING, None);
        e.advance(SUBMITTED, None);
        assert_eq!(e.status(), RUNNING);
        e.advance(COMPLETE, None);
        e.fail(Error::OutOfHostMemory);
        assert_eq!(e.status(), COMPLETE);
        assert!(e.wait().is_ok());
    }

    #[test]
    fn callbacks_fire_once_at_their_status() {
        let e = Event::for_command(command_type::MARKER, false);
        let seen = Arc::new(Mutex::new(Vec::new()));
        for trigger in [COMPLETE, RUNNING, SUBMITTED] {
            let seen = Arc::clone(&seen);
            e.on_status(
                trigger,
                Box::new(move |s| seen.lock().map(|mut v| v.push((trigger, s))).unwrap_or(())),
            )
            .expect("register");
        }
        e.advance(SUBMITTED, None);
        assert_eq!(*seen.lock().expect("lock"), vec![(SUBMITTED, SUBMITTED)]);
        e.advance(COMPLETE, None);
        let mut got = seen.lock().expect("lock").clone();
        got.sort_unstable();
        assert_eq!(
            got,
            vec![
                (COMPLETE, COMPLETE),
                (RUNNING, COMPLETE),
                (SUBMITTED, SUBMITTED)
            ]
        );
        // Registered after completion: runs at once.
        let late = Arc::new(AtomicI32::new(99));
        let l = Arc::clone(&late);
        e.on_status(RUNNING, Box::new(move |s| l.store(s, Ordering::SeqCst)))
            .expect("register");
        assert_eq!(late.load(Ordering::SeqCst), COMPLETE);
        assert!(e.on_status(QUEUED, Box::new(|_| {})).is_err());
    }

    #[test]
    fn failed_event_reports_its_code_to_complete_callbacks() {
        let e = Event::for_command(command_type::NDRANGE_KERNEL, false);
        let got = Arc::new(AtomicI32::new(1));
        let g = Arc::clone(&got);
        e.on_status(COMPLETE, Box::new(move |s| g.store(s, Ordering::SeqCst)))
            .expect("register");
        e.fail(Error::OutOfResources("kernel trap".into()));
        assert_eq!(got.load(Ordering::SeqCst), -5);
        assert_eq!(e.status(), -5);
        assert_eq!(e.wait(), Err(Error::ExecStatusErrorForEventsInWaitList));
        assert!(matches!(e.failure(), Some(Error::OutOfResources(_))));
    }

    #[test]
    fn user_event_rules() {
        let e = Event::user();
        assert_eq!(e.status(), SUBMITTED);
        assert!(matches!(
            e.set_user_status(RUNNING),
            Err(Error::InvalidValue(_))
        ));
        let waiter = {
            let e = e.clone();
            std::thread::spawn(move || e.wait())
        };
        e.set_user_status(COMPLETE).expect("first set");
        assert!(matches!(
            e.set_user_status(COMPLETE),
            Err(Error::InvalidOperation(_))
        ));
        assert!(waiter.join().expect("join").is_ok());
        assert_eq!(
            e.profiling(ProfilingInfo::Start),
            Err(Error::ProfilingInfoNotAvailable)
        );
        let cmd = Event::for_command(command_type::MARKER, false);
        assert_eq!(cmd.set_user_status(COMPLETE), Err(Error::InvalidEvent));
    }

    #[test]
    fn profiling_timestamps_are_ordered() {
        let e = Event::for_command(command_type::MARKER, true);
        assert_eq!(
            e.profiling(ProfilingInfo::Queued),
            Err(Error::ProfilingInfoNotAvailable)
        );
        e.advance(SUBMITTED, None);
        e.advance(RUNNING, None);
        std::thread::sleep(std::time::Duration::from_millis(1));
        e.advance(COMPLETE, None);
        let t: Vec<u64> = [
            ProfilingInfo::Queued,
            ProfilingInfo::Submit,
            ProfilingInfo::Start,
            ProfilingInfo::End,
            ProfilingInfo::Complete,
        ]
        .iter()
        .map(|&i| e.profiling(i).expect("profiling"))
        .collect();
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "{t:?}");
        assert!(t[3] - t[2] >= 1_000_000);
    }
}

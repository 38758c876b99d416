//! Events: the status of a command (or a user event) and who waits for it.
//!
//! An event moves `QUEUED → SUBMITTED → RUNNING → COMPLETE`, or to a negative
//! error code, never backwards; each step records a nanosecond timestamp for
//! profiling. Two kinds of callback wait for a status:
//!
//! - the application's ([`Event::on_status`], `clSetEventCallback`) run on
//!   the runtime's callback thread, one at a time, never on the thread that
//!   changed the status: a callback may enqueue, wait for other events or
//!   set user-event status, and a chain of callbacks that enqueue never
//!   deepens any thread's stack;
//! - the runtime's own bookkeeping ([`Event::when_done`]: releasing a
//!   command whose dependency this was) runs on the thread that completed
//!   the event, outside the event's lock, and only ever pushes work onto a
//!   list, so completion never recurses.

use crate::error::{Error, Result};
use std::fmt;
use std::sync::mpsc::Sender;
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

/// Nanoseconds on the device clock (monotonic, from the first use; never
/// 0, which profiling keeps for "not reached"). The host timer reads it too.
pub fn device_time_ns() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_nanos())
        .unwrap_or(u64::MAX - 1)
        .saturating_add(1)
}

type Callback = Box<dyn FnOnce(i32) + Send>;

/// Where a callback runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RunOn {
    /// The thread that changed the status (runtime bookkeeping).
    Completer,
    /// The callback thread (the application's callbacks).
    CallbackThread,
}

/// Runs `job` on the process's callback thread, started on first use (or
/// here, if no thread can be started).
fn defer(job: Box<dyn FnOnce() + Send>) {
    static THREAD: OnceLock<Option<Mutex<Sender<Box<dyn FnOnce() + Send>>>>> = OnceLock::new();
    let sender = THREAD.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Box<dyn FnOnce() + Send>>();
        std::thread::Builder::new()
            .name("vecl-callbacks".into())
            .spawn(move || {
                for job in rx {
                    // A panicking callback must not take the thread (and
                    // every later callback) with it.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    let job = match sender {
        Some(tx) => match tx.lock().unwrap_or_else(|e| e.into_inner()).send(job) {
            Ok(()) => return,
            Err(returned) => returned.0,
        },
        None => job,
    };
    job();
}

/// Runs the callbacks that became due with `status`.
fn run_due(due: Vec<(i32, Callback, RunOn)>, status: i32) {
    if due.is_empty() {
        return;
    }
    let mut deferred: Vec<Callback> = Vec::new();
    for (_, callback, run_on) in due {
        match run_on {
            RunOn::Completer => callback(status),
            RunOn::CallbackThread => deferred.push(callback),
        }
    }
    if !deferred.is_empty() {
        defer(Box::new(move || {
            for callback in deferred {
                callback(status);
            }
        }));
    }
}

struct EventState {
    status: i32,
    /// Why the event failed, when it did.
    failure: Option<Error>,
    /// queued, submit, start, end, complete (ns; 0 = not reached).
    times: [u64; 5],
    /// (trigger status, callback, where it runs) not yet run.
    callbacks: Vec<(i32, Callback, RunOn)>,
    user_status_set: bool,
    /// Threads asleep in `wait` (completion wakes them only if any: a
    /// wake-up is a system call).
    sleepers: u32,
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
    /// A kernel command's stop flag ([`Event::cancel`]).
    stop: std::sync::OnceLock<Arc<crate::cancel::StopFlag>>,
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
                sleepers: 0,
            }),
            changed: Condvar::new(),
            helper: Mutex::new(None),
            stop: std::sync::OnceLock::new(),
        }))
    }

    /// Gives the event its command's stop flag (kernel commands).
    pub(crate) fn set_stop_flag(&self, flag: Arc<crate::cancel::StopFlag>) {
        let _ = self.0.stop.set(flag);
    }

    /// Stops the event's kernel command: one that has not started fails
    /// as soon as it would start, one that runs stops within a loop
    /// iteration or a range of work-groups; either way the event fails
    /// with `CL_OUT_OF_RESOURCES` and a message saying it was cancelled,
    /// and the queue goes on with its next commands (those waiting on this
    /// event fail as their wait list's failure does). Returns whether there
    /// was a command to stop: false for other commands, user events and
    /// commands already complete.
    pub fn cancel(&self) -> bool {
        match self.0.stop.get() {
            Some(flag) if self.status() > 0 => {
                flag.cancel();
                true
            }
            _ => false,
        }
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
        let (due, wake) = {
            let mut state = self.lock();
            if state.status <= COMPLETE || status >= state.status {
                return;
            }
            let wake = status <= COMPLETE && state.sleepers > 0;
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
            let due = if state
                .callbacks
                .iter()
                .all(|(trigger, _, _)| status > *trigger)
            {
                Vec::new()
            } else if status <= COMPLETE {
                // Final: every callback is due.
                std::mem::take(&mut state.callbacks)
            } else {
                let (due, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut state.callbacks)
                    .into_iter()
                    .partition(|(trigger, _, _)| status <= *trigger);
                state.callbacks = waiting;
                due
            };
            (due, wake)
        };
        if wake {
            self.0.changed.notify_all();
        }
        run_due(due, status);
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

    /// `clSetEventCallback`: runs `callback(status)` on the callback thread
    /// once the event reaches `trigger` (`CL_SUBMITTED`, `CL_RUNNING` or
    /// `CL_COMPLETE`) or fails; soon, if it already has.
    pub fn on_status(&self, trigger: i32, callback: Box<dyn FnOnce(i32) + Send>) -> Result<()> {
        if !matches!(trigger, COMPLETE | RUNNING | SUBMITTED) {
            return Err(Error::InvalidValue(format!("callback trigger {trigger}")));
        }
        self.register(trigger, callback, RunOn::CallbackThread);
        Ok(())
    }

    /// Runs `callback(status)` once the event is complete or failed (at
    /// once if it already is), on the thread that completed it. For short
    /// bookkeeping that neither blocks nor waits: releasing dependants,
    /// dropping what a command held.
    pub fn when_done(&self, callback: Box<dyn FnOnce(i32) + Send>) {
        self.register(COMPLETE, callback, RunOn::Completer);
    }

    /// Registers the bookkeeping callback `make()` builds unless the event
    /// is final already; then returns its status instead (and builds
    /// nothing). One look under the lock either way.
    pub(crate) fn when_done_or_status(
        &self,
        make: impl FnOnce() -> Box<dyn FnOnce(i32) + Send>,
    ) -> Option<i32> {
        let mut state = self.lock();
        if state.status > COMPLETE {
            state.callbacks.push((COMPLETE, make(), RunOn::Completer));
            return None;
        }
        Some(state.status)
    }

    fn register(&self, trigger: i32, callback: Callback, run_on: RunOn) {
        let now = {
            let mut state = self.lock();
            if state.status > trigger {
                state.callbacks.push((trigger, callback, run_on));
                return;
            }
            state.status
        };
        run_due(vec![(trigger, callback, run_on)], now);
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

    /// Blocks until the event is complete; its failure if it failed (for a
    /// command failed by its wait list, [`Error::DependencyFailed`] with the
    /// original failure inside). When the
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
        } else if self.runs_on_pool() && self.status() > COMPLETE {
            // Another thread runs the kernel, or the kernels queued before
            // it: take part in them rather than sleep (a thread awake in
            // `help_while` is given a share of launches too small to wake
            // a worker for, `pool::worth_a_hunter`).
            crate::pool::Pool::global().help_while(|| self.status() > COMPLETE);
        }
        let mut state = self.lock();
        // Asleep, this thread leaves its core to the pool: a queue's
        // executor may wake a helper for it (`pool::mark_extra_submitter`).
        let _asleep = (state.status > COMPLETE)
            .then(crate::pool::Pool::global_if_started)
            .flatten()
            .map(|pool| pool.waiter_asleep());
        while state.status > COMPLETE {
            state.sleepers += 1;
            state = self
                .0
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
            state.sleepers -= 1;
        }
        if state.status < COMPLETE {
            return Err(state
                .failure
                .clone()
                .unwrap_or(Error::ExecStatusErrorForEventsInWaitList));
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
            if let (Err(e), true) = (event.wait(), result.is_ok()) {
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

    /// Waits (up to 10 s) for the callback thread to make `done` true.
    fn settle(done: impl Fn() -> bool) {
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while !done() && Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(done(), "a callback did not run within 10 s");
    }

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
        settle(|| seen.lock().expect("lock").len() == 1);
        assert_eq!(*seen.lock().expect("lock"), vec![(SUBMITTED, SUBMITTED)]);
        e.advance(COMPLETE, None);
        settle(|| seen.lock().expect("lock").len() == 3);
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
        settle(|| late.load(Ordering::SeqCst) == COMPLETE);
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
        settle(|| got.load(Ordering::SeqCst) == -5);
        assert_eq!(e.status(), -5);
        assert_eq!(e.wait(), Err(Error::OutOfResources("kernel trap".into())));
        assert!(matches!(e.failure(), Some(Error::OutOfResources(_))));
    }

    #[test]
    fn callbacks_never_run_on_the_completing_thread() {
        let e = Event::for_command(command_type::MARKER, false);
        let ran_on = Arc::new(Mutex::new(None));
        let r = Arc::clone(&ran_on);
        e.on_status(
            COMPLETE,
            Box::new(move |_| {
                *r.lock().expect("lock") = Some(std::thread::current().id());
            }),
        )
        .expect("register");
        e.advance(COMPLETE, None);
        settle(|| ran_on.lock().expect("lock").is_some());
        assert_ne!(
            *ran_on.lock().expect("lock"),
            Some(std::thread::current().id())
        );
        // Bookkeeping runs on the completing thread, at once.
        let here = Arc::new(Mutex::new(None));
        let h = Arc::clone(&here);
        e.when_done(Box::new(move |_| {
            *h.lock().expect("lock") = Some(std::thread::current().id());
        }));
        assert_eq!(
            *here.lock().expect("lock"),
            Some(std::thread::current().id())
        );
    }

    #[test]
    fn a_chain_of_callbacks_that_register_callbacks_does_not_recurse() {
        // Each callback registers the next on an event already complete:
        // run inline, 100,000 deep, this would overflow a thread's stack.
        fn next(e: Event, left: u32, done: Arc<AtomicI32>) {
            if left == 0 {
                done.store(1, Ordering::SeqCst);
                return;
            }
            let e2 = e.clone();
            e.on_status(COMPLETE, Box::new(move |_| next(e2, left - 1, done)))
                .expect("register");
        }
        let e = Event::completed(command_type::MARKER);
        let done = Arc::new(AtomicI32::new(0));
        next(e, 100_000, Arc::clone(&done));
        settle(|| done.load(Ordering::SeqCst) == 1);
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

//! Command queues: ordering, dependencies and the threads that run commands.
//!
//! A command enters with its wait list plus the queue's implicit
//! dependencies — the previous command of an in-order queue; for an
//! out-of-order queue, the last barrier, and for a barrier or a marker
//! without a wait list every command still outstanding. When its last
//! dependency completes, the command is ready. A ready command runs on one
//! of the queue's executor threads, started on demand (one for an in-order
//! queue; for an out-of-order queue up to [`MAX_EXECUTORS`], so independent
//! commands run side by side). A command the caller marks `run_here` (a
//! blocking one, or one too small to be worth a thread hand-off) runs on the
//! calling thread instead when its dependencies are already complete.
//!
//! If a wait-list event failed, the command does not run: its event fails
//! with [`Error::DependencyFailed`], which carries the original failure, and
//! its own dependants in turn. Implicit dependencies (queue order, barriers)
//! only order: a failing command never poisons the rest of its queue.
//!
//! Completion releases dependants through event callbacks that only push
//! the command onto a ready list, so a chain of any length completes
//! iteratively, never by recursion. Enqueue and completion cost O(1)
//! amortised per command: the list of outstanding commands is pruned only
//! when it has doubled since the last pruning.

use crate::error::{Error, Result};
use crate::event::{Event, COMPLETE, RUNNING, SUBMITTED};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

/// The most executor threads an out-of-order queue starts.
pub const MAX_EXECUTORS: usize = 4;

/// Below this many outstanding events the list is never pruned.
const PRUNE_MIN: usize = 64;

/// `cl_command_queue_properties` the device supports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueProperties {
    /// `CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE`.
    pub out_of_order: bool,
    /// `CL_QUEUE_PROFILING_ENABLE`.
    pub profiling: bool,
    /// The longest a kernel command may run before it is stopped with an
    /// error (`None`: no limit; see [`crate::cancel`]).
    pub kernel_timeout: Option<std::time::Duration>,
}

/// The work of a command: runs on an executor (or the calling thread).
pub type Work = Box<dyn FnOnce() -> Result<()> + Send>;

/// Told of every command whose own work failed (not of those that failed
/// because their wait list did), before its event takes the failure.
pub type FailureHook = Box<dyn Fn(&Event, &Error) + Send + Sync>;

/// How a command takes part in the queue's ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandOrder {
    /// An ordinary command.
    Plain,
    /// A marker: with an empty wait list, waits for everything before it.
    Marker,
    /// A barrier: like a marker, and everything after it waits for it.
    Barrier,
}

struct Command {
    event: Event,
    work: Work,
}

/// A ready command, shared between the executors' list and the event's
/// waiters: whoever takes it first runs it.
type ReadySlot = Arc<Mutex<Option<Command>>>;

fn take(slot: &ReadySlot) -> Option<Command> {
    slot.lock().unwrap_or_else(|e| e.into_inner()).take()
}

struct State {
    ready: VecDeque<ReadySlot>,
    /// The last command enqueued (the implicit dependency of in-order queues).
    last: Option<Event>,
    /// The last barrier (the implicit dependency in out-of-order queues).
    barrier: Option<Event>,
    /// Events of commands that may not have completed yet (out-of-order
    /// queues only: in order, `last` stands for them).
    outstanding: Vec<Event>,
    /// `outstanding` is pruned when it reaches this length.
    prune_at: usize,
    /// Commands enqueued and not yet finished (run or failed).
    in_flight: usize,
    /// Executor threads started and not yet gone.
    executors: usize,
    /// Executors asleep, waiting for work.
    idle: usize,
    /// The last handle was dropped: executors leave once idle.
    closing: bool,
    /// The first command since the last `finish` whose own work failed.
    failure: Option<Error>,
}

struct Shared {
    properties: QueueProperties,
    max_executors: usize,
    state: Mutex<State>,
    work_ready: Condvar,
    failure_hook: OnceLock<FailureHook>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands a ready command to the executors, starting one if none is
    /// free. A waiter on its event may take it first (`Event::wait`).
    fn push_ready(self: &Arc<Self>, command: Command) {
        let event = command.event.clone();
        let slot: ReadySlot = Arc::new(Mutex::new(Some(command)));
        let (helper_slot, shared) = (Arc::clone(&slot), Arc::clone(self));
        event.set_helper(Box::new(move || {
            if let Some(command) = take(&helper_slot) {
                shared.run_command(command);
            }
        }));
        let (wake, start_executor) = {
            let mut state = self.lock();
            state.ready.push_back(slot);
            if state.idle > 0 {
                (true, false)
            } else if state.executors < self.max_executors {
                state.executors += 1;
                (false, true)
            } else {
                (false, false)
            }
        };
        // Woken outside the lock, so the executor does not wake only to
        // wait for the lock this thread still holds.
        if wake {
            self.work_ready.notify_one();
        }
        // No thread to be had: run what is ready here rather than leave
        // it stranded.
        if start_executor && !start_executor_thread(Arc::clone(self)) {
            let orphaned = {
                let mut state = self.lock();
                state.executors -= 1;
                if state.executors == 0 {
                    std::mem::take(&mut state.ready)
                } else {
                    VecDeque::new()
                }
            };
            for slot in orphaned {
                if let Some(command) = take(&slot) {
                    self.run_command(command);
                }
            }
        }
    }

    /// Hands a command that became ready to run: when the thread is one of
    /// this queue's executors and has just completed the command this one
    /// waited for, it runs it next itself (no list, no lock, no wake-up);
    /// otherwise it goes onto the ready list.
    fn hand_over(self: &Arc<Self>, command: Command) {
        let queue = Arc::as_ptr(self) as usize;
        let command = NEXT.with(|next| {
            let mut next = next.borrow_mut();
            match &*next {
                Next::Free(executor_of) if *executor_of == queue => {
                    *next = Next::Taken(command);
                    None
                }
                _ => Some(command),
            }
        });
        if let Some(command) = command {
            self.push_ready(command);
        }
    }

    fn executor_loop(self: Arc<Self>) {
        let queue = Arc::as_ptr(&self) as usize;
        loop {
            // The command the last one released, if it kept it.
            NEXT.with(|next| *next.borrow_mut() = Next::Free(queue));
            self.run_continuations();
            let slot = {
                let mut state = self.lock();
                loop {
                    if let Some(slot) = state.ready.pop_front() {
                        break slot;
                    }
                    if state.closing && state.in_flight == 0 {
                        state.executors -= 1;
                        return;
                    }
                    state.idle += 1;
                    state = self
                        .work_ready
                        .wait(state)
                        .unwrap_or_else(|e| e.into_inner());
                    state.idle -= 1;
                }
            };
            // A waiter may have taken the command already.
            if let Some(command) = take(&slot) {
                command.event.clear_helper();
                NEXT.with(|next| *next.borrow_mut() = Next::Free(queue));
                self.run_command(command);
                self.run_continuations();
            }
        }
    }

    /// Runs the commands that completing the last one handed straight to
    /// this executor, one after another, then stops taking them.
    fn run_continuations(&self) {
        loop {
            let taken = NEXT.with(|next| {
                let mut next = next.borrow_mut();
                match std::mem::replace(&mut *next, Next::None) {
                    Next::Taken(command) => {
                        *next = Next::Free(self as *const Shared as usize);
                        Some(command)
                    }
                    _ => None,
                }
            });
            match taken {
                Some(command) => self.run_command(command),
                None => break,
            }
        }
    }

    /// Runs a command's work, settles its event and accounts for it.
    fn run_command(&self, command: Command) {
        command.event.advance(RUNNING, None);
        let outcome = match catch_unwind(AssertUnwindSafe(command.work)) {
            Ok(outcome) => outcome,
            Err(_) => Err(Error::OutOfResources("a command panicked".into())),
        };
        match outcome {
            Ok(()) => command.event.advance(COMPLETE, None),
            Err(error) => {
                // Reported before the event fails, so whoever waits for
                // the event finds the report made.
                if let Some(hook) = self.failure_hook.get() {
                    hook(&command.event, &error);
                }
                self.lock().failure.get_or_insert_with(|| error.clone());
                command.event.fail(error);
            }
        }
        self.command_finished();
    }

    fn command_finished(&self) {
        let mut state = self.lock();
        state.in_flight -= 1;
        if state.closing && state.in_flight == 0 {
            self.work_ready.notify_all();
        }
    }
}

/// What an executor thread may take over from the command it completes.
enum Next {
    /// Not an executor, or not taking commands now.
    None,
    /// An executor of the queue at this address, ready to take one command.
    Free(usize),
    /// The command it took.
    Taken(Command),
}

thread_local! {
    static NEXT: std::cell::RefCell<Next> = const { std::cell::RefCell::new(Next::None) };
}

/// Executor threads whose queue has gone, parked for the next queue that
/// needs one (at most [`PARKED_EXECUTORS`]): a queue's first command then
/// costs a hand-over instead of a thread's creation (its stack mapped, its
/// start, later its exit), which on the 2-core development machine was
/// about a seventh of a never-seen program's way to its first result
/// (`examples/first_result.rs`, a queue per program).
static PARKED: Mutex<Vec<std::sync::mpsc::Sender<Arc<Shared>>>> = Mutex::new(Vec::new());

/// The most executor threads kept parked; more leave when their queue does.
const PARKED_EXECUTORS: usize = 8;

/// Runs `queue`'s executor loop on a parked executor thread, or on a new
/// one; `false` when no thread could be had.
fn start_executor_thread(queue: Arc<Shared>) -> bool {
    let mut queue = queue;
    loop {
        let parked = PARKED.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let Some(thread) = parked else { break };
        match thread.send(queue) {
            Ok(()) => return true,
            // That thread has gone (it panicked out of its loop): the
            // next one, or a new thread.
            Err(std::sync::mpsc::SendError(back)) => queue = back,
        }
    }
    std::thread::Builder::new()
        .name("vecl-queue".into())
        // It runs work-groups too (small launches run inline).
        .stack_size(vecl_jit::WORKER_STACK_BYTES)
        .spawn(move || executor_thread(queue))
        .is_ok()
}

/// An executor thread's life: serves one queue until it closes, then
/// parks for the next (when fewer than [`PARKED_EXECUTORS`] are parked).
fn executor_thread(first: Arc<Shared>) {
    // It runs launches for an application thread that goes on running.
    crate::pool::mark_extra_submitter();
    let mut queue = first;
    loop {
        queue.executor_loop();
        // No queue's identity stays behind (a new queue may take the
        // address of the one that went).
        NEXT.with(|next| *next.borrow_mut() = Next::None);
        let (handle, next) = std::sync::mpsc::channel();
        {
            let mut parked = PARKED.lock().unwrap_or_else(|e| e.into_inner());
            if parked.len() >= PARKED_EXECUTORS {
                return;
            }
            parked.push(handle);
        }
        // Parked until a queue takes it; the handle lives in `PARKED`
        // until then, so this waits for good on a process that makes no
        // more queues (as the pool's workers do).
        match next.recv() {
            Ok(shared) => queue = shared,
            Err(_) => return,
        }
    }
}

/// A command waiting for its dependencies.
struct Pending {
    remaining: AtomicUsize,
    /// The failure of the first wait-list event that failed.
    failed: Mutex<Option<Error>>,
    command: Mutex<Option<Command>>,
    shared: Arc<Shared>,
}

impl Pending {
    /// Accounts for one finished dependency; returns the command when it was
    /// the last one and all succeeded (a failed one settles the command here).
    fn release(&self) -> Option<Command> {
        if self.remaining.fetch_sub(1, Ordering::AcqRel) != 1 {
            return None;
        }
        let command = self
            .command
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(cause) = failed {
            command.event.fail(Error::DependencyFailed(Box::new(cause)));
            self.shared.command_finished();
            return None;
        }
        // Its dependencies are done: the command goes to the device.
        command.event.advance(SUBMITTED, None);
        Some(command)
    }

    /// Records that a wait-list event failed (the first failure is kept).
    fn dependency_failed(&self, dependency: &Event, status: i32) {
        let cause = match dependency.failure() {
            // The root cause, not a chain of "a dependency failed".
            Some(Error::DependencyFailed(root)) => *root,
            Some(error) => error,
            None => Error::OutOfResources(format!("an event failed with status {status}")),
        };
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(cause);
    }
}

/// Closes the queue when the last [`Queue`] clone goes away.
struct Handle {
    shared: Arc<Shared>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        // "clReleaseCommandQueue performs an implicit flush": enqueued
        // commands still run; the executors leave when they are done.
        self.shared.lock().closing = true;
        self.shared.work_ready.notify_all();
    }
}

/// A command queue. Cloning shares it; commands keep running after the last
/// clone is dropped.
#[derive(Clone)]
pub struct Queue {
    handle: Arc<Handle>,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("properties", &self.handle.shared.properties)
            .finish()
    }
}

impl Queue {
    /// Creates a queue. Its executor threads start with its first command
    /// that needs one.
    pub fn new(properties: QueueProperties) -> Result<Queue> {
        let max_executors = if properties.out_of_order {
            std::thread::available_parallelism()
                .map_or(1, usize::from)
                .clamp(2, MAX_EXECUTORS)
        } else {
            1
        };
        let shared = Arc::new(Shared {
            properties,
            max_executors,
            state: Mutex::new(State {
                ready: VecDeque::new(),
                last: None,
                barrier: None,
                outstanding: Vec::new(),
                prune_at: PRUNE_MIN,
                in_flight: 0,
                executors: 0,
                idle: 0,
                closing: false,
                failure: None,
            }),
            work_ready: Condvar::new(),
            failure_hook: OnceLock::new(),
        });
        Ok(Queue {
            handle: Arc::new(Handle { shared }),
        })
    }

    /// The properties the queue was created with.
    pub fn properties(&self) -> QueueProperties {
        self.handle.shared.properties
    }

    /// Whether two handles name the same queue.
    pub fn same_queue(&self, other: &Queue) -> bool {
        Arc::ptr_eq(&self.handle, &other.handle)
    }

    /// `CL_QUEUE_REFERENCE_COUNT`.
    pub fn reference_count(&self) -> usize {
        Arc::strong_count(&self.handle)
    }

    /// Sets the function told of every command whose own work fails (an
    /// API layer reports it to the application). Only the first call
    /// takes effect.
    pub fn set_failure_hook(&self, hook: FailureHook) {
        let _ = self.handle.shared.failure_hook.set(hook);
    }

    /// Enqueues `work` as a command of type `command_type` after `wait_list`
    /// and the queue's implicit dependencies, and returns its event. With
    /// `run_here`, a command whose dependencies are already complete runs
    /// on the calling thread before this returns (for blocking commands,
    /// and for commands smaller than a thread hand-off); otherwise an
    /// executor runs it and this returns at once.
    pub fn submit(
        &self,
        command_type: u32,
        ordering: CommandOrder,
        wait_list: &[Event],
        run_here: bool,
        work: Work,
    ) -> Event {
        let shared = &self.handle.shared;
        let event = Event::for_command(command_type, shared.properties.profiling);
        // Implicit dependencies: they order, but their failure does not
        // propagate (only the wait list's does). An in-order queue's is the
        // previous command; an out-of-order queue's, the last barrier and,
        // for a marker or barrier with no wait list, everything outstanding.
        let previous: Option<Event>;
        let mut earlier: Vec<Event> = Vec::new();
        {
            let mut state = shared.lock();
            if shared.properties.out_of_order {
                let all_earlier = ordering != CommandOrder::Plain && wait_list.is_empty();
                if state.outstanding.len() >= state.prune_at || all_earlier {
                    state.outstanding.retain(|e| e.status() > COMPLETE);
                    state.prune_at = (2 * state.outstanding.len()).max(PRUNE_MIN);
                }
                previous = state.barrier.clone();
                if all_earlier {
                    earlier = state.outstanding.clone();
                }
                if ordering == CommandOrder::Barrier {
                    state.barrier = Some(event.clone());
                }
                state.outstanding.push(event.clone());
            } else {
                // Each command waits for the one before, so the last one
                // stands for them all (`finish`); no list is kept.
                previous = state.last.take();
            }
            state.last = Some(event.clone());
            state.in_flight += 1;
        }
        // The previous command is often in the wait list too (a chain that
        // waits on its predecessor's event): it is then one dependency,
        // through the wait list, whose failure propagates.
        let previous = previous.filter(|p| !wait_list.iter().any(|w| w.same_event(p)));
        let implicit = previous.iter().chain(earlier.iter());
        let implicit_count = usize::from(previous.is_some()) + earlier.len();
        let pending = Arc::new(Pending {
            remaining: AtomicUsize::new(wait_list.len() + implicit_count + 1),
            failed: Mutex::new(None),
            command: Mutex::new(Some(Command {
                event: event.clone(),
                work,
            })),
            shared: Arc::clone(shared),
        });
        // Dependencies already final are accounted for here, without a
        // callback (the count cannot reach zero: this call holds one).
        for dep in wait_list {
            let registered = dep.when_done_or_status(|| {
                let (pending, dep_event) = (Arc::clone(&pending), dep.clone());
                Box::new(move |status| {
                    if status < COMPLETE {
                        pending.dependency_failed(&dep_event, status);
                    }
                    if let Some(command) = pending.release() {
                        pending.shared.hand_over(command);
                    }
                })
            });
            if let Some(status) = registered {
                if status < COMPLETE {
                    pending.dependency_failed(dep, status);
                }
                pending.remaining.fetch_sub(1, Ordering::AcqRel);
            }
        }
        for dep in implicit {
            let registered = dep.when_done_or_status(|| {
                let pending = Arc::clone(&pending);
                Box::new(move |_| {
                    if let Some(command) = pending.release() {
                        pending.shared.hand_over(command);
                    }
                })
            });
            if registered.is_some() {
                pending.remaining.fetch_sub(1, Ordering::AcqRel);
            }
        }
        if let Some(command) = pending.release() {
            if run_here {
                shared.run_command(command);
            } else {
                shared.push_ready(command);
            }
        }
        event
    }

    /// `clFlush`: commands are submitted as they are enqueued, so there is
    /// nothing left to push.
    pub fn flush(&self) -> Result<()> {
        Ok(())
    }

    /// `clFinish`: blocks until every command enqueued so far has finished,
    /// successfully or not. Returns the failure of the first command since
    /// the previous `finish` whose own work failed (a command failed only
    /// because its wait list did is not reported again).
    pub fn finish(&self) -> Result<()> {
        let outstanding = {
            let mut state = self.handle.shared.lock();
            state.outstanding.retain(|e| e.status() > COMPLETE);
            let mut events = state.outstanding.clone();
            // In order, the last command completes after every other.
            if !self.handle.shared.properties.out_of_order {
                events.extend(state.last.clone());
            }
            events
        };
        for event in outstanding {
            // Failures are collected below, once.
            let _ = event.wait();
        }
        match self.handle.shared.lock().failure.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// Waits for a blocking command's event and turns its failure into the
/// error the blocking call returns.
pub(crate) fn wait_blocking(event: Event) -> Result<Event> {
    match event.wait() {
        Ok(()) => Ok(event),
        Err(e) => Err(event.failure().unwrap_or(e)),
    }
}

//! Command queues: ordering, dependencies and the thread that runs commands.
//!
//! Every queue has one executor thread. A command enters with its wait list
//! plus the queue's implicit dependencies — the previous command of an
//! in-order queue; for an out-of-order queue, the last barrier, and for a
//! barrier or a marker without a wait list every command still outstanding.
//! When its last dependency completes, the command is handed to the executor
//! (or, for a blocking command whose dependencies were already complete, run
//! on the calling thread at once, which saves two thread wake-ups). If a
//! wait-list event failed, the command does not run: its event takes
//! `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`, and so do its own
//! dependants in turn. Implicit dependencies (queue order, barriers) only
//! order: a failing command never poisons the rest of its queue.
//!
//! The executor runs one command at a time; an NDRange inside it is spread
//! over the whole pool, so running independent commands of an out-of-order
//! queue concurrently would buy little on a CPU and cost a lot of
//! complexity.

use crate::error::{Error, Result};
use crate::event::{Event, COMPLETE, RUNNING, SUBMITTED};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// `cl_command_queue_properties` the device supports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueProperties {
    /// `CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE`.
    pub out_of_order: bool,
    /// `CL_QUEUE_PROFILING_ENABLE`.
    pub profiling: bool,
}

/// The work of a command: runs on the executor (or the calling thread).
pub type Work = Box<dyn FnOnce() -> Result<()> + Send>;

/// How a command takes part in the queue's ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CommandOrder {
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

/// A ready command, shared between the executor's list and the event's
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
    /// Events of commands that may not have completed yet.
    outstanding: Vec<Event>,
    /// Commands enqueued and not yet finished (run or failed).
    in_flight: usize,
    /// The last handle was dropped: the executor leaves once idle.
    closing: bool,
}

struct Shared {
    properties: QueueProperties,
    state: Mutex<State>,
    work_ready: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push_ready(self: &Arc<Self>, command: Command) {
        let event = command.event.clone();
        let slot: ReadySlot = Arc::new(Mutex::new(Some(command)));
        let (helper_slot, shared) = (Arc::clone(&slot), Arc::clone(self));
        event.set_helper(Box::new(move || {
            if let Some(command) = take(&helper_slot) {
                run_command(command);
                shared.command_finished();
            }
        }));
        self.lock().ready.push_back(slot);
        self.work_ready.notify_one();
    }

    fn command_finished(&self) {
        let mut state = self.lock();
        state.in_flight -= 1;
        if state.closing && state.in_flight == 0 {
            self.work_ready.notify_all();
        }
    }

    fn executor_loop(self: Arc<Self>) {
        loop {
            let command = {
                let mut state = self.lock();
                loop {
                    if let Some(slot) = state.ready.pop_front() {
                        break slot;
                    }
                    if state.closing && state.in_flight == 0 {
                        return;
                    }
                    state = self
                        .work_ready
                        .wait(state)
                        .unwrap_or_else(|e| e.into_inner());
                }
            };
            // A waiter may have taken the command already.
            if let Some(command) = take(&command) {
                command.event.clear_helper();
                run_command(command);
                self.command_finished();
            }
        }
    }
}

/// Runs a command's work and settles its event.
fn run_command(command: Command) {
    command.event.advance(RUNNING, None);
    match catch_unwind(AssertUnwindSafe(command.work)) {
        Ok(Ok(())) => command.event.advance(COMPLETE, None),
        Ok(Err(error)) => command.event.fail(error),
        Err(_) => command
            .event
            .fail(Error::OutOfResources("a command panicked".into())),
    }
}

/// A command waiting for its dependencies.
struct Pending {
    remaining: AtomicUsize,
    failed: AtomicBool,
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
        if self.failed.load(Ordering::Acquire) {
            command
                .event
                .fail(Error::ExecStatusErrorForEventsInWaitList);
            self.shared.command_finished();
            return None;
        }
        Some(command)
    }
}

/// Closes the queue when the last [`Queue`] clone goes away.
struct Handle {
    shared: Arc<Shared>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        // "clReleaseCommandQueue performs an implicit flush": enqueued
        // commands still run; the executor leaves when they are done.
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
    /// Creates a queue and its executor thread.
    pub fn new(properties: QueueProperties) -> Result<Queue> {
        let shared = Arc::new(Shared {
            properties,
            state: Mutex::new(State {
                ready: VecDeque::new(),
                last: None,
                barrier: None,
                outstanding: Vec::new(),
                in_flight: 0,
                closing: false,
            }),
            work_ready: Condvar::new(),
        });
        let executor = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("vecl-queue".into())
            .spawn(move || executor.executor_loop())
            .map_err(|_| Error::OutOfHostMemory)?;
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

    /// Enqueues `work` as a command of type `command_type` after `wait_list`
    /// and the queue's implicit dependencies. With `run_here`, a command
    /// whose dependencies are already complete runs on the calling thread
    /// before this returns.
    pub(crate) fn submit(
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
        // propagate (only the wait list's does).
        let mut implicit: Vec<Event> = Vec::new();
        {
            let mut state = shared.lock();
            state.outstanding.retain(|e| e.status() > COMPLETE);
            if shared.properties.out_of_order {
                if let Some(barrier) = &state.barrier {
                    implicit.push(barrier.clone());
                }
                if ordering != CommandOrder::Plain && wait_list.is_empty() {
                    implicit.extend(state.outstanding.iter().cloned());
                }
                if ordering == CommandOrder::Barrier {
                    state.barrier = Some(event.clone());
                }
            } else if let Some(last) = &state.last {
                implicit.push(last.clone());
            }
            state.last = Some(event.clone());
            state.outstanding.push(event.clone());
            state.in_flight += 1;
        }
        // Commands go to the device as soon as they are enqueued.
        event.advance(SUBMITTED, None);
        let pending = Arc::new(Pending {
            remaining: AtomicUsize::new(wait_list.len() + implicit.len() + 1),
            failed: AtomicBool::new(false),
            command: Mutex::new(Some(Command {
                event: event.clone(),
                work,
            })),
            shared: Arc::clone(shared),
        });
        let deps = wait_list
            .iter()
            .map(|e| (e, true))
            .chain(implicit.iter().map(|e| (e, false)));
        for (dep, propagates) in deps {
            let pending = Arc::clone(&pending);
            dep.when_done(Box::new(move |status| {
                if propagates && status < COMPLETE {
                    pending.failed.store(true, Ordering::Release);
                }
                if let Some(command) = pending.release() {
                    pending.shared.push_ready(command);
                }
            }));
        }
        if let Some(command) = pending.release() {
            if run_here {
                run_command(command);
                shared.command_finished();
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

    /// `clFinish`: blocks until every command enqueued so far has finished
    /// (successfully or not).
    pub fn finish(&self) -> Result<()> {
        let outstanding = self.handle.shared.lock().outstanding.clone();
        for event in outstanding {
            // A failed command still counts as finished.
            let _ = event.wait();
        }
        Ok(())
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

//! When enqueued commands run.
//!
//! A command runs as soon as every event it depends on (its wait list, and
//! for an in-order queue the queue's previous command) is final. When they
//! are final at enqueue time, it runs at once on the enqueuing thread;
//! otherwise it is parked as a [`Pending`] command with a count of
//! unfinished dependencies, and the thread that completes the last of them
//! (a `clSetUserEventStatus` call, or the command before it) runs it. A
//! failed event of the wait list makes the command fail without running,
//! with `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST` as its status; the
//! dependencies the queue adds for its order (the previous command of an
//! in-order queue, the commands before a barrier) only order it, as in the
//! runtime's own queues, so a failure does not spread down a queue
//! whether or not it happened before the next command was enqueued.
//!
//! Running commands eagerly keeps enqueue latency low for small commands
//! and makes every command's effects visible in submission order, which is
//! a valid schedule for in-order and out-of-order queues alike.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use opencl_sys::{
    cl_int, CL_COMPLETE, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, CL_RUNNING, CL_SUBMITTED,
};

use crate::event::Event;
use crate::handle::Object;

/// A command's work: returns the command's final status (`CL_COMPLETE` or a
/// negative error).
pub type Work = Box<dyn FnOnce() -> cl_int + Send>;

/// A command waiting for its dependencies.
pub struct Pending {
    remaining: AtomicUsize,
    failed: AtomicBool,
    deps: Vec<Arc<Object<Event>>>,
    /// How many of `deps`, from the first, came from the wait list (a
    /// failure among them fails the command); the rest only order it.
    waited: usize,
    event: Arc<Object<Event>>,
    work: Mutex<Option<Work>>,
}

impl Pending {
    /// One dependency became final; runs the command after the last one.
    pub fn dependency_done(self: &Arc<Self>) {
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.run();
        }
    }

    fn run(&self) {
        let work = self
            .work
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .take();
        let Some(work) = work else { return };
        let failed = self.failed.load(Ordering::Acquire)
            || self.deps[..self.waited].iter().any(|dep| dep.status() < 0);
        if failed {
            self.event
                .set_status(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
            return;
        }
        execute(&self.event, work);
    }
}

/// Runs a command whose dependencies are all complete.
fn execute(event: &Arc<Object<Event>>, work: Work) {
    event.set_status(CL_SUBMITTED);
    event.set_status(CL_RUNNING);
    let status = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
        .unwrap_or(opencl_sys::CL_OUT_OF_HOST_MEMORY);
    event.set_status(if status < 0 { status } else { CL_COMPLETE });
}

/// Submits a command: runs it now when `deps` are all final, or parks it
/// until they are. The first `waited` of `deps` are its wait list.
pub fn submit(event: Arc<Object<Event>>, deps: Vec<Arc<Object<Event>>>, waited: usize, work: Work) {
    let pending = Arc::new(Pending {
        // One extra count, held by this function until every dependency has
        // been registered, so the command cannot run half-registered.
        remaining: AtomicUsize::new(deps.len() + 1),
        failed: AtomicBool::new(false),
        deps: deps.clone(),
        waited,
        event,
        work: Mutex::new(Some(work)),
    });
    for (i, dep) in deps.iter().enumerate() {
        if !dep.add_dependent(&pending) {
            if i < waited && dep.status() < 0 {
                pending.failed.store(true, Ordering::Release);
            }
            pending.dependency_done();
        }
    }
    pending.dependency_done();
}

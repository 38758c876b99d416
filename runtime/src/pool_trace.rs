//! Where a launch's time goes on the pool's threads (`VECL_POOL_TRACE=1`).
//!
//! Per job shared with helpers: the wall time from the submission to the
//! end, and for each thread that ran ranges of it the time it spent in
//! them, when its first range began and when its last ended. Summed over
//! the process's jobs and put in words by [`report`] (`vecl run` prints
//! it). It tells threads that idle (late wake-ups, a tail) from threads
//! that are busy but slower than one thread alone (the busy time grows
//! with the threads: contended lines, memory bandwidth, the clock). Off,
//! it costs a job one test of a flag read once.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Turns tracing on or off for the jobs submitted from now on (the API
/// sets it from `VECL_POOL_TRACE`).
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether tracing is on.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

thread_local! {
    /// The slot of this thread: a worker's index, else the last slots.
    static SLOT: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Marks the calling thread as worker `index`.
pub fn set_slot(index: usize) {
    SLOT.with(|s| s.set(index));
}

/// One thread's part of a job (a line of its own: the threads write
/// them at the end of every range).
#[repr(align(128))]
#[derive(Default)]
struct ThreadTrace {
    first: AtomicU64,
    last: AtomicU64,
    busy: AtomicU64,
    ranges: AtomicU64,
}

/// One job's trace.
pub struct JobTrace {
    start: Instant,
    threads: usize,
    slots: Vec<ThreadTrace>,
}

impl JobTrace {
    /// A trace for a job of a pool of `threads` threads: slots 0 to
    /// `threads - 2` are the workers, `threads - 1` the submitter and
    /// `threads` any other thread (one waiting in `Pool::help_while`).
    pub fn new(threads: usize) -> JobTrace {
        let slots = (0..threads + 1)
            .map(|_| ThreadTrace {
                first: AtomicU64::new(u64::MAX),
                ..Default::default()
            })
            .collect();
        JobTrace {
            start: Instant::now(),
            threads,
            slots,
        }
    }

    fn slot(&self, submitter: bool) -> &ThreadTrace {
        let s = SLOT.with(Cell::get);
        let i = if submitter {
            self.threads - 1
        } else if s < self.threads - 1 {
            s
        } else {
            self.threads
        };
        &self.slots[i]
    }

    /// The time since the job started, in ns.
    pub fn now(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    /// Records a range run from `from` to `to` (ns since the start) on the
    /// calling thread, the job's submitter or not.
    pub fn range(&self, submitter: bool, from: u64, to: u64) {
        let t = self.slot(submitter);
        t.first.fetch_min(from, Ordering::Relaxed);
        t.last.fetch_max(to, Ordering::Relaxed);
        t.busy.fetch_add(to - from, Ordering::Relaxed);
        t.ranges.fetch_add(1, Ordering::Relaxed);
    }

    /// Adds the finished job to the process's sums.
    pub fn finish(&self) {
        let wall = self.now();
        let mut s = SUMS.lock().unwrap_or_else(|e| e.into_inner());
        s.jobs += 1;
        s.wall += wall;
        let mut helpers = 0u64;
        for (i, t) in self.slots.iter().enumerate() {
            let ranges = t.ranges.load(Ordering::Relaxed);
            if ranges == 0 {
                continue;
            }
            let busy = t.busy.load(Ordering::Relaxed);
            s.busy += busy;
            s.ranges += ranges;
            s.threads += 1;
            s.tail += wall.saturating_sub(t.last.load(Ordering::Relaxed));
            if i != self.threads - 1 {
                helpers += 1;
                s.helper_start += t.first.load(Ordering::Relaxed);
                s.helper_span += t.last.load(Ordering::Relaxed) - t.first.load(Ordering::Relaxed);
                s.helper_busy += busy;
            }
        }
        s.helpers += helpers;
    }
}

/// Sums over the traced jobs, in ns.
#[derive(Default)]
struct Sums {
    jobs: u64,
    wall: u64,
    busy: u64,
    ranges: u64,
    threads: u64,
    tail: u64,
    helpers: u64,
    helper_start: u64,
    helper_span: u64,
    helper_busy: u64,
}

static SUMS: Mutex<Sums> = Mutex::new(Sums {
    jobs: 0,
    wall: 0,
    busy: 0,
    ranges: 0,
    threads: 0,
    tail: 0,
    helpers: 0,
    helper_start: 0,
    helper_span: 0,
    helper_busy: 0,
});

/// The sums so far in words (empty when tracing is off or no job ran).
pub fn report() -> String {
    if !enabled() {
        return String::new();
    }
    summary()
}

/// The sums so far in words (empty when no job was traced).
fn summary() -> String {
    let s = SUMS.lock().unwrap_or_else(|e| e.into_inner());
    if s.jobs == 0 {
        return String::new();
    }
    let per = |x: u64| x as f64 / s.jobs as f64 / 1e3;
    let per_h = |x: u64| x as f64 / s.helpers.max(1) as f64 / 1e3;
    format!(
        "pool trace: {} jobs; per job: wall {:.1} us, busy {:.1} us ({:.2} threads' worth), \
         threads {:.2}, ranges {:.1}, tail (wall - thread's last end, summed) {:.1} us; \
         per helper: first range at {:.1} us, span {:.1} us, busy {:.1} us\n",
        s.jobs,
        per(s.wall),
        per(s.busy),
        s.busy as f64 / s.wall.max(1) as f64,
        s.threads as f64 / s.jobs as f64,
        s.ranges as f64 / s.jobs as f64,
        per(s.tail),
        per_h(s.helper_start),
        per_h(s.helper_span),
        per_h(s.helper_busy),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traced_job_is_summed_per_thread() {
        // Two threads of a pool of three: the submitter (this thread)
        // and a worker, each with one range.
        let trace = JobTrace::new(3);
        trace.range(true, 0, 400);
        std::thread::scope(|s| {
            s.spawn(|| {
                set_slot(0);
                trace.range(false, 100, 300);
            });
        });
        let t = &trace.slots;
        assert_eq!(t[2].busy.load(Ordering::Relaxed), 400, "submitter's slot");
        assert_eq!(t[0].busy.load(Ordering::Relaxed), 200, "worker 0's slot");
        assert_eq!(t[0].first.load(Ordering::Relaxed), 100);
        assert_eq!(t[0].last.load(Ordering::Relaxed), 300);
        assert_eq!(t[1].ranges.load(Ordering::Relaxed), 0);
        assert_eq!(t[3].ranges.load(Ordering::Relaxed), 0);
        trace.finish();
        let words = summary();
        assert!(words.starts_with("pool trace: "), "{words}");
    }
}

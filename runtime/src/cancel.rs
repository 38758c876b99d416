//! Stopping a running kernel: cancellation and time limits.
//!
//! A kernel that never ends would otherwise hold a queue (and the pool's
//! threads) forever: nothing else can interrupt JIT code. Each kernel
//! command has a [`StopFlag`]; the compiled code reads it at every loop's
//! back edge (one load and a branch, `vecl_jit::abi::Launch::stop_flag`)
//! and the pool before each range of work-groups, so a set flag ends the
//! launch within one loop iteration or one range. The command then fails
//! with `CL_OUT_OF_RESOURCES` and a message saying why; the host process
//! and the queue go on.
//!
//! Two things set the flag: [`Event::cancel`](crate::event::Event::cancel)
//! (the Rust API's cancellation), and the [`Watchdog`], a thread that sets
//! the flags of commands that run past their queue's time limit
//! (`QueueProperties::kernel_timeout`, from `VECL_KERNEL_TIMEOUT_MS` at the
//! API's edge). Work-groups that already finished keep their effects: a
//! stopped kernel leaves its buffers partly written, as a failed command
//! may.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// Why a launch was stopped (the flag's value; 0 while it runs on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// [`StopFlag::cancel`]: the application asked.
    Cancelled = 1,
    /// The watchdog: the command ran past its time limit.
    TimedOut = 2,
}

/// A kernel command's stop flag (a `u32` the compiled code reads).
#[derive(Debug, Default)]
pub struct StopFlag {
    flag: AtomicU32,
    /// The time limit the watchdog enforces, for the message.
    limit: OnceLock<Duration>,
}

impl StopFlag {
    /// A flag that is not set.
    pub fn new() -> Arc<StopFlag> {
        Arc::new(StopFlag::default())
    }

    /// Stops the launch (if it has not stopped for another reason).
    pub fn cancel(&self) {
        self.set(StopReason::Cancelled);
    }

    fn set(&self, reason: StopReason) {
        let _ = self
            .flag
            .compare_exchange(0, reason as u32, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Why the launch was stopped, if it was.
    pub fn reason(&self) -> Option<StopReason> {
        match self.flag.load(Ordering::Relaxed) {
            0 => None,
            1 => Some(StopReason::Cancelled),
            _ => Some(StopReason::TimedOut),
        }
    }

    /// The address the compiled code reads (`Launch::stop_flag`).
    pub fn address(&self) -> u64 {
        std::ptr::from_ref(&self.flag) as u64
    }

    /// Why `kernel` stopped, in words.
    pub fn describe(&self, kernel: &str) -> String {
        match (self.reason(), self.limit.get()) {
            (Some(StopReason::TimedOut), Some(limit)) => format!(
                "kernel `{kernel}` stopped: it ran past its time limit of {} ms (VECL_KERNEL_TIMEOUT_MS or the queue's kernel timeout)",
                limit.as_millis()
            ),
            _ => format!("kernel `{kernel}` stopped: the command was cancelled"),
        }
    }
}

/// The thread that stops commands past their time limit: one for the
/// process, started at the first command that has a limit.
pub struct Watchdog {
    /// Deadlines of running commands; flags dropped since are skipped.
    armed: Mutex<Vec<(Instant, Weak<StopFlag>)>>,
    changed: Condvar,
}

impl Watchdog {
    fn global() -> &'static Watchdog {
        static WATCHDOG: OnceLock<&'static Watchdog> = OnceLock::new();
        WATCHDOG.get_or_init(|| {
            let dog: &'static Watchdog = Box::leak(Box::new(Watchdog {
                armed: Mutex::new(Vec::new()),
                changed: Condvar::new(),
            }));
            let spawned = std::thread::Builder::new()
                .name("vecl-watchdog".into())
                .spawn(move || dog.watch());
            if spawned.is_err() {
                // Without the thread no limit is enforced; commands still
                // run (and may be cancelled).
                eprintln!("vecl: cannot start the kernel time-limit thread; time limits are off");
            }
            dog
        })
    }

    /// Stops `flag`'s launch when `limit` has passed from now, unless the
    /// flag is dropped before (the command finished).
    pub fn arm(flag: &Arc<StopFlag>, limit: Duration) {
        let _ = flag.limit.set(limit);
        let dog = Watchdog::global();
        let deadline = Instant::now() + limit;
        let mut armed = dog.armed.lock().unwrap_or_else(|e| e.into_inner());
        armed.retain(|(_, f)| f.strong_count() > 0);
        armed.push((deadline, Arc::downgrade(flag)));
        dog.changed.notify_one();
    }

    fn watch(&self) {
        let mut armed = self.armed.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            armed.retain(|(deadline, flag)| match flag.upgrade() {
                Some(f) if *deadline <= now => {
                    f.set(StopReason::TimedOut);
                    false
                }
                Some(_) => true,
                None => false,
            });
            let next = armed.iter().map(|(d, _)| *d).min();
            armed = match next {
                Some(d) => {
                    self.changed
                        .wait_timeout(armed, d.saturating_duration_since(now))
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(armed).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_reason_stays() {
        let f = StopFlag::new();
        assert_eq!(f.reason(), None);
        f.cancel();
        f.set(StopReason::TimedOut);
        assert_eq!(f.reason(), Some(StopReason::Cancelled));
        assert!(f.describe("k").contains("cancelled"));
    }

    #[test]
    fn the_watchdog_sets_flags_past_their_limit_only() {
        let late = StopFlag::new();
        let soon = StopFlag::new();
        Watchdog::arm(&late, Duration::from_secs(3600));
        Watchdog::arm(&soon, Duration::from_millis(20));
        let start = Instant::now();
        while soon.reason().is_none() && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(soon.reason(), Some(StopReason::TimedOut));
        assert_eq!(late.reason(), None);
        assert!(soon.describe("spin").contains("time limit of 20 ms"));
    }
}

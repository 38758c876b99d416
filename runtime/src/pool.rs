//! The process-wide work-stealing pool that runs NDRanges.
//!
//! One set of worker threads serves every queue of the process (one thread
//! per core, or [`Pool::set_global_threads`]'s number, which the API's edge
//! takes from `VECL_THREADS`; the thread that submits a job is one of them,
//! so `threads - 1` are spawned). A job is a range of work-group indices and
//! a body that runs a sub-range. Whoever holds a range splits it in halves,
//! keeping the lower half and publishing the upper one, until it reaches the
//! job's grain; idle workers steal the published halves (largest first, from
//! the FIFO end of crossbeam-deque), so a long NDRange spreads across the
//! cores with a logarithmic number of steals and no per-group queue traffic.
//!
//! Each thread owns a [`Scratch`]: the `__local` arena and the context area
//! that a work-group needs, 64-byte aligned and grown on demand, so running a
//! group allocates nothing. A job of very few groups runs inline on the
//! submitting thread without waking anyone: launching a tiny kernel costs a
//! function call, not a round of thread wake-ups.
//!
//! **How many threads a job gets.** Waking a sleeping worker costs the
//! waker a system call and the job the worker's wake-up latency, which
//! only pays when the worker then has work enough to run. So the
//! submitting thread first runs the job's groups itself, alone, in ranges
//! of doubling length (1, 2, 4, … groups, up to the grain, or past it
//! while a range stays cheap: [`next_alone_step`]), timing them:
//! after each range the average cost of a group so far times the groups
//! left estimates the work left, and once that is worth a helper
//! ([`HELPER_WORK_NS`] of it per helper) the rest is dealt in fixed parts
//! to that many workers, each woken for its own part (`Pool::deal`:
//! the same worker gets the same groups launch after launch), and the
//! parts are split for stealing as they run. A job too small for any helper finishes on the
//! submitting thread without a wake-up. The estimate is the job's own,
//! made while it runs, not a previous launch's: a launch that shares its
//! groups never makes the next one look cheaper, and cheap first groups
//! (a stencil's border row) only delay the decision by a range.

use crate::error::{Error, Result};
use crate::host_alloc::AlignedBytes;
use crate::pool_trace::{self, JobTrace};
use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Jobs of at most this many groups run inline on the submitting thread.
pub const INLINE_GROUPS: u64 = 2;

/// Nanoseconds of estimated remaining work per helper a job wakes: a
/// helper woken for less would spend a good part of it waking up (a futex
/// wake and a scheduling delay of a few to ten-odd microseconds), and each
/// thread the job wakes should have at least this much to run.
pub const HELPER_WORK_NS: u64 = 20_000;

/// The longest, at the cost per group measured so far, that a range the
/// submitting thread runs alone may take when it is longer than the job's
/// grain ([`next_alone_step`]): a quarter of a helper's work, so a job
/// that turns out worth a helper is found out soon after.
pub const ALONE_RANGE_NS: u64 = HELPER_WORK_NS / 4;

/// The longest a published range should take, at the cost per group the
/// submitting thread measured before it published: a job's grain is
/// shortened to this when a fraction of its groups ([`Pool::run`]) would
/// take longer. The last range of a job runs while the other threads
/// have nothing left, so it bounds the job's tail: with ranges of
/// `groups / (8 × threads)` a scan of 65,536 groups of ~0.4 µs on two
/// threads had ranges of ~1.7 ms, and its threads were idle for about
/// half of one range per launch. A range this long costs its thread a
/// steal and an atomic update, well under 1 % of it.
pub const RANGE_NS: u64 = 50_000;

/// The shortest a published range should be, at the cost per group the
/// submitting thread measured before it published: a job's grain is
/// lengthened to this when a fraction of its groups would be shorter.
/// Handing a range to another thread costs about a microsecond (a steal,
/// the job's count, the lines of the launch's buffers it reads from the
/// submitter's cache), so a range of a few hundred nanoseconds is mostly
/// hand-off; and the fraction, `groups / (8 × threads)`, shrinks as the
/// pool grows while the launch does not: a 256-group launch of ~15 µs
/// was 128 ranges of two groups on 16 threads, each awake thread took
/// some, and every launch of a chain of them moved its buffer's lines
/// between a dozen cores. With this floor a launch spreads over at most
/// one thread per [`MIN_RANGE_NS`] of its work, whatever the pool's size.
pub const MIN_RANGE_NS: u64 = ALONE_RANGE_NS / 2;

/// Work left that a job hands a share of to a thread already awake in
/// [`Pool::help_while`] ([`worth_a_hunter`]): two ranges the submitter
/// would run alone ([`ALONE_RANGE_NS`]), so that each side has at least
/// one. With 5 µs, a chain of launches of ~5 µs (256 groups of ~20 ns)
/// handed the waiting thread ~2.5 µs of each, whose buffer lines then
/// crossed between the two cores every launch: its wall time per launch
/// did not move and the process's CPU time nearly doubled.
pub const HUNTER_WORK_NS: u64 = 2 * ALONE_RANGE_NS;

/// How long an idle worker looks for work before it sleeps, at most (64
/// looks, or fewer when they take longer). Each look reads every other
/// worker's deque, so 64 looks took a time that grew with the pool; bounded, a worker of a large pool costs no
/// more to idle than one of a small pool.
pub const WORKER_SPIN_NS: u64 = ALONE_RANGE_NS;

/// A kernel whose last launch's first group took at least this long gets
/// its helpers at the start of its next launch ([`Pool::run_for`]),
/// before the submitting thread has run anything: a launch of few dear
/// groups (n-body's 64 groups of ~4 ms) otherwise ran its first group
/// alone, the whole launch waiting one group's time for its helpers. Five
/// helpers' worth ([`HELPER_WORK_NS`]): a guess wrong once (the kernel's
/// next launch is cheap) costs the wake-ups of one launch, and that
/// launch's first group corrects it.
pub const DEAR_GROUP_NS: u64 = 5 * HELPER_WORK_NS;

/// Kernels whose first-group cost the pool remembers (a direct-mapped
/// table: two kernels sharing a slot only forget each other).
const COST_SLOTS: usize = 64;

/// A kernel's first-group cost, as [`Pool::run_for`] remembers it.
#[derive(Default)]
struct CostSlot {
    /// The kernel (0: none).
    kernel: AtomicUsize,
    first_group_ns: AtomicU64,
}

/// How many times in a row [`Pool::help_while`] finds nothing published
/// before it gives up (a few tens of microseconds: long enough to cover a
/// queue executor's wake-up and the launch's first split).
pub const HELP_LOOKS: u32 = 2000;

/// How long a thread in [`Pool::help_while`] may look for work beyond the
/// time it spends running what it finds ([`hunt_pays`]): a wake-up's
/// worth ([`HELPER_WORK_NS`]). A waiter whose shares are worth less than
/// its looking between them (a chain of launches of a few microseconds,
/// each handing it a share of ~2 µs) stops looking and sleeps until its
/// event completes, instead of spinning through the whole chain.
pub const HUNT_ALLOWANCE_NS: u64 = HELPER_WORK_NS;

/// How long the submitting thread of a job waits for the job's last
/// ranges, run by other threads, by looking before it sleeps on the job:
/// about what sleeping costs it (a futex wait, the finisher's futex
/// wake, and a scheduling delay of a few to ten-odd microseconds). A spin that long costs at most twice the better of
/// spinning and sleeping, whatever the ranges' length; most last ranges
/// are a grain of a short launch, a microsecond or two.
pub const JOB_SPIN_NS: u64 = ALONE_RANGE_NS;

/// The status a job reports when its body panicked (a bug, but never a hang).
/// (Apart from every `vecl_jit::abi::KernelStatus`, so that a panic is
/// never reported as a kernel's own failure.)
pub const STATUS_PANICKED: u32 = 0xFFFF_FF01;

/// A thread's per-work-group scratch memory: the `__local` arena and the
/// context area that carries values across barriers.
pub struct Scratch {
    local: AlignedBytes,
    context: AlignedBytes,
}

impl Scratch {
    /// Empty arenas; they grow on first use.
    pub fn new() -> Scratch {
        Scratch {
            local: AlignedBytes::empty(),
            context: AlignedBytes::empty(),
        }
    }

    /// Pointers to a `__local` arena of at least `local` bytes and a context
    /// area of at least `context` bytes, both 64-byte aligned. The arena has
    /// `vecl_jit::abi::LOCAL_PAD` bytes of this allocation on each side,
    /// which compiled code may read for work-items that are not running.
    /// They stay valid until the next call on this `Scratch`.
    pub fn arenas(&mut self, local: usize, context: usize) -> Result<(*mut u8, *mut u8)> {
        let pad = vecl_jit::abi::LOCAL_PAD;
        let too_large = || Error::OutOfResources("__local arena too large".into());
        // Whole lines: each block then begins and ends on a line boundary
        // (`host_alloc::ALIGN`), so none of its lines holds another
        // allocation, such as another thread's arena, written as often.
        let line = crate::host_alloc::ALIGN;
        let padded = local
            .checked_add(2 * pad)
            .and_then(|n| n.checked_next_multiple_of(line))
            .ok_or_else(too_large)?;
        let context = context
            .checked_next_multiple_of(line)
            .ok_or(Error::OutOfResources("context area too large".into()))?;
        self.local.ensure(padded)?;
        self.context.ensure(context)?;
        // SAFETY: `pad < padded <= len`: inside the allocation.
        let arena = unsafe { self.local.as_ptr().add(pad) };
        Ok((arena, self.context.as_ptr()))
    }
}

/// The body of a job: runs groups `[first, end)` with the thread's scratch
/// memory and returns 0, or a non-zero status that stops the job.
pub type JobBody = dyn Fn(u64, u64, &mut Scratch) -> u32 + Send + Sync;

/// One parallel range in flight.
struct Job {
    body: Arc<JobBody>,
    /// Groups not yet run (or skipped after a failure).
    remaining: AtomicU64,
    /// The first non-zero status any range returned.
    status: AtomicU32,
    /// Ranges longer than this are split before they run: a fraction of
    /// the groups, shortened by [`range_grain`] once the submitting thread
    /// has measured their cost (before it publishes any range).
    grain: AtomicU64,
    /// Sleepers the job may still wake (see the module's comment).
    wakes: AtomicUsize,
    done: Mutex<Done>,
    done_cond: Condvar,
    /// Where its time went (`VECL_POOL_TRACE=1`), and its submitter.
    trace: Option<(JobTrace, std::thread::ThreadId)>,
}

/// Whether a job is finished, and whether its submitter sleeps on it.
#[derive(Default)]
struct Done {
    finished: bool,
    /// The submitter waits on `done_cond`: the thread that finishes the
    /// job must wake it. A notification costs a system call even when
    /// nobody waits, and most jobs finish on the submitting thread.
    waiting: bool,
}

impl Job {
    /// Runs `[start, end)` unless the job already failed, then accounts for it.
    fn execute(&self, start: u64, end: u64, scratch: &mut Scratch) {
        let traced = self
            .trace
            .as_ref()
            .map(|(t, submitter)| (t, *submitter == std::thread::current().id(), t.now()));
        if self.status.load(Ordering::Relaxed) == 0 {
            let status = catch_unwind(AssertUnwindSafe(|| (self.body)(start, end, scratch)))
                .unwrap_or(STATUS_PANICKED);
            if status != 0 {
                let _ =
                    self.status
                        .compare_exchange(0, status, Ordering::AcqRel, Ordering::Relaxed);
            }
        }
        if let Some((t, submitter, from)) = traced {
            t.range(submitter, from, t.now());
        }
        let n = end - start;
        if self.remaining.fetch_sub(n, Ordering::AcqRel) == n {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            done.finished = true;
            if done.waiting {
                self.done_cond.notify_all();
            }
        }
    }

    /// Waits until the job is finished: by looking for up to
    /// [`JOB_SPIN_NS`] (the last ranges are usually short), then asleep.
    fn wait(&self) {
        if self.is_done() {
            return;
        }
        let started = Instant::now();
        let mut looks = 0u32;
        while !self.is_done() {
            looks = looks.wrapping_add(1);
            if looks.is_multiple_of(32) && nanos(started.elapsed()) >= JOB_SPIN_NS {
                break;
            }
            std::hint::spin_loop();
        }
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !done.finished {
            done.waiting = true;
            done = self.done_cond.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn is_done(&self) -> bool {
        self.remaining.load(Ordering::Acquire) == 0
    }

    fn failed(&self) -> bool {
        self.status.load(Ordering::Relaxed) != 0
    }

    /// Takes one wake-up from the job's budget; false when it is spent.
    fn take_wake(&self) -> bool {
        self.wakes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| w.checked_sub(1))
            .is_ok()
    }
}

/// How `Pool::deal` shares `[start, total)` of a job with `helpers`
/// workers when its submitter has run `[0, start)`: `[0, total)` cut at
/// `total·j/(helpers+1)` (each cut at least `start`), the submitter's
/// part first (`(usize::MAX, start, end)`, possibly empty) and then, for
/// each later part that is not empty, the worker it goes to (part `j`
/// to worker `j - 1`) and its groups. Only the submitter's part when
/// there is no helper or fewer than two groups are left.
pub fn deal_cuts(start: u64, total: u64, helpers: usize) -> Vec<(usize, u64, u64)> {
    let parts = helpers as u64 + 1;
    if helpers == 0 || total.saturating_sub(start) < 2 {
        return vec![(usize::MAX, start.min(total), total)];
    }
    let cut = |j: u64| {
        let at =
            u64::try_from(u128::from(total) * u128::from(j) / u128::from(parts)).unwrap_or(total);
        at.max(start)
    };
    let mut dealt = vec![(usize::MAX, start, cut(1))];
    for j in 1..parts {
        let (from, to) = (cut(j), cut(j + 1));
        if from < to {
            dealt.push(((j - 1) as usize, from, to));
        }
    }
    dealt
}

/// Helpers worth waking for `left` groups when `done` groups took
/// `elapsed` on one thread, at most `max`: one per [`HELPER_WORK_NS`] of
/// estimated work left, and never more than there are groups left beyond
/// the submitting thread's own.
pub fn helpers_for(elapsed: Duration, done: u64, left: u64, max: usize) -> usize {
    if done == 0 || left <= 1 {
        return 0;
    }
    // In 64 bits (585 years of nanoseconds): a 128-bit division costs a
    // call, and this runs after every range a job runs alone.
    let per_group = nanos(elapsed) / done;
    let estimate = per_group.saturating_mul(left);
    let wanted = estimate / HELPER_WORK_NS;
    let cap = (max as u64).min(left - 1);
    wanted.min(cap) as usize
}

/// A job's grain once `done` groups took `elapsed` on the submitting
/// thread: `grain`, or fewer groups when that many would take longer than
/// [`RANGE_NS`], or more when that many would take less than
/// [`MIN_RANGE_NS`] (at least one group).
pub fn range_grain(grain: u64, elapsed: Duration, done: u64) -> u64 {
    if done == 0 {
        return grain.max(1);
    }
    let per_group = (nanos(elapsed) / done).max(1);
    grain
        .min(RANGE_NS / per_group)
        .max(MIN_RANGE_NS / per_group)
        .max(1)
}

/// Whether the work left, `left` groups when `done` took `elapsed`, is
/// worth handing a share of to a thread already awake and looking for
/// work ([`Pool::help_while`]): no wake-up to pay, only a steal and the
/// lines the helper reads from the submitter's cache, so
/// [`HUNTER_WORK_NS`] of work is enough (half of what a sleeping helper
/// is woken for). A FDTD step of two 256×256 launches of ~20 µs
/// each, enqueued ahead from Python and then waited for with `clFinish`,
/// thus runs on both cores once the waiting thread helps.
pub fn worth_a_hunter(elapsed: Duration, done: u64, left: u64) -> bool {
    if done == 0 || left <= 1 {
        return false;
    }
    let per_group = nanos(elapsed) / done;
    per_group.saturating_mul(left) >= HUNTER_WORK_NS
}

/// Whether a thread in [`Pool::help_while`] that has been at it for
/// `total` nanoseconds since the first range it found, `worked` of them
/// running ranges, should go on looking: while the time it spent looking
/// is at most the time it ran ranges plus [`HUNT_ALLOWANCE_NS`]. Its CPU time is then at most
/// twice what it ran, plus the allowance; shares that save the job
/// about what they cost keep it looking, slivers between long looks do
/// not.
pub fn hunt_pays(total: u64, worked: u64) -> bool {
    total.saturating_sub(worked) <= worked.saturating_add(HUNT_ALLOWANCE_NS)
}

/// The length of the next range the submitting thread runs alone, after
/// `done` groups took `elapsed` and the last range was `step` long: twice
/// as long, up to the job's grain, or beyond it while the range would
/// still take under [`ALONE_RANGE_NS`] at the cost per group so far.
///
/// Each range ends with a read of the clock and a decision; a job of 16
/// groups of a few tens of nanoseconds (a small launch on two threads,
/// whose grain is one group) would otherwise read the clock 16 times, a
/// third of its cost on the submitting thread. A range that grows past
/// the grain only delays the next decision by [`ALONE_RANGE_NS`] of the
/// work measured so far; first groups much cheaper than the rest (a
/// stencil's border) may make it longer, by as many of the dear groups
/// as the cheap ones that ran (the doubling never more than doubles).
pub fn next_alone_step(step: u64, grain: u64, elapsed: Duration, done: u64) -> u64 {
    let doubled = step.saturating_mul(2);
    if doubled <= grain || done == 0 {
        return doubled.min(grain.max(1));
    }
    let per_group = (nanos(elapsed) / done).max(1);
    let cheap = ALONE_RANGE_NS / per_group;
    doubled.min(grain.max(cheap)).max(1)
}

/// What the submitting thread's ranges tell of a job's cost per group.
///
/// The first group of a launch pays for its cold start: the kernel's code
/// and arguments, and the lines of its buffers that another core wrote
/// last (the previous launch's helpers) come from afar. A 256-group launch
/// of ~20 ns groups measured ~1 µs for its first, so counting it made the
/// work left look worth a helper and woke one for every launch of a chain
/// of such launches. So the first range (one group) is timed apart: when
/// it took at least [`ALONE_RANGE_NS`] its cost stands for the groups
/// (a wake-up decided from it at once); otherwise no decision is made on
/// it and the later ranges' time alone estimates the cost per group.
#[derive(Default)]
struct AloneTiming {
    /// The first range's time and groups, once it ran.
    first: Option<(Duration, u64)>,
}

impl AloneTiming {
    /// After a range ended at `elapsed` with `done` groups run: the time
    /// and the groups the cost per group is to be taken from (no groups:
    /// no estimate yet).
    fn ran(&mut self, elapsed: Duration, done: u64) -> (Duration, u64) {
        match self.first {
            None => {
                self.first = Some((elapsed, done));
                if nanos(elapsed) >= ALONE_RANGE_NS {
                    (elapsed, done)
                } else {
                    (elapsed, 0)
                }
            }
            Some((first, first_done)) => (
                elapsed.saturating_sub(first),
                done.saturating_sub(first_done),
            ),
        }
    }
}

/// `d` in nanoseconds, saturated to 64 bits.
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// A range of one job's groups, the unit of stealing.
struct Task {
    job: Arc<Job>,
    start: u64,
    end: u64,
}

/// The worker pool. There is one per process: [`Pool::global`].
pub struct Pool {
    threads: usize,
    injector: Injector<Task>,
    stealers: Vec<Stealer<Task>>,
    /// One per worker: the part of a job dealt to it ([`Pool::deal`]),
    /// which it takes before anything else. Any thread may steal from it.
    inboxes: Vec<Injector<Task>>,
    /// One per worker: running a range (set when it finds one, cleared
    /// when it finds none), so that a deal passes over a worker busy with
    /// another job's ranges.
    busy: Vec<std::sync::atomic::AtomicBool>,
    /// One bit per worker that is asleep or about to sleep (worker `i` is
    /// bit `i % 64` of word `i / 64`). A publisher claims a bit by clearing
    /// it and unparks that worker alone: no lock is shared by the sleepers,
    /// so waking a pool of many threads is not a convoy on one mutex.
    sleeping: Vec<AtomicU64>,
    /// Each worker's thread handle, registered by the worker itself before
    /// it first sleeps.
    handles: Vec<OnceLock<std::thread::Thread>>,
    /// What kernels' last launches measured of their first group.
    costs: Vec<CostSlot>,
    /// Threads inside [`Pool::help_while`]: awake and looking for
    /// published ranges, so a job may hand them work without a wake-up.
    hunting: AtomicUsize,
    /// Threads asleep until an event completes ([`Pool::waiter_asleep`]):
    /// an application thread that leaves its core to the pool.
    waiters_asleep: AtomicUsize,
    /// Sleeping workers woken so far (for tests and diagnosis).
    unparks: AtomicU64,
}

thread_local! {
    /// The scratch memory of a thread that submits jobs (or runs them inline).
    static CALLER_SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };

    /// Whether this thread submits jobs on behalf of an application
    /// thread that goes on running ([`mark_extra_submitter`]).
    static EXTRA_SUBMITTER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as one that submits jobs for an application
/// thread that goes on running meanwhile: a queue's executor. The pool's
/// threads count the submitting thread as one of them, one per core; an
/// executor is a thread more, and the application thread that enqueued
/// is busy on its own core until it waits. So a job such a thread submits
/// wakes at most the pool's threads less two, unless a thread is asleep
/// on an event ([`Pool::waiter_asleep`]) and so has left its core: on two
/// cores, FDTD's launches of ~20 µs, enqueued from Python, woke the
/// second worker for about half of them while Python used that core, and
/// the three threads took turns on two cores (`docs/runtime.md`, "A
/// queue's executor is a thread more").
pub fn mark_extra_submitter() {
    EXTRA_SUBMITTER.with(|extra| extra.set(true));
}

/// Counts a thread asleep on an event for as long as it lives
/// ([`Pool::waiter_asleep`]).
pub struct AsleepWaiter<'a>(&'a Pool);

impl Drop for AsleepWaiter<'_> {
    fn drop(&mut self) {
        self.0.waiters_asleep.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The process-wide pool, once started.
static POOL: OnceLock<Arc<Pool>> = OnceLock::new();

impl Pool {
    /// The process-wide pool, started on first use with the threads
    /// [`set_global_threads`](Self::set_global_threads) asked for (default:
    /// one per core).
    pub fn global() -> &'static Arc<Pool> {
        POOL.get_or_init(|| Pool::start(*GLOBAL_THREADS.get_or_init(one_per_core)))
    }

    /// The process-wide pool if it has started (a process that ran no
    /// kernel has none to tell of its waiters).
    pub fn global_if_started() -> Option<&'static Arc<Pool>> {
        POOL.get()
    }

    /// Counts the calling thread as asleep until an event completes, for
    /// as long as the guard lives: its core is free for the pool's
    /// helpers, which a job submitted by a queue's executor then may wake
    /// ([`mark_extra_submitter`]).
    ///
    /// A job that found the application thread busy or looking for work
    /// (in [`help_while`](Self::help_while)) published its ranges for it
    /// and woke nobody; the thread that stops looking to sleep hands its
    /// core over: when ranges are still published, it wakes a worker to
    /// run them in its place.
    pub fn waiter_asleep(&self) -> AsleepWaiter<'_> {
        self.waiters_asleep.fetch_add(1, Ordering::Relaxed);
        if self.threads > 1 && self.has_published_work() {
            self.wake_one();
        }
        AsleepWaiter(self)
    }

    /// The most helpers a job submitted by the calling thread may wake:
    /// the pool's other threads, less one for the application thread
    /// that runs beside a queue's executor while no thread is asleep on
    /// an event ([`mark_extra_submitter`]).
    fn helper_cap(&self) -> usize {
        let others = self.threads - 1;
        if EXTRA_SUBMITTER.with(std::cell::Cell::get)
            && self.waiters_asleep.load(Ordering::Relaxed) == 0
        {
            others.saturating_sub(1)
        } else {
            others
        }
    }

    /// Sets the number of threads of the process-wide pool (the submitting
    /// thread included; 0 means one per core). Only the first call counts,
    /// and only before the pool starts; returns whether this one counted.
    pub fn set_global_threads(threads: usize) -> bool {
        let threads = if threads == 0 {
            one_per_core()
        } else {
            threads
        };
        GLOBAL_THREADS.set(threads).is_ok()
    }

    /// Starts a pool of `threads` threads in total (the submitting thread
    /// counts as one, so `threads - 1` are spawned). Worker threads live as
    /// long as the process.
    pub fn start(threads: usize) -> Arc<Pool> {
        let threads = threads.max(1);
        let deques: Vec<Worker<Task>> = (1..threads).map(|_| Worker::new_lifo()).collect();
        let pool = Arc::new(Pool {
            threads,
            injector: Injector::new(),
            stealers: deques.iter().map(Worker::stealer).collect(),
            inboxes: (1..threads).map(|_| Injector::new()).collect(),
            busy: (1..threads)
                .map(|_| std::sync::atomic::AtomicBool::new(false))
                .collect(),
            sleeping: (0..threads.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            handles: (1..threads).map(|_| OnceLock::new()).collect(),
            costs: (0..COST_SLOTS).map(|_| CostSlot::default()).collect(),
            hunting: AtomicUsize::new(0),
            waiters_asleep: AtomicUsize::new(0),
            unparks: AtomicU64::new(0),
        });
        for (index, deque) in deques.into_iter().enumerate() {
            let pool = Arc::clone(&pool);
            let spawned = std::thread::Builder::new()
                .name(format!("vecl-worker-{index}"))
                // Room for the largest frame kernel code may have.
                .stack_size(vecl_jit::WORKER_STACK_BYTES)
                .spawn(move || pool.worker_loop(index, deque));
            // A pool that could not spawn every thread still works: the
            // submitting thread runs whatever no worker takes.
            drop(spawned);
        }
        pool
    }

    /// Threads that run work-groups, the submitting thread included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `body` over groups `[0, total)` and returns 0 or the first
    /// non-zero status a range returned (ranges not yet started when a
    /// failure is seen are skipped). The calling thread takes part and
    /// returns when every group has run or been skipped; it wakes helpers
    /// only for as much work as the job turns out to have (see the
    /// module's comment).
    pub fn run(&self, total: u64, body: Arc<JobBody>) -> u32 {
        self.run_for(0, total, body)
    }

    /// [`run`](Self::run) for launches of the kernel `kernel` (any number
    /// that names it while it lives, such as its code's address; 0: none).
    /// When the kernel's last launch measured its first group at
    /// [`DEAR_GROUP_NS`] or more, this launch wakes its helpers at once
    /// (one per group beyond the first, at most the pool's other threads)
    /// and the submitting thread runs its first group beside them, instead
    /// of alone.
    pub fn run_for(&self, kernel: usize, total: u64, body: Arc<JobBody>) -> u32 {
        if total == 0 {
            return 0;
        }
        if total <= INLINE_GROUPS || self.threads == 1 {
            return with_caller_scratch(|scratch| {
                catch_unwind(AssertUnwindSafe(|| body(0, total, scratch)))
                    .unwrap_or(STATUS_PANICKED)
            });
        }
        let grain = (total / (self.threads as u64 * 8)).max(1);
        let job = Arc::new(Job {
            body,
            remaining: AtomicU64::new(total),
            status: AtomicU32::new(0),
            grain: AtomicU64::new(grain),
            wakes: AtomicUsize::new(0),
            done: Mutex::new(Done::default()),
            done_cond: Condvar::new(),
            trace: pool_trace::enabled()
                .then(|| (JobTrace::new(self.threads), std::thread::current().id())),
        });
        let remembered = self.first_group_ns(kernel);
        with_caller_scratch(|scratch| {
            if remembered >= DEAR_GROUP_NS {
                // Dear groups, as last time: the rest is published and
                // its helpers woken before the first group runs here.
                let per_group = Duration::from_nanos(remembered);
                job.grain
                    .store(range_grain(grain, per_group, 1), Ordering::Relaxed);
                let helpers = usize::try_from(total - 1).unwrap_or(usize::MAX);
                job.wakes
                    .store(helpers.min(self.helper_cap()), Ordering::Release);
                self.publish(&job, 1, total);
                let started = Instant::now();
                job.execute(0, 1, scratch);
                self.remember_first_group(kernel, nanos(started.elapsed()));
            } else if !self.run_alone_first(&job, kernel, total, grain, scratch) {
                return;
            }
            // Help with whatever is published until our job is finished.
            while !job.is_done() {
                match self.find_task(None, usize::MAX) {
                    Some(task) => self.run_task(task, None, scratch),
                    None => break,
                }
            }
        });
        job.wait();
        if let Some((t, _)) = &job.trace {
            t.finish();
        }
        job.status.load(Ordering::Acquire)
    }

    /// The submitting thread's start of a job: ranges of doubling length,
    /// timed, until the work left is worth a helper; then the rest is
    /// split and published (true), or the job is done (false).
    fn run_alone_first(
        &self,
        job: &Arc<Job>,
        kernel: usize,
        total: u64,
        grain: u64,
        scratch: &mut Scratch,
    ) -> bool {
        let started = Instant::now();
        let (mut next, mut step) = (0u64, 1u64);
        let mut timing = AloneTiming::default();
        while next < total && !job.failed() {
            let end = (next + step).min(total);
            job.execute(next, end, scratch);
            next = end;
            let now = started.elapsed();
            if timing.first.is_none() {
                self.remember_first_group(kernel, nanos(now) / next);
            }
            let (elapsed, done) = timing.ran(now, next);
            let helpers = helpers_for(elapsed, done, total - next, self.helper_cap());
            if helpers > 0 {
                // Nothing is published yet: the ranges are cut to the
                // measured cost before anyone sees the job.
                job.grain
                    .store(range_grain(grain, elapsed, done), Ordering::Relaxed);
                job.wakes.store(helpers, Ordering::Release);
                break;
            }
            // A thread already awake in `help_while` costs no wake-up:
            // it takes a share of less than a helper's worth.
            if worth_a_hunter(elapsed, done, total - next)
                && self.hunting.load(Ordering::Relaxed) > 0
            {
                job.grain
                    .store(range_grain(grain, elapsed, done), Ordering::Relaxed);
                break;
            }
            step = next_alone_step(step, grain, elapsed, done);
        }
        if next == total {
            return false;
        }
        let end = self.deal(job, next, total);
        if end > next {
            self.run_task(
                Task {
                    job: Arc::clone(job),
                    start: next,
                    end,
                },
                None,
                scratch,
            );
        }
        true
    }

    /// Deals `[start, total)` of `job`, whose groups `[0, start)` the
    /// submitting thread has run, to as many workers as the job may wake
    /// (its whole budget, at most one per worker): part `j` of
    /// [`deal_cuts`] goes into worker `j - 1`'s inbox (or another's when
    /// that one is busy: [`Pool::recipient`]) and that worker is woken;
    /// the submitter keeps what is left of part 0 and gets its end.
    ///
    /// The cuts depend only on the job's size and its helpers, so each
    /// launch of a chain gives a worker the groups it ran the launch
    /// before, and exactly the helpers the estimate asked for are woken.
    /// The halves published for stealing instead went to whichever thread
    /// looked first, and woke a sleeper per half while the budget lasted:
    /// on a 16-core host the bench's launch chain (a 256 KB buffer updated
    /// in place, 2,000 launches) took 104–220 µs of CPU a launch at 8 and
    /// 16 threads, and 52–65 µs dealt, for 12.3–15.9 against 13.0–14.0 µs
    /// of wall time (`docs/runtime.md`).
    fn deal(&self, job: &Arc<Job>, start: u64, total: u64) -> u64 {
        let budget = job.wakes.swap(0, Ordering::AcqRel);
        let helpers = budget.min(self.inboxes.len());
        let parts = deal_cuts(start, total, helpers);
        if parts.len() <= 1 {
            job.wakes.store(budget, Ordering::Release);
            return total;
        }
        let mut taken = vec![false; self.inboxes.len()];
        for &(preferred, from, to) in &parts[1..] {
            let worker = self.recipient(preferred, &mut taken);
            self.inboxes[worker].push(Task {
                job: Arc::clone(job),
                start: from,
                end: to,
            });
            self.wake_worker(worker);
        }
        parts[0].2
    }

    /// The worker a dealt part meant for `preferred` goes to: that one
    /// unless it is busy (with another job's ranges) or holds an untaken
    /// part already, else the next worker that is neither and not yet
    /// given a part of this deal (`taken`), else `preferred` after all.
    /// Two jobs dealt at once to the same first workers would otherwise
    /// leave the rest of the pool asleep.
    fn recipient(&self, preferred: usize, taken: &mut [bool]) -> usize {
        let n = self.inboxes.len();
        let free = |w: usize| {
            !taken[w] && !self.busy[w].load(Ordering::Relaxed) && self.inboxes[w].is_empty()
        };
        let worker = (0..n)
            .map(|k| (preferred + k) % n)
            .find(|&w| free(w))
            .unwrap_or(preferred);
        taken[worker] = true;
        worker
    }

    /// Publishes `[start, end)` of `job` without running any of it: halves
    /// down to the job's grain, largest first, each waking a sleeper while
    /// the job's budget lasts.
    fn publish(&self, job: &Arc<Job>, start: u64, mut end: u64) {
        let grain = job.grain.load(Ordering::Relaxed);
        while start < end {
            let mid = if end - start > grain {
                start + (end - start) / 2
            } else {
                start
            };
            self.injector.push(Task {
                job: Arc::clone(job),
                start: mid,
                end,
            });
            if job.take_wake() {
                self.wake_one();
            }
            end = mid;
        }
    }

    /// The slot of `kernel` in the table of first-group costs.
    fn cost_slot(&self, kernel: usize) -> &CostSlot {
        let hash = (kernel as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58;
        &self.costs[hash as usize % COST_SLOTS]
    }

    /// What `kernel`'s last launch measured of its first group (0: not
    /// known). Two kernels racing for one slot may mix their numbers,
    /// which only makes a launch wake its helpers earlier or later.
    fn first_group_ns(&self, kernel: usize) -> u64 {
        if kernel == 0 {
            return 0;
        }
        let slot = self.cost_slot(kernel);
        if slot.kernel.load(Ordering::Relaxed) == kernel {
            slot.first_group_ns.load(Ordering::Relaxed)
        } else {
            0
        }
    }

    /// Remembers `kernel`'s first group's cost: written only when it
    /// changes the next launch's start (dear or not), so that a chain of
    /// launches does not write the shared table every time.
    fn remember_first_group(&self, kernel: usize, ns: u64) {
        if kernel == 0 {
            return;
        }
        let before = self.first_group_ns(kernel);
        if (before >= DEAR_GROUP_NS) != (ns >= DEAR_GROUP_NS) {
            let slot = self.cost_slot(kernel);
            slot.first_group_ns.store(ns, Ordering::Relaxed);
            slot.kernel.store(kernel, Ordering::Relaxed);
        }
    }

    /// Runs published ranges, of whichever job published them, on the
    /// calling thread while `waiting()` holds, and returns when it no longer
    /// does, when nothing was published for [`HELP_LOOKS`] looks in a row,
    /// or when its looking no longer pays for itself ([`hunt_pays`]).
    ///
    /// A thread about to sleep until a kernel completes calls this so that it
    /// takes part instead. It matters when the kernel runs on another thread
    /// (a queue's executor): the scheduler may have put the worker it woke on
    /// the executor's CPU, leaving the waiter's CPU idle for the whole launch.
    pub fn help_while(&self, waiting: impl Fn() -> bool) {
        if self.threads == 1 {
            return;
        }
        self.hunting.fetch_add(1, Ordering::Relaxed);
        with_caller_scratch(|scratch| {
            // Counted from the first range found: until then the launch
            // may not have started (its executor waking up, preparing
            // it, running its first groups alone), and only
            // `HELP_LOOKS` bounds the wait, as it did alone before.
            let mut first_found: Option<Instant> = None;
            let mut worked = 0u64;
            let mut empty_looks = 0;
            while waiting() && empty_looks < HELP_LOOKS {
                match self.find_task(None, usize::MAX) {
                    Some(task) => {
                        let ran = Instant::now();
                        first_found.get_or_insert(ran);
                        self.run_task(task, None, scratch);
                        worked = worked.saturating_add(nanos(ran.elapsed()));
                        empty_looks = 0;
                    }
                    None => {
                        empty_looks += 1;
                        // The clock every 64 looks (~25 ns a read).
                        if empty_looks.is_multiple_of(64)
                            && first_found.is_some_and(|t| !hunt_pays(nanos(t.elapsed()), worked))
                        {
                            break;
                        }
                        std::hint::spin_loop();
                    }
                }
            }
        });
        self.hunting.fetch_sub(1, Ordering::Relaxed);
    }

    /// Splits a task down to its job's grain (publishing the upper halves)
    /// and runs what is left.
    fn run_task(&self, task: Task, own: Option<&Worker<Task>>, scratch: &mut Scratch) {
        let Task {
            job,
            start,
            mut end,
        } = task;

        let grain = job.grain.load(Ordering::Relaxed);
        while end - start > grain && job.status.load(Ordering::Relaxed) == 0 {
            let mid = start + (end - start) / 2;
            let half = Task {
                job: Arc::clone(&job),
                start: mid,
                end,
            };
            match own {
                Some(deque) => deque.push(half),
                None => self.injector.push(half),
            }
            if job.take_wake() {
                self.wake_one();
            }
            end = mid;
        }
        job.execute(start, end, scratch);
    }

    /// The next task: the thread's own deque first, then the injector, then
    /// other workers' deques, from the one after `after` on (each worker
    /// starts at its neighbour, so thieves do not all try the first deque
    /// first).
    fn find_task(&self, own: Option<&Worker<Task>>, after: usize) -> Option<Task> {
        if let Some(task) = own.and_then(Worker::pop) {
            return Some(task);
        }
        loop {
            let mut retry = false;
            // A worker's dealt part first: the same part of each launch
            // of a job lands on the same worker ([`Pool::deal`]).
            if let (Some(_), Some(inbox)) = (own, self.inboxes.get(after)) {
                match inbox.steal() {
                    Steal::Success(task) => return Some(task),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            let stolen = match own {
                Some(deque) => self.injector.steal_batch_and_pop(deque),
                None => self.injector.steal(),
            };
            match stolen {
                Steal::Success(task) => return Some(task),
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
            let count = self.stealers.len();
            for k in 0..count {
                let stealer = &self.stealers[after.wrapping_add(1).wrapping_add(k) % count];
                match stealer.steal() {
                    Steal::Success(task) => return Some(task),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            // Parts dealt to workers that have not taken them yet.
            for k in 0..self.inboxes.len() {
                let i = after.wrapping_add(1).wrapping_add(k) % self.inboxes.len();
                if own.is_some() && i == after {
                    continue;
                }
                match self.inboxes[i].steal() {
                    Steal::Success(task) => return Some(task),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    fn has_published_work(&self) -> bool {
        !self.injector.is_empty()
            || self.stealers.iter().any(|s| !s.is_empty())
            || self.inboxes.iter().any(|s| !s.is_empty())
    }

    /// Wakes a sleeping worker after a task was published. The fence
    /// orders the publication before the read of the sleeping bits, as the
    /// worker's fence orders its bit before its look for work: without it
    /// the read may pass the deque's plain release store (x86 reorders a
    /// store before a later load), both sides see the other's old value,
    /// and the worker sleeps until its timeout while the caller runs the
    /// job alone.
    fn wake_one(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
        for (word_index, word) in self.sleeping.iter().enumerate() {
            let mut bits = word.load(Ordering::SeqCst);
            while bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                if self.claim_sleeper(word_index * 64 + bit) {
                    return;
                }
                bits &= !(1u64 << bit);
            }
        }
    }

    /// Wakes worker `index` if it is asleep, after a part was put in its
    /// inbox (the fence as in [`wake_one`](Self::wake_one)); awake, it
    /// finds the part when it next looks for work.
    fn wake_worker(&self, index: usize) {
        std::sync::atomic::fence(Ordering::SeqCst);
        self.claim_sleeper(index);
    }

    /// Clears worker `index`'s sleeping bit and, when this caller is the
    /// one that cleared it, unparks the worker (an unpark before the park
    /// makes the park return at once); whether it did.
    fn claim_sleeper(&self, index: usize) -> bool {
        let (word, bit) = (&self.sleeping[index / 64], 1u64 << (index % 64));
        if word.fetch_and(!bit, Ordering::SeqCst) & bit == 0 {
            return false;
        }
        if let Some(handle) = self.handles[index].get() {
            self.unparks.fetch_add(1, Ordering::Relaxed);
            handle.unpark();
        }
        true
    }

    fn worker_loop(&self, index: usize, own: Worker<Task>) {
        pool_trace::set_slot(index);
        let _ = self.handles[index].set(std::thread::current());
        let (word, bit) = (&self.sleeping[index / 64], 1u64 << (index % 64));
        let mut scratch = Scratch::new();
        let busy = &self.busy[index];
        loop {
            if let Some(task) = self.find_task(Some(&own), index) {
                busy.store(true, Ordering::Relaxed);
                self.run_task(task, Some(&own), &mut scratch);
                continue;
            }
            busy.store(false, Ordering::Relaxed);
            // Spin briefly: another range is usually published soon after
            // the last one finished.
            let mut found = None;
            let spun = Instant::now();
            for look in 0..64u32 {
                std::hint::spin_loop();
                found = self.find_task(Some(&own), index);
                if found.is_some() || (look % 8 == 7 && nanos(spun.elapsed()) >= WORKER_SPIN_NS) {
                    break;
                }
            }
            if let Some(task) = found {
                busy.store(true, Ordering::Relaxed);
                self.run_task(task, Some(&own), &mut scratch);
                continue;
            }
            word.fetch_or(bit, Ordering::SeqCst);
            std::sync::atomic::fence(Ordering::SeqCst);
            if !self.has_published_work() {
                // The timeout is a safety net only; publishers unpark.
                std::thread::park_timeout(Duration::from_millis(200));
            }
            // Whether a publisher cleared the bit (and unparked) or not,
            // this worker is awake now. A wake-up token left by an unpark
            // that raced with this clear only makes a later park return
            // early, and the loop looks for work again.
            word.fetch_and(!bit, Ordering::SeqCst);
        }
    }
}

/// Runs `f` with the calling thread's scratch memory.
fn with_caller_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut f = Some(f);
    let attempt = CALLER_SCRATCH.try_with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            return None;
        };
        let scratch = slot.get_or_insert_with(Scratch::new);
        f.take().map(|f| f(scratch))
    });
    match (attempt, f) {
        (Ok(Some(result)), _) => result,
        // Re-entered, or thread-local storage gone: use fresh scratch.
        (_, Some(f)) => {
            let mut fresh = Scratch::new();
            f(&mut fresh)
        }
        (_, None) => unreachable!("the closure ran but produced no result"),
    }
}

/// The thread count [`Pool::set_global_threads`] chose.
static GLOBAL_THREADS: OnceLock<usize> = OnceLock::new();

/// One thread per core the system reports.
fn one_per_core() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU8};

    /// Runs a job that counts how often each group ran.
    fn count_runs(pool: &Pool, total: u64) -> Vec<u8> {
        let hits: Arc<Vec<AtomicU8>> = Arc::new((0..total).map(|_| AtomicU8::new(0)).collect());
        let seen = Arc::clone(&hits);
        let status = pool.run(
            total,
            Arc::new(move |first, end, _scratch: &mut Scratch| {
                for g in first..end {
                    seen[g as usize].fetch_add(1, Ordering::Relaxed);
                }
                0
            }),
        );
        assert_eq!(status, 0);
        hits.iter().map(|h| h.load(Ordering::Relaxed)).collect()
    }

    #[test]
    fn every_group_runs_exactly_once() {
        for threads in [1, 2, 4] {
            let pool = Pool::start(threads);
            for total in [1u64, 2, 3, 7, 64, 1000, 12345] {
                let runs = count_runs(&pool, total);
                assert!(
                    runs.iter().all(|&n| n == 1),
                    "threads {threads} total {total}"
                );
            }
        }
    }

    #[test]
    fn a_traced_job_runs_every_group_once_and_is_summed() {
        // Tracing on (other tests' jobs running meanwhile may be traced
        // too: it changes no result). Groups of 1 ms: the rest is shared
        // after the first, so workers' ranges are traced as well.
        pool_trace::set_enabled(true);
        let pool = Pool::start(3);
        let hits: Arc<Vec<AtomicU8>> = Arc::new((0..12).map(|_| AtomicU8::new(0)).collect());
        let seen = Arc::clone(&hits);
        let status = pool.run(
            12,
            Arc::new(move |first, end, _: &mut Scratch| {
                for g in first..end {
                    std::thread::sleep(Duration::from_millis(1));
                    seen[g as usize].fetch_add(1, Ordering::Relaxed);
                }
                0
            }),
        );
        assert_eq!(status, 0);
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        let words = pool_trace::report();
        assert!(words.starts_with("pool trace: "), "{words}");
    }

    #[test]
    fn a_job_is_dealt_in_parts_fixed_by_its_size_and_helpers() {
        // Three helpers, 100 groups, 10 run alone: cuts at 25, 50, 75.
        assert_eq!(
            deal_cuts(10, 100, 3),
            [(usize::MAX, 10, 25), (0, 25, 50), (1, 50, 75), (2, 75, 100)]
        );
        // The same job after a longer run alone: the same workers get the
        // same groups; the submitter's part is what is left of part 0.
        assert_eq!(
            deal_cuts(20, 100, 3),
            [(usize::MAX, 20, 25), (0, 25, 50), (1, 50, 75), (2, 75, 100)]
        );
        // Run alone past the first cut: the submitter's part is empty and
        // a part wholly run is not dealt.
        assert_eq!(
            deal_cuts(60, 100, 3),
            [(usize::MAX, 60, 60), (1, 60, 75), (2, 75, 100)]
        );
        // More helpers than groups: empty parts are not dealt.
        assert_eq!(
            deal_cuts(0, 3, 5),
            [(usize::MAX, 0, 0), (0, 0, 1), (2, 1, 2), (4, 2, 3)]
        );
        // Nothing to deal.
        assert_eq!(deal_cuts(5, 100, 0), [(usize::MAX, 5, 100)]);
        assert_eq!(deal_cuts(99, 100, 4), [(usize::MAX, 99, 100)]);
        assert_eq!(deal_cuts(100, 100, 4), [(usize::MAX, 100, 100)]);
    }

    #[test]
    fn dealt_parts_cover_every_group_once() {
        for total in [2u64, 3, 5, 16, 100, 257, 4096] {
            for start in [0, 1, total / 3, total / 2, total - 1] {
                for helpers in 0..9 {
                    let parts = deal_cuts(start, total, helpers);
                    let mut next = start;
                    for &(_, from, to) in &parts {
                        assert_eq!(from, next, "{start} {total} {helpers}: {parts:?}");
                        assert!(to >= from);
                        next = to;
                    }
                    assert_eq!(next, total, "{start} {total} {helpers}: {parts:?}");
                    let workers: Vec<usize> = parts[1..].iter().map(|p| p.0).collect();
                    assert!(workers.windows(2).all(|w| w[0] < w[1]));
                    assert!(workers.iter().all(|&w| w < helpers.max(1)));
                }
            }
        }
    }

    #[test]
    fn a_repeated_dealt_job_runs_every_group_once_a_launch_and_spreads() {
        // Groups of 2 ms: the submitter decides on helpers after its
        // first group and deals the rest to three workers (which of them
        // runs a part also depends on who is awake first, so only the
        // count and the spread are asserted; the cuts are above).
        let pool = Pool::start(4);
        for launch in 0..3 {
            let hits: Arc<Vec<AtomicU8>> = Arc::new((0..12).map(|_| AtomicU8::new(0)).collect());
            let names = Arc::new(Mutex::new(std::collections::HashSet::new()));
            let (seen, who) = (Arc::clone(&hits), Arc::clone(&names));
            let status = pool.run(
                12,
                Arc::new(move |first, end, _: &mut Scratch| {
                    for g in first..end {
                        std::thread::sleep(Duration::from_millis(2));
                        seen[g as usize].fetch_add(1, Ordering::Relaxed);
                    }
                    let name = std::thread::current()
                        .name()
                        .unwrap_or("caller")
                        .to_string();
                    who.lock().map(|mut s| s.insert(name)).ok();
                    0
                }),
            );
            assert_eq!(status, 0);
            assert!(
                hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                "launch {launch}"
            );
            let threads = names.lock().map(|s| s.len()).unwrap_or(0);
            assert!(
                threads >= 2,
                "launch {launch}: only {threads} thread(s) ran groups"
            );
        }
    }

    #[test]
    fn work_spreads_over_threads() {
        let pool = Pool::start(4);
        let names = Arc::new(Mutex::new(std::collections::HashSet::new()));
        let seen = Arc::clone(&names);
        pool.run(
            256,
            Arc::new(move |_, _, _: &mut Scratch| {
                std::thread::sleep(Duration::from_millis(1));
                let name = std::thread::current()
                    .name()
                    .unwrap_or("caller")
                    .to_string();
                seen.lock().map(|mut s| s.insert(name)).ok();
                0
            }),
        );
        let threads = names.lock().map(|s| s.len()).unwrap_or(0);
        assert!(threads >= 2, "only {threads} thread(s) ran groups");
    }

    #[test]
    fn a_waiting_thread_helps_run_published_groups() {
        // Groups run by the pool's threads wait until the waiting thread has
        // run one, so the job only completes quickly if `help_while` takes
        // published ranges; a generous timeout turns a failure into a status.
        // The first group, which the submitter runs alone and times, is
        // slow enough for the rest to be published.
        let pool = Pool::start(2);
        let helper = std::thread::current().id();
        let helped = Arc::new(AtomicBool::new(false));
        let hits: Arc<Vec<AtomicU8>> = Arc::new((0..64).map(|_| AtomicU8::new(0)).collect());
        let done = Arc::new(AtomicBool::new(false));
        let submitter = {
            let (pool, helped, hits, done) = (
                Arc::clone(&pool),
                Arc::clone(&helped),
                Arc::clone(&hits),
                Arc::clone(&done),
            );
            std::thread::spawn(move || {
                let status = pool.run(
                    64,
                    Arc::new(move |first, end, _: &mut Scratch| {
                        if std::thread::current().id() == helper {
                            helped.store(true, Ordering::SeqCst);
                        } else if first == 0 {
                            std::thread::sleep(Duration::from_millis(2));
                        } else {
                            let start = std::time::Instant::now();
                            while !helped.load(Ordering::SeqCst) {
                                if start.elapsed() > Duration::from_secs(20) {
                                    return 1;
                                }
                                std::thread::yield_now();
                            }
                        }
                        for g in first..end {
                            hits[g as usize].fetch_add(1, Ordering::Relaxed);
                        }
                        0
                    }),
                );
                done.store(true, Ordering::SeqCst);
                status
            })
        };
        while !done.load(Ordering::SeqCst) {
            pool.help_while(|| !done.load(Ordering::SeqCst));
        }
        assert_eq!(submitter.join().expect("submitter"), 0, "nobody helped");
        assert!(helped.load(Ordering::SeqCst));
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn helpers_are_woken_by_the_work_left() {
        let us = Duration::from_micros;
        // 10 groups in 10 µs, 90 left: 90 µs of work, four helpers' worth.
        assert_eq!(helpers_for(us(10), 10, 90, 63), 4);
        // ...at most the pool's other threads, and one per group left
        // beyond the submitter's own.
        assert_eq!(helpers_for(us(10), 10, 90, 2), 2);
        assert_eq!(helpers_for(us(1000), 1, 3, 63), 2);
        // Less than a helper's worth: nobody.
        assert_eq!(helpers_for(us(1), 1, 19, 63), 0);
        assert_eq!(helpers_for(us(100), 1, 1, 63), 0);
        assert_eq!(helpers_for(us(100), 0, 100, 63), 0);
    }

    #[test]
    fn a_thread_awake_is_worth_less_work_than_a_wake_up() {
        let us = Duration::from_micros;
        // 10 groups in 10 µs, 10 left: 10 µs, under a helper's worth but
        // worth a share for a thread that is already awake.
        assert_eq!(helpers_for(us(10), 10, 10, 63), 0);
        assert!(worth_a_hunter(us(10), 10, 10));
        assert!(worth_a_hunter(us(1), 1, 10));
        // Under HUNTER_WORK_NS left (a 5 µs launch: halves of 2.5 µs), no
        // estimate yet, or one group left: the submitter keeps it.
        assert!(!worth_a_hunter(us(1), 1, 9));
        assert!(!worth_a_hunter(Duration::from_nanos(60), 3, 253));
        assert!(!worth_a_hunter(us(100), 0, 100));
        assert!(!worth_a_hunter(us(100), 1, 1));
    }

    #[test]
    fn a_thread_in_help_while_gets_a_share_of_a_launch_too_small_to_wake_for() {
        // Launches of 64 groups of ~0.25 µs (~16 µs: no helper is woken
        // for them) while another thread waits in `help_while`: that
        // thread takes a published range of some of them. Its start is
        // not timed against the launches, so they are repeated until it
        // has helped once (the deadline only turns a failure into a
        // message).
        let pool = Pool::start(2);
        let stop = Arc::new(AtomicBool::new(false));
        let hunter_id = Arc::new(Mutex::new(None));
        let hunter = {
            let (pool, stop, hunter_id) =
                (Arc::clone(&pool), Arc::clone(&stop), Arc::clone(&hunter_id));
            std::thread::spawn(move || {
                *hunter_id.lock().expect("id") = Some(std::thread::current().id());
                while !stop.load(Ordering::SeqCst) {
                    pool.help_while(|| !stop.load(Ordering::SeqCst));
                }
            })
        };
        while hunter_id.lock().expect("id").is_none() {
            std::thread::yield_now();
        }
        let hunter_thread = hunter_id.lock().expect("id").expect("set");
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut helped = false;
        while !helped && Instant::now() < deadline {
            let hits: Arc<Vec<AtomicU8>> = Arc::new((0..64).map(|_| AtomicU8::new(0)).collect());
            let (seen, by_hunter) = (Arc::clone(&hits), Arc::new(AtomicBool::new(false)));
            let flag = Arc::clone(&by_hunter);
            let status = pool.run(
                64,
                Arc::new(move |first, end, _: &mut Scratch| {
                    if std::thread::current().id() == hunter_thread {
                        flag.store(true, Ordering::Relaxed);
                    }
                    for g in first..end {
                        let start = Instant::now();
                        while start.elapsed() < Duration::from_nanos(250) {
                            std::hint::spin_loop();
                        }
                        seen[g as usize].fetch_add(1, Ordering::Relaxed);
                    }
                    0
                }),
            );
            assert_eq!(status, 0);
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            helped = by_hunter.load(Ordering::Relaxed);
        }
        stop.store(true, Ordering::SeqCst);
        hunter.join().expect("hunter");
        assert!(helped, "the thread in help_while never got a range");
    }

    #[test]
    fn ranges_run_alone_grow_past_the_grain_only_while_cheap() {
        let ns = Duration::from_nanos;
        // Up to the grain: doubling, whatever the cost.
        assert_eq!(next_alone_step(1, 16, ns(1_000_000), 1), 2);
        assert_eq!(next_alone_step(8, 16, ns(1_000_000), 15), 16);
        // At the grain, dear groups (1 µs each): no further.
        assert_eq!(next_alone_step(16, 16, ns(31_000), 31), 16);
        // Cheap groups (20 ns each): doubling goes on while a range stays
        // under ALONE_RANGE_NS (250 groups here)...
        assert_eq!(next_alone_step(1, 1, ns(20), 1), 2);
        assert_eq!(next_alone_step(16, 16, ns(620), 31), 32);
        assert_eq!(next_alone_step(128, 16, ns(5_100), 255), 250);
        // ...and never more than doubles.
        assert_eq!(next_alone_step(2, 1, ns(1), 3), 4);
        // A grain of zero or no groups done yet still makes progress.
        assert_eq!(next_alone_step(1, 0, ns(0), 0), 1);
    }

    #[test]
    fn ranges_are_cut_to_the_measured_cost_only_when_dear() {
        let us = Duration::from_micros;
        // 65,536 groups on two threads: a grain of 4,096 groups. At 0.4 µs
        // a group that is 1.6 ms a range: cut to RANGE_NS (125 groups).
        assert_eq!(range_grain(4096, us(40), 100), 125);
        // Groups of 5 ns: 4,096 of them take 20 µs, under RANGE_NS: the
        // fraction stays.
        assert_eq!(range_grain(4096, us(5), 1000), 4096);
        // Groups dearer than RANGE_NS: one a range, never none.
        assert_eq!(range_grain(4, us(3_000), 1), 1);
        assert_eq!(range_grain(0, us(30), 10), 1);
        // Nothing measured: the fraction.
        assert_eq!(range_grain(64, us(0), 0), 64);
    }

    #[test]
    fn ranges_are_lengthened_to_be_worth_a_hand_off() {
        let ns = Duration::from_nanos;
        // 256 groups of 60 ns (a ~15 µs launch) on 16 threads: the
        // fraction is 2 groups (120 ns a range); lengthened to
        // MIN_RANGE_NS (41 groups), six ranges at most.
        assert_eq!(range_grain(2, ns(600), 10), 41);
        // The same launch on 64 threads: the same ranges.
        assert_eq!(range_grain(0, ns(600), 10), 41);
        // Groups of 80 ns on two threads (a FDTD launch): 16 groups are
        // 1.3 µs, lengthened to 31.
        assert_eq!(range_grain(16, ns(800), 10), 31);
        // Groups dearer than MIN_RANGE_NS: the fraction, cut to RANGE_NS
        // as before.
        assert_eq!(range_grain(8, us_(4), 1), 8);
        assert_eq!(range_grain(64, us_(4), 1), 12);
    }

    fn us_(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn a_launch_of_little_work_spreads_over_few_threads_of_a_large_pool() {
        // 256 groups of ~0.1 µs (~25 µs of work: a helper's worth) on a
        // pool of 16: the fraction would make 128 ranges of two groups;
        // lengthened to MIN_RANGE_NS, the groups run in about 2 × 25 /
        // 2.5 ranges after the alone phase's (1, 2, 4, …). Groups that
        // look dearer (the submitter descheduled while it times them)
        // make shorter ranges, so the fewest over 20 launches is counted.
        let pool = Pool::start(16);
        let mut fewest = u64::MAX;
        for _ in 0..20 {
            let ranges = Arc::new(AtomicU64::new(0));
            let seen = Arc::clone(&ranges);
            let status = pool.run(
                256,
                Arc::new(move |first, end, _: &mut Scratch| {
                    for _ in first..end {
                        let start = Instant::now();
                        while start.elapsed() < Duration::from_nanos(100) {
                            std::hint::spin_loop();
                        }
                    }
                    seen.fetch_add(1, Ordering::Relaxed);
                    0
                }),
            );
            assert_eq!(status, 0);
            fewest = fewest.min(ranges.load(Ordering::Relaxed));
        }
        assert!(fewest <= 40, "at best {fewest} ranges of 256 groups");
    }

    #[test]
    fn a_job_of_dear_groups_is_published_a_group_at_a_time() {
        // 64 groups of at least 200 µs on two threads: the fraction would
        // be 4 groups a range; the measured cost cuts it to one, so the
        // job's tail is one group (a slow host only makes the groups look
        // dearer, which cuts no differently).
        let pool = Pool::start(2);
        let longest = Arc::new(AtomicU64::new(0));
        let seen = Arc::clone(&longest);
        let status = pool.run(
            64,
            Arc::new(move |first, end, _: &mut Scratch| {
                for _ in first..end {
                    let start = Instant::now();
                    while start.elapsed() < Duration::from_micros(200) {
                        std::hint::spin_loop();
                    }
                }
                seen.fetch_max(end - first, Ordering::Relaxed);
                0
            }),
        );
        assert_eq!(status, 0);
        assert_eq!(longest.load(Ordering::Relaxed), 1);
    }

    /// Spins for `us` microseconds.
    fn spin_for(us: u64) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_micros(us) {
            std::hint::spin_loop();
        }
    }

    /// A launch of `kernel` whose first group waits (up to `patience`)
    /// for another group to start beside it; whether one did.
    fn first_group_had_company(pool: &Pool, kernel: usize, patience: Duration) -> bool {
        let started = Arc::new(AtomicBool::new(false));
        let company = Arc::new(AtomicBool::new(false));
        let (seen, had) = (Arc::clone(&started), Arc::clone(&company));
        let status = pool.run_for(
            kernel,
            8,
            Arc::new(move |first, end, _: &mut Scratch| {
                if first == 0 {
                    let start = Instant::now();
                    while !seen.load(Ordering::SeqCst) && start.elapsed() < patience {
                        std::thread::yield_now();
                    }
                    had.store(seen.load(Ordering::SeqCst), Ordering::SeqCst);
                    if end > 1 {
                        seen.store(true, Ordering::SeqCst);
                    }
                } else {
                    seen.store(true, Ordering::SeqCst);
                }
                0
            }),
        );
        assert_eq!(status, 0);
        company.load(Ordering::SeqCst)
    }

    #[test]
    fn a_kernel_of_dear_groups_gets_its_helpers_before_its_first_group() {
        let pool = Pool::start(2);
        let kernel = 0x1234_5678;
        // A launch whose first group takes 200 µs (a slow host only makes
        // it look dearer): the next launch of the kernel publishes its
        // other groups before running the first, so a helper starts one
        // while the first waits (the generous patience turns a failure
        // into a false, not a hang).
        pool.run_for(
            kernel,
            8,
            Arc::new(|_, _, _: &mut Scratch| {
                spin_for(200);
                0
            }),
        );
        assert!(first_group_had_company(
            &pool,
            kernel,
            Duration::from_secs(20)
        ));
    }

    #[test]
    fn cheap_or_unknown_kernels_still_run_their_first_groups_alone() {
        // Without a remembered dear first group the submitting thread runs
        // the first group alone: nothing is published while it runs, so no
        // other group can start beside it, whatever the patience.
        let pool = Pool::start(2);
        let patience = Duration::from_millis(20);
        assert!(!first_group_had_company(&pool, 0, patience));
        assert!(!first_group_had_company(&pool, 77, patience));
        // A kernel found dear, then cheap: alone again after the cheap one.
        pool.run_for(
            77,
            8,
            Arc::new(|_, _, _: &mut Scratch| {
                spin_for(200);
                0
            }),
        );
        pool.run_for(77, 8, Arc::new(|_, _, _: &mut Scratch| 0));
        assert!(!first_group_had_company(&pool, 77, patience));
        // Another kernel's dear groups say nothing of this one's (a probe
        // is itself a launch of a dear first group: a kernel of its own).
        pool.run_for(
            78,
            8,
            Arc::new(|_, _, _: &mut Scratch| {
                spin_for(200);
                0
            }),
        );
        assert!(!first_group_had_company(&pool, 79, patience));
    }

    #[test]
    fn a_cold_first_group_is_not_the_cost_per_group() {
        let us = Duration::from_micros;
        // A cheap first group: no decision on it; then the later ranges'
        // own time (2 groups in 0.1 µs) is the cost, not the first's 1 µs.
        let mut t = AloneTiming::default();
        assert_eq!(t.ran(us(1), 1).1, 0);
        let (elapsed, done) = t.ran(Duration::from_nanos(1_100), 3);
        assert_eq!((elapsed, done), (Duration::from_nanos(100), 2));
        assert_eq!(helpers_for(elapsed, done, 253, 15), 0);
        // A dear first group (200 µs) decides at once.
        let mut t = AloneTiming::default();
        let (elapsed, done) = t.ran(us(200), 1);
        assert_eq!((elapsed, done), (us(200), 1));
        assert_eq!(helpers_for(elapsed, done, 63, 3), 3);
    }

    #[test]
    fn a_chain_of_small_launches_wakes_nobody() {
        // 256 groups of tens of nanoseconds, launched again and again
        // (a few microseconds each): none is worth a helper, whether or
        // not the last launch left its lines in another core's cache.
        // Almost no launch may have run a group elsewhere (a preempted
        // range may make one look large).
        let pool = Pool::start(4);
        let data: Arc<Vec<AtomicU64>> = Arc::new((0..256).map(|_| AtomicU64::new(0)).collect());
        let here = std::thread::current().id();
        let shared = (0..200)
            .filter(|_| {
                let (data, elsewhere) = (Arc::clone(&data), Arc::new(AtomicBool::new(false)));
                let seen = Arc::clone(&elsewhere);
                let status = pool.run(
                    256,
                    Arc::new(move |first, end, _: &mut Scratch| {
                        if std::thread::current().id() != here {
                            seen.store(true, Ordering::Relaxed);
                        }
                        for g in first..end {
                            data[g as usize].fetch_add(1, Ordering::Relaxed);
                        }
                        0
                    }),
                );
                assert_eq!(status, 0);
                elsewhere.load(Ordering::Relaxed)
            })
            .count();
        assert!(data.iter().all(|d| d.load(Ordering::Relaxed) == 200));
        assert!(shared <= 20, "{shared} of 200 small launches woke a helper");
    }

    #[test]
    fn a_submitter_asleep_on_its_job_is_woken_by_the_helper_that_ends_it() {
        // Groups run by a worker are slow, so the submitter runs out of
        // work first and sleeps on the job; the worker that ends it must
        // wake it (a lost notification is a hang, caught by the timeout).
        let pool = Pool::start(2);
        let (tx, rx) = std::sync::mpsc::channel();
        let submitter = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || {
                let here = std::thread::current().id();
                for _ in 0..5 {
                    let hits: Arc<Vec<AtomicU8>> =
                        Arc::new((0..64).map(|_| AtomicU8::new(0)).collect());
                    let seen = Arc::clone(&hits);
                    let status = pool.run(
                        64,
                        Arc::new(move |first, end, _: &mut Scratch| {
                            if first == 0 {
                                // Dear enough to be worth a helper.
                                std::thread::sleep(Duration::from_millis(2));
                            } else if std::thread::current().id() != here {
                                std::thread::sleep(Duration::from_millis(5));
                            }
                            for g in first..end {
                                seen[g as usize].fetch_add(1, Ordering::Relaxed);
                            }
                            0
                        }),
                    );
                    let once = hits.iter().all(|h| h.load(Ordering::Relaxed) == 1);
                    let _ = tx.send((status, once));
                }
            })
        };
        for _ in 0..5 {
            let (status, once) = rx
                .recv_timeout(Duration::from_secs(20))
                .expect("the submitter was never woken");
            assert_eq!(status, 0);
            assert!(once, "every group runs exactly once");
        }
        submitter.join().expect("submitter");
    }

    #[test]
    fn a_job_finished_by_its_submitter_needs_no_wake_up() {
        // The submitter ran every group: the job is done when `run`
        // returns, and a later wait finds it so without sleeping.
        let pool = Pool::start(2);
        for _ in 0..100 {
            assert!(count_runs(&pool, 16).iter().all(|&n| n == 1));
        }
        let job = Job {
            body: Arc::new(|_, _, _: &mut Scratch| 0),
            remaining: AtomicU64::new(3),
            status: AtomicU32::new(0),
            grain: AtomicU64::new(1),
            wakes: AtomicUsize::new(0),
            done: Mutex::new(Done::default()),
            done_cond: Condvar::new(),
            trace: None,
        };
        let mut scratch = Scratch::new();
        job.execute(0, 3, &mut scratch);
        assert!(job.is_done());
        job.wait();
        let done = job.done.lock().expect("lock");
        assert!(done.finished && !done.waiting);
    }

    #[test]
    fn a_small_job_runs_on_the_submitting_thread_alone() {
        // 256 groups of a few nanoseconds: far less than a helper's worth,
        // so no worker is woken and every group runs here. A run the host
        // preempted long enough to look large may wake one: most of the
        // tries must not.
        let pool = Pool::start(4);
        let here = std::thread::current().id();
        let alone = (0..20)
            .filter(|_| {
                let elsewhere = Arc::new(AtomicU64::new(0));
                let seen = Arc::clone(&elsewhere);
                let status = pool.run(
                    256,
                    Arc::new(move |first, end, _: &mut Scratch| {
                        if std::thread::current().id() != here {
                            seen.fetch_add(end - first, Ordering::Relaxed);
                        }
                        0
                    }),
                );
                assert_eq!(status, 0);
                elsewhere.load(Ordering::Relaxed) == 0
            })
            .count();
        assert!(alone >= 10, "only {alone} of 20 small jobs ran alone");
    }

    #[test]
    fn a_job_whose_first_groups_are_cheap_still_gets_helpers() {
        // The first 16 groups (a stencil's border) cost nothing, the rest
        // 200 µs each: the estimate made while the job runs finds them.
        let pool = Pool::start(3);
        let names = Arc::new(Mutex::new(std::collections::HashSet::new()));
        let seen = Arc::clone(&names);
        let status = pool.run(
            64,
            Arc::new(move |first, end, _: &mut Scratch| {
                for g in first..end {
                    if g >= 16 {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                }
                let name = std::thread::current()
                    .name()
                    .unwrap_or("caller")
                    .to_string();
                seen.lock().map(|mut s| s.insert(name)).ok();
                0
            }),
        );
        assert_eq!(status, 0);
        let threads = names.lock().map(|s| s.len()).unwrap_or(0);
        assert!(threads >= 2, "only {threads} thread(s) ran groups");
    }

    /// Runs 64 groups of ~200 µs from a new thread, marked as a queue's
    /// executor when `extra`, and returns how many threads ran groups.
    fn threads_running_dear_job(pool: &Arc<Pool>, extra: bool) -> usize {
        let pool = Arc::clone(pool);
        std::thread::spawn(move || {
            if extra {
                mark_extra_submitter();
            }
            let names = Arc::new(Mutex::new(std::collections::HashSet::new()));
            let seen = Arc::clone(&names);
            let status = pool.run(
                64,
                Arc::new(move |first, end, _: &mut Scratch| {
                    for _ in first..end {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    let name = std::thread::current()
                        .name()
                        .unwrap_or("submitter")
                        .to_string();
                    seen.lock().map(|mut s| s.insert(name)).ok();
                    0
                }),
            );
            assert_eq!(status, 0);
            let threads = names.lock().map(|s| s.len()).unwrap_or(0);
            threads
        })
        .join()
        .expect("the submitting thread")
    }

    #[test]
    fn a_queue_executor_leaves_the_application_thread_its_core() {
        // Two threads, one per core: the executor and the application
        // thread that goes on running fill them, so no worker is woken.
        let pool = Pool::start(2);
        assert_eq!(threads_running_dear_job(&pool, true), 1);
        // The same job from a thread that is not an executor gets one.
        assert!(threads_running_dear_job(&pool, false) >= 2);
        // An application thread asleep on an event leaves its core free.
        let asleep = pool.waiter_asleep();
        assert!(threads_running_dear_job(&pool, true) >= 2);
        drop(asleep);
        assert_eq!(pool.waiters_asleep.load(Ordering::Relaxed), 0);
        assert_eq!(threads_running_dear_job(&pool, true), 1);
    }

    #[test]
    fn a_waiter_falling_asleep_wakes_a_worker_for_published_ranges() {
        let pool = Pool::start(2);
        // Let the worker park: nothing is published.
        std::thread::sleep(Duration::from_millis(20));
        let ran_on = Arc::new(Mutex::new(None::<String>));
        let seen = Arc::clone(&ran_on);
        let job = Arc::new(Job {
            body: Arc::new(move |_, _, _: &mut Scratch| {
                let name = std::thread::current().name().map(str::to_string);
                seen.lock().map(|mut s| *s = name).ok();
                0
            }),
            remaining: AtomicU64::new(1),
            status: AtomicU32::new(0),
            grain: AtomicU64::new(1),
            wakes: AtomicUsize::new(0),
            done: Mutex::new(Done::default()),
            done_cond: Condvar::new(),
            trace: None,
        });
        // Published with no wake-up, as for a thread looking for work.
        pool.publish(&job, 0, 1);
        assert_ne!(
            pool.sleeping[0].load(Ordering::SeqCst),
            0,
            "the worker sleeps"
        );
        let before = pool.unparks.load(Ordering::Relaxed);
        let asleep = pool.waiter_asleep();
        assert_eq!(pool.unparks.load(Ordering::Relaxed), before + 1);
        job.wait();
        drop(asleep);
        let name = ran_on.lock().ok().and_then(|s| s.clone());
        assert_eq!(name.as_deref(), Some("vecl-worker-0"));
        // Nothing published: falling asleep wakes nobody.
        std::thread::sleep(Duration::from_millis(20));
        let before = pool.unparks.load(Ordering::Relaxed);
        drop(pool.waiter_asleep());
        assert_eq!(pool.unparks.load(Ordering::Relaxed), before);
    }

    #[test]
    fn a_queue_executor_of_a_larger_pool_still_gets_helpers() {
        // Four threads: the executor may wake two (the pool's others
        // less the application thread's core).
        let pool = Pool::start(4);
        let threads = threads_running_dear_job(&pool, true);
        assert!(threads >= 2, "{threads} thread(s) ran groups");
        let extra = std::thread::spawn(|| {
            mark_extra_submitter();
            Pool::start(4).helper_cap()
        });
        assert_eq!(extra.join().expect("thread"), 2);
        assert_eq!(pool.helper_cap(), 3);
    }

    #[test]
    fn looking_for_work_pays_only_while_it_is_worth_its_shares() {
        let us = |n: u64| n * 1_000;
        // Nothing run yet: looking for up to the allowance.
        assert!(hunt_pays(0, 0));
        assert!(hunt_pays(HUNT_ALLOWANCE_NS, 0));
        assert!(!hunt_pays(HUNT_ALLOWANCE_NS + 1, 0));
        // Shares of 10 µs between looks of 4 µs (a FDTD launch's half
        // between the executor's launches): it goes on.
        assert!(hunt_pays(us(14_000), us(10_000)));
        // Slivers of 2 µs between looks of 4 µs (a chain of launches of
        // a few µs): it stops once the allowance is spent.
        assert!(hunt_pays(us(60), us(20)));
        assert!(!hunt_pays(us(6 * 100), us(2 * 100)));
        // Everything run, nothing looked for; and no overflow.
        assert!(hunt_pays(us(50), us(50)));
        assert!(hunt_pays(u64::MAX, u64::MAX));
        assert!(!hunt_pays(u64::MAX, 0));
    }

    #[test]
    fn a_waiter_fed_only_slivers_stops_looking_and_returns() {
        // Ranges of an empty body published one every ~30 µs: a waiter
        // finding a few nanoseconds of work between looks of tens of
        // microseconds returns from `help_while` while its condition
        // still holds (it would sleep on its event), instead of looking
        // as long as ranges keep coming. The stop flag is only a
        // deadline that turns a failure into a message.
        let pool = Pool::start(2);
        let job = Arc::new(Job {
            body: Arc::new(|_, _, _: &mut Scratch| 0),
            // Never finished: the ranges only count down.
            remaining: AtomicU64::new(u64::MAX / 2),
            status: AtomicU32::new(0),
            grain: AtomicU64::new(1),
            wakes: AtomicUsize::new(0),
            done: Mutex::new(Done::default()),
            done_cond: Condvar::new(),
            trace: None,
        });
        let stop = Arc::new(AtomicBool::new(false));
        let feeder = {
            let (pool, job, stop) = (Arc::clone(&pool), Arc::clone(&job), Arc::clone(&stop));
            std::thread::spawn(move || {
                let deadline = Instant::now() + Duration::from_secs(20);
                let mut next = 0;
                while !stop.load(Ordering::SeqCst) && Instant::now() < deadline {
                    pool.injector.push(Task {
                        job: Arc::clone(&job),
                        start: next,
                        end: next + 1,
                    });
                    next += 1;
                    spin_for(30);
                }
                stop.store(true, Ordering::SeqCst);
            })
        };
        pool.help_while(|| !stop.load(Ordering::SeqCst));
        let returned_by_itself = !stop.swap(true, Ordering::SeqCst);
        feeder.join().expect("feeder");
        assert!(returned_by_itself, "help_while looked until its deadline");
    }

    #[test]
    fn jobs_ended_by_a_helper_complete_through_the_spin_or_the_sleep() {
        // A job whose last range another thread ends within the spin
        // still completes with every group run once (the spin, the
        // sleep and the notification agree on who saw what).
        let pool = Pool::start(2);
        for _ in 0..200 {
            let runs = count_runs(&pool, 64);
            assert!(runs.iter().all(|&n| n == 1));
        }
    }

    #[test]
    fn helping_on_a_one_thread_pool_returns_at_once() {
        let pool = Pool::start(1);
        let asked = std::cell::Cell::new(0);
        pool.help_while(|| {
            asked.set(asked.get() + 1);
            true
        });
        assert_eq!(
            asked.get(),
            0,
            "a one-thread pool publishes nothing to help with"
        );
    }

    #[test]
    fn failure_status_is_reported_and_job_completes() {
        let pool = Pool::start(3);
        let status = pool.run(
            10_000,
            Arc::new(
                |first, end, _: &mut Scratch| if (first..end).contains(&5000) { 7 } else { 0 },
            ),
        );
        assert_eq!(status, 7);
        // The pool is still usable afterwards.
        assert!(count_runs(&pool, 500).iter().all(|&n| n == 1));
    }

    #[test]
    fn panicking_body_is_a_status_not_a_hang() {
        let pool = Pool::start(2);
        let status = pool.run(
            100,
            Arc::new(|first, _, _: &mut Scratch| {
                if first == 0 {
                    panic!("deliberate");
                }
                0
            }),
        );
        assert_eq!(status, STATUS_PANICKED);
    }

    #[test]
    fn scratch_arenas_are_aligned_and_reused() {
        let mut scratch = Scratch::new();
        let (l1, c1) = scratch.arenas(1000, 200).expect("arenas");
        assert_eq!(l1 as usize % 64, 0);
        assert_eq!(c1 as usize % 64, 0);
        let (l2, c2) = scratch.arenas(500, 100).expect("arenas");
        assert_eq!((l1, c1), (l2, c2));
        // Whole lines: no line of a thread's arenas holds anything else.
        let line = crate::host_alloc::ALIGN;
        assert_eq!(scratch.local.len() % line, 0);
        assert_eq!(scratch.context.len() % line, 0);
        assert_eq!(scratch.local.as_ptr() as usize % line, 0);
        assert_eq!(scratch.context.as_ptr() as usize % line, 0);
        assert!(scratch.arenas(usize::MAX - 1, 0).is_err());
        assert!(scratch.arenas(0, usize::MAX - 1).is_err());
    }

    #[test]
    fn concurrent_submitters_share_the_pool() {
        let pool = Pool::start(3);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for total in [5u64, 300, 4000] {
                        assert!(count_runs(&pool, total).iter().all(|&n| n == 1));
                    }
                });
            }
        });
    }
}

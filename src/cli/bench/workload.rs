//! What a benchmark is: a kernel, its arguments, its range, and a check of
//! its outputs against a host reference. Backends (vecl, other OpenCL
//! platforms) run the same [`Workload`] and hand back the output bytes.

/// One kernel argument of a benchmark.
pub enum ArgSpec {
    /// A buffer the kernel reads.
    In(Vec<u8>),
    /// A buffer the kernel reads and writes, reset to these bytes before
    /// every run; read back afterwards.
    InOut(Vec<u8>),
    /// A buffer of this many bytes the kernel writes; read back afterwards.
    Out(usize),
    /// A scalar or vector value.
    Scalar(Vec<u8>),
    /// A `__local` buffer of this many bytes.
    Local(usize),
}

/// Checks the outputs (the `InOut` and `Out` buffers, in argument order).
pub type Check = Box<dyn Fn(&[Vec<u8>]) -> Result<(), String>>;

/// What the benchmark reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// The median time of a run (enqueue to finish).
    RunTime,
    /// The time from source to the first result read back.
    FirstResult,
}

/// A benchmark.
pub struct Workload {
    /// Short name, e.g. `vadd`.
    pub name: &'static str,
    /// What the size means, e.g. `16M floats`.
    pub size: String,
    /// OpenCL C source.
    pub source: std::borrow::Cow<'static, str>,
    /// The kernel to run.
    pub kernel: &'static str,
    /// Arguments in order.
    pub args: Vec<ArgSpec>,
    /// Global size (1 to 3 dimensions).
    pub global: Vec<u64>,
    /// Local size, or `None` for the platform's choice.
    pub local: Option<Vec<u64>>,
    /// Timed runs, at least ([`timed_runs`] adds more for short kernels).
    pub reps: usize,
    /// Bytes a run reads and writes in global memory, for the kernels whose
    /// speed is a bandwidth (reported against the host copy's).
    pub bytes_moved: Option<u64>,
    /// What is reported.
    pub metric: Metric,
    /// The output check.
    pub check: Check,
}

/// The result of running a workload on one platform.
pub struct Measured {
    /// Wall-clock nanoseconds of each timed run.
    pub runs_ns: Vec<u64>,
    /// Nanoseconds from the source to the first result read back.
    pub first_result_ns: u64,
    /// Output bytes of the last run.
    pub outputs: Vec<Vec<u8>>,
}

/// Something that runs workloads: vecl itself, or another OpenCL platform.
pub trait Backend {
    /// The platform's name as reports show it.
    fn label(&self) -> String;
    /// Builds and runs `work`: with `warm_up`, a first run, the untimed
    /// runs of [`warm_up`], then the [`timed_runs`] of `work.reps`; without, the first
    /// run only, timed.
    fn run(&mut self, work: &Workload, warm_up: bool) -> Result<Measured, String>;
}

/// Untimed runs after the first: at most this many more...
pub const WARM_UP_RUNS: u32 = 7;
/// ...stopping early once this much time has passed since the first began.
pub const WARM_UP_TIME: std::time::Duration = std::time::Duration::from_millis(250);

/// Runs `run_once` until [`WARM_UP_RUNS`] more runs have been made or
/// [`WARM_UP_TIME`] has passed since `first_began`, whichever comes first.
///
/// Buffers just allocated are slow to stream through for their first few
/// passes on some hosts, whichever code reads them: a hand-written
/// two-thread vector add over 16M floats took 5.6–9.7 ms for each of its
/// first 3–5 passes over fresh buffers and 3.7 ms from then on, in one
/// process, buffer set after buffer set. The timed runs measure the
/// platforms, not that; compute-bound workloads long enough to pass the
/// time limit in one run stop after it. Every backend warms up the same
/// way.
pub fn warm_up(
    first_began: std::time::Instant,
    mut run_once: impl FnMut() -> Result<u64, String>,
) -> Result<(), String> {
    for _ in 0..WARM_UP_RUNS {
        if first_began.elapsed() >= WARM_UP_TIME {
            break;
        }
        run_once()?;
    }
    Ok(())
}

/// Timed runs go on past the workload's `reps` until they add up to this
/// much...
pub const TIMED_TIME: std::time::Duration = std::time::Duration::from_millis(150);
/// ...or this many runs have been made, whichever comes first.
pub const MAX_TIMED_RUNS: usize = 101;

/// The timed runs of a workload: at least `reps` (one if 0), then more
/// until their sum reaches [`TIMED_TIME`], at most [`MAX_TIMED_RUNS`].
///
/// A median of five runs is a fair figure for a kernel of tens of
/// milliseconds, but not for one of half a millisecond on a host of 64
/// threads, where one run in five may lose a thread to another process:
/// the same build's medians moved by more than 10 % between runs there
/// (`docs/measurements.md`). Short kernels get more runs for the same
/// steadiness; every platform is timed by the same rule.
pub fn timed_runs(
    reps: usize,
    mut run_once: impl FnMut() -> Result<u64, String>,
) -> Result<Vec<u64>, String> {
    let reps = reps.max(1);
    let mut runs = Vec::with_capacity(reps);
    let mut total: u128 = 0;
    while runs.len() < reps
        || (total < TIMED_TIME.as_nanos() && runs.len() < MAX_TIMED_RUNS.max(reps))
    {
        let ns = run_once()?;
        total += u128::from(ns);
        runs.push(ns);
    }
    Ok(runs)
}

/// The median of some durations (0 for none).
pub fn median(values: &[u64]) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    match sorted.len() {
        0 => 0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_runs_take_at_least_reps_and_stop_at_the_time_or_count() {
        // Long runs: the reps alone.
        let long = timed_runs(5, || Ok(TIMED_TIME.as_nanos() as u64)).unwrap();
        assert_eq!(long.len(), 5);
        // Short runs: more, until the time is reached.
        let step = TIMED_TIME.as_nanos() as u64 / 20;
        let short = timed_runs(5, || Ok(step)).unwrap();
        assert_eq!(short.len(), 20);
        // Very short runs: capped.
        let tiny = timed_runs(5, || Ok(1)).unwrap();
        assert_eq!(tiny.len(), MAX_TIMED_RUNS);
        // An error stops at once.
        let mut n = 0;
        let failed = timed_runs(5, || {
            n += 1;
            if n == 3 {
                Err("boom".to_string())
            } else {
                Ok(1)
            }
        });
        assert_eq!(failed, Err("boom".to_string()));
        assert_eq!(
            timed_runs(0, || Ok(TIMED_TIME.as_nanos() as u64))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), 0);
        assert_eq!(median(&[5, 1, 3]), 3);
        assert_eq!(median(&[4, 1, 3, 2]), 2);
    }
}

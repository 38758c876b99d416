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
    /// Timed runs.
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
    /// runs of [`warm_up`], then `work.reps` timed runs; without, the first
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
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), 0);
        assert_eq!(median(&[5, 1, 3]), 3);
        assert_eq!(median(&[4, 1, 3, 2]), 2);
    }
}

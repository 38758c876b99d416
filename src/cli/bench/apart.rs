//! Each platform's kernel rows measured in a process of its own.
//!
//! A driver's threads outlive the work they were given: PoCL's workers
//! spin after their last command, and a process that has created a
//! context on a platform keeps that platform's threads until it exits
//! (releasing the context and its queues does not end them). Measured
//! one after another in one process, every platform's rows ran beside
//! the threads of the platforms measured before them: on a 16-core host
//! saxpy took 1.38 ms in a full run and 0.83–0.91 ms alone, and the
//! process's CPU time per launch of vecl's launch chain was ~600 µs while
//! PoCL's threads spun (`docs/measurements.md`). So `vecl bench` measures
//! nothing itself: a child process (`vecl bench-kernels`) lists the
//! platforms, and one child per platform runs every selected kernel on
//! it (vecl's three safety levels in one child: they share vecl's pool),
//! sending each result back as a JSON line as soon as it is measured. A
//! driver that crashes or hangs loses its own remaining rows, each with
//! a line saying what happened, and nothing else.

use super::opencl_backend;
use super::report::PlatformResult;
use super::vecl_backend::VeclBackend;
use super::workload::{median, Backend, Metric, Workload};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The label of the child that measures vecl (its three safety levels).
pub const VECL: &str = VeclBackend::LABEL;

/// A platform the kernel rows are measured on, as the listing child
/// reported it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Listed {
    /// The label of its column (`PoCL`, `Intel`, …).
    pub label: String,
    /// The platform's and its device's names.
    pub description: String,
}

/// One line a measuring child prints: a kernel row's result on one of
/// its platform's columns.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    /// The workload's name.
    work: String,
    result: PlatformResult,
}

/// The columns a platform's child fills, in report order.
pub fn columns(platform: &str) -> Vec<String> {
    if platform == VECL {
        vec![
            VECL.to_string(),
            format!("{VECL} robust"),
            format!("{VECL} checked"),
        ]
    } else {
        vec![platform.to_string()]
    }
}

/// How many times the full run measures each platform's kernel rows: one
/// child per platform per round, the platforms in their order in the
/// even rounds and in the reverse order in the odd ones, each round's
/// timed runs pooled ([`combine_rounds`]).
///
/// Measured once, in one order, the platforms' rows were minutes apart,
/// and on the 2-core development machine the memory's speed moved in
/// minutes for every process at once: vadd took 3.0 ms on Intel's
/// runtime and 2.5 ms on vecl in one run, and 5.3–5.5 ms on Intel and
/// 4.3–4.5 ms on vecl ten minutes later, so a memory-bound row's ratio
/// depended on which platform's turn fell in a slow stretch. Two rounds
/// in mirrored orders put every platform on both sides of such a drift.
pub const ROUNDS: usize = 2;

/// The platforms' order in round `round` of [`ROUNDS`]: as given in even
/// rounds, reversed in odd ones.
pub fn round_order<T: Clone>(platforms: &[T], round: usize) -> Vec<T> {
    let mut order = platforms.to_vec();
    if round % 2 == 1 {
        order.reverse();
    }
    order
}

/// One result out of a row's results in each round on one column: the
/// timed runs of every round pooled and their median taken (for a
/// first-result row, whose median is one measured time, the median of
/// the rounds' times). A round that failed, or whose output was wrong,
/// decides the result: a platform that failed once is reported as
/// failing, with the round named.
pub fn combine_rounds(mut rounds: Vec<PlatformResult>, metric: Metric) -> Option<PlatformResult> {
    if rounds.len() <= 1 {
        return rounds.pop();
    }
    if let Some(bad) = rounds
        .iter()
        .position(|r| r.median_ns.is_none() || !r.verified)
    {
        let mut result = rounds.swap_remove(bad);
        result.status = format!(
            "round {} of {}: {}",
            bad + 1,
            rounds.len() + 1,
            result.status
        );
        return Some(result);
    }
    let medians: Vec<u64> = rounds.iter().filter_map(|r| r.median_ns).collect();
    let mut combined = rounds.remove(0);
    for round in rounds {
        combined.runs_ns.extend(round.runs_ns);
    }
    combined.median_ns = Some(match metric {
        Metric::RunTime => median(&combined.runs_ns),
        Metric::FirstResult => median(&medians),
    });
    Some(combined)
}

/// How long a child may go without sending a result before it is deemed
/// hung: PoCL's one-thread matmul takes ~3 s a run, so a row (a build, a
/// first run, warm-up and five timed runs) may take half a minute there.
fn result_timeout(quick: bool) -> Duration {
    Duration::from_secs(if quick { 120 } else { 600 })
}

// ---------------------------------------------------------------------------
// The parent.
// ---------------------------------------------------------------------------

/// The other platforms the ICD loader lists (vecl's own ICD left out), each
/// with a context and a queue that could be created, found by a child
/// process (a loader or driver that crashes takes only that child); or why
/// there are none.
pub fn list(quick: bool) -> Result<Vec<Listed>, String> {
    let mut command = self_command()?;
    command.args(["bench-kernels", "--list"]);
    let mut listed = None;
    let ended = run_child(command, result_timeout(quick), |line| {
        listed = Some(serde_json::from_str::<Vec<Listed>>(line));
        true
    });
    match (listed, ended) {
        (Some(Ok(listed)), _) => Ok(listed),
        (Some(Err(e)), _) => Err(format!("unreadable platform list: {e}")),
        (None, Err(why)) => Err(format!("listing the platforms failed: {why}")),
        (None, Ok(())) => Err("listing the platforms gave no answer".into()),
    }
}

/// Runs `workloads` on `platform` in a child process. `on_result` hears of
/// each result as it comes, by workload and column, and of those that will
/// not come (a crash, a hang) with a failed result saying why.
pub fn measure(
    platform: &str,
    workloads: &[&str],
    quick: bool,
    only: Option<&str>,
    on_result: impl FnMut(&str, PlatformResult),
) {
    let columns = columns(platform);
    let command = self_command().map(|mut command| {
        command.args(["bench-kernels", "--platform", platform]);
        if quick {
            command.arg("--quick");
        }
        if let Some(only) = only {
            command.args(["--only", only]);
        }
        command
    });
    collect(
        command,
        workloads,
        &columns,
        result_timeout(quick),
        on_result,
    );
}

/// Runs the measuring child `command` and hands each result it sends to
/// `on_result`; then a failed result, saying why, for each pair of
/// `workloads` and `columns` it did not send.
fn collect(
    command: Result<Command, String>,
    workloads: &[&str],
    columns: &[String],
    timeout: Duration,
    mut on_result: impl FnMut(&str, PlatformResult),
) {
    let mut expected: Vec<(String, String)> = workloads
        .iter()
        .flat_map(|w| columns.iter().map(move |c| (w.to_string(), c.clone())))
        .collect();
    expected.reverse();
    let ended = command.and_then(|command| {
        run_child(command, timeout, |line| {
            let Ok(line) = serde_json::from_str::<Line>(line) else {
                // Not a result (a driver's own output on stdout).
                return false;
            };
            expected.retain(|(w, c)| !(*w == line.work && *c == line.result.platform));
            on_result(&line.work, line.result);
            false
        })
    });
    let why = match ended {
        Ok(()) => "the measuring process ended without this result".to_string(),
        Err(why) => why,
    };
    while let Some((work, column)) = expected.pop() {
        on_result(&work, PlatformResult::failed(&column, &why));
    }
}

/// `vecl` itself, to be started again as a child.
fn self_command() -> Result<Command, String> {
    std::env::current_exe()
        .map(Command::new)
        .map_err(|e| format!("cannot find the vecl binary: {e}"))
}

/// Runs the child, handing each line of its standard output to `line`
/// (which returns true once it has heard enough); its standard error
/// goes on to ours. `Ok` when it exited normally, else what happened: a
/// signal (a driver's crash), an exit code with its last lines of
/// standard error, or no output for `timeout` (then it is killed).
pub(super) fn run_child(
    mut command: Command,
    timeout: Duration,
    mut line: impl FnMut(&str) -> bool,
) -> Result<(), String> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start the measuring process: {e}"))?;
    let (sender, lines) = mpsc::channel();
    let stdout = child.stdout.take();
    std::thread::spawn(move || {
        if let Some(stdout) = stdout {
            for text in BufReader::new(stdout).lines() {
                let Ok(text) = text else { break };
                if sender.send(text).is_err() {
                    break;
                }
            }
        }
    });
    // Standard error passes through (a driver's warnings stay visible, as
    // when it ran in this process); its last lines are kept for a failure.
    let stderr = child.stderr.take();
    let stderr = std::thread::spawn(move || {
        let mut kept = String::new();
        if let Some(mut stderr) = stderr {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let _ = std::io::stderr().write_all(&buffer[..n]);
                kept.push_str(&String::from_utf8_lossy(&buffer[..n]));
                if kept.len() > 64 << 10 {
                    kept.drain(..kept.len() - (16 << 10));
                }
            }
        }
        kept
    });
    let mut heard_enough = false;
    loop {
        match lines.recv_timeout(timeout) {
            Ok(text) => {
                if !heard_enough && !text.trim().is_empty() {
                    heard_enough = line(&text);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "no result within {} s (hung?): the measuring process was killed",
                    timeout.as_secs()
                ));
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for the measuring process: {e}"))?;
    let tail = stderr_tail(&stderr.join().unwrap_or_default());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{}{tail}", describe_exit(status)))
    }
}

/// The last lines of a child's standard error, to append to a failure.
fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(3)..];
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {}", tail.join(" / "))
    }
}

/// A failed child's exit: the signal that killed it, or its code.
fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (_, Some(signal)) => {
            let name = match signal {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            format!("the driver crashed the measuring process: signal {signal}{name}")
        }
        (Some(code), None) => format!("the measuring process exited with code {code}"),
        (None, None) => format!("the measuring process ended: {status}"),
    }
}

// ---------------------------------------------------------------------------
// The children.
// ---------------------------------------------------------------------------

/// `vecl bench-kernels --list`: the platforms as one JSON line.
pub fn list_child() -> Result<String, String> {
    let found = opencl_backend::discover()?;
    let listed: Vec<Listed> = found
        .iter()
        .map(|b| Listed {
            label: b.label(),
            description: b.description.clone(),
        })
        .collect();
    serde_json::to_string(&listed)
        .map(|json| format!("{json}\n"))
        .map_err(|e| e.to_string())
}

/// `vecl bench-kernels --platform LABEL`: every workload `selected` keeps,
/// on each of the platform's columns, each result printed as a JSON line
/// once measured.
pub fn measure_child(
    platform: &str,
    quick: bool,
    selected: impl Fn(&str) -> bool,
) -> Result<String, String> {
    let mut backends: Vec<Box<dyn Backend>> = if platform == VECL {
        let mut vecl: Vec<Box<dyn Backend>> = Vec::new();
        for safety in [
            vecl::Safety::Unchecked,
            vecl::Safety::Robust,
            vecl::Safety::Checked,
        ] {
            vecl.push(Box::new(VeclBackend::new(safety)?));
        }
        vecl
    } else {
        vec![Box::new(opencl_backend::open(platform)?)]
    };
    let workloads: Vec<Workload> = super::suite::workloads_where(quick, selected);
    let mut out = std::io::stdout().lock();
    for work in &workloads {
        for backend in backends.iter_mut() {
            let line = Line {
                work: work.name.to_string(),
                result: measure_one(work, backend.as_mut(), quick),
            };
            let json = serde_json::to_string(&line).map_err(|e| e.to_string())?;
            writeln!(out, "{json}")
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot send a result: {e}"))?;
        }
    }
    Ok(String::new())
}

/// `work` on `backend`: the median (or the first-result time), the runs
/// and the output's check. The bandwidth is the parent's to add (it
/// measured the host copy).
fn measure_one(work: &Workload, backend: &mut dyn Backend, quick: bool) -> PlatformResult {
    let warm_up = work.metric == Metric::RunTime && !quick;
    match backend.run(work, warm_up) {
        Ok(measured) => {
            let checked = (work.check)(&measured.outputs);
            let median_ns = match work.metric {
                Metric::RunTime => median(&measured.runs_ns),
                Metric::FirstResult => measured.first_result_ns,
            };
            PlatformResult {
                platform: backend.label(),
                median_ns: Some(median_ns),
                runs_ns: measured.runs_ns,
                verified: checked.is_ok(),
                status: checked
                    .err()
                    .map_or_else(|| "ok".to_string(), |e| format!("wrong output: {e}")),
                bandwidth_gb_s: None,
                percent_of_copy: None,
                engine: None,
            }
        }
        Err(why) => PlatformResult::failed(&backend.label(), &why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(runs: &[u64], median_ns: u64) -> PlatformResult {
        PlatformResult::single("p", runs.to_vec(), median_ns)
    }

    #[test]
    fn odd_rounds_take_the_platforms_in_reverse() {
        let platforms = ["vecl", "PoCL", "Intel"];
        assert_eq!(round_order(&platforms, 0), ["vecl", "PoCL", "Intel"]);
        assert_eq!(round_order(&platforms, 1), ["Intel", "PoCL", "vecl"]);
        assert_eq!(round_order(&platforms, 2), ["vecl", "PoCL", "Intel"]);
    }

    #[test]
    fn rounds_pool_their_runs_for_the_median() {
        let first = ok(&[10, 11, 12], 11);
        let second = ok(&[20, 21, 22, 23], 21);
        let combined = combine_rounds(vec![first, second], Metric::RunTime).unwrap();
        assert_eq!(combined.runs_ns, [10, 11, 12, 20, 21, 22, 23]);
        assert_eq!(combined.median_ns, Some(20));
        assert_eq!(combined.status, "ok");
    }

    #[test]
    fn a_first_result_row_takes_the_median_of_the_rounds_times() {
        // The runs of a first-result row are its first kernel runs, not
        // the times reported.
        let combined =
            combine_rounds(vec![ok(&[5], 1_000), ok(&[7], 3_000)], Metric::FirstResult).unwrap();
        assert_eq!(combined.median_ns, Some(2_000));
    }

    #[test]
    fn a_round_that_failed_or_was_wrong_decides_the_result() {
        let failed = PlatformResult::failed("p", "the child crashed");
        let combined = combine_rounds(vec![ok(&[1, 2, 3], 2), failed], Metric::RunTime).unwrap();
        assert_eq!(combined.median_ns, None);
        assert_eq!(combined.status, "round 2 of 2: the child crashed");

        let mut wrong = ok(&[4], 4);
        wrong.verified = false;
        wrong.status = "wrong output: c[3]".into();
        let combined = combine_rounds(vec![wrong, ok(&[1], 1)], Metric::RunTime).unwrap();
        assert!(!combined.verified);
        assert_eq!(combined.status, "round 1 of 2: wrong output: c[3]");
    }

    #[test]
    fn one_round_is_passed_through_and_none_gives_none() {
        let one = combine_rounds(vec![ok(&[3, 1, 2], 2)], Metric::RunTime).unwrap();
        assert_eq!(one.runs_ns, [3, 1, 2]);
        assert!(combine_rounds(Vec::new(), Metric::RunTime).is_none());
    }

    #[test]
    fn vecl_fills_three_columns_and_others_one() {
        assert_eq!(columns("vecl"), ["vecl", "vecl robust", "vecl checked"]);
        assert_eq!(columns("PoCL"), ["PoCL"]);
    }

    #[test]
    fn a_child_that_crashes_or_hangs_is_a_line_not_a_failure_of_the_parent() {
        // A shell stands in for the measuring child.
        let sh = |script: &str| {
            let mut c = Command::new("sh");
            c.args(["-c", script]);
            c
        };
        let mut heard = Vec::new();
        let ended = run_child(
            sh("echo one; echo two; kill -SEGV $$"),
            Duration::from_secs(20),
            |l| {
                heard.push(l.to_string());
                false
            },
        );
        assert_eq!(heard, ["one", "two"]);
        let why = ended.unwrap_err();
        assert!(why.contains("signal 11 (SIGSEGV)"), "{why}");

        let ended = run_child(sh("echo oops >&2; exit 3"), Duration::from_secs(20), |_| {
            false
        });
        let why = ended.unwrap_err();
        assert!(
            why.contains("exited with code 3") && why.contains("oops"),
            "{why}"
        );

        let ended = run_child(
            sh("echo start; sleep 30"),
            Duration::from_millis(300),
            |_| false,
        );
        assert!(ended.unwrap_err().contains("hung?"));

        assert_eq!(
            run_child(sh("true"), Duration::from_secs(20), |_| false),
            Ok(())
        );
    }

    #[test]
    fn a_crash_fails_the_rows_not_yet_sent_and_keeps_those_sent() {
        // A shell stands in for PoCL's child: one result, then a crash.
        let sent = Line {
            work: "vadd".into(),
            result: PlatformResult::single("PoCL", vec![5], 5),
        };
        let script = format!(
            "echo 'a driver says hello'; echo '{}'; kill -SEGV $$",
            serde_json::to_string(&sent).unwrap()
        );
        let mut command = Command::new("sh");
        command.args(["-c", &script]);
        let mut got = Vec::new();
        collect(
            Ok(command),
            &["vadd", "saxpy", "scan"],
            &columns("PoCL"),
            Duration::from_secs(20),
            |work, result| got.push((work.to_string(), result)),
        );
        let names: Vec<&str> = got.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(names, ["vadd", "saxpy", "scan"]);
        assert_eq!(got[0].1.median_ns, Some(5));
        for (_, failed) in &got[1..] {
            assert_eq!(failed.platform, "PoCL");
            assert!(failed.median_ns.is_none() && !failed.verified);
            assert!(failed.status.contains("SIGSEGV"), "{}", failed.status);
        }
        // A child that cannot be started fails every row with the reason.
        let mut got = Vec::new();
        collect(
            Err("cannot find the vecl binary".into()),
            &["vadd"],
            &columns("vecl"),
            Duration::from_secs(20),
            |work, result| got.push((work.to_string(), result)),
        );
        assert_eq!(got.len(), 3);
        assert!(got
            .iter()
            .all(|(_, r)| r.status == "cannot find the vecl binary"));
    }

    #[test]
    fn result_lines_round_trip() {
        let line = Line {
            work: "vadd".into(),
            result: PlatformResult::single("PoCL", vec![3, 1, 2], 2),
        };
        let json = serde_json::to_string(&line).unwrap();
        let back: Line = serde_json::from_str(&json).unwrap();
        assert_eq!(back.work, "vadd");
        assert_eq!(back.result.median_ns, Some(2));
        assert_eq!(back.result.platform, "PoCL");
    }
}

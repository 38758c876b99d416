//! `vecl bench`: the kernel suite of `benches/` on vecl and on every other
//! OpenCL platform the ICD loader finds, in one run, each output checked
//! against a host reference, with medians, ratios, a JSON report and an SVG
//! chart in `bench-out/`. The command engine's rows (small-command
//! throughput from several threads, non-blocking enqueue latency) follow,
//! measured on every platform through its C driver, vecl's `libvecl.so`
//! included, each in a child process. Rows measured once sit beside the
//! kernels: the host copy that vadd's and saxpy's bandwidths are compared
//! with, vecl's front end on the corpus's longest program, and vecl's
//! compile times.

mod apart;
mod commands;
mod compile_times;
mod copy;
pub(crate) mod opencl_backend;
mod report;
mod suite;
pub(crate) mod vecl_backend;
pub(crate) mod workload;

use indicatif::{ProgressBar, ProgressStyle};
use report::{BenchResult, Detail, PlatformResult, Report};
use std::path::Path;
use workload::{median, Metric};

/// The row of the host copy, the bandwidth reference.
const COPY_ROW: &str = "host copy (reference)";
/// The row of the front end on the corpus's longest program.
const FRONT_END_ROW: &str = "front end, longest corpus";
/// The rows of compile time per kernel.
const SUITE_COMPILE_ROW: &str = "compile, bench kernels";
const CORPUS_COMPILE_ROW: &str = "compile, corpus";
/// The corpus compiled to SPIR-V first, through the IL path.
const CORPUS_SPIRV_COMPILE_ROW: &str = "compile, corpus via SPIR-V";

/// Compiles of each kernel in a full run; the best counts, so that a loaded
/// machine's preemptions do not.
const COMPILE_REPS: usize = 5;

/// The front end's aim: under 1 ms for a program of 200 lines.
const AIM_FRONT_END_MS_PER_200_LINES: f64 = 1.0;

/// Whether `--only`'s value selects the row `name`: it contains one of
/// the value's comma-separated parts (`vadd,saxpy,blackscholes`).
fn selects(only: &str, name: &str) -> bool {
    only.split(',')
        .map(str::trim)
        .any(|part| !part.is_empty() && name.contains(part))
}

/// Runs the suite and writes the report into `out_dir`, the kernel rows
/// in `rounds` rounds (default [`apart::ROUNDS`], one with `quick`).
pub fn run(
    quick: bool,
    only: Option<&str>,
    rounds: Option<usize>,
    out_dir: &Path,
) -> Result<Report, String> {
    // A report that cannot be written is an error before the run, not
    // after minutes of measuring.
    std::fs::create_dir_all(out_dir)
        .and_then(|()| {
            let probe = out_dir.join(".vecl-bench-probe");
            std::fs::write(&probe, b"")?;
            std::fs::remove_file(probe)
        })
        .map_err(|e| format!("cannot write the report to {}: {e}", out_dir.display()))?;
    // Each platform is measured in a child process of its own (`apart`):
    // this one loads no driver and runs no kernel of the suite.
    let mut platforms: Vec<String> = apart::columns(apart::VECL);
    // The command rows measure C drivers through the ICD loader, where vecl
    // is one platform (unchecked unless a build asks for checks); its other
    // safety modes are rows of the kernel benchmarks only.
    let library_only: Vec<String> = platforms[1..].to_vec();
    let mut measured_platforms = vec![apart::VECL.to_string()];
    let mut notes = Vec::new();
    match apart::list(quick) {
        Ok(found) => {
            for p in found {
                notes.push(format!("{}: {}", p.label, p.description));
                platforms.push(p.label.clone());
                measured_platforms.push(p.label);
            }
        }
        Err(why) => notes.push(format!("no other OpenCL platform measured: {why}")),
    }
    if quick {
        notes.push(
            "--quick: small sizes and no warm-up run, so each time includes what a platform does at a kernel's first launch (lazy compilation, first touch of memory); use the full run for ratios".to_string(),
        );
    }
    let selected = |name: &str| only.is_none_or(|o| selects(o, name));
    // The children measure the workloads; this process keeps their names,
    // sizes and shapes, not their inputs and references (a gigabyte or
    // more at the full sizes).
    let workloads: Vec<_> = suite::workloads_where(quick, selected)
        .into_iter()
        .map(|mut w| {
            w.args = Vec::new();
            w.check = Box::new(|_| Ok(()));
            w
        })
        .collect();
    let with_copy = selected(COPY_ROW) || workloads.iter().any(|w| bandwidth_bytes(w).is_some());
    let once_rows: Vec<&str> = [
        FRONT_END_ROW,
        SUITE_COMPILE_ROW,
        CORPUS_COMPILE_ROW,
        CORPUS_SPIRV_COMPILE_ROW,
    ]
    .into_iter()
    .filter(|name| selected(name))
    .collect();
    let engine_rows: Vec<commands::EngineRow> = commands::ROWS
        .into_iter()
        .filter(|row| selected(row.name()))
        .collect();
    if workloads.is_empty() && !with_copy && once_rows.is_empty() && engine_rows.is_empty() {
        let mut names: Vec<&str> = suite::workloads(quick).iter().map(|w| w.name).collect();
        names.extend([
            COPY_ROW,
            FRONT_END_ROW,
            SUITE_COMPILE_ROW,
            CORPUS_COMPILE_ROW,
            CORPUS_SPIRV_COMPILE_ROW,
        ]);
        names.extend(commands::ROWS.iter().map(|row| row.name()));
        return Err(format!(
            "--only {:?} matches no row; the rows are: {}",
            only.unwrap_or(""),
            names.join("; ")
        ));
    }
    let rounds = rounds
        .unwrap_or(if quick { 1 } else { apart::ROUNDS })
        .max(1);
    let driver_platforms: Vec<&String> = platforms
        .iter()
        .filter(|p| !library_only.contains(p))
        .collect();
    let progress = ProgressBar::new(
        (workloads.len() * platforms.len() * rounds
            + engine_rows.len() * driver_platforms.len()
            + usize::from(with_copy)
            + once_rows.len()) as u64,
    );
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
        progress.set_style(style);
    }
    // The copy runs first: the kernels' bandwidths are reported against it.
    let copy = with_copy.then(|| {
        progress.set_message(COPY_ROW);
        let row = copy_row(quick);
        progress.inc(1);
        row
    });
    let copy_gb_s = copy.as_ref().and_then(|row| match row.detail {
        Some(Detail::Copy { bandwidth_gb_s, .. }) => Some(bandwidth_gb_s),
        _ => None,
    });
    // Every platform's rows, one child process per platform; each result
    // is filed under its workload and column as it comes.
    let names: Vec<&str> = workloads.iter().map(|w| w.name).collect();
    let mut measured: Vec<Vec<Vec<PlatformResult>>> =
        vec![vec![Vec::new(); platforms.len()]; names.len()];
    for platform in (0..rounds).flat_map(|round| apart::round_order(&measured_platforms, round)) {
        let platform = &platform;
        let mut next = names.first().map(|w| (*w, 0));
        let columns = apart::columns(platform);
        if let Some((work, _)) = next {
            progress.set_message(format!("{work} on {platform}"));
        }
        apart::measure(platform, &names, quick, only, |work, result| {
            let row = names.iter().position(|w| *w == work);
            let column = platforms.iter().position(|p| *p == result.platform);
            if let (Some(row), Some(column)) = (row, column) {
                measured[row][column].push(result);
            }
            progress.inc(1);
            // The next result the child will send, for the progress line.
            next = next.and_then(|(w, c)| {
                let i = names.iter().position(|n| *n == w)?;
                if c + 1 < columns.len() {
                    Some((w, c + 1))
                } else {
                    names.get(i + 1).map(|n| (*n, 0))
                }
            });
            if let Some((w, c)) = next {
                progress.set_message(format!("{w} on {}", columns[c]));
            }
        });
    }
    let mut benchmarks = Vec::new();
    for (work, row) in workloads.iter().zip(measured) {
        let results: Vec<PlatformResult> = row
            .into_iter()
            .zip(&platforms)
            .map(|(rounds, platform)| {
                let mut result = apart::combine_rounds(rounds, work.metric).unwrap_or_else(|| {
                    PlatformResult::failed(platform, "no result from the measuring process")
                });
                if result.median_ns.is_some() {
                    result.bandwidth_gb_s = bandwidth_bytes(work)
                        .and_then(|bytes| copy::gb_per_s(bytes, result.median_ns?));
                    result.percent_of_copy = result
                        .bandwidth_gb_s
                        .zip(copy_gb_s)
                        .map(|(bw, copy)| 100.0 * bw / copy);
                }
                result
            })
            .collect();
        let ratios = ratios_to_vecl(&results);
        benchmarks.push(BenchResult {
            name: work.name.to_string(),
            size: work.size.clone(),
            metric: match work.metric {
                Metric::RunTime => "run".into(),
                Metric::FirstResult => "first-result".into(),
            },
            results,
            ratios,
            bytes_moved: bandwidth_bytes(work),
            detail: None,
        });
    }
    // The copy row follows the last kernel reported against it.
    if let Some(row) = copy {
        let at = benchmarks
            .iter()
            .rposition(|b| b.bytes_moved.is_some())
            .map_or(0, |i| i + 1);
        benchmarks.insert(at, row);
    }
    if !engine_rows.is_empty() {
        let launch = commands::Launch::prepare(out_dir);
        for &row in &engine_rows {
            let results = driver_platforms
                .iter()
                .map(|platform| {
                    progress.set_message(format!("{} on {platform}", row.name()));
                    let result = launch.measure(row, platform, quick);
                    progress.inc(1);
                    result
                })
                .collect();
            benchmarks.push(commands::bench_result(row, results, quick));
        }
        notes.push(launch.note().to_string());
        notes.push(format!(
            "command rows: time per command = time for {} threads to enqueue their chains (write, kernel, read, each waiting on the previous command's event) and finish, over the commands; the ratio is vecl's throughput over the platform's; the enqueue-latency row times clEnqueueNDRangeKernel's return for a kernel of over 100 ms; the launch-chain row is the time per launch of 2,000 launches of a 256×256 kernel into one in-order queue, an argument set before each, clFinish at the end (its lines below give the process's CPU time per launch too, which a loaded machine disturbs far less)",
            commands::THREADS
        ));
    }
    for name in once_rows {
        progress.set_message(name);
        benchmarks.push(match name {
            FRONT_END_ROW => front_end_row(quick),
            SUITE_COMPILE_ROW => {
                let reps = if quick { 1 } else { COMPILE_REPS };
                compile_row(
                    name,
                    "benches/*.cl",
                    Ok(compile_times::suite_compile(suite::SOURCES, reps)),
                )
            }
            CORPUS_SPIRV_COMPILE_ROW => {
                let reps = if quick { 1 } else { COMPILE_REPS };
                let report = compile_times::corpus_dir()
                    .ok_or_else(|| "no tests/corpus directory found".to_string())
                    .and_then(|dir| compile_times::corpus_compile_spirv(&dir, reps));
                compile_row(name, "tests/corpus/*.cl as SPIR-V (clang-15 -O2)", report)
            }
            _ => {
                let reps = if quick { 1 } else { COMPILE_REPS };
                let report = compile_times::corpus_dir()
                    .ok_or_else(|| "no tests/corpus directory found".to_string())
                    .and_then(|dir| compile_times::corpus_compile(&dir, reps));
                compile_row(name, "tests/corpus/*.cl", report)
            }
        });
        progress.inc(1);
    }
    progress.finish_and_clear();
    notes.push(
        "ratios are the other platform's median over vecl's: above 1 means vecl is faster".into(),
    );
    if rounds > 1 && !workloads.is_empty() {
        notes.push(format!(
            "kernel rows: {rounds} rounds (`--rounds`), one process per platform per round, the platforms in order ({}) and in reverse by turns, each row's timed runs pooled for its median; a drift of the machine's speed over minutes falls on every platform alike",
            measured_platforms.join(" → ")
        ));
    }
    notes.push(
        "source-to-first-result: other platforms may answer from their on-disk program caches; the 'new source' row appends a kernel unique to this run to defeat them"
            .into(),
    );
    if with_copy {
        notes.push(
            "bandwidth = bytes read + written per run over the median; the host copy moves as many bytes with as many threads as vecl's pool".into(),
        );
    }
    notes.extend(platform_summaries(&benchmarks, &platforms));
    notes.extend(safety_costs(&benchmarks));
    let derived = barrier_costs(&benchmarks, &workloads);
    let report = Report {
        platforms,
        quick,
        benchmarks,
        derived,
        notes,
    };
    report
        .write(out_dir)
        .map_err(|e| format!("cannot write the report to {}: {e}", out_dir.display()))?;
    Ok(report)
}

/// Each other platform's median over vecl's (the first result's), where
/// both were measured.
fn ratios_to_vecl(results: &[PlatformResult]) -> Vec<(String, f64)> {
    let base = results
        .first()
        .and_then(|r| r.median_ns)
        .filter(|&ns| ns > 0);
    results
        .iter()
        .skip(1)
        .filter_map(|r| Some((r.platform.clone(), r.median_ns? as f64 / base? as f64)))
        .collect()
}

/// The ten kernels of the suite whose ratios are summed up (the safety
/// modes' costs, the other platforms' geomeans).
const SUITE_KERNELS: [&str; 10] = [
    "vadd",
    "saxpy",
    "reduce",
    "matmul",
    "nbody",
    "mandelbrot",
    "blackscholes",
    "histogram",
    "scan",
    "conv5x5",
];

/// The ratios of `label`'s median over vecl's on the [`SUITE_KERNELS`]
/// measured and verified on both.
fn suite_ratios<'b>(benchmarks: &'b [BenchResult], label: &str) -> Vec<(&'b str, f64)> {
    benchmarks
        .iter()
        .filter(|b| SUITE_KERNELS.contains(&b.name.as_str()))
        .filter_map(|b| {
            let ok = |p: &str| {
                b.results
                    .iter()
                    .any(|r| r.platform == p && r.verified && r.median_ns.is_some())
            };
            if !ok(vecl_backend::VeclBackend::LABEL) || !ok(label) {
                return None;
            }
            let (_, r) = b.ratios.iter().find(|(p, _)| p == label)?;
            Some((b.name.as_str(), *r))
        })
        .collect()
}

fn geomean(ratios: &[(&str, f64)]) -> f64 {
    (ratios.iter().map(|(_, r)| r.ln()).sum::<f64>() / ratios.len() as f64).exp()
}

/// For each checked mode of vecl: its geometric mean time ratio to the
/// unchecked code over [`SUITE_KERNELS`] (those measured in both), and
/// the highest ratio.
fn safety_costs(benchmarks: &[BenchResult]) -> Vec<String> {
    let mut notes = Vec::new();
    for mode in ["robust", "checked"] {
        let label = format!("{} {mode}", vecl_backend::VeclBackend::LABEL);
        let ratios = suite_ratios(benchmarks, &label);
        let Some(&(worst, highest)) = ratios.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            continue;
        };
        notes.push(format!(
            "{label} over {}: geomean {} over {} kernels, highest {} ({worst})",
            vecl_backend::VeclBackend::LABEL,
            report::format_ratio(geomean(&ratios)),
            ratios.len(),
            report::format_ratio(highest),
        ));
    }
    notes
}

/// For each other platform: the geometric mean of its time over vecl's
/// on the [`SUITE_KERNELS`] both ran and verified, and the lowest ratio
/// (the kernel where vecl's lead is least, or where it is behind).
fn platform_summaries(benchmarks: &[BenchResult], platforms: &[String]) -> Vec<String> {
    platforms
        .iter()
        .skip(1)
        .filter(|p| !p.starts_with(vecl_backend::VeclBackend::LABEL))
        .filter_map(|label| {
            let ratios = suite_ratios(benchmarks, label);
            let &(least, lowest) = ratios.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
            let behind: Vec<&str> = ratios
                .iter()
                .filter(|(_, r)| *r < 1.0)
                .map(|(n, _)| *n)
                .collect();
            Some(format!(
                "{label} over {}: geomean {} over {} kernels, lowest {} ({least}); {}",
                vecl_backend::VeclBackend::LABEL,
                report::format_ratio(geomean(&ratios)),
                ratios.len(),
                report::format_ratio(lowest),
                if behind.is_empty() {
                    format!("{} ahead on every kernel", vecl_backend::VeclBackend::LABEL)
                } else {
                    format!("{label} faster on {}", behind.join(", "))
                }
            ))
        })
        .collect()
}

/// `vecl bench-commands`: one command-engine row on one platform, in the
/// child process `bench` starts for it; the result as a JSON line.
pub fn engine_child(row: &str, platform: &str, quick: bool) -> Result<String, String> {
    commands::child(row, platform, quick)
}

/// `vecl bench-kernels`: with `list`, the other platforms as a JSON line;
/// else the kernel rows `only` selects on `platform` (`vecl`: its three
/// safety levels), each result a JSON line, in the child process `bench`
/// starts for each platform.
pub fn kernels_child(
    list: bool,
    platform: Option<&str>,
    quick: bool,
    only: Option<&str>,
) -> Result<String, String> {
    match (list, platform) {
        (true, _) => apart::list_child(),
        (false, Some(platform)) => apart::measure_child(platform, quick, |name| {
            only.is_none_or(|o| selects(o, name))
        }),
        (false, None) => Err("bench-kernels needs --list or --platform".into()),
    }
}

/// The bytes a run moves, for the workloads whose run time is reported as
/// a bandwidth (not the first-result rows, which time a build).
fn bandwidth_bytes(work: &workload::Workload) -> Option<u64> {
    work.bytes_moved.filter(|_| work.metric == Metric::RunTime)
}

/// The host copy row: as many bytes as vadd reads and writes, copied with
/// as many threads as vecl's pool has.
fn copy_row(quick: bool) -> BenchResult {
    let bytes = 12 * suite::stream_len(quick) as u64;
    let threads = vecl::Device::get().max_compute_units().max(1) as usize;
    let reps = if quick { 3 } else { 11 };
    let (results, detail) = match copy::measure(bytes, threads, reps) {
        Ok(runs) => {
            let median_ns = median(&runs.runs_ns);
            let bandwidth_gb_s = copy::gb_per_s(runs.bytes_moved, median_ns).unwrap_or(0.0);
            let mut result = PlatformResult::single("host", runs.runs_ns, median_ns);
            result.bandwidth_gb_s = Some(bandwidth_gb_s);
            let detail = Detail::Copy {
                threads: runs.threads,
                bandwidth_gb_s,
            };
            (vec![result], Some(detail))
        }
        Err(why) => (vec![PlatformResult::failed("host", &why)], None),
    };
    BenchResult {
        name: COPY_ROW.into(),
        size: format!("memcpy, {} read+written", report::format_bytes(bytes)),
        metric: "host-copy".into(),
        results,
        ratios: Vec::new(),
        bytes_moved: Some(bytes),
        detail,
    }
}

/// The front end (preprocess, parse, lower to IR) on the corpus's longest
/// program, median over repetitions.
fn front_end_row(quick: bool) -> BenchResult {
    let reps = if quick { 3 } else { 101 };
    let program = compile_times::corpus_dir()
        .ok_or_else(|| "no tests/corpus directory found".to_string())
        .and_then(|dir| compile_times::longest_program(&dir));
    let measured = program.and_then(|p| {
        let runs = compile_times::front_end_runs(&p.source, reps)?;
        Ok((p, runs))
    });
    let (size, results, detail) = match measured {
        Ok((program, runs)) => {
            let median_ns = median(&runs);
            let ms_per_200_lines = median_ns as f64 / 1e6 * 200.0 / program.lines.max(1) as f64;
            let size = format!("{}, {} lines", program.file, program.lines);
            let detail = Detail::FrontEnd {
                file: program.file,
                lines: program.lines,
                ms_per_200_lines,
                aim_ms_per_200_lines: AIM_FRONT_END_MS_PER_200_LINES,
            };
            (
                size,
                vec![PlatformResult::single("vecl", runs, median_ns)],
                Some(detail),
            )
        }
        Err(why) => ("-".into(), vec![PlatformResult::failed("vecl", &why)], None),
    };
    BenchResult {
        name: FRONT_END_ROW.into(),
        size,
        metric: "front-end".into(),
        results,
        ratios: Vec::new(),
        bytes_moved: None,
        detail,
    }
}

/// A row of compile times per kernel: the median in the table, each
/// kernel's time in `runs_ns`, the maximum and the aims in the detail.
fn compile_row(
    name: &str,
    what: &str,
    analysed: Result<crate::cli::explain_corpus::Report, String>,
) -> BenchResult {
    use crate::cli::explain_corpus::{AIM_MAX_MS, AIM_MEDIAN_MS};
    let (size, results, detail) = match analysed {
        Ok(report) if !report.entries.is_empty() => {
            let (median_ms, max_ms) = report.compile_ms();
            let runs_ns = report
                .entries
                .iter()
                .map(|e| (e.compile_ms * 1e6) as u64)
                .collect();
            let mut result = PlatformResult::single("vecl", runs_ns, (median_ms * 1e6) as u64);
            if !report.build_failures.is_empty() {
                result.verified = false;
                result.status = format!(
                    "{} files did not build: {}",
                    report.build_failures.len(),
                    report
                        .build_failures
                        .iter()
                        .map(|(file, why)| format!("{file}: {why}"))
                        .collect::<Vec<_>>()
                        .join(" / ")
                );
            }
            let detail = Detail::Compile {
                kernels: report.entries.len(),
                build_failures: report.build_failures.len(),
                median_ms,
                max_ms,
                over_max: report.over_max(),
                aim_median_ms: AIM_MEDIAN_MS,
                aim_max_ms: AIM_MAX_MS,
                optimised_median_ms: report.optimised_ms().map(|(median, _)| median),
            };
            (
                format!("{} kernels, max {max_ms:.2} ms", report.entries.len()),
                vec![result],
                Some(detail),
            )
        }
        Ok(_) => (
            what.into(),
            vec![PlatformResult::failed("vecl", "no kernel compiled")],
            None,
        ),
        Err(why) => (
            what.into(),
            vec![PlatformResult::failed("vecl", &why)],
            None,
        ),
    };
    BenchResult {
        name: name.into(),
        size,
        metric: "compile".into(),
        results,
        ratios: Vec::new(),
        bytes_moved: None,
        detail,
    }
}

/// Nanoseconds per barrier per work-group, from the 64- and 0-round runs.
fn barrier_costs(
    benchmarks: &[BenchResult],
    workloads: &[workload::Workload],
) -> Vec<(String, String, f64)> {
    let find = |name: &str| benchmarks.iter().find(|b| b.name == name);
    let work = workloads.iter().find(|w| w.name == "barriers (64 rounds)");
    let (Some(with), Some(without), Some(work)) = (
        find("barriers (64 rounds)"),
        find("barriers (0 rounds)"),
        work,
    ) else {
        return Vec::new();
    };
    let groups = work.global.iter().product::<u64>()
        / work.local.as_ref().map_or(1, |l| l.iter().product::<u64>());
    let barriers = 128.0 * groups as f64;
    with.results
        .iter()
        .zip(&without.results)
        .filter_map(|(a, b)| {
            let diff = a.median_ns? as f64 - b.median_ns? as f64;
            // The 64-round run measured no slower than the 0-round one:
            // the barriers cost less than the runs' noise; a negative
            // cost would mean nothing.
            let what = if diff > 0.0 {
                "ns per barrier per work-group (256 items)"
            } else {
                "ns per barrier per work-group (256 items; below the noise of the 64- and 0-round runs)"
            };
            Some((a.platform.clone(), what.to_string(), diff.max(0.0) / barriers))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::selects;

    #[test]
    fn only_selects_rows_by_any_of_its_comma_separated_parts() {
        let only = "vadd, saxpy,blackscholes";
        assert!(selects(only, "vadd"));
        assert!(selects(only, "saxpy"));
        assert!(selects(only, "blackscholes"));
        assert!(!selects(only, "matmul"));
        assert!(selects("launch chain", "launch chain, in-order queue"));
        // An empty part selects nothing (a trailing comma is not "all").
        assert!(!selects("vadd,", "matmul"));
    }
}

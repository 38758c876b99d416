//! `vecl bench`: the kernel suite of `benches/` on vecl and on every other
//! OpenCL platform the ICD loader finds, in one run, each output checked
//! against a host reference, with medians, ratios, a JSON report and an SVG
//! chart in `bench-out/`.

mod opencl_backend;
mod report;
mod suite;
mod vecl_backend;
mod workload;

use indicatif::{ProgressBar, ProgressStyle};
use report::{BenchResult, PlatformResult, Report};
use std::path::Path;
use workload::{median, Backend, Metric};

/// Runs the suite and writes the report into `out_dir`.
pub fn run(quick: bool, only: Option<&str>, out_dir: &Path) -> Result<Report, String> {
    let mut backends: Vec<Box<dyn Backend>> = vec![Box::new(vecl_backend::VeclBackend::new()?)];
    let mut notes = Vec::new();
    match opencl_backend::discover() {
        Ok(found) => backends.extend(found.into_iter().map(|b| Box::new(b) as Box<dyn Backend>)),
        Err(why) => notes.push(format!("no other OpenCL platform measured: {why}")),
    }
    let workloads: Vec<_> = suite::workloads(quick)
        .into_iter()
        .filter(|w| only.is_none_or(|o| w.name.contains(o)))
        .collect();
    let platforms: Vec<String> = backends.iter().map(|b| b.label()).collect();
    let progress = ProgressBar::new((workloads.len() * backends.len()) as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
        progress.set_style(style);
    }
    let mut benchmarks = Vec::new();
    for work in &workloads {
        let mut results = Vec::new();
        for backend in backends.iter_mut() {
            progress.set_message(format!("{} on {}", work.name, backend.label()));
            let warm_up = work.metric == Metric::RunTime && !quick;
            let result = match backend.run(work, warm_up) {
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
                    }
                }
                Err(why) => PlatformResult {
                    platform: backend.label(),
                    median_ns: None,
                    runs_ns: Vec::new(),
                    verified: false,
                    status: why.lines().take(6).collect::<Vec<_>>().join(" / "),
                },
            };
            results.push(result);
            progress.inc(1);
        }
        let base = results
            .first()
            .and_then(|r| r.median_ns)
            .filter(|&ns| ns > 0);
        let ratios = results
            .iter()
            .skip(1)
            .filter_map(|r| Some((r.platform.clone(), r.median_ns? as f64 / base? as f64)))
            .collect();
        benchmarks.push(BenchResult {
            name: work.name.to_string(),
            size: work.size.clone(),
            metric: match work.metric {
                Metric::RunTime => "run".into(),
                Metric::FirstResult => "first-result".into(),
            },
            results,
            ratios,
        });
    }
    progress.finish_and_clear();
    notes.push(
        "ratios are the other platform's median over vecl's: above 1 means vecl is faster".into(),
    );
    notes.push(
        "source-to-first-result: other platforms may answer from their on-disk program caches; the 'new source' row appends a kernel unique to this run to defeat them"
            .into(),
    );
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

/// Nanoseconds per barrier per work-group, from the 64- and 0-round runs.
fn barrier_costs(
    benchmarks: &[BenchResult],
    workloads: &[workload::Workload],
) -> Vec<(String, String, f64)> {
    let find = |name: &str| {
        benchmarks
            .iter()
            .zip(workloads)
            .find(|(b, _)| b.name == name)
    };
    let (Some((with, work)), Some((without, _))) =
        (find("barriers (64 rounds)"), find("barriers (0 rounds)"))
    else {
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
            Some((
                a.platform.clone(),
                "ns per barrier per work-group (256 items)".to_string(),
                diff / barriers,
            ))
        })
        .collect()
}

//! The benchmark report: a table on stdout, `bench-out/report.json` and a
//! bar chart `bench-out/report.svg` (time relative to vecl, per benchmark).
//!
//! Besides the kernels measured on every platform, the report has rows
//! measured once: the host copy (the bandwidth reference of vadd and saxpy),
//! vecl's front end on the corpus's longest program, and vecl's compile
//! times per kernel. Those rows have one result and a [`Detail`].
//!
//! The command-engine rows (`commands.rs`) are measured on every platform
//! through its C driver; their time is per command (throughput) or per
//! enqueue (latency), and each result carries an [`EngineDetail`].

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// One platform's result on one benchmark.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlatformResult {
    /// The platform's label.
    pub platform: String,
    /// Median of the timed runs (or the first-result time), in nanoseconds;
    /// `None` when the run failed.
    pub median_ns: Option<u64>,
    /// Every timed run, in nanoseconds.
    pub runs_ns: Vec<u64>,
    /// `ok`, or why the run or its output check failed.
    pub status: String,
    /// Whether the output matched the host reference.
    pub verified: bool,
    /// Bytes read and written per second at the median, in GB/s, for the
    /// rows that move a known amount of memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_gb_s: Option<f64>,
    /// That bandwidth as a percentage of the host copy's in the same run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percent_of_copy: Option<f64>,
    /// What a command-engine row measured besides its time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineDetail>,
}

impl PlatformResult {
    /// A result measured once, on the host or in vecl alone, and correct.
    pub fn single(platform: &str, runs_ns: Vec<u64>, median_ns: u64) -> PlatformResult {
        PlatformResult {
            platform: platform.into(),
            median_ns: Some(median_ns),
            runs_ns,
            status: "ok".into(),
            verified: true,
            bandwidth_gb_s: None,
            percent_of_copy: None,
            engine: None,
        }
    }

    /// A row that could not be measured, and why.
    pub fn failed(platform: &str, why: &str) -> PlatformResult {
        PlatformResult {
            platform: platform.into(),
            median_ns: None,
            runs_ns: Vec::new(),
            status: why.lines().take(6).collect::<Vec<_>>().join(" / "),
            verified: false,
            bandwidth_gb_s: None,
            percent_of_copy: None,
            engine: None,
        }
    }
}

/// What a command-engine row measured on one platform besides its time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EngineDetail {
    /// Small commands from several host threads: the time is per command.
    Throughput {
        /// Commands completed per second at the median.
        commands_per_s: f64,
        /// Host threads enqueuing.
        threads: usize,
        /// Commands each thread enqueued per run.
        commands_per_thread: usize,
    },
    /// A non-blocking enqueue of a long kernel: the time is until the
    /// enqueue returned.
    EnqueueLatency {
        /// The kernel's execution status when each enqueue returned
        /// (`CL_QUEUED`, `CL_SUBMITTED`, `CL_RUNNING`, `CL_COMPLETE`).
        status_at_return: Vec<String>,
        /// The median time from the enqueue to the kernel's completion.
        kernel_ms: f64,
    },
    /// A chain of launches into one in-order queue: the time is per launch.
    LaunchChain {
        /// The process's CPU time per launch (every thread's), median
        /// over the runs; `None` where the system does not report it. On
        /// a loaded machine it moves far less than the wall time.
        cpu_us_per_launch: Option<f64>,
    },
}

impl EngineDetail {
    /// The statuses at return, counted in order of first appearance:
    /// `CL_QUEUED ×4, CL_COMPLETE ×1`.
    pub fn statuses(statuses: &[String]) -> String {
        let mut counted: Vec<(&str, usize)> = Vec::new();
        for status in statuses {
            match counted.iter_mut().find(|(s, _)| s == status) {
                Some((_, n)) => *n += 1,
                None => counted.push((status, 1)),
            }
        }
        counted
            .iter()
            .map(|(s, n)| format!("{s} ×{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a row measured once carries besides its time.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Detail {
    /// The host copy: the bandwidth reference.
    Copy {
        /// Threads that copied (as many as vecl's pool has).
        threads: usize,
        /// Read + written bytes per second at the median, in GB/s.
        bandwidth_gb_s: f64,
    },
    /// vecl's front end (preprocess, parse, lower to IR) on one program.
    FrontEnd {
        /// The program's file.
        file: String,
        /// Its lines.
        lines: usize,
        /// The median scaled to 200 lines.
        ms_per_200_lines: f64,
        /// The aim for 200 lines.
        aim_ms_per_200_lines: f64,
    },
    /// Source-to-machine-code compile time per kernel (front end of the
    /// file + JIT of the kernel, best of some runs); `runs_ns` holds each
    /// kernel's time.
    Compile {
        /// Kernels compiled.
        kernels: usize,
        /// Files the front end rejected.
        build_failures: usize,
        /// The median kernel's compile time.
        median_ms: f64,
        /// The slowest kernel's.
        max_ms: f64,
        /// Kernels over `aim_max_ms`.
        over_max: usize,
        /// The aim for the median.
        aim_median_ms: f64,
        /// The aim for every kernel.
        aim_max_ms: f64,
        /// The median time of the JIT's optimised tier, compiled in the
        /// background after the first code (`None`: one tier only).
        optimised_median_ms: Option<f64>,
    },
}

/// One benchmark across platforms.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    /// The benchmark's name.
    pub name: String,
    /// What was measured.
    pub size: String,
    /// The metric, `run` or `first-result`.
    pub metric: String,
    /// Results, vecl first.
    pub results: Vec<PlatformResult>,
    /// For each other platform: its median over vecl's (above 1: vecl is
    /// faster; on the command rows, vecl's throughput over the platform's).
    pub ratios: Vec<(String, f64)>,
    /// Bytes a run reads and writes, where its speed is a bandwidth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_moved: Option<u64>,
    /// What a row measured once carries besides its time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Platforms measured, vecl first.
    pub platforms: Vec<String>,
    /// Whether the run used `--quick` sizes.
    pub quick: bool,
    /// The benchmarks.
    pub benchmarks: Vec<BenchResult>,
    /// Derived numbers (per-barrier cost…), by platform.
    pub derived: Vec<(String, String, f64)>,
    /// Notes on how to read the numbers.
    pub notes: Vec<String>,
}

/// Milliseconds with sensible precision.
pub fn format_ns(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.1} µs", ns as f64 / 1e3)
    }
}

/// A ratio with two decimals, or three significant digits when that would
/// show 0.00.
pub fn format_ratio(ratio: f64) -> String {
    if ratio >= 0.095 || ratio == 0.0 {
        format!("{ratio:.2}x")
    } else {
        format!("{ratio:.2e}x")
    }
}

/// Bytes in decimal units (GB, MB, KB).
pub fn format_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} KB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

impl Report {
    /// The table printed at the end of `vecl bench`, then the derived
    /// numbers, bandwidths, compile times and problems.
    pub fn table(&self) -> String {
        let mut out = String::new();
        // Each column as wide as its platform's whole name ("PoCL
        // (pthread-…)", "PoCL (pthread)/vecl"): a cut name cannot be told
        // from another platform's.
        let times: Vec<usize> = self
            .platforms
            .iter()
            .map(|p| p.chars().count().max(14))
            .collect();
        let ratio_heads: Vec<String> = self
            .platforms
            .iter()
            .skip(1)
            .map(|p| format!("{p}/vecl"))
            .collect();
        let ratios: Vec<usize> = ratio_heads
            .iter()
            .map(|h| h.chars().count().max(12))
            .collect();
        let _ = write!(out, "{:<30} {:<30}", "benchmark", "size");
        for (p, w) in self.platforms.iter().zip(&times) {
            let _ = write!(out, " {p:>w$}");
        }
        for (h, w) in ratio_heads.iter().zip(&ratios) {
            let _ = write!(out, " {h:>w$}");
        }
        out.push('\n');
        for b in &self.benchmarks {
            let _ = write!(
                out,
                "{:<30} {:<30}",
                truncate(&b.name, 30),
                truncate(&b.size, 30)
            );
            for (i, p) in self.platforms.iter().enumerate() {
                // By platform: a row measured on some platforms only (the
                // command rows skip vecl's library-only safety modes) leaves
                // the others' columns empty. A result of no listed platform
                // (the host copy) goes in the first column.
                let result = b.results.iter().find(|r| &r.platform == p).or_else(|| {
                    (i == 0)
                        .then(|| {
                            b.results
                                .iter()
                                .find(|r| !self.platforms.contains(&r.platform))
                        })
                        .flatten()
                });
                let cell = match result {
                    Some(r) => match r.median_ns {
                        Some(ns) if r.verified => format_ns(ns),
                        Some(ns) => format!("{} !", format_ns(ns)),
                        None => "failed".to_string(),
                    },
                    None => "-".to_string(),
                };
                let _ = write!(out, " {cell:>w$}", w = times[i]);
            }
            // By platform, so that a platform without a ratio leaves its
            // own column empty.
            for (p, w) in self.platforms.iter().skip(1).zip(&ratios) {
                let cell = b
                    .ratios
                    .iter()
                    .find(|(q, _)| q == p)
                    .map_or_else(|| "-".to_string(), |&(_, ratio)| format_ratio(ratio));
                let _ = write!(out, " {cell:>w$}");
            }
            out.push('\n');
        }
        for (platform, what, value) in &self.derived {
            let _ = writeln!(out, "{platform}: {what} = {value:.1}");
        }
        for b in &self.benchmarks {
            for r in &b.results {
                if let (Some(bw), Some(percent)) = (r.bandwidth_gb_s, r.percent_of_copy) {
                    let _ = writeln!(
                        out,
                        "{} on {}: {bw:.2} GB/s read+written, {percent:.0}% of the host copy (aim: at least 80%)",
                        b.name, r.platform
                    );
                }
            }
            for r in &b.results {
                if let Some(engine) = &r.engine {
                    let _ = writeln!(out, "{}", describe_engine(&b.name, r, engine));
                }
            }
            if let Some(detail) = &b.detail {
                let _ = writeln!(out, "{}", describe(&b.name, detail));
            }
        }
        let failures: Vec<String> = self
            .benchmarks
            .iter()
            .flat_map(|b| {
                b.results
                    .iter()
                    .filter(|r| r.status != "ok")
                    .map(move |r| format!("  {} on {}: {}", b.name, r.platform, r.status))
            })
            .collect();
        if !failures.is_empty() {
            out.push_str("problems (! = output did not match the host reference):\n");
            for f in failures {
                out.push_str(&f);
                out.push('\n');
            }
        }
        out
    }

    /// Writes `report.json` and `report.svg` into `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(dir.join("report.json"), json)?;
        std::fs::write(dir.join("report.svg"), self.svg())
    }

    /// A grouped horizontal bar chart: per benchmark, each platform's time
    /// relative to the slowest (longer is slower), labelled with the time
    /// (and the bandwidth or compile-time spread where the row has one).
    pub fn svg(&self) -> String {
        const COLORS: [&str; 4] = ["#3b7dd8", "#e07b39", "#5aa469", "#9b59b6"];
        const HOST: &str = "#888888";
        let color_of = |platform: &str| {
            self.platforms
                .iter()
                .position(|p| p == platform)
                .map_or(HOST, |j| COLORS[j % COLORS.len()])
        };
        let bar_h = 14;
        let group_h = |b: &BenchResult| bar_h * b.results.len().max(1) as i32 + 12;
        let (left, width) = (220, 460);
        let mut legend: Vec<&str> = self.platforms.iter().map(String::as_str).collect();
        for b in &self.benchmarks {
            for r in &b.results {
                if !legend.contains(&r.platform.as_str()) {
                    legend.push(&r.platform);
                }
            }
        }
        let bars_h: i32 = self.benchmarks.iter().map(group_h).sum();
        let height = 40 + bars_h + 20 * legend.len() as i32;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">",
            left + width + 260
        );
        let _ = writeln!(svg, "<text x=\"10\" y=\"20\" font-size=\"14\">vecl bench: median time per run, build, copy, command or enqueue (shorter is faster; each row's bars are scaled to its longest; beside another platform's bar, its time over vecl's)</text>");
        let mut y0 = 36;
        for b in &self.benchmarks {
            let _ = writeln!(
                svg,
                "<text x=\"10\" y=\"{}\">{}</text>",
                y0 + bar_h,
                escape(&b.name)
            );
            let max = b
                .results
                .iter()
                .filter_map(|r| r.median_ns)
                .max()
                .unwrap_or(1)
                .max(1) as f64;
            for (j, r) in b.results.iter().enumerate() {
                let y = y0 + bar_h * j as i32;
                let color = color_of(&r.platform);
                match r.median_ns {
                    Some(ns) => {
                        let w = ((ns as f64 / max) * width as f64).max(1.0);
                        let _ = writeln!(svg, "<rect x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{color}\"/>", bar_h - 2);
                        let _ = writeln!(
                            svg,
                            "<text x=\"{:.1}\" y=\"{}\">{}</text>",
                            left as f64 + w + 4.0,
                            y + bar_h - 3,
                            escape(&bar_label(b, r, ns))
                        );
                    }
                    None => {
                        let _ = writeln!(
                            svg,
                            "<text x=\"{left}\" y=\"{}\" fill=\"{color}\">failed</text>",
                            y + bar_h - 3
                        );
                    }
                }
            }
            y0 += group_h(b);
        }
        for (j, p) in legend.iter().enumerate() {
            let y = y0 + 20 * j as i32;
            let _ = writeln!(
                svg,
                "<rect x=\"10\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                color_of(p)
            );
            let _ = writeln!(svg, "<text x=\"28\" y=\"{}\">{}</text>", y + 10, escape(p));
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// The text beside a bar: the time, and what the row adds to it.
fn bar_label(b: &BenchResult, r: &PlatformResult, ns: u64) -> String {
    let mut label = format_ns(ns);
    if let (Some(bw), Some(percent)) = (r.bandwidth_gb_s, r.percent_of_copy) {
        let _ = write!(label, ", {bw:.1} GB/s ({percent:.0}% of copy)");
    }
    match &b.detail {
        Some(Detail::Copy { bandwidth_gb_s, .. }) => {
            let _ = write!(label, ", {bandwidth_gb_s:.1} GB/s");
        }
        Some(Detail::FrontEnd { lines, .. }) => {
            let _ = write!(label, " for {lines} lines");
        }
        Some(Detail::Compile {
            kernels, max_ms, ..
        }) => {
            let _ = write!(label, " median of {kernels} kernels, max {max_ms:.2} ms");
        }
        None => {}
    }
    match &r.engine {
        Some(EngineDetail::Throughput { commands_per_s, .. }) => {
            let _ = write!(
                label,
                " per command, {} commands/s",
                format_count(*commands_per_s)
            );
        }
        // The statuses stay in the table: the chart's width is fixed.
        Some(EngineDetail::EnqueueLatency { kernel_ms, .. }) => {
            let _ = write!(label, " to return, kernel {kernel_ms:.0} ms");
        }
        Some(EngineDetail::LaunchChain {
            cpu_us_per_launch: Some(cpu),
        }) => {
            let _ = write!(label, " per launch, CPU {cpu:.1} µs");
        }
        Some(EngineDetail::LaunchChain { .. }) | None => {}
    }
    if let Some((_, ratio)) = b.ratios.iter().find(|(p, _)| *p == r.platform) {
        let _ = write!(label, "; {} vecl's", format_ratio(*ratio));
    }
    label
}

/// A count in thousands or millions: `432K`, `1.25M`.
fn format_count(n: f64) -> String {
    if n >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.0}K", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// One line on a platform's command-engine result.
fn describe_engine(name: &str, r: &PlatformResult, engine: &EngineDetail) -> String {
    match engine {
        EngineDetail::Throughput {
            commands_per_s,
            threads,
            commands_per_thread,
        } => format!(
            "{name} on {}: {} commands/s ({threads} threads × {commands_per_thread} commands, median {} per command)",
            r.platform,
            format_count(*commands_per_s),
            r.median_ns.map_or_else(|| "-".into(), format_ns)
        ),
        EngineDetail::EnqueueLatency {
            status_at_return,
            kernel_ms,
        } => format!(
            "{name} on {}: the enqueue returned in {} (median) with the kernel {}; the kernel ran {kernel_ms:.0} ms",
            r.platform,
            r.median_ns.map_or_else(|| "-".into(), format_ns),
            EngineDetail::statuses(status_at_return)
        ),
        EngineDetail::LaunchChain { cpu_us_per_launch } => format!(
            "{name} on {}: {} per launch (median), {}",
            r.platform,
            r.median_ns.map_or_else(|| "-".into(), format_ns),
            cpu_us_per_launch.map_or_else(
                || "the process's CPU time unknown".into(),
                |cpu| format!("{cpu:.2} µs of the process's CPU time per launch")
            )
        ),
    }
}

/// One line on a row measured once, with its aims.
fn describe(name: &str, detail: &Detail) -> String {
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    match detail {
        Detail::Copy {
            threads,
            bandwidth_gb_s,
        } => format!(
            "{name}: {bandwidth_gb_s:.2} GB/s read+written with {threads} threads (the bandwidth reference)"
        ),
        Detail::FrontEnd {
            file,
            lines,
            ms_per_200_lines,
            aim_ms_per_200_lines,
        } => format!(
            "{name}: {file}, {lines} lines: {ms_per_200_lines:.3} ms per 200 lines (aim: under {aim_ms_per_200_lines} ms) {}",
            verdict(ms_per_200_lines < aim_ms_per_200_lines)
        ),
        Detail::Compile {
            kernels,
            build_failures,
            median_ms,
            max_ms,
            over_max,
            aim_median_ms,
            aim_max_ms,
            optimised_median_ms,
        } => format!(
            "{name}: {kernels} kernels ({build_failures} files did not build), median {median_ms:.2} ms (aim: under {aim_median_ms} ms) {}, max {max_ms:.2} ms, {over_max} over {aim_max_ms} ms (aim: none) {}{}",
            verdict(median_ms < aim_median_ms),
            verdict(*over_max == 0),
            match optimised_median_ms {
                Some(ms) => format!("; optimised code {ms:.2} ms after the first (median)"),
                None => String::new(),
            }
        ),
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_platform_names_are_whole_in_the_headers_and_columns_line_up() {
        let mut r = sample();
        let long = "PoCL (pthread-llvm-15)";
        r.platforms = vec!["vecl".into(), long.into()];
        for b in &mut r.benchmarks {
            for p in &mut b.results {
                if p.platform == "PoCL" {
                    p.platform = long.into();
                }
            }
            for (q, _) in &mut b.ratios {
                *q = long.into();
            }
        }
        let table = r.table();
        let head = table.lines().next().expect("a header");
        assert!(head.contains(&format!(" {long}")), "{head}");
        assert!(head.ends_with(&format!(" {long}/vecl")), "{head}");
        // Every row of the table is as wide as the header.
        for line in table.lines().take(1 + r.benchmarks.len()) {
            assert_eq!(line.chars().count(), head.chars().count(), "{line}");
        }
    }

    fn commands(platform: &str, ns_per_command: u64) -> PlatformResult {
        let mut result = PlatformResult::single(platform, vec![ns_per_command], ns_per_command);
        result.engine = Some(EngineDetail::Throughput {
            commands_per_s: 1e9 / ns_per_command as f64,
            threads: 8,
            commands_per_thread: 6000,
        });
        result
    }

    fn latency(platform: &str, ns: u64) -> PlatformResult {
        let mut result = PlatformResult::single(platform, vec![ns], ns);
        let status = if ns > 1_000_000 {
            "CL_COMPLETE"
        } else {
            "CL_QUEUED"
        };
        result.engine = Some(EngineDetail::EnqueueLatency {
            status_at_return: vec![status.into(), status.into(), "CL_RUNNING".into()],
            kernel_ms: 150.0,
        });
        result
    }

    fn sample() -> Report {
        let mut vadd = PlatformResult::single("vecl", vec![2_000_000], 2_000_000);
        vadd.bandwidth_gb_s = Some(96.0);
        vadd.percent_of_copy = Some(85.0);
        let compile = Detail::Compile {
            kernels: 3,
            build_failures: 0,
            median_ms: 1.5,
            max_ms: 25.0,
            over_max: 1,
            aim_median_ms: 2.0,
            aim_max_ms: 20.0,
            optimised_median_ms: Some(3.0),
        };
        Report {
            platforms: vec!["vecl".into(), "PoCL".into()],
            quick: true,
            benchmarks: vec![
                BenchResult {
                    name: "vadd <fast>".into(),
                    size: "64K floats".into(),
                    metric: "run".into(),
                    results: vec![vadd, PlatformResult::failed("PoCL", "build failed")],
                    ratios: vec![],
                    bytes_moved: Some(192_000_000),
                    detail: None,
                },
                BenchResult {
                    name: "host copy".into(),
                    size: "192 MB".into(),
                    metric: "host-copy".into(),
                    results: vec![PlatformResult::single("host", vec![1_700_000], 1_700_000)],
                    ratios: vec![],
                    bytes_moved: Some(192_000_000),
                    detail: Some(Detail::Copy {
                        threads: 2,
                        bandwidth_gb_s: 112.9,
                    }),
                },
                BenchResult {
                    name: "commands, shared in-order".into(),
                    size: "8 threads × 6000 commands".into(),
                    metric: "command-throughput".into(),
                    results: vec![commands("vecl", 2_000), commands("PoCL", 500)],
                    ratios: vec![("PoCL".into(), 0.25)],
                    bytes_moved: None,
                    detail: None,
                },
                BenchResult {
                    name: "enqueue latency, long kernel".into(),
                    size: "16 items".into(),
                    metric: "enqueue-latency".into(),
                    results: vec![latency("vecl", 150_000_000), latency("PoCL", 15_000)],
                    ratios: vec![("PoCL".into(), 1e-4)],
                    bytes_moved: None,
                    detail: None,
                },
                BenchResult {
                    name: "compile, corpus".into(),
                    size: "3 kernels".into(),
                    metric: "compile".into(),
                    results: vec![PlatformResult::single(
                        "vecl",
                        vec![1_000_000, 1_500_000, 25_000_000],
                        1_500_000,
                    )],
                    ratios: vec![],
                    bytes_moved: None,
                    detail: Some(compile),
                },
            ],
            derived: vec![],
            notes: vec![],
        }
    }

    #[test]
    fn the_launch_chain_row_carries_the_cpu_time_per_launch() {
        let chain = |platform: &str, ns: u64, cpu: Option<f64>| {
            let mut result = PlatformResult::single(platform, vec![ns], ns);
            result.engine = Some(EngineDetail::LaunchChain {
                cpu_us_per_launch: cpu,
            });
            result
        };
        let report = Report {
            platforms: vec!["vecl".into(), "PoCL".into()],
            quick: false,
            benchmarks: vec![BenchResult {
                name: "launch chain, in-order queue".into(),
                size: "256×256 items, 2000 launches".into(),
                metric: "launch-chain".into(),
                results: vec![chain("vecl", 6_000, Some(5.9)), chain("PoCL", 2_500, None)],
                ratios: vec![("PoCL".into(), 2_500.0 / 6_000.0)],
                bytes_moved: None,
                detail: None,
            }],
            derived: vec![],
            notes: vec![],
        };
        let table = report.table();
        assert!(table.contains(
            "launch chain, in-order queue on vecl: 6.0 µs per launch (median), 5.90 µs of the process's CPU time per launch"
        ), "{table}");
        assert!(
            table.contains("on PoCL: 2.5 µs per launch (median), the process's CPU time unknown")
        );
        assert!(report.svg().contains("6.0 µs per launch, CPU 5.9 µs"));
        // A child process hands its result back as JSON.
        let json = serde_json::to_value(&report).expect("json");
        let engine = &json["benchmarks"][0]["results"][0]["engine"];
        assert_eq!(engine["cpu_us_per_launch"], 5.9);
        let back: PlatformResult =
            serde_json::from_value(json["benchmarks"][0]["results"][0].clone()).expect("parse");
        assert_eq!(back.engine, report.benchmarks[0].results[0].engine);
    }

    #[test]
    fn table_and_chart_show_every_result() {
        let report = sample();
        let table = report.table();
        assert!(table.contains("2.00 ms"));
        assert!(table.contains("failed"));
        assert!(table.contains("build failed"));
        assert!(
            table.contains("vadd <fast> on vecl: 96.00 GB/s read+written, 85% of the host copy")
        );
        assert!(table.contains("host copy: 112.90 GB/s read+written with 2 threads"));
        assert!(table.contains(
            "median 1.50 ms (aim: under 2 ms) met, max 25.00 ms, 1 over 20 ms (aim: none) NOT met"
        ));
        let copy_line = table
            .lines()
            .find(|l| l.starts_with("host copy "))
            .expect("copy row");
        assert!(copy_line.contains("1.70 ms") && copy_line.trim_end().ends_with('-'));
        let row = |start: &str| {
            table
                .lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("no row {start}: {table}"))
                .to_string()
        };
        let commands = row("commands, shared in-order ");
        assert!(commands.contains("2.0 µs") && commands.trim_end().ends_with("0.25x"));
        assert!(row("enqueue latency, long kernel ")
            .trim_end()
            .ends_with("1.00e-4x"));
        assert!(
            row("vadd <fast> ").trim_end().ends_with('-'),
            "no ratio for a failure"
        );
        assert!(table.contains(
            "commands, shared in-order on PoCL: 2.00M commands/s (8 threads × 6000 commands, median 0.5 µs per command)"
        ));
        assert!(table.contains(
            "enqueue latency, long kernel on vecl: the enqueue returned in 150 ms (median) with the kernel CL_COMPLETE ×2, CL_RUNNING ×1; the kernel ran 150 ms"
        ));
        let svg = report.svg();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("vadd &lt;fast&gt;"));
        assert!(svg.contains("96.0 GB/s (85% of copy)"));
        assert!(svg.contains("max 25.00 ms"));
        assert!(svg.contains(">host</text>"), "the host has a legend entry");
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("2.0 µs per command, 500K commands/s"));
        assert!(svg.contains(">15.0 µs to return, kernel 150 ms; 1.00e-4x vecl's<"));
        assert!(svg.contains("each row's bars are scaled to its longest"));
        assert_eq!(format_bytes(201_326_592), "201 MB");
        assert_eq!(format_bytes(786_432), "786 KB");
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(json["benchmarks"][0]["results"][0]["median_ns"], 2_000_000);
        assert_eq!(json["benchmarks"][0]["results"][0]["percent_of_copy"], 85.0);
        assert_eq!(json["benchmarks"][1]["detail"]["kind"], "copy");
        let engine = &json["benchmarks"][2]["results"][1]["engine"];
        assert_eq!(engine["kind"], "throughput");
        assert_eq!(engine["commands_per_s"], 2e6);
        // A child process hands its result back as JSON.
        let back: PlatformResult =
            serde_json::from_value(json["benchmarks"][3]["results"][1].clone()).expect("parse");
        assert_eq!(back.engine, report.benchmarks[3].results[1].engine);
        assert!(json["benchmarks"][0]["results"][0].get("engine").is_none());
        assert_eq!(json["benchmarks"][4]["detail"]["max_ms"], 25.0);
        assert!(json["benchmarks"][4]["results"][0]
            .get("bandwidth_gb_s")
            .is_none());
    }
}

//! The benchmark report: a table on stdout, `bench-out/report.json` and a
//! bar chart `bench-out/report.svg` (time relative to vecl, per benchmark).

use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// One platform's result on one benchmark.
#[derive(Clone, Debug, Serialize)]
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
    /// For each other platform: its median over vecl's (above 1: vecl is faster).
    pub ratios: Vec<(String, f64)>,
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

impl Report {
    /// The table printed at the end of `vecl bench`.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = write!(out, "{:<24} {:<28}", "benchmark", "size");
        for p in &self.platforms {
            let _ = write!(out, " {:>14}", truncate(p, 14));
        }
        for p in self.platforms.iter().skip(1) {
            let _ = write!(out, " {:>12}", format!("{}/vecl", truncate(p, 7)));
        }
        out.push('\n');
        for b in &self.benchmarks {
            let _ = write!(
                out,
                "{:<24} {:<28}",
                truncate(&b.name, 24),
                truncate(&b.size, 28)
            );
            for r in &b.results {
                let cell = match r.median_ns {
                    Some(ns) if r.verified => format_ns(ns),
                    Some(ns) => format!("{} !", format_ns(ns)),
                    None => "failed".to_string(),
                };
                let _ = write!(out, " {cell:>14}");
            }
            for (_, ratio) in &b.ratios {
                let _ = write!(out, " {:>12}", format!("{ratio:.2}x"));
            }
            out.push('\n');
        }
        for (platform, what, value) in &self.derived {
            let _ = writeln!(out, "{platform}: {what} = {value:.1}");
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
    /// relative to the slowest (longer is slower), labelled with the time.
    pub fn svg(&self) -> String {
        const COLORS: [&str; 4] = ["#3b7dd8", "#e07b39", "#5aa469", "#9b59b6"];
        let bar_h = 14;
        let group_h = bar_h * self.platforms.len() as i32 + 12;
        let (left, width) = (220, 460);
        let height = 40 + group_h * self.benchmarks.len() as i32 + 20 * self.platforms.len() as i32;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">",
            left + width + 100
        );
        let _ = writeln!(svg, "<text x=\"10\" y=\"20\" font-size=\"14\">vecl bench: time per run (shorter is faster)</text>");
        for (i, b) in self.benchmarks.iter().enumerate() {
            let y0 = 36 + group_h * i as i32;
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
                let color = COLORS[j % COLORS.len()];
                match r.median_ns {
                    Some(ns) => {
                        let w = ((ns as f64 / max) * width as f64).max(1.0);
                        let _ = writeln!(svg, "<rect x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{color}\"/>", bar_h - 2);
                        let _ = writeln!(
                            svg,
                            "<text x=\"{:.1}\" y=\"{}\">{}</text>",
                            left as f64 + w + 4.0,
                            y + bar_h - 3,
                            escape(&format_ns(ns))
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
        }
        let legend_y = 36 + group_h * self.benchmarks.len() as i32;
        for (j, p) in self.platforms.iter().enumerate() {
            let y = legend_y + 20 * j as i32;
            let _ = writeln!(
                svg,
                "<rect x=\"10\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                COLORS[j % COLORS.len()]
            );
            let _ = writeln!(svg, "<text x=\"28\" y=\"{}\">{}</text>", y + 10, escape(p));
        }
        svg.push_str("</svg>\n");
        svg
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

    fn sample() -> Report {
        let result = |platform: &str, ns: Option<u64>| PlatformResult {
            platform: platform.into(),
            median_ns: ns,
            runs_ns: ns.into_iter().collect(),
            status: if ns.is_some() {
                "ok".into()
            } else {
                "build failed".into()
            },
            verified: ns.is_some(),
        };
        Report {
            platforms: vec!["vecl".into(), "PoCL".into()],
            quick: true,
            benchmarks: vec![BenchResult {
                name: "vadd <fast>".into(),
                size: "64K floats".into(),
                metric: "run".into(),
                results: vec![result("vecl", Some(2_000_000)), result("PoCL", None)],
                ratios: vec![],
            }],
            derived: vec![],
            notes: vec![],
        }
    }

    #[test]
    fn table_and_chart_show_every_result() {
        let report = sample();
        let table = report.table();
        assert!(table.contains("2.00 ms"));
        assert!(table.contains("failed"));
        assert!(table.contains("build failed"));
        let svg = report.svg();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("vadd &lt;fast&gt;"));
        assert!(svg.trim_end().ends_with("</svg>"));
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(json["benchmarks"][0]["results"][0]["median_ns"], 2_000_000);
    }
}

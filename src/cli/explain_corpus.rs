//! `vecl explain-corpus DIR`: builds every kernel of every `.cl` file of a
//! directory and reports, per kernel, whether the JIT vectorised it (and
//! why not), its vector/gather/scatter access counts from the vectorisation
//! report, and its source-to-machine-code compile time; then the totals
//! against the project's aims (≥ 95 % vectorised, median compile < 2 ms,
//! none over 20 ms).
//!
//! Compile time of a kernel = the front end on its whole file (timed once
//! per file, counted for each of its kernels) + the JIT on that kernel,
//! including the creation of its JIT module: what a program with that one
//! kernel costs from source to callable code. Each is the minimum over
//! `reps` runs, so that a loaded machine's preemptions do not count. Build
//! options come from a `// @options` line of the file (the corpus header),
//! if any.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The project's aims for the corpus.
const AIM_VECTORISED_PERCENT: f64 = 95.0;
/// Median source-to-machine-code compile time per kernel, in milliseconds.
pub const AIM_MEDIAN_MS: f64 = 2.0;
/// Longest compile time of any kernel, in milliseconds.
pub const AIM_MAX_MS: f64 = 20.0;

/// Memory accesses of one compiled kernel, as its report counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accesses {
    pub vector_loads: u32,
    pub gathers: u32,
    pub vector_stores: u32,
    pub scatters: u32,
}

/// What became of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Compiled with `width` work-items per chunk; `code` is the report's
    /// `code:` line (the wide AVX-512 code, or why not), when it has one.
    Vectorised {
        width: u32,
        accesses: Accesses,
        code: Option<String>,
    },
    /// The JIT refused or failed; the reason is its message.
    NotVectorised { reason: String },
}

/// One kernel of one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub file: String,
    pub kernel: String,
    pub verdict: Verdict,
    /// Front end of the file + JIT of this kernel, in milliseconds: until
    /// its first (quick-tier) code can run.
    pub compile_ms: f64,
    /// The JIT's optimised compilation of the kernel (in the background,
    /// after `compile_ms`), when there is one.
    pub optimised_ms: Option<f64>,
}

/// The whole directory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub entries: Vec<Entry>,
    /// Files the front end rejected, with the first line of the log.
    pub build_failures: Vec<(String, String)>,
}

/// Reads the count before `label` in a report line such as
/// `loads: 3 vector (consecutive; 1 prefetching ahead, 0 of them by a loop's step),
/// 0 uniform, 1 per lane (gather)`.
fn count_before(line: &str, label: &str) -> u32 {
    line.split(',')
        .find(|part| part.contains(label))
        .and_then(|part| part.split_whitespace().find_map(|w| w.parse::<u32>().ok()))
        .unwrap_or(0)
}

/// The access counts of a vectorisation report (`CompiledKernel::explain`).
pub fn parse_accesses(explain: &str) -> Accesses {
    let mut a = Accesses::default();
    for line in explain.lines() {
        if let Some(rest) = line.strip_prefix("loads:") {
            a.vector_loads = count_before(rest, "vector");
            a.gathers = count_before(rest, "per lane");
        } else if let Some(rest) = line.strip_prefix("stores:") {
            a.vector_stores = count_before(rest, "vector");
            a.scatters = count_before(rest, "per lane");
        }
    }
    a
}

/// `text` without its source positions (` at 6:53`), so that one reason
/// counts once across kernels.
fn without_positions(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(" at ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 4..];
        let end = after
            .find(|c: char| !(c.is_ascii_digit() || c == ':'))
            .unwrap_or(after.len());
        if end == 0 || !after[..end].contains(':') {
            // Not a position (`at 2^15`): the words stay whole.
            out.push_str(" at ");
            rest = after;
        } else {
            rest = &after[end..];
        }
    }
    out.push_str(rest);
    out
}

/// Build options named by a `// @options` line.
pub fn header_options(source: &str) -> String {
    source
        .lines()
        .find_map(|l| l.trim().strip_prefix("// @options"))
        .map(|o| o.trim().to_string())
        .unwrap_or_default()
}

/// The options `explain-corpus` and `vecl bench` compile with: the
/// configured ones (`vecl::Config`), the JIT's choice of width unless
/// `width` is given, no checks, no dumps.
pub fn jit_options(width: Option<u32>) -> vecl_jit::JitOptions {
    vecl_jit::JitOptions {
        simd_width: width,
        checked: false,
        dump_clif: false,
        ..vecl::Config::global().jit_options()
    }
}

/// Builds every kernel of every `.cl` file directly in `dir` (sorted by name).
pub fn analyse(dir: &Path, width: Option<u32>, reps: usize) -> Result<Report, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    let opts = jit_options(width);
    let mut report = Report::default();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        report.add_source(&name, &source, &opts, reps);
    }
    Ok(report)
}

impl Report {
    /// Builds every kernel of one program (`name` is how the report shows
    /// it) and adds an entry per kernel, or a build failure. Build options
    /// come from the program's `// @options` line, if any.
    pub fn add_source(
        &mut self,
        name: &str,
        source: &str,
        opts: &vecl_jit::JitOptions,
        reps: usize,
    ) {
        let options = header_options(source);
        self.add_built(name, opts, reps, || {
            vecl_clc::build(source, &options)
                .map(|b| b.module)
                .map_err(|e| e.to_string())
        });
    }

    /// Like [`Report::add_source`] for any front end: `front_end` makes the
    /// module (timed, best of `reps`), then every kernel is JIT-compiled.
    pub fn add_built(
        &mut self,
        name: &str,
        opts: &vecl_jit::JitOptions,
        reps: usize,
        mut front_end: impl FnMut() -> Result<vecl_ir::Module, String>,
    ) {
        let mut front_end_ms = f64::INFINITY;
        let mut built = None;
        for _ in 0..reps.max(1) {
            let started = Instant::now();
            let result = front_end();
            front_end_ms = front_end_ms.min(started.elapsed().as_secs_f64() * 1e3);
            built = Some(result);
        }
        let module = match built {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                let first = e.lines().next().unwrap_or("").to_string();
                self.build_failures.push((name.to_string(), first));
                return;
            }
            None => return,
        };
        for (_, f) in module.kernels() {
            let mut jit_ms = f64::INFINITY;
            let mut optimised_ms: Option<f64> = None;
            let mut result = None;
            for _ in 0..reps.max(1) {
                let started = Instant::now();
                let r = vecl_jit::compile_kernel(&module, &f.name, opts);
                jit_ms = jit_ms.min(started.elapsed().as_secs_f64() * 1e3);
                // The background compilation finishes before the next
                // measurement starts, so it does not share the CPU with it.
                if let Ok(k) = &r {
                    if let vecl_jit::FinalCode::Optimised(d) = k.wait_for_final_code() {
                        let ms = d.as_secs_f64() * 1e3;
                        optimised_ms = Some(optimised_ms.map_or(ms, |m| m.min(ms)));
                    }
                }
                result = Some(r);
            }
            let Some(result) = result else { continue };
            let verdict = match result {
                Ok(k) => Verdict::Vectorised {
                    width: k.simd_width(),
                    accesses: parse_accesses(k.explain()),
                    code: k
                        .explain()
                        .lines()
                        .find_map(|l| l.strip_prefix("code: "))
                        .map(str::to_string),
                },
                Err(e) => Verdict::NotVectorised {
                    reason: e.to_string(),
                },
            };
            self.entries.push(Entry {
                file: name.to_string(),
                kernel: f.name.clone(),
                verdict,
                compile_ms: front_end_ms + jit_ms,
                optimised_ms,
            });
        }
    }

    /// Kernels compiled with at least 4 work-items per chunk.
    pub fn vectorised(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| matches!(e.verdict, Verdict::Vectorised { width, .. } if width >= 4))
            .count()
    }

    /// How many kernels got the wide AVX-512 code, and the reasons the
    /// others did not (their `code:` lines without source positions),
    /// counted, most common first.
    pub fn wide_reach(&self) -> (usize, Vec<(String, usize)>) {
        let mut wide = 0;
        let mut why = std::collections::BTreeMap::<String, usize>::new();
        for e in &self.entries {
            let Verdict::Vectorised {
                code: Some(code), ..
            } = &e.verdict
            else {
                continue;
            };
            if code.starts_with("wide") {
                wide += 1;
            } else {
                *why.entry(without_positions(code)).or_default() += 1;
            }
        }
        let mut why: Vec<(String, usize)> = why.into_iter().collect();
        why.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        (wide, why)
    }

    /// Median and maximum compile time in milliseconds (0 with no kernels).
    pub fn compile_ms(&self) -> (f64, f64) {
        let mut ms: Vec<f64> = self.entries.iter().map(|e| e.compile_ms).collect();
        ms.sort_by(f64::total_cmp);
        let median = match ms.len() {
            0 => 0.0,
            n if n % 2 == 1 => ms[n / 2],
            n => (ms[n / 2 - 1] + ms[n / 2]) / 2.0,
        };
        (median, ms.last().copied().unwrap_or(0.0))
    }

    /// Median and maximum of the optimised compilations (`None` when there
    /// were none).
    pub fn optimised_ms(&self) -> Option<(f64, f64)> {
        let mut ms: Vec<f64> = self.entries.iter().filter_map(|e| e.optimised_ms).collect();
        if ms.is_empty() {
            return None;
        }
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        let median = if n % 2 == 1 {
            ms[n / 2]
        } else {
            (ms[n / 2 - 1] + ms[n / 2]) / 2.0
        };
        Some((median, ms[n - 1]))
    }

    /// Kernels whose compile time is over [`AIM_MAX_MS`].
    pub fn over_max(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.compile_ms > AIM_MAX_MS)
            .count()
    }

    /// The table and totals `vecl explain-corpus` prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<34} {:<20} {:>3} {:>6} {:>7} {:>6} {:>8} {:>8}  note",
            "file", "kernel", "W", "vload", "gather", "vstore", "scatter", "ms"
        );
        for e in &self.entries {
            match &e.verdict {
                Verdict::Vectorised {
                    width,
                    accesses: a,
                    code,
                } => {
                    let _ = writeln!(
                        out,
                        "{:<34} {:<20} {:>3} {:>6} {:>7} {:>6} {:>8} {:>8.2}  {}",
                        e.file,
                        e.kernel,
                        width,
                        a.vector_loads,
                        a.gathers,
                        a.vector_stores,
                        a.scatters,
                        e.compile_ms,
                        code.as_deref().unwrap_or("")
                    );
                }
                Verdict::NotVectorised { reason } => {
                    let _ = writeln!(
                        out,
                        "{:<34} {:<20} {:>3} {:>6} {:>7} {:>6} {:>8} {:>8.2}  not vectorised: {reason}",
                        e.file, e.kernel, "-", "-", "-", "-", "-", e.compile_ms
                    );
                }
            }
        }
        for (file, why) in &self.build_failures {
            let _ = writeln!(out, "{file:<34} build failed: {why}");
        }
        let total = self.entries.len();
        let vectorised = self.vectorised();
        let percent = if total == 0 {
            0.0
        } else {
            100.0 * vectorised as f64 / total as f64
        };
        let (wide, refusals) = self.wide_reach();
        if wide + refusals.iter().map(|r| r.1).sum::<usize>() > 0 {
            let _ = writeln!(out, "wide code: {wide} kernels; refused:");
            for (why, n) in &refusals {
                let _ = writeln!(out, "{n:>5}  {why}");
            }
        }
        let (median, max) = self.compile_ms();
        let over = self.over_max();
        let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
        let _ = writeln!(
            out,
            "kernels: {total}, vectorised: {vectorised} ({percent:.1}%), files that did not build: {}",
            self.build_failures.len()
        );
        let _ = writeln!(
            out,
            "compile time (front end + JIT, best of runs): median {median:.2} ms, max {max:.2} ms, {over} over {AIM_MAX_MS} ms"
        );
        if let Some((m, x)) = self.optimised_ms() {
            let _ = writeln!(
                out,
                "optimised code (JIT again in the background, best of runs): median {m:.2} ms, max {x:.2} ms after the first code"
            );
        }
        let _ = writeln!(
            out,
            "aims: >= {AIM_VECTORISED_PERCENT}% vectorised {}; median < {AIM_MEDIAN_MS} ms {}; none over {AIM_MAX_MS} ms {}",
            verdict(percent >= AIM_VECTORISED_PERCENT),
            verdict(median < AIM_MEDIAN_MS),
            verdict(over == 0)
        );
        out
    }
}

/// Runs `vecl explain-corpus` and returns the text to print.
pub fn run(dir: &Path, width: Option<u32>, reps: usize) -> Result<String, String> {
    analyse(dir, width, reps).map(|r| r.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_access_counts_from_a_report() {
        let explain = "kernel k: W = 8 work-items per chunk\nloads: 3 vector (consecutive; 1 prefetching ahead, 0 of them by a loop's step), 2 uniform, 1 per lane (gather)\nstores: 1 vector (consecutive), 0 uniform, 4 per lane (scatter)\n";
        assert_eq!(
            parse_accesses(explain),
            Accesses {
                vector_loads: 3,
                gathers: 1,
                vector_stores: 1,
                scatters: 4
            }
        );
    }

    #[test]
    fn counts_the_wide_codes_refusals_without_source_positions() {
        let entry = |code: &str| Entry {
            file: "f.cl".into(),
            kernel: "k".into(),
            verdict: Verdict::Vectorised {
                width: 16,
                accesses: Accesses::default(),
                code: Some(code.into()),
            },
            compile_ms: 1.0,
            optimised_ms: None,
        };
        let r = Report {
            entries: vec![
                entry("wide AVX-512 (16 lanes)"),
                entry("Cranelift (not the wide code: an atomic at 3:14)"),
                entry("Cranelift (not the wide code: an atomic at 12:7)"),
                entry("Cranelift (not the wide code: a switch at 4:2)"),
            ],
            build_failures: Vec::new(),
        };
        let (wide, why) = r.wide_reach();
        assert_eq!(wide, 1);
        assert_eq!(
            why,
            vec![
                ("Cranelift (not the wide code: an atomic)".to_string(), 2),
                ("Cranelift (not the wide code: a switch)".to_string(), 1),
            ]
        );
        assert_eq!(
            without_positions("runs at 2^15 at 6:53 here"),
            "runs at 2^15 here"
        );
        assert!(r
            .render()
            .contains("    2  Cranelift (not the wide code: an atomic)"));
    }

    #[test]
    fn medians_of_even_and_odd_counts() {
        let entry = |ms: f64| Entry {
            file: "f.cl".into(),
            kernel: "k".into(),
            verdict: Verdict::NotVectorised { reason: "x".into() },
            compile_ms: ms,
            optimised_ms: None,
        };
        let mut r = Report {
            entries: vec![entry(3.0), entry(1.0), entry(2.0)],
            build_failures: Vec::new(),
        };
        assert_eq!(r.compile_ms(), (2.0, 3.0));
        r.entries.push(entry(10.0));
        assert_eq!(r.compile_ms(), (2.5, 10.0));
        assert_eq!(r.vectorised(), 0);
    }
}

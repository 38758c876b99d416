//! How long vecl takes to turn source into something it can run, measured
//! for the bench report:
//!
//! - the front end (preprocess, parse, lower to Kernel IR) on the longest
//!   program of the corpus (`tests/corpus/*.cl`, the file with the most
//!   lines, chosen at run time), median over repetitions;
//! - source-to-machine-code compile time per kernel, over the suite's own
//!   kernels and over the corpus, with the analysis `vecl explain-corpus`
//!   uses (front end of the file + JIT of the kernel, best of a few runs);
//! - the same over the corpus compiled to SPIR-V beforehand (`clang-15
//!   -O2` + `llvm-spirv-15`, untimed), with the SPIR-V front end in place
//!   of the OpenCL C one.

use crate::cli::explain_corpus;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The corpus directory: `tests/corpus` of the source tree this binary was
/// built from, else of the current directory.
pub fn corpus_dir() -> Option<PathBuf> {
    [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus"),
        PathBuf::from("tests/corpus"),
    ]
    .into_iter()
    .find(|dir| dir.is_dir())
}

/// A program of the corpus.
pub struct Program {
    /// File name.
    pub file: String,
    /// Number of lines.
    pub lines: usize,
    /// The source.
    pub source: String,
}

/// The `.cl` file of `dir` with the most lines (the first by name among
/// equals).
pub fn longest_program(dir: &Path) -> Result<Program, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    paths.sort();
    let mut best: Option<Program> = None;
    for path in paths {
        let source =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let lines = source.lines().count();
        if best.as_ref().is_none_or(|b| lines > b.lines) {
            let file = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            best = Some(Program {
                file,
                lines,
                source,
            });
        }
    }
    best.ok_or_else(|| format!("no .cl file in {}", dir.display()))
}

/// Nanoseconds of each of `reps` runs of the front end on `source` (with
/// the options of its `// @options` line), after one untimed run.
pub fn front_end_runs(source: &str, reps: usize) -> Result<Vec<u64>, String> {
    let options = explain_corpus::header_options(source);
    vecl_clc::build(source, &options).map_err(|e| e.to_string())?;
    (0..reps.max(1))
        .map(|_| {
            let started = Instant::now();
            vecl_clc::build(source, &options).map_err(|e| e.to_string())?;
            Ok(started.elapsed().as_nanos() as u64)
        })
        .collect()
}

/// Compile times of every kernel of the suite's sources (`(file, source)`
/// pairs), each the best of `reps` runs.
pub fn suite_compile(sources: &[(&str, &str)], reps: usize) -> explain_corpus::Report {
    let opts = explain_corpus::jit_options(None);
    let mut report = explain_corpus::Report::default();
    for (file, source) in sources {
        report.add_source(file, source, &opts, reps);
    }
    report
}

/// Compile times of every kernel of the corpus in `dir`, each the best of
/// `reps` runs.
pub fn corpus_compile(dir: &Path, reps: usize) -> Result<explain_corpus::Report, String> {
    explain_corpus::analyse(dir, None, reps)
}

/// Compile times of every kernel of the corpus in `dir` through the IL
/// path: each program compiled to SPIR-V by clang-15 and llvm-spirv-15
/// (not timed), then translated and JIT-compiled (timed, best of `reps`).
/// Programs the tools cannot compile (llvm-spirv 15 refuses a few of the
/// corpus at `-O2`) are left out: they say nothing about vecl.
pub fn corpus_compile_spirv(dir: &Path, reps: usize) -> Result<explain_corpus::Report, String> {
    let found = |tool: &str| {
        std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !found("clang-15") || !found("llvm-spirv-15") {
        return Err(
            "clang-15 and llvm-spirv-15 are not installed (scripts/install-deps.sh)".into(),
        );
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    let scratch = std::env::temp_dir().join(format!("vecl-bench-spirv-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let opts = explain_corpus::jit_options(None);
    let mut report = explain_corpus::Report::default();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (bc, spv) = (scratch.join("k.bc"), scratch.join("k.spv"));
        let clang = std::process::Command::new("clang-15")
            .args([
                "-cl-std=CL2.0",
                "-target",
                "spir64",
                "-O2",
                "-emit-llvm",
                "-c",
            ])
            .args(explain_corpus::header_options(&source).split_whitespace())
            .arg(&path)
            .arg("-o")
            .arg(&bc)
            .output();
        let translated = clang.is_ok_and(|o| o.status.success())
            && std::process::Command::new("llvm-spirv-15")
                .arg(&bc)
                .arg("-o")
                .arg(&spv)
                .output()
                .is_ok_and(|o| o.status.success());
        let words = std::fs::read(&spv)
            .ok()
            .filter(|_| translated)
            .and_then(|b| vecl_spirv::words_from_bytes(&b).ok());
        let _ = std::fs::remove_file(&spv);
        let Some(words) = words else {
            continue;
        };
        report.add_built(&name, &opts, reps, || {
            vecl_spirv::translate(&words, &vecl_spirv::Options::default())
                .map_err(|e| e.to_string())?
                .executable()
                .map_err(|e| format!("{e:?}"))
        });
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_longest_program_and_times_its_front_end() {
        let dir = std::env::temp_dir().join(format!("vecl-longest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let short = "kernel void a(global int *p) { p[0] = 1; }\n";
        let long = "// two\n// comments\nkernel void b(global int *p) {\n  p[0] = 2;\n}\n";
        std::fs::write(dir.join("a.cl"), short).expect("write");
        std::fs::write(dir.join("b.cl"), long).expect("write");
        std::fs::write(dir.join("notes.txt"), "x\n".repeat(100)).expect("write");
        let found = longest_program(&dir).expect("found");
        assert_eq!((found.file.as_str(), found.lines), ("b.cl", 5));
        let runs = front_end_runs(&found.source, 3).expect("front end");
        assert_eq!(runs.len(), 3);
        assert!(front_end_runs("kernel void (", 1).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn compiles_every_suite_kernel() {
        let report = suite_compile(crate::cli::bench::suite::SOURCES, 1);
        assert!(
            report.build_failures.is_empty(),
            "{:?}",
            report.build_failures
        );
        assert_eq!(
            report.entries.len(),
            crate::cli::bench::suite::SOURCES.len()
        );
        let (median, max) = report.compile_ms();
        assert!(median > 0.0 && max >= median);
    }
}

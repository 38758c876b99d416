//! Runs every program of `tests/corpus/*.cl`: compile, verify the IR, run it
//! in the reference interpreter with the header's arguments and compare the
//! buffers the header names with the expected values.

use std::path::PathBuf;
use vecl_clc::corpus::{self, Arg};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus")
}

fn run_one(path: &PathBuf) -> Result<(), String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case = corpus::parse(&src).map_err(|e| e.to_string())?;
    let built = vecl_clc::build(&src, &case.options).map_err(|e| format!("build failed:\n{e}"))?;
    vecl_ir::verify::verify_module(&built.module)
        .map_err(|e| format!("verifier:\n{}", vecl_ir::verify::format_errors(&e)))?;
    let mut args: Vec<KernelArg> = case
        .args
        .iter()
        .map(|a| match a {
            Arg::Buffer { .. } => KernelArg::Buffer(a.bytes()),
            Arg::Value { .. } => KernelArg::Value(a.bytes()),
            Arg::Local { bytes } => KernelArg::Local(*bytes),
        })
        .collect();
    let mut range = NdRange {
        work_dim: case.global.len() as u32,
        global_offset: [0; 3],
        global_size: [1; 3],
        local_size: [1; 3],
    };
    for (d, (g, l)) in case.global.iter().zip(&case.local).enumerate() {
        range.global_size[d] = *g;
        range.local_size[d] = *l;
    }
    run_kernel(&built.module, &case.kernel, &mut args, &range)
        .map_err(|e| format!("interpreter: {e}"))?;
    for e in &case.expects {
        let (Some(KernelArg::Buffer(bytes)), Some(Arg::Buffer { elem, .. })) =
            (args.get(e.arg), case.args.get(e.arg))
        else {
            return Err(format!("@expect {} is not a buffer", e.arg));
        };
        let got: Vec<f64> = bytes
            .chunks_exact(elem.size())
            .map(|c| elem.decode(c))
            .collect();
        if got.len() < e.values.len() {
            return Err(format!(
                "argument {} has {} elements, expected {}",
                e.arg,
                got.len(),
                e.values.len()
            ));
        }
        for (i, (g, w)) in got.iter().zip(&e.values).enumerate() {
            let ok = if e.tolerance > 0.0 {
                (g - w).abs() <= e.tolerance * w.abs().max(1.0)
            } else {
                g == w || (g.is_nan() && w.is_nan())
            };
            if !ok {
                return Err(format!(
                    "argument {} element {i}: got {g}, expected {w}\n  got: {:?}",
                    e.arg,
                    &got[..e.values.len().min(32)]
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn corpus_programs_compile_verify_and_compute_expected_results() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    assert!(files.len() >= 150, "corpus has {} programs", files.len());
    // `VECL_CORPUS=name` runs only the files whose name contains `name`.
    if let Ok(only) = std::env::var("VECL_CORPUS") {
        files.retain(|f| f.to_string_lossy().contains(&only));
    }
    let mut failures = Vec::new();
    for f in &files {
        if let Err(e) = run_one(f) {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus programs failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

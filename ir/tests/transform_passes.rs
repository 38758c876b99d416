//! The middle passes one at a time, text in → text out.
//!
//! Each `tests/transform/PASS/NAME.ir` (for every pass of the pipeline
//! but `sra`, whose cases `transform_sra.rs` runs) is a module whose kernel
//! `@k` goes through that pass alone ([`Pipeline::only`], which verifies
//! its output; `define-at-entry` after `inline`, which makes the variables
//! it defines); `@k` afterwards must
//! print exactly as `NAME.out` (the kernel alone, as
//! `vecl run --dump-ir=PASS` prints it; comment lines of the input are
//! dropped by the parser). `VECL_BLESS=1` rewrites the `.out` files from
//! the pass's output. `@k` also runs in the interpreter before and after
//! the pass, on the same arguments, and must leave the same bytes in every
//! buffer (or stop with the same error).

use std::path::Path;
use vecl_ir::text::parse_module;
use vecl_ir::transform::pipeline::{print_alone, Pipeline, PipelineOptions, PASSES};
use vecl_ir::verify::{format_errors, verify_module};
use vecl_testkit::file_tests::{cases, check_output, same_run};

/// Runs every case of `pass`; returns how many there were.
fn check_pass(pass: &str) -> usize {
    check_passes(pass, &[pass])
}

/// Runs every case of `tests/transform/DIR` through `passes` (in pipeline
/// order); returns how many cases there were.
fn check_passes(dir: &str, passes: &[&str]) -> usize {
    let pipeline = if let [pass] = passes {
        Pipeline::only(pass).expect("a pass of the pipeline")
    } else {
        let disabled = PASSES
            .iter()
            .map(|p| p.name)
            .filter(|name| !passes.contains(name))
            .map(String::from)
            .collect();
        Pipeline::new(&PipelineOptions {
            disabled,
            verify: true,
            dump: None,
            wide_unroll: false,
        })
        .expect("passes of the pipeline")
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/transform")
        .join(dir);
    let files = cases(&dir, "ir");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("case is readable");
        let before = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = verify_module(&before) {
            panic!("{name} does not verify:\n{}", format_errors(&e));
        }
        let (index, kernel) = before
            .function_by_name("k")
            .unwrap_or_else(|| panic!("{name}: no kernel @k"));
        let out = pipeline
            .run(&before, kernel)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = print_alone(&before, &out.function);
        check_output(path, &printed, &mut failures);
        let mut after = before.clone();
        after.functions[index.index()] = out.function;
        if let Err(e) = verify_module(&after) {
            panic!("{name}: invalid after the pass:\n{}", format_errors(&e));
        }
        same_run(&name, &before, &after, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    files.len()
}

#[test]
fn inline_text_cases() {
    assert!(check_pass("inline") >= 4);
}

#[test]
fn unroll_text_cases() {
    assert!(check_pass("unroll") >= 4);
}

#[test]
fn cse_text_cases() {
    assert!(check_pass("cse") >= 4);
}

#[test]
fn widen_half_text_cases() {
    assert!(check_pass("widen-half") >= 1);
}

#[test]
fn define_at_entry_text_cases() {
    assert!(check_passes("define-at-entry", &["inline", "define-at-entry"]) >= 1);
}

#[test]
fn sra_unrolled_text_cases() {
    assert!(check_pass("sra-unrolled") >= 1);
}

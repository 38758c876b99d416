//! Loops whose per-lane accesses lie pages apart (`vecl_jit::wide::spread`):
//! one chunk at a time where a constant stride puts the lanes 2 KiB or
//! more apart, a test of the parameter at each call where the stride is
//! a parameter's multiple, chunks in flight otherwise; each against the
//! interpreter on both sides of the test.

use vecl_ir::interp::NdRange;
use vecl_jit::compile_kernel;
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::{code_line, cpu_has_wide, range_1d, wide_options};

/// Each work-item sums its own row of `n` floats (`atax`'s first pass),
/// row `r` for item `i` as `ROW` says.
const ROWS: &str = r#"
kernel void k(global const float* a, global const float* x, global float* y, TYPE n, int m) {
    int i = get_global_id(0);
    if (i < m) {
        float s = 0.0f;
        for (int j = 0; j < n; j++) s += a[(ROW) * n + j] * x[j];
        y[i] = s;
    }
}
"#;

/// Rows of one chunk, of several with a tail, and groups narrower than
/// four chunks.
fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 16, 16),
        range_1d(0, 53, 53),
        range_1d(0, 150, 150),
        range_1d(2, 96, 24),
    ]
}

fn specs(r: &NdRange, n: usize) -> Vec<Spec> {
    let m = (r.global_offset[0] + r.global_size[0]) as usize;
    vec![
        Spec::Floats(m * n, 1),
        Spec::Floats(n, 2),
        Spec::Floats(m, 0),
        Spec::Int(n as i32),
        Spec::Int(m as i32),
    ]
}

#[test]
fn a_row_length_parameter_is_tested_at_each_call_and_both_sides_agree() {
    for (ty, row) in [("int", "i"), ("int", "m - 1 - i")] {
        let src = ROWS.replace("TYPE", ty).replace("ROW", row);
        let m = build(&src, "");
        let k = compile_kernel(&m, "k", &wide_options()).expect("compiles");
        let line = code_line(&k);
        if cpu_has_wide() {
            assert!(line.starts_with("code: wide AVX-512"), "{ty} {row}: {line}");
            assert!(
                line.contains("chunks in flight; one chunk at a time for the calls whose parameters put a loop's per-lane accesses 2048 bytes or more apart (1 tested)"),
                "{ty} {row}: {line}"
            );
        }
        // 12 floats a row: 48 bytes apart, chunks in flight; 512 and 700:
        // 2048 and 2800 bytes, one chunk at a time; 511 just below.
        for n in [12, 511, 512, 700] {
            let runs = compare_launches(&m, "k", &k, &ranges(), |r| specs(r, n));
            assert_eq!(runs, 4, "{ty} {row} n = {n}");
        }
    }
}

#[test]
fn a_constant_stride_of_pages_runs_one_chunk_at_a_time() {
    let src = ROWS
        .replace("TYPE n", "int unused")
        .replace("(ROW) * n", "i * 600")
        .replace("j < n", "j < 600");
    let m = build(&src, "");
    let k = compile_kernel(&m, "k", &wide_options()).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(
            line.contains(
                "; one chunk at a time: a loop's per-lane accesses lie 2048 bytes or more apart"
            ),
            "{line}"
        );
        assert!(!line.contains("chunks in flight"), "{line}");
    }
    let runs = compare_launches(&m, "k", &k, &ranges(), |r| specs(r, 600));
    assert_eq!(runs, 4);
}

#[test]
fn strides_the_analysis_cannot_tell_keep_the_chunks_in_flight() {
    // A product of two parameters (not tested) and a constant stride of
    // 64 bytes.
    for body in ["s += a[i * n * n + j]", "s += a[i * 16 + j]"] {
        let src = ROWS
            .replace("TYPE", "int")
            .replace("s += a[(ROW) * n + j] * x[j]", body);
        let m = build(&src, "");
        let k = compile_kernel(&m, "k", &wide_options()).expect("compiles");
        let line = code_line(&k);
        if cpu_has_wide() {
            assert!(line.contains("chunks in flight"), "{body}: {line}");
            assert!(!line.contains("one chunk at a time"), "{body}: {line}");
        }
    }
}

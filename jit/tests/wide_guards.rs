//! Uniform loads under a test of the lanes' id against a bound (`if (i <
//! n)`, the rest of the body after `if (i >= n) return;`): lane 0 runs
//! whenever a lane of such an arm does, so the wide code reads the
//! element at lane 0's index without looking for the first running lane.
//! Against the interpreter with bounds that cut chunks anywhere, bounds
//! past the launch and below it, and the tests the other way round (a
//! suffix of the lanes), where the first running lane is looked for.

use vecl_ir::interp::NdRange;
use vecl_jit::compile_kernel;
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::{code_line, cpu_has_wide, range_1d, wide_options};

/// Each work-item sums `w[c * k + f]` (uniform) minus its own row of `k`
/// points (a gather), kmeans' distance, under `GUARD`.
const GUARDED: &str = r#"
kernel void k(global const float* p, global const float* w, global float* out, int n, int k) {
    int i = get_global_id(0);
    GUARD
    float s = 0.0f;
    for (int c = 0; c < 3; c++) {
        for (int f = 0; f < k; f++) {
            float d = p[i * k + f] - w[c * k + f];
            s += d * d;
        }
    }
    out[i] = s + (float)n;
    END
}
"#;

fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 16, 16),
        range_1d(0, 53, 53),
        range_1d(3, 150, 50),
        range_1d(0, 96, 32),
    ]
}

#[test]
fn uniform_loads_under_id_bounds_agree_with_the_interpreter() {
    let guards = [
        ("if (i >= n) return;", ""),
        ("if (n <= i) return;", ""),
        ("if ((size_t)i < (size_t)n && k > 0) {", "}"),
        // The lanes past the bound run: their first is not lane 0.
        ("if (i > n) {", "}"),
        ("if (i < n) return;", ""),
    ];
    for (guard, end) in guards {
        let src = GUARDED.replace("GUARD", guard).replace("END", end);
        let m = build(&src, "");
        let kernel = compile_kernel(&m, "k", &wide_options()).expect("compiles");
        if cpu_has_wide() {
            let line = code_line(&kernel);
            assert!(line.starts_with("code: wide AVX-512"), "{guard}: {line}");
        }
        for n in [0, 5, 16, 21, 40, 200] {
            let runs = compare_launches(&m, "k", &kernel, &ranges(), |r| {
                let items = (r.global_offset[0] + r.global_size[0]) as usize;
                vec![
                    Spec::Floats(items * 4, 1),
                    Spec::Floats(3 * 4, 2),
                    Spec::Floats(items, 0),
                    Spec::Int(n),
                    Spec::Int(4),
                ]
            });
            assert_eq!(runs, 4, "{guard} n = {n}");
        }
    }
}

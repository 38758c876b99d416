//! Variables whose scope is one block (`uniformity::scope_depths`): a
//! variable written first, and only used, inside the arm of a branch the
//! lanes take apart is uniform for the lanes that run the arm, so the
//! guarded loop of `if (i < n && j < n) { for (k …) s += A[i*n+k] … }`
//! keeps its uniform counter and loads. Next to it, the forms that must
//! stay per lane: a variable read before the arm writes it (a value from
//! an earlier run of the arm), read after the arm, written under a branch
//! or loop that diverges inside the arm, and carried between the cases of
//! a `switch`. Each is compared with the interpreter at every width and on
//! the wide code, over launches whose padding rows and columns run none of
//! the arm (their uniform loads would read past the buffers).

use vecl_testkit::*;

/// A guarded product over launches larger than the matrices (`n` = 5, 17
/// and 33 inside 8×8 to 48×40 grids).
const GEMM: &str = "kernel void k(global const float* A, global const float* B,
                       global float* C, int n) {
    int i = get_global_id(1), j = get_global_id(0);
    if (i < n && j < n) {
        float s = 0;
        for (int k = 0; k < n; k++) s += A[i * n + k] * B[k * n + j];
        C[i * n + j] = s;
    }
}";

fn gemm_ranges() -> Vec<(vecl_ir::interp::NdRange, i32)> {
    vec![
        (range_2d([8, 8], [8, 8], [0, 0]), 5),
        (range_2d([32, 24], [16, 8], [0, 0]), 17),
        (range_2d([48, 40], [16, 4], [0, 0]), 33),
        (range_2d([20, 20], [4, 4], [0, 0]), 17),
    ]
}

fn gemm_args(n: i32) -> Vec<Spec> {
    let cells = (n * n) as usize;
    vec![
        Spec::Floats(cells, 1),
        Spec::Floats(cells, 2),
        Spec::Floats(cells, 0),
        Spec::Int(n),
    ]
}

#[test]
fn guarded_loop_counter_and_its_loads_are_uniform() {
    let loads = explain_line(GEMM, 16, "loads:");
    assert!(
        loads.contains("3 uniform") && loads.contains("0 per lane"),
        "{loads}"
    );
    let branches = explain_line(GEMM, 16, "branches:");
    assert!(
        branches.contains("loops: 1 uniform, 0 divergent"),
        "{branches}"
    );
}

#[test]
fn guarded_product_matches_interpreter_past_the_matrices() {
    let m = build(GEMM, "");
    let mut compared = 0;
    for &w in WIDTHS.iter() {
        let k = compile(&m, "k", w);
        for (range, n) in gemm_ranges() {
            compared += compare_launches(&m, "k", &k, &[range], |_| gemm_args(n));
        }
    }
    assert_eq!(compared, WIDTHS.len() * gemm_ranges().len());
}

#[test]
fn guarded_product_on_the_wide_code_matches_interpreter() {
    let m = build(GEMM, "");
    let k = compile_wide(&m, "k");
    for (range, n) in gemm_ranges() {
        compare_launches(&m, "k", &k, &[range], |_| gemm_args(n));
    }
}

/// Variables that look scoped but are not: each would give wrong results
/// as one value for the lanes of a run.
const NOT_SCOPED: &str = "kernel void k(global const int* a, global int* o, int n) {
    int g = 2 * get_global_id(0);
    int x = a[g];
    int carried = 0, after = 0, nested = 0, looped = 0, fell = 0;
    for (int r = 0; r < n; r++) {
        if ((x + r) % 3 == 0) {
            // Read before this run writes it: earlier runs had other lanes.
            carried = carried + r;
        }
    }
    if (x & 1) {
        int w = 5;
        w = w + n;
        after = w;
    }
    // `w` above is scoped; `after` is read after the arm.
    if (x & 2) {
        int v = 1;
        if (x & 4) v = 7;
        nested = v * n;
    }
    if (x & 8) {
        int c = 0;
        while (c < (x & 7)) c++;
        looped = c;
    }
    switch (x & 3) {
        case 0: { int s = n; fell = s; }
        case 1: { int s2 = 3; fell += s2; break; }
        default: fell = -1;
    }
    // Every access of `cnt` is in the arm, but each run reads the count of
    // the runs before it, which differs between lanes.
    int cnt;
    int t = 0;
    while (true) {
        if (t == 0 || (x + t) % 3 == 0) {
            cnt = t == 0 ? 0 : cnt + 1;
            o[g + 1] = cnt;
        }
        t++;
        if (t >= n) break;
    }
    o[g] = carried * 1000000 + after * 10000 + nested * 100 + looped * 10 + fell;
}";

#[test]
fn variables_that_are_not_scoped_stay_per_lane() {
    let n = differential(NOT_SCOPED, "k", &chunk_edges_1d(), |r| {
        let len = 2 * (r.global_offset[0] + r.global_size[0]) as usize + 8;
        vec![Spec::Ints(len, 7), Spec::Ints(len, 0), Spec::Int(6)]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

/// A scoped variable inside a loop whose runs of the arm see different
/// lanes: each run writes it first, so each run's lanes agree.
#[test]
fn scoped_variable_rewritten_in_each_run_of_its_arm() {
    let src = "kernel void k(global const int* a, global int* o, int n) {
        int g = get_global_id(0);
        int x = a[g];
        int acc = 0;
        for (int t = 0; t < n; t++) {
            if ((x ^ t) & 1) {
                int s = t * 3;
                for (int k = 0; k < t; k++) s += a[k];
                acc += s;
            }
        }
        o[g] = acc;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let len = (r.global_offset[0] + r.global_size[0]) as usize + 8;
        vec![Spec::Ints(len, 3), Spec::Ints(len, 0), Spec::Int(5)]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

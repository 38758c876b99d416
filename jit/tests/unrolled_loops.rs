//! Loops with constant bounds, which the JIT unrolls
//! (`vecl_ir::transform::unroll`), against the interpreter at every width:
//! nested stencil loops with clamped indices, counters of narrow and
//! unsigned types that wrap, counting down, counters read after the loop,
//! `return`, `switch` and inner loops inside the body, and loops that must
//! stay loops (`break`, a counter written in the body, too many trips).

use vecl_testkit::*;

fn n_for(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

fn check(src: &str, args: impl Fn(usize) -> Vec<Spec>) {
    let n = differential(src, "k", &chunk_edges_1d(), |r| args(n_for(r)));
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

#[test]
fn stencil_loops_with_clamped_indices_match_interpreter() {
    check(
        "kernel void k(global const float* in, global float* o, constant float* w, int n) {
            int x = get_global_id(0);
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -2; dx <= 2; dx++) {
                    int xx = clamp(x + dx * (dy + 2), 0, n - 1);
                    acc += w[(dy + 1) * 5 + dx + 2] * in[xx];
                }
            }
            o[x] = acc;
        }",
        |n| {
            vec![
                Spec::Floats(n, 3),
                Spec::Floats(n, 0),
                Spec::Floats(16, 7),
                Spec::Int(n as i32 - 8),
            ]
        },
    );
}

#[test]
fn wrapping_and_descending_counters_match_interpreter() {
    check(
        "kernel void k(global const int* a, global int* o) {
            size_t g = get_global_id(0);
            int v = a[g];
            uchar c;
            for (c = 252; c != 3; c++) v = v * 3 + c;
            int d;
            for (d = 5; d > -6; d -= 2) v ^= d << (v & 7);
            uint u;
            for (u = 2u; u < 7u; u += 3u) v += (int)u * v;
            ushort s = 0;
            for (short t = 32766; t > 0 && t < 32767; t++) s += (ushort)t;
            o[g] = v + c + d + (int)u + s;
        }",
        |n| vec![Spec::Ints(n, 5), Spec::Ints(n, 0)],
    );
}

#[test]
fn bodies_with_return_switch_and_inner_loops_match_interpreter() {
    check(
        "kernel void k(global const int* a, global int* o) {
            size_t g = get_global_id(0);
            int x = a[g];
            int acc = 0;
            for (int i = 0; i < 6; i++) {
                switch ((x + i) & 3) {
                    case 0: acc += i; break;
                    case 1: acc -= x; 
                    case 2: acc ^= 5; break;
                    default: acc *= 3;
                }
                for (int j = 0; j < (x & 7); j++) {
                    if (j == i) continue;
                    acc += j;
                }
                if (acc > 1000 + i * 200) {
                    o[g] = -acc;
                    return;
                }
            }
            o[g] = acc;
        }",
        |n| vec![Spec::Ints(n, 11), Spec::Ints(n, 0)],
    );
}

#[test]
fn loops_that_stay_loops_match_interpreter() {
    check(
        "kernel void k(global const int* a, global int* o) {
            size_t g = get_global_id(0);
            int x = a[g];
            int acc = 0;
            for (int i = 0; i < 5; i++) {
                if (acc > x) break;
                acc += i * x;
            }
            for (int i = 0; i < 5; i++) {
                acc += i;
                if (x & 1) i++;
            }
            for (int i = 0; i < 100; i++) acc += i ^ x;
            o[g] = acc;
        }",
        |n| vec![Spec::Ints(n, 13), Spec::Ints(n, 0)],
    );
}

#[test]
fn paired_iterations_match_interpreter() {
    // Even trip counts above the full-unrolling limit run two iterations
    // per trip: counting up and down, by two, a `uchar` counter that
    // wraps, a masked `if`, a `switch` and a nested loop in the body, the
    // counter read after the loop; an odd count stays one per trip.
    check(
        "kernel void k(global const int* a, global int* o) {
            size_t g = get_global_id(0);
            int x = a[g];
            int acc = 0;
            int k;
            for (k = 0; k < 16; k++) acc += (k + 1) * a[(g + k) % 8];
            acc += k;
            for (int i = 40; i > 0; i -= 2) {
                if ((x ^ i) & 4) acc -= i; else acc += x;
                switch (i & 3) { case 0: acc ^= 1; break; default: acc += 2; }
            }
            uchar c;
            for (c = 250; c != 10; c++) acc += c;
            for (int i = 0; i < 12; i++)
                for (int j = 0; j < 3; j++) acc += i * j + x;
            for (int i = 0; i < 17; i++) acc += i & x;
            o[g] = acc + c;
        }",
        |n| vec![Spec::Ints(n, 13), Spec::Ints(n, 0)],
    );
}

#[test]
fn loops_to_a_fixed_bound_run_paired_with_a_last_iteration_matching_interpreter() {
    // Bounds that are not constants but do not change in the loop: a
    // parameter, a variable, a sum of both, a bound the body cannot reach;
    // counting up and down, `<=` and `!=`, a `uchar` counter compared as
    // `int` (it wraps), trip counts even, odd and zero; and a bound the
    // body writes, which must stay one iteration per trip.
    check(
        "kernel void k(global const int* a, global int* o, int n, int m) {
            size_t g = get_global_id(0);
            int x = a[g];
            int acc = 0;
            int k;
            for (k = 0; k < n; k++) acc += (k + 1) * a[(g + k) % 8];
            acc += k;
            int lim = m + (x & 3);
            for (int i = lim; i > 0; i--) { if ((x ^ i) & 4) acc -= i; else acc += x; }
            for (int i = 2; i <= lim; i++) acc ^= i * x;
            for (int i = n; i != m; i--) acc += i;
            uchar c;
            for (c = 250; c != (uchar)(n - 7); c++) acc += c;
            for (int i = 0; i < m - 100; i++) acc += 1000;
            int bound = n;
            for (int i = 0; i < bound; i++) { acc += i; if (i == 3) bound = 2; }
            o[g] = acc + c;
        }",
        |n| {
            vec![
                Spec::Ints(n, 13),
                Spec::Ints(n, 0),
                Spec::Int(11),
                Spec::Int(4),
            ]
        },
    );
}

/// A loop whose bound reads an outer loop's counter: the outer loop is
/// expanded first and the inner one unrolled in each copy, so the private
/// array's indices are constants and it lives in registers. A bubble sort
/// of eight values per work-item (with equal keys), a triangle whose rows
/// start at the outer counter, and an inner bound that also reads a
/// parameter (not constant: the inner loops stay loops).
#[test]
fn loops_bounded_by_an_outer_counter_match_interpreter() {
    let sort = "kernel void k(global const int* a, global int* o, int n) {
        int g = get_global_id(0);
        int v[8];
        for (int i = 0; i < 8; i++) v[i] = a[(g + i) % (n + 8)] & 7;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 7 - i; j++)
                if (v[j] > v[j + 1]) { int t = v[j]; v[j] = v[j + 1]; v[j + 1] = t; }
        int s = 0;
        for (int i = 0; i < 8; i++) s = s * 3 + v[i];
        int tri = 0;
        for (int i = 0; i < 6; i++)
            for (int j = i; j < 6; j += 2) tri += v[j] * (i + 1);
        int open = 0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < n - i; j++) open += j ^ v[3];
        o[g] = s + tri * 7 + open * 13;
    }";
    check(sort, |n| {
        vec![
            Spec::Ints(n + 8, 5),
            Spec::Ints(n, 0),
            Spec::Int(n as i32 - 8),
        ]
    });
    let stores = explain_line(sort, 16, "stores:");
    assert!(stores.contains("0 per lane (scatter)"), "{stores}");
}

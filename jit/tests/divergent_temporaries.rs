//! Temporaries written under divergence without a blend (`fresh_writes` in
//! `lower/`): loop-body temporaries of divergent loops, with `continue`
//! and `break` before and after the write, temporaries in `if` arms and
//! `switch` cases, next to variables that must keep the values of the
//! lanes that skip a write. Each launch is compared with the interpreter
//! at every width.

use vecl_testkit::*;

fn n_for(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

#[test]
fn divergent_loop_temporaries_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o) {
        size_t g = get_global_id(0);
        int x = a[g];
        int acc = 0;
        for (int i = 0; i < (x & 15); i++) {
            if (i == 3 && (x & 1)) continue;
            int t = x * i + 1;
            if (t > 40) { int u = t - 40; acc += u; if (u > 30) break; continue; }
            int w = t;
            if (x & 2) w = -t;
            acc += w;
        }
        switch (x & 3) {
            case 0: { int s = acc * 2; acc = s; }
            case 1: { int s2 = acc + 7; acc = s2; break; }
            default: { int s3 = acc - 1; acc = s3; }
        }
        o[g] = acc;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = n_for(r);
        vec![Spec::Ints(n, 5), Spec::Ints(n, 0)]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

#[test]
fn escape_time_loop_matches_interpreter() {
    let src = "kernel void k(global float* o, int max_iter) {
        size_t g = get_global_id(0);
        float cr = -2.0f + 0.011f * (float)g;
        float zr = 0.0f, zi = 0.0f;
        int i = 0;
        while (i < max_iter && zr * zr + zi * zi <= 4.0f) {
            float t = zr * zr - zi * zi + cr;
            zi = 2.0f * zr * zi + 0.3f;
            zr = t;
            i++;
        }
        o[g] = (float)i + zr;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        vec![Spec::Floats(n_for(r), 0), Spec::Int(64)]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

/// Variables carried around a divergent loop and dead after it, written
/// without a blend (`loop_carried` in `fresh_writes`), next to ones that
/// must keep skipped lanes' values: a `continue` before the write, a loop
/// re-entered by an outer loop with and without a write before it, a
/// masked `return` inside the loop; and `if` arms of only `break` or
/// `continue`, and counters stepped under a mask (`i++`, `j -= k`).
#[test]
fn loop_carried_variables_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o, int n) {
        size_t g = get_global_id(0);
        int x = a[g];
        int out = 0;
        int kept = 0;
        for (int r = 0; r < n; r++) {
            int z = x & 7;
            int i = 0;
            while (i < 20) {
                if (z > 30) break;
                z = z * 2 + r;
                i++;
            }
            out += i;
            while (kept < (x & 15) + r) kept = kept + 3;
            int c = 0;
            int d = 0;
            int j = 40;
            while (j > 0) {
                j -= (x & 3) + 1;
                if ((j & 3) == 1) continue;
                d = d + 1;
                c = c + j;
                if (c > 200 + r || d > 3) { if (x & 8) return; break; }
            }
            out += c + kept;
        }
        o[g] = out;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = n_for(r);
        vec![Spec::Ints(n, 5), Spec::Ints(n, 0), Spec::Int(3)]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

/// `c ? x[i] : 0` (an `if` writing a temporary in both arms, whose `then`
/// write is plain) and the one-instruction blends with a zero arm, in a
/// loop with `continue` and `break` and under an outer varying `if`.
#[test]
fn conditional_loads_in_both_arms_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o, int n) {
        size_t g = get_global_id(0);
        int x = a[g];
        int acc = 0;
        if (x != 3) {
            for (int r = 0; r < n; r++) {
                if (x == r) continue;
                int t = x > r ? a[g + 1] : 0;
                int u = x < 0 ? 0 : t * 2;
                acc += t + u;
                if (acc > 40) break;
            }
        }
        o[g] = acc;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = n_for(r);
        vec![Spec::Ints(n, 5), Spec::Ints(n, 0), Spec::Int(6)]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

/// Divergent loops whose body leaves lanes in the middle: an empty mask
/// there ends the loop at once, and the loop's own test at the end of the
/// body is left out only when nothing after the middle test can drop lanes.
/// Here statements after a `break` write variables read after the loop, a
/// second `break` and a masked `return` come later in the body, an inner
/// loop's `break` sits between the test and the body's end, and a body
/// ends in a `break` of every lane left.
#[test]
fn loop_exits_in_the_body_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o, int n) {
        size_t g = get_global_id(0);
        int x = a[g];
        int i = 0, s = 0, last = -1;
        while (i < n) {
            if ((x >> (i & 7)) & 1) break;
            s += i * x;
            last = i;
            i++;
        }
        int j = 0, t = 0;
        for (;;) {
            t += j;
            if (t > (x & 63)) break;
            j++;
            if (j == (x & 15)) break;
            t ^= x;
        }
        int k = 0, u = 0;
        while (k < 9) {
            if (u > (x & 31)) break;
            for (int m = 0; m < 4; m++) { if (m + k > (x & 7)) break; u += m; }
            k++;
            if (k == 5 && (x & 64)) { o[g] = -s; return; }
        }
        int v = 0, q = 0;
        for (; q < 3; q++) { if (x & (1 << q)) break; v += q + 1; break; }
        o[g] = s + 3 * last + 5 * i + 7 * j + 11 * t + 13 * k + 17 * u + 19 * v + 23 * q;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        vec![
            Spec::Ints(n_for(r), 9),
            Spec::Ints(n_for(r), 0),
            Spec::Int(12),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

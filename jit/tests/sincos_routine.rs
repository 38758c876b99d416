//! `sincos` through its own routine (one reduction and one pair of
//! polynomials for both results, `lower/builtins/vmath.rs`): every result
//! equals `sin` and `cos` of the same argument to the bit, on one piece
//! (W = 4), several (W = 16, 32), a uniform argument, huge arguments past
//! 2^20 (the per-lane exact path), ±0, ±inf and NaN, with and without
//! `-cl-fast-relaxed-math`. The kernel writes the bitwise differences,
//! and the interpreter (whose `sincos` is its `sin` and `cos`) writes
//! zeros.

use vecl_testkit::differential::{build, compare_launches, try_compile, Spec};
use vecl_testkit::range_1d;

const SRC: &str = r#"
float arg(int i, float scale) {
    float x = (float)(i - 150) * 0.37f * scale;
    return i == 3 ? INFINITY : i == 4 ? -INFINITY : i == 5 ? NAN : i == 6 ? -0.0f
        : i == 7 ? 0.0f : (i % 11 == 0 ? x * 3.0e7f : x);
}

kernel void k(global uint* out, float u) {
    int i = get_global_id(0) - get_global_offset(0);
    float x = arg(i, 1.0f);
    float c;
    float s = sincos(x, &c);
    out[4 * i + 0] = as_uint(s) ^ as_uint(sin(x));
    out[4 * i + 1] = as_uint(c) ^ as_uint(cos(x));
    float uc;
    float us = sincos(u, &uc);
    out[4 * i + 2] = as_uint(us) ^ as_uint(sin(u));
    out[4 * i + 3] = as_uint(uc) ^ as_uint(cos(u));
}
"#;

#[test]
fn sincos_gives_the_bits_of_sin_and_cos() {
    for options in ["", "-cl-fast-relaxed-math"] {
        let m = build(SRC, options);
        for w in [4, 16, 32] {
            let k = try_compile(&m, "k", w).expect("compiles");
            let ranges = [range_1d(0, 300, 60), range_1d(2, 77, 7)];
            for u in [0.5f32, -3.0e7, f32::INFINITY, -0.0] {
                let got = compare_launches(&m, "k", &k, &ranges, |r| {
                    vec![Spec::Ints(4 * r.global_size[0] as usize, 0), Spec::Float(u)]
                });
                assert_eq!(got, ranges.len(), "W = {w}, u = {u}, {options:?}");
            }
        }
    }
}

/// A kernel calling `sincos` alone gets the one routine, not `sin` and
/// `cos`.
#[test]
fn sincos_is_one_routine() {
    let src = "kernel void k(global float* a, global float* b) { int i = get_global_id(0); float c; a[i] = sincos(a[i], &c); b[i] = c; }";
    let m = build(src, "");
    let k = try_compile(&m, "k", 16).expect("compiles");
    let explain = k.explain();
    assert!(
        explain.contains("math routine sincos(f32x4) on 4 pieces"),
        "{explain}"
    );
    assert!(!explain.contains("math routine sin("), "{explain}");
    assert!(!explain.contains("math routine cos("), "{explain}");
}

/// Chunks whose lanes all lie within the fast path's limit (the 16-lane
/// AVX-512 routine on hosts that have it, `zsincos.rs`) beside chunks
/// with a huge lane (the routine's exact path): the same bits as `sin`
/// and `cos` (the interpreter's `sincos` is its `sin` and `cos`).
#[test]
fn sincos_of_whole_blocks_in_range_gives_the_bits_of_sin_and_cos() {
    let src = r#"
kernel void k(global uint* out) {
    int i = get_global_id(0) - get_global_offset(0);
    float x = (float)(i - 700) * 0.0123f + (i >= 1024 && i % 37 == 0 ? 2.0e6f : 0.0f);
    float c;
    float s = sincos(x, &c);
    out[2 * i + 0] = as_uint(s) ^ as_uint(sin(x));
    out[2 * i + 1] = as_uint(c) ^ as_uint(cos(x));
}
"#;
    let m = build(src, "");
    for w in [16, 32] {
        let k = try_compile(&m, "k", w).expect("compiles");
        let ranges = [
            range_1d(0, 1024, 64),
            range_1d(0, 2048, 128),
            range_1d(5, 93, 31),
        ];
        let got = compare_launches(&m, "k", &k, &ranges, |r| {
            vec![Spec::Ints(2 * r.global_size[0] as usize, 0)]
        });
        assert_eq!(got, ranges.len(), "W = {w}");
    }
}

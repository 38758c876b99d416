//! Compares folded into the masks they are and-ed with (`wide::kfold`):
//! loops whose conditions are `&&` of float, signed and unsigned compares
//! (two and three terms), with NaN lanes, divergent trip counts, lanes of
//! no trip and of one, `if`s with compound conditions inside loops, and a
//! compare read twice (not folded); against the interpreter on the wide
//! code over rows with tails, offsets, one to three dimensions, and at
//! the JIT's other widths (Cranelift's code).

use vecl_ir::interp::NdRange;
use vecl_testkit::compile_wide;
use vecl_testkit::differential::{build, compare_launches, try_compile, Spec};
use vecl_testkit::range_1d;

/// Rows of a tail only, one chunk, a chunk and a tail, three, many with
/// a tail, groups shorter than the launch, offsets; and two and three
/// dimensions.
fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 7, 7),
        range_1d(0, 16, 16),
        range_1d(0, 21, 21),
        range_1d(0, 48, 48),
        range_1d(3, 153, 153),
        range_1d(5, 230, 50),
        NdRange {
            work_dim: 2,
            global_offset: [1, 2, 0],
            global_size: [37, 5, 1],
            local_size: [37, 1, 1],
        },
        NdRange {
            work_dim: 3,
            global_offset: [1, 2, 3],
            global_size: [19, 5, 3],
            local_size: [19, 5, 1],
        },
    ]
}

fn specs(r: &NdRange) -> Vec<Spec> {
    let n: u64 = (0..3)
        .map(|d| r.global_offset[d] + r.global_size[d])
        .product();
    vec![
        Spec::Ints(n as usize, 5),
        Spec::Floats(n as usize, 2),
        Spec::Ints(n as usize, 0),
        Spec::Floats(n as usize, 0),
        Spec::Int(12),
    ]
}

/// Agrees with the interpreter on the wide code and at W = 4, 8 and 32
/// (`wide_memory.rs` runs the first kernel under robust access).
fn agrees(src: &str) {
    let m = build(src, "");
    let n = ranges().len();
    let k = compile_wide(&m, "k");
    assert_eq!(compare_launches(&m, "k", &k, &ranges(), specs), n);
    for w in [4, 8, 32] {
        let k = try_compile(&m, "k", w).expect("compiles");
        assert_eq!(
            compare_launches(&m, "k", &k, &ranges(), specs),
            n,
            "W = {w}"
        );
    }
}

/// Mandelbrot's shape: `i < limit && x * x + y * y <= 4`, the limit per
/// lane (from -11 to 11: lanes of no trip and of one), the point per
/// lane, a NaN for some lanes (an ordered compare: false, no trip).
#[test]
fn a_loop_on_an_int_and_a_float_compare_agrees() {
    agrees(ESCAPE);
}

const ESCAPE: &str = r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    int limit = a[i] + n / 2;
    float cr = f[i] * 0.0625f - 0.75f;
    float ci = (float)a[i] * 0.03125f;
    if (a[i] == 4) cr = 0.0f / 0.0f;
    float zr = 0.0f, zi = 0.0f;
    int t = 0;
    while (t < limit && zr * zr + zi * zi <= 4.0f) {
        float x = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = x;
        t++;
    }
    out[i] = t;
    g[i] = zr + zi;
}
"#;

/// Three terms, an unsigned compare among them, the loop left by a
/// `break` too, and the condition's first compare also read after the
/// loop (not folded: read twice).
#[test]
fn three_terms_unsigned_and_a_compare_read_twice_agree() {
    agrees(
        r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    uint u = (uint)(a[i] + 11);
    float x = f[i];
    int j = 0;
    while ((uint)j < u && x < 40.0f && j != n) {
        x = x * 1.25f + 1.0f;
        if (x > 30.0f && (j & 1) == 0) break;
        j++;
    }
    bool small = x < 3.0f;
    int k = 0;
    for (int q = 0; q < n && small; q++) {
        if (q > a[i] && !small) k += 2;
        k += small;
    }
    out[i] = j * 100 + k;
    g[i] = x;
}
"#,
    );
}

/// An `if` whose compound condition is and-ed with the loop's lanes, in
/// a loop of divergent trips; and `||` beside it.
#[test]
fn compound_ifs_in_a_divergent_loop_agree() {
    agrees(
        r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    int acc = 0;
    float s = 0.0f;
    for (int q = 0; q < a[i] + 11; q++) {
        float v = f[i] + (float)q;
        if (v >= 5.0f && q < n) acc += q;
        if ((uint)q > 3u && v < 9.0f && (q ^ a[i]) > 0) s += v;
        if (q == 2 || v > 20.0f) acc -= 1;
    }
    out[i] = acc;
    g[i] = s;
}
"#,
    );
}

/// Products by the constant 2 (`wide::kfold::double_as_sum`: `x + x` on
/// the wide code) of special values: NaN, both infinities, -0, values
/// that overflow, subnormals, and the products fused into an FMA after
/// them.
#[test]
fn products_by_two_of_special_values_agree() {
    agrees(
        r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    float x = f[i];
    int c = a[i] & 7;
    if (c == 0) x = 0.0f / 0.0f;
    if (c == 1) x = -x / 0.0f;
    if (c == 2) x = -0.0f;
    if (c == 3) x = x * 3.0e38f;
    if (c == 4) x = x * 1.0e-39f;
    if (c == 5) x = x * 1.4e-45f;
    float y = 2.0f * x;
    float z = x * 2.0f * f[i] + (float)n;
    out[i] = as_int(y);
    g[i] = z;
}
"#,
    );
}

//! The wide AVX-512 code (`vecl_jit::wide`, `JitOptions::wide`) against the
//! interpreter: every operation of its subset at W = 16, over launches
//! whose sizes are not multiples of 16 (masked tail chunks), with offsets,
//! in one, two and three dimensions, divergent loops and `if`s; and the
//! kernels and modes it must refuse. On a CPU without AVX-512 every kernel
//! must be refused for that reason and still agree (Cranelift's code).

use vecl_ir::interp::NdRange;
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::range_1d;
use vecl_testkit::{code_line, cpu_has_wide};

fn options(checked: bool) -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide: true,
        checked,
        local_checks: checked,
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

/// Compiles `kernel` of `src` with the wide code asked for and checks it
/// got it (on a CPU that has AVX-512).
fn wide(src: &str, kernel: &str) -> (vecl_ir::Module, CompiledKernel) {
    let m = build(src, "");
    let k = compile_kernel(&m, kernel, &options(false)).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{kernel}: {line}");
    } else {
        assert!(line.contains("no AVX-512F"), "{kernel}: {line}");
    }
    (m, k)
}

fn ranges_1d() -> Vec<NdRange> {
    vec![
        range_1d(0, 64, 16),
        range_1d(0, 37, 37),
        range_1d(3, 100, 25),
        range_1d(0, 20, 1),
        range_1d(5, 333, 64),
        range_1d(0, 7, 7),
    ]
}

fn ranges_2d() -> Vec<NdRange> {
    vec![
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [37, 5, 1],
            local_size: [37, 1, 1],
        },
        NdRange {
            work_dim: 2,
            global_offset: [2, 1, 0],
            global_size: [21, 6, 1],
            local_size: [8, 4, 1],
        },
        NdRange {
            work_dim: 3,
            global_offset: [1, 2, 3],
            global_size: [19, 5, 3],
            local_size: [4, 2, 3],
        },
    ]
}

/// Runs `kernel` of `src` on the wide code and on the interpreter over
/// `ranges`, `n` elements per buffer argument.
fn agree(src: &str, kernel: &str, ranges: &[NdRange], args: impl Fn(&NdRange) -> Vec<Spec>) {
    let (m, k) = wide(src, kernel);
    assert_eq!(compare_launches(&m, kernel, &k, ranges, args), ranges.len());
}

const FLOAT_OPS: &str = r#"
kernel void k(global const float* a, global const float* b, global float* out, float s) {
    int i = get_global_id(0);
    float x = a[i];
    float y = b[i];
    out[8 * i + 0] = x + y * s;
    out[8 * i + 1] = x - y;
    out[8 * i + 2] = -(x * y);
    out[8 * i + 3] = x / (y * y + 1.0f);
    out[8 * i + 4] = sqrt(fabs(x) + 2.0f);
    out[8 * i + 5] = fma(x, y, s);
    out[8 * i + 6] = (float)(int)(x * 2.5f) + (float)(uint)(fabs(y) * 3.5f);
    out[8 * i + 7] = x < y ? x : (x == y ? 100.0f : y);
}
"#;

#[test]
fn float_arithmetic_conversions_and_selects_agree() {
    agree(FLOAT_OPS, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(n, 4),
            Spec::Floats(8 * n, 0),
            Spec::Float(1.5),
        ]
    });
}

const INT_OPS: &str = r#"
kernel void k(global const int* a, global const int* b, global int* out, global uint* uout, int s) {
    int i = get_global_id(0);
    int x = a[i];
    int y = b[i];
    uint u = (uint)x;
    out[10 * i + 0] = x + y * s;
    out[10 * i + 1] = x - y;
    out[10 * i + 2] = (x & y) | (x ^ s);
    out[10 * i + 3] = x << (y & 7);
    out[10 * i + 4] = x >> (y & 3);
    out[10 * i + 5] = -x + ~y;
    out[10 * i + 6] = (x < y) + (x <= y) * 2 + (x > y) * 4 + (x >= y) * 8 + (x == y) * 16 + (x != y) * 32;
    out[10 * i + 7] = (x < 0 && y > 0) || x == 3 ? 1 : 0;
    out[10 * i + 8] = x << 33;
    out[10 * i + 9] = (int)((float)x * 0.5f);
    uout[3 * i + 0] = u >> 3;
    uout[3 * i + 1] = (u < (uint)y) ? 7u : 9u;
    uout[3 * i + 2] = u * 3u + (uint)s;
}
"#;

#[test]
fn integer_arithmetic_shifts_and_comparisons_agree() {
    agree(INT_OPS, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Ints(n, 1),
            Spec::Ints(n, 5),
            Spec::Ints(10 * n, 0),
            Spec::Ints(3 * n, 2),
            Spec::Int(3),
        ]
    });
}

const DIVERGENT: &str = r#"
kernel void k(global const int* a, global int* out, global float* f, int n) {
    size_t gid = get_global_id(0);
    int x = a[gid];
    int count = 0;
    float acc = 0.0f;
    // A loop whose trip count differs between lanes, with a continue and
    // a break taken by some lanes only.
    for (int j = 0; j < n + x; j++) {
        if (j == 2) continue;
        if (x > 5 && j > 7) break;
        count += j;
        acc = acc * 0.5f + (float)j;
    }
    if (x < -8) {
        out[gid] = -1;
        return;
    }
    bool odd = (x & 1) != 0;
    while (odd && count > 3) {
        count -= 3;
    }
    if (odd) {
        f[gid] = acc;
    } else {
        f[gid] = -acc;
    }
    out[gid] = count;
}
"#;

#[test]
fn divergent_loops_ifs_and_returns_agree() {
    agree(DIVERGENT, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Ints(n, 3),
            Spec::Ints(n, 0),
            Spec::Floats(n, 0),
            Spec::Int(9),
        ]
    });
}

const GATHERS: &str = r#"
kernel void k(global const float* a, global const int* idx, global float* out, global float* scattered) {
    int i = get_global_id(0);
    int j = idx[i] + 11;
    out[i] = a[j] + a[2 * i];
    scattered[2 * i + 1] = a[i];
}
"#;

#[test]
fn gathers_and_scatters_agree() {
    agree(GATHERS, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(2 * n + 23, 1),
            Spec::Ints(n, 2),
            Spec::Floats(n, 0),
            Spec::Floats(2 * n, 3),
        ]
    });
}

const TWO_D: &str = r#"
kernel void k(global int* out, global float* f) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    int z = get_global_id(2);
    int w = get_global_size(0);
    int h = get_global_size(1);
    int at = (z * h + y) * w + x;
    out[at] = x + 100 * y + 10000 * z + (int)get_work_dim() * 1000000 + (int)get_global_offset(0);
    f[at] = (float)x / (float)w;
}
"#;

#[test]
fn two_and_three_dimensional_ids_agree() {
    agree(TWO_D, "k", &ranges_2d(), |r| {
        let n: u64 = (0..3)
            .map(|d| r.global_offset[d] + r.global_size[d])
            .product();
        vec![Spec::Ints(n as usize, 0), Spec::Floats(n as usize, 0)]
    });
}

fn bench_source(name: &str) -> String {
    let path = format!("{}/../benches/{name}.cl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_bench_kernels_mandelbrot_saxpy_and_vadd_agree() {
    let mandelbrot = bench_source("mandelbrot");
    agree(&mandelbrot, "mandelbrot", &ranges_2d()[..2], |r| {
        let (w, h) = (
            r.global_offset[0] + r.global_size[0],
            r.global_offset[1] + r.global_size[1],
        );
        vec![
            Spec::Ints((w * h) as usize, 0),
            Spec::Int(w as i32),
            Spec::Int(h as i32),
            Spec::Int(50),
        ]
    });
    let saxpy = bench_source("saxpy");
    agree(&saxpy, "saxpy", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Float(2.5), Spec::Floats(n, 1), Spec::Floats(n, 2)]
    });
    let vadd = bench_source("vadd");
    agree(&vadd, "vadd", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Floats(n, 1), Spec::Floats(n, 2), Spec::Floats(n, 0)]
    });
}

/// The report line of kernel `k` of `src` compiled with `opts`.
/// Loads of one address for every running lane (a scalar load,
/// broadcast): conv5x5's weights in its loops, an address that only the
/// running lanes share (lane 0 not among them: under a branch, in a loop
/// whose lanes leave at different trips), and one under a branch no lane
/// of some chunks takes (no access there).
const UNIFORM_LOADS: &str = r#"
kernel void k(global const float* a, constant float* w, global float* out, int n) {
    int i = get_global_id(0);
    float acc = w[0] * a[i];
    int j = i & 7;
    if (j > 4) {
        acc += w[j];
    }
    if ((i & 15) > 9) {
        acc += w[5];
    }
    for (int t = 0; t < (i & 3); t++) {
        acc += w[t + 8] * (float)t;
    }
    if (i >= n) {
        acc += w[n];
    }
    out[i] = acc;
}
"#;

#[test]
fn loads_of_one_address_for_every_lane_agree() {
    agree(UNIFORM_LOADS, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(16 + n, 3),
            Spec::Floats(n, 0),
            Spec::Int(n as i32 - 5),
        ]
    });
    // conv5x5's weights are such loads. Its loops unrolled where the
    // wide code may take it, the clamped `in[yy * w + xx]` is outside any
    // loop: the wide code takes it.
    let conv = bench_source("conv5x5");
    let m = build(&conv, "");
    let k = compile_kernel(&m, "conv5x5", &options(false)).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    // Its radius a parameter, the row loop stays a loop: the clamped load
    // in it would be tested at run time, and it keeps Cranelift's code.
    let radius = conv
        .replace("int height)", "int height, int r)")
        .replace("dy = -2; dy <= 2", "dy = -r; dy <= r");
    assert_ne!(radius, conv);
    let m = build(&radius, "");
    let k = compile_kernel(&m, "conv5x5", &options(false)).expect("compiles");
    let line = code_line(&k);
    assert!(line.starts_with("code: Cranelift"), "{line}");
    if cpu_has_wide() {
        assert!(
            line.contains("a load in a loop whose consecutive lanes would be tested at run time"),
            "{line}"
        );
    }
}

/// `float2`/`float3`/`float4`/`int4` values a component at a time:
/// gathered and scattered elements, swizzles, constructions, splats,
/// component-wise arithmetic and builtins, vector variables written under
/// a branch.
const VECTORS: &str = r#"
kernel void k(global const float4* a, global float4* b, global int4* c, global float2* d) {
    int i = get_global_id(0);
    float4 p = a[i];
    float3 q = p.xyz - p.yzx * 0.5f;
    float4 r = (float4)(q, p.w) * 2.0f;
    // A loop keeps the kernel on the wide code (a loop-free one moving
    // whole vector elements is Cranelift's: `select::whole_vector_elements`).
    for (int t = 0; t < (i & 3); t++) r = r * 0.5f + p;
    if ((i & 3) == 1) {
        r = fma(r, p, (float4)(1.0f));
        r.y = sqrt(fabs(q.z));
    }
    b[i] = r;
    int4 n = (int4)(i, i * 2, -i, 7);
    c[i] = n + (int4)(3);
    d[i] = p.wx + (float2)(q.x, r.z);
}
"#;

#[test]
fn vector_values_and_accesses_agree() {
    agree(VECTORS, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(4 * n, 1),
            Spec::Floats(4 * n, 0),
            Spec::Ints(4 * n, 0),
            Spec::Floats(2 * n, 0),
        ]
    });
}

/// The same accesses without the loop take Cranelift's code, which
/// moves consecutive vector elements whole.
#[test]
fn loop_free_vector_element_kernels_keep_cranelift_code() {
    let src = VECTORS.replace("for (int t = 0; t < (i & 3); t++) r = r * 0.5f + p;", "");
    let line = refusal(&src, &options(false));
    if cpu_has_wide() {
        assert!(line.contains("consecutive vector elements"), "{line}");
    }
}

fn refusal(src: &str, opts: &JitOptions) -> String {
    let m = build(src, "");
    let k = compile_kernel(&m, "k", opts).expect("compiles");
    code_line(&k)
}

#[test]
fn barrier_kernels_checked_mode_and_other_operations_are_refused() {
    // A barrier kernel with a `return`: the lanes that returned are not
    // kept across the barrier (`wide_local.rs` runs barrier kernels).
    let returns = r#"
kernel void k(global float* a, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    float x = a[i];
    barrier(CLK_GLOBAL_MEM_FENCE);
    a[i] = x + 1.0f;
}
"#;
    let line = refusal(returns, &options(false));
    assert!(line.starts_with("code: Cranelift"), "{line}");
    if cpu_has_wide() {
        assert!(
            line.contains("a `return` in a kernel with barriers"),
            "{line}"
        );
    }
    // `__local` memory of 2-byte elements stays outside the subset.
    let local = "kernel void k(global short* a, local short* t) { t[0] = a[get_global_id(0)]; }";
    let line = refusal(local, &options(false));
    if cpu_has_wide() {
        assert!(line.contains("Scalar(I16)"), "{line}");
    }
    // Checked mode keeps Cranelift's code for a kernel with `__local`
    // memory, whose race and initialisation checks are Cranelift's; a
    // kernel with neither `__local` memory nor a barrier takes the wide
    // code, as robust access does (`wide_memory.rs`).
    let line = refusal(local, &options(true));
    assert_eq!(
        line,
        "code: Cranelift (not the wide code: checked mode (its `__local` race and initialisation checks are Cranelift's))"
    );
    let line = refusal(FLOAT_OPS, &options(true));
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    // 64-bit arithmetic whose values may leave 32 bits stays outside the
    // subset (`wide_int64.rs` runs what the ranges narrow).
    let division = "kernel void k(global int* a) { int i = get_global_id(0); a[i] = (int)((long)a[i] * a[i] / 3); }";
    let line = refusal(division, &options(false));
    if cpu_has_wide() {
        assert!(line.contains("64-bit multiplication"), "{line}");
    }
    let narrow = JitOptions {
        simd_width: Some(8),
        ..options(false)
    };
    let line = refusal(division, &narrow);
    assert!(
        line.contains("W = 8") || line.contains("AVX-512F"),
        "{line}"
    );
    // Not asked for: no line, Cranelift's code.
    let m = build(FLOAT_OPS, "");
    let plain = JitOptions {
        wide: false,
        ..options(false)
    };
    let k = compile_kernel(&m, "k", &plain).expect("compiles");
    assert!(!k.explain().contains("code: "), "{}", k.explain());
}

#[test]
fn a_launch_whose_ids_pass_31_bits_runs_the_cranelift_code() {
    // Ids near 2^31 through the global offset: the wide entry hands the
    // launch to the Cranelift code (the kernel subtracts the offset, so
    // the buffer is indexed from its start).
    let src = r#"
kernel void k(global int* out) {
    int i = (int)get_global_id(0) - (int)get_global_offset(0);
    out[i] = (int)get_global_id(0);
}
"#;
    let (m, k) = wide(src, "k");
    let range = range_1d((1 << 31) - 8, 40, 40);
    let got = compare_launches(&m, "k", &k, &[range], |_| vec![Spec::Ints(40, 0)]);
    assert_eq!(got, 1);
}

/// A divergent `if` whose arms are long enough to be skipped regions
/// (`wide::lower`, `Cx::arm`): which lanes take the `then` arm is chosen
/// by `sel` (none, some, all, only the first chunk's, only from `lim` on,
/// the last chunk and the tail). Constants first used inside the arms
/// (3.25, 7.5, 1.75, 0.125, 13) are used again after them; the `then`
/// arm holds a nested long `if`, and a later arm holds a loop (not
/// skipped: two chunks in flight share the body's loops).
const SKIPPED_ARMS: &str = r#"
kernel void k(global const float* a, global float* out, global int* o2, int sel, int lim) {
    int i = get_global_id(0);
    float x = a[i];
    float y = x * 0.5f + 2.0f;
    int n = 0;
    int take;
    if (sel == 0) take = 0;
    else if (sel == 1) take = (i % 7) == 3;
    else if (sel == 2) take = 1;
    else if (sel == 3) take = i < 16;
    else take = i >= lim;
    if (take) {
        float s = x * 3.25f + 7.5f;
        s = s * s - 1.75f * cos(x);
        if (x > 2.0f) {
            s = s / (x + 0.125f) + sin(y) * 13.0f;
            n = 5;
        }
        y = y + s * 1.75f;
        out[2 * i + 1] = s;
    } else {
        float t = y * 0.375f - 11.0f;
        t = t * t + sin(x * 0.625f);
        n = (int)t & 15;
        y = y - t;
    }
    if (take && x > 1.0f) {
        for (int j = 0; j < (i & 3); j++) {
            y = y * 0.125f + cos((float)j);
            n += j;
        }
    }
    out[2 * i] = y * 3.25f + 7.5f - 1.75f * x + 0.125f;
    o2[i] = n * 13 + 4;
}
"#;

#[test]
fn skipped_if_arms_taken_by_no_some_or_all_lanes_agree() {
    for sel in 0..5 {
        agree(SKIPPED_ARMS, "k", &ranges_1d(), |r| {
            let end = (r.global_offset[0] + r.global_size[0]) as usize;
            vec![
                Spec::Floats(end, 3),
                Spec::Floats(2 * end, 0),
                Spec::Ints(end, 0),
                Spec::Int(sel),
                Spec::Int(end as i32 - 5),
            ]
        });
    }
}

/// Loop-free and long outside its skipped regions (two `sin`s): two
/// chunks in flight, their operations alternating (`wide::entry`). Only
/// the odd chunks have lanes past 2^20, where `sin` runs its skipped
/// region, and only lanes of the odd chunks take the long `if` arm: the
/// second chunk of a pair must run its regions though the first skips
/// them.
const SKIPPED_IN_PAIRS: &str = r#"
kernel void k(global const float* a, global float* out, int sel) {
    int i = get_global_id(0);
    float x = a[i];
    float big = x + (float)((i / 16) % 2) * 1.0e30f;
    float r = sin(big) * 0.5f + sin(x * 0.75f) * 0.25f;
    if (((i / 16) % 2) == 1 && (i % 3) != sel) {
        float s = x * 3.25f + 7.5f;
        s = s * s - 1.75f * x;
        s = s * 0.125f + x * 13.0f;
        s = s * s * 0.375f - 11.0f;
        s = s * 0.625f + cos(x);
        r = r + s;
    }
    out[i] = r * 3.25f + 7.5f;
}
"#;

#[test]
fn skipped_regions_of_the_second_chunk_in_flight_run() {
    let (_, k) = wide(SKIPPED_IN_PAIRS, "k");
    if cpu_has_wide() {
        let line = code_line(&k);
        // Two alternating (a body this long does not try four): the
        // second chunk runs its regions though the first skips them.
        assert!(line.contains("2 chunks in flight"), "{line}");
    }
    for sel in [0, 5] {
        agree(SKIPPED_IN_PAIRS, "k", &ranges_1d(), |r| {
            let end = (r.global_offset[0] + r.global_size[0]) as usize;
            vec![Spec::Floats(end, 2), Spec::Floats(end, 0), Spec::Int(sel)]
        });
    }
}

/// Repeated operations shared and merged writes (`wide::lower`): the
/// same product of two reads of a variable with no write between is one
/// product; where the variable is written between the reads (plainly, or
/// under a branch's mask, or at the end of a loop's trip before the next
/// trip's read), or the reads straddle a loop's start, the products are
/// not the same and must stay two. An increment merged under the loop's
/// mask (`c += 3` as one masked add) beside one whose sum is read again
/// (`e = d + 5; d = e; … e`), which must stay an add and a merge. A
/// negated addend as `vfmsub` (`x * 3 - y * 0.5`), beside one read twice
/// (`nq`) and one made before a loop whose FMA is inside it while the
/// negated variable changes in the loop (`nu`), which must stay
/// negations.
const SHARED: &str = r#"
kernel void k(global const float* a, global float* out, global int* cnt, int n) {
    int i = get_global_id(0);
    float x = a[i];
    float y = x * x;
    float z = x * x + 1.0f;
    x = x + 0.5f;
    float w = x * x;
    if (i % 3 == 0) x = x * 2.0f;
    float v = x * x;
    int c = 0;
    int d = i;
    int e = 0;
    float acc = 0.0f;
    for (int j = 0; j < n + (i & 5); j++) {
        acc += x * x;
        if (acc > 30.0f && (i & 1) != 0) break;
        acc += x * x * 0.25f;
        x = x * 0.75f + 0.125f;
        c += 3;
        e = d + 5;
        d = e;
        acc += (float)e * 0.001f;
    }
    float q = x * 3.0f - y * 0.5f;
    float nq = -(w * 0.25f);
    float r = fma(v, 2.0f, nq) + nq;
    float u = w;
    float nu = -u;
    for (int j = 0; j < 3 + (i & 3); j++) {
        r += fma(v, 0.5f, nu);
        u = u * 0.5f + 1.0f;
    }
    q += u;
    out[8 * i + 0] = y;
    out[8 * i + 1] = z;
    out[8 * i + 2] = w;
    out[8 * i + 3] = v;
    out[8 * i + 4] = acc;
    out[8 * i + 5] = x * x;
    out[8 * i + 6] = q;
    out[8 * i + 7] = r;
    cnt[2 * i] = c;
    cnt[2 * i + 1] = d + e;
}
"#;

/// Short outside its skipped `if` arm (FDTD's `fdtd_e`: a stencil update
/// and a source term one work-item takes, about 300 operations with its
/// `sin`): the operations every chunk runs decide, so one chunk at a time
/// (two alternating spilled masks for nothing), and the results agree.
const SHORT_BODY_LONG_ARM: &str = r#"
kernel void k(global float* ez, global const float* hx, int n, int t) {
    int i = get_global_id(0);
    if (i < 1) return;
    ez[i] += 0.5f * (hx[i] - hx[i - 1]);
    if (i == n / 2) ez[i] += sin(0.1f * (float)t) * cos(0.2f * (float)t);
}
"#;

#[test]
fn shared_products_and_merged_writes_agree() {
    let (_, k) = wide(SHARED, "k");
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    agree(SHARED, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(8 * n, 0),
            Spec::Ints(2 * n, 0),
            Spec::Int(9),
        ]
    });
}

/// FMAs into a variable under a mask (`wide::lower`, `Op::FmaMasked`):
/// a `float3` accumulated in a loop whose trip count differs by lane
/// (nbody's `acc += d * s`: the components' FMAs, then their merges),
/// with the addend a constant's product; beside writes where the FMA's
/// addend is not the variable's old value (`b = x * y + c`), where the
/// variable is read between the FMA and its write (`t = x * y + s; r +=
/// s; s = t`), and where the addend is read before a loop whose body
/// writes the variable (`s0`), which must stay an FMA and a merge.
const MASKED_FMA: &str = r#"
kernel void k(global const float* a, global float* out, int n) {
    int i = get_global_id(0);
    float x = a[i];
    float3 acc = (float3)(0.0f, 1.0f, -1.0f);
    float b = 0.0f, c = 2.0f, s = 1.0f, r = 0.0f;
    float s0 = s;
    for (int j = 0; j < n + (i & 7); j++) {
        float3 d = (float3)(x, x * 0.5f, x - 1.0f) - (float3)((float)j, 0.25f, 0.5f);
        float w = 1.0f / (d.x * d.x + 1.0f);
        acc += d * w;
        if ((i & 1) != 0) {
            b = x * w + c;
            c = c * 0.5f;
            float t = x * w + s;
            r += s;
            s = t;
        }
        s0 = x * 0.125f + s0;
        x = x * 0.875f;
    }
    out[8 * i + 0] = acc.x;
    out[8 * i + 1] = acc.y;
    out[8 * i + 2] = acc.z;
    out[8 * i + 3] = b;
    out[8 * i + 4] = c;
    out[8 * i + 5] = s;
    out[8 * i + 6] = r;
    out[8 * i + 7] = s0;
}
"#;

#[test]
fn fmas_merged_under_a_mask_agree() {
    agree(MASKED_FMA, "k", &ranges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Floats(n, 1), Spec::Floats(8 * n, 0), Spec::Int(5)]
    });
}

#[test]
fn a_long_skipped_arm_does_not_make_a_short_body_long() {
    let (_, k) = wide(SHORT_BODY_LONG_ARM, "k");
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(!line.contains("chunks in flight"), "{line}");
    }
    for (n, t) in [(64, 5), (7, 1000), (-3, 0)] {
        agree(SHORT_BODY_LONG_ARM, "k", &ranges_1d(), |r| {
            let end = (r.global_offset[0] + r.global_size[0]) as usize;
            vec![
                Spec::Floats(end, 1),
                Spec::Floats(end, 4),
                Spec::Int(n),
                Spec::Int(t),
            ]
        });
    }
}

//! The wide code's chunk loop (`vecl_jit::wide::entry`): the loops over
//! groups, rows and chunks allocated with the body, the values the same
//! in every chunk computed once per call, and two chunks in flight (a
//! body with a loop, or a loop-free one alternating their operations);
//! against the interpreter over rows of no full chunk,
//! one and many, with and without tails, in one, two and three
//! dimensions.

use vecl_ir::interp::NdRange;
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions};
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::range_1d;
use vecl_testkit::wide_options;
use vecl_testkit::{code_line, cpu_has_wide};

/// Kernel `k` of `src` on the wide code (on a CPU that has AVX-512) and
/// its `--explain` line.
fn wide(src: &str) -> (vecl_ir::Module, CompiledKernel, String) {
    let m = build(src, "");
    let k = compile_kernel(&m, "k", &wide_options()).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
        assert!(
            line.contains("; chunk loop allocated with the body"),
            "{line}"
        );
    }
    (m, k, line)
}

/// Rows of no full chunk (7 items), exactly one (16), one and a tail
/// (21), an odd number (48: three), many with a tail (153 = 9 · 16 + 9),
/// rows shorter than the launch (groups of 50: three chunks and a tail
/// each, and a partial last group), with offsets.
fn ranges_1d() -> Vec<NdRange> {
    vec![
        range_1d(0, 7, 7),
        range_1d(0, 16, 16),
        range_1d(0, 21, 21),
        range_1d(0, 48, 48),
        range_1d(3, 153, 153),
        range_1d(5, 230, 50),
        range_1d(0, 83, 83),
        range_1d(0, 73, 73),
    ]
}

/// Two- and three-dimensional launches: several rows per group, rows of
/// one chunk and a tail, of a tail only, of two and of three chunks.
fn ranges_nd() -> Vec<NdRange> {
    vec![
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [48, 5, 1],
            local_size: [48, 5, 1],
        },
        NdRange {
            work_dim: 2,
            global_offset: [3, 1, 0],
            global_size: [37, 6, 1],
            local_size: [37, 2, 1],
        },
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [32, 7, 1],
            local_size: [32, 3, 1],
        },
        NdRange {
            work_dim: 3,
            global_offset: [1, 2, 3],
            global_size: [19, 5, 3],
            local_size: [19, 2, 3],
        },
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [9, 4, 1],
            local_size: [3, 2, 1],
        },
    ]
}

/// Loop-free, with many constants and uniform values: kept in registers
/// across chunks; long enough (`entry::LONG_BODY`) for chunks in flight.
const POLY: &str = r#"
kernel void k(global const float* a, global float* out, global int* ids, float s, int w) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    int z = get_global_id(2);
    int i = (z * (int)get_global_size(1) + y) * w + x;
    float v = a[i];
    float p = ((((0.125f * v + 0.25f) * v - 1.5f) * v + 3.75f) * v - 0.0625f) * s;
    float q = p / (v * v + 2.5f) + sqrt(fabs(v) + 0.5f) * (s + 1.25f);
    float r = (((0.375f * q - 1.25f) * q + 0.5f) * q - 2.0f) / (q * q + 1.5f) + q / (s + 3.0f);
    out[i] = r > 7.0f ? r - 7.0f : r * 0.75f + (float)w;
    ids[i] = x + 1000 * y + 100000 * z + (int)get_local_id(0) * 7;
}
"#;

fn poly_specs(r: &NdRange) -> Vec<Spec> {
    let w = r.global_offset[0] + r.global_size[0];
    let n: u64 = (0..3)
        .map(|d| r.global_offset[d] + r.global_size[d])
        .product();
    vec![
        Spec::Floats(n as usize, 1),
        Spec::Floats(n as usize, 0),
        Spec::Ints(n as usize, 0),
        Spec::Float(1.75),
        Spec::Int(w as i32),
    ]
}

#[test]
fn rows_of_no_one_and_many_chunks_agree_with_values_kept_across_chunks() {
    let (m, k, line) = wide(POLY);
    if cpu_has_wide() {
        // The constants, `s` and `w` (and what is computed from them
        // alone) once per call; no loop, so one chunk at a time.
        let kept: usize = line
            .split("chunk loop allocated with the body, ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(kept >= 12, "{line}");
        // Loop-free and unchecked: four chunks, their operations
        // alternating.
        assert!(line.contains("; 4 chunks in flight"), "{line}");
    }
    assert_eq!(compare_launches(&m, "k", &k, &ranges_1d(), poly_specs), 8);
    assert_eq!(compare_launches(&m, "k", &k, &ranges_nd(), poly_specs), 5);
}

/// A loop-free body too long for four chunks in flight (over 256
/// operations): two alternate, their program allocated without first
/// allocating one chunk's (only a program of chunks in flight that
/// spills past its allowance is measured against one chunk at a time).
const LONG: &str = r#"
kernel void k(global const float* a, global float* out, global int* ids, float s, int w) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    int z = get_global_id(2);
    int i = (z * (int)get_global_size(1) + y) * w + x;
    float v = a[i];
    float acc = 0.0f;
    float p, q;
#define STEP(r) \
    p = ((((0.125f * v + 0.25f) * v - 1.5f) * v + 3.75f) * v - 0.0625f) * s; \
    q = p / (v * v + 2.5f) + sqrt(fabs(v) + 0.5f) * (s + r); \
    acc += q > 7.0f ? q - 7.0f : q * 0.75f; \
    v = q * 0.5f;
    STEP(0.0f) STEP(1.0f) STEP(2.0f) STEP(3.0f) STEP(4.0f) STEP(5.0f)
    STEP(6.0f) STEP(7.0f) STEP(8.0f) STEP(9.0f) STEP(10.0f) STEP(11.0f)
    out[i] = acc + (float)w;
    ids[i] = x + 1000 * y + 100000 * z;
}
"#;

#[test]
fn a_long_loop_free_body_runs_two_chunks_in_flight_and_agrees() {
    let (m, k, line) = wide(LONG);
    if cpu_has_wide() {
        assert!(line.contains("; 2 chunks in flight"), "{line}");
    }
    assert_eq!(compare_launches(&m, "k", &k, &ranges_1d(), poly_specs), 8);
    assert_eq!(compare_launches(&m, "k", &k, &ranges_nd(), poly_specs), 5);
}

/// Under robust access the same loop-free body runs one chunk at a time:
/// two alternating chunks could report a later chunk's fault first
/// (`wide_memory.rs` runs robust kernels and their faults).
#[test]
fn a_loop_free_body_with_bounds_checks_runs_one_chunk_at_a_time() {
    let m = build(POLY, "");
    let opts = JitOptions {
        checked: true,
        local_checks: false,
        ..wide_options()
    };
    let k = compile_kernel(&m, "k", &opts).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
        assert!(line.contains("accesses bounds-checked"), "{line}");
        assert!(!line.contains("in flight"), "{line}");
    }
}

/// A loop whose trip count depends on the chunk: lanes of even chunks
/// (at offset 0) run few trips, of odd chunks many, with a `break` some
/// lanes take and a `continue`; so the two chunks in flight leave the
/// loop at different trips, either one first.
const DIVERGENT: &str = r#"
kernel void k(global const int* a, global int* out, global float* f, int n) {
    int i = get_global_id(0);
    int x = a[i];
    int trips = ((i >> 4) & 1) != 0 ? n + (i % 13) : (i % 7);
    int count = 0;
    float acc = 1.0f;
    for (int j = 0; j < trips; j++) {
        if (x > 4 && j > 20 + (i & 3)) break;
        count += j ^ x;
        acc = acc * 0.75f + (float)j;
    }
    out[i] = count;
    f[i] = acc;
}
"#;

fn divergent_specs(r: &NdRange) -> Vec<Spec> {
    let n: u64 = (0..3)
        .map(|d| r.global_offset[d] + r.global_size[d])
        .product();
    vec![
        Spec::Ints(n as usize, 3),
        Spec::Ints(n as usize, 0),
        Spec::Floats(n as usize, 0),
        Spec::Int(30),
    ]
}

#[test]
fn two_chunks_in_flight_agree_with_odd_counts_and_differently_diverging_lanes() {
    let (m, k, line) = wide(DIVERGENT);
    if cpu_has_wide() {
        // Four since the loop's masks were cut down; the launches have
        // rows of one to three chunks past a multiple of four.
        assert!(line.contains("; 4 chunks in flight"), "{line}");
    }
    assert_eq!(
        compare_launches(&m, "k", &k, &ranges_1d(), divergent_specs),
        8
    );
    assert_eq!(
        compare_launches(&m, "k", &k, &ranges_nd(), divergent_specs),
        5
    );
}

/// Loops whose lanes leave in every way the lowering of their masks
/// distinguishes (`wide::lower`): `continue`, `break` from either arm of
/// an `if` and from a loop inside the loop, and `return` from inside the
/// loop (after which the lanes past the loop are those that broke, not
/// those that entered); and the same loop without the `return`, whose
/// lanes after it are those that entered, its exit mask dropped.
const EXITS: &str = r#"
kernel void k(global const int* a, global int* out, global float* f, int n) {
    int i = get_global_id(0);
    int x = a[i];
    int count = 0;
    float acc = 1.0f;
    for (int j = 0; j < n + (i % 11); j++) {
        if (((j ^ x) & 3) == 0) continue;
        if (j > 25 + (i & 7)) { count += 100; break; } else { count += j; }
        for (int q = 0; q < j; q++) {
            if (q * x > 40) break;
            acc = acc * 0.5f + (float)q;
        }
        if (RETURNS && x % 9 == 2 && j > 4) { out[i] = -count; return; }
        if (j > 2 && (i & 1) != 0) { count -= 1; } else if (j > 20 + (x & 7)) break;
    }
    out[i] = count;
    f[i] = acc;
}
"#;

#[test]
fn loops_left_by_continue_break_and_return_agree_with_four_chunks_in_flight() {
    for returns in ["1", "0"] {
        let src = EXITS.replace("RETURNS", returns);
        let (m, k, line) = wide(&src);
        if cpu_has_wide() {
            assert!(line.contains(" chunks in flight"), "{returns}: {line}");
        }
        assert_eq!(
            compare_launches(&m, "k", &k, &ranges_1d(), divergent_specs),
            8
        );
        assert_eq!(
            compare_launches(&m, "k", &k, &ranges_nd(), divergent_specs),
            5
        );
    }
}

#[test]
fn mandelbrot_runs_two_chunks_in_flight_and_agrees() {
    let path = format!("{}/../benches/mandelbrot.cl", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let m = build(&src, "");
    let k = compile_kernel(&m, "mandelbrot", &wide_options()).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.contains("; 4 chunks in flight"), "{line}");
    }
    let ranges = [
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [80, 6, 1],
            local_size: [80, 2, 1],
        },
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [53, 7, 1],
            local_size: [53, 7, 1],
        },
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [16, 16, 1],
            local_size: [16, 4, 1],
        },
    ];
    let runs = compare_launches(&m, "mandelbrot", &k, &ranges, |r| {
        let (w, h) = (r.global_size[0], r.global_size[1]);
        vec![
            Spec::Ints((w * h) as usize, 0),
            Spec::Int(w as i32),
            Spec::Int(h as i32),
            Spec::Int(64),
        ]
    });
    assert_eq!(runs, 3);
}

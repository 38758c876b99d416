//! The wide AVX-512 code of kernels with `__local` memory and barriers
//! (`vecl_jit::wide::regions`) against the interpreter at W = 16: tiles
//! staged in `__local` memory behind barriers (through a `__local`
//! argument and a `__local` array), a reduction tree whose barrier sits in
//! a loop, two-dimensional groups (the bench's `matmul`), groups whose
//! rows are not a multiple of 16 wide and partial last groups; a group
//! whose rows disagree at a barrier stops with the report of Cranelift's
//! code. On a CPU without AVX-512 every kernel is refused for that reason
//! and still agrees (Cranelift's code).

use vecl_ir::interp::NdRange;
use vecl_jit::abi::{take_barrier_divergence, KernelStatus};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Rsqrt, Tiers};
use vecl_testkit::differential::{build, compare_launches, interp_args_for, run_jit, Spec};
use vecl_testkit::{code_line, cpu_has_wide};
use vecl_testkit::{range_1d, range_2d};

fn options(wide: bool) -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide,
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

/// Kernel `kernel` of `src` with the wide code asked for, which it must
/// get (on a CPU with AVX-512), its regions run chunk by chunk.
fn wide(src: &str, kernel: &str) -> (vecl_ir::Module, CompiledKernel) {
    wide_with(src, kernel, &options(true))
}

/// As [`wide`], compiled with `opts`.
fn wide_with(src: &str, kernel: &str, opts: &JitOptions) -> (vecl_ir::Module, CompiledKernel) {
    let m = build(src, "");
    let k = compile_kernel(&m, kernel, opts).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(
            line.starts_with("code: wide AVX-512") && line.contains("regions run chunk by chunk"),
            "{kernel}: {line}"
        );
    } else {
        assert!(line.contains("no AVX-512F"), "{kernel}: {line}");
    }
    (m, k)
}

fn agree(src: &str, kernel: &str, ranges: &[NdRange], args: impl Fn(&NdRange) -> Vec<Spec>) {
    let (m, k) = wide(src, kernel);
    assert_eq!(compare_launches(&m, kernel, &k, ranges, args), ranges.len());
}

/// nbody's shape with scalars: every work-item stages one element of a
/// tile in a `__local` argument, and reads all of the tile (one address
/// for every lane) between two barriers, in a loop over the tiles.
const TILES: &str = r#"
kernel void k(global const float* pos, global float* out, local float* tile, int n) {
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    float p = pos[i];
    float acc = 0.0f;
    for (int base = 0; base < n; base += size) {
        tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < size; j++) {
            float q = tile[j];
            float d = q - p;
            acc += d * d * 0.5f + q;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = acc + (float)lid;
}
"#;

#[test]
fn tiles_staged_in_a_local_argument_agree() {
    // Groups of 16, 64, 48 and 40 items (rows ending in a partial chunk),
    // 240 items: n a multiple of each.
    let ranges: Vec<NdRange> = [16, 40, 48, 240]
        .iter()
        .map(|l| range_1d(0, 240, *l))
        .chain([range_1d(7, 240, 48)])
        .collect();
    agree(TILES, "k", &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(n, 0),
            Spec::Local(4 * r.local_size[0] as usize),
            Spec::Int(r.global_size[0] as i32),
        ]
    });
}

/// Uniform `__local` loads at constant offsets from one index (nbody's
/// `tile[j]`, four components of a `float4`): after the first, each
/// addresses from lane 0 of the first's index with a displacement
/// (`wide::access`, `r10_split`), forwards and backwards (`tile[j + 1]`,
/// `tile[j - 1]`); an index of another base in between (`tile[size - 1 -
/// j]`) and a `__local` variable's offset (`v[j + 2]`) must address on
/// their own, and the loads after them again from their own index.
const SHIFTED_TILES: &str = r#"
kernel void k(global const float* pos, global float* out, local float4* tile, int n) {
    local float v[72];
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    float p = pos[i];
    float acc = 0.0f, acc2 = 0.0f;
    for (int base = 0; base < n; base += size) {
        tile[lid] = (float4)(pos[base + lid], 2.0f * pos[base + lid], (float)lid, 0.5f);
        if (lid < 72) v[lid] = pos[base + lid] - 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 1; j < size - 1; j++) {
            float4 q = tile[j];
            float4 r = tile[size - 1 - j];
            float a = tile[j + 1].x - tile[j - 1].y;
            float b = j + 2 < 72 && j + 2 < size ? v[j + 2] - v[j] : 0.0f;
            float w = (q.x - p) * q.y + q.z * q.w + a;
            float u = r.x * r.w - r.y + b;
            for (int m = 0; m < 5; m++) {
                w = sqrt(fabs(w) + 1.0f) * 0.5f + w * 0.25f - u * 0.125f;
                u = sqrt(fabs(u) + 2.0f) * 0.75f - u * 0.5f + w * 0.0625f;
            }
            acc += w * 0.5f + (q.x - p) * q.y;
            acc2 += u * 0.25f + r.x * r.w;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[2 * i] = acc;
    out[2 * i + 1] = acc2;
}
"#;

#[test]
fn local_loads_at_constant_offsets_from_one_index_agree() {
    let ranges: Vec<NdRange> = [16, 40, 48, 240]
        .iter()
        .map(|l| range_1d(0, 240, *l))
        .chain([range_1d(7, 240, 48)])
        .collect();
    agree(SHIFTED_TILES, "k", &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(2 * n, 0),
            Spec::Local(16 * r.local_size[0] as usize),
            Spec::Int(r.global_size[0] as i32),
        ]
    });
}

/// A reduction tree in a `__local` array, its barrier in a loop whose
/// trip count the group shares, and a store by one work-item. (Its guard
/// is not a bare `lid < s`: Cranelift's code runs only the chunks such a
/// test accepts, and the wide code leaves those kernels to it,
/// `wide_int64.rs`.)
const REDUCTION: &str = r#"
kernel void k(global const int* in, global int* out) {
    local int scratch[64];
    int lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = (int)get_local_size(0) / 2; s > 0; s >>= 1) {
        if ((lid < s) & (lid + s < 64)) {
            scratch[lid] += scratch[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[get_group_id(0)] = scratch[0] * 3 + 1;
    }
}
"#;

#[test]
fn a_reduction_tree_with_barriers_in_a_loop_agrees() {
    let ranges = [
        range_1d(0, 256, 64),
        range_1d(0, 96, 32),
        range_1d(0, 64, 16),
        range_1d(0, 24, 8),
        range_1d(5, 128, 64),
    ];
    agree(REDUCTION, "k", &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Ints(n, 3), Spec::Ints(n, 0)]
    });
}

#[test]
fn float4_tiles_in_local_memory_agree() {
    // Stored a component at a time (scattered), read back at the
    // work-item's own element and at one element for every lane.
    let src = r#"
kernel void k(global const float4* a, global float4* b, local float4* t) {
    int i = get_global_id(0);
    int l = get_local_id(0);
    t[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[i] = t[3] + t[l] * 2.0f;
}
"#;
    let ranges = [
        range_1d(0, 64, 16),
        range_1d(0, 60, 20),
        range_1d(2, 90, 45),
    ];
    agree(src, "k", &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(4 * n, 1),
            Spec::Floats(4 * n, 0),
            Spec::Local(16 * r.local_size[0] as usize),
        ]
    });
}

fn bench_source(name: &str) -> String {
    let path = format!("{}/../benches/{name}.cl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The bench's matmul at tiles of `TILE` (16 unless the build options say
/// otherwise), with more arithmetic per element than a product (enough
/// for the selection to take the wide code: `select`'s light tile
/// loops), and variants whose `__local` index in the loop is not
/// consecutive (`tb[k][TILE - 1 - lx]`, `tb[lx][k]`) or is, but under a
/// branch that leaves lane 0 out (`if (lx != 0)`).
const MATMUL: &str = r#"
#ifndef TILE
#define TILE 16
#endif
#ifndef INDEX
#define INDEX tb[k][lx]
#endif
#ifndef GUARD
#define GUARD 1
#endif
kernel void matmul(global const float* a, global const float* b, global float* c, int n) {
    local float ta[TILE][TILE];
    local float tb[TILE][TILE];
    int col = get_global_id(0);
    int row = get_global_id(1);
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) {
            if (GUARD) {
                float x = ta[ly][k];
                float y = INDEX;
                float s = x * y;
                acc += sqrt(s * s + 1.0f) * 0.5f - s * 0.25f + x / (y + 3.0f);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
"#;

/// `MATMUL` built with `options`, which must get the wide code, against
/// the interpreter over n x n matrices in tiles of `tile`.
fn matmul_agrees(options_: &str, tile: u64, sizes: &[u64]) {
    let m = build(MATMUL, options_);
    let k = compile_kernel(&m, "matmul", &options(true)).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(
            line.starts_with("code: wide AVX-512") && line.contains("regions run chunk by chunk"),
            "{options_}: {line}"
        );
    }
    let ranges: Vec<NdRange> = sizes
        .iter()
        .map(|n| range_2d([*n, *n], [tile, tile], [0, 0]))
        .collect();
    let got = compare_launches(&m, "matmul", &k, &ranges, |r| {
        let n = r.global_size[0] as usize;
        vec![
            Spec::Floats(n * n, 1),
            Spec::Floats(n * n, 2),
            Spec::Floats(n * n, 0),
            Spec::Int(n as i32),
        ]
    });
    assert_eq!(got, ranges.len(), "{options_}");
}

#[test]
fn the_bench_matmul_runs_rows_in_flight_robust_too() {
    // Its `k` loop makes two `__local` loads per FMA: one chunk at a time
    // it is slower on the wide code than Cranelift's; four rows in flight,
    // `tb[k][lx]` loaded once for them, it is not (`docs/wide.md`, "Rows
    // in flight"). Under robust access the regions that test their
    // `__global` accesses run one row at a time (the rows alternate
    // operation by operation, which would change which fault is met
    // first); the `k` loop's region, whose `__local` accesses are not
    // tested, keeps its rows, and the kernel the wide code ("Scalar parts
    // of uniform indices").
    let matmul = bench_source("matmul");
    let m = build(&matmul, "");
    let k = compile_kernel(&m, "matmul", &options(true)).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        // The `k` loop's region eight rows (the rows a group has left
        // four at a time), the others four.
        assert!(
            line.contains("8 rows in flight in 1 of 4 regions when a group's rows are one chunk each (then 4 at a time for the rows left)")
                && line.contains("4 rows in flight in 3 of 4 regions")
                && line.contains(", 2 loads shared by the rows"),
            "{line}"
        );
        // Chosen for its rows: launches without them (rows wider than a
        // chunk, fewer than four rows) run Cranelift's code, so no chunks
        // of a row in flight are compiled.
        assert!(
            line.contains(
                "and launches whose groups' rows are wider than a chunk or fewer than 4 (a tile loop too light for one row at a time)"
            ) && !line.contains("full chunks of a row in flight"),
            "{line}"
        );
    }
    let robust = JitOptions {
        checked: true,
        local_checks: false,
        ..options(true)
    };
    let r = compile_kernel(&m, "matmul", &robust).expect("compiles");
    let robust_line = code_line(&r);
    if cpu_has_wide() {
        assert!(
            robust_line.starts_with("code: wide AVX-512")
                && robust_line.contains("8 rows in flight in 1 of 4 regions")
                && robust_line.contains("4 rows in flight in 1 of 4 regions")
                && robust_line
                    .contains("fewer than 4 (a tile loop too light for one row at a time)"),
            "{robust_line}"
        );
    }
    let ranges = [
        range_2d([32, 32], [16, 16], [0, 0]),
        range_2d([64, 64], [16, 16], [0, 0]),
        range_2d([48, 48], [16, 16], [0, 0]),
    ];
    // (Robust matmul against the interpreter and its faults against
    // Cranelift's: `wide_memory.rs`.)
    let got = compare_launches(&m, "matmul", &k, &ranges, |r| {
        let n = r.global_size[0] as usize;
        vec![
            Spec::Floats(n * n, 1),
            Spec::Floats(n * n, 2),
            Spec::Floats(n * n, 0),
            Spec::Int(n as i32),
        ]
    });
    assert_eq!(got, ranges.len());
}

#[test]
fn matmul_tiles_of_16_on_the_wide_code_agree() {
    // `tb[k][lx]`: `lx` restored from the save area after the barrier,
    // known consecutive from lane 0 (no run-time test of the lanes).
    matmul_agrees("", 16, &[16, 48]);
}

#[test]
fn matmul_with_rows_of_8_24_and_40_agrees() {
    // A row of 8 is one partial chunk, 24 a full chunk and a partial one,
    // 40 two full chunks and a partial one.
    matmul_agrees("-DTILE=8", 8, &[8, 24]);
    matmul_agrees("-DTILE=24", 24, &[24, 48]);
    matmul_agrees("-DTILE=40", 40, &[40]);
    // Groups of 32 x 32: rows of two chunks, no rows in flight, so the
    // wide code chosen for them leaves these launches to Cranelift's.
    matmul_agrees("-DTILE=32", 32, &[32, 64]);
}

#[test]
fn local_indices_that_look_consecutive_but_are_not_agree() {
    // Reversed and transposed: gathers.
    matmul_agrees("-DINDEX=tb[k][TILE-1-lx]", 16, &[16, 32]);
    matmul_agrees("-DINDEX=tb[lx][k]", 16, &[16, 32]);
    matmul_agrees("-DINDEX=tb[k][TILE-1-lx] -DTILE=24", 24, &[24]);
    // Consecutive, but the lanes without lane 0: the masked path tests
    // the lanes instead of trusting lane 0's index.
    matmul_agrees("-DGUARD=(lx!=0)", 16, &[16, 32]);
    matmul_agrees("-DGUARD=(lx!=0) -DTILE=24", 24, &[24, 48]);
    matmul_agrees("-DGUARD=(lx>ly)", 16, &[32]);
}

/// A two-dimensional group staged in a `__local` array and read back
/// rotated along both dimensions: rows of 24 and 20 items (a full chunk
/// and a partial one), partial last groups in both dimensions, offsets.
const TWO_D: &str = r#"
kernel void k(global const float* in, global float* out, int w) {
    local float t[4][24];
    int x = get_global_id(0);
    int y = get_global_id(1);
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int sx = get_local_size(0);
    int sy = get_local_size(1);
    t[ly][lx] = in[y * w + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    float v = t[ly][(lx + 1) % sx] * 2.0f + t[(ly + 1) % sy][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    t[ly][lx] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[y * w + x] = t[sy - 1 - ly][lx] - v;
}
"#;

#[test]
fn two_dimensional_groups_not_a_multiple_of_16_wide_agree() {
    let ranges = [
        range_2d([48, 8], [24, 4], [0, 0]),
        range_2d([44, 7], [24, 4], [0, 0]),
        range_2d([40, 6], [20, 3], [3, 1]),
        range_2d([16, 4], [16, 4], [0, 0]),
    ];
    agree(TWO_D, "k", &ranges, |r| {
        let w = (r.global_offset[0] + r.global_size[0]) as usize;
        let h = (r.global_offset[1] + r.global_size[1]) as usize;
        vec![
            Spec::Floats(w * h, 1),
            Spec::Floats(w * h, 0),
            Spec::Int(w as i32),
        ]
    });
}

#[test]
fn rows_that_disagree_at_a_barrier_stop_the_group() {
    // Rows of a group leave a barrier loop after different trips: the
    // second chunk (row 1) chooses another successor than the first.
    let src = r#"
kernel void k(global int* out) {
    int i = (int)get_global_id(0) + (int)get_global_id(1) * 32;
    out[i] = 1;
    for (int r = 0; r < 2 + (int)get_local_id(1); r++) {
        barrier(CLK_GLOBAL_MEM_FENCE);
        out[i] += r;
    }
}
"#;
    let m = build(src, "");
    let (_, rows) = wide(src, "k");
    let cranelift = compile_kernel(&m, "k", &options(false)).expect("compiles");
    let range = range_2d([32, 4], [32, 2], [0, 0]);
    let args = interp_args_for(&[Spec::Ints(128, 0)]);
    for k in [&rows, &cranelift] {
        let (status, _) = run_jit(k, &args, &range);
        assert_eq!(status, KernelStatus::DivergentBarrier as u32);
    }
    // Both stop; the wide code also says where (Cranelift's code reports
    // the work-items of a split within a chunk only).
    let _ = take_barrier_divergence();
    let (_, _) = run_jit(&rows, &args, &range);
    if cpu_has_wide() {
        let d = take_barrier_divergence().expect("a report");
        let words = rows.describe_divergence(&d);
        assert!(
            words.contains("local id (0, 0, 0)") && words.contains("local id (0, 1, 0)"),
            "{words}"
        );
    }
    // Lanes of one chunk that disagree: the first running lane and the
    // first that differs, as Cranelift's code reports them.
    let lanes = r#"
kernel void k(global int* out) {
    int i = (int)get_global_id(0);
    out[i] = 1;
    for (int r = 0; r < 2 + ((int)get_local_id(0) == 5); r++) {
        barrier(CLK_GLOBAL_MEM_FENCE);
        out[i] += r;
    }
}
"#;
    let m = build(lanes, "");
    let (_, split) = wide(lanes, "k");
    let cranelift = compile_kernel(&m, "k", &options(false)).expect("compiles");
    let range = range_1d(0, 64, 32);
    let args = interp_args_for(&[Spec::Ints(64, 0)]);
    let mut reports = Vec::new();
    for k in [&split, &cranelift] {
        let _ = take_barrier_divergence();
        let (status, _) = run_jit(k, &args, &range);
        assert_eq!(status, KernelStatus::DivergentBarrier as u32);
        let d = take_barrier_divergence().expect("a report");
        reports.push(k.describe_divergence(&d));
    }
    assert_eq!(reports[0], reports[1]);
}

/// The bench's `nbody`: `float4` bodies gathered from global memory, the
/// tile of a `__local float4` argument read with one address for every
/// lane, `float3` arithmetic a component at a time. With `Rsqrt::Divide`
/// its `rsqrt` rounds as the Cranelift code's does (a square root, then a
/// division), so the two codes agree bit for bit; the interpreter's
/// within 1e-5. With `Rsqrt::Newton`, and with `native_rsqrt(r2)` (the
/// wide code's `vrsqrt14ps` and Newton step, the Cranelift code's square
/// root and division), both within 1e-5.
#[test]
fn the_bench_nbody_agrees_with_the_cranelift_code_and_the_interpreter() {
    let src = bench_source("nbody");
    let native = src.replace("rsqrt(r2)", "native_rsqrt(r2)");
    assert_ne!(src, native);
    let with = |rsqrt| JitOptions {
        rsqrt,
        ..options(true)
    };
    for (src, opts, same_bits) in [
        (&src, with(Rsqrt::Divide), true),
        (&src, with(Rsqrt::Newton), false),
        (&native, with(Rsqrt::Divide), false),
    ] {
        let (m, k) = wide_with(src, "nbody", &opts);
        let cranelift = compile_kernel(&m, "nbody", &options(false)).expect("compiles");
        for (n, local, offset) in [
            (64u64, 16u64, 0u64),
            (192, 64, 0),
            (96, 48, 0),
            (128, 64, 3),
            (17, 17, 0),
            (16, 1, 0),
        ] {
            let range = range_1d(offset, n, local);
            let total = (offset + n) as usize;
            let specs = [
                Spec::Floats(4 * total, 1),
                Spec::Floats(4 * total, 2),
                Spec::Floats(4 * total, 0),
                Spec::Floats(4 * total, 0),
                Spec::Local(16 * local as usize),
                Spec::Int(n as i32),
                Spec::Float(0.01),
                Spec::Float(0.5),
            ];
            let args = interp_args_for(&specs);
            let (s1, wide_out) = run_jit(&k, &args, &range);
            let (s2, want) = run_jit(&cranelift, &args, &range);
            assert_eq!((s1, s2), (0, 0));
            let mut interp = args.clone();
            vecl_ir::interp::run_kernel(&m, "nbody", &mut interp, &range).expect("interpreter");
            let f = |x: &[u8]| -> Vec<f32> {
                x.chunks(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            };
            for i in [2, 3] {
                if same_bits {
                    assert!(wide_out[i] == want[i], "n {n} local {local}: buffer {i}");
                }
                let vecl_ir::interp::KernelArg::Buffer(b) = &interp[i] else {
                    panic!("a buffer")
                };
                for (x, y) in f(&wide_out[i]).iter().zip(f(b)) {
                    assert!((x - y).abs() <= 1e-5 * y.abs().max(1.0), "{x} {y}");
                }
                for (x, y) in f(&wide_out[i]).iter().zip(f(&want[i])) {
                    assert!((x - y).abs() <= 1e-5 * y.abs().max(1.0), "{x} {y}");
                }
            }
        }
    }
}

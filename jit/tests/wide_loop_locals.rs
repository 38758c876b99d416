//! Writes of a loop's own variables without a mask (`wide::loop_local`):
//! counters of uniform loops at 0, 1 and many trips, trip counts from a
//! parameter, negative steps, counters read after the loop (kept masked),
//! counters as varying operands, nested loops, uniform loops inside a
//! divergent `if` (not uniform for the lanes outside it), counters
//! written under an `if`, after a `continue` or a `break` in the trip,
//! and a barrier kernel's tile loop; against the interpreter on the wide
//! code over rows with tails, offsets, one to three dimensions, and at the
//! JIT's other widths (Cranelift's code).

use vecl_ir::interp::NdRange;
use vecl_testkit::compile_wide;
use vecl_testkit::differential::{build, compare_launches, try_compile, Spec};
use vecl_testkit::{range_1d, BARRIER_WIDTHS};

/// Rows of a tail only, one chunk, a chunk and a tail, many with a tail,
/// groups shorter than the launch, offsets; two and three dimensions.
fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 7, 7),
        range_1d(0, 16, 16),
        range_1d(0, 21, 21),
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

/// Agrees with the interpreter on the wide code and at W = 4, 8 and 32,
/// for each trip parameter of `ns`.
fn agrees(src: &str, ns: &[i32]) {
    let m = build(src, "");
    let count = ranges().len();
    let k = compile_wide(&m, "k");
    for &n in ns {
        let specs = |r: &NdRange| {
            let e: u64 = (0..3)
                .map(|d| r.global_offset[d] + r.global_size[d])
                .product();
            vec![
                Spec::Ints(e as usize, 5),
                Spec::Floats(e as usize, 2),
                Spec::Ints(e as usize, 0),
                Spec::Floats(e as usize, 0),
                Spec::Int(n),
            ]
        };
        assert_eq!(
            compare_launches(&m, "k", &k, &ranges(), specs),
            count,
            "n = {n}"
        );
        for w in [4, 8, 32] {
            let k = try_compile(&m, "k", w).expect("compiles");
            assert_eq!(
                compare_launches(&m, "k", &k, &ranges(), specs),
                count,
                "W = {w}, n = {n}"
            );
        }
    }
}

const TRIPS: [i32; 5] = [0, 1, 2, 7, 40];

/// Counters of uniform loops: up by one from a parameter's trip count,
/// down by a negative step, by three; read as varying operands (`j * x`,
/// an index of a gather) and as the index of a uniform load.
#[test]
fn uniform_counters_at_0_1_and_many_trips_agree() {
    agrees(
        r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    float s = 0.0f;
    int t = 0;
    for (int j = 0; j < n; j++) {
        s += f[j % 5] * (float)j + f[i];
        t += a[(i + j) % 7] ^ j;
    }
    for (int j = n; j > -3; j -= 2) {
        t += j * a[i];
    }
    for (int j = 1; j <= n; j += 3) {
        s = s * 0.5f + (float)(j - i);
    }
    out[i] = t;
    g[i] = s;
}
"#,
        &TRIPS,
    );
}

/// A counter read after its loop keeps its mask (its value after the
/// loop is the lane's own), here with a lane-divergent `break`; and one
/// read between its first write and the loop.
#[test]
fn counters_read_after_the_loop_agree() {
    agrees(
        r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    // Each work-item's own element (`i` is shared by several).
    int e0 = (int)(get_global_offset(0) + get_global_size(0));
    int e1 = (int)(get_global_offset(1) + get_global_size(1));
    int o = (int)get_global_id(0)
        + e0 * ((int)get_global_id(1) + e1 * (int)get_global_id(2));
    int j = 0;
    for (; j < n; j++) {
        if (a[i] + j > 6) break;
    }
    int m = n / 2;
    out[o] = m;
    for (; m < n; m++) {
        g[o] += (float)m;
    }
    // A uniform loop under a divergent `if` whose counter is read after
    // it: the lanes that skip the `if` keep their 7.
    int u = 7;
    if (a[i] > 0) {
        for (u = 0; u < n; u++) {
            g[o] += 0.5f;
        }
    }
    out[o] += j * 100 + m + u * 10000;
}
"#,
        &TRIPS,
    );
}

/// Nested uniform loops, the inner counter written in the outer trip
/// after the inner loop, and a counter written under an `if`, after a
/// `continue` and after a uniform `break` in the trip (those keep their
/// masks).
#[test]
fn nested_loops_and_narrowed_writes_agree() {
    agrees(
        r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    int t = 0;
    for (int y = 0; y < n; y++) {
        for (int x = y; x < n; x++) {
            t += x * 3 + y + a[i];
        }
        int z = 0;
        for (int q = 0; q < 3; q++) {
            z += q;
            if (a[i] > q) z += 1;
        }
        t += z;
    }
    int c = 0;
    for (int q = 0; q < n + 2; q++) {
        if ((q & 1) == 0) continue;
        c += q;
    }
    int b = 0;
    for (int q = 0; q < n + 5; q++) {
        if (q == n) break;
        b += 2;
    }
    out[i] = t + c * 1000 + b * 100000;
    g[i] = (float)(c - b);
}
"#,
        &TRIPS,
    );
}

/// Uniform loops inside a divergent `if` and under a divergent loop: the
/// lanes outside them do not run the loop, and read what they had.
#[test]
fn uniform_loops_inside_divergent_branches_agree() {
    agrees(
        r#"
kernel void k(global const int* a, global const float* f, global int* out,
              global float* g, int n) {
    int i = get_global_id(0) + 3 * get_global_id(1) + 7 * get_global_id(2);
    int t = a[i];
    if (a[i] > 0) {
        for (int j = 0; j < n; j++) {
            t += j + (int)f[j % 3];
        }
    } else {
        for (int j = n; j > 0; j--) {
            t -= j;
        }
    }
    for (int r = 0; r < a[i] + 11; r++) {
        for (int j = 0; j < n; j++) {
            t += r ^ j;
        }
    }
    out[i] = t;
    g[i] = (float)t * 0.25f;
}
"#,
        &TRIPS,
    );
}

/// The tile loop of a barrier kernel (nbody's shape: a `__local` tile
/// staged per group, then a uniform loop over it), with tiles of 16, 7
/// and 1 work-items and a trip count from a parameter.
#[test]
fn a_barrier_kernels_tile_loop_agrees() {
    let src = r#"
kernel void k(global const float* x, global float* out, local float* tile,
              int n) {
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    float p = x[i];
    float acc = 0.0f;
    for (int base = 0; base < n; base += size) {
        tile[lid] = x[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < size; j++) {
            float q = tile[j];
            float d = q - p;
            float r = d * d + 0.5f;
            acc += d / (r * r) * (float)(j + 1) - d * 0.25f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = acc;
}
"#;
    let m = build(src, "");
    for (total, local) in [(64u64, 16u64), (63, 7), (5, 1), (48, 48)] {
        let r = range_1d(0, total, local);
        let specs = |_: &NdRange| {
            vec![
                Spec::Floats(total as usize, 3),
                Spec::Floats(total as usize, 0),
                Spec::Local(local as usize * 4),
                Spec::Int(total as i32),
            ]
        };
        let k = compile_wide(&m, "k");
        assert_eq!(
            compare_launches(&m, "k", &k, std::slice::from_ref(&r), specs),
            1
        );
        for w in BARRIER_WIDTHS {
            let k = try_compile(&m, "k", w).expect("compiles");
            assert_eq!(
                compare_launches(&m, "k", &k, std::slice::from_ref(&r), specs),
                1,
                "W = {w}"
            );
        }
    }
}

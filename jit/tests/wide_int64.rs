//! 64-bit integers on the wide AVX-512 code (`vecl_jit::wide::int64`)
//! against the interpreter: every operation of `long` and `ulong` that
//! the ranges keep within 32-bit lanes, signed and unsigned, over the edge
//! values 0, 1, -1, `INT_MIN` and `INT_MAX` widened to 64 bits (each
//! paired with each, and with ordinary values), division and remainder
//! by zero, by 1, by negative and by uniform divisors, `size_t` id
//! arithmetic, also across barriers; the tree reduction of
//! `benches/reduce.cl`, which keeps Cranelift's code for speed; and the
//! operations whose values may leave 32 bits (a product past 2^32, a
//! shift by 32, `INT_MIN / -1`), which keep the Cranelift code and still
//! agree with the interpreter (a group id times its local size, refused
//! before the kernel's own launch bound, now takes the wide code). On a CPU without AVX-512 every kernel is
//! refused for that reason and still agrees.

use vecl_ir::interp::NdRange;
use vecl_jit::compile_kernel;
use vecl_testkit::{
    build, code_line, compare_launches, cpu_has_wide, range_1d, wide_agrees as agree, wide_options,
    wide_refuses as refused, Spec,
};

fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 49, 49),
        range_1d(0, 64, 16),
        range_1d(3, 100, 25),
        range_1d(5, 333, 64),
        range_1d(0, 7, 7),
    ]
}

/// The edge values, each with each: `x` takes the seven values in turn
/// (0, 1, -1, INT_MIN, INT_MAX and two ordinary ones), `y` every seventh
/// work-item.
const EDGES: &str = r#"
int edge(int e, int other) {
    return e == 0 ? 0 : e == 1 ? 1 : e == 2 ? -1 : e == 3 ? INT_MIN
        : e == 4 ? INT_MAX : e == 5 ? other * 99991 : other - 5;
}
"#;

const SIGNED: &str = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    int x = edge(i % 7, a[i]);
    int y = edge((i / 7) % 7, b[i]);
    long lx = x, ly = y;
    // Halves keep sums, differences and products within 32 bits.
    long hx = x >> 1, hy = y >> 1;
    long sx = x >> 16, sy = y >> 16;
    out[24 * i + 0] = (int)(lx & ly);
    out[24 * i + 1] = (int)(lx | ly);
    out[24 * i + 2] = (int)(lx ^ ly);
    out[24 * i + 3] = (int)(~lx);
    out[24 * i + 4] = (~lx ^ ly) < 0;
    out[24 * i + 5] = (int)(hx + hy);
    out[24 * i + 6] = (int)(hx - hy);
    out[24 * i + 7] = (hx - hy) < 0;
    out[24 * i + 8] = (int)(sx * sy);
    out[24 * i + 9] = (sx * sy) < (long)-1;
    out[24 * i + 10] = (int)(-hx);
    out[24 * i + 11] = (int)(hx / ly);
    out[24 * i + 12] = (int)(lx % ly);
    out[24 * i + 13] = (int)(hx / (ly | 1));
    out[24 * i + 14] = (int)(lx >> (ly & 31));
    out[24 * i + 15] = (int)((sx << 12) >> (ly & 7));
    out[24 * i + 16] = lx < ly;
    out[24 * i + 17] = lx >= ly;
    out[24 * i + 18] = lx == ly;
    out[24 * i + 19] = lx != (long)INT_MIN;
    out[24 * i + 20] = (int)(float)lx;
    out[24 * i + 21] = (int)(hx / -3) + (int)(hx % -3);
    out[24 * i + 22] = (int)(lx / 1) - (int)(lx % 1);
    out[24 * i + 23] = (int)(lx / 4) + (int)(lx % 8);
}
"#;

#[test]
fn signed_64_bit_operations_within_32_bits_agree() {
    let src = format!("{EDGES}{SIGNED}");
    agree(&src, &ranges(), |r| {
        let n = (r.global_size[0]) as usize;
        vec![Spec::Ints(n, 3), Spec::Ints(n, 11), Spec::Ints(24 * n, 0)]
    });
}

const UNSIGNED: &str = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    int x = edge(i % 7, a[i]);
    int y = edge((i / 7) % 7, b[i]);
    // Below 2^31, as uints widened and as ints masked.
    ulong ux = (ulong)(uint)(x & INT_MAX);
    ulong uy = (ulong)(y & 0xffff);
    ulong wx = (ulong)x;
    out[16 * i + 0] = (int)(ux & wx);
    out[16 * i + 1] = (int)(ux | (ulong)y);
    out[16 * i + 2] = (int)(wx ^ (ulong)y);
    out[16 * i + 3] = (int)(~wx);
    out[16 * i + 4] = (int)((ux >> 1) + (uy >> 1));
    out[16 * i + 5] = (int)((ux >> 1) + 65536 - uy > ux);
    out[16 * i + 6] = (int)((uy >> 2) * (uy >> 2));
    out[16 * i + 7] = (int)(ux / uy);
    out[16 * i + 8] = (int)(ux % uy);
    out[16 * i + 9] = (int)(ux / 1) + (int)(ux % 1);
    out[16 * i + 10] = (int)(ux >> (uy & 31));
    out[16 * i + 11] = (int)((ux >> 8) << 7);
    out[16 * i + 12] = wx < (ulong)y;
    out[16 * i + 13] = wx > ux;
    out[16 * i + 14] = (int)(float)ux;
    out[16 * i + 15] = (int)(ux / 16) + (int)(ux % 64);
}
"#;

#[test]
fn unsigned_64_bit_operations_within_32_bits_agree() {
    let src = format!("{EDGES}{UNSIGNED}");
    agree(&src, &ranges(), |r| {
        let n = (r.global_size[0]) as usize;
        vec![Spec::Ints(n, 5), Spec::Ints(n, 2), Spec::Ints(16 * n, 0)]
    });
}

/// `size_t` ids and sizes, and divisions by a uniform value (a kernel
/// argument).
const IDS: &str = r#"
kernel void k(global int* out, int d) {
    size_t g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    size_t o = get_global_offset(0);
    int i = (int)(g - o);
    long q = (long)d;
    out[8 * i + 0] = (int)(g / 3 + g % 5);
    out[8 * i + 1] = (int)(l / (size_t)(d & 15) + l % (size_t)(d & 15));
    out[8 * i + 2] = (int)((long)g / q) + (int)((long)g % q);
    out[8 * i + 3] = (int)((n >> 1) + (l >> 2));
    out[8 * i + 4] = (int)((g & 7) | (l ^ n));
    out[8 * i + 5] = (int)(n / 2 + l / 2);
    out[8 * i + 6] = (int)(n - l);
    out[8 * i + 7] = (int)(get_group_id(0) / 2);
}
"#;

#[test]
fn id_arithmetic_and_division_by_uniform_values_agree() {
    for d in [1, -1, 3, -7, 0, 16, i32::MAX, i32::MIN] {
        agree(IDS, &ranges(), |r| {
            let n = r.global_size[0] as usize;
            vec![Spec::Ints(8 * n, 0), Spec::Int(d)]
        });
    }
}

/// `size_t` arithmetic across barriers: local ids reversed and halved
/// in a `__local` array.
const STAGED: &str = r#"
kernel void k(global const float* in, global float* out, local float* t) {
    size_t lid = get_local_id(0), n = get_local_size(0);
    t[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t j = n - 1 - lid;
    out[get_global_id(0) - get_global_offset(0)] = t[j] + t[lid / 2] * (float)(lid >> 1) + (float)(n % 3);
}
"#;

fn barrier_ranges() -> [NdRange; 4] {
    [
        range_1d(0, 256, 64),
        range_1d(0, 128, 128),
        range_1d(0, 96, 32),
        range_1d(16, 512, 256),
    ]
}

#[test]
fn size_t_arithmetic_across_barriers_agrees() {
    agree(STAGED, &barrier_ranges(), |r| {
        let n = r.global_size[0] as usize;
        vec![
            Spec::Floats(n + r.global_offset[0] as usize, 1),
            Spec::Floats(n, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
}

/// The bench's tree reduction (`size_t` ids, `n / 2`, `s >>= 1`, `lid +
/// s` under `lid < s`) is in the subset now, but keeps Cranelift's code,
/// whose `if (lid < s)` regions visit only the chunks the test accepts.
#[test]
fn the_bench_reduction_keeps_cranelifts_chunk_skipping() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/reduce.cl"))
        .expect("benches/reduce.cl");
    let m = build(&src, "");
    let k = compile_kernel(&m, "reduce", &wide_options()).expect("compiles");
    let line = code_line(&k);
    assert!(line.starts_with("code: Cranelift"), "{line}");
    if cpu_has_wide() {
        assert!(line.contains("if (lid < bound)"), "{line}");
    }
    let ranges = barrier_ranges();
    let got = compare_launches(&m, "reduce", &k, &ranges, |r| {
        let n = r.global_size[0] as usize;
        let groups = n / r.local_size[0] as usize;
        vec![
            Spec::Floats(n + r.global_offset[0] as usize, 1),
            Spec::Floats(groups, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
    assert_eq!(got, ranges.len());
}

#[test]
fn values_that_may_leave_32_bits_keep_the_cranelift_code() {
    let args = |r: &NdRange| {
        let n = r.global_size[0] as usize;
        vec![Spec::Ints(n, 3), Spec::Ints(n, 11), Spec::Ints(n, 0)]
    };
    let product = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    long p = (long)a[i] * 100000 * (long)b[i] * 100000;
    out[i] = (int)(p >> 20) ^ (int)p;
}
"#;
    refused(product, "64-bit multiplication", &ranges(), args);
    let shift = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    long x = a[i];
    out[i] = (int)((x << 32) >> 33) + (int)(x >> b[i]);
}
"#;
    refused(shift, "64-bit left shift", &ranges(), args);
    // INT_MIN / -1 is 2^31 as a `long`: past 32 bits.
    let quotient = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    long x = i == 0 ? (long)INT_MIN : (long)a[i];
    long y = i == 0 ? -1L : (long)b[i];
    out[i] = (int)((x / y) >> 1);
}
"#;
    refused(quotient, "64-bit division", &ranges(), args);
    // A group id times its dimension's local size: below the launch's
    // end (2^30 in a dimension for the wide code since the kernel's own
    // bound, `int64::launch_end`), where the intervals alone give 2^60.
    let ids = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0) - get_global_offset(0);
    size_t base = get_group_id(0) * get_local_size(0);
    out[i] = (int)(base + get_local_id(0) - get_global_offset(0) == i) + a[i] - b[i];
}
"#;
    agree(ids, &ranges(), args);
}

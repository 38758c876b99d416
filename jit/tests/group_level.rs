//! Group-level statements (`lower/group_level.rs`): statements every
//! work-item of a group runs alike are run once per group and region, and a
//! region ending in `if (lid OP bound)` visits only the chunks the test can
//! accept. Checked against the IR interpreter at W = 4, 8, 16 over whole and
//! partial groups, in one and two dimensions.

use vecl_ir::interp::NdRange;
use vecl_testkit::{differential_at, explain, group_sizes_1d, range_1d, Spec, BARRIER_WIDTHS};

fn range2(global: [u64; 2], local: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [3, 1, 0],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

fn shapes_2d() -> Vec<NdRange> {
    vec![
        range2([32, 6], [16, 2]),
        range2([24, 4], [12, 4]),
        range2([40, 3], [40, 1]),
        range2([27, 4], [9, 2]),
    ]
}

/// Per-group sums by a tree reduction over `size_t` ids (`lid < s`): the
/// benchmark's kernel.
const REDUCE: &str = include_str!("../../benches/reduce.cl");

#[test]
fn tree_reduction() {
    let shapes: Vec<NdRange> = [1u64, 2, 4, 8, 16, 24, 64, 256]
        .iter()
        .map(|&ls| range_1d(0, 5 * ls, ls))
        .collect();
    let n = differential_at(&BARRIER_WIDTHS, REDUCE, "", "reduce", &shapes, |r| {
        let groups = (r.global_size[0] / r.local_size[0]) as usize;
        vec![
            Spec::Floats(r.global_size[0] as usize, 1),
            Spec::Floats(groups, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
    assert_eq!(n, BARRIER_WIDTHS.len() * 8);
}

/// Every comparison form of a signed `int` id against a bound that may be
/// negative or past the group, both operand orders, in loops with barriers.
const COMPARISONS: &str = r#"
kernel void cmp(global int* out, local int* t, int k) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    t[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = k; s < n + 3; s += 3) {
        if (lid < s) { t[lid] += 1; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid <= s) { t[lid] += 10; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s > lid) { t[lid] += 100; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= s) { t[lid] += 1000; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid > s) { t[lid] += 10000; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s == lid) { t[lid] += 100000; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s <= lid) { t[lid] += 1000000; }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[lid];
}
"#;

#[test]
fn comparison_forms() {
    for k in [-7, 0, 2, 5] {
        let n = differential_at(
            &BARRIER_WIDTHS,
            COMPARISONS,
            "",
            "cmp",
            &group_sizes_1d(),
            |r| {
                vec![
                    Spec::Ints(r.global_size[0] as usize, 0),
                    Spec::Local(4 * r.local_size[0] as usize),
                    Spec::Int(k),
                ]
            },
        );
        assert_eq!(n, BARRIER_WIDTHS.len() * 9);
    }
}

/// Unsigned 64-bit ids against bounds near the top of the range and the
/// group's own id.
const UNSIGNED: &str = r#"
kernel void ucmp(global uint* out, local uint* t, int bound) {
    size_t lid = get_local_id(0);
    ulong big = (ulong)bound;
    t[lid] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < big) { t[lid] += 2; }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid > big) { t[lid] += 4; }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid <= big) { t[lid] += 8; }
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t g = get_group_id(0) % 5;
    if (lid == g * 3) { t[lid] += 16; }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= g) { t[lid] += 32; }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid];
}
"#;

#[test]
fn unsigned_bounds() {
    for big in [0i32, 5, -1, -2] {
        let n = differential_at(
            &BARRIER_WIDTHS,
            UNSIGNED,
            "",
            "ucmp",
            &group_sizes_1d(),
            |r| {
                vec![
                    Spec::Ints(r.global_size[0] as usize, 0),
                    Spec::Local(4 * r.local_size[0] as usize),
                    // A negative int argument becomes a huge `ulong`.
                    Spec::Int(big),
                ]
            },
        );
        assert_eq!(n, BARRIER_WIDTHS.len() * 9);
    }
}

/// Two-dimensional groups: each row reduces its own part of `__local`
/// memory; a variable that is uniform within a row but differs between rows
/// (`row`) must stay per chunk.
const ROWS: &str = r#"
kernel void rows(global const int* in, global int* out, local int* t) {
    size_t x = get_local_id(0);
    size_t y = get_local_id(1);
    size_t w = get_local_size(0);
    int row = y == 0 ? 5 : (int)y * 7;
    t[y * w + x] = in[get_global_id(1) * get_global_size(0) + get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = w; s > 1; ) {
        size_t h = (s + 1) / 2;
        if (x < s / 2) {
            t[y * w + x] += t[y * w + x + h];
        }
        s = h;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (x == 0) { out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = t[y * w] + row; }
}
"#;

#[test]
fn two_dimensional_rows() {
    let n = differential_at(&BARRIER_WIDTHS, ROWS, "", "rows", &shapes_2d(), |r| {
        let items = (r.global_size[0] * r.global_size[1]) as usize;
        vec![
            Spec::Ints(items, 3),
            Spec::Ints(items, 0),
            Spec::Local(4 * (r.local_size[0] * r.local_size[1]) as usize),
        ]
    });
    assert_eq!(n, BARRIER_WIDTHS.len() * 4);
}

/// Hillis-Steele scan: group-level loop control around per-chunk work, and
/// regions made of group-level statements only.
const SCAN: &str = r#"
kernel void scan(global const int* in, global int* out, local int* tmp) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    int steps = 0;
    for (int offset = 1; offset < n; offset <<= 1) {
        int add = lid >= offset ? tmp[lid - offset] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += add;
        steps += 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = tmp[lid] * 64 + steps;
}
"#;

#[test]
fn prefix_scan() {
    let n = differential_at(&BARRIER_WIDTHS, SCAN, "", "scan", &group_sizes_1d(), |r| {
        vec![
            Spec::Ints(r.global_size[0] as usize, 2),
            Spec::Ints(r.global_size[0] as usize, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
    assert_eq!(n, BARRIER_WIDTHS.len() * 9);
}

/// A group-level value computed between barriers with no per-item work
/// (a region of group-level statements only), a `break` out of a barrier
/// loop decided at group level, and a variable made uniform per chunk but
/// written under per-item control (it must not become group-level).
const MIXED: &str = r#"
kernel void mixed(global int* out, local int* t, int limit) {
    int lid = get_local_id(0);
    int acc = 0;
    int m = 0;
    t[lid] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    m = get_local_size(0) * 3 + limit;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < 100; i++) {
        if (i * i > m) break;
        if (lid < i) { t[lid] += i; }
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[(lid + 1) % get_local_size(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int u = 0;
    if (lid < 2) { u = 9; }
    if (get_local_size(0) > 2) { u += m; }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = acc * 1000 + m * 10 + u;
}
"#;

#[test]
fn mixed_group_level_and_per_item() {
    for limit in [-5, 3, 40] {
        let n = differential_at(
            &BARRIER_WIDTHS,
            MIXED,
            "",
            "mixed",
            &group_sizes_1d(),
            |r| {
                vec![
                    Spec::Ints(r.global_size[0] as usize, 0),
                    Spec::Local(4 * r.local_size[0] as usize),
                    Spec::Int(limit),
                ]
            },
        );
        assert_eq!(n, BARRIER_WIDTHS.len() * 9);
    }
}

/// Regions whose chunk loops start past a row's first chunks (`lid >= k`)
/// or stop before its last (`lid < k`) read values saved per item before
/// the barrier: each chunk must find its own context area, the skipped
/// chunks counted in (two-dimensional groups have one row per `y`).
const SAVED_IN_RANGE: &str = r#"
kernel void saved(global const int* a, global int* out, local int* t, int k) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t g = y * get_global_size(0) + x;
    int lid = get_local_id(0);
    size_t me = get_local_linear_id();
    size_t n = get_local_size(0) * get_local_size(1);
    int v = a[g] * 3 + lid;
    int u = a[g] - 5 * lid;
    t[me] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= k) { out[g] = v - t[(me + 1) % n]; }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < k) { out[g] += u * 2; }
}
"#;

#[test]
fn saved_values_in_range_limited_regions() {
    let text = explain(SAVED_IN_RANGE, "saved");
    assert!(
        text.contains("2 chunk loops visit only the ids their `if` accepts"),
        "{text}"
    );
    let items = |r: &NdRange| (r.global_size[0] * r.global_size[1]) as usize;
    for k in [0, 5, 17, 30, 300] {
        for shapes in [group_sizes_1d(), shapes_2d()] {
            differential_at(&BARRIER_WIDTHS, SAVED_IN_RANGE, "", "saved", &shapes, |r| {
                vec![
                    Spec::Ints(items(r), 7),
                    Spec::Ints(items(r), 0),
                    Spec::Local(4 * (r.local_size[0] * r.local_size[1]) as usize),
                    Spec::Int(k),
                ]
            });
        }
    }
}

/// The report counts what ran at group level.
#[test]
fn explain_reports_group_level_work() {
    let text = explain(REDUCE, "reduce");
    assert!(text.contains("group-level"), "{text}");
}

//! Launches whose work-groups are one work-item wide in dimension 0 —
//! local sizes (1, N), (1, N, M), (1, 1, N), (1, 1) — checked against the
//! IR interpreter at W = 4, 8, 16. Such launches run a copy of the kernel
//! whose lanes step along dimension 1 (or 2); each test asserts that the
//! copy is the code that ran, so a wrong idea of which ids are consecutive
//! across lanes shows up as a buffer that differs.
//!
//! The kernels index memory with `get_global_id(0)` and `get_global_id(1)`
//! in both orders, use barriers and `__local` memory, ask every work-item
//! function about every dimension, and run groups whose size is not a
//! multiple of W (tails) and partial last groups. Kernels that cannot have
//! the copy (a run-time dimension, `get_global_linear_id`) keep the one
//! mapping and still compute the same results.

use vecl_ir::interp::NdRange;
use vecl_jit::abi::Launch;
use vecl_testkit::{build, compare_launches, explain_line, try_compile, Spec, WIDTHS};

fn range(global: [u64; 3], local: [u64; 3], offset: [u64; 3], dims: u32) -> NdRange {
    NdRange {
        work_dim: dims,
        global_offset: offset,
        global_size: global,
        local_size: local,
    }
}

fn r2(global: [u64; 2], local: [u64; 2]) -> NdRange {
    range(
        [global[0], global[1], 1],
        [local[0], local[1], 1],
        [0; 3],
        2,
    )
}

fn items(r: &NdRange) -> usize {
    r.global_size.iter().product::<u64>() as usize
}

/// The dimension the lanes of a launch of `r` should step along.
fn expected_lanes(r: &NdRange) -> usize {
    match r.local_size {
        [1, n, _] if n > 1 => 1,
        [1, 1, n] if n > 1 => 2,
        _ => 0,
    }
}

/// Compares kernel `kernel` of `src` with the interpreter at every width
/// over `ranges`, after asserting which dimension the lanes of each launch
/// step along (`lanes(range)`); returns the launches compared.
fn check(
    src: &str,
    kernel: &str,
    ranges: &[NdRange],
    lanes: impl Fn(&NdRange) -> usize,
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    let m = build(src, "");
    let mut compared = 0;
    for w in WIDTHS {
        let k = try_compile(&m, kernel, w).unwrap_or_else(|e| panic!("W = {w}: {e}"));
        for r in ranges {
            let launch = Launch::new(r.work_dim, r.global_offset, r.global_size, r.local_size);
            assert_eq!(
                k.lane_dimension(&launch),
                lanes(r),
                "W = {w} {r:?}: the dimension the lanes step along"
            );
        }
        compared += compare_launches(&m, kernel, &k, ranges, &args);
    }
    compared
}

/// Reads and writes through `get_global_id(0)`-major and
/// `get_global_id(1)`-major indices: in the copy, `x` is the same for
/// every lane of a chunk and `y` steps by one.
const BOTH_ORDERS: &str = r#"
kernel void k(global const int* a, global int* rows, global int* cols) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t width = get_global_size(0), height = get_global_size(1);
    int by_row = a[y * width + x];
    int by_col = a[x * height + y];
    rows[y * width + x] = by_row * 3 + by_col + (int)get_local_id(0) * 100 + (int)get_local_id(1);
    cols[x * height + y] = by_col - (int)get_group_id(0) + (int)get_group_id(1) * 7
        + (int)(get_global_id(1) & 3);
}
"#;

fn both_orders_args(r: &NdRange) -> Vec<Spec> {
    let n = items(r);
    vec![Spec::Ints(n, 3), Spec::Ints(n, 0), Spec::Ints(n, 1)]
}

#[test]
fn a_2d_kernel_indexing_by_both_ids_matches_the_interpreter_over_groups_one_wide() {
    let ranges = [
        r2([3, 64], [1, 16]),
        // Groups of 12 and 7: partial chunks at W = 8 and 16, and at 4.
        r2([5, 36], [1, 12]),
        r2([2, 21], [1, 7]),
        // A partial last group in dimension 1 (40 = 2 * 16 + 8).
        r2([3, 40], [1, 16]),
        r2([2, 512], [1, 256]),
        r2([4, 5], [1, 1]),
        // With an offset in both dimensions.
        range([3, 10, 1], [1, 5, 1], [2, 7, 0], 2),
        // Groups wide in both dimensions keep lanes along dimension 0.
        r2([8, 8], [4, 2]),
    ];
    let n = check(BOTH_ORDERS, "k", &ranges, expected_lanes, both_orders_args);
    assert_eq!(n, WIDTHS.len() * ranges.len());
}

/// Barriers and `__local` memory: every work-item of a group reads what
/// others wrote, through the local linear id.
const LOCAL_EXCHANGE: &str = r#"
kernel void k(global const int* in, global int* out, local int* tmp) {
    size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);
    size_t l = get_local_linear_id();
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;
    tmp[l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    int s = tmp[n - 1 - l] + tmp[(l + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[l] = s * 2 + (int)get_local_id(0) + (int)get_local_id(2) * 5;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(1) + 1 < get_local_size(1))
        out[i] = tmp[(l + get_local_size(1) / 2) % n]
            + (int)(get_group_id(0) * 1000 + get_group_id(1) * 100 + get_group_id(2) * 10);
    else
        out[i] = -tmp[l];
}
"#;

fn local_exchange_args(r: &NdRange) -> Vec<Spec> {
    let n = items(r);
    let group: u64 = r.local_size.iter().product();
    vec![
        Spec::Ints(n, 5),
        Spec::Ints(n, 0),
        Spec::Local(4 * group as usize),
    ]
}

#[test]
fn barriers_and_local_memory_match_the_interpreter_over_groups_one_wide() {
    let ranges = [
        r2([2, 48], [1, 16]),
        r2([3, 30], [1, 12]),
        r2([2, 37], [1, 8]),
        range([2, 8, 6], [1, 4, 3], [0; 3], 3),
        range([3, 2, 48], [1, 1, 16], [0; 3], 3),
        // Tails and a partial last group in dimension 2.
        range([2, 3, 40], [1, 1, 12], [0; 3], 3),
        range([2, 10, 4], [1, 5, 2], [1, 2, 3], 3),
        range([2, 3, 2], [1, 1, 1], [0; 3], 3),
    ];
    let n = check(
        LOCAL_EXCHANGE,
        "k",
        &ranges,
        expected_lanes,
        local_exchange_args,
    );
    assert_eq!(n, WIDTHS.len() * ranges.len());
}

/// Every work-item function in every dimension (3 is out of range), the
/// local linear id and the work dimension, 34 values per work-item.
const EVERY_QUERY: &str = r#"
#define Q(d) \
    o[8 * d + 0] = get_global_id(d); o[8 * d + 1] = get_local_id(d); \
    o[8 * d + 2] = get_group_id(d); o[8 * d + 3] = get_local_size(d); \
    o[8 * d + 4] = get_enqueued_local_size(d); o[8 * d + 5] = get_num_groups(d); \
    o[8 * d + 6] = get_global_size(d); o[8 * d + 7] = get_global_offset(d);
kernel void k(global uint* out) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    global uint* o = out + 34 * ((z * get_global_size(1) + y) * get_global_size(0) + x);
    Q(0) Q(1) Q(2) Q(3)
    o[32] = get_local_linear_id();
    o[33] = get_work_dim();
}
"#;

#[test]
fn every_work_item_function_answers_as_in_the_launch_in_every_dimension() {
    let ranges = [
        r2([3, 40], [1, 16]),
        r2([2, 9], [1, 9]),
        range([2, 8, 6], [1, 4, 3], [0; 3], 3),
        range([2, 3, 44], [1, 1, 16], [0; 3], 3),
        range([3, 10, 4], [1, 5, 2], [4, 5, 6], 3),
        range([2, 2, 2], [1, 1, 1], [0; 3], 3),
    ];
    let n = check(EVERY_QUERY, "k", &ranges, expected_lanes, |r| {
        vec![Spec::Ints(34 * items(r), 0)]
    });
    assert_eq!(n, WIDTHS.len() * ranges.len());
}

#[test]
fn a_run_time_dimension_or_the_global_linear_id_keeps_lanes_along_dimension_0() {
    let by_argument = r#"
    kernel void k(global int* out, int d) {
        size_t i = get_global_id(0) * get_global_size(1) + get_global_id(1);
        out[i] = (int)get_global_id(d) * 10 + (int)get_local_id(d);
    }
    "#;
    let ranges = [r2([3, 32], [1, 16]), r2([2, 20], [1, 10])];
    for d in [0, 1] {
        let n = check(
            by_argument,
            "k",
            &ranges,
            |_| 0,
            |r| vec![Spec::Ints(items(r), 0), Spec::Int(d)],
        );
        assert_eq!(n, WIDTHS.len() * ranges.len());
    }
    let line = explain_line(by_argument, 8, "lanes:");
    assert!(
        line.contains("dimension 0 in every launch") && line.contains("run time"),
        "{line}"
    );

    let linear = r#"
    kernel void k(global int* out) {
        out[get_global_linear_id()] = (int)get_global_id(0) * 10 + (int)get_global_id(1);
    }
    "#;
    let n = check(
        linear,
        "k",
        &ranges,
        |_| 0,
        |r| vec![Spec::Ints(items(r), 0)],
    );
    assert_eq!(n, WIDTHS.len() * ranges.len());
    let line = explain_line(linear, 8, "lanes:");
    assert!(line.contains("get_global_linear_id"), "{line}");
}

#[test]
fn the_report_says_the_lanes_are_chosen_at_launch() {
    let line = explain_line(BOTH_ORDERS, 8, "lanes:");
    assert!(line.starts_with("lanes: chosen at launch"), "{line}");
}

/// The `groups:` line of the report of kernel `k` in `src`.
fn groups_line(src: &str) -> String {
    explain_line(src, 8, "groups:")
}

#[test]
fn kernels_that_see_only_global_ids_cannot_observe_their_groups_shape() {
    for src in [
        "kernel void k(global float* a) { a[get_global_id(0)] *= 2.0f; }",
        // Sizes and offsets of the range, a helper, a fence, an atomic.
        r#"
        size_t at(size_t x, size_t y) { return y * get_global_size(0) + x; }
        kernel void k(global int* a, global int* n) {
            size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1);
            a[at(x, y)] += (int)get_work_dim();
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            atomic_inc(n);
        }"#,
        "kernel void k(global int* a) { a[get_global_linear_id()] = 1; }",
    ] {
        let line = groups_line(src);
        assert!(line.contains("cannot observe"), "{line}\n{src}");
    }
}

#[test]
fn every_way_of_seeing_the_groups_shape_is_found() {
    for (src, why) in [
        (
            "kernel void k(global int* a) { a[get_global_id(0)] = get_local_id(0); }",
            "get_local_id",
        ),
        (
            "kernel void k(global int* a) { a[get_global_id(0)] = get_group_id(1); }",
            "get_group_id",
        ),
        (
            "kernel void k(global int* a) { a[get_global_id(0)] = get_local_size(2); }",
            "get_local_size",
        ),
        (
            "kernel void k(global int* a) { a[get_global_id(0)] = get_num_groups(0); }",
            "get_num_groups",
        ),
        (
            "kernel void k(global int* a) { a[get_global_id(0)] = get_enqueued_local_size(0); }",
            "get_enqueued_local_size",
        ),
        (
            "kernel void k(global int* a) { a[get_global_id(0)] = get_local_linear_id(); }",
            "get_local_linear_id",
        ),
        // Through a helper the kernel calls.
        (
            r#"int group(void) { return get_group_id(0); }
            kernel void k(global int* a) { a[get_global_id(0)] = group(); }"#,
            "get_group_id",
        ),
        (
            r#"kernel void k(global int* a) {
                a[get_global_id(0)] = 1;
                barrier(CLK_GLOBAL_MEM_FENCE);
            }"#,
            "barrier",
        ),
        (
            "kernel void k(global int* a, local int* t) { a[get_global_id(0)] = 1; }",
            "__local parameter",
        ),
        (
            r#"kernel void k(global int* a) {
                local int t[4];
                t[get_global_id(0) & 3] = 1;
                a[get_global_id(0)] = 2;
            }"#,
            "__local variable",
        ),
        (
            r#"kernel void k(global int* a, global const int* b) {
                local int t[16];
                event_t e = async_work_group_copy(t, b, 16, 0);
                wait_group_events(1, &e);
                a[get_global_id(0)] = t[get_global_id(0) & 15];
            }"#,
            "__local",
        ),
    ] {
        let line = groups_line(src);
        assert!(
            line.starts_with("groups: shape observable") && line.contains(why),
            "{line}\nwanted {why} in\n{src}"
        );
    }
}

/// The copy is compiled from the kernel's part of the program: helpers it
/// calls (and helpers they call) are kept, other kernels are not needed.
const WITH_HELPERS: &str = r#"
size_t row_major(size_t x, size_t y) { return y * get_global_size(0) + x; }
int weight(size_t y) { return (int)(y % 5) - (int)get_local_id(0); }
int mix(global const int* a, size_t x, size_t y) {
    return a[row_major(x, y)] * weight(y) + (int)get_local_id(1);
}
kernel void other(global int* a) { a[get_global_id(0)] = weight(3); }
kernel void k(global const int* a, global int* out) {
    size_t x = get_global_id(0), y = get_global_id(1);
    out[row_major(x, y)] = mix(a, x, y);
}
"#;

#[test]
fn helpers_the_kernel_calls_are_part_of_the_copy() {
    let ranges = [r2([3, 40], [1, 16]), r2([2, 24], [1, 12])];
    let n = check(WITH_HELPERS, "k", &ranges, expected_lanes, |r| {
        vec![Spec::Ints(items(r), 2), Spec::Ints(items(r), 0)]
    });
    assert_eq!(n, WIDTHS.len() * ranges.len());
}

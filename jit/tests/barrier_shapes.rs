//! Barriers under uniform control flow, each shape checked against the IR
//! interpreter at W = 4, 8, 16 over local sizes 1, 3, 16, 64, 256 with full
//! and partial last groups: scans with up- and down-sweep loops, a tiled
//! matrix product of a size that is not a multiple of the tile, barriers in
//! uniform `if`s and `switch`es, nested barrier loops, `break`, `continue`
//! and `return` that cross barriers; and barriers reached by only some
//! rows of a group, reported at run time (barriers under control that
//! varies within a chunk: `barrier_checked.rs`).

use vecl_ir::interp::{run_kernel, InterpError, NdRange};
use vecl_testkit::{
    build, differential_at, group_sizes_1d, interp_args_for, run_jit, try_compile, Spec,
    BARRIER_WIDTHS, DIVERGENT,
};

const HILLIS_STEELE: &str = r#"
kernel void scan(global const int* in, global int* out, local int* tmp) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 1; offset < n; offset <<= 1) {
        int add = lid >= offset ? tmp[lid - offset] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = tmp[lid];
}
"#;

#[test]
fn hillis_steele_scan() {
    let n = differential_at(
        &BARRIER_WIDTHS,
        HILLIS_STEELE,
        "",
        "scan",
        &group_sizes_1d(),
        |r| {
            let g = r.global_size[0] as usize;
            vec![
                Spec::Ints(g, 1),
                Spec::Ints(g, 2),
                Spec::Local(4 * r.local_size[0] as usize),
            ]
        },
    );
    assert_eq!(n, BARRIER_WIDTHS.len() * 9);
}

/// Work-efficient exclusive scan of the group's items padded to a power of
/// two `m`: each item handles elements `lid, lid + size, …`, so the up- and
/// down-sweep loops hold an inner loop of varying trip count.
const BLELLOCH: &str = r#"
kernel void scan(global const int* in, global int* out, local int* t) {
    int lid = get_local_id(0);
    int size = get_local_size(0);
    int base = get_group_id(0) * get_enqueued_local_size(0);
    int m = 1;
    while (m < size) m <<= 1;
    for (int j = lid; j < m; j += size)
        t[j] = j < size ? in[base + j] : 0;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = lid; j < d; j += size) {
            int ai = offset * (2 * j + 1) - 1;
            int bi = offset * (2 * j + 2) - 1;
            t[bi] += t[ai];
        }
        offset *= 2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        t[m - 1] = 0;
    for (int d = 1; d < m; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = lid; j < d; j += size) {
            int ai = offset * (2 * j + 1) - 1;
            int bi = offset * (2 * j + 2) - 1;
            int v = t[ai];
            t[ai] = t[bi];
            t[bi] += v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + lid] = t[lid];
}
"#;

#[test]
fn blelloch_scan_with_up_and_down_sweeps() {
    let n = differential_at(
        &BARRIER_WIDTHS,
        BLELLOCH,
        "",
        "scan",
        &group_sizes_1d(),
        |r| {
            let g = r.global_size[0] as usize;
            vec![
                Spec::Ints(g, 3),
                Spec::Ints(g, 4),
                Spec::Local(4 * (r.local_size[0] as usize).next_power_of_two()),
            ]
        },
    );
    assert_eq!(n, BARRIER_WIDTHS.len() * 9);
}

const MATMUL: &str = r#"
kernel void matmul(global const float* a, global const float* b, global float* c, int n) {
    local float ta[TILE][TILE];
    local float tb[TILE][TILE];
    int col = get_global_id(0);
    int row = get_global_id(1);
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[ly][lx] = (row < n && t + lx < n) ? a[row * n + t + lx] : 0.0f;
        tb[ly][lx] = (t + ly < n && col < n) ? b[(t + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < n && col < n)
        c[row * n + col] = acc;
}
"#;

#[test]
fn tiled_matmul_of_a_size_not_a_multiple_of_the_tile() {
    for (tile, n) in [(4u64, 10usize), (8, 13), (16, 21)] {
        let span = (n as u64).div_ceil(tile) * tile;
        let range = NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [span, span, 1],
            local_size: [tile, tile, 1],
        };
        let opts = format!("-D TILE={tile}");
        let count = differential_at(&BARRIER_WIDTHS, MATMUL, &opts, "matmul", &[range], |_| {
            vec![
                Spec::Floats(n * n, 1),
                Spec::Floats(n * n, 2),
                Spec::Floats(n * n, 0),
                Spec::Int(n as i32),
            ]
        });
        assert_eq!(count, BARRIER_WIDTHS.len());
    }
}

/// Barriers in both arms of a uniform `if`, in one arm only, and in the
/// cases of a uniform `switch` with fall-through.
const UNIFORM_BRANCHES: &str = r#"
kernel void branches(global const int* in, global int* out, local int* tmp, int mode) {
    int lid = get_local_id(0);
    int size = get_local_size(0);
    int gid = get_global_id(0);
    int x = in[gid];
    if (mode > 1) {
        tmp[lid] = x;
        barrier(CLK_LOCAL_MEM_FENCE);
        x += tmp[(lid + 1) % size];
        barrier(CLK_LOCAL_MEM_FENCE);
    } else {
        tmp[size - 1 - lid] = x * 3;
        barrier(CLK_LOCAL_MEM_FENCE);
        x -= tmp[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (mode == 2) {
        tmp[lid] = x;
        barrier(CLK_LOCAL_MEM_FENCE);
        x = tmp[0] - x;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    switch (mode) {
    case 0:
        tmp[lid] = x + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        x = tmp[size - 1 - lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    case 1:
        x *= 2;
        break;
    case 3:
        tmp[lid] = x;
        barrier(CLK_LOCAL_MEM_FENCE);
        x ^= tmp[(lid + 2) % size];
        barrier(CLK_LOCAL_MEM_FENCE);
        break;
    default:
        x = -x;
    }
    out[gid] = x;
}
"#;

#[test]
fn barriers_in_uniform_ifs_and_switches() {
    let mut total = 0;
    for mode in 0..5 {
        total += differential_at(
            &BARRIER_WIDTHS,
            UNIFORM_BRANCHES,
            "",
            "branches",
            &group_sizes_1d(),
            |r| {
                let g = r.global_size[0] as usize;
                vec![
                    Spec::Ints(g, 5),
                    Spec::Ints(g, 6),
                    Spec::Local(4 * r.local_size[0] as usize),
                    Spec::Int(mode),
                ]
            },
        );
    }
    assert_eq!(total, 5 * BARRIER_WIDTHS.len() * 9);
}

/// Barrier loops nested two deep, a barrier-free inner loop and a `switch`
/// inside a barrier loop, and `break`, `continue` and `return` that leave
/// barrier regions.
const NESTED: &str = r#"
kernel void nested(global const int* in, global int* out, local int* tmp, int rounds) {
    int lid = get_local_id(0);
    int size = get_local_size(0);
    int gid = get_global_id(0);
    int acc = in[gid];
    for (int i = 0; ; i++) {
        if (i >= rounds)
            break;
        for (int j = 0; j < 3; j++) {
            tmp[lid] = acc;
            barrier(CLK_LOCAL_MEM_FENCE);
            int s = 0;
            for (int k = 0; k <= j; k++)
                s += tmp[(lid + k + 1) % size];
            barrier(CLK_LOCAL_MEM_FENCE);
            acc += s;
            if (j == i)
                continue;
            switch (j) {
            case 0: acc ^= 5; break;
            case 1: acc -= i; continue;
            default: acc += 7;
            }
            acc = acc % 100003;
        }
        if (i % 2 == 1)
            continue;
        acc = acc / 3 + i;
    }
    out[gid] = acc;
    if (rounds > 2)
        return;
    tmp[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = acc + tmp[size - 1 - lid];
}
"#;

#[test]
fn nested_barrier_loops_with_break_continue_and_return() {
    let mut total = 0;
    for rounds in [0, 1, 4] {
        total += differential_at(
            &BARRIER_WIDTHS,
            NESTED,
            "",
            "nested",
            &group_sizes_1d(),
            |r| {
                let g = r.global_size[0] as usize;
                vec![
                    Spec::Ints(g, 7),
                    Spec::Ints(g, 8),
                    Spec::Local(4 * r.local_size[0] as usize),
                    Spec::Int(rounds),
                ]
            },
        );
    }
    assert_eq!(total, 3 * BARRIER_WIDTHS.len() * 9);
}

/// A do-while loop (its test in the `continuing` block) reading `__local`
/// memory, so the block becomes a region of its own, with a barrier loop
/// inside and private arrays live across the barriers.
const DO_WHILE: &str = r#"
kernel void dowhile(global const int* in, global int* out, local int* flag) {
    int lid = get_local_id(0);
    int gid = get_global_id(0);
    int hist[4] = {0, 0, 0, 0};
    int x = in[gid];
    int round = 0;
    do {
        hist[(x + round) & 3] += x;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            flag[0] = round + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        round++;
    } while (flag[0] < 5);
    out[gid] = hist[0] + 2 * hist[1] + 3 * hist[2] + 4 * hist[3] + round;
}
"#;

#[test]
fn do_while_barrier_loop_reading_local_memory() {
    let n = differential_at(
        &BARRIER_WIDTHS,
        DO_WHILE,
        "",
        "dowhile",
        &group_sizes_1d(),
        |r| {
            let g = r.global_size[0] as usize;
            vec![Spec::Ints(g, 9), Spec::Ints(g, 10), Spec::Local(64)]
        },
    );
    assert_eq!(n, BARRIER_WIDTHS.len() * 9);
}

/// `get_local_id(1)` is the same in every lane of a chunk, so this barrier
/// passes the compile-time check, but rows of the group disagree.
const DIVERGENT_ROWS: &str = r#"
kernel void rows(global int* out, local int* tmp) {
    int lid = get_local_id(0) + get_local_size(0) * get_local_id(1);
    tmp[lid] = lid;
    if (get_local_id(1) == 0) {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[lid] = tmp[lid];
}
"#;

#[test]
fn barrier_taken_by_some_rows_is_reported_as_divergent() {
    let m = build(DIVERGENT_ROWS, "");
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [8, 2, 1],
        local_size: [8, 2, 1],
    };
    let specs = vec![Spec::Ints(16, 0), Spec::Local(64)];
    let mut iargs = interp_args_for(&specs);
    let interp = run_kernel(&m, "rows", &mut iargs, &range);
    assert!(
        matches!(interp, Err(InterpError::DivergentBarrier { .. })),
        "{interp:?}"
    );
    for w in BARRIER_WIDTHS {
        let k = try_compile(&m, "rows", w).expect("compiles");
        let (status, _) = run_jit(&k, &interp_args_for(&specs), &range);
        assert_eq!(status, DIVERGENT, "W={w}");
    }
}

/// A barrier in a helper function (inlined into a one-iteration loop) with
/// an early `return` of the helper, and a barrier in a `for` increment (the
/// loop's `continuing` block).
const HELPER_AND_CONTINUING: &str = r#"
int exchange(local int* tmp, int lid, int size, int x, int skip) {
    if (skip)
        return x;
    tmp[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    int y = tmp[size - 1 - lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    return x + 2 * y;
}

kernel void helper(global const int* in, global int* out, local int* tmp, int rounds) {
    int lid = get_local_id(0);
    int size = get_local_size(0);
    int x = in[get_global_id(0)];
    tmp[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < rounds; barrier(CLK_LOCAL_MEM_FENCE), i++) {
        x = exchange(tmp, lid, size, x, i == 1) % 1009;
        tmp[lid] = x;
    }
    out[get_global_id(0)] = x + tmp[(lid + 1) % size];
}
"#;

#[test]
fn barrier_in_a_helper_function_and_in_a_for_increment() {
    let mut total = 0;
    for rounds in [0, 3] {
        total += differential_at(
            &BARRIER_WIDTHS,
            HELPER_AND_CONTINUING,
            "",
            "helper",
            &group_sizes_1d(),
            |r| {
                let g = r.global_size[0] as usize;
                vec![
                    Spec::Ints(g, 11),
                    Spec::Ints(g, 12),
                    Spec::Local(4 * r.local_size[0] as usize),
                    Spec::Int(rounds),
                ]
            },
        );
    }
    assert_eq!(total, 2 * BARRIER_WIDTHS.len() * 9);
}

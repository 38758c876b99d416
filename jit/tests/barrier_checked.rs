//! Barriers under control the uniformity analysis cannot prove uniform
//! (`if (gid < n)`, loops bounded by values loaded per work-item), checked
//! at run time: compared with the interpreter at W = 4, 8, 16, 32 over whole
//! and partial groups where every group agrees, and reported as a
//! divergent barrier, with the barrier's line and the work-items on each
//! side, where a group does not (inside one chunk and between chunks).

use vecl_ir::interp::{run_kernel, InterpError, NdRange};
use vecl_testkit::{
    build, differential_at, explain, interp_args_for, range_1d, run_jit, try_compile, Spec,
    BARRIER_WIDTHS, DIVERGENT,
};

/// `if (gid < n)` around a barrier: every group is either wholly below `n`
/// or wholly above it when `n` is a multiple of the local size.
const GUARDED: &str = r#"
kernel void guarded(global const int* in, global int* out, local int* tmp, int n) {
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    out[gid] = -1;
    if (gid < n) {
        tmp[lid] = in[gid];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[gid] = tmp[size - 1 - lid] + 2 * tmp[lid];
    }
}
"#;

fn guarded_args(r: &NdRange, n: i32) -> Vec<Spec> {
    let g = r.global_size[0] as usize;
    vec![
        Spec::Ints(g, 3),
        Spec::Ints(g, 4),
        Spec::Local(4 * r.local_size[0] as usize),
        Spec::Int(n),
    ]
}

#[test]
fn barrier_under_a_guard_every_group_agrees_on() {
    let mut total = 0;
    for ls in [1u64, 3, 8, 16, 64] {
        // All groups below `n`; the first two below, the rest above; a
        // partial last group above `n`.
        for (global, n) in [
            (4 * ls, 4 * ls),
            (4 * ls, 2 * ls),
            (3 * ls + ls / 2 + 1, 3 * ls),
        ] {
            total += differential_at(
                &BARRIER_WIDTHS,
                GUARDED,
                "",
                "guarded",
                &[range_1d(0, global, ls)],
                |r| guarded_args(r, n as i32),
            );
        }
    }
    assert_eq!(total, BARRIER_WIDTHS.len() * 15);
}

/// A loop holding barriers whose trip count each work-item loads: the same
/// for the whole group at run time (`max` with a larger `rounds`), which the
/// analysis cannot see; a barrier in an `if` nested in it whose condition
/// also comes from memory; and a `while` loop whose exit reads `__local`
/// memory through a varying address.
const LOADED_COUNTS: &str = r#"
kernel void counts(global const int* cnt, global int* out, local int* tmp, int rounds) {
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    int n = max(cnt[gid], rounds);
    int odd = max(cnt[gid], 13) & 1;
    int acc = lid;
    tmp[lid] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < n; ++i) {
        int x = tmp[(lid + i) % size];
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] = x + i;
        if (((i + odd) & 1) == 0) {
            barrier(CLK_LOCAL_MEM_FENCE);
            acc += tmp[(lid + 1) % size];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int k = 0;
    while (tmp[lid] - tmp[lid] + k < rounds) {
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += tmp[size - 1 - lid] & 7;
        k++;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gid] = acc;
}
"#;

#[test]
fn barrier_loops_with_loaded_trip_counts_uniform_at_run_time() {
    let mut total = 0;
    for ls in [1u64, 3, 16, 64] {
        for global in [3 * ls, 2 * ls + ls / 2 + 1] {
            // `cnt` holds values from -11 to 11: `max(cnt, 12)` is 12 for all.
            total += differential_at(
                &BARRIER_WIDTHS,
                LOADED_COUNTS,
                "",
                "counts",
                &[range_1d(0, global, ls)],
                |r| {
                    let g = r.global_size[0] as usize;
                    vec![
                        Spec::Ints(g, 5),
                        Spec::Ints(g, 6),
                        Spec::Local(4 * r.local_size[0] as usize),
                        Spec::Int(12),
                    ]
                },
            );
        }
    }
    assert_eq!(total, BARRIER_WIDTHS.len() * 8);
}

/// Work-items past `n` return before a loop holding a barrier whose trip
/// count they load: the ones that return take no part.
const RETURNS_FIRST: &str = r#"
kernel void early(global const int* cnt, global int* out, local int* tmp, int n, int rounds) {
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    out[gid] = 0;
    tmp[lid] = 0;
    if (gid >= n)
        return;
    int m = max(cnt[gid], rounds);
    for (int i = 0; i < m; ++i) {
        tmp[lid] += i;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[gid] += tmp[(lid + i) % size] & 15;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
"#;

#[test]
fn returned_work_items_take_no_part_in_a_checked_barrier() {
    let mut total = 0;
    for ls in [3u64, 16, 64] {
        for n in [3 * ls, 2 * ls + 1] {
            total += differential_at(
                &BARRIER_WIDTHS,
                RETURNS_FIRST,
                "",
                "early",
                &[range_1d(0, 3 * ls, ls)],
                |r| {
                    let g = r.global_size[0] as usize;
                    vec![
                        Spec::Ints(g, 7),
                        Spec::Ints(g, 8),
                        Spec::Local(4 * r.local_size[0] as usize),
                        Spec::Int(n as i32),
                        Spec::Int(12),
                    ]
                },
            );
        }
    }
    assert_eq!(total, BARRIER_WIDTHS.len() * 6);
}

/// `if (lid < split)` around a barrier, `split` a parameter: a group of
/// `8` work-items diverges inside a chunk when `split` is not a multiple of
/// W, between chunks when it is.
const SPLIT: &str = r#"
kernel void split(global int* out, local int* tmp, int split) {
    int lid = get_local_id(0);
    tmp[lid] = lid;
    if (lid < split) {
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += 1;
    }
    out[get_global_id(0)] = tmp[lid];
}
"#;

/// The JIT's status and the words of the divergence it recorded.
fn run_split(w: u32, local: u64, split: i32) -> (u32, Option<String>) {
    let m = build(SPLIT, "");
    let k = try_compile(&m, "split", w).expect("compiles");
    let specs = vec![
        Spec::Ints(2 * local as usize, 0),
        Spec::Local(4 * local as usize),
        Spec::Int(split),
    ];
    let range = range_1d(0, 2 * local, local);
    let mut iargs = interp_args_for(&specs);
    match run_kernel(&m, "split", &mut iargs, &range) {
        Err(InterpError::DivergentBarrier { .. }) => {}
        other => panic!("W={w} local {local} split {split}: interpreter: {other:?}"),
    }
    let _ = vecl_jit::abi::take_barrier_divergence();
    let (status, _) = run_jit(&k, &interp_args_for(&specs), &range);
    let words = vecl_jit::abi::take_barrier_divergence().map(|d| k.describe_divergence(&d));
    (status, words)
}

#[test]
fn a_group_that_diverges_inside_a_chunk_fails_with_both_work_items() {
    for (w, local, split) in [(8, 8, 2), (16, 16, 5), (4, 8, 3), (8, 24, 13)] {
        let (status, words) = run_split(w, local, split);
        assert_eq!(status, DIVERGENT, "W={w} local {local} split {split}");
        let words = words.expect("a recorded divergence");
        // The first lane of the chunk reaches the barrier (line 6), the
        // first lane at or past `split` finishes the kernel.
        let first_chunk = (split as u64 / u64::from(w)) * u64::from(w);
        let want = format!(
            "barrier at line 6:9 reached by the work-item with local id ({first_chunk}, 0, 0) \
             in group (0, 0, 0) but not by the one with local id ({split}, 0, 0), which \
             went on without reaching it"
        );
        assert!(words.contains(&want), "W={w}: {words}\nwanted: {want}");
    }
}

#[test]
fn a_group_that_diverges_between_chunks_fails_with_both_work_items() {
    for (w, local) in [(4, 8), (8, 16), (8, 32), (16, 32)] {
        // Whole chunks on each side.
        let split = w as i32;
        let (status, words) = run_split(w, local, split);
        assert_eq!(status, DIVERGENT, "W={w} local {local}");
        let words = words.expect("a recorded divergence");
        let want = format!(
            "barrier at line 6:9 reached by the work-item with local id (0, 0, 0) in group \
             (0, 0, 0) but not by the one with local id ({w}, 0, 0), which went on without reaching it"
        );
        assert!(words.contains(&want), "W={w}: {words}\nwanted: {want}");
    }
}

#[test]
fn a_loop_run_a_different_number_of_times_fails() {
    let src = r#"
kernel void l(global const int* cnt, global int* out, local int* tmp) {
    int lid = get_local_id(0);
    int n = cnt[get_global_id(0)];
    for (int i = 0; i < n; i++) {
        tmp[lid] = i;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = tmp[lid];
}
"#;
    let m = build(src, "");
    let range = range_1d(0, 16, 16);
    let specs = vec![Spec::Ints(16, 0), Spec::Ints(16, 1), Spec::Local(64)];
    let mut iargs = interp_args_for(&specs);
    assert!(matches!(
        run_kernel(&m, "l", &mut iargs, &range),
        Err(InterpError::DivergentBarrier { .. })
    ));
    for w in BARRIER_WIDTHS {
        let k = try_compile(&m, "l", w).expect("compiles");
        let (status, _) = run_jit(&k, &interp_args_for(&specs), &range);
        assert_eq!(status, DIVERGENT, "W={w}");
        let d = vecl_jit::abi::take_barrier_divergence().expect("recorded");
        let words = k.describe_divergence(&d);
        assert!(words.contains("barrier at line 7:9"), "W={w}: {words}");
    }
}

#[test]
fn explain_names_the_barrier_and_the_condition() {
    let e = explain(GUARDED, "guarded");
    assert!(
        e.contains(
            "note: barrier at line 9:9 is checked at run time: the condition at line 7:13 \
             was not proven uniform"
        ),
        "{e}"
    );
    // A barrier proven uniform gets no such note.
    let e = explain(SPLIT.replace("lid < split", "0 < split").as_str(), "split");
    assert!(!e.contains("checked at run time"), "{e}");
}

/// Groups one work-item wide in dimension 0 run a copy of the kernel with
/// its lanes along dimension 1: the report still gives the launch's own
/// local ids.
#[test]
fn the_report_names_local_ids_of_a_launch_with_lanes_along_dimension_1() {
    let src = r#"
kernel void rows(global int* out, local int* tmp, int split) {
    int lid = get_local_id(1);
    tmp[lid] = lid;
    if (lid < split) {
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += 1;
    }
    out[get_global_id(1)] = tmp[lid];
}
"#;
    let m = build(src, "");
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [1, 16, 1],
        local_size: [1, 16, 1],
    };
    let specs = vec![Spec::Ints(16, 0), Spec::Local(64), Spec::Int(5)];
    for w in [4, 8, 16] {
        let k = try_compile(&m, "rows", w).expect("compiles");
        let _ = vecl_jit::abi::take_barrier_divergence();
        let (status, _) = run_jit(&k, &interp_args_for(&specs), &range);
        assert_eq!(status, DIVERGENT, "W={w}");
        let d = vecl_jit::abi::take_barrier_divergence().expect("recorded");
        let words = k.describe_divergence(&d);
        assert!(
            words.contains("but not by the one with local id (0, 5, 0)"),
            "W={w}: {words}"
        );
    }
}

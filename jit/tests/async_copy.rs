//! `async_work_group_copy` and `async_work_group_strided_copy` in both
//! directions, checked against the IR interpreter at W = 4, 8, 16 over
//! groups of several chunks (and partial last groups): after
//! `wait_group_events` every work-item sees the whole copy, including the
//! parts other chunks of its group read.

use vecl_ir::interp::NdRange;
use vecl_testkit::{differential_at, range_1d, Spec, BARRIER_WIDTHS};

/// Global to local, then each item reads its own element and its right
/// neighbour's (which may belong to the next chunk) with no barrier after
/// the wait.
const GLOBAL_TO_LOCAL: &str = r#"
kernel void g2l(global const int* src, global int* dst, local int* tmp, int per_item) {
    int lid = get_local_id(0);
    int size = get_local_size(0);
    int n = size * per_item;
    event_t e = async_work_group_copy(tmp, src + get_group_id(0) * n, (size_t)n, 0);
    wait_group_events(1, &e);
    for (int i = 0; i < per_item; i++) {
        int at = lid * per_item + i;
        dst[get_group_id(0) * n + at] = tmp[at] * 10 + tmp[(at + per_item) % n];
    }
}
"#;

/// Local to global after a barrier: the group's items fill the local
/// buffer, one copy writes it out.
const LOCAL_TO_GLOBAL: &str = r#"
kernel void l2g(global const int* src, global int* dst, local int* tmp, int per_item) {
    int lid = get_local_id(0);
    int size = get_local_size(0);
    int n = size * per_item;
    for (int i = 0; i < per_item; i++)
        tmp[lid * per_item + i] = src[get_group_id(0) * n + lid * per_item + i] + 7;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t e = async_work_group_copy(dst + get_group_id(0) * n, tmp, (size_t)n, 0);
    wait_group_events(1, &e);
}
"#;

/// Strided both ways: gather every `stride`-th element into local memory,
/// transform it, scatter it back with the same stride.
const STRIDED: &str = r#"
kernel void strided(global int* data, local int* tmp, int stride) {
    int lid = get_local_id(0);
    int size = get_local_size(0);
    global int* base = data + get_group_id(0) * size * stride;
    event_t e = async_work_group_strided_copy(tmp, base, (size_t)size, (size_t)stride, 0);
    wait_group_events(1, &e);
    int v = tmp[(lid + 1) % size] - lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_strided_copy(base, tmp, (size_t)size, (size_t)stride, 0);
    wait_group_events(1, &e);
}
"#;

/// Three full groups per local size (1 to 64 items: up to 16 chunks at
/// W = 4).
fn full_groups() -> Vec<NdRange> {
    [1u64, 3, 4, 13, 16, 64]
        .iter()
        .map(|&ls| range_1d(0, 3 * ls, ls))
        .collect()
}

#[test]
fn global_to_local_copy_is_seen_by_every_chunk() {
    for per_item in [1, 3] {
        let n = differential_at(
            &BARRIER_WIDTHS,
            GLOBAL_TO_LOCAL,
            "",
            "g2l",
            &full_groups(),
            |r| {
                let total = r.global_size[0] as usize * per_item;
                vec![
                    Spec::Ints(total, 5),
                    Spec::Ints(total, 0),
                    Spec::Local(4 * r.local_size[0] as usize * per_item),
                    Spec::Int(per_item as i32),
                ]
            },
        );
        assert_eq!(n, BARRIER_WIDTHS.len() * 6);
    }
}

#[test]
fn local_to_global_copy_writes_the_whole_group() {
    for per_item in [1, 2] {
        let n = differential_at(
            &BARRIER_WIDTHS,
            LOCAL_TO_GLOBAL,
            "",
            "l2g",
            &full_groups(),
            |r| {
                let total = r.global_size[0] as usize * per_item;
                vec![
                    Spec::Ints(total, 1),
                    Spec::Ints(total, 0),
                    Spec::Local(4 * r.local_size[0] as usize * per_item),
                    Spec::Int(per_item as i32),
                ]
            },
        );
        assert_eq!(n, BARRIER_WIDTHS.len() * 6);
    }
}

#[test]
fn strided_copies_gather_and_scatter() {
    for stride in [1, 3] {
        let n = differential_at(
            &BARRIER_WIDTHS,
            STRIDED,
            "",
            "strided",
            &full_groups(),
            |r| {
                vec![
                    Spec::Ints(r.global_size[0] as usize * stride, 2),
                    Spec::Local(4 * r.local_size[0] as usize),
                    Spec::Int(stride as i32),
                ]
            },
        );
        assert_eq!(n, BARRIER_WIDTHS.len() * 6);
    }
}

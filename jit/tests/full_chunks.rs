//! Launches whose groups split into whole chunks (dimension 0 of the local
//! and global sizes multiples of W) run the optimised code's second group
//! loop, lowered with every chunk known full; the others run the general
//! one. Each kernel here is launched both ways at every width and compared
//! with the interpreter: the two loops must agree with it, whichever one a
//! shape picks.

mod common;

use common::codegen::*;
use vecl_ir::interp::NdRange;

fn range(offset: u64, global: [u64; 2], local: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: if global[1] > 1 { 2 } else { 1 },
        global_offset: [offset, 0, 0],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

/// Shapes taking each loop at W = 4 and 16 (W = 8 is the quick tier's,
/// which has the general loop only): whole chunks at both widths; local
/// sizes that are multiples of 4 but not of 16; a partial last group of 8
/// items (whole at W = 4 only); odd sizes; and 2-D groups whose rows are
/// whole or not.
fn shapes() -> Vec<NdRange> {
    vec![
        range(0, [256, 1], [64, 1]),
        range(5, [128, 1], [32, 1]),
        range(0, [240, 1], [60, 1]),
        range(0, [200, 1], [64, 1]),
        range(0, [99, 1], [33, 1]),
        range(0, [32, 6], [16, 3]),
        range(3, [24, 4], [12, 2]),
    ]
}

fn items(r: &NdRange) -> usize {
    ((r.global_offset[0] + r.global_size[0]) * r.global_size[1]) as usize
}

#[test]
fn barrier_regions_match_interpreter() {
    // `__local` memory through three regions, a masked `if`, a loop whose
    // trip count varies by lane, and a `return` after the last barrier.
    let src = "kernel void k(global const int* a, global int* o, local int* t) {
        int lid = get_local_id(0) + get_local_id(1) * get_local_size(0);
        int n = get_local_size(0) * get_local_size(1);
        size_t g = get_global_id(0) + get_global_id(1) * get_global_size(0);
        t[lid] = a[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        int s = t[(lid + 1) % n];
        if (s & 1) s += t[n - 1 - lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        t[lid] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < (lid & 3); i++) s += t[(lid + i) % n];
        if (s < 0) return;
        o[g] = s;
    }";
    let compared = differential(src, "k", &shapes(), |r| {
        let n = items(r);
        vec![
            Spec::Ints(n, 3),
            Spec::Ints(n, 0),
            Spec::Local(4 * (r.local_size[0] * r.local_size[1]) as usize),
        ]
    });
    assert_eq!(compared, shapes().len() * WIDTHS.len());
}

#[test]
fn streaming_kernel_with_gathers_and_atomics_matches_interpreter() {
    // No barrier: consecutive loads and stores, a gather, an atomic and an
    // early `return` for some lanes.
    let src = "kernel void k(global const float* a, global float* o, global int* h) {
        size_t g = get_global_id(0) + get_global_id(1) * get_global_size(0);
        float x = a[g];
        if (x < -8.0f) return;
        float y = a[(g * 7) % (get_global_size(0) * get_global_size(1))];
        atomic_add(&h[(int)x & 7], 1);
        o[g] = x * 2.0f + y;
    }";
    let compared = differential(src, "k", &shapes(), |r| {
        let n = items(r);
        vec![Spec::Floats(n, 1), Spec::Floats(n, 0), Spec::Ints(8, 0)]
    });
    assert_eq!(compared, shapes().len() * WIDTHS.len());
}

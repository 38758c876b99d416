//! Launches whose groups split into whole chunks (dimension 0 of the local
//! and global sizes multiples of W) run the optimised code's second group
//! loop, lowered with every chunk known full; the others run the general
//! one. Each kernel here is launched both ways at every width and compared
//! with the interpreter: the two loops must agree with it, whichever one a
//! shape picks.

use vecl_ir::interp::NdRange;
use vecl_testkit::*;

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

/// Kernel `kernel` of `src` at the JIT's own width (optimised code only,
/// so the wide copy is there from the start), against the interpreter over
/// `ranges`; returns the kernel's report.
fn at_default_width(
    src: &str,
    kernel: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> String {
    let m = vecl_testkit::build(src, "");
    // Cranelift's code and its 32-lane copy: the wide AVX-512 code (on by
    // default, `wide_kernels.rs`) would take some of these kernels and
    // make no such copy.
    let opts = vecl_jit::JitOptions {
        tiers: vecl_jit::Tiers::OptimisedOnly,
        wide: false,
        ..vecl_jit::JitOptions::default()
    };
    let k = vecl_jit::compile_kernel(&m, kernel, &opts).expect("compiles");
    vecl_testkit::compare_launches(&m, kernel, &k, ranges, args);
    k.explain().to_string()
}

/// Shapes taking the wide copy (dimension 0 of both sizes multiples of
/// 32) and shapes that do not (16 × 16 groups, local sizes multiples of 16
/// only, a partial last group of 16 items). The wide copy has a general
/// loop of its own, so it would compute the same for any launch: which
/// code a shape takes is a matter of speed, and each must match the
/// interpreter.
fn wide_shapes() -> Vec<NdRange> {
    vec![
        range(0, [256, 1], [64, 1]),
        range(7, [96, 3], [32, 1]),
        range(0, [64, 4], [16, 2]),
        range(0, [240, 1], [48, 1]),
        range(0, [208, 1], [64, 1]),
        range(0, [100, 1], [20, 1]),
    ]
}

#[test]
fn wide_copy_matches_interpreter() {
    // A uniform loop, clamped (not always consecutive) reads, a masked
    // `if` and an early `return`: what the wide copy is made for.
    let src = "kernel void k(global const float* a, global float* o, int w) {
        int x = get_global_id(0);
        int y = get_global_id(1);
        int n = get_global_size(0);
        float acc = 0.0f;
        for (int d = -2; d <= 2; d++) {
            int xx = clamp(x + d, 0, n - 1);
            acc += a[y * n + xx] * (float)(d + w);
        }
        if (acc < -40.0f) return;
        if (x & 1) acc = -acc;
        o[y * n + x] = acc;
    }";
    let report = at_default_width(src, "k", &wide_shapes(), |r| {
        let n = items(r);
        vec![Spec::Floats(n + 8, 2), Spec::Floats(n, 0), Spec::Int(3)]
    });
    assert!(report.contains("W = 16"), "{report}");
    assert!(report.contains("wide copy"), "{report}");
}

#[test]
fn divergent_loops_and_barriers_get_no_wide_copy() {
    let divergent = "kernel void k(global const int* a, global int* o) {
        size_t g = get_global_id(0);
        int v = a[g];
        int i = 0;
        while (v > 1 && i < 40) { v = (v & 1) ? 3 * v + 1 : v / 2; i++; }
        o[g] = i;
    }";
    let report = at_default_width(divergent, "k", &wide_shapes()[..2], |r| {
        let n = items(r);
        vec![Spec::Ints(n, 5), Spec::Ints(n, 0)]
    });
    assert!(!report.contains("wide copy"), "{report}");
    let barrier = "kernel void k(global const int* a, global int* o, local int* t) {
        size_t g = get_global_id(0);
        int l = get_local_id(0);
        t[l] = a[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        o[g] = t[get_local_size(0) - 1 - l];
    }";
    let report = at_default_width(barrier, "k", &wide_shapes()[..1], |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Ints(n, 5),
            Spec::Ints(n, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
    assert!(!report.contains("wide copy"), "{report}");
}

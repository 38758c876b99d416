//! A kernel whose prefetch placeholders cannot all be patched is lowered
//! and compiled again without prefetches (`define_kernel_function`). This
//! binary makes every patch fail (`vecl_jit::Prefetch::RefusePatch`; no
//! other test shares the process) and checks that kernels with prefetches — one
//! calling a math routine, which the first lowering already defined in the
//! module, and one with a barrier — compile again without them and match
//! the interpreter.

use vecl_testkit::explain_line;
use vecl_testkit::*;

const MATH: &str = "kernel void k(global const float* x, global const float* y, global float* o) {
    size_t i = get_global_id(0);
    o[i] = exp(x[i] * 0.01f) * y[i];
}";

const BARRIER: &str = "kernel void k(global const int* in, global int* out, local int* t) {
    size_t l = get_local_id(0);
    t[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[l] + t[(l + 1) % get_local_size(0)];
}";

fn end(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

#[test]
fn kernels_compile_again_without_prefetches_when_the_patch_fails() {
    // Both prefetch when the patch succeeds. (At W = 8, where the
    // Cranelift code is compiled at build time: a kernel on the wide code
    // compiles it only for a launch that needs it, and its report counts
    // the lowering.)
    for src in [MATH, BARRIER] {
        let l = explain_line(src, 8, "loads:");
        assert!(!l.contains("; 0 prefetching"), "{l}");
    }
    vecl_testkit::refuse_prefetch_patches();
    for src in [MATH, BARRIER] {
        let l = explain_line(src, 8, "loads:");
        assert!(l.contains("; 0 prefetching"), "{l}");
    }
    let n = differential(MATH, "k", &chunk_edges_1d(), |r| {
        vec![
            Spec::Floats(end(r), 1),
            Spec::Floats(end(r), 2),
            Spec::Floats(end(r), 0),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
    let n = differential(BARRIER, "k", &chunk_edges_1d(), |r| {
        vec![
            Spec::Ints(end(r), 3),
            Spec::Ints(end(r), 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

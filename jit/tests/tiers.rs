//! The two JIT tiers: the optimised code replaces the quick code of a
//! kernel, barrier regions and module-scope data included (the layout the
//! runtime sizes launches from must agree between the two, or the quick
//! code would stay).

use vecl_ir::Module;
use vecl_jit::{compile_kernel, FinalCode, JitOptions, Tiers};
use vecl_testkit::build;

/// Compiles `kernel` at width `w` with both tiers and waits until the
/// optimised code has replaced the quick code.
fn replaced(m: &Module, kernel: &str, w: u32) {
    // Cranelift's two tiers: a kernel on the wide code has no optimised
    // Cranelift tier (`docs/wide.md`).
    let opts = JitOptions {
        simd_width: Some(w),
        tiers: Tiers::Both,
        wide: false,
        ..JitOptions::default()
    };
    let k = compile_kernel(m, kernel, &opts).unwrap_or_else(|e| panic!("W = {w}: {e}"));
    assert!(
        matches!(k.wait_for_final_code(), FinalCode::Optimised(_)),
        "{kernel} W = {w}: {:?}",
        k.final_code()
    );
    assert!(k.explain().contains("quick tier"), "{}", k.explain());
}

#[test]
fn optimised_code_replaces_the_quick_code() {
    let src = "constant int bias[4] = {1, 2, 3, 4};
    kernel void reduce(global const int* in, global int* out, local int* t) {
        size_t l = get_local_id(0);
        t[l] = in[get_global_id(0)] + bias[l & 3];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (l < s) t[l] += t[l + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) out[get_group_id(0)] = t[0];
    }";
    let m = build(src, "");
    for w in [4, 8, 16] {
        replaced(&m, "reduce", w);
    }
}

#[test]
fn optimised_code_with_a_full_chunk_copy_replaces_the_quick_code() {
    // Only the optimised code has a copy of the body for full chunks
    // (here with a gather); the layouts still agree.
    let src = "kernel void pick(global const float* x, global const int* at, global float* y) {
        size_t i = get_global_id(0);
        y[i] = x[at[i]] * 2.0f;
    }";
    let m = build(src, "");
    for w in [4, 8, 16] {
        replaced(&m, "pick", w);
    }
}

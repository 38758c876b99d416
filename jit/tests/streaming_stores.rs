//! Streaming (non-temporal) stores (`lower/stream.rs`): which stores may
//! stream, and launches that take the streaming path (the threshold set to
//! zero) — line-aligned and misaligned outputs, one and two lines per
//! chunk, tail chunks, offsets — compared with the interpreter.

use vecl_ir::interp::{run_kernel, KernelArg};
use vecl_jit::{compile_kernel, JitOptions};
use vecl_testkit::*;
use vecl_testkit::{build, explain_at, explain_line, interp_args_for, run_jit};

/// The explain report at W = 16, where a chunk of 32-bit elements
/// writes one whole cache line.
fn explain16(src: &str) -> String {
    explain_at(src, 16)
}

fn streamed(src: &str) -> String {
    explain_line(src, 16, "stores:")
}

#[test]
fn only_outputs_the_kernel_never_reads_stream() {
    // An output written only.
    let s = streamed(
        "kernel void k(global const float* a, global float* o) {
            size_t i = get_global_id(0); o[i] = a[i] + 1.0f; }",
    );
    assert!(s.contains("1 streamed"), "{s}");
    // Read and written (saxpy's y): in the cache when written.
    let s = streamed(
        "kernel void k(global const float* a, global float* y) {
            size_t i = get_global_id(0); y[i] = a[i] + y[i]; }",
    );
    assert!(s.contains("0 streamed"), "{s}");
    // Through a pointer variable moved along the buffer.
    let s = streamed(
        "kernel void k(global const float* a, global float* o, int n) {
            size_t i = get_global_id(0);
            global float* p = o;
            p += n;
            p[i] = a[i]; }",
    );
    assert!(s.contains("1 streamed"), "{s}");
    // A read through a pointer of unknown origin could alias the output.
    let s = streamed(
        "kernel void k(global const float* a, global const float* b, global float* o, int c) {
            size_t i = get_global_id(0);
            global const float* p = c ? a : b;
            o[i] = p[i]; }",
    );
    assert!(s.contains("0 streamed"), "{s}");
    // A builtin reading the output.
    let s = streamed(
        "kernel void k(global const float* a, global float* o) {
            size_t i = get_global_id(0);
            float4 v = vload4(0, o);
            o[i] = a[i] + v.x; }",
    );
    assert!(s.contains("0 streamed"), "{s}");
    // Atomics and fences keep every store plain.
    let s = streamed(
        "kernel void k(global const float* a, global float* o, global int* n) {
            size_t i = get_global_id(0);
            o[i] = a[i];
            atomic_inc(n); }",
    );
    assert!(s.contains("0 streamed"), "{s}");
    let s = streamed(
        "kernel void k(global const float* a, global float* o) {
            size_t i = get_global_id(0);
            o[i] = a[i];
            mem_fence(CLK_GLOBAL_MEM_FENCE); }",
    );
    assert!(s.contains("0 streamed"), "{s}");
}

#[test]
fn streamed_launches_match_interpreter() {
    // `o` is aligned, `o + 1` is not (stored plainly); `d` is a 64-bit
    // output, `u` an integer one. Every launch may stream.
    let src = "kernel void k(global const float* a, global float* o, global float* q,
                             global double* d, global int* u) {
        size_t i = get_global_id(0);
        float x = a[i];
        o[i] = x * 2.0f + 1.0f;
        q[i + 1] = x - 3.0f;
        d[i] = (double)x * 0.5;
        u[i] = (int)x * 3;
    }";
    let e = explain16(src);
    assert!(e.contains("4 streamed"), "{e}");
    // At W = 8 a chunk writes half a line of floats: only the doubles
    // stream.
    let e = explain(src, "k");
    assert!(e.contains("1 streamed"), "{e}");
    let m = build(src, "");
    let mut launched = 0;
    for w in [8, 16, 32] {
        let opts = JitOptions {
            simd_width: Some(w),
            tiers: vecl_testkit::test_tiers(w),
            stream_min_items: 0,
            ..JitOptions::default()
        };
        let k = compile_kernel(&m, "k", &opts).expect("compiles");
        for range in chunk_edges_1d() {
            let n = (range.global_offset[0] + range.global_size[0]) as usize + 8;
            let init = interp_args_for(&[
                Spec::Floats(n, 1),
                Spec::Floats(n, 0),
                Spec::Floats(n + 1, 0),
                Spec::Floats(2 * n, 0),
                Spec::Ints(n, 0),
            ]);
            let mut want = init.clone();
            run_kernel(&m, "k", &mut want, &range).expect("interpreter");
            let (status, got) = run_jit(&k, &init, &range);
            assert_eq!(status, 0);
            for (i, a) in want.iter().enumerate() {
                if let KernelArg::Buffer(b) = a {
                    assert!(*b == got[i], "W={w} {range:?}: buffer {i} differs");
                }
            }
            launched += 1;
        }
    }
    assert_eq!(launched, 3 * chunk_edges_1d().len());
}

#[test]
fn streamed_outputs_sharing_work_match_interpreter() {
    // Two streamed outputs that share a divide, an `exp` and a select (as
    // Black-Scholes' `call` and `put` share their `cnd`): the pieces of
    // the first are pinned before its streaming branch, so the second
    // reuses them; every launch streams where lines are whole.
    let src = "kernel void k(global const float* a, global const float* b,
                             global float* o, global float* p) {
        size_t i = get_global_id(0);
        float k = 1.0f / (1.0f + 0.25f * fabs(a[i]));
        float w = exp(-0.5f * a[i] * a[i]) * k;
        float c = a[i] < 0.0f ? 1.0f - w : w;
        o[i] = b[i] * c - 0.5f;
        p[i] = (1.0f - c) * b[i] + k;
    }";
    assert!(explain16(src).contains("2 streamed"));
    let m = build(src, "");
    for w in [4, 8, 16, 32] {
        let opts = JitOptions {
            simd_width: Some(w),
            tiers: vecl_testkit::test_tiers(w),
            stream_min_items: 0,
            ..JitOptions::default()
        };
        let k = compile_kernel(&m, "k", &opts).expect("compiles");
        for range in chunk_edges_1d() {
            let n = (range.global_offset[0] + range.global_size[0]) as usize + 8;
            let init = interp_args_for(&[
                Spec::Floats(n, 1),
                Spec::Floats(n, 2),
                Spec::Floats(n, 0),
                Spec::Floats(n, 0),
            ]);
            let mut want = init.clone();
            run_kernel(&m, "k", &mut want, &range).expect("interpreter");
            let (status, got) = run_jit(&k, &init, &range);
            assert_eq!(status, 0);
            for i in [2, 3] {
                let KernelArg::Buffer(b) = &want[i] else {
                    panic!("buffer {i}");
                };
                let (want_f, got_f) = (f32s(b), f32s(&got[i]));
                for (j, (x, y)) in want_f.iter().zip(&got_f).enumerate() {
                    if x.to_bits() == y.to_bits() {
                        continue; // the guard past the end, lanes not run
                    }
                    // `exp` within its 3 ulp, through two roundings after.
                    let tol = 1e-5 * x.abs().max(1.0);
                    assert!(
                        (x - y).abs() <= tol,
                        "W={w} {range:?}: out {i}[{j}]: {x} vs {y}"
                    );
                }
            }
        }
    }
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

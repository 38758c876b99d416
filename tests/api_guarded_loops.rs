//! A guarded loop whose counter and loads are uniform for the lanes that
//! pass the guard (`uniformity::scope_depths`): `if (i < n && j < n) {
//! for (k …) s += A[i*n+k] * B[k*n+j]; }` launched over a grid larger
//! than the matrices, with buffers of exactly `n * n` floats. The rows
//! past `n` run none of the arm; had their uniform loads of `A` run, the
//! robust and checked launches would fail their command. Every width and
//! both codes (the wide code at the default width, Cranelift's at 8 and 4).

use vecl::Context;

const GEMM: &str = "
kernel void gemm(global const float* A, global const float* B, global float* C, int n) {
    int i = get_global_id(1), j = get_global_id(0);
    if (i < n && j < n) {
        float s = 0;
        for (int k = 0; k < n; k++) s += A[i * n + k] * B[k * n + j];
        C[i * n + j] = s;
    }
}
";

#[test]
fn a_guarded_product_reads_nothing_past_its_matrices() {
    let n = 33usize;
    let a: Vec<f32> = (0..n * n).map(|x| (x % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..n * n).map(|x| (x % 5) as f32 - 2.0).collect();
    let mut want = vec![0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    for width in [None, Some(8), Some(4)] {
        for checked in [false, true] {
            let mut builder = ctx.program(GEMM).checked(checked);
            if let Some(w) = width {
                builder = builder.simd_width(w);
            }
            let program = builder
                .build()
                .unwrap_or_else(|e| panic!("build failed: {e}"));
            let kernel = program.kernel("gemm").expect("kernel");
            let ab = ctx.buffer_from(&a).expect("buffer");
            let bb = ctx.buffer_from(&b).expect("buffer");
            let cb = ctx.buffer_from(&vec![0f32; n * n]).expect("buffer");
            kernel.set_arg_buffer(0, &ab).expect("arg 0");
            kernel.set_arg_buffer(1, &bb).expect("arg 1");
            kernel.set_arg_buffer(2, &cb).expect("arg 2");
            kernel.set_arg(3, n as i32).expect("arg 3");
            queue
                .launch(&kernel)
                .global(&[48, 48])
                .local(&[16, 4])
                .run()
                .unwrap_or_else(|e| panic!("width {width:?}, checked {checked}: {e}"));
            let got: Vec<f32> = queue.read_vec(&cb, &[]).expect("read");
            assert_eq!(got, want, "width {width:?}, checked {checked}");
        }
    }
}

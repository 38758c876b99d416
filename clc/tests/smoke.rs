//! The thin path: vadd and saxpy compile, verify and run in the reference interpreter.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn vadd_runs() {
    let src = "__kernel void vadd(__global const float* a, __global const float* b, __global float* c) { int i = get_global_id(0); c[i] = a[i] + b[i]; }";
    let built = vecl_clc::build(src, "").unwrap_or_else(|e| panic!("{e}"));
    if std::env::var("DUMP").is_ok() {
        eprintln!("{}", vecl_ir::text::print_module(&built.module));
    }
    vecl_ir::verify::verify_module(&built.module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    let a: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..16).map(|i| (i * 10) as f32).collect();
    let mut args = [
        KernelArg::Buffer(f32s(&a)),
        KernelArg::Buffer(f32s(&b)),
        KernelArg::Buffer(vec![0; 64]),
    ];
    run_kernel(&built.module, "vadd", &mut args, &NdRange::linear(16, 4)).unwrap();
    let KernelArg::Buffer(c) = &args[2] else {
        unreachable!()
    };
    let expect: Vec<f32> = (0..16).map(|i| (i * 11) as f32).collect();
    assert_eq!(to_f32s(c), expect);
}

#[test]
fn saxpy_with_guard_runs() {
    let src = r#"
        __kernel void saxpy(float alpha, __global const float *x, __global float *y, int n) {
            int i = get_global_id(0);
            if (i < n)
                y[i] = alpha * x[i] + y[i];
        }"#;
    let built = vecl_clc::build(src, "").unwrap_or_else(|e| panic!("{e}"));
    vecl_ir::verify::verify_module(&built.module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    let x: Vec<f32> = (0..10).map(|i| i as f32).collect();
    let y = vec![1.0f32; 10];
    let mut args = [
        KernelArg::Value(2.0f32.to_le_bytes().to_vec()),
        KernelArg::Buffer(f32s(&x)),
        KernelArg::Buffer(f32s(&y)),
        KernelArg::Value(10i32.to_le_bytes().to_vec()),
    ];
    // 12 work-items over 10 elements: the guard must keep the last two out.
    run_kernel(&built.module, "saxpy", &mut args, &NdRange::linear(12, 4)).unwrap();
    let KernelArg::Buffer(out) = &args[2] else {
        unreachable!()
    };
    let expect: Vec<f32> = (0..10).map(|i| 2.0 * i as f32 + 1.0).collect();
    assert_eq!(to_f32s(out), expect);
}

//! `FP_CONTRACT`: `a * b + c` within one expression becomes one fused
//! `contract_fma`; products from other statements, integer arithmetic and
//! programs with `#pragma OPENCL FP_CONTRACT OFF` keep separate operations.
//! The fused result is checked in the interpreter with a product whose
//! rounding the fused form keeps.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};

fn ir(src: &str) -> String {
    let built = vecl_clc::build(src, "").unwrap_or_else(|e| panic!("{e}"));
    vecl_ir::verify::verify_module(&built.module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    vecl_ir::text::print_module(&built.module)
}

fn fused(src: &str) -> usize {
    ir(src).matches("builtin contract_fma").count()
}

#[test]
fn products_in_the_same_expression_are_fused() {
    let k = |body: &str| {
        format!("kernel void k(global float* o, float a, float b, float c, float4 v) {{ {body} }}")
    };
    assert_eq!(fused(&k("o[0] = a * b + c;")), 1);
    assert_eq!(fused(&k("o[0] = c + a * b;")), 1);
    assert_eq!(fused(&k("o[0] = a * b - c;")), 1);
    assert_eq!(fused(&k("o[0] = c - a * b;")), 1);
    assert_eq!(
        fused(&k("float acc = c; acc += a * b; acc -= b * c; o[0] = acc;")),
        2
    );
    assert_eq!(fused(&k("vstore4(v * a + v, 0, o);")), 1);
    // Two products: one fused with the sum, the other its addend.
    assert_eq!(fused(&k("o[0] = a * b + b * c;")), 1);
    // Not in one expression, not a product, or not floating point.
    assert_eq!(fused(&k("float t = a * b; o[0] = t + c;")), 0);
    assert_eq!(fused(&k("o[0] = a / b + c;")), 0);
    assert_eq!(
        fused("kernel void k(global int* o, int a, int b, int c) { o[0] = a * b + c; }"),
        0
    );
    // A product that is also assigned keeps its own rounding.
    assert_eq!(fused(&k("float t; o[1] = (t = a * b) + c; o[0] = t;")), 0);
}

#[test]
fn the_pragma_turns_contraction_off() {
    let src = "#pragma OPENCL FP_CONTRACT OFF
        kernel void k(global float* o, float a, float b, float c) { o[0] = a * b + c; }";
    assert_eq!(fused(src), 0);
    let src = "#pragma OPENCL FP_CONTRACT ON
        kernel void k(global float* o, float a, float b, float c) { o[0] = a * b + c; }";
    assert_eq!(fused(src), 1);
    // In a group the preprocessor skips, the pragma does nothing.
    let src = "#if 0
        #pragma OPENCL FP_CONTRACT OFF
        #endif
        kernel void k(global float* o, float a, float b, float c) { o[0] = a * b + c; }";
    assert_eq!(fused(src), 1);
}

#[test]
fn a_fused_expression_rounds_once() {
    // (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24: lost when the product rounds.
    let src = "kernel void k(global float* o, float a, float c) { o[0] = a * a - c; }";
    let built = vecl_clc::build(src, "").unwrap_or_else(|e| panic!("{e}"));
    let a = 1.0f32 + f32::powi(2.0, -12);
    let c = 1.0f32 + f32::powi(2.0, -11);
    let mut args = [
        KernelArg::Buffer(vec![0; 4]),
        KernelArg::Value(a.to_le_bytes().to_vec()),
        KernelArg::Value(c.to_le_bytes().to_vec()),
    ];
    run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).expect("runs");
    let KernelArg::Buffer(o) = &args[0] else {
        unreachable!()
    };
    let got = f32::from_le_bytes([o[0], o[1], o[2], o[3]]);
    assert_eq!(got, f32::powi(2.0, -24));
    assert_eq!(a * a - c, 0.0, "the unfused expression loses it");
}

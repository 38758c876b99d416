//! Contracted expressions (`contract_fma` from the front end) against the
//! interpreter at every width: with an FMA instruction the JIT rounds once,
//! as the interpreter does, also where the unfused form would round the
//! product away.

use vecl_testkit::*;

#[test]
fn contracted_expressions_match_interpreter() {
    if !std::is_x86_feature_detected!("fma") {
        // Without FMA the JIT multiplies and adds, which contraction
        // allows but the interpreter's fused result does not match.
        return;
    }
    // (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24, which the rounded product loses.
    let a = 1.0f32 + f32::powi(2.0, -12);
    let c = 1.0f32 + f32::powi(2.0, -11);
    let src = "kernel void k(global float* o, global const float* w, float a, float c) {
        size_t i = get_global_id(0);
        float x = a + w[i] * 0.000244140625f;
        float acc = x * x - c;
        acc += x * w[i];
        o[i] = acc;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize + 8;
        vec![
            Spec::Floats(n, 0),
            Spec::Floats(n, 3),
            Spec::Float(a),
            Spec::Float(c),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

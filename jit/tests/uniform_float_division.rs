//! `float` and `double` `/` of varying values by a uniform divisor
//! (`lower/float_div.rs`: a multiply by the reciprocal where the divisor
//! is a power of two whose reciprocal is normal, the division otherwise):
//! every divisor kind — powers of two of either sign, the largest and
//! smallest normal ones, subnormal ones, zeros, infinities, NaN and
//! divisors that are not powers of two — over dividends scaled into
//! subnormal results and overflow, compared with the interpreter byte for
//! byte at every width, barrier widths included.

use vecl_testkit::*;

const FLOAT: &str = "kernel void k(global const float* a, global float* o, float d, float s) {
    size_t g = get_global_id(0);
    float x = a[g] * 0.37f + (float)g;
    float y = x * s;
    o[3 * g] = x / d;
    o[3 * g + 1] = y / d;
    if (g % 3 == 1)
        o[3 * g + 2] = (y - 1.0f) / d;
}";

const DOUBLE: &str = "kernel void k(global const float* a, global double* o, double d, double s) {
    size_t g = get_global_id(0);
    double x = (double)a[g] * 0.37 + (double)g;
    o[2 * g] = x / d;
    o[2 * g + 1] = (x * s) / d;
}";

#[test]
fn float_division_by_a_uniform_divisor_matches_the_interpreter() {
    let divisors = [
        2.0f32,
        0.5,
        -4.0,
        1.0,
        -1.0,
        f32::from_bits(0x7f00_0000), // 2^127: its reciprocal is subnormal
        f32::from_bits(0x7e80_0000), // 2^126
        f32::MIN_POSITIVE,           // 2^-126
        f32::from_bits(0x0000_0400), // subnormal 2^-139
        3.0,
        -0.75,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NAN,
    ];
    for d in divisors {
        for s in [1.0f32, 1e-38, 3e37] {
            let n = differential_at(&BARRIER_WIDTHS, FLOAT, "", "k", &chunk_edges_1d(), |r| {
                let n = (r.global_offset[0] + r.global_size[0]) as usize;
                vec![
                    Spec::Floats(n, 3),
                    Spec::Floats(3 * n, 0),
                    Spec::Float(d),
                    Spec::Float(s),
                ]
            });
            assert_eq!(n, chunk_edges_1d().len() * BARRIER_WIDTHS.len(), "{d} {s}");
        }
    }
}

#[test]
fn double_division_by_a_uniform_divisor_matches_the_interpreter() {
    let divisors = [
        2.0f64,
        -0.25,
        f64::from_bits(0x7fe0_0000_0000_0000), // 2^1023
        f64::MIN_POSITIVE,
        f64::from_bits(1 << 40), // subnormal
        3.0,
        0.0,
        f64::INFINITY,
    ];
    for d in divisors {
        for s in [1.0f64, 1e-307, 1e300] {
            // A `double` argument is its bits (eight bytes, as a `long`'s).
            let n = differential(DOUBLE, "k", &chunk_edges_1d(), |r| {
                let n = (r.global_offset[0] + r.global_size[0]) as usize;
                vec![
                    Spec::Floats(n, 1),
                    Spec::Floats(4 * n, 0),
                    Spec::Long(d.to_bits() as i64),
                    Spec::Long(s.to_bits() as i64),
                ]
            });
            assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len(), "{d} {s}");
        }
    }
}

//! ULP accuracy of the `double` math builtins against 200-bit reference
//! values (`math_data/f64_reference.txt`, written by
//! `math_data/gen_f64_reference.py` with mpmath and stored as
//! double-double), plus their special values. Each function must stay
//! within its OpenCL C full-profile bound; the test prints
//! `ulp NAME double MAX over N inputs`.

mod math_support;

use math_support::*;
use std::collections::BTreeMap;

const REFERENCE: &str = include_str!("math_data/f64_reference.txt");

/// (name, arity, bound in ULPs).
const BOUNDS: &[(&str, usize, f64)] = &[
    ("exp", 1, 3.0),
    ("exp2", 1, 3.0),
    ("exp10", 1, 3.0),
    ("expm1", 1, 3.0),
    ("log", 1, 3.0),
    ("log2", 1, 3.0),
    ("log10", 1, 3.0),
    ("log1p", 1, 2.0),
    ("sin", 1, 4.0),
    ("cos", 1, 4.0),
    ("tan", 1, 5.0),
    ("asin", 1, 4.0),
    ("acos", 1, 4.0),
    ("atan", 1, 5.0),
    ("sinh", 1, 4.0),
    ("cosh", 1, 4.0),
    ("tanh", 1, 5.0),
    ("erf", 1, 16.0),
    ("erfc", 1, 16.0),
    ("cbrt", 1, 2.0),
    ("sinpi", 1, 4.0),
    ("cospi", 1, 4.0),
    ("tgamma", 1, 16.0),
    ("asinh", 1, 4.0),
    ("acosh", 1, 4.0),
    ("atanh", 1, 5.0),
    ("pow", 2, 16.0),
    ("atan2", 2, 6.0),
    ("hypot", 2, 4.0),
    ("tanpi", 1, 6.0),
    ("asinpi", 1, 5.0),
    ("acospi", 1, 5.0),
    ("atanpi", 1, 5.0),
    ("sqrt", 1, 0.5),
    ("rsqrt", 1, 2.0),
    ("atan2pi", 2, 6.0),
    ("powr", 2, 16.0),
    ("pown", 2, 16.0),
    ("rootn", 2, 2.0),
];

fn hex(s: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(s, 16).unwrap_or(0x7ff8_0000_0000_0000))
}

/// Per function: (x, y, hi, lo).
fn reference() -> BTreeMap<String, Vec<(f64, f64, f64, f64)>> {
    let mut m: BTreeMap<String, Vec<(f64, f64, f64, f64)>> = BTreeMap::new();
    for line in REFERENCE.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let row = match w.len() {
            4 => (hex(w[1]), 0.0, hex(w[2]), hex(w[3])),
            5 => (hex(w[1]), hex(w[2]), hex(w[3]), hex(w[4])),
            _ => continue,
        };
        m.entry(w[0].to_string()).or_default().push(row);
    }
    m
}

fn run_f64(expr: &str, xs: &[f64], ys: &[f64]) -> Vec<f64> {
    let src = format!(
        "kernel void k(global const double* x, global const double* y, global double* r) {{ size_t i = get_global_id(0); r[i] = {expr}; }}"
    );
    let k = kernel(&src);
    let n = pad64(xs.len());
    let mut xb = bytes_of(xs, f64::to_le_bytes);
    let mut yb = bytes_of(ys, f64::to_le_bytes);
    let mut rb = vec![0u8; n * 8 + 64];
    run_n(&k, n, &mut [&mut xb, &mut yb, &mut rb]);
    f64_from(&rb[..xs.len() * 8])
}

#[test]
fn double_functions_are_within_their_bounds() {
    let refs = reference();
    for (name, arity, bound) in BOUNDS {
        let rows = refs.get(*name).map(Vec::as_slice).unwrap_or(&[]);
        assert!(
            rows.len() > 100,
            "{name}: only {} reference rows",
            rows.len()
        );
        let xs: Vec<f64> = rows.iter().map(|r| r.0).collect();
        let ys: Vec<f64> = rows.iter().map(|r| r.1).collect();
        let expr = if *arity == 1 {
            format!("{name}(x[i])")
        } else if matches!(*name, "pown" | "rootn") {
            format!("{name}(x[i], (int)y[i])")
        } else {
            format!("{name}(x[i], y[i])")
        };
        let got = run_f64(&expr, &xs, &ys);
        let mut worst = (0.0f64, 0.0f64);
        for (row, r) in rows.iter().zip(&got) {
            match ulp_f64(*r, row.2, row.3) {
                Some(e) if e > worst.0 => {
                    assert!(
                        e.is_finite(),
                        "{name}({:e}) = {r:e}, want {:e}",
                        row.0,
                        row.2
                    );
                    worst = (e, row.0)
                }
                Some(_) => {}
                None => panic!("{name}({:e}, {:e}) = {r:e}, want {:e}", row.0, row.1, row.2),
            }
        }
        println!(
            "ulp {name} double {:.3} over {} inputs (worst at {:e})",
            worst.0,
            rows.len(),
            worst.1
        );
        assert!(worst.0 <= *bound, "{name}: {} ULP (bound {bound})", worst.0);
    }
}

#[test]
fn double_special_values() {
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::from_bits(1),
        f64::MIN_POSITIVE,
        f64::MAX,
        1.0,
        -1.0,
    ];
    let cases: &[(&str, fn(f64) -> f64)] = &[
        ("exp", f64::exp),
        ("log", f64::ln),
        ("log1p", f64::ln_1p),
        ("expm1", f64::exp_m1),
        ("sin", f64::sin),
        ("cos", f64::cos),
        ("tan", f64::tan),
        ("atan", f64::atan),
        ("sinh", f64::sinh),
        ("tanh", f64::tanh),
        ("cbrt", f64::cbrt),
        ("sqrt", f64::sqrt),
    ];
    for (name, f) in cases {
        let got = run_f64(&format!("{name}(x[i])"), &specials, &specials);
        for (x, r) in specials.iter().zip(&got) {
            let want = f(*x);
            let same = (want.is_nan() && r.is_nan()) || want.to_bits() == r.to_bits();
            let close = ulp_f64(*r, want, 0.0).is_some_and(|e| e <= 1.0);
            assert!(same || close, "{name}({x:e}) = {r:e}, want {want:e}");
        }
    }
}

/// What the OpenCL C specification fixes for `sinpi`, `cospi` and `tanpi`
/// at integers and half-integers: `x` is `n` or `n + ½` with `n` even
/// (`Even`) or odd (`Odd`). Every double of magnitude 2^52 or more is an
/// integer, and every one of 2^53 or more an even integer.
fn trigpi_exact(name: &str, x: f64) -> Option<f64> {
    let n = x.abs().trunc();
    let odd = n % 2.0 == 1.0;
    let integer = x.fract() == 0.0;
    let half = (x - x.trunc()).abs() == 0.5;
    // For a half-integer, the integer below it (n + ½ with n = floor(x)).
    let floor_odd = x.floor().rem_euclid(2.0) == 1.0;
    Some(match name {
        "sinpi" if integer => 0f64.copysign(x),
        "sinpi" if half => 1f64.copysign(x) * if odd { -1.0 } else { 1.0 },
        "cospi" if integer => {
            if odd {
                -1.0
            } else {
                1.0
            }
        }
        "cospi" if half => 0.0,
        "tanpi" if integer && odd => 0f64.copysign(-x),
        "tanpi" if integer => 0f64.copysign(x),
        // tanpi(n + ½) is +inf for even n, -inf for odd n.
        "tanpi" if half && floor_odd => f64::NEG_INFINITY,
        "tanpi" if half => f64::INFINITY,
        _ => return None,
    })
}

/// `sinpi`, `cospi` and `tanpi` of huge finite doubles (up to `DBL_MAX`)
/// are exact zeros and ones, never NaN, and `tanpi` of a half-integer is
/// an infinity of the sign the specification gives; the same in `float`
/// on the vector and the uniform paths.
#[test]
fn trigpi_of_huge_arguments_and_half_integers() {
    let p52 = 4_503_599_627_370_496.0;
    let xs: Vec<f64> = vec![
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        3.5,
        -3.5,
        1_000_000.5,
        -1_000_001.5,
        p52 - 0.5,
        -(p52 - 0.5),
        p52,
        -p52,
        p52 + 1.0,
        -(p52 + 1.0),
        p52 + 3.0,
        2.0 * p52,
        -2.0 * p52,
        2.0 * p52 + 2.0,
        1e300,
        -1e300,
        2f64.powi(1023),
        -(2f64.powi(1023)),
        f64::MAX,
        -f64::MAX,
    ];
    for name in ["sinpi", "cospi", "tanpi"] {
        let got = run_f64(&format!("{name}(x[i])"), &xs, &xs);
        for (&x, &r) in xs.iter().zip(&got) {
            let want = trigpi_exact(name, x).expect("an integer or half-integer");
            assert_eq!(
                r.to_bits(),
                want.to_bits(),
                "{name}({x:e}) = {r:e}, want {want:e} (double)"
            );
        }
        let xf: Vec<f32> = xs
            .iter()
            .map(|&x| x as f32)
            .filter(|x| x.is_finite())
            .collect();
        let vector = run_f32(&format!("{name}(x[i])"), &xf, None);
        for (&x, &r) in xf.iter().zip(&vector) {
            let uniform = run_f32_uniform(&format!("{name}(x)"), x);
            let want = trigpi_exact(name, f64::from(x)).expect("an integer or half-integer") as f32;
            for (path, got) in [("vector", r), ("uniform", uniform)] {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{name}({x:e}) = {got:e}, want {want:e} (float, {path} path)"
                );
            }
        }
    }
}

//! ULP accuracy of the `float` math builtins, against `f64` host
//! references: per function, edge values (±0, subnormals, ±inf, NaN,
//! limits, large trig arguments), random bit patterns and random values in
//! the function's interesting range, on the vector path (varying inputs) and
//! on the uniform path. The maximum error must stay within the OpenCL C
//! full-profile bound; each test prints `ulp NAME float MAX over N inputs`.

mod math_support;

use math_support::*;
use std::f64::consts::PI;

// SAFETY: C99 functions of the platform's libm, already linked by std.
unsafe extern "C" {
    fn erf(x: f64) -> f64;
    fn erfc(x: f64) -> f64;
    fn tgamma(x: f64) -> f64;
    fn lgamma(x: f64) -> f64;
}

fn sinpi(x: f64) -> f64 {
    // x - 2·round(x/2) is exact; sin(π·r) then has a tiny relative error.
    if x.is_infinite() {
        return f64::NAN;
    }
    let r = x - 2.0 * (x / 2.0).round();
    if r == 0.0 || r.abs() == 1.0 {
        return 0.0 * x.signum();
    }
    (PI * r).sin()
}

fn cospi(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    let r = (x - 2.0 * (x / 2.0).round()).abs();
    if r == 0.5 {
        return 0.0;
    }
    (PI * r).cos()
}

fn unary_ref(name: &str, x: f64) -> f64 {
    match name {
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "exp10" => 10f64.powf(x),
        "expm1" => x.exp_m1(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "log1p" => x.ln_1p(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "sinpi" => sinpi(x),
        "cospi" => cospi(x),
        "tanpi" => sinpi(x) / cospi(x),
        "atan" => x.atan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atanpi" => x.atan() / PI,
        "asinpi" => x.asin() / PI,
        "acospi" => x.acos() / PI,
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "asinh" => x.asinh(),
        "acosh" => x.acosh(),
        "atanh" => x.atanh(),
        "cbrt" => x.cbrt(),
        // SAFETY: pure libm functions of one double.
        "erf" => unsafe { erf(x) },
        // SAFETY: as above.
        "erfc" => unsafe { erfc(x) },
        // SAFETY: as above.
        "tgamma" => unsafe { tgamma(x) },
        // SAFETY: as above.
        "lgamma" => unsafe { lgamma(x) },
        "sqrt" => x.sqrt(),
        "rsqrt" => 1.0 / x.sqrt(),
        _ => panic!("no reference for {name}"),
    }
}

/// (name, OpenCL full-profile bound in ULPs, random range).
const UNARY: &[(&str, f64, f64, f64)] = &[
    ("exp", 3.0, -110.0, 90.0),
    ("exp2", 3.0, -160.0, 130.0),
    ("exp10", 3.0, -46.0, 39.0),
    ("expm1", 3.0, -20.0, 20.0),
    ("log", 3.0, 0.0, 10.0),
    ("log2", 3.0, 0.0, 10.0),
    ("log10", 3.0, 0.0, 10.0),
    ("log1p", 2.0, -1.0, 10.0),
    ("sin", 4.0, -100.0, 100.0),
    ("cos", 4.0, -100.0, 100.0),
    ("tan", 5.0, -100.0, 100.0),
    ("sinpi", 4.0, -10.0, 10.0),
    ("cospi", 4.0, -10.0, 10.0),
    ("tanpi", 6.0, -10.0, 10.0),
    ("atan", 5.0, -20.0, 20.0),
    ("asin", 4.0, -1.0, 1.0),
    ("acos", 4.0, -1.0, 1.0),
    ("atanpi", 5.0, -20.0, 20.0),
    ("asinpi", 5.0, -1.0, 1.0),
    ("acospi", 5.0, -1.0, 1.0),
    ("sinh", 4.0, -90.0, 90.0),
    ("cosh", 4.0, -90.0, 90.0),
    ("tanh", 5.0, -10.0, 10.0),
    ("asinh", 4.0, -100.0, 100.0),
    ("acosh", 4.0, 1.0, 100.0),
    ("atanh", 5.0, -1.0, 1.0),
    ("cbrt", 2.0, -1000.0, 1000.0),
    ("erf", 16.0, -5.0, 5.0),
    ("erfc", 16.0, -5.0, 11.0),
    ("tgamma", 16.0, -10.0, 35.0),
    ("sqrt", 3.0, 0.0, 100.0),
    ("rsqrt", 2.0, 0.0, 100.0),
];

const RANDOM: usize = 2000;

fn check_unary(name: &str, bound: f64, lo: f64, hi: f64, seed: u64) {
    let mut rng = Rng(seed);
    let xs = f32_inputs(&mut rng, RANDOM, lo, hi);
    let got = run_f32(&format!("{name}(x[i])"), &xs, None);
    let mut worst = (0.0f64, 0.0f32);
    for (x, r) in xs.iter().zip(&got) {
        let want = unary_ref(name, f64::from(*x));
        match ulp_f32(*r, want, *x == 0.0) {
            Some(e) if e > worst.0 => worst = (e, *x),
            Some(_) => {}
            None => panic!("{name}({x:e}) = {r:e}, want {want:e}"),
        }
    }
    // The uniform path on the edge values.
    for x in xs.iter().take(43) {
        let r = run_f32_uniform(&format!("{name}(x)"), *x);
        let want = unary_ref(name, f64::from(*x));
        match ulp_f32(r, want, *x == 0.0) {
            Some(e) if e > worst.0 => worst = (e, *x),
            Some(_) => {}
            None => panic!("uniform {name}({x:e}) = {r:e}, want {want:e}"),
        }
    }
    println!(
        "ulp {name} float {:.3} over {} inputs (worst at {:e})",
        worst.0,
        xs.len() + 43,
        worst.1
    );
    assert!(
        worst.0 <= bound,
        "{name}: {} ULP at {:e} (bound {bound})",
        worst.0,
        worst.1
    );
}

#[test]
fn unary_float_functions_are_within_their_bounds() {
    for (i, (name, bound, lo, hi)) in UNARY.iter().enumerate() {
        check_unary(name, *bound, *lo, *hi, 0x9e37_79b9 + i as u64);
    }
}

#[test]
fn native_and_half_forms_are_within_their_bounds() {
    // Both map to the accurate routines, which are within every looser bound.
    for name in ["exp", "log", "sin", "cos", "tan", "exp2", "log2", "sqrt"] {
        for prefix in ["native_", "half_"] {
            let mut rng = Rng(5);
            let xs = f32_inputs(&mut rng, 200, 0.0, 10.0);
            let got = run_f32(&format!("{prefix}{name}(x[i])"), &xs, None);
            for (x, r) in xs.iter().zip(&got) {
                let want = unary_ref(name, f64::from(*x));
                let e = ulp_f32(*r, want, false).unwrap_or(f64::INFINITY);
                assert!(e <= 8192.0, "{prefix}{name}({x:e}) = {r:e}");
            }
        }
    }
}

fn binary_ref(name: &str, x: f64, y: f64) -> f64 {
    match name {
        "pow" => x.powf(y),
        "powr" => {
            if x < 0.0
                || x.is_nan()
                || y.is_nan()
                || (x == 0.0 && y == 0.0)
                || (x.is_infinite() && y == 0.0)
                || (x == 1.0 && y.is_infinite())
            {
                f64::NAN
            } else {
                x.abs().powf(y)
            }
        }
        "atan2" => x.atan2(y),
        "atan2pi" => x.atan2(y) / PI,
        "hypot" => x.hypot(y),
        "fmod" => x % y,
        "fdim" => {
            if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if x > y {
                x - y
            } else {
                0.0
            }
        }
        _ => panic!("no reference for {name}"),
    }
}

#[test]
fn binary_float_functions_are_within_their_bounds() {
    let cases: &[(&str, f64, f64, f64)] = &[
        ("pow", 16.0, 0.0, 20.0),
        ("powr", 16.0, 0.0, 20.0),
        ("atan2", 6.0, -10.0, 10.0),
        ("atan2pi", 6.0, -10.0, 10.0),
        ("hypot", 4.0, -1e20, 1e20),
        ("fmod", 0.0, -100.0, 100.0),
        ("fdim", 0.0, -100.0, 100.0),
    ];
    for (ci, (name, bound, lo, hi)) in cases.iter().enumerate() {
        let mut rng = Rng(77 + ci as u64);
        let edges = f32_inputs(&mut rng, 0, 0.0, 1.0);
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        // Every pair of edge values, then random pairs.
        for a in &edges {
            for b in &edges {
                xs.push(*a);
                ys.push(*b);
            }
        }
        for _ in 0..4000 {
            xs.push(rng.range(*lo, *hi) as f32);
            ys.push(if *name == "pow" && rng.unit() < 0.3 {
                (rng.range(-30.0, 30.0) as f32).round()
            } else {
                rng.range(if *name == "pow" { -20.0 } else { *lo }, *hi) as f32
            });
        }
        // Negative bases with integer exponents.
        if *name == "pow" {
            for _ in 0..500 {
                xs.push(rng.range(-10.0, 0.0) as f32);
                ys.push((rng.range(-20.0, 20.0) as f32).round());
            }
        }
        let got = run_f32(&format!("{name}(x[i], y[i])"), &xs, Some(&ys));
        let mut worst = 0.0f64;
        for ((x, y), r) in xs.iter().zip(&ys).zip(&got) {
            let want = binary_ref(name, f64::from(*x), f64::from(*y));
            match ulp_f32(*r, want, *x == 0.0 || *y == 0.0) {
                Some(e) => worst = worst.max(e),
                None => panic!("{name}({x:e}, {y:e}) = {r:e}, want {want:e}"),
            }
        }
        println!("ulp {name} float {worst:.3} over {} inputs", xs.len());
        // A bound of 0 means correctly rounded: at most half an ULP.
        assert!(
            worst <= bound.max(0.5),
            "{name}: {worst} ULP (bound {bound})"
        );
    }
}

#[test]
fn pown_and_rootn_are_within_their_bounds() {
    let mut rng = Rng(99);
    let edges = f32_inputs(&mut rng, 0, 0.0, 1.0);
    let ns: Vec<i32> = vec![0, 1, -1, 2, -2, 3, -3, 4, 5, -5, 7, 16, -16, 31];
    let mut xs = Vec::new();
    let mut nv = Vec::new();
    for x in &edges {
        for n in &ns {
            xs.push(*x);
            nv.push(*n);
        }
    }
    for _ in 0..3000 {
        xs.push(rng.range(-10.0, 10.0) as f32);
        nv.push(rng.range(-12.0, 12.0) as i32);
    }
    for name in ["pown", "rootn"] {
        let src = format!(
            "kernel void k(global const float* x, global const int* n, global float* r) {{ size_t i = get_global_id(0); r[i] = {name}(x[i], n[i]); }}"
        );
        let k = kernel(&src);
        let len = pad64(xs.len());
        let mut xb = bytes_of(&xs, f32::to_le_bytes);
        let mut nb = bytes_of(&nv, i32::to_le_bytes);
        let mut rb = vec![0u8; len * 4 + 64];
        run_n(&k, len, &mut [&mut xb, &mut nb, &mut rb]);
        let got = f32_from(&rb[..xs.len() * 4]);
        let mut worst = 0.0f64;
        for ((x, n), r) in xs.iter().zip(&nv).zip(&got) {
            let (x64, n64) = (f64::from(*x), f64::from(*n));
            let want = if name == "pown" {
                x64.powf(n64)
            } else if *n == 0 || (*x < 0.0 && n % 2 == 0) {
                f64::NAN
            } else {
                let m = x64.abs().powf(1.0 / n64);
                if x.is_sign_negative() && n % 2 != 0 {
                    -m
                } else {
                    m
                }
            };
            match ulp_f32(*r, want, *x == 0.0) {
                Some(e) => worst = worst.max(e),
                None => panic!("{name}({x:e}, {n}) = {r:e}, want {want:e}"),
            }
        }
        println!("ulp {name} float {worst:.3} over {} inputs", xs.len());
        assert!(worst <= 16.0, "{name}: {worst} ULP");
    }
}

#[test]
fn sincos_returns_both_and_large_arguments_take_the_exact_path() {
    let mut rng = Rng(3);
    let mut xs = f32_inputs(&mut rng, 500, -1e4, 1e4);
    // Mix one huge argument into otherwise small pieces.
    for i in 0..64 {
        xs.push(if i % 7 == 3 {
            1e25 + i as f32
        } else {
            i as f32 * 0.1
        });
    }
    let src = "kernel void k(global const float* x, global float* s, global float* c) { size_t i = get_global_id(0); float cv; s[i] = sincos(x[i], &cv); c[i] = cv; }";
    let k = kernel(src);
    let n = pad64(xs.len());
    let mut xb = bytes_of(&xs, f32::to_le_bytes);
    let mut sb = vec![0u8; n * 4 + 64];
    let mut cb = vec![0u8; n * 4 + 64];
    run_n(&k, n, &mut [&mut xb, &mut sb, &mut cb]);
    let (s, c) = (f32_from(&sb), f32_from(&cb));
    let mut worst = 0.0f64;
    for (i, x) in xs.iter().enumerate() {
        let x64 = f64::from(*x);
        let es = ulp_f32(s[i], x64.sin(), *x == 0.0).unwrap_or(f64::INFINITY);
        let ec = ulp_f32(c[i], x64.cos(), false).unwrap_or(f64::INFINITY);
        worst = worst.max(es).max(ec);
        assert!(
            es <= 4.0 && ec <= 4.0,
            "sincos({x:e}) = ({}, {})",
            s[i],
            c[i]
        );
    }
    println!("ulp sincos float {worst:.3} over {} inputs", xs.len());
}

/// Exact zeros of `sinpi`, `cospi` and `tanpi` carry C23's signs:
/// sinpi(±n) = ±0, cospi(n + ½) = +0, tanpi(±n) = ±0 for even n and ∓0 for
/// odd n — on the vector path, the uniform path and in double.
#[test]
fn trigpi_zeros_have_their_signs() {
    let xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        3.0,
        -3.0,
        4.0,
        -4.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        16_777_216.0,
        -16_777_216.0,
        8_388_609.0,
        -8_388_609.0,
    ];
    let want = |name: &str, x: f32| -> f32 {
        let n = x.abs().trunc();
        let integer = x.fract() == 0.0;
        match name {
            "sinpi" if integer => 0f32.copysign(x),
            "cospi" if !integer => 0.0,
            "tanpi" if integer && n % 2.0 == 1.0 => 0f32.copysign(-x),
            "tanpi" if integer => 0f32.copysign(x),
            _ => f32::NAN,
        }
    };
    let src_f64 = |name: &str| {
        format!(
            "kernel void k(global const double* x, global double* r) {{ size_t i = get_global_id(0); r[i] = {name}(x[i]); }}"
        )
    };
    for name in ["sinpi", "cospi", "tanpi"] {
        let vector = run_f32(&format!("{name}(x[i])"), &xs, None);
        let k = kernel(&src_f64(name));
        let mut xb = bytes_of(
            &xs.iter().map(|&x| f64::from(x)).collect::<Vec<_>>(),
            f64::to_le_bytes,
        );
        let mut rb = vec![0u8; pad64(xs.len()) * 8 + 64];
        run_n(&k, pad64(xs.len()), &mut [&mut xb, &mut rb]);
        let double = f64_from(&rb[..xs.len() * 8]);
        for (i, &x) in xs.iter().enumerate() {
            let w = want(name, x);
            if w.is_nan() {
                continue;
            }
            let uniform = run_f32_uniform(&format!("{name}(x)"), x);
            for (path, got) in [
                ("vector", vector[i]),
                ("uniform", uniform),
                ("double", double[i] as f32),
            ] {
                assert_eq!(
                    got.to_bits(),
                    w.to_bits(),
                    "{name}({x}) on the {path} path: {got} (want {w})"
                );
            }
        }
    }
}

//! The double `exp exp2 exp10 log log2 log10 sin cos` emitted as CLIF
//! (`lower/builtins/vmath/dmath.rs`) against the platform's libm, on
//! `f64x2` pieces and on uniform values: random inputs over the whole
//! range and over the ranges that matter, the special values, and the
//! edges of overflow and underflow.
//!
//! The host's libm is within 1 ulp of the exact result for these
//! functions, so a result within `bound - 1` ulp of libm's is within the
//! OpenCL bound of the exact one (`math_double.rs` measures against
//! 200-bit references). The long sweep (`--ignored`) runs millions of
//! inputs.

mod math_support;

use math_support::*;

/// (name, libm, OpenCL full-profile bound in ulps).
const CASES: &[(&str, fn(f64) -> f64, f64)] = &[
    ("exp", f64::exp, 3.0),
    ("exp2", f64::exp2, 3.0),
    ("exp10", exp10, 3.0),
    ("log", f64::ln, 3.0),
    ("log2", f64::log2, 3.0),
    ("log10", f64::log10, 3.0),
    ("sin", f64::sin, 4.0),
    ("cos", f64::cos, 4.0),
];

fn exp10(x: f64) -> f64 {
    unsafe extern "C" {
        fn exp10(x: f64) -> f64;
    }
    // SAFETY: a pure libm function of one double.
    unsafe { exp10(x) }
}

/// `r[i] = F(x[i])` (pieces).
fn run_pieces(name: &str, xs: &[f64]) -> Vec<f64> {
    let src = format!(
        "kernel void k(global const double* x, global double* r) {{ size_t i = get_global_id(0); r[i] = {name}(x[i]); }}"
    );
    let k = kernel(&src);
    let n = pad64(xs.len());
    let mut xb = bytes_of(xs, f64::to_le_bytes);
    let mut rb = vec![0u8; n * 8 + 64];
    run_n(&k, n, &mut [&mut xb, &mut rb]);
    f64_from(&rb[..xs.len() * 8])
}

/// `F(x[g])` for group `g`, a value uniform across the group.
fn run_uniform(name: &str, xs: &[f64]) -> Vec<f64> {
    let src = format!(
        "kernel void k(global const double* x, global double* r) {{ size_t g = get_group_id(0); r[get_global_id(0)] = {name}(x[g]); }}"
    );
    let k = kernel(&src);
    let mut xb = bytes_of(xs, f64::to_le_bytes);
    let mut rb = vec![0u8; xs.len() * 64 * 8 + 64];
    run_n(&k, xs.len() * 64, &mut [&mut xb, &mut rb]);
    let all = f64_from(&rb[..xs.len() * 64 * 8]);
    all.chunks(64)
        .map(|c| {
            assert!(
                c.iter().all(|v| v.to_bits() == c[0].to_bits()),
                "{name}: {c:?}"
            );
            c[0]
        })
        .collect()
}

/// Zeros, subnormals, limits, infinities, NaN, and the edges of overflow
/// and underflow of the exponentials.
fn specials() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(1),
        -f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MIN_POSITIVE,
        f64::MAX,
        -f64::MAX,
        1.0,
        -1.0,
        2.0,
        0.5,
        10.0,
        100.0,
        1e-300,
        1e300,
        1_048_576.0,
        -1_048_576.0,
        1_048_577.0,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_4,
        1e22,
        6381956970095103.0 * 2f64.powi(797),
    ];
    for e in [
        709.782712893384,
        709.7827128933841,
        -708.3964185322641,
        -745.1332191019411,
        -745.1332191019412,
        -744.440_071_921_381_3,
        1024.0,
        1023.9999999999999,
        -1022.0,
        -1074.0,
        -1075.0,
        -1074.5,
        308.25471555991675,
        308.2547155599168,
        -307.6526555685888,
        -323.60,
        -324.0,
    ] {
        v.push(e);
        v.push(f64::from_bits(e.to_bits() + 1));
        v.push(f64::from_bits(e.to_bits() - 1));
    }
    for k in 1..64 {
        v.push(k as f64 * std::f64::consts::FRAC_PI_2);
        v.push(-(k as f64) * std::f64::consts::FRAC_PI_4);
        v.push(2f64.powi(k - 32));
        v.push(10f64.powi(k - 32));
    }
    v
}

/// Random doubles: every bit pattern, then each function's working range.
fn inputs(name: &str, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed);
    let mut v = specials();
    for _ in 0..n {
        v.push(f64::from_bits(rng.next()));
    }
    let (lo, hi) = match name {
        "exp" => (-746.0, 710.0),
        "exp2" => (-1076.0, 1025.0),
        "exp10" => (-325.0, 309.0),
        "sin" | "cos" => (-1_100_000.0, 1_100_000.0),
        _ => (0.0, 4.0),
    };
    for _ in 0..n {
        v.push(rng.range(lo, hi));
    }
    if matches!(name, "sin" | "cos") {
        for _ in 0..n {
            v.push(rng.range(-8.0, 8.0));
        }
    }
    if name.starts_with("log") {
        // Near 1, and positive numbers of every exponent.
        for _ in 0..n {
            v.push(1.0 + rng.range(-0.3, 0.3));
            v.push(f64::from_bits(rng.next() >> 1));
        }
    }
    v
}

/// The worst distance to libm in ulps of libm's result; panics on a
/// special value that differs (NaN for non-NaN, an infinity, a zero's sign).
fn check(name: &str, f: fn(f64) -> f64, bound: f64, xs: &[f64], got: &[f64], path: &str) -> f64 {
    let mut worst = (0.0f64, 0.0f64);
    for (&x, &r) in xs.iter().zip(got) {
        let want = f(x);
        if want.is_nan() || r.is_nan() || want.is_infinite() || want == 0.0 {
            let same = (want.is_nan() && r.is_nan()) || want.to_bits() == r.to_bits();
            assert!(same, "{name}({x:e}) = {r:e}, want {want:e} ({path})");
            continue;
        }
        let e = ulp_f64(r, want, 0.0).unwrap_or(f64::INFINITY);
        if e > worst.0 {
            worst = (e, x);
        }
    }
    assert!(
        worst.0 + 1.0 <= bound,
        "{name}: {} ulp from libm at {:e} ({path}; bound {bound})",
        worst.0,
        worst.1
    );
    println!(
        "{name} ({path}): at most {:.3} ulp from libm over {} inputs (at {:e})",
        worst.0,
        xs.len(),
        worst.1
    );
    worst.0
}

fn sweep(n: usize, uniform_n: usize) {
    for (i, (name, f, bound)) in CASES.iter().enumerate() {
        let xs = inputs(name, n, 0x9e37_79b9_7f4a_7c15 ^ i as u64);
        let got = run_pieces(name, &xs);
        check(name, *f, *bound, &xs, &got, "pieces");
        let us: Vec<f64> = xs.iter().copied().take(uniform_n).collect();
        let got = run_uniform(name, &us);
        check(name, *f, *bound, &us, &got, "uniform");
    }
}

#[test]
fn double_math_matches_libm() {
    sweep(20_000, 300);
}

#[test]
#[ignore = "long: millions of inputs per function"]
fn double_math_matches_libm_long() {
    sweep(2_000_000, 4_000);
}

/// Exact results the formulas must keep: powers of two and ten, logs of
/// powers of two, `exp(0)`, `log(1)`, `sin(±0)`, `cos(0)`.
#[test]
fn double_math_exact_cases() {
    let cases: &[(&str, f64, f64)] = &[
        ("exp", 0.0, 1.0),
        ("exp", -0.0, 1.0),
        ("exp2", 10.0, 1024.0),
        ("exp2", -1074.0, f64::from_bits(1)),
        ("exp2", 1023.0, 2f64.powi(1023)),
        ("exp2", 1024.0, f64::INFINITY),
        ("exp2", -1076.0, 0.0),
        ("log", 1.0, 0.0),
        ("log2", 1024.0, 10.0),
        ("log2", f64::from_bits(1), -1074.0),
        ("log2", 0.5, -1.0),
        ("log10", 1.0, 0.0),
        ("log", 0.0, f64::NEG_INFINITY),
        ("log", -0.0, f64::NEG_INFINITY),
        ("log", -1.0, f64::NAN),
        ("sin", -0.0, -0.0),
        ("sin", 0.0, 0.0),
        ("cos", 0.0, 1.0),
        ("cos", -0.0, 1.0),
        ("sin", f64::from_bits(1), f64::from_bits(1)),
        ("sin", -1e-300, -1e-300),
    ];
    for &(name, x, want) in cases {
        for (path, r) in [
            ("pieces", run_pieces(name, &[x])[0]),
            ("uniform", run_uniform(name, &[x])[0]),
        ] {
            let same = (want.is_nan() && r.is_nan()) || want.to_bits() == r.to_bits();
            assert!(same, "{name}({x:e}) = {r:e}, want {want:e} ({path})");
        }
    }
}

/// `sincos` of doubles gives the bits of `sin` and `cos` (the same
/// routines), huge arguments and specials included.
#[test]
fn double_sincos_is_sin_and_cos() {
    let xs = inputs("sin", 2_000, 5);
    let src = "kernel void k(global const double* x, global double* s, global double* c) { size_t i = get_global_id(0); double cv; s[i] = sincos(x[i], &cv); c[i] = cv; }";
    let k = kernel(src);
    let n = pad64(xs.len());
    let mut xb = bytes_of(&xs, f64::to_le_bytes);
    let mut sb = vec![0u8; n * 8 + 64];
    let mut cb = vec![0u8; n * 8 + 64];
    run_n(&k, n, &mut [&mut xb, &mut sb, &mut cb]);
    let s = f64_from(&sb[..xs.len() * 8]);
    let c = f64_from(&cb[..xs.len() * 8]);
    let ws = run_pieces("sin", &xs);
    let wc = run_pieces("cos", &xs);
    for i in 0..xs.len() {
        let x = xs[i];
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        assert!(
            same(s[i], ws[i]),
            "sincos({x:e}): sin {:e}, want {:e}",
            s[i],
            ws[i]
        );
        assert!(
            same(c[i], wc[i]),
            "sincos({x:e}): cos {:e}, want {:e}",
            c[i],
            wc[i]
        );
    }
}

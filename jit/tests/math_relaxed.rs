//! The math build options: results under `-cl-fast-relaxed-math` and
//! `-cl-finite-math-only` stay within the bounds OpenCL C gives for them
//! (the relaxed column of the ULP table: `exp`/`exp2` 3 + ⌊|2x|⌋ ULP,
//! `exp10` and `tan` 8192 ULP, `log`/`log2`/`log10` 2^-21 absolute in
//! [0.5, 2] and 3 ULP elsewhere, `sin`/`cos` 2^-11 absolute in [-π, π];
//! finite arguments only, as those options promise), and the options
//! really change the code: the relaxed routines are emitted and are
//! smaller, and `fmin` sheds its NaN handling.

mod math_support;

use math_support::*;
use vecl_jit::abi::Launch;
use vecl_jit::CompiledKernel;

/// `r[i] = EXPR` over `xs`, built with `options`.
fn build(expr: &str, options: &str) -> CompiledKernel {
    let src = format!(
        "kernel void k(global const float* x, global float* r) {{ size_t i = get_global_id(0); r[i] = {expr}; }}"
    );
    let m = match vecl_clc::build(&src, options) {
        Ok(b) => b.module,
        Err(e) => panic!("{e}\n{src}"),
    };
    compile(&m, "k", 8)
}

fn run_with(expr: &str, options: &str, xs: &[f32]) -> Vec<f32> {
    let k = build(expr, options);
    let n = pad64(xs.len());
    let mut xb = bytes_of(xs, f32::to_le_bytes);
    let mut rb = vec![0u8; n * 4 + 64];
    let mut args = [Arg::Buf(&mut xb), Arg::Buf(&mut rb)];
    let mut launch = Launch::new(1, [0; 3], [n as u64, 1, 1], [64, 1, 1]);
    run(&k, &mut args, &mut launch);
    f32_from(&rb[..xs.len() * 4])
}

/// How a relaxed result is judged.
#[derive(Clone, Copy)]
enum Bound {
    /// ULPs, plus ⌊|2x|⌋ when the flag is set.
    Ulp(f64, bool),
    /// Absolute error inside [lo, hi], ULPs outside.
    AbsIn(f64, f64, f64, f64),
}

/// Finite inputs whose results are finite: edge values and random ones.
fn finite_inputs(seed: u64, lo: f64, hi: f64) -> Vec<f32> {
    let mut rng = Rng(seed);
    // 38.2265625: where `exp10(x)` as `exp2(x·log2 10)` was 72.8 ULP off.
    let mut v: Vec<f32> = vec![
        0.5, 1.0, 2.0, 0.75, 1.5, 3.0, 1e-3, 100.0, -1.0, -0.5, 38.226_562,
    ];
    v.extend((0..3000).map(|_| rng.range(lo, hi) as f32));
    v.extend((0..1000).map(|_| f32::from_bits(rng.next() as u32)));
    v.retain(|x| x.is_finite() && f64::from(*x) >= lo && f64::from(*x) <= hi);
    v
}

/// Checks `r[i] = EXPR` under `options` against `reference`, skipping
/// inputs whose reference is not finite (relaxed and finite-only math
/// promise neither NaN nor infinite results); returns the worst error
/// seen as a fraction of the bound.
fn check(expr: &str, options: &str, bound: Bound, xs: &[f32], reference: fn(f64) -> f64) -> f64 {
    let got = run_with(expr, options, xs);
    let mut worst = 0.0f64;
    for (x, r) in xs.iter().zip(&got) {
        let x64 = f64::from(*x);
        let want = reference(x64);
        if !want.is_finite() || want.abs() > f64::from(f32::MAX) {
            continue;
        }
        let (err, limit) = match bound {
            Bound::Ulp(u, plus_2x) => {
                let e = ulp_f32(*r, want, false).unwrap_or(f64::INFINITY);
                let extra = if plus_2x {
                    (2.0 * x64).abs().floor()
                } else {
                    0.0
                };
                (e, u + extra)
            }
            Bound::AbsIn(abs, lo, hi, u) if x64 >= lo && x64 <= hi => {
                let e = (f64::from(*r) - want).abs();
                (e / abs * u, u)
            }
            Bound::AbsIn(.., u) => (ulp_f32(*r, want, false).unwrap_or(f64::INFINITY), u),
        };
        assert!(
            err <= limit,
            "{expr} at {x:e} with {options:?} = {r:e}, want {want:e} ({err} > {limit})"
        );
        worst = worst.max(err / limit);
    }
    println!("{expr} {options}: worst {worst:.3} of its bound");
    worst
}

const RELAXED: &str = "-cl-fast-relaxed-math";
const FINITE: &str = "-cl-finite-math-only";

#[test]
fn relaxed_results_stay_within_the_relaxed_bounds() {
    let pi = std::f64::consts::PI;
    let cases: [(&str, Bound, f64, f64, fn(f64) -> f64); 9] = [
        ("exp", Bound::Ulp(3.0, true), -100.0, 88.0, f64::exp),
        ("exp2", Bound::Ulp(3.0, true), -149.0, 127.99, f64::exp2),
        // Tighter than the relaxed 8192 ULP: the full profile's 3, which
        // the base-10 reduction meets (exp2(x·log2 10) was 72.8 ULP off).
        ("exp10", Bound::Ulp(3.0, false), -45.0, 38.53, |x| {
            10f64.powf(x)
        }),
        (
            "log",
            Bound::AbsIn(2f64.powi(-21), 0.5, 2.0, 3.0),
            1e-38,
            3e38,
            f64::ln,
        ),
        (
            "log2",
            Bound::AbsIn(2f64.powi(-21), 0.5, 2.0, 3.0),
            1e-38,
            3e38,
            f64::log2,
        ),
        (
            "log10",
            Bound::AbsIn(2f64.powi(-21), 0.5, 2.0, 3.0),
            1e-38,
            3e38,
            f64::log10,
        ),
        (
            "sin",
            Bound::AbsIn(2f64.powi(-11), -pi, pi, 4.0),
            -pi,
            pi,
            f64::sin,
        ),
        (
            "cos",
            Bound::AbsIn(2f64.powi(-11), -pi, pi, 4.0),
            -pi,
            pi,
            f64::cos,
        ),
        ("tan", Bound::Ulp(8192.0, false), -pi, pi, f64::tan),
    ];
    for (i, (name, bound, lo, hi, reference)) in cases.into_iter().enumerate() {
        let xs = finite_inputs(0x5eed + i as u64, lo, hi);
        check(&format!("{name}(x[i])"), RELAXED, bound, &xs, reference);
    }
}

#[test]
fn relaxed_tan_keeps_its_bound_for_huge_arguments() {
    // tan's relaxed bound (8192 ULP) has no range limit, so it keeps the
    // exact path for |x| > 2^20; -0x1.ab88p+127 gave an infinite error
    // without it.
    let xs: Vec<f32> = vec![
        -f32::from_bits(0x7f55_c400),
        1e30,
        12_345_678.0,
        -3.0e7,
        1_048_577.0,
        f32::MAX,
    ];
    check(
        "tan(x[i])",
        RELAXED,
        Bound::Ulp(8192.0, false),
        &xs,
        f64::tan,
    );
}

#[test]
fn finite_only_results_stay_within_the_full_profile_bounds() {
    // -cl-finite-math-only drops only the NaN and infinity selects: the
    // accuracy of finite results is the full profile's.
    let cases: [(&str, f64, f64, f64, fn(f64) -> f64); 4] = [
        ("exp(x[i])", 3.0, -100.0, 88.0, f64::exp),
        ("log(x[i])", 3.0, 1e-45, 3e38, f64::ln),
        ("fmin(x[i], 0.25f)", 0.0, -10.0, 10.0, |x| x.min(0.25)),
        ("fmax(x[i], 0.25f)", 0.0, -10.0, 10.0, |x| x.max(0.25)),
    ];
    for (i, (expr, ulps, lo, hi, reference)) in cases.into_iter().enumerate() {
        let xs = finite_inputs(0xf1 + i as u64, lo, hi);
        check(expr, FINITE, Bound::Ulp(ulps, false), &xs, reference);
    }
}

/// The notes line of the routine `name` on `f32x4` pieces.
fn routine_note(k: &CompiledKernel, name: &str) -> String {
    k.explain()
        .lines()
        .find(|l| l.contains(&format!("math routine {name}(f32x4)")))
        .unwrap_or_else(|| panic!("no {name} routine in\n{}", k.explain()))
        .to_string()
}

/// The CLIF instruction count a routine note states.
fn note_insts(note: &str) -> u32 {
    note.split_whitespace()
        .rev()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {note:?}"))
}

#[test]
fn the_flags_change_the_generated_code() {
    for name in ["exp2", "log10", "sin"] {
        let expr = format!("{name}(x[i])");
        let strict = routine_note(&build(&expr, ""), name);
        let relaxed = routine_note(&build(&expr, RELAXED), name);
        assert!(!strict.contains("relaxed"), "{strict}");
        assert!(relaxed.contains("relaxed form"), "{relaxed}");
        assert!(
            note_insts(&relaxed) < note_insts(&strict),
            "{name}: relaxed {relaxed:?} vs {strict:?}"
        );
    }
    // Finite-only exp and log skip their special-case selects.
    for name in ["exp", "log"] {
        let expr = format!("{name}(x[i])");
        let strict = note_insts(&routine_note(&build(&expr, ""), name));
        let finite = note_insts(&routine_note(&build(&expr, FINITE), name));
        assert!(finite < strict, "{name}: {finite} vs {strict}");
    }
    // fmin without NaN handling is fewer instructions in the kernel.
    let count = |k: &CompiledKernel| {
        k.explain()
            .lines()
            .find_map(|l| {
                // "compiled N CLIF instructions", or "lowered N" when the
                // kernel runs the wide code.
                let rest = l
                    .strip_prefix("compiled ")
                    .or_else(|| l.strip_prefix("lowered "))?;
                rest.split_whitespace().next()?.parse::<u32>().ok()
            })
            .unwrap_or_else(|| panic!("no instruction count in\n{}", k.explain()))
    };
    let strict = count(&build("fmin(x[i], 0.25f)", ""));
    let finite = count(&build("fmin(x[i], 0.25f)", FINITE));
    assert!(finite < strict, "fmin: {finite} vs {strict}");
}

#[test]
fn relaxed_mad_is_fused_when_the_host_has_fma() {
    // mad(a, a, -a·a) is the rounding error of a·a when fused, 0 when not.
    let xs: Vec<f32> = (1..200).map(|i| 1.0 + i as f32 / 3.0).collect();
    let expr = "mad(x[i], x[i], -(x[i] * x[i]))";
    let plain = run_with(expr, "", &xs);
    assert!(plain.iter().all(|r| *r == 0.0), "{plain:?}");
    let fused = run_with(expr, "-cl-mad-enable", &xs);
    let exact: Vec<f32> = xs
        .iter()
        .map(|x| (f64::from(*x) * f64::from(*x) - f64::from(*x * *x)) as f32)
        .collect();
    if std::is_x86_feature_detected!("fma") {
        assert_eq!(fused, exact);
    } else {
        assert_eq!(fused, plain);
    }
}

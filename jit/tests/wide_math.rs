//! The wide AVX-512 code's math (`wide::math`), integer division and
//! work-group queries (`wide::groups`) at W = 16 with the wide code
//! forced: the math routines against a double-precision reference within
//! OpenCL's ULP bounds over special and random inputs (and `exp`, `log`,
//! `rsqrt` bit for bit against the Cranelift code, whose algorithms they
//! share), everything else against the interpreter byte for byte over
//! launches with tail chunks, and `blackscholes` of the bench against both.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Rsqrt, Tiers};
use vecl_testkit::differential::{build, compare_launches, run_jit, Spec, GUARD};
use vecl_testkit::range_1d;
use vecl_testkit::{code_line, cpu_has_wide};

fn options(wide: bool) -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide,
        checked: false,
        local_checks: false,
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        // `rsqrt` as the Cranelift code computes it, whatever the CPU
        // (the Newton form has its own test).
        rsqrt: Rsqrt::Divide,
        ..JitOptions::default()
    }
}

/// `kernel` of `m` on the wide code (checked, on a CPU that has it) and on
/// Cranelift's code at the same width.
fn both(m: &vecl_ir::Module, kernel: &str) -> (CompiledKernel, CompiledKernel) {
    let wide = compile_kernel(m, kernel, &options(true)).expect("compiles");
    let line = code_line(&wide);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{kernel}: {line}");
    } else {
        assert!(line.contains("no AVX-512F"), "{kernel}: {line}");
    }
    let narrow = compile_kernel(m, kernel, &options(false)).expect("compiles");
    (wide, narrow)
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

fn floats_arg(v: &[f32]) -> KernelArg {
    let mut b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    b.extend((0..GUARD).map(|i| 0xA5 ^ i as u8));
    KernelArg::Buffer(b)
}

fn ints_arg(v: &[i32]) -> KernelArg {
    let mut b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    b.extend((0..GUARD).map(|i| 0xA5 ^ i as u8));
    KernelArg::Buffer(b)
}

fn floats_of(b: &[u8], n: usize) -> Vec<f32> {
    b[..4 * n]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Every buffer of `k`'s run equals the interpreter's over `range`.
fn agrees_with_interpreter(
    m: &vecl_ir::Module,
    kernel: &str,
    k: &CompiledKernel,
    args: &[KernelArg],
    range: &NdRange,
) {
    let mut want = args.to_vec();
    run_kernel(m, kernel, &mut want, range).expect("interpreter");
    let (status, got) = run_jit(k, args, range);
    assert_eq!(status, 0, "{kernel} {range:?}");
    for (i, a) in want.iter().enumerate() {
        if let KernelArg::Buffer(w) = a {
            if *w != got[i] {
                let at = w.iter().zip(&got[i]).position(|(a, b)| a != b);
                panic!(
                    "{kernel} {range:?}: buffer {i} differs from the interpreter at byte {at:?}"
                );
            }
        }
    }
}

/// Zeros, subnormals, limits, infinities, NaN, the edges of `exp`'s range,
/// then `n` random bit patterns and `n` values in `[lo, hi]`.
fn inputs(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.0,
        0.5,
        2.0,
        std::f32::consts::SQRT_2,
        std::f32::consts::FRAC_1_SQRT_2,
        1e-20,
        1e20,
        88.72,
        88.73,
        89.0,
        -87.3,
        -103.0,
        -103.9,
        -104.0,
        -150.0,
        127.9,
        128.0,
        -126.0,
        -149.0,
        -149.5,
        38.5,
        -45.0,
        0.999_999_94,
        1.000_000_1,
    ];
    for _ in 0..n {
        v.push(f32::from_bits(rng.next() as u32));
    }
    for _ in 0..n {
        v.push(rng.range(lo, hi) as f32);
    }
    v
}

/// Error of `res` in ULPs of the double `want` (`None`: a special value is
/// wrong).
fn ulps(res: f32, want: f64) -> Option<f64> {
    if want.is_nan() {
        return res.is_nan().then_some(0.0);
    }
    if res.is_nan() {
        return None;
    }
    if want.is_infinite() || res.is_infinite() {
        if f64::from(res) == want || res == want as f32 {
            return Some(0.0);
        }
        if want.is_infinite() {
            return None;
        }
    }
    if want == 0.0 {
        return Some(f64::from(res).abs() / 2f64.powi(-149));
    }
    let a = want.abs().min(f64::from(f32::MAX));
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let ulp = 2f64.powi(e.max(-126) - 23);
    let r = f64::from(res);
    if r.is_infinite() {
        return Some((f64::from(f32::MAX) - want.abs()).abs() / ulp + 1.0);
    }
    Some((r - want).abs() / ulp)
}

/// (OpenCL C expression of `x`, reference, full-profile bound, random
/// range, bit for bit with the Cranelift code).
type Case = (&'static str, fn(f64) -> f64, f64, f64, f64, bool);

const CASES: &[Case] = &[
    ("exp(x)", f64::exp, 3.0, -110.0, 90.0, true),
    ("native_exp(x)", f64::exp, 3.0, -10.0, 10.0, true),
    ("half_exp(x)", f64::exp, 3.0, -10.0, 10.0, true),
    ("exp2(x)", f64::exp2, 3.0, -160.0, 130.0, false),
    ("exp10(x)", |x| 10f64.powf(x), 3.0, -46.0, 39.0, false),
    ("log(x)", f64::ln, 3.0, 0.0, 10.0, true),
    ("native_log(x)", f64::ln, 3.0, 0.0, 1000.0, true),
    ("log2(x)", f64::log2, 3.0, 0.0, 10.0, false),
    ("log10(x)", f64::log10, 3.0, 0.0, 10.0, false),
    ("rsqrt(x)", |x| 1.0 / x.sqrt(), 2.0, 0.0, 100.0, true),
    // `vrsqrt14ps` and a Newton step: not the Cranelift code's `1 / sqrt`.
    (
        "native_rsqrt(x)",
        |x| 1.0 / x.sqrt(),
        2.0,
        1e-30,
        1e30,
        false,
    ),
    ("half_rsqrt(x)", |x| 1.0 / x.sqrt(), 2.0, 0.0, 1.0, false),
    ("sin(x)", f64::sin, 4.0, -10.0, 10.0, true),
    ("cos(x)", f64::cos, 4.0, -2e6, 2e6, true),
    ("tan(x)", f64::tan, 5.0, -100.0, 100.0, false),
    ("native_sin(x)", f64::sin, 4.0, -1e5, 1e5, true),
    ("half_cos(x)", f64::cos, 4.0, -4.0, 4.0, true),
    ("native_tan(x)", f64::tan, 5.0, -2.0, 2.0, false),
    ("sinpi(x)", sinpi, 4.0, -10.0, 10.0, true),
    ("cospi(x)", cospi, 4.0, -10.0, 10.0, true),
    ("tanpi(x)", |x| sinpi(x) / cospi(x), 6.0, -10.0, 10.0, true),
    ("erf(x)", libm::erf, 16.0, -5.0, 5.0, false),
    ("erfc(x)", libm::erfc, 16.0, -3.0, 11.0, true),
    ("atan(x)", f64::atan, 5.0, -3.0, 3.0, false),
    ("asin(x)", f64::asin, 4.0, -1.0, 1.0, false),
    ("acos(x)", f64::acos, 4.0, -1.0, 1.0, false),
    (
        "atanpi(x)",
        |x| x.atan() / std::f64::consts::PI,
        5.0,
        -3.0,
        3.0,
        false,
    ),
    (
        "asinpi(x)",
        |x| x.asin() / std::f64::consts::PI,
        5.0,
        -1.0,
        1.0,
        false,
    ),
    (
        "acospi(x)",
        |x| x.acos() / std::f64::consts::PI,
        5.0,
        -1.0,
        1.0,
        false,
    ),
    ("sinh(x)", f64::sinh, 4.0, -90.0, 90.0, true),
    ("cosh(x)", f64::cosh, 4.0, -90.0, 90.0, true),
    ("tanh(x)", f64::tanh, 5.0, -10.0, 10.0, false),
    ("tanh(x)", f64::tanh, 5.0, -1.0, 1.0, false),
    ("tanh(x)", f64::tanh, 5.0, -1e-3, 1e-3, false),
    ("tanh(x)", f64::tanh, 5.0, -100.0, 100.0, false),
    ("expm1(x)", f64::exp_m1, 3.0, -20.0, 89.0, true),
    ("log1p(x)", f64::ln_1p, 2.0, -1.0, 10.0, true),
    ("cbrt(x)", f64::cbrt, 2.0, -1e3, 1e3, true),
];

/// sin(πx) and cos(πx) with the reduction exact in double (`x` a float).
fn sinpi(x: f64) -> f64 {
    let r = x - 2.0 * (x / 2.0).round();
    if x.is_infinite() {
        return f64::NAN;
    }
    // sin(πr) = sin(π(±1 - r)), exact zeros at the integers.
    let r = if r > 0.5 {
        1.0 - r
    } else if r < -0.5 {
        -1.0 - r
    } else {
        r
    };
    (std::f64::consts::PI * r).sin()
}

fn cospi(x: f64) -> f64 {
    let r = x - 2.0 * (x / 2.0).round();
    if x.is_infinite() {
        return f64::NAN;
    }
    // cos(πr) = sin(π(½ - |r|)), exact at the zeros.
    (std::f64::consts::PI * (0.5 - r.abs())).sin()
}

/// The trigonometric functions past 2^20, where the wide code reduces
/// exactly without a call and the Cranelift code calls the platform's
/// `sin`: both within the bound, not always the same bits.
fn huge_trig(expr: &str, x: f32) -> bool {
    ["sin", "cos", "tan", "native_sin", "native_tan", "half_cos"]
        .iter()
        .any(|f| expr.starts_with(&format!("{f}(")))
        && x.abs() > 1_048_576.0
}

#[test]
fn math_routines_stay_within_the_ulp_bounds_and_exp_log_match_the_cranelift_code() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for &(expr, reference, bound, lo, hi, same_bits) in CASES {
        let src = format!(
            "kernel void k(global const float* in, global float* out) {{ int i = get_global_id(0); float x = in[i]; out[i] = {expr}; }}"
        );
        let m = build(&src, "");
        let (wide, narrow) = both(&m, "k");
        let xs = inputs(&mut rng, 3000, lo, hi);
        let n = xs.len();
        // Not a multiple of 16 (a tail chunk) nor of the group size.
        assert_ne!(n % 16, 0);
        let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; n])];
        let range = range_1d(0, n as u64, 64);
        let (status, got) = run_jit(&wide, &args, &range);
        assert_eq!(status, 0);
        let (status, cl) = run_jit(&narrow, &args, &range);
        assert_eq!(status, 0);
        // The guard bytes after the results are untouched.
        assert_eq!(got[1][4 * n..], cl[1][4 * n..], "{expr}: guard");
        let (r, c) = (floats_of(&got[1], n), floats_of(&cl[1], n));
        let mut worst = 0f64;
        for (i, x) in xs.iter().enumerate() {
            let want = reference(f64::from(*x));
            let e = ulps(r[i], want).unwrap_or_else(|| {
                panic!(
                    "{expr}: x = {x:e} ({:#x}) gives {} for {want:e}",
                    x.to_bits(),
                    r[i]
                )
            });
            assert!(
                e <= bound,
                "{expr}: x = {x:e} ({:#x}): {} is {e} ULP from {want:e}",
                x.to_bits(),
                r[i]
            );
            worst = worst.max(e);
            // NaN payloads are not compared: x86 keeps the first NaN
            // operand's, and the two codes' operand orders differ.
            let both_nan = r[i].is_nan() && c[i].is_nan();
            if same_bits && !huge_trig(expr, *x) && !both_nan {
                assert_eq!(
                    r[i].to_bits(),
                    c[i].to_bits(),
                    "{expr}: x = {x:e} ({:#x}): wide {} Cranelift {}",
                    x.to_bits(),
                    r[i],
                    c[i]
                );
            }
        }
        println!("ulp wide {expr} {worst:.3} over {n} inputs (bound {bound})");
    }
}

/// `rsqrt` with `Rsqrt::Newton` (the default where the CPU's divider is
/// slow): `vrsqrt14ps` and a Newton step, within OpenCL's 2 ULP over
/// random inputs from 1e-30 to 1e30 and the edges (zeros, subnormals,
/// infinities, NaN, negatives), not the square root and division of
/// `Rsqrt::Divide` (some results differ in their last bit).
#[test]
fn rsqrt_by_a_newton_step_stays_within_two_ulp() {
    let src = "kernel void k(global const float* in, global float* out) { int i = get_global_id(0); out[i] = rsqrt(in[i]); }";
    let m = build(src, "");
    let newton = JitOptions {
        rsqrt: Rsqrt::Newton,
        ..options(true)
    };
    let k = compile_kernel(&m, "k", &newton).expect("compiles");
    let line = code_line(&k);
    if !cpu_has_wide() {
        assert!(line.contains("no AVX-512F"), "{line}");
        return;
    }
    assert!(line.starts_with("code: wide AVX-512"), "{line}");
    let divide = compile_kernel(&m, "k", &options(true)).expect("compiles");
    let mut rng = Rng(0x5eed_1234_abcd_0077);
    let xs = inputs(&mut rng, 20_000, 1e-30, 1e30);
    let n = xs.len();
    let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; n])];
    let range = range_1d(0, n as u64, 64);
    let (status, got) = run_jit(&k, &args, &range);
    assert_eq!(status, 0);
    let (status, div) = run_jit(&divide, &args, &range);
    assert_eq!(status, 0);
    let (r, d) = (floats_of(&got[1], n), floats_of(&div[1], n));
    let mut worst = 0f64;
    let mut differ = 0;
    for (i, x) in xs.iter().enumerate() {
        let want = 1.0 / f64::from(*x).sqrt();
        let e = ulps(r[i], want)
            .unwrap_or_else(|| panic!("rsqrt({x:e}) ({:#x}) = {} for {want:e}", x.to_bits(), r[i]));
        assert!(
            e <= 2.0,
            "rsqrt({x:e}) ({:#x}) = {}: {e} ULP",
            x.to_bits(),
            r[i]
        );
        worst = worst.max(e);
        differ +=
            usize::from(r[i].to_bits() != d[i].to_bits() && !(r[i].is_nan() && d[i].is_nan()));
    }
    assert!(
        differ > 0,
        "the Newton form gave the division's results everywhere"
    );
    println!("rsqrt by Newton: {worst:.3} ULP over {n} inputs, {differ} not the division's");
}

const DIVISION: &str = r#"
kernel void k(global const int* a, global const int* b, global int* out, global uint* uout) {
    int i = get_global_id(0);
    int x = a[i];
    int y = b[i];
    uint u = (uint)x;
    uint v = (uint)y;
    out[10 * i + 0] = x / y;
    out[10 * i + 1] = x % y;
    out[10 * i + 2] = x / 8;
    out[10 * i + 3] = x % 16;
    out[10 * i + 4] = x / 7;
    out[10 * i + 5] = x % -4;
    out[10 * i + 6] = x / 1;
    out[10 * i + 7] = x % 1;
    out[10 * i + 8] = x / -1;
    out[10 * i + 9] = (x + 3) / (y | 1) + x % (y & 12);
    uout[6 * i + 0] = u / v;
    uout[6 * i + 1] = u % v;
    uout[6 * i + 2] = u / 8u;
    uout[6 * i + 3] = u % 2147483648u;
    uout[6 * i + 4] = u / 2147483648u;
    uout[6 * i + 5] = u / 10u + u % 3u;
}
"#;

#[test]
fn integer_division_and_remainder_agree_with_the_interpreter() {
    let m = build(DIVISION, "");
    let (wide, _) = both(&m, "k");
    let mut rng = Rng(0x0d10_0000_0000_0377);
    // The edges: zero divisors, INT_MIN / -1, INT_MAX, unsigned values past
    // 2^31, then random pairs of every size.
    let specials = [
        (i32::MIN, -1),
        (i32::MIN, 1),
        (i32::MIN, 0),
        (i32::MAX, -1),
        (i32::MAX, 0),
        (0, 0),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (-1, i32::MIN),
        (i32::MIN, i32::MIN),
        (-1, -1),
        (-2, 3),
        (123_456_789, 10),
        (-123_456_789, 10),
        (i32::MAX, i32::MAX),
        (-16, 8),
        (-17, 16),
    ];
    let mut xs: Vec<i32> = specials.iter().map(|p| p.0).collect();
    let mut ys: Vec<i32> = specials.iter().map(|p| p.1).collect();
    for j in 0..600 {
        let r = rng.next();
        let x = r as i32 >> (r >> 59);
        let y = match j % 4 {
            0 => 0,
            1 => (r >> 32) as i32 >> ((r >> 40) & 31),
            2 => ((r >> 32) % 21) as i32 - 10,
            _ => (r >> 32) as i32,
        };
        xs.push(x);
        ys.push(y);
    }
    let n = xs.len();
    for range in [
        range_1d(0, n as u64, 64),
        range_1d(0, 37, 37),
        range_1d(5, 100, 25),
        range_1d(0, 7, 7),
    ] {
        let args = vec![
            ints_arg(&xs),
            ints_arg(&ys),
            ints_arg(&vec![0; 10 * n]),
            ints_arg(&vec![0; 6 * n]),
        ];
        agrees_with_interpreter(&m, "k", &wide, &args, &range);
    }
}

const GROUP_QUERIES: &str = r#"
kernel void k(global int* out) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    int z = get_global_id(2);
    int at = ((z * (int)get_global_size(1) + y) * (int)get_global_size(0) + x) * 16;
    out[at + 0] = get_local_id(0);
    out[at + 1] = get_local_id(1);
    out[at + 2] = get_local_id(2);
    out[at + 3] = get_group_id(0);
    out[at + 4] = get_group_id(1);
    out[at + 5] = get_group_id(2);
    out[at + 6] = get_local_size(0);
    out[at + 7] = get_local_size(1);
    out[at + 8] = get_local_size(2);
    out[at + 9] = get_num_groups(0);
    out[at + 10] = get_num_groups(1);
    out[at + 11] = get_num_groups(2);
    out[at + 12] = (int)get_enqueued_local_size(0) + 100 * (int)get_enqueued_local_size(1);
    out[at + 13] = (int)get_local_id(3) + (int)get_group_id(3) + 10 * (int)get_local_size(3) + 100 * (int)get_num_groups(3);
    out[at + 14] = (int)get_local_id(0) * 3 + (int)get_group_id(0) * 5 - x;
    out[at + 15] = get_enqueued_local_size(2);
}
"#;

#[test]
fn group_queries_agree_with_the_interpreter() {
    let m = build(GROUP_QUERIES, "-cl-std=CL2.0");
    let (wide, _) = both(&m, "k");
    let ranges = [
        range_1d(0, 64, 16),
        range_1d(0, 100, 25),
        range_1d(3, 333, 64),
        range_1d(0, 37, 37),
        range_1d(0, 20, 1),
        // Partial last groups (OpenCL 2.0's non-uniform groups).
        range_1d(7, 70, 32),
        NdRange {
            work_dim: 2,
            global_offset: [2, 1, 0],
            global_size: [21, 6, 1],
            local_size: [8, 4, 1],
        },
        NdRange {
            work_dim: 3,
            global_offset: [1, 2, 3],
            global_size: [19, 5, 3],
            local_size: [4, 2, 3],
        },
        NdRange {
            work_dim: 3,
            global_offset: [0; 3],
            global_size: [40, 3, 5],
            local_size: [17, 2, 2],
        },
    ];
    let compared = compare_launches(&m, "k", &wide, &ranges, |r| {
        let n: u64 = (0..3)
            .map(|d| r.global_offset[d] + r.global_size[d])
            .product();
        vec![Spec::Ints(16 * n as usize, 0)]
    });
    assert_eq!(compared, ranges.len());
}

const MIN_MAX: &str = r#"
kernel void k(global const float* a, global const float* b, global const int* c, global float* out, global int* iout, global uint* uout) {
    int i = get_global_id(0);
    float x = a[i];
    float y = b[i];
    int p = c[i];
    int q = c[i + 1];
    out[9 * i + 0] = fmin(x, y);
    out[9 * i + 1] = fmax(x, y * 0.5f);
    out[9 * i + 2] = min(x, 1.5f) + max(y, -0.5f);
    out[9 * i + 3] = clamp(x, -2.0f, y);
    out[9 * i + 4] = mad(x, y, 0.25f);
    out[9 * i + 5] = native_recip(y + 0.5f);
    out[9 * i + 6] = native_divide(x, y + 0.25f) + half_divide(y, 3.0f);
    out[9 * i + 7] = fmin(x / y, y) + fmax(y / x, x);
    out[9 * i + 8] = half_recip(x) + native_sqrt(fabs(y)) + floor(x * 0.3f) + ceil(y * 0.7f)
        + trunc(x * -0.45f) + 10.0f * rint(y * 0.25f) + copysign(3.0f, x - y) + copysign(-x, y);
    iout[3 * i + 0] = min(p, q);
    iout[3 * i + 1] = max(p, q * 3);
    iout[3 * i + 2] = clamp(p, -5, q);
    uout[3 * i + 0] = min((uint)p, (uint)q);
    uout[3 * i + 1] = max((uint)p, 7u);
    uout[3 * i + 2] = clamp((uint)p, 2u, 9u);
}
"#;

#[test]
fn min_max_clamp_mad_recip_divide_rounding_and_copysign_agree_with_the_interpreter() {
    let m = build(MIN_MAX, "");
    let (wide, _) = both(&m, "k");
    let ranges = [
        range_1d(0, 64, 16),
        range_1d(0, 37, 37),
        range_1d(3, 100, 25),
        range_1d(5, 333, 64),
        range_1d(0, 7, 7),
    ];
    let compared = compare_launches(&m, "k", &wide, &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(n, 4),
            Spec::Ints(n + 1, 2),
            Spec::Floats(9 * n, 0),
            Spec::Ints(3 * n, 0),
            Spec::Ints(3 * n, 1),
        ]
    });
    assert_eq!(compared, ranges.len());
}

#[test]
fn fmin_and_fmax_order_signed_zeros_and_skip_nans_as_the_cranelift_code() {
    let src = "kernel void k(global const float* a, global const float* b, global float* out) { int i = get_global_id(0); out[2 * i] = fmin(a[i], b[i]); out[2 * i + 1] = fmax(a[i], b[i]); }";
    let m = build(src, "");
    let (wide, narrow) = both(&m, "k");
    let vals = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for x in vals {
        for y in vals {
            xs.push(x);
            ys.push(y);
        }
    }
    let n = xs.len();
    let args = vec![
        floats_arg(&xs),
        floats_arg(&ys),
        floats_arg(&vec![0.0; 2 * n]),
    ];
    let range = range_1d(0, n as u64, 64);
    let (_, got) = run_jit(&wide, &args, &range);
    let (_, want) = run_jit(&narrow, &args, &range);
    assert_eq!(got[2], want[2]);
    let r = floats_of(&got[2], 2 * n);
    for i in 0..n {
        let (x, y) = (xs[i], ys[i]);
        let (lo, hi) = (r[2 * i], r[2 * i + 1]);
        if x.is_nan() && y.is_nan() {
            assert!(lo.is_nan() && hi.is_nan());
        } else if x.is_nan() || y.is_nan() {
            let other = if x.is_nan() { y } else { x };
            assert_eq!(
                (lo.to_bits(), hi.to_bits()),
                (other.to_bits(), other.to_bits())
            );
        } else if x == 0.0 && y == 0.0 {
            let neg = x.is_sign_negative() || y.is_sign_negative();
            let pos = x.is_sign_positive() || y.is_sign_positive();
            assert_eq!(lo.is_sign_negative(), neg, "fmin({x}, {y}) = {lo}");
            assert_eq!(hi.is_sign_positive(), pos, "fmax({x}, {y}) = {hi}");
        } else {
            assert_eq!((lo, hi), (x.min(y), x.max(y)));
        }
    }
}

fn bench_source(name: &str) -> String {
    let path = format!("{}/../benches/{name}.cl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn blackscholes_matches_the_cranelift_code_bit_for_bit_and_the_interpreter_closely() {
    let m = build(&bench_source("blackscholes"), "");
    let (wide, narrow) = both(&m, "blackscholes");
    let mut rng = Rng(0xb1ac_5c01_e500_0001);
    let n = 1000;
    let gen = |rng: &mut Rng, lo: f64, hi: f64| -> Vec<f32> {
        (0..n).map(|_| rng.range(lo, hi) as f32).collect()
    };
    let (spot, strike, years) = (
        gen(&mut rng, 5.0, 30.0),
        gen(&mut rng, 1.0, 100.0),
        gen(&mut rng, 0.25, 10.0),
    );
    for range in [
        range_1d(0, n as u64, 64),
        range_1d(3, 333, 100),
        range_1d(0, 7, 7),
    ] {
        let args = vec![
            floats_arg(&spot),
            floats_arg(&strike),
            floats_arg(&years),
            floats_arg(&vec![0.0; n]),
            floats_arg(&vec![0.0; n]),
            KernelArg::Value(0.02f32.to_le_bytes().to_vec()),
            KernelArg::Value(0.30f32.to_le_bytes().to_vec()),
        ];
        let (status, got) = run_jit(&wide, &args, &range);
        assert_eq!(status, 0);
        let (_, cl) = run_jit(&narrow, &args, &range);
        let mut want = args.clone();
        run_kernel(&m, "blackscholes", &mut want, &range).expect("interpreter");
        for out in [3, 4] {
            assert_eq!(
                got[out], cl[out],
                "{range:?}: output {out} against Cranelift's"
            );
            let KernelArg::Buffer(w) = &want[out] else {
                unreachable!()
            };
            // Untouched elements and guard bytes are equal; the prices
            // differ by the ULPs of `exp` and `log` at most.
            assert_eq!(w[4 * n..], got[out][4 * n..]);
            let (g, w) = (floats_of(&got[out], n), floats_of(w, n));
            for i in 0..n {
                let tol = 1e-5 * w[i].abs().max(1.0);
                assert!(
                    (g[i] - w[i]).abs() <= tol,
                    "{range:?}: output {out}[{i}]: wide {} interpreter {}",
                    g[i],
                    w[i]
                );
            }
        }
    }
}

/// Every float in [0.5, 2) (where the logarithms' errors peak) and every
/// 509th bit pattern of the rest, through each routine: the largest error
/// must stay within the bound. Slow (tens of millions of evaluations and
/// their references): `cargo test --release --test wide_math -- --ignored`.
#[test]
#[ignore]
fn math_routines_stay_within_the_ulp_bounds_over_a_sweep() {
    let mut xs: Vec<f32> = (0.5f32.to_bits()..2f32.to_bits())
        .map(f32::from_bits)
        .collect();
    xs.extend((0..u32::MAX / 509).map(|i| f32::from_bits(i * 509)));
    let n = xs.len();
    let input = floats_arg(&xs);
    for &(expr, reference, bound, ..) in CASES {
        let src = format!(
            "kernel void k(global const float* in, global float* out) {{ int i = get_global_id(0); float x = in[i]; out[i] = {expr}; }}"
        );
        let m = build(&src, "");
        let (wide, _) = both(&m, "k");
        let args = vec![input.clone(), floats_arg(&vec![0.0; n])];
        let (status, got) = run_jit(&wide, &args, &range_1d(0, n as u64, 1024));
        assert_eq!(status, 0);
        let r = floats_of(&got[1], n);
        let mut worst = (0f64, 0f32);
        for (x, y) in xs.iter().zip(&r) {
            let want = reference(f64::from(*x));
            let e = ulps(*y, want)
                .unwrap_or_else(|| panic!("{expr}: x = {x:e} gives {y} for {want:e}"));
            if e > worst.0 {
                worst = (e, *x);
            }
        }
        println!(
            "sweep wide {expr}: {:.3} ULP at {:e} over {n} inputs (bound {bound})",
            worst.0, worst.1
        );
        assert!(worst.0 <= bound, "{expr}: {worst:?}");
    }
}

/// `native_rsqrt` (`vrsqrt14ps` and a Newton step) of every one of the
/// 2^32 float inputs on the wide code, in
/// launches of 2^24, against `1/√x` in double: within 2 ULP of it (the
/// largest error printed) for every positive finite input, subnormals and
/// the largest floats included, and the exact special results: ±0 →
/// ±inf, +inf → +0, +1 → +1, negative inputs and -inf → NaN, a NaN →
/// a NaN. `cargo test --release -p vecl-jit --test wide_math -- --ignored
/// native_rsqrt_of_every_float` (about a minute on two cores).
#[test]
#[ignore = "2^32 inputs; run with --ignored"]
fn native_rsqrt_of_every_float_stays_within_two_ulp() {
    if !cpu_has_wide() {
        return;
    }
    let m = build(
        "kernel void k(global const float* in, global float* out) { int i = get_global_id(0); out[i] = native_rsqrt(in[i]); }",
        "",
    );
    let wide = compile_kernel(&m, "k", &options(true)).expect("compiles");
    const BLOCK: u64 = 1 << 24;
    let (mut worst, mut at, mut not_nearest) = (0f64, 0u32, 0u64);
    for block in 0..(1u64 << 32) / BLOCK {
        let first = (block * BLOCK) as u32;
        let xs: Vec<f32> = (0..BLOCK as u32)
            .map(|i| f32::from_bits(first + i))
            .collect();
        let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; BLOCK as usize])];
        let (status, got) = run_jit(&wide, &args, &range_1d(0, BLOCK, 1024));
        assert_eq!(status, 0);
        let r = floats_of(&got[1], BLOCK as usize);
        // Two halves checked side by side.
        let half = BLOCK as usize / 2;
        let results: Vec<(f64, u32, u64)> = std::thread::scope(|s| {
            let parts: Vec<_> = [0, half]
                .into_iter()
                .map(|lo| {
                    let (xs, r) = (&xs[lo..lo + half], &r[lo..lo + half]);
                    s.spawn(move || rsqrt_errors(xs, r))
                })
                .collect();
            parts
                .into_iter()
                .map(|h| h.join().expect("checks"))
                .collect()
        });
        for (e, x, n) in results {
            if e > worst {
                (worst, at) = (e, x);
            }
            not_nearest += n;
        }
    }
    println!(
        "native_rsqrt over every float: {worst:.4} ULP at {:e} ({at:#x}); {not_nearest} results not 1/√x in double rounded to float",
        f32::from_bits(at)
    );
    assert!(worst <= 2.0, "{worst} ULP at {at:#x}");
}

/// The largest error in ULPs of `r[i]` against `1/√xs[i]` with its input's
/// bits, and how many results are not the nearest float; panics at a wrong
/// special result.
fn rsqrt_errors(xs: &[f32], r: &[f32]) -> (f64, u32, u64) {
    let (mut worst, mut at, mut not_nearest) = (0f64, 0u32, 0u64);
    for (&x, &y) in xs.iter().zip(r) {
        let bad = || {
            panic!(
                "native_rsqrt({x:e}) ({:#x}) = {y:e} ({:#x})",
                x.to_bits(),
                y.to_bits()
            )
        };
        if x.is_nan() || x < 0.0 || x == f32::NEG_INFINITY {
            if !y.is_nan() {
                bad();
            }
            continue;
        }
        if x == 0.0 {
            if y.is_infinite() && y.is_sign_negative() == x.is_sign_negative() {
                continue;
            }
            bad();
        }
        if x == f32::INFINITY {
            if y.to_bits() != 0 {
                bad();
            }
            continue;
        }
        if x == 1.0 && y != 1.0 {
            bad();
        }
        if !y.is_finite() || y <= 0.0 {
            bad();
        }
        // Positive finite x: 1/√x lies in [2^-64, 2^75), a normal float.
        let want = 1.0 / f64::from(x).sqrt();
        let e = ((want.to_bits() >> 52) & 0x7ff) as i64 - 1023;
        let ulp = f64::from_bits(((e - 23 + 1023) as u64) << 52);
        let err = (f64::from(y) - want).abs() / ulp;
        if err > worst {
            (worst, at) = (err, x.to_bits());
        }
        if y != want as f32 {
            not_nearest += 1;
        }
    }
    (worst, at, not_nearest)
}

#[test]
fn int_to_size_t_conversions_agree_with_the_interpreter() {
    // An `int` (negative ones included) as a `size_t`: compared unsigned,
    // used as an index, truncated back.
    let src = r#"
kernel void k(global const int* a, global int* out) {
    int i = get_global_id(0);
    size_t j = (size_t)a[i];
    ulong u = (ulong)(a[i] * 3);
    out[4 * i + 0] = j < (size_t)5;
    out[4 * i + 1] = (int)j + (int)(u == j);
    out[4 * i + 2] = a[(size_t)(i / 2)];
    out[4 * i + 3] = u > j;
}
"#;
    let m = build(src, "");
    let (wide, _) = both(&m, "k");
    let ranges = [range_1d(0, 64, 16), range_1d(3, 100, 25), range_1d(0, 7, 7)];
    let compared = compare_launches(&m, "k", &wide, &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Ints(n, 3), Spec::Ints(4 * n, 0)]
    });
    assert_eq!(compared, ranges.len());
}

/// (OpenCL C expression of `x` and `y`, reference, full-profile bound,
/// random ranges of `x` and `y`, `y` an `int`, bit for bit with the
/// Cranelift code).
type Case2 = (
    &'static str,
    fn(f64, f64) -> f64,
    f64,
    (f64, f64),
    (f64, f64),
    bool,
    bool,
);

fn rootn_ref(x: f64, n: f64) -> f64 {
    if n == 0.0 || (x < 0.0 && n % 2.0 == 0.0) {
        return f64::NAN;
    }
    let r = x.abs().powf(1.0 / n);
    if x.is_sign_negative() && n % 2.0 != 0.0 {
        -r
    } else {
        r
    }
}

/// OpenCL's `powr`: `x^y` for `x ≥ 0` only, NaN at `0^0`, `inf^0`, `1^inf`
/// and for a NaN operand.
fn powr_ref(x: f64, y: f64) -> f64 {
    let bad = x < 0.0
        || x.is_nan()
        || y.is_nan()
        || (y == 0.0 && (x == 0.0 || x.is_infinite()))
        || (x == 1.0 && y.is_infinite());
    if bad {
        f64::NAN
    } else {
        x.abs().powf(y)
    }
}

const CASES2: &[Case2] = &[
    (
        "atan2(x, y)",
        f64::atan2,
        6.0,
        (-5.0, 5.0),
        (-5.0, 5.0),
        false,
        false,
    ),
    (
        "atan2pi(x, y)",
        |y, x| y.atan2(x) / std::f64::consts::PI,
        6.0,
        (-5.0, 5.0),
        (-5.0, 5.0),
        false,
        false,
    ),
    (
        "hypot(x, y)",
        f64::hypot,
        4.0,
        (-1e3, 1e3),
        (-1e3, 1e3),
        false,
        true,
    ),
    (
        "pow(x, y)",
        f64::powf,
        16.0,
        (0.0, 10.0),
        (-30.0, 30.0),
        false,
        false,
    ),
    (
        "powr(x, y)",
        powr_ref,
        16.0,
        (0.0, 10.0),
        (-30.0, 30.0),
        false,
        false,
    ),
    (
        "half_powr(x, y)",
        powr_ref,
        16.0,
        (0.0, 4.0),
        (-3.0, 3.0),
        false,
        false,
    ),
    (
        "pown(x, y)",
        |x, n| x.powi(n as i32),
        16.0,
        (-4.0, 4.0),
        (-40.0, 40.0),
        true,
        true,
    ),
    (
        "rootn(x, y)",
        rootn_ref,
        16.0,
        (-100.0, 100.0),
        (-9.0, 9.0),
        true,
        true,
    ),
];

#[test]
fn two_argument_math_stays_within_the_ulp_bounds_and_matches_the_cranelift_code() {
    two_argument_math(0x5eed_1234_abcd_0002, 6000);
}

#[test]
#[ignore = "a sweep of minutes; run with --ignored"]
fn two_argument_math_over_a_sweep() {
    two_argument_math(0x5eed_1234_abcd_0003, 3_000_000);
}

/// Every pair of the special inputs and `count` random pairs (a third of
/// them random bit patterns) through each of [`CASES2`].
fn two_argument_math(seed: u64, count: usize) {
    let mut rng = Rng(seed);
    for &(expr, reference, bound, (xlo, xhi), (ylo, yhi), int_y, same_bits) in CASES2 {
        let ty = if int_y { "int" } else { "float" };
        let src = format!(
            "kernel void k(global const float* a, global const {ty}* b, global float* out) {{ int i = get_global_id(0); float x = a[i]; {ty} y = b[i]; out[i] = {expr}; }}"
        );
        let m = build(&src, "");
        let (wide, narrow) = both(&m, "k");
        // Every pair of the special inputs, then random pairs.
        let sp = inputs(&mut rng, 0, 0.0, 0.0);
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for a in &sp {
            for b in &sp {
                xs.push(*a);
                ys.push(*b);
            }
        }
        for j in 0..count {
            if j % 3 == 0 {
                xs.push(f32::from_bits(rng.next() as u32));
                ys.push(f32::from_bits(rng.next() as u32));
            } else {
                xs.push(rng.range(xlo, xhi) as f32);
                ys.push(rng.range(ylo, yhi) as f32);
            }
        }
        xs.push(0.5);
        ys.push(0.5);
        let n = xs.len();
        assert_ne!(n % 16, 0);
        let yargs = if int_y {
            // The ints: the float inputs truncated (saturating), and small ones.
            let v: Vec<i32> = ys
                .iter()
                .enumerate()
                .map(|(i, y)| {
                    if i % 2 == 0 {
                        *y as i32
                    } else {
                        (*y as i32) % 50
                    }
                })
                .collect();
            ys = v.iter().map(|i| *i as f32).collect();
            ints_arg(&v)
        } else {
            floats_arg(&ys)
        };
        let yref: Vec<f64> = match &yargs {
            KernelArg::Buffer(b) if int_y => (0..n)
                .map(|i| f64::from(i32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())))
                .collect(),
            _ => ys.iter().map(|y| f64::from(*y)).collect(),
        };
        let args = vec![floats_arg(&xs), yargs, floats_arg(&vec![0.0; n])];
        let range = range_1d(0, n as u64, 64);
        let (status, got) = run_jit(&wide, &args, &range);
        assert_eq!(status, 0);
        let (status, cl) = run_jit(&narrow, &args, &range);
        assert_eq!(status, 0);
        assert_eq!(got[2][4 * n..], cl[2][4 * n..], "{expr}: guard");
        let (r, c) = (floats_of(&got[2], n), floats_of(&cl[2], n));
        let mut worst = 0f64;
        let mut differ = 0;
        for i in 0..n {
            let (x, y) = (f64::from(xs[i]), yref[i]);
            let want = reference(x, y);
            let e = ulps(r[i], want).unwrap_or_else(|| {
                panic!("{expr}: x = {x:e}, y = {y:e} gives {} for {want:e}", r[i])
            });
            assert!(
                e <= bound,
                "{expr}: x = {x:e}, y = {y:e}: {} is {e} ULP from {want:e}",
                r[i]
            );
            worst = worst.max(e);
            if r[i].to_bits() != c[i].to_bits() && !(r[i].is_nan() && c[i].is_nan()) {
                assert!(
                    !same_bits,
                    "{expr}: x = {x:e}, y = {y:e}: wide {} Cranelift {}",
                    r[i], c[i]
                );
                differ += 1;
            }
        }
        println!("ulp wide {expr} {worst:.3} over {n} inputs (bound {bound}), {differ} differ from the Cranelift code");
    }
}

/// The hard points of the double-precision routines: the floats nearest
/// the multiples of π/2 up to 2^17·π/2 and at every exponent past it
/// (with their neighbours), the closest float to one (16367173·2^72), the
/// subnormals' edges, the neighbourhoods of 0, ±0.5, ±1, ±2, ±4 (where
/// `erf` and `erfc` change method), and the values past 2^20 of every 3rd exponent
/// pattern.
fn hard_points() -> Vec<f32> {
    let mut v = Vec::new();
    let near = |v: &mut Vec<f32>, x: f32, w: i32| {
        for d in -w..=w {
            let b = x.to_bits() as i64 + i64::from(d);
            if (0..=0xffff_ffff).contains(&b) {
                v.push(f32::from_bits(b as u32));
                v.push(-f32::from_bits(b as u32));
            }
        }
    };
    for k in 1..(1u32 << 17) {
        near(
            &mut v,
            (f64::from(k) * std::f64::consts::FRAC_PI_2) as f32,
            2,
        );
    }
    for e in 17..127 {
        for m in [1.0f64, 1.25, 1.5, 1.75, 1.999] {
            near(
                &mut v,
                (m * 2f64.powi(e) * std::f64::consts::FRAC_PI_2) as f32,
                2,
            );
        }
    }
    near(&mut v, 16_367_173.0 * 2f32.powi(72), 64);
    for i in 0..(1u32 << 16) {
        v.push(f32::from_bits(i));
        v.push(f32::from_bits(0x007f_ffff - i));
        v.push(-f32::from_bits(i));
    }
    for x in [1.0f32, 2.0, 0.5, 4.0] {
        near(&mut v, x, 1 << 14);
    }
    v.extend([
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MAX,
        f32::MIN,
    ]);
    // Past 2^20: every 7th float of the first octaves, then every 1021st.
    v.extend((0x4980_0000u32..0x4b80_0000).step_by(7).map(f32::from_bits));
    v.extend(
        (0x4b80_0000u32..0x7f80_0000)
            .step_by(1021)
            .map(f32::from_bits),
    );
    v
}

#[test]
#[ignore = "a sweep of minutes; run with --ignored"]
fn double_precision_routines_stay_within_the_ulp_bounds_over_a_sweep_and_the_hard_points() {
    let mut xs: Vec<f32> = (0.5f32.to_bits()..2f32.to_bits())
        .map(f32::from_bits)
        .collect();
    xs.extend((0..u32::MAX / 509).map(|i| f32::from_bits(i * 509)));
    xs.extend(hard_points());
    let n = xs.len();
    let input = floats_arg(&xs);
    let from = CASES.iter().position(|c| c.0 == "sin(x)").expect("sin");
    for &(expr, reference, bound, _, _, same_bits) in &CASES[from..] {
        let src = format!(
            "kernel void k(global const float* in, global float* out) {{ int i = get_global_id(0); float x = in[i]; out[i] = {expr}; }}"
        );
        let m = build(&src, "");
        let (wide, narrow) = both(&m, "k");
        let args = vec![input.clone(), floats_arg(&vec![0.0; n])];
        let range = range_1d(0, n as u64, 1024);
        let (status, got) = run_jit(&wide, &args, &range);
        assert_eq!(status, 0);
        let (status, cl) = run_jit(&narrow, &args, &range);
        assert_eq!(status, 0);
        let (r, c) = (floats_of(&got[1], n), floats_of(&cl[1], n));
        let mut worst = (0f64, 0f32);
        let (mut differ, mut differ_huge, mut huge) = (0, 0, 0);
        for i in 0..n {
            let (x, y) = (xs[i], r[i]);
            let want = reference(f64::from(x));
            let e = ulps(y, want).unwrap_or_else(|| {
                panic!(
                    "{expr}: x = {x:e} ({:#x}) gives {y} for {want:e}",
                    x.to_bits()
                )
            });
            if e > worst.0 {
                worst = (e, x);
            }
            let h = huge_trig(expr, x);
            huge += usize::from(h);
            if y.to_bits() != c[i].to_bits() && !(y.is_nan() && c[i].is_nan()) {
                if h {
                    differ_huge += 1;
                } else {
                    differ += 1;
                }
            }
        }
        println!(
            "sweep wide {expr}: {:.3} ULP at {:e} over {n} inputs (bound {bound}); differ from the Cranelift code: {differ}, and {differ_huge} of {huge} past 2^20",
            worst.0, worst.1
        );
        assert!(worst.0 <= bound, "{expr}: {worst:?}");
        if same_bits {
            assert_eq!(differ, 0, "{expr}");
        }
    }
}

/// `sin` inside a loop (the body a chunk loop may run two chunks of at
/// once), its argument crossing 2^20 after the first trips so that the
/// skipped region runs for some chunks and trips and not others: the same
/// bits as the Cranelift code, with tails.
#[test]
fn trig_in_a_loop_with_arguments_past_2_20_matches_the_cranelift_code() {
    let src = "kernel void k(global const float* in, global float* out, int n) { int i = get_global_id(0); float x = in[i]; float acc = 0.0f; for (int j = 0; j < n; j++) { acc += sin(x + (float)j * 400000.0f) * cos(x * (float)j); } out[i] = acc; }";
    let m = build(src, "");
    let (wide, narrow) = both(&m, "k");
    println!("{}", code_line(&wide));
    let mut rng = Rng(0x7419_0000_0000_0001);
    let xs: Vec<f32> = (0..333)
        .map(|i| match i % 5 {
            0 => rng.range(-1e7, 1e7) as f32,
            1 => f32::from_bits(rng.next() as u32 & 0x7fff_ffff),
            _ => rng.range(-10.0, 10.0) as f32,
        })
        .collect();
    let n = xs.len();
    for range in [range_1d(0, n as u64, 64), range_1d(3, 100, 25)] {
        let args = vec![
            floats_arg(&xs),
            floats_arg(&vec![0.0; n]),
            KernelArg::Value(6i32.to_le_bytes().to_vec()),
        ];
        let (status, got) = run_jit(&wide, &args, &range);
        assert_eq!(status, 0);
        let (status, cl) = run_jit(&narrow, &args, &range);
        assert_eq!(status, 0);
        let (r, c) = (floats_of(&got[1], n), floats_of(&cl[1], n));
        for i in 0..n {
            assert!(
                r[i].to_bits() == c[i].to_bits() || (r[i].is_nan() && c[i].is_nan()),
                "{range:?} x = {:e}: wide {} Cranelift {}",
                xs[i],
                r[i],
                c[i]
            );
        }
        assert_eq!(got[1][4 * n..], cl[1][4 * n..], "guard");
    }
}

/// `sin` and `cos` in single precision: the wide code's sequence gives
/// the Cranelift code's bits for every float in [2^-3, 16) and its
/// negation (the accuracy over the same floats is
/// `jit/tests/trig_single.rs`'s).
#[test]
fn sin_and_cos_give_the_cranelift_codes_bits_for_every_float_from_an_eighth_to_16() {
    let src = "kernel void k(global const float* in, global float* out) { int i = get_global_id(0); float x = in[i]; out[2 * i] = sin(x); out[2 * i + 1] = cos(-x); }";
    let m = build(src, "");
    let (wide, narrow) = both(&m, "k");
    let (lo, hi) = (0.125f32.to_bits(), 16f32.to_bits());
    let batch = 1u32 << 21;
    let mut b = lo;
    while b < hi {
        let end = (b + batch).min(hi);
        let xs: Vec<f32> = (b..end)
            .map(|b| {
                let x = f32::from_bits(b);
                if b % 2 == 0 {
                    x
                } else {
                    -x
                }
            })
            .collect();
        let n = xs.len();
        let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; 2 * n])];
        let range = range_1d(0, n as u64, 64);
        let (status, got) = run_jit(&wide, &args, &range);
        assert_eq!(status, 0);
        let (status, cl) = run_jit(&narrow, &args, &range);
        assert_eq!(status, 0);
        if got[1] != cl[1] {
            let (r, c) = (floats_of(&got[1], 2 * n), floats_of(&cl[1], 2 * n));
            let i = (0..2 * n)
                .find(|&i| r[i].to_bits() != c[i].to_bits())
                .unwrap_or(0);
            panic!("x = {:e}: wide {:e}, Cranelift {:e}", xs[i / 2], r[i], c[i]);
        }
        b = end;
    }
}

/// The operation count of a wide kernel (`code_line`'s "N operations").
fn operations(k: &CompiledKernel) -> usize {
    let line = code_line(k);
    let at = line.find(" operations").expect("an operation count");
    let digits = line[..at]
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .expect("digits");
    digits.parse().expect("a number")
}

/// Inputs for the trigonometric pairs: the specials, random bit patterns
/// (most past 2^20) and values up to 10^7 (both sides of 2^20).
fn trig_inputs(seed: u64, n: usize) -> Vec<f32> {
    let mut rng = Rng(seed);
    let mut xs = inputs(&mut rng, n, -1e7, 1e7);
    xs.extend((0..n).map(|_| rng.range(-20.0, 20.0) as f32));
    xs.push(0.5);
    xs
}

/// `sin` and `cos` of one argument in one block are computed together
/// (one reduction, one region past 2^20): each result keeps the bits of
/// the Cranelift code's `sin` and `cos`, a variable written between the
/// two calls gives the second its new value, a pair inside a loop whose
/// argument changes every trip is recomputed each trip, and calls in
/// different blocks or of different arguments are not paired.
#[test]
fn sin_and_cos_of_one_argument_share_the_reduction_and_keep_their_bits() {
    let kernels = [
        // The plain pair, `native_` forms included.
        "float x = in[i]; out[4 * i] = sin(x); out[4 * i + 1] = cos(x); out[4 * i + 2] = native_cos(x) * half_sin(x); out[4 * i + 3] = cos(x);",
        // The variable written between the calls.
        "float e = in[i]; float s = sin(e); e = e * 3.0f + 1.0f; float c = cos(e); out[4 * i] = s; out[4 * i + 1] = c; out[4 * i + 2] = sin(e); out[4 * i + 3] = cos(e - 1.0f);",
        // MRI-Q's shape: a variable read twice in a loop, rewritten after.
        "float e = in[i]; float qr = 0.0f, qi = 0.0f; for (int j = 0; j < 5; j++) { qr += 0.5f * cos(e); qi += 0.25f * sin(e); e = e * 0.5f + (float)j; } out[4 * i] = qr; out[4 * i + 1] = qi; out[4 * i + 2] = e; out[4 * i + 3] = 0.0f;",
        // In different blocks: the `if`'s sine is not the cosine's.
        "float x = in[i]; float s = 0.0f; if (x > 1.0f) { s = sin(x); } float c = cos(x); if (x < 100.0f) { c += sin(x) * cos(x); } out[4 * i] = s; out[4 * i + 1] = c; out[4 * i + 2] = sin(x); out[4 * i + 3] = x;",
    ];
    let xs = trig_inputs(0x5eed_7419_0000_0001, 400);
    let n = xs.len();
    assert_ne!(n % 16, 0);
    for body in kernels {
        let src = format!(
            "kernel void k(global const float* in, global float* out) {{ int i = get_global_id(0); {body} }}"
        );
        let m = build(&src, "");
        let (wide, narrow) = both(&m, "k");
        for range in [range_1d(0, n as u64, 64), range_1d(5, 200, 25)] {
            let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; 4 * n])];
            let (status, got) = run_jit(&wide, &args, &range);
            assert_eq!(status, 0);
            let (status, cl) = run_jit(&narrow, &args, &range);
            assert_eq!(status, 0);
            let (r, c) = (floats_of(&got[1], 4 * n), floats_of(&cl[1], 4 * n));
            for j in 0..4 * n {
                let x = xs[j / 4];
                // Past 2^20 the Cranelift code calls the platform's `sin`:
                // within the bound, not always the same bits (`huge_trig`).
                let huge = x.abs() > 1_048_576.0;
                let same = r[j].to_bits() == c[j].to_bits() || r[j].is_nan() && c[j].is_nan();
                assert!(
                    same || huge,
                    "{body}\nx = {x:e} ({:#x}), result {}: wide {:e} Cranelift {:e}",
                    x.to_bits(),
                    j % 4,
                    r[j],
                    c[j]
                );
            }
            assert_eq!(got[1][16 * n..], cl[1][16 * n..], "guard");
        }
    }
    // The pair costs one region and one reduction: fewer operations than
    // the sine and cosine of two arguments by about the region's 180.
    let count = |body: &str| {
        let src = format!(
            "kernel void k(global const float* in, global float* out) {{ int i = get_global_id(0); float x = in[i]; float y = in[i + 1]; {body} }}"
        );
        let m = build(&src, "");
        operations(&both(&m, "k").0)
    };
    if cpu_has_wide() {
        let paired = count("out[i] = sin(x) + cos(x);");
        let apart = count("out[i] = sin(x) + cos(y);");
        assert!(paired + 150 < apart, "{paired} operations against {apart}");
    }
}

/// The sine and cosine of a pair against a double reference over every
/// float in [2^-3, 16) (both signs) and the random and special inputs, with
/// the values past 2^20: within 4 ULP (the bound), and the same bits as
/// the kernel computing only one of them.
#[test]
fn sin_and_cos_of_a_pair_match_the_single_routines_and_stay_within_the_bound() {
    let pair = "kernel void k(global const float* in, global float* out) { int i = get_global_id(0); float x = in[i]; out[2 * i] = sin(x); out[2 * i + 1] = cos(x); }";
    let apart = "kernel void k(global const float* in, global float* out) { int i = get_global_id(0); float x = in[i]; out[2 * i] = sin(x); out[2 * i + 1] = cos(x + 0.0f * (float)i); }";
    let (pm, am) = (build(pair, ""), build(apart, ""));
    let (p, _) = both(&pm, "k");
    let (a, _) = both(&am, "k");
    let mut xs = trig_inputs(0x5eed_7419_0000_0002, 20_000);
    xs.extend(
        (0.125f32.to_bits()..16f32.to_bits())
            .step_by(13)
            .flat_map(|b| [f32::from_bits(b), -f32::from_bits(b)]),
    );
    xs.push(0.5);
    let n = xs.len();
    let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; 2 * n])];
    let range = range_1d(0, n as u64, 256);
    let (status, got) = run_jit(&p, &args, &range);
    assert_eq!(status, 0);
    let (status, sep) = run_jit(&a, &args, &range);
    assert_eq!(status, 0);
    let (r, c) = (floats_of(&got[1], 2 * n), floats_of(&sep[1], 2 * n));
    let mut worst = 0f64;
    for (i, x) in xs.iter().enumerate() {
        for (j, f) in [f64::sin, f64::cos].iter().enumerate() {
            let (y, z) = (r[2 * i + j], c[2 * i + j]);
            let e = ulps(y, f(f64::from(*x)))
                .unwrap_or_else(|| panic!("x = {x:e}: {y} for {}", f(f64::from(*x))));
            assert!(e <= 4.0, "x = {x:e}: {y} is {e} ULP off");
            worst = worst.max(e);
            assert!(
                y.to_bits() == z.to_bits() || y.is_nan() && z.is_nan(),
                "x = {x:e}: paired {y:e}, apart {z:e}"
            );
        }
    }
    println!("ulp wide sin/cos pair {worst:.3} over {n} inputs (bound 4)");
}

/// `pow`, `pown`, `powr` and `rootn` take `2^(y·log2 x)` alone in the
/// lanes whose base is positive and finite and whose exponent is finite,
/// and the whole routine in a skipped region for the chunks with another
/// lane. The same plain pairs run once in chunks of plain lanes only (the
/// region skipped) and once with one special lane in every chunk, at
/// every position in turn: the plain lanes' bits are the same both times,
/// every lane is within the bound of a double reference (the special ones
/// exactly), and `pown` and `rootn` are the Cranelift code's bits.
#[test]
fn pow_family_plain_lanes_skip_the_special_cases_and_keep_their_bits() {
    type Ref = fn(f64, f64) -> f64;
    let cases: [(&str, bool, Ref, bool); 4] = [
        ("pow(x, y)", false, f64::powf, false),
        ("powr(x, y)", false, powr_ref, false),
        ("pown(x, y)", true, |x, n| x.powi(n as i32), true),
        ("rootn(x, y)", true, rootn_ref, true),
    ];
    let specials = [
        0.0f32,
        -0.0,
        -1.0,
        -2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(1),
    ];
    let mut rng = Rng(0x5eed_9042_0000_0001);
    let n = 16 * 64 + 7;
    let xs: Vec<f32> = (0..n).map(|_| rng.range(0.01, 20.0) as f32).collect();
    let ys: Vec<f32> = (0..n).map(|_| rng.range(-12.0, 12.0) as f32).collect();
    for (expr, int_y, reference, same_bits) in cases {
        let ty = if int_y { "int" } else { "float" };
        let src = format!(
            "kernel void k(global const float* a, global const {ty}* b, global float* out) {{ int i = get_global_id(0); float x = a[i]; {ty} y = b[i]; out[i] = {expr}; }}"
        );
        let m = build(&src, "");
        let (wide, narrow) = both(&m, "k");
        // Chunk c's special lane is lane c % 16: its base, or for the float
        // exponents every other time its exponent (inf, NaN).
        let mut sx = xs.clone();
        let mut sy = ys.clone();
        for c in 0..n / 16 {
            let i = 16 * c + c % 16;
            if !int_y && c % 2 == 1 {
                sy[i] = [f32::INFINITY, f32::NAN, f32::NEG_INFINITY][c % 3];
            } else {
                sx[i] = specials[c % specials.len()];
            }
        }
        let y_arg = |ys: &[f32]| {
            if int_y {
                ints_arg(&ys.iter().map(|y| *y as i32).collect::<Vec<_>>())
            } else {
                floats_arg(ys)
            }
        };
        let range = range_1d(0, n as u64, 64);
        let run = |k: &CompiledKernel, xs: &[f32], ys: &[f32]| {
            let args = vec![floats_arg(xs), y_arg(ys), floats_arg(&vec![0.0; n])];
            let (status, got) = run_jit(k, &args, &range);
            assert_eq!(status, 0);
            floats_of(&got[2], n)
        };
        let plain = run(&wide, &xs, &ys);
        let mixed = run(&wide, &sx, &sy);
        let cl = run(&narrow, &sx, &sy);
        for i in 0..n {
            let y = if int_y {
                f64::from(sy[i] as i32)
            } else {
                f64::from(sy[i])
            };
            let want = reference(f64::from(sx[i]), y);
            let e = ulps(mixed[i], want).unwrap_or_else(|| {
                panic!(
                    "{expr}: x = {:e}, y = {y:e}: {} for {want:e}",
                    sx[i], mixed[i]
                )
            });
            assert!(e <= 16.0, "{expr}: x = {:e}, y = {y:e}: {e} ULP", sx[i]);
            if sx[i].to_bits() == xs[i].to_bits() && sy[i].to_bits() == ys[i].to_bits() {
                assert_eq!(
                    plain[i].to_bits(),
                    mixed[i].to_bits(),
                    "{expr}: x = {:e}, y = {y:e} beside a special lane",
                    xs[i]
                );
            }
            if same_bits {
                assert!(
                    mixed[i].to_bits() == cl[i].to_bits() || mixed[i].is_nan() && cl[i].is_nan(),
                    "{expr}: x = {:e}, y = {y:e}: wide {} Cranelift {}",
                    sx[i],
                    mixed[i],
                    cl[i]
                );
            }
        }
    }
}

/// `tanh` in single precision on the wide code (`math::tanh`: a
/// polynomial below 0.7, `1 - 2/(e^{2a} + 1)` beyond) over every 97th
/// float from 0 to 50 and their negatives, the switch at 0.7 and the
/// edges: within 2 ULP of the double reference (OpenCL allows 5), odd,
/// `tanh(±0) = ±0`, ±1 at the infinities, NaN for NaN.
#[test]
fn single_precision_tanh_stays_within_two_ulp_over_a_dense_sweep() {
    let src = "kernel void k(global const float* in, global float* out) { int i = get_global_id(0); out[i] = tanh(in[i]); }";
    let m = build(src, "");
    let k = compile_kernel(&m, "k", &options(true)).expect("compiles");
    let line = code_line(&k);
    if !cpu_has_wide() {
        assert!(line.contains("no AVX-512F"), "{line}");
        return;
    }
    assert!(line.starts_with("code: wide AVX-512"), "{line}");
    let switch = 0.7f32.to_bits();
    let mut xs: Vec<f32> = (0..50f32.to_bits())
        .step_by(97)
        .chain(switch - 40..switch + 40)
        .map(f32::from_bits)
        .collect();
    let negatives: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negatives);
    xs.extend([
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN,
        9.0,
        44.0,
        45.0,
    ]);
    let n = xs.len();
    let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; n])];
    let (status, got) = run_jit(&k, &args, &range_1d(0, n as u64, 64));
    assert_eq!(status, 0);
    let r = floats_of(&got[1], n);
    let mut worst = 0f64;
    for (x, y) in xs.iter().zip(&r) {
        if x.is_nan() {
            assert!(y.is_nan(), "tanh(NaN) = {y}");
            continue;
        }
        if *x == 0.0 {
            assert_eq!(y.to_bits(), x.to_bits(), "tanh({x}) = {y}");
        }
        let want = f64::from(*x).tanh();
        let e = ulps(*y, want)
            .unwrap_or_else(|| panic!("tanh({x:e}) ({:#x}) = {y} for {want:e}", x.to_bits()));
        assert!(e <= 2.0, "tanh({x:e}) ({:#x}) = {y}: {e} ULP", x.to_bits());
        worst = worst.max(e);
    }
    println!("ulp wide tanh {worst:.3} over {n} inputs");
}

/// `pow` and `powr` of a positive finite base and a finite exponent in
/// single precision (`math::pow_positive`): bases from every 4099th
/// positive float (subnormals included) and the 64 floats around one,
/// each with exponents chosen so that `y·log2 x` lands at sixteen points
/// from -160 (a zero result) through the subnormal range, -126, the
/// middle and the edge of overflow (127.99) to 140 (an infinite one),
/// besides 0, ±1, 2 and 0.5: within 3 ULP of the double reference
/// (OpenCL allows 16), the results past the range 0 or inf, `x^0 = 1` and
/// `1^y = 1` exactly.
#[test]
fn single_precision_pow_stays_within_three_ulp_across_the_whole_range() {
    for name in ["pow", "powr"] {
        let src = format!("kernel void k(global const float* a, global const float* b, global float* out) {{ int i = get_global_id(0); out[i] = {name}(a[i], b[i]); }}");
        let m = build(&src, "");
        let k = compile_kernel(&m, "k", &options(true)).expect("compiles");
        if !cpu_has_wide() {
            return;
        }
        assert!(code_line(&k).starts_with("code: wide AVX-512"));
        let one = 1f32.to_bits();
        let bases: Vec<f32> = (1..f32::MAX.to_bits())
            .step_by(4099)
            .chain(one - 32..one + 32)
            .chain([f32::MAX.to_bits(), 1, 0x0080_0000])
            .map(f32::from_bits)
            .collect();
        let targets = [
            -160.0, -149.5, -140.3, -127.7, -126.0, -100.1, -37.7, -1.3, 0.7, 13.1, 64.9, 100.3,
            126.6, 127.5, 127.99, 140.0,
        ];
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for x in &bases {
            let l = f64::from(*x).log2();
            for t in targets {
                if l != 0.0 {
                    let y = (t / l) as f32;
                    if y.is_finite() {
                        xs.push(*x);
                        ys.push(y);
                    }
                }
            }
            for y in [0.0, 1.0, -1.0, 2.0, 0.5] {
                xs.push(*x);
                ys.push(y);
            }
        }
        let n = xs.len();
        let args = vec![floats_arg(&xs), floats_arg(&ys), floats_arg(&vec![0.0; n])];
        let (status, got) = run_jit(&k, &args, &range_1d(0, n as u64, 64));
        assert_eq!(status, 0);
        let r = floats_of(&got[2], n);
        let mut worst = (0f64, 0f32, 0f32);
        for i in 0..n {
            let (x, y) = (xs[i], ys[i]);
            let want = f64::from(x).powf(f64::from(y));
            if y == 0.0 || x == 1.0 {
                assert_eq!(r[i], 1.0, "{name}({x:e}, {y:e})");
            }
            if want > f64::from(f32::MAX) * (1.0 + 2f64.powi(-25)) {
                assert_eq!(r[i], f32::INFINITY, "{name}({x:e}, {y:e})");
                continue;
            }
            let e = ulps(r[i], want)
                .unwrap_or_else(|| panic!("{name}({x:e}, {y:e}) = {} for {want:e}", r[i]));
            assert!(
                e <= 3.0,
                "{name}({x:e}, {y:e}) = {}: {e} ULP from {want:e}",
                r[i]
            );
            if e > worst.0 {
                worst = (e, x, y);
            }
        }
        println!(
            "ulp wide {name} {:.3} over {n} inputs (at x = {:e}, y = {:e})",
            worst.0, worst.1, worst.2
        );
    }
}

/// `erf` in single precision on the wide code (`math::erf`: `|x|·P(x²)`
/// below 1, a polynomial of `(|x| - 2.5)/1.5` to 4, then 1) over every
/// 61st float from 0 to 6 and their negatives, the 64 floats around each
/// switch (1, 3.92, 4) and the edges: within 2 ULP of the double
/// reference (OpenCL allows 16), odd, `erf(±0) = ±0`, ±1 from 4 on and
/// at the infinities, NaN for NaN.
#[test]
fn single_precision_erf_stays_within_two_ulp_over_a_dense_sweep() {
    let src = "kernel void k(global const float* in, global float* out) { int i = get_global_id(0); out[i] = erf(in[i]); }";
    let m = build(src, "");
    let k = compile_kernel(&m, "k", &options(true)).expect("compiles");
    if !cpu_has_wide() {
        return;
    }
    assert!(code_line(&k).starts_with("code: wide AVX-512"));
    let mut xs: Vec<f32> = (0..6f32.to_bits())
        .step_by(61)
        .map(f32::from_bits)
        .collect();
    for edge in [1.0f32, 3.92, 4.0] {
        let b = edge.to_bits();
        xs.extend((b - 32..b + 32).map(f32::from_bits));
    }
    let negatives: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negatives);
    xs.extend([
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN,
        1e-45,
        -1e-45,
    ]);
    let n = xs.len();
    let args = vec![floats_arg(&xs), floats_arg(&vec![0.0; n])];
    let (status, got) = run_jit(&k, &args, &range_1d(0, n as u64, 64));
    assert_eq!(status, 0);
    let r = floats_of(&got[1], n);
    let mut worst = (0f64, 0f32);
    for (x, y) in xs.iter().zip(&r) {
        if x.is_nan() {
            assert!(y.is_nan(), "erf(NaN) = {y}");
            continue;
        }
        if *x == 0.0 {
            assert_eq!(y.to_bits(), x.to_bits(), "erf({x}) = {y}");
        }
        if x.abs() >= 4.0 {
            assert_eq!(*y, x.signum(), "erf({x}) = {y}");
        }
        let want = libm::erf(f64::from(*x));
        let e = ulps(*y, want)
            .unwrap_or_else(|| panic!("erf({x:e}) ({:#x}) = {y} for {want:e}", x.to_bits()));
        assert!(e <= 2.0, "erf({x:e}) ({:#x}) = {y}: {e} ULP", x.to_bits());
        if e > worst.0 {
            worst = (e, *x);
        }
    }
    println!(
        "ulp wide erf {:.3} over {n} inputs (at {:e})",
        worst.0, worst.1
    );
}

/// `atan2` and `atan2pi` in single precision on the wide code
/// (`math::atan2`): `y` from every 65 537th bit pattern of both signs
/// (NaNs and subnormals among them) and ±0, ±inf, ±1 against 72 values
/// of `x` of every magnitude and sign, and the pairs with `|y|` within 64
/// ULP of `|x|` (a quotient near 1, where the octant's switch lies) in
/// all four quadrants: within 2 ULP (`atan2`) and 2.5 ULP (`atan2pi`) of
/// the double reference, against OpenCL's 6; C99's special cases exact
/// (±0, ±π, ±π/2, ±π/4, ±3π/4 at the zeros and infinities), NaN for NaN.
#[test]
fn single_precision_atan2_stays_within_two_ulp_across_the_quadrants() {
    let mut ys: Vec<f32> = (0..u32::MAX / 65_537)
        .map(|i| f32::from_bits(i * 65_537))
        .collect();
    ys.extend([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, 1.0, -1.0]);
    let mut xs_of = vec![
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-45,
        -1e-45,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
    ];
    for e in (-120..=120).step_by(4) {
        let v = 1.37f32 * 2f32.powi(e);
        xs_of.push(if e % 8 == 0 { -v } else { v });
    }
    let (mut ya, mut xa) = (Vec::new(), Vec::new());
    for y in &ys {
        for x in &xs_of {
            ya.push(*y);
            xa.push(*x);
        }
    }
    // |y| near |x|, every quadrant.
    ys.clear();
    for x in [1.0f32, 3.7, 1e-30, 2e30, 0.6180339] {
        for k in -64i32..64 {
            let y = f32::from_bits((x.to_bits() as i32 + k) as u32);
            for (sy, sx) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
                ya.push(sy * y);
                xa.push(sx * x);
            }
        }
    }
    let n = ya.len();
    for (name, scale, bound) in [("atan2", 1.0, 2.0), ("atan2pi", std::f64::consts::PI, 2.5)] {
        let src = format!("kernel void k(global const float* a, global const float* b, global float* out) {{ int i = get_global_id(0); out[i] = {name}(a[i], b[i]); }}");
        let m = build(&src, "");
        let k = compile_kernel(&m, "k", &options(true)).expect("compiles");
        if !cpu_has_wide() {
            return;
        }
        assert!(code_line(&k).starts_with("code: wide AVX-512"));
        let args = vec![floats_arg(&ya), floats_arg(&xa), floats_arg(&vec![0.0; n])];
        let (status, got) = run_jit(&k, &args, &range_1d(0, n as u64, 64));
        assert_eq!(status, 0);
        let r = floats_of(&got[2], n);
        let mut worst = (0f64, 0f32, 0f32);
        for i in 0..n {
            let (y, x) = (ya[i], xa[i]);
            let want = f64::from(y).atan2(f64::from(x)) / scale;
            if y.is_nan() || x.is_nan() {
                assert!(r[i].is_nan(), "{name}({y:e}, {x:e}) = {}", r[i]);
                continue;
            }
            if want == 0.0 {
                assert_eq!(
                    r[i].to_bits(),
                    (want as f32).to_bits(),
                    "{name}({y:e}, {x:e})"
                );
            }
            if (y.is_infinite() || y == 0.0) && (x.is_infinite() || x == 0.0) {
                assert_eq!(r[i], want as f32, "{name}({y:e}, {x:e})");
            }
            let e = ulps(r[i], want)
                .unwrap_or_else(|| panic!("{name}({y:e}, {x:e}) = {} for {want:e}", r[i]));
            assert!(
                e <= bound,
                "{name}({y:e}, {x:e}) = {}: {e} ULP from {want:e}",
                r[i]
            );
            if e > worst.0 {
                worst = (e, y, x);
            }
        }
        println!(
            "ulp wide {name} {:.3} over {n} inputs (at y = {:e}, x = {:e})",
            worst.0, worst.1, worst.2
        );
    }
}

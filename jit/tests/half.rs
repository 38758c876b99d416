//! `half` (`cl_khr_fp16`): conversions and arithmetic on the JIT at every
//! width and on the interpreter, against a reference written here from the
//! definition of rounding (the two neighbouring halves of the exact value,
//! chosen by the mode), not from either implementation.
//!
//! - every one of the 65,536 halves converted to `float`;
//! - `float` → `half` in each rounding mode for every half, its `float`
//!   neighbours, the midpoints to the next half and the floats either side
//!   of them (the ties), `float` denormals, overflow, infinities and NaNs;
//! - `+ − × ÷`, `sqrt` and `fma` on pairs and triples of halves (random and
//!   special), correctly rounded (exact rationals for `fma`).

use std::cmp::Ordering;
use vecl_ir::interp::{run_kernel, run_kernel_with, KernelArg, NdRange, RunOptions};
use vecl_testkit::{build, run_jit, try_compile, WIDTHS};

/// The value of half bits `k` for `k` ≤ 0x7c00 read as a normal number
/// where the exponent field is 31: 0x7c00 is then 2^16, the "next value"
/// after the largest half, which is where overflow rounding draws its line.
fn magnitude(k: u16) -> f64 {
    let e = i32::from(k >> 10);
    let m = f64::from(k & 0x3ff);
    if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

const MODES: [(Mode, &str); 5] = [
    (Mode::Rte, ""),
    (Mode::Rte, "_rte"),
    (Mode::Rtz, "_rtz"),
    (Mode::Rtp, "_rtp"),
    (Mode::Rtn, "_rtn"),
];

/// Rounds a magnitude to half bits, given comparisons of it with the half
/// magnitudes (`cmp(k)`) and with the midpoints between `k` and `k + 1`
/// (`cmp_mid(k)`); `neg` is the sign.
fn round_magnitude(
    neg: bool,
    mode: Mode,
    cmp: impl Fn(u16) -> Ordering,
    cmp_mid: impl Fn(u16) -> Ordering,
) -> u16 {
    let sign = if neg { 0x8000 } else { 0 };
    // Largest k in 0..=0x7c00 with magnitude(k) <= |x|.
    let (mut lo, mut hi) = (0u16, 0x7c00u16);
    if cmp(0x7c00) != Ordering::Less {
        lo = 0x7c00;
    } else {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if cmp(mid) == Ordering::Less {
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }
    let toward_zero = |k: u16| sign | k;
    if lo == 0x7c00 {
        // At or above 2^16: infinite unless the mode rounds toward zero.
        let to_max = match mode {
            Mode::Rte => false,
            Mode::Rtz => true,
            Mode::Rtp => neg,
            Mode::Rtn => !neg,
        };
        return sign | if to_max { 0x7bff } else { 0x7c00 };
    }
    if cmp(lo) == Ordering::Equal {
        return sign | lo;
    }
    let up = lo + 1;
    let away = match mode {
        Mode::Rtz => false,
        Mode::Rtp => !neg,
        Mode::Rtn => neg,
        Mode::Rte => match cmp_mid(lo) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => up & 1 == 0,
        },
    };
    if away {
        // 0x7c00 here is infinity: the overflow of a rounding away.
        sign | up
    } else {
        toward_zero(lo)
    }
}

/// A finite or infinite `f64` (every float is one) rounded to half bits.
fn ref_to_half(x: f64, mode: Mode) -> u16 {
    let neg = x.is_sign_negative();
    let a = x.abs();
    if a.is_infinite() {
        return if neg { 0xfc00 } else { 0x7c00 };
    }
    round_magnitude(
        neg,
        mode,
        |k| a.partial_cmp(&magnitude(k)).unwrap(),
        |k| {
            a.partial_cmp(&((magnitude(k) + magnitude(k + 1)) / 2.0))
                .unwrap()
        },
    )
}

/// `n · 2^-48` rounded to nearest even half bits (exact integers).
fn ref_scaled_to_half(n: i128) -> u16 {
    let scaled = |k: u16| (magnitude(k) * 2f64.powi(48)) as i128;
    let a = n.abs();
    round_magnitude(
        n < 0,
        Mode::Rte,
        |k| a.cmp(&scaled(k)),
        |k| (2 * a).cmp(&(scaled(k) + scaled(k + 1))),
    )
}

fn half_value(h: u16) -> f64 {
    let v = if h & 0x7fff > 0x7c00 {
        f64::NAN
    } else if h & 0x7fff == 0x7c00 {
        f64::INFINITY
    } else {
        magnitude(h & 0x7fff)
    };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

fn is_nan_half(h: u16) -> bool {
    h & 0x7fff > 0x7c00
}

/// Half bits → float bits, NaN payloads kept (top bits) and made quiet.
fn ref_to_float(h: u16) -> u32 {
    if is_nan_half(h) {
        return (u32::from(h & 0x8000) << 16) | 0x7fc0_0000 | (u32::from(h & 0x3ff) << 13);
    }
    (half_value(h) as f32).to_bits()
}

/// Float bits → half bits of a NaN: sign, quiet, the top payload bits.
fn ref_nan_to_half(bits: u32) -> u16 {
    ((bits >> 16) as u16 & 0x8000) | 0x7e00 | ((bits >> 13) as u16 & 0x1ff)
}

fn bytes16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u16s(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn range(n: usize) -> NdRange {
    NdRange::linear(n as u64, 64)
}

/// Runs `kernel` of `src` on the interpreter and on the JIT at every width
/// with `args` (the last one the output); returns the output of each run,
/// the interpreter's first.
fn outputs(src: &str, args: Vec<KernelArg>, n: usize) -> Vec<(String, Vec<u8>)> {
    let m = build(src, "");
    let r = range(n);
    let mut runs = Vec::new();
    let mut want = args.clone();
    run_kernel(&m, "k", &mut want, &r).unwrap_or_else(|e| panic!("interpreter: {e}\n{src}"));
    let last = args.len() - 1;
    let KernelArg::Buffer(out) = &want[last] else {
        panic!("output is a buffer")
    };
    runs.push(("interpreter".to_string(), out.clone()));
    for w in WIDTHS {
        let k = try_compile(&m, "k", w).unwrap_or_else(|e| panic!("W={w}: {e}\n{src}"));
        let (status, bufs) = run_jit(&k, &args, &r);
        assert_eq!(status, 0, "W={w}");
        assert_eq!(bufs[last].len(), out.len(), "W={w}: output size");
        runs.push((format!("JIT W={w}"), bufs[last].clone()));
    }
    runs
}

#[test]
fn every_half_converts_to_float_exactly() {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let want: Vec<u32> = all.iter().map(|h| ref_to_float(*h)).collect();
    // Scalar halves, and halves read as half8 vectors.
    let scalar = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        kernel void k(global const half *h, global float *r) { size_t i = get_global_id(0); r[i] = h[i]; }";
    let vector = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        kernel void k(global const half *h, global float *r) { size_t i = get_global_id(0); \
        vstore8(convert_float8(vload8(i, h)), i, r); }";
    for (src, n) in [(scalar, all.len()), (vector, all.len() / 8)] {
        let args = vec![
            KernelArg::Buffer(bytes16(&all)),
            KernelArg::Buffer(vec![0; all.len() * 4]),
        ];
        for (who, out) in outputs(src, args, n) {
            let got = u32s(&out);
            for (h, (g, w)) in all.iter().zip(got.iter().zip(&want)) {
                assert_eq!(
                    g, w,
                    "{who}: half {h:#06x} → float {g:#010x}, want {w:#010x}"
                );
            }
        }
    }
}

/// The floats whose conversion to half tests every rounding decision:
/// each half's value and its float neighbours, the midpoint to the next
/// half and the floats either side, and the special cases.
fn float_inputs() -> Vec<u32> {
    let mut v = Vec::new();
    for k in 0..0x7c00u16 {
        for sign in [0u32, 0x8000_0000] {
            let x = magnitude(k) as f32;
            let mid = ((magnitude(k) + magnitude(k + 1)) / 2.0) as f32;
            for f in [x, mid] {
                let b = f.to_bits() | sign;
                v.extend([b, b.wrapping_add(1), b.wrapping_sub(1)]);
            }
        }
    }
    v.retain(|b| b & 0x7fff_ffff != 0x7fff_ffff);
    for b in [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x3300_0000, // 2^-25: half the smallest half
        0x3300_0001,
        0x32ff_ffff,
        0x477f_e000, // 65504, the largest half
        0x477f_efff,
        0x477f_f000, // 65520: the tie with 2^16
        0x477f_f001,
        0x4780_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7f80_0001,
        0x7fbf_e000,
        0xffff_e000,
    ] {
        v.push(b);
        v.push(b ^ 0x8000_0000);
    }
    // Pseudo-random floats over the whole range.
    let mut s = 0x1234_5678u32;
    for _ in 0..20_000 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v.push(s);
    }
    // Whole vectors of 16.
    while v.len() % 16 != 0 {
        v.push(0);
    }
    v
}

#[test]
fn floats_round_to_half_in_every_mode() {
    let xs = float_inputs();
    for (mode, suffix) in MODES {
        let want: Vec<u16> = xs
            .iter()
            .map(|b| {
                let f = f32::from_bits(*b);
                if f.is_nan() {
                    ref_nan_to_half(*b)
                } else {
                    ref_to_half(f64::from(f), mode)
                }
            })
            .collect();
        let scalar = format!(
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
             kernel void k(global const float *x, global half *r) {{ size_t i = get_global_id(0); r[i] = convert_half{suffix}(x[i]); }}"
        );
        let vector = format!(
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
             kernel void k(global const float *x, global half *r) {{ size_t i = get_global_id(0); \
             vstore4(convert_half4{suffix}(vload4(i, x)), i, r); }}"
        );
        for (src, n) in [(scalar, xs.len()), (vector, xs.len() / 4)] {
            let args = vec![
                KernelArg::Buffer(bytes32(&xs)),
                KernelArg::Buffer(vec![0; xs.len() * 2]),
            ];
            for (who, out) in outputs(&src, args, n) {
                for (x, (g, w)) in xs.iter().zip(u16s(&out).iter().zip(&want)) {
                    assert_eq!(
                        g,
                        w,
                        "{who} convert_half{suffix}({} = {x:#010x}) = {g:#06x}, want {w:#06x}",
                        f32::from_bits(*x)
                    );
                }
            }
        }
    }
}

/// Half operands: every exponent with a few mantissas, zeros, denormals,
/// infinities, NaN, then pseudo-random bits.
fn half_operands(n: usize, seed: u32) -> Vec<u16> {
    let mut v: Vec<u16> = vec![
        0, 0x8000, 1, 0x8001, 0x3ff, 0x400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00,
        0x3555, 0x3e00, 0x5bff,
    ];
    let mut s = seed;
    while v.len() < n {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v.push(s as u16);
    }
    v
}

/// Exact `a·b + c` of three finite halves, in units of 2^-48.
fn scaled(h: u16) -> i128 {
    let m = i128::from(h & 0x3ff);
    let e = i32::from((h >> 10) & 0x1f);
    let v = if e == 0 { m } else { (m | 0x400) << (e - 1) };
    let v = v << 24; // units of 2^-24 → 2^-48
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

#[test]
fn arithmetic_is_correctly_rounded() {
    let n = 4096;
    let (a, b, c) = (
        half_operands(n, 7),
        half_operands(n, 99),
        half_operands(n, 12345),
    );
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        #pragma OPENCL FP_CONTRACT OFF\n\
        kernel void k(global const half *a, global const half *b, global const half *c, global half *r) {\n\
          size_t i = get_global_id(0);\n\
          half x = a[i], y = b[i];\n\
          r[6 * i] = x + y;\n\
          r[6 * i + 1] = x - y;\n\
          r[6 * i + 2] = x * y;\n\
          r[6 * i + 3] = x / y;\n\
          r[6 * i + 4] = sqrt(x);\n\
          r[6 * i + 5] = fma(x, y, c[i]);\n\
        }";
    let args = vec![
        KernelArg::Buffer(bytes16(&a)),
        KernelArg::Buffer(bytes16(&b)),
        KernelArg::Buffer(bytes16(&c)),
        KernelArg::Buffer(vec![0; n * 12]),
    ];
    let runs = outputs(src, args, n);
    for (who, out) in runs {
        let got = u16s(&out);
        for i in 0..n {
            let (x, y, z) = (half_value(a[i]), half_value(b[i]), half_value(c[i]));
            let exact = [x + y, x - y, x * y, x / y, x.sqrt()];
            for (j, e) in exact.iter().enumerate() {
                let g = got[6 * i + j];
                // +, −, × are exact in f64, ÷ and sqrt rounded to f64 then
                // to half, which 53 ≥ 2·11 + 2 bits make exact.
                if e.is_nan() {
                    assert!(
                        is_nan_half(g),
                        "{who} op {j} on {:#06x}, {:#06x}: {g:#06x}",
                        a[i],
                        b[i]
                    );
                } else {
                    let w = ref_to_half(*e, Mode::Rte);
                    assert_eq!(g, w, "{who} op {j} on {:#06x}, {:#06x}", a[i], b[i]);
                }
            }
            let g = got[6 * i + 5];
            let finite = [a[i], b[i], c[i]].iter().all(|h| h & 0x7c00 != 0x7c00);
            if finite {
                // Each factor is a whole number of 2^-24 units, so the product is
                // a whole number of 2^-48 units (below 2^80).
                let p = (scaled(a[i]) >> 24) * (scaled(b[i]) >> 24);
                let w = ref_scaled_to_half(p + scaled(c[i]));
                assert_eq!(
                    g, w,
                    "{who} fma({:#06x}, {:#06x}, {:#06x})",
                    a[i], b[i], c[i]
                );
            } else {
                let e = x.mul_add(y, z);
                if e.is_nan() {
                    assert!(
                        is_nan_half(g),
                        "{who} fma on {:#06x}, {:#06x}, {:#06x}",
                        a[i],
                        b[i],
                        c[i]
                    );
                } else {
                    assert_eq!(g, ref_to_half(e, Mode::Rte), "{who} fma special");
                }
            }
        }
    }
}

#[test]
fn conversions_between_half_and_every_type() {
    // Halves to integers (saturated, every mode), integers and doubles to
    // halves: the JIT at every width against the interpreter.
    let xs = half_operands(256, 4242);
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        kernel void k(global const half *h, global const int *n, global const double *d, global int *r) {\n\
          size_t i = get_global_id(0);\n\
          half x = h[i];\n\
          r[16 * i] = convert_int_sat_rtn(x);\n\
          r[16 * i + 1] = convert_char_sat(x);\n\
          r[16 * i + 2] = convert_uchar_sat_rte(x);\n\
          r[16 * i + 3] = convert_ushort_sat_rtp(x);\n\
          r[16 * i + 4] = (int)convert_long_sat_rtz(x);\n\
          r[16 * i + 5] = as_short(convert_half_rtp(n[i]));\n\
          r[16 * i + 6] = as_short(convert_half_rtn(n[i]));\n\
          r[16 * i + 7] = as_short(convert_half(n[i]));\n\
          r[16 * i + 8] = as_short(convert_half_rtz(n[i]));\n\
          r[16 * i + 9] = as_short(convert_half(d[i]));\n\
          r[16 * i + 10] = as_short(convert_half_rtz(d[i]));\n\
          r[16 * i + 11] = as_short(convert_half_rtp(d[i]));\n\
          r[16 * i + 12] = as_short(convert_half_rtn(d[i]));\n\
          r[16 * i + 13] = as_short((half)(uint)n[i]);\n\
          r[16 * i + 14] = convert_int(isnan(x)) + 2 * signbit(x) + 4 * isinf(x);\n\
          r[16 * i + 15] = as_short(-x);\n\
        }";
    let ints: Vec<u32> = (0..256u32)
        .map(|i| match i % 4 {
            0 => i.wrapping_mul(2_654_435_761),
            1 => 65_504 + i,
            2 => 2049 + 2 * i,
            _ => i.wrapping_mul(40_503) >> (i % 20),
        })
        .collect();
    let doubles: Vec<u8> = (0..256u32)
        .flat_map(|i| {
            // Just off half ties and boundaries.
            let h = half_value(xs[i as usize]);
            let d = if h.is_finite() {
                h + h.abs() * 2f64.powi(-12) * f64::from(i % 3) - 1e-300
            } else {
                h
            };
            d.to_le_bytes()
        })
        .collect();
    let args = vec![
        KernelArg::Buffer(bytes16(&xs)),
        KernelArg::Buffer(bytes32(&ints)),
        KernelArg::Buffer(doubles),
        KernelArg::Buffer(vec![0; 256 * 64]),
    ];
    let runs = outputs(src, args, 256);
    let (_, want) = &runs[0];
    for (who, got) in &runs[1..] {
        for (i, (g, w)) in u32s(got).iter().zip(u32s(want)).enumerate() {
            assert_eq!(
                *g,
                w,
                "{who}: item {} result {} (half {:#06x})",
                i / 16,
                i % 16,
                xs[i / 16]
            );
        }
    }
    // The double → half results against the reference.
    let w = u32s(want);
    for i in 0..256 {
        let h = half_value(xs[i]);
        if !h.is_finite() {
            continue;
        }
        let d = h + h.abs() * 2f64.powi(-12) * f64::from(i as u32 % 3) - 1e-300;
        for (j, mode) in [
            (9, Mode::Rte),
            (10, Mode::Rtz),
            (11, Mode::Rtp),
            (12, Mode::Rtn),
        ] {
            let want = ref_to_half(d, mode) as i16 as i32 as u32;
            assert_eq!(w[16 * i + j], want, "convert_half {mode:?} of double {d:e}");
        }
    }
}

/// Distance in units in the last place between two halves (NaN to NaN 0).
fn half_ulps(a: u16, b: u16) -> u32 {
    if is_nan_half(a) && is_nan_half(b) {
        return 0;
    }
    let ord = |h: u16| -> i32 {
        if h & 0x8000 != 0 {
            -i32::from(h & 0x7fff)
        } else {
            i32::from(h)
        }
    };
    (ord(a) - ord(b)).unsigned_abs()
}

/// The builtins on `half` and its vectors, JIT against interpreter: the
/// interpreter evaluates in double and rounds once, the JIT in float and
/// rounds once, so the results agree within one ulp (exactly for the
/// functions that are exact in both).
#[test]
fn builtins_on_half_match_the_interpreter() {
    // (expression of x, y, z; exact)
    let exprs: &[(&str, bool)] = &[
        ("fabs(x)", true),
        ("floor(x)", true),
        ("ceil(x)", true),
        ("trunc(x)", true),
        ("round(x)", true),
        ("rint(x)", true),
        ("fmin(x, y)", true),
        ("fmax(x, y)", true),
        ("copysign(x, y)", true),
        ("fdim(x, y)", true),
        ("fmod(x, y)", true),
        ("remainder(x, y)", true),
        ("maxmag(x, y)", true),
        ("minmag(x, y)", true),
        ("nextafter(x, y)", true),
        ("ldexp(x, 3)", true),
        ("logb(x)", true),
        ("clamp(x, y, y + (T)2)", true),
        ("max(x, y)", true),
        ("min(x, y)", true),
        ("step(y, x)", true),
        ("sign(x)", true),
        ("select(x, y, (S)isgreater(x, y))", true),
        ("select((T)0.0h, (T)1.0h, (S)isnormal(x))", true),
        ("bitselect(x, y, z)", true),
        ("sqrt(x)", true),
        ("fma(x, y, z)", true),
        ("mad(x, y, z)", true),
        ("sqrt(fabs(x)) + rsqrt(fabs(y))", false),
        ("cbrt(x)", false),
        ("exp(x * (T)0.01h)", false),
        ("exp2(x * (T)0.01h)", false),
        ("exp10(x * (T)0.001h)", false),
        ("expm1(x * (T)0.01h)", false),
        ("log(fabs(x))", false),
        ("log2(fabs(x))", false),
        ("log10(fabs(x))", false),
        ("log1p(fabs(x))", false),
        ("sin(x)", false),
        ("cos(x)", false),
        ("tan(x * (T)0.01h)", false),
        ("sinpi(x)", false),
        ("cospi(x)", false),
        ("tanpi(x * (T)0.01h)", false),
        ("asin(x * (T)0.001h)", false),
        ("acos(x * (T)0.001h)", false),
        ("atan(x)", false),
        ("atan2(x, y)", false),
        ("atanpi(x)", false),
        ("atan2pi(x, y)", false),
        ("asinpi(x * (T)0.001h)", false),
        ("acospi(x * (T)0.001h)", false),
        ("sinh(x * (T)0.01h)", false),
        ("cosh(x * (T)0.01h)", false),
        ("tanh(x * (T)0.01h)", false),
        ("asinh(x)", false),
        ("acosh(fabs(x) + (T)1)", false),
        ("atanh(x * (T)0.0005h)", false),
        ("erf(x * (T)0.01h)", false),
        ("erfc(x * (T)0.01h)", false),
        ("tgamma(x * (T)0.01h)", false),
        ("lgamma(fabs(x) * (T)0.01h)", false),
        ("pow(fabs(x) * (T)0.01h, y * (T)0.01h)", false),
        ("powr(fabs(x) * (T)0.01h, y * (T)0.01h)", false),
        ("pown(x * (T)0.1h, (K)3)", false),
        ("rootn(fabs(x), (K)3)", false),
        ("hypot(x, y)", false),
        ("mix(x, y, (T)0.25h)", false),
        // fmin takes NaN out: clamp (inside smoothstep) of NaN is undefined.
        (
            "smoothstep((T)-10.0h, (T)10.0h, fmin(x, (T)1000.0h))",
            false,
        ),
        ("degrees(x * (T)0.01h)", false),
        ("radians(x)", false),
        ("recip_alias(x)", false),
        // The builtins that also write through a pointer (helpers below).
        ("f_fract(fmin(x, (T)1000.0h))", true),
        ("i_fract(x)", true),
        ("f_modf(x)", true),
        ("i_modf(x)", true),
        ("s_sincos(x)", false),
        ("c_sincos(x)", false),
        ("frexp_m(x)", true),
        ("frexp_e(x)", true),
        ("r_remquo(x, y)", true),
        ("lgamma_s(x * (T)0.01h)", true),
    ];
    let n = 512;
    let mut bits = half_operands(3 * n, 77);
    // Moderate magnitudes, so the functions see their interesting range.
    for b in &mut bits[16..] {
        *b = (*b & 0x83ff) | (((*b >> 10) & 0x7) + 12) << 10;
    }
    let mut failures = Vec::new();
    for (ty, lanes) in [("half", 1usize), ("half4", 4), ("half8", 8), ("half16", 16)] {
        let count = n / lanes;
        let (load, store) = if lanes == 1 {
            ("p[i]".to_string(), "r[k * N + i] = v;".to_string())
        } else {
            (
                format!("vload{lanes}(i, p)"),
                format!("vstore{lanes}(v, k * N / {lanes} + i, r);"),
            )
        };
        let mut body = String::new();
        for (k, (e, _)) in exprs.iter().enumerate() {
            let e = e.replace("recip_alias(x)", "(T)1.0h / x");
            body += &format!("  {{ int k = {k}; T v = {e}; {store} }}\n");
        }
        let load_y = load.replace("p", "(p + N)");
        let load_z = load.replace("p", "(p + 2 * N)");
        let int_ty = if lanes == 1 {
            "int".to_string()
        } else {
            format!("int{lanes}")
        };
        let z_cast = if lanes == 1 {
            "short".to_string()
        } else {
            format!("short{lanes}")
        };
        let body = body.replace(
            "bitselect(x, y, z)",
            &format!("bitselect(x, y, as_{ty}(as_{z_cast}(z)))"),
        );
        let src = format!(
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
             #define N {n}\n\
             typedef {ty} T;\n\
             typedef {z_cast} S;\n\
             typedef {int_ty} K;\n\
             T f_fract(T x) {{ T ip; return fract(x, &ip); }}\n\
             T i_fract(T x) {{ T ip; fract(x, &ip); return ip; }}\n\
             T f_modf(T x) {{ T ip; return modf(x, &ip); }}\n\
             T i_modf(T x) {{ T ip; modf(x, &ip); return ip; }}\n\
             T s_sincos(T x) {{ T c; return sincos(x, &c); }}\n\
             T c_sincos(T x) {{ T c; sincos(x, &c); return c; }}\n\
             T frexp_m(T x) {{ K e; return frexp(x, &e); }}\n\
             T frexp_e(T x) {{ K e; frexp(x, &e); return convert_{ty}(e); }}\n\
             T r_remquo(T x, T y) {{ K q; return remquo(x, y, &q); }}\n\
             T lgamma_s(T x) {{ K s; lgamma_r(x, &s); return convert_{ty}(s); }}\n\
             kernel void k(global const half *p, global half *r) {{\n\
             size_t i = get_global_id(0);\n\
             T x = {load}, y = {load_y}, z = {load_z};\n{body}}}"
        );
        let args = vec![
            KernelArg::Buffer(bytes16(&bits)),
            KernelArg::Buffer(vec![0; exprs.len() * n * 2]),
        ];
        let runs = outputs(&src, args, count);
        let want = u16s(&runs[0].1);
        for (who, out) in &runs[1..] {
            let got = u16s(out);
            assert_eq!(got.len(), want.len());
            for (k, (e, exact)) in exprs.iter().enumerate() {
                let tol = if *exact { 0 } else { 1 };
                let bad = (0..n).find(|i| half_ulps(got[k * n + i], want[k * n + i]) > tol);
                if let Some(i) = bad {
                    failures.push(format!(
                        "{who} {ty}: {e} with x = {:#06x}, y = {:#06x}, z = {:#06x}: {:#06x}, interpreter {:#06x}",
                        bits[i],
                        bits[n + i],
                        bits[2 * n + i],
                        got[k * n + i],
                        want[k * n + i]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn half_reductions_and_scans_round_once_from_float() {
    // 2048 and then ones: rounding each partial sum to half keeps 2048
    // (2049 is a tie, to even), rounding the float sum once does not.
    // The interpreter and the JIT both follow the documented rule (the
    // `float` sum rounded once), so their results agree byte for byte.
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const float* f, global float* o) {
            size_t i = get_global_id(0);
            half x = get_local_id(0) == 0 ? 2048.0h : (half)f[i];
            o[4 * i] = sub_group_reduce_add(x);
            o[4 * i + 1] = sub_group_scan_inclusive_add(x);
            o[4 * i + 2] = work_group_reduce_add(x);
            o[4 * i + 3] = work_group_scan_inclusive_add(x);
        }";
    let m = build(src, "-cl-std=CL2.0");
    let n = 128;
    let r = range(n);
    let ones = bytes32(&vec![1.0f32.to_bits(); n]);
    let args = vec![KernelArg::Buffer(ones), KernelArg::Buffer(vec![0; 16 * n])];
    for w in WIDTHS {
        let mut want = args.clone();
        let opts = RunOptions { sub_group_size: w };
        run_kernel_with(&m, "k", &mut want, &r, &opts).expect("interpreter");
        let KernelArg::Buffer(out) = &want[1] else {
            panic!("output is a buffer")
        };
        let expected = u32s(out);
        let at = |i: usize, k: usize| f32::from_bits(expected[4 * i + k]);
        // 2048 + 63 = 2111 lies halfway between the halves 2110 and 2112;
        // 2048 + (W - 1) rounds to 2048 + W (W = 4, 8, 16; ties to even).
        assert_eq!(at(0, 2), 2112.0, "W={w}");
        assert_eq!(at(63, 3), 2112.0, "W={w}");
        assert_eq!(at(0, 0), 2048.0 + w as f32, "W={w}");
        // 2048 + 2 is a half: the scans' third item.
        assert_eq!(at(2, 3), 2050.0, "W={w}");
        assert_eq!(at(2, 1), 2050.0, "W={w}");
        let k = try_compile(&m, "k", w).unwrap_or_else(|e| panic!("W={w}: {e}"));
        let (status, bufs) = run_jit(&k, &args, &r);
        assert_eq!(status, 0, "W={w}");
        let got = u32s(&bufs[1]);
        let diff: Vec<(usize, f32, f32)> = (0..4 * n)
            .filter(|&j| got[j] != expected[j])
            .map(|j| (j, f32::from_bits(expected[j]), f32::from_bits(got[j])))
            .take(8)
            .collect();
        assert!(
            diff.is_empty(),
            "W={w}: (index, interpreter, JIT): {diff:?}"
        );
    }
}

#[test]
fn as_half_of_negative_shorts_keeps_the_bits() {
    // `as_half2(short2)` stored as `half2` (the CTS's `astype` kernel): the
    // bits go through unchanged. A `short` with its sign bit set travels
    // sign-extended, and the `half` it becomes must not carry those upper
    // bits into the packed store, where they overwrote the second component.
    let n = 256;
    let xs: Vec<u16> = (0..4 * n as u32)
        .map(|i| (i.wrapping_mul(40_503) >> 3) as u16 ^ if i % 3 == 0 { 0x8000 } else { 0 })
        .collect();
    for (src, len) in [
        (
            "kernel void k(global const short2 *s, global half2 *r) {\n\
               size_t i = get_global_id(0);\n\
               half2 h = as_half2(s[i]);\n\
               r[i] = h;\n\
             }",
            2,
        ),
        (
            "kernel void k(global const short4 *s, global half4 *r) {\n\
               size_t i = get_global_id(0);\n\
               r[i] = as_half4(s[i]);\n\
             }",
            4,
        ),
    ] {
        let src = format!("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n{src}");
        let input = &xs[..len * n];
        let args = vec![
            KernelArg::Buffer(bytes16(input)),
            KernelArg::Buffer(vec![0; len * n * 2]),
        ];
        for (who, got) in outputs(&src, args, n) {
            assert_eq!(u16s(&got), input, "{who}: {src}");
        }
    }
}

//! Scalar routines the generated code calls lane by lane: `double`
//! transcendentals (and `float` ones without a vector form in
//! `lower/builtins/vmath.rs`), the exact float operations (`remquo`,
//! `frexp`, `nextafter`…), half-precision packing, integer→float
//! conversions with a rounding mode, 64-bit saturating integer arithmetic,
//! and the masked byte copy used for struct assignment. They are registered
//! with the JIT by name ([`symbols`]).
//!
//! `float` versions evaluate in `double` and round once, so they stay within
//! a fraction of an ULP; `double` versions use the platform's libm (through
//! Rust's `f64` methods or the C declarations below).

use std::f64::consts::PI;

// SAFETY: these are the C99 functions of the platform's libm, which the
// Rust standard library already links; their signatures match C's.
unsafe extern "C" {
    fn erf(x: f64) -> f64;
    fn erfc(x: f64) -> f64;
    fn tgamma(x: f64) -> f64;
    fn lgamma_r(x: f64, sign: *mut i32) -> f64;
    fn asinh(x: f64) -> f64;
    fn acosh(x: f64) -> f64;
    fn atanh(x: f64) -> f64;
}

fn erf64(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { erf(x) }
}
fn erfc64(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { erfc(x) }
}
fn asinh64(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { asinh(x) }
}
fn acosh64(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { acosh(x) }
}
fn atanh64(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { atanh(x) }
}
fn tgamma64(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { tgamma(x) }
}
/// `(ln|Γ(x)|, sign of Γ(x))`.
fn lgamma64(x: f64) -> (f64, i32) {
    let mut s = 0i32;
    // SAFETY: `s` is a valid, exclusive `int` for the call to write.
    let r = unsafe { lgamma_r(x, &mut s) };
    (r, s)
}

/// sin(πx), cos(πx), tan(πx) (`which` 0, 1, 2), with the exact reduction
/// `x = 2m + k/2 + r`.
fn trigpi64(x: f64, which: u32) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 && which != 1 {
        return x;
    }
    // `%` is exact, and the period is 2: y ∈ (-2, 2). (Doubling `x` first
    // would overflow to inf for |x| ≥ 2^1023.)
    let y = x % 2.0;
    let k = (2.0 * y).round_ties_even();
    let r = (y - 0.5 * k) * PI;
    // k ∈ [-4, 4]: its two low bits are the quadrant, negatives included.
    let q = (k as i32 & 3) as u32 + u32::from(which == 1);
    let (s, c) = r.sin_cos();
    let v = match which {
        2 if q.is_multiple_of(2) => s / c,
        // An exact pole, tanpi(n + ½): +inf for even n (k ≡ 1 mod 4),
        // -inf for odd n (k ≡ 3).
        2 if s == 0.0 => {
            if q == 1 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            }
        }
        2 => -c / s,
        _ => match q % 4 {
            0 => s,
            1 => c,
            2 => -s,
            _ => -c,
        },
    };
    if v != 0.0 {
        return v;
    }
    // Exact zeros take C23's signs: sinpi(±n) = ±0, cospi(n + ½) = +0,
    // tanpi(±n) = ±0 for even n and ∓0 for odd n.
    match which {
        0 => 0f64.copysign(x),
        1 => 0.0,
        _ if y.abs() == 1.0 => 0f64.copysign(-x),
        _ => 0f64.copysign(x),
    }
}

fn logb64(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x.is_infinite() {
        f64::INFINITY
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        f64::from(ilogb64(x))
    }
}

/// OpenCL's FP_ILOGB0 and FP_ILOGBNAN.
const ILOGB0: i32 = i32::MIN;
const ILOGBNAN: i32 = i32::MAX;

fn ilogb64(x: f64) -> i32 {
    if x.is_nan() {
        return ILOGBNAN;
    }
    if x.is_infinite() {
        return i32::MAX;
    }
    if x == 0.0 {
        return ILOGB0;
    }
    let bits = x.abs().to_bits();
    let e = (bits >> 52) as i32;
    if e == 0 {
        // Subnormal: count from the leading one.
        -1011 - bits.leading_zeros() as i32
    } else {
        e - 1023
    }
}

fn ilogb32(x: f32) -> i32 {
    if x.is_nan() {
        return ILOGBNAN;
    }
    if x.is_infinite() {
        return i32::MAX;
    }
    if x == 0.0 {
        return ILOGB0;
    }
    ilogb64(f64::from(x))
}

/// `(m, e)` with `x = m·2^e`, `0.5 ≤ |m| < 1` (0, ±inf, NaN: `(x, 0)`).
fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let e = ilogb64(x) + 1;
    (ldexp64(x, -e), e)
}

/// 2^k for -1022 ≤ k ≤ 1023.
fn p2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x·2^n`, correctly rounded: exact scalings, then one rounding.
fn ldexp64(x: f64, n: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let e0 = ilogb64(x);
    let h = -e0 / 2;
    // |m| in [1, 2), exactly.
    let m = x * p2(h) * p2(-e0 - h);
    let t = e0 + n.clamp(-4000, 4000);
    if t > 1023 {
        f64::INFINITY.copysign(x)
    } else if t >= -1022 {
        m * p2(t)
    } else if t < -1082 {
        0f64.copysign(x)
    } else {
        m * p2(t + 60) * p2(-60)
    }
}

fn ldexp32(x: f32, n: i32) -> f32 {
    // One rounding: the f64 product is exact, then rounds to f32.
    (f64::from(x) * p2(n.clamp(-400, 400))) as f32
}

/// `(r, q)`: `r = x - n·y`, `n` the integer nearest `x/y` (ties to even);
/// `q` has the sign of `x/y` and the low 7 bits of |n|.
macro_rules! remquo_impl {
    ($name:ident, $t:ty) => {
        fn $name(x: $t, y: $t) -> ($t, i32) {
            if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
                return (<$t>::NAN, 0);
            }
            let ay = y.abs();
            let neg = (x < 0.0) != (y < 0.0);
            if y.is_infinite() {
                return (x, 0);
            }
            // |x| mod 128|y| (exact), then the low quotient bits one by one.
            let big = ay * 128.0;
            let mut r = if big.is_finite() {
                x.abs() % big
            } else {
                x.abs()
            };
            let mut q: i32 = 0;
            for k in (0..7).rev() {
                let s = ay * (1u32 << k) as $t;
                if s.is_finite() && r >= s {
                    r -= s;
                    q |= 1 << k;
                }
            }
            // Round to nearest: r is in [0, |y|).
            let rest = ay - r;
            if r > rest || (r == rest && q & 1 == 1) {
                r -= ay;
                q += 1;
            }
            let r = if x.is_sign_negative() { -r } else { r };
            let q = q & 0x7f;
            (r, if neg { -q } else { q })
        }
    };
}
remquo_impl!(remquo64, f64);
remquo_impl!(remquo32, f32);

macro_rules! nextafter_impl {
    ($name:ident, $t:ty) => {
        fn $name(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                return x + y;
            }
            if x == y {
                return y;
            }
            if x == 0.0 {
                let tiny = <$t>::from_bits(1);
                return if y > 0.0 { tiny } else { -tiny };
            }
            let b = x.to_bits();
            let away = (y > x) == (x > 0.0);
            <$t>::from_bits(if away { b + 1 } else { b - 1 })
        }
    };
}
nextafter_impl!(nextafter64, f64);
nextafter_impl!(nextafter32, f32);

/// Rounding modes as the generated code passes them.
pub(crate) const RTE: i32 = 0;
pub(crate) const RTZ: i32 = 1;
pub(crate) const RTP: i32 = 2;
pub(crate) const RTN: i32 = 3;

/// Steps a rounded-to-nearest result `r` of the exact value whose
/// comparison with `r` is `cmp` (exact < r → Less) to the directed mode.
macro_rules! directed {
    ($name:ident, $t:ty) => {
        fn $name(r: $t, cmp: std::cmp::Ordering, mode: i32) -> $t {
            use std::cmp::Ordering::*;
            let down = |v: $t| -> $t {
                if v == <$t>::INFINITY {
                    <$t>::MAX
                } else {
                    nextafter_t(v, <$t>::NEG_INFINITY)
                }
            };
            let up = |v: $t| -> $t {
                if v == <$t>::NEG_INFINITY {
                    <$t>::MIN
                } else {
                    nextafter_t(v, <$t>::INFINITY)
                }
            };
            fn nextafter_t(a: $t, b: $t) -> $t {
                let b2 = b;
                if a == 0.0 {
                    let tiny = <$t>::from_bits(1);
                    return if b2 > 0.0 { tiny } else { -tiny };
                }
                let bits = a.to_bits();
                let away = (b2 > a) == (a > 0.0);
                <$t>::from_bits(if away { bits + 1 } else { bits - 1 })
            }
            match (mode, cmp) {
                (_, Equal) | (RTE, _) => r,
                // The exact value lies below r.
                (RTN, Less) => down(r),
                (RTZ, Less) if r > 0.0 => down(r),
                (RTP, Greater) => up(r),
                (RTZ, Greater) if r < 0.0 => up(r),
                _ => r,
            }
        }
    };
}
directed!(directed32, f32);
directed!(directed64, f64);

/// An integer (as i128) to float with a rounding mode.
fn int_to_f32(x: i128, mode: i32) -> f32 {
    let r = x as f32;
    let back = if r.is_finite() { r as i128 } else { i128::MAX };
    directed32(r, x.cmp(&back), mode)
}
fn int_to_f64(x: i128, mode: i32) -> f64 {
    let r = x as f64;
    directed64(r, x.cmp(&(r as i128)), mode)
}

/// Double to float with a rounding mode.
fn f64_to_f32(x: f64, mode: i32) -> f32 {
    if x.is_nan() {
        return x as f32;
    }
    let r = x as f32;
    let back = f64::from(r);
    directed32(
        r,
        x.partial_cmp(&back).unwrap_or(std::cmp::Ordering::Equal),
        mode,
    )
}

/// Float or double to IEEE half bits with a rounding mode.
fn to_half(x: f64, mode: i32) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // Scale so the half's last place is 1, round to an integer by mode.
    let e = if a == 0.0 {
        -24
    } else {
        ilogb64(a).max(-14) - 10
    };
    let scaled = ldexp64(a, -e);
    let neg = sign != 0;
    let rounded = match mode {
        RTZ => scaled.trunc(),
        RTP if !neg => scaled.ceil(),
        RTP => scaled.trunc(),
        RTN if neg => scaled.ceil(),
        RTN => scaled.trunc(),
        _ => scaled.round_ties_even(),
    };
    // rounded · 2^e, with rounded < 2^11 (or = 2^11 after a carry).
    let mut m = rounded as u64;
    let mut e = e;
    if m >= 2048 {
        m >>= 1;
        e += 1;
    }
    if m == 0 {
        return sign;
    }
    if m < 1024 {
        // Subnormal (e = -24).
        return sign | m as u16;
    }
    let biased = e + 10 + 15;
    if biased >= 31 {
        // Overflow: ±inf, or ±max toward zero.
        let to_max = match mode {
            RTZ => true,
            RTP => neg,
            RTN => !neg,
            _ => false,
        };
        return sign | if to_max { 0x7bff } else { 0x7c00 };
    }
    sign | ((biased as u16) << 10) | (m as u16 & 0x3ff)
}

fn from_half(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    sign * match e {
        0 => m * f32::from_bits(0x3380_0000), // 2^-24
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * f32::from_bits(((e - 15 + 127) as u32) << 23),
    }
}

macro_rules! f32_via_f64 {
    ($($cl:literal: $name:ident / $name64:ident => |$x:ident| $e:expr),* $(,)?) => {
        $(
            extern "C" fn $name(x: f32) -> f32 {
                let $x = f64::from(x);
                ($e) as f32
            }
            extern "C" fn $name64($x: f64) -> f64 { $e }
        )*
        /// OpenCL names of the one-argument functions, with their symbols.
        pub(crate) const UNARY: &[(&str, &str, &str)] = &[
            $(($cl, stringify!($name), stringify!($name64))),*
        ];
        fn unary_symbols() -> Vec<(&'static str, *const u8)> {
            vec![$((stringify!($name), $name as *const u8), (stringify!($name64), $name64 as *const u8)),*]
        }
    };
}

f32_via_f64! {
    "sin": vecl_sinf / vecl_sin => |x| x.sin(),
    "cos": vecl_cosf / vecl_cos => |x| x.cos(),
    "tan": vecl_tanf / vecl_tan => |x| x.tan(),
    "asin": vecl_asinf / vecl_asin => |x| x.asin(),
    "acos": vecl_acosf / vecl_acos => |x| x.acos(),
    "atan": vecl_atanf / vecl_atan => |x| x.atan(),
    "sinh": vecl_sinhf / vecl_sinh => |x| x.sinh(),
    "cosh": vecl_coshf / vecl_cosh => |x| x.cosh(),
    "tanh": vecl_tanhf / vecl_tanh => |x| x.tanh(),
    "asinh": vecl_asinhf / vecl_asinh => |x| asinh64(x),
    "acosh": vecl_acoshf / vecl_acosh => |x| acosh64(x),
    "atanh": vecl_atanhf / vecl_atanh => |x| atanh64(x),
    "exp": vecl_expf / vecl_exp => |x| x.exp(),
    "exp2": vecl_exp2f / vecl_exp2 => |x| x.exp2(),
    "exp10": vecl_exp10f / vecl_exp10 => |x| 10f64.powf(x),
    "expm1": vecl_expm1f / vecl_expm1 => |x| x.exp_m1(),
    "log": vecl_logf / vecl_log => |x| x.ln(),
    "log2": vecl_log2f / vecl_log2 => |x| x.log2(),
    "log10": vecl_log10f / vecl_log10 => |x| x.log10(),
    "log1p": vecl_log1pf / vecl_log1p => |x| x.ln_1p(),
    "cbrt": vecl_cbrtf / vecl_cbrt => |x| x.cbrt(),
    "round": vecl_roundf / vecl_round => |x| x.round(),
    "sinpi": vecl_sinpif / vecl_sinpi => |x| trigpi64(x, 0),
    "cospi": vecl_cospif / vecl_cospi => |x| trigpi64(x, 1),
    "tanpi": vecl_tanpif / vecl_tanpi => |x| trigpi64(x, 2),
    "asinpi": vecl_asinpif / vecl_asinpi => |x| x.asin() / PI,
    "acospi": vecl_acospif / vecl_acospi => |x| x.acos() / PI,
    "atanpi": vecl_atanpif / vecl_atanpi => |x| x.atan() / PI,
    "erf": vecl_erff / vecl_erf => |x| erf64(x),
    "erfc": vecl_erfcf / vecl_erfc => |x| erfc64(x),
    "tgamma": vecl_tgammaf / vecl_tgamma => |x| tgamma64(x),
    "lgamma": vecl_lgammaf / vecl_lgamma => |x| lgamma64(x).0,
    "logb": vecl_logbf / vecl_logb => |x| logb64(x),
}

macro_rules! binary_fns {
    ($($cl:literal: $name:ident / $name64:ident => |$x:ident, $y:ident| $e32:expr, $e64:expr),* $(,)?) => {
        $(
            extern "C" fn $name($x: f32, $y: f32) -> f32 { $e32 }
            extern "C" fn $name64($x: f64, $y: f64) -> f64 { $e64 }
        )*
        /// Two-argument functions: (OpenCL name, f32 symbol, f64 symbol).
        pub(crate) const BINARY: &[(&str, &str, &str)] = &[
            $(($cl, stringify!($name), stringify!($name64))),*
        ];
        fn binary_symbols() -> Vec<(&'static str, *const u8)> {
            vec![$((stringify!($name), $name as *const u8), (stringify!($name64), $name64 as *const u8)),*]
        }
    };
}

binary_fns! {
    "pow": vecl_powf / vecl_pow => |x, y| f64::from(x).powf(f64::from(y)) as f32, x.powf(y),
    "powr": vecl_powrf / vecl_powr => |x, y| powr64(f64::from(x), f64::from(y)) as f32, powr64(x, y),
    "atan2": vecl_atan2f / vecl_atan2 => |y, x| f64::from(y).atan2(f64::from(x)) as f32, y.atan2(x),
    "atan2pi": vecl_atan2pif / vecl_atan2pi => |y, x| (f64::from(y).atan2(f64::from(x)) / PI) as f32, y.atan2(x) / PI,
    "hypot": vecl_hypotf / vecl_hypot => |x, y| f64::from(x).hypot(f64::from(y)) as f32, x.hypot(y),
    "fmod": vecl_fmodf / vecl_fmod => |x, y| x % y, x % y,
    "remainder": vecl_remainderf / vecl_remainder => |x, y| remquo32(x, y).0, remquo64(x, y).0,
    "nextafter": vecl_nextafterf / vecl_nextafter => |x, y| nextafter32(x, y), nextafter64(x, y),
}

/// `powr`: `pow` for x ≥ 0 only, with NaN for the undefined corners.
fn powr64(x: f64, y: f64) -> f64 {
    let bad = x < 0.0
        || x.is_nan()
        || y.is_nan()
        || (x == 0.0 && y == 0.0)
        || (x.is_infinite() && y == 0.0)
        || (x == 1.0 && y.is_infinite());
    if bad {
        f64::NAN
    } else {
        x.abs().powf(y)
    }
}

/// `rootn`: `|x|^(1/n)`, corrected for the rounding of `1/n`. With
/// `y = fl(1/n)` and `d = 1/n - y` (exact enough from one FMA), the root
/// is `|x|^y · e^(d·ln|x|) ≈ p + p·d·ln|x|`: without the correction,
/// `y`'s error of up to half an ULP is multiplied by `ln|x|` (up to 710),
/// 94 ULPs off at `DBL_MAX`; with it, within 1 ULP.
fn rootn64(x: f64, n: i32) -> f64 {
    if n == 0 || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    let a = x.abs();
    let r = match n {
        1 => a,
        2 => a.sqrt(),
        3 => a.cbrt(),
        -1 => 1.0 / a,
        _ => {
            let nf = f64::from(n);
            let y = 1.0 / nf;
            let p = a.powf(y);
            if a.is_finite() && a != 0.0 {
                let d = (-nf).mul_add(y, 1.0) / nf;
                p.mul_add(d * a.ln(), p)
            } else {
                p
            }
        }
    };
    if x.is_sign_negative() && n % 2 != 0 {
        -r
    } else {
        r
    }
}

extern "C" fn vecl_pownf(x: f32, n: i32) -> f32 {
    f64::from(x).powf(f64::from(n)) as f32
}
extern "C" fn vecl_pown(x: f64, n: i32) -> f64 {
    x.powf(f64::from(n))
}
extern "C" fn vecl_rootnf(x: f32, n: i32) -> f32 {
    rootn64(f64::from(x), n) as f32
}
extern "C" fn vecl_rootn(x: f64, n: i32) -> f64 {
    rootn64(x, n)
}
extern "C" fn vecl_ldexpf(x: f32, n: i32) -> f32 {
    ldexp32(x, n)
}
extern "C" fn vecl_ldexp(x: f64, n: i32) -> f64 {
    ldexp64(x, n)
}
extern "C" fn vecl_ilogbf(x: f32) -> i32 {
    ilogb32(x)
}
extern "C" fn vecl_ilogb(x: f64) -> i32 {
    ilogb64(x)
}
extern "C" fn vecl_frexp_mantf(x: f32) -> f32 {
    frexp64(f64::from(x)).0 as f32
}
extern "C" fn vecl_frexp_mant(x: f64) -> f64 {
    frexp64(x).0
}
extern "C" fn vecl_frexp_expf(x: f32) -> i32 {
    frexp64(f64::from(x)).1
}
extern "C" fn vecl_frexp_exp(x: f64) -> i32 {
    frexp64(x).1
}
extern "C" fn vecl_remquo_quof(x: f32, y: f32) -> i32 {
    remquo32(x, y).1
}
extern "C" fn vecl_remquo_quo(x: f64, y: f64) -> i32 {
    remquo64(x, y).1
}
extern "C" fn vecl_lgamma_signf(x: f32) -> i32 {
    lgamma64(f64::from(x)).1
}
extern "C" fn vecl_lgamma_sign(x: f64) -> i32 {
    lgamma64(x).1
}
extern "C" fn vecl_i64_to_f32(x: i64, mode: i32) -> f32 {
    int_to_f32(i128::from(x), mode)
}
extern "C" fn vecl_u64_to_f32(x: u64, mode: i32) -> f32 {
    int_to_f32(i128::from(x), mode)
}
extern "C" fn vecl_i64_to_f64(x: i64, mode: i32) -> f64 {
    int_to_f64(i128::from(x), mode)
}
extern "C" fn vecl_u64_to_f64(x: u64, mode: i32) -> f64 {
    int_to_f64(i128::from(x), mode)
}
extern "C" fn vecl_f64_to_f32(x: f64, mode: i32) -> f32 {
    f64_to_f32(x, mode)
}
extern "C" fn vecl_f32_to_half(x: f32, mode: i32) -> u32 {
    u32::from(to_half(f64::from(x), mode))
}
extern "C" fn vecl_f64_to_half(x: f64, mode: i32) -> u32 {
    u32::from(to_half(x, mode))
}
extern "C" fn vecl_half_to_f32(h: u32) -> f32 {
    from_half(h as u16)
}
extern "C" fn vecl_add_sat_i64(a: i64, b: i64) -> i64 {
    a.saturating_add(b)
}
extern "C" fn vecl_add_sat_u64(a: u64, b: u64) -> u64 {
    a.saturating_add(b)
}
extern "C" fn vecl_sub_sat_i64(a: i64, b: i64) -> i64 {
    a.saturating_sub(b)
}
extern "C" fn vecl_sub_sat_u64(a: u64, b: u64) -> u64 {
    a.saturating_sub(b)
}
extern "C" fn vecl_abs_diff_i64(a: i64, b: i64) -> u64 {
    a.abs_diff(b)
}
extern "C" fn vecl_abs_diff_u64(a: u64, b: u64) -> u64 {
    a.abs_diff(b)
}
extern "C" fn vecl_mad_sat_i64(a: i64, b: i64, c: i64) -> i64 {
    let r = i128::from(a) * i128::from(b) + i128::from(c);
    r.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}
extern "C" fn vecl_mad_sat_u64(a: u64, b: u64, c: u64) -> u64 {
    let r = u128::from(a) * u128::from(b) + u128::from(c);
    r.min(u128::from(u64::MAX)) as u64
}

/// Copies `n` bytes from `src` to `dst` when `active` is non-zero.
///
/// # Safety
/// When `active` is non-zero, both ranges must be valid and not overlap.
unsafe extern "C" fn vecl_copy_if(dst: *mut u8, src: *const u8, n: u64, active: i32) {
    if active != 0 {
        // SAFETY: the caller (generated code for an IR `Copy`, whose operands
        // are valid, non-overlapping objects of `n` bytes) guarantees this.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, n as usize) }
    }
}

/// Copies `n` elements of `elem` bytes, element `k` from
/// `src + k·src_stride·elem` to `dst + k·dst_stride·elem`
/// (`async_work_group_strided_copy`).
///
/// # Safety
/// Every addressed element must be valid, and source and destination
/// elements must not overlap.
unsafe extern "C" fn vecl_strided_copy(
    dst: *mut u8,
    src: *const u8,
    n: u64,
    elem: u64,
    dst_stride: u64,
    src_stride: u64,
) {
    if dst_stride == 1 && src_stride == 1 {
        // SAFETY: the kernel's arguments address `n` valid elements of
        // distinct buffers; with unit strides they are one run of
        // `n * elem` bytes on each side.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, (n * elem) as usize) };
        return;
    }
    for k in 0..n {
        let (d, s) = (
            (k * dst_stride * elem) as usize,
            (k * src_stride * elem) as usize,
        );
        // SAFETY: the kernel's arguments address `n` valid elements of
        // distinct buffers (one __local, one __global), as the caller states.
        unsafe { std::ptr::copy_nonoverlapping(src.add(s), dst.add(d), elem as usize) }
    }
}

/// The address of symbol `name` the generated code imports, from one
/// table built on first use (a JIT module asks only for the symbols its
/// code calls, so no module copies the whole table).
pub(crate) fn lookup_symbol(name: &str) -> Option<*const u8> {
    static TABLE: std::sync::OnceLock<std::collections::HashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    TABLE
        .get_or_init(|| {
            symbols()
                .into_iter()
                .map(|(n, p)| (n, p as usize))
                .collect()
        })
        .get(name)
        .map(|&p| p as *const u8)
}

/// Every symbol the generated code may import.
fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut v = unary_symbols();
    v.extend(binary_symbols());
    v.extend(crate::printf::symbols());
    v.extend(crate::image::symbols());
    v.extend(crate::sub_group::symbols());
    v.extend([
        ("vecl_pownf", vecl_pownf as *const u8),
        ("vecl_pown", vecl_pown as *const u8),
        ("vecl_rootnf", vecl_rootnf as *const u8),
        ("vecl_rootn", vecl_rootn as *const u8),
        ("vecl_ldexpf", vecl_ldexpf as *const u8),
        ("vecl_ldexp", vecl_ldexp as *const u8),
        ("vecl_ilogbf", vecl_ilogbf as *const u8),
        ("vecl_ilogb", vecl_ilogb as *const u8),
        ("vecl_frexp_mantf", vecl_frexp_mantf as *const u8),
        ("vecl_frexp_mant", vecl_frexp_mant as *const u8),
        ("vecl_frexp_expf", vecl_frexp_expf as *const u8),
        ("vecl_frexp_exp", vecl_frexp_exp as *const u8),
        ("vecl_remquo_quof", vecl_remquo_quof as *const u8),
        ("vecl_remquo_quo", vecl_remquo_quo as *const u8),
        ("vecl_lgamma_signf", vecl_lgamma_signf as *const u8),
        ("vecl_lgamma_sign", vecl_lgamma_sign as *const u8),
        ("vecl_i64_to_f32", vecl_i64_to_f32 as *const u8),
        ("vecl_u64_to_f32", vecl_u64_to_f32 as *const u8),
        ("vecl_i64_to_f64", vecl_i64_to_f64 as *const u8),
        ("vecl_u64_to_f64", vecl_u64_to_f64 as *const u8),
        ("vecl_f64_to_f32", vecl_f64_to_f32 as *const u8),
        ("vecl_f32_to_half", vecl_f32_to_half as *const u8),
        ("vecl_f64_to_half", vecl_f64_to_half as *const u8),
        ("vecl_half_to_f32", vecl_half_to_f32 as *const u8),
        ("vecl_add_sat_i64", vecl_add_sat_i64 as *const u8),
        ("vecl_add_sat_u64", vecl_add_sat_u64 as *const u8),
        ("vecl_sub_sat_i64", vecl_sub_sat_i64 as *const u8),
        ("vecl_sub_sat_u64", vecl_sub_sat_u64 as *const u8),
        ("vecl_abs_diff_i64", vecl_abs_diff_i64 as *const u8),
        ("vecl_abs_diff_u64", vecl_abs_diff_u64 as *const u8),
        ("vecl_mad_sat_i64", vecl_mad_sat_i64 as *const u8),
        ("vecl_mad_sat_u64", vecl_mad_sat_u64 as *const u8),
        ("vecl_copy_if", vecl_copy_if as *const u8),
        ("vecl_strided_copy", vecl_strided_copy as *const u8),
    ]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trip_and_modes() {
        for h in 0u16..=0xffff {
            let f = from_half(h);
            if f.is_nan() {
                continue;
            }
            for mode in [RTE, RTZ, RTP, RTN] {
                assert_eq!(to_half(f64::from(f), mode), h, "h={h:#x} mode={mode}");
            }
        }
        // 1 + 2^-11 is halfway between 1 and the next half.
        let x = 1.0 + 2f64.powi(-11);
        assert_eq!(to_half(x, RTE), 0x3c00);
        assert_eq!(to_half(x, RTP), 0x3c01);
        assert_eq!(to_half(-x, RTN), 0xbc01);
        assert_eq!(to_half(-x, RTZ), 0xbc00);
        assert_eq!(to_half(1e6, RTZ), 0x7bff);
        assert_eq!(to_half(1e6, RTE), 0x7c00);
    }

    #[test]
    fn remquo_and_ldexp_are_exact() {
        assert_eq!(remquo64(5.0, 2.0), (1.0, 2));
        assert_eq!(remquo64(7.0, 2.0), (-1.0, 4));
        assert_eq!(remquo64(-7.0, 2.0), (1.0, -4));
        // 1e30f32 is an integer; its remainder mod 3 in {-1, 0, 1}.
        let k = (1e30f32 as i128 % 3) as i32;
        let want = if k == 2 { -1 } else { k };
        assert_eq!(remquo32(1e30, 3.0).0, want as f32);
        assert_eq!(ldexp64(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp64(f64::MAX, -2000) * 0.0, 0.0);
        assert_eq!(ldexp64(3.0, 1), 6.0);
        assert_eq!(frexp64(8.0), (0.5, 4));
        assert_eq!(ilogb64(f64::from_bits(1)), -1074);
    }
}

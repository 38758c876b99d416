//! Float math builtins: computed in `f64` from the exact inputs and rounded
//! once to the result type, so the reference is at least as accurate as any
//! OpenCL ULP bound (for `float`). `fma`, `mad` and `nextafter` work in the
//! result's own precision, as their definitions need. The `native_` and
//! `half_` forms are computed like the full-precision ones.
//!
//! OpenCL's rules that differ from a naive formula: `fmin`/`fmax` return
//! the other operand when one is NaN; `sign(±0)` is ±0 and `sign(NaN)` 0;
//! `powr` is NaN for a negative base; `rootn(x, 0)` is NaN.

use crate::types::{Scalar, Type};

use super::super::scalar;
use super::{width, Arg, BuiltinError};
use crate::builtin::Builtin;

/// `None` when `name` is not a float math builtin.
pub fn call(name: Builtin, args: &[Arg<'_>], ret: &Type) -> Option<Result<Vec<u64>, BuiltinError>> {
    let base = name.math_base();
    let s = ret.scalar()?;
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(BuiltinError::BadArgs(format!(
                "takes {n} arguments, {} given",
                args.len()
            )))
        }
    };
    macro_rules! map {
        ($n:expr, |$x:ident| $body:expr) => {{
            if let Err(e) = arity($n) {
                return Some(Err(e));
            }
            Some(Ok(map(args, ret, |$x: &[f64]| $body)))
        }};
    }
    match base {
        Builtin::Sqrt => map!(1, |x| x[0].sqrt()),
        Builtin::Rsqrt => map!(1, |x| 1.0 / x[0].sqrt()),
        Builtin::NativeRecip | Builtin::HalfRecip => map!(1, |x| 1.0 / x[0]),
        Builtin::NativeDivide | Builtin::HalfDivide => map!(2, |x| x[0] / x[1]),
        Builtin::Fabs => map!(1, |x| x[0].abs()),
        Builtin::Floor => map!(1, |x| x[0].floor()),
        Builtin::Ceil => map!(1, |x| x[0].ceil()),
        Builtin::Trunc => map!(1, |x| x[0].trunc()),
        Builtin::Round => map!(1, |x| x[0].round()),
        Builtin::Rint => map!(1, |x| x[0].round_ties_even()),
        Builtin::Exp => map!(1, |x| x[0].exp()),
        Builtin::Exp2 => map!(1, |x| x[0].exp2()),
        Builtin::Exp10 => map!(1, |x| libm::exp10(x[0])),
        Builtin::Expm1 => map!(1, |x| x[0].exp_m1()),
        Builtin::Log => map!(1, |x| x[0].ln()),
        Builtin::Log2 => map!(1, |x| x[0].log2()),
        Builtin::Log10 => map!(1, |x| x[0].log10()),
        Builtin::Log1p => map!(1, |x| x[0].ln_1p()),
        Builtin::Logb => map!(1, |x| logb(x[0])),
        Builtin::Sin => map!(1, |x| x[0].sin()),
        Builtin::Cos => map!(1, |x| x[0].cos()),
        Builtin::Tan => map!(1, |x| x[0].tan()),
        Builtin::Asin => map!(1, |x| x[0].asin()),
        Builtin::Acos => map!(1, |x| x[0].acos()),
        Builtin::Atan => map!(1, |x| x[0].atan()),
        Builtin::Sinh => map!(1, |x| x[0].sinh()),
        Builtin::Cosh => map!(1, |x| x[0].cosh()),
        Builtin::Tanh => map!(1, |x| x[0].tanh()),
        Builtin::Asinh => map!(1, |x| x[0].asinh()),
        Builtin::Acosh => map!(1, |x| x[0].acosh()),
        Builtin::Atanh => map!(1, |x| x[0].atanh()),
        Builtin::Sinpi => map!(1, |x| sinpi(x[0])),
        Builtin::Cospi => map!(1, |x| cospi(x[0])),
        Builtin::Tanpi => map!(1, |x| sinpi(x[0]) / cospi(x[0])),
        Builtin::Asinpi => map!(1, |x| x[0].asin() / std::f64::consts::PI),
        Builtin::Acospi => map!(1, |x| x[0].acos() / std::f64::consts::PI),
        Builtin::Atanpi => map!(1, |x| x[0].atan() / std::f64::consts::PI),
        Builtin::Atan2pi => map!(2, |x| x[0].atan2(x[1]) / std::f64::consts::PI),
        Builtin::Cbrt => map!(1, |x| x[0].cbrt()),
        Builtin::Erf => map!(1, |x| libm::erf(x[0])),
        Builtin::Erfc => map!(1, |x| libm::erfc(x[0])),
        Builtin::Tgamma => map!(1, |x| libm::tgamma(x[0])),
        Builtin::Lgamma => map!(1, |x| libm::lgamma(x[0])),
        Builtin::Degrees => map!(1, |x| x[0] * (180.0 / std::f64::consts::PI)),
        Builtin::Radians => map!(1, |x| x[0] * (std::f64::consts::PI / 180.0)),
        Builtin::Sign => map!(1, |x| sign(x[0])),
        Builtin::Pow => map!(2, |x| x[0].powf(x[1])),
        Builtin::Powr => map!(2, |x| powr(x[0], x[1])),
        Builtin::Pown => map!(2, |x| x[0].powf(x[1])),
        Builtin::Rootn => map!(2, |x| rootn(x[0], x[1])),
        Builtin::Ldexp => map!(2, |x| ldexp(x[0], x[1])),
        Builtin::Fmod => map!(2, |x| x[0] % x[1]),
        Builtin::Remainder => map!(2, |x| libm::remainder(x[0], x[1])),
        Builtin::Copysign => map!(2, |x| x[0].copysign(x[1])),
        Builtin::Hypot => map!(2, |x| x[0].hypot(x[1])),
        Builtin::Atan2 => map!(2, |x| x[0].atan2(x[1])),
        // Rust's min/max return the other operand when one is NaN, as OpenCL's fmin/fmax do.
        Builtin::Fmin | Builtin::Min => map!(2, |x| x[0].min(x[1])),
        Builtin::Fmax | Builtin::Max => map!(2, |x| x[0].max(x[1])),
        Builtin::Fdim => map!(2, |x| if x[0].is_nan() || x[1].is_nan() {
            f64::NAN
        } else {
            (x[0] - x[1]).max(0.0)
        }),
        Builtin::Maxmag => map!(2, |x| maxmag(x[0], x[1])),
        Builtin::Minmag => map!(2, |x| minmag(x[0], x[1])),
        Builtin::Step => map!(2, |x| if x[1] < x[0] { 0.0 } else { 1.0 }),
        Builtin::Clamp => map!(3, |x| x[0].max(x[1]).min(x[2])),
        Builtin::Mix => map!(3, |x| x[0] + (x[1] - x[0]) * x[2]),
        Builtin::Smoothstep => map!(3, |x| {
            let t = ((x[2] - x[0]) / (x[1] - x[0])).clamp(0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        }),
        // `contract_fma`: `a * b + c` of one source expression, contracted
        // (the front end's; fused, as code generators with FMA do).
        Builtin::Fma | Builtin::Mad | Builtin::ContractFma => {
            if let Err(e) = arity(3) {
                return Some(Err(e));
            }
            Some(Ok(fma(args, ret, s, base != Builtin::Mad)))
        }
        Builtin::Nextafter => {
            if let Err(e) = arity(2) {
                return Some(Err(e));
            }
            Some(Ok(nextafter(args, ret, s)))
        }
        Builtin::Ilogb => {
            if let Err(e) = arity(1) {
                return Some(Err(e));
            }
            Some(Ok((0..width(ret))
                .map(|i| scalar::from_int(s, i128::from(ilogb(number(&args[0], i)))))
                .collect()))
        }
        Builtin::Nan => Some(Ok((0..width(ret))
            .map(|i| {
                let code = args.first().map_or(0, |a| a.lane(i));
                match s {
                    Scalar::F64 => 0x7ff8_0000_0000_0000 | (code & 0x7_ffff_ffff_ffff),
                    Scalar::F16 => 0x7e00 | (code & 0x1ff),
                    _ => 0x7fc0_0000 | (code & 0x3f_ffff),
                }
            })
            .collect())),
        _ => None,
    }
}

/// Component `i` of an argument as a number (ints by value).
fn number(a: &Arg<'_>, i: usize) -> f64 {
    let s = a.elem();
    if s.is_float() {
        scalar::float(s, a.lane(i))
    } else {
        scalar::int(s, a.lane(i)) as f64
    }
}

/// Applies `f` to each component and rounds to the result type.
fn map(args: &[Arg<'_>], ret: &Type, f: impl Fn(&[f64]) -> f64) -> Vec<u64> {
    let s = ret.scalar().unwrap_or(Scalar::F32);
    (0..width(ret))
        .map(|i| {
            let xs: Vec<f64> = args.iter().map(|a| number(a, i)).collect();
            scalar::from_float(s, f(&xs))
        })
        .collect()
}

fn fma(args: &[Arg<'_>], ret: &Type, s: Scalar, fused: bool) -> Vec<u64> {
    (0..width(ret))
        .map(|i| {
            let (a, b, c) = (
                number(&args[0], i),
                number(&args[1], i),
                number(&args[2], i),
            );
            match s {
                Scalar::F32 => {
                    let (a, b, c) = (a as f32, b as f32, c as f32);
                    scalar::of_f32(if fused { a.mul_add(b, c) } else { a * b + c })
                }
                Scalar::F64 if fused => a.mul_add(b, c).to_bits(),
                Scalar::F64 => (a * b + c).to_bits(),
                _ => scalar::from_float(s, a.mul_add(b, c)),
            }
        })
        .collect()
}

fn nextafter(args: &[Arg<'_>], ret: &Type, s: Scalar) -> Vec<u64> {
    (0..width(ret))
        .map(|i| {
            let (x, y) = (number(&args[0], i), number(&args[1], i));
            if x.is_nan() || y.is_nan() {
                return scalar::from_float(s, f64::NAN);
            }
            match s {
                Scalar::F32 => {
                    let x32 = x as f32;
                    scalar::of_f32(match x.partial_cmp(&y) {
                        Some(std::cmp::Ordering::Less) => x32.next_up(),
                        Some(std::cmp::Ordering::Greater) => x32.next_down(),
                        _ => y as f32,
                    })
                }
                // One step of the half's own spacing: by its bits, which
                // order like the values within a sign.
                Scalar::F16 => match x.partial_cmp(&y) {
                    Some(std::cmp::Ordering::Equal) | None => scalar::from_float(s, y),
                    Some(o) => {
                        let h = scalar::from_float(s, x) as u16;
                        let up = o == std::cmp::Ordering::Less;
                        u64::from(match (h & 0x7fff, h & 0x8000 != 0) {
                            (0, _) if up => 0x0001,
                            (0, _) => 0x8001,
                            (_, neg) if up != neg => h + 1,
                            _ => h - 1,
                        })
                    }
                },
                _ => scalar::from_float(
                    s,
                    match x.partial_cmp(&y) {
                        Some(std::cmp::Ordering::Less) => x.next_up(),
                        Some(std::cmp::Ordering::Greater) => x.next_down(),
                        _ => y,
                    },
                ),
            }
        })
        .collect()
}

/// sin(πx), exact at integers and half-integers.
fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x % 2.0;
    if r == r.trunc() {
        return 0.0f64.copysign(x);
    }
    if (r * 2.0).fract() == 0.0 {
        // ±0.5 or ±1.5
        return if r.abs() == 0.5 {
            1.0f64.copysign(r)
        } else {
            -(1.0f64.copysign(r))
        };
    }
    (std::f64::consts::PI * r).sin()
}

/// cos(πx), exact at integers and half-integers.
fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x.abs() % 2.0;
    if r == 0.0 {
        1.0
    } else if r == 1.0 {
        -1.0
    } else if r == 0.5 || r == 1.5 {
        0.0
    } else {
        (std::f64::consts::PI * r).cos()
    }
}

fn sign(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else if x == 0.0 {
        x
    } else {
        1.0f64.copysign(x)
    }
}

fn powr(x: f64, y: f64) -> f64 {
    if x < 0.0
        || (x == 0.0 && y == 0.0)
        || (x.is_infinite() && y == 0.0)
        || (x == 1.0 && y.is_infinite())
    {
        f64::NAN
    } else {
        x.powf(y)
    }
}

/// `|x|^(1/n)` with the rounding of `1/n` corrected: for `y = fl(1/n)` and
/// `d = 1/n - y`, the root is `|x|^y · e^(d·ln|x|) ≈ p + p·d·ln|x|`.
/// Uncorrected, `y`'s error is multiplied by `ln|x|` (up to 710): 94 ULPs
/// at `DBL_MAX`, which matters for `double`.
fn rootn(x: f64, n: f64) -> f64 {
    let n = n as i64;
    if n == 0 || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    let a = x.abs();
    let r = match n {
        1 => a,
        2 => a.sqrt(),
        3 => a.cbrt(),
        _ => {
            let nf = n as f64;
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
    // rootn(-0, odd n) is -0 or -inf.
    if x.is_sign_negative() && n % 2 != 0 {
        -r
    } else {
        r
    }
}

fn ldexp(x: f64, e: f64) -> f64 {
    // Scale in steps so that neither factor overflows on its own.
    let mut e = e.clamp(-3000.0, 3000.0) as i32;
    let mut x = x;
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

fn ilogb(x: f64) -> i32 {
    if x == 0.0 {
        i32::MIN
    } else if x.is_nan() || x.is_infinite() {
        i32::MAX
    } else {
        libm::ilogb(x)
    }
}

fn logb(x: f64) -> f64 {
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if x.is_infinite() {
        f64::INFINITY
    } else if x.is_nan() {
        x
    } else {
        f64::from(libm::ilogb(x))
    }
}

/// OpenCL `maxmag`: the argument of greater magnitude, `fmax` on a tie.
fn maxmag(x: f64, y: f64) -> f64 {
    if x.abs() > y.abs() {
        x
    } else if y.abs() > x.abs() {
        y
    } else {
        x.max(y)
    }
}

/// OpenCL `minmag`: the argument of smaller magnitude, `fmin` on a tie.
fn minmag(x: f64, y: f64) -> f64 {
    if x.abs() < y.abs() {
        x
    } else if y.abs() < x.abs() {
        y
    } else {
        x.min(y)
    }
}

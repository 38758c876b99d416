//! Numeric conversions (`Inst::Convert`, `convert_T[_sat][_rtX]`) with
//! OpenCL's exact rounding and saturation rules, and `half` ↔ `double` by
//! bit manipulation.
//!
//! Each conversion rounds once: float → int rounds in the float domain
//! (exact), then clamps; int → float takes Rust's round-to-nearest-even
//! result and steps one ulp when another direction is asked and the
//! nearest value lies on the wrong side; double → float does the same;
//! anything → half goes through an exact `f64` and one rounding here.
//!
//! Out-of-range float → int without `_sat` is undefined in OpenCL; vecl's
//! reference gives the saturated value (NaN → 0), the same as with `_sat`.

use crate::module::Rounding;
use crate::types::Scalar;

use super::scalar;

/// A rounding direction for the result of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundDir {
    NearestEven,
    TowardZero,
    Up,
    Down,
}

impl RoundDir {
    /// The direction `rounding` means for a conversion into `dst`.
    fn of(rounding: Rounding, dst: Scalar) -> RoundDir {
        match rounding {
            Rounding::Default if dst.is_float() => RoundDir::NearestEven,
            Rounding::Default | Rounding::Rtz => RoundDir::TowardZero,
            Rounding::Rte => RoundDir::NearestEven,
            Rounding::Rtp => RoundDir::Up,
            Rounding::Rtn => RoundDir::Down,
        }
    }
}

/// Converts one lane from `src` to `dst`.
pub fn convert(bits: u64, src: Scalar, dst: Scalar, saturate: bool, rounding: Rounding) -> u64 {
    let dir = RoundDir::of(rounding, dst);
    if dst == Scalar::Bool {
        return u64::from(if src.is_float() {
            scalar::float(src, bits) != 0.0
        } else {
            scalar::mask(src, bits) != 0
        });
    }
    match (src.is_float(), dst.is_float()) {
        (false, false) => {
            let v = scalar::int(src, bits);
            let v = if saturate {
                let (lo, hi) = scalar::int_range(dst);
                v.clamp(lo, hi)
            } else {
                v
            };
            scalar::from_int(dst, v)
        }
        (true, false) => float_to_int(scalar::float(src, bits), dst, dir),
        (false, true) => int_to_float(scalar::int(src, bits), dst, dir),
        (true, true) => f64_to_float(scalar::float(src, bits), dst, dir),
    }
}

fn round_f64(x: f64, dir: RoundDir) -> f64 {
    match dir {
        RoundDir::NearestEven => x.round_ties_even(),
        RoundDir::TowardZero => x.trunc(),
        RoundDir::Up => x.ceil(),
        RoundDir::Down => x.floor(),
    }
}

fn float_to_int(x: f64, dst: Scalar, dir: RoundDir) -> u64 {
    if x.is_nan() {
        return 0;
    }
    // `as i128` saturates at i128's range, which contains every integer type's.
    let (lo, hi) = scalar::int_range(dst);
    scalar::from_int(dst, (round_f64(x, dir) as i128).clamp(lo, hi))
}

/// Moves a nearest-even result one step in `dir` when it lies on the wrong
/// side of the exact value. `cmp` is `result.cmp(exact)`.
fn needs_step(cmp: std::cmp::Ordering, exact_negative: bool, dir: RoundDir) -> Option<bool> {
    use std::cmp::Ordering::*;
    // Some(true): step down; Some(false): step up.
    match (dir, cmp) {
        (RoundDir::Up, Less) => Some(false),
        (RoundDir::Down, Greater) => Some(true),
        (RoundDir::TowardZero, Greater) if !exact_negative => Some(true),
        (RoundDir::TowardZero, Less) if exact_negative => Some(false),
        _ => None,
    }
}

fn int_to_float(v: i128, dst: Scalar, dir: RoundDir) -> u64 {
    match dst {
        Scalar::F32 => {
            let r = v as f32;
            let r = match needs_step((r as i128).cmp(&v), v < 0, dir) {
                Some(true) => r.next_down(),
                Some(false) => r.next_up(),
                None => r,
            };
            scalar::of_f32(r)
        }
        Scalar::F64 => {
            let r = v as f64;
            let r = match needs_step((r as i128).cmp(&v), v < 0, dir) {
                Some(true) => r.next_down(),
                Some(false) => r.next_up(),
                None => r,
            };
            r.to_bits()
        }
        // Exact below 2^53; anything larger overflows half in every direction.
        _ => u64::from(f64_to_f16(v as f64, dir)),
    }
}

fn f64_to_float(x: f64, dst: Scalar, dir: RoundDir) -> u64 {
    match dst {
        Scalar::F64 => x.to_bits(),
        Scalar::F32 => {
            let r = x as f32;
            if x.is_nan() {
                return scalar::of_f32(r);
            }
            let r = match f64::from(r)
                .partial_cmp(&x)
                .and_then(|c| needs_step(c, x < 0.0, dir))
            {
                Some(true) => r.next_down(),
                Some(false) => r.next_up(),
                None => r,
            };
            scalar::of_f32(r)
        }
        _ => u64::from(f64_to_f16(x, dir)),
    }
}

/// `half` bits → the exact `f64`.
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let mant = f64::from(h & 0x3ff);
    match exp {
        0 => sign * mant * 2f64.powi(-24),
        31 if mant == 0.0 => sign * f64::INFINITY,
        31 => {
            // Keep the payload in the top mantissa bits, as hardware does.
            let bits = (u64::from(h & 0x8000) << 48)
                | 0x7ff0_0000_0000_0000
                | (u64::from(h & 0x3ff) << 42);
            f64::from_bits(bits | (1 << 51))
        }
        _ => sign * (1.0 + mant / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// An `f64` → `half` bits, rounded once in direction `dir`.
pub fn f64_to_f16(x: f64, dir: RoundDir) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00 | ((x.to_bits() >> 42) as u16 & 0x1ff);
    }
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    let neg = sign != 0;
    let away = match dir {
        RoundDir::Up => !neg,
        RoundDir::Down => neg,
        _ => false,
    };
    let max_finite = sign | 0x7bff;
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // Exponent of `a` (floor(log2 a)); f64 subnormals are far below half's range.
    let e = ((a.to_bits() >> 52) as i32) - 1023;
    // The unit in the last place of the result: 2^q.
    let q = e.max(-14) - 10;
    let scaled = a / f64::from_bits(((q + 1023) as u64) << 52);
    let m = match dir {
        RoundDir::NearestEven => scaled.round_ties_even(),
        RoundDir::TowardZero => scaled.trunc(),
        _ if away => scaled.ceil(),
        _ => scaled.trunc(),
    } as u32;
    let (m, q) = if m >= 2048 { (m / 2, q + 1) } else { (m, q) };
    if m < 1024 {
        // Subnormal (q == -24) or zero after rounding.
        return sign | m as u16;
    }
    let exp_field = q + 25;
    if exp_field >= 31 {
        return match dir {
            RoundDir::NearestEven => sign | 0x7c00,
            _ if away => sign | 0x7c00,
            _ => max_finite,
        };
    }
    sign | ((exp_field as u16) << 10) | (m - 1024) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trips_every_finite_value() {
        for h in 0u16..=0xffff {
            if (h >> 10) & 0x1f == 31 {
                continue;
            }
            assert_eq!(
                f64_to_f16(f16_to_f64(h), RoundDir::NearestEven),
                h,
                "{h:#x}"
            );
        }
    }

    #[test]
    fn half_rounding_directions() {
        // 1 + 2^-11 lies halfway between 1.0 (0x3c00) and the next half (0x3c01).
        let x = 1.0 + 2f64.powi(-11);
        assert_eq!(f64_to_f16(x, RoundDir::NearestEven), 0x3c00);
        assert_eq!(f64_to_f16(x, RoundDir::Up), 0x3c01);
        assert_eq!(f64_to_f16(x, RoundDir::Down), 0x3c00);
        assert_eq!(f64_to_f16(-x, RoundDir::Down), 0xbc01);
        assert_eq!(f64_to_f16(-x, RoundDir::TowardZero), 0xbc00);
        assert_eq!(f64_to_f16(70000.0, RoundDir::NearestEven), 0x7c00);
        assert_eq!(f64_to_f16(70000.0, RoundDir::TowardZero), 0x7bff);
        assert_eq!(f64_to_f16(-70000.0, RoundDir::Up), 0xfbff);
        assert_eq!(f64_to_f16(2f64.powi(-25), RoundDir::NearestEven), 0);
        assert_eq!(f64_to_f16(2f64.powi(-25), RoundDir::Up), 1);
        assert_eq!(f64_to_f16(65504.0, RoundDir::NearestEven), 0x7bff);
    }
}

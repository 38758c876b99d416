//! How the interpreter holds one component of a value: a `u64` lane.
//!
//! A lane holds the value's bit pattern zero-extended to 64 bits — integers
//! masked to their width, bool as 0/1, `half` as its 16 IEEE bits, `float`
//! as its 32 bits, `double` as its 64 — exactly the encoding of
//! `Inst::Const`. These functions read lanes as numbers and write numbers
//! back as lanes.

use crate::types::Scalar;

use super::convert;

/// Keeps the low `bits()` bits of a lane.
pub fn mask(s: Scalar, bits: u64) -> u64 {
    match s.bits() {
        64 => bits,
        n => bits & ((1u64 << n) - 1),
    }
}

/// An integer (or bool) lane as a number, sign-extended for signed types.
pub fn int(s: Scalar, bits: u64) -> i128 {
    let bits = mask(s, bits);
    if s.is_signed() && !s.is_float() {
        let shift = 64 - s.bits();
        i128::from(((bits << shift) as i64) >> shift)
    } else {
        i128::from(bits)
    }
}

/// A number as a lane of integer type `s`, wrapping modulo 2^width.
pub fn from_int(s: Scalar, v: i128) -> u64 {
    if s == Scalar::Bool {
        return u64::from(v != 0);
    }
    mask(s, v as u64)
}

/// The smallest and largest values of integer type `s`.
pub fn int_range(s: Scalar) -> (i128, i128) {
    match s {
        Scalar::Bool => (0, 1),
        _ if s.is_signed() => {
            let b = s.bits() - 1;
            (-(1i128 << b), (1i128 << b) - 1)
        }
        _ => (0, (1i128 << s.bits()) - 1),
    }
}

/// A float lane as `f64` (exact for every float type).
pub fn float(s: Scalar, bits: u64) -> f64 {
    match s {
        Scalar::F16 => convert::f16_to_f64(bits as u16),
        Scalar::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// An `f64` as a lane of float type `s`, rounded to nearest even.
pub fn from_float(s: Scalar, v: f64) -> u64 {
    match s {
        Scalar::F16 => u64::from(convert::f64_to_f16(v, convert::RoundDir::NearestEven)),
        Scalar::F32 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    }
}

pub fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

pub fn of_f32(v: f32) -> u64 {
    u64::from(v.to_bits())
}

/// Whether the most significant bit of the lane's width is set (the test
/// `select`, `any` and `all` apply to vector components).
pub fn msb(s: Scalar, bits: u64) -> bool {
    (mask(s, bits) >> (s.bits() - 1)) & 1 == 1
}

/// The "true" of a comparison-like builtin: -1 (all ones) for vector
/// results, 1 for scalar results.
pub fn truth(s: Scalar, vector: bool, t: bool) -> u64 {
    match (t, vector) {
        (false, _) => 0,
        (true, true) => mask(s, u64::MAX),
        (true, false) => from_int(s, 1),
    }
}

//! Per-lane semantics of `Unary`, `Binary` and `Cmp`, as `module.rs`
//! defines them: wrapping integer arithmetic, division by zero giving 0,
//! shift amounts modulo the width, IEEE float arithmetic in the operand's
//! own precision (f32 with Rust's `f32`, so every result is correctly
//! rounded), ordered float comparisons except `Ne`.
//!
//! `half` (`cl_khr_fp16`) is computed in `f32` and rounded back to `half`
//! once. For `+ − × ÷` this is the correctly rounded half result: `f32`
//! carries 24 significand bits, at least 2·11 + 2, and a format that wide
//! rounds the exact result of one such operation on 11-bit operands so
//! that rounding it again to 11 bits gives the same value as rounding the
//! exact result once (Figueroa's double-rounding condition).

use crate::module::{BinaryOp, CmpOp, UnaryOp};
use crate::types::Scalar;

use super::scalar;

/// `None` when the operation does not exist for the type (bitwise ops on
/// floats).
pub fn unary(op: UnaryOp, s: Scalar, a: u64) -> Option<u64> {
    Some(match (op, s) {
        (UnaryOp::Not, Scalar::Bool) => (a & 1) ^ 1,
        (UnaryOp::Not, _) if s.is_float() => return None,
        (UnaryOp::Not, _) => scalar::mask(s, !a),
        // Float negation flips the sign bit (also of NaN and zero).
        (UnaryOp::Neg, _) if s.is_float() => a ^ (1u64 << (s.bits() - 1)),
        (UnaryOp::Neg, _) => scalar::from_int(s, scalar::int(s, a).wrapping_neg()),
    })
}

pub fn binary(op: BinaryOp, s: Scalar, a: u64, b: u64) -> Option<u64> {
    if s.is_float() {
        return float_binary(op, s, a, b);
    }
    let bits = s.bits();
    Some(match op {
        // The low bits of a sum, difference or product do not depend on signedness.
        BinaryOp::Add => scalar::mask(s, a.wrapping_add(b)),
        BinaryOp::Sub => scalar::mask(s, a.wrapping_sub(b)),
        BinaryOp::Mul => scalar::mask(s, a.wrapping_mul(b)),
        BinaryOp::Div | BinaryOp::Rem => {
            let (x, y) = (scalar::int(s, a), scalar::int(s, b));
            if y == 0 {
                0
            } else if op == BinaryOp::Div {
                // i128 cannot overflow here; MIN / -1 wraps back to MIN in from_int.
                scalar::from_int(s, x / y)
            } else {
                scalar::from_int(s, x % y)
            }
        }
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl | BinaryOp::Shr if s == Scalar::Bool => return None,
        BinaryOp::Shl => scalar::mask(s, a << (b % u64::from(bits))),
        BinaryOp::Shr => {
            let amount = (b % u64::from(bits)) as u32;
            scalar::from_int(s, scalar::int(s, a) >> amount)
        }
    })
}

fn float_binary(op: BinaryOp, s: Scalar, a: u64, b: u64) -> Option<u64> {
    macro_rules! arith {
        ($x:expr, $y:expr) => {
            match op {
                BinaryOp::Add => $x + $y,
                BinaryOp::Sub => $x - $y,
                BinaryOp::Mul => $x * $y,
                BinaryOp::Div => $x / $y,
                BinaryOp::Rem => $x % $y,
                _ => return None,
            }
        };
    }
    Some(match s {
        Scalar::F64 => arith!(f64::from_bits(a), f64::from_bits(b)).to_bits(),
        Scalar::F32 => scalar::of_f32(arith!(scalar::f32_of(a), scalar::f32_of(b))),
        _ => {
            let (x, y) = (scalar::float(s, a) as f32, scalar::float(s, b) as f32);
            scalar::from_float(s, f64::from(arith!(x, y)))
        }
    })
}

pub fn cmp(op: CmpOp, s: Scalar, a: u64, b: u64) -> bool {
    use std::cmp::Ordering;
    let ord = if s.is_float() {
        scalar::float(s, a).partial_cmp(&scalar::float(s, b))
    } else {
        Some(scalar::int(s, a).cmp(&scalar::int(s, b)))
    };
    match (op, ord) {
        (CmpOp::Ne, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Ordering::Equal,
        (CmpOp::Ne, Some(o)) => o != Ordering::Equal,
        (CmpOp::Lt, Some(o)) => o == Ordering::Less,
        (CmpOp::Le, Some(o)) => o != Ordering::Greater,
        (CmpOp::Gt, Some(o)) => o == Ordering::Greater,
        (CmpOp::Ge, Some(o)) => o != Ordering::Less,
    }
}

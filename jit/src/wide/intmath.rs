//! Integer sequences of the wide code: `popcount` without
//! AVX512_VPOPCNTDQ, the high half of a 32-bit product (`mul_hi`), and
//! `uint` and `int` division and remainder by a constant through a
//! multiply-high.
//!
//! AVX-512F has no 32-bit multiply-high: `vpmuludq`/`vpmuldq` multiply the
//! even lanes (the low halves of the 64-bit lanes) into 64-bit products.
//! The odd lanes go through a second product of both operands shifted
//! down by 32 bits, whose high halves already sit in the odd lanes; the
//! even products' high halves are shifted down into the even lanes and the
//! two merged: six operations, no branch.
//!
//! A `uint` divided by a constant `d` that is not a power of two (those are
//! shifts, [`super::math::divide_pow2`]) is a multiply-high by a "magic"
//! constant and shifts (Granlund and Montgomery, "Division by invariant
//! integers using multiplication", 1994): `q = mulhi(x, m) >> s` when a
//! 32-bit `m = ⌈2^(32+s) / d⌉` is close enough to `2^(32+s) / d` that the
//! error never reaches the next integer for any `x < 2^32`, else the
//! 33-bit `m` with its top bit folded into an add and a halving (`t =
//! mulhi(x, m − 2^32)`, `q = (t + ((x − t) >> 1)) >> (l − 1)`, `l =
//! ⌈log2 d⌉`). The remainder is `x − q·d`. Against the division in double
//! ([`super::math::divide`]: four conversions, two `vdivpd` and a pack),
//! these are 8 to 12 single-cycle or multiply operations. An `int`
//! divided by a constant (`|d| ≥ 2`) takes the paper's signed form
//! ([`divide_const_signed`]).

use super::{Bin, Program, V};

/// The number of set bits of each lane without `vpopcntd`: pairs, nibbles
/// and bytes summed in place, the four byte counts added by a multiply
/// into the top byte (12 operations).
pub fn popcount(p: &mut Program, x: V) -> V {
    let c = |p: &mut Program, bits: u32| p.constant(bits);
    let (one, two, four, k24) = (c(p, 1), c(p, 2), c(p, 4), c(p, 24));
    let (m1, m2, m4, h01) = (
        c(p, 0x5555_5555),
        c(p, 0x3333_3333),
        c(p, 0x0f0f_0f0f),
        c(p, 0x0101_0101),
    );
    // Each pair of bits its count: x - ((x >> 1) & 0x55…).
    let h = p.bin(Bin::Shr, x, one);
    let h = p.bin(Bin::IAnd, h, m1);
    let x = p.bin(Bin::ISub, x, h);
    // Each nibble its count.
    let lo = p.bin(Bin::IAnd, x, m2);
    let hi = p.bin(Bin::Shr, x, two);
    let hi = p.bin(Bin::IAnd, hi, m2);
    let x = p.bin(Bin::IAdd, lo, hi);
    // Each byte its count.
    let h = p.bin(Bin::Shr, x, four);
    let x = p.bin(Bin::IAdd, x, h);
    let x = p.bin(Bin::IAnd, x, m4);
    // The four bytes' sum in the top byte.
    let x = p.bin(Bin::IMul, x, h01);
    p.bin(Bin::Shr, x, k24)
}

/// The high 32 bits of each lane's 64-bit product `x · y`, unsigned or
/// signed. `y_odd` is `y` with its odd lanes moved into the even ones
/// (`y >> 32` in 64-bit lanes), or `y` itself when its lanes are all
/// equal (a constant).
pub fn mul_hi(p: &mut Program, x: V, y: V, y_odd: V, signed: bool) -> V {
    let mul = if signed { Bin::QMulS } else { Bin::QMulU };
    let k32 = p.constant_q(32);
    let even = p.bin(mul, x, y);
    let x_odd = p.bin(Bin::QShr, x, k32);
    let odd = p.bin(mul, x_odd, y_odd);
    let even_hi = p.bin(Bin::QShr, even, k32);
    let high = p.constant_q(0xffff_ffff_0000_0000);
    let odd_hi = p.bin(Bin::QAnd, odd, high);
    p.bin(Bin::QOr, even_hi, odd_hi)
}

/// `y >> 32` in 64-bit lanes: `y`'s odd lanes in the even ones, for
/// [`mul_hi`].
pub fn odd_lanes(p: &mut Program, y: V) -> V {
    let k32 = p.constant_q(32);
    p.bin(Bin::QShr, y, k32)
}

/// How a `uint` quotient by a constant is computed ([`magic`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Magic {
    /// `mulhi(x, m) >> shift`.
    Plain { m: u32, shift: u32 },
    /// `t = mulhi(x, m)`, `(t + ((x − t) >> 1)) >> shift` (the 33-bit
    /// multiplier `2^32 + m`).
    Add { m: u32, shift: u32 },
}

/// The multiplier and shifts that give `x / d` for every `uint x`, `d` at
/// least 2 and not a power of two.
pub fn magic(d: u32) -> Magic {
    debug_assert!(d >= 2 && !d.is_power_of_two());
    let d64 = u64::from(d);
    // l = ⌈log2 d⌉.
    let l = 32 - (d - 1).leading_zeros();
    for s in 0..l {
        let two = 1u128 << (32 + s);
        let m = two.div_ceil(u128::from(d));
        // The error m·d − 2^(32+s) at most 2^s keeps x·m / 2^(32+s)
        // below the next integer above x / d for every x < 2^32.
        if m < 1 << 32 && m * u128::from(d) - two <= 1u128 << s {
            return Magic::Plain {
                m: m as u32,
                shift: s,
            };
        }
    }
    // 2^32 · (2^l − d) / d + 1 < 2^32 since 2^l < 2d.
    let m = ((1u128 << 32) * ((1u128 << l) - u128::from(d64))) / u128::from(d64) + 1;
    Magic::Add {
        m: m as u32,
        shift: l - 1,
    }
}

/// `x / d` or `x % d` of `uint` lanes, `d` a constant at least 2 and not a
/// power of two.
pub fn divide_const(p: &mut Program, x: V, d: u32, remainder: bool) -> V {
    let q = match magic(d) {
        Magic::Plain { m, shift } => {
            let mv = p.constant(m);
            let t = mul_hi(p, x, mv, mv, false);
            if shift == 0 {
                t
            } else {
                let s = p.constant(shift);
                p.bin(Bin::Shr, t, s)
            }
        }
        Magic::Add { m, shift } => {
            let mv = p.constant(m);
            let t = mul_hi(p, x, mv, mv, false);
            let one = p.constant(1);
            let diff = p.bin(Bin::ISub, x, t);
            let half = p.bin(Bin::Shr, diff, one);
            let sum = p.bin(Bin::IAdd, t, half);
            let s = p.constant(shift);
            p.bin(Bin::Shr, sum, s)
        }
    };
    if !remainder {
        return q;
    }
    let dv = p.constant(d);
    let qd = p.bin(Bin::IMul, q, dv);
    p.bin(Bin::ISub, x, qd)
}

/// The multiplier and shift of a signed division by `d` (`|d|` at
/// least 2): Granlund and Montgomery's `m' = 1 + ⌊2^(31+l) / |d|⌋ − 2^32`
/// as a signed 32-bit value and `l − 1`, `l = ⌈log2 |d|⌉`.
pub fn magic_signed(d: i32) -> (i32, u32) {
    let a = d.unsigned_abs();
    debug_assert!(a >= 2);
    let l = 32 - (a - 1).leading_zeros();
    let m = 1 + (1u64 << (31 + l)) / u64::from(a);
    ((m as i64 - (1i64 << 32)) as i32, l - 1)
}

/// `x / d` or `x % d` of `int` lanes, truncated towards zero, `d` a
/// constant with `|d|` at least 2 (`q0 = (x + mulhi(x, m')) >> s`, plus
/// one for a negative `x`, negated for a negative `d`).
pub fn divide_const_signed(p: &mut Program, x: V, d: i32, remainder: bool) -> V {
    let (m, shift) = magic_signed(d);
    let mv = p.constant(m as u32);
    let t = mul_hi(p, x, mv, mv, true);
    let sum = p.bin(Bin::IAdd, x, t);
    let s = p.constant(shift);
    let q = p.bin(Bin::Sar, sum, s);
    let k31 = p.constant(31);
    let sign = p.bin(Bin::Sar, x, k31);
    let q = p.bin(Bin::ISub, q, sign);
    let q = if d < 0 {
        let zero = p.constant(0);
        p.bin(Bin::ISub, zero, q)
    } else {
        q
    };
    if !remainder {
        return q;
    }
    let dv = p.constant(d as u32);
    let qd = p.bin(Bin::IMul, q, dv);
    p.bin(Bin::ISub, x, qd)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the lanes compute, in scalar arithmetic.
    fn quotient(x: u32, d: u32) -> u32 {
        let hi = |m: u32| ((u64::from(x) * u64::from(m)) >> 32) as u32;
        match magic(d) {
            Magic::Plain { m, shift } => hi(m) >> shift,
            Magic::Add { m, shift } => {
                let t = hi(m);
                (t + ((x - t) >> 1)) >> shift
            }
        }
    }

    /// Dividends around the multiples of `d` and at the ends of the
    /// range, and a spread of others.
    fn dividends(d: u32) -> Vec<u32> {
        let mut xs = vec![0, 1, 2, d - 1, d, d + 1, u32::MAX, u32::MAX - 1, 1 << 31];
        let top = u32::MAX / d;
        for q in [1, 2, 3, top / 2, top - 1, top] {
            let base = q.wrapping_mul(d);
            xs.extend([base.wrapping_sub(1), base, base.wrapping_add(1)]);
        }
        let mut r = 0x9e37_79b9u32 ^ d;
        for _ in 0..200 {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            xs.push(r);
        }
        xs
    }

    #[test]
    fn magic_quotients_are_exact() {
        let mut divisors: Vec<u32> = (3..5000).collect();
        divisors.extend([
            7,
            641,
            6_700_417,
            0x7fff_ffff,
            0x8000_0001,
            0xffff_fffd,
            0xffff_fffe,
            u32::MAX,
            1_000_000_007,
            3_000_000_001,
        ]);
        let mut r = 12345u32;
        for _ in 0..2000 {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            divisors.push(r | 3);
        }
        for d in divisors.into_iter().filter(|d| !d.is_power_of_two()) {
            for x in dividends(d) {
                assert_eq!(quotient(x, d), x / d, "{x} / {d}: {:?}", magic(d));
            }
        }
    }

    /// What the lanes of [`divide_const_signed`] compute, in scalar
    /// arithmetic.
    fn quotient_signed(x: i32, d: i32) -> i32 {
        let (m, shift) = magic_signed(d);
        let t = ((i64::from(x) * i64::from(m)) >> 32) as i32;
        let q = (x.wrapping_add(t) >> shift) - (x >> 31);
        if d < 0 {
            q.wrapping_neg()
        } else {
            q
        }
    }

    #[test]
    fn signed_magic_quotients_are_exact() {
        let mut divisors: Vec<i32> = (2..3000).collect();
        divisors.extend([
            7,
            641,
            i32::MAX,
            i32::MAX - 1,
            1 << 30,
            (1 << 30) + 1,
            1_000_000_007,
        ]);
        let mut r = 777u32;
        for _ in 0..1500 {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            divisors.push((r >> 1) as i32 | 2);
        }
        let negated: Vec<i32> = divisors.iter().map(|d| -d).collect();
        divisors.extend(negated);
        divisors.push(i32::MIN);
        for d in divisors {
            let a = d.unsigned_abs();
            let mut xs = vec![
                0,
                1,
                -1,
                2,
                -2,
                i32::MAX,
                i32::MIN,
                i32::MIN + 1,
                i32::MAX - 1,
            ];
            for q in [1u32, 2, 3, (1u32 << 31) / a / 2, (1u32 << 31) / a] {
                let base = q.wrapping_mul(a) as i32;
                for b in [base, base.wrapping_neg()] {
                    xs.extend([b.wrapping_sub(1), b, b.wrapping_add(1)]);
                }
            }
            let mut h = 0x9e37_79b9u32 ^ a;
            for _ in 0..100 {
                h ^= h << 13;
                h ^= h >> 17;
                h ^= h << 5;
                xs.push(h as i32);
            }
            for x in xs {
                assert_eq!(quotient_signed(x, d), x.wrapping_div(d), "{x} / {d}");
            }
        }
    }

    #[test]
    fn seven_takes_the_add_form() {
        // 7 needs the 33-bit multiplier; 3 and 5 do not.
        assert!(matches!(magic(7), Magic::Add { .. }));
        assert!(matches!(magic(3), Magic::Plain { .. }));
        assert!(matches!(magic(5), Magic::Plain { .. }));
    }
}

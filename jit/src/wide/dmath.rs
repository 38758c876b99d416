//! The wide code's transcendental functions other than `exp` and `log`:
//! the algorithms of the Cranelift code's double-precision routines
//! (`lower/builtins/vmath.rs`) on zmm registers of eight doubles, and
//! `sin`/`cos` as its single-precision sequence on the 16 floats
//! (`trig_f32`).
//!
//! Each of the chunk's two halves of eight floats is widened to doubles
//! (exactly), the function is evaluated there by the same reduction,
//! polynomials, constants and special-case selects, in the same order of
//! operations (FMA where the Cranelift code fuses, as it does on a host
//! with FMA, which every AVX-512 CPU has), and the two halves are rounded
//! back to floats once. Double arithmetic is correctly rounded, so each
//! lane's result is the Cranelift code's to the bit (NaN payloads aside:
//! x86 keeps the first NaN operand's, and the operand orders differ), and
//! its error against the OpenCL bounds is the one measured for that code
//! (`docs/builtins.md`).
//!
//! `tanh` of floats is not here: [`super::math::tanh`] computes it in
//! single precision. Nor are `pow` and `powr` of a positive finite base
//! and a finite exponent ([`super::math::pow_positive`], single precision
//! with the logarithm in two floats); their other lanes, which the
//! Cranelift code hands to the platform's library per lane, take
//! `pown`'s routine here (`powr` its `|x|^y` part) in a skipped region
//! (`pow_f32`).
//!
//! `atan` on [0, 1] (under `asin`, `acos` and their `…pi` forms) is
//! shorter here than in the Cranelift code, and so no
//! longer its bits (each result still the correctly rounded float but
//! within 2^-15 ULP of a rounding boundary): one polynomial instead of
//! two halvings and a series (`ATAN_Z`). `erf` is not here either
//! ([`super::math::erf`]: two polynomials in single precision, where the
//! Cranelift code takes a series of 27 terms beside a continued fraction
//! of 24 steps and an exponential); `erfc` keeps the latter, which it
//! needs far into the tail. Nor are `atan`, `atan2` and their `…pi`
//! forms ([`super::math::atan2`], single precision; `atan x` as
//! `atan2(x, 1)`).
//!
//! One more difference: `sin`, `cos` and `tan` of |x| > 2^20 (and ±inf),
//! where the three-part π/2 of the common reduction is not exact enough.
//! The Cranelift code branches to a per-lane call of the platform's `sin`;
//! the wide code has no calls: a chunk with such a lane runs a skipped
//! region ([`Op::IfAny`]) that reduces its lanes exactly, without a table
//! (`D::huge_reduce`): `x` has 24 significant bits, so its products with
//! 29-bit pieces of 2/π are exact doubles, each taken modulo 4 exactly,
//! summed with their rounding errors kept. The lanes past 2^20 take that
//! reduction into the same polynomials; their results are within the
//! bound and, over the sweep of `jit/tests/wide_math.rs`, the platform's.

use super::{Bin, CmpKind, Op, Program, Un, K, V};
use crate::lower::builtins::vmath::{LG2_HI, LG2_LO, LOG_R};
use std::f64::consts::{FRAC_PI_2, LN_10, LN_2, LOG10_E, LOG2_10, LOG2_E, PI};

/// `vcmppd` predicates.
const EQ: u8 = 0;
const LT: u8 = 1;
const LE: u8 = 2;
const UNORD: u8 = 3;
const NEQ: u8 = 4;
/// Not less than, not greater than: true on NaN.
const NLT: u8 = 5;
const NGT: u8 = 10;
const GT: u8 = 14;
/// Not greater than or equal, not less than or equal: true on NaN.
const NGE: u8 = 9;
const NLE: u8 = 6;

/// Beyond this the common trig reduction is not exact enough.
const TRIG_FAST_LIMIT: f64 = 1_048_576.0;
/// 1.5·2^52: adding it leaves an integer-valued double in the low bits.
const MAGIC: f64 = 6_755_399_441_055_744.0;
/// ln 2 split so that `n·LN2_HI` is exact for |n| < 2^11.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// π/2 in three parts, the first two with 33 significant bits.
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_795_950_6e-21;
const SIGN: u64 = 1 << 63;
/// The single-precision `sin`/`cos` of the Cranelift code (`vmath.rs`,
/// `sincos_f32`): 2/π, π/2 in three floats, the polynomials' coefficients.
const TWO_OVER_PI_F32: u32 = 0x3f22_f983;
const PIO2_F32: [u32; 3] = [0x3fc9_0fdb, 0xb33b_bd2e, 0xa6f7_2ced];
const SIN_F32: [u32; 3] = [0xbe2a_aaa2, 0x3c08_837c, 0xb94c_97de];
const COS_F32: [u32; 3] = [0x3d2a_aaa5, 0xbab6_060c, 0x37cc_f1ae];
/// `tan r = r + r·z·T(z)`, `z = r²`: `T` of degree 7 from a Chebyshev
/// fit of `(tan(√z)/√z - 1)/z` at 6 000 nodes of [0, 0.75] (relative
/// error 2^-28.8 in exact arithmetic), coefficients from the lowest,
/// rounded to floats. The range reaches |r| = 0.866, past π/4: `k =
/// rint(x·2/π)` is rounded from a float product, off by one near a
/// half-integer for |x| up to 2^20 (|r| up to 0.85; a fit on [-π/4, π/4]
/// alone was 19.7 ULP off there). A float model of the evaluation: 0.96
/// ULP for `tan r`, 1.86 for `-1/tan r`.
const TAN_F32: [u32; 8] = [
    0x3eaa_aaab,
    0x3e08_88ac,
    0x3d5c_fe8c,
    0x3cb4_61c3,
    0x3c04_fc5c,
    0x3bb6_5f7e,
    0xbaaa_f151,
    0x3b1b_8ef6,
];

/// `atan t = t·P(t²)` on [0, 1], `P`'s coefficients from the lowest:
/// Chebyshev interpolation of `atan(√z)/√z` at 3,000 nodes of [0, 1],
/// the sum turned into powers of `z`. Its relative error stays below
/// 2^-39 (1.6e-12), so the float result is the correctly rounded one
/// but within 2^-15 ULP of a rounding boundary.
const ATAN_Z: [u64; 14] = [
    0x3fefffffffffc98d, // 9.99999999998452460e-01
    0xbfd5555554a95107, // -3.33333332707539787e-01
    0x3fc999993f3914a7, // 1.99999957914916510e-01
    0xbfc2491b294fda8d, // -1.42856021091308710e-01
    0x3fbc70bf171c3a6d, // 1.11095374242930325e-01
    0xbfb73d0caeaebbe3, // -9.07752920600013863e-02
    0x3fb38022caa35aa1, // 7.61739487382819963e-02
    0xbfb052093ce7e02c, // -6.37517713256562923e-02
    0x3fa9ece1d4f860e5, // 5.06353924249099210e-02
    0xbfa22ea8ebb8dc12, // -3.55122363802636981e-02
    0x3f94a55c33d5d979, // 2.01620489728724130e-02
    0xbf8126f224b9e3f0, // -8.37506460742251657e-03
    0x3f62182cef3fe32f, // 2.20879341395310109e-03
    0xbf31eed1ac433873, // -2.73634137795470539e-04
];
/// The first 240 bits of 2/π, 24 to a word.
const TWO_OVER_PI: [u32; 10] = [
    0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041, 0xFE5163,
    0xABDEBB,
];
/// Pieces of 2/π of this many bits: a float's 24-bit significand times
/// one is exact in double.
const PIECE_BITS: u32 = 29;
/// Enough pieces for |x| < 2^128: the lanes' products with the pieces
/// that matter after the multiples of 4 drop out (see [`D::huge_reduce`]).
const PIECES: u32 = 7;

/// The functions of this module (OpenCL names, after `native_`/`half_`).
pub const FUNCTIONS: &[&str] = &[
    "sin", "cos", "tan", "sinpi", "cospi", "tanpi", "expm1", "log1p", "pown", "rootn", "pow",
    "powr", "atan", "atan2", "asin", "acos", "atanpi", "atan2pi", "asinpi", "acospi", "sinh",
    "cosh", "tanh", "erf", "erfc", "cbrt", "hypot",
];

/// Whether argument `i` of `name` is an `int` (the rest are floats).
pub fn int_arg(name: &str, i: usize) -> bool {
    matches!(name, "pown" | "rootn") && i == 1
}

/// `1/n!` for n = 0..=20.
fn inv_fact(n: usize) -> f64 {
    (1..=n).fold(1.0, |acc, k| acc / k as f64)
}

/// Bits `from..from + n` (n ≤ 32) of the fraction of 2/π, as an integer.
fn two_over_pi_bits(from: u32, n: u32) -> u64 {
    (from..from + n).fold(0u64, |acc, b| {
        let w = TWO_OVER_PI[(b / 24) as usize];
        acc << 1 | u64::from(w >> (23 - b % 24) & 1)
    })
}

/// `name` of the 16 lanes `args` (floats, or `int`s where [`int_arg`]):
/// both halves widened to doubles, evaluated side by side (each operation
/// on the low half, then on the high half, so that the two chains overlap
/// and each constant serves both at once), rounded back.
pub fn float_fn(p: &mut Program, name: &str, args: &[V]) -> V {
    match name {
        "sin" => return trig_one_f32(p, args[0], 0),
        "cos" => return trig_one_f32(p, args[0], 1),
        "tan" => return trig_one_f32(p, args[0], 2),
        "tanh" => return super::math::tanh(p, args[0]),
        "erf" => return super::math::erf(p, args[0]),
        "atan2" => return super::math::atan2(p, args[0], args[1], false),
        "atan2pi" => return super::math::atan2(p, args[0], args[1], true),
        // atan x = atan2(x, 1): the quotient is 1/|x| past 1, and the
        // octant's base π/2 (1/2 in units of π).
        "atan" | "atanpi" => {
            let one = p.constant(1f32.to_bits());
            return super::math::atan2(p, args[0], one, name == "atanpi");
        }
        "pow" | "powr" => return pow_f32(p, name, args[0], args[1]),
        _ => {}
    }
    let wide: Vec<P> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (lo, hi) = if int_arg(name, i) {
                (Un::I2DLow, Un::I2DHigh)
            } else {
                (Un::F2DLow, Un::F2DHigh)
            };
            P([p.un(lo, *a), p.un(hi, *a)])
        })
        .collect();
    let r = D { p, cold: false }.math(name, &wide);
    p.bin(Bin::PackD2F, r.0[0], r.0[1])
}

/// `pow` or `powr` (`name`) of the 16 floats `x` and `y`: in single
/// precision ([`super::math::pow_positive`]) where `x` is positive and
/// finite and `y` finite, and a chunk with another lane (zero, negative,
/// infinite or NaN `x`, infinite or NaN `y`) runs the double routine for
/// it in a skipped region ([`Op::IfAny`]), which gives every special case
/// (`pow_family`'s whole routine, as before).
fn pow_f32(p: &mut Program, name: &str, x: V, y: V) -> V {
    let plain = super::math::pow_positive(p, x, y);
    let r = p.v();
    p.push(Op::Copy { d: r, a: plain });
    let zero = p.constant(0);
    let inf = p.constant(f32::INFINITY.to_bits());
    let abs = p.constant(0x7fff_ffff);
    let ay = p.bin(Bin::IAnd, y, abs);
    // Ordered compares: a NaN fails each.
    let f32_cmp = CmpKind::F32;
    let positive = super::math::cmp(p, f32_cmp, GT, x, zero);
    let finite = super::math::cmp(p, f32_cmp, LT, x, inf);
    let y_finite = super::math::cmp(p, f32_cmp, LT, ay, inf);
    let both = p.k();
    p.push(Op::KAnd {
        d: both,
        a: positive,
        b: finite,
    });
    let ok = p.k();
    p.push(Op::KAnd {
        d: ok,
        a: both,
        b: y_finite,
    });
    let special = p.k();
    p.push(Op::KNot { d: special, a: ok });
    p.push(Op::IfAny { k: special });
    let wide = |p: &mut Program, a: V| P([p.un(Un::F2DLow, a), p.un(Un::F2DHigh, a)]);
    let (xw, yw) = (wide(p, x), wide(p, y));
    let mut d = D { p, cold: true };
    let whole = if name == "powr" {
        d.powr_d(xw, yw)
    } else {
        d.pow_d(xw, yw)
    };
    d.narrow_into(r, whole, special);
    p.push(Op::EndIf);
    r
}

/// `sin` (`which` 0), `cos` (1) or `tan` (2) of the 16 floats `x` in single
/// precision (see [`trig_f32`]).
fn trig_one_f32(p: &mut Program, x: V, which: usize) -> V {
    let one = [which == 0, which == 1, which == 2];
    trig_f32(p, x, one)[which].expect("the wanted result")
}

/// `sin x` and `cos x` of the 16 floats `x` together: one reduction, one
/// evaluation of the two polynomials, each result picked by the quadrant,
/// and one skipped region for the lanes past 2^20 that reduces once for
/// both. Each result is the bits of `trig_one_f32`'s. A kernel taking
/// the sine and the cosine of one value (`Cx::trig_pair` in the lowering
/// finds them) pays little more than for one of them.
pub fn sin_cos(p: &mut Program, x: V) -> [V; 2] {
    let [s, c, _] = trig_f32(p, x, [true, true, false]);
    [s.expect("sin"), c.expect("cos")]
}

/// `sin` and/or `cos` (as `want`) of the 16 floats `x` in single
/// precision: the Cranelift code's `sincos_f32` (`lower/builtins/vmath.rs`:
/// the same constants and operations in the same order, FMA included), so
/// the same bits. Lanes with |x| > 2^20 or ±inf, where its three-part π/2
/// is not exact enough, are recomputed in a skipped region by the double
/// routine with the exact reduction ([`D::huge_reduce`]), as before.
fn trig_f32(p: &mut Program, x: V, want: [bool; 3]) -> [Option<V>; 3] {
    let two_over_pi = p.constant(TWO_OVER_PI_F32);
    let t = p.bin(Bin::FMul, x, two_over_pi);
    let k = p.un(Un::RoundEven, t);
    let sign = p.constant(1 << 31);
    let nk = p.bin(Bin::IXor, k, sign);
    let mut r = x;
    for c in PIO2_F32 {
        let c = p.constant(c);
        r = p.fma(nk, c, r);
    }
    let z = p.bin(Bin::FMul, r, r);
    let poly = |p: &mut Program, c: &[u32; 3]| {
        let (c2, c1, c0) = (p.constant(c[2]), p.constant(c[1]), p.constant(c[0]));
        let acc = p.fma(c2, z, c1);
        p.fma(acc, z, c0)
    };
    let ps = poly(p, &SIN_F32);
    let rz = p.bin(Bin::FMul, r, z);
    let s = p.fma(rz, ps, r);
    let pc = poly(p, &COS_F32);
    let half = p.constant((-0.5f32).to_bits());
    let h = p.bin(Bin::FMul, z, half);
    let zz = p.bin(Bin::FMul, z, z);
    let c = p.fma(zz, pc, h);
    let one = p.constant(1f32.to_bits());
    let c = p.bin(Bin::FAdd, c, one);
    // |k| < 2^22: its two's-complement low bits are those of k + 1.5·2^23.
    let magic = p.constant(12_582_912f32.to_bits());
    let kb = p.bin(Bin::FAdd, k, magic);
    let bit0 = p.constant(1);
    let low = p.bin(Bin::IAnd, kb, bit0);
    let odd = p.k();
    p.push(Op::Compare2 {
        kind: CmpKind::I32,
        pred: EQ,
        d: odd,
        a: low,
        b: bit0,
    });
    let select = |p: &mut Program, k: K, a: V, b: V| {
        let d = p.v();
        p.push(Op::Select { d, k, a, b });
        d
    };
    let mut out = [None; 3];
    for which in 0..3 {
        if !want[which] {
            continue;
        }
        let v = if which == 2 {
            // tan x: tan r in the even quadrants, -1/tan r in the odd ones
            // (one division). (s/c, from the two polynomials above,
            // reached 3.5 ULP.)
            let (last, rest) = TAN_F32.split_last().expect("coefficients");
            let mut acc = p.constant(*last);
            for c in rest.iter().rev() {
                let c = p.constant(*c);
                acc = p.fma(acc, z, c);
            }
            let t = p.fma(rz, acc, r);
            let minus_one = p.constant((-1f32).to_bits());
            let cot = p.bin(Bin::FDiv, minus_one, t);
            select(p, odd, cot, t)
        } else {
            let (v, q) = if which == 0 {
                (select(p, odd, c, s), kb)
            } else {
                (select(p, odd, s, c), p.bin(Bin::IAdd, kb, bit0))
            };
            // Bit 1 of the quadrant flips the sign: shifted to bit 31
            // and applied through the sign mask in one `vpternlogd`.
            let thirty = p.constant(30);
            let flip = p.bin(Bin::Shl, q, thirty);
            let sign = p.constant(1 << 31);
            p.push(Op::Ternlog {
                d: v,
                b: flip,
                c: sign,
                imm: super::TERNLOG_XOR_AND,
            });
            v
        };
        // sin(±0) = ±0 and tan(±0) = ±0.
        let v = if which == 1 {
            v
        } else {
            let zero = p.constant(0);
            let z0 = p.k();
            p.push(Op::Compare2 {
                kind: CmpKind::F32,
                pred: EQ,
                d: z0,
                a: x,
                b: zero,
            });
            select(p, z0, x, v)
        };
        let o = p.v();
        p.push(Op::Copy { d: o, a: v });
        out[which] = Some(o);
    }
    let abs = p.constant(0x7fff_ffff);
    let ax = p.bin(Bin::IAnd, x, abs);
    let limit = p.constant((TRIG_FAST_LIMIT as f32).to_bits());
    let huge = p.k();
    p.push(Op::Compare2 {
        kind: CmpKind::F32,
        pred: GT,
        d: huge,
        a: ax,
        b: limit,
    });
    p.push(Op::IfAny { k: huge });
    let wide = P([p.un(Un::F2DLow, x), p.un(Un::F2DHigh, x)]);
    let mut d = D { p, cold: true };
    let (hk, hr) = d.huge_reduce(wide);
    let (hs, hc) = d.sincos_poly(hr);
    for (which, o) in out.iter().enumerate() {
        let Some(o) = *o else { continue };
        let hv = d.trig_pick(hk, hs, hc, which as u32);
        d.narrow_into(o, hv, huge);
    }
    p.push(Op::EndIf);
    out
}

/// The `double` builtins of [`double_fn`].
pub const DOUBLE_FUNCTIONS: &[&str] = &["exp", "exp2", "exp10", "log", "log2", "log10"];

/// `name` (of [`DOUBLE_FUNCTIONS`]) of a `double` value of the chunk, its
/// lanes 0–7 in `x[0]` and 8–15 in `x[1]`: the Cranelift code's routine
/// for `f64x2` pieces (`lower/builtins/vmath/dmath.rs`), the same
/// operations in the same order, so the same bits. Where that routine
/// branches per piece to a general path when a lane's result is not
/// normal and finite (`exp`) or its argument is not positive, normal and
/// finite (`log`), this computes the usual path for every lane and the
/// general one in a skipped region ([`Op::IfAny`]) for the lanes that
/// need it; the two paths agree on the usual lanes. `None` for other
/// names.
pub fn double_fn(p: &mut Program, name: &str, x: [V; 2]) -> Option<[V; 2]> {
    let (log, base) = match name {
        "exp" => (false, 0),
        "exp2" => (false, 2),
        "exp10" => (false, 10),
        "log" => (true, 0),
        "log2" => (true, 2),
        "log10" => (true, 10),
        _ => return None,
    };
    let x = P(x);
    let mut d = D { p, cold: false };
    let (usual, out) = if log {
        let usual = d.log_body_f64(x, base, true);
        // NaN, below the least normal (zero, negative, subnormal), or +inf.
        let low = d.cmp_k(NGE, x, f64::MIN_POSITIVE);
        let inf = d.cmp_k(EQ, x, f64::INFINITY);
        (usual, d.kor(low, inf))
    } else {
        let usual = d.exp_body_f64(x, base, true);
        let lim = match base {
            2 => 1021.0,
            10 => 307.0,
            _ => 708.0,
        };
        let ax = d.abs(x);
        // NaN or past the limit.
        (usual, d.cmp_k(NLE, ax, lim))
    };
    let r = d.copy(usual);
    let any = p.k();
    p.push(Op::KJoin {
        d: any,
        lo: out.0[0],
        hi: out.0[1],
    });
    p.push(Op::IfAny { k: any });
    let mut d = D { p, cold: true };
    let general = if log {
        let g = d.log_body_f64(x, base, false);
        d.log_specials(x, g)
    } else {
        d.exp_body_f64(x, base, false)
    };
    d.merge(out, r, general);
    p.push(Op::EndIf);
    Some(r.0)
}

/// A value of the chunk as two zmm registers of eight doubles.
#[derive(Clone, Copy, Debug)]
struct P([V; 2]);

/// The masks of the two halves (eight bits each).
#[derive(Clone, Copy, Debug)]
struct M([K; 2]);

/// Emits double-precision operations into a program.
struct D<'a> {
    p: &'a mut Program,
    /// Inside an [`Op::IfAny`] region: constants are this region's own
    /// (the program's shared ones must be written on every path).
    cold: bool,
}

impl D<'_> {
    /// `o`'s lanes of `k` replaced by the doubles `v` rounded to floats
    /// (a skipped region's result merged into the fast path's).
    fn narrow_into(&mut self, o: V, v: P, k: K) {
        let packed = self.p.bin(Bin::PackD2F, v.0[0], v.0[1]);
        self.p.push(Op::MaskedCopy { d: o, a: packed, k });
    }

    fn k(&mut self, x: f64) -> P {
        self.ik(x.to_bits())
    }

    fn ik(&mut self, bits: u64) -> P {
        if self.cold {
            let d = self.p.v();
            self.p.push(Op::SplatQ { d, bits });
            return P([d, d]);
        }
        let d = self.p.constant_q(bits);
        P([d, d])
    }

    fn bin(&mut self, op: Bin, a: P, b: P) -> P {
        P([0, 1].map(|h| self.p.bin(op, a.0[h], b.0[h])))
    }

    fn add(&mut self, a: P, b: P) -> P {
        self.bin(Bin::DAdd, a, b)
    }

    fn sub(&mut self, a: P, b: P) -> P {
        self.bin(Bin::DSub, a, b)
    }

    fn mul(&mut self, a: P, b: P) -> P {
        self.bin(Bin::DMul, a, b)
    }

    fn div(&mut self, a: P, b: P) -> P {
        self.bin(Bin::DDiv, a, b)
    }

    fn fma(&mut self, a: P, b: P, c: P) -> P {
        P([0, 1].map(|h| {
            let d = self.p.v();
            self.p.push(Op::FmaD {
                d,
                a: a.0[h],
                b: b.0[h],
                c: c.0[h],
            });
            d
        }))
    }

    /// `min(x, c)` for a constant `c`, NaN `x` kept (`vminpd` returns its
    /// second operand when either is NaN).
    fn min_k(&mut self, x: P, c: f64) -> P {
        let c = self.k(c);
        self.bin(Bin::DMinX86, c, x)
    }

    fn max_k(&mut self, x: P, c: f64) -> P {
        let c = self.k(c);
        self.bin(Bin::DMaxX86, c, x)
    }

    fn un(&mut self, op: Un, x: P) -> P {
        P([0, 1].map(|h| self.p.un(op, x.0[h])))
    }

    fn nearest(&mut self, x: P) -> P {
        self.un(Un::DRoundEven, x)
    }

    fn trunc(&mut self, x: P) -> P {
        self.un(Un::DTrunc, x)
    }

    fn sqrt(&mut self, x: P) -> P {
        self.un(Un::DSqrt, x)
    }

    fn neg(&mut self, x: P) -> P {
        let s = self.ik(SIGN);
        self.bin(Bin::QXor, x, s)
    }

    fn abs(&mut self, x: P) -> P {
        let m = self.ik(!SIGN);
        self.bin(Bin::QAnd, x, m)
    }

    fn cmp_kind(&mut self, kind: CmpKind, pred: u8, a: P, b: P) -> M {
        M([0, 1].map(|h| {
            let d = self.p.k();
            self.p.push(Op::Compare2 {
                kind,
                pred,
                d,
                a: a.0[h],
                b: b.0[h],
            });
            d
        }))
    }

    fn cmp(&mut self, pred: u8, a: P, b: P) -> M {
        self.cmp_kind(CmpKind::F64, pred, a, b)
    }

    fn cmp_k(&mut self, pred: u8, a: P, c: f64) -> M {
        let c = self.k(c);
        self.cmp(pred, a, c)
    }

    fn kop(&mut self, f: fn(K, K, K) -> Op, a: M, b: M) -> M {
        M([0, 1].map(|h| {
            let d = self.p.k();
            self.p.push(f(d, a.0[h], b.0[h]));
            d
        }))
    }

    fn kand(&mut self, a: M, b: M) -> M {
        self.kop(|d, a, b| Op::KAnd { d, a, b }, a, b)
    }

    fn kor(&mut self, a: M, b: M) -> M {
        self.kop(|d, a, b| Op::KOr { d, a, b }, a, b)
    }

    /// `a & !b`.
    fn kand_not(&mut self, a: M, b: M) -> M {
        self.kop(|d, a, b| Op::KAndNot { d, a, b }, a, b)
    }

    /// `d = k ? x : d` per double: a merge-masked `vporq` of `x` onto `d`.
    fn merge(&mut self, k: M, d: P, x: P) {
        for h in 0..2 {
            self.p.push(Op::BinMasked {
                op: Bin::QOr,
                d: d.0[h],
                a: x.0[h],
                b: x.0[h],
                k: k.0[h],
            });
        }
    }

    /// A new value equal to `x` (a renaming), to be written again.
    fn copy(&mut self, x: P) -> P {
        P([0, 1].map(|h| {
            let d = self.p.v();
            self.p.push(Op::Copy { d, a: x.0[h] });
            d
        }))
    }

    /// `k ? x : y` per double.
    fn pick(&mut self, k: M, x: P, y: P) -> P {
        let d = self.copy(y);
        self.merge(k, d, x);
        d
    }

    /// Lanes whose sign bit is set (also for ±0 and NaN).
    fn dneg(&mut self, x: P) -> M {
        let s = self.ik(SIGN);
        let m = self.bin(Bin::QAnd, x, s);
        self.cmp_kind(CmpKind::I64, 0, m, s)
    }

    /// `|mag|` with the sign of `s`.
    fn copysign(&mut self, mag: P, s: P) -> P {
        let a = self.abs(mag);
        let k = self.ik(SIGN);
        let sign = self.bin(Bin::QAnd, s, k);
        self.bin(Bin::QOr, a, sign)
    }

    fn neg_if(&mut self, c: M, x: P) -> P {
        let n = self.neg(x);
        self.pick(c, n, x)
    }

    fn nan(&mut self) -> P {
        self.k(f64::NAN)
    }

    /// `2^n` for an integer-valued `n` with |n| < 1022.
    fn pow2i(&mut self, n: P) -> P {
        let m = self.k(MAGIC);
        let t = self.add(n, m);
        let bias = self.ik(1023);
        let e = self.bin(Bin::QAdd, t, bias);
        let s = self.ik(52);
        self.bin(Bin::QShl, e, s)
    }

    /// `c0 + c1·x + c2·x² + …` (Horner, fused).
    fn poly(&mut self, x: P, c: &[f64]) -> P {
        let mut acc = self.k(c[c.len() - 1]);
        for k in c[..c.len() - 1].iter().rev() {
            let kk = self.k(*k);
            acc = self.fma(acc, x, kk);
        }
        acc
    }

    /// `(s, q)` with `e^t = s·(1 + q)` (vmath.rs's `exp_parts`).
    fn exp_parts(&mut self, t: P) -> (P, P) {
        let t = self.min_k(t, 700.0);
        let t = self.max_k(t, -700.0);
        let l2e = self.k(std::f64::consts::LOG2_E);
        let nf = self.mul(t, l2e);
        let n = self.nearest(nf);
        let c_hi = self.k(LN2_HI);
        let c_lo = self.k(LN2_LO);
        let a = self.mul(n, c_hi);
        let r = self.sub(t, a);
        let b = self.mul(n, c_lo);
        let r = self.sub(r, b);
        let c: Vec<f64> = (1..=9).map(inv_fact).collect();
        let p = self.poly(r, &c);
        let q = self.mul(r, p);
        (self.pow2i(n), q)
    }

    fn exp_d(&mut self, t: P) -> P {
        let (s, q) = self.exp_parts(t);
        let sq = self.mul(s, q);
        self.add(s, sq)
    }

    fn expm1_d(&mut self, t: P) -> P {
        let (s, q) = self.exp_parts(t);
        let sq = self.mul(s, q);
        let one = self.k(1.0);
        let sm = self.sub(s, one);
        self.add(sq, sm)
    }

    /// `(e, m)` with `y = 2^e·m` and `m ∈ [√½, √2)` for a positive,
    /// normal, finite `y`: `e` from the exponent's bits as a double, `m`
    /// the significand with the exponent of 1, halved past √2 (each step
    /// exact).
    fn exponent_split(&mut self, y: P) -> (P, P) {
        let s52 = self.ik(52);
        let eb = self.bin(Bin::QShr, y, s52);
        let exp_one = self.ik(0x4330_0000_0000_0000);
        let ef = self.bin(Bin::QOr, eb, exp_one);
        let k = self.k((1u64 << 52) as f64 + 1023.0);
        let e = self.sub(ef, k);
        let mm = self.ik(0x000F_FFFF_FFFF_FFFF);
        let mant = self.bin(Bin::QAnd, y, mm);
        let one_bits = self.ik(0x3FF0_0000_0000_0000);
        let m = self.bin(Bin::QOr, mant, one_bits);
        let big = self.cmp_k(GT, m, std::f64::consts::SQRT_2);
        let half = self.k(0.5);
        let mh = self.mul(m, half);
        let m = self.pick(big, mh, m);
        let one = self.k(1.0);
        let zero = self.k(0.0);
        let inc = self.pick(big, one, zero);
        (self.add(e, inc), m)
    }

    /// `(e, lm)` with `y = 2^e·m`, `lm = ln m`, `m ∈ [√½, √2)`.
    fn log_parts(&mut self, y: P) -> (P, P) {
        let (e, m) = self.exponent_split(y);
        let one = self.k(1.0);
        let num = self.sub(m, one);
        let den = self.add(m, one);
        let s = self.div(num, den);
        let z = self.mul(s, s);
        let c: Vec<f64> = (0..7).map(|k| 2.0 / (2 * k + 1) as f64).collect();
        let p = self.poly(z, &c);
        (e, self.mul(s, p))
    }

    /// The special cases of the logarithms (C99 Annex F).
    fn log_specials(&mut self, y: P, r: P) -> P {
        let zero = self.cmp_k(EQ, y, 0.0);
        let ninf = self.k(f64::NEG_INFINITY);
        let r = self.pick(zero, ninf, r);
        let inf = self.cmp_k(EQ, y, f64::INFINITY);
        let r = self.pick(inf, y, r);
        let neg = self.cmp_k(LT, y, 0.0);
        let nan = self.nan();
        let r = self.pick(neg, nan, r);
        let un = self.cmp(UNORD, y, y);
        self.pick(un, y, r)
    }

    /// Base-2 logarithm (the part of vmath.rs's `log_d` `pow` uses).
    fn log2_d(&mut self, y: P) -> P {
        let r = self.log2_finite(y);
        self.log_specials(y, r)
    }

    /// [`Self::log2_d`] of a positive finite `y`.
    fn log2_finite(&mut self, y: P) -> P {
        let (e, lm) = self.log_parts(y);
        let k = self.k(std::f64::consts::LOG2_E);
        let a = self.mul(lm, k);
        self.add(e, a)
    }

    fn log1p_d(&mut self, x: P) -> P {
        let one = self.k(1.0);
        let u = self.add(one, x);
        let ax = self.abs(x);
        let small = self.cmp_k(LE, ax, 1.0);
        let a = self.sub(one, u);
        let a = self.add(a, x);
        let b = self.sub(x, u);
        let b = self.add(b, one);
        let c = self.pick(small, a, b);
        let (e, lm) = self.log_parts(u);
        let hi = self.k(LN2_HI);
        let lo = self.k(LN2_LO);
        let p = self.mul(e, hi);
        let q = self.mul(e, lo);
        let cu = self.div(c, u);
        let q = self.add(q, cu);
        let q = self.add(q, lm);
        let r = self.add(p, q);
        let r = self.log_specials(u, r);
        let z = self.cmp_k(EQ, x, 0.0);
        self.pick(z, x, r)
    }

    /// `(k, r)` with `x = k·π/2 + r`, |r| ≤ π/4 (for |x| ≤ 2^20).
    fn trig_reduce(&mut self, x: P) -> (P, P) {
        let k2 = self.k(2.0 / PI);
        let t = self.mul(x, k2);
        let k = self.nearest(t);
        let mut r = x;
        for c in [PIO2_1, PIO2_2, PIO2_3] {
            let cc = self.k(c);
            let p = self.mul(k, cc);
            r = self.sub(r, p);
        }
        (k, r)
    }

    /// `(s, c)` with `s + c` the sum of two floats `a + b` exactly
    /// (Knuth's two-sum).
    fn two_sum(&mut self, a: P, b: P) -> (P, P) {
        let s = self.add(a, b);
        let bb = self.sub(s, a);
        let ab = self.sub(s, bb);
        let e1 = self.sub(a, ab);
        let e2 = self.sub(b, bb);
        (s, self.add(e1, e2))
    }

    /// `(k, r)` with `x = k·π/2 + r`, |r| ≲ π/4, for every finite `x` of a
    /// float (NaN for ±inf), exactly enough for |x| up to 2^128.
    ///
    /// `x = M·2^s` with `M < 2^24`; 2/π is `Σ c_i`, `c_i` 29 bits of it
    /// (bits `29i + 1 …` after the point). Each `x·c_i` is exact, and so
    /// is `g_i`, its remainder modulo 4 in [-2, 2] (`x·c_i - 4·round(x·c_i
    /// / 4)`, exact because `x·c_i` has at most 53 bits): the pieces whose
    /// products are multiples of 4 (`s ≥ 29(i+1) + 2`) give exact zeros.
    /// The first nonzero `g_i` has bits down to 2^-27, the next three
    /// reach 2^-114 and the rest stay below 2^-62 (in quarter turns), so
    /// seven pieces cover |x| < 2^128. No float is closer than 2^-29.86
    /// quarter turns to a multiple of π/2 (the closest is 16367173·2^72,
    /// found from the continued fractions of 2^s·2/π for every exponent),
    /// so what is dropped stays below 2^-32 of the reduced argument. The
    /// `g_i` are summed with two-sums (the sum
    /// in `h`, its rounding errors in `l`), `k` is `h` rounded, and `(h -
    /// k) + l` quarter turns become radians in double-double.
    fn huge_reduce(&mut self, x: P) -> (P, P) {
        let quarter = self.k(0.25);
        let minus4 = self.k(-4.0);
        let mut h = None;
        let mut l = None;
        for i in 0..PIECES {
            let bits = two_over_pi_bits(i * PIECE_BITS, PIECE_BITS);
            let c = bits as f64 * 2f64.powi(-((PIECE_BITS * (i + 1)) as i32));
            let c = self.k(c);
            let p = self.mul(x, c);
            let p4 = self.mul(p, quarter);
            let q = self.nearest(p4);
            let g = self.fma(q, minus4, p);
            match (h, l) {
                (None, _) => h = Some(g),
                (Some(hh), ll) => {
                    let (s, e) = self.two_sum(hh, g);
                    h = Some(s);
                    l = Some(match ll {
                        None => e,
                        Some(ll) => self.add(ll, e),
                    });
                }
            }
        }
        let (h, l) = (h.expect("pieces"), l.expect("pieces"));
        let k = self.nearest(h);
        let f = self.sub(h, k);
        // f + l as fh + fl (|f| ≥ |l|: f is at least 2^-30, l below 2^-49).
        let fh = self.add(f, l);
        let back = self.sub(f, fh);
        let fl = self.add(back, l);
        // (fh + fl)·π/2 with π/2 = P1 + P2.
        let p1 = self.k(FRAC_PI_2);
        let p2 = self.k(6.123_233_995_736_766e-17);
        let rh = self.mul(fh, p1);
        let nrh = self.neg(rh);
        let err = self.fma(fh, p1, nrh);
        let lo = self.mul(fl, p1);
        let lo = self.fma(fh, p2, lo);
        let lo = self.add(err, lo);
        (k, self.add(rh, lo))
    }

    /// `(sin r, cos r)` for |r| ≤ π/4.
    fn sincos_poly(&mut self, r: P) -> (P, P) {
        let z = self.mul(r, r);
        let sign = |k: usize, v: f64| if k % 2 == 1 { -v } else { v };
        let sc: Vec<f64> = (0..7).map(|k| sign(k, inv_fact(2 * k + 1))).collect();
        let cc: Vec<f64> = (0..8).map(|k| sign(k, inv_fact(2 * k))).collect();
        let sp = self.poly(z, &sc);
        let s = self.mul(r, sp);
        let c = self.poly(z, &cc);
        (s, c)
    }

    /// sin, cos or tan (`which` 0, 1, 2) of `k·π/2 + r`.
    fn trig_from(&mut self, k: P, r: P, which: u32) -> P {
        let (s, c) = self.sincos_poly(r);
        self.trig_pick(k, s, c, which)
    }

    /// sin, cos or tan (`which` 0, 1, 2) of `k·π/2 + r` from `(s, c)`,
    /// the sine and cosine of `r`.
    fn trig_pick(&mut self, k: P, s: P, c: P, which: u32) -> P {
        let kk = if which == 1 {
            let one = self.k(1.0);
            self.add(k, one)
        } else {
            k
        };
        let m = self.k(MAGIC);
        let kb = self.add(kk, m);
        let zero = self.ik(0);
        let bit0 = self.ik(1);
        let odd = self.bin(Bin::QAnd, kb, bit0);
        let even = self.cmp_kind(CmpKind::I64, 0, odd, zero);
        let two = self.ik(2);
        let q2 = self.bin(Bin::QAnd, kb, two);
        let s62 = self.ik(62);
        let flip = self.bin(Bin::QShl, q2, s62);
        if which == 2 {
            let t = self.div(s, c);
            let nc = self.neg(c);
            let ct = self.div(nc, s);
            let inf = self.k(f64::INFINITY);
            let pole = self.bin(Bin::QXor, inf, flip);
            let s0 = self.cmp_k(EQ, s, 0.0);
            let ct = self.pick(s0, pole, ct);
            return self.pick(even, t, ct);
        }
        let v = self.pick(even, s, c);
        self.bin(Bin::QXor, v, flip)
    }

    /// The reduction of |x| > 2^20 and ±inf ([`Self::huge_reduce`]) is a
    /// region of its own, run only when one of the chunk's lanes needs it.
    fn trig_d(&mut self, x: P, which: u32) -> P {
        let (k0, r0) = self.trig_reduce(x);
        let ax = self.abs(x);
        let huge = self.cmp_k(GT, ax, TRIG_FAST_LIMIT);
        let (k, r) = (self.copy(k0), self.copy(r0));
        let any = self.p.k();
        self.p.push(Op::KOr {
            d: any,
            a: huge.0[0],
            b: huge.0[1],
        });
        self.p.push(Op::IfAny { k: any });
        self.cold = true;
        let (hk, hr) = self.huge_reduce(x);
        self.merge(huge, k, hk);
        self.merge(huge, r, hr);
        self.cold = false;
        self.p.push(Op::EndIf);
        let v = self.trig_from(k, r, which);
        if which == 1 {
            v
        } else {
            let z = self.cmp_k(EQ, x, 0.0);
            self.pick(z, x, v)
        }
    }

    /// sinpi / cospi / tanpi: the reduction `x = k/2 + r` is exact.
    fn trigpi_d(&mut self, x0: P, which: u32) -> P {
        let half = self.k(0.5);
        let h = self.mul(x0, half);
        let th = self.trunc(h);
        let two = self.k(2.0);
        let t2 = self.mul(th, two);
        let x = self.sub(x0, t2);
        let x2 = self.mul(x, two);
        let k = self.nearest(x2);
        let kh = self.mul(k, half);
        let r = self.sub(x, kh);
        let pi = self.k(PI);
        let r = self.mul(r, pi);
        let v = self.trig_from(k, r, which);
        let ax = self.abs(x0);
        let inf = self.cmp_k(EQ, ax, f64::INFINITY);
        let nan = self.nan();
        let v = self.pick(inf, nan, v);
        let z = self.cmp_k(EQ, v, 0.0);
        let zero = self.k(0.0);
        let signed_zero = match which {
            1 => zero,
            0 => self.copysign(zero, x0),
            _ => {
                let sz = self.copysign(zero, x0);
                let ax = self.abs(x);
                let odd = self.cmp_k(EQ, ax, 1.0);
                self.neg_if(odd, sz)
            }
        };
        self.pick(z, signed_zero, v)
    }

    /// `c[0] + c[1]·x + …` of coefficients given as bits (Horner, fused).
    fn poly_bits(&mut self, x: P, c: &[u64]) -> P {
        let c: Vec<f64> = c.iter().map(|b| f64::from_bits(*b)).collect();
        self.poly(x, &c)
    }

    /// atan t for 0 ≤ t ≤ 1: `t·P(t²)` (`ATAN_Z`), 15 operations a half
    /// where the two argument halvings and Taylor series before took two
    /// square roots and two divisions.
    fn atan01(&mut self, t: P) -> P {
        let z = self.mul(t, t);
        let p = self.poly_bits(z, &ATAN_Z);
        self.mul(t, p)
    }

    fn atan_d(&mut self, x: P) -> P {
        let a = self.abs(x);
        let inv = self.cmp_k(GT, a, 1.0);
        let one = self.k(1.0);
        let ra = self.div(one, a);
        let t = self.pick(inv, ra, a);
        let r = self.atan01(t);
        let h = self.k(FRAC_PI_2);
        let rr = self.sub(h, r);
        let r = self.pick(inv, rr, r);
        self.copysign(r, x)
    }

    fn atan2_d(&mut self, y: P, x: P) -> P {
        let ay = self.abs(y);
        let ax = self.abs(x);
        let swap = self.cmp(GT, ay, ax);
        let num = self.pick(swap, ax, ay);
        let den = self.pick(swap, ay, ax);
        let a = self.div(num, den);
        let zero = self.k(0.0);
        let dz = self.cmp_k(EQ, den, 0.0);
        let a = self.pick(dz, zero, a);
        let yi = self.cmp_k(EQ, ay, f64::INFINITY);
        let xi = self.cmp_k(EQ, ax, f64::INFINITY);
        let both = self.kand(yi, xi);
        let one = self.k(1.0);
        let a = self.pick(both, one, a);
        let r = self.atan01(a);
        let h = self.k(FRAC_PI_2);
        let rr = self.sub(h, r);
        let r = self.pick(swap, rr, r);
        let xneg = self.dneg(x);
        let pi = self.k(PI);
        let rp = self.sub(pi, r);
        let r = self.pick(xneg, rp, r);
        let r = self.copysign(r, y);
        let un = self.cmp(UNORD, x, y);
        let nan = self.add(x, y);
        self.pick(un, nan, r)
    }

    fn asin_d(&mut self, x: P) -> P {
        let a = self.abs(x);
        let one = self.k(1.0);
        let p = self.sub(one, a);
        let q = self.add(one, a);
        let pq = self.mul(p, q);
        let s = self.sqrt(pq);
        let t = self.div(a, s);
        let r = self.atan_d(t);
        let r = self.copysign(r, x);
        let z = self.cmp_k(EQ, x, 0.0);
        self.pick(z, x, r)
    }

    fn acos_d(&mut self, x: P) -> P {
        let one = self.k(1.0);
        let p = self.sub(one, x);
        let q = self.add(one, x);
        let d = self.div(p, q);
        let s = self.sqrt(d);
        let r = self.atan_d(s);
        let two = self.k(2.0);
        self.mul(r, two)
    }

    fn hyper_d(&mut self, x: P, which: u32) -> P {
        let a = self.abs(x);
        let one = self.k(1.0);
        let half = self.k(0.5);
        match which {
            0 => {
                // sinh = (E + E/(E+1))/2, E = expm1|x|
                let e = self.expm1_d(a);
                let e1 = self.add(e, one);
                let d = self.div(e, e1);
                let s = self.add(e, d);
                let s = self.mul(s, half);
                let r = self.copysign(s, x);
                let z = self.cmp_k(EQ, x, 0.0);
                self.pick(z, x, r)
            }
            1 => {
                let e = self.exp_d(a);
                let h = self.mul(e, half);
                let ih = self.div(half, e);
                self.add(h, ih)
            }
            _ => {
                // tanh = E/(E+2), E = expm1(2|x|)
                let two = self.k(2.0);
                let a2 = self.mul(a, two);
                let e = self.expm1_d(a2);
                let d = self.add(e, two);
                let t = self.div(e, d);
                let r = self.copysign(t, x);
                let z = self.cmp_k(EQ, x, 0.0);
                self.pick(z, x, r)
            }
        }
    }

    /// `erfc |x|`, accurate relative to itself (the series of erf below
    /// 2, Laplace's continued fraction above).
    fn erfc_abs(&mut self, x: P) -> P {
        let a = self.abs(x);
        let one = self.k(1.0);
        // |x| < 2: Maclaurin series of erf.
        let z = self.mul(a, a);
        let kk = 2.0 / PI.sqrt();
        let c: Vec<f64> = (0..27)
            .map(|n| {
                let v = kk * inv_fact(n) / (2 * n + 1) as f64;
                if n % 2 == 1 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let p = self.poly(z, &c);
        let erf_small = self.mul(a, p);
        // |x| ≥ 2: Laplace's continued fraction for erfc, evaluated forwards.
        let ac = self.max_k(a, 2.0);
        let ac = self.min_k(ac, 11.0);
        let (mut a0, mut a1) = (one, ac);
        let zero = self.k(0.0);
        let (mut b0, mut b1) = (zero, one);
        for n in 1..=24 {
            let kn = self.k(n as f64 * 0.5);
            let xa = self.mul(ac, a1);
            let ka = self.mul(kn, a0);
            let a2 = self.add(xa, ka);
            let xb = self.mul(ac, b1);
            let kb = self.mul(kn, b0);
            let b2 = self.add(xb, kb);
            (a0, a1, b0, b1) = (a1, a2, b1, b2);
        }
        let acc = self.mul(ac, ac);
        let nacc = self.neg(acc);
        let e = self.exp_d(nacc);
        let sp = self.k(PI.sqrt());
        let den = self.mul(a1, sp);
        let num = self.mul(e, b1);
        let erfc_big = self.div(num, den);
        let small = self.cmp_k(LT, a, 2.0);
        let e2 = self.sub(one, erf_small);
        let erfc = self.pick(small, e2, erfc_big);
        let un = self.cmp(UNORD, x, x);
        self.pick(un, x, erfc)
    }

    /// `erfc x`: [`Self::erfc_abs`], and `2 - erfc |x|` for negative `x`.
    fn erfc_d(&mut self, x: P) -> P {
        let erfc = self.erfc_abs(x);
        let neg = self.cmp_k(LT, x, 0.0);
        let two = self.k(2.0);
        let m = self.sub(two, erfc);
        self.pick(neg, m, erfc)
    }

    fn cbrt_d(&mut self, x: P) -> P {
        let a = self.abs(x);
        let (e, lm) = self.log_parts(a);
        let hi = self.k(LN2_HI);
        let lo = self.k(LN2_LO);
        let p = self.mul(e, hi);
        let q = self.mul(e, lo);
        let q = self.add(q, lm);
        let l = self.add(p, q);
        let third = self.k(1.0 / 3.0);
        let t = self.mul(l, third);
        let r = self.exp_d(t);
        // One Newton step: r -= (r³ - a) / (3r²).
        let r2 = self.mul(r, r);
        let r3 = self.mul(r2, r);
        let d = self.sub(r3, a);
        let three = self.k(3.0);
        let den = self.mul(r2, three);
        let c = self.div(d, den);
        let r = self.sub(r, c);
        let r = self.copysign(r, x);
        let pos = self.cmp_k(GT, a, 0.0);
        let fin = self.cmp_k(LT, a, f64::INFINITY);
        let ok = self.kand(pos, fin);
        self.pick(ok, r, x)
    }

    /// `|x|^y` through `2^(y·log2|x|)`.
    fn pow_abs(&mut self, x: P, y: P) -> P {
        let a = self.abs(x);
        let l = self.log2_d(a);
        self.exp2_of_product(y, l)
    }

    /// `2^(y·l)`, the product clamped to ±1000 (0 or inf past it).
    fn exp2_of_product(&mut self, y: P, l: P) -> P {
        let t = self.mul(y, l);
        let t = self.min_k(t, 1000.0);
        let t = self.max_k(t, -1000.0);
        let k = self.k(LN_2);
        let t = self.mul(t, k);
        self.exp_d(t)
    }

    /// Masks: y is an integer (±∞ count as even), y is an odd integer.
    fn int_parity(&mut self, y: P) -> (M, M) {
        let ty = self.trunc(y);
        let is_int = self.cmp(EQ, ty, y);
        let half = self.k(0.5);
        let h = self.mul(y, half);
        let th = self.trunc(h);
        let frac = self.cmp(NEQ, th, h);
        (is_int, self.kand(is_int, frac))
    }

    fn pow_d(&mut self, x: P, y: P) -> P {
        let r = self.pow_abs(x, y);
        let (is_int, odd) = self.int_parity(y);
        let xneg = self.dneg(x);
        let flip = self.kand(xneg, odd);
        let r = self.neg_if(flip, r);
        let lt = self.cmp_k(LT, x, 0.0);
        let ninf = self.cmp_k(NEQ, x, f64::NEG_INFINITY);
        let bad = self.kand(lt, ninf);
        let bad = self.kand_not(bad, is_int);
        let nan = self.nan();
        let r = self.pick(bad, nan, r);
        let one = self.k(1.0);
        let y0 = self.cmp_k(EQ, y, 0.0);
        let r = self.pick(y0, one, r);
        let x1 = self.cmp_k(EQ, x, 1.0);
        let r = self.pick(x1, one, r);
        let xm1 = self.cmp_k(EQ, x, -1.0);
        let ay = self.abs(y);
        let yinf = self.cmp_k(EQ, ay, f64::INFINITY);
        let m1 = self.kand(xm1, yinf);
        self.pick(m1, one, r)
    }

    /// `powr`: `|x|^y` for `x ≥ 0` (-0 included), NaN for `x < 0`. The
    /// formula gives OpenCL's other special cases itself: `0·log2 0`,
    /// `0·log2 inf` and `inf·log2 1` are NaN (`powr(±0, ±0)`,
    /// `powr(inf, ±0)`, `powr(1, ±inf)`), NaN operands stay NaN, and `±0`
    /// or `inf` to a power go to 0 or inf through the clamped exponent.
    fn powr_d(&mut self, x: P, y: P) -> P {
        let r = self.pow_abs(x, y);
        let lt = self.cmp_k(LT, x, 0.0);
        let nan = self.nan();
        self.pick(lt, nan, r)
    }

    /// `pow`, `pown`, `powr` or `rootn` (`name`; `rootn`'s `y` is `n`).
    /// The special cases cost about a quarter of the routine and change
    /// nothing where `x` is positive and finite and the exponent (`1/n`
    /// for `rootn`) finite: no sign to give, no NaN, the logarithm's
    /// specials out of reach, and `x^0 = 1`, `1^y = 1` by the formula
    /// itself. Those lanes take `2^(y·log2 x)` alone, the same bits as the
    /// whole routine's; a chunk with another lane runs the whole routine
    /// for it in a skipped region ([`Op::IfAny`]).
    fn pow_family(&mut self, name: &str, x: P, y: P) -> P {
        let e = if name == "rootn" {
            let one = self.k(1.0);
            self.div(one, y)
        } else {
            y
        };
        let l = self.log2_finite(x);
        let plain = self.exp2_of_product(e, l);
        let r = self.copy(plain);
        let not_positive = self.cmp_k(NGT, x, 0.0);
        let x_inf = self.cmp_k(EQ, x, f64::INFINITY);
        let ae = self.abs(e);
        let e_bad = self.cmp_k(NLT, ae, f64::INFINITY);
        let bad = self.kor(not_positive, x_inf);
        let special = self.kor(bad, e_bad);
        let any = self.p.k();
        self.p.push(Op::KOr {
            d: any,
            a: special.0[0],
            b: special.0[1],
        });
        self.p.push(Op::IfAny { k: any });
        self.cold = true;
        let whole = match name {
            "powr" => self.powr_d(x, y),
            "rootn" => self.rootn_d(x, y),
            _ => self.pow_d(x, y),
        };
        self.merge(special, r, whole);
        self.cold = false;
        self.p.push(Op::EndIf);
        r
    }

    /// rootn(x, n) with `n` already doubles.
    fn rootn_d(&mut self, x: P, n: P) -> P {
        let one = self.k(1.0);
        let y = self.div(one, n);
        let r = self.pow_abs(x, y);
        let (_, odd) = self.int_parity(n);
        let xneg = self.dneg(x);
        let flip = self.kand(xneg, odd);
        let r = self.neg_if(flip, r);
        let lt = self.cmp_k(LT, x, 0.0);
        let bad = self.kand_not(lt, odd);
        let n0 = self.cmp_k(EQ, n, 0.0);
        let bad = self.kor(bad, n0);
        let nan = self.nan();
        self.pick(bad, nan, r)
    }

    fn hypot_d(&mut self, x: P, y: P) -> P {
        let xx = self.mul(x, x);
        let yy = self.mul(y, y);
        let s = self.add(xx, yy);
        let r = self.sqrt(s);
        let ax = self.abs(x);
        let ay = self.abs(y);
        let xi = self.cmp_k(EQ, ax, f64::INFINITY);
        let yi = self.cmp_k(EQ, ay, f64::INFINITY);
        let any = self.kor(xi, yi);
        let inf = self.k(f64::INFINITY);
        self.pick(any, inf, r)
    }

    /// One function on doubles (`a` holds the widened arguments).
    /// `x` clamped to `[lo, hi]`, NaN kept (vmath's `dclamp`).
    fn dclamp(&mut self, x: P, lo: f64, hi: f64) -> P {
        let h = self.k(hi);
        let above = self.cmp(GT, x, h);
        let x = self.pick(above, h, x);
        let l = self.k(lo);
        let below = self.cmp(LT, x, l);
        self.pick(below, l, x)
    }

    /// `x - n·c[0] - n·c[1] - …`, each step one fused operation (vmath's
    /// `cody_waite` with FMA).
    fn cody_waite(&mut self, x: P, n: P, c: &[f64]) -> P {
        let mut r = x;
        for k in c {
            let kk = self.k(-*k);
            r = self.fma(n, kk, r);
        }
        r
    }

    /// The double `exp`, `exp2` or `exp10` (`base` 0, 2, 10) of vmath's
    /// `exp_body_f64`; `usual` when every lane's result is normal and
    /// finite.
    fn exp_body_f64(&mut self, x: P, base: u32, usual: bool) -> P {
        let (lo, hi) = match base {
            2 => (-1076.0, 1025.0),
            10 => (-325.0, 310.0),
            _ => (-746.0, 710.0),
        };
        let x = if usual { x } else { self.dclamp(x, lo, hi) };
        let magic = self.k(MAGIC);
        let nm = if base == 2 {
            self.add(x, magic)
        } else {
            let k = self.k(if base == 10 { LOG2_10 } else { LOG2_E });
            self.fma(x, k, magic)
        };
        let n = self.sub(nm, magic);
        let r = match base {
            2 => {
                let d = self.sub(x, n);
                let l = self.k(LN_2);
                self.mul(d, l)
            }
            10 => {
                let d = self.cody_waite(x, n, &[LG2_HI, LG2_LO]);
                let l = self.k(LN_10);
                self.mul(d, l)
            }
            _ => self.cody_waite(x, n, &[LN2_HI, LN2_LO]),
        };
        let c: Vec<f64> = (1..=13).map(inv_fact).collect();
        let p = self.poly(r, &c);
        let one = self.k(1.0);
        let p = self.fma(r, p, one);
        if usual {
            // 2^n for |n| ≤ 1021 from the bits of `nm`.
            let bias = self.ik(1023);
            let e = self.bin(Bin::QAdd, nm, bias);
            let s52 = self.ik(52);
            let s = self.bin(Bin::QShl, e, s52);
            return self.mul(p, s);
        }
        // 2^n = 2^n1 · 2^n2, |n1|, |n2| ≤ 539.
        let half = self.k(0.5);
        let h = self.mul(n, half);
        let n1 = self.trunc(h);
        let n2 = self.sub(n, n1);
        let s1 = self.pow2i(n1);
        let s2 = self.pow2i(n2);
        let p = self.mul(p, s1);
        self.mul(p, s2)
    }

    /// The double `log`, `log2` or `log10` (`base` 0, 2, 10) of vmath's
    /// `log_body_f64`, without the special cases' selects; `usual` when
    /// every lane is positive, normal and finite.
    fn log_body_f64(&mut self, x: P, base: u32, usual: bool) -> P {
        let zero = self.k(0.0);
        let (y, tiny) = if usual {
            (x, None)
        } else {
            let tiny = self.cmp_k(LT, x, f64::MIN_POSITIVE);
            let k54 = self.k(18_014_398_509_481_984.0);
            let xs = self.mul(x, k54);
            (self.pick(tiny, xs, x), Some(tiny))
        };
        let (e, m) = self.exponent_split(y);
        let (one, half) = (self.k(1.0), self.k(0.5));
        let e = match tiny {
            Some(tiny) => {
                let k54e = self.k(54.0);
                let adj = self.pick(tiny, k54e, zero);
                self.sub(e, adj)
            }
            None => e,
        };
        let f = self.sub(m, one);
        let two = self.k(2.0);
        let den = self.add(f, two);
        let s = self.div(f, den);
        let z = self.mul(s, s);
        let p = self.poly(z, &LOG_R);
        let big_r = self.mul(z, p);
        let ff = self.mul(f, f);
        let hfsq = self.mul(ff, half);
        let t = self.add(hfsq, big_r);
        let tail = self.mul(s, t);
        match base {
            2 | 10 => {
                let d = self.sub(hfsq, tail);
                let lm = self.sub(f, d);
                if base == 2 {
                    let k = self.k(LOG2_E);
                    let a = self.mul(lm, k);
                    self.add(e, a)
                } else {
                    let k = self.k(LOG10_E);
                    let a = self.mul(lm, k);
                    let lo = self.k(LG2_LO);
                    let b = self.mul(e, lo);
                    let a = self.add(a, b);
                    let hi = self.k(LG2_HI);
                    let h = self.mul(e, hi);
                    self.add(h, a)
                }
            }
            _ => {
                let lo = self.k(LN2_LO);
                let el = self.mul(e, lo);
                let a = self.add(tail, el);
                let a = self.sub(hfsq, a);
                let a = self.sub(a, f);
                let hi = self.k(LN2_HI);
                let h = self.mul(e, hi);
                self.sub(h, a)
            }
        }
    }

    fn math(&mut self, name: &str, a: &[P]) -> P {
        let x = a[0];
        match name {
            "expm1" => {
                let r = self.expm1_d(x);
                let z = self.cmp_k(EQ, x, 0.0);
                self.pick(z, x, r)
            }
            "log1p" => self.log1p_d(x),
            "sin" => self.trig_d(x, 0),
            "cos" => self.trig_d(x, 1),
            "tan" => self.trig_d(x, 2),
            "sinpi" => self.trigpi_d(x, 0),
            "cospi" => self.trigpi_d(x, 1),
            "tanpi" => self.trigpi_d(x, 2),
            "pown" | "pow" | "powr" | "rootn" => self.pow_family(name, x, a[1]),
            "atan" => self.atan_d(x),
            "atan2" => self.atan2_d(x, a[1]),
            "asin" => self.asin_d(x),
            "acos" => self.acos_d(x),
            "atanpi" | "atan2pi" | "asinpi" | "acospi" => {
                let r = self.math(name.trim_end_matches("pi"), a);
                let k = self.k(1.0 / PI);
                self.mul(r, k)
            }
            "sinh" => self.hyper_d(x, 0),
            "cosh" => self.hyper_d(x, 1),
            "tanh" => self.hyper_d(x, 2),
            "erfc" => self.erfc_d(x),
            "cbrt" => self.cbrt_d(x),
            _ => self.hypot_d(x, a[1]),
        }
    }
}

//! Math of the wide code as zmm instruction sequences: `exp`, `exp2`,
//! `exp10`, `log`, `log2`, `log10`, `tanh`, `erf`, `atan2`, `pow`'s common lanes, OpenCL's `fmin`/`fmax`, and 32-bit
//! integer division and remainder (the functions the Cranelift code
//! evaluates in double are in [`super::dmath`]). Each routine appends the
//! machine IR of its sequence to a [`Program`] and returns the value it
//! computes; there are no calls and no branches, so a routine costs its
//! instructions in every chunk.
//!
//! `exp` and `log` are the algorithms of the Cranelift code's `f32x4`
//! pieces (`lower/builtins/vmath.rs`: the same reduction, polynomial and
//! constants in the same order), so the two agree bit for bit; AVX-512
//! shortens them without changing a result: `vscalefps` applies `2^n` with
//! one rounding (the Cranelift code splits `n` in two halves so that a
//! subnormal result rounds once, the same value), `vgetexpps` and
//! `vgetmantps` take the exponent and significand of subnormals without
//! the scaling, and merge masking replaces selects. `exp2` and `exp10`
//! follow the Cranelift code's relaxed forms, `log2` and `log10` its
//! single-precision logarithm with the last steps in two floats
//! (`log_other_base`); the Cranelift code computes those four in
//! double, correctly rounded, so the two differ in the last bit at times,
//! within the OpenCL bound of 3 ULP (`jit/tests/wide_math.rs` measures
//! every routine against a double reference). The `native_` and `half_`
//! forms are the full-precision ones, as in the interpreter and the
//! Cranelift code.
//!
//! `tanh` is single precision here (an odd polynomial near 0, `exp`
//! beyond), where the Cranelift code evaluates it in double: within 1.7
//! ULP against OpenCL's 5, not always the Cranelift code's bits. So is
//! `pow` of a positive finite base and a finite exponent
//! ([`pow_positive`]: `2^(y·log2 x)` with the logarithm and the product
//! in two floats, within 1.8 ULP against OpenCL's 16; the Cranelift code
//! calls the platform's `pow`).
//!
//! Integer division converts each half of the 16 lanes to eight doubles
//! (exact), divides there and truncates: the quotient of two 32-bit
//! integers is exact in double (its rounding error, below `q·2^-53`, never
//! reaches the distance `1/b` to the next integer). OpenCL C leaves
//! division by zero undefined and vecl must not trap: as the interpreter
//! and the Cranelift code, `x / 0` and `x % 0` are 0, `INT_MIN / -1` is
//! `INT_MIN` (the truncation's out-of-range value) and `INT_MIN % -1` is 0.

use super::{Bin, CmpKind, Cvt, Op, Program, Un, K, V};

/// `vcmpps` predicates (see [`CmpKind::F32`]).
const EQ: u8 = 0;
const LT: u8 = 1;
const UNORD: u8 = 3;
const GE: u8 = 13;
const GT: u8 = 14;

/// The base of a logarithm or exponential.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    E,
    Two,
    Ten,
}

/// Which result of a division.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivPart {
    Quotient,
    Remainder,
}

fn f(p: &mut Program, x: f32) -> V {
    p.constant(x.to_bits())
}

fn int(p: &mut Program, x: i32) -> V {
    p.constant(x as u32)
}

/// The mask of the lanes where `a pred b` ([`Op::Compare2`]).
pub(super) fn cmp(p: &mut Program, kind: CmpKind, pred: u8, a: V, b: V) -> K {
    let d = p.k();
    p.push(Op::Compare2 {
        kind,
        pred,
        d,
        a,
        b,
    });
    d
}

fn select(p: &mut Program, k: K, a: V, b: V) -> V {
    let d = p.v();
    p.push(Op::Select { d, k, a, b });
    d
}

/// `d = d OP b` in the lanes of `k` (merge masking), `d` unchanged in the
/// others.
fn masked(p: &mut Program, op: Bin, d: V, b: V, k: K) {
    p.push(Op::BinMasked { op, d, a: d, b, k });
}

/// `e^x`: `x` clamped to [-104, 89] (beyond, the result is 0 or inf
/// anyway), `x = n·ln2 + r` with `n·ln2_hi` exact, the degree-6
/// polynomial of `vmath.rs`, `2^n` by `vscalefps`; NaN gives NaN (the
/// clamps pass it on).
pub fn exp(p: &mut Program, x: V) -> V {
    let hi = f(p, 89.0);
    let lo = f(p, -104.0);
    let t = p.bin(Bin::FMinX86, hi, x);
    let t = p.bin(Bin::FMaxX86, lo, t);
    let l2e = f(p, std::f32::consts::LOG2_E);
    let nf = p.bin(Bin::FMul, t, l2e);
    let n = p.un(Un::RoundEven, nf);
    // `t - n·hi` with `-hi`: the product is exact either way.
    let c_hi = f(p, -f32::from_bits(0x3f31_7200));
    let c_lo = f(p, -1.428_606_8e-6);
    let r = p.fma(n, c_hi, t);
    let r = p.fma(n, c_lo, r);
    exp_finish(p, n, r)
}

/// `2^x`: `x = n + f` exactly, `r = f·ln2`, then as [`exp`].
pub fn exp2(p: &mut Program, x: V) -> V {
    let hi = f(p, 129.0);
    let lo = f(p, -151.0);
    let t = p.bin(Bin::FMinX86, hi, x);
    let t = p.bin(Bin::FMaxX86, lo, t);
    let n = p.un(Un::RoundEven, t);
    let fr = p.bin(Bin::FSub, t, n);
    let ln2 = f(p, std::f32::consts::LN_2);
    let r = p.bin(Bin::FMul, fr, ln2);
    exp_finish(p, n, r)
}

/// `10^x`: `x = n·log10(2) + d` with `log10(2)` in two parts (`n·hi`
/// exact for |n| < 2^8), `r = d·ln10`, then as [`exp`].
pub fn exp10(p: &mut Program, x: V) -> V {
    let hi = f(p, 39.0);
    let lo = f(p, -46.0);
    let t = p.bin(Bin::FMinX86, hi, x);
    let t = p.bin(Bin::FMaxX86, lo, t);
    let l2t = f(p, std::f32::consts::LOG2_10);
    let nf = p.bin(Bin::FMul, t, l2t);
    let n = p.un(Un::RoundEven, nf);
    let c_hi = f32::from_bits(std::f32::consts::LOG10_2.to_bits() & 0xffff_ff00);
    let c_lo = (std::f64::consts::LOG10_2 - f64::from(c_hi)) as f32;
    let (c_hi, c_lo) = (f(p, c_hi), f(p, c_lo));
    let a = p.bin(Bin::FMul, n, c_hi);
    let d = p.bin(Bin::FSub, t, a);
    let b = p.bin(Bin::FMul, n, c_lo);
    let d = p.bin(Bin::FSub, d, b);
    let ln10 = f(p, std::f32::consts::LN_10);
    let r = p.bin(Bin::FMul, d, ln10);
    exp_finish(p, n, r)
}

/// `tanh x` in single precision, branch-free over the 16 lanes, with
/// `a = |x|` and the sign of `x` put back last (so `tanh(-0) = -0`):
///
/// - `a < 0.7`: `a + a·z·P(z)`, `z = a²`, `P` of degree 4 fitted here for
///   least relative error (about 2^-30 in exact arithmetic; the
///   evaluation in floats with FMAs stays within 0.85 ULP);
/// - otherwise `1 - 2/(e^{2a} + 1)` with [`exp`]: the quotient is at most
///   0.4 there, so `exp`'s error reaches the result damped, within 1.7 ULP
///   with `exp` one ULP off (a simulation of every fourth float of
///   [0.7, 10)); `e^{2a}` overflows to inf past 44 and the result is 1,
///   as it is for `a = inf`; NaN stays NaN through `exp`.
///
/// The Cranelift code's routine computes `expm1(2a)/(expm1(2a) + 2)` in
/// double (two `vdivpd` and twice the width here): within the same
/// bound, not always the same bits.
pub fn tanh(p: &mut Program, x: V) -> V {
    const P: [u32; 5] = [
        0xbeaa_aa7b,
        0x3e08_7d77,
        0xbd5b_608a,
        0x3ca4_97f0,
        0xbba8_624d,
    ];
    let magnitude = p.constant(0x7fff_ffff);
    let a = p.bin(Bin::IAnd, x, magnitude);
    let z = p.bin(Bin::FMul, a, a);
    let mut acc = f(p, f32::from_bits(P[4]));
    for c in P[..4].iter().rev() {
        let c = f(p, f32::from_bits(*c));
        acc = p.fma(acc, z, c);
    }
    let az = p.bin(Bin::FMul, a, z);
    let small = p.fma(az, acc, a);
    let twice = p.bin(Bin::FAdd, a, a);
    let e = exp(p, twice);
    let one = f(p, 1.0);
    let d = p.bin(Bin::FAdd, e, one);
    let two = f(p, 2.0);
    let q = p.bin(Bin::FDiv, two, d);
    let large = p.bin(Bin::FSub, one, q);
    let bound = f(p, 0.7);
    let near = cmp(p, CmpKind::F32, LT, a, bound);
    let r = select(p, near, small, large);
    let sign = p.constant(0x8000_0000);
    let s = p.bin(Bin::IAnd, x, sign);
    p.bin(Bin::IOr, r, s)
}

/// `e^r · 2^n` for |r| ≤ ln2/2. A NaN input reaches `n` and `r`
/// through the clamps of [`exp`], [`exp2`] and [`exp10`] (`vminps` and
/// `vmaxps` give their second operand, the input, when it is NaN), and
/// the result is NaN without a fixup.
fn exp_finish(p: &mut Program, n: V, r: V) -> V {
    // 1 + r + r²·Q(r), Q fitted for least relative error (vmath.rs).
    const C: [u32; 7] = [
        0x3f80_0000,
        0x3f80_0000,
        0x3eff_fffe,
        0x3e2a_aa49,
        0x3d2a_ac79,
        0x3c09_1ced,
        0x3ab5_1214,
    ];
    let mut acc = f(p, f32::from_bits(C[6]));
    for c in C[..6].iter().rev() {
        let c = f(p, f32::from_bits(*c));
        acc = p.fma(acc, r, c);
    }
    p.bin(Bin::Scalef, acc, n)
}

/// [`Op::Fixup`] tables: four bits per class of the input, from the
/// lowest: quiet NaN, signalling NaN, ±0, +1, -inf, +inf, negative,
/// positive; 0 keeps the computed lane, 1 takes the input, 3 is the
/// default NaN, 4 -inf, 5 +inf.
///
/// The logarithm's special inputs: ±0 → -inf, +inf → +inf, a negative
/// input (-inf too) → NaN, a NaN → itself; positive finite inputs,
/// subnormals included, keep the computed lane (`log(1)` computes +0).
const LOG_SPECIALS: u32 = 0x0353_0411;

/// `rsqrt`'s special inputs: ±0 → ±inf (6, the infinity of the input's
/// sign), +1 → +1 (10), +inf → +0 (8), a negative input (-inf too) →
/// NaN (3), a NaN → itself made quiet (2); positive finite inputs,
/// subnormals included, keep the computed lane.
const RSQRT_SPECIALS: u32 = 0x0383_a622;

/// `native_rsqrt x` and `half_rsqrt x`, within 1.1 ULP: `vrsqrt14ps`'s
/// estimate `y` (relative error below 2^-14), one Newton step `y + (-y/2)
/// · (x·y·y - 1)` whose residual `h·y - 1` (`h = x·y`, then one FMA) is
/// exact to 2^-37 and whose last step is one FMA, and `vfixupimmps` for
/// the special inputs, where the step would give NaN. `x·y` first: `y·y`
/// overflows for subnormal `x`. Six operations and no division: a kernel
/// bound by the divider (a `vsqrtps` and a `vdivps` take 9 cycles of it)
/// runs twice as fast; `rsqrt` itself stays a square root and a division,
/// as in the Cranelift code (`docs/wide.md`, "rsqrt without the
/// divider": in nbody's loop the four more operations cost more than the
/// divider saves). Every float input is checked by `wide_math`'s
/// exhaustive test.
pub fn rsqrt_newton(p: &mut Program, x: V) -> V {
    let y = p.un(Un::Rsqrt14, x);
    let h = p.bin(Bin::FMul, x, y);
    let one = f(p, 1.0);
    let e = p.v();
    p.push(Op::Fms {
        d: e,
        a: h,
        b: y,
        c: one,
    });
    let minus_half = f(p, -0.5);
    let g = p.bin(Bin::FMul, y, minus_half);
    let r = p.fma(g, e, y);
    fixup(p, r, x, RSQRT_SPECIALS)
}

/// `r` with its lanes replaced where `x`'s class says so in `table`
/// (`vfixupimmps`, one instruction for what took a compare and a
/// select per special class).
fn fixup(p: &mut Program, r: V, x: V, table: u32) -> V {
    let t = p.constant(table);
    p.push(Op::Fixup { d: r, x, table: t });
    r
}

/// `ln m` of `x = 2^e·m` in parts: `e` (a float), `fr = m - 1`, `den =
/// fr + 2`, `s = fr/den`, `2s` and the series' tail `s·z·P(z)` with `z =
/// s²` and `P`'s coefficients `2/3, 2/5, …, 2/(2·terms + 1)`, so that `ln m
/// = 2s + tail` (`2·atanh s`), `m` in [√2/2, √2); `sz = s·z` and `acc =
/// P(z)` for a caller that recovers the tail's rounding ([`pow_positive`]).
struct LnParts {
    e: V,
    fr: V,
    den: V,
    s: V,
    s2: V,
    z: V,
    sz: V,
    acc: V,
    tail: V,
}

fn ln_parts(p: &mut Program, x: V, terms: usize) -> LnParts {
    let e = p.un(Un::GetExp, x);
    let m = p.un(Un::GetMant, x);
    let sq2 = f(p, std::f32::consts::SQRT_2);
    let big = cmp(p, CmpKind::F32, GT, m, sq2);
    let half = f(p, 0.5);
    let one = f(p, 1.0);
    masked(p, Bin::FMul, m, half, big);
    masked(p, Bin::FAdd, e, one, big);
    let fr = p.bin(Bin::FSub, m, one);
    let two = f(p, 2.0);
    let den = p.bin(Bin::FAdd, fr, two);
    let s = p.bin(Bin::FDiv, fr, den);
    let z = p.bin(Bin::FMul, s, s);
    let mut acc = f(p, 2.0 / (2 * terms + 1) as f32);
    for k in (1..terms).rev() {
        let c = f(p, 2.0 / (2 * k + 1) as f32);
        acc = p.fma(acc, z, c);
    }
    let sz = p.bin(Bin::FMul, s, z);
    let tail = p.bin(Bin::FMul, sz, acc);
    let s2 = p.bin(Bin::FAdd, s, s);
    LnParts {
        e,
        fr,
        den,
        s,
        s2,
        z,
        sz,
        acc,
        tail,
    }
}

/// `log x` in `base`: `x = 2^e·m` with `m` in [√2/2, √2), `ln m =
/// 2·atanh((m-1)/(m+1))` by its series to `z⁴` (`vmath.rs`), the
/// exponent's term added in the base's units; 0 → -inf, +inf → +inf,
/// negative or NaN → NaN.
pub fn log(p: &mut Program, x: V, base: Base) -> V {
    let l = ln_parts(p, x, 4);
    let r = match base {
        Base::E => {
            let lm = p.bin(Bin::FAdd, l.s2, l.tail);
            let c_hi = f(p, f32::from_bits(0x3f31_7200));
            let c_lo = f(p, 1.428_606_8e-6);
            let a = p.bin(Bin::FMul, l.e, c_hi);
            let b = p.fma(l.e, c_lo, lm);
            p.bin(Bin::FAdd, a, b)
        }
        Base::Two | Base::Ten => {
            let (sum, low) = log_other_base(p, base, &l, false);
            p.bin(Bin::FAdd, sum, low)
        }
    };
    fixup(p, r, x, LOG_SPECIALS)
}

/// `e·log_b(2) + ln(m)·log_b(e)` for base 2 or 10 in two floats, `sum +
/// low`, with `ln m = 2s + tail` carried in two floats: the multiplication
/// by `log_b(e)` in one float would add up to 1.5 ULP to the logarithm's
/// own error (3.02 ULP for `log2` just below √2), so `s = fr / den` gets
/// its low part (the rounding errors of `den = fr + 2` and of the
/// division, recovered with an FMA), the product is taken in two floats,
/// and the exponent's term is added by an exact two-sum (`|e| ≥ 1` beside
/// a product below 0.5, or `e = 0`).
///
/// `precise` (for [`pow_positive`], whose `y·log2 x` magnifies the
/// logarithm's error up to 150 times) also takes the series' second-order
/// term of `s_lo` (`2·s_lo·z`: the tail evaluated at `s` alone misses it,
/// up to 2^-28.4 of `ln m` near `m = √2/2`), the tail's rounding
/// errors (`s·z` and `s·z·P(z)` recovered by FMAs) and the remainder of
/// its first coefficient (2/3 is not a float); `log2` and `log10`
/// keep the shorter form, within their 3 ULP without them.
fn log_other_base(p: &mut Program, base: Base, l: &LnParts, precise: bool) -> (V, V) {
    let two = f(p, 2.0);
    let sign = int(p, i32::MIN);
    // den + den_lo = fr + 2 exactly (|fr| < 2).
    let t = p.bin(Bin::FSub, l.den, two);
    let den_lo = p.bin(Bin::FSub, l.fr, t);
    // fr - s·(den + den_lo), then divided: s's low part.
    let ns = p.bin(Bin::IXor, l.s, sign);
    let r1 = p.fma(ns, l.den, l.fr);
    let r2 = p.fma(ns, den_lo, r1);
    let s_lo = p.bin(Bin::FDiv, r2, l.den);
    // ln m = hi + lo: 2s + (2·s_lo + tail), the small part first.
    let t = if precise {
        // 2·s_lo·(1 + z), and the tail in two floats.
        let w = p.fma(l.z, s_lo, s_lo);
        let t = p.fma(two, w, l.tail);
        let nz = p.bin(Bin::IXor, l.z, sign);
        let z_lo = p.fma(l.s, l.s, nz);
        let nsz = p.bin(Bin::IXor, l.sz, sign);
        let sz_lo = p.fma(l.s, l.z, nsz);
        let sz_lo = p.fma(l.s, z_lo, sz_lo);
        let nt = p.bin(Bin::IXor, l.tail, sign);
        let tail_err = p.fma(l.sz, l.acc, nt);
        let tail_lo = p.fma(sz_lo, l.acc, tail_err);
        // The series' first coefficient, 2/3, is not a float: its
        // remainder times s·z.
        let third = 2.0f64 / 3.0;
        let c_lo = f(p, (third - f64::from(third as f32)) as f32);
        let tail_lo = p.fma(l.sz, c_lo, tail_lo);
        p.bin(Bin::FAdd, t, tail_lo)
    } else {
        p.fma(two, s_lo, l.tail)
    };
    let hi = p.bin(Bin::FAdd, l.s2, t);
    let back = p.bin(Bin::FSub, hi, l.s2);
    let lo = p.bin(Bin::FSub, t, back);
    // (hi + lo)·(k_hi + k_lo) as p_hi + p_lo.
    let k = match base {
        Base::Two => std::f64::consts::LOG2_E,
        _ => std::f64::consts::LOG10_E,
    };
    let k_hi = k as f32;
    let k_lo = (k - f64::from(k_hi)) as f32;
    let (k_hi, k_lo) = (f(p, k_hi), f(p, k_lo));
    let p_hi = p.bin(Bin::FMul, hi, k_hi);
    let np = p.bin(Bin::IXor, p_hi, sign);
    let p_err = p.fma(hi, k_hi, np);
    let p_lo = p.fma(lo, k_hi, p_err);
    let p_lo = p.fma(hi, k_lo, p_lo);
    // The exponent's term: e exactly for base 2; for base 10 e·hi exact
    // (hi has 12 significant bits, |e| < 2^8) and e·lo added to the low
    // part.
    let (a, p_lo) = match base {
        Base::Two => (l.e, p_lo),
        _ => {
            let hi = f32::from_bits(std::f32::consts::LOG10_2.to_bits() & 0xffff_f000);
            let lo = (std::f64::consts::LOG10_2 - f64::from(hi)) as f32;
            let (hi, lo) = (f(p, hi), f(p, lo));
            let a = p.bin(Bin::FMul, l.e, hi);
            (a, p.fma(l.e, lo, p_lo))
        }
    };
    let sum = p.bin(Bin::FAdd, a, p_hi);
    let back = p.bin(Bin::FSub, sum, a);
    let err = p.bin(Bin::FSub, p_hi, back);
    (sum, p.bin(Bin::FAdd, err, p_lo))
}

/// `x^y` in single precision for positive finite `x` (subnormals
/// included) and finite `y`: `2^(y·log2 x)` with `log2 x` in two floats
/// (`log_other_base`, `precise`, over the series to `z⁵`), the
/// product `t` in two floats (an FMA recovers `y·hi`'s rounding), `t = n
/// + f` with `n` an integer and `|f| ≤ 1/2`, and `2^f·2^n` by [`exp`]'s
/// polynomial and `vscalefps`. `t` is clamped to ±200 (0 or inf beyond;
/// an infinite product drives `f` to ±1 past the clamp, never NaN).
/// Within 1.8 ULP of a double reference across the whole range
/// (`jit/tests/wide_math.rs`), against OpenCL's 16. Other lanes are the
/// caller's (`dmath::pow_f32`).
pub fn pow_positive(p: &mut Program, x: V, y: V) -> V {
    let l = ln_parts(p, x, 5);
    let (hi, lo) = log_other_base(p, Base::Two, &l, true);
    let sign = int(p, i32::MIN);
    let t_hi = p.bin(Bin::FMul, y, hi);
    let nt = p.bin(Bin::IXor, t_hi, sign);
    let err = p.fma(y, hi, nt);
    let t_lo = p.fma(y, lo, err);
    let (top, bottom) = (f(p, 200.0), f(p, -200.0));
    let t = p.bin(Bin::FMinX86, t_hi, top);
    let t = p.bin(Bin::FMaxX86, t, bottom);
    let n = p.un(Un::RoundEven, t);
    let d = p.bin(Bin::FSub, t, n);
    let fr = p.bin(Bin::FAdd, d, t_lo);
    let (one, minus_one) = (f(p, 1.0), f(p, -1.0));
    let fr = p.bin(Bin::FMinX86, fr, one);
    let fr = p.bin(Bin::FMaxX86, fr, minus_one);
    let ln2 = f(p, std::f32::consts::LN_2);
    let r = p.bin(Bin::FMul, fr, ln2);
    exp_finish(p, n, r)
}

/// `erf x = x·P(x²)` for |x| < 1: a polynomial fitted for least relative
/// error as `dmath.rs`'s `ATAN_Z` (below 2^-40 in exact arithmetic; the
/// wide code evaluated it in double until `erf` took single precision),
/// its coefficients rounded to floats (the first, 2/√π, is also taken in
/// two floats by [`erf`]).
const ERF_SMALL_F32: [u32; 9] = [
    0x3f90_6ebb, // 1.128379226e+00
    0xbec0_93a3, // -3.761263788e-01
    0x3de7_1790, // 1.128379107e-01
    0xbcdc_165e, // -2.686613426e-02
    0x3bab_2c49, // 5.223785061e-03
    0xba5f_f0e4, // -8.542670403e-04
    0x38fa_c15d, // 1.195694567e-04
    0xb769_6643, // -1.391169189e-05
    0x358e_34f9, // 1.059524152e-06
];

/// `erf x = P(s)`, `s = (x - 2.5)/1.5`, for 1 ≤ x ≤ 4: a Chebyshev fit
/// of degree 14 at 6 000 nodes in powers of `s` (absolute error 2^-26.6
/// in exact arithmetic against a result in [0.84, 1]), rounded to floats.
const ERF_BIG_F32: [u32; 15] = [
    0x3f7f_e554, // 9.995930195e-01
    0x3b56_1fd0, // 3.267277032e-03
    0xbc48_bff7, // -1.225279924e-02
    0x3ce6_e8e4, // 2.818722278e-02
    0xbd32_cc5f, // -4.365193471e-02
    0x3d3e_048b, // 4.639105126e-02
    0xbd02_85d0, // -3.186589479e-02
    0x3c1c_dd6f, // 9.574278258e-03
    0x3bd9_489b, // 6.630969699e-03
    0xbc2a_7354, // -1.040347293e-02
    0x3b99_3eaf, // 4.676661920e-03
    0x3ac9_5ae5, // 1.536217169e-03
    0xbb05_a96e, // -2.039517742e-03
    0x38cb_7d11, // 9.703089745e-05
    0x3988_3d6d, // 2.598570718e-04
];

/// The polynomial with coefficients `c` (bits of floats, lowest degree
/// first) at `x`, by Horner's rule with FMAs.
fn horner(p: &mut Program, x: V, c: &[u32]) -> V {
    let (last, rest) = c.split_last().expect("a coefficient");
    let mut acc = p.constant(*last);
    for k in rest.iter().rev() {
        let k = p.constant(*k);
        acc = p.fma(acc, x, k);
    }
    acc
}

/// `erf x` in single precision, branch-free: `|x|·P(x²)` below 1, `P(s)`
/// of `s = (|x| - 2.5)/1.5` from 1 to 4 and 1 past 4 (the float nearest
/// `erf x` is 1 from 3.92 on), the sign of `x` put back last (`erf(±0) =
/// ±0`, `erf(±inf) = ±1`); NaN returns itself. The same two forms ran in
/// double on each half of the chunk before (a degree-20 polynomial for
/// the second); here the 16 lanes take one pass of floats: within 1.3 ULP over the
/// tests' sweep (`jit/tests/wide_math.rs`), against OpenCL's 16.
pub fn erf(p: &mut Program, x: V) -> V {
    let abs = int(p, 0x7fff_ffff);
    let a = p.bin(Bin::IAnd, x, abs);
    let z = p.bin(Bin::FMul, a, a);
    // |x|·(c0 + z·Q(z)) with c0 = 2/√π in two floats: |x|·c0_hi last, by
    // an FMA, so that the leading term rounds once.
    let q = horner(p, z, &ERF_SMALL_F32[1..]);
    let c0 = 2.0 / std::f64::consts::PI.sqrt();
    let c0_lo = f(p, (c0 - f64::from(c0 as f32)) as f32);
    let t = p.fma(z, q, c0_lo);
    let u = p.bin(Bin::FMul, a, t);
    let c0_hi = f(p, c0 as f32);
    let small = p.fma(a, c0_hi, u);
    let four = f(p, 4.0);
    let clamped = p.bin(Bin::FMinX86, a, four);
    let (k1, k0) = (f(p, 1.0 / 1.5), f(p, -2.5 / 1.5));
    let s = p.fma(clamped, k1, k0);
    let big = horner(p, s, &ERF_BIG_F32);
    let one = f(p, 1.0);
    let past = cmp(p, CmpKind::F32, GE, a, four);
    let big = select(p, past, one, big);
    let below = cmp(p, CmpKind::F32, LT, a, one);
    let r = select(p, below, small, big);
    let sign = int(p, i32::MIN);
    let xs = p.bin(Bin::IAnd, x, sign);
    let r = p.bin(Bin::IOr, r, xs);
    let nan = cmp(p, CmpKind::F32, UNORD, x, x);
    select(p, nan, x, r)
}

/// `atan t = t + t·z·Q(z)`, `z = t²`, for 0 ≤ t ≤ 1: `atan(√z)/√z` by
/// Chebyshev interpolation of degree 9 at 6 000 nodes of [0, 1] (relative
/// error 2^-28.6 in exact arithmetic; its constant term rounds to 1),
/// turned into powers of `z` and rounded to floats: `Q`'s coefficients.
const ATAN_Q_F32: [u32; 9] = [
    0xbeaa_aa9a, // -3.333328366e-01
    0x3e4c_c829, // 1.999823004e-01
    0xbe12_09dc, // -1.426157355e-01
    0x3de0_0e26, // 1.094019860e-01
    0xbdab_75ba, // -8.372063935e-02
    0x3d6b_5ee8, // 5.746355653e-02
    0xbcfb_a349, // -3.071750887e-02
    0x3c2e_fe2f, // 1.068071928e-02
    0xbae4_8ce7, // -1.743701170e-03
];

/// `atan2(y, x)` in single precision, branch-free: `t = min/max` of
/// `|y|` and `|x|` (one `vdivps`; `0/0` taken as 0, `inf/inf` as 1), `r =
/// atan t` by `ATAN_Q_F32` (`t` added last, by an FMA; π/4 rounded once
/// at `t = 1`), and the octant
/// put back as `base ± r` with `base` 0, π/2 or π in two floats (`π/2 -
/// r` where `|y| > |x|`, `π - r` where `x` is negative or -0, `π/2 + r`
/// for both), the sign of `y` last. That gives C99's special cases
/// (`atan2(±0, -0) = ±π`, `atan2(±inf, -inf) = ±3π/4`, …); a NaN operand
/// gives NaN. The double routine (`dmath.rs`) has the same steps on each
/// half of the chunk with a polynomial of degree 13. `in_pi` gives
/// `atan2pi`: `r/π` in two floats and the bases 1/2 and 1, exact, so that
/// `atan2pi(±inf, ±inf)` is ±1/4 or ±3/4 to the bit. Within 2 ULP over
/// the tests' sweeps (`jit/tests/wide_math.rs`), against OpenCL's 6.
pub fn atan2(p: &mut Program, y: V, x: V, in_pi: bool) -> V {
    let abs = int(p, 0x7fff_ffff);
    let ay = p.bin(Bin::IAnd, y, abs);
    let ax = p.bin(Bin::IAnd, x, abs);
    let swap = cmp(p, CmpKind::F32, GT, ay, ax);
    let num = select(p, swap, ax, ay);
    let den = select(p, swap, ay, ax);
    let t = p.bin(Bin::FDiv, num, den);
    let zero = f(p, 0.0);
    let den_zero = cmp(p, CmpKind::F32, EQ, den, zero);
    let t = select(p, den_zero, zero, t);
    let inf = f(p, f32::INFINITY);
    let both_inf = cmp(p, CmpKind::F32, EQ, num, inf);
    let one = f(p, 1.0);
    let t = select(p, both_inf, one, t);
    let z = p.bin(Bin::FMul, t, t);
    let q = horner(p, z, &ATAN_Q_F32);
    let tz = p.bin(Bin::FMul, t, z);
    let r = p.fma(tz, q, t);
    // t = 1 (|y| = |x|, the infinities included): π/4 rounded once, which
    // the polynomial misses by an ULP.
    let diagonal = cmp(p, CmpKind::F32, EQ, t, one);
    let quarter = f(p, std::f32::consts::FRAC_PI_4);
    let r = select(p, diagonal, quarter, r);
    // x negative or -0 (its sign bit), as a signed integer.
    let izero = int(p, 0);
    let x_neg = cmp(p, CmpKind::I32, LT, x, izero);
    let minus = p.k();
    p.push(Op::KXor {
        d: minus,
        a: swap,
        b: x_neg,
    });
    let sign = int(p, i32::MIN);
    masked(p, Bin::IXor, r, sign, minus);
    let parts = |v: f64| (v as f32, (v - f64::from(v as f32)) as f32);
    // In units of π (atan2pi): r/π in two floats, the bases 1/2 and 1
    // exact (so atan2pi(±inf, ±inf) is ±1/4 or ±3/4 to the bit).
    let (r, (half, whole)) = if in_pi {
        let (k_hi, k_lo) = parts(std::f64::consts::FRAC_1_PI);
        let (k_hi, k_lo) = (f(p, k_hi), f(p, k_lo));
        let low = p.bin(Bin::FMul, r, k_lo);
        (p.fma(r, k_hi, low), ((0.5, 0.0), (1.0, 0.0)))
    } else {
        let pi = std::f64::consts::PI;
        (r, (parts(pi / 2.0), parts(pi)))
    };
    // base: π/2 where swapped, else π where x is negative, else 0.
    let ((h_hi, h_lo), (p_hi, p_lo)) = (half, whole);
    let (h_hi, h_lo, p_hi, p_lo) = (f(p, h_hi), f(p, h_lo), f(p, p_hi), f(p, p_lo));
    let b_hi = select(p, x_neg, p_hi, zero);
    let b_lo = select(p, x_neg, p_lo, zero);
    let b_hi = select(p, swap, h_hi, b_hi);
    let b_lo = select(p, swap, h_lo, b_lo);
    let low = p.bin(Bin::FAdd, r, b_lo);
    let res = p.bin(Bin::FAdd, b_hi, low);
    let ys = p.bin(Bin::IAnd, y, sign);
    let res = p.bin(Bin::IOr, res, ys);
    let nan = cmp(p, CmpKind::F32, UNORD, x, y);
    let sum = p.bin(Bin::FAdd, x, y);
    select(p, nan, sum, res)
}

/// OpenCL's `fmin` (`max` false) or `fmax`: a NaN operand gives the
/// other, and -0 is below +0 (as the Cranelift code's `fmin`/`fmax`).
/// `vminps` gives `b` for NaNs and pairs of zeros; equal operands are
/// joined bitwise (`-0 | +0 = -0`, `-0 & +0 = +0`), a NaN `b` replaced.
pub fn fmin_max(p: &mut Program, max: bool, a: V, b: V) -> V {
    let r = p.bin(if max { Bin::FMaxX86 } else { Bin::FMinX86 }, a, b);
    let eq = cmp(p, CmpKind::F32, EQ, a, b);
    let join = if max { Bin::IAnd } else { Bin::IOr };
    p.push(Op::BinMasked {
        op: join,
        d: r,
        a,
        b,
        k: eq,
    });
    let nb = cmp(p, CmpKind::F32, UNORD, b, b);
    select(p, nb, a, r)
}

/// `a / b` or `a % b` of 32-bit integers, lane by lane, with OpenCL's
/// results for a zero divisor and `INT_MIN / -1` (see the module doc).
pub fn divide(p: &mut Program, a: V, b: V, signed: bool, part: DivPart) -> V {
    let (lo, hi) = if signed {
        (Un::I2DLow, Un::I2DHigh)
    } else {
        (Un::U2DLow, Un::U2DHigh)
    };
    let (al, ah) = (p.un(lo, a), p.un(hi, a));
    let (bl, bh) = (p.un(lo, b), p.un(hi, b));
    let ql = p.bin(Bin::DDiv, al, bl);
    let qh = p.bin(Bin::DDiv, ah, bh);
    let pack = if signed {
        Bin::PackTruncD2I
    } else {
        Bin::PackTruncD2U
    };
    let q = p.bin(pack, ql, qh);
    let r = match part {
        DivPart::Quotient => q,
        DivPart::Remainder => {
            let qb = p.bin(Bin::IMul, q, b);
            p.bin(Bin::ISub, a, qb)
        }
    };
    let zero = int(p, 0);
    let bz = cmp(p, CmpKind::I32, 0, b, zero);
    select(p, bz, zero, r)
}

/// The lanes of `b` that [`divide_by_pow2_lanes`] divides by: powers of
/// two, positive ones (2^0 to 2^30) for a signed division, any (2^0 to
/// 2^31) for an unsigned one.
pub fn pow2_lanes(p: &mut Program, b: V, signed: bool) -> K {
    let one = int(p, 1);
    let less = p.bin(Bin::ISub, b, one);
    let low = p.bin(Bin::IAnd, b, less);
    let zero = int(p, 0);
    let single = cmp(p, CmpKind::I32, 0, low, zero);
    // Signed: `b > 0`; unsigned: `b != 0`.
    let (kind, pred) = if signed {
        (CmpKind::I32, 6)
    } else {
        (CmpKind::U32, 4)
    };
    let nonzero = cmp(p, kind, pred, b, zero);
    let d = p.k();
    p.push(Op::KAnd {
        d,
        a: single,
        b: nonzero,
    });
    d
}

/// `a / b` or `a % b` where the lanes of `b` are powers of two
/// ([`pow2_lanes`]; other lanes get garbage): `a & (b - 1)` and `a >> k`
/// unsigned; signed, truncation towards zero adds `b - 1` to negative
/// dividends first (`r = ((a + bias) & (b - 1)) - bias`, `q = (a + bias)
/// >> k`). `k = log2 b` is `vgetexpps` of `b` as a float, exact for
/// powers of two (2^31, negative as an `int`, has the exponent 31 too).
pub fn divide_by_pow2_lanes(p: &mut Program, a: V, b: V, signed: bool, part: DivPart) -> V {
    let one = int(p, 1);
    let mask = p.bin(Bin::ISub, b, one);
    let bias = if signed {
        let s31 = int(p, 31);
        let sign = p.bin(Bin::Sar, a, s31);
        Some(p.bin(Bin::IAnd, sign, mask))
    } else {
        None
    };
    let biased = match bias {
        Some(x) => p.bin(Bin::IAdd, a, x),
        None => a,
    };
    match part {
        DivPart::Remainder => {
            let r = p.bin(Bin::IAnd, biased, mask);
            match bias {
                Some(x) => p.bin(Bin::ISub, r, x),
                None => r,
            }
        }
        DivPart::Quotient => {
            let bf = p.v();
            p.push(Op::Convert {
                cvt: Cvt::I2F,
                d: bf,
                a: b,
            });
            let e = p.un(Un::GetExp, bf);
            let k = p.v();
            p.push(Op::Convert {
                cvt: Cvt::F2I,
                d: k,
                a: e,
            });
            p.bin(if signed { Bin::Sar } else { Bin::Shr }, biased, k)
        }
    }
}

/// The lanes of `y` whose reciprocal is a normal power of two
/// (`|y| = 2^e`, -126 ≤ e ≤ 126), and that reciprocal: `x / y` is `x *
/// (1 / y)` there, the same bits (both round the exact `x · 2^-e` once).
/// The reciprocal's biased exponent is 254 less `y`'s.
pub fn pow2_reciprocal(p: &mut Program, y: V) -> (K, V) {
    let abs_mask = int(p, 0x7fff_ffff);
    let t = p.bin(Bin::IAnd, y, abs_mask);
    let mant_mask = int(p, 0x007f_ffff);
    let mant = p.bin(Bin::IAnd, t, mant_mask);
    let zero = int(p, 0);
    let no_mant = cmp(p, CmpKind::I32, 0, mant, zero);
    let lo = int(p, 0x0080_0000);
    let hi = int(p, 0x7e80_0000);
    let above = cmp(p, CmpKind::U32, 5, t, lo);
    let below = cmp(p, CmpKind::U32, 2, t, hi);
    let k1 = p.k();
    p.push(Op::KAnd {
        d: k1,
        a: no_mant,
        b: above,
    });
    let k = p.k();
    p.push(Op::KAnd {
        d: k,
        a: k1,
        b: below,
    });
    let bias = int(p, 0x7f00_0000);
    let magnitude = p.bin(Bin::ISub, bias, t);
    let sign_mask = int(p, 0x8000_0000u32 as i32);
    let sign = p.bin(Bin::IAnd, y, sign_mask);
    (k, p.bin(Bin::IOr, magnitude, sign))
}

/// `a / 2^k` or `a % 2^k` (0 ≤ k ≤ 30) by shifts: truncation towards
/// zero for signed `a` adds `2^k - 1` to negative dividends first.
pub fn divide_pow2(p: &mut Program, a: V, k: u32, signed: bool, part: DivPart) -> V {
    if k == 0 {
        return match part {
            DivPart::Quotient => a,
            DivPart::Remainder => int(p, 0),
        };
    }
    let kv = int(p, k as i32);
    if !signed {
        return match part {
            DivPart::Quotient => p.bin(Bin::Shr, a, kv),
            DivPart::Remainder => {
                let m = int(p, ((1u32 << k) - 1) as i32);
                p.bin(Bin::IAnd, a, m)
            }
        };
    }
    let s31 = int(p, 31);
    let sign = p.bin(Bin::Sar, a, s31);
    let rest = int(p, 32 - k as i32);
    let bias = p.bin(Bin::Shr, sign, rest);
    let biased = p.bin(Bin::IAdd, a, bias);
    let q = p.bin(Bin::Sar, biased, kv);
    match part {
        DivPart::Quotient => q,
        DivPart::Remainder => {
            let qk = p.bin(Bin::Shl, q, kv);
            p.bin(Bin::ISub, a, qk)
        }
    }
}

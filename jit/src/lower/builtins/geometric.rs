//! The geometric builtins `dot length distance normalize` and their
//! `fast_` forms, as component arithmetic on whole pieces.
//!
//! `length`, `distance` and `normalize` must neither overflow nor underflow
//! in their sum of squares (`length((float2)(1e30f, 1e30f))` is
//! 1.414e30f, not inf; `length((float2)(1e-30f, 0))` is 1e-30f, not 0).
//! The components are scaled by a power of two chosen from the largest
//! magnitude (exact, and undone exactly on the result): one compare and a
//! select per piece, no branch, so lanes of one piece may take different
//! scales. `normalize` needs no unscaling, since the direction is the same;
//! it also follows OpenCL's rules for zero vectors (returned as they are)
//! and infinite components (taken as ±1, the others as ±0). The `fast_`
//! forms are the plain formula, as the specification defines them.

use super::super::lanes::{Lanes, Val};
use super::super::{FunctionCx, LResult};
use cranelift_codegen::ir::{condcodes::FloatCC, InstBuilder, Value};
use vecl_ir::{BinaryOp, Builtin, Scalar};

/// For one float type: below `big` and above `small` the squares of up to
/// 16 components are normal and finite; larger magnitudes are multiplied
/// by `down`, smaller ones by `up`, which brings them well inside.
struct Scales {
    big: f64,
    down: f64,
    small: f64,
    up: f64,
}

fn scales(s: Scalar) -> Scales {
    if s == Scalar::F64 {
        // max |x| ∈ (2^500, 2^1024) → (2^-100, 2^424); [2^-1074, 2^-500) → [2^-474, 2^100).
        Scales {
            big: 2f64.powi(500),
            down: 2f64.powi(-600),
            small: 2f64.powi(-500),
            up: 2f64.powi(600),
        }
    } else {
        // max |x| ∈ (2^60, 2^128) → (2^-20, 2^48); [2^-149, 2^-60) → [2^-49, 2^40).
        Scales {
            big: 2f64.powi(60),
            down: 2f64.powi(-80),
            small: 2f64.powi(-60),
            up: 2f64.powi(100),
        }
    }
}

impl FunctionCx<'_, '_> {
    /// `base` is `dot length distance normalize` or a `fast_` form; `s` the
    /// arguments' element type.
    pub(super) fn lower_geometric(
        &mut self,
        base: Builtin,
        s: Scalar,
        vals: &[Val],
    ) -> LResult<Val> {
        use Builtin::*;
        let (fast, b2) = match base {
            FastLength => (true, Length),
            FastDistance => (true, Distance),
            FastNormalize => (true, Normalize),
            b => (false, b),
        };
        let v: Val = if b2 == Distance {
            vals[0]
                .iter()
                .zip(&vals[1])
                .map(|(x, y)| self.binary(BinaryOp::Sub, s, x, y))
                .collect::<LResult<_>>()?
        } else {
            vals[0].clone()
        };
        if b2 == Dot {
            return Ok(vec![self.dot(s, &v, &vals[1])?]);
        }
        if fast || !matches!(s, Scalar::F32 | Scalar::F64) {
            let sum = self.dot(s, &v, &v)?;
            let len = self.simd(s, &[sum], |cx, a| cx.b.ins().sqrt(a[0]));
            if b2 == Normalize {
                return v
                    .iter()
                    .map(|x| self.binary(BinaryOp::Div, s, x, &len))
                    .collect();
            }
            return Ok(vec![len]);
        }
        let k = scales(s);
        // The largest magnitude (NaN if a component is NaN: then no scale
        // is chosen, and NaN comes out).
        let mut m = self.simd(s, &[v[0].clone()], |cx, a| cx.b.ins().fabs(a[0]));
        for x in &v[1..] {
            m = self.simd(s, &[m, x.clone()], |cx, a| {
                let ax = cx.b.ins().fabs(a[1]);
                cx.b.ins().fmax(a[0], ax)
            });
        }
        let scale = self.simd(s, &[m.clone()], |cx, a| {
            cx.by_magnitude(s, a[0], &k, k.down, k.up)
        });
        if b2 == Normalize {
            // With an infinite component: ±1 for the infinite ones, ±0 for
            // the others; else the scaled components.
            let w: Val = v
                .iter()
                .map(|x| {
                    self.simd(s, &[x.clone(), m.clone(), scale.clone()], |cx, a| {
                        let inf = cx.fconst_like(s, a[0], f64::INFINITY);
                        let any_inf = cx.b.ins().fcmp(FloatCC::Equal, a[1], inf);
                        let ax = cx.b.ins().fabs(a[0]);
                        let is_inf = cx.b.ins().fcmp(FloatCC::Equal, ax, inf);
                        let one = cx.fconst_like(s, a[0], 1.0);
                        let zero = cx.fconst_like(s, a[0], 0.0);
                        let unit = cx.pick(is_inf, one, zero);
                        let unit = cx.or_sign(unit, a[0]);
                        let scaled = cx.b.ins().fmul(a[0], a[2]);
                        cx.pick(any_inf, unit, scaled)
                    })
                })
                .collect();
            let sum = self.dot(s, &w, &w)?;
            let len = self.simd(s, &[sum], |cx, a| cx.b.ins().sqrt(a[0]));
            // Scaled down, a component far smaller than the largest may
            // have become subnormal or zero although its quotient is a
            // subnormal the result must keep: there the quotient is taken
            // from the unscaled component, over the true length also
            // divided by 4 (the true length is at most 4 times the largest
            // component, so it stays finite; the component divided by 4
            // loses bits only where the quotient is below the subnormals).
            let down_len = 0.25 / k.down;
            // A zero vector is returned as it is (0/0 would be NaN).
            return Ok(v
                .iter()
                .zip(&w)
                .map(|(x, y)| {
                    self.simd(
                        s,
                        &[x.clone(), y.clone(), len.clone(), m.clone()],
                        |cx, a| {
                            let q = cx.b.ins().fdiv(a[1], a[2]);
                            let big = cx.fconst_like(s, a[3], k.big);
                            let inf = cx.fconst_like(s, a[3], f64::INFINITY);
                            let is_big = cx.b.ins().fcmp(FloatCC::GreaterThan, a[3], big);
                            let finite = cx.b.ins().fcmp(FloatCC::NotEqual, a[3], inf);
                            let big_finite = cx.b.ins().band(is_big, finite);
                            let quarter = cx.fconst_like(s, a[0], 0.25);
                            let xq = cx.b.ins().fmul(a[0], quarter);
                            let c = cx.fconst_like(s, a[2], down_len);
                            let true_len = cx.b.ins().fmul(a[2], c);
                            let q_big = cx.b.ins().fdiv(xq, true_len);
                            let q = cx.pick(big_finite, q_big, q);
                            let zero = cx.fconst_like(s, a[2], 0.0);
                            let z = cx.b.ins().fcmp(FloatCC::Equal, a[2], zero);
                            cx.pick(z, a[0], q)
                        },
                    )
                })
                .collect());
        }
        let w: Val = v
            .iter()
            .map(|x| self.binary(BinaryOp::Mul, s, x, &scale))
            .collect::<LResult<_>>()?;
        let sum = self.dot(s, &w, &w)?;
        // sqrt, then the inverse scale (exact unless the result is subnormal).
        Ok(vec![self.simd(s, &[sum, m], |cx, a| {
            let r = cx.b.ins().sqrt(a[0]);
            let u = cx.by_magnitude(s, a[1], &k, 1.0 / k.down, 1.0 / k.up);
            cx.b.ins().fmul(r, u)
        })])
    }

    /// `if_big` where the magnitude `m` is above `k.big`, `if_small` where
    /// it is below `k.small`, else 1.
    fn by_magnitude(
        &mut self,
        s: Scalar,
        m: Value,
        k: &Scales,
        if_big: f64,
        if_small: f64,
    ) -> Value {
        let big = self.fconst_like(s, m, k.big);
        let small = self.fconst_like(s, m, k.small);
        let is_big = self.b.ins().fcmp(FloatCC::GreaterThan, m, big);
        let is_small = self.b.ins().fcmp(FloatCC::LessThan, m, small);
        let one = self.fconst_like(s, m, 1.0);
        let b = self.fconst_like(s, m, if_big);
        let sm = self.fconst_like(s, m, if_small);
        let r = self.pick(is_small, sm, one);
        self.pick(is_big, b, r)
    }

    /// `x·y` summed over the components, in order.
    fn dot(&mut self, s: Scalar, x: &[Lanes], y: &[Lanes]) -> LResult<Lanes> {
        let mut sum: Option<Lanes> = None;
        for (a, b) in x.iter().zip(y) {
            let p = self.binary(BinaryOp::Mul, s, a, b)?;
            sum = Some(match sum {
                None => p,
                Some(acc) => self.binary(BinaryOp::Add, s, &acc, &p)?,
            });
        }
        sum.ok_or_else(|| crate::JitError::Unsupported {
            kernel: self.kernel.name().to_string(),
            what: "a geometric builtin of no components".into(),
        })
    }
}

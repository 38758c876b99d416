//! Builtins with an unusual shape: results written through a pointer
//! (`sincos fract modf frexp lgamma_r remquo`), integer results of float
//! arguments (`ilogb`, the two-argument relationals), `nan`, `maxmag`/
//! `minmag`, `upsample`, `shuffle`/`shuffle2`, the half-precision
//! loads and stores (`vload_half`, `vstore_half[_rXX]`, `vloada_half`,
//! `vstorea_half`) and the work-group copies (`async_work_group_copy`,
//! `async_work_group_strided_copy`, `wait_group_events`, `prefetch`).

use super::super::lanes::{elem_of, natural, Lanes, Val};
use super::super::{FunctionCx, LResult};
use crate::math;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use vecl_ir::{AddressSpace, BinaryOp, Builtin, CmpOp, Rounding, Scalar, Type, ValueId};

/// The integer type with the shape of a float value (`f32x4` → `i32x4`).
fn int_shape(t: types::Type) -> types::Type {
    match (t.lane_type() == types::F32, t.is_vector()) {
        (true, true) => types::I32X4,
        (true, false) => types::I32,
        (false, true) => types::I64X2,
        (false, false) => types::I64,
    }
}

impl FunctionCx<'_, '_> {
    fn fbits(&mut self, v: Value) -> Value {
        let t = int_shape(self.b.func.dfg.value_type(v));
        if t.is_vector() {
            self.vcast(t, v)
        } else {
            self.b.ins().bitcast(t, MemFlagsData::new(), v)
        }
    }

    fn ffrom_bits(&mut self, like: Value, v: Value) -> Value {
        let t = self.b.func.dfg.value_type(like);
        if t.is_vector() {
            self.vcast(t, v)
        } else {
            self.b.ins().bitcast(t, MemFlagsData::new(), v)
        }
    }

    /// `x` with the sign bit of `s` added (for a positive or zero `x`).
    pub(super) fn or_sign(&mut self, x: Value, s: Value) -> Value {
        let t = int_shape(self.b.func.dfg.value_type(x));
        let bits = t.lane_type().bits();
        let k = self.b.ins().iconst(t.lane_type(), 1i64 << (bits - 1));
        let k = if t.is_vector() {
            self.b.ins().splat(t, k)
        } else {
            k
        };
        let sb = self.fbits(s);
        let sign = self.b.ins().band(sb, k);
        let xb = self.fbits(x);
        let r = self.b.ins().bor(xb, sign);
        self.ffrom_bits(x, r)
    }

    /// maxmag / minmag: the argument of larger (smaller) magnitude, else
    /// fmax (fmin).
    pub(super) fn mag_pick(&mut self, is_max: bool, x: Value, y: Value) -> Value {
        let ax = self.b.ins().fabs(x);
        let ay = self.b.ins().fabs(y);
        let (gt, lt) = if is_max {
            (FloatCC::GreaterThan, FloatCC::LessThan)
        } else {
            (FloatCC::LessThan, FloatCC::GreaterThan)
        };
        let xw = self.b.ins().fcmp(gt, ax, ay);
        let yw = self.b.ins().fcmp(lt, ax, ay);
        let m = self.fmin_max(is_max, x, y);
        let r = self.pick(yw, y, m);
        self.pick(xw, x, r)
    }

    /// Stores `val` (components of `s`) through pointer argument `p`.
    fn store_out(&mut self, p: ValueId, s: Scalar, val: &Val) -> LResult<()> {
        let addr = self.scalar(p)?;
        self.store_lanes(&addr, s, val)
    }

    /// Calls `sym(args…)` lane by lane for every component.
    fn call_each(
        &mut self,
        sym: &str,
        ins: &[(Scalar, &Val)],
        out: Scalar,
        comps: usize,
    ) -> LResult<Val> {
        let params: Vec<types::Type> = ins.iter().map(|(s, _)| natural(*s)).collect();
        let f = self.extern_fn(sym, &params, Some(natural(out)))?;
        let mut res = Vec::with_capacity(comps);
        for c in 0..comps {
            let lanes: Vec<(Scalar, Lanes)> = ins
                .iter()
                .map(|(s, v)| {
                    (
                        *s,
                        if v.len() == 1 {
                            v[0].clone()
                        } else {
                            v[c].clone()
                        },
                    )
                })
                .collect();
            let refs: Vec<(Scalar, &Lanes)> = lanes.iter().map(|(s, l)| (*s, l)).collect();
            res.push(self.per_lane(&refs, out, |cx, v| cx.call(f, v).unwrap_or(v[0])));
        }
        Ok(res)
    }

    /// `async_work_group_[strided_]copy`: every work-item of the group
    /// passes the same arguments, so the group's first chunk (the one
    /// holding local id (0, 0, 0)) performs the whole copy when it reaches
    /// the call, and the other chunks skip it. The chunks of a group run
    /// each region in order, the first chunk first, so the copy is complete
    /// before any other work-item of the group reaches the call or its
    /// `wait_group_events`, and the group copies once instead of once per
    /// chunk.
    fn lower_async_copy(&mut self, strided: bool, args: &[ValueId]) -> LResult<()> {
        let dst_t = self.kernel.func().ty(args[0]).clone();
        let elem = dst_t
            .pointee()
            .map(|t| self.kernel.module().size_of(t))
            .ok_or_else(|| self.internal("async copy to a non-pointer"))?;
        let local_dst = matches!(dst_t, Type::Pointer(AddressSpace::Local, _));
        let lane0 = |cx: &mut Self, i: usize| -> LResult<Value> {
            let l = cx.scalar(args[i])?;
            Ok(cx.lane(Scalar::U64, &l, 0))
        };
        let d = lane0(self, 0)?;
        let s = lane0(self, 1)?;
        let n = lane0(self, 2)?;
        let stride = if strided {
            lane0(self, 3)?
        } else {
            self.b.ins().iconst(types::I64, 1)
        };
        let one = self.b.ins().iconst(types::I64, 1);
        let (ds, ss) = if local_dst {
            (one, stride)
        } else {
            (stride, one)
        };
        let e = self.b.ins().iconst(types::I64, i64::from(elem));
        let f = self.extern_fn("vecl_strided_copy", &[types::I64; 6], None)?;
        let env = self.env().clone();
        let yz = self.b.ins().bor(env.y, env.z);
        let xyz = self.b.ins().bor(env.x0, yz);
        let first = self.b.ins().icmp_imm_s(IntCC::Equal, xyz, 0);
        let (copy, done) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(first, copy, &[], done, &[]);
        self.b.switch_to_block(copy);
        self.b.ins().call(f, &[d, s, n, e, ds, ss]);
        if local_dst {
            self.races_copied(d, n, e, ds)?;
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// `sin(x)` and `cos(x)` of one `float` value, from one `sincos` per
    /// component: the bits each would get alone (`vmath::MathCx::
    /// sincos_f32`, the same steps for the three), one reduction and one
    /// call where the two made two (`vecl_ir::transform::outparam` splits
    /// `sincos(x, &c)` into them).
    pub(crate) fn lower_sin_cos_f32(&mut self, x: ValueId) -> LResult<(Val, Val)> {
        let vals = self.value(x)?;
        let (mut sv, mut cv) = (Vec::new(), Vec::new());
        for l in &vals {
            let (a, b) = self.simd_sincos_f32(l)?;
            sv.push(a);
            cv.push(b);
        }
        Ok((sv, cv))
    }

    fn sym(base: &str, s: Scalar) -> String {
        format!("vecl_{base}{}", if s == Scalar::F32 { "f" } else { "" })
    }

    /// The builtins of this file; `None` for any other builtin.
    pub(super) fn lower_extra_builtin(
        &mut self,
        base: Builtin,
        args: &[ValueId],
        vals: &[Val],
        ty: &Type,
    ) -> LResult<Option<Val>> {
        let comps = ty.lanes() as usize;
        let out = elem_of(ty);
        let fl = out.filter(|s| matches!(s, Scalar::F32 | Scalar::F64));
        let vd = base.vector_data();
        let r = match (base, fl) {
            (Builtin::Sincos, Some(s)) => {
                let (sv, cv) = if s == Scalar::F32 {
                    let mut sv = Vec::new();
                    let mut cv = Vec::new();
                    for l in &vals[0] {
                        let (a, b) = self.simd_sincos_f32(l)?;
                        sv.push(a);
                        cv.push(b);
                    }
                    (sv, cv)
                } else {
                    // Double: the `sin` and `cos` routines (`vmath/dmath.rs`).
                    let mut sv = Vec::new();
                    let mut cv = Vec::new();
                    for l in &vals[0] {
                        let a = std::slice::from_ref(l);
                        sv.push(self.simd_math("sin", a, s)?);
                        cv.push(self.simd_math("cos", a, s)?);
                    }
                    (sv, cv)
                };
                self.store_out(args[1], s, &cv)?;
                sv
            }
            (Builtin::Fract | Builtin::Modf, Some(s)) => {
                let is_fract = base == Builtin::Fract;
                let mut frac = Vec::with_capacity(comps);
                let mut whole = Vec::with_capacity(comps);
                for l in &vals[0] {
                    let ip = self.simd(s, std::slice::from_ref(l), |cx, v| {
                        if is_fract {
                            cx.b.ins().floor(v[0])
                        } else {
                            cx.b.ins().trunc(v[0])
                        }
                    });
                    let f = self.simd(s, &[l.clone(), ip.clone()], |cx, v| {
                        let x = v[0];
                        let d = cx.b.ins().fsub(x, v[1]);
                        let d = if is_fract {
                            let below_one = if s == Scalar::F32 {
                                f64::from(f32::from_bits(0x3f7f_ffff))
                            } else {
                                f64::from_bits(0x3fef_ffff_ffff_ffff)
                            };
                            let k = cx.fconst_like(s, x, below_one);
                            cx.b.ins().fmin(d, k)
                        } else {
                            let a = cx.b.ins().fabs(d);
                            cx.or_sign(a, x)
                        };
                        // ±inf → ±0 (fract: +0 for +inf), NaN → NaN, ±0 → ±0.
                        let ax = cx.b.ins().fabs(x);
                        let inf = cx.fconst_like(s, x, f64::INFINITY);
                        let is_inf = cx.b.ins().fcmp(FloatCC::Equal, ax, inf);
                        let z = cx.fconst_like(s, x, 0.0);
                        let sz = cx.or_sign(z, x);
                        let d = cx.pick(is_inf, sz, d);
                        let is_zero = cx.b.ins().fcmp(FloatCC::Equal, x, z);
                        let d = cx.pick(is_zero, x, d);
                        let un = cx.b.ins().fcmp(FloatCC::Unordered, x, x);
                        cx.pick(un, x, d)
                    });
                    frac.push(f);
                    whole.push(ip);
                }
                self.store_out(args[1], s, &whole)?;
                frac
            }
            (Builtin::Frexp, Some(s)) => {
                let e = self.call_each(
                    &Self::sym("frexp_exp", s),
                    &[(s, &vals[0])],
                    Scalar::I32,
                    comps,
                )?;
                self.store_out(args[1], Scalar::I32, &e)?;
                self.call_each(&Self::sym("frexp_mant", s), &[(s, &vals[0])], s, comps)?
            }
            (Builtin::LgammaR, Some(s)) => {
                let e = self.call_each(
                    &Self::sym("lgamma_sign", s),
                    &[(s, &vals[0])],
                    Scalar::I32,
                    comps,
                )?;
                self.store_out(args[1], Scalar::I32, &e)?;
                self.call_each(&Self::sym("lgamma", s), &[(s, &vals[0])], s, comps)?
            }
            (Builtin::Remquo, Some(s)) => {
                let ins = [(s, &vals[0]), (s, &vals[1])];
                let q = self.call_each(&Self::sym("remquo_quo", s), &ins, Scalar::I32, comps)?;
                self.store_out(args[2], Scalar::I32, &q)?;
                self.call_each(&Self::sym("remainder", s), &ins, s, comps)?
            }
            (Builtin::Ilogb, _) => {
                let s = self.elem(args[0])?;
                self.call_each(&Self::sym("ilogb", s), &[(s, &vals[0])], Scalar::I32, comps)?
            }
            (Builtin::Nan, Some(s)) => {
                let ns = self.elem(args[0])?;
                let mut res = Vec::with_capacity(comps);
                for l in &vals[0] {
                    res.push(self.per_lane(&[(ns, l)], s, |cx, v| {
                        let (quiet, payload) = if s == Scalar::F32 {
                            (0x7fc0_0000i64, 0x003f_ffffi64)
                        } else {
                            (0x7ff8_0000_0000_0000, 0x0007_ffff_ffff_ffff)
                        };
                        let p = cx.b.ins().band_imm_s(v[0], payload);
                        let n = cx.b.ins().bor_imm_s(p, quiet);
                        cx.b.ins().bitcast(natural(s), MemFlagsData::new(), n)
                    }));
                }
                res
            }
            (
                Builtin::Isequal
                | Builtin::Isnotequal
                | Builtin::Isgreater
                | Builtin::Isgreaterequal
                | Builtin::Isless
                | Builtin::Islessequal
                | Builtin::Islessgreater
                | Builtin::Isordered
                | Builtin::Isunordered,
                _,
            ) => {
                let s_in = self.elem(args[0])?;
                let Some(s_out) = out else { return Ok(None) };
                let cc = match base {
                    Builtin::Isequal => FloatCC::Equal,
                    Builtin::Isnotequal => FloatCC::NotEqual,
                    Builtin::Isgreater => FloatCC::GreaterThan,
                    Builtin::Isgreaterequal => FloatCC::GreaterThanOrEqual,
                    Builtin::Isless => FloatCC::LessThan,
                    Builtin::Islessequal => FloatCC::LessThanOrEqual,
                    Builtin::Islessgreater => FloatCC::OrderedNotEqual,
                    Builtin::Isordered => FloatCC::Ordered,
                    _ => FloatCC::Unordered,
                };
                let mut res = Vec::with_capacity(comps);
                for (x, y) in vals[0].iter().zip(&vals[1]) {
                    res.push(self.per_lane(&[(s_in, x), (s_in, y)], s_out, |cx, v| {
                        let t = cx.b.ins().fcmp(cc, v[0], v[1]);
                        cx.relational(ty, s_out, t)
                    }));
                }
                res
            }
            (Builtin::Upsample, _) => {
                let (hs, ls) = (self.elem(args[0])?, self.elem(args[1])?);
                let Some(wide) = out else { return Ok(None) };
                let mut res = Vec::with_capacity(comps);
                for (hc, lc) in vals[0].iter().zip(&vals[1]) {
                    let h = self.convert(hc, hs, wide, false, Rounding::Default)?;
                    let l = self.convert(lc, ls, wide, false, Rounding::Default)?;
                    let k = self.const_scalar(wide, u64::from(hs.bits()));
                    let hh = self.binary(BinaryOp::Shl, wide, &h, &Lanes::Uniform(k))?;
                    res.push(self.binary(BinaryOp::Or, wide, &hh, &l)?);
                }
                res
            }
            (Builtin::Shuffle | Builtin::Shuffle2, _) => {
                let Some(s) = out else { return Ok(None) };
                let mut all: Vec<Lanes> = vals[0].clone();
                if base == Builtin::Shuffle2 {
                    all.extend(vals[1].iter().cloned());
                }
                let mask = &vals[vals.len() - 1];
                let ms = self.elem(args[args.len() - 1])?;
                let sel_bits = (all.len().next_power_of_two() - 1) as u64;
                let mut res = Vec::with_capacity(comps);
                for m in mask {
                    let k = self.const_scalar(ms, sel_bits);
                    let idx = self.binary(BinaryOp::And, ms, m, &Lanes::Uniform(k))?;
                    let mut r = all[0].clone();
                    for (j, x) in all.iter().enumerate().skip(1) {
                        let kj = self.const_scalar(ms, j as u64);
                        let hit = self.compare(CmpOp::Eq, ms, &idx, &Lanes::Uniform(kj));
                        r = self.select_lanes(s, &hit, x, &r);
                    }
                    res.push(r);
                }
                res
            }
            _ if vd.is_some_and(|v| v.load && v.half) => {
                let n = comps as i64;
                let stride = if vd.is_some_and(|v| v.aligned) && n == 3 {
                    4
                } else {
                    n
                };
                let addr = self.vector_elem_addr(args[0], args[1], Scalar::U16, stride)?;
                let h = self.load_lanes(&addr, Scalar::U16, comps as u32)?;
                // Half bits travel like ushort: converted a piece at a time.
                let mut out = Vec::with_capacity(h.len());
                for l in &h {
                    out.push(self.half_convert(l, Scalar::F16, Scalar::F32, Rounding::Default)?);
                }
                out
            }
            _ if vd.is_some_and(|v| !v.load && v.half) => {
                let ds = self.elem(args[0])?;
                let n = vals[0].len() as i64;
                let stride = if vd.is_some_and(|v| v.aligned) && n == 3 {
                    4
                } else {
                    n
                };
                let mode = match vd.and_then(|v| v.rounding) {
                    Some("rtz") => math::RTZ,
                    Some("rtp") => math::RTP,
                    Some("rtn") => math::RTN,
                    _ => math::RTE,
                };
                let sym = if ds == Scalar::F64 {
                    "vecl_f64_to_half"
                } else {
                    "vecl_f32_to_half"
                };
                if ds == Scalar::F32 {
                    let rounding = match mode {
                        math::RTZ => Rounding::Rtz,
                        math::RTP => Rounding::Rtp,
                        math::RTN => Rounding::Rtn,
                        _ => Rounding::Rte,
                    };
                    let mut hv = Vec::with_capacity(vals[0].len());
                    for l in &vals[0] {
                        hv.push(self.half_convert(l, Scalar::F32, Scalar::F16, rounding)?);
                    }
                    let addr = self.vector_elem_addr(args[1], args[2], Scalar::U16, stride)?;
                    self.store_lanes(&addr, Scalar::U16, &hv)?;
                    return Ok(Some(Vec::new()));
                }
                let f = self.extern_fn(sym, &[natural(ds), types::I32], Some(types::I32))?;
                let hv: Val = vals[0]
                    .iter()
                    .map(|l| {
                        self.per_lane(&[(ds, l)], Scalar::U16, |cx, v| {
                            let m = cx.b.ins().iconst(types::I32, i64::from(mode));
                            let r = cx.call(f, &[v[0], m]).unwrap_or(m);
                            cx.b.ins().ireduce(types::I16, r)
                        })
                    })
                    .collect();
                let addr = self.vector_elem_addr(args[1], args[2], Scalar::U16, stride)?;
                self.store_lanes(&addr, Scalar::U16, &hv)?;
                Vec::new()
            }
            (Builtin::AsyncWorkGroupCopy | Builtin::AsyncWorkGroupStridedCopy, _) => {
                self.lower_async_copy(base == Builtin::AsyncWorkGroupStridedCopy, args)?;
                // The event: the one passed in (copies complete at once).
                vec![vals[vals.len() - 1][0].clone()]
            }
            // Copies are complete when they return; prefetching is a hint.
            (Builtin::WaitGroupEvents | Builtin::Prefetch, _) => Vec::new(),
            _ => return Ok(None),
        };
        Ok(Some(r))
    }
}

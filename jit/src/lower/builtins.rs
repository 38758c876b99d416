//! OpenCL C builtins, already overload-resolved by the front end.
//!
//! Component-wise functions apply to each component of a vector argument (a
//! scalar argument next to vector ones is broadcast). Where Cranelift has
//! the operation for both scalars and 128-bit vectors (`sqrt`, `floor`,
//! `fma`, integer `min`…) it runs on whole pieces; `float` transcendentals
//! are emitted as vector code by [`vmath`]; the rest (`double`
//! transcendentals, exact float operations, half packing, 64-bit saturating
//! integers) call the Rust routines of `math.rs` lane by lane; `printf` calls
//! the host's formatter lane by lane ([`printf`]); the image builtins call the
//! host's texel functions lane by lane ([`image`]). A builtin not
//! listed here is reported as `not supported yet: NAME`.

mod extra;
mod generic;
mod geometric;
mod image;
mod image_rows;
mod printf;
mod routines;
pub(crate) mod vmath;

use super::lanes::{carrier, elem_of, is_narrow, little, natural, Lanes, Val};
use super::{FunctionCx, LResult};
use crate::math;
use cranelift_codegen::ir::{condcodes::FloatCC, condcodes::IntCC, types, InstBuilder, Value};
use vecl_ir::{BinaryOp, Builtin, CmpOp, Scalar, Type, ValueId};

impl FunctionCx<'_, '_> {
    /// `cond ? x : y` for a scalar `i8` condition or a vector mask of `x`'s
    /// lane width.
    fn pick(&mut self, c: Value, x: Value, y: Value) -> Value {
        let t = self.b.func.dfg.value_type(x);
        if t.is_vector() {
            let m = self.vcast(t, c);
            self.b.ins().bitselect(m, x, y)
        } else {
            self.b.ins().select(c, x, y)
        }
    }

    /// Applies an operation valid on both scalars and 128-bit vectors to
    /// uniform scalars or to each piece.
    fn simd(
        &mut self,
        s: Scalar,
        args: &[Lanes],
        f: impl Fn(&mut Self, &[Value]) -> Value,
    ) -> Lanes {
        if args.iter().all(|a| a.is_uniform()) {
            let v: Vec<Value> = args
                .iter()
                .map(|a| {
                    if let Lanes::Uniform(x) = a {
                        *x
                    } else {
                        unreachable!()
                    }
                })
                .collect();
            return Lanes::Uniform(f(self, &v));
        }
        let pieces: Vec<Vec<Value>> = args.iter().map(|a| self.varying(s, a)).collect();
        let n = pieces[0].len();
        Lanes::Varying(
            (0..n)
                .map(|i| {
                    let v: Vec<Value> = pieces.iter().map(|p| p[i]).collect();
                    f(self, &v)
                })
                .collect(),
        )
    }

    /// Calls `f` for every output component with the matching argument
    /// components (broadcasting scalar arguments).
    /// `popcount` of varying 32-bit lanes, and `rotate` of them by an
    /// amount equal in every lane, on whole pieces (`None`: lane by
    /// lane). `popcount`: the bytes' counts (`popcnt` of `i8x16`) summed
    /// into each lane's top byte by a multiply with `0x01010101`, then
    /// shifted down (at most 32, so no byte carries). `rotate`: `x << n |
    /// x >> (32 - n)`, both shifts taken mod 32, so `n = 0` gives `x | x`.
    /// A hashing loop of 16 rounds (xorshift, a multiply, a rotate, a
    /// `popcount`) over 1M items on one thread: 90 → 55 ms with the
    /// `%` by a constant in double, `docs/jit.md`.
    fn bits_in_vector(&mut self, base: Builtin, s: Scalar, a: &[Lanes]) -> Option<Lanes> {
        if !matches!(s, Scalar::I32 | Scalar::U32) || a[0].is_uniform() {
            return None;
        }
        match base {
            Builtin::Popcount => {
                let x = self.varying(s, &a[0]);
                let flags = little();
                let ones = self.b.ins().iconst(types::I32, 0x0101_0101);
                let ones = self.b.ins().splat(types::I32X4, ones);
                let out = x
                    .iter()
                    .map(|v| {
                        let bytes = self.b.ins().bitcast(types::I8X16, flags, *v);
                        let counts = self.b.ins().popcnt(bytes);
                        let words = self.b.ins().bitcast(types::I32X4, flags, counts);
                        let sums = self.b.ins().imul(words, ones);
                        self.b.ins().ushr_imm_u(sums, 24)
                    })
                    .collect();
                Some(Lanes::Varying(out))
            }
            Builtin::Rotate => {
                let Lanes::Uniform(n) = &a[1] else {
                    return None;
                };
                let n = *n;
                let x = self.varying(s, &a[0]);
                let left = self.b.ins().band_imm_u(n, 31);
                let neg = self.b.ins().ineg(n);
                let right = self.b.ins().band_imm_u(neg, 31);
                let out = x
                    .iter()
                    .map(|v| {
                        let l = self.b.ins().ishl(*v, left);
                        let r = self.b.ins().ushr(*v, right);
                        self.b.ins().bor(l, r)
                    })
                    .collect();
                Some(Lanes::Varying(out))
            }
            _ => None,
        }
    }

    fn componentwise(
        &mut self,
        args: &[Val],
        comps: usize,
        mut f: impl FnMut(&mut Self, &[Lanes]) -> LResult<Lanes>,
    ) -> LResult<Val> {
        let mut out = Vec::with_capacity(comps);
        for c in 0..comps {
            let a: Vec<Lanes> = args
                .iter()
                .map(|v| {
                    if v.len() == 1 {
                        v[0].clone()
                    } else {
                        v[c].clone()
                    }
                })
                .collect();
            out.push(f(self, &a)?);
        }
        Ok(out)
    }

    /// Whether the program was built with `-cl-finite-math-only` (or
    /// `-cl-fast-relaxed-math`, which implies it).
    fn finite_math(&self) -> bool {
        self.kernel.module().math.finite_math_only || self.kernel.module().math.fast_relaxed_math
    }

    fn fmin_max(&mut self, is_max: bool, a: Value, b: Value) -> Value {
        if self.finite_math() {
            // No NaN operands: one compare and a select (Cranelift's
            // `fmin`/`fmax` also order NaNs and zeros).
            let cc = if is_max {
                FloatCC::GreaterThan
            } else {
                FloatCC::LessThan
            };
            let c = self.b.ins().fcmp(cc, a, b);
            return self.pick(c, a, b);
        }
        let r = if is_max {
            self.b.ins().fmax(a, b)
        } else {
            self.b.ins().fmin(a, b)
        };
        // OpenCL: a NaN operand yields the other one.
        let na = self.b.ins().fcmp(FloatCC::Unordered, a, a);
        let r = self.pick(na, b, r);
        let nb = self.b.ins().fcmp(FloatCC::Unordered, b, b);
        self.pick(nb, a, r)
    }

    fn fconst(&mut self, s: Scalar, x: f64) -> Value {
        if s == Scalar::F32 {
            self.b.ins().f32const(x as f32)
        } else {
            self.b.ins().f64const(x)
        }
    }

    /// A float constant shaped like `like` (scalar or vector).
    fn fconst_like(&mut self, s: Scalar, like: Value, x: f64) -> Value {
        let k = self.fconst(s, x);
        let t = self.b.func.dfg.value_type(like);
        if t.is_vector() {
            self.b.ins().splat(t, k)
        } else {
            k
        }
    }

    /// Relational result: 1/0 for a scalar result, -1/0 for vectors.
    fn relational(&mut self, ty: &Type, out: Scalar, truth: Value) -> Value {
        let t = natural(out);
        let w = self.b.ins().uextend(t, truth);
        if matches!(ty, Type::Vector(..)) {
            self.b.ins().ineg(w)
        } else {
            w
        }
    }

    /// Lowers builtin `name`. Every builtin is listed here, so a new one
    /// does not compile until it is given a lowering (or a reason it has
    /// none); the families below pick the operation by the builtin and the
    /// argument types.
    pub fn lower_builtin(&mut self, name: Builtin, args: &[ValueId], ty: &Type) -> LResult<Val> {
        use Builtin::*;
        match name {
            Printf => self.lower_printf(args),
            ReadImagef
            | ReadImagei
            | ReadImageui
            | WriteImagef
            | WriteImagei
            | WriteImageui
            | GetImageWidth
            | GetImageHeight
            | GetImageDepth
            | GetImageArraySize
            | GetImageDim
            | GetImageChannelDataType
            | GetImageChannelOrder => self.lower_image(name, args, ty),
            ToGlobal | ToLocal | ToPrivate | GetFence => self
                .lower_generic_cast(name, args)?
                .ok_or_else(|| self.unsupported(name.name())),
            vecl_ir::sub_group_builtins!() | WorkGroupCombine => self
                .lower_sub_group(name, args, ty)?
                .ok_or_else(|| self.unsupported(name.name())),
            // `collectives` replaces each with barriers around a combine
            // step before the lowering runs.
            vecl_ir::work_group_builtins!() => Err(self.unsupported(name.name())),
            // Component-wise computations on values (`Builtin::is_pure`),
            // the math functions that also write through a pointer, and
            // the vector loads and stores, copies and hints.
            vecl_ir::pure_builtins!()
            | Fract
            | Modf
            | Sincos
            | Frexp
            | LgammaR
            | Remquo
            | vecl_ir::vector_data_builtins!()
            | Shuffle
            | Shuffle2
            | AsyncWorkGroupCopy
            | AsyncWorkGroupStridedCopy
            | WaitGroupEvents
            | Prefetch => self.lower_value_builtin(name, args, ty),
        }
    }

    /// The builtins that compute values component-wise (math, integer,
    /// common, geometric and relational functions) and the vector loads
    /// and stores, copies and hints.
    fn lower_value_builtin(&mut self, name: Builtin, args: &[ValueId], ty: &Type) -> LResult<Val> {
        let vals: Vec<Val> = args
            .iter()
            .map(|a| self.value(*a))
            .collect::<LResult<_>>()?;
        let arg_elem = |cx: &Self, i: usize| cx.elem(args[i]);
        let comps = ty.lanes() as usize;
        let out = elem_of(ty);
        let base = name.math_base();
        let kname = self.kernel.name().to_string();
        let unsupported = || crate::JitError::Unsupported {
            kernel: kname.clone(),
            what: name.name().to_string(),
        };

        // Float functions with a direct Cranelift form.
        let fsimple: Option<fn(&mut Self, &[Value]) -> Value> = match base {
            Builtin::Sqrt => Some(|cx, a| cx.b.ins().sqrt(a[0])),
            Builtin::Fabs => Some(|cx, a| cx.b.ins().fabs(a[0])),
            Builtin::Floor => Some(|cx, a| cx.b.ins().floor(a[0])),
            Builtin::Ceil => Some(|cx, a| cx.b.ins().ceil(a[0])),
            Builtin::Trunc => Some(|cx, a| cx.b.ins().trunc(a[0])),
            Builtin::Rint => Some(|cx, a| cx.b.ins().nearest(a[0])),
            Builtin::Fmin => Some(|cx, a| cx.fmin_max(false, a[0], a[1])),
            Builtin::Fmax => Some(|cx, a| cx.fmin_max(true, a[0], a[1])),
            Builtin::Fdim => Some(|cx, a| {
                let d = cx.b.ins().fsub(a[0], a[1]);
                let z = cx.fconst_like_val(a[0], 0.0);
                let gt = cx.b.ins().fcmp(FloatCC::GreaterThan, a[0], a[1]);
                let un = cx.b.ins().fcmp(FloatCC::Unordered, a[0], a[1]);
                let r = cx.pick(gt, d, z);
                let nan = cx.b.ins().fadd(a[0], a[1]);
                cx.pick(un, nan, r)
            }),
            Builtin::Rsqrt => Some(|cx, a| {
                let r = cx.b.ins().sqrt(a[0]);
                let one = cx.fconst_like_val(a[0], 1.0);
                cx.b.ins().fdiv(one, r)
            }),
            Builtin::NativeRecip | Builtin::HalfRecip => Some(|cx, a| {
                let one = cx.fconst_like_val(a[0], 1.0);
                cx.b.ins().fdiv(one, a[0])
            }),
            Builtin::NativeDivide | Builtin::HalfDivide => {
                Some(|cx, a| cx.b.ins().fdiv(a[0], a[1]))
            }
            // The front end's contraction of `a * b + c` (FP_CONTRACT):
            // fused with FMA, as the interpreter computes it; a multiply
            // and an add without, which contraction also allows.
            Builtin::ContractFma => Some(|cx, a| {
                if cx.kernel.has_fma() {
                    return cx.b.ins().fma(a[1], a[0], a[2]);
                }
                let p = cx.b.ins().fmul(a[0], a[1]);
                cx.b.ins().fadd(p, a[2])
            }),
            Builtin::Mad => Some(|cx, a| {
                // mad may always be fused; it is one instruction with FMA,
                // done when the program asked for fast math.
                let m = cx.kernel.module().math;
                if cx.kernel.has_fma() && (m.mad_enable || m.unsafe_math || m.fast_relaxed_math) {
                    return cx.b.ins().fma(a[0], a[1], a[2]);
                }
                let p = cx.b.ins().fmul(a[0], a[1]);
                cx.b.ins().fadd(p, a[2])
            }),
            Builtin::Mix => Some(|cx, a| {
                let d = cx.b.ins().fsub(a[1], a[0]);
                let m = cx.b.ins().fmul(d, a[2]);
                cx.b.ins().fadd(a[0], m)
            }),
            Builtin::Degrees => Some(|cx, a| {
                let k = cx.fconst_like_val(a[0], 180.0 / std::f64::consts::PI);
                cx.b.ins().fmul(a[0], k)
            }),
            Builtin::Radians => Some(|cx, a| {
                let k = cx.fconst_like_val(a[0], std::f64::consts::PI / 180.0);
                cx.b.ins().fmul(a[0], k)
            }),
            Builtin::Sign => Some(|cx, a| {
                let z = cx.fconst_like_val(a[0], 0.0);
                let one = cx.fconst_like_val(a[0], 1.0);
                let m1 = cx.fconst_like_val(a[0], -1.0);
                let gt = cx.b.ins().fcmp(FloatCC::GreaterThan, a[0], z);
                let lt = cx.b.ins().fcmp(FloatCC::LessThan, a[0], z);
                let r = cx.pick(lt, m1, a[0]);
                let r = cx.pick(gt, one, r);
                let un = cx.b.ins().fcmp(FloatCC::Unordered, a[0], a[0]);
                cx.pick(un, z, r)
            }),
            Builtin::Maxmag => Some(|cx, a| cx.mag_pick(true, a[0], a[1])),
            Builtin::Minmag => Some(|cx, a| cx.mag_pick(false, a[0], a[1])),
            Builtin::Smoothstep => Some(|cx, a| {
                let num = cx.b.ins().fsub(a[2], a[0]);
                let den = cx.b.ins().fsub(a[1], a[0]);
                let t = cx.b.ins().fdiv(num, den);
                let z = cx.fconst_like_val(a[0], 0.0);
                let one = cx.fconst_like_val(a[0], 1.0);
                let t = cx.fmin_max(true, t, z);
                let t = cx.fmin_max(false, t, one);
                let two = cx.fconst_like_val(a[0], 2.0);
                let three = cx.fconst_like_val(a[0], 3.0);
                let tt = cx.b.ins().fmul(t, two);
                let d = cx.b.ins().fsub(three, tt);
                let t2 = cx.b.ins().fmul(t, t);
                cx.b.ins().fmul(t2, d)
            }),
            Builtin::Step => Some(|cx, a| {
                let lt = cx.b.ins().fcmp(FloatCC::LessThan, a[1], a[0]);
                let z = cx.fconst_like_val(a[1], 0.0);
                let one = cx.fconst_like_val(a[1], 1.0);
                cx.pick(lt, z, one)
            }),
            _ => None,
        };
        if let (Some(f), Some(s)) = (fsimple, out) {
            if s.is_float() && s != Scalar::F16 {
                return self.componentwise(&vals, comps, |cx, a| Ok(cx.simd(s, a, f)));
            }
        }
        if out == Some(Scalar::F32) && vmath::SIMD_F32.contains(&base.name()) {
            return self.componentwise(&vals, comps, |cx, a| {
                cx.simd_math(base.name(), a, Scalar::F32)
            });
        }
        if out == Some(Scalar::F64) && vmath::SIMD_F64.contains(&base.name()) {
            return self.componentwise(&vals, comps, |cx, a| {
                cx.simd_math(base.name(), a, Scalar::F64)
            });
        }
        if let Some(v) = self.lower_extra_builtin(base, args, &vals, ty)? {
            return Ok(v);
        }
        if base == Builtin::Fma {
            let s = out.ok_or_else(unsupported)?;
            if self.kernel.has_fma() {
                return self.componentwise(&vals, comps, |cx, a| {
                    Ok(cx.simd(s, a, |cx, v| cx.b.ins().fma(v[0], v[1], v[2])))
                });
            }
            let sym = if s == Scalar::F32 { "fmaf" } else { "fma" };
            let t = natural(s);
            let fr = self.extern_fn(sym, &[t, t, t], Some(t))?;
            return self.componentwise(&vals, comps, |cx, a| {
                Ok(
                    cx.per_lane(&[(s, &a[0]), (s, &a[1]), (s, &a[2])], s, |cx, v| {
                        cx.call(fr, v).unwrap_or(v[0])
                    }),
                )
            });
        }
        if base == Builtin::Copysign {
            let s = out.ok_or_else(unsupported)?;
            return self.componentwise(&vals, comps, |cx, a| {
                Ok(cx.per_lane(&[(s, &a[0]), (s, &a[1])], s, |cx, v| {
                    cx.b.ins().fcopysign(v[0], v[1])
                }))
            });
        }
        // Transcendentals: per-lane calls.
        if let Some((_, f32s, f64s)) = math::UNARY
            .iter()
            .find(|(n, _, _)| *n == base.name())
            .copied()
        {
            let s = out
                .filter(|s| matches!(s, Scalar::F32 | Scalar::F64))
                .ok_or_else(unsupported)?;
            let t = natural(s);
            let fr = self.extern_fn(if s == Scalar::F32 { f32s } else { f64s }, &[t], Some(t))?;
            return self.componentwise(&vals, comps, |cx, a| {
                Ok(cx.per_lane(&[(s, &a[0])], s, |cx, v| cx.call(fr, v).unwrap_or(v[0])))
            });
        }
        if let Some((_, f32s, f64s)) = math::BINARY
            .iter()
            .find(|(n, _, _)| *n == base.name())
            .copied()
        {
            let s = out
                .filter(|s| matches!(s, Scalar::F32 | Scalar::F64))
                .ok_or_else(unsupported)?;
            let t = natural(s);
            let fr =
                self.extern_fn(if s == Scalar::F32 { f32s } else { f64s }, &[t, t], Some(t))?;
            return self.componentwise(&vals, comps, |cx, a| {
                Ok(cx.per_lane(&[(s, &a[0]), (s, &a[1])], s, |cx, v| {
                    cx.call(fr, v).unwrap_or(v[0])
                }))
            });
        }
        if matches!(base, Builtin::Pown | Builtin::Rootn | Builtin::Ldexp) {
            let s = out
                .filter(|s| matches!(s, Scalar::F32 | Scalar::F64))
                .ok_or_else(unsupported)?;
            let t = natural(s);
            let sym = format!("vecl_{base}{}", if s == Scalar::F32 { "f" } else { "" });
            let fr = self.extern_fn(&sym, &[t, types::I32], Some(t))?;
            return self.componentwise(&vals, comps, |cx, a| {
                Ok(
                    cx.per_lane(&[(s, &a[0]), (Scalar::I32, &a[1])], s, |cx, v| {
                        cx.call(fr, v).unwrap_or(v[0])
                    }),
                )
            });
        }

        match base {
            Builtin::Min | Builtin::Max | Builtin::Clamp => {
                let s = out.ok_or_else(unsupported)?;
                let is_min = base == Builtin::Min;
                let f = move |cx: &mut Self, a: &[Lanes]| -> LResult<Lanes> {
                    if s.is_float() {
                        let mm = |cx: &mut Self, x: &Lanes, y: &Lanes, max: bool| {
                            cx.simd(s, &[x.clone(), y.clone()], move |cx, v| {
                                cx.fmin_max(max, v[0], v[1])
                            })
                        };
                        return Ok(match base {
                            Builtin::Clamp => {
                                let lo = mm(cx, &a[0], &a[1], true);
                                mm(cx, &lo, &a[2], false)
                            }
                            _ => mm(cx, &a[0], &a[1], !is_min),
                        });
                    }
                    let int_mm = |cx: &mut Self, x: &Lanes, y: &Lanes, max: bool| -> Lanes {
                        let vector_ok = carrier(s) == types::I32X4;
                        let op = move |cx: &mut Self, v: &[Value]| match (max, s.is_signed()) {
                            (false, true) => cx.b.ins().smin(v[0], v[1]),
                            (false, false) => cx.b.ins().umin(v[0], v[1]),
                            (true, true) => cx.b.ins().smax(v[0], v[1]),
                            (true, false) => cx.b.ins().umax(v[0], v[1]),
                        };
                        if vector_ok || (x.is_uniform() && y.is_uniform()) {
                            cx.simd(s, &[x.clone(), y.clone()], op)
                        } else {
                            cx.per_lane(&[(s, x), (s, y)], s, op)
                        }
                    };
                    Ok(match base {
                        Builtin::Clamp => {
                            let lo = int_mm(cx, &a[0], &a[1], true);
                            int_mm(cx, &lo, &a[2], false)
                        }
                        _ => int_mm(cx, &a[0], &a[1], !is_min),
                    })
                };
                self.componentwise(&vals, comps, f)
            }
            Builtin::Abs => {
                let s_in = arg_elem(self, 0)?;
                let s_out = out.ok_or_else(unsupported)?;
                self.componentwise(&vals, comps, |cx, a| {
                    if !s_in.is_signed() {
                        return Ok(a[0].clone());
                    }
                    if carrier(s_in) == types::I32X4 || a[0].is_uniform() {
                        let r = cx.simd(s_in, a, |cx, v| cx.b.ins().iabs(v[0]));
                        Ok(match r {
                            Lanes::Varying(p) => {
                                Lanes::Varying(p.iter().map(|x| cx.normalize(s_out, *x)).collect())
                            }
                            u => u,
                        })
                    } else {
                        Ok(cx.per_lane(&[(s_in, &a[0])], s_out, |cx, v| cx.b.ins().iabs(v[0])))
                    }
                })
            }
            Builtin::Mul24 | Builtin::Mad24 => {
                let s = out.ok_or_else(unsupported)?;
                let mad = base == Builtin::Mad24;
                self.componentwise(&vals, comps, |cx, a| {
                    let m = cx.binary(BinaryOp::Mul, s, &a[0], &a[1])?;
                    if mad {
                        cx.binary(BinaryOp::Add, s, &m, &a[2])
                    } else {
                        Ok(m)
                    }
                })
            }
            Builtin::MulHi
            | Builtin::MadHi
            | Builtin::AddSat
            | Builtin::SubSat
            | Builtin::Hadd
            | Builtin::Rhadd
            | Builtin::AbsDiff
            | Builtin::MadSat => {
                // abs_diff returns the unsigned type; the inputs decide.
                let s = arg_elem(self, 0)?;
                if s.bits() >= 64
                    && matches!(
                        base,
                        Builtin::AddSat | Builtin::SubSat | Builtin::AbsDiff | Builtin::MadSat
                    )
                {
                    let sym = format!("vecl_{base}_{}64", if s.is_signed() { "i" } else { "u" });
                    let n = vals.len();
                    let fr = self.extern_fn(&sym, &vec![types::I64; n], Some(types::I64))?;
                    let o = out.ok_or_else(unsupported)?;
                    return self.componentwise(&vals, comps, |cx, a| {
                        let ins: Vec<(Scalar, &Lanes)> = a.iter().map(|l| (s, l)).collect();
                        Ok(cx.per_lane(&ins, o, |cx, v| cx.call(fr, v).unwrap_or(v[0])))
                    });
                }
                let o = out.ok_or_else(unsupported)?;
                self.componentwise(&vals, comps, |cx, a| {
                    let ins: Vec<(Scalar, &Lanes)> = a.iter().map(|l| (s, l)).collect();
                    Ok(cx.per_lane(&ins, o, move |cx, v| cx.int_special(base, s, v)))
                })
            }
            Builtin::Rotate | Builtin::Popcount | Builtin::Clz | Builtin::Ctz => {
                let s = out.ok_or_else(unsupported)?;
                self.componentwise(&vals, comps, |cx, a| {
                    if let Some(v) = cx.bits_in_vector(base, s, a) {
                        return Ok(v);
                    }
                    let ins: Vec<(Scalar, &Lanes)> = a.iter().map(|l| (s, l)).collect();
                    Ok(cx.per_lane(&ins, s, move |cx, v| match base {
                        Builtin::Rotate => cx.b.ins().rotl(v[0], v[1]),
                        Builtin::Popcount => cx.b.ins().popcnt(v[0]),
                        Builtin::Clz => cx.b.ins().clz(v[0]),
                        _ => cx.b.ins().ctz(v[0]),
                    }))
                })
            }
            Builtin::Isnan
            | Builtin::Isinf
            | Builtin::Isfinite
            | Builtin::Isnormal
            | Builtin::Signbit => {
                let s_in = arg_elem(self, 0)?;
                let s_out = out.ok_or_else(unsupported)?;
                let ty = ty.clone();
                self.componentwise(&vals, comps, |cx, a| {
                    let ty = ty.clone();
                    Ok(cx.per_lane(&[(s_in, &a[0])], s_out, move |cx, v| {
                        let x = v[0];
                        let ax = cx.b.ins().fabs(x);
                        let inf = cx.fconst(s_in, f64::INFINITY);
                        let truth = match base {
                            Builtin::Isnan => cx.b.ins().fcmp(FloatCC::Unordered, x, x),
                            Builtin::Isinf => cx.b.ins().fcmp(FloatCC::Equal, ax, inf),
                            Builtin::Isfinite => cx.b.ins().fcmp(FloatCC::LessThan, ax, inf),
                            Builtin::Isnormal => {
                                let min = cx.fconst(
                                    s_in,
                                    if s_in == Scalar::F32 {
                                        f64::from(f32::MIN_POSITIVE)
                                    } else {
                                        f64::MIN_POSITIVE
                                    },
                                );
                                let big = cx.b.ins().fcmp(FloatCC::GreaterThanOrEqual, ax, min);
                                let fin = cx.b.ins().fcmp(FloatCC::LessThan, ax, inf);
                                cx.b.ins().band(big, fin)
                            }
                            _ => {
                                let it = natural(s_in.signed_int_of_same_width());
                                let bits = cx.b.ins().bitcast(
                                    it,
                                    cranelift_codegen::ir::MemFlagsData::new(),
                                    x,
                                );
                                cx.b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0)
                            }
                        };
                        cx.relational(&ty, s_out, truth)
                    }))
                })
            }
            Builtin::Select => {
                let s = out.ok_or_else(unsupported)?;
                let sc = arg_elem(self, 2)?;
                let vector = matches!(ty, Type::Vector(..));
                self.componentwise(&vals, comps, |cx, a| {
                    let c = if vector {
                        // The most significant bit decides (for unsigned
                        // conditions too: see `compare_with_zero`).
                        cx.compare_with_zero(sc, &a[2], CmpOp::Lt)
                    } else {
                        cx.compare_with_zero(sc, &a[2], CmpOp::Ne)
                    };
                    Ok(cx.select_lanes(s, &c, &a[1], &a[0]))
                })
            }
            Builtin::Bitselect => {
                let s = out.ok_or_else(unsupported)?;
                let it = if s.is_float() {
                    s.unsigned_int_of_same_width()
                } else {
                    s
                };
                self.componentwise(&vals, comps, |cx, a| {
                    let ins: Vec<(Scalar, &Lanes)> = a.iter().map(|l| (s, l)).collect();
                    Ok(cx.per_lane(&ins, s, |cx, v| {
                        let f = cranelift_codegen::ir::MemFlagsData::new();
                        let t = natural(it);
                        let cast = |cx: &mut Self, x: Value| {
                            if s.is_float() {
                                cx.b.ins().bitcast(t, f, x)
                            } else {
                                x
                            }
                        };
                        let (x, y, c) = (cast(cx, v[0]), cast(cx, v[1]), cast(cx, v[2]));
                        let r = cx.b.ins().bitselect(c, y, x);
                        if s.is_float() {
                            cx.b.ins().bitcast(natural(s), f, r)
                        } else {
                            r
                        }
                    }))
                })
            }
            Builtin::Any | Builtin::All => {
                let s = arg_elem(self, 0)?;
                let mut acc: Option<Lanes> = None;
                for l in &vals[0] {
                    let neg = self.compare_with_zero(s, l, CmpOp::Lt);
                    acc = Some(match acc {
                        None => neg,
                        Some(p) => self.binary(
                            if base == Builtin::Any {
                                BinaryOp::Or
                            } else {
                                BinaryOp::And
                            },
                            Scalar::Bool,
                            &p,
                            &neg,
                        )?,
                    });
                }
                let acc = acc.ok_or_else(unsupported)?;
                let o = out.ok_or_else(unsupported)?;
                Ok(vec![self.convert(
                    &acc,
                    Scalar::Bool,
                    o,
                    false,
                    Default::default(),
                )?])
            }
            Builtin::Dot
            | Builtin::Length
            | Builtin::Distance
            | Builtin::Normalize
            | Builtin::FastLength
            | Builtin::FastDistance
            | Builtin::FastNormalize => {
                let s = arg_elem(self, 0)?;
                self.lower_geometric(base, s, &vals)
            }
            Builtin::Cross => {
                let s = arg_elem(self, 0)?;
                let (a, b) = (&vals[0], &vals[1]);
                let mut outv = Vec::with_capacity(comps);
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let p = self.binary(BinaryOp::Mul, s, &a[i], &b[j])?;
                    let q = self.binary(BinaryOp::Mul, s, &a[j], &b[i])?;
                    outv.push(self.binary(BinaryOp::Sub, s, &p, &q)?);
                }
                while outv.len() < comps {
                    let z = self.const_scalar(s, 0);
                    outv.push(Lanes::Uniform(z));
                }
                Ok(outv)
            }
            _ if base.vector_data().is_some_and(|v| v.load && !v.half) => {
                let s = out.ok_or_else(unsupported)?;
                let n = comps as i64;
                let addr = self.vector_elem_addr(args[0], args[1], s, n)?;
                if let Some(v) = self.interleaved_vload(args[0], &addr, s, comps as u32)? {
                    return Ok(v);
                }
                self.load_lanes(&addr, s, comps as u32)
            }
            _ if base.vector_data().is_some_and(|v| !v.load && !v.half) => {
                let s = arg_elem(self, 0)?;
                let n = vals[0].len() as i64;
                let addr = self.vector_elem_addr(args[1], args[2], s, n)?;
                if !self.interleaved_vstore(args[1], &addr, s, &vals[0])? {
                    self.store_lanes(&addr, s, &vals[0])?;
                }
                Ok(Vec::new())
            }
            _ => Err(unsupported()),
        }
    }

    fn fconst_like_val(&mut self, like: Value, x: f64) -> Value {
        let t = self.b.func.dfg.value_type(like);
        let s = if t.lane_type() == types::F32 {
            Scalar::F32
        } else {
            Scalar::F64
        };
        self.fconst_like(s, like, x)
    }

    /// `x OP 0` for an integer component.
    fn compare_with_zero(&mut self, s: Scalar, l: &Lanes, op: CmpOp) -> Lanes {
        // `< 0` tests the sign bit. Varying `uchar`/`ushort` lanes are
        // zero-extended in their 32 bits (see `lanes`), so their sign bit
        // is moved to bit 31 first (`select` with a `ushort4` condition).
        if let (CmpOp::Lt, Lanes::Varying(pieces)) = (op, l) {
            if is_narrow(s) && !s.is_signed() && !s.is_float() {
                let k = i64::from(32 - 8 * s.size());
                let shifted = pieces
                    .iter()
                    .map(|p| self.b.ins().ishl_imm_u(*p, k))
                    .collect();
                let z = self.const_scalar(Scalar::I32, 0);
                return self.compare(
                    op,
                    Scalar::I32,
                    &Lanes::Varying(shifted),
                    &Lanes::Uniform(z),
                );
            }
        }
        let z = self.const_scalar(s, 0);
        let signed = s.signed_int_of_same_width();
        let sc = if op == CmpOp::Lt { signed } else { s };
        self.compare(op, sc, l, &Lanes::Uniform(z))
    }

    /// `p + offset * n` elements of `s` (vloadN/vstoreN addressing).
    fn vector_elem_addr(
        &mut self,
        offset: ValueId,
        p: ValueId,
        s: Scalar,
        n: i64,
    ) -> LResult<Lanes> {
        let os = self.elem(offset)?;
        let (ol, pl) = (self.scalar(offset)?, self.scalar(p)?);
        let o = self.convert(&ol, os, Scalar::U64, false, Default::default())?;
        let k = self.b.ins().iconst(types::I64, n * i64::from(s.size()));
        let off = self.binary(BinaryOp::Mul, Scalar::U64, &o, &Lanes::Uniform(k))?;
        self.binary(BinaryOp::Add, Scalar::U64, &pl, &off)
    }

    fn int_special(&mut self, op: Builtin, s: Scalar, v: &[Value]) -> Value {
        let t = natural(s);
        let signed = s.is_signed();
        let ext = |cx: &mut Self, x: Value, wide: types::Type| {
            if signed {
                cx.b.ins().sextend(wide, x)
            } else {
                cx.b.ins().uextend(wide, x)
            }
        };
        match op {
            Builtin::MulHi | Builtin::MadHi => {
                let hi = if t == types::I64 {
                    if signed {
                        self.b.ins().smulhi(v[0], v[1])
                    } else {
                        self.b.ins().umulhi(v[0], v[1])
                    }
                } else {
                    let (a, b) = (ext(self, v[0], types::I64), ext(self, v[1], types::I64));
                    let m = self.b.ins().imul(a, b);
                    let sh = self.b.ins().sshr_imm_s(m, i64::from(t.bits()));
                    self.b.ins().ireduce(t, sh)
                };
                if op == Builtin::MadHi {
                    self.b.ins().iadd(hi, v[2])
                } else {
                    hi
                }
            }
            Builtin::AddSat | Builtin::SubSat | Builtin::AbsDiff | Builtin::MadSat => {
                let (a, b) = (ext(self, v[0], types::I64), ext(self, v[1], types::I64));
                let r = match op {
                    Builtin::AddSat => self.b.ins().iadd(a, b),
                    Builtin::SubSat => self.b.ins().isub(a, b),
                    Builtin::MadSat => {
                        // |a·b| < 2^64 for 32-bit inputs: clamp the product
                        // first so adding c cannot wrap.
                        let m = self.b.ins().imul(a, b);
                        let m = if signed || t.bits() < 32 {
                            m
                        } else {
                            let big = self.b.ins().iconst(types::I64, 1i64 << 40);
                            self.b.ins().umin(m, big)
                        };
                        let c = ext(self, v[2], types::I64);
                        self.b.ins().iadd(m, c)
                    }
                    _ => {
                        let d = self.b.ins().isub(a, b);
                        self.b.ins().iabs(d)
                    }
                };
                let (lo, hi) = if signed {
                    (-(1i64 << (t.bits() - 1)), (1i64 << (t.bits() - 1)) - 1)
                } else {
                    (0, ((1u64 << t.bits()) - 1) as i64)
                };
                let r = if op == Builtin::AbsDiff {
                    r
                } else {
                    let lo = self.b.ins().iconst(types::I64, lo);
                    let hi = self.b.ins().iconst(types::I64, hi);
                    let r = self.b.ins().smax(r, lo);
                    self.b.ins().smin(r, hi)
                };
                self.b.ins().ireduce(t, r)
            }
            _ => {
                // hadd / rhadd without overflow.
                let sa = if signed {
                    self.b.ins().sshr_imm_s(v[0], 1)
                } else {
                    self.b.ins().ushr_imm_s(v[0], 1)
                };
                let sb = if signed {
                    self.b.ins().sshr_imm_s(v[1], 1)
                } else {
                    self.b.ins().ushr_imm_s(v[1], 1)
                };
                let both = if op == Builtin::Hadd {
                    self.b.ins().band(v[0], v[1])
                } else {
                    self.b.ins().bor(v[0], v[1])
                };
                let bit = self.b.ins().band_imm_s(both, 1);
                let s1 = self.b.ins().iadd(sa, sb);
                self.b.ins().iadd(s1, bit)
            }
        }
    }
}

//! `widen-half`: arithmetic on `half` (`cl_khr_fp16`) rewritten as
//! arithmetic on `float`, with one rounding back to `half` per operation,
//! so a code generator needs nothing of `half` but loads, stores, bit moves
//! and the two conversions `half` ↔ `float`.
//!
//! Why this is exact:
//!
//! - `+ − × ÷` (and `sqrt`): `f32` has 24 significand bits, at least
//!   2·11 + 2, so rounding the exact result to `f32` and that to `half`
//!   gives the correctly rounded `half` (the double-rounding condition of
//!   Figueroa, "When is double rounding innocuous?", 1995).
//! - `fma`/`mad` go through `f64`: the product of two halves is exact in
//!   `f64`; if adding the third operand is inexact in `f64`, the product
//!   is below 2^-31 of the sum, so the sum is within 2^-30 (relative) of
//!   the half `c`, far from any rounding boundary of `half` (2^-12 away),
//!   and both roundings give the same value.
//! - Conversions: `half` → anything goes through `f32`, which holds every
//!   half exactly. Integer → `half` rounds to `f32` in the requested
//!   direction first: rounding in one direction twice equals rounding once
//!   (halves are a subset of floats), and to nearest the first rounding is
//!   inexact only above 2^24, where `half` is infinite anyway. `double` →
//!   `half` to nearest rounds to `f32` *to odd* first (toward zero, then the
//!   last bit set when inexact), which with 24 ≥ 11 + 2 bits keeps the
//!   information the second rounding needs; directed modes round twice in
//!   their direction.
//! - Negation flips the sign bit (of NaN too), done on the bits.
//! - The math, common, geometric and relational builtins evaluate in `f32`
//!   and round once, within the spec's `half` bounds (the `f32` functions
//!   are far more accurate than the 2-ulp-or-more `half` bounds).
//!
//! Builtins that only move bits (`select`, `shuffle`, sub-group broadcasts
//! and shuffles, …) see `ushort` instead of `half`; `vload`/`vstore` are
//! left alone (their `half` forms read and write the bits).
//! `work_group_broadcast`, which the JIT has for 32- and 64-bit types
//! only, goes through `float` like arithmetic (exact both ways).
//!
//! Assumes a kernel without calls (after `inline`).

use crate::module::{BinaryOp, Block, Inst, InstData, Loc, Rounding, Stmt, UnaryOp};
use crate::types::{Scalar, Type};
use crate::{Builtin, Function, ValueId};

/// Rewrites every `half` operation of `f`; returns how many.
pub fn widen_half(f: &mut Function) -> usize {
    let mut body = std::mem::take(&mut f.body);
    let mut n = 0;
    rewrite_block(f, &mut body, &mut n);
    f.body = body;
    n
}

fn rewrite_block(f: &mut Function, block: &mut Block, n: &mut usize) {
    let old = std::mem::take(&mut block.0);
    let mut out = Vec::with_capacity(old.len());
    for mut s in old {
        match &mut s {
            Stmt::Eval(v) => {
                let mut after = Vec::new();
                let mut w = Widen {
                    f,
                    out: &mut out,
                    after: &mut after,
                    loc: Loc::default(),
                };
                if w.rewrite(*v) {
                    *n += 1;
                }
                out.push(s);
                out.append(&mut after);
                continue;
            }
            Stmt::If { then_, else_, .. } => {
                rewrite_block(f, then_, n);
                rewrite_block(f, else_, n);
            }
            Stmt::Loop { body, continuing } => {
                rewrite_block(f, body, n);
                rewrite_block(f, continuing, n);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    rewrite_block(f, &mut c.body, n);
                }
            }
            _ => {}
        }
        out.push(s);
    }
    block.0 = out;
}

fn is_half(t: &Type) -> bool {
    t.scalar() == Some(Scalar::F16)
}

/// Whether a pointer's pointee is `half` (or a half vector).
fn points_to_half(t: &Type) -> bool {
    t.pointee().is_some_and(is_half)
}

/// Builtins that move `half` bits without looking at them.
fn moves_bits(base: Builtin) -> bool {
    matches!(
        base,
        Builtin::Select
            | Builtin::Bitselect
            | Builtin::Shuffle
            | Builtin::Shuffle2
            | Builtin::SubGroupBroadcast
            | Builtin::SubGroupNonUniformBroadcast
            | Builtin::SubGroupBroadcastFirst
            | Builtin::SubGroupShuffle
            | Builtin::SubGroupShuffleXor
            | Builtin::SubGroupShuffleUp
            | Builtin::SubGroupShuffleDown
            | Builtin::SubGroupRotate
            | Builtin::SubGroupClusteredRotate
    )
}

struct Widen<'a> {
    f: &'a mut Function,
    /// Statements before the rewritten instruction.
    out: &'a mut Vec<Stmt>,
    /// Statements after it (results written through pointers).
    after: &'a mut Vec<Stmt>,
    loc: Loc,
}

impl Widen<'_> {
    /// A new instruction evaluated before the one being rewritten.
    fn emit(&mut self, inst: Inst, ty: Type) -> ValueId {
        let id = ValueId(self.f.insts.len() as u32);
        self.f.insts.push(InstData {
            inst,
            ty,
            loc: self.loc,
        });
        self.out.push(Stmt::Eval(id));
        id
    }

    fn convert(&mut self, v: ValueId, to: Scalar, rounding: Rounding) -> ValueId {
        let ty = self.f.ty(v).with_scalar(to);
        self.emit(
            Inst::Convert {
                value: v,
                saturate: false,
                rounding,
            },
            ty,
        )
    }

    fn bitcast(&mut self, v: ValueId, to: Scalar) -> ValueId {
        let ty = self.f.ty(v).with_scalar(to);
        self.emit(Inst::Bitcast(v), ty)
    }

    /// `v` as `f32` when it is a half value, else `v`.
    fn widen(&mut self, v: ValueId) -> ValueId {
        if is_half(self.f.ty(v)) {
            self.convert(v, Scalar::F32, Rounding::Default)
        } else {
            v
        }
    }

    /// Replaces the instruction `v` (keeping its id and type).
    fn replace(&mut self, v: ValueId, inst: Inst) {
        self.f.insts[v.index()].inst = inst;
    }

    /// `v := round_to_half(w)` for a float `w` of `v`'s shape.
    fn narrow_into(&mut self, v: ValueId, w: ValueId) {
        self.replace(
            v,
            Inst::Convert {
                value: w,
                saturate: false,
                rounding: Rounding::Rte,
            },
        );
    }

    /// Rewrites instruction `v` when it computes on half; emits what it
    /// needs before it. Whether it did.
    fn rewrite(&mut self, v: ValueId) -> bool {
        let data = self.f.inst(v).clone();
        self.loc = data.loc;
        let ty = data.ty.clone();
        match data.inst {
            Inst::Unary(UnaryOp::Neg, a) if is_half(&ty) => {
                let bits = self.bitcast(a, Scalar::U16);
                let k = self.emit(Inst::Const(0x8000), Type::Scalar(Scalar::U16));
                let k = if ty.lanes() > 1 {
                    self.emit(Inst::Splat(k), ty.with_scalar(Scalar::U16))
                } else {
                    k
                };
                let x = self.emit(
                    Inst::Binary(BinaryOp::Xor, bits, k),
                    ty.with_scalar(Scalar::U16),
                );
                self.replace(v, Inst::Bitcast(x));
                true
            }
            Inst::Binary(op, a, b) if is_half(&ty) => {
                let (x, y) = (self.widen(a), self.widen(b));
                let w = self.emit(Inst::Binary(op, x, y), ty.with_scalar(Scalar::F32));
                self.narrow_into(v, w);
                true
            }
            Inst::Cmp(op, a, b) if is_half(self.f.ty(a)) => {
                let (x, y) = (self.widen(a), self.widen(b));
                self.replace(v, Inst::Cmp(op, x, y));
                true
            }
            Inst::Convert {
                value,
                saturate,
                rounding,
            } => {
                let from = self.f.ty(value).scalar();
                let to = ty.scalar();
                match (from, to) {
                    (Some(Scalar::F16), Some(t)) if t != Scalar::F32 && t != Scalar::F16 => {
                        let x = self.widen(value);
                        self.replace(
                            v,
                            Inst::Convert {
                                value: x,
                                saturate,
                                rounding,
                            },
                        );
                        true
                    }
                    (Some(Scalar::F64), Some(Scalar::F16)) => {
                        let x = self.f64_to_f32_for_half(value, rounding);
                        self.replace(
                            v,
                            Inst::Convert {
                                value: x,
                                saturate: false,
                                rounding,
                            },
                        );
                        true
                    }
                    (Some(s), Some(Scalar::F16)) if s != Scalar::F32 && s != Scalar::F16 => {
                        let x = self.convert(value, Scalar::F32, rounding);
                        self.replace(
                            v,
                            Inst::Convert {
                                value: x,
                                saturate: false,
                                rounding,
                            },
                        );
                        true
                    }
                    _ => false,
                }
            }
            Inst::Builtin(name, args) => self.rewrite_builtin(v, name, &args, &ty),
            _ => false,
        }
    }

    /// A double as the float that rounding to half in `rounding` may start
    /// from (see the file's header): to odd for nearest, else the same
    /// direction.
    fn f64_to_f32_for_half(&mut self, x: ValueId, rounding: Rounding) -> ValueId {
        if !matches!(rounding, Rounding::Default | Rounding::Rte) {
            return self.convert(x, Scalar::F32, rounding);
        }
        // To nearest (which code generators vectorise), then one step
        // toward zero where that went away from zero, and the last bit set
        // where it was inexact: the float toward zero, made odd.
        use crate::module::CmpOp;
        let ty = self.f.ty(x).clone();
        let b = ty.with_scalar(Scalar::Bool);
        let u = ty.with_scalar(Scalar::U32);
        let t = self.convert(x, Scalar::F32, Rounding::Default);
        let back = self.convert(t, Scalar::F64, Rounding::Default);
        let inexact = self.emit(Inst::Cmp(CmpOp::Ne, back, x), b.clone());
        let above = self.emit(Inst::Cmp(CmpOp::Gt, back, x), b.clone());
        let zero = self.emit(Inst::Const(0), Type::F64);
        let zero = if ty.lanes() > 1 {
            self.emit(Inst::Splat(zero), ty.clone())
        } else {
            zero
        };
        let negative = self.emit(Inst::Cmp(CmpOp::Lt, x, zero), b.clone());
        let away = self.emit(Inst::Binary(BinaryOp::Xor, above, negative), b.clone());
        let away = self.emit(Inst::Binary(BinaryOp::And, away, inexact), b.clone());
        let step = self.emit(
            Inst::Convert {
                value: away,
                saturate: false,
                rounding: Rounding::Default,
            },
            u.clone(),
        );
        let sticky = self.emit(
            Inst::Convert {
                value: inexact,
                saturate: false,
                rounding: Rounding::Default,
            },
            u.clone(),
        );
        let bits = self.bitcast(t, Scalar::U32);
        let toward_zero = self.emit(Inst::Binary(BinaryOp::Sub, bits, step), u.clone());
        let odd = self.emit(Inst::Binary(BinaryOp::Or, toward_zero, sticky), u);
        self.bitcast(odd, Scalar::F32)
    }

    /// For a pointer `p` to half that a builtin writes (`modf`, `fract`,
    /// `sincos`): a private float of the same shape to pass instead, whose
    /// value is rounded to half and stored through `p` after the call.
    fn widened_out_param(&mut self, p: ValueId) -> ValueId {
        let Some(pointee) = self.f.ty(p).pointee().cloned() else {
            return p;
        };
        let wide = pointee.with_scalar(Scalar::F32);
        let slot = crate::SlotId(self.f.slots.len() as u32);
        self.f.slots.push(crate::module::Slot {
            name: "half.out".into(),
            ty: wide.clone(),
        });
        let addr = self.emit(
            Inst::SlotAddr(slot),
            Type::ptr(crate::AddressSpace::Private, wide.clone()),
        );
        let loc = self.loc;
        let mut late = |f: &mut Function, inst: Inst, ty: Type| {
            let id = ValueId(f.insts.len() as u32);
            f.insts.push(InstData { inst, ty, loc });
            self.after.push(Stmt::Eval(id));
            id
        };
        let loaded = late(self.f, Inst::Load(addr), wide);
        let rounding = Rounding::Rte;
        let rounded = late(
            self.f,
            Inst::Convert {
                value: loaded,
                saturate: false,
                rounding,
            },
            pointee,
        );
        self.after.push(Stmt::Store {
            ptr: p,
            value: rounded,
            loc,
        });
        addr
    }

    /// `fract`'s float result clamped to the largest half below 1
    /// (0x1.ffcp-1), as `fmin(x - floor(x), 0x1.ffcp-1)` in half gives;
    /// NaN passes through.
    fn below_one_half(&mut self, r: ValueId) -> ValueId {
        let ty = self.f.ty(r).clone();
        let k = self.emit(Inst::Const(u64::from(0x3f7f_e000u32)), Type::F32);
        let k = if ty.lanes() > 1 {
            self.emit(Inst::Splat(k), ty.clone())
        } else {
            k
        };
        let above = self.emit(
            Inst::Cmp(crate::module::CmpOp::Gt, r, k),
            ty.with_scalar(Scalar::Bool),
        );
        self.emit(Inst::Select(above, k, r), ty)
    }

    /// A constant of `v`'s shape with element `s`.
    fn constant_like(&mut self, v: ValueId, s: Scalar, bits: u64) -> ValueId {
        let ty = self.f.ty(v).with_scalar(s);
        let k = self.emit(Inst::Const(bits), Type::Scalar(s));
        if ty.lanes() > 1 {
            self.emit(Inst::Splat(k), ty)
        } else {
            k
        }
    }

    /// `nextafter(x, y)` on halves, as bits: one step of the half's own
    /// spacing (on the bits, which order like the magnitudes), from ±0 to
    /// the smallest denormal of `y`'s side; `y` when equal, NaN when either is.
    fn next_after(&mut self, x: ValueId, y: ValueId) -> ValueId {
        let ty = self.f.ty(x).clone();
        let b = ty.with_scalar(Scalar::Bool);
        let u = ty.with_scalar(Scalar::U16);
        let (xb, yb) = (self.bitcast(x, Scalar::U16), self.bitcast(y, Scalar::U16));
        let (xf, yf) = (self.widen(x), self.widen(y));
        use crate::module::CmpOp;
        let up = self.emit(Inst::Cmp(CmpOp::Lt, xf, yf), b.clone());
        let sign_bit = self.constant_like(x, Scalar::U16, 0x8000);
        let neg = self.emit(Inst::Cmp(CmpOp::Ge, xb, sign_bit), b.clone());
        // Away from zero: up from a positive, down from a negative.
        let away = self.emit(Inst::Binary(BinaryOp::Xor, up, neg), b.clone());
        let one = self.constant_like(x, Scalar::U16, 1);
        let plus = self.emit(Inst::Binary(BinaryOp::Add, xb, one), u.clone());
        let minus = self.emit(Inst::Binary(BinaryOp::Sub, xb, one), u.clone());
        let stepped = self.emit(Inst::Select(away, plus, minus), u.clone());
        let tiny_neg = self.constant_like(x, Scalar::U16, 0x8001);
        let from_zero = self.emit(Inst::Select(up, one, tiny_neg), u.clone());
        let magnitude = self.constant_like(x, Scalar::U16, 0x7fff);
        let mag = self.emit(Inst::Binary(BinaryOp::And, xb, magnitude), u.clone());
        let zero = self.constant_like(x, Scalar::U16, 0);
        let is_zero = self.emit(Inst::Cmp(CmpOp::Eq, mag, zero), b.clone());
        let r = self.emit(Inst::Select(is_zero, from_zero, stepped), u.clone());
        // Equal, or unordered (a NaN on either side): `x + y` gives y or NaN.
        let ordered_ne = self.emit(Inst::Cmp(CmpOp::Lt, xf, yf), b.clone());
        let gt = self.emit(Inst::Cmp(CmpOp::Gt, xf, yf), b.clone());
        let moves = self.emit(Inst::Binary(BinaryOp::Or, ordered_ne, gt), b.clone());
        let sum = self.emit(
            Inst::Binary(BinaryOp::Add, xf, yf),
            ty.with_scalar(Scalar::F32),
        );
        let sum = self.emit(
            Inst::Convert {
                value: sum,
                saturate: false,
                rounding: Rounding::Rte,
            },
            ty.clone(),
        );
        let sum_bits = self.bitcast(sum, Scalar::U16);
        let eq = self.emit(Inst::Cmp(CmpOp::Eq, xf, yf), b.clone());
        let still = self.emit(Inst::Select(eq, yb, sum_bits), u.clone());
        self.emit(Inst::Select(moves, r, still), u)
    }

    fn rewrite_builtin(&mut self, v: ValueId, name: Builtin, args: &[ValueId], ty: &Type) -> bool {
        let base = name.math_base();
        let any_half = is_half(ty) || args.iter().any(|a| is_half(self.f.ty(*a)));
        let moves_memory = name.vector_data().is_some()
            || matches!(
                name,
                Builtin::AsyncWorkGroupCopy
                    | Builtin::AsyncWorkGroupStridedCopy
                    | Builtin::Prefetch
            );
        if !any_half || moves_memory {
            return false;
        }
        if moves_bits(base) {
            let new_args: Vec<ValueId> = args
                .iter()
                .map(|a| {
                    if is_half(self.f.ty(*a)) {
                        self.bitcast(*a, Scalar::U16)
                    } else {
                        *a
                    }
                })
                .collect();
            if is_half(ty) {
                let r = self.emit(Inst::Builtin(name, new_args), ty.with_scalar(Scalar::U16));
                self.replace(v, Inst::Bitcast(r));
            } else {
                self.replace(v, Inst::Builtin(name, new_args));
            }
            return true;
        }
        if base == Builtin::Nan {
            // nan(ushort code): a quiet NaN with the code's low bits, as
            // the interpreter makes it.
            let u = ty.with_scalar(Scalar::U16);
            let splat = |w: &mut Self, bits: u64| {
                let k = w.emit(Inst::Const(bits), Type::Scalar(Scalar::U16));
                if u.lanes() > 1 {
                    w.emit(Inst::Splat(k), u.clone())
                } else {
                    k
                }
            };
            let (quiet, low) = (splat(self, 0x7e00), splat(self, 0x1ff));
            let code = self.emit(Inst::Bitcast(args[0]), u.clone());
            let code = self.emit(Inst::Binary(BinaryOp::And, code, low), u.clone());
            let bits = self.emit(Inst::Binary(BinaryOp::Or, code, quiet), u.clone());
            self.replace(v, Inst::Bitcast(bits));
            return true;
        }
        if base == Builtin::Isnormal {
            // A half denormal is a normal float: classify on the half's
            // exponent field (neither 0 nor all ones).
            let b = self.f.ty(args[0]).with_scalar(Scalar::Bool);
            let bits = self.bitcast(args[0], Scalar::U16);
            let field = self.constant_like(args[0], Scalar::U16, 0x7c00);
            let e = self.emit(
                Inst::Binary(BinaryOp::And, bits, field),
                self.f.ty(bits).clone(),
            );
            let zero = self.constant_like(args[0], Scalar::U16, 0);
            use crate::module::CmpOp;
            let some = self.emit(Inst::Cmp(CmpOp::Ne, e, zero), b.clone());
            let not_all = self.emit(Inst::Cmp(CmpOp::Ne, e, field), b.clone());
            let normal = self.emit(Inst::Binary(BinaryOp::And, some, not_all), b);
            let convert = Inst::Convert {
                value: normal,
                saturate: false,
                rounding: Rounding::Default,
            };
            if ty.lanes() > 1 {
                // Vector relationals answer −1 for true.
                let one = self.emit(convert, ty.clone());
                self.replace(v, Inst::Unary(UnaryOp::Neg, one));
            } else {
                self.replace(v, convert);
            }
            return true;
        }
        if base == Builtin::Nextafter && is_half(ty) {
            let r = self.next_after(args[0], args[1]);
            self.replace(v, Inst::Bitcast(r));
            return true;
        }
        let fused = matches!(base, Builtin::Fma | Builtin::Mad | Builtin::ContractFma);
        let wide = if fused { Scalar::F64 } else { Scalar::F32 };
        let new_args: Vec<ValueId> = args
            .iter()
            .map(|a| {
                if points_to_half(self.f.ty(*a)) {
                    self.widened_out_param(*a)
                } else if is_half(self.f.ty(*a)) {
                    let x = self.convert(*a, Scalar::F32, Rounding::Default);
                    if wide == Scalar::F64 {
                        self.convert(x, Scalar::F64, Rounding::Default)
                    } else {
                        x
                    }
                } else {
                    *a
                }
            })
            .collect();
        if is_half(ty) {
            let r = self.emit(Inst::Builtin(name, new_args), ty.with_scalar(wide));
            let r = if wide == Scalar::F64 {
                self.f64_to_f32_for_half(r, Rounding::Rte)
            } else if base == Builtin::Fract {
                self.below_one_half(r)
            } else {
                r
            };
            self.narrow_into(v, r);
        } else if ty.lanes() > 1 && ty.scalar() == Some(Scalar::I16) {
            // Vector relationals: short lanes for half, int lanes for float
            // (-1 or 0 either way).
            let r = self.emit(Inst::Builtin(name, new_args), ty.with_scalar(Scalar::I32));
            self.replace(
                v,
                Inst::Convert {
                    value: r,
                    saturate: false,
                    rounding: Rounding::Default,
                },
            );
        } else {
            self.replace(v, Inst::Builtin(name, new_args));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_of_halves_goes_through_float() {
        let src = "kernel @k(a: ptr global f16) {\n  %0: ptr global f16 = param 0\n  %1: f16 = load %0\n  %2: f16 = add %1, %1\n  store %0, %2\n}\n";
        let (n, out) = super::super::run_on_text(src, widen_half);
        assert_eq!(n, 1);
        assert!(out.contains("f32 = add"), "{out}");
    }
}

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
//!
//! Assumes a kernel without calls (after `inline`).

use crate::module::{BinaryOp, Block, Inst, InstData, Loc, Rounding, Stmt, UnaryOp};
use crate::types::{Scalar, Type};
use crate::{Function, ValueId};

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
                let mut w = Widen {
                    f,
                    out: &mut out,
                    loc: Loc::default(),
                };
                if w.rewrite(*v) {
                    *n += 1;
                }
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
fn moves_bits(base: &str) -> bool {
    matches!(
        base,
        "select"
            | "bitselect"
            | "shuffle"
            | "shuffle2"
            | "sub_group_broadcast"
            | "sub_group_non_uniform_broadcast"
            | "sub_group_broadcast_first"
            | "sub_group_shuffle"
            | "sub_group_shuffle_xor"
            | "sub_group_shuffle_up"
            | "sub_group_shuffle_down"
            | "sub_group_rotate"
            | "sub_group_clustered_rotate"
            | "work_group_broadcast"
    )
}

struct Widen<'a> {
    f: &'a mut Function,
    out: &'a mut Vec<Stmt>,
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
            Inst::Builtin(name, args) => self.rewrite_builtin(v, &name, &args, &ty),
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
        let ty = self.f.ty(x).clone();
        let t = self.convert(x, Scalar::F32, Rounding::Rtz);
        let back = self.convert(t, Scalar::F64, Rounding::Default);
        let inexact = self.emit(
            Inst::Cmp(crate::module::CmpOp::Ne, back, x),
            ty.with_scalar(Scalar::Bool),
        );
        let sticky = self.emit(
            Inst::Convert {
                value: inexact,
                saturate: false,
                rounding: Rounding::Default,
            },
            ty.with_scalar(Scalar::U32),
        );
        let bits = self.bitcast(t, Scalar::U32);
        let odd = self.emit(
            Inst::Binary(BinaryOp::Or, bits, sticky),
            ty.with_scalar(Scalar::U32),
        );
        self.bitcast(odd, Scalar::F32)
    }

    fn rewrite_builtin(&mut self, v: ValueId, name: &str, args: &[ValueId], ty: &Type) -> bool {
        let base = crate::math_base_name(name);
        let any_half = is_half(ty) || args.iter().any(|a| is_half(self.f.ty(*a)));
        if !any_half || name.starts_with("vload") || name.starts_with("vstore") {
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
                let r = self.emit(
                    Inst::Builtin(name.to_string(), new_args),
                    ty.with_scalar(Scalar::U16),
                );
                self.replace(v, Inst::Bitcast(r));
            } else {
                self.replace(v, Inst::Builtin(name.to_string(), new_args));
            }
            return true;
        }
        if base == "nan" {
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
        let fused = matches!(base, "fma" | "mad" | "contract_fma");
        let wide = if fused { Scalar::F64 } else { Scalar::F32 };
        let new_args: Vec<ValueId> = args
            .iter()
            .map(|a| {
                if is_half(self.f.ty(*a)) {
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
            let r = self.emit(
                Inst::Builtin(name.to_string(), new_args),
                ty.with_scalar(wide),
            );
            let r = if wide == Scalar::F64 {
                self.f64_to_f32_for_half(r, Rounding::Rte)
            } else {
                r
            };
            self.narrow_into(v, r);
        } else if ty.lanes() > 1 && ty.scalar() == Some(Scalar::I16) {
            // Vector relationals: short lanes for half, int lanes for float
            // (-1 or 0 either way).
            let r = self.emit(
                Inst::Builtin(name.to_string(), new_args),
                ty.with_scalar(Scalar::I32),
            );
            self.replace(
                v,
                Inst::Convert {
                    value: r,
                    saturate: false,
                    rounding: Rounding::Default,
                },
            );
        } else {
            self.replace(v, Inst::Builtin(name.to_string(), new_args));
        }
        true
    }
}

/// Whether `f` has a builtin with a pointer to half that the rewrite cannot
/// widen (`modf`, `fract`, `sincos` write a half through it).
pub fn half_out_param(f: &Function) -> Option<String> {
    f.insts.iter().find_map(|d| match &d.inst {
        Inst::Builtin(name, args)
            if !name.starts_with("vload")
                && !name.starts_with("vstore")
                && !name.starts_with("async_work_group")
                && !name.starts_with("prefetch")
                && args.iter().any(|a| points_to_half(f.ty(*a))) =>
        {
            Some(name.clone())
        }
        _ => None,
    })
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

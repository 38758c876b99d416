//! The integer builtins of two extensions, lowered to plain IR arithmetic:
//! `cl_khr_integer_dot_product` (`dot`, `dot_acc_sat` on `char4`/`uchar4`,
//! and their `_4x8packed_` forms on bytes packed in a `uint`) and
//! `cl_khr_extended_bit_ops` (`bitfield_insert`,
//! `bitfield_extract_signed`/`_unsigned`, `bit_reverse`).
//!
//! Each is a handful of conversions, multiplies, shifts and masks, so it
//! is written out here rather than as a new builtin: the interpreter and
//! the JIT run the same IR (the JIT vectorises it across work-items like
//! any other arithmetic), and nothing below the front end needs to know
//! these functions exist.

use super::expr::Val;
use super::{LResult, Lowerer};
use crate::ast::*;
use crate::diag::Pos;
use vecl_ir::*;

/// The signedness of the two 4×8-bit operands of a dot product.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Signs {
    a: bool,
    b: bool,
}

impl Signs {
    /// The result (and accumulator) type: `uint` when both are unsigned.
    fn result(self) -> Scalar {
        if self.a || self.b {
            Scalar::I32
        } else {
            Scalar::U32
        }
    }
}

/// `dot_4x8packed_su_int` → (accumulating, signs, result type named).
fn packed_dot(name: &str) -> Option<(bool, Signs)> {
    let (acc, rest) = match name.strip_prefix("dot_acc_sat_4x8packed_") {
        Some(rest) => (true, rest),
        None => (false, name.strip_prefix("dot_4x8packed_")?),
    };
    let signs = match rest {
        "uu_uint" => Signs { a: false, b: false },
        "ss_int" => Signs { a: true, b: true },
        "us_int" => Signs { a: false, b: true },
        "su_int" => Signs { a: true, b: false },
        _ => return None,
    };
    Some((acc, signs))
}

/// The signedness of a `char4`/`uchar4`, `None` for any other type.
fn byte4_sign(t: &Type) -> Option<bool> {
    match t {
        Type::Vector(Scalar::I8, 4) => Some(true),
        Type::Vector(Scalar::U8, 4) => Some(false),
        _ => None,
    }
}

/// All ones in the low `bits` bits.
fn ones(bits: u32) -> u64 {
    u64::MAX >> (64 - bits)
}

impl Lowerer<'_> {
    /// One of the builtins of this module, or `None` (arguments not
    /// evaluated) when `name` is none of them.
    pub(super) fn integer_extension_call(
        &mut self,
        name: &str,
        args: &[Expr],
        pos: Pos,
    ) -> LResult<Option<Val>> {
        match name {
            "dot" | "dot_acc_sat" => self.dot_call(name, args, pos).map(Some),
            "bitfield_insert"
            | "bitfield_extract_signed"
            | "bitfield_extract_unsigned"
            | "bit_reverse" => self.bit_op_call(name, args, pos).map(Some),
            _ => match packed_dot(name) {
                Some((acc, signs)) => self.packed_dot_call(name, acc, signs, args, pos).map(Some),
                None => Ok(None),
            },
        }
    }

    fn no_match(&mut self, name: &str, vals: &[(ValueId, Type)], pos: Pos) -> LResult<Val> {
        let list = vals
            .iter()
            .map(|(_, t)| self.type_str(t))
            .collect::<Vec<_>>()
            .join(", ");
        self.err(
            pos,
            format!("no matching function for call to '{name}' with arguments ({list})"),
        )
    }

    /// `dot(a, b)` and `dot_acc_sat(a, b, acc)` on `char4`/`uchar4`; `dot`
    /// on floating-point vectors is the geometric function of the table.
    fn dot_call(&mut self, name: &str, args: &[Expr], pos: Pos) -> LResult<Val> {
        let acc = name == "dot_acc_sat";
        self.arity(name, args, if acc { &[3] } else { &[2] }, pos)?;
        let vals = self.args(args)?;
        let signs = match (byte4_sign(&vals[0].1), byte4_sign(&vals[1].1)) {
            (Some(a), Some(b)) => Signs { a, b },
            _ if !acc => return self.table_call(name, vals, pos),
            _ => return self.no_match(name, &vals, pos),
        };
        let sum = self.dot4(vals[0].0, vals[1].0, signs, pos);
        if !acc {
            return Ok(Val::R(sum, Type::Scalar(signs.result())));
        }
        self.accumulate(sum, &vals[2], signs, pos)
    }

    /// `dot_4x8packed_XY_T(a, b)` and `dot_acc_sat_4x8packed_XY_T(a, b,
    /// acc)`: the bytes of `a` and `b`, component 0 in bits 0–7.
    fn packed_dot_call(
        &mut self,
        name: &str,
        acc: bool,
        signs: Signs,
        args: &[Expr],
        pos: Pos,
    ) -> LResult<Val> {
        self.arity(name, args, if acc { &[3] } else { &[2] }, pos)?;
        let vals = self.args(args)?;
        let mut bytes = Vec::with_capacity(2);
        for (k, signed) in [signs.a, signs.b].into_iter().enumerate() {
            let (v, t) = &vals[k];
            if !matches!(t, Type::Scalar(s) if s.is_int()) {
                return self.no_match(name, &vals, pos);
            }
            let packed = self.convert(*v, &t.clone(), &Type::U32, pos, false)?;
            let elem = if signed { Scalar::I8 } else { Scalar::U8 };
            self.set_pos(pos);
            bytes.push(self.b().push(Inst::Bitcast(packed), Type::Vector(elem, 4)));
        }
        let sum = self.dot4(bytes[0], bytes[1], signs, pos);
        if !acc {
            return Ok(Val::R(sum, Type::Scalar(signs.result())));
        }
        self.accumulate(sum, &vals[2], signs, pos)
    }

    /// The sum of the four products, exact in 32 bits (|sum| ≤ 4·255·255).
    fn dot4(&mut self, a: ValueId, b: ValueId, signs: Signs, pos: Pos) -> ValueId {
        let wide = Type::Vector(signs.result(), 4);
        self.set_pos(pos);
        let widen = |l: &mut Self, v: ValueId| {
            l.b().push(
                Inst::Convert {
                    value: v,
                    saturate: false,
                    rounding: Rounding::Default,
                },
                wide.clone(),
            )
        };
        let (wa, wb) = (widen(self, a), widen(self, b));
        let products = self.b().binary(BinaryOp::Mul, wa, wb);
        let lanes: Vec<ValueId> = (0..4)
            .map(|k| {
                self.b()
                    .push(Inst::Extract(products, k), Type::Scalar(signs.result()))
            })
            .collect();
        let low = self.b().binary(BinaryOp::Add, lanes[0], lanes[1]);
        let high = self.b().binary(BinaryOp::Add, lanes[2], lanes[3]);
        self.b().binary(BinaryOp::Add, low, high)
    }

    /// `acc + sum`, saturated to the result type.
    fn accumulate(
        &mut self,
        sum: ValueId,
        acc: &(ValueId, Type),
        signs: Signs,
        pos: Pos,
    ) -> LResult<Val> {
        let rt = Type::Scalar(signs.result());
        if !matches!(acc.1, Type::Scalar(s) if s.is_int()) {
            let t = self.type_str(&acc.1);
            return self.err(
                pos,
                format!("the accumulator of a dot product must be an integer, not '{t}'"),
            );
        }
        let a = self.convert(acc.0, &acc.1, &rt, pos, false)?;
        self.set_pos(pos);
        let r = self
            .b()
            .push(Inst::Builtin(Builtin::AddSat, vec![a, sum]), rt.clone());
        Ok(Val::R(r, rt))
    }

    /// `bitfield_insert(base, insert, offset, count)`,
    /// `bitfield_extract_signed/unsigned(base, offset, count)` and
    /// `bit_reverse(base)` on any integer scalar or vector type. A field
    /// with `offset + count` past the width is undefined (the shifts wrap
    /// their amounts, as every shift of the IR does).
    fn bit_op_call(&mut self, name: &str, args: &[Expr], pos: Pos) -> LResult<Val> {
        let want: &[usize] = match name {
            "bitfield_insert" => &[4],
            "bit_reverse" => &[1],
            _ => &[3],
        };
        self.arity(name, args, want, pos)?;
        let mut vals = self.args(args)?;
        let ty = vals[0].1.clone();
        let s = match ty.scalar() {
            Some(s) if s.is_int() && matches!(ty, Type::Scalar(_) | Type::Vector(..)) => s,
            _ => return self.no_match(name, &vals, pos),
        };
        let ut = ty.with_scalar(s.unsigned_int_of_same_width());
        let bits = s.bits();
        let base = self.reinterpret(vals[0].0, &ty, &ut);
        if name == "bit_reverse" {
            let r = self.reverse_bits(base, &ut, bits);
            return Ok(Val::R(self.reinterpret(r, &ut, &ty), ty));
        }
        let fields = if name == "bitfield_insert" { 2 } else { 1 };
        if name == "bitfield_insert" {
            let (v, t) = vals[1].clone();
            if t != ty && !matches!((&t, &ty), (Type::Scalar(a), Type::Scalar(_)) if !a.is_float())
            {
                return self.no_match(name, &vals, pos);
            }
            vals[1].0 = self.convert(v, &t, &ty, pos, false)?;
        }
        // offset and count: uint, as shift amounts of the element type.
        let scalar_ut = Type::Scalar(s.unsigned_int_of_same_width());
        let mut amounts = Vec::with_capacity(2);
        for (v, t) in vals[fields..].iter().cloned() {
            if !matches!(t, Type::Scalar(a) if a.is_int()) {
                return self.no_match(name, &vals, pos);
            }
            amounts.push(self.convert(v, &t, &scalar_ut, pos, false)?);
        }
        self.set_pos(pos);
        let (offset, count) = (amounts[0], amounts[1]);
        let zero_count = {
            let z = self.zero(&scalar_ut);
            self.b().cmp(CmpOp::Eq, count, z)
        };
        let offset = self.broadcast(offset, &ut);
        let count = self.broadcast(count, &ut);
        let width = self.konst(&ut, u64::from(bits));
        let all = self.konst(&ut, ones(bits));
        // The low `count` bits set: all >> (bits - count), or none.
        let rest = self.b().binary(BinaryOp::Sub, width, count);
        let low = self.b().binary(BinaryOp::Shr, all, rest);
        let none = self.zero(&ut);
        let low = self
            .b()
            .push(Inst::Select(zero_count, none, low), ut.clone());
        let (r, rt) = match name {
            "bitfield_insert" => {
                let insert = self.reinterpret(vals[1].0, &ty, &ut);
                let mask = self.b().binary(BinaryOp::Shl, low, offset);
                let keep = self.b().binary(BinaryOp::Xor, mask, all);
                let kept = self.b().binary(BinaryOp::And, base, keep);
                let moved = self.b().binary(BinaryOp::Shl, insert, offset);
                let field = self.b().binary(BinaryOp::And, moved, mask);
                let r = self.b().binary(BinaryOp::Or, kept, field);
                (self.reinterpret(r, &ut, &ty), ty)
            }
            "bitfield_extract_unsigned" => {
                let shifted = self.b().binary(BinaryOp::Shr, base, offset);
                (self.b().binary(BinaryOp::And, shifted, low), ut)
            }
            _ => {
                // Move the field to the top, then shift it down with sign.
                let st = ty.with_scalar(s.signed_int_of_same_width());
                let up = self.b().binary(BinaryOp::Sub, rest, offset);
                let top = self.b().binary(BinaryOp::Shl, base, up);
                let top = self.reinterpret(top, &ut, &st);
                let rest = self.reinterpret(rest, &ut, &st);
                let r = self.b().binary(BinaryOp::Shr, top, rest);
                let z = self.zero(&st);
                let r = self.b().push(Inst::Select(zero_count, z, r), st.clone());
                (r, st)
            }
        };
        Ok(Val::R(r, rt))
    }

    /// The bits of each component of `x` (an unsigned type) in reverse
    /// order: swap neighbouring bits, then pairs, nibbles, bytes….
    fn reverse_bits(&mut self, x: ValueId, ut: &Type, bits: u32) -> ValueId {
        const MASKS: [(u64, u64); 6] = [
            (1, 0x5555_5555_5555_5555),
            (2, 0x3333_3333_3333_3333),
            (4, 0x0f0f_0f0f_0f0f_0f0f),
            (8, 0x00ff_00ff_00ff_00ff),
            (16, 0x0000_ffff_0000_ffff),
            (32, 0x0000_0000_ffff_ffff),
        ];
        let mut x = x;
        for (shift, mask) in MASKS {
            if shift >= u64::from(bits) {
                break;
            }
            let amount = self.konst(ut, shift);
            let m = self.konst(ut, mask & ones(bits));
            let down = self.b().binary(BinaryOp::Shr, x, amount);
            let down = self.b().binary(BinaryOp::And, down, m);
            let low = self.b().binary(BinaryOp::And, x, m);
            let up = self.b().binary(BinaryOp::Shl, low, amount);
            x = self.b().binary(BinaryOp::Or, down, up);
        }
        x
    }

    /// `v` of type `from` as the same bits of type `to` (no instruction
    /// when they are the same type).
    fn reinterpret(&mut self, v: ValueId, from: &Type, to: &Type) -> ValueId {
        if from == to {
            v
        } else {
            self.b().push(Inst::Bitcast(v), to.clone())
        }
    }

    /// A scalar as every component of `ty` (itself when `ty` is scalar).
    fn broadcast(&mut self, v: ValueId, ty: &Type) -> ValueId {
        match ty {
            Type::Vector(..) => self.b().push(Inst::Splat(v), ty.clone()),
            _ => v,
        }
    }
}

//! Bit-field instructions: `OpBitFieldInsert`, `OpBitFieldSExtract`,
//! `OpBitFieldUExtract` and `OpBitReverse` (what `llvm-spirv` writes for
//! `cl_khr_extended_bit_ops`), as shifts and masks on the unsigned IR
//! types, the way the OpenCL C front end lowers the same builtins.
//!
//! With `w` the element width, `count` and `offset` scalar integers:
//! - `low(count)` (the low `count` bits) is `ones >> (w - count)`, or 0
//!   when `count` is 0;
//! - insert: `(base & ~(low << offset)) | ((insert << offset) & (low << offset))`;
//! - unsigned extract: `(base >> offset) & low`;
//! - signed extract: `(base << (w - offset - count)) >>ₐ (w - count)`, or 0
//!   when `count` is 0.
//!
//! A field with `offset + count` past the width is undefined in SPIR-V;
//! the IR's shifts wrap their amounts there.

use crate::error::Result;
use crate::function::{FnCx, Inst_, Val};
use crate::module::{result_id, result_type};
use crate::reader::Inst;
use rspirv::spirv::Op;
use vecl_ir::*;

/// Whether `op` is translated here.
pub(crate) fn is_bit_field(op: Op) -> bool {
    matches!(
        op,
        Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract | Op::BitReverse
    )
}

fn ones(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl FnCx<'_, '_> {
    pub fn bit_field(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.inst.class.opcode;
        let rty = self.ir_type(result_type(inst)?)?;
        let base = self.operand(inst, 0)?;
        let ty = self.ty(base);
        let s = match ty.scalar() {
            Some(s) if s.is_int() && ty == rty => s.unsigned_int_of_same_width(),
            _ => {
                return Err(
                    inst.error("the base is not an integer scalar or vector of the result's type")
                )
            }
        };
        let bits = s.bits();
        let base = self.as_unsigned(base);
        let ut = self.ty(base);
        let r = if op == Op::BitReverse {
            self.reverse_bits(base, bits)
        } else {
            let first = if op == Op::BitFieldInsert { 2 } else { 1 };
            let insert = if op == Op::BitFieldInsert {
                let v = self.operand(inst, 1)?;
                if self.ty(v) != ty {
                    return Err(inst.error("the inserted value's type is not the base's"));
                }
                Some(self.as_unsigned(v))
            } else {
                None
            };
            let offset = self.field_amount(inst, first, s)?;
            let count = self.field_amount(inst, first + 1, s)?;
            let scalar = Type::Scalar(s);
            let zero_s = self.emit(Inst_::Const(0), scalar.clone());
            let empty = self.emit(Inst_::Cmp(CmpOp::Eq, count, zero_s), Type::BOOL);
            let offset = self.splat_as(offset, &ut);
            let count = self.splat_as(count, &ut);
            let width = self.const_of(&ut, u64::from(bits));
            let all = self.const_of(&ut, ones(bits));
            let none = self.const_of(&ut, 0);
            let rest = self.emit(Inst_::Binary(BinaryOp::Sub, width, count), ut.clone());
            let low = self.emit(Inst_::Binary(BinaryOp::Shr, all, rest), ut.clone());
            let low = self.emit(Inst_::Select(empty, none, low), ut.clone());
            match insert {
                Some(ins) => {
                    let mask = self.emit(Inst_::Binary(BinaryOp::Shl, low, offset), ut.clone());
                    let keep = self.emit(Inst_::Unary(UnaryOp::Not, mask), ut.clone());
                    let kept = self.emit(Inst_::Binary(BinaryOp::And, base, keep), ut.clone());
                    let moved = self.emit(Inst_::Binary(BinaryOp::Shl, ins, offset), ut.clone());
                    let field = self.emit(Inst_::Binary(BinaryOp::And, moved, mask), ut.clone());
                    self.emit(Inst_::Binary(BinaryOp::Or, kept, field), ut.clone())
                }
                None if op == Op::BitFieldUExtract => {
                    let down = self.emit(Inst_::Binary(BinaryOp::Shr, base, offset), ut.clone());
                    self.emit(Inst_::Binary(BinaryOp::And, down, low), ut.clone())
                }
                None => {
                    // Move the field to the top, then shift it down
                    // arithmetically.
                    let top = self.emit(Inst_::Binary(BinaryOp::Sub, rest, offset), ut.clone());
                    let up = self.emit(Inst_::Binary(BinaryOp::Shl, base, top), ut.clone());
                    let st = ut.with_scalar(s.signed_int_of_same_width());
                    let sup = self.emit(Inst_::Bitcast(up), st.clone());
                    let srest = self.emit(Inst_::Bitcast(rest), st.clone());
                    let down = self.emit(Inst_::Binary(BinaryOp::Shr, sup, srest), st);
                    let down = self.emit(Inst_::Bitcast(down), ut.clone());
                    self.emit(Inst_::Select(empty, none, down), ut.clone())
                }
            }
        };
        let r = self.recast(r, &rty);
        self.define(result_id(inst)?, Val::V(r));
        Ok(())
    }

    /// An offset or count operand (a scalar integer of any width) as
    /// scalar type `s`.
    fn field_amount(&mut self, inst: &Inst, i: usize, s: Scalar) -> Result<ValueId> {
        let v = self.operand(inst, i)?;
        let t = self.ty(v);
        if !matches!(t, Type::Scalar(x) if x.is_int()) {
            return Err(inst.error(format!("operand {i} is not a scalar integer")));
        }
        self.fit_int(v, &Type::Scalar(s))
    }

    /// Scalar `v` as type `t` (splatted when `t` is a vector).
    fn splat_as(&mut self, v: ValueId, t: &Type) -> ValueId {
        if matches!(t, Type::Vector(..)) {
            self.emit(Inst_::Splat(v), t.clone())
        } else {
            v
        }
    }

    fn const_of(&mut self, t: &Type, bits: u64) -> ValueId {
        let s = t.scalar().unwrap_or(Scalar::U32);
        let c = self.emit(Inst_::Const(bits), Type::Scalar(s));
        self.splat_as(c, t)
    }

    /// The bits of each element of `v` (unsigned, `bits` wide) reversed:
    /// swap adjacent single bits, then pairs, nibbles, bytes… up to halves.
    fn reverse_bits(&mut self, v: ValueId, bits: u32) -> ValueId {
        let t = self.ty(v);
        let mut v = v;
        let mut k = 1;
        while k < bits {
            // The mask of the low k bits of every 2k-bit group.
            let mut m = 0u64;
            let mut at = 0;
            while at < bits {
                m |= ones(k) << at;
                at += 2 * k;
            }
            let mask = self.const_of(&t, m & ones(bits));
            let amount = self.const_of(&t, u64::from(k));
            let hi = self.emit(Inst_::Binary(BinaryOp::Shr, v, amount), t.clone());
            let hi = self.emit(Inst_::Binary(BinaryOp::And, hi, mask), t.clone());
            let lo = self.emit(Inst_::Binary(BinaryOp::And, v, mask), t.clone());
            let lo = self.emit(Inst_::Binary(BinaryOp::Shl, lo, amount), t.clone());
            v = self.emit(Inst_::Binary(BinaryOp::Or, hi, lo), t.clone());
            k *= 2;
        }
        v
    }
}

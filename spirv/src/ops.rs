//! Value instructions: arithmetic, bitwise and logical operations,
//! comparisons, conversions, `OpSelect`, vector and composite operations.
//!
//! Integers are unsigned in the IR (see [`crate::module`]); an instruction
//! that reads a sign reinterprets its operands as signed (`Bitcast`, free
//! in the JIT) around the IR operation and its result back.

use crate::error::Result;
use crate::function::{FnCx, Inst_, Val};
use crate::module::{result_id, result_type, word_of};
use crate::reader::Inst;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, FPRoundingMode, Op};
use vecl_ir::*;

/// `t` with its integer elements signed.
pub(crate) fn signed_of(t: &Type) -> Type {
    match t.scalar() {
        Some(s) if s.is_int() => t.with_scalar(s.signed_int_of_same_width()),
        _ => t.clone(),
    }
}

/// `t` with its integer elements unsigned.
pub(crate) fn unsigned_of(t: &Type) -> Type {
    match t.scalar() {
        Some(s) if s.is_int() => t.with_scalar(s.unsigned_int_of_same_width()),
        _ => t.clone(),
    }
}

impl FnCx<'_, '_> {
    /// `v` reinterpreted as type `t` when the two differ (same size).
    pub fn recast(&mut self, v: ValueId, t: &Type) -> ValueId {
        let vt = self.ty(v);
        if vt == *t {
            return v;
        }
        if sign_change(&vt, t) {
            // SPIR-V's integers have no sign, so values go between `iN`
            // and `uN` at every operation that reads them one way. Such a
            // change is a conversion that keeps every bit (as the OpenCL C
            // front end makes `(long)` of a `size_t`), and one undone
            // (`u64` → `i64` → `u64`) is the value it started from: code
            // generators then see the shapes the front end's kernels have.
            if let Inst_::Convert {
                value: w,
                saturate: false,
                ..
            } = self.f.inst(v).inst
            {
                if self.ty(w) == *t {
                    return w;
                }
            }
            return self.convert(v, t.clone(), false, Rounding::Default);
        }
        self.emit(Inst_::Bitcast(v), t.clone())
    }

    pub fn as_signed(&mut self, v: ValueId) -> ValueId {
        let t = signed_of(&self.ty(v));
        self.recast(v, &t)
    }

    pub fn as_unsigned(&mut self, v: ValueId) -> ValueId {
        let t = unsigned_of(&self.ty(v));
        self.recast(v, &t)
    }

    fn konst(&mut self, ty: &Type, bits: u64) -> ValueId {
        let s = ty.scalar().unwrap_or(Scalar::U32);
        let c = self.emit(Inst_::Const(bits), Type::Scalar(s));
        if let Type::Vector(..) = ty {
            self.emit(Inst_::Splat(c), ty.clone())
        } else {
            c
        }
    }

    fn bool_like(&self, t: &Type) -> Type {
        match t {
            Type::Vector(_, n) => Type::Vector(Scalar::Bool, *n),
            _ => Type::BOOL,
        }
    }

    fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.ty(a);
        self.emit(Inst_::Binary(op, a, b), t)
    }

    fn cmp(&mut self, op: CmpOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.bool_like(&self.ty(a));
        self.emit(Inst_::Cmp(op, a, b), t)
    }

    fn not(&mut self, a: ValueId) -> ValueId {
        let t = self.ty(a);
        self.emit(Inst_::Unary(UnaryOp::Not, a), t)
    }

    /// A binary operation on signed reinterpretations, the result unsigned.
    fn signed_binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let (sa, sb) = (self.as_signed(a), self.as_signed(b));
        let r = self.binary(op, sa, sb);
        self.as_unsigned(r)
    }

    fn check_same(&self, inst: &Inst, a: ValueId, b: ValueId) -> Result<()> {
        if self.ty(a) != self.ty(b) {
            return Err(inst.error("the operands' types differ"));
        }
        Ok(())
    }

    /// The rounding and saturation a conversion's decorations ask for.
    fn conversion_mode(&self, id: u32) -> (bool, Rounding) {
        let sat = self
            .decoration(id, Decoration::SaturatedConversion)
            .is_some();
        let rounding = match self.decoration(id, Decoration::FPRoundingMode).as_deref() {
            Some([Operand::FPRoundingMode(m), ..]) => match m {
                FPRoundingMode::RTE => Rounding::Rte,
                FPRoundingMode::RTZ => Rounding::Rtz,
                FPRoundingMode::RTP => Rounding::Rtp,
                FPRoundingMode::RTN => Rounding::Rtn,
            },
            _ => Rounding::Default,
        };
        (sat, rounding)
    }

    fn convert(&mut self, v: ValueId, to: Type, sat: bool, rounding: Rounding) -> ValueId {
        self.emit(
            Inst_::Convert {
                value: v,
                saturate: sat,
                rounding,
            },
            to,
        )
    }

    /// Everything that is not memory, control flow, a call or an atomic.
    pub fn op(&mut self, inst: &Inst) -> Result<()> {
        use BinaryOp as B;
        let op = inst.inst.class.opcode;
        let rid = result_id(inst).ok();
        let rty = match inst.inst.result_type {
            Some(t) => Some(self.ir_type(t)?),
            None => None,
        };
        let ty = || {
            rty.clone()
                .ok_or_else(|| inst.error("the instruction has no result type"))
        };
        let v = match op {
            Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::UDiv
            | Op::UMod
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::LogicalAnd
            | Op::LogicalOr => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                self.check_same(inst, a, b)?;
                let bop = match op {
                    Op::IAdd | Op::FAdd => B::Add,
                    Op::ISub | Op::FSub => B::Sub,
                    Op::IMul | Op::FMul => B::Mul,
                    Op::UDiv | Op::FDiv => B::Div,
                    Op::UMod => B::Rem,
                    Op::BitwiseAnd | Op::LogicalAnd => B::And,
                    Op::BitwiseOr | Op::LogicalOr => B::Or,
                    _ => B::Xor,
                };
                let (a, b) = if matches!(op, Op::UDiv | Op::UMod) {
                    (self.as_unsigned(a), self.as_unsigned(b))
                } else {
                    (a, b)
                };
                self.binary(bop, a, b)
            }
            Op::SDiv | Op::SRem => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                self.check_same(inst, a, b)?;
                self.signed_binary(if op == Op::SDiv { B::Div } else { B::Rem }, a, b)
            }
            Op::SMod => {
                // The sign of the divisor: r = a rem b, plus b when r is
                // non-zero and its sign differs from b's.
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                self.check_same(inst, a, b)?;
                let (sa, sb) = (self.as_signed(a), self.as_signed(b));
                let t = self.ty(sa);
                let r = self.binary(B::Rem, sa, sb);
                let zero = self.konst(&t, 0);
                let nz = self.cmp(CmpOp::Ne, r, zero);
                let x = self.binary(B::Xor, r, sb);
                let differ = self.cmp(CmpOp::Lt, x, zero);
                let both = self.binary(B::And, nz, differ);
                let fixed = self.binary(B::Add, r, sb);
                let sel = self.emit(Inst_::Select(both, fixed, r), t);
                self.as_unsigned(sel)
            }
            Op::FRem | Op::FMod => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                self.check_same(inst, a, b)?;
                let t = self.ty(a);
                let r = self.emit(Inst_::Builtin(Builtin::Fmod, vec![a, b]), t.clone());
                if op == Op::FRem {
                    r
                } else {
                    // FMod takes the sign of the divisor.
                    let zero = self.konst(&t, 0);
                    let nz = self.cmp(CmpOp::Ne, r, zero);
                    let rn = self.cmp(CmpOp::Lt, r, zero);
                    let bn = self.cmp(CmpOp::Lt, b, zero);
                    let differ = self.binary(B::Xor, rn, bn);
                    let both = self.binary(B::And, nz, differ);
                    let fixed = self.binary(B::Add, r, b);
                    self.emit(Inst_::Select(both, fixed, r), t)
                }
            }
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                let t = self.ty(a);
                let b = if self.ty(b) != t {
                    let bt = t.clone();
                    if self.ty(b).lanes() != t.lanes() {
                        return Err(inst.error("the shift amount's lane count differs"));
                    }
                    self.convert(b, bt, false, Rounding::Default)
                } else {
                    b
                };
                match op {
                    Op::ShiftLeftLogical => self.binary(B::Shl, a, b),
                    Op::ShiftRightLogical => {
                        let (ua, ub) = (self.as_unsigned(a), self.as_unsigned(b));
                        self.binary(B::Shr, ua, ub)
                    }
                    _ => self.signed_binary(B::Shr, a, b),
                }
            }
            Op::SNegate | Op::FNegate => {
                let a = self.operand(inst, 0)?;
                let t = self.ty(a);
                self.emit(Inst_::Unary(UnaryOp::Neg, a), t)
            }
            Op::Not | Op::LogicalNot => {
                let a = self.operand(inst, 0)?;
                self.not(a)
            }
            Op::LogicalEqual | Op::LogicalNotEqual => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                self.check_same(inst, a, b)?;
                let x = self.binary(B::Xor, a, b);
                if op == Op::LogicalEqual {
                    self.not(x)
                } else {
                    x
                }
            }
            Op::IEqual
            | Op::INotEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                let (a, b) = if self.ty(a).is_pointer() || self.ty(b).is_pointer() {
                    // Pointer comparisons (`OpPtrEqual` is separate, but
                    // compilers also compare converted pointers).
                    (self.ptr_int(a), self.ptr_int(b))
                } else {
                    (a, b)
                };
                self.check_same(inst, a, b)?;
                let cop = match op {
                    Op::IEqual => CmpOp::Eq,
                    Op::INotEqual => CmpOp::Ne,
                    Op::ULessThan | Op::SLessThan => CmpOp::Lt,
                    Op::ULessThanEqual | Op::SLessThanEqual => CmpOp::Le,
                    Op::UGreaterThan | Op::SGreaterThan => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                let signed = matches!(
                    op,
                    Op::SLessThan | Op::SLessThanEqual | Op::SGreaterThan | Op::SGreaterThanEqual
                );
                let (a, b) = if signed {
                    (self.as_signed(a), self.as_signed(b))
                } else if self.ty(a).scalar() == Some(Scalar::Bool) {
                    (a, b)
                } else {
                    (self.as_unsigned(a), self.as_unsigned(b))
                };
                self.cmp(cop, a, b)
            }
            Op::PtrEqual | Op::PtrNotEqual => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                let (a, b) = (self.ptr_int(a), self.ptr_int(b));
                self.cmp(
                    if op == Op::PtrEqual {
                        CmpOp::Eq
                    } else {
                        CmpOp::Ne
                    },
                    a,
                    b,
                )
            }
            Op::PtrDiff => {
                // (a - b) / sizeof(*a), signed.
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                let pointee = self.ty(a).pointee().cloned();
                let Some(pointee) = pointee.filter(|_| self.ty(b).is_pointer()) else {
                    return Err(inst.error("the operands are not pointers"));
                };
                let size = u64::from(self.cx.module.size_of(&pointee).max(1));
                let (a, b) = (self.ptr_int(a), self.ptr_int(b));
                let d = self.binary(B::Sub, a, b);
                let n = self.konst(&Type::U64, size);
                let q = self.signed_binary(B::Div, d, n);
                let t = ty()?;
                if !matches!(t, Type::Scalar(s) if s.is_int()) {
                    return Err(inst.error("the result is not an integer"));
                }
                if t == Type::U64 {
                    q
                } else {
                    self.convert(q, t, false, Rounding::Default)
                }
            }
            Op::FOrdEqual
            | Op::FOrdLessThan
            | Op::FOrdLessThanEqual
            | Op::FOrdGreaterThan
            | Op::FOrdGreaterThanEqual
            | Op::FOrdNotEqual
            | Op::FUnordEqual
            | Op::FUnordNotEqual
            | Op::FUnordLessThan
            | Op::FUnordLessThanEqual
            | Op::FUnordGreaterThan
            | Op::FUnordGreaterThanEqual => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                self.check_same(inst, a, b)?;
                // The IR's comparisons are ordered except `Ne`; the others
                // are negations or an `or` of two.
                match op {
                    Op::FOrdEqual => self.cmp(CmpOp::Eq, a, b),
                    Op::FOrdLessThan => self.cmp(CmpOp::Lt, a, b),
                    Op::FOrdLessThanEqual => self.cmp(CmpOp::Le, a, b),
                    Op::FOrdGreaterThan => self.cmp(CmpOp::Gt, a, b),
                    Op::FOrdGreaterThanEqual => self.cmp(CmpOp::Ge, a, b),
                    Op::FUnordNotEqual => self.cmp(CmpOp::Ne, a, b),
                    Op::FOrdNotEqual | Op::FUnordEqual => {
                        let lt = self.cmp(CmpOp::Lt, a, b);
                        let gt = self.cmp(CmpOp::Gt, a, b);
                        let ne = self.binary(B::Or, lt, gt);
                        if op == Op::FOrdNotEqual {
                            ne
                        } else {
                            self.not(ne)
                        }
                    }
                    Op::FUnordLessThan => {
                        let c = self.cmp(CmpOp::Ge, a, b);
                        self.not(c)
                    }
                    Op::FUnordLessThanEqual => {
                        let c = self.cmp(CmpOp::Gt, a, b);
                        self.not(c)
                    }
                    Op::FUnordGreaterThan => {
                        let c = self.cmp(CmpOp::Le, a, b);
                        self.not(c)
                    }
                    _ => {
                        let c = self.cmp(CmpOp::Lt, a, b);
                        self.not(c)
                    }
                }
            }
            Op::IsNan
            | Op::IsInf
            | Op::IsFinite
            | Op::IsNormal
            | Op::SignBitSet
            | Op::Ordered
            | Op::Unordered
            | Op::LessOrGreater => {
                let name = match op {
                    Op::IsNan => Builtin::Isnan,
                    Op::IsInf => Builtin::Isinf,
                    Op::IsFinite => Builtin::Isfinite,
                    Op::IsNormal => Builtin::Isnormal,
                    Op::SignBitSet => Builtin::Signbit,
                    Op::Ordered => Builtin::Isordered,
                    Op::Unordered => Builtin::Isunordered,
                    _ => Builtin::Islessgreater,
                };
                let mut args = vec![self.operand(inst, 0)?];
                if matches!(op, Op::Ordered | Op::Unordered | Op::LessOrGreater) {
                    args.push(self.operand(inst, 1)?);
                }
                let at = self.ty(args[0]);
                let it = match at {
                    Type::Vector(s, n) => Type::Vector(s.signed_int_of_same_width(), n),
                    _ => Type::I32,
                };
                let r = self.emit(Inst_::Builtin(name, args), it.clone());
                let zero = self.konst(&it, 0);
                self.cmp(CmpOp::Ne, r, zero)
            }
            Op::Any | Op::All => {
                let a = self.operand(inst, 0)?;
                let n = self.ty(a).lanes();
                if n == 1 {
                    a
                } else {
                    let mut acc = self.emit(Inst_::Extract(a, 0), Type::BOOL);
                    for i in 1..n {
                        let e = self.emit(Inst_::Extract(a, i as u8), Type::BOOL);
                        acc = self.binary(if op == Op::Any { B::Or } else { B::And }, acc, e);
                    }
                    acc
                }
            }
            Op::Select => {
                let c = self.operand(inst, 0)?;
                let (a, b) = (word_of(inst, 1)?, word_of(inst, 2)?);
                match (self.val(a)?, self.val(b)?) {
                    (Val::V(a), Val::V(b)) => {
                        self.check_same(inst, a, b)?;
                        let t = self.ty(a);
                        self.emit(Inst_::Select(c, a, b), t)
                    }
                    (Val::Agg(a), Val::Agg(b)) => {
                        let t = self.ty(a);
                        let b = if self.ty(b) != t {
                            self.emit(Inst_::PtrCast(b), t.clone())
                        } else {
                            b
                        };
                        let p = self.emit(Inst_::Select(c, a, b), t);
                        self.define(result_id(inst)?, Val::Agg(p));
                        return Ok(());
                    }
                    _ => return Err(inst.error("selects between values of different kinds")),
                }
            }
            Op::Dot => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                self.emit(Inst_::Builtin(Builtin::Dot, vec![a, b]), ty()?)
            }
            Op::VectorTimesScalar => {
                let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                let t = self.ty(a);
                let s = self.emit(Inst_::Splat(b), t);
                self.binary(B::Mul, a, s)
            }
            Op::ConvertFToU | Op::ConvertUToF | Op::UConvert | Op::FConvert => {
                let a = self.operand(inst, 0)?;
                let a = if op == Op::ConvertUToF || op == Op::UConvert {
                    self.as_unsigned(a)
                } else {
                    a
                };
                let (sat, r) = self.conversion_mode(rid.unwrap_or(0));
                self.convert(a, ty()?, sat, r)
            }
            Op::ConvertFToS | Op::SConvert | Op::SatConvertUToS => {
                let a = self.operand(inst, 0)?;
                let a = if op == Op::SConvert {
                    self.as_signed(a)
                } else {
                    a
                };
                let (sat, r) = self.conversion_mode(rid.unwrap_or(0));
                let sat = sat || op == Op::SatConvertUToS;
                let t = ty()?;
                let c = self.convert(a, signed_of(&t), sat, r);
                self.recast(c, &t)
            }
            Op::ConvertSToF | Op::SatConvertSToU => {
                let a = self.operand(inst, 0)?;
                let a = self.as_signed(a);
                let (sat, r) = self.conversion_mode(rid.unwrap_or(0));
                let sat = sat || op == Op::SatConvertSToU;
                self.convert(a, ty()?, sat, r)
            }
            Op::Bitcast => {
                let a = self.operand(inst, 0)?;
                let (at, t) = (self.ty(a), ty()?);
                match (at.is_pointer(), t.is_pointer()) {
                    (true, true) => self.emit(Inst_::PtrCast(a), t),
                    (true, false) => {
                        let i = self.emit(Inst_::PtrToInt(a), Type::U64);
                        self.recast(i, &t)
                    }
                    (false, true) => {
                        let a = self.recast(a, &Type::U64);
                        self.emit(Inst_::IntToPtr(a), t)
                    }
                    (false, false) => {
                        if self.cx.module.size_of(&at) != self.cx.module.size_of(&t) {
                            return Err(inst.error("a bitcast between types of different sizes"));
                        }
                        self.recast(a, &t)
                    }
                }
            }
            Op::ConvertPtrToU => {
                let a = self.operand(inst, 0)?;
                let i = self.emit(Inst_::PtrToInt(a), Type::U64);
                let t = ty()?;
                if t == Type::U64 {
                    i
                } else {
                    self.convert(i, t, false, Rounding::Default)
                }
            }
            Op::ConvertUToPtr => {
                let a = self.operand(inst, 0)?;
                let a = if self.ty(a) != Type::U64 {
                    let a = self.as_unsigned(a);
                    self.convert(a, Type::U64, false, Rounding::Default)
                } else {
                    a
                };
                self.emit(Inst_::IntToPtr(a), ty()?)
            }
            Op::PtrCastToGeneric | Op::GenericCastToPtr => {
                let a = self.operand(inst, 0)?;
                self.emit(Inst_::PtrCast(a), ty()?)
            }
            Op::GenericCastToPtrExplicit => {
                let a = self.operand(inst, 0)?;
                let t = ty()?;
                let name = match t.address_space() {
                    Some(AddressSpace::Global) => Builtin::ToGlobal,
                    Some(AddressSpace::Local) => Builtin::ToLocal,
                    Some(AddressSpace::Private) => Builtin::ToPrivate,
                    _ => return Err(inst.error("an explicit cast to this storage class")),
                };
                self.emit(Inst_::Builtin(name, vec![a]), t)
            }
            Op::GenericPtrMemSemantics => {
                // `get_fence`: CLK_LOCAL_MEM_FENCE (1) → WorkgroupMemory,
                // otherwise CrossWorkgroupMemory.
                let a = self.operand(inst, 0)?;
                let f = self.emit(Inst_::Builtin(Builtin::GetFence, vec![a]), Type::U32);
                let one = self.konst(&Type::U32, 1);
                let is_local = self.cmp(CmpOp::Eq, f, one);
                let t = ty()?;
                let wg = self.konst(&t, 0x100);
                let cw = self.konst(&t, 0x200);
                self.emit(Inst_::Select(is_local, wg, cw), t)
            }
            Op::BitCount => {
                let a = self.operand(inst, 0)?;
                let at = self.ty(a);
                let r = self.emit(Inst_::Builtin(Builtin::Popcount, vec![a]), at);
                let t = ty()?;
                if self.ty(r) == t {
                    r
                } else {
                    self.convert(r, t, false, Rounding::Default)
                }
            }
            Op::Undef => {
                let t = ty()?;
                if t.is_value() {
                    self.emit(Inst_::Undef, t)
                } else {
                    let slot = self.new_slot("undef", t);
                    self.define(result_id(inst)?, Val::Agg(slot));
                    return Ok(());
                }
            }
            Op::CopyLogical => {
                // Types that differ only by their declarations have one
                // layout in the OpenCL environment: a copy of the bytes.
                let t = ty()?;
                match self.val(word_of(inst, 0)?)? {
                    Val::V(v) if self.ty(v) == t => v,
                    Val::Agg(src) => {
                        let space = self
                            .ty(src)
                            .address_space()
                            .unwrap_or(AddressSpace::Private);
                        let have = self.ty(src).pointee().cloned().unwrap_or(Type::Void);
                        if self.cx.module.size_of(&have) != self.cx.module.size_of(&t) {
                            return Err(
                                inst.error("the operand's type does not match the result's")
                            );
                        }
                        let view = self.emit(Inst_::PtrCast(src), Type::ptr(space, t.clone()));
                        let copy = self.snapshot(view, &t);
                        self.define(result_id(inst)?, Val::Agg(copy));
                        return Ok(());
                    }
                    _ => return Err(inst.error("the operand's type does not match the result's")),
                }
            }
            Op::CopyObject => {
                let v = self.val(word_of(inst, 0)?)?;
                self.define(result_id(inst)?, v);
                return Ok(());
            }
            Op::VectorShuffle => self.shuffle(inst, ty()?)?,
            Op::VectorExtractDynamic => {
                let (a, i) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
                let at = self.ty(a);
                let Type::Vector(s, _) = at else {
                    return Err(inst.error("extracts from a non-vector"));
                };
                if let Some(k) = self
                    .f
                    .int_const(i)
                    .filter(|k| (0..at.lanes() as i64).contains(k))
                {
                    self.emit(Inst_::Extract(a, k as u8), Type::Scalar(s))
                } else {
                    let slot = self.spill(a);
                    let e = self.emit(
                        Inst_::Elem(slot, i),
                        Type::ptr(AddressSpace::Private, Type::Scalar(s)),
                    );
                    self.emit(Inst_::Load(e), Type::Scalar(s))
                }
            }
            Op::VectorInsertDynamic => {
                let (a, x, i) = (
                    self.operand(inst, 0)?,
                    self.operand(inst, 1)?,
                    self.operand(inst, 2)?,
                );
                let at = self.ty(a);
                let Type::Vector(s, _) = at else {
                    return Err(inst.error("inserts into a non-vector"));
                };
                if let Some(k) = self
                    .f
                    .int_const(i)
                    .filter(|k| (0..at.lanes() as i64).contains(k))
                {
                    self.emit(Inst_::Insert(a, k as u8, x), at)
                } else {
                    let slot = self.spill(a);
                    let e = self.emit(
                        Inst_::Elem(slot, i),
                        Type::ptr(AddressSpace::Private, Type::Scalar(s)),
                    );
                    let loc = self.loc();
                    self.stmt(Stmt::Store {
                        ptr: e,
                        value: x,
                        loc,
                    });
                    self.emit(Inst_::Load(slot), at)
                }
            }
            Op::CompositeExtract => return self.composite_extract(inst),
            Op::CompositeInsert => return self.composite_insert(inst),
            Op::CompositeConstruct => return self.composite_construct(inst),
            Op::SizeOf => {
                let p = self.operand(inst, 0)?;
                let pointee = self.ty(p).pointee().cloned().unwrap_or(Type::Void);
                let size = self.cx.module.size_of(&pointee);
                let t = ty()?;
                self.konst(&t, u64::from(size))
            }
            _ => {
                return Err(inst.error(format!(
                    "{} is not supported by vecl's SPIR-V front end",
                    inst.opname()
                )))
            }
        };
        let t = self.ty(v);
        if let Some(want) = &rty {
            if *want != t {
                // Every lowering above produces the declared type; a
                // difference means a malformed module.
                return Err(inst.error(format!(
                    "the result type does not fit the operands ({want:?} declared, {t:?} computed)"
                )));
            }
        }
        if let Some(id) = rid {
            self.define(id, Val::V(v));
        }
        Ok(())
    }

    /// A pointer as an integer, for comparisons.
    fn ptr_int(&mut self, v: ValueId) -> ValueId {
        if self.ty(v).is_pointer() {
            self.emit(Inst_::PtrToInt(v), Type::U64)
        } else {
            v
        }
    }

    /// A vector value stored in a fresh private slot.
    fn spill(&mut self, v: ValueId) -> ValueId {
        let t = self.ty(v);
        let slot = self.new_slot("vec", t);
        let loc = self.loc();
        self.stmt(Stmt::Store {
            ptr: slot,
            value: v,
            loc,
        });
        slot
    }

    fn shuffle(&mut self, inst: &Inst, t: Type) -> Result<ValueId> {
        let (a, b) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
        let (at, bt) = (self.ty(a), self.ty(b));
        let (Type::Vector(s, na), Type::Vector(_, nb)) = (&at, &bt) else {
            return Err(inst.error("shuffles non-vectors"));
        };
        let (s, na, nb) = (*s, u32::from(*na), u32::from(*nb));
        let mut idx = Vec::new();
        for i in 2..inst.inst.operands.len() {
            let k = word_of(inst, i)?;
            // 0xFFFFFFFF: an undefined component.
            if k >= na + nb && k != u32::MAX {
                return Err(inst.error(format!("component {k} is out of range")));
            }
            idx.push(k);
        }
        let undefined = idx.contains(&u32::MAX);
        if at == bt && !undefined {
            let idx8 = idx.iter().map(|k| *k as u8).collect();
            return Ok(self.emit(Inst_::Shuffle(a, b, idx8), t));
        }
        let mut parts = Vec::new();
        for k in idx {
            if k == u32::MAX {
                // An undefined component: zero, so that what a store of
                // the vector writes there is deterministic.
                parts.push(self.emit(Inst_::Const(0), Type::Scalar(s)));
                continue;
            }
            let (src, j) = if k < na { (a, k) } else { (b, k - na) };
            parts.push(self.emit(Inst_::Extract(src, j as u8), Type::Scalar(s)));
        }
        Ok(self.emit(Inst_::Construct(parts), t))
    }

    /// The address of the part of aggregate `base` (at `ptr`) that the
    /// literal indices name, and its type.
    fn part_address(&mut self, inst: &Inst, mut ptr: ValueId, indices: &[u32]) -> Result<ValueId> {
        for &k in indices {
            let Type::Pointer(space, pointee) = self.ty(ptr) else {
                return Err(inst.error("indexes a non-composite"));
            };
            ptr = match *pointee {
                Type::Struct(sid) => {
                    let def = &self.cx.module.structs[sid.0 as usize];
                    let Some(f) = def.fields.get(k as usize) else {
                        return Err(inst.error(format!("member {k} does not exist")));
                    };
                    let t = Type::ptr(space, f.ty.clone());
                    self.emit(Inst_::Field(ptr, k), t)
                }
                Type::Array(e, n) => {
                    if k >= n {
                        return Err(inst.error(format!("element {k} of an array of {n}")));
                    }
                    let i = self.emit(Inst_::Const(u64::from(k)), Type::U32);
                    self.emit(Inst_::Elem(ptr, i), Type::ptr(space, *e))
                }
                Type::Vector(s, n) => {
                    if k >= u32::from(n) {
                        return Err(inst.error(format!("component {k} of a vector of {n}")));
                    }
                    let i = self.emit(Inst_::Const(u64::from(k)), Type::U32);
                    self.emit(Inst_::Elem(ptr, i), Type::ptr(space, Type::Scalar(s)))
                }
                _ => return Err(inst.error("indexes a non-composite")),
            };
        }
        Ok(ptr)
    }

    fn literal_indices(&self, inst: &Inst, from: usize) -> Result<Vec<u32>> {
        (from..inst.inst.operands.len())
            .map(|i| word_of(inst, i))
            .collect()
    }

    fn composite_extract(&mut self, inst: &Inst) -> Result<()> {
        let t = self.ir_type(result_type(inst)?)?;
        let idx = self.literal_indices(inst, 1)?;
        let id = result_id(inst)?;
        match self.val(word_of(inst, 0)?)? {
            Val::V(v) => {
                let vt = self.ty(v);
                let (Type::Vector(s, n), [k]) = (&vt, idx.as_slice()) else {
                    return Err(inst.error("extracts from a value that is not a vector"));
                };
                if *k >= u32::from(*n) {
                    return Err(inst.error(format!("component {k} of a vector of {n}")));
                }
                // A component of a vector made from its components (a
                // built-in such as `GlobalInvocationId`, loaded whole and
                // then taken apart) is that component itself: the vector
                // is then often read by nothing, which the middle's
                // passes drop, and a code generator that takes no vector
                // values (the wide code) takes the kernel.
                if let Inst_::Construct(parts) = &self.f.inst(v).inst {
                    let part = parts.get(*k as usize).copied();
                    if let Some(p) = part.filter(|p| self.ty(*p) == t) {
                        self.define(id, Val::V(p));
                        return Ok(());
                    }
                }
                let r = self.emit(Inst_::Extract(v, *k as u8), Type::Scalar(*s));
                if self.ty(r) != t {
                    return Err(inst.error("the result type is not the component's"));
                }
                self.define(id, Val::V(r));
            }
            Val::Agg(p) => {
                let q = self.part_address(inst, p, &idx)?;
                if self.ty(q).pointee() != Some(&t) {
                    return Err(inst.error("the result type is not the member's"));
                }
                let v = if t.is_value() {
                    Val::V(self.emit(Inst_::Load(q), t))
                } else {
                    Val::Agg(q)
                };
                self.define(id, v);
            }
            _ => return Err(inst.error("extracts from a built-in variable's address")),
        }
        Ok(())
    }

    fn composite_insert(&mut self, inst: &Inst) -> Result<()> {
        let t = self.ir_type(result_type(inst)?)?;
        let idx = self.literal_indices(inst, 2)?;
        let id = result_id(inst)?;
        let object = word_of(inst, 0)?;
        match self.val(word_of(inst, 1)?)? {
            Val::V(v) => {
                let x = self.value(object)?;
                let vt = self.ty(v);
                let (Type::Vector(_, n), [k]) = (&vt, idx.as_slice()) else {
                    return Err(inst.error("inserts into a value that is not a vector"));
                };
                if *k >= u32::from(*n) {
                    return Err(inst.error(format!("component {k} of a vector of {n}")));
                }
                let r = self.emit(Inst_::Insert(v, *k as u8, x), vt);
                self.define(id, Val::V(r));
            }
            Val::Agg(p) => {
                let copy = self.snapshot(p, &t);
                let q = self.part_address(inst, copy, &idx)?;
                let pt = self.ty(q).pointee().cloned().unwrap_or(Type::Void);
                self.store_part(q, object, &pt)?;
                self.define(id, Val::Agg(copy));
            }
            _ => return Err(inst.error("inserts into a built-in variable's address")),
        }
        Ok(())
    }

    /// Stores SPIR-V value `id` as a part of type `t` at `q`.
    fn store_part(&mut self, q: ValueId, id: u32, t: &Type) -> Result<()> {
        let loc = self.loc();
        match self.val(id)? {
            Val::V(x) => {
                if self.ty(x) != *t {
                    return Err(self.error("a part of the wrong type"));
                }
                self.stmt(Stmt::Store {
                    ptr: q,
                    value: x,
                    loc,
                });
            }
            Val::Agg(src) => {
                let size = self.cx.module.size_of(t);
                self.stmt(Stmt::Copy {
                    dst: q,
                    src,
                    size,
                    loc,
                });
            }
            _ => return Err(self.error("a built-in variable's address as a part")),
        }
        Ok(())
    }

    fn composite_construct(&mut self, inst: &Inst) -> Result<()> {
        let t = self.ir_type(result_type(inst)?)?;
        let id = result_id(inst)?;
        let parts: Vec<u32> = self.literal_indices(inst, 0)?;
        if let Type::Vector(s, n) = t {
            let mut vs = Vec::new();
            let mut lanes = 0;
            for p in parts {
                let v = self.value(p)?;
                if self.ty(v).scalar() != Some(s) {
                    return Err(inst.error("a constituent of another component type"));
                }
                lanes += self.ty(v).lanes();
                vs.push(v);
            }
            if lanes != u32::from(n) {
                return Err(inst.error(format!("{lanes} components for a vector of {n}")));
            }
            let v = self.emit(Inst_::Construct(vs), t);
            self.define(id, Val::V(v));
            return Ok(());
        }
        let slot = self.new_slot("composite", t.clone());
        for (k, p) in parts.iter().enumerate() {
            let q = self.part_address(inst, slot, &[k as u32])?;
            let pt = self.ty(q).pointee().cloned().unwrap_or(Type::Void);
            self.store_part(q, *p, &pt)?;
        }
        self.define(id, Val::Agg(slot));
        Ok(())
    }
}

/// Whether `a` and `b` are integers (or vectors of as many of them) of
/// one width that differ in sign only.
fn sign_change(a: &Type, b: &Type) -> bool {
    let same = |x: Scalar, y: Scalar| x.is_int() && y.is_int() && x.bits() == y.bits();
    match (a, b) {
        (Type::Scalar(x), Type::Scalar(y)) => same(*x, *y),
        (Type::Vector(x, n), Type::Vector(y, m)) => n == m && same(*x, *y),
        _ => false,
    }
}

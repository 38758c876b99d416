//! Atomic instructions → the IR's `Atomic`, with the memory order read
//! from the semantics operand and the scope from the scope operand.
//! Signed minimum and maximum go through signed views of the pointer and
//! operands (the IR takes signedness from the memory's type).

use crate::error::Result;
use crate::function::{FnCx, Inst_, Val};
use crate::module::{result_id, word_of, Const};
use crate::ops::signed_of;
use crate::reader::Inst;
use rspirv::spirv::Op;
use vecl_ir::*;

pub(crate) fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFlagTestAndSet
            | Op::AtomicFlagClear
    )
}

impl FnCx<'_, '_> {
    fn memory_order(&self, sem: u32) -> MemoryOrder {
        let bits = match self.cx.consts.get(&sem) {
            Some(Const::Scalar(_, b)) => *b as u32,
            _ => return MemoryOrder::SeqCst,
        };
        if bits & 0x10 != 0 {
            MemoryOrder::SeqCst
        } else if bits & 0x8 != 0 {
            MemoryOrder::AcqRel
        } else if bits & 0x4 != 0 {
            MemoryOrder::Release
        } else if bits & 0x2 != 0 {
            MemoryOrder::Acquire
        } else {
            MemoryOrder::Relaxed
        }
    }

    fn memory_scope(&self, scope: u32) -> MemoryScope {
        match self.scope(scope) {
            Some(0) => MemoryScope::AllDevices,
            Some(2) => MemoryScope::WorkGroup,
            Some(3) => MemoryScope::SubGroup,
            Some(4) => MemoryScope::WorkItem,
            _ => MemoryScope::Device,
        }
    }

    pub fn atomic(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.inst.class.opcode;
        let ptr = self.operand(inst, 0)?;
        let scope = self.memory_scope(word_of(inst, 1)?);
        let order = self.memory_order(word_of(inst, 2)?);
        let Some(pointee) = self.ty(ptr).pointee().cloned() else {
            return Err(inst.error("an atomic through a non-pointer"));
        };
        let (aop, nargs) = match op {
            Op::AtomicLoad => (AtomicOp::Load, 0),
            Op::AtomicStore => (AtomicOp::Store, 1),
            Op::AtomicExchange => (AtomicOp::Xchg, 1),
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => (AtomicOp::CmpXchg, 2),
            Op::AtomicIIncrement => (AtomicOp::Inc, 0),
            Op::AtomicIDecrement => (AtomicOp::Dec, 0),
            Op::AtomicIAdd => (AtomicOp::Add, 1),
            Op::AtomicISub => (AtomicOp::Sub, 1),
            Op::AtomicSMin | Op::AtomicUMin => (AtomicOp::Min, 1),
            Op::AtomicSMax | Op::AtomicUMax => (AtomicOp::Max, 1),
            Op::AtomicAnd => (AtomicOp::And, 1),
            Op::AtomicOr => (AtomicOp::Or, 1),
            Op::AtomicXor => (AtomicOp::Xor, 1),
            Op::AtomicFlagTestAndSet => (AtomicOp::Xchg, 0),
            _ => (AtomicOp::Store, 0),
        };
        let mut args = Vec::new();
        match op {
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                // (ptr, scope, equal, unequal, value, comparator) → [cmp, new]
                let value = self.operand(inst, 4)?;
                let cmp = self.operand(inst, 5)?;
                args = vec![cmp, value];
            }
            Op::AtomicFlagTestAndSet | Op::AtomicFlagClear => {
                let set = u64::from(op == Op::AtomicFlagTestAndSet);
                args.push(self.emit(Inst_::Const(set), pointee.clone()));
            }
            _ => {
                for i in 0..nargs {
                    args.push(self.operand(inst, 3 + i)?);
                }
            }
        }
        let signed = matches!(op, Op::AtomicSMin | Op::AtomicSMax);
        let (ptr, mem_ty) = if signed {
            let st = signed_of(&pointee);
            let space = self
                .ty(ptr)
                .address_space()
                .unwrap_or(AddressSpace::Generic);
            let p = self.emit(Inst_::PtrCast(ptr), Type::ptr(space, st.clone()));
            for a in &mut args {
                *a = self.recast(*a, &st);
            }
            (p, st)
        } else {
            (ptr, pointee.clone())
        };
        for a in &args {
            if self.ty(*a) != mem_ty {
                return Err(inst.error("an operand's type differs from the memory's"));
            }
        }
        let rty = if aop == AtomicOp::Store {
            Type::Void
        } else {
            mem_ty.clone()
        };
        let r = self.emit(
            Inst_::Atomic {
                op: aop,
                ptr,
                args,
                order,
                scope,
            },
            rty,
        );
        if let Some(id) = inst.inst.result_id {
            let v = match op {
                Op::AtomicFlagTestAndSet => {
                    let zero = self.emit(Inst_::Const(0), mem_ty);
                    self.emit(Inst_::Cmp(CmpOp::Ne, r, zero), Type::BOOL)
                }
                _ => self.recast(r, &pointee),
            };
            let _ = result_id(inst)?;
            self.define(id, Val::V(v));
        }
        Ok(())
    }
}

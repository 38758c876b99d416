//! `printf`: one call of the host's `vecl_printf` (`crate::printf`) per
//! lane, in lane order, with the lane's arguments packed in a record on the
//! stack and the lane's active bit, so only the active work-items print
//! and each prints its call whole.
//!
//! The record's constant words (argument count, type tags) and the
//! components of uniform arguments are stored once; each lane then stores
//! its varying components over them and calls the host. The result is the
//! host's 0 or -1 per lane.

use super::super::lanes::{Lanes, Val};
use super::super::{FunctionCx, LResult};
use crate::printf::tag;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use vecl_ir::{Scalar, Type, ValueId};

/// One argument's place in the record.
struct Field {
    s: Scalar,
    /// Word index of its first component.
    at: usize,
    comps: Val,
}

impl FunctionCx<'_, '_> {
    /// Lowers `printf(format, args…)` (the front end passes the format, a
    /// string literal, first).
    pub(super) fn lower_printf(&mut self, args: &[ValueId]) -> LResult<Val> {
        let mut fields = Vec::with_capacity(args.len());
        let mut tags = Vec::with_capacity(args.len());
        // Word 0 is the format, word 1 the count of the other arguments.
        let mut words = 2;
        for (i, a) in args.iter().enumerate() {
            let ty = self.kernel.func().ty(*a).clone();
            let bad = || format!("printf argument of type {ty:?}");
            let s = match &ty {
                Type::Pointer(..) => Scalar::U64,
                t => t.scalar().ok_or_else(|| self.unsupported(bad()))?,
            };
            let comps = self.value(*a)?;
            let at = if i == 0 {
                0
            } else {
                tags.push((words, tag(&ty).ok_or_else(|| self.unsupported(bad()))?));
                let at = words + 1;
                words = at + comps.len();
                at
            };
            fields.push(Field { s, at, comps });
        }
        let bytes = u32::try_from(words * 8)
            .map_err(|_| self.unsupported("a printf call with that many arguments"))?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            bytes,
            3,
        ));
        let record = self.b.ins().stack_addr(types::I64, slot, 0);
        let count = self.b.ins().iconst(types::I64, (args.len() - 1) as i64);
        self.store_word(record, 1, count);
        for (at, t) in tags {
            let k = self.b.ins().iconst(types::I64, t as i64);
            self.store_word(record, at, k);
        }
        for f in &fields {
            for (c, l) in f.comps.iter().enumerate() {
                if let Lanes::Uniform(v) = l {
                    let w = self.record_word(f.s, *v);
                    self.store_word(record, f.at + c, w);
                }
            }
        }
        let host = self.extern_fn("vecl_printf", &[types::I64, types::I32], Some(types::I32))?;
        let mask = self.cur_mask();
        let mut results = Vec::with_capacity(self.kernel.w() as usize);
        for j in 0..self.kernel.w() as usize {
            for f in &fields {
                for (c, l) in f.comps.iter().enumerate() {
                    if !l.is_uniform() {
                        let v = self.lane(f.s, l, j);
                        let w = self.record_word(f.s, v);
                        self.store_word(record, f.at + c, w);
                    }
                }
            }
            let active = self.lane_active(&mask, j);
            let r = self
                .call(host, &[record, active])
                .ok_or_else(|| self.internal("vecl_printf returns a value"))?;
            results.push(r);
        }
        Ok(vec![Lanes::Varying(self.build(Scalar::I32, &results))])
    }

    fn store_word(&mut self, record: Value, at: usize, w: Value) {
        self.b
            .ins()
            .store(MemFlagsData::trusted(), w, record, (at * 8) as i32);
    }

    /// A component in its natural type as the low bits of an `i64`.
    fn record_word(&mut self, s: Scalar, v: Value) -> Value {
        let flags = MemFlagsData::new();
        match s {
            Scalar::F32 => {
                let i = self.b.ins().bitcast(types::I32, flags, v);
                self.b.ins().uextend(types::I64, i)
            }
            Scalar::F64 => self.b.ins().bitcast(types::I64, flags, v),
            Scalar::I64 | Scalar::U64 => v,
            _ => self.b.ins().uextend(types::I64, v),
        }
    }
}

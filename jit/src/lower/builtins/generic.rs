//! `to_global`, `to_local`, `to_private` and `get_fence` (OpenCL C 2.0
//! 6.13.9): what a generic pointer points into, found from its address.
//!
//! The spaces are told apart by range: the group's `__local` arena
//! `[local_mem, local_mem + Launch::local_mem_size)`, private memory (the
//! chunk's private area and the bytes of struct parameters passed by value
//! in the argument block), and `__global` for every other non-null
//! address (buffers and program-scope variables). A cast to a space the
//! pointer is not in gives null, as the specification asks.

use super::super::lanes::{Lanes, Val};
use super::super::{invariant, FunctionCx, LResult};
use crate::abi::{launch_offsets as lo, ArgKind};
use cranelift_codegen::ir::{types, InstBuilder};
use vecl_ir::{BinaryOp, Builtin, CmpOp, Scalar, ValueId};

impl FunctionCx<'_, '_> {
    /// The four builtins above (`get_fence` for any other builtin); `None`
    /// without an argument.
    pub(super) fn lower_generic_cast(
        &mut self,
        name: Builtin,
        args: &[ValueId],
    ) -> LResult<Option<Val>> {
        let Some(&ptr) = args.first() else {
            return Ok(None);
        };
        let p = self.value(ptr)?[0].clone();
        let local = self.in_space_local(&p)?;
        let private = self.in_space_private(&p)?;
        let u = Scalar::U64;
        let zero = Lanes::Uniform(self.b.ins().iconst(types::I64, 0));
        let r = match name {
            Builtin::ToLocal => self.select_lanes(u, &local, &p, &zero),
            Builtin::ToPrivate => self.select_lanes(u, &private, &p, &zero),
            Builtin::ToGlobal => {
                let elsewhere = self.select_lanes(u, &private, &zero, &p);
                self.select_lanes(u, &local, &zero, &elsewhere)
            }
            _ => {
                // CLK_LOCAL_MEM_FENCE (1) for `__local`, else
                // CLK_GLOBAL_MEM_FENCE (2), chosen in the pointer's 64-bit
                // lanes and narrowed to a `uint`.
                let one = Lanes::Uniform(self.b.ins().iconst(types::I64, 1));
                let two = Lanes::Uniform(self.b.ins().iconst(types::I64, 2));
                let flags = self.select_lanes(u, &local, &one, &two);
                self.convert(&flags, u, Scalar::U32, false, Default::default())?
            }
        };
        Ok(Some(vec![r]))
    }

    /// Per lane: whether `p` lies in `[start, start + len)`.
    fn in_range(
        &mut self,
        p: &Lanes,
        start: cranelift_codegen::ir::Value,
        len: cranelift_codegen::ir::Value,
    ) -> LResult<Lanes> {
        let u = Scalar::U64;
        let off = self.binary(BinaryOp::Sub, u, p, &Lanes::Uniform(start))?;
        Ok(self.compare(CmpOp::Lt, u, &off, &Lanes::Uniform(len)))
    }

    fn in_space_local(&mut self, p: &Lanes) -> LResult<Lanes> {
        let (base, launch) = (self.env().local_mem, self.env().launch);
        let len = self
            .b
            .ins()
            .load(types::I64, invariant(), launch, lo::LOCAL_MEM_SIZE);
        self.in_range(p, base, len)
    }

    fn in_space_private(&mut self, p: &Lanes) -> LResult<Lanes> {
        let mut ranges = Vec::new();
        if let (Some(base), true) = (self.private_base, self.kernel.private().size > 0) {
            let len = self
                .b
                .ins()
                .iconst(types::I64, i64::from(self.kernel.private().size));
            ranges.push((base, len));
        }
        let args = self.env().args;
        for slot in self
            .kernel
            .arg_slots()
            .iter()
            .filter(|s| s.kind == ArgKind::ByValStruct)
        {
            let start = self.b.ins().iadd_imm_s(args, i64::from(slot.offset));
            let len = self.b.ins().iconst(types::I64, i64::from(slot.size));
            ranges.push((start, len));
        }
        let mut inside: Option<Lanes> = None;
        for (start, len) in ranges {
            let m = self.in_range(p, start, len)?;
            inside = Some(match inside {
                None => m,
                Some(prev) => self.binary(BinaryOp::Or, Scalar::U64, &prev, &m)?,
            });
        }
        Ok(match inside {
            Some(m) => m,
            None => self.compare(CmpOp::Ne, Scalar::U64, p, p),
        })
    }
}

//! Work-item functions. Within a chunk only dimension 0 varies: lanes are
//! consecutive work-items of one row, so `get_local_id(1)`, `get_local_id(2)`
//! and every size, offset and group id are uniform scalars.
//!
//! The `Launch` fields are read with loads marked read-only and movable, so
//! Cranelift hoists them (and the group-invariant arithmetic on them) out of
//! the chunk loop.

use super::lanes::{natural, Lanes, Val};
use super::linear::Lane;
use super::{invariant, FunctionCx, LResult};
use crate::abi::launch_offsets as lo;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use vecl_ir::{Scalar, Type, ValueId, WorkItemFn};

impl FunctionCx<'_, '_> {
    /// Field `base` (a `launch_offsets` constant) of the `Launch`, in
    /// dimension `d`.
    pub(crate) fn launch_field(&mut self, base: i32, d: usize) -> Value {
        let l = self.env().launch;
        self.b
            .ins()
            .load(types::I64, invariant(), l, base + 8 * d as i32)
    }

    /// `get_local_linear_id()` (`global == false`) or
    /// `get_global_linear_id()` for lane 0 of the chunk.
    fn linear_id_base(&mut self, global: bool) -> Value {
        let env = self.env().clone();
        if !global {
            let row = self.b.ins().imul(env.z, env.group_size[1]);
            let row = self.b.ins().iadd(row, env.y);
            let row = self.b.ins().imul(row, env.group_size[0]);
            return self.b.ins().iadd(row, env.x0);
        }
        let mut g = [env.x0; 3];
        for (d, gd) in g.iter_mut().enumerate() {
            let ls = self.launch_field(lo::LOCAL_SIZE, d);
            let b = self.b.ins().imul(env.group_id[d], ls);
            *gd = self.b.ins().iadd(b, [env.x0, env.y, env.z][d]);
        }
        let gs1 = self.launch_field(lo::GLOBAL_SIZE, 1);
        let gs0 = self.launch_field(lo::GLOBAL_SIZE, 0);
        let r = self.b.ins().imul(g[2], gs1);
        let r = self.b.ins().iadd(r, g[1]);
        let r = self.b.ins().imul(r, gs0);
        self.b.ins().iadd(r, g[0])
    }

    /// Lane `j` of a `size_t` work-item function as a scalar, when the
    /// dimension (if it takes one) is a constant `dim_const`; `None` for
    /// `get_work_dim` and run-time dimensions.
    pub fn work_item_lane(
        &mut self,
        f: WorkItemFn,
        takes_dim: bool,
        dim_const: Option<u64>,
        j: Lane,
    ) -> Option<Value> {
        let (v, step) = match f {
            WorkItemFn::WorkDim => return None,
            WorkItemFn::LocalLinearId => (self.linear_id_base(false), true),
            WorkItemFn::GlobalLinearId => (self.linear_id_base(true), true),
            _ if !takes_dim => return None,
            _ => match dim_const? {
                c if c < 3 => self.work_item_dim(f, c as usize),
                _ => (
                    self.b.ins().iconst(types::I64, Self::out_of_range(f)),
                    false,
                ),
            },
        };
        Some(match j {
            Lane::Fixed(j) if step && j > 0 => self.b.ins().iadd_imm_s(v, i64::from(j)),
            Lane::At(j) if step => self.b.ins().iadd(v, j),
            _ => v,
        })
    }

    /// The value of `f` in dimension `d` (0..3) for lane 0 of the chunk, and
    /// whether it steps by one per lane.
    fn work_item_dim(&mut self, f: WorkItemFn, d: usize) -> (Value, bool) {
        let env = self.env().clone();
        let local = [env.x0, env.y, env.z];
        match f {
            WorkItemFn::GlobalId => (env.global_base[d], d == 0),
            WorkItemFn::LocalId => (local[d], d == 0),
            WorkItemFn::GroupId => (env.group_id[d], false),
            WorkItemFn::LocalSize => (env.group_size[d], false),
            WorkItemFn::EnqueuedLocalSize => (self.launch_field(lo::LOCAL_SIZE, d), false),
            WorkItemFn::GlobalSize => (self.launch_field(lo::GLOBAL_SIZE, d), false),
            WorkItemFn::NumGroups => (self.launch_field(lo::NUM_GROUPS, d), false),
            WorkItemFn::GlobalOffset => (self.launch_field(lo::GLOBAL_OFFSET, d), false),
            _ => (self.b.ins().iconst(types::I64, 0), false),
        }
    }

    /// Value outside dimensions 0..3: 1 for sizes, 0 for ids and offsets.
    fn out_of_range(f: WorkItemFn) -> i64 {
        match f {
            WorkItemFn::LocalSize
            | WorkItemFn::EnqueuedLocalSize
            | WorkItemFn::GlobalSize
            | WorkItemFn::NumGroups => 1,
            _ => 0,
        }
    }

    /// `base + lane` as u64 pieces.
    fn plus_lane(&mut self, base: Value) -> Lanes {
        let b = self.b.ins().splat(types::I64X2, base);
        let iota = self.cache.iota64().to_vec();
        Lanes::Varying(iota.iter().map(|i| self.b.ins().iadd(b, *i)).collect())
    }

    pub fn lower_work_item(
        &mut self,
        f: WorkItemFn,
        dim: Option<ValueId>,
        ty: &Type,
    ) -> LResult<Val> {
        let env = self.env().clone();
        let result = match f {
            WorkItemFn::WorkDim => {
                let l = env.launch;
                let v = self.b.ins().load(types::I32, invariant(), l, lo::WORK_DIM);
                Lanes::Uniform(v)
            }
            WorkItemFn::LocalLinearId => {
                let base = self.linear_id_base(false);
                self.plus_lane(base)
            }
            WorkItemFn::GlobalLinearId => {
                let base = self.linear_id_base(true);
                self.plus_lane(base)
            }
            _ => {
                let dim =
                    dim.ok_or_else(|| self.internal("work-item function without a dimension"))?;
                let dl = self.scalar(dim)?;
                let Lanes::Uniform(dv) = dl else {
                    return Err(self.unsupported(
                        "work-item function with a dimension that differs between work-items",
                    ));
                };
                let dt = self.b.func.dfg.value_type(dv);
                let d64 = if dt.bits() < 64 {
                    self.b.ins().uextend(types::I64, dv)
                } else {
                    dv
                };
                let konst = match &self.kernel.func().inst(dim).inst {
                    vecl_ir::Inst::Const(c) => Some(*c),
                    _ => None,
                };
                match konst {
                    Some(c) if c < 3 => {
                        let (v, step) = self.work_item_dim(f, c as usize);
                        if step {
                            self.plus_lane(v)
                        } else {
                            Lanes::Uniform(v)
                        }
                    }
                    Some(_) => {
                        Lanes::Uniform(self.b.ins().iconst(types::I64, Self::out_of_range(f)))
                    }
                    None => {
                        // A uniform dimension known only at run time.
                        let (v0, step) = self.work_item_dim(f, 0);
                        let (v1, _) = self.work_item_dim(f, 1);
                        let (v2, _) = self.work_item_dim(f, 2);
                        let dflt = self.b.ins().iconst(types::I64, Self::out_of_range(f));
                        let is2 = self.b.ins().icmp_imm_s(IntCC::Equal, d64, 2);
                        let r = self.b.ins().select(is2, v2, dflt);
                        let is1 = self.b.ins().icmp_imm_s(IntCC::Equal, d64, 1);
                        let r = self.b.ins().select(is1, v1, r);
                        let is0 = self.b.ins().icmp_imm_s(IntCC::Equal, d64, 0);
                        if step {
                            let lanes = self.plus_lane(v0);
                            let Lanes::Varying(p) = lanes else {
                                unreachable!()
                            };
                            let rs = self.b.ins().splat(types::I64X2, r);
                            Lanes::Varying(
                                p.iter().map(|x| self.b.ins().select(is0, *x, rs)).collect(),
                            )
                        } else {
                            Lanes::Uniform(self.b.ins().select(is0, v0, r))
                        }
                    }
                }
            }
        };
        // Results are size_t (u64) except `get_work_dim` (u32); adapt if the
        // IR asks for another integer type.
        let want = super::lanes::elem_of(ty).unwrap_or(Scalar::U64);
        let have = if f == WorkItemFn::WorkDim {
            Scalar::U32
        } else {
            Scalar::U64
        };
        if natural(want) == natural(have) {
            return Ok(vec![result]);
        }
        Ok(vec![self.convert(
            &result,
            have,
            want,
            false,
            Default::default(),
        )?])
    }
}

//! Group instructions: the `Groups` capability's `OpGroup*` (work-group
//! and sub-group scope), the `OpGroupNonUniform*` family (sub-group scope),
//! `OpGroupNonUniformRotateKHR` (`SPV_KHR_subgroup_rotate`) and the
//! asynchronous copies (`OpGroupAsyncCopy`, `OpGroupWaitEvents`).
//!
//! Each becomes the OpenCL C builtin of the same operation
//! (`work_group_reduce_add`, `sub_group_non_uniform_scan_inclusive_mul`,
//! `sub_group_shuffle_xor`…) with the argument and result types the
//! OpenCL C front end gives it, so that everything after the front end —
//! the work-group collective rewrite, the barrier checks, the sub-group
//! lowering of the JIT and the interpreter — serves both front ends alike.
//!
//! - Integers are signless in SPIR-V (unsigned in the IR): `OpGroupSMin`
//!   and `OpGroupSMax` run the builtin on signed views of the value.
//! - Booleans are `int` predicates in OpenCL C: a `bool` operand is
//!   converted to `int` (1/0) and an `int` result back to `bool` (`!= 0`).
//! - A work-group broadcast's local id is a scalar or a 2- or 3-component
//!   vector; it becomes one `size_t` per dimension.

use crate::error::Result;
use crate::function::{FnCx, Inst_, Val};
use crate::module::{result_id, result_type, word_of, Const};
use crate::reader::Inst;
use rspirv::dr::Operand;
use rspirv::spirv::{GroupOperation, Op};
use vecl_ir::*;

/// The builtin of a name put together from an instruction's operands
/// (`sub_group_` + `reduce_` + `add`).
fn builtin(inst: &Inst, name: &str) -> Result<Builtin> {
    Builtin::from_name(name)
        .ok_or_else(|| inst.error(format!("`{name}` is not a builtin vecl has")))
}

/// `Scope` enumerants.
const WORKGROUP: u32 = 2;
const SUBGROUP: u32 = 3;

/// Whether `op` is translated here.
pub(crate) fn is_group(op: Op) -> bool {
    use Op as O;
    matches!(
        op,
        O::GroupAll
            | O::GroupAny
            | O::GroupBroadcast
            | O::GroupIAdd
            | O::GroupFAdd
            | O::GroupSMin
            | O::GroupUMin
            | O::GroupFMin
            | O::GroupSMax
            | O::GroupUMax
            | O::GroupFMax
            | O::GroupAsyncCopy
            | O::GroupWaitEvents
    ) || non_uniform(op)
}

fn non_uniform(op: Op) -> bool {
    use Op as O;
    matches!(
        op,
        O::GroupNonUniformElect
            | O::GroupNonUniformAll
            | O::GroupNonUniformAny
            | O::GroupNonUniformAllEqual
            | O::GroupNonUniformBroadcast
            | O::GroupNonUniformBroadcastFirst
            | O::GroupNonUniformBallot
            | O::GroupNonUniformInverseBallot
            | O::GroupNonUniformBallotBitExtract
            | O::GroupNonUniformBallotBitCount
            | O::GroupNonUniformBallotFindLSB
            | O::GroupNonUniformBallotFindMSB
            | O::GroupNonUniformShuffle
            | O::GroupNonUniformShuffleXor
            | O::GroupNonUniformShuffleUp
            | O::GroupNonUniformShuffleDown
            | O::GroupNonUniformRotateKHR
            | O::GroupNonUniformIAdd
            | O::GroupNonUniformFAdd
            | O::GroupNonUniformIMul
            | O::GroupNonUniformFMul
            | O::GroupNonUniformSMin
            | O::GroupNonUniformUMin
            | O::GroupNonUniformFMin
            | O::GroupNonUniformSMax
            | O::GroupNonUniformUMax
            | O::GroupNonUniformFMax
            | O::GroupNonUniformBitwiseAnd
            | O::GroupNonUniformBitwiseOr
            | O::GroupNonUniformBitwiseXor
            | O::GroupNonUniformLogicalAnd
            | O::GroupNonUniformLogicalOr
            | O::GroupNonUniformLogicalXor
    )
}

/// The kind of value an arithmetic group operation takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// Integers of either sign (the operation does not read one).
    Int,
    /// Integers read as signed.
    Signed,
    Float,
    Bool,
}

/// An arithmetic group instruction: (operator of the builtin's name, the
/// values it takes).
fn arithmetic(op: Op) -> Option<(&'static str, Operands)> {
    use Op as O;
    use Operands::*;
    Some(match op {
        O::GroupIAdd | O::GroupNonUniformIAdd => ("add", Int),
        O::GroupFAdd | O::GroupNonUniformFAdd => ("add", Float),
        O::GroupNonUniformIMul => ("mul", Int),
        O::GroupNonUniformFMul => ("mul", Float),
        O::GroupSMin | O::GroupNonUniformSMin => ("min", Signed),
        O::GroupUMin | O::GroupNonUniformUMin => ("min", Int),
        O::GroupFMin | O::GroupNonUniformFMin => ("min", Float),
        O::GroupSMax | O::GroupNonUniformSMax => ("max", Signed),
        O::GroupUMax | O::GroupNonUniformUMax => ("max", Int),
        O::GroupFMax | O::GroupNonUniformFMax => ("max", Float),
        O::GroupNonUniformBitwiseAnd => ("and", Int),
        O::GroupNonUniformBitwiseOr => ("or", Int),
        O::GroupNonUniformBitwiseXor => ("xor", Int),
        O::GroupNonUniformLogicalAnd => ("logical_and", Bool),
        O::GroupNonUniformLogicalOr => ("logical_or", Bool),
        O::GroupNonUniformLogicalXor => ("logical_xor", Bool),
        _ => return None,
    })
}

impl FnCx<'_, '_> {
    /// Translates a group instruction ([`is_group`]).
    pub fn group(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.inst.class.opcode;
        match op {
            Op::GroupAsyncCopy => return self.async_copy(inst),
            Op::GroupWaitEvents => return self.wait_events(inst),
            _ => {}
        }
        let scope = self.group_scope(inst)?;
        if non_uniform(op) && scope != SUBGROUP {
            return Err(inst.error(
                "a non-uniform group operation of work-group scope (vecl has them for sub-groups)",
            ));
        }
        let group = if scope == WORKGROUP {
            "work_group"
        } else {
            "sub_group"
        };
        let rty = self.ir_type(result_type(inst)?)?;
        let r = match op {
            Op::GroupAll | Op::GroupAny | Op::GroupNonUniformAll | Op::GroupNonUniformAny => {
                let p = self.predicate(inst, 1)?;
                let verb = if matches!(op, Op::GroupAll | Op::GroupNonUniformAll) {
                    "all"
                } else {
                    "any"
                };
                let name = if non_uniform(op) {
                    format!("sub_group_non_uniform_{verb}")
                } else {
                    format!("{group}_{verb}")
                };
                let r = self.emit(Inst_::Builtin(builtin(inst, &name)?, vec![p]), Type::I32);
                self.int_to_bool(r)
            }
            Op::GroupNonUniformAllEqual => {
                let x = self.group_value(inst, 1)?;
                let r = self.emit(
                    Inst_::Builtin(Builtin::SubGroupNonUniformAllEqual, vec![x]),
                    Type::I32,
                );
                self.int_to_bool(r)
            }
            Op::GroupNonUniformElect => {
                let r = self.emit(Inst_::Builtin(Builtin::SubGroupElect, vec![]), Type::I32);
                self.int_to_bool(r)
            }
            Op::GroupBroadcast
            | Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown => {
                let x = self.group_value(inst, 1)?;
                let xt = self.ty(x);
                let id = self.operand(inst, 2)?;
                let mut args = vec![x];
                if scope == WORKGROUP {
                    // One size_t per dimension of the local id.
                    let it = self.ty(id);
                    if !it.scalar().is_some_and(|s| s.is_int()) || it.lanes() > 3 {
                        return Err(inst.error("the local id is not 1 to 3 integers"));
                    }
                    for k in 0..it.lanes() {
                        let c = if it.lanes() == 1 {
                            id
                        } else {
                            let s = Type::Scalar(it.scalar().unwrap_or(Scalar::U64));
                            self.emit(Inst_::Extract(id, k as u8), s)
                        };
                        args.push(self.int_as(c, &Type::U64)?);
                    }
                } else {
                    args.push(self.int_as(id, &Type::U32)?);
                }
                let name = match op {
                    Op::GroupBroadcast => format!("{group}_broadcast"),
                    Op::GroupNonUniformBroadcast => "sub_group_non_uniform_broadcast".into(),
                    Op::GroupNonUniformShuffle => "sub_group_shuffle".into(),
                    Op::GroupNonUniformShuffleXor => "sub_group_shuffle_xor".into(),
                    Op::GroupNonUniformShuffleUp => "sub_group_shuffle_up".into(),
                    _ => "sub_group_shuffle_down".into(),
                };
                let r = self.emit(Inst_::Builtin(builtin(inst, &name)?, args), xt);
                self.group_result(r, &rty)
            }
            Op::GroupNonUniformBroadcastFirst => {
                let x = self.group_value(inst, 1)?;
                let xt = self.ty(x);
                let r = self.emit(Inst_::Builtin(Builtin::SubGroupBroadcastFirst, vec![x]), xt);
                self.group_result(r, &rty)
            }
            Op::GroupNonUniformRotateKHR => {
                let x = self.group_value(inst, 1)?;
                let xt = self.ty(x);
                let delta = self.operand(inst, 2)?;
                let delta = self.int_as(delta, &Type::U32)?;
                let delta = self.emit(Inst_::Bitcast(delta), Type::I32);
                let r = if inst.inst.operands.len() > 3 {
                    let size = self.cluster_size(inst, 3)?;
                    self.emit(
                        Inst_::Builtin(Builtin::SubGroupClusteredRotate, vec![x, delta, size]),
                        xt,
                    )
                } else {
                    self.emit(Inst_::Builtin(Builtin::SubGroupRotate, vec![x, delta]), xt)
                };
                self.group_result(r, &rty)
            }
            Op::GroupNonUniformBallot => {
                let p = self.predicate(inst, 1)?;
                self.emit(
                    Inst_::Builtin(Builtin::SubGroupBallot, vec![p]),
                    Type::Vector(Scalar::U32, 4),
                )
            }
            Op::GroupNonUniformInverseBallot => {
                let b = self.ballot(inst, 1)?;
                let r = self.emit(
                    Inst_::Builtin(Builtin::SubGroupInverseBallot, vec![b]),
                    Type::I32,
                );
                self.int_to_bool(r)
            }
            Op::GroupNonUniformBallotBitExtract => {
                let b = self.ballot(inst, 1)?;
                let i = self.operand(inst, 2)?;
                let i = self.int_as(i, &Type::U32)?;
                let r = self.emit(
                    Inst_::Builtin(Builtin::SubGroupBallotBitExtract, vec![b, i]),
                    Type::I32,
                );
                self.int_to_bool(r)
            }
            Op::GroupNonUniformBallotBitCount => {
                let name = match self.group_operation(inst)? {
                    GroupOperation::Reduce => Builtin::SubGroupBallotBitCount,
                    GroupOperation::InclusiveScan => Builtin::SubGroupBallotInclusiveScan,
                    GroupOperation::ExclusiveScan => Builtin::SubGroupBallotExclusiveScan,
                    g => return Err(inst.error(format!("group operation {g:?} of a ballot"))),
                };
                let b = self.ballot(inst, 2)?;
                let r = self.emit(Inst_::Builtin(name, vec![b]), Type::U32);
                self.int_as(r, &rty)?
            }
            Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                let name = if op == Op::GroupNonUniformBallotFindLSB {
                    Builtin::SubGroupBallotFindLsb
                } else {
                    Builtin::SubGroupBallotFindMsb
                };
                let b = self.ballot(inst, 1)?;
                let r = self.emit(Inst_::Builtin(name, vec![b]), Type::U32);
                self.int_as(r, &rty)?
            }
            _ => {
                let Some((operator, kind)) = arithmetic(op) else {
                    return Err(inst.error(format!(
                        "{} is not supported by vecl's SPIR-V front end",
                        inst.opname()
                    )));
                };
                self.group_arithmetic(inst, group, operator, kind, &rty)?
            }
        };
        if self.ty(r) != rty {
            return Err(inst.error(format!(
                "the result type does not fit the operation ({rty:?} declared, {:?} computed)",
                self.ty(r)
            )));
        }
        self.define(result_id(inst)?, Val::V(r));
        Ok(())
    }

    /// `OpGroup<op>` and `OpGroupNonUniform<op>`: a reduction, a scan or
    /// (non-uniform only) a clustered reduction.
    fn group_arithmetic(
        &mut self,
        inst: &Inst,
        group: &str,
        operator: &str,
        kind: Operands,
        rty: &Type,
    ) -> Result<ValueId> {
        let x = self.operand(inst, 2)?;
        let xt = self.ty(x);
        let fits = match (kind, xt.scalar()) {
            (Operands::Int | Operands::Signed, Some(s)) => s.is_int(),
            (Operands::Float, Some(s)) => s.is_float(),
            (Operands::Bool, Some(s)) => s == Scalar::Bool,
            _ => false,
        } && !matches!(xt, Type::Vector(..));
        if !fits {
            return Err(inst.error(format!(
                "{} of a {xt:?} value",
                inst.opname().trim_start_matches("Op")
            )));
        }
        let x = match kind {
            Operands::Signed => self.as_signed(x),
            Operands::Bool => self.bool_to_int(x),
            _ => x,
        };
        let bt = self.ty(x);
        let non_uniform = non_uniform(inst.inst.class.opcode);
        let how = self.group_operation(inst)?;
        let mut args = vec![x];
        let name = match how {
            GroupOperation::Reduce
            | GroupOperation::InclusiveScan
            | GroupOperation::ExclusiveScan => {
                let k = match how {
                    GroupOperation::Reduce => "reduce",
                    GroupOperation::InclusiveScan => "scan_inclusive",
                    _ => "scan_exclusive",
                };
                if non_uniform {
                    format!("sub_group_non_uniform_{k}_{operator}")
                } else {
                    format!("{group}_{k}_{operator}")
                }
            }
            GroupOperation::ClusteredReduce if non_uniform => {
                args.push(self.cluster_size(inst, 3)?);
                format!("sub_group_clustered_reduce_{operator}")
            }
            g => return Err(inst.error(format!("group operation {g:?} is not supported by vecl"))),
        };
        let r = self.emit(Inst_::Builtin(builtin(inst, &name)?, args), bt);
        Ok(match kind {
            Operands::Bool => self.int_to_bool(r),
            _ => self.recast(r, rty),
        })
    }

    /// The scope operand (0): work-group or sub-group, a constant.
    fn group_scope(&mut self, inst: &Inst) -> Result<u32> {
        match self.scope(word_of(inst, 0)?) {
            Some(s @ (WORKGROUP | SUBGROUP)) => Ok(s),
            Some(s) => Err(inst.error(format!(
                "a group operation of scope {s} (vecl has work-group and sub-group scopes)"
            ))),
            None => Err(inst.error("a group scope that is not a constant")),
        }
    }

    fn group_operation(&self, inst: &Inst) -> Result<GroupOperation> {
        match inst.inst.operands.get(1) {
            Some(Operand::GroupOperation(g)) => Ok(*g),
            _ => Err(inst.error("operand 1 is not a group operation")),
        }
    }

    /// A constant cluster size, as the builtin's `uint`.
    fn cluster_size(&mut self, inst: &Inst, i: usize) -> Result<ValueId> {
        let id = word_of(inst, i)?;
        match self.cx.consts.get(&id) {
            Some(Const::Scalar(s, n)) if s.is_int() && n.is_power_of_two() => {}
            _ => {
                return Err(
                    inst.error("the cluster size is not a constant integer that is a power of two")
                )
            }
        }
        let v = self.value(id)?;
        self.int_as(v, &Type::U32)
    }

    /// A boolean operand as the `int` predicate of OpenCL C.
    fn predicate(&mut self, inst: &Inst, i: usize) -> Result<ValueId> {
        let p = self.operand(inst, i)?;
        if self.ty(p) != Type::BOOL {
            return Err(inst.error("the predicate is not a bool"));
        }
        Ok(self.bool_to_int(p))
    }

    /// A ballot operand: a `uint4`.
    fn ballot(&mut self, inst: &Inst, i: usize) -> Result<ValueId> {
        let b = self.operand(inst, i)?;
        if self.ty(b) != Type::Vector(Scalar::U32, 4) {
            return Err(inst.error("the ballot is not a vector of four 32-bit integers"));
        }
        Ok(b)
    }

    /// A value exchanged between work-items: a scalar or vector, with
    /// booleans as `int`.
    fn group_value(&mut self, inst: &Inst, i: usize) -> Result<ValueId> {
        let x = self.operand(inst, i)?;
        match self.ty(x) {
            Type::Scalar(Scalar::Bool) => Ok(self.bool_to_int(x)),
            Type::Scalar(_) | Type::Vector(..) if self.ty(x).scalar() != Some(Scalar::Bool) => {
                Ok(x)
            }
            t => Err(inst.error(format!("a group operation on a {t:?} value"))),
        }
    }

    /// The result of a builtin on [`group_value`](Self::group_value)s, as
    /// the instruction's type.
    fn group_result(&mut self, r: ValueId, rty: &Type) -> ValueId {
        if *rty == Type::BOOL && self.ty(r) != Type::BOOL {
            self.int_to_bool(r)
        } else {
            r
        }
    }

    fn bool_to_int(&mut self, p: ValueId) -> ValueId {
        self.emit(
            Inst_::Convert {
                value: p,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::I32,
        )
    }

    fn int_to_bool(&mut self, v: ValueId) -> ValueId {
        self.emit(
            Inst_::Convert {
                value: v,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::BOOL,
        )
    }

    /// An integer operand converted to integer type `t`.
    fn int_as(&mut self, v: ValueId, t: &Type) -> Result<ValueId> {
        if !self.ty(v).scalar().is_some_and(|s| s.is_int())
            || matches!(self.ty(v), Type::Vector(..))
        {
            return Err(self.error("an operand that is not an integer"));
        }
        self.fit_int(v, t)
    }

    /// `OpGroupAsyncCopy`: `async_work_group_strided_copy` (the stride
    /// applies to the side that is not `Workgroup`, as in OpenCL C).
    fn async_copy(&mut self, inst: &Inst) -> Result<()> {
        if self.group_scope(inst)? != WORKGROUP {
            return Err(inst.error("an asynchronous copy of sub-group scope"));
        }
        let dst = self.operand(inst, 1)?;
        let src = self.operand(inst, 2)?;
        let n = self.operand(inst, 3)?;
        let stride = self.operand(inst, 4)?;
        let event = self.operand(inst, 5)?;
        let (dt, st) = (self.ty(dst), self.ty(src));
        let ok = matches!((&dt, &st), (Type::Pointer(a, x), Type::Pointer(b, y))
            if x == y && a != b && (*a == AddressSpace::Local || *b == AddressSpace::Local));
        if !ok {
            return Err(inst.error(
                "an asynchronous copy between pointers that are not one __local and one __global to the same type",
            ));
        }
        let n = self.int_as(n, &Type::U64)?;
        let stride = self.int_as(stride, &Type::U64)?;
        if self.ty(event) != Type::U64 {
            return Err(inst.error("the event is not an event"));
        }
        let r = self.emit(
            Inst_::Builtin(
                Builtin::AsyncWorkGroupStridedCopy,
                vec![dst, src, n, stride, event],
            ),
            Type::U64,
        );
        self.define(result_id(inst)?, Val::V(r));
        Ok(())
    }

    /// `OpGroupWaitEvents`: `wait_group_events`.
    fn wait_events(&mut self, inst: &Inst) -> Result<()> {
        if self.group_scope(inst)? != WORKGROUP {
            return Err(inst.error("waiting for events at sub-group scope"));
        }
        let n = self.operand(inst, 1)?;
        let list = self.operand(inst, 2)?;
        let n = self.int_as(n, &Type::U32)?;
        let n = self.emit(Inst_::Bitcast(n), Type::I32);
        let list = match self.ty(list) {
            Type::Pointer(_, t) if *t == Type::U64 => list,
            _ => return Err(inst.error("the event list is not a pointer to events")),
        };
        self.emit(
            Inst_::Builtin(Builtin::WaitGroupEvents, vec![n, list]),
            Type::Void,
        );
        Ok(())
    }
}

//! A small builder for functions: appends instructions to the block being
//! built and nests blocks for structured statements.
//!
//! ```
//! use vecl_ir::{builder::FunctionBuilder, Param, Type, AddressSpace, Inst, BinaryOp, WorkItemFn};
//! let gptr = Type::ptr(AddressSpace::Global, Type::F32);
//! let mut b = FunctionBuilder::new("scale", vec![Param { name: "a".into(), ty: gptr.clone(), byval: false }], Type::Void);
//! let a = b.param(0);
//! let zero = b.const_u32(0);
//! let gid = b.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(zero)), Type::U64);
//! let p = b.push(Inst::Index(a, gid), gptr);
//! let x = b.push(Inst::Load(p), Type::F32);
//! let y = b.push(Inst::Binary(BinaryOp::Add, x, x), Type::F32);
//! b.store(p, y);
//! let f = b.finish();
//! assert_eq!(f.insts.len(), 6);
//! ```

use crate::module::*;
use crate::types::{Scalar, Type};

pub struct FunctionBuilder {
    func: Function,
    /// Blocks under construction; the last is the current one.
    blocks: Vec<Block>,
    loc: Loc,
}

impl FunctionBuilder {
    pub fn new(name: impl Into<String>, params: Vec<Param>, ret: Type) -> FunctionBuilder {
        FunctionBuilder {
            func: Function::new(name, params, ret),
            blocks: vec![Block::default()],
            loc: Loc::NONE,
        }
    }

    /// The function being built (for kernel info, vars, slots, types).
    pub fn func_mut(&mut self) -> &mut Function {
        &mut self.func
    }

    pub fn func(&self) -> &Function {
        &self.func
    }

    /// The source position given to the instructions pushed from now on.
    pub fn set_loc(&mut self, loc: Loc) {
        self.loc = loc;
    }

    /// Appends an instruction and its `Eval` to the current block.
    pub fn push(&mut self, inst: Inst, ty: Type) -> ValueId {
        let id = ValueId(self.func.insts.len() as u32);
        self.func.insts.push(InstData {
            inst,
            ty,
            loc: self.loc,
        });
        self.stmt(Stmt::Eval(id));
        id
    }

    /// Whether `v`, evaluated in the current block, is read by nothing
    /// built since: no later instruction and no later statement of the
    /// current block (nested ones included) uses it.
    pub fn unused_since_evaluated(&self, v: ValueId) -> bool {
        let later = &self.func.insts[v.index() + 1..];
        if later.iter().any(|d| d.inst.operands().any(|o| o == v)) {
            return false;
        }
        let Some(block) = self.blocks.last() else {
            return false;
        };
        // From the end: `v` is normally a few statements back.
        let Some(at) = block.0.iter().rposition(|s| *s == Stmt::Eval(v)) else {
            return false;
        };
        let mut used = false;
        let after = Block(block.0[at + 1..].to_vec());
        crate::transform::compact::walk_stmts(&after, &mut |s| {
            used |= crate::transform::compact::stmt_operands(s).contains(&v);
        });
        !used
    }

    pub fn stmt(&mut self, s: Stmt) {
        self.blocks
            .last_mut()
            .expect("builder always has a block")
            .0
            .push(s);
    }

    pub fn param(&mut self, index: u32) -> ValueId {
        let ty = self.func.params[index as usize].ty.clone();
        self.push(Inst::Param(index), ty)
    }

    pub fn const_bits(&mut self, ty: Scalar, bits: u64) -> ValueId {
        self.push(Inst::Const(bits), Type::Scalar(ty))
    }

    pub fn const_u32(&mut self, v: u32) -> ValueId {
        self.const_bits(Scalar::U32, u64::from(v))
    }

    pub fn const_i32(&mut self, v: i32) -> ValueId {
        self.const_bits(Scalar::I32, u64::from(v as u32))
    }

    pub fn const_i64(&mut self, v: i64) -> ValueId {
        self.const_bits(Scalar::I64, v as u64)
    }

    pub fn const_f32(&mut self, v: f32) -> ValueId {
        self.const_bits(Scalar::F32, u64::from(v.to_bits()))
    }

    pub fn const_bool(&mut self, v: bool) -> ValueId {
        self.const_bits(Scalar::Bool, u64::from(v))
    }

    pub fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.func.ty(a).clone();
        self.push(Inst::Binary(op, a, b), ty)
    }

    pub fn cmp(&mut self, op: CmpOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.func.ty(a).with_scalar(Scalar::Bool);
        self.push(Inst::Cmp(op, a, b), ty)
    }

    pub fn load(&mut self, ptr: ValueId) -> ValueId {
        let ty = self.func.ty(ptr).pointee().cloned().unwrap_or(Type::Void);
        self.push(Inst::Load(ptr), ty)
    }

    pub fn store(&mut self, ptr: ValueId, value: ValueId) {
        let loc = self.loc;
        self.stmt(Stmt::Store { ptr, value, loc });
    }

    pub fn new_var(&mut self, name: impl Into<String>, ty: Type) -> VarId {
        self.func.vars.push(Var {
            name: name.into(),
            ty,
        });
        VarId(self.func.vars.len() as u32 - 1)
    }

    pub fn new_slot(&mut self, name: impl Into<String>, ty: Type) -> SlotId {
        self.func.slots.push(Slot {
            name: name.into(),
            ty,
        });
        SlotId(self.func.slots.len() as u32 - 1)
    }

    /// Starts a nested block; statements go there until [`end_block`](Self::end_block).
    pub fn begin_block(&mut self) {
        self.blocks.push(Block::default());
    }

    pub fn end_block(&mut self) -> Block {
        assert!(self.blocks.len() > 1, "end_block without begin_block");
        self.blocks.pop().expect("checked above")
    }

    /// Builds `if (cond) { then } else { else }` with closures for the arms.
    pub fn if_else(
        &mut self,
        cond: ValueId,
        then_: impl FnOnce(&mut Self),
        else_: impl FnOnce(&mut Self),
    ) {
        self.begin_block();
        then_(self);
        let then_ = self.end_block();
        self.begin_block();
        else_(self);
        let else_ = self.end_block();
        self.stmt(Stmt::If { cond, then_, else_ });
    }

    /// Builds `loop { body; continuing }`.
    pub fn loop_(&mut self, body: impl FnOnce(&mut Self), continuing: impl FnOnce(&mut Self)) {
        self.begin_block();
        body(self);
        let body = self.end_block();
        self.begin_block();
        continuing(self);
        let continuing = self.end_block();
        self.stmt(Stmt::Loop { body, continuing });
    }

    pub fn finish(mut self) -> Function {
        assert_eq!(self.blocks.len(), 1, "unbalanced begin_block/end_block");
        self.func.body = self.blocks.pop().expect("one block left");
        self.func
    }
}

//! Function bodies: SPIR-V blocks become a control-flow graph
//! ([`vecl_ir::cfg::Cfg`]) of IR statements, which the structurizer
//! ([`vecl_ir::transform::structurize`]) turns into `if`/`loop`/`switch`.
//!
//! - Block 0 of the graph is a prologue that evaluates what every block may
//!   use: parameters, the constants and variable addresses the body names,
//!   and the private slots of `OpVariable`s. It jumps to the first label.
//! - SSA values cross blocks as they are (the structurizer carries a value
//!   to a block its definition dominates). `OpPhi` becomes a register
//!   variable: each predecessor writes its incoming value just before its
//!   branch, and the phi reads the variable at the top of its block. The
//!   reads happen before any write of the same block, so a swap of phis
//!   around a loop reads the old values, as SSA says.
//! - Structs and arrays are not IR values: a SPIR-V value of such a type
//!   lives in memory (a private slot, or constant data for a constant), and
//!   the front end carries its address ([`Val::Agg`]).
//! - `Input` built-in variables never become memory: loading one is the
//!   work-item query ([`Val::BuiltIn`]).

use crate::error::{Result, SpirvError};
use crate::module::{result_id, result_type, word_of, Const, Cx, GlobalRef, SType};
use crate::reader::Inst;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op};
use std::collections::HashMap;
use vecl_ir::cfg::{BlockId, Cfg, Terminator};
use vecl_ir::*;

/// What a SPIR-V id stands for inside a function.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val {
    /// An IR value (scalar, vector, pointer).
    V(ValueId),
    /// A struct or array value, held in memory at this address.
    Agg(ValueId),
    /// A pointer to a built-in variable (all its components).
    BuiltIn(WorkItemFn),
    /// A pointer to one component of a built-in variable.
    BuiltInElem(WorkItemFn, ValueId),
    /// A pointer to a sub-group built-in variable: loading it calls the
    /// query builtin of that name (`get_sub_group_size`…).
    SubGroupVar(&'static str),
    /// `OpSampledImage`: an image, a sampler and the image's type.
    SampledImage(ValueId, ValueId, crate::module::ImageType),
}

pub(crate) struct FnCx<'c, 'a> {
    pub cx: &'c mut Cx<'a>,
    /// The function being translated (taken out of the module meanwhile).
    id: FuncId,
    pub f: Function,
    cfg: Cfg,
    cur: BlockId,
    vals: HashMap<u32, Val>,
    labels: HashMap<u32, BlockId>,
    /// The labels of the blocks control can reach.
    reachable: std::collections::HashSet<u32>,
    phis: Vec<Phi>,
    /// The instruction being translated (for errors).
    pub word: usize,
    pub opname: &'static str,
    loc: Loc,
    /// Aggregate constants already placed in constant memory.
    const_globals: &'c mut HashMap<u32, GlobalId>,
    /// The instruction each IR value comes from (see `Cx::provenance`).
    provenance: Vec<(usize, &'static str)>,
}

struct Phi {
    var: VarId,
    incoming: Vec<(u32, u32)>,
    word: usize,
}

/// Translates the function starting at `insts[start]` (an `OpFunction`).
pub(crate) fn translate_function(
    cx: &mut Cx<'_>,
    insts: &[Inst],
    start: usize,
    const_globals: &mut HashMap<u32, GlobalId>,
) -> Result<usize> {
    let spv_id = result_id(&insts[start])?;
    let fref = cx.functions[&spv_id].clone();
    let mut end = start + 1;
    while end < insts.len() && insts[end].inst.class.opcode != Op::FunctionEnd {
        end += 1;
    }
    if end == insts.len() {
        return Err(insts[start].error("the function has no OpFunctionEnd"));
    }
    if fref.declared {
        return Ok(end + 1);
    }
    let f = std::mem::replace(
        &mut cx.module.functions[fref.id.index()],
        Function::new("", Vec::new(), Type::Void),
    );
    let mut cfg = Cfg::default();
    let entry = cfg.add_block("entry", Loc::NONE);
    let mut fx = FnCx {
        cx,
        id: fref.id,
        f,
        cfg,
        cur: entry,
        vals: HashMap::new(),
        labels: HashMap::new(),
        reachable: Default::default(),
        phis: Vec::new(),
        word: insts[start].word,
        opname: "OpFunction",
        loc: Loc::NONE,
        const_globals,
        provenance: Vec::new(),
    };
    let body = &insts[start + 1..end];
    fx.translate_body(body)?;
    let FnCx {
        cx,
        mut f,
        cfg,
        provenance,
        ..
    } = fx;
    cx.provenance.insert(fref.id, provenance);
    let name = f.name.clone();
    vecl_ir::transform::structurize::structurize(&mut f, cfg).map_err(|e| {
        SpirvError::at(
            insts[start].word,
            "OpFunction",
            format!("function '{name}': {e}"),
        )
    })?;
    cx.module.functions[fref.id.index()] = f;
    Ok(end + 1)
}

impl FnCx<'_, '_> {
    pub fn error(&self, message: impl Into<String>) -> SpirvError {
        SpirvError::at(self.word, self.opname, message)
    }

    /// Appends an instruction to the current block.
    pub fn emit(&mut self, inst: Inst_, ty: Type) -> ValueId {
        let v = self.push(inst, ty);
        self.cfg.block_mut(self.cur).stmts.0.push(Stmt::Eval(v));
        v
    }

    /// Evaluates an instruction in the prologue (block 0).
    fn emit_entry(&mut self, inst: Inst_, ty: Type) -> ValueId {
        let v = self.push(inst, ty);
        self.cfg
            .block_mut(BlockId::ENTRY)
            .stmts
            .0
            .push(Stmt::Eval(v));
        v
    }

    /// A new IR value that no block evaluates yet (the caller places it).
    pub fn push_value(&mut self, inst: Inst_, ty: Type) -> ValueId {
        self.push(inst, ty)
    }

    fn push(&mut self, inst: Inst_, ty: Type) -> ValueId {
        self.provenance.push((self.word, self.opname));
        self.f.insts.push(InstData {
            inst,
            ty,
            loc: self.loc,
        });
        ValueId(self.f.insts.len() as u32 - 1)
    }

    pub fn stmt(&mut self, s: Stmt) {
        self.cfg.block_mut(self.cur).stmts.0.push(s);
    }

    pub fn loc(&self) -> Loc {
        self.loc
    }

    pub fn ty(&self, v: ValueId) -> Type {
        self.f.ty(v).clone()
    }

    pub fn new_slot(&mut self, name: &str, ty: Type) -> ValueId {
        self.f.slots.push(Slot {
            name: name.to_string(),
            ty: ty.clone(),
        });
        let s = SlotId(self.f.slots.len() as u32 - 1);
        self.emit_entry(Inst_::SlotAddr(s), Type::ptr(AddressSpace::Private, ty))
    }

    pub fn define(&mut self, id: u32, v: Val) {
        self.vals.insert(id, v);
    }

    pub fn define_value(&mut self, inst: &Inst, v: ValueId) -> Result<()> {
        let id = result_id(inst)?;
        self.vals.insert(id, Val::V(v));
        Ok(())
    }

    /// The IR type of SPIR-V type `id`.
    pub fn ir_type(&mut self, id: u32) -> Result<Type> {
        self.cx.ir_type(id)
    }

    /// What id `id` stands for here.
    pub fn val(&mut self, id: u32) -> Result<Val> {
        if let Some(v) = self.vals.get(&id) {
            return Ok(*v);
        }
        let v = if self.cx.consts.contains_key(&id) {
            self.materialize(id)?
        } else if let Some(g) = self.cx.globals.get(&id).copied() {
            match g {
                GlobalRef::BuiltIn(f) => Val::BuiltIn(f),
                GlobalRef::SubGroup(name) => Val::SubGroupVar(name),
                GlobalRef::Memory(gid) => {
                    let g = &self.cx.module.globals[gid.index()];
                    let ty = Type::ptr(g.space, g.ty.clone());
                    Val::V(self.emit_entry(Inst_::GlobalAddr(gid), ty))
                }
            }
        } else {
            return Err(self.error(format!(
                "%{id} is not a value defined before this use (or is not a value at all)"
            )));
        };
        self.vals.insert(id, v);
        Ok(v)
    }

    /// Id `id` as an IR value (not a struct, array or built-in).
    pub fn value(&mut self, id: u32) -> Result<ValueId> {
        match self.val(id)? {
            Val::V(v) if self.ty(v).is_void() => Err(self.error(format!(
                "%{id} is the result of an instruction that returns void"
            ))),
            Val::V(v) => Ok(v),
            Val::Agg(_) => Err(self.error(format!(
                "%{id} is a struct or array value where a scalar, vector or pointer is needed"
            ))),
            Val::BuiltIn(_) | Val::BuiltInElem(..) | Val::SubGroupVar(_) => Err(self.error(
                format!("%{id} is a built-in variable's address, which vecl only loads from"),
            )),
            Val::SampledImage(..) => Err(self.error(format!(
                "%{id} is a sampled image, which only image instructions take"
            ))),
        }
    }

    /// The value of operand `i` of `inst`.
    pub fn operand(&mut self, inst: &Inst, i: usize) -> Result<ValueId> {
        let id = word_of(inst, i)?;
        self.value(id)
    }

    /// Places constant `id` in the prologue.
    fn materialize(&mut self, id: u32) -> Result<Val> {
        let c = self.cx.consts[&id].clone();
        Ok(match c {
            Const::SpecOp(k) => return self.spec_op(id, k),
            Const::Scalar(s, bits) => Val::V(self.emit_entry(Inst_::Const(bits), Type::Scalar(s))),
            Const::Null(t) | Const::Undef(t) => {
                let ty = self.ir_type(t)?;
                let undef = matches!(c, Const::Undef(_));
                match &ty {
                    Type::Scalar(_) if undef => Val::V(self.emit_entry(Inst_::Undef, ty)),
                    Type::Vector(..) if undef => Val::V(self.emit_entry(Inst_::Undef, ty)),
                    Type::Pointer(..) if undef => Val::V(self.emit_entry(Inst_::Undef, ty)),
                    Type::Scalar(_) => Val::V(self.emit_entry(Inst_::Const(0), ty)),
                    Type::Vector(s, _) => {
                        let z = self.emit_entry(Inst_::Const(0), Type::Scalar(*s));
                        Val::V(self.emit_entry(Inst_::Splat(z), ty))
                    }
                    Type::Pointer(..) => {
                        let z = self.emit_entry(Inst_::Const(0), Type::U64);
                        Val::V(self.emit_entry(Inst_::IntToPtr(z), ty))
                    }
                    _ => self.constant_data(id, &ty)?,
                }
            }
            Const::Composite(t, parts) => {
                let ty = self.ir_type(t)?;
                match ty {
                    Type::Vector(..) => {
                        let mut vs = Vec::new();
                        for p in parts {
                            let v = match self.val(p)? {
                                Val::V(v) => v,
                                _ => return Err(self.error("a vector constant of non-scalars")),
                            };
                            vs.push(v);
                        }
                        let v = self.push(Inst_::Construct(vs), ty);
                        self.cfg
                            .block_mut(BlockId::ENTRY)
                            .stmts
                            .0
                            .push(Stmt::Eval(v));
                        Val::V(v)
                    }
                    _ => self.constant_data(id, &ty)?,
                }
            }
        })
    }

    /// An `OpSpecConstantOp`: its operation, translated in the prologue.
    fn spec_op(&mut self, id: u32, k: usize) -> Result<Val> {
        let insts = self.cx.insts;
        let orig = &insts[k];
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = orig.inst.operands.first() else {
            return Err(orig.error("OpSpecConstantOp without an operation"));
        };
        let Some(class) = rspirv::grammar::INSTRUCTION_TABLE.lookup_opcode(*op as u32) else {
            return Err(orig.error("OpSpecConstantOp of an unknown operation"));
        };
        let synth = Inst {
            word: orig.word,
            inst: rspirv::dr::Instruction {
                class,
                result_type: orig.inst.result_type,
                result_id: orig.inst.result_id,
                operands: orig.inst.operands[1..].to_vec(),
            },
        };
        let (prev, word, opname) = (self.cur, self.word, self.opname);
        self.cur = BlockId::ENTRY;
        self.word = orig.word;
        self.opname = "OpSpecConstantOp";
        let r = self.op(&synth);
        (self.cur, self.word, self.opname) = (prev, word, opname);
        r?;
        self.vals
            .get(&id)
            .copied()
            .ok_or_else(|| orig.error("OpSpecConstantOp gave no value"))
    }

    /// A struct or array constant: bytes in constant memory, once per module.
    fn constant_data(&mut self, id: u32, ty: &Type) -> Result<Val> {
        let gid = match self.const_globals.get(&id) {
            Some(g) => *g,
            None => {
                let size = self.cx.module.size_of(ty) as usize;
                let init = match self.cx.consts.get(&id) {
                    // Constant data without an initialiser is zero.
                    Some(Const::Null(_) | Const::Undef(_)) => None,
                    _ if size > crate::module::MAX_INITIALISER => {
                        return Err(self.error(format!("a constant of {size} bytes")))
                    }
                    _ => {
                        let mut bytes = Vec::new();
                        self.cx.pending_relocs.clear();
                        self.cx.const_bytes(id, &mut bytes)?;
                        bytes.resize(size, 0);
                        Some(bytes)
                    }
                };
                let gid = GlobalId(self.cx.module.globals.len() as u32);
                self.cx.module.globals.push(Global {
                    name: format!("const.{id}"),
                    space: AddressSpace::Constant,
                    ty: ty.clone(),
                    init,
                });
                self.cx
                    .global_linkage
                    .push(vecl_ir::link::Linkage::Internal);
                self.cx.place_relocs(gid);
                self.const_globals.insert(id, gid);
                gid
            }
        };
        let pty = Type::ptr(AddressSpace::Constant, ty.clone());
        Ok(Val::Agg(self.emit_entry(Inst_::GlobalAddr(gid), pty)))
    }

    fn translate_body(&mut self, body: &[Inst]) -> Result<()> {
        // Parameters, then a block per label.
        let mut nparam = 0u32;
        let mut params_done = false;
        for inst in body {
            match inst.inst.class.opcode {
                Op::FunctionParameter if params_done || nparam as usize >= self.f.params.len() => {
                    return Err(inst.error(
                        "a parameter after the function's first block or past its type's parameters",
                    ));
                }
                Op::FunctionParameter => {
                    let ty = self.f.params[nparam as usize].ty.clone();
                    let byval = self.f.params[nparam as usize].byval;
                    let mut v = self.emit_entry(Inst_::Param(nparam), ty.clone());
                    if byval && self.f.kernel.is_none() {
                        // The callee owns a copy of a by-value argument.
                        if let Type::Pointer(_, pointee) = &ty {
                            let size = self.cx.module.size_of(pointee);
                            let copy = self.new_slot("byval", (**pointee).clone());
                            self.cfg.block_mut(BlockId::ENTRY).stmts.0.push(Stmt::Copy {
                                dst: copy,
                                src: v,
                                size,
                                loc: Loc::NONE,
                            });
                            v = self.emit_entry(Inst_::PtrCast(copy), ty.clone());
                        }
                    }
                    self.define(result_id(inst)?, Val::V(v));
                    nparam += 1;
                }
                Op::Label => {
                    params_done = true;
                    let id = result_id(inst)?;
                    let name = self
                        .cx
                        .names
                        .get(&id)
                        .map(|n| crate::module::clean_name(n))
                        .unwrap_or_else(|| format!("label.{id}"));
                    let b = self.cfg.add_block(name, Loc::NONE);
                    if self.labels.insert(id, b).is_some() {
                        return Err(inst.error(format!("label %{id} is defined twice")));
                    }
                }
                _ => {}
            }
        }
        let Some(first) = body.iter().find(|i| i.inst.class.opcode == Op::Label) else {
            return Err(self.error("a function definition without blocks"));
        };
        let first = self.labels[&result_id(first)?];
        self.cfg.block_mut(BlockId::ENTRY).term = Terminator::Jump(first);
        // The blocks as (label, first instruction, terminator).
        let mut blocks: Vec<(u32, usize, usize)> = Vec::new();
        let mut open: Option<(u32, usize)> = None;
        for (k, inst) in body.iter().enumerate() {
            let op = inst.inst.class.opcode;
            match op {
                Op::FunctionParameter | Op::Line | Op::NoLine => {}
                Op::Label => {
                    if open.is_some() {
                        return Err(inst.error("the previous block has no terminator"));
                    }
                    open = Some((result_id(inst)?, k + 1));
                }
                _ if open.is_none() => {
                    return Err(inst.error("an instruction outside any block"));
                }
                Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::Unreachable
                | Op::Kill => {
                    if let Some((label, start)) = open.take() {
                        blocks.push((label, start, k));
                    }
                }
                _ => {}
            }
        }
        if open.is_some() {
            return Err(self.error("the last block has no terminator"));
        }
        // Blocks in reverse postorder, so that every definition is
        // translated before its uses (compilers do not always order the
        // blocks by dominance, as SPIR-V asks); unreachable ones are left
        // empty and the structurizer drops them.
        let index: HashMap<u32, usize> = blocks.iter().enumerate().map(|(i, b)| (b.0, i)).collect();
        let succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|(_, _, t)| {
                let term = &body[*t];
                let targets: Vec<usize> = match term.inst.class.opcode {
                    Op::Branch => vec![0],
                    Op::BranchConditional => vec![1, 2],
                    Op::Switch => std::iter::once(1)
                        .chain((3..term.inst.operands.len()).step_by(2))
                        .collect(),
                    _ => Vec::new(),
                };
                targets
                    .into_iter()
                    .filter_map(|i| word_of(term, i).ok())
                    .filter_map(|l| index.get(&l).copied())
                    .collect()
            })
            .collect();
        let mut order = Vec::new();
        let mut seen = vec![false; blocks.len()];
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some((b, next)) = stack.pop() {
            if let Some(&s) = succs[b].get(next) {
                stack.push((b, next + 1));
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
            }
        }
        order.reverse();
        self.reachable = blocks
            .iter()
            .enumerate()
            .filter(|(i, _)| seen[*i])
            .map(|(_, b)| b.0)
            .collect();
        for b in order {
            let (label, start, term) = blocks[b];
            self.cur = self.labels[&label];
            for inst in &body[start..=term] {
                self.word = inst.word;
                self.opname = inst.opname();
                match inst.inst.class.opcode {
                    Op::Line => {
                        if let (Ok(line), Ok(col)) = (word_of(inst, 1), word_of(inst, 2)) {
                            self.loc = Loc { line, col };
                        }
                        continue;
                    }
                    Op::NoLine => {
                        self.loc = Loc::NONE;
                        continue;
                    }
                    _ => {}
                }
                if !self.terminator(inst)? {
                    self.instruction(inst)?;
                }
            }
        }
        self.write_phis()
    }

    fn label(&self, inst: &Inst, i: usize) -> Result<BlockId> {
        let id = word_of(inst, i)?;
        self.labels
            .get(&id)
            .copied()
            .ok_or_else(|| inst.error(format!("%{id} is not a label of this function")))
    }

    /// Ends the current block when `inst` is a terminator.
    fn terminator(&mut self, inst: &Inst) -> Result<bool> {
        let term = match inst.inst.class.opcode {
            Op::Branch => Terminator::Jump(self.label(inst, 0)?),
            Op::BranchConditional => {
                let cond = self.operand(inst, 0)?;
                if self.ty(cond) != Type::BOOL {
                    return Err(inst.error("the condition is not a bool"));
                }
                Terminator::Branch {
                    cond,
                    then_: self.label(inst, 1)?,
                    else_: self.label(inst, 2)?,
                }
            }
            Op::Switch => {
                let selector = self.operand(inst, 0)?;
                if !self.ty(selector).scalar().is_some_and(|s| s.is_int()) {
                    return Err(inst.error("the selector is not an integer"));
                }
                let default = self.label(inst, 1)?;
                let mut cases = Vec::new();
                let ops = &inst.inst.operands;
                let mut i = 2;
                while i + 1 < ops.len() {
                    let value = match ops[i] {
                        Operand::LiteralBit32(w) => i64::from(w),
                        Operand::LiteralBit64(w) => w as i64,
                        _ => return Err(inst.error("a case without a literal value")),
                    };
                    cases.push((value, self.label(inst, i + 1)?));
                    i += 2;
                }
                Terminator::Switch {
                    selector,
                    cases,
                    default,
                }
            }
            Op::Return => {
                if !self.f.ret.is_void() {
                    return Err(inst.error("OpReturn in a function that returns a value"));
                }
                Terminator::Return(None)
            }
            Op::ReturnValue => {
                let v = self.operand(inst, 0)?;
                if self.ty(v) != self.f.ret {
                    return Err(inst.error("the value's type is not the function's result type"));
                }
                Terminator::Return(Some(v))
            }
            Op::Unreachable | Op::Kill => {
                if self.f.ret.is_void() {
                    Terminator::Return(None)
                } else {
                    let ty = self.f.ret.clone();
                    Terminator::Return(Some(self.emit(Inst_::Undef, ty)))
                }
            }
            _ => return Ok(false),
        };
        self.cfg.block_mut(self.cur).term = term;
        Ok(true)
    }

    fn phi(&mut self, inst: &Inst) -> Result<()> {
        let ty = self.ir_type(result_type(inst)?)?;
        if !ty.is_value() {
            return Err(inst.error("phis of structs or arrays are not supported"));
        }
        let id = result_id(inst)?;
        self.f.vars.push(Var {
            name: format!("phi.{id}"),
            ty: ty.clone(),
        });
        let var = VarId(self.f.vars.len() as u32 - 1);
        let mut incoming = Vec::new();
        let n = inst.inst.operands.len();
        if !n.is_multiple_of(2) {
            return Err(inst.error("operands are not (value, block) pairs"));
        }
        for i in (0..n).step_by(2) {
            incoming.push((word_of(inst, i)?, word_of(inst, i + 1)?));
        }
        self.phis.push(Phi {
            var,
            incoming,
            word: inst.word,
        });
        let v = self.emit(Inst_::ReadVar(var), ty);
        self.define(id, Val::V(v));
        Ok(())
    }

    /// Each predecessor writes its incoming values before its branch.
    fn write_phis(&mut self) -> Result<()> {
        let phis = std::mem::take(&mut self.phis);
        for phi in phis {
            self.word = phi.word;
            self.opname = "OpPhi";
            let want = self.f.vars[phi.var.index()].ty.clone();
            for (value, pred) in phi.incoming {
                let Some(&b) = self.labels.get(&pred) else {
                    return Err(self.error(format!("%{pred} is not a label of this function")));
                };
                if matches!(self.cx.consts.get(&value), Some(Const::Undef(_)))
                    || !self.reachable.contains(&pred)
                {
                    continue;
                }
                let v = self.value(value)?;
                if self.ty(v) != want {
                    return Err(self.error(format!(
                        "incoming value %{value} does not have the phi's type"
                    )));
                }
                self.cfg
                    .block_mut(b)
                    .stmts
                    .0
                    .push(Stmt::WriteVar(phi.var, v));
            }
        }
        Ok(())
    }

    /// Translates one non-terminator instruction of a block.
    fn instruction(&mut self, inst: &Inst) -> Result<()> {
        match inst.inst.class.opcode {
            Op::Phi => self.phi(inst),
            Op::Nop
            | Op::SelectionMerge
            | Op::LoopMerge
            | Op::LifetimeStart
            | Op::LifetimeStop
            | Op::Name
            | Op::Decorate
            | Op::Line
            | Op::NoLine
            | Op::ExtInstImport
            | Op::String
            | Op::AssumeTrueKHR => Ok(()),
            // A hint about the value, which is the result.
            Op::ExpectKHR => {
                let v = self.val(word_of(inst, 0)?)?;
                self.define(result_id(inst)?, v);
                Ok(())
            }
            Op::Variable => self.variable(inst),
            Op::Load => self.load(inst),
            Op::Store => self.store(inst),
            Op::CopyMemory | Op::CopyMemorySized => self.copy_memory(inst),
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => self.access_chain(inst),
            Op::FunctionCall => self.call(inst),
            Op::ControlBarrier | Op::MemoryBarrier => self.barrier(inst),
            Op::ExtInst => self.ext_inst(inst),
            op if crate::atomics::is_atomic(op) => self.atomic(inst),
            op if crate::groups::is_group(op) => self.group(inst),
            op if crate::bits::is_bit_field(op) => self.bit_field(inst),
            op if crate::dot::is_dot(op) => self.dot(inst),
            op if crate::images::is_image(op) => self.image(inst),
            _ => self.op(inst),
        }
    }

    fn variable(&mut self, inst: &Inst) -> Result<()> {
        let id = result_id(inst)?;
        let pty = result_type(inst)?;
        let pointee = match self.cx.types.get(&pty) {
            Some(SType::Pointer(_, p)) => *p,
            _ => return Err(inst.error("a variable whose type is not a pointer")),
        };
        match inst.inst.operands.first() {
            Some(Operand::StorageClass(rspirv::spirv::StorageClass::Function)) => {}
            other => {
                return Err(inst.error(format!(
                    "a function-scope variable in storage class {other:?}"
                )))
            }
        }
        let ty = self.ir_type(pointee)?;
        if ty.is_void() {
            return Err(inst.error("a variable of type void"));
        }
        let name = self
            .cx
            .names
            .get(&id)
            .map(|n| crate::module::clean_name(n))
            .unwrap_or_else(|| format!("var.{id}"));
        let addr = self.new_slot(&name, ty.clone());
        if let Some(Operand::IdRef(init)) = inst.inst.operands.get(1) {
            let init = *init;
            let prev = self.cur;
            self.cur = BlockId::ENTRY;
            let r = self.store_val(addr, init, &ty);
            self.cur = prev;
            r?;
        }
        self.define(id, Val::V(addr));
        Ok(())
    }

    /// Stores SPIR-V value `id` (of IR type `ty`) at `ptr`.
    fn store_val(&mut self, ptr: ValueId, id: u32, ty: &Type) -> Result<()> {
        match self.val(id)? {
            Val::V(v) => {
                let vt = self.ty(v);
                let v = if vt != *ty && vt.is_pointer() && ty.is_pointer() {
                    self.emit(Inst_::PtrCast(v), ty.clone())
                } else if vt != *ty {
                    return Err(self.error("the value stored does not have the pointee's type"));
                } else {
                    v
                };
                let loc = self.loc;
                self.stmt(Stmt::Store { ptr, value: v, loc });
            }
            Val::Agg(src) => {
                let size = self.cx.module.size_of(ty);
                let loc = self.loc;
                self.stmt(Stmt::Copy {
                    dst: ptr,
                    src,
                    size,
                    loc,
                });
            }
            _ => return Err(self.error("a built-in variable's address cannot be stored")),
        }
        Ok(())
    }

    /// An aggregate value of type `ty`, read from `src` now.
    pub fn snapshot(&mut self, src: ValueId, ty: &Type) -> ValueId {
        let slot = self.new_slot("value", ty.clone());
        let size = self.cx.module.size_of(ty);
        let loc = self.loc;
        self.stmt(Stmt::Copy {
            dst: slot,
            src,
            size,
            loc,
        });
        slot
    }

    fn load(&mut self, inst: &Inst) -> Result<()> {
        let ty = self.ir_type(result_type(inst)?)?;
        let ptr_id = word_of(inst, 0)?;
        let v = match self.val(ptr_id)? {
            Val::V(p) => {
                let pt = self.ty(p);
                let Some(pointee) = pt.pointee().cloned() else {
                    return Err(inst.error("loads through a non-pointer"));
                };
                let p = if pointee != ty {
                    // A typed pointer of another type (what a bitcast left).
                    let space = pt.address_space().unwrap_or(AddressSpace::Generic);
                    self.emit(Inst_::PtrCast(p), Type::ptr(space, ty.clone()))
                } else {
                    p
                };
                if ty.is_value() {
                    Val::V(self.emit(Inst_::Load(p), ty))
                } else {
                    Val::Agg(self.snapshot(p, &ty))
                }
            }
            Val::Agg(_) | Val::SampledImage(..) => {
                return Err(inst.error("loads through a struct or sampled image value"))
            }
            Val::BuiltIn(f) => Val::V(self.builtin_value(f, &ty)?),
            Val::SubGroupVar(name) => {
                let masks = name.ends_with("_mask");
                let qt = if masks {
                    Type::Vector(Scalar::U32, 4)
                } else {
                    Type::U32
                };
                let r = self.emit(Inst_::Builtin(name.into(), vec![]), qt.clone());
                if masks {
                    if ty != qt {
                        return Err(
                            inst.error("a sub-group mask loaded as another type than uint4")
                        );
                    }
                    Val::V(r)
                } else {
                    Val::V(self.fit_int(r, &ty)?)
                }
            }
            Val::BuiltInElem(f, dim) => {
                let d = self.emit(
                    Inst_::Convert {
                        value: dim,
                        saturate: false,
                        rounding: Rounding::Default,
                    },
                    Type::U32,
                );
                let r = self.emit(Inst_::WorkItem(f, Some(d)), Type::U64);
                Val::V(self.fit_int(r, &ty)?)
            }
        };
        self.define(result_id(inst)?, v);
        Ok(())
    }

    /// The whole value of a built-in variable, as type `ty`.
    fn builtin_value(&mut self, f: WorkItemFn, ty: &Type) -> Result<ValueId> {
        let no_dim = matches!(
            f,
            WorkItemFn::WorkDim | WorkItemFn::GlobalLinearId | WorkItemFn::LocalLinearId
        );
        if no_dim {
            let rt = if f == WorkItemFn::WorkDim {
                Type::U32
            } else {
                Type::U64
            };
            let r = self.emit(Inst_::WorkItem(f, None), rt);
            return self.fit_int(r, ty);
        }
        let Type::Vector(s, n) = ty else {
            return Err(self.error("a 3-component built-in loaded as a scalar"));
        };
        let mut parts = Vec::new();
        for d in 0..u32::from(*n) {
            let dim = self.emit(Inst_::Const(u64::from(d)), Type::U32);
            let r = self.emit(Inst_::WorkItem(f, Some(dim)), Type::U64);
            parts.push(self.fit_int(r, &Type::Scalar(*s))?);
        }
        Ok(self.emit(Inst_::Construct(parts), ty.clone()))
    }

    /// An integer value converted to integer type `ty` (no-op when equal).
    pub fn fit_int(&mut self, v: ValueId, ty: &Type) -> Result<ValueId> {
        if self.ty(v) == *ty {
            return Ok(v);
        }
        if !ty.scalar().is_some_and(|s| s.is_int()) {
            return Err(self.error("an integer built-in read as a non-integer"));
        }
        Ok(self.emit(
            Inst_::Convert {
                value: v,
                saturate: false,
                rounding: Rounding::Default,
            },
            ty.clone(),
        ))
    }

    fn store(&mut self, inst: &Inst) -> Result<()> {
        let ptr = self.operand(inst, 0)?;
        let id = word_of(inst, 1)?;
        let Some(pointee) = self.ty(ptr).pointee().cloned() else {
            return Err(inst.error("stores through a non-pointer"));
        };
        // The value's own type decides what is stored.
        let vty = match self.val(id)? {
            Val::V(v) => self.ty(v),
            _ => pointee.clone(),
        };
        let ptr = if vty != pointee && !(vty.is_pointer() && pointee.is_pointer()) {
            let space = self
                .ty(ptr)
                .address_space()
                .unwrap_or(AddressSpace::Generic);
            self.emit(Inst_::PtrCast(ptr), Type::ptr(space, vty.clone()))
        } else {
            ptr
        };
        let target = self.ty(ptr).pointee().cloned().unwrap_or(vty);
        self.store_val(ptr, id, &target)
    }

    fn copy_memory(&mut self, inst: &Inst) -> Result<()> {
        let dst = self.operand(inst, 0)?;
        let src = self.operand(inst, 1)?;
        let size = if inst.inst.class.opcode == Op::CopyMemorySized {
            let n = word_of(inst, 2)?;
            match self.cx.consts.get(&n) {
                Some(Const::Scalar(s, bits)) if s.is_int() && *bits <= u64::from(u32::MAX) => {
                    *bits as u32
                }
                _ => {
                    return Err(
                        inst.error("copies of a size that is not a constant are not supported")
                    )
                }
            }
        } else {
            let p = self.ty(dst).pointee().cloned().unwrap_or(Type::Void);
            self.cx.module.size_of(&p)
        };
        if !self.ty(dst).is_pointer() || !self.ty(src).is_pointer() {
            return Err(inst.error("copies between pointers only"));
        }
        if size > 0 {
            // `memcpy` passes byte pointers: view both sides as the bytes
            // copied when their pointee is smaller.
            let as_bytes = |this: &mut Self, p: ValueId| {
                let t = this.ty(p);
                let pointee = t.pointee().cloned().unwrap_or(Type::Void);
                if this.cx.module.size_of(&pointee) >= size {
                    return p;
                }
                let space = t.address_space().unwrap_or(AddressSpace::Generic);
                let bytes = Type::array(Type::Scalar(Scalar::U8), size);
                this.emit(Inst_::PtrCast(p), Type::ptr(space, bytes))
            };
            let dst = as_bytes(self, dst);
            let src = as_bytes(self, src);
            let loc = self.loc;
            self.stmt(Stmt::Copy {
                dst,
                src,
                size,
                loc,
            });
        }
        Ok(())
    }

    /// `OpAccessChain` and friends: field and element addresses.
    fn access_chain(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.inst.class.opcode;
        let rty = self.ir_type(result_type(inst)?)?;
        let base_id = word_of(inst, 0)?;
        let n = inst.inst.operands.len();
        let ptr_form = matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
        let base = self.val(base_id)?;
        if let Val::BuiltIn(f) = base {
            // A component of a built-in: `&GlobalInvocationId[i]`.
            let idx = if ptr_form && n == 3 {
                let first = self.operand(inst, 1)?;
                if self.f.int_const(first) != Some(0) {
                    return Err(inst.error("steps past a built-in variable"));
                }
                self.operand(inst, 2)?
            } else if !ptr_form && n == 2 {
                self.operand(inst, 1)?
            } else {
                return Err(inst.error("an unsupported address of a built-in variable"));
            };
            self.define(result_id(inst)?, Val::BuiltInElem(f, idx));
            return Ok(());
        }
        let mut p = match base {
            Val::V(p) => p,
            _ => return Err(inst.error("the base is not a pointer")),
        };
        if !self.ty(p).is_pointer() {
            return Err(inst.error("the base is not a pointer"));
        }
        let mut i = 1;
        if ptr_form {
            let e = self.operand(inst, 1)?;
            if !self.ty(e).scalar().is_some_and(|s| s.is_int()) {
                return Err(inst.error("the element index is not an integer"));
            }
            if self.f.int_const(e) != Some(0) {
                // SPIR-V indices are signed.
                let e = self.as_signed(e);
                let t = self.ty(p);
                p = self.emit(Inst_::Index(p, e), t);
            }
            i = 2;
        }
        while i < n {
            let idx = self.operand(inst, i)?;
            let Type::Pointer(space, pointee) = self.ty(p) else {
                unreachable!("checked above and kept by every step")
            };
            p = match *pointee {
                Type::Struct(sid) => {
                    let Some(k) = self.f.int_const(idx) else {
                        return Err(inst.error("a struct member index that is not a constant"));
                    };
                    let def = &self.cx.module.structs[sid.0 as usize];
                    let Some(fld) = def.fields.get(k as usize) else {
                        return Err(inst.error(format!("struct member {k} does not exist")));
                    };
                    let t = Type::ptr(space, fld.ty.clone());
                    self.emit(Inst_::Field(p, k as u32), t)
                }
                Type::Array(e, _) => {
                    if !self.ty(idx).scalar().is_some_and(|s| s.is_int()) {
                        return Err(inst.error("an index that is not an integer"));
                    }
                    let idx = self.as_signed(idx);
                    self.emit(Inst_::Elem(p, idx), Type::ptr(space, *e))
                }
                Type::Vector(e, _) => {
                    if !self.ty(idx).scalar().is_some_and(|s| s.is_int()) {
                        return Err(inst.error("an index that is not an integer"));
                    }
                    let idx = self.as_signed(idx);
                    self.emit(Inst_::Elem(p, idx), Type::ptr(space, Type::Scalar(e)))
                }
                other => return Err(inst.error(format!("indexes into {other:?}, not a composite"))),
            };
            i += 1;
        }
        if self.ty(p) != rty {
            if !rty.is_pointer() {
                return Err(inst.error("the result type is not a pointer"));
            }
            p = self.emit(Inst_::PtrCast(p), rty);
        }
        self.define_value(inst, p)
    }

    fn call(&mut self, inst: &Inst) -> Result<()> {
        let callee = word_of(inst, 0)?;
        let Some(fref) = self.cx.functions.get(&callee).cloned() else {
            return Err(inst.error(format!("%{callee} is not a function")));
        };
        let params: Vec<Type> = if fref.id == self.id {
            return Err(inst.error("recursion is not allowed in OpenCL"));
        } else {
            self.cx.module.functions[fref.id.index()]
                .params
                .iter()
                .map(|p| p.ty.clone())
                .collect()
        };
        let n = inst.inst.operands.len() - 1;
        if n != params.len() {
            return Err(inst.error(format!(
                "the callee takes {} arguments, given {n}",
                params.len()
            )));
        }
        let mut args = Vec::new();
        for (i, want) in params.iter().enumerate() {
            let mut a = self.operand(inst, i + 1)?;
            let at = self.ty(a);
            if at != *want {
                if at.is_pointer() && want.is_pointer() {
                    a = self.emit(Inst_::PtrCast(a), want.clone());
                } else {
                    return Err(inst.error(format!("argument {i} has the wrong type")));
                }
            }
            args.push(a);
        }
        let ret = self.cx.module.functions[fref.id.index()].ret.clone();
        let v = self.emit(Inst_::Call(fref.id, args), ret);
        if let Some(id) = inst.inst.result_id {
            self.define(id, Val::V(v));
        }
        Ok(())
    }

    /// Memory-semantics bits → fence flags.
    pub fn fence_flags(&mut self, sem_id: u32) -> MemFlags {
        let bits = match self.cx.consts.get(&sem_id) {
            Some(Const::Scalar(_, b)) => *b as u32,
            _ => return MemFlags(MemFlags::LOCAL.0 | MemFlags::GLOBAL.0),
        };
        let mut f = 0;
        if bits & 0x100 != 0 {
            f |= MemFlags::LOCAL.0;
        }
        if bits & 0x200 != 0 {
            f |= MemFlags::GLOBAL.0;
        }
        if bits & 0x800 != 0 {
            f |= MemFlags::IMAGE.0;
        }
        MemFlags(f)
    }

    /// A scope operand's value (`Scope` enumerants), when constant.
    pub fn scope(&self, id: u32) -> Option<u32> {
        match self.cx.consts.get(&id) {
            Some(Const::Scalar(_, b)) => Some(*b as u32),
            _ => None,
        }
    }

    fn barrier(&mut self, inst: &Inst) -> Result<()> {
        if inst.inst.class.opcode == Op::ControlBarrier {
            let exec = word_of(inst, 0)?;
            let sem = word_of(inst, 2)?;
            let flags = self.fence_flags(sem);
            match self.scope(exec) {
                Some(2) => {
                    let loc = self.loc;
                    self.stmt(Stmt::Barrier(flags, loc));
                }
                // The work-items of a sub-group run in lockstep (one SIMD
                // chunk): a sub-group barrier only orders memory, as
                // `sub_group_barrier` of OpenCL C.
                Some(3) => self.stmt(Stmt::Fence(flags)),
                Some(s) => {
                    return Err(inst.error(format!(
                        "a control barrier of scope {s} (vecl supports work-group and sub-group barriers)"
                    )))
                }
                None => return Err(inst.error("a barrier scope that is not a constant")),
            }
        } else {
            let sem = word_of(inst, 1)?;
            let flags = self.fence_flags(sem);
            self.stmt(Stmt::Fence(flags));
        }
        Ok(())
    }

    /// Whether `id` names decoration `d` (for conversions' rounding and
    /// saturation).
    pub fn decoration(&self, id: u32, d: Decoration) -> Option<Vec<Operand>> {
        self.cx.decoration(id, d).map(|o| o.to_vec())
    }
}

/// The IR instruction type, named apart from the reader's [`Inst`].
pub(crate) type Inst_ = vecl_ir::Inst;

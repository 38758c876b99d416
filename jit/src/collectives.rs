//! Work-group collectives (`work_group_all/any/broadcast/reduce_*/
//! scan_*`) as barrier regions, rewritten on the IR before the kernel is
//! cut at its barriers (`regions.rs`).
//!
//! Every collective becomes code around barriers and a per-group scratch
//! area, a `__local` array of [`RESULT_SLOT`]` + 1` elements of the
//! collective's type added to the module (one per element type, shared by
//! the kernel's collectives of that type, so slots need no pointer cast):
//!
//! ```text
//! x = work_group_reduce_add(v)       slot[lid] = v
//!                                    barrier
//!                                    if (lid == 0) combine(reduce, add, slot, n)
//!                                    barrier
//!                                    x = slot[RESULT_SLOT]
//! ```
//!
//! where `lid` is the local linear id and `n` the group's size; the
//! combine (`sub_group::vecl_work_group_combine`) runs once per group, in
//! the order `vecl_ir::group_order` sets (the interpreter's), so a float
//! sum has the interpreter's bits. Where the region is split into
//! group-level parts (`lower::group_level`), the `if (lid == 0)` and its
//! combine run once per group outside the chunk loop, not as a test in
//! every chunk. A scan combines in place and each item reads its
//! own slot; `all`/`any` combine 32-bit predicates; a broadcast is
//! `barrier; if (lid == target) slot[RESULT_SLOT] = v; barrier`.
//!
//! Why two barriers are enough: an item reads a result (its own slot, or
//! the result slot) in the region after the second barrier, and the next
//! collective writes its own slot (read by no one else) before its first
//! barrier and the result slot only after it. The barriers are ordinary
//! barriers, so a collective under control flow not proven uniform is
//! checked at run time as a barrier is (`lower::barrier_agreement`).

use vecl_ir::{
    AddressSpace, Block, Builtin, CmpOp, Function, Global, GlobalId, Inst, InstData, Loc, MemFlags,
    Module, Scalar, Stmt, Type, ValueId, WorkItemFn,
};

/// The slot of a reduction's, vote's or broadcast's result: past the slot
/// of the largest group (1024 work-items).
pub(crate) const RESULT_SLOT: usize = 1024;

/// The scratch area's name in the module.
const SCRATCH: &str = "__vecl_work_group_scratch";

/// Whether `name` is a work-group collective.
fn is_collective(name: Builtin) -> bool {
    matches!(name, vecl_ir::work_group_builtins!())
}

/// Whether `func` calls a work-group collective.
pub(crate) fn has_collectives(func: &Function) -> bool {
    func.insts
        .iter()
        .any(|d| matches!(&d.inst, Inst::Builtin(n, _) if is_collective(*n)))
}

/// `module` with the scratch areas added, and `func` with its collectives
/// rewritten to use them. `Err` names a collective the JIT cannot make.
pub(crate) fn rewrite(module: &Module, func: &mut Function) -> Result<Module, String> {
    let mut module = module.clone();
    let body = std::mem::take(&mut func.body);
    let mut cx = Rewriter {
        func,
        module: &mut module,
        areas: Vec::new(),
    };
    let body = cx.block(body)?;
    cx.func.body = body;
    Ok(module)
}

struct Rewriter<'f> {
    func: &'f mut Function,
    module: &'f mut Module,
    /// The scratch area of each element type used so far.
    areas: Vec<(Type, GlobalId, Type)>,
}

impl Rewriter<'_> {
    /// The scratch area of `elem` values (added to the module at its first
    /// use) and its type: an array of [`RESULT_SLOT`]` + 1` of them, so
    /// that a slot is addressed without a pointer cast.
    fn area(&mut self, elem: &Type) -> (GlobalId, Type) {
        if let Some((_, g, ty)) = self.areas.iter().find(|(t, ..)| t == elem) {
            return (*g, ty.clone());
        }
        let g = GlobalId(self.module.globals.len() as u32);
        let ty = Type::Array(Box::new(elem.clone()), RESULT_SLOT as u32 + 1);
        let name = match elem.scalar() {
            Some(s) => format!("{SCRATCH}_{s}"),
            None => SCRATCH.to_string(),
        };
        self.module.globals.push(Global {
            name,
            space: AddressSpace::Local,
            ty: ty.clone(),
            init: None,
        });
        self.areas.push((elem.clone(), g, ty.clone()));
        (g, ty)
    }

    fn push(&mut self, out: &mut Vec<Stmt>, inst: Inst, ty: Type, loc: Loc) -> ValueId {
        let v = ValueId(self.func.insts.len() as u32);
        self.func.insts.push(InstData { inst, ty, loc });
        out.push(Stmt::Eval(v));
        v
    }

    fn konst(&mut self, out: &mut Vec<Stmt>, ty: Type, x: u64) -> ValueId {
        self.push(out, Inst::Const(x), ty, Loc::NONE)
    }

    fn block(&mut self, b: Block) -> Result<Block, String> {
        let mut out = Vec::with_capacity(b.0.len());
        for s in b.0 {
            match s {
                Stmt::Eval(v) => {
                    let collective = match &self.func.inst(v).inst {
                        Inst::Builtin(name, args) if is_collective(*name) => {
                            Some((*name, args.clone()))
                        }
                        _ => None,
                    };
                    match collective {
                        Some((name, args)) => self.collective(&mut out, v, name, &args)?,
                        None => out.push(Stmt::Eval(v)),
                    }
                }
                Stmt::If { cond, then_, else_ } => out.push(Stmt::If {
                    cond,
                    then_: self.block(then_)?,
                    else_: self.block(else_)?,
                }),
                Stmt::Loop { body, continuing } => out.push(Stmt::Loop {
                    body: self.block(body)?,
                    continuing: self.block(continuing)?,
                }),
                Stmt::Switch { selector, cases } => {
                    let mut new = Vec::with_capacity(cases.len());
                    for mut c in cases {
                        c.body = self.block(c.body)?;
                        new.push(c);
                    }
                    out.push(Stmt::Switch {
                        selector,
                        cases: new,
                    });
                }
                s => out.push(s),
            }
        }
        Ok(Block(out))
    }

    /// Replaces `Eval(v)` of collective `name` by its regions; `v` becomes
    /// the load of its result.
    fn collective(
        &mut self,
        out: &mut Vec<Stmt>,
        v: ValueId,
        name: Builtin,
        args: &[ValueId],
    ) -> Result<(), String> {
        let data = self.func.inst(v).clone();
        let loc = data.loc;
        let s = data
            .ty
            .scalar()
            .filter(|_| data.ty.lanes() == 1)
            .ok_or_else(|| format!("{name} on {:?}", data.ty))?;
        let elem = match s {
            Scalar::I32 => crate::sub_group::ELEM_I32,
            Scalar::U32 => crate::sub_group::ELEM_U32,
            Scalar::F32 => crate::sub_group::ELEM_F32,
            Scalar::I64 => crate::sub_group::ELEM_I64,
            Scalar::U64 => crate::sub_group::ELEM_U64,
            Scalar::F64 => crate::sub_group::ELEM_F64,
            _ => return Err(format!("{name} on {s}")),
        };
        let x = *args
            .first()
            .ok_or_else(|| format!("{name} without an operand"))?;
        let space = AddressSpace::Local;
        let (area, area_ty) = self.area(&data.ty);
        let slots = self.push(
            out,
            Inst::GlobalAddr(area),
            Type::ptr(space, area_ty.clone()),
            loc,
        );
        let lid = self.push(
            out,
            Inst::WorkItem(WorkItemFn::LocalLinearId, None),
            Type::U64,
            loc,
        );
        let result_index = self.konst(out, Type::U64, RESULT_SLOT as u64);
        let result = self.push(
            out,
            Inst::Elem(slots, result_index),
            Type::ptr(space, data.ty.clone()),
            loc,
        );
        let barrier = Stmt::Barrier(MemFlags::LOCAL, loc);
        if name == Builtin::WorkGroupBroadcast {
            // The target's local linear id.
            let mut sizes = Vec::new();
            for d in 0..2u64 {
                let dim = self.konst(out, Type::U32, d);
                sizes.push(self.push(
                    out,
                    Inst::WorkItem(WorkItemFn::LocalSize, Some(dim)),
                    Type::U64,
                    loc,
                ));
            }
            let ids = &args[1..];
            let mut target = *ids
                .last()
                .ok_or("work_group_broadcast without a local id")?;
            for d in (0..ids.len() - 1).rev() {
                let scaled = self.push(
                    out,
                    Inst::Binary(vecl_ir::BinaryOp::Mul, target, sizes[d]),
                    Type::U64,
                    loc,
                );
                target = self.push(
                    out,
                    Inst::Binary(vecl_ir::BinaryOp::Add, scaled, ids[d]),
                    Type::U64,
                    loc,
                );
            }
            out.push(barrier.clone());
            let hit = self.push(out, Inst::Cmp(CmpOp::Eq, lid, target), Type::BOOL, loc);
            out.push(Stmt::If {
                cond: hit,
                then_: Block(vec![Stmt::Store {
                    ptr: result,
                    value: x,
                    loc,
                }]),
                else_: Block::default(),
            });
            out.push(barrier);
            self.func.insts[v.index()].inst = Inst::Load(result);
            out.push(Stmt::Eval(v));
            return Ok(());
        }
        // (kind, operator) as the runtime's combine takes them: 0 reduce,
        // 1 inclusive scan, 2 exclusive scan, 3 all, 4 any.
        let (kind, op) = {
            use vecl_ir::sub_group::SubGroupOp::{Add, Max, Min};
            use Builtin::*;
            match name {
                WorkGroupAll => (3, Add),
                WorkGroupAny => (4, Add),
                WorkGroupReduceAdd => (0, Add),
                WorkGroupReduceMin => (0, Min),
                WorkGroupReduceMax => (0, Max),
                WorkGroupScanInclusiveAdd => (1, Add),
                WorkGroupScanInclusiveMin => (1, Min),
                WorkGroupScanInclusiveMax => (1, Max),
                WorkGroupScanExclusiveAdd => (2, Add),
                WorkGroupScanExclusiveMin => (2, Min),
                WorkGroupScanExclusiveMax => (2, Max),
                _ => return Err(name.name().to_string()),
            }
        };
        let mine = self.push(
            out,
            Inst::Elem(slots, lid),
            Type::ptr(space, data.ty.clone()),
            loc,
        );
        out.push(Stmt::Store {
            ptr: mine,
            value: x,
            loc,
        });
        out.push(barrier.clone());
        // `lower::group_level` recognises this test as the first
        // work-item's: the combine then runs once per group, outside the
        // chunk loop.
        let zero = self.konst(out, Type::U64, 0);
        let first = self.push(out, Inst::Cmp(CmpOp::Eq, lid, zero), Type::BOOL, loc);
        let mut then_ = Vec::new();
        let mut n = None;
        for d in 0..3u64 {
            let dim = self.konst(&mut then_, Type::U32, d);
            let size = self.push(
                &mut then_,
                Inst::WorkItem(WorkItemFn::LocalSize, Some(dim)),
                Type::U64,
                loc,
            );
            n = Some(match n {
                None => size,
                Some(m) => self.push(
                    &mut then_,
                    Inst::Binary(vecl_ir::BinaryOp::Mul, m, size),
                    Type::U64,
                    loc,
                ),
            });
        }
        let n = n.unwrap_or(zero);
        let kind = self.konst(&mut then_, Type::U32, kind);
        let op = self.konst(&mut then_, Type::U32, u64::from(op.code()));
        let elem = self.konst(&mut then_, Type::U32, u64::from(elem));
        // The scratch area's address made again here, so that every
        // operand of the combine is defined in this region and the region
        // can run it once per group (`lower::group_level`'s first item's
        // statements) instead of reading `base` saved per chunk.
        let base = self.push(
            &mut then_,
            Inst::GlobalAddr(area),
            Type::ptr(space, area_ty),
            loc,
        );
        self.push(
            &mut then_,
            Inst::Builtin(Builtin::WorkGroupCombine, vec![kind, op, elem, base, n]),
            Type::Void,
            loc,
        );
        out.push(Stmt::If {
            cond: first,
            then_: Block(then_),
            else_: Block::default(),
        });
        out.push(barrier);
        let scan = matches!(
            name,
            Builtin::WorkGroupScanInclusiveAdd
                | Builtin::WorkGroupScanInclusiveMin
                | Builtin::WorkGroupScanInclusiveMax
                | Builtin::WorkGroupScanExclusiveAdd
                | Builtin::WorkGroupScanExclusiveMin
                | Builtin::WorkGroupScanExclusiveMax
        );
        let from = if scan { mine } else { result };
        self.func.insts[v.index()].inst = Inst::Load(from);
        out.push(Stmt::Eval(v));
        Ok(())
    }
}

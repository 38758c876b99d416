//! Lockstep execution of one work-group over the structured IR.
//!
//! All work-items of a group run together, statement by statement, each
//! with its own copy of every value. An *active mask* says which items
//! execute the current statement; structured control flow only shrinks and
//! re-merges it:
//! - `If` runs the then-arm under (mask ∧ cond), the else-arm under
//!   (mask ∧ ¬cond), and continues with the items that left either arm
//!   normally;
//! - `Break`, `Continue` and `Return` remove the executing items from the
//!   mask; breaks and continues are collected by the innermost `Loop` or
//!   `Switch` (one [`Target`] each) and re-join where the jump lands;
//! - a `Loop` runs iterations while any item is still in it;
//! - a `Switch` runs its cases in order, each under the items that enter
//!   there plus those falling through from the case before.
//!
//! So every statement runs for all its items before the next one starts,
//! which is a valid OpenCL schedule: a `Barrier` is exact without any
//! scheduling. A barrier must be reached by every item of the group that
//! has not returned from the kernel; one reached by fewer is reported as
//! [`InterpError::DivergentBarrier`] (OpenCL leaves that undefined). Items
//! that returned early (`if (i >= n) return;` before a barrier) are not
//! waited for. Within a statement items run in local-linear-id order, which
//! fixes the order of `__local` atomics.

use crate::builtin::Builtin;
use crate::module::*;
use crate::types::{Scalar, StructDef, Type};

use super::builtins::{self, Arg, BuiltinError};
use super::collective;
use super::convert;
use super::error::InterpError;
use super::lanes::Lanes;
use super::memory::{self, Fault, Memory, Ptr, Region, UNINIT_BYTE};
use super::scalar;
use super::sub_group;
use super::{arith, NdRange};
use crate::sub_group::{BallotQuery, SubGroupFn, SubGroupQuery};

/// Calls nested deeper than this are taken for recursion, which the IR forbids.
const MAX_CALL_DEPTH: usize = 64;

/// Which work-items execute: one flag per item of the group.
type Mask = Vec<bool>;

fn any(m: &Mask) -> bool {
    m.iter().any(|&b| b)
}

fn or(a: &Mask, b: &Mask) -> Mask {
    a.iter().zip(b).map(|(&x, &y)| x || y).collect()
}

/// Lanes a value of type `ty` occupies: 1 for scalars and pointers, N for vectors.
fn lanes(ty: &Type) -> usize {
    match ty {
        Type::Scalar(_) | Type::Pointer(..) => 1,
        Type::Vector(_, n) => usize::from(*n),
        _ => 0,
    }
}

/// The scalar a lane of `ty` is read as (pointers as `u64` encodings).
fn elem(ty: &Type) -> Scalar {
    ty.scalar().unwrap_or(Scalar::U64)
}

/// The ids of one work-item.
#[derive(Clone, Copy, Debug)]
pub struct Item {
    pub global: [u64; 3],
    pub local: [u64; 3],
}

/// The work-group being run and everything its statements can reach.
pub struct Group<'a> {
    pub module: &'a Module,
    pub kernel: &'a str,
    pub range: &'a NdRange,
    pub mem: &'a mut Memory,
    /// Pointer encodings of the module globals for this group.
    pub globals: Vec<u64>,
    pub group_id: [u64; 3],
    /// This group's actual size (smaller than the enqueued one for a last,
    /// partial group).
    pub local_size: [u64; 3],
    pub num_groups: [u64; 3],
    /// In local-linear-id order.
    pub items: Vec<Item>,
    /// Items that have returned from the kernel: a barrier waits for all
    /// the others.
    pub exited: Mask,
    pub depth: usize,
    /// Where `printf` output goes, one whole call at a time.
    pub output: &'a mut Vec<u8>,
    /// Work-items per sub-group (see [`crate::sub_group`]).
    pub sub_group_size: u64,
}

/// Where a `Break` or `Continue` lands.
enum Target {
    Loop { brk: Mask, cont: Mask },
    Switch { brk: Mask },
}

/// One activation of a function for the whole group.
pub struct Frame<'f> {
    func: &'f Function,
    /// Per instruction: `items × lanes` lanes.
    vals: Vec<Vec<u64>>,
    vars: Vec<Vec<u64>>,
    /// Per slot: each item's pointer encoding.
    slots: Vec<Vec<u64>>,
    /// Per parameter: `items × lanes` lanes.
    params: Vec<Vec<u64>>,
    ret: Vec<u64>,
    targets: Vec<Target>,
}

impl<'f> Frame<'f> {
    fn get(&self, v: ValueId, item: usize) -> &[u64] {
        let n = lanes(self.func.ty(v));
        self.vals
            .get(v.index())
            .and_then(|x| x.get(item * n..(item + 1) * n))
            .unwrap_or(&[])
    }
}

impl<'a> Group<'a> {
    fn err_item(&self, item: usize) -> [u64; 3] {
        self.items.get(item).map_or([0; 3], |i| i.global)
    }

    fn malformed(&self, item: usize, message: impl Into<String>, loc: Loc) -> InterpError {
        InterpError::Malformed {
            kernel: self.kernel.to_string(),
            work_item: self.err_item(item),
            message: message.into(),
            loc,
        }
    }

    fn fault(&self, item: usize, fault: Fault, loc: Loc) -> InterpError {
        let kernel = self.kernel.to_string();
        let work_item = self.err_item(item);
        match fault {
            Fault::OutOfBounds {
                space,
                offset,
                size,
                object,
            } => InterpError::OutOfBounds {
                kernel,
                work_item,
                space,
                offset,
                size,
                object,
                loc,
            },
            Fault::ReadOnly { offset, object } => InterpError::ReadOnlyWrite {
                kernel,
                work_item,
                offset,
                object,
                loc,
            },
        }
    }

    /// An access through a pointer of type `ptr_ty` must land in an object
    /// of its address space.
    fn check_space(
        &self,
        item: usize,
        ptr_ty: &Type,
        p: Ptr,
        size: u64,
        loc: Loc,
    ) -> Result<(), InterpError> {
        let space = ptr_ty
            .address_space()
            .unwrap_or(crate::types::AddressSpace::Generic);
        self.mem
            .check_space(p, space, size)
            .map_err(|e| self.fault(item, e, loc))
    }

    fn alloc(&mut self, region: Region) -> Result<u64, InterpError> {
        self.mem
            .alloc(region)
            .map(Ptr::encode)
            .ok_or_else(|| InterpError::Limit {
                kernel: self.kernel.to_string(),
                message: "too many memory objects in one work-group".into(),
            })
    }

    /// Runs `func` for the items of `mask` with per-item parameter lanes;
    /// returns the per-item return lanes.
    pub fn call(
        &mut self,
        func: &Function,
        params: Vec<Vec<u64>>,
        mask: &Mask,
    ) -> Result<Vec<u64>, InterpError> {
        let n = self.items.len();
        if self.depth >= MAX_CALL_DEPTH {
            let item = mask.iter().position(|&b| b).unwrap_or(0);
            return Err(self.malformed(
                item,
                format!(
                    "call depth over {MAX_CALL_DEPTH} calling `{}`: recursion?",
                    func.name
                ),
                Loc::NONE,
            ));
        }
        self.depth += 1;
        // The frame's private memory is released when the call returns.
        let mark = self.mem.mark();
        let mut slots = Vec::with_capacity(func.slots.len());
        for slot in &func.slots {
            let size = self.module.size_of(&slot.ty) as usize;
            let mut ptrs = vec![0u64; n];
            for (_, p) in ptrs.iter_mut().enumerate().filter(|(i, _)| mask[*i]) {
                *p = self.alloc(Region {
                    space: crate::types::AddressSpace::Private,
                    name: format!("slot `{}` of `{}`", slot.name, func.name),
                    data: vec![UNINIT_BYTE; size],
                    writable: true,
                })?;
            }
            slots.push(ptrs);
        }
        let mut frame = Frame {
            func,
            vals: func
                .insts
                .iter()
                .map(|d| vec![0; n * lanes(&d.ty)])
                .collect(),
            vars: func
                .vars
                .iter()
                .map(|v| vec![0; n * lanes(&v.ty)])
                .collect(),
            slots,
            params,
            ret: vec![0; n * lanes(&func.ret)],
            targets: Vec::new(),
        };
        self.block(&mut frame, &func.body, mask.clone())?;
        self.depth -= 1;
        self.mem.release(mark);
        Ok(frame.ret)
    }

    fn block(
        &mut self,
        f: &mut Frame<'_>,
        block: &Block,
        mut mask: Mask,
    ) -> Result<Mask, InterpError> {
        for stmt in &block.0 {
            if !any(&mask) {
                break;
            }
            mask = self.stmt(f, stmt, mask)?;
        }
        Ok(mask)
    }

    fn stmt(&mut self, f: &mut Frame<'_>, stmt: &Stmt, mask: Mask) -> Result<Mask, InterpError> {
        let n = self.items.len();
        let active = |m: &Mask| {
            m.iter()
                .enumerate()
                .filter(|(_, &b)| b)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        match stmt {
            Stmt::Eval(v) => self.eval(f, *v, &mask)?,
            Stmt::WriteVar(var, v) => {
                let w = lanes(f.func.ty(*v));
                for item in active(&mask) {
                    let src = Lanes::from(f.get(*v, item));
                    if let Some(dst) = f
                        .vars
                        .get_mut(var.index())
                        .and_then(|x| x.get_mut(item * w..(item + 1) * w))
                    {
                        dst.copy_from_slice(&src);
                    }
                }
            }
            Stmt::Store { ptr, value, loc } => {
                let ty = f.func.ty(*value).clone();
                let size = u64::from(self.module.size_of(&ty));
                for item in active(&mask) {
                    let p = Ptr::decode(f.get(*ptr, item).first().copied().unwrap_or(0));
                    self.check_space(item, f.func.ty(*ptr), p, size, *loc)?;
                    let lanes = Lanes::from(f.get(*value, item));
                    self.mem
                        .store(p, &ty, &lanes, &self.module.structs)
                        .map_err(|e| self.fault(item, e, *loc))?;
                }
            }
            Stmt::Copy {
                dst,
                src,
                size,
                loc,
            } => {
                for item in active(&mask) {
                    let d = Ptr::decode(f.get(*dst, item).first().copied().unwrap_or(0));
                    let s = Ptr::decode(f.get(*src, item).first().copied().unwrap_or(0));
                    self.check_space(item, f.func.ty(*dst), d, u64::from(*size), *loc)?;
                    self.check_space(item, f.func.ty(*src), s, u64::from(*size), *loc)?;
                    let bytes = self
                        .mem
                        .read(s, u64::from(*size))
                        .map_err(|e| self.fault(item, e, *loc))?
                        .to_vec();
                    self.mem
                        .write(d, &bytes)
                        .map_err(|e| self.fault(item, e, *loc))?;
                }
            }
            Stmt::If { cond, then_, else_ } => {
                let c: Mask = (0..n)
                    .map(|i| mask[i] && f.get(*cond, i).first().is_some_and(|&b| b & 1 == 1))
                    .collect();
                let e: Mask = (0..n).map(|i| mask[i] && !c[i]).collect();
                let after_then = if any(&c) { self.block(f, then_, c)? } else { c };
                let after_else = if any(&e) { self.block(f, else_, e)? } else { e };
                return Ok(or(&after_then, &after_else));
            }
            Stmt::Loop { body, continuing } => {
                f.targets.push(Target::Loop {
                    brk: vec![false; n],
                    cont: vec![false; n],
                });
                let mut live = mask;
                while any(&live) {
                    let after_body = self.block(f, body, live)?;
                    let cont = match f.targets.last_mut() {
                        Some(Target::Loop { cont, .. }) => std::mem::replace(cont, vec![false; n]),
                        _ => vec![false; n],
                    };
                    live = self.block(f, continuing, or(&after_body, &cont))?;
                    // A `continue` in `continuing` (which the verifier rejects)
                    // goes on to the next iteration rather than losing the item.
                    if let Some(Target::Loop { cont, .. }) = f.targets.last_mut() {
                        let stray = std::mem::replace(cont, vec![false; n]);
                        live = or(&live, &stray);
                    }
                }
                return Ok(match f.targets.pop() {
                    Some(Target::Loop { brk, .. }) => brk,
                    _ => vec![false; n],
                });
            }
            Stmt::Switch { selector, cases } => {
                let sel_ty = elem(f.func.ty(*selector));
                let mut entry: Vec<Option<usize>> = vec![None; n];
                for item in active(&mask) {
                    let v =
                        scalar::int(sel_ty, f.get(*selector, item).first().copied().unwrap_or(0));
                    entry[item] = cases
                        .iter()
                        .position(|c| c.values.iter().any(|&x| i128::from(x) == v))
                        .or_else(|| cases.iter().position(|c| c.is_default));
                }
                let unmatched: Mask = (0..n).map(|i| mask[i] && entry[i].is_none()).collect();
                f.targets.push(Target::Switch {
                    brk: vec![false; n],
                });
                let mut fall = vec![false; n];
                for (ci, case) in cases.iter().enumerate() {
                    let m: Mask = (0..n).map(|i| fall[i] || entry[i] == Some(ci)).collect();
                    fall = if any(&m) {
                        self.block(f, &case.body, m)?
                    } else {
                        m
                    };
                }
                let brk = match f.targets.pop() {
                    Some(Target::Switch { brk }) => brk,
                    _ => vec![false; n],
                };
                return Ok(or(&or(&fall, &brk), &unmatched));
            }
            Stmt::Break => {
                match f.targets.last_mut() {
                    Some(Target::Loop { brk, .. }) | Some(Target::Switch { brk }) => {
                        *brk = or(brk, &mask)
                    }
                    None => {
                        return Err(self.malformed(
                            first(&mask),
                            "`break` outside a loop or switch",
                            Loc::NONE,
                        ))
                    }
                }
                return Ok(vec![false; n]);
            }
            Stmt::Continue => {
                let target = f.targets.iter_mut().rev().find_map(|t| match t {
                    Target::Loop { cont, .. } => Some(cont),
                    Target::Switch { .. } => None,
                });
                match target {
                    Some(cont) => *cont = or(cont, &mask),
                    None => {
                        return Err(self.malformed(
                            first(&mask),
                            "`continue` outside a loop",
                            Loc::NONE,
                        ))
                    }
                }
                return Ok(vec![false; n]);
            }
            Stmt::Return(v) => {
                if let Some(v) = v {
                    let w = lanes(f.func.ty(*v));
                    for item in active(&mask) {
                        let src = Lanes::from(f.get(*v, item));
                        if let Some(dst) = f.ret.get_mut(item * w..(item + 1) * w) {
                            dst.copy_from_slice(&src);
                        }
                    }
                }
                if self.depth == 1 {
                    self.exited = or(&self.exited, &mask);
                }
                return Ok(vec![false; n]);
            }
            Stmt::Barrier(_, loc) => self.barrier_check(&mask, *loc)?,
            // Every statement completes for all items before the next starts:
            // memory is always ordered.
            Stmt::Fence(_) => {}
        }
        Ok(mask)
    }

    /// Evaluates instruction `v` for the items of `mask`.
    fn eval(&mut self, f: &mut Frame<'_>, v: ValueId, mask: &Mask) -> Result<(), InterpError> {
        let data = f.func.inst(v);
        let w = lanes(&data.ty);
        if let Inst::Call(callee, args) = &data.inst {
            let Some(callee) = self.module.functions.get(callee.index()) else {
                return Err(self.malformed(first(mask), "call of an unknown function", data.loc));
            };
            let n = self.items.len();
            let params = args
                .iter()
                .map(|a| (0..n).flat_map(|i| f.get(*a, i).iter().copied()).collect())
                .collect();
            let ret = self.call(callee, params, mask)?;
            for (item, _) in mask.iter().enumerate().filter(|(_, &b)| b) {
                if let (Some(dst), Some(src)) = (
                    f.vals
                        .get_mut(v.index())
                        .and_then(|x| x.get_mut(item * w..(item + 1) * w)),
                    ret.get(item * w..(item + 1) * w),
                ) {
                    dst.copy_from_slice(src);
                }
            }
            return Ok(());
        }
        if let Inst::Builtin(name, args) = &data.inst {
            if collective::is_collective(*name) {
                return self.collective(f, v, *name, args, mask);
            }
            if let Some(sf) = SubGroupFn::of(*name) {
                return self.sub_group_fn(f, v, sf, args, mask);
            }
            if let Some(q) = SubGroupQuery::of(*name) {
                return self.sub_group_query(f, v, q, mask);
            }
            if let Some(q) = BallotQuery::of(*name) {
                return self.ballot_query(f, v, q, args, mask);
            }
        }
        for (item, _) in mask.iter().enumerate().filter(|(_, &b)| b) {
            let out = self.inst(f, data, item)?;
            if out.count() != w {
                return Err(self.malformed(
                    item,
                    format!(
                        "%{} produced {} lanes for type {:?}",
                        v.0,
                        out.len(),
                        data.ty
                    ),
                    data.loc,
                ));
            }
            if let Some(dst) = f
                .vals
                .get_mut(v.index())
                .and_then(|x| x.get_mut(item * w..(item + 1) * w))
            {
                dst.copy_from_slice(&out);
            }
        }
        Ok(())
    }

    /// A work-group collective: a barrier, then one combine over the items.
    fn collective(
        &mut self,
        f: &mut Frame<'_>,
        v: ValueId,
        name: Builtin,
        args: &[ValueId],
        mask: &Mask,
    ) -> Result<(), InterpError> {
        let data = f.func.inst(v);
        self.barrier_check(mask, data.loc)?;
        let w = lanes(&data.ty);
        let participants: Vec<usize> = (0..self.items.len()).filter(|&i| mask[i]).collect();
        let arg_types: Vec<&Type> = args.iter().map(|a| f.func.ty(*a)).collect();
        let values: Vec<Vec<Lanes>> = args
            .iter()
            .map(|a| {
                participants
                    .iter()
                    .map(|&i| Lanes::from(f.get(*a, i)))
                    .collect()
            })
            .collect();
        let ids: Vec<[u64; 3]> = participants.iter().map(|&i| self.items[i].local).collect();
        let results = collective::combine(name, &arg_types, &values, &ids, &data.ty)
            .map_err(|msg| self.malformed(first(mask), msg, data.loc))?;
        for (&item, r) in participants.iter().zip(&results) {
            if let Some(dst) = f
                .vals
                .get_mut(v.index())
                .and_then(|x| x.get_mut(item * w..(item + 1) * w))
            {
                if r.len() == w {
                    dst.copy_from_slice(r);
                }
            }
        }
        Ok(())
    }

    /// Sub-group id, local id in it and its size, for item `i`.
    fn sub_group_place(&self, i: usize) -> (u64, u64, u64) {
        let local = self.items.get(i).map_or([0; 3], |it| it.local);
        crate::sub_group::place(local, self.local_size, self.sub_group_size)
    }

    /// A sub-group function: one [`sub_group::combine`] per sub-group over
    /// its items in `mask`.
    fn sub_group_fn(
        &mut self,
        f: &mut Frame<'_>,
        v: ValueId,
        sf: SubGroupFn,
        args: &[ValueId],
        mask: &Mask,
    ) -> Result<(), InterpError> {
        let data = f.func.inst(v);
        let w = lanes(&data.ty);
        let arg_types: Vec<&Type> = args.iter().map(|a| f.func.ty(*a)).collect();
        // Active items by sub-group, in local id order.
        let mut groups: std::collections::BTreeMap<u64, (u64, Vec<usize>)> = Default::default();
        for i in (0..self.items.len()).filter(|&i| mask[i]) {
            let (sg, _, size) = self.sub_group_place(i);
            groups.entry(sg).or_insert((size, Vec::new())).1.push(i);
        }
        for (size, members) in groups.values() {
            let values: Vec<Vec<Lanes>> = members
                .iter()
                .map(|&i| args.iter().map(|a| Lanes::from(f.get(*a, i))).collect())
                .collect();
            let parts: Vec<sub_group::Part<'_>> = members
                .iter()
                .zip(&values)
                .map(|(&i, a)| sub_group::Part {
                    lid: self.sub_group_place(i).1,
                    args: a,
                })
                .collect();
            let results = sub_group::combine(sf, &arg_types, &parts, *size, &data.ty)
                .map_err(|msg| self.malformed(first(mask), msg, data.loc))?;
            for (&item, r) in members.iter().zip(&results) {
                if let Some(dst) = f
                    .vals
                    .get_mut(v.index())
                    .and_then(|x| x.get_mut(item * w..(item + 1) * w))
                {
                    if r.len() == w {
                        dst.copy_from_slice(r);
                    }
                }
            }
        }
        Ok(())
    }

    /// `get_sub_group_*`.
    fn sub_group_query(
        &mut self,
        f: &mut Frame<'_>,
        v: ValueId,
        q: SubGroupQuery,
        mask: &Mask,
    ) -> Result<(), InterpError> {
        let data = f.func.inst(v);
        let w = lanes(&data.ty);
        let s = self.sub_group_size.max(1);
        let enqueued = self.range.local_size;
        for i in (0..self.items.len()).filter(|&i| mask[i]) {
            let (sg, lid, size) = self.sub_group_place(i);
            let out: Lanes = match q {
                SubGroupQuery::Size => Lanes::one(size),
                SubGroupQuery::MaxSize => Lanes::one(s.min(enqueued[0].max(1))),
                SubGroupQuery::Num => Lanes::one(crate::sub_group::count(self.local_size, s)),
                SubGroupQuery::EnqueuedNum => Lanes::one(crate::sub_group::count(enqueued, s)),
                SubGroupQuery::Id => Lanes::one(sg),
                SubGroupQuery::LocalId => Lanes::one(lid),
                // The bits below the maximum sub-group size count.
                _ => q
                    .mask(lid as u32, s.min(enqueued[0].max(1)) as u32)
                    .into_iter()
                    .map(u64::from)
                    .collect(),
            };
            if out.len() != w {
                return Err(self.malformed(i, format!("`{q:?}` of type {:?}", data.ty), data.loc));
            }
            if let Some(dst) = f
                .vals
                .get_mut(v.index())
                .and_then(|x| x.get_mut(i * w..(i + 1) * w))
            {
                dst.copy_from_slice(&out);
            }
        }
        Ok(())
    }

    /// `sub_group_inverse_ballot`, `sub_group_ballot_bit_*` and friends.
    fn ballot_query(
        &mut self,
        f: &mut Frame<'_>,
        v: ValueId,
        q: BallotQuery,
        args: &[ValueId],
        mask: &Mask,
    ) -> Result<(), InterpError> {
        // The bits below the maximum sub-group size count.
        let size = self
            .sub_group_size
            .max(1)
            .min(self.range.local_size[0].max(1));
        for i in (0..self.items.len()).filter(|&i| mask[i]) {
            let (_, lid, _) = self.sub_group_place(i);
            let value = args.first().map_or(&[][..], |a| f.get(*a, i));
            let word = |k: usize| value.get(k).copied().unwrap_or(0) as u32;
            let index = args
                .get(1)
                .map_or(0, |a| f.get(*a, i).first().copied().unwrap_or(0));
            let r = q.eval(
                [word(0), word(1), word(2), word(3)],
                index as u32,
                lid as u32,
                size as u32,
            );
            if let Some(dst) = f.vals.get_mut(v.index()).and_then(|x| x.get_mut(i)) {
                *dst = u64::from(r);
            }
        }
        Ok(())
    }

    /// Every item still running the kernel must be in `mask`.
    fn barrier_check(&self, mask: &Mask, loc: Loc) -> Result<(), InterpError> {
        let missing = (0..self.items.len()).find(|&i| !mask[i] && !self.exited[i]);
        let local = |i: usize| {
            let l = self.items.get(i).map_or([0; 3], |it| it.local);
            l.map(|x| u32::try_from(x).unwrap_or(u32::MAX))
        };
        match missing {
            Some(missing) => Err(InterpError::DivergentBarrier {
                kernel: self.kernel.to_string(),
                work_item: self.err_item(missing),
                missing_local: local(missing),
                reached_local: local(mask.iter().position(|&m| m).unwrap_or(0)),
                group: self.group_id,
                loc,
            }),
            None => Ok(()),
        }
    }

    /// One instruction for one item.
    fn inst(&mut self, f: &Frame<'_>, data: &InstData, item: usize) -> Result<Lanes, InterpError> {
        let ty = &data.ty;
        let loc = data.loc;
        let s = elem(ty);
        let val = |v: ValueId| f.get(v, item);
        let ptr = |v: ValueId| Ptr::decode(f.get(v, item).first().copied().unwrap_or(0));
        let bad = |msg: &str| self.malformed(item, msg, loc);
        Ok(match &data.inst {
            Inst::Param(i) => {
                let w = lanes(ty);
                f.params
                    .get(*i as usize)
                    .and_then(|p| p.get(item * w..(item + 1) * w))
                    .ok_or_else(|| bad("parameter index or type does not match the call"))?
                    .into()
            }
            Inst::Const(bits) => Lanes::splat(scalar::mask(s, *bits), lanes(ty)),
            Inst::Undef => Lanes::splat(0, lanes(ty)),
            Inst::Unary(op, a) => {
                let at = elem(f.func.ty(*a));
                val(*a)
                    .iter()
                    .map(|&x| arith::unary(*op, at, x))
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad("unary operator not defined for the type"))?
            }
            Inst::Binary(op, a, b) => {
                let at = elem(f.func.ty(*a));
                let (x, y) = (val(*a), val(*b));
                if x.len() != y.len() {
                    return Err(bad("binary operands of different shapes"));
                }
                x.iter()
                    .zip(y)
                    .map(|(&x, &y)| arith::binary(*op, at, x, y))
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad("binary operator not defined for the type"))?
            }
            Inst::Cmp(op, a, b) => {
                let at = elem(f.func.ty(*a));
                val(*a)
                    .iter()
                    .zip(val(*b))
                    .map(|(&x, &y)| u64::from(arith::cmp(*op, at, x, y)))
                    .collect()
            }
            Inst::Select(c, a, b) => {
                let (c, a, b) = (val(*c), val(*a), val(*b));
                if c.len() == 1 {
                    if c[0] & 1 == 1 {
                        a.into()
                    } else {
                        b.into()
                    }
                } else {
                    (0..a.len())
                        .map(|i| {
                            if c.get(i).is_some_and(|&x| x & 1 == 1) {
                                a[i]
                            } else {
                                b[i]
                            }
                        })
                        .collect()
                }
            }
            Inst::Convert {
                value,
                saturate,
                rounding,
            } => {
                let src = elem(f.func.ty(*value));
                val(*value)
                    .iter()
                    .map(|&x| convert::convert(x, src, s, *saturate, *rounding))
                    .collect()
            }
            Inst::Bitcast(a) => {
                let src_ty = f.func.ty(*a);
                let mut bytes = memory::encode(src_ty, val(*a));
                bytes.resize(self.module.size_of(src_ty) as usize, 0);
                memory::decode(ty, &bytes)
            }
            Inst::Splat(a) => Lanes::splat(val(*a).first().copied().unwrap_or(0), lanes(ty)),
            Inst::Construct(parts) => parts.iter().flat_map(|p| val(*p).iter().copied()).collect(),
            Inst::Extract(a, i) => Lanes::one(
                *val(*a)
                    .get(usize::from(*i))
                    .ok_or_else(|| bad("extract index out of range"))?,
            ),
            Inst::Insert(a, i, x) => {
                let mut out = Lanes::from(val(*a));
                let slot = out
                    .get_mut(usize::from(*i))
                    .ok_or_else(|| bad("insert index out of range"))?;
                *slot = val(*x).first().copied().unwrap_or(0);
                out
            }
            Inst::Shuffle(a, b, idx) => {
                let both: Vec<u64> = val(*a).iter().chain(val(*b)).copied().collect();
                idx.iter()
                    .map(|&i| {
                        both.get(usize::from(i))
                            .copied()
                            .ok_or_else(|| bad("shuffle index out of range"))
                    })
                    .collect::<Result<_, _>>()?
            }
            Inst::ReadVar(var) => {
                let w = lanes(ty);
                f.vars
                    .get(var.index())
                    .and_then(|x| x.get(item * w..(item + 1) * w))
                    .ok_or_else(|| bad("unknown variable"))?
                    .into()
            }
            Inst::SlotAddr(slot) => Lanes::one(
                *f.slots
                    .get(slot.index())
                    .and_then(|x| x.get(item))
                    .ok_or_else(|| bad("unknown slot"))?,
            ),
            Inst::GlobalAddr(g) => Lanes::one(
                *self
                    .globals
                    .get(g.index())
                    .ok_or_else(|| bad("unknown global"))?,
            ),
            Inst::Index(p, i) => {
                let pointee = f
                    .func
                    .ty(*p)
                    .pointee()
                    .ok_or_else(|| bad("index of a non-pointer"))?;
                let size = i64::from(self.module.size_of(pointee));
                let i =
                    scalar::int(elem(f.func.ty(*i)), val(*i).first().copied().unwrap_or(0)) as i64;
                Lanes::one(ptr(*p).add(i.wrapping_mul(size)).encode())
            }
            Inst::Field(p, n) => {
                let Some(Type::Struct(id)) = f.func.ty(*p).pointee() else {
                    return Err(bad("field of a pointer to a non-struct"));
                };
                let field = self
                    .module
                    .structs
                    .get(id.0 as usize)
                    .and_then(|s| s.fields.get(*n as usize))
                    .ok_or_else(|| bad("unknown struct field"))?;
                Lanes::one(ptr(*p).add(i64::from(field.offset)).encode())
            }
            Inst::Elem(p, i) => {
                let size = match f.func.ty(*p).pointee() {
                    Some(Type::Array(e, _)) => self.module.size_of(e),
                    Some(Type::Vector(e, _)) => e.size(),
                    _ => return Err(bad("element of a pointer to a non-array")),
                };
                let i =
                    scalar::int(elem(f.func.ty(*i)), val(*i).first().copied().unwrap_or(0)) as i64;
                Lanes::one(ptr(*p).add(i.wrapping_mul(i64::from(size))).encode())
            }
            Inst::PtrCast(p) => Lanes::one(val(*p).first().copied().unwrap_or(0)),
            Inst::PtrToInt(p) => Lanes::one(scalar::mask(s, val(*p).first().copied().unwrap_or(0))),
            // The integer is a pointer's encoding (from `PtrToInt`, moved
            // by byte arithmetic) or 0, the null pointer.
            Inst::IntToPtr(v) => Lanes::one(val(*v).first().copied().unwrap_or(0)),
            Inst::Load(p) => {
                let size = u64::from(self.module.size_of(ty));
                self.check_space(item, f.func.ty(*p), ptr(*p), size, loc)?;
                self.mem
                    .load(ptr(*p), ty, &self.module.structs)
                    .map_err(|e| self.fault(item, e, loc))?
            }
            Inst::Atomic {
                op,
                ptr: p,
                args: operands,
                ..
            } => {
                // An atomic store produces nothing: its type is the stored value's.
                let vty = match (op, operands.first()) {
                    (AtomicOp::Store, Some(v)) => f.func.ty(*v).clone(),
                    _ => ty.clone(),
                };
                let args: Vec<u64> = operands
                    .iter()
                    .map(|a| val(*a).first().copied().unwrap_or(0))
                    .collect();
                let size = u64::from(self.module.size_of(&vty));
                self.check_space(item, f.func.ty(*p), ptr(*p), size, loc)?;
                self.atomic(*op, ptr(*p), &vty, &args)
                    .map_err(|e| match e {
                        Ok(fault) => self.fault(item, fault, loc),
                        Err(msg) => self.malformed(item, msg, loc),
                    })?
            }
            Inst::WorkItem(fun, dim) => {
                let d = dim
                    .map(|d| scalar::int(elem(f.func.ty(d)), val(d).first().copied().unwrap_or(0)));
                Lanes::one(scalar::mask(s, self.work_item(*fun, d, item)))
            }
            Inst::Call(..) => return Err(bad("call evaluated per item")),
            Inst::Builtin(Builtin::Printf, args) => {
                let args: Vec<Arg<'_>> = args
                    .iter()
                    .map(|a| Arg {
                        ty: f.func.ty(*a),
                        lanes: val(*a),
                    })
                    .collect();
                let text = builtins::printf::format(&args, self.mem).map_err(|e| match e {
                    BuiltinError::Fault(fault) => self.fault(item, fault, loc),
                    BuiltinError::BadArgs(msg) => {
                        self.malformed(item, format!("`printf`: {msg}"), loc)
                    }
                    BuiltinError::Unsupported => InterpError::UnsupportedBuiltin(Builtin::Printf),
                })?;
                self.output.extend_from_slice(&text);
                Lanes::splat(0, lanes(ty))
            }
            Inst::Builtin(name, args) => {
                let args: Vec<Arg<'_>> = args
                    .iter()
                    .map(|a| Arg {
                        ty: f.func.ty(*a),
                        lanes: val(*a),
                    })
                    .collect();
                Lanes::from(
                    &builtins::call(*name, &args, ty, self.mem, &self.module.structs).map_err(
                        |e| match e {
                            BuiltinError::Unsupported => InterpError::UnsupportedBuiltin(*name),
                            BuiltinError::Fault(fault) => self.fault(item, fault, loc),
                            BuiltinError::BadArgs(msg) => {
                                self.malformed(item, format!("`{name}`: {msg}"), loc)
                            }
                        },
                    )?[..],
                )
            }
        })
    }

    /// A read-modify-write on one location. `Err(Ok(fault))` is a memory
    /// fault, `Err(Err(msg))` an operation the type does not have.
    fn atomic(
        &mut self,
        op: AtomicOp,
        p: Ptr,
        ty: &Type,
        args: &[u64],
    ) -> Result<Lanes, Result<Fault, String>> {
        let structs: &[StructDef] = &self.module.structs;
        let s = elem(ty);
        let old = self.mem.load(p, ty, structs).map_err(Ok)?;
        let o = old.first().copied().unwrap_or(0);
        let arg = |i: usize| {
            args.get(i)
                .copied()
                .ok_or_else(|| Err(format!("atomic {op:?} is missing an operand")))
        };
        let int_op = |bop: BinaryOp, x: u64| {
            arith::binary(bop, s, o, x).ok_or_else(|| Err(format!("atomic {op:?} on {s}")))
        };
        let new = match op {
            AtomicOp::Load => None,
            AtomicOp::Store | AtomicOp::Xchg => Some(arg(0)?),
            AtomicOp::Add => Some(int_op(BinaryOp::Add, arg(0)?)?),
            AtomicOp::Sub => Some(int_op(BinaryOp::Sub, arg(0)?)?),
            AtomicOp::Inc => Some(int_op(BinaryOp::Add, 1)?),
            AtomicOp::Dec => Some(int_op(BinaryOp::Sub, 1)?),
            AtomicOp::And => Some(int_op(BinaryOp::And, arg(0)?)?),
            AtomicOp::Or => Some(int_op(BinaryOp::Or, arg(0)?)?),
            AtomicOp::Xor => Some(int_op(BinaryOp::Xor, arg(0)?)?),
            AtomicOp::Min | AtomicOp::Max => {
                let x = arg(0)?;
                let lt = arith::cmp(CmpOp::Lt, s, x, o);
                Some(if lt == (op == AtomicOp::Min) { x } else { o })
            }
            AtomicOp::CmpXchg => {
                let (cmp, new) = (arg(0)?, arg(1)?);
                (o == scalar::mask(s, cmp)).then_some(new)
            }
        };
        if let Some(new) = new {
            self.mem.store(p, ty, &[new], structs).map_err(Ok)?;
        }
        Ok(if op == AtomicOp::Store {
            Lanes::EMPTY
        } else {
            old
        })
    }

    fn work_item(&self, fun: WorkItemFn, dim: Option<i128>, item: usize) -> u64 {
        let r = self.range;
        let it = self.items[item];
        let wd = i128::from(r.work_dim);
        let d = dim.filter(|&d| (0..wd).contains(&d)).map(|d| d as usize);
        let pick = |a: [u64; 3], outside: u64| d.map_or(outside, |d| a[d]);
        match fun {
            WorkItemFn::WorkDim => u64::from(r.work_dim),
            WorkItemFn::GlobalSize => pick(r.global_size, 1),
            WorkItemFn::GlobalId => pick(it.global, 0),
            WorkItemFn::LocalSize => pick(self.local_size, 1),
            WorkItemFn::EnqueuedLocalSize => pick(r.local_size, 1),
            WorkItemFn::LocalId => pick(it.local, 0),
            WorkItemFn::NumGroups => pick(self.num_groups, 1),
            WorkItemFn::GroupId => pick(self.group_id, 0),
            WorkItemFn::GlobalOffset => pick(r.global_offset, 0),
            WorkItemFn::GlobalLinearId => {
                let g = |d: usize| it.global[d].wrapping_sub(r.global_offset[d]);
                (g(2).wrapping_mul(r.global_size[1]).wrapping_add(g(1)))
                    .wrapping_mul(r.global_size[0])
                    .wrapping_add(g(0))
            }
            WorkItemFn::LocalLinearId => {
                let l = it.local;
                (l[2] * self.local_size[1] + l[1]) * self.local_size[0] + l[0]
            }
        }
    }
}

fn first(mask: &Mask) -> usize {
    mask.iter().position(|&b| b).unwrap_or(0)
}

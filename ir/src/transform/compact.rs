//! Compaction of a function after a rewrite: drops the instructions no
//! statement evaluates any more and the slots no instruction names, and
//! renumbers what is left.
//!
//! A rewrite such as [`super::sra`] stops evaluating the instructions it
//! replaced (an address computation of a slot that became variables) and
//! leaves them in the arena. The verifier wants every instruction of the
//! arena evaluated exactly once, and the code generators size private
//! memory by the slot list, so both lists are compacted here, in their
//! original order: values keep their relative numbering.
//!
//! Also here: removal of the evaluations a rewrite made dead
//! (`remove_dead`), and the operand lists of instructions and statements
//! that both need.

use crate::module::*;
use crate::text::rename::rename_block;
use std::collections::HashSet;

/// The values a statement reads itself (not those of nested blocks, and
/// not the instruction an `Eval` evaluates).
pub fn stmt_operands(s: &Stmt) -> Vec<ValueId> {
    match s {
        Stmt::WriteVar(_, v) => vec![*v],
        Stmt::Store { ptr, value, .. } => vec![*ptr, *value],
        Stmt::Copy { dst, src, .. } => vec![*dst, *src],
        Stmt::If { cond, .. } => vec![*cond],
        Stmt::Switch { selector, .. } => vec![*selector],
        Stmt::Return(Some(v)) => vec![*v],
        Stmt::Eval(_)
        | Stmt::Loop { .. }
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Return(None)
        | Stmt::Barrier(..)
        | Stmt::Fence(_) => Vec::new(),
    }
}

/// Calls `visit` on every statement of `b`, nested ones included.
pub fn walk_stmts<'a>(b: &'a Block, visit: &mut impl FnMut(&'a Stmt)) {
    for s in &b.0 {
        visit(s);
        walk_nested(s, visit);
    }
}

/// Calls `visit` on every statement nested in `s` (not on `s` itself).
pub fn walk_nested<'a>(s: &'a Stmt, visit: &mut impl FnMut(&'a Stmt)) {
    match s {
        Stmt::If { then_, else_, .. } => {
            walk_stmts(then_, visit);
            walk_stmts(else_, visit);
        }
        Stmt::Loop { body, continuing } => {
            walk_stmts(body, visit);
            walk_stmts(continuing, visit);
        }
        Stmt::Switch { cases, .. } => {
            for c in cases {
                walk_stmts(&c.body, visit);
            }
        }
        _ => {}
    }
}

/// Instructions without an effect beyond their value: an evaluation of one
/// whose value nobody reads can go.
fn is_pure(inst: &Inst) -> bool {
    !matches!(
        inst,
        Inst::Load(_) | Inst::Atomic { .. } | Inst::Call(..) | Inst::Builtin(..)
    )
}

/// Removes the evaluations of the pure instructions among `candidates`
/// that nothing reads, then of their operands that this leaves unread, and
/// so on.
pub(crate) fn remove_dead(f: &mut Function, candidates: impl IntoIterator<Item = ValueId>) {
    let mut uses = vec![0u32; f.insts.len()];
    let mut evaluated = vec![false; f.insts.len()];
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Eval(v) = s {
            if let Some(e) = evaluated.get_mut(v.index()) {
                *e = true;
            }
        }
        for v in stmt_operands(s) {
            if let Some(u) = uses.get_mut(v.index()) {
                *u += 1;
            }
        }
    });
    for (i, d) in f.insts.iter().enumerate() {
        if evaluated[i] {
            for v in d.inst.operands() {
                if let Some(u) = uses.get_mut(v.index()) {
                    *u += 1;
                }
            }
        }
    }
    let mut dead = HashSet::new();
    let mut work: Vec<ValueId> = candidates.into_iter().collect();
    while let Some(v) = work.pop() {
        let i = v.index();
        if i >= f.insts.len() || !evaluated[i] || uses[i] > 0 || !is_pure(&f.insts[i].inst) {
            continue;
        }
        evaluated[i] = false;
        dead.insert(v);
        for o in f.insts[i].inst.operands() {
            if let Some(u) = uses.get_mut(o.index()) {
                *u = u.saturating_sub(1);
                work.push(o);
            }
        }
    }
    if !dead.is_empty() {
        drop_evals(&mut f.body, &dead);
    }
}

fn drop_evals(b: &mut Block, dead: &HashSet<ValueId>) {
    b.0.retain(|s| !matches!(s, Stmt::Eval(v) if dead.contains(v)));
    for s in &mut b.0 {
        match s {
            Stmt::If { then_, else_, .. } => {
                drop_evals(then_, dead);
                drop_evals(else_, dead);
            }
            Stmt::Loop { body, continuing } => {
                drop_evals(body, dead);
                drop_evals(continuing, dead);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    drop_evals(&mut c.body, dead);
                }
            }
            _ => {}
        }
    }
}

/// Drops the instructions no statement evaluates (an inliner's replaced
/// calls of `void` functions, say), renumbering the rest in the order the
/// body evaluates them.
pub fn drop_unevaluated(f: &mut Function) {
    compact(f, &HashSet::new());
}

/// Drops the instructions no statement evaluates and the slots in
/// `dropped_slots`, renumbering the rest: values in the order the body
/// evaluates them (as the front end numbers them, so printed text reads
/// top to bottom), slots in their original order. The caller guarantees
/// that no evaluated instruction names a dropped slot or reads a dropped
/// value.
pub(crate) fn compact(f: &mut Function, dropped_slots: &HashSet<SlotId>) {
    let mut order = Vec::new();
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Eval(v) = s {
            order.push(*v);
        }
    });
    let mut new_id = vec![ValueId(u32::MAX); f.insts.len()];
    for (n, v) in order.iter().enumerate() {
        if let Some(id) = new_id.get_mut(v.index()) {
            *id = ValueId(n as u32);
        }
    }
    let mut slot_id = vec![SlotId(u32::MAX); f.slots.len()];
    let mut next_slot = 0u32;
    for (i, id) in slot_id.iter_mut().enumerate() {
        if !dropped_slots.contains(&SlotId(i as u32)) {
            *id = SlotId(next_slot);
            next_slot += 1;
        }
    }
    let map = |v: ValueId| new_id.get(v.index()).copied().unwrap_or(v);
    let mut old: Vec<Option<InstData>> =
        std::mem::take(&mut f.insts).into_iter().map(Some).collect();
    f.insts = order
        .iter()
        .filter_map(|v| old.get_mut(v.index()).and_then(Option::take))
        .map(|mut d| {
            d.inst.operands_mut().for_each(|v| *v = map(*v));
            if let Inst::SlotAddr(s) = &mut d.inst {
                *s = slot_id.get(s.index()).copied().unwrap_or(*s);
            }
            d
        })
        .collect();
    rename_block(&mut f.body, &|v| *v = map(*v));
    let slots = std::mem::take(&mut f.slots);
    f.slots = slots
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dropped_slots.contains(&SlotId(*i as u32)))
        .map(|(_, s)| s)
        .collect();
}

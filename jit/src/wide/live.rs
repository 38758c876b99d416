//! The values of a kernel the wide lowering computes: those a statement
//! reads (a store, a branch's condition…), the values of instructions
//! with an effect or that may fail (loads, atomics, calls), the values
//! written to a variable that such a value reads, and the operands of
//! those, transitively. The rest (after the
//! middle passes, typically the products the front end's contractions
//! left behind, `a * b` beside `fma(a, b, c)`) would cost an instruction
//! per chunk each: the Cranelift code's own dead-code elimination removes
//! them, the wide code's lowering skips them.

use vecl_ir::{Block, Function, Inst, Stmt, ValueId};

/// Whether the instruction may be left out when its value is not used:
/// no effect and no failure (pure builtins included, whether the wide
/// code computes them or not: an unused one is not refused).
fn droppable(inst: &Inst) -> bool {
    inst.depends_only_on_operands()
        || matches!(
            inst,
            Inst::Const(_) | Inst::Undef | Inst::Param(_) | Inst::ReadVar(_) | Inst::WorkItem(..)
        )
        || matches!(inst, Inst::Builtin(b, _) if b.is_pure())
}

/// What the lowering of a kernel computes.
#[derive(Clone, Debug)]
pub struct Needed {
    /// Per value: computed.
    pub values: Vec<bool>,
    /// Per variable: read by a computed value (the others are neither
    /// given a register nor written).
    pub vars: Vec<bool>,
}

/// What the lowering of `func` must compute.
pub fn needed(func: &Function) -> Needed {
    let mut live = vec![false; func.insts.len()];
    let mut work = Vec::new();
    let mut writes: Vec<Vec<ValueId>> = vec![Vec::new(); func.vars.len()];
    roots(func, &func.body, &mut work, &mut writes);
    let mut read = vec![false; func.vars.len()];
    while let Some(v) = work.pop() {
        if std::mem::replace(&mut live[v.index()], true) {
            continue;
        }
        let inst = &func.inst(v).inst;
        if let Inst::ReadVar(var) = inst {
            if !std::mem::replace(&mut read[var.index()], true) {
                work.extend(writes[var.index()].iter().copied());
            }
        }
        work.extend(inst.operands());
    }
    Needed {
        values: live,
        vars: read,
    }
}

/// The values `b` needs whatever else is used (into `out`), and the
/// values written to each variable (into `writes`).
fn roots(func: &Function, b: &Block, out: &mut Vec<ValueId>, writes: &mut [Vec<ValueId>]) {
    for s in &b.0 {
        match s {
            Stmt::Eval(v) => {
                if !droppable(&func.inst(*v).inst) {
                    out.push(*v);
                }
            }
            Stmt::WriteVar(var, v) => writes[var.index()].push(*v),
            Stmt::Return(Some(v)) => out.push(*v),
            Stmt::Store { ptr, value, .. } => out.extend([*ptr, *value]),
            Stmt::Copy { dst, src, .. } => out.extend([*dst, *src]),
            Stmt::If { cond, then_, else_ } => {
                out.push(*cond);
                roots(func, then_, out, writes);
                roots(func, else_, out, writes);
            }
            Stmt::Loop { body, continuing } => {
                roots(func, body, out, writes);
                roots(func, continuing, out, writes);
            }
            Stmt::Switch { selector, cases } => {
                out.push(*selector);
                for c in cases {
                    roots(func, &c.body, out, writes);
                }
            }
            Stmt::Break
            | Stmt::Continue
            | Stmt::Return(None)
            | Stmt::Barrier(..)
            | Stmt::Fence(_) => {}
        }
    }
}

//! Renaming of values across a function's instructions and statements.
//!
//! The parser gives named values (`%gid`) provisional numbers while it
//! reads a function and their arena indices at its end; these walks apply
//! that change to every operand. `transform::compact` renumbers values
//! with the same walks.

use crate::module::{Block, Inst, Stmt, ValueId};

/// Applies `f` to every value operand of `inst`.
pub(crate) fn rename_inst(inst: &mut Inst, f: &impl Fn(&mut ValueId)) {
    match inst {
        Inst::Param(_)
        | Inst::Const(_)
        | Inst::Undef
        | Inst::ReadVar(_)
        | Inst::SlotAddr(_)
        | Inst::GlobalAddr(_)
        | Inst::WorkItem(_, None) => {}
        Inst::Unary(_, a)
        | Inst::Convert { value: a, .. }
        | Inst::Bitcast(a)
        | Inst::Splat(a)
        | Inst::Extract(a, _)
        | Inst::Field(a, _)
        | Inst::PtrCast(a)
        | Inst::PtrToInt(a)
        | Inst::IntToPtr(a)
        | Inst::Load(a)
        | Inst::WorkItem(_, Some(a)) => f(a),
        Inst::Binary(_, a, b)
        | Inst::Cmp(_, a, b)
        | Inst::Insert(a, _, b)
        | Inst::Shuffle(a, b, _)
        | Inst::Index(a, b)
        | Inst::Elem(a, b) => {
            f(a);
            f(b);
        }
        Inst::Select(c, a, b) => {
            f(c);
            f(a);
            f(b);
        }
        Inst::Construct(vs) | Inst::Call(_, vs) | Inst::Builtin(_, vs) => vs.iter_mut().for_each(f),
        Inst::Atomic { ptr, args, .. } => {
            f(ptr);
            args.iter_mut().for_each(f);
        }
    }
}

/// Applies `f` to every value operand of the statements of `block`,
/// nested blocks included.
pub(crate) fn rename_block(block: &mut Block, f: &impl Fn(&mut ValueId)) {
    for s in &mut block.0 {
        match s {
            Stmt::Eval(v) | Stmt::WriteVar(_, v) | Stmt::Return(Some(v)) => f(v),
            Stmt::Store {
                ptr: a, value: b, ..
            }
            | Stmt::Copy { dst: a, src: b, .. } => {
                f(a);
                f(b);
            }
            Stmt::If { cond, then_, else_ } => {
                f(cond);
                rename_block(then_, f);
                rename_block(else_, f);
            }
            Stmt::Loop { body, continuing } => {
                rename_block(body, f);
                rename_block(continuing, f);
            }
            Stmt::Switch { selector, cases } => {
                f(selector);
                for c in cases {
                    rename_block(&mut c.body, f);
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

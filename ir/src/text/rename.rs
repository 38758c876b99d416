//! Renaming of values across a function's instructions and statements.
//!
//! The parser gives named values (`%gid`) provisional numbers while it
//! reads a function and their arena indices at its end; this walk applies
//! that change to every operand of the statements, and
//! [`Inst::operands_mut`](crate::Inst::operands_mut) to those of the
//! instructions. `transform::compact` renumbers values the same way.

use crate::module::{Block, Stmt, ValueId};

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

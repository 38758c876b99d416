//! The IR text form: a printer and a parser that agree exactly.
//!
//! `parse_module(&print_module(m)) == Ok(m)` for every module (arena
//! indices included), and printing the parse of canonical text gives the
//! same text back. The grammar is described in `docs/ir-text.md`; in short:
//!
//! ```text
//! kernel @scale(a: ptr global f32, k: f32)
//!   args ["float*" global, "float" private] {
//!   %0: ptr global f32 = param 0
//!   %1: f32 = param 1
//!   %2: u32 = const 0
//!   %3: u64 = work_item global_id %2
//!   %4: ptr global f32 = index %0, %3
//!   %5: f32 = load %4 at 3:14
//!   %6: f32 = mul %5, %1
//!   store %4, %6
//! }
//! ```
//!
//! Values may be named in hand-written text (`%gid` instead of `%3`); they
//! are numbered after the numbered ones, in definition order.
//!
//! Parse errors carry the line and column of the offending token and never
//! panic, whatever the input.

mod lexer;
mod literal;
mod parse;
mod print;
pub(crate) mod rename;

pub use parse::{parse_module, MAX_DEPTH};
pub use print::{default_args, print_module, print_type};

/// A parse error at a 1-based line and column. Displays as `line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl ParseError {
    /// The error for people: `file:line:col: message`, then the source
    /// line and a caret under the column.
    pub fn render(&self, src: &str, file: &str) -> String {
        let mut out = format!("{file}:{self}\n");
        let Some(line) = src.split('\n').nth(self.line.saturating_sub(1) as usize) else {
            return out;
        };
        let line = line.trim_end_matches('\r');
        out.push_str(line);
        out.push('\n');
        // Keep tabs so the caret lines up under them.
        for c in line.chars().take(self.col.saturating_sub(1) as usize) {
            out.push(if c == '\t' { '\t' } else { ' ' });
        }
        out.push_str("^\n");
        out
    }
}

//! A function body as a control-flow graph: the unstructured form that
//! front ends with `goto` (OpenCL C) or with arbitrary branches (SPIR-V)
//! build, and that [`crate::transform::structurize`] turns into the IR's
//! structured statements.
//!
//! A [`Cfg`] belongs to a [`Function`](crate::Function) whose arenas
//! (instructions, variables, slots) it shares; the function's `body` is
//! replaced by the structurizer. Each [`BasicBlock`] holds ordinary IR
//! statements followed by one [`Terminator`]. The statements may nest
//! structured `if`/`loop`/`switch` (what `&&`, `?:` or a statement
//! expression lower to), but control leaves a block only through its
//! terminator:
//! - no `return` among the statements, and no `break`/`continue` outside a
//!   `loop` or `switch` nested in them;
//! - a value evaluated in one block may be used in another block that it
//!   dominates (the structurizer passes such values through a variable where
//!   the structured form would not let the use see the definition);
//! - block 0 is the entry.
//!
//! The text form ([`text`]) is the IR text form with labelled blocks and
//! `br`/`br_if`/`br_table` terminators; the structurizer's tests are
//! written in it.

pub mod text;

use crate::module::{Block, Loc, ValueId};

/// A basic block of a [`Cfg`]: an index into [`Cfg::blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The entry block.
    pub const ENTRY: BlockId = BlockId(0);

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How control leaves a basic block.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    /// Go to the block.
    Jump(BlockId),
    /// `cond` (a scalar `bool`) true: `then_`, false: `else_`.
    Branch {
        cond: ValueId,
        then_: BlockId,
        else_: BlockId,
    },
    /// Go to the block of the case whose value equals `selector` (an
    /// integer), or to `default`. Values are compared after truncation to
    /// the selector's type, as the IR's `switch` does.
    Switch {
        selector: ValueId,
        cases: Vec<(i64, BlockId)>,
        default: BlockId,
    },
    /// Leave the function.
    Return(Option<ValueId>),
}

impl Terminator {
    /// The blocks control may go to, once per edge (a block named twice is
    /// listed twice), in the terminator's order.
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Jump(t) => vec![*t],
            Terminator::Branch { then_, else_, .. } => vec![*then_, *else_],
            Terminator::Switch { cases, default, .. } => cases
                .iter()
                .map(|(_, b)| *b)
                .chain(std::iter::once(*default))
                .collect(),
            Terminator::Return(_) => Vec::new(),
        }
    }

    /// The value the terminator reads, if any.
    pub fn operand(&self) -> Option<ValueId> {
        match self {
            Terminator::Jump(_) | Terminator::Return(None) => None,
            Terminator::Branch { cond: v, .. }
            | Terminator::Switch { selector: v, .. }
            | Terminator::Return(Some(v)) => Some(*v),
        }
    }

    pub(crate) fn operand_mut(&mut self) -> Option<&mut ValueId> {
        match self {
            Terminator::Jump(_) | Terminator::Return(None) => None,
            Terminator::Branch { cond: v, .. }
            | Terminator::Switch { selector: v, .. }
            | Terminator::Return(Some(v)) => Some(v),
        }
    }
}

/// A basic block: statements, then a terminator.
#[derive(Clone, Debug, PartialEq)]
pub struct BasicBlock {
    /// For diagnostics and generated variable names: the source label, or
    /// a name the front end made up (`for.head`).
    pub name: String,
    /// Where the block starts in the source (its label), when known.
    pub loc: Loc,
    pub stmts: Block,
    pub term: Terminator,
}

/// A function body as basic blocks; block 0 is the entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cfg {
    pub blocks: Vec<BasicBlock>,
}

impl Cfg {
    /// Appends an empty block that returns; the caller fills it in.
    pub fn add_block(&mut self, name: impl Into<String>, loc: Loc) -> BlockId {
        self.blocks.push(BasicBlock {
            name: name.into(),
            loc,
            stmts: Block::default(),
            term: Terminator::Return(None),
        });
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub fn block(&self, b: BlockId) -> &BasicBlock {
        &self.blocks[b.index()]
    }

    pub fn block_mut(&mut self, b: BlockId) -> &mut BasicBlock {
        &mut self.blocks[b.index()]
    }
}

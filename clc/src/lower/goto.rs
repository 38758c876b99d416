//! Lowering a function that uses `goto` or labels: its statements become
//! a control-flow graph ([`vecl_ir::cfg::Cfg`]) of basic blocks, which
//! [`vecl_ir::transform::structurize`] turns into structured IR.
//!
//! Only such functions take this path; the others are lowered directly to
//! structured statements (`stmt.rs`), so their IR does not change.
//! Expressions are lowered as everywhere else, into the builder's current
//! block, which holds the statements of the current basic block; control
//! statements end it with a terminator. Each label is a block; a `goto`
//! jumps to it, whether the label comes before or after. Code after a jump
//! goes to a fresh block nothing reaches, which the structurizer drops.
//! Scopes are the same as in the structured lowering: a jump into a block
//! past a declaration skips its initialisation, as in C (the variable's
//! value is then unspecified). Statement expressions are lowered
//! structured inside a function like this too, without `goto` or labels.

use super::{to_loc, LResult, Lowerer};
use crate::ast::*;
use crate::diag::Pos;
use crate::parser::Reported;
use rustc_hash::FxHashMap as HashMap;
use vecl_ir::cfg::{BlockId, Cfg, Terminator};
use vecl_ir::*;

/// A label: its block, where it is defined and where it is first used.
struct Label {
    block: BlockId,
    defined: Option<Pos>,
    first_use: Option<Pos>,
}

/// The graph being built for one function.
pub(super) struct CfgCx {
    cfg: Cfg,
    /// The block the builder's current block is the statements of.
    current: BlockId,
    labels: HashMap<String, Label>,
    /// Where each block starts in the source, for the structurizer's errors.
    pos: HashMap<BlockId, Pos>,
    /// Where `break` and `continue` go, innermost last.
    targets: Vec<(BlockId, Option<BlockId>)>,
}

/// Whether the statements use `goto` or a label (outside statement
/// expressions, which are lowered structured).
pub(super) fn uses_goto(stmts: &[Statement]) -> bool {
    stmts.iter().any(|s| match s {
        Statement::Goto(..) | Statement::Label(..) => true,
        Statement::Block(items) => uses_goto(items),
        Statement::If(_, t, e) => {
            uses_goto(std::slice::from_ref(t))
                || e.as_deref()
                    .is_some_and(|e| uses_goto(std::slice::from_ref(e)))
        }
        Statement::While(_, b) | Statement::DoWhile(b, _) | Statement::Switch(_, b) => {
            uses_goto(std::slice::from_ref(b))
        }
        Statement::For(i, _, _, b) => {
            i.as_deref()
                .is_some_and(|i| uses_goto(std::slice::from_ref(i)))
                || uses_goto(std::slice::from_ref(b))
        }
        _ => false,
    })
}

impl Lowerer<'_> {
    fn g(&mut self) -> &mut CfgCx {
        self.cx().cfg.as_mut().expect("lowering a goto function")
    }

    /// Starts the graph: what the builder holds so far (the parameters) is
    /// the entry block, which goes on to the body's first block.
    pub(super) fn begin_cfg(&mut self) {
        let mut cfg = Cfg::default();
        let entry = cfg.add_block("fn.entry", Loc::NONE);
        let body = cfg.add_block("fn.body", Loc::NONE);
        cfg.block_mut(entry).term = Terminator::Jump(body);
        self.cx().cfg = Some(CfgCx {
            cfg,
            current: body,
            labels: HashMap::default(),
            pos: HashMap::default(),
            targets: Vec::new(),
        });
        self.b().begin_block();
    }

    /// Ends the body (falling off its end returns, an unspecified value
    /// for a non-void function), checks the labels and returns the graph
    /// without its entry block's statements, which the builder keeps.
    pub(super) fn end_cfg(&mut self, end: Pos) -> Option<(Cfg, HashMap<BlockId, Pos>)> {
        let ret = self.b().func().ret.clone();
        let v = (ret != Type::Void).then(|| {
            self.b().set_loc(to_loc(end));
            self.b().push(Inst::Undef, ret)
        });
        let dead = self.new_block("fn.end", None);
        self.close(Terminator::Return(v), dead);
        self.b().end_block();
        let g = self.cx().cfg.take()?;
        let mut undefined: Vec<(Pos, String)> = g
            .labels
            .iter()
            .filter(|(_, l)| l.defined.is_none())
            .filter_map(|(n, l)| Some((l.first_use?, n.clone())))
            .collect();
        undefined.sort_by_key(|(p, _)| (p.file, p.line, p.col));
        for (pos, name) in undefined {
            self.diags
                .error(pos, format!("use of undeclared label '{name}'"));
        }
        Some((g.cfg, g.pos))
    }

    fn new_block(&mut self, name: &str, pos: Option<Pos>) -> BlockId {
        let g = self.g();
        let b = g.cfg.add_block(name, pos.map(to_loc).unwrap_or(Loc::NONE));
        if let Some(p) = pos {
            g.pos.insert(b, p);
        }
        b
    }

    /// Ends the current block with `term` and goes on in `next`.
    fn close(&mut self, term: Terminator, next: BlockId) {
        let stmts = self.b().end_block();
        let g = self.g();
        let block = g.cfg.block_mut(g.current);
        block.stmts = stmts;
        block.term = term;
        g.current = next;
        self.b().begin_block();
    }

    /// Jumps to `target`; what follows is unreachable until a label.
    fn jump_away(&mut self, term: Terminator) {
        let dead = self.new_block("dead.code", None);
        self.close(term, dead);
    }

    fn label_block(&mut self, name: &str, pos: Pos) -> BlockId {
        if let Some(l) = self.g().labels.get(name) {
            return l.block;
        }
        let block = self.new_block(name, Some(pos));
        self.g().labels.insert(
            name.to_string(),
            Label {
                block,
                defined: None,
                first_use: None,
            },
        );
        block
    }

    /// `return` in a goto function: the return terminator.
    pub(super) fn cfg_return(&mut self, v: Option<ValueId>) {
        self.jump_away(Terminator::Return(v));
    }

    /// Lowers a control statement into the graph; `None` for the
    /// statements lowered as in a structured function.
    pub(super) fn cfg_stmt(&mut self, s: &Statement) -> Option<LResult<()>> {
        Some(match s {
            Statement::Goto(name, pos) => {
                let b = self.label_block(name, *pos);
                if let Some(l) = self.g().labels.get_mut(name) {
                    l.first_use.get_or_insert(*pos);
                }
                self.jump_away(Terminator::Jump(b));
                Ok(())
            }
            Statement::Label(name, pos, s) => {
                let b = self.label_block(name, *pos);
                let g = self.g();
                let Some(l) = g.labels.get_mut(name) else {
                    return Some(Err(Reported));
                };
                if l.defined.is_some() {
                    return Some(self.err(*pos, format!("redefinition of label '{name}'")));
                }
                l.defined = Some(*pos);
                g.pos.insert(b, *pos);
                g.cfg.block_mut(b).loc = to_loc(*pos);
                self.close(Terminator::Jump(b), b);
                self.stmt(s)
            }
            Statement::If(c, t, e) => {
                let cond = self.condition(c);
                let then_ = self.new_block("if.then", Some(c.pos));
                let join = self.new_block("if.end", None);
                let else_ = match e {
                    Some(_) => self.new_block("if.else", None),
                    None => join,
                };
                self.branch(cond.as_ref().ok().copied(), then_, else_);
                let rt = self.scoped(t);
                self.close(Terminator::Jump(join), else_);
                let re = match e {
                    Some(e) => {
                        let r = self.scoped(e);
                        self.close(Terminator::Jump(join), join);
                        r
                    }
                    None => Ok(()),
                };
                cond.and(rt).and(re)
            }
            Statement::While(c, body) => {
                let head = self.new_block("while.head", Some(c.pos));
                let inside = self.new_block("while.body", None);
                let exit = self.new_block("while.end", None);
                self.close(Terminator::Jump(head), head);
                let cond = self.condition(c);
                self.branch(cond.as_ref().ok().copied(), inside, exit);
                let rb = self.loop_body(body, exit, head);
                self.close(Terminator::Jump(head), exit);
                cond.and(rb)
            }
            Statement::DoWhile(body, c) => {
                let inside = self.new_block("do.body", None);
                let test = self.new_block("do.test", Some(c.pos));
                let exit = self.new_block("do.end", None);
                self.close(Terminator::Jump(inside), inside);
                let rb = self.loop_body(body, exit, test);
                self.close(Terminator::Jump(test), test);
                let cond = self.condition(c);
                let term = match cond {
                    Ok(cond) => Terminator::Branch {
                        cond,
                        then_: inside,
                        else_: exit,
                    },
                    Err(_) => Terminator::Jump(exit),
                };
                self.close(term, exit);
                rb.and(cond.map(|_| ()))
            }
            Statement::For(init, c, step, body) => {
                self.push_scope();
                let r = (|| {
                    if let Some(i) = init {
                        self.stmt(i)?;
                    }
                    let head = self.new_block("for.head", c.as_ref().map(|c| c.pos));
                    let inside = self.new_block("for.body", None);
                    let next = self.new_block("for.step", step.as_ref().map(|s| s.pos));
                    let exit = self.new_block("for.end", None);
                    self.close(Terminator::Jump(head), head);
                    let cond = match c {
                        Some(c) => {
                            let cond = self.condition(c);
                            self.branch(cond.as_ref().ok().copied(), inside, exit);
                            cond.map(|_| ())
                        }
                        None => {
                            self.close(Terminator::Jump(inside), inside);
                            Ok(())
                        }
                    };
                    let rb = self.loop_body(body, exit, next);
                    self.close(Terminator::Jump(next), next);
                    let rs = match step {
                        Some(st) => self.expr(st).map(|_| ()),
                        None => Ok(()),
                    };
                    self.close(Terminator::Jump(head), exit);
                    cond.and(rb).and(rs)
                })();
                self.pop_scope();
                r
            }
            Statement::Switch(sel, body) => self.cfg_switch(sel, body),
            Statement::Break(pos) => match self.g().targets.last() {
                Some(&(exit, _)) => {
                    self.jump_away(Terminator::Jump(exit));
                    Ok(())
                }
                None => self.err(*pos, "'break' statement not in loop or switch statement"),
            },
            Statement::Continue(pos) => match self.g().targets.last() {
                Some(&(_, Some(next))) => {
                    self.jump_away(Terminator::Jump(next));
                    Ok(())
                }
                _ => self.err(*pos, "'continue' statement not in loop statement"),
            },
            _ => return None,
        })
    }

    /// `if (cond) then_ else else_`, and on in `then_`; a condition that
    /// failed to lower goes to `else_` (the build fails anyway).
    fn branch(&mut self, cond: Option<ValueId>, then_: BlockId, else_: BlockId) {
        let term = match cond {
            Some(cond) => Terminator::Branch { cond, then_, else_ },
            None => Terminator::Jump(else_),
        };
        self.close(term, then_);
    }

    fn scoped(&mut self, s: &Statement) -> LResult<()> {
        self.push_scope();
        let r = self.stmt(s);
        self.pop_scope();
        r
    }

    /// A loop body, with `break` going to `exit` and `continue` to `next`.
    fn loop_body(&mut self, body: &Statement, exit: BlockId, next: BlockId) -> LResult<()> {
        self.g().targets.push((exit, Some(next)));
        let r = self.scoped(body);
        self.g().targets.pop();
        r
    }

    /// `switch`: the selector's block ends in a multiway branch to the
    /// blocks of the top-level `case`/`default` labels, which fall through
    /// into each other as in C; `break` goes to the end.
    fn cfg_switch(&mut self, sel: &Expr, body: &Statement) -> LResult<()> {
        let selector = self.switch_selector(sel);
        let items: &[Statement] = match body {
            Statement::Block(items) => items,
            other => std::slice::from_ref(other),
        };
        let exit = self.new_block("switch.end", None);
        // The labels first: the branch names them all.
        let mut cases = Vec::new();
        let mut default = None;
        let mut label_blocks = Vec::new();
        let mut failed = false;
        for s in items {
            let (value, pos) = match s {
                Statement::Case(e, pos) => (Some(self.const_int(e)), *pos),
                Statement::Default(pos) => (None, *pos),
                _ => continue,
            };
            let b = self.new_block("switch.case", Some(pos));
            label_blocks.push(b);
            match value {
                Some(Ok(v)) => {
                    let v = match &selector {
                        Ok((_, t)) => super::stmt::truncate_to(v, t),
                        Err(_) => v,
                    };
                    if cases.iter().any(|(x, _)| *x == v) {
                        self.diags.error(pos, format!("duplicate case value '{v}'"));
                        failed = true;
                    }
                    cases.push((v, b));
                }
                Some(Err(_)) => failed = true,
                None => {
                    if default.is_some() {
                        self.diags
                            .error(pos, "multiple default labels in one switch");
                        failed = true;
                    }
                    default = Some(b);
                }
            }
        }
        let first = self.new_block("switch.unreachable", None);
        let term = match &selector {
            Ok((v, _)) => Terminator::Switch {
                selector: *v,
                cases,
                default: default.unwrap_or(exit),
            },
            Err(_) => Terminator::Jump(exit),
        };
        self.close(term, first);
        let cont = self.g().targets.last().and_then(|t| t.1);
        self.g().targets.push((exit, cont));
        self.push_scope();
        let mut labels = label_blocks.into_iter();
        let mut before_first = true;
        for s in items {
            match s {
                Statement::Case(..) | Statement::Default(_) => {
                    before_first = false;
                    if let Some(b) = labels.next() {
                        self.close(Terminator::Jump(b), b);
                    }
                }
                other => {
                    if before_first {
                        if let Some(p) = first_pos(other) {
                            self.diags.warning(
                                p,
                                "code before the first case label of a switch is never executed",
                            );
                        }
                        before_first = false;
                    }
                    if self.stmt(other).is_err() {
                        failed = true;
                    }
                }
            }
        }
        self.pop_scope();
        self.g().targets.pop();
        self.close(Terminator::Jump(exit), exit);
        selector?;
        if failed {
            return Err(Reported);
        }
        Ok(())
    }

    /// Turns the graph into the structured body of `func`, whose entry
    /// block's statements are `func.body` now.
    pub(super) fn structure(
        &mut self,
        func: &mut Function,
        mut cfg: Cfg,
        pos: &HashMap<BlockId, Pos>,
        fn_pos: Pos,
    ) {
        cfg.block_mut(BlockId::ENTRY).stmts = std::mem::take(&mut func.body);
        if let Err(e) = vecl_ir::transform::structurize::structurize(func, cfg) {
            let at = pos.get(&e.block).copied().unwrap_or(fn_pos);
            let what = if e.message.starts_with("irreducible") {
                // Generated blocks have a '.' in their names, labels cannot.
                let label = if e.name.contains('.') {
                    String::new()
                } else {
                    format!(" through label '{}'", e.name)
                };
                format!("irreducible control flow{label}: a loop that 'goto' can enter at more than one point is not supported by vecl (every loop needs a single entry)")
            } else {
                format!("internal error lowering 'goto': {e}")
            };
            self.diags.error(at, what);
        }
    }
}

/// Where a statement starts, when the syntax tree records it.
fn first_pos(s: &Statement) -> Option<Pos> {
    match s {
        Statement::Expr(e)
        | Statement::If(e, ..)
        | Statement::While(e, _)
        | Statement::Switch(e, _) => Some(e.pos),
        Statement::Decl(d) => Some(d.pos),
        Statement::Break(p)
        | Statement::Continue(p)
        | Statement::Return(_, p)
        | Statement::Goto(_, p)
        | Statement::Label(_, p, _) => Some(*p),
        Statement::Block(items) => items.iter().find_map(first_pos),
        _ => None,
    }
}

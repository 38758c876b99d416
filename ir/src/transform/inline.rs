//! Inlines every call of a kernel, so the vectoriser sees one function.
//!
//! Calls are inlined at the IR level, before the uniformity analysis, so a
//! callee's values get the uniformity of their call site. A callee whose
//! only `return` ends its body is spliced in as it is, the `return v`
//! becoming `$ret = v`. Any other callee body becomes a one-iteration loop:
//! `return v` turns into `$ret = v; $done = true; break`, and after every
//! loop or switch of the callee that contains a `return`, `if ($done)
//! break;` carries the exit outwards. The call's value becomes a read of
//! `$ret`. The flags are ordinary variables, so a `return` taken by some
//! lanes only is masked like any other divergent `break`.
//!
//! Most helpers return only at their end, and a loop costs more than its
//! test: code generation leaves an unreachable back edge after the final
//! `break`, on which every variable is undefined, so Cranelift carries
//! every variable live across the call as a block parameter of the loop
//! header.
//!
//! Inlining gathers every callee's variables and slots into the kernel;
//! the passes after it in [`crate::transform::pipeline`] clean up behind
//! it: `sra` turns the gathered slots into variables, `define-at-entry`
//! gives the new variables one definition at the top.

use crate::*;
use std::collections::HashMap;

const MAX_DEPTH: u32 = 64;

/// A copy of `kernel` with every `Call` replaced by the callee's body
/// (and the calls' instructions, no longer evaluated, removed); an error
/// names a call of an unknown function or calls nested too deep
/// (recursion).
pub fn inline_calls(module: &Module, kernel: &Function) -> Result<Function, String> {
    let mut f = kernel.clone();
    inline_into(module, &mut f, 0)?;
    crate::transform::compact::drop_unevaluated(&mut f);
    Ok(f)
}

fn inline_into(module: &Module, f: &mut Function, depth: u32) -> Result<(), String> {
    if !f.insts.iter().any(|d| matches!(d.inst, Inst::Call(..))) {
        return Ok(());
    }
    if depth > MAX_DEPTH {
        return Err(format!(
            "call depth above {MAX_DEPTH} (recursion?) in `{}`",
            f.name
        ));
    }
    let body = std::mem::take(&mut f.body);
    f.body = rewrite_block(module, f, body, depth)?;
    Ok(())
}

fn rewrite_block(
    module: &Module,
    f: &mut Function,
    block: Block,
    depth: u32,
) -> Result<Block, String> {
    let mut out = Vec::with_capacity(block.0.len());
    for s in block.0 {
        match s {
            Stmt::Eval(v) => {
                if let Inst::Call(callee, args) = f.inst(v).inst.clone() {
                    let callee_fn = module
                        .functions
                        .get(callee.index())
                        .ok_or_else(|| format!("call of an unknown function #{}", callee.0))?;
                    let mut callee_copy = callee_fn.clone();
                    inline_into(module, &mut callee_copy, depth + 1)?;
                    let ret = splice(f, &callee_copy, &args, &mut out);
                    match ret {
                        Some(var) => f.insts[v.index()].inst = Inst::ReadVar(var),
                        // Nothing reads a `void` call: it is no longer
                        // evaluated, and `drop_unevaluated` removes it.
                        None => continue,
                    }
                }
                out.push(Stmt::Eval(v));
            }
            Stmt::If { cond, then_, else_ } => out.push(Stmt::If {
                cond,
                then_: rewrite_block(module, f, then_, depth)?,
                else_: rewrite_block(module, f, else_, depth)?,
            }),
            Stmt::Loop { body, continuing } => out.push(Stmt::Loop {
                body: rewrite_block(module, f, body, depth)?,
                continuing: rewrite_block(module, f, continuing, depth)?,
            }),
            Stmt::Switch { selector, cases } => {
                let mut new_cases = Vec::with_capacity(cases.len());
                for c in cases {
                    new_cases.push(SwitchCase {
                        values: c.values,
                        is_default: c.is_default,
                        body: rewrite_block(module, f, c.body, depth)?,
                    });
                }
                out.push(Stmt::Switch {
                    selector,
                    cases: new_cases,
                });
            }
            other => out.push(other),
        }
    }
    Ok(Block(out))
}

/// Renumbering of one callee copy into the caller.
struct Splice<'a> {
    values: HashMap<ValueId, ValueId>,
    var_base: u32,
    slot_base: u32,
    ret: Option<VarId>,
    /// The exit flag; `None` when the callee returns only at its end and
    /// is spliced without a loop.
    done: Option<VarId>,
    callee: &'a Function,
    /// Parameters below this index are bound to arguments.
    nargs: u32,
}

/// Appends the callee's body (as a one-iteration loop) to `out`; returns the
/// variable holding the result, if any.
fn splice(
    f: &mut Function,
    callee: &Function,
    args: &[ValueId],
    out: &mut Vec<Stmt>,
) -> Option<VarId> {
    let var_base = f.vars.len() as u32;
    let slot_base = f.slots.len() as u32;
    f.vars.extend(callee.vars.iter().cloned());
    f.slots.extend(callee.slots.iter().cloned());
    let ret = (!callee.ret.is_void()).then(|| {
        f.vars.push(Var {
            name: format!("{}.ret", callee.name),
            ty: callee.ret.clone(),
        });
        VarId(f.vars.len() as u32 - 1)
    });
    let tail_only = match callee.body.0.split_last() {
        Some((Stmt::Return(_), rest)) => !contains_return(&Block(rest.to_vec())),
        _ => !contains_return(&callee.body),
    };
    let done = (!tail_only).then(|| {
        f.vars.push(Var {
            name: format!("{}.done", callee.name),
            ty: Type::BOOL,
        });
        VarId(f.vars.len() as u32 - 1)
    });
    let mut sp = Splice {
        values: HashMap::new(),
        var_base,
        slot_base,
        ret,
        done,
        callee,
        nargs: args.len() as u32,
    };
    // Parameters are the arguments; every other instruction is copied.
    for (i, data) in callee.insts.iter().enumerate() {
        let old = ValueId(i as u32);
        if let Inst::Param(n) = data.inst {
            if let Some(a) = args.get(n as usize) {
                sp.values.insert(old, *a);
                continue;
            }
        }
        let new = ValueId(f.insts.len() as u32);
        f.insts.push(InstData {
            inst: Inst::Undef,
            ty: data.ty.clone(),
            loc: data.loc,
        });
        sp.values.insert(old, new);
    }
    for (i, data) in callee.insts.iter().enumerate() {
        let old = ValueId(i as u32);
        if matches!(data.inst, Inst::Param(n) if (n as usize) < args.len()) {
            continue;
        }
        let new = sp.values[&old];
        f.insts[new.index()].inst = sp.inst(&data.inst);
    }
    let Some(done) = done else {
        let body = sp.block(f, &callee.body);
        out.extend(body.0);
        return ret;
    };
    let false_v = ValueId(f.insts.len() as u32);
    f.insts.push(InstData {
        inst: Inst::Const(0),
        ty: Type::BOOL,
        loc: Loc::NONE,
    });
    out.push(Stmt::Eval(false_v));
    out.push(Stmt::WriteVar(done, false_v));
    let mut body = sp.block(f, &callee.body);
    body.0.push(Stmt::Break);
    out.push(Stmt::Loop {
        body,
        continuing: Block::default(),
    });
    ret
}

impl Splice<'_> {
    fn v(&self, v: ValueId) -> ValueId {
        self.values.get(&v).copied().unwrap_or(v)
    }

    /// `inst` of the callee renumbered into the caller: its operands,
    /// variables and slots.
    fn inst(&self, inst: &Inst) -> Inst {
        let mut new = inst.clone();
        new.operands_mut().for_each(|o| *o = self.v(*o));
        match &mut new {
            Inst::ReadVar(x) => x.0 += self.var_base,
            Inst::SlotAddr(s) => s.0 += self.slot_base,
            _ => {}
        }
        new
    }

    fn block(&mut self, f: &mut Function, block: &Block) -> Block {
        let mut out = Vec::with_capacity(block.0.len());
        for s in &block.0 {
            match s {
                Stmt::Eval(v) => {
                    if matches!(self.callee.inst(*v).inst, Inst::Param(n) if n < self.nargs) {
                        continue;
                    }
                    out.push(Stmt::Eval(self.v(*v)));
                }
                Stmt::WriteVar(x, v) => {
                    out.push(Stmt::WriteVar(VarId(x.0 + self.var_base), self.v(*v)))
                }
                Stmt::Store { ptr, value, loc } => out.push(Stmt::Store {
                    ptr: self.v(*ptr),
                    value: self.v(*value),
                    loc: *loc,
                }),
                Stmt::Copy {
                    dst,
                    src,
                    size,
                    loc,
                } => out.push(Stmt::Copy {
                    dst: self.v(*dst),
                    src: self.v(*src),
                    size: *size,
                    loc: *loc,
                }),
                Stmt::If { cond, then_, else_ } => {
                    let s = Stmt::If {
                        cond: self.v(*cond),
                        then_: self.block(f, then_),
                        else_: self.block(f, else_),
                    };
                    out.push(s);
                }
                Stmt::Loop { body, continuing } => {
                    let s = Stmt::Loop {
                        body: self.block(f, body),
                        continuing: self.block(f, continuing),
                    };
                    out.push(s);
                    if contains_return(body) || contains_return(continuing) {
                        self.forward_exit(f, &mut out);
                    }
                }
                Stmt::Switch { selector, cases } => {
                    let new_cases = cases
                        .iter()
                        .map(|c| SwitchCase {
                            values: c.values.clone(),
                            is_default: c.is_default,
                            body: self.block(f, &c.body),
                        })
                        .collect();
                    out.push(Stmt::Switch {
                        selector: self.v(*selector),
                        cases: new_cases,
                    });
                    if cases.iter().any(|c| contains_return(&c.body)) {
                        self.forward_exit(f, &mut out);
                    }
                }
                Stmt::Return(v) => {
                    if let (Some(r), Some(v)) = (self.ret, v) {
                        out.push(Stmt::WriteVar(r, self.v(*v)));
                    }
                    // Spliced without a loop: this is the body's end.
                    let Some(done) = self.done else { break };
                    let t = ValueId(f.insts.len() as u32);
                    f.insts.push(InstData {
                        inst: Inst::Const(1),
                        ty: Type::BOOL,
                        loc: Loc::NONE,
                    });
                    out.push(Stmt::Eval(t));
                    out.push(Stmt::WriteVar(done, t));
                    out.push(Stmt::Break);
                    break;
                }
                Stmt::Break => out.push(Stmt::Break),
                Stmt::Continue => out.push(Stmt::Continue),
                Stmt::Barrier(m, l) => out.push(Stmt::Barrier(*m, *l)),
                Stmt::Fence(m) => out.push(Stmt::Fence(*m)),
            }
        }
        Block(out)
    }

    /// `if ($done) break;` after a loop or switch the callee returned from.
    fn forward_exit(&self, f: &mut Function, out: &mut Vec<Stmt>) {
        let Some(done) = self.done else { return };
        let r = ValueId(f.insts.len() as u32);
        f.insts.push(InstData {
            inst: Inst::ReadVar(done),
            ty: Type::BOOL,
            loc: Loc::NONE,
        });
        out.push(Stmt::Eval(r));
        out.push(Stmt::If {
            cond: r,
            then_: Block(vec![Stmt::Break]),
            else_: Block::default(),
        });
    }
}

fn contains_return(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::If { then_, else_, .. } => contains_return(then_) || contains_return(else_),
        Stmt::Loop { body, continuing } => contains_return(body) || contains_return(continuing),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| contains_return(&c.body)),
        _ => false,
    })
}

//! Barriers inside loops: the kernel body rewritten as a graph of regions.
//!
//! The chunk driver runs a kernel region by region, every chunk of the group
//! finishing one region before any starts the next. Top-level barriers cut
//! the body into a straight sequence of regions. A barrier at the top level
//! of a loop body needs a graph instead: the loop's body segments between
//! barriers, its `continuing` block and the code after the loop each become
//! a region, and each region ends by writing the index of the region to run
//! next into an added variable (`$next`). Every region is wrapped in a
//! one-iteration loop so that a `break` or `continue` of the original loop
//! becomes "write the successor, leave the region".
//!
//! The rewritten body is the regions separated by top-level barriers, so the
//! uniformity analysis and the lowering see ordinary code. The analysis marks
//! `$next` varying when a successor is chosen under divergent control; the
//! lowering then refuses the kernel, as OpenCL requires the whole group to
//! take the same path to each barrier.
//!
//! Shapes not handled (barriers in `if`s or `switch`es, in nested loops, loops
//! or switches inside a loop with barriers, barriers in a
//! `continuing` block, `continue` inside a `switch` of such a loop) are
//! reported as errors, as before.

use vecl_ir::{
    Block, Function, Inst, InstData, Loc, MemFlags, Scalar, Stmt, Type, ValueId, Var, VarId,
};

/// The region index meaning "the kernel is finished".
pub(crate) const END: u32 = 0x7fff_fffe;
/// What `$next` holds while a chunk has not chosen a successor.
pub(crate) const NONE: u32 = 0x7fff_ffff;

/// A kernel rewritten as a region graph.
pub(crate) struct RegionGraph {
    pub func: Function,
    /// The variable each region writes its successor into.
    pub next: VarId,
}

fn contains_barrier(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Barrier(..) => true,
        Stmt::If { then_, else_, .. } => contains_barrier(&then_.0) || contains_barrier(&else_.0),
        Stmt::Loop { body, continuing } => {
            contains_barrier(&body.0) || contains_barrier(&continuing.0)
        }
        Stmt::Switch { cases, .. } => cases.iter().any(|c| contains_barrier(&c.body.0)),
        _ => false,
    })
}

fn breaks_or_continues(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break | Stmt::Continue => true,
        Stmt::If { then_, else_, .. } => {
            breaks_or_continues(&then_.0) || breaks_or_continues(&else_.0)
        }
        _ => false,
    })
}

/// Whether a loop or switch sits anywhere in the statements.
fn has_inner_loop(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Loop { .. } | Stmt::Switch { .. } => true,
        Stmt::If { then_, else_, .. } => has_inner_loop(&then_.0) || has_inner_loop(&else_.0),
        _ => false,
    })
}

/// Whether the body has a barrier somewhere other than its top level.
fn has_nested_barrier(stmts: &[Stmt]) -> bool {
    stmts
        .iter()
        .any(|s| !matches!(s, Stmt::Barrier(..)) && contains_barrier(std::slice::from_ref(s)))
}

/// A region under construction: its statements and fall-through successor.
struct Region {
    stmts: Vec<Stmt>,
    fall: u32,
}

struct Builder {
    func: Function,
    next: VarId,
    regions: Vec<Region>,
    barrier: (MemFlags, Loc),
}

impl Builder {
    /// `$next = target` as two statements.
    fn set_next(&mut self, target: u32) -> [Stmt; 2] {
        let v = ValueId(self.func.insts.len() as u32);
        self.func.insts.push(InstData {
            inst: Inst::Const(u64::from(target)),
            ty: Type::Scalar(Scalar::U32),
            loc: Loc::NONE,
        });
        [Stmt::Eval(v), Stmt::WriteVar(self.next, v)]
    }

    /// Rewrites `break`/`continue` of the loop being split (not those of
    /// loops nested in it) into "write the successor, leave the region".
    fn retarget(
        &mut self,
        stmts: &[Stmt],
        brk: u32,
        cont: u32,
        in_switch: bool,
    ) -> Result<Vec<Stmt>, String> {
        let mut out = Vec::new();
        for s in stmts {
            match s {
                Stmt::Break if !in_switch => {
                    out.extend(self.set_next(brk));
                    out.push(Stmt::Break);
                }
                Stmt::Continue => {
                    if in_switch {
                        return Err("continue inside a switch of a loop with a barrier".into());
                    }
                    out.extend(self.set_next(cont));
                    out.push(Stmt::Break);
                }
                Stmt::If { cond, then_, else_ } => {
                    let t = self.retarget(&then_.0, brk, cont, in_switch)?;
                    let e = self.retarget(&else_.0, brk, cont, in_switch)?;
                    out.push(Stmt::If {
                        cond: *cond,
                        then_: Block(t),
                        else_: Block(e),
                    });
                }
                Stmt::Switch { selector, cases } => {
                    let mut cs = Vec::new();
                    for c in cases {
                        let mut c2 = c.clone();
                        c2.body = Block(self.retarget(&c.body.0, brk, cont, true)?);
                        cs.push(c2);
                    }
                    out.push(Stmt::Switch {
                        selector: *selector,
                        cases: cs,
                    });
                }
                other => out.push(other.clone()),
            }
        }
        Ok(out)
    }

    fn open(&mut self) {
        self.regions.push(Region {
            stmts: Vec::new(),
            fall: END,
        });
    }

    fn current(&mut self) -> &mut Region {
        let last = self.regions.len() - 1;
        &mut self.regions[last]
    }

    /// Splits a loop whose body has barriers at its top level.
    fn split_loop(&mut self, body: &[Stmt], continuing: &[Stmt]) -> Result<(), String> {
        if has_nested_barrier(body) {
            return Err("barrier nested in control flow inside a loop".into());
        }
        if has_inner_loop(body) {
            return Err("a loop nested in a loop with a barrier".into());
        }
        if contains_barrier(continuing) || breaks_or_continues(continuing) {
            return Err("barrier, break or continue in a loop's continuing block".into());
        }
        let segments: Vec<&[Stmt]> = body.split(|s| matches!(s, Stmt::Barrier(..))).collect();
        let head = self.regions.len() as u32;
        let cont = head + segments.len() as u32;
        let exit = cont + 1;
        self.current().fall = head;
        for (i, seg) in segments.iter().enumerate() {
            let stmts = self.retarget(seg, exit, cont, false)?;
            self.open();
            self.current().stmts = stmts;
            self.current().fall = head + i as u32 + 1;
        }
        self.open();
        self.current().stmts = continuing.to_vec();
        self.current().fall = head;
        self.open();
        Ok(())
    }

    fn split_top(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        for s in stmts {
            match s {
                Stmt::Barrier(flags, loc) => {
                    self.barrier = (*flags, *loc);
                    let next = self.regions.len() as u32;
                    self.current().fall = next;
                    self.open();
                }
                Stmt::Loop { body, continuing } if contains_barrier(&body.0) => {
                    self.split_loop(&body.0, &continuing.0)?;
                }
                s if contains_barrier(std::slice::from_ref(s)) => {
                    return Err(
                        "barrier inside an if, a switch or a loop's continuing block".into(),
                    )
                }
                s => self.current().stmts.push(s.clone()),
            }
        }
        Ok(())
    }
}

/// Rewrites a kernel whose barriers sit at the top level of loop bodies into
/// a region graph; `Ok(None)` when all its barriers are at the top level
/// (the plain region sequence handles it), `Err` for shapes not handled.
pub(crate) fn region_graph(func: &Function) -> Result<Option<RegionGraph>, String> {
    let nested = func
        .body
        .0
        .iter()
        .any(|s| !matches!(s, Stmt::Barrier(..)) && contains_barrier(std::slice::from_ref(s)));
    if !nested {
        return Ok(None);
    }
    let mut f = func.clone();
    let next = VarId(f.vars.len() as u32);
    f.vars.push(Var {
        name: "next_region".into(),
        ty: Type::Scalar(Scalar::U32),
    });
    let body = std::mem::take(&mut f.body.0);
    let mut b = Builder {
        func: f,
        next,
        regions: Vec::new(),
        barrier: (MemFlags::default(), Loc::NONE),
    };
    b.open();
    b.split_top(&body)?;
    let regions = std::mem::take(&mut b.regions);
    let mut out = Vec::new();
    for (i, r) in regions.into_iter().enumerate() {
        if i > 0 {
            out.push(Stmt::Barrier(b.barrier.0, b.barrier.1));
        }
        let mut inner = r.stmts;
        inner.extend(b.set_next(r.fall));
        inner.push(Stmt::Break);
        out.push(Stmt::Loop {
            body: Block(inner),
            continuing: Block::default(),
        });
    }
    b.func.body = Block(out);
    Ok(Some(RegionGraph { func: b.func, next }))
}

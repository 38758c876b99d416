//! Barriers under control flow: the kernel body rewritten as a graph of
//! regions.
//!
//! The chunk driver runs a kernel region by region, every chunk of the group
//! finishing one region before any starts the next. Top-level barriers cut
//! the body into a straight sequence of regions. A barrier anywhere else (in
//! a loop at any depth, an `if` arm, a `switch` case, a `continuing` block)
//! needs a graph instead: each region ends by writing the index of the
//! region to run next into an added variable (`$next`), and the driver
//! dispatches on it.
//!
//! Unlike the passes of [`super::pipeline`], the result is not a function
//! to run as written: it means "run the top-level regions in the order
//! `$next` chooses", the contract of a code generator's chunk driver, so
//! the interpreter cannot check it against the original. It runs after
//! the pipeline, as the last step before lowering (`vecl run
//! --dump-ir=all` prints it as `after regions`).
//!
//! The rewrite follows the statement tree (`Builder::block`):
//!
//! - the statements before the first one that contains a barrier stay in the
//!   current region; a barrier ends it with "go to the region after it";
//! - an `if` with a barrier in an arm stays an `if`: each arm runs up to its
//!   first barrier in the current region and both arms go on to the region
//!   after the `if`;
//! - a loop with a barrier becomes a header region (its body up to the first
//!   barrier), the regions of the rest of its body and, when its `continuing`
//!   block touches memory or has barriers, a region for that block. A
//!   `continuing` block that only computes on private values is copied to
//!   every place that goes to it instead, so a loop with one barrier costs
//!   one region per iteration;
//! - a `switch` with a barrier becomes a dispatch (a barrier-free `switch`
//!   choosing the region of the case) and one region per case, each falling
//!   through to the next;
//! - `break` and `continue` of a loop that was cut (and `break` of a cut
//!   `switch`) become "write the successor"; the statements after a place
//!   that may have written the successor are guarded by
//!   `if ($next == NONE)`, so control is structured throughout.
//!
//! Before the rewrite every register variable is split into its webs
//! ([`crate::analysis::webs`]), so a variable that holds a per-work-item
//! value in one place and a group-uniform one (a loop counter of a barrier
//! loop) in another gets a uniformity fact for each.
//!
//! "Go to region R" is the statement pair `$next = R`; the driver sets
//! `$next = NONE` before each chunk runs a region. The rewritten body is the
//! regions separated by top-level barriers, so the uniformity analysis and
//! the lowering see ordinary code: the analysis marks `$next` varying when a
//! successor is chosen under control that varies within a chunk, and the
//! lowering then checks at run time that the lanes of each chunk chose the
//! same one (the JIT's `lower::barrier_agreement`), as OpenCL requires the whole group
//! to take the same path to each barrier. The driver checks that every
//! chunk of a group chose the same successor. The constant tagging a
//! barrier carries the barrier's source position, for the report of a
//! group that does not agree.

use crate::{
    contains_barrier, BinaryOp, Block, CmpOp, Function, Inst, InstData, Loc, MemFlags, Scalar,
    Stmt, SwitchCase, Type, ValueId, Var, VarId,
};

/// `$next` holds the successor's region index in its low bits and, when the
/// way there passes a barrier, that barrier's number above them: two chunks
/// that reach the same region, one through a barrier and one around it (an
/// `if` whose condition differs between rows of a group), disagree.
pub const REGION_MASK: u32 = (1 << 20) - 1;
/// The region index meaning "the kernel is finished".
pub const END: u32 = REGION_MASK - 1;
/// What `$next` holds while a chunk has not chosen a successor (every
/// region and barrier bit set, so tagging it changes nothing).
pub const NONE: u32 = 0x7fff_ffff;
/// How many barriers get a number of their own (the numbers then repeat).
const BARRIER_NUMBERS: u32 = 2047;

/// The number of the barrier a successor passes (0 when none) and the
/// index of its region.
pub fn split_successor(next: u32) -> (u32, u32) {
    ((next & NONE) >> 20, next & REGION_MASK)
}

/// The number and source position of the barrier whose passing `v`
/// records, when `v` is the `$next | tag` a cut barrier writes.
pub fn barrier_tag(func: &Function, next: VarId, v: ValueId) -> Option<(u32, Loc)> {
    let Inst::Binary(BinaryOp::Or, cur, tag) = func.inst(v).inst else {
        return None;
    };
    if !matches!(func.inst(cur).inst, Inst::ReadVar(x) if x == next) {
        return None;
    }
    match func.inst(tag).inst {
        Inst::Const(k) if k >= 1 << 20 => Some(((k >> 20) as u32, func.inst(tag).loc)),
        _ => None,
    }
}

/// Every cut barrier of a region graph: its number and source position.
pub fn barrier_sites(func: &Function, next: VarId) -> Vec<(u32, Loc)> {
    (0..func.insts.len() as u32)
        .filter_map(|i| barrier_tag(func, next, ValueId(i)))
        .collect()
}

/// A kernel rewritten as a region graph.
pub struct RegionGraph {
    pub func: Function,
    /// The variable each region writes its successor into.
    pub next: VarId,
}

/// Whether statements only compute on private values and variables (no
/// memory access, no fence, no return), so they may run on either side of a
/// barrier.
fn private_only(func: &Function, stmts: &[Stmt]) -> bool {
    stmts.iter().all(|s| match s {
        Stmt::Eval(v) => !matches!(
            func.inst(*v).inst,
            Inst::Load(_) | Inst::Atomic { .. } | Inst::Call(..)
        ),
        Stmt::WriteVar(..) | Stmt::Break | Stmt::Continue => true,
        Stmt::If { then_, else_, .. } => {
            private_only(func, &then_.0) && private_only(func, &else_.0)
        }
        Stmt::Loop { body, continuing } => {
            private_only(func, &body.0) && private_only(func, &continuing.0)
        }
        Stmt::Switch { cases, .. } => cases.iter().all(|c| private_only(func, &c.body.0)),
        Stmt::Store { .. }
        | Stmt::Copy { .. }
        | Stmt::Return(_)
        | Stmt::Barrier(..)
        | Stmt::Fence(_) => false,
    })
}

/// Where control goes: a region (by label), or a copied `continuing` block
/// that itself ends by going to a region.
#[derive(Clone)]
enum Goto {
    Label(usize),
    Inline(Vec<Stmt>),
}

/// What `break` and `continue` at the current place mean, when they leave a
/// loop or switch that was cut into regions.
#[derive(Clone, Default)]
struct Exits {
    brk: Option<Goto>,
    cont: Option<Goto>,
}

struct Builder {
    func: Function,
    next: VarId,
    /// The statements of each region, in creation (program) order.
    regions: Vec<Vec<Stmt>>,
    /// The region each label stands for, once known.
    labels: Vec<Option<u32>>,
    /// Constants written to `$next`, patched once every label is bound.
    fixups: Vec<(ValueId, usize)>,
    barrier: (MemFlags, Loc),
    /// Barriers cut so far.
    barriers: u32,
}

impl Builder {
    fn push_inst(&mut self, inst: Inst, ty: Type) -> ValueId {
        let v = ValueId(self.func.insts.len() as u32);
        self.func.insts.push(InstData {
            inst,
            ty,
            loc: Loc::NONE,
        });
        v
    }

    fn new_label(&mut self) -> usize {
        self.labels.push(None);
        self.labels.len() - 1
    }

    /// Opens a region for `label`; its statements are filled in later.
    fn open(&mut self, label: usize) -> usize {
        let r = self.regions.len();
        self.regions.push(Vec::new());
        self.labels[label] = Some(r as u32);
        r
    }

    fn goto(&mut self, g: &Goto) -> Vec<Stmt> {
        match g {
            Goto::Label(l) => {
                let v = self.push_inst(Inst::Const(0), Type::Scalar(Scalar::U32));
                self.fixups.push((v, *l));
                vec![Stmt::Eval(v), Stmt::WriteVar(self.next, v)]
            }
            Goto::Inline(stmts) => stmts.clone(),
        }
    }

    /// `if ($next == NONE) { stmts }`.
    fn guard(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        if stmts.is_empty() {
            return stmts;
        }
        let u32t = Type::Scalar(Scalar::U32);
        let cur = self.push_inst(Inst::ReadVar(self.next), u32t.clone());
        let none = self.push_inst(Inst::Const(u64::from(NONE)), u32t);
        let unset = self.push_inst(Inst::Cmp(CmpOp::Eq, cur, none), Type::Scalar(Scalar::Bool));
        vec![
            Stmt::Eval(cur),
            Stmt::Eval(none),
            Stmt::Eval(unset),
            Stmt::If {
                cond: unset,
                then_: Block(stmts),
                else_: Block::default(),
            },
        ]
    }

    /// Barrier-free statements with the `break`/`continue` of cut loops and
    /// switches rewritten; the flag says whether they may have chosen a
    /// successor (the caller guards what follows).
    fn retarget(
        &mut self,
        stmts: &[Stmt],
        exits: &Exits,
        in_switch: bool,
    ) -> Result<(Vec<Stmt>, bool), String> {
        let mut out = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            let (code, sets) = match s {
                Stmt::Break if !in_switch => {
                    let g = exits.brk.clone().ok_or("break outside a loop or switch")?;
                    out.extend(self.goto(&g));
                    return Ok((out, true));
                }
                Stmt::Continue => {
                    let g = exits.cont.clone().ok_or("continue outside a loop")?;
                    out.extend(self.goto(&g));
                    if in_switch {
                        out.push(Stmt::Break);
                    }
                    return Ok((out, true));
                }
                Stmt::If { cond, then_, else_ } => {
                    let (t, st) = self.retarget(&then_.0, exits, in_switch)?;
                    let (e, se) = self.retarget(&else_.0, exits, in_switch)?;
                    let s = Stmt::If {
                        cond: *cond,
                        then_: Block(t),
                        else_: Block(e),
                    };
                    (vec![s], st || se)
                }
                Stmt::Switch { selector, cases } => {
                    let mut cs = Vec::new();
                    let mut sets = false;
                    for c in cases {
                        let (body, s) = self.retarget(&c.body.0, exits, true)?;
                        sets |= s;
                        cs.push(SwitchCase {
                            values: c.values.clone(),
                            is_default: c.is_default,
                            body: Block(body),
                        });
                    }
                    let s = Stmt::Switch {
                        selector: *selector,
                        cases: cs,
                    };
                    (vec![s], sets)
                }
                other => (vec![other.clone()], false),
            };
            out.extend(code);
            if sets {
                let (rest, _) = self.retarget(&stmts[i + 1..], exits, in_switch)?;
                let guarded = self.guard(rest);
                out.extend(guarded);
                return Ok((out, true));
            }
        }
        Ok((out, false))
    }

    /// Statements of the current region for `stmts`, which end by going to
    /// `after`; opens the regions the barriers in them need.
    fn block(&mut self, stmts: &[Stmt], exits: &Exits, after: &Goto) -> Result<Vec<Stmt>, String> {
        let split = stmts
            .iter()
            .position(|s| contains_barrier(std::slice::from_ref(s)));
        let Some(i) = split else {
            let (mut code, sets) = self.retarget(stmts, exits, false)?;
            let tail = self.goto(after);
            if sets {
                let g = self.guard(tail);
                code.extend(g);
            } else {
                code.extend(tail);
            }
            return Ok(code);
        };
        let (mut code, sets) = self.retarget(&stmts[..i], exits, false)?;
        let rest = &stmts[i + 1..];
        let rest_label = (!rest.is_empty()).then(|| self.new_label());
        let rest_goto = match rest_label {
            Some(l) => Goto::Label(l),
            None => after.clone(),
        };
        let here = self.cut(&stmts[i], exits, &rest_goto)?;
        if sets {
            let g = self.guard(here);
            code.extend(g);
        } else {
            code.extend(here);
        }
        if let Some(l) = rest_label {
            let r = self.open(l);
            self.regions[r] = self.block(rest, exits, after)?;
        }
        Ok(code)
    }

    /// The current region's part of a statement containing a barrier.
    fn cut(&mut self, s: &Stmt, exits: &Exits, after: &Goto) -> Result<Vec<Stmt>, String> {
        match s {
            Stmt::Barrier(flags, loc) => {
                // A copied `continuing` block (`Goto::Inline`) only computes
                // on private values, so it may run before the barrier.
                self.barrier = (*flags, *loc);
                self.barriers += 1;
                let number = self.barriers % BARRIER_NUMBERS + 1;
                let mut code = self.goto(after);
                let u32t = Type::Scalar(Scalar::U32);
                let cur = self.push_inst(Inst::ReadVar(self.next), u32t.clone());
                // The tag carries the barrier's source position, for the
                // report of a group that does not agree on it.
                let tag = self.push_inst(Inst::Const(u64::from(number << 20)), u32t.clone());
                self.func.insts[tag.index()].loc = *loc;
                let tagged = self.push_inst(Inst::Binary(BinaryOp::Or, cur, tag), u32t);
                code.extend([
                    Stmt::Eval(cur),
                    Stmt::Eval(tag),
                    Stmt::Eval(tagged),
                    Stmt::WriteVar(self.next, tagged),
                ]);
                Ok(code)
            }
            Stmt::If { cond, then_, else_ } => {
                let t = self.block(&then_.0, exits, after)?;
                let e = self.block(&else_.0, exits, after)?;
                Ok(vec![Stmt::If {
                    cond: *cond,
                    then_: Block(t),
                    else_: Block(e),
                }])
            }
            Stmt::Loop { body, continuing } => {
                let head = self.new_label();
                let to_cont = if continuing.0.is_empty() {
                    Goto::Label(head)
                } else if !contains_barrier(&continuing.0)
                    && private_only(&self.func, &continuing.0)
                {
                    let ex = Exits {
                        brk: Some(after.clone()),
                        cont: None,
                    };
                    Goto::Inline(self.block(&continuing.0, &ex, &Goto::Label(head))?)
                } else {
                    Goto::Label(self.new_label())
                };
                let entry = self.goto(&Goto::Label(head));
                let r = self.open(head);
                let inner = Exits {
                    brk: Some(after.clone()),
                    cont: Some(to_cont.clone()),
                };
                self.regions[r] = self.block(&body.0, &inner, &to_cont)?;
                if let Goto::Label(c) = to_cont {
                    if c != head {
                        let r = self.open(c);
                        let ex = Exits {
                            brk: Some(after.clone()),
                            cont: None,
                        };
                        self.regions[r] = self.block(&continuing.0, &ex, &Goto::Label(head))?;
                    }
                }
                Ok(entry)
            }
            Stmt::Switch { selector, cases } => {
                let labels: Vec<usize> = cases.iter().map(|_| self.new_label()).collect();
                let mut dispatch = Vec::new();
                for (c, l) in cases.iter().zip(&labels) {
                    let mut body = self.goto(&Goto::Label(*l));
                    body.push(Stmt::Break);
                    dispatch.push(SwitchCase {
                        values: c.values.clone(),
                        is_default: c.is_default,
                        body: Block(body),
                    });
                }
                if !cases.iter().any(|c| c.is_default) {
                    let mut body = self.goto(after);
                    body.push(Stmt::Break);
                    dispatch.push(SwitchCase {
                        values: Vec::new(),
                        is_default: true,
                        body: Block(body),
                    });
                }
                let inner = Exits {
                    brk: Some(after.clone()),
                    cont: exits.cont.clone(),
                };
                for (i, (c, l)) in cases.iter().zip(&labels).enumerate() {
                    let fall = match labels.get(i + 1) {
                        Some(n) => Goto::Label(*n),
                        None => after.clone(),
                    };
                    let r = self.open(*l);
                    self.regions[r] = self.block(&c.body.0, &inner, &fall)?;
                }
                Ok(vec![Stmt::Switch {
                    selector: *selector,
                    cases: dispatch,
                }])
            }
            _ => Err("barrier in an unexpected statement".into()),
        }
    }
}

/// Rewrites a kernel with barriers below its top level into a region graph;
/// `Ok(None)` when all its barriers are at the top level (the plain region
/// sequence handles it).
pub fn region_graph(func: &Function) -> Result<Option<RegionGraph>, String> {
    let nested = func
        .body
        .0
        .iter()
        .any(|s| !matches!(s, Stmt::Barrier(..)) && contains_barrier(std::slice::from_ref(s)));
    if !nested {
        return Ok(None);
    }
    let mut f = func.clone();
    // A variable reused for unrelated values (`i` per work-item in one loop,
    // a uniform stride in the next) would make a loop holding a barrier
    // look varying; give each web its own variable first.
    crate::analysis::webs::split_webs(&mut f);
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
        labels: Vec::new(),
        fixups: Vec::new(),
        barrier: (MemFlags::default(), Loc::NONE),
        barriers: 0,
    };
    let end = b.new_label();
    b.labels[end] = Some(END);
    let entry = b.new_label();
    let r = b.open(entry);
    b.regions[r] = b.block(&body, &Exits::default(), &Goto::Label(end))?;
    for (v, l) in std::mem::take(&mut b.fixups) {
        let target = b.labels[l].ok_or("a region label was never placed")?;
        b.func.insts[v.index()].inst = Inst::Const(u64::from(target));
    }
    let regions = std::mem::take(&mut b.regions);
    let mut out = Vec::new();
    for (i, r) in regions.into_iter().enumerate() {
        if i > 0 {
            out.push(Stmt::Barrier(b.barrier.0, b.barrier.1));
        }
        out.extend(r);
    }
    b.func.body = Block(out);
    Ok(Some(RegionGraph { func: b.func, next }))
}

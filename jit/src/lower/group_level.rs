//! Group-level statements: work every work-item of a group does alike, run
//! once per group and region instead of once per chunk.
//!
//! In a kernel with barriers the driver runs each region for every chunk of
//! the group in turn. Much of a barrier region is the same for all of them:
//! the loop counter of a reduction (`s >>= 1`, `s > 0`), `$next` and the
//! tests on it, `n = get_local_size(0)`. A statement is *group-level* when it
//! touches no memory, reads only values that are the same across the whole
//! group (constants, parameters, the group's ids and sizes, group-level
//! variables, arithmetic on them) and writes only group-level variables. A
//! variable is group-level when the uniformity analysis calls it uniform and
//! every write of it is a group-level statement that could be moved out of
//! the chunk loop (a fixpoint: a variable written in the chunk part is
//! dropped and the analysis runs again).
//!
//! Every work-item's copy of a group-level variable then holds the same value
//! at every point, so one copy serves the group: a Cranelift variable that
//! lives across regions, never saved to the context area. A region becomes
//!
//! ```text
//! pre                      group-level statements moved to the front
//! if guard {               a group-level `if` holding all the rest, peeled
//!     pre'; …              (again split the same way)
//!     for each chunk: mid  everything else, in order
//!     post'
//! }
//! post                     group-level statements moved to the end
//! ```
//!
//! A statement moves to the front (end) only past statements it has no
//! dependence with: no value or variable one defines and the other uses or
//! defines. A region whose statements are all group-level runs no chunk loop
//! at all (`s = n / 2` between two barriers).
//!
//! When the chunk part ends in `if (lid OP bound)` with `lid` the local id in
//! dimension 0 and a group-level `bound`, and nothing before it has an
//! effect, the chunks whose lanes all fail the test are skipped: the chunk
//! loop of each row runs over the range of ids the test can accept
//! ([`LidRange`]) — the `if (lid < s)` of a tree reduction visits
//! `s / W` chunks instead of all of them.
//!
//! Kernels with a `return` keep the plain form: a group whose work-items all
//! returned must not go on running its group-level statements.

use std::collections::{BTreeSet, HashMap, HashSet};

use vecl_ir::analysis::uniformity::Uniformity;
use vecl_ir::{Builtin, CmpOp, Function, Inst, Scalar, Stmt, Type, ValueId, VarId, WorkItemFn};

use super::chunks::{collect_defs, collect_uses, collect_writes, count_writes};

/// Regions with more top-level statements than this are not split (the
/// dependence tests are quadratic in the worst case).
const MAX_STATEMENTS: usize = 2000;

/// One level of a region: statements before, the rest, statements after.
#[derive(Debug)]
pub(crate) struct Split {
    pub pre: Vec<Stmt>,
    pub body: Body,
    pub post: Vec<Stmt>,
}

#[derive(Debug)]
pub(crate) enum Body {
    /// Nothing runs per chunk.
    Empty,
    /// Statements every chunk runs.
    Chunks {
        stmts: Vec<Stmt>,
        range: Option<LidRange>,
    },
    /// `if (cond) { inner }` with a group-level `cond`.
    Guard { cond: ValueId, inner: Box<Split> },
}

/// The chunk statements end in `if (lid OP bound)`, `lid` being
/// `get_local_id(0)` (possibly converted to a 32-bit integer), `bound` a
/// group-level value of the comparison's type: only work-items whose local
/// id passes the test do anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LidRange {
    /// `lid OP bound` (operands put in that order).
    pub op: CmpOp,
    pub bound: ValueId,
    /// The comparison's type: signed, and its width in bits.
    pub signed: bool,
    pub bits: u32,
}

/// The group-level variables and each region's split.
#[derive(Debug)]
pub(crate) struct GroupLevel {
    pub vars: HashSet<VarId>,
    pub splits: Vec<Split>,
}

impl GroupLevel {
    /// Variables kept once per group, regions without a chunk loop, and
    /// chunk loops limited by a [`LidRange`].
    pub fn summary(&self) -> (usize, usize, usize) {
        let (mut empty, mut ranged) = (0, 0);
        for s in &self.splits {
            match s.levels().1 {
                Body::Empty => empty += 1,
                Body::Chunks { range: Some(_), .. } => ranged += 1,
                _ => {}
            }
        }
        (self.vars.len(), empty, ranged)
    }
}

impl Split {
    /// The chain of levels down to the chunk statements: each level's
    /// `pre`, the guard leading to the next level (none for the last) and
    /// `post`; and the innermost body.
    pub fn levels(&self) -> (Vec<(&[Stmt], Option<ValueId>, &[Stmt])>, &Body) {
        let mut out = Vec::new();
        let mut at = self;
        loop {
            match &at.body {
                Body::Guard { cond, inner } => {
                    out.push((&at.pre[..], Some(*cond), &at.post[..]));
                    at = inner;
                }
                body => {
                    out.push((&at.pre[..], None, &at.post[..]));
                    return (out, body);
                }
            }
        }
    }
}

/// Splits each region (the kernel body cut at its top-level barriers).
/// `saved`: values a later region reads from the context area (their
/// definitions stay in the chunk loop, which stores them).
pub(crate) fn analyze(
    func: &Function,
    uni: &Uniformity,
    regions: &[&[Stmt]],
    saved: &HashSet<ValueId>,
) -> GroupLevel {
    let mut vars: HashSet<VarId> = func
        .vars
        .iter()
        .enumerate()
        .map(|(i, _)| VarId(i as u32))
        .filter(|x| uni.var_is_uniform_everywhere(*x) && var_type_ok(&func.vars[x.index()].ty))
        .collect();
    let mut counts = HashMap::new();
    count_writes(&func.body.0, &mut counts);
    let big = regions.iter().any(|r| r.len() > MAX_STATEMENTS);
    loop {
        let mut a = Analysis {
            func,
            uni,
            vars: &vars,
            saved,
            ok: vec![false; func.insts.len()],
            counts: &counts,
        };
        for r in regions {
            a.mark_values(r);
        }
        let splits: Vec<Split> = regions
            .iter()
            .map(|r| {
                if big {
                    plain(r)
                } else {
                    a.split(r, &HashSet::new())
                }
            })
            .collect();
        let mut chunk_writes = BTreeSet::new();
        for s in &splits {
            if let (_, Body::Chunks { stmts, .. }) = s.levels() {
                collect_writes(stmts, &mut chunk_writes);
            }
        }
        let before = vars.len();
        vars.retain(|x| !chunk_writes.contains(x));
        if vars.len() == before {
            return GroupLevel { vars, splits };
        }
    }
}

pub(crate) fn plain(stmts: &[Stmt]) -> Split {
    Split {
        pre: Vec::new(),
        body: Body::Chunks {
            stmts: stmts.to_vec(),
            range: None,
        },
        post: Vec::new(),
    }
}

fn var_type_ok(ty: &Type) -> bool {
    matches!(ty, Type::Scalar(_) | Type::Vector(..) | Type::Pointer(..))
}

struct Analysis<'a> {
    func: &'a Function,
    uni: &'a Uniformity,
    vars: &'a HashSet<VarId>,
    saved: &'a HashSet<ValueId>,
    /// Per value: group-level.
    ok: Vec<bool>,
    counts: &'a HashMap<VarId, usize>,
}

/// What a statement defines and uses, for the dependence tests.
#[derive(Default)]
struct Effects {
    defs: BTreeSet<ValueId>,
    /// Values used and not defined by the statement itself.
    uses: BTreeSet<ValueId>,
    reads: BTreeSet<VarId>,
    writes: BTreeSet<VarId>,
}

impl Effects {
    fn of(func: &Function, s: &Stmt) -> Effects {
        let one = std::slice::from_ref(s);
        let mut defs = Vec::new();
        collect_defs(one, &mut defs);
        let defs: BTreeSet<ValueId> = defs.into_iter().collect();
        let (mut uses, mut reads, mut writes) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        collect_uses(func, one, &mut uses, &mut reads);
        uses.retain(|v| !defs.contains(v));
        collect_writes(one, &mut writes);
        Effects {
            defs,
            uses,
            reads,
            writes,
        }
    }

    fn absorb(&mut self, o: &Effects) {
        self.defs.extend(o.defs.iter().copied());
        self.uses.extend(o.uses.iter().copied());
        self.reads.extend(o.reads.iter().copied());
        self.writes.extend(o.writes.iter().copied());
    }

    /// Whether the order of two statements matters.
    fn depends(&self, o: &Effects) -> bool {
        !self.defs.is_disjoint(&o.uses)
            || !o.defs.is_disjoint(&self.uses)
            || !self.defs.is_disjoint(&o.defs)
            || !self.writes.is_disjoint(&o.reads)
            || !self.writes.is_disjoint(&o.writes)
            || !o.writes.is_disjoint(&self.reads)
    }
}

impl Analysis<'_> {
    /// Marks the group-level values defined in `stmts` (operands come
    /// before their uses, so one pass in statement order suffices).
    fn mark_values(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            match s {
                Stmt::Eval(v) => {
                    let ok = self.uni.is_uniform(*v) && self.inst_ok(&self.func.inst(*v).inst);
                    self.ok[v.index()] = ok;
                }
                Stmt::If { then_, else_, .. } => {
                    self.mark_values(&then_.0);
                    self.mark_values(&else_.0);
                }
                Stmt::Loop { body, continuing } => {
                    self.mark_values(&body.0);
                    self.mark_values(&continuing.0);
                }
                Stmt::Switch { cases, .. } => {
                    for c in cases {
                        self.mark_values(&c.body.0);
                    }
                }
                _ => {}
            }
        }
    }

    fn value_ok(&self, v: ValueId) -> bool {
        self.ok.get(v.index()).copied().unwrap_or(false)
    }

    fn inst_ok(&self, inst: &Inst) -> bool {
        use WorkItemFn::*;
        match inst {
            Inst::Param(_) | Inst::Const(_) | Inst::Undef | Inst::GlobalAddr(_) => true,
            Inst::ReadVar(x) => self.vars.contains(x),
            Inst::WorkItem(f, d) => {
                matches!(
                    f,
                    WorkDim
                        | GlobalSize
                        | LocalSize
                        | EnqueuedLocalSize
                        | NumGroups
                        | GroupId
                        | GlobalOffset
                ) && d.is_none_or(|d| self.value_ok(d))
            }
            i if i.depends_only_on_operands() => inst.operands().all(|v| self.value_ok(v)),
            _ => false,
        }
    }

    /// Whether a statement is group-level (see the module documentation).
    fn stmt_ok(&self, s: &Stmt) -> bool {
        let all = |b: &[Stmt]| b.iter().all(|s| self.stmt_ok(s));
        match s {
            Stmt::Eval(v) => (self.value_ok(*v) || self.is_combine(*v)) && !self.saved.contains(v),
            Stmt::WriteVar(x, v) => self.vars.contains(x) && self.value_ok(*v),
            Stmt::If { cond, then_, else_ } => {
                self.value_ok(*cond) && all(&then_.0) && all(&else_.0)
            }
            Stmt::Loop { body, continuing } => all(&body.0) && all(&continuing.0),
            Stmt::Switch { selector, cases } => {
                self.value_ok(*selector) && cases.iter().all(|c| all(&c.body.0))
            }
            Stmt::Break | Stmt::Continue => true,
            _ => false,
        }
    }

    /// Whether `v` is a work-group collective's combine step
    /// (`collectives.rs`) whose operands are all group-level.
    fn is_combine(&self, v: ValueId) -> bool {
        match &self.func.inst(v).inst {
            Inst::Builtin(Builtin::WorkGroupCombine, args) => {
                args.iter().all(|a| self.value_ok(*a))
            }
            _ => false,
        }
    }

    /// `stmts` with each first item's statement replaced by its body, and
    /// its test dropped when nothing else reads it. A first item's
    /// statement is `if (get_local_linear_id() == 0) { … }` without an
    /// `else` whose body is group-level statements and combine steps:
    /// the work-item of local id 0 does for the group what, run once per
    /// group, group-level code does (a collective's combine step,
    /// `collectives.rs`), so the region runs it once, outside the chunk
    /// loop, instead of testing every chunk for that work-item.
    fn first_item_bodies<'s>(&self, stmts: &'s [Stmt]) -> std::borrow::Cow<'s, [Stmt]> {
        let is_first_item_stmt = |s: &Stmt| {
            matches!(s, Stmt::If { cond, then_, else_ }
                if else_.0.is_empty()
                    && self.is_first_item(*cond)
                    && then_.0.iter().all(|t| self.stmt_ok(t)))
        };
        if !stmts.iter().any(is_first_item_stmt) {
            return std::borrow::Cow::Borrowed(stmts);
        }
        let mut out: Vec<Stmt> = Vec::with_capacity(stmts.len());
        let mut tests = Vec::new();
        for s in stmts {
            match s {
                Stmt::If { cond, then_, else_ }
                    if else_.0.is_empty()
                        && self.is_first_item(*cond)
                        && then_.0.iter().all(|t| self.stmt_ok(t)) =>
                {
                    out.extend(then_.0.iter().cloned());
                    tests.push(*cond);
                }
                s => out.push(s.clone()),
            }
        }
        for cond in tests {
            if self.saved.contains(&cond) {
                continue;
            }
            let others: Vec<Stmt> = out
                .iter()
                .filter(|s| !matches!(s, Stmt::Eval(v) if *v == cond))
                .cloned()
                .collect();
            let (mut uses, mut reads) = (BTreeSet::new(), BTreeSet::new());
            collect_uses(self.func, &others, &mut uses, &mut reads);
            if !uses.contains(&cond) {
                out = others;
            }
        }
        std::borrow::Cow::Owned(out)
    }

    /// Whether `cond` is `get_local_linear_id() == 0` (either order).
    fn is_first_item(&self, cond: ValueId) -> bool {
        let Inst::Cmp(CmpOp::Eq, a, b) = self.func.inst(cond).inst else {
            return false;
        };
        let is = |v: ValueId, want_lid: bool| match &self.func.inst(v).inst {
            Inst::WorkItem(WorkItemFn::LocalLinearId, None) => want_lid,
            Inst::Const(0) => !want_lid,
            _ => false,
        };
        (is(a, true) && is(b, false)) || (is(a, false) && is(b, true))
    }

    /// Splits one statement list; `avail`: group-level values computed by
    /// the enclosing levels' `pre`.
    fn split(&self, stmts: &[Stmt], avail: &HashSet<ValueId>) -> Split {
        let stmts = self.first_item_bodies(stmts);
        let stmts = &stmts[..];
        let n = stmts.len();
        let fx: Vec<Effects> = stmts.iter().map(|s| Effects::of(self.func, s)).collect();
        let gl: Vec<bool> = stmts.iter().map(|s| self.stmt_ok(s)).collect();
        // To the front: past every earlier statement that stays.
        let mut in_pre = vec![false; n];
        let mut avail = avail.clone();
        let mut stays = Effects::default();
        for i in 0..n {
            if gl[i] && fx[i].uses.iter().all(|v| avail.contains(v)) && !stays.depends(&fx[i]) {
                in_pre[i] = true;
                avail.extend(fx[i].defs.iter().copied());
            } else {
                stays.absorb(&fx[i]);
            }
        }
        // To the end: past every later statement that stays, using values
        // computed before the chunk loop or by earlier moved statements.
        let mut in_post: Vec<bool> = (0..n).map(|i| gl[i] && !in_pre[i]).collect();
        loop {
            let mut changed = false;
            let mut later = Effects::default();
            for i in (0..n).rev() {
                if in_pre[i] {
                    continue;
                }
                if in_post[i] && later.depends(&fx[i]) {
                    in_post[i] = false;
                    changed = true;
                }
                if !in_post[i] {
                    later.absorb(&fx[i]);
                }
            }
            let mut mid_defs = BTreeSet::new();
            for i in 0..n {
                if !in_pre[i] && !in_post[i] {
                    mid_defs.extend(fx[i].defs.iter().copied());
                }
            }
            let mut have = avail.clone();
            have.retain(|v| !mid_defs.contains(v));
            for i in 0..n {
                if !in_post[i] {
                    continue;
                }
                if fx[i].uses.iter().all(|v| have.contains(v)) {
                    have.extend(fx[i].defs.iter().copied());
                } else {
                    in_post[i] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let pick = |f: &dyn Fn(usize) -> bool| -> Vec<Stmt> {
            (0..n).filter(|i| f(*i)).map(|i| stmts[i].clone()).collect()
        };
        let pre = pick(&|i| in_pre[i]);
        let post = pick(&|i| in_post[i]);
        let mid = pick(&|i| !in_pre[i] && !in_post[i]);
        let body = match mid.as_slice() {
            [] => Body::Empty,
            [Stmt::If { cond, then_, else_ }] if else_.0.is_empty() && avail.contains(cond) => {
                Body::Guard {
                    cond: *cond,
                    inner: Box::new(self.split(&then_.0, &avail)),
                }
            }
            _ => {
                let range = self.lid_range(&mid, &avail);
                Body::Chunks { stmts: mid, range }
            }
        };
        Split { pre, body, post }
    }

    /// The [`LidRange`] of chunk statements: pure evaluations, then
    /// `if (lid OP bound) { … }` with no `else`.
    fn lid_range(&self, stmts: &[Stmt], avail: &HashSet<ValueId>) -> Option<LidRange> {
        let (Stmt::If { cond, else_, .. }, rest) = stmts.split_last()? else {
            return None;
        };
        if !else_.0.is_empty() {
            return None;
        }
        let pure = rest.iter().all(|s| match s {
            Stmt::Eval(v) => !matches!(
                self.func.inst(*v).inst,
                Inst::Load(_) | Inst::Atomic { .. } | Inst::Call(..) | Inst::Builtin(..)
            ),
            _ => false,
        });
        if !pure {
            return None;
        }
        let Inst::Cmp(op, a, b) = self.func.inst(*cond).inst else {
            return None;
        };
        let (op, bound) = if self.is_lid0(a) && avail.contains(&b) {
            (op, b)
        } else if self.is_lid0(b) && avail.contains(&a) {
            let flipped = match op {
                CmpOp::Lt => CmpOp::Gt,
                CmpOp::Le => CmpOp::Ge,
                CmpOp::Gt => CmpOp::Lt,
                CmpOp::Ge => CmpOp::Le,
                other => other,
            };
            (flipped, a)
        } else {
            return None;
        };
        if op == CmpOp::Ne {
            return None;
        }
        let Type::Scalar(s) = self.func.ty(bound) else {
            return None;
        };
        let bits = match s {
            Scalar::I32 | Scalar::U32 => 32,
            Scalar::I64 | Scalar::U64 => 64,
            _ => return None,
        };
        Some(LidRange {
            op,
            bound,
            signed: s.is_signed(),
            bits,
        })
    }

    /// Whether `v` is `get_local_id(0)`, directly, through a variable
    /// written once with it, or converted to a 32- or 64-bit integer (exact:
    /// local ids are far below 2^31).
    fn is_lid0(&self, v: ValueId) -> bool {
        let mut v = v;
        for _ in 0..8 {
            match &self.func.inst(v).inst {
                Inst::WorkItem(WorkItemFn::LocalId, Some(d)) => {
                    return matches!(self.func.inst(*d).inst, Inst::Const(0));
                }
                Inst::Convert {
                    value,
                    saturate: false,
                    ..
                } if matches!(
                    self.func.ty(v),
                    Type::Scalar(Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
                ) =>
                {
                    v = *value;
                }
                Inst::ReadVar(x) if self.counts.get(x) == Some(&1) => {
                    match single_write(&self.func.body.0, *x) {
                        Some(u) => v = u,
                        None => return false,
                    }
                }
                _ => return false,
            }
        }
        false
    }
}

/// The value of the one write of `x` in `stmts`.
fn single_write(stmts: &[Stmt], x: VarId) -> Option<ValueId> {
    for s in stmts {
        let found = match s {
            Stmt::WriteVar(y, v) if *y == x => Some(*v),
            Stmt::If { then_, else_, .. } => {
                single_write(&then_.0, x).or_else(|| single_write(&else_.0, x))
            }
            Stmt::Loop { body, continuing } => {
                single_write(&body.0, x).or_else(|| single_write(&continuing.0, x))
            }
            Stmt::Switch { cases, .. } => cases.iter().find_map(|c| single_write(&c.body.0, x)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

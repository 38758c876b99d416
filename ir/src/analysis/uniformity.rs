//! Uniformity and stride analysis.
//!
//! The JIT runs a *chunk* of work-items in SIMD lanes: consecutive
//! work-items along dimension 0 of one row of a work-group (same local ids
//! in dimensions 1 and 2). This pass classifies every value of a function
//! for such a chunk:
//!
//! - [`Shape::Uniform`]: the same in every active lane (kernel arguments,
//!   constants, `get_group_id`, `get_local_id(1)`, arithmetic on uniforms,
//!   loads from uniform addresses outside private memory…);
//! - [`Shape::Linear`]`(s)`: lane `i` holds `lane0 + i * s` (`get_global_id(0)`
//!   has stride 1; `&a[get_global_id(0)]` has stride `sizeof(*a)` bytes);
//! - [`Shape::Varying`]: anything else.
//!
//! Register variables are uniform only when every write is uniform and
//! happens in control flow that does not diverge within the variable's
//! scope. A variable's scope is the whole function, or, when every access
//! to it lies in one block whose first statement touching it writes it
//! (`if (gid < n) { float s = 0; for (int k = 0; k < n; k++) s += …; }`),
//! that block: each run of the block writes the variable before any read
//! sees it, so the lanes that run the block agree on it however the block
//! was reached ([`scope_depths`]). Divergence of loops depends on the
//! uniformity of branch conditions, which depends on variables, so the pass
//! iterates to a fixed point (facts only move from uniform towards varying).
//!
//! `min`/`max`/`clamp` of a linear `int` and uniform bounds is called
//! linear too ([`clamped_arg`]), though a chunk a bound cuts into is not.
//!
//! The JIT treats `Linear` as a hint: before it issues a vector access it
//! checks at run time that the lane addresses really are consecutive, so an
//! overflow the analysis cannot see costs speed, never correctness.
//!
//! Assumes calls have been inlined: a `Call` result is `Varying`.

use crate::builtin::Builtin;
use crate::module::*;
use crate::types::{Scalar, Type};

/// How a value varies across the lanes of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Uniform,
    /// `lane0 + lane * stride` (in the value's own units: elements for
    /// integers, bytes for pointers). Never `Linear(0)`.
    Linear(i64),
    Varying,
}

impl Shape {
    fn linear(stride: i64) -> Shape {
        if stride == 0 {
            Shape::Uniform
        } else {
            Shape::Linear(stride)
        }
    }

    pub fn is_uniform(self) -> bool {
        self == Shape::Uniform
    }

    /// The least precise of two shapes: a value that may be either.
    /// Uniform and linear make varying: a variable written a uniform
    /// value in one place and a linear one in another (`c ? u : gid`, its
    /// arms writing one variable) is neither at every read.
    pub fn join(self, other: Shape) -> Shape {
        if self == other {
            self
        } else {
            Shape::Varying
        }
    }
}

/// The result of [`analyze`].
#[derive(Clone, Debug, PartialEq)]
pub struct Uniformity {
    /// One per instruction of the function.
    pub values: Vec<Shape>,
    /// One per register variable: `true` when it may differ between lanes.
    pub varying_vars: Vec<bool>,
    /// One per register variable: the join of the shapes of every value
    /// written to it (`Varying` when written under divergent control).
    /// Reads take this shape, so `size_t i = get_global_id(0); a[i]` is
    /// still seen as consecutive.
    pub var_shapes: Vec<Shape>,
    /// One per register variable: `true` when it is uniform only within its
    /// block scope (written under a branch or loop that diverges outside
    /// that block): the same in the lanes that run the block, not in every
    /// lane of the chunk (see [`Uniformity::var_is_uniform_everywhere`]).
    pub scoped_vars: Vec<bool>,
}

impl Uniformity {
    pub fn shape(&self, v: ValueId) -> Shape {
        self.values[v.index()]
    }

    pub fn is_uniform(&self, v: ValueId) -> bool {
        self.shape(v).is_uniform()
    }

    /// Whether `var` holds one value for the lanes that read it: for a
    /// variable of a block scope, the lanes running that block.
    pub fn var_is_uniform(&self, var: VarId) -> bool {
        !self.varying_vars[var.index()]
    }

    /// Whether `var` is uniform and no write to it diverges anywhere in the
    /// function: one value for every lane of the chunk wherever it is read,
    /// whatever lanes run (what a value shared by the chunks of a group,
    /// or a region's successor, needs).
    pub fn var_is_uniform_everywhere(&self, var: VarId) -> bool {
        self.var_is_uniform(var) && !self.scoped_vars[var.index()]
    }

    /// Whether a loop must run under masks: some `break` or `continue` that
    /// leaves it is taken by only some lanes, or it contains a `return`
    /// (which may leave lanes waiting at its `continuing` block behind).
    pub fn loop_is_divergent(&self, body: &Block, continuing: &Block) -> bool {
        self.exits_diverge(body, false, false, false)
            || self.exits_diverge(continuing, false, false, false)
    }

    /// Whether a `return` must be executed under masks (it is not taken by
    /// every lane that is still running the function).
    pub fn return_is_masked(&self, under_varying: bool, in_loop_or_switch: bool) -> bool {
        under_varying || in_loop_or_switch
    }

    fn exits_diverge(
        &self,
        block: &Block,
        under_varying: bool,
        in_switch: bool,
        nested_loop: bool,
    ) -> bool {
        block.0.iter().any(|s| match s {
            Stmt::Break => !nested_loop && !in_switch && under_varying,
            Stmt::Continue => !nested_loop && (under_varying || in_switch),
            Stmt::Return(_) => true,
            Stmt::If { cond, then_, else_ } => {
                let uv = under_varying || !self.is_uniform(*cond);
                self.exits_diverge(then_, uv, in_switch, nested_loop)
                    || self.exits_diverge(else_, uv, in_switch, nested_loop)
            }
            Stmt::Switch { selector, cases } => {
                let uv = under_varying || !self.is_uniform(*selector);
                cases
                    .iter()
                    .any(|c| self.exits_diverge(&c.body, uv, true, nested_loop))
            }
            Stmt::Loop { body, continuing } => {
                self.exits_diverge(body, under_varying, false, true)
                    || self.exits_diverge(continuing, under_varying, false, true)
            }
            _ => false,
        })
    }
}

/// Classifies every value and variable of `func` (see the module doc).
pub fn analyze(module: &Module, func: &Function) -> Uniformity {
    let mut u = Uniformity {
        values: vec![Shape::Uniform; func.insts.len()],
        varying_vars: vec![false; func.vars.len()],
        var_shapes: vec![Shape::Uniform; func.vars.len()],
        scoped_vars: vec![false; func.vars.len()],
    };
    let scopes = scope_depths(func);
    // Each round recomputes the variables' shapes from the values written
    // now, not joined with earlier rounds: a difference of two linear
    // values is linear while one side is still uniform and uniform once
    // both are linear (`(int)get_local_id(0) - lid` with `lid` a variable),
    // so a shape can fall back, and a variable must not keep what an
    // earlier round wrote to it. Should the rounds not settle, the joined
    // form, which only moves towards varying, ends the iteration.
    for round in 0.. {
        let before = u.clone();
        for i in 0..func.insts.len() {
            u.values[i] = shape_of(module, func, &u, &func.insts[i]);
        }
        let fresh = round < FRESH_ROUNDS;
        if fresh {
            u.varying_vars.fill(false);
            u.var_shapes.fill(Shape::Uniform);
            u.scoped_vars.fill(false);
        }
        // A fresh round's first write of a variable sets its shape; the
        // later ones join it.
        let mut seen = vec![!fresh; func.vars.len()];
        mark_vars(&mut u, &func.body, &scopes, Nesting::default(), &mut seen);
        if u == before {
            break;
        }
    }
    u
}

/// Rounds of [`analyze`] that recompute variable shapes from scratch.
const FRESH_ROUNDS: usize = 64;

/// Where a statement sits: `depth` blocks deep (the function's body is
/// depth 0), and `diverged`, the depth of the innermost block entered
/// through a branch or loop the lanes may take apart (0 when none).
#[derive(Clone, Copy, Default)]
struct Nesting {
    depth: u32,
    diverged: u32,
}

impl Nesting {
    /// The nesting of a block inside this one, entered divergently or not.
    fn enter(self, divergent: bool) -> Nesting {
        let depth = self.depth + 1;
        Nesting {
            depth,
            diverged: if divergent { depth } else { self.diverged },
        }
    }
}

fn mark_vars(u: &mut Uniformity, block: &Block, scopes: &[u32], at: Nesting, seen: &mut [bool]) {
    for s in &block.0 {
        match s {
            Stmt::WriteVar(var, v) => {
                // Divergence outside the variable's scope block (at a depth
                // of at most the scope's) does not matter: every run of the
                // block writes the variable before reading it.
                let scope = scopes.get(var.index()).copied().unwrap_or(0);
                let written = if at.diverged > scope {
                    Shape::Varying
                } else {
                    u.shape(*v)
                };
                if at.diverged > 0 && at.diverged <= scope {
                    u.scoped_vars[var.index()] = true;
                }
                let shape = match seen[var.index()] {
                    true => u.var_shapes[var.index()].join(written),
                    false => written,
                };
                seen[var.index()] = true;
                u.var_shapes[var.index()] = shape;
                if !shape.is_uniform() {
                    u.varying_vars[var.index()] = true;
                }
            }
            Stmt::If { cond, then_, else_ } => {
                let inner = at.enter(!u.is_uniform(*cond));
                mark_vars(u, then_, scopes, inner, seen);
                mark_vars(u, else_, scopes, inner, seen);
            }
            Stmt::Switch { selector, cases } => {
                let inner = at.enter(!u.is_uniform(*selector));
                for c in cases {
                    mark_vars(u, &c.body, scopes, inner, seen);
                }
            }
            Stmt::Loop { body, continuing } => {
                let inner = at.enter(u.loop_is_divergent(body, continuing));
                mark_vars(u, body, scopes, inner, seen);
                mark_vars(u, continuing, scopes, inner, seen);
            }
            _ => {}
        }
    }
}

/// One per register variable: the depth of its scope block (0, the
/// function's body, for most). A variable gets the innermost block that
/// holds every access to it (its writes and the `Eval`s of its reads)
/// when the first of that block's statements to touch it is a write of
/// it: then every read in a run of the block sees a write of the same run,
/// made by lanes that run the block. A variable read before its first
/// write there (a value carried from an earlier run or from outside) keeps
/// the function as its scope.
pub fn scope_depths(func: &Function) -> Vec<u32> {
    /// Each access: the statement index at every depth from the body down,
    /// and whether it is a write.
    struct Walk<'f> {
        func: &'f Function,
        path: Vec<usize>,
        /// Per variable: the common path prefix of its accesses so far
        /// (`None` before the first), and the first access's path and kind.
        common: Vec<Option<Vec<usize>>>,
        first: Vec<Option<(Vec<usize>, bool)>>,
    }
    impl Walk<'_> {
        /// A block nested in the current statement, `marker` telling it
        /// from the statement's other blocks.
        fn arm(&mut self, marker: usize, b: &Block) {
            self.path.push(marker);
            self.block(b);
            self.path.pop();
        }
        fn access(&mut self, var: VarId, write: bool) {
            let i = var.index();
            if i >= self.common.len() {
                return;
            }
            match &mut self.common[i] {
                Some(c) => {
                    let keep = c.iter().zip(&self.path).take_while(|(a, b)| a == b).count();
                    c.truncate(keep);
                }
                None => self.common[i] = Some(self.path.clone()),
            }
            if self.first[i].is_none() {
                self.first[i] = Some((self.path.clone(), write));
            }
        }
        fn block(&mut self, b: &Block) {
            for (k, s) in b.0.iter().enumerate() {
                self.path.push(k);
                match s {
                    Stmt::WriteVar(var, _) => self.access(*var, true),
                    Stmt::Eval(v) => {
                        if let Some(Inst::ReadVar(var)) =
                            self.func.insts.get(v.index()).map(|d| &d.inst)
                        {
                            self.access(*var, false);
                        }
                    }
                    Stmt::If { then_, else_, .. } => {
                        self.arm(0, then_);
                        self.arm(1, else_);
                    }
                    Stmt::Loop { body, continuing } => {
                        self.arm(0, body);
                        self.arm(1, continuing);
                    }
                    // Each case's body is a block of its own, run from its
                    // top by the lanes that match it or fall into it.
                    Stmt::Switch { cases, .. } => {
                        for (c, case) in cases.iter().enumerate() {
                            self.arm(c, &case.body);
                        }
                    }
                    _ => {}
                }
                self.path.pop();
            }
        }
    }
    let n = func.vars.len();
    let mut w = Walk {
        func,
        path: Vec::new(),
        common: vec![None; n],
        first: vec![None; n],
    };
    w.block(&func.body);
    (0..n)
        .map(|i| {
            let (Some(common), Some((first, is_write))) = (&w.common[i], &w.first[i]) else {
                return 0;
            };
            // A path alternates a statement's index and the marker of a
            // block inside that statement, so a block `d` deep is named by
            // a prefix of length `2d`. The deepest block holding every
            // access is the common prefix cut to an even length (an odd
            // one ends at a statement whose different blocks, or which
            // itself, the accesses are in), and the first access must be
            // one of that block's own statements (a path one longer).
            let block_len = common.len() / 2 * 2;
            if *is_write && first.len() == block_len + 1 {
                (block_len / 2) as u32
            } else {
                0
            }
        })
        .collect()
}

/// The shape of a sum or difference of two linear values, `shape`, unless
/// their strides cancel and either one is linear only approximately: then
/// the lanes need not agree, and the result is `Varying`. A clamped value
/// is consecutive only until a bound cuts into the chunk
/// (`max(clamp(lid, lo, hi), lo) - lid`), and a value widened after it may
/// have wrapped at its narrower width is consecutive only modulo that width
/// (`(long)((uint)lid - 2) - (long)lid`). Exact ones cancel to a uniform
/// value (`get_global_id(0) - get_local_id(0)`, `(int)lid - lid`).
fn cancelled(func: &Function, a: ValueId, b: ValueId, shape: Shape) -> Shape {
    if shape != Shape::Uniform {
        return shape;
    }
    let mut seen = Vec::new();
    let mut budget = APPROXIMATE_VISITS;
    if approximate(func, a, &mut seen, &mut budget, 0)
        || approximate(func, b, &mut seen, &mut budget, 0)
    {
        Shape::Varying
    } else {
        shape
    }
}

/// Values [`approximate`] may visit for one [`cancelled`]: a variable
/// written in many places whose writes read it again (a hash unrolled
/// into dozens of copies) makes the walk exponential in its depth, and
/// past this it answers `true` (the conservative answer).
const APPROXIMATE_VISITS: u32 = 20_000;

/// Whether linear `v`'s chain holds a clamp or a widening that may follow
/// a wrap (see [`cancelled`]); `true` when the chain cannot be followed
/// (deeper than 32, or past `budget` visits).
fn approximate(
    func: &Function,
    v: ValueId,
    seen: &mut Vec<VarId>,
    budget: &mut u32,
    depth: u32,
) -> bool {
    if depth > 32 || *budget == 0 {
        return true;
    }
    *budget -= 1;
    let d = depth + 1;
    match &func.inst(v).inst {
        Inst::Const(_) | Inst::Param(_) | Inst::WorkItem(..) => false,
        Inst::Builtin(name, args) => {
            is_int32_clamp(*name, &func.inst(v).ty)
                || args.iter().any(|x| approximate(func, *x, seen, budget, d))
        }
        Inst::Convert { value, .. } => {
            let widening = match (func.ty(*value).scalar(), func.ty(v).scalar()) {
                (Some(from), Some(to)) => to.bits() > from.bits(),
                _ => true,
            };
            // A local id read as `int` is below 2^31: it never wrapped.
            let local_id = matches!(
                func.inst(*value).inst,
                Inst::Convert { value: inner, .. } if matches!(
                    func.inst(inner).inst,
                    Inst::WorkItem(WorkItemFn::LocalId | WorkItemFn::LocalLinearId, _)
                )
            );
            (widening && !local_id) || approximate(func, *value, seen, budget, d)
        }
        Inst::Unary(_, x) | Inst::PtrCast(x) | Inst::PtrToInt(x) | Inst::IntToPtr(x) => {
            approximate(func, *x, seen, budget, d)
        }
        Inst::Binary(_, x, y) | Inst::Index(x, y) | Inst::Elem(x, y) => {
            approximate(func, *x, seen, budget, d) || approximate(func, *y, seen, budget, d)
        }
        Inst::ReadVar(var) => {
            if seen.contains(var) {
                return false;
            }
            seen.push(*var);
            let mut writes = Vec::new();
            writes_of(&func.body, *var, &mut writes);
            let approx = writes
                .iter()
                .any(|w| approximate(func, *w, seen, budget, d));
            seen.pop();
            approx
        }
        _ => true,
    }
}

/// The values written to `var` anywhere in `block`.
pub fn writes_of(block: &Block, var: VarId, out: &mut Vec<ValueId>) {
    for s in &block.0 {
        match s {
            Stmt::WriteVar(x, v) if *x == var => out.push(*v),
            Stmt::If { then_, else_, .. } => {
                writes_of(then_, var, out);
                writes_of(else_, var, out);
            }
            Stmt::Loop { body, continuing } => {
                writes_of(body, var, out);
                writes_of(continuing, var, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    writes_of(&c.body, var, out);
                }
            }
            _ => {}
        }
    }
}

fn const_of(func: &Function, v: ValueId) -> Option<i64> {
    func.int_const(v)
}

fn elem_size(module: &Module, ptr_ty: &Type) -> Option<i64> {
    ptr_ty.pointee().map(|t| i64::from(module.size_of(t)))
}

fn shape_of(module: &Module, func: &Function, u: &Uniformity, data: &InstData) -> Shape {
    let s = |v: ValueId| u.shape(v);
    let all_uniform = |vs: &[ValueId]| {
        if vs.iter().all(|v| u.is_uniform(*v)) {
            Shape::Uniform
        } else {
            Shape::Varying
        }
    };
    let is_int_or_ptr = data.ty.is_pointer() || data.ty.scalar().is_some_and(|s| s.is_int());
    match &data.inst {
        Inst::Param(_) | Inst::Const(_) | Inst::Undef | Inst::GlobalAddr(_) => Shape::Uniform,
        Inst::SlotAddr(_) => Shape::Varying,
        Inst::ReadVar(var) => {
            if u.var_is_uniform(*var) {
                Shape::Uniform
            } else {
                u.var_shapes[var.index()]
            }
        }
        Inst::WorkItem(f, dim) => match f {
            WorkItemFn::GlobalId | WorkItemFn::LocalId => match dim.and_then(|d| const_of(func, d))
            {
                Some(0) => Shape::Linear(1),
                Some(_) => Shape::Uniform,
                None => Shape::Varying,
            },
            WorkItemFn::GlobalLinearId | WorkItemFn::LocalLinearId => Shape::Linear(1),
            _ => match dim {
                Some(d) if !u.is_uniform(*d) => Shape::Varying,
                _ => Shape::Uniform,
            },
        },
        Inst::Unary(UnaryOp::Neg, a) if is_int_or_ptr => match s(*a) {
            Shape::Linear(k) => Shape::linear(k.wrapping_neg()),
            other => other,
        },
        Inst::Binary(op, a, b) if is_int_or_ptr && data.ty.lanes() == 1 => {
            let (sa, sb) = (s(*a), s(*b));
            match (op, sa, sb) {
                (_, Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                (BinaryOp::Add, Shape::Linear(x), Shape::Uniform)
                | (BinaryOp::Add, Shape::Uniform, Shape::Linear(x)) => Shape::Linear(x),
                (BinaryOp::Add, Shape::Linear(x), Shape::Linear(y)) => {
                    cancelled(func, *a, *b, Shape::linear(x.wrapping_add(y)))
                }
                (BinaryOp::Sub, Shape::Linear(x), Shape::Uniform) => Shape::Linear(x),
                (BinaryOp::Sub, Shape::Uniform, Shape::Linear(x)) => {
                    Shape::linear(x.wrapping_neg())
                }
                (BinaryOp::Sub, Shape::Linear(x), Shape::Linear(y)) => {
                    cancelled(func, *a, *b, Shape::linear(x.wrapping_sub(y)))
                }
                (BinaryOp::Mul, Shape::Linear(x), Shape::Uniform) => match const_of(func, *b) {
                    Some(c) => Shape::linear(x.wrapping_mul(c)),
                    None => Shape::Varying,
                },
                (BinaryOp::Mul, Shape::Uniform, Shape::Linear(x)) => match const_of(func, *a) {
                    Some(c) => Shape::linear(x.wrapping_mul(c)),
                    None => Shape::Varying,
                },
                (BinaryOp::Shl, Shape::Linear(x), Shape::Uniform) => match const_of(func, *b) {
                    Some(c) if (0..32).contains(&c) => Shape::linear(x.wrapping_shl(c as u32)),
                    _ => Shape::Varying,
                },
                _ => Shape::Varying,
            }
        }
        // Integer conversions and pointer casts keep the per-lane step (the
        // JIT re-checks it before relying on it).
        Inst::Convert { value, .. }
            if is_int_or_ptr && func.ty(*value).scalar().is_some_and(|s| s.is_int()) =>
        {
            s(*value)
        }
        Inst::PtrCast(p) | Inst::PtrToInt(p) | Inst::IntToPtr(p) | Inst::Field(p, _) => s(*p),
        Inst::Index(p, i) | Inst::Elem(p, i) => {
            let size = if matches!(data.inst, Inst::Index(..)) {
                elem_size(module, func.ty(*p))
            } else {
                func.ty(*p).pointee().and_then(|t| match t {
                    Type::Array(e, _) => Some(i64::from(module.size_of(e))),
                    Type::Vector(sc, _) => Some(i64::from(sc.size())),
                    _ => None,
                })
            };
            match (s(*p), s(*i), size) {
                (Shape::Varying, _, _) | (_, Shape::Varying, _) => Shape::Varying,
                (sp, Shape::Uniform, _) => sp,
                (sp, Shape::Linear(k), Some(size)) => {
                    let step = k.wrapping_mul(size);
                    match sp {
                        Shape::Uniform => Shape::linear(step),
                        Shape::Linear(x) => Shape::linear(x.wrapping_add(step)),
                        Shape::Varying => Shape::Varying,
                    }
                }
                _ => Shape::Varying,
            }
        }
        Inst::Load(p) => match (s(*p), func.ty(*p).address_space()) {
            (Shape::Uniform, Some(space)) if space != crate::types::AddressSpace::Private => {
                Shape::Uniform
            }
            // A by-value struct argument is one shared, read-only copy.
            (Shape::Uniform, Some(_)) if points_into_args(func, *p) => Shape::Uniform,
            _ => Shape::Varying,
        },
        Inst::Atomic { .. } | Inst::Call(..) => Shape::Varying,
        Inst::Builtin(name, args) => {
            if let Some(x) = clamped_arg(func, u, *name, args) {
                s(x)
            } else if *name == Builtin::GetSubGroupLocalId {
                // The lane number: a sub-group is a chunk.
                Shape::Linear(1)
            } else if builtin_is_lane_dependent(*name) {
                Shape::Varying
            } else if crate::sub_group::same_in_every_item(*name) {
                // A sub-group is a chunk: a reduction, broadcast, vote or
                // ballot has one value for all of it.
                Shape::Uniform
            } else {
                all_uniform(args)
            }
        }
        Inst::Unary(_, a) => all_uniform(&[*a]),
        Inst::Binary(_, a, b) | Inst::Cmp(_, a, b) => all_uniform(&[*a, *b]),
        Inst::Select(c, a, b) => all_uniform(&[*c, *a, *b]),
        Inst::Convert { value, .. }
        | Inst::Bitcast(value)
        | Inst::Splat(value)
        | Inst::Extract(value, _) => all_uniform(&[*value]),
        Inst::Construct(vs) => all_uniform(vs),
        Inst::Insert(a, _, b) | Inst::Shuffle(a, b, _) => all_uniform(&[*a, *b]),
    }
}

/// For `min`, `max` or `clamp` of 32-bit integers whose one non-uniform
/// argument is linear (`clamp(x + dx, 0, w - 1)`, `min(gid, n - 1)`): that
/// argument. The result is called linear with the argument's stride, which
/// it is in every chunk that no bound cuts into. The function is monotone
/// and moves no two inputs further apart, so lane W-1 minus lane 0 equals
/// `stride * (W - 1)` exactly when no lane was cut (the JIT's run-time
/// test; see `wrap_points` in its `linear` module).
pub fn clamped_arg(
    func: &Function,
    u: &Uniformity,
    name: Builtin,
    args: &[ValueId],
) -> Option<ValueId> {
    if !args.iter().all(|a| is_int32_clamp(name, func.ty(*a))) {
        return None;
    }
    let linear = |v: ValueId| matches!(u.shape(v), Shape::Linear(_));
    match (name, args) {
        (Builtin::Clamp, [x, lo, hi]) if linear(*x) && u.is_uniform(*lo) && u.is_uniform(*hi) => {
            Some(*x)
        }
        (Builtin::Min | Builtin::Max, [a, b]) if linear(*a) && u.is_uniform(*b) => Some(*a),
        (Builtin::Min | Builtin::Max, [a, b]) if u.is_uniform(*a) && linear(*b) => Some(*b),
        _ => None,
    }
}

/// Whether `name` on values of type `ty` is `min`, `max` or `clamp` of one
/// 32-bit integer (the builtins [`clamped_arg`] follows).
pub fn is_int32_clamp(name: Builtin, ty: &Type) -> bool {
    matches!(name, Builtin::Min | Builtin::Max | Builtin::Clamp)
        && ty.lanes() == 1
        && matches!(ty.scalar(), Some(Scalar::I32 | Scalar::U32))
}

/// Whether `p` is derived from a by-value struct parameter.
fn points_into_args(func: &Function, mut p: ValueId) -> bool {
    loop {
        match &func.inst(p).inst {
            Inst::Param(n) => return func.params.get(*n as usize).is_some_and(|q| q.byval),
            Inst::Field(q, _) | Inst::PtrCast(q) | Inst::Index(q, _) | Inst::Elem(q, _) => p = *q,
            _ => return false,
        }
    }
}

/// Builtins whose result differs between lanes even for uniform arguments
/// (or which must run once per lane for their side effects).
fn builtin_is_lane_dependent(name: Builtin) -> bool {
    use Builtin::*;
    matches!(
        name,
        Printf
            | WorkGroupScanExclusiveAdd
            | WorkGroupScanExclusiveMin
            | WorkGroupScanExclusiveMax
            | WorkGroupScanInclusiveAdd
            | WorkGroupScanInclusiveMin
            | WorkGroupScanInclusiveMax
    ) || crate::sub_group::lane_dependent(name)
        || name.vector_data().is_some_and(|v| !v.load)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::FunctionBuilder;
    use crate::types::AddressSpace;

    fn gptr(t: Type) -> Type {
        Type::ptr(AddressSpace::Global, t)
    }

    fn param(name: &str, ty: Type) -> Param {
        Param {
            name: name.into(),
            ty,
            byval: false,
        }
    }

    #[test]
    fn global_id_is_linear_and_index_scales_by_element_size() {
        let mut b = FunctionBuilder::new(
            "k",
            vec![param("a", gptr(Type::F32)), param("n", Type::I32)],
            Type::Void,
        );
        let a = b.param(0);
        let n = b.param(1);
        let zero = b.const_u32(0);
        let one = b.const_u32(1);
        let gid = b.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(zero)), Type::U64);
        let gid1 = b.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(one)), Type::U64);
        let i = b.push(
            Inst::Convert {
                value: gid,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::I32,
        );
        let two = b.const_i32(2);
        let i2 = b.binary(BinaryOp::Mul, i, two);
        let p = b.push(Inst::Index(a, i), gptr(Type::F32));
        let p2 = b.push(Inst::Index(a, i2), gptr(Type::F32));
        let x = b.load(p);
        let un = b.load(a);
        let c = b.cmp(CmpOp::Lt, i, n);
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        let u = analyze(&m, &f);
        assert_eq!(u.shape(gid), Shape::Linear(1));
        assert_eq!(u.shape(gid1), Shape::Uniform);
        assert_eq!(u.shape(i), Shape::Linear(1));
        assert_eq!(u.shape(i2), Shape::Linear(2));
        assert_eq!(u.shape(p), Shape::Linear(4));
        assert_eq!(u.shape(p2), Shape::Linear(8));
        assert_eq!(u.shape(x), Shape::Varying);
        assert_eq!(u.shape(un), Shape::Uniform);
        assert_eq!(u.shape(c), Shape::Varying);
        assert_eq!(u.shape(n), Shape::Uniform);
    }

    #[test]
    fn variable_written_under_varying_branch_is_varying() {
        let mut b = FunctionBuilder::new("k", vec![param("n", Type::I32)], Type::Void);
        let n = b.param(0);
        let vu = b.new_var("u", Type::I32);
        let vv = b.new_var("v", Type::I32);
        b.stmt(Stmt::WriteVar(vu, n));
        let zero = b.const_u32(0);
        let lid = b.push(Inst::WorkItem(WorkItemFn::LocalId, Some(zero)), Type::U64);
        let l32 = b.push(
            Inst::Convert {
                value: lid,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::I32,
        );
        let c = b.cmp(CmpOp::Lt, l32, n);
        b.if_else(c, |b| b.stmt(Stmt::WriteVar(vv, n)), |_| {});
        let ru = b.push(Inst::ReadVar(vu), Type::I32);
        let rv = b.push(Inst::ReadVar(vv), Type::I32);
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        let u = analyze(&m, &f);
        assert!(u.var_is_uniform(vu));
        assert!(!u.var_is_uniform(vv));
        assert_eq!(u.shape(ru), Shape::Uniform);
        assert_eq!(u.shape(rv), Shape::Varying);
    }

    #[test]
    fn variables_keep_the_stride_of_what_is_written_to_them() {
        // i = gid; j = gid; j = j * 2; k = gid; if (lid < n) k = 0;
        let mut b = FunctionBuilder::new("k", vec![param("n", Type::U64)], Type::Void);
        let n = b.param(0);
        let vi = b.new_var("i", Type::U64);
        let vj = b.new_var("j", Type::U64);
        let vk = b.new_var("k", Type::U64);
        let zero = b.const_u32(0);
        let gid = b.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(zero)), Type::U64);
        b.stmt(Stmt::WriteVar(vi, gid));
        b.stmt(Stmt::WriteVar(vj, gid));
        let rj = b.push(Inst::ReadVar(vj), Type::U64);
        let two = b.push(Inst::Const(2), Type::U64);
        let j2 = b.binary(BinaryOp::Mul, rj, two);
        b.stmt(Stmt::WriteVar(vj, j2));
        b.stmt(Stmt::WriteVar(vk, gid));
        let c = b.cmp(CmpOp::Lt, gid, n);
        let z = b.push(Inst::Const(0), Type::U64);
        b.if_else(c, |b| b.stmt(Stmt::WriteVar(vk, z)), |_| {});
        let ri = b.push(Inst::ReadVar(vi), Type::U64);
        let rj2 = b.push(Inst::ReadVar(vj), Type::U64);
        let rk = b.push(Inst::ReadVar(vk), Type::U64);
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        let u = analyze(&m, &f);
        assert_eq!(u.shape(ri), Shape::Linear(1));
        assert_eq!(u.shape(rj2), Shape::Varying, "strides 1 and 2 meet");
        assert_eq!(
            u.shape(rk),
            Shape::Varying,
            "written under a varying branch"
        );
        assert!(!u.var_is_uniform(vi));
    }

    #[test]
    fn loop_with_varying_break_is_divergent_and_taints_its_variables() {
        // i = 0; loop { if (i >= lid) break; i = i + 1; }  — per-lane trip count.
        let mut b = FunctionBuilder::new("k", vec![], Type::Void);
        let i = b.new_var("i", Type::I32);
        let z = b.const_i32(0);
        b.stmt(Stmt::WriteVar(i, z));
        let zero = b.const_u32(0);
        let lid = b.push(Inst::WorkItem(WorkItemFn::LocalId, Some(zero)), Type::U64);
        let l32 = b.push(
            Inst::Convert {
                value: lid,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::I32,
        );
        let mut read = ValueId(0);
        b.loop_(
            |b| {
                read = b.push(Inst::ReadVar(i), Type::I32);
                let c = b.cmp(CmpOp::Ge, read, l32);
                b.if_else(c, |b| b.stmt(Stmt::Break), |_| {});
                let one = b.const_i32(1);
                let next = b.binary(BinaryOp::Add, read, one);
                b.stmt(Stmt::WriteVar(i, next));
            },
            |_| {},
        );
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        let u = analyze(&m, &f);
        assert!(!u.var_is_uniform(i));
        assert_eq!(u.shape(read), Shape::Varying);
        let Some(Stmt::Loop { body, continuing }) =
            f.body.0.iter().find(|s| matches!(s, Stmt::Loop { .. }))
        else {
            panic!("loop expected");
        };
        assert!(u.loop_is_divergent(body, continuing));
    }

    #[test]
    fn loop_with_uniform_trip_count_stays_uniform() {
        let mut b = FunctionBuilder::new("k", vec![param("n", Type::I32)], Type::Void);
        let n = b.param(0);
        let i = b.new_var("i", Type::I32);
        let z = b.const_i32(0);
        b.stmt(Stmt::WriteVar(i, z));
        b.loop_(
            |b| {
                let r = b.push(Inst::ReadVar(i), Type::I32);
                let c = b.cmp(CmpOp::Ge, r, n);
                b.if_else(c, |b| b.stmt(Stmt::Break), |_| {});
                let one = b.const_i32(1);
                let next = b.binary(BinaryOp::Add, r, one);
                b.stmt(Stmt::WriteVar(i, next));
            },
            |_| {},
        );
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        let u = analyze(&m, &f);
        assert!(u.var_is_uniform(i));
        let Some(Stmt::Loop { body, continuing }) =
            f.body.0.iter().find(|s| matches!(s, Stmt::Loop { .. }))
        else {
            panic!("loop expected");
        };
        assert!(!u.loop_is_divergent(body, continuing));
    }

    /// `if (lid < n) { s = n; loop { if (s >= 100) break; s = s + 1; } t =
    /// t + 1; o = s; }` inside a uniform loop: `s` is written first in the
    /// arm and only used there, so it is uniform for the arm's lanes (and
    /// its loop is not divergent); `t`, read in the arm before the arm
    /// writes it, carries a count from earlier runs with other lanes.
    #[test]
    fn variable_written_first_in_a_varying_arm_is_uniform_there() {
        let mut b = FunctionBuilder::new("k", vec![param("n", Type::I32)], Type::Void);
        let n = b.param(0);
        let s = b.new_var("s", Type::I32);
        let t = b.new_var("t", Type::I32);
        let zero = b.const_u32(0);
        let lid = b.push(Inst::WorkItem(WorkItemFn::LocalId, Some(zero)), Type::U64);
        let l32 = b.push(
            Inst::Convert {
                value: lid,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::I32,
        );
        let c = b.cmp(CmpOp::Lt, l32, n);
        let mut reads = (ValueId(0), ValueId(0));
        let mut inner_loop = None;
        b.loop_(
            |b| {
                b.if_else(
                    c,
                    |b| {
                        b.stmt(Stmt::WriteVar(s, n));
                        b.loop_(
                            |b| {
                                let r = b.push(Inst::ReadVar(s), Type::I32);
                                let hundred = b.const_i32(100);
                                let done = b.cmp(CmpOp::Ge, r, hundred);
                                b.if_else(done, |b| b.stmt(Stmt::Break), |_| {});
                                let one = b.const_i32(1);
                                let next = b.binary(BinaryOp::Add, r, one);
                                b.stmt(Stmt::WriteVar(s, next));
                            },
                            |_| {},
                        );
                        let rt = b.push(Inst::ReadVar(t), Type::I32);
                        let one = b.const_i32(1);
                        let nt = b.binary(BinaryOp::Add, rt, one);
                        b.stmt(Stmt::WriteVar(t, nt));
                        reads = (b.push(Inst::ReadVar(s), Type::I32), rt);
                    },
                    |_| {},
                );
                b.if_else(c, |_| {}, |b| b.stmt(Stmt::Break));
            },
            |_| {},
        );
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        let depths = scope_depths(&f);
        // The outer loop's body is depth 1, the `if`'s arm depth 2.
        assert_eq!(depths[s.index()], 2);
        assert_eq!(depths[t.index()], 0);
        let u = analyze(&m, &f);
        assert!(u.var_is_uniform(s));
        assert!(!u.var_is_uniform_everywhere(s));
        assert_eq!(u.shape(reads.0), Shape::Uniform);
        assert!(!u.var_is_uniform(t));
        assert_eq!(u.shape(reads.1), Shape::Varying);
        fn find_inner(b: &Block, depth: u32, out: &mut Option<(Block, Block)>) {
            for st in &b.0 {
                match st {
                    Stmt::Loop { body, continuing } if depth > 0 => {
                        *out = Some((body.clone(), continuing.clone()))
                    }
                    Stmt::Loop { body, continuing } => {
                        find_inner(body, depth + 1, out);
                        find_inner(continuing, depth + 1, out);
                    }
                    Stmt::If { then_, else_, .. } => {
                        find_inner(then_, depth, out);
                        find_inner(else_, depth, out);
                    }
                    _ => {}
                }
            }
        }
        find_inner(&f.body, 0, &mut inner_loop);
        let (body, continuing) = inner_loop.expect("the arm's loop");
        assert!(!u.loop_is_divergent(&body, &continuing));
    }

    /// A variable written first in an arm but also under a varying branch
    /// inside it stays per lane.
    #[test]
    fn scoped_variable_written_under_divergence_inside_its_arm_is_varying() {
        let mut b = FunctionBuilder::new("k", vec![param("n", Type::I32)], Type::Void);
        let n = b.param(0);
        let v = b.new_var("v", Type::I32);
        let zero = b.const_u32(0);
        let lid = b.push(Inst::WorkItem(WorkItemFn::LocalId, Some(zero)), Type::U64);
        let l32 = b.push(
            Inst::Convert {
                value: lid,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::I32,
        );
        let c = b.cmp(CmpOp::Lt, l32, n);
        let c2 = b.cmp(CmpOp::Gt, l32, n);
        let mut read = ValueId(0);
        b.if_else(
            c,
            |b| {
                b.stmt(Stmt::WriteVar(v, n));
                let seven = b.const_i32(7);
                b.if_else(c2, |b| b.stmt(Stmt::WriteVar(v, seven)), |_| {});
                read = b.push(Inst::ReadVar(v), Type::I32);
            },
            |_| {},
        );
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        assert_eq!(scope_depths(&f)[v.index()], 1);
        let u = analyze(&m, &f);
        assert!(!u.var_is_uniform(v));
        assert_eq!(u.shape(read), Shape::Varying);
    }

    #[test]
    fn private_memory_is_per_lane() {
        let mut b = FunctionBuilder::new("k", vec![], Type::Void);
        let s = b.new_slot("arr", Type::array(Type::Scalar(Scalar::I32), 4));
        let p = b.push(
            Inst::SlotAddr(s),
            Type::ptr(AddressSpace::Private, Type::array(Type::I32, 4)),
        );
        let f = b.finish();
        let m = Module {
            functions: vec![f.clone()],
            ..Module::default()
        };
        assert_eq!(analyze(&m, &f).shape(p), Shape::Varying);
    }
}

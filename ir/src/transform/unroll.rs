//! Full unrolling of short counted loops, and two iterations per trip for
//! other counted loops, for code generators.
//!
//! A loop the front end made from `for (int k = C0; k OP C1; k += S)` with
//! constant `C0`, `C1` and `S`, a body that neither writes `k` nor leaves or
//! continues the loop itself, and few enough iterations is replaced by its
//! iterations one after another, each reading `k` as a constant. The
//! code generator then folds what depends on `k` (`weights[(dy + 2) * 5 +
//! dx + 2]`, `ta[ly][k]`) into constants and immediate offsets, runs no
//! loop control, and can schedule one iteration's loads under another's
//! arithmetic.
//!
//! The recognised shape, in the body's own block:
//!
//! ```text
//! write $k, C0            (the last write of $k before the loop)
//! loop {
//!   %a = read $k; %b = C1; %c = cmp OP %a, %b    (evaluations only)
//!   if %c {} else { break }
//!   …                                            (the body)
//! } continuing {
//!   %x = read $k; %s = S; %y = add %x, %s; write $k, %y     (or sub)
//! }
//! ```
//!
//! Constants may be constant expressions (`-2` is `neg 2`); the counter may
//! be compared after a conversion to a wider type (a `uchar` counter after
//! the integer promotions). The counter is
//! stepped with the wrap-around of its type, as the loop would. After the
//! copies, `$k` is written its final value, so code after the loop reads
//! what it would have read. Loops are unrolled innermost first (but a
//! loop holding a loop whose bound or start reads its counter is expanded
//! first, then the inner loop in each copy: `Unroller::expand_outer_first`); a loop is
//! left alone when it runs more than [`MAX_TRIPS`] times, when its copies
//! would hold more than [`MAX_COPIED`] evaluations ([`MAX_COPIED_WIDE`]
//! for the wide code), when the function
//! would grow past [`MAX_FUNCTION`] instructions, or when it holds a
//! barrier (the code generator cuts regions at barriers, and a region per
//! copy is no gain).
//!
//! A counted loop of more than [`MAX_TRIPS`] iterations (up to
//! [`MAX_PAIRED_TRIPS`]), with an even trip count and a body of at most
//! [`MAX_PAIRED`] evaluations, instead keeps its test and runs the body,
//! the step and the body again per trip (`Unroller::pair`): the
//! counter stays a variable. `benches/matmul.cl`'s `k` loop of 16 trips:
//! 20 machine instructions per iteration → 18, 30.6 M → 29.5 M
//! instructions per launch at 256², ~51.0 → ~49 ms at 1024² on two threads.
//!
//! Any other counted loop with such a body (`Unroller::pair_open`): a
//! bound that is not a constant but is the same in every iteration and
//! for every work-item of a group (constants, parameters, group-wide
//! work-item queries, variables written only at the top level of the
//! function, none of them written in the loop), or an odd or very large
//! trip count. Each trip tests the counter and the counter one step on
//! (the test's own statements on the stepped value, so a narrow counter
//! wraps as the loop's would), runs the body, the step and the body; a
//! guarded last iteration follows the loop. A bound that differs between
//! work-items would run some items' last iterations after the others'
//! pairs, changing the order of atomics and `printf`s across items, so
//! such loops stay as they are. `benches/histogram.cl`'s loop over
//! `per_item`: 8.0 M → 7.0 M instructions per launch, `vecl bench --only
//! histogram` on one thread ~13.1 → ~12.2 ms.

use super::compact;
use crate::module::*;
use crate::types::{Scalar, Type};
use std::collections::HashMap;

/// Loops that run more often stay loops.
pub const MAX_TRIPS: u64 = 8;
/// Longer loops with an even trip count up to this and a body of at most
/// [`MAX_PAIRED`] evaluations run two iterations per trip.
pub const MAX_PAIRED_TRIPS: u64 = 1 << 16;
/// Evaluations of a loop body that may be paired.
pub const MAX_PAIRED: usize = 40;
/// Evaluations the copies of one loop may hold in all.
pub const MAX_COPIED: usize = 400;
/// The same for a code generator whose straight-line code gains from
/// longer copies (`PipelineOptions::wide_unroll`: the wide AVX-512 code,
/// which keeps a loop's clamped loads off it). A 5 x 5 stencil's row
/// loop with its column loop unrolled inside (`benches/conv5x5.cl`: five
/// copies of about 185 evaluations, most of which `cse` then shares: the
/// clamps of `x + dx` across rows, the weights' constant indices) fits.
/// Cranelift's code of it unrolled ran slower than of the loop (one
/// thread, 2048²: 14-17 -> 16.7-17.2 ms unchecked, 13.2 -> 16.0 ms
/// robust), so it keeps [`MAX_COPIED`], as robust and checked compiles
/// do (the wide code unrolled was no faster there).
pub const MAX_COPIED_WIDE: usize = 1000;
/// Instructions a function may reach through unrolling.
pub const MAX_FUNCTION: usize = 2500;

/// Unrolls `f`'s short counted loops as the module documentation says;
/// returns how many loops it unrolled.
pub fn unroll_counted_loops(f: &mut Function) -> usize {
    unroll_counted_loops_within(f, MAX_COPIED)
}

/// [`unroll_counted_loops`] with the copies of one loop holding at most
/// `max_copied` evaluations ([`MAX_COPIED`] or [`MAX_COPIED_WIDE`]).
pub fn unroll_counted_loops_within(f: &mut Function, max_copied: usize) -> usize {
    let mut body = std::mem::take(&mut f.body);
    // Variables written only at the top level of the body (so by every
    // work-item alike), with the values written.
    let mut writes: HashMap<VarId, Vec<ValueId>> = HashMap::new();
    for st in &body.0 {
        if let Stmt::WriteVar(x, v) = st {
            writes.entry(*x).or_default().push(*v);
        }
    }
    compact::walk_stmts(&body, &mut |st| {
        if let Stmt::WriteVar(x, v) = st {
            if !body.0.contains(st) || !writes.get(x).is_some_and(|w| w.contains(v)) {
                writes.remove(x);
            }
        }
    });
    let mut cx = Unroller {
        vars: &f.vars,
        insts: &mut f.insts,
        writes,
        unrolled: 0,
        paired: 0,
        copied: Vec::new(),
        max_copied,
    };
    cx.block(&mut body);
    let (unrolled, copied) = (cx.unrolled + cx.paired, cx.copied);
    f.body = body;
    if unrolled > 0 {
        // The copied loop tests and counter reads are now unread.
        compact::remove_dead(f, copied);
        compact::drop_unevaluated(f);
    }
    unrolled
}

struct Unroller<'a> {
    vars: &'a [Var],
    insts: &'a mut Vec<InstData>,
    /// The values written to each variable that is written only at the
    /// top level of the function as given.
    writes: HashMap<VarId, Vec<ValueId>>,
    unrolled: usize,
    paired: usize,
    /// Every value the copies define (candidates for dead-code removal).
    copied: Vec<ValueId>,
    /// Evaluations the copies of one loop may hold.
    max_copied: usize,
}

/// A loop found to be counted: its counter, the counter's value in each
/// iteration and after the last, and where the body's test is.
struct Counted {
    var: VarId,
    ty: Type,
    /// The counter in each iteration, for loops of at most [`MAX_TRIPS`].
    values: Option<Vec<u64>>,
    trips: u64,
    last: u64,
    test_index: usize,
}

/// A loop's counter, its step, and its test (see `Unroller::loop_test`).
struct LoopTest {
    var: VarId,
    ty: Type,
    op: BinaryOp,
    step: i128,
    test_index: usize,
    cmp: CmpOp,
    a: ValueId,
    b: ValueId,
}

impl Unroller<'_> {
    fn block(&mut self, b: &mut Block) {
        let stmts = std::mem::take(&mut b.0);
        let mut out: Vec<Stmt> = Vec::with_capacity(stmts.len());
        for mut s in stmts {
            match &mut s {
                Stmt::If { then_, else_, .. } => {
                    self.block(then_);
                    self.block(else_);
                }
                Stmt::Loop { body, continuing } => {
                    if self.expand_outer_first(&mut out, body, continuing) {
                        continue;
                    }
                    self.block(body);
                    self.block(continuing);
                }
                Stmt::Switch { cases, .. } => {
                    for c in cases {
                        self.block(&mut c.body);
                    }
                }
                _ => {}
            }
            if let Stmt::Loop { body, continuing } = &s {
                if let Some(c) = self.counted(&out, body, continuing) {
                    let per_copy = count_evals(body);
                    let fits = |copies: usize| {
                        per_copy * copies <= self.max_copied
                            && self.insts.len() + per_copy * copies <= MAX_FUNCTION
                    };
                    match &c.values {
                        Some(values) if fits(values.len()) => {
                            self.expand(&c, body, &mut out);
                            self.unrolled += 1;
                            continue;
                        }
                        None if c.trips.is_multiple_of(2) && per_copy <= MAX_PAIRED && fits(1) => {
                            out.push(self.pair(&c, body, continuing));
                            self.paired += 1;
                            continue;
                        }
                        _ => {}
                    }
                }
                // Any other counted loop (its bound not a constant, or its
                // trip count odd or past `MAX_PAIRED_TRIPS`).
                if let Some(test_index) = self.open_counted(body, continuing) {
                    let per_copy = count_evals(body);
                    if per_copy <= MAX_PAIRED && self.insts.len() + 3 * per_copy <= MAX_FUNCTION {
                        self.pair_open(test_index, body, continuing, &mut out);
                        self.paired += 1;
                        continue;
                    }
                }
            }
            out.push(s);
        }
        b.0 = out;
    }

    /// A short counted loop holding a loop whose bound or start reads its
    /// counter (`for (i = 0; i < 8; i++) for (j = 0; j < 7 - i; j++)`, a sorting
    /// network over a private array) is expanded before the loops inside
    /// it, which are then unrolled in each copy, where that bound is a
    /// constant: innermost first, the inner loop would not be counted
    /// and would stay a loop in every copy, and with it the private
    /// array's dynamic indices. Returns whether it expanded the loop into
    /// `out` (the copies already unrolled inside).
    fn expand_outer_first(
        &mut self,
        out: &mut Vec<Stmt>,
        body: &Block,
        continuing: &Block,
    ) -> bool {
        let Some(c) = self.counted(out, body, continuing) else {
            return false;
        };
        let Some(n) = c.values.as_ref().map(Vec::len) else {
            return false;
        };
        let per_copy = count_evals(body);
        let fits =
            per_copy * n <= self.max_copied && self.insts.len() + per_copy * n <= MAX_FUNCTION;
        if !fits || !self.inner_bound_reads(body, c.var) {
            return false;
        }
        let mut copies = Block(Vec::new());
        self.expand(&c, body, &mut copies.0);
        self.block(&mut copies);
        out.extend(copies.0);
        self.unrolled += 1;
        true
    }

    /// Whether a loop nested in `b` compares its counter with a bound
    /// computed from `var`, or starts its counter at such a value.
    fn inner_bound_reads(&self, b: &Block, var: VarId) -> bool {
        b.0.iter().enumerate().any(|(k, st)| match st {
            Stmt::Loop { body, continuing } => {
                self.loop_test(body, continuing).is_some_and(|t| {
                    let init = b.0[..k].iter().rev().find_map(|w| match w {
                        Stmt::WriteVar(x, v) if *x == t.var => Some(*v),
                        _ => None,
                    });
                    self.computed_from(t.a, var, 0)
                        || self.computed_from(t.b, var, 0)
                        || init.is_some_and(|v| self.computed_from(v, var, 0))
                }) || self.inner_bound_reads(body, var)
                    || self.inner_bound_reads(continuing, var)
            }
            Stmt::If { then_, else_, .. } => {
                self.inner_bound_reads(then_, var) || self.inner_bound_reads(else_, var)
            }
            Stmt::Switch { cases, .. } => {
                cases.iter().any(|c| self.inner_bound_reads(&c.body, var))
            }
            _ => false,
        })
    }

    /// Whether the integer expression `v` reads `var` (through at most a
    /// few levels of arithmetic and conversions).
    fn computed_from(&self, v: ValueId, var: VarId, depth: u32) -> bool {
        if depth > 6 {
            return false;
        }
        match &self.insts[v.index()].inst {
            Inst::ReadVar(x) => *x == var,
            Inst::Unary(_, a) | Inst::Convert { value: a, .. } => {
                self.computed_from(*a, var, depth + 1)
            }
            Inst::Binary(_, a, b) => {
                self.computed_from(*a, var, depth + 1) || self.computed_from(*b, var, depth + 1)
            }
            _ => false,
        }
    }

    /// Whether the loop `body`/`continuing`, following the statements
    /// `before` of its block, is counted and small enough to unroll.
    fn counted(&self, before: &[Stmt], body: &Block, continuing: &Block) -> Option<Counted> {
        let LoopTest {
            var,
            ty,
            op,
            step,
            test_index,
            cmp,
            a,
            b,
        } = self.loop_test(body, continuing)?;
        let Type::Scalar(s) = ty else { return None };
        let init = before.iter().rev().find_map(|st| match st {
            Stmt::WriteVar(x, v) if *x == var => Some(Some(*v)),
            st if writes_var(st, var) => Some(None),
            _ => None,
        })??;
        let init = self.constant(init)?;
        let counter_in = |v: ValueId| self.counter_in(&body.0[..test_index], var, v);
        let (cmp, bound, cmp_ty) = if let Some(t) = counter_in(a) {
            (cmp, self.constant(b)?, t)
        } else if let Some(t) = counter_in(b) {
            (cmp.swapped(), self.constant(a)?, t)
        } else {
            return None;
        };
        if !body_allows_unrolling(&body.0[test_index + 1..], var) {
            return None;
        }
        let bits = s.bits();
        let norm = |x: i128| reduce(s, x);
        let (mut i, step) = (norm(init), norm(step));
        let mut values = Vec::new();
        let mut trips = 0u64;
        while holds(cmp, reduce(cmp_ty, i), bound) {
            if trips == MAX_PAIRED_TRIPS {
                return None;
            }
            if trips < MAX_TRIPS {
                values.push(i as u64 & mask(bits));
            }
            trips += 1;
            i = norm(if op == BinaryOp::Add {
                i + step
            } else {
                i - step
            });
        }
        Some(Counted {
            var,
            ty,
            values: (trips <= MAX_TRIPS).then_some(values),
            trips,
            last: i as u64 & mask(bits),
            test_index,
        })
    }

    /// The shape both kinds of counted loop share: `continuing` steps an
    /// integer counter by a constant, and the body starts with
    /// evaluations, then `if (a CMP b) {} else { break }` on one of them.
    fn loop_test(&self, body: &Block, continuing: &Block) -> Option<LoopTest> {
        let (var, op, step) = self.increment(continuing)?;
        let ty = self.vars.get(var.index())?.ty.clone();
        if !matches!(ty, Type::Scalar(s) if s.is_int()) {
            return None;
        }
        let test_index = body.0.iter().position(|st| !matches!(st, Stmt::Eval(_)))?;
        let Stmt::If { cond, then_, else_ } = &body.0[test_index] else {
            return None;
        };
        if !then_.0.is_empty() || else_.0 != [Stmt::Break] {
            return None;
        }
        if !body.0[..test_index].contains(&Stmt::Eval(*cond)) {
            return None;
        }
        let Inst::Cmp(cmp, a, b) = self.insts[cond.index()].inst else {
            return None;
        };
        Some(LoopTest {
            var,
            ty,
            op,
            step,
            test_index,
            cmp,
            a,
            b,
        })
    }

    /// The counter `var`, or the counter converted to a wider integer type
    /// (a `uchar` counter compared after the integer promotions), as `v`
    /// evaluated in `pre` reads it: the scalar type it is compared in.
    fn counter_in(&self, pre: &[Stmt], var: VarId, v: ValueId) -> Option<Scalar> {
        if !pre.contains(&Stmt::Eval(v)) {
            return None;
        }
        let d = &self.insts[v.index()];
        let read = match d.inst {
            Inst::Convert { value, .. } => value,
            _ => v,
        };
        let is_read = matches!(self.insts[read.index()].inst, Inst::ReadVar(x) if x == var);
        match d.ty {
            Type::Scalar(t) if is_read && t.is_int() => Some(t),
            _ => None,
        }
    }

    /// A loop counted to a bound that is not a constant but does not
    /// change in the loop (`for (k = 0; k < n; k++)`, `n` a parameter or
    /// a variable the loop does not write): the index of its test in the
    /// body. The statements before the test evaluate only pure operations
    /// (they are copied for the test of the next iteration).
    fn open_counted(&self, body: &Block, continuing: &Block) -> Option<usize> {
        let LoopTest {
            var,
            test_index,
            a,
            b,
            ..
        } = self.loop_test(body, continuing)?;
        let pre = &body.0[..test_index];
        let pure = pre.iter().all(|st| match st {
            Stmt::Eval(v) => matches!(
                self.insts[v.index()].inst,
                Inst::ReadVar(_)
                    | Inst::Const(_)
                    | Inst::Param(_)
                    | Inst::Convert { .. }
                    | Inst::Unary(..)
                    | Inst::Binary(..)
                    | Inst::Cmp(..)
            ),
            _ => false,
        });
        if !pure || !body_allows_unrolling(&body.0[test_index + 1..], var) {
            return None;
        }
        let reads_counter = |v: ValueId| self.counter_in(pre, var, v).is_some();
        // The loop writes these variables: a bound that reads one changes.
        let mut written = Vec::new();
        compact::walk_stmts(body, &mut |st| {
            if let Stmt::WriteVar(x, _) = st {
                written.push(*x);
            }
        });
        written.push(var);
        let fixed = |v: ValueId| {
            self.fixed_in_loop(v, pre, &written, 0)
                && self.same_for_all_items(v, &mut Vec::new(), 0)
        };
        let counted = (reads_counter(a) && fixed(b)) || (reads_counter(b) && fixed(a));
        counted.then_some(test_index)
    }

    /// Whether `v` is the same for every work-item of a group: built from
    /// constants, parameters, group-wide work-item queries and variables
    /// only ever written such values. Pairing a loop whose trip count
    /// differs between work-items would run its last iterations after the
    /// others' pairs: each work-item computes the same, but the order of
    /// atomics and `printf`s across work-items would no longer be the
    /// lockstep one.
    fn same_for_all_items(&self, v: ValueId, visiting: &mut Vec<VarId>, depth: u32) -> bool {
        if depth > 16 {
            return false;
        }
        let d = depth + 1;
        match self.insts[v.index()].inst {
            Inst::Const(_) | Inst::Param(_) => true,
            Inst::WorkItem(f, _) => matches!(
                f,
                WorkItemFn::WorkDim
                    | WorkItemFn::GlobalSize
                    | WorkItemFn::LocalSize
                    | WorkItemFn::EnqueuedLocalSize
                    | WorkItemFn::NumGroups
                    | WorkItemFn::GroupId
                    | WorkItemFn::GlobalOffset
            ),
            Inst::Convert { value, .. } | Inst::Unary(_, value) => {
                self.same_for_all_items(value, visiting, d)
            }
            Inst::Binary(_, x, y) => {
                self.same_for_all_items(x, visiting, d) && self.same_for_all_items(y, visiting, d)
            }
            Inst::ReadVar(x) => {
                if visiting.contains(&x) {
                    return true;
                }
                visiting.push(x);
                let all = self
                    .writes
                    .get(&x)
                    .is_some_and(|ws| ws.iter().all(|w| self.same_for_all_items(*w, visiting, d)));
                visiting.pop();
                all
            }
            _ => false,
        }
    }

    /// Whether `v` has one value for the whole loop: evaluated before it,
    /// or in `pre` from constants, parameters and variables not in
    /// `written`.
    fn fixed_in_loop(&self, v: ValueId, pre: &[Stmt], written: &[VarId], depth: u32) -> bool {
        if !pre.contains(&Stmt::Eval(v)) {
            return true;
        }
        if depth > 16 {
            return false;
        }
        let d = depth + 1;
        match self.insts[v.index()].inst {
            Inst::Const(_) | Inst::Param(_) => true,
            Inst::ReadVar(x) => !written.contains(&x),
            Inst::Convert { value, .. } | Inst::Unary(_, value) => {
                self.fixed_in_loop(value, pre, written, d)
            }
            Inst::Binary(_, x, y) => {
                self.fixed_in_loop(x, pre, written, d) && self.fixed_in_loop(y, pre, written, d)
            }
            _ => false,
        }
    }

    /// The loop of [`Self::open_counted`] running two iterations per trip
    /// while both pass the test (the second test is the first's
    /// statements on the stepped counter, so it wraps as the loop's own
    /// would), then the last iteration if one is left.
    fn pair_open(
        &mut self,
        test_index: usize,
        body: &Block,
        continuing: &Block,
        out: &mut Vec<Stmt>,
    ) {
        let none = VarId(u32::MAX);
        let (pre_and_test, rest) = body.0.split_at(test_index + 1);
        let [step @ .., Stmt::WriteVar(var, stepped)] = continuing.0.as_slice() else {
            return out.push(Stmt::Loop {
                body: body.clone(),
                continuing: continuing.clone(),
            });
        };
        let mut twice = pre_and_test.to_vec();
        // The test again on the counter one step on.
        let mut map = HashMap::new();
        for st in step {
            twice.push(self.copy_stmt(st, &mut map, none, 0));
        }
        let next = *map.get(stepped).unwrap_or(stepped);
        for st in pre_and_test {
            match st {
                Stmt::Eval(v) if matches!(self.insts[v.index()].inst, Inst::ReadVar(x) if x == *var) =>
                {
                    map.insert(*v, next);
                }
                _ => twice.push(self.copy_stmt(st, &mut map, none, 0)),
            }
        }
        twice.extend(rest.iter().cloned());
        let mut map = HashMap::new();
        for st in &continuing.0 {
            twice.push(self.copy_stmt(st, &mut map, none, 0));
        }
        for (i, st) in body.0.iter().enumerate() {
            if i != test_index {
                twice.push(self.copy_stmt(st, &mut map, none, 0));
            }
        }
        out.push(Stmt::Loop {
            body: Block(twice),
            continuing: continuing.clone(),
        });
        // The iteration left when the second test failed and the first
        // did not.
        let mut map = HashMap::new();
        for st in &pre_and_test[..test_index] {
            out.push(self.copy_stmt(st, &mut map, none, 0));
        }
        let Stmt::If { cond, .. } = &pre_and_test[test_index] else {
            return;
        };
        let cond = *map.get(cond).unwrap_or(cond);
        let mut last = Vec::new();
        for st in rest.iter().chain(&continuing.0) {
            last.push(self.copy_stmt(st, &mut map, none, 0));
        }
        out.push(Stmt::If {
            cond,
            then_: Block(last),
            else_: Block(Vec::new()),
        });
    }

    /// `$k = $k ± S` as the whole `continuing` block: the counter, the
    /// operation and `S`.
    fn increment(&self, continuing: &Block) -> Option<(VarId, BinaryOp, i128)> {
        let [Stmt::Eval(x), Stmt::Eval(s), Stmt::Eval(y), Stmt::WriteVar(var, w)] =
            continuing.0.as_slice()
        else {
            return None;
        };
        let Inst::ReadVar(read) = self.insts[x.index()].inst else {
            return None;
        };
        let Inst::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), l, r) = self.insts[y.index()].inst
        else {
            return None;
        };
        if read != *var || w != y || l != *x || r != *s {
            return None;
        }
        Some((*var, op, self.constant(*s)?))
    }

    /// The value of an integer constant expression (constants, negation,
    /// `+ - *` and integer conversions of them), reduced to its type.
    fn constant(&self, v: ValueId) -> Option<i128> {
        let d = &self.insts[v.index()];
        let Type::Scalar(s) = d.ty else { return None };
        if !s.is_int() {
            return None;
        }
        let raw: i128 = match d.inst {
            Inst::Const(bits) => i128::from(bits),
            Inst::Unary(UnaryOp::Neg, a) => -self.constant(a)?,
            Inst::Binary(op, a, b) => {
                let (a, b) = (self.constant(a)?, self.constant(b)?);
                match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a.checked_mul(b)?,
                    _ => return None,
                }
            }
            Inst::Convert { value, .. } => self.constant(value)?,
            _ => return None,
        };
        Some(reduce(s, raw))
    }

    /// The loop running two iterations per trip: the body, the step, and
    /// the body again (the test first only: the trip count is even, so
    /// it holds again after the first step). Two iterations' loads and
    /// arithmetic share one round of loop control, and Cranelift can
    /// overlap them (`benches/matmul.cl`'s `k` loop of 16).
    fn pair(&mut self, c: &Counted, body: &Block, continuing: &Block) -> Stmt {
        // No variable is read as a constant in the copies.
        let none = VarId(u32::MAX);
        let mut map = HashMap::new();
        let mut twice = body.0.clone();
        for st in &continuing.0 {
            twice.push(self.copy_stmt(st, &mut map, none, 0));
        }
        for (i, st) in body.0.iter().enumerate() {
            if i != c.test_index {
                twice.push(self.copy_stmt(st, &mut map, none, 0));
            }
        }
        Stmt::Loop {
            body: Block(twice),
            continuing: continuing.clone(),
        }
    }

    /// Appends the loop's iterations to `out`, then the counter's final
    /// value.
    fn expand(&mut self, c: &Counted, body: &Block, out: &mut Vec<Stmt>) {
        let values = c.values.as_deref().unwrap_or_default();
        for &value in values {
            let mut map = HashMap::new();
            for (i, st) in body.0.iter().enumerate() {
                if i != c.test_index {
                    let copy = self.copy_stmt(st, &mut map, c.var, value);
                    out.push(copy);
                }
            }
        }
        let last = self.push(InstData {
            inst: Inst::Const(c.last),
            ty: c.ty.clone(),
            loc: Loc::NONE,
        });
        out.push(Stmt::Eval(last));
        out.push(Stmt::WriteVar(c.var, last));
    }

    fn push(&mut self, d: InstData) -> ValueId {
        let v = ValueId(self.insts.len() as u32);
        self.insts.push(d);
        self.copied.push(v);
        v
    }

    /// A copy of `st` with fresh values for those it evaluates (recorded in
    /// `map`), reads of `var` as the constant `value`.
    fn copy_stmt(
        &mut self,
        st: &Stmt,
        map: &mut HashMap<ValueId, ValueId>,
        var: VarId,
        value: u64,
    ) -> Stmt {
        let m = |v: &ValueId, map: &HashMap<ValueId, ValueId>| *map.get(v).unwrap_or(v);
        match st {
            Stmt::Eval(v) => {
                let mut d = self.insts[v.index()].clone();
                if matches!(d.inst, Inst::ReadVar(x) if x == var) {
                    d.inst = Inst::Const(value);
                } else {
                    d.inst.operands_mut().for_each(|o| *o = m(o, map));
                }
                let new = self.push(d);
                map.insert(*v, new);
                Stmt::Eval(new)
            }
            Stmt::WriteVar(x, v) => Stmt::WriteVar(*x, m(v, map)),
            Stmt::Store {
                ptr,
                value: val,
                loc,
            } => Stmt::Store {
                ptr: m(ptr, map),
                value: m(val, map),
                loc: *loc,
            },
            Stmt::Copy {
                dst,
                src,
                size,
                loc,
            } => Stmt::Copy {
                dst: m(dst, map),
                src: m(src, map),
                size: *size,
                loc: *loc,
            },
            Stmt::If { cond, then_, else_ } => Stmt::If {
                cond: m(cond, map),
                then_: self.copy_block(then_, map, var, value),
                else_: self.copy_block(else_, map, var, value),
            },
            Stmt::Loop { body, continuing } => Stmt::Loop {
                body: self.copy_block(body, map, var, value),
                continuing: self.copy_block(continuing, map, var, value),
            },
            Stmt::Switch { selector, cases } => Stmt::Switch {
                selector: m(selector, map),
                cases: cases
                    .iter()
                    .map(|c| SwitchCase {
                        values: c.values.clone(),
                        is_default: c.is_default,
                        body: self.copy_block(&c.body, map, var, value),
                    })
                    .collect(),
            },
            Stmt::Return(v) => Stmt::Return(v.map(|v| m(&v, map))),
            Stmt::Break => Stmt::Break,
            Stmt::Continue => Stmt::Continue,
            Stmt::Barrier(f, l) => Stmt::Barrier(*f, *l),
            Stmt::Fence(f) => Stmt::Fence(*f),
        }
    }

    fn copy_block(
        &mut self,
        b: &Block,
        map: &mut HashMap<ValueId, ValueId>,
        var: VarId,
        value: u64,
    ) -> Block {
        Block(
            b.0.iter()
                .map(|st| self.copy_stmt(st, map, var, value))
                .collect(),
        )
    }
}

/// `x` as a value of the integer type `s`: wrapped to its width, negative
/// when signed and the sign bit is set.
fn reduce(s: Scalar, x: i128) -> i128 {
    let bits = s.bits();
    let m = x & ((1i128 << bits) - 1);
    if s.is_signed() && m >> (bits - 1) != 0 {
        m - (1i128 << bits)
    } else {
        m
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn holds(op: CmpOp, a: i128, b: i128) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

fn count_evals(b: &Block) -> usize {
    let mut n = 0;
    compact::walk_stmts(b, &mut |s| n += usize::from(matches!(s, Stmt::Eval(_))));
    n
}

/// Whether `st` (or a statement nested in it) writes `var`.
fn writes_var(st: &Stmt, var: VarId) -> bool {
    let mut found = matches!(st, Stmt::WriteVar(x, _) if *x == var);
    compact::walk_nested(st, &mut |s: &Stmt| {
        found |= matches!(s, Stmt::WriteVar(x, _) if *x == var)
    });
    found
}

/// Whether the body after the loop test can be copied once per
/// iteration: it does not write the counter, has no barrier, and no
/// `break` or `continue` that belongs to this loop.
fn body_allows_unrolling(stmts: &[Stmt], var: VarId) -> bool {
    /// `in_loop`: inside a nested loop (its `break`/`continue` are its
    /// own); `in_switch`: inside a nested `switch` (its `break` is its own).
    fn ok(stmts: &[Stmt], var: VarId, in_loop: bool, in_switch: bool) -> bool {
        stmts.iter().all(|s| match s {
            Stmt::WriteVar(x, _) => *x != var,
            Stmt::Barrier(..) => false,
            Stmt::Break => in_loop || in_switch,
            Stmt::Continue => in_loop,
            Stmt::If { then_, else_, .. } => {
                ok(&then_.0, var, in_loop, in_switch) && ok(&else_.0, var, in_loop, in_switch)
            }
            Stmt::Loop { body, continuing } => {
                ok(&body.0, var, true, in_switch) && ok(&continuing.0, var, true, in_switch)
            }
            Stmt::Switch { cases, .. } => cases.iter().all(|c| ok(&c.body.0, var, in_loop, true)),
            _ => true,
        })
    }
    ok(stmts, var, false, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unrolled(src: &str) -> (usize, String) {
        super::super::run_on_text(src, unroll_counted_loops)
    }

    /// `for (int k = START; k OP BOUND; k STEP) o[k] = k;` then `o[0] = k`.
    fn counted(start: &str, op: &str, bound: &str, step: &str, ty: &str) -> String {
        format!(
            "kernel @k(o: ptr global {ty}) {{
  var $0 k: {ty}
  %0: ptr global {ty} = param 0
  %1: {ty} = {start}
  write $0, %1
  loop {{
    %2: {ty} = read $0
    %3: {ty} = const {bound}
    %4: bool = cmp {op} %2, %3
    if %4 {{
    }} else {{
      break
    }}
    %5: {ty} = read $0
    %6: i64 = convert %5
    %7: ptr global {ty} = index %0, %6
    store %7, %5
  }} continuing {{
    %8: {ty} = read $0
    %9: {ty} = const 1
    %10: {ty} = {step} %8, %9
    write $0, %10
  }}
  %11: {ty} = read $0
  store %0, %11
}}
"
        )
    }

    #[test]
    fn a_counted_loop_becomes_its_iterations_with_constant_counters() {
        let (n, text) = unrolled(&counted("const 0", "lt", "4", "add", "i32"));
        assert_eq!(n, 1, "{text}");
        assert!(!text.contains("loop"), "{text}");
        assert_eq!(text.matches("store").count(), 5, "{text}");
        for k in 0..4 {
            assert!(text.contains(&format!("const {k}")), "{text}");
        }
        // The counter's value after the loop.
        assert!(text.contains("const 4\n  write $0"), "{text}");
    }

    #[test]
    fn counters_step_with_their_type_s_wrap_around() {
        // uchar from 254 up to 2: 254, 255, 0, 1.
        let (n, text) = unrolled(&counted("const 254", "ne", "2", "add", "u8"));
        assert_eq!(n, 1, "{text}");
        assert_eq!(text.matches("store").count(), 5, "{text}");
        // A negative start as a constant expression, counting down.
        let src = counted("const 3", "ge", "-6", "sub", "i32").replace(
            "%1: i32 = const 3",
            "%12: i32 = const 3\n  %1: i32 = neg %12",
        );
        let (n, text) = unrolled(&src);
        assert_eq!(n, 1, "{text}");
        // -3, -4, -5, -6.
        assert_eq!(text.matches("store").count(), 5, "{text}");
        assert!(text.contains("const -7\n  write $0"), "{text}");
        // Nothing to run: only the final write.
        let src = counted("const 3", "ge", "4", "sub", "i32");
        let (n, text) = unrolled(&src);
        assert_eq!(n, 1, "{text}");
        assert_eq!(text.matches("store").count(), 1, "{text}");
    }

    #[test]
    fn long_loops_with_an_even_trip_count_run_two_iterations_per_trip() {
        let (n, text) = unrolled(&counted("const 0", "lt", "1000", "add", "i32"));
        assert_eq!(n, 1, "{text}");
        // One test, the body, the step, the body again; then the step.
        assert_eq!(text.matches("loop").count(), 1, "{text}");
        assert_eq!(text.matches("cmp lt").count(), 1, "{text}");
        assert_eq!(text.matches("store").count(), 3, "{text}");
        assert_eq!(text.matches("write $0").count(), 3, "{text}");
        // The second copy reads the counter again, after the step.
        let second = text.split("write $0").nth(2).expect("a second write");
        assert!(second.contains("read $0"), "{text}");
    }

    #[test]
    fn other_counted_loops_run_paired_then_their_last_iteration() {
        // An odd trip count, a bound that is a parameter, a counter that
        // never reaches its bound: the pair's two tests, the bodies, then
        // one guarded iteration.
        let odd = counted("const 0", "lt", "999", "add", "i32");
        let param = odd
            .replace(
                "kernel @k(o: ptr global i32)",
                "kernel @k(o: ptr global i32, n: i32)",
            )
            .replace("%3: i32 = const 999", "%3: i32 = param 1");
        let never = counted("const 0", "ne", "3", "sub", "u32");
        for src in [odd, param, never] {
            let (n, text) = unrolled(&src);
            assert_eq!(n, 1, "{text}");
            assert_eq!(text.matches("loop").count(), 1, "{text}");
            assert_eq!(text.matches("break").count(), 2, "{text}");
            assert_eq!(text.matches("cmp").count(), 3, "{text}");
            assert_eq!(text.matches("store").count(), 4, "{text}");
            // Counter writes: step between the bodies, the loop's own,
            // the last iteration's.
            assert_eq!(text.matches("write $0").count(), 4, "{text}");
        }
    }

    #[test]
    fn loops_whose_bound_changes_stay_loops() {
        let src = counted("const 0", "lt", "999", "add", "i32")
            .replace("  var $0 k: i32\n", "  var $0 k: i32\n  var $1 n: i32\n")
            .replace("%3: i32 = const 999", "%3: i32 = read $1")
            .replace("    store %7, %5\n", "    store %7, %5\n    write $1, %5\n");
        let (n, text) = unrolled(&src);
        assert_eq!(n, 0, "{text}");
    }

    #[test]
    fn loops_that_leave_early_or_write_their_counter_stay_loops() {
        let base = counted("const 0", "lt", "4", "add", "i32");
        let with_break = base.replace(
            "    store %7, %5\n",
            "    store %7, %5\n    if %4 {\n      break\n    }\n",
        );
        assert_eq!(unrolled(&with_break).0, 0);
        let with_write = base.replace("    store %7, %5\n", "    store %7, %5\n    write $0, %5\n");
        assert_eq!(unrolled(&with_write).0, 0);
        let with_barrier = base.replace(
            "    store %7, %5\n",
            "    store %7, %5\n    barrier local\n",
        );
        assert_eq!(unrolled(&with_barrier).0, 0);
    }
}

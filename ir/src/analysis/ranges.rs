//! Integer ranges: an interval that holds every value a scalar integer of a
//! function can take, for any work-item and any path.
//!
//! The JIT uses it to prove memory accesses in bounds at compile time (an
//! index read as a `uchar` into a 256-entry `__local` table needs no test),
//! and `vecl run` to size generated buffers from what a launch can address.
//! What the analysis cannot see comes from [`Facts`]: the launch's shape and
//! the values of scalar parameters where the caller knows them, nothing at
//! all for the JIT.
//!
//! **How.** A value's interval follows its definition: constants; the range
//! of its type for anything unknown (so a `uchar` converted to `int` is
//! `[0, 255]`); conversions, which keep the interval when it fits the
//! target type; negation, `+ - *`, shifts, division and remainder by constants, `&`
//! with a non-negative constant, `min`/`max`/`clamp`; `select`; a variable
//! read, as the union of every value written to it (a variable that is
//! written from itself gets its type's range, but for the counters of
//! counted loops, below). Arithmetic
//! is done on `i128`; a result that leaves its type's range may have
//! wrapped, and gets the whole type's range instead. Every answer is sound:
//! the real value always lies inside.
//!
//! **Counted loops.** A loop whose body opens with `if (k < C) {} else
//! break` (or `k <= C`), where the loop itself writes `k` only as `k = k +
//! c` (`c` never negative, not computed from `k`) in statements at the
//! top level of its body (after the test) and its `continuing`, with no
//! `continue` (another `break`, as the second test of a loop unrolled
//! twice, is fine): `k` never falls below the values `k0` it enters with, and
//! passes the test at most at `C_hi − 1` (the test may convert `k` to a
//! wider type first, `j < get_local_size(0)` for an `int j`, when `k`
//! never enters below 0), so each read of `k` in the loop
//! lies between those, plus the increments before it in the trip (`for
//! (b = lid; b < 256; b += get_local_size(0))`: `[0, 255]` once local ids
//! are known non-negative). When `k0` is one constant, every `c` a
//! constant and no other `break` leaves a trip half-way, every trip adds
//! the same `S`, so `k` at the test is exactly
//! `k0 + j·S` and the last value that passes it is `k0 + ⌊(C_hi − 1 −
//! k0) / S⌋·S` (`for (k = 0; k < 16; k++)` unrolled twice: `[0, 14]` and
//! `[1, 15]`, not 16).
//!
//! **Shrinking variables.** A variable written only with values that are
//! never negative and with `x >> c` or `x / c` of itself lies between 0
//! and the largest of those values (the tree reduction's `for (s = n / 2;
//! s > 0; s >>= 1)`: `[0, n / 2]`).
//!
//! **Branch conditions.** Under `if (x < y)`, where `x` reads a variable
//! that is written neither between that read and the branch nor anywhere
//! in the branch, every read of the variable in the `then` block is at
//! most `y`'s highest value less one, and every read in the `else` block
//! at least `y`'s lowest (likewise `<=`, `>`, `>=`, `==`, `!=`, either
//! side): the reduction's `x[lid + s]` under `lid < s` lies below `2s`.
//! Under `if (x >= y)` (`>`, or the `else` block of `<`, `<=`), with both
//! variables written neither since those reads nor in the block taken,
//! `a - b` of a read `a` of `x` and `b` of `y` there is at least 0 (1)
//! before it may wrap: scan's `tmp[lid - offset]` under `lid >= offset`.
//!
//! **Growing loops.** A loop whose body opens with `if (k < C) {} else
//! break` (or `<=`) and that writes `k` once, at the top level of its
//! `continuing`, as `k << c` or `k * c` (constants, at least 1) of a read
//! made there: while that write cannot wrap for the largest value passing
//! the test, `k` never falls below the least value it enters with (none
//! negative), and every read after the test and before the write lies
//! between that and `C_hi − 1` (scan's `for (offset = 1; offset < n;
//! offset <<= 1)`: `[1, n − 1]`).

use super::uniformity::writes_of;
use crate::{
    BinaryOp, Block, Builtin, CmpOp, Function, Inst, Scalar, Stmt, Type, UnaryOp, ValueId, VarId,
    WorkItemFn,
};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// A closed interval `[lo, hi]` of integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: i128,
    pub hi: i128,
}

impl Range {
    pub fn new(lo: i128, hi: i128) -> Range {
        Range { lo, hi }
    }

    pub fn exact(v: i128) -> Range {
        Range { lo: v, hi: v }
    }

    /// Every value of integer type `s`.
    pub fn of_type(s: Scalar) -> Range {
        let bits = s.bits();
        if s == Scalar::Bool {
            Range::new(0, 1)
        } else if s.is_signed() {
            Range::new(-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            Range::new(0, (1i128 << bits) - 1)
        }
    }

    pub fn union(self, o: Range) -> Range {
        Range::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    pub fn within(self, o: Range) -> bool {
        o.lo <= self.lo && self.hi <= o.hi
    }

    fn add(self, o: Range) -> Range {
        Range::new(self.lo + o.lo, self.hi + o.hi)
    }

    fn sub(self, o: Range) -> Range {
        Range::new(self.lo - o.hi, self.hi - o.lo)
    }

    /// `self * o`, or `None` past what `i128` holds.
    fn mul(self, o: Range) -> Option<Range> {
        let c = [
            self.lo.checked_mul(o.lo)?,
            self.lo.checked_mul(o.hi)?,
            self.hi.checked_mul(o.lo)?,
            self.hi.checked_mul(o.hi)?,
        ];
        Some(Range::new(*c.iter().min()?, *c.iter().max()?))
    }

    /// Scaled by a non-negative constant (bytes per element).
    pub fn scaled(self, k: u64) -> Option<Range> {
        self.mul(Range::exact(i128::from(k)))
    }
}

/// What the analysis cannot find in the function itself.
pub trait Facts {
    /// The values `get_*` function `f` returns in dimension `dim` (`None`:
    /// unknown, the type's range is taken).
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Range>;
    /// The value of scalar parameter `n`, where known.
    fn param(&self, n: u32) -> Option<Range>;
    /// A range known for value `v` from elsewhere (the same value in the
    /// function before a rewrite that keeps value numbers, where a loop
    /// is still whole); the analysis keeps the part of its own answer
    /// inside it.
    fn value(&self, _v: ValueId) -> Option<Range> {
        None
    }
}

/// No facts beyond the function: what holds for every launch.
pub struct NoFacts;

impl Facts for NoFacts {
    fn work_item(&self, _: WorkItemFn, _: Option<u64>) -> Option<Range> {
        None
    }
    fn param(&self, _: u32) -> Option<Range> {
        None
    }
}

/// How deep a definition chain is followed before the type's range is
/// taken.
const MAX_DEPTH: u32 = 48;

/// The ranges of one function's integer values, computed on demand.
pub struct Ranges<'a> {
    func: &'a Function,
    facts: &'a dyn Facts,
    memo: RefCell<HashMap<ValueId, Range>>,
    following: RefCell<Vec<VarId>>,
    /// The reads of counted loops' counters, found at the first read.
    counters: RefCell<Option<HashMap<ValueId, CounterRead>>>,
    /// The bounds branch conditions put on reads, found at the first read.
    branch_bounds: RefCell<Option<HashMap<ValueId, Vec<BranchBound>>>>,
    /// The reads of growing loops' counters, found at the first read.
    growing: RefCell<Option<HashMap<ValueId, GrowingRead>>>,
    /// `a - b` of reads `a` of `x` and `b` of `y` under a branch taken
    /// when `x >= y + d`: the least difference `d`, found at the first
    /// subtraction.
    differences: RefCell<Option<HashMap<(ValueId, ValueId), i128>>>,
    /// Variables [`Ranges::of`] may still follow in its current query
    /// (see [`VARIABLE_VISITS`]).
    visits: Cell<u32>,
}

/// The variables one [`Ranges::of`] may follow. A value read while a
/// variable is followed is not memoised (a loop counter's read is only
/// final outside), so a variable written in many places from values that
/// read it again (a hash unrolled into dozens of copies) made the walk
/// exponential: a kernel of the fuzzer took minutes to compile. Past this
/// a variable's range is unknown (its type's range).
const VARIABLE_VISITS: u32 = 20_000;

/// A read of the counter of a growing loop (see the module's comment):
/// after the loop's test, before the counter's one write.
#[derive(Clone, Debug)]
struct GrowingRead {
    /// The values the counter enters the loop with, and whether a path
    /// into the loop writes none (the counter reads zero then).
    k0: Vec<ValueId>,
    unwritten: bool,
    /// The bound of the test, and whether the test is `<=`.
    bound: ValueId,
    inclusive: bool,
    /// The factor of the trip's write `k = k * f` (`k << c`: `2^c`).
    factor: i128,
}

/// What the condition of a branch says of a read of a variable in it:
/// at most the highest value of another value plus a constant, or at
/// least its lowest plus a constant (`x` read under `if (x < y)`:
/// `AtMost(y, -1)`).
#[derive(Clone, Copy, Debug)]
enum BranchBound {
    AtMost(ValueId, i128),
    AtLeast(ValueId, i128),
}

/// A read of the counter of a counted loop (see the module's comment).
#[derive(Clone, Debug)]
struct CounterRead {
    /// The values the counter enters the loop with (its writes outside
    /// the loop).
    k0: Vec<ValueId>,
    /// The increments of one trip, in order.
    steps: Vec<ValueId>,
    /// The bound of the test, and whether the test is `<=`.
    bound: ValueId,
    inclusive: bool,
    /// How many of the trip's increments are made before this read;
    /// `None` for a read before the test (which sees the value that
    /// leaves the loop too).
    before: Option<usize>,
    /// Whether every trip that passes the test runs to its end (no other
    /// `break`): the counter then follows its progression exactly.
    exact: bool,
    /// The trip's other exit tests passed before this read.
    guards: Vec<Guard>,
    /// The test compares the counter converted to a wider type: it bounds
    /// the counter only while the counter is never negative.
    converted: bool,
}

/// An exit test in a counted loop's trip after the first: `if (k + d <
/// C) {} else break` made after `made` of the trip's increments (the
/// second test of a loop unrolled twice).
#[derive(Clone, Copy, Debug)]
struct Guard {
    bound: ValueId,
    inclusive: bool,
    d: i128,
    made: usize,
}

impl<'a> Ranges<'a> {
    pub fn new(func: &'a Function, facts: &'a dyn Facts) -> Ranges<'a> {
        Ranges {
            func,
            facts,
            memo: RefCell::new(HashMap::new()),
            following: RefCell::new(Vec::new()),
            counters: RefCell::new(None),
            branch_bounds: RefCell::new(None),
            growing: RefCell::new(None),
            differences: RefCell::new(None),
            visits: Cell::new(VARIABLE_VISITS),
        }
    }

    /// The range of `v`; `None` when it is not a scalar integer.
    pub fn of(&self, v: ValueId) -> Option<Range> {
        if self.following.borrow().is_empty() {
            self.visits.set(VARIABLE_VISITS);
        }
        self.of_depth(v, 0)
    }

    fn int_scalar(&self, v: ValueId) -> Option<Scalar> {
        match self.func.ty(v) {
            Type::Scalar(s) if s.is_int() || *s == Scalar::Bool => Some(*s),
            _ => None,
        }
    }

    fn of_depth(&self, v: ValueId, depth: u32) -> Option<Range> {
        let s = self.int_scalar(v)?;
        if let Some(r) = self.memo.borrow().get(&v) {
            return Some(*r);
        }
        let full = Range::of_type(s);
        let r = if depth > MAX_DEPTH {
            full
        } else {
            self.compute(v, s, depth + 1).unwrap_or(full)
        };
        // Inside what the type holds: a wider answer may have wrapped.
        let r = if r.within(full) { r } else { full };
        // Both answers hold every value: so does their overlap (empty
        // only where the value is never computed, any value will do).
        let r = match self.facts.value(v) {
            Some(k) => {
                let lo = r.lo.max(k.lo);
                Range::new(lo, r.hi.min(k.hi).max(lo))
            }
            None => r,
        };
        // A variable's value is only final once no read of a variable is
        // being followed (a loop counter's read sees its type's range).
        if self.following.borrow().is_empty() {
            self.memo.borrow_mut().insert(v, r);
        }
        Some(r)
    }

    fn compute(&self, v: ValueId, s: Scalar, depth: u32) -> Option<Range> {
        let of = |x: ValueId| self.of_depth(x, depth);
        match &self.func.inst(v).inst {
            Inst::Const(bits) => {
                let b = s.bits();
                let raw = if b >= 64 {
                    *bits
                } else {
                    bits & ((1u64 << b) - 1)
                };
                let value = if s.is_signed() && b < 64 && raw >> (b - 1) & 1 == 1 {
                    i128::from(raw) - (1i128 << b)
                } else if s.is_signed() {
                    i128::from(raw as i64)
                } else {
                    i128::from(raw)
                };
                Some(Range::exact(value))
            }
            Inst::Param(n) => self.facts.param(*n),
            Inst::WorkItem(f, dim) => {
                let d = match dim {
                    Some(d) => {
                        let r = of(*d)?;
                        (r.lo == r.hi).then_some(r.lo as u64)?
                    }
                    None => 0,
                };
                self.facts.work_item(*f, dim.map(|_| d))
            }
            Inst::Convert { value, .. } => {
                // Integer to integer; a float source has no range here.
                of(*value)
            }
            Inst::Select(_, a, b) => Some(of(*a)?.union(of(*b)?)),
            // Wrapping: an answer outside the type's range gets the whole
            // type below (`-INT_MIN`).
            Inst::Unary(UnaryOp::Neg, a) => {
                let r = of(*a)?;
                Some(Range::new(-r.hi, -r.lo))
            }
            Inst::Binary(BinaryOp::Sub, a, b) => {
                let r = self.binary(BinaryOp::Sub, s, of(*a)?, of(*b)?)?;
                Some(match self.difference(*a, *b) {
                    Some(d) => Range::new(r.lo.max(d), r.hi.max(d)),
                    None => r,
                })
            }
            Inst::Binary(op, a, b) => self.binary(*op, s, of(*a)?, of(*b)?),
            Inst::Builtin(name, args) => {
                let rs: Option<Vec<Range>> = args.iter().map(|a| of(*a)).collect();
                let rs = rs?;
                match (name, rs.as_slice()) {
                    (Builtin::Min, [a, b]) => Some(Range::new(a.lo.min(b.lo), a.hi.min(b.hi))),
                    (Builtin::Max, [a, b]) => Some(Range::new(a.lo.max(b.lo), a.hi.max(b.hi))),
                    // clamp(x, lo, hi) = min(max(x, lo), hi).
                    (Builtin::Clamp, [x, lo, hi]) => {
                        let m = Range::new(x.lo.max(lo.lo), x.hi.max(lo.hi));
                        Some(Range::new(m.lo.min(hi.lo), m.hi.min(hi.hi)))
                    }
                    _ => None,
                }
            }
            Inst::ReadVar(var) => {
                let r = self
                    .counter(v, s, depth)
                    .or_else(|| self.growing(v, s, depth))
                    .or_else(|| self.variable(*var, depth));
                self.refined(v, r.unwrap_or(Range::of_type(s)), depth)
            }
            _ => None,
        }
    }

    /// `r`, the range of the read `v`, narrowed by the conditions of the
    /// branches it is read under (see [`find_branch_bounds`]).
    fn refined(&self, v: ValueId, r: Range, depth: u32) -> Option<Range> {
        if self.branch_bounds.borrow().is_none() {
            let mut found = HashMap::new();
            find_branch_bounds(self.func, &self.func.body, &mut found);
            *self.branch_bounds.borrow_mut() = Some(found);
        }
        let bounds = self
            .branch_bounds
            .borrow()
            .as_ref()
            .and_then(|b| b.get(&v).cloned());
        let Some(bounds) = bounds else {
            return Some(r);
        };
        let (mut lo, mut hi) = (r.lo, r.hi);
        for b in bounds {
            match b {
                BranchBound::AtMost(y, off) => {
                    if let Some(ry) = self.of_depth(y, depth) {
                        hi = hi.min(ry.hi + off);
                    }
                }
                BranchBound::AtLeast(y, off) => {
                    if let Some(ry) = self.of_depth(y, depth) {
                        lo = lo.max(ry.lo + off);
                    }
                }
            }
        }
        // An empty range: the branch never runs, any value will do.
        Some(Range::new(lo, hi.max(lo)))
    }

    /// The least value of `a - b` that branch conditions guarantee where
    /// both are read (see [`find_differences`]).
    fn difference(&self, a: ValueId, b: ValueId) -> Option<i128> {
        if self.differences.borrow().is_none() {
            let mut found = HashMap::new();
            find_differences(self.func, &self.func.body, &mut found);
            *self.differences.borrow_mut() = Some(found);
        }
        self.differences.borrow().as_ref()?.get(&(a, b)).copied()
    }

    /// The range of `v`, a read of a growing loop's counter of type `s`
    /// after the loop's test: from the least value it enters with (none
    /// negative) to the largest that passes the test, when the trip's
    /// `k * f` of that cannot wrap.
    fn growing(&self, v: ValueId, s: Scalar, depth: u32) -> Option<Range> {
        if self.growing.borrow().is_none() {
            let mut found = HashMap::new();
            find_growing_loops(self.func, &self.func.body, &[], &mut found);
            *self.growing.borrow_mut() = Some(found);
        }
        let g = self.growing.borrow().as_ref()?.get(&v).cloned()?;
        let mut k0 = g.unwritten.then_some(Range::exact(0));
        for w in &g.k0 {
            let r = self.of_depth(*w, depth)?;
            k0 = Some(k0.map_or(r, |k| k.union(r)));
        }
        let k0 = k0?;
        if k0.lo < 0 {
            return None;
        }
        let bound = self.of_depth(g.bound, depth)?;
        let top = if g.inclusive { bound.hi } else { bound.hi - 1 };
        if top < k0.lo {
            // No trip passes the test: the reads after it never run.
            return Some(k0);
        }
        // The trip's write of a value that passed the test fits: the
        // counter never wraps, so it never falls below where it entered.
        let grown = top.checked_mul(g.factor)?;
        if !Range::new(k0.lo, grown).within(Range::of_type(s)) {
            return None;
        }
        Some(Range::new(k0.lo, top))
    }

    /// The range of `v`, a read of a counted loop's counter of type `s`.
    fn counter(&self, v: ValueId, s: Scalar, depth: u32) -> Option<Range> {
        if self.counters.borrow().is_none() {
            let mut found = HashMap::new();
            find_counted_loops(self.func, &self.func.body, &[], false, &mut found);
            *self.counters.borrow_mut() = Some(found);
        }
        let c = self.counters.borrow().as_ref()?.get(&v).cloned()?;
        let bound = self.of_depth(c.bound, depth)?;
        let mut k0: Option<Range> = None;
        for w in &c.k0 {
            let r = self.of_depth(*w, depth)?;
            k0 = Some(k0.map_or(r, |k| k.union(r)));
        }
        let k0 = k0?;
        if c.converted && k0.lo < 0 {
            return None;
        }
        let steps: Option<Vec<Range>> = c.steps.iter().map(|x| self.of_depth(*x, depth)).collect();
        let steps = steps?;
        // Every increment moves the counter up (or leaves it): it never
        // falls below where it entered.
        if steps.iter().any(|r| r.lo < 0) {
            return None;
        }
        let sum = |rs: &[Range]| {
            rs.iter().fold(Range::exact(0), |acc, r| {
                Range::new(acc.lo + r.lo, acc.hi + r.hi)
            })
        };
        let step = sum(&steps);
        // The largest value that passes the test.
        let top = if c.inclusive { bound.hi } else { bound.hi - 1 };
        if top < k0.lo {
            // No trip passes the test: the reads after it never run.
            return Some(k0);
        }
        // With one entry value and constant increments, the counter takes
        // `k0 + j·S` at the test, and the last value passing it is known
        // exactly (the unrolled `k < 16` reads `k + 1` at most 15).
        let last = if c.exact && k0.lo == k0.hi && step.lo == step.hi && step.lo > 0 {
            k0.lo + (top - k0.lo) / step.lo * step.lo
        } else {
            top
        };
        // No increment may wrap: the value that leaves the loop fits.
        if !Range::new(k0.lo, last + step.hi).within(Range::of_type(s)) {
            return None;
        }
        Some(match c.before {
            Some(p) => {
                let made = sum(&steps[..p]);
                let mut hi = last + made.hi;
                for g in &c.guards {
                    let b = self.of_depth(g.bound, depth)?;
                    let top = if g.inclusive { b.hi } else { b.hi - 1 };
                    let since = sum(&steps[g.made.min(p)..p]);
                    hi = hi.min(top - g.d + since.hi);
                }
                Range::new(k0.lo + made.lo, hi.max(k0.lo + made.lo))
            }
            None => Range::new(k0.lo, (last + step.hi).max(k0.hi)),
        })
    }

    fn binary(&self, op: BinaryOp, s: Scalar, a: Range, b: Range) -> Option<Range> {
        let k = (b.lo == b.hi).then_some(b.hi);
        match op {
            BinaryOp::Add => Some(a.add(b)),
            BinaryOp::Sub => Some(a.sub(b)),
            BinaryOp::Mul => a.mul(b),
            BinaryOp::Shl => {
                let k = k.filter(|k| (0..64).contains(k))?;
                a.mul(Range::exact(1i128 << k))
            }
            BinaryOp::Shr => {
                let k = k.filter(|k| (0..64).contains(k))?;
                if a.lo < 0 && !s.is_signed() {
                    return None;
                }
                // An arithmetic shift rounds towards minus infinity.
                Some(Range::new(a.lo >> k, a.hi >> k))
            }
            BinaryOp::Div => {
                let k = k.filter(|k| *k > 0)?;
                // Truncating division of each end bounds the quotients.
                Some(Range::new(a.lo / k, a.hi / k))
            }
            BinaryOp::Rem => {
                let k = k.filter(|k| *k > 0)?;
                if a.lo >= 0 {
                    Some(Range::new(0, (k - 1).min(a.hi)))
                } else {
                    Some(Range::new(-(k - 1), k - 1))
                }
            }
            BinaryOp::And => {
                // A non-negative operand bounds the result.
                let bound = [a, b].iter().filter(|r| r.lo >= 0).map(|r| r.hi).min()?;
                Some(Range::new(0, bound))
            }
            _ => None,
        }
    }

    /// The union of every value written to `var`; its type's range when it
    /// is written from a value that reads it again (a loop counter).
    fn variable(&self, var: VarId, depth: u32) -> Option<Range> {
        if self.following.borrow().contains(&var) || self.visits.get() == 0 {
            return None;
        }
        self.visits.set(self.visits.get() - 1);
        let mut writes = Vec::new();
        writes_of(&self.func.body, var, &mut writes);
        if writes.is_empty() {
            return None;
        }
        self.following.borrow_mut().push(var);
        let mut acc: Option<Range> = None;
        let mut lost = false;
        let mut shrinks = false;
        for w in writes {
            if shrinks_itself(self.func, w, var) {
                shrinks = true;
                continue;
            }
            let r = self.of_depth(w, depth).filter(|r| {
                // A read of `var` inside the written value came back with
                // the whole type: the value is not bounded.
                self.int_scalar(w).is_some_and(|s| *r != Range::of_type(s))
            });
            match r {
                Some(r) => acc = Some(acc.map_or(r, |a| a.union(r))),
                None => lost = true,
            }
        }
        self.following.borrow_mut().pop();
        // `x >>= c`, `x /= c` of a variable whose other values are none
        // negative: every value lies between 0 and the largest of those.
        match (lost, shrinks, acc) {
            (true, ..) => None,
            (false, true, Some(a)) if a.lo >= 0 => Some(a.union(Range::exact(0))),
            (false, true, _) => None,
            (false, false, a) => a,
        }
    }
}

/// Whether `w` is `x >> c` or `x / c` (a constant `c`, at least 1 for a
/// division) of a read of `var`: a value that does not move a
/// non-negative `x` away from 0.
fn shrinks_itself(func: &Function, w: ValueId, var: VarId) -> bool {
    match func.inst(w).inst {
        Inst::Binary(BinaryOp::Shr, a, b) => {
            read_of(func, a) == Some(var) && func.int_const(b).is_some_and(|k| (0..64).contains(&k))
        }
        Inst::Binary(BinaryOp::Div, a, b) => {
            read_of(func, a) == Some(var) && func.int_const(b).is_some_and(|k| k >= 1)
        }
        _ => false,
    }
}

/// Records the bounds that branch conditions put on the reads of
/// variables in `block` (see the module's comment): under `if (x < y)`,
/// where `x` is a read of a variable that is not written between that
/// read and the branch nor anywhere in the branch taken, every read of the
/// variable in the `then` block is below `y`'s highest value, and every
/// one in the `else` block at least `y`'s lowest; likewise for `<=`, `>`,
/// `>=`, `==` and either operand.
fn find_branch_bounds(
    func: &Function,
    block: &Block,
    out: &mut HashMap<ValueId, Vec<BranchBound>>,
) {
    for (at, s) in block.0.iter().enumerate() {
        match s {
            Stmt::If { cond, then_, else_ } => {
                if let Inst::Cmp(op, a, b) = func.inst(*cond).inst {
                    for (x, y, op) in [(a, b, op), (b, a, op.swapped())] {
                        branch_bound(func, &block.0[..at], x, y, op, then_, else_, out);
                    }
                }
                find_branch_bounds(func, then_, out);
                find_branch_bounds(func, else_, out);
            }
            Stmt::Loop { body, continuing } => {
                find_branch_bounds(func, body, out);
                find_branch_bounds(func, continuing, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    find_branch_bounds(func, &c.body, out);
                }
            }
            _ => {}
        }
    }
}

/// The bounds of `x op y`, the condition of a branch that follows the
/// statements `before`, on the reads of `x`'s variable in `then_` and
/// `else_`.
#[allow(clippy::too_many_arguments)]
fn branch_bound(
    func: &Function,
    before: &[Stmt],
    x: ValueId,
    y: ValueId,
    op: CmpOp,
    then_: &Block,
    else_: &Block,
    out: &mut HashMap<ValueId, Vec<BranchBound>>,
) {
    let Some(var) = read_of(func, x) else {
        return;
    };
    // `x` read in this block, and the variable not written since.
    let Some(read_at) = before
        .iter()
        .rposition(|s| matches!(s, Stmt::Eval(v) if *v == x))
    else {
        return;
    };
    let mut since = Vec::new();
    writes_of(&Block(before[read_at..].to_vec()), var, &mut since);
    if !since.is_empty() {
        return;
    }
    use BranchBound::{AtLeast, AtMost};
    let (taken, not_taken): (&[BranchBound], &[BranchBound]) = match op {
        CmpOp::Lt => (&[AtMost(y, -1)], &[AtLeast(y, 0)]),
        CmpOp::Le => (&[AtMost(y, 0)], &[AtLeast(y, 1)]),
        CmpOp::Gt => (&[AtLeast(y, 1)], &[AtMost(y, 0)]),
        CmpOp::Ge => (&[AtLeast(y, 0)], &[AtMost(y, -1)]),
        CmpOp::Eq => (&[AtMost(y, 0), AtLeast(y, 0)], &[]),
        CmpOp::Ne => (&[], &[AtMost(y, 0), AtLeast(y, 0)]),
    };
    for (branch, bounds) in [(then_, taken), (else_, not_taken)] {
        let mut written = Vec::new();
        writes_of(branch, var, &mut written);
        if bounds.is_empty() || !written.is_empty() {
            continue;
        }
        let mut reads = Vec::new();
        reads_in(func, branch, var, &mut reads);
        for r in reads {
            out.entry(r).or_default().extend_from_slice(bounds);
        }
    }
}

/// Records the counter reads of every counted loop in `block` (see the
/// module's comment). `written`: the variables the function's body has
/// written before `block` at its top level (a variable never written
/// reads as zero).
fn find_counted_loops(
    func: &Function,
    block: &Block,
    written: &[VarId],
    in_loop: bool,
    out: &mut HashMap<ValueId, CounterRead>,
) {
    let top = std::ptr::eq(block, &func.body);
    let mut written = written.to_vec();
    for (at, s) in block.0.iter().enumerate() {
        match s {
            Stmt::WriteVar(var, _) if top => written.push(*var),
            Stmt::If { then_, else_, .. } => {
                find_counted_loops(func, then_, &written, in_loop, out);
                find_counted_loops(func, else_, &written, in_loop, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    find_counted_loops(func, &c.body, &written, in_loop, out);
                }
            }
            Stmt::Loop { body, continuing } => {
                // Outside any loop, what follows the loop in its block
                // never runs before it.
                let after = (!in_loop).then(|| &block.0[at + 1..]);
                counted_loop(func, body, continuing, &written, after, out);
                find_counted_loops(func, body, &written, true, out);
                find_counted_loops(func, continuing, &written, true, out);
            }
            _ => {}
        }
    }
}

/// Records the counter reads of every growing loop in `block` (see the
/// module's comment). `written`: the variables the function's body has
/// written before `block` at its top level.
fn find_growing_loops(
    func: &Function,
    block: &Block,
    written: &[VarId],
    out: &mut HashMap<ValueId, GrowingRead>,
) {
    let top = std::ptr::eq(block, &func.body);
    let mut written = written.to_vec();
    for s in &block.0 {
        match s {
            Stmt::WriteVar(var, _) if top => written.push(*var),
            Stmt::If { then_, else_, .. } => {
                find_growing_loops(func, then_, &written, out);
                find_growing_loops(func, else_, &written, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    find_growing_loops(func, &c.body, &written, out);
                }
            }
            Stmt::Loop { body, continuing } => {
                growing_loop(func, body, continuing, &written, out);
                find_growing_loops(func, body, &written, out);
                find_growing_loops(func, continuing, &written, out);
            }
            _ => {}
        }
    }
}

/// Records the counter reads of the loop `body; continuing` when it is a
/// growing loop: its body opens with `if (k < C) {} else break` (or `k <=
/// C`) and the loop writes `k` once, at the top level of `continuing`, as
/// `k << c` or `k * c` (constants, `c` at least 1) of a read of `k` made
/// in `continuing` before it (scan's `for (offset = 1; offset < n; offset
/// <<= 1)`). Every read of `k` after the test and before that write sees
/// a value that passed the test.
fn growing_loop(
    func: &Function,
    body: &Block,
    continuing: &Block,
    written: &[VarId],
    out: &mut HashMap<ValueId, GrowingRead>,
) {
    let Some(at) = body.0.iter().position(|s| !matches!(s, Stmt::Eval(_))) else {
        return;
    };
    let Stmt::If { cond, then_, else_ } = &body.0[at] else {
        return;
    };
    if !then_.0.is_empty() || else_.0[..] != [Stmt::Break] {
        return;
    }
    let Inst::Cmp(op @ (CmpOp::Lt | CmpOp::Le), tested, bound) = func.inst(*cond).inst else {
        return;
    };
    let Some(var) = read_of(func, tested) else {
        return;
    };
    let mut inside = Vec::new();
    writes_of(body, var, &mut inside);
    writes_of(continuing, var, &mut inside);
    let [w] = inside[..] else {
        return;
    };
    let Some(write_at) = continuing
        .0
        .iter()
        .position(|s| matches!(s, Stmt::WriteVar(x, v) if *x == var && *v == w))
    else {
        return;
    };
    let bits = match func.ty(w) {
        Type::Scalar(s) if s.is_int() => i64::from(s.bits()),
        _ => return,
    };
    let (read, factor) = match func.inst(w).inst {
        Inst::Binary(BinaryOp::Shl, a, c) => match func.int_const(c) {
            Some(c) if (1..bits - 1).contains(&c) => (a, 1i128 << c),
            _ => return,
        },
        Inst::Binary(BinaryOp::Mul, a, b) => match (func.int_const(a), func.int_const(b)) {
            (None, Some(c)) if c >= 1 => (a, i128::from(c)),
            (Some(c), None) if c >= 1 => (b, i128::from(c)),
            _ => return,
        },
        _ => return,
    };
    let before_write = &continuing.0[..write_at];
    if read_of(func, read) != Some(var)
        || !before_write
            .iter()
            .any(|s| matches!(s, Stmt::Eval(v) if *v == read))
    {
        return;
    }
    let mut all = Vec::new();
    writes_of(&func.body, var, &mut all);
    let k0: Vec<ValueId> = all.into_iter().filter(|x| *x != w).collect();
    let mut reads = Vec::new();
    reads_in(func, &Block(body.0[at + 1..].to_vec()), var, &mut reads);
    reads_in(func, &Block(before_write.to_vec()), var, &mut reads);
    for r in reads {
        out.insert(
            r,
            GrowingRead {
                k0: k0.clone(),
                unwritten: !written.contains(&var),
                bound,
                inclusive: op == CmpOp::Le,
                factor,
            },
        );
    }
}

/// The variable `x` reads when no statement of `before` (which ends
/// where a branch on `x` is made) writes it after `x` is read there.
fn unwritten_since(func: &Function, before: &[Stmt], x: ValueId) -> Option<VarId> {
    let var = read_of(func, x)?;
    let read_at = before
        .iter()
        .rposition(|s| matches!(s, Stmt::Eval(v) if *v == x))?;
    let mut since = Vec::new();
    writes_of(&Block(before[read_at..].to_vec()), var, &mut since);
    since.is_empty().then_some(var)
}

/// Records what branch conditions say of differences: under `if (x >=
/// y)` (or `>`, or the `else` block of `<`, `<=`), where `x` and `y` read
/// variables that are written neither between those reads and the branch
/// nor anywhere in the block taken, every read `a` of `x`'s variable and
/// `b` of `y`'s in that block hold the values compared, so `a - b` is at
/// least 0 (1 for `>`) before it may wrap (scan's `tmp[lid - offset]`
/// under `lid >= offset`).
fn find_differences(func: &Function, block: &Block, out: &mut HashMap<(ValueId, ValueId), i128>) {
    for (at, s) in block.0.iter().enumerate() {
        match s {
            Stmt::If { cond, then_, else_ } => {
                if let Inst::Cmp(op, a, b) = func.inst(*cond).inst {
                    let vars = (
                        unwritten_since(func, &block.0[..at], a),
                        unwritten_since(func, &block.0[..at], b),
                    );
                    if let (Some(va), Some(vb)) = vars {
                        for (x, y, op) in [(va, vb, op), (vb, va, op.swapped())] {
                            let facts: [(&Block, i128); 1] = match op {
                                CmpOp::Ge => [(then_, 0)],
                                CmpOp::Gt => [(then_, 1)],
                                CmpOp::Lt => [(else_, 0)],
                                CmpOp::Le => [(else_, 1)],
                                _ => continue,
                            };
                            for (taken, d) in facts {
                                let mut written = Vec::new();
                                writes_of(taken, x, &mut written);
                                writes_of(taken, y, &mut written);
                                if x == y || !written.is_empty() {
                                    continue;
                                }
                                let (mut xs, mut ys) = (Vec::new(), Vec::new());
                                reads_in(func, taken, x, &mut xs);
                                reads_in(func, taken, y, &mut ys);
                                for ra in &xs {
                                    for rb in &ys {
                                        let e = out.entry((*ra, *rb)).or_insert(d);
                                        *e = (*e).max(d);
                                    }
                                }
                            }
                        }
                    }
                }
                find_differences(func, then_, out);
                find_differences(func, else_, out);
            }
            Stmt::Loop { body, continuing } => {
                find_differences(func, body, out);
                find_differences(func, continuing, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    find_differences(func, &c.body, out);
                }
            }
            _ => {}
        }
    }
}

/// Whether `to`, a conversion of `from`, is an integer conversion to a
/// strictly wider type (which keeps every value that is not negative).
fn widens(func: &Function, from: ValueId, to: ValueId) -> bool {
    match (func.ty(from), func.ty(to)) {
        (Type::Scalar(a), Type::Scalar(b)) => a.is_int() && b.is_int() && b.bits() > a.bits(),
        _ => false,
    }
}

/// The read of a variable `v` is, when it is one.
fn read_of(func: &Function, v: ValueId) -> Option<VarId> {
    match func.inst(v).inst {
        Inst::ReadVar(var) => Some(var),
        _ => None,
    }
}

/// The variable `v` adds a constant to a read of, when it does.
fn read_of_add(func: &Function, v: ValueId) -> Option<VarId> {
    match func.inst(v).inst {
        Inst::Binary(BinaryOp::Add, a, b) => read_of(func, a).or_else(|| read_of(func, b)),
        _ => None,
    }
}

/// Whether `block` (not counting nested loops' own `continue`s) holds a
/// `continue` of the loop it is in.
fn has_continue(block: &Block) -> bool {
    block.0.iter().any(|s| match s {
        Stmt::Continue => true,
        Stmt::If { then_, else_, .. } => has_continue(then_) || has_continue(else_),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| has_continue(&c.body)),
        _ => false,
    })
}

/// Whether `block` holds a `break` of the loop it is in (one in a nested
/// loop or `switch` leaves that instead).
fn has_break(block: &Block) -> bool {
    block.0.iter().any(|s| match s {
        Stmt::Break => true,
        Stmt::If { then_, else_, .. } => has_break(then_) || has_break(else_),
        _ => false,
    })
}

/// Every read of `var` in `block`, nested statements included.
fn reads_in(func: &Function, block: &Block, var: VarId, out: &mut Vec<ValueId>) {
    for s in &block.0 {
        match s {
            Stmt::Eval(v) if read_of(func, *v) == Some(var) => out.push(*v),
            Stmt::If { then_, else_, .. } => {
                reads_in(func, then_, var, out);
                reads_in(func, else_, var, out);
            }
            Stmt::Loop { body, continuing } => {
                reads_in(func, body, var, out);
                reads_in(func, continuing, var, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    reads_in(func, &c.body, var, out);
                }
            }
            _ => {}
        }
    }
}

/// Records the counter reads of the loop `body; continuing` when it is a
/// counted loop. `after`: statements that cannot run before the loop
/// (those after it in its block, outside any other loop), whose writes of
/// the counter are not values it enters with (the remainder of a loop
/// unrolled twice).
fn counted_loop(
    func: &Function,
    body: &Block,
    continuing: &Block,
    written: &[VarId],
    after: Option<&[Stmt]>,
    out: &mut HashMap<ValueId, CounterRead>,
) {
    // The test: evaluations, then `if (k < C) {} else break`.
    let Some(at) = body.0.iter().position(|s| !matches!(s, Stmt::Eval(_))) else {
        return;
    };
    let Stmt::If { cond, then_, else_ } = &body.0[at] else {
        return;
    };
    if !then_.0.is_empty() || else_.0[..] != [Stmt::Break] {
        return;
    }
    let Inst::Cmp(op @ (CmpOp::Lt | CmpOp::Le), tested, bound) = func.inst(*cond).inst else {
        return;
    };
    // `k < C`, or `(T)k < C` with `T` wider than `k`'s type (an `int`
    // counter against `get_local_size(0)`), which compares `k`'s own value
    // when it is never negative ([`Ranges::counter`] checks its entry).
    let (read, converted) = match func.inst(tested).inst {
        Inst::Convert { value, .. } if widens(func, value, tested) => (value, true),
        _ => (tested, false),
    };
    let Some(var) = read_of(func, read) else {
        return;
    };
    // A trip cut short (`continue`) would skip increments that reads
    // after it count on; one left half-way (another `break`, as a loop
    // unrolled twice tests its second trip) leaves the loop, so only the
    // exact progression `k0 + j·S` is lost.
    let rest = Block(body.0[at + 1..].to_vec());
    if has_continue(body) || has_continue(continuing) {
        return;
    }
    let exact = !has_break(&rest) && !has_break(continuing);
    // The trip: every write of the counter at the top level, each `k = k
    // + c` of a read made since the previous write. Where the counter was
    // split into webs (a loop unrolled twice: the body's increment writes
    // one variable, the `continuing` block's the test's), the counter is
    // the variable written last, and the trip must end with the test's.
    let top = body.0[at + 1..].iter().chain(&continuing.0);
    let mut current = var;
    let mut family: Vec<(VarId, usize)> = vec![(var, 0)];
    let mut reads_since_write: Vec<ValueId> = Vec::new();
    let mut steps: Vec<ValueId> = Vec::new();
    let mut reads: Vec<(ValueId, Option<usize>)> = Vec::new();
    // The trip's other exit tests, and for each read how many of them
    // precede it (reads before the first guard are at 0).
    let mut guards: Vec<Guard> = Vec::new();
    let mut at_guards: Vec<(ValueId, usize)> = Vec::new();
    let mut guarded_from = 0usize;
    for s in &body.0[..at] {
        if let Stmt::Eval(v) = s {
            if read_of(func, *v) == Some(var) {
                reads.push((*v, None));
            }
        }
    }
    for s in top {
        match s {
            Stmt::WriteVar(x, w) if *x == current || read_of_add(func, *w) == Some(current) => {
                let Inst::Binary(BinaryOp::Add, a, b) = func.inst(*w).inst else {
                    return;
                };
                // `k + c`: `c` a value not computed from the counter
                // (a constant, the group's size), whose range
                // [`Ranges::counter`] requires to be non-negative.
                let c = if reads_since_write.contains(&a) {
                    b
                } else if reads_since_write.contains(&b) {
                    a
                } else {
                    return;
                };
                if reads_value(
                    func,
                    c,
                    &family.iter().map(|(f, _)| *f).collect::<Vec<_>>(),
                    0,
                ) {
                    return;
                }
                steps.push(c);
                reads_since_write.clear();
                current = *x;
                match family.iter_mut().find(|(f, _)| f == x) {
                    Some((_, n)) => *n += 1,
                    None => family.push((*x, 1)),
                }
            }
            Stmt::Eval(v) if read_of(func, *v) == Some(current) => {
                reads_since_write.push(*v);
                reads.push((*v, Some(steps.len())));
            }
            Stmt::If { .. } | Stmt::Loop { .. } | Stmt::Switch { .. } => {
                let nested = Block(vec![s.clone()]);
                let mut found = Vec::new();
                reads_in(func, &nested, current, &mut found);
                reads.extend(found.into_iter().map(|v| (v, Some(steps.len()))));
                // `if (k + d < C2) {} else break`: the counter is at most
                // C2's highest value less one, less d, from here on.
                if let Some(g) = exit_test(func, s, &reads_since_write, steps.len()) {
                    guards.push(g);
                    for (v, _) in reads.iter().skip(guarded_from) {
                        at_guards.push((*v, guards.len() - 1));
                    }
                    guarded_from = reads.len();
                }
            }
            _ => {}
        }
    }
    for (v, _) in reads.iter().skip(guarded_from) {
        at_guards.push((*v, guards.len()));
    }
    if current != var {
        return;
    }
    // No other write of the family in the loop (nested ones included),
    // and none outside but the test variable's.
    for (f, n) in &family {
        let mut inside = Vec::new();
        writes_of(body, *f, &mut inside);
        writes_of(continuing, *f, &mut inside);
        if inside.len() != *n {
            return;
        }
        if *f != var {
            let mut all = Vec::new();
            writes_of(&func.body, *f, &mut all);
            if all.len() != *n {
                return;
            }
        }
    }
    if steps.is_empty() {
        return;
    }
    // The values the counter enters with: its writes outside the loop.
    let mut all = Vec::new();
    writes_of(&func.body, var, &mut all);
    let mut inside = Vec::new();
    writes_of(body, var, &mut inside);
    writes_of(continuing, var, &mut inside);
    if let Some(after) = after {
        writes_of(&Block(after.to_vec()), var, &mut inside);
    }
    let k0: Vec<ValueId> = all.into_iter().filter(|w| !inside.contains(w)).collect();
    if k0.is_empty() {
        return;
    }
    // A path into the loop that writes no value reads zero.
    let zero = k0.len() == 1 && func.int_const(k0[0]) == Some(0);
    if !zero && !written.contains(&var) {
        return;
    }
    for (v, before) in reads {
        let passed = at_guards
            .iter()
            .find(|(r, _)| *r == v)
            .map_or(0, |(_, n)| *n);
        out.insert(
            v,
            CounterRead {
                guards: guards[..passed].to_vec(),
                k0: k0.clone(),
                steps: steps.clone(),
                bound,
                inclusive: op == CmpOp::Le,
                before,
                exact,
                converted,
            },
        );
    }
}

/// `s` as an exit test of a counted loop's trip, `if (k + d < C) {} else
/// break` (or `<=`, `d` a constant at least 0, `k` a read of the counter
/// made since its last write), made after `made` increments.
fn exit_test(func: &Function, s: &Stmt, reads: &[ValueId], made: usize) -> Option<Guard> {
    let Stmt::If { cond, then_, else_ } = s else {
        return None;
    };
    if !then_.0.is_empty() || else_.0[..] != [Stmt::Break] {
        return None;
    }
    let Inst::Cmp(op @ (CmpOp::Lt | CmpOp::Le), x, bound) = func.inst(*cond).inst else {
        return None;
    };
    let d = if reads.contains(&x) {
        0
    } else {
        let Inst::Binary(BinaryOp::Add, a, b) = func.inst(x).inst else {
            return None;
        };
        match (func.int_const(a), func.int_const(b)) {
            (None, Some(d)) if reads.contains(&a) => d,
            (Some(d), None) if reads.contains(&b) => d,
            _ => return None,
        }
    };
    (d >= 0).then_some(Guard {
        bound,
        inclusive: op == CmpOp::Le,
        d: i128::from(d),
        made,
    })
}

/// Whether `v` is computed from a read of one of `vars` (followed through
/// arithmetic, conversions and selects; anything deeper counts as such).
fn reads_value(func: &Function, v: ValueId, vars: &[VarId], depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let on = |x: ValueId| reads_value(func, x, vars, depth + 1);
    match &func.inst(v).inst {
        Inst::ReadVar(var) => vars.contains(var),
        Inst::Const(_) | Inst::Param(_) => false,
        Inst::WorkItem(_, dim) => dim.is_some_and(on),
        Inst::Convert { value, .. } => on(*value),
        Inst::Binary(_, a, b) => on(*a) || on(*b),
        Inst::Select(c, a, b) => on(*c) || on(*a) || on(*b),
        Inst::Builtin(_, args) => args.iter().any(|a| on(*a)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    struct Launch;

    impl Facts for Launch {
        fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Range> {
            match (f, dim) {
                (WorkItemFn::GlobalId, Some(0)) => Some(Range::new(0, 63)),
                _ => None,
            }
        }
        fn param(&self, n: u32) -> Option<Range> {
            (n == 1).then_some(Range::exact(10))
        }
    }

    fn ranges_of(text: &str, facts: &dyn Facts) -> Vec<Option<Range>> {
        let m = parse_module(text).expect("parses");
        let f = &m.functions[0];
        let r = Ranges::new(f, facts);
        (0..f.insts.len())
            .map(|i| r.of(ValueId(i as u32)))
            .collect()
    }

    #[test]
    fn narrow_types_constants_and_arithmetic() {
        let text = "kernel @k(p: ptr global u8, n: i32) {
  %0: ptr global u8 = param 0
  %1: u8 = load %0
  %2: i32 = convert %1
  %3: i32 = const 4
  %4: i32 = mul %2, %3
  %5: i32 = const 3
  %6: i32 = and %4, %5
  %7: i32 = param 1
  %8: i32 = rem %7, %3
  %9: i32 = neg %2
  %10: u32 = convert %1
  %11: u32 = neg %10
}
";
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[9], Some(Range::new(-255, 0)));
        // Negating an unsigned value wraps.
        assert_eq!(r[11], Some(Range::of_type(Scalar::U32)));
        assert_eq!(r[1], Some(Range::new(0, 255)));
        assert_eq!(r[2], Some(Range::new(0, 255)));
        assert_eq!(r[4], Some(Range::new(0, 1020)));
        assert_eq!(r[6], Some(Range::new(0, 3)));
        assert_eq!(r[7], Some(Range::of_type(Scalar::I32)));
        assert_eq!(r[8], Some(Range::new(-3, 3)));
    }

    #[test]
    fn launch_facts_wrapping_and_loop_counters() {
        let text = "kernel @k(p: ptr global u8, n: i32) {
  var $0 i: i32
  %0: u32 = const 0
  %1: u64 = work_item global_id %0
  %2: i32 = convert %1
  %3: i32 = param 1
  %4: i32 = mul %2, %3
  %5: i32 = const 2147483647
  %6: i32 = add %2, %5
  %7: i32 = const 0
  write $0, %7
  loop {
    %8: i32 = read $0
    %9: i32 = const 1
    %10: i32 = add %8, %9
    write $0, %10
  }
}
";
        let r = ranges_of(text, &Launch);
        assert_eq!(r[1], Some(Range::new(0, 63)));
        assert_eq!(r[4], Some(Range::new(0, 630)));
        // Past i32's range: it may have wrapped.
        assert_eq!(r[6], Some(Range::of_type(Scalar::I32)));
        assert_eq!(r[8], Some(Range::of_type(Scalar::I32)));
    }

    /// `for (k = 0; k < 16; k++)` unrolled twice: the second copy's read
    /// is at most 15, the test's read at most 16 (the value that leaves).
    #[test]
    fn counted_loop_unrolled_twice() {
        let text = "kernel @k(p: ptr global u8, n: i32) {
  var $0 k: i32
  %0: i32 = const 0
  write $0, %0
  loop {
    %1: i32 = read $0
    %2: i32 = const 16
    %3: bool = cmp lt %1, %2
    if %3 {
    } else {
      break
    }
    %4: i32 = read $0
    %5: i32 = const 1
    %6: i32 = add %4, %5
    write $0, %6
    %7: i32 = read $0
    %8: i64 = convert %7
  } continuing {
    %9: i32 = read $0
    %10: i32 = const 1
    %11: i32 = add %9, %10
    write $0, %11
  }
  %12: i32 = read $0
}
";
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[1], Some(Range::new(0, 16)));
        assert_eq!(r[4], Some(Range::new(0, 14)));
        assert_eq!(r[7], Some(Range::new(1, 15)));
        assert_eq!(r[8], Some(Range::new(1, 15)));
        assert_eq!(r[9], Some(Range::new(1, 15)));
        // After the loop: the union of the writes, each a counted read + 1.
        assert_eq!(r[12], Some(Range::new(0, 16)));
    }

    /// The same loop with its counter split into webs, as the JIT's region
    /// rewrite leaves it: the body's increment writes `$1`, the
    /// `continuing` block's `$0` from `$1`.
    #[test]
    fn counted_loop_split_into_webs() {
        let text = "kernel @k(p: ptr global u8, n: i32) {
  var $0 k: i32
  var $1 k.1: i32
  %0: i32 = const 0
  write $0, %0
  loop {
    %1: i32 = read $0
    %2: i32 = const 16
    %3: bool = cmp lt %1, %2
    if %3 {
    } else {
      break
    }
    %4: i32 = read $0
    %5: i32 = const 1
    %6: i32 = add %4, %5
    write $1, %6
    %7: i32 = read $1
  } continuing {
    %8: i32 = read $1
    %9: i32 = const 1
    %10: i32 = add %8, %9
    write $0, %10
  }
}
";
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[4], Some(Range::new(0, 14)));
        assert_eq!(r[7], Some(Range::new(1, 15)));
        assert_eq!(r[8], Some(Range::new(1, 15)));
        // A trip that ends on the other variable is not counted.
        let text = text.replace("write $0, %10", "write $1, %10");
        let r = ranges_of(&text, &NoFacts);
        assert_eq!(r[7], Some(Range::of_type(Scalar::I32)));
    }

    /// A bound from a parameter's known range, a step of 4 from 2, `<=`.
    #[test]
    fn counted_loop_step_and_parameter_bound() {
        let text = "kernel @k(p: ptr global u8, n: i32) {
  var $0 k: i32
  %0: i32 = const 2
  write $0, %0
  loop {
    %1: i32 = read $0
    %2: i32 = param 1
    %3: bool = cmp le %1, %2
    if %3 {
    } else {
      break
    }
    %4: i32 = read $0
  } continuing {
    %5: i32 = read $0
    %6: i32 = const 4
    %7: i32 = add %5, %6
    write $0, %7
  }
}
";
        // n = 10: k takes 2, 6, 10 in the loop.
        let r = ranges_of(text, &Launch);
        assert_eq!(r[4], Some(Range::new(2, 10)));
        assert_eq!(r[5], Some(Range::new(2, 10)));
        // Unknown n: up to i32::MAX, and k + 4 may wrap.
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[4], Some(Range::of_type(Scalar::I32)));
    }

    /// `for (k = 0; k < 16; k++)` whose trip may also leave at a `break`.
    const LOOP_WITH_BREAK: &str = "kernel @k(p: ptr global u8, n: i32, c: bool) {
  var $0 k: i32
  %0: i32 = const 0
  write $0, %0
  loop {
    %1: i32 = read $0
    %2: i32 = const 16
    %3: bool = cmp lt %1, %2
    if %3 {
    } else {
      break
    }
    %8: bool = param 2
    if %8 {
      break
    } else {
    }
    %4: i32 = read $0
    %5: i32 = const 1
    %6: i32 = add %4, %5
    write $0, %6
    %7: i32 = read $0
  } continuing {
  }
}
";

    /// Loops whose counter can leave the progression are not counted: a
    /// `continue` that skips an increment, an increment under a branch.
    #[test]
    fn loops_that_are_not_counted() {
        let shapes = [
            // continue before the body's increment
            ("%8: bool = param 2\n    if %8 {\n      continue\n    } else {\n    }", ""),
            // an increment under a branch
            (
                "",
                "%8: bool = param 2\n    if %8 {\n      %9: i32 = read $0\n      %10: i32 = const 1\n      %11: i32 = add %9, %10\n      write $0, %11\n    } else {\n    }",
            ),
        ];
        for (in_body, in_continuing) in shapes {
            let text = format!(
                "kernel @k(p: ptr global u8, n: i32, c: bool) {{
  var $0 k: i32
  %0: i32 = const 0
  write $0, %0
  loop {{
    %1: i32 = read $0
    %2: i32 = const 16
    %3: bool = cmp lt %1, %2
    if %3 {{
    }} else {{
      break
    }}
    {in_body}
    %4: i32 = read $0
    %5: i32 = const 1
    %6: i32 = add %4, %5
    write $0, %6
    %7: i32 = read $0
  }} continuing {{
    {in_continuing}
  }}
}}
"
            );
            let r = ranges_of(&text, &NoFacts);
            assert_eq!(r[7], Some(Range::of_type(Scalar::I32)), "{text}");
        }
        // Another break in the trip leaves the loop: the reads after the
        // test keep their bound.
        let text = LOOP_WITH_BREAK;
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[7], Some(Range::new(1, 16)), "{text}");
        // The start is a parameter.
        let text = "kernel @k(p: ptr global u8, n: i32) {
  var $0 k: i32
  %0: i32 = param 1
  write $0, %0
  loop {
    %1: i32 = read $0
    %2: i32 = const 16
    %3: bool = cmp lt %1, %2
    if %3 {
    } else {
      break
    }
    %4: i32 = read $0
  } continuing {
    %5: i32 = read $0
    %6: i32 = const 1
    %7: i32 = add %5, %6
    write $0, %7
  }
}
";
        // Bounded by the test above, by the start's range below.
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[4], Some(Range::new(i128::from(i32::MIN), 15)));
    }

    /// A counter that starts at the local id and steps by the group's
    /// size (a group clearing a 256-entry `__local` table): `[0, 255]`
    /// in the body once local ids are known to be non-negative and sizes
    /// at least 1, its type's range below without them.
    #[test]
    fn counted_loop_from_local_id_by_group_size() {
        struct Group;
        impl Facts for Group {
            fn work_item(&self, f: WorkItemFn, _: Option<u64>) -> Option<Range> {
                match f {
                    WorkItemFn::LocalId => Some(Range::new(0, 63)),
                    WorkItemFn::LocalSize => Some(Range::new(1, 64)),
                    _ => None,
                }
            }
            fn param(&self, _: u32) -> Option<Range> {
                None
            }
        }
        let text = "kernel @k(p: ptr global u8, n: i32) {
  var $0 b: i32
  %0: u32 = const 0
  %1: u64 = work_item local_id %0
  %2: i32 = convert %1
  write $0, %2
  loop {
    %3: i32 = read $0
    %4: i32 = const 256
    %5: bool = cmp lt %3, %4
    if %5 {
    } else {
      break
    }
    %6: i32 = read $0
  } continuing {
    %7: i32 = read $0
    %8: u64 = work_item local_size %0
    %9: i32 = convert %8
    %10: i32 = add %7, %9
    write $0, %10
  }
}
";
        let r = ranges_of(text, &Group);
        assert_eq!(r[6], Some(Range::new(0, 255)));
        // Before the test: up to the value that leaves the loop.
        assert_eq!(r[3], Some(Range::new(0, 255 + 64)));
        assert_eq!(r[7], Some(Range::new(0, 255)));
        // A step that may be negative bounds nothing.
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[6], Some(Range::of_type(Scalar::I32)));
    }

    #[test]
    fn counted_loop_tested_against_a_wider_type() {
        struct Group;
        impl Facts for Group {
            fn work_item(&self, f: WorkItemFn, _: Option<u64>) -> Option<Range> {
                (f == WorkItemFn::LocalSize).then_some(Range::new(1, 64))
            }
            fn param(&self, _: u32) -> Option<Range> {
                None
            }
        }
        // `for (int j = START; j < get_local_size(0); j++)`: the test
        // converts `j` to `size_t`.
        let text = |start: i32| {
            format!(
                "kernel @k(p: ptr global u8) {{
  var $0 j: i32
  %0: i32 = const {start}
  write $0, %0
  loop {{
    %1: i32 = read $0
    %2: u32 = const 0
    %3: u64 = work_item local_size %2
    %4: u64 = convert %1
    %5: bool = cmp lt %4, %3
    if %5 {{
    }} else {{
      break
    }}
    %6: i32 = read $0
  }} continuing {{
    %7: i32 = read $0
    %8: i32 = const 1
    %9: i32 = add %7, %8
    write $0, %9
  }}
}}
"
            )
        };
        let r = ranges_of(&text(0), &Group);
        assert_eq!(r[6], Some(Range::new(0, 63)));
        // A counter that may start negative: converted, a negative value
        // passes the unsigned test as a huge one, so nothing is bounded.
        let r = ranges_of(&text(-1), &Group);
        assert_eq!(r[6], Some(Range::of_type(Scalar::I32)));
    }

    /// Scan's loop: `offset` doubles from 1 while below the group's size,
    /// and `lid - offset` under `lid >= offset` indexes the group's
    /// elements.
    #[test]
    fn growing_counter_and_a_difference_under_its_branch() {
        struct Group;
        impl Facts for Group {
            fn work_item(&self, f: WorkItemFn, _: Option<u64>) -> Option<Range> {
                match f {
                    WorkItemFn::LocalId => Some(Range::new(0, 255)),
                    WorkItemFn::LocalSize => Some(Range::new(1, 256)),
                    _ => None,
                }
            }
            fn param(&self, _: u32) -> Option<Range> {
                None
            }
        }
        let text = "kernel @k(p: ptr global u8) {
  var $0 lid: i32
  var $1 n: i32
  var $2 offset: i32
  %0: u32 = const 0
  %1: u64 = work_item local_id %0
  %2: i32 = convert %1
  write $0, %2
  %3: u64 = work_item local_size %0
  %4: i32 = convert %3
  write $1, %4
  %5: i32 = const 1
  write $2, %5
  loop {
    %6: i32 = read $2
    %7: i32 = read $1
    %8: bool = cmp lt %6, %7
    if %8 {
    } else {
      break
    }
    %9: i32 = read $0
    %10: i32 = read $2
    %11: bool = cmp ge %9, %10
    if %11 {
      %12: i32 = read $0
      %13: i32 = read $2
      %14: i32 = sub %12, %13
    } else {
      %15: i32 = read $0
      %16: i32 = read $2
      %17: i32 = sub %15, %16
    }
  } continuing {
    %18: i32 = read $2
    %19: i32 = const 1
    %20: i32 = shl %18, %19
    write $2, %20
  }
}
";
        let r = ranges_of(text, &Group);
        // After the test: from 1 to the largest size less one.
        assert_eq!(r[10], Some(Range::new(1, 255)));
        assert_eq!(r[18], Some(Range::new(1, 255)));
        // Under `lid >= offset`: an index into the group's elements.
        assert_eq!(r[14], Some(Range::new(0, 254)));
        // In the `else` block nothing bounds it below 0.
        assert_eq!(r[17], Some(Range::new(-255, 253)));
        // At the test, where the bound is not known to hold yet: the
        // value it enters with or a trip's doubled one, up to 2 · 255.
        assert_eq!(r[6], Some(Range::new(1, 510)));
        // Nothing known of the launch: a size up to INT_MAX would let the
        // doubling wrap, so no bound.
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[10], Some(Range::of_type(Scalar::I32)));
        // A counter written in the body too is not growing.
        let twice = text.replace(
            "%14: i32 = sub %12, %13",
            "%14: i32 = sub %12, %13\n      write $2, %14",
        );
        let r = ranges_of(&twice, &Group);
        assert_eq!(r[10], Some(Range::of_type(Scalar::I32)));
        // Entering at -1 (a negative start, which doubling takes further
        // down): not a growing loop.
        let negative = text.replace("%5: i32 = const 1", "%5: i32 = const -1");
        let r = ranges_of(&negative, &Group);
        assert_eq!(r[10], Some(Range::of_type(Scalar::I32)));
        // `offset` written in the branch: no difference fact there.
        let written = text.replace(
            "%14: i32 = sub %12, %13",
            "%14: i32 = sub %12, %13\n      write $0, %14",
        );
        let r = ranges_of(&written, &Group);
        assert!(r[14].is_some_and(|x| x.lo < 0), "{:?}", r[14]);
    }

    /// The tree reduction: `s` from `n / 2` halving to 0, `lid + s` read
    /// under `lid < s`. With local ids below 64 and sizes up to 64, `s`
    /// is at most 32 and `lid + s` at most 63 in the branch (unbounded by
    /// intervals alone: 94).
    #[test]
    fn shrinking_variable_and_branch_condition() {
        struct Group;
        impl Facts for Group {
            fn work_item(&self, f: WorkItemFn, _: Option<u64>) -> Option<Range> {
                match f {
                    WorkItemFn::LocalId => Some(Range::new(0, 63)),
                    WorkItemFn::LocalSize => Some(Range::new(1, 64)),
                    _ => None,
                }
            }
            fn param(&self, _: u32) -> Option<Range> {
                None
            }
        }
        let text = "kernel @k(p: ptr global u8, n: i32) {
  var $0 lid: u64
  var $1 s: u64
  %0: u32 = const 0
  %1: u64 = work_item local_id %0
  write $0, %1
  %2: u64 = work_item local_size %0
  %3: u64 = const 2
  %4: u64 = div %2, %3
  write $1, %4
  loop {
    %5: u64 = read $1
    %6: u64 = const 0
    %7: bool = cmp gt %5, %6
    if %7 {
    } else {
      break
    }
    %8: u64 = read $0
    %9: u64 = read $1
    %10: bool = cmp lt %8, %9
    if %10 {
      %11: u64 = read $0
      %12: u64 = read $1
      %13: u64 = add %11, %12
    } else {
      %14: u64 = read $0
    }
  } continuing {
    %15: u64 = read $1
    %16: u64 = const 1
    %17: u64 = shr %15, %16
    write $1, %17
  }
}
";
        let r = ranges_of(text, &Group);
        assert_eq!(r[9], Some(Range::new(0, 32)));
        assert_eq!(r[11], Some(Range::new(0, 31)));
        // And s above lid there: at least 1.
        assert_eq!(r[12], Some(Range::new(1, 32)));
        assert_eq!(r[13], Some(Range::new(1, 63)));
        // `lid >= s` in the else block: its lowest value is s's, 0.
        assert_eq!(r[14], Some(Range::new(0, 63)));
        // Nothing known of the launch: s is still at most half of u64.
        let r = ranges_of(text, &NoFacts);
        assert_eq!(r[9], Some(Range::new(0, (1i128 << 63) - 1)));
        // A write of lid in the branch (from itself: lid is unbounded):
        // its reads there are not narrowed.
        let written = text.replace(
            "%13: u64 = add %11, %12",
            "%13: u64 = add %11, %12\n      write $0, %13",
        );
        let r = ranges_of(&written, &Group);
        assert_eq!(r[11], Some(Range::of_type(Scalar::U64)));
        // A variable that also grows is not shrinking.
        let grows = text.replace("%17: u64 = shr %15, %16", "%17: u64 = add %15, %16");
        let r = ranges_of(&grows, &Group);
        assert_eq!(r[9], Some(Range::of_type(Scalar::U64)));
    }
}

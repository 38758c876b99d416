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
//! target type; `+ - *`, shifts, division and remainder by constants, `&`
//! with a non-negative constant, `min`/`max`/`clamp`; `select`; a variable
//! read, as the union of every value written to it (a variable that is
//! written from itself, a loop counter, gets its type's range). Arithmetic
//! is done on `i128`; a result that leaves its type's range may have
//! wrapped, and gets the whole type's range instead. Every answer is sound:
//! the real value always lies inside.

use super::uniformity::writes_of;
use crate::{BinaryOp, Builtin, Function, Inst, Scalar, Type, ValueId, VarId, WorkItemFn};
use std::cell::RefCell;
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
}

impl<'a> Ranges<'a> {
    pub fn new(func: &'a Function, facts: &'a dyn Facts) -> Ranges<'a> {
        Ranges {
            func,
            facts,
            memo: RefCell::new(HashMap::new()),
            following: RefCell::new(Vec::new()),
        }
    }

    /// The range of `v`; `None` when it is not a scalar integer.
    pub fn of(&self, v: ValueId) -> Option<Range> {
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
            Inst::ReadVar(var) => self.variable(*var, depth),
            _ => None,
        }
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
        if self.following.borrow().contains(&var) {
            return None;
        }
        let mut writes = Vec::new();
        writes_of(&self.func.body, var, &mut writes);
        if writes.is_empty() {
            return None;
        }
        self.following.borrow_mut().push(var);
        let mut acc: Option<Range> = None;
        let mut lost = false;
        for w in writes {
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
        if lost {
            None
        } else {
            acc
        }
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
}
";
        let r = ranges_of(text, &NoFacts);
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
}

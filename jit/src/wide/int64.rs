//! 64-bit integers (`long`, `ulong`, `size_t`) in the wide code, narrowed
//! to 32-bit lanes where their ranges allow it.
//!
//! The wide code holds a 64-bit value as one zmm of sixteen 32-bit lanes
//! standing for their sign extension ([`super::lower`]'s `Class::I64` and
//! `Class::U64`): exact for work-item ids and sizes, which the entry keeps
//! below 2^31 (a launch past [`MAX_ID_END`] runs the Cranelift code), and
//! for `int`s widened to `long`. An operation keeps that form exact when
//! its result is the sign extension of the 32-bit operation's result on
//! the operands' low halves:
//!
//! - `&`, `|`, `^` and `~` always (bitwise operations of sign extensions
//!   are the sign extensions of the bitwise results);
//! - `+`, `-`, `*` and negation when the result lies in `[-2^31, 2^31)`
//!   (the low 32 bits of a sum, difference or product do not depend on
//!   the high ones, and a result in that interval is the sign extension
//!   of its low 32 bits);
//! - `/` and `%` when both operands lie in `[-2^31, 2^31)` (`[0, 2^31)`
//!   for `ulong`, whose division is unsigned) and the quotient is not
//!   `-2^31 / -1`: the 32-bit division of the same values, with `x / 0 =
//!   x % 0 = 0` as the interpreter computes it;
//! - `<<` when the count lies in `[0, 31]` and the result in `[-2^31,
//!   2^31)`, `>>` when the count lies in `[0, 31]` and the shifted value
//!   in `[-2^31, 2^31)` (`[0, 2^31)` for `ulong`, whose shift is logical).
//!
//! The intervals come from `vecl_ir::analysis::ranges` over the kernel,
//! with the facts the wide entry guarantees (`EntryLaunch`): every
//! global id below [`MAX_ID_END`], every size at most that. So the tree
//! reduction's `size_t` arithmetic (`n / 2`, `s >>= 1`, `lid + s` under
//! `lid < s`) is exact in 32-bit lanes; a product of a group id and a
//! size, which may pass 2^31 for some launch the entry runs, is refused
//! and the kernel keeps the Cranelift code.

use super::entry::MAX_ID_END;
use std::cell::RefCell;
use std::collections::HashMap;
use vecl_ir::analysis::ranges::{Facts, Range, Ranges};
use vecl_ir::{BinaryOp, Function, Inst, Scalar, Type, UnaryOp, ValueId, WorkItemFn};

/// `[-2^31, 2^31)`: the values a 32-bit lane's sign extension holds.
const I32: Range = Range {
    lo: i32::MIN as i128,
    hi: i32::MAX as i128,
};

/// `[0, 2^31)`: the `ulong`s whose unsigned and signed 32-bit operations
/// agree.
const SMALL: Range = Range {
    lo: 0,
    hi: i32::MAX as i128,
};

/// What the wide entry guarantees of the launches it runs: in every
/// dimension `offset + size <= MAX_ID_END` (the others run the Cranelift
/// code), so every global id, group id and local id is below it and every
/// size, actual local size and group count at most it.
struct EntryLaunch;

impl Facts for EntryLaunch {
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Range> {
        let end = i128::from(MAX_ID_END);
        // Past the third dimension an id or offset is 0, a size 1.
        let past = dim.is_some_and(|d| d >= 3);
        match f {
            WorkItemFn::GlobalId
            | WorkItemFn::LocalId
            | WorkItemFn::GroupId
            | WorkItemFn::GlobalOffset
                if past =>
            {
                Some(Range::exact(0))
            }
            WorkItemFn::GlobalSize | WorkItemFn::LocalSize | WorkItemFn::NumGroups if past => {
                Some(Range::exact(1))
            }
            WorkItemFn::GlobalId
            | WorkItemFn::LocalId
            | WorkItemFn::GroupId
            | WorkItemFn::GlobalOffset => Some(Range::new(0, end - 1)),
            // The actual local size is at most the global size (a partial
            // last group is smaller); the enqueued one has no such bound.
            WorkItemFn::GlobalSize | WorkItemFn::LocalSize | WorkItemFn::NumGroups => {
                Some(Range::new(1, end))
            }
            WorkItemFn::WorkDim => Some(Range::new(1, 3)),
            _ => None,
        }
    }

    fn param(&self, _: u32) -> Option<Range> {
        None
    }
}

static ENTRY_LAUNCH: EntryLaunch = EntryLaunch;

/// How a 64-bit operation is lowered: as the 32-bit one of this
/// signedness (`true`: `int`'s, `false`: `uint`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Narrowed {
    pub signed: bool,
}

/// The ranges of a kernel's 64-bit values under the wide entry's facts.
pub struct Narrowing<'a> {
    func: &'a Function,
    ranges: Ranges<'a>,
    /// [`Narrowing::signed`]'s answers.
    memo: RefCell<HashMap<ValueId, Option<Range>>>,
}

impl<'a> Narrowing<'a> {
    pub fn new(func: &'a Function) -> Narrowing<'a> {
        Narrowing {
            func,
            ranges: Ranges::new(func, &ENTRY_LAUNCH),
            memo: RefCell::new(HashMap::new()),
        }
    }

    fn range(&self, v: ValueId) -> Option<Range> {
        self.ranges.of(v)
    }

    /// The range of 64-bit value `v`'s bits read as a `long`. The sum,
    /// difference and product of `ulong`s have the bits of the `long`
    /// ones (both wrap modulo 2^64), so a `ulong` difference that wraps
    /// below 0 (`get_global_id(0) - get_global_offset(0)`, whose range the
    /// analysis gives as every `ulong`) is read as the negative `long` it
    /// stands for. The operations this file narrows get the ranges of
    /// [`narrowed`] (division and remainder by any divisor, bitwise
    /// operations, which the analysis leaves at the type's range); the
    /// others, the analysis's.
    fn signed(&self, v: ValueId) -> Option<Range> {
        self.signed_depth(v, 0)
    }

    fn signed_depth(&self, v: ValueId, depth: u32) -> Option<Range> {
        if let Some(r) = self.memo.borrow().get(&v) {
            return *r;
        }
        let s = is_64(self.func.ty(v));
        let own = match (&self.func.inst(v).inst, s) {
            (_, None) => None,
            _ if depth > MAX_DEPTH => None,
            (Inst::Binary(op, a, b), Some(s)) => {
                let x = self.signed_depth(*a, depth + 1);
                let y = self.signed_depth(*b, depth + 1);
                x.zip(y).and_then(|(x, y)| narrowed(*op, s, x, y))
            }
            (Inst::Unary(op, a), Some(_)) => self
                .signed_depth(*a, depth + 1)
                .and_then(|x| negated(*op, x)),
            _ => None,
        };
        let r = own.or_else(|| {
            let r = self.range(v)?;
            if r.hi <= i128::from(i64::MAX) {
                return Some(r);
            }
            let r = Range::new(r.lo - (1 << 64), r.hi - (1 << 64));
            (r.lo >= i128::from(i64::MIN)).then_some(r)
        });
        self.memo.borrow_mut().insert(v, r);
        r
    }

    /// Whether 64-bit value `v` lies in `[0, 2^31)`.
    pub fn small(&self, v: ValueId) -> bool {
        is_64(self.func.ty(v)).is_some() && self.signed(v).is_some_and(|r| r.within(SMALL))
    }

    /// Whether integer value `v` (of any width) lies in `[0, 2^31)`.
    pub fn below_2_31(&self, v: ValueId) -> bool {
        self.range(v).is_some_and(|r| r.within(SMALL))
    }

    /// How `op` of 64-bit values `a` and `b` giving `v` is lowered, or why
    /// it is not.
    pub fn binary(
        &self,
        op: BinaryOp,
        a: ValueId,
        b: ValueId,
        v: ValueId,
    ) -> Result<Narrowed, String> {
        let Some(s) = is_64(self.func.ty(v)) else {
            return Err(format!("{op:?} of {:?}", self.func.ty(v)));
        };
        let bitwise = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
        let ranges = self.signed(a).zip(self.signed(b));
        if bitwise || ranges.is_some_and(|(x, y)| narrowed(op, s, x, y).is_some()) {
            // A `ulong` in [0, 2^31) divides and shifts the same either
            // way; the other operations do not depend on signedness.
            Ok(Narrowed {
                signed: s.is_signed(),
            })
        } else {
            Err(format!(
                "64-bit {} whose operands or result may leave 32 bits",
                describe(op)
            ))
        }
    }

    /// How `op` of 64-bit value `a` giving `v` is lowered, or why not.
    pub fn unary(&self, op: UnaryOp, a: ValueId, v: ValueId) -> Result<Narrowed, String> {
        let Some(s) = is_64(self.func.ty(v)) else {
            return Err(format!("{op:?} of {:?}", self.func.ty(v)));
        };
        let ok = op == UnaryOp::Not || self.signed(a).and_then(|x| negated(op, x)).is_some();
        if ok {
            Ok(Narrowed {
                signed: s.is_signed(),
            })
        } else {
            Err("a 64-bit negation whose result may leave 32 bits".into())
        }
    }
}

/// How deep [`Narrowing::signed`] follows operands before it takes the
/// analysis's range.
const MAX_DEPTH: u32 = 32;

/// The range of `op` of 64-bit values of type `s` whose bits read as
/// `long`s lie in `x` and `y`, when the 32-bit operation on their lanes
/// gives its result exactly (the module's comment); `None` otherwise.
fn narrowed(op: BinaryOp, s: Scalar, x: Range, y: Range) -> Option<Range> {
    // The operands' interval for division, remainder and right shifts.
    let operand = if s.is_signed() { I32 } else { SMALL };
    let magnitude = |r: Range| r.lo.abs().max(r.hi.abs());
    let r = match op {
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
            if !(x.within(I32) && y.within(I32)) {
                return None;
            }
            if x.lo >= 0 && y.lo >= 0 {
                let top = x.hi.max(y.hi);
                // Below the next power of two; `&` below the smaller.
                let ones = ((top as u128 + 1).next_power_of_two() - 1) as i128;
                if op == BinaryOp::And {
                    Range::new(0, x.hi.min(y.hi))
                } else {
                    Range::new(0, ones)
                }
            } else if op == BinaryOp::And && (x.lo >= 0 || y.lo >= 0) {
                Range::new(0, if x.lo >= 0 { x.hi } else { y.hi })
            } else {
                I32
            }
        }
        BinaryOp::Add => Range::new(x.lo + y.lo, x.hi + y.hi),
        BinaryOp::Sub => Range::new(x.lo - y.hi, x.hi - y.lo),
        BinaryOp::Mul => product(x, y)?,
        BinaryOp::Div => {
            // -2^31 / -1 is 2^31.
            let overflow = x.lo == I32.lo && y.lo <= -1 && -1 <= y.hi;
            if !(x.within(operand) && y.within(operand)) || overflow {
                return None;
            }
            // With that excluded, every quotient of two ints is an int.
            let m = magnitude(x);
            if y.lo >= 1 {
                // Truncation is monotonic in each operand on that side.
                let c = [x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi];
                Range::new(*c.iter().min()?, *c.iter().max()?)
            } else if x.lo >= 0 && y.lo >= 0 {
                Range::new(0, m)
            } else {
                Range::new((-m).max(I32.lo), m.min(I32.hi))
            }
        }
        BinaryOp::Rem => {
            if !(x.within(operand) && y.within(operand)) {
                return None;
            }
            // Below the divisor's magnitude, of the dividend's sign.
            let m = magnitude(x).min((magnitude(y) - 1).max(0));
            if x.lo >= 0 {
                Range::new(0, m)
            } else {
                Range::new(-m, m)
            }
        }
        BinaryOp::Shl => {
            if !y.within(Range::new(0, 31)) {
                return None;
            }
            product(x, Range::new(1 << y.lo, 1 << y.hi))?
        }
        BinaryOp::Shr => {
            if !(y.within(Range::new(0, 31)) && x.within(operand)) {
                return None;
            }
            if x.lo >= 0 {
                Range::new(x.lo >> y.hi, x.hi >> y.lo)
            } else {
                Range::new(x.lo, x.hi.max(0))
            }
        }
    };
    r.within(I32).then_some(r)
}

/// The range of `op` of a 64-bit value whose bits read as a `long` lie
/// in `x`, when it stays within 32 bits.
fn negated(op: UnaryOp, x: Range) -> Option<Range> {
    let r = match op {
        UnaryOp::Neg => Range::new(-x.hi, -x.lo),
        UnaryOp::Not => Range::new(-x.hi - 1, -x.lo - 1),
    };
    r.within(I32).then_some(r)
}

/// `x * y`, or `None` past what `i128` holds.
fn product(x: Range, y: Range) -> Option<Range> {
    let c = [
        x.lo.checked_mul(y.lo)?,
        x.lo.checked_mul(y.hi)?,
        x.hi.checked_mul(y.lo)?,
        x.hi.checked_mul(y.hi)?,
    ];
    Some(Range::new(*c.iter().min()?, *c.iter().max()?))
}

/// The 64-bit integer scalar of `ty`, if it is one.
fn is_64(ty: &Type) -> Option<Scalar> {
    match ty {
        Type::Scalar(s @ (Scalar::I64 | Scalar::U64)) => Some(*s),
        _ => None,
    }
}

fn describe(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "addition",
        BinaryOp::Sub => "subtraction",
        BinaryOp::Mul => "multiplication",
        BinaryOp::Div => "division",
        BinaryOp::Rem => "remainder",
        BinaryOp::Shl => "left shift",
        BinaryOp::Shr => "right shift",
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => "bitwise operation",
    }
}

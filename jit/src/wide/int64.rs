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
use vecl_ir::{BinaryOp, Block, Function, Inst, Scalar, Stmt, Type, UnaryOp, ValueId, WorkItemFn};

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
/// dimension `offset + size <= end` (the others run the Cranelift code),
/// so every global id, group id and local id is below it and every size,
/// actual local size and group count at most it. `end` is [`MAX_ID_END`]
/// unless the kernel needs a smaller one ([`launch_end`]).
struct EntryLaunch {
    end: u64,
}

impl Facts for EntryLaunch {
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Range> {
        let end = i128::from(self.end);
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
    /// The bound on every dimension's `offset + size` the entry tests.
    end: u64,
    /// Per value: a 64-bit value of which only the low 32 bits are ever
    /// read ([`low_only`]).
    low: Vec<bool>,
    /// Per variable: the one value written to it, if it is written once.
    once: Vec<Option<ValueId>>,
    /// [`Narrowing::signed`]'s answers.
    memo: RefCell<HashMap<ValueId, Option<Range>>>,
}

impl<'a> Narrowing<'a> {
    /// The narrowing of `func`'s 64-bit values for launches whose every
    /// dimension has `offset + size <= end` (at most [`MAX_ID_END`]).
    pub fn new(func: &'a Function, end: u64) -> Narrowing<'a> {
        let facts = facts_for(end);
        Narrowing {
            func,
            ranges: Ranges::new(func, facts),
            end: facts.end,
            low: low_only(func),
            once: written_once(func),
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// How many of the 64-bit operations and moves of an indexed
    /// `__global` pointer among the values in `needed` this narrowing
    /// does not lower.
    fn failures(&self, needed: &[bool]) -> usize {
        let mut n = 0;
        for (i, d) in self.func.insts.iter().enumerate() {
            let v = ValueId(i as u32);
            if !needed[i] {
                continue;
            }
            let ok = match &d.inst {
                Inst::Binary(op, a, b) if is_64(&d.ty).is_some() => {
                    self.binary(*op, *a, *b, v).is_ok()
                }
                Inst::Unary(op, a) if is_64(&d.ty).is_some() => self.unary(*op, *a, v).is_ok(),
                Inst::Index(p, _) if self.indexed_global(*p) => self.pointer_index_fits(v),
                _ => true,
            };
            n += usize::from(!ok);
        }
        n
    }

    /// Whether pointer value `p` is a `__global`/`__constant` pointer
    /// parameter moved by an index (`o + 16 * i`).
    fn indexed_global(&self, p: ValueId) -> bool {
        if let Some(w) = self.read_of_once(p) {
            return self.indexed_global(w);
        }
        match &self.func.inst(p).inst {
            Inst::Index(..) => global_pointer(self.func.ty(p)),
            Inst::PtrCast(q) => self.indexed_global(*q),
            _ => false,
        }
    }

    /// Whether the element index of pointer `p` (`__global` or
    /// `__constant`, 4-byte elements) from its parameter, the sum of the
    /// indices along its chain of `Index`es (`(o + 16 * i)[6]`), lies in
    /// `[-2^31, 2^31)`, so that its 32-bit lanes hold it exactly and a
    /// bounds test of them is the test of the address.
    pub fn pointer_index_fits(&self, p: ValueId) -> bool {
        self.pointer_index(p, 0).is_some_and(|r| r.within(I32))
    }

    fn pointer_index(&self, p: ValueId, depth: u32) -> Option<Range> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(w) = self.read_of_once(p) {
            return self.pointer_index(w, depth + 1);
        }
        match &self.func.inst(p).inst {
            Inst::Param(_) => Some(Range::exact(0)),
            Inst::PtrCast(q) => self.pointer_index(*q, depth + 1),
            Inst::Index(q, i) => {
                let at = self.pointer_index(*q, depth + 1)?;
                let i = if is_64(self.func.ty(*i)).is_some() {
                    self.signed(*i)?
                } else {
                    self.range(*i)?
                };
                // The lanes count 4-byte words (`float4`: 4 per element).
                let w = match self.func.ty(*q) {
                    Type::Pointer(_, t) => i128::from(words(t)?),
                    _ => return None,
                };
                Some(Range::new(at.lo + w * i.lo, at.hi + w * i.hi))
            }
            _ => None,
        }
    }

    /// The range of `a * b` when one is a group id of dimension `d` and
    /// the other `c` times that dimension's local size (`in +
    /// get_group_id(0) * n` with `n = 2 * get_local_size(0)`): a group's
    /// first work-item less the offset, times `c`, so in `[0, c·(end −
    /// 1)]`. The analysis's intervals, which know nothing of the two
    /// being related, give `c·end²`.
    fn group_times_size(&self, a: ValueId, b: ValueId) -> Option<Range> {
        let group = |v: ValueId| match &self.func.inst(self.widened(v)).inst {
            Inst::WorkItem(WorkItemFn::GroupId, Some(d)) => self.constant(*d),
            _ => None,
        };
        let size = |v: ValueId| -> Option<(i128, i128)> {
            let v = self.widened(v);
            match &self.func.inst(v).inst {
                Inst::WorkItem(WorkItemFn::LocalSize | WorkItemFn::EnqueuedLocalSize, Some(d)) => {
                    Some((self.constant(*d)?, 1))
                }
                // `c * size` itself exact in its type (`int n = 2 * h`).
                Inst::Binary(BinaryOp::Mul, x, y)
                    if self.range(v).is_some_and(|r| r.within(SMALL)) =>
                {
                    let (x, y) = (self.widened(*x), self.widened(*y));
                    let (s, c) = match (self.constant(x), self.constant(y)) {
                        (Some(c), None) => (y, c),
                        (None, Some(c)) => (x, c),
                        _ => return None,
                    };
                    match &self.func.inst(s).inst {
                        Inst::WorkItem(
                            WorkItemFn::LocalSize | WorkItemFn::EnqueuedLocalSize,
                            Some(d),
                        ) if c >= 1 => Some((self.constant(*d)?, c)),
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        let (d, (e, c)) = match (group(a), size(b), group(b), size(a)) {
            (Some(d), Some(s), _, _) | (_, _, Some(d), Some(s)) => (d, s),
            _ => return None,
        };
        (d == e && d < 3).then(|| Range::new(0, c * (i128::from(self.end) - 1)))
    }

    /// `v` without the integer conversions around it that keep its value:
    /// widenings (`(size_t)n`) and conversions of values in `[0, 2^31)`
    /// to 32 bits or more (`(int)get_local_size(0)`).
    fn widened(&self, mut v: ValueId) -> ValueId {
        for _ in 0..MAX_DEPTH {
            let d = &self.func.inst(v).inst;
            if let Some(w) = self.read_of_once(v) {
                v = w;
                continue;
            }
            let Inst::Convert {
                value,
                saturate: false,
                ..
            } = d
            else {
                break;
            };
            let (from, to) = (self.func.ty(*value), self.func.ty(v));
            let (Some(f), Some(t)) = (int_bits(from), int_bits(to)) else {
                break;
            };
            let same_sign = from == to
                || matches!(
                    (from, to),
                    (Type::Scalar(Scalar::I32), Type::Scalar(Scalar::I64))
                        | (
                            Type::Scalar(Scalar::U32),
                            Type::Scalar(Scalar::U64 | Scalar::I64)
                        )
                );
            let kept = (same_sign && t >= f)
                || (t >= 32 && self.range(*value).is_some_and(|r| r.within(SMALL)));
            if !kept {
                break;
            }
            v = *value;
        }
        v
    }

    /// What `v` reads when it reads a variable written once (`n` of `int n
    /// = 2 * h`, `src` of `global float2 *src = in + …`).
    fn read_of_once(&self, v: ValueId) -> Option<ValueId> {
        match self.func.inst(v).inst {
            Inst::ReadVar(x) => self.once.get(x.index()).copied().flatten(),
            _ => None,
        }
    }

    /// The value of integer constant `v`, if it is one.
    fn constant(&self, v: ValueId) -> Option<i128> {
        match (&self.func.inst(v).inst, self.func.ty(v)) {
            (Inst::Const(bits), Type::Scalar(Scalar::I32)) => Some(i128::from(*bits as i32)),
            (Inst::Const(bits), Type::Scalar(Scalar::U32)) => Some(i128::from(*bits as u32)),
            (Inst::Const(bits), Type::Scalar(Scalar::I64)) => Some(i128::from(*bits as i64)),
            (Inst::Const(bits), Type::Scalar(Scalar::U64)) => Some(i128::from(*bits)),
            _ => None,
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
            (Inst::Binary(BinaryOp::Mul, a, b), Some(_))
                if self.group_times_size(*a, *b).is_some() =>
            {
                self.group_times_size(*a, *b)
            }
            (Inst::Binary(op, a, b), Some(s)) => {
                let x = self.signed_depth(*a, depth + 1);
                let y = self.signed_depth(*b, depth + 1);
                x.zip(y).and_then(|(x, y)| narrowed(*op, s, x, y))
            }
            (
                Inst::Convert {
                    value,
                    saturate: false,
                    ..
                },
                Some(_),
            ) if is_64(self.func.ty(*value)).is_some() => self.signed_depth(*value, depth + 1),
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

    /// Whether only the low 32 bits of 64-bit value `v` are ever read
    /// (so a constant may be its low half).
    pub fn low_only(&self, v: ValueId) -> bool {
        self.low[v.index()]
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
        if self.low[v.index()] {
            // Only the low 32 bits are read: those of the 32-bit operation.
            return Ok(Narrowed {
                signed: s.is_signed(),
            });
        }
        let ranges = self.signed(a).zip(self.signed(b));
        let related =
            op == BinaryOp::Mul && self.group_times_size(a, b).is_some_and(|r| r.within(I32));
        if bitwise || related || ranges.is_some_and(|(x, y)| narrowed(op, s, x, y).is_some()) {
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
        let ok = op == UnaryOp::Not
            || self.low[v.index()]
            || self.signed(a).and_then(|x| negated(op, x)).is_some();
        if ok {
            Ok(Narrowed {
                signed: s.is_signed(),
            })
        } else {
            Err("a 64-bit negation whose result may leave 32 bits".into())
        }
    }
}

/// The facts of every bound [`launch_end`] may choose: [`MAX_ID_END`],
/// then `2^k` for `k` from 30 down to [`MIN_END_LOG`].
static FACTS: [EntryLaunch; 22] = {
    let mut f = [const { EntryLaunch { end: MAX_ID_END } }; 22];
    let mut k = 1;
    while k < 22 {
        f[k] = EntryLaunch {
            end: 1 << (31 - k as u32),
        };
        k += 1;
    }
    f
};

/// The entry's facts for bound `end`: one of [`FACTS`] ([`launch_end`]'s
/// results are), else those of [`MAX_ID_END`], which hold for every
/// launch the entry runs.
fn facts_for(end: u64) -> &'static EntryLaunch {
    FACTS.iter().find(|f| f.end == end).unwrap_or(&FACTS[0])
}

/// The smallest bound [`launch_end`] tries: `2^MIN_END_LOG` work-items in
/// a dimension (a 1024³ launch).
const MIN_END_LOG: u32 = 10;

/// The bound on `offset + size` in every dimension under which the wide
/// code runs `func`: [`MAX_ID_END`] when every 64-bit operation the
/// lowering computes, and every index added to an indexed `__global`
/// pointer, is exact in 32-bit lanes under it; else the largest power of
/// two `2^k` (`k` in `[MIN_END_LOG, 30]`) under which all of them that
/// are exact under `2^MIN_END_LOG` are (a launch past it runs the
/// Cranelift code, which computes in 64 bits), so that
/// `get_global_id(1) * get_global_size(0) + get_global_id(0)` in `size_t`
/// or `o + 16 * get_global_id(0)` is exact for the launches the wide code
/// runs; [`MAX_ID_END`] when no smaller bound helps (the lowering then
/// refuses as before). Smaller bounds give smaller intervals, so a binary
/// search finds the largest.
pub fn launch_end(func: &Function) -> u64 {
    let needed = super::live::needed(func).values;
    let failures = |end: u64| Narrowing::new(func, end).failures(&needed);
    let at_max = failures(MAX_ID_END);
    if at_max == 0 {
        return MAX_ID_END;
    }
    // What fails even under the smallest bound is refused whatever the
    // bound: the largest bound under which nothing else fails.
    let least = failures(1 << MIN_END_LOG);
    if least == at_max {
        return MAX_ID_END;
    }
    let ok = |end: u64| failures(end) == least;
    // ok(2^lo) holds; find the largest such lo below 31.
    let (mut lo, mut hi) = (MIN_END_LOG, 31);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if ok(1 << mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    1 << lo
}

/// Per value: a 64-bit integer value of which only the low 32 bits are
/// ever read, so that the 32-bit operation on its operands' low halves
/// gives all that is read of it, whatever the values: sums, differences,
/// products, bitwise operations, negations, left shifts by a count in
/// `[0, 31]`, constants and widenings of 32-bit integers, whose every use is a conversion to an integer
/// of 32 bits or fewer (`int base = get_group_id(0) * n`) or another such
/// value. A use by a statement (a store, a variable, a condition), a
/// comparison, a division, a conversion to anything else, an index or an
/// address reads all 64 bits.
fn low_only(func: &Function) -> Vec<bool> {
    let n = func.insts.len();
    let ranges_free_shift = |count: ValueId| {
        // A constant count in [0, 31] (others: the whole value is read).
        matches!(func.inst(count).inst, Inst::Const(c) if c < 32)
    };
    let candidate = |v: ValueId| -> bool {
        if is_64(func.ty(v)).is_none() {
            return false;
        }
        match &func.inst(v).inst {
            Inst::Binary(
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor,
                ..,
            )
            | Inst::Unary(..)
            | Inst::Const(_) => true,
            Inst::Binary(BinaryOp::Shl, _, c) => ranges_free_shift(*c),
            // A widening of a 32-bit integer, zero or sign extension
            // alike: its low 32 bits are the integer's (`get_global_id(0)
            // ^ seed` of a `uint` seed, truncated back to `uint`).
            Inst::Convert {
                value,
                saturate: false,
                ..
            } => int_bits(func.ty(*value)) == Some(32),
            _ => false,
        }
    };
    let mut low: Vec<bool> = (0..n).map(|i| candidate(ValueId(i as u32))).collect();
    // Per value: some use reads more than its low 32 bits.
    let mut wide = vec![false; n];
    let read = super::live::needed(func).vars;
    statement_uses(&func.body, &read, &mut wide);
    for (i, d) in func.insts.iter().enumerate() {
        let truncation = matches!(
            d.inst,
            Inst::Convert {
                saturate: false,
                ..
            }
        ) && int_bits(&d.ty).is_some_and(|b| b <= 32);
        let shift_count = match d.inst {
            Inst::Binary(BinaryOp::Shl, _, c) => Some(c),
            _ => None,
        };
        for o in d.inst.operands() {
            let ok = truncation || (low[i] && shift_count != Some(o));
            if !ok {
                wide[o.index()] = true;
            }
        }
    }
    // A candidate read whole reads its operands whole.
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            if low[i] && wide[i] {
                low[i] = false;
                for o in func.insts[i].inst.operands() {
                    if !wide[o.index()] {
                        wide[o.index()] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    low
}

/// Per variable of `func`: the value written to it when there is one
/// write.
fn written_once(func: &Function) -> Vec<Option<ValueId>> {
    let mut writes = vec![(0, None); func.vars.len()];
    vecl_ir::transform::compact::walk_stmts(&func.body, &mut |s| {
        if let Stmt::WriteVar(x, v) = s {
            let w = &mut writes[x.index()];
            w.0 += 1;
            w.1 = Some(*v);
        }
    });
    writes
        .into_iter()
        .map(|(n, v)| if n == 1 { v } else { None })
        .collect()
}

/// Marks the values statements of `b` read (a write to a variable
/// nothing reads, `read`, reads nothing).
fn statement_uses(b: &Block, read: &[bool], wide: &mut [bool]) {
    for s in &b.0 {
        match s {
            Stmt::Eval(_) => {}
            Stmt::WriteVar(x, v) => {
                if read.get(x.index()).copied().unwrap_or(true) {
                    wide[v.index()] = true;
                }
            }
            Stmt::Return(Some(v)) => wide[v.index()] = true,
            Stmt::Store { ptr, value, .. } => {
                wide[ptr.index()] = true;
                wide[value.index()] = true;
            }
            Stmt::Copy { dst, src, .. } => {
                wide[dst.index()] = true;
                wide[src.index()] = true;
            }
            Stmt::If { cond, then_, else_ } => {
                wide[cond.index()] = true;
                statement_uses(then_, read, wide);
                statement_uses(else_, read, wide);
            }
            Stmt::Loop { body, continuing } => {
                statement_uses(body, read, wide);
                statement_uses(continuing, read, wide);
            }
            Stmt::Switch { selector, cases } => {
                wide[selector.index()] = true;
                for c in cases {
                    statement_uses(&c.body, read, wide);
                }
            }
            Stmt::Break
            | Stmt::Continue
            | Stmt::Return(None)
            | Stmt::Barrier(..)
            | Stmt::Fence(_) => {}
        }
    }
}

/// 4-byte words of a `float`, `int` or `uint` element or a vector of 2
/// to 4 of them (as the lowering steps its indices: a `float3` takes 4).
fn words(t: &Type) -> Option<u32> {
    match t {
        Type::Scalar(Scalar::F32 | Scalar::I32 | Scalar::U32) => Some(1),
        Type::Vector(Scalar::F32 | Scalar::I32 | Scalar::U32, n @ 2..=4) => {
            Some(if *n == 3 { 4 } else { u32::from(*n) })
        }
        _ => None,
    }
}

/// Whether `ty` is a pointer to `__global` or `__constant` memory.
fn global_pointer(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Pointer(
            vecl_ir::AddressSpace::Global | vecl_ir::AddressSpace::Constant,
            _
        )
    )
}

/// The width in bits of integer scalar type `ty`.
fn int_bits(ty: &Type) -> Option<u32> {
    match ty {
        Type::Scalar(Scalar::I8 | Scalar::U8) => Some(8),
        Type::Scalar(Scalar::I16 | Scalar::U16) => Some(16),
        Type::Scalar(Scalar::I32 | Scalar::U32) => Some(32),
        Type::Scalar(Scalar::I64 | Scalar::U64) => Some(64),
        _ => None,
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

//! Host routines of the sub-group functions and the work-group
//! collectives, called by the generated code.
//!
//! A sub-group is one SIMD chunk (`lower::sub_group`): the code stores the
//! chunk's lanes of the operand, of the index operand and of the active
//! mask in stack records and calls [`vecl_sub_group`], which writes the
//! result lanes into a third record. The exchange between lanes happens
//! here, over the active lanes in lane order, so a float sum is the
//! sequential sum in local id order, as in the interpreter.
//!
//! A work-group collective is cut into barrier regions by
//! `collectives.rs`; between them one work-item calls
//! [`vecl_work_group_combine`] over the values every item left in the
//! group's scratch area.

use vecl_ir::sub_group::{BallotQuery, SubGroupFn, SubGroupOp, SubGroupQuery};

/// The element kinds the routines take (`lower::sub_group::elem_code`):
/// 8- and 16-bit integers arrive extended to 32 bits.
pub(crate) const ELEM_I32: u32 = 0;
pub(crate) const ELEM_U32: u32 = 1;
pub(crate) const ELEM_F32: u32 = 2;
pub(crate) const ELEM_I64: u32 = 3;
pub(crate) const ELEM_U64: u32 = 4;
pub(crate) const ELEM_F64: u32 = 5;
/// `char` and `short`: `i32` lanes whose `min`/`max` identities are the
/// narrow type's.
pub(crate) const ELEM_I8: u32 = 6;
pub(crate) const ELEM_I16: u32 = 7;

/// The widest chunk the JIT makes.
const MAX_W: usize = 64;

trait Elem: Copy + PartialEq {
    const IS_FLOAT: bool = false;
    fn op(op: SubGroupOp, a: Self, b: Self) -> Self;
    fn identity(op: SubGroupOp) -> Self;
    fn zero() -> Self;
    /// An inclusive (or exclusive) `add` scan over `n` slots at `p` done
    /// in vectors, where this type has one: `false` leaves the slots alone
    /// for the caller's loop (floats, whose sum keeps the sequential
    /// order).
    ///
    /// # Safety
    /// `p` must hold `n` slots of this type.
    unsafe fn scan_add(_p: *mut u8, _n: usize, _exclusive: bool) -> bool {
        false
    }
    /// `xs` reduced by `op` in `vecl_ir::group_order`'s order done in
    /// vectors, where this type has them for `op`.
    fn reduce_vec(_xs: &[Self], _op: SubGroupOp) -> Option<Self> {
        None
    }
}

macro_rules! int_elem {
    ($t:ty, $scan:ident) => {
        impl Elem for $t {
            /// Integer operators are associative and commutative (sums
            /// wrap), so any order gives `group_order`'s result: one fold
            /// the compiler vectorises as it likes.
            #[inline(always)]
            fn reduce_vec(xs: &[$t], op: SubGroupOp) -> Option<$t> {
                Some(
                    xs.iter()
                        .fold(<$t>::identity(op), |a, &b| <$t>::op(op, a, b)),
                )
            }
            #[cfg(target_arch = "x86_64")]
            unsafe fn scan_add(p: *mut u8, n: usize, exclusive: bool) -> bool {
                // SAFETY: as the caller promises.
                unsafe { $scan(p, n, exclusive) };
                true
            }
            #[inline(always)]
            fn op(op: SubGroupOp, a: $t, b: $t) -> $t {
                let t = |x: bool| <$t>::from(x);
                match op {
                    SubGroupOp::Add => a.wrapping_add(b),
                    SubGroupOp::Mul => a.wrapping_mul(b),
                    SubGroupOp::Min => {
                        if b < a {
                            b
                        } else {
                            a
                        }
                    }
                    SubGroupOp::Max => {
                        if b > a {
                            b
                        } else {
                            a
                        }
                    }
                    SubGroupOp::And => a & b,
                    SubGroupOp::Or => a | b,
                    SubGroupOp::Xor => a ^ b,
                    SubGroupOp::LogicalAnd => t(a != 0 && b != 0),
                    SubGroupOp::LogicalOr => t(a != 0 || b != 0),
                    SubGroupOp::LogicalXor => t((a != 0) != (b != 0)),
                }
            }
            fn identity(op: SubGroupOp) -> $t {
                match op {
                    SubGroupOp::Mul | SubGroupOp::LogicalAnd => 1,
                    SubGroupOp::And => !0,
                    SubGroupOp::Min => <$t>::MAX,
                    SubGroupOp::Max => <$t>::MIN,
                    _ => 0,
                }
            }
            fn zero() -> $t {
                0
            }
        }
    };
}
int_elem!(i32, scan_add_32);
int_elem!(u32, scan_add_32);
int_elem!(i64, scan_add_64);
int_elem!(u64, scan_add_64);

macro_rules! float_elem {
    ($t:ty) => {
        impl Elem for $t {
            const IS_FLOAT: bool = true;
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            fn reduce_vec(xs: &[$t], op: SubGroupOp) -> Option<$t> {
                <$t as SseReduce>::sse_reduce(xs, op)
            }
            #[inline(always)]
            fn op(op: SubGroupOp, a: $t, b: $t) -> $t {
                // `min`/`max` keep `a` on ties and take `b` over a NaN `a`.
                match op {
                    SubGroupOp::Add => a + b,
                    SubGroupOp::Mul => a * b,
                    SubGroupOp::Min => {
                        if b < a || a.is_nan() {
                            b
                        } else {
                            a
                        }
                    }
                    SubGroupOp::Max => {
                        if b > a || a.is_nan() {
                            b
                        } else {
                            a
                        }
                    }
                    // Not defined on floats by OpenCL C.
                    _ => a,
                }
            }
            fn identity(op: SubGroupOp) -> $t {
                match op {
                    SubGroupOp::Mul | SubGroupOp::LogicalAnd => 1.0,
                    SubGroupOp::Min => <$t>::INFINITY,
                    SubGroupOp::Max => <$t>::NEG_INFINITY,
                    _ => 0.0,
                }
            }
            fn zero() -> $t {
                0.0
            }
        }
    };
}
float_elem!(f32);
float_elem!(f64);

/// The sixteen partial results of `vecl_ir::group_order::reduce` in SSE2
/// registers (four of four `f32`, or eight of two `f64`), each block of
/// sixteen values combined lane by lane, then the partials of the leftover
/// values and the tree done with the scalar operator: the same operations
/// on the same values in the same order, so the same bits. `add`, `min`
/// and `max` only (`None` for the others).
macro_rules! sse_reduce {
    ($t:ty, $reg:ty, $per:expr, $set1:ident, $loadu:ident, $storeu:ident, $add:ident,
     $min:ident, $max:ident) => {
        impl SseReduce for $t {
            fn sse_reduce(xs: &[$t], op: SubGroupOp) -> Option<$t> {
                use std::arch::x86_64::*;
                // SAFETY: SSE2 is part of x86-64 (every intrinsic below).
                // A partial starts at the identity (±∞) and takes `b` only
                // where `b` is below (above) it, so it is never NaN: the
                // scalar operator's "or `a` is NaN" never holds, and
                // `min`/`max` with `b` first are that operator (`b` where
                // `b < a`, else `a`, which a NaN `b` and ties keep).
                let step = |a: $reg, b: $reg| unsafe {
                    match op {
                        SubGroupOp::Add => $add(a, b),
                        SubGroupOp::Min => $min(b, a),
                        _ => $max(b, a),
                    }
                };
                if !matches!(op, SubGroupOp::Add | SubGroupOp::Min | SubGroupOp::Max) {
                    return None;
                }
                const REGS: usize = vecl_ir::group_order::LANES / $per;
                let blocks = xs.len() / vecl_ir::group_order::LANES;
                let mut p = [0 as $t; vecl_ir::group_order::LANES];
                // SAFETY: every load is inside `xs` (whole blocks of
                // sixteen), every store inside `p`.
                unsafe {
                    let mut acc = [$set1(<$t>::identity(op)); REGS];
                    for b in 0..blocks {
                        let at = xs.as_ptr().add(b * vecl_ir::group_order::LANES);
                        for (r, a) in acc.iter_mut().enumerate() {
                            *a = step(*a, $loadu(at.add(r * $per)));
                        }
                    }
                    for (r, a) in acc.iter().enumerate() {
                        $storeu(p.as_mut_ptr().add(r * $per), *a);
                    }
                }
                let f = |a: $t, b: $t| <$t>::op(op, a, b);
                for (j, &x) in xs[blocks * vecl_ir::group_order::LANES..]
                    .iter()
                    .enumerate()
                {
                    p[j] = f(p[j], x);
                }
                Some(vecl_ir::group_order::tree(p, f))
            }
        }
    };
}

/// The vector reduction of a float type ([`sse_reduce`]).
#[cfg(target_arch = "x86_64")]
trait SseReduce: Sized {
    fn sse_reduce(xs: &[Self], op: SubGroupOp) -> Option<Self>;
}

#[cfg(target_arch = "x86_64")]
sse_reduce!(
    f32,
    __m128,
    4,
    _mm_set1_ps,
    _mm_loadu_ps,
    _mm_storeu_ps,
    _mm_add_ps,
    _mm_min_ps,
    _mm_max_ps
);
#[cfg(target_arch = "x86_64")]
sse_reduce!(
    f64,
    __m128d,
    2,
    _mm_set1_pd,
    _mm_loadu_pd,
    _mm_storeu_pd,
    _mm_add_pd,
    _mm_min_pd,
    _mm_max_pd
);

/// One sub-group function over a chunk of `w` lanes (see the module
/// header). `code`: [`SubGroupFn::code`]; `elem`: one of the `ELEM_*`
/// kinds of the operand; `size`: the sub-group's size (the lanes of the
/// chunk that are work-items of the group); `param`: the cluster size of
/// `sub_group_clustered_rotate`. `src`: `w` operand lanes; `aux`: `w`
/// 32-bit lanes of the second operand (index, delta or cluster size);
/// `mask`: `w` 32-bit lanes, non-zero where active; `out`: room for `w`
/// lanes of 8 bytes. Predicates and `sub_group_elect` write 32-bit lanes,
/// `sub_group_ballot` four 32-bit words.
///
/// # Safety
/// The pointers must hold what is said above.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn vecl_sub_group(
    code: u32,
    elem: u32,
    w: u32,
    size: u32,
    param: u32,
    src: *const u8,
    aux: *const i32,
    mask: *const i32,
    out: *mut u8,
) {
    let w = (w as usize).min(MAX_W);
    let Some(f) = SubGroupFn::from_code(code) else {
        return;
    };
    // SAFETY: the caller passes `w` lanes in each record.
    let (aux, mask) = unsafe {
        (
            std::slice::from_raw_parts(aux, w),
            std::slice::from_raw_parts(mask, w),
        )
    };
    // Fixed-size records: this runs once per chunk, so no allocation.
    let mut active = [false; MAX_W];
    for (a, &m) in active.iter_mut().zip(mask) {
        *a = m != 0;
    }
    let active = &active[..w];
    // SAFETY: as above, with the operand's lane size.
    unsafe {
        match elem {
            ELEM_I32 => run::<i32>(f, w, size, param, src, aux, active, out),
            ELEM_I8 | ELEM_I16 => {
                run::<i32>(f, w, size, param, src, aux, active, out);
                // The first lane of an exclusive `min`/`max` scan holds the
                // identity, which is the narrow type's.
                let (lo, hi) = if elem == ELEM_I8 {
                    (i32::from(i8::MIN), i32::from(i8::MAX))
                } else {
                    (i32::from(i16::MIN), i32::from(i16::MAX))
                };
                let first = active.iter().position(|&a| a);
                if let (SubGroupFn::ScanExclusive(op), Some(j)) = (f, first) {
                    let id = match op {
                        SubGroupOp::Min => Some(hi),
                        SubGroupOp::Max => Some(lo),
                        _ => None,
                    };
                    if let Some(id) = id {
                        (out as *mut i32).add(j).write_unaligned(id);
                    }
                }
            }
            ELEM_U32 => run::<u32>(f, w, size, param, src, aux, active, out),
            ELEM_F32 => run::<f32>(f, w, size, param, src, aux, active, out),
            ELEM_I64 => run::<i64>(f, w, size, param, src, aux, active, out),
            ELEM_U64 => run::<u64>(f, w, size, param, src, aux, active, out),
            _ => run::<f64>(f, w, size, param, src, aux, active, out),
        }
    }
}

/// # Safety
/// As [`vecl_sub_group`].
#[allow(clippy::too_many_arguments)]
unsafe fn run<T: Elem>(
    f: SubGroupFn,
    w: usize,
    size: u32,
    param: u32,
    src: *const u8,
    aux: &[i32],
    active: &[bool],
    out: *mut u8,
) {
    let mut x = [T::zero(); MAX_W];
    for (j, v) in x.iter_mut().enumerate().take(w) {
        // SAFETY: `src` holds `w` lanes of `T` (unaligned reads: the
        // record's alignment is the JIT's choice).
        *v = unsafe { (src as *const T).add(j).read_unaligned() };
    }
    let put = |j: usize, v: T| {
        // SAFETY: `out` has room for `w` lanes of 8 bytes.
        unsafe { (out as *mut T).add(j).write_unaligned(v) }
    };
    let put32 = |j: usize, v: i32| {
        // SAFETY: as above.
        unsafe { (out as *mut i32).add(j).write_unaligned(v) }
    };
    let lanes = || (0..w).filter(|&j| active[j]);
    let at = |l: Option<usize>| l.filter(|&l| l < w).map_or(T::zero(), |l| x[l]);
    let fold = |op: SubGroupOp, it: &mut dyn Iterator<Item = usize>| {
        it.fold(T::identity(op), |acc, j| T::op(op, acc, x[j]))
    };
    let nonzero = |v: T| v != T::zero();
    let size = size as usize;
    match f {
        SubGroupFn::All | SubGroupFn::Any | SubGroupFn::AllEqual => {
            let t = match f {
                SubGroupFn::All => lanes().all(|j| nonzero(x[j])),
                SubGroupFn::Any => lanes().any(|j| nonzero(x[j])),
                _ => {
                    let first = lanes().next().map(|j| x[j]);
                    lanes().all(|j| Some(x[j]) == first)
                }
            };
            (0..w).for_each(|j| put32(j, i32::from(t)));
        }
        SubGroupFn::Elect => {
            let first = lanes().next();
            (0..w).for_each(|j| put32(j, i32::from(Some(j) == first)));
        }
        SubGroupFn::Ballot => {
            let mut bits = [0u32; 4];
            for j in lanes().filter(|&j| nonzero(x[j]) && j < 128) {
                bits[j / 32] |= 1 << (j % 32);
            }
            (0..4).for_each(|k| put32(k, bits[k] as i32));
        }
        SubGroupFn::Broadcast => {
            let v = at(lanes().next().map(|j| aux[j] as u32 as usize));
            (0..w).for_each(|j| put(j, v));
        }
        SubGroupFn::BroadcastFirst => {
            let v = at(lanes().next());
            (0..w).for_each(|j| put(j, v));
        }
        SubGroupFn::Reduce(SubGroupOp::Add) if T::IS_FLOAT => {
            let values: Vec<(u64, T)> = lanes().map(|j| (j as u64, x[j])).collect();
            let per_piece = 16 / std::mem::size_of::<T>();
            let v = vecl_ir::sub_group::float_sum_order(&values, per_piece, T::zero(), |a, b| {
                T::op(SubGroupOp::Add, a, b)
            });
            (0..w).for_each(|j| put(j, v));
        }
        SubGroupFn::Reduce(op) => {
            let v = fold(op, &mut lanes());
            (0..w).for_each(|j| put(j, v));
        }
        SubGroupFn::ScanInclusive(op) | SubGroupFn::ScanExclusive(op) => {
            let mut acc = T::identity(op);
            for j in lanes() {
                let before = acc;
                acc = T::op(op, acc, x[j]);
                put(
                    j,
                    if matches!(f, SubGroupFn::ScanExclusive(_)) {
                        before
                    } else {
                        acc
                    },
                );
            }
        }
        SubGroupFn::ClusteredReduce(op) => {
            for j in lanes() {
                let c = (aux[j] as u32 as usize).max(1);
                let v = fold(op, &mut lanes().filter(|&k| k / c == j / c));
                put(j, v);
            }
        }
        SubGroupFn::Shuffle => lanes().for_each(|j| put(j, at(Some(aux[j] as u32 as usize)))),
        SubGroupFn::ShuffleXor => {
            lanes().for_each(|j| put(j, at(Some(j ^ aux[j] as u32 as usize))))
        }
        SubGroupFn::ShuffleUp => {
            lanes().for_each(|j| put(j, at(j.checked_sub(aux[j] as u32 as usize))))
        }
        SubGroupFn::ShuffleDown => lanes().for_each(|j| {
            let from = j.checked_add(aux[j] as u32 as usize).filter(|&l| l < size);
            put(j, at(from))
        }),
        SubGroupFn::Rotate | SubGroupFn::ClusteredRotate => lanes().for_each(|j| {
            let c = if f == SubGroupFn::Rotate {
                size
            } else {
                param as usize
            }
            .max(1) as i64;
            let lid = j as i64;
            let base = lid - lid % c;
            let from = base + (lid % c + i64::from(aux[j])).rem_euclid(c);
            put(j, at(Some(from as usize)))
        }),
    }
}

/// `get_sub_group_*_mask` word `word` for local id `lid` in a sub-group
/// of `size`; `query` is the index in [`MASK_QUERIES`].
pub(crate) extern "C" fn vecl_sub_group_mask(query: u32, lid: u32, size: u32, word: u32) -> u32 {
    MASK_QUERIES
        .get(query as usize)
        .map_or(0, |q| q.mask(lid, size)[(word & 3) as usize])
}

/// The mask queries by the index `vecl_sub_group_mask` takes.
pub(crate) const MASK_QUERIES: [SubGroupQuery; 5] = [
    SubGroupQuery::EqMask,
    SubGroupQuery::GeMask,
    SubGroupQuery::GtMask,
    SubGroupQuery::LeMask,
    SubGroupQuery::LtMask,
];

/// A ballot query ([`BallotQuery::eval`]); `query` is the index in
/// [`BALLOT_QUERIES`].
#[allow(clippy::too_many_arguments)]
pub(crate) extern "C" fn vecl_ballot_query(
    query: u32,
    v0: u32,
    v1: u32,
    v2: u32,
    v3: u32,
    index: u32,
    lid: u32,
    size: u32,
) -> u32 {
    BALLOT_QUERIES
        .get(query as usize)
        .map_or(0, |q| q.eval([v0, v1, v2, v3], index, lid, size))
}

/// The ballot queries by the index `vecl_ballot_query` takes.
pub(crate) const BALLOT_QUERIES: [BallotQuery; 7] = [
    BallotQuery::Inverse,
    BallotQuery::BitExtract,
    BallotQuery::BitCount,
    BallotQuery::InclusiveScan,
    BallotQuery::ExclusiveScan,
    BallotQuery::FindLsb,
    BallotQuery::FindMsb,
];

/// The work-group collective combine (`collectives.rs`): `scratch` holds
/// one value of kind `elem` (an array of them) per work-item, in local linear
/// id order, `n` of them. `kind` 0: `reduce` into slot
/// [`crate::collectives::RESULT_SLOT`]; 1: inclusive scan in place; 2:
/// exclusive scan in place; 3: `all`, 4: `any` (32-bit predicates) into
/// the result slot. `op`: [`SubGroupOp::code`].
///
/// # Safety
/// `scratch` must hold `RESULT_SLOT + 1` slots of 8 bytes and `n` must be
/// at most `RESULT_SLOT`.
pub(crate) unsafe extern "C" fn vecl_work_group_combine(
    kind: u32,
    op: u32,
    elem: u32,
    scratch: *mut u8,
    n: u64,
) {
    let n = (n as usize).min(crate::collectives::RESULT_SLOT);
    let op = SubGroupOp::from_code(op).unwrap_or(SubGroupOp::Add);
    // SAFETY: as the caller promises.
    unsafe {
        match elem {
            ELEM_I32 => combine::<i32>(kind, op, scratch, n),
            ELEM_U32 => combine::<u32>(kind, op, scratch, n),
            ELEM_F32 => combine::<f32>(kind, op, scratch, n),
            ELEM_I64 => combine::<i64>(kind, op, scratch, n),
            ELEM_U64 => combine::<u64>(kind, op, scratch, n),
            _ => combine::<f64>(kind, op, scratch, n),
        }
    }
}

/// # Safety
/// As [`vecl_work_group_combine`].
unsafe fn combine<T: Elem>(kind: u32, op: SubGroupOp, scratch: *mut u8, n: usize) {
    // One copy of the loops per operator (a constant of each copy), so
    // they have no dispatch in them (an indirect jump per slot otherwise).
    macro_rules! each_op {
        ($($op:ident),*) => {
            match op {
                $(SubGroupOp::$op => {
                    const OP: u32 = SubGroupOp::$op as u32;
                    // SAFETY: as the caller promises.
                    unsafe { combine_op::<T, OP>(kind, scratch, n) }
                })*
            }
        };
    }
    each_op!(Add, Mul, Min, Max, And, Or, Xor, LogicalAnd, LogicalOr, LogicalXor)
}

/// [`combine`] for the operator whose code is `OP`, in the order
/// `vecl_ir::group_order` sets (the interpreter's).
///
/// # Safety
/// As [`vecl_work_group_combine`].
unsafe fn combine_op<T: Elem, const OP: u32>(kind: u32, scratch: *mut u8, n: usize) {
    let op = const { SubGroupOp::from_code(OP).expect("an operator's code") };
    // The operator named inside the closure, a constant there too.
    let f = |a: T, b: T| {
        T::op(
            const { SubGroupOp::from_code(OP).expect("an operator's code") },
            a,
            b,
        )
    };
    let result = crate::collectives::RESULT_SLOT;
    let slots = scratch as *mut T;
    if kind > 2 {
        let p = |i: usize| {
            // SAFETY: slots 0..RESULT_SLOT are in the scratch area;
            // predicates are 32-bit.
            let v = unsafe { (scratch as *const i32).add(i).read_unaligned() };
            v != 0
        };
        let t = if kind == 3 {
            (0..n).all(p)
        } else {
            (0..n).any(p)
        };
        // SAFETY: as above.
        unsafe {
            (scratch as *mut i32)
                .add(result)
                .write_unaligned(i32::from(t))
        };
        return;
    }
    let exclusive = kind == 2;
    // SAFETY: as the caller promises.
    if kind != 0 && op == SubGroupOp::Add && unsafe { T::scan_add(scratch, n, exclusive) } {
        return;
    }
    // The scratch area is a `__local` array of 8-byte slots, so aligned
    // for every element type; copied through the stack if it ever is not.
    // The reduction's result, or the scan written over `xs`.
    let combine_in = |xs: &mut [T]| {
        // A constant here too: the closure may not be inlined.
        let op = const { SubGroupOp::from_code(OP).expect("an operator's code") };
        if kind == 0 {
            Some(
                T::reduce_vec(xs, op)
                    .unwrap_or_else(|| vecl_ir::group_order::reduce(xs, T::identity(op), f)),
            )
        } else {
            vecl_ir::group_order::scan(xs, T::identity(op), exclusive, f);
            None
        }
    };
    let reduced = if slots.is_aligned() {
        // SAFETY: slots 0..n (n ≤ RESULT_SLOT) are in the scratch area,
        // aligned, and nothing else touches them during the call.
        combine_in(unsafe { std::slice::from_raw_parts_mut(slots, n) })
    } else {
        let mut buf = [T::zero(); crate::collectives::RESULT_SLOT];
        for (i, b) in buf.iter_mut().enumerate().take(n) {
            // SAFETY: slot i < n is in the scratch area.
            *b = unsafe { slots.add(i).read_unaligned() };
        }
        let reduced = combine_in(&mut buf[..n]);
        if reduced.is_none() {
            for (i, &b) in buf.iter().enumerate().take(n) {
                // SAFETY: as above.
                unsafe { slots.add(i).write_unaligned(b) };
            }
        }
        reduced
    };
    if let Some(r) = reduced {
        // SAFETY: the result slot is in the scratch area.
        unsafe { slots.add(result).write_unaligned(r) };
    }
}

/// An inclusive (or exclusive) wrapping sum over `n` 32-bit slots at `p`,
/// eight at a time: the prefix within each vector of four by two shifted
/// adds, the first vector's total added to the second, then the running
/// total of the slots before them. The running total's chain is one add
/// per eight slots; the rest of the work is independent of it.
///
/// # Safety
/// `p` must hold `n` 32-bit slots.
#[cfg(target_arch = "x86_64")]
unsafe fn scan_add_32(p: *mut u8, n: usize, exclusive: bool) {
    use std::arch::x86_64::*;
    let p = p as *mut i32;
    // SAFETY: SSE2 is part of x86-64; every access is within `n` slots.
    unsafe {
        let prefix = |x: __m128i| {
            let s = _mm_add_epi32(x, _mm_slli_si128::<4>(x));
            _mm_add_epi32(s, _mm_slli_si128::<8>(s))
        };
        let mut carry = _mm_setzero_si128();
        let mut i = 0;
        while i + 8 <= n {
            let at0 = p.add(i) as *mut __m128i;
            let at1 = p.add(i + 4) as *mut __m128i;
            let x0 = _mm_loadu_si128(at0);
            let x1 = _mm_loadu_si128(at1);
            let s0 = prefix(x0);
            let s1 = _mm_add_epi32(prefix(x1), _mm_shuffle_epi32::<0xFF>(s0));
            let i0 = _mm_add_epi32(s0, carry);
            let i1 = _mm_add_epi32(s1, carry);
            carry = _mm_add_epi32(carry, _mm_shuffle_epi32::<0xFF>(s1));
            if exclusive {
                _mm_storeu_si128(at0, _mm_sub_epi32(i0, x0));
                _mm_storeu_si128(at1, _mm_sub_epi32(i1, x1));
            } else {
                _mm_storeu_si128(at0, i0);
                _mm_storeu_si128(at1, i1);
            }
            i += 8;
        }
        let mut acc = _mm_cvtsi128_si32(carry);
        while i < n {
            let x = p.add(i).read_unaligned();
            let next = acc.wrapping_add(x);
            p.add(i).write_unaligned(if exclusive { acc } else { next });
            acc = next;
            i += 1;
        }
    }
}

/// [`scan_add_32`] for 64-bit slots, two at a time.
///
/// # Safety
/// `p` must hold `n` 64-bit slots.
#[cfg(target_arch = "x86_64")]
unsafe fn scan_add_64(p: *mut u8, n: usize, exclusive: bool) {
    use std::arch::x86_64::*;
    let p = p as *mut i64;
    // SAFETY: SSE2 is part of x86-64; every access is within `n` slots.
    unsafe {
        let mut carry = _mm_setzero_si128();
        let mut i = 0;
        while i + 2 <= n {
            let at = p.add(i) as *mut __m128i;
            let x = _mm_loadu_si128(at);
            let s = _mm_add_epi64(x, _mm_slli_si128::<8>(x));
            let inclusive = _mm_add_epi64(s, carry);
            let out = if exclusive {
                _mm_sub_epi64(inclusive, x)
            } else {
                inclusive
            };
            _mm_storeu_si128(at, out);
            carry = _mm_unpackhi_epi64(inclusive, inclusive);
            i += 2;
        }
        if i < n {
            let acc = _mm_cvtsi128_si64(carry);
            let x = p.add(i).read_unaligned();
            p.add(i)
                .write_unaligned(if exclusive { acc } else { acc.wrapping_add(x) });
        }
    }
}

/// The symbols of this module.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("vecl_sub_group", vecl_sub_group as *const u8),
        ("vecl_sub_group_mask", vecl_sub_group_mask as *const u8),
        ("vecl_ballot_query", vecl_ballot_query as *const u8),
        (
            "vecl_work_group_combine",
            vecl_work_group_combine as *const u8,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collectives::RESULT_SLOT;

    /// Every operator, by its code.
    const ALL_OPS: [SubGroupOp; 10] = {
        let mut ops = [SubGroupOp::Add; 10];
        let mut c = 0;
        while c < 10 {
            ops[c] = SubGroupOp::from_code(c as u32).expect("an operator's code");
            c += 1;
        }
        ops
    };

    /// The sequential scan the vector loops must agree with.
    fn reference<T: Elem>(xs: &[T], op: SubGroupOp, exclusive: bool) -> Vec<T> {
        let mut acc = T::identity(op);
        xs.iter()
            .map(|&x| {
                let before = acc;
                acc = T::op(op, acc, x);
                if exclusive {
                    before
                } else {
                    acc
                }
            })
            .collect()
    }

    /// The scan in `group_order`'s order, which float results must follow.
    fn in_order<T: Elem>(xs: &[T], op: SubGroupOp, exclusive: bool) -> Vec<T> {
        let mut v = xs.to_vec();
        vecl_ir::group_order::scan(&mut v, T::identity(op), exclusive, |a, b| T::op(op, a, b));
        v
    }

    /// Runs the combine over `xs` in a scratch area of its real size.
    fn combined<T: Elem + Default>(xs: &[T], kind: u32, op: SubGroupOp, elem: u32) -> Vec<T> {
        let mut scratch = vec![0u64; RESULT_SLOT + 1];
        let base = scratch.as_mut_ptr() as *mut T;
        for (i, &x) in xs.iter().enumerate() {
            // SAFETY: `xs` fits the scratch area (at most RESULT_SLOT slots).
            unsafe { base.add(i).write(x) };
        }
        // SAFETY: the scratch area has RESULT_SLOT + 1 slots of 8 bytes.
        unsafe { vecl_work_group_combine(kind, op.code(), elem, base as *mut u8, xs.len() as u64) };
        // SAFETY: as above.
        (0..xs.len())
            .map(|i| unsafe { base.add(i).read() })
            .collect()
    }

    /// Values that wrap when summed, from a small generator.
    fn values(n: usize, seed: u64) -> Vec<u64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s ^ (s >> 29)
            })
            .collect()
    }

    #[test]
    fn integer_add_scans_agree_with_the_sequential_scan_at_every_length() {
        let lengths = (0..=40).chain([63, 64, 65, 255, 256, 257, 1000, 1024]);
        for n in lengths {
            for (kind, exclusive) in [(1, false), (2, true)] {
                let v = values(n, n as u64 + 7);
                let xs: Vec<i32> = v.iter().map(|&x| x as i32).collect();
                assert_eq!(
                    combined(&xs, kind, SubGroupOp::Add, ELEM_I32),
                    reference(&xs, SubGroupOp::Add, exclusive),
                    "i32, n = {n}, exclusive = {exclusive}"
                );
                let xs: Vec<u32> = v.iter().map(|&x| x as u32).collect();
                assert_eq!(
                    combined(&xs, kind, SubGroupOp::Add, ELEM_U32),
                    reference(&xs, SubGroupOp::Add, exclusive),
                    "u32, n = {n}, exclusive = {exclusive}"
                );
                let xs: Vec<i64> = v.iter().map(|&x| x as i64).collect();
                assert_eq!(
                    combined(&xs, kind, SubGroupOp::Add, ELEM_I64),
                    reference(&xs, SubGroupOp::Add, exclusive),
                    "i64, n = {n}, exclusive = {exclusive}"
                );
                let xs: Vec<u64> = v.clone();
                assert_eq!(
                    combined(&xs, kind, SubGroupOp::Add, ELEM_U64),
                    reference(&xs, SubGroupOp::Add, exclusive),
                    "u64, n = {n}, exclusive = {exclusive}"
                );
            }
        }
    }

    #[test]
    fn other_operators_agree_and_floats_follow_the_group_order() {
        let v = values(257, 3);
        let ints: Vec<i32> = v.iter().map(|&x| x as i32 >> 3).collect();
        let floats: Vec<f32> = v.iter().map(|&x| (x as i32 >> 8) as f32 * 1e-3).collect();
        for op in ALL_OPS {
            for (kind, exclusive) in [(1, false), (2, true)] {
                assert_eq!(
                    combined(&ints, kind, op, ELEM_I32),
                    reference(&ints, op, exclusive),
                    "{op:?}"
                );
            }
        }
        for op in [
            SubGroupOp::Add,
            SubGroupOp::Mul,
            SubGroupOp::Min,
            SubGroupOp::Max,
        ] {
            for (kind, exclusive) in [(1, false), (2, true)] {
                let got = combined(&floats, kind, op, ELEM_F32);
                let want = in_order(&floats, op, exclusive);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{op:?}");
            }
        }
    }

    #[test]
    fn a_reduction_writes_the_result_slot() {
        let xs: Vec<i64> = values(300, 11).iter().map(|&x| x as i64).collect();
        let mut scratch = vec![0u64; RESULT_SLOT + 1];
        for (s, &x) in scratch.iter_mut().zip(&xs) {
            *s = x as u64;
        }
        let base = scratch.as_mut_ptr() as *mut u8;
        // SAFETY: the scratch area has RESULT_SLOT + 1 slots of 8 bytes.
        unsafe { vecl_work_group_combine(0, SubGroupOp::Add.code(), ELEM_I64, base, 300) };
        let want = xs.iter().fold(0i64, |a, &x| a.wrapping_add(x));
        assert_eq!(scratch[RESULT_SLOT] as i64, want);
    }

    #[test]
    fn float_reductions_follow_the_group_order() {
        let v = values(300, 5);
        let xs: Vec<f64> = v.iter().map(|&x| (x as i32 >> 4) as f64 * 1e-3).collect();
        for op in [
            SubGroupOp::Add,
            SubGroupOp::Mul,
            SubGroupOp::Min,
            SubGroupOp::Max,
        ] {
            for n in [0, 1, 9, 256, 300] {
                let mut scratch = vec![0u64; RESULT_SLOT + 1];
                for (s, &x) in scratch.iter_mut().zip(&xs[..n]) {
                    *s = x.to_bits();
                }
                let base = scratch.as_mut_ptr() as *mut u8;
                // SAFETY: the scratch area has RESULT_SLOT + 1 slots of 8 bytes.
                unsafe { vecl_work_group_combine(0, op.code(), ELEM_F64, base, n as u64) };
                let want = vecl_ir::group_order::reduce(&xs[..n], f64::identity(op), |a, b| {
                    f64::op(op, a, b)
                });
                assert_eq!(scratch[RESULT_SLOT], want.to_bits(), "{op:?}, n = {n}");
            }
        }
    }

    #[test]
    fn vector_float_reductions_keep_the_bits_over_special_values() {
        let specials = [
            f64::NAN,
            -0.0,
            0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-310,
            -2.5,
        ];
        let v = values(300, 9);
        let xs: Vec<f64> = v
            .iter()
            .enumerate()
            .map(|(i, &x)| match x % 5 {
                0 => specials[i % specials.len()],
                _ => (x as i32 >> 6) as f64 * 1e-2,
            })
            .collect();
        for op in [SubGroupOp::Add, SubGroupOp::Min, SubGroupOp::Max] {
            for n in [0, 1, 7, 8, 9, 15, 16, 17, 64, 255, 256, 300] {
                let want = vecl_ir::group_order::reduce(&xs[..n], f64::identity(op), |a, b| {
                    f64::op(op, a, b)
                });
                let got = f64::reduce_vec(&xs[..n], op).unwrap_or(want);
                assert_eq!(got.to_bits(), want.to_bits(), "f64 {op:?}, n = {n}");
                let ys: Vec<f32> = xs[..n].iter().map(|&x| x as f32).collect();
                let want =
                    vecl_ir::group_order::reduce(&ys, f32::identity(op), |a, b| f32::op(op, a, b));
                let got = f32::reduce_vec(&ys, op).unwrap_or(want);
                assert_eq!(got.to_bits(), want.to_bits(), "f32 {op:?}, n = {n}");
            }
        }
        // Only NaNs, and NaN first: the scalar rule's answers (a NaN
        // never replaces the partial it meets; the identity stays).
        let nans = [f32::NAN; 11];
        assert_eq!(
            f32::reduce_vec(&nans, SubGroupOp::Max),
            Some(f32::NEG_INFINITY)
        );
        let mut first = [1.0f32; 9];
        first[0] = f32::NAN;
        assert_eq!(f32::reduce_vec(&first, SubGroupOp::Min), Some(1.0));
    }

    #[test]
    fn integer_reductions_of_every_operator_are_the_group_orders() {
        let v = values(300, 21);
        let xs: Vec<i32> = v.iter().map(|&x| (x as i32) >> 7).collect();
        for op in ALL_OPS {
            for n in [0, 1, 15, 16, 17, 255, 300] {
                let mut xs = xs[..n].to_vec();
                if op == SubGroupOp::LogicalAnd || op == SubGroupOp::And {
                    // Mostly non-zero, so that the answer is not always 0.
                    xs.iter_mut().for_each(|x| *x |= 0x7ff0_0001);
                }
                let want =
                    vecl_ir::group_order::reduce(&xs, i32::identity(op), |a, b| i32::op(op, a, b));
                let mut scratch = vec![0u64; RESULT_SLOT + 1];
                let base = scratch.as_mut_ptr() as *mut i32;
                for (i, &x) in xs.iter().enumerate() {
                    // SAFETY: `xs` fits the scratch area.
                    unsafe { base.add(i).write(x) };
                }
                // SAFETY: the scratch area has RESULT_SLOT + 1 slots of 8 bytes.
                unsafe {
                    vecl_work_group_combine(0, op.code(), ELEM_I32, base as *mut u8, n as u64)
                };
                // SAFETY: the result slot is in the scratch area.
                let got = unsafe { base.add(RESULT_SLOT).read() };
                assert_eq!(got, want, "{op:?}, n = {n}");
            }
        }
    }
}

//! One lane of an address (or integer index) as a scalar, recomputed from the
//! instructions that define it.
//!
//! A consecutive access needs only two scalars: lane 0's address (where the
//! vector load or store goes) and lane W-1's (to check the lanes are really
//! `size` bytes apart). Extracting them from the lane vectors would keep the
//! whole `i64x2` address arithmetic alive on the fast path; recomputing them
//! from the IR (`get_global_id(0)` is `base + lane`, conversions, adds and
//! multiplies by uniforms, `index`) is a handful of scalar instructions, and
//! the vectors are then only used — so only computed — on the per-lane path.
//!
//! [`FunctionCx::wrap_points`] says whether the cheap first/last test is
//! exact: a chain of wrapping integer operations in one width is one modular
//! map of the linear sequence, so the lanes' distances change only where it
//! wraps, all by the same non-zero amount (a multiple of 2^bits far from
//! 2^64), and the first-to-last distance shows it. Two independent wraps
//! could cancel out in that distance, so such addresses get the
//! lane-by-lane vector comparison instead.

use super::lanes::{elem_of, natural, Lanes};
use super::{FunctionCx, LResult};
use cranelift_codegen::ir::{types, InstBuilder, Value};
pub(super) use vecl_ir::analysis::uniformity::writes_of;
use vecl_ir::analysis::uniformity::{clamped_arg, is_int32_clamp, Shape};
use vecl_ir::{BinaryOp, Builtin, Inst, Scalar, Type, ValueId, VarId, WorkItemFn};

/// How deep the recomputation follows a chain of instructions.
const MAX_DEPTH: u32 = 24;

/// Integer (or pointer) element of a value type, if it has one component.
fn int_elem(ty: &Type) -> Option<Scalar> {
    if ty.lanes() != 1 {
        return None;
    }
    elem_of(ty).filter(|s| s.is_int())
}

/// Wrap-around points of a linear value and the narrowest width at which
/// one of them wraps (64 when none does).
#[derive(Clone, Copy, Debug)]
struct Wraps {
    points: u32,
    narrowest: u32,
}

impl Wraps {
    const NONE: Wraps = Wraps {
        points: 0,
        narrowest: 64,
    };

    /// Both operands of an operation (before its own wrap).
    fn plus(self, o: Wraps) -> Wraps {
        Wraps {
            points: self.points + o.points,
            narrowest: self.narrowest.min(o.narrowest),
        }
    }

    /// The value reduced modulo 2^`bits`: one map that swallows every
    /// earlier wrap at `bits` or wider.
    fn wrapped_at(self, bits: u32) -> Wraps {
        if bits >= 64 {
            return self;
        }
        if self.narrowest >= bits {
            Wraps {
                points: 1,
                narrowest: bits,
            }
        } else {
            Wraps {
                points: self.points + 1,
                narrowest: self.narrowest,
            }
        }
    }
}

/// Which lane a recomputation is for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lane {
    /// A lane known at compile time.
    Fixed(u32),
    /// The lane whose index (`i64`) this value holds at run time (in the
    /// per-lane loop of [`super::lane_loop`]).
    At(Value),
}

impl FunctionCx<'_, '_> {
    /// Lane `j` of integer or pointer value `v` (already lowered) as a
    /// scalar of its natural type.
    pub fn lane_scalar(&mut self, v: ValueId, j: u32) -> LResult<Value> {
        self.lane_scalar_at(v, Lane::Fixed(j), 0)?
            .ok_or_else(|| self.internal(format!("lane {j} of %{} is not available", v.0)))
    }

    /// The lane of `v` whose index `j` (`i64`) is known at run time only,
    /// recomputed; `None` when the chain reaches a varying value (whose
    /// lane cannot be extracted at a run-time index). See
    /// [`Self::recomputes_any_lane`].
    pub fn lane_scalar_dyn(&mut self, v: ValueId, j: Value) -> LResult<Option<Value>> {
        self.recompute(v, Lane::At(j), 0, false)
    }

    /// Whether [`Self::lane_scalar_dyn`] succeeds for `v`: the same walk
    /// as the recomputation, emitting nothing.
    pub fn recomputes_any_lane(&self, v: ValueId) -> bool {
        self.recomputes(v, 0, false)
    }

    fn recomputes(&self, v: ValueId, depth: u32, pure: bool) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let data = self.kernel.func().inst(v);
        if int_elem(&data.ty).is_none() {
            return false;
        }
        if !pure {
            match self.vals.get(v) {
                Some(val) => {
                    if let Some(Lanes::Uniform(_)) = val.first() {
                        return true;
                    }
                }
                _ => return self.recomputes(v, depth, true),
            }
        }
        let d = depth + 1;
        let int_operand = |x: ValueId| {
            self.kernel.func().ty(x).lanes() == 1
                && elem_of(self.kernel.func().ty(x)).is_some_and(|s| s.is_int())
        };
        match &data.inst {
            Inst::Const(_) | Inst::Param(_) => pure,
            Inst::WorkItem(f, dim) => match f {
                vecl_ir::WorkItemFn::WorkDim => false,
                vecl_ir::WorkItemFn::LocalLinearId | vecl_ir::WorkItemFn::GlobalLinearId => true,
                _ => {
                    dim.is_some_and(|dv| matches!(self.kernel.func().inst(dv).inst, Inst::Const(_)))
                }
            },
            Inst::Convert { value, .. } => int_operand(*value) && self.recomputes(*value, d, pure),
            Inst::Binary(_, a, b) => self.recomputes(*a, d, pure) && self.recomputes(*b, d, pure),
            Inst::Unary(_, a) | Inst::PtrCast(a) | Inst::PtrToInt(a) => {
                self.recomputes(*a, d, pure)
            }
            Inst::Field(p, n) => {
                let known = match self.kernel.func().ty(*p).pointee() {
                    Some(Type::Struct(id)) => self
                        .kernel
                        .module()
                        .structs
                        .get(id.0 as usize)
                        .is_some_and(|st| st.fields.get(*n as usize).is_some()),
                    _ => false,
                };
                known && self.recomputes(*p, d, pure)
            }
            Inst::Index(p, i) | Inst::Elem(p, i) => {
                let pointee = self
                    .kernel
                    .func()
                    .ty(*p)
                    .pointee()
                    .cloned()
                    .unwrap_or(Type::Void);
                let sized = matches!(
                    (&data.inst, &pointee),
                    (Inst::Index(..), _) | (_, Type::Array(..)) | (_, Type::Vector(..))
                );
                let int_index = elem_of(self.kernel.func().ty(*i)).is_some_and(|s| s.is_int());
                sized && int_index && self.recomputes(*p, d, pure) && self.recomputes(*i, d, pure)
            }
            Inst::Builtin(name, args) => {
                *name == Builtin::GetSubGroupLocalId
                    || (is_int32_clamp(*name, &data.ty)
                        && args.iter().all(|a| self.recomputes(*a, d, pure)))
            }
            Inst::ReadVar(var) if !pure && !self.kernel.uni().var_is_uniform(*var) => {
                let mut writes = Vec::new();
                writes_of(&self.kernel.func().body, *var, &mut writes);
                match writes.as_slice() {
                    [w] => self.recomputes(*w, d, true),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Recomputes lane `j` of `v`. In `pure` mode `v` may not be lowered
    /// yet (it is the value a variable was assigned elsewhere): only
    /// constants, parameters, work-item ids and integer arithmetic on them
    /// are followed, as those are the same anywhere in the chunk.
    fn recompute(&mut self, v: ValueId, j: Lane, depth: u32, pure: bool) -> LResult<Option<Value>> {
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        let data = self.kernel.func().inst(v).clone();
        let Some(s) = int_elem(&data.ty) else {
            return Ok(None);
        };
        if !pure {
            match self.vals.get(v) {
                Some(val) => {
                    if let Some(Lanes::Uniform(x)) = val.first() {
                        return Ok(Some(*x));
                    }
                }
                // Not lowered in this barrier region: only a chain that does
                // not depend on lowered values can be recomputed.
                _ => return self.recompute(v, j, depth, true),
            }
        }
        let d = depth + 1;
        let r = match &data.inst {
            Inst::Const(bits) if pure => Some(self.const_scalar(s, *bits)),
            Inst::Param(n) if pure => match self.lower_param(*n, &data.ty)?.first() {
                Some(Lanes::Uniform(x)) => Some(*x),
                _ => None,
            },
            // A sub-group is a chunk: its local id is the lane number.
            Inst::Builtin(Builtin::GetSubGroupLocalId, _) => Some(match j {
                Lane::Fixed(j) => self.b.ins().iconst(natural(s), i64::from(j)),
                Lane::At(j) => {
                    let t = natural(s);
                    if t == types::I64 {
                        j
                    } else {
                        self.b.ins().ireduce(t, j)
                    }
                }
            }),
            Inst::WorkItem(f, dim) => {
                let dim_const = match dim {
                    Some(dv) => match self.kernel.func().inst(*dv).inst {
                        Inst::Const(c) => Some(c),
                        _ => None,
                    },
                    None => None,
                };
                self.work_item_lane(*f, dim.is_some(), dim_const, j)
                    .map(|x| self.scalar_convert(x, Scalar::U64, s, false, Default::default()))
            }
            Inst::Convert {
                value,
                saturate,
                rounding,
            } => {
                let from = self.elem(*value)?;
                if !from.is_int() || self.kernel.func().ty(*value).lanes() != 1 {
                    None
                } else {
                    self.operand(*value, j, d, pure)?
                        .map(|x| self.scalar_convert(x, from, s, *saturate, *rounding))
                }
            }
            Inst::Binary(op, a, b) => {
                match (self.operand(*a, j, d, pure)?, self.operand(*b, j, d, pure)?) {
                    (Some(x), Some(y))
                        if matches!(op, BinaryOp::Div | BinaryOp::Rem)
                            && !s.is_signed()
                            && self.kernel.uni().shape(*b) == Shape::Uniform =>
                    {
                        Some(self.scalar_div_rem_by_uniform(*op, s, x, y))
                    }
                    (Some(x), Some(y)) => Some(self.scalar_binary(*op, s, x, y)),
                    _ => None,
                }
            }
            Inst::Unary(op, a) => self
                .operand(*a, j, d, pure)?
                .map(|x| self.scalar_unary(*op, s, x)),
            Inst::PtrCast(p) | Inst::PtrToInt(p) => self.operand(*p, j, d, pure)?,
            Inst::Field(p, n) => {
                let off = match self.kernel.func().ty(*p).pointee() {
                    Some(Type::Struct(id)) => self
                        .kernel
                        .module()
                        .structs
                        .get(id.0 as usize)
                        .and_then(|st| st.fields.get(*n as usize))
                        .map(|f| f.offset),
                    _ => None,
                };
                match (off, self.operand(*p, j, d, pure)?) {
                    (Some(off), Some(x)) => Some(self.b.ins().iadd_imm_s(x, i64::from(off))),
                    _ => None,
                }
            }
            Inst::Index(p, i) | Inst::Elem(p, i) => {
                let pointee = self
                    .kernel
                    .func()
                    .ty(*p)
                    .pointee()
                    .cloned()
                    .unwrap_or(Type::Void);
                let size = match (&data.inst, &pointee) {
                    (Inst::Index(..), t) => Some(self.kernel.module().size_of(t)),
                    (_, Type::Array(e, _)) => Some(self.kernel.module().size_of(e)),
                    (_, Type::Vector(sc, _)) => Some(sc.size()),
                    _ => None,
                };
                let is = self.elem(*i)?;
                // `p + (a + u) * size` with `u` uniform as `(p + a * size) +
                // u * size`: when `a` does not change in a loop and `u`
                // does (`data[base + k]`, `k` the loop's counter), the
                // lane's `p + a * size` is computed once before the loop.
                if let (Some(size), Some((a, u))) = (size, self.varying_plus_uniform(*i)) {
                    let terms = (
                        self.operand(*p, j, d, pure)?,
                        self.operand(a, j, d, pure)?,
                        self.operand(u, j, d, pure)?,
                    );
                    if let (Some(base), Some(xa), Some(xu)) = terms {
                        let (ea, eu) = (self.elem(a)?, self.elem(u)?);
                        let at = self.plus_scaled(base, xa, ea, size);
                        return Ok(Some(self.plus_scaled(at, xu, eu, size)));
                    }
                }
                match (
                    size,
                    self.operand(*p, j, d, pure)?,
                    self.operand(*i, j, d, pure)?,
                ) {
                    (Some(size), Some(base), Some(idx)) if is.is_int() => {
                        Some(self.plus_scaled(base, idx, is, size))
                    }
                    _ => None,
                }
            }
            Inst::Builtin(name, args) if is_int32_clamp(*name, &data.ty) => {
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    match self.operand(*a, j, d, pure)? {
                        Some(x) => xs.push(x),
                        None => return Ok(None),
                    }
                }
                Some(self.scalar_clamp(*name, s, &xs))
            }
            Inst::ReadVar(var) if !pure && !self.kernel.uni().var_is_uniform(*var) => {
                let mut writes = Vec::new();
                writes_of(&self.kernel.func().body, *var, &mut writes);
                match writes.as_slice() {
                    [w] => self.recompute(*w, j, d, true)?,
                    _ => None,
                }
            }
            _ => None,
        };
        Ok(r)
    }

    /// `min`, `max` or `clamp` (as `min(max(x, lo), hi)`, like the vector
    /// form) of 32-bit scalars.
    fn scalar_clamp(&mut self, name: Builtin, s: Scalar, xs: &[Value]) -> Value {
        let signed = s.is_signed();
        let ins = |cx: &mut Self, max: bool, a: Value, b: Value| match (max, signed) {
            (false, true) => cx.b.ins().smin(a, b),
            (false, false) => cx.b.ins().umin(a, b),
            (true, true) => cx.b.ins().smax(a, b),
            (true, false) => cx.b.ins().umax(a, b),
        };
        match (name, xs) {
            (Builtin::Clamp, [x, lo, hi]) => {
                let m = ins(self, true, *x, *lo);
                ins(self, false, m, *hi)
            }
            (_, [a, b]) => ins(self, name == Builtin::Max, *a, *b),
            // `is_int32_clamp` admits no other shape.
            _ => xs[0],
        }
    }

    fn operand(&mut self, v: ValueId, j: Lane, depth: u32, pure: bool) -> LResult<Option<Value>> {
        if !pure {
            return self.lane_scalar_at(v, j, depth);
        }
        self.recompute(v, j, depth, true)
    }

    /// Lane `j` recomputed, else extracted from `v`'s lanes; `None` when
    /// neither is possible (`v` was lowered in an earlier barrier region and
    /// its chain does not recompute).
    fn lane_scalar_at(&mut self, v: ValueId, j: Lane, depth: u32) -> LResult<Option<Value>> {
        if let Some(x) = self.recompute(v, j, depth, false)? {
            return Ok(Some(x));
        }
        let Lane::Fixed(j) = j else {
            return Ok(None);
        };
        let Some(l) = self.lowered(v).and_then(|val| val.into_iter().next()) else {
            return Ok(None);
        };
        let s = self.elem(v)?;
        // A vector gathered lane by lane (`&bins[data[i]]`): its lane is
        // the scalar loaded for it.
        if let Lanes::Varying(pieces) = &l {
            if let Some(x) = pieces
                .first()
                .and_then(|p| self.vals.built_from(*p))
                .and_then(|lanes| lanes.get(j as usize))
            {
                return Ok(Some(*x));
            }
        }
        Ok(Some(self.lane(s, &l, j as usize)))
    }

    /// `base + idx * size`, `idx` (of type `s`) widened to 64 bits by its
    /// signedness.
    fn plus_scaled(&mut self, base: Value, idx: Value, s: Scalar, size: u32) -> Value {
        let wide = if s.is_signed() {
            Scalar::I64
        } else {
            Scalar::U64
        };
        let idx = self.scalar_convert(idx, s, wide, false, Default::default());
        let off = self.b.ins().imul_imm_s(idx, i64::from(size));
        self.b.ins().iadd(base, off)
    }

    /// `(a, u)` when the index `i` is `a + u` with `u` uniform and `a`
    /// not, in arithmetic whose widening to 64 bits distributes over the
    /// sum: 64-bit integers (they wrap as addresses do), or `int`, whose
    /// overflow is undefined (OpenCL C follows C99 6.5), seen through
    /// conversions to 64 bits from either. Not `uint` and narrower types:
    /// their sums wrap, and the widened parts would not.
    fn varying_plus_uniform(&self, i: ValueId) -> Option<(ValueId, ValueId)> {
        let bits = |ty: &Type| elem_of(ty).map(|s| s.bits());
        let mut v = i;
        loop {
            let data = self.kernel.func().inst(v);
            match &data.inst {
                Inst::Convert { value, .. }
                    if bits(&data.ty) == Some(64)
                        && (bits(self.kernel.func().ty(*value)) == Some(64)
                            || elem_of(self.kernel.func().ty(*value)) == Some(Scalar::I32)) =>
                {
                    v = *value;
                }
                Inst::Binary(BinaryOp::Add, a, b) => {
                    let ok = match elem_of(&data.ty) {
                        Some(s) => s.bits() == 64 || s == Scalar::I32,
                        None => false,
                    };
                    let uniform = |x: ValueId| self.kernel.uni().shape(x) == Shape::Uniform;
                    return match (uniform(*a), uniform(*b)) {
                        (false, true) if ok => Some((*a, *b)),
                        (true, false) if ok => Some((*b, *a)),
                        _ => None,
                    };
                }
                _ => return None,
            }
        }
    }

    /// Lane `j` of `v` recomputed, else extracted, as a scalar; `None`
    /// when neither is possible.
    pub fn try_lane_scalar(&mut self, v: ValueId, j: u32) -> LResult<Option<Value>> {
        self.lane_scalar_at(v, Lane::Fixed(j), 0)
    }

    /// `v`'s lowered value, if it has one in the current region.
    pub fn lowered(&self, v: ValueId) -> Option<super::lanes::Val> {
        self.vals.get(v).cloned()
    }

    /// How many independent wrap-around points the lanes of linear `v` may
    /// go through (`None` when the chain cannot be followed). Each wrapping
    /// operation narrower than 64 bits — a truncating conversion, arithmetic
    /// in `int`, a work-item id read as `int` — is a point, except that a
    /// wrap at `w` bits swallows the wraps of its operands at `w` bits or
    /// more (`(int)x + y` in `int` is one map modulo 2^32). Operands summed,
    /// assignments of a variable maximised.
    pub fn wrap_points(&self, v: ValueId) -> Option<u32> {
        let mut seen = Vec::new();
        self.wraps_in(v, &mut seen, 0).map(|w| w.points)
    }

    /// Whether the lanes of linear `v` are exactly lane 0's value plus
    /// `i · stride` modulo 2^`bits` (its width): no wrap point at all (a
    /// chain of 64-bit wrapping arithmetic, `(int)get_local_id(0)`), or one
    /// at `bits` for narrower types.
    pub fn one_map_at(&self, v: ValueId, bits: u32) -> bool {
        let mut seen = Vec::new();
        self.wraps_in(v, &mut seen, 0)
            .is_some_and(|w| w.points == 0 || (w.points == 1 && w.narrowest == bits))
    }

    fn wraps_in(&self, v: ValueId, seen: &mut Vec<VarId>, depth: u32) -> Option<Wraps> {
        if depth > MAX_DEPTH {
            return None;
        }
        if self.kernel.uni().shape(v) == Shape::Uniform {
            return Some(Wraps::NONE);
        }
        let data = self.kernel.func().inst(v);
        let bits = |ty: &Type| elem_of(ty).map(|s| s.bits());
        let width = bits(&data.ty)?;
        let d = depth + 1;
        match &data.inst {
            Inst::WorkItem(..) => Some(Wraps::NONE.wrapped_at(width)),
            // Lane numbers 0..W-1.
            Inst::Builtin(Builtin::GetSubGroupLocalId, _) => Some(Wraps::NONE.wrapped_at(width)),
            Inst::Convert { value, .. } => {
                let inner = self.wraps_in(*value, seen, d)?;
                // A local id is below the group size, at most 2^31 - 1 (the
                // runtime allows 1024), and so is each lane of a chunk:
                // `(int)get_local_id(0)` never wraps.
                if self.reads_local_id(*value) && width >= 32 {
                    return Some(inner);
                }
                if width < bits(self.kernel.func().ty(*value))? {
                    Some(inner.wrapped_at(width))
                } else {
                    Some(inner)
                }
            }
            Inst::Binary(op, a, b) => {
                let sum = self
                    .wraps_in(*a, seen, d)?
                    .plus(self.wraps_in(*b, seen, d)?);
                // Signed `int` arithmetic that overflows is undefined in
                // OpenCL C (C99 6.5): `lid - offset` adds no wrap point.
                let no_overflow = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)
                    && elem_of(&data.ty) == Some(Scalar::I32);
                if no_overflow {
                    Some(sum)
                } else {
                    Some(sum.wrapped_at(width))
                }
            }
            Inst::Unary(_, a) => Some(self.wraps_in(*a, seen, d)?.wrapped_at(width)),
            Inst::PtrCast(a) | Inst::PtrToInt(a) | Inst::Field(a, _) => self.wraps_in(*a, seen, d),
            Inst::Index(p, i) | Inst::Elem(p, i) => Some(
                self.wraps_in(*p, seen, d)?
                    .plus(self.wraps_in(*i, seen, d)?),
            ),
            // A clamp keeps the first/last test exact. Say the stride `k` is
            // positive. Its input is one modular map of a linear sequence:
            // every lane step is `k`, or negative where it wraps. The
            // function is monotone and moves no two inputs further apart,
            // so every output step is at most `k` too, and they sum to
            // `k * (W - 1)` only if all equal `k`. A clamp of a clamp keeps
            // that form; anything else around an inner clamp (`clamp(x) -
            // 2 * x` has steps on both sides of its stride) may not, so the
            // input may hold no clamp but a direct one. Counted as a point
            // that any later narrow wrap adds to (`narrowest` 0).
            Inst::Builtin(name, args) if is_int32_clamp(*name, &data.ty) => {
                let lin = clamped_arg(self.kernel.func(), self.kernel.uni(), *name, args)?;
                let inner = self.wraps_in(lin, seen, d)?;
                let direct = matches!(&self.kernel.func().inst(lin).inst,
                    Inst::Builtin(n, _) if is_int32_clamp(*n, self.kernel.func().ty(lin)));
                let one_map =
                    inner.points == 0 || (inner.points == 1 && (inner.narrowest > 0 || direct));
                one_map.then_some(Wraps {
                    points: 1,
                    narrowest: 0,
                })
            }
            Inst::ReadVar(var) => {
                if seen.contains(var) {
                    return Some(Wraps::NONE);
                }
                seen.push(*var);
                let mut writes = Vec::new();
                writes_of(&self.kernel.func().body, *var, &mut writes);
                let mut most = Wraps::NONE;
                for w in writes {
                    let x = self.wraps_in(w, seen, d)?;
                    most = Wraps {
                        points: most.points.max(x.points),
                        narrowest: most.narrowest.min(x.narrowest),
                    };
                }
                seen.pop();
                Some(most)
            }
            _ => None,
        }
    }

    /// Whether `v`'s definition reaches a value the analysis calls linear
    /// without going through memory (following variables to what is
    /// written to them): an address that is consecutive in most chunks
    /// though the analysis cannot prove it (`clamp(x + dx, …)`, or
    /// `for (int b = lid; b < n; b += get_local_size(0))`, whose variable
    /// the analysis calls varying because the loop's lanes may leave it
    /// at different iterations).
    ///
    /// Each value is visited once: a loop's variable is read by its own
    /// step (`b + n` reads `b`), and walking that cycle again and again
    /// would use up the search before it reaches the linear start.
    ///
    /// A product, quotient or shift of a lane-varying value
    /// (`get_global_id(0) * stride`) spaces its lanes apart: consecutive
    /// only for a factor of one. Outside loops (`products`) the walk goes
    /// through it: the test runs once per chunk, and a strided kernel
    /// launched with a stride of one (`x[i * incx]`, `incx = 1`) gets whole
    /// vectors (4M items on Cranelift's code: 1.8 ms against 10–11 lane by
    /// lane). Inside a loop it stops there: the test would run on every
    /// trip, and where each work-item walks its own row (`data[gid *
    /// per_item + k]`) it fails on every one and costs more than the lane
    /// by lane code (the bench's histogram 12.9 → 36.9 ms).
    pub fn derives_from_linear(&self, v: ValueId, products: bool) -> bool {
        let mut stack = vec![(v, 0u32)];
        let mut seen = std::collections::HashSet::new();
        while let Some((x, depth)) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            if seen.len() > 64 || depth > MAX_DEPTH {
                return false;
            }
            if matches!(self.kernel.uni().shape(x), Shape::Linear(_)) {
                return true;
            }
            let data = self.kernel.func().inst(x);
            let next: Vec<ValueId> = match &data.inst {
                Inst::Convert { value, .. } => vec![*value],
                Inst::Binary(BinaryOp::Mul | BinaryOp::Div | BinaryOp::Shl | BinaryOp::Shr, ..)
                    if !products =>
                {
                    Vec::new()
                }
                Inst::Binary(_, a, b) | Inst::Index(a, b) | Inst::Elem(a, b) => vec![*a, *b],
                Inst::Unary(_, a) | Inst::PtrCast(a) | Inst::PtrToInt(a) | Inst::Field(a, _) => {
                    vec![*a]
                }
                Inst::Select(_, a, b) => vec![*a, *b],
                Inst::Builtin(_, args) => args.clone(),
                Inst::ReadVar(var) => {
                    let mut writes = Vec::new();
                    writes_of(&self.kernel.func().body, *var, &mut writes);
                    writes
                }
                _ => Vec::new(),
            };
            stack.extend(next.into_iter().map(|n| (n, depth + 1)));
        }
        false
    }
}

/// How an integer value can change from one lane to the next, in exact
/// arithmetic (see [`FunctionCx::index_steps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Steps {
    /// By 0 or by +1: non-decreasing, never jumping.
    ZeroOrOne,
    /// By at most +1 (any fall allowed: a wrap-around, `% n`).
    AtMostOne,
}

impl Steps {
    /// The class after a possible wrap-around of the value's type: a rise
    /// of at most one stays one after it only when nothing fell before.
    fn wrapped(self) -> Option<Steps> {
        match self {
            Steps::ZeroOrOne => Some(Steps::AtMostOne),
            Steps::AtMostOne => None,
        }
    }
}

impl FunctionCx<'_, '_> {
    /// How integer `v` steps from lane to lane, when its chain proves a
    /// bound: every step at most +1, or every step 0 or +1. A consecutive
    /// value (lanes `lane0 + i`) steps by 1 except where it wraps; adding a
    /// uniform value, `clamp`/`min`/`max` against uniform bounds and
    /// exact widenings keep the bound; `x % d` for unsigned `x` stepping 0
    /// or +1 and uniform `d` steps by at most +1 (`(lid + 1) % n`).
    ///
    /// A chunk of W lanes whose steps are all at most +1 and whose last
    /// lane is W - 1 above its first therefore steps by exactly +1 in every
    /// lane: two lanes decide what would otherwise take a comparison of
    /// every lane.
    pub fn index_steps(&self, v: ValueId) -> Option<Steps> {
        self.steps_in(v, 0)
    }

    fn steps_in(&self, v: ValueId, depth: u32) -> Option<Steps> {
        if depth > MAX_DEPTH {
            return None;
        }
        let data = self.kernel.func().inst(v);
        let s = int_elem(&data.ty)?;
        if data.ty.lanes() != 1 {
            return None;
        }
        match self.kernel.uni().shape(v) {
            Shape::Uniform => return Some(Steps::ZeroOrOne),
            // Consecutive except at wrap points (falls) and where a clamp in
            // a form `wraps_in` accepts holds it still; a chain it cannot
            // follow (`clamp(x) - 2 * x` is "consecutive" to the analysis
            // but steps by 2 past the bound) proves nothing.
            Shape::Linear(1) => {
                return match self.wrap_points(v)? {
                    0 => Some(Steps::ZeroOrOne),
                    _ => Some(Steps::AtMostOne),
                }
            }
            Shape::Linear(_) => return None,
            Shape::Varying => {}
        }
        let d = depth + 1;
        let uniform = |x: ValueId| self.kernel.uni().shape(x) == Shape::Uniform;
        match &data.inst {
            Inst::Convert {
                value,
                saturate: false,
                ..
            } => {
                let from = int_elem(self.kernel.func().ty(*value))?;
                let inner = self.steps_in(*value, d)?;
                // The value is kept when the target holds every value of
                // the source, or when a signed source is known not negative.
                let holds = if from.is_signed() == s.is_signed() {
                    s.bits() >= from.bits()
                } else if from.is_signed() {
                    s.bits() >= from.bits() && self.not_negative(*value, d)
                } else {
                    s.bits() > from.bits() || (s.bits() == 64 && self.index_is_small(*value))
                };
                if holds {
                    Some(inner)
                } else {
                    inner.wrapped()
                }
            }
            Inst::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
                let inner = match (uniform(*a), uniform(*b)) {
                    (_, true) => self.steps_in(*a, d)?,
                    (true, false) if *op == BinaryOp::Add => self.steps_in(*b, d)?,
                    _ => return None,
                };
                // Signed `int` overflow is undefined (C99 6.5); other types
                // wrap.
                if s == Scalar::I32 {
                    Some(inner)
                } else {
                    inner.wrapped()
                }
            }
            Inst::Binary(BinaryOp::Rem, a, b) if !s.is_signed() && uniform(*b) => {
                (self.steps_in(*a, d)? == Steps::ZeroOrOne).then_some(Steps::AtMostOne)
            }
            Inst::Builtin(name, args) if is_int32_clamp(*name, &data.ty) => {
                let varying: Vec<ValueId> = args.iter().copied().filter(|a| !uniform(*a)).collect();
                let first_varies = args.first().is_some_and(|a| !uniform(*a));
                match varying.as_slice() {
                    // `clamp(x, lo, hi)`: only `x` may vary; `min`/`max`
                    // are symmetric.
                    [x] if *name != Builtin::Clamp || first_varies => self.steps_in(*x, d),
                    [] => Some(Steps::ZeroOrOne),
                    _ => None,
                }
            }
            // A variable read is not followed: under divergent control its
            // lanes may hold values written in different iterations.
            _ => None,
        }
    }

    /// Whether every lane of integer `v` lies well inside ±2^40: a value of
    /// 32 bits or fewer, widened, or the remainder of such a value. A span
    /// of W such lanes, scaled by an element size, cannot wrap around 2^64,
    /// so a span test on addresses built from them is exact.
    pub fn index_is_small(&self, v: ValueId) -> bool {
        self.small_in(v, 0)
    }

    fn small_in(&self, v: ValueId, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let Some(s) = int_elem(self.kernel.func().ty(v)) else {
            return false;
        };
        if s.bits() <= 32 {
            return true;
        }
        let d = depth + 1;
        match &self.kernel.func().inst(v).inst {
            Inst::Convert { value, .. } => self.small_in(*value, d),
            Inst::Binary(BinaryOp::Rem, a, _) if !s.is_signed() => self.small_in(*a, d),
            _ => false,
        }
    }

    /// Whether signed `v` is known not negative: a work-item id, a constant
    /// at least zero, a local id read as `int` (below 2^31), or a sum in
    /// `int` of such values (overflow being undefined).
    fn not_negative(&self, v: ValueId, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let d = depth + 1;
        match &self.kernel.func().inst(v).inst {
            Inst::WorkItem(..) => true,
            Inst::Const(bits) => int_elem(self.kernel.func().ty(v))
                .is_some_and(|s| !s.is_signed() || (*bits >> (s.bits() - 1)) & 1 == 0),
            Inst::Convert { value, .. } => {
                self.reads_local_id(*value)
                    || (int_elem(self.kernel.func().ty(*value)).is_some_and(|f| {
                        f.is_signed()
                            && int_elem(self.kernel.func().ty(v))
                                .is_some_and(|t| t.bits() >= f.bits())
                    }) && self.not_negative(*value, d))
            }
            Inst::Binary(BinaryOp::Add, a, b) => {
                int_elem(self.kernel.func().ty(v)) == Some(Scalar::I32)
                    && self.not_negative(*a, d)
                    && self.not_negative(*b, d)
            }
            _ => false,
        }
    }

    /// Whether `v` is a local id (`get_local_id`, `get_local_linear_id`),
    /// one converted to 32 bits or more, or a variable only ever assigned
    /// such values (`int lid = get_local_id(0)`): below the group size (at
    /// most 1024), so the lanes of a chunk hold it without passing the top
    /// of any integer order.
    pub fn is_local_id(&self, v: ValueId) -> bool {
        match &self.kernel.func().inst(v).inst {
            Inst::Convert { value, .. } => {
                self.reads_local_id(*value)
                    && int_elem(self.kernel.func().ty(v)).is_some_and(|s| s.bits() >= 32)
            }
            Inst::ReadVar(var) => {
                let mut writes = Vec::new();
                writes_of(&self.kernel.func().body, *var, &mut writes);
                !writes.is_empty()
                    && writes.iter().all(|&w| {
                        !matches!(self.kernel.func().inst(w).inst, Inst::ReadVar(_))
                            && self.is_local_id(w)
                    })
            }
            _ => self.reads_local_id(v),
        }
    }

    fn reads_local_id(&self, v: ValueId) -> bool {
        matches!(
            self.kernel.func().inst(v).inst,
            Inst::WorkItem(WorkItemFn::LocalId | WorkItemFn::LocalLinearId, _)
        )
    }
}

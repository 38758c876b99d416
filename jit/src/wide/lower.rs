//! The front half of the wide code generator: a kernel's Kernel IR (after
//! the middle passes, as the Cranelift lowering receives it) lowered into
//! the body of a 16-lane chunk ([`Program`]), which [`super::entry`] wraps
//! in the work-group and chunk loops.
//!
//! Every value is one zmm register of 16 lanes (uniform values too: a
//! kernel argument or constant is broadcast), every `bool` one k register.
//! Control flow is all masked, as ISPC does it: the current mask (`cur`)
//! holds the lanes running at this point; an `if` runs both arms under
//! `cur & c` and `cur & !c` and joins the lanes that reach its end; a loop
//! runs while any lane is in it (`break` moves the lanes to the loop's
//! exit mask, `continue` to its continuing block, `return` drops them).
//! Variables are written under the mask (merge masking), so lanes that
//! are not running keep their values. Uniform branches are masked too:
//! their lanes all agree, so the result is the same.
//!
//! The subset (anything else is refused with the first operation outside
//! it, and the kernel keeps Cranelift's code): `float`, `int`, `uint` and
//! `bool` scalars; `long`/`ulong`/`size_t` only as work-item ids and sizes
//! and as conversions of `int` values (kept as 32-bit lanes, which the
//! entry makes exact by running only launches whose ids fit in 31 bits);
//! arithmetic (32-bit integer division and remainder by [`super::math`]),
//! comparisons, selects, conversions between `int`, `uint` and `float`,
//! `sqrt`, `fabs`, `fma` and the front end's contractions, `exp`, `exp2`,
//! `exp10`, `log`, `log2`, `log10`, `rsqrt` and their `native_`/`half_`
//! forms, the double-precision routines of [`super::dmath`] (`sin`,
//! `cos`, `erf`, `pow`, `atan2`…), `native_recip`, `native_divide`,
//! `floor`, `ceil`, `trunc`, `rint`, `copysign`, `fmin`, `fmax`, `mad`, and
//! `min`, `max`, `clamp` of floats and 32-bit integers; loads and stores
//! of 4-byte elements (and of `char`/`uchar` ones, their index in bytes:
//! [`access::Access::byte`]) through a
//! `__global` or `__constant` pointer argument indexed by an `int` or
//! `long` (a vector access when the uniformity analysis finds the address
//! consecutive and the lanes are so at run time, a gather or scatter
//! otherwise); `get_global_id`, `get_global_size`, `get_global_offset`,
//! `get_work_dim` and the group queries of [`super::groups`] of a
//! constant dimension; a load of one address for every lane as one scalar
//! load, broadcast; vectors of 2 to 4 `float`s, `int`s or `uint`s, one
//! lane value per component (their elements accessed a component at a
//! time); and, in a kernel with barriers or `__local` memory
//! ([`lower_regions`], run by [`super::regions`]), `__local` arrays and
//! `__local` arguments; `double` scalars (`Val::D`, two zmm registers of
//! eight doubles): arithmetic, comparisons, selects, conversions to and
//! from `float`, `int`, `uint` and the bytes, `fma`, `mad`, `sqrt`,
//! `rsqrt`, `fabs`, `floor`, `ceil`, `trunc`, `rint`, `copysign`, `fmin`,
//! `fmax`, `min`, `max`, `clamp`, and `exp`, `log` and their bases
//! ([`dmath::double_fn`]), through `__global`/`__constant` pointers (a
//! `double` element is accessed as a `float2`'s memory image). No private
//! memory, atomics, calls, `double` vectors, `__local` doubles, `double`
//! variables kept across a barrier or switches, and no `return` in a kernel with barriers ([`super::select`]
//! refuses more for speed).

use super::access::{self, Access, Base, Check, Known, MemoryPlan, StepAhead};
use super::dmath;
use super::intmath;
use super::math::{self, DivPart};
use super::{Arg, Bin, CmpKind, Cvt, Op, Program, Un, K, V};
use crate::abi::{launch_offsets, pack_site, ArgSlot};
use crate::lower::fresh_writes::unblended_writes;
use crate::lower::prefetch::Ahead;
use vecl_ir::analysis::uniformity::{Shape, Uniformity};
use vecl_ir::{
    AddressSpace, BinaryOp, Block, Builtin, CmpOp, Function, Inst, Loc, Rounding, Scalar, Stmt,
    Type, UnaryOp, ValueId, WorkItemFn,
};

/// The fewest operations of an `if` arm that make it a skipped region
/// ([`Cx::arm`]). The test and jump cost about a cycle per chunk that
/// takes the arm; an arm of about 40 operations saved about 3.5 cycles
/// per chunk that skipped it and cost 5-10 % of a short body taken by
/// every chunk (`docs/measurements.md`), so only longer arms are tested.
const SKIP_MIN_OPS: usize = 64;

/// Why a kernel was not lowered: the first operation outside the subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub what: String,
    pub loc: Loc,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.what)?;
        if self.loc.is_known() {
            write!(f, " at {}:{}", self.loc.line, self.loc.col)?;
        }
        Ok(())
    }
}

/// A pointer: the parameter (or, for a `__local` variable, the number its
/// bounds test goes by), the argument slot holding the buffer's address
/// (or a `__local` argument's offset), where the buffer is, and an index
/// in 4-byte elements (none: element 0).
#[derive(Clone, Copy, Debug)]
struct Pointer {
    param: u32,
    slot: i32,
    base: Base,
    index: Option<V>,
    /// The exact step of `index` from lane to lane, in 4-byte elements,
    /// across the lanes running where it was computed (`Cx::exact_step`;
    /// 0 for no index), if the index's form shows one.
    step: Option<i64>,
    /// `index` counts bytes (a `char`/`uchar` pointer indexed,
    /// [`access::Access::byte`]), not 4-byte words.
    bytes: bool,
}

/// What an IR value became.
#[derive(Clone, Copy, Debug)]
enum Val {
    V(V),
    K(K),
    Ptr(Pointer),
    /// A vector of 2 to 4 `float`/`int`/`uint` components, one lane value
    /// each (the first `n`).
    Vs([V; 4], u8),
    /// A `double`: the eight doubles of lanes 0–7, then those of 8–15.
    D([V; 2]),
}

/// What an IR variable is.
#[derive(Clone, Copy, Debug)]
enum VarRepr {
    V(V),
    K(K),
    /// A vector variable: one lane value per component.
    Vs([V; 4], u8),
    /// A `double` variable, as [`Val::D`].
    D([V; 2]),
    /// A pointer variable written only outside any `if` or loop.
    Ptr(Option<Pointer>),
    /// A `__local` pointer variable written after a barrier (the FFT's
    /// `tmp = a; a = b; b = tmp;`): lanes holding the offset, in 4-byte
    /// words, of the place it points to from the buffer of the kernel's
    /// first `__local` pointer argument (the anchor), so that an access
    /// through it is one through the anchor's buffer at that index. Kept
    /// across barriers as an `int` variable is.
    Sel(V),
    /// A variable of a type outside the subset: refused when used.
    Other,
    /// A variable no computed value reads (`super::live`): no register,
    /// its writes are dropped.
    Unread,
}

/// The masks of a loop being lowered.
struct LoopMasks {
    /// Lanes that left by `break`.
    broke: K,
    /// The loop's lanes of the trip (its mask; `None` for the test run
    /// before a rotated loop).
    lanes: Option<K>,
    /// The variables local to the loop (`super::loop_local`): written
    /// without a mask under `lanes`.
    locals: std::collections::HashSet<vecl_ir::VarId>,
    /// Lanes that went to the continuing block by `continue` (none when
    /// the loop has no `continue` of its own).
    continued: Option<K>,
}

/// How a scalar type is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    F32,
    I32,
    U32,
    /// `long`: 32-bit lanes, sign-extended on use.
    I64,
    /// `ulong`/`size_t`: 32-bit lanes, sign-extended on use (values below
    /// 2^31 from work-item queries, or conversions of `int`s and `long`s).
    U64,
    Bool,
    /// `uchar`: 32-bit lanes holding the zero extension of the byte.
    U8,
    /// `char`: 32-bit lanes holding the sign extension of the byte.
    I8,
    /// `double`: two zmm registers of eight doubles each, lanes 0–7 then
    /// 8–15 ([`Val::D`]).
    F64,
}

fn class(ty: &Type) -> Option<Class> {
    match ty {
        Type::Scalar(Scalar::F32) => Some(Class::F32),
        Type::Scalar(Scalar::I32) => Some(Class::I32),
        Type::Scalar(Scalar::U32) => Some(Class::U32),
        Type::Scalar(Scalar::I64) => Some(Class::I64),
        Type::Scalar(Scalar::U64) => Some(Class::U64),
        Type::Scalar(Scalar::Bool) => Some(Class::Bool),
        Type::Scalar(Scalar::U8) => Some(Class::U8),
        Type::Scalar(Scalar::I8) => Some(Class::I8),
        Type::Scalar(Scalar::F64) => Some(Class::F64),
        _ => None,
    }
}

/// The lowering context: the program being built, the values and
/// variables lowered so far, and the masks.
struct Cx<'a> {
    func: &'a Function,
    uni: &'a Uniformity,
    slots: &'a [ArgSlot],
    plan: &'a MemoryPlan,
    p: Program,
    vals: Vec<Option<Val>>,
    vars: Vec<VarRepr>,
    /// The running lanes here.
    cur: K,
    /// `cur` is still every running lane of the chunk (no branch or exit
    /// has narrowed it): variables are written without merging.
    whole: bool,
    loops: Vec<LoopMasks>,
    /// `if`s and loops around the statement being lowered.
    depth: usize,
    /// Per IR value: known to lie in [0, 2^31) (work-item ids and sizes,
    /// which the entry keeps below 2^31, non-negative constants, and
    /// conversions of such values).
    small: Vec<bool>,
    /// The values and variables computed ([`super::live`]; the others are
    /// unused).
    needed: super::live::Needed,
    /// The ranges of 64-bit values, which say where their 32-bit lanes
    /// stay exact ([`super::int64`]).
    narrow: super::int64::Narrowing<'a>,
    /// `__local` memory may be accessed (a barrier kernel's entry,
    /// [`super::regions`], which keeps the arena's address).
    locals_allowed: bool,
    /// The variable writes that need no merge under a mask: no lane that
    /// skips them reads the variable afterwards
    /// (`lower::fresh_writes::unblended_writes`).
    plain: std::collections::HashSet<(vecl_ir::VarId, ValueId)>,
    /// `cur` holds every running lane of the chunk or none (no branch on
    /// a condition the uniformity analysis does not find uniform has
    /// narrowed it): lane 0 runs whenever any lane does, since a chunk's
    /// running lanes start at lane 0.
    all_or_none: bool,
    /// Masks known to hold no lane: those after a `break`, `continue`
    /// or `return` (never written again), which an `if`'s join leaves out.
    empty: std::collections::HashSet<u32>,
    /// The accesses of each variable in everything this kernel's lowering
    /// runs (`crate::lower::fresh_writes::access_counts`).
    var_total: std::collections::HashMap<vecl_ir::VarId, u32>,
    /// A barrier region's skipping test (`lower_regions`): the `if`'s
    /// condition and the save-area slot where the lanes entering its
    /// `then` arm are stored, as 0 / -1.
    skip_test: Option<(ValueId, i32)>,
    /// The variables local to the loop statement about to be lowered
    /// (`Cx::block` finds them; `Cx::stmt` takes them).
    next_locals: std::collections::HashSet<vecl_ir::VarId>,
    /// `rsqrt` as [`math::rsqrt_newton`] ([`LowerOptions`]).
    rsqrt_newton: bool,
    /// The arguments of which the block being lowered takes both `sin`
    /// and `cos` (`Cx::block` finds them), with the block's depth.
    trig_wanted: Vec<(TrigArg, u32)>,
    /// `[sin, cos]` of such an argument once the first of the two calls
    /// has computed both (`dmath::sin_cos`), with the block's depth:
    /// the second call of the same block takes its result from here.
    trig_done: Vec<(TrigArg, u32, [V; 2])>,
    /// How many blocks enclose the statement being lowered.
    block_depth: u32,
}

/// The argument of a `sin` or `cos` as the pairing of the two sees it: a
/// value, or the read of a scalar variable (each read is a value of its
/// own, `x = …; sin(x) … cos(x)`), which stands until the variable is
/// written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TrigArg {
    Value(ValueId),
    Var(usize),
}

type Lowered<T> = Result<T, Refusal>;

/// What the lowering takes from the compile besides the kernel.
#[derive(Clone, Copy, Debug)]
pub struct LowerOptions {
    /// One past the largest global id a launch of the code may have
    /// (`int64::launch_end`).
    pub id_end: u64,
    /// `rsqrt` as [`math::rsqrt_newton`] (`JitOptions::rsqrt`); a square
    /// root and a division otherwise.
    pub rsqrt_newton: bool,
}

/// Lowers `func` into the body of one chunk (see the module doc).
/// `slots`: where each parameter is in the argument block; `plan`: which
/// accesses prefetch, stream and are checked.
pub fn lower_kernel(
    func: &Function,
    uni: &Uniformity,
    slots: &[ArgSlot],
    plan: &MemoryPlan,
    lower: LowerOptions,
) -> Lowered<Program> {
    let mut cx = Cx::new(func, uni, slots, plan, false, unblended_writes(func), lower);
    cx.start_vars(&|_| true);
    cx.var_total = crate::lower::fresh_writes::access_counts(func, &func.body.0);
    cx.block(&func.body)?;
    drop_unread_masks(&mut cx.p);
    share_repeated_ops(&mut cx.p);
    merge_masked_writes(&mut cx.p);
    merge_masked_fma_chains(&mut cx.p);
    merge_masked_double_fmas(&mut cx.p);
    subtract_negated_addends(&mut cx.p);
    super::kfold::fold_compares_into_masks(&mut cx.p);
    super::kfold::double_as_sum(&mut cx.p);
    hoist_loop_invariants(&mut cx.p, false);
    Ok(cx.p)
}

/// Moves the operations inside loops that compute the same value on every
/// trip to just before the outermost loop that writes none of their
/// operands, so that a loop does not compute them again on every trip:
/// the splats of the shared constants ([`Program::constant`]), and pure
/// lane operations (arithmetic, conversions, broadcasts of arguments and
/// launch fields, copies) whose result is written nowhere else and whose
/// operands no write inside that loop changes (matmul's `ly * 16` in its
/// `k` loop). They have no side effect and cannot trap, and every loop of
/// the body runs at least one trip, so computing them earlier changes
/// nothing but the time. Operations with operands inside a skipped
/// region ([`Op::IfAny`]) stay. Without `all`, only the constants move: the
/// barrier-free entry's two chunks in flight are chosen by the doubled
/// loop's register moves, which longer-lived values change, and their
/// choice was measured with the constants alone moved.
fn hoist_loop_invariants(p: &mut Program, all: bool) {
    // Where each value is written: how often, and in which loops (by the
    // position of their `Op::Loop`).
    let mut writes: std::collections::HashMap<u32, (u32, Vec<usize>)> = Default::default();
    let mut open: Vec<usize> = Vec::new();
    for (i, op) in p.ops.iter().enumerate() {
        match op {
            Op::Loop => open.push(i),
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                open.pop();
            }
            _ => {
                for v in super::ra2::written(op).0 {
                    let e = writes.entry(v).or_default();
                    e.0 += 1;
                    for l in &open {
                        if !e.1.contains(l) {
                            e.1.push(*l);
                        }
                    }
                }
            }
        }
    }
    let shared: std::collections::HashSet<u32> = p.constants.values().map(|v| v.0).collect();
    let ops = std::mem::take(&mut p.ops);
    let mut out: Vec<Op> = Vec::with_capacity(ops.len());
    // The open loops: their position in `ops` (their name in `writes`)
    // and in `out` (where an operation hoisted out of them goes).
    let mut loops: Vec<(usize, usize)> = Vec::new();
    let mut skipped = 0usize;
    for (i, op) in ops.into_iter().enumerate() {
        match op {
            Op::Loop => {
                loops.push((i, out.len()));
                out.push(op);
                continue;
            }
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                loops.pop();
                out.push(op);
                continue;
            }
            Op::IfAny { .. } => skipped += 1,
            Op::EndIf => skipped = skipped.saturating_sub(1),
            _ => {}
        }
        let pure = match op {
            Op::Splat { d, .. } if !all && shared.contains(&d.0) => Some((d, [None, None, None])),
            Op::Splat { d, .. } | Op::SplatQ { d, .. } if all => Some((d, [None, None, None])),
            Op::Broadcast {
                d,
                arg: Arg::Args | Arg::Launch,
                ..
            } if all => Some((d, [None, None, None])),
            _ if !all => None,
            Op::Bin { d, a, b, .. } => Some((d, [Some(a), Some(b), None])),
            Op::Fma { d, a, b, c } | Op::FmaD { d, a, b, c } | Op::Fms { d, a, b, c } => {
                Some((d, [Some(a), Some(b), Some(c)]))
            }
            Op::Sqrt { d, a }
            | Op::IntToFloat { d, a }
            | Op::Convert { d, a, .. }
            | Op::Un { d, a, .. }
            | Op::Copy { d, a } => Some((d, [Some(a), None, None])),
            _ => None,
        };
        let target = match pure {
            // Constants move out of skipped regions too, as they always
            // did (a shared one may be read after the region).
            Some((d, operands))
                if (skipped == 0 || operands.iter().all(Option::is_none)) && !loops.is_empty() =>
            {
                let once = writes.get(&d.0).is_some_and(|w| w.0 == 1);
                // The outermost open loop inside which no operand is
                // written.
                let inner = |l: usize| {
                    operands
                        .iter()
                        .flatten()
                        .any(|x| writes.get(&x.0).is_some_and(|w| w.1.contains(&l)))
                };
                let mut at = None;
                for j in (0..loops.len()).rev() {
                    if inner(loops[j].0) {
                        break;
                    }
                    at = Some(j);
                }
                at.filter(|_| once).map(|j| (j, d))
            }
            _ => None,
        };
        match target {
            Some((j, d)) => {
                let pos = loops[j].1;
                out.insert(pos, op);
                for l in loops.iter_mut().skip(j) {
                    l.1 += 1;
                }
                // Now written outside loops j and deeper.
                let outer: Vec<usize> = loops[..j].iter().map(|l| l.0).collect();
                if let Some(w) = writes.get_mut(&d.0) {
                    w.1 = outer;
                }
            }
            None => out.push(op),
        }
    }
    p.ops = out;
}

/// The 64-byte save slots a variable of type `ty` kept across a barrier
/// takes: two for a `double` (its halves, `VarRepr::D`), one per
/// component of a vector, one otherwise.
fn save_slots(ty: &Type) -> i32 {
    match class(ty) {
        Some(Class::F64) => 2,
        _ => vector_class(ty).map_or(1, |(_, c)| i32::from(c)),
    }
}

/// The bodies of a barrier kernel's regions (`super::regions`): `regions`
/// are the statements between the top-level barriers of `func` (after
/// `vecl_ir::transform::regions`), `next` its `$next` variable when it is
/// a region graph.
///
/// A variable that more than one region accesses has a 64-byte slot (two
/// for a `double`, one per half; one per component of a vector) in
/// the chunk's save area (`Arg::Save`): a region reloads it at its start
/// when it accesses it and stores it at its end when it writes it (a mask
/// as 0 / -1 lanes). `$next` starts as `regions::NONE` in every region and
/// is stored at the end. Pointer variables are known at compile time:
/// those of the first region hold in the others, and a pointer variable
/// that a later region writes may be used in that region only.
pub fn lower_regions(
    func: &Function,
    uni: &Uniformity,
    slots: &[ArgSlot],
    plan: &MemoryPlan,
    regions: &[&[Stmt]],
    next: Option<vecl_ir::VarId>,
    skips: &super::select::SkipTests,
    lower: LowerOptions,
) -> Lowered<LoweredRegions> {
    let n = func.vars.len();
    let mut accessed = vec![vec![false; n]; regions.len()];
    let mut written = vec![vec![false; n]; regions.len()];
    for (r, stmts) in regions.iter().enumerate() {
        var_uses(func, stmts, &mut accessed[r], &mut written[r]);
    }
    // Save slots: variables of more than one region, and `$next`.
    let mut slot_of = vec![None; n];
    let mut bytes = 0i32;
    for v in 0..n {
        let regions_in = accessed.iter().filter(|a| a[v]).count();
        if regions_in > 1 || next.is_some_and(|x| x.index() == v) {
            slot_of[v] = Some(bytes);
            bytes += 64 * save_slots(&func.vars[v].ty);
        }
    }
    // The regions whose chunks the entry skips once one fails their
    // `if (lid < bound)` (`select::skip_tests`): a skipped chunk keeps its
    // saved variables as they were, so the region must write none outside
    // the `if` but `$next` (which the entry reads from the chunks it ran
    // alone). One slot holds the test of the chunk that ran last.
    let mut skip_at = None;
    let mut skip_copies: Vec<Option<Vec<i32>>> = vec![None; regions.len()];
    for (r, stmts) in regions.iter().enumerate() {
        let Some(cond) = skips.tests.get(r).copied().flatten() else {
            continue;
        };
        let copies = skip_copies[r].insert(Vec::new());
        let outside = without_if(stmts, cond);
        let (mut acc, mut wrote) = (vec![false; n], vec![false; n]);
        var_uses(func, &outside, &mut acc, &mut wrote);
        for v in 0..n {
            let Some(at) = slot_of[v] else { continue };
            if !wrote[v] || next.is_some_and(|x| x.index() == v) {
                continue;
            }
            if !skips.group_vars.contains(&vecl_ir::VarId(v as u32)) {
                return refuse(
                    format!(
                        "a region whose chunks Cranelift's code limits to those an `if (lid < bound)` accepts and that writes `{}`, kept across a barrier and not the same for the whole group, outside it",
                        func.vars[v].name
                    ),
                    Loc::NONE,
                );
            }
            // A group-level variable: the skipped chunks take the copy
            // of the chunk that ran last.
            copies.extend((0..save_slots(&func.vars[v].ty)).map(|c| at + 64 * c));
        }
        if skip_at.is_none() {
            skip_at = Some(bytes);
            bytes += 64;
        }
    }
    let plain = unblended_writes(func);
    // Every access the regions' bodies make, for `loop_local`.
    let mut var_total = std::collections::HashMap::new();
    for stmts in regions.iter() {
        for (x, c) in crate::lower::fresh_writes::access_counts(func, stmts) {
            *var_total.entry(x).or_insert(0u32) += c;
        }
    }
    // `__local` pointer variables written after a barrier and read in
    // another region ([`VarRepr::Sel`]; not under robust access, whose
    // tests go by the buffer's argument).
    let swapped: Vec<bool> = (0..n)
        .map(|v| {
            !plan.robust
                && matches!(func.vars[v].ty, Type::Pointer(AddressSpace::Local, _))
                && slot_of[v].is_some()
                && written.iter().skip(1).any(|w| w[v])
        })
        .collect();
    let mut bodies = Vec::with_capacity(regions.len());
    let mut pointers: Vec<Option<Pointer>> = vec![None; n];
    // The slots some region stores as one value of 32-bit lanes, and
    // those stored otherwise (vectors, masks).
    let mut stored_v = std::collections::HashSet::new();
    let mut stored_other = std::collections::HashSet::new();
    for (r, stmts) in regions.iter().enumerate() {
        if returns(&Block(stmts.to_vec())) {
            return refuse(
                "a `return` in a kernel with barriers (the lanes that returned are not kept across them)",
                first_return(func, stmts),
            );
        }
        let mut cx = Cx::new(func, uni, slots, plan, true, plain.clone(), lower);
        cx.var_total = var_total.clone();
        let is_next = |v: usize| next.is_some_and(|x| x.index() == v);
        cx.start_vars(&|v| accessed[r][v] && slot_of[v].is_none() && !is_next(v));
        for (v, sel) in swapped.iter().enumerate() {
            if *sel && matches!(cx.vars[v], VarRepr::Ptr(_)) {
                cx.vars[v] = VarRepr::Sel(cx.p.v());
            }
        }
        for v in 0..n {
            let saved = slot_of[v].filter(|_| accessed[r][v]);
            match (cx.vars[v], saved) {
                (VarRepr::Sel(d), Some(at)) => {
                    cx.p.push(Op::Load {
                        d,
                        arg: Arg::Save,
                        off: at,
                    });
                }
                // A pointer with an index is not carried: its index is a
                // value of region 0's program.
                (VarRepr::Ptr(_), _)
                    if r > 0
                        && accessed[r][v]
                        && !written[r][v]
                        && pointers[v].is_some_and(|p| p.index.is_some()) =>
                {
                    return refuse(
                        format!(
                            "the pointer variable `{}` with an index kept across a barrier",
                            func.vars[v].name
                        ),
                        Loc::NONE,
                    );
                }
                (VarRepr::Ptr(_), _) if r > 0 => {
                    if written[r][v] && accessed.iter().enumerate().any(|(o, a)| o != r && a[v]) {
                        return refuse(
                            format!(
                                "the pointer variable `{}` written after a barrier",
                                func.vars[v].name
                            ),
                            Loc::NONE,
                        );
                    }
                    cx.vars[v] = VarRepr::Ptr(pointers[v]);
                }
                (VarRepr::V(d), Some(at)) if next.map(|x| x.index()) != Some(v) => {
                    cx.p.push(Op::Load {
                        d,
                        arg: Arg::Save,
                        off: at,
                    });
                }
                (VarRepr::D(d), Some(at)) => {
                    for (h, d) in d.iter().enumerate() {
                        cx.p.push(Op::Load {
                            d: *d,
                            arg: Arg::Save,
                            off: at + 64 * h as i32,
                        });
                    }
                }
                (VarRepr::Vs(d, m), Some(at)) => {
                    for (c, d) in d.iter().enumerate().take(usize::from(m)) {
                        cx.p.push(Op::Load {
                            d: *d,
                            arg: Arg::Save,
                            off: at + 64 * c as i32,
                        });
                    }
                }
                (VarRepr::K(d), Some(at)) => {
                    let t = cx.p.load(Arg::Save, at);
                    let zero = cx.splat(0);
                    cx.p.push(Op::Compare2 {
                        kind: CmpKind::I32,
                        pred: 4,
                        d,
                        a: t,
                        b: zero,
                    });
                }
                _ => {}
            }
        }
        if let Some(x) = next {
            let VarRepr::V(d) = cx.vars[x.index()] else {
                return refuse("a region graph whose successor is never read", Loc::NONE);
            };
            cx.p.push(Op::Splat {
                d,
                bits: vecl_ir::transform::regions::NONE,
            });
        }
        // The chunk's lanes that enter the skipping test's `then` arm, as
        // 0 / -1, stored where the `if` is (the entry reads the last
        // lane's); none where it is not reached (under a group-level `if`
        // that fails, as it does for every chunk of the group).
        if let (Some(cond), Some(at)) = (skips.tests.get(r).copied().flatten(), skip_at) {
            let zero = cx.splat(0);
            cx.p.push(Op::Store {
                a: zero,
                arg: Arg::Save,
                off: at,
            });
            cx.skip_test = Some((cond, at));
        }
        cx.block(&Block(stmts.to_vec()))?;
        for v in 0..n {
            let Some(at) = slot_of[v] else { continue };
            let is_next = next.is_some_and(|x| x.index() == v);
            if !written[r][v] && !is_next {
                continue;
            }
            match cx.vars[v] {
                VarRepr::Sel(a) => {
                    stored_other.insert(at);
                    cx.p.push(Op::Store {
                        a,
                        arg: Arg::Save,
                        off: at,
                    })
                }
                VarRepr::V(a) => {
                    stored_v.insert(at);
                    cx.p.push(Op::Store {
                        a,
                        arg: Arg::Save,
                        off: at,
                    })
                }
                VarRepr::D(a) => {
                    stored_other.insert(at);
                    for (h, a) in a.iter().enumerate() {
                        cx.p.push(Op::Store {
                            a: *a,
                            arg: Arg::Save,
                            off: at + 64 * h as i32,
                        });
                    }
                }
                VarRepr::Vs(a, m) => {
                    stored_other.insert(at);
                    for (c, a) in a.iter().enumerate().take(usize::from(m)) {
                        cx.p.push(Op::Store {
                            a: *a,
                            arg: Arg::Save,
                            off: at + 64 * c as i32,
                        });
                    }
                }
                VarRepr::K(k) => {
                    stored_other.insert(at);
                    cx.store_lanes(k, at);
                }
                _ => {}
            }
        }
        if r == 0 {
            for (v, p) in pointers.iter_mut().enumerate() {
                if let VarRepr::Ptr(x) = cx.vars[v] {
                    *p = x;
                }
            }
        }
        drop_unread_masks(&mut cx.p);
        share_repeated_ops(&mut cx.p);
        merge_masked_writes(&mut cx.p);
        merge_masked_fma_chains(&mut cx.p);
        merge_masked_double_fmas(&mut cx.p);
        subtract_negated_addends(&mut cx.p);
        super::kfold::fold_compares_into_masks(&mut cx.p);
        super::kfold::double_as_sum(&mut cx.p);
        hoist_loop_invariants(&mut cx.p, true);
        split_uniform_indices(&mut cx.p);
        fuse_sum_loads(&mut cx.p);
        bodies.push(cx.p);
    }
    let next_at = next.and_then(|x| slot_of[x.index()]);
    if next.is_some() && next_at.is_none() {
        return refuse("a region graph without its successor variable", Loc::NONE);
    }
    let mut row_steps = std::collections::HashMap::new();
    let mut chunk_steps = std::collections::HashMap::new();
    for (v, at) in slot_of.iter().enumerate() {
        let Some(at) = *at else { continue };
        if !stored_v.contains(&at) || stored_other.contains(&at) {
            continue;
        }
        let var = vecl_ir::VarId(v as u32);
        if let Some(step) = var_row_step(func, regions, var, ROW, &mut Vec::new()) {
            row_steps.insert(at, step);
        }
        if let Some(step) = var_row_step(func, regions, var, CHUNK, &mut Vec::new()) {
            chunk_steps.insert(at, step);
        }
    }
    Ok(LoweredRegions {
        bodies,
        save_bytes: bytes as u32,
        next_at,
        skip_at,
        skips: skip_copies,
        row_steps,
        chunk_steps,
    })
}

/// What moves from one row of a work-group to the next (the rows in
/// flight, `rows`): the id of dimension 1, by 1.
const ROW: (i64, i64) = (1, 1);
/// What moves from one chunk of a row to the next (the chunks of a row in
/// flight, `rows`): the id of dimension 0, by 16.
const CHUNK: (i64, i64) = (0, 16);

/// How much variable `var` of a barrier kernel grows from one row of a
/// work-group to the next (the rows in flight, `rows`, are consecutive
/// local ids of dimension 1 in one group; `moving` = [`ROW`]), or from one
/// full chunk of a row to the next (`moving` = [`CHUNK`]: consecutive
/// chunks are 16 local ids of dimension 0 apart): `Some(s)` when every write of
/// it is at the top level of a region (so every work-item makes the same
/// writes in the same order; one under an `if` or in a loop may be made
/// by one row and not the next) of a value whose [`row_step`] is `s`.
/// Modulo 2^32, as the lanes hold it.
fn var_row_step(
    func: &Function,
    regions: &[&[Stmt]],
    var: vecl_ir::VarId,
    moving: (i64, i64),
    seen: &mut Vec<vecl_ir::VarId>,
) -> Option<i64> {
    fn nested(stmts: &[Stmt], var: vecl_ir::VarId) -> bool {
        let mut out = Vec::new();
        for s in stmts {
            match s {
                Stmt::If { then_, else_, .. } => {
                    vecl_ir::analysis::uniformity::writes_of(then_, var, &mut out);
                    vecl_ir::analysis::uniformity::writes_of(else_, var, &mut out);
                }
                Stmt::Loop { body, continuing } => {
                    vecl_ir::analysis::uniformity::writes_of(body, var, &mut out);
                    vecl_ir::analysis::uniformity::writes_of(continuing, var, &mut out);
                }
                Stmt::Switch { cases, .. } => {
                    for c in cases {
                        vecl_ir::analysis::uniformity::writes_of(&c.body, var, &mut out);
                    }
                }
                _ => {}
            }
        }
        !out.is_empty()
    }
    if seen.len() > 8 || seen.contains(&var) {
        return None;
    }
    if !matches!(
        class(&func.vars[var.index()].ty),
        Some(Class::I32 | Class::U32 | Class::I64 | Class::U64)
    ) {
        return None;
    }
    if regions.iter().any(|r| nested(r, var)) {
        return None;
    }
    seen.push(var);
    let mut step = None;
    let mut all = true;
    for r in regions {
        for s in r.iter() {
            if let Stmt::WriteVar(x, v) = s {
                if *x == var {
                    let s = row_step(func, regions, *v, moving, seen, 0);
                    all &= s.is_some() && (step.is_none() || step == s);
                    step = step.or(s);
                }
            }
        }
    }
    seen.pop();
    if all {
        step
    } else {
        None
    }
}

/// How much integer value `v` grows from one row of a work-group to the
/// next, or one full chunk of a row to the next (`moving`), modulo 2^32
/// (see [`var_row_step`]): the local and global ids of the moving
/// dimension by its step; constants, parameters, the other dimensions' ids
/// and the group queries by 0 (the rows, or the chunks, are in one group
/// and have the same ids of the other dimensions); sums, differences, products and left
/// shifts by constants; the integer conversions that keep the low 32
/// bits; a variable's read as [`var_row_step`]. Anything else: `None`.
fn row_step(
    func: &Function,
    regions: &[&[Stmt]],
    v: ValueId,
    moving: (i64, i64),
    seen: &mut Vec<vecl_ir::VarId>,
    depth: u32,
) -> Option<i64> {
    let int = |x: ValueId| {
        matches!(
            class(func.ty(x)),
            Some(Class::I32 | Class::U32 | Class::I64 | Class::U64)
        )
    };
    if depth > 24 || !int(v) {
        return None;
    }
    if func.int_const(v).is_some() {
        return Some(0);
    }
    let d = depth + 1;
    let step =
        |x: ValueId, seen: &mut Vec<vecl_ir::VarId>| row_step(func, regions, x, moving, seen, d);
    let bounded = |s: i64| (s.abs() < 1 << 31).then_some(s);
    match &func.inst(v).inst {
        Inst::Param(_) => Some(0),
        Inst::WorkItem(f, Some(dim)) => {
            let dim = func.int_const(*dim)?;
            match f {
                WorkItemFn::GlobalId | WorkItemFn::LocalId => {
                    Some(if dim == moving.0 { moving.1 } else { 0 })
                }
                WorkItemFn::GroupId
                | WorkItemFn::LocalSize
                | WorkItemFn::EnqueuedLocalSize
                | WorkItemFn::NumGroups
                | WorkItemFn::GlobalSize
                | WorkItemFn::GlobalOffset => Some(0),
                _ => None,
            }
        }
        Inst::WorkItem(WorkItemFn::WorkDim, None) => Some(0),
        Inst::Convert { value, .. } if int(*value) => {
            use Class::*;
            match (class(func.ty(*value)), class(func.ty(v))) {
                (Some(f), Some(t)) if f == t => {}
                (Some(I32 | U32), Some(I32 | U32))
                | (Some(I64 | U64), Some(I32 | U32 | I64 | U64))
                | (Some(I32), Some(I64 | U64)) => {}
                _ => return None,
            }
            step(*value, seen)
        }
        Inst::Binary(op, a, b) => {
            let (ca, cb) = (func.int_const(*a), func.int_const(*b));
            match op {
                BinaryOp::Add => bounded(step(*a, seen)? + step(*b, seen)?),
                BinaryOp::Sub => bounded(step(*a, seen)? - step(*b, seen)?),
                BinaryOp::Mul => match (ca, cb) {
                    (_, Some(c)) => bounded(step(*a, seen)?.checked_mul(c)?),
                    (Some(c), _) => bounded(step(*b, seen)?.checked_mul(c)?),
                    _ => None,
                },
                BinaryOp::Shl => match cb {
                    Some(c) if (0..31).contains(&c) => {
                        bounded(step(*a, seen)?.checked_mul(1 << c)?)
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        Inst::ReadVar(var) => var_row_step(func, regions, *var, moving, seen),
        _ => None,
    }
}

/// The regions of a barrier kernel lowered ([`lower_regions`]).
pub struct LoweredRegions {
    /// One chunk's body per region.
    pub bodies: Vec<Program>,
    /// Bytes of a chunk's save area (64 per saved variable, 128 per `double`).
    pub save_bytes: u32,
    /// Where `$next` is in the save area (a region graph's).
    pub next_at: Option<i32>,
    /// Where the chunk that ran a skipping region last (`skips`) stored
    /// its lanes' test of the region's `if (lid < bound)`, as 0 / -1.
    pub skip_at: Option<i32>,
    /// Per region: `None` where the entry runs every chunk; where it
    /// skips the rest of a row's chunks once a chunk's last lane fails
    /// that test (`select::skip_tests`), the 64-byte save slots of the
    /// group-level variables the region writes, which each skipped chunk
    /// copies from the chunk before it.
    pub skips: Vec<Option<Vec<i32>>>,
    /// The save-area slots whose value in one row of a work-group is the
    /// previous row's plus a constant (modulo 2^32), by offset: the step
    /// (`var_row_step`; `rows::affine_parts`).
    pub row_steps: std::collections::HashMap<i32, i64>,
    /// The same from one full chunk of a row to the next (16 ids of
    /// dimension 0 further; 0: the same in every chunk of the row).
    pub chunk_steps: std::collections::HashMap<i32, i64>,
}

/// `stmts` without the `if` on `cond` (wherever it is nested).
fn without_if(stmts: &[Stmt], cond: ValueId) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::If { cond: c, .. } if *c == cond => {}
            Stmt::If {
                cond: c,
                then_,
                else_,
            } => out.push(Stmt::If {
                cond: *c,
                then_: Block(without_if(&then_.0, cond)),
                else_: Block(without_if(&else_.0, cond)),
            }),
            s => out.push(s.clone()),
        }
    }
    out
}

/// Marks the variables `stmts` read or write in `accessed`, and those it
/// writes in `written`.
fn var_uses(func: &Function, stmts: &[Stmt], accessed: &mut [bool], written: &mut [bool]) {
    for s in stmts {
        match s {
            Stmt::Eval(v) => {
                if let Inst::ReadVar(x) = func.inst(*v).inst {
                    accessed[x.index()] = true;
                }
            }
            Stmt::WriteVar(x, _) => {
                accessed[x.index()] = true;
                written[x.index()] = true;
            }
            Stmt::If { then_, else_, .. } => {
                var_uses(func, &then_.0, accessed, written);
                var_uses(func, &else_.0, accessed, written);
            }
            Stmt::Loop { body, continuing } => {
                var_uses(func, &body.0, accessed, written);
                var_uses(func, &continuing.0, accessed, written);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    var_uses(func, &c.body.0, accessed, written);
                }
            }
            _ => {}
        }
    }
}

/// The position of the first `return` in `stmts`.
fn first_return(func: &Function, stmts: &[Stmt]) -> Loc {
    for s in stmts {
        match s {
            Stmt::Return(Some(v)) => return func.inst(*v).loc,
            Stmt::If { then_, else_, .. } => {
                let l = first_return(func, &then_.0);
                if l.is_known() {
                    return l;
                }
                let l = first_return(func, &else_.0);
                if l.is_known() {
                    return l;
                }
            }
            Stmt::Loop { body, continuing } => {
                let l = first_return(func, &body.0);
                if l.is_known() {
                    return l;
                }
                let l = first_return(func, &continuing.0);
                if l.is_known() {
                    return l;
                }
            }
            _ => {}
        }
    }
    Loc::NONE
}

impl<'a> Cx<'a> {
    /// The lowering of a body of `func` (the whole kernel, or one region
    /// of a kernel with barriers: `locals_allowed`) into a new program
    /// whose first operation names the running lanes; `plain`, the
    /// writes no skipped lane reads (`unblended_writes`).
    fn new(
        func: &'a Function,
        uni: &'a Uniformity,
        slots: &'a [ArgSlot],
        plan: &'a MemoryPlan,
        locals_allowed: bool,
        plain: std::collections::HashSet<(vecl_ir::VarId, ValueId)>,
        lower: LowerOptions,
    ) -> Cx<'a> {
        let mut p = Program::new();
        let cur = p.k();
        p.push(Op::RunningLanes { d: cur });
        Cx {
            func,
            uni,
            slots,
            plan,
            p,
            vals: vec![None; func.insts.len()],
            vars: Vec::new(),
            cur,
            whole: true,
            loops: Vec::new(),
            depth: 0,
            small: vec![false; func.insts.len()],
            needed: super::live::needed(func),
            narrow: super::int64::Narrowing::new(func, lower.id_end),
            rsqrt_newton: lower.rsqrt_newton,
            locals_allowed,
            plain,
            all_or_none: true,
            empty: Default::default(),
            var_total: Default::default(),
            skip_test: None,
            next_locals: Default::default(),
            trig_wanted: Vec::new(),
            trig_done: Vec::new(),
            block_depth: 0,
        }
    }
}

impl Cx<'_> {
    /// Every variable that is read holds a value from the start, so that
    /// one written under a mask inside a loop has an old value to keep.
    ///
    /// `init(v)`: whether variable `v` needs that value; a region's body
    /// gives none to the variables it does not access, nor to those it
    /// reloads from the save area (or `$next`, set at its start).
    fn start_vars(&mut self, init: &dyn Fn(usize) -> bool) {
        let (func, cx) = (self.func, self);
        for (i, var) in func.vars.iter().enumerate() {
            let zero = init(i);
            let v = |cx: &mut Self| {
                if zero {
                    cx.p.splat_i32(0)
                } else {
                    cx.p.v()
                }
            };
            let repr = match (&var.ty, class(&var.ty)) {
                _ if !cx.needed.vars[i] => VarRepr::Unread,
                (_, Some(Class::Bool)) => {
                    let d = cx.p.k();
                    if zero {
                        cx.p.push(Op::KZero { d });
                    }
                    VarRepr::K(d)
                }
                (_, Some(Class::F64)) => VarRepr::D([v(cx), v(cx)]),
                (_, Some(_)) => VarRepr::V(v(cx)),
                (t, None) if vector_class(t).is_some() => {
                    let n = vector_class(t).map_or(0, |(_, n)| n);
                    let mut c = [V(0); 4];
                    for x in c.iter_mut().take(usize::from(n)) {
                        *x = v(cx);
                    }
                    VarRepr::Vs(c, n)
                }
                (Type::Pointer(..), None) => VarRepr::Ptr(None),
                _ => VarRepr::Other,
            };
            cx.vars.push(repr);
        }
    }
}

fn refuse<T>(what: impl Into<String>, loc: Loc) -> Lowered<T> {
    Err(Refusal {
        what: what.into(),
        loc,
    })
}

/// Whether `b` holds a `break`, `continue` or `return` that leaves it.
impl Cx<'_> {
    /// For a condition comparing the lanes' own id (`get_global_id` or
    /// `get_local_id` of the lanes' dimension: consecutive, below 2^31,
    /// no wrap) with a uniform bound, or a conjunction of such and uniform
    /// conditions: `Some(true)` when the lanes where it holds are a prefix
    /// of the chunk's (`i < n`), `Some(false)` a suffix (`i >= n`).
    fn id_bound(&self, cond: ValueId, depth: u32) -> Option<bool> {
        if depth > 8 {
            return None;
        }
        let is_id = |v: ValueId| {
            let mut v = v;
            for _ in 0..4 {
                match self.func.inst(v).inst {
                    // Not narrower than 32 bits: the ids fit.
                    Inst::Convert { value, .. }
                        if self.func.ty(value).scalar().is_some_and(|s| s.is_int())
                            && self.func.ty(v).scalar().is_some_and(|s| s.bits() >= 32) =>
                    {
                        v = value
                    }
                    Inst::WorkItem(WorkItemFn::GlobalId | WorkItemFn::LocalId, _) => {
                        return self.uni.shape(v) == Shape::Linear(1)
                    }
                    _ => return false,
                }
            }
            false
        };
        match self.func.inst(cond).inst {
            Inst::Cmp(op, a, b) => {
                let (op, bound) = if is_id(a) {
                    (op, b)
                } else if is_id(b) {
                    (op.swapped(), a)
                } else {
                    return None;
                };
                if self.uni.shape(bound) != Shape::Uniform {
                    return None;
                }
                match op {
                    CmpOp::Lt | CmpOp::Le => Some(true),
                    CmpOp::Gt | CmpOp::Ge => Some(false),
                    CmpOp::Eq | CmpOp::Ne => None,
                }
            }
            Inst::Binary(BinaryOp::And, a, b) => {
                let side = |v: ValueId| match self.uni.shape(v) {
                    Shape::Uniform => Some(None),
                    _ => self.id_bound(v, depth + 1).map(Some),
                };
                match (side(a)?, side(b)?) {
                    (Some(x), Some(y)) if x == y => Some(x),
                    (Some(x), None) | (None, Some(x)) => Some(x),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn exits(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Break | Stmt::Continue | Stmt::Return(_) => true,
        Stmt::If { then_, else_, .. } => exits(then_) || exits(else_),
        Stmt::Loop { body, continuing } => returns(body) || returns(continuing),
        _ => false,
    })
}

/// Whether `b` holds a `continue` of the loop around it (not one of a
/// loop inside it).
fn continues(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Continue => true,
        Stmt::If { then_, else_, .. } => continues(then_) || continues(else_),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| continues(&c.body)),
        _ => false,
    })
}

/// Drops the mask operations whose result nothing reads: a mask written
/// but never read (the exit mask of a loop without `return`, whose lanes
/// after it are those before it; the zero mask after a `break`), and,
/// transitively, the masks only those read. Only pure mask operations
/// (logic, copies, compares) go; every other operation keeps every mask
/// it names. A mask no one reads may hold anything, so dropping its
/// writes changes no result; a mandelbrot trip has four fewer mask
/// operations per chunk.
fn drop_unread_masks(p: &mut Program) {
    // The masks a pure operation reads, and the one it writes.
    fn pure(op: &Op) -> Option<(K, Vec<K>)> {
        Some(match *op {
            Op::KAnd { d, a, b }
            | Op::KAndNot { d, a, b }
            | Op::KOr { d, a, b }
            | Op::KXor { d, a, b } => (d, vec![a, b]),
            Op::KNot { d, a } | Op::KCopy { d, a } | Op::KHigh { d, a } => (d, vec![a]),
            Op::KJoin { d, lo, hi } => (d, vec![lo, hi]),
            Op::KZero { d } | Op::Compare2 { d, .. } => (d, vec![]),
            Op::Compare { d, within, .. } => (d, vec![within]),
            _ => return None,
        })
    }
    let named = std::cell::RefCell::new(std::collections::HashSet::new());
    for op in p.ops.iter().filter(|op| pure(op).is_none()) {
        op.map_regs(
            |v| v,
            |k| {
                named.borrow_mut().insert(k.0);
                k
            },
        );
    }
    let mut read = named.into_inner();
    loop {
        let before = read.len();
        for (d, srcs) in p.ops.iter().filter_map(pure) {
            if read.contains(&d.0) {
                read.extend(srcs.iter().map(|k| k.0));
            }
        }
        if read.len() == before {
            break;
        }
    }
    p.ops
        .retain(|op| pure(op).is_none_or(|(d, _)| read.contains(&d.0)));
}

/// How many operations back [`share_repeated_ops`] reuses a result: a
/// longer-lived value costs a register through everything between
/// (`erf_blackscholes.cl`'s body, unbounded, no longer fitted two chunks
/// in flight within their spill limit).
const SHARE_WITHIN: usize = 32;

/// Shares repeated lane operations: a `Bin` or `Un` of the same kind on
/// the same values as one before it in the same stretch of straight-line
/// code (no loop boundary, skipped region or entry step between) reads
/// the earlier result instead. A variable's read is a copy of its
/// register, so an operand is named by what it copies and that
/// register's version (its writes counted so far): mandelbrot's `zi * zi`
/// of its loop's test and of its next `zr`, two reads of `zi` with no
/// write between, are one product. Both results must be written once in
/// the program (fresh values, not variables), so the earlier one still
/// holds its value wherever the later one was read; and the earlier one
/// at most [`SHARE_WITHIN`] operations back.
fn share_repeated_ops(p: &mut Program) {
    use std::collections::HashMap;
    let mut writes: HashMap<u32, u32> = HashMap::new();
    for op in &p.ops {
        for v in super::ra2::written(op).0 {
            *writes.entry(v).or_default() += 1;
        }
    }
    let once = |v: V| writes.get(&v.0) == Some(&1);
    // Per register: writes met so far; per copy written once in this
    // stretch: the register and version it copied.
    let mut version: HashMap<u32, u32> = HashMap::new();
    let mut copied: HashMap<u32, (u32, u32)> = HashMap::new();
    // Where each earlier result was computed: one further back than
    // [`SHARE_WITHIN`] operations is computed again, not kept live.
    let mut seen: HashMap<String, (V, usize)> = HashMap::new();
    let mut rename: HashMap<u32, V> = HashMap::new();
    let ops = std::mem::take(&mut p.ops);
    for (at, op) in ops.into_iter().enumerate() {
        let op = op.map_regs(|v| rename.get(&v.0).copied().unwrap_or(v), |k| k);
        let name = |v: V, copied: &HashMap<u32, (u32, u32)>, version: &HashMap<u32, u32>| {
            copied
                .get(&v.0)
                .copied()
                .unwrap_or((v.0, version.get(&v.0).copied().unwrap_or(0)))
        };
        let key = match op {
            _ if op.ends_stretch() => {
                seen.clear();
                copied.clear();
                None
            }
            Op::Bin { op: o, d, a, b } if once(d) => Some((
                d,
                format!(
                    "{o:?} {:?} {:?}",
                    name(a, &copied, &version),
                    name(b, &copied, &version)
                ),
            )),
            Op::Un { op: o, d, a } if once(d) => {
                Some((d, format!("{o:?} {:?}", name(a, &copied, &version))))
            }
            Op::Copy { d, a } if once(d) => {
                copied.insert(d.0, name(a, &copied, &version));
                None
            }
            _ => None,
        };
        if let Some((d, key)) = key {
            match seen.get(&key) {
                Some(&(earlier, from)) if at - from <= SHARE_WITHIN => {
                    rename.insert(d.0, earlier);
                    continue;
                }
                _ => {
                    seen.insert(key, (d, at));
                }
            }
        }
        for w in super::ra2::written(&op).0 {
            *version.entry(w).or_default() += 1;
        }
        p.ops.push(op);
    }
}

/// How many operations name each register, read or written (an
/// operation naming it twice counts once).
fn mention_counts(ops: &[Op]) -> std::collections::HashMap<u32, u32> {
    let mut mentions = std::collections::HashMap::new();
    for op in ops {
        let named = std::cell::RefCell::new(std::collections::HashSet::new());
        op.map_regs(
            |v| {
                named.borrow_mut().insert(v.0);
                v
            },
            |k| k,
        );
        for v in named.into_inner() {
            *mentions.entry(v).or_default() += 1;
        }
    }
    mentions
}

/// How many operations write each register.
fn write_counts(ops: &[Op]) -> std::collections::HashMap<u32, u32> {
    let mut writes = std::collections::HashMap::new();
    for op in ops {
        for v in super::ra2::written(op).0 {
            *writes.entry(v).or_default() += 1;
        }
    }
    writes
}

/// An FMA whose addend is a negation read nowhere else (`t = x ^
/// -0.0; fma(a, b, t)`: the front end's contraction of `a * b - x`,
/// mandelbrot's `zr * zr - zi * zi`) becomes `vfmsub` of `x`: the same
/// value (the negation is exact, the product and sum rounded once
/// either way), one instruction fewer and one shorter in the chain. The
/// two must be in the same stretch of straight-line code, `x` not
/// written between.
fn subtract_negated_addends(p: &mut Program) {
    use std::collections::HashMap;
    let Some(sign) = p.constants.get(&0x8000_0000).copied() else {
        return;
    };
    let mentions = mention_counts(&p.ops);
    let writes = write_counts(&p.ops);
    // Negations read only by one FMA as its addend: where they are, and
    // what they negate.
    let mut negated: HashMap<u32, (usize, V)> = HashMap::new();
    let mut fused: Vec<(usize, usize)> = Vec::new();
    for (i, op) in p.ops.iter().enumerate() {
        match *op {
            Op::Bin {
                op: Bin::IXor,
                d,
                a,
                b,
            } if b == sign
                && a != d
                && writes.get(&d.0) == Some(&1)
                && mentions.get(&d.0) == Some(&2) =>
            {
                negated.insert(d.0, (i, a));
            }
            Op::Fma { c, a, b, .. } if a != c && b != c => {
                if let Some((at, x)) = negated.remove(&c.0) {
                    // In the same stretch of straight-line code (a loop
                    // between would read a later trip's `x`), `x`
                    // unwritten between.
                    let clean = p.ops[at + 1..i]
                        .iter()
                        .all(|op| !op.ends_stretch() && !super::ra2::written(op).0.contains(&x.0));
                    if clean {
                        fused.push((at, i));
                    }
                }
            }
            _ => {}
        }
        for w in super::ra2::written(op).0 {
            negated.retain(|_, (_, x)| x.0 != w);
        }
    }
    for &(at, i) in &fused {
        let (Op::Bin { a: x, .. }, Op::Fma { d, a, b, .. }) = (p.ops[at].clone(), p.ops[i].clone())
        else {
            continue;
        };
        p.ops[i] = Op::Fms { d, a, b, c: x };
    }
    let drop: std::collections::HashSet<usize> = fused.iter().map(|&(at, _)| at).collect();
    let mut i = 0;
    p.ops.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}

/// A lane operation whose only reader is the merge under a mask right
/// after it (`t = a + b; var = t` in the lanes of `k`: a variable written
/// under a branch or a loop's mask, mandelbrot's `i++`) becomes the
/// operation merged under the mask (`vpaddd var{k}, a, b`): one
/// instruction instead of two, the same lanes written.
fn merge_masked_writes(p: &mut Program) {
    let mentions = mention_counts(&p.ops);
    let ops = std::mem::take(&mut p.ops);
    let mut i = 0;
    while i < ops.len() {
        if let (Some(Op::Bin { op, d: t, a, b }), Some(Op::MaskedCopy { d, a: from, k })) =
            (ops.get(i), ops.get(i + 1))
        {
            let packs = op.moves_lanes();
            if !packs && from == t && mentions.get(&t.0) == Some(&2) && ![*a, *b, *d].contains(t) {
                p.ops.push(Op::BinMasked {
                    op: *op,
                    d: *d,
                    a: *a,
                    b: *b,
                    k: *k,
                });
                i += 2;
                continue;
            }
        }
        p.ops.push(ops[i].clone());
        i += 1;
    }
    merge_masked_fmas(p, &mentions);
}

/// An FMA whose only reader is a merge under a mask into the variable
/// whose old value is its addend, later in the same straight-line stretch
/// (`acc = fma(x, y, acc)` in the lanes of `k`; a vector's components are
/// written one after another once all are computed), becomes
/// `vfmadd231ps acc{k}, x, y` at the FMA's place ([`Op::FmaMasked`]): no
/// copy of the addend, no merge, and one link less in the chain through
/// the variable. Nothing between may name the variable or write the mask.
fn merge_masked_fmas(p: &mut Program, mentions: &std::collections::HashMap<u32, u32>) {
    let mut merged: Vec<(usize, usize, Op)> = Vec::new();
    for (j, op) in p.ops.iter().enumerate() {
        let Op::MaskedCopy { d, a: t, k } = *op else {
            continue;
        };
        if mentions.get(&t.0) != Some(&2) {
            continue;
        }
        let Some(i) = p.ops[..j]
            .iter()
            .rposition(|op| super::ra2::written(op).0.contains(&t.0))
        else {
            continue;
        };
        let Op::Fma { a, b, c, .. } = p.ops[i] else {
            continue;
        };
        if [a, b, c, d].contains(&t) {
            continue;
        }
        let clear = p.ops[i + 1..j].iter().all(|op| {
            !names(op, d)
                && !super::ra2::written(op).1.contains(&k.0)
                && !matches!(
                    op,
                    Op::Loop
                        | Op::WhileAny { .. }
                        | Op::WhileCount { .. }
                        | Op::IfAny { .. }
                        | Op::EndIf
                )
        });
        if clear && holds_old_value(&p.ops[..i], c, d) {
            merged.push((i, j, Op::FmaMasked { d, a, b, k }));
        }
    }
    let drop: std::collections::HashSet<usize> = merged.iter().map(|m| m.1).collect();
    for (i, _, op) in merged {
        p.ops[i] = op;
    }
    let mut at = 0;
    p.ops.retain(|_| {
        at += 1;
        !drop.contains(&(at - 1))
    });
}

/// An FMA of doubles whose only reader is the merge of one half of a
/// `double` variable under a mask (`Cx::dmerge`'s merge-masked `vporq`)
/// whose old value is its addend, later in the same straight-line
/// stretch, becomes `vfmadd231pd acc{k}, x, y` at the merge's place
/// ([`Op::FmaDMasked`]), as [`merge_masked_fmas`] does for floats (there
/// at the FMA's place; here the second half's mask is made after the
/// FMAs, so the factors must stay unwritten until the merge instead).
fn merge_masked_double_fmas(p: &mut Program) {
    let mentions = mention_counts(&p.ops);
    let mut merged: Vec<(usize, usize, Op)> = Vec::new();
    for (j, op) in p.ops.iter().enumerate() {
        let Op::BinMasked {
            op: Bin::QOr,
            d,
            a: t,
            b,
            k,
        } = *op
        else {
            continue;
        };
        if b != t || mentions.get(&t.0) != Some(&2) {
            continue;
        }
        let Some(i) = p.ops[..j]
            .iter()
            .rposition(|op| super::ra2::written(op).0.contains(&t.0))
        else {
            continue;
        };
        let Op::FmaD { a, b, c, .. } = p.ops[i] else {
            continue;
        };
        if [a, b, c, d].contains(&t) {
            continue;
        }
        let clear = p.ops[i + 1..j].iter().all(|op| {
            let written = super::ra2::written(op).0;
            !names(op, d)
                && !written.contains(&a.0)
                && !written.contains(&b.0)
                && !op.ends_stretch()
        });
        if clear && holds_old_value(&p.ops[..i], c, d) {
            merged.push((i, j, Op::FmaDMasked { d, a, b, k }));
        }
    }
    let drop: std::collections::HashSet<usize> = merged.iter().map(|m| m.0).collect();
    for (_, j, op) in merged {
        p.ops[j] = op;
    }
    let mut at = 0;
    p.ops.retain(|_| {
        at += 1;
        !drop.contains(&(at - 1))
    });
}

/// Whether `op` reads or writes the vector register `v`.
fn names(op: &Op, v: V) -> bool {
    let found = std::cell::Cell::new(false);
    op.map_regs(
        |x| {
            if x == v {
                found.set(true);
            }
            x
        },
        |k| k,
    );
    found.get()
}

/// Whether `c`, read by the operation after `before`, holds the value
/// `d` has there: `c` is `d`, or a copy of it made in the same
/// straight-line stretch with no write of `d` since (a variable's read
/// is a copy of its register). An FMA adding `c` and merged into `d`
/// under a mask is then `d{k} += a · b` ([`Op::FmaMasked`]): nbody's
/// `acc += d * s` in its loop over the tile.
fn holds_old_value(before: &[Op], c: V, d: V) -> bool {
    if c == d {
        return true;
    }
    for op in before.iter().rev() {
        if matches!(
            op,
            Op::Loop | Op::WhileAny { .. } | Op::WhileCount { .. } | Op::IfAny { .. } | Op::EndIf
        ) {
            return false;
        }
        let (wv, _) = super::ra2::written(op);
        if wv.contains(&c.0) {
            return *op == Op::Copy { d: c, a: d };
        }
        if wv.contains(&d.0) {
            return false;
        }
    }
    false
}

/// A chain of FMAs whose result is merged into a variable under a mask
/// (`t1 = fma(a1, b1, v); t2 = fma(a2, b2, t1); v = t2` in the lanes of
/// `k`: an accumulator in a loop the middle passes unrolled, matmul's
/// `acc` in its `k` loop) becomes the FMAs merged into the variable
/// (`vfmadd231ps v{k}, a1, b1`, then `a2, b2`), without the copy of `v`
/// the first FMA's addend needed and the merge after the last: the lanes
/// of `k` get the same roundings in the same order, the others keep `v`.
/// Each link's result is read only by the next link as its addend,
/// possibly through plain copies (a temporary variable's write and read,
/// `ra2::read_before_written`'s kind: its register's other writes, such
/// as a start value, are then read by no one); the chain lies in one
/// stretch of straight-line code and starts at `v` itself or a copy of
/// it; between its first operation and the merge no other operation
/// names `v` and none writes `k`.
fn merge_masked_fma_chains(p: &mut Program) {
    use std::collections::{HashMap, HashSet};
    // Per value, the operations that read it (a merge reads what it
    // writes).
    let mut readers: HashMap<u32, u32> = HashMap::new();
    for op in &p.ops {
        let all = std::cell::RefCell::new(Vec::new());
        op.map_regs(
            |v| {
                all.borrow_mut().push(v.0);
                v
            },
            |k| k,
        );
        let mut all = all.into_inner();
        let merges = op.reads_destination();
        if !merges {
            for w in super::ra2::written(op).0 {
                if let Some(at) = all.iter().position(|&v| v == w) {
                    all.remove(at);
                }
            }
        }
        all.sort_unstable();
        all.dedup();
        for v in all {
            *readers.entry(v).or_default() += 1;
        }
    }
    let mut merged: HashMap<usize, Op> = HashMap::new();
    let mut dropped: HashSet<usize> = HashSet::new();
    for (j, op) in p.ops.iter().enumerate() {
        let Op::MaskedCopy { d: var, a: last, k } = *op else {
            continue;
        };
        // From the merge back to the variable: the links (FMAs) and the
        // plain copies between them, each the write of its value nearest
        // before the operation that reads it, in the same stretch.
        let (mut links, mut copies, mut x, mut after) = (Vec::new(), Vec::new(), last, j);
        let found = loop {
            if x == var {
                break true;
            }
            if readers.get(&x.0) != Some(&1) {
                break false;
            }
            let def = (0..after).rev().find(|&i| {
                p.ops[i].ends_stretch() || super::ra2::written(&p.ops[i]).0.contains(&x.0)
            });
            let Some(i) = def.filter(|&i| !p.ops[i].ends_stretch()) else {
                break false;
            };
            after = i;
            match p.ops[i] {
                Op::Fma { d, a, b, c } if d == x && ![a, b, d].contains(&c) => {
                    links.push(i);
                    x = c;
                }
                Op::Copy { d, a } if d == x && a != d => {
                    copies.push(i);
                    x = a;
                }
                _ => break false,
            }
        };
        if !found || links.is_empty() {
            continue;
        }
        // `after`: the chain's first operation, which reads `v` (as its
        // addend or the source of its copy) and only so.
        let first_reads_only = match p.ops[after] {
            Op::Fma { a, b, .. } => a != var && b != var,
            _ => true,
        };
        let chain: HashSet<usize> = links.iter().chain(&copies).copied().collect();
        let straight = p.ops[after + 1..j].iter().all(|op| {
            !op.ends_stretch() && !names(op, var) && !super::ra2::written(op).1.contains(&k.0)
        });
        if !first_reads_only
            || !straight
            || chain
                .iter()
                .any(|i| merged.contains_key(i) || dropped.contains(i))
        {
            continue;
        }
        for &i in &links {
            if let Op::Fma { a, b, .. } = p.ops[i] {
                merged.insert(i, Op::FmaMasked { d: var, a, b, k });
            }
        }
        dropped.extend(copies);
        dropped.insert(j);
    }
    splice(p, merged, &dropped);
}

/// A uniform load without a mask test (`how`: uniform, lane 0 running,
/// unchecked) inside a loop, whose index is the sum of a value written
/// once before that loop (outside skipped regions, not a constant or
/// the id) and one written in it (matmul's `ta[ly][k]`: `ly * 16`, moved out of the `k` loop, plus
/// `k`), becomes an [`Op::LoadSum`]: the entry keeps the first part's
/// lane 0 as an address in its frame, written where that part is, and
/// the loop's trip reads it (`mov`) where it added the parts' lanes and
/// moved the sum's lane 0 to a general register (`vpaddd`, `vmovd`,
/// `movsxd`); rows in flight that load with the same second part (`k`)
/// move its lane 0 once. The sum is no longer computed when the load was
/// its only reader. Barrier kernels' regions only (the frame's slots,
/// `regions`).
fn split_uniform_indices(p: &mut Program) {
    use std::collections::{HashMap, HashSet};
    let writes = write_counts(&p.ops);
    let mentions = mention_counts(&p.ops);
    let mut def_at: HashMap<u32, usize> = HashMap::new();
    // The innermost loop around each operation (its `Loop`'s index), and
    // whether it is in a skipped region.
    let mut loop_of: Vec<Option<usize>> = Vec::with_capacity(p.ops.len());
    let mut skipped_at: Vec<bool> = Vec::with_capacity(p.ops.len());
    let (mut open, mut skipped) = (Vec::new(), 0usize);
    for (i, op) in p.ops.iter().enumerate() {
        match op {
            Op::Loop => open.push(i),
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                open.pop();
            }
            Op::IfAny { .. } => skipped += 1,
            Op::EndIf => skipped = skipped.saturating_sub(1),
            _ => {}
        }
        loop_of.push(open.last().copied());
        skipped_at.push(skipped > 0);
        for v in super::ra2::written(op).0 {
            def_at.insert(v, i);
        }
    }
    let once = |v: V| writes.get(&v.0) == Some(&1);
    let mut split: HashMap<usize, Op> = HashMap::new();
    let mut dropped: HashSet<usize> = HashSet::new();
    for (i, op) in p.ops.iter().enumerate() {
        let Op::LoadElems {
            d,
            ptr,
            idx,
            k,
            how,
        } = *op
        else {
            continue;
        };
        let (Some(l), true) = (loop_of[i], how.uniform && how.lane0 && how.check.is_none()) else {
            continue;
        };
        let Some(&j) = def_at.get(&idx.0).filter(|_| once(idx)) else {
            continue;
        };
        let Op::Bin {
            op: Bin::IAdd,
            a,
            b,
            ..
        } = p.ops[j]
        else {
            continue;
        };
        // Computed by an operation the allocator keeps (not a constant,
        // which may live in the pool, nor the id, which may be dropped).
        let before = |v: V| {
            once(v)
                && def_at.get(&v.0).is_some_and(|&at| {
                    at < l
                        && !skipped_at[at]
                        && !matches!(
                            p.ops[at],
                            Op::Splat { .. } | Op::SplatQ { .. } | Op::GlobalId { .. }
                        )
                })
        };
        let parts = match (before(a), before(b)) {
            (true, false) => (a, b),
            (false, true) => (b, a),
            _ => continue,
        };
        let (part, rest) = parts;
        split.insert(
            i,
            Op::LoadSum {
                d,
                ptr,
                idx: rest,
                part,
                disp: 0,
                k,
                how,
            },
        );
        // The load the sum's only reader: the sum goes.
        if mentions.get(&idx.0) == Some(&2) {
            dropped.insert(j);
        }
    }
    splice(p, split, &dropped);
}

/// A load of a sum ([`Op::LoadSum`]: matmul's `ta[ly][k]`) whose only
/// reader is an FMA merged into a variable ([`Op::FmaMasked`]) under the
/// same mask, one of its factors, later in the same stretch of
/// straight-line code, becomes that FMA with the element as its broadcast
/// memory operand ([`Op::FmaSum`], `vfmadd231ps d{k}, b,
/// [r11 + 4 · r10]{1to16}`): one instruction per row and `k` fewer, and
/// no register for the broadcast. The load zeroed the lanes outside `k`,
/// which the FMA then kept, so the lanes of `k` get the same rounding and
/// the others keep `d`. The element is read at the FMA's place, so nothing
/// between writes the mask, the index's parts or memory (a store of any
/// kind). With the load as the FMA's first factor the factors swap: the
/// same product, a NaN payload aside when both are NaNs (x86 keeps the
/// first NaN operand's; the Cranelift code's order differs as well).
fn fuse_sum_loads(p: &mut Program) {
    use std::collections::{HashMap, HashSet};
    let mentions = mention_counts(&p.ops);
    let writes = write_counts(&p.ops);
    let mut fused: HashMap<usize, Op> = HashMap::new();
    let mut dropped: HashSet<usize> = HashSet::new();
    for (i, op) in p.ops.iter().enumerate() {
        let Op::LoadSum {
            d: t,
            ptr,
            idx,
            part,
            disp,
            k,
            how,
        } = *op
        else {
            continue;
        };
        if mentions.get(&t.0) != Some(&2) || writes.get(&t.0) != Some(&1) {
            continue;
        }
        // The reader, in the same stretch with nothing between that
        // changes what the load would read or under which lanes.
        let mut reader = None;
        for (j, op) in p.ops.iter().enumerate().skip(i + 1) {
            if names(op, t) {
                reader = Some(j);
                break;
            }
            let (wv, wk) = super::ra2::written(op);
            if op.ends_stretch()
                || matches!(op, Op::Store { .. } | Op::StoreElems { .. })
                || wk.contains(&k.0)
                || wv.contains(&idx.0)
                || wv.contains(&part.0)
            {
                break;
            }
        }
        let Some(j) = reader else {
            continue;
        };
        let Op::FmaMasked { d, a, b, k: kf } = p.ops[j] else {
            continue;
        };
        let other = match (a == t, b == t) {
            (true, false) => b,
            (false, true) => a,
            _ => continue,
        };
        if kf != k || d == t || d == other || fused.contains_key(&j) {
            continue;
        }
        fused.insert(
            j,
            Op::FmaSum {
                d,
                b: other,
                ptr,
                idx,
                part,
                disp,
                k,
                how,
            },
        );
        dropped.insert(i);
    }
    splice(p, fused, &dropped);
}

/// Rewrites `p`'s operations: the one at each index of `replaced` by its
/// replacement, those of `dropped` left out, the rest kept in order.
fn splice(
    p: &mut Program,
    mut replaced: std::collections::HashMap<usize, Op>,
    dropped: &std::collections::HashSet<usize>,
) {
    if replaced.is_empty() && dropped.is_empty() {
        return;
    }
    let ops = std::mem::take(&mut p.ops);
    for (i, op) in ops.into_iter().enumerate() {
        if let Some(r) = replaced.remove(&i) {
            p.ops.push(r);
        } else if !dropped.contains(&i) {
            p.ops.push(op);
        }
    }
}

/// Every value `stmts` read: the operands of its instructions and the
/// values its statements name (into `out`).
fn values_read(func: &Function, stmts: &[Stmt], out: &mut std::collections::HashSet<ValueId>) {
    for s in stmts {
        match s {
            Stmt::Eval(v) => out.extend(func.inst(*v).inst.operands()),
            Stmt::WriteVar(_, v) | Stmt::Return(Some(v)) => {
                out.insert(*v);
            }
            Stmt::Store { ptr, value, .. } => out.extend([*ptr, *value]),
            Stmt::Copy { dst, src, .. } => out.extend([*dst, *src]),
            Stmt::If { cond, then_, else_ } => {
                out.insert(*cond);
                values_read(func, &then_.0, out);
                values_read(func, &else_.0, out);
            }
            Stmt::Loop { body, continuing } => {
                values_read(func, &body.0, out);
                values_read(func, &continuing.0, out);
            }
            Stmt::Switch { selector, cases } => {
                out.insert(*selector);
                for c in cases {
                    values_read(func, &c.body.0, out);
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

/// Whether `b` holds a loop.
fn has_loop(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::If { then_, else_, .. } => has_loop(then_) || has_loop(else_),
        Stmt::Loop { .. } => true,
        _ => false,
    })
}

fn returns(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::If { then_, else_, .. } => returns(then_) || returns(else_),
        Stmt::Loop { body, continuing } => returns(body) || returns(continuing),
        _ => false,
    })
}

impl Cx<'_> {
    fn loc(&self, v: ValueId) -> Loc {
        self.func.inst(v).loc
    }

    fn val(&self, v: ValueId) -> Lowered<Val> {
        self.vals[v.index()].ok_or_else(|| Refusal {
            what: format!("value %{} used before it is lowered", v.0),
            loc: self.loc(v),
        })
    }

    fn vec(&self, v: ValueId) -> Lowered<V> {
        match self.val(v)? {
            Val::V(x) => Ok(x),
            _ => refuse(format!("%{} is not a lane value", v.0), self.loc(v)),
        }
    }

    /// A `double` value's two halves ([`Val::D`]).
    fn dval(&self, v: ValueId) -> Lowered<[V; 2]> {
        match self.val(v)? {
            Val::D(x) => Ok(x),
            _ => refuse(format!("%{} is not a double value", v.0), self.loc(v)),
        }
    }

    /// Every double of both halves the constant bits.
    fn dsplat(&mut self, bits: u64) -> [V; 2] {
        let c = self.p.constant_q(bits);
        [c, c]
    }

    /// `op` of two `double` values, half by half.
    fn dbin(&mut self, op: Bin, a: [V; 2], b: [V; 2]) -> [V; 2] {
        [0, 1].map(|h| self.p.bin(op, a[h], b[h]))
    }

    /// The masks of a 16-lane mask's two halves of eight doubles: its
    /// low eight bits (which an operation on eight doubles reads) and
    /// the next eight.
    fn halves(&mut self, k: K) -> [K; 2] {
        let hi = self.k_op(|d| Op::KHigh { d, a: k });
        [k, hi]
    }

    /// `d = a` in the lanes of the 16-lane mask `k` (a merge-masked
    /// `vporq` per half), `d` unchanged in the others.
    fn dmerge(&mut self, k: K, d: [V; 2], a: [V; 2]) {
        let m = self.halves(k);
        for h in 0..2 {
            self.p.push(Op::BinMasked {
                op: Bin::QOr,
                d: d[h],
                a: a[h],
                b: a[h],
                k: m[h],
            });
        }
    }

    /// `k ? a : b` per lane of two `double` values.
    fn dselect(&mut self, k: K, a: [V; 2], b: [V; 2]) -> [V; 2] {
        let d = [0, 1].map(|h| self.v_op(|d| Op::Copy { d, a: b[h] }));
        self.dmerge(k, d, a);
        d
    }

    /// The 16-lane mask of a `vcmppd` predicate of two `double` values.
    fn dcompare(&mut self, pred: u8, a: [V; 2], b: [V; 2]) -> K {
        let [lo, hi] = [0, 1].map(|h| {
            self.k_op(|d| Op::Compare2 {
                kind: CmpKind::F64,
                pred,
                d,
                a: a[h],
                b: b[h],
            })
        });
        self.k_op(|d| Op::KJoin { d, lo, hi })
    }

    /// The lanes of a `double` value's memory image, two 32-bit words per
    /// element (`lo` the low words of the 16 elements, `hi` the high
    /// ones), as its two halves.
    fn double_of_words(&mut self, lo: V, hi: V) -> [V; 2] {
        [
            self.p.bin(Bin::ZipLow, lo, hi),
            self.p.bin(Bin::ZipHigh, lo, hi),
        ]
    }

    /// A load of `double` elements at `idx` (in 4-byte words) through
    /// the pointer in slot `ptr`, made as `how`: as a `float2`'s memory
    /// image, two halves of eight elements where [`pairs`] allows (the
    /// halves are the value's), else a component (a word) at a time,
    /// interleaved into doubles.
    fn load_double(&mut self, ptr: i32, idx: V, k: K, how: Access, known: bool) -> [V; 2] {
        if pairs(&how) {
            return [0, 1].map(|h| {
                let how = double_half(how, h, known);
                self.v_op(|d| Op::LoadElems {
                    d,
                    ptr,
                    idx,
                    k,
                    how,
                })
            });
        }
        let [hi, lo] = [1, 0].map(|c| {
            let idx = self.component_index(idx, c);
            let how = component_access(how, c);
            self.v_op(|d| Op::LoadElems {
                d,
                ptr,
                idx,
                k,
                how,
            })
        });
        // (One address for every lane too: the broadcasts fill the
        // running lanes alone, so each lane's double is its own words.)
        self.double_of_words(lo, hi)
    }

    /// Whether the lanes of an access of `double`s through `v` (the
    /// pointer `ptr`) address consecutive elements: the uniformity
    /// analysis finds them 8 bytes apart and the index's form two words
    /// apart lane to lane ([`Pointer::step`]).
    fn consecutive_doubles(&self, v: ValueId, ptr: Pointer) -> bool {
        ptr.step == Some(2) && self.uni.shape(v) == Shape::Linear(8)
    }

    /// A store of the `double` lanes `x`, as [`Cx::load_double`] loads
    /// them (the high words first: an element past the end faults before
    /// any of its words is written).
    fn store_double(&mut self, x: [V; 2], ptr: i32, idx: V, k: K, how: Access, known: bool) {
        if pairs(&how) {
            for (h, a) in x.into_iter().enumerate() {
                self.p.push(Op::StoreElems {
                    a,
                    ptr,
                    idx,
                    k,
                    how: double_half(how, h as u8, known),
                });
            }
            return;
        }
        let words = self.words_of_double(x);
        for c in [1, 0] {
            let idx = self.component_index(idx, c);
            let how = component_access(how, c);
            self.p.push(Op::StoreElems {
                a: words[c],
                ptr,
                idx,
                k,
                how,
            });
        }
    }

    /// Mask `k` stored as 0 / -1 lanes into the save area at `at`.
    fn store_lanes(&mut self, k: K, at: i32) {
        let (ones, zero) = (self.splat(u32::MAX), self.splat(0));
        let t = self.v_op(|d| Op::Select {
            d,
            k,
            a: ones,
            b: zero,
        });
        self.p.push(Op::Store {
            a: t,
            arg: Arg::Save,
            off: at,
        });
    }

    /// A `double` value's elements' low and high 32-bit words.
    fn words_of_double(&mut self, x: [V; 2]) -> [V; 2] {
        [
            self.p.bin(Bin::UnzipEven, x[0], x[1]),
            self.p.bin(Bin::UnzipOdd, x[0], x[1]),
        ]
    }

    fn mask(&self, v: ValueId) -> Lowered<K> {
        match self.val(v)? {
            Val::K(x) => Ok(x),
            _ => refuse(format!("%{} is not a mask", v.0), self.loc(v)),
        }
    }

    fn k_op(&mut self, f: impl FnOnce(K) -> Op) -> K {
        let d = self.p.k();
        self.p.push(f(d));
        d
    }

    fn v_op(&mut self, f: impl FnOnce(V) -> Op) -> V {
        let d = self.p.v();
        self.p.push(f(d));
        d
    }

    fn block(&mut self, b: &Block) -> Lowered<()> {
        self.block_depth += 1;
        self.find_trig_pairs(b);
        for (i, s) in b.0.iter().enumerate() {
            if let Stmt::Loop { .. } = s {
                self.next_locals =
                    super::loop_local::loop_local_vars(self.func, &b.0, i, &self.var_total);
            }
            self.stmt(s)?;
        }
        let depth = self.block_depth;
        self.trig_wanted.retain(|w| w.1 < depth);
        self.trig_done.retain(|d| d.1 < depth);
        self.block_depth -= 1;
        Ok(())
    }

    /// The `sin` or `cos` (or their `native_`/`half_` forms) of a scalar
    /// float that `v` is, as (argument, 0 for `sin` or 1 for `cos`).
    fn trig_call(&self, v: ValueId) -> Option<(TrigArg, usize)> {
        let Inst::Builtin(name, args) = &self.func.inst(v).inst else {
            return None;
        };
        let which = match name.math_base().name() {
            "sin" => 0,
            "cos" => 1,
            _ => return None,
        };
        let [a] = args[..] else { return None };
        if !matches!(self.func.ty(a), Type::Scalar(Scalar::F32)) {
            return None;
        }
        let arg = match self.func.inst(a).inst {
            Inst::ReadVar(var) if matches!(self.vars[var.index()], VarRepr::V(_)) => {
                TrigArg::Var(var.index())
            }
            _ => TrigArg::Value(a),
        };
        Some((arg, which))
    }

    /// Records the arguments of which `b`'s own statements take both the
    /// sine and the cosine: the first of the two calls computes both
    /// (one reduction, one skipped region past 2^20), the second reuses
    /// the result. Only within one block: the first call's value reaches
    /// every later statement of its block and nothing outside it (a
    /// nested arm may be skipped, a loop run no trip).
    fn find_trig_pairs(&mut self, b: &Block) {
        let calls: Vec<(TrigArg, usize)> =
            b.0.iter()
                .filter_map(|s| match s {
                    Stmt::Eval(v) => self.trig_call(*v),
                    _ => None,
                })
                .collect();
        for (arg, which) in &calls {
            if *which == 0
                && calls.contains(&(*arg, 1))
                && !self.trig_wanted.contains(&(*arg, self.block_depth))
            {
                self.trig_wanted.push((*arg, self.block_depth));
            }
        }
    }

    /// A `sin` or `cos` call `v` of an argument whose other function the
    /// block also takes: both computed at the first call, the other's
    /// result kept for the second.
    fn trig_pair(&mut self, v: ValueId) -> Lowered<Option<V>> {
        let Some((arg, which)) = self.trig_call(v) else {
            return Ok(None);
        };
        let depth = self.block_depth;
        if let Some(d) = self.trig_done.iter().find(|d| d.0 == arg && d.1 == depth) {
            return Ok(Some(d.2[which]));
        }
        if !self.trig_wanted.contains(&(arg, depth)) {
            return Ok(None);
        }
        let Inst::Builtin(_, args) = &self.func.inst(v).inst else {
            return Ok(None);
        };
        let x = self.vec(args[0])?;
        let both = dmath::sin_cos(&mut self.p, x);
        self.trig_done.push((arg, depth, both));
        Ok(Some(both[which]))
    }

    fn stmt(&mut self, s: &Stmt) -> Lowered<()> {
        match s {
            Stmt::Eval(v) if !self.needed.values[v.index()] => {}
            Stmt::WriteVar(var, _) if !self.needed.vars[var.index()] => {}
            Stmt::Eval(v) => {
                let val = self.inst(*v)?;
                self.vals[v.index()] = val;
                self.small[v.index()] = match &self.func.inst(*v).inst {
                    Inst::WorkItem(..) => true,
                    Inst::Const(_) => self
                        .func
                        .int_const(*v)
                        .is_some_and(|x| (0..=i64::from(i32::MAX)).contains(&x)),
                    Inst::Convert { value, .. } => {
                        self.small[value.index()]
                            && class(self.func.ty(*v))
                                .is_some_and(|c| !matches!(c, Class::Bool | Class::I8))
                    }
                    _ => false,
                } || self.narrow.small(*v);
            }
            Stmt::WriteVar(var, v) => {
                // A loop's own variable written under the loop's lanes of
                // the trip: every lane (`super::loop_local`).
                let local = self
                    .loops
                    .last()
                    .is_some_and(|l| l.lanes == Some(self.cur) && l.locals.contains(var));
                let plain = local || self.plain.contains(&(*var, *v));
                let whole = self.whole;
                self.whole = whole || plain;
                let done = self.write_var(var.index(), *v);
                self.whole = whole;
                done?
            }
            Stmt::Store { ptr, value, loc } => {
                let p = match self.val(*ptr)? {
                    Val::Ptr(p) => p,
                    _ => {
                        return refuse("a store through a pointer that is not an argument's", *loc)
                    }
                };
                self.elem_class(*ptr, *loc)?;
                let how = self.access(*ptr, p, false);
                let idx = self.index_of(p);
                let k = self.cur;
                if let Some(signed) = byte_scalar(self.func.ty(*value)) {
                    // The lanes' low bytes (a byte value's lane holds its
                    // extension).
                    let how = self.byte_access(*ptr, how, signed);
                    let a = self.vec(*value)?;
                    self.p.push(Op::StoreElems {
                        a,
                        ptr: p.slot,
                        idx,
                        k,
                        how,
                    });
                    return Ok(());
                }
                if let Some(signed) = byte_vector(self.func.ty(*value)) {
                    // Four bytes packed into one 32-bit element.
                    let a = self.pack_bytes(*value, signed)?;
                    self.p.push(Op::StoreElems {
                        a,
                        ptr: p.slot,
                        idx,
                        k,
                        how,
                    });
                    return Ok(());
                }
                if class(self.func.ty(*value)) == Some(Class::F64) {
                    let x = self.dval(*value)?;
                    let known = self.consecutive_doubles(*ptr, p);
                    self.store_double(x, p.slot, idx, k, how, known);
                    return Ok(());
                }
                // A vector: each component through its own element.
                let (values, n) = match self.val(*value)? {
                    Val::Vs(c, n) => (c, n),
                    _ => ([self.vec(*value)?; 4], 1),
                };
                if n == 2 && pairs(&how) {
                    // The elements' memory image, lanes 0-7 then 8-15
                    // (in the order of the work-items).
                    let lo = self.p.bin(Bin::ZipLow, values[0], values[1]);
                    let hi = self.p.bin(Bin::ZipHigh, values[0], values[1]);
                    for (h, a) in [lo, hi].into_iter().enumerate() {
                        self.p.push(Op::StoreElems {
                            a,
                            ptr: p.slot,
                            idx,
                            k,
                            how: pair_half(how, h as u8),
                        });
                    }
                    return Ok(());
                }
                // The last component first: an element past the end
                // faults before any of its components is written.
                for c in (0..usize::from(n)).rev() {
                    let idx = self.component_index(idx, c);
                    let how = component_access(how, c);
                    self.p.push(Op::StoreElems {
                        a: values[c],
                        ptr: p.slot,
                        idx,
                        k,
                        how,
                    });
                }
            }
            Stmt::If { cond, then_, else_ } => {
                let c = self.mask(*cond)?;
                let (base, whole) = (self.cur, self.whole);
                let before = self.all_or_none;
                let uniform = self.uni.shape(*cond) == Shape::Uniform;
                // A test of the lanes' id against a uniform bound keeps
                // lane 0 in an arm whenever the arm has a lane (`if (i <
                // n)`, the rest after `if (i >= n) return;`).
                let (then_lane0, else_lane0) = match self.id_bound(*cond, 0) {
                    _ if uniform => (true, true),
                    Some(prefix) => (prefix, !prefix),
                    None => (false, false),
                };
                self.depth += 1;
                self.whole = false;
                self.all_or_none = before && then_lane0;
                self.cur = self.k_op(|d| Op::KAnd { d, a: base, b: c });
                if let Some((_, at)) = self.skip_test.filter(|t| t.0 == *cond) {
                    let k = self.cur;
                    self.store_lanes(k, at);
                }
                self.arm(then_)?;
                let then_out = self.cur;
                self.all_or_none = before && else_lane0;
                self.cur = self.k_op(|d| Op::KAndNot { d, a: base, b: c });
                self.arm(else_)?;
                let else_out = self.cur;
                self.all_or_none = before && uniform;
                self.depth -= 1;
                if exits(then_) || exits(else_) {
                    // An arm that ends in `break`, `continue` or `return`
                    // keeps no lane: the join is the other arm's lanes.
                    self.cur = if self.empty.contains(&then_out.0) {
                        self.all_or_none = before && else_lane0;
                        else_out
                    } else if self.empty.contains(&else_out.0) {
                        self.all_or_none = before && then_lane0;
                        then_out
                    } else {
                        self.k_op(|d| Op::KOr {
                            d,
                            a: then_out,
                            b: else_out,
                        })
                    };
                } else {
                    // Every lane that entered reaches the end.
                    self.cur = base;
                    self.whole = whole;
                    self.all_or_none = before;
                }
            }
            Stmt::Loop { body, continuing } => {
                let locals = std::mem::take(&mut self.next_locals);
                let entry = self.cur;
                // The loop's mask and exit mask are variables of the
                // program, written again in the loop (loop-carried).
                let lm = self.p.k();
                self.p.push(Op::KCopy { d: lm, a: entry });
                let broke = self.k_op(|d| Op::KZero { d });
                // Lanes that leave the loop (or a trip) on their own
                // narrow its mask from then on, on every later trip too.
                let split =
                    self.divergent_exit(body, false) || self.divergent_exit(continuing, false);
                let before = self.all_or_none;
                // A test at the top run at the bottom (`rotated_head`):
                // once before the loop, then at the end of every trip.
                let head = self.rotated_head(body, continuing);
                let whole = self.whole;
                if let Some(n) = head {
                    self.loops.push(LoopMasks {
                        broke,
                        continued: None,
                        lanes: None,
                        locals: Default::default(),
                    });
                    self.depth += 1;
                    self.whole = false;
                    self.all_or_none = before && !split;
                    self.block(&Block(body.0[..n].to_vec()))?;
                    let first = self.cur;
                    self.p.push(Op::KCopy { d: lm, a: first });
                    self.depth -= 1;
                    self.loops.pop();
                    self.whole = whole;
                }
                self.p.push(Op::Loop);
                let continued = (continues(body) || continues(continuing))
                    .then(|| self.k_op(|d| Op::KZero { d }));
                self.loops.push(LoopMasks {
                    broke,
                    continued,
                    lanes: Some(lm),
                    locals,
                });
                self.depth += 1;
                self.whole = false;
                self.cur = lm;
                self.all_or_none = before && !split;
                match head {
                    Some(n) => self.block(&Block(body.0[n..].to_vec()))?,
                    None => self.block(body)?,
                }
                let after_body = self.cur;
                if let Some(continued) = continued {
                    self.cur = self.k_op(|d| Op::KOr {
                        d,
                        a: after_body,
                        b: continued,
                    });
                }
                self.block(continuing)?;
                if let Some(n) = head {
                    self.block(&Block(body.0[..n].to_vec()))?;
                }
                let end = self.cur;
                self.p.push(Op::KCopy { d: lm, a: end });
                self.p.push(Op::WhileAny { k: lm });
                self.depth -= 1;
                self.loops.pop();
                // The loop runs until no lane is left in it: every lane
                // that entered has left by `break`, unless one may have
                // returned inside it. Without a `return` the lanes after
                // it are those before it, and `broke`, no longer read,
                // is dropped with its updates (`drop_unread_masks`).
                self.cur = if returns(body) || returns(continuing) {
                    broke
                } else {
                    entry
                };
                self.all_or_none = before && !split;
            }
            Stmt::Break => {
                let cur = self.cur;
                let Some(l) = self.loops.last() else {
                    return refuse("`break` out of a switch", Loc::NONE);
                };
                let broke = l.broke;
                self.p.push(Op::KOr {
                    d: broke,
                    a: broke,
                    b: cur,
                });
                self.cur = self.k_op(|d| Op::KZero { d });
                self.empty.insert(self.cur.0);
                self.whole = false;
            }
            Stmt::Continue => {
                let cur = self.cur;
                let Some(l) = self.loops.last() else {
                    return refuse("`continue` outside a loop", Loc::NONE);
                };
                let Some(continued) = l.continued else {
                    return Err(Refusal {
                        what: "a `continue` the lowering did not find".into(),
                        loc: Loc::NONE,
                    });
                };
                self.p.push(Op::KOr {
                    d: continued,
                    a: continued,
                    b: cur,
                });
                self.cur = self.k_op(|d| Op::KZero { d });
                self.empty.insert(self.cur.0);
                self.whole = false;
            }
            Stmt::Return(None) => {
                self.cur = self.k_op(|d| Op::KZero { d });
                self.empty.insert(self.cur.0);
                self.whole = false;
            }
            Stmt::Return(Some(v)) => return refuse("a return value", self.loc(*v)),
            Stmt::Fence(_) => {}
            Stmt::Barrier(_, loc) => return refuse("a barrier", *loc),
            Stmt::Copy { loc, .. } => return refuse("a struct copy", *loc),
            Stmt::Switch { selector, .. } => return refuse("a switch", self.loc(*selector)),
        }
        Ok(())
    }

    /// An arm of an `if`, run by the lanes of `self.cur`. An arm of at
    /// least [`SKIP_MIN_OPS`] operations becomes a skipped region
    /// ([`Op::IfAny`]): a chunk none of whose lanes takes it jumps over
    /// it. Its masked operations would change nothing in such a chunk
    /// (its loads and stores touch no lane, its loops run one trip with
    /// no lane, its variable writes keep every lane), so skipping only
    /// saves their time. An arm that leaves (`break`, `continue`,
    /// `return`) stays as it is: the mask after it is written inside it;
    /// so does one holding a loop, since two chunks in flight share the
    /// body's loops (`super::entry`), which a region must not straddle.
    fn arm(&mut self, b: &Block) -> Lowered<()> {
        let (k, mark) = (self.cur, self.p.mark());
        self.block(b)?;
        if self.p.pushed_since(&mark) >= SKIP_MIN_OPS && !exits(b) && !has_loop(b) {
            self.p.skip_since(mark, k);
        }
        Ok(())
    }

    fn write_var(&mut self, var: usize, v: ValueId) -> Lowered<()> {
        let loc = self.loc(v);
        // A sine or cosine of the variable's old value is not its new one's.
        self.trig_done.retain(|d| d.0 != TrigArg::Var(var));
        if let VarRepr::Unread = self.vars[var] {
            return Ok(());
        }
        match (self.vars[var], self.val(v)?) {
            (VarRepr::V(d), Val::V(a)) => {
                if self.whole {
                    self.p.push(Op::Copy { d, a });
                } else {
                    let k = self.cur;
                    self.p.push(Op::MaskedCopy { d, a, k });
                }
            }
            (VarRepr::D(d), Val::D(a)) => {
                if self.whole {
                    for h in 0..2 {
                        self.p.push(Op::Copy { d: d[h], a: a[h] });
                    }
                } else {
                    let k = self.cur;
                    self.dmerge(k, d, a);
                }
            }
            (VarRepr::Vs(d, n), Val::Vs(a, m)) if n == m => {
                for c in 0..usize::from(n) {
                    let (d, a) = (d[c], a[c]);
                    if self.whole {
                        self.p.push(Op::Copy { d, a });
                    } else {
                        let k = self.cur;
                        self.p.push(Op::MaskedCopy { d, a, k });
                    }
                }
            }
            (VarRepr::K(d), Val::K(a)) => {
                if self.whole {
                    self.p.push(Op::KCopy { d, a });
                } else {
                    // d = (d & !cur) | (a & cur)
                    let cur = self.cur;
                    let keep = self.k_op(|t| Op::KAndNot { d: t, a: d, b: cur });
                    let new = self.k_op(|t| Op::KAnd { d: t, a, b: cur });
                    self.p.push(Op::KOr { d, a: keep, b: new });
                }
            }
            (VarRepr::Ptr(_), Val::Ptr(p)) if self.depth == 0 => {
                self.vars[var] = VarRepr::Ptr(Some(p));
            }
            (VarRepr::Sel(d), Val::Ptr(p)) => {
                let a = self.anchored_index(p, loc)?;
                if self.whole {
                    self.p.push(Op::Copy { d, a });
                } else {
                    let k = self.cur;
                    self.p.push(Op::MaskedCopy { d, a, k });
                }
            }
            (VarRepr::Ptr(_), _) => {
                return refuse("a pointer variable written inside an `if` or a loop", loc)
            }
            _ => {
                return refuse(
                    format!("a variable of type {:?}", self.func.vars[var].ty),
                    loc,
                )
            }
        }
        Ok(())
    }

    /// `x / y` or `x % y` of 32-bit integers by a divisor the same in
    /// every lane but not a constant (the FFT's `t % span`): shifts and
    /// masks where it is a power of two (tested at run time,
    /// [`math::pow2_lanes`]), the division in double (two `vdivpd`s,
    /// 16 cycles each on Intel's cores) only in a region skipped when no
    /// running lane's divisor is another. Only in a barrier kernel's
    /// regions, which hold nothing in registers from one chunk to the
    /// next: in a chunk loop the test's invariant parts are computed
    /// once and held through the loop (mandelbrot's `3.0f * x / width`
    /// then spilled in its loop, 0 → 56 slots: `vecl bench`, one
    /// thread, 14.9 and 14.9 ms against 14.1 and 13.2).
    fn divide_by_uniform(&mut self, x: V, y: V, signed: bool, part: DivPart) -> V {
        let pow = math::pow2_lanes(&mut self.p, y, signed);
        let fast = math::divide_by_pow2_lanes(&mut self.p, x, y, signed, part);
        self.slow_lanes_after(fast, pow, |p| math::divide(p, x, y, signed, part))
    }

    /// `x / y` of floats by a divisor the same in every lane but not a
    /// constant (the FFT's `(float)k / (float)span`): a product by the
    /// reciprocal where that is a normal power of two (tested at run
    /// time, [`math::pow2_reciprocal`]; the same bits), `vdivps` only in
    /// a region skipped when no running lane's divisor is another.
    fn fdiv_by_uniform(&mut self, x: V, y: V) -> V {
        let (pow, recip) = math::pow2_reciprocal(&mut self.p, y);
        let fast = self.p.bin(Bin::FMul, x, recip);
        self.slow_lanes_after(fast, pow, |p| p.bin(Bin::FDiv, x, y))
    }

    /// `fast` in the lanes of `taken`, and `slow`'s result in the other
    /// running lanes, computed in a region skipped when there are none.
    fn slow_lanes_after(&mut self, fast: V, taken: K, slow: impl FnOnce(&mut Program) -> V) -> V {
        let r = self.v_op(|d| Op::Copy { d, a: fast });
        let cur = self.cur;
        let rest = self.k_op(|d| Op::KAndNot {
            d,
            a: cur,
            b: taken,
        });
        let mark = self.p.mark();
        let s = slow(&mut self.p);
        self.p.push(Op::MaskedCopy {
            d: r,
            a: s,
            k: rest,
        });
        self.p.skip_since(mark, rest);
        r
    }

    /// The kernel's first `__local` pointer parameter, and its argument
    /// slot: the anchor of [`VarRepr::Sel`].
    fn local_anchor(&self) -> Option<(u32, i32)> {
        let n = self
            .func
            .params
            .iter()
            .position(|p| matches!(p.ty, Type::Pointer(AddressSpace::Local, _)) && !p.byval)?;
        Some((n as u32, self.slots.get(n)?.offset as i32))
    }

    /// The lanes of `p`'s index counted from the anchor's buffer
    /// ([`VarRepr::Sel`]), in 4-byte words: a `__local` argument's or
    /// variable's offset in the arena less the anchor's, over 4, plus
    /// `p`'s index. The arena's offsets are multiples of 4 below 2^31
    /// (`layout`).
    fn anchored_index(&mut self, p: Pointer, loc: Loc) -> Lowered<V> {
        let Some((_, anchor)) = self.local_anchor() else {
            return refuse(
                "a `__local` pointer variable without a `__local` pointer argument",
                loc,
            );
        };
        let from = match p.base {
            Base::LocalArg if p.slot == anchor => None,
            Base::LocalArg => {
                let at = self.p.broadcast(Arg::Args, p.slot);
                let zero = self.p.broadcast(Arg::Args, anchor);
                let bytes = self.p.bin(Bin::ISub, at, zero);
                let two = self.splat(2);
                Some(self.p.bin(Bin::Sar, bytes, two))
            }
            Base::LocalAt { offset, .. } => {
                let at = self.splat(offset);
                let zero = self.p.broadcast(Arg::Args, anchor);
                let bytes = self.p.bin(Bin::ISub, at, zero);
                let two = self.splat(2);
                Some(self.p.bin(Bin::Sar, bytes, two))
            }
            Base::Arg => {
                return refuse(
                    "a `__local` pointer variable written with another address space's pointer",
                    loc,
                )
            }
        };
        Ok(match (from, p.index) {
            (None, None) => self.splat(0),
            (None, Some(i)) => self.v_op(|d| Op::Copy { d, a: i }),
            (Some(f), None) => f,
            (Some(f), Some(i)) => self.p.bin(Bin::IAdd, f, i),
        })
    }

    /// The element index of `p`'s accesses (0 when it has none).
    fn index_of(&mut self, p: Pointer) -> V {
        match p.index {
            Some(i) => i,
            None => self.p.splat_i32(0),
        }
    }

    /// The statements at the top of a loop's `body` that only test
    /// whether to leave it (`for`'s `k < n`: values computed from
    /// variables and constants, then `if (c) {} else { break; }` or its
    /// mirror), which the lowering runs at the bottom instead: once
    /// before the loop, then after `continuing` on every trip, so the
    /// trip whose test every lane fails is not run (the loop still runs
    /// its first trip, with no lane when none passed the first test).
    /// The test reads the same variables under the same lanes as at the
    /// top of the next trip, nothing runs between, and it has no effect
    /// but the loop's masks; none of its values is read elsewhere (the
    /// rest of the trip would read the previous trip's). Matmul's `k`
    /// loop: 8 trips of two `k` where it ran 9, the last with no lane.
    fn rotated_head(&self, body: &Block, continuing: &Block) -> Option<usize> {
        let mut head = Vec::new();
        for (n, s) in body.0.iter().enumerate() {
            match s {
                Stmt::Eval(v) => {
                    let inst = &self.func.inst(*v).inst;
                    let pure = inst.depends_only_on_operands()
                        || matches!(inst, Inst::Const(_) | Inst::ReadVar(_) | Inst::Param(_));
                    if !pure {
                        return None;
                    }
                    head.push(*v);
                }
                Stmt::If { cond, then_, else_ } => {
                    let leaves = |b: &Block| matches!(b.0.as_slice(), [Stmt::Break]);
                    let tests = (then_.0.is_empty() && leaves(else_))
                        || (else_.0.is_empty() && leaves(then_));
                    if !tests || !head.contains(cond) {
                        return None;
                    }
                    let mut read = std::collections::HashSet::new();
                    values_read(self.func, &body.0[n + 1..], &mut read);
                    values_read(self.func, &continuing.0, &mut read);
                    return head.iter().all(|v| !read.contains(v)).then_some(n + 1);
                }
                _ => return None,
            }
        }
        None
    }

    /// Whether `b` holds a `break`, `continue` or `return` under a branch
    /// on a condition the uniformity analysis does not find uniform
    /// (`under`: `b` itself is under one).
    fn divergent_exit(&self, b: &Block, under: bool) -> bool {
        b.0.iter().any(|s| match s {
            Stmt::Break | Stmt::Continue | Stmt::Return(_) => under,
            Stmt::If { cond, then_, else_ } => {
                let under = under || self.uni.shape(*cond) != Shape::Uniform;
                self.divergent_exit(then_, under) || self.divergent_exit(else_, under)
            }
            Stmt::Loop { body, continuing } => {
                self.divergent_exit(body, under) || self.divergent_exit(continuing, under)
            }
            Stmt::Switch { .. } => true,
            _ => false,
        })
    }

    /// The exact step from lane to lane of integer IR value `v`, as its
    /// 32-bit lanes hold it, across the lanes running where it is computed
    /// (`Some(0)`: the same in all of them), when its form shows one.
    ///
    /// Where the uniformity analysis calls a value linear as a hint (a
    /// clamp, which a border cuts into; a widening after a wrap), this
    /// follows the chain and gives up: only `get_global_id(0)` and
    /// `get_local_id(0)` (a chunk lies in one row of one group, so lane `l`
    /// holds lane 0's id plus `l`), values the analysis finds uniform (the
    /// same in every running lane), sums, differences, products and left
    /// shifts by constants of such values, the integer conversions that
    /// keep the lanes' bits, and variables whose every write has the same
    /// step and which the analysis does not find written under divergent
    /// control (so every running lane took the same writes; a variable
    /// saved across a barrier included: its lanes are stored and reloaded
    /// whole). All lane arithmetic is modulo 2^32, which keeps the steps:
    /// the lanes of a step-1 index hold lane 0's plus `l` modulo 2^32.
    fn exact_step(&self, v: ValueId, seen: &mut Vec<vecl_ir::VarId>, depth: u32) -> Option<i64> {
        if self.uni.shape(v) == Shape::Uniform {
            return Some(0);
        }
        let int = |x: ValueId| {
            matches!(
                class(self.func.ty(x)),
                Some(Class::I32 | Class::U32 | Class::I64 | Class::U64)
            )
        };
        if depth > 24 || !int(v) {
            return None;
        }
        let d = depth + 1;
        match &self.func.inst(v).inst {
            Inst::WorkItem(WorkItemFn::GlobalId | WorkItemFn::LocalId, Some(dim))
                if self.func.int_const(*dim) == Some(0) =>
            {
                Some(1)
            }
            Inst::Convert { value, .. } if int(*value) => {
                use Class::*;
                match (class(self.func.ty(*value)), class(self.func.ty(v))) {
                    (Some(f), Some(t)) if f == t => {}
                    (Some(I32 | U32), Some(I32 | U32))
                    | (Some(I64 | U64), Some(I32 | U32 | I64 | U64))
                    | (Some(I32), Some(I64 | U64)) => {}
                    _ => return None,
                }
                self.exact_step(*value, seen, d)
            }
            Inst::Binary(op, a, b) => {
                let (sa, sb) = (self.exact_step(*a, seen, d), self.exact_step(*b, seen, d));
                let (ca, cb) = (self.func.int_const(*a), self.func.int_const(*b));
                match op {
                    BinaryOp::Add => Some(sa?.wrapping_add(sb?)),
                    BinaryOp::Sub => Some(sa?.wrapping_sub(sb?)),
                    BinaryOp::Mul => match (ca, cb) {
                        (_, Some(c)) => Some(sa?.wrapping_mul(c)),
                        (Some(c), _) => Some(sb?.wrapping_mul(c)),
                        _ => None,
                    },
                    BinaryOp::Shl => match cb {
                        Some(c) if (0..32).contains(&c) => Some(sa?.wrapping_shl(c as u32)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            Inst::ReadVar(var) => {
                let declared = match self.uni.var_shapes.get(var.index())? {
                    Shape::Uniform => 0,
                    Shape::Linear(s) => *s,
                    Shape::Varying => return None,
                };
                if seen.contains(var) {
                    // Each write keeps the step if the reads in it do.
                    return Some(declared);
                }
                seen.push(*var);
                let mut writes = Vec::new();
                vecl_ir::analysis::uniformity::writes_of(&self.func.body, *var, &mut writes);
                let all = writes
                    .iter()
                    .all(|w| self.exact_step(*w, seen, d) == Some(declared));
                seen.pop();
                all.then_some(declared)
            }
            _ => None,
        }
    }

    /// How an access through `ptr` (IR value `v`) is made: consecutive
    /// when the uniformity analysis finds the lanes' addresses consecutive
    /// 4-byte elements (the code still tests it), prefetching and
    /// streaming as the plan says, checked under robust access unless
    /// the plan trusts it.
    fn access(&self, v: ValueId, ptr: Pointer, load: bool) -> Access {
        let consecutive = self.uni.shape(v) == Shape::Linear(4);
        let check = self.plan.checks(v).then(|| {
            let loc = site_loc(self.func, v);
            let size = match self.func.ty(v) {
                Type::Pointer(_, t) if byte_scalar(t).is_some() => 1,
                Type::Pointer(_, t) if class(t) == Some(Class::F64) => 8,
                Type::Pointer(_, t) => 4 * words(t).unwrap_or(1),
                _ => 4,
            };
            Check {
                param: ptr.param,
                site: pack_site(access::kind(load), loc.line, loc.col),
                size,
                component: 0,
            }
        });
        let global = ptr.base == Base::Arg;
        // Lanes known consecutive from lane 0's index: no test of the
        // lanes but lane 0's being among them (`Known::FromLane0`).
        let known = if consecutive && ptr.step == Some(1) {
            Known::FromLane0
        } else {
            Known::Tested
        };
        let ahead = match self.plan.prefetches(v) {
            Some(a) if global && load && consecutive => Some(self.step_ahead(a)),
            _ => None,
        };
        Access {
            consecutive,
            known,
            prefetch: matches!(ahead, Some(Some(_))),
            ahead: ahead.flatten().flatten(),
            stream: global && !load && consecutive && self.plan.streams(self.func, v),
            check,
            base: ptr.base,
            ..Access::default()
        }
    }

    /// `how` (made by [`Cx::access`]) for an access of one-byte elements
    /// through `v`: its own path (`access::byte_access`), consecutive
    /// when the lanes' bytes are, its bounds test as `how`'s (of one
    /// byte), no prefetch, streaming or broadcast.
    fn byte_access(&self, v: ValueId, how: Access, signed: bool) -> Access {
        Access {
            byte: Some(access::ByteElems {
                signed,
                consecutive: self.uni.shape(v) == Shape::Linear(1),
                uniform: self.uni.shape(v) == Shape::Uniform,
                known: Known::Tested,
            }),
            check: how.check,
            base: how.base,
            ..Access::default()
        }
    }

    /// Where a prefetch chosen by the plan points: `Some(None)`,
    /// `DISTANCE` bytes ahead; `Some(Some(step))`, the loop's next step, a
    /// constant or a 32-bit integer parameter times one; `None` (no
    /// prefetch) for a step of any other factors.
    fn step_ahead(&self, ahead: &Ahead) -> Option<Option<StepAhead>> {
        let Ahead::Step { bytes, factors } = ahead else {
            return Some(None);
        };
        let bytes = i32::try_from(*bytes).ok()?;
        let param = match factors[..] {
            [] => None,
            [f] => {
                let n = self.param_of(f)?;
                let signed = match class(self.func.ty(f)) {
                    Some(Class::I32) => true,
                    Some(Class::U32) => false,
                    _ => return None,
                };
                Some((self.slots.get(n as usize)?.offset as i32, signed))
            }
            _ => return None,
        };
        Some(Some(StepAhead { bytes, param }))
    }

    /// The parameter `v` is: the parameter itself, or the read of a
    /// variable whose every write is that parameter (the front end's copy
    /// of a scalar argument).
    fn param_of(&self, v: ValueId) -> Option<u32> {
        match self.func.inst(v).inst {
            Inst::Param(n) => Some(n),
            Inst::ReadVar(x) => {
                let mut writes = Vec::new();
                vecl_ir::analysis::uniformity::writes_of(&self.func.body, x, &mut writes);
                let mut params = writes.iter().map(|w| match self.func.inst(*w).inst {
                    Inst::Param(n) => Some(n),
                    _ => None,
                });
                let first = params.next()??;
                params.all(|p| p == Some(first)).then_some(first)
            }
            _ => None,
        }
    }

    /// Refuses accesses through `ptr` other than of a 4-byte `float`,
    /// `int` or `uint`, a `double`, or (global) a byte.
    fn elem_class(&self, ptr: ValueId, loc: Loc) -> Lowered<()> {
        match self.func.ty(ptr) {
            Type::Pointer(AddressSpace::Global | AddressSpace::Constant, t)
                if four_bytes(t) || byte_scalar(t).is_some() || class(t) == Some(Class::F64) =>
            {
                Ok(())
            }
            Type::Pointer(AddressSpace::Local, t)
                if self.locals_allowed && (four_bytes(t) || class(t) == Some(Class::F64)) =>
            {
                Ok(())
            }
            t => refuse(format!("an access through {t:?}"), loc),
        }
    }

    /// The lowering of a vector instruction of type `ty` component by
    /// component: `f` lowers its scalar form while each vector operand
    /// among `operands` stands for its component (scalar operands stay).
    fn per_component(
        &mut self,
        ty: &Type,
        operands: &[ValueId],
        mut f: impl FnMut(&mut Self) -> Lowered<Val>,
    ) -> Lowered<Val> {
        let n = vector_class(ty).map_or(0, |(_, n)| n);
        let saved: Vec<Option<Val>> = operands.iter().map(|o| self.vals[o.index()]).collect();
        let mut out = [V(0); 4];
        let mut result = Ok(());
        for (c, d) in out.iter_mut().enumerate().take(usize::from(n)) {
            for (o, was) in operands.iter().zip(&saved) {
                if let Some(Val::Vs(x, m)) = was {
                    if c < usize::from(*m) {
                        self.vals[o.index()] = Some(Val::V(x[c]));
                    }
                }
            }
            match f(self) {
                Ok(Val::V(x)) => *d = x,
                Ok(_) => {
                    result = refuse(format!("a component of {ty:?}"), Loc::NONE);
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        for (o, was) in operands.iter().zip(saved) {
            self.vals[o.index()] = was;
        }
        result.map(|()| Val::Vs(out, n))
    }

    /// The index of component `c` of a vector element at `idx` (indices
    /// count 4-byte words, so the components follow it).
    fn component_index(&mut self, idx: V, c: usize) -> V {
        if c == 0 {
            return idx;
        }
        let off = self.splat(c as u32);
        self.p.bin(Bin::IAdd, idx, off)
    }

    /// Whether the kernel accesses `char4`/`uchar4` elements.
    fn moves_bytes(&self) -> bool {
        self.func
            .insts
            .iter()
            .any(|d| matches!(&d.ty, Type::Pointer(_, t) if byte_vector(t).is_some()))
    }

    /// The components of `char4`/`uchar4` elements loaded as 32-bit lanes
    /// `x`: byte `c` of each lane, sign-extended (`signed`) or
    /// zero-extended as the lanes of a byte hold it.
    fn unpack_bytes(&mut self, x: V, signed: bool) -> Val {
        let mut out = [V(0); 4];
        for (c, o) in out.iter_mut().enumerate() {
            let c = c as u32;
            *o = if signed {
                // The byte to the top, then back with its sign.
                let up = if c == 3 {
                    x
                } else {
                    let n = self.splat(24 - 8 * c);
                    self.p.bin(Bin::Shl, x, n)
                };
                let n = self.splat(24);
                self.p.bin(Bin::Sar, up, n)
            } else {
                let down = if c == 0 {
                    x
                } else {
                    let n = self.splat(8 * c);
                    self.p.bin(Bin::Shr, x, n)
                };
                if c == 3 {
                    down
                } else {
                    let m = self.splat(0xff);
                    self.p.bin(Bin::IAnd, down, m)
                }
            };
        }
        Val::Vs(out, 4)
    }

    /// The 32-bit lanes of `char4`/`uchar4` value `v` as memory holds it:
    /// component `c` in byte `c` (a `uchar`'s lanes hold no bits above its
    /// byte; a `char`'s are masked to it).
    fn pack_bytes(&mut self, v: ValueId, signed: bool) -> Lowered<V> {
        let Val::Vs(c, 4) = self.val(v)? else {
            return refuse(format!("a store of {:?}", self.func.ty(v)), Loc::NONE);
        };
        let mut acc = None;
        for (i, x) in c.iter().enumerate() {
            let mut x = *x;
            if signed && i < 3 {
                let m = self.splat(0xff);
                x = self.p.bin(Bin::IAnd, x, m);
            }
            if i > 0 {
                let n = self.splat(8 * i as u32);
                x = self.p.bin(Bin::Shl, x, n);
            }
            acc = Some(match acc {
                None => x,
                Some(a) => self.p.bin(Bin::IOr, a, x),
            });
        }
        Ok(acc.unwrap_or(c[0]))
    }

    /// A constant (one value per constant: see [`Program::constant`]).
    fn splat(&mut self, bits: u32) -> V {
        self.p.constant(bits)
    }

    /// The lowering of instruction `v`.
    fn inst(&mut self, v: ValueId) -> Lowered<Option<Val>> {
        let d = self.func.inst(v);
        let (ty, loc) = (&d.ty, d.loc);
        let cls = class(ty);
        let unsupported = |what: String| refuse(what, loc);
        Ok(Some(match &d.inst {
            Inst::Param(n) => {
                let slot = self.slots.get(*n as usize).map(|s| s.offset as i32);
                let Some(off) = slot else {
                    return unsupported(format!("parameter {n}"));
                };
                match (ty, cls) {
                    (_, Some(Class::F32 | Class::I32 | Class::U32)) => {
                        Val::V(self.v_op(|d| Op::Broadcast {
                            d,
                            arg: Arg::Args,
                            off,
                        }))
                    }
                    // Its two words broadcast, interleaved into doubles.
                    (_, Some(Class::F64)) => {
                        let lo = self.p.broadcast(Arg::Args, off);
                        let hi = self.p.broadcast(Arg::Args, off + 4);
                        let x = self.p.bin(Bin::ZipLow, lo, hi);
                        Val::D([x, x])
                    }
                    (Type::Pointer(AddressSpace::Global | AddressSpace::Constant, _), _)
                        if !self.func.params[*n as usize].byval =>
                    {
                        Val::Ptr(Pointer {
                            param: *n,
                            slot: off,
                            base: Base::Arg,
                            index: None,
                            step: Some(0),
                            bytes: false,
                        })
                    }
                    (Type::Pointer(AddressSpace::Local, _), _) if self.locals_allowed => {
                        Val::Ptr(Pointer {
                            param: *n,
                            slot: off,
                            base: Base::LocalArg,
                            index: None,
                            step: Some(0),
                            bytes: false,
                        })
                    }
                    _ => return unsupported(format!("a parameter of type {ty:?}")),
                }
            }
            Inst::Const(bits) => match cls {
                Some(Class::Bool) => Val::K(if *bits != 0 {
                    self.k_op(|d| Op::AllLanes { d })
                } else {
                    self.k_op(|d| Op::KZero { d })
                }),
                Some(Class::F32 | Class::I32 | Class::U32) => Val::V(self.splat(*bits as u32)),
                // Bytes as their lanes hold them (extended).
                Some(Class::U8) => Val::V(self.splat(u32::from(*bits as u8))),
                Some(Class::I8) => Val::V(self.splat(*bits as u8 as i8 as i32 as u32)),
                Some(Class::F64) => Val::D(self.dsplat(*bits)),
                Some(Class::I64 | Class::U64) => {
                    let x = *bits as i64;
                    let fits = i64::from(i32::MIN) <= x && x <= i64::from(i32::MAX);
                    if !fits && !self.narrow.low_only(v) {
                        return unsupported(format!("the 64-bit constant {x}"));
                    }
                    Val::V(self.splat(x as i32 as u32))
                }
                None => return unsupported(format!("a constant of type {ty:?}")),
            },
            Inst::Undef => match cls {
                // `uint4 t;` then `t.x = …`: zeros, as a scalar's.
                None if vector_class(ty).is_some() => {
                    let z = self.splat(0);
                    Val::Vs([z; 4], vector_class(ty).map_or(0, |(_, n)| n))
                }
                Some(Class::Bool) => Val::K(self.k_op(|d| Op::KZero { d })),
                Some(Class::F64) => Val::D(self.dsplat(0)),
                Some(_) => Val::V(self.splat(0)),
                None => return unsupported(format!("undef of type {ty:?}")),
            },
            Inst::Unary(op, a) if vector_class(ty).is_some() => {
                let (op, a) = (*op, *a);
                let scalar = component_type(ty);
                self.per_component(ty, &[a], |cx| cx.unary(op, a, v, &scalar, loc))?
            }
            Inst::Unary(op, a) => self.unary(*op, *a, v, ty, loc)?,
            Inst::Binary(op, a, b) if vector_class(ty).is_some() => {
                let (op, (a, b)) = (*op, (*a, *b));
                let scalar = component_type(ty);
                self.per_component(ty, &[a, b], |cx| cx.binary(op, a, b, v, &scalar, loc))?
            }
            Inst::Builtin(name, args) if vector_class(ty).is_some() => {
                let scalar = component_type(ty);
                let cls = class(&scalar);
                self.per_component(ty, args, |cx| cx.builtin(*name, args, cls, loc))?
            }
            Inst::Splat(a) if vector_class(ty).is_some() => {
                let x = self.vec(*a)?;
                Val::Vs([x; 4], vector_class(ty).map_or(0, |(_, n)| n))
            }
            Inst::Construct(xs) if vector_class(ty).is_some() => {
                let mut out = Vec::with_capacity(4);
                for x in xs {
                    match self.val(*x)? {
                        Val::V(c) => out.push(c),
                        Val::Vs(c, n) => out.extend_from_slice(&c[..usize::from(n)]),
                        _ => return unsupported(format!("a construction of {ty:?}")),
                    }
                }
                vector_of(&out, ty).ok_or_else(|| Refusal {
                    what: format!("a construction of {ty:?}"),
                    loc,
                })?
            }
            Inst::Extract(a, i) => match self.val(*a)? {
                Val::Vs(c, n) if *i < n => Val::V(c[usize::from(*i)]),
                _ => return unsupported(format!("an extraction from {:?}", self.func.ty(*a))),
            },
            Inst::Insert(a, i, x) => match (self.val(*a)?, self.val(*x)?) {
                (Val::Vs(mut c, n), Val::V(y)) if *i < n => {
                    c[usize::from(*i)] = y;
                    Val::Vs(c, n)
                }
                _ => return unsupported(format!("an insertion into {ty:?}")),
            },
            Inst::Shuffle(a, b, idx) => {
                let mut all = Vec::with_capacity(8);
                for x in [*a, *b] {
                    match self.val(x)? {
                        Val::Vs(c, n) => all.extend_from_slice(&c[..usize::from(n)]),
                        _ => return unsupported(format!("a shuffle of {:?}", self.func.ty(x))),
                    }
                }
                let mut out = Vec::with_capacity(idx.len());
                for i in idx {
                    match all.get(usize::from(*i)) {
                        Some(c) => out.push(*c),
                        None => return unsupported("a shuffle of undefined components".into()),
                    }
                }
                match out.as_slice() {
                    [x] if class(ty).is_some() => Val::V(*x),
                    _ => vector_of(&out, ty).ok_or_else(|| Refusal {
                        what: format!("a shuffle to {ty:?}"),
                        loc,
                    })?,
                }
            }
            Inst::Binary(op, a, b) => self.binary(*op, *a, *b, v, ty, loc)?,
            Inst::Cmp(op, a, b) => {
                let Some(c) = class(self.func.ty(*a)) else {
                    return unsupported(format!("a comparison of {:?}", self.func.ty(*a)));
                };
                if c == Class::F64 {
                    let (x, y) = (self.dval(*a)?, self.dval(*b)?);
                    // As the floats' predicates: ordered but `!=`.
                    let pred = match op {
                        CmpOp::Eq => 0,
                        CmpOp::Lt => 1,
                        CmpOp::Le => 2,
                        CmpOp::Ne => 4,
                        CmpOp::Ge => 13,
                        CmpOp::Gt => 14,
                    };
                    Val::K(self.dcompare(pred, x, y))
                } else if c == Class::Bool {
                    let (x, y) = (self.mask(*a)?, self.mask(*b)?);
                    let ne = self.k_op(|d| Op::KXor { d, a: x, b: y });
                    Val::K(match op {
                        CmpOp::Ne => ne,
                        CmpOp::Eq => self.k_op(|d| Op::KNot { d, a: ne }),
                        _ => return unsupported(format!("{op:?} of bools")),
                    })
                } else {
                    let (x, y) = (self.vec(*a)?, self.vec(*b)?);
                    let (kind, pred) = match (c, op) {
                        (Class::F32, CmpOp::Eq) => (CmpKind::F32, 0),
                        (Class::F32, CmpOp::Lt) => (CmpKind::F32, 1),
                        (Class::F32, CmpOp::Le) => (CmpKind::F32, 2),
                        (Class::F32, CmpOp::Ne) => (CmpKind::F32, 4),
                        (Class::F32, CmpOp::Ge) => (CmpKind::F32, 13),
                        (Class::F32, CmpOp::Gt) => (CmpKind::F32, 14),
                        (c, op) => (
                            if matches!(c, Class::I32 | Class::I64 | Class::I8) {
                                CmpKind::I32
                            } else {
                                CmpKind::U32
                            },
                            match op {
                                CmpOp::Eq => 0,
                                CmpOp::Lt => 1,
                                CmpOp::Le => 2,
                                CmpOp::Ne => 4,
                                CmpOp::Ge => 5,
                                CmpOp::Gt => 6,
                            },
                        ),
                    };
                    Val::K(self.k_op(|d| Op::Compare2 {
                        kind,
                        pred,
                        d,
                        a: x,
                        b: y,
                    }))
                }
            }
            Inst::Select(c, a, b) => {
                if class(self.func.ty(*c)) != Some(Class::Bool) {
                    return unsupported("a select on a vector condition".into());
                }
                let k = self.mask(*c)?;
                match cls {
                    Some(Class::F64) => {
                        let (x, y) = (self.dval(*a)?, self.dval(*b)?);
                        Val::D(self.dselect(k, x, y))
                    }
                    Some(Class::Bool) => {
                        let (x, y) = (self.mask(*a)?, self.mask(*b)?);
                        let t = self.k_op(|d| Op::KAnd { d, a: x, b: k });
                        let f = self.k_op(|d| Op::KAndNot { d, a: y, b: k });
                        Val::K(self.k_op(|d| Op::KOr { d, a: t, b: f }))
                    }
                    Some(_) => {
                        let (x, y) = (self.vec(*a)?, self.vec(*b)?);
                        Val::V(self.v_op(|d| Op::Select { d, k, a: x, b: y }))
                    }
                    None => return unsupported(format!("a select of {ty:?}")),
                }
            }
            Inst::Convert {
                value,
                saturate,
                rounding,
            } => {
                let (value, saturate, rounding) = (*value, *saturate, *rounding);
                if vector_class(ty).is_some() {
                    // A component at a time (`convert_float4(uchar4)`).
                    let (s, src) = (component_type(ty), component_type(self.func.ty(value)));
                    let (from, to) = (class(&src), class(&s));
                    self.per_component(ty, &[value], |cx| {
                        if saturate {
                            cx.saturate(value, from, to, rounding, &s, loc)
                        } else {
                            cx.convert(value, from, to, rounding, &s, loc)
                        }
                    })?
                } else if saturate {
                    let from = class(self.func.ty(value));
                    self.saturate(value, from, cls, rounding, ty, loc)?
                } else {
                    let from = class(self.func.ty(value));
                    // A `uint` zero-extended to 64 bits of which only the
                    // low 32 bits are read (`super::int64`): the lanes as
                    // they are, whatever the value (they stand for their
                    // sign extension only where all 64 bits are read).
                    if from == Some(Class::U32)
                        && matches!(cls, Some(Class::I64 | Class::U64))
                        && self.narrow.low_only(v)
                    {
                        return Ok(Some(self.val(value)?));
                    }
                    self.convert(value, from, cls, rounding, ty, loc)?
                }
            }
            Inst::Bitcast(a) => match (class(self.func.ty(*a)), cls) {
                (
                    Some(Class::F32 | Class::I32 | Class::U32),
                    Some(Class::F32 | Class::I32 | Class::U32),
                ) => self.val(*a)?,
                _ => return unsupported(format!("a bitcast to {ty:?}")),
            },
            Inst::ReadVar(var) => match self.vars[var.index()] {
                VarRepr::V(x) => Val::V(self.v_op(|d| Op::Copy { d, a: x })),
                VarRepr::Vs(x, n) => {
                    let mut out = [V(0); 4];
                    for c in 0..usize::from(n) {
                        out[c] = self.v_op(|d| Op::Copy { d, a: x[c] });
                    }
                    Val::Vs(out, n)
                }
                VarRepr::K(x) => Val::K(self.k_op(|d| Op::KCopy { d, a: x })),
                VarRepr::D(x) => Val::D([0, 1].map(|h| self.v_op(|d| Op::Copy { d, a: x[h] }))),
                VarRepr::Ptr(Some(p)) => Val::Ptr(p),
                VarRepr::Sel(x) => {
                    let Some((param, slot)) = self.local_anchor() else {
                        return unsupported(
                            "a `__local` pointer variable without a `__local` pointer argument"
                                .into(),
                        );
                    };
                    Val::Ptr(Pointer {
                        param,
                        slot,
                        base: Base::LocalArg,
                        index: Some(self.v_op(|d| Op::Copy { d, a: x })),
                        step: (self.uni.shape(v) == Shape::Uniform).then_some(0),
                        bytes: false,
                    })
                }
                VarRepr::Ptr(None) => {
                    return unsupported("a pointer variable read before it is written".into())
                }
                VarRepr::Other | VarRepr::Unread => {
                    return unsupported(format!(
                        "a variable of type {:?}",
                        self.func.vars[var.index()].ty
                    ))
                }
            },
            Inst::Index(p, i) | Inst::Elem(p, i) => {
                let elem = matches!(d.inst, Inst::Elem(..));
                let base = match self.val(*p)? {
                    Val::Ptr(b) if b.index.is_none() || b.base != Base::Arg => b,
                    // The sum of the indices stays exact in 32-bit lanes
                    // for every launch the entry runs (`int64::launch_end`).
                    // In a barrier kernel's regions too: a pointer
                    // variable is carried from one region to the next only
                    // without an index (`lower_regions`), so the index is
                    // this region's.
                    Val::Ptr(b) if self.narrow.pointer_index_fits(v) => b,
                    _ => return unsupported(
                        "pointer arithmetic on an indexed pointer whose index may leave 32 bits"
                            .into(),
                    ),
                };
                // 64-bit indices are sign-extended lanes (see `Class`).
                if !matches!(
                    class(self.func.ty(*i)),
                    Some(Class::I32 | Class::I64 | Class::U64)
                ) {
                    return unsupported(format!("an index of type {:?}", self.func.ty(*i)));
                }
                // A `char`/`uchar` buffer's index counts bytes; an index
                // of one unit never meets one of the other.
                let bytes = !elem
                    && base.base == Base::Arg
                    && matches!(self.func.ty(*p), Type::Pointer(_, t) if byte_scalar(t).is_some());
                if base.index.is_some() && base.bytes != bytes {
                    return unsupported(format!("indexing {:?}", self.func.ty(*p)));
                }
                // The step of the index, in 4-byte words (bytes): an
                // element of the pointee (`index`) or of the array it
                // points to (`elem`, `__local` arrays).
                let step = match (self.func.ty(*p), elem) {
                    _ if bytes => Some(1),
                    // A `double`: two words.
                    (Type::Pointer(_, t), false)
                        if base.base == Base::Arg && class(t) == Some(Class::F64) =>
                    {
                        Some(2)
                    }
                    (Type::Pointer(_, t), false) if base.base == Base::Arg => {
                        words(t).filter(|_| four_bytes(t))
                    }
                    // `__local` memory: a `double` two words, as above.
                    (Type::Pointer(_, t), false) => double_words(t).or_else(|| words(t)),
                    (Type::Pointer(_, t), true) if base.base != Base::Arg => match &**t {
                        Type::Array(e, _) => double_words(e).or_else(|| words(e)),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(step) = step else {
                    return unsupported(format!("indexing {:?}", self.func.ty(*p)));
                };
                let mut x = self.vec(*i)?;
                if step.is_power_of_two() && step > 1 {
                    // A shift: one cycle where `vpmulld` takes ten.
                    let m = self.splat(step.trailing_zeros());
                    x = self.p.bin(Bin::Shl, x, m);
                } else if step != 1 {
                    let m = self.splat(step);
                    x = self.p.bin(Bin::IMul, x, m);
                }
                if let Some(at) = base.index {
                    x = self.p.bin(Bin::IAdd, at, x);
                }
                let lanes = self.exact_step(*i, &mut Vec::new(), 0);
                Val::Ptr(Pointer {
                    index: Some(x),
                    step: base
                        .step
                        .zip(lanes)
                        .map(|(b, l)| b.wrapping_add(l.wrapping_mul(i64::from(step)))),
                    bytes,
                    ..base
                })
            }
            Inst::GlobalAddr(g) if self.locals_allowed => {
                match self.plan.local_variable(g.index()) {
                    Some((offset, size)) => Val::Ptr(Pointer {
                        param: self.plan.local_check_number(g.index()),
                        slot: 0,
                        base: Base::LocalAt { offset, size },
                        index: None,
                        step: Some(0),
                        bytes: false,
                    }),
                    None => return unsupported("a program-scope variable".into()),
                }
            }
            Inst::PtrCast(p) => match (self.val(*p)?, ty) {
                (Val::Ptr(x), Type::Pointer(AddressSpace::Global | AddressSpace::Constant, t))
                    if x.index.is_none() || module_size(t) == Some(if x.bytes { 1 } else { 4 }) =>
                {
                    Val::Ptr(x)
                }
                _ => return unsupported(format!("a pointer cast to {ty:?}")),
            },
            Inst::Load(p) => {
                let ptr = match self.val(*p)? {
                    Val::Ptr(x) => x,
                    _ => {
                        return unsupported(
                            "a load through a pointer that is not an argument's".into(),
                        )
                    }
                };
                self.elem_class(*p, loc)?;
                // One address for every lane (`weights[k]` in a filter's
                // loop): one scalar load, broadcast (a gather of the one
                // address made conv5x5 2.8x slower).
                let mut how = self.access(*p, ptr, true);
                how.uniform = self.uni.shape(*p) == Shape::Uniform;
                how.lane0 = self.all_or_none;
                let idx = self.index_of(ptr);
                let k = self.cur;
                if let Some(signed) = byte_scalar(ty) {
                    let how = self.byte_access(*p, how, signed);
                    return Ok(Some(Val::V(self.v_op(|d| Op::LoadElems {
                        d,
                        ptr: ptr.slot,
                        idx,
                        k,
                        how,
                    }))));
                }
                if let Some(signed) = byte_vector(ty) {
                    // One 32-bit element; component `c` is its byte `c`.
                    let x = self.v_op(|d| Op::LoadElems {
                        d,
                        ptr: ptr.slot,
                        idx,
                        k,
                        how,
                    });
                    return Ok(Some(self.unpack_bytes(x, signed)));
                }
                if cls == Some(Class::F64) {
                    let known = self.consecutive_doubles(*p, ptr);
                    return Ok(Some(Val::D(self.load_double(ptr.slot, idx, k, how, known))));
                }
                let n = vector_class(ty).map_or(1, |(_, n)| n);
                if n == 2 && pairs(&how) {
                    // Two halves of eight elements' memory images, taken
                    // apart into the components.
                    let [lo, hi] = [0, 1].map(|h| {
                        let how = pair_half(how, h);
                        self.v_op(|d| Op::LoadElems {
                            d,
                            ptr: ptr.slot,
                            idx,
                            k,
                            how,
                        })
                    });
                    let x = self.p.bin(Bin::UnzipEven, lo, hi);
                    let y = self.p.bin(Bin::UnzipOdd, lo, hi);
                    return Ok(Some(Val::Vs([x, y, x, y], 2)));
                }
                let mut out = [V(0); 4];
                for c in (0..usize::from(n)).rev() {
                    let idx = self.component_index(idx, c);
                    let how = component_access(how, c);
                    out[c] = self.v_op(|d| Op::LoadElems {
                        d,
                        ptr: ptr.slot,
                        idx,
                        k,
                        how,
                    });
                }
                if n == 1 {
                    Val::V(out[0])
                } else {
                    Val::Vs(out, n)
                }
            }
            Inst::WorkItem(f, dim) => {
                let dim = match dim {
                    None => None,
                    Some(x) => match self.func.int_const(*x) {
                        Some(n) => Some(n),
                        None => {
                            return unsupported(format!(
                                "{f:?} of a dimension known only at run time"
                            ))
                        }
                    },
                };
                let in_range = dim.filter(|n| (0..3).contains(n)).map(|n| n as i32);
                match (f, in_range) {
                    (WorkItemFn::GlobalId, Some(n)) => {
                        Val::V(self.v_op(|d| Op::GlobalId { d, dim: n as u8 }))
                    }
                    (WorkItemFn::GlobalSize, Some(n)) => Val::V(self.v_op(|d| Op::Broadcast {
                        d,
                        arg: Arg::Launch,
                        off: launch_offsets::GLOBAL_SIZE + 8 * n,
                    })),
                    (WorkItemFn::GlobalOffset, Some(n)) => Val::V(self.v_op(|d| Op::Broadcast {
                        d,
                        arg: Arg::Launch,
                        off: launch_offsets::GLOBAL_OFFSET + 8 * n,
                    })),
                    (WorkItemFn::GlobalId | WorkItemFn::GlobalOffset, None) if dim.is_some() => {
                        Val::V(self.splat(0))
                    }
                    (WorkItemFn::GlobalSize, None) if dim.is_some() => Val::V(self.splat(1)),
                    (
                        WorkItemFn::LocalId
                        | WorkItemFn::GroupId
                        | WorkItemFn::LocalSize
                        | WorkItemFn::EnqueuedLocalSize
                        | WorkItemFn::NumGroups,
                        Some(n),
                    ) => match super::groups::group_query(&mut self.p, *f, n as u8) {
                        Some(x) => Val::V(x),
                        None => return unsupported(format!("the work-item query {f:?}")),
                    },
                    (WorkItemFn::LocalId | WorkItemFn::GroupId, None) if dim.is_some() => {
                        Val::V(self.splat(0))
                    }
                    (
                        WorkItemFn::LocalSize
                        | WorkItemFn::EnqueuedLocalSize
                        | WorkItemFn::NumGroups,
                        None,
                    ) if dim.is_some() => Val::V(self.splat(1)),
                    (WorkItemFn::WorkDim, _) => Val::V(self.v_op(|d| Op::Broadcast {
                        d,
                        arg: Arg::Launch,
                        off: launch_offsets::WORK_DIM,
                    })),
                    _ => return unsupported(format!("the work-item query {f:?}")),
                }
            }
            Inst::Builtin(name, args) => match self.trig_pair(v)? {
                Some(x) => Val::V(x),
                None => self.builtin(*name, args, cls, loc)?,
            },
            other => return unsupported(describe(other)),
        }))
    }

    /// `op` of `a`, of type `ty` (a vector's component type for each
    /// component of vector `v`).
    fn unary(&mut self, op: UnaryOp, a: ValueId, v: ValueId, ty: &Type, loc: Loc) -> Lowered<Val> {
        let cls = match class(ty) {
            Some(Class::I64 | Class::U64) => match self.narrow.unary(op, a, v) {
                Ok(n) if n.signed => Some(Class::I32),
                Ok(_) => Some(Class::U32),
                Err(why) => return refuse(why, loc),
            },
            c => c,
        };
        let unsupported = |what: String| refuse(what, loc);
        Ok(match (op, cls) {
            (UnaryOp::Neg, Some(Class::F32)) => {
                let x = self.vec(a)?;
                let s = self.splat(0x8000_0000);
                Val::V(self.p.bin(Bin::IXor, x, s))
            }
            (UnaryOp::Neg, Some(Class::F64)) => {
                let x = self.dval(a)?;
                let s = self.dsplat(1 << 63);
                Val::D(self.dbin(Bin::QXor, x, s))
            }
            (UnaryOp::Neg, Some(Class::I32 | Class::U32)) => {
                let x = self.vec(a)?;
                let z = self.splat(0);
                Val::V(self.p.bin(Bin::ISub, z, x))
            }
            (UnaryOp::Not, Some(Class::I32 | Class::U32)) => {
                let x = self.vec(a)?;
                let m = self.splat(u32::MAX);
                Val::V(self.p.bin(Bin::IXor, x, m))
            }
            (UnaryOp::Not, Some(Class::Bool)) => {
                let x = self.mask(a)?;
                Val::K(self.k_op(|d| Op::KNot { d, a: x }))
            }
            _ => return unsupported(format!("{op:?} of {ty:?}")),
        })
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        a: ValueId,
        b: ValueId,
        v: ValueId,
        ty: &Type,
        loc: Loc,
    ) -> Lowered<Val> {
        let cls = match class(ty) {
            // 64-bit values as the 32-bit operation where their ranges
            // keep it exact (`super::int64`).
            Some(Class::I64 | Class::U64) => match self.narrow.binary(op, a, b, v) {
                Ok(n) if n.signed => Some(Class::I32),
                Ok(_) => Some(Class::U32),
                Err(why) => return refuse(why, loc),
            },
            c => c,
        };
        if cls == Some(Class::Bool) {
            let (x, y) = (self.mask(a)?, self.mask(b)?);
            return Ok(Val::K(match op {
                BinaryOp::And => self.k_op(|d| Op::KAnd { d, a: x, b: y }),
                BinaryOp::Or => self.k_op(|d| Op::KOr { d, a: x, b: y }),
                BinaryOp::Xor => self.k_op(|d| Op::KXor { d, a: x, b: y }),
                _ => return refuse(format!("{op:?} of bools"), loc),
            }));
        }
        if cls == Some(Class::F64) {
            let bin = match op {
                BinaryOp::Add => Bin::DAdd,
                BinaryOp::Sub => Bin::DSub,
                BinaryOp::Mul => Bin::DMul,
                BinaryOp::Div => Bin::DDiv,
                _ => return refuse(format!("{op:?} of {ty:?}"), loc),
            };
            let (x, y) = (self.dval(a)?, self.dval(b)?);
            return Ok(Val::D(self.dbin(bin, x, y)));
        }
        let (x, y) = (self.vec(a)?, self.vec(b)?);
        let bin = match (cls, op) {
            (Some(Class::F32), BinaryOp::Add) => Bin::FAdd,
            (Some(Class::F32), BinaryOp::Sub) => Bin::FSub,
            (Some(Class::F32), BinaryOp::Mul) => Bin::FMul,
            (Some(Class::F32), BinaryOp::Div)
                if self.locals_allowed
                    && self.uni.shape(b) == Shape::Uniform
                    && !matches!(self.func.inst(b).inst, Inst::Const(_)) =>
            {
                return Ok(Val::V(self.fdiv_by_uniform(x, y)));
            }
            (Some(Class::F32), BinaryOp::Div) => Bin::FDiv,
            (Some(c @ (Class::I32 | Class::U32)), BinaryOp::Div | BinaryOp::Rem) => {
                let part = if op == BinaryOp::Div {
                    DivPart::Quotient
                } else {
                    DivPart::Remainder
                };
                let signed = c == Class::I32;
                // A constant power of two: shifts (2^31 is negative as an
                // int and takes the general path).
                let pow2 = self
                    .func
                    .int_const(b)
                    .map(|d| d as u32)
                    .filter(|d| d.is_power_of_two() && (!signed || *d < 1 << 31));
                // Another constant (`|d| ≥ 2` when signed): a
                // multiply-high by its magic number (`super::intmath`),
                // not the division in double.
                let magic = self.func.int_const(b).filter(|d| {
                    if signed {
                        i32::try_from(*d).is_ok_and(|d| d.unsigned_abs() >= 2)
                    } else {
                        u32::try_from(*d).is_ok_and(|d| d >= 3 && !d.is_power_of_two())
                    }
                });
                let rem = part == DivPart::Remainder;
                return Ok(Val::V(match (pow2, magic) {
                    (Some(d), _) => {
                        math::divide_pow2(&mut self.p, x, d.trailing_zeros(), signed, part)
                    }
                    (None, Some(d)) if signed => {
                        intmath::divide_const_signed(&mut self.p, x, d as i32, rem)
                    }
                    (None, Some(d)) => intmath::divide_const(&mut self.p, x, d as u32, rem),
                    (None, None) if self.locals_allowed && self.uni.shape(b) == Shape::Uniform => {
                        self.divide_by_uniform(x, y, signed, part)
                    }
                    (None, None) => math::divide(&mut self.p, x, y, signed, part),
                }));
            }
            (Some(Class::I32 | Class::U32), BinaryOp::Add) => Bin::IAdd,
            (Some(Class::I32 | Class::U32), BinaryOp::Sub) => Bin::ISub,
            (Some(Class::I32 | Class::U32), BinaryOp::Mul) => Bin::IMul,
            (Some(Class::I32 | Class::U32), BinaryOp::And) => Bin::IAnd,
            (Some(Class::I32 | Class::U32), BinaryOp::Or) => Bin::IOr,
            (Some(Class::I32 | Class::U32), BinaryOp::Xor) => Bin::IXor,
            (Some(c @ (Class::I32 | Class::U32)), BinaryOp::Shl | BinaryOp::Shr) => {
                // OpenCL C shifts by the count modulo the width.
                let m = self.splat(31);
                let n = self.p.bin(Bin::IAnd, y, m);
                let bin = match (op, c) {
                    (BinaryOp::Shl, _) => Bin::Shl,
                    (_, Class::I32) => Bin::Sar,
                    _ => Bin::Shr,
                };
                return Ok(Val::V(self.p.bin(bin, x, n)));
            }
            _ => return refuse(format!("{op:?} of {ty:?}"), loc),
        };
        Ok(Val::V(self.p.bin(bin, x, y)))
    }

    fn convert(
        &mut self,
        value: ValueId,
        from: Option<Class>,
        to: Option<Class>,
        rounding: Rounding,
        ty: &Type,
        loc: Loc,
    ) -> Lowered<Val> {
        use Class::*;
        let nearest = matches!(rounding, Rounding::Default | Rounding::Rte);
        let toward_zero = matches!(rounding, Rounding::Default | Rounding::Rtz);
        Ok(match (from, to) {
            (Some(f), Some(t)) if f == t => self.val(value)?,
            // Same lanes: reinterpretations, truncations of 64-bit values
            // (kept as 32 bits), sign extensions (an `int` to `ulong` too:
            // its bits are the sign extension), and ulong <-> long (whose
            // values are below 2^31 or sign-extended ints).
            (Some(I32 | U32), Some(I32 | U32))
            | (Some(I64 | U64), Some(I32 | U32 | I64 | U64))
            | (Some(I32), Some(I64 | U64)) => self.val(value)?,
            // A `uint` below 2^31: its zero extension is its sign extension.
            (Some(U32), Some(I64 | U64)) if self.narrow.below_2_31(value) => self.val(value)?,
            (Some(I32 | I64), Some(F32)) if nearest => {
                let x = self.vec(value)?;
                Val::V(self.v_op(|d| Op::Convert {
                    cvt: Cvt::I2F,
                    d,
                    a: x,
                }))
            }
            (Some(U64), Some(F32)) if nearest && self.small[value.index()] => {
                let x = self.vec(value)?;
                Val::V(self.v_op(|d| Op::Convert {
                    cvt: Cvt::I2F,
                    d,
                    a: x,
                }))
            }
            (Some(U32), Some(F32)) if nearest => {
                let x = self.vec(value)?;
                Val::V(self.v_op(|d| Op::Convert {
                    cvt: Cvt::U2F,
                    d,
                    a: x,
                }))
            }
            (Some(F32), Some(c @ (I32 | U32))) if toward_zero => {
                let x = self.vec(value)?;
                Val::V(self.float_to_int(x, c == I32))
            }
            // Bytes' lanes hold their extension: a `uchar`'s is its value
            // as any wider integer, a `char`'s its value as a signed one
            // and its bits as an unsigned one (modulo 2^32, or its sign
            // extension to 64 bits, which the lanes stand for).
            (Some(U8), Some(I32 | U32 | I64 | U64)) | (Some(I8), Some(I32 | U32 | I64 | U64)) => {
                self.val(value)?
            }
            (Some(U8 | I8), Some(F32)) => {
                let x = self.vec(value)?;
                Val::V(self.v_op(|d| Op::Convert {
                    cvt: Cvt::I2F,
                    d,
                    a: x,
                }))
            }
            // Truncations to a byte: its low 8 bits, extended.
            (Some(I32 | U32 | I64 | U64 | I8), Some(U8)) => {
                let x = self.vec(value)?;
                let m = self.splat(0xff);
                Val::V(self.p.bin(Bin::IAnd, x, m))
            }
            (Some(I32 | U32 | I64 | U64 | U8), Some(I8)) => {
                let x = self.vec(value)?;
                let n = self.splat(24);
                let up = self.p.bin(Bin::Shl, x, n);
                Val::V(self.p.bin(Bin::Sar, up, n))
            }
            // Floats to bytes: as to an `int` (toward zero, saturated, NaN
            // to 0), then clamped to the byte's range.
            // (`_rte`, `_rtp`, `_rtn`: rounded to an integer first.)
            (Some(F32), Some(c @ (U8 | I8))) => {
                let x = self.vec(value)?;
                let x = match rounding {
                    Rounding::Default | Rounding::Rtz => x,
                    Rounding::Rte => self.p.un(Un::RoundEven, x),
                    Rounding::Rtp => self.p.un(Un::Ceil, x),
                    Rounding::Rtn => self.p.un(Un::Floor, x),
                };
                let i = self.float_to_int(x, true);
                self.clamp_byte(i, c == I8)?
            }
            (Some(Bool), Some(c @ (F32 | I32 | U32 | I64 | U64 | U8 | I8))) => {
                let k = self.mask(value)?;
                let one = self.splat(if c == F32 { 1f32.to_bits() } else { 1 });
                let zero = self.splat(0);
                Val::V(self.v_op(|d| Op::Select {
                    d,
                    k,
                    a: one,
                    b: zero,
                }))
            }
            // To `double`: every `float`, `int` and `uint` is exact (so
            // the rounding mode does not matter), and so are the 64-bit
            // integers whose lanes are exact as 32 bits.
            (Some(F32), Some(F64)) => {
                let x = self.vec(value)?;
                Val::D([self.p.un(Un::F2DLow, x), self.p.un(Un::F2DHigh, x)])
            }
            (Some(I32 | I64 | I8 | U8), Some(F64)) => {
                let x = self.vec(value)?;
                Val::D([self.p.un(Un::I2DLow, x), self.p.un(Un::I2DHigh, x)])
            }
            (Some(U64), Some(F64)) if self.small[value.index()] => {
                let x = self.vec(value)?;
                Val::D([self.p.un(Un::I2DLow, x), self.p.un(Un::I2DHigh, x)])
            }
            (Some(U32), Some(F64)) => {
                let x = self.vec(value)?;
                Val::D([self.p.un(Un::U2DLow, x), self.p.un(Un::U2DHigh, x)])
            }
            (Some(F64), Some(F32)) if nearest => {
                let x = self.dval(value)?;
                Val::V(self.p.bin(Bin::PackD2F, x[0], x[1]))
            }
            (Some(F64), Some(c @ (I32 | U32))) if toward_zero => {
                let x = self.dval(value)?;
                Val::V(self.double_to_int(x, c == I32))
            }
            // As from a `float`: to an `int` (saturated), then clamped.
            (Some(F64), Some(c @ (U8 | I8))) => {
                let x = self.dval(value)?;
                let round = match rounding {
                    Rounding::Default | Rounding::Rtz => None,
                    Rounding::Rte => Some(Un::DRoundEven),
                    Rounding::Rtp => Some(Un::DCeil),
                    Rounding::Rtn => Some(Un::DFloor),
                };
                let x = match round {
                    Some(op) => [0, 1].map(|h| self.p.un(op, x[h])),
                    None => x,
                };
                let i = self.double_to_int(x, true);
                self.clamp_byte(i, c == I8)?
            }
            (Some(Bool), Some(F64)) => {
                let k = self.mask(value)?;
                let (one, zero) = (self.dsplat(1f64.to_bits()), self.dsplat(0));
                Val::D(self.dselect(k, one, zero))
            }
            (Some(F64), Some(Bool)) => {
                let x = self.dval(value)?;
                let zero = self.dsplat(0);
                Val::K(self.dcompare(4, x, zero))
            }
            (Some(c), Some(Bool)) => {
                let x = self.vec(value)?;
                let zero = self.splat(0);
                let kind = match c {
                    F32 => CmpKind::F32,
                    _ => CmpKind::I32,
                };
                Val::K(self.k_op(|d| Op::Compare2 {
                    kind,
                    pred: 4,
                    d,
                    a: x,
                    b: zero,
                }))
            }
            _ => {
                return refuse(
                    format!(
                        "a conversion from {:?} to {ty:?} ({rounding:?})",
                        self.func.ty(value)
                    ),
                    loc,
                )
            }
        })
    }

    /// A saturating conversion (`convert_uchar4_sat`, `convert_int_sat`):
    /// float to integer conversions saturate without `_sat` too (NaN to
    /// 0, as the interpreter converts), integer to integer ones clamp to
    /// the destination's range; to a float, no saturation applies.
    fn saturate(
        &mut self,
        value: ValueId,
        from: Option<Class>,
        to: Option<Class>,
        rounding: Rounding,
        ty: &Type,
        loc: Loc,
    ) -> Lowered<Val> {
        use Class::*;
        match (from, to) {
            (Some(F32 | F64), _) | (_, Some(F32 | F64)) => {
                self.convert(value, from, to, rounding, ty, loc)
            }
            (Some(f), Some(t)) if f == t => self.val(value),
            // Signed values (a `char`, an `int`) into a byte.
            (Some(I32 | I8 | U8), Some(t @ (U8 | I8))) => {
                let x = self.vec(value)?;
                self.clamp_byte(x, t == I8)
            }
            // An unsigned `int` into a byte: at most its maximum.
            (Some(U32), Some(t @ (U8 | I8))) => {
                let x = self.vec(value)?;
                let hi = self.splat(if t == I8 { 127 } else { 255 });
                Ok(Val::V(self.p.bin(Bin::IMinU, x, hi)))
            }
            // Bytes into wider integers: every value fits, except a
            // negative `char` into an unsigned one (0).
            (Some(I8), Some(U32)) => {
                let x = self.vec(value)?;
                let z = self.splat(0);
                Ok(Val::V(self.p.bin(Bin::IMaxS, x, z)))
            }
            (Some(U8 | I8), Some(I32)) | (Some(U8), Some(U32)) => self.val(value),
            _ => refuse(
                format!(
                    "a saturating conversion from {:?} to {ty:?}",
                    self.func.ty(value)
                ),
                loc,
            ),
        }
    }

    /// Float lanes `x` converted toward zero to `int`s (`signed`) or
    /// `uint`s, saturating, NaN to 0, as the interpreter and Cranelift's
    /// code convert (the instructions give 0x80000000 or 0xffffffff out of
    /// range).
    fn float_to_int(&mut self, x: V, signed: bool) -> V {
        let cvt = if signed { Cvt::F2I } else { Cvt::F2U };
        let t = self.v_op(|d| Op::Convert { cvt, d, a: x });
        let cmp = |cx: &mut Self, pred: u8, b: V| {
            cx.k_op(|d| Op::Compare2 {
                kind: CmpKind::F32,
                pred,
                d,
                a: x,
                b,
            })
        };
        let nan = cmp(self, 3, x);
        let edge = if signed {
            let limit = self.splat(2_147_483_648f32.to_bits());
            cmp(self, 13, limit)
        } else {
            let zero = self.splat(0);
            cmp(self, 1, zero)
        };
        self.saturated(t, nan, edge, signed)
    }

    /// `double` lanes `x` converted toward zero to `int`s (`signed`) or
    /// `uint`s, saturating, NaN to 0, as [`Cx::float_to_int`] converts
    /// floats.
    fn double_to_int(&mut self, x: [V; 2], signed: bool) -> V {
        let pack = if signed {
            Bin::PackTruncD2I
        } else {
            Bin::PackTruncD2U
        };
        let t = self.p.bin(pack, x[0], x[1]);
        let nan = self.dcompare(3, x, x);
        let edge = if signed {
            let limit = self.dsplat(2_147_483_648f64.to_bits());
            self.dcompare(13, x, limit)
        } else {
            let zero = self.dsplat(0);
            self.dcompare(1, x, zero)
        };
        self.saturated(t, nan, edge, signed)
    }

    /// The truncating conversion's lanes `t` saturated: `INT_MAX` in the
    /// lanes of `edge` (at or past 2^31) when `signed`, else 0 in them
    /// (negative; the instruction's 0xffffffff past 2^32 is `UINT_MAX`
    /// already), and 0 in the NaN lanes.
    fn saturated(&mut self, t: V, nan: K, edge: K, signed: bool) -> V {
        let zero = self.splat(0);
        let at_edge = if signed {
            self.splat(i32::MAX as u32)
        } else {
            zero
        };
        let t = self.v_op(|d| Op::Select {
            d,
            k: edge,
            a: at_edge,
            b: t,
        });
        self.v_op(|d| Op::Select {
            d,
            k: nan,
            a: zero,
            b: t,
        })
    }

    /// Signed 32-bit lanes `x` clamped to a byte's range (the lanes of a
    /// `char` when `signed`, of a `uchar` otherwise).
    fn clamp_byte(&mut self, x: V, signed: bool) -> Lowered<Val> {
        let (lo, hi) = if signed { (-128i32, 127) } else { (0, 255) };
        let (lo, hi) = (self.splat(lo as u32), self.splat(hi as u32));
        let x = self.p.bin(Bin::IMaxS, x, lo);
        Ok(Val::V(self.p.bin(Bin::IMinS, x, hi)))
    }

    fn builtin(
        &mut self,
        name: Builtin,
        args: &[ValueId],
        cls: Option<Class>,
        loc: Loc,
    ) -> Lowered<Val> {
        // A vector builtin comes here a component at a time
        // (`per_component`): its arguments' components are in `vals`.
        let all = |c: Class| {
            cls == Some(c)
                && args
                    .iter()
                    .all(|a| class(&component_type(self.func.ty(*a))) == Some(c))
        };
        let (all_f32, all_i32, all_u32) = (all(Class::F32), all(Class::I32), all(Class::U32));
        // `dot` of two float vectors: the products summed in order, each
        // step rounded, as Cranelift's code computes it
        // (`lower::builtins::geometric`).
        //
        // Only in a kernel that moves `char4`/`uchar4` elements (an
        // image's pixels converted to floats): in others the choice stays
        // as it was, since the wide code with `dot` ran the corpus's
        // mandelbrot (`dot` in its loop) 1.4x and a barrier kernel's float4
        // dot products 1.6x slower than Cranelift's code (`docs/wide.md`).
        if name == Builtin::Dot && !self.moves_bytes() {
            return refuse("the builtin `dot` in a kernel without byte elements", loc);
        }
        if let (Builtin::Dot, [a, b], true) = (name, args, all_f32) {
            if let (Val::Vs(x, n), Val::Vs(y, m)) = (self.val(*a)?, self.val(*b)?) {
                if n == m {
                    let mut sum = self.p.bin(Bin::FMul, x[0], y[0]);
                    for c in 1..usize::from(n) {
                        let t = self.p.bin(Bin::FMul, x[c], y[c]);
                        sum = self.p.bin(Bin::FAdd, sum, t);
                    }
                    return Ok(Val::V(sum));
                }
            }
        }
        if cls == Some(Class::F64) {
            return self.double_builtin(name, args, loc);
        }
        // The double-precision routines (`wide::dmath`), `pown`/`rootn`
        // with an `int` second argument.
        let base = name.math_base().name();
        if cls == Some(Class::F32)
            && dmath::FUNCTIONS.contains(&base)
            && args.iter().enumerate().all(|(i, a)| {
                let want = if dmath::int_arg(base, i) {
                    Class::I32
                } else {
                    Class::F32
                };
                class(&component_type(self.func.ty(*a))) == Some(want)
            })
        {
            let v = args
                .iter()
                .map(|a| self.vec(*a))
                .collect::<Lowered<Vec<V>>>()?;
            return Ok(Val::V(dmath::float_fn(&mut self.p, base, &v)));
        }
        let mut v = Vec::with_capacity(args.len());
        if all_f32 || all_i32 || all_u32 {
            for a in args {
                v.push(self.vec(*a)?);
            }
        }
        let newton = self.rsqrt_newton;
        let p = &mut self.p;
        // `native_` and `half_` forms are the full-precision ones but for
        // `rsqrt`.
        Ok(Val::V(match (name.math_base(), v.as_slice()) {
            (Builtin::ContractFma | Builtin::Fma, &[x, y, z]) if all_f32 => p.fma(x, y, z),
            (Builtin::Sqrt, &[x]) if all_f32 => p.sqrt(x),
            (Builtin::Fabs, &[x]) if all_f32 => {
                let m = p.constant(0x7fff_ffff);
                p.bin(Bin::IAnd, x, m)
            }
            (Builtin::Floor, &[x]) if all_f32 => p.un(Un::Floor, x),
            (Builtin::Ceil, &[x]) if all_f32 => p.un(Un::Ceil, x),
            (Builtin::Trunc, &[x]) if all_f32 => p.un(Un::Trunc, x),
            (Builtin::Rint, &[x]) if all_f32 => p.un(Un::RoundEven, x),
            (Builtin::Copysign, &[x, y]) if all_f32 => {
                // `y`'s sign bit, `x`'s others: one `vpternlogd`.
                let sign = p.constant(0x8000_0000);
                let d = p.v();
                p.push(Op::Copy { d, a: x });
                p.push(Op::Ternlog {
                    d,
                    b: y,
                    c: sign,
                    imm: super::TERNLOG_SELECT,
                });
                d
            }
            (Builtin::Exp, &[x]) if all_f32 => math::exp(p, x),
            (Builtin::Exp2, &[x]) if all_f32 => math::exp2(p, x),
            (Builtin::Exp10, &[x]) if all_f32 => math::exp10(p, x),
            (Builtin::Log, &[x]) if all_f32 => math::log(p, x, math::Base::E),
            (Builtin::Log2, &[x]) if all_f32 => math::log(p, x, math::Base::Two),
            (Builtin::Log10, &[x]) if all_f32 => math::log(p, x, math::Base::Ten),
            // `native_`/`half_`, and `rsqrt` where the divider is slow:
            // without the divider, within 1.1 ULP.
            (Builtin::Rsqrt, &[x]) if all_f32 && (name != Builtin::Rsqrt || newton) => {
                math::rsqrt_newton(p, x)
            }
            // As the Cranelift code: a rounded square root, then a
            // rounded division.
            (Builtin::Rsqrt, &[x]) if all_f32 => {
                let r = p.sqrt(x);
                let one = p.constant(1f32.to_bits());
                p.bin(Bin::FDiv, one, r)
            }
            (Builtin::NativeRecip | Builtin::HalfRecip, &[x]) if all_f32 => {
                let one = p.constant(1f32.to_bits());
                p.bin(Bin::FDiv, one, x)
            }
            (Builtin::NativeDivide | Builtin::HalfDivide, &[x, y]) if all_f32 => {
                p.bin(Bin::FDiv, x, y)
            }
            (Builtin::Fmin, &[x, y]) | (Builtin::Min, &[x, y]) if all_f32 => {
                math::fmin_max(p, false, x, y)
            }
            (Builtin::Fmax, &[x, y]) | (Builtin::Max, &[x, y]) if all_f32 => {
                math::fmin_max(p, true, x, y)
            }
            (Builtin::Clamp, &[x, lo, hi]) if all_f32 => {
                let t = math::fmin_max(p, true, x, lo);
                math::fmin_max(p, false, t, hi)
            }
            // Not fused, as the interpreter computes it (`mad` may be
            // either).
            (Builtin::Mad, &[x, y, z]) if all_f32 => {
                let m = p.bin(Bin::FMul, x, y);
                p.bin(Bin::FAdd, m, z)
            }
            // `vprold` by a constant count, `vprolvd` otherwise (both
            // take the count modulo 32, as `rotate` does).
            (Builtin::Rotate, &[x, n]) if all_i32 || all_u32 => {
                match self.func.int_const(args[1]) {
                    Some(c) => p.un(Un::RotlImm((c as u32 % 32) as u8), x),
                    None => p.bin(Bin::Rotl, x, n),
                }
            }
            (Builtin::Popcount, &[x]) if all_i32 || all_u32 => {
                if super::has_vpopcntdq() {
                    p.un(Un::Popcnt, x)
                } else {
                    intmath::popcount(p, x)
                }
            }
            (Builtin::MulHi, &[x, y]) if all_i32 || all_u32 => {
                let y_odd = intmath::odd_lanes(p, y);
                intmath::mul_hi(p, x, y, y_odd, all_i32)
            }
            (Builtin::Min | Builtin::Max | Builtin::Clamp, _) if all_i32 || all_u32 => {
                let (min, max) = if all_i32 {
                    (Bin::IMinS, Bin::IMaxS)
                } else {
                    (Bin::IMinU, Bin::IMaxU)
                };
                match (name, v.as_slice()) {
                    (Builtin::Min, &[x, y]) => p.bin(min, x, y),
                    (Builtin::Max, &[x, y]) => p.bin(max, x, y),
                    (Builtin::Clamp, &[x, lo, hi]) => {
                        let t = p.bin(max, x, lo);
                        p.bin(min, t, hi)
                    }
                    _ => return refuse(format!("the builtin `{name}`"), loc),
                }
            }
            _ => return refuse(format!("the builtin `{name}`"), loc),
        }))
    }
}

impl Cx<'_> {
    /// A builtin of `double` arguments with a `double` result, as the
    /// Cranelift code computes it (the same operations, so the same
    /// bits; `exp` and `log` and their bases by [`dmath::double_fn`]).
    fn double_builtin(&mut self, name: Builtin, args: &[ValueId], loc: Loc) -> Lowered<Val> {
        if !args
            .iter()
            .all(|a| class(self.func.ty(*a)) == Some(Class::F64))
        {
            return refuse(format!("the builtin `{name}` of these arguments"), loc);
        }
        let x = args
            .iter()
            .map(|a| self.dval(*a))
            .collect::<Lowered<Vec<[V; 2]>>>()?;
        let base = name.math_base();
        if let [a] = x[..] {
            if let Some(r) = dmath::double_fn(&mut self.p, base.name(), a) {
                return Ok(Val::D(r));
            }
        }
        Ok(Val::D(match (base, &x[..]) {
            (Builtin::ContractFma | Builtin::Fma, &[a, b, c]) => [0, 1].map(|h| {
                self.v_op(|d| Op::FmaD {
                    d,
                    a: a[h],
                    b: b[h],
                    c: c[h],
                })
            }),
            // Not fused, as the interpreter computes it (as `float`s').
            (Builtin::Mad, &[a, b, c]) => {
                let m = self.dbin(Bin::DMul, a, b);
                self.dbin(Bin::DAdd, m, c)
            }
            (Builtin::Sqrt, &[a]) => [0, 1].map(|h| self.p.un(Un::DSqrt, a[h])),
            (Builtin::Rsqrt, &[a]) => {
                let r = [0, 1].map(|h| self.p.un(Un::DSqrt, a[h]));
                let one = self.dsplat(1f64.to_bits());
                self.dbin(Bin::DDiv, one, r)
            }
            (Builtin::Fabs, &[a]) => {
                let m = self.dsplat(!(1u64 << 63));
                self.dbin(Bin::QAnd, a, m)
            }
            (Builtin::Floor, &[a]) => [0, 1].map(|h| self.p.un(Un::DFloor, a[h])),
            (Builtin::Ceil, &[a]) => [0, 1].map(|h| self.p.un(Un::DCeil, a[h])),
            (Builtin::Trunc, &[a]) => [0, 1].map(|h| self.p.un(Un::DTrunc, a[h])),
            (Builtin::Rint, &[a]) => [0, 1].map(|h| self.p.un(Un::DRoundEven, a[h])),
            (Builtin::Copysign, &[a, b]) => {
                let (m, sign) = (self.dsplat(!(1u64 << 63)), self.dsplat(1 << 63));
                let a = self.dbin(Bin::QAnd, a, m);
                let b = self.dbin(Bin::QAnd, b, sign);
                self.dbin(Bin::QOr, a, b)
            }
            (Builtin::Fmin | Builtin::Min, &[a, b]) => self.dmin_max(false, a, b),
            (Builtin::Fmax | Builtin::Max, &[a, b]) => self.dmin_max(true, a, b),
            (Builtin::Clamp, &[a, lo, hi]) => {
                let t = self.dmin_max(true, a, lo);
                self.dmin_max(false, t, hi)
            }
            _ => return refuse(format!("the builtin `{name}` of doubles"), loc),
        }))
    }

    /// `fmin`/`fmax` of doubles as [`math::fmin_max`] of floats: `vminpd`
    /// or `vmaxpd`, the two operands' bits or-ed (`min`) or and-ed
    /// (`max`) where they compare equal (±0), `a` where `b` is NaN.
    fn dmin_max(&mut self, max: bool, a: [V; 2], b: [V; 2]) -> [V; 2] {
        let op = if max { Bin::DMaxX86 } else { Bin::DMinX86 };
        let join = if max { Bin::QAnd } else { Bin::QOr };
        [0, 1].map(|h| {
            let r = self.p.bin(op, a[h], b[h]);
            let cmp = |cx: &mut Self, pred: u8, x: V, y: V| {
                cx.k_op(|d| Op::Compare2 {
                    kind: CmpKind::F64,
                    pred,
                    d,
                    a: x,
                    b: y,
                })
            };
            let eq = cmp(self, 0, a[h], b[h]);
            self.p.push(Op::BinMasked {
                op: join,
                d: r,
                a: a[h],
                b: b[h],
                k: eq,
            });
            let nb = cmp(self, 3, b[h], b[h]);
            self.p.push(Op::BinMasked {
                op: Bin::QOr,
                d: r,
                a: a[h],
                b: a[h],
                k: nb,
            });
            r
        })
    }
}

/// The source position a fault through `ptr` reports: the pointer's own,
/// or that of the first pointer it derives from that has one (as
/// Cranelift's robust code reports it).
fn site_loc(func: &Function, ptr: ValueId) -> Loc {
    let mut v = ptr;
    for _ in 0..8 {
        let data = func.inst(v);
        if data.loc.is_known() {
            return data.loc;
        }
        match &data.inst {
            Inst::Index(p, _) | Inst::Elem(p, _) | Inst::PtrCast(p) => v = *p,
            _ => break,
        }
    }
    Loc::NONE
}

/// `how` for component `c` of a vector element (a fault reports the
/// element).
/// Whether an access of two-word elements (`float2`, `int2`, `uint2`)
/// made as `how` goes as two halves of eight elements' memory images
/// ([`Access::pair`]): one vector access each where the lanes address
/// consecutive elements, a 64-bit gather or scatter otherwise, where each
/// component took a 32-bit one (or a vector access when the component's
/// own lanes were consecutive, which a two-word element's are not). Not
/// under robust access (its bounds test is a component's), nor for one
/// address in every lane (a broadcast).
fn pairs(how: &Access) -> bool {
    how.check.is_none() && !how.uniform
}

/// Half `h` of a [`pairs`] access made as `how`: it tests its lanes
/// itself, without a prefetch or a streaming store.
fn pair_half(how: Access, h: u8) -> Access {
    Access {
        pair: Some(h),
        consecutive: false,
        known: Known::Tested,
        prefetch: false,
        ahead: None,
        stream: false,
        ..how
    }
}

/// Half `h` of a [`pairs`] access of `double`s: [`pair_half`], its lanes
/// known consecutive (`known`: [`Known::FromLane0`], which `pair_access`
/// reads; the access stays `consecutive: false`, which the passes of
/// 4-byte elements read).
fn double_half(how: Access, h: u8, known: bool) -> Access {
    let half = pair_half(how, h);
    Access {
        known: if known { Known::FromLane0 } else { half.known },
        ..half
    }
}

fn component_access(mut how: Access, c: usize) -> Access {
    if let Some(check) = &mut how.check {
        check.component = c as u32;
    }
    how
}

/// Whether `t` is a `float`, `int` or `uint`, or a vector of 2 to 4 of
/// them (an element the memory path accesses, a component at a time).
fn four_bytes(t: &Type) -> bool {
    matches!(
        class(t),
        Some(Class::F32) | Some(Class::I32) | Some(Class::U32)
    ) || matches!(
        vector_class(t),
        Some((Class::F32 | Class::I32 | Class::U32, _))
    ) || byte_vector(t).is_some()
}

/// The component class and count of a vector of 2 to 4 `float`s, `int`s,
/// `uint`s, `char`s or `uchar`s.
fn vector_class(t: &Type) -> Option<(Class, u8)> {
    match t {
        Type::Vector(
            s @ (Scalar::F32 | Scalar::I32 | Scalar::U32 | Scalar::U8 | Scalar::I8),
            n @ 2..=4,
        ) => class(&Type::Scalar(*s)).map(|c| (c, *n)),
        _ => None,
    }
}

/// Whether `t` is a `char` (`Some(true)`) or a `uchar` (`Some(false)`):
/// an element of its own path, the index counting bytes
/// ([`access::Access::byte`]).
fn byte_scalar(t: &Type) -> Option<bool> {
    match t {
        Type::Scalar(Scalar::I8) => Some(true),
        Type::Scalar(Scalar::U8) => Some(false),
        _ => None,
    }
}

/// Whether `t` is a `char4` (`Some(true)`) or a `uchar4` (`Some(false)`):
/// four bytes that the memory path moves as one 32-bit element, byte `c`
/// of the element component `c`.
fn byte_vector(t: &Type) -> Option<bool> {
    match t {
        Type::Vector(Scalar::I8, 4) => Some(true),
        Type::Vector(Scalar::U8, 4) => Some(false),
        _ => None,
    }
}

/// The component type of a vector type.
fn component_type(t: &Type) -> Type {
    match t {
        Type::Vector(s, _) => Type::Scalar(*s),
        other => other.clone(),
    }
}

/// The vector `ty` of the lane values `c`, if they are its components.
fn vector_of(c: &[V], ty: &Type) -> Option<Val> {
    let (_, n) = vector_class(ty)?;
    if c.len() != usize::from(n) {
        return None;
    }
    let mut out = [V(0); 4];
    out[..c.len()].copy_from_slice(c);
    Some(Val::Vs(out, n))
}

/// 4-byte words of a 4-byte scalar or an array of them (`None` for other
/// types).
fn words(t: &Type) -> Option<u32> {
    match t {
        Type::Scalar(Scalar::F32 | Scalar::I32 | Scalar::U32) => Some(1),
        Type::Vector(Scalar::F32 | Scalar::I32 | Scalar::U32, n @ 2..=4) => {
            Some(if *n == 3 { 4 } else { u32::from(*n) })
        }
        Type::Vector(Scalar::U8 | Scalar::I8, 4) => Some(1),
        Type::Array(e, n) => words(e).and_then(|w| w.checked_mul(*n)),
        _ => None,
    }
}

/// The words of a `double` (two) or an array of them, `None` for other
/// types.
fn double_words(t: &Type) -> Option<u32> {
    match t {
        Type::Array(e, n) => double_words(e).and_then(|w| w.checked_mul(*n)),
        t => (class(t) == Some(Class::F64)).then_some(2),
    }
}

/// Bytes of a scalar pointee (`None` for other types).
fn module_size(t: &Type) -> Option<u32> {
    match t {
        Type::Scalar(s) => Some(s.size()),
        _ => None,
    }
}

/// An instruction outside the subset, in words.
fn describe(inst: &Inst) -> String {
    match inst {
        Inst::Atomic { .. } => "an atomic".into(),
        Inst::Call(..) => "a call".into(),
        Inst::SlotAddr(_) => "private memory".into(),
        Inst::GlobalAddr(_) => "a program-scope variable".into(),
        Inst::Splat(_) | Inst::Construct(_) | Inst::Extract(..) | Inst::Insert(..) => {
            "a vector value".into()
        }
        Inst::Shuffle(..) => "a shuffle".into(),
        Inst::Field(..) | Inst::Elem(..) => "a struct or array access".into(),
        Inst::PtrToInt(_) | Inst::IntToPtr(_) => "a pointer-integer conversion".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `t1 = fma(a, b, v)` (through a copy of `v` when `copy`), a plain
    /// copy of it (a temporary variable), `t2 = fma(c, e, t1)`, `v = t2`
    /// under `k`, with `between` pushed after the first FMA.
    fn chain(copy: bool, between: impl Fn(&mut Program, [V; 5], K)) -> Program {
        let mut p = Program::new();
        let k = p.k();
        p.push(Op::RunningLanes { d: k });
        let [v, a, b, c, e] = [(); 5].map(|_| p.splat_f32(1.5));
        let from = if copy {
            let r = p.v();
            p.push(Op::Copy { d: r, a: v });
            r
        } else {
            v
        };
        let t1 = p.fma(a, b, from);
        between(&mut p, [v, a, b, c, e], k);
        let w = p.v();
        p.push(Op::Copy { d: w, a: t1 });
        let t2 = p.fma(c, e, w);
        p.push(Op::MaskedCopy { d: v, a: t2, k });
        p
    }

    fn merged(p: &Program) -> usize {
        p.ops()
            .iter()
            .filter(|op| matches!(op, Op::FmaMasked { .. }))
            .count()
    }

    #[test]
    fn fma_chains_merge_into_their_variable() {
        for copy in [false, true] {
            let mut p = chain(copy, |_, _, _| {});
            merge_masked_fma_chains(&mut p);
            assert_eq!(merged(&p), 2, "{:?}", p.ops());
            assert!(!p
                .ops()
                .iter()
                .any(|op| matches!(op, Op::MaskedCopy { .. } | Op::Fma { .. })));
        }
    }

    #[test]
    fn fma_chains_stay_where_the_variable_or_mask_changes_between() {
        // The variable read, the variable written, the mask written, a
        // loop boundary, and the temporary read a second time.
        let cases: Vec<Box<dyn Fn(&mut Program, [V; 5], K)>> = vec![
            Box::new(|p, [v, a, ..], _| {
                p.bin(Bin::FAdd, v, a);
            }),
            Box::new(|p, [v, a, ..], _| p.push(Op::Copy { d: v, a })),
            Box::new(|p, _, k| p.push(Op::KNot { d: k, a: k })),
            Box::new(|p, _, _| p.push(Op::Loop)),
            Box::new(|p, [_, _, _, c, _], _| {
                // The chain's first result read elsewhere.
                let t1 = V(p.numbered().0 - 1);
                p.bin(Bin::FMul, t1, c);
            }),
        ];
        for between in cases {
            let mut p = chain(false, between);
            merge_masked_fma_chains(&mut p);
            assert_eq!(merged(&p), 0, "{:?}", p.ops());
        }
        // A factor that is the variable itself.
        let mut p = Program::new();
        let k = p.k();
        p.push(Op::RunningLanes { d: k });
        let [v, a] = [(); 2].map(|_| p.splat_f32(2.0));
        let t = p.fma(v, a, v);
        p.push(Op::MaskedCopy { d: v, a: t, k });
        merge_masked_fma_chains(&mut p);
        assert_eq!(merged(&p), 0, "{:?}", p.ops());
    }

    /// Inside a loop: a load of a sum `t = [part + idx]` under `k`, then
    /// `between`, then `v{k} += t · b` (`t` the second factor when
    /// `second`).
    fn sum_then_fma(second: bool, between: impl Fn(&mut Program, [V; 4], K)) -> Program {
        let mut p = Program::new();
        let k = p.k();
        p.push(Op::RunningLanes { d: k });
        let [v, b, part, idx] = [(); 4].map(|_| p.splat_f32(1.0));
        p.push(Op::Loop);
        let t = p.v();
        p.push(Op::LoadSum {
            d: t,
            ptr: 0,
            idx,
            part,
            disp: 0,
            k,
            how: Access {
                uniform: true,
                lane0: true,
                ..Default::default()
            },
        });
        between(&mut p, [v, b, part, idx], k);
        let (a, b) = if second { (b, t) } else { (t, b) };
        p.push(Op::FmaMasked { d: v, a, b, k });
        p.push(Op::WhileAny { k });
        p
    }

    fn fused(p: &Program) -> usize {
        p.ops()
            .iter()
            .filter(|op| matches!(op, Op::FmaSum { .. }))
            .count()
    }

    #[test]
    fn loads_of_sums_fuse_into_the_fma_that_reads_them() {
        for second in [false, true] {
            let mut p = sum_then_fma(second, |p, [_, b, ..], _| {
                p.bin(Bin::FMul, b, b);
            });
            fuse_sum_loads(&mut p);
            assert_eq!(fused(&p), 1, "{:?}", p.ops());
            assert!(!p.ops().iter().any(|op| matches!(op, Op::LoadSum { .. })));
        }
    }

    #[test]
    fn loads_of_sums_stay_where_the_fma_would_read_otherwise() {
        // The mask, the index or its part written between, a store, the
        // loop's end, the loaded value read again, the FMA under another
        // mask, and the value as both factors.
        let cases: Vec<Box<dyn Fn(&mut Program, [V; 4], K)>> = vec![
            Box::new(|p, _, k| p.push(Op::KNot { d: k, a: k })),
            Box::new(|p, [_, _, _, idx], _| p.push(Op::Copy { d: idx, a: idx })),
            Box::new(|p, [_, _, part, _], _| p.push(Op::Copy { d: part, a: part })),
            Box::new(|p, [v, ..], _| {
                p.push(Op::Store {
                    a: v,
                    arg: Arg::Save,
                    off: 0,
                })
            }),
            Box::new(|p, _, k| {
                p.push(Op::WhileAny { k });
                p.push(Op::Loop);
            }),
            Box::new(|p, [_, b, ..], _| {
                let t = V(p.numbered().0 - 1);
                p.bin(Bin::FAdd, t, b);
            }),
        ];
        for between in cases {
            let mut p = sum_then_fma(false, between);
            fuse_sum_loads(&mut p);
            assert_eq!(fused(&p), 0, "{:?}", p.ops());
        }
        // Another mask.
        let mut p = sum_then_fma(false, |_, _, _| {});
        let other = p.k();
        for op in &mut p.ops {
            if let Op::FmaMasked { k, .. } = op {
                *k = other;
            }
        }
        fuse_sum_loads(&mut p);
        assert_eq!(fused(&p), 0, "{:?}", p.ops());
        // Both factors the loaded value.
        let mut p = sum_then_fma(false, |_, _, _| {});
        for op in &mut p.ops {
            if let Op::FmaMasked { a, b, .. } = op {
                *b = *a;
            }
        }
        fuse_sum_loads(&mut p);
        assert_eq!(fused(&p), 0, "{:?}", p.ops());
    }
}

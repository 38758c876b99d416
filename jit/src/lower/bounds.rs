//! Checked mode: a bounds test in front of every memory access.
//!
//! The access paths of [`super::memory`] call in here before they touch
//! memory; in unchecked kernels (`KernelEnv::checks` is `None`) every entry
//! returns at once and emits nothing, so unchecked code is unchanged.
//!
//! **What an access may touch.** The pointer is followed back through
//! `index`, `elem`, `field`, casts, selects and the assignments of a
//! variable to where it comes from ([`Origin`]): a kernel parameter (its
//! buffer's `[start, end)` from the bounds table the runtime appends to the
//! argument block, see `crate::abi`), a module-scope variable (its own
//! bytes), or a private slot (the accessing work-item's own copy of the
//! slot). When the chain is lost (a pointer loaded from memory, arithmetic
//! through integers), every range of the pointer's address space is
//! allowed: all buffers and the module data for `__global`/`__constant`,
//! the launch's whole `__local` arena, the chunk's private area and struct
//! parameters for `__private`, all of these for generic pointers.
//!
//! **When.** Only active lanes are tested, before the access: a uniform
//! address once, a per-lane access lane by lane (one branch for all lanes),
//! a whole-vector access as one test of its span
//! ([`FunctionCx::vector_test`]). In a full chunk of consecutive accesses
//! (the vector path's own test a constant) into one valid range, a span
//! that does not fit is a fault of a running lane, reported from a cold
//! block that finds that lane, so the chunk loop keeps no per-lane path
//! (and no registers for one); elsewhere the test is folded into the
//! run-time test that picks the vector path, and a vector that does not
//! fit falls back to the per-lane path, which finds the exact lane. A
//! `__local` load under a partial mask tests only the span of its running
//! lanes. A test against one range is two compares, each branching to the
//! cold block. A failed test branches to
//! a cold block that records the fault ([`crate::abi::vecl_checked_fault`]:
//! address, size, the first offending work-item's global id, the source
//! line of the pointer) and returns `KernelStatus::OutOfBounds` from the
//! entry.
//!
//! **Proven accesses.** An access into an object of known size (a
//! `__local` or program-scope variable, a private slot) whose byte offset
//! the integer ranges of `vecl_ir::analysis::ranges` keep inside the object
//! for every work-item gets no test at all ([`FunctionCx::proven_in_bounds`]):
//! `local_bins[data[i]]` with `data` a `uchar` buffer and 256 bins.
//!
//! **Proven for the group size.** Most indices into a `__local` tile are
//! bounded by the work-group's size, which only the launch knows
//! (`ta[get_local_id(1)][k]` of a 16×16 tile). [`trusted_group_bound`]
//! picks, at compile time, the largest bound `L` under which such accesses
//! are in bounds (every local id below `L`, every local size at most `L`,
//! `reqd_work_group_size` where the kernel has it); the code proves
//! accesses with those facts as well, and `CompiledKernel::run_groups`
//! runs it only for launches whose groups are within `L` in every
//! dimension. Any other launch runs a copy compiled without the bound, at
//! its first such launch: every access is checked there as before.
//! Accesses through a `__local` *parameter* whose offsets stay within an
//! element per work-item of the group's longest dimension are trusted the
//! same way ([`trusted_param_access`]); the launch's argument sizes are
//! checked against what they need ([`LocalNeed`]) beside its group size.
//!
//! **Proven at launch.** Accesses through a buffer parameter that the
//! launch's global size, scalar arguments and buffer sizes bound
//! (`c[get_global_id(0)]`, a clamped 2-D index) are chosen at compile time
//! by `crate::launch_proofs` from [`unproven_accesses`] and get no test
//! either ([`Checks::launch_trusted`]); `run_groups` proves them once per
//! launch, and runs a copy that tests them for a launch that does not.

use super::lanes::Lanes;
use super::linear::writes_of;
use super::{invariant, FunctionCx, LResult};
use crate::abi::{checked_offsets as co, launch_offsets as lo, pack_site};
use crate::abi::{AccessKind, ArgKind, KernelStatus};
use crate::layout::GlobalPlace;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value};
use std::sync::Arc;
use vecl_ir::analysis::ranges::{Facts, NoFacts, Range as Interval, Ranges};
use vecl_ir::{
    AddressSpace, Block, Function, GlobalId, Inst, Loc, Module, Scalar, SlotId, Stmt, ValueId,
    VarId, WorkItemFn,
};

/// What checked code needs to know beyond the kernel itself.
#[derive(Clone, Debug)]
pub(crate) struct Checks {
    /// Offset of the checked-mode tail in the argument block.
    pub tail: u32,
    /// Bytes of the kernel's module-scope data block.
    pub data_len: u64,
    /// The code runs only for groups of at most this many work-items in
    /// each dimension ([`trusted_group_bound`]); `None`: any group.
    pub group_bound: Option<u64>,
    /// Accesses (pointer, bytes) the code runs only for launches that
    /// prove them in bounds (`crate::launch_proofs`): no test.
    pub launch_trusted: Arc<[(ValueId, u32)]>,
    /// The kernel before the region rewrite, where it has a region graph
    /// (its loops cut by barriers are whole there: [`BeforeRegions`]).
    pub before_regions: Option<Arc<Function>>,
}

impl Checks {
    pub fn new(
        tail: u32,
        data_len: u64,
        group_bound: Option<u64>,
        launch_trusted: Arc<[(ValueId, u32)]>,
        before_regions: Option<Arc<Function>>,
    ) -> Checks {
        Checks {
            tail,
            data_len,
            group_bound,
            launch_trusted,
            before_regions,
        }
    }
}

/// `facts`, and for a value of `func` that the region rewrite kept from
/// `before` (the same kernel before it: the rewrite keeps every value's
/// number and adds new ones past them), the range `before`'s analysis
/// finds for it. A loop cut by barriers is taken apart by the rewrite
/// (its test, body and step in separate regions); in `before` it is
/// whole, and scan's doubling `offset` is bounded there
/// (`vecl_ir::analysis::ranges`, "Growing loops"). Both functions compute
/// the same values, so each range holds every value, and so does their
/// overlap.
struct BeforeRegions<'a> {
    facts: &'a dyn Facts,
    func: &'a Function,
    before: Option<(&'a Function, Ranges<'a>)>,
}

impl<'a> BeforeRegions<'a> {
    fn new(func: &'a Function, before: Option<&'a Function>, facts: &'a dyn Facts) -> Self {
        BeforeRegions {
            facts,
            func,
            before: before.map(|b| (b, Ranges::new(b, facts))),
        }
    }
}

impl Facts for BeforeRegions<'_> {
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Interval> {
        self.facts.work_item(f, dim)
    }

    fn param(&self, n: u32) -> Option<Interval> {
        self.facts.param(n)
    }

    fn value(&self, v: ValueId) -> Option<Interval> {
        let (b, ranges) = self.before.as_ref()?;
        let (now, then) = (self.func.insts.get(v.index())?, b.insts.get(v.index())?);
        // The same instruction (a variable's read may name the variable's
        // web instead): a value the rewrite kept.
        let same = now.ty == then.ty
            && match (&now.inst, &then.inst) {
                (Inst::ReadVar(_), Inst::ReadVar(_)) => true,
                (x, y) => x == y,
            };
        if same {
            ranges.of(v)
        } else {
            None
        }
    }
}

/// What holds in code that runs only for groups of at most `L` work-items
/// in each dimension: every local id is below `L`, every local size at
/// most `L`.
struct GroupBound(u64);

impl Facts for GroupBound {
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Interval> {
        let l = i128::from(self.0);
        // Past the third dimension a local id is 0 and a size 1.
        let past = dim.is_some_and(|d| d >= 3);
        match f {
            WorkItemFn::LocalId if past => Some(Interval::exact(0)),
            WorkItemFn::LocalSize | WorkItemFn::EnqueuedLocalSize if past => {
                Some(Interval::exact(1))
            }
            WorkItemFn::LocalId => Some(Interval::new(0, l - 1)),
            WorkItemFn::LocalSize | WorkItemFn::EnqueuedLocalSize => Some(Interval::new(1, l)),
            _ => None,
        }
    }

    fn param(&self, _: u32) -> Option<Interval> {
        None
    }
}

/// The bounds [`trusted_group_bound`] tries, largest first.
const GROUP_BOUNDS: [u64; 7] = [1024, 512, 256, 128, 64, 32, 16];

/// The group bound `L` checked code of `func` trusts (see the module's
/// comment): the largest of [`GROUP_BOUNDS`] under which every access that
/// some bound proves is proven (`max(reqd_work_group_size)` where the
/// kernel gives one); `None` when no access gains from one.
pub(crate) fn trusted_group_bound(
    module: &Module,
    func: &Function,
    before: Option<&Function>,
    reqd: Option<[u32; 3]>,
) -> Option<u64> {
    let accesses = accesses_of(func);
    let size = |p: ValueId| pointee_size(module, func, p);
    let none = Ranges::new(func, &NoFacts);
    let gaining: Vec<ValueId> = accesses
        .into_iter()
        .filter(|p| !provable(module, func, &none, *p, size(*p)))
        .collect();
    let proves = |l: u64, p: ValueId| {
        let bound = GroupBound(l);
        let facts = BeforeRegions::new(func, before, &bound);
        let ranges = Ranges::new(func, &facts);
        provable(module, func, &ranges, p, size(p))
            || trusted_param_access(module, func, &ranges, p, size(p), l)
    };
    if let Some(r) = reqd {
        let l = u64::from(r.into_iter().max().unwrap_or(1).max(1));
        return gaining.iter().any(|p| proves(l, *p)).then_some(l);
    }
    // The largest bound proving each access, and the least of those.
    let mut bound: Option<u64> = None;
    for p in gaining {
        if let Some(l) = GROUP_BOUNDS.into_iter().find(|l| proves(*l, p)) {
            bound = Some(bound.map_or(l, |b| b.min(l)));
        }
    }
    bound
}

/// The accesses of `func` (pointer, bytes of its element) that no
/// compile-time proof covers, under the group bound `group_bound` where
/// the code trusts one: those a launch may prove (`crate::launch_proofs`).
pub(crate) fn unproven_accesses(
    module: &Module,
    func: &Function,
    before: Option<&Function>,
    group_bound: Option<u64>,
) -> Vec<(ValueId, u32)> {
    let none = Ranges::new(func, &NoFacts);
    let bound = group_bound.map(GroupBound);
    let facts = bound.as_ref().map(|b| BeforeRegions::new(func, before, b));
    let bounded = facts.as_ref().map(|f| Ranges::new(func, f));
    accesses_of(func)
        .into_iter()
        .map(|p| (p, pointee_size(module, func, p)))
        .filter(|&(p, size)| {
            if provable(module, func, &none, p, size) {
                return false;
            }
            match (&bounded, group_bound) {
                (Some(r), Some(l)) => {
                    !(provable(module, func, r, p, size)
                        || trusted_param_access(module, func, r, p, size, l))
                }
                _ => true,
            }
        })
        .collect()
}

/// The accesses of `func` that checked code trusting the group bound
/// `group_bound` and the launch proofs of `launch_trusted` emits no test
/// for, and whose offsets are small: the proven ones into objects of known
/// size and `__local` parameters ([`unproven_accesses`]' complement), and
/// those of `launch_trusted` through a `__local` parameter. The wide code
/// leaves them untested too (`wide::access::MemoryPlan::with_trusted`):
/// it runs only where this code would (the same `run_groups` tests), and
/// its 32-bit index lanes hold every offset into the `__local` arena or
/// an object, where an index into a `__global` buffer proven at launch
/// may not fit them.
pub(crate) fn small_trusted_accesses(
    module: &Module,
    func: &Function,
    before: Option<&Function>,
    group_bound: Option<u64>,
    launch_trusted: &[(ValueId, u32)],
) -> Vec<ValueId> {
    let unproven = unproven_accesses(module, func, before, group_bound);
    let mut out: Vec<ValueId> = accesses_of(func)
        .into_iter()
        .filter(|p| {
            let size = pointee_size(module, func, *p);
            if !unproven.iter().any(|&(u, _)| u == *p) {
                return true;
            }
            func.ty(*p).address_space() == Some(AddressSpace::Local)
                && launch_trusted.iter().any(|&(t, n)| t == *p && size <= n)
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Every pointer `func` loads, stores, copies or makes an atomic through.
fn accesses_of(func: &Function) -> Vec<ValueId> {
    let mut accesses = Vec::new();
    for d in &func.insts {
        match &d.inst {
            Inst::Load(p) | Inst::Atomic { ptr: p, .. } => accesses.push(*p),
            _ => {}
        }
    }
    stored_through(&func.body, &mut accesses);
    accesses
}

/// Bytes of what `p` points to (at least 1).
fn pointee_size(module: &Module, func: &Function, p: ValueId) -> u32 {
    func.ty(p).pointee().map_or(1, |t| module.size_of(t).max(1))
}

/// Whether the access of `bytes` bytes through `ptr` goes into a `__local`
/// parameter at offsets that `ranges` (the facts of the group bound `l`)
/// keep within `[0, e·l)`, `e` the size of the parameter's element: in
/// bounds when the parameter holds an element per work-item of the
/// group's longest dimension, which the launch checks
/// ([`LocalNeed`]). An access that reaches further (`scratch[lid + 1]`)
/// is left to its test, so that it does not send every launch of the
/// usual sizes to the copy that tests all.
fn trusted_param_access(
    module: &Module,
    func: &Function,
    ranges: &Ranges,
    ptr: ValueId,
    bytes: u32,
    l: u64,
) -> bool {
    if bytes > pointee_size(module, func, ptr) {
        return false;
    }
    let Some((Origin::Param(n), offset)) = object_offset(module, func, ranges, ptr, 0) else {
        return false;
    };
    let elem = param_elem_size(module, func, n);
    offset.lo >= 0 && offset.hi + i128::from(bytes) <= i128::from(elem) * i128::from(l)
}

/// Bytes of an element of `__local` pointer parameter `n` of `func`.
fn param_elem_size(module: &Module, func: &Function, n: u32) -> u32 {
    func.insts
        .iter()
        .find(|d| d.inst == Inst::Param(n))
        .and_then(|d| d.ty.pointee())
        .map_or(1, |t| module.size_of(t).max(1))
}

/// What a `__local` parameter must hold for checked code that trusts a
/// group bound to run a launch: `bytes[i]`, for launches whose groups are
/// at most `2^i` work-items in each dimension (for the trusted accesses
/// of [`trusted_param_access`], the end of the furthest one under that
/// bound). `CompiledKernel::run_groups` runs any other launch in the copy
/// that tests every access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocalNeed {
    /// The parameter's number.
    pub param: u32,
    pub bytes: Vec<u64>,
}

/// The [`LocalNeed`]s of `func`'s trusted `__local` parameter accesses
/// under the group bound `bound`.
pub(crate) fn local_param_needs(
    module: &Module,
    func: &Function,
    before: Option<&Function>,
    bound: u64,
) -> Vec<LocalNeed> {
    let group = GroupBound(bound);
    let facts = BeforeRegions::new(func, before, &group);
    let at_bound = Ranges::new(func, &facts);
    let trusted: Vec<ValueId> = accesses_of(func)
        .into_iter()
        .filter(|p| {
            let size = pointee_size(module, func, *p);
            trusted_param_access(module, func, &at_bound, *p, size, bound)
        })
        .collect();
    if trusted.is_empty() {
        return Vec::new();
    }
    // 1, 2, 4, … up to the first power of two at or past the bound.
    let steps = (bound.max(1).next_power_of_two().trailing_zeros() + 1) as usize;
    let mut needs: Vec<LocalNeed> = Vec::new();
    for i in 0..steps {
        let group = GroupBound((1u64 << i).min(bound));
        let facts = BeforeRegions::new(func, before, &group);
        let ranges = Ranges::new(func, &facts);
        for p in &trusted {
            let size = pointee_size(module, func, *p);
            let (n, need) = match object_offset(module, func, &ranges, *p, 0) {
                Some((Origin::Param(n), off)) if off.lo >= 0 => {
                    let end = off.hi + i128::from(size);
                    (n, u64::try_from(end).unwrap_or(u64::MAX))
                }
                Some((Origin::Param(n), _)) => (n, u64::MAX),
                _ => continue,
            };
            let entry = match needs.iter_mut().position(|e| e.param == n) {
                Some(k) => &mut needs[k],
                None => {
                    needs.push(LocalNeed {
                        param: n,
                        bytes: vec![0; steps],
                    });
                    needs.last_mut().expect("just pushed")
                }
            };
            entry.bytes[i] = entry.bytes[i].max(need);
        }
    }
    needs
}

/// The pointers `block` stores or copies through.
fn stored_through(block: &Block, out: &mut Vec<ValueId>) {
    vecl_ir::transform::compact::walk_stmts(block, &mut |s| match s {
        Stmt::Store { ptr, .. } => out.push(*ptr),
        Stmt::Copy { dst, src, .. } => out.extend([*dst, *src]),
        _ => {}
    });
}

/// The object `ptr` points into and the range of its byte offset in it,
/// when its chain of `index`/`elem`/casts leads to a variable or a slot
/// and every index has a known range.
fn object_offset(
    module: &Module,
    func: &Function,
    ranges: &Ranges,
    ptr: ValueId,
    depth: u32,
) -> Option<(Origin, Interval)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &func.inst(ptr).inst {
        Inst::GlobalAddr(g) => Some((Origin::Global(*g), Interval::exact(0))),
        // Only a `__local` parameter: its size is the launch's, checked
        // there (`LocalNeed`).
        Inst::Param(n) if func.ty(ptr).address_space() == Some(AddressSpace::Local) => {
            Some((Origin::Param(*n), Interval::exact(0)))
        }
        Inst::SlotAddr(s) => Some((Origin::Slot(*s), Interval::exact(0))),
        Inst::PtrCast(p) => object_offset(module, func, ranges, *p, depth + 1),
        Inst::Index(p, i) | Inst::Elem(p, i) => {
            let (origin, base) = object_offset(module, func, ranges, *p, depth + 1)?;
            let elem = func.ty(ptr).pointee()?;
            let step = ranges.of(*i)?.scaled(u64::from(module.size_of(elem)))?;
            Some((origin, Interval::new(base.lo + step.lo, base.hi + step.hi)))
        }
        Inst::ReadVar(var) => {
            let mut writes = Vec::new();
            writes_of(&func.body, *var, &mut writes);
            match writes[..] {
                [one] => object_offset(module, func, ranges, one, depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether every access of `bytes` bytes through `ptr` lies inside the
/// object it points into, for the values `ranges` allows.
fn provable(module: &Module, func: &Function, ranges: &Ranges, ptr: ValueId, bytes: u32) -> bool {
    let Some((origin, offset)) = object_offset(module, func, ranges, ptr, 0) else {
        return false;
    };
    let size = match origin {
        Origin::Global(g) => module
            .globals
            .get(g.index())
            .map(|gl| module.size_of(&gl.ty)),
        Origin::Slot(s) => func.slots.get(s.index()).map(|sl| module.size_of(&sl.ty)),
        _ => None,
    };
    size.is_some_and(|size| offset.lo >= 0 && offset.hi + i128::from(bytes) <= i128::from(size))
}

/// Why an access needs no test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    /// In bounds for every launch.
    Always,
    /// For groups within the trusted bound ([`trusted_group_bound`]).
    Group,
    /// For the launches `crate::launch_proofs` lets the code run.
    Launch,
}

/// How a bounds test fails, for [`FunctionCx::fault_when`].
#[derive(Clone, Copy, Debug)]
enum Failing {
    /// When this `i8` is set.
    When(Value),
    /// When `a` lies outside `[lo, hi]`.
    Outside { a: Value, lo: Value, hi: Value },
}

/// Where a pointer points, as far as the IR shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Param(u32),
    Global(GlobalId),
    Slot(SlotId),
    /// Somewhere in this address space.
    Space(AddressSpace),
    /// Anywhere the kernel may access.
    Anywhere,
}

/// A range of valid bytes as the generated code sees it, computed where
/// the test is. The bounds-table loads are read-only and movable: Cranelift
/// merges the loads of one parameter's bounds and hoists them out of the
/// chunk loop where registers allow (a plain load at each test measured up
/// to 14 % more instructions on the bench kernels, 3 % fewer on matmul).
#[derive(Clone, Copy, Debug)]
enum Range {
    /// `[start, end)` for every lane.
    Shared { start: Value, end: Value },
    /// Lane `j`'s own `[start + j * stride, + len)` (private slots).
    PerLane { start: Value, stride: u32, len: u32 },
}

/// Accesses of at most this many bytes are tested as `start <= a <= end - n`
/// without guarding `end - n` against wrapping around: every valid range
/// ends at a host address past the first page, or is the empty marker
/// `[u64::MAX, u64::MAX)` (see `crate::abi`). Longer ones take the exact
/// test.
const SHORT_ACCESS: u64 = 4096;

/// How far a pointer's definition is followed.
const MAX_DEPTH: u32 = 32;

impl FunctionCx<'_, '_> {
    /// Where `ptr` points: the origin of its chain, or its address space.
    fn origin(&self, ptr: ValueId) -> Origin {
        let mut seen = Vec::new();
        self.origin_in(ptr, &mut seen, 0)
            .unwrap_or_else(|| self.space_of(ptr))
    }

    fn space_of(&self, v: ValueId) -> Origin {
        match self.kernel.func().ty(v).address_space() {
            Some(AddressSpace::Generic) | None => Origin::Anywhere,
            Some(space) => Origin::Space(space),
        }
    }

    /// `None` when `v` only leads back to a variable being followed (the
    /// other assignments decide).
    fn origin_in(&self, v: ValueId, seen: &mut Vec<VarId>, depth: u32) -> Option<Origin> {
        if depth > MAX_DEPTH {
            return Some(self.space_of(v));
        }
        let d = depth + 1;
        let joined = |a: Option<Origin>, b: Option<Origin>| match (a, b) {
            (Some(x), Some(y)) if x == y => Some(x),
            (Some(_), Some(_)) => Some(self.space_of(v)),
            (x, None) | (None, x) => x,
        };
        match &self.kernel.func().inst(v).inst {
            Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
                self.origin_in(*p, seen, d)
            }
            Inst::Param(n) => Some(Origin::Param(*n)),
            Inst::GlobalAddr(g) => Some(Origin::Global(*g)),
            Inst::SlotAddr(s) => Some(Origin::Slot(*s)),
            Inst::Select(_, a, b) => {
                let x = self.origin_in(*a, seen, d);
                let y = self.origin_in(*b, seen, d);
                joined(x, y)
            }
            Inst::ReadVar(var) => {
                if seen.contains(var) {
                    return None;
                }
                seen.push(*var);
                let mut writes = Vec::new();
                writes_of(&self.kernel.func().body, *var, &mut writes);
                let mut acc = None;
                for w in writes {
                    let o = self.origin_in(w, seen, d);
                    acc = joined(acc, o);
                }
                seen.pop();
                Some(acc.unwrap_or_else(|| self.space_of(v)))
            }
            _ => Some(self.space_of(v)),
        }
    }

    /// Whether every access of `bytes` bytes through `ptr`, by any
    /// work-item, lies inside the object it points into (a test of it
    /// could never fail): for every launch, or for the launches this code
    /// runs (groups within [`Checks::group_bound`]).
    pub fn proven_in_bounds(&self, ptr: ValueId, bytes: u32) -> bool {
        self.proof_of(ptr, bytes).is_some()
    }

    /// How the access is proven in bounds; `None`: it is not.
    fn proof_of(&self, ptr: ValueId, bytes: u32) -> Option<Proof> {
        let ranges = Ranges::new(self.kernel.func(), &NoFacts);
        if provable(
            self.kernel.module(),
            self.kernel.func(),
            &ranges,
            ptr,
            bytes,
        ) {
            return Some(Proof::Always);
        }
        let checks = self.kernel.checks()?;
        if checks
            .launch_trusted
            .iter()
            .any(|&(p, n)| p == ptr && bytes <= n)
        {
            return Some(Proof::Launch);
        }
        let l = checks.group_bound?;
        let group = GroupBound(l);
        let (module, func) = (self.kernel.module(), self.kernel.func());
        let facts = BeforeRegions::new(func, checks.before_regions.as_deref(), &group);
        let ranges = Ranges::new(func, &facts);
        let proven = provable(module, func, &ranges, ptr, bytes)
            || trusted_param_access(module, func, &ranges, ptr, bytes, l);
        proven.then_some(Proof::Group)
    }

    /// The source position of the access through `ptr`: the pointer's own,
    /// or that of the pointer it is computed from.
    fn site_loc(&self, ptr: ValueId) -> Loc {
        let mut v = ptr;
        for _ in 0..8 {
            let data = self.kernel.func().inst(v);
            if data.loc.is_known() {
                return data.loc;
            }
            match &data.inst {
                Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
                    v = *p
                }
                _ => break,
            }
        }
        Loc::NONE
    }

    /// A `[start, end)` pair of the bounds table (`local`: offsets into
    /// the `__local` arena).
    fn table_range(&mut self, tail: u32, param: u32, local: bool) -> Range {
        let args = self.env().args;
        let at = tail as i32 + co::BOUNDS + co::BOUNDS_ENTRY * param as i32;
        let plain = super::invariant();
        let start = self.b.ins().load(types::I64, plain, args, at);
        let end = self.b.ins().load(types::I64, plain, args, at + 8);
        if local {
            let base = self.env().local_mem;
            let s = self.b.ins().iadd(base, start);
            let e = self.b.ins().iadd(base, end);
            Range::Shared { start: s, end: e }
        } else {
            Range::Shared { start, end }
        }
    }

    fn sized(&mut self, start: Value, len: u64) -> Range {
        let end = self.b.ins().iadd_imm_s(start, len as i64);
        Range::Shared { start, end }
    }

    /// The ranges an access from `origin` may touch.
    fn valid_ranges(&mut self, origin: Origin) -> LResult<Vec<Range>> {
        let Some(checks) = self.kernel.checks().cloned() else {
            return Ok(Vec::new());
        };
        let slots = self.kernel.arg_slots().to_vec();
        let mut out = Vec::new();
        match origin {
            Origin::Param(n) => match slots.get(n as usize).map(|s| (s.kind, s.offset, s.size)) {
                Some((ArgKind::GlobalPointer, ..)) => {
                    out.push(self.table_range(checks.tail, n, false))
                }
                Some((ArgKind::LocalPointer, ..)) => {
                    out.push(self.table_range(checks.tail, n, true))
                }
                Some((ArgKind::ByValStruct, offset, size)) => {
                    let args = self.env().args;
                    let start = self.b.ins().iadd_imm_s(args, i64::from(offset));
                    out.push(self.sized(start, u64::from(size)));
                }
                _ => return self.valid_ranges(Origin::Anywhere),
            },
            Origin::Global(g) => {
                let size = self
                    .kernel
                    .module()
                    .globals
                    .get(g.index())
                    .map(|gl| self.kernel.module().size_of(&gl.ty))
                    .unwrap_or(0);
                let start = match self.kernel.places().get(g.index()).cloned().flatten() {
                    Some(GlobalPlace::Local(off)) => {
                        let base = self.env().local_mem;
                        self.b.ins().iadd_imm_s(base, i64::from(off))
                    }
                    Some(GlobalPlace::Data(off)) => self
                        .b
                        .ins()
                        .iconst(types::I64, (self.kernel.data_base() + off as u64) as i64),
                    None => return Err(self.internal("access to an unplaced global")),
                };
                out.push(self.sized(start, u64::from(size)));
            }
            Origin::Slot(s) => {
                let base = self
                    .private_base
                    .ok_or_else(|| self.internal("private memory without a base"))?;
                let (off, stride) = (
                    self.kernel.private().offsets[s.index()],
                    self.kernel.private().strides[s.index()],
                );
                let len = self
                    .kernel
                    .func()
                    .slots
                    .get(s.index())
                    .map(|sl| self.kernel.module().size_of(&sl.ty))
                    .unwrap_or(0);
                let start = self.b.ins().iadd_imm_s(base, i64::from(off));
                out.push(Range::PerLane { start, stride, len });
            }
            Origin::Space(AddressSpace::Global | AddressSpace::Constant) => {
                for (n, slot) in slots.iter().enumerate() {
                    if slot.kind == ArgKind::GlobalPointer {
                        out.push(self.table_range(checks.tail, n as u32, false));
                    }
                }
                if checks.data_len > 0 {
                    let start = self
                        .b
                        .ins()
                        .iconst(types::I64, self.kernel.data_base() as i64);
                    out.push(self.sized(start, checks.data_len));
                }
            }
            Origin::Space(AddressSpace::Local) => {
                let (base, launch) = (self.env().local_mem, self.env().launch);
                let len = self
                    .b
                    .ins()
                    .load(types::I64, invariant(), launch, lo::LOCAL_MEM_SIZE);
                let end = self.b.ins().iadd(base, len);
                out.push(Range::Shared { start: base, end });
            }
            Origin::Space(AddressSpace::Private) => {
                if let (Some(base), true) = (self.private_base, self.kernel.private().size > 0) {
                    out.push(self.sized(base, u64::from(self.kernel.private().size)));
                }
                let args = self.env().args;
                for slot in slots.iter().filter(|s| s.kind == ArgKind::ByValStruct) {
                    let start = self.b.ins().iadd_imm_s(args, i64::from(slot.offset));
                    out.push(self.sized(start, u64::from(slot.size)));
                }
            }
            Origin::Space(AddressSpace::Generic) | Origin::Anywhere => {
                for space in [
                    AddressSpace::Global,
                    AddressSpace::Local,
                    AddressSpace::Private,
                ] {
                    out.extend(self.valid_ranges(Origin::Space(space))?);
                }
            }
        }
        Ok(out)
    }

    /// The lowest and highest address an access of `n` bytes may start at
    /// in `range` (lane `lane`'s copy of a per-lane range; `None`: every
    /// lane's copies together).
    fn bounds_of(&mut self, range: Range, n: u64, lane: Option<u32>) -> (Value, Value) {
        let (start, end) = match range {
            Range::Shared { start, end } => (start, end),
            Range::PerLane { start, stride, len } => {
                let (first, span) = match lane {
                    Some(j) => (i64::from(j) * i64::from(stride), i64::from(len)),
                    None => (
                        0,
                        i64::from(self.kernel.w() - 1) * i64::from(stride) + i64::from(len),
                    ),
                };
                let s = self.b.ins().iadd_imm_s(start, first);
                (s, self.b.ins().iadd_imm_s(s, span))
            }
        };
        if n <= SHORT_ACCESS {
            return (start, self.b.ins().iadd_imm_s(end, -(n as i64)));
        }
        // The exact form: an empty interval when the range is shorter.
        let len = self.b.ins().isub(end, start);
        let ordered = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, start, end);
        let roomy = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, len, n as i64);
        let fits = self.b.ins().band(ordered, roomy);
        let last = self.b.ins().iadd_imm_s(end, -(n as i64));
        let one = self.b.ins().iconst(types::I64, 1);
        let zero = self.b.ins().iconst(types::I64, 0);
        let lo = self.b.ins().select(fits, start, one);
        let hi = self.b.ins().select(fits, last, zero);
        (lo, hi)
    }

    /// Whether `a` lies in `[lo, hi]` (an `i8`).
    fn within(&mut self, a: Value, (lo, hi): (Value, Value)) -> Value {
        let above = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, lo);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a, hi);
        self.b.ins().band(above, below)
    }

    /// Whether `[a, a + n)` lies in `range` (an `i8`).
    fn fits(&mut self, a: Value, n: u64, range: Range, lane: Option<u32>) -> LResult<Value> {
        let b = self.bounds_of(range, n, lane);
        Ok(self.within(a, b))
    }

    fn fits_any(
        &mut self,
        a: Value,
        n: u64,
        ranges: &[Range],
        lane: Option<u32>,
    ) -> LResult<Value> {
        let mut acc: Option<Value> = None;
        for r in ranges {
            let ok = self.fits(a, n, *r, lane)?;
            acc = Some(match acc {
                Some(x) => self.b.ins().bor(x, ok),
                None => ok,
            });
        }
        Ok(acc.unwrap_or_else(|| self.b.ins().iconst(types::I8, 0)))
    }

    /// Branches to a cold block reporting the fault when `bad` (an `i8`)
    /// is set; `culprit` emits, in that block, the offending lane (`i64`)
    /// and address.
    fn fault_if(
        &mut self,
        bad: Value,
        size: u64,
        kind: AccessKind,
        loc: Loc,
        culprit: impl FnOnce(&mut Self) -> (Value, Value),
    ) -> LResult<()> {
        self.fault_when(Failing::When(bad), size, kind, loc, culprit)
    }

    /// [`FunctionCx::fault_if`] for any way a test can fail.
    fn fault_when(
        &mut self,
        failing: Failing,
        size: u64,
        kind: AccessKind,
        loc: Loc,
        culprit: impl FnOnce(&mut Self) -> (Value, Value),
    ) -> LResult<()> {
        let tail = self
            .kernel
            .checks()
            .map(|c| c.tail)
            .ok_or_else(|| self.internal("a bounds check outside checked mode"))?;
        let (cold, cont) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        match failing {
            Failing::When(bad) => {
                self.b.ins().brif(bad, cold, &[], cont, &[]);
            }
            Failing::Outside { a, lo, hi } => {
                // Two compares, each branching on its own flags: no flags
                // materialised and combined.
                let upper = self.b.create_block();
                let below = self.b.ins().icmp(IntCC::UnsignedLessThan, a, lo);
                self.b.ins().brif(below, cold, &[], upper, &[]);
                self.b.switch_to_block(upper);
                let above = self.b.ins().icmp(IntCC::UnsignedGreaterThan, a, hi);
                self.b.ins().brif(above, cold, &[], cont, &[]);
            }
        }
        self.b.switch_to_block(cold);
        let (lane, addr) = culprit(self);
        // Plain loads: the cold block's values must not be merged with the
        // hot path's (that would keep them alive across the chunk loop).
        let env = self.env().clone();
        let plain = MemFlagsData::trusted();
        let record = self
            .b
            .ins()
            .load(types::I64, plain, env.args, tail as i32 + co::FAULT_RECORD);
        let local = [env.x0, env.y, env.z];
        let mut gid = [lane; 3];
        for (d, g) in gid.iter_mut().enumerate() {
            let at = 8 * d as i32;
            let size = self
                .b
                .ins()
                .load(types::I64, plain, env.launch, lo::LOCAL_SIZE + at);
            let offset = self
                .b
                .ins()
                .load(types::I64, plain, env.launch, lo::GLOBAL_OFFSET + at);
            let base = self.b.ins().imul(env.group_id[d], size);
            let base = self.b.ins().iadd(base, offset);
            let id = self.b.ins().iadd(base, local[d]);
            *g = if d == 0 {
                self.b.ins().iadd(id, lane)
            } else {
                id
            };
        }
        // A copy with lanes along another dimension runs the launch with
        // that dimension and 0 exchanged: report the launch's own ids.
        gid.swap(0, self.kernel.lanes_along());
        let size = self.b.ins().iconst(types::I64, size as i64);
        let site = self
            .b
            .ins()
            .iconst(types::I64, pack_site(kind, loc.line, loc.col) as i64);
        let f = self.extern_fn("vecl_checked_fault", &[types::I64; 7], None)?;
        self.call(f, &[record, addr, size, gid[0], gid[1], gid[2], site]);
        let status = self
            .b
            .ins()
            .iconst(types::I32, KernelStatus::OutOfBounds as i64);
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// The lowest active lane of the current mask (an `i64`; 0 if none).
    fn first_active_lane(&mut self) -> Value {
        let m = self.cur_mask();
        let mut lane = self.b.ins().iconst(types::I64, 0);
        for j in (0..self.kernel.w() as usize).rev() {
            let on = self.lane_active(&m, j);
            let k = self.b.ins().iconst(types::I64, j as i64);
            lane = self.b.ins().select(on, k, lane);
        }
        lane
    }

    /// Checks an access of `bytes` bytes through `ptr` (`None`: a pointer
    /// of unknown origin) at `addr` by the active lanes, before it is made.
    pub fn check_access(
        &mut self,
        ptr: Option<ValueId>,
        addr: &Lanes,
        bytes: u32,
        kind: AccessKind,
    ) -> LResult<()> {
        if self.kernel.checks().is_none() {
            return Ok(());
        }
        if let Some(proof) = ptr.and_then(|p| self.proof_of(p, bytes)) {
            self.stats.proven_in_bounds += 1;
            self.stats.proven_for_group += u32::from(proof == Proof::Group);
            self.stats.proven_for_launch += u32::from(proof == Proof::Launch);
            return Ok(());
        }
        let (origin, loc) = match ptr {
            Some(p) => (self.origin(p), self.site_loc(p)),
            None => (Origin::Anywhere, Loc::NONE),
        };
        let ranges = self.valid_ranges(origin)?;
        let n = u64::from(bytes);
        match addr {
            Lanes::Uniform(a) => {
                let a = *a;
                if let [r @ Range::Shared { .. }] = ranges[..] {
                    let (lo, hi) = self.bounds_of(r, n, None);
                    let failing = Failing::Outside { a, lo, hi };
                    return self
                        .fault_when(failing, n, kind, loc, |cx| (cx.first_active_lane(), a));
                }
                let ok = self.fits_any(a, n, &ranges, None)?;
                let bad = self.b.ins().icmp_imm_s(IntCC::Equal, ok, 0);
                self.fault_if(bad, n, kind, loc, |cx| (cx.first_active_lane(), a))
            }
            Lanes::Varying(pieces)
                if pieces.len() == self.kernel.w() as usize / 2
                    && !ranges.is_empty()
                    && ranges.iter().all(|r| matches!(r, Range::Shared { .. })) =>
            {
                self.check_lanes_as_vectors(addr, &ranges, n, kind, loc)
            }
            Lanes::Varying(_) => {
                let m = self.cur_mask();
                let mut lanes = Vec::with_capacity(self.kernel.w() as usize);
                let mut any: Option<Value> = None;
                // The bounds every lane shares, loaded once.
                let mut shared = Vec::with_capacity(ranges.len());
                for r in &ranges {
                    shared.push(match r {
                        Range::Shared { .. } => Some(self.bounds_of(*r, n, None)),
                        Range::PerLane { .. } => None,
                    });
                }
                for j in 0..self.kernel.w() as usize {
                    let a = self.lane(Scalar::U64, addr, j);
                    let on = self.lane_active(&m, j);
                    let on = self.b.ins().icmp_imm_s(IntCC::NotEqual, on, 0);
                    let mut ok: Option<Value> = None;
                    for (r, pre) in ranges.iter().zip(&shared) {
                        let b = match pre {
                            Some(b) => *b,
                            None => self.bounds_of(*r, n, Some(j as u32)),
                        };
                        let fits = self.within(a, b);
                        ok = Some(match ok {
                            Some(x) => self.b.ins().bor(x, fits),
                            None => fits,
                        });
                    }
                    let ok = ok.unwrap_or_else(|| self.b.ins().iconst(types::I8, 0));
                    let bad = self.b.ins().band_not(on, ok);
                    any = Some(match any {
                        Some(x) => self.b.ins().bor(x, bad),
                        None => bad,
                    });
                    lanes.push((bad, a));
                }
                let Some(any) = any else {
                    return Ok(());
                };
                self.fault_if(any, n, kind, loc, |cx| {
                    let mut lane = cx.b.ins().iconst(types::I64, 0);
                    let mut at = lanes[0].1;
                    for (j, (bad, a)) in lanes.iter().enumerate().rev() {
                        let k = cx.b.ins().iconst(types::I64, j as i64);
                        lane = cx.b.ins().select(*bad, k, lane);
                        at = cx.b.ins().select(*bad, *a, at);
                    }
                    (lane, at)
                })
            }
        }
    }

    /// The per-lane test of a varying access whose ranges are all shared
    /// by the lanes, in vector form: per `i64x2` piece of addresses, its
    /// offset from each range's start compared (unsigned) with the range's
    /// span, the pieces outside every range and'ed with the active lanes
    /// and or'ed together; one branch on any lane set. About a third of
    /// the instructions of testing lane by lane (two compares, the lane and
    /// its mask bit extracted, per lane and range); the cold block finds
    /// the first offending lane lane by lane.
    fn check_lanes_as_vectors(
        &mut self,
        addr: &Lanes,
        ranges: &[Range],
        n: u64,
        kind: AccessKind,
        loc: Loc,
    ) -> LResult<()> {
        let Lanes::Varying(pieces) = addr else {
            return Err(self.internal("a vector bounds test of a uniform address"));
        };
        let pieces = pieces.clone();
        // `[lo, hi]` as a start and a span: an empty interval (hi < lo)
        // becomes `[1, 1]`, which no host address reaches. The unsigned
        // test `a - lo > span` is made signed, which SSE has, by flipping
        // the top bit of both sides: of the span once, and of `a - lo` by
        // subtracting `lo` with its top bit flipped (four instructions a
        // piece where the unsigned compare took two more, and two more
        // loads of the sign constant).
        let flip = |cx: &mut Self, v: Value| {
            let top = cx.b.ins().iconst(types::I64, i64::MIN);
            cx.b.ins().bxor(v, top)
        };
        let mut windows = Vec::with_capacity(ranges.len());
        for r in ranges {
            let (lo, hi) = self.bounds_of(*r, n, None);
            let nonempty = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, hi, lo);
            let span = self.b.ins().isub(hi, lo);
            let one = self.b.ins().iconst(types::I64, 1);
            let zero = self.b.ins().iconst(types::I64, 0);
            let lo = self.b.ins().select(nonempty, lo, one);
            let span = self.b.ins().select(nonempty, span, zero);
            let lo = flip(self, lo);
            let span = flip(self, span);
            let lo = self.b.ins().splat(types::I64X2, lo);
            let span = self.b.ins().splat(types::I64X2, span);
            windows.push((lo, span));
        }
        // Every lane runs (a full chunk outside divergent control): the
        // mask needs no and.
        let all_on = self.chunk_full && self.mask.is_entry_mask();
        let m = self.cur_mask();
        let mut any: Option<Value> = None;
        for (k, a) in pieces.iter().enumerate() {
            let mut outside: Option<Value> = None;
            for &(lo, span) in &windows {
                let off = self.b.ins().isub(*a, lo);
                let out = self.b.ins().icmp(IntCC::SignedGreaterThan, off, span);
                outside = Some(match outside {
                    Some(x) => self.b.ins().band(x, out),
                    None => out,
                });
            }
            let Some(outside) = outside else {
                return Ok(());
            };
            // The active flags of lanes 2k and 2k + 1, widened to 64 bits.
            let bad = if all_on {
                outside
            } else {
                let quad = m[k / 2];
                let on = if k % 2 == 0 {
                    self.b.ins().swiden_low(quad)
                } else {
                    self.b.ins().swiden_high(quad)
                };
                self.b.ins().band(outside, on)
            };
            any = Some(match any {
                Some(x) => self.b.ins().bor(x, bad),
                None => bad,
            });
        }
        let Some(any) = any else {
            return Ok(());
        };
        let flag = self.b.ins().vany_true(any);
        let addr = addr.clone();
        let ranges = ranges.to_vec();
        self.fault_if(flag, n, kind, loc, move |cx| {
            let m = cx.cur_mask();
            let mut lane = cx.b.ins().iconst(types::I64, 0);
            let mut at = cx.lane(Scalar::U64, &addr, 0);
            for j in (0..cx.kernel.w() as usize).rev() {
                let a = cx.lane(Scalar::U64, &addr, j);
                let on = cx.lane_active(&m, j);
                let on = cx.b.ins().icmp_imm_s(IntCC::NotEqual, on, 0);
                let mut ok = cx.b.ins().iconst(types::I8, 0);
                for r in &ranges {
                    let b = cx.bounds_of(*r, n, None);
                    let fits = cx.within(a, b);
                    ok = cx.b.ins().bor(ok, fits);
                }
                let bad = cx.b.ins().band_not(on, ok);
                let k = cx.b.ins().iconst(types::I64, j as i64);
                lane = cx.b.ins().select(bad, k, lane);
                at = cx.b.ins().select(bad, a, at);
            }
            (lane, at)
        })
    }

    /// The bits of the current mask, lane `j` at bit `j` (an `i64`):
    /// the `i32x4` quads narrowed to bytes and their sign bits gathered.
    fn active_lane_bits(&mut self) -> Value {
        let m = self.cur_mask();
        let mut bits: Option<Value> = None;
        for (k, quads) in m.chunks(4).enumerate() {
            let q = |i: usize| quads.get(i).copied().unwrap_or(quads[0]);
            let lo = self.b.ins().snarrow(q(0), q(1));
            let hi = self.b.ins().snarrow(q(2), q(3));
            let bytes = self.b.ins().snarrow(lo, hi);
            let b = self.b.ins().vhigh_bits(types::I64, bytes);
            // Lanes past the mask's (when fewer than 4 quads) are copies.
            let b = if quads.len() < 4 {
                self.b.ins().band_imm_u(b, (1i64 << (4 * quads.len())) - 1)
            } else {
                b
            };
            let b = if k > 0 {
                self.b.ins().ishl_imm_u(b, 16 * k as i64)
            } else {
                b
            };
            bits = Some(match bits {
                Some(x) => self.b.ins().bor(x, b),
                None => b,
            });
        }
        bits.unwrap_or_else(|| self.b.ins().iconst(types::I64, 0))
    }

    /// The test of the whole-vector path of an access through `ptr` of W
    /// elements of `size` bytes starting at `first`, given the plan's own
    /// test `ok` (the lanes are consecutive and, but for a `__local` load
    /// under a partial mask, all running; see `FunctionCx::vector_plan`).
    ///
    /// Which bytes must lie in a valid range: the whole vector, or for a
    /// `__local` load under a partial mask (whose plan reads the lanes that
    /// are not running from the padded arena) only the running lanes'
    /// span, from the first to the last active lane, `[first + lo·size,
    /// first + (hi + 1)·size)` (the scan's `tmp[lid - offset]` in the
    /// chunk whose first lanes are off).
    ///
    /// Where the pointer has one valid range, a plan that holds with bytes
    /// outside it is a fault of a running lane: it branches to a cold block
    /// that finds that lane and reports it, and the test returned is `ok`
    /// alone. The per-lane path after it is then reached only when the plan
    /// fails; in a full chunk of consecutive accesses, where `ok` is a
    /// constant, that path is gone, and with it the registers it took from
    /// the vector path around it. With several ranges (a pointer of lost
    /// origin), the test is `ok` and'ed with the span's, and the per-lane
    /// path sorts out a vector that straddles two ranges.
    pub fn vector_test(
        &mut self,
        ptr: ValueId,
        ok: Value,
        first: Value,
        size: u32,
        kind: AccessKind,
        load: bool,
    ) -> LResult<Value> {
        if self.kernel.checks().is_none() || self.proven_in_bounds(ptr, size) {
            return Ok(ok);
        }
        let masked = load && self.masked_local_load(ptr);
        let origin = self.origin(ptr);
        let ranges = self.valid_ranges(origin)?;
        // A plan that is not a constant keeps its per-lane path anyway:
        // one branch on both tests is cheaper there than a fault branch
        // before it (the clamped reads of a convolution).
        let planned = super::fold::constant(self.b.func, ok) == Some(true);
        let r = match ranges[..] {
            [r @ Range::Shared { .. }] if planned || masked => r,
            _ if masked && ranges.iter().all(|r| matches!(r, Range::Shared { .. })) => {
                let fits = self.active_span_fits(&ranges, first, size)?;
                return Ok(self.b.ins().band(ok, fits));
            }
            _ => return self.and_vector_fits(ptr, ok, first, size),
        };
        let loc = self.site_loc(ptr);
        let n = u64::from(size);
        let span = n * u64::from(self.kernel.w());
        if !masked {
            // The plan holds (a constant): only the span decides.
            let (lo, hi) = self.bounds_of(r, span, None);
            let failing = Failing::Outside { a: first, lo, hi };
            self.fault_when(failing, n, kind, loc, move |cx| {
                cx.first_lane_outside(first, size, r, false)
            })?;
            return Ok(ok);
        }
        let whole = self.fits(first, span, r, None)?;
        let bad = self.b.ins().band_not(ok, whole);
        let cont = if masked {
            // The whole vector fitting is the common case; the running
            // lanes' span is worked out only when it does not.
            let (span, cont) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(bad, span, &[], cont, &[]);
            self.enter(span);
            let fits = self.active_span_fits(&[r], first, size)?;
            Some((self.b.ins().icmp_imm_s(IntCC::Equal, fits, 0), cont))
        } else {
            None
        };
        let bad = cont.map_or(bad, |(b, _)| b);
        self.fault_if(bad, n, kind, loc, move |cx| {
            cx.first_lane_outside(first, size, r, masked)
        })?;
        if let Some((_, cont)) = cont {
            self.b.ins().jump(cont, &[]);
            self.enter(cont);
        }
        Ok(ok)
    }

    /// In a cold block: the first lane (running, when `masked`) of a
    /// consecutive access of `size`-byte elements from `first` whose
    /// element leaves `r`, and its address.
    fn first_lane_outside(
        &mut self,
        first: Value,
        size: u32,
        r: Range,
        masked: bool,
    ) -> (Value, Value) {
        let m = masked.then(|| self.cur_mask());
        let b = self.bounds_of(r, u64::from(size), None);
        let mut lane = self.b.ins().iconst(types::I64, 0);
        let mut at = first;
        for j in (0..self.kernel.w() as usize).rev() {
            let a = self.b.ins().iadd_imm_s(first, j as i64 * i64::from(size));
            let inside = self.within(a, b);
            let out = self.b.ins().icmp_imm_s(IntCC::Equal, inside, 0);
            let out = match &m {
                Some(m) => {
                    let on = self.lane_active(m, j);
                    let on = self.b.ins().icmp_imm_s(IntCC::NotEqual, on, 0);
                    self.b.ins().band(on, out)
                }
                None => out,
            };
            let k = self.b.ins().iconst(types::I64, j as i64);
            lane = self.b.ins().select(out, k, lane);
            at = self.b.ins().select(out, a, at);
        }
        (lane, at)
    }

    /// Whether the running lanes' elements of a consecutive access of
    /// `size`-byte elements from `first` lie in one of `ranges` (an `i8`;
    /// set when no lane runs).
    fn active_span_fits(&mut self, ranges: &[Range], first: Value, size: u32) -> LResult<Value> {
        let bits = self.active_lane_bits();
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, bits, 0);
        let lo = self.b.ins().ctz(bits);
        let lead = self.b.ins().clz(bits);
        // The last active lane is 63 - lead.
        let head = self.b.ins().imul_imm_s(lo, i64::from(size));
        let head = self.b.ins().iadd(first, head);
        let tail = self.b.ins().imul_imm_s(lead, -i64::from(size));
        let tail = self.b.ins().iadd(first, tail);
        let tail = self.b.ins().iadd_imm_s(tail, 63 * i64::from(size));
        let mut acc = none;
        for r in ranges {
            let a = self.fits(head, u64::from(size), *r, None)?;
            let b = self.fits(tail, u64::from(size), *r, None)?;
            let both = self.b.ins().band(a, b);
            acc = self.b.ins().bor(acc, both);
        }
        Ok(acc)
    }

    /// For the whole-vector path of an access through `ptr` of W elements
    /// of `size` bytes starting at `first`: `ok` and'ed with whether all of
    /// it lies in one valid range (`ok` itself in unchecked code). A vector
    /// that does not fit takes the per-lane path, whose checks report the
    /// exact lane.
    pub fn and_vector_fits(
        &mut self,
        ptr: ValueId,
        ok: Value,
        first: Value,
        size: u32,
    ) -> LResult<Value> {
        if self.kernel.checks().is_none() {
            return Ok(ok);
        }
        // Every lane's address is a value of `ptr`: all in bounds.
        if self.proven_in_bounds(ptr, size) {
            return Ok(ok);
        }
        let origin = self.origin(ptr);
        let ranges = self.valid_ranges(origin)?;
        let mut acc: Option<Value> = None;
        for r in ranges {
            let fits = match r {
                Range::Shared { .. } => {
                    self.fits(first, u64::from(size) * u64::from(self.kernel.w()), r, None)?
                }
                // Lane j's address and its own slot copy both move linearly
                // with j, so the first and last lanes bound all the others.
                Range::PerLane { .. } => {
                    let head = self.fits(first, u64::from(size), r, Some(0))?;
                    let last_at = self
                        .b
                        .ins()
                        .iadd_imm_s(first, i64::from(size) * i64::from(self.kernel.w() - 1));
                    let tail = self.fits(last_at, u64::from(size), r, Some(self.kernel.w() - 1))?;
                    self.b.ins().band(head, tail)
                }
            };
            acc = Some(match acc {
                Some(x) => self.b.ins().bor(x, fits),
                None => fits,
            });
        }
        let fits = acc.unwrap_or_else(|| self.b.ins().iconst(types::I8, 0));
        Ok(self.b.ins().band(ok, fits))
    }
}

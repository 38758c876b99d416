//! Checked mode's `__local` checks: the accesses that need no tracking.
//!
//! The shadow of `crate::races` finds a conflict when the later access of
//! two work-items' accesses to one granule in one barrier region looks
//! into the granule's cell. An access can skip the cell — no call, no
//! shadow work — when no access of the same region can conflict with it,
//! and the word it reads is known to be initialised. This pass proves the
//! first half at compile time, per barrier region and `__local` object
//! (a `__local` variable or a `__local` parameter); the lowering
//! (`lower::races`) tests the second half at run time.
//!
//! **The rule.** In one region (a slice of the body between top-level
//! barriers, `lower::chunks`), the accesses of an object `O` are
//! *conflict-free* when
//!
//! - every access in the region through a pointer that may be `__local`
//!   (a `__local` or generic pointer, or one whose origin is lost) has a
//!   known object (the pointer's `index`/`elem`/cast chain and the single
//!   assignment of a variable lead back to a `__local` variable or
//!   parameter), and
//! - the accesses of `O` in the region are plain loads, stores and
//!   atomics (no struct copy, no builtin taking the pointer), and one of:
//!   - **read-only**: all are plain loads (reads never conflict);
//!   - **atomic-only**: all are atomics (atomics never conflict);
//!   - **own word**: all are plain loads and stores of one size `n` at one
//!     byte offset `K = c + k0·lid0 + k1·lid1 + k2·lid2` in `O` (local ids
//!     and integer constants through `+ - ×`, shifts and widening
//!     conversions, and variables assigned once at the top of the entry
//!     region), where `c` and every `kd` are multiples of the granule, and
//!     `K` gives distinct work-items disjoint bytes: a run-time condition
//!     on the group's size ([`Key::injective_for`]), evaluated once per
//!     group. Then no two work-items touch one granule of `O` in the
//!     region, whatever paths and loop trips they take: nothing can race;
//!   - **own word, other reads apart**: the stores (and any loads) at one
//!     such key `K`, and other plain loads whose bytes, over every
//!     work-item that can reach them, lie apart from the bytes of every
//!     store over every work-item that can reach it. A key or a bound may
//!     hold one *group-level* variable `U` (one value for the whole group
//!     in the region: written only by statements that run once per group,
//!     and in this region only after its chunk loop) times a constant, and the enclosing `if`s
//!     bound the local ids (`lid < U`, `lid >= c`, …): the tree
//!     reduction's `if (lid < s) t[lid] += t[lid + s]` stores `[0, 4s)`
//!     and loads `[4s, 8s)` besides its own word. The bounds are linear in
//!     `U`, so they are compared at both ends of `U`'s allowed range
//!     `[0, 2^20]`, which the lowering tests when the region starts.
//!
//! A conflict-free access still needs the uninitialised-read check (a
//! read) or the initialisation it records (a write): the lowering skips
//! it only once every granule of `O` has been written in the group
//! (checked at the start of each region until it holds, then kept for the
//! group), and tracks it exactly as before otherwise. Within one region
//! an object is either skipped or tracked throughout, so the cells of the
//! tracked region instances hold what they held before and every report is
//! the one the fully tracked kernel gives.

use super::group_level::{Body, Split};
use crate::abi::{ArgKind, ArgSlot};
use crate::layout::GlobalPlace;
use std::collections::{BTreeSet, HashMap, HashSet};
use vecl_ir::{
    AddressSpace, BinaryOp, CmpOp, Function, GlobalId, Inst, Module, Scalar, Stmt, Type, ValueId,
    VarId, WorkItemFn,
};

/// A `__local` object of the kernel: a variable of its own or a
/// `__local` parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum LocalObject {
    Var(GlobalId),
    Param(u32),
}

/// The byte offset of an access in its object as a function of the local
/// ids (`c + Σ k[d]·lid[d] + t·U`, in the code's own dimensions, `U` a
/// group-level variable), with the access's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub c: i64,
    pub k: [i64; 3],
    /// `(U, t)`.
    pub sym: Option<(VarId, i64)>,
    /// `(d, s)`: `s` times a *strided counter* of dimension `d` (a
    /// variable that starts at `get_local_id(d)` and only grows by
    /// `get_local_size(d)`, [`Proofs::strided`]), in a key with no local
    /// id term: every value a work-item gives it is its own local id
    /// modulo the group's size, so distinct work-items never share one.
    pub strided: Option<(usize, i64)>,
    pub bytes: u32,
}

/// The largest coefficient or constant a key may hold: with local ids
/// below 2^12 every offset then fits an `i32` (no conversion wraps it).
const KEY_LIMIT: i64 = 1 << 16;

/// The largest coefficient of a group-level variable in an index, and
/// the largest value of the variable for which the lowering trusts a
/// proof that uses it: `64 · 2^20` plus the local-id terms stays below
/// 2^31, so 32-bit index arithmetic does not wrap either.
const SYM_COEFF_LIMIT: i64 = 64;
pub(crate) const SYM_LIMIT: i64 = 1 << 20;

impl Key {
    fn lin(c: i64, sym: Option<(VarId, i64)>) -> Key {
        Key {
            c,
            k: [0; 3],
            sym,
            strided: None,
            bytes: 0,
        }
    }

    fn add(self, o: Key) -> Option<Key> {
        let sym = match (self.sym, o.sym) {
            (None, x) | (x, None) => x,
            (Some((u, a)), Some((v, b))) if u == v => Some((u, a + b)).filter(|_| a + b != 0),
            _ => return None,
        };
        let k = [self.k[0] + o.k[0], self.k[1] + o.k[1], self.k[2] + o.k[2]];
        // A strided counter stands alone: with a local id or a second
        // counter beside it, work-items may meet.
        let strided = match (self.strided, o.strided) {
            (None, None) => None,
            (Some(x), None) | (None, Some(x)) if k == [0; 3] => Some(x),
            _ => return None,
        };
        Key {
            c: self.c + o.c,
            k,
            sym,
            strided,
            bytes: 0,
        }
        .limited()
    }

    fn scale(self, f: i64) -> Option<Key> {
        let sym = match self.sym {
            Some((u, t)) => Some((u, t.checked_mul(f)?)).filter(|_| f != 0),
            None => None,
        };
        let strided = match self.strided {
            Some((d, t)) if f != 0 => Some((d, t.checked_mul(f)?)),
            _ => None,
        };
        Key {
            c: self.c.checked_mul(f)?,
            k: [
                self.k[0].checked_mul(f)?,
                self.k[1].checked_mul(f)?,
                self.k[2].checked_mul(f)?,
            ],
            sym,
            strided,
            bytes: 0,
        }
        .limited()
    }

    fn limited(self) -> Option<Key> {
        let small = |x: i64| x.abs() < KEY_LIMIT;
        (small(self.c)
            && self.k.iter().all(|k| small(*k))
            && self.sym.is_none_or(|(_, t)| small(t))
            && self.strided.is_none_or(|(_, t)| small(t)))
        .then_some(self)
    }

    fn constant(c: i64) -> Option<Key> {
        Key::lin(c, None).limited()
    }

    /// No local id in it.
    fn is_uniform(&self) -> bool {
        self.k == [0; 3] && self.strided.is_none()
    }

    /// The local id of dimension `d`, alone.
    fn is_lid(&self) -> Option<usize> {
        let d = self.k.iter().position(|k| *k == 1)?;
        let alone = self.c == 0
            && self.sym.is_none()
            && self.strided.is_none()
            && (0..3).all(|e| e == d || self.k[e] == 0);
        alone.then_some(d)
    }

    /// What makes distinct work-items' byte ranges `[K, K + bytes)`
    /// disjoint, for local sizes `l`: every dimension the key does not use
    /// has size 1, and, taking the used dimensions by growing `|k|`, each
    /// `|k|` is at least the span `S` of the ones before (`S` starts at
    /// `bytes` and grows by `|k|·(l − 1)`): two work-items whose highest
    /// differing dimension is `d` are then `|k[d]|·m` apart, less at most
    /// `S − bytes` from the lower ones, which is at least `bytes`. (`t·U`
    /// moves every work-item's bytes alike.) The conditions as steps for
    /// the lowering to evaluate; `None` when no group size makes it hold.
    pub fn injective_for(&self) -> Option<Vec<Injective>> {
        if let Some((d, t)) = self.strided {
            // Distinct work-items' counters differ (by a non-zero multiple
            // of nothing less than 1), so their offsets by `|t|` or more.
            let apart = self.k == [0; 3] && t.unsigned_abs() >= u64::from(self.bytes);
            return apart.then(|| (0..3).filter(|e| *e != d).map(Injective::Single).collect());
        }
        let mut out = Vec::new();
        let mut used: Vec<usize> = (0..3).filter(|&d| self.k[d] != 0).collect();
        used.sort_by_key(|&d| self.k[d].abs());
        for d in 0..3 {
            if self.k[d] == 0 {
                out.push(Injective::Single(d));
            }
        }
        let first = used.first()?;
        if self.k[*first].unsigned_abs() < u64::from(self.bytes) {
            return None;
        }
        for i in 1..used.len() {
            out.push(Injective::Spaced {
                below: used[..i].to_vec(),
                stride: self.k[used[i]].unsigned_abs(),
            });
        }
        Some(out)
    }
}

/// `a + b·U` for one group-level variable `U` (`b` is 0 without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lin {
    a: i64,
    b: i64,
    var: Option<VarId>,
}

impl Lin {
    fn of(key: &Key) -> Lin {
        Lin {
            a: key.c,
            b: key.sym.map_or(0, |(_, t)| t),
            var: key.sym.map(|(u, _)| u),
        }
    }

    fn add(self, o: Lin) -> Option<Lin> {
        let var = match (self.var, o.var) {
            (None, x) | (x, None) => x,
            (Some(u), Some(v)) if u == v => Some(u),
            _ => return None,
        };
        Some(Lin {
            a: self.a.checked_add(o.a)?,
            b: self.b.checked_add(o.b)?,
            var,
        })
    }

    fn scale(self, f: i64) -> Option<Lin> {
        Some(Lin {
            a: self.a.checked_mul(f)?,
            b: self.b.checked_mul(f)?,
            var: self.var,
        })
    }

    /// `self <= 0` for every `U` in `[0, SYM_LIMIT]` (linear: both ends).
    fn never_positive(self) -> bool {
        self.a <= 0
            && self
                .b
                .checked_mul(SYM_LIMIT)
                .and_then(|x| x.checked_add(self.a))
                .is_some_and(|x| x <= 0)
    }

    /// `self >= 0` for every `U` in `[0, SYM_LIMIT]`.
    fn never_negative(self) -> bool {
        self.scale(-1).is_some_and(Lin::never_positive)
    }
}

/// Bounds on one local id from the `if`s around an access: `lo <= lid <=
/// hi` (`lo` is 0 without a tighter one; `None` for `hi`: the group's size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bounds {
    lo: Lin,
    hi: Option<Lin>,
}

/// One run-time condition of [`Key::injective_for`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Injective {
    /// The group's size in this dimension is 1.
    Single(usize),
    /// `bytes + Σ_{d in below} |k[d]|·(l[d] − 1) <= stride`.
    Spaced { below: Vec<usize>, stride: u64 },
}

/// What one region does to one object: the key where the pass can write
/// it, with the bounds the enclosing `if`s put on each local id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    Read(Option<Key>, [Bounds; 3]),
    Write(Option<Key>, [Bounds; 3]),
    Atomic,
    /// A copy or a builtin taking the pointer.
    Other,
}

/// An object proven conflict-free in a region, with what the launch
/// must allow for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FreeObject {
    pub object: LocalObject,
    /// The own-word key whose injectivity the group's size must allow
    /// (`None`: read-only or atomic-only, no condition).
    pub key: Option<Key>,
    /// The group-level variables the proof reads: each must lie in
    /// `[0, SYM_LIMIT]` when the region starts.
    pub vars: Vec<VarId>,
}

/// The conflict-free objects of each region.
#[derive(Clone, Debug, Default)]
pub(crate) struct RacePlan {
    free: Vec<Vec<FreeObject>>,
    /// Per region: the object of each plain load, store and atomic's
    /// pointer the pass saw there.
    pointers: Vec<HashMap<ValueId, LocalObject>>,
}

impl RacePlan {
    /// The objects conflict-free in region `r`.
    pub fn free_in(&self, r: usize) -> &[FreeObject] {
        self.free.get(r).map_or(&[], |v| v.as_slice())
    }

    /// How many regions the plan covers.
    pub fn regions(&self) -> usize {
        self.free.len()
    }

    /// The object an access through `ptr` in region `r` touches, when the
    /// pass saw the access and the object is conflict-free there.
    pub fn free_object(&self, r: usize, ptr: ValueId) -> Option<LocalObject> {
        let o = *self.pointers.get(r)?.get(&ptr)?;
        self.free_in(r).iter().any(|f| f.object == o).then_some(o)
    }
}

/// The facts the pass reads.
pub(crate) struct Proofs<'a> {
    module: &'a Module,
    func: &'a Function,
    arg_slots: &'a [ArgSlot],
    places: &'a [Option<GlobalPlace>],
    /// log2 of the shadow granule.
    shift: u32,
    /// Variables assigned exactly once, at the top level of the entry
    /// region: their value.
    single: HashMap<VarId, ValueId>,
    /// Variables with one value for the whole group at any point
    /// (`lower::group_level`).
    group_vars: &'a HashSet<VarId>,
    /// Strided counters and their dimension ([`Proofs::find_strided`]).
    strided: HashMap<VarId, usize>,
}

/// How far a definition is followed.
const MAX_DEPTH: u32 = 24;

fn may_be_local(ty: &Type) -> bool {
    matches!(
        ty.address_space(),
        Some(AddressSpace::Local | AddressSpace::Generic) | None
    )
}

/// No bound but `lid >= 0`.
const UNBOUNDED: Bounds = Bounds {
    lo: Lin {
        a: 0,
        b: 0,
        var: None,
    },
    hi: None,
};

/// What the walk over one region gathers.
#[derive(Default)]
struct Gathered {
    uses: Vec<(ValueId, LocalObject, Use)>,
    /// An access through a pointer that may be `__local` whose object is
    /// not known.
    poisoned: bool,
}

impl<'a> Proofs<'a> {
    pub fn new(
        module: &'a Module,
        func: &'a Function,
        arg_slots: &'a [ArgSlot],
        places: &'a [Option<GlobalPlace>],
        shift: u32,
        entry: &[Stmt],
        group_vars: &'a HashSet<VarId>,
    ) -> Proofs<'a> {
        let mut counts: HashMap<VarId, usize> = HashMap::new();
        super::chunks::count_writes(&func.body.0, &mut counts);
        let mut single = HashMap::new();
        for s in entry {
            if let Stmt::WriteVar(var, v) = s {
                if counts.get(var) == Some(&1) {
                    single.insert(*var, *v);
                }
            }
        }
        let mut proofs = Proofs {
            module,
            func,
            arg_slots,
            places,
            shift,
            single,
            group_vars,
            strided: HashMap::new(),
        };
        proofs.strided = proofs.find_strided(&counts);
        proofs
    }

    /// The *strided counters*: signed integer variables written exactly
    /// twice, once with `get_local_id(d)` and once with themselves plus
    /// `get_local_size(d)` (or the enqueued size), as in `for (b = lid; b
    /// < 256; b += n)`. Every value a work-item gives one is its local id
    /// plus a multiple of the group's size `n` in `d`, so two work-items
    /// whose ids differ in `d` (by less than `n`) never give it one value.
    /// Signed overflow is undefined in OpenCL C, so the counter does not
    /// wrap back onto another work-item's values.
    fn find_strided(&self, counts: &HashMap<VarId, usize>) -> HashMap<VarId, usize> {
        let mut writes: HashMap<VarId, Vec<ValueId>> = HashMap::new();
        writes_of(&self.func.body.0, &mut writes);
        let mut out = HashMap::new();
        for (var, values) in writes {
            let signed = self
                .func
                .vars
                .get(var.index())
                .and_then(|x| x.ty.scalar())
                .is_some_and(|s| s.is_int() && s.is_signed() && s.bits() >= 32);
            if counts.get(&var) != Some(&2) || values.len() != 2 || !signed {
                continue;
            }
            let start = values
                .iter()
                .position(|v| self.index(*v, 0).and_then(|k| k.is_lid()).is_some());
            let Some(start) = start else {
                continue;
            };
            let Some(d) = self.index(values[start], 0).and_then(|k| k.is_lid()) else {
                continue;
            };
            let step = values[1 - start];
            let Inst::Binary(BinaryOp::Add, a, b) = self.func.inst(step).inst else {
                continue;
            };
            let reads_self =
                |x: ValueId| matches!(self.func.inst(x).inst, Inst::ReadVar(v) if v == var);
            let steps = (reads_self(a) && self.is_local_size(b, d, 0))
                || (reads_self(b) && self.is_local_size(a, d, 0));
            if steps {
                out.insert(var, d);
            }
        }
        out
    }

    /// Whether `v` is `get_local_size(d)` or `get_enqueued_local_size(d)`,
    /// through conversions and variables assigned once.
    fn is_local_size(&self, v: ValueId, d: usize, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match &self.func.inst(v).inst {
            Inst::WorkItem(WorkItemFn::LocalSize | WorkItemFn::EnqueuedLocalSize, Some(dim)) => {
                matches!(self.func.inst(*dim).inst, Inst::Const(x) if x == d as u64)
            }
            Inst::Convert { value, .. } => self.is_local_size(*value, d, depth + 1),
            Inst::ReadVar(var) => self
                .single
                .get(var)
                .is_some_and(|x| self.is_local_size(*x, d, depth + 1)),
            _ => false,
        }
    }

    /// The object and, where the pass can write it as a [`Key`], the byte
    /// offset of `ptr` in it (the key's `bytes` left 0).
    fn place(&self, ptr: ValueId, depth: u32) -> Option<(LocalObject, Option<Key>)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let d = depth + 1;
        let func = self.func;
        match &func.inst(ptr).inst {
            Inst::Param(n) => {
                let slot = self.arg_slots.get(*n as usize)?;
                (slot.kind == ArgKind::LocalPointer)
                    .then(|| (LocalObject::Param(*n), Key::constant(0)))
            }
            Inst::GlobalAddr(g) => {
                let global = self.module.globals.get(g.index())?;
                let local = matches!(
                    self.places.get(g.index()),
                    Some(Some(GlobalPlace::Local(_)))
                );
                (local && !global.name.starts_with("__vecl_"))
                    .then(|| (LocalObject::Var(*g), Key::constant(0)))
            }
            Inst::PtrCast(p) => self.place(*p, d),
            Inst::ReadVar(var) => {
                let v = *self.single.get(var)?;
                self.place(v, d)
            }
            Inst::Index(p, i) | Inst::Elem(p, i) => {
                let (o, base) = self.place(*p, d)?;
                let pointee = func.ty(*p).pointee()?;
                let size = match (&func.inst(ptr).inst, pointee) {
                    (Inst::Index(..), t) => self.module.size_of(t),
                    (_, Type::Array(e, _)) => self.module.size_of(e),
                    (_, Type::Vector(s, _)) => s.size(),
                    _ => return None,
                };
                let key = base
                    .zip(self.index(*i, d))
                    .and_then(|(b, i)| b.add(i.scale(i64::from(size))?));
                Some((o, key))
            }
            Inst::Field(p, _) => self.place(*p, d).map(|(o, _)| (o, None)),
            _ => None,
        }
    }

    /// An integer value as a key over the local ids.
    fn index(&self, v: ValueId, depth: u32) -> Option<Key> {
        if depth > MAX_DEPTH {
            return None;
        }
        let d = depth + 1;
        let func = self.func;
        let s = func.ty(v).scalar().filter(|s| s.is_int())?;
        let key = match &func.inst(v).inst {
            Inst::Const(bits) => {
                let b = s.bits();
                let x = if s.is_signed() && b < 64 {
                    ((*bits << (64 - b)) as i64) >> (64 - b)
                } else {
                    *bits as i64
                };
                Key::constant(x)
            }
            Inst::WorkItem(WorkItemFn::LocalId, Some(dim)) => {
                let Inst::Const(dim) = func.inst(*dim).inst else {
                    return None;
                };
                let mut k = [0; 3];
                *k.get_mut(usize::try_from(dim).ok()?)? = 1;
                Some(Key {
                    k,
                    ..Key::lin(0, None)
                })
            }
            // Widening, or narrowing to 32 bits or more: the key's values
            // fit an `i32` (`KEY_LIMIT`, `SYM_LIMIT`), so nothing wraps.
            // A zero extension keeps only a key that is never negative.
            Inst::Convert { value, .. } => {
                let from = func.ty(*value).scalar().filter(|s| s.is_int())?;
                let key = (s.bits() >= 32 && from.bits() >= 32 && s != Scalar::Bool)
                    .then(|| self.index(*value, d))
                    .flatten()?;
                let zext = !from.is_signed() && from.bits() < s.bits();
                let never_negative = key.c >= 0
                    && key.k.iter().all(|k| *k >= 0)
                    && key.sym.is_none_or(|(_, t)| t >= 0)
                    && key.strided.is_none_or(|(_, t)| t >= 0);
                (!zext || never_negative).then_some(key)
            }
            Inst::Binary(op, a, b) => {
                let x = self.index(*a, d);
                let y = self.index(*b, d);
                match op {
                    BinaryOp::Add => x?.add(y?),
                    BinaryOp::Sub => x?.add(y?.scale(-1)?),
                    BinaryOp::Mul => match (x?, y?) {
                        (x, y) if x.is_uniform() && x.sym.is_none() => y.scale(x.c),
                        (x, y) if y.is_uniform() && y.sym.is_none() => x.scale(y.c),
                        _ => None,
                    },
                    BinaryOp::Shl => {
                        let y = y?;
                        (y.is_uniform() && y.sym.is_none() && (0..16).contains(&y.c))
                            .then(|| x?.scale(1 << y.c))
                            .flatten()
                    }
                    _ => None,
                }
            }
            Inst::ReadVar(var) => match self.single.get(var) {
                Some(v) => self.index(*v, d),
                None if self.strided.contains_key(var) => Some(Key {
                    strided: self.strided.get(var).map(|dim| (*dim, 1)),
                    ..Key::lin(0, None)
                }),
                None if self.group_vars.contains(var) && s.bits() >= 32 => {
                    Some(Key::lin(0, Some((*var, 1))))
                }
                None => None,
            },
            _ => None,
        }?;
        // Index arithmetic may be 32-bit: keep a variable's coefficient
        // small enough that nothing wraps below `SYM_LIMIT`.
        key.sym
            .is_none_or(|(_, t)| t.abs() <= SYM_COEFF_LIMIT)
            .then_some(key)
    }

    /// The plan for the regions `regions` of the function, split as
    /// `splits` (`lower::group_level`) says.
    pub fn plan(&self, regions: &[&[Stmt]], splits: &[Split]) -> RacePlan {
        let mut plan = RacePlan::default();
        for (r, stmts) in regions.iter().enumerate() {
            let mut g = Gathered::default();
            // The variables that may change while the region's chunks run:
            // those its chunk statements write, and its group-level
            // statements before them. Group-level statements after the
            // chunk loop (a barrier loop's `s >>= 1`) change nothing the
            // chunks see.
            let mut written = BTreeSet::new();
            match splits.get(r) {
                Some(split) if splits.len() == regions.len() => written_before(split, &mut written),
                _ => super::chunks::collect_writes(stmts, &mut written),
            }
            self.collect(stmts, &mut Vec::new(), &written, &mut g);
            let mut objects: Vec<LocalObject> = g.uses.iter().map(|(_, o, _)| *o).collect();
            objects.sort();
            objects.dedup();
            let free = if g.poisoned {
                Vec::new()
            } else {
                objects
                    .into_iter()
                    .filter_map(|o| {
                        let of: Vec<Use> = g
                            .uses
                            .iter()
                            .filter(|(_, x, _)| *x == o)
                            .map(|(_, _, u)| *u)
                            .collect();
                        self.conflict_free(o, &of)
                    })
                    .collect()
            };
            plan.free.push(free);
            plan.pointers.push(
                g.uses
                    .iter()
                    .filter(|(_, _, u)| !matches!(u, Use::Other))
                    .map(|(p, o, _)| (*p, *o))
                    .collect(),
            );
        }
        plan
    }

    /// The proof for the uses of one object in one region, when they
    /// cannot conflict (see the module's rule).
    fn conflict_free(&self, object: LocalObject, uses: &[Use]) -> Option<FreeObject> {
        let plain = |key, vars| Some(FreeObject { object, key, vars });
        if uses.iter().all(|u| matches!(u, Use::Read(..))) {
            return plain(None, Vec::new());
        }
        if uses.iter().all(|u| matches!(u, Use::Atomic)) {
            return plain(None, Vec::new());
        }
        // The stores' key.
        let mut key = None;
        for u in uses {
            match u {
                Use::Write(Some(k), _) if *key.get_or_insert(*k) != *k => return None,
                Use::Write(None, _) | Use::Atomic | Use::Other => return None,
                _ => {}
            }
        }
        let key: Key = key?;
        let g = 1i64 << self.shift;
        let aligned = key.c % g == 0
            && key.k.iter().all(|k| k % g == 0)
            && key.strided.is_none_or(|(_, t)| t % g == 0);
        if !aligned || key.injective_for().is_none() {
            return None;
        }
        let mut vars: Vec<VarId> = key.sym.map(|(u, _)| u).into_iter().collect();
        for u in uses {
            let Use::Read(r, bounds) = u else {
                continue;
            };
            let r = (*r)?;
            if r == key {
                continue;
            }
            // A load elsewhere: apart from every store.
            let read = footprint(&r, bounds)?;
            for w in uses {
                let Use::Write(_, wb) = w else {
                    continue;
                };
                let write = footprint(&key, wb)?;
                if !apart(read, write) {
                    return None;
                }
            }
            vars.extend(r.sym.map(|(u, _)| u));
            vars.extend(
                bounds
                    .iter()
                    .flat_map(|b| [b.lo.var, b.hi.and_then(|h| h.var)])
                    .flatten(),
            );
        }
        for u in uses {
            if let Use::Write(_, wb) = u {
                vars.extend(
                    wb.iter()
                        .flat_map(|b| [b.lo.var, b.hi.and_then(|h| h.var)])
                        .flatten(),
                );
            }
        }
        vars.sort();
        vars.dedup();
        plain(Some(key), vars)
    }

    /// One access through `ptr`.
    fn access(
        &self,
        ptr: ValueId,
        kind: Kind,
        bytes: u32,
        guards: &[(ValueId, bool)],
        written: &BTreeSet<VarId>,
        g: &mut Gathered,
    ) {
        if !may_be_local(self.func.ty(ptr)) || self.internal(ptr) {
            return;
        }
        let Some((o, key)) = self.place(ptr, 0) else {
            g.poisoned = true;
            return;
        };
        // A variable the region writes has no single value in it.
        let stable = |k: &Key| k.sym.is_none_or(|(u, _)| !written.contains(&u));
        let key = key.filter(stable).map(|k| Key { bytes, ..k });
        let use_ = match kind {
            Kind::Read => Use::Read(key, self.bounds(guards, written)),
            Kind::Write => Use::Write(key, self.bounds(guards, written)),
            Kind::Atomic => Use::Atomic,
            Kind::Other => Use::Other,
        };
        g.uses.push((ptr, o, use_));
    }

    /// The bounds the `if`s around an access (`(condition, the arm taken)`)
    /// put on the local ids.
    fn bounds(&self, guards: &[(ValueId, bool)], written: &BTreeSet<VarId>) -> [Bounds; 3] {
        let mut out = [UNBOUNDED; 3];
        for (cond, taken) in guards {
            let Inst::Cmp(op, a, b) = self.func.inst(*cond).inst else {
                continue;
            };
            let (Some(x), Some(y)) = (self.index(a, 0), self.index(b, 0)) else {
                continue;
            };
            let stable = |k: &Key| k.sym.is_none_or(|(u, _)| !written.contains(&u));
            if !stable(&x) || !stable(&y) {
                continue;
            }
            // `lid op bound`, either way round, negated in the else arm.
            let (d, op, bound) = match (x.is_lid(), y.is_lid()) {
                (Some(d), None) if y.is_uniform() => (d, op, y),
                (None, Some(d)) if x.is_uniform() => (d, op.swapped(), x),
                _ => continue,
            };
            let op = if *taken { op } else { negated(op) };
            // Unsigned comparisons agree with the signed reading only for
            // a bound that cannot be negative.
            let unsigned = self.func.ty(a).scalar().is_some_and(|s| !s.is_signed());
            let lin = Lin::of(&bound);
            if unsigned && !lin.never_negative() {
                continue;
            }
            let one = |delta: i64| {
                lin.add(Lin {
                    a: delta,
                    b: 0,
                    var: None,
                })
            };
            let b = &mut out[d];
            match op {
                CmpOp::Lt => b.hi = one(-1),
                CmpOp::Le => b.hi = Some(lin),
                CmpOp::Gt => b.lo = one(1).unwrap_or(b.lo),
                CmpOp::Ge => b.lo = lin,
                CmpOp::Eq => {
                    b.lo = lin;
                    b.hi = Some(lin);
                }
                CmpOp::Ne => {}
            }
        }
        out
    }

    /// Whether `ptr` points into the compiler's own scratch area, which
    /// the shadow does not track.
    fn internal(&self, ptr: ValueId) -> bool {
        let mut v = ptr;
        for _ in 0..16 {
            match &self.func.inst(v).inst {
                Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
                    v = *p
                }
                Inst::GlobalAddr(g) => {
                    return self
                        .module
                        .globals
                        .get(g.index())
                        .is_some_and(|gl| gl.name.starts_with("__vecl_"))
                }
                _ => return false,
            }
        }
        false
    }

    fn collect(
        &self,
        stmts: &[Stmt],
        guards: &mut Vec<(ValueId, bool)>,
        written: &BTreeSet<VarId>,
        g: &mut Gathered,
    ) {
        let func = self.func;
        for s in stmts {
            match s {
                Stmt::Eval(v) => match &func.inst(*v).inst {
                    Inst::Load(p) => {
                        let n = self.module.size_of(func.ty(*v));
                        self.access(*p, Kind::Read, n, guards, written, g)
                    }
                    Inst::Atomic { ptr, .. } => {
                        self.access(*ptr, Kind::Atomic, 0, guards, written, g)
                    }
                    Inst::Builtin(_, args) => {
                        for a in args {
                            if matches!(func.ty(*a), Type::Pointer(..)) {
                                self.access(*a, Kind::Other, 0, guards, written, g)
                            }
                        }
                    }
                    _ => {}
                },
                Stmt::Store { ptr, value, .. } => {
                    let n = self.module.size_of(func.ty(*value));
                    self.access(*ptr, Kind::Write, n, guards, written, g)
                }
                Stmt::Copy { dst, src, .. } => {
                    self.access(*dst, Kind::Other, 0, guards, written, g);
                    self.access(*src, Kind::Other, 0, guards, written, g);
                }
                Stmt::If { cond, then_, else_ } => {
                    guards.push((*cond, true));
                    self.collect(&then_.0, guards, written, g);
                    guards.pop();
                    guards.push((*cond, false));
                    self.collect(&else_.0, guards, written, g);
                    guards.pop();
                }
                Stmt::Loop { body, continuing } => {
                    self.collect(&body.0, guards, written, g);
                    self.collect(&continuing.0, guards, written, g);
                }
                Stmt::Switch { cases, .. } => {
                    for c in cases {
                        self.collect(&c.body.0, guards, written, g)
                    }
                }
                _ => {}
            }
        }
    }
}

/// Every value written to each variable in `stmts`, at any depth.
fn writes_of(stmts: &[Stmt], out: &mut HashMap<VarId, Vec<ValueId>>) {
    for s in stmts {
        match s {
            Stmt::WriteVar(var, v) => out.entry(*var).or_default().push(*v),
            Stmt::If { then_, else_, .. } => {
                writes_of(&then_.0, out);
                writes_of(&else_.0, out);
            }
            Stmt::Loop { body, continuing } => {
                writes_of(&body.0, out);
                writes_of(&continuing.0, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    writes_of(&c.body.0, out);
                }
            }
            _ => {}
        }
    }
}

/// The variables written by a split's group-level statements before its
/// chunk loop and by its chunk statements.
fn written_before(split: &Split, out: &mut BTreeSet<VarId>) {
    super::chunks::collect_writes(&split.pre, out);
    match &split.body {
        Body::Empty => {}
        Body::Chunks { stmts, .. } => super::chunks::collect_writes(stmts, out),
        Body::Guard { inner, .. } => written_before(inner, out),
    }
}

/// An access's kind, for the walk.
#[derive(Clone, Copy)]
enum Kind {
    Read,
    Write,
    Atomic,
    Other,
}

fn negated(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
    }
}

/// The bytes `[lo, hi)` an access at `key` may touch over the work-items
/// within `bounds`: one local id at most may vary (the others' terms must
/// be absent); `None` when a bound is missing.
fn footprint(key: &Key, bounds: &[Bounds; 3]) -> Option<(Lin, Lin)> {
    if key.strided.is_some() {
        return None;
    }
    let base = Lin::of(key);
    let used: Vec<usize> = (0..3).filter(|&d| key.k[d] != 0).collect();
    let (lo, hi) = match used.as_slice() {
        [] => (base, base),
        [d] => {
            let k = key.k[*d];
            let b = bounds[*d];
            let at_lo = base.add(b.lo.scale(k)?)?;
            let at_hi = base.add(b.hi?.scale(k)?)?;
            if k > 0 {
                (at_lo, at_hi)
            } else {
                (at_hi, at_lo)
            }
        }
        _ => return None,
    };
    let end = hi.add(Lin {
        a: i64::from(key.bytes),
        b: 0,
        var: None,
    })?;
    Some((lo, end))
}

/// Whether two byte ranges `[lo, end)` are apart for every value of the
/// variable in `[0, SYM_LIMIT]`.
fn apart(x: (Lin, Lin), y: (Lin, Lin)) -> bool {
    let before = |a: (Lin, Lin), b: (Lin, Lin)| {
        a.1.add(b.0.scale(-1).unwrap_or(Lin {
            a: 1,
            b: 0,
            var: None,
        }))
        .is_some_and(Lin::never_positive)
    };
    before(x, y) || before(y, x)
}

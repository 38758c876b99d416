//! Scalar replacement of aggregates: private slots, and the private copies
//! of by-value struct parameters, whose every use is an access at a
//! constant byte offset become register variables, one per scalar leaf.
//!
//! Why: a code generator that vectorises across work-items gives every
//! work-item its own copy of private memory, so each slot access is one
//! memory access per lane. OpenCL C code keeps small structs and arrays in
//! private memory (random-number generator states passed by value, key
//! schedules, `float4` unions), and after inlining the per-lane accesses
//! multiply. As variables they live in registers.
//!
//! A *root* is a slot or a `byval` parameter. A pointer derived from a root
//! by `field`, `elem`/`index` with a constant index and `ptrcast` has a
//! known byte offset into it; so has a pointer variable every write of
//! which is the same such pointer (the front end keeps parameters in
//! variables, and inlining binds them to the caller's slot addresses). A
//! root is replaced when every use of every pointer derived from it is:
//! - a `load` or `store` of a scalar, vector or pointer: each component is
//!   a leaf at its byte offset (a vector access reads or writes one leaf
//!   per component);
//! - a `copy` from or to the root: copied leaf by leaf, as loads or stores
//!   through byte-offset pointers when the other side stays in memory —
//!   or, when the copied leaves are two or four 32-bit scalars of one type
//!   filling the copy (`struct { float x, y, z, w; }`), as one load or
//!   store of that vector and its components, which a code generator
//!   vectorising across work-items turns into whole-vector accesses of
//!   consecutive items instead of a strided access per leaf (a particle
//!   update over 4M such structs on two threads: ~6.3 → ~2.5 ms);
//! - a further derivation as above, or a write of the pointer to a variable
//!   bound to it.
//!
//! The leaves of a root are the scalars its accesses and the types of the
//! copies from and to it name (for a union, every member's). Two accesses
//! at one offset must have the same size; when their types differ (`int`
//! and `float` members of a union, say) the value is reinterpreted with
//! `bitcast` (or `ptrcast` between pointers). Leaves may not overlap: a
//! union of a `ulong` and two `uint`s stays in memory. A copy between two
//! replaced roots needs the same leaves on both sides.
//!
//! Left alone (the root stays in memory): a pointer that escapes — passed
//! to a call or builtin (`vload4`; `sincos` through a private pointer is
//! first split into `sin`, `cos` and a store by [`super::outparam`]),
//! stored to memory, compared, selected, turned into an integer, written
//! to a variable that also holds other pointers — an index that is not
//! a constant, an access outside the root, and roots of more than
//! [`MAX_LEAVES`] leaves.
//!
//! A leaf read but never written reads `undef`; a leaf written but never
//! read gets no variable and its writes are dropped. A `byval` parameter's
//! copy is replaced only when the function writes to it (reading it is as
//! cheap as reading variables); its leaves are then loaded from the copy
//! at the top of the function. Replaced slots are removed and the instructions the
//! rewrite orphaned are dropped ([`super::compact`]).

use super::compact::{compact, remove_dead, stmt_operands, walk_stmts};
use crate::module::*;
use crate::types::*;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A root with more leaves than this stays in memory.
pub const MAX_LEAVES: usize = 256;

/// What [`scalar_replace`] did to one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SraStats {
    /// Slots replaced by variables (and removed).
    pub slots: u32,
    /// `byval` parameters whose copy was replaced by variables.
    pub params: u32,
    /// Variables added.
    pub vars: u32,
}

impl std::ops::AddAssign for SraStats {
    fn add_assign(&mut self, o: SraStats) {
        self.slots += o.slots;
        self.params += o.params;
        self.vars += o.vars;
    }
}

/// Runs [`scalar_replace`] on every function of `m`.
pub fn scalar_replace_module(m: &mut Module) -> SraStats {
    let mut total = SraStats::default();
    let structs = std::mem::take(&mut m.structs);
    for f in &mut m.functions {
        total += scalar_replace(&structs, f);
    }
    m.structs = structs;
    total
}

/// Replaces the private aggregates of `f` that only constant-offset
/// accesses reach by variables (see the module documentation). `structs`
/// are the module's struct definitions.
pub fn scalar_replace(structs: &[StructDef], f: &mut Function) -> SraStats {
    let mut total = SraStats::default();
    // `sincos(x, &c)`: the cosine stored through `&c` by a store of its own.
    super::outparam::split_sincos(f);
    // A slot that held a pointer to another slot becomes a variable, and
    // the other slot's address may then be known everywhere it is used:
    // another round replaces it.
    for _ in 0..MAX_ROUNDS {
        let mut a = Analysis::new(structs, f);
        a.derive();
        a.check_uses();
        a.collect_leaves();
        a.check_copies();
        if a.escaped.iter().all(|e| *e) {
            break;
        }
        let plan = a.into_plan();
        let again = plan.holds_pointers();
        total += plan.apply(f);
        if !again {
            break;
        }
    }
    total
}

/// Rounds of [`scalar_replace`] at most (a pointer to a slot kept in a
/// slot whose address is kept in a slot…).
const MAX_ROUNDS: usize = 4;

/// A slot or a byval parameter.
#[derive(Clone, Debug)]
struct Root {
    name: String,
    ty: Type,
    /// `Some(n)` for parameter `n`; `None` for slot `&index`.
    param: Option<u32>,
    slot: Option<SlotId>,
}

/// A scalar (or pointer) of a root, at a byte offset.
#[derive(Clone, Debug)]
struct Leaf {
    ty: Type,
    read: bool,
    written: bool,
}

/// A load or store of a value type at an offset of a root.
struct Access {
    root: usize,
    offset: i64,
    ty: Type,
    write: bool,
}

/// A copy with a side in a root (`None`: memory that stays memory).
struct CopyUse {
    dst: Option<(usize, i64)>,
    src: Option<(usize, i64)>,
    dst_pointee: Type,
    src_pointee: Type,
    size: u32,
}

struct Analysis<'s, 'a> {
    structs: &'s [StructDef],
    f: &'a Function,
    roots: Vec<Root>,
    escaped: Vec<bool>,
    /// The root and byte offset each value points to, when known.
    addr: Vec<Option<(usize, i64)>>,
    /// Pointer variables every write of which is one derived pointer.
    bound: HashMap<VarId, (usize, i64)>,
    writes: Vec<(VarId, ValueId)>,
    accesses: Vec<Access>,
    copies: Vec<CopyUse>,
    leaves: Vec<BTreeMap<i64, Leaf>>,
}

impl<'s, 'a> Analysis<'s, 'a> {
    fn new(structs: &'s [StructDef], f: &'a Function) -> Analysis<'s, 'a> {
        let mut roots: Vec<Root> = f
            .slots
            .iter()
            .enumerate()
            .map(|(i, s)| Root {
                name: s.name.clone(),
                ty: s.ty.clone(),
                param: None,
                slot: Some(SlotId(i as u32)),
            })
            .collect();
        for (n, p) in f.params.iter().enumerate() {
            if let (true, Some(pointee)) = (p.byval, p.ty.pointee()) {
                roots.push(Root {
                    name: p.name.clone(),
                    ty: pointee.clone(),
                    param: Some(n as u32),
                    slot: None,
                });
            }
        }
        let mut writes = Vec::new();
        walk_stmts(&f.body, &mut |s| {
            if let Stmt::WriteVar(x, v) = s {
                writes.push((*x, *v));
            }
        });
        let n = roots.len();
        Analysis {
            structs,
            f,
            roots,
            escaped: vec![false; n],
            addr: vec![None; f.insts.len()],
            bound: HashMap::new(),
            writes,
            accesses: Vec::new(),
            copies: Vec::new(),
            leaves: vec![BTreeMap::new(); n],
        }
    }

    fn size_of(&self, ty: &Type) -> i64 {
        i64::from(size_of(ty, self.structs))
    }

    /// The value of an integer constant, sign-extended for signed types:
    /// a `Const`, or integer arithmetic (`+ - *`, negation, conversion
    /// between integer types) of constants, as unrolled loops leave
    /// indices (`p[dy + 1][dx + 1]` with `dy` and `dx` constants).
    fn constant(&self, v: ValueId) -> Option<i64> {
        self.constant_within(v, 8)
    }

    /// [`Self::constant`], looking at most `depth` instructions deep.
    fn constant_within(&self, v: ValueId, depth: u32) -> Option<i64> {
        let d = self.f.insts.get(v.index())?;
        let Type::Scalar(s) = &d.ty else {
            return None;
        };
        if !s.is_int() {
            return None;
        }
        let operand = |x: ValueId| {
            depth
                .checked_sub(1)
                .and_then(|depth| self.constant_within(x, depth))
        };
        let bits = match &d.inst {
            Inst::Const(bits) => *bits,
            Inst::Unary(UnaryOp::Neg, a) => operand(*a)?.wrapping_neg() as u64,
            Inst::Binary(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul), a, b) => {
                let (a, b) = (operand(*a)?, operand(*b)?);
                let value = match op {
                    BinaryOp::Add => a.wrapping_add(b),
                    BinaryOp::Sub => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                };
                value as u64
            }
            Inst::Convert { value, .. } => operand(*value)? as u64,
            _ => return None,
        };
        // The result has the width and signedness of this instruction's
        // type (the operations wrap at it; a conversion truncates to it).
        let b = s.bits();
        Some(if s.is_signed() && b < 64 {
            let shift = 64 - b;
            ((bits << shift) as i64) >> shift
        } else if b < 64 {
            (bits & ((1u64 << b) - 1)) as i64
        } else {
            bits as i64
        })
    }

    fn pointee(&self, v: ValueId) -> Option<&'a Type> {
        self.f.insts.get(v.index())?.ty.pointee()
    }

    /// The address a value has from those of its operands, if derived.
    fn derived(&self, v: ValueId) -> Option<(usize, i64)> {
        let d = &self.f.insts[v.index()];
        let at = |p: ValueId| self.addr.get(p.index()).copied().flatten();
        match &d.inst {
            Inst::SlotAddr(s) => Some((s.index(), 0)).filter(|(r, _)| *r < self.f.slots.len()),
            Inst::Param(n) => self
                .roots
                .iter()
                .position(|r| r.param == Some(*n))
                .map(|r| (r, 0)),
            Inst::PtrCast(p) => at(*p),
            Inst::Field(p, n) => {
                let (r, o) = at(*p)?;
                let Some(Type::Struct(id)) = self.pointee(*p) else {
                    return None;
                };
                let fld = self.structs.get(id.0 as usize)?.fields.get(*n as usize)?;
                Some((r, o + i64::from(fld.offset)))
            }
            Inst::Elem(p, i) => {
                let (r, o) = at(*p)?;
                let k = self.constant(*i)?;
                let size = match self.pointee(*p)? {
                    Type::Array(e, _) => self.size_of(e),
                    Type::Vector(s, _) => i64::from(s.size()),
                    _ => return None,
                };
                Some((r, o.checked_add(k.checked_mul(size)?)?))
            }
            Inst::Index(p, i) => {
                let (r, o) = at(*p)?;
                let k = self.constant(*i)?;
                let size = self.size_of(self.pointee(*p)?);
                Some((r, o.checked_add(k.checked_mul(size)?)?))
            }
            Inst::ReadVar(x) => self.bound.get(x).copied(),
            _ => None,
        }
    }

    /// Addresses of values and bindings of pointer variables, to a fixed
    /// point (a variable's reads get an address once its writes have one).
    fn derive(&mut self) {
        loop {
            let mut changed = false;
            for i in 0..self.f.insts.len() {
                if self.addr[i].is_none() {
                    if let Some(a) = self.derived(ValueId(i as u32)) {
                        self.addr[i] = Some(a);
                        changed = true;
                    }
                }
            }
            let mut per_var: HashMap<VarId, Option<(usize, i64)>> = HashMap::new();
            let mut mixed: HashSet<VarId> = HashSet::new();
            for (x, v) in &self.writes {
                let a = self.addr.get(v.index()).copied().flatten();
                match (per_var.get(x), a) {
                    (_, None) => {
                        mixed.insert(*x);
                    }
                    (None, Some(a)) => {
                        per_var.insert(*x, Some(a));
                    }
                    (Some(Some(b)), Some(a)) if *b == a => {}
                    (Some(_), Some(_)) => {
                        mixed.insert(*x);
                    }
                }
            }
            for (x, a) in per_var {
                if let (false, Some(a)) = (mixed.contains(&x), a) {
                    if self.bound.insert(x, a).is_none() {
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // A variable that holds a derived pointer and anything else makes
        // every root it holds escape.
        let mut holds: HashMap<VarId, HashSet<Option<(usize, i64)>>> = HashMap::new();
        for (x, v) in &self.writes {
            let a = self.addr.get(v.index()).copied().flatten();
            holds.entry(*x).or_default().insert(a);
        }
        for (x, set) in holds {
            if set.len() > 1 || set.contains(&None) {
                self.bound.remove(&x);
                for (r, _) in set.into_iter().flatten() {
                    self.escaped[r] = true;
                }
            }
        }
    }

    fn escape(&mut self, v: ValueId) {
        if let Some((r, _)) = self.addr.get(v.index()).copied().flatten() {
            self.escaped[r] = true;
        }
    }

    fn at(&self, v: ValueId) -> Option<(usize, i64)> {
        self.addr.get(v.index()).copied().flatten()
    }

    /// Marks the roots whose pointers are used other than by the accesses
    /// this pass rewrites, and records the accesses and copies.
    fn check_uses(&mut self) {
        for i in 0..self.f.insts.len() {
            let d = &self.f.insts[i];
            let derived_here = self.addr[i].is_some();
            match &d.inst {
                // A derivation of a derived pointer is no use of its own.
                Inst::PtrCast(_) | Inst::Field(..) if derived_here => {}
                Inst::Elem(_, k) | Inst::Index(_, k) if derived_here => self.escape(*k),
                Inst::Load(p) => {
                    if let Some((r, o)) = self.at(*p) {
                        if d.ty.is_value() {
                            self.accesses.push(Access {
                                root: r,
                                offset: o,
                                ty: d.ty.clone(),
                                write: false,
                            });
                        } else {
                            self.escaped[r] = true;
                        }
                    }
                }
                inst => {
                    for o in inst.operands() {
                        self.escape(o);
                    }
                }
            }
        }
        let f = self.f;
        let mut stmts = Vec::new();
        walk_stmts(&f.body, &mut |s| stmts.push(s));
        for s in stmts {
            match s {
                Stmt::WriteVar(x, v) => {
                    if !self.bound.contains_key(x) {
                        self.escape(*v);
                    }
                }
                Stmt::Store { ptr, value, .. } => {
                    self.escape(*value);
                    if let Some((r, o)) = self.at(*ptr) {
                        self.accesses.push(Access {
                            root: r,
                            offset: o,
                            ty: f.ty(*value).clone(),
                            write: true,
                        });
                    }
                }
                Stmt::Copy { dst, src, size, .. } => {
                    let (d, s) = (self.at(*dst), self.at(*src));
                    if d.is_some() || s.is_some() {
                        self.copies.push(CopyUse {
                            dst: d,
                            src: s,
                            dst_pointee: self.pointee(*dst).cloned().unwrap_or(Type::Void),
                            src_pointee: self.pointee(*src).cloned().unwrap_or(Type::Void),
                            size: *size,
                        });
                    }
                }
                other => {
                    for v in stmt_operands(other) {
                        self.escape(v);
                    }
                }
            }
        }
    }

    fn add_leaf(&mut self, r: usize, offset: i64, ty: Type) {
        let size = self.size_of(&ty);
        if offset < 0 || offset + size > self.size_of(&self.roots[r].ty) {
            self.escaped[r] = true;
            return;
        }
        match self.leaves[r].get(&offset) {
            None => {
                self.leaves[r].insert(
                    offset,
                    Leaf {
                        ty,
                        read: false,
                        written: false,
                    },
                );
            }
            Some(l) if compatible(&l.ty, &ty, self.structs) => {}
            Some(_) => self.escaped[r] = true,
        }
    }

    /// The leaves of every root from its accesses and copies; roots whose
    /// leaves conflict, overlap or are too many escape.
    fn collect_leaves(&mut self) {
        let accesses = std::mem::take(&mut self.accesses);
        for a in &accesses {
            if self.escaped[a.root] {
                continue;
            }
            match flatten(&a.ty, a.offset, self.structs) {
                Some(parts) => {
                    for (o, t) in parts {
                        self.add_leaf(a.root, o, t);
                    }
                }
                None => self.escaped[a.root] = true,
            }
        }
        let copies = std::mem::take(&mut self.copies);
        for c in &copies {
            for (side, pointee) in [(c.dst, &c.dst_pointee), (c.src, &c.src_pointee)] {
                let Some((r, base)) = side else { continue };
                if self.escaped[r] {
                    continue;
                }
                let Some(parts) = flatten(pointee, base, self.structs) else {
                    self.escaped[r] = true;
                    continue;
                };
                for (o, t) in parts {
                    if o - base < i64::from(c.size) {
                        self.add_leaf(r, o, t);
                    }
                }
            }
        }
        self.copies = copies;
        for r in 0..self.roots.len() {
            if self.escaped[r] {
                continue;
            }
            let mut end = 0i64;
            for (o, l) in &self.leaves[r] {
                if *o < end {
                    self.escaped[r] = true;
                    break;
                }
                end = o + self.size_of(&l.ty);
            }
            if self.leaves[r].len() > MAX_LEAVES {
                self.escaped[r] = true;
            }
        }
        for a in &accesses {
            let Some(parts) = flatten(&a.ty, a.offset, self.structs) else {
                continue;
            };
            for (o, _) in parts {
                if let Some(l) = self.leaves[a.root].get_mut(&o) {
                    if a.write {
                        l.written = true;
                    } else {
                        l.read = true;
                    }
                }
            }
        }
        // A parameter's leaves hold the caller's values from the start. A
        // parameter copy that is only read stays where it is: its loads
        // are as cheap as the variables' (a kernel's are uniform loads
        // from the argument block), and leaving it makes the pass
        // idempotent.
        let mut stored = vec![false; self.roots.len()];
        for a in accesses.iter().filter(|a| a.write) {
            stored[a.root] = true;
        }
        for (r, _) in self.copies.iter().filter_map(|c| c.dst) {
            stored[r] = true;
        }
        for (r, root) in self.roots.iter().enumerate() {
            if root.param.is_some() {
                if !stored[r] {
                    self.escaped[r] = true;
                }
                for l in self.leaves[r].values_mut() {
                    l.written = true;
                }
            }
        }
    }

    /// The leaves of root `r` within `[base, base + size)` as offsets from
    /// `base` and sizes; `None` when a leaf straddles either end.
    fn span(&self, r: usize, base: i64, size: u32) -> Option<Vec<(i64, i64)>> {
        let end = base + i64::from(size);
        let mut out = Vec::new();
        for (o, l) in &self.leaves[r] {
            let lend = o + self.size_of(&l.ty);
            if lend <= base || *o >= end {
                continue;
            }
            if *o < base || lend > end {
                return None;
            }
            out.push((o - base, lend - o));
        }
        Some(out)
    }

    /// Copies need leaves that the copied range does not cut, and a copy
    /// between two replaced roots the same leaves on both sides. Marks the
    /// leaves copies read and write.
    fn check_copies(&mut self) {
        let copies = std::mem::take(&mut self.copies);
        for c in &copies {
            let d = c.dst.filter(|(r, _)| !self.escaped[*r]);
            let s = c.src.filter(|(r, _)| !self.escaped[*r]);
            let ds = d.map(|(r, o)| (r, self.span(r, o, c.size)));
            let ss = s.map(|(r, o)| (r, self.span(r, o, c.size)));
            for side in [&ds, &ss].into_iter().flatten() {
                if side.1.is_none() {
                    self.escaped[side.0] = true;
                }
            }
            if let (Some((rd, Some(a))), Some((rs, Some(b)))) = (&ds, &ss) {
                if a != b {
                    self.escaped[*rd] = true;
                    self.escaped[*rs] = true;
                }
            }
        }
        for c in &copies {
            for (side, write) in [(c.dst, true), (c.src, false)] {
                let Some((r, base)) = side else { continue };
                let end = base + i64::from(c.size);
                for (_, l) in self.leaves[r].range_mut(base..end) {
                    if write {
                        l.written = true;
                    } else {
                        l.read = true;
                    }
                }
            }
        }
        self.copies = copies;
    }

    fn into_plan(self) -> Plan<'s> {
        Plan {
            structs: self.structs,
            live: self.escaped.iter().map(|e| !e).collect(),
            roots: self.roots,
            addr: self.addr,
            leaves: self.leaves,
            vars: HashMap::new(),
            orphans: Vec::new(),
        }
    }
}

/// Whether one leaf may be accessed as both types (same size; numbers are
/// reinterpreted, pointers cast).
fn compatible(a: &Type, b: &Type, structs: &[StructDef]) -> bool {
    if a == b {
        return true;
    }
    if size_of(a, structs) != size_of(b, structs) {
        return false;
    }
    match (a, b) {
        (Type::Scalar(x), Type::Scalar(y)) => *x != Scalar::Bool && *y != Scalar::Bool,
        (Type::Pointer(..), Type::Pointer(..)) => true,
        _ => false,
    }
}

/// The scalar (and pointer) leaves of a type placed at `offset`, in order
/// (a union's members' one after another); `None` for `void` and types of
/// more than [`MAX_LEAVES`] leaves.
fn flatten(ty: &Type, offset: i64, structs: &[StructDef]) -> Option<Vec<(i64, Type)>> {
    fn go(ty: &Type, offset: i64, structs: &[StructDef], out: &mut Vec<(i64, Type)>) -> Option<()> {
        if out.len() > MAX_LEAVES {
            return None;
        }
        match ty {
            Type::Scalar(_) | Type::Pointer(..) => out.push((offset, ty.clone())),
            Type::Vector(s, n) => {
                for i in 0..i64::from(*n) {
                    out.push((offset + i * i64::from(s.size()), Type::Scalar(*s)));
                }
            }
            Type::Array(e, n) => {
                let es = i64::from(size_of(e, structs));
                if *n as usize > MAX_LEAVES {
                    return None;
                }
                for i in 0..i64::from(*n) {
                    go(e, offset + i * es, structs, out)?;
                }
            }
            // A union gives the leaves of every member: where they agree
            // (offsets and sizes) they are the union's leaves, where they
            // do not the root's leaves conflict and it stays in memory.
            Type::Struct(id) => {
                let s = structs.get(id.0 as usize)?;
                for fld in &s.fields {
                    go(&fld.ty, offset + i64::from(fld.offset), structs, out)?;
                }
            }
            Type::Void => return None,
        }
        Some(())
    }
    let mut out = Vec::new();
    go(ty, offset, structs, &mut out)?;
    (out.len() <= MAX_LEAVES).then_some(out)
}

/// The rewrite, once the roots to replace are known.
struct Plan<'a> {
    structs: &'a [StructDef],
    roots: Vec<Root>,
    live: Vec<bool>,
    addr: Vec<Option<(usize, i64)>>,
    leaves: Vec<BTreeMap<i64, Leaf>>,
    /// The variable of each leaf that is both read and written.
    vars: HashMap<(usize, i64), VarId>,
    /// Operands of the instructions the rewrite stopped evaluating.
    orphans: Vec<ValueId>,
}

impl Plan<'_> {
    fn promoted(&self, v: ValueId) -> Option<(usize, i64)> {
        self.addr
            .get(v.index())
            .copied()
            .flatten()
            .filter(|(r, _)| self.live[*r])
    }

    /// Whether a replaced root has a pointer leaf.
    fn holds_pointers(&self) -> bool {
        self.leaves
            .iter()
            .zip(&self.live)
            .any(|(ls, live)| *live && ls.values().any(|l| l.ty.is_pointer()))
    }

    fn apply(mut self, f: &mut Function) -> SraStats {
        let mut stats = SraStats::default();
        for (r, root) in self.roots.iter().enumerate() {
            if !self.live[r] {
                continue;
            }
            if root.param.is_some() {
                stats.params += 1;
            } else {
                stats.slots += 1;
            }
            for (o, l) in &self.leaves[r] {
                if l.read && l.written {
                    self.vars.insert((r, *o), VarId(f.vars.len() as u32));
                    f.vars.push(Var {
                        name: format!("{}.{o}", root.name),
                        ty: l.ty.clone(),
                    });
                    stats.vars += 1;
                }
            }
        }
        let body = std::mem::take(&mut f.body);
        let mut top = Vec::new();
        self.load_params(f, &mut top);
        let rest = self.block(f, body);
        top.extend(rest.0);
        f.body = Block(top);
        let orphans = std::mem::take(&mut self.orphans);
        remove_dead(f, orphans);
        let dropped: HashSet<SlotId> = self
            .roots
            .iter()
            .enumerate()
            .filter(|(r, _)| self.live[*r])
            .filter_map(|(_, root)| root.slot)
            .collect();
        compact(f, &dropped);
        stats
    }

    fn push(
        &self,
        f: &mut Function,
        out: &mut Vec<Stmt>,
        inst: Inst,
        ty: Type,
        loc: Loc,
    ) -> ValueId {
        let v = ValueId(f.insts.len() as u32);
        f.insts.push(InstData { inst, ty, loc });
        out.push(Stmt::Eval(v));
        v
    }

    /// `x` as type `to` (a leaf read or written as another type of its size).
    fn cast(
        &self,
        f: &mut Function,
        out: &mut Vec<Stmt>,
        x: ValueId,
        to: &Type,
        loc: Loc,
    ) -> ValueId {
        let from = f.ty(x).clone();
        if from == *to {
            return x;
        }
        let inst = if from.is_pointer() {
            Inst::PtrCast(x)
        } else {
            Inst::Bitcast(x)
        };
        self.push(f, out, inst, to.clone(), loc)
    }

    /// The value of leaf `(r, o)` as type `ty`.
    fn read_leaf(
        &self,
        f: &mut Function,
        out: &mut Vec<Stmt>,
        r: usize,
        o: i64,
        ty: &Type,
        loc: Loc,
    ) -> ValueId {
        match (self.vars.get(&(r, o)), self.leaves[r].get(&o)) {
            (Some(x), Some(l)) => {
                let v = self.push(f, out, Inst::ReadVar(*x), l.ty.clone(), loc);
                self.cast(f, out, v, ty, loc)
            }
            _ => self.push(f, out, Inst::Undef, ty.clone(), loc),
        }
    }

    fn write_leaf(
        &mut self,
        f: &mut Function,
        out: &mut Vec<Stmt>,
        r: usize,
        o: i64,
        v: ValueId,
        loc: Loc,
    ) {
        let (Some(x), Some(l)) = (self.vars.get(&(r, o)).copied(), self.leaves[r].get(&o)) else {
            self.orphans.push(v);
            return;
        };
        let ty = l.ty.clone();
        let v = self.cast(f, out, v, &ty, loc);
        out.push(Stmt::WriteVar(x, v));
    }

    /// A pointer to `ty` at byte offset `o` from `base` (memory that stays
    /// memory). `bytes` keeps `base` as a byte pointer for the next call.
    fn byte_addr(
        &self,
        f: &mut Function,
        out: &mut Vec<Stmt>,
        (base, bytes): (ValueId, &mut Option<ValueId>),
        o: i64,
        ty: &Type,
        loc: Loc,
    ) -> ValueId {
        let space = f.ty(base).address_space().unwrap_or(AddressSpace::Private);
        let u8p = Type::ptr(space, Type::Scalar(Scalar::U8));
        let at = if o == 0 {
            base
        } else {
            let b = match *bytes {
                Some(b) => b,
                None => {
                    let b = self.push(f, out, Inst::PtrCast(base), u8p.clone(), loc);
                    *bytes = Some(b);
                    b
                }
            };
            let k = self.push(f, out, Inst::Const(o as u64), Type::I64, loc);
            self.push(f, out, Inst::Index(b, k), u8p, loc)
        };
        self.push(f, out, Inst::PtrCast(at), Type::ptr(space, ty.clone()), loc)
    }

    /// Loads the leaves of replaced byval parameters from their copies.
    fn load_params(&mut self, f: &mut Function, out: &mut Vec<Stmt>) {
        for r in 0..self.roots.len() {
            let Some(n) = self.roots[r].param.filter(|_| self.live[r]) else {
                continue;
            };
            let Some(pty) = f.params.get(n as usize).map(|p| p.ty.clone()) else {
                continue;
            };
            let leaves: Vec<(i64, Type)> = self.leaves[r]
                .iter()
                .filter(|(o, _)| self.vars.contains_key(&(r, **o)))
                .map(|(o, l)| (*o, l.ty.clone()))
                .collect();
            if leaves.is_empty() {
                continue;
            }
            let p = self.push(f, out, Inst::Param(n), pty, Loc::NONE);
            let mut bytes = None;
            for (o, ty) in leaves {
                let a = self.byte_addr(f, out, (p, &mut bytes), o, &ty, Loc::NONE);
                let v = self.push(f, out, Inst::Load(a), ty, Loc::NONE);
                self.write_leaf(f, out, r, o, v, Loc::NONE);
            }
        }
    }

    fn leaf_parts(&self, ty: &Type, o: i64) -> Vec<(i64, Type)> {
        flatten(ty, o, self.structs).unwrap_or_default()
    }

    fn block(&mut self, f: &mut Function, b: Block) -> Block {
        let mut out = Vec::with_capacity(b.0.len());
        for s in b.0 {
            match s {
                Stmt::Eval(v) => {
                    if self.promoted(v).is_some() {
                        self.orphans.extend(f.inst(v).inst.operands());
                        continue;
                    }
                    if let Inst::Load(p) = f.inst(v).inst {
                        if let Some((r, o)) = self.promoted(p) {
                            self.load(f, &mut out, v, r, o);
                            continue;
                        }
                    }
                    out.push(Stmt::Eval(v));
                }
                Stmt::WriteVar(_, v) if self.promoted(v).is_some() => {}
                Stmt::Store { ptr, value, loc } => match self.promoted(ptr) {
                    Some((r, o)) => self.store(f, &mut out, r, o, value, loc),
                    None => out.push(Stmt::Store { ptr, value, loc }),
                },
                Stmt::Copy {
                    dst,
                    src,
                    size,
                    loc,
                } => match (self.promoted(dst), self.promoted(src)) {
                    (None, None) => out.push(Stmt::Copy {
                        dst,
                        src,
                        size,
                        loc,
                    }),
                    (d, s) => self.copy(f, &mut out, (dst, d), (src, s), size, loc),
                },
                Stmt::If { cond, then_, else_ } => {
                    let then_ = self.block(f, then_);
                    let else_ = self.block(f, else_);
                    out.push(Stmt::If { cond, then_, else_ });
                }
                Stmt::Loop { body, continuing } => {
                    let body = self.block(f, body);
                    let continuing = self.block(f, continuing);
                    out.push(Stmt::Loop { body, continuing });
                }
                Stmt::Switch { selector, cases } => {
                    let cases = cases
                        .into_iter()
                        .map(|c| SwitchCase {
                            values: c.values,
                            is_default: c.is_default,
                            body: self.block(f, c.body),
                        })
                        .collect();
                    out.push(Stmt::Switch { selector, cases });
                }
                other => out.push(other),
            }
        }
        Block(out)
    }

    /// Load `v` of a replaced root: `v` becomes a read of its leaf (or a
    /// cast of it, or a vector built from its components' leaves).
    fn load(&mut self, f: &mut Function, out: &mut Vec<Stmt>, v: ValueId, r: usize, o: i64) {
        let (ty, loc) = (f.ty(v).clone(), f.inst(v).loc);
        if let Inst::Load(p) = f.inst(v).inst {
            self.orphans.push(p);
        }
        let inst = if let Type::Vector(s, _) = ty {
            let parts: Vec<ValueId> = self
                .leaf_parts(&ty, o)
                .into_iter()
                .map(|(po, _)| self.read_leaf(f, out, r, po, &Type::Scalar(s), loc))
                .collect();
            Inst::Construct(parts)
        } else {
            match (self.vars.get(&(r, o)), self.leaves[r].get(&o)) {
                (Some(x), Some(l)) if l.ty == ty => Inst::ReadVar(*x),
                (Some(x), Some(l)) => {
                    let lt = l.ty.clone();
                    let raw = self.push(f, out, Inst::ReadVar(*x), lt, loc);
                    if ty.is_pointer() {
                        Inst::PtrCast(raw)
                    } else {
                        Inst::Bitcast(raw)
                    }
                }
                _ => Inst::Undef,
            }
        };
        f.insts[v.index()].inst = inst;
        out.push(Stmt::Eval(v));
    }

    fn store(
        &mut self,
        f: &mut Function,
        out: &mut Vec<Stmt>,
        r: usize,
        o: i64,
        value: ValueId,
        loc: Loc,
    ) {
        let ty = f.ty(value).clone();
        if let Type::Vector(s, _) = ty {
            for (i, (po, _)) in self.leaf_parts(&ty, o).into_iter().enumerate() {
                if !self.vars.contains_key(&(r, po)) {
                    continue;
                }
                let c = self.push(f, out, Inst::Extract(value, i as u8), Type::Scalar(s), loc);
                self.write_leaf(f, out, r, po, c, loc);
            }
            self.orphans.push(value);
        } else {
            self.write_leaf(f, out, r, o, value, loc);
        }
    }

    /// A copy with at least one replaced side, leaf by leaf: all reads
    /// first, then all writes.
    fn copy(
        &mut self,
        f: &mut Function,
        out: &mut Vec<Stmt>,
        (dst, d): (ValueId, Option<(usize, i64)>),
        (src, s): (ValueId, Option<(usize, i64)>),
        size: u32,
        loc: Loc,
    ) {
        // The leaves that decide what is copied: the replaced side's
        // (both sides have the same when both are replaced).
        let (r, base) = match (s, d) {
            (Some(x), _) | (None, Some(x)) => x,
            (None, None) => return,
        };
        let parts: Vec<(i64, Type)> = self.leaves[r]
            .range(base..base + i64::from(size))
            .map(|(o, l)| (o - base, l.ty.clone()))
            .collect();
        let (mut src_bytes, mut dst_bytes) = (None, None);
        if let Some(vt) = vector_shape(&parts, size) {
            match (s, d) {
                (None, Some((dr, dbase))) => {
                    // Memory to leaves: one vector load, a component each.
                    let a = self.byte_addr(f, out, (src, &mut src_bytes), 0, &vt, loc);
                    let whole = self.push(f, out, Inst::Load(a), vt, loc);
                    for (k, (rel, ty)) in parts.iter().enumerate() {
                        if self.vars.contains_key(&(dr, dbase + rel)) {
                            let c =
                                self.push(f, out, Inst::Extract(whole, k as u8), ty.clone(), loc);
                            self.write_leaf(f, out, dr, dbase + rel, c, loc);
                        }
                    }
                    self.orphans.push(dst);
                    self.orphans.push(src);
                    return;
                }
                (Some((sr, sbase)), None)
                    if parts
                        .iter()
                        .all(|(rel, _)| self.vars.contains_key(&(sr, sbase + rel))) =>
                {
                    // Leaves to memory: one vector built and stored.
                    let comps: Vec<ValueId> = parts
                        .iter()
                        .map(|(rel, ty)| self.read_leaf(f, out, sr, sbase + rel, ty, loc))
                        .collect();
                    let whole = self.push(f, out, Inst::Construct(comps), vt.clone(), loc);
                    let a = self.byte_addr(f, out, (dst, &mut dst_bytes), 0, &vt, loc);
                    out.push(Stmt::Store {
                        ptr: a,
                        value: whole,
                        loc,
                    });
                    self.orphans.push(dst);
                    self.orphans.push(src);
                    return;
                }
                _ => {}
            }
        }
        let mut vals = Vec::with_capacity(parts.len());
        for (rel, ty) in &parts {
            if let Some((dr, dbase)) = d {
                if !self.vars.contains_key(&(dr, dbase + rel)) {
                    vals.push(None);
                    continue;
                }
            }
            let v = match s {
                Some((sr, sbase)) => {
                    if d.is_none() && !self.vars.contains_key(&(sr, sbase + rel)) {
                        // Never written: the destination keeps its bytes.
                        vals.push(None);
                        continue;
                    }
                    self.read_leaf(f, out, sr, sbase + rel, ty, loc)
                }
                None => {
                    let a = self.byte_addr(f, out, (src, &mut src_bytes), *rel, ty, loc);
                    self.push(f, out, Inst::Load(a), ty.clone(), loc)
                }
            };
            vals.push(Some(v));
        }
        for ((rel, ty), v) in parts.iter().zip(vals) {
            let Some(v) = v else { continue };
            match d {
                Some((dr, dbase)) => self.write_leaf(f, out, dr, dbase + rel, v, loc),
                None => {
                    let a = self.byte_addr(f, out, (dst, &mut dst_bytes), *rel, ty, loc);
                    out.push(Stmt::Store {
                        ptr: a,
                        value: v,
                        loc,
                    });
                }
            }
        }
        self.orphans.push(dst);
        self.orphans.push(src);
    }
}

/// The vector type a copy of `size` bytes moves as one access when its
/// leaves `parts` (offset, type) are two or four 32-bit scalars of one
/// type filling it without padding (`struct { float x, y, z, w; }`):
/// a code generator reads or writes consecutive work-items' copies as
/// whole vectors, where leaf by leaf each is a strided access per lane.
fn vector_shape(parts: &[(i64, Type)], size: u32) -> Option<Type> {
    let first = match parts.first()? {
        (0, Type::Scalar(s)) if matches!(s, Scalar::F32 | Scalar::I32 | Scalar::U32) => *s,
        _ => return None,
    };
    let n = parts.len();
    let tight = parts
        .iter()
        .enumerate()
        .all(|(k, (o, t))| *o == 4 * k as i64 && *t == Type::Scalar(first));
    (matches!(n, 2 | 4) && tight && size == 4 * n as u32).then_some(Type::Vector(first, n as u8))
}

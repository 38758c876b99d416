//! How many bytes of each `__global`/`__constant` buffer a launch can
//! address, for the buffers `vecl run` generates.
//!
//! Every access of the kernel through a pointer parameter is followed back
//! to the parameter (`index`, `elem`, casts, a variable written once); the
//! integer ranges of `vecl_ir::analysis::ranges`, told the launch's shape
//! and the scalar arguments' values, bound its byte offset. A buffer's size
//! is known when every access through it is bounded that way; a pointer
//! that escapes (passed to a function or builtin, stored, turned into an
//! integer, moved by a loop) or an index the ranges cannot bound (a loop
//! counter) leaves it unknown, and `vecl run` says what it assumed instead.

use vecl_ir::analysis::ranges::{Facts, Range, Ranges};
use vecl_ir::analysis::uniformity::writes_of;
use vecl_ir::{Block, Function, Inst, Module, Stmt, ValueId, VarId, WorkItemFn};
use vecl_jit::abi::Launch;

/// The launch's shape and the scalar arguments' values.
pub struct LaunchFacts {
    pub launch: Launch,
    /// The value of each parameter that is an integer scalar.
    pub params: Vec<Option<i128>>,
}

impl Facts for LaunchFacts {
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Range> {
        let l = &self.launch;
        let d = dim.unwrap_or(0);
        if d >= 3 {
            // Outside the dimensions: ids 0, sizes 1.
            return Some(match f {
                WorkItemFn::GlobalSize
                | WorkItemFn::LocalSize
                | WorkItemFn::EnqueuedLocalSize
                | WorkItemFn::NumGroups => Range::exact(1),
                _ => Range::exact(0),
            });
        }
        let d = d as usize;
        let i = |x: u64| i128::from(x);
        let items = l.global_size.iter().product::<u64>();
        Some(match f {
            WorkItemFn::WorkDim => Range::exact(i(u64::from(l.work_dim))),
            WorkItemFn::GlobalSize => Range::exact(i(l.global_size[d])),
            WorkItemFn::GlobalOffset => Range::exact(i(l.global_offset[d])),
            WorkItemFn::GlobalId => Range::new(
                i(l.global_offset[d]),
                i(l.global_offset[d]) + i(l.global_size[d]) - 1,
            ),
            WorkItemFn::EnqueuedLocalSize => Range::exact(i(l.local_size[d])),
            // The last group may be smaller.
            WorkItemFn::LocalSize => Range::new(1, i(l.local_size[d])),
            WorkItemFn::LocalId => Range::new(0, i(l.local_size[d]) - 1),
            WorkItemFn::NumGroups => Range::exact(i(l.num_groups[d])),
            WorkItemFn::GroupId => Range::new(0, i(l.num_groups[d]) - 1),
            WorkItemFn::GlobalLinearId => Range::new(0, i(items) - 1),
            WorkItemFn::LocalLinearId => Range::new(0, i(l.items_per_group()) - 1),
        })
    }

    fn param(&self, n: u32) -> Option<Range> {
        self.params
            .get(n as usize)
            .copied()
            .flatten()
            .map(Range::exact)
    }
}

/// What the analysis found for one pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// Not accessed at all.
    Unused,
    /// Every access lies in the first this many bytes.
    Bytes(u64),
    /// Some access could not be bounded; the others lie in the first
    /// this many bytes.
    Unknown(u64),
}

/// The extent of every parameter of kernel `name` of `module` (only
/// pointer parameters are meaningful).
pub fn extents(module: &Module, name: &str, facts: &LaunchFacts) -> Vec<Extent> {
    let Some((_, func)) = module.function_by_name(name) else {
        return Vec::new();
    };
    let mut walk = Walk {
        module,
        func,
        ranges: Ranges::new(func, facts),
        out: vec![Extent::Unused; func.params.len()],
    };
    for data in &func.insts {
        match &data.inst {
            Inst::Load(p) => walk.access(*p, module.size_of(&data.ty)),
            Inst::Atomic { ptr, args, .. } => {
                let size = func.ty(*ptr).pointee().map_or(0, |t| module.size_of(t));
                walk.access(*ptr, size);
                walk.escape_all(args);
            }
            // Address arithmetic and reads are followed from the accesses.
            Inst::Index(..)
            | Inst::Elem(..)
            | Inst::Field(..)
            | Inst::PtrCast(_)
            | Inst::ReadVar(_)
            | Inst::Param(_) => {}
            // A pointer kept in a variable written more than once is
            // lost where it is read (`Walk::escape` follows every write).
            other => walk.escape_all(&operands(other)),
        }
    }
    walk.stmts(&func.body);
    walk.out
}

/// The operands of an instruction that may carry a pointer onwards.
fn operands(inst: &Inst) -> Vec<ValueId> {
    match inst {
        Inst::Call(_, args) | Inst::Builtin(_, args) | Inst::Construct(args) => args.clone(),
        Inst::PtrToInt(p) | Inst::Bitcast(p) | Inst::Splat(p) => vec![*p],
        Inst::Select(_, a, b) => vec![*a, *b],
        Inst::Insert(a, _, b) => vec![*a, *b],
        _ => Vec::new(),
    }
}

struct Walk<'a> {
    module: &'a Module,
    func: &'a Function,
    ranges: Ranges<'a>,
    out: Vec<Extent>,
}

impl Walk<'_> {
    fn stmts(&mut self, block: &Block) {
        for s in &block.0 {
            match s {
                Stmt::Store { ptr, value, .. } => {
                    let size = self.module.size_of(self.func.ty(*value));
                    self.access(*ptr, size);
                    self.escape_all(&[*value]);
                }
                Stmt::Copy { dst, src, size, .. } => {
                    self.access(*dst, *size);
                    self.access(*src, *size);
                }
                Stmt::Return(Some(v)) => self.escape_all(&[*v]),
                Stmt::If { then_, else_, .. } => {
                    self.stmts(then_);
                    self.stmts(else_);
                }
                Stmt::Loop { body, continuing } => {
                    self.stmts(body);
                    self.stmts(continuing);
                }
                Stmt::Switch { cases, .. } => {
                    for c in cases {
                        self.stmts(&c.body);
                    }
                }
                _ => {}
            }
        }
    }

    /// An access of `size` bytes through `ptr`.
    fn access(&mut self, ptr: ValueId, size: u32) {
        match self.offset(ptr, 0) {
            Some((n, r)) if r.lo >= 0 => {
                let end = u64::try_from(r.hi + i128::from(size)).unwrap_or(u64::MAX);
                let slot = &mut self.out[n as usize];
                *slot = match *slot {
                    Extent::Unused => Extent::Bytes(end),
                    Extent::Bytes(b) => Extent::Bytes(b.max(end)),
                    Extent::Unknown(b) => Extent::Unknown(b.max(end)),
                };
            }
            _ => self.escape(ptr),
        }
    }

    fn escape_all(&mut self, values: &[ValueId]) {
        for v in values {
            if self.func.ty(*v).is_pointer() {
                self.escape(*v);
            }
        }
    }

    /// Every parameter `ptr` may come from is unknown.
    fn escape(&mut self, ptr: ValueId) {
        let mut roots = Vec::new();
        let mut seen = Vec::new();
        let lost = !self.roots(ptr, &mut roots, &mut seen, 0);
        for (n, e) in self.out.iter_mut().enumerate() {
            if lost || roots.contains(&(n as u32)) {
                *e = match *e {
                    Extent::Bytes(b) | Extent::Unknown(b) => Extent::Unknown(b),
                    Extent::Unused => Extent::Unknown(0),
                };
            }
        }
    }

    /// The parameters `v` may be derived from; `false` when that cannot
    /// be told (any of them then).
    fn roots(&self, v: ValueId, out: &mut Vec<u32>, seen: &mut Vec<VarId>, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match &self.func.inst(v).inst {
            Inst::Param(n) => {
                out.push(*n);
                true
            }
            Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
                self.roots(*p, out, seen, depth + 1)
            }
            Inst::Select(_, a, b) => {
                self.roots(*a, out, seen, depth + 1) && self.roots(*b, out, seen, depth + 1)
            }
            Inst::ReadVar(var) => {
                if seen.contains(var) {
                    return true;
                }
                seen.push(*var);
                let mut writes = Vec::new();
                writes_of(&self.func.body, *var, &mut writes);
                writes
                    .into_iter()
                    .all(|w| self.roots(w, out, seen, depth + 1))
            }
            Inst::GlobalAddr(_) | Inst::SlotAddr(_) | Inst::Const(_) | Inst::Undef => true,
            _ => false,
        }
    }

    /// The parameter `ptr` points into and the range of its byte offset.
    fn offset(&self, ptr: ValueId, depth: u32) -> Option<(u32, Range)> {
        if depth > 64 {
            return None;
        }
        match &self.func.inst(ptr).inst {
            Inst::Param(n) => Some((*n, Range::exact(0))),
            Inst::PtrCast(p) => self.offset(*p, depth + 1),
            Inst::Index(p, i) | Inst::Elem(p, i) => {
                let (n, base) = self.offset(*p, depth + 1)?;
                let elem = self.func.ty(ptr).pointee()?;
                let step = self
                    .ranges
                    .of(*i)?
                    .scaled(u64::from(self.module.size_of(elem)))?;
                Some((n, Range::new(base.lo + step.lo, base.hi + step.hi)))
            }
            Inst::ReadVar(var) => {
                let mut writes = Vec::new();
                writes_of(&self.func.body, *var, &mut writes);
                match writes[..] {
                    [one] => self.offset(one, depth + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

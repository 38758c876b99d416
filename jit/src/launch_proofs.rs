//! Robust access: buffer accesses proven in bounds for a launch.
//!
//! Most indices into a buffer argument are bounded by the launch itself:
//! its global size (`c[get_global_id(0)]`), the values of its scalar
//! arguments (`in[clamp(y, 0, height - 1) * width + clamp(x, 0, width -
//! 1)]`, `data[gid * per_item + k]` for `k < per_item`) and the sizes of
//! the buffers bound to it. None of those is known when the kernel is
//! compiled, but all are known when it is launched, and then the integer
//! ranges of `vecl_ir::analysis::ranges`, given the launch's values as
//! facts, bound each such access's byte offset for every work-item at
//! once: one test per launch instead of one per chunk or lane.
//!
//! **At compile time** [`LaunchProofs::select`] picks the accesses through
//! a buffer (or `__local`) parameter whose offset is a chain of
//! `index`/`elem`/casts from the parameter with indices of known range,
//! which no compile-time proof covers, and which a launch of plausible
//! values bounds (every scalar argument and size in `[1, 1024]`: an index
//! loaded from memory as an `int` or `uint` does not qualify, and would
//! only send its launches to the copy that tests everything). Checked code
//! emits no test for them (`lower::bounds`, `Checks::launch_trusted`).
//!
//! **At launch** [`LaunchProofs::hold`] computes the ranges again with the
//! launch's facts (group shape, global size and offset, the scalar
//! arguments' values) and tests each access's first and last byte against
//! its argument's `[start, end)` in the bounds table.
//! `CompiledKernel::run_groups` runs the trusting code only when they all
//! hold; any other launch runs a copy compiled without the trust, whose
//! tests report a fault at the exact work-item, address and line. The
//! answer is kept for the last launch's values (a few hundred bytes
//! compared per call), so repeated launches pay the analysis once.

use crate::abi::{checked_offsets as co, ArgKind, ArgSlot, Launch};
use std::sync::Mutex;
use vecl_ir::analysis::ranges::{Facts, Range, Ranges};
use vecl_ir::{AddressSpace, Function, Inst, Module, Scalar, ValueId, WorkItemFn};

/// How far a pointer's definition is followed.
const MAX_DEPTH: u32 = 32;

/// What a plausible launch is, for choosing the accesses to trust: every
/// size, id and scalar argument in `[0 or 1, PROBE]`.
const PROBE: i128 = 1024;

/// A trusted access: `bytes` bytes through `ptr`, at `param`'s value plus
/// `Σ index·size` over `terms`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Access {
    ptr: ValueId,
    param: u32,
    terms: Vec<(ValueId, u64)>,
    bytes: u32,
}

/// The accesses a kernel's checked code trusts to be proven at launch,
/// and what proving them needs.
pub(crate) struct LaunchProofs {
    /// The IR the code was lowered from.
    func: Function,
    /// Per parameter: its slot and, for an integer scalar, its type.
    params: Vec<(ArgSlot, Option<Scalar>)>,
    accesses: Vec<Access>,
    /// The key of the last launch tested and its answer.
    last: Mutex<Option<(Vec<u8>, bool)>>,
}

impl std::fmt::Debug for LaunchProofs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchProofs")
            .field("accesses", &self.accesses)
            .finish()
    }
}

impl LaunchProofs {
    /// The accesses of `func` to trust at launch (see the module's
    /// comment), among `accesses` (pointer, bytes) that no compile-time
    /// proof covers; `None` when there are none.
    pub(crate) fn select(
        module: &Module,
        func: &Function,
        arg_slots: &[ArgSlot],
        accesses: &[(ValueId, u32)],
    ) -> Option<LaunchProofs> {
        let params: Vec<(ArgSlot, Option<Scalar>)> = arg_slots
            .iter()
            .enumerate()
            .map(|(n, slot)| {
                let scalar = func
                    .insts
                    .iter()
                    .find(|d| d.inst == Inst::Param(n as u32))
                    .and_then(|d| d.ty.scalar())
                    .filter(|s| s.is_int() && slot.kind == ArgKind::Value);
                (*slot, scalar)
            })
            .collect();
        let probe = Probe;
        let ranges = Ranges::new(func, &probe);
        let mut chosen: Vec<Access> = Vec::new();
        for &(ptr, bytes) in accesses {
            let Some((param, terms)) = chain(module, func, ptr, 0) else {
                continue;
            };
            if param as usize >= params.len() {
                continue;
            }
            let access = Access {
                ptr,
                param,
                terms,
                bytes,
            };
            let plausible = offset(&ranges, &access)
                .is_some_and(|r| r.lo >= 0 && r.hi + i128::from(bytes) <= 1i128 << 32);
            if plausible && !chosen.contains(&access) {
                chosen.push(access);
            }
        }
        if chosen.is_empty() {
            return None;
        }
        Some(LaunchProofs {
            func: func.clone(),
            params,
            accesses: chosen,
            last: Mutex::new(None),
        })
    }

    /// The trusted accesses: pointer and bytes.
    pub(crate) fn trusted(&self) -> Vec<(ValueId, u32)> {
        self.accesses.iter().map(|a| (a.ptr, a.bytes)).collect()
    }

    /// Whether every trusted access of the launch stays inside its
    /// argument's buffer.
    ///
    /// # Safety
    ///
    /// `args` is an argument block of the kernel with its checked tail,
    /// at `tail`, filled (`KernelArgs::for_code`).
    pub(crate) unsafe fn hold(&self, args: *const u8, tail: usize, launch: &Launch) -> bool {
        // The key: the parameters, the bounds table (not the fault
        // record's address, new each launch) and the launch's shape.
        let table = co::BOUNDS as usize;
        let table_len = co::tail_size(self.params.len()) - table;
        let mut key = Vec::with_capacity(tail + table_len + 13 * 8);
        // SAFETY: the block holds `tail` bytes of parameters and then the
        // tail (the caller's contract).
        unsafe {
            key.extend_from_slice(std::slice::from_raw_parts(args, tail));
            key.extend_from_slice(std::slice::from_raw_parts(
                args.add(tail + table),
                table_len,
            ));
        }
        key.extend_from_slice(&launch.work_dim.to_le_bytes());
        for v in launch
            .global_offset
            .iter()
            .chain(&launch.global_size)
            .chain(&launch.local_size)
            .chain(&launch.num_groups)
        {
            key.extend_from_slice(&v.to_le_bytes());
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, answer)) = last.as_ref() {
            if *k == key {
                return *answer;
            }
        }
        let answer = self.prove(&key, tail, launch);
        *last = Some((key, answer));
        answer
    }

    /// The proof itself, from the parameter bytes and bounds table in
    /// `key` (as [`hold`](Self::hold) lays them out).
    fn prove(&self, key: &[u8], tail: usize, launch: &Launch) -> bool {
        let read = |at: usize, len: usize| -> Option<u64> {
            let bytes = key.get(at..at + len)?;
            let mut v = [0u8; 8];
            v[..len].copy_from_slice(bytes);
            Some(u64::from_le_bytes(v))
        };
        let values: Vec<Option<i128>> = self
            .params
            .iter()
            .map(|(slot, scalar)| {
                let s = (*scalar)?;
                let len = (s.bits() / 8) as usize;
                let raw = read(slot.offset as usize, len)?;
                let bits = s.bits();
                Some(
                    if s.is_signed() && bits < 64 && raw >> (bits - 1) & 1 == 1 {
                        i128::from(raw) - (1i128 << bits)
                    } else if s.is_signed() {
                        i128::from(raw as i64)
                    } else {
                        i128::from(raw)
                    },
                )
            })
            .collect();
        let facts = LaunchFacts {
            launch,
            values: &values,
        };
        let ranges = Ranges::new(&self.func, &facts);
        self.accesses.iter().all(|a| {
            let Some(off) = offset(&ranges, a) else {
                return false;
            };
            let Some((slot, _)) = self.params.get(a.param as usize) else {
                return false;
            };
            let entry = tail + (co::BOUNDS_ENTRY as usize) * a.param as usize;
            let (Some(p), Some(start), Some(end)) = (
                read(slot.offset as usize, 8),
                read(entry, 8),
                read(entry + 8, 8),
            ) else {
                return false;
            };
            let p = i128::from(p);
            p + off.lo >= i128::from(start) && p + off.hi + i128::from(a.bytes) <= i128::from(end)
        })
    }
}

/// The range of `a`'s byte offset from its parameter.
fn offset(ranges: &Ranges, a: &Access) -> Option<Range> {
    let mut total = Range::exact(0);
    for (i, size) in &a.terms {
        let r = ranges.of(*i)?.scaled(*size)?;
        total = Range::new(total.lo + r.lo, total.hi + r.hi);
    }
    Some(total)
}

/// The parameter `ptr` is computed from and the `(index, element size)`
/// terms of its offset, when its chain of `index`/`elem`/casts (and
/// variables written once) leads to a `__global`, `__constant` or
/// `__local` pointer parameter.
fn chain(
    module: &Module,
    func: &Function,
    ptr: ValueId,
    depth: u32,
) -> Option<(u32, Vec<(ValueId, u64)>)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &func.inst(ptr).inst {
        Inst::Param(n) => match func.ty(ptr).address_space() {
            Some(AddressSpace::Global | AddressSpace::Constant | AddressSpace::Local) => {
                Some((*n, Vec::new()))
            }
            _ => None,
        },
        Inst::PtrCast(p) => chain(module, func, *p, depth + 1),
        Inst::Index(p, i) | Inst::Elem(p, i) => {
            let (n, mut terms) = chain(module, func, *p, depth + 1)?;
            let elem = func.ty(ptr).pointee()?;
            terms.push((*i, u64::from(module.size_of(elem))));
            Some((n, terms))
        }
        Inst::ReadVar(var) => {
            let mut writes = Vec::new();
            vecl_ir::analysis::uniformity::writes_of(&func.body, *var, &mut writes);
            match writes[..] {
                [one] => chain(module, func, one, depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A plausible launch (see [`PROBE`]).
struct Probe;

impl Facts for Probe {
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Range> {
        if dim.is_some_and(|d| d >= 3) {
            return Some(past_dims(f));
        }
        Some(match f {
            WorkItemFn::WorkDim => Range::new(1, 3),
            WorkItemFn::GlobalOffset => Range::exact(0),
            WorkItemFn::GlobalId | WorkItemFn::LocalId | WorkItemFn::GroupId => {
                Range::new(0, PROBE - 1)
            }
            WorkItemFn::GlobalSize
            | WorkItemFn::LocalSize
            | WorkItemFn::EnqueuedLocalSize
            | WorkItemFn::NumGroups => Range::new(1, PROBE),
            WorkItemFn::GlobalLinearId | WorkItemFn::LocalLinearId => {
                Range::new(0, PROBE * PROBE * PROBE - 1)
            }
        })
    }

    fn param(&self, _: u32) -> Option<Range> {
        Some(Range::new(1, PROBE))
    }
}

/// A work-item function past the third dimension: ids 0, sizes 1.
fn past_dims(f: WorkItemFn) -> Range {
    match f {
        WorkItemFn::GlobalSize
        | WorkItemFn::LocalSize
        | WorkItemFn::EnqueuedLocalSize
        | WorkItemFn::NumGroups => Range::exact(1),
        WorkItemFn::WorkDim => Range::new(1, 3),
        _ => Range::exact(0),
    }
}

/// What a launch says of its work-items and scalar arguments.
struct LaunchFacts<'a> {
    launch: &'a Launch,
    /// Each parameter's value, for integer scalars.
    values: &'a [Option<i128>],
}

impl Facts for LaunchFacts<'_> {
    fn work_item(&self, f: WorkItemFn, dim: Option<u64>) -> Option<Range> {
        let l = self.launch;
        let d = dim.unwrap_or(0);
        if d >= 3 {
            return Some(past_dims(f));
        }
        let d = d as usize;
        let i = |v: u64| i128::from(v);
        let all = |v: &[u64; 3]| v.iter().map(|&x| i(x.max(1))).product::<i128>();
        Some(match f {
            WorkItemFn::WorkDim => Range::exact(i(u64::from(l.work_dim))),
            WorkItemFn::GlobalOffset => Range::exact(i(l.global_offset[d])),
            WorkItemFn::GlobalSize => Range::exact(i(l.global_size[d])),
            WorkItemFn::GlobalId => Range::new(
                i(l.global_offset[d]),
                i(l.global_offset[d]) + i(l.global_size[d]) - 1,
            ),
            // The last group may be smaller than the enqueued size.
            WorkItemFn::LocalSize => Range::new(1, i(l.local_size[d].max(1))),
            WorkItemFn::EnqueuedLocalSize => Range::exact(i(l.local_size[d])),
            WorkItemFn::LocalId => Range::new(0, i(l.local_size[d].max(1)) - 1),
            WorkItemFn::NumGroups => Range::exact(i(l.num_groups[d])),
            WorkItemFn::GroupId => Range::new(0, i(l.num_groups[d].max(1)) - 1),
            WorkItemFn::GlobalLinearId => Range::new(0, all(&l.global_size) - 1),
            WorkItemFn::LocalLinearId => Range::new(0, all(&l.local_size) - 1),
        })
    }

    fn param(&self, n: u32) -> Option<Range> {
        self.values
            .get(n as usize)
            .copied()
            .flatten()
            .map(Range::exact)
    }
}

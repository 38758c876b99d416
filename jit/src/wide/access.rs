//! The wide code's memory path: how a load or store of 16 lanes through a
//! `__global`/`__constant` pointer argument is made ([`Access`]), which
//! accesses prefetch and stream ([`MemoryPlan`]), and the machine code of
//! both, with robust access's bounds test (`emit_access`,
//! `emit_faults`).
//!
//! **The paths.** An access whose index is the global id of dimension 0,
//! or that id plus a value equal in every lane (`refine`, [`Known`]),
//! makes one plain `vmovups` in a full chunk, with no test of its lanes
//! and no taken branch, and keeps its masked form (a row's tail chunk)
//! out of line (`emit_cold`). Another access whose lanes the uniformity
//! analysis finds consecutive tests at run time that the running lanes
//! hold `idx[0] + l`, then makes one vector access, plain or masked; a
//! load of one address for every lane is one scalar load of the first
//! running lane's element, broadcast (`uniform_load`); any other access is
//! a masked gather or scatter. The buffer is a `__global`/`__constant`
//! argument's, or the group's `__local` arena at a `__local` variable's
//! offset or a `__local` argument's ([`Base`]; barrier kernels only).
//! Accesses of `char`/`uchar` elements have a path of their own
//! ([`Access::byte`], `byte_access`).
//!
//! **Streaming stores** follow `lower::stream`'s rule: a store through a
//! `__global` parameter that no load, copy or builtin of the kernel reads
//! through, in a kernel without atomics and fences, streams (`vmovntps`)
//! in its full-chunk path when the launch has at least
//! `JitOptions::stream_min_items` work-items (a flag the entry computes
//! once per call) and the chunk's 64 bytes start on a line, which a zmm
//! store then fills whole. The entry ends with `sfence` when a store of
//! the kernel may stream, so whoever learns that the groups ran sees the
//! data. **Prefetch** follows `lower::prefetch`'s choice of loads (the
//! first consecutive load of each parameter outside every loop; none in a
//! kernel heavy with transcendental functions): the full-chunk path
//! prefetches the line `lower::prefetch::DISTANCE` bytes ahead, or, for a
//! load whose address moves with a loop's induction variable by a stride
//! of a scalar `int` parameter times a constant (a tiled matrix product's
//! `b[(t + ly) * n + col]`, 16 rows down per tile), the line where the
//! next step of that variable reads ([`StepAhead`]: the parameter read
//! from the arguments, multiplied by the constant).
//!
//! **Robust access.** The valid elements of a parameter's buffer, as
//! signed 32-bit indices from its pointer (the lanes' form of an index),
//! are computed once per call from the bounds table (`index_bounds`,
//! kept in the entry's frame); each access compares its running lanes'
//! indices with them (two masked compares against broadcast bounds; a
//! full chunk of a known-consecutive access compares its first and last
//! index, two scalar compares) and
//! branches, on any lane outside, to a cold block that finds the first
//! such lane and reports it through `abi::vecl_checked_fault` (address,
//! work-item, source position: the report of Cranelift's robust code),
//! and the entry returns `KernelStatus::OutOfBounds`. An access that the
//! checked code of the same compile trusts, with an offset the index lanes
//! hold (proven for the group size, a `__local` argument sized at launch:
//! `lower::bounds::small_trusted_accesses`), gets no test
//! (`MemoryPlan::with_trusted`): the entry runs only for the launches
//! `CompiledKernel::run_groups` lets that code run, and any other launch
//! runs a copy that tests it (nbody's `tile[j]`, a broadcast in the inner
//! loop).

use super::emit::{
    asm_err, k_masked, k_reg, mem_masked, zmm_masked, zmm_reg, IOTA, SCRATCH_K, SCRATCH_ZMM,
};
use super::entry::EntryOptions;
use super::held::Held;
use super::ra2::written;
use super::{Bin, Op, Program, WideError, K, V};
use crate::abi::{checked_offsets as co, launch_offsets as lo, AccessKind};
use crate::layout::GlobalPlace;
use crate::lower::prefetch::{prefetched_loads, Ahead, DISTANCE};
use crate::lower::stream::{var_roots, Streaming};
use iced_x86::code_asm::*;
use std::collections::{HashMap, HashSet};
use vecl_ir::{Function, Module, ValueId};

/// How one access of [`Op::LoadElems`] / [`Op::StoreElems`] is made,
/// besides its operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// The uniformity analysis finds the lanes' addresses consecutive
    /// elements (the code still tests it unless `known` says more).
    pub consecutive: bool,
    /// What the body's own operations show of the index (`refine`).
    pub known: Known,
    /// A consecutive load that prefetches ahead in its full-chunk path.
    pub prefetch: bool,
    /// Where the prefetch points when not `DISTANCE` bytes ahead.
    pub ahead: Option<StepAhead>,
    /// A consecutive store that streams in its full-chunk path on large
    /// launches.
    pub stream: bool,
    /// Robust access: the test of the lanes against the buffer's bounds.
    pub check: Option<Check>,
    /// The uniformity analysis finds one address for every running lane
    /// (`weights[k]`): a load is one scalar load of the first running
    /// lane's element, broadcast (none when no lane runs), with one scalar
    /// bounds test under robust access.
    pub uniform: bool,
    /// Lane 0 runs whenever a lane of the access's mask does (no divergent
    /// branch narrowed it): a uniform load takes lane 0's index without
    /// looking for the first running lane.
    pub lane0: bool,
    /// Where the buffer is.
    pub base: Base,
    /// A uniform load whose index is a constant (a splat written once,
    /// or integer arithmetic of such: `weights[(dy + 2) * 5 + dx + 2]`
    /// with both loops unrolled; `refine`). Without a bounds test: the
    /// element addressed by a displacement, the index register not read;
    /// with one: the constant compared with the bounds, no lane of the
    /// index moved to a general register (the fault path reads them).
    pub constant: Option<i32>,
    /// Half `h` (0 or 1) of an access of two-word elements (`float2`,
    /// `int2`): the elements of lanes `8h` to `8h + 7`, whose first words
    /// the index's lanes address, as eight 64-bit values, the value's
    /// lanes `2i` and `2i + 1` the two words of element `8h + i` (its
    /// memory image; [`Bin::ZipLow`] makes it from the components,
    /// [`Bin::UnzipEven`] takes them apart). One `vmovups` when the eight
    /// lanes run and address consecutive elements, else a 64-bit gather or
    /// scatter (`pair_access`). Only without a bounds test.
    pub pair: Option<u8>,
    /// An access of one-byte elements (`char`, `uchar`), its index in
    /// bytes (`byte_access`); none of the paths above.
    pub byte: Option<ByteElems>,
}

/// What a one-byte access ([`Access::byte`]) is: the index counts bytes,
/// and each lane holds its element's zero or sign extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByteElems {
    /// `char`: a load sign-extends.
    pub signed: bool,
    /// The uniformity analysis finds the lanes' bytes consecutive: the
    /// access tests its lanes for one 16-byte access first.
    pub consecutive: bool,
    /// A load of one byte for every running lane (the analysis finds the
    /// address uniform): the first running lane's, broadcast.
    pub uniform: bool,
    /// What the index's form shows of a consecutive access's lanes
    /// (`refine`: `FromId` or `Offset`, else `Tested`).
    pub known: Known,
}

/// Where the buffer of an access is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Base {
    /// A `__global`/`__constant` argument: its address at `[args + ptr]`.
    #[default]
    Arg,
    /// A `__local` argument: the group's arena plus the offset at
    /// `[args + ptr]`.
    LocalArg,
    /// A `__local` variable: `size` bytes at `offset` in the group's arena.
    LocalAt { offset: u32, size: u32 },
}

/// What the operations computing an index show of its lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Known {
    /// Nothing: a consecutive access tests its lanes at run time.
    #[default]
    Tested,
    /// The index is the global id of dimension 0: lane `l` holds the
    /// chunk's first id (`r15`) plus `l`.
    FromId,
    /// The index is that id plus a value equal in every lane: lane `l`
    /// holds lane 0 plus `l` (unless lane 0 is within 15 of `i32::MAX`,
    /// where the 32-bit lanes wrap; tested at run time).
    Offset,
    /// The index's form shows it steps by one element from lane to lane
    /// across the lanes running where it was computed (the lowering's
    /// `exact_step`: `tb[k][lx]` with a uniform `k` and a local id `lx`
    /// restored across a barrier): the lanes of the access's mask hold
    /// lane 0's index plus `l` when lane 0 is among them. As `Offset`,
    /// and a masked chunk without lane 0 takes the tested path.
    FromLane0,
    /// A full chunk's index that is the global id of dimension 0 plus a
    /// value fixed for the row (`entry::entry_program`): lane 0 is the
    /// chunk's first id plus the row's slot (`Op::RowLane0`), a scalar
    /// sum, and no lane wraps (the row's full chunks run only where none
    /// can, `EntryTest::Full`), so the index value is not read. Under
    /// robust access the same guard found every index of the row's full
    /// chunks inside the buffer: no span test either. The second field:
    /// elements past that lane 0 (a constant added to the sum, a
    /// displacement: `in[yy * w + x + dx]` for five `dx` from one slot),
    /// which the row's test (`EntryTest::Full`'s `disps`) or range
    /// (`EntryStep::RangeSlot`) takes in.
    RowOffset(u8, i32),
}

/// Upgrades the consecutive accesses of `p` whose index is the global id
/// of dimension 0, or that id plus and minus values equal in every lane, from a
/// run-time test of the lanes to what they are known to hold ([`Known`]).
/// Values written once, by unmasked operations of values equal in every
/// lane (constants, arguments, launch sizes, the row's ids of dimensions
/// 1 and 2), are equal in every lane.
pub(crate) fn refine(p: &mut Program) {
    let mut defs: HashMap<u32, usize> = HashMap::new();
    for op in p.ops() {
        for v in written(op).0 {
            *defs.entry(v).or_default() += 1;
        }
    }
    let once = |v: V| defs.get(&v.0) == Some(&1);
    let mut splats: HashMap<u32, u32> = HashMap::new();
    let mut equal: HashSet<u32> = HashSet::new();
    let mut id: Option<u32> = None;
    let mut offset: HashSet<u32> = HashSet::new();
    for op in p.ops() {
        let eq = |v: &V| equal.contains(&v.0);
        match *op {
            Op::Splat { d, bits } if once(d) => {
                equal.insert(d.0);
                splats.insert(d.0, bits);
            }
            Op::Broadcast { d, .. } | Op::GlobalId { d, dim: 1 | 2 } | Op::GroupId { d, .. }
                if once(d) =>
            {
                equal.insert(d.0);
            }
            // Zipped lanes (`Bin::ZipLow`) alternate between the two.
            Op::Bin { op, d, a, b } if once(d) && eq(&a) && eq(&b) && !op.moves_lanes() => {
                equal.insert(d.0);
                // Integer arithmetic of constants (an unrolled loop's
                // counter in an index) is a constant too.
                if let (Some(&x), Some(&y)) = (splats.get(&a.0), splats.get(&b.0)) {
                    let folded = match op {
                        Bin::IAdd => Some(x.wrapping_add(y)),
                        Bin::ISub => Some(x.wrapping_sub(y)),
                        Bin::IMul => Some(x.wrapping_mul(y)),
                        // `vpsllvd`: a count past 31 gives 0.
                        Bin::Shl => Some(x.checked_shl(y).unwrap_or(0)),
                        _ => None,
                    };
                    if let Some(bits) = folded {
                        splats.insert(d.0, bits);
                    }
                }
            }
            Op::Fma { d, a, b, c } | Op::Fms { d, a, b, c }
                if once(d) && eq(&a) && eq(&b) && eq(&c) =>
            {
                equal.insert(d.0);
            }
            Op::Sqrt { d, a } | Op::IntToFloat { d, a } | Op::Convert { d, a, .. }
                if once(d) && eq(&a) =>
            {
                equal.insert(d.0);
            }
            Op::GlobalId { d, dim: 0 } if once(d) => id = Some(d.0),
            // The id plus or minus values equal in every lane, in any
            // number of steps (`get_group_id(0) * 16 + get_local_id(0)`,
            // the local id itself the id minus the group's first).
            Op::Bin {
                op: op @ (Bin::IAdd | Bin::ISub),
                d,
                a,
                b,
            } if once(d) => {
                let from_id = |v: &V| Some(v.0) == id || offset.contains(&v.0);
                if (from_id(&a) && eq(&b)) || (op == Bin::IAdd && eq(&a) && from_id(&b)) {
                    offset.insert(d.0);
                }
            }
            _ => {}
        }
    }
    for op in p.ops_mut() {
        if let Op::LoadElems { idx, how, .. } = op {
            if how.uniform {
                how.constant = splats.get(&idx.0).map(|&bits| bits as i32);
            }
        }
        if let Op::LoadElems { idx, how, .. } | Op::StoreElems { idx, how, .. } = op {
            if let Some(b) = how.byte.as_mut().filter(|b| b.consecutive) {
                if Some(idx.0) == id {
                    b.known = Known::FromId;
                } else if offset.contains(&idx.0) {
                    b.known = Known::Offset;
                }
            }
            if how.consecutive {
                // What the lowering found (`Known::FromLane0`) stays unless
                // this shows more.
                if Some(idx.0) == id {
                    how.known = Known::FromId;
                } else if offset.contains(&idx.0) {
                    how.known = Known::Offset;
                }
            }
        }
    }
}

/// A prefetch `Ahead::Step` (`lower::prefetch`): where the load reads on
/// the loop's next step. The address may be anything: a prefetch never
/// faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepAhead {
    /// Bytes past the chunk's first element (times the parameter).
    pub bytes: i32,
    /// The 32-bit integer parameter at `[args + offset]`, sign- or
    /// zero-extended as the flag says (`true`: `int`), if any.
    pub param: Option<(i32, bool)>,
}

/// The bounds test of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    /// The parameter whose buffer the access must stay in.
    pub param: u32,
    /// The kind and source position, as `abi::pack_site` packs them.
    pub site: u64,
    /// Bytes of the element accessed (a vector's, accessed a component
    /// at a time), which a fault reports.
    pub size: u32,
    /// The component this access is of the element: a fault reports the
    /// element's address, `4 * component` bytes before the access's.
    pub component: u32,
}

/// Which accesses of a kernel prefetch and stream, and whether they are
/// checked.
pub struct MemoryPlan {
    prefetch: HashMap<ValueId, Ahead>,
    streaming: Streaming,
    /// Robust access: every access gets a [`Check`], but those of
    /// `trusted`.
    pub robust: bool,
    /// The accesses (pointers) the checked code this entry stands for
    /// trusts, whose offsets the 32-bit index lanes hold
    /// (`lower::bounds::small_trusted_accesses`): no test.
    trusted: HashSet<ValueId>,
    /// Per module-scope variable: a `__local` one's offset in the group's
    /// arena and its bytes.
    locals: Vec<Option<(u32, u32)>>,
    /// The kernel's parameters (a `__local` variable's bounds test goes by
    /// a number past them).
    params: u32,
}

impl MemoryPlan {
    /// The plan for `func`: `prefetch` as `JitOptions::prefetch` is on,
    /// `robust` for robust access.
    pub fn new(module: &Module, func: &Function, prefetch: bool, robust: bool) -> MemoryPlan {
        let roots = var_roots(func);
        let chosen = if prefetch {
            prefetched_loads(module, func, &roots, true)
        } else {
            HashMap::new()
        };
        MemoryPlan {
            prefetch: chosen,
            streaming: Streaming::new(func, roots),
            robust,
            trusted: HashSet::new(),
            locals: Vec::new(),
            params: func.params.len() as u32,
        }
    }

    /// The plan with the `__local` variables at the offsets `places` gives
    /// them in the group's arena (`layout::global_places`; others are not
    /// accessible).
    pub(crate) fn with_local_places(
        mut self,
        module: &Module,
        places: &[Option<GlobalPlace>],
    ) -> MemoryPlan {
        self.locals = module
            .globals
            .iter()
            .zip(places)
            .map(|(g, place)| match place {
                Some(GlobalPlace::Local(offset)) => Some((*offset, module.size_of(&g.ty))),
                _ => None,
            })
            .collect();
        self
    }

    /// The plan with the accesses through `trusted` untested: checked
    /// code compiled with the same trust gives them no test, and
    /// `CompiledKernel::run_groups` runs this entry only for launches that
    /// prove them (its group bound, `__local` argument sizes, launch
    /// proofs); any other launch runs a copy that tests them, wide or not.
    pub(crate) fn with_trusted(mut self, trusted: &[ValueId]) -> MemoryPlan {
        self.trusted = trusted.iter().copied().collect();
        self
    }

    /// Whether the access through `ptr` gets a bounds test.
    pub fn checks(&self, ptr: ValueId) -> bool {
        self.robust && !self.trusted.contains(&ptr)
    }

    /// Module-scope variable `g`'s offset in the arena and bytes, if it is
    /// a `__local` one the kernel uses.
    pub fn local_variable(&self, g: usize) -> Option<(u32, u32)> {
        self.locals.get(g).copied().flatten()
    }

    /// The number the bounds test of `__local` variable `g` goes by (after
    /// the parameters').
    pub fn local_check_number(&self, g: usize) -> u32 {
        self.params + g as u32
    }

    /// Where the load through `ptr` prefetches, if it does.
    pub(crate) fn prefetches(&self, ptr: ValueId) -> Option<&Ahead> {
        self.prefetch.get(&ptr)
    }

    /// Whether the store through `ptr` may stream.
    pub fn streams(&self, func: &Function, ptr: ValueId) -> bool {
        self.streaming.streams(func, ptr)
    }
}

/// The valid indices `[lo, hi]` of 4-byte elements from `base` inside the
/// buffer `[start, end)`, as signed 32-bit lane values (an index lane
/// stands for its sign extension), packed as `lo | hi << 32`; `lo = 1, hi
/// = 0` (no index) for a buffer of no whole element or none in reach.
/// Called by the entry once per parameter and call.
pub(crate) extern "C" fn index_bounds(base: u64, start: u64, end: u64) -> u64 {
    element_bounds(base, start, end, 4)
}

/// [`index_bounds`] of one-byte elements: the valid byte offsets from
/// `base` inside `[start, end)` ([`Access::byte`]).
pub(crate) extern "C" fn byte_index_bounds(base: u64, start: u64, end: u64) -> u64 {
    element_bounds(base, start, end, 1)
}

/// The valid indices of `size`-byte elements from `base` inside `[start,
/// end)`, packed as [`index_bounds`] packs them.
fn element_bounds(base: u64, start: u64, end: u64, size: u64) -> u64 {
    let empty = 1u64;
    if end < start || end - start < size {
        return empty;
    }
    let (base, start, end, size) = (
        i128::from(base),
        i128::from(start),
        i128::from(end),
        i128::from(size),
    );
    // lo = ceil((start - base) / size), hi = floor((end - size - base) / size).
    let lo = (start - base + size - 1)
        .div_euclid(size)
        .max(i128::from(i32::MIN));
    let hi = (end - size - base)
        .div_euclid(size)
        .min(i128::from(i32::MAX));
    if lo > hi {
        return empty;
    }
    u64::from(lo as i32 as u32) | u64::from(hi as i32 as u32) << 32
}

/// A fault branch of an access, emitted cold after the entry's end.
struct PendingFault {
    label: CodeLabel,
    /// The index register (zmm number) and the pointer's argument slot.
    idx: u8,
    ptr: i32,
    base: Base,
    site: u64,
    /// The element's bytes and the access's component (see [`Check`]).
    size: u32,
    component: u32,
    /// The index counts bytes ([`Access::byte`]), not 4-byte words.
    bytes: bool,
}

/// What `emit_access` needs of the kernel entry around it: where the
/// entry keeps its per-call facts, and the fault branches to emit.
pub(crate) struct EntryFrame {
    /// `[rsp + large_at]`, a byte: the launch streams (at least
    /// `stream_min_items` work-items).
    pub large_at: i32,
    /// `[rsp + bounds_at + 16 * param]`: the parameter's `index_bounds`
    /// as two sign-extended 64-bit values, the first and the last valid
    /// index (whose low halves are the 32-bit lanes' bounds).
    pub bounds_at: i32,
    /// `[rsp + byte_bounds_at + 16 * param]`: the same of one-byte
    /// elements (`byte_index_bounds`), for the entries whose accesses of
    /// bytes test their bounds ([`needs_byte_bounds`]).
    pub byte_bounds_at: Option<i32>,
    /// [`SCRATCH_BYTES`] bytes at `[rsp + scratch_at]` for the cold
    /// blocks and the lane-by-lane accesses of bytes.
    pub scratch_at: i32,
    /// `[rsp + local_at]`: the group's `__local` arena (a barrier kernel's
    /// entry, `super::regions`; none elsewhere).
    pub local_at: Option<i32>,
    /// `[rsp + sums_at + 8 * n]`: the addresses the uniform loads of
    /// [`Op::LoadSum`] read from (a barrier kernel's entry; `None`
    /// elsewhere), the `n` of `super::ra2::sum_slots`.
    pub sums_at: Option<i32>,
    /// `[rsp + group_at + 8 * dim]`: the coordinate in dimension `dim` of
    /// the group the entry runs (`Op::GroupId`; every kernel entry).
    pub group_at: Option<i32>,
    /// `[rsp + rows_at + 8 * n]`: row slot `n` (`Op::RowLane0`; a kernel
    /// entry whose accesses have `Known::RowOffset`).
    pub rows_at: Option<i32>,
    /// What `rax` and `r10` hold at the point of emission (`super::held`):
    /// the emitter forgets it at each block and after other code.
    pub held: Held,
    /// What r10's lane 0 is, while `held` says r10 holds index `.0`:
    /// value `.1` plus `.2` (`.0` itself plus 0 when it is no such sum).
    /// A uniform load of `.1 + c` then addresses from r10 with a
    /// displacement ([`emit_access`]).
    r10_split: Option<(u32, u32, i32)>,
    faults: Vec<PendingFault>,
    masked: Vec<ColdMasked>,
    streams: Vec<ColdStream>,
    tested: Vec<ColdTested>,
    /// Uniform loads with no lane running: their label, where they go
    /// back to, and the register to zero.
    empty: Vec<(CodeLabel, CodeLabel, u8)>,
}

impl EntryFrame {
    /// `[rsp + linear_at]`, a byte beside `large_at`'s: a worker's chunks
    /// walk memory in order ([`launch_flags`]).
    pub fn linear_at(&self) -> i32 {
        self.large_at + 1
    }

    pub fn new(large_at: i32, bounds_at: i32, scratch_at: i32) -> EntryFrame {
        EntryFrame {
            large_at,
            bounds_at,
            byte_bounds_at: None,
            scratch_at,
            local_at: None,
            sums_at: None,
            group_at: None,
            rows_at: None,
            held: Held::default(),
            r10_split: None,
            faults: Vec::new(),
            masked: Vec::new(),
            streams: Vec::new(),
            tested: Vec::new(),
            empty: Vec::new(),
        }
    }
}

/// The vector bounds test of the lanes of `k` of index `zi` (register
/// number `xn`) against parameter `c.param`'s bounds: on a lane outside,
/// a branch to a fault block (emitted later by `emit_faults`).
fn vector_check(
    a: &mut CodeAssembler,
    frame: &mut EntryFrame,
    c: Check,
    xn: u8,
    kn: u8,
    (ptr, base): (i32, Base),
) -> Result<(), WideError> {
    vector_check_of(a, frame, c, (xn, kn), (ptr, base), false)
}

/// [`vector_check`] of an index in 4-byte words or, with `bytes`, in
/// bytes (the bounds of `EntryFrame::byte_bounds_at`).
fn vector_check_of(
    a: &mut CodeAssembler,
    frame: &mut EntryFrame,
    c: Check,
    (xn, kn): (u8, u8),
    (ptr, base): (i32, Base),
    bytes: bool,
) -> Result<(), WideError> {
    let e = asm_err;
    let zi = zmm_reg(xn)?;
    // Running lanes below the first valid index or above the last.
    let table = if bytes {
        frame
            .byte_bounds_at
            .ok_or_else(|| WideError::Malformed("a test of bytes without their bounds".into()))?
    } else {
        frame.bounds_at
    };
    let at = table + 16 * c.param as i32;
    a.vpcmpd(k_masked(k0, kn), zi, dword_bcst(rsp + at), 1)
        .map_err(e)?;
    a.vpcmpd(k_masked(k7, kn), zi, dword_bcst(rsp + (at + 8)), 6)
        .map_err(e)?;
    a.korw(k0, k0, k7).map_err(e)?;
    a.kortestw(k0, k0).map_err(e)?;
    let label = a.create_label();
    a.jnz(label).map_err(e)?;
    frame.faults.push(PendingFault {
        label,
        idx: xn,
        ptr,
        base,
        site: c.site,
        size: c.size,
        component: c.component,
        bytes,
    });
    Ok(())
}

/// The work-items of a dimension-0 row of a group from which a worker's
/// chunks walk a buffer in order for [`DISTANCE`] bytes or more (4-byte
/// elements): the fixed prefetch then reads a line the worker reaches
/// soon ([`launch_flags`]).
const LINEAR_ROW: u64 = DISTANCE as u64 / 4;

/// The fewest work-items of a launch whose full chunks prefetch
/// `DISTANCE` bytes ahead (`launch_flags`). A smaller launch reads
/// under 1 MiB through each of its consecutive streams (4-byte
/// elements): a chain of such launches (a 256² stencil's steps) finds
/// them in the core's L2, whose lines the hardware's own prefetchers
/// bring to L1 in order, and the software prefetch only spends a load
/// slot and a fill buffer a line: FDTD's 256² kernels on one thread took
/// 6–8 % longer prefetching, 512² ones the same either way
/// (`docs/wide.md`).
pub const PREFETCH_MIN_ITEMS: u64 = 1 << 18;

/// Sets the entry's per-call flags in its frame: `[rsp + large_at]`,
/// whether the launch has at least `stream_min_items` work-items (its
/// stores may stream); `[rsp + large_at + 1]` ([`EntryFrame::linear_at`]),
/// whether the fixed prefetch pays: the launch has at least
/// [`PREFETCH_MIN_ITEMS`] work-items and a worker's chunks walk memory
/// in order, so that the line [`DISTANCE`] bytes past a chunk's load is
/// one it reads soon: groups of
/// one row (dimensions 1 and 2 one wide: the groups follow each other
/// along the row), or rows of at least [`LINEAR_ROW`] work-items. In a
/// 16 × 16 group the next chunk is the next row's, and the line 4 KiB on
/// is the group 64 groups later's: hotspot's 2048² step with 16 × 16
/// groups took 10.1 ms a launch prefetching and 6.3–7.5 without
/// (`docs/wide.md`). Writes rax, r10 and r11.
pub(crate) fn launch_flags(
    a: &mut CodeAssembler,
    frame: &EntryFrame,
    stream_min_items: u64,
) -> Result<(), WideError> {
    let (e, q) = (asm_err, 8);
    a.mov(rax, qword_ptr(r12 + lo::GLOBAL_SIZE)).map_err(e)?;
    a.imul_2(rax, qword_ptr(r12 + (lo::GLOBAL_SIZE + q)))
        .map_err(e)?;
    a.imul_2(rax, qword_ptr(r12 + (lo::GLOBAL_SIZE + 2 * q)))
        .map_err(e)?;
    a.mov(r10, stream_min_items).map_err(e)?;
    a.cmp(rax, r10).map_err(e)?;
    a.setae(byte_ptr(rsp + frame.large_at)).map_err(e)?;
    // Enough work-items to prefetch for: the flag's first part, kept in
    // its byte while rax and r10 serve the group's shape.
    a.cmp(rax, PREFETCH_MIN_ITEMS as i32).map_err(e)?;
    a.setae(byte_ptr(rsp + frame.linear_at())).map_err(e)?;
    a.mov(rax, qword_ptr(r12 + (lo::LOCAL_SIZE + q)))
        .map_err(e)?;
    a.imul_2(rax, qword_ptr(r12 + (lo::LOCAL_SIZE + 2 * q)))
        .map_err(e)?;
    a.cmp(rax, 1).map_err(e)?;
    a.sete(r10b).map_err(e)?;
    a.cmp(qword_ptr(r12 + lo::LOCAL_SIZE), LINEAR_ROW as i32)
        .map_err(e)?;
    a.setae(r11b).map_err(e)?;
    a.or(r10b, r11b).map_err(e)?;
    a.and(byte_ptr(rsp + frame.linear_at()), r10b).map_err(e)
}

/// The prefetch of a full chunk's load at `rax + 4 * index + disp`:
/// [`DISTANCE`] bytes further when the launch's chunks walk memory in
/// order (the flag at `linear`, [`launch_flags`]; always when `None`), or
/// where the loop's next step reads (`how.ahead`; r11 holds the
/// distance). Writes only r11 (and the flags).
fn prefetch(
    a: &mut CodeAssembler,
    how: &Access,
    index: AsmRegister64,
    disp: i32,
    linear: Option<i32>,
) -> Result<(), WideError> {
    let e = asm_err;
    match how.ahead {
        None => {
            let ahead = byte_ptr(rax + index * 4 + (DISTANCE + disp));
            match linear {
                Some(at) => {
                    let mut skip = a.create_label();
                    a.cmp(byte_ptr(rsp + at), 0).map_err(e)?;
                    a.je(skip).map_err(e)?;
                    a.prefetcht0(ahead).map_err(e)?;
                    a.set_label(&mut skip).map_err(e)?;
                    a.zero_bytes()
                }
                None => a.prefetcht0(ahead),
            }
        }
        Some(StepAhead { bytes, param: None }) => {
            a.prefetcht0(byte_ptr(rax + index * 4 + disp.wrapping_add(bytes)))
        }
        Some(StepAhead {
            bytes,
            param: Some((param, signed)),
        }) => {
            if signed {
                a.movsxd(r11, dword_ptr(rbx + param)).map_err(e)?;
            } else {
                a.mov(r11d, dword_ptr(rbx + param)).map_err(e)?;
            }
            a.imul_3(r11, r11, bytes).map_err(e)?;
            a.lea(r11, qword_ptr(r11 + index * 4)).map_err(e)?;
            a.prefetcht0(byte_ptr(rax + r11 + disp))
        }
    }
    .map_err(e)
}

/// `rax` = the address of the buffer of an access through argument slot
/// `ptr` at `base`.
fn load_base(
    a: &mut CodeAssembler,
    frame: &EntryFrame,
    base: Base,
    ptr: i32,
) -> Result<(), WideError> {
    let e = asm_err;
    let local = || {
        frame.local_at.ok_or_else(|| {
            WideError::Malformed("a `__local` access outside a barrier entry".into())
        })
    };
    match base {
        Base::Arg => a.mov(rax, qword_ptr(rbx + ptr)).map_err(e)?,
        Base::LocalArg => {
            a.mov(rax, qword_ptr(rsp + local()?)).map_err(e)?;
            a.add(rax, qword_ptr(rbx + ptr)).map_err(e)?;
        }
        Base::LocalAt { offset, .. } => {
            a.mov(rax, qword_ptr(rsp + local()?)).map_err(e)?;
            if offset != 0 {
                a.add(rax, offset as i32).map_err(e)?;
            }
        }
    }
    Ok(())
}

/// The vector access at `rax + 4 * r10` of the lanes of mask register
/// `kn`: all 16 (`full`, prefetching or streaming as `how` says) or
/// masked; `z` the value loaded or stored.
fn vector_access(
    a: &mut CodeAssembler,
    frame: &EntryFrame,
    how: &Access,
    (load, full): (bool, bool),
    (z, kn): (AsmRegisterZmm, u8),
    done: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    let at = zmmword_ptr(rax + r10 * 4);
    match (load, full) {
        (true, true) => {
            if how.prefetch {
                prefetch(a, how, r10, 0, Some(frame.linear_at()))?;
            }
            a.vmovups(z, at).map_err(e)?;
        }
        (false, true) => {
            if how.stream {
                // Large launches, line-aligned chunks: a whole line
                // written without reading it first.
                let mut plain = a.create_label();
                a.cmp(byte_ptr(rsp + frame.large_at), 0).map_err(e)?;
                a.je(plain).map_err(e)?;
                a.lea(r11, qword_ptr(rax + r10 * 4)).map_err(e)?;
                a.test(r11b, 63).map_err(e)?;
                a.jnz(plain).map_err(e)?;
                a.vmovntps(zmmword_ptr(r11), z).map_err(e)?;
                a.jmp(done).map_err(e)?;
                a.set_label(&mut plain).map_err(e)?;
                a.zero_bytes().map_err(e)?;
            }
            a.vmovups(at, z).map_err(e)?;
        }
        (true, false) => a.vmovups(zmm_masked(z, kn).z(), at).map_err(e)?,
        (false, false) => a.vmovups(mem_masked(at, kn), z).map_err(e)?,
    }
    a.jmp(done).map_err(e)
}

/// The masked path of a known-consecutive access, emitted out of line
/// (a row's tail chunk, or a full chunk whose span failed the bounds
/// test): the lane-wise bounds test, the masked access, back to `done`.
struct ColdMasked {
    label: CodeLabel,
    done: CodeLabel,
    load: bool,
    z: u8,
    kn: u8,
    /// The index of lane 0: r15 or r10.
    base: AsmRegister64,
    ptr: i32,
    buffer: Base,
    check: Option<Check>,
    /// `Known::FromLane0`: where a chunk whose mask leaves lane 0 out
    /// goes (the tested path).
    lane0: Option<CodeLabel>,
    /// Bytes from `base`'s element to lane 0's (a shifted index, never
    /// with a bounds test, or a row offset's displacement).
    disp: i32,
}

/// The tested path of an `Offset` or `FromLane0` access, out of line
/// (`tested_access`), back to `done`.
struct ColdTested {
    label: CodeLabel,
    done: CodeLabel,
    op: Op,
    /// A shifted index: r10 holds lane 0 of the value it is shifted
    /// from, which the tested path (setting r10 to its own) gives back.
    keeps_r10: bool,
}

/// The streaming store of a full chunk, out of line (taken on large
/// launches only): `vmovntps` when the chunk starts on a line, else a
/// plain store; back to `done`.
struct ColdStream {
    label: CodeLabel,
    done: CodeLabel,
    z: u8,
    base: AsmRegister64,
    /// As [`ColdMasked::disp`].
    disp: i32,
}

/// Emits one [`Op::LoadElems`] or [`Op::StoreElems`], its values already
/// physical registers, inside a kernel entry (`rbx` the argument block,
/// `r15` the chunk's first id of dimension 0).
///
/// The parts of an [`Op::LoadElems`] or [`Op::StoreElems`]: the value
/// loaded or stored, the pointer's slot, the index, the lanes, how it is
/// made, and whether it is a load.
fn elems(op: &Op) -> Result<(V, i32, V, K, Access, bool), WideError> {
    match *op {
        Op::LoadElems {
            d,
            ptr,
            idx,
            k,
            how,
        } => Ok((d, ptr, idx, k, how, true)),
        Op::StoreElems {
            a: x,
            ptr,
            idx,
            k,
            how,
        } => Ok((x, ptr, idx, k, how, false)),
        _ => Err(WideError::Malformed("not a memory operation".into())),
    }
}

/// A known-consecutive access ([`Known`]) makes its full-chunk access
/// inline and without a taken branch (the index of lane 0 is r15 or
/// r10, robust access tests the 16 lanes' span with two compares), and
/// leaves its masked path and its streaming store out of line
/// (`emit_cold`).
///
/// `index` is the (virtual) value of the index and `written` the values
/// the access writes: when an earlier access of the same straight stretch
/// left this buffer's address in `rax` or this index's lane 0 in `r10`
/// (`frame.held`, `super::held`), the access takes them from there.
/// `full`: the access's mask is known to hold all 16 lanes (a full-mask
/// stretch, `super::held::plan_block`): no mask test. `shift`: the index
/// is value `.0` plus the constant `.1` lane by lane; when r10 holds
/// lane 0 of `.0`, an unchecked access (`__global` or `__local`)
/// addresses from it with a displacement (and r10 keeps it).
pub(crate) fn emit_access(
    a: &mut CodeAssembler,
    op: &Op,
    frame: &mut EntryFrame,
    (index, written, full, split): (u32, &[u32], bool, Option<(u32, i32)>),
) -> Result<(), WideError> {
    let shift = split;
    let (_, ptr, _, _, how, load) = elems(op)?;
    if let Some(b) = how.byte {
        byte_access(a, frame, op, b)?;
        // rax, r10 and r11 hold nothing the next access could use.
        frame.held.forget();
        return Ok(());
    }
    if let Some(h) = how.pair {
        if !frame.held.has_buffer(how.base, ptr) {
            load_base(a, frame, how.base, ptr)?;
        }
        pair_access(a, op, h)?;
        frame.held.access((how.base, ptr), None, false, written);
        return Ok(());
    }
    if let (Some(c), true, None) = (how.constant, load, how.check) {
        if !frame.held.has_buffer(how.base, ptr) {
            load_base(a, frame, how.base, ptr)?;
        }
        constant_load(a, op, c)?;
        // rax holds the buffer; r10 is kept unless the index was too
        // large for a displacement.
        let keeps = i32::try_from(i64::from(c) * 4).is_ok();
        frame.held.access((how.base, ptr), None, keeps, written);
        return Ok(());
    }
    let known = if how.consecutive {
        how.known
    } else {
        Known::Tested
    };
    // A row offset's index is read from no register: what r10 holds is
    // named by its slot (forgotten when the chunk's first id moves).
    let index = match known {
        Known::RowOffset(s, _) => super::held::CHUNK_KEYS + u32::from(s),
        _ => index,
    };
    let lane0 = matches!(
        known,
        Known::Offset | Known::FromLane0 | Known::RowOffset(..)
    ) && !(how.uniform && load);
    // A `__local` buffer takes the shift too: it tests no wrap (an index
    // that high is outside the arena either way), and an unchecked access
    // has no bounds test to see the lanes.
    let shift = shift.filter(|(from, c)| {
        lane0
            && how.check.is_none()
            && !matches!(known, Known::RowOffset(..))
            && c.unsigned_abs() <= MAX_SHIFT
            && frame.held.has_index(*from)
            && !frame.held.has_index(index)
    });
    // The span of this index in this buffer already proven: no test.
    let spanned = how
        .check
        .is_some_and(|c| known != Known::Tested && frame.held.has_span(c.param, index));
    // A uniform load without a mask test (`suppressed_load`) of `from +
    // c` after one of `from + c0` in the same stretch: r10 still holds
    // the earlier one's lane 0, and this one addresses 4·(c - c0) bytes
    // from it (nbody's `tile[j]`: four components, one `vmovd`).
    let (from, c) = split.unwrap_or((index, 0));
    let suppressed = suppresses_mask_test(&how, load, known);
    let from_r10 = frame
        .r10_split
        .filter(|&(x, f, _)| suppressed && f == from && frame.held.has_index(x))
        .map(|(x, _, c0)| (x, c - c0))
        .filter(|&(_, d)| d.unsigned_abs() <= MAX_SHIFT);
    let base = emit_access_held(
        a,
        op,
        frame,
        lane0.then_some(index),
        (
            full,
            shift.map(|(_, c)| c),
            spanned,
            from_r10.map(|(_, d)| d),
        ),
    )?;
    if suppressed {
        let held = from_r10.map_or(index, |(x, _)| x);
        if from_r10.is_none() {
            frame.r10_split = Some((index, from, c));
        }
        frame.held.access((base, ptr), Some(held), false, written);
        return Ok(());
    }
    if let (Some(c), true, false) = (how.check, full, known == Known::Tested) {
        if !(how.uniform && load) {
            frame.held.span(c.param, index);
        }
    }
    // Every path leaves the buffer in rax; lane 0 of the index in r10
    // (`lane0`), or of the value it is shifted from; an access by the
    // chunk's id touches no r10.
    frame.held.access(
        (base, ptr),
        lane0.then_some(shift.map_or(index, |(from, _)| from)),
        known == Known::FromId && !(how.uniform && load),
        written,
    );
    Ok(())
}

/// The steps of the first words of consecutive two-word elements from
/// lane 0 of each half: what [`pair_access`] compares its index with.
static PAIR_STEPS: [i32; 16] = [0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14];

/// Half `h` of an access of two-word elements ([`Access::pair`]), `rax`
/// the buffer's address: when the eight lanes of the half run and their
/// indices are lane `8h`'s plus 0, 2, …, 14 (tested, or known from the
/// index's form: `Known::FromLane0`), one `vmovups` of the 64
/// bytes at lane `8h`'s element; else a `vpgatherdq` or `vpscatterdq` of
/// the running lanes' elements (a load's other lanes zero), eight 64-bit
/// elements where two `vpgatherdd`/`vpscatterdd` of the components moved
/// sixteen 32-bit ones each. The scatter writes the lanes in order, a
/// lane's element whole, as the work-items one after another would.
/// `r10`, `r11`, `k0`, the scratch zmm and k registers are clobbered.
fn pair_access(a: &mut CodeAssembler, op: &Op, h: u8) -> Result<(), WideError> {
    let e = asm_err;
    let (value, _, idx, k, how, load) = elems(op)?;
    let (kn, xn, zn) = (k.0 as u8, idx.0 as u8, value.0 as u8);
    let (z, km, zi) = (zmm_reg(zn)?, k_reg(kn)?, zmm_reg(xn)?);
    let (t, ks) = (zmm_reg(SCRATCH_ZMM)?, k_reg(SCRATCH_K)?);
    let mut slow = a.create_label();
    let mut done = a.create_label();
    // Indices known two words apart lane to lane (`Known::FromLane0`, the
    // index's form): the half's running lanes alone are tested.
    let known = how.known == Known::FromLane0;
    if known {
        a.kmovw(r11d, km).map_err(e)?;
    }
    // r10 = the index of lane 8h, sign-extended.
    if h == 0 {
        lane0_to_r10d(a, xn)?;
    } else {
        let tx = get_xmm(iced_x86::Register::XMM0 + u32::from(SCRATCH_ZMM))
            .ok_or_else(|| WideError::Malformed("the scratch xmm".into()))?;
        a.vextracti32x4(tx, zi, 2).map_err(e)?;
        lane0_to_r10d(a, SCRATCH_ZMM)?;
    }
    if !known {
        // The half's lanes that run and hold r10 + 2i: all eight, or the
        // gather or scatter.
        a.vpbroadcastd(t, r10d).map_err(e)?;
        a.mov(r11, PAIR_STEPS.as_ptr() as u64).map_err(e)?;
        a.vpaddd(t, t, zmmword_ptr(r11)).map_err(e)?;
        a.vpcmpd(k_masked(ks, kn), t, zi, 0).map_err(e)?;
        a.kmovw(r11d, ks).map_err(e)?;
    }
    if h == 1 {
        a.shr(r11d, 8).map_err(e)?;
    }
    a.cmp(r11b, -1).map_err(e)?;
    a.jne(slow).map_err(e)?;
    a.movsxd(r10, r10d).map_err(e)?;
    if load {
        a.vmovups(z, zmmword_ptr(rax + r10 * 4)).map_err(e)?;
    } else {
        a.vmovups(zmmword_ptr(rax + r10 * 4), z).map_err(e)?;
    }
    a.jmp(done).map_err(e)?;
    a.set_label(&mut slow).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    // The half's indices into the scratch register (the value may be the
    // index's register), its mask bits to the scratch k register.
    // (`vextracti64x4` of half 0 too: AVX-512F, where a `ymm` move is
    // AVX-512VL's.)
    let ty = ymm_of_n(SCRATCH_ZMM)?;
    a.vextracti64x4(ty, zi, u32::from(h)).map_err(e)?;
    if h == 0 {
        a.kmovw(ks, km).map_err(e)?;
    } else {
        a.kshiftrw(ks, km, 8).map_err(e)?;
    }
    if load {
        a.vpxord(z, z, z).map_err(e)?;
        a.vpgatherdq(zmm_masked(z, SCRATCH_K), zmmword_ptr(rax + ty * 4))
            .map_err(e)?;
    } else {
        a.vpscatterdq(mem_masked(zmmword_ptr(rax + ty * 4), SCRATCH_K), z)
            .map_err(e)?;
    }
    a.set_label(&mut done).map_err(e)?;
    a.zero_bytes().map_err(e)
}

/// Bytes at `[rsp + EntryFrame::scratch_at]`: a zmm of indices and one
/// of values for the lane-by-lane accesses of bytes (`byte_access`).
pub const SCRATCH_BYTES: i32 = 128;

/// Whether an entry emitting `ops` needs the bounds of one-byte elements
/// (`EntryFrame::byte_bounds_at`): an access of bytes tests its bounds.
pub(crate) fn needs_byte_bounds<'a>(ops: impl IntoIterator<Item = &'a Op>) -> bool {
    ops.into_iter().any(|op| {
        matches!(op, Op::LoadElems { how, .. } | Op::StoreElems { how, .. }
            if how.byte.is_some() && how.check.is_some())
    })
}

/// An access of one-byte elements ([`Access::byte`]; a `__global` or
/// `__constant` buffer), its index in bytes. When all 16 lanes run and
/// hold consecutive indices from lane 0's (known from the index's form,
/// `ByteElems::known`, or tested at run time for an access the
/// uniformity analysis finds consecutive), one 16-byte access:
/// `vpmovzxbd`/`vpmovsxbd` into the lanes, `vpmovdb` out of them, under
/// robust access after a scalar test of the 16 bytes' span. A load of
/// one address for every lane reads the first running lane's byte and
/// broadcasts it. Otherwise, after the running lanes' bounds test, a load
/// gathers the aligned 32-bit words holding its bytes (an aligned word
/// lies in the page of its bytes, so nothing is read from a page the
/// buffer does not reach) and shifts each byte down; a store goes lane by
/// lane, in the lanes' order, through the frame's scratch (indices, then
/// values): AVX-512 has no byte scatter, and a scatter of the words
/// around the bytes would write other work-items' bytes. A load's lanes
/// that do not run are zero; with no lane running (the last trip of a
/// divergent loop, a loop no lane enters), nothing is accessed: an empty
/// gather still waited out its latency, and a BFS step over an empty
/// frontier took 0.17 ms a launch where Cranelift's code took 0.16 (0.12
/// without). `rax`, `r10`, `r11`, `k0`, `k7`, the scratch zmm and k
/// registers are clobbered.
fn byte_access(
    a: &mut CodeAssembler,
    frame: &mut EntryFrame,
    op: &Op,
    b: ByteElems,
) -> Result<(), WideError> {
    let e = asm_err;
    let (value, ptr, idx, k, how, load) = elems(op)?;
    if how.base != Base::Arg {
        return Err(WideError::Malformed("bytes of `__local` memory".into()));
    }
    let (kn, xn, zn) = (k.0 as u8, idx.0 as u8, value.0 as u8);
    let (z, km, zi) = (zmm_reg(zn)?, k_reg(kn)?, zmm_reg(xn)?);
    let t = zmm_reg(SCRATCH_ZMM)?;
    load_base(a, frame, how.base, ptr)?;
    let mut slow = a.create_label();
    let mut done = a.create_label();
    let s = frame.scratch_at;
    if b.uniform && load {
        if let Some(c) = how.check {
            vector_check_of(a, frame, c, (xn, kn), (ptr, how.base), true)?;
        }
        // The first running lane's byte in every running lane, the others
        // zero (none running: no access, all zero).
        a.vpxord(t, t, t).map_err(e)?;
        a.kmovw(r11d, km).map_err(e)?;
        a.test(r11d, r11d).map_err(e)?;
        a.jz(slow).map_err(e)?;
        a.vmovdqu32(zmmword_ptr(rsp + s), zi).map_err(e)?;
        a.tzcnt(r10d, r11d).map_err(e)?;
        a.movsxd(r10, dword_ptr(rsp + r10 * 4 + s)).map_err(e)?;
        if b.signed {
            a.movsx(r10d, byte_ptr(rax + r10)).map_err(e)?;
        } else {
            a.movzx(r10d, byte_ptr(rax + r10)).map_err(e)?;
        }
        a.vpbroadcastd(zmm_masked(t, kn).z(), r10d).map_err(e)?;
        a.set_label(&mut slow).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.vmovdqa32(z, t).map_err(e)?;
        a.set_label(&mut done).map_err(e)?;
        return a.zero_bytes().map_err(e);
    }
    if b.consecutive {
        a.kmovw(r11d, km).map_err(e)?;
        a.cmp(r11d, 0xffff).map_err(e)?;
        a.jne(slow).map_err(e)?;
        // The index of lane 0: the chunk's first id, or lane 0's (whose
        // 16 bytes must not wrap past `i32::MAX`).
        let first = if b.known == Known::FromId {
            r15
        } else {
            lane0_to_r10d(a, xn)?;
            a.movsxd(r10, r10d).map_err(e)?;
            a.cmp(r10, i32::MAX - 15).map_err(e)?;
            a.jg(slow).map_err(e)?;
            r10
        };
        if b.known == Known::Tested {
            unless_consecutive(a, xn, None, slow)?;
        }
        if how.check.is_some() {
            // The 16 bytes' span inside the bounds; else the lanes' test.
            let at = frame
                .byte_bounds_at
                .ok_or_else(|| WideError::Malformed("bytes without their bounds".into()))?
                + 16 * how.check.map_or(0, |c| c.param as i32);
            a.cmp(first, qword_ptr(rsp + at)).map_err(e)?;
            a.jl(slow).map_err(e)?;
            a.lea(r11, qword_ptr(first + 15)).map_err(e)?;
            a.cmp(r11, qword_ptr(rsp + (at + 8))).map_err(e)?;
            a.jg(slow).map_err(e)?;
        }
        let at = xmmword_ptr(rax + first);
        match (load, b.signed) {
            (true, true) => a.vpmovsxbd(z, at),
            (true, false) => a.vpmovzxbd(z, at),
            (false, _) => a.vpmovdb(at, z),
        }
        .map_err(e)?;
        a.jmp(done).map_err(e)?;
    }
    a.set_label(&mut slow).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    // No lane running (a loop's trip that every lane has left): nothing
    // to access, and a load is zero.
    let mut some = a.create_label();
    a.kortestw(km, km).map_err(e)?;
    a.jnz(some).map_err(e)?;
    if load {
        a.vpxord(z, z, z).map_err(e)?;
    }
    a.jmp(done).map_err(e)?;
    a.set_label(&mut some).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    if let Some(c) = how.check {
        vector_check_of(a, frame, c, (xn, kn), (ptr, how.base), true)?;
    }
    let mut lanes = a.create_label();
    if load {
        // A gather of the aligned 32-bit words that hold the bytes: an
        // aligned word never crosses a page, so it reads only pages the
        // bytes lie in. With `r` = rax & 3, byte `rax + idx` is byte
        // `(idx + r) & 3` of the word at `(rax & !3) + ((idx + r) & !3)`;
        // a lane where `idx + r` wraps goes lane by lane.
        let ks = k_reg(SCRATCH_K)?;
        a.mov(r11d, eax).map_err(e)?;
        a.and(r11d, 3).map_err(e)?;
        a.vpbroadcastd(t, r11d).map_err(e)?;
        a.vpaddd(t, t, zi).map_err(e)?;
        a.vpcmpd(k_masked(k0, kn), t, zi, 1).map_err(e)?;
        a.kortestw(k0, k0).map_err(e)?;
        a.jnz(lanes).map_err(e)?;
        a.mov(r11, rax).map_err(e)?;
        a.and(r11, -4).map_err(e)?;
        // The words' offsets in `z` (which may be the index's register,
        // read no more), each byte's shift (8 times its place) saved.
        a.vpsrld(z, t, 2).map_err(e)?;
        a.vpslld(z, z, 2).map_err(e)?;
        a.vpslld(t, t, 30).map_err(e)?;
        a.vpsrld(t, t, 27).map_err(e)?;
        a.vmovdqu32(zmmword_ptr(rsp + s), t).map_err(e)?;
        a.kmovw(ks, km).map_err(e)?;
        a.vpxord(t, t, t).map_err(e)?;
        a.vpgatherdd(zmm_masked(t, SCRATCH_K), zmmword_ptr(r11 + z))
            .map_err(e)?;
        a.vpsrlvd(t, t, zmmword_ptr(rsp + s)).map_err(e)?;
        a.vpslld(t, t, 24).map_err(e)?;
        if b.signed {
            a.vpsrad(z, t, 24).map_err(e)?;
        } else {
            a.vpsrld(z, t, 24).map_err(e)?;
        }
        a.jmp(done).map_err(e)?;
    }
    a.set_label(&mut lanes).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.vmovdqu32(zmmword_ptr(rsp + s), zi).map_err(e)?;
    if load {
        a.vpxord(t, t, t).map_err(e)?;
        a.vmovdqu32(zmmword_ptr(rsp + (s + 64)), t).map_err(e)?;
    } else {
        a.vmovdqu32(zmmword_ptr(rsp + (s + 64)), z).map_err(e)?;
    }
    let mut end = a.create_label();
    let mut lane = a.create_label();
    a.kmovw(r11d, km).map_err(e)?;
    a.test(r11d, r11d).map_err(e)?;
    a.jz(end).map_err(e)?;
    a.set_label(&mut lane).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    // r10 = the lowest running lane left, rax = its byte's address.
    a.tzcnt(r10d, r11d).map_err(e)?;
    a.movsxd(rax, dword_ptr(rsp + r10 * 4 + s)).map_err(e)?;
    a.add(rax, qword_ptr(rbx + ptr)).map_err(e)?;
    if load {
        if b.signed {
            a.movsx(eax, byte_ptr(rax)).map_err(e)?;
        } else {
            a.movzx(eax, byte_ptr(rax)).map_err(e)?;
        }
        a.mov(dword_ptr(rsp + r10 * 4 + (s + 64)), eax).map_err(e)?;
    } else {
        a.mov(r10b, byte_ptr(rsp + r10 * 4 + (s + 64))).map_err(e)?;
        a.mov(byte_ptr(rax), r10b).map_err(e)?;
    }
    a.blsr(r11d, r11d).map_err(e)?;
    a.jnz(lane).map_err(e)?;
    a.set_label(&mut end).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    if load {
        a.vmovdqu32(z, zmmword_ptr(rsp + (s + 64))).map_err(e)?;
    }
    a.set_label(&mut done).map_err(e)?;
    a.zero_bytes().map_err(e)
}

/// The lower half of zmm `n` as a ymm register.
fn ymm_of_n(n: u8) -> Result<AsmRegisterYmm, WideError> {
    get_ymm(iced_x86::Register::YMM0 + u32::from(n))
        .ok_or_else(|| WideError::Malformed(format!("ymm{n}")))
}

/// The largest constant (elements) an index may be shifted by from the
/// held lane 0 of another ([`emit_access`]).
const MAX_SHIFT: u32 = 1 << 20;

/// Whether an access is a load under uniform control without a bounds
/// test whose mask needs no test ([`suppressed_load`]): a uniform load,
/// or a `__local` one known consecutive from lane 0.
pub(crate) fn suppresses_mask_test(how: &Access, load: bool, known: Known) -> bool {
    let local = matches!(how.base, Base::LocalAt { .. } | Base::LocalArg);
    let lane0 = load && known == Known::FromLane0 && local;
    load && (how.uniform || lane0) && how.lane0 && how.check.is_none()
}

/// [`emit_access`]'s code; `index` the virtual index value of an access
/// whose lane 0 goes to r10, `full` its mask known whole, `shift` the
/// elements its lane 0 lies past r10's (which r10 keeps), `spanned` its
/// 16 elements known inside the checked buffer (no span test).
fn emit_access_held(
    a: &mut CodeAssembler,
    op: &Op,
    frame: &mut EntryFrame,
    index: Option<u32>,
    (full, shift, spanned, from_r10): (bool, Option<i32>, bool, Option<i32>),
) -> Result<Base, WideError> {
    let e = asm_err;
    let (value, ptr, idx, k, how, load) = elems(op)?;
    let (kn, xn, zn) = (k.0 as u8, idx.0 as u8, value.0 as u8);
    let (z, km) = (zmm_reg(zn)?, k_reg(kn)?);
    let known = if how.consecutive {
        how.known
    } else {
        Known::Tested
    };
    let mut done = a.create_label();
    // Under uniform control, unchecked: no mask test (a `__local`
    // variable's offset in the address's displacement, rax the arena's
    // address, which the next such load finds in `frame.held`).
    if suppresses_mask_test(&how, load, known) {
        let (base, disp) = match how.base {
            Base::LocalAt { offset, .. } => (Base::LocalAt { offset: 0, size: 0 }, offset as i32),
            other => (other, 0),
        };
        if !frame.held.has_buffer(base, ptr) {
            load_base(a, frame, base, ptr)?;
        }
        suppressed_load(a, (z, kn), xn, disp, how.uniform, from_r10)?;
        return Ok(base);
    }
    if !frame.held.has_buffer(how.base, ptr) {
        load_base(a, frame, how.base, ptr)?;
    }
    if how.uniform && load {
        uniform_load(a, frame, &how, (z, zn), (km, kn), xn, ptr)?;
        return Ok(how.base);
    }
    let mut tested = a.create_label();
    if known != Known::Tested {
        // The index of lane 0, the others following it.
        let base = if known == Known::FromId {
            r15
        } else if let Known::RowOffset(s, _) = known {
            // The chunk's first id plus the row's value: no wrap to test.
            if !index.is_some_and(|v| frame.held.has_index(v)) {
                let rows = frame
                    .rows_at
                    .ok_or_else(|| WideError::Malformed("a row offset without slots".into()))?;
                a.mov(r10, qword_ptr(rsp + (rows + 8 * i32::from(s))))
                    .map_err(e)?;
                a.add(r10, r15).map_err(e)?;
            }
            r10
        } else {
            if shift.is_none() && !index.is_some_and(|v| frame.held.has_index(v)) {
                lane0_to_r10d(a, xn)?;
                a.movsxd(r10, r10d).map_err(e)?;
            }
            if how.base == Base::Arg {
                // A `__local` index that high is outside the arena either
                // way (robust access's span test sends it to the lanes'
                // test, which sees the lanes as they are). Shifted by `c`
                // from r10: r10 + c, as the lanes wrap it, must not wrap.
                let c = i64::from(shift.unwrap_or(0));
                let high = i64::from(i32::MAX) - 15 - c;
                if high < i64::from(i32::MAX) {
                    a.cmp(r10, high as i32).map_err(e)?;
                    a.jg(tested).map_err(e)?;
                }
                let low = i64::from(i32::MIN) - c;
                if low > i64::from(i32::MIN) {
                    a.cmp(r10, low as i32).map_err(e)?;
                    a.jl(tested).map_err(e)?;
                }
            }
            r10
        };
        let row_disp = match known {
            Known::RowOffset(_, d) => d,
            _ => 0,
        };
        let disp = 4 * (shift.unwrap_or(0) + row_disp);
        let masked = a.create_label();
        // Every lane running (`kortestw` and a branch on it cost more
        // than a move to a general register and a compare on Zen 5,
        // `docs/wide.md`).
        if !full {
            a.kmovw(r11d, km).map_err(e)?;
            a.cmp(r11d, 0xffff).map_err(e)?;
            a.jne(masked).map_err(e)?;
        }
        // A row offset's span: the row's guard found the whole row's
        // indices inside the buffer (`EntryTest::Full`).
        let spanned = spanned || matches!(known, Known::RowOffset(..));
        if let (Some(c), false) = (how.check, spanned) {
            // The span of the 16 lanes inside the bounds; else the masked
            // path, whose lane-wise test finds the lane outside.
            let at = frame.bounds_at + 16 * c.param as i32;
            a.cmp(base, qword_ptr(rsp + at)).map_err(e)?;
            a.jl(masked).map_err(e)?;
            a.lea(r11, qword_ptr(base + 15)).map_err(e)?;
            a.cmp(r11, qword_ptr(rsp + (at + 8))).map_err(e)?;
            a.jg(masked).map_err(e)?;
        }
        let at = zmmword_ptr(rax + base * 4 + disp);
        if load {
            if how.prefetch {
                prefetch(a, &how, base, disp, Some(frame.linear_at()))?;
            }
            a.vmovups(z, at).map_err(e)?;
        } else if how.stream {
            let stream = a.create_label();
            a.cmp(byte_ptr(rsp + frame.large_at), 0).map_err(e)?;
            a.jne(stream).map_err(e)?;
            a.vmovups(at, z).map_err(e)?;
            frame.streams.push(ColdStream {
                label: stream,
                done,
                z: zn,
                base,
                disp,
            });
        } else {
            a.vmovups(at, z).map_err(e)?;
        }
        frame.masked.push(ColdMasked {
            label: masked,
            done,
            load,
            z: zn,
            kn,
            base,
            ptr,
            buffer: how.base,
            check: how.check,
            lane0: (known == Known::FromLane0).then_some(tested),
            disp,
        });
        if !matches!(known, Known::FromId | Known::RowOffset(..)) {
            // Lane 0 near `i32::MAX` or, for `FromLane0`, not running: the
            // lanes tested, out of line.
            frame.tested.push(ColdTested {
                label: tested,
                done,
                op: op.clone(),
                keeps_r10: shift.is_some(),
            });
        }
        a.set_label(&mut done).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        return Ok(how.base);
    }
    a.set_label(&mut tested).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    tested_access(a, frame, op, done)?;
    a.set_label(&mut done).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    Ok(how.base)
}

/// The access `op` with its lanes tested at run time, `rax` the buffer's
/// address: the robust bounds test of the running lanes, then, for a
/// consecutive one, one vector access when the running lanes hold
/// `idx[0] + l`, else a gather or scatter; ends by jumping to `done`
/// (or falling through to it).
fn tested_access(
    a: &mut CodeAssembler,
    frame: &mut EntryFrame,
    op: &Op,
    done: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    let (value, ptr, idx, k, how, load) = elems(op)?;
    let (kn, xn, zn) = (k.0 as u8, idx.0 as u8, value.0 as u8);
    let (z, km) = (zmm_reg(zn)?, k_reg(kn)?);
    let t = zmm_reg(SCRATCH_ZMM)?;
    let zi = zmm_reg(xn)?;
    if let Some(c) = how.check {
        vector_check(a, frame, c, xn, kn, (ptr, how.base))?;
    }
    let mut slow = a.create_label();
    if how.consecutive {
        // r10 = idx[0] sign-extended; the slow path unless the running
        // lanes hold idx[0] + l.
        lane0_to_r10d(a, xn)?;
        a.movsxd(r10, r10d).map_err(e)?;
        unless_consecutive(a, xn, Some(kn), slow)?;
        // Every lane running: a plain access (a masked one costs more on
        // some cores); else a masked one.
        let mut masked = a.create_label();
        a.kortestw(km, km).map_err(e)?;
        a.jae(masked).map_err(e)?;
        vector_access(a, frame, &how, (load, true), (z, kn), done)?;
        a.set_label(&mut masked).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        vector_access(a, frame, &how, (load, false), (z, kn), done)?;
    }
    a.set_label(&mut slow).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    one_lane(a, (load, z), kn, xn, done)?;
    let ks = k_reg(SCRATCH_K)?;
    a.kmovw(ks, km).map_err(e)?;
    if load {
        a.vpxord(t, t, t).map_err(e)?;
        a.vpgatherdd(zmm_masked(t, SCRATCH_K), zmmword_ptr(rax + zi * 4))
            .map_err(e)?;
        a.vmovdqa32(z, t).map_err(e)?;
    } else {
        a.vpscatterdd(mem_masked(zmmword_ptr(rax + zi * 4), SCRATCH_K), z)
            .map_err(e)?;
    }
    a.jmp(done).map_err(e)
}

/// A branch to `other` unless the lanes of index register `xn` (those
/// of mask register `within`, or all 16) hold lane 0's index, in r10d,
/// plus `l`. Clobbers r11, `k0` and the scratch zmm.
fn unless_consecutive(
    a: &mut CodeAssembler,
    xn: u8,
    within: Option<u8>,
    other: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    let t = zmm_reg(SCRATCH_ZMM)?;
    a.vpbroadcastd(t, r10d).map_err(e)?;
    a.mov(r11, IOTA.as_ptr() as u64).map_err(e)?;
    a.vpaddd(t, t, zmmword_ptr(r11)).map_err(e)?;
    let k = match within {
        Some(kn) => k_masked(k0, kn),
        None => k0,
    };
    a.vpcmpd(k, t, zmm_reg(xn)?, 4).map_err(e)?;
    a.kortestw(k0, k0).map_err(e)?;
    a.jnz(other).map_err(e)
}

/// The running lanes of mask register `kn` in a general register: one
/// lane running (a region's `if (lid == 0)` storing its group's result at
/// an index that is not known uniform, `partial[get_group_id(0)]`), its
/// element read or written as a scalar and a jump to `done`; no lane, a
/// jump to `done` (a masked gather or scatter of no lane accesses
/// nothing, and a gather's result is then zero, as `z` is after
/// `vpbroadcastd` under an empty zeroing mask); two or more, falling
/// through to the gather or scatter. A `vpscatterdd` of one lane is
/// microcoded on Zen 4 and cost about as much as the other work of the
/// region did (`docs/wide.md`, "Accesses of one running lane"). The
/// bounds test of the running lanes, if any, came before; `rax` holds the
/// buffer's address; `r11` and the scratch zmm are free, `r10` is kept.
fn one_lane(
    a: &mut CodeAssembler,
    (load, z): (bool, AsmRegisterZmm),
    kn: u8,
    xn: u8,
    done: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    let t = zmm_reg(SCRATCH_ZMM)?;
    let tx = get_xmm(iced_x86::Register::XMM0 + u32::from(SCRATCH_ZMM))
        .ok_or_else(|| WideError::Malformed(format!("xmm{SCRATCH_ZMM}")))?;
    let mut several = a.create_label();
    // `blsr` clears the lowest set bit: ZF when at most one lane runs, CF
    // when none does.
    a.kmovw(r11d, k_reg(kn)?).map_err(e)?;
    a.blsr(r11d, r11d).map_err(e)?;
    a.jnz(several).map_err(e)?;
    let mut one = a.create_label();
    a.jae(one).map_err(e)?;
    if load {
        // No lane running: zeros in every lane, as the gather gives.
        a.vpxord(z, z, z).map_err(e)?;
    }
    a.jmp(done).map_err(e)?;
    a.set_label(&mut one).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    // The running lane's index to lane 0 of the scratch, then to r11 (r10
    // may hold lane 0 of the index for the accesses after this one).
    a.vpcompressd(zmm_masked(t, kn).z(), zmm_reg(xn)?)
        .map_err(e)?;
    lane0_to(a, r11d, SCRATCH_ZMM)?;
    a.movsxd(r11, r11d).map_err(e)?;
    if load {
        a.vpbroadcastd(zmm_masked(z, kn).z(), dword_ptr(rax + r11 * 4))
            .map_err(e)?;
    } else {
        a.vpcompressd(zmm_masked(t, kn).z(), z).map_err(e)?;
        a.set_prefer_vex(false);
        let stored = a.vmovd(dword_ptr(rax + r11 * 4), tx);
        a.set_prefer_vex(true);
        stored.map_err(e)?;
    }
    a.jmp(done).map_err(e)?;
    a.set_label(&mut several).map_err(e)?;
    a.zero_bytes().map_err(e)
}

/// A load of one element for every running lane of mask register `kn`
/// (`how.uniform`) through the buffer at `rax`: the index of the first
/// running lane (a compress of the index register `xn`, whose other
/// running lanes hold the same index), a scalar bounds test under robust
/// access (a fault reports that lane), and one broadcast from memory into
/// the running lanes of `z`, zero in the others. No lane running: no
/// access, `z` zero.
fn uniform_load(
    a: &mut CodeAssembler,
    frame: &mut EntryFrame,
    how: &Access,
    (z, zn): (AsmRegisterZmm, u8),
    (km, kn): (AsmRegisterK, u8),
    xn: u8,
    ptr: i32,
) -> Result<(), WideError> {
    let e = asm_err;
    let t = zmm_reg(SCRATCH_ZMM)?;
    let empty = a.create_label();
    let mut done = a.create_label();
    let mut compress = a.create_label();
    let mut got = a.create_label();
    // The mask through a general register: a `kortestw` here made
    // nbody's inner loop 1.3x slower on Zen 5 (`docs/wide.md`).
    a.kmovw(r11d, km).map_err(e)?;
    a.test(r11d, r11d).map_err(e)?;
    a.jz(empty).map_err(e)?;
    if let (Some(k), Some(c)) = (how.constant, how.check) {
        // Every running lane's index is `k`: compared with the bounds as
        // it is, the first running lane the faulting work-item.
        let at = frame.bounds_at + 16 * c.param as i32;
        let label = a.create_label();
        a.kmovw(k0, km).map_err(e)?;
        a.cmp(qword_ptr(rsp + at), k).map_err(e)?;
        a.jg(label).map_err(e)?;
        a.cmp(qword_ptr(rsp + (at + 8)), k).map_err(e)?;
        a.jl(label).map_err(e)?;
        frame.faults.push(PendingFault {
            label,
            idx: xn,
            ptr,
            base: how.base,
            site: c.site,
            size: c.size,
            component: c.component,
            bytes: false,
        });
        let at = match i32::try_from(i64::from(k) * 4) {
            Ok(disp) => dword_ptr(rax + disp),
            Err(_) => {
                a.mov(r10, i64::from(k)).map_err(e)?;
                dword_ptr(rax + r10 * 4)
            }
        };
        a.vpbroadcastd(zmm_masked(z, kn).z(), at).map_err(e)?;
        a.set_label(&mut done).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        frame.empty.push((empty, done, zn));
        return Ok(());
    }
    if !how.lane0 {
        // Lane 0 running (a row's chunks start there): its index; else
        // the first running lane's, compressed to lane 0 of the scratch.
        a.test(r11b, 1).map_err(e)?;
        a.jz(compress).map_err(e)?;
    }
    lane0_to_r10d(a, xn)?;
    if !how.lane0 {
        a.jmp(got).map_err(e)?;
        a.set_label(&mut compress).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.vpcompressd(zmm_masked(t, kn).z(), zmm_reg(xn)?)
            .map_err(e)?;
        lane0_to_r10d(a, SCRATCH_ZMM)?;
    }
    a.set_label(&mut got).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.movsxd(r10, r10d).map_err(e)?;
    if let Some(c) = how.check {
        // Every running lane accesses the one element: the first of them
        // is the faulting work-item.
        let at = frame.bounds_at + 16 * c.param as i32;
        let label = a.create_label();
        a.kmovw(k0, km).map_err(e)?;
        a.cmp(r10, qword_ptr(rsp + at)).map_err(e)?;
        a.jl(label).map_err(e)?;
        a.cmp(r10, qword_ptr(rsp + (at + 8))).map_err(e)?;
        a.jg(label).map_err(e)?;
        frame.faults.push(PendingFault {
            label,
            idx: xn,
            ptr,
            base: how.base,
            site: c.site,
            size: c.size,
            component: c.component,
            bytes: false,
        });
    }
    a.vpbroadcastd(zmm_masked(z, kn).z(), dword_ptr(rax + r10 * 4))
        .map_err(e)?;
    // No lane running: `z` zeroed out of line (`emit_cold`), so that the
    // path of running lanes takes no branch.
    a.set_label(&mut done).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    frame.empty.push((empty, done, zn));
    Ok(())
}
/// A uniform load of the constant index `c` (`Access::constant`), `rax`
/// the buffer's address: the element broadcast into the running lanes,
/// zero in the others; no lane running, the masked broadcast reads
/// nothing (as [`suppressed_load`]'s). The address is `4 · c` bytes from
/// the buffer, a displacement when it fits, else through r10.
fn constant_load(a: &mut CodeAssembler, op: &Op, c: i32) -> Result<(), WideError> {
    let e = asm_err;
    let (value, _, _, k, _, _) = elems(op)?;
    let z = zmm_reg(value.0 as u8)?;
    let kn = k.0 as u8;
    let at = match i32::try_from(i64::from(c) * 4) {
        Ok(disp) => dword_ptr(rax + disp),
        Err(_) => {
            a.mov(r10, i64::from(c)).map_err(e)?;
            dword_ptr(rax + r10 * 4)
        }
    };
    a.vpbroadcastd(zmm_masked(z, kn).z(), at).map_err(e)
}

/// `r10d` = lane 0 of register `xn`.
fn lane0_to_r10d(a: &mut CodeAssembler, xn: u8) -> Result<(), WideError> {
    lane0_to(a, r10d, xn)
}

/// `dst` = lane 0 of register `xn` (EVEX: xmm16–31 have no VEX
/// encoding).
fn lane0_to(a: &mut CodeAssembler, dst: AsmRegister32, xn: u8) -> Result<(), WideError> {
    let x = get_xmm(iced_x86::Register::XMM0 + u32::from(xn))
        .ok_or_else(|| WideError::Malformed(format!("xmm{xn}")))?;
    a.set_prefer_vex(false);
    let moved = a.vmovd(dst, x);
    a.set_prefer_vex(true);
    moved.map_err(asm_err)
}

/// A load without a mask test, for a load whose running lanes include
/// lane 0 whenever they hold any (`Access::lane0`: no branch on a
/// condition the uniformity analysis does not find uniform narrowed
/// them) and no bounds test, through the buffer at `rax + disp`: a
/// uniform load (`uniform`) is lane 0's element broadcast, a `__local`
/// load known consecutive from lane 0 (`Known::FromLane0`) the 16
/// elements from lane 0's index, each zero-masked by the running lanes.
/// Lane 0 running, its index is the one to read (the lanes hold it plus
/// `l` for a consecutive load); no lane running, the masked load reads
/// nothing (AVX-512 suppresses the faults of masked-off elements: lane
/// 0's index, whatever it holds then, is never accessed) and gives
/// zeros, as the general paths do with a test and a branch (uniform
/// loads) or a full-chunk test and an out-of-line masked path. The index
/// is within 2^31 elements of the buffer, so the address is canonical.
/// Matmul's `ta[ly][k]` and `tb[k][lx]`: three and four instructions
/// fewer per row and `k`.
fn suppressed_load(
    a: &mut CodeAssembler,
    (z, kn): (AsmRegisterZmm, u8),
    xn: u8,
    disp: i32,
    uniform: bool,
    from_r10: Option<i32>,
) -> Result<(), WideError> {
    let e = asm_err;
    let disp = match from_r10 {
        Some(d) => disp + 4 * d,
        None => {
            lane0_to_r10d(a, xn)?;
            a.movsxd(r10, r10d).map_err(e)?;
            disp
        }
    };
    if uniform {
        a.vpbroadcastd(zmm_masked(z, kn).z(), dword_ptr(rax + r10 * 4 + disp))
    } else {
        a.vmovups(zmm_masked(z, kn).z(), zmmword_ptr(rax + r10 * 4 + disp))
    }
    .map_err(e)
}

/// After the operation that writes `part` (lane 0 in zmm register
/// `zn`) of an [`Op::LoadSum`] through the buffer `base` of slot `ptr`:
/// the address of that buffer's element `part[0]` (sign-extended, as the
/// lanes' indices are), into the frame at `[rsp + at]`. Code outside the
/// loops, where `lower::split_uniform_indices` finds `part` written.
pub(crate) fn emit_sum_part(
    a: &mut CodeAssembler,
    frame: &EntryFrame,
    zn: u8,
    (base, ptr): (Base, i32),
    at: i32,
) -> Result<(), WideError> {
    let e = asm_err;
    lane0_to(a, r11d, zn)?;
    a.movsxd(r11, r11d).map_err(e)?;
    a.shl(r11, 2).map_err(e)?;
    let local = || {
        frame.local_at.ok_or_else(|| {
            WideError::Malformed("a `__local` access outside a barrier entry".into())
        })
    };
    match base {
        Base::Arg => a.add(r11, qword_ptr(rbx + ptr)).map_err(e)?,
        Base::LocalArg => {
            a.add(r11, qword_ptr(rsp + local()?)).map_err(e)?;
            a.add(r11, qword_ptr(rbx + ptr)).map_err(e)?;
        }
        Base::LocalAt { offset, .. } => {
            a.add(r11, qword_ptr(rsp + local()?)).map_err(e)?;
            if offset != 0 {
                a.add(r11, offset as i32).map_err(e)?;
            }
        }
    }
    a.mov(qword_ptr(rsp + at), r11).map_err(e)
}

/// An [`Op::LoadSum`] (`op` in physical registers; `idx` its index's
/// virtual value, `written` the values it writes): lane 0 of the index
/// into r10 unless held there, then lane 0's element at the address
/// `[rsp + at]` (in r11, loaded unless held there) plus four times r10
/// plus the operation's `disp`, broadcast zero-masked by the running
/// lanes, as `suppressed_load` (no lane running: nothing read, zeros;
/// the address is within 2^34 bytes of the buffer, canonical). `rax` is
/// left as it was. An [`Op::FmaSum`] reads the element the same way, as
/// the FMA's broadcast operand merged under the mask (no lane running:
/// nothing read, `d` kept; checked on Zen 5 with an unmapped page, as
/// for the masked loads).
pub(crate) fn emit_sum_load(
    a: &mut CodeAssembler,
    op: &Op,
    frame: &mut EntryFrame,
    (idx, written, at): (u32, &[u32], i32),
) -> Result<(), WideError> {
    let e = asm_err;
    let (x, k, disp) = match *op {
        Op::LoadSum { idx, k, disp, .. } | Op::FmaSum { idx, k, disp, .. } => (idx, k, disp),
        _ => return Err(WideError::Malformed("a load of a sum".into())),
    };
    if !frame.held.has_index(idx) {
        lane0_to_r10d(a, x.0 as u8)?;
        a.movsxd(r10, r10d).map_err(e)?;
    }
    if !frame.held.has_slot(at) {
        a.mov(r11, qword_ptr(rsp + at)).map_err(e)?;
    }
    match *op {
        Op::FmaSum { d, b, .. } => a.vfmadd231ps(
            zmm_masked(zmm_reg(d.0 as u8)?, k.0 as u8),
            zmm_reg(b.0 as u8)?,
            dword_bcst(r11 + r10 * 4 + disp),
        ),
        Op::LoadSum { d, .. } => a.vpbroadcastd(
            zmm_masked(zmm_reg(d.0 as u8)?, k.0 as u8).z(),
            dword_ptr(r11 + r10 * 4 + disp),
        ),
        _ => return Err(WideError::Malformed("a load of a sum".into())),
    }
    .map_err(e)?;
    frame.held.index_only(idx, written);
    frame.held.slot(at);
    Ok(())
}

/// Emits an [`Op::RowLane0`] (`zn` its value's register) inside a kernel
/// entry: lane 0, sign-extended, to the row slot `slot`.
pub(crate) fn emit_row_lane0(
    a: &mut CodeAssembler,
    frame: &EntryFrame,
    zn: u8,
    slot: u8,
) -> Result<(), WideError> {
    let e = asm_err;
    let rows = frame
        .rows_at
        .ok_or_else(|| WideError::Malformed("a row slot outside its entry".into()))?;
    lane0_to(a, r11d, zn)?;
    a.movsxd(r11, r11d).map_err(e)?;
    a.mov(qword_ptr(rsp + (rows + 8 * i32::from(slot))), r11)
        .map_err(e)
}

/// Emits an [`Op::GroupId`] (`zn` its register) inside a kernel entry:
/// the group's coordinate in dimension `dim` (below 2^31: the entry runs
/// only launches whose ids are) in every lane.
pub(crate) fn emit_group_id(
    a: &mut CodeAssembler,
    frame: &EntryFrame,
    zn: u8,
    dim: u8,
) -> Result<(), WideError> {
    let at = frame
        .group_at
        .ok_or_else(|| WideError::Malformed("a group id outside its entry".into()))?;
    a.vpbroadcastd(
        super::emit::zmm_reg(zn)?,
        dword_ptr(rsp + (at + 8 * i32::from(dim))),
    )
    .map_err(asm_err)
}

/// Emits the out-of-line paths `emit_access` left (masked accesses,
/// streaming stores), then the fault blocks (`emit_faults`).
pub(crate) fn emit_cold(
    a: &mut CodeAssembler,
    frame: &mut EntryFrame,
    opts: &EntryOptions,
    exit: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    let t = zmm_reg(SCRATCH_ZMM)?;
    for c in std::mem::take(&mut frame.masked) {
        let mut label = c.label;
        a.set_label(&mut label).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        // rax still holds the buffer's address.
        if let Some(tested) = c.lane0 {
            // No lane running (the last trip of a counted loop, whose
            // lanes all left at its test): nothing to access, and a load
            // gives the zeros of a masked one. Lane 0's index counts only
            // when lane 0 runs.
            a.kmovw(r11d, k_reg(c.kn)?).map_err(e)?;
            let mut some = a.create_label();
            a.test(r11d, r11d).map_err(e)?;
            a.jnz(some).map_err(e)?;
            if c.load {
                let z = zmm_reg(c.z)?;
                a.vpxord(z, z, z).map_err(e)?;
            }
            a.jmp(c.done).map_err(e)?;
            a.set_label(&mut some).map_err(e)?;
            a.zero_bytes().map_err(e)?;
            a.test(r11b, 1).map_err(e)?;
            a.jz(tested).map_err(e)?;
        }
        if let Some(check) = c.check {
            // The lanes' indices: lane 0's (the base plus a row offset's
            // displacement) plus the lane.
            if c.disp == 0 {
                a.vpbroadcastd(t, get_r32(c.base)?).map_err(e)?;
            } else {
                a.lea(r11, qword_ptr(c.base + c.disp / 4)).map_err(e)?;
                a.vpbroadcastd(t, r11d).map_err(e)?;
            }
            a.mov(r11, IOTA.as_ptr() as u64).map_err(e)?;
            a.vpaddd(t, t, zmmword_ptr(r11)).map_err(e)?;
            vector_check(a, frame, check, SCRATCH_ZMM, c.kn, (c.ptr, c.buffer))?;
        }
        let (z, at) = (zmm_reg(c.z)?, zmmword_ptr(rax + c.base * 4 + c.disp));
        if c.load {
            a.vmovups(zmm_masked(z, c.kn).z(), at).map_err(e)?;
        } else {
            a.vmovups(mem_masked(at, c.kn), z).map_err(e)?;
        }
        a.jmp(c.done).map_err(e)?;
    }
    for (mut label, done, z) in std::mem::take(&mut frame.empty) {
        a.set_label(&mut label).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        let z = zmm_reg(z)?;
        a.vpxord(z, z, z).map_err(e)?;
        a.jmp(done).map_err(e)?;
    }
    for c in std::mem::take(&mut frame.tested) {
        let mut label = c.label;
        a.set_label(&mut label).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        // rax still holds the buffer's address.
        if c.keeps_r10 {
            let mut back = a.create_label();
            a.mov(qword_ptr(rsp + frame.scratch_at), r10).map_err(e)?;
            tested_access(a, frame, &c.op, back)?;
            a.set_label(&mut back).map_err(e)?;
            a.zero_bytes().map_err(e)?;
            a.mov(r10, qword_ptr(rsp + frame.scratch_at)).map_err(e)?;
            a.jmp(c.done).map_err(e)?;
        } else {
            tested_access(a, frame, &c.op, c.done)?;
        }
    }
    for c in std::mem::take(&mut frame.streams) {
        let mut label = c.label;
        a.set_label(&mut label).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        let mut plain = a.create_label();
        let z = zmm_reg(c.z)?;
        // Large launches, line-aligned chunks: a whole line written
        // without reading it first.
        a.lea(r11, qword_ptr(rax + c.base * 4 + c.disp))
            .map_err(e)?;
        a.test(r11b, 63).map_err(e)?;
        a.jnz(plain).map_err(e)?;
        a.vmovntps(zmmword_ptr(r11), z).map_err(e)?;
        a.jmp(c.done).map_err(e)?;
        a.set_label(&mut plain).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.vmovups(zmmword_ptr(r11), z).map_err(e)?;
        a.jmp(c.done).map_err(e)?;
    }
    emit_faults(a, frame, opts, exit)
}

/// The 32-bit form of r15 or r10.
fn get_r32(r: AsmRegister64) -> Result<AsmRegister32, WideError> {
    if r == r15 {
        Ok(r15d)
    } else if r == r10 {
        Ok(r10d)
    } else {
        Err(WideError::Malformed(format!("{r:?} as an index base")))
    }
}

/// Emits the cold blocks of the fault branches `emit_access` made: the
/// first running lane outside the bounds (`k0` at the branch), its address
/// and work-item, reported through `vecl_checked_fault`; then `eax` =
/// `KernelStatus::OutOfBounds` and a jump to `exit`; `opts`: the checked
/// tail's offset, the lanes' dimension. Expects the entry's registers (r15
/// the chunk's first id of dimension 0, rdi and r9 the row's ids of
/// dimensions 1 and 2) and `rsp` 16-aligned.
fn emit_faults(
    a: &mut CodeAssembler,
    frame: &mut EntryFrame,
    opts: &EntryOptions,
    exit: CodeLabel,
) -> Result<(), WideError> {
    let e = asm_err;
    if frame.faults.is_empty() {
        return Ok(());
    }
    let tail = opts
        .checked_tail
        .ok_or_else(|| WideError::Malformed("a bounds test without a tail".into()))?;
    let mut report = a.create_label();
    let scratch = frame.scratch_at;
    for f in std::mem::take(&mut frame.faults) {
        let mut label = f.label;
        a.set_label(&mut label).map_err(e)?;
        a.zero_bytes().map_err(e)?;
        a.vmovdqu32(zmmword_ptr(rsp + scratch), zmm_reg(f.idx)?)
            .map_err(e)?;
        a.kmovw(r10d, k0).map_err(e)?;
        a.bsf(r10d, r10d).map_err(e)?;
        a.movsxd(r11, dword_ptr(rsp + r10 * 4 + scratch))
            .map_err(e)?;
        load_base(a, frame, f.base, f.ptr)?;
        if f.bytes {
            a.lea(rsi, qword_ptr(rax + r11)).map_err(e)?;
        } else {
            a.lea(rsi, qword_ptr(rax + r11 * 4 - 4 * f.component as i32))
                .map_err(e)?;
        }
        a.mov(edx, f.size).map_err(e)?;
        a.mov(r11, f.site).map_err(e)?;
        a.jmp(report).map_err(e)?;
    }
    // rsi the address, r10 the lane, r11 the site.
    a.set_label(&mut report).map_err(e)?;
    a.zero_bytes().map_err(e)?;
    a.mov(r8, rdi).map_err(e)?;
    a.lea(rcx, qword_ptr(r15 + r10)).map_err(e)?;
    // A copy with lanes along another dimension: the launch's own ids.
    match opts.lanes_along {
        1 => a.xchg(rcx, r8).map_err(e)?,
        2 => a.xchg(rcx, r9).map_err(e)?,
        _ => {}
    }
    a.mov(rdi, qword_ptr(rbx + (tail as i32 + co::FAULT_RECORD)))
        .map_err(e)?;
    a.vzeroupper().map_err(e)?;
    // The seventh argument on the stack, which stays 16-aligned.
    a.sub(rsp, 16).map_err(e)?;
    a.mov(qword_ptr(rsp), r11).map_err(e)?;
    a.mov(rax, crate::abi::vecl_checked_fault as *const () as u64)
        .map_err(e)?;
    a.call(rax).map_err(e)?;
    a.add(rsp, 16).map_err(e)?;
    a.mov(eax, crate::abi::KernelStatus::OutOfBounds as u32)
        .map_err(e)?;
    a.jmp(exit).map_err(e)?;
    Ok(())
}

/// The kind of an access, for its site.
pub fn kind(load: bool) -> AccessKind {
    if load {
        AccessKind::Load
    } else {
        AccessKind::Store
    }
}

#[cfg(test)]
mod tests {
    use super::{
        index_bounds, launch_flags, prefetch, Access, EntryFrame, StepAhead, DISTANCE,
        PREFETCH_MIN_ITEMS,
    };
    use crate::abi::launch_offsets as lo;
    use iced_x86::code_asm::*;
    use iced_x86::{Instruction, Mnemonic, Register};

    /// Runs [`launch_flags`] on a launch of `global` and `local` sizes
    /// (streaming from `stream_min` items) and returns its two flag bytes:
    /// (large, linear).
    fn flags(global: [u64; 3], local: [u64; 3], stream_min: u64) -> (u8, u8) {
        let mut a = CodeAssembler::new(64).unwrap();
        // The entry's frame: r12 the launch, the flags at [rsp + 8].
        a.push(r12).unwrap();
        a.mov(r12, rdi).unwrap();
        a.sub(rsp, 16).unwrap();
        launch_flags(&mut a, &EntryFrame::new(8, 0, 0), stream_min).unwrap();
        a.movzx(eax, word_ptr(rsp + 8)).unwrap();
        a.add(rsp, 16).unwrap();
        a.pop(r12).unwrap();
        a.ret().unwrap();
        let (memory, at, _) = crate::wide::emit::assemble_and_map(&mut a, None).unwrap();
        let mut launch = [0u64; 16];
        for d in 0..3 {
            launch[lo::GLOBAL_SIZE as usize / 8 + d] = global[d];
            launch[lo::LOCAL_SIZE as usize / 8 + d] = local[d];
        }
        // SAFETY: the code above is a complete function of this
        // signature; it reads the launch's sizes (inside `launch`) and
        // writes only its own frame.
        let bytes = unsafe {
            let f: extern "C" fn(*const u64) -> u32 = std::mem::transmute(memory.as_ptr().add(at));
            f(launch.as_ptr())
        };
        (bytes as u8, (bytes >> 8) as u8)
    }

    #[test]
    fn the_fixed_prefetch_runs_in_launches_large_enough_and_walking_in_order() {
        let big = PREFETCH_MIN_ITEMS;
        // Rows of one group high, or long rows: in order, once large.
        assert_eq!(flags([big, 1, 1], [256, 1, 1], 1 << 22).1, 1);
        assert_eq!(flags([512, 512, 1], [256, 1, 1], 1 << 22).1, 1);
        assert_eq!(flags([2048, 2048, 1], [1024, 4, 1], 1 << 22).1, 1);
        assert_eq!(flags([64, 64, big / 4096], [64, 1, 1], 1 << 22).1, 1);
        // One work-item short, or a 256² step: the caches hold it.
        assert_eq!(flags([big - 1, 1, 1], [256, 1, 1], 1 << 22).1, 0);
        assert_eq!(flags([256, 256, 1], [256, 1, 1], 1 << 22).1, 0);
        // Tiles: the next chunk is another row's, whatever the size.
        assert_eq!(flags([2048, 2048, 1], [16, 16, 1], 1 << 22).1, 0);
        assert_eq!(flags([256, 256, 1], [16, 16, 1], 1 << 22).1, 0);
        // The streaming flag is its own: at `stream_min` items and above.
        assert_eq!(flags([big, 1, 1], [256, 1, 1], big), (1, 1));
        assert_eq!(flags([big - 1, 1, 1], [256, 1, 1], big), (0, 0));
        assert_eq!(flags([2048, 2048, 1], [16, 16, 1], big), (1, 0));
        assert_eq!(flags([64, 1, 1], [64, 1, 1], 0), (1, 0));
    }

    fn prefetched(ahead: Option<StepAhead>) -> Vec<Instruction> {
        prefetched_if(ahead, None)
    }

    fn prefetched_if(ahead: Option<StepAhead>, linear: Option<i32>) -> Vec<Instruction> {
        let mut a = CodeAssembler::new(64).unwrap();
        let how = Access {
            prefetch: true,
            ahead,
            ..Access::default()
        };
        prefetch(&mut a, &how, r10, 8, linear).unwrap();
        a.instructions().to_vec()
    }

    #[test]
    fn the_fixed_prefetch_waits_for_the_launch_flag_and_the_step_ahead_does_not() {
        let m = |ins: &[Instruction]| {
            ins.iter()
                .map(|i| i.mnemonic())
                .filter(|&m| m != Mnemonic::Zero_bytes)
                .collect::<Vec<_>>()
        };
        // The flag byte tested, the prefetch skipped when it is 0.
        let fixed = prefetched_if(None, Some(0x41));
        assert_eq!(
            m(&fixed),
            [Mnemonic::Cmp, Mnemonic::Je, Mnemonic::Prefetcht0]
        );
        assert_eq!(fixed[0].memory_base(), Register::RSP);
        assert_eq!(fixed[0].memory_displacement64(), 0x41);
        // A loop's step ahead reads the next step's data whatever the
        // group's shape.
        let step = prefetched_if(
            Some(StepAhead {
                bytes: 8192,
                param: None,
            }),
            Some(0x41),
        );
        assert_eq!(m(&step), [Mnemonic::Prefetcht0]);
    }

    #[test]
    fn a_prefetch_points_a_fixed_distance_or_a_step_ahead() {
        let m = |ins: &[Instruction]| ins.iter().map(|i| i.mnemonic()).collect::<Vec<_>>();
        // The same stream, further on.
        let fixed = prefetched(None);
        assert_eq!(m(&fixed), [Mnemonic::Prefetcht0]);
        assert_eq!(fixed[0].memory_displacement64(), (DISTANCE + 8) as u64);
        assert_eq!(fixed[0].memory_index(), Register::R10);
        // A constant step: its bytes as the displacement.
        let konst = prefetched(Some(StepAhead {
            bytes: 8192,
            param: None,
        }));
        assert_eq!(m(&konst), [Mnemonic::Prefetcht0]);
        assert_eq!(konst[0].memory_displacement64(), 8200);
        // A parameter times a constant: read from the arguments, sign- or
        // zero-extended as the parameter's type says, only r11 written.
        for (signed, load) in [(true, Mnemonic::Movsxd), (false, Mnemonic::Mov)] {
            let step = prefetched(Some(StepAhead {
                bytes: 64,
                param: Some((24, signed)),
            }));
            assert_eq!(
                m(&step),
                [load, Mnemonic::Imul, Mnemonic::Lea, Mnemonic::Prefetcht0]
            );
            assert_eq!(step[0].memory_base(), Register::RBX);
            assert_eq!(step[0].memory_displacement64(), 24);
            assert_eq!(step[1].immediate(2), 64);
            let p = &step[3];
            assert_eq!(
                (p.memory_base(), p.memory_index()),
                (Register::RAX, Register::R11)
            );
            assert_eq!(p.memory_displacement64(), 8);
            for i in &step[..3] {
                assert!(matches!(i.op0_register(), Register::R11 | Register::R11D));
            }
        }
    }

    fn unpack(x: u64) -> (i32, i32) {
        (x as u32 as i32, (x >> 32) as u32 as i32)
    }

    #[test]
    fn index_bounds_cover_the_whole_elements_of_the_buffer() {
        // A buffer of 10 floats at its pointer: indices 0..=9.
        assert_eq!(unpack(index_bounds(0x1000, 0x1000, 0x1028)), (0, 9));
        // A pointer 8 bytes into it: indices -2..=7.
        assert_eq!(unpack(index_bounds(0x1008, 0x1000, 0x1028)), (-2, 7));
        // A ragged end: 11 bytes hold 2 whole elements.
        assert_eq!(unpack(index_bounds(0x1000, 0x1000, 0x100b)), (0, 1));
        // Unaligned start relative to the pointer: only whole elements.
        assert_eq!(unpack(index_bounds(0x1001, 0x1000, 0x1010)), (0, 2));
        // Empty, null (u64::MAX twice) and too short: no index.
        for (b, s, t) in [
            (0x1000, 0x1000, 0x1000),
            (0, u64::MAX, u64::MAX),
            (0x10, 0x10, 0x13),
        ] {
            let (lo, hi) = unpack(index_bounds(b, s, t));
            assert!(lo > hi, "{b:#x} {s:#x} {t:#x}");
        }
        // Far away: clamped to the lanes' range.
        let (lo, hi) = unpack(index_bounds(0, 0x1000, 1 << 40));
        assert_eq!((lo, hi), (0x400, i32::MAX));
        let (lo, hi) = unpack(index_bounds(1 << 40, 0, 1 << 41));
        assert_eq!((lo, hi), (i32::MIN, i32::MAX));
        let (lo, hi) = unpack(index_bounds(1 << 40, 0, 0x1000));
        assert!(lo > hi);
    }
}

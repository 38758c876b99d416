//! The kernel entry: loops over work-groups, barrier regions and chunks.
//!
//! ```text
//! for g in first_group..end_group:          // linear group index
//!     for region in regions:                 // cut at top-level barriers
//!         for z, y in the group; for x0 in (0..size0).step_by(W):
//!             mask = lanes x0..min(x0+W, size0)   (tail chunks are partial)
//!             reload the chunk's saved state; run the region; save state
//! ```
//!
//! Chunks run along dimension 0 only, so consecutive work-items are
//! consecutive lanes. A barrier costs nothing but the switch to the next
//! region: values a later region needs are stored per chunk in the context
//! area (`context + chunk_index * chunk_bytes`), as are the variables, the
//! lanes still alive and, in kernels with barriers, private memory.

use super::group_level;
use super::lanes::{carrier, elem_of, natural, Lanes, Val};
use super::{Env, FunctionCx, LResult, Stats, VarSlot};
use crate::layout::{private_layout, GlobalPlace};
use cranelift_codegen::ir::{
    condcodes::IntCC, types, ConstantData, Function as ClifFunction, InstBuilder, MemFlagsData,
    StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use cranelift_jit::JITModule;
use cranelift_module::Module as _;
use std::collections::{BTreeSet, HashMap, HashSet};
use vecl_ir::analysis::uniformity::Uniformity;
use vecl_ir::{Block, Function, Inst, Module, Stmt, ValueId, VarId};

/// What the lowering tells the caller.
pub(crate) struct Lowered {
    pub stats: Stats,
    pub regions: usize,
    /// Context bytes per chunk (0 without barriers).
    pub chunk_bytes: usize,
    pub private_in_context: bool,
    /// Context bytes a worker passes once, whatever the group size: a
    /// kernel without barriers whose private memory is too large for the
    /// stack keeps it there (see [`STACK_PRIVATE_MAX`]).
    pub fixed_context_bytes: usize,
    /// Private memory per work-item (the chunk's private layout over W).
    pub private_per_item: u32,
    /// Group-level work, for the report: variables kept once per group,
    /// regions that run no chunk loop, chunk loops limited to the ids
    /// their final `if` accepts (`None` without barriers).
    pub group_level: Option<(usize, usize, usize)>,
    /// Each cut barrier's number and source position (region graphs only),
    /// for the report of a group that did not agree on one.
    pub barrier_sites: Vec<(u32, vecl_ir::Loc)>,
}

/// The most private memory a chunk keeps on the stack (bytes); more lives
/// in the context area.
pub(crate) const STACK_PRIVATE_MAX: u32 = 64 * 1024;

#[derive(Clone)]
pub(crate) struct KernelInput<'a> {
    pub module: &'a Module,
    pub func: &'a Function,
    pub uni: &'a Uniformity,
    pub w: u32,
    pub places: Vec<Option<GlobalPlace>>,
    pub data_base: u64,
    pub arg_slots: Vec<crate::abi::ArgSlot>,
    pub has_fma: bool,
    /// The successor variable when the body is a region graph
    /// (`crate::regions`); `None` for a plain sequence of regions.
    pub next_var: Option<VarId>,
    /// Checked mode (`super::bounds`).
    pub checks: Option<super::bounds::Checks>,
    /// Checked mode's `__local` race, initialisation and atomic checks
    /// (`super::races`).
    pub local_checks: bool,
    /// Whether full chunks may get a copy of their own lowered with the
    /// mask known full, and launches of whole chunks a group loop of their
    /// own (the optimised tier; the quick tier, compiled for its compile
    /// time, keeps one copy and one loop).
    pub full_copy: bool,
    /// Launches with at least this many work-items stream the stores
    /// `lower::stream` allows.
    pub stream_min_items: u64,
    /// Whether streaming loads prefetch ahead (`super::prefetch`).
    pub prefetch: bool,
    /// 0, or the dimension of the launch that this copy's dimension 0 is
    /// (`crate::lane_axis`): checked mode reports work-items by the
    /// launch's own dimensions.
    pub lanes_along: usize,
}

fn mem() -> MemFlagsData {
    MemFlagsData::new()
        .with_endianness(cranelift_codegen::ir::Endianness::Little)
        .with_notrap()
}

/// Values used and variables read anywhere in a list of statements.
pub(super) fn collect_uses(
    func: &Function,
    stmts: &[Stmt],
    vals: &mut BTreeSet<ValueId>,
    vars: &mut BTreeSet<VarId>,
) {
    for s in stmts {
        match s {
            Stmt::Eval(v) => {
                vals.extend(func.inst(*v).inst.operands());
                if let Inst::ReadVar(x) = func.inst(*v).inst {
                    vars.insert(x);
                }
            }
            Stmt::WriteVar(_, v) => {
                vals.insert(*v);
            }
            Stmt::Store { ptr, value, .. } => vals.extend([*ptr, *value]),
            Stmt::Copy { dst, src, .. } => vals.extend([*dst, *src]),
            Stmt::If { cond, then_, else_ } => {
                vals.insert(*cond);
                collect_uses(func, &then_.0, vals, vars);
                collect_uses(func, &else_.0, vals, vars);
            }
            Stmt::Loop { body, continuing } => {
                collect_uses(func, &body.0, vals, vars);
                collect_uses(func, &continuing.0, vals, vars);
            }
            Stmt::Switch { selector, cases } => {
                vals.insert(*selector);
                for c in cases {
                    collect_uses(func, &c.body.0, vals, vars);
                }
            }
            Stmt::Return(Some(v)) => {
                vals.insert(*v);
            }
            _ => {}
        }
    }
}

/// Values defined anywhere in a list of statements, in order.
pub(super) fn collect_defs(stmts: &[Stmt], out: &mut Vec<ValueId>) {
    for s in stmts {
        match s {
            Stmt::Eval(v) => out.push(*v),
            Stmt::If { then_, else_, .. } => {
                collect_defs(&then_.0, out);
                collect_defs(&else_.0, out);
            }
            Stmt::Loop { body, continuing } => {
                collect_defs(&body.0, out);
                collect_defs(&continuing.0, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    collect_defs(&c.body.0, out);
                }
            }
            _ => {}
        }
    }
}

/// Variables written anywhere in a list of statements.
pub(super) fn collect_writes(stmts: &[Stmt], vars: &mut BTreeSet<VarId>) {
    for s in stmts {
        match s {
            Stmt::WriteVar(x, _) => {
                vars.insert(*x);
            }
            Stmt::If { then_, else_, .. } => {
                collect_writes(&then_.0, vars);
                collect_writes(&else_.0, vars);
            }
            Stmt::Loop { body, continuing } => {
                collect_writes(&body.0, vars);
                collect_writes(&continuing.0, vars);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    collect_writes(&c.body.0, vars);
                }
            }
            _ => {}
        }
    }
}

/// How many times each variable is written in a list of statements.
pub(super) fn count_writes(stmts: &[Stmt], counts: &mut HashMap<VarId, usize>) {
    for s in stmts {
        match s {
            Stmt::WriteVar(x, _) => *counts.entry(*x).or_default() += 1,
            Stmt::If { then_, else_, .. } => {
                count_writes(&then_.0, counts);
                count_writes(&else_.0, counts);
            }
            Stmt::Loop { body, continuing } => {
                count_writes(&body.0, counts);
                count_writes(&continuing.0, counts);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    count_writes(&c.body.0, counts);
                }
            }
            _ => {}
        }
    }
}

/// Kernels without barriers of at most this many IR instructions get a
/// second copy of their body for full chunks (see `lower_kernel`); larger
/// ones keep one copy, to bound compile time.
const SPECIALISE_LIMIT: usize = 400;

/// CLIF instructions of the general copy of a kernel's body above which no
/// full-chunk copy is made. The copy roughly doubles compile time (register
/// allocation dominates it); it pays in short streaming kernels, where the
/// run-time test and fallback of each consecutive access are a large part
/// of the loop (the bench's vadd, saxpy, conv5x5 and mandelbrot are
/// 203–275 instructions), and little in longer ones.
const FULL_COPY_CLIF_LIMIT: usize = 300;

/// The largest general copy of a region's chunk statements (Cranelift
/// instructions) that also gets a copy for the chunks inside the ids its
/// final `if (lid OP bound)` accepts (code size: the region's statements
/// are lowered twice).
const INSIDE_COPY_CLIF_LIMIT: usize = 600;

/// A mask with every lane set.
fn all_ones_mask(cx: &mut FunctionCx<'_, '_>) -> Vec<Value> {
    let m = cx.b.ins().iconst(types::I32, -1);
    let v = cx.b.ins().splat(types::I32X4, m);
    vec![v; (cx.kernel.w() / 4) as usize]
}

/// Largest number of instructions recomputed for one value that a later
/// region needs instead of saving it.
const REMAT_LIMIT: u32 = 12;

/// How many instructions recomputing `v` from scratch takes, when it is a
/// cheap pure computation (parameters, constants, work-item ids, address and
/// integer arithmetic); `None` otherwise.
fn remat_cost(
    func: &Function,
    v: ValueId,
    memo: &mut HashMap<ValueId, Option<u32>>,
) -> Option<u32> {
    use vecl_ir::BinaryOp as B;
    if let Some(c) = memo.get(&v) {
        return *c;
    }
    memo.insert(v, None);
    let ops: Option<Vec<ValueId>> = match &func.inst(v).inst {
        Inst::Param(_) | Inst::Const(_) | Inst::GlobalAddr(_) => Some(Vec::new()),
        Inst::WorkItem(_, d) => Some(d.iter().copied().collect()),
        Inst::Binary(B::Add | B::Sub | B::Mul | B::And | B::Or | B::Xor | B::Shl, a, b)
            if !func.ty(v).scalar().is_some_and(|s| s.is_float()) =>
        {
            Some(vec![*a, *b])
        }
        Inst::Convert { value, .. }
            if !func.ty(v).scalar().is_some_and(|s| s.is_float())
                && !func.ty(*value).scalar().is_some_and(|s| s.is_float()) =>
        {
            Some(vec![*value])
        }
        Inst::Index(a, b) | Inst::Elem(a, b) => Some(vec![*a, *b]),
        Inst::Field(a, _) | Inst::PtrCast(a) | Inst::PtrToInt(a) | Inst::IntToPtr(a) => {
            Some(vec![*a])
        }
        _ => None,
    };
    let mut cost = 1u32;
    for o in ops? {
        cost += remat_cost(func, o, memo)?;
    }
    let c = (cost <= REMAT_LIMIT).then_some(cost);
    memo.insert(v, c);
    c
}

/// `v` and the values it is computed from, operands first.
fn remat_order(func: &Function, v: ValueId, out: &mut Vec<ValueId>, seen: &mut BTreeSet<ValueId>) {
    if !seen.insert(v) {
        return;
    }
    for o in func.inst(v).inst.operands() {
        remat_order(func, o, out, seen);
    }
    out.push(v);
}

/// Whether statements hold a load, store or atomic through an address that
/// differs between work-items: consecutive ones are whole vectors in a full
/// chunk, the others skip the lane's mask test.
fn varying_access(func: &Function, uni: &Uniformity, stmts: &[Stmt]) -> bool {
    let varying = |p: ValueId| !uni.is_uniform(p);
    stmts.iter().any(|s| match s {
        Stmt::Eval(v) => match &func.inst(*v).inst {
            Inst::Load(p) | Inst::Atomic { ptr: p, .. } => varying(*p),
            _ => false,
        },
        Stmt::Store { ptr, .. } => varying(*ptr),
        Stmt::If { then_, else_, .. } => {
            varying_access(func, uni, &then_.0) || varying_access(func, uni, &else_.0)
        }
        Stmt::Loop { body, continuing } => {
            varying_access(func, uni, &body.0) || varying_access(func, uni, &continuing.0)
        }
        Stmt::Switch { cases, .. } => cases.iter().any(|c| varying_access(func, uni, &c.body.0)),
        _ => false,
    })
}

/// Bytes a saved value or variable takes per chunk (each component as W
/// 8-byte lanes, enough for any representation).
fn save_size(ty: &vecl_ir::Type, w: u32) -> u32 {
    ty.lanes() * w * 8
}

/// The private layout of a chunk of `w` work-items, or the build error
/// for too much private memory.
fn private_layout_or_refusal(
    module: &Module,
    func: &Function,
    w: u32,
) -> Result<crate::layout::PrivateLayout, crate::JitError> {
    private_layout(module, func, w).map_err(|bytes| crate::JitError::Unsupported {
        kernel: func.name.clone(),
        what: format!(
            "{bytes} bytes of private memory for {w} work-items (at most {} for them together)",
            crate::layout::MAX_PRIVATE_CHUNK
        ),
    })
}

/// What [`lower_kernel`] tells of a kernel without barriers (one region,
/// no region graph) without lowering it: its private memory per
/// work-item, on the stack or, past [`STACK_PRIVATE_MAX`], in the context
/// area, and the same refusal of too much of it. The counts of the
/// report (`stats`) are the lowering's own and are left empty.
pub(crate) fn facts_unlowered(
    module: &Module,
    func: &Function,
    w: u32,
) -> Result<Lowered, crate::JitError> {
    let private = private_layout_or_refusal(module, func, w)?;
    let heap_private = private.size > STACK_PRIVATE_MAX;
    Ok(Lowered {
        stats: Stats::default(),
        regions: 1,
        chunk_bytes: 0,
        private_in_context: heap_private,
        fixed_context_bytes: match heap_private {
            true => (private.size + private.align) as usize,
            false => 0,
        },
        private_per_item: private.size.div_ceil(w.max(1)),
        group_level: None,
        barrier_sites: Vec::new(),
    })
}

pub(crate) fn lower_kernel(
    jit: &mut JITModule,
    clif: &mut ClifFunction,
    fctx: &mut FunctionBuilderContext,
    input: KernelInput<'_>,
) -> LResult<Lowered> {
    let KernelInput {
        module,
        func,
        uni,
        w,
        places,
        data_base,
        arg_slots,
        has_fma,
        next_var,
        checks,
        local_checks,
        full_copy,
        stream_min_items,
        prefetch,
        lanes_along,
    } = input;
    let regions: Vec<&[Stmt]> = func
        .body
        .0
        .split(|s| matches!(s, Stmt::Barrier(..)))
        .collect();
    let barrier_mode = regions.len() > 1;
    let returns = super::control::has_return(&func.body);
    let private = private_layout_or_refusal(module, func, w)?;

    // Context layout per chunk: alive mask, saved values, variables, private memory.
    let mut ctx_off = 0u32;
    let alive_off = ctx_off;
    if barrier_mode && returns {
        ctx_off += w * 4;
    }
    let mut saved_values: HashMap<ValueId, u32> = HashMap::new();
    let mut region_uses: Vec<BTreeSet<ValueId>> = Vec::new();
    let mut region_touch: Vec<BTreeSet<VarId>> = Vec::new();
    let mut region_writes: Vec<BTreeSet<VarId>> = Vec::new();
    let mut later_vars: BTreeSet<VarId> = BTreeSet::new();
    for (r, stmts) in regions.iter().enumerate() {
        let mut vals = BTreeSet::new();
        let mut vars = BTreeSet::new();
        collect_uses(func, stmts, &mut vals, &mut vars);
        let mut writes = BTreeSet::new();
        collect_writes(stmts, &mut writes);
        if r > 0 {
            later_vars.extend(vars.iter().copied());
        }
        vars.extend(writes.iter().copied());
        region_uses.push(vals);
        region_touch.push(vars);
        region_writes.push(writes);
    }
    // The successor variable is set afresh before each chunk runs a region.
    if let Some(nv) = next_var {
        later_vars.remove(&nv);
    }
    // Values a later region needs: cheap pure ones are recomputed there,
    // the others saved when computed.
    let mut remat: BTreeSet<ValueId> = BTreeSet::new();
    if barrier_mode {
        let mut memo = HashMap::new();
        for (r, stmts) in regions.iter().enumerate() {
            let mut defined = Vec::new();
            collect_defs(stmts, &mut defined);
            for v in &defined {
                let used_later = region_uses[r + 1..].iter().any(|u| u.contains(v));
                if !used_later || func.ty(*v).is_void() {
                    continue;
                }
                if remat_cost(func, *v, &mut memo).is_some() {
                    remat.insert(*v);
                } else if !saved_values.contains_key(v) {
                    saved_values.insert(*v, ctx_off);
                    ctx_off += save_size(func.ty(*v), w);
                }
            }
        }
    }
    // Group-level statements run once per group and region (see
    // `group_level`); not in kernels with `return`.
    let group = if barrier_mode && !returns {
        let saved: HashSet<ValueId> = saved_values.keys().copied().collect();
        group_level::analyze(func, uni, &regions, &saved)
    } else {
        group_level::GroupLevel {
            vars: HashSet::new(),
            splits: regions.iter().map(|r| group_level::plain(r)).collect(),
        }
    };
    let next_group = next_var.is_some_and(|nv| group.vars.contains(&nv));
    // Variables live across a boundary: each region reloads those it reads
    // or writes (a conditional or masked write keeps the old value) and
    // saves those it writes; the others keep their saved copy.
    // A variable assigned once, at the top level of the entry region (which
    // runs once), from a cheap pure value (a parameter, a work-item id) is
    // recomputed by the regions that read it instead of saved.
    let mut remat_vars: Vec<(VarId, ValueId)> = Vec::new();
    if barrier_mode {
        let mut counts = HashMap::new();
        count_writes(&func.body.0, &mut counts);
        let mut memo = HashMap::new();
        for s in regions[0] {
            if let Stmt::WriteVar(x, v) = s {
                if later_vars.contains(x)
                    && counts.get(x) == Some(&1)
                    && remat_cost(func, *v, &mut memo).is_some()
                {
                    remat_vars.push((*x, *v));
                }
            }
        }
        remat_vars.retain(|(x, _)| !group.vars.contains(x));
        for (x, _) in &remat_vars {
            later_vars.remove(x);
        }
    }
    // A group-level variable is one Cranelift variable for the group.
    later_vars.retain(|x| !group.vars.contains(x));
    // A variable live only inside one region (a temporary written before
    // it is read there, such as the result of `c ? a : b`) is not saved.
    if barrier_mode {
        let total = super::fresh_writes::access_counts(func, &func.body.0);
        for stmts in &regions {
            for x in super::fresh_writes::region_local_vars(func, stmts, &total) {
                later_vars.remove(&x);
            }
        }
    }
    let mut var_offsets: Vec<(VarId, u32)> = Vec::new();
    if barrier_mode {
        for v in &later_vars {
            var_offsets.push((*v, ctx_off));
            ctx_off += save_size(&func.vars[v.index()].ty, w);
        }
    }
    // The context area is MAX_ALIGN-aligned: chunk areas and their private
    // memory start at multiples of the private layout's alignment.
    let ctx_align = private.align.max(64);
    let private_off = ctx_off.div_ceil(ctx_align) * ctx_align;
    if barrier_mode {
        ctx_off = private_off + private.size;
    }
    let chunk_bytes = if barrier_mode {
        ctx_off.div_ceil(ctx_align) * ctx_align
    } else {
        0
    };

    let mut b = FunctionBuilder::new(clif, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (args, launch, first, end, local_mem, context) = (p[0], p[1], p[2], p[3], p[4], p[5]);

    let dummy_slot = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        super::lane_loop::scratch_size(w),
        4,
    ));
    let dummy = b.ins().stack_addr(types::I64, dummy_slot, 0);
    // Large private arrays leave the stack: worker threads have stacks of
    // a few MiB, and a chunk of 16 work-items with a 256 KiB array each
    // would overflow them. The context area is heap memory the runtime
    // sizes per launch, so the kernel runs (or is refused with a message
    // when the memory cannot be had) instead of crashing the process.
    let heap_private = !barrier_mode && private.size > STACK_PRIVATE_MAX;
    let fixed_context_bytes = if heap_private {
        // The context is 64-aligned; room to round up to the layout's.
        private.size + private.align
    } else {
        0
    };
    let chunk_private = if heap_private {
        let up = b.ins().iadd_imm_s(context, i64::from(private.align - 1));
        Some(b.ins().band_imm_s(up, -i64::from(private.align)))
    } else if !barrier_mode && private.size > 0 {
        // Stack slots are 16-byte aligned at most (the stack pointer's
        // alignment): over-allocate and round the base up.
        let s = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            private.size + private.align - 16,
            4,
        ));
        let at = b.ins().stack_addr(types::I64, s, 0);
        Some(if private.align > 16 {
            let up = b.ins().iadd_imm_s(at, i64::from(private.align - 1));
            b.ins().band_imm_s(up, -i64::from(private.align))
        } else {
            at
        })
    } else {
        None
    };
    let iota32: Vec<Value> = (0..w / 4)
        .map(|i| {
            let bytes: Vec<u8> = (0..4u32).flat_map(|l| (4 * i + l).to_le_bytes()).collect();
            let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
            b.ins().vconst(types::I32X4, c)
        })
        .collect();
    let iota64: Vec<Value> = (0..w / 2)
        .map(|i| {
            let bytes: Vec<u8> = (0..2u64)
                .flat_map(|l| (2 * u64::from(i) + l).to_le_bytes())
                .collect();
            let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
            b.ins().vconst(types::I64X2, c)
        })
        .collect();
    let chunk_end_placeholder = b.create_block();

    let x86 = jit.isa().triple().architecture == target_lexicon::Architecture::X86_64;
    // Where each variable's pointers come from, for the streaming stores
    // and the prefetched loads (both x86-64 only).
    let var_roots = x86.then(|| super::stream::var_roots(func));
    let races = if local_checks {
        super::races::RaceCx::new(
            module,
            func,
            &arg_slots,
            &places,
            &regions,
            &group.vars,
            &group.splits,
        )
    } else {
        None
    };
    let kernel = super::KernelEnv::new(
        module,
        func,
        uni,
        (w, lanes_along),
        super::kernel_env::MemoryLayout {
            places,
            data_base,
            private: private.clone(),
            arg_slots,
        },
        super::kernel_env::LowerOptions {
            has_fma,
            stream_min_items,
            streaming: var_roots
                .clone()
                .map(|roots| super::stream::Streaming::new(func, roots)),
            prefetch: match (&var_roots, prefetch) {
                (Some(roots), true) => {
                    super::prefetch::prefetched_loads(module, func, roots, false)
                }
                _ => Default::default(),
            },
            checks,
        },
    );
    let mut cx = FunctionCx {
        b,
        jit,
        kernel,
        vals: super::ValueMaps::new(
            func.insts.len(),
            func.vars.len(),
            saved_values.clone(),
            super::fresh_writes::unblended_writes(func),
        ),
        mask: super::MaskCx::new(barrier_mode),
        chunk_end: chunk_end_placeholder,
        env: None,
        stats: Stats::default(),
        private_base: chunk_private,
        cache: super::FunctionCache::new(iota32, iota64, Some(dummy)),
        chunk_context: None,
        chunk_full: false,
        races,
    };
    // A varying successor is compared lane by lane at run time
    // (`barrier_agreement`): every write of it must keep the lanes that do
    // not run it.
    let checked_next = next_var.filter(|nv| !uni.var_is_uniform_everywhere(*nv));
    if let Some(nv) = checked_next {
        cx.vals.blend_writes_of(nv);
        cx.stats
            .notes
            .extend(super::barrier_agreement::notes(func, uni, nv));
    }
    let cur = cx.new_mask_vars();
    let alive = returns.then(|| cx.new_mask_vars());
    cx.mask.bind(cur, alive);

    // Launch fields the entry needs, loaded once here. Loads and arithmetic
    // Cranelift may move are placed at their uses and not hoisted out of
    // loops, so what must be computed once per call, per group or per row
    // is pinned: fixed loads here, loop-carried variables below.
    let ro = MemFlagsData::trusted().with_readonly();
    use crate::abi::launch_offsets as lo;
    let field = |cx: &mut FunctionCx<'_, '_>, base: i32, d: usize| {
        cx.b.ins().load(types::I64, ro, launch, base + 8 * d as i32)
    };
    // The group coordinates by the launch's dimensions, fastest first: a
    // copy with lanes along dimension d (`crate::lane_axis`) counts the
    // linear group index as the launch does, so each group index names the
    // same group in every copy, and groups that share cache lines (the
    // launch's neighbours in dimension 0) still run one after another.
    let order = crate::lane_axis::launch_order(lanes_along);
    let num_groups = [order[0], order[1]].map(|d| field(&mut cx, lo::NUM_GROUPS, d));
    let local_size = [0, 1, 2].map(|d| field(&mut cx, lo::LOCAL_SIZE, d));
    let global_size = [0, 1, 2].map(|d| field(&mut cx, lo::GLOBAL_SIZE, d));
    let global_offset = [0, 1, 2].map(|d| field(&mut cx, lo::GLOBAL_OFFSET, d));
    cx.env = Some(Env {
        args,
        launch,
        local_mem,
        group_id: [first; 3],
        group_size: [first; 3],
        global_base: [first; 3],
        x0: first,
        y: first,
        z: first,
    });
    cx.preload_params()?;

    // Launches whose groups all split into full chunks (dimension 0 of
    // the local and global sizes multiples of W) run a second copy of the
    // group loop, lowered with every chunk known full: no tail masks, no
    // per-chunk length tests, one copy of each region's body. Keeping the
    // partial chunks' code out of the loop frees the registers its masks
    // and lane numbers held (`benches/scan.cl`, 2^24 items, one thread:
    // 37.5 → 30.8 ms).
    let variants: &[bool] = if full_copy { &[false, true] } else { &[false] };
    let variant_blocks: Vec<_> = variants.iter().map(|_| cx.b.create_block()).collect();
    if let [general_b, full_b] = variant_blocks[..] {
        let sizes = cx.b.ins().bor(local_size[0], global_size[0]);
        let whole = if w.is_power_of_two() {
            cx.b.ins().band_imm_s(sizes, i64::from(w - 1))
        } else {
            let a = cx.b.ins().urem_imm_s(local_size[0], i64::from(w));
            let c = cx.b.ins().urem_imm_s(global_size[0], i64::from(w));
            cx.b.ins().bor(a, c)
        };
        let all_full = cx.b.ins().icmp_imm_s(IntCC::Equal, whole, 0);
        cx.b.ins().brif(all_full, full_b, &[], general_b, &[]);
    } else {
        cx.b.ins().jump(variant_blocks[0], &[]);
    }
    for (&all_full, &variant_b) in variants.iter().zip(&variant_blocks) {
        cx.enter(variant_b);
        let before = cx.stats.clone();
        // Group loop: the linear index and its coordinates, which step
        // with a carry instead of a division per group.
        let g_var = cx.b.declare_var(types::I64);
        cx.b.def_var(g_var, first);
        let gc_vars: Vec<Variable> = (0..3).map(|_| cx.b.declare_var(types::I64)).collect();
        {
            let g0 = cx.b.ins().urem(first, num_groups[0]);
            let t = cx.b.ins().udiv(first, num_groups[0]);
            let g1 = cx.b.ins().urem(t, num_groups[1]);
            let g2 = cx.b.ins().udiv(t, num_groups[1]);
            for (d, x) in order.iter().zip([g0, g1, g2]) {
                cx.b.def_var(gc_vars[*d], x);
            }
        }
        let (g_head, g_body, done) = (
            cx.b.create_block(),
            cx.b.create_block(),
            cx.b.create_block(),
        );
        cx.b.ins().jump(g_head, &[]);
        cx.b.switch_to_block(g_head);
        let g = cx.b.use_var(g_var);
        // Loop exits are the first branch target throughout: Cranelift's
        // loop-invariant code motion only sees the loop in the body when the
        // body is the second target (see `control.rs`, `lower_if`).
        let finished = cx.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, g, end);
        cx.b.ins().brif(finished, done, &[], g_body, &[]);
        cx.b.switch_to_block(g_body);
        let group_id = [0, 1, 2].map(|d| cx.b.use_var(gc_vars[d]));
        let mut group_size = [first; 3];
        let mut group_start = [first; 3];
        for d in 0..3 {
            let start = cx.b.ins().imul(group_id[d], local_size[d]);
            let left = cx.b.ins().isub(global_size[d], start);
            group_size[d] = cx.b.ins().umin(local_size[d], left);
            group_start[d] = cx.b.ins().iadd(start, global_offset[d]);
        }
        cx.races_group_start(local_mem, local_size, group_id)?;
        let group_next = cx.b.create_block();
        let region_blocks: Vec<_> = regions.iter().map(|_| cx.b.create_block()).collect();
        let region_var = cx.b.declare_var(types::I32);
        let dispatch = cx.b.create_block();
        if next_var.is_some() {
            let zero = cx.b.ins().iconst(types::I32, 0);
            cx.b.def_var(region_var, zero);
            cx.b.ins().jump(dispatch, &[]);
            cx.b.switch_to_block(dispatch);
            let rv = cx.b.use_var(region_var);
            let mut table = Switch::new();
            for (r, blk) in region_blocks.iter().enumerate() {
                table.set_entry(r as u128, *blk);
            }
            table.emit(&mut cx.b, rv, group_next);
        } else {
            cx.b.ins().jump(region_blocks[0], &[]);
            cx.b.switch_to_block(dispatch);
            cx.b.ins().jump(group_next, &[]);
        }
        let divergent = cx.b.create_block();
        for (r, split) in group.splits.iter().enumerate() {
            let last = r + 1 == regions.len() && next_var.is_none();
            cx.b.switch_to_block(region_blocks[r]);
            cx.races_region_start(r)?;
            let agreed = cx.b.declare_var(types::I32);
            let none =
                cx.b.ins()
                    .iconst(types::I32, i64::from(crate::regions::NONE));
            cx.b.def_var(agreed, none);
            // Where `agreed` was first chosen (for the report).
            let agreed_at = checked_next.map(|_| {
                let v = cx.b.declare_var(types::I64);
                let zero = cx.b.ins().iconst(types::I64, 0);
                cx.b.def_var(v, zero);
                v
            });
            // Checked mode also names the work-items of chunks (rows of a
            // group) that disagree at a barrier proven uniform per chunk.
            let uniform_at = (checked_next.is_none() && local_checks).then(|| {
                let v = cx.b.declare_var(types::I64);
                let zero = cx.b.ins().iconst(types::I64, 0);
                cx.b.def_var(v, zero);
                v
            });
            let zero = cx.b.ins().iconst(types::I64, 0);
            let env = Env {
                args,
                launch,
                local_mem,
                group_id,
                group_size,
                global_base: group_start,
                x0: zero,
                y: zero,
                z: zero,
            };
            cx.env = Some(env);
            // The group-level statements before the chunk loop, level by level
            // (a group-level guard leads to the next).
            cx.chunk_context = None;
            let ones = all_ones_mask(&mut cx);
            cx.set_cur(&ones);
            cx.vals.clear();
            if let (Some(nv), true) = (next_var, next_group) {
                cx.write_var(nv, &vec![Lanes::Uniform(none)])?;
            }
            let (levels, body) = split.levels();
            let mut snapshots = Vec::new();
            let mut joins = Vec::new();
            for (pre, guard, _) in &levels {
                cx.lower_block(&Block(pre.to_vec()))?;
                snapshots.push(cx.vals.snapshot());
                if let Some(g) = guard {
                    let Some(Lanes::Uniform(c)) = cx.value(*g)?.first().cloned() else {
                        return Err(cx.internal("group-level guard that is not uniform"));
                    };
                    let (then_b, join_b) = (cx.b.create_block(), cx.b.create_block());
                    cx.b.ins().brif(c, then_b, &[], join_b, &[]);
                    cx.enter(then_b);
                    joins.push(join_b);
                }
            }
            if let group_level::Body::Chunks { stmts, range } = body {
                let stmts = &stmts[..];
                // The ids of dimension 0 the chunk loop covers: all, or those
                // the final `if` can accept, widened to whole chunks.
                let size0 = group_size[0];
                let wk = cx.b.ins().iconst(types::I64, i64::from(w));
                let mut accepted = None;
                let (x_lo, x_hi, skip_before, skip_after) = match range {
                    Some(range) => {
                        let (lo, hi) = lid_bounds(&mut cx, range, size0)?;
                        accepted = Some((lo, hi));
                        let w1 = cx.b.ins().iconst(types::I64, i64::from(w - 1));
                        let c_lo = cx.b.ins().udiv(lo, wk);
                        let x_lo = cx.b.ins().imul(c_lo, wk);
                        let hi_up = cx.b.ins().iadd(hi, w1);
                        let c_hi = cx.b.ins().udiv(hi_up, wk);
                        let c_hi = cx.b.ins().umax(c_hi, c_lo);
                        let size_up = cx.b.ins().iadd(size0, w1);
                        let per_row = cx.b.ins().udiv(size_up, wk);
                        let after = cx.b.ins().isub(per_row, c_hi);
                        (x_lo, hi, Some(c_lo), Some(after))
                    }
                    None => (zero, size0, None, None),
                };
                // Chunk loops.
                // The chunk's context area, as a byte offset that steps by
                // the area's size (no multiply per chunk).
                let idx_var = cx.b.declare_var(types::I64);
                cx.b.def_var(idx_var, zero);
                let loops: Vec<Variable> = (0..3).map(|_| cx.b.declare_var(types::I64)).collect();
                // The global id of the chunk's lane 0 (dimension 0) and of its row
                // (dimensions 1, 2) step with the local ids, so they are loop
                // values, not recomputed from the group's position per access.
                let globals: Vec<Variable> = (0..3).map(|_| cx.b.declare_var(types::I64)).collect();
                let mut exits = Vec::new();
                let mut coords = [zero; 3];
                let mut global_ids = [zero; 3];
                for d in [2usize, 1, 0] {
                    let var = loops[d];
                    let (start, limit) = if d == 0 {
                        (x_lo, x_hi)
                    } else {
                        (zero, group_size[d])
                    };
                    cx.b.def_var(var, start);
                    let g0 = if d == 0 && range.is_some() {
                        cx.b.ins().iadd(group_start[d], start)
                    } else {
                        group_start[d]
                    };
                    cx.b.def_var(globals[d], g0);
                    if let (0, Some(k)) = (d, skip_before) {
                        let idx = cx.b.use_var(idx_var);
                        let skipped = cx.b.ins().imul_imm_s(k, i64::from(chunk_bytes));
                        let idx = cx.b.ins().iadd(idx, skipped);
                        cx.b.def_var(idx_var, idx);
                    }
                    let (head, body, exit) = (
                        cx.b.create_block(),
                        cx.b.create_block(),
                        cx.b.create_block(),
                    );
                    cx.b.ins().jump(head, &[]);
                    cx.b.switch_to_block(head);
                    let c = cx.b.use_var(var);
                    let past = cx.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, c, limit);
                    cx.b.ins().brif(past, exit, &[], body, &[]);
                    cx.enter(body);
                    coords[d] = c;
                    global_ids[d] = cx.b.use_var(globals[d]);
                    exits.push((d, head, exit));
                }
                let x0 = coords[0];
                if let Some(env) = cx.env.as_mut() {
                    env.x0 = x0;
                    env.y = coords[1];
                    env.z = coords[2];
                    env.global_base = global_ids;
                }
                let left = cx.b.ins().isub(group_size[0], x0);
                let n = cx.b.ins().umin(left, wk);
                let n32 = cx.b.ins().ireduce(types::I32, n);
                let ns = cx.b.ins().splat(types::I32X4, n32);
                let mask: Vec<Value> = if all_full {
                    ones.clone()
                } else {
                    let iota = cx.cache.iota32().to_vec();
                    iota.iter()
                        .map(|i| cx.b.ins().icmp(IntCC::SignedLessThan, *i, ns))
                        .collect()
                };
                cx.chunk_end = cx.b.create_block();
                let chunk_ctx = if barrier_mode {
                    let off = cx.b.use_var(idx_var);
                    Some(cx.b.ins().iadd(context, off))
                } else {
                    None
                };
                cx.chunk_context = chunk_ctx;
                if let Some(c) = chunk_ctx {
                    if private.size > 0 {
                        cx.private_base = Some(cx.b.ins().iadd_imm_s(c, i64::from(private_off)));
                    }
                }
                cx.set_cur(&mask);
                // No work-item of this chunk has written its variables yet (the
                // saved and recomputed ones are set below): a first, blended,
                // write takes no value from the previous chunk, and no variable
                // is carried around the chunk loop (`benches/scan.cl` at 2^20:
                // 85.0 M → 82.9 M instructions).
                for x in super::fresh_writes::touched_vars(func, stmts) {
                    cx.clear_var(x)?;
                }
                if let (Some(nv), false) = (next_var, next_group) {
                    let none =
                        cx.b.ins()
                            .iconst(types::I32, i64::from(crate::regions::NONE));
                    cx.write_var(nv, &vec![Lanes::Uniform(none)])?;
                }
                if let Some(alive) = cx.mask.alive() {
                    match (r, chunk_ctx) {
                        (0, _) | (_, None) => cx.write_mask(&alive, &mask),
                        (_, Some(c)) => {
                            let a: Vec<Value> = (0..w / 4)
                                .map(|i| {
                                    cx.b.ins().load(
                                        types::I32X4,
                                        mem(),
                                        c,
                                        (alive_off + i * 16) as i32,
                                    )
                                })
                                .collect();
                            cx.write_mask(&alive, &a);
                            let m = cx.mask_and(&mask, &a);
                            cx.set_cur(&m);
                            let any = cx.mask_any(&m);
                            let go = cx.b.create_block();
                            let end_b = cx.chunk_end;
                            cx.b.ins().brif(any, go, &[], end_b, &[]);
                            cx.enter(go);
                        }
                    }
                }
                cx.vals
                    .restore(snapshots.last().cloned().unwrap_or_default());
                if let Some(c) = chunk_ctx {
                    if r > 0 {
                        let mut own = Vec::new();
                        collect_defs(stmts, &mut own);
                        let own: BTreeSet<ValueId> = own.into_iter().collect();
                        let mut order = Vec::new();
                        let mut seen = BTreeSet::new();
                        for v in &region_uses[r] {
                            if own.contains(v) || cx.vals.is_defined(*v) {
                                continue;
                            }
                            if let Some(off) = saved_values.get(v).copied() {
                                let val = cx.reload_value(*v, c, off)?;
                                cx.vals.define(*v, val);
                            } else if remat.contains(v) {
                                remat_order(func, *v, &mut order, &mut seen);
                            }
                        }
                        let wanted: Vec<(VarId, ValueId)> = remat_vars
                            .iter()
                            .filter(|(x, _)| region_touch[r].contains(x))
                            .copied()
                            .collect();
                        for (_, v) in &wanted {
                            remat_order(func, *v, &mut order, &mut seen);
                        }
                        for v in order {
                            let val = cx.lower_inst(v)?;
                            cx.vals.define(v, val);
                        }
                        for (x, v) in wanted {
                            let val = cx.value(v)?;
                            cx.write_var(x, &val)?;
                        }
                        for (var, off) in &var_offsets {
                            // The chunk's statements may start by writing it:
                            // the saved value is dead then.
                            if region_touch[r].contains(var)
                                && !super::fresh_writes::overwritten_first(func, stmts, *var)
                            {
                                cx.reload_var(*var, c, *off)?;
                            }
                        }
                    }
                }
                // With barriers, only for a region with an access through a
                // varying address: elsewhere the test costs more than it saves.
                // Since chunks start with cleared variables and regions skip dead
                // reloads, the full copy pays in every barrier kernel with such
                // an access (`benches/scan.cl` at 2^20: 82.9 M → 77.8 M
                // instructions, `benches/reduce.cl` 16.5 M → 15.8 M, matmul
                // 40.0 M → 39.9 M; it used to be limited to consecutive accesses
                // in loops).
                let specialise = full_copy
                    && func.insts.len() <= SPECIALISE_LIMIT
                    && (!barrier_mode || varying_access(func, cx.kernel.uni(), stmts));
                let end_b = cx.chunk_end;
                // Chunks whose every lane passes the final `if (lid OP
                // bound)` (all of a tree reduction's chunks while `s` is at
                // least W) take a copy without the test: the `if`'s body
                // lowered with every lane running, so no mask is computed,
                // tested or blended (`inside_chunk`). Not in checked mode:
                // its race checks already lower the statements twice, and
                // a third copy made reduce's launch 20.4 M → 22.6 M
                // instructions (2^20 items, one thread).
                let inside = match (accepted, stmts.split_last()) {
                    (Some((lo, hi)), Some((Stmt::If { then_, .. }, rest)))
                        if cx.mask.alive().is_none() && cx.races.is_none() =>
                    {
                        let (in_b, general_b) = (cx.b.create_block(), cx.b.create_block());
                        let in_range = inside_chunk(&mut cx, x0, w, lo, hi);
                        cx.b.ins().brif(in_range, in_b, &[], general_b, &[]);
                        cx.b.switch_to_block(general_b);
                        let body: Vec<Stmt> = rest.iter().chain(&then_.0).cloned().collect();
                        let first_inst = cx.b.func.dfg.num_insts();
                        Some((in_b, general_b, body, cx.vals.snapshot(), first_inst))
                    }
                    _ => None,
                };
                // The other chunks take the `if`'s lanes from the range
                // itself (`lo <= lid < hi`, exactly the ids its test accepts)
                // instead of evaluating the test: 32-bit lane numbers against
                // two bounds, where a `size_t` id is compared in 64-bit lanes.
                let general_stmts: Vec<Stmt>;
                let stmts = match (accepted, stmts.split_last()) {
                    (Some((lo, hi)), Some((Stmt::If { cond, .. }, rest)))
                        if inside.is_some()
                            && !saved_values.contains_key(cond)
                            && !remat.contains(cond)
                            && only_the_if_reads(func, stmts, *cond) =>
                    {
                        let lanes = range_mask(&mut cx, x0, w, lo, hi);
                        cx.vals.define(*cond, vec![Lanes::Varying(lanes)]);
                        general_stmts = rest
                            .iter()
                            .filter(|s| !matches!(s, Stmt::Eval(v) if v == cond))
                            .chain(stmts.last())
                            .cloned()
                            .collect();
                        &general_stmts[..]
                    }
                    _ => stmts,
                };
                if all_full {
                    // The launch's loop of whole chunks: one copy.
                    cx.chunk_full = true;
                    let lowered = cx.lower_chunk_stmts(stmts, end_b);
                    cx.chunk_full = false;
                    lowered?;
                } else if specialise {
                    // Partial (tail) chunks take the general copy; full chunks take
                    // a copy lowered with the mask known to be all ones, where each
                    // consecutive access is one vector load or store with no test
                    // and no per-lane fallback, and each per-lane access (gather,
                    // scatter, atomic) uses every lane's own address with no mask
                    // test (`benches/histogram.cl` at 2^16 items: 25.5 M → 16.9 M
                    // instructions) — made only when the general copy has such
                    // accesses and is small (see `FULL_COPY_CLIF_LIMIT`):
                    // otherwise full chunks take the general copy too.
                    let (full_b, tail_b) = (cx.b.create_block(), cx.b.create_block());
                    let is_full = cx.b.ins().icmp_imm_s(
                        IntCC::UnsignedGreaterThanOrEqual,
                        left,
                        i64::from(w),
                    );
                    cx.b.ins().brif(is_full, full_b, &[], tail_b, &[]);
                    cx.b.switch_to_block(tail_b);
                    let (values, before) = (cx.vals.snapshot(), cx.stats.clone());
                    let first_inst = cx.b.func.dfg.num_insts();
                    cx.lower_block(&Block(stmts.to_vec()))?;
                    cx.jump_live(end_b);
                    let general = cx.b.func.dfg.num_insts() - first_inst;
                    let vector = cx.stats.vector_loads + cx.stats.vector_stores
                        - (before.vector_loads + before.vector_stores);
                    let per_lane = cx.stats.gathers + cx.stats.scatters + cx.stats.atomics
                        - (before.gathers + before.scatters + before.atomics);
                    let consecutive = vector >= 1 || per_lane >= 1;
                    cx.enter(full_b);
                    if consecutive && general <= FULL_COPY_CLIF_LIMIT {
                        cx.set_cur(&ones);
                        if let Some(alive) = cx.mask.alive() {
                            cx.write_mask(&alive, &ones);
                        }
                        let stats = cx.stats.clone();
                        cx.vals.restore(values);
                        cx.chunk_full = true;
                        let lowered = cx.lower_chunk_stmts(stmts, end_b);
                        cx.chunk_full = false;
                        lowered?;
                        // The report's counts describe the general copy only; the
                        // notes (routines emitted once) stay.
                        let notes = std::mem::take(&mut cx.stats.notes);
                        cx.stats = stats;
                        cx.stats.notes = notes;
                    } else {
                        cx.b.ins().jump(tail_b, &[]);
                    }
                    cx.b.seal_block(tail_b);
                } else {
                    cx.lower_chunk_stmts(stmts, end_b)?;
                }
                if let Some((in_b, general_b, body, values, first_inst)) = inside {
                    let general = cx.b.func.dfg.num_insts() - first_inst;
                    cx.enter(in_b);
                    if general <= INSIDE_COPY_CLIF_LIMIT {
                        let stats = cx.stats.clone();
                        cx.set_cur(&ones);
                        cx.vals.restore(values);
                        cx.chunk_full = true;
                        let lowered = cx.lower_chunk_stmts(&body, end_b);
                        cx.chunk_full = false;
                        lowered?;
                        // The report's counts describe the general copy.
                        let notes = std::mem::take(&mut cx.stats.notes);
                        cx.stats = stats;
                        cx.stats.notes = notes;
                        cx.stats.inside_copies += 1;
                    } else {
                        cx.b.ins().jump(general_b, &[]);
                    }
                    cx.b.seal_block(general_b);
                }
                cx.enter(end_b);
                if let (Some(c), false) = (chunk_ctx, last) {
                    for (var, off) in &var_offsets {
                        if region_writes[r].contains(var) {
                            cx.save_var(*var, c, *off)?;
                        }
                    }
                    if let Some(alive) = cx.mask.alive() {
                        let a = cx.read_mask(&alive);
                        for (i, v) in a.iter().enumerate() {
                            cx.b.ins()
                                .store(mem(), *v, c, (alive_off + i as u32 * 16) as i32);
                        }
                    }
                }
                if let (Some(nv), false, Some(at)) = (next_var, next_group, agreed_at) {
                    // Not proven uniform: the lanes that run must agree.
                    let Some(Lanes::Varying(pieces)) = cx.read_var(nv)?.first().cloned() else {
                        return Err(cx.internal("successor not kept per lane"));
                    };
                    let active = match cx.mask.alive() {
                        Some(alive) => {
                            let a = cx.read_mask(&alive);
                            cx.mask_and(&mask, &a)
                        }
                        None => mask.clone(),
                    };
                    let choice = cx.agreed_successor(&pieces, &active, divergent);
                    cx.agree_across_chunks(&choice, agreed, at, divergent);
                } else if let (Some(nv), false) = (next_var, next_group) {
                    let chosen = match cx.read_var(nv)?.first() {
                        Some(Lanes::Uniform(x)) => *x,
                        _ => return Err(cx.internal("successor not uniform")),
                    };
                    if let Some(at) = uniform_at {
                        cx.agree_uniform_across_chunks(chosen, agreed, at, divergent);
                    } else {
                        let prev = cx.b.use_var(agreed);
                        let none = i64::from(crate::regions::NONE);
                        let prev_none = cx.b.ins().icmp_imm_s(IntCC::Equal, prev, none);
                        let chosen_none = cx.b.ins().icmp_imm_s(IntCC::Equal, chosen, none);
                        let same = cx.b.ins().icmp(IntCC::Equal, prev, chosen);
                        let either_none = cx.b.ins().bor(prev_none, chosen_none);
                        let ok = cx.b.ins().bor(either_none, same);
                        let go = cx.b.create_block();
                        cx.b.ins().brif(ok, go, &[], divergent, &[]);
                        cx.b.switch_to_block(go);
                        let keep = cx.b.ins().select(chosen_none, prev, chosen);
                        cx.b.def_var(agreed, keep);
                    }
                }
                if barrier_mode {
                    let idx = cx.b.use_var(idx_var);
                    let idx1 = cx.b.ins().iadd_imm_s(idx, i64::from(chunk_bytes));
                    cx.b.def_var(idx_var, idx1);
                }
                // Close the loops: x steps by W, y and z by 1.
                for (d, head, exit) in exits.iter().rev() {
                    let step = if *d == 0 { i64::from(w) } else { 1 };
                    for var in [loops[*d], globals[*d]] {
                        let c = cx.b.use_var(var);
                        let next = cx.b.ins().iadd_imm_s(c, step);
                        cx.b.def_var(var, next);
                    }
                    cx.b.ins().jump(*head, &[]);
                    cx.b.seal_block(*head);
                    cx.enter(*exit);
                    if let (0, Some(k)) = (*d, skip_after) {
                        let idx = cx.b.use_var(idx_var);
                        let skipped = cx.b.ins().imul_imm_s(k, i64::from(chunk_bytes));
                        let idx = cx.b.ins().iadd(idx, skipped);
                        cx.b.def_var(idx_var, idx);
                    }
                }
                cx.chunk_context = None;
                cx.set_cur(&ones);
            }
            // The group-level statements after the chunk loop, innermost level
            // first, each leaving its guard.
            for (k, (_, _, post)) in levels.iter().enumerate().rev() {
                cx.vals.restore(snapshots[k].clone());
                cx.lower_block(&Block(post.to_vec()))?;
                if k > 0 {
                    let j = joins[k - 1];
                    cx.jump_live(j);
                    cx.enter(j);
                }
            }
            if let (Some(nv), true) = (next_var, next_group) {
                let Some(Lanes::Uniform(chosen)) = cx.read_var(nv)?.first().cloned() else {
                    return Err(cx.internal("group-level successor that is not uniform"));
                };
                cx.b.def_var(agreed, chosen);
            }
            if next_var.is_some() {
                let a = cx.b.use_var(agreed);
                let is_none =
                    cx.b.ins()
                        .icmp_imm_s(IntCC::Equal, a, i64::from(crate::regions::NONE));
                let end_r =
                    cx.b.ins()
                        .iconst(types::I32, i64::from(crate::regions::END));
                let index =
                    cx.b.ins()
                        .band_imm_s(a, i64::from(crate::regions::REGION_MASK));
                let nr = cx.b.ins().select(is_none, end_r, index);
                cx.b.def_var(region_var, nr);
                cx.b.ins().jump(dispatch, &[]);
            } else if let Some(next_blk) = region_blocks.get(r + 1) {
                cx.b.ins().jump(*next_blk, &[]);
            } else {
                cx.b.ins().jump(group_next, &[]);
            }
        }
        cx.b.switch_to_block(divergent);
        let status = cx.b.ins().iconst(
            types::I32,
            crate::abi::KernelStatus::DivergentBarrier as i64,
        );
        cx.b.ins().return_(&[status]);
        cx.b.switch_to_block(group_next);
        let g = cx.b.use_var(g_var);
        let g1 = cx.b.ins().iadd_imm_s(g, 1);
        cx.b.def_var(g_var, g1);
        {
            let c = order.map(|d| cx.b.use_var(gc_vars[d]));
            let zero = cx.b.ins().iconst(types::I64, 0);
            let x = cx.b.ins().iadd_imm_s(c[0], 1);
            let wrap0 = cx.b.ins().icmp(IntCC::Equal, x, num_groups[0]);
            let x = cx.b.ins().select(wrap0, zero, x);
            let y1 = cx.b.ins().iadd_imm_s(c[1], 1);
            let y = cx.b.ins().select(wrap0, y1, c[1]);
            let at_end = cx.b.ins().icmp(IntCC::Equal, y, num_groups[1]);
            let wrap1 = cx.b.ins().band(wrap0, at_end);
            let y = cx.b.ins().select(wrap1, zero, y);
            let z1 = cx.b.ins().iadd_imm_s(c[2], 1);
            let z = cx.b.ins().select(wrap1, z1, c[2]);
            for (d, n) in order.iter().zip([x, y, z]) {
                cx.b.def_var(gc_vars[*d], n);
            }
        }
        cx.b.ins().jump(g_head, &[]);
        cx.b.switch_to_block(done);
        let ok = cx.b.ins().iconst(types::I32, 0);
        cx.b.ins().return_(&[ok]);
        if all_full {
            // The report counts the general copy only (the notes of
            // routines emitted once stay).
            let notes = std::mem::take(&mut cx.stats.notes);
            cx.stats = before;
            cx.stats.notes = notes;
        }
    }
    // The placeholder chunk end is never targeted; give it a terminator.
    cx.b.switch_to_block(chunk_end_placeholder);
    let ok = cx.b.ins().iconst(types::I32, 0);
    cx.b.ins().return_(&[ok]);
    cx.b.seal_all_blocks();
    let stats = std::mem::take(&mut cx.stats);
    let config = cx.jit.isa().frontend_config();
    let FunctionCx { b, .. } = cx;
    b.finalize(config);
    Ok(Lowered {
        stats,
        regions: regions.len(),
        chunk_bytes: chunk_bytes as usize,
        private_in_context: (barrier_mode && private.size > 0) || heap_private,
        fixed_context_bytes: fixed_context_bytes as usize,
        private_per_item: private.size.div_ceil(w.max(1)),
        group_level: barrier_mode.then(|| group.summary()),
        barrier_sites: next_var
            .map(|nv| crate::regions::barrier_sites(func, nv))
            .unwrap_or_default(),
    })
}

impl FunctionCx<'_, '_> {
    /// Stores a value a later region needs into this chunk's context.
    pub fn save_value(&mut self, v: ValueId) -> LResult<()> {
        let (Some(off), Some(base)) = (self.vals.saved_offset(v), self.chunk_context) else {
            return Ok(());
        };
        let val = self.value(v)?;
        let elem =
            elem_of(self.kernel.func().ty(v)).ok_or_else(|| self.internal("saving a non-value"))?;
        let shapes = self.store_val(&val, elem, base, off);
        self.vals.set_saved_shape(v, shapes);
        Ok(())
    }

    fn store_val(&mut self, val: &Val, elem: vecl_ir::Scalar, base: Value, off: u32) -> Vec<bool> {
        let mut shapes = Vec::new();
        for (c, l) in val.iter().enumerate() {
            let at = (off + c as u32 * self.kernel.w() * 8) as i32;
            match l {
                Lanes::Uniform(x) => {
                    self.b.ins().store(mem(), *x, base, at);
                    shapes.push(true);
                }
                Lanes::Varying(p) => {
                    for (i, x) in p.iter().enumerate() {
                        self.b.ins().store(mem(), *x, base, at + 16 * i as i32);
                    }
                    shapes.push(false);
                }
            }
        }
        let _ = elem;
        shapes
    }

    fn load_val(&mut self, elem: vecl_ir::Scalar, shapes: &[bool], base: Value, off: u32) -> Val {
        shapes
            .iter()
            .enumerate()
            .map(|(c, uniform)| {
                let at = (off + c as u32 * self.kernel.w() * 8) as i32;
                if *uniform {
                    Lanes::Uniform(self.b.ins().load(natural(elem), mem(), base, at))
                } else {
                    let n = self.piece_count(elem);
                    Lanes::Varying(
                        (0..n)
                            .map(|i| {
                                self.b
                                    .ins()
                                    .load(carrier(elem), mem(), base, at + 16 * i as i32)
                            })
                            .collect(),
                    )
                }
            })
            .collect()
    }

    fn reload_value(&mut self, v: ValueId, base: Value, off: u32) -> LResult<Val> {
        let elem = elem_of(self.kernel.func().ty(v))
            .ok_or_else(|| self.internal("reloading a non-value"))?;
        let shapes = self.vals.saved_shape(v).cloned().ok_or_else(|| {
            self.unsupported(format!(
                "value %{} crosses a barrier before it is computed on every path",
                v.0
            ))
        })?;
        Ok(self.load_val(elem, &shapes, base, off))
    }

    fn var_shapes(&mut self, var: VarId) -> LResult<Vec<bool>> {
        let val = self.read_var(var)?;
        Ok(val.iter().map(|l| l.is_uniform()).collect())
    }

    fn save_var(&mut self, var: VarId, base: Value, off: u32) -> LResult<()> {
        let val = self.read_var(var)?;
        let elem = elem_of(&self.kernel.func().vars[var.index()].ty)
            .ok_or_else(|| self.internal("variable type"))?;
        self.store_val(&val, elem, base, off);
        Ok(())
    }

    fn reload_var(&mut self, var: VarId, base: Value, off: u32) -> LResult<()> {
        let shapes = self.var_shapes(var)?;
        let elem = elem_of(&self.kernel.func().vars[var.index()].ty)
            .ok_or_else(|| self.internal("variable type"))?;
        let val = self.load_val(elem, &shapes, base, off);
        let slots = self.vals.var_slots(var).cloned().unwrap_or_default();
        for (slot, l) in slots.iter().zip(&val) {
            match (slot, l) {
                (VarSlot::Uniform(v), Lanes::Uniform(x)) => self.b.def_var(*v, *x),
                (VarSlot::Varying(vs), Lanes::Varying(p)) => {
                    for (v, x) in vs.iter().zip(p) {
                        self.b.def_var(*v, *x);
                    }
                }
                _ => return Err(self.internal("variable representation changed")),
            }
        }
        Ok(())
    }
}

/// Whether the chunk whose lane 0 has local id `x0` (dimension 0) lies
/// wholly inside the ids `lo..hi` that pass a region's final `if (lid OP
/// bound)` ([`lid_bounds`]): every lane then runs the `if`'s body, and the
/// chunk is full (`hi` is at most the group's size).
fn inside_chunk(cx: &mut FunctionCx<'_, '_>, x0: Value, w: u32, lo: Value, hi: Value) -> Value {
    let last = cx.b.ins().iadd_imm_s(x0, i64::from(w));
    let from = cx.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x0, lo);
    let to = cx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, last, hi);
    cx.b.ins().band(from, to)
}

/// The lanes of the chunk whose lane 0 has local id `x0` (dimension 0)
/// whose ids lie in `lo..hi`, as a mask of `i32x4` pieces.
fn range_mask(cx: &mut FunctionCx<'_, '_>, x0: Value, w: u32, lo: Value, hi: Value) -> Vec<Value> {
    // Both ends relative to lane 0, clamped to 0..=W (ids are below 2^32,
    // so the differences are exact in 64 bits).
    let mut rel = |end: Value| {
        let d = cx.b.ins().isub(end, x0);
        let zero = cx.b.ins().iconst(types::I64, 0);
        let d = cx.b.ins().smax(d, zero);
        let wk = cx.b.ins().iconst(types::I64, i64::from(w));
        let d = cx.b.ins().smin(d, wk);
        let d = cx.b.ins().ireduce(types::I32, d);
        cx.b.ins().splat(types::I32X4, d)
    };
    let (from, to) = (rel(lo), rel(hi));
    let iota = cx.cache.iota32().to_vec();
    iota.iter()
        .map(|i| {
            let a = cx.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, *i, from);
            let b = cx.b.ins().icmp(IntCC::SignedLessThan, *i, to);
            cx.b.ins().band(a, b)
        })
        .collect()
}

/// Whether `cond`, the test of the last statement of `stmts` (an `if`), is
/// read by nothing else there: not by another statement, nor inside the
/// `if`.
fn only_the_if_reads(func: &Function, stmts: &[Stmt], cond: ValueId) -> bool {
    let Some((Stmt::If { then_, else_, .. }, rest)) = stmts.split_last() else {
        return false;
    };
    let (mut vals, mut vars) = (BTreeSet::new(), BTreeSet::new());
    collect_uses(func, rest, &mut vals, &mut vars);
    collect_uses(func, &then_.0, &mut vals, &mut vars);
    collect_uses(func, &else_.0, &mut vals, &mut vars);
    !vals.contains(&cond)
        && rest
            .iter()
            .any(|s| matches!(s, Stmt::Eval(v) if *v == cond))
}

/// The local ids in dimension 0, `lo..hi` within `0..size0`, that can pass
/// the test of a [`group_level::LidRange`] (`lid OP bound`).
fn lid_bounds(
    cx: &mut FunctionCx<'_, '_>,
    range: &group_level::LidRange,
    size0: Value,
) -> LResult<(Value, Value)> {
    use vecl_ir::CmpOp;
    let Some(Lanes::Uniform(b)) = cx.value(range.bound)?.first().cloned() else {
        return Err(cx.internal("group-level bound that is not uniform"));
    };
    let b = match (range.bits, range.signed) {
        (32, true) => cx.b.ins().sextend(types::I64, b),
        (32, false) => cx.b.ins().uextend(types::I64, b),
        _ => b,
    };
    let zero = cx.b.ins().iconst(types::I64, 0);
    let negative = if range.signed {
        Some(cx.b.ins().icmp_imm_s(IntCC::SignedLessThan, b, 0))
    } else {
        None
    };
    // `b` clamped to 0..=size0, and `b + 1` clamped the same way.
    let at = {
        let m = cx.b.ins().umin(b, size0);
        match negative {
            Some(neg) => cx.b.ins().select(neg, zero, m),
            None => m,
        }
    };
    let after = {
        let last = cx.b.ins().iadd_imm_s(size0, -1);
        let m = cx.b.ins().umin(b, last);
        let m = cx.b.ins().iadd_imm_s(m, 1);
        match negative {
            Some(neg) => cx.b.ins().select(neg, zero, m),
            None => m,
        }
    };
    Ok(match range.op {
        CmpOp::Lt => (zero, at),
        CmpOp::Le => (zero, after),
        CmpOp::Gt => (after, size0),
        CmpOp::Ge => (at, size0),
        CmpOp::Eq => (at, after),
        CmpOp::Ne => (zero, size0),
    })
}

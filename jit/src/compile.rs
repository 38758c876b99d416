//! The compile driver: the middle passes, the region graph and the
//! uniformity analysis, the width, the layout of arguments and data, the
//! lowering of the main function (and of its wide copy) in one JIT module,
//! and the tiers: the quick code first, the optimised code in the
//! background.

use crate::abi;
use crate::define::{define_kernel_function, finalized_entry};
use crate::explain::{explain, Facts};
use crate::kernel::{
    CodeMemory, CompiledKernel, Fallback, LaneCopies, ModuleData, Unbounded, Unprefetched,
};
use crate::launch_proofs::LaunchProofs;
use crate::tiers::{self, Entry, FinalCode, Tier, Tiers, Upgrade};
use crate::timing::Phases;
use crate::width::{default_width, lane_work_in_loops, wide_width};
use crate::{
    collectives, group_shape, lane_axis, layout, lower, math, races, regions, JitError, JitOptions,
    Prefetch,
};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable as _};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::default_libcall_names;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use vecl_ir::transform::pipeline::{Pipeline, PipelineError, PipelineOptions};
use vecl_ir::{Inst, Module};

/// Address space reserved for one kernel's code and data (only what the
/// code uses is ever committed; the rest stays an inaccessible reservation).
const CODE_RESERVE: usize = 256 << 20;

/// Runs `f`, turning a panic in the code generator into `JitError::Codegen`.
pub(crate) fn guarded(
    kernel: &str,
    f: impl FnOnce() -> Result<CompiledKernel, JitError>,
) -> Result<CompiledKernel, JitError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic in the code generator".to_string());
            Err(JitError::Codegen {
                kernel: kernel.to_string(),
                message,
            })
        }
    }
}

/// Compiles kernel `kernel` of `module`.
pub fn compile_kernel(
    module: &Module,
    kernel: &str,
    opts: &JitOptions,
) -> Result<CompiledKernel, JitError> {
    compile_kernel_in(module, kernel, opts, None)
}

/// [`compile_kernel`], with the module-scope data in `data` (made by
/// [`ModuleData::new`] for this `module`) when given, else in a block of
/// the kernel's own.
pub fn compile_kernel_in(
    module: &Module,
    kernel: &str,
    opts: &JitOptions,
    data: Option<Arc<ModuleData>>,
) -> Result<CompiledKernel, JitError> {
    if !module.kernels().any(|(_, f)| f.name == kernel) {
        return Err(JitError::NoSuchKernel(kernel.to_string()));
    }
    let policy = opts.tiers;
    let first = match policy {
        Tiers::OptimisedOnly => Tier::Optimised,
        Tiers::QuickOnly | Tiers::Both => Tier::Quick,
    };
    let shared = data.as_ref().map(|d| d.base());
    let mut compiled = guarded(kernel, || {
        compile(
            module,
            kernel,
            opts,
            first,
            shared,
            0,
            (Trust::GroupsAndLaunch, Width::MayNarrow),
        )
    })?;
    compiled._module_data = data;
    // The copy trusting no group size is compiled at launch in the tier
    // the kernel ends with.
    let last = match policy {
        Tiers::QuickOnly => Tier::Quick,
        Tiers::OptimisedOnly | Tiers::Both => Tier::Optimised,
    };
    compiled.unbounded = Unbounded::for_kernel(&compiled, module, opts, last, 0);
    if compiled.may_swap_lanes {
        // The copies are compiled at launch, in the tier the kernel ends
        // with, at its width and with its module-scope data.
        compiled.lane_copies = Some(Box::new(LaneCopies {
            module: lane_axis::module_for(module, kernel),
            opts: JitOptions {
                simd_width: Some(compiled.simd_width),
                dump_clif: false,
                ..opts.clone()
            },
            tier: match policy {
                Tiers::QuickOnly => Tier::Quick,
                Tiers::OptimisedOnly | Tiers::Both => Tier::Optimised,
            },
            data: compiled.data_base(),
            along: [OnceLock::new(), OnceLock::new()],
        }));
    }
    // The wide code is final: no optimised Cranelift code replaces it;
    // neither does any for a kernel whose quick code alone is past the
    // optimised tier's size (its optimised code, which adds a copy of the
    // body for full chunks, would be larger still).
    if policy != Tiers::Both
        || compiled._avx512.is_some()
        || compiled.past_optimised_cap
        || compiled.clif_insts > OPTIMISED_MAX_CLIF
    {
        return Ok(compiled);
    }
    // The optimised code: same module, same options, the quick code's
    // module-scope data (program-scope variables keep their values across
    // the switch).
    let upgrade = Arc::new(Upgrade::new());
    let job = {
        let (module, name) = (module.clone(), kernel.to_string());
        let opts = JitOptions {
            dump_clif: false,
            // At the quick code's width where its frame made it narrower.
            simd_width: match compiled.narrowed_from {
                Some(_) => Some(compiled.simd_width),
                None => opts.simd_width,
            },
            ..opts.clone()
        };
        let (entry, wide, upgrade, data) = (
            compiled.entry.clone(),
            compiled.wide.clone(),
            upgrade.clone(),
            compiled.data_base(),
        );
        let (layout, bound) = (compiled.layout(), compiled.group_bound);
        let needs = compiled.local_needs.clone();
        let trusted = compiled.launch_trusted();
        move || {
            let started = Instant::now();
            let done = guarded(&name, || {
                compile(
                    &module,
                    &name,
                    &opts,
                    Tier::Optimised,
                    Some(data),
                    0,
                    (Trust::GroupsAndLaunch, Width::MayNarrow),
                )
            })
            .ok()
            // The runtime sizes argument blocks, `__local` memory and
            // context areas from the quick tier's answers: the optimised
            // code is used only if it agrees with all of them (and trusts
            // the groups `run_groups` lets it run); code kept in the quick
            // tier for its size replaces nothing.
            .filter(|k| {
                !k.past_optimised_cap
                    && k.layout() == layout
                    && k.group_bound == bound
                    && k.local_needs == needs
                    && k.launch_trusted() == trusted
            })
            .map(|k| {
                let (f, wide_f) = (k.entry.get(), k.wide.get_if_set());
                (k._code, f, wide_f)
            });
            upgrade.finish(&entry, &wide, done, started.elapsed());
        }
    };
    if tiers::in_background(Box::new(job)) {
        compiled.upgrade = Some(upgrade);
    }
    Ok(compiled)
}

/// The most CLIF instructions a kernel's function may have to be compiled
/// in the optimised tier. Its backtracking register allocator's time grows
/// faster than the code: random kernels of `vecl fuzz` of 102,017 (seed
/// 880251) and 75,517 (seed 4242000) CLIF instructions at W = 32 took 43
/// and 14 s of CPU in it, where the quick tier's single-pass allocator
/// takes about a second. Past this the kernel keeps the quick code
/// (`--explain` says so); the corpus' largest kernels at W = 32
/// (`geometric_extremes`, 57,739, 1.2 s) and the benchmarks' stay below.
pub const OPTIMISED_MAX_CLIF: usize = 60_000;

/// What checked code may trust of the launches it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trust {
    /// Nothing: every access not proven for all launches is tested.
    Nothing,
    /// A group bound (`CompiledKernel::group_bound`).
    Groups,
    /// That, and the accesses proven at launch (`crate::launch_proofs`).
    GroupsAndLaunch,
}

/// Whether a compile whose code's frame is past [`crate::MAX_FRAME_BYTES`]
/// may compile the kernel again at half the width (`crate::frame`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    /// The kernel's own compile: narrower until the frame fits.
    MayNarrow,
    /// A copy that must have the width of the code it stands beside (the
    /// wide code's deferred fallback, the lane and trusting copies): a
    /// frame past the limit is `JitError::FrameTooLarge` at once, since a
    /// narrower copy could not run that code's launches.
    Fixed,
}

/// Compiles `kernel` with `tier`'s register allocator. `shared_data`: the
/// address of an existing module-scope data block (the quick tier's) for
/// the code to use instead of a block of its own. `lanes_along`: 0, or the
/// dimension (1 or 2) whose work-items the lanes of the copy compiled
/// here step along (`lane_axis`). `trust`: what checked code may trust
/// of its launches (a group bound, `CompiledKernel::group_bound`; accesses
/// proven at launch, `CompiledKernel::launch_proofs`). `width`: whether a
/// frame past the limit narrows the kernel or refuses it.
pub(crate) fn compile(
    module: &Module,
    kernel: &str,
    opts: &JitOptions,
    tier: Tier,
    shared_data: Option<u64>,
    lanes_along: usize,
    (trust, width): (Trust, Width),
) -> Result<CompiledKernel, JitError> {
    let started = Instant::now();
    let (_, original) = module
        .kernels()
        .find(|(_, f)| f.name == kernel)
        .ok_or_else(|| JitError::NoSuchKernel(kernel.into()))?;
    let unsupported = |what: String| JitError::Unsupported {
        kernel: kernel.to_string(),
        what,
    };
    let codegen = |message: String| JitError::Codegen {
        kernel: kernel.to_string(),
        message,
    };
    if let Some(w) = opts.simd_width {
        if w == 0 || !w.is_multiple_of(4) || w > 64 {
            return Err(unsupported(format!(
                "SIMD width {w} (use a multiple of 4 up to 64)"
            )));
        }
    }
    let mut phases = Phases::new(started, opts.phases);
    // Longer unrolled copies where the wide AVX-512 code may take the
    // kernel (its selection wants W = 16), unchecked: they keep loops'
    // clamped loads off it, and Cranelift's code of them runs slower
    // (`unroll`); under robust access conv5x5's wide code, unrolled, ran
    // slower than Cranelift's of the loop (`docs/wide.md`).
    let wide_unroll = opts.wide
        && !opts.checked
        && crate::wide::select::cpu_supported()
        && opts.simd_width.is_none_or(|w| w == 16);
    let pipeline = Pipeline::new(&PipelineOptions {
        dump: None,
        wide_unroll: wide_unroll || opts.passes.wide_unroll,
        ..opts.passes.clone()
    })
    .map_err(unsupported)?;
    let mut func = match pipeline.run(module, original) {
        Ok(out) => out.function,
        Err(e @ PipelineError::Pass { .. }) => return Err(unsupported(e.to_string())),
        Err(e @ PipelineError::Verify { .. }) => return Err(codegen(e.to_string())),
    };
    // Whether launches of groups one work-item wide in dimension 0 can
    // have a copy with lanes along another dimension, and the copy's IR.
    let lane_obstacle = match lanes_along {
        0 => lane_axis::obstacle(&func),
        d => {
            func = lane_axis::swap_dimensions(&func, d).map_err(unsupported)?;
            None
        }
    };
    let shape_observer = group_shape::observer(module, &func);
    // Work-group collectives become barriers around a combine step over
    // a scratch area added to the module.
    let with_scratch;
    let module = if collectives::has_collectives(&func) {
        with_scratch = collectives::rewrite(module, &mut func).map_err(unsupported)?;
        &with_scratch
    } else {
        module
    };
    phases.mark("passes");
    // The kernel before the rewrite is kept for checked code: its loops
    // cut by barriers are whole there, which bounds their counters
    // (`lower::bounds`, `BeforeRegions`).
    let (func, next_var, before_regions) =
        match regions::region_graph(&func).map_err(unsupported)? {
            Some(g) => (g.func, Some(g.next), opts.checked.then(|| Arc::new(func))),
            None => (func, None, None),
        };
    let before = before_regions.as_deref();
    phases.mark("regions");
    let uni = vecl_ir::analysis::uniformity::analyze(module, &func);
    phases.mark("uniformity");
    // `intel_reqd_sub_group_size(N)`: the sub-group is the chunk.
    let required = original.kernel.as_ref().and_then(|k| k.reqd_sub_group_size);
    if let Some(n) = required {
        if n == 0 || !n.is_multiple_of(4) || n > 64 {
            return Err(unsupported(format!(
                "sub-group size {n} (vecl's sub-groups are SIMD chunks of a multiple of 4 up to 64 work-items)"
            )));
        }
    }
    let chosen_width = required.or(opts.simd_width);
    let w = chosen_width.unwrap_or_else(|| default_width(module, &func, &uni));
    // A loop's lane-by-lane accesses make Cranelift's code narrower (8),
    // but the wide code makes each one gather or scatter instruction:
    // such a kernel is offered to the wide code at 16 first, and keeps 8
    // only if it refuses (`docs/wide.md`, "Gathers in loops"). So is a
    // barrier kernel given 32 for its short regions that scatters (the
    // FFT's butterflies `b[j]`, `b[j + span]`): Cranelift's 32 lanes are
    // eight 128-bit pieces and a scalar store per lane and component, its
    // lane extracted, the wide code's 16 one register and one `vpscatterdd`
    // per component (`docs/wide.md`, "The FFT on the wide code").
    let offer_wide_16 = chosen_width.is_none()
        && (w == 8 && lane_work_in_loops(module, &func, &uni)
            || w == crate::width::WIDE_WIDTH
                && vecl_ir::contains_barrier(&func.body.0)
                && crate::width::lane_stores(module, &func, &uni))
        && opts.wide
        && crate::wide::select::cpu_supported();
    let (arg_slots, args_size) = layout::arg_slots(module, original);
    let mut used = vec![false; module.globals.len()];
    for d in &func.insts {
        if let Inst::GlobalAddr(g) = d.inst {
            if let Some(u) = used.get_mut(g.index()) {
                *u = true;
            }
        }
    }
    let (places, static_local_size, bytes) = layout::global_places(module, &used);
    let data = match shared_data {
        Some(_) => layout::data_block(&[]),
        None => {
            let mut block = layout::data_block(&bytes);
            layout::apply_relocs(module, &places, &mut block);
            block
        }
    };
    let data_base = shared_data.unwrap_or(data.as_ptr() as u64);
    let data_len = bytes.len() as u64;
    // Checked mode appends its tail after the parameters (8-aligned).
    let checks = opts.checked.then_some(args_size);
    let group_bound = if opts.checked && trust != Trust::Nothing {
        let reqd = original
            .kernel
            .as_ref()
            .and_then(|k| k.reqd_work_group_size);
        lower::bounds::trusted_group_bound(module, &func, before, reqd)
    } else {
        None
    };
    let local_needs = match group_bound {
        Some(l) => lower::bounds::local_param_needs(module, &func, before, l),
        None => Vec::new(),
    };
    let launch_proofs = if opts.checked && trust == Trust::GroupsAndLaunch {
        let unproven = lower::bounds::unproven_accesses(module, &func, before, group_bound);
        LaunchProofs::select(module, &func, &arg_slots, &unproven).map(Arc::new)
    } else {
        None
    };
    let launch_trusted: Arc<[(vecl_ir::ValueId, u32)]> = launch_proofs
        .as_ref()
        .map_or_else(Vec::new, |p| p.trusted())
        .into();
    let wide_trusted = if opts.checked {
        lower::bounds::small_trusted_accesses(module, &func, before, group_bound, &launch_trusted)
    } else {
        Vec::new()
    };
    let args_size = match checks {
        Some(tail) => tail + abi::checked_offsets::tail_size(arg_slots.len()),
        None => args_size,
    };

    let isa = host_isa(tier).map_err(|e| codegen(format!("creating the JIT: {e}")))?;
    let has_fma = host_has_fma(tier, &*isa);
    // The JIT module (its 256 MiB reservation) is made only when a
    // Cranelift function is lowered here.
    let mut jit: Option<JITModule> = None;
    let stream_min_items = opts.stream_min_items;
    let prefetch_on = opts.prefetch != Prefetch::Off;
    let input = |w: u32| lower::chunks::KernelInput {
        module,
        func: &func,
        uni: &uni,
        w,
        places: places.clone(),
        data_base,
        arg_slots: arg_slots.clone(),
        has_fma,
        next_var,
        checks: checks.map(|tail| {
            lower::bounds::Checks::new(
                tail as u32,
                data_len,
                group_bound,
                launch_trusted.clone(),
                before_regions.clone(),
            )
        }),
        local_checks: opts.checked && opts.local_checks,
        full_copy: tier == Tier::Optimised,
        stream_min_items,
        prefetch: prefetch_on,
        lanes_along,
    };
    let mut fctx = FunctionBuilderContext::new();
    let local_checks = opts.local_checks
        && (crate::lower::races::has_local_memory(module, &arg_slots, &places)
            || vecl_ir::contains_barrier(&func.body.0));
    let mut request = crate::wide::select::Request {
        asked: opts.wide,
        checked_tail: checks.map(|t| t as u32),
        // Checked mode adds nothing to a kernel with no `__local`
        // memory and no barrier: it may take the wide code, as robust
        // access does.
        local_checks,
        stream_min_items,
        prefetch: prefetch_on,
        lanes_along,
        w,
        module,
        func: &func,
        uni: &uni,
        slots: &arg_slots,
        places: &places,
        next: next_var,
        trusted: &wide_trusted,
        rsqrt_newton: opts.rsqrt.newton(),
    };
    // The wide code, or why not; its frame is its spill slots (8 bytes
    // each) and a few words, and one past the limit leaves the kernel
    // Cranelift's code.
    let choose_wide = |request: &crate::wide::select::Request| {
        let avx512 = crate::wide::select::choose(request, fallback_never_taken);
        let wide_frame = avx512.code().map_or(0, |c| c.spill_slots * 8 + 4096);
        if wide_frame > crate::MAX_FRAME_BYTES {
            crate::wide::select::Choice::Refused(format!(
                "its frame of {wide_frame} bytes is past the {} a kernel may use",
                crate::MAX_FRAME_BYTES
            ))
        } else {
            avx512
        }
    };
    // The wide AVX-512 code is tried first. A kernel that gets it runs it
    // for every launch whose ids fit in 31 bits; its Cranelift code, the
    // fallback for the others, is compiled only when such a launch comes
    // (`CompiledKernel::prepare`), so that the first result does not wait
    // for both code generators. The entry's own jump to its fallback is
    // never taken: `prepare` sends those launches to the Cranelift code
    // before the entry is called.
    //
    // A kernel without barriers (no region graph, no context per chunk,
    // no barrier sites) whose CLIF is not asked for is not even lowered
    // to CLIF when it gets the wide code: what the lowering tells about
    // it at build (its private memory, on the stack or in the context
    // area, and the refusal of too much of it) comes from its private
    // layout (`lower::chunks::facts_unlowered`), and the report, whose
    // counts are the lowering's, is made at its first request
    // (`CompiledKernel::explain`). Other kernels are lowered first (what
    // the lowering tells — context, barrier sites, the report — is
    // needed either way); that CLIF is compiled only when the wide code
    // is not chosen.
    let lazy = opts.lazy_lowering
        && !opts.dump_clif
        && next_var.is_none()
        && !vecl_ir::contains_barrier(&func.body.0);
    // What the lowering would tell of a kernel not lowered (its errors
    // first, as the lowering's would come before the wide code's).
    let mut choice = None;
    let mut w = w;
    // Why the wide code refused the kernel at 16, which says more than
    // the refusal of W = 8.
    let mut refused_at_16 = None;
    if offer_wide_16 {
        match choose_wide(&crate::wide::select::Request { w: 16, ..request }) {
            c if c.entry().is_some() => {
                (w, request.w) = (16, 16);
                choice = Some(c);
            }
            crate::wide::select::Choice::Refused(why) => refused_at_16 = Some(why),
            _ => {}
        }
        phases.mark("wide");
    }
    let unlowered = match lazy {
        true => Some(lower::chunks::facts_unlowered(module, &func, w)?),
        false => None,
    };
    if lazy && choice.is_none() {
        choice = Some(choose_wide(&request));
        phases.mark("wide");
    }
    let lowered_main = if lazy && choice.as_ref().is_some_and(|c| c.entry().is_some()) {
        None
    } else {
        let j = jit.insert(new_jit_module(isa).map_err(codegen)?);
        phases.mark("jit module");
        let l = crate::define::lower_kernel_function(
            j,
            &mut fctx,
            kernel,
            &format!("vecl_kernel_{kernel}"),
            input(w),
            opts.dump_clif,
        )?;
        phases.mark("lowering");
        Some(l)
    };
    let avx512 = match choice {
        Some(c) => c,
        None => {
            let c = choose_wide(&request);
            phases.mark("wide");
            c
        }
    };
    let avx512 = match (avx512, refused_at_16) {
        (crate::wide::select::Choice::Refused(_), Some(why)) => {
            crate::wide::select::Choice::Refused(format!(
                "{why} (at W = 16; W = {w} for Cranelift's code)"
            ))
        }
        (c, _) => c,
    };
    // Whether the wide code prefetches: launches too small to gain from
    // it then run a copy compiled without prefetches, made at the
    // `UNPREFETCHED_AFTER`-th such launch (`CompiledKernel::prepare`),
    // so that a kernel launched once pays nothing for it. Only for a
    // kernel without `__local` memory or barriers: its regions' copy
    // costs more to make (tens of milliseconds for `benches/programs.py`'s
    // tridiagonal solver against 0.4–2.2 for FDTD's kernels), for chunks
    // whose flag tests are a smaller share of their work.
    let unprefetched_from = match &avx512 {
        crate::wide::select::Choice::Wide(c) if request.prefetch && c.memory.prefetched > 0 => {
            avx512.entry().map(|e| e as usize)
        }
        _ => None,
    };
    let wide_frame = avx512.code().map_or(0, |c| c.spill_slots * 8 + 4096);
    let deferred = avx512.entry().is_some();
    // A kernel too large for the optimised tier's register allocator
    // (`OPTIMISED_MAX_CLIF`) is compiled in the quick tier instead.
    let clif_insts = lowered_main.as_ref().map_or(0, |l| l.clif_insts);
    if tier == Tier::Optimised && !deferred && clif_insts > OPTIMISED_MAX_CLIF {
        drop(jit);
        let mut k = compile(
            module,
            kernel,
            opts,
            Tier::Quick,
            shared_data,
            lanes_along,
            (trust, width),
        )?;
        // No optimised Cranelift code replaces it.
        k.edit_explain(|text| {
            *text = text.replace("; the optimised code replaces it when ready", "");
            let at = text.trim_end().rfind('\n').map_or(0, |i| i + 1);
            text.insert_str(
                at,
                &format!(
                    "tier: quick, not optimised: its optimised code has {clif_insts} CLIF instructions, more than the {OPTIMISED_MAX_CLIF} the optimised tier's register allocator takes\n"
                ),
            );
        });
        k.past_optimised_cap = true;
        return Ok(k);
    }
    let main = match (lowered_main, unlowered) {
        (Some(l), _) if deferred => MainCode::Lowered(l),
        (None, Some(facts)) if deferred => MainCode::Unlowered(facts),
        (Some(l), _) => {
            let without_prefetch = lower::chunks::KernelInput {
                prefetch: false,
                ..input(w)
            };
            let j = jit
                .as_mut()
                .ok_or_else(|| codegen("a lowered function without its JIT module".into()))?;
            MainCode::Compiled(crate::define::define_lowered(
                j,
                &mut fctx,
                kernel,
                &format!("vecl_kernel_{kernel}"),
                l,
                without_prefetch,
                opts,
                opts.dump_clif,
            )?)
        }
        (None, _) => return Err(codegen("the kernel was not lowered".into())),
    };
    // The wide copy: dropped if it cannot be made or would not share the
    // main code's launches (it is an optimisation only).
    let compiled_main = match &main {
        MainCode::Compiled(f) => Some(f),
        MainCode::Lowered(_) | MainCode::Unlowered(_) => None,
    };
    let ww = compiled_main.and_then(|main| {
        wide_width(tier, opts, w, &func, &uni)
            .filter(|_| required.is_none())
            .filter(|_| {
                let l = &main.lowered;
                l.regions == 1 && l.chunk_bytes == 0 && l.fixed_context_bytes == 0
            })
    });
    let wide = ww.zip(jit.as_mut()).and_then(|(ww, jit)| {
        define_kernel_function(
            jit,
            &mut fctx,
            kernel,
            &format!("vecl_kernel_{kernel}_w{ww}"),
            input(ww),
            opts,
            false,
        )
        .ok()
        .filter(|f| {
            let l = &f.lowered;
            l.regions == 1 && l.chunk_bytes == 0 && l.fixed_context_bytes == 0
        })
    });
    phases.mark("codegen");
    // A frame that may not fit a thread's stack (`crate::frame`): the
    // optional copy at the wide width is dropped; the kernel is compiled
    // again at half the width (values half the size), down to 4 lanes,
    // unless the kernel requires its sub-group size; else refused.
    let wide = wide.filter(|f| f.frame_bytes <= crate::MAX_FRAME_BYTES);
    let main_frame = match &main {
        MainCode::Compiled(f) => f.frame_bytes,
        // Compiled at its first use, by `compile` again: its frame is
        // held to the limit there.
        MainCode::Lowered(_) | MainCode::Unlowered(_) => 0,
    };
    let frame_bytes = main_frame.max(wide.as_ref().map_or(0, |f| f.frame_bytes));
    if frame_bytes > crate::MAX_FRAME_BYTES {
        drop(jit);
        if w <= 4 || required.is_some() || width == Width::Fixed {
            return Err(JitError::FrameTooLarge {
                kernel: kernel.to_string(),
                bytes: frame_bytes,
                limit: crate::MAX_FRAME_BYTES,
            });
        }
        let narrower = JitOptions {
            simd_width: Some(w / 2),
            ..opts.clone()
        };
        let mut k = compile(
            module,
            kernel,
            &narrower,
            tier,
            shared_data,
            lanes_along,
            (trust, width),
        )?;
        let simd_width = k.simd_width;
        k.edit_explain(|text| {
            let at = text.trim_end().rfind('\n').map_or(0, |i| i + 1);
            text.insert_str(
                at,
                &format!(
                    "width: {simd_width} instead of {w}, whose code needs a stack frame of {frame_bytes} bytes (at most {} fit)\n",
                    crate::MAX_FRAME_BYTES
                ),
            );
        });
        k.narrowed_from = Some(w);
        return Ok(k);
    }
    if let Some(j) = jit.as_mut() {
        j.finalize_definitions()
            .map_err(|e| codegen(e.to_string()))?;
    }
    phases.mark("finalize");
    let frame_bytes = frame_bytes.max(wide_frame);
    if let (true, Some(c)) = (opts.disasm, avx512.code()) {
        // As `finalized_entry` does for Cranelift's code: the bytes in a
        // file named by their load address, for `scripts/jitprof.py`.
        let at = c.bytes().as_ptr() as usize;
        let path = std::env::temp_dir().join(format!("vecl-jit-{kernel}-wide-{at:x}.bin"));
        let _ = std::fs::write(&path, c.bytes());
        eprintln!("wide code of {kernel} written to {}", path.display());
    }
    let wide_code = wide
        .as_ref()
        .zip(jit.as_ref())
        .map(|(f, jit)| finalized_entry(jit, kernel, f));
    let wide_streams = wide
        .as_ref()
        .is_some_and(|f| f.lowered.stats.streamed_stores > 0);
    let lowered_now = !matches!(main, MainCode::Unlowered(_));
    let (code, lowered, clif, clif_insts) = match main {
        MainCode::Compiled(main) => {
            phases.report(
                kernel,
                func.insts.len(),
                main.clif_insts,
                [main.folded, main.unparams, main.code_bytes],
            );
            let code = jit.as_ref().map(|jit| finalized_entry(jit, kernel, &main));
            (code, main.lowered, main.clif, main.clif_insts)
        }
        MainCode::Lowered(l) => {
            phases.report(
                kernel,
                func.insts.len(),
                l.clif_insts,
                [l.folded, l.unparams, 0],
            );
            (None, l.lowered, l.clif, l.clif_insts)
        }
        MainCode::Unlowered(facts) => {
            phases.report(kernel, func.insts.len(), 0, [0, 0, 0]);
            (None, facts, None, 0)
        }
    };
    // The Cranelift code is compiled unless the wide code was chosen.
    let entry_fn = avx512
        .entry()
        .or(code)
        .ok_or_else(|| codegen("neither code generator produced an entry".into()))?;
    let entry = Arc::new(Entry::new(entry_fn));
    // What compiles this kernel again at a launch that needs it, with
    // `opts` (its width fixed) in place of the kernel's options.
    let deferred_copy = |opts: JitOptions, asked: Option<JitOptions>| Fallback {
        module: module.clone(),
        opts: JitOptions {
            dump_clif: false,
            simd_width: Some(w),
            ..opts
        },
        tier,
        data: data_base,
        lanes_along,
        trust,
        width,
        asked,
        code: OnceLock::new(),
    };
    let fallback = deferred.then(|| {
        Box::new(deferred_copy(
            JitOptions {
                wide: false,
                ..opts.clone()
            },
            (!lowered_now).then(|| opts.clone()),
        ))
    });
    // Its wide code without prefetches (see `Unprefetched`).
    let unprefetched = unprefetched_from.map(|main| {
        Box::new(Unprefetched {
            main,
            small_launches: AtomicU32::new(0),
            copy: deferred_copy(
                JitOptions {
                    prefetch: Prefetch::Off,
                    ..opts.clone()
                },
                None,
            ),
        })
    });
    let wide_entry = Arc::new(match wide_code {
        Some(f) => Entry::new(f),
        None => Entry::none(),
    });
    let elapsed = started.elapsed();

    // A kernel not lowered gets its report at the first request.
    let mut explain = lowered_now.then(|| {
        explain(&Facts {
            kernel,
            w,
            opts,
            tier,
            func: &func,
            uni: &uni,
            lowered: &lowered,
            lanes_along,
            lane_obstacle: &lane_obstacle,
            shape_observer: &shape_observer,
            required,
            has_wide: wide_code.is_some(),
            group_bound,
            trusted_local_params: &local_needs.iter().map(|n| n.param).collect::<Vec<_>>(),
            launch_trusted: launch_trusted.len(),
            clif_insts,
            fallback_deferred: deferred,
            elapsed,
        })
    });
    // Which code the kernel got, before the last line (the compile time).
    if let (Some(explain), Some(line)) = (explain.as_mut(), avx512.explain()) {
        let at = explain.trim_end().rfind('\n').map_or(0, |i| i + 1);
        explain.insert_str(at, &format!("{line}\n"));
    }

    Ok(CompiledKernel {
        name: kernel.to_string(),
        args: arg_slots,
        args_size,
        checked_tail: checks,
        static_local_size,
        // The wide code of a barrier kernel keeps its own chunks' areas.
        chunk_context_bytes: lowered.chunk_bytes.max(avx512.context_bytes_per_item()),
        fixed_context_bytes: lowered.fixed_context_bytes,
        private_per_item: lowered.private_per_item,
        simd_width: w,
        explain: explain.map_or_else(OnceLock::new, OnceLock::from),
        clif,
        entry,
        wide: wide_entry,
        _code: CodeMemory(Mutex::new(jit)),
        upgrade: None,
        only_tier: match tier {
            Tier::Quick => FinalCode::QuickKept,
            Tier::Optimised => FinalCode::Optimised(elapsed),
        },
        _data: data,
        _module_data: None,
        data_at: data_base,
        streams: lowered.stats.streamed_stores > 0 || wide_streams,
        // Set by `compile_kernel` for the kernel's own code.
        lane_copies: None,
        may_swap_lanes: lanes_along == 0 && lane_obstacle.is_none(),
        group_bound,
        local_needs,
        launch_proofs,
        // Set by `compile_kernel_in` and `CompiledKernel::lane_copy`.
        unbounded: None,
        shape_observer,
        barrier_sites: lowered.barrier_sites,
        local_variables: lower::races::local_variables(module, &places),
        frame_bytes,
        narrowed_from: None,
        clif_insts,
        past_optimised_cap: false,
        wide_needs_rows: avx512.needs_rows(),
        _avx512: avx512.into_code(),
        unprefetched,
        fallback,
    })
}

/// The kernel's Cranelift function: compiled, or (for a kernel that got
/// the wide code) only lowered, its compilation left to the first launch
/// that needs it, or (for such a kernel without barriers) not even
/// lowered: what the lowering would tell at build, from its private
/// layout (`lower::chunks::facts_unlowered`).
enum MainCode {
    Compiled(crate::define::DefinedFunction),
    Lowered(crate::define::LoweredFunction),
    Unlowered(lower::chunks::Lowered),
}

/// A JIT module for `isa`, its code and data in one reserved range.
fn new_jit_module(isa: OwnedTargetIsa) -> Result<JITModule, String> {
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    // Code and data of one module in one reserved range: calls between its
    // functions and references to its data are 32-bit PC-relative, which
    // separate allocations (placed wherever the system puts them, gigabytes
    // apart once large buffers are mapped in between) cannot guarantee.
    let arena = ArenaMemoryProvider::new_with_size(CODE_RESERVE)
        .map_err(|e| format!("reserving {CODE_RESERVE} bytes for code: {e}"))?;
    builder.memory_provider(Box::new(arena));
    builder.symbol_lookup_fn(Box::new(|name| match name {
        "vecl_checked_fault" => Some(abi::vecl_checked_fault as *const u8),
        "vecl_barrier_divergence" => Some(abi::vecl_barrier_divergence as *const u8),
        crate::zsincos::SYMBOL => crate::zsincos::address(),
        _ => races::lookup_symbol(name).or_else(|| math::lookup_symbol(name)),
    }));
    Ok(JITModule::new(builder))
}

/// The host's ISA with `tier`'s settings, made once per process for each
/// tier and shared by every module: what `JITBuilder::with_flags` would
/// make again for each (the CPU's features detected, the settings
/// parsed), the same settings as it would give.
fn host_isa(tier: Tier) -> Result<OwnedTargetIsa, String> {
    static ISAS: [OnceLock<Result<OwnedTargetIsa, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = match tier {
        Tier::Quick => &ISAS[0],
        Tier::Optimised => &ISAS[1],
    };
    slot.get_or_init(|| {
        let verifier = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        let mut flags = settings::builder();
        for (name, value) in [
            ("opt_level", tier.opt_level()),
            ("enable_verifier", verifier),
            ("regalloc_algorithm", tier.regalloc()),
            // A frame larger than the thread's stack stops at the guard
            // page (`crate::frame`).
            ("enable_probestack", "true"),
            ("probestack_strategy", "inline"),
            // As `JITBuilder::with_flags` sets them: calls and data within
            // reach of any relocation, no position-independent code.
            ("use_colocated_libcalls", "false"),
            ("is_pic", "false"),
        ] {
            flags.set(name, value).map_err(|e| e.to_string())?;
        }
        cranelift_native::builder()?
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())
    })
    .clone()
}

/// Makes what the code generators make once per process on their first
/// use, so that a process's first build does not: the host ISA of each
/// tier (the CPU's features detected, the settings parsed) and the x86
/// encoder's table of instruction handlers, which the wide code's first
/// assembly would otherwise build (one allocation for each of the
/// encoder's some 4,900 instruction forms). Cheap once made; for the
/// runtime's warm-up, which runs it on a thread of its own.
pub fn make_tables() {
    let _ = host_isa(Tier::Quick);
    let _ = host_isa(Tier::Optimised);
    // Assembling one instruction builds the encoder's handler table.
    if let Ok(mut a) = iced_x86::code_asm::CodeAssembler::new(64) {
        if a.ret().is_ok() {
            let _ = a.assemble(0);
        }
    }
}

/// The fallback the wide entry is built with: never called, since
/// `CompiledKernel::prepare` sends the launches the wide code cannot
/// number to the Cranelift code before the entry runs. Should it be
/// called all the same, the launch fails rather than runs wrong code.
unsafe extern "C" fn fallback_never_taken(
    _args: *const u8,
    _launch: *const abi::Launch,
    _first: u64,
    _end: u64,
    _local: *mut u8,
    _context: *mut u8,
) -> u32 {
    abi::KernelStatus::NoCode as u32
}

/// Whether the host ISA of `tier` (`isa`) has FMA, asked of its flags
/// once per tier: [`isa_has`] lists every flag of the ISA each time.
fn host_has_fma(tier: Tier, isa: &dyn cranelift_codegen::isa::TargetIsa) -> bool {
    static FMA: [OnceLock<bool>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = match tier {
        Tier::Quick => &FMA[0],
        Tier::Optimised => &FMA[1],
    };
    *slot.get_or_init(|| isa_has(isa, "has_fma"))
}

/// Whether the ISA's boolean flag `name` (`has_fma`, `has_cmpxchg16b`, …)
/// is set: the host CPU's features, as Cranelift detected them.
pub(crate) fn isa_has(isa: &dyn cranelift_codegen::isa::TargetIsa, name: &str) -> bool {
    isa.isa_flags()
        .iter()
        .any(|f| f.name == name && f.as_bool() == Some(true))
}

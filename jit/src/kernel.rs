//! The compiled kernel: its machine code, module-scope data and layout,
//! what the runtime asks of it, and how a launch picks the code it runs
//! (the quick or optimised tier, the wide copy, a copy with lanes along
//! another dimension).

use crate::abi::{self, ArgSlot, Launch};
use crate::compile::{compile, guarded, Trust, Width};
use crate::launch_proofs::LaunchProofs;
use crate::tiers::{Entry, FinalCode, Tier, Upgrade};
use crate::width::WIDE_WIDTH;
use crate::{lane_axis, layout, regions, JitOptions};
use cranelift_jit::JITModule;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use vecl_ir::Module;

pub(crate) type EntryFn =
    unsafe extern "C" fn(*const u8, *const Launch, u64, u64, *mut u8, *mut u8) -> u32;

/// The executable memory of one kernel.
pub(crate) struct CodeMemory(pub(crate) Mutex<Option<JITModule>>);

impl Drop for CodeMemory {
    fn drop(&mut self) {
        let module = match self.0.get_mut() {
            Ok(m) => m.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(m) = module {
            // SAFETY: the owning `CompiledKernel` is being dropped, so no
            // function pointer into this module can be called any more.
            unsafe { m.free_memory() };
        }
    }
}

/// A kernel compiled to machine code. `Send + Sync`: the code and data are
/// immutable after compilation and every call gets its own memory.
pub struct CompiledKernel {
    pub(crate) name: String,
    pub(crate) args: Vec<ArgSlot>,
    pub(crate) args_size: usize,
    /// Offset of the checked-mode tail in the argument block.
    pub(crate) checked_tail: Option<usize>,
    pub(crate) static_local_size: usize,
    pub(crate) chunk_context_bytes: usize,
    /// Context bytes independent of the group size (large private memory
    /// of a kernel without barriers).
    pub(crate) fixed_context_bytes: usize,
    pub(crate) simd_width: u32,
    /// `private_mem_size`.
    pub(crate) private_per_item: u32,
    /// The report: made at build, or, for a kernel that got the wide code
    /// without being lowered to CLIF, at its first request
    /// ([`explain`](Self::explain)).
    pub(crate) explain: OnceLock<String>,
    pub(crate) clif: Option<String>,
    /// The code launches run: the quick tier's until the optimised code
    /// replaces it (see `tiers`).
    pub(crate) entry: Arc<Entry>,
    /// The optimised code's copy at [`WIDE_WIDTH`] lanes per chunk, for
    /// launches whose groups split into whole chunks of that width; empty
    /// when the kernel has none (see `wide_width`) or until the
    /// optimised code replaces the quick code.
    pub(crate) wide: Arc<Entry>,
    pub(crate) _code: CodeMemory,
    /// The optimised compilation running in the background, if any.
    pub(crate) upgrade: Option<Arc<Upgrade>>,
    /// How the code of this kernel came about when there is no upgrade.
    pub(crate) only_tier: FinalCode,
    /// CLIF instructions of the kernel's Cranelift function (lowered
    /// only, where the wide code runs).
    pub(crate) clif_insts: usize,
    /// Compiled in the quick tier where the optimised one was asked for:
    /// its code is past `compile::OPTIMISED_MAX_CLIF`.
    pub(crate) past_optimised_cap: bool,
    /// Module-scope `__constant`/`__global` data the code addresses directly
    /// (empty when the code uses another kernel's or the module's block).
    pub(crate) _data: Box<[layout::DataLine]>,
    /// The module's shared block, when the code uses it ([`compile_kernel_in`](crate::compile_kernel_in)).
    pub(crate) _module_data: Option<Arc<ModuleData>>,
    /// Where the code's module-scope data is.
    pub(crate) data_at: u64,
    /// Some store may be non-temporal (`lower::stream`): `run_groups`
    /// fences after the code.
    pub(crate) streams: bool,
    /// The copies with lanes along dimension 1 or 2, for launches whose
    /// groups are one work-item wide in dimension 0 (see `lane_axis`);
    /// `None` for a kernel that cannot have them and for such a copy
    /// itself.
    pub(crate) lane_copies: Option<Box<LaneCopies>>,
    /// This is the kernel's own code (lanes along dimension 0) and it can
    /// have [`LaneCopies`].
    pub(crate) may_swap_lanes: bool,
    /// Checked code that trusts every group of its launches to be at most
    /// this many work-items in each dimension (accesses proven for such
    /// groups are not tested: `lower::bounds::trusted_group_bound`).
    pub(crate) group_bound: Option<u64>,
    /// What that code trusts the `__local` parameters to hold
    /// (`lower::bounds::LocalNeed`): launches that give one less run the
    /// copy without the trust.
    pub(crate) local_needs: Vec<crate::lower::bounds::LocalNeed>,
    /// Accesses that code trusts to be proven in bounds by each launch it
    /// runs (`crate::launch_proofs`): launches that do not prove them run
    /// a copy without the trust.
    pub(crate) launch_proofs: Option<Arc<LaunchProofs>>,
    /// The copies without those trusts, for the launches that break them.
    pub(crate) unbounded: Option<Box<Unbounded>>,
    /// Why the kernel can observe its work-groups' shape (`group_shape`);
    /// `None` when it cannot.
    pub(crate) shape_observer: Option<String>,
    /// Each barrier's number and source position in a region graph, for
    /// [`describe_divergence`](Self::describe_divergence).
    pub(crate) barrier_sites: Vec<(u32, vecl_ir::Loc)>,
    /// The kernel's `__local` variables (name, arena offset, bytes), for
    /// the reports of the `__local` checks.
    pub(crate) local_variables: Vec<(String, u64, u64)>,
    /// The wide AVX-512 code the entry runs, if the kernel got it.
    pub(crate) _avx512: Option<crate::wide::entry::KernelCode>,
    /// The kernel compiled again without prefetches, for the launches of
    /// fewer than [`PREFETCH_MIN_ITEMS`](crate::wide::access::PREFETCH_MIN_ITEMS)
    /// work-items (`prepare`, see [`Unprefetched`]). `None` when the wide
    /// code prefetches nothing.
    pub(crate) unprefetched: Option<Box<Unprefetched>>,
    /// The Cranelift code of a kernel whose entry is the wide code, when
    /// it is compiled at the first launch that needs it (see [`Fallback`]);
    /// `None` when the entry itself holds it.
    pub(crate) fallback: Option<Box<Fallback>>,
    /// For wide code chosen only for its rows in flight
    /// (`wide::select::Choice::needs_rows`): the fewest rows of a group a
    /// launch must give it; launches whose groups are wider than a chunk
    /// or have fewer rows run the fallback.
    pub(crate) wide_needs_rows: Option<u32>,
    /// The largest stack frame of the Cranelift code (`crate::frame`).
    pub(crate) frame_bytes: usize,
    /// The width asked for, where the code's frame at that width was too
    /// large and it was compiled narrower (`crate::frame`).
    pub(crate) narrowed_from: Option<u32>,
}

/// What compiling a copy of a kernel with lanes along another dimension
/// needs, and the copies once compiled (each at the first launch that
/// wants it).
pub(crate) struct LaneCopies {
    pub(crate) module: Module,
    pub(crate) opts: JitOptions,
    pub(crate) tier: Tier,
    /// The module-scope data block of the kernel, which the copies share.
    pub(crate) data: u64,
    /// Lanes along dimension 1, and along dimension 2: `None` inside when
    /// the copy could not be made or would not share the kernel's launches.
    pub(crate) along: [OnceLock<Option<CompiledKernel>>; 2],
}

/// What compiling the copies of a kernel that trust less of their
/// launches needs, and the copies once compiled (each at the first launch
/// that needs it): the one that trusts no group size
/// ([`CompiledKernel::group_bound`]) nor any access proven at launch, and
/// the one that trusts the group size but no access proven at launch
/// ([`CompiledKernel::launch_proofs`]).
pub(crate) struct Unbounded {
    module: Module,
    opts: JitOptions,
    tier: Tier,
    data: u64,
    lanes_along: usize,
    /// `None` inside when the copy could not be made or would not share
    /// the kernel's launches.
    copy: OnceLock<Option<CompiledKernel>>,
    /// The copy trusting the group size only.
    groups_only: OnceLock<Option<CompiledKernel>>,
}

impl Unbounded {
    /// For `kernel`, compiled from `module` with `opts` (`lanes_along` as
    /// in `compile`), when it trusts a group bound; the copy is compiled
    /// in `tier`.
    pub(crate) fn for_kernel(
        kernel: &CompiledKernel,
        module: &Module,
        opts: &JitOptions,
        tier: Tier,
        lanes_along: usize,
    ) -> Option<Box<Unbounded>> {
        if kernel.group_bound.is_none() && kernel.launch_proofs.is_none() {
            return None;
        }
        Some(Box::new(Unbounded {
            module: module.clone(),
            opts: JitOptions {
                simd_width: Some(kernel.simd_width),
                dump_clif: false,
                ..opts.clone()
            },
            tier,
            data: kernel.data_base(),
            lanes_along,
            copy: OnceLock::new(),
            groups_only: OnceLock::new(),
        }))
    }
}

/// The code one launch runs, chosen once for all of its ranges by
/// [`CompiledKernel::prepare`]: an entry and the launch as that entry sees
/// it (its stop flag set; its dimensions exchanged for a copy with lanes
/// along another dimension).
#[derive(Clone, Copy, Debug)]
pub struct PreparedLaunch {
    /// `None`: no code may run the launch (a copy it needs could not be
    /// made); every range returns `KernelStatus::Trap`.
    entry: Option<EntryFn>,
    launch: Launch,
    /// Some store of the code may be non-temporal: fence after it.
    streams: bool,
    /// The entry is the wide code's copy without prefetches.
    unprefetched: bool,
}

impl PreparedLaunch {
    fn refused(launch: Launch) -> PreparedLaunch {
        PreparedLaunch {
            entry: None,
            launch,
            streams: false,
            unprefetched: false,
        }
    }

    /// Whether the launch runs the wide code's copy without prefetches
    /// (a launch of fewer than
    /// [`PREFETCH_MIN_ITEMS`](crate::wide::access::PREFETCH_MIN_ITEMS)
    /// work-items of a kernel whose wide code prefetches).
    pub fn without_prefetches(&self) -> bool {
        self.unprefetched
    }

    /// Runs work-groups `first_group..end_group` of the prepared launch;
    /// returns 0 or a [`abi::KernelStatus`] code.
    ///
    /// # Safety
    /// The kernel this was prepared from is alive; `args` is the block it
    /// was prepared with; `local_mem` and `context` as for
    /// [`CompiledKernel::run_groups`] (the context sized by
    /// [`CompiledKernel::context_size`] after the preparation).
    pub unsafe fn run_groups(
        &self,
        args: *const u8,
        first_group: u64,
        end_group: u64,
        local_mem: *mut u8,
        context: *mut u8,
    ) -> u32 {
        let Some(entry) = self.entry else {
            return abi::KernelStatus::NoCode as u32;
        };
        // SAFETY: the entry has exactly this signature (see `abi`), its
        // code lives as long as the kernel (or the copy of it) that chose
        // it, which the caller keeps alive, and the caller upholds the
        // contract above (the wide copy lays out arguments, `__local`
        // memory and the context like the main code: see `compile`).
        let status = unsafe {
            entry(
                args,
                &self.launch,
                first_group,
                end_group,
                local_mem,
                context,
            )
        };
        // Streaming stores (`lower::stream`) are weakly ordered: make them
        // visible before whatever tells another thread these groups ran.
        #[cfg(target_arch = "x86_64")]
        if self.streams {
            // SAFETY: `sfence` has no preconditions (SSE is part of x86-64).
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
        status
    }
}

/// A kernel that got the wide AVX-512 code compiles its Cranelift code,
/// which runs the launches whose ids the wide code cannot number (past 31
/// bits), only when such a launch comes: what compiling it needs, and the
/// code once compiled.
pub(crate) struct Fallback {
    pub(crate) module: Module,
    pub(crate) opts: JitOptions,
    pub(crate) tier: Tier,
    pub(crate) data: u64,
    pub(crate) lanes_along: usize,
    pub(crate) trust: Trust,
    /// How the kernel's own compile could change its width.
    pub(crate) width: Width,
    /// The options the kernel was compiled with, where it was not lowered
    /// to CLIF: its report is made from a compile that lowers it.
    pub(crate) asked: Option<JitOptions>,
    /// `None` inside when it could not be made or would not fit the
    /// kernel's launches.
    pub(crate) code: OnceLock<Option<CompiledKernel>>,
}

/// How many launches too small to prefetch for a kernel's wide code runs
/// before its copy without prefetches is made (see `CompiledKernel`'s
/// `prepare`).
pub const UNPREFETCHED_AFTER: u32 = 8;

/// What compiles a kernel's wide code again without prefetches, at its
/// [`UNPREFETCHED_AFTER`]-th launch of fewer than
/// [`PREFETCH_MIN_ITEMS`](crate::wide::access::PREFETCH_MIN_ITEMS)
/// work-items. Such a launch's streams stay in the core's caches, where
/// the fixed prefetch only spends instructions: skipped at run time by
/// the entry's flag, its tests still cost a short chunk its issue slots
/// (FDTD's 256² steps 6–8 % on one thread, `docs/wide.md`). Made late so
/// that a kernel launched once or twice (and its first result) pays
/// nothing for the copy; a chain of small launches pays one compile.
pub(crate) struct Unprefetched {
    /// The entry the copy stands in for (the wide code's, as an address).
    pub(crate) main: usize,
    /// Small launches of the wide code so far.
    pub(crate) small_launches: AtomicU32,
    /// The kernel's module and options, `prefetch` off and the width
    /// fixed: compiled as the deferred Cranelift code is.
    pub(crate) copy: Fallback,
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledKernel")
            .field("name", &self.name)
            .field("simd_width", &self.simd_width)
            .finish()
    }
}

impl CompiledKernel {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes of the largest stack frame of the kernel's Cranelift code
    /// (at most [`crate::MAX_FRAME_BYTES`]; the wide AVX-512 code's own
    /// frame is not counted).
    pub fn frame_bytes(&self) -> usize {
        self.frame_bytes
    }

    pub fn args(&self) -> &[ArgSlot] {
        &self.args
    }

    /// Bytes of the argument block, the checked-mode tail included.
    pub fn args_size(&self) -> usize {
        self.args_size
    }

    /// Checked mode: the offset of the tail (fault record address and
    /// bounds table, see [`abi`]) the runtime fills; `None` when the kernel
    /// was compiled unchecked.
    pub fn checked_tail(&self) -> Option<usize> {
        self.checked_tail
    }

    pub fn static_local_size(&self) -> usize {
        self.static_local_size
    }

    /// Bytes of context area a worker must pass for groups of
    /// `items_per_group` work-items: the chunks' areas of a kernel with
    /// barriers, or the private memory too large for the stack of one
    /// without (0 for most kernels without barriers).
    pub fn context_size(&self, items_per_group: u64) -> usize {
        // A group has at most one chunk per work-item (rows of one item).
        let own = self
            .chunk_context_bytes
            .saturating_mul(usize::try_from(items_per_group).unwrap_or(usize::MAX))
            .saturating_add(self.fixed_context_bytes);
        // The Cranelift code compiled for launches the wide code cannot
        // number (`prepare`) may need more.
        let fallback = self
            .fallback
            .as_deref()
            .and_then(|f| f.code.get())
            .and_then(Option::as_ref)
            .map_or(0, |k| k.context_size(items_per_group));
        // So may the copy without prefetches, once made.
        let unprefetched = self
            .unprefetched
            .as_deref()
            .and_then(|u| u.copy.code.get())
            .and_then(Option::as_ref)
            .map_or(0, |k| k.context_size(items_per_group));
        // So may the copies trusting fewer groups (`Unbounded`), once
        // made.
        let copies = self.unbounded.as_deref().map_or(0, |u| {
            [&u.copy, &u.groups_only]
                .iter()
                .filter_map(|c| c.get().and_then(Option::as_ref))
                .map(|k| k.context_size(items_per_group))
                .max()
                .unwrap_or(0)
        });
        own.max(fallback).max(unprefetched).max(copies)
    }

    pub fn simd_width(&self) -> u32 {
        self.simd_width
    }

    /// Bytes of private memory one work-item has (its private variables
    /// and arrays, as the JIT lays them out for a chunk, per work-item).
    pub fn private_mem_size(&self) -> u32 {
        self.private_per_item
    }

    /// Whether the kernel's entry is the wide AVX-512 code (what its
    /// report's `code: wide AVX-512` line says, without making the
    /// report).
    pub fn has_wide_code(&self) -> bool {
        self._avx512.is_some()
    }

    /// A human-readable report of how the kernel was vectorised. A kernel
    /// that got the wide code without being lowered to CLIF (`compile`)
    /// is compiled again here, lowered, for the report's counts (the first
    /// time only; threads asking at once wait for one compile).
    pub fn explain(&self) -> &str {
        self.explain.get_or_init(|| self.explain_lowered())
    }

    /// Edits the report (made first if it is not yet).
    pub(crate) fn edit_explain(&mut self, edit: impl FnOnce(&mut String)) {
        let mut text = self
            .explain
            .take()
            .unwrap_or_else(|| self.explain_lowered());
        edit(&mut text);
        self.explain = OnceLock::from(text);
    }

    /// The report of the compile that lowers the kernel: the same module,
    /// options, tier, data and trust as the kernel's own.
    fn explain_lowered(&self) -> String {
        let Some((f, opts)) = self
            .fallback
            .as_deref()
            .and_then(|f| Some((f, f.asked.as_ref()?)))
        else {
            return format!("kernel {}: no report\n", self.name);
        };
        let opts = JitOptions {
            lazy_lowering: false,
            ..opts.clone()
        };
        match guarded(&self.name, || {
            compile(
                &f.module,
                &self.name,
                &opts,
                f.tier,
                Some(f.data),
                f.lanes_along,
                (f.trust, f.width),
            )
        }) {
            Ok(k) => k.explain.into_inner().unwrap_or_default(),
            Err(e) => format!("kernel {}: the report's compile failed: {e}\n", self.name),
        }
    }

    pub fn clif(&self) -> Option<&str> {
        self.clif.as_deref()
    }

    /// A divergence the entry recorded at a barrier checked at run time
    /// ([`abi::take_barrier_divergence`]), in words: which barrier, which
    /// work-items (local ids) reached it and which went another way.
    pub fn describe_divergence(&self, d: &abi::BarrierDivergence) -> String {
        regions::describe_divergence(&self.barrier_sites, d)
    }

    /// The kernel's own `__local` variable holding byte `offset` of the
    /// `__local` arena, and the offset in it: for the reports of the
    /// `__local` checks ([`races::take_local_report`](crate::races::take_local_report)).
    pub fn local_variable_at(&self, offset: u64) -> Option<(&str, u64)> {
        self.local_variables
            .iter()
            .find(|(_, start, len)| (*start..start + len).contains(&offset))
            // `kernel.t` for a variable `t` declared in a kernel.
            .map(|(name, start, _)| {
                let short = name.rsplit('.').next().unwrap_or(name);
                (short, offset - start)
            })
    }

    /// Bytes of context area `launch` needs: its code is chosen first (as
    /// [`prepare`](Self::prepare) chooses it, compiling a copy it needs),
    /// since a copy may need more than this code
    /// ([`context_size`](Self::context_size)).
    ///
    /// # Safety
    /// As for [`prepare`](Self::prepare).
    pub unsafe fn launch_context_size(&self, args: *const u8, launch: &Launch) -> usize {
        // SAFETY: the caller's contract is `prepare`'s.
        let _ = unsafe { self.prepare(args, launch) };
        self.context_size(launch.items_per_group())
    }

    /// Runs work-groups `first_group..end_group` of `launch`; returns 0 or a
    /// [`abi::KernelStatus`] code. (The code is chosen for this call, as
    /// [`prepare`](Self::prepare) does; a launch split into many ranges
    /// prepares once and runs each range with the [`PreparedLaunch`].)
    ///
    /// # Safety
    /// `args` matches [`args`](Self::args) (pointers valid for every access
    /// the kernel makes); `local_mem` holds `launch.local_mem_size` bytes,
    /// with [`abi::LOCAL_PAD`] readable bytes before and after them, and
    /// `context` [`launch_context_size`](Self::launch_context_size) bytes, both 64-aligned
    /// (128-aligned for `long16` and `double16` `__local` and private
    /// variables to be aligned to their size) and owned by the caller for
    /// the duration of the call.
    pub unsafe fn run_groups(
        &self,
        args: *const u8,
        launch: &Launch,
        first_group: u64,
        end_group: u64,
        local_mem: *mut u8,
        context: *mut u8,
    ) -> u32 {
        // SAFETY: the caller's contract is `prepare`'s and the prepared
        // launch's.
        unsafe {
            let prepared = self.prepare(args, launch);
            prepared.run_groups(args, first_group, end_group, local_mem, context)
        }
    }

    /// Chooses the code a launch runs, once for all its ranges: the copy
    /// with lanes along another dimension for groups one work-item wide
    /// (`lane_axis`), the copy without a trust the launch breaks
    /// (`group_bound`, `launch_proofs`: the proof is computed here, once),
    /// the wide copy for groups of whole wide chunks, or the Cranelift
    /// code for a launch whose ids the wide AVX-512 code cannot number
    /// (compiled now if no launch has needed it yet). Copies not compiled
    /// yet are compiled here, on the calling thread, before any range
    /// runs. [`context_size`](Self::context_size) counts the code chosen
    /// here once it is compiled: ask it after preparing.
    ///
    /// # Safety
    /// `args` is an argument block of this kernel (its checked tail filled
    /// for checked code, `KernelArgs::for_code`), as for
    /// [`run_groups`](Self::run_groups).
    pub unsafe fn prepare(&self, args: *const u8, launch: &Launch) -> PreparedLaunch {
        // The code reads the stop flag through the launch: give a launch
        // without one the flag that is never set.
        let launch = if launch.stop_flag == 0 {
            Launch {
                stop_flag: std::ptr::from_ref(&abi::NEVER_STOP) as u64,
                ..*launch
            }
        } else {
            *launch
        };
        if let Some(copy) = lane_axis::lanes_along(&launch).and_then(|d| self.lane_copy(d)) {
            let (d, copy) = copy;
            let swapped = lane_axis::swapped_launch(&launch, d);
            // SAFETY: the copy shares this kernel's argument layout,
            // `__local` memory and module-scope data and needs no more
            // context (see `lane_copy`); the swapped launch has the same
            // groups, so the caller's contract carries over.
            return unsafe { copy.prepare(args, &swapped) };
        }
        if self.group_bound.is_some() || self.launch_proofs.is_some() {
            let groups_fit = self.group_bound.is_none_or(|bound| {
                // SAFETY: the caller passes an argument block laid out for
                // this kernel, the checked tail included (see above).
                let params_fit = unsafe { self.local_params_fit(args, &launch) };
                launch.local_size.iter().all(|&n| n <= bound) && params_fit
            });
            let proven = groups_fit
                && match (&self.launch_proofs, self.checked_tail) {
                    // SAFETY: as above.
                    (Some(p), Some(tail)) => unsafe { p.hold(args, tail, &launch) },
                    (Some(_), None) => false,
                    (None, _) => true,
                };
            if !proven {
                let copy = match groups_fit && self.group_bound.is_some() {
                    true => self.groups_only_copy(),
                    false => self.unbounded_copy(),
                };
                return match copy {
                    // SAFETY: the copy has this kernel's layout (checked
                    // in `unbounded_copy`): the caller's contract carries
                    // over.
                    Some(copy) => unsafe { copy.prepare(args, &launch) },
                    // The trusting code must not run these groups.
                    None => PreparedLaunch::refused(launch),
                };
            }
        }
        if let Some(fallback) = &self.fallback {
            let rows_idle = self.wide_needs_rows.is_some_and(|rows| {
                launch.local_size[0] > u64::from(WIDE_WIDTH)
                    || launch.local_size[1] < u64::from(rows)
            });
            let id_end = self._avx512.as_ref().map_or(0, |c| c.id_end);
            if rows_idle || !wide_numbers_ids(&launch, id_end) {
                return match self.fallback_code(fallback) {
                    // SAFETY: the fallback shares this kernel's layout and
                    // needs no more context than `context_size` says once
                    // it is compiled (see `fallback_code`).
                    Some(code) => unsafe { code.prepare(args, &launch) },
                    None => PreparedLaunch::refused(launch),
                };
            }
        }
        let whole = |n: u64| n.is_multiple_of(u64::from(WIDE_WIDTH));
        let entry = match self.wide.get_if_set() {
            Some(f) if whole(launch.local_size[0]) && whole(launch.global_size[0]) => f,
            _ => self.entry.get(),
        };
        // A chain of launches too small for prefetching runs the copy
        // without prefetches ([`Unprefetched`]).
        if let Some(u) = &self.unprefetched {
            let items = launch
                .global_size
                .iter()
                .fold(1u64, |n, &d| n.saturating_mul(d));
            if entry as usize == u.main && items < crate::wide::access::PREFETCH_MIN_ITEMS {
                let made = u.copy.code.get().is_some();
                if made
                    || u.small_launches.fetch_add(1, Ordering::Relaxed) + 1 >= UNPREFETCHED_AFTER
                {
                    if let Some(copy) = self.fallback_code(&u.copy) {
                        // SAFETY: the copy has this kernel's layout
                        // (checked in `fallback_code`): the caller's
                        // contract carries over.
                        let mut prepared = unsafe { copy.prepare(args, &launch) };
                        prepared.unprefetched = prepared.entry.is_some();
                        return prepared;
                    }
                }
            }
        }
        PreparedLaunch {
            entry: Some(entry),
            launch,
            streams: self.streams,
            unprefetched: false,
        }
    }

    /// Whether the `__local` parameters of the launch hold what the code
    /// trusts them to for groups of its size ([`LocalNeed`](crate::lower::bounds::LocalNeed)).
    ///
    /// # Safety
    ///
    /// `args` is an argument block of this kernel with its checked tail
    /// filled (`KernelArgs::for_code`).
    unsafe fn local_params_fit(&self, args: *const u8, launch: &Launch) -> bool {
        let Some(tail) = self.checked_tail else {
            return true;
        };
        if self.local_needs.is_empty() {
            return true;
        }
        let largest = launch.local_size.iter().copied().max().unwrap_or(1).max(1);
        let step = largest.next_power_of_two().trailing_zeros() as usize;
        self.local_needs.iter().all(|need| {
            let at = tail
                + (abi::checked_offsets::BOUNDS
                    + abi::checked_offsets::BOUNDS_ENTRY * need.param as i32)
                    as usize;
            // SAFETY: the tail holds a `[start, end)` pair per parameter
            // (see `abi`), inside the block the caller passes.
            let (start, end) = unsafe {
                (
                    std::ptr::read_unaligned(args.add(at).cast::<u64>()),
                    std::ptr::read_unaligned(args.add(at + 8).cast::<u64>()),
                )
            };
            need.bytes
                .get(step)
                .is_some_and(|&n| end.checked_sub(start).is_some_and(|len| len >= n))
        })
    }

    /// The dimension along which the lanes of a chunk step in `launch`:
    /// 0, or 1 or 2 when the launch's groups are one work-item wide in
    /// dimension 0 and the kernel has a copy with lanes along the dimension
    /// that holds its work-items (compiled now if no launch has needed it
    /// yet; see `lane_axis`).
    pub fn lane_dimension(&self, launch: &Launch) -> usize {
        lane_axis::lanes_along(launch)
            .and_then(|d| self.lane_copy(d))
            .map_or(0, |(d, _)| d)
    }

    /// Whether a launch may run this kernel with groups of another shape
    /// than it asked for: the kernel cannot observe the shape (no barrier,
    /// no `__local` memory, no local or group query; see `group_shape`).
    pub fn group_shape_invisible(&self) -> bool {
        self.shape_observer.is_none()
    }

    /// The copy with lanes along dimension `d` (1 or 2), compiled at its
    /// first use; `None` when the kernel has none.
    fn lane_copy(&self, d: usize) -> Option<(usize, &CompiledKernel)> {
        let copies = self.lane_copies.as_deref()?;
        let slot = copies.along.get(d.checked_sub(1)?)?;
        let copy = slot.get_or_init(|| {
            let name = &self.name;
            let module = &copies.module;
            let made = guarded(name, || {
                compile(
                    module,
                    name,
                    &copies.opts,
                    copies.tier,
                    Some(copies.data),
                    d,
                    (Trust::GroupsAndLaunch, Width::Fixed),
                )
            })
            .ok()?;
            let mut made = made;
            made.unbounded = Unbounded::for_kernel(&made, module, &copies.opts, copies.tier, d);
            // The runtime sized the argument block, `__local` memory and
            // the context area for this kernel: the copy must fit them.
            let ok = made.same_layout_but_context(self)
                && made.chunk_context_bytes <= self.chunk_context_bytes
                && made.fixed_context_bytes <= self.fixed_context_bytes;
            ok.then_some(made)
        });
        copy.as_ref().map(|c| (d, c))
    }

    /// The Cranelift code of a kernel whose entry is the wide code, or
    /// its copy without prefetches ([`Unprefetched`]), compiled at its
    /// first use (see [`Fallback`]).
    fn fallback_code<'s>(&'s self, f: &'s Fallback) -> Option<&'s CompiledKernel> {
        let code = f.code.get_or_init(|| {
            let made = guarded(&self.name, || {
                compile(
                    &f.module,
                    &self.name,
                    &f.opts,
                    f.tier,
                    Some(f.data),
                    f.lanes_along,
                    (f.trust, Width::Fixed),
                )
            })
            .ok()?;
            // The runtime sized the argument block and `__local` memory
            // for this kernel; the context area it sizes after `prepare`
            // (`context_size` counts this code's once it is here).
            made.same_layout_but_context(self).then_some(made)
        });
        code.as_ref()
    }

    /// The copy that trusts no group size and no access proven at launch
    /// (see [`Unbounded`]), compiled at its first use.
    fn unbounded_copy(&self) -> Option<&CompiledKernel> {
        let u = self.unbounded.as_deref()?;
        self.trusting_copy(u, &u.copy, Trust::Nothing)
    }

    /// The copy that trusts the group size but no access proven at launch
    /// (see [`Unbounded`]), compiled at its first use.
    fn groups_only_copy(&self) -> Option<&CompiledKernel> {
        let u = self.unbounded.as_deref()?;
        self.trusting_copy(u, &u.groups_only, Trust::Groups)
    }

    fn trusting_copy<'s>(
        &'s self,
        u: &'s Unbounded,
        slot: &'s OnceLock<Option<CompiledKernel>>,
        trust: Trust,
    ) -> Option<&'s CompiledKernel> {
        let copy = slot.get_or_init(|| {
            let made = guarded(&self.name, || {
                compile(
                    &u.module,
                    &self.name,
                    &u.opts,
                    u.tier,
                    Some(u.data),
                    u.lanes_along,
                    (trust, Width::Fixed),
                )
            })
            .ok()?;
            // The copy lays out arguments and `__local` memory as this
            // kernel does; its context may differ (the wide code's save
            // areas against the Cranelift code's), which `context_size`
            // counts once the copy is here. The group-trusting copy must
            // trust the same groups.
            let same = made.same_layout_but_context(self)
                && (trust == Trust::Nothing
                    || (made.group_bound == self.group_bound
                        && made.local_needs == self.local_needs));
            same.then_some(made)
        });
        copy.as_ref()
    }

    /// The accesses this code trusts to be proven at launch (pointer,
    /// bytes).
    pub(crate) fn launch_trusted(&self) -> Vec<(vecl_ir::ValueId, u32)> {
        self.launch_proofs
            .as_ref()
            .map_or_else(Vec::new, |p| p.trusted())
    }

    /// Where the optimised code stands (see `tiers`): still compiling, in
    /// use (and how long it took), or not coming.
    pub fn final_code(&self) -> FinalCode {
        match &self.upgrade {
            Some(u) => u.state(),
            None => self.only_tier,
        }
    }

    /// Waits until the optimised code runs (or is known not to come), for
    /// measurements of the code itself.
    pub fn wait_for_final_code(&self) -> FinalCode {
        match &self.upgrade {
            Some(u) => u.wait(),
            None => self.only_tier,
        }
    }

    /// Whether `other` lays out its argument block, checked tail and
    /// `__local` memory as this code does, at the same width: all of
    /// [`Self::layout`] but the context area, which a copy compiled at
    /// launch may size its own way (`context_size` counts it).
    fn same_layout_but_context(&self, other: &CompiledKernel) -> bool {
        self.args == other.args
            && self.args_size == other.args_size
            && self.checked_tail == other.checked_tail
            && self.static_local_size == other.static_local_size
            && self.simd_width == other.simd_width
    }

    /// Everything the runtime sizes a launch from: what two compilations
    /// of one kernel must agree on to share its launches.
    pub(crate) fn layout(&self) -> (Vec<ArgSlot>, usize, Option<usize>, usize, [usize; 2], u32) {
        (
            self.args.clone(),
            self.args_size,
            self.checked_tail,
            self.static_local_size,
            [self.chunk_context_bytes, self.fixed_context_bytes],
            self.simd_width,
        )
    }

    /// Address of the module-scope data block the code addresses.
    pub(crate) fn data_base(&self) -> u64 {
        self.data_at
    }
}

/// Whether the wide AVX-512 entry numbers every id of `launch` itself:
/// `global_offset + global_size` fits `id_end` (the kernel's bound,
/// `wide::int64::launch_end`: at most [`MAX_ID_END`](crate::wide::entry::MAX_ID_END))
/// in each dimension (the entry's own test, which sends other launches to
/// its fallback).
fn wide_numbers_ids(launch: &Launch, id_end: u64) -> bool {
    let id_end = id_end.min(crate::wide::entry::MAX_ID_END);
    (0..3).all(|d| {
        launch.global_offset[d]
            .checked_add(launch.global_size[d])
            .is_some_and(|end| end <= id_end)
    })
}

/// The module-scope `__constant` and `__global` data of a module, one block
/// that every kernel compiled with it ([`compile_kernel_in`](crate::compile_kernel_in)) reads and
/// writes: OpenCL's program-scope `__global` variables are one object for
/// all the kernels of a program, and keep their values between launches.
pub struct ModuleData {
    block: Box<[layout::DataLine]>,
    len: usize,
}

impl ModuleData {
    /// The block of `module`, holding the variables' initial values.
    pub fn new(module: &Module) -> ModuleData {
        let every = vec![true; module.globals.len()];
        let (places, _, bytes) = layout::global_places(module, &every);
        let mut block = layout::data_block(&bytes);
        layout::apply_relocs(module, &places, &mut block);
        ModuleData {
            block,
            len: bytes.len(),
        }
    }

    /// The bytes of the block that hold variables.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the module has no `__constant` or `__global` variable.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn base(&self) -> u64 {
        self.block.as_ptr() as u64
    }
}

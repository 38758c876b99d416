//! vecl's JIT: Kernel IR → code vectorised across work-items → Cranelift
//! machine code. [`abi`] is the contract with the runtime.
//!
//! [`compile_kernel`] runs the middle passes on the kernel
//! ([`vecl_ir::transform::pipeline`]: inlining, SRA, unrolling, CSE),
//! cuts it into barrier regions, runs the uniformity analysis, lowers the kernel to one Cranelift function that runs a range of
//! work-groups (W work-items per SIMD chunk, see `lower`), and JIT-compiles
//! it. The [`CompiledKernel`] owns the machine code and the kernel's
//! module-scope data.

pub mod abi;
mod collectives;
mod group_shape;
mod image;
mod lane_axis;
mod layout;
mod lower;
mod math;
pub mod printf;
pub mod races;
mod regions;
mod sub_group;
mod tiers;
pub mod wide;

use abi::{ArgSlot, Launch};
use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module as _, ModuleReloc};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tiers::{Entry, Tier, Upgrade};
use vecl_ir::transform::pipeline::{Pipeline, PipelineError, PipelineOptions};
use vecl_ir::{Inst, Module};

pub use tiers::{FinalCode, Tiers};

/// How to compile a kernel. Plain options: the JIT reads no environment
/// variables (the `vecl` crate's `Config` maps them onto these fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitOptions {
    /// Work-items per SIMD chunk (a multiple of 4, at most 64); `None` lets
    /// the JIT choose.
    pub simd_width: Option<u32>,
    /// Checked mode: every memory access is bounds-checked (see
    /// [`abi`]'s "Checked mode"); the argument block grows by the checked
    /// tail.
    pub checked: bool,
    /// Checked mode's `__local` checks besides the bounds checks: data
    /// races between the work-items of a group, reads of `__local` memory
    /// no work-item wrote, atomics mixed with plain accesses (see
    /// [`races`]). Only with `checked`.
    pub local_checks: bool,
    /// Keep the Cranelift IR text for [`CompiledKernel::clif`].
    pub dump_clif: bool,
    /// Which tiers to compile (see [`Tiers`]); both by default.
    pub tiers: Tiers,
    /// Launches of at least this many work-items write the outputs the
    /// kernel never reads with non-temporal stores (see the `lower::stream`
    /// module); 2^22 by default.
    pub stream_min_items: u64,
    /// Whether streaming loads prefetch the line 4 KiB ahead (see the
    /// `lower::prefetch` module); on by default.
    pub prefetch: Prefetch,
    /// The middle passes the kernel goes through before the lowering
    /// (see [`vecl_ir::transform::pipeline`]): which are off, whether the
    /// IR is verified after each (by default only with debug assertions).
    pub passes: PipelineOptions,
    /// Print the time of each compile phase to standard error.
    pub phases: PhaseReport,
    /// Print each kernel's machine code after register allocation to
    /// standard error and write its bytes to a file named by their load
    /// address (for matching profiler samples to instructions).
    pub disasm: bool,
    /// Give the kernel the wide AVX-512 code (`wide`) when it qualifies
    /// (see `wide::select`); Cranelift's code otherwise.
    pub wide: bool,
}

impl Default for JitOptions {
    fn default() -> JitOptions {
        JitOptions {
            simd_width: None,
            checked: false,
            local_checks: false,
            dump_clif: false,
            tiers: Tiers::Both,
            stream_min_items: lower::stream::STREAM_MIN_ITEMS,
            prefetch: Prefetch::On,
            passes: PipelineOptions::default(),
            phases: PhaseReport::Off,
            disasm: false,
            wide: false,
        }
    }
}

/// Whether streaming loads prefetch ahead ([`JitOptions::prefetch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefetch {
    On,
    Off,
    /// As `On`, but every function with prefetches is treated as one whose
    /// placeholders could not all be patched, so that it is lowered again
    /// without them: the fallback path no kernel reaches otherwise.
    RefusePatch,
}

/// Which compile times go to standard error ([`JitOptions::phases`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseReport {
    Off,
    /// One line per compilation: the time of each phase and the sizes.
    Phases,
    /// The phases and Cranelift's own pass timings.
    CraneliftPasses,
}

#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error("kernel `{kernel}`: not supported yet: {what}")]
    Unsupported { kernel: String, what: String },
    #[error("kernel `{kernel}`: code generation failed: {message}")]
    Codegen { kernel: String, message: String },
    #[error("no kernel named `{0}`")]
    NoSuchKernel(String),
}

type EntryFn = unsafe extern "C" fn(*const u8, *const Launch, u64, u64, *mut u8, *mut u8) -> u32;

/// Address space reserved for one kernel's code and data (only what the
/// code uses is ever committed; the rest stays an inaccessible reservation).
const CODE_RESERVE: usize = 256 << 20;

/// The executable memory of one kernel.
struct CodeMemory(Mutex<Option<JITModule>>);

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
    name: String,
    args: Vec<ArgSlot>,
    args_size: usize,
    /// Offset of the checked-mode tail in the argument block.
    checked_tail: Option<usize>,
    static_local_size: usize,
    chunk_context_bytes: usize,
    /// Context bytes independent of the group size (large private memory
    /// of a kernel without barriers).
    fixed_context_bytes: usize,
    simd_width: u32,
    /// `private_mem_size`.
    private_per_item: u32,
    explain: String,
    clif: Option<String>,
    /// The code launches run: the quick tier's until the optimised code
    /// replaces it (see `tiers`).
    entry: Arc<Entry>,
    /// The optimised code's copy at [`WIDE_WIDTH`] lanes per chunk, for
    /// launches whose groups split into whole chunks of that width; empty
    /// when the kernel has none (see `wide_width`) or until the
    /// optimised code replaces the quick code.
    wide: Arc<Entry>,
    _code: CodeMemory,
    /// The optimised compilation running in the background, if any.
    upgrade: Option<Arc<Upgrade>>,
    /// How the code of this kernel came about when there is no upgrade.
    only_tier: FinalCode,
    /// Module-scope `__constant`/`__global` data the code addresses directly
    /// (empty when the code uses another kernel's or the module's block).
    _data: Box<[layout::DataLine]>,
    /// The module's shared block, when the code uses it ([`compile_kernel_in`]).
    _module_data: Option<Arc<ModuleData>>,
    /// Where the code's module-scope data is.
    data_at: u64,
    /// Some store may be non-temporal (`lower::stream`): `run_groups`
    /// fences after the code.
    streams: bool,
    /// The copies with lanes along dimension 1 or 2, for launches whose
    /// groups are one work-item wide in dimension 0 (see `lane_axis`);
    /// `None` for a kernel that cannot have them and for such a copy
    /// itself.
    lane_copies: Option<Box<LaneCopies>>,
    /// This is the kernel's own code (lanes along dimension 0) and it can
    /// have [`LaneCopies`].
    may_swap_lanes: bool,
    /// Why the kernel can observe its work-groups' shape (`group_shape`);
    /// `None` when it cannot.
    shape_observer: Option<String>,
    /// Each barrier's number and source position in a region graph, for
    /// [`describe_divergence`](Self::describe_divergence).
    barrier_sites: Vec<(u32, vecl_ir::Loc)>,
    /// The kernel's `__local` variables (name, arena offset, bytes), for
    /// the reports of the `__local` checks.
    local_variables: Vec<(String, u64, u64)>,
    /// The wide AVX-512 code the entry runs, if the kernel got it.
    _avx512: Option<wide::entry::KernelCode>,
}

/// What compiling a copy of a kernel with lanes along another dimension
/// needs, and the copies once compiled (each at the first launch that
/// wants it).
struct LaneCopies {
    module: Module,
    opts: JitOptions,
    tier: Tier,
    /// The module-scope data block of the kernel, which the copies share.
    data: u64,
    /// Lanes along dimension 1, and along dimension 2: `None` inside when
    /// the copy could not be made or would not share the kernel's launches.
    along: [OnceLock<Option<CompiledKernel>>; 2],
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
        self.chunk_context_bytes
            .saturating_mul(usize::try_from(items_per_group).unwrap_or(usize::MAX))
            .saturating_add(self.fixed_context_bytes)
    }

    pub fn simd_width(&self) -> u32 {
        self.simd_width
    }

    /// Bytes of private memory one work-item has (its private variables
    /// and arrays, as the JIT lays them out for a chunk, per work-item).
    pub fn private_mem_size(&self) -> u32 {
        self.private_per_item
    }

    /// A human-readable report of how the kernel was vectorised.
    pub fn explain(&self) -> &str {
        &self.explain
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
    /// `__local` checks ([`races::take_local_report`]).
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

    /// Runs work-groups `first_group..end_group` of `launch`; returns 0 or a
    /// [`abi::KernelStatus`] code.
    ///
    /// # Safety
    /// `args` matches [`args`](Self::args) (pointers valid for every access
    /// the kernel makes); `local_mem` holds `launch.local_mem_size` bytes,
    /// with [`abi::LOCAL_PAD`] readable bytes before and after them, and
    /// `context` [`context_size`](Self::context_size) bytes, both 64-aligned
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
        // The code reads the stop flag through the launch: give a launch
        // without one the flag that is never set.
        let with_flag;
        let launch = if launch.stop_flag == 0 {
            with_flag = Launch {
                stop_flag: std::ptr::from_ref(&abi::NEVER_STOP) as u64,
                ..*launch
            };
            &with_flag
        } else {
            launch
        };
        if let Some(copy) = lane_axis::lanes_along(launch).and_then(|d| self.lane_copy(d)) {
            let (d, copy) = copy;
            let swapped = lane_axis::swapped_launch(launch, d);
            // SAFETY: the copy shares this kernel's argument layout,
            // `__local` memory and module-scope data and needs no more
            // context (see `lane_copy`); the swapped launch has the same
            // groups, so the caller's contract carries over.
            return unsafe {
                copy.run_groups(args, &swapped, first_group, end_group, local_mem, context)
            };
        }
        let whole = |n: u64| n.is_multiple_of(u64::from(WIDE_WIDTH));
        let entry = match self.wide.get_if_set() {
            Some(f) if whole(launch.local_size[0]) && whole(launch.global_size[0]) => f,
            _ => self.entry.get(),
        };
        // SAFETY: the entry has exactly this signature (see `abi`), the code
        // is alive as long as `self`, and the caller upholds the contract
        // above (the wide copy lays out arguments, `__local` memory and the
        // context like the main code: see `compile`).
        let status = unsafe { entry(args, launch, first_group, end_group, local_mem, context) };
        // Streaming stores (`lower::stream`) are weakly ordered: make them
        // visible before whatever tells another thread these groups ran.
        #[cfg(target_arch = "x86_64")]
        if self.streams {
            // SAFETY: `sfence` has no preconditions (SSE is part of x86-64).
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
        status
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
                )
            })
            .ok()?;
            // The runtime sized the argument block, `__local` memory and
            // the context area for this kernel: the copy must fit them.
            let (args, size, tail, local, context, w) = made.layout();
            let ok = args == self.args
                && size == self.args_size
                && tail == self.checked_tail
                && local == self.static_local_size
                && context[0] <= self.chunk_context_bytes
                && context[1] <= self.fixed_context_bytes
                && w == self.simd_width;
            ok.then_some(made)
        });
        copy.as_ref().map(|c| (d, c))
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

    /// Everything the runtime sizes a launch from: what two compilations
    /// of one kernel must agree on to share its launches.
    fn layout(&self) -> (Vec<ArgSlot>, usize, Option<usize>, usize, [usize; 2], u32) {
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
    fn data_base(&self) -> u64 {
        self.data_at
    }
}

/// Runs `f`, turning a panic in the code generator into `JitError::Codegen`.
fn guarded(
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

/// The module-scope `__constant` and `__global` data of a module, one block
/// that every kernel compiled with it ([`compile_kernel_in`]) reads and
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

    fn base(&self) -> u64 {
        self.block.as_ptr() as u64
    }
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
    let mut compiled = guarded(kernel, || compile(module, kernel, opts, first, shared, 0))?;
    compiled._module_data = data;
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
    // The wide code is final: no optimised Cranelift code replaces it.
    if policy != Tiers::Both || compiled._avx512.is_some() {
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
            ..opts.clone()
        };
        let (entry, wide, upgrade, data) = (
            compiled.entry.clone(),
            compiled.wide.clone(),
            upgrade.clone(),
            compiled.data_base(),
        );
        let layout = compiled.layout();
        move || {
            let started = Instant::now();
            let done = guarded(&name, || {
                compile(&module, &name, &opts, Tier::Optimised, Some(data), 0)
            })
            .ok()
            // The runtime sizes argument blocks, `__local` memory and
            // context areas from the quick tier's answers: the optimised
            // code is used only if it agrees with all of them.
            .filter(|k| k.layout() == layout)
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

/// Time spent in each phase of `compile`, printed to standard error when
/// [`JitOptions::phases`] asks (for finding where compile time goes).
struct Phases {
    last: Option<Instant>,
    marks: Vec<(&'static str, f64)>,
    cranelift_passes: bool,
}

impl Phases {
    fn new(started: Instant, report: PhaseReport) -> Phases {
        Phases {
            last: (report != PhaseReport::Off).then_some(started),
            marks: Vec::new(),
            cranelift_passes: report == PhaseReport::CraneliftPasses,
        }
    }

    fn mark(&mut self, phase: &'static str) {
        if let Some(last) = self.last {
            let now = Instant::now();
            self.marks
                .push((phase, now.duration_since(last).as_secs_f64() * 1e3));
            self.last = Some(now);
        }
    }

    /// `counts`: branches folded, block parameters removed, bytes of
    /// machine code.
    fn report(&self, kernel: &str, ir_insts: usize, clif_insts: usize, counts: [usize; 3]) {
        if self.last.is_none() {
            return;
        }
        let mut line = format!(
            "jit phases {kernel}: {ir_insts} IR, {clif_insts} CLIF, {} branches folded, \
             {} block parameters removed, {} code bytes;",
            counts[0], counts[1], counts[2]
        );
        for (phase, ms) in &self.marks {
            let _ = write!(line, " {phase} {ms:.3}");
        }
        eprintln!("{line} ms");
        if self.cranelift_passes {
            eprintln!("{}", cranelift_codegen::timing::take_current());
        }
    }
}

/// IR instructions (after inlining) above which the default SIMD width is 4
/// (see [`default_width`]).
const LARGE_KERNEL_IR_INSTS: usize = 3000;

/// The SIMD width of a kernel when none is asked for.
///
/// - 16 by default. A chunk's scalar work (addresses, the consecutive
///   test, a loop's own counting) is shared by twice the lanes of W = 8; a
///   tiled kernel's uniform operand feeds four vectors instead of two
///   (`benches/matmul.cl` at 256²: 59.7 M → 40.0 M instructions); each
///   consecutive access moves a whole 64-byte line, which a streaming
///   store (`lower::stream`) needs (`benches/saxpy.cl` over 16M floats on
///   two threads: ~4.0 → ~3.7 ms); and a loop's four independent vectors
///   per value hide the latency of its arithmetic. That holds for
///   divergent loops too, although every iteration runs until the chunk's
///   slowest lane is done: `benches/mandelbrot.cl` at 1024² on one thread
///   takes ~25.2 ms at W = 8 and ~20.8 ms at W = 16.
/// - 8 when a loop holds work done lane by lane: an atomic, or a load or
///   store whose address is neither uniform nor consecutive. Each of its
///   W scalars is a register of its own, and at W = 16 they spill
///   (`benches/histogram.cl` on one thread: ~23 ms at W = 8, ~31 ms at
///   W = 16; 10.9 M against 23.1 M instructions per launch).
/// - 32 for a barrier kernel whose regions run straight through: every
///   loop holds a barrier, and a branch that differs between work-items
///   writes no memory. Its cost is the per-chunk work of entering each
///   region (the items' ids, the live values kept across barriers in the
///   context area), which twice the lanes share: `benches/scan.cl` over
///   16M ints on two threads ~10.5 → ~9.7 ms (28.2 M → 25.6 M
///   instructions at 1M). A masked store under a branch is not such a
///   region: the tree reduction's `if (lid < s) x[lid] += x[lid + s]`
///   runs its last rounds on one chunk, twice as wide for the same few
///   lanes (`benches/reduce.cl` ~4.5 → ~5.1 ms at 32), and a loop in a
///   region (`benches/matmul.cl`, `benches/nbody.cl`) spills.
/// - 4 for a very large kernel (a cipher or random-number generator
///   inlined several times): machine code, and Cranelift's register
///   allocation even more, grow with the width.
///
/// The optimised code of some kernels at 16 also has a copy at 32 for the
/// launches it suits (`wide_width`).
fn default_width(
    module: &Module,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> u32 {
    use vecl_ir::analysis::uniformity::Shape;
    use vecl_ir::{Inst, Stmt};
    // Whether the access through `ptr` is done lane by lane.
    let per_lane = |ptr: vecl_ir::ValueId| -> bool {
        let elem_bytes = match &func.insts[ptr.0 as usize].ty {
            vecl_ir::Type::Pointer(_, pointee) => {
                i64::from(vecl_ir::size_of(pointee, &module.structs))
            }
            _ => 0,
        };
        match uni.shape(ptr) {
            Shape::Uniform => false,
            Shape::Linear(stride) => stride != elem_bytes,
            Shape::Varying => true,
        }
    };
    /// Whether `b`, inside a loop when `in_loop`, holds lane-by-lane work
    /// in a loop.
    fn lane_work_in_loop(
        b: &vecl_ir::Block,
        in_loop: bool,
        func: &vecl_ir::Function,
        per_lane: &dyn Fn(vecl_ir::ValueId) -> bool,
    ) -> bool {
        b.0.iter().any(|s| match s {
            Stmt::Loop { body, continuing } => {
                lane_work_in_loop(body, true, func, per_lane)
                    || lane_work_in_loop(continuing, true, func, per_lane)
            }
            Stmt::If { then_, else_, .. } => {
                lane_work_in_loop(then_, in_loop, func, per_lane)
                    || lane_work_in_loop(else_, in_loop, func, per_lane)
            }
            Stmt::Switch { cases, .. } => cases
                .iter()
                .any(|c| lane_work_in_loop(&c.body, in_loop, func, per_lane)),
            Stmt::Store { ptr, .. } => in_loop && per_lane(*ptr),
            Stmt::Eval(v) if in_loop => match &func.insts[v.0 as usize].inst {
                Inst::Load(ptr) | Inst::Atomic { ptr, .. } => per_lane(*ptr),
                _ => false,
            },
            _ => false,
        })
    }
    if func.insts.len() > LARGE_KERNEL_IR_INSTS {
        4
    } else if lane_work_in_loop(&func.body, false, func, &per_lane) {
        8
    } else if vecl_ir::contains_barrier(&func.body.0) && short_regions(&func.body, func, uni) {
        WIDE_WIDTH
    } else {
        16
    }
}

/// Whether `b` may write memory: a store, an atomic, a call or a builtin.
fn writes(b: &vecl_ir::Block, func: &vecl_ir::Function) -> bool {
    use vecl_ir::{Inst, Stmt};
    b.0.iter().any(|s| match s {
        Stmt::Store { .. } | Stmt::Copy { .. } => true,
        Stmt::Eval(v) => matches!(
            func.insts[v.0 as usize].inst,
            Inst::Atomic { .. } | Inst::Call(..) | Inst::Builtin(..)
        ),
        Stmt::Loop { body, continuing } => writes(body, func) || writes(continuing, func),
        Stmt::If { then_, else_, .. } => writes(then_, func) || writes(else_, func),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| writes(&c.body, func)),
        _ => false,
    })
}

/// Whether the code of `b` between barriers runs straight through: every
/// loop holds a barrier, and every branch is the same for all work-items.
fn short_regions(
    b: &vecl_ir::Block,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> bool {
    use vecl_ir::Stmt;
    b.0.iter().all(|s| match s {
        Stmt::Loop { body, continuing } => {
            (vecl_ir::contains_barrier(&body.0) || vecl_ir::contains_barrier(&continuing.0))
                && short_regions(body, func, uni)
                && short_regions(continuing, func, uni)
        }
        Stmt::If { cond, then_, else_ } => {
            (uni.is_uniform(*cond) || (!writes(then_, func) && !writes(else_, func)))
                && short_regions(then_, func, uni)
                && short_regions(else_, func, uni)
        }
        Stmt::Switch { selector, cases } => {
            uni.is_uniform(*selector) && cases.iter().all(|c| short_regions(&c.body, func, uni))
        }
        _ => true,
    })
}

/// Width of the wide copy (see `wide_width`).
pub const WIDE_WIDTH: u32 = 32;

/// Whether the optimised code of a kernel gets a second function at
/// [`WIDE_WIDTH`] lanes per chunk, which launches whose groups split into
/// whole 32-lane chunks run (`CompiledKernel::run_groups`): a kernel
/// without barriers, compiled unchecked at the default width 16, with no
/// divergent loop. Twice the lanes share each chunk's scalar work (the
/// addresses and span tests of its accesses, uniform loads, loop
/// counters): `benches/conv5x5.cl` at 2048² on two threads ~7.1 → ~6.1
/// ms, `benches/blackscholes.cl` ~15.8 → ~15.1 ms. A divergent loop runs
/// until the chunk's slowest lane is done, and its values spill at W = 32
/// (`benches/mandelbrot.cl` 9.9 → 12.1 ms); barrier kernels keep their
/// per-chunk context at one width.
fn wide_width(
    tier: Tier,
    opts: &JitOptions,
    w: u32,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> Option<u32> {
    let plain = tier == Tier::Optimised
        && opts.simd_width.is_none()
        && w == 16
        && !has_divergent_loop(&func.body, uni)
        && !uses_sub_groups(func);
    plain.then_some(WIDE_WIDTH)
}

/// Whether `func` calls a sub-group builtin: its sub-group size is its
/// chunk width, which must then be one width for every launch (no wide
/// copy).
fn uses_sub_groups(func: &vecl_ir::Function) -> bool {
    func.insts.iter().any(
        |d| matches!(&d.inst, Inst::Builtin(n, _) if vecl_ir::sub_group::is_sub_group_builtin(n)),
    )
}

/// Whether `b` holds a loop whose trip count differs between work-items.
fn has_divergent_loop(b: &vecl_ir::Block, uni: &vecl_ir::analysis::uniformity::Uniformity) -> bool {
    use vecl_ir::Stmt;
    b.0.iter().any(|s| match s {
        Stmt::Loop { body, continuing } => {
            uni.loop_is_divergent(body, continuing)
                || has_divergent_loop(body, uni)
                || has_divergent_loop(continuing, uni)
        }
        Stmt::If { then_, else_, .. } => {
            has_divergent_loop(then_, uni) || has_divergent_loop(else_, uni)
        }
        Stmt::Switch { cases, .. } => cases.iter().any(|c| has_divergent_loop(&c.body, uni)),
        _ => false,
    })
}

/// One kernel function defined in a JIT module, before finalisation.
struct DefinedFunction {
    id: cranelift_module::FuncId,
    lowered: lower::chunks::Lowered,
    clif: Option<String>,
    clif_insts: usize,
    folded: usize,
    unparams: usize,
    code_bytes: usize,
    vcode: Option<String>,
}

/// Lowers `input` into a function named `name` of `jit`, compiles it
/// (its marked stores made non-temporal, `lower::stream`) and defines it.
fn define_kernel_function(
    jit: &mut JITModule,
    fctx: &mut FunctionBuilderContext,
    kernel: &str,
    name: &str,
    input: lower::chunks::KernelInput<'_>,
    opts: &JitOptions,
    dump_clif: bool,
) -> Result<DefinedFunction, JitError> {
    let without_prefetch = lower::chunks::KernelInput {
        prefetch: false,
        ..input.clone()
    };
    if let Some(f) = try_define_kernel_function(jit, fctx, kernel, name, input, opts, dump_clif)? {
        return Ok(f);
    }
    // Not every prefetch placeholder could be patched: lowered again
    // without them, as an unpatched one would load ahead of the chunk.
    try_define_kernel_function(jit, fctx, kernel, name, without_prefetch, opts, dump_clif)?
        .ok_or_else(|| JitError::Codegen {
            kernel: kernel.to_string(),
            message: "prefetch placeholders left in a kernel lowered without prefetches".into(),
        })
}

/// [`define_kernel_function`] once; `None` when the prefetch placeholders
/// of the compiled code could not all be patched (`lower::prefetch`), in
/// which case nothing was defined.
fn try_define_kernel_function(
    jit: &mut JITModule,
    fctx: &mut FunctionBuilderContext,
    kernel: &str,
    name: &str,
    input: lower::chunks::KernelInput<'_>,
    opts: &JitOptions,
    dump_clif: bool,
) -> Result<Option<DefinedFunction>, JitError> {
    let codegen = |message: String| JitError::Codegen {
        kernel: kernel.to_string(),
        message,
    };
    let mut ctx: Context = jit.make_context();
    let ptr = types::I64;
    for _ in 0..6 {
        ctx.func.signature.params.push(AbiParam::new(ptr));
    }
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let id = jit
        .declare_function(name, Linkage::Local, &ctx.func.signature)
        .map_err(|e| codegen(e.to_string()))?;
    let lowered = lower::chunks::lower_kernel(jit, &mut ctx.func, fctx, input)?;
    // Branches whose outcome is known and block parameters that carry
    // one value only are removed before Cranelift sees them (`lower::fold`).
    let folded = lower::fold::fold_known_branches(&mut ctx.func);
    let unparams = lower::fold::remove_redundant_params(&mut ctx.func)
        + lower::fold::remove_dead_params(&mut ctx.func);
    let clif = dump_clif.then(|| ctx.func.display().to_string());
    let clif_insts = ctx.func.dfg.num_insts();
    ctx.set_disasm(opts.disasm);
    // Compiled here rather than by `define_function` so that the marked
    // stores can become non-temporal ones (`lower::stream`) before the
    // code is placed.
    ctx.compile(jit.isa(), &mut Default::default())
        .map_err(|e| codegen(format!("{:?}", e.inner)))?;
    let compiled = ctx
        .compiled_code()
        .ok_or_else(|| codegen("no compiled code".into()))?;
    let mut bytes = compiled.code_buffer().to_vec();
    // The code ranges of the instructions marked with `tag`.
    let marked_ranges = |tag| {
        compiled
            .buffer
            .get_srclocs_sorted()
            .iter()
            .filter(move |s| s.loc == tag)
            .map(|s| (s.start as usize, s.end as usize))
    };
    lower::stream::patch_stores(
        &mut bytes,
        marked_ranges(lower::stream::stream_tag()),
        lower::stream::marked_stores(&ctx.func),
    );
    let ranges = marked_ranges(lower::prefetch::prefetch_tag());
    let expected = lower::prefetch::marked_prefetches(&ctx.func);
    let refused = expected > 0 && opts.prefetch == Prefetch::RefusePatch;
    if refused || !lower::prefetch::patch_prefetches(&mut bytes, ranges, expected) {
        ctx.clear();
        return Ok(None);
    }
    let relocs: Vec<ModuleReloc> = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
        .collect();
    let align = u64::from(compiled.buffer.alignment);
    let vcode = compiled.vcode.clone();
    jit.define_function_bytes(id, align, &bytes, &relocs)
        .map_err(|e| codegen(format!("{e:?}")))?;
    Ok(Some(DefinedFunction {
        id,
        lowered,
        clif,
        clif_insts,
        folded,
        unparams,
        code_bytes: bytes.len(),
        vcode,
    }))
}

/// The entry of `f` once `jit` is finalized. With [`JitOptions::disasm`], its
/// machine code after register allocation goes to standard error and its
/// bytes to a file named by their load address, for matching profiler
/// samples to instructions (`objdump -D -b binary -mi386:x86-64
/// --adjust-vma=ADDR`).
fn finalized_entry(jit: &JITModule, kernel: &str, f: &DefinedFunction) -> EntryFn {
    let code = jit.get_finalized_function(f.id);
    if let Some(vcode) = &f.vcode {
        eprintln!("machine code of {kernel}:\n{vcode}");
        // SAFETY: `code` points at the `code_bytes` bytes just finalized.
        let bytes = unsafe { std::slice::from_raw_parts(code, f.code_bytes) };
        let path = std::env::temp_dir().join(format!("vecl-jit-{kernel}-{:x}.bin", code as usize));
        let _ = std::fs::write(&path, bytes);
        eprintln!("machine code of {kernel} written to {}", path.display());
    }
    // SAFETY: `code` is a finalized function declared with the signature
    // of `EntryFn`.
    unsafe { std::mem::transmute::<*const u8, EntryFn>(code) }
}

/// Compiles `kernel` with `tier`'s register allocator. `shared_data`: the
/// address of an existing module-scope data block (the quick tier's) for
/// the code to use instead of a block of its own. `lanes_along`: 0, or the
/// dimension (1 or 2) whose work-items the lanes of the copy compiled
/// here step along (`lane_axis`).
fn compile(
    module: &Module,
    kernel: &str,
    opts: &JitOptions,
    tier: Tier,
    shared_data: Option<u64>,
    lanes_along: usize,
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
    let pipeline = Pipeline::new(&PipelineOptions {
        dump: None,
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
    let (func, next_var) = match regions::region_graph(&func).map_err(unsupported)? {
        Some(g) => (g.func, Some(g.next)),
        None => (func, None),
    };
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
    let w = required
        .or(opts.simd_width)
        .unwrap_or_else(|| default_width(module, &func, &uni));
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
    let args_size = match checks {
        Some(tail) => tail + abi::checked_offsets::tail_size(arg_slots.len()),
        None => args_size,
    };

    let verifier = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    let mut builder = JITBuilder::with_flags(
        &[
            ("opt_level", tier.opt_level()),
            ("enable_verifier", verifier),
            ("regalloc_algorithm", tier.regalloc()),
        ],
        default_libcall_names(),
    )
    .map_err(|e| codegen(format!("creating the JIT: {e}")))?;
    // Code and data of one module in one reserved range: calls between its
    // functions and references to its data are 32-bit PC-relative, which
    // separate allocations (placed wherever the system puts them, gigabytes
    // apart once large buffers are mapped in between) cannot guarantee.
    let arena = ArenaMemoryProvider::new_with_size(CODE_RESERVE)
        .map_err(|e| codegen(format!("reserving {CODE_RESERVE} bytes for code: {e}")))?;
    builder.memory_provider(Box::new(arena));
    builder.symbol_lookup_fn(Box::new(|name| match name {
        "vecl_checked_fault" => Some(abi::vecl_checked_fault as *const u8),
        "vecl_barrier_divergence" => Some(abi::vecl_barrier_divergence as *const u8),
        _ => races::lookup_symbol(name).or_else(|| math::lookup_symbol(name)),
    }));
    let mut jit = JITModule::new(builder);
    let has_fma = isa_has(jit.isa(), "has_fma");

    phases.mark("jit module");
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
        checks: checks.map(|tail| lower::bounds::Checks::new(tail as u32, data_len)),
        local_checks: opts.checked && opts.local_checks,
        full_copy: tier == Tier::Optimised,
        stream_min_items,
        prefetch: prefetch_on,
        lanes_along,
    };
    let mut fctx = FunctionBuilderContext::new();
    let main = define_kernel_function(
        &mut jit,
        &mut fctx,
        kernel,
        &format!("vecl_kernel_{kernel}"),
        input(w),
        opts,
        opts.dump_clif,
    )?;
    // The wide copy: dropped if it cannot be made or would not share the
    // main code's launches (it is an optimisation only).
    let wide = wide_width(tier, opts, w, &func, &uni)
        .filter(|_| required.is_none())
        .filter(|_| {
            let l = &main.lowered;
            l.regions == 1 && l.chunk_bytes == 0 && l.fixed_context_bytes == 0
        })
        .and_then(|ww| {
            define_kernel_function(
                &mut jit,
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
    jit.finalize_definitions()
        .map_err(|e| codegen(e.to_string()))?;
    phases.mark("finalize");
    phases.report(
        kernel,
        func.insts.len(),
        main.clif_insts,
        [main.folded, main.unparams, main.code_bytes],
    );
    let code = finalized_entry(&jit, kernel, &main);
    let avx512 = wide::select::choose(
        &wide::select::Request {
            asked: opts.wide,
            checked: opts.checked,
            w,
            func: &func,
            uni: &uni,
            slots: &arg_slots,
        },
        code,
    );
    let wide_code = wide
        .as_ref()
        .filter(|_| avx512.entry().is_none())
        .map(|f| finalized_entry(&jit, kernel, f));
    let wide_streams = wide
        .as_ref()
        .is_some_and(|f| f.lowered.stats.streamed_stores > 0);
    let lowered = main.lowered;
    let (clif, clif_insts) = (main.clif, main.clif_insts);
    let entry = Arc::new(Entry::new(avx512.entry().unwrap_or(code)));
    let wide_entry = Arc::new(match wide_code {
        Some(f) => Entry::new(f),
        None => Entry::none(),
    });
    let elapsed = started.elapsed();

    let s = &lowered.stats;
    let mut explain = String::new();
    let _ = writeln!(explain, "kernel {kernel}: W = {w} work-items per chunk");
    if opts.checked {
        let _ = writeln!(
            explain,
            "checked mode: every load, store, atomic and copy is bounds-checked ({} proven in bounds at compile time)",
            s.proven_in_bounds
        );
    }
    if opts.checked && opts.local_checks {
        let _ = writeln!(
            explain,
            "checked mode: every access that may touch __local memory updates its shadow state (data races in a barrier region, reads of uninitialised __local memory, atomics mixed with plain accesses)"
        );
    }
    let _ = writeln!(
        explain,
        "regions: {} ({})",
        lowered.regions,
        if lowered.regions > 1 {
            "cut at barriers; live values kept per chunk in the context area"
        } else {
            "no barriers"
        }
    );
    let _ = writeln!(
        explain,
        "loads: {} vector (consecutive; {} prefetching ahead, {} of them by a loop's step), {} interleaved (2 to 4 components of consecutive items), {} uniform, {} per lane (gather)",
        s.vector_loads, s.prefetches, s.prefetches_by_step, s.interleaved_loads, s.uniform_loads, s.gathers
    );
    let _ = writeln!(
        explain,
        "stores: {} vector (consecutive; {} streamed on large launches, {} blended into __local when lanes are off), {} interleaved (2 to 4 components of consecutive items), {} uniform, {} per lane (scatter)",
        s.vector_stores, s.streamed_stores, s.blended_stores, s.interleaved_stores, s.uniform_stores, s.scatters
    );
    if s.copies > 0 {
        let _ = writeln!(
            explain,
            "copies: {} ({} of consecutive items as whole pieces when every lane runs)",
            s.copies, s.whole_chunk_copies
        );
    }
    let _ = writeln!(
        explain,
        "atomics: {} (one per active lane; {} of them four consecutive ints at a time when every lane runs)",
        s.atomics, s.grouped_atomics
    );
    let _ = writeln!(
        explain,
        "branches: {} uniform if, {} varying if (masked); loops: {} uniform, {} divergent (masked)",
        s.uniform_ifs, s.varying_ifs, s.uniform_loops, s.divergent_loops
    );
    let _ = writeln!(
        explain,
        "operations done lane by lane (no vector form): {}",
        s.per_lane_ops
    );
    if s.linear_divisions > 0 {
        let _ = writeln!(
            explain,
            "divisions of a consecutive integer by a uniform one: {} (one division per chunk where the divisor is at least W; otherwise counted above)",
            s.linear_divisions
        );
    }
    let uniform_values = uni.values.iter().filter(|v| v.is_uniform()).count();
    let _ = writeln!(
        explain,
        "values: {uniform_values} of {} uniform (kept scalar)",
        uni.values.len()
    );
    if let Some((vars, empty, ranged)) = lowered.group_level {
        let _ = writeln!(
            explain,
            "group-level: {vars} variables kept once per group; {empty} regions run no chunk loop; {ranged} chunk loops visit only the ids their `if` accepts"
        );
    }
    if lowered.fixed_context_bytes > 0 {
        let _ = writeln!(
            explain,
            "private memory lives in the context area ({} bytes per chunk: too large for a worker's stack)",
            lowered.fixed_context_bytes
        );
    } else if lowered.private_in_context {
        let _ = writeln!(
            explain,
            "private memory lives in the context area (it crosses barriers)"
        );
    }
    for n in &s.notes {
        let _ = writeln!(explain, "note: {n}");
    }
    let _ = match (&lane_obstacle, lanes_along) {
        (_, d @ 1..) => writeln!(
            explain,
            "lanes: consecutive work-items of dimension {d} (this copy runs launches whose groups are one work-item wide below dimension {d})"
        ),
        (None, _) => writeln!(
            explain,
            "lanes: chosen at launch: consecutive work-items of dimension 0; when the groups are one work-item wide in dimension 0, of dimension 1 (or 2 when dimension 1 is one wide too), in a copy compiled at the first such launch"
        ),
        (Some(why), _) => writeln!(
            explain,
            "lanes: consecutive work-items of dimension 0 in every launch (no copy along another dimension: {why})"
        ),
    };
    let _ = match &shape_observer {
        None => writeln!(
            explain,
            "groups: the kernel cannot observe their shape (no barrier, __local memory, local or group query): a launch whose groups are narrower than a chunk in dimension 0 runs with groups the device chooses"
        ),
        Some(why) => writeln!(explain, "groups: shape observable ({why})"),
    };
    if uses_sub_groups(&func) {
        let _ = writeln!(
            explain,
            "sub-groups: {w} work-items each (the chunk width{}; a row of the group whose length is not a multiple of {w} ends with a shorter one); no wide copy",
            match (required, opts.simd_width) {
                (Some(_), _) => ", as intel_reqd_sub_group_size requires",
                (None, Some(_)) => ", as asked",
                (None, None) => ", chosen by the width rules",
            }
        );
    }
    if let Some(line) = avx512.explain() {
        let _ = writeln!(explain, "{line}");
    }
    if wide_code.is_some() {
        let _ = writeln!(
            explain,
            "wide copy: launches whose local and global sizes in dimension 0 are multiples of {WIDE_WIDTH} run a copy at W = {WIDE_WIDTH}"
        );
    }
    let _ = writeln!(
        explain,
        "compiled {clif_insts} CLIF instructions in {:.2} ms ({})",
        elapsed.as_secs_f64() * 1e3,
        match tier {
            Tier::Quick => "quick tier: single-pass register allocation; the optimised code replaces it when ready",
            Tier::Optimised => "optimised tier",
        }
    );

    Ok(CompiledKernel {
        name: kernel.to_string(),
        args: arg_slots,
        args_size,
        checked_tail: checks,
        static_local_size,
        chunk_context_bytes: lowered.chunk_bytes,
        fixed_context_bytes: lowered.fixed_context_bytes,
        private_per_item: lowered.private_per_item,
        simd_width: w,
        explain,
        clif,
        entry,
        wide: wide_entry,
        _code: CodeMemory(Mutex::new(Some(jit))),
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
        shape_observer,
        barrier_sites: lowered.barrier_sites,
        local_variables: lower::races::local_variables(module, &places),
        _avx512: avx512.into_code(),
    })
}

/// Whether the ISA's boolean flag `name` (`has_fma`, `has_cmpxchg16b`, …)
/// is set: the host CPU's features, as Cranelift detected them.
pub(crate) fn isa_has(isa: &dyn cranelift_codegen::isa::TargetIsa, name: &str) -> bool {
    isa.isa_flags()
        .iter()
        .any(|f| f.name == name && f.as_bool() == Some(true))
}

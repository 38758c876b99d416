//! How a kernel is compiled: the plain options the `vecl` crate's
//! `Config` (and the driver's) map the environment onto.

use crate::lower;
use crate::tiers::Tiers;
use vecl_ir::transform::pipeline::PipelineOptions;

/// How to compile a kernel. Plain options: the JIT reads no environment
/// variables (the `vecl` crate's `Config` maps them onto these fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitOptions {
    /// Work-items per SIMD chunk (a multiple of 4, at most 64); `None` lets
    /// the JIT choose.
    pub simd_width: Option<u32>,
    /// Checked mode: every memory access is bounds-checked (see
    /// [`abi`](crate::abi)'s "Checked mode"); the argument block grows by the checked
    /// tail.
    pub checked: bool,
    /// Checked mode's `__local` checks besides the bounds checks: data
    /// races between the work-items of a group, reads of `__local` memory
    /// no work-item wrote, atomics mixed with plain accesses (see
    /// [`races`](crate::races)). Only with `checked`.
    pub local_checks: bool,
    /// Keep the Cranelift IR text for [`CompiledKernel::clif`](crate::CompiledKernel::clif).
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
    /// (see `wide::select`); Cranelift's code otherwise. On by default.
    pub wide: bool,
    /// Leave a kernel that gets the wide code and has no barriers
    /// unlowered to CLIF until something needs its Cranelift code or its
    /// report (`compile`). On by default; off, every kernel is lowered at
    /// build, as the report's own compile does.
    pub lazy_lowering: bool,
    /// How the wide code computes `rsqrt` (see [`Rsqrt`]); by the CPU by
    /// default.
    pub rsqrt: Rsqrt,
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
            wide: true,
            lazy_lowering: true,
            rsqrt: Rsqrt::ByCpu,
        }
    }
}

/// How the wide AVX-512 code computes `rsqrt` ([`JitOptions::rsqrt`]).
/// Cranelift's code always takes a square root and a division.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rsqrt {
    /// `Newton` where the CPU's divider is slow on 512-bit vectors, every
    /// CPU but AMD's from Zen 5 (family 1Ah) on, and `Divide` there
    /// (`docs/wide.md`, "rsqrt without the divider").
    ByCpu,
    /// `vsqrtps`, then `vdivps`: two correctly rounded steps, bit for bit
    /// the Cranelift code's result.
    Divide,
    /// `vrsqrt14ps` and one Newton step (`wide::math::rsqrt_newton`):
    /// within 1.05 ULP of `1/√x` (OpenCL's bound is 2), no division.
    Newton,
}

impl Rsqrt {
    /// Whether the wide code takes the Newton form.
    pub fn newton(self) -> bool {
        match self {
            Rsqrt::ByCpu => !crate::wide::select::fast_vector_divider(),
            Rsqrt::Divide => false,
            Rsqrt::Newton => true,
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

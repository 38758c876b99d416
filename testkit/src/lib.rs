//! vecl's test kit (a dev-dependency only, never published): what the
//! tests of every crate share to run kernels and check their results.
//!
//! - [`guarded`]: buffers with guard bytes on both sides, mappings with
//!   inaccessible pages;
//! - [`groups`]: the scratch memory and the call that runs every group of
//!   a launch through a compiled kernel, and the checked tail of an
//!   argument block filled as the runtime fills it;
//! - [`hand_built`]: kernels built with the IR builder or parsed from IR
//!   text, their argument blocks, and a run that must finish with status 0;
//! - [`differential`]: OpenCL C compiled by the front end, run by the JIT
//!   at several widths and by the IR interpreter over the same launches,
//!   every buffer (guard bytes included) compared byte for byte;
//! - [`shapes`]: the launch shapes of those comparisons;
//! - [`corpus`]: the OpenCL C corpus, its declared launches and the
//!   comparisons of its results;
//! - [`file_tests`]: `.ir` → `.out` file tests and their re-blessing;
//! - the options the tests compile with: [`test_tiers`], [`test_passes`],
//!   [`test_prefetch`].

//!
//! The feature `jit` (on by default) adds everything that compiles or runs
//! kernels; without it (the IR crate's own tests) the kit is [`file_tests`]
//! and [`shapes`], and needs only `vecl-ir`.

#[cfg(feature = "jit")]
pub mod corpus;
#[cfg(feature = "jit")]
pub mod differential;
pub mod file_tests;
#[cfg(feature = "jit")]
pub mod groups;
#[cfg(feature = "jit")]
pub mod guarded;
#[cfg(feature = "jit")]
pub mod hand_built;
#[cfg(feature = "jit")]
mod options;
pub mod shapes;

#[cfg(feature = "jit")]
pub use differential::{
    build, code_line, compare_launches, compile_wide, cpu_has_wide, differential, differential_at,
    explain, explain_at, explain_line, interp_args_for, run_jit, try_compile, wide_agrees,
    wide_refuses, Spec, BARRIER_WIDTHS, DIVERGENT, GUARD, WIDTHS,
};
#[cfg(feature = "jit")]
pub use groups::aligned;
#[cfg(feature = "jit")]
pub use hand_built::*;
#[cfg(feature = "jit")]
pub use options::{refuse_prefetch_patches, test_passes, test_prefetch, test_tiers, wide_options};
pub use shapes::{chunk_edges_1d, group_sizes_1d, range_1d, range_2d};

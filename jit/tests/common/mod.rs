//! The JIT tests' harness, one module for every test file:
//!
//! - [`hand_built`]: kernels built with the IR builder or parsed from IR
//!   text, their argument blocks, and a run of every group of a launch;
//! - [`versus_interp`]: OpenCL C compiled by the front end, run by the JIT
//!   at W = 4, 8, 16 and by the IR interpreter over the same launches, every
//!   buffer (guard bytes included) compared byte for byte;
//! - [`codegen`] and [`barriers`]: the launch shapes and call forms of the
//!   code-generation tests and of the barrier tests, on that same engine;
//! - [`groups`]: the scratch memory and the call that runs every group of a
//!   launch, shared by all of them.
//!
//! Each test binary uses a part of it.

#![allow(dead_code, unused_imports)]

pub mod barriers;
pub mod codegen;
pub mod groups;
pub mod hand_built;
pub mod versus_interp;

pub use groups::aligned;
pub use hand_built::*;

/// The tiers a test compiles width `w` with
/// ([`vecl_jit::Tiers::for_differential_tests`]; `tiers.rs` tests the
/// replacement of the quick code itself).
pub fn test_tiers(w: u32) -> Option<vecl_jit::Tiers> {
    vecl_jit::Tiers::for_differential_tests(w)
}

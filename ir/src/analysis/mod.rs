//! Analyses over the Kernel IR.
//!
//! - [`uniformity`]: which values are the same for every work-item of a SIMD
//!   chunk, which advance by a fixed stride from lane to lane, and which
//!   control-flow constructs diverge — the facts the JIT vectorises from.

pub mod uniformity;

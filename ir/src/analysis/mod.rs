//! Analyses over the Kernel IR.
//!
//! - [`uniformity`]: which values are the same for every work-item of a SIMD
//!   chunk, which advance by a fixed stride from lane to lane, and which
//!   control-flow constructs diverge — the facts the JIT vectorises from.
//! - [`ranges`]: the interval of values each integer can take, for proving
//!   accesses in bounds and sizing buffers.
//! - [`webs`]: reaching definitions of register variables, and the split of
//!   each variable into its independent webs, so a variable reused for
//!   unrelated values gets a uniformity fact per use.

pub mod ranges;
pub mod uniformity;
pub mod webs;

//! IR-to-IR rewrites that code generators run before lowering. Each lives
//! in its own file and keeps the module valid for [`crate::verify`] and
//! equal in behaviour under [`crate::interp`].
//!
//! - [`sra`]: scalar replacement of aggregates — private slots reached
//!   only at constant offsets become register variables.
//! - [`compact`]: drops the instructions and slots a rewrite orphaned.
//! - [`cse`]: common subexpressions and single-assignment variables.
//! - [`unroll`]: full unrolling of short counted loops.

pub mod compact;
pub mod cse;
pub mod sra;
pub mod unroll;

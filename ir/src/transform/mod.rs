//! IR-to-IR rewrites that code generators run before lowering. Each lives
//! in its own file and keeps the module valid for [`crate::verify`] and
//! equal in behaviour under [`crate::interp`].
//!
//! [`pipeline`] runs the middle passes on a kernel in order, by name,
//! verifying after each:
//!
//! - [`inline`]: every call replaced by the callee's body.
//! - [`half`]: `half` arithmetic computed in `float`, rounded back once.
//! - [`sra`]: scalar replacement of aggregates — private slots reached
//!   only at constant offsets become register variables (after
//!   [`outparam`] splits `sincos` through a private pointer).
//! - [`define_at_entry`]: the variables the passes added defined once at
//!   the top of the body.
//! - [`unroll`]: full unrolling of short counted loops.
//! - [`cse`]: common subexpressions and single-assignment variables.
//!
//! Also here:
//!
//! - [`regions`]: a kernel with barriers under control flow rewritten as a
//!   graph of barrier regions, the form a chunk driver runs (after the
//!   pipeline, not equal in behaviour under the interpreter).
//! - [`compact`]: drops the instructions and slots a rewrite orphaned.
//! - [`structurize`]: a reducible control-flow graph ([`crate::cfg`])
//!   made into structured statements (run by front ends).

pub mod compact;
pub mod cse;
pub mod define_at_entry;
pub mod half;
pub mod inline;
pub mod outparam;
pub mod pipeline;
pub mod regions;
pub mod sra;
pub mod structurize;
pub mod unroll;

/// What the transforms' unit tests share: `pass` run on the first function
/// of the module written in `src` (IR text), which must still verify.
/// Returns the pass's count and the module printed.
#[cfg(test)]
fn run_on_text(src: &str, pass: impl FnOnce(&mut crate::Function) -> usize) -> (usize, String) {
    let mut m = match crate::text::parse_module(src) {
        Ok(m) => m,
        Err(e) => panic!("parse: {e:?}"),
    };
    let n = pass(&mut m.functions[0]);
    if let Err(e) = crate::verify::verify_module(&m) {
        panic!("verify: {e:?}\n{m}");
    }
    (n, m.to_string())
}

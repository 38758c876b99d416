//! The barrier tests' launches and call forms: whole and partial groups of
//! local sizes from 1 to 256, build options, and compilation that may be
//! refused.

use super::versus_interp::range_1d;
use vecl_ir::interp::NdRange;

pub use super::versus_interp::{
    build, interp_args_for, run_jit, try_compile as compile, Spec, DIVERGENT,
};

/// The widths barrier kernels are compared at: the common ones, and 32,
/// the default width of a barrier kernel whose regions run straight
/// through (a prefix scan).
pub const WIDTHS: [u32; 4] = [4, 8, 16, 32];

/// Checks kernel `kernel` of `src` (built with `options`) against the
/// interpreter at each of [`WIDTHS`] over `ranges`; `args` gives the
/// arguments of each range. Returns the number of launches compared.
pub fn differential(
    src: &str,
    options: &str,
    kernel: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    super::versus_interp::differential_at(&WIDTHS, src, options, kernel, ranges, args)
}

/// A 1-D range from 0.
pub fn range1(global: u64, local: u64) -> NdRange {
    range_1d(0, global, local)
}

/// One-dimensional launches over the local sizes 1, 3, 16, 64 and 256, each
/// with three full groups and with a partial last group.
pub fn shapes_1d() -> Vec<NdRange> {
    let mut out = Vec::new();
    for ls in [1u64, 3, 16, 64, 256] {
        out.push(range1(3 * ls, ls));
        if ls > 1 {
            out.push(range1(2 * ls + ls / 2 + 1, ls));
        }
    }
    out
}

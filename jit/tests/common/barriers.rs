//! The barrier tests' launches and call forms: whole and partial groups of
//! local sizes from 1 to 256, build options, and compilation that may be
//! refused (a barrier under varying control).

use super::versus_interp::range_1d;
use vecl_ir::interp::NdRange;

pub use super::versus_interp::{
    build, differential_with_options as differential, interp_args_for, run_jit,
    try_compile as compile, Spec, DIVERGENT, WIDTHS,
};

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

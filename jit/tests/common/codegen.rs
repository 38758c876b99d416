//! The code-generation tests' launches and call forms: 1-D shapes around
//! chunk boundaries, kernels built without options.

use super::versus_interp::{differential_with_options, range_1d};
use vecl_ir::interp::NdRange;

pub use super::versus_interp::{explain, Spec, GUARD, WIDTHS};

/// A 1-D range with an offset.
pub fn range1(offset: u64, global: u64, local: u64) -> NdRange {
    range_1d(offset, global, local)
}

/// 1-D launches: full chunks only, sizes that are not multiples of W or of
/// the local size (partial tail chunks), local sizes 1 and odd, offsets.
pub fn shapes_1d() -> Vec<NdRange> {
    vec![
        range1(0, 256, 64),
        range1(0, 64, 16),
        range1(0, 203, 29),
        range1(0, 100, 10),
        range1(0, 37, 37),
        range1(0, 9, 1),
        range1(5, 120, 24),
        range1(3, 61, 61),
        range1(7, 130, 13),
    ]
}

/// Checks `kernel` of `src` against the interpreter at every width over
/// `ranges`; returns the number of launches compared.
pub fn differential(
    src: &str,
    kernel: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    differential_with_options(src, "", kernel, ranges, args)
}

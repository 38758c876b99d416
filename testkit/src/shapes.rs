//! Launch shapes: the 1-D ranges the code-generation and barrier tests
//! run, each family named by what it exercises, and a 2-D range.

use vecl_ir::interp::NdRange;

/// A 1-D range of `global` work-items from `offset` in groups of `local`.
pub fn range_1d(offset: u64, global: u64, local: u64) -> NdRange {
    NdRange {
        work_dim: 1,
        global_offset: [offset, 0, 0],
        global_size: [global, 1, 1],
        local_size: [local, 1, 1],
    }
}

/// A 2-D range of `global` work-items in groups of `local` from `offset`
/// (each `[dimension 0, dimension 1]`).
pub fn range_2d(global: [u64; 2], local: [u64; 2], offset: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [offset[0], offset[1], 0],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

/// 1-D launches around chunk boundaries: full chunks only, sizes that are
/// not multiples of W or of the local size (partial tail chunks), local
/// sizes 1 and odd, offsets.
pub fn chunk_edges_1d() -> Vec<NdRange> {
    vec![
        range_1d(0, 256, 64),
        range_1d(0, 64, 16),
        range_1d(0, 203, 29),
        range_1d(0, 100, 10),
        range_1d(0, 37, 37),
        range_1d(0, 9, 1),
        range_1d(5, 120, 24),
        range_1d(3, 61, 61),
        range_1d(7, 130, 13),
    ]
}

/// 1-D launches over the local sizes 1, 3, 16, 64 and 256, each with three
/// full groups and with a partial last group (for kernels with barriers).
pub fn group_sizes_1d() -> Vec<NdRange> {
    let mut out = Vec::new();
    for ls in [1u64, 3, 16, 64, 256] {
        out.push(range_1d(0, 3 * ls, ls));
        if ls > 1 {
            out.push(range_1d(0, 2 * ls + ls / 2 + 1, ls));
        }
    }
    out
}

//! The sub-group functions of OpenCL C (`cl_khr_subgroups` and the
//! `cl_khr_subgroup_*` extensions), taken apart from their [`Builtin`]s.
//!
//! One decoding serves the uniformity analysis, the interpreter and the
//! JIT, so the three agree on which builtin is which operation; each
//! implements the operations itself.
//!
//! **The partition** (the same everywhere): with sub-group size `S`, a
//! work-group is cut row by row (a row is the work-items that differ only
//! in local id 0) into runs of `S` consecutive work-items; a row whose
//! length is not a multiple of `S` ends with a shorter sub-group. Work-item
//! `(x, y, z)` of a group of actual size `(lx, ly, lz)` is in sub-group
//! `(z·ly + y)·⌈lx/S⌉ + ⌊x/S⌋` with sub-group local id `x mod S`. In the
//! JIT a sub-group is exactly one SIMD chunk and `S` its width.

use crate::builtin::Builtin;

/// A reduction or scan operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubGroupOp {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
}

impl SubGroupOp {
    fn parse(s: &str) -> Option<SubGroupOp> {
        Some(match s {
            "add" => SubGroupOp::Add,
            "mul" => SubGroupOp::Mul,
            "min" => SubGroupOp::Min,
            "max" => SubGroupOp::Max,
            "and" => SubGroupOp::And,
            "or" => SubGroupOp::Or,
            "xor" => SubGroupOp::Xor,
            "logical_and" => SubGroupOp::LogicalAnd,
            "logical_or" => SubGroupOp::LogicalOr,
            "logical_xor" => SubGroupOp::LogicalXor,
            _ => return None,
        })
    }

    /// A small number naming the operator (the JIT's helper takes it).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The operator of [`SubGroupOp::code`].
    /// A `const fn`, so that generated code can name an operator by its
    /// code as a constant (the JIT's combine has one copy per operator).
    pub const fn from_code(c: u32) -> Option<SubGroupOp> {
        use SubGroupOp::*;
        Some(match c {
            0 => Add,
            1 => Mul,
            2 => Min,
            3 => Max,
            4 => And,
            5 => Or,
            6 => Xor,
            7 => LogicalAnd,
            8 => LogicalOr,
            9 => LogicalXor,
            _ => return None,
        })
    }
}

/// A sub-group query (`get_sub_group_*`), each a `uint` or, for the masks, a `uint4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubGroupQuery {
    Size,
    MaxSize,
    Num,
    EnqueuedNum,
    Id,
    LocalId,
    EqMask,
    GeMask,
    GtMask,
    LeMask,
    LtMask,
}

impl SubGroupQuery {
    /// The query builtin `b` is, if it is one.
    pub fn of(b: Builtin) -> Option<SubGroupQuery> {
        Some(match b {
            Builtin::GetSubGroupSize => SubGroupQuery::Size,
            Builtin::GetMaxSubGroupSize => SubGroupQuery::MaxSize,
            Builtin::GetNumSubGroups => SubGroupQuery::Num,
            Builtin::GetEnqueuedNumSubGroups => SubGroupQuery::EnqueuedNum,
            Builtin::GetSubGroupId => SubGroupQuery::Id,
            Builtin::GetSubGroupLocalId => SubGroupQuery::LocalId,
            Builtin::GetSubGroupEqMask => SubGroupQuery::EqMask,
            Builtin::GetSubGroupGeMask => SubGroupQuery::GeMask,
            Builtin::GetSubGroupGtMask => SubGroupQuery::GtMask,
            Builtin::GetSubGroupLeMask => SubGroupQuery::LeMask,
            Builtin::GetSubGroupLtMask => SubGroupQuery::LtMask,
            _ => return None,
        })
    }

    /// Whether the value differs between the work-items of one sub-group.
    pub fn per_item(self) -> bool {
        matches!(
            self,
            SubGroupQuery::LocalId
                | SubGroupQuery::EqMask
                | SubGroupQuery::GeMask
                | SubGroupQuery::GtMask
                | SubGroupQuery::LeMask
                | SubGroupQuery::LtMask
        )
    }

    /// The mask of a `get_sub_group_*_mask` query for local id `lid`, with
    /// `size` the maximum sub-group size (bits at and above it are clear,
    /// as the conformance tests read the specification).
    pub fn mask(self, lid: u32, size: u32) -> [u32; 4] {
        let bit = |i: u32| -> bool {
            i < size
                && match self {
                    SubGroupQuery::EqMask => i == lid,
                    SubGroupQuery::GeMask => i >= lid,
                    SubGroupQuery::GtMask => i > lid,
                    SubGroupQuery::LeMask => i <= lid,
                    SubGroupQuery::LtMask => i < lid,
                    _ => false,
                }
        };
        std::array::from_fn(|w| {
            (0..32).fold(0u32, |acc, b| {
                acc | (u32::from(bit(w as u32 * 32 + b)) << b)
            })
        })
    }
}

/// A sub-group function that combines the values of the sub-group's
/// work-items. Each works over the *active* work-items of the sub-group
/// (those executing the call), in sub-group local id order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubGroupFn {
    /// `sub_group_all`, `sub_group_non_uniform_all`.
    All,
    /// `sub_group_any`, `sub_group_non_uniform_any`.
    Any,
    /// `sub_group_non_uniform_all_equal`.
    AllEqual,
    /// `sub_group_elect`: true for the active work-item of lowest id.
    Elect,
    /// `sub_group_broadcast`, `sub_group_non_uniform_broadcast`.
    Broadcast,
    /// `sub_group_broadcast_first`.
    BroadcastFirst,
    Reduce(SubGroupOp),
    ScanInclusive(SubGroupOp),
    ScanExclusive(SubGroupOp),
    /// `sub_group_clustered_reduce_<op>(x, clustersize)`.
    ClusteredReduce(SubGroupOp),
    /// `sub_group_ballot(predicate)`: a `uint4` of the active items' bits.
    Ballot,
    /// `sub_group_shuffle(x, id)`.
    Shuffle,
    /// `sub_group_shuffle_xor(x, mask)`.
    ShuffleXor,
    /// `sub_group_shuffle_up(x, delta)`: from local id `lid - delta`.
    ShuffleUp,
    /// `sub_group_shuffle_down(x, delta)`: from local id `lid + delta`.
    ShuffleDown,
    /// `sub_group_rotate(x, delta)`: from `(lid + delta) mod size`.
    Rotate,
    /// `sub_group_clustered_rotate(x, delta, clustersize)`.
    ClusteredRotate,
}

impl SubGroupFn {
    /// The function builtin `b` is, if it is one; read from its name,
    /// whose parts (`non_uniform_`, `clustered_`, `reduce_`, the operator)
    /// say it.
    pub fn of(b: Builtin) -> Option<SubGroupFn> {
        use SubGroupFn::*;
        let rest = b.name().strip_prefix("sub_group_")?;
        let rest = rest.strip_prefix("non_uniform_").unwrap_or(rest);
        Some(match rest {
            "all" => All,
            "any" => Any,
            "all_equal" => AllEqual,
            "elect" => Elect,
            "broadcast" => Broadcast,
            "broadcast_first" => BroadcastFirst,
            "ballot" => Ballot,
            "shuffle" => Shuffle,
            "shuffle_xor" => ShuffleXor,
            "shuffle_up" => ShuffleUp,
            "shuffle_down" => ShuffleDown,
            "rotate" => Rotate,
            "clustered_rotate" => ClusteredRotate,
            _ => {
                if let Some(op) = rest.strip_prefix("reduce_") {
                    Reduce(SubGroupOp::parse(op)?)
                } else if let Some(op) = rest.strip_prefix("scan_inclusive_") {
                    ScanInclusive(SubGroupOp::parse(op)?)
                } else if let Some(op) = rest.strip_prefix("scan_exclusive_") {
                    ScanExclusive(SubGroupOp::parse(op)?)
                } else if let Some(op) = rest.strip_prefix("clustered_reduce_") {
                    ClusteredReduce(SubGroupOp::parse(op)?)
                } else {
                    return None;
                }
            }
        })
    }

    /// Whether the result is the same for every active work-item of the
    /// sub-group.
    pub fn uniform_result(self) -> bool {
        use SubGroupFn::*;
        matches!(
            self,
            All | Any | AllEqual | Broadcast | BroadcastFirst | Reduce(_) | Ballot
        )
    }

    /// A small number naming the function (the JIT's helper takes it),
    /// with the operator's code in the high bits.
    pub fn code(self) -> u32 {
        use SubGroupFn::*;
        let (k, op) = match self {
            All => (0, 0),
            Any => (1, 0),
            AllEqual => (2, 0),
            Elect => (3, 0),
            Broadcast => (4, 0),
            BroadcastFirst => (5, 0),
            Reduce(op) => (6, op.code()),
            ScanInclusive(op) => (7, op.code()),
            ScanExclusive(op) => (8, op.code()),
            ClusteredReduce(op) => (9, op.code()),
            Ballot => (10, 0),
            Shuffle => (11, 0),
            ShuffleXor => (12, 0),
            ShuffleUp => (13, 0),
            ShuffleDown => (14, 0),
            Rotate => (15, 0),
            ClusteredRotate => (16, 0),
        };
        k | (op << 8)
    }

    /// The function of [`SubGroupFn::code`].
    pub fn from_code(c: u32) -> Option<SubGroupFn> {
        use SubGroupFn::*;
        let op = SubGroupOp::from_code(c >> 8);
        Some(match c & 0xff {
            0 => All,
            1 => Any,
            2 => AllEqual,
            3 => Elect,
            4 => Broadcast,
            5 => BroadcastFirst,
            6 => Reduce(op?),
            7 => ScanInclusive(op?),
            8 => ScanExclusive(op?),
            9 => ClusteredReduce(op?),
            10 => Ballot,
            11 => Shuffle,
            12 => ShuffleXor,
            13 => ShuffleUp,
            14 => ShuffleDown,
            15 => Rotate,
            16 => ClusteredRotate,
            _ => return None,
        })
    }
}

/// A per-item function of a ballot value (`cl_khr_subgroup_ballot`): a
/// function of the `uint4`, the item's local id and the sub-group's size,
/// with no exchange between items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BallotQuery {
    /// `sub_group_inverse_ballot(value)`: the item's own bit.
    Inverse,
    /// `sub_group_ballot_bit_extract(value, index)`.
    BitExtract,
    BitCount,
    InclusiveScan,
    ExclusiveScan,
    FindLsb,
    FindMsb,
}

impl BallotQuery {
    /// The ballot query builtin `b` is, if it is one.
    pub fn of(b: Builtin) -> Option<BallotQuery> {
        Some(match b {
            Builtin::SubGroupInverseBallot => BallotQuery::Inverse,
            Builtin::SubGroupBallotBitExtract => BallotQuery::BitExtract,
            Builtin::SubGroupBallotBitCount => BallotQuery::BitCount,
            Builtin::SubGroupBallotInclusiveScan => BallotQuery::InclusiveScan,
            Builtin::SubGroupBallotExclusiveScan => BallotQuery::ExclusiveScan,
            Builtin::SubGroupBallotFindLsb => BallotQuery::FindLsb,
            Builtin::SubGroupBallotFindMsb => BallotQuery::FindMsb,
            _ => return None,
        })
    }

    /// The result for the item of local id `lid`; `index` is
    /// `sub_group_ballot_bit_extract`'s second argument. Only the bits
    /// below `size`, the maximum sub-group size, count (the conformance
    /// tests read "the bits of the sub-group's work-items" so).
    pub fn eval(self, value: [u32; 4], index: u32, lid: u32, size: u32) -> u32 {
        let bit = |i: u32| i < 128 && (value[(i / 32) as usize] >> (i % 32)) & 1 == 1;
        let count = |n: u32| (0..n.min(size)).filter(|&i| bit(i)).count() as u32;
        match self {
            BallotQuery::Inverse => u32::from(bit(lid)),
            BallotQuery::BitExtract => u32::from(bit(index)),
            BallotQuery::BitCount => count(size),
            BallotQuery::InclusiveScan => count(lid + 1),
            BallotQuery::ExclusiveScan => count(lid),
            BallotQuery::FindLsb => (0..size).find(|&i| bit(i)).unwrap_or(u32::MAX),
            BallotQuery::FindMsb => (0..size).rev().find(|&i| bit(i)).unwrap_or(u32::MAX),
        }
    }
}

/// The order of a float `sub_group_reduce_add` (an order OpenCL leaves to
/// the implementation): the JIT adds the chunk's 128-bit pieces lane-wise,
/// then the lanes of that sum in order. With `per_piece` lanes per piece
/// (4 for `float`, 2 for `double`), lane `k` of the pieces' sum is
/// `x[k] + x[k + per_piece] + …` in that order, and the result is
/// `((0 + s[0]) + s[1]) + …`; an inactive or missing lane counts as +0.
/// `values` are the active items' (local id, value), in local id order;
/// `add` is the type's addition.
pub fn float_sum_order<T: Copy>(
    values: &[(u64, T)],
    per_piece: usize,
    zero: T,
    add: impl Fn(T, T) -> T,
) -> T {
    let per_piece = per_piece.max(1);
    let lanes = values.last().map_or(0, |&(l, _)| l as usize + 1);
    let pieces = lanes.div_ceil(per_piece).max(1);
    let at = |j: usize| {
        values
            .iter()
            .find(|&&(l, _)| l as usize == j)
            .map_or(zero, |&(_, v)| v)
    };
    let mut acc = zero;
    for k in 0..per_piece {
        let mut s = at(k);
        for p in 1..pieces {
            s = add(s, at(p * per_piece + k));
        }
        acc = add(acc, s);
    }
    acc
}

/// Whether `b` is a sub-group builtin the IR knows: a query, a
/// combining function or a ballot query.
pub fn is_sub_group_builtin(b: Builtin) -> bool {
    SubGroupQuery::of(b).is_some() || SubGroupFn::of(b).is_some() || BallotQuery::of(b).is_some()
}

/// Whether sub-group function `b` gives every active work-item of the
/// sub-group the same result, whatever its operands.
pub fn same_in_every_item(b: Builtin) -> bool {
    SubGroupFn::of(b).is_some_and(|f| f.uniform_result())
}

/// Whether the result of sub-group builtin `b` may differ between the
/// work-items of a sub-group even when its arguments do not.
pub fn lane_dependent(b: Builtin) -> bool {
    if let Some(q) = SubGroupQuery::of(b) {
        return q.per_item();
    }
    if let Some(f) = SubGroupFn::of(b) {
        return !f.uniform_result();
    }
    // Ballot queries depend on the item's local id.
    BallotQuery::of(b).is_some()
}

/// The sub-group of local id `local` in a group of actual size
/// `local_size` with sub-groups of `s` items: (sub-group id, local id
/// within it, that sub-group's size). See the module header.
pub fn place(local: [u64; 3], local_size: [u64; 3], s: u64) -> (u64, u64, u64) {
    let s = s.max(1);
    let per_row = local_size[0].div_ceil(s);
    let row = local[2] * local_size[1] + local[1];
    let first = local[0] / s * s;
    (
        row * per_row + local[0] / s,
        local[0] % s,
        s.min(local_size[0] - first),
    )
}

/// The number of sub-groups of a group of size `local_size`.
pub fn count(local_size: [u64; 3], s: u64) -> u64 {
    local_size[0].div_ceil(s.max(1)) * local_size[1] * local_size[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_decode_to_functions_and_codes_round_trip() {
        for &b in Builtin::ALL {
            if let Some(f) = SubGroupFn::of(b) {
                assert_eq!(SubGroupFn::from_code(f.code()), Some(f), "{b}");
            }
        }
        assert_eq!(
            SubGroupFn::of(Builtin::SubGroupNonUniformScanExclusiveLogicalXor),
            Some(SubGroupFn::ScanExclusive(SubGroupOp::LogicalXor))
        );
        assert_eq!(SubGroupFn::of(Builtin::WorkGroupReduceAdd), None);
        assert!(lane_dependent(Builtin::GetSubGroupLocalId));
        assert!(lane_dependent(Builtin::SubGroupScanInclusiveAdd));
        assert!(!lane_dependent(Builtin::SubGroupReduceAdd));
    }

    #[test]
    fn rows_split_into_sub_groups_with_a_short_last_one() {
        // Rows of 6 with S = 4: sub-groups of 4 and 2 per row.
        assert_eq!(place([5, 0, 0], [6, 2, 1], 4), (1, 1, 2));
        assert_eq!(place([3, 1, 0], [6, 2, 1], 4), (2, 3, 4));
        assert_eq!(count([6, 2, 1], 4), 4);
        assert_eq!(count([16, 1, 1], 4), 4);
    }

    #[test]
    fn ballot_queries_count_the_sub_groups_bits_only() {
        let v = [0b1011_0110, 0, 0, 1];
        assert_eq!(BallotQuery::BitCount.eval(v, 0, 0, 8), 5);
        assert_eq!(BallotQuery::BitCount.eval(v, 0, 0, 4), 2);
        assert_eq!(BallotQuery::InclusiveScan.eval(v, 0, 2, 8), 2);
        assert_eq!(BallotQuery::ExclusiveScan.eval(v, 0, 2, 8), 1);
        assert_eq!(BallotQuery::FindLsb.eval(v, 0, 0, 8), 1);
        assert_eq!(BallotQuery::FindMsb.eval(v, 0, 0, 8), 7);
        assert_eq!(BallotQuery::BitExtract.eval(v, 96, 0, 8), 1);
        assert_eq!(SubGroupQuery::GtMask.mask(1, 4), [0b1100, 0, 0, 0]);
    }
}

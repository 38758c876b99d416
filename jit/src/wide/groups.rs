//! The work-group queries of the wide code (`get_local_id`,
//! `get_group_id`, `get_local_size`, `get_enqueued_local_size`,
//! `get_num_groups` of a constant dimension), from the group's coordinate
//! that the entry keeps for the group it runs ([`Op::GroupId`]) and the
//! launch's fields: with `g` the group's coordinate, `L` the enqueued
//! local size and `o` the global offset, the group's first id is
//! `s = g · L + o`, a lane's local id its global id minus `s`, and the
//! local size `min(L, global size - g · L)` (the last group of a
//! dimension may be smaller, OpenCL 2.0's non-uniform groups). Every chunk
//! loop runs the chunks of one group at a time, so the coordinate holds
//! for each; the values made of it alone are the same in every row and
//! computed once per row (`entry::row_invariant_ops`).
//!
//! (These were each lane's `(global id - o) / L` and its remainder before,
//! two `vdivpd` per query and chunk: a 2-D copy indexed by
//! `get_group_id(0) * 16 + get_local_id(0)` ran 4.7x slower than
//! Cranelift's code, `docs/wide.md`.)

use super::{Arg, Bin, Op, Program};
use crate::abi::launch_offsets as lo;
use vecl_ir::WorkItemFn;

/// The launch's 64-bit field at `base` of dimension `dim`, its low 32 bits
/// in every lane (the fields the queries read stay below 2^31).
fn field(p: &mut Program, base: i32, dim: u8) -> super::V {
    p.broadcast(Arg::Launch, base + 8 * i32::from(dim))
}

/// `f` in dimension `dim` (0–2), or `None` for a query this file does not
/// compute.
pub fn group_query(p: &mut Program, f: WorkItemFn, dim: u8) -> Option<super::V> {
    let local = |p: &mut Program| field(p, lo::LOCAL_SIZE, dim);
    Some(match f {
        WorkItemFn::EnqueuedLocalSize => local(p),
        WorkItemFn::NumGroups => field(p, lo::NUM_GROUPS, dim),
        WorkItemFn::LocalId | WorkItemFn::GroupId | WorkItemFn::LocalSize => {
            let g = p.v();
            p.push(Op::GroupId { d: g, dim });
            if f == WorkItemFn::GroupId {
                return Some(g);
            }
            let l = local(p);
            let before = p.bin(Bin::IMul, g, l);
            if f == WorkItemFn::LocalId {
                let off = field(p, lo::GLOBAL_OFFSET, dim);
                let start = p.bin(Bin::IAdd, before, off);
                let id = p.v();
                p.push(Op::GlobalId { d: id, dim });
                p.bin(Bin::ISub, id, start)
            } else {
                let size = field(p, lo::GLOBAL_SIZE, dim);
                let left = p.bin(Bin::ISub, size, before);
                p.bin(Bin::IMinS, l, left)
            }
        }
        _ => return None,
    })
}

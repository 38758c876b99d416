//! The work-group queries of the wide code (`get_local_id`,
//! `get_group_id`, `get_local_size`, `get_enqueued_local_size`,
//! `get_num_groups` of a constant dimension), computed from a lane's global
//! id and the launch's fields, so that they hold whatever chunk loop runs
//! the body: with `t = global id - global offset` and `L` the enqueued
//! local size, the group id is `t / L`, the local id `t % L`, and the local
//! size `min(L, global size - group id · L)` (the last group of a
//! dimension may be smaller, OpenCL 2.0's non-uniform groups). The entry
//! keeps ids below 2^31, so the 32-bit division of [`super::math`] is
//! exact; it costs two `vdivpd` per query and chunk.

use super::math::{divide, DivPart};
use super::{Arg, Bin, Op, Program, V};
use crate::abi::launch_offsets as lo;
use vecl_ir::WorkItemFn;

/// The launch's 64-bit field at `base` of dimension `dim`, its low 32 bits
/// in every lane (the fields the queries read stay below 2^31).
fn field(p: &mut Program, base: i32, dim: u8) -> V {
    p.broadcast(Arg::Launch, base + 8 * i32::from(dim))
}

/// `f` in dimension `dim` (0–2), or `None` for a query this file does not
/// compute.
pub fn group_query(p: &mut Program, f: WorkItemFn, dim: u8) -> Option<V> {
    let local = |p: &mut Program| field(p, lo::LOCAL_SIZE, dim);
    Some(match f {
        WorkItemFn::EnqueuedLocalSize => local(p),
        WorkItemFn::NumGroups => field(p, lo::NUM_GROUPS, dim),
        WorkItemFn::LocalId | WorkItemFn::GroupId | WorkItemFn::LocalSize => {
            let id = p.v();
            p.push(Op::GlobalId { d: id, dim });
            let off = field(p, lo::GLOBAL_OFFSET, dim);
            let t = p.bin(Bin::ISub, id, off);
            let l = local(p);
            match f {
                WorkItemFn::LocalId => divide(p, t, l, true, DivPart::Remainder),
                WorkItemFn::GroupId => divide(p, t, l, true, DivPart::Quotient),
                _ => {
                    let g = divide(p, t, l, true, DivPart::Quotient);
                    let start = p.bin(Bin::IMul, g, l);
                    let size = field(p, lo::GLOBAL_SIZE, dim);
                    let left = p.bin(Bin::ISub, size, start);
                    p.bin(Bin::IMinS, l, left)
                }
            }
        }
        _ => return None,
    })
}

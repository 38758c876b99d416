//! Lanes along another dimension: the copy of a kernel that runs launches
//! whose work-groups are one work-item wide in dimension 0.
//!
//! A chunk's lanes are consecutive work-items of dimension 0 (see
//! `lower::chunks`), so a group of local size (1, N) runs N chunks of one
//! active lane each. Such launches run a second compilation of the kernel
//! instead, made from a copy of its IR in which every work-item query of
//! dimension 0 asks about dimension `d` and every query of dimension `d`
//! about dimension 0 ([`swap_dimensions`]), launched with the sizes, offsets
//! and group counts of those two dimensions exchanged ([`swapped_launch`]).
//! Every work-item then sees exactly the ids and sizes it would have seen,
//! while the lanes of a chunk step along dimension `d`.
//!
//! Doing the exchange on the IR, before the uniformity analysis and the
//! stride analyses run, keeps them sound without teaching them a second
//! lane mapping: in the copy, dimension 0 is again the one whose ids are
//! consecutive across lanes, and the query that was `get_local_id(0)` is a
//! query of a dimension that is uniform within a chunk.
//!
//! What the exchange must preserve, and why it does:
//! - The linear ids. `get_local_linear_id` is `l0 + L0 * (l1 + L1 * l2)`;
//!   the copy is used only when the local size is 1 in every dimension
//!   below `d` (see [`lanes_along`]), where the ids are 0 and the sizes 1,
//!   so the copy's own formula gives the same number. `get_global_linear_id`
//!   has the global sizes as factors, which are not 1: a kernel that calls
//!   it keeps the one mapping.
//! - A dimension known only at run time cannot be exchanged in the IR: such
//!   a kernel keeps the one mapping too.
//! - Sub-group and work-group collective functions order work-items by
//!   their linear id; a kernel that calls one keeps the one mapping.
//! - The linear group index the runtime hands out counts groups in the
//!   launch's order in the copy too (`lower::chunks` decodes it by
//!   [`launch_order`]), so the copy runs the same groups in the same order.
//! - Barriers, `__local` memory and the context area are per group and the
//!   same groups exist, so they need nothing; checked mode reports the
//!   faulting work-item's id in the launch's own dimensions
//!   (`lower::bounds`).

use crate::abi::Launch;
use vecl_ir::{
    Block, Builtin, FuncId, Function, Inst, InstData, Module, Stmt, ValueId, WorkItemFn,
};

/// The dimension a launch's lanes should step along: `None` (dimension 0)
/// unless its groups are one work-item wide in dimension 0, in which case
/// the lowest dimension with more than one work-item, when there is one
/// (dimension 2 only when dimension 1 is one wide too).
pub(crate) fn lanes_along(launch: &Launch) -> Option<usize> {
    if launch.local_size[0] != 1 {
        return None;
    }
    (1..3).find(|&d| launch.local_size[d] > 1)
}

/// `launch` with dimensions 0 and `d` exchanged: what the copy made by
/// [`swap_dimensions`] runs. The group count of each dimension moves with
/// it; the copy counts the linear group index in the launch's order
/// ([`launch_order`]), so the range `first..end` of a call names the same
/// groups as it would in the kernel's own code.
pub(crate) fn swapped_launch(launch: &Launch, d: usize) -> Launch {
    let mut l = *launch;
    l.global_offset.swap(0, d);
    l.global_size.swap(0, d);
    l.local_size.swap(0, d);
    l.num_groups.swap(0, d);
    l
}

/// The copy's dimensions in the order the launch counts its groups, fastest
/// first: `[0, 1, 2]` for the kernel's own code; the launch's dimension `i`
/// is the copy's dimension `i` with 0 and `lanes_along` exchanged.
pub(crate) fn launch_order(lanes_along: usize) -> [usize; 3] {
    let mut order = [0, 1, 2];
    order.swap(0, lanes_along);
    order
}

/// What compiling the copies of kernel `kernel` needs of `module`, kept
/// with the kernel until a launch wants a copy: the module with every
/// function the kernel does not reach through calls left as an empty
/// declaration (function ids stay as they are), so that a program of many
/// kernels does not keep a whole module per kernel.
pub(crate) fn module_for(module: &Module, kernel: &str) -> Module {
    let mut reached = vec![false; module.functions.len()];
    let mut work: Vec<usize> = module
        .functions
        .iter()
        .position(|f| f.kernel.is_some() && f.name == kernel)
        .into_iter()
        .collect();
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut reached[i], true) {
            continue;
        }
        for d in &module.functions[i].insts {
            if let Inst::Call(FuncId(f), _) = d.inst {
                if reached.get(f as usize) == Some(&false) {
                    work.push(f as usize);
                }
            }
        }
    }
    Module {
        structs: module.structs.clone(),
        globals: module.globals.clone(),
        relocs: module.relocs.clone(),
        math: module.math,
        functions: module
            .functions
            .iter()
            .zip(&reached)
            .map(|(f, &keep)| match keep {
                true => f.clone(),
                false => Function::new(f.name.clone(), f.params.clone(), f.ret.clone()),
            })
            .collect(),
    }
}

/// Why a kernel (after inlining) cannot have a copy with lanes along
/// another dimension; `None` when it can.
pub(crate) fn obstacle(func: &Function) -> Option<String> {
    for d in &func.insts {
        match &d.inst {
            Inst::WorkItem(WorkItemFn::GlobalLinearId, _) => {
                return Some("it calls get_global_linear_id".into())
            }
            Inst::WorkItem(f, Some(dim)) if func.int_const(*dim).is_none() => {
                return Some(format!(
                    "a dimension of {} is known only at run time",
                    query_name(*f)
                ))
            }
            Inst::Builtin(name, _) if collective(*name) => {
                return Some(format!("it calls {name}"));
            }
            Inst::Call(..) => return Some("a call is left after inlining".into()),
            _ => {}
        }
    }
    None
}

/// Builtins whose result depends on how work-items are ordered within a
/// group (sub-group functions and the work-group collectives).
fn collective(name: Builtin) -> bool {
    matches!(
        name,
        vecl_ir::sub_group_builtins!() | vecl_ir::work_group_builtins!()
    )
}

/// The OpenCL C name of a work-item query.
pub(crate) fn query_name(f: WorkItemFn) -> &'static str {
    match f {
        WorkItemFn::WorkDim => "get_work_dim",
        WorkItemFn::GlobalSize => "get_global_size",
        WorkItemFn::GlobalId => "get_global_id",
        WorkItemFn::LocalSize => "get_local_size",
        WorkItemFn::EnqueuedLocalSize => "get_enqueued_local_size",
        WorkItemFn::LocalId => "get_local_id",
        WorkItemFn::NumGroups => "get_num_groups",
        WorkItemFn::GroupId => "get_group_id",
        WorkItemFn::GlobalOffset => "get_global_offset",
        WorkItemFn::GlobalLinearId => "get_global_linear_id",
        WorkItemFn::LocalLinearId => "get_local_linear_id",
    }
}

/// A copy of `func` whose work-item queries of dimension 0 ask about
/// dimension `d` (1 or 2) and those of dimension `d` about dimension 0.
/// Each exchanged query gets a constant of its own (the old one may have
/// other uses), evaluated just before it. Fails with the reason when
/// [`obstacle`] finds one.
pub(crate) fn swap_dimensions(func: &Function, d: usize) -> Result<Function, String> {
    if let Some(why) = obstacle(func) {
        return Err(why);
    }
    let mut out = func.clone();
    let body = std::mem::take(&mut out.body);
    out.body = swap_in_block(&mut out, body, d as i64);
    Ok(out)
}

fn swap_in_block(func: &mut Function, block: Block, d: i64) -> Block {
    let mut stmts = Vec::with_capacity(block.0.len());
    for s in block.0 {
        match s {
            Stmt::Eval(v) => {
                if let Inst::WorkItem(f, Some(dim)) = func.inst(v).inst {
                    let other = match func.int_const(dim) {
                        Some(0) => Some(d),
                        Some(c) if c == d => Some(0),
                        _ => None,
                    };
                    if let Some(c) = other {
                        let k = ValueId(func.insts.len() as u32);
                        let data = InstData {
                            inst: Inst::Const(c as u64),
                            ty: func.ty(dim).clone(),
                            loc: func.inst(v).loc,
                        };
                        func.insts.push(data);
                        stmts.push(Stmt::Eval(k));
                        func.insts[v.index()].inst = Inst::WorkItem(f, Some(k));
                    }
                }
                stmts.push(Stmt::Eval(v));
            }
            Stmt::If { cond, then_, else_ } => stmts.push(Stmt::If {
                cond,
                then_: swap_in_block(func, then_, d),
                else_: swap_in_block(func, else_, d),
            }),
            Stmt::Loop { body, continuing } => stmts.push(Stmt::Loop {
                body: swap_in_block(func, body, d),
                continuing: swap_in_block(func, continuing, d),
            }),
            Stmt::Switch { selector, cases } => stmts.push(Stmt::Switch {
                selector,
                cases: cases
                    .into_iter()
                    .map(|mut c| {
                        c.body = swap_in_block(func, c.body, d);
                        c
                    })
                    .collect(),
            }),
            other => stmts.push(other),
        }
    }
    Block(stmts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(local: [u64; 3]) -> Launch {
        Launch::new(3, [1, 2, 3], [4, 64, 8], local)
    }

    #[test]
    fn lanes_go_along_the_lowest_dimension_with_work_items_once_dimension_0_is_one_wide() {
        assert_eq!(lanes_along(&launch([4, 8, 1])), None);
        assert_eq!(lanes_along(&launch([1, 8, 2])), Some(1));
        assert_eq!(lanes_along(&launch([1, 1, 8])), Some(2));
        assert_eq!(lanes_along(&launch([1, 1, 1])), None);
    }

    #[test]
    fn the_swapped_launch_exchanges_every_field_of_the_two_dimensions() {
        let l = launch([1, 16, 2]);
        let s = swapped_launch(&l, 1);
        assert_eq!(s.global_offset, [2, 1, 3]);
        assert_eq!(s.global_size, [64, 4, 8]);
        assert_eq!(s.local_size, [16, 1, 2]);
        assert_eq!(s.num_groups, [4, 4, 4]);
        assert_eq!(s.total_groups(), l.total_groups());
        assert_eq!(s.work_dim, l.work_dim);
    }

    #[test]
    fn the_copy_counts_groups_in_the_launch_s_order() {
        assert_eq!(launch_order(0), [0, 1, 2]);
        assert_eq!(launch_order(1), [1, 0, 2]);
        assert_eq!(launch_order(2), [2, 1, 0]);
        // Group (a, b, c) of the launch is group (b, a, c) of the copy
        // along dimension 1; counted by `launch_order`, both have the
        // linear index a + 4 * (b + 4 * c).
        let s = swapped_launch(&launch([1, 16, 2]), 1);
        let order = launch_order(1);
        let ng = s.num_groups;
        let linear = |copy: [u64; 3]| {
            copy[order[0]] + ng[order[0]] * (copy[order[1]] + ng[order[1]] * copy[order[2]])
        };
        assert_eq!(linear([2, 3, 2]), 3 + 4 * (2 + 4 * 2));
    }
}

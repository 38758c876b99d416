//! Whether a kernel can observe the shape of its work-groups.
//!
//! A kernel with no barrier, no `__local` memory, no query of its local
//! ids, sizes, group ids or group counts and no work-group or sub-group
//! function computes the same thing whatever local size it is launched
//! with: each work-item sees only its global id, the global sizes and
//! offsets, and memory that every group shares. The runtime may then run
//! a launch with groups too narrow to fill a chunk (1×1, 1×N) as if the
//! application had left the local size to the device.
//!
//! The test is conservative: it runs on the kernel after inlining, where
//! every helper's body is part of the kernel, and refuses on anything it
//! does not know to be shape-free: a call left after inlining, any builtin
//! whose name speaks of groups or barriers (`async_work_group_copy`,
//! `wait_group_events`, `work_group_*`, `sub_group_*`,
//! `get_sub_group_*`), and any pointer into `__local` memory, whether a
//! parameter, a `__local` variable or a value of the body.

use vecl_ir::{AddressSpace, Builtin, Function, Inst, Module, Type, WorkItemFn};

/// Why `func` (a kernel after inlining) can observe its groups' shape;
/// `None` when it cannot.
pub(crate) fn observer(module: &Module, func: &Function) -> Option<String> {
    if func.params.iter().any(|p| points_into_local(&p.ty)) {
        return Some("a __local parameter".into());
    }
    if vecl_ir::contains_barrier(&func.body.0) {
        return Some("a barrier".into());
    }
    for d in &func.insts {
        let why = match &d.inst {
            Inst::WorkItem(
                f @ (WorkItemFn::LocalId
                | WorkItemFn::LocalSize
                | WorkItemFn::EnqueuedLocalSize
                | WorkItemFn::GroupId
                | WorkItemFn::NumGroups
                | WorkItemFn::LocalLinearId),
                _,
            ) => Some(crate::lane_axis::query_name(*f).to_string()),
            Inst::Builtin(
                name @ (vecl_ir::work_group_builtins!()
                | vecl_ir::sub_group_builtins!()
                | Builtin::WorkGroupCombine
                | Builtin::AsyncWorkGroupCopy
                | Builtin::AsyncWorkGroupStridedCopy
                | Builtin::WaitGroupEvents),
                _,
            ) => Some(name.name().to_string()),
            Inst::Call(..) => Some("a call left after inlining".into()),
            Inst::GlobalAddr(g) => module
                .globals
                .get(g.index())
                .filter(|g| g.space == AddressSpace::Local)
                .map(|g| format!("__local variable {}", g.name)),
            _ => None,
        };
        if why.is_some() {
            return why;
        }
        if points_into_local(&d.ty) {
            return Some("__local memory".into());
        }
    }
    None
}

/// Whether `ty` is, or points through pointers to, a `__local` pointer.
fn points_into_local(ty: &Type) -> bool {
    match ty {
        Type::Pointer(AddressSpace::Local, _) => true,
        Type::Pointer(_, inner) | Type::Array(inner, _) => points_into_local(inner),
        _ => false,
    }
}

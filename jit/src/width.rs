//! How many work-items a chunk holds: the default width of a kernel none
//! is asked for, and whether its optimised code gets a wide copy. The
//! rules and the measurements behind them are on [`default_width`] and
//! [`wide_width`].

use crate::tiers::Tier;
use crate::JitOptions;
use vecl_ir::{Inst, Module};

/// IR instructions (after inlining) above which the default SIMD width is 4
/// (see [`default_width`]).
const LARGE_KERNEL_IR_INSTS: usize = 3000;

/// The SIMD width of a kernel when none is asked for.
///
/// - 16 by default. A chunk's scalar work (addresses, the consecutive
///   test, a loop's own counting) is shared by twice the lanes of W = 8; a
///   tiled kernel's uniform operand feeds four vectors instead of two
///   (`benches/matmul.cl` at 256²: 59.7 M → 40.0 M instructions); each
///   consecutive access moves a whole 64-byte line, which a streaming
///   store (`lower::stream`) needs (`benches/saxpy.cl` over 16M floats on
///   two threads: ~4.0 → ~3.7 ms); and a loop's four independent vectors
///   per value hide the latency of its arithmetic. That holds for
///   divergent loops too, although every iteration runs until the chunk's
///   slowest lane is done: `benches/mandelbrot.cl` at 1024² on one thread
///   takes ~25.2 ms at W = 8 and ~20.8 ms at W = 16.
/// - 8 when a loop holds work done lane by lane: an atomic, or a load or
///   store whose address is neither uniform nor consecutive. Each of its
///   W scalars is a register of its own, and at W = 16 they spill
///   (`benches/histogram.cl` on one thread: ~23 ms at W = 8, ~31 ms at
///   W = 16; 10.9 M against 23.1 M instructions per launch).
/// - 32 for a barrier kernel whose regions run straight through: every
///   loop holds a barrier, and a branch that differs between work-items
///   writes no memory. Its cost is the per-chunk work of entering each
///   region (the items' ids, the live values kept across barriers in the
///   context area), which twice the lanes share: `benches/scan.cl` over
///   16M ints on two threads ~10.5 → ~9.7 ms (28.2 M → 25.6 M
///   instructions at 1M). A masked store under a branch is not such a
///   region: the tree reduction's `if (lid < s) x[lid] += x[lid + s]`
///   runs its last rounds on one chunk, twice as wide for the same few
///   lanes (`benches/reduce.cl` ~4.5 → ~5.1 ms at 32), and a loop in a
///   region (`benches/matmul.cl`, `benches/nbody.cl`) spills.
/// - 4 for a very large kernel (a cipher or random-number generator
///   inlined several times): machine code, and Cranelift's register
///   allocation even more, grow with the width.
///
/// The optimised code of some kernels at 16 also has a copy at 32 for the
/// launches it suits (`wide_width`).
pub(crate) fn default_width(
    module: &Module,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> u32 {
    if func.insts.len() > LARGE_KERNEL_IR_INSTS {
        4
    } else if lane_work_in_loops(module, func, uni) {
        8
    } else if vecl_ir::contains_barrier(&func.body.0) && short_regions(&func.body, func, uni) {
        WIDE_WIDTH
    } else {
        16
    }
}

/// Whether a loop of `func` holds work done lane by lane: an atomic, or
/// a load or store whose address is neither uniform nor consecutive
/// (what makes [`default_width`] 8 for Cranelift's code; the wide code
/// makes such an access one gather or scatter instruction, and
/// `compile` asks it to take such a kernel at 16 first).
pub(crate) fn lane_work_in_loops(
    module: &Module,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> bool {
    lane_work_from(module, func, uni, false)
}

/// Whether `func` holds work done lane by lane in a loop, or (`stores`)
/// a store done lane by lane anywhere.
fn lane_work_from(
    module: &Module,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
    stores: bool,
) -> bool {
    use vecl_ir::analysis::uniformity::Shape;
    use vecl_ir::{Inst, Stmt};
    // Whether the access through `ptr` is done lane by lane.
    let per_lane = |ptr: vecl_ir::ValueId| -> bool {
        let elem_bytes = match &func.insts[ptr.0 as usize].ty {
            vecl_ir::Type::Pointer(_, pointee) => {
                i64::from(vecl_ir::size_of(pointee, &module.structs))
            }
            _ => 0,
        };
        match uni.shape(ptr) {
            Shape::Uniform => false,
            Shape::Linear(stride) => stride != elem_bytes,
            Shape::Varying => true,
        }
    };
    /// Whether `b`, inside a loop when `in_loop`, holds lane-by-lane work
    /// in a loop.
    fn lane_work_in_loop(
        b: &vecl_ir::Block,
        in_loop: bool,
        func: &vecl_ir::Function,
        per_lane: &dyn Fn(vecl_ir::ValueId) -> bool,
    ) -> bool {
        b.0.iter().any(|s| match s {
            Stmt::Loop { body, continuing } => {
                lane_work_in_loop(body, true, func, per_lane)
                    || lane_work_in_loop(continuing, true, func, per_lane)
            }
            Stmt::If { then_, else_, .. } => {
                lane_work_in_loop(then_, in_loop, func, per_lane)
                    || lane_work_in_loop(else_, in_loop, func, per_lane)
            }
            Stmt::Switch { cases, .. } => cases
                .iter()
                .any(|c| lane_work_in_loop(&c.body, in_loop, func, per_lane)),
            Stmt::Store { ptr, .. } => in_loop && per_lane(*ptr),
            Stmt::Eval(v) if in_loop => match &func.insts[v.0 as usize].inst {
                Inst::Load(ptr) | Inst::Atomic { ptr, .. } => per_lane(*ptr),
                _ => false,
            },
            _ => false,
        })
    }
    if stores {
        stores_lane_by_lane(&func.body, &per_lane)
    } else {
        lane_work_in_loop(&func.body, false, func, &per_lane)
    }
}

/// Whether `func` stores lane by lane anywhere, in a loop or not: a
/// scatter (a barrier kernel's loops are cut into regions, which
/// [`lane_work_in_loops`] no longer sees as loops).
pub(crate) fn lane_stores(
    module: &Module,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> bool {
    lane_work_from(module, func, uni, true)
}

/// Whether `b` holds a store whose address is neither uniform nor
/// consecutive.
fn stores_lane_by_lane(b: &vecl_ir::Block, per_lane: &dyn Fn(vecl_ir::ValueId) -> bool) -> bool {
    use vecl_ir::Stmt;
    b.0.iter().any(|s| match s {
        Stmt::Store { ptr, .. } => per_lane(*ptr),
        Stmt::Loop { body, continuing } => {
            stores_lane_by_lane(body, per_lane) || stores_lane_by_lane(continuing, per_lane)
        }
        Stmt::If { then_, else_, .. } => {
            stores_lane_by_lane(then_, per_lane) || stores_lane_by_lane(else_, per_lane)
        }
        Stmt::Switch { cases, .. } => cases.iter().any(|c| stores_lane_by_lane(&c.body, per_lane)),
        _ => false,
    })
}

/// Whether `b` may write memory: a store, an atomic, a call or a builtin.
fn writes(b: &vecl_ir::Block, func: &vecl_ir::Function) -> bool {
    use vecl_ir::{Inst, Stmt};
    b.0.iter().any(|s| match s {
        Stmt::Store { .. } | Stmt::Copy { .. } => true,
        Stmt::Eval(v) => matches!(
            func.insts[v.0 as usize].inst,
            Inst::Atomic { .. } | Inst::Call(..) | Inst::Builtin(..)
        ),
        Stmt::Loop { body, continuing } => writes(body, func) || writes(continuing, func),
        Stmt::If { then_, else_, .. } => writes(then_, func) || writes(else_, func),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| writes(&c.body, func)),
        _ => false,
    })
}

/// Whether the code of `b` between barriers runs straight through: every
/// loop holds a barrier, and every branch is the same for all work-items.
fn short_regions(
    b: &vecl_ir::Block,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> bool {
    use vecl_ir::Stmt;
    b.0.iter().all(|s| match s {
        Stmt::Loop { body, continuing } => {
            (vecl_ir::contains_barrier(&body.0) || vecl_ir::contains_barrier(&continuing.0))
                && short_regions(body, func, uni)
                && short_regions(continuing, func, uni)
        }
        Stmt::If { cond, then_, else_ } => {
            (uni.is_uniform(*cond) || (!writes(then_, func) && !writes(else_, func)))
                && short_regions(then_, func, uni)
                && short_regions(else_, func, uni)
        }
        Stmt::Switch { selector, cases } => {
            uni.is_uniform(*selector) && cases.iter().all(|c| short_regions(&c.body, func, uni))
        }
        _ => true,
    })
}

/// Width of the wide copy (see `wide_width`).
pub const WIDE_WIDTH: u32 = 32;

/// Whether the optimised code of a kernel gets a second function at
/// [`WIDE_WIDTH`] lanes per chunk, which launches whose groups split into
/// whole 32-lane chunks run (`CompiledKernel::run_groups`): a kernel
/// without barriers, compiled unchecked at the default width 16, with no
/// divergent loop. Twice the lanes share each chunk's scalar work (the
/// addresses and span tests of its accesses, uniform loads, loop
/// counters): `benches/conv5x5.cl` at 2048² on two threads ~7.1 → ~6.1
/// ms, `benches/blackscholes.cl` ~15.8 → ~15.1 ms. A divergent loop runs
/// until the chunk's slowest lane is done, and its values spill at W = 32
/// (`benches/mandelbrot.cl` 9.9 → 12.1 ms); barrier kernels keep their
/// per-chunk context at one width.
pub(crate) fn wide_width(
    tier: Tier,
    opts: &JitOptions,
    w: u32,
    func: &vecl_ir::Function,
    uni: &vecl_ir::analysis::uniformity::Uniformity,
) -> Option<u32> {
    let plain = tier == Tier::Optimised
        && opts.simd_width.is_none()
        && w == 16
        && !has_divergent_loop(&func.body, uni)
        && !uses_sub_groups(func);
    plain.then_some(WIDE_WIDTH)
}

/// Whether `func` calls a sub-group builtin: its sub-group size is its
/// chunk width, which must then be one width for every launch (no wide
/// copy).
pub(crate) fn uses_sub_groups(func: &vecl_ir::Function) -> bool {
    func.insts.iter().any(
        |d| matches!(&d.inst, Inst::Builtin(n, _) if vecl_ir::sub_group::is_sub_group_builtin(*n)),
    )
}

/// Whether `b` holds a loop whose trip count differs between work-items.
fn has_divergent_loop(b: &vecl_ir::Block, uni: &vecl_ir::analysis::uniformity::Uniformity) -> bool {
    use vecl_ir::Stmt;
    b.0.iter().any(|s| match s {
        Stmt::Loop { body, continuing } => {
            uni.loop_is_divergent(body, continuing)
                || has_divergent_loop(body, uni)
                || has_divergent_loop(continuing, uni)
        }
        Stmt::If { then_, else_, .. } => {
            has_divergent_loop(then_, uni) || has_divergent_loop(else_, uni)
        }
        Stmt::Switch { cases, .. } => cases.iter().any(|c| has_divergent_loop(&c.body, uni)),
        _ => false,
    })
}

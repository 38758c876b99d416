//! Software prefetch for streaming loads.
//!
//! A kernel that streams through large inputs (`y[i] = a * x[i] + y[i]`
//! over 16M floats, the first pass of a reduction or a scan) waits on
//! memory for most of its time. The hardware prefetcher follows the
//! streams, but not far enough ahead for code that issues one 16-byte load
//! per stream and piece: a `prefetcht0` of the line 4 KiB ahead in every
//! chunk keeps more lines in flight. Two threads, medians of 20 launches:
//! saxpy 3.7–4.0 → 2.6–2.7 ms, reduce 5.4–5.7 → 4.6–4.7 ms, scan 12.8–13.0
//! → 10.9–11.0 ms; the 2-D kernels unchanged.
//!
//! Which loads: the full-chunk vector path of a consecutive load through a
//! `__global` pointer that derives from a kernel parameter, for the first
//! such load of each parameter outside every loop of the kernel code
//! ([`prefetched_loads`]). A loop's loads, and further loads of a buffer
//! already prefetched (the 25 taps of a 5×5 convolution on one image),
//! would add an instruction per chunk and fetch nothing new. A kernel
//! heavy with transcendental functions prefetches nothing: the hardware
//! prefetcher keeps up with it, and the extra fills slowed Black-Scholes.
//!
//! Where: [`DISTANCE`] bytes further along the stream, unless the load's
//! address moves with a loop's induction variable (a variable only ever
//! stepped by one constant, `t += 16`) by a stride known only at run time
//! or of at least that distance: then where the next step takes it
//! ([`Ahead::Step`]). In a tiled matrix product the tile of `b` moves 16
//! rows down per step, a stride the hardware prefetcher does not follow,
//! and 4 KiB further along is the next row, which the group loads at once
//! anyway: `benches/matmul.cl` at 1024² on two threads ~45 → ~41 ms. Each 64-byte
//! line the chunk's vector covers gets one prefetch, [`DISTANCE`] bytes
//! ahead. A prefetch never faults, so one past the end of a buffer is
//! harmless.
//!
//! Cranelift has no prefetch instruction. The lowering emits a byte load
//! (`uload8`, its result unused; a load that may trap stays in the code)
//! marked with [`prefetch_tag`] as its source location; after compilation
//! [`patch_prefetches`] rewrites each marked `movzx r, byte [m]` into
//! `prefetcht0 [m]`: the same length and memory operand, `0F B6 /r`
//! becoming `0F 18 /1`. The unpatched load could fault (it reads ahead of
//! the chunk), so the patch is all or nothing: unless exactly as many
//! marked loads are found as the compiled function holds, the function is
//! lowered again without prefetches (`define_kernel_function`).

use super::lanes::Lanes;
use super::stream::{marked, memory_operand_end, root, Root};
use super::FunctionCx;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Opcode, SourceLoc, Value};
use std::collections::{HashMap, HashSet};
use vecl_ir::{AddressSpace, BinaryOp, Block, Function, Inst, Module, Stmt, Type, ValueId, VarId};

/// How far ahead of the chunk's first element the prefetched line is, in
/// bytes. Measured on vadd and saxpy: 2 KiB fetches too late, 8 KiB no
/// better than 4.
pub(crate) const DISTANCE: i32 = 4096;

/// The source location that marks a prefetch placeholder in the CLIF.
///
/// Cranelift stores source locations relative to the first one a function
/// sets, and the relative offset `!0` means "none": this tag and
/// [`super::stream::stream_tag`] are kept further apart than one, so that
/// neither reads as "none" whichever the function sets first.
pub(crate) fn prefetch_tag() -> SourceLoc {
    SourceLoc::new(0x5eed_0010)
}

/// The pointers (by value) whose loads get a prefetch in their full-chunk
/// vector path: per `__global` pointer parameter, the first load through a
/// pointer derived from it, in statement order, that no loop encloses —
/// none in a kernel that evaluates at least as many transcendental
/// functions (`exp`, `log`, `sin`…) as it would prefetch loads. Such a
/// kernel spends long enough on each line for the hardware prefetcher to
/// keep up, and the extra fills only slow it (Black-Scholes, 1 `log` and 3
/// `exp` for 3 loads: 14.1 → 14.8 ms on two threads with its prefetches).
///
/// Each gets [`Ahead::Step`] when its address moves by a large or
/// run-time stride with a loop's induction variable ([`step_ahead`]),
/// or, with `tiles` (the wide code, whose rows in flight load the rows
/// [`DISTANCE`] bytes ahead at once), by any constant stride with a tile
/// loop's; else [`Ahead::Fixed`]. (Cranelift's code, one row at a time,
/// measured 1–2 % slower on matmul with the tile loops' steps: 1024²,
/// one thread, 77.5 → 78.7 ms; the wide code 1.05× faster, 38.8 → 37.1.)
pub(crate) fn prefetched_loads(
    module: &Module,
    func: &Function,
    vars: &[Root],
    tiles: bool,
) -> HashMap<ValueId, Ahead> {
    let mut params = HashSet::new();
    let mut ptrs = HashSet::new();
    pick(func, vars, &func.body, &mut params, &mut ptrs);
    let transcendental = func
        .insts
        .iter()
        .filter(|d| matches!(&d.inst, Inst::Builtin(name, _) if is_transcendental(*name)))
        .count();
    if transcendental >= ptrs.len() {
        return HashMap::new();
    }
    let steps = induction_steps(func);
    // A loop with a barrier is cut into regions before lowering
    // (`vecl_ir::transform::regions`): its counter is stepped outside
    // every loop left in the body, where the loads picked are.
    let mut tiled = HashSet::new();
    if tiles && vecl_ir::contains_barrier(&func.body.0) {
        top_level_writes(&func.body.0, &mut tiled);
    }
    ptrs.into_iter()
        .map(|p| {
            (
                p,
                step_ahead(module, func, &steps, &tiled, p).unwrap_or(Ahead::Fixed),
            )
        })
        .collect()
}

/// The variables written in `stmts` outside every loop, into `out`.
fn top_level_writes(stmts: &[Stmt], out: &mut HashSet<VarId>) {
    for s in stmts {
        match s {
            Stmt::WriteVar(x, _) => {
                out.insert(*x);
            }
            Stmt::If { then_, else_, .. } => {
                top_level_writes(&then_.0, out);
                top_level_writes(&else_.0, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    top_level_writes(&c.body.0, out);
                }
            }
            _ => {}
        }
    }
}

/// Where a prefetch points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ahead {
    /// [`DISTANCE`] bytes past the chunk's first element: the same stream,
    /// further on.
    Fixed,
    /// `bytes` times the product of the uniform `factors` past it: where
    /// the load reads on the next step of the induction variable its
    /// address moves with (the next tile of a tiled matrix product, 16 rows
    /// further down).
    Step { bytes: i64, factors: Vec<ValueId> },
}

/// The variables stepped by a constant, and the step: every real write of
/// such a variable is either `x = x + c` (`x - c`), the same `c` for all,
/// or an initial value from elsewhere, and there is at least one step.
fn induction_steps(func: &Function) -> HashMap<VarId, i64> {
    let mut step: HashMap<VarId, Option<i64>> = HashMap::new();
    vecl_ir::transform::compact::walk_stmts(&func.body, &mut |s| {
        let Stmt::WriteVar(x, v) = s else {
            return;
        };
        let reads_x = |a: &ValueId| matches!(func.inst(*a).inst, Inst::ReadVar(y) if y == *x);
        let c = match func.inst(*v).inst {
            Inst::Binary(BinaryOp::Add, a, b) if reads_x(&a) => func.int_const(b),
            Inst::Binary(BinaryOp::Add, a, b) if reads_x(&b) => func.int_const(a),
            Inst::Binary(BinaryOp::Sub, a, b) if reads_x(&a) => func.int_const(b).map(|c| -c),
            _ => return,
        };
        let e = step.entry(*x).or_insert(c);
        if *e != c {
            *e = None;
        }
    });
    step.into_iter()
        .filter_map(|(x, c)| Some((x, c.filter(|&c| c != 0)?)))
        .collect()
}

/// [`Ahead::Step`] for the load through `ptr` when its address moves with
/// an induction variable by a stride that is not a compile-time constant
/// (a row length) or is at least [`DISTANCE`] bytes: the hardware
/// prefetcher does not follow such strides, and [`Ahead::Fixed`] would
/// fetch lines the next rows of the group read at once anyway. Also for
/// any constant stride of a tile loop's counter (`tiled`: in a body cut
/// into regions at its barriers, a variable stepped outside every loop
/// left, the counter of a cut loop): the whole group's tile runs between
/// two steps,
/// so the next step's line is far enough ahead, and [`DISTANCE`] bytes
/// along a row of 1024 floats is the next row, which the group's rows
/// load at the same time (matmul's `a[row * n + t + lx]`, `t += 16`).
fn step_ahead(
    module: &Module,
    func: &Function,
    steps: &HashMap<VarId, i64>,
    tiled: &HashSet<VarId>,
    ptr: ValueId,
) -> Option<Ahead> {
    let mut vars: Vec<(&VarId, &i64)> = steps.iter().collect();
    vars.sort();
    vars.into_iter().find_map(|(&x, &step)| {
        let s = slope(module, func, ptr, x, 0)?;
        let bytes = s.konst.checked_mul(step)?;
        let large =
            !s.factors.is_empty() || bytes.unsigned_abs() >= DISTANCE as u64 || tiled.contains(&x);
        (bytes != 0 && large).then_some(Ahead::Step {
            bytes,
            factors: s.factors,
        })
    })
}

/// How much an integer or pointer value grows per unit of a variable:
/// `konst` times the product of `factors` (values that do not depend on
/// it); `konst == 0` when it does not depend on the variable at all.
#[derive(Clone, Debug, Default)]
pub(crate) struct Slope {
    pub(crate) konst: i64,
    pub(crate) factors: Vec<ValueId>,
}

impl Slope {
    pub(crate) fn zero() -> Slope {
        Slope::default()
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.konst == 0
    }

    /// `self` times the value `v`, which does not depend on the variable.
    fn times(mut self, func: &Function, v: ValueId) -> Option<Slope> {
        match func.int_const(v) {
            Some(c) => self.konst = self.konst.checked_mul(c)?,
            None => self.factors.push(v),
        }
        Some(self)
    }
}

/// The [`Slope`] of `v` with respect to variable `x` ([`slope_by`]):
/// other variables, parameters, constants, work-item queries and
/// addresses of the kernel's own objects count as independent of `x` (a
/// wrong guess costs a useless prefetch, never a wrong result).
fn slope(module: &Module, func: &Function, v: ValueId, x: VarId, depth: u32) -> Option<Slope> {
    let leaf = |v: ValueId| match &func.inst(v).inst {
        Inst::ReadVar(y) if *y == x => Some(Some(Slope {
            konst: 1,
            factors: Vec::new(),
        })),
        Inst::ReadVar(_)
        | Inst::Const(_)
        | Inst::Param(_)
        | Inst::WorkItem(..)
        | Inst::GlobalAddr(_)
        | Inst::SlotAddr(_) => Some(Some(Slope::zero())),
        _ => None,
    };
    slope_by(module, func, v, &leaf, depth)
}

/// The [`Slope`] of `v` with respect to some quantity, for sums, products
/// by values that do not depend on it, shifts by constants, conversions
/// between integer types and pointer arithmetic; `None` for anything else
/// that depends on it (or might). `leaf` answers first for each value it
/// knows: `Some(slope)`, or `Some(None)` for one that depends on the
/// quantity in an unknown way; `None` sends the value through the cases
/// above.
pub(crate) fn slope_by(
    module: &Module,
    func: &Function,
    v: ValueId,
    leaf: &dyn Fn(ValueId) -> Option<Option<Slope>>,
    depth: u32,
) -> Option<Slope> {
    if depth > 32 {
        return None;
    }
    if let Some(known) = leaf(v) {
        return known;
    }
    let d = depth + 1;
    let sum = |a: Slope, b: Slope, negate: bool| -> Option<Slope> {
        match (a.is_zero(), b.is_zero()) {
            (_, true) => Some(a),
            (true, false) => Some(Slope {
                konst: if negate {
                    b.konst.checked_neg()?
                } else {
                    b.konst
                },
                factors: b.factors,
            }),
            (false, false) if a.factors == b.factors => Some(Slope {
                konst: if negate {
                    a.konst.checked_sub(b.konst)?
                } else {
                    a.konst.checked_add(b.konst)?
                },
                factors: a.factors,
            }),
            _ => None,
        }
    };
    let of = |v: ValueId| slope_by(module, func, v, leaf, d);
    match &func.inst(v).inst {
        Inst::Convert { value, .. } if is_int(func.ty(v)) && is_int(func.ty(*value)) => of(*value),
        Inst::PtrCast(p) => of(*p),
        Inst::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            sum(of(*a)?, of(*b)?, *op == BinaryOp::Sub)
        }
        Inst::Binary(BinaryOp::Mul, a, b) => {
            let (sa, sb) = (of(*a)?, of(*b)?);
            match (sa.is_zero(), sb.is_zero()) {
                (true, true) => Some(Slope::zero()),
                (false, true) => sa.times(func, *b),
                (true, false) => sb.times(func, *a),
                (false, false) => None,
            }
        }
        Inst::Binary(BinaryOp::Shl, a, b) => {
            let sa = of(*a)?;
            let k = func.int_const(*b)?;
            (0..32).contains(&k).then(|| Slope {
                konst: sa.konst << k,
                factors: sa.factors,
            })
        }
        Inst::Index(p, i) => {
            let size = i64::from(module.size_of(func.ty(*p).pointee()?));
            let si = of(*i)?;
            let si = Slope {
                konst: si.konst.checked_mul(size)?,
                factors: si.factors,
            };
            sum(of(*p)?, si, false)
        }
        _ => None,
    }
}

fn is_int(t: &Type) -> bool {
    t.scalar().is_some_and(|s| s.is_int()) && t.lanes() == 1
}

/// A builtin evaluated by a routine of many operations (`exp`, `log`,
/// `sin`, `pow`…), `native_` and `half_` forms included.
fn is_transcendental(name: vecl_ir::Builtin) -> bool {
    let base = name.math_base();
    super::builtins::vmath::SIMD_F32.contains(&base.name())
        || matches!(base, vecl_ir::Builtin::Pow | vecl_ir::Builtin::Powr)
}

fn pick(
    func: &Function,
    vars: &[Root],
    block: &Block,
    params: &mut HashSet<u32>,
    ptrs: &mut HashSet<ValueId>,
) {
    for s in &block.0 {
        match s {
            Stmt::Eval(v) => {
                if let Inst::Load(p) = func.inst(*v).inst {
                    let global = matches!(func.ty(p), Type::Pointer(AddressSpace::Global, _));
                    if let (true, Root::Param(n)) = (global, root(func, vars, p, 0)) {
                        if params.insert(n) {
                            ptrs.insert(p);
                        }
                    }
                }
            }
            Stmt::If { then_, else_, .. } => {
                pick(func, vars, then_, params, ptrs);
                pick(func, vars, else_, params, ptrs);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    pick(func, vars, &c.body, params, ptrs);
                }
            }
            _ => {}
        }
    }
}

impl FunctionCx<'_, '_> {
    /// In the full-chunk vector path of a load through `ptr` from `first`
    /// in `pieces` 16-byte pieces: a marked placeholder per 64-byte line,
    /// [`DISTANCE`] bytes ahead, when `ptr` is one [`prefetched_loads`]
    /// chose.
    pub(crate) fn prefetch_ahead(&mut self, ptr: ValueId, first: Value, pieces: usize) {
        let Some(ahead) = self.kernel.prefetch_ahead(ptr).cloned() else {
            return;
        };
        let (base, offset) = match self.step_bytes(&ahead) {
            Some(delta) => {
                self.stats.prefetches_by_step += 1;
                (self.b.ins().iadd(first, delta), 0)
            }
            None => (first, DISTANCE),
        };
        self.stats.prefetches += 1;
        let lines = (pieces * 16).div_ceil(64).max(1);
        self.b.set_srcloc(prefetch_tag());
        for l in 0..lines {
            // Default flags: a load that may trap, kept though unused.
            self.b.ins().uload8(
                types::I32,
                MemFlagsData::new(),
                base,
                offset + 64 * l as i32,
            );
        }
        self.b.set_srcloc(SourceLoc::default());
    }

    /// The byte distance of an [`Ahead::Step`] prefetch as an `i64`, when
    /// every factor is uniform (else the prefetch is [`Ahead::Fixed`]).
    fn step_bytes(&mut self, ahead: &Ahead) -> Option<Value> {
        let Ahead::Step { bytes, factors } = ahead else {
            return None;
        };
        let mut delta = self.b.ins().iconst(types::I64, *bytes);
        for f in factors {
            // A factor not lowered as a uniform value (none should be
            // missing: each is an operand of the address) leaves the
            // prefetch at the fixed distance.
            let Ok(Lanes::Uniform(v)) = self.scalar(*f) else {
                return None;
            };
            let v = match self.b.func.dfg.value_type(v) {
                types::I64 => v,
                t if t.is_int() && t.bits() < 64 => {
                    let signed = self
                        .kernel
                        .func()
                        .ty(*f)
                        .scalar()
                        .is_some_and(|s| s.is_signed());
                    if signed {
                        self.b.ins().sextend(types::I64, v)
                    } else {
                        self.b.ins().uextend(types::I64, v)
                    }
                }
                _ => return None,
            };
            delta = self.b.ins().imul(delta, v);
        }
        Some(delta)
    }
}

/// How many prefetch placeholders `func` (as compiled, after Cranelift's
/// optimisations) still holds: what [`patch_prefetches`] must find.
pub(crate) fn marked_prefetches(func: &cranelift_codegen::ir::Function) -> usize {
    marked(func, prefetch_tag(), Opcode::Uload8)
}

/// Turns the prefetch placeholders of `code` into `prefetcht0`. Each range
/// Cranelift reports for [`prefetch_tag`] starts with one or more of them
/// (adjacent ones share a range; what follows is the register allocator's,
/// left as it is). Returns whether exactly `expected` were found, in which
/// case all are patched; otherwise `code` is left unchanged.
pub(crate) fn patch_prefetches(
    code: &mut [u8],
    ranges: impl IntoIterator<Item = (usize, usize)>,
    expected: usize,
) -> bool {
    let mut found = Vec::new();
    for (start, end) in ranges {
        let end = end.min(code.len());
        let mut at = start;
        while at < end {
            let Some(insn) = movzx_byte_load(&code[at..end]) else {
                break;
            };
            found.push((at, insn));
            at += insn.len;
        }
    }
    if found.len() != expected {
        return false;
    }
    for (at, insn) in found {
        if let Some(rex) = insn.rex {
            // REX.R extended the destination register; prefetch has none.
            code[at + rex] &= !0b0100;
        }
        code[at + insn.opcode] = 0x18;
        let modrm = &mut code[at + insn.opcode + 1];
        *modrm = (*modrm & 0b1100_0111) | (1 << 3);
    }
    true
}

/// The layout of one `movzx r32/r64, byte [m]` (`[REX] 0F B6 /r` with a
/// memory operand).
#[derive(Clone, Copy, Debug)]
struct ByteLoad {
    /// Offset of the REX prefix, if any.
    rex: Option<usize>,
    /// Offset of the `B6` opcode byte.
    opcode: usize,
    len: usize,
}

/// The instruction at the start of `insn`, when it is a `movzx` byte load.
fn movzx_byte_load(insn: &[u8]) -> Option<ByteLoad> {
    let rex = matches!(*insn.first()?, 0x40..=0x4f).then_some(0);
    let k = usize::from(rex.is_some());
    if *insn.get(k)? != 0x0f || *insn.get(k + 1)? != 0xb6 {
        return None;
    }
    Some(ByteLoad {
        rex,
        opcode: k + 1,
        len: memory_operand_end(insn, k + 2)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slopes_follow_induction_variables() {
        let src = "kernel void k(global const float* a, global const float* b, int n) {
            float s = 0.0f;
            int row = get_global_id(1), col = get_global_id(0);
            for (int t = 0; t < n; t += 16) {
                s += a[row * n + t + 3];
                s += b[((t << 1) + row) * n - col];
                s += a[t * t];
            }
            for (int u = 9; u > 0; u = u - 3) s += b[u];
            int v = 0;
            for (int w = 0; w < 4; w++) { v += 2; v += 3; }
            s += a[v];
        }";
        let m = vecl_clc::build(src, "").expect("builds").module;
        let f = m.kernels().find(|(_, f)| f.name == "k").unwrap().1;
        let var = |name: &str| VarId(f.vars.iter().position(|v| v.name == name).unwrap() as u32);
        let steps = induction_steps(f);
        assert_eq!(steps.get(&var("t")), Some(&16));
        assert_eq!(steps.get(&var("u")), Some(&-3));
        assert_eq!(steps.get(&var("w")), Some(&1));
        // Two different steps: not an induction variable.
        assert_eq!(steps.get(&var("v")), None);
        let loads: Vec<ValueId> = f
            .insts
            .iter()
            .filter_map(|d| match d.inst {
                Inst::Load(p) => Some(p),
                _ => None,
            })
            .collect();
        let t = var("t");
        // a[row * n + t + 3]: 4 bytes per unit of t.
        let s = slope(&m, f, loads[0], t, 0).unwrap();
        assert_eq!((s.konst, s.factors.len()), (4, 0));
        // b[((t << 1) + row) * n - col]: 8 bytes times n.
        let s = slope(&m, f, loads[1], t, 0).unwrap();
        assert_eq!((s.konst, s.factors.len()), (8, 1));
        // a[t * t]: not linear in t.
        assert!(slope(&m, f, loads[2], t, 0).is_none());
        // b[u] does not move with t.
        assert!(slope(&m, f, loads[3], t, 0).unwrap().is_zero());
    }

    #[test]
    fn tile_loops_step_ahead_by_constant_strides_for_the_wide_code_only() {
        // A loop with a barrier cut into regions (its counter stepped
        // outside every loop left, the load at the top level): `a`'s tile
        // moves 64 bytes a step, the next tile's line, for the wide code;
        // Cranelift's code, and a kernel without a barrier whose variable
        // is stepped at the top level, keep the fixed distance.
        let tiled = "kernel void k(global const float* a, global float* c, int n) {
            local float t[16][16];
            int row = get_global_id(1), lx = get_local_id(0), ly = get_local_id(1);
            float s = 0.0f;
            for (int base = 0; base < n; base += 16) {
                t[ly][lx] = a[row * n + base + lx];
                barrier(CLK_LOCAL_MEM_FENCE);
                s += t[lx][ly];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            c[row * n + lx] = s;
        }";
        let plain = "kernel void k(global const float* a, global float* c, int n) {
            int row = get_global_id(1), lx = get_global_id(0);
            int base = n;
            base += 16;
            c[row * n + lx] = a[row * n + base + lx];
        }";
        for (src, tile) in [(tiled, true), (plain, false)] {
            let m = vecl_clc::build(src, "").expect("builds").module;
            let f = m.kernels().find(|(_, f)| f.name == "k").unwrap().1;
            let cut = vecl_ir::transform::regions::region_graph(f).expect("cuts");
            assert_eq!(cut.is_some(), tile);
            let f = cut.as_ref().map_or(f, |g| &g.func);
            let roots = super::super::stream::var_roots(f);
            for wide in [false, true] {
                let got: Vec<Ahead> = prefetched_loads(&m, f, &roots, wide)
                    .into_values()
                    .collect();
                let want = if wide && tile {
                    Ahead::Step {
                        bytes: 64,
                        factors: vec![],
                    }
                } else {
                    Ahead::Fixed
                };
                assert_eq!(got, vec![want], "tiled {tile}, wide {wide}");
            }
        }
    }

    #[test]
    fn byte_loads_become_prefetches() {
        // movzbq 0x1000(%r14,%rdi,4),%rdx (REX.WB, SIB, disp32) and
        // movzbl 0x1040(%r9),%r10d (REX.RB, disp32): one range.
        let mut a = vec![
            0x49, 0x0f, 0xb6, 0x94, 0xbe, 0x00, 0x10, 0x00, 0x00, // first
            0x45, 0x0f, 0xb6, 0x91, 0x40, 0x10, 0x00, 0x00, // second
        ];
        let n = a.len();
        assert!(patch_prefetches(&mut a, [(0, n)], 2));
        assert_eq!(
            a,
            vec![
                0x49, 0x0f, 0x18, 0x8c, 0xbe, 0x00, 0x10, 0x00,
                0x00, // prefetcht0 (r14,rdi,4)
                0x41, 0x0f, 0x18, 0x89, 0x40, 0x10, 0x00, 0x00, // prefetcht0 (r9), REX.R off
            ]
        );
        // Without REX, disp8 (movzbl 0x40(%rax),%ecx), then a reload the
        // register allocator put after it in the same range.
        let mut b = vec![0x0f, 0xb6, 0x48, 0x40, 0x48, 0x8b, 0x04, 0x24];
        assert!(patch_prefetches(&mut b, [(0, 8)], 1));
        assert_eq!(b, vec![0x0f, 0x18, 0x48, 0x40, 0x48, 0x8b, 0x04, 0x24]);
    }

    #[test]
    fn nothing_is_patched_unless_every_placeholder_is_found() {
        let load = [0x0f, 0xb6, 0x48, 0x40];
        // One found where two are expected.
        let mut a = load.to_vec();
        assert!(!patch_prefetches(&mut a, [(0, 4)], 2));
        assert_eq!(a, load);
        // A range starting with something else (a register operand, a
        // word load, an instruction cut short) hides its placeholder.
        for bytes in [
            vec![0x0f, 0xb6, 0xc1],
            vec![0x0f, 0xb7, 0x48, 0x40],
            vec![0x0f, 0xb6, 0x80, 0x00, 0x10],
        ] {
            let mut x = [load.to_vec(), bytes.clone()].concat();
            let n = x.len();
            assert!(!patch_prefetches(&mut x, [(0, 4), (4, n)], 2), "{bytes:x?}");
            assert_eq!(x, [load.to_vec(), bytes].concat());
        }
    }
}

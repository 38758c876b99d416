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
//! prefetcher keeps up with it, and the extra fills slowed Black-Scholes. Each 64-byte
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

use super::stream::{memory_operand_end, root, var_roots, Root};
use super::FunctionCx;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Opcode, SourceLoc, Value};
use std::collections::HashSet;
use vecl_ir::{AddressSpace, Block, Function, Inst, Stmt, Type, ValueId};

/// How far ahead of the chunk's first element the prefetched line is, in
/// bytes. Measured on vadd and saxpy: 2 KiB fetches too late, 8 KiB no
/// better than 4.
pub(crate) const DISTANCE: i32 = 4096;

/// `VECL_PREFETCH=0` turns prefetching off (for measuring it).
pub(crate) fn enabled_from_env() -> bool {
    !std::env::var("VECL_PREFETCH").is_ok_and(|v| v.trim() == "0")
}

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
pub(crate) fn prefetched_loads(func: &Function) -> HashSet<ValueId> {
    let vars = var_roots(func);
    let mut params = HashSet::new();
    let mut ptrs = HashSet::new();
    pick(func, &vars, &func.body, &mut params, &mut ptrs);
    let transcendental = func
        .insts
        .iter()
        .filter(|d| matches!(&d.inst, Inst::Builtin(name, _) if is_transcendental(name)))
        .count();
    if transcendental >= ptrs.len() {
        ptrs.clear();
    }
    ptrs
}

/// A builtin evaluated by a routine of many operations (`exp`, `log`,
/// `sin`, `pow`…), `native_` and `half_` forms included.
fn is_transcendental(name: &str) -> bool {
    let base = name
        .strip_prefix("native_")
        .or_else(|| name.strip_prefix("half_"))
        .unwrap_or(name);
    super::builtins::vmath::SIMD_F32.contains(&base) || matches!(base, "pow" | "powr")
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
        if !self.prefetch.contains(&ptr) {
            return;
        }
        self.stats.prefetches += 1;
        let lines = (pieces * 16).div_ceil(64).max(1);
        self.b.set_srcloc(prefetch_tag());
        for l in 0..lines {
            // Default flags: a load that may trap, kept though unused.
            self.b.ins().uload8(
                types::I32,
                MemFlagsData::new(),
                first,
                DISTANCE + 64 * l as i32,
            );
        }
        self.b.set_srcloc(SourceLoc::default());
    }
}

/// How many prefetch placeholders `func` (as compiled, after Cranelift's
/// optimisations) still holds: what [`patch_prefetches`] must find.
pub(crate) fn marked_prefetches(func: &cranelift_codegen::ir::Function) -> usize {
    let tag = prefetch_tag();
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&i| func.srcloc(i) == tag && func.dfg.insts[i].opcode() == Opcode::Uload8)
        .count()
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

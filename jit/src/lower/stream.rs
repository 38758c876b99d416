//! Streaming stores: full-chunk vector stores that bypass the caches.
//!
//! A kernel that writes a large output it never reads (`c[i] = a[i] +
//! b[i]` over 16M floats) pays for every line it writes twice with plain
//! stores: the line is first read into the cache (read for ownership),
//! then written back. A non-temporal store (`movntps`) writes the line
//! without reading it: vadd over 16M floats moves a quarter fewer bytes
//! (~6.0 → ~4.3 ms on two threads). Where the line is in the cache, as in
//! saxpy's `y[i] = a * x[i] + y[i]`, a non-temporal store has to evict it
//! first and is slower (~3.6 → ~5.0 ms), and a small output that the next
//! command reads would be fetched back from memory. A line written in two
//! halves by two chunks waits in a write-combining buffer in between, and
//! one flushed early is written in parts, far slower than plain stores
//! (Black-Scholes at W = 8: ~36 → ~214 ms). So a store streams only when
//!
//! - its address is derived from a `__global` pointer parameter that no
//!   load, copy or builtin of the kernel reads through (and no pointer of
//!   unknown origin is read at all: it could alias the parameter's
//!   buffer), in a kernel with no atomics and no fences, whose ordering
//!   guarantees would then have to cover the streamed stores as well;
//! - it is the consecutive, full-chunk vector path of the store, and the
//!   chunk writes whole 64-byte lines (four pieces) starting on a line;
//! - the launch has at least [`STREAM_MIN_ITEMS`] work-items
//!   (`JitOptions::stream_min_items` set
//!   another number; a run-time test Cranelift hoists out of the loops).
//!
//! Cranelift has no non-temporal store. The lowering emits plain `f32x4`
//! stores marked with [`stream_tag`] as their source location; after
//! compilation, [`patch_stores`] turns each marked `movups`/`vmovups` into
//! `movntps`/`vmovntps` (one opcode byte, same length and operands).
//! Streamed stores are weakly ordered: `CompiledKernel::run_groups` issues
//! `sfence` before it returns, so whoever learns that the groups ran (the
//! pool's completion counter) also sees their data. Within a group, a
//! barrier needs nothing: the group runs on one thread, which sees its own
//! stores.

use super::lanes::little;
use super::FunctionCx;
use crate::abi::launch_offsets;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, Block, InstBuilder, Opcode, SourceLoc, StackSlotData, StackSlotKind,
    Value,
};
use vecl_ir::{AddressSpace, Function, Inst, Stmt, Type, ValueId};

/// Launches with fewer work-items store normally: their output is likely
/// to fit the caches and to be read again soon.
pub(crate) const STREAM_MIN_ITEMS: u64 = 1 << 22;

/// Where a pointer value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Root {
    /// The kernel's parameter with this index.
    Param(u32),
    /// A variable, slot or module-scope object of the kernel: memory no
    /// parameter's buffer can alias.
    Own,
    /// Anything else (a pointer loaded from memory, a `select` of two).
    Unknown,
    /// A variable whose root the fixpoint has not found yet.
    Pending,
}

/// Which stores of a kernel may stream.
pub(crate) struct Streaming {
    /// Per parameter: stores through it may stream.
    params: Vec<bool>,
    /// Per variable: the root its real writes agree on.
    var_roots: Vec<Root>,
    /// The kernel has more than one store: a streamed store's pieces are
    /// pinned before its branches (see [`FunctionCx::stream_pieces`]).
    pin_pieces: bool,
}

/// The root each variable's real writes agree on, found as a fixpoint
/// from "not known yet": a variable written only from itself and one
/// parameter (`p = p + 1`) keeps that parameter; one written from two
/// different roots is `Unknown`.
pub(crate) fn var_roots(func: &Function) -> Vec<Root> {
    let mut writes: Vec<Vec<ValueId>> = vec![Vec::new(); func.vars.len()];
    vecl_ir::transform::compact::walk_stmts(&func.body, &mut |s| {
        if let Stmt::WriteVar(x, w) = s {
            if !matches!(func.inst(*w).inst, Inst::Undef) {
                writes[x.index()].push(*w);
            }
        }
    });
    let mut var_roots = vec![Root::Pending; func.vars.len()];
    let mut converged = false;
    for _ in 0..16 {
        let mut changed = false;
        for x in 0..func.vars.len() {
            let mut r = Root::Pending;
            for w in &writes[x] {
                let rw = root(func, &var_roots, *w, 0);
                r = match (r, rw) {
                    (r, Root::Pending) => r,
                    (Root::Pending, rw) => rw,
                    (r, rw) if r == rw => r,
                    _ => Root::Unknown,
                };
            }
            if var_roots[x] != r {
                var_roots[x] = r;
                changed = true;
            }
        }
        if !changed {
            converged = true;
            break;
        }
    }
    for r in &mut var_roots {
        if !converged || *r == Root::Pending {
            *r = Root::Unknown;
        }
    }
    var_roots
}

impl Streaming {
    /// `var_roots`: [`var_roots`] of `func`.
    pub(crate) fn new(func: &Function, var_roots: Vec<Root>) -> Streaming {
        let mut clear = false;
        let mut copies = Vec::new();
        let mut stores = 0;
        vecl_ir::transform::compact::walk_stmts(&func.body, &mut |s| match s {
            Stmt::Fence(_) => clear = true,
            Stmt::Copy { src, .. } => copies.push(*src),
            Stmt::Store { .. } => stores += 1,
            _ => {}
        });
        let mut st = Streaming {
            params: func
                .params
                .iter()
                .map(|p| matches!(&p.ty, Type::Pointer(AddressSpace::Global, _)))
                .collect(),
            var_roots,
            pin_pieces: stores > 1,
        };
        let mut read = copies;
        for d in &func.insts {
            match &d.inst {
                Inst::Atomic { .. } => clear = true,
                Inst::Load(p) => read.push(*p),
                Inst::Builtin(_, args) | Inst::Call(_, args) => {
                    read.extend(args.iter().filter(|a| func.ty(**a).is_pointer()));
                }
                _ => {}
            }
        }
        for p in read {
            match st.root_of(func, p) {
                Root::Param(n) => {
                    if let Some(x) = st.params.get_mut(n as usize) {
                        *x = false;
                    }
                }
                Root::Own => {}
                Root::Unknown | Root::Pending => clear = true,
            }
        }
        if clear {
            st.params.iter_mut().for_each(|x| *x = false);
        }
        st
    }

    /// Whether a full-chunk vector store to `ptr` may stream.
    pub(crate) fn streams(&self, func: &Function, ptr: ValueId) -> bool {
        match self.root_of(func, ptr) {
            Root::Param(n) => self.params.get(n as usize).copied().unwrap_or(false),
            _ => false,
        }
    }

    fn root_of(&self, func: &Function, v: ValueId) -> Root {
        root(func, &self.var_roots, v, 0)
    }
}

/// Where `v` comes from, with `vars` giving each variable's root.
pub(super) fn root(func: &Function, vars: &[Root], v: ValueId, depth: u32) -> Root {
    if depth > 64 {
        return Root::Unknown;
    }
    match &func.inst(v).inst {
        Inst::Param(n) => Root::Param(*n),
        Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
            root(func, vars, *p, depth + 1)
        }
        Inst::SlotAddr(_) | Inst::GlobalAddr(_) => Root::Own,
        Inst::ReadVar(x) => vars.get(x.index()).copied().unwrap_or(Root::Unknown),
        _ => Root::Unknown,
    }
}

impl FunctionCx<'_, '_> {
    /// Whether the full-chunk path of a store to `ptr` in `pieces` 16-byte
    /// pieces may stream: whole 64-byte lines, and a store the kernel's
    /// [`Streaming`] allows. A line a chunk writes in part waits in a
    /// write-combining buffer for the next chunk, and one flushed before
    /// then is written in parts, far slower than plain stores.
    pub(crate) fn streams(&self, ptr: ValueId, pieces: usize) -> bool {
        pieces.is_multiple_of(4)
            && self
                .kernel
                .streaming()
                .is_some_and(|st| st.streams(self.kernel.func(), ptr))
    }

    /// In the full-chunk path of a store: on a large launch with `first`
    /// line-aligned, the `pieces` as marked stores (made non-temporal
    /// after compilation, see [`patch_stores`]) and a jump to `join`;
    /// otherwise on to the plain stores that follow.
    ///
    /// Cranelift places a pure value where it is first used, walking the
    /// dominator tree, so a value first used by these stores would be
    /// computed in the streaming block and again in the plain one, and
    /// whatever the code after `join` shares with it (Black-Scholes' `put`
    /// reuses the two `cnd` of `call`) a third time, since neither block
    /// dominates the join. In a kernel with more stores than this one the
    /// pieces are first written to a scratch slot, a use before the
    /// branches that places their computation there, once.
    pub(crate) fn stream_pieces(&mut self, first: Value, pieces: &[Value], join: Block) {
        self.stats.streamed_stores += 1;
        if self.kernel.streaming().is_some_and(|st| st.pin_pieces) {
            self.pin_pieces(pieces);
        }
        let (check, stream, plain) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let large = self.launch_is_large();
        self.b.ins().brif(large, check, &[], plain, &[]);
        self.enter(check);
        // `movntps` itself faults below 16-byte alignment.
        let low = self.b.ins().band_imm_s(first, 63);
        let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
        self.b.ins().brif(aligned, stream, &[], plain, &[]);
        self.enter(stream);
        self.b.set_srcloc(stream_tag());
        for (i, p) in pieces.iter().enumerate() {
            let f = if self.b.func.dfg.value_type(*p) == types::F32X4 {
                *p
            } else {
                self.b.ins().bitcast(types::F32X4, little(), *p)
            };
            self.b
                .ins()
                .store(super::memory::mem(), f, first, (i * 16) as i32);
        }
        self.b.set_srcloc(SourceLoc::default());
        self.b.ins().jump(join, &[]);
        self.enter(plain);
    }

    /// Writes the pieces to a scratch slot of their own, so that their
    /// computation is placed here. Nothing reads the slot; each store
    /// keeps its own slot and each piece its own offset, since Cranelift
    /// removes a store that a later one overwrites unread.
    fn pin_pieces(&mut self, pieces: &[Value]) {
        // A loaded piece stays where its load is: nothing to place.
        let dfg = &self.b.func.dfg;
        let computed: Vec<(usize, Value)> = pieces
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                !dfg.value_def(**p)
                    .inst()
                    .is_some_and(|i| dfg.insts[i].opcode() == Opcode::Load)
            })
            .map(|(i, p)| (i, *p))
            .collect();
        if computed.is_empty() {
            return;
        }
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            16 * pieces.len() as u32,
            4,
        ));
        for (i, p) in computed {
            self.b
                .ins()
                .stack_store(types::I64, p, slot, (16 * i) as i32);
        }
    }

    /// Whether the launch has `stream_min_items` work-items or more (the
    /// launch loads are read-only and movable: Cranelift hoists the test).
    fn launch_is_large(&mut self) -> Value {
        let mut n = self.launch_field(launch_offsets::GLOBAL_SIZE, 0);
        for d in 1..3 {
            let gs = self.launch_field(launch_offsets::GLOBAL_SIZE, d);
            n = self.b.ins().imul(n, gs);
        }
        let min = self.kernel.stream_min_items() as i64;
        self.b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, min)
    }
}

/// The source location that marks a streaming store's instruction in the
/// CLIF, so that its machine code can be found after compilation (no other
/// instruction of a kernel has one).
pub(crate) fn stream_tag() -> SourceLoc {
    SourceLoc::new(0x5eed_0001)
}

/// How many marked stores `func` (the function as compiled, after
/// Cranelift's optimisations dropped unreachable and folded code) still
/// holds: what [`patch_stores`] must find in the code. Counting the stores
/// the lowering marked instead would include those of paths dropped later
/// (a tail chunk's, whose length test a dominating one decides).
pub(crate) fn marked_stores(func: &cranelift_codegen::ir::Function) -> usize {
    marked(func, stream_tag(), cranelift_codegen::ir::Opcode::Store)
}

/// How many `opcode` instructions of `func` carry the source location
/// `tag`.
pub(super) fn marked(
    func: &cranelift_codegen::ir::Function,
    tag: SourceLoc,
    opcode: cranelift_codegen::ir::Opcode,
) -> usize {
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&i| func.srcloc(i) == tag && func.dfg.insts[i].opcode() == opcode)
        .count()
}

/// Turns the marked stores of `code` into non-temporal ones. Each range
/// Cranelift reports for [`stream_tag`] starts with one or more of them
/// (adjacent marked stores share a range), 16-byte stores of XMM registers
/// to memory (`movups`, or `vmovups` in either VEX form) whose opcode
/// bytes `11` become `2B` (`movntps`, `vmovntps`: same operands, same
/// length); what follows them in a range is the register allocator's
/// (a reload for the next block), left as it is. Unless exactly
/// `expected` stores are found so, none is patched: a line written partly
/// by streaming stores and partly by plain ones costs far more than plain
/// stores alone (`docs/jit.md`). Returns how many stores now stream.
pub(crate) fn patch_stores(
    code: &mut [u8],
    ranges: impl IntoIterator<Item = (usize, usize)>,
    expected: usize,
) -> usize {
    let mut opcodes = Vec::new();
    for (start, end) in ranges {
        let mut at = start;
        while at < end.min(code.len()) {
            let Some((opcode, len)) = movups_store(&code[at..end.min(code.len())]) else {
                break;
            };
            opcodes.push(at + opcode);
            at += len;
        }
    }
    if opcodes.len() != expected {
        return 0;
    }
    for &at in &opcodes {
        code[at] = 0x2b;
    }
    opcodes.len()
}

/// Where the opcode byte of the instruction at the start of `insn` is, and
/// the instruction's length, when it is a `movups m128, xmm` (`[REX] 0F 11
/// /r`, `VEX.128.0F 11 /r`).
fn movups_store(insn: &[u8]) -> Option<(usize, usize)> {
    let k = match *insn.first()? {
        0xc5 => {
            // VEX2: R vvvv L pp — 128-bit, no SIMD prefix.
            if *insn.get(1)? & 0b111 != 0 {
                return None;
            }
            2
        }
        0xc4 => {
            // VEX3: R X B mmmmm (map 0F), W vvvv L pp.
            let (b1, b2) = (*insn.get(1)?, *insn.get(2)?);
            if b1 & 0x1f != 1 || b2 & 0b111 != 0 {
                return None;
            }
            3
        }
        0x40..=0x4f => {
            // REX, then the 0F escape.
            if *insn.get(1)? != 0x0f {
                return None;
            }
            2
        }
        0x0f => 1,
        _ => return None,
    };
    if *insn.get(k)? != 0x11 {
        return None;
    }
    Some((k, memory_operand_end(insn, k + 1)?))
}

/// The length of the instruction `insn` starts with, given that its ModRM
/// byte is at `modrm_at` and nothing follows the memory operand (no
/// immediate); `None` for a register operand (mod 11) or an instruction
/// cut short.
pub(super) fn memory_operand_end(insn: &[u8], modrm_at: usize) -> Option<usize> {
    let modrm = *insn.get(modrm_at)?;
    let (md, rm) = (modrm >> 6, modrm & 7);
    if md == 0b11 {
        return None;
    }
    let mut len = modrm_at + 1;
    if rm == 0b100 {
        let sib = *insn.get(len)?;
        len += 1;
        if md == 0 && sib & 7 == 0b101 {
            len += 4;
        }
    } else if md == 0 && rm == 0b101 {
        len += 4;
    }
    len += match md {
        0b01 => 1,
        0b10 => 4,
        _ => 0,
    };
    (len <= insn.len()).then_some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_movups_stores_are_patched() {
        // vmovups %xmm3,0x10(%rcx,%rdx,4) (VEX2, SIB, disp8)
        let mut a = vec![0xc5, 0xf8, 0x11, 0x5c, 0x91, 0x10];
        assert_eq!(patch_stores(&mut a, [(0, 6)], 1), 1);
        assert_eq!(a[2], 0x2b);
        // vmovups %xmm9,(%r11) (VEX3 with B set)
        let mut b = vec![0xc4, 0x41, 0x78, 0x11, 0x0b];
        assert_eq!(patch_stores(&mut b, [(0, 5)], 1), 1);
        assert_eq!(b[3], 0x2b);
        // movups %xmm0,0x20(%rax) (SSE), and with REX.
        let mut c = vec![0x0f, 0x11, 0x40, 0x20, 0x41, 0x0f, 0x11, 0x00];
        assert_eq!(patch_stores(&mut c, [(0, 4), (4, 8)], 2), 2);
        assert_eq!((c[1], c[6]), (0x2b, 0x2b));
        // Two adjacent stores in one range.
        let mut d = vec![0x0f, 0x11, 0x40, 0x20, 0xc5, 0xf8, 0x11, 0x5c, 0x91, 0x10];
        assert_eq!(patch_stores(&mut d, [(0, 10)], 2), 2);
        assert_eq!((d[1], d[6]), (0x2b, 0x2b));
        // A load (0F 10), a register move (mod 11), a 256-bit store and a
        // store cut short: untouched.
        for (bytes, end) in [
            (vec![0x0f, 0x10, 0x40, 0x20], 4),
            (vec![0xc5, 0xf8, 0x11, 0xc1], 4),
            (vec![0xc5, 0xfc, 0x11, 0x00], 4),
            (vec![0x0f, 0x11, 0x40], 3),
        ] {
            let mut x = bytes.clone();
            assert_eq!(patch_stores(&mut x, [(0, end)], 1), 0, "{bytes:x?}");
            assert_eq!(x, bytes);
        }
    }

    #[test]
    fn stores_followed_by_other_code_are_patched_only_all_together() {
        // A store, then a range with a store and a reload after it
        // (movdqu 0x570(%rsp),%xmm9).
        let bytes = vec![
            0x0f, 0x11, 0x40, 0x20, 0x0f, 0x11, 0x00, 0xf3, 0x44, 0x0f, 0x6f, 0x8c, 0x24, 0x70,
            0x05, 0x00, 0x00,
        ];
        let mut x = bytes.clone();
        assert_eq!(patch_stores(&mut x, [(0, 4), (4, 17)], 2), 2);
        assert_eq!((x[1], x[5], x[10]), (0x2b, 0x2b, 0x6f));
        // A range that starts with something else hides its store: then
        // none is patched.
        let bytes = vec![0x0f, 0x11, 0x40, 0x20, 0x0f, 0x10, 0x00, 0x0f, 0x11, 0x00];
        let mut x = bytes.clone();
        assert_eq!(patch_stores(&mut x, [(0, 4), (4, 10)], 2), 0);
        assert_eq!(x, bytes);
    }
}

//! Register allocation of a [`Program`] by `regalloc2`, the allocator
//! Cranelift uses, with spilling: the program in SSA form over a control
//! flow graph, allocated, and emitted with the allocator's moves and
//! spills.
//!
//! The conversion: each write of a value becomes a new virtual register; a
//! `Copy` only renames. A loop's header block takes as parameters the
//! values written inside the loop that were live before it; the block that
//! enters the loop and a latch block on the back edge pass their current
//! versions. The loop's test ends its last block with two successors (the
//! latch and the exit), so no edge is critical. zmm values are the float
//! class (zmm0–30), masks the vector class (k1–k6); zmm31 and k7 are the
//! memory operations' scratch. Every operation reads
//! its sources before it writes its result, except where a constraint says
//! otherwise: FMA's result reuses the addend's register (`vfmadd231ps`),
//! a masked operation's result its old value's (merge masking). Spill slots
//! are 64 bytes at `rsp`; the function makes a frame only when the
//! allocator spilled.
//!
//! With the constant pool (`allocate_ra2_pooled`), a constant read
//! where the instruction takes a memory operand (a binary operation's
//! second source, any one operand of an FMA, a compare's second, the
//! lanes a select takes, a masked copy) is no operand of the SSA form: the
//! instruction reads it as an embedded broadcast from the pool after the
//! code (`emit::ConstPool`), and a constant no instruction needs in a
//! register is not defined at all, so it takes no register.

use super::access::Base;
use super::emit::{
    arg, asm_err, bin_is_q, emit_op, finish, k_reg, zmm_reg, ConstPool, PoolConst, PoolOperands,
    WideCode, POOL_BASE,
};
use super::held::{plan_block, Held, Item, Planned};
use super::{Bin, CmpKind, Op, Program, WideError, K, V};
use iced_x86::code_asm::*;
use regalloc2::{
    Allocation, Block, Edit, Function, Inst, InstOrEdit, InstRange, MachineEnv, Operand,
    OperandKind, PReg, PRegSet, RegClass, RegallocOptions, VReg,
};
use std::cell::RefCell;
// Fx hashing: the maps are keyed by small integers, built per
// allocation (several thousand operations for a long body).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::time::Instant;

/// Bytes of one spill slot unit (`spillslot_size` counts in these).
const SLOT: usize = 8;

/// One instruction of the SSA form: an operation on virtual registers (its
/// `V(n)` / `K(n)` the regalloc2 vreg numbers), or block control.
#[derive(Clone, Debug)]
enum MInst {
    Op(Op),
    /// Falls or jumps to the block, passing its `branch_args` to the
    /// block's parameters.
    Jump {
        to: usize,
    },
    /// The loop test: back (to the latch, `latch`) or on (`exit`).
    Test {
        op: Op,
        latch: usize,
        exit: usize,
    },
    /// An [`Op::IfAny`]: on into its region (the next block) when a lane
    /// of the mask is set, to `skip` otherwise.
    Skip {
        op: Op,
        skip: usize,
    },
    Ret,
    /// Nothing: a constant's definition that no instruction reads from a
    /// register (every use takes it from the pool).
    Nop,
}

struct Func {
    insts: Vec<MInst>,
    operands: Vec<Vec<Operand>>,
    blocks: Vec<(usize, usize)>,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
    params: Vec<Vec<VReg>>,
    /// For a `Jump`, its arguments (in `operands` they are not).
    branch_args: Vec<Vec<VReg>>,
    num_vregs: usize,
    /// Per block: how many loops of the program it is in.
    depths: Vec<usize>,
}

impl Function for Func {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn entry_block(&self) -> Block {
        Block::new(0)
    }
    fn block_insns(&self, block: Block) -> InstRange {
        let (s, e) = self.blocks[block.index()];
        InstRange::new(Inst::new(s), Inst::new(e))
    }
    fn block_succs(&self, block: Block) -> &[Block] {
        &self.succs[block.index()]
    }
    fn block_preds(&self, block: Block) -> &[Block] {
        &self.preds[block.index()]
    }
    fn block_params(&self, block: Block) -> &[VReg] {
        &self.params[block.index()]
    }
    fn is_ret(&self, insn: Inst) -> bool {
        matches!(self.insts[insn.index()], MInst::Ret)
    }
    fn is_branch(&self, insn: Inst) -> bool {
        matches!(
            self.insts[insn.index()],
            MInst::Jump { .. } | MInst::Test { .. } | MInst::Skip { .. }
        )
    }
    fn branch_blockparams(&self, _block: Block, insn: Inst, _succ_idx: usize) -> &[VReg] {
        &self.branch_args[insn.index()]
    }
    fn inst_operands(&self, insn: Inst) -> &[Operand] {
        &self.operands[insn.index()]
    }
    fn inst_clobbers(&self, _insn: Inst) -> PRegSet {
        PRegSet::empty()
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn spillslot_size(&self, regclass: RegClass) -> usize {
        match regclass {
            RegClass::Float => 64 / SLOT,
            _ => 1,
        }
    }
}

/// The builder of [`Func`]: SSA renaming over the program's structure.
struct Builder {
    f: Func,
    /// The current version of each program value and mask.
    cur_v: HashMap<u32, VReg>,
    cur_k: HashMap<u32, VReg>,
    /// The block being filled and where it started.
    block_start: usize,
    /// How many loops the block being filled is in.
    depth: usize,
    /// Per vreg: how many loops its definition is in.
    vdepth: Vec<usize>,
    /// Per program value: the index of the last operation reading it.
    last_read: HashMap<u32, usize>,
    /// The index of the operation being converted.
    at: usize,
    /// Whether operations read constants from the pool where the
    /// instruction takes a memory operand.
    pooled: bool,
    /// Per vreg defined by a constant (`Splat`, `SplatQ`): its bits and
    /// the index of its defining instruction.
    konst: HashMap<usize, (PoolConst, usize)>,
    /// The constants read from memory, numbered from [`POOL_BASE`].
    pool: Vec<PoolConst>,
    /// Per vreg defined by a `GlobalId`: the index of its defining
    /// instruction (dropped when nothing reads it from a register).
    pure: HashMap<usize, usize>,
}

/// The index of an access that does not read its index register.
const UNREAD: u32 = u32::MAX;

/// Whether an access (`load` or store) reads its index register: not one
/// whose index is the chunk's global ids of dimension 0 (`Known::FromId`:
/// its lanes come from r15, in the full chunk's path and in the masked
/// tail's) or those plus a row's slot (`Known::RowOffset`), unless it is a
/// load of one address for every lane; nor an unchecked load of a
/// constant index (`Access::constant`: a displacement).
fn reads_index(how: &super::access::Access, load: bool) -> bool {
    use super::access::Known;
    if how.byte.is_some() {
        return true;
    }
    if how.constant.is_some() && how.check.is_none() && load {
        return false;
    }
    !(how.consecutive && matches!(how.known, Known::FromId | Known::RowOffset(..)))
        || (how.uniform && load)
}

impl Builder {
    fn fresh(&mut self, class: RegClass) -> VReg {
        self.f.num_vregs += 1;
        self.vdepth.push(self.depth);
        VReg::new(self.f.num_vregs - 1, class)
    }

    /// The constant vreg `r` holds, as an operand of `q` (64-bit) or
    /// 32-bit lanes broadcast from memory, when memory operands are on:
    /// a 32-bit constant serves 64-bit lanes doubled, a 64-bit one 32-bit
    /// lanes when its halves agree.
    fn konst_as(&self, r: VReg, q: bool) -> Option<PoolConst> {
        if !self.pooled {
            return None;
        }
        Some(match (self.konst.get(&r.vreg())?.0, q) {
            (PoolConst::D(b), false) => PoolConst::D(b),
            (PoolConst::D(b), true) => PoolConst::Q(u64::from(b) << 32 | u64::from(b)),
            (PoolConst::Q(b), false) if (b >> 32) as u32 == b as u32 => PoolConst::D(b as u32),
            (PoolConst::Q(b), true) => PoolConst::Q(b),
            _ => return None,
        })
    }

    /// `c` as a value of an allocated operation: a pool entry.
    fn pooled_operand(&mut self, c: PoolConst) -> V {
        let i = match self.pool.iter().position(|x| *x == c) {
            Some(i) => i,
            None => {
                self.pool.push(c);
                self.pool.len() - 1
            }
        };
        V(POOL_BASE + i as u32)
    }

    /// Vreg `r` read from memory, if it is a constant that can be.
    fn mem(&mut self, r: VReg, q: bool) -> Option<V> {
        let c = self.konst_as(r, q)?;
        Some(self.pooled_operand(c))
    }

    /// The sources of an instruction that reads `x` from a register and
    /// `y` as its last source, which takes memory (of `q`: 64-bit lanes):
    /// `y` renamed (a pool entry when it is a constant) and the register
    /// uses.
    fn last_source(&mut self, x: VReg, y: VReg, q: bool) -> (V, Vec<Operand>) {
        let mut operands = vec![Operand::reg_use(x)];
        let y = match self.mem(y, q) {
            Some(m) => m,
            None => {
                operands.push(Operand::reg_use(y));
                V(y.vreg() as u32)
            }
        };
        (y, operands)
    }

    /// A binary operation's sources renamed, and their register uses:
    /// `b` from the pool when it is a constant, else `a` when it is and
    /// the operation commutes (exactly: NaN payloads included, so not a
    /// float operation with a NaN constant).
    fn bin_sources(&mut self, op: Bin, x: VReg, y: VReg) -> (V, V, Vec<Operand>) {
        let vv = |r: VReg| V(r.vreg() as u32);
        if op.moves_lanes() {
            return (vv(x), vv(y), vec![Operand::reg_use(x), Operand::reg_use(y)]);
        }
        let q = bin_is_q(op);
        if let Some(m) = self.mem(y, q) {
            return (vv(x), m, vec![Operand::reg_use(x)]);
        }
        let commutes = match (op, self.konst_as(x, q)) {
            (_, None) => false,
            (Bin::FAdd | Bin::FMul, Some(PoolConst::D(c))) => !f32::from_bits(c).is_nan(),
            (Bin::DAdd | Bin::DMul, Some(PoolConst::Q(c))) => !f64::from_bits(c).is_nan(),
            (op, _) => matches!(
                op,
                Bin::IAdd
                    | Bin::IMul
                    | Bin::IXor
                    | Bin::IAnd
                    | Bin::IOr
                    | Bin::IMinS
                    | Bin::IMaxS
                    | Bin::IMinU
                    | Bin::IMaxU
                    | Bin::QAdd
                    | Bin::QMulU
                    | Bin::QMulS
                    | Bin::QAnd
                    | Bin::QOr
                    | Bin::QXor
            ),
        };
        match commutes.then(|| self.mem(x, q)).flatten() {
            Some(m) => (vv(y), m, vec![Operand::reg_use(y)]),
            None => (vv(x), vv(y), vec![Operand::reg_use(x), Operand::reg_use(y)]),
        }
    }

    /// Whether the value `v` (read through vreg `r` by the operation at
    /// `at`) is read for the last time there and was written in the
    /// innermost loop around it, so its register is free after the
    /// operation.
    fn dies(&self, v: V, r: VReg, at: usize) -> bool {
        self.last_read.get(&v.0) == Some(&at) && self.vdepth[r.vreg()] == self.depth
    }

    fn use_v(&self, v: V) -> Result<VReg, WideError> {
        self.cur_v
            .get(&v.0)
            .copied()
            .ok_or_else(|| WideError::Malformed(format!("value {} read before written", v.0)))
    }

    fn use_k(&self, k: K) -> Result<VReg, WideError> {
        self.cur_k
            .get(&k.0)
            .copied()
            .ok_or_else(|| WideError::Malformed(format!("mask {} read before written", k.0)))
    }

    fn def_v(&mut self, v: V) -> VReg {
        let r = self.fresh(RegClass::Float);
        self.cur_v.insert(v.0, r);
        r
    }

    fn def_k(&mut self, k: K) -> VReg {
        let r = self.fresh(RegClass::Vector);
        self.cur_k.insert(k.0, r);
        r
    }

    fn push(&mut self, inst: MInst, operands: Vec<Operand>, args: Vec<VReg>) {
        self.f.insts.push(inst);
        self.f.operands.push(operands);
        self.f.branch_args.push(args);
    }

    /// Ends the current block (its last instruction pushed) and starts the
    /// next, which gets parameters `params` (`f.params` holds one entry
    /// per block so far and one for the block being filled).
    fn end_block(&mut self, params: Vec<VReg>) {
        let end = self.f.insts.len();
        self.f.blocks.push((self.block_start, end));
        self.f.depths.push(self.depth);
        self.block_start = end;
        self.f.params.push(params);
    }

    /// One non-control operation: renamed, with its operands.
    fn op(&mut self, op: &Op) -> Result<(), WideError> {
        let vv = |r: VReg| V(r.vreg() as u32);
        let kk = |r: VReg| K(r.vreg() as u32);
        let (renamed, operands) = match *op {
            Op::Copy { d, a } => {
                let r = self.use_v(a)?;
                self.cur_v.insert(d.0, r);
                return Ok(());
            }
            Op::Splat { d, bits } => {
                let r = self.def_v(d);
                self.konst
                    .insert(r.vreg(), (PoolConst::D(bits), self.f.insts.len()));
                (Op::Splat { d: vv(r), bits }, vec![Operand::reg_def(r)])
            }
            Op::Load { d, arg, off } => {
                let r = self.def_v(d);
                (Op::Load { d: vv(r), arg, off }, vec![Operand::reg_def(r)])
            }
            Op::Broadcast { d, arg, off } => {
                let r = self.def_v(d);
                (
                    Op::Broadcast { d: vv(r), arg, off },
                    vec![Operand::reg_def(r)],
                )
            }
            Op::Store { a, arg, off } => {
                let r = self.use_v(a)?;
                (Op::Store { a: vv(r), arg, off }, vec![Operand::reg_use(r)])
            }
            Op::Bin { op, d, a, b } => {
                let (x, y) = (self.use_v(a)?, self.use_v(b)?);
                let (ra, rb, mut operands) = self.bin_sources(op, x, y);
                let r = self.def_v(d);
                operands.push(Operand::reg_def(r));
                (
                    Op::Bin {
                        op,
                        d: vv(r),
                        a: ra,
                        b: rb,
                    },
                    operands,
                )
            }
            Op::Fma { d, a, b, c } | Op::FmaD { d, a, b, c } | Op::Fms { d, a, b, c } => {
                let double = matches!(op, Op::FmaD { .. });
                let srcs = [self.use_v(a)?, self.use_v(b)?, self.use_v(c)?];
                // One operand may come from the pool: the addend, else a
                // factor (`vfmadd213ps` / `231` / `132` take it).
                let from_pool = [2, 1, 0]
                    .into_iter()
                    .find(|&i| self.konst_as(srcs[i], double).is_some());
                // The result takes the register of an operand read for the
                // last time here, the addend's first (`vfmadd231ps`), else
                // a factor's (`vfmadd213ps`, `vfmadd132ps`; the product
                // commutes, the result is the same), which saves a copy
                // where the addend lives on (a constant kept across the
                // chunk loop, say).
                let at = self.at;
                let dies = [
                    self.dies(a, srcs[0], at),
                    self.dies(b, srcs[1], at),
                    self.dies(c, srcs[2], at),
                ];
                let tied = [2, 1, 0]
                    .into_iter()
                    .filter(|&i| Some(i) != from_pool)
                    .find(|&i| dies[i])
                    .unwrap_or(if from_pool == Some(2) { 0 } else { 2 });
                let mut renamed = [V(0); 3];
                let mut operands = Vec::new();
                let mut tied_at = 0;
                for (i, x) in srcs.into_iter().enumerate() {
                    if Some(i) == from_pool {
                        renamed[i] = self.mem(x, double).expect("a pool constant");
                    } else {
                        renamed[i] = vv(x);
                        if i == tied {
                            tied_at = operands.len();
                        }
                        operands.push(Operand::reg_use(x));
                    }
                }
                let r = self.def_v(d);
                operands.push(Operand::reg_reuse_def(r, tied_at));
                let [a, b, c] = renamed;
                let d = vv(r);
                let renamed = match op {
                    Op::FmaD { .. } => Op::FmaD { d, a, b, c },
                    Op::Fms { .. } => Op::Fms { d, a, b, c },
                    _ => Op::Fma { d, a, b, c },
                };
                (renamed, operands)
            }
            Op::SplatQ { d, bits } => {
                let r = self.def_v(d);
                self.konst
                    .insert(r.vreg(), (PoolConst::Q(bits), self.f.insts.len()));
                (Op::SplatQ { d: vv(r), bits }, vec![Operand::reg_def(r)])
            }
            Op::Sqrt { d, a } | Op::IntToFloat { d, a } => {
                let x = self.use_v(a)?;
                let r = self.def_v(d);
                let renamed = match op {
                    Op::Sqrt { .. } => Op::Sqrt { d: vv(r), a: vv(x) },
                    _ => Op::IntToFloat { d: vv(r), a: vv(x) },
                };
                (renamed, vec![Operand::reg_use(x), Operand::reg_def(r)])
            }
            Op::BinMasked { op, d, a, b, k } => {
                let (old, x, y, m) = (
                    self.use_v(d)?,
                    self.use_v(a)?,
                    self.use_v(b)?,
                    self.use_k(k)?,
                );
                let (ra, rb, sources) = self.bin_sources(op, x, y);
                let r = self.def_v(d);
                let mut operands = vec![Operand::reg_use(old)];
                operands.extend(sources);
                operands.extend([Operand::reg_use(m), Operand::reg_reuse_def(r, 0)]);
                (
                    Op::BinMasked {
                        op,
                        d: vv(r),
                        a: ra,
                        b: rb,
                        k: kk(m),
                    },
                    operands,
                )
            }
            Op::FmaMasked { d, a, b, k } | Op::FmaDMasked { d, a, b, k } => {
                let double = matches!(op, Op::FmaDMasked { .. });
                let (old, x, y, m) = (
                    self.use_v(d)?,
                    self.use_v(a)?,
                    self.use_v(b)?,
                    self.use_k(k)?,
                );
                let (rb, sources) = self.last_source(x, y, double);
                let r = self.def_v(d);
                let mut operands = vec![Operand::reg_use(old)];
                operands.extend(sources);
                operands.extend([Operand::reg_use(m), Operand::reg_reuse_def(r, 0)]);
                let (d, a, b, k) = (vv(r), vv(x), rb, kk(m));
                (
                    if double {
                        Op::FmaDMasked { d, a, b, k }
                    } else {
                        Op::FmaMasked { d, a, b, k }
                    },
                    operands,
                )
            }
            Op::AllLanes { d } => {
                let r = self.def_k(d);
                (Op::AllLanes { d: kk(r) }, vec![Operand::reg_def(r)])
            }
            Op::KOr { d, a, b } => {
                let (x, y) = (self.use_k(a)?, self.use_k(b)?);
                let r = self.def_k(d);
                (
                    Op::KOr {
                        d: kk(r),
                        a: kk(x),
                        b: kk(y),
                    },
                    vec![
                        Operand::reg_use(x),
                        Operand::reg_use(y),
                        Operand::reg_def(r),
                    ],
                )
            }
            Op::Compare {
                cmp,
                d,
                a,
                b,
                within,
            } => {
                let (x, y, w) = (self.use_v(a)?, self.use_v(b)?, self.use_k(within)?);
                let (rb, mut operands) = self.last_source(x, y, false);
                let r = self.def_k(d);
                operands.extend([Operand::reg_use(w), Operand::reg_def(r)]);
                (
                    Op::Compare {
                        cmp,
                        d: kk(r),
                        a: vv(x),
                        b: rb,
                        within: kk(w),
                    },
                    operands,
                )
            }
            Op::KCopy { d, a } => {
                let r = self.use_k(a)?;
                self.cur_k.insert(d.0, r);
                return Ok(());
            }
            Op::Compare2 {
                kind,
                pred,
                d,
                a,
                b,
            } => {
                let (x, y) = (self.use_v(a)?, self.use_v(b)?);
                let q = matches!(kind, CmpKind::F64 | CmpKind::I64);
                let (rb, mut operands) = self.last_source(x, y, q);
                let r = self.def_k(d);
                operands.push(Operand::reg_def(r));
                (
                    Op::Compare2 {
                        kind,
                        pred,
                        d: kk(r),
                        a: vv(x),
                        b: rb,
                    },
                    operands,
                )
            }
            Op::KAnd { d, a, b } | Op::KAndNot { d, a, b } | Op::KXor { d, a, b } => {
                let (x, y) = (self.use_k(a)?, self.use_k(b)?);
                let r = self.def_k(d);
                let (d, a, b) = (kk(r), kk(x), kk(y));
                let renamed = match op {
                    Op::KAnd { .. } => Op::KAnd { d, a, b },
                    Op::KAndNot { .. } => Op::KAndNot { d, a, b },
                    _ => Op::KXor { d, a, b },
                };
                (
                    renamed,
                    vec![
                        Operand::reg_use(x),
                        Operand::reg_use(y),
                        Operand::reg_def(r),
                    ],
                )
            }
            Op::KNot { d, a } => {
                let x = self.use_k(a)?;
                let r = self.def_k(d);
                (
                    Op::KNot { d: kk(r), a: kk(x) },
                    vec![Operand::reg_use(x), Operand::reg_def(r)],
                )
            }
            Op::KHigh { d, a } => {
                let x = self.use_k(a)?;
                let r = self.def_k(d);
                (
                    Op::KHigh { d: kk(r), a: kk(x) },
                    vec![Operand::reg_use(x), Operand::reg_def(r)],
                )
            }
            Op::KJoin { d, lo, hi } => {
                let (x, y) = (self.use_k(lo)?, self.use_k(hi)?);
                let r = self.def_k(d);
                (
                    Op::KJoin {
                        d: kk(r),
                        lo: kk(x),
                        hi: kk(y),
                    },
                    vec![
                        Operand::reg_use(x),
                        Operand::reg_use(y),
                        Operand::reg_def(r),
                    ],
                )
            }
            Op::KZero { d } | Op::RunningLanes { d } => {
                let r = self.def_k(d);
                let renamed = match op {
                    Op::KZero { .. } => Op::KZero { d: kk(r) },
                    _ => Op::RunningLanes { d: kk(r) },
                };
                (renamed, vec![Operand::reg_def(r)])
            }
            Op::Select { d, k, a, b } => {
                let (x, y, m) = (self.use_v(a)?, self.use_v(b)?, self.use_k(k)?);
                // `vpblendmd` takes the lanes of `k` from its last source.
                let (ra, mut operands) = self.last_source(y, x, false);
                let r = self.def_v(d);
                operands.extend([Operand::reg_use(m), Operand::reg_def(r)]);
                (
                    Op::Select {
                        d: vv(r),
                        k: kk(m),
                        a: ra,
                        b: vv(y),
                    },
                    operands,
                )
            }
            Op::MaskedCopy { d, a, k } => {
                let (old, x, m) = (self.use_v(d)?, self.use_v(a)?, self.use_k(k)?);
                // A pool constant is a merge-masked `vpbroadcastd`.
                let (ra, sources) = self.last_source(old, x, false);
                let r = self.def_v(d);
                let mut operands = sources;
                operands.extend([Operand::reg_use(m), Operand::reg_reuse_def(r, 0)]);
                (
                    Op::MaskedCopy {
                        d: vv(r),
                        a: ra,
                        k: kk(m),
                    },
                    operands,
                )
            }
            Op::Fixup { d, x, table } => {
                let (old, x, t) = (self.use_v(d)?, self.use_v(x)?, self.use_v(table)?);
                // The table is the last source, which takes memory.
                let mut operands = vec![Operand::reg_use(old)];
                let (rt, rest) = self.last_source(x, t, false);
                operands.extend(rest);
                let r = self.def_v(d);
                operands.push(Operand::reg_reuse_def(r, 0));
                (
                    Op::Fixup {
                        d: vv(r),
                        x: vv(x),
                        table: rt,
                    },
                    operands,
                )
            }
            Op::Ternlog { d, b, c, imm } => {
                let (old, b, c) = (self.use_v(d)?, self.use_v(b)?, self.use_v(c)?);
                // `c` is the last source, which takes memory.
                let mut operands = vec![Operand::reg_use(old)];
                let (rc, rest) = self.last_source(b, c, false);
                operands.extend(rest);
                let r = self.def_v(d);
                operands.push(Operand::reg_reuse_def(r, 0));
                (
                    Op::Ternlog {
                        d: vv(r),
                        b: vv(b),
                        c: rc,
                        imm,
                    },
                    operands,
                )
            }
            Op::Un { op, d, a } => {
                let x = self.use_v(a)?;
                let r = self.def_v(d);
                (
                    Op::Un {
                        op,
                        d: vv(r),
                        a: vv(x),
                    },
                    vec![Operand::reg_use(x), Operand::reg_def(r)],
                )
            }
            Op::Convert { cvt, d, a } => {
                let x = self.use_v(a)?;
                let r = self.def_v(d);
                (
                    Op::Convert {
                        cvt,
                        d: vv(r),
                        a: vv(x),
                    },
                    vec![Operand::reg_use(x), Operand::reg_def(r)],
                )
            }
            Op::GroupId { d, dim } => {
                let r = self.def_v(d);
                (Op::GroupId { d: vv(r), dim }, vec![Operand::reg_def(r)])
            }
            Op::GlobalId { d, dim } => {
                let r = self.def_v(d);
                // Dropped when only accesses that know their lanes from
                // the id read it (none reads the register).
                self.pure.insert(r.vreg(), self.f.insts.len());
                (Op::GlobalId { d: vv(r), dim }, vec![Operand::reg_def(r)])
            }
            Op::LoadElems {
                d,
                ptr,
                idx,
                k,
                how,
            } => {
                let m = self.use_k(k)?;
                // An index not read need not be written (`entry` drops a
                // row offset's sum nothing else reads).
                let x = match reads_index(&how, true) {
                    true => Some(self.use_v(idx)?),
                    false => None,
                };
                let r = self.def_v(d);
                let mut operands = vec![Operand::reg_use(m), Operand::reg_def(r)];
                let idx = match x {
                    Some(x) => {
                        operands.push(Operand::reg_use(x));
                        vv(x)
                    }
                    None => V(UNREAD),
                };
                (
                    Op::LoadElems {
                        d: vv(r),
                        ptr,
                        idx,
                        k: kk(m),
                        how,
                    },
                    operands,
                )
            }
            Op::LoadSum {
                d,
                ptr,
                idx,
                part,
                disp,
                k,
                how,
            } => {
                // `part` is read from the frame, not from a register: no
                // operand (its slot is written where it is defined).
                let (x, y, m) = (self.use_v(idx)?, self.use_v(part)?, self.use_k(k)?);
                let r = self.def_v(d);
                (
                    Op::LoadSum {
                        d: vv(r),
                        ptr,
                        idx: vv(x),
                        part: vv(y),
                        disp,
                        k: kk(m),
                        how,
                    },
                    vec![
                        Operand::reg_use(x),
                        Operand::reg_use(m),
                        Operand::reg_def(r),
                    ],
                )
            }
            Op::FmaSum {
                d,
                b,
                ptr,
                idx,
                part,
                disp,
                k,
                how,
            } => {
                // `part` from the frame, as for `LoadSum`.
                let (old, y, x, p, m) = (
                    self.use_v(d)?,
                    self.use_v(b)?,
                    self.use_v(idx)?,
                    self.use_v(part)?,
                    self.use_k(k)?,
                );
                let r = self.def_v(d);
                (
                    Op::FmaSum {
                        d: vv(r),
                        b: vv(y),
                        ptr,
                        idx: vv(x),
                        part: vv(p),
                        disp,
                        k: kk(m),
                        how,
                    },
                    vec![
                        Operand::reg_use(old),
                        Operand::reg_use(y),
                        Operand::reg_use(x),
                        Operand::reg_use(m),
                        Operand::reg_reuse_def(r, 0),
                    ],
                )
            }
            Op::StoreElems {
                a,
                ptr,
                idx,
                k,
                how,
            } => {
                let (v, m) = (self.use_v(a)?, self.use_k(k)?);
                let mut operands = vec![Operand::reg_use(v), Operand::reg_use(m)];
                let idx = if reads_index(&how, false) {
                    let x = self.use_v(idx)?;
                    operands.push(Operand::reg_use(x));
                    vv(x)
                } else {
                    V(UNREAD)
                };
                (
                    Op::StoreElems {
                        a: vv(v),
                        ptr,
                        idx,
                        k: kk(m),
                        how,
                    },
                    operands,
                )
            }
            Op::RowLane0 { a, slot } => {
                let x = self.use_v(a)?;
                (Op::RowLane0 { a: vv(x), slot }, vec![Operand::reg_use(x)])
            }
            Op::Entry(step) => (Op::Entry(step), Vec::new()),
            Op::Loop
            | Op::WhileAny { .. }
            | Op::WhileCount { .. }
            | Op::WhileEntry(_)
            | Op::IfAny { .. }
            | Op::IfEntry(_)
            | Op::EndIf => {
                return Err(WideError::Malformed("control flow as an operation".into()));
            }
        };
        self.push(MInst::Op(renamed), operands, Vec::new());
        Ok(())
    }
}

/// The values and masks each loop of `ops` writes, by the index of its
/// `Loop`.
fn written_in_loops(ops: &[Op]) -> HashMap<usize, (Vec<u32>, Vec<u32>)> {
    let mut out = HashMap::default();
    // The open loops, innermost last, each with the sets of what it
    // writes (a test per value, not a scan of its list: a long body in
    // the entry's chunk loop writes thousands of values).
    let mut open: Vec<(usize, HashSet<u32>, HashSet<u32>)> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Loop => {
                open.push((i, HashSet::default(), HashSet::default()));
                out.insert(i, (Vec::new(), Vec::new()));
            }
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                open.pop();
            }
            _ => {
                let (vs, ks) = written(op);
                for (l, seen_v, seen_k) in &mut open {
                    let e: &mut (Vec<u32>, Vec<u32>) = out.get_mut(l).expect("opened");
                    for v in &vs {
                        if seen_v.insert(*v) {
                            e.0.push(*v);
                        }
                    }
                    for k in &ks {
                        if seen_k.insert(*k) {
                            e.1.push(*k);
                        }
                    }
                }
            }
        }
    }
    out
}

/// The values and masks the loop starting at `ops[start]` may read
/// before it writes them in a trip: all that it names but those whose
/// first mention in the loop is a write that reads no old value (not a
/// merge under a mask, not a source of its own operation) in the loop's
/// own straight line (outside its inner loops and skipped regions, which
/// may not run it). Only those need the value of the trip before: a
/// value the loop always writes before reading (a temporary kept in a
/// variable, matmul's `acc` of the first `k` after the middle passes'
/// unrolling) is no loop parameter, so its register is free across the
/// back edge and an FMA may take it without a copy.
fn read_before_written(ops: &[Op], start: usize) -> (HashSet<u32>, HashSet<u32>) {
    let (mut exposed_v, mut exposed_k) = (HashSet::default(), HashSet::default());
    let (mut seen_v, mut seen_k) = (HashSet::default(), HashSet::default());
    let (mut depth, mut skipped) = (0usize, 0usize);
    for op in &ops[start + 1..] {
        match op {
            Op::Loop => depth += 1,
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) if depth == 0 => break,
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => depth -= 1,
            Op::IfAny { .. } | Op::IfEntry(_) => skipped += 1,
            Op::EndIf => skipped = skipped.saturating_sub(1),
            _ => {}
        }
        let vs = RefCell::new(Vec::new());
        let ks = RefCell::new(Vec::new());
        op.map_regs(
            |v| {
                vs.borrow_mut().push(v.0);
                v
            },
            |k| {
                ks.borrow_mut().push(k.0);
                k
            },
        );
        let (vs, ks) = (vs.into_inner(), ks.into_inner());
        let (wv, wk) = written(op);
        let merges = op.reads_destination();
        let fresh = depth == 0 && skipped == 0 && !merges;
        for v in &vs {
            if seen_v.insert(*v) {
                let killed = fresh && wv.contains(v) && vs.iter().filter(|x| *x == v).count() == 1;
                if !killed {
                    exposed_v.insert(*v);
                }
            }
        }
        for k in &ks {
            if seen_k.insert(*k) {
                let killed = fresh && wk.contains(k) && ks.iter().filter(|x| *x == k).count() == 1;
                if !killed {
                    exposed_k.insert(*k);
                }
            }
        }
    }
    (exposed_v, exposed_k)
}

/// The values and masks `op` writes (by number).
pub(crate) fn written(op: &Op) -> (Vec<u32>, Vec<u32>) {
    match *op {
        Op::Splat { d, .. }
        | Op::Load { d, .. }
        | Op::Broadcast { d, .. }
        | Op::Bin { d, .. }
        | Op::Fma { d, .. }
        | Op::Fms { d, .. }
        | Op::FmaD { d, .. }
        | Op::SplatQ { d, .. }
        | Op::Sqrt { d, .. }
        | Op::IntToFloat { d, .. }
        | Op::Copy { d, .. }
        | Op::BinMasked { d, .. }
        | Op::FmaMasked { d, .. }
        | Op::FmaDMasked { d, .. }
        | Op::Select { d, .. }
        | Op::MaskedCopy { d, .. }
        | Op::Fixup { d, .. }
        | Op::Ternlog { d, .. }
        | Op::Convert { d, .. }
        | Op::Un { d, .. }
        | Op::GlobalId { d, .. }
        | Op::GroupId { d, .. }
        | Op::LoadElems { d, .. }
        | Op::LoadSum { d, .. }
        | Op::FmaSum { d, .. } => (vec![d.0], vec![]),
        Op::AllLanes { d }
        | Op::KOr { d, .. }
        | Op::Compare { d, .. }
        | Op::Compare2 { d, .. }
        | Op::KAnd { d, .. }
        | Op::KAndNot { d, .. }
        | Op::KXor { d, .. }
        | Op::KNot { d, .. }
        | Op::KHigh { d, .. }
        | Op::KJoin { d, .. }
        | Op::KZero { d }
        | Op::KCopy { d, .. }
        | Op::RunningLanes { d } => (vec![], vec![d.0]),
        _ => (vec![], vec![]),
    }
}

/// A skipped region being built ([`Op::IfAny`]): the index of its
/// `Skip`, the block that ends with it, and the values it writes that
/// were live before it with their versions then.
struct OpenSkip {
    inst: usize,
    block: usize,
    carried_v: Vec<(u32, VReg)>,
    carried_k: Vec<(u32, VReg)>,
    /// Written in the region, not live before it: not readable after.
    local_v: Vec<u32>,
    local_k: Vec<u32>,
}

/// The values and masks written between `ops[from]` (an `IfAny`) and its
/// `EndIf`.
fn written_in_region(ops: &[Op], from: usize) -> (Vec<u32>, Vec<u32>) {
    let (mut vs, mut ks) = (Vec::new(), Vec::new());
    let (mut seen_v, mut seen_k) = (HashSet::default(), HashSet::default());
    let mut depth = 0;
    for op in &ops[from + 1..] {
        match op {
            Op::IfAny { .. } | Op::IfEntry(_) => depth += 1,
            Op::EndIf if depth == 0 => break,
            Op::EndIf => depth -= 1,
            _ => {
                let (v, k) = written(op);
                vs.extend(v.into_iter().filter(|x| seen_v.insert(*x)));
                ks.extend(k.into_iter().filter(|x| seen_k.insert(*x)));
            }
        }
    }
    (vs, ks)
}

/// The index of the last operation of `ops` naming each value (reading
/// it, or writing it: a later write counts too, which errs on the side of
/// a value living on).
fn last_reads(ops: &[Op]) -> HashMap<u32, usize> {
    let mut last = HashMap::default();
    for (i, op) in ops.iter().enumerate() {
        let named = std::cell::RefCell::new(Vec::new());
        op.map_regs(
            |v| {
                named.borrow_mut().push(v.0);
                v
            },
            |k| k,
        );
        for v in named.into_inner() {
            last.insert(v, i);
        }
    }
    last
}

/// A loop being built: its header block, the values it carries (program
/// ids with their header parameters).
struct OpenLoop {
    header: usize,
    carried_v: Vec<u32>,
    carried_k: Vec<u32>,
}

/// Empties the definitions of constants and global ids that no
/// instruction reads from a register (nor passes to a block), so that
/// they take no register and cost nothing.
fn drop_unread_constants(b: &mut Builder) {
    let mut reads: HashMap<usize, usize> = HashMap::default();
    let uses =
        b.f.operands
            .iter()
            .flatten()
            .filter(|o| o.kind() == regalloc2::OperandKind::Use)
            .map(|o| o.vreg().vreg());
    for r in uses.chain(b.f.branch_args.iter().flatten().map(|r| r.vreg())) {
        *reads.entry(r).or_default() += 1;
    }
    let defs = b.konst.iter().map(|(r, (_, inst))| (r, inst));
    for (r, inst) in defs.chain(&b.pure) {
        if !reads.contains_key(r) {
            b.f.insts[*inst] = MInst::Nop;
            b.f.operands[*inst].clear();
        }
    }
}

/// The SSA form of `p`, and the constants its instructions read from
/// memory (none unless `pooled`).
fn build(p: &Program, pooled: bool) -> Result<(Func, Vec<PoolConst>), WideError> {
    let ops = p.ops();
    let writes = written_in_loops(ops);
    let mut b = Builder {
        f: Func {
            insts: Vec::new(),
            operands: Vec::new(),
            blocks: Vec::new(),
            succs: Vec::new(),
            preds: Vec::new(),
            params: vec![Vec::new()],
            branch_args: Vec::new(),
            num_vregs: 0,
            depths: Vec::new(),
        },
        cur_v: HashMap::default(),
        cur_k: HashMap::default(),
        block_start: 0,
        depth: 0,
        vdepth: Vec::new(),
        last_read: last_reads(ops),
        at: 0,
        pooled,
        konst: HashMap::default(),
        pool: Vec::new(),
        pure: HashMap::default(),
    };
    let mut open: Vec<OpenLoop> = Vec::new();
    let mut skips: Vec<OpenSkip> = Vec::new();
    // Edges as (from block, to block), gathered then turned into lists.
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Loop => {
                let (wv, wk) = &writes[&i];
                let (rv, rk) = read_before_written(ops, i);
                // Carried: written in the loop, live before it and read in
                // a trip before that trip writes it.
                let carried_v: Vec<u32> = wv
                    .iter()
                    .copied()
                    .filter(|v| b.cur_v.contains_key(v) && rv.contains(v))
                    .collect();
                let carried_k: Vec<u32> = wk
                    .iter()
                    .copied()
                    .filter(|k| b.cur_k.contains_key(k) && rk.contains(k))
                    .collect();
                let args: Vec<VReg> = carried_v
                    .iter()
                    .map(|v| b.cur_v[v])
                    .chain(carried_k.iter().map(|k| b.cur_k[k]))
                    .collect();
                let header = b.f.blocks.len() + 1;
                b.push(MInst::Jump { to: header }, Vec::new(), args);
                edges.push((header - 1, header));
                let mut params = Vec::new();
                for v in &carried_v {
                    let r = b.fresh(RegClass::Float);
                    b.cur_v.insert(*v, r);
                    params.push(r);
                }
                for k in &carried_k {
                    let r = b.fresh(RegClass::Vector);
                    b.cur_k.insert(*k, r);
                    params.push(r);
                }
                b.end_block(params);
                b.depth += 1;
                for r in &b.f.params[header] {
                    b.vdepth[r.vreg()] = b.depth;
                }
                open.push(OpenLoop {
                    header,
                    carried_v,
                    carried_k,
                });
            }
            Op::WhileAny { .. } | Op::WhileCount { .. } | Op::WhileEntry(_) => {
                let l = open
                    .pop()
                    .ok_or_else(|| WideError::Malformed("loop end without a start".into()))?;
                let this = b.f.blocks.len();
                let (latch, exit) = (this + 1, this + 2);
                let (test, operands) = match *op {
                    Op::WhileAny { k } => {
                        let m = b.use_k(k)?;
                        (
                            Op::WhileAny {
                                k: K(m.vreg() as u32),
                            },
                            vec![Operand::reg_use(m)],
                        )
                    }
                    _ => (op.clone(), Vec::new()),
                };
                b.push(
                    MInst::Test {
                        op: test,
                        latch,
                        exit,
                    },
                    operands,
                    Vec::new(),
                );
                edges.push((this, latch));
                edges.push((this, exit));
                b.end_block(Vec::new());
                let args: Vec<VReg> = l
                    .carried_v
                    .iter()
                    .map(|v| b.cur_v[v])
                    .chain(l.carried_k.iter().map(|k| b.cur_k[k]))
                    .collect();
                b.push(MInst::Jump { to: l.header }, Vec::new(), args);
                edges.push((latch, l.header));
                b.end_block(Vec::new());
                b.depth -= 1;
            }
            Op::IfAny { .. } | Op::IfEntry(_) => {
                let (wv, wk) = written_in_region(ops, i);
                let block = b.f.blocks.len();
                skips.push(OpenSkip {
                    inst: b.f.insts.len(),
                    block,
                    carried_v: wv
                        .iter()
                        .filter_map(|v| b.cur_v.get(v).map(|r| (*v, *r)))
                        .collect(),
                    carried_k: wk
                        .iter()
                        .filter_map(|k| b.cur_k.get(k).map(|r| (*k, *r)))
                        .collect(),
                    local_v: wv
                        .iter()
                        .copied()
                        .filter(|v| !b.cur_v.contains_key(v))
                        .collect(),
                    local_k: wk
                        .iter()
                        .copied()
                        .filter(|k| !b.cur_k.contains_key(k))
                        .collect(),
                });
                let (op, operands) = match *op {
                    Op::IfAny { k } => {
                        let m = b.use_k(k)?;
                        (
                            Op::IfAny {
                                k: K(m.vreg() as u32),
                            },
                            vec![Operand::reg_use(m)],
                        )
                    }
                    _ => (op.clone(), Vec::new()),
                };
                b.push(MInst::Skip { op, skip: 0 }, operands, Vec::new());
                edges.push((block, block + 1));
                b.end_block(Vec::new());
            }
            Op::EndIf => {
                let s = skips
                    .pop()
                    .ok_or_else(|| WideError::Malformed("a region end without a start".into()))?;
                // The region's end and the skip block both go to the join
                // block, which takes the carried values as parameters.
                let end = b.f.blocks.len();
                let (skip, join) = (end + 1, end + 2);
                let args: Vec<VReg> = s
                    .carried_v
                    .iter()
                    .map(|(v, _)| b.cur_v[v])
                    .chain(s.carried_k.iter().map(|(k, _)| b.cur_k[k]))
                    .collect();
                b.push(MInst::Jump { to: join }, Vec::new(), args);
                edges.push((end, join));
                b.end_block(Vec::new());
                let before: Vec<VReg> = s
                    .carried_v
                    .iter()
                    .map(|(_, r)| *r)
                    .chain(s.carried_k.iter().map(|(_, r)| *r))
                    .collect();
                b.push(MInst::Jump { to: join }, Vec::new(), before);
                edges.push((skip, join));
                edges.push((s.block, skip));
                if let MInst::Skip { skip: to, .. } = &mut b.f.insts[s.inst] {
                    *to = skip;
                }
                let mut params = Vec::new();
                for (v, _) in &s.carried_v {
                    let r = b.fresh(RegClass::Float);
                    b.cur_v.insert(*v, r);
                    params.push(r);
                }
                for (k, _) in &s.carried_k {
                    let r = b.fresh(RegClass::Vector);
                    b.cur_k.insert(*k, r);
                    params.push(r);
                }
                for v in &s.local_v {
                    b.cur_v.remove(v);
                }
                for k in &s.local_k {
                    b.cur_k.remove(k);
                }
                b.end_block(params);
            }
            _ => {
                b.at = i;
                b.op(op)?
            }
        }
    }
    if !open.is_empty() {
        return Err(WideError::Malformed("loop without an end".into()));
    }
    if !skips.is_empty() {
        return Err(WideError::Malformed("a region without an end".into()));
    }
    b.push(MInst::Ret, Vec::new(), Vec::new());
    let end = b.f.insts.len();
    b.f.blocks.push((b.block_start, end));
    b.f.depths.push(b.depth);
    let n = b.f.blocks.len();
    b.f.succs = vec![Vec::new(); n];
    b.f.preds = vec![Vec::new(); n];
    for (from, to) in edges {
        b.f.succs[from].push(Block::new(to));
        b.f.preds[to].push(Block::new(from));
    }
    drop_unread_constants(&mut b);
    Ok((b.f, b.pool))
}

fn machine_env() -> MachineEnv {
    let mut zmm = PRegSet::empty();
    // zmm31 and k7 are the memory operations' scratch (`emit`).
    for r in 0..usize::from(super::emit::SCRATCH_ZMM) {
        zmm.add(PReg::new(r, RegClass::Float));
    }
    let mut k = PRegSet::empty();
    for r in 1..usize::from(super::emit::SCRATCH_K) {
        k.add(PReg::new(r, RegClass::Vector));
    }
    MachineEnv {
        preferred_regs_by_class: [PRegSet::empty(), zmm, k],
        non_preferred_regs_by_class: [PRegSet::empty(); 3],
        scratch_by_class: [None; 3],
        fixed_stack_slots: Vec::new(),
    }
}

/// Where an allocation is, for a move.
enum Loc {
    Reg(PReg),
    Stack(i32),
}

fn loc(a: Allocation) -> Result<Loc, WideError> {
    if let Some(r) = a.as_reg() {
        Ok(Loc::Reg(r))
    } else if let Some(s) = a.as_stack() {
        Ok(Loc::Stack((s.index() * SLOT) as i32))
    } else {
        Err(WideError::Malformed("an operand without a location".into()))
    }
}

fn emit_move(a: &mut CodeAssembler, from: Allocation, to: Allocation) -> Result<(), WideError> {
    let class = from
        .as_reg()
        .or(to.as_reg())
        .map(|r| r.class())
        .ok_or_else(|| WideError::Malformed("a stack-to-stack move".into()))?;
    match (loc(from)?, loc(to)?, class) {
        (Loc::Reg(f), Loc::Reg(t), RegClass::Float) => {
            if f != t {
                a.vmovaps(zmm_reg(t.hw_enc() as u8)?, zmm_reg(f.hw_enc() as u8)?)
                    .map_err(asm_err)?;
            }
        }
        (Loc::Reg(f), Loc::Stack(o), RegClass::Float) => a
            .vmovups(zmmword_ptr(rsp + o), zmm_reg(f.hw_enc() as u8)?)
            .map_err(asm_err)?,
        (Loc::Stack(o), Loc::Reg(t), RegClass::Float) => a
            .vmovups(zmm_reg(t.hw_enc() as u8)?, zmmword_ptr(rsp + o))
            .map_err(asm_err)?,
        (Loc::Reg(f), Loc::Reg(t), _) => {
            if f != t {
                a.kmovw(k_reg(t.hw_enc() as u8)?, k_reg(f.hw_enc() as u8)?)
                    .map_err(asm_err)?;
            }
        }
        (Loc::Reg(f), Loc::Stack(o), _) => a
            .kmovw(word_ptr(rsp + o), k_reg(f.hw_enc() as u8)?)
            .map_err(asm_err)?,
        (Loc::Stack(o), Loc::Reg(t), _) => a
            .kmovw(k_reg(t.hw_enc() as u8)?, word_ptr(rsp + o))
            .map_err(asm_err)?,
        (Loc::Stack(_), Loc::Stack(_), _) => {
            return Err(WideError::Malformed("a stack-to-stack move".into()))
        }
    }
    Ok(())
}

/// What the allocator did, besides the code.
#[derive(Clone, Copy, Debug, Default)]
pub struct Regalloc2Stats {
    /// Spill slots of 8 bytes the function's frame holds.
    pub spill_slots: usize,
    /// Moves and spills the allocator inserted.
    pub edits: usize,
    /// Constants the code reads as broadcast memory operands.
    pub pool_constants: usize,
}

/// `p` allocated by `regalloc2`: its SSA form and the allocator's output.
pub(crate) struct Allocated {
    f: Func,
    out: regalloc2::Output,
    /// The constants its operations read as broadcast memory operands
    /// (`V(POOL_BASE + i)` is entry `i`).
    pool: Vec<PoolConst>,
}

impl Allocated {
    /// Bytes of stack the spill slots take, rounded up to 64.
    pub(crate) fn frame(&self) -> usize {
        (self.out.num_spillslots * SLOT).div_ceil(64) * 64
    }

    /// The spills and reloads the allocator placed in blocks inside at
    /// least `depth` loops.
    pub(crate) fn stack_moves_within(&self, depth: usize) -> usize {
        let (f, out) = (&self.f, &self.out);
        out.edits
            .iter()
            .filter(|(at, Edit::Move { from, to })| {
                (from.is_stack() || to.is_stack()) && {
                    let i = at.inst().index();
                    let block = f.blocks.partition_point(|&(_, end)| end <= i);
                    f.depths.get(block).is_some_and(|d| *d >= depth)
                }
            })
            .count()
    }

    pub(crate) fn stats(&self) -> Regalloc2Stats {
        Regalloc2Stats {
            spill_slots: self.out.num_spillslots,
            edits: self.out.edits.len(),
            pool_constants: self.pool.len(),
        }
    }
}

/// Runs `regalloc2` on `p`, every constant in a register.
pub(crate) fn allocate_ra2(p: &Program) -> Result<Allocated, WideError> {
    allocate_ra2_with(p, false)
}

/// Runs `regalloc2` on `p`, with constants read from the pool where the
/// instruction takes a memory operand (`pooled`): such a use needs no
/// register, so a constant read only so takes none, nor a spill slot.
/// Its code must be emitted by [`emit_allocated_pooled`].
pub(crate) fn allocate_ra2_pooled(p: &Program) -> Result<Allocated, WideError> {
    allocate_ra2_with(p, true)
}

fn allocate_ra2_with(p: &Program, pooled: bool) -> Result<Allocated, WideError> {
    let (f, pool) = build(p, pooled)?;
    let options = RegallocOptions {
        verbose_log: false,
        validate_ssa: cfg!(debug_assertions),
        algorithm: regalloc2::Algorithm::Ion,
    };
    // The allocator's context is kept per thread: its tables keep their
    // capacity from one program to the next instead of being allocated
    // and freed each time (most of a small program's allocation was
    // that). A context in use (never, today) is not shared: a fresh one.
    let out = REGALLOC_CTX
        .with(|cell| {
            let run =
                |ctx: &mut regalloc2::Ctx| -> Result<regalloc2::Output, regalloc2::RegAllocError> {
                    regalloc2::run_with_ctx(&f, &MACHINE_ENV, &options, ctx)?;
                    Ok(std::mem::take(&mut ctx.output))
                };
            match cell.try_borrow_mut() {
                Ok(mut ctx) => run(&mut ctx),
                Err(_) => run(&mut regalloc2::Ctx::default()),
            }
        })
        .map_err(|e| WideError::Malformed(format!("regalloc2: {e:?}")))?;
    Ok(Allocated { f, out, pool })
}

thread_local! {
    /// [`allocate_ra2_with`]'s allocator context.
    static REGALLOC_CTX: std::cell::RefCell<regalloc2::Ctx> =
        std::cell::RefCell::new(regalloc2::Ctx::default());
}

/// The registers the allocator hands out ([`machine_env`]), made once.
static MACHINE_ENV: std::sync::LazyLock<MachineEnv> = std::sync::LazyLock::new(machine_env);

/// Where [`emit_allocated_pooled`] puts its code.
pub(crate) struct EmitAt<'f> {
    /// Bytes to give back to the stack at the program's end (its own
    /// frame), 0 inside a kernel entry, whose frame the entry keeps.
    pub release_frame: usize,
    /// Inside a kernel entry: where a loop goes when the launch's stop
    /// flag (`[r12 + STOP_FLAG]`) is set at its back edge.
    pub cancel: Option<CodeLabel>,
    /// Inside a kernel entry: its frame, for the memory operations.
    pub entry: Option<&'f mut super::access::EntryFrame>,
    /// Inside a kernel entry: its scalar code ([`Op::Entry`] and the ends
    /// of its loops, [`Op::WhileEntry`]).
    pub steps: Option<&'f mut EntrySteps<'f>>,
    /// Whether `steps` ends the chunk loops ([`super::EntryLoop::Chunks`],
    /// [`super::EntryLoop::Full`]) with a jump back to the loop's start
    /// ([`EntryCode::Back`]) where the back edge has no moves: one taken
    /// branch a trip, not two.
    pub fold_latches: bool,
}

/// What a kernel entry emits for its own code in the allocated program.
pub(crate) type EntrySteps<'f> =
    dyn FnMut(&mut CodeAssembler, EntryCode) -> Result<(), WideError> + 'f;

/// A piece of a kernel entry's scalar code ([`EmitAt::steps`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum EntryCode {
    Step(super::EntryStep),
    /// The end of one of its loops: the advance, and a jump to `exit`
    /// when the loop is done (else the code falls through to the back
    /// edge).
    End(super::EntryLoop, CodeLabel),
    /// The end of a loop whose back edge has no moves (a chunk loop's,
    /// [`EmitAt::fold_latches`]): the advance, and a jump back to the
    /// loop's start while it goes on (else the code falls through to
    /// its exit).
    Back(super::EntryLoop, CodeLabel),
    /// A region's test ([`Op::IfEntry`]): a jump to the label past the
    /// region when it fails.
    Skip(super::EntryTest, CodeLabel),
}

/// Emits the allocated program into `a` (spill slots at `[rsp]`), the
/// constants its operations read from memory labelled in `pool`, whose
/// data the function's end must emit ([`ConstPool::emit_data`]); returns
/// the zmm and k registers used, as bit sets.
pub(crate) fn emit_allocated_pooled(
    a: &mut CodeAssembler,
    alloc: &Allocated,
    at: &mut EmitAt<'_>,
    pool: &mut ConstPool,
) -> Result<(u32, u32), WideError> {
    let (f, out) = (&alloc.f, &alloc.out);
    let mut pool = PoolOperands {
        table: &alloc.pool,
        pool,
    };
    let labels: Vec<CodeLabel> = (0..f.blocks.len()).map(|_| a.create_label()).collect();
    let (mut zmm_set, mut k_set) = (0u32, 0u32);
    // The masks of all 16 lanes (a full chunk's running lanes): their
    // accesses make no mask test.
    let all_lanes: HashSet<u32> = f
        .insts
        .iter()
        .filter_map(|inst| match inst {
            MInst::Op(Op::AllLanes { d }) => Some(d.0),
            _ => None,
        })
        .collect();
    // Latch blocks whose jump back the loop's test made ([`EntryCode::Back`]).
    let mut folded: HashSet<usize> = HashSet::default();
    // Per block: where it jumps when it holds nothing else (no move).
    let only_jump: Vec<Option<usize>> = (0..f.blocks.len())
        .map(|b| {
            let (s, e) = f.blocks[b];
            match f.insts.get(s) {
                Some(MInst::Jump { to })
                    if e == s + 1 && out.block_insts_and_edits(f, Block::new(b)).count() == 1 =>
                {
                    Some(*to)
                }
                _ => None,
            }
        })
        .collect();
    // A jump from block `b` to `to` falls through when every block between
    // holds only a jump to `to` (which falls through as well): a region's
    // end over the empty block that skips it.
    let falls_to = |b: usize, to: usize| to > b && (b + 1..to).all(|x| only_jump[x] == Some(to));
    let shifts = if at.entry.is_some() {
        shifted_values(alloc)
    } else {
        HashMap::default()
    };
    // The frame's slot of each (part, buffer) of the loads of sums, by
    // the part's vreg.
    let sums_at = at.entry.as_deref().and_then(|f| f.sums_at);
    let mut sums: HashMap<u32, Vec<(Base, i32, i32)>> = HashMap::default();
    let mut sum_slot: HashMap<(u32, Base, i32), i32> = HashMap::default();
    let mut stored: HashSet<u32> = HashSet::default();
    for (n, (part, base, ptr)) in sum_slots(alloc).into_iter().enumerate() {
        let Some(first) = sums_at else {
            return Err(WideError::Malformed(
                "a load of a sum outside a barrier entry".into(),
            ));
        };
        let slot = first + 8 * n as i32;
        sums.entry(part).or_default().push((base, ptr, slot));
        sum_slot.insert((part, base, ptr), slot);
    }
    for bi in 0..f.blocks.len() {
        let mut label = labels[bi];
        a.set_label(&mut label).map_err(asm_err)?;
        a.zero_bytes().map_err(asm_err)?;
        // A branch may arrive here: nothing known of the scratch registers.
        if let Some(frame) = at.entry.as_deref_mut() {
            frame.held.forget();
        }
        let items: Vec<InstOrEdit> = out.block_insts_and_edits(f, Block::new(bi)).collect();
        let plan = if at.entry.is_some() {
            let kinds: Vec<Item> = items.iter().map(|ie| item_of(f, ie)).collect();
            plan_block(&kinds, |k| all_lanes.contains(&k))
        } else {
            (0..items.len()).map(|t| Planned::Item(t, None)).collect()
        };
        // A full-mask stretch's labels and what the registers held at its
        // start and at the end of its full copy.
        let (mut testing, mut join) = (a.create_label(), a.create_label());
        let (mut before, mut after_full) = (Held::default(), Held::default());
        for step in plan {
            let (ie, full) = match step {
                Planned::Item(t, full) => (items[t].clone(), full),
                Planned::Test { k, at: t } => {
                    let InstOrEdit::Inst(i) = items[t] else {
                        return Err(WideError::Malformed("a stretch at a move".into()));
                    };
                    let hw = f.operands[i.index()]
                        .iter()
                        .zip(out.inst_allocs(i))
                        .find(|(o, _)| o.vreg().vreg() as u32 == k)
                        .and_then(|(_, place)| place.as_reg())
                        .ok_or_else(|| WideError::Malformed("a stretch's mask".into()))?
                        .hw_enc();
                    (testing, join) = (a.create_label(), a.create_label());
                    a.kmovw(r11d, k_reg(hw as u8)?).map_err(asm_err)?;
                    a.cmp(r11d, 0xffff).map_err(asm_err)?;
                    a.jne(testing).map_err(asm_err)?;
                    if let Some(frame) = at.entry.as_deref_mut() {
                        frame.held.forget_r11();
                        before = frame.held.clone();
                    }
                    continue;
                }
                Planned::Other => {
                    a.jmp(join).map_err(asm_err)?;
                    a.set_label(&mut testing).map_err(asm_err)?;
                    a.zero_bytes().map_err(asm_err)?;
                    if let Some(frame) = at.entry.as_deref_mut() {
                        after_full = std::mem::replace(&mut frame.held, before.clone());
                    }
                    continue;
                }
                Planned::Join => {
                    a.set_label(&mut join).map_err(asm_err)?;
                    a.zero_bytes().map_err(asm_err)?;
                    if let Some(frame) = at.entry.as_deref_mut() {
                        frame.held.meet(&after_full);
                    }
                    continue;
                }
            };
            let start = a.instructions().len();
            let mut accessed = false;
            match &ie {
                InstOrEdit::Edit(Edit::Move { from, to }) => emit_move(a, *from, *to)?,
                InstOrEdit::Inst(i) => {
                    let i = *i;
                    let allocs = out.inst_allocs(i);
                    // Each vreg of the instruction to its register.
                    let mut map: HashMap<u32, u32> = HashMap::default();
                    for (o, place) in f.operands[i.index()].iter().zip(allocs) {
                        let r = place.as_reg().ok_or_else(|| {
                            WideError::Malformed("an operand left in memory".into())
                        })?;
                        map.insert(o.vreg().vreg() as u32, r.hw_enc() as u32);
                        match r.class() {
                            RegClass::Float => zmm_set |= 1 << r.hw_enc(),
                            _ => k_set |= 1 << r.hw_enc(),
                        }
                    }
                    // A pool constant keeps its number (`POOL_BASE + i`).
                    let phys = |x: u32| {
                        if x >= POOL_BASE {
                            x
                        } else {
                            map.get(&x).copied().unwrap_or(u32::MAX)
                        }
                    };
                    match &f.insts[i.index()] {
                        MInst::Op(Op::Entry(step)) => {
                            let steps = at.steps.as_deref_mut().ok_or_else(|| {
                                WideError::Malformed("an entry's step outside an entry".into())
                            })?;
                            steps(a, EntryCode::Step(*step))?;
                        }
                        MInst::Op(virt) => {
                            let op = virt.map_regs(|v| V(phys(v.0)), |k| K(phys(k.0)));
                            match (&op, at.entry.as_deref_mut()) {
                                (Op::LoadElems { .. } | Op::StoreElems { .. }, Some(frame)) => {
                                    let (Op::LoadElems { idx, .. } | Op::StoreElems { idx, .. }) =
                                        virt
                                    else {
                                        return Err(WideError::Malformed("an access".into()));
                                    };
                                    accessed = true;
                                    let defs = defined(f, i);
                                    let (Op::LoadElems { k, .. } | Op::StoreElems { k, .. }) = virt
                                    else {
                                        return Err(WideError::Malformed("an access".into()));
                                    };
                                    let full = full == Some(k.0) || all_lanes.contains(&k.0);
                                    super::access::emit_access(
                                        a,
                                        &op,
                                        frame,
                                        (idx.0, &defs, full, shift_from(&shifts, idx.0, frame)),
                                    )?
                                }
                                (Op::RowLane0 { a: x, slot }, Some(frame)) => {
                                    super::access::emit_row_lane0(a, frame, x.0 as u8, *slot)?
                                }
                                (Op::GroupId { d, dim }, Some(frame)) => {
                                    super::access::emit_group_id(a, frame, d.0 as u8, *dim)?
                                }
                                (Op::LoadSum { .. } | Op::FmaSum { .. }, Some(frame)) => {
                                    let (Op::LoadSum {
                                        idx,
                                        part,
                                        ptr,
                                        how,
                                        ..
                                    }
                                    | Op::FmaSum {
                                        idx,
                                        part,
                                        ptr,
                                        how,
                                        ..
                                    }) = *virt
                                    else {
                                        return Err(WideError::Malformed("a load".into()));
                                    };
                                    accessed = true;
                                    // Its part's address stored before
                                    // (in the code's order, which runs it
                                    // first: outside the load's loop).
                                    if !stored.contains(&part.0) {
                                        return Err(WideError::Malformed(
                                            "a load of a sum before its part".into(),
                                        ));
                                    }
                                    let slot = sum_slot
                                        .get(&(part.0, how.base, ptr))
                                        .copied()
                                        .ok_or_else(|| {
                                            WideError::Malformed("a sum's slot".into())
                                        })?;
                                    let defs = defined(f, i);
                                    super::access::emit_sum_load(
                                        a,
                                        &op,
                                        frame,
                                        (idx.0, &defs, slot),
                                    )?
                                }
                                _ => emit_op(a, &op, &mut pool)?,
                            }
                            // A part of a load of a sum: its address kept.
                            if let Some(frame) = at.entry.as_deref() {
                                for d in defined(f, i) {
                                    for &(base, ptr, slot) in sums.get(&d).into_iter().flatten() {
                                        stored.insert(d);
                                        let zn = map.get(&d).copied().ok_or_else(|| {
                                            WideError::Malformed("a sum's part".into())
                                        })?;
                                        super::access::emit_sum_part(
                                            a,
                                            frame,
                                            zn as u8,
                                            (base, ptr),
                                            slot,
                                        )?;
                                    }
                                }
                            }
                        }
                        MInst::Jump { to, .. } => {
                            if !falls_to(bi, *to) && !folded.contains(&bi) {
                                a.jmp(labels[*to]).map_err(asm_err)?;
                            }
                        }
                        MInst::Test { op, latch, exit } => {
                            // The latch follows: leave for the exit when
                            // the loop is done.
                            debug_assert_eq!(*latch, bi + 1);
                            match *op {
                                Op::WhileAny { k } => {
                                    if let Some(cancel) = at.cancel {
                                        let stop = crate::abi::launch_offsets::STOP_FLAG;
                                        a.mov(rax, qword_ptr(r12 + stop)).map_err(asm_err)?;
                                        a.cmp(dword_ptr(rax), 0).map_err(asm_err)?;
                                        a.jne(cancel).map_err(asm_err)?;
                                    }
                                    let km = k_reg(phys(k.0) as u8)?;
                                    a.kortestw(km, km).map_err(asm_err)?;
                                }
                                Op::WhileCount {
                                    arg: r,
                                    step,
                                    count,
                                } => {
                                    a.add(arg(r), step).map_err(asm_err)?;
                                    a.dec(arg(count)).map_err(asm_err)?;
                                }
                                Op::WhileEntry(l) => {
                                    let steps = at.steps.as_deref_mut().ok_or_else(|| {
                                        WideError::Malformed(
                                            "an entry's loop outside an entry".into(),
                                        )
                                    })?;
                                    // A latch of nothing but its jump back:
                                    // the test jumps back itself.
                                    let back = match f.insts.get(f.blocks[*latch].0) {
                                        Some(MInst::Jump { to }) => Some(*to),
                                        _ => None,
                                    }
                                    .filter(|_| {
                                        at.fold_latches
                                            && matches!(
                                                l,
                                                super::EntryLoop::Chunks { .. }
                                                    | super::EntryLoop::Full { .. }
                                            )
                                            && out
                                                .block_insts_and_edits(f, Block::new(*latch))
                                                .count()
                                                == 1
                                    });
                                    match back {
                                        Some(header) => {
                                            folded.insert(*latch);
                                            steps(a, EntryCode::Back(l, labels[header]))?
                                        }
                                        None => steps(a, EntryCode::End(l, labels[*exit]))?,
                                    }
                                    if let Some(frame) = at.entry.as_deref_mut() {
                                        frame.held.forget();
                                    }
                                    continue;
                                }
                                _ => return Err(WideError::Malformed("a test".into())),
                            }
                            a.jz(labels[*exit]).map_err(asm_err)?;
                        }
                        MInst::Skip { op, skip } => match *op {
                            Op::IfAny { k } => {
                                let km = k_reg(phys(k.0) as u8)?;
                                a.kortestw(km, km).map_err(asm_err)?;
                                a.jz(labels[*skip]).map_err(asm_err)?;
                            }
                            Op::IfEntry(test) => {
                                let steps = at.steps.as_deref_mut().ok_or_else(|| {
                                    WideError::Malformed("an entry's test outside an entry".into())
                                })?;
                                steps(a, EntryCode::Skip(test, labels[*skip]))?;
                            }
                            _ => return Err(WideError::Malformed("a region's test".into())),
                        },
                        MInst::Nop => {}
                        MInst::Ret => {
                            if at.release_frame > 0 {
                                a.add(rsp, at.release_frame as i32).map_err(asm_err)?;
                            }
                        }
                    }
                }
            }
            if let (false, Some(frame)) = (accessed, at.entry.as_deref_mut()) {
                let defs = match ie {
                    InstOrEdit::Inst(i) => defined(f, i),
                    InstOrEdit::Edit(_) => Vec::new(),
                };
                frame.held.after(&a.instructions()[start..], &defs);
            }
        }
    }
    Ok((zmm_set, k_set))
}

/// The (part, base, argument slot) of the loads of sums ([`Op::LoadSum`])
/// of `alloc`, each once, in order: one frame slot each
/// (`access::EntryFrame::sums_at`).
pub(crate) fn sum_slots(alloc: &Allocated) -> Vec<(u32, Base, i32)> {
    let mut out = Vec::new();
    for inst in &alloc.f.insts {
        if let MInst::Op(Op::LoadSum { part, ptr, how, .. } | Op::FmaSum { part, ptr, how, .. }) =
            inst
        {
            let key = (part.0, how.base, *ptr);
            if !out.contains(&key) {
                out.push(key);
            }
        }
    }
    out
}

/// The values that are another plus a constant, lane by lane (32-bit
/// `+` or `-` of a splat or pool constant): value → (the other, the
/// constant), for an access to address from the other's lane 0
/// (`access::emit_access`); then, where the other is itself such a value,
/// the one it is shifted from with the constants summed, and so on (the
/// rows in flight's indices, each the previous row's plus a step:
/// `rows::shifted_row_indices`), the nearest first.
fn shifted_values(alloc: &Allocated) -> HashMap<u32, Vec<(u32, i32)>> {
    let mut splats: HashMap<u32, u32> = HashMap::default();
    for inst in &alloc.f.insts {
        if let MInst::Op(Op::Splat { d, bits }) = inst {
            splats.insert(d.0, *bits);
        }
    }
    let constant = |v: V| -> Option<i32> {
        if v.0 >= POOL_BASE {
            match alloc.pool.get((v.0 - POOL_BASE) as usize) {
                Some(PoolConst::D(bits)) => Some(*bits as i32),
                _ => None,
            }
        } else {
            splats.get(&v.0).map(|b| *b as i32)
        }
    };
    let mut shifts = HashMap::default();
    for inst in &alloc.f.insts {
        let MInst::Op(Op::Bin { op, d, a, b }) = *inst else {
            continue;
        };
        let shift = match (op, constant(a), constant(b)) {
            (Bin::IAdd, None, Some(c)) => Some((a.0, c)),
            (Bin::IAdd, Some(c), None) => Some((b.0, c)),
            (Bin::ISub, None, Some(c)) if c != i32::MIN => Some((a.0, -c)),
            _ => None,
        };
        if let Some((from, c)) = shift {
            let mut chain = vec![(from, c)];
            let further: &[(u32, i32)] = shifts.get(&from).map_or(&[], |v: &Vec<_>| v);
            for &(root, c2) in further {
                let Some(sum) = c.checked_add(c2) else { break };
                chain.push((root, sum));
            }
            shifts.insert(d.0, chain);
        }
    }
    shifts
}

/// The value and constant an access's index `idx` is shifted from
/// ([`shifted_values`]): the nearest whose lane 0 r10 holds, else the
/// nearest.
fn shift_from(
    shifts: &HashMap<u32, Vec<(u32, i32)>>,
    idx: u32,
    frame: &super::access::EntryFrame,
) -> Option<(u32, i32)> {
    let chain = shifts.get(&idx)?;
    chain
        .iter()
        .copied()
        .find(|&(from, _)| frame.held.has_index(from))
        .or_else(|| chain.first().copied())
}

/// The vregs instruction `i` of `f` defines.
fn defined(f: &Func, i: Inst) -> Vec<u32> {
    f.operands[i.index()]
        .iter()
        .filter(|o| o.kind() == OperandKind::Def)
        .map(|o| o.vreg().vreg() as u32)
        .collect()
}

/// What an item of a block is to [`plan_block`].
fn item_of<'f>(f: &'f Func, ie: &InstOrEdit) -> Item<'f> {
    match ie {
        InstOrEdit::Edit(_) => Item::Move,
        InstOrEdit::Inst(i) => match &f.insts[i.index()] {
            MInst::Op(Op::Entry(_)) => Item::Other,
            MInst::Op(op) => Item::Op(op, defined(f, *i)),
            _ => Item::Other,
        },
    }
}

/// Compiles `p` with `regalloc2` allocating its registers.
pub fn compile_regalloc2(p: &Program) -> Result<(WideCode, Regalloc2Stats), WideError> {
    if !super::supported() {
        return Err(WideError::NoAvx512);
    }
    if p.ops().iter().any(super::emit::needs_entry) {
        return Err(WideError::Malformed(
            "a kernel entry's operation in a plain program".into(),
        ));
    }
    let start = Instant::now();
    let alloc = allocate_ra2_pooled(p)?;
    let frame = alloc.frame();
    let mut a = CodeAssembler::new(64).map_err(asm_err)?;
    if frame > 0 {
        a.sub(rsp, frame as i32).map_err(asm_err)?;
    }
    let mut pool = ConstPool::default();
    let (zmm_set, k_set) = emit_allocated_pooled(
        &mut a,
        &alloc,
        &mut EmitAt {
            release_frame: frame,
            cancel: None,
            entry: None,
            steps: None,
            fold_latches: false,
        },
        &mut pool,
    )?;
    let stats = alloc.stats();
    Ok((
        finish(a, start, zmm_set.count_ones(), k_set.count_ones(), pool)?,
        stats,
    ))
}

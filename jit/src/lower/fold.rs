//! Branch folding on the lowered function, before Cranelift compiles it.
//!
//! The lowering emits some conditional branches whose outcome is already
//! known where they stand:
//!
//! - a constant condition: in the full-chunk copy the test "is the mask
//!   full?" of a consecutive access is the constant 1, so its per-lane
//!   fallback is dead;
//! - a condition a dominating branch has already decided: the tail copy
//!   runs only where "the chunk has W work-items" was false, and each
//!   consecutive access there tests the same expression again;
//! - a `band` or `bor` of such conditions: an access through an `int`
//!   index tests "the lanes are consecutive" and "the chunk is full"
//!   together.
//!
//! Cranelift compiles (and, above all, register-allocates) dead blocks
//! like live ones, and does not fold such branches itself. Turning each of
//! them into a jump lets its unreachable-code pass drop the dead side
//! before any other work.
//!
//! After folding, block parameters that carry one value only, and those
//! whose values reach nothing that must stay (a loop-carried value used
//! only to compute its own next value), are removed too.
//!
//! Two conditions are the same when they are the same tree of pure
//! integer operations over the same SSA leaves. That is sound on SSA form:
//! a leaf's definition dominates the deciding branch, so it cannot run
//! again before a block that edge dominates without that edge being taken
//! again.

use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    Block, BlockArg, Function, Inst, InstructionData, Opcode, Type, Value, ValueDef,
};
// Keys are small entity numbers and nodes of them: a fast non-keyed hash.
use rustc_hash::FxHashMap as HashMap;

/// How deep a condition's expression tree is followed before its operands
/// count as opaque leaves.
const KEY_DEPTH: u32 = 8;

/// Whether an opcode computes its result from its operands alone.
fn pure_integer(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Iconst
            | O::Iadd
            | O::Isub
            | O::Imul
            | O::Band
            | O::Bor
            | O::Bxor
            | O::Bnot
            | O::Umin
            | O::Umax
            | O::Smin
            | O::Smax
            | O::Ishl
            | O::Ushr
            | O::Sshr
            | O::Icmp
            | O::Ireduce
            | O::Uextend
            | O::Sextend
            | O::Splat
            | O::VanyTrue
            | O::VallTrue
    )
}

/// A pure operation over numbered operands (see [`Numbering`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Node {
    opcode: Opcode,
    ty: Type,
    cond: Option<IntCC>,
    imm: i64,
    args: [u32; 2],
}

/// Value numbering of conditions: two values get the same number when
/// they are the same tree of pure integer operations over the same SSA
/// leaves. Memoised per value, so numbering every condition of a function
/// visits each instruction once.
#[derive(Default)]
struct Numbering {
    of_value: HashMap<Value, u32>,
    of_node: HashMap<Node, u32>,
    next: u32,
}

impl Numbering {
    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    fn number(&mut self, func: &Function, v: Value, depth: u32) -> u32 {
        let v = func.dfg.resolve_aliases(v);
        if let Some(n) = self.of_value.get(&v) {
            return *n;
        }
        let n = match self.node(func, v, depth) {
            Some(node) => match self.of_node.get(&node) {
                Some(n) => *n,
                None => {
                    let n = self.fresh();
                    self.of_node.insert(node, n);
                    n
                }
            },
            None => self.fresh(),
        };
        self.of_value.insert(v, n);
        n
    }

    /// The operation defining `v`, when it is one of the pure integer
    /// operations followed (otherwise `v` is a leaf).
    fn node(&mut self, func: &Function, v: Value, depth: u32) -> Option<Node> {
        let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
            return None;
        };
        let data = func.dfg.insts[inst];
        if depth == 0 || !pure_integer(data.opcode()) {
            return None;
        }
        let (cond, imm, args) = match data {
            InstructionData::UnaryImm { imm, .. } => (None, imm.bits(), [0, 0]),
            InstructionData::Unary { arg, .. } => (None, 0, [self.number(func, arg, depth - 1), 0]),
            InstructionData::Binary { args: [a, b], .. } => (
                None,
                0,
                [
                    self.number(func, a, depth - 1),
                    self.number(func, b, depth - 1),
                ],
            ),
            InstructionData::IntCompare {
                args: [a, b], cond, ..
            } => (
                Some(cond),
                0,
                [
                    self.number(func, a, depth - 1),
                    self.number(func, b, depth - 1),
                ],
            ),
            _ => return None,
        };
        Some(Node {
            opcode: data.opcode(),
            ty: func.dfg.value_type(v),
            cond,
            imm,
            args,
        })
    }
}

/// The value of a condition when it is a constant (an `iconst`, or
/// `vany_true`/`vall_true` of a splatted constant).
pub(super) fn constant(func: &Function, v: Value) -> Option<bool> {
    let v = func.dfg.resolve_aliases(v);
    let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
        return None;
    };
    match func.dfg.insts[inst] {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(imm.bits() != 0),
        InstructionData::Unary {
            opcode: Opcode::VanyTrue | Opcode::VallTrue,
            arg,
        } => {
            let arg = func.dfg.resolve_aliases(arg);
            let ValueDef::Result(s, 0) = func.dfg.value_def(arg) else {
                return None;
            };
            match func.dfg.insts[s] {
                InstructionData::Unary {
                    opcode: Opcode::Splat,
                    arg,
                } => constant(func, arg),
                _ => None,
            }
        }
        _ => None,
    }
}

/// How deep `band`/`bor` combinations of conditions are followed.
const COMBINE_DEPTH: u32 = 4;

/// What is known about conditions at the end of `block`.
struct Facts<'a> {
    decided: &'a HashMap<Block, (u32, bool)>,
    domtree: &'a DominatorTree,
    block: Block,
}

impl Facts<'_> {
    /// The truth of condition `v` (non-zero or not) at the end of the
    /// block, when it is a constant, decided by a dominating branch, or a
    /// `band`/`bor` of such conditions (`ok & full` of a consecutive access
    /// whose `full` the tail copy's entry decided).
    fn known(
        &self,
        func: &Function,
        numbering: &mut Numbering,
        v: Value,
        depth: u32,
    ) -> Option<bool> {
        if let Some(c) = constant(func, v) {
            return Some(c);
        }
        if !self.decided.is_empty() {
            let k = numbering.number(func, v, KEY_DEPTH);
            let mut at = Some(self.block);
            while let Some(b) = at {
                if let Some((known, value)) = self.decided.get(&b) {
                    if *known == k {
                        return Some(*value);
                    }
                }
                at = self.domtree.idom(b);
            }
        }
        if depth == 0 {
            return None;
        }
        let v = func.dfg.resolve_aliases(v);
        let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
            return None;
        };
        let InstructionData::Binary {
            opcode: op @ (Opcode::Band | Opcode::Bor),
            args: [a, b],
        } = func.dfg.insts[inst]
        else {
            return None;
        };
        let x = self.known(func, numbering, a, depth - 1);
        let y = self.known(func, numbering, b, depth - 1);
        match (op, x, y) {
            (Opcode::Band, Some(false), _) | (Opcode::Band, _, Some(false)) => Some(false),
            // Two non-zero values may have no bit in common: only 0/1
            // conditions combine to a known non-zero `band`.
            (Opcode::Band, Some(true), Some(true)) if boolean(func, a) && boolean(func, b) => {
                Some(true)
            }
            (Opcode::Bor, Some(true), _) | (Opcode::Bor, _, Some(true)) => Some(true),
            (Opcode::Bor, Some(false), Some(false)) => Some(false),
            _ => None,
        }
    }
}

/// Whether `v` is 0 or 1 by construction (a comparison or a vector test).
fn boolean(func: &Function, v: Value) -> bool {
    let v = func.dfg.resolve_aliases(v);
    let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
        return false;
    };
    matches!(
        func.dfg.insts[inst].opcode(),
        Opcode::Icmp | Opcode::VallTrue | Opcode::VanyTrue
    )
}

/// Replaces every conditional branch whose outcome is known (see the module
/// documentation) by a jump; returns how many were replaced.
pub(crate) fn fold_known_branches(func: &mut Function) -> usize {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    // What entering a block tells: a block whose only predecessor ends in
    // `brif c, then, else` (with distinct targets) runs with `c` decided.
    let mut numbering = Numbering::default();
    let mut decided: HashMap<Block, (u32, bool)> = HashMap::default();
    for block in func.layout.blocks() {
        let mut preds = cfg.pred_iter(block);
        let (Some(pred), None) = (preds.next(), preds.next()) else {
            continue;
        };
        let InstructionData::Brif { arg, blocks, .. } = func.dfg.insts[pred.inst] else {
            continue;
        };
        let then_ = blocks[0].block(&func.dfg.value_lists);
        let else_ = blocks[1].block(&func.dfg.value_lists);
        if then_ == else_ {
            continue;
        }
        let n = numbering.number(func, arg, KEY_DEPTH);
        decided.insert(block, (n, block == then_));
    }
    let mut folded = 0;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        if !domtree.is_reachable(block) {
            continue;
        }
        let Some(term) = func.layout.last_inst(block) else {
            continue;
        };
        let InstructionData::Brif { arg, blocks, .. } = func.dfg.insts[term] else {
            continue;
        };
        let facts = Facts {
            decided: &decided,
            domtree: &domtree,
            block,
        };
        if let Some(taken) = facts.known(func, &mut numbering, arg, COMBINE_DEPTH) {
            let destination = blocks[usize::from(!taken)];
            func.dfg.insts[term] = InstructionData::Jump {
                opcode: Opcode::Jump,
                destination,
            };
            folded += 1;
        }
    }
    folded
}

/// The branches that go to each of `blocks`, once each.
fn branches_to(
    cfg: &ControlFlowGraph,
    blocks: impl Iterator<Item = Block>,
) -> HashMap<Block, Vec<Inst>> {
    blocks
        .map(|b| {
            let mut insts: Vec<Inst> = cfg.pred_iter(b).map(|p| p.inst).collect();
            insts.sort_unstable();
            insts.dedup();
            (b, insts)
        })
        .collect()
}

/// What the branches to a block pass as one of its parameters, the
/// parameter itself left out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Incoming {
    Nothing,
    One(Value),
    Several,
}

/// Removes the parameters of `block` that `remove` marks (by index) and
/// the arguments each of `branches` passes them: each argument list and
/// the parameter list rebuilt once, not shifted once per removal (a block
/// of the lowering may carry thousands of parameters).
fn remove_params(func: &mut Function, block: Block, remove: &[bool], branches: &[Inst]) {
    for inst in branches {
        let dfg = &mut func.dfg;
        for call in
            dfg.insts[*inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables)
        {
            if call.block(&dfg.value_lists) != block {
                continue;
            }
            let kept: Vec<BlockArg> = call
                .args(&dfg.value_lists)
                .zip(remove)
                .filter(|(_, r)| !**r)
                .map(|(a, _)| a)
                .collect();
            call.clear(&mut dfg.value_lists);
            call.extend(kept, &mut dfg.value_lists);
        }
    }
    let params = func.dfg.block_params(block).to_vec();
    func.dfg.detach_block_params(block);
    for (param, r) in params.iter().zip(remove) {
        if !*r {
            func.dfg.attach_block_param(block, *param);
        }
    }
}

/// Removes the blocks no edge reaches, then every block parameter that
/// only ever receives one value besides itself (an outer loop's counter
/// threaded through an inner loop and the joins inside it); returns how
/// many parameters were removed.
///
/// The SSA builder leaves such parameters when a variable is looked up
/// through a block not yet sealed, and Cranelift's own pass only removes
/// those whose single value is not itself a block parameter. Each one left
/// is a live range with a copy on every edge for register allocation.
///
/// Each round reads every branch's arguments once per block (all the
/// parameters at a time) and rebuilds each list once: looked up and
/// removed one at a time, the parameters of a random kernel of 126,303
/// instructions took 75 % of its compile.
pub(crate) fn remove_redundant_params(func: &mut Function) -> usize {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let dead: Vec<Block> = func
        .layout
        .blocks()
        .filter(|b| !domtree.is_reachable(*b))
        .collect();
    for block in dead {
        while let Some(inst) = func.layout.first_inst(block) {
            func.layout.remove_inst(inst);
        }
        func.layout.remove_block(block);
    }
    let cfg = ControlFlowGraph::with_function(func);
    let entry = func.layout.entry_block();
    let blocks: Vec<Block> = func.layout.blocks().filter(|b| Some(*b) != entry).collect();
    let preds = branches_to(&cfg, blocks.iter().copied());
    let mut removed = 0;
    loop {
        let mut changed = false;
        for block in &blocks {
            let Some(branches) = preds.get(block) else {
                continue;
            };
            let params = func.dfg.block_params(*block).to_vec();
            if params.is_empty() {
                continue;
            }
            let incoming = incoming_values(func, branches, *block, &params);
            // Decided in the order the one-at-a-time removal took (last
            // first), each value resolved through the aliases decided so
            // far: two parameters passing only each other are not both
            // removed (that would alias each to the other).
            let mut decided: HashMap<Value, Value> = HashMap::default();
            let mut remove = vec![false; params.len()];
            for (ix, param) in params.iter().enumerate().rev() {
                if let Incoming::One(v) = incoming[ix] {
                    let v = resolve_decided(func, &decided, v);
                    if v != *param {
                        decided.insert(*param, v);
                        remove[ix] = true;
                    }
                }
            }
            if decided.is_empty() {
                continue;
            }
            let aliases: Vec<(Value, Value)> = params
                .iter()
                .zip(&remove)
                .filter(|(_, r)| **r)
                .map(|(p, _)| (*p, resolve_decided(func, &decided, *p)))
                .collect();
            remove_params(func, *block, &remove, branches);
            for (param, v) in aliases {
                func.dfg.change_to_alias(param, v);
            }
            removed += decided.len();
            changed = true;
        }
        if !changed {
            return removed;
        }
    }
}

/// `v` through the function's aliases and the removals `decided` so far.
fn resolve_decided(func: &Function, decided: &HashMap<Value, Value>, mut v: Value) -> Value {
    loop {
        v = func.dfg.resolve_aliases(v);
        match decided.get(&v) {
            Some(n) => v = *n,
            None => return v,
        }
    }
}

/// For each parameter of `block`, what the branches to it pass other than
/// the parameter itself.
fn incoming_values(
    func: &Function,
    branches: &[Inst],
    block: Block,
    params: &[Value],
) -> Vec<Incoming> {
    let mut incoming = vec![Incoming::Nothing; params.len()];
    for inst in branches {
        for call in func.dfg.insts[*inst]
            .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
        {
            if call.block(&func.dfg.value_lists) != block {
                continue;
            }
            for ((arg, param), seen) in call
                .args(&func.dfg.value_lists)
                .zip(params)
                .zip(incoming.iter_mut())
            {
                let BlockArg::Value(v) = arg else {
                    *seen = Incoming::Several;
                    continue;
                };
                let v = func.dfg.resolve_aliases(v);
                if v == *param {
                    continue;
                }
                *seen = match *seen {
                    Incoming::Nothing => Incoming::One(v),
                    Incoming::One(o) if o == v => Incoming::One(o),
                    _ => Incoming::Several,
                };
            }
        }
    }
    incoming
}

/// Whether `inst` must stay whatever becomes of its results: it branches,
/// calls, stores, loads or may trap (a load is kept even when its value is
/// unused: it may be the access that faults in checked code).
fn is_root(func: &Function, inst: Inst) -> bool {
    let op = func.dfg.insts[inst].opcode();
    op.is_branch()
        || op.is_terminator()
        || op.is_call()
        || op.can_store()
        || op.can_load()
        || op.can_trap()
        || op.other_side_effects()
}

/// Removes the block parameters whose values reach nothing that matters:
/// a loop-carried value only ever used to compute its own next value (a
/// chunk loop's global id in a region that never reads it) and what only
/// such values use. Each one is a register and an add per iteration that
/// Cranelift keeps, as it does not look through block parameters for dead
/// cycles. Returns how many parameters were removed.
pub(crate) fn remove_dead_params(func: &mut Function) -> usize {
    let cfg = ControlFlowGraph::with_function(func);
    let entry = func.layout.entry_block();
    let preds = branches_to(&cfg, func.layout.blocks());
    // Indexed by value number.
    let mut live = vec![false; func.dfg.num_values()];
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut Vec<bool>, work: &mut Vec<Value>| {
        let seen = &mut live[v.as_u32() as usize];
        if !*seen {
            *seen = true;
            work.push(v);
        }
    };
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if is_root(func, inst) {
                for &a in func.dfg.inst_args(inst) {
                    mark(func.dfg.resolve_aliases(a), &mut live, &mut work);
                }
            }
        }
    }
    let mut incoming_args: HashMap<Block, Vec<Vec<BlockArg>>> = HashMap::default();
    while let Some(v) = work.pop() {
        match func.dfg.value_def(v) {
            ValueDef::Result(inst, _) => {
                for &a in func.dfg.inst_args(inst) {
                    mark(func.dfg.resolve_aliases(a), &mut live, &mut work);
                }
            }
            ValueDef::Param(block, ix) => {
                // Each edge's arguments read once per block, not once per
                // parameter (`args().nth` decodes every argument before).
                let edges = incoming_args.entry(block).or_insert_with(|| {
                    let mut edges = Vec::new();
                    for inst in preds.get(&block).map(Vec::as_slice).unwrap_or(&[]) {
                        for call in func.dfg.insts[*inst]
                            .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
                        {
                            if call.block(&func.dfg.value_lists) == block {
                                edges.push(call.args(&func.dfg.value_lists).collect::<Vec<_>>());
                            }
                        }
                    }
                    edges
                });
                for args in edges.iter() {
                    if let Some(BlockArg::Value(a)) = args.get(ix) {
                        mark(func.dfg.resolve_aliases(*a), &mut live, &mut work);
                    }
                }
            }
            _ => {}
        }
    }
    // Dead pure instructions go first: they may use the dead parameters.
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for &block in &blocks {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            let results = func.dfg.inst_results(inst);
            if !is_root(func, inst) && results.iter().all(|r| !live[r.as_u32() as usize]) {
                func.layout.remove_inst(inst);
            }
        }
    }
    let mut removed = 0;
    for &block in &blocks {
        if Some(block) == entry {
            continue;
        }
        let remove: Vec<bool> = func
            .dfg
            .block_params(block)
            .iter()
            .map(|p| !live[p.as_u32() as usize])
            .collect();
        let dead = remove.iter().filter(|r| **r).count();
        if dead > 0 {
            let branches = preds.get(&block).map(Vec::as_slice).unwrap_or(&[]);
            remove_params(func, block, &remove, branches);
            removed += dead;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature};
    use cranelift_codegen::isa::CallConv;
    use cranelift_codegen::settings;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// An empty `fn(i64, i64)`.
    fn two_pointer_function() -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        Function::with_name_signature(Default::default(), sig)
    }

    /// Seals and finalizes a test function for a 64-bit System V target.
    fn finish(mut b: FunctionBuilder) {
        b.seal_all_blocks();
        b.finalize(cranelift_codegen::isa::TargetFrontendConfig {
            default_call_conv: CallConv::SystemV,
            pointer_width: target_lexicon::PointerWidth::U64,
            page_size_align_log2: 12,
        });
    }

    /// `fn(p, n)`: a loop over `i < n` storing `i` at `p`, carrying `j`
    /// (stepped by 16 and summed into `k`, neither stored) and `q`
    /// (stepped by 4, an address loaded from when `load_q`).
    fn looped(load_q: bool) -> Function {
        let mut func = two_pointer_function();
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, head, body, exit) = (
            b.create_block(),
            b.create_block(),
            b.create_block(),
            b.create_block(),
        );
        b.append_block_params_for_function_params(entry);
        for _ in 0..4 {
            b.append_block_param(head, types::I64);
        }
        b.switch_to_block(entry);
        let (p, n) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        let zero = b.ins().iconst(types::I64, 0);
        b.ins()
            .jump(head, &[zero.into(), zero.into(), zero.into(), p.into()]);
        b.switch_to_block(head);
        let [i, j, k, q] = [0, 1, 2, 3].map(|x| b.block_params(head)[x]);
        let done = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, n);
        b.ins().brif(done, exit, &[], body, &[]);
        b.switch_to_block(body);
        b.ins().store(MemFlagsData::trusted(), i, p, 0);
        if load_q {
            // Unused, but a load stays: it may be the access that faults.
            b.ins().load(types::I64, MemFlagsData::trusted(), q, 0);
        }
        let i1 = b.ins().iadd_imm_s(i, 1);
        let j1 = b.ins().iadd_imm_s(j, 16);
        let k1 = b.ins().iadd(j1, k);
        let q1 = b.ins().iadd_imm_s(q, 4);
        b.ins()
            .jump(head, &[i1.into(), j1.into(), k1.into(), q1.into()]);
        b.switch_to_block(exit);
        b.ins().return_(&[]);
        finish(b);
        func
    }

    fn verified(func: &Function) {
        let flags = settings::Flags::new(settings::builder());
        cranelift_codegen::verify_function(func, &flags).expect("valid function");
    }

    /// A loop head with `n` parameters: the counter `i` (stepped), and
    /// `n - 1` values the loop only passes around: even ones the entry's
    /// `p` and themselves on the back edge, odd ones the previous one on
    /// the back edge (so each is `p` only once the one before it is seen
    /// to be). Every use of them is stored, so none is dead.
    fn threaded(n: usize) -> Function {
        let mut func = two_pointer_function();
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, head, body, exit) = (
            b.create_block(),
            b.create_block(),
            b.create_block(),
            b.create_block(),
        );
        b.append_block_params_for_function_params(entry);
        for _ in 0..n {
            b.append_block_param(head, types::I64);
        }
        b.switch_to_block(entry);
        let (p, m) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        let zero = b.ins().iconst(types::I64, 0);
        let mut first: Vec<BlockArg> = vec![zero.into()];
        first.extend((1..n).map(|_| BlockArg::from(p)));
        b.ins().jump(head, &first);
        b.switch_to_block(head);
        let params = b.block_params(head).to_vec();
        let done = b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, params[0], m);
        b.ins().brif(done, exit, &[], body, &[]);
        b.switch_to_block(body);
        for (x, v) in params.iter().enumerate().skip(1) {
            b.ins()
                .store(MemFlagsData::trusted(), *v, p, (8 * x) as i32);
        }
        let i1 = b.ins().iadd_imm_s(params[0], 1);
        let mut back: Vec<BlockArg> = vec![i1.into()];
        back.extend((1..n).map(|x| {
            BlockArg::from(if x % 2 == 0 {
                params[x]
            } else {
                params[x - 1].max(params[1])
            })
        }));
        b.ins().jump(head, &back);
        b.switch_to_block(exit);
        b.ins().return_(&[]);
        finish(b);
        func
    }

    #[test]
    fn parameters_passing_one_value_are_removed_in_bulk() {
        for n in [2, 3, 9, 2000] {
            let mut func = threaded(n);
            assert_eq!(remove_redundant_params(&mut func), n - 1, "n = {n}");
            verified(&func);
            let head = func.layout.blocks().nth(1).expect("loop head");
            assert_eq!(
                func.dfg.block_params(head).len(),
                1,
                "only the counter is left"
            );
            // Every store now stores the entry's `p`.
            let entry = func.layout.entry_block().expect("entry");
            let p = func.dfg.block_params(entry)[0];
            let body = func.layout.blocks().nth(2).expect("body");
            let stored: Vec<Value> = func
                .layout
                .block_insts(body)
                .filter(|i| func.dfg.insts[*i].opcode() == Opcode::Store)
                .map(|i| func.dfg.resolve_aliases(func.dfg.inst_args(i)[0]))
                .collect();
            assert_eq!(stored.len(), n - 1);
            assert!(stored.iter().all(|v| *v == p), "n = {n}");
        }
    }

    #[test]
    fn dead_loop_carried_values_are_removed() {
        let mut func = looped(false);
        assert_eq!(remove_dead_params(&mut func), 3, "{}", func.display());
        verified(&func);
        let head = func.layout.blocks().nth(1).expect("loop head");
        assert_eq!(
            func.dfg.block_params(head).len(),
            1,
            "only the stored counter is left"
        );
    }

    #[test]
    fn an_address_loaded_from_is_kept() {
        let mut func = looped(true);
        assert_eq!(remove_dead_params(&mut func), 2, "{}", func.display());
        verified(&func);
        let head = func.layout.blocks().nth(1).expect("loop head");
        assert_eq!(
            func.dfg.block_params(head).len(),
            2,
            "the counter and the address"
        );
    }
}

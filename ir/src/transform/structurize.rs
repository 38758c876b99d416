//! Structurization: a reducible control-flow graph ([`crate::cfg::Cfg`])
//! becomes the IR's structured statements.
//!
//! The walk follows the dominator-tree method of Ramsey's "Beyond Relooper"
//! (ICFP 2022). Blocks are numbered in reverse postorder; an edge to a block
//! that dominates its source is a back edge and makes that block a loop
//! header, and any other edge that goes backwards in that order means a loop
//! with two entries: the graph is irreducible and the block is reported.
//! Every other block is either *nested* (one forward edge reaches it, from a
//! block in the same loops: it is emitted in place, inside the arm of its
//! predecessor's `if`) or a *follower*: a merge point (two or more forward
//! edges) or a loop exit. A follower is emitted right after the code of its
//! immediate dominator, hoisted out of every loop its dominator is in but it
//! is not; a loop header's code is one `Loop` whose body holds the header
//! and the followers inside the loop, and its loop-exit followers come after
//! the `Loop`. So an `if` of the graph stays an `If`, a loop one `Loop`,
//! and a multiway branch a `Switch`.
//!
//! Beyond Relooper nests each follower's code behind a labelled block and
//! reaches it with a labelled `br`; the IR has only `break` and `continue`
//! of the innermost construct, so a jump is realised by where it lands:
//! - to the header of the innermost loop, through any `switch`: `continue`;
//! - to the follower whose code comes next after the construct the jump is
//!   in: nothing (control falls through to it); out of the innermost loop or
//!   `switch` into code that comes right after it: `break`;
//! - farther (past other followers' code, out of two loops): the jump sets
//!   a `bool` flag variable of its target (`goto.NAME`, false at entry and
//!   again once the target is reached), leaves the innermost loop or
//!   `switch` with `break` if it is in one, and every follower it passes
//!   over is guarded by `if !(flags of the jumps passing it)`; after a loop
//!   or `switch` that such a jump left, `if flag { break }` (or
//!   `{ continue }`) carries it on outwards.
//!
//! One rotation comes first (`rotate_into_barrier_loop`): a loop header
//! that only jumps into an inner loop holding a barrier is copied to the
//! ends of its back edges, so that the barrier heads one loop. Besides
//! that copy no block is duplicated and no dispatch loop over a state variable is
//! made: the vectoriser masks each varying `if` and loop like those a
//! structured front end writes. A value used in another block than the
//! one that evaluates it goes through a variable written after its
//! evaluation and read at the start of the using block, unless it is
//! evaluated in the entry block (which always comes first, outside every
//! construct). Unreachable blocks are dropped with their instructions.

use crate::cfg::{BlockId, Cfg, Terminator};
use crate::module::*;
use crate::text::rename::rename_block;
use crate::transform::compact::{drop_unevaluated, stmt_operands, walk_stmts};
use crate::types::{Scalar, Type};
use std::collections::HashMap;

/// Why a graph could not be structured: the block concerned, with its name
/// and source position, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("block '{name}': {message}")]
pub struct StructurizeError {
    pub block: BlockId,
    pub name: String,
    pub loc: Loc,
    pub message: String,
}

/// Replaces the body of `f` by the structured form of `cfg`, whose blocks
/// use `f`'s instructions, variables and slots. Adds the flag and value
/// variables it needs to `f.vars`.
pub fn structurize(f: &mut Function, cfg: Cfg) -> Result<(), StructurizeError> {
    let mut cfg = cfg;
    while rotate_into_barrier_loop(f, &mut cfg)? {}
    let g = Graph::new(&cfg)?;
    check_contents(&cfg, &g)?;
    let places = Places::new(&g);
    pass_values_through_vars(f, &mut cfg, &g, &places)?;
    let unreachable_code = cfg
        .blocks
        .iter()
        .enumerate()
        .any(|(i, b)| g.rpo_num[i] == UNREACHED && !b.stmts.0.is_empty());
    let mut e = Emitter {
        f,
        g: &g,
        places: &places,
        names: cfg.blocks.iter().map(|b| (b.name.clone(), b.loc)).collect(),
        terms: cfg.blocks.iter().map(|b| b.term.clone()).collect(),
        contents: cfg.blocks.into_iter().map(|b| Some(b.stmts)).collect(),
        stack: Vec::new(),
        flags: HashMap::new(),
        bypass: HashMap::new(),
        consts: [None, None],
    };
    let mut body = Vec::new();
    e.do_tree(BlockId::ENTRY, &mut body)?;
    let mut flags: Vec<VarId> = e.flags.values().copied().collect();
    flags.sort();
    let mut prologue = Vec::new();
    if !flags.is_empty() {
        let no = e.konst(false);
        prologue.extend(e.consts.into_iter().flatten().map(Stmt::Eval));
        prologue.extend(flags.into_iter().map(|v| Stmt::WriteVar(v, no)));
    }
    let f = e.f;
    prologue.extend(body);
    f.body = Block(prologue);
    if unreachable_code {
        drop_unevaluated(f);
    }
    Ok(())
}

/// Merges a loop into the loop it only leads into, when that inner loop
/// holds a barrier: one rotation, then `true`, or `false` when there is
/// nothing to rotate.
///
/// Compilers rotate loops: LLVM turns
/// `for (s = 1; s < n; s *= 2) { if (c) work; barrier(); }` into an outer
/// loop whose header `H` (the phis, the code before the barrier) only
/// jumps to the barrier block `S`, itself the header of an inner loop that
/// the work-items leave for the `work` path and re-enter through `H`.
/// Every work-item reaches the barrier once per iteration of the source
/// loop, but in the structured form some reach it through the inner
/// loop's back edge while the others have left the inner loop; the
/// vectoriser masks loops, so the barrier would see the work-items
/// disagree. Duplicating `H` at the ends of the outer loop's back edges
/// (each jumps to a copy of `H`, which jumps to `S`) leaves one loop headed
/// by `S`: the barrier at its top, reached by every work-item on every
/// iteration, the outer loop's body an `if` inside it.
///
/// Done only when `H` ends in a jump to `S`, holds no barrier itself (a
/// copy would be a second barrier) and its values are used only in `H`
/// (a copy's values could not reach the other blocks): what front ends
/// make of the rotated loop, whose phis are variables.
fn rotate_into_barrier_loop(f: &mut Function, cfg: &mut Cfg) -> Result<bool, StructurizeError> {
    let g = Graph::new(cfg)?;
    let mut headers: Vec<BlockId> = g.loops.keys().copied().collect();
    headers.sort_by_key(|h| g.rpo_num[h.index()]);
    let has_barrier = |b: &Block| {
        let mut found = false;
        walk_stmts(b, &mut |s| found |= matches!(s, Stmt::Barrier(..)));
        found
    };
    for h in headers {
        let Terminator::Jump(inner) = cfg.blocks[h.index()].term else {
            continue;
        };
        if inner == h || !g.is_header(inner) || !g.in_loop(h, inner) {
            continue;
        }
        let inner_barrier = g
            .rpo
            .iter()
            .any(|&b| g.in_loop(inner, b) && has_barrier(&cfg.blocks[b.index()].stmts));
        if !inner_barrier || has_barrier(&cfg.blocks[h.index()].stmts) {
            continue;
        }
        if values_escape(f, cfg, &g, h) {
            continue;
        }
        let copy = copy_block(f, cfg, h);
        for &u in &g.rpo {
            if g.in_loop(h, u) && g.succs[u.index()].contains(&h) {
                retarget(&mut cfg.blocks[u.index()].term, h, copy);
            }
        }
        return Ok(true);
    }
    Ok(false)
}

/// Whether a value evaluated in block `h` is used in another block.
fn values_escape(f: &Function, cfg: &Cfg, g: &Graph, h: BlockId) -> bool {
    let mut own = vec![false; f.insts.len()];
    walk_stmts(&cfg.blocks[h.index()].stmts, &mut |s| {
        if let Stmt::Eval(v) = s {
            if let Some(x) = own.get_mut(v.index()) {
                *x = true;
            }
        }
    });
    let mut escapes = false;
    for &b in &g.rpo {
        if b == h {
            continue;
        }
        let block = &cfg.blocks[b.index()];
        let mut used = Vec::new();
        walk_stmts(&block.stmts, &mut |s| {
            used.extend(stmt_operands(s));
            if let Stmt::Eval(v) = s {
                if let Some(d) = f.insts.get(v.index()) {
                    used.extend(d.inst.operands());
                }
            }
        });
        used.extend(block.term.operand());
        escapes |= used
            .iter()
            .any(|v| own.get(v.index()).copied().unwrap_or(false));
    }
    escapes
}

/// A copy of block `h` with values of its own (the same instructions,
/// evaluated again), appended to the graph.
fn copy_block(f: &mut Function, cfg: &mut Cfg, h: BlockId) -> BlockId {
    let original = &cfg.blocks[h.index()];
    let mut stmts = original.stmts.clone();
    let (name, loc, term) = (
        format!("{}.rotated", original.name),
        original.loc,
        original.term.clone(),
    );
    let mut evaluated = Vec::new();
    walk_stmts(&stmts, &mut |s| {
        if let Stmt::Eval(v) = s {
            evaluated.push(*v);
        }
    });
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    for v in evaluated {
        let mut data = f.insts[v.index()].clone();
        data.inst.operands_mut().for_each(|x| {
            if let Some(&n) = map.get(x) {
                *x = n;
            }
        });
        let n = ValueId(f.insts.len() as u32);
        f.insts.push(data);
        map.insert(v, n);
    }
    rename_block(&mut stmts, &|x: &mut ValueId| {
        if let Some(&n) = map.get(x) {
            *x = n;
        }
    });
    let copy = cfg.add_block(name, loc);
    let block = cfg.block_mut(copy);
    block.stmts = stmts;
    block.term = term;
    copy
}

/// Makes every edge of `term` to `from` go to `to`.
fn retarget(term: &mut Terminator, from: BlockId, to: BlockId) {
    let swap = |b: &mut BlockId| {
        if *b == from {
            *b = to;
        }
    };
    match term {
        Terminator::Jump(b) => swap(b),
        Terminator::Branch { then_, else_, .. } => {
            swap(then_);
            swap(else_);
        }
        Terminator::Switch { cases, default, .. } => {
            cases.iter_mut().for_each(|(_, b)| swap(b));
            swap(default);
        }
        _ => {}
    }
}

/// Reverse-postorder number of a block control never reaches.
const UNREACHED: usize = usize::MAX;

/// The graph's order, dominators and loops.
struct Graph {
    /// Successors of each block, once per edge.
    succs: Vec<Vec<BlockId>>,
    /// Reachable blocks in reverse postorder (the entry first).
    rpo: Vec<BlockId>,
    /// Position of each block in `rpo`, or [`UNREACHED`].
    rpo_num: Vec<usize>,
    /// Immediate dominators (the entry's is itself).
    idom: Vec<BlockId>,
    /// For each loop header, the blocks of its loop (itself included).
    loops: HashMap<BlockId, Vec<bool>>,
    /// The header of the innermost loop each block is in.
    inner_loop: Vec<Option<BlockId>>,
    /// For each header, the header of the innermost loop around its loop.
    parent_loop: HashMap<BlockId, Option<BlockId>>,
}

impl Graph {
    fn new(cfg: &Cfg) -> Result<Graph, StructurizeError> {
        let n = cfg.blocks.len();
        if n == 0 {
            return Err(StructurizeError {
                block: BlockId::ENTRY,
                name: String::new(),
                loc: Loc::NONE,
                message: "the graph has no blocks".into(),
            });
        }
        let succs: Vec<Vec<BlockId>> = cfg.blocks.iter().map(|b| b.term.successors()).collect();
        for (i, ss) in succs.iter().enumerate() {
            if let Some(s) = ss.iter().find(|s| s.index() >= n) {
                return Err(error(
                    cfg,
                    BlockId(i as u32),
                    format!("jumps to block {} of {n}", s.0),
                ));
            }
        }
        // Depth-first postorder from the entry.
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack = vec![(BlockId::ENTRY, 0usize)];
        visited[0] = true;
        while let Some((b, i)) = stack.last_mut() {
            let b = *b;
            if let Some(&s) = succs[b.index()].get(*i) {
                *i += 1;
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        let rpo: Vec<BlockId> = post.into_iter().rev().collect();
        let mut rpo_num = vec![UNREACHED; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_num[b.index()] = i;
        }
        let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for &b in &rpo {
            for &s in &succs[b.index()] {
                preds[s.index()].push(b);
            }
        }
        // Cooper, Harvey and Kennedy's iteration over reverse postorder.
        let mut idom: Vec<Option<BlockId>> = vec![None; n];
        idom[0] = Some(BlockId::ENTRY);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &rpo[1..] {
                let mut new: Option<BlockId> = None;
                for &p in &preds[b.index()] {
                    if idom[p.index()].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(mut x) => {
                            let mut y = p;
                            while x != y {
                                while rpo_num[x.index()] > rpo_num[y.index()] {
                                    x = idom[x.index()].expect("processed");
                                }
                                while rpo_num[y.index()] > rpo_num[x.index()] {
                                    y = idom[y.index()].expect("processed");
                                }
                            }
                            x
                        }
                    });
                }
                if new.is_some() && idom[b.index()] != new {
                    idom[b.index()] = new;
                    changed = true;
                }
            }
        }
        let idom: Vec<BlockId> = idom
            .into_iter()
            .map(|d| d.unwrap_or(BlockId::ENTRY))
            .collect();
        let mut g = Graph {
            succs,
            rpo,
            rpo_num,
            idom,
            loops: HashMap::new(),
            inner_loop: vec![None; n],
            parent_loop: HashMap::new(),
        };
        // Back edges, and the check that no other edge goes backwards.
        let mut latches: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
        for &u in &g.rpo {
            for &s in &g.succs[u.index()] {
                if g.rpo_num[s.index()] <= g.rpo_num[u.index()] {
                    if !g.dominates(s, u) {
                        return Err(error(
                            cfg,
                            s,
                            "irreducible control flow: this block is in a loop that can be \
                             entered at another block too (vecl needs loops with a single entry)"
                                .to_string(),
                        ));
                    }
                    latches.entry(s).or_default().push(u);
                }
            }
        }
        // Natural loops: the header and what reaches a latch without it.
        let mut headers: Vec<BlockId> = latches.keys().copied().collect();
        headers.sort_by_key(|h| g.rpo_num[h.index()]);
        for &h in &headers {
            let mut body = vec![false; n];
            body[h.index()] = true;
            let mut work = latches[&h].clone();
            while let Some(b) = work.pop() {
                if !body[b.index()] {
                    body[b.index()] = true;
                    work.extend(preds[b.index()].iter().copied());
                }
            }
            g.loops.insert(h, body);
        }
        // Headers in increasing order: a later header containing a block
        // is nested inside an earlier one that does.
        for &h in &headers {
            let body = &g.loops[&h];
            for (i, &inside) in body.iter().enumerate() {
                if inside {
                    if i != h.index() {
                        g.inner_loop[i] = Some(h);
                    } else {
                        g.parent_loop.insert(h, g.inner_loop[i]);
                        g.inner_loop[i] = Some(h);
                    }
                }
            }
        }
        Ok(g)
    }

    fn reachable(&self, b: BlockId) -> bool {
        self.rpo_num[b.index()] != UNREACHED
    }

    fn dominates(&self, a: BlockId, mut b: BlockId) -> bool {
        loop {
            if a == b {
                return true;
            }
            if b == BlockId::ENTRY {
                return false;
            }
            b = self.idom[b.index()];
        }
    }

    fn is_header(&self, b: BlockId) -> bool {
        self.loops.contains_key(&b)
    }

    fn in_loop(&self, header: BlockId, b: BlockId) -> bool {
        self.loops.get(&header).is_some_and(|body| body[b.index()])
    }

    /// Whether `u → s` goes backwards (to a header, as checked).
    fn is_back_edge(&self, u: BlockId, s: BlockId) -> bool {
        self.rpo_num[s.index()] <= self.rpo_num[u.index()]
    }
}

fn error(cfg: &Cfg, b: BlockId, message: String) -> StructurizeError {
    let (name, loc) = cfg
        .blocks
        .get(b.index())
        .map(|x| (x.name.clone(), x.loc))
        .unwrap_or_default();
    StructurizeError {
        block: b,
        name,
        loc,
        message,
    }
}

/// Control leaves a block only by its terminator: no `return` in its
/// statements, `break` and `continue` only inside constructs of their own.
fn check_contents(cfg: &Cfg, g: &Graph) -> Result<(), StructurizeError> {
    fn bad(stmts: &[Stmt], in_loop: bool, in_switch: bool) -> Option<&'static str> {
        stmts.iter().find_map(|s| match s {
            Stmt::Return(_) => Some("'return' among the statements (use a return terminator)"),
            Stmt::Break if !in_loop && !in_switch => {
                Some("'break' outside a loop or switch of the block")
            }
            Stmt::Continue if !in_loop => Some("'continue' outside a loop of the block"),
            Stmt::If { then_, else_, .. } => {
                bad(&then_.0, in_loop, in_switch).or_else(|| bad(&else_.0, in_loop, in_switch))
            }
            Stmt::Loop { body, continuing } => {
                bad(&body.0, true, false).or_else(|| bad(&continuing.0, true, false))
            }
            Stmt::Switch { cases, .. } => cases.iter().find_map(|c| bad(&c.body.0, in_loop, true)),
            _ => None,
        })
    }
    for (i, b) in cfg.blocks.iter().enumerate() {
        if !g.reachable(BlockId(i as u32)) {
            continue;
        }
        if let Some(m) = bad(&b.stmts.0, false, false) {
            return Err(error(cfg, BlockId(i as u32), m.to_string()));
        }
    }
    Ok(())
}

/// Makes the uses of a value in other blocks than its own that the
/// structured form would not let see it read it from a variable instead.
fn pass_values_through_vars(
    f: &mut Function,
    cfg: &mut Cfg,
    g: &Graph,
    places: &Places,
) -> Result<(), StructurizeError> {
    // Where each value is evaluated, and whether at its block's top level.
    let mut home: Vec<Option<(BlockId, bool)>> = vec![None; f.insts.len()];
    for (i, b) in cfg.blocks.iter().enumerate() {
        for s in &b.stmts.0 {
            if let Stmt::Eval(v) = s {
                home[v.index()] = Some((BlockId(i as u32), true));
            }
        }
        walk_stmts(&b.stmts, &mut |s| {
            if let Stmt::Eval(v) = s {
                home[v.index()].get_or_insert((BlockId(i as u32), false));
            }
        });
    }
    // Values to pass, and the blocks that use each.
    let mut crossing: Vec<(ValueId, Vec<BlockId>)> = Vec::new();
    for &b in &g.rpo {
        let block = &cfg.blocks[b.index()];
        let mut used = Vec::new();
        walk_stmts(&block.stmts, &mut |s| {
            used.extend(stmt_operands(s));
            if let Stmt::Eval(v) = s {
                if let Some(d) = f.insts.get(v.index()) {
                    used.extend(d.inst.operands());
                }
            }
        });
        used.extend(block.term.operand());
        for v in used {
            let Some(&Some((def, top))) = home.get(v.index()) else {
                return Err(error(
                    cfg,
                    b,
                    format!("uses %{} which no block evaluates", v.0),
                ));
            };
            if def == b || (top && places.sees(def, b)) {
                continue;
            }
            if !top || !g.reachable(def) || !g.dominates(def, b) {
                return Err(error(
                    cfg,
                    b,
                    format!(
                        "uses %{} of block '{}', which does not reach it on every path",
                        v.0,
                        cfg.blocks[def.index()].name
                    ),
                ));
            }
            match crossing.iter_mut().find(|(x, _)| *x == v) {
                Some((_, users)) if users.contains(&b) => {}
                Some((_, users)) => users.push(b),
                None => crossing.push((v, vec![b])),
            }
        }
    }
    for (v, users) in crossing {
        let ty = f.insts[v.index()].ty.clone();
        f.vars.push(Var {
            name: format!("v{}", v.0),
            ty: ty.clone(),
        });
        let var = VarId(f.vars.len() as u32 - 1);
        let Some(Some((def, _))) = home.get(v.index()).copied() else {
            continue;
        };
        let stmts = &mut cfg.blocks[def.index()].stmts.0;
        if let Some(at) = stmts.iter().position(|s| *s == Stmt::Eval(v)) {
            stmts.insert(at + 1, Stmt::WriteVar(var, v));
        }
        for b in users {
            let copy = ValueId(f.insts.len() as u32);
            f.insts.push(InstData {
                inst: Inst::ReadVar(var),
                ty: ty.clone(),
                loc: Loc::NONE,
            });
            let block = &mut cfg.blocks[b.index()];
            let swap = |x: &mut ValueId| {
                if *x == v {
                    *x = copy;
                }
            };
            let mut evaluated = Vec::new();
            walk_stmts(&block.stmts, &mut |s| {
                if let Stmt::Eval(x) = s {
                    evaluated.push(*x);
                }
            });
            for x in evaluated {
                f.insts[x.index()].inst.operands_mut().for_each(&swap);
            }
            rename_block(&mut block.stmts, &swap);
            if let Some(x) = block.term.operand_mut() {
                swap(x);
            }
            block.stmts.0.insert(0, Stmt::Eval(copy));
        }
    }
    Ok(())
}

/// Where each block's code goes.
struct Places {
    /// Blocks emitted in place, inside their single predecessor's branch.
    nested: Vec<bool>,
    /// Followers emitted after a block's code (inside the loop it heads).
    inside: Vec<Vec<BlockId>>,
    /// Followers emitted after a header's `Loop`.
    after_loop: Vec<Vec<BlockId>>,
    /// The block each block's code is emitted under, and whether that is
    /// in the same statement list as the parent's statements (false for
    /// the followers after a loop, outside the `Loop` its header is in).
    parent: Vec<Option<(BlockId, bool)>>,
}

impl Places {
    fn new(g: &Graph) -> Places {
        let n = g.succs.len();
        let mut forward_in = vec![0u32; n];
        let mut forward_pred = vec![BlockId::ENTRY; n];
        for &u in &g.rpo {
            for &s in &g.succs[u.index()] {
                if !g.is_back_edge(u, s) {
                    forward_in[s.index()] += 1;
                    forward_pred[s.index()] = u;
                }
            }
        }
        let mut p = Places {
            nested: vec![false; n],
            inside: vec![Vec::new(); n],
            after_loop: vec![Vec::new(); n],
            parent: vec![None; n],
        };
        // Whether every loop around `a` is around `b` too; when not, the
        // header of the outermost loop around `a` and not `b`.
        let leaves = |a: BlockId, b: BlockId| {
            let mut outermost = None;
            let mut l = g.inner_loop[a.index()];
            while let Some(h) = l {
                if g.in_loop(h, b) {
                    break;
                }
                outermost = Some(h);
                l = g.parent_loop.get(&h).copied().flatten();
            }
            outermost
        };
        for &b in &g.rpo[1..] {
            let pred = forward_pred[b.index()];
            if forward_in[b.index()] == 1 && leaves(pred, b).is_none() {
                p.nested[b.index()] = true;
                p.parent[b.index()] = Some((pred, true));
                continue;
            }
            let dom = g.idom[b.index()];
            match leaves(dom, b) {
                Some(h) => {
                    p.after_loop[h.index()].push(b);
                    p.parent[b.index()] = Some((h, false));
                }
                None => {
                    p.inside[dom.index()].push(b);
                    p.parent[b.index()] = Some((dom, true));
                }
            }
        }
        p
    }

    /// Whether the code of `b` comes inside the statement list of `a`'s
    /// statements, after them: then `b` sees `a`'s top-level values.
    fn sees(&self, a: BlockId, b: BlockId) -> bool {
        let mut cur = b;
        while let Some((p, same_list)) = self.parent[cur.index()] {
            if p == a {
                return same_list;
            }
            cur = p;
        }
        false
    }
}

/// A construct the code being emitted is inside, innermost last.
enum Ctx {
    /// Code after which the follower's code comes.
    Follows(BlockId),
    /// The `Loop` of a header, with the flagged jumps that `break` out of it.
    Loop(BlockId, Vec<BlockId>),
    /// A `Switch`, with the flagged jumps that `break` out of it.
    Switch(Vec<BlockId>),
}

struct Emitter<'a> {
    f: &'a mut Function,
    g: &'a Graph,
    places: &'a Places,
    names: Vec<(String, Loc)>,
    terms: Vec<Terminator>,
    contents: Vec<Option<Block>>,
    stack: Vec<Ctx>,
    /// The flag variable of each block some jump needs one for.
    flags: HashMap<BlockId, VarId>,
    /// For a follower: the jump targets whose jumps pass over its code.
    bypass: HashMap<BlockId, Vec<BlockId>>,
    /// `false` and `true`, evaluated first in the body when used.
    consts: [Option<ValueId>; 2],
}

impl Emitter<'_> {
    fn internal(&self, b: BlockId, what: &str) -> StructurizeError {
        let (name, loc) = self.names[b.index()].clone();
        StructurizeError {
            block: b,
            name,
            loc,
            message: format!("internal error of the structurizer: {what}"),
        }
    }

    fn push(&mut self, out: &mut Vec<Stmt>, inst: Inst, ty: Type) -> ValueId {
        let v = ValueId(self.f.insts.len() as u32);
        self.f.insts.push(InstData {
            inst,
            ty,
            loc: Loc::NONE,
        });
        out.push(Stmt::Eval(v));
        v
    }

    fn konst(&mut self, value: bool) -> ValueId {
        let i = usize::from(value);
        if let Some(v) = self.consts[i] {
            return v;
        }
        let v = ValueId(self.f.insts.len() as u32);
        self.f.insts.push(InstData {
            inst: Inst::Const(u64::from(value)),
            ty: Type::Scalar(Scalar::Bool),
            loc: Loc::NONE,
        });
        self.consts[i] = Some(v);
        v
    }

    fn flag(&mut self, b: BlockId) -> VarId {
        if let Some(&v) = self.flags.get(&b) {
            return v;
        }
        self.f.vars.push(Var {
            name: format!("goto.{}", self.names[b.index()].0),
            ty: Type::Scalar(Scalar::Bool),
        });
        let v = VarId(self.f.vars.len() as u32 - 1);
        self.flags.insert(b, v);
        v
    }

    fn set_flag(&mut self, b: BlockId, value: bool, out: &mut Vec<Stmt>) {
        let var = self.flag(b);
        let c = self.konst(value);
        out.push(Stmt::WriteVar(var, c));
    }

    /// The code of `x` and of everything placed under it.
    fn do_tree(&mut self, x: BlockId, out: &mut Vec<Stmt>) -> Result<(), StructurizeError> {
        if !self.g.is_header(x) {
            return self.node_within(x, out);
        }
        let after = self.places.after_loop[x.index()].clone();
        for &y in after.iter().rev() {
            self.stack.push(Ctx::Follows(y));
        }
        self.stack.push(Ctx::Loop(x, Vec::new()));
        let mut body = Vec::new();
        let r = self.node_within(x, &mut body);
        let Some(Ctx::Loop(_, pending)) = self.stack.pop() else {
            return Err(self.internal(x, "unbalanced loop"));
        };
        r?;
        out.push(Stmt::Loop {
            body: Block(body),
            continuing: Block::default(),
        });
        self.carry_on(pending, out)?;
        for y in after {
            self.stack.pop();
            self.follower(y, out)?;
        }
        Ok(())
    }

    /// `x`'s statements, its terminator, then its followers.
    fn node_within(&mut self, x: BlockId, out: &mut Vec<Stmt>) -> Result<(), StructurizeError> {
        let inside = self.places.inside[x.index()].clone();
        for &y in inside.iter().rev() {
            self.stack.push(Ctx::Follows(y));
        }
        let Some(stmts) = self.contents[x.index()].take() else {
            return Err(self.internal(x, "block emitted twice"));
        };
        out.extend(stmts.0);
        self.terminator(x, out)?;
        for y in inside {
            self.stack.pop();
            self.follower(y, out)?;
        }
        Ok(())
    }

    /// A follower's code, guarded when some jump passes over it.
    fn follower(&mut self, y: BlockId, out: &mut Vec<Stmt>) -> Result<(), StructurizeError> {
        let mut code = Vec::new();
        if self.flags.contains_key(&y) {
            self.set_flag(y, false, &mut code);
        }
        self.do_tree(y, &mut code)?;
        let passing = self.bypass.remove(&y).unwrap_or_default();
        let Some(cond) = self.any_flag(&passing, out) else {
            out.extend(code);
            return Ok(());
        };
        out.push(Stmt::If {
            cond,
            then_: Block::default(),
            else_: Block(code),
        });
        Ok(())
    }

    /// `flag(t1) || flag(t2) …` evaluated into `out`; `None` for no target.
    fn any_flag(&mut self, targets: &[BlockId], out: &mut Vec<Stmt>) -> Option<ValueId> {
        let mut acc = None;
        for &t in targets {
            let var = self.flag(t);
            let r = self.push(out, Inst::ReadVar(var), Type::Scalar(Scalar::Bool));
            acc = Some(match acc {
                None => r,
                Some(a) => self.push(
                    out,
                    Inst::Binary(BinaryOp::Or, a, r),
                    Type::Scalar(Scalar::Bool),
                ),
            });
        }
        acc
    }

    fn terminator(&mut self, x: BlockId, out: &mut Vec<Stmt>) -> Result<(), StructurizeError> {
        match self.terms[x.index()].clone() {
            Terminator::Jump(t) => self.edge(x, t, out),
            Terminator::Branch { cond, then_, else_ } => {
                let mut a = Vec::new();
                self.edge(x, then_, &mut a)?;
                let mut b = Vec::new();
                self.edge(x, else_, &mut b)?;
                out.push(Stmt::If {
                    cond,
                    then_: Block(a),
                    else_: Block(b),
                });
                Ok(())
            }
            Terminator::Switch {
                selector,
                cases,
                default,
            } => {
                // One IR case per target, in the order the targets appear.
                let mut groups: Vec<SwitchCase> = Vec::new();
                let mut targets: Vec<BlockId> = Vec::new();
                let mut seen = Vec::new();
                for (v, t) in cases {
                    if seen.contains(&v) {
                        continue;
                    }
                    seen.push(v);
                    match targets.iter().position(|x| *x == t) {
                        Some(i) => groups[i].values.push(v),
                        None => {
                            targets.push(t);
                            groups.push(SwitchCase {
                                values: vec![v],
                                is_default: false,
                                body: Block::default(),
                            });
                        }
                    }
                }
                match targets.iter().position(|x| *x == default) {
                    Some(i) => groups[i].is_default = true,
                    None => {
                        targets.push(default);
                        groups.push(SwitchCase {
                            values: Vec::new(),
                            is_default: true,
                            body: Block::default(),
                        });
                    }
                }
                self.stack.push(Ctx::Switch(Vec::new()));
                let mut r = Ok(());
                for (case, &t) in groups.iter_mut().zip(&targets) {
                    let mut body = Vec::new();
                    r = self.edge(x, t, &mut body);
                    if r.is_err() {
                        break;
                    }
                    if !matches!(
                        body.last(),
                        Some(Stmt::Break | Stmt::Continue | Stmt::Return(_))
                    ) {
                        body.push(Stmt::Break);
                    }
                    case.body = Block(body);
                }
                let Some(Ctx::Switch(pending)) = self.stack.pop() else {
                    return Err(self.internal(x, "unbalanced switch"));
                };
                r?;
                out.push(Stmt::Switch {
                    selector,
                    cases: groups,
                });
                self.carry_on(pending, out)
            }
            Terminator::Return(v) => {
                out.push(Stmt::Return(v));
                Ok(())
            }
        }
    }

    /// Control going from `x` to `t`.
    fn edge(
        &mut self,
        x: BlockId,
        t: BlockId,
        out: &mut Vec<Stmt>,
    ) -> Result<(), StructurizeError> {
        if self.places.nested[t.index()] && !self.g.is_back_edge(x, t) {
            self.do_tree(t, out)
        } else {
            self.jump(t, false, out)
        }
    }

    /// A jump to `t` from the current point; `resumed` when it is carried
    /// on after a construct it broke out of (its flag is set already).
    fn jump(
        &mut self,
        t: BlockId,
        resumed: bool,
        out: &mut Vec<Stmt>,
    ) -> Result<(), StructurizeError> {
        let Some(at) = self.stack.iter().rposition(|c| match c {
            Ctx::Follows(y) | Ctx::Loop(y, _) => *y == t,
            Ctx::Switch(_) => false,
        }) else {
            return Err(self.internal(t, "jump target not around the jump"));
        };
        let to_header = matches!(self.stack[at], Ctx::Loop(..));
        let loops_between = self.stack[at + 1..]
            .iter()
            .any(|c| matches!(c, Ctx::Loop(..)));
        if to_header && !loops_between {
            if resumed {
                self.set_flag(t, false, out);
            }
            out.push(Stmt::Continue);
            return Ok(());
        }
        let breakable = (at + 1..self.stack.len())
            .rev()
            .find(|&i| matches!(self.stack[i], Ctx::Loop(..) | Ctx::Switch(_)));
        let Some(b) = breakable else {
            // Falls through to the follower `t`, past the others between.
            let passed: Vec<BlockId> = self.stack[at + 1..]
                .iter()
                .filter_map(|c| match c {
                    Ctx::Follows(y) => Some(*y),
                    _ => None,
                })
                .collect();
            if !passed.is_empty() && !resumed {
                self.set_flag(t, true, out);
            }
            for y in passed {
                let list = self.bypass.entry(y).or_default();
                if !list.contains(&t) {
                    list.push(t);
                }
            }
            return Ok(());
        };
        // Out of the innermost loop or switch; carried on after it when
        // it is not the construct right inside the target. (Right inside
        // a loop, the end of its body is reached: the loop goes on.)
        if b == at + 1 && resumed && to_header {
            self.set_flag(t, false, out);
        }
        if b > at + 1 {
            if !resumed {
                self.set_flag(t, true, out);
            }
            if let Ctx::Loop(_, pending) | Ctx::Switch(pending) = &mut self.stack[b] {
                if !pending.contains(&t) {
                    pending.push(t);
                }
            }
        }
        out.push(Stmt::Break);
        Ok(())
    }

    /// After a construct: the flagged jumps that broke out of it go on.
    /// Jumps that go on the same way (a `break` of the next loop out,
    /// say) share one test of their flags.
    fn carry_on(
        &mut self,
        pending: Vec<BlockId>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), StructurizeError> {
        let mut ways: Vec<(Vec<Stmt>, Vec<BlockId>)> = Vec::new();
        for t in pending {
            let mut code = Vec::new();
            self.jump(t, true, &mut code)?;
            if code.is_empty() {
                continue;
            }
            match ways.iter_mut().find(|(c, _)| *c == code) {
                Some((_, targets)) => targets.push(t),
                None => ways.push((code, vec![t])),
            }
        }
        for (code, targets) in ways {
            if let Some(cond) = self.any_flag(&targets, out) {
                out.push(Stmt::If {
                    cond,
                    then_: Block(code),
                    else_: Block::default(),
                });
            }
        }
        Ok(())
    }
}

//! Structurization of random control-flow graphs, checked by execution.
//!
//! Each graph has up to 9 blocks with random successors (self loops,
//! backward jumps, shared targets; often irreducible) and a `stop` block.
//! Every block appends its number to a per-work-item trace, counts a step,
//! and picks its successor by a multiway branch on a function of the step,
//! the work-item and the block; from step 40 on, every block goes to
//! `stop`, so each run ends. The structured kernel runs in the interpreter
//! on 8 work-items (2,000 graphs) and must leave exactly the trace a direct walk of the
//! graph gives; a refused graph must be refused as irreducible, and that
//! must be true of it (a walk finds a cycle entered at two blocks).

use vecl_ir::cfg::{BasicBlock, BlockId, Cfg, Terminator};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::text::default_args;
use vecl_ir::transform::structurize::structurize;
use vecl_ir::verify::{format_errors, verify_module};
use vecl_ir::*;

const LIMIT: u32 = 40;
const TRACE: u32 = 64;
const ITEMS: u32 = 8;

/// A small deterministic generator (64-bit LCG, high bits).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % u64::from(n)) as u32
    }
}

/// Successor lists: `None` returns. The last block is `stop`.
fn random_graph(rng: &mut Rng) -> Vec<Option<Vec<u32>>> {
    let n = 2 + rng.below(8);
    let mut g = Vec::new();
    for _ in 0..n {
        if rng.below(8) == 0 {
            g.push(None);
            continue;
        }
        let k = 1 + rng.below(3);
        g.push(Some((0..k).map(|_| rng.below(n)).collect()));
    }
    g.push(None);
    g
}

/// The successor choice both the kernel and the walk make.
fn choice(step: u32, gid: u32, block: u32, n: u32) -> u32 {
    (step.wrapping_mul(7) + gid * 3 + block * 5) % 11 % n
}

/// The trace a direct walk of the graph leaves for work-item `gid`.
fn walk(g: &[Option<Vec<u32>>], gid: u32) -> Vec<u32> {
    let stop = g.len() as u32 - 1;
    let mut trace = vec![0; TRACE as usize];
    let (mut b, mut s) = (0u32, 0u32);
    loop {
        trace[s as usize] = b + 1;
        let Some(succ) = &g[b as usize] else {
            return trace;
        };
        b = if s >= LIMIT {
            stop
        } else {
            succ[choice(s, gid, b, succ.len() as u32) as usize]
        };
        s += 1;
    }
}

fn u32c(f: &mut Function, stmts: &mut Vec<Stmt>, v: u32) -> ValueId {
    push(f, stmts, Inst::Const(u64::from(v)), Type::U32)
}

fn push(f: &mut Function, stmts: &mut Vec<Stmt>, inst: Inst, ty: Type) -> ValueId {
    let v = ValueId(f.insts.len() as u32);
    f.insts.push(InstData {
        inst,
        ty,
        loc: Loc::NONE,
    });
    stmts.push(Stmt::Eval(v));
    v
}

/// The kernel `@k(out)` of graph `g`, as a function and its [`Cfg`].
fn kernel(g: &[Option<Vec<u32>>]) -> (Module, Cfg) {
    let out_ty = Type::ptr(AddressSpace::Global, Type::U32);
    let params = vec![Param {
        name: "out".into(),
        ty: out_ty.clone(),
        byval: false,
    }];
    let mut f = Function::new("k", params.clone(), Type::Void);
    f.kernel = Some(KernelInfo {
        args: default_args(&params, &[]),
        ..KernelInfo::default()
    });
    f.vars.push(Var {
        name: "step".into(),
        ty: Type::U32,
    });
    let step = VarId(0);
    let stop = g.len() as u32 - 1;
    // A prologue block that the graph's block 0 follows.
    let mut pro = Vec::new();
    let out = push(&mut f, &mut pro, Inst::Param(0), out_ty.clone());
    let zero = u32c(&mut f, &mut pro, 0);
    let gid64 = push(
        &mut f,
        &mut pro,
        Inst::WorkItem(WorkItemFn::GlobalId, Some(zero)),
        Type::U64,
    );
    let gid = push(
        &mut f,
        &mut pro,
        Inst::Convert {
            value: gid64,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::U32,
    );
    pro.push(Stmt::WriteVar(step, zero));
    let mut cfg = Cfg::default();
    cfg.blocks.push(BasicBlock {
        name: "prologue".into(),
        loc: Loc::NONE,
        stmts: Block(pro),
        term: Terminator::Jump(BlockId(1)),
    });
    for (b, succ) in g.iter().enumerate() {
        let b = b as u32;
        let mut st = Vec::new();
        let s = push(&mut f, &mut st, Inst::ReadVar(step), Type::U32);
        let width = u32c(&mut f, &mut st, TRACE);
        let base = push(
            &mut f,
            &mut st,
            Inst::Binary(BinaryOp::Mul, gid, width),
            Type::U32,
        );
        let at = push(
            &mut f,
            &mut st,
            Inst::Binary(BinaryOp::Add, base, s),
            Type::U32,
        );
        let at = push(
            &mut f,
            &mut st,
            Inst::Convert {
                value: at,
                saturate: false,
                rounding: Rounding::Default,
            },
            Type::I64,
        );
        let p = push(&mut f, &mut st, Inst::Index(out, at), out_ty.clone());
        let mark = u32c(&mut f, &mut st, b + 1);
        st.push(Stmt::Store {
            ptr: p,
            value: mark,
            loc: Loc::NONE,
        });
        let one = u32c(&mut f, &mut st, 1);
        let s1 = push(
            &mut f,
            &mut st,
            Inst::Binary(BinaryOp::Add, s, one),
            Type::U32,
        );
        st.push(Stmt::WriteVar(step, s1));
        let term = match succ {
            None => Terminator::Return(None),
            Some(succ) => {
                // choice(s, gid, b, n), or the stop case from LIMIT on.
                let c7 = u32c(&mut f, &mut st, 7);
                let c3 = u32c(&mut f, &mut st, 3);
                let c11 = u32c(&mut f, &mut st, 11);
                let cn = u32c(&mut f, &mut st, succ.len() as u32);
                let b5 = u32c(&mut f, &mut st, b * 5);
                let x = push(
                    &mut f,
                    &mut st,
                    Inst::Binary(BinaryOp::Mul, s, c7),
                    Type::U32,
                );
                let y = push(
                    &mut f,
                    &mut st,
                    Inst::Binary(BinaryOp::Mul, gid, c3),
                    Type::U32,
                );
                let x = push(
                    &mut f,
                    &mut st,
                    Inst::Binary(BinaryOp::Add, x, y),
                    Type::U32,
                );
                let x = push(
                    &mut f,
                    &mut st,
                    Inst::Binary(BinaryOp::Add, x, b5),
                    Type::U32,
                );
                let x = push(
                    &mut f,
                    &mut st,
                    Inst::Binary(BinaryOp::Rem, x, c11),
                    Type::U32,
                );
                let x = push(
                    &mut f,
                    &mut st,
                    Inst::Binary(BinaryOp::Rem, x, cn),
                    Type::U32,
                );
                let limit = u32c(&mut f, &mut st, LIMIT);
                let over = push(
                    &mut f,
                    &mut st,
                    Inst::Cmp(CmpOp::Ge, s, limit),
                    Type::Scalar(Scalar::Bool),
                );
                let hundred = u32c(&mut f, &mut st, 100);
                let sel = push(&mut f, &mut st, Inst::Select(over, hundred, x), Type::U32);
                let mut cases: Vec<(i64, BlockId)> = succ
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (i as i64, BlockId(t + 1)))
                    .collect();
                cases.push((100, BlockId(stop + 1)));
                Terminator::Switch {
                    selector: sel,
                    cases,
                    default: BlockId(stop + 1),
                }
            }
        };
        cfg.blocks.push(BasicBlock {
            name: format!("b{b}"),
            loc: Loc::NONE,
            stmts: Block(st),
            term,
        });
    }
    let m = Module {
        functions: vec![f],
        ..Module::default()
    };
    (m, cfg)
}

/// Whether some cycle of `g` (from block 0) is entered at two blocks:
/// Tarjan-free check by the definition, a retreating edge of a depth-first
/// walk whose target does not dominate its source (dominators by the
/// iterative data-flow definition, independent of the pass's algorithm).
fn irreducible(g: &[Option<Vec<u32>>]) -> bool {
    let n = g.len();
    let succ = |b: usize| g[b].clone().unwrap_or_default();
    let mut reach = vec![false; n];
    let mut work = vec![0usize];
    while let Some(b) = work.pop() {
        if !std::mem::replace(&mut reach[b], true) {
            work.extend(succ(b).into_iter().map(|s| s as usize));
        }
    }
    // dom[b] = set of blocks dominating b.
    let all: Vec<bool> = reach.clone();
    let mut dom: Vec<Vec<bool>> = (0..n)
        .map(|b| {
            if b == 0 {
                (0..n).map(|i| i == 0).collect()
            } else {
                all.clone()
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            if !reach[b] {
                continue;
            }
            let mut d = all.clone();
            for p in 0..n {
                if reach[p] && succ(p).contains(&(b as u32)) {
                    for i in 0..n {
                        d[i] &= dom[p][i];
                    }
                }
            }
            d[b] = true;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
    }
    // Depth-first search; an edge to a block on the stack is retreating.
    fn dfs(
        b: usize,
        g: &dyn Fn(usize) -> Vec<u32>,
        state: &mut [u8],
        dom: &[Vec<bool>],
        bad: &mut bool,
    ) {
        state[b] = 1;
        for s in g(b) {
            let s = s as usize;
            if state[s] == 1 && !dom[b][s] {
                *bad = true;
            }
            if state[s] == 0 {
                dfs(s, g, state, dom, bad);
            }
        }
        state[b] = 2;
    }
    let mut state = vec![0u8; n];
    let mut bad = false;
    dfs(0, &succ, &mut state, &dom, &mut bad);
    bad
}

#[test]
fn random_graphs_run_as_walked() {
    let mut rng = Rng(0x5eed_0fc0_ffee);
    let (mut accepted, mut refused) = (0, 0);
    for case in 0..2000 {
        let g = random_graph(&mut rng);
        let (mut m, cfg) = kernel(&g);
        match structurize(&mut m.functions[0], cfg) {
            Err(e) => {
                assert!(e.message.contains("irreducible"), "case {case} {g:?}: {e}");
                assert!(
                    irreducible(&g),
                    "case {case}: reducible graph refused: {g:?}"
                );
                refused += 1;
                continue;
            }
            Ok(()) => assert!(
                !irreducible(&g),
                "case {case}: irreducible graph accepted: {g:?}"
            ),
        }
        if let Err(e) = verify_module(&m) {
            panic!("case {case} {g:?}:\n{}\n{m}", format_errors(&e));
        }
        let mut args = vec![KernelArg::Buffer(vec![0; (ITEMS * TRACE * 4) as usize])];
        if let Err(e) = run_kernel(&m, "k", &mut args, &NdRange::linear(u64::from(ITEMS), 4)) {
            panic!("case {case} {g:?}: {e}\n{m}");
        }
        let KernelArg::Buffer(bytes) = &args[0] else {
            unreachable!("a buffer was passed")
        };
        let got: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for gid in 0..ITEMS {
            let want = walk(&g, gid);
            let at = (gid * TRACE) as usize;
            assert_eq!(
                &got[at..at + TRACE as usize],
                &want[..],
                "case {case}, work-item {gid}, graph {g:?}:\n{m}"
            );
        }
        accepted += 1;
    }
    eprintln!("{accepted} graphs structured and run, {refused} refused as irreducible");
    assert!(
        accepted >= 1000 && refused >= 100,
        "{accepted} accepted, {refused} refused"
    );
}

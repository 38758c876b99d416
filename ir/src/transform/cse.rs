//! Common subexpressions and single-assignment variables, for code
//! generators after inlining.
//!
//! A helper inlined twice with the same argument (`cnd(d1)` in both the
//! call and the put price of Black-Scholes) computes everything twice,
//! `exp` included, and a code generator that calls an out-of-line routine
//! for `exp` cannot merge the two calls itself. Two rewrites make the
//! copies one:
//!
//! - **Forwarding.** A variable with one real write, at the top level of
//!   the body, reads as the written value wherever the read comes after
//!   that write (the front end gives every local and parameter a variable,
//!   and inlining gives the callee's their own). Writes of `undef` before
//!   it, which the inliner puts at the top of the body, do not count.
//! - **Value numbering.** An evaluation of a pure instruction (arithmetic,
//!   comparisons, conversions, address arithmetic, work-item queries, and
//!   the builtins `Builtin::is_pure` names over values) with the same
//!   operands and type as one evaluated before it in an enclosing block is
//!   dropped and its uses read the earlier value.
//!
//! - **Repeated reads.** A read of a variable after an earlier read of it
//!   in the same run of statements of one block, with no write of it and
//!   no branch or loop in between, reads that earlier value. (A read
//!   after a test of the variable keeps its own: the range analysis
//!   bounds it by the test.)
//! - **Repeated loads.** A load through the same address value, of the
//!   same type, as an earlier load in the same or an enclosing block,
//!   with nothing in between that may write memory (a store, a copy, an
//!   atomic, a call, a builtin that is not pure, a fence, in a statement
//!   passed since) and no loop entered since, reads the earlier value.
//!   Only through a `__global` or `__constant` pointer parameter of a
//!   kernel that is not `volatile` (`a[i]` read in four terms of one
//!   expression): memory no other pointer of the work-item writes
//!   unseen. A loop's loads never reuse one from before the loop, so a
//!   loop that polls memory another work-item writes keeps reading it.
//!
//! Other loads, atomics and calls stay as they are. Functions with a
//! barrier are left alone: a value computed before a barrier and used
//! after it would have to cross the cut the code generator makes there,
//! which only variables do.

use super::compact;
use crate::module::*;
use crate::types::{AddressSpace, Type};
use std::collections::HashMap;

/// Rewrites `f` as the module documentation says; returns how many
/// evaluations it dropped.
pub fn eliminate_common(f: &mut Function) -> usize {
    if contains_barrier(&f.body.0) {
        return 0;
    }
    let forward = forwardable(f);
    let loadable = loadable_params(f);
    let mut body = std::mem::take(&mut f.body);
    let mut cx = Numbering {
        rep: (0..f.insts.len() as u32).map(ValueId).collect(),
        scopes: vec![HashMap::new()],
        forward,
        written: HashMap::new(),
        dropped: 0,
        loadable,
        reads: HashMap::new(),
        loads: vec![HashMap::new()],
        mem_epoch: 0,
    };
    cx.block(&mut f.insts, &mut body, true);
    f.body = body;
    if cx.dropped > 0 {
        compact::drop_unevaluated(f);
    }
    cx.dropped
}

/// The variables whose reads after their one real write may read the
/// written value: that write's index in the body's top-level statements.
fn forwardable(f: &Function) -> HashMap<VarId, usize> {
    #[derive(Default)]
    struct Writes {
        /// Top-level index of the real write, if it is at top level.
        top: Option<usize>,
        real: u32,
        /// A write of `undef` below the top level or after the real one.
        late_undef: bool,
    }
    let is_undef = |v: &ValueId| matches!(f.inst(*v).inst, Inst::Undef);
    let mut w: HashMap<VarId, Writes> = HashMap::new();
    for (i, s) in f.body.0.iter().enumerate() {
        if let Stmt::WriteVar(x, v) = s {
            let e = w.entry(*x).or_default();
            if is_undef(v) {
                e.late_undef |= e.real > 0;
            } else {
                e.real += 1;
                e.top = Some(i);
            }
        }
    }
    for s in &f.body.0 {
        let mut nested = Vec::new();
        match s {
            Stmt::If { then_, else_, .. } => nested.extend([then_, else_]),
            Stmt::Loop { body, continuing } => nested.extend([body, continuing]),
            Stmt::Switch { cases, .. } => nested.extend(cases.iter().map(|c| &c.body)),
            _ => {}
        }
        for b in nested {
            compact::walk_stmts(b, &mut |s| {
                if let Stmt::WriteVar(x, v) = s {
                    let e = w.entry(*x).or_default();
                    if is_undef(v) {
                        e.late_undef = true;
                    } else {
                        // Two real writes at least: never forwarded.
                        e.real += 2;
                    }
                }
            });
        }
    }
    w.into_iter()
        .filter(|(_, e)| e.real == 1 && !e.late_undef)
        .filter_map(|(x, e)| Some((x, e.top?)))
        .collect()
}

/// Per parameter: a kernel's `__global` or `__constant` pointer that is not
/// `volatile`, whose repeated loads may be shared.
fn loadable_params(f: &Function) -> Vec<bool> {
    let Some(k) = &f.kernel else {
        return vec![false; f.params.len()];
    };
    f.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let volatile = k.args.get(i).is_none_or(|a| a.qualifiers.is_volatile);
            let space = matches!(
                p.ty,
                Type::Pointer(AddressSpace::Global | AddressSpace::Constant, _)
            );
            space && !volatile && !p.byval
        })
        .collect()
}

/// Whether evaluating `d` again with the same operands gives the same value
/// and has no effect.
fn pure(f_insts: &[InstData], d: &InstData) -> bool {
    match &d.inst {
        i if i.depends_only_on_operands() => true,
        Inst::Param(_)
        | Inst::Const(_)
        | Inst::SlotAddr(_)
        | Inst::GlobalAddr(_)
        | Inst::WorkItem(..) => true,
        Inst::Builtin(name, args) => {
            d.ty != Type::Void
                && name.is_pure()
                && args
                    .iter()
                    .all(|a| !matches!(f_insts[a.index()].ty, Type::Pointer(..)))
        }
        // `Undef`, variable reads, loads, atomics and calls.
        _ => false,
    }
}

struct Numbering {
    /// The value each value's uses read instead (itself if kept).
    rep: Vec<ValueId>,
    /// The pure instructions evaluated in each enclosing block, innermost
    /// last.
    scopes: Vec<HashMap<(Inst, Type), ValueId>>,
    forward: HashMap<VarId, usize>,
    /// Forwardable variables whose write has been passed, and its value.
    written: HashMap<VarId, ValueId>,
    dropped: usize,
    /// Per parameter: loads through it may be shared ([`loadable_params`]).
    loadable: Vec<bool>,
    /// The variables read in the current run of statements (since the
    /// last branch or loop) and not written since, with the value read.
    reads: HashMap<VarId, ValueId>,
    /// Per enclosing block, innermost last: the loads there by address and
    /// type, the value and the memory epoch at the load.
    loads: Vec<HashMap<(ValueId, Type), (ValueId, u64)>>,
    /// Raised at every possible write of memory: a load recorded under an
    /// older epoch is no longer the current value.
    mem_epoch: u64,
}

impl Numbering {
    fn map(&self, v: &mut ValueId) {
        *v = self.rep[v.index()];
    }

    fn nested(&mut self, insts: &mut [InstData], b: &mut Block) {
        self.scopes.push(HashMap::new());
        // Reads before a branch or loop are not shared past it: a read
        // after a test of the variable (`r < n` at the top of a loop, `if
        // (x < n)`) is what the range analysis bounds by that test, where
        // the read before it is not.
        self.reads.clear();
        self.loads.push(HashMap::new());
        self.block(insts, b, false);
        self.scopes.pop();
        self.reads.clear();
        self.loads.pop();
    }

    /// Memory written (or possibly): earlier loads are stale.
    fn mem_written(&mut self) {
        self.mem_epoch += 1;
    }

    /// Marks earlier loads stale when statement `s` or one nested in it
    /// may write memory.
    fn writes_in(&mut self, insts: &[InstData], s: &Stmt) {
        let mut memory = false;
        let mut visit = |s: &Stmt| match s {
            Stmt::Eval(v) => memory |= writes_memory(insts, &insts[v.index()]),
            Stmt::Store { .. } | Stmt::Copy { .. } | Stmt::Barrier(..) | Stmt::Fence(_) => {
                memory = true
            }
            _ => {}
        };
        visit(s);
        compact::walk_nested(s, &mut visit);
        if memory {
            self.mem_written();
        }
    }

    fn block(&mut self, insts: &mut [InstData], b: &mut Block, top: bool) {
        let stmts = std::mem::take(&mut b.0);
        let mut kept = Vec::with_capacity(stmts.len());
        for (i, mut s) in stmts.into_iter().enumerate() {
            match &mut s {
                Stmt::Eval(v) => {
                    let v = *v;
                    insts[v.index()]
                        .inst
                        .operands_mut()
                        .for_each(|o| self.map(o));
                    if let Some(to) = self.replacement(insts, v) {
                        self.rep[v.index()] = to;
                        self.dropped += 1;
                        continue;
                    }
                }
                Stmt::WriteVar(x, v) => {
                    self.map(v);
                    if top && self.forward.get(x) == Some(&i) {
                        self.written.insert(*x, *v);
                    }
                    self.reads.remove(x);
                }
                Stmt::Store { ptr, value, .. } => {
                    self.map(ptr);
                    self.map(value);
                    self.mem_written();
                }
                Stmt::Copy { dst, src, .. } => {
                    self.map(dst);
                    self.map(src);
                    self.mem_written();
                }
                Stmt::If { cond, then_, else_ } => {
                    self.map(cond);
                    self.nested(insts, then_);
                    self.nested(insts, else_);
                }
                Stmt::Loop { body, continuing } => {
                    // A trip after the first sees the loop's own stores,
                    // and memory others may write: no load from before
                    // the loop is reused inside it.
                    self.mem_written();
                    self.nested(insts, body);
                    self.nested(insts, continuing);
                }
                Stmt::Switch { selector, cases } => {
                    self.map(selector);
                    for c in cases {
                        self.nested(insts, &mut c.body);
                    }
                }
                Stmt::Barrier(..) | Stmt::Fence(_) => self.mem_written(),
                Stmt::Return(Some(v)) => self.map(v),
                Stmt::Return(None) | Stmt::Break | Stmt::Continue => {}
            }
            if matches!(s, Stmt::If { .. } | Stmt::Switch { .. } | Stmt::Loop { .. }) {
                self.writes_in(insts, &s);
            }
            kept.push(s);
        }
        b.0 = kept;
    }

    /// The earlier value evaluation `v` (operands already renamed) may
    /// read instead, recording it as available when there is none.
    fn replacement(&mut self, insts: &[InstData], v: ValueId) -> Option<ValueId> {
        let d = &insts[v.index()];
        if let Inst::ReadVar(x) = d.inst {
            if let Some(w) = self.written.get(&x) {
                return Some(*w);
            }
            if let Some(e) = self.reads.get(&x) {
                return Some(*e);
            }
            self.reads.insert(x, v);
            return None;
        }
        if let Inst::Load(p) = d.inst {
            if !self.loads_through(insts, p) {
                return None;
            }
            let key = (p, d.ty.clone());
            let now = self.mem_epoch;
            let earlier = self.loads.iter().rev().find_map(|l| l.get(&key));
            if let Some(&(e, _)) = earlier.filter(|(_, at)| *at == now) {
                return Some(e);
            }
            self.loads.last_mut()?.insert(key, (v, now));
            return None;
        }
        if writes_memory(insts, d) {
            self.mem_written();
        }
        if !pure(insts, d) {
            return None;
        }
        let key = (d.inst.clone(), d.ty.clone());
        if let Some(found) = self.scopes.iter().rev().find_map(|s| s.get(&key)) {
            return Some(*found);
        }
        self.scopes.last_mut()?.insert(key, v);
        None
    }
}

impl Numbering {
    /// Whether pointer `p` derives from a parameter whose loads may be
    /// shared ([`loadable_params`]).
    fn loads_through(&self, insts: &[InstData], p: ValueId) -> bool {
        let mut p = p;
        for _ in 0..64 {
            match insts[p.index()].inst {
                Inst::Param(n) => return self.loadable.get(n as usize) == Some(&true),
                Inst::Index(q, _) | Inst::PtrCast(q) | Inst::Elem(q, _) | Inst::Field(q, _) => {
                    p = q
                }
                _ => return false,
            }
        }
        false
    }
}

/// Whether evaluating `d` may write memory: anything but a pure
/// instruction, a load, a variable read and `undef`.
fn writes_memory(insts: &[InstData], d: &InstData) -> bool {
    !matches!(d.inst, Inst::Load(_) | Inst::ReadVar(_) | Inst::Undef) && !pure(insts, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(src: &str) -> (usize, String) {
        super::super::run_on_text(src, eliminate_common)
    }

    #[test]
    fn a_repeated_pure_builtin_and_its_arithmetic_are_computed_once() {
        let (n, text) = rewritten(
            "kernel @k(o: ptr global f32, x: f32) {
  %0: ptr global f32 = param 0
  %1: f32 = param 1
  %2: f32 = builtin exp(%1)
  %3: f32 = const 2.0
  %4: f32 = mul %2, %3
  %5: f32 = builtin exp(%1)
  %6: f32 = const 2.0
  %7: f32 = mul %5, %6
  %8: f32 = add %4, %7
  store %0, %8
}
",
        );
        assert_eq!(n, 3, "{text}");
        assert_eq!(text.matches("builtin exp").count(), 1, "{text}");
        assert!(text.contains("add %4, %4"), "{text}");
    }

    #[test]
    fn loads_and_values_of_inner_blocks_are_not_shared() {
        let (n, text) = rewritten(
            "kernel @k(o: ptr global f32, c: bool) {
  %0: ptr global f32 = param 0
  %1: bool = param 1
  %2: f32 = load %0
  if %1 {
    %3: f32 = builtin sqrt(%2)
    store %0, %3
  }
  %4: f32 = load %0
  %5: f32 = builtin sqrt(%4)
  %6: f32 = builtin sqrt(%2)
  store %0, %5
  store %0, %6
}
",
        );
        assert_eq!(n, 0, "{text}");
    }

    #[test]
    fn a_variable_written_once_at_top_level_reads_as_its_value_after_the_write() {
        let (n, text) = rewritten(
            "kernel @k(o: ptr global i32, n: i32) {
  var $0 t: i32
  var $1 u: i32
  %0: ptr global i32 = param 0
  %1: i32 = param 1
  %2: i32 = undef
  write $0, %2
  %3: i32 = read $0
  store %0, %3
  write $0, %1
  write $1, %1
  loop {
    %4: i32 = read $0
    %5: i32 = read $1
    %6: i32 = add %4, %5
    store %0, %6
    write $1, %6
    break
  } continuing {
  }
}
",
        );
        // The read of `t` before its write stays; the one in the loop
        // reads `n`. `u` is written twice and stays a variable.
        assert_eq!(n, 1, "{text}");
        assert_eq!(text.matches("read $0").count(), 1, "{text}");
        assert!(text.contains("read $1"), "{text}");
    }

    #[test]
    fn functions_with_a_barrier_are_left_alone() {
        let (n, _) = rewritten(
            "kernel @k(o: ptr global f32, x: f32) {
  %0: ptr global f32 = param 0
  %1: f32 = param 1
  %2: f32 = builtin exp(%1)
  store %0, %2
  barrier local
  %3: f32 = builtin exp(%1)
  store %0, %3
}
",
        );
        assert_eq!(n, 0);
    }

    #[test]
    fn a_load_repeated_with_nothing_written_between_is_loaded_once() {
        let (n, text) = rewritten(
            "kernel @k(a: ptr global f32, o: ptr global f32)
  args [\"float*\" global const, \"float*\" global] {
  %0: ptr global f32 = param 0
  %1: ptr global f32 = param 1
  %2: f32 = load %0
  %3: f32 = load %0
  %4: f32 = add %2, %3
  store %1, %4
  %5: f32 = load %0
  store %1, %5
}
",
        );
        // The second load reads the first; the third follows a store
        // (which may alias) and stays.
        assert_eq!(n, 1, "{text}");
        assert_eq!(text.matches("= load %0").count(), 2, "{text}");
        assert!(text.contains("add %2, %2"), "{text}");
    }

    #[test]
    fn volatile_pointers_atomics_and_loops_keep_their_loads() {
        let (n, text) = rewritten(
            "kernel @k(a: ptr global i32, v: ptr global i32)
  args [\"int*\" global, \"int*\" global volatile] {
  %0: ptr global i32 = param 0
  %1: ptr global i32 = param 1
  %2: i32 = load %1
  %3: i32 = load %1
  %4: i32 = load %0
  %5: i32 = atomic inc %1
  %6: i32 = load %0
  loop {
    %7: i32 = load %0
    %8: bool = cmp eq %7, %6
    if %8 {
    } else {
      break
    }
  } continuing {
  }
  %9: i32 = add %2, %3
  %10: i32 = add %9, %4
  %11: i32 = add %10, %5
  store %0, %11
}
",
        );
        // `volatile` reads twice, the atomic may write what `a` points
        // to, and the loop polls: every load stays.
        assert_eq!(n, 0, "{text}");
        assert_eq!(text.matches("= load").count(), 5, "{text}");
    }

    #[test]
    fn a_variable_read_again_before_its_next_write_reads_the_first_value() {
        let (n, text) = rewritten(
            "kernel @k(o: ptr global i32, n: i32) {
  var $0 i: i32
  %0: ptr global i32 = param 0
  %1: i32 = param 1
  %2: i32 = const 0
  write $0, %2
  loop {
    %3: i32 = read $0
    %4: i32 = read $0
    %5: bool = cmp lt %3, %4
    %6: i32 = read $0
    %7: i32 = const 1
    %8: i32 = add %6, %7
    write $0, %8
    %9: i32 = read $0
    store %0, %9
    if %5 {
      break
    }
  } continuing {
    %10: i32 = read $0
    store %0, %10
  }
}
",
        );
        // In the loop, the second and third reads are the first; the one
        // after the write stays, and so do the loop's first read (the
        // loop writes the variable) and the continuing block's (a branch
        // before it).
        assert_eq!(n, 2, "{text}");
        assert_eq!(text.matches("read $0").count(), 3, "{text}");
    }
}

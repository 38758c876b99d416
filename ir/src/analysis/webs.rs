//! Variable webs: each register variable split into the independent live
//! ranges it holds.
//!
//! OpenCL C code often reuses one variable for unrelated values:
//!
//! ```c
//! int i;
//! for (i = lid; i < n; i += size) acc += a[i];    // i differs per work-item
//! for (i = size / 2; i > 0; i /= 2) { barrier(…); … }  // i is the same for all
//! ```
//!
//! The uniformity analysis gives each variable one shape, the join of every
//! value written to it, so the second loop's `i` would count as varying and
//! its barrier as reached under varying control. A *web* is a set of writes
//! and reads tied together by reaching definitions: the writes that may
//! reach a read belong to the read's web. Webs of one variable never
//! exchange values, so each may live in a variable of its own, and each then
//! gets a shape of its own.
//!
//! [`split_webs`] computes reaching definitions over the structured
//! statements (loops iterated to a fixed point; `break`, `continue` and
//! `return` carry their state to where they go) and gives every web but the
//! one holding the variable's value at entry a new variable of the same name
//! and type. Masked execution keeps this sound: a lane's value of a variable
//! always comes from a write it executed itself, which reaches the read
//! along that lane's path and so is in the read's web.
//!
//! Assumes what the verifier checks: each instruction is evaluated by one
//! `Eval`, reads of a variable are `ReadVar` instructions.

use crate::module::*;

/// Gives every web of each register variable a variable of its own (see
/// the module doc); returns how many variables were added.
pub fn split_webs(func: &mut Function) -> usize {
    let mut writes = vec![0u32; func.vars.len()];
    count_writes(&func.body, &mut writes);
    // Only variables written more than once can hold more than one web that
    // matters: one write and the undefined entry value are kept together.
    let tracked: Vec<Option<u32>> = {
        let mut next = 0;
        writes
            .iter()
            .map(|&n| {
                (n > 1).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let n_tracked = tracked.iter().flatten().count();
    if n_tracked == 0 {
        return 0;
    }
    let n_writes = writes
        .iter()
        .zip(&tracked)
        .filter(|(_, t)| t.is_some())
        .map(|(n, _)| *n as usize)
        .sum();
    let mut a = Reaching {
        func,
        tracked: &tracked,
        n_writes,
        cursor: 0,
        write_var: vec![VarId(0); n_writes],
        reads: vec![None; func.insts.len()],
        frames: Vec::new(),
    };
    let entry: State = (0..n_tracked)
        .map(|t| vec![(n_writes + t) as u32])
        .collect();
    a.block(&func.body, Some(entry));
    let Reaching {
        write_var, reads, ..
    } = a;

    // Union the definitions that reach each read; a read nothing reaches
    // (dead code) stays with the entry value.
    let mut webs = UnionFind::new(n_writes + n_tracked);
    let mut read_rep = vec![None; func.insts.len()];
    for (v, defs) in reads.iter().enumerate() {
        let Some(defs) = defs else { continue };
        let rep = match (defs.first(), &func.insts[v].inst) {
            (Some(&first), _) => first as usize,
            (None, Inst::ReadVar(var)) => match tracked[var.index()] {
                Some(t) => n_writes + t as usize,
                None => continue,
            },
            (None, _) => continue,
        };
        for &d in defs {
            webs.union(rep, d as usize);
        }
        read_rep[v] = Some(rep);
    }

    // The web holding the entry value keeps the variable when a read or a
    // write belongs to it; otherwise the web of the variable's first write
    // does. The other webs get new variables.
    let mut used = vec![false; n_writes + n_tracked];
    for d in 0..n_writes {
        let root = webs.find(d);
        used[root] = true;
    }
    for rep in read_rep.iter().flatten() {
        let root = webs.find(*rep);
        used[root] = true;
    }
    let mut web_var: Vec<Option<VarId>> = vec![None; n_writes + n_tracked];
    for (var, t) in tracked.iter().enumerate() {
        if let Some(t) = t {
            let entry = webs.find(n_writes + *t as usize);
            let first = write_var.iter().position(|w| w.index() == var);
            let keeper = match first {
                Some(d) if !used[entry] => webs.find(d),
                _ => entry,
            };
            web_var[keeper] = Some(VarId(var as u32));
        }
    }
    let mut added = 0;
    let mut def_var = Vec::with_capacity(n_writes);
    for (d, &var) in write_var.iter().enumerate() {
        let root = webs.find(d);
        let v = match web_var[root] {
            Some(v) => v,
            None => {
                let v = VarId(func.vars.len() as u32);
                let original = func.vars[var.index()].clone();
                func.vars.push(original);
                web_var[root] = Some(v);
                added += 1;
                v
            }
        };
        def_var.push(v);
    }
    if added == 0 {
        return 0;
    }
    for (v, rep) in read_rep.iter().enumerate() {
        if let Some(rep) = rep {
            if let Some(var) = web_var[webs.find(*rep)] {
                func.insts[v].inst = Inst::ReadVar(var);
            }
        }
    }
    let mut cursor = 0;
    let body = std::mem::take(&mut func.body);
    func.body = rename_writes(body, &tracked, &def_var, &mut cursor);
    added
}

/// Per tracked variable, the sorted definitions that may reach this point
/// (write numbers in statement order, then one entry definition per
/// tracked variable).
type State = Vec<Vec<u32>>;

fn join(a: Option<State>, b: Option<State>) -> Option<State> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(mut a), Some(b)) => {
            for (x, y) in a.iter_mut().zip(&b) {
                union_into(x, y);
            }
            Some(a)
        }
    }
}

/// `into ∪= from`, both sorted.
fn union_into(into: &mut Vec<u32>, from: &[u32]) {
    for &d in from {
        if let Err(at) = into.binary_search(&d) {
            into.insert(at, d);
        }
    }
}

/// Where `break` and `continue` take their state.
enum Frame {
    Loop {
        brk: Option<State>,
        cont: Option<State>,
    },
    Switch {
        brk: Option<State>,
    },
}

struct Reaching<'a> {
    func: &'a Function,
    tracked: &'a [Option<u32>],
    n_writes: usize,
    /// The number of the next write in statement order.
    cursor: usize,
    /// The variable of each write.
    write_var: Vec<VarId>,
    /// Per instruction: for a read of a tracked variable, the definitions
    /// that reach it.
    reads: Vec<Option<Vec<u32>>>,
    frames: Vec<Frame>,
}

impl Reaching<'_> {
    /// The state after `block`, entered with `state` (`None`: unreachable).
    fn block(&mut self, block: &Block, mut state: Option<State>) -> Option<State> {
        for s in &block.0 {
            state = self.stmt(s, state);
        }
        state
    }

    fn stmt(&mut self, s: &Stmt, state: Option<State>) -> Option<State> {
        match s {
            Stmt::Eval(v) => {
                if let Inst::ReadVar(var) = self.func.inst(*v).inst {
                    if let Some(t) = self.tracked[var.index()] {
                        let seen = self.reads[v.index()].get_or_insert_with(Vec::new);
                        if let Some(st) = &state {
                            union_into(seen, &st[t as usize]);
                        }
                    }
                }
                state
            }
            Stmt::WriteVar(var, _) => {
                let Some(t) = self.tracked[var.index()] else {
                    return state;
                };
                let d = self.cursor;
                self.cursor += 1;
                if d < self.n_writes {
                    self.write_var[d] = *var;
                }
                state.map(|mut st| {
                    st[t as usize] = vec![d as u32];
                    st
                })
            }
            Stmt::If { then_, else_, .. } => {
                let t = self.block(then_, state.clone());
                let e = self.block(else_, state);
                join(t, e)
            }
            Stmt::Loop { body, continuing } => self.loop_(body, continuing, state),
            Stmt::Switch { cases, .. } => {
                self.frames.push(Frame::Switch { brk: None });
                let mut fall = None;
                for c in cases {
                    fall = self.block(&c.body, join(state.clone(), fall));
                }
                let brk = match self.frames.pop() {
                    Some(Frame::Switch { brk }) => brk,
                    _ => None,
                };
                let mut out = join(brk, fall);
                if !cases.iter().any(|c| c.is_default) {
                    out = join(out, state);
                }
                out
            }
            Stmt::Break => {
                match self.frames.last_mut() {
                    Some(Frame::Loop { brk, .. } | Frame::Switch { brk }) => {
                        *brk = join(brk.take(), state);
                    }
                    None => {}
                }
                None
            }
            Stmt::Continue => {
                let frame = self
                    .frames
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f, Frame::Loop { .. }));
                if let Some(Frame::Loop { cont, .. }) = frame {
                    *cont = join(cont.take(), state);
                }
                None
            }
            Stmt::Return(_) => None,
            Stmt::Store { .. } | Stmt::Copy { .. } | Stmt::Barrier(..) | Stmt::Fence(_) => state,
        }
    }

    /// A loop: the head's state is the entry's joined with the back edge's,
    /// iterated until it no longer grows; the result is what `break` carries
    /// out.
    fn loop_(&mut self, body: &Block, continuing: &Block, entry: Option<State>) -> Option<State> {
        let start = self.cursor;
        let mut head = entry;
        loop {
            self.cursor = start;
            self.frames.push(Frame::Loop {
                brk: None,
                cont: None,
            });
            let end = self.block(body, head.clone());
            let cont = match self.frames.last_mut() {
                Some(Frame::Loop { cont, .. }) => cont.take(),
                _ => None,
            };
            let back = self.block(continuing, join(end, cont));
            let (brk, cont) = match self.frames.pop() {
                Some(Frame::Loop { brk, cont }) => (brk, cont),
                _ => (None, None),
            };
            // A `continue` inside `continuing` starts the next iteration.
            let back = join(back, cont);
            let next = join(head.clone(), back);
            if next == head {
                return brk;
            }
            head = next;
        }
    }
}

fn count_writes(block: &Block, writes: &mut [u32]) {
    crate::transform::compact::walk_stmts(block, &mut |s| {
        if let Stmt::WriteVar(var, _) = s {
            if let Some(n) = writes.get_mut(var.index()) {
                *n += 1;
            }
        }
    });
}

/// `block` with the writes of tracked variables sent to their web's
/// variable, numbered in the same statement order as [`Reaching`].
fn rename_writes(block: Block, tracked: &[Option<u32>], to: &[VarId], cursor: &mut usize) -> Block {
    let rename = |b: Block, cursor: &mut usize| rename_writes(b, tracked, to, cursor);
    Block(
        block
            .0
            .into_iter()
            .map(|s| match s {
                Stmt::WriteVar(var, v) if tracked[var.index()].is_some() => {
                    let d = *cursor;
                    *cursor += 1;
                    Stmt::WriteVar(to.get(d).copied().unwrap_or(var), v)
                }
                Stmt::If { cond, then_, else_ } => {
                    let then_ = rename(then_, cursor);
                    let else_ = rename(else_, cursor);
                    Stmt::If { cond, then_, else_ }
                }
                Stmt::Loop { body, continuing } => {
                    let body = rename(body, cursor);
                    let continuing = rename(continuing, cursor);
                    Stmt::Loop { body, continuing }
                }
                Stmt::Switch { selector, cases } => Stmt::Switch {
                    selector,
                    cases: cases
                        .into_iter()
                        .map(|c| SwitchCase {
                            body: rename(c.body, cursor),
                            ..c
                        })
                        .collect(),
                },
                other => other,
            })
            .collect(),
    )
}

/// Disjoint sets of definitions.
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind((0..n).collect())
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[rb] = ra;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::uniformity::{analyze, Shape};
    use crate::text::{parse_module, print_module};

    /// Splits the webs of the module's only function; returns the count and
    /// the module printed afterwards.
    fn split(src: &str) -> (usize, Module, String) {
        let mut m = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
        let added = split_webs(&mut m.functions[0]);
        crate::verify::verify_module(&m)
            .unwrap_or_else(|e| panic!("{}", crate::verify::format_errors(&e)));
        let text = print_module(&m);
        (added, m, text)
    }

    /// `i` walks the work-item's elements, then is reused as the uniform
    /// stride of a loop with a barrier (the conformance suite's
    /// `compute_sum`).
    const REUSED: &str = "
kernel @k(n: u64) args [\"ulong\" private] {
  var $0 i: u64
  %0: u64 = param 0
  %1: u32 = const 0
  %2: u64 = work_item local_id %1
  %3: u64 = work_item local_size %1
  write $0, %2
  loop {
    %4: u64 = read $0
    %5: bool = cmp ge %4, %0
    if %5 {
      break
    }
  } continuing {
    %6: u64 = read $0
    %7: u64 = add %6, %3
    write $0, %7
  }
  %8: u64 = const 1
  %9: u64 = shr %3, %8
  write $0, %9
  loop {
    %10: u64 = read $0
    %11: u64 = const 0
    %12: bool = cmp eq %10, %11
    if %12 {
      break
    }
    barrier local at 1:1
  } continuing {
    %13: u64 = read $0
    %14: u64 = shr %13, %8
    write $0, %14
  }
}
";

    #[test]
    fn a_reused_variable_gets_one_variable_per_web() {
        let (added, m, text) = split(REUSED);
        assert_eq!(added, 1, "{text}");
        assert!(text.contains("var $1 i: u64"), "{text}");
        // The first loop keeps $0, the second loop's writes and reads use $1.
        assert!(text.contains("%4: u64 = read $0"), "{text}");
        assert!(text.contains("%6: u64 = read $0"), "{text}");
        assert!(text.contains("write $0, %7"), "{text}");
        assert!(text.contains("write $1, %9"), "{text}");
        assert!(text.contains("%10: u64 = read $1"), "{text}");
        assert!(text.contains("%13: u64 = read $1"), "{text}");
        assert!(text.contains("write $1, %14"), "{text}");
        let f = &m.functions[0];
        let u = analyze(&m, f);
        assert_eq!(u.shape(ValueId(10)), Shape::Uniform);
        assert_eq!(
            u.shape(ValueId(12)),
            Shape::Uniform,
            "the barrier loop's exit"
        );
        assert_ne!(u.shape(ValueId(4)), Shape::Uniform);
    }

    #[test]
    fn values_that_meet_at_a_read_share_a_variable() {
        // x = 0; if (lid < n) x = 1; loop { read x; if (…) break; x = x + 1 }
        let src = "
kernel @k(n: u64) args [\"ulong\" private] {
  var $0 x: u64
  %0: u64 = param 0
  %1: u32 = const 0
  %2: u64 = work_item local_id %1
  %3: u64 = const 0
  write $0, %3
  %4: bool = cmp lt %2, %0
  if %4 {
    %5: u64 = const 1
    write $0, %5
  }
  loop {
    %6: u64 = read $0
    %7: bool = cmp ge %6, %0
    if %7 {
      break
    }
    %8: u64 = const 1
    %9: u64 = add %6, %8
    write $0, %9
  }
  %10: u64 = read $0
}
";
        let (added, _, text) = split(src);
        assert_eq!(added, 0, "{text}");
    }

    #[test]
    fn break_continue_and_switch_fallthrough_carry_their_writes() {
        // Each later read is reached by writes on several paths: through a
        // `continue` to the continuing block, through a `break` out of a
        // switch case, through fall-through into the next case.
        let src = "
kernel @k(n: u32) args [\"uint\" private] {
  var $0 x: u32
  var $1 y: u32
  %0: u32 = param 0
  %1: u32 = const 1
  %2: u32 = const 2
  loop {
    %3: bool = cmp eq %0, %1
    if %3 {
      write $0, %2
      continue
    }
    write $0, %1
  } continuing {
    %4: u32 = read $0
    %8: bool = cmp eq %4, %2
    if %8 {
      break
    }
  }
  switch %0 {
    case 1 {
      write $1, %1
    }
    case 2 {
      %5: u32 = read $1
      break
    }
    default {
      write $1, %2
    }
  }
  %6: u32 = read $1
  write $1, %1
  %7: u32 = read $1
}
";
        let (added, _, text) = split(src);
        // x: both writes reach %4, one web. y: the entry value and case 1's
        // write (falling through) reach %5; they and the default's write
        // reach %6; the last write is a web of its own.
        assert_eq!(added, 1, "{text}");
        assert!(text.contains("%4: u32 = read $0"), "{text}");
        assert!(text.contains("%5: u32 = read $1"), "{text}");
        assert!(text.contains("write $1, %2"), "{text}");
        assert!(text.contains("%6: u32 = read $1"), "{text}");
        assert!(text.contains("write $2, %1\n  %7: u32 = read $2"), "{text}");
    }

    #[test]
    fn a_kernel_without_reused_variables_is_unchanged() {
        let src = "
kernel @k(n: u32) args [\"uint\" private] {
  var $0 x: u32
  %0: u32 = param 0
  write $0, %0
  %1: u32 = read $0
}
";
        let m0 = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
        let (added, m, _) = split(src);
        assert_eq!(added, 0);
        assert_eq!(m, m0);
    }
}

//! Variable writes that need no blend under divergence.
//!
//! Under a varying `if` or a divergent loop, a write to a varying variable
//! is normally a blend: the lanes that are not running keep their old value,
//! which they may read later. That costs three vector instructions per piece
//! and keeps the old value alive (a loop-carried register for a temporary
//! declared in a loop body, such as `float t` in an iteration step).
//!
//! A write needs no blend when no lane that skips it can read the variable
//! afterwards: every access of the variable lies in one block (an `if` arm,
//! a loop body, a `switch` case), and the write is the first statement of
//! that block, at its top level, to touch the variable. A lane reading the
//! variable is then running in that block and has passed the write in the
//! same pass through it (a `continue`d lane comes back through the write in
//! the next iteration; a lane that left by `break` or `return` never reads it
//! again). The lanes not running at the write may get any value.

use std::collections::{HashMap, HashSet};
use vecl_ir::{Block, Function, Inst, Stmt, ValueId, VarId};

/// The `(variable, value)` pairs of the `WriteVar` statements of `func`
/// that may be plain writes even under divergence.
pub(crate) fn unblended_writes(func: &Function) -> HashSet<(VarId, ValueId)> {
    let mut total = HashMap::new();
    count(func, &func.body.0, &mut total);
    let mut pairs: HashMap<(VarId, ValueId), u32> = HashMap::new();
    count_pairs(&func.body.0, &mut pairs);
    let mut out = HashSet::new();
    visit(func, &func.body, &total, &mut out);
    // A pair written at two places is decided by neither.
    out.retain(|p| pairs.get(p) == Some(&1));
    out
}

/// The variables all of whose accesses lie in `stmts` (one barrier
/// region) and that every work-item writes there before it reads them:
/// dead where the region starts and where it ends (a region is always
/// entered at its start), so they are never saved to or reloaded from the
/// context area. A temporary such as the result of `c ? a : b`, written in
/// both arms of an `if` and read after it, is one. `total` is
/// [`access_counts`] over the whole body (counted once for all of a
/// kernel's regions).
pub(crate) fn region_local_vars(
    func: &Function,
    stmts: &[Stmt],
    total: &HashMap<VarId, u32>,
) -> HashSet<VarId> {
    let mut inside = HashMap::new();
    count(func, stmts, &mut inside);
    let mut exposed = HashSet::new();
    let mut written = HashSet::new();
    exposed_reads(func, stmts, &mut written, &mut exposed);
    inside
        .into_iter()
        .filter(|(x, n)| total.get(x) == Some(n) && !exposed.contains(x))
        .map(|(x, _)| x)
        .collect()
}

/// The variables `stmts` read or write, nested blocks included.
pub(crate) fn touched_vars(func: &Function, stmts: &[Stmt]) -> Vec<VarId> {
    let mut n = HashMap::new();
    count(func, stmts, &mut n);
    let mut vars: Vec<VarId> = n.into_keys().collect();
    vars.sort_by_key(|v| v.0);
    vars
}

/// Whether `stmts` (a barrier region's, run with every lane of the chunk)
/// start with an unconditional write of `var`: the first statement to
/// touch it is a write at their top level. The value saved by an earlier
/// region is then dead there and need not be reloaded.
pub(crate) fn overwritten_first(func: &Function, stmts: &[Stmt], var: VarId) -> bool {
    first_write(func, stmts, var).is_some()
}

/// The value written by the first statement of `stmts` to touch `var`,
/// when that statement is a write at their top level.
fn first_write(func: &Function, stmts: &[Stmt], var: VarId) -> Option<ValueId> {
    for s in stmts {
        if let Stmt::WriteVar(x, v) = s {
            if *x == var {
                return Some(*v);
            }
            continue;
        }
        let mut touched = HashMap::new();
        count(func, std::slice::from_ref(s), &mut touched);
        if touched.contains_key(&var) {
            return None;
        }
    }
    None
}

/// Adds to `exposed` the variables `stmts` may read before writing them,
/// given `written`, the variables written on every path so far (updated to
/// those written on every path through `stmts`). Per work-item: a lane
/// masked off at a write does not read the variable unless its own path
/// wrote it, which is what the blends of the vector code keep.
fn exposed_reads(
    func: &Function,
    stmts: &[Stmt],
    written: &mut HashSet<VarId>,
    exposed: &mut HashSet<VarId>,
) {
    for s in stmts {
        match s {
            Stmt::Eval(v) => {
                if let Inst::ReadVar(x) = func.inst(*v).inst {
                    if !written.contains(&x) {
                        exposed.insert(x);
                    }
                }
            }
            Stmt::WriteVar(x, _) => {
                written.insert(*x);
            }
            Stmt::If { then_, else_, .. } => {
                let mut t = written.clone();
                exposed_reads(func, &then_.0, &mut t, exposed);
                let mut e = written.clone();
                exposed_reads(func, &else_.0, &mut e, exposed);
                written.extend(t.intersection(&e).copied().collect::<Vec<_>>());
            }
            // A loop may leave before any write of its body, `continue`
            // reaches the `continuing` block from anywhere in the body, and
            // a `switch` may take any case: only what was written before
            // them counts in them and after them.
            Stmt::Loop { body, continuing } => {
                exposed_reads(func, &body.0, &mut written.clone(), exposed);
                exposed_reads(func, &continuing.0, &mut written.clone(), exposed);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    let mut w = written.clone();
                    exposed_reads(func, &c.body.0, &mut w, exposed);
                }
            }
            _ => {}
        }
    }
}

/// How many times each variable is read or written in `stmts`, nested
/// blocks included.
pub(crate) fn access_counts(func: &Function, stmts: &[Stmt]) -> HashMap<VarId, u32> {
    let mut out = HashMap::new();
    count(func, stmts, &mut out);
    out
}

/// Reads and writes of each variable in `stmts`, nested blocks included.
fn count(func: &Function, stmts: &[Stmt], out: &mut HashMap<VarId, u32>) {
    for s in stmts {
        match s {
            Stmt::Eval(v) => {
                if let Inst::ReadVar(x) = func.inst(*v).inst {
                    *out.entry(x).or_default() += 1;
                }
            }
            Stmt::WriteVar(x, _) => *out.entry(*x).or_default() += 1,
            _ => {}
        }
        for b in nested(s) {
            count(func, &b.0, out);
        }
    }
}

fn count_pairs(stmts: &[Stmt], out: &mut HashMap<(VarId, ValueId), u32>) {
    for s in stmts {
        if let Stmt::WriteVar(x, v) = s {
            *out.entry((*x, *v)).or_default() += 1;
        }
        for b in nested(s) {
            count_pairs(&b.0, out);
        }
    }
}

/// The blocks a statement holds.
fn nested(s: &Stmt) -> Vec<&Block> {
    match s {
        Stmt::If { then_, else_, .. } => vec![then_, else_],
        Stmt::Loop { body, continuing } => vec![body, continuing],
        Stmt::Switch { cases, .. } => cases.iter().map(|c| &c.body).collect(),
        _ => Vec::new(),
    }
}

fn visit(
    func: &Function,
    block: &Block,
    total: &HashMap<VarId, u32>,
    out: &mut HashSet<(VarId, ValueId)>,
) {
    let mut inside = HashMap::new();
    count(func, &block.0, &mut inside);
    let mut seen = HashSet::new();
    // Writes at this block's top level so far, per variable.
    let mut top_writes: HashMap<VarId, u32> = HashMap::new();
    for s in &block.0 {
        if let Stmt::WriteVar(x, v) = s {
            if seen.insert(*x) && inside.get(x) == total.get(x) {
                out.insert((*x, *v));
            }
            *top_writes.entry(*x).or_default() += 1;
            continue;
        }
        if let Stmt::Loop { body, .. } = s {
            loop_carried(func, s, body, &top_writes, total, out);
        }
        // The third rule: an `if` both of whose arms start by writing a
        // variable first touched here (`c ? x[i] : 0`). Every lane that reads
        // it afterwards ran the `if` and one of the writes; the `then` write
        // may clobber the other lanes, as the `else` write (a blend) sets
        // the `else` lanes and the rest never read it.
        if let Stmt::If { then_, else_, .. } = s {
            let mut here = HashMap::new();
            count(func, std::slice::from_ref(s), &mut here);
            for x in here.keys() {
                if seen.contains(x) || inside.get(x) != total.get(x) {
                    continue;
                }
                if let (Some(v), Some(_)) = (
                    first_write(func, &then_.0, *x),
                    first_write(func, &else_.0, *x),
                ) {
                    out.insert((*x, v));
                }
            }
        }
        let mut touched = HashMap::new();
        count(func, std::slice::from_ref(s), &mut touched);
        seen.extend(touched.into_keys());
        for b in nested(s) {
            visit(func, b, total, out);
        }
    }
}

/// The second rule, for a variable carried around a loop but dead after
/// it (the `zr` of an escape-time iteration): its accesses are the loop's
/// and writes at the top level of the enclosing block before the loop. A
/// write at the top level of the loop body, before any `continue` of the
/// loop, then needs no blend. Every lane still iterating passes it in each
/// iteration; a lane that left the loop reads the variable again only
/// after entering the loop anew, which passes a write before the loop
/// first; and lanes that are not running the loop at all pass such a
/// write before they read it too.
fn loop_carried(
    func: &Function,
    lp: &Stmt,
    body: &Block,
    top_writes: &HashMap<VarId, u32>,
    total: &HashMap<VarId, u32>,
    out: &mut HashSet<(VarId, ValueId)>,
) {
    let mut in_loop = HashMap::new();
    count(func, std::slice::from_ref(lp), &mut in_loop);
    for s in &body.0 {
        if continues(s) {
            break;
        }
        if let Stmt::WriteVar(x, v) = s {
            let before = top_writes.get(x).copied().unwrap_or(0);
            let inner = in_loop.get(x).copied().unwrap_or(0);
            if before > 0 && total.get(x) == Some(&(before + inner)) {
                out.insert((*x, *v));
            }
        }
    }
}

/// Whether a statement may `continue` the loop it is in (a `continue` in
/// a nested loop continues that loop).
fn continues(s: &Stmt) -> bool {
    match s {
        Stmt::Continue => true,
        Stmt::Loop { .. } => false,
        _ => nested(s).iter().any(|b| b.0.iter().any(continues)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sorted names of the variables `pick` returns for the kernel of
    /// the OpenCL C program `src`.
    fn names_of(src: &str, pick: impl Fn(&Function) -> Vec<VarId>) -> Vec<String> {
        let m = match vecl_clc::build(src, "") {
            Ok(b) => b.module,
            Err(e) => panic!("front end: {e}"),
        };
        let (_, f) = m.kernels().next().expect("a kernel");
        let mut names: Vec<String> = pick(f)
            .into_iter()
            .map(|x| f.vars[x.index()].name.clone())
            .collect();
        names.sort();
        names
    }

    /// The variables written without a blend, one entry per such write.
    fn unblended(src: &str) -> Vec<String> {
        names_of(src, |f| {
            unblended_writes(f).into_iter().map(|(x, _)| x).collect()
        })
    }

    #[test]
    fn loop_temporary_is_plain_and_carried_variable_is_blended() {
        let names = unblended(
            "kernel void k(global float* o, int n) {
                float x = o[get_global_id(0)];
                int i = 0;
                while (i < n && x < 100.0f) { float t = x * x; x = t + 1.0f; i++; }
                o[get_global_id(0)] = x;
            }",
        );
        assert!(names.contains(&"t".to_string()), "{names:?}");
        // `x` is read after the loop: only its first write, at the
        // kernel's top level, qualifies. `i` is dead after the loop: its
        // write in the body qualifies too (`loop_carried`).
        assert_eq!(names.iter().filter(|n| *n == "x").count(), 1, "{names:?}");
        assert_eq!(names.iter().filter(|n| *n == "i").count(), 2, "{names:?}");
    }

    #[test]
    fn loop_carried_variable_dead_after_the_loop_is_plain() {
        let names = unblended(
            "kernel void k(global int* o, int n) {
                int l = get_local_id(0);
                int a = 0;
                int b = 0;
                int c = 0;
                int d = 0;
                for (int r = 0; r < n; r++) {
                    int e = 0;
                    while (a < l) {
                        if (l == 3) continue;
                        a = a + 1;
                        d = d + 2;
                    }
                    while (b < l) { b = b + 1; c = c + b; }
                    while (d < l) d = d + 1;
                    while (e < l) e = e + 1;
                    o[r] = c;
                }
            }",
        );
        let count = |v: &str| names.iter().filter(|n| *n == v).count();
        // Only the top-level writes before the loops qualify for `a`
        // (written after a `continue`), `b` (its loop-top write is never
        // redone before the next `for` iteration re-enters the loop), `c`
        // (read after its loop) and `d` (read by a later loop); `e` is
        // written again before each entry of its loop.
        assert_eq!(count("a"), 1, "{names:?}");
        assert_eq!(count("b"), 1, "{names:?}");
        assert_eq!(count("c"), 1, "{names:?}");
        assert_eq!(count("d"), 1, "{names:?}");
        assert_eq!(count("e"), 2, "{names:?}");
    }

    #[test]
    fn write_in_an_arm_of_a_variable_read_after_it_is_blended() {
        let names = unblended(
            "kernel void k(global int* o) {
                int l = get_local_id(0);
                if (l < 3) { int u = l * 2; o[l] = u; }
                for (int j = 0; j < 4; j++) {
                    int v = l + j;
                    if (l > j) v = 0;
                    o[l + j] = v;
                }
            }",
        );
        assert!(names.contains(&"u".to_string()), "{names:?}");
        // `v`: the write at the top of the body qualifies, the one in the
        // `if` does not (lanes that skip it read the first value).
        assert_eq!(names.iter().filter(|n| *n == "v").count(), 1, "{names:?}");
    }

    #[test]
    fn both_arms_writing_first_make_the_then_write_plain() {
        // `c ? x[i] : 0` becomes an `if` writing a temporary in both arms:
        // its `then` write qualifies, its `else` write does not.
        let src = "kernel @k(out: ptr global i32) {
  var $0 t: i32
  var $1 u: i32
  %0: ptr global i32 = param 0
  %1: u32 = const 0
  %2: u64 = work_item global_id %1
  %3: u64 = const 3
  %4: bool = cmp lt %2, %3
  %5: i32 = const 7
  %6: i32 = const 8
  if %4 {
    write $0, %5
  } else {
    write $0, %6
  }
  %7: i32 = read $0
  write $1, %5
  if %4 {
    write $1, %6
  } else {
    write $1, %5
  }
  %8: i32 = read $1
  %9: i32 = add %7, %8
  store %0, %9
}
";
        let m = match vecl_ir::text::parse_module(src) {
            Ok(m) => m,
            Err(e) => panic!("parse: {e:?}"),
        };
        let (_, f) = m.kernels().next().expect("a kernel");
        let plain = unblended_writes(f);
        let t = VarId(0);
        let u = VarId(1);
        let five = ValueId(5);
        let six = ValueId(6);
        assert!(plain.contains(&(t, five)), "{plain:?}");
        assert!(!plain.contains(&(t, six)), "{plain:?}");
        // `u` is written before the `if`: the first write qualifies (the
        // first rule), neither arm's does.
        assert!(!plain.contains(&(u, six)), "{plain:?}");
    }

    /// The variables `region_local_vars` finds in the whole body (taken
    /// as one region).
    fn local_vars(src: &str) -> Vec<String> {
        names_of(src, |f| {
            region_local_vars(f, &f.body.0, &access_counts(f, &f.body.0))
                .into_iter()
                .collect()
        })
    }

    #[test]
    fn written_on_every_path_before_any_read_is_region_local() {
        let names = local_vars(
            "kernel void k(global int* o, int n) {
                int l = get_local_id(0);
                int t;
                if (l < n) t = l; else t = n;
                o[l] = t;
                int x;
                for (int j = 0; j < n; j++) { if (j > 2) x = j; o[j] = x; }
                int y;
                for (int j = 0; j < n; j += y) { if (l == j) continue; y = 1; }
            }",
        );
        // The front end writes every declared variable where it is
        // declared, so all of these are region-local.
        for v in ["t", "l", "x", "y"] {
            assert!(names.contains(&v.to_string()), "{v}: {names:?}");
        }
    }

    #[test]
    fn read_before_a_write_on_some_path_is_not_region_local() {
        // $0 is read after an `if` that writes it in one arm only; $1 is
        // read by `continuing`, which a `continue` reaches before the
        // body's write; $2 is written in both arms before its read.
        let src = "kernel @k(out: ptr global i32) {
  var $0 x: i32
  var $1 y: i32
  var $2 t: i32
  %0: ptr global i32 = param 0
  %1: u32 = const 0
  %2: u64 = work_item global_id %1
  %3: u64 = const 3
  %4: bool = cmp lt %2, %3
  %5: i32 = const 7
  if %4 {
    write $0, %5
    write $2, %5
  } else {
    write $2, %5
  }
  %6: i32 = read $0
  %7: i32 = read $2
  loop {
    if %4 {
      continue
    }
    write $1, %5
    break
  } continuing {
    %8: i32 = read $1
  }
  store %0, %6
}
";
        let m = match vecl_ir::text::parse_module(src) {
            Ok(m) => m,
            Err(e) => panic!("parse: {e:?}"),
        };
        let (_, f) = m.kernels().next().expect("a kernel");
        let local = region_local_vars(f, &f.body.0, &access_counts(f, &f.body.0));
        let named = |n: &str| {
            f.vars
                .iter()
                .position(|v| v.name == n)
                .map(|i| VarId(i as u32))
        };
        assert!(!local.contains(&named("x").expect("x")), "{local:?}");
        assert!(!local.contains(&named("y").expect("y")), "{local:?}");
        assert!(local.contains(&named("t").expect("t")), "{local:?}");
    }
}

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
    for s in &block.0 {
        if let Stmt::WriteVar(x, v) = s {
            if seen.insert(*x) && inside.get(x) == total.get(x) {
                out.insert((*x, *v));
            }
            continue;
        }
        let mut touched = HashMap::new();
        count(func, std::slice::from_ref(s), &mut touched);
        seen.extend(touched.into_keys());
        for b in nested(s) {
            visit(func, b, total, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the variables written without a blend in kernel `k`
    /// of `src`, one entry per such write.
    fn unblended(src: &str) -> Vec<String> {
        let m = match vecl_clc::build(src, "") {
            Ok(b) => b.module,
            Err(e) => panic!("front end: {e}"),
        };
        let (_, f) = m.kernels().next().expect("a kernel");
        let mut names: Vec<String> = unblended_writes(f)
            .into_iter()
            .map(|(x, _)| f.vars[x.index()].name.clone())
            .collect();
        names.sort();
        names
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
        // `x` and `i` are read after the loop: only their first writes,
        // at the kernel's top level, qualify.
        assert_eq!(names.iter().filter(|n| *n == "x").count(), 1, "{names:?}");
        assert_eq!(names.iter().filter(|n| *n == "i").count(), 1, "{names:?}");
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
}

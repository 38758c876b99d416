//! Variables local to one loop: writes inside the loop that need no mask.
//!
//! The wide code writes a variable under the running lanes (merge
//! masking), so that a lane that does not run the write keeps its old
//! value for a later read. In a loop that is a loop-carried mask on every
//! write: nbody's `j++` is `vpaddd j{k}, j, one` under the loop's mask,
//! measured at about one cycle of a 14-cycle trip against the unmasked add
//! (`docs/wide.md`, "nbody's loop").
//!
//! A variable is *local to a loop* when every access of it in the kernel
//! lies in one stretch of a block: a write of it at the block's top level,
//! then statements that do not touch it, then the loop (the counter `j`
//! of `for (int j = 0; j < n; j++)`: `j = 0`, then the loop). A lane that
//! reads the variable is then inside the loop, and came into it through
//! that write; a lane outside the loop's current lanes (never entered
//! this time, or left it by `break`, by `return` or by failing its test)
//! reads the variable again only after passing that write once more. So a
//! write inside the loop made under exactly the loop's lanes of the trip
//! (`lower`: the mask of the write is the loop's own mask, nothing has
//! narrowed it in this trip) may write every lane: the lanes it adds
//! are ones no read will see. A write under a narrower mask (an `if`
//! inside the loop, after a `break` or `continue` in the trip) keeps its
//! mask, as does any write of a variable read after the loop or before
//! its first write (mandelbrot's `i`, counted and stored after the loop;
//! `acc` of nbody and matmul).
//!
//! What the lanes outside the loop get is whatever the unmasked operation
//! computes from their own lanes: no fault can come of it (every load,
//! store and gather of the body stays under its own mask; integer
//! division does not trap), and no store or masked write uses them.

use crate::lower::fresh_writes::access_counts;
use std::collections::{HashMap, HashSet};
use vecl_ir::{Function, Stmt, VarId};

/// The variables local to the loop `stmts[at]` (see the module's
/// documentation), given `total`, the accesses of each variable in the
/// whole kernel ([`access_counts`] of its body): each is written at the
/// top level of `stmts` before `at`, every access of it in the kernel lies
/// in the loop or in that write, and nothing between them touches it.
/// Empty when `stmts[at]` is not a loop.
pub(crate) fn loop_local_vars(
    func: &Function,
    stmts: &[Stmt],
    at: usize,
    total: &HashMap<VarId, u32>,
) -> HashSet<VarId> {
    let mut out = HashSet::new();
    let Some(Stmt::Loop { .. }) = stmts.get(at) else {
        return out;
    };
    let inside = access_counts(func, std::slice::from_ref(&stmts[at]));
    // The variables touched between a candidate's write and the loop.
    let mut between: HashSet<VarId> = HashSet::new();
    for s in stmts[..at].iter().rev() {
        if let Stmt::WriteVar(x, _) = s {
            let n = inside.get(x).copied().unwrap_or(0);
            if n > 0 && !between.contains(x) && total.get(x) == Some(&(n + 1)) {
                out.insert(*x);
            }
        }
        between.extend(access_counts(func, std::slice::from_ref(s)).into_keys());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(src: &str) -> Function {
        let m = vecl_clc::build(src, "").expect("builds").module;
        let (_, f) = m.kernels().next().expect("a kernel");
        f.clone()
    }

    /// The local variables of each loop at the top level of the body, by
    /// name, in order.
    fn locals(src: &str) -> Vec<Vec<String>> {
        let f = kernel(src);
        let total = access_counts(&f, &f.body.0);
        let mut out = Vec::new();
        for (i, s) in f.body.0.iter().enumerate() {
            if let Stmt::Loop { .. } = s {
                let mut names: Vec<String> = loop_local_vars(&f, &f.body.0, i, &total)
                    .into_iter()
                    .map(|v| f.vars[v.index()].name.clone())
                    .collect();
                names.sort();
                out.push(names);
            }
        }
        out
    }

    #[test]
    fn a_for_counter_is_local_to_its_loop() {
        let l = locals(
            "kernel void k(global float* a, int n) {
                 float s = 0.0f;
                 for (int j = 0; j < n; j++) { s += a[j]; }
                 a[get_global_id(0)] = s;
             }",
        );
        // `n`'s variable (the parameter's, written once at the top and
        // read only in the loop) is local too.
        assert!(l[0].contains(&"j".to_string()), "{l:?}");
        assert!(!l[0].contains(&"s".to_string()), "{l:?}");
    }

    #[test]
    fn a_counter_read_after_its_loop_is_not() {
        let l = locals(
            "kernel void k(global int* a, int n) {
                 int i = 0;
                 for (; i < n; i++) { if (a[i] < 0) break; }
                 a[get_global_id(0)] = i;
             }",
        );
        assert!(!l[0].contains(&"i".to_string()), "{l:?}");
    }

    #[test]
    fn a_counter_read_between_its_write_and_the_loop_is_not() {
        let l = locals(
            "kernel void k(global int* a, int n) {
                 int i = n / 2;
                 a[get_global_id(0) + 1] = i;
                 for (; i < n; i++) { a[i] += 1; }
             }",
        );
        assert_eq!(l.len(), 1);
        assert!(!l[0].contains(&"i".to_string()), "{l:?}");
    }
}

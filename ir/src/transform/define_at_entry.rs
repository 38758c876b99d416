//! Gives every variable a rewrite added (inlined callees' variables,
//! their results and exit flags, the leaves of replaced aggregates) one
//! definition, `undef`, at the top of the kernel's body.
//!
//! Such a variable is often first written inside a loop (a callee inlined
//! into a loop, or the loop a callee with early returns became) and read
//! there before (the old value a masked write blends with).
//! With no definition above the loops, Cranelift's SSA construction finds
//! it undefined on every path in, materialises a fresh zero on each and
//! keeps a block parameter for it at every loop header on the way: with
//! hundreds of inlined calls and leaves that is hundreds of thousands of
//! constants and parameters. One definition at the entry makes all those
//! parameters trivial, and Cranelift removes them. The value read is the
//! same (`undef` is lowered as zero, as an undefined variable reads).

use crate::*;
use std::collections::HashMap;

/// Writes `undef` to every variable from `first` on at the top of `f`'s
/// body; returns how many.
pub fn define_at_entry(f: &mut Function, first: usize) -> usize {
    if f.vars.len() <= first {
        return 0;
    }
    let mut undef_of: HashMap<Type, ValueId> = HashMap::new();
    let mut top = Vec::new();
    for i in first..f.vars.len() {
        let ty = f.vars[i].ty.clone();
        let u = *undef_of.entry(ty.clone()).or_insert_with(|| {
            let v = ValueId(f.insts.len() as u32);
            f.insts.push(InstData {
                inst: Inst::Undef,
                ty,
                loc: Loc::NONE,
            });
            top.push(Stmt::Eval(v));
            v
        });
        top.push(Stmt::WriteVar(VarId(i as u32), u));
    }
    top.append(&mut f.body.0);
    f.body.0 = top;
    f.vars.len() - first
}

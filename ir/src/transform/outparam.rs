//! `sincos(x, p)` through a private pointer split into `sin(x)`, `cos(x)`
//! and a store of the cosine through `p`, so that [`super::sra`] can make
//! the private variable behind `p` a register variable.
//!
//! Why: `float c, s = sincos(x, &c);` (the twiddles of an FFT) keeps `c`
//! in private memory, since its address escapes to the builtin; a code
//! generator vectorising across work-items then writes every lane's
//! cosine with a store per lane and reads it back with a load per lane at
//! each use. After the split the only uses of `&c` are a store and loads,
//! which [`super::sra`] turns into a variable. The interpreter computes
//! `sincos` as `sin` and `cos` of the argument (each in `f64`, rounded
//! once), and the JIT's `sincos` gives the bits of its `sin` and `cos`,
//! so the split changes no result; the JIT's lowering computes a `sin`
//! and a `cos` of the same argument, one after the other, by one
//! `sincos` again.
//!
//! Only `float` and `double` results (`half` ones were widened to `float`
//! by [`super::half`] before) whose pointer is a private pointer to the
//! result's own type; everything else is left as it is.

use crate::builtin::Builtin;
use crate::module::*;
use crate::types::*;

/// Splits every `sincos` of `f` that qualifies (see the module
/// documentation); returns how many.
pub fn split_sincos(f: &mut Function) -> usize {
    let mut body = std::mem::take(&mut f.body);
    let n = split_block(f, &mut body);
    f.body = body;
    n
}

fn split_block(f: &mut Function, block: &mut Block) -> usize {
    let mut n = 0;
    let mut out = Vec::with_capacity(block.0.len());
    for mut stmt in std::mem::take(&mut block.0) {
        match &mut stmt {
            Stmt::If { then_, else_, .. } => {
                n += split_block(f, then_) + split_block(f, else_);
            }
            Stmt::Loop { body, continuing } => {
                n += split_block(f, body) + split_block(f, continuing);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    n += split_block(f, &mut c.body);
                }
            }
            _ => {}
        }
        let split = match stmt {
            Stmt::Eval(v) => split_one(f, v),
            _ => None,
        };
        out.push(stmt);
        if let Some((cos, ptr, loc)) = split {
            out.push(Stmt::Eval(cos));
            out.push(Stmt::Store {
                ptr,
                value: cos,
                loc,
            });
            n += 1;
        }
    }
    block.0 = out;
    n
}

/// Rewrites `v = sincos(x, p)` into `v = sin(x)` when it qualifies;
/// returns the new `cos(x)`, `p` and the location for the store.
fn split_one(f: &mut Function, v: ValueId) -> Option<(ValueId, ValueId, Loc)> {
    let data = f.inst(v);
    let Inst::Builtin(Builtin::Sincos, args) = &data.inst else {
        return None;
    };
    let [x, p] = args[..] else {
        return None;
    };
    let ty = data.ty.clone();
    let loc = data.loc;
    if !matches!(ty.scalar(), Some(Scalar::F32 | Scalar::F64)) {
        return None;
    }
    let pty = f.ty(p);
    if pty.address_space() != Some(AddressSpace::Private) || pty.pointee() != Some(&ty) {
        return None;
    }
    let cos = ValueId(f.insts.len() as u32);
    f.insts.push(InstData {
        inst: Inst::Builtin(Builtin::Cos, vec![x]),
        ty,
        loc,
    });
    f.insts[v.index()].inst = Inst::Builtin(Builtin::Sin, vec![x]);
    Some((cos, p, loc))
}

#[cfg(test)]
mod tests {
    use super::super::run_on_text;

    fn split(src: &str) -> (usize, String) {
        run_on_text(src, super::split_sincos)
    }

    #[test]
    fn a_private_cosine_becomes_a_store_of_cos() {
        let (n, out) = split(
            "kernel @k(out: ptr global f32) {\n\
             slot &0 c: f32\n\
             %0: ptr global f32 = param 0\n\
             %1: f32 = const 0.5\n\
             %2: ptr private f32 = addr &0\n\
             %3: f32 = builtin sincos(%1, %2)\n\
             %4: f32 = load %2\n\
             %5: f32 = add %3, %4\n\
             store %0, %5\n\
             }\n",
        );
        assert_eq!(n, 1, "{out}");
        assert!(out.contains("builtin sin(%1)"), "{out}");
        assert!(out.contains("builtin cos(%1)"), "{out}");
        assert!(!out.contains("sincos"), "{out}");
    }

    #[test]
    fn other_pointers_and_types_stay() {
        // A global pointer: no private variable to gain.
        let (n, out) = split(
            "kernel @k(out: ptr global f32) {\n\
             %0: ptr global f32 = param 0\n\
             %1: f32 = const 0.5\n\
             %2: f32 = builtin sincos(%1, %0)\n\
             store %0, %2\n\
             }\n",
        );
        assert_eq!(n, 0, "{out}");
        assert!(out.contains("builtin sincos(%1, %0)"), "{out}");
    }
}

//! Each vector math routine a kernel uses, emitted once as its own function.
//!
//! The bodies of [`super::vmath`] run to hundreds of CLIF instructions, and
//! inlining of OpenCL functions multiplies call sites; expanding them at
//! every site made compile time grow with the number of calls (Black-Scholes:
//! 5,682 instructions, ~100 ms). Instead, the first use of a routine on a
//! shape (`exp` on `f32x4` pieces, `pow` on uniform `f32`, …) declares a
//! `Linkage::Local` function in the kernel's `JITModule`, builds and defines
//! its body right away, and every use calls it. The `FuncRef` is remembered
//! in the kernel's import table under the routine's symbol, so a kernel
//! compiles each routine at most once per shape; the module is the kernel's
//! own, so the routine is finalized together with the kernel.
//!
//! The routines take and return the pieces themselves in the host's default
//! calling convention (System V on x86-64 passes `f32x4`/`i32x4` in XMM
//! registers); the test at the end checks that a vector round-trips.

use super::super::{FunctionCx, LResult};
use super::vmath::MathCx;
use cranelift_codegen::ir::{
    types, AbiParam, FuncRef, InstBuilder, MemFlagsData, Signature, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{Linkage, Module as _};

/// Symbol of routine `name` on argument types `params`.
fn symbol(name: &str, params: &[types::Type]) -> String {
    let mut s = format!("vecl_vmath_{name}");
    for t in params {
        s.push('_');
        s.push_str(&t.to_string());
    }
    s
}

impl FunctionCx<'_, '_> {
    /// The routine computing `name` on arguments of types `params`
    /// (`f32x4`/`i32x4` pieces or `f32`/`i32` scalars; the result is the
    /// matching float type), defined on first use.
    pub(super) fn math_routine(&mut self, name: &str, params: &[types::Type]) -> LResult<FuncRef> {
        self.define_math_routine(name, params, None)
    }

    /// The routine computing `name` on `pieces` pieces at once (argument
    /// types `params`, all vectors), defined on first use: the body once
    /// per piece, straight-line. It takes two addresses: the arguments,
    /// argument by argument and piece by piece (16 bytes each), and where
    /// to write the `pieces` results (`sincos`: the sines, then the
    /// cosines). A chunk's
    /// pieces then cost one call instead of one each: every vector live
    /// across a call is saved and restored around it (System V keeps no
    /// XMM register), so Black-Scholes at W = 16 paid that four times per
    /// `exp`.
    pub(super) fn math_routine_pieces(
        &mut self,
        name: &str,
        params: &[types::Type],
        pieces: u32,
    ) -> LResult<FuncRef> {
        self.define_math_routine(name, params, Some(pieces))
    }

    fn define_math_routine(
        &mut self,
        name: &str,
        params: &[types::Type],
        pieces: Option<u32>,
    ) -> LResult<FuncRef> {
        let mut sym = symbol(name, params);
        if let Some(n) = pieces {
            sym.push_str(&format!("_x{n}"));
        }
        if let Some(f) = self.cache.imported(&sym) {
            return Ok(f);
        }
        let piece = params.first().is_some_and(|t| t.is_vector());
        // Double routines (`vmath::SIMD_F64`) take and return `f64x2`/`f64`.
        let double = params.first().is_some_and(|t| t.lane_type() == types::F64);
        let ret = match (piece, double) {
            (true, false) => types::F32X4,
            (false, false) => types::F32,
            (true, true) => types::F64X2,
            (false, true) => types::F64,
        };
        let lane = ret.lane_type();
        // `sincos` has two results: the sine, then the cosine.
        let results = if name == "sincos" { 2 } else { 1 };
        let mut sig = Signature::new(self.jit.isa().default_call_conv());
        if pieces.is_some() {
            sig.params.push(AbiParam::new(types::I64));
            sig.params.push(AbiParam::new(types::I64));
        } else {
            sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
            sig.returns
                .extend(std::iter::repeat_n(AbiParam::new(ret), results));
        }
        let id = self
            .jit
            .declare_function(&sym, Linkage::Local, &sig)
            .map_err(|e| self.internal(format!("declaring {sym}: {e}")))?;
        let mut ctx = self.jit.make_context();
        ctx.func.signature = sig;
        // sin, cos and tan recompute huge arguments with the exact routine
        // (sincos with those of sin and cos).
        let exact_names: &[&str] = match name {
            "sin" | "cos" | "tan" => &[name],
            "sincos" => &["sin", "cos"],
            _ => &[],
        };
        let mut exact = Vec::with_capacity(exact_names.len());
        for f in exact_names {
            let mut s = Signature::new(self.jit.isa().default_call_conv());
            s.params.push(AbiParam::new(lane));
            s.returns.push(AbiParam::new(lane));
            let lib = format!("vecl_{f}{}", if double { "" } else { "f" });
            let lid = self
                .jit
                .declare_function(&lib, Linkage::Import, &s)
                .map_err(|e| self.internal(format!("declaring {lib}: {e}")))?;
            exact.push(self.jit.declare_func_in_func(lid, &mut ctx.func));
        }
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let entry_params = b.block_params(entry).to_vec();
        let flags = self.kernel.module().math;
        let relaxed =
            flags.fast_relaxed_math && piece && !double && super::vmath::relaxed_form(name);
        let (has_fma, finite) = (
            self.kernel.has_fma(),
            flags.fast_relaxed_math || flags.finite_math_only,
        );
        let x86 = self.jit.isa().triple().architecture == target_lexicon::Architecture::X86_64;
        let emit = |b: &mut FunctionBuilder, args: &[Value]| -> Vec<Value> {
            let mut m = MathCx {
                b,
                has_fma,
                relaxed,
                finite,
                x86,
            };
            if double {
                vec![m.routine_f64(name, args[0], exact.first().copied())]
            } else if name == "sincos" {
                let (s, c) = m.routine_sincos(args[0], piece, &exact);
                vec![s, c]
            } else {
                vec![m.routine(name, args, piece, exact.first().copied())]
            }
        };
        match pieces {
            None => {
                let r = emit(&mut b, &entry_params);
                b.ins().return_(&r);
            }
            Some(n) => {
                // The pieces one after another, straight-line rather than
                // in a loop (Black-Scholes over 4M options on one thread:
                // ~33.6 → ~30.5 ms).
                let trusted = MemFlagsData::trusted();
                for i in 0..n {
                    let args: Vec<Value> = params
                        .iter()
                        .enumerate()
                        .map(|(a, t)| {
                            let at = ((a as u32 * n + i) * 16) as i32;
                            b.ins().load(*t, trusted, entry_params[0], at)
                        })
                        .collect();
                    // Result j of piece i at (j·n + i)·16.
                    for (j, r) in emit(&mut b, &args).into_iter().enumerate() {
                        let at = ((j as u32 * n + i) * 16) as i32;
                        b.ins().store(trusted, r, entry_params[1], at);
                    }
                }
                b.ins().return_(&[]);
            }
        }
        b.finalize(self.jit.isa().frontend_config());
        let insts = ctx.func.dfg.num_insts();
        match self.jit.define_function(id, &mut ctx) {
            // Defined by an earlier lowering of the same kernel into this
            // module (one dropped for its prefetches, `define_kernel_function`):
            // the same name is the same routine.
            Ok(_) | Err(cranelift_module::ModuleError::DuplicateDefinition(_)) => {}
            Err(e) => return Err(self.internal(format!("compiling {sym}: {e:?}"))),
        }
        self.stats.notes.push(format!(
            "math routine {name}({}){}{} emitted once: {insts} CLIF instructions",
            params
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            pieces
                .map(|n| format!(" on {n} pieces per call"))
                .unwrap_or_default(),
            if relaxed { ", relaxed form," } else { "" }
        ));
        let fref = self.jit.declare_func_in_func(id, self.b.func);
        self.cache.import(sym, fref);
        Ok(fref)
    }
}

#[cfg(test)]
mod tests {
    //! The calling convention the routines rely on: a local function taking
    //! and returning 128-bit vectors, called from another function of the
    //! same module.

    use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, UserFuncName};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
    use cranelift_jit::{JITBuilder, JITModule};
    use cranelift_module::{default_libcall_names, Linkage, Module};

    /// `callee(a: f32x4, n: i32x4) -> f32x4 = a * 2 + float(n)`, and
    /// `caller(p: *mut [f32; 4], q: *const [i32; 4])` storing
    /// `callee(*p, *q)` back to `p`.
    #[test]
    fn vectors_pass_through_local_calls() {
        let builder = JITBuilder::with_flags(&[("opt_level", "speed")], default_libcall_names())
            .expect("host ISA");
        let mut jit = JITModule::new(builder);
        let cc = jit.isa().default_call_conv();
        let config = jit.isa().frontend_config();
        let mut callee_sig = Signature::new(cc);
        callee_sig.params.push(AbiParam::new(types::F32X4));
        callee_sig.params.push(AbiParam::new(types::I32X4));
        callee_sig.returns.push(AbiParam::new(types::F32X4));
        let callee = jit
            .declare_function("callee", Linkage::Local, &callee_sig)
            .expect("declare callee");
        let mut caller_sig = Signature::new(cc);
        caller_sig.params.push(AbiParam::new(types::I64));
        caller_sig.params.push(AbiParam::new(types::I64));
        let caller = jit
            .declare_function("caller", Linkage::Local, &caller_sig)
            .expect("declare caller");

        let mut fctx = FunctionBuilderContext::new();
        let mut ctx = jit.make_context();
        ctx.func.signature = callee_sig;
        ctx.func.name = UserFuncName::user(0, callee.as_u32());
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let e = b.create_block();
            b.append_block_params_for_function_params(e);
            b.switch_to_block(e);
            b.seal_block(e);
            let p = b.block_params(e).to_vec();
            let two = b.ins().f32const(2.0);
            let two = b.ins().splat(types::F32X4, two);
            let d = b.ins().fmul(p[0], two);
            let n = b.ins().fcvt_from_sint(types::F32X4, p[1]);
            let r = b.ins().fadd(d, n);
            b.ins().return_(&[r]);
            b.finalize(config);
        }
        jit.define_function(callee, &mut ctx)
            .expect("define callee");

        let mut ctx = jit.make_context();
        ctx.func.signature = caller_sig;
        ctx.func.name = UserFuncName::user(0, caller.as_u32());
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let fref = jit.declare_func_in_func(callee, b.func);
            let e = b.create_block();
            b.append_block_params_for_function_params(e);
            b.switch_to_block(e);
            b.seal_block(e);
            let p = b.block_params(e).to_vec();
            let flags = cranelift_codegen::ir::MemFlagsData::new();
            let a = b.ins().load(types::F32X4, flags, p[0], 0);
            let n = b.ins().load(types::I32X4, flags, p[1], 0);
            let call = b.ins().call(fref, &[a, n]);
            let r = b.inst_results(call)[0];
            b.ins().store(flags, r, p[0], 0);
            b.ins().return_(&[]);
            b.finalize(config);
        }
        jit.define_function(caller, &mut ctx)
            .expect("define caller");
        jit.finalize_definitions().expect("finalize");
        let code = jit.get_finalized_function(caller);
        // SAFETY: `caller` was defined above with two pointer parameters and no result.
        let f =
            unsafe { std::mem::transmute::<*const u8, extern "C" fn(*mut f32, *const i32)>(code) };
        let mut x: [f32; 4] = [1.0, -2.5, 3.25, 0.0];
        let n: [i32; 4] = [10, 20, -30, 7];
        f(x.as_mut_ptr(), n.as_ptr());
        assert_eq!(x, [12.0, 15.0, -23.5, 7.0]);
    }
}

//! One kernel function defined in a JIT module: lowered to Cranelift IR,
//! cleaned (`lower::fold`), compiled, its machine code patched where the
//! lowering marked it (non-temporal stores, `lower::stream`; prefetch
//! placeholders, `lower::prefetch`) and placed; and its entry once the
//! module is finalized.

use crate::kernel::EntryFn;
use crate::{lower, JitError, JitOptions, Prefetch};
use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _, ModuleReloc};

/// One kernel function defined in a JIT module, before finalisation.
pub(crate) struct DefinedFunction {
    pub(crate) id: cranelift_module::FuncId,
    pub(crate) lowered: lower::chunks::Lowered,
    pub(crate) clif: Option<String>,
    pub(crate) clif_insts: usize,
    pub(crate) folded: usize,
    pub(crate) unparams: usize,
    pub(crate) code_bytes: usize,
    pub(crate) vcode: Option<String>,
    /// Bytes of the stack frame its prologue sets up (`crate::frame`).
    pub(crate) frame_bytes: usize,
}

/// Lowers `input` into a function named `name` of `jit`, compiles it
/// (its marked stores made non-temporal, `lower::stream`) and defines it.
pub(crate) fn define_kernel_function(
    jit: &mut JITModule,
    fctx: &mut FunctionBuilderContext,
    kernel: &str,
    name: &str,
    input: lower::chunks::KernelInput<'_>,
    opts: &JitOptions,
    dump_clif: bool,
) -> Result<DefinedFunction, JitError> {
    let without_prefetch = lower::chunks::KernelInput {
        prefetch: false,
        ..input.clone()
    };
    let lowered = lower_kernel_function(jit, fctx, kernel, name, input, dump_clif)?;
    define_lowered(
        jit,
        fctx,
        kernel,
        name,
        lowered,
        without_prefetch,
        opts,
        dump_clif,
    )
}

/// Compiles and defines a function [`lower_kernel_function`] lowered from
/// an input like `without_prefetch` (which it is lowered again from when
/// the compiled code's prefetch placeholders cannot all be patched).
pub(crate) fn define_lowered(
    jit: &mut JITModule,
    fctx: &mut FunctionBuilderContext,
    kernel: &str,
    name: &str,
    lowered: LoweredFunction,
    without_prefetch: lower::chunks::KernelInput<'_>,
    opts: &JitOptions,
    dump_clif: bool,
) -> Result<DefinedFunction, JitError> {
    if let Some(f) = compile_lowered(jit, kernel, lowered, opts)? {
        return Ok(f);
    }
    // Not every prefetch placeholder could be patched: lowered again
    // without them, as an unpatched one would load ahead of the chunk.
    let again = lower_kernel_function(jit, fctx, kernel, name, without_prefetch, dump_clif)?;
    compile_lowered(jit, kernel, again, opts)?.ok_or_else(|| JitError::Codegen {
        kernel: kernel.to_string(),
        message: "prefetch placeholders left in a kernel lowered without prefetches".into(),
    })
}

/// A kernel function lowered to Cranelift IR and declared in a JIT
/// module, not compiled yet.
pub(crate) struct LoweredFunction {
    id: cranelift_module::FuncId,
    ctx: Context,
    pub(crate) lowered: lower::chunks::Lowered,
    pub(crate) clif: Option<String>,
    pub(crate) clif_insts: usize,
    pub(crate) folded: usize,
    pub(crate) unparams: usize,
}

/// Lowers `input` into a function named `name`, declared in `jit` but not
/// compiled: what the lowering tells about the kernel, for a kernel whose
/// Cranelift code may never be needed (the wide code's fallback, compiled
/// when a launch needs it). Nothing is defined under `name`.
pub(crate) fn lower_kernel_function(
    jit: &mut JITModule,
    fctx: &mut FunctionBuilderContext,
    kernel: &str,
    name: &str,
    input: lower::chunks::KernelInput<'_>,
    dump_clif: bool,
) -> Result<LoweredFunction, JitError> {
    let codegen = |message: String| JitError::Codegen {
        kernel: kernel.to_string(),
        message,
    };
    let mut ctx: Context = jit.make_context();
    let ptr = types::I64;
    for _ in 0..6 {
        ctx.func.signature.params.push(AbiParam::new(ptr));
    }
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let id = jit
        .declare_function(name, Linkage::Local, &ctx.func.signature)
        .map_err(|e| codegen(e.to_string()))?;
    let lowered = lower::chunks::lower_kernel(jit, &mut ctx.func, fctx, input)?;
    // Branches whose outcome is known and block parameters that carry
    // one value only are removed before Cranelift sees them (`lower::fold`).
    let folded = lower::fold::fold_known_branches(&mut ctx.func);
    let unparams = lower::fold::remove_redundant_params(&mut ctx.func)
        + lower::fold::remove_dead_params(&mut ctx.func);
    let clif = dump_clif.then(|| ctx.func.display().to_string());
    let clif_insts = ctx.func.dfg.num_insts();
    Ok(LoweredFunction {
        id,
        ctx,
        lowered,
        clif,
        clif_insts,
        folded,
        unparams,
    })
}

/// Compiles and defines `f`; `None` when the prefetch placeholders of the
/// compiled code could not all be patched (`lower::prefetch`), in which
/// case nothing was defined.
fn compile_lowered(
    jit: &mut JITModule,
    kernel: &str,
    f: LoweredFunction,
    opts: &JitOptions,
) -> Result<Option<DefinedFunction>, JitError> {
    let codegen = |message: String| JitError::Codegen {
        kernel: kernel.to_string(),
        message,
    };
    let LoweredFunction {
        id,
        mut ctx,
        lowered,
        clif,
        clif_insts,
        folded,
        unparams,
    } = f;
    ctx.set_disasm(opts.disasm);
    // Compiled here rather than by `define_function` so that the marked
    // stores can become non-temporal ones (`lower::stream`) before the
    // code is placed.
    ctx.compile(jit.isa(), &mut Default::default())
        .map_err(|e| codegen(format!("{:?}", e.inner)))?;
    let compiled = ctx
        .compiled_code()
        .ok_or_else(|| codegen("no compiled code".into()))?;
    let mut bytes = compiled.code_buffer().to_vec();
    // The code ranges of the instructions marked with `tag`.
    let marked_ranges = |tag| {
        compiled
            .buffer
            .get_srclocs_sorted()
            .iter()
            .filter(move |s| s.loc == tag)
            .map(|s| (s.start as usize, s.end as usize))
    };
    lower::stream::patch_stores(
        &mut bytes,
        marked_ranges(lower::stream::stream_tag()),
        lower::stream::marked_stores(&ctx.func),
    );
    let ranges = marked_ranges(lower::prefetch::prefetch_tag());
    let expected = lower::prefetch::marked_prefetches(&ctx.func);
    let refused = expected > 0 && opts.prefetch == Prefetch::RefusePatch;
    if refused || !lower::prefetch::patch_prefetches(&mut bytes, ranges, expected) {
        ctx.clear();
        return Ok(None);
    }
    let relocs: Vec<ModuleReloc> = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
        .collect();
    let align = u64::from(compiled.buffer.alignment);
    let vcode = compiled.vcode.clone();
    jit.define_function_bytes(id, align, &bytes, &relocs)
        .map_err(|e| codegen(format!("{e:?}")))?;
    Ok(Some(DefinedFunction {
        id,
        lowered,
        clif,
        clif_insts,
        folded,
        unparams,
        code_bytes: bytes.len(),
        vcode,
        frame_bytes: crate::frame::prologue_frame_bytes(&bytes),
    }))
}

/// The entry of `f` once `jit` is finalized. With [`JitOptions::disasm`], its
/// machine code after register allocation goes to standard error and its
/// bytes to a file named by their load address, for matching profiler
/// samples to instructions (`objdump -D -b binary -mi386:x86-64
/// --adjust-vma=ADDR`).
pub(crate) fn finalized_entry(jit: &JITModule, kernel: &str, f: &DefinedFunction) -> EntryFn {
    let code = jit.get_finalized_function(f.id);
    if let Some(vcode) = &f.vcode {
        eprintln!("machine code of {kernel}:\n{vcode}");
        // SAFETY: `code` points at the `code_bytes` bytes just finalized.
        let bytes = unsafe { std::slice::from_raw_parts(code, f.code_bytes) };
        let path = std::env::temp_dir().join(format!("vecl-jit-{kernel}-{:x}.bin", code as usize));
        let _ = std::fs::write(&path, bytes);
        eprintln!("machine code of {kernel} written to {}", path.display());
    }
    // SAFETY: `code` is a finalized function declared with the signature
    // of `EntryFn`.
    unsafe { std::mem::transmute::<*const u8, EntryFn>(code) }
}

//! The one seam between programs and the kernel compiler (`vecl-jit`):
//! one kernel of a module in, runnable code and its report out.

use std::sync::Arc;
use vecl_ir::Module;
use vecl_runtime::KernelCode;

/// How kernels are compiled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Work-items per SIMD chunk; `None` lets the compiler choose.
    pub simd_width: Option<u32>,
    /// Checked mode (bounds, races, divergent barriers).
    pub checked: bool,
    /// Keep the Cranelift IR in the report.
    pub dump_clif: bool,
}

/// A compiled kernel and the report of how it was vectorised.
pub struct Compiled {
    /// The runnable code.
    pub code: Arc<dyn KernelCode>,
    /// The vectorisation report (and the Cranelift IR when asked for).
    pub explain: String,
}

/// Compiles kernel `name` of `module`, its module-scope data in `data`
/// when given (one block for every kernel of a program); the error is the
/// compiler's message.
pub fn compile_kernel(
    module: &Module,
    name: &str,
    options: &CompileOptions,
    data: Option<Arc<vecl_jit::ModuleData>>,
) -> Result<Compiled, String> {
    let jit = vecl_jit::JitOptions {
        simd_width: options.simd_width,
        checked: options.checked,
        dump_clif: options.dump_clif,
        tiers: None,
        stream_min_items: None,
        prefetch: None,
    };
    let kernel =
        vecl_jit::compile_kernel_in(module, name, &jit, data).map_err(|e| e.to_string())?;
    let mut explain = kernel.explain().to_string();
    if let Some(clif) = kernel.clif() {
        explain.push('\n');
        explain.push_str(clif);
    }
    Ok(Compiled {
        code: Arc::new(kernel),
        explain,
    })
}

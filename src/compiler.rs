//! The one seam between programs and the kernel compiler (`vecl-jit`):
//! one kernel of a module in, runnable code and its report out.
//!
//! The JIT's `compile_kernel` is not part of the workspace yet, so this
//! build reports every kernel as not compilable; programs still run the
//! front end, so their diagnostics and IR are real. Only this function
//! changes when the JIT lands.

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

/// Compiles kernel `name` of `module`; the error is the compiler's message.
pub fn compile_kernel(
    _module: &Module,
    name: &str,
    _options: &CompileOptions,
) -> Result<Compiled, String> {
    Err(format!(
        "kernel `{name}`: the kernel compiler (vecl-jit) is not available in this build"
    ))
}

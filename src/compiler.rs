//! The one seam between programs and the kernel compiler (`vecl-jit`):
//! one kernel of a module in, runnable code and its report out.

use std::sync::{Arc, OnceLock};
use vecl_ir::Module;
use vecl_runtime::KernelCode;

/// What compiled kernels check about their memory accesses, weakest first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Safety {
    /// No checks: an access outside what the launch owns touches whatever
    /// memory is there. Only reachable through `unsafe` opt-outs
    /// ([`crate::ProgramBuilder::unchecked`]) and the C driver's default.
    Unchecked,
    /// Robust buffer access (the safe API's default): no access of a kernel
    /// touches memory outside the buffers, `__local` arena, private memory
    /// and program data its launch owns; one that would stops the command
    /// with an error naming kernel, work-item, address, argument and line.
    #[default]
    Robust,
    /// Checked mode: robust access, and the debugging checks that cost
    /// more (see `docs/checked.md`).
    Checked,
}

/// How kernels are compiled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Work-items per SIMD chunk; `None` lets the compiler choose.
    pub simd_width: Option<u32>,
    /// What the code checks.
    pub safety: Safety,
    /// Keep the Cranelift IR in the report.
    pub dump_clif: bool,
}

/// A compiled kernel and the report of how it was vectorised.
pub struct Compiled {
    /// The runnable code.
    pub code: Arc<dyn KernelCode>,
    /// The vectorisation report (and the Cranelift IR when asked for).
    pub explain: Explain,
}

/// A kernel's vectorisation report, made at its first request: a kernel
/// that got the wide code without being lowered to CLIF is lowered then
/// (`vecl_jit::CompiledKernel::explain`), so that a build nobody asks the
/// report of does not pay for it.
pub struct Explain {
    kernel: Arc<vecl_jit::CompiledKernel>,
    text: OnceLock<String>,
}

impl Explain {
    /// The report (and the Cranelift IR when the build asked for it).
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| {
            let mut explain = self.kernel.explain().to_string();
            if let Some(clif) = self.kernel.clif() {
                explain.push('\n');
                explain.push_str(clif);
            }
            explain
        })
    }
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
        checked: options.safety >= Safety::Robust,
        local_checks: options.safety >= Safety::Checked,
        dump_clif: options.dump_clif,
        ..crate::Config::global().jit_options()
    };
    let kernel =
        vecl_jit::compile_kernel_in(module, name, &jit, data).map_err(|e| e.to_string())?;
    let kernel = Arc::new(kernel);
    Ok(Compiled {
        code: kernel.clone(),
        explain: Explain {
            kernel,
            text: OnceLock::new(),
        },
    })
}

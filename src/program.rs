//! [`Program`]: OpenCL C source built into compiled kernels.
//!
//! A build runs the front end (`vecl_clc::build`) and then JIT-compiles every
//! kernel of the module (`vecl_jit::compile_kernel`, through [`crate::compiler`]), so a program that
//! built can create any of its kernels; a front-end or JIT failure is
//! [`Error::BuildProgramFailure`] carrying the log. The module is kept for
//! `--dump-ir` and for binaries (the private `binary` module).
//!
//! `compile` + `link` are supported the cheap way: a compiled object keeps
//! its (checked) source, and linking builds the concatenation of the
//! objects' sources as one translation unit.

use crate::binary;
use crate::compiler::{self, CompileOptions};
use crate::context::Context;
use crate::kernel::{Kernel, KernelEntry};
use std::collections::BTreeMap;
use std::sync::Arc;
use vecl_clc::BuildError;
use vecl_ir::Module;
use vecl_runtime::{Error, LaunchRules, Result};

/// A built program.
#[derive(Clone)]
pub struct Program {
    inner: Arc<ProgramInner>,
}

struct ProgramInner {
    source: Option<String>,
    options: String,
    module: Module,
    log: String,
    kernels: BTreeMap<String, Arc<KernelEntry>>,
    explain: BTreeMap<String, String>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("kernels", &self.kernel_names())
            .finish()
    }
}

/// How to build a program: options and JIT choices.
#[derive(Clone, Debug)]
pub struct ProgramBuilder {
    source: String,
    options: String,
    headers: Vec<(String, String)>,
    jit: CompileOptions,
}

/// A compiled but unlinked program (`clCompileProgram`).
#[derive(Clone, Debug)]
pub struct CompiledObject {
    source: String,
    options: String,
    log: String,
}

impl CompiledObject {
    /// The compiler's warnings.
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The options it was compiled with.
    pub fn options(&self) -> &str {
        &self.options
    }
}

/// JIT options from the environment: `VECL_SIMD_WIDTH`, `VECL_CHECKED`.
fn jit_options_from_env() -> CompileOptions {
    let simd_width = std::env::var("VECL_SIMD_WIDTH")
        .ok()
        .and_then(|v| v.trim().parse().ok());
    let checked = std::env::var("VECL_CHECKED").is_ok_and(|v| v != "0" && !v.is_empty());
    CompileOptions {
        simd_width,
        checked,
        dump_clif: false,
    }
}

fn front_end_error(e: BuildError) -> Error {
    match e {
        BuildError::InvalidOptions(msg) => Error::InvalidBuildOptions(msg),
        BuildError::Failed { log } => Error::BuildProgramFailure { log },
    }
}

/// Launch rules that follow from the build options: OpenCL C 2.0 and later
/// allow non-uniform work-groups unless `-cl-uniform-work-group-size`.
fn base_rules(options: &str) -> LaunchRules {
    // The build that made the program has accepted these options.
    let o = vecl_clc::options::Options::parse(options).unwrap_or_default();
    LaunchRules {
        non_uniform_groups: o.cl_std >= 200 && !o.uniform_work_group_size,
        reqd_work_group_size: None,
    }
}

/// Whether every error of a build log is a function declared without a
/// definition: acceptable for `clCompileProgram`, where another object of
/// the link may define it.
fn only_missing_definitions(log: &str) -> bool {
    let mut errors = log.lines().filter(|l| l.contains("error:")).peekable();
    errors.peek().is_some() && errors.all(|l| l.contains("is declared but never defined"))
}

impl ProgramBuilder {
    pub(crate) fn new(_ctx: &Context, source: &str) -> ProgramBuilder {
        ProgramBuilder {
            source: source.to_string(),
            options: String::new(),
            headers: Vec::new(),
            jit: jit_options_from_env(),
        }
    }

    /// `clBuildProgram` options (`-D`, `-cl-std=`, `-cl-fast-relaxed-math`…).
    pub fn options(mut self, options: &str) -> Self {
        self.options = options.to_string();
        self
    }

    /// A header `#include "name"` finds.
    pub fn header(mut self, name: &str, text: &str) -> Self {
        self.headers.push((name.to_string(), text.to_string()));
        self
    }

    /// Forces the SIMD width (work-items per chunk) of every kernel.
    pub fn simd_width(mut self, width: u32) -> Self {
        self.jit.simd_width = Some(width);
        self
    }

    /// Compiles kernels in checked mode: every memory access is
    /// bounds-checked and an out-of-bounds one fails its command with
    /// `CL_OUT_OF_RESOURCES` instead of touching memory (the default comes
    /// from `VECL_CHECKED=1`).
    pub fn checked(mut self, checked: bool) -> Self {
        self.jit.checked = checked;
        self
    }

    /// Keeps each kernel's Cranelift IR (see [`Program::explain`]).
    pub fn dump_clif(mut self, dump: bool) -> Self {
        self.jit.dump_clif = dump;
        self
    }

    /// Builds the program: front end, then the JIT for every kernel.
    pub fn build(self) -> Result<Program> {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let built = vecl_clc::build_with_headers(&self.source, &self.options, &headers)
            .map_err(front_end_error)?;
        Program::from_module(
            Some(self.source),
            self.options,
            built.module,
            built.log,
            &self.jit,
        )
    }

    /// `clCompileProgram`: checks the source compiles; link later.
    pub fn compile(self) -> Result<CompiledObject> {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        match vecl_clc::build_with_headers(&self.source, &self.options, &headers) {
            Ok(built) => Ok(CompiledObject {
                source: self.source,
                options: self.options,
                log: built.log,
            }),
            Err(BuildError::InvalidOptions(msg)) => Err(Error::InvalidCompilerOptions(msg)),
            // A function defined in another object is resolved at link time.
            Err(BuildError::Failed { log }) if only_missing_definitions(&log) => {
                Ok(CompiledObject {
                    source: self.source,
                    options: self.options,
                    log: String::new(),
                })
            }
            Err(BuildError::Failed { log }) => Err(Error::CompileProgramFailure { log }),
        }
    }
}

impl Program {
    /// `clLinkProgram`: builds the objects' sources as one unit.
    pub fn link(_ctx: &Context, objects: &[CompiledObject], options: &str) -> Result<Program> {
        if objects.is_empty() {
            return Err(Error::InvalidValue("nothing to link".into()));
        }
        let source: String = objects.iter().map(|o| format!("{}\n", o.source)).collect();
        let compile_options = objects[0].options.clone();
        let all_options = format!("{compile_options} {options}");
        let built = vecl_clc::build(&source, all_options.trim()).map_err(|e| match e {
            BuildError::InvalidOptions(msg) => Error::InvalidLinkerOptions(msg),
            BuildError::Failed { log } => Error::LinkProgramFailure { log },
        })?;
        Program::from_module(
            Some(source),
            all_options.trim().to_string(),
            built.module,
            built.log,
            &jit_options_from_env(),
        )
        .map_err(|e| match e {
            Error::BuildProgramFailure { log } => Error::LinkProgramFailure { log },
            other => other,
        })
    }

    /// Rebuilds a program from [`Program::binary`] bytes.
    pub fn from_binary(_ctx: &Context, bytes: &[u8]) -> Result<Program> {
        let decoded = binary::decode(bytes)?;
        Program::from_module(
            decoded.source,
            decoded.options,
            decoded.module,
            String::new(),
            &jit_options_from_env(),
        )
    }

    /// JIT-compiles every kernel of `module`.
    fn from_module(
        source: Option<String>,
        options: String,
        module: Module,
        mut log: String,
        jit: &CompileOptions,
    ) -> Result<Program> {
        let rules = base_rules(&options);
        let mut kernels = BTreeMap::new();
        let mut explain = BTreeMap::new();
        for (_, function) in module.kernels() {
            let compiled = match compiler::compile_kernel(&module, &function.name, jit) {
                Ok(compiled) => compiled,
                Err(e) => {
                    if !log.is_empty() && !log.ends_with('\n') {
                        log.push('\n');
                    }
                    log.push_str(&format!("error: {e}\n"));
                    return Err(Error::BuildProgramFailure { log });
                }
            };
            let info = function.kernel.clone().unwrap_or_default();
            explain.insert(function.name.clone(), compiled.explain);
            let entry = KernelEntry {
                rules: LaunchRules {
                    reqd_work_group_size: info.reqd_work_group_size,
                    ..rules
                },
                info,
                param_names: function.params.iter().map(|p| p.name.clone()).collect(),
                param_types: function
                    .params
                    .iter()
                    .map(|p| {
                        let element = p.ty.pointee().unwrap_or(&p.ty);
                        (p.ty.clone(), u64::from(module.size_of(element)))
                    })
                    .collect(),
                code: compiled.code,
            };
            kernels.insert(function.name.clone(), Arc::new(entry));
        }
        Ok(Program {
            inner: Arc::new(ProgramInner {
                source,
                options,
                module,
                log,
                kernels,
                explain,
            }),
        })
    }

    /// `CL_PROGRAM_BUILD_LOG` (warnings of a successful build).
    pub fn build_log(&self) -> &str {
        &self.inner.log
    }

    /// `CL_PROGRAM_BUILD_OPTIONS`.
    pub fn options(&self) -> &str {
        &self.inner.options
    }

    /// `CL_PROGRAM_SOURCE` (absent for programs made from binaries without it).
    pub fn source(&self) -> Option<&str> {
        self.inner.source.as_deref()
    }

    /// `CL_PROGRAM_KERNEL_NAMES`, in name order.
    pub fn kernel_names(&self) -> Vec<String> {
        self.inner.kernels.keys().cloned().collect()
    }

    /// The Kernel IR of the program.
    pub fn module(&self) -> &Module {
        &self.inner.module
    }

    /// How the JIT vectorised `kernel` (and its CLIF when the build asked
    /// for it).
    pub fn explain(&self, kernel: &str) -> Option<&str> {
        self.inner.explain.get(kernel).map(String::as_str)
    }

    /// Blocks until every kernel of the program runs its final code: the
    /// JIT makes quick code first and swaps optimised code in when a
    /// background compilation finishes (`VECL_JIT_TIERS`). For timing the
    /// code itself; running kernels never needs it.
    pub fn wait_for_final_code(&self) {
        for entry in self.inner.kernels.values() {
            entry.code.wait_for_final_code();
        }
    }

    /// `clCreateKernel`.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let entry = self
            .inner
            .kernels
            .get(name)
            .ok_or_else(|| Error::InvalidKernelName(name.to_string()))?;
        Ok(Kernel::new(Arc::clone(entry)))
    }

    /// `clCreateKernelsInProgram`.
    pub fn kernels(&self) -> Vec<Kernel> {
        self.inner
            .kernels
            .values()
            .map(|e| Kernel::new(Arc::clone(e)))
            .collect()
    }

    /// `CL_PROGRAM_BINARIES`: bytes [`Program::from_binary`] accepts.
    pub fn binary(&self) -> Vec<u8> {
        binary::encode(
            self.inner.source.as_deref(),
            &self.inner.options,
            &self.inner.module,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_defers_missing_definitions_to_the_link() {
        let missing = "<source>:2:5: error: function 'f' is declared but never defined\n  f();\n1 error generated.\n";
        assert!(only_missing_definitions(missing));
        let other = format!("{missing}<source>:3:1: error: expected ';'\n");
        assert!(!only_missing_definitions(&other));
        assert!(!only_missing_definitions("1 warning generated.\n"));
    }

    #[test]
    fn cl_std_decides_non_uniform_groups() {
        assert!(!base_rules("").non_uniform_groups);
        assert!(!base_rules("-cl-std=CL1.2").non_uniform_groups);
        assert!(base_rules("-cl-std=CL2.0").non_uniform_groups);
        assert!(base_rules("-DX=1 -cl-std=CL3.0").non_uniform_groups);
        assert!(!base_rules("-cl-std=CL2.0 -cl-uniform-work-group-size").non_uniform_groups);
        assert!(base_rules("-cl-std=cl2.0 -D'S=a b'").non_uniform_groups);
    }
}

//! [`Program`]: OpenCL C source built into compiled kernels.
//!
//! A build runs the front end (`vecl_clc::build`) and then JIT-compiles every
//! kernel of the module (`vecl_jit::compile_kernel`, through [`crate::compiler`];
//! side by side where cores are free, `crate::kernel_builds`), so a program that
//! built can create any of its kernels; a front-end or JIT failure is
//! [`Error::BuildProgramFailure`] carrying the log. The module is kept for
//! `--dump-ir` and for binaries (the private `binary` module).
//!
//! `compile` + `link` work on IR: [`ProgramBuilder::compile`] runs the
//! front end with that unit's own options and headers and keeps its module
//! with the linkage of its functions and variables ([`vecl_ir::link::Unit`]);
//! [`Program::link`] merges the units' modules ([`vecl_ir::link::link`]),
//! applies the link options and JIT-compiles the result, and
//! [`CompiledObject::link_library`] merges them into a library that can be
//! linked again. Objects, libraries and programs all have binaries.

use crate::binary::{self, BinaryType, Contents};
use crate::compiler::{CompileOptions, Safety};
use crate::context::Context;
use crate::kernel::{Kernel, KernelEntry};
use std::collections::BTreeMap;
use std::sync::Arc;
use vecl_clc::BuildError;
use vecl_ir::link::{LinkError, Unit};
use vecl_ir::{AddressSpace, Module};
use vecl_runtime::device_limits::MAX_GLOBAL_VARIABLE_SIZE;
use vecl_runtime::{Error, LaunchRules, Result};

/// A built program.
#[derive(Clone)]
pub struct Program {
    inner: Arc<ProgramInner>,
}

struct ProgramInner {
    source: Option<String>,
    options: String,
    /// Whether kernels may run with non-uniform work-groups (the options
    /// of the units linked decide it).
    non_uniform_groups: bool,
    /// Bytes of the program-scope `__global` variables.
    global_variable_size: u64,
    module: Arc<Module>,
    log: String,
    kernels: BTreeMap<String, Arc<KernelEntry>>,
    explain: BTreeMap<String, crate::compiler::Explain>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("kernels", &self.kernel_names())
            .finish()
    }
}

/// What a program is built from.
#[derive(Clone, Debug)]
enum Input {
    /// OpenCL C source.
    Source,
    /// A SPIR-V module (`clCreateProgramWithIL`), with specialisation
    /// constants set by id.
    Il {
        words: Arc<Vec<u32>>,
        spec_constants: BTreeMap<u32, u64>,
    },
}

/// How to build a program: options and JIT choices.
#[derive(Clone, Debug)]
pub struct ProgramBuilder {
    input: Input,
    source: String,
    /// What diagnostics call the source (`vecl_clc::MAIN_SOURCE` unless set).
    source_name: Option<String>,
    options: String,
    headers: Vec<(String, String)>,
    jit: CompileOptions,
    /// The least safety `VECL_CHECKED` leaves (`Unchecked` when unset).
    env_safety: Safety,
}

/// A compiled object (`clCompileProgram`) or a library (`clLinkProgram
/// -create-library`): IR with linkage, not yet JIT-compiled. A binary of an
/// executable reads back as one too ([`CompiledObject::from_binary`]), to
/// be turned into a program by [`Program::link`].
#[derive(Clone, Debug)]
pub struct CompiledObject {
    binary_type: BinaryType,
    source: Option<String>,
    options: String,
    non_uniform_groups: bool,
    log: String,
    unit: Arc<Unit>,
}

impl CompiledObject {
    /// The compiler's (or linker's) warnings.
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The options it was compiled (or linked) with.
    pub fn options(&self) -> &str {
        &self.options
    }

    /// A compiled object, a library, or an executable read from a binary.
    pub fn binary_type(&self) -> BinaryType {
        self.binary_type
    }

    /// `CL_PROGRAM_BINARIES`: bytes [`CompiledObject::from_binary`] accepts.
    pub fn binary(&self) -> Vec<u8> {
        binary::encode(&Contents {
            binary_type: self.binary_type,
            options: self.options.clone(),
            non_uniform_groups: self.non_uniform_groups,
            source: self.source.clone(),
            unit: Unit::clone(&self.unit),
        })
    }

    /// Reads a binary of any type back ([`Error::InvalidBinary`] when it
    /// is not an intact vecl binary).
    pub fn from_binary(_ctx: &Context, bytes: &[u8]) -> Result<CompiledObject> {
        let c = binary::decode(bytes)?;
        Ok(CompiledObject {
            binary_type: c.binary_type,
            source: c.source,
            options: c.options,
            non_uniform_groups: c.non_uniform_groups,
            log: String::new(),
            unit: Arc::new(c.unit),
        })
    }

    /// `clLinkProgram -create-library`: merges objects and libraries into
    /// a library. Functions none of them defines may be defined by what the
    /// library is linked with later. `options` are link options.
    pub fn link_library(
        _ctx: &Context,
        objects: &[CompiledObject],
        options: &str,
    ) -> Result<CompiledObject> {
        let (unit, opts) = link_units(objects, options)?;
        if !opts.create_library {
            return Err(Error::InvalidLinkerOptions(
                "a library is linked with '-create-library'".into(),
            ));
        }
        Ok(CompiledObject {
            binary_type: BinaryType::Library,
            source: None,
            options: options.to_string(),
            non_uniform_groups: objects.iter().all(|o| o.non_uniform_groups),
            log: String::new(),
            unit: Arc::new(unit),
        })
    }
}

/// Parses link options and merges the objects' units; the link options'
/// math flags are added to the result's.
fn link_units(
    objects: &[CompiledObject],
    options: &str,
) -> Result<(Unit, vecl_clc::options::Options)> {
    let opts = vecl_clc::options::Options::parse_link(options).map_err(|e| match e {
        BuildError::InvalidOptions(msg) | BuildError::Failed { log: msg } => {
            Error::InvalidLinkerOptions(msg)
        }
    })?;
    if objects.is_empty() {
        return Err(Error::InvalidValue("nothing to link".into()));
    }
    let units: Vec<Unit> = objects.iter().map(|o| Unit::clone(&o.unit)).collect();
    let mut unit = vecl_ir::link::link(&units).map_err(link_failure)?;
    let (m, l) = (&mut unit.module.math, opts.math);
    m.mad_enable |= l.mad_enable;
    m.no_signed_zeros |= l.no_signed_zeros;
    m.unsafe_math |= l.unsafe_math;
    m.finite_math_only |= l.finite_math_only;
    m.fast_relaxed_math |= l.fast_relaxed_math;
    m.denorms_are_zero |= l.denorms_are_zero;
    Ok((unit, opts))
}

/// The build log of a failed link: one `error:` line per problem.
fn link_failure(errors: Vec<LinkError>) -> Error {
    let mut log: String = errors.iter().map(|e| format!("error: {e}\n")).collect();
    let n = errors.len();
    log.push_str(&format!(
        "{n} error{} generated.\n",
        if n == 1 { "" } else { "s" }
    ));
    Error::LinkProgramFailure { log }
}

/// What the log of an IL build that leaves functions undefined adds: a
/// module built on its own must define what it imports, and the usual
/// cause. OpenCL C follows C99, where a function declared `inline` without
/// `static` or `extern` is no external definition: clang emits none for it
/// when it does not inline the calls (at `-O0`), so the module imports it.
fn il_undefined_note(errors: &[LinkError]) -> String {
    let names: Vec<String> = errors
        .iter()
        .filter_map(|e| match e {
            LinkError::Undefined {
                kind: "function",
                name,
            } => Some(format!("'{name}'")),
            _ => None,
        })
        .collect();
    if names.is_empty() {
        return String::new();
    }
    format!(
        "note: the module imports {} without defining it: compile it (clCompileProgram) and \
         link it with a module that defines it; if the source declares it 'inline' without \
         'static', OpenCL C (as C99) gives no external definition: declare it 'static inline'\n",
        names.join(", ")
    )
}

/// JIT options from [`Config`](crate::Config): `VECL_SIMD_WIDTH`,
/// `VECL_CHECKED` (`1`: checked mode for every program, whatever the
/// program asks); robust access otherwise.
fn jit_options_from_env() -> CompileOptions {
    let config = crate::Config::global();
    CompileOptions {
        simd_width: config.simd_width,
        safety: if config.checked {
            Safety::Checked
        } else {
            Safety::Robust
        },
        dump_clif: false,
    }
}

/// `jit` with its safety raised to what the build or link `options` ask
/// for (`-cl-vecl-robust-access`, `-cl-vecl-checked`): an option can add
/// checks to a program, never take them away.
fn with_option_safety(
    mut jit: CompileOptions,
    options: &vecl_clc::options::Options,
) -> CompileOptions {
    let asked = if options.checked {
        Safety::Checked
    } else if options.robust_access {
        Safety::Robust
    } else {
        Safety::Unchecked
    };
    jit.safety = jit.safety.max(asked);
    jit
}

/// What `VECL_CHECKED` asks for, read from options made by
/// [`jit_options_from_env`].
fn env_safety(jit: &CompileOptions) -> Safety {
    match jit.safety {
        Safety::Checked => Safety::Checked,
        _ => Safety::Unchecked,
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

impl ProgramBuilder {
    pub(crate) fn new(_ctx: &Context, source: &str) -> ProgramBuilder {
        let jit = jit_options_from_env();
        ProgramBuilder {
            input: Input::Source,
            source: source.to_string(),
            source_name: None,
            options: String::new(),
            headers: Vec::new(),
            env_safety: env_safety(&jit),
            jit,
        }
    }

    /// A builder for a SPIR-V module (`clCreateProgramWithIL`): `words` in
    /// host byte order. Build options apply as to source (the math flags,
    /// `-cl-uniform-work-group-size`); `-D` and `-I` have nothing to act on.
    pub(crate) fn new_il(_ctx: &Context, words: &[u32]) -> ProgramBuilder {
        let jit = jit_options_from_env();
        ProgramBuilder {
            input: Input::Il {
                words: Arc::new(words.to_vec()),
                spec_constants: BTreeMap::new(),
            },
            source: String::new(),
            source_name: None,
            options: String::new(),
            headers: Vec::new(),
            env_safety: env_safety(&jit),
            jit,
        }
    }

    /// `clSetProgramSpecializationConstant`: the value (bit pattern,
    /// zero-extended) of the specialisation constant with `SpecId` `id`.
    /// Ignored for OpenCL C programs, which have none.
    pub fn spec_constant(mut self, id: u32, bits: u64) -> Self {
        if let Input::Il { spec_constants, .. } = &mut self.input {
            spec_constants.insert(id, bits);
        }
        self
    }

    /// `clBuildProgram` options (`-D`, `-cl-std=`, `-cl-fast-relaxed-math`…).
    pub fn options(mut self, options: &str) -> Self {
        self.options = options.to_string();
        self
    }

    /// The name build logs give the source (`kernel.cl:3:12: error: …`;
    /// `<source>` by default).
    pub fn source_name(mut self, name: &str) -> Self {
        self.source_name = Some(name.to_string());
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

    /// Compiles kernels in checked mode (robust access and the debugging
    /// checks of `docs/checked.md`); `false`
    /// goes back to the default, robust access. `VECL_CHECKED=1` or `-cl-vecl-checked`
    /// turn checked mode on whatever this says.
    pub fn checked(mut self, checked: bool) -> Self {
        self.jit.safety = if checked {
            Safety::Checked
        } else {
            Safety::Robust.max(self.env_safety)
        };
        self
    }

    /// Compiles kernels without robust buffer access: an access outside
    /// the memory its launch owns is not stopped.
    ///
    /// # Safety
    ///
    /// Every launch of the program's kernels must keep every memory access
    /// of every work-item inside the buffers, `__local` memory and private
    /// memory of that launch (as OpenCL requires of a kernel): an access
    /// outside reads or corrupts the host process's memory. `VECL_CHECKED=1`
    /// or a `-cl-vecl-*` option still turn the checks on.
    pub unsafe fn unchecked(mut self) -> Self {
        self.jit.safety = self.env_safety;
        self
    }

    /// What the kernels will check (before build options raise it).
    pub fn safety(&self) -> Safety {
        self.jit.safety
    }

    /// Keeps each kernel's Cranelift IR (see [`Program::explain`]).
    pub fn dump_clif(mut self, dump: bool) -> Self {
        self.jit.dump_clif = dump;
        self
    }

    /// Builds the program: front end, then the JIT for every kernel.
    pub fn build(self) -> Result<Program> {
        crate::warm_up::build_begun();
        if let Input::Il { .. } = self.input {
            let options = self.options.clone();
            // The IL front end has no options of its own to refuse; those
            // that do not parse add no checks.
            let parsed = vecl_clc::options::Options::parse(&options).unwrap_or_default();
            let jit = with_option_safety(self.jit.clone(), &parsed);
            let (unit, rules) = self.il_unit().map_err(front_end_error)?;
            let module = unit.executable().map_err(|e| {
                let note = il_undefined_note(&e);
                match link_failure(e) {
                    Error::LinkProgramFailure { log } => {
                        Error::BuildProgramFailure { log: log + &note }
                    }
                    other => other,
                }
            })?;
            return Program::from_module(
                None,
                options,
                rules.non_uniform_groups,
                module,
                String::new(),
                &jit,
            );
        }
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let name = self.source_name.as_deref().unwrap_or(vecl_clc::MAIN_SOURCE);
        let built = vecl_clc::build_named(name, &self.source, &self.options, &headers)
            .map_err(front_end_error)?;
        let non_uniform_groups = base_rules(&self.options).non_uniform_groups;
        // The front end has accepted these options.
        let parsed = vecl_clc::options::Options::parse(&self.options).unwrap_or_default();
        let jit = with_option_safety(self.jit.clone(), &parsed);
        Program::from_module(
            Some(self.source),
            self.options,
            non_uniform_groups,
            built.module,
            built.log,
            &jit,
        )
    }

    /// The SPIR-V front end's unit for an IL program, with the build
    /// options' math flags, and the launch rules the options give.
    fn il_unit(&self) -> std::result::Result<(Unit, LaunchRules), BuildError> {
        let Input::Il {
            words,
            spec_constants,
        } = &self.input
        else {
            return Err(BuildError::Failed {
                log: "error: not a SPIR-V program\n".into(),
            });
        };
        let opts = vecl_clc::options::Options::parse(&self.options)?;
        let spirv_opts = vecl_spirv::Options {
            spec_constants: spec_constants.iter().map(|(k, v)| (*k, *v)).collect(),
        };
        let mut unit =
            vecl_spirv::translate(words, &spirv_opts).map_err(|e| BuildError::Failed {
                log: format!("error: {e}\n"),
            })?;
        unit.module.math = opts.math;
        let rules = LaunchRules {
            non_uniform_groups: !opts.uniform_work_group_size,
            reqd_work_group_size: None,
        };
        Ok((unit, rules))
    }

    /// `clCompileProgram`: runs the front end on this unit alone, with its
    /// options and headers; [`Program::link`] links the result.
    pub fn compile(self) -> Result<CompiledObject> {
        if let Input::Il { .. } = self.input {
            let (unit, rules) = self.il_unit().map_err(|e| match e {
                BuildError::InvalidOptions(msg) => Error::InvalidCompilerOptions(msg),
                BuildError::Failed { log } => Error::CompileProgramFailure { log },
            })?;
            return Ok(CompiledObject {
                binary_type: BinaryType::CompiledObject,
                non_uniform_groups: rules.non_uniform_groups,
                source: None,
                options: self.options,
                log: String::new(),
                unit: Arc::new(unit),
            });
        }
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let compiled =
            vecl_clc::compile_unit(&self.source, &self.options, &headers).map_err(|e| match e {
                BuildError::InvalidOptions(msg) => Error::InvalidCompilerOptions(msg),
                BuildError::Failed { log } => Error::CompileProgramFailure { log },
            })?;
        Ok(CompiledObject {
            binary_type: BinaryType::CompiledObject,
            non_uniform_groups: base_rules(&self.options).non_uniform_groups,
            source: Some(self.source),
            options: self.options,
            log: compiled.log,
            unit: Arc::new(compiled.unit),
        })
    }
}

impl Program {
    /// Builds a program from a SPIR-V module (`words` in host byte order)
    /// with default options: `ctx.program_il(words).build()`.
    pub fn from_spirv(ctx: &Context, words: &[u32]) -> Result<Program> {
        ProgramBuilder::new_il(ctx, words).build()
    }

    /// `clLinkProgram`: merges compiled objects and libraries (or the
    /// executable of a binary) and JIT-compiles the result. `options` are
    /// link options (`-cl-fast-relaxed-math`…); a function called but
    /// defined nowhere, or defined twice, is
    /// [`Error::LinkProgramFailure`] with a log naming it.
    /// The kernels have robust buffer access (see
    /// [`ProgramBuilder::unchecked`] for what that means).
    pub fn link(ctx: &Context, objects: &[CompiledObject], options: &str) -> Result<Program> {
        Program::link_with(ctx, objects, options, jit_options_from_env())
    }

    /// [`Program::link`] without robust buffer access unless `options` or
    /// `VECL_CHECKED` ask for it.
    ///
    /// # Safety
    ///
    /// As for [`ProgramBuilder::unchecked`]: every launch must keep every
    /// access inside the memory it owns.
    pub unsafe fn link_unchecked(
        ctx: &Context,
        objects: &[CompiledObject],
        options: &str,
    ) -> Result<Program> {
        let mut jit = jit_options_from_env();
        jit.safety = env_safety(&jit);
        Program::link_with(ctx, objects, options, jit)
    }

    fn link_with(
        _ctx: &Context,
        objects: &[CompiledObject],
        options: &str,
        jit: CompileOptions,
    ) -> Result<Program> {
        let (unit, opts) = link_units(objects, options)?;
        let mut jit = with_option_safety(jit, &opts);
        // An object compiled (or an executable built) with checks keeps
        // them: a binary read back links with its own options.
        for object in objects {
            // Options an earlier build or link has accepted.
            let own = vecl_clc::options::Options::parse(&object.options).unwrap_or_default();
            jit = with_option_safety(jit, &own);
        }
        if opts.create_library {
            return Err(Error::InvalidLinkerOptions(
                "'-create-library' links a library: CompiledObject::link_library".into(),
            ));
        }
        let module = unit.executable().map_err(link_failure)?;
        let source = match objects {
            [one] => one.source.clone(),
            _ => None,
        };
        Program::from_module(
            source,
            options.to_string(),
            objects.iter().all(|o| o.non_uniform_groups),
            module,
            String::new(),
            &jit,
        )
        .map_err(|e| match e {
            Error::BuildProgramFailure { log } => Error::LinkProgramFailure { log },
            other => other,
        })
    }

    /// Rebuilds a program from the bytes of [`Program::binary`].
    pub fn from_binary(ctx: &Context, bytes: &[u8]) -> Result<Program> {
        let object = CompiledObject::from_binary(ctx, bytes)?;
        if object.binary_type != BinaryType::Executable {
            return Err(Error::InvalidBinary(
                "the binary of a compiled object or library: link it".into(),
            ));
        }
        let module = Unit::clone(&object.unit)
            .executable()
            .map_err(|e| Error::InvalidBinary(format!("{e:?}")))?;
        // Options the build that made the binary accepted.
        let own = vecl_clc::options::Options::parse(&object.options).unwrap_or_default();
        let jit = with_option_safety(jit_options_from_env(), &own);
        Program::from_module(
            object.source,
            object.options,
            object.non_uniform_groups,
            module,
            String::new(),
            &jit,
        )
    }

    /// JIT-compiles every kernel of `module`.
    fn from_module(
        source: Option<String>,
        options: String,
        non_uniform_groups: bool,
        module: Module,
        mut log: String,
        jit: &CompileOptions,
    ) -> Result<Program> {
        let rules = LaunchRules {
            non_uniform_groups,
            reqd_work_group_size: None,
        };
        // Program-scope `__global` variables are one object for all the
        // kernels of the program: their code shares one block of data.
        let global_variable_size = module
            .globals
            .iter()
            .filter(|g| g.space == AddressSpace::Global)
            .map(|g| u64::from(module.size_of(&g.ty)))
            .sum::<u64>();
        if global_variable_size > MAX_GLOBAL_VARIABLE_SIZE {
            if !log.is_empty() && !log.ends_with('\n') {
                log.push('\n');
            }
            log.push_str(&format!(
                "error: the program-scope __global variables take {global_variable_size} bytes, \
                 more than CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE ({MAX_GLOBAL_VARIABLE_SIZE})\n"
            ));
            return Err(Error::BuildProgramFailure { log });
        }
        let data = (global_variable_size > 0).then(|| Arc::new(vecl_jit::ModuleData::new(&module)));
        let module = Arc::new(module);
        let names = module.kernels().map(|(_, f)| f.name.clone()).collect();
        let results = crate::kernel_builds::compile_kernels(&module, names, jit, data);
        let mut kernels = BTreeMap::new();
        let mut explain = BTreeMap::new();
        for ((_, function), result) in module.kernels().zip(results) {
            let compiled = match result {
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
                non_uniform_groups,
                global_variable_size,
                module,
                log,
                kernels,
                explain,
            }),
        })
    }

    /// `CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`: the bytes of the
    /// program-scope `__global` variables.
    pub fn global_variable_size(&self) -> u64 {
        self.inner.global_variable_size
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
        self.inner
            .explain
            .get(kernel)
            .map(crate::compiler::Explain::text)
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

    /// `CL_PROGRAM_BINARIES`: bytes [`Program::from_binary`] (and
    /// [`CompiledObject::from_binary`]) accept.
    pub fn binary(&self) -> Vec<u8> {
        binary::encode(&Contents {
            binary_type: BinaryType::Executable,
            options: self.inner.options.clone(),
            non_uniform_groups: self.inner.non_uniform_groups,
            source: self.inner.source.clone(),
            unit: Unit::exporting_all(Module::clone(&self.inner.module)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

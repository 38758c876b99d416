//! vecl's OpenCL C front end: OpenCL C source → Kernel IR, with no other
//! compiler behind it.
//!
//! The stages, one module each: [`lexer`] (preprocessing tokens with
//! positions), [`preprocess`] (directives and macro expansion), [`parser`]
//! (syntax tree, [`ast`]), `lower` (semantic checks and IR generation,
//! using the builtin table in [`builtins`]). Diagnostics ([`diag`]) are
//! collected across stages and rendered as `file:line:col: error: …` with
//! the source line and a caret; a build fails when any error was reported.
//!
//! ```
//! let b = vecl_clc::build(
//!     "__kernel void vadd(__global const float* a, __global const float* b, __global float* c)
//!      { int i = get_global_id(0); c[i] = a[i] + b[i]; }",
//!     "",
//! ).unwrap();
//! assert!(b.module.function_by_name("vadd").unwrap().1.is_kernel());
//! ```

pub mod ast;
pub mod builtins;
pub mod corpus;
pub mod diag;
pub mod lexer;
pub mod literal;
mod lower;
pub mod options;
pub mod parser;
pub mod preprocess;

use diag::{Diags, SourceMap};
use options::Options;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{mpsc, Mutex, OnceLock};

/// A successful build.
#[derive(Debug)]
pub struct Build {
    pub module: vecl_ir::Module,
    /// Warnings (may be empty), rendered like errors.
    pub log: String,
}

/// A unit compiled to be linked later (`clCompileProgram`).
#[derive(Debug)]
pub struct Compiled {
    /// The module with the linkage of its functions and variables: a
    /// function called but defined in no unit yet is an import.
    pub unit: vecl_ir::link::Unit,
    /// Warnings (may be empty), rendered like errors.
    pub log: String,
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The option string has an option vecl does not know or a bad value.
    #[error("{0}")]
    InvalidOptions(String),
    /// The source has errors; `log` holds every diagnostic.
    #[error("{log}")]
    Failed { log: String },
}

/// Compiles OpenCL C source with `clBuildProgram`-style options.
pub fn build(source: &str, options: &str) -> Result<Build, BuildError> {
    build_with_headers(source, options, &[])
}

/// Like [`build`], with named headers that `#include` finds before the `-I`
/// directories (`clCompileProgram`'s `input_headers`).
pub fn build_with_headers(
    source: &str,
    options: &str,
    headers: &[(&str, &str)],
) -> Result<Build, BuildError> {
    build_named(MAIN_SOURCE, source, options, headers)
}

/// What diagnostics call the main source when it has no name of its own.
pub const MAIN_SOURCE: &str = "<source>";

/// Like [`build_with_headers`], with diagnostics naming the main source
/// `name` (`kernel.cl:3:12: error: …`) instead of [`MAIN_SOURCE`].
pub fn build_named(
    name: &str,
    source: &str,
    options: &str,
    headers: &[(&str, &str)],
) -> Result<Build, BuildError> {
    let (unit, log) = front_end(name, source, options, headers, false)?;
    Ok(Build {
        module: unit.module,
        log,
    })
}

/// Compiles one translation unit for a later link (`clCompileProgram`):
/// like [`build_with_headers`], except that functions it calls may be
/// defined by another unit; the result carries the linkage
/// [`vecl_ir::link::link`] needs.
pub fn compile_unit(
    source: &str,
    options: &str,
    headers: &[(&str, &str)],
) -> Result<Compiled, BuildError> {
    let (unit, log) = front_end(MAIN_SOURCE, source, options, headers, true)?;
    Ok(Compiled { unit, log })
}

/// Runs the front end on `source`, called `name` in diagnostics;
/// `separate` compiles for a later link.
fn front_end(
    name: &str,
    source: &str,
    options: &str,
    headers: &[(&str, &str)],
    separate: bool,
) -> Result<(vecl_ir::link::Unit, String), BuildError> {
    let opts = Options::parse(options)?;
    // The parser and the lowering recurse over the program's nesting (bounded
    // by `parser::MAX_NESTING`); a thread of our own gives that recursion a
    // stack of known size whatever thread the caller runs on.
    let owned_source = source.to_owned();
    let owned_name = name.to_owned();
    let owned_headers: Vec<(String, String)> = headers
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    let owned_opts = opts.clone();
    let built = on_front_end_thread(move || {
        let headers: Vec<(&str, &str)> = owned_headers
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        compile(&owned_name, &owned_source, &owned_opts, &headers, separate)
    });
    match built {
        Some(Ok(result)) => result,
        Some(Err(_panicked)) => Err(BuildError::Failed {
            log: "error: internal compiler error (the front end panicked)\n".into(),
        }),
        // No thread available: compile here.
        None => compile(name, source, &opts, headers, separate),
    }
}

/// Stack size of the compiling thread (reserved address space, touched only as deep as used).
const FRONT_END_STACK: usize = 256 << 20;

/// Work for a front-end thread.
type Job = Box<dyn FnOnce() + Send>;

/// Front-end threads waiting for work. A build takes one (or starts one)
/// and gives it back when done: starting a thread with a large stack costs
/// more than the whole build of a small program.
static IDLE_THREADS: Mutex<Vec<mpsc::Sender<Job>>> = Mutex::new(Vec::new());

/// Idle front-end threads kept for later builds; more end after their build.
const MAX_IDLE_THREADS: usize = 2;

/// Starts a front-end thread ahead of a process's first build, unless one
/// is idle already: that build then finds it waiting instead of starting
/// one on its own path (the runtime's warm-up calls this when the first
/// context is made). The thread's first job is a small allocation, so
/// that what a thread sets up at its first (its allocator's arena) is done
/// before the build comes too. (Running the front end over a small source
/// as that first job made the process's first build no faster: the build
/// came while the job ran and waited for it.)
pub fn start_front_end() {
    let Ok(mut idle) = IDLE_THREADS.lock() else {
        return;
    };
    if !idle.is_empty() {
        return;
    }
    if let Some(thread) = start_front_end_thread() {
        let first: Job = Box::new(|| {
            let v: Vec<u64> = std::hint::black_box(Vec::with_capacity(64));
            drop(v);
        });
        if thread.send(first).is_ok() {
            idle.push(thread);
        }
    }
}

/// Makes the front end's tables that any thread may make for all (the
/// predefined macros of the default options, the builtins by name), so
/// that a process's first build does not: the runtime's warm-up calls
/// this on its own thread while that build's front end may already run
/// (a build that needs a table being made waits for it).
pub fn make_tables() {
    if let Ok(opts) = Options::parse("") {
        let _ = predefined_table(&opts);
    }
    let _ = builtins::is_table_builtin("get_global_id");
    let _ = vecl_ir::Builtin::from_name("get_global_id");
}

/// Runs `work` on a front-end thread and waits for it: its result, or the
/// panic it raised; `None` when no thread could be started.
fn on_front_end_thread<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<std::thread::Result<T>> {
    let (done, result) = mpsc::sync_channel(1);
    let mut job: Job = Box::new(move || {
        let _ = done.send(std::panic::catch_unwind(AssertUnwindSafe(work)));
    });
    loop {
        let idle = IDLE_THREADS.lock().ok().and_then(|mut idle| idle.pop());
        let thread = match idle {
            Some(t) => t,
            None => start_front_end_thread()?,
        };
        match thread.send(job) {
            Ok(()) => {
                // The job always answers: it catches its own panics.
                let r = result.recv().ok()?;
                if let Ok(mut idle) = IDLE_THREADS.lock() {
                    if idle.len() < MAX_IDLE_THREADS {
                        idle.push(thread);
                    }
                }
                return Some(r);
            }
            // That thread has ended: take another.
            Err(mpsc::SendError(j)) => job = j,
        }
    }
}

/// Starts a front-end thread that runs jobs until its sender is dropped.
fn start_front_end_thread() -> Option<mpsc::Sender<Job>> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("vecl-clc".into())
        .stack_size(FRONT_END_STACK)
        .spawn(move || {
            while let Ok(job) = inbox.recv() {
                job();
            }
        })
        .ok()?;
    Some(jobs)
}

fn compile(
    name: &str,
    source: &str,
    opts: &Options,
    headers: &[(&str, &str)],
    separate: bool,
) -> Result<(vecl_ir::link::Unit, String), BuildError> {
    let mut sm = SourceMap::default();
    let mut diags = Diags {
        suppress_warnings: opts.suppress_warnings,
        warnings_are_errors: opts.warnings_are_errors,
        ..Diags::default()
    };
    let main = sm.add(name, source);
    if !opts.warnings.is_empty() {
        // Warnings about options point into the option string, as clang's
        // `<command line>` diagnostics do (so `-w` and `-Werror` apply).
        let file = sm.add("<command line>", &opts.text);
        for w in &opts.warnings {
            let pos = diag::Pos {
                file,
                line: w.line,
                col: w.col,
            };
            diags.warning(pos, w.message.clone());
        }
    }
    let (tokens, pragmas) = {
        let mut pp =
            preprocess::Preprocessor::new(&mut sm, &mut diags, opts.include_dirs.clone(), headers);
        pp.set_macro_table(predefined_table(opts));
        if !opts.macros.is_empty() {
            pp.command_line(&opts.macro_directives());
        }
        pp.run_with_pragmas(main)
    };
    let module = if diags.has_errors() {
        None
    } else {
        // OpenCL C 3.0 has `half` wherever the device reports
        // `__opencl_c_fp16`, which vecl does.
        let fp16_initial = opts.cl_std >= 300;
        let fp16_scope = (!pragmas.fp16_changes.is_empty()).then(|| {
            std::sync::Arc::new(preprocess::Fp16Scope::new(
                fp16_initial,
                &pragmas.fp16_changes,
                &tokens,
            ))
        });
        let unit = parser::Parser::new(tokens, &mut diags, opts.single_precision_constant)
            .translation_unit();
        let lowerer = lower::Lowerer::new(
            &mut diags,
            lower::LowerOptions {
                cl_std: opts.cl_std,
                contract: !pragmas.contract_off,
                fp16: pragmas.fp16 || fp16_initial,
                fp16_scope,
                separate,
            },
        );
        let mut unit = lowerer.lower(&unit);
        unit.module.math = opts.math;
        Some(unit)
    };
    let log = diags.render(&sm);
    match module {
        Some(unit) if !diags.has_errors() => Ok((unit, log)),
        _ => Err(BuildError::Failed { log }),
    }
}

/// The predefined macros for an option set, computed once per process.
fn predefined_table(opts: &Options) -> preprocess::MacroTable {
    static CACHE: OnceLock<Mutex<HashMap<(u32, bool), preprocess::MacroTable>>> = OnceLock::new();
    let key = (opts.cl_std, opts.math.fast_relaxed_math);
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(t) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return t;
    }
    let (mut sm, mut diags) = (SourceMap::default(), Diags::default());
    let mut pp = preprocess::Preprocessor::new(&mut sm, &mut diags, Vec::new(), &[]);
    pp.define_all(&predefined_macros(opts));
    let table = pp.macro_table();
    if let Ok(mut c) = cache.lock() {
        c.insert(key, table.clone());
    }
    table
}

/// The macros every OpenCL C program sees (OpenCL C 1.2 6.10 and the
/// constants of 6.12), plus the extensions vecl supports.
fn predefined_macros(o: &Options) -> Vec<(String, String)> {
    let mut m: Vec<(String, String)> = [
        ("__OPENCL_VERSION__", "300"),
        ("CL_VERSION_1_0", "100"),
        ("CL_VERSION_1_1", "110"),
        ("CL_VERSION_1_2", "120"),
        ("CL_VERSION_2_0", "200"),
        ("CL_VERSION_3_0", "300"),
        ("__ENDIAN_LITTLE__", "1"),
        ("__EMBEDDED_PROFILE__", "0"),
        ("__kernel_exec(X, typen)", "__kernel __attribute__((work_group_size_hint(X, 1, 1))) __attribute__((vec_type_hint(typen)))"),
        ("kernel_exec(X, typen)", "__kernel __attribute__((work_group_size_hint(X, 1, 1))) __attribute__((vec_type_hint(typen)))"),
        ("FP_FAST_FMA", "1"),
        ("FP_FAST_FMAF", "1"),
        ("NULL", "((void *)0)"),
        ("true", "1"),
        ("false", "0"),
        ("cl_khr_fp64", "1"),
        ("cl_khr_fp16", "1"),
        ("cl_khr_global_int32_base_atomics", "1"),
        ("cl_khr_global_int32_extended_atomics", "1"),
        ("cl_khr_local_int32_base_atomics", "1"),
        ("cl_khr_local_int32_extended_atomics", "1"),
        ("cl_khr_int64_base_atomics", "1"),
        ("cl_khr_int64_extended_atomics", "1"),
        ("cl_khr_byte_addressable_store", "1"),
        ("cl_khr_3d_image_writes", "1"),
        ("cl_khr_integer_dot_product", "1"),
        ("cl_khr_extended_bit_ops", "1"),
        ("cl_khr_expect_assume", "1"),
        ("cl_khr_subgroups", "1"),
        ("cl_khr_subgroup_non_uniform_vote", "1"),
        ("cl_khr_subgroup_ballot", "1"),
        ("cl_khr_subgroup_shuffle", "1"),
        ("cl_khr_subgroup_shuffle_relative", "1"),
        ("cl_khr_subgroup_extended_types", "1"),
        ("cl_khr_subgroup_non_uniform_arithmetic", "1"),
        ("cl_khr_subgroup_clustered_reduce", "1"),
        ("cl_khr_subgroup_rotate", "1"),
        ("memory_order_relaxed", "0"),
        ("memory_order_acquire", "2"),
        ("memory_order_release", "3"),
        ("memory_order_acq_rel", "4"),
        ("memory_order_seq_cst", "5"),
        ("memory_scope_work_item", "0"),
        ("memory_scope_sub_group", "1"),
        ("memory_scope_work_group", "2"),
        ("memory_scope_device", "3"),
        ("memory_scope_all_svm_devices", "4"),
        ("memory_scope_all_devices", "4"),
        ("ATOMIC_VAR_INIT(x)", "(x)"),
        ("ATOMIC_FLAG_INIT", "0"),
        ("CLK_LOCAL_MEM_FENCE", "1"),
        ("CLK_GLOBAL_MEM_FENCE", "2"),
        ("CLK_IMAGE_MEM_FENCE", "4"),
        ("CHAR_BIT", "8"),
        ("SCHAR_MAX", "127"),
        ("SCHAR_MIN", "(-127-1)"),
        ("CHAR_MAX", "SCHAR_MAX"),
        ("CHAR_MIN", "SCHAR_MIN"),
        ("UCHAR_MAX", "255"),
        ("SHRT_MAX", "32767"),
        ("SHRT_MIN", "(-32767-1)"),
        ("USHRT_MAX", "65535"),
        ("INT_MAX", "2147483647"),
        ("INT_MIN", "(-2147483647-1)"),
        ("UINT_MAX", "0xffffffffU"),
        ("LONG_MAX", "0x7fffffffffffffffL"),
        ("LONG_MIN", "(-0x7fffffffffffffffL-1)"),
        ("ULONG_MAX", "0xffffffffffffffffUL"),
        ("FLT_DIG", "6"),
        ("FLT_MANT_DIG", "24"),
        ("FLT_MAX_10_EXP", "38"),
        ("FLT_MAX_EXP", "128"),
        ("FLT_MIN_10_EXP", "(-37)"),
        ("FLT_MIN_EXP", "(-125)"),
        ("FLT_RADIX", "2"),
        ("FLT_MAX", "0x1.fffffep127f"),
        ("FLT_MIN", "0x1.0p-126f"),
        ("FLT_EPSILON", "0x1.0p-23f"),
        ("DBL_MAX", "0x1.fffffffffffffp1023"),
        ("DBL_MIN", "0x1.0p-1022"),
        ("DBL_EPSILON", "0x1.0p-52"),
        ("DBL_DIG", "15"),
        ("DBL_MANT_DIG", "53"),
        ("DBL_MAX_10_EXP", "308"),
        ("DBL_MAX_EXP", "1024"),
        ("DBL_MIN_10_EXP", "(-307)"),
        ("DBL_MIN_EXP", "(-1021)"),
        ("DBL_RADIX", "2"),
        ("FP_ILOGB0", "(-2147483647-1)"),
        ("FP_ILOGBNAN", "2147483647"),
        ("MAXFLOAT", "0x1.fffffep127f"),
        ("HUGE_VALF", "__builtin_huge_valf()"),
        ("HUGE_VAL", "__builtin_huge_val()"),
        ("INFINITY", "__builtin_inff()"),
        ("NAN", "__builtin_nanf()"),
        ("M_E_F", "2.71828182845904523536f"),
        ("M_LOG2E_F", "1.44269504088896340736f"),
        ("M_LOG10E_F", "0.434294481903251827651f"),
        ("M_LN2_F", "0.693147180559945309417f"),
        ("M_LN10_F", "2.30258509299404568402f"),
        ("M_PI_F", "3.14159265358979323846f"),
        ("M_PI_2_F", "1.57079632679489661923f"),
        ("M_PI_4_F", "0.785398163397448309616f"),
        ("M_1_PI_F", "0.318309886183790671538f"),
        ("M_2_PI_F", "0.636619772367581343076f"),
        ("M_2_SQRTPI_F", "1.12837916709551257390f"),
        ("M_SQRT2_F", "1.41421356237309504880f"),
        ("M_SQRT1_2_F", "0.707106781186547524401f"),
        ("M_E", "2.71828182845904523536"),
        ("M_LOG2E", "1.44269504088896340736"),
        ("M_LOG10E", "0.434294481903251827651"),
        ("M_LN2", "0.693147180559945309417"),
        ("M_LN10", "2.30258509299404568402"),
        ("M_PI", "3.14159265358979323846"),
        ("M_PI_2", "1.57079632679489661923"),
        ("M_PI_4", "0.785398163397448309616"),
        ("M_1_PI", "0.318309886183790671538"),
        ("M_2_PI", "0.636619772367581343076"),
        ("M_2_SQRTPI", "1.12837916709551257390"),
        ("M_SQRT2", "1.41421356237309504880"),
        ("M_SQRT1_2", "0.707106781186547524401"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    m.extend(lower::images::macros());
    m.push(("__OPENCL_C_VERSION__".into(), o.cl_std.to_string()));
    if o.math.fast_relaxed_math {
        m.push(("__FAST_RELAXED_MATH__".into(), "1".into()));
    }
    if o.cl_std >= 200 {
        for feature in OPENCL_C_FEATURES.iter().chain(OPENCL_C_IMAGE_FEATURES) {
            m.push((feature.to_string(), "1".into()));
        }
    }
    m
}

/// The OpenCL C 3.0 optional features the front end implements, besides
/// those of images: under `-cl-std=CL3.0` exactly these `__opencl_c_*`
/// macros are defined, and the device reports exactly these
/// (`CL_DEVICE_OPENCL_C_FEATURES`), so a kernel's `#ifdef` and the host's
/// query agree.
///
/// The atomic orders and scopes beyond the minimum (relaxed, work-group)
/// are those of the C11 atomics: every order and scope is honoured (x86-64
/// read-modify-writes are sequentially consistent; seq_cst stores fence).
pub const OPENCL_C_FEATURES: &[&str] = &[
    "__opencl_c_int64",
    "__opencl_c_fp64",
    "__opencl_c_fp16",
    "__opencl_c_generic_address_space",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
];

/// The OpenCL C 3.0 features of images, defined and reported with them.
pub const OPENCL_C_IMAGE_FEATURES: &[&str] = &[
    "__opencl_c_images",
    "__opencl_c_3d_image_writes",
    "__opencl_c_read_write_images",
];

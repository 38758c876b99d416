//! Differential test of the SPIR-V front end over the OpenCL C corpus
//! (`tests/corpus/*.cl`): every program is compiled to SPIR-V by clang
//! (`-cl-std=CL2.0 -target spir64`, at `-O0` and at `-O2`) and
//! `llvm-spirv`, and built through the IL path
//! (`Context::program_il`). Its kernel then runs on the header's launch:
//! - through the JIT at widths 4, 8 and 16, and
//! - on the reference interpreter (the IL program's module),
//!
//! and every buffer must agree with the same program built from its
//! OpenCL C source and run by the interpreter (integers exactly, floats
//! within 4 ulp), and meet the header's `@expect` lines.
//!
//! Tools: `clang-15` and `llvm-spirv-15` (installed by
//! `scripts/install-deps.sh`). Without them the test says so and passes.
//!
//! **Known failures.** [`KNOWN_FAILURES`] lists the programs that do not
//! pass through the IL path with why (none now); each must still fail, and
//! one that starts passing fails the test until it is taken off the list.
//! [`EXPECTED_ERRORS`] lists the programs whose module must not build, with
//! the error the log must show. A program that clang or llvm-spirv cannot
//! compile is reported, not counted.

use std::path::{Path, PathBuf};
use std::process::Command;
use vecl::Context;
use vecl_clc::corpus::{self, Arg, Case, Elem};
use vecl_ir::interp::{run_kernel, run_kernel_with, KernelArg, RunOptions};
use vecl_testkit::corpus::{expect_failure, first_difference, ndrange, opencl_c_programs};

/// Programs that fail through the IL path: (optimisation level, stem, why).
/// Empty: every program clang and llvm-spirv compile passes, or fails as
/// [`EXPECTED_ERRORS`] says it must.
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[];

/// Programs whose SPIR-V must not build, as on any OpenCL implementation:
/// (optimisation level, stem, what the build log says, why).
const EXPECTED_ERRORS: &[(&str, &str, &str, &str)] = &[(
    "O0",
    "qualifiers_misc",
    "undefined reference to function 'weighted'",
    "`weighted` is declared `inline` without `static`: OpenCL C follows C99, \
     where that is no external definition, so clang emits none when it does \
     not inline the call (at -O0) and the module imports the function; built \
     on its own the module lacks it (the log says to declare it `static \
     inline` or link a definition). At -O2 clang inlines it and the program \
     runs",
)];

/// Programs compared with a relative float tolerance instead of ULPs, as
/// in `tests/jit_corpus.rs` and for the same reasons: (stem, tolerance).
const FLOAT_TOLERANCE: &[(&str, f64)] = &[
    ("nbody", 1e-5),
    ("textbook_black_scholes", 1e-5),
    ("vec3", 1e-6),
    // clang contracts `(float)x * 0.37f + …` into OpenCL.std `mad`, which
    // the OpenCL C build evaluates unfused: the work-group sums of those
    // values differ in their last places.
    ("work_group_collectives", 1e-6),
];

const WIDTHS: [u32; 3] = [4, 8, 16];
const ULPS: u64 = 4;

fn tool(name: &str) -> Option<PathBuf> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .ok()?;
    let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!p.is_empty()).then(|| PathBuf::from(p))
}

/// Compiles `cl` to SPIR-V words, or says why not.
fn to_spirv(
    clang: &Path,
    translator: &Path,
    cl: &Path,
    opt: &str,
    options: &str,
    dir: &Path,
) -> Result<Vec<u32>, String> {
    let stem = cl.file_stem().unwrap_or_default().to_string_lossy();
    let bc = dir.join(format!("{stem}.{opt}.bc"));
    let spv = dir.join(format!("{stem}.{opt}.spv"));
    let mut c = Command::new(clang);
    c.args([
        "-cl-std=CL2.0",
        "-target",
        "spir64",
        &format!("-{opt}"),
        "-emit-llvm",
        "-c",
    ]);
    c.args(options.split_whitespace());
    c.arg(cl).arg("-o").arg(&bc);
    let out = c.output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("clang: {}", err.lines().next().unwrap_or("")));
    }
    let out = Command::new(translator)
        .arg(&bc)
        .arg("-o")
        .arg(&spv)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("llvm-spirv: {}", err.lines().next().unwrap_or("")));
    }
    let bytes = std::fs::read(&spv).map_err(|e| e.to_string())?;
    vecl_spirv::words_from_bytes(&bytes).map_err(|e| e.to_string())
}

fn interp_args(case: &Case) -> Vec<KernelArg> {
    case.args
        .iter()
        .map(|a| match a {
            Arg::Buffer { .. } => KernelArg::Buffer(a.bytes()),
            Arg::Value { .. } => KernelArg::Value(a.bytes()),
            Arg::Local { bytes } => KernelArg::Local(*bytes),
        })
        .collect()
}

fn buffers(args: &[KernelArg]) -> Vec<Option<Vec<u8>>> {
    args.iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => Some(b.clone()),
            _ => None,
        })
        .collect()
}

/// The first difference between two runs' buffers, described.
fn compare(
    case: &Case,
    tolerance: Option<f64>,
    want: &[Option<Vec<u8>>],
    got: &[Option<Vec<u8>>],
) -> Option<String> {
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        let (Some(w), Some(g), Some(Arg::Buffer { elem, .. })) = (w, g, case.args.get(i)) else {
            continue;
        };
        if w.len() != g.len() {
            return Some(format!(
                "argument {i}: {} bytes, expected {}",
                g.len(),
                w.len()
            ));
        }
        if let Some((k, av, bv)) = first_difference(*elem, w, g, tolerance, ULPS) {
            return Some(format!("argument {i} element {k}: got {bv}, expected {av}"));
        }
    }
    None
}

/// A corpus header's sizes as the API takes them.
fn sizes(v: &[u64]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

/// Runs the IL program's kernel through the runtime (the JIT).
fn run_api(
    ctx: &Context,
    program: &vecl::Program,
    case: &Case,
) -> Result<Vec<Option<Vec<u8>>>, String> {
    let e = |x: vecl::Error| x.to_string();
    let kernel = program.kernel(&case.kernel).map_err(e)?;
    let queue = ctx.queue().map_err(e)?;
    let mut bufs = Vec::new();
    for (i, a) in case.args.iter().enumerate() {
        let i = i as u32;
        match a {
            Arg::Buffer { .. } => {
                let bytes = a.bytes();
                let b = ctx.buffer_from(&bytes).map_err(e)?;
                kernel.set_arg_mem(i, Some(b.raw())).map_err(e)?;
                bufs.push(Some(b));
            }
            Arg::Value { .. } => {
                kernel.set_arg_bytes(i, &a.bytes()).map_err(e)?;
                bufs.push(None);
            }
            Arg::Local { bytes } => {
                kernel.set_arg_local(i, *bytes).map_err(e)?;
                bufs.push(None);
            }
        }
    }
    queue
        .launch(&kernel)
        .global(&sizes(&case.global))
        .local(&sizes(&case.local))
        .run()
        .map_err(e)?;
    let mut out = Vec::new();
    for b in bufs {
        out.push(match b {
            Some(b) => Some(queue.read_vec(&b, &[]).map_err(e)?),
            None => None,
        });
    }
    Ok(out)
}

/// Builds and runs one program through the IL path; `Err` says why it fails.
/// Front-end times of one program, in milliseconds: (OpenCL C, SPIR-V).
type FrontEndMs = (f64, f64);

fn check(
    ctx: &Context,
    stem: &str,
    source: &str,
    case: &Case,
    words: &[u32],
    times: &mut Vec<FrontEndMs>,
) -> Result<(), String> {
    let tolerance = FLOAT_TOLERANCE
        .iter()
        .find(|(n, _)| *n == stem)
        .map(|t| t.1);
    let range = ndrange(case, [0; 3]);
    let started = std::time::Instant::now();
    let reference = vecl_clc::build(source, &case.options).map_err(|e| format!("clc: {e}"))?;
    let clc_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = std::time::Instant::now();
    if vecl_spirv::translate(words, &Default::default()).is_ok() {
        times.push((clc_ms, started.elapsed().as_secs_f64() * 1e3));
    }
    let mut want = interp_args(case);
    run_kernel(&reference.module, &case.kernel, &mut want, &range)
        .map_err(|e| format!("interpreter (OpenCL C): {e}"))?;
    let want = buffers(&want);
    for w in WIDTHS {
        let program = ctx
            .program_il(words)
            .simd_width(w)
            .build()
            .map_err(|e| format!("build: {}", first_line(&e)))?;
        if w == WIDTHS[0] {
            let mut got = interp_args(case);
            run_kernel(program.module(), &case.kernel, &mut got, &range)
                .map_err(|e| format!("interpreter (SPIR-V): {e}"))?;
            let got = buffers(&got);
            if let Some(d) = compare(case, tolerance, &want, &got) {
                return Err(format!("interpreter: {d}"));
            }
        }
        let got = run_api(ctx, &program, case).map_err(|e| format!("run at W={w}: {e}"))?;
        // Sub-group results depend on the sub-group size, which is the
        // kernel's SIMD width: the reference runs again at that size.
        let want_w;
        let want = if source.contains("sub_group") {
            let width = program
                .kernel(&case.kernel)
                .map_err(|e| e.to_string())?
                .simd_width();
            let mut w = interp_args(case);
            let opts = RunOptions {
                sub_group_size: width,
            };
            run_kernel_with(&reference.module, &case.kernel, &mut w, &range, &opts)
                .map_err(|e| format!("interpreter (OpenCL C) at W={width}: {e}"))?;
            want_w = buffers(&w);
            &want_w
        } else {
            &want
        };
        if let Some(d) = compare(case, tolerance, want, &got) {
            return Err(format!("JIT W={w}: {d}"));
        }
        if let Some(d) = expect_failure(case, |i| got.get(i).cloned().flatten()) {
            return Err(format!("JIT W={w}: {d}"));
        }
    }
    Ok(())
}

fn first_line(e: &vecl::Error) -> String {
    let s = match e {
        vecl::Error::BuildProgramFailure { log } => log.clone(),
        other => other.to_string(),
    };
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn corpus_through_the_il_path() {
    let (Some(clang), Some(translator)) = (tool("clang-15"), tool("llvm-spirv-15")) else {
        println!("skipped: clang-15 or llvm-spirv-15 is not installed (scripts/install-deps.sh)");
        return;
    };
    let mut files = opencl_c_programs();
    if let Ok(only) = std::env::var("SPIRV_CORPUS_ONLY") {
        files.retain(|p| {
            p.file_stem()
                .is_some_and(|s| s.to_string_lossy().contains(&only))
        });
    }
    let dir = std::env::temp_dir().join(format!("vecl-spirv-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ctx = Context::new().expect("context");
    let mut problems = Vec::new();
    let mut report = String::new();
    for opt in ["O0", "O2"] {
        let (mut passed, mut not_compiled, mut failed) = (0, Vec::new(), Vec::new());
        let mut times = Vec::new();
        for f in &files {
            let stem = f
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            let source = std::fs::read_to_string(f).expect("read");
            let case = corpus::parse(&source).expect("corpus header");
            let words = match to_spirv(&clang, &translator, f, opt, &case.options, &dir) {
                Ok(w) => w,
                Err(e) => {
                    not_compiled.push(format!("{stem}: {e}"));
                    continue;
                }
            };
            let result = check(&ctx, &stem, &source, &case, &words, &mut times);
            let known = KNOWN_FAILURES
                .iter()
                .find(|(o, n, _)| *o == opt && *n == stem);
            if let Some((_, _, says, _)) = EXPECTED_ERRORS
                .iter()
                .find(|(o, n, _, _)| *o == opt && *n == stem)
            {
                match result {
                    Err(e) if e.contains(says) && e.contains("static inline") => {
                        passed += 1;
                        report.push_str(&format!("  -{opt} {stem}: the expected error: {says}\n"));
                    }
                    Err(e) => problems.push(format!("-{opt} {stem}: not the expected error: {e}")),
                    Ok(()) => problems.push(format!("-{opt} {stem} builds, but must not")),
                }
                continue;
            }
            match (result, known) {
                (Ok(()), None) => passed += 1,
                (Ok(()), Some(_)) => problems.push(format!(
                    "-{opt} {stem} passes now: take it off KNOWN_FAILURES"
                )),
                (Err(e), Some(_)) => failed.push(format!("{stem} (known): {e}")),
                (Err(e), None) => {
                    failed.push(format!("{stem}: {e}"));
                    problems.push(format!("-{opt} {stem}: {e}"));
                }
            }
        }
        report.push_str(&format!(
            "-{opt}: {passed} passed, {} failed, {} not compiled by clang/llvm-spirv\n",
            failed.len(),
            not_compiled.len()
        ));
        for l in failed.iter().chain(&not_compiled) {
            report.push_str(&format!("  {l}\n"));
        }
        let stats = |mut v: Vec<f64>| -> String {
            if v.is_empty() {
                return "-".into();
            }
            v.sort_by(f64::total_cmp);
            format!(
                "median {:.2} ms, max {:.2} ms",
                v[v.len() / 2],
                v[v.len() - 1]
            )
        };
        report.push_str(&format!(
            "  front end: OpenCL C {}; SPIR-V {}\n",
            stats(times.iter().map(|t| t.0).collect()),
            stats(times.iter().map(|t| t.1).collect())
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{report}");
    assert!(problems.is_empty(), "{}\n\n{report}", problems.join("\n"));
}

/// `printf` through the IL path prints what the OpenCL C build prints
/// (both on the interpreter, which captures the output).
#[test]
fn printf_through_the_il_path() {
    let (Some(clang), Some(translator)) = (tool("clang-15"), tool("llvm-spirv-15")) else {
        println!("skipped: clang-15 or llvm-spirv-15 is not installed (scripts/install-deps.sh)");
        return;
    };
    let source = "kernel void say(global const int *v, float x) {
        int i = get_global_id(0);
        printf(\"item %d: %d %5.2f %s\\n\", i, v[i] * 2, x + i, \"done\");
    }";
    let dir = std::env::temp_dir().join(format!("vecl-spirv-printf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cl = dir.join("say.cl");
    std::fs::write(&cl, source).expect("write");
    let case = Case {
        kernel: "say".into(),
        global: vec![4],
        local: vec![2],
        options: String::new(),
        args: vec![
            Arg::Buffer {
                elem: Elem::I32,
                values: vec![5.0, -3.0, 7.0, 0.0],
            },
            Arg::Value {
                elem: Elem::F32,
                lanes: 1,
                values: vec![1.25],
            },
        ],
        expects: Vec::new(),
    };
    let range = ndrange(&case, [0; 3]);
    let printed = |module: &vecl_ir::Module| {
        let mut args = interp_args(&case);
        let mut out = Vec::new();
        vecl_ir::interp::run_kernel_capture(module, "say", &mut args, &range, &mut out)
            .expect("runs");
        String::from_utf8(out).expect("text")
    };
    let want = printed(&vecl_clc::build(source, "").expect("builds").module);
    assert!(want.contains("item 1: -6  2.25 done"), "{want}");
    for opt in ["O0", "O2"] {
        let words = to_spirv(&clang, &translator, &cl, opt, "", &dir).expect("compiles");
        let unit = vecl_spirv::translate(&words, &Default::default()).expect("translates");
        let module = unit.executable().expect("links");
        assert_eq!(printed(&module), want, "-{opt}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Separate compilation: two SPIR-V modules, one calling a function the
/// other exports (`LinkageAttributes`), compiled and linked through the
/// IL path, run like the same program built whole from source.
#[test]
fn il_objects_link() {
    let (Some(clang), Some(translator)) = (tool("clang-15"), tool("llvm-spirv-15")) else {
        println!("skipped: clang-15 or llvm-spirv-15 is not installed (scripts/install-deps.sh)");
        return;
    };
    let lib = "uint mix3(uint a, uint b) { return a * 3u + (b ^ 5u); }";
    let main = "uint mix3(uint a, uint b);
        kernel void use(global uint *out) {
            uint i = get_global_id(0);
            out[i] = mix3(i, out[i]) + 1u;
        }";
    let dir = std::env::temp_dir().join(format!("vecl-spirv-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ctx = Context::new().expect("context");
    let run = |program: &vecl::Program| -> Vec<u32> {
        let kernel = program.kernel("use").expect("kernel");
        let queue = ctx.queue().expect("queue");
        let init: Vec<u32> = (0..16u32).map(|i| i * 7).collect();
        let out = ctx.buffer_from(&init).expect("buffer");
        kernel.set_arg_buffer(0, &out).expect("arg");
        queue.launch(&kernel).global(&[16]).run().expect("runs");
        queue.read_vec(&out, &[]).expect("read")
    };
    let whole = ctx
        .program(&format!(
            "{lib}\n{}",
            main.replace("uint mix3(uint a, uint b);", "")
        ))
        .build()
        .expect("source builds");
    let want = run(&whole);
    for opt in ["O0", "O2"] {
        let mut objects = Vec::new();
        for (name, src) in [("lib", lib), ("main", main)] {
            let path = dir.join(format!("{name}.cl"));
            std::fs::write(&path, src).expect("write");
            let words = to_spirv(&clang, &translator, &path, opt, "", &dir).expect("compiles");
            objects.push(ctx.program_il(&words).compile().expect("IL compiles"));
        }
        let linked = vecl::Program::link(&ctx, &objects, "").expect("links");
        assert_eq!(run(&linked), want, "-{opt}");
        // An OpenCL C object links with a SPIR-V one.
        let c_lib = ctx.program(lib).compile().expect("source compiles");
        match vecl::Program::link(&ctx, &[c_lib, objects[1].clone()], "") {
            Ok(mixed) => assert_eq!(run(&mixed), want, "-{opt}, mixed"),
            Err(e) => panic!("-{opt}: OpenCL C + SPIR-V: {e}"),
        }
        // The main module alone leaves mix3 undefined.
        let err = vecl::Program::link(&ctx, &objects[1..], "").expect_err("mix3 is undefined");
        assert!(err.to_string().contains("mix3"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cl_khr_spirv_extended_debug_info`: modules compiled with `-g` carry
/// `OpenCL.DebugInfo.100` instructions, which change nothing: the
/// programs build and compute what they compute without them.
#[test]
fn debug_information_is_skipped() {
    let (Some(clang), Some(translator)) = (tool("clang-15"), tool("llvm-spirv-15")) else {
        println!("skipped: clang-15 or llvm-spirv-15 is not installed (scripts/install-deps.sh)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("vecl-spirv-debug-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ctx = Context::new().expect("context");
    for stem in ["saxpy", "functions", "loops", "local_structs"] {
        let f = root.join(format!("tests/corpus/{stem}.cl"));
        let source = std::fs::read_to_string(&f).expect("read");
        let case = corpus::parse(&source).expect("corpus header");
        let options = format!("{} -g", case.options);
        let words = to_spirv(&clang, &translator, &f, "O0", &options, &dir).expect("compiles");
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let set = b"OpenCL.DebugInfo.100";
        let debug = bytes.windows(set.len()).any(|w| w == set);
        assert!(debug, "{stem}: -g gives no debug information to skip");
        check(&ctx, stem, &source, &case, &words, &mut Vec::new())
            .unwrap_or_else(|e| panic!("{stem} with debug information: {e}"));
    }
}

/// Kernels clang compiles at `-O2` take the wide AVX-512 code as their
/// OpenCL C source does: SPIR-V's signless integers reach the IR as
/// conversions that keep every bit (`i64` ↔ `u64`, undone where undone),
/// not bitcasts, and a built-in vector loaded whole and taken apart
/// (`GlobalInvocationId`) as its components.
#[test]
fn clang_optimised_kernels_take_the_wide_code() {
    let (Some(clang), Some(translator)) = (tool("clang-15"), tool("llvm-spirv-15")) else {
        println!("skipped: clang-15 or llvm-spirv-15 is not installed (scripts/install-deps.sh)");
        return;
    };
    if !vecl_jit::wide::select::cpu_supported() {
        println!("skipped: the CPU has no AVX-512");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("vecl-spirv-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ctx = Context::new().expect("context");
    for stem in ["saxpy", "matmul", "textbook_convolution_2d", "work_item_3d"] {
        let f = root.join(format!("tests/corpus/{stem}.cl"));
        let source = std::fs::read_to_string(&f).expect("read");
        let case = corpus::parse(&source).expect("corpus header");
        let words = to_spirv(&clang, &translator, &f, "O2", &case.options, &dir).expect("compiles");
        let program = ctx
            .program_il(&words)
            .build()
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        let explain = program.explain(&case.kernel).expect("an explanation");
        let code = explain
            .lines()
            .find(|l| l.starts_with("code: "))
            .unwrap_or_else(|| panic!("{stem}: no code line in {explain}"));
        assert!(code.starts_with("code: wide AVX-512"), "{stem}: {code}");
        check(&ctx, stem, &source, &case, &words, &mut Vec::new())
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! `vecl run`: builds one kernel from a file, runs it on generated inputs
//! and prints the timings and a checksum of every buffer it may write.
//!
//! Buffers are sized for what the launch can address when the kernel's
//! indexing tells (`buffer_sizes`: every access bounded by the launch's
//! ids and the scalar arguments), else get one element per work-item and
//! the output says so; they hold a deterministic ramp;
//! integer scalars default to the number of work-items and float scalars to
//! 1.0, unless `--args name=value,…` says otherwise; `__local` arguments get
//! one element per work-item of a group (of the size the device picks when
//! `--local` is not given).
//!
//! The kernel has robust buffer access, the safe API's default: an access
//! outside the generated buffers stops the run with a report of the
//! kernel, work-item, address, argument and line instead of touching memory
//! the run does not own. `--checked` (or `VECL_CHECKED=1`) builds it in
//! checked mode; `--unchecked` without any check, to measure what the
//! checks cost.

use std::time::Instant;
use vecl::{Context, Kernel, Mem, MemFlags, NdRange};
use vecl_ir::{AddressSpace, Scalar, Type};

/// What to run.
pub struct RunRequest {
    pub file: std::path::PathBuf,
    pub kernel: String,
    pub global: Vec<u64>,
    pub local: Option<Vec<u64>>,
    pub args: Vec<(String, String)>,
    pub options: String,
    pub reps: usize,
    pub explain: bool,
    /// `front` (the front end's module), `all` (the kernel after every
    /// middle pass) or the name of one pass.
    pub dump_ir: Option<String>,
    /// What the kernel checks.
    pub safety: vecl::Safety,
}

/// The bytes of scalar argument `value` for a parameter of type `ty`
/// (`size` bytes; vectors get `value` in every component).
fn scalar_bytes(ty: &Type, type_name: &str, size: u64, value: &str) -> Result<Vec<u8>, String> {
    let bad = || format!("`{value}` is not a valid {type_name}");
    let element: Vec<u8> = match ty.scalar() {
        Some(Scalar::F32) => value
            .parse::<f32>()
            .map_err(|_| bad())?
            .to_le_bytes()
            .to_vec(),
        Some(Scalar::F64) => value
            .parse::<f64>()
            .map_err(|_| bad())?
            .to_le_bytes()
            .to_vec(),
        Some(Scalar::F16) => return Err(format!("`{value}`: half arguments are not generated")),
        Some(s) => {
            let v: i64 = value.parse().map_err(|_| bad())?;
            // Truncation to the parameter's width is the intent.
            v.to_le_bytes()[..s.size() as usize].to_vec()
        }
        None => return Err(format!("no value can be generated for a {type_name}")),
    };
    Ok(element
        .iter()
        .copied()
        .cycle()
        .take(size as usize)
        .collect())
}

/// A deterministic ramp filling `bytes` bytes of elements of type `elem`.
fn ramp(elem: Option<Scalar>, bytes: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes as usize);
    let mut i = 0u64;
    while (out.len() as u64) < bytes {
        let step = (i % 1000) as f64 * 0.001;
        match elem {
            Some(Scalar::F32) => out.extend_from_slice(&(step as f32).to_le_bytes()),
            Some(Scalar::F64) => out.extend_from_slice(&step.to_le_bytes()),
            _ => out.extend_from_slice(&((i % 1000) as u32).to_le_bytes()),
        }
        i += 1;
    }
    out.truncate(bytes as usize);
    out
}

/// FNV-1a over bytes: the checksum `vecl run` prints.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Kernel `kernel` of `module` printed after the middle passes `when`
/// names (`all`, one pass, or `regions`): what the JIT's lowering
/// receives, run with the configured passes (`vecl::Config`). `all` ends
/// with the region graph of a kernel with barriers under control flow
/// (`vecl_ir::transform::regions`), the last rewrite before lowering.
fn passes_dump(module: &vecl_ir::Module, kernel: &str, when: &str) -> Result<String, String> {
    use vecl_ir::transform::pipeline::{print_alone, IrDump, Pipeline, PipelineOptions};
    let regions_only = when.trim() == "regions";
    let dump = if regions_only {
        None
    } else {
        Some(IrDump::parse(when).map_err(|e| format!("--dump-ir={when}: {e} (or regions)"))?)
    };
    let (_, function) = module
        .kernels()
        .find(|(_, f)| f.name == kernel)
        .ok_or_else(|| format!("no kernel named `{kernel}`"))?;
    let options = PipelineOptions {
        dump: dump.clone(),
        verify: true,
        ..vecl::Config::global().jit_options().passes
    };
    let pipeline = Pipeline::new(&options)?;
    let out = pipeline.run(module, function).map_err(|e| e.to_string())?;
    let mut text = out.dump;
    if regions_only || dump == Some(IrDump::All) {
        match vecl_ir::transform::regions::region_graph(&out.function)? {
            Some(graph) => {
                text.push_str("; after regions\n");
                text.push_str(&print_alone(module, &graph.func));
            }
            None if regions_only => {
                return Err(format!(
                    "--dump-ir=regions: `{kernel}` has no barrier under control flow, so its IR \
                     is not rewritten into a region graph (`--dump-ir=all` shows what it is)"
                ))
            }
            None => {}
        }
    }
    if text.is_empty() {
        return Err(format!("--dump-ir={when}: that pass is turned off"));
    }
    Ok(text + "\n")
}

/// Runs the request and returns the text to print.
pub fn run(req: &RunRequest) -> Result<String, String> {
    let bytes = std::fs::read(&req.file).map_err(|e| format!("{}: {e}", req.file.display()))?;
    if req.global.is_empty() || req.global.len() > 3 {
        return Err("--global takes 1 to 3 sizes".into());
    }
    let ctx = Context::new().map_err(|e| e.to_string())?;
    let build_start = Instant::now();
    // A SPIR-V module (a `.spv` file, or any file that starts with the
    // magic number) goes through the IL path; anything else is OpenCL C.
    let spirv = vecl_spirv::is_spirv(&bytes) || req.file.extension().is_some_and(|e| e == "spv");
    let builder = if spirv {
        let words = vecl_spirv::words_from_bytes(&bytes)
            .map_err(|e| format!("{}: {e}", req.file.display()))?;
        ctx.program_il(&words)
    } else {
        // Bytes that are not UTF-8 are kept, as C compilers keep them.
        let source = vecl_clc::literal::decode_source(&bytes).into_owned();
        ctx.program(&source)
            .source_name(&req.file.display().to_string())
    };
    let builder = builder.options(&req.options).dump_clif(req.explain);
    let builder = match req.safety {
        // SAFETY: asked for on the command line; the run's own memory is
        // all that an access outside the buffers can corrupt.
        vecl::Safety::Unchecked => unsafe { builder.unchecked() },
        vecl::Safety::Robust => builder,
        vecl::Safety::Checked => builder.checked(true),
    };
    let program = builder.build().map_err(|e| e.to_string())?;
    let build_ms = build_start.elapsed().as_secs_f64() * 1e3;
    // The timed runs measure the optimised code, not the quick tier's.
    program.wait_for_final_code();
    let mut out = String::new();
    match req.dump_ir.as_deref() {
        None => {}
        Some("front") => {
            out.push_str(&vecl_ir::text::print_module(program.module()));
            out.push('\n');
        }
        Some(when) => out.push_str(&passes_dump(program.module(), &req.kernel, when)?),
    }
    let kernel = program.kernel(&req.kernel).map_err(|e| e.to_string())?;
    if req.explain {
        out.push_str(program.explain(&req.kernel).unwrap_or("(no report)"));
        out.push('\n');
    }
    let items: u64 = req.global.iter().product();
    let mut range = NdRange::linear(1);
    range.work_dim = req.global.len() as u32;
    range.global[..req.global.len()].copy_from_slice(&req.global);
    if let Some(local) = &req.local {
        if local.len() != req.global.len() {
            return Err(format!(
                "--local has {} dimension(s) and --global {}: give both the same number",
                local.len(),
                req.global.len()
            ));
        }
        let mut l = [1u64; 3];
        l[..local.len().min(3)].copy_from_slice(&local[..local.len().min(3)]);
        range.local = Some(l);
    }
    // `__local` buffers are sized for the groups the launch will really
    // have, the device's choice included.
    let launch =
        vecl_runtime::ndrange::plan_launch(&range, kernel.simd_width(), &kernel.launch_rules())
            .map_err(|e| e.to_string())?;
    let group_items: u64 = launch.as_ref().map_or(1, |launch| launch.items_per_group());
    let shape = Shape {
        module: program.module(),
        launch,
        items,
        group_items,
    };
    let (outputs, notes) = set_generated_args(&kernel, &shape, &req.args)?;
    let notes: String = notes.iter().map(|n| format!("note: {n}\n")).collect();
    out.push_str(&notes);
    let queue = ctx.queue().map_err(|e| e.to_string())?;
    let mut times = Vec::new();
    for _ in 0..req.reps.max(1) {
        let t0 = Instant::now();
        let event = kernel
            .enqueue(queue.raw(), &range, &[])
            .map_err(|e| e.to_string())?;
        event.wait().map_err(|e| {
            let failure = event.failure().unwrap_or(e).to_string();
            if failure.contains("out-of-bounds") {
                format!(
                    "{failure}\n{notes}note: buffers are sized for what the launch's indexing \
                     can reach where it tells, else one element per work-item (__local \
                     arguments: per work-item of the group); give a buffer more with \
                     --args NAME=COUNT"
                )
            } else {
                failure
            }
        })?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    if req.explain {
        if let Some(line) = kernel.describe_launch(&range).map_err(|e| e.to_string())? {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "kernel {} (SIMD width {}): build {build_ms:.2} ms, run {:.3} ms (median of {})\n",
        kernel.name(),
        kernel.simd_width(),
        times[times.len() / 2],
        times.len()
    ));
    out.push_str(&vecl_runtime::pool_trace::report());
    for (index, name, mem) in outputs {
        let mut bytes = vec![0u8; mem.size() as usize];
        // SAFETY: a blocking read into a vector of the buffer's size.
        unsafe {
            queue
                .raw()
                .enqueue_read(&mem, 0, mem.size(), bytes.as_mut_ptr(), true, &[])
        }
        .map_err(|e| e.to_string())?;
        out.push_str(&format!(
            "  arg {index} `{name}`: {} bytes, checksum {:016x}\n",
            bytes.len(),
            fnv1a(&bytes)
        ));
    }
    Ok(out)
}

/// Refuses `--args` entries that name no argument, have no `=`, or give a
/// buffer or a `__local` argument a count that is not a number (or whose
/// bytes overflow), rather than ignore them.
fn check_given_args(infos: &[vecl::ArgInfo], given: &[(String, String)]) -> Result<(), String> {
    let names: Vec<&str> = infos.iter().map(|i| i.name.as_str()).collect();
    for (name, value) in given {
        if name.is_empty() {
            return Err(format!("--args: `{value}` is not NAME=VALUE"));
        }
        let found = infos
            .iter()
            .enumerate()
            .find(|(index, info)| info.name == *name || index.to_string() == *name);
        let Some((_, info)) = found else {
            return Err(format!(
                "--args: the kernel has no argument `{name}` (its arguments: {})",
                names.join(", ")
            ));
        };
        if info.ty.is_pointer() {
            let what = if info.address == AddressSpace::Local {
                "a __local argument's value is its element count"
            } else {
                "a buffer's value is its element count"
            };
            match value.parse::<u64>() {
                Ok(count) if count.checked_mul(info.element_size.max(1)).is_some() => {}
                Ok(_) => return Err(format!("--args: `{name}={value}`: too many elements")),
                Err(_) => return Err(format!("--args: `{name}={value}`: {what}")),
            }
        }
    }
    Ok(())
}

/// What generated arguments are sized from.
struct Shape<'a> {
    module: &'a vecl_ir::Module,
    /// The launch as it will run (`None`: an empty range).
    launch: Option<vecl_jit::abi::Launch>,
    items: u64,
    group_items: u64,
}

/// The largest buffer sized from the kernel's indexing; past it the
/// default is kept (an index scaled by a large scalar argument).
const MAX_INFERRED_BYTES: u64 = 1 << 30;

/// The integer value `--args` gives scalar parameter `info` (or its
/// default), for the sizing analysis.
fn scalar_value(info: &vecl::ArgInfo, value: Option<&str>, items: u64) -> Option<i128> {
    let s = info
        .ty
        .scalar()
        .filter(|s| s.is_int() && !info.ty.is_pointer())?;
    if info.ty.lanes() != 1 {
        return None;
    }
    let v: i128 = match value {
        Some(v) => v.parse().ok()?,
        None => i128::from(items),
    };
    // The bytes the kernel sees are truncated to the parameter's width.
    let bits = s.bits();
    let raw = v & ((1i128 << bits) - 1);
    Some(if s.is_signed() && raw >> (bits - 1) & 1 == 1 {
        raw - (1i128 << bits)
    } else {
        raw
    })
}

/// Sets every argument from `--args` or generated values; returns the
/// buffers the kernel may write and notes on the sizes assumed.
fn set_generated_args(
    kernel: &Kernel,
    shape: &Shape,
    given: &[(String, String)],
) -> Result<(Vec<(u32, String, Mem)>, Vec<String>), String> {
    let (items, group_items) = (shape.items, shape.group_items);
    let infos = (0..kernel.num_args())
        .map(|index| kernel.arg_info(index).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    check_given_args(&infos, given)?;
    let given_value = |index: u32, info: &vecl::ArgInfo| {
        given
            .iter()
            .find(|(n, _)| *n == info.name || *n == index.to_string())
            .map(|(_, v)| v.as_str())
    };
    let extents = match &shape.launch {
        Some(launch) => {
            let facts = super::buffer_sizes::LaunchFacts {
                launch: *launch,
                params: (0..kernel.num_args())
                    .zip(&infos)
                    .map(|(index, info)| scalar_value(info, given_value(index, info), items))
                    .collect(),
            };
            super::buffer_sizes::extents(shape.module, kernel.name(), &facts)
        }
        None => Vec::new(),
    };
    let mut notes = Vec::new();
    let mut writable = Vec::new();
    for (index, info) in (0..kernel.num_args()).zip(infos.iter()) {
        let value = given_value(index, info);
        let elem = info.element_size;
        let err = |e: vecl::Error| format!("argument {index} `{}`: {e}", info.name);
        if let Some(pointee) = info.ty.pointee().filter(|_| info.ty.is_pointer()) {
            match info.address {
                AddressSpace::Local => {
                    use super::buffer_sizes::Extent;
                    let default = elem * group_items;
                    let given = value
                        .and_then(|v| v.parse::<u64>().ok())
                        .and_then(|count| count.checked_mul(elem));
                    let bytes = match extents.get(index as usize) {
                        _ if given.is_some() => given.unwrap_or(default),
                        Some(Extent::Bytes(b)) if *b <= MAX_INFERRED_BYTES => *b,
                        None | Some(Extent::Unused) => default,
                        Some(Extent::Bytes(b) | Extent::Unknown(b)) => {
                            let bytes = if *b <= MAX_INFERRED_BYTES {
                                default.max(*b)
                            } else {
                                default
                            };
                            notes.push(format!(
                                "`{}`: its indexing is not known before the run; assumed {} \
                                 elements{}",
                                info.name,
                                bytes / elem.max(1),
                                if bytes == default {
                                    " (one per work-item of the group)"
                                } else {
                                    ""
                                }
                            ));
                            bytes
                        }
                    };
                    kernel
                        .set_arg_local(index, usize::try_from(bytes.max(1)).unwrap_or(usize::MAX))
                        .map_err(err)?
                }
                _ => {
                    use super::buffer_sizes::Extent;
                    let default = items * elem;
                    let count = match (
                        value.and_then(|v| v.parse::<u64>().ok()),
                        extents.get(index as usize),
                    ) {
                        (Some(c), _) => c,
                        (None, Some(Extent::Bytes(b))) if *b <= MAX_INFERRED_BYTES => {
                            b.div_ceil(elem.max(1)).max(1)
                        }
                        (None, None | Some(Extent::Unused)) => items,
                        (None, Some(e)) => {
                            let reached = match e {
                                Extent::Unknown(b) | Extent::Bytes(b) => *b,
                                Extent::Unused => 0,
                            };
                            let bytes = if reached <= MAX_INFERRED_BYTES {
                                reached.max(default)
                            } else {
                                default
                            };
                            let count = bytes.div_ceil(elem.max(1)).max(1);
                            let why = match e {
                                Extent::Bytes(b) => {
                                    format!(
                                        "its indexing reaches {b} bytes, more than is generated"
                                    )
                                }
                                _ => "its indexing is not known before the run".to_string(),
                            };
                            notes.push(format!(
                                "`{}`: {why}; assumed {count} elements{}; give another count \
                                 with --args {}=COUNT",
                                info.name,
                                if count == items {
                                    " (one per work-item)"
                                } else {
                                    ""
                                },
                                info.name
                            ));
                            count
                        }
                    };
                    let mem = Mem::from_bytes(
                        MemFlags::READ_WRITE,
                        &ramp(pointee.scalar(), count * elem),
                    )
                    .map_err(err)?;
                    kernel.set_arg_mem(index, Some(&mem)).map_err(err)?;
                    if !info.qualifiers.is_const && info.address != AddressSpace::Constant {
                        writable.push((index, info.name.clone(), mem));
                    }
                }
            }
        } else {
            let default = if info.ty.scalar().is_some_and(Scalar::is_float) {
                "1.0".to_string()
            } else {
                items.to_string()
            };
            let bytes = scalar_bytes(&info.ty, &info.type_name, elem, value.unwrap_or(&default))?;
            kernel.set_arg_bytes(index, &bytes).map_err(err)?;
        }
    }
    Ok((writable, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(dir: &std::path::Path, source: &str, kernel: &str, checked: bool) -> RunRequest {
        let safety = if checked {
            vecl::Safety::Checked
        } else {
            vecl::Safety::Robust
        };
        let file = dir.join(format!("{kernel}.cl"));
        std::fs::write(&file, source).expect("write the kernel file");
        RunRequest {
            file,
            kernel: kernel.into(),
            global: vec![256],
            local: None,
            args: Vec::new(),
            options: String::new(),
            reps: 1,
            explain: false,
            dump_ir: None,
            safety,
        }
    }

    fn scratch_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("vecl-run-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    }

    /// `vecl run` of a `.spv` file: the module compiled by clang-15 and
    /// llvm-spirv-15 (when installed) gives the checksum of the same
    /// kernel's OpenCL C source.
    #[test]
    fn spirv_files_run_like_their_source() {
        let dir = scratch_dir("spirv");
        // Integer arithmetic: exact whatever clang contracts or reorders.
        let src = "kernel void sq(global const int *in, global int *out) {
            int i = get_global_id(0);
            out[i] = in[i] * in[i] + (in[i] >> 1) - i;
        }";
        let cl = request(&dir, src, "sq", false);
        let bc = dir.join("sq.bc");
        let spv = dir.join("sq.spv");
        let compiled = std::process::Command::new("clang-15")
            .args([
                "-cl-std=CL2.0",
                "-target",
                "spir64",
                "-O2",
                "-emit-llvm",
                "-c",
            ])
            .arg(&cl.file)
            .arg("-o")
            .arg(&bc)
            .status()
            .is_ok_and(|s| s.success())
            && std::process::Command::new("llvm-spirv-15")
                .arg(&bc)
                .arg("-o")
                .arg(&spv)
                .status()
                .is_ok_and(|s| s.success());
        if !compiled {
            println!("skipped: clang-15 or llvm-spirv-15 is not installed");
            return;
        }
        let from_source = run(&cl).expect("the OpenCL C kernel runs");
        let mut il = request(&dir, src, "sq", false);
        il.file = spv;
        let from_il = run(&il).expect("the SPIR-V kernel runs");
        // Argument names are not in optimised SPIR-V: compare the
        // arguments by index and checksum.
        let checksums = |t: &str| -> Vec<(String, String)> {
            t.lines()
                .filter(|l| l.contains("checksum"))
                .map(|l| {
                    let index = l.split('`').next().unwrap_or("").trim().to_string();
                    let sum = l.rsplit(' ').next().unwrap_or("").to_string();
                    (index, sum)
                })
                .collect()
        };
        assert!(!checksums(&from_source).is_empty(), "{from_source}");
        assert_eq!(checksums(&from_source), checksums(&from_il));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn checked_runs_report_accesses_past_the_generated_buffers() {
        let dir = scratch_dir("checked");
        let src = "kernel void next(global const float *in, global float *out) {
            int i = get_global_id(0);
            out[i] = in[i + 1];
        }";
        // `in` is sized for what `in[i + 1]` reaches: the kernel runs.
        let text = run(&request(&dir, src, "next", true)).expect("in bounds");
        assert!(text.contains("arg 1 `out`: 1024 bytes"), "{text}");
        assert!(!text.contains("note:"), "{text}");
        // One element fewer, as given on the command line: stopped.
        for checked in [true, false] {
            let mut short = request(&dir, src, "next", checked);
            short.args = vec![("in".into(), "256".into())];
            let err = run(&short).expect_err("in[256] is past the end");
            assert!(err.contains("out-of-bounds load of 4 bytes"), "{err}");
            assert!(err.contains("work-item (255, 0, 0)"), "{err}");
            assert!(err.contains("argument 0, a buffer of 1024 bytes"), "{err}");
            assert!(err.contains("--args"), "{err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn local_buffers_follow_the_group_size_the_device_picks() {
        let dir = scratch_dir("local");
        let src = "kernel void rev(global int *out, local int *tmp) {
            int l = get_local_id(0);
            int n = get_local_size(0);
            tmp[l] = l;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = tmp[n - 1 - l];
        }";
        let text = run(&request(&dir, src, "rev", true)).expect("every access in bounds");
        assert!(text.contains("arg 0 `out`: 1024 bytes"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_args_are_errors_not_ignored() {
        let dir = scratch_dir("badargs");
        let src = "kernel void k(global float *out, local float *tmp, float s) {
            out[get_global_id(0)] = s;
        }";
        for (args, says) in [
            (vec![("nope", "3")], "no argument `nope`"),
            (vec![("", "out")], "is not NAME=VALUE"),
            (vec![("out", "many")], "element count"),
            (
                vec![("tmp", "x")],
                "a __local argument's value is its element count",
            ),
        ] {
            let mut req = request(&dir, src, "k", true);
            req.args = args
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            let err = run(&req).expect_err(says);
            assert!(err.contains(says), "{args:?}: {err}");
        }
        let mut good = request(&dir, src, "k", true);
        good.args = vec![("out".into(), "256".into()), ("2".into(), "2.5".into())];
        run(&good).expect("good args");
        good.args.push(("tmp".into(), "64".into()));
        run(&good).expect("a __local argument's count");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn scalars_parse_by_type() {
        assert_eq!(
            scalar_bytes(&Type::F32, "float", 4, "1.5"),
            Ok(1.5f32.to_le_bytes().to_vec())
        );
        assert_eq!(
            scalar_bytes(&Type::I32, "int", 4, "-2"),
            Ok((-2i32).to_le_bytes().to_vec())
        );
        assert_eq!(
            scalar_bytes(&Type::U64, "ulong", 8, "7"),
            Ok(7u64.to_le_bytes().to_vec())
        );
        assert_eq!(
            scalar_bytes(&Type::vector(Scalar::I16, 2), "short2", 4, "3"),
            Ok([3u8, 0, 3, 0].to_vec())
        );
        assert!(scalar_bytes(&Type::I32, "int", 4, "x").is_err());
        assert_eq!(
            ramp(Some(Scalar::F32), 8),
            [0f32.to_le_bytes(), 0.001f32.to_le_bytes()].concat()
        );
    }

    #[test]
    fn typedef_names_get_the_size_of_the_type_they_name() {
        let dir = scratch_dir("typedef");
        let src = "typedef double real;
        typedef float4 vec;
        kernel void scale(global vec *v, real k, global real *out) {
            int i = get_global_id(0);
            v[i] = v[i] * (float)k;
            out[i] = k * 2.0;
        }";
        let mut req = request(&dir, src, "scale", false);
        req.args = vec![("k".into(), "2.5".into())];
        let text = run(&req).expect("a typedef'd double takes 8 bytes");
        // One float4 and one double per work-item.
        assert!(text.contains("arg 0 `v`: 4096 bytes"), "{text}");
        assert!(text.contains("arg 2 `out`: 2048 bytes"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Differential test of the JIT over the OpenCL C corpus (`tests/corpus/*.cl`):
//! every program is built with the front end, and its kernel runs both on the
//! JIT (`vecl_jit::compile_kernel` + `run_groups`, W = 4, 8 and 16) and on
//! the reference interpreter (`vecl_ir::interp::run_kernel`) with the same
//! inputs and launch shape; every buffer must agree afterwards, and the
//! header's `@expect` lines must hold on the JIT too.
//!
//! **Shapes.** A program whose result depends on the launch shape (its
//! source mentions barriers, `__local` memory, atomics, group or size
//! queries, or it never asks for its global id) keeps its declared
//! `@range`, with and without a non-zero global offset. Every other program
//! also runs on random shapes of its declared dimensionality (and one 3-D
//! shape for 2-D programs): global sizes that are not multiples of W nor of
//! the local size (non-uniform last groups), local sizes from 1 to 1024,
//! non-zero offsets. Integer value arguments equal to a declared global size
//! are taken as the problem size and set to the new extent of that
//! dimension; buffers grow with the shape.
//!
//! **Inputs.** The header's values, then random values (fixed seed): each
//! element is a header value of the same buffer picked at random (so index
//! buffers stay in range), floats perturbed by up to ±50 %. A launch the
//! interpreter refuses (an access out of bounds for these inputs) is not run
//! on the JIT and is counted as skipped.
//!
//! **Comparison.** Integers exactly. Floats within [`DEFAULT_ULPS`] units
//! in the last place (OpenCL's bound for the transcendental builtins the
//! corpus uses, e.g. 4 ulp for `sin`/`cos`, 3 for `exp`/`log`), or NaN on
//! both sides; the programs of [`FLOAT_TOLERANCE`] get the relative
//! tolerance stated there, with the reason. JIT buffers have guard bytes on
//! both sides that must be intact after the run.
//!
//! **Known failures.** [`KNOWN_FAILURES`] lists the programs that fail on
//! the JIT today with their cause; each must still fail that way, and one
//! that starts passing fails this test until it is taken off the list.

use std::fmt::Write as _;
use std::path::Path;
use vecl_clc::corpus::{self, Arg, Case, Elem};
use vecl_ir::interp::{run_kernel, run_kernel_with, KernelArg, NdRange, RunOptions, UNINIT_BYTE};
use vecl_ir::Module;
use vecl_jit::abi::{ArgKind, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitError, JitOptions};
use vecl_testkit::corpus::{expect_failure, first_difference, ndrange, opencl_c_programs};
use vecl_testkit::groups::write_checked_tail;
use vecl_testkit::guarded::GuardedBuffer;
use vecl_testkit::{test_tiers, WIDTHS};

/// Float results may differ by this many units in the last place.
const DEFAULT_ULPS: u64 = 4;

/// Programs compared with a relative float tolerance instead of ULPs:
/// (file stem, tolerance, why).
const FLOAT_TOLERANCE: &[(&str, f64, &str)] = &[
    (
        "nbody",
        1e-5,
        "a float reduction: each acceleration sums 8 terms q.w·d/r³ with \
         cancellation; the JIT computes dot and rsqrt (2 ulp) in f32, the \
         interpreter dot in f64, so the sums differ by ~5e-7 on values ~0.5",
    ),
    (
        "textbook_black_scholes",
        1e-5,
        "call = s·N(d1) − K·e^(−rT)·N(d2) cancels terms up to ~100 computed with \
         erf (16 ulp allowed), exp and log in f32 by the JIT and in f64 by the \
         interpreter: ~4e-6 apart on prices ~5",
    ),
    (
        "vec3",
        1e-6,
        "cross(a, b) = a·b − c·d cancels: the JIT rounds each product to f32, \
         the interpreter computes in f64, ~4e-8 apart on inputs of magnitude ≤ 2",
    ),
];

/// Programs that use their global id but are meaningful only on their
/// declared range, with the reason (they still run with a global offset).
const DECLARED_RANGE_ONLY: &[(&str, &str)] = &[(
    "enums",
    "items 0 and 1 write out[4 + i] while items 4 and 5 write out[i]: \
     a write race once the range has more than 4 items",
)];

/// How a known failure shows itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    /// `compile_kernel` refuses the kernel; the message contains the text.
    Unsupported(&'static str),
    /// A buffer differs from the interpreter's.
    Mismatch,
}

/// Programs that do not yet run correctly on the JIT: (file stem, how
/// they fail, why).
///
/// Empty at present: nbody, textbook_matmul_tiled ("a loop nested in a loop
/// with a barrier") and textbook_bitonic_sort ("barrier nested in control
/// flow inside a loop") were refused until the region graph took barriers
/// in nested loops and uniform `if`s; no program mismatches.
const KNOWN_FAILURES: &[(&str, Failure, &str)] = &[];

/// No buffer grows past this many elements.
const MAX_ELEMS: usize = 1 << 21;

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// Uniform in `[-1, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Whether the program's results may depend on the launch shape, judged
/// from its source.
fn shape_dependent(source: &str) -> bool {
    const MARKERS: [&str; 12] = [
        "barrier",
        "__local",
        "local ",
        "atomic",
        "get_local_",
        "get_group_id",
        "get_num_groups",
        "get_global_size",
        "get_global_offset",
        "get_enqueued_local_size",
        "work_group_",
        "sub_group_",
    ];
    MARKERS.iter().any(|m| source.contains(m)) || !source.contains("get_global_id")
}

/// One launch: shape, inputs, and whether it is the header's own.
struct Variant {
    range: NdRange,
    args: Vec<KernelArg>,
    /// The header's inputs on the header's range: `@expect` applies.
    declared: bool,
    label: String,
}

/// The header's buffer values, or random ones drawn from them, repeated to
/// `len` elements.
fn buffer_values(values: &[f64], elem: Elem, len: usize, rng: Option<&mut Rng>) -> Vec<f64> {
    let pool: &[f64] = if values.is_empty() { &[0.0] } else { values };
    match rng {
        None => (0..len).map(|i| pool[i % pool.len()]).collect(),
        Some(rng) => (0..len)
            .map(|_| {
                let v = pool[rng.range(0, pool.len() as u64 - 1) as usize];
                if elem.is_float() {
                    v + 0.5 * rng.unit() * v.abs().max(1.0)
                } else if pool.iter().all(|p| *p == pool[0]) {
                    // A constant buffer (usually an output): small values around it.
                    v + rng.range(0, 6) as f64 - 3.0
                } else {
                    v
                }
            })
            .collect(),
    }
}

/// Kernel arguments for a launch over `range`: buffers `factor` times
/// their header length, size parameters set to the extent of their
/// dimension.
fn make_args(case: &Case, range: &NdRange, factor: usize, rng: Option<&mut Rng>) -> Vec<KernelArg> {
    let mut rng = rng;
    case.args
        .iter()
        .map(|a| match a {
            Arg::Buffer { elem, values } => {
                let len = (values.len().max(1) * factor).min(MAX_ELEMS);
                let vals = buffer_values(values, *elem, len, rng.as_deref_mut());
                let mut bytes = Vec::with_capacity(len * elem.size());
                for v in vals {
                    elem.encode(v, &mut bytes);
                }
                KernelArg::Buffer(bytes)
            }
            Arg::Value {
                elem,
                lanes: 1,
                values,
            } if !elem.is_float() && factor > 1 => {
                let v = values[0];
                let dim = case.global.iter().position(|g| *g as f64 == v && v > 1.0);
                let v = match dim {
                    Some(d) => (range.global_offset[d] + range.global_size[d]) as f64,
                    None => v,
                };
                let mut bytes = Vec::new();
                elem.encode(v, &mut bytes);
                KernelArg::Value(bytes)
            }
            Arg::Value { .. } => KernelArg::Value(a.bytes()),
            Arg::Local { bytes } => KernelArg::Local(*bytes),
        })
        .collect()
}

/// Whether some integer value argument is a problem size (see [`make_args`]).
fn has_size_parameter(case: &Case) -> bool {
    case.args.iter().any(|a| {
        matches!(a, Arg::Value { elem, lanes: 1, values }
            if !elem.is_float() && case.global.iter().any(|g| *g as f64 == values[0] && values[0] > 1.0))
    })
}

/// How much every buffer grows for `range` compared with the header's.
fn growth(case: &Case, range: &NdRange) -> usize {
    let mut ratio = 1usize;
    for d in 0..range.work_dim as usize {
        let declared = case.global.get(d).copied().unwrap_or(1).max(1);
        let extent = range.global_offset[d] + range.global_size[d];
        ratio = ratio.max(extent.div_ceil(declared) as usize);
    }
    let dims = range.work_dim.min(2);
    let mut f = ratio.pow(dims);
    if has_size_parameter(case) && dims == 1 {
        f = f.saturating_mul(ratio);
    }
    f + 1
}

fn variants(name: &str, case: &Case, free: bool) -> Vec<Variant> {
    let mut rng = Rng(name.bytes().fold(0x5eed, |h: u64, b| {
        h.wrapping_mul(31).wrapping_add(u64::from(b))
    }));
    let declared = ndrange(case, [0; 3]);
    let mut out = vec![
        Variant {
            range: declared,
            args: make_args(case, &declared, 1, None),
            declared: true,
            label: "declared".into(),
        },
        Variant {
            range: declared,
            args: make_args(case, &declared, 1, Some(&mut rng)),
            declared: false,
            label: "declared range, random inputs".into(),
        },
    ];
    let mut offset = [0u64; 3];
    for (d, o) in offset.iter_mut().enumerate().take(case.global.len()) {
        *o = 3 + d as u64;
    }
    let shifted = ndrange(case, offset);
    out.push(Variant {
        range: shifted,
        args: make_args(case, &shifted, growth(case, &shifted), Some(&mut rng)),
        declared: false,
        label: "declared range, offset".into(),
    });
    if !free {
        return out;
    }
    let dims = case.global.len();
    let mut shapes = Vec::new();
    if dims == 1 {
        // One launch with 1024-item groups and a partial last group.
        let g = rng.range(1025, 1100);
        shapes.push(([rng.range(0, 5), 0, 0], [g, 1, 1], [1024, 1, 1], 1));
        // Whole chunks at every width, 32 included: the optimised code's
        // loop for whole chunks and its copy at W = 32.
        shapes.push(([rng.range(0, 5), 0, 0], [256, 1, 1], [64, 1, 1], 1));
        for _ in 0..3 {
            let g = rng.range(5, 300);
            let l = [1, 3, 7, rng.range(1, g), rng.range(8, 64)][rng.range(0, 4) as usize].min(g);
            shapes.push(([rng.range(0, 9), 0, 0], [g, 1, 1], [l, 1, 1], 1));
        }
    } else {
        for _ in 0..3 {
            let g = [rng.range(3, 40), rng.range(3, 40), 1];
            let l = [
                rng.range(1, g[0]),
                rng.range(1, g[1]).min(1024 / g[0].max(1)).max(1),
                1,
            ];
            shapes.push(([rng.range(0, 4), rng.range(0, 4), 0], g, l, 2));
        }
        if dims == 2 {
            let g = [rng.range(3, 30), rng.range(3, 30), 1];
            shapes.push(([1, 2, 3], g, [rng.range(1, g[0]), 2, 1], 3));
        }
    }
    for (offset, global, local, work_dim) in shapes {
        let range = NdRange {
            work_dim,
            global_offset: offset,
            global_size: global,
            local_size: local,
        };
        let factor = growth(case, &range);
        out.push(Variant {
            range,
            args: make_args(case, &range, factor, Some(&mut rng)),
            declared: false,
            label: format!("{work_dim}-D random shape"),
        });
    }
    out
}

/// Runs `k` over `range` with `args`; returns the buffers afterwards or why
/// the run failed.
fn run_jit(
    k: &CompiledKernel,
    args: &[KernelArg],
    range: &NdRange,
) -> Result<Vec<Option<Vec<u8>>>, String> {
    let mut bufs: Vec<Option<GuardedBuffer>> = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => Some(GuardedBuffer::new(b)),
            _ => None,
        })
        .collect();
    let mut block = vec![0u8; k.args_size().max(8)];
    let mut local_off = k.static_local_size() as u64;
    // Checked code: `[start, end)` of each parameter for its bounds table.
    let mut ranges = vec![(0u64, 0u64); args.len()];
    if k.args().len() != args.len() {
        return Err(format!(
            "{} argument slots for {} arguments",
            k.args().len(),
            args.len()
        ));
    }
    let slots = k.args().iter().zip(args).zip(bufs.iter_mut());
    for (i, ((slot, a), buf)) in slots.enumerate() {
        let at = slot.offset as usize;
        match (slot.kind, a, buf) {
            (ArgKind::GlobalPointer, KernelArg::Buffer(_), Some(buf)) => {
                let p = buf.ptr() as u64;
                block[at..at + 8].copy_from_slice(&p.to_le_bytes());
                ranges[i] = (p, p + buf.len() as u64);
            }
            (ArgKind::LocalPointer, KernelArg::Local(size), _) => {
                block[at..at + 8].copy_from_slice(&local_off.to_le_bytes());
                ranges[i] = (local_off, local_off + *size as u64);
                local_off += (*size as u64).div_ceil(64) * 64;
            }
            (ArgKind::Value | ArgKind::ByValStruct, KernelArg::Value(b), _) => {
                let n = b.len().min(slot.size as usize);
                block[at..at + n].copy_from_slice(&b[..n]);
            }
            (kind, _, _) => return Err(format!("argument does not fit slot {kind:?}")),
        }
    }
    let record = vecl_jit::abi::FaultRecord::new();
    if let Some(tail) = k.checked_tail() {
        write_checked_tail(&mut block, tail, &record, &ranges);
    }
    let mut launch = Launch::new(
        range.work_dim,
        range.global_offset,
        range.global_size,
        range.local_size,
    );
    launch.local_mem_size = local_off;
    // `__local` memory starts out as the interpreter's does.
    let mut local = GuardedBuffer::with_guard(
        &vec![UNINIT_BYTE; local_off as usize + 64],
        vecl_jit::abi::LOCAL_PAD,
    );
    // SAFETY: the block matches `k.args()` (as below).
    let context_len = unsafe { k.launch_context_size(block.as_ptr(), &launch) };
    let mut context = GuardedBuffer::new(&vec![0u8; context_len + 64]);
    // SAFETY: the block matches `k.args()`; every buffer outlives the call and
    // holds every byte the interpreter found in bounds for this launch; the
    // local arena and the context area are 64-aligned and large enough.
    let status = unsafe {
        k.run_groups(
            block.as_ptr(),
            &launch,
            0,
            launch.total_groups(),
            local.ptr(),
            context.ptr(),
        )
    };
    if status != 0 {
        let why = if let Some(r) = vecl_jit::races::take_local_report() {
            r.to_string()
        } else if let Some(f) = record.fault() {
            f.to_string()
        } else {
            String::new()
        };
        return Err(format!("kernel status {status} {why}"));
    }
    let mut out = Vec::new();
    for b in bufs {
        out.push(match b {
            Some(b) if !b.guards_intact() => return Err("wrote past the end of a buffer".into()),
            Some(b) => Some(b.data().to_vec()),
            None => None,
        });
    }
    Ok(out)
}

/// What happened to one program.
#[derive(Debug)]
enum Outcome {
    Passed,
    /// The front end rejects the program (with the first line of its log).
    NotBuilt(String),
    Unsupported(String),
    Failed(String),
}

#[derive(Default)]
struct Tally {
    launches: usize,
    matched: usize,
    /// Launches the interpreter refused, with its reason.
    skipped: Vec<String>,
    /// Remarks that do not fail the test.
    notes: Vec<String>,
    compile_ms: Vec<f64>,
    /// Compilations that got the wide AVX-512 code (`VECL_WIDE=1`), and
    /// the refusals of the others, one per program.
    wide: usize,
    wide_refused: Vec<String>,
}

fn check_program(path: &Path, tally: &mut Tally) -> Outcome {
    let name = stem(path);
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(format!("read: {e}")),
    };
    let case = match corpus::parse(&source) {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let module: Module = match vecl_clc::build(&source, &case.options) {
        Ok(b) => b.module,
        // A program the front end does not build yet is the front end's
        // matter (`clc/tests/corpus.rs` reports it), not the JIT's.
        Err(e) => {
            let first = e.to_string().lines().next().unwrap_or("").to_string();
            return Outcome::NotBuilt(first);
        }
    };
    let tolerance = FLOAT_TOLERANCE
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|t| t.1);
    let mut kernels = Vec::new();
    // The JIT's own width last: its optimised code may hold a copy at a
    // second width for some launches (`vecl_jit::WIDE_WIDTH`).
    for w in WIDTHS.map(Some).into_iter().chain([None]) {
        let opts = JitOptions {
            simd_width: w,
            tiers: match w {
                Some(w) => test_tiers(w),
                None => vecl_jit::Tiers::OptimisedOnly,
            },
            passes: vecl_ir::transform::pipeline::PipelineOptions {
                verify: true,
                ..Default::default()
            },
            // `VECL_WIDE=1`: the wide AVX-512 code for the kernels it takes.
            wide: vecl::Config::from_env().wide,
            ..JitOptions::default()
        };
        let started = std::time::Instant::now();
        match compile_kernel(&module, &case.kernel, &opts) {
            Ok(k) => {
                let code = k.explain().lines().find(|l| l.starts_with("code: "));
                match code {
                    Some(l) if l.starts_with("code: wide") => tally.wide += 1,
                    Some(l) if w.is_none() => tally.wide_refused.push(format!("{name}: {l}")),
                    _ => {}
                }
                kernels.push(k);
            }
            Err(e @ JitError::Unsupported { .. }) => return Outcome::Unsupported(e.to_string()),
            Err(e) => return Outcome::Failed(e.to_string()),
        }
        tally.compile_ms.push(started.elapsed().as_secs_f64() * 1e3);
    }
    // Checked mode (bounds and `__local` checks) on the declared launch at
    // every width: a correct program runs clean and gives the same results.
    let mut checked = Vec::new();
    for w in WIDTHS {
        let opts = JitOptions {
            simd_width: Some(w),
            checked: true,
            local_checks: true,
            tiers: test_tiers(w),
            ..JitOptions::default()
        };
        match compile_kernel(&module, &case.kernel, &opts) {
            Ok(k) => checked.push(k),
            Err(e) => return Outcome::Failed(format!("checked, W={w}: {e}")),
        }
    }
    let mut failures = String::new();
    let uses_sub_groups = source.contains("sub_group");
    for v in variants(
        &name,
        &case,
        !shape_dependent(&source) && !DECLARED_RANGE_ONLY.iter().any(|(n, _)| *n == name),
    ) {
        let mut want = v.args.clone();
        if let Err(e) = run_kernel(&module, &case.kernel, &mut want, &v.range) {
            if v.declared {
                return Outcome::Failed(format!(
                    "the interpreter fails on the declared launch: {e}"
                ));
            }
            tally.skipped.push(format!("{name} {}: {e}", v.label));
            continue;
        }
        // An `@expect` the interpreter does not meet either is a matter of
        // the header or the front end (`clc/tests/corpus.rs` reports it),
        // not of the JIT.
        let header_wrong = v.declared
            && expect_failure(&case, |i| match &want[i] {
                KernelArg::Buffer(b) => Some(b.clone()),
                _ => None,
            })
            .inspect(|e| {
                tally
                    .notes
                    .push(format!("{name}: the interpreter too: {e}"))
            })
            .is_some();
        let checked_here = checked.iter().filter(|_| v.declared);
        for k in kernels.iter().chain(checked_here) {
            tally.launches += 1;
            let shape = format!(
                "W={}{} {} (offset {:?} global {:?} local {:?})",
                k.simd_width(),
                if k.checked_tail().is_some() {
                    " checked"
                } else {
                    ""
                },
                v.label,
                &v.range.global_offset[..v.range.work_dim as usize],
                &v.range.global_size[..v.range.work_dim as usize],
                &v.range.local_size[..v.range.work_dim as usize]
            );
            // Sub-group results depend on the sub-group size, which is the
            // width: the interpreter runs again with that size.
            let want_w;
            let want: &Vec<KernelArg> = if uses_sub_groups {
                let mut w = v.args.clone();
                let opts = RunOptions {
                    sub_group_size: k.simd_width(),
                };
                if let Err(e) = run_kernel_with(&module, &case.kernel, &mut w, &v.range, &opts) {
                    let _ = writeln!(failures, "{shape}: the interpreter at this width: {e}");
                    continue;
                }
                want_w = w;
                &want_w
            } else {
                &want
            };
            let got = match run_jit(k, &v.args, &v.range) {
                Ok(g) => g,
                Err(e) => {
                    let _ = writeln!(failures, "{shape}: {e}");
                    continue;
                }
            };
            let mut ok = true;
            for (i, (a, g)) in case.args.iter().zip(&got).enumerate() {
                let (Arg::Buffer { elem, .. }, Some(g), KernelArg::Buffer(w)) = (a, g, &want[i])
                else {
                    continue;
                };
                if let Some((at, wv, gv)) = first_difference(*elem, w, g, tolerance, DEFAULT_ULPS) {
                    ok = false;
                    let _ = writeln!(
                        failures,
                        "{shape}: argument {i} element {at}: interpreter {wv}, JIT {gv}"
                    );
                }
            }
            if v.declared && !header_wrong {
                if let Some(e) = expect_failure(&case, |i| got.get(i).cloned().flatten()) {
                    ok = false;
                    let _ = writeln!(failures, "{shape}: JIT {e}");
                }
            }
            if ok {
                tally.matched += 1;
            }
        }
    }
    if failures.is_empty() {
        return Outcome::Passed;
    }
    let lines: Vec<&str> = failures.lines().collect();
    let mut text = lines[..lines.len().min(6)].join("\n");
    if lines.len() > 6 {
        let _ = write!(text, "\n… and {} more", lines.len() - 6);
    }
    Outcome::Failed(text)
}

/// What is wrong, if anything, with `outcome` for program `name` that the
/// known-failure list says fails as `known`.
fn judge(name: &str, outcome: &Outcome, known: Option<Failure>) -> Option<String> {
    match (outcome, known) {
        (Outcome::Passed, None) | (Outcome::NotBuilt(_), _) => None,
        (Outcome::Passed, Some(_)) => Some(format!(
            "{name} passes now: remove {name} from the known-failure list"
        )),
        (Outcome::Unsupported(msg), Some(Failure::Unsupported(what))) if msg.contains(what) => None,
        (Outcome::Failed(_), Some(Failure::Mismatch)) => None,
        (outcome, Some(how)) => Some(format!(
            "{name} is on the known-failure list as {how:?} but now: {outcome:?}"
        )),
        (Outcome::Unsupported(msg), None) => Some(format!("{name}: {msg}")),
        (Outcome::Failed(msg), None) => Some(format!("{name}:\n{msg}")),
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn jit_agrees_with_interpreter_on_the_opencl_c_corpus() {
    let files = opencl_c_programs();
    assert!(files.len() >= 50, "corpus has {} programs", files.len());
    let mut tally = Tally::default();
    let mut problems = Vec::new();
    let mut unsupported = 0;
    for path in &files {
        let name = stem(path);
        let known = KNOWN_FAILURES.iter().find(|(n, _, _)| *n == name);
        let outcome = check_program(path, &mut tally);
        match &outcome {
            Outcome::Unsupported(_) => unsupported += 1,
            Outcome::NotBuilt(why) => tally.notes.push(format!(
                "{name}: the front end does not build it, not run: {why}"
            )),
            _ => {}
        }
        if let Some(p) = judge(&name, &outcome, known.map(|k| k.1)) {
            problems.push(p);
        }
    }
    for s in &tally.skipped {
        eprintln!("skipped: {s}");
    }
    for n in &tally.notes {
        eprintln!("note: {n}");
    }
    for r in &tally.wide_refused {
        eprintln!("wide: {r}");
    }
    if vecl::Config::from_env().wide {
        eprintln!(
            "wide code: {} compilations of {} programs ({} refused at the JIT's own width)",
            tally.wide,
            files.len(),
            tally.wide_refused.len()
        );
    }
    let mut ms = tally.compile_ms.clone();
    ms.sort_by(f64::total_cmp);
    eprintln!(
        "{} programs ({} known failures, {unsupported} of them unsupported): {} JIT launches, {} matched, {} shapes skipped (the interpreter refused them); compile median {:.2} ms, max {:.2} ms",
        files.len(),
        KNOWN_FAILURES.len(),
        tally.launches,
        tally.matched,
        tally.skipped.len(),
        ms.get(ms.len() / 2).copied().unwrap_or(0.0),
        ms.last().copied().unwrap_or(0.0)
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        tally.matched > 500,
        "only {} launches matched",
        tally.matched
    );
}

#[test]
fn the_known_failure_list_shrinks_honestly() {
    let unsupported =
        Outcome::Unsupported("kernel `k`: not supported yet: barrier in a nested loop".into());
    let mismatch = Outcome::Failed("W=4: argument 1 element 3".into());
    let listed = Failure::Unsupported("barrier in a nested loop");
    assert_eq!(judge("p", &unsupported, Some(listed)), None);
    assert_eq!(judge("p", &mismatch, Some(Failure::Mismatch)), None);
    let fixed = judge("p", &Outcome::Passed, Some(listed)).unwrap_or_default();
    assert!(
        fixed.contains("remove p from the known-failure list"),
        "{fixed}"
    );
    let changed = judge("p", &mismatch, Some(listed)).unwrap_or_default();
    assert!(changed.contains("now"), "{changed}");
    assert!(judge("p", &unsupported, None).is_some());
    assert!(judge("p", &Outcome::Passed, None).is_none());
    for (name, _, why) in KNOWN_FAILURES {
        assert!(!why.is_empty(), "{name} needs its cause");
    }
}

//! Checks one generated kernel: the front end builds it, the IR interpreter
//! runs it (the reference), and the JIT runs it at every SIMD width and
//! tier over the same launch shapes, every group of a launch in turn on
//! this thread, like the JIT's differential tests (`tests/jit_corpus.rs`);
//! every buffer must come out byte for byte the same, and the guard bytes
//! around them untouched. Launches of whole work-groups from offset 0 also
//! run through vecl's Rust API (the runtime's thread pool and launch
//! planning) and, when asked, on PoCL through the OpenCL API, with the
//! benchmark's backends (`bench::vecl_backend`, `bench::opencl_backend`).

use super::generate::{Rng, ATOMIC_INIT, IN_WORDS, KERNEL};
use crate::cli::bench::opencl_backend::OpenClBackend;
use crate::cli::bench::vecl_backend::VeclBackend;
use crate::cli::bench::workload::{ArgSpec, Backend, Metric, Workload};
use serde::{Deserialize, Serialize};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange, UNINIT_BYTE};
use vecl_jit::abi::{checked_offsets as co, FaultRecord, Launch, LOCAL_PAD};
use vecl_jit::guarded::{GuardedBuffer, GUARD};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};

/// One launch shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    pub dims: u32,
    pub offset: [u64; 2],
    pub global: [u64; 2],
    pub local: [u64; 2],
}

impl Shape {
    fn items(&self) -> u64 {
        self.global[0] * self.global[1]
    }

    /// Whole work-groups from offset 0: what every OpenCL 1.2 platform runs.
    fn plain(&self) -> bool {
        self.offset == [0, 0]
            && self.global[0].is_multiple_of(self.local[0])
            && self.global[1].is_multiple_of(self.local[1])
    }

    fn range(&self) -> NdRange {
        NdRange {
            work_dim: self.dims,
            global_offset: [self.offset[0], self.offset[1], 0],
            global_size: [self.global[0], self.global[1], 1],
            local_size: [self.local[0], self.local[1], 1],
        }
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.dims as usize;
        write!(
            f,
            "offset {:?} global {:?} local {:?}",
            &self.offset[..d],
            &self.global[..d],
            &self.local[..d]
        )
    }
}

/// The launch shapes of seed `seed`: whole groups of 32 and 64 items (the
/// JIT's wide copy), partial chunks and partial last groups, offsets, and
/// sometimes two dimensions; local sizes at most `MAX_LOCAL`.
pub fn shapes(seed: u64) -> Vec<Shape> {
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5ea9e);
    let one = |offset: u64, global: u64, local: u64| Shape {
        dims: 1,
        offset: [offset, 0],
        global: [global, 1],
        local: [local, 1],
    };
    let mut out = vec![one(0, 64, rng.pick(&[16, 32, 64]))];
    let l = rng.pick(&[1, 3, 4, 5, 8, 12, 16, 24]);
    out.push(one(0, l * (1 + rng.below(4)), l));
    // A partial last group and a partial chunk, from an offset.
    let l = 2 + rng.below(40);
    out.push(one(rng.below(7), l + 1 + rng.below(2 * l), l));
    if rng.percent(30) {
        let l = [1 + rng.below(8), 1 + rng.below(4)];
        out.push(Shape {
            dims: 2,
            offset: [rng.below(3), rng.below(3)],
            global: [l[0] * 2 + rng.below(3), l[1] * 2],
            local: l,
        });
    }
    out
}

/// How a kernel failed, from the least to the most specific.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// The front end rejected it (or panicked).
    FrontEnd,
    /// The interpreter failed on it.
    Interpreter,
    /// The JIT refused it or failed to compile it.
    Compile,
    /// A JIT run returned a non-zero status or wrote outside its buffers.
    Run,
    /// A buffer differs between the interpreter and the JIT.
    Mismatch,
    /// A buffer differs between the interpreter and the Rust API's run.
    ApiMismatch,
    /// A buffer differs between the interpreter and PoCL (or PoCL failed).
    Pocl,
    /// The checking process died (a crash of the JIT's code, say).
    Crash,
    /// The check took too long.
    Timeout,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::FrontEnd => "front-end",
            Kind::Interpreter => "interpreter",
            Kind::Compile => "compile",
            Kind::Run => "run",
            Kind::Mismatch => "mismatch",
            Kind::ApiMismatch => "api-mismatch",
            Kind::Pocl => "pocl",
            Kind::Crash => "crash",
            Kind::Timeout => "timeout",
        }
    }
}

/// What a check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Everything agreed over this many launches; `wide`: a variant got
    /// the wide AVX-512 code.
    Pass {
        launches: usize,
        #[serde(default)]
        wide: bool,
    },
    /// A finding: its kind, the variant and shape, and what differed.
    Finding { kind: Kind, detail: String },
}

/// The inputs of a launch of `items` work-items.
fn inputs(items: u64) -> Vec<KernelArg> {
    let mut rng = Rng::new(0x1a2b_3c4d);
    let input: Vec<u8> = (0..IN_WORDS)
        .flat_map(|i| {
            let v = match i % 4 {
                0 => rng.below(16) as u32,
                1 => rng.next() as u32,
                2 => (rng.next() as u32) | 0x8000_0000,
                _ => rng.below(1 << 12) as u32,
            };
            v.to_le_bytes()
        })
        .collect();
    let out: Vec<u8> = (0..items as u32)
        .flat_map(|i| i.wrapping_mul(0x9e37_79b9).to_le_bytes())
        .collect();
    let atoms: Vec<u8> = ATOMIC_INIT.iter().flat_map(|v| v.to_le_bytes()).collect();
    vec![
        KernelArg::Buffer(out),
        KernelArg::Buffer(input),
        KernelArg::Buffer(atoms),
    ]
}

/// The JIT variants every kernel runs on: (label, width, tiers).
fn variants() -> Vec<(String, JitOptions)> {
    let mut out = Vec::new();
    // The first is Cranelift's code at the wide code's width: the
    // reference of kernels with transcendental functions
    // (`Reference::Cranelift`).
    for (w, tiers, wide) in [
        (Some(16), Tiers::OptimisedOnly, false),
        (Some(4), Tiers::OptimisedOnly, true),
        (Some(8), Tiers::QuickOnly, true),
        (Some(16), Tiers::OptimisedOnly, true),
        (Some(32), Tiers::OptimisedOnly, true),
        (None, Tiers::OptimisedOnly, true),
        // Robust access (the safe API's default), which the wide code
        // takes too.
        (Some(16), Tiers::OptimisedOnly, true),
    ] {
        let robust = out.len() == 6;
        let label = format!(
            "W={} {}{}{}",
            w.map_or("default".to_string(), |w: u32| w.to_string()),
            if tiers == Tiers::QuickOnly {
                "quick"
            } else {
                "optimised"
            },
            if wide { "" } else { " Cranelift" },
            if robust { " robust" } else { "" }
        );
        let opts = JitOptions {
            simd_width: w,
            tiers,
            stream_min_items: u64::MAX,
            wide,
            checked: robust,
            ..JitOptions::default()
        };
        out.push((label, opts));
    }
    out
}

/// What to check besides the interpreter against the JIT.
#[derive(Default)]
pub struct Extra {
    /// Runs through vecl's Rust API.
    pub api: Option<VeclBackend>,
    /// PoCL, through the OpenCL API.
    pub pocl: Option<OpenClBackend>,
}

/// What the JIT's results are compared against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reference {
    /// The interpreter, bit for bit.
    #[default]
    Interpreter,
    /// Cranelift's code at W = 16 (the first variant), for kernels whose
    /// transcendental functions the interpreter computes with the host's
    /// `libm` (`wide::needs_cranelift_reference`); the interpreter still
    /// runs each launch, and must not fail.
    Cranelift,
}

/// Checks kernel `source` over `shapes` against `reference`, on every JIT
/// variant, or with `rotate` on two of them (which two turns with its
/// value; the reference's variant always runs).
pub fn check(
    source: &str,
    shapes: &[Shape],
    rotate: Option<u64>,
    extra: &mut Extra,
    reference: Reference,
) -> Verdict {
    let finding = |kind: Kind, detail: String| Verdict::Finding { kind, detail };
    let module = match catch(|| vecl_clc::build(source, "")) {
        Ok(Ok(b)) => b.module,
        Ok(Err(e)) => {
            // Whether the kernel is valid: PoCL's front end is clang's.
            let pocl = match (&mut extra.pocl, shapes.iter().find(|s| s.plain())) {
                (Some(pocl), Some(shape)) => match pocl.run(&workload(source, shape), false) {
                    Ok(_) => "\n(PoCL builds and runs it)".to_string(),
                    Err(e) => format!("\n(PoCL fails too: {})", first_lines(&e, 3)),
                },
                _ => String::new(),
            };
            let log = first_lines(&e.to_string(), 8);
            return finding(Kind::FrontEnd, format!("{log}{pocl}"));
        }
        Err(p) => return finding(Kind::FrontEnd, format!("panic: {p}")),
    };
    let mut kernels = Vec::new();
    let all = variants();
    let n = all.len() as u64;
    for (i, (label, opts)) in all.into_iter().enumerate() {
        let referee = i == 0 && reference == Reference::Cranelift;
        if !referee && rotate.is_some_and(|r| i as u64 != r % n && i as u64 != (r + 2) % n) {
            continue;
        }
        match catch(|| compile_kernel(&module, KERNEL, &opts)) {
            Ok(Ok(k)) => kernels.push((label, k)),
            Ok(Err(e)) => return finding(Kind::Compile, format!("{label}: {e}")),
            Err(p) => return finding(Kind::Compile, format!("{label}: panic: {p}")),
        }
    }
    let mut launches = 0;
    for shape in shapes {
        let mut want = inputs(shape.items());
        let range = shape.range();
        match catch(|| run_kernel(&module, KERNEL, &mut want, &range)) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return finding(Kind::Interpreter, format!("{shape}: {e}")),
            Err(p) => return finding(Kind::Interpreter, format!("{shape}: panic: {p}")),
        }
        let mut want: Vec<Vec<u8>> = want
            .into_iter()
            .map(|a| match a {
                KernelArg::Buffer(b) => b,
                _ => Vec::new(),
            })
            .collect();
        let mut kernels = &kernels[..];
        if reference == Reference::Cranelift {
            let (label, k) = &kernels[0];
            launches += 1;
            want = match catch(|| run_jit(k, &inputs(shape.items()), &range)) {
                Ok(Ok(g)) => g,
                Ok(Err(e)) => return finding(Kind::Run, format!("{label} {shape}: {e}")),
                Err(p) => return finding(Kind::Run, format!("{label} {shape}: panic: {p}")),
            };
            kernels = &kernels[1..];
        }
        for (label, k) in kernels {
            launches += 1;
            let got = match catch(|| run_jit(k, &inputs(shape.items()), &range)) {
                Ok(Ok(g)) => g,
                Ok(Err(e)) => return finding(Kind::Run, format!("{label} {shape}: {e}")),
                Err(p) => return finding(Kind::Run, format!("{label} {shape}: panic: {p}")),
            };
            if let Some(d) = difference(&want, &got) {
                let d = match reference {
                    Reference::Interpreter => d,
                    Reference::Cranelift => d.replace("the interpreter's", "Cranelift's W=16"),
                };
                let third = third_opinion(source, shape, &want, &got, extra);
                return finding(Kind::Mismatch, format!("{label} {shape}: {d}{third}"));
            }
        }
        if !shape.plain() {
            continue;
        }
        let work = workload(source, shape);
        if let Some(api) = &mut extra.api {
            launches += 1;
            let got = match catch(|| api.run(&work, false)) {
                Ok(Ok(m)) => m.outputs,
                Ok(Err(e)) => return finding(Kind::ApiMismatch, format!("Rust API {shape}: {e}")),
                Err(p) => {
                    return finding(Kind::ApiMismatch, format!("Rust API {shape}: panic: {p}"))
                }
            };
            let want = [want[0].clone(), want[2].clone()];
            if let Some(d) = difference(&want, &got) {
                return finding(Kind::ApiMismatch, format!("Rust API {shape}: {d}"));
            }
        }
        if let Some(pocl) = &mut extra.pocl {
            launches += 1;
            let got = match pocl.run(&work, false) {
                Ok(m) => m.outputs,
                Err(e) => return finding(Kind::Pocl, format!("PoCL {shape}: {e}")),
            };
            let want = [want[0].clone(), want[2].clone()];
            if let Some(d) = difference(&want, &got) {
                return finding(Kind::Pocl, format!("PoCL {shape}: {d}"));
            }
        }
    }
    // Without making the reports: a kernel the wide code takes is lowered
    // for its report only.
    let wide = kernels.iter().any(|(_, k)| k.has_wide_code());
    Verdict::Pass { launches, wide }
}

/// Which side PoCL takes in a mismatch between the interpreter (`want`)
/// and the JIT (`got`), when it runs the shape.
fn third_opinion(
    source: &str,
    shape: &Shape,
    want: &[Vec<u8>],
    got: &[Vec<u8>],
    extra: &mut Extra,
) -> String {
    let Some(pocl) = extra.pocl.as_mut().filter(|_| shape.plain()) else {
        return String::new();
    };
    let theirs = match pocl.run(&workload(source, shape), false) {
        Ok(m) => m.outputs,
        Err(e) => return format!("; PoCL fails: {e}"),
    };
    let pick = |b: &[Vec<u8>]| [b[0].clone(), b[2].clone()];
    match (
        difference(&pick(want), &theirs).is_none(),
        difference(&pick(got), &theirs).is_none(),
    ) {
        (true, _) => "; PoCL agrees with the interpreter".into(),
        (false, true) => "; PoCL agrees with the JIT".into(),
        (false, false) => "; PoCL agrees with neither".into(),
    }
}

/// The launch as a benchmark workload (outputs: `out`, then `gatom`).
fn workload(source: &str, shape: &Shape) -> Workload {
    let args = inputs(shape.items());
    let bytes = |a: &KernelArg| match a {
        KernelArg::Buffer(b) => b.clone(),
        _ => Vec::new(),
    };
    let d = shape.dims as usize;
    Workload {
        name: "fuzz",
        size: String::new(),
        source: source.to_string().into(),
        kernel: KERNEL,
        args: vec![
            ArgSpec::InOut(bytes(&args[0])),
            ArgSpec::In(bytes(&args[1])),
            ArgSpec::InOut(bytes(&args[2])),
        ],
        global: shape.global[..d].to_vec(),
        local: Some(shape.local[..d].to_vec()),
        reps: 1,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(|_| Ok(())),
    }
}

/// Where `got` differs from `want` (buffers of `uint`s).
fn difference(want: &[Vec<u8>], got: &[Vec<u8>]) -> Option<String> {
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        if w.len() != g.len() {
            return Some(format!(
                "buffer {i}: {} bytes, expected {}",
                g.len(),
                w.len()
            ));
        }
        let words = |b: &[u8]| -> Vec<u32> {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let (w, g) = (words(w), words(g));
        let bad: Vec<usize> = (0..w.len()).filter(|&j| w[j] != g[j]).collect();
        if let Some(&first) = bad.first() {
            let name = ["out", "in", "gatom"].get(i).copied().unwrap_or("?");
            let name = if want.len() == 2 && i == 1 {
                "gatom"
            } else {
                name
            };
            return Some(format!(
                "{name}[{first}] = {:#010x}, the interpreter's {:#010x} ({} of {} words differ)",
                g[first],
                w[first],
                bad.len(),
                w.len()
            ));
        }
    }
    None
}

/// Runs `f`, turning a panic into its message.
fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into())
    })
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("\n")
}

/// Runs every group of `range` through `k` on this thread; returns the
/// buffers afterwards.
fn run_jit(
    k: &CompiledKernel,
    args: &[KernelArg],
    range: &NdRange,
) -> Result<Vec<Vec<u8>>, String> {
    let mut bufs: Vec<GuardedBuffer> = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => GuardedBuffer::new(b),
            _ => GuardedBuffer::new(&[]),
        })
        .collect();
    if k.args().len() != bufs.len() {
        return Err(format!("{} argument slots", k.args().len()));
    }
    let mut block = vec![0u8; k.args_size().max(8)];
    let put = |block: &mut Vec<u8>, at: usize, v: u64| {
        block[at..at + 8].copy_from_slice(&v.to_le_bytes())
    };
    // Robust access: the fault record and each buffer's bounds in the
    // argument block's tail (`vecl_jit::abi`, "Checked mode").
    let record = FaultRecord::new();
    let tail = k.checked_tail();
    if let Some(t) = tail {
        put(&mut block, t, &record as *const FaultRecord as u64);
    }
    for (i, ((slot, buf), arg)) in k.args().iter().zip(bufs.iter_mut()).zip(args).enumerate() {
        let at = slot.offset as usize;
        let p = buf.ptr() as u64;
        put(&mut block, at, p);
        if let (Some(t), KernelArg::Buffer(b)) = (tail, arg) {
            let e = t + (co::BOUNDS + co::BOUNDS_ENTRY * i as i32) as usize;
            put(&mut block, e, p);
            put(&mut block, e + 8, p + b.len() as u64);
        }
    }
    let mut launch = Launch::new(
        range.work_dim,
        range.global_offset,
        range.global_size,
        range.local_size,
    );
    launch.local_mem_size = k.static_local_size() as u64;
    // `__local` memory starts out as the interpreter's does.
    let mut local = GuardedBuffer::with_guard(
        &vec![UNINIT_BYTE; launch.local_mem_size as usize + 64],
        LOCAL_PAD,
    );
    let mut context = GuardedBuffer::with_guard(
        // SAFETY: as for the run below.
        &vec![0u8; unsafe { k.launch_context_size(block.as_ptr(), &launch) } + 64],
        GUARD,
    );
    // SAFETY: the block holds a pointer to each buffer, sized for every
    // access the interpreter made (the same for the JIT, or the guards
    // show otherwise); the local arena and the context area are 64-aligned
    // with the padding the ABI asks for, and outlive the call.
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
        return Err(format!("kernel status {status}"));
    }
    if !bufs.iter().all(GuardedBuffer::guards_intact) || !context.guards_intact() {
        return Err("wrote past the end of a buffer".into());
    }
    Ok(bufs.iter().map(|b| b.data().to_vec()).collect())
}

//! `vecl fuzz`: a differential fuzzer of random UB-free OpenCL C kernels.
//!
//! Each seed gives a kernel ([`generate`]) and a few launch shapes; a
//! worker process (`vecl fuzz-worker`, this same binary) builds it and
//! runs it on the interpreter, on the JIT at every width and tier, through
//! the Rust API and, with `--pocl`, on PoCL ([`check`]), and answers with
//! a verdict. A worker that dies (a crash of generated code) or takes too
//! long is a finding too, and is replaced. Each finding is saved under
//! `--out` (the kernel, its seed and shapes, what differed) and reduced
//! ([`reduce`]) with the same worker while it fails the same way.

pub mod check;
pub mod generate;
pub mod reduce;
pub mod wide;

use check::{Extra, Kind, Reference, Shape, Verdict};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What `vecl fuzz` was asked for.
pub struct FuzzRequest {
    /// Stop after this long (with `count`, whichever comes first).
    pub seconds: Option<u64>,
    /// Check this many seeds.
    pub count: Option<u64>,
    /// The first seed.
    pub seed: u64,
    /// Where findings go.
    pub out: PathBuf,
    /// Compare with PoCL too.
    pub pocl: bool,
    /// Generate `goto`.
    pub goto: bool,
    /// Seconds one check may take.
    pub timeout: u64,
    /// Seconds of reduction per finding (0: none).
    pub reduce_seconds: u64,
    /// Check this file (with the seed's shapes) instead of generating.
    pub replay: Option<PathBuf>,
    /// Print the kernel of `seed` and its shapes instead of checking it.
    pub emit: bool,
    /// Smaller kernels, two JIT variants each (turning with the seed), no
    /// run through the Rust API: many seeds in little time.
    pub quick: bool,
    /// The `float` kernels of the wide code's shape ([`wide`]) instead of
    /// the integer generator's.
    pub wide: bool,
}

/// A request to the worker.
#[derive(Serialize, Deserialize)]
struct Job {
    source: String,
    shapes: Vec<Shape>,
    /// Two JIT variants only, chosen by this (see [`check::check`]).
    rotate: Option<u64>,
    /// What the JIT is compared against.
    #[serde(default)]
    reference: Reference,
}

/// The prefix of the worker's answer lines (anything else it prints, it
/// prints for itself).
const ANSWER: &str = "@@fuzz-verdict ";

/// `vecl fuzz-worker`: answers jobs from standard input until it closes.
pub fn worker(pocl: bool, api: bool) -> Result<String, String> {
    let mut extra = Extra {
        api: match api {
            true => Some(crate::cli::bench::vecl_backend::VeclBackend::new(
                vecl::Safety::Robust,
            )?),
            false => None,
        },
        pocl: None,
    };
    if pocl {
        let found = crate::cli::bench::opencl_backend::discover()?;
        extra.pocl = found.into_iter().find(|b| {
            use crate::cli::bench::workload::Backend;
            b.label().starts_with("PoCL")
        });
        if extra.pocl.is_none() {
            return Err("--pocl: no PoCL platform found".into());
        }
    }
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        let job: Job = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        let verdict = check::check(
            &job.source,
            &job.shapes,
            job.rotate,
            &mut extra,
            job.reference,
        );
        let text = serde_json::to_string(&verdict).map_err(|e| e.to_string())?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{ANSWER}{text}").map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(String::new())
}

/// A worker process and the lines it prints.
struct Worker {
    pocl: bool,
    api: bool,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Worker {
    fn start(pocl: bool, api: bool) -> Result<Worker, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(exe);
        cmd.arg("fuzz-worker");
        if pocl {
            cmd.arg("--pocl");
        }
        if !api {
            cmd.arg("--no-api");
        }
        // Each check runs single-threaded: one pool thread for the Rust API.
        cmd.env("VECL_THREADS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().map_err(|e| format!("starting a worker: {e}"))?;
        let stdin = child.stdin.take().ok_or("no worker stdin")?;
        let stdout = child.stdout.take().ok_or("no worker stdout")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Worker {
            pocl,
            api,
            child,
            stdin,
            lines,
        })
    }

    /// Replaces the worker with a fresh one (the old one killed).
    fn restart(&mut self) -> Result<(), String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        *self = Worker::start(self.pocl, self.api)?;
        Ok(())
    }

    fn check(
        &mut self,
        source: &str,
        shapes: &[Shape],
        rotate: Option<u64>,
        timeout: Duration,
    ) -> Result<Verdict, String> {
        let reference = match wide::needs_cranelift_reference(source) {
            true => Reference::Cranelift,
            false => Reference::Interpreter,
        };
        let job = Job {
            source: source.to_string(),
            shapes: shapes.to_vec(),
            rotate,
            reference,
        };
        let text = serde_json::to_string(&job).map_err(|e| e.to_string())?;
        if writeln!(self.stdin, "{text}")
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            return self.died();
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(json) = line.strip_prefix(ANSWER) {
                        return serde_json::from_str(json).map_err(|e| e.to_string());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.restart()?;
                    return Ok(Verdict::Finding {
                        kind: Kind::Timeout,
                        detail: format!("no verdict within {} s", timeout.as_secs()),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => return self.died(),
            }
        }
    }

    /// The worker ended without a verdict: a crash.
    fn died(&mut self) -> Result<Verdict, String> {
        let status = self.child.wait().map_err(|e| e.to_string())?;
        self.restart()?;
        Ok(Verdict::Finding {
            kind: Kind::Crash,
            detail: format!("the checking process ended: {status}"),
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `v` is the same failure as `first` (for the reducer).
fn same_failure(first: &Verdict, v: &Verdict) -> bool {
    let strip = |s: &str| -> String {
        s.lines()
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .collect()
    };
    match (first, v) {
        (Verdict::Finding { kind: a, detail: x }, Verdict::Finding { kind: b, detail: y }) => {
            a == b
                && match a {
                    // The same message, wherever it points.
                    Kind::FrontEnd | Kind::Compile | Kind::Interpreter => {
                        let (x, y) = (strip(x), strip(y));
                        let tail = |s: &str| s.rsplit(':').next().unwrap_or("").trim().to_string();
                        tail(&x) == tail(&y)
                    }
                    _ => true,
                }
        }
        _ => false,
    }
}

/// Saves a finding and its reduction; returns a line for the summary.
fn record(
    req: &FuzzRequest,
    worker: &mut Worker,
    seed: u64,
    source: &str,
    shapes: &[Shape],
    kind: Kind,
    detail: &str,
) -> Result<String, String> {
    let dir = finding_dir(&req.out, kind, seed);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |name: &str, text: &str| -> Result<(), String> {
        std::fs::write(dir.join(name), text)
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    write("kernel.cl", source)?;
    let mut info = format!("seed {seed}\nkind {}\n{detail}\nshapes:\n", kind.label());
    for s in shapes {
        info.push_str(&format!("  {s}\n"));
    }
    info.push_str(&format!(
        "reproduce: vecl fuzz --seed {seed} --count 1{}{}{}{} --out DIR\n",
        if req.wide { " --wide" } else { "" },
        if req.goto { " --goto" } else { "" },
        if req.quick { " --quick" } else { "" },
        if req.pocl { " --pocl" } else { "" }
    ));
    write("finding.txt", &info)?;
    let mut reduced_note = String::new();
    let rotate = req.quick.then_some(seed);
    if req.reduce_seconds > 0 && kind != Kind::Timeout {
        let first = Verdict::Finding {
            kind,
            detail: detail.to_string(),
        };
        let timeout = Duration::from_secs(req.timeout);
        let mut checks = 0;
        let mut fails = |cand: &str| {
            checks += 1;
            match worker.check(cand, shapes, rotate, timeout) {
                Ok(v) => same_failure(&first, &v),
                Err(_) => false,
            }
        };
        let deadline = Instant::now() + Duration::from_secs(req.reduce_seconds);
        let small = reduce::reduce(source, &mut fails, deadline);
        let verdict = worker.check(&small, shapes, rotate, timeout)?;
        let text = match &verdict {
            Verdict::Finding { detail, .. } => detail.clone(),
            Verdict::Pass { .. } => "passes (the failure is not deterministic)".into(),
        };
        write("reduced.cl", &small)?;
        write("reduced.txt", &format!("{text}\n"))?;
        reduced_note = format!(
            ", reduced to {} lines in {checks} checks",
            small.lines().count()
        );
    }
    Ok(format!(
        "{}: seed {seed}: {}{reduced_note} ({})",
        kind.label(),
        detail.lines().next().unwrap_or(""),
        dir.display()
    ))
}

/// `vecl fuzz`.
pub fn run(req: &FuzzRequest) -> Result<String, String> {
    let opts = generate::Options {
        goto: req.goto,
        small: req.quick,
    };
    let kernel = |seed: u64| match req.wide {
        true => wide::generate(seed),
        false => generate::generate(seed, &opts),
    };
    let shapes = |seed: u64| match req.wide {
        true => wide::shapes(seed),
        false => check::shapes(seed),
    };
    if req.emit {
        let mut text = kernel(req.seed);
        for s in shapes(req.seed) {
            text.push_str(&format!("// shape: {s}\n"));
        }
        return Ok(text);
    }
    let started = Instant::now();
    let stop = req.seconds.map(|s| started + Duration::from_secs(s));
    let count = match (req.count, req.seconds, &req.replay) {
        (_, _, Some(_)) => 1,
        (Some(c), _, _) => c,
        (None, Some(_), _) => u64::MAX,
        (None, None, None) => 100,
    };
    let mut worker = Worker::start(req.pocl, !req.quick)?;
    let timeout = Duration::from_secs(req.timeout);
    let (mut kernels, mut launches, mut wide_kernels) = (0u64, 0usize, 0u64);
    let mut findings = Vec::new();
    let mut seed = req.seed;
    while kernels < count && stop.is_none_or(|s| Instant::now() < s) {
        let source = match &req.replay {
            Some(p) => std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?,
            None => kernel(seed),
        };
        let shapes = shapes(seed);
        match worker.check(&source, &shapes, req.quick.then_some(seed), timeout)? {
            Verdict::Pass { launches: n, wide } => {
                launches += n;
                wide_kernels += u64::from(wide);
            }
            Verdict::Finding { kind, detail } => {
                let line = record(req, &mut worker, seed, &source, &shapes, kind, &detail)?;
                eprintln!("finding: {line}");
                findings.push(line);
            }
        }
        kernels += 1;
        seed = seed.wrapping_add(1);
    }
    let mut text = format!(
        "fuzz: {kernels} kernels (seeds {}..{}; {wide_kernels} got the wide code), {launches} launches compared, {} findings in {:.1} s\n",
        req.seed,
        seed,
        findings.len(),
        started.elapsed().as_secs_f64()
    );
    for f in &findings {
        text.push_str(&format!("  {f}\n"));
    }
    if findings.is_empty() {
        Ok(text)
    } else {
        Err(text)
    }
}

/// The directory a finding of `kind` for `seed` is saved in.
fn finding_dir(out: &Path, kind: Kind, seed: u64) -> PathBuf {
    out.join(format!("{}-seed{seed}", kind.label()))
}

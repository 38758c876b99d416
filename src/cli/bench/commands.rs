//! The command engine's rows: how fast a platform's OpenCL driver takes
//! small commands from several host threads, and how long a non-blocking
//! enqueue of a long kernel takes to return.
//!
//! Both go through each platform's C driver and ICD loader, vecl's
//! included: `libvecl.so` (the `vecl-icd` crate, built beside the `vecl`
//! binary) is handed to the loader through a vendors directory in the
//! report's folder that also holds copies of the system's `.icd` files.
//! Each row runs on each platform in a child process (`vecl
//! bench-commands`), so that a driver that crashes or hangs loses its own
//! entry and nothing else.
//!
//! Throughput: [`THREADS`] host threads each own a 64-byte buffer and a
//! kernel object (clSetKernelArg, the one call that is not thread-safe,
//! stays on each thread's own kernel) and enqueue chains of a non-blocking
//! write → a kernel of 16 work-items adding 1 → a non-blocking read, each
//! command waiting on the previous one's event, into their own in-order
//! queues, one shared out-of-order queue or one shared in-order queue. The
//! time from the threads' start until every queue has finished, over the
//! commands, is reported per command, so that the ratio to vecl's reads
//! like the other rows' (above 1: vecl's throughput is higher).
//!
//! Latency: the time for clEnqueueNDRangeKernel of a kernel calibrated to
//! run over 100 ms to return, and the kernel's status at that moment.
//!
//! Launch chain: the per-launch cost of an application's time-step loop
//! (`benches/programs.py`'s FDTD): [`CHAIN_LAUNCHES`] launches of a kernel
//! over a [`CHAIN_SIDE`]² grid into one in-order queue, a scalar argument
//! set before each, no events asked for, `clFinish` at the end; the time
//! from the first enqueue to the finish, over the launches.

use super::opencl_backend::{build_program, check, platforms, Api, FoundPlatform, Handle};
use super::report::{BenchResult, EngineDetail, PlatformResult};
use super::workload::median;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::{null, null_mut};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Host threads enqueuing in the throughput rows.
pub const THREADS: usize = 8;
/// Work-items of the small kernel, one `int` each: 64-byte buffers.
const ITEMS: usize = 16;
/// Work-items of the long kernel.
const LONG_ITEMS: usize = 16;
/// The long kernel runs at least this long...
const LONG_KERNEL_MIN: Duration = Duration::from_millis(100);
/// ...calibrated to about this.
const LONG_KERNEL_AIM: Duration = Duration::from_millis(150);

const CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE: u64 = 1;
const CL_EVENT_COMMAND_EXECUTION_STATUS: u32 = 0x11D3;
const CL_MEM_READ_WRITE: u64 = 1;
const CL_FALSE: u32 = 0;
const CL_TRUE: u32 = 1;

/// Launches per timed run of the launch chain.
const CHAIN_LAUNCHES: usize = 2_000;
/// The launch chain's grid is this many work-items on a side.
const CHAIN_SIDE: usize = 256;

const SOURCE: &str = r"
kernel void add_one(global int *data) {
    data[get_global_id(0)] += 1;
}

kernel void advance(global float *u, int t) {
    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    u[k] += (float)t;
}

kernel void spin(global uint *out, uint rounds) {
    uint x = get_global_id(0);
    for (uint i = 0; i < rounds; i++)
        x = x * 1664525u + 1013904223u;
    out[get_global_id(0)] = x;
}
";

/// How the throughput rows' threads share queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueMode {
    /// Each thread its own in-order queue.
    PerThread,
    /// One out-of-order queue for all; the events keep each chain in order.
    SharedOutOfOrder,
    /// One in-order queue for all.
    SharedInOrder,
}

/// A command-engine row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineRow {
    /// Small commands from [`THREADS`] threads.
    Throughput(QueueMode),
    /// A non-blocking enqueue of a long kernel.
    EnqueueLatency,
    /// Many launches of a small grid in one in-order queue.
    LaunchChain,
}

/// The rows, in report order.
pub const ROWS: [EngineRow; 5] = [
    EngineRow::Throughput(QueueMode::PerThread),
    EngineRow::Throughput(QueueMode::SharedOutOfOrder),
    EngineRow::Throughput(QueueMode::SharedInOrder),
    EngineRow::EnqueueLatency,
    EngineRow::LaunchChain,
];

impl EngineRow {
    /// The row's name, as `--only` matches it.
    pub fn name(self) -> &'static str {
        match self {
            EngineRow::Throughput(QueueMode::PerThread) => "commands, queue per thread",
            EngineRow::Throughput(QueueMode::SharedOutOfOrder) => "commands, shared out-of-order",
            EngineRow::Throughput(QueueMode::SharedInOrder) => "commands, shared in-order",
            EngineRow::EnqueueLatency => "enqueue latency, long kernel",
            EngineRow::LaunchChain => "launch chain, in-order queue",
        }
    }

    fn from_name(name: &str) -> Option<EngineRow> {
        ROWS.into_iter().find(|row| row.name() == name)
    }
}

/// The sizes of a run.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Chains (write, kernel, read) per thread per timed run.
    chains: usize,
    /// Timed runs of the throughput rows.
    runs: usize,
    /// Timed enqueues of the long kernel.
    enqueues: usize,
    /// How long a child may take before it is deemed hung.
    timeout: Duration,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                chains: 200,
                runs: 3,
                enqueues: 3,
                timeout: Duration::from_secs(90),
            }
        } else {
            Plan {
                chains: 2_000,
                runs: 5,
                enqueues: 7,
                timeout: Duration::from_secs(240),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The parent: a child process per row and platform.
// ---------------------------------------------------------------------------

/// How the child processes are started: the binary, and the vendors
/// directory that lets the ICD loader see vecl beside the other platforms.
pub struct Launch {
    exe: Result<PathBuf, String>,
    /// `OCL_ICD_VENDORS` for the children (`None`: the inherited one).
    vendors: Option<PathBuf>,
    /// `libvecl.so`, also named in `OCL_ICD_FILENAMES` for the child that
    /// measures vecl: the Khronos loader (which some systems put first,
    /// CUDA's among them) reads that variable and not the vendors
    /// directory; ocl-icd ignores it.
    library: Option<PathBuf>,
    /// Why vecl cannot be measured, if it cannot.
    vecl_missing: Option<String>,
    /// How vecl is reached, for the report's notes.
    note: String,
}

impl Launch {
    /// Finds `libvecl.so` beside the running binary and, unless the user
    /// set `OCL_ICD_VENDORS` (then the children inherit it), writes
    /// `out_dir/vendors/` with a `vecl.icd` naming it and copies of every
    /// `/etc/OpenCL/vendors/*.icd`.
    pub fn prepare(out_dir: &Path) -> Launch {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the vecl binary: {e}"));
        build_driver_under_cargo();
        let library = exe
            .as_ref()
            .ok()
            .and_then(|exe| exe.parent())
            .map(|dir| dir.join("libvecl.so"));
        let library = match library.as_deref().map(std::fs::canonicalize) {
            Some(Ok(path)) => path,
            _ => {
                let why = format!(
                    "no libvecl.so beside the vecl binary: build it with `cargo build --release -p vecl-icd`{}",
                    library.map_or_else(String::new, |l| format!(" ({} missing)", l.display()))
                );
                return Launch {
                    exe,
                    vendors: None,
                    library: None,
                    vecl_missing: Some(why.clone()),
                    note: format!("command rows: {why}"),
                };
            }
        };
        if let Some(theirs) = std::env::var_os("OCL_ICD_VENDORS") {
            return Launch {
                exe,
                vendors: None,
                library: None,
                vecl_missing: None,
                note: format!(
                    "command rows: through the ICD loader with OCL_ICD_VENDORS as set ({}); vecl only if it lists vecl.icd",
                    Path::new(&theirs).display()
                ),
            };
        }
        let dir = out_dir.join("vendors");
        match write_vendors(&dir, &library) {
            Ok(()) => Launch {
                exe,
                vendors: Some(dir.clone()),
                library: Some(library.clone()),
                vecl_missing: None,
                note: format!(
                    "command rows: every platform through its C driver and the ICD loader, vecl through {} (OCL_ICD_VENDORS={})",
                    library.display(),
                    dir.display()
                ) + " and, for vecl's own runs, OCL_ICD_FILENAMES (for the Khronos loader)",
            },
            Err(e) => {
                let why = format!("cannot write {}: {e}", dir.display());
                Launch {
                    exe,
                    vendors: None,
                    library: None,
                    vecl_missing: Some(why.clone()),
                    note: format!("command rows: {why}"),
                }
            }
        }
    }

    /// How vecl was reached, for the report's notes.
    pub fn note(&self) -> &str {
        &self.note
    }

    /// `row` on the platform labelled `platform`, in a child process.
    pub fn measure(&self, row: EngineRow, platform: &str, quick: bool) -> PlatformResult {
        if platform == "vecl" {
            if let Some(why) = &self.vecl_missing {
                return PlatformResult::failed(platform, why);
            }
        }
        let exe = match &self.exe {
            Ok(exe) => exe,
            Err(why) => return PlatformResult::failed(platform, why),
        };
        let mut command = Command::new(exe);
        command.args([
            "bench-commands",
            "--row",
            row.name(),
            "--platform",
            platform,
        ]);
        if quick {
            command.arg("--quick");
        }
        if let Some(dir) = &self.vendors {
            command.env("OCL_ICD_VENDORS", dir);
        }
        // Only vecl's own child names it: the Khronos loader then lists
        // only the files named, hiding every other platform.
        if let (Some(library), "vecl") = (&self.library, platform) {
            command.env("OCL_ICD_FILENAMES", library);
        }
        match run_child(command, Plan::new(quick).timeout) {
            Ok(result) => result,
            Err(why) => PlatformResult::failed(platform, &why),
        }
    }
}

/// Writes `dir` afresh: `vecl.icd` naming `library`, and the system's
/// `.icd` files.
/// Under `cargo run --release` (which sets `CARGO` and
/// `CARGO_MANIFEST_DIR`), builds `libvecl.so` beside the binary first, so
/// the README's one command measures the driver of the same checkout.
/// Cargo's own freshness check makes this cheap when it is up to date; a
/// failed build leaves the rows to report the library missing or stale.
fn build_driver_under_cargo() {
    let (Some(cargo), Some(manifest_dir)) = (
        std::env::var_os("CARGO"),
        std::env::var_os("CARGO_MANIFEST_DIR"),
    ) else {
        return;
    };
    let release = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.ends_with("release")))
        .unwrap_or(false);
    if !release {
        return;
    }
    eprintln!(
        "bench: building libvecl.so (cargo build --release -p vecl-icd) for the command rows"
    );
    let built = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "vecl-icd",
            "--manifest-path",
        ])
        .arg(Path::new(&manifest_dir).join("Cargo.toml"))
        .status();
    if !matches!(built, Ok(status) if status.success()) {
        eprintln!("bench: building libvecl.so failed; the command rows use what is there");
    }
}

fn write_vendors(dir: &Path, library: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "icd") {
            std::fs::remove_file(path)?;
        }
    }
    if let Ok(system) = std::fs::read_dir("/etc/OpenCL/vendors") {
        for entry in system.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.extension().is_some_and(|e| e == "icd") && name != "vecl.icd" {
                std::fs::copy(&path, dir.join(name))?;
            }
        }
    }
    std::fs::write(dir.join("vecl.icd"), format!("{}\n", library.display()))
}

/// Runs the child (`apart::run_child`: a crash, an exit code or a hang
/// becomes the reason); its result is its last line of output.
fn run_child(command: Command, timeout: Duration) -> Result<PlatformResult, String> {
    let mut last = None;
    super::apart::run_child(command, timeout, |line| {
        last = Some(line.to_string());
        false
    })?;
    let line = last.ok_or("the measuring process printed no result")?;
    serde_json::from_str(&line)
        .map_err(|e| format!("unreadable result from the measuring process: {e}"))
}

// ---------------------------------------------------------------------------
// The child: one row on one platform, the result as a JSON line.
// ---------------------------------------------------------------------------

/// `vecl bench-commands`: measures the row named `row` on the platform
/// labelled `platform` and returns the result as one JSON line.
pub fn child(row: &str, platform: &str, quick: bool) -> Result<String, String> {
    let row = EngineRow::from_name(row).ok_or_else(|| {
        let names: Vec<&str> = ROWS.iter().map(|r| r.name()).collect();
        format!("no command row {row:?}; the rows: {}", names.join(", "))
    })?;
    let result = measure(row, platform, Plan::new(quick))
        .unwrap_or_else(|why| PlatformResult::failed(platform, &why));
    serde_json::to_string(&result)
        .map(|json| format!("{json}\n"))
        .map_err(|e| e.to_string())
}

fn measure(row: EngineRow, label: &str, plan: Plan) -> Result<PlatformResult, String> {
    let api = Api::load()?;
    let found = platforms(&api)?;
    let Some(platform) = found.iter().find(|p| p.label == label) else {
        let listed: Vec<&str> = found.iter().map(|p| p.label.as_str()).collect();
        return Err(format!(
            "the ICD loader lists no platform {label:?} (it lists: {})",
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            }
        ));
    };
    let mut objects = Objects::new(&api, platform)?;
    let mut result = match row {
        EngineRow::Throughput(mode) => throughput(&mut objects, mode, plan)?,
        EngineRow::EnqueueLatency => enqueue_latency(&mut objects, plan)?,
        EngineRow::LaunchChain => launch_chain(&mut objects, plan)?,
    };
    result.platform = label.to_string();
    Ok(result)
}

/// The OpenCL objects of one measurement, released when it ends.
struct Objects<'a> {
    api: &'a Api,
    device: Handle,
    context: Handle,
    program: Handle,
    queues: Vec<Handle>,
    kernels: Vec<Handle>,
    buffers: Vec<Handle>,
}

impl<'a> Objects<'a> {
    /// A context on the platform's device and [`SOURCE`] built in it.
    fn new(api: &'a Api, platform: &FoundPlatform) -> Result<Objects<'a>, String> {
        let mut err = 0;
        // SAFETY: one valid device, no properties, no callback.
        let context = unsafe {
            (api.create_context)(null(), 1, &platform.device, null(), null_mut(), &mut err)
        };
        check(err, "clCreateContext")?;
        let mut objects = Objects {
            api,
            device: platform.device,
            context,
            program: null_mut(),
            queues: Vec::new(),
            kernels: Vec::new(),
            buffers: Vec::new(),
        };
        objects.program = build_program(api, context, platform.device, SOURCE)?;
        Ok(objects)
    }

    fn queue(&mut self, properties: u64) -> Result<Handle, String> {
        let mut err = 0;
        // SAFETY: a valid context and device.
        let queue = unsafe {
            (self.api.create_command_queue)(self.context, self.device, properties, &mut err)
        };
        check(err, "clCreateCommandQueue")?;
        self.queues.push(queue);
        Ok(queue)
    }

    /// A kernel of the program with its first argument a new buffer of
    /// `bytes` bytes; both.
    fn kernel_on_buffer(&mut self, name: &str, bytes: usize) -> Result<(Handle, Handle), String> {
        let api = self.api;
        let mut err = 0;
        // SAFETY: a valid context; no host pointer.
        let buffer = unsafe {
            (api.create_buffer)(self.context, CL_MEM_READ_WRITE, bytes, null_mut(), &mut err)
        };
        check(err, "clCreateBuffer")?;
        self.buffers.push(buffer);
        let name = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: a built program and a NUL-terminated name.
        let kernel = unsafe { (api.create_kernel)(self.program, name.as_ptr(), &mut err) };
        check(err, "clCreateKernel")?;
        self.kernels.push(kernel);
        set_arg(api, kernel, 0, &buffer)?;
        Ok((kernel, buffer))
    }

    /// Waits for every queue (after a failure, before host memory goes).
    fn finish_all(&self) -> Result<(), String> {
        let mut first_error = Ok(());
        for &queue in &self.queues {
            // SAFETY: a valid queue.
            let code = unsafe { (self.api.finish)(queue) };
            if first_error.is_ok() {
                first_error = check(code, "clFinish");
            }
        }
        first_error
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let _ = self.finish_all();
        // SAFETY: each handle was created by this measurement and is
        // released once; the queues have finished.
        unsafe {
            for &queue in &self.queues {
                (self.api.release_command_queue)(queue);
            }
            for &kernel in &self.kernels {
                (self.api.release_kernel)(kernel);
            }
            for &buffer in &self.buffers {
                (self.api.release_mem_object)(buffer);
            }
            if !self.program.is_null() {
                (self.api.release_program)(self.program);
            }
            (self.api.release_context)(self.context);
        }
    }
}

/// Sets argument `index` of `kernel` to the bytes of `value`.
fn set_arg<T>(api: &Api, kernel: Handle, index: u32, value: &T) -> Result<(), String> {
    // SAFETY: `value` is `size_of::<T>()` readable bytes (a cl_mem or a scalar).
    let code = unsafe {
        (api.set_kernel_arg)(
            kernel,
            index,
            std::mem::size_of::<T>(),
            (value as *const T).cast(),
        )
    };
    check(code, "clSetKernelArg")
}

// ---------------------------------------------------------------------------
// Small-command throughput.
// ---------------------------------------------------------------------------

/// One host thread's objects: its queue (its own or the shared one), its
/// kernel (argument set) and its buffer.
#[derive(Clone, Copy)]
struct Lane {
    queue: Handle,
    kernel: Handle,
    buffer: Handle,
}

// SAFETY: OpenCL's API calls are thread-safe except clSetKernelArg
// (OpenCL 1.2, appendix A.2), which is called on each lane's own kernel
// before the threads start and never from them.
unsafe impl Send for Lane {}
// SAFETY: as above; a lane is only read.
unsafe impl Sync for Lane {}

/// An event handed back from an enqueuing thread.
struct LastEvent(Handle);

// SAFETY: events may be waited on and released from any host thread
// (OpenCL 1.2, appendix A.2).
unsafe impl Send for LastEvent {}

fn throughput(
    objects: &mut Objects<'_>,
    mode: QueueMode,
    plan: Plan,
) -> Result<PlatformResult, String> {
    let shared = match mode {
        QueueMode::PerThread => None,
        QueueMode::SharedOutOfOrder => Some(objects.queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)?),
        QueueMode::SharedInOrder => Some(objects.queue(0)?),
    };
    let mut lanes = Vec::with_capacity(THREADS);
    for _ in 0..THREADS {
        let queue = match shared {
            Some(queue) => queue,
            None => objects.queue(0)?,
        };
        let (kernel, buffer) = objects.kernel_on_buffer("add_one", 4 * ITEMS)?;
        lanes.push(Lane {
            queue,
            kernel,
            buffer,
        });
    }
    // An untimed, checked run first: first launches build or cache code.
    run_chains(objects, &lanes, (plan.chains / 10).max(10), 0)?;
    let mut runs_ns = Vec::with_capacity(plan.runs);
    let commands = THREADS * plan.chains * 3;
    for run in 1..=plan.runs {
        let elapsed = run_chains(objects, &lanes, plan.chains, run)?;
        runs_ns.push((elapsed.as_nanos() / commands as u128) as u64);
    }
    let median_ns = median(&runs_ns);
    let mut result = PlatformResult::single("", runs_ns, median_ns);
    result.engine = Some(EngineDetail::Throughput {
        commands_per_s: 1e9 / median_ns.max(1) as f64,
        threads: THREADS,
        commands_per_thread: 3 * plan.chains,
    });
    Ok(result)
}

/// One timed run: every lane's thread enqueues `chains` chains, then every
/// queue is finished; the time from the threads' start to the last finish.
/// The values read back are checked.
fn run_chains(
    objects: &Objects<'_>,
    lanes: &[Lane],
    chains: usize,
    run: usize,
) -> Result<Duration, String> {
    let api = objects.api;
    let inputs: Vec<Vec<[i32; ITEMS]>> = (0..lanes.len())
        .map(|thread| {
            (0..chains)
                .map(|chain| chain_input(run, thread, chain))
                .collect()
        })
        .collect();
    let mut outputs = vec![vec![[0i32; ITEMS]; chains]; lanes.len()];
    let start = Barrier::new(lanes.len() + 1);
    let (elapsed, ends) = std::thread::scope(|scope| {
        let threads: Vec<_> = lanes
            .iter()
            .zip(&inputs)
            .zip(outputs.iter_mut())
            .map(|((&lane, input), output)| {
                let start = &start;
                scope.spawn(move || {
                    start.wait();
                    enqueue_chains(api, lane, input, output)
                })
            })
            .collect();
        start.wait();
        let began = Instant::now();
        let ends: Vec<Result<LastEvent, String>> = threads
            .into_iter()
            .map(|t| {
                t.join()
                    .unwrap_or_else(|_| Err("an enqueuing thread panicked".into()))
            })
            .collect();
        // In every case, before `outputs` may be read or freed.
        let finished = objects.finish_all();
        (finished.map(|()| began.elapsed()), ends)
    });
    let mut first_error = None;
    for end in ends {
        match end {
            // SAFETY: the thread's last event, released once.
            Ok(LastEvent(event)) => unsafe {
                (api.release_event)(event);
            },
            Err(why) => {
                first_error.get_or_insert(why);
            }
        }
    }
    if let Some(why) = first_error {
        return Err(why);
    }
    let elapsed = elapsed?;
    for (thread, (input, output)) in inputs.iter().zip(&outputs).enumerate() {
        check_chains(thread, input, output)?;
    }
    Ok(elapsed)
}

/// Enqueues a chain per input: write it, add 1, read it into the output;
/// every command after the first waits on the previous one's event, which
/// is then released. The last event is handed back.
fn enqueue_chains(
    api: &Api,
    lane: Lane,
    inputs: &[[i32; ITEMS]],
    outputs: &mut [[i32; ITEMS]],
) -> Result<LastEvent, String> {
    let mut last: Handle = null_mut();
    let global = ITEMS;
    let bytes = 4 * ITEMS;
    let mut enqueued = || -> Result<(), String> {
        for (input, output) in inputs.iter().zip(outputs.iter_mut()) {
            enqueue_after(
                api,
                &mut last,
                "clEnqueueWriteBuffer",
                |waits, list, event| {
                    // SAFETY: valid objects; `input` holds `bytes` bytes and
                    // outlives the command (the caller finishes every queue
                    // before it goes); `waits` events at `list`.
                    unsafe {
                        (api.enqueue_write_buffer)(
                            lane.queue,
                            lane.buffer,
                            CL_FALSE,
                            0,
                            bytes,
                            input.as_ptr().cast(),
                            waits,
                            list,
                            event,
                        )
                    }
                },
            )?;
            enqueue_after(
                api,
                &mut last,
                "clEnqueueNDRangeKernel",
                |waits, list, event| {
                    // SAFETY: valid objects; `global` is one size; `waits`
                    // events at `list`.
                    unsafe {
                        (api.enqueue_nd_range_kernel)(
                            lane.queue,
                            lane.kernel,
                            1,
                            null(),
                            &global,
                            null(),
                            waits,
                            list,
                            event,
                        )
                    }
                },
            )?;
            enqueue_after(
                api,
                &mut last,
                "clEnqueueReadBuffer",
                |waits, list, event| {
                    // SAFETY: as the write's, `output` in place of `input`.
                    unsafe {
                        (api.enqueue_read_buffer)(
                            lane.queue,
                            lane.buffer,
                            CL_FALSE,
                            0,
                            bytes,
                            output.as_mut_ptr().cast(),
                            waits,
                            list,
                            event,
                        )
                    }
                },
            )?;
        }
        Ok(())
    };
    match enqueued() {
        Ok(()) => Ok(LastEvent(last)),
        Err(why) => {
            if !last.is_null() {
                // SAFETY: the last event enqueued, released once.
                unsafe { (api.release_event)(last) };
            }
            Err(why)
        }
    }
}

/// Enqueues one command through `enqueue(waits, wait_list, event)`, waiting
/// on `*last` if there is one; its event becomes `*last` and the previous
/// one is released.
fn enqueue_after(
    api: &Api,
    last: &mut Handle,
    what: &str,
    enqueue: impl FnOnce(u32, *const Handle, *mut Handle) -> i32,
) -> Result<(), String> {
    let (waits, list) = if last.is_null() {
        (0, null())
    } else {
        (1, last as *const Handle)
    };
    let mut event = null_mut();
    check(enqueue(waits, list, &mut event), what)?;
    if !last.is_null() {
        // SAFETY: the previous command's event, released once; the command
        // just enqueued keeps what it needs of it.
        unsafe { (api.release_event)(*last) };
    }
    *last = event;
    Ok(())
}

/// What chain `chain` of `thread` writes in run `run`: distinct across
/// threads, chains and runs, so that no stale value passes the check.
fn chain_input(run: usize, thread: usize, chain: usize) -> [i32; ITEMS] {
    let base = ((run * THREADS + thread) * 1_000_003 + chain * ITEMS) as i32;
    std::array::from_fn(|k| base.wrapping_add(k as i32))
}

/// Each chain must read back exactly what it wrote plus 1.
fn check_chains(
    thread: usize,
    inputs: &[[i32; ITEMS]],
    outputs: &[[i32; ITEMS]],
) -> Result<(), String> {
    for (chain, (input, output)) in inputs.iter().zip(outputs).enumerate() {
        for (item, (&wrote, &read)) in input.iter().zip(output).enumerate() {
            let expected = wrote.wrapping_add(1);
            if read != expected {
                return Err(format!(
                    "wrong result: thread {thread}, chain {chain}, item {item}: read {read}, expected {expected}"
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Non-blocking enqueue latency.
// ---------------------------------------------------------------------------

/// One enqueue of the long kernel: until it returned, the kernel's status
/// then, and until the kernel completed.
struct Enqueue {
    returned: Duration,
    status: i32,
    completed: Duration,
}

fn enqueue_latency(objects: &mut Objects<'_>, plan: Plan) -> Result<PlatformResult, String> {
    let api = objects.api;
    let queue = objects.queue(0)?;
    let (kernel, buffer) = objects.kernel_on_buffer("spin", 4 * LONG_ITEMS)?;
    let enqueue = |rounds: u32| -> Result<Enqueue, String> {
        set_arg(api, kernel, 1, &rounds)?;
        let global = LONG_ITEMS;
        let mut event = null_mut();
        let began = Instant::now();
        // SAFETY: valid objects; `global` is one size; no wait list.
        let code = unsafe {
            (api.enqueue_nd_range_kernel)(
                queue,
                kernel,
                1,
                null(),
                &global,
                null(),
                0,
                null(),
                &mut event,
            )
        };
        let returned = began.elapsed();
        check(code, "clEnqueueNDRangeKernel")?;
        let mut status = 0i32;
        // SAFETY: a valid event; a cl_int's room.
        let info = unsafe {
            (api.get_event_info)(
                event,
                CL_EVENT_COMMAND_EXECUTION_STATUS,
                std::mem::size_of::<i32>(),
                (&mut status as *mut i32).cast(),
                null_mut(),
            )
        };
        // SAFETY: one valid event.
        let waited = unsafe { (api.wait_for_events)(1, &event) };
        let completed = began.elapsed();
        // SAFETY: the event enqueued above, released once.
        unsafe { (api.release_event)(event) };
        check(info, "clGetEventInfo")?;
        check(waited, "clWaitForEvents")?;
        Ok(Enqueue {
            returned,
            status,
            completed,
        })
    };
    // Lengthen the loop until the kernel runs long enough; again if the
    // timed runs fell short (a JIT may replace the first code with faster
    // code meanwhile).
    let lengthen = |rounds: u32, took: Duration| {
        let scale = (LONG_KERNEL_AIM.as_secs_f64() / took.as_secs_f64().max(1e-6)).clamp(1.0, 64.0);
        (rounds as f64 * scale).min(u32::MAX as f64) as u32
    };
    let mut rounds: u32 = 1 << 20;
    let mut attempts = 0;
    let (runs_ns, completed_ns, statuses) = loop {
        for _ in 0..8 {
            let took = enqueue(rounds)?.completed;
            if took >= LONG_KERNEL_MIN || rounds == u32::MAX {
                break;
            }
            rounds = lengthen(rounds, took);
        }
        let mut runs_ns = Vec::with_capacity(plan.enqueues);
        let mut completed_ns = Vec::with_capacity(plan.enqueues);
        let mut statuses = Vec::with_capacity(plan.enqueues);
        for _ in 0..plan.enqueues {
            let run = enqueue(rounds)?;
            runs_ns.push(run.returned.as_nanos() as u64);
            completed_ns.push(run.completed.as_nanos() as u64);
            statuses.push(status_name(run.status));
        }
        let took = Duration::from_nanos(median(&completed_ns));
        attempts += 1;
        if took >= LONG_KERNEL_MIN || rounds == u32::MAX || attempts == 3 {
            break (runs_ns, completed_ns, statuses);
        }
        rounds = lengthen(rounds, took);
    };
    let mut out = [0u32; LONG_ITEMS];
    // SAFETY: a blocking read of the buffer's bytes into `out`.
    let code = unsafe {
        (api.enqueue_read_buffer)(
            queue,
            buffer,
            CL_TRUE,
            0,
            4 * LONG_ITEMS,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        )
    };
    check(code, "clEnqueueReadBuffer")?;
    let median_ns = median(&runs_ns);
    let mut result = PlatformResult::single("", runs_ns, median_ns);
    if let Err(why) = check_spin(&out, rounds) {
        result.verified = false;
        result.status = why;
    }
    result.engine = Some(EngineDetail::EnqueueLatency {
        status_at_return: statuses,
        kernel_ms: median(&completed_ns) as f64 / 1e6,
    });
    Ok(result)
}

// ---------------------------------------------------------------------------
// Launch chain.
// ---------------------------------------------------------------------------

/// The launch chain's runs: each [`CHAIN_LAUNCHES`] launches of `advance`
/// (its `t` argument the launch's number modulo 64) and a finish; then the grid,
/// every element the sum of the `t`s so far, is read back and checked.
fn launch_chain(objects: &mut Objects<'_>, plan: Plan) -> Result<PlatformResult, String> {
    let api = objects.api;
    let queue = objects.queue(0)?;
    let items = CHAIN_SIDE * CHAIN_SIDE;
    let (kernel, buffer) = objects.kernel_on_buffer("advance", 4 * items)?;
    let zeros = vec![0f32; items];
    // SAFETY: a blocking write of `items` floats from `zeros`.
    let code = unsafe {
        (api.enqueue_write_buffer)(
            queue,
            buffer,
            CL_TRUE,
            0,
            4 * items,
            zeros.as_ptr().cast(),
            0,
            null(),
            null_mut(),
        )
    };
    check(code, "clEnqueueWriteBuffer")?;
    let global = [CHAIN_SIDE, CHAIN_SIDE];
    let mut next_t = 0i32;
    let mut chain = |launches: usize| -> Result<(Duration, Option<Duration>), String> {
        let started = Instant::now();
        let cpu_started = process_cpu_time();
        for _ in 0..launches {
            set_arg(api, kernel, 1, &next_t)?;
            // SAFETY: a valid queue and kernel, two global sizes, no
            // offset, local size or events.
            let code = unsafe {
                (api.enqueue_nd_range_kernel)(
                    queue,
                    kernel,
                    2,
                    null(),
                    global.as_ptr(),
                    null(),
                    0,
                    null(),
                    null_mut(),
                )
            };
            check(code, "clEnqueueNDRangeKernel")?;
            next_t = (next_t + 1) % 64;
        }
        // SAFETY: a valid queue.
        check(unsafe { (api.finish)(queue) }, "clFinish")?;
        let cpu = process_cpu_time()
            .zip(cpu_started)
            .map(|(end, start)| end.saturating_sub(start));
        Ok((started.elapsed(), cpu))
    };
    // An untimed run first: first launches build or cache code.
    chain(CHAIN_LAUNCHES / 10)?;
    let runs = if plan.runs > 3 { plan.runs } else { 3 };
    let mut runs_ns = Vec::with_capacity(runs);
    let mut cpu_ns = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (elapsed, cpu) = chain(CHAIN_LAUNCHES)?;
        runs_ns.push((elapsed.as_nanos() / CHAIN_LAUNCHES as u128) as u64);
        cpu_ns.extend(cpu.map(|cpu| (cpu.as_nanos() / CHAIN_LAUNCHES as u128) as u64));
    }
    // Every launch added its `t` (0, 1, …, 63, 0, …) to every element.
    let launched = CHAIN_LAUNCHES / 10 + runs * CHAIN_LAUNCHES;
    let want: f32 = (0..launched).map(|n| (n % 64) as f32).sum();
    let mut got = vec![0f32; items];
    // SAFETY: a blocking read of `items` floats into `got`.
    let code = unsafe {
        (api.enqueue_read_buffer)(
            queue,
            buffer,
            CL_TRUE,
            0,
            4 * items,
            got.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        )
    };
    check(code, "clEnqueueReadBuffer")?;
    if let Some(at) = got.iter().position(|&v| v != want) {
        return Err(format!(
            "launch chain: element {at} is {} after {launched} launches, not {want}",
            got[at]
        ));
    }
    let median_ns = median(&runs_ns);
    let mut result = PlatformResult::single("", runs_ns, median_ns);
    result.engine = Some(EngineDetail::LaunchChain {
        cpu_us_per_launch: (cpu_ns.len() == runs).then(|| median(&cpu_ns) as f64 / 1e3),
    });
    Ok(result)
}

/// The CPU time the process (all its threads) has used, where the system
/// reports it.
fn process_cpu_time() -> Option<Duration> {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        /// `struct timespec` on 64-bit Linux.
        #[repr(C)]
        struct Timespec {
            tv_sec: i64,
            tv_nsec: i64,
        }
        /// `CLOCK_PROCESS_CPUTIME_ID`.
        const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
        extern "C" {
            fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
        }
        let mut ts = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: the C library's `clock_gettime` (linked with std) writes
        // one `struct timespec`, whose layout `Timespec` has on 64-bit Linux.
        let code = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
        (code == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    {
        None
    }
}

/// The long kernel's value for work-item `id`.
fn spin(id: u32, rounds: u32) -> u32 {
    (0..rounds).fold(id, |x, _| {
        x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223)
    })
}

/// The long kernel's first and last work-items against the host (each
/// costs as much as the kernel's loop).
fn check_spin(out: &[u32], rounds: u32) -> Result<(), String> {
    for id in [0, out.len() - 1] {
        let expected = spin(id as u32, rounds);
        if out[id] != expected {
            return Err(format!(
                "wrong result: item {id} after {rounds} rounds: read {}, expected {expected}",
                out[id]
            ));
        }
    }
    Ok(())
}

/// The name of a `CL_EVENT_COMMAND_EXECUTION_STATUS` value.
fn status_name(status: i32) -> String {
    match status {
        0 => "CL_COMPLETE".into(),
        1 => "CL_RUNNING".into(),
        2 => "CL_SUBMITTED".into(),
        3 => "CL_QUEUED".into(),
        error => format!("error {error}"),
    }
}

// ---------------------------------------------------------------------------
// The row.
// ---------------------------------------------------------------------------

/// The row's report: `results` in the platforms' order, vecl first.
pub fn bench_result(row: EngineRow, results: Vec<PlatformResult>, quick: bool) -> BenchResult {
    let plan = Plan::new(quick);
    let (size, metric) = match row {
        EngineRow::Throughput(_) => (
            format!("{THREADS} threads × {} commands", 3 * plan.chains),
            "command-throughput",
        ),
        EngineRow::EnqueueLatency => (
            format!(
                "{LONG_ITEMS} items, kernel ≥ {} ms",
                LONG_KERNEL_MIN.as_millis()
            ),
            "enqueue-latency",
        ),
        EngineRow::LaunchChain => (
            format!("{CHAIN_SIDE}×{CHAIN_SIDE} items, {CHAIN_LAUNCHES} launches"),
            "time-per-launch",
        ),
    };
    BenchResult {
        name: row.name().into(),
        size,
        metric: metric.into(),
        ratios: super::ratios_to_vecl(&results),
        results,
        bytes_moved: None,
        detail: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_pass_only_with_every_value_plus_one() {
        let inputs: Vec<_> = (0..3).map(|chain| chain_input(2, 5, chain)).collect();
        let mut outputs: Vec<[i32; ITEMS]> = inputs
            .iter()
            .map(|input| input.map(|v| v.wrapping_add(1)))
            .collect();
        assert_eq!(check_chains(5, &inputs, &outputs), Ok(()));
        outputs[2][7] -= 1;
        assert_eq!(
            check_chains(5, &inputs, &outputs),
            Err(format!(
                "wrong result: thread 5, chain 2, item 7: read {}, expected {}",
                inputs[2][7],
                inputs[2][7] + 1
            ))
        );
        // A buffer left as an earlier run wrote it does not pass.
        let earlier: Vec<_> = (0..3).map(|chain| chain_input(1, 5, chain)).collect();
        assert_ne!(earlier, inputs);
    }

    #[test]
    fn spin_matches_the_kernels_recurrence() {
        assert_eq!(spin(7, 0), 7);
        assert_eq!(spin(0, 1), 1_013_904_223);
        let rounds = 1000;
        let out: Vec<u32> = (0..LONG_ITEMS as u32).map(|id| spin(id, rounds)).collect();
        assert_eq!(check_spin(&out, rounds), Ok(()));
        assert!(check_spin(&out, rounds + 1).is_err());
    }

    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_crashed_hung_or_mute_child_is_a_failure_with_its_reason() {
        let long = Duration::from_secs(60);
        let crashed = run_child(shell("echo 'driver: bad queue' >&2; kill -SEGV $$"), long);
        let why = crashed.expect_err("a crash");
        assert!(why.contains("signal 11 (SIGSEGV)"), "{why}");
        assert!(why.ends_with("; stderr: driver: bad queue"), "{why}");
        let hung = run_child(shell("exec sleep 30"), Duration::from_millis(100));
        assert!(hung.expect_err("a hang").contains("was killed"));
        let exited = run_child(shell("exit 3"), long).expect_err("an exit code");
        assert!(exited.contains("exited with code 3"), "{exited}");
        let mute = run_child(shell("true"), long).expect_err("no result");
        assert!(mute.contains("printed no result"), "{mute}");
    }

    #[test]
    fn a_childs_last_line_is_its_result() {
        let result = PlatformResult::failed("PoCL", "no device");
        let json = serde_json::to_string(&result).expect("json");
        let script = format!("echo 'a driver warning'; echo '{json}'");
        let back = run_child(shell(&script), Duration::from_secs(60)).expect("a result");
        assert_eq!(
            (back.platform.as_str(), back.status.as_str()),
            ("PoCL", "no device")
        );
    }

    #[test]
    fn rows_are_found_by_name_and_fit_the_table() {
        for row in ROWS {
            assert_eq!(EngineRow::from_name(row.name()), Some(row));
            assert!(row.name().chars().count() <= 30, "{}", row.name());
        }
        assert_eq!(EngineRow::from_name("commands"), None);
        assert_eq!(status_name(3), "CL_QUEUED");
        assert_eq!(status_name(-5), "error -5");
    }
}

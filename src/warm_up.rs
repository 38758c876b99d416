//! The process's first context readies the device in the background: the
//! front end's thread, the kernel-compiling helpers and the pool's threads
//! start (and park), the compiler's tables are made, and the compiler runs
//! once over a small kernel, so that its code is paged in and its tables
//! are made before the application's first build, not during it.
//!
//! Why: the first program of a process took 1.8–2.3 ms from source to
//! code on the 2-core development machine where every later one took
//! 0.5–0.7 ms, the same source (`examples/first_result.rs`): the
//! difference is the first use of the front end, the CLIF lowering and
//! the wide code generator (page faults on their code, tables built on
//! first use), not anything of the program. The pool's threads started
//! inside the first launch as well. Other OpenCL platforms load and
//! prepare their compilers when the platform or context is made; this is
//! vecl's equivalent, on a thread of its own so that making a context
//! does not wait for it. Nothing the warm-up compiles is kept or reused:
//! a program built while it runs is compiled in full, as before.
//!
//! A build that starts while the warm-up runs makes it stop before its
//! compiles (the threads and tables are made in any case): what is left,
//! the build warms itself, and two threads compiling at once on a busy
//! machine would only slow that build down (the bench's first program,
//! with the warm-up's compiles let run beside its build: 1.42 → 1.74 ms).
//!
//! `VECL_WARM_UP=0` turns it off (for measuring what it saves).

use crate::Config;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use vecl_jit::{JitOptions, PhaseReport, Tiers};

/// A kernel that goes through the front end, the middle passes, the CLIF
/// lowering and both code generators: a global id, loads, arithmetic, a
/// branch and a store.
const SOURCE: &str = "kernel void vecl_warm_up(global const float *a, global float *b, int n) {
    size_t i = get_global_id(0);
    if (i < n) b[i] = a[i] * 2.0f + 1.0f;
}
";

static STARTED: Once = Once::new();

/// Whether a program's build has begun in this process.
static BUILD_BEGUN: AtomicBool = AtomicBool::new(false);

/// Notes that a build has begun: a warm-up running stops after its step.
pub(crate) fn build_begun() {
    BUILD_BEGUN.store(true, Ordering::Relaxed);
}

/// Starts the warm-up once per process, unless `VECL_WARM_UP=0`; returns
/// at once.
pub fn start() {
    STARTED.call_once(|| {
        if !Config::global().warm_up {
            return;
        }
        // A process that cannot start a thread loses only the warm-up.
        let _ = std::thread::Builder::new()
            .name("vecl-warm-up".into())
            .spawn(|| warm_up(&|| BUILD_BEGUN.load(Ordering::Relaxed)));
    });
}

/// The warm-up's work, here, to its end (what the first context starts
/// on a thread of its own, which stops early once a build has begun).
pub fn run() {
    warm_up(&|| false);
}

/// The front end's thread and tables, the threads that compile a
/// program's kernels beside its build, the pool, the device's memory size,
/// the code generators' tables, then the compiler, unless
/// `stop` says to stop first. The tables are made even when a build has
/// begun: a build that needs one while it is being made waits for it
/// rather than making it again, and one made before the build needs it
/// is time off that build (the encoder's table alone was 0.3–0.5 ms of a
/// first build's 0.6–0.7 ms of wide code generation; the front end's
/// macro and builtin tables made here took 0.17 ms off the bench's first
/// program, 1.42 → 1.25 ms).
fn warm_up(stop: &dyn Fn() -> bool) {
    let config = Config::global();
    vecl_clc::start_front_end();
    vecl_clc::make_tables();
    crate::kernel_builds::start_helpers();
    vecl_runtime::Pool::global();
    // The device's memory size (`/proc/meminfo`), read at the first buffer.
    vecl_runtime::device_limits::global_mem_size();
    vecl_jit::make_tables();
    if stop() {
        return;
    }
    let Ok(built) = vecl_clc::build(SOURCE, "") else {
        return;
    };
    // Robust access through the wide code (the Rust API's default), then
    // unchecked code through Cranelift's quick tier (the C driver's
    // default for kernels the wide code does not take). Errors are not
    // the warm-up's to report: a build that meets one reports it.
    let base = JitOptions {
        phases: PhaseReport::Off,
        disasm: false,
        ..config.jit_options()
    };
    let runs = [
        JitOptions {
            checked: true,
            tiers: Tiers::QuickOnly,
            ..base.clone()
        },
        JitOptions {
            checked: false,
            wide: false,
            tiers: Tiers::QuickOnly,
            ..base
        },
    ];
    for opts in &runs {
        if stop() {
            return;
        }
        let _ = vecl_jit::compile_kernel(&built.module, "vecl_warm_up", opts);
    }
}

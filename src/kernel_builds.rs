//! The kernels of one program compiled side by side: the building thread
//! compiles them in turn while, on a machine with cores to spare, helper
//! threads take the ones it has not reached.
//!
//! Why: a program's build compiled its kernels one after another, so a
//! source with a kernel the application never uses (the bench's "new
//! source" row appends one) paid for it on the way to its first result:
//! 0.19–0.24 ms of the 0.6–0.7 ms of code generation of the first program
//! on the 2-core development machine.
//!
//! What stays the same: every kernel is compiled at `clBuildProgram`, with
//! the same options; the results are taken in the module's kernel order,
//! so the build log names the same first failing kernel as before. The
//! building thread never waits for a helper to start: it takes every
//! kernel no helper has claimed, and waits only for those being compiled.
//! A helper that wakes after the build took everything finds nothing left.

use crate::compiler::{self, CompileOptions, Compiled};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use vecl_ir::Module;
use vecl_jit::ModuleData;

/// Helper threads at most, whatever the machine's cores.
const MAX_HELPERS: usize = 3;

/// Room for the compiler's recursion, as a main thread has.
const HELPER_STACK: usize = 8 << 20;

/// One program's kernels being compiled.
struct Batch {
    module: Arc<Module>,
    names: Vec<String>,
    options: CompileOptions,
    data: Option<Arc<ModuleData>>,
    /// The next kernel no thread has claimed.
    next: AtomicUsize,
    /// Each kernel's result, once compiled.
    results: Mutex<Vec<Option<Result<Compiled, String>>>>,
    compiled: Condvar,
}

impl Batch {
    fn results(&self) -> MutexGuard<'_, Vec<Option<Result<Compiled, String>>>> {
        self.results.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Compiles kernels not yet claimed until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::AcqRel);
            let Some(name) = self.names.get(i) else {
                return;
            };
            // The compiler turns its own panics into errors; this catches
            // any other, so that no slot is left empty for ever.
            let result = catch_unwind(AssertUnwindSafe(|| {
                compiler::compile_kernel(&self.module, name, &self.options, self.data.clone())
            }))
            .unwrap_or_else(|_| Err(format!("internal compiler error compiling '{name}'")));
            self.results()[i] = Some(result);
            self.compiled.notify_all();
        }
    }
}

/// Compiles kernels `names` of `module` (the program's kernels, in the
/// module's order) with `options`, their module-scope data in `data`:
/// each kernel's result in its place.
pub(crate) fn compile_kernels(
    module: &Arc<Module>,
    names: Vec<String>,
    options: &CompileOptions,
    data: Option<Arc<ModuleData>>,
) -> Vec<Result<Compiled, String>> {
    let n = names.len();
    let batch = Arc::new(Batch {
        module: Arc::clone(module),
        names,
        options: options.clone(),
        data,
        next: AtomicUsize::new(0),
        results: Mutex::new((0..n).map(|_| None).collect()),
        compiled: Condvar::new(),
    });
    if n > 1 {
        for helper in helpers().iter().take(n - 1) {
            let _ = lock(helper).send(Arc::clone(&batch));
        }
    }
    batch.work();
    let mut results = batch.results();
    while results.iter().any(Option::is_none) {
        results = batch
            .compiled
            .wait(results)
            .unwrap_or_else(|e| e.into_inner());
    }
    results.iter_mut().filter_map(Option::take).collect()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The helper threads (none on a machine of one core), started at their
/// first use: one fewer than the cores, at most [`MAX_HELPERS`]. Each
/// waits for batches and works on each until nothing is left in it.
fn helpers() -> &'static [Mutex<Sender<Arc<Batch>>>] {
    static HELPERS: OnceLock<Vec<Mutex<Sender<Arc<Batch>>>>> = OnceLock::new();
    HELPERS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (0..cores.saturating_sub(1).min(MAX_HELPERS))
            .filter_map(|i| {
                let (batches, inbox) = channel::<Arc<Batch>>();
                std::thread::Builder::new()
                    .name(format!("vecl-build-{i}"))
                    .stack_size(HELPER_STACK)
                    .spawn(move || {
                        while let Ok(batch) = inbox.recv() {
                            batch.work();
                        }
                    })
                    .ok()
                    .map(|_| Mutex::new(batches))
            })
            .collect()
    })
}

/// Starts the helper threads ahead of the first build (the warm-up).
pub(crate) fn start_helpers() {
    helpers();
}

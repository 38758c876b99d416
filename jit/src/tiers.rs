//! Two-tier compilation: quick code at once, optimised code a little later.
//!
//! Most of a kernel's compile time is Cranelift's backtracking register
//! allocator. Its single-pass allocator takes about half the time in all,
//! but its code runs two to three times slower (spills and moves). So a
//! kernel is first compiled with the single-pass allocator (and without
//! Cranelift's mid-end optimisations, another sixth of the time) and is runnable
//! as soon as that is done; the same kernel is then compiled again with the
//! backtracking allocator on a background thread, and its entry replaces
//! the first one when it is ready. Both lower the same IR; they differ in
//! register assignment and in the optimised code's extra copy of the body
//! for full chunks (an optimisation that computes what the general copy
//! does), so they compute the same results; a launch in progress keeps
//! running the entry it started with for the rest of its call.
//!
//! [`crate::JitOptions::tiers`] chooses: the quick code only, only the
//! optimised code (compiled before `compile_kernel` returns, as before the
//! tiers existed), or both (the default).
//!
//! One background thread compiles the optimised code of every kernel, in
//! the order they were built, so a program of many kernels does not start
//! as many threads.

use crate::kernel::{CodeMemory, EntryFn};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Which code `compile_kernel` produces ([`crate::JitOptions::tiers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiers {
    /// The quick code only.
    QuickOnly,
    /// The optimised code only, compiled before `compile_kernel` returns.
    OptimisedOnly,
    /// The quick code at once, replaced by the optimised code when ready.
    Both,
}

impl Tiers {
    /// The policy a name chooses: `quick`, `optimised` (or `optimized`),
    /// `both`; `None` for any other name.
    pub fn from_name(name: &str) -> Option<Tiers> {
        match name.trim() {
            "quick" => Some(Tiers::QuickOnly),
            "optimised" | "optimized" => Some(Tiers::OptimisedOnly),
            "both" => Some(Tiers::Both),
            _ => None,
        }
    }
}

/// Which register allocator a compilation uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tier {
    Quick,
    Optimised,
}

impl Tier {
    /// Cranelift's `opt_level` setting for this tier.
    pub fn opt_level(self) -> &'static str {
        match self {
            Tier::Quick => "none",
            Tier::Optimised => "speed",
        }
    }

    /// Cranelift's `regalloc_algorithm` setting for this tier.
    pub fn regalloc(self) -> &'static str {
        match self {
            Tier::Quick => "single_pass",
            Tier::Optimised => "backtracking",
        }
    }
}

/// The entry a launch calls: the quick code's until the optimised code
/// replaces it.
pub(crate) struct Entry(AtomicPtr<u8>);

impl Entry {
    pub fn new(f: EntryFn) -> Entry {
        Entry(AtomicPtr::new(f as *mut u8))
    }

    /// No code yet (a kernel's wide copy before or without the optimised
    /// code).
    pub fn none() -> Entry {
        Entry(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The entry; only for one made by [`Entry::new`] (never empty).
    pub fn get(&self) -> EntryFn {
        let p = self.0.load(Ordering::Acquire);
        debug_assert!(!p.is_null());
        // SAFETY: the pointer was stored from an `EntryFn` (`new`, `Upgrade::finish`).
        unsafe { std::mem::transmute::<*mut u8, EntryFn>(p) }
    }

    /// The entry, if there is code.
    pub fn get_if_set(&self) -> Option<EntryFn> {
        let p = self.0.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was stored from an `EntryFn`.
        (!p.is_null()).then(|| unsafe { std::mem::transmute::<*mut u8, EntryFn>(p) })
    }

    fn set(&self, f: Option<EntryFn>) {
        let p = f.map_or(std::ptr::null_mut(), |f| f as *mut u8);
        self.0.store(p, Ordering::Release);
    }
}

/// Where the optimised compilation of one kernel stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FinalCode {
    /// Still compiling.
    Pending,
    /// The optimised code runs now; it took this long to compile.
    Optimised(Duration),
    /// The optimised compilation failed; the quick code stays.
    QuickKept,
}

/// The optimised code of one kernel, once compiled: its memory (kept as
/// long as the kernel may call it) and its state.
pub(crate) struct Upgrade {
    code: CodeMemory,
    state: Mutex<FinalCode>,
    ready: Condvar,
}

impl Upgrade {
    pub fn new() -> Upgrade {
        Upgrade {
            code: CodeMemory(Mutex::new(None)),
            state: Mutex::new(FinalCode::Pending),
            ready: Condvar::new(),
        }
    }

    /// Installs the optimised code (its memory into `self`, its entry into
    /// `entry`, the entry of its wide copy, if any, into `wide`), or
    /// records that the quick code stays (`None`).
    pub fn finish(
        &self,
        entry: &Entry,
        wide: &Entry,
        done: Option<(CodeMemory, EntryFn, Option<EntryFn>)>,
        took: Duration,
    ) {
        let state = match done {
            Some((code, f, wide_f)) => {
                let module = lock(&code.0).take();
                *lock(&self.code.0) = module;
                // The wide copy first: a launch that sees the new main
                // entry may also take the wide one.
                wide.set(wide_f);
                entry.set(Some(f));
                FinalCode::Optimised(took)
            }
            None => FinalCode::QuickKept,
        };
        let mut s = lock(&self.state);
        *s = state;
        self.ready.notify_all();
    }

    pub fn state(&self) -> FinalCode {
        *lock(&self.state)
    }

    /// Blocks until the optimised compilation has finished either way.
    pub fn wait(&self) -> FinalCode {
        let mut s = lock(&self.state);
        while *s == FinalCode::Pending {
            s = self
                .ready
                .wait(s)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        *s
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// Locks `m`, also after a panic elsewhere poisoned it (the data it guards
/// is always left whole).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Queues `job` for the background compiler thread (started on first use).
/// Returns `false` when there is no such thread (it could not be started).
pub(crate) fn in_background(job: Job) -> bool {
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("vecl-jit-optimise".into())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job();
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    match queue {
        Some(tx) => lock(tx).send(job).is_ok(),
        None => false,
    }
}

//! Streaming stores: full-chunk vector stores that bypass the caches.
//!
//! A kernel that writes a large output it never reads (`c[i] = a[i] +
//! b[i]` over 16M floats) pays for every line it writes twice with plain
//! stores: the line is first read into the cache (read for ownership),
//! then written back. A non-temporal store (`movntps`) writes the line
//! without reading it: vadd over 16M floats moves a quarter fewer bytes
//! (~6.0 → ~4.8 ms on two threads). Where the line is in the cache, as in
//! saxpy's `y[i] = a * x[i] + y[i]`, a non-temporal store has to evict it
//! first and is much slower (~4.1 → ~9.4 ms), and a small output that
//! the next command reads would be fetched back from memory. So a store
//! streams only when
//!
//! - its address is derived from a `__global` pointer parameter that no
//!   load, copy or builtin of the kernel reads through (and no pointer of
//!   unknown origin is read at all: it could alias the parameter's
//!   buffer), in a kernel with no atomics and no fences, whose ordering
//!   guarantees would then have to cover the streamed stores as well;
//! - it is the consecutive, full-chunk vector path of the store;
//! - the launch has at least [`STREAM_MIN_ITEMS`] work-items
//!   (`JitOptions::stream_min_items` or `VECL_STREAM_MIN_ITEMS` set
//!   another number; a run-time test Cranelift hoists out of the loops).
//!
//! Cranelift has no non-temporal store, so the pieces go to a small Rust
//! helper ([`vecl_stream_2x4`]) that issues `movntps` when the
//! address is 16-byte aligned and plain stores otherwise. The call costs
//! little next to the memory traffic of a kernel that qualifies. Streamed
//! stores are weakly ordered: `CompiledKernel::run_groups` issues `sfence`
//! before it returns, so whoever learns that the groups ran (the pool's
//! completion counter) also sees their data. Within a group, a barrier
//! needs nothing: the group runs on one thread, which sees its own
//! stores.

use vecl_ir::{AddressSpace, Function, Inst, Stmt, Type, ValueId};

/// Launches with fewer work-items store normally: their output is likely
/// to fit the caches and to be read again soon.
pub(crate) const STREAM_MIN_ITEMS: u64 = 1 << 22;

/// `VECL_STREAM_MIN_ITEMS` (a number of work-items; 0 streams every
/// launch), else [`STREAM_MIN_ITEMS`].
pub(crate) fn min_items_from_env() -> u64 {
    std::env::var("VECL_STREAM_MIN_ITEMS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(STREAM_MIN_ITEMS)
}

/// Where a pointer value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    /// The kernel's parameter with this index.
    Param(u32),
    /// A variable, slot or module-scope object of the kernel: memory no
    /// parameter's buffer can alias.
    Own,
    /// Anything else (a pointer loaded from memory, a `select` of two).
    Unknown,
    /// A variable whose root the fixpoint has not found yet.
    Pending,
}

/// Which stores of a kernel may stream.
pub(crate) struct Streaming {
    /// Per parameter: stores through it may stream.
    params: Vec<bool>,
    /// Per variable: the root its real writes agree on.
    var_roots: Vec<Root>,
}

impl Streaming {
    pub(crate) fn new(func: &Function) -> Streaming {
        let mut writes: Vec<Vec<ValueId>> = vec![Vec::new(); func.vars.len()];
        let mut clear = false;
        let mut copies = Vec::new();
        vecl_ir::transform::compact::walk_stmts(&func.body, &mut |s| match s {
            Stmt::WriteVar(x, w) if !matches!(func.inst(*w).inst, Inst::Undef) => {
                writes[x.index()].push(*w);
            }
            Stmt::Fence(_) => clear = true,
            Stmt::Copy { src, .. } => copies.push(*src),
            _ => {}
        });
        // Variables first, as a fixpoint from "not known yet": a variable
        // written only from itself and one parameter (`p = p + 1`) keeps
        // that parameter; one written from two different roots is Unknown.
        let mut var_roots = vec![Root::Pending; func.vars.len()];
        let mut converged = false;
        for _ in 0..16 {
            let mut changed = false;
            for x in 0..func.vars.len() {
                let mut r = Root::Pending;
                for w in &writes[x] {
                    let rw = root(func, &var_roots, *w, 0);
                    r = match (r, rw) {
                        (r, Root::Pending) => r,
                        (Root::Pending, rw) => rw,
                        (r, rw) if r == rw => r,
                        _ => Root::Unknown,
                    };
                }
                if var_roots[x] != r {
                    var_roots[x] = r;
                    changed = true;
                }
            }
            if !changed {
                converged = true;
                break;
            }
        }
        for r in &mut var_roots {
            if !converged || *r == Root::Pending {
                *r = Root::Unknown;
            }
        }
        let mut st = Streaming {
            params: func
                .params
                .iter()
                .map(|p| matches!(&p.ty, Type::Pointer(AddressSpace::Global, _)))
                .collect(),
            var_roots,
        };
        let mut read = copies;
        for d in &func.insts {
            match &d.inst {
                Inst::Atomic { .. } => clear = true,
                Inst::Load(p) => read.push(*p),
                Inst::Builtin(_, args) | Inst::Call(_, args) => {
                    read.extend(args.iter().filter(|a| func.ty(**a).is_pointer()));
                }
                _ => {}
            }
        }
        for p in read {
            match st.root_of(func, p) {
                Root::Param(n) => {
                    if let Some(x) = st.params.get_mut(n as usize) {
                        *x = false;
                    }
                }
                Root::Own => {}
                Root::Unknown | Root::Pending => clear = true,
            }
        }
        if clear {
            st.params.iter_mut().for_each(|x| *x = false);
        }
        st
    }

    /// Whether a full-chunk vector store to `ptr` may stream.
    pub(crate) fn streams(&self, func: &Function, ptr: ValueId) -> bool {
        match self.root_of(func, ptr) {
            Root::Param(n) => self.params.get(n as usize).copied().unwrap_or(false),
            _ => false,
        }
    }

    fn root_of(&self, func: &Function, v: ValueId) -> Root {
        root(func, &self.var_roots, v, 0)
    }
}

/// Where `v` comes from, with `vars` giving each variable's root.
fn root(func: &Function, vars: &[Root], v: ValueId, depth: u32) -> Root {
    if depth > 64 {
        return Root::Unknown;
    }
    match &func.inst(v).inst {
        Inst::Param(n) => Root::Param(*n),
        Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
            root(func, vars, *p, depth + 1)
        }
        Inst::SlotAddr(_) | Inst::GlobalAddr(_) => Root::Own,
        Inst::ReadVar(x) => vars.get(x.index()).copied().unwrap_or(Root::Unknown),
        _ => Root::Unknown,
    }
}

/// Two `f32x4` pieces stored at `p` and `p + 16` bypassing the caches
/// (`movntps`), or plainly when `p` is not 16-byte aligned. Called by code
/// whose stores stream.
///
/// # Safety
///
/// The 32 bytes at `p` must be writable memory nobody else accesses during
/// the call.
// `__m128` travels in an XMM register under the System V ABI, as the
// Cranelift caller passes its `f32x4`; Rust flags every SIMD type in an
// `extern "C"` signature regardless.
#[cfg(target_arch = "x86_64")]
#[allow(improper_ctypes_definitions)]
pub(crate) unsafe extern "C" fn vecl_stream_2x4(
    p: *mut f32,
    a: std::arch::x86_64::__m128,
    b: std::arch::x86_64::__m128,
) {
    use std::arch::x86_64::{_mm_storeu_ps, _mm_stream_ps};
    // SAFETY: the caller's chunk owns the 32 bytes at `p` (the full-chunk
    // path of a store whose bounds the kernel's code has established);
    // `_mm_stream_ps` gets only 16-byte aligned addresses.
    unsafe {
        if (p as usize).is_multiple_of(16) {
            _mm_stream_ps(p, a);
            _mm_stream_ps(p.add(4), b);
        } else {
            _mm_storeu_ps(p, a);
            _mm_storeu_ps(p.add(4), b);
        }
    }
}

/// One `f32x4` piece stored at `p` as [`vecl_stream_2x4`] stores two.
///
/// # Safety
///
/// As for [`vecl_stream_2x4`], for 16 bytes.
#[cfg(target_arch = "x86_64")]
#[allow(improper_ctypes_definitions)]
pub(crate) unsafe extern "C" fn vecl_stream_1x4(p: *mut f32, a: std::arch::x86_64::__m128) {
    use std::arch::x86_64::{_mm_storeu_ps, _mm_stream_ps};
    // SAFETY: as for `vecl_stream_2x4`, for 16 bytes.
    unsafe {
        if (p as usize).is_multiple_of(16) {
            _mm_stream_ps(p, a);
        } else {
            _mm_storeu_ps(p, a);
        }
    }
}

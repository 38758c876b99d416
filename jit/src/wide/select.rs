//! Which code a kernel gets: the wide AVX-512 entry ([`super::entry`] around
//! the body [`super::lower`] makes) or Cranelift's, and why.
//!
//! The wide code is chosen only when it is asked for (`JitOptions::wide`),
//! the kernel is compiled unchecked, with robust access (whose bounds
//! tests the wide code makes itself, `super::access`), or in checked mode
//! without `__local` memory or barriers (checked mode's `__local` race and
//! initialisation checks and its naming of rows that disagree at a
//! barrier are Cranelift's only; a kernel with neither has nothing more
//! to check than robust access does), its
//! chunks are 16 lanes wide, this CPU has AVX-512F and BMI2, and every
//! operation of the kernel is in the subset [`super::lower`] takes. A
//! kernel with barriers or `__local` memory gets the entry of
//! [`super::regions`], its regions lowered one by one. The
//! Cranelift entry stays the fallback: the wide entry jumps to it for a
//! launch whose ids do not fit in 31 bits.

use super::access::{Base, Known, MemoryPlan};
use super::entry::{compile_entry, EntryOptions, KernelCode, KernelEntry};
use super::{Bin, Op, Program};
use crate::abi::ArgSlot;
use crate::layout::GlobalPlace;
use crate::lower::group_level::{Body, LidRange};
use vecl_ir::analysis::uniformity::Uniformity;
use vecl_ir::transform::compact::walk_stmts;
use vecl_ir::{AddressSpace, CmpOp, Function, Inst, Module, Stmt, Type, ValueId, VarId};

/// What the choice looks at.
pub struct Request<'a> {
    /// `JitOptions::wide`.
    pub asked: bool,
    /// Checked mode or robust access (`JitOptions::checked`): the offset
    /// of the checked tail in the argument block.
    pub checked_tail: Option<u32>,
    /// Checked mode's `__local` checks (`JitOptions::local_checks`), for
    /// a kernel with `__local` memory or a barrier (what they watch).
    pub local_checks: bool,
    /// `JitOptions::stream_min_items`.
    pub stream_min_items: u64,
    /// `JitOptions::prefetch` is on.
    pub prefetch: bool,
    /// The copy's lane dimension (`compile`'s `lanes_along`).
    pub lanes_along: usize,
    /// The kernel's chunk width.
    pub w: u32,
    pub module: &'a Module,
    pub func: &'a Function,
    pub uni: &'a Uniformity,
    pub slots: &'a [ArgSlot],
    /// Where the module-scope variables are (`layout::global_places`):
    /// the `__local` ones' offsets in the group's arena.
    pub(crate) places: &'a [Option<GlobalPlace>],
    /// The region graph's `$next` (`vecl_ir::transform::regions`).
    pub next: Option<VarId>,
    /// The accesses the checked code of this compile trusts whose offsets
    /// fit the index lanes (`lower::bounds::small_trusted_accesses`).
    pub trusted: &'a [vecl_ir::ValueId],
    /// `rsqrt` by `vrsqrt14ps` and a Newton step
    /// (`JitOptions::rsqrt`).
    pub rsqrt_newton: bool,
}

/// The outcome: the wide code, or the reason for Cranelift's.
pub enum Choice {
    /// Not asked for: nothing to say.
    NotAsked,
    Wide(KernelCode),
    /// The wide code of a kernel with `__local` memory or barriers
    /// ([`super::regions`]).
    Regions(super::regions::RegionCode),
    Refused(String),
}

/// How `--explain` names the bound on a launch's ids past which the
/// Cranelift code runs it: "31 bits" for [`super::entry::MAX_ID_END`],
/// else the power of two the kernel's 64-bit arithmetic needs, with why.
fn id_limit(end: u64) -> String {
    if end >= super::entry::MAX_ID_END {
        "31 bits".into()
    } else {
        format!(
            "2^{} in a dimension (its 64-bit arithmetic is exact in 32-bit lanes below that)",
            end.trailing_zeros()
        )
    }
}

/// The `code:` line's note of the accesses of one-byte elements.
fn bytes_note(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(
            "; {n} accesses of `char`/`uchar` elements (16 bytes at once when all lanes run on consecutive bytes, else lane by lane)"
        ),
    }
}

impl Choice {
    /// The `--explain` line, if any.
    pub fn explain(&self) -> Option<String> {
        match self {
            Choice::NotAsked => None,
            Choice::Wide(c) => {
                let m = c.memory;
                let mut memory = String::new();
                if m.checked > 0 {
                    memory += &format!("; {} accesses bounds-checked", m.checked);
                }
                if m.streaming > 0 {
                    memory += &format!("; {} streaming stores on large launches", m.streaming);
                }
                if m.prefetched > 0 {
                    memory += &format!("; {} loads prefetched", m.prefetched);
                }
                memory += &bytes_note(m.bytes);
                memory += &c.loop_note();
                Some(format!(
                    "code: wide AVX-512 (16 lanes in one zmm register per value, masked tails; {} operations, {} spill slots, {} bytes, generated in {:.3} ms{memory}); Cranelift's code runs launches whose ids exceed {}",
                    c.ops,
                    c.spill_slots,
                    c.size,
                    c.compile_time.as_secs_f64() * 1e3,
                    id_limit(c.id_end)
                ))
            }
            Choice::Regions(r) => {
                let c = &r.code;
                let mut checked = match c.memory.checked {
                    0 => String::new(),
                    n => format!("; {n} accesses bounds-checked"),
                };
                checked += &bytes_note(c.memory.bytes);
                for n in [8, 4, 2] {
                    let regions = r.in_rows.iter().filter(|x| **x == n).count();
                    if regions > 0 {
                        checked += &format!(
                            "; {n} rows in flight in {regions} of {} regions when a group's rows are one chunk each",
                            r.regions
                        );
                        // The rows a group has left run a smaller tier.
                        if let Some(less) = r
                            .in_rows
                            .iter()
                            .zip(&r.least_rows)
                            .filter(|(x, l)| **x == n && **l < n)
                            .map(|(_, l)| *l)
                            .max()
                        {
                            checked += &format!(" (then {less} at a time for the rows left)");
                        }
                    }
                }
                if r.in_rows.iter().any(|x| *x > 1) {
                    checked += &format!(", {} loads shared by the rows", r.shared_loads);
                }
                for n in [3, 2] {
                    let regions = r.in_chunks.iter().filter(|x| **x == n).count();
                    if regions > 0 {
                        checked += &format!(
                            "; {n} full chunks of a row in flight in {regions} of {} regions when a group's rows are wider than a chunk, sharing {} loads",
                            r.regions, r.chunk_shared_loads
                        );
                    }
                }
                if r.fused_loads > 0 {
                    checked += &format!("; {} loads fused into FMAs", r.fused_loads);
                }
                if r.stepped_indices > 0 {
                    checked += &format!(
                        "; {} later rows' indices as the previous row's plus a step",
                        r.stepped_indices
                    );
                }
                if r.one_successor > 0 {
                    checked += &format!(
                        "; one barrier successor test for the rows in {} regions",
                        r.one_successor
                    );
                }
                if r.displaced_loads > 0 {
                    checked += &format!(
                        "; {} later rows' loads at a displacement from the first row's address",
                        r.displaced_loads
                    );
                }
                let others = match r.needs_rows {
                    Some(rows) => format!(
                        " and launches whose groups' rows are wider than a chunk or fewer than {rows} (a tile loop too light for one row at a time)"
                    ),
                    None => String::new(),
                };
                Some(format!(
                    "code: wide AVX-512 (16 lanes in one zmm register per value, masked tails; {} regions run chunk by chunk, {} bytes saved per chunk across barriers; {} operations, {} spill slots, {} bytes, generated in {:.3} ms{checked}); Cranelift's code runs launches whose ids exceed {}{others}",
                    r.regions,
                    r.save_bytes,
                    c.ops,
                    c.spill_slots,
                    c.size,
                    c.compile_time.as_secs_f64() * 1e3,
                    id_limit(c.id_end)
                ))
            }
            Choice::Refused(why) => Some(format!("code: Cranelift (not the wide code: {why})")),
        }
    }

    /// Bytes of context the wide code needs per work-item of a group (its
    /// chunks' save areas; 0 without barriers).
    pub fn context_bytes_per_item(&self) -> usize {
        match self {
            Choice::Regions(r) => r.save_bytes as usize,
            _ => 0,
        }
    }

    /// The wide entry, if chosen.
    pub fn entry(&self) -> Option<KernelEntry> {
        match self {
            Choice::Wide(c) => Some(c.entry()),
            Choice::Regions(r) => Some(r.code.entry()),
            _ => None,
        }
    }

    /// The fewest rows in flight a launch must run for the wide code to
    /// be the faster, where it was chosen for them
    /// ([`RegionCode::needs_rows`](super::regions::RegionCode::needs_rows)).
    pub fn needs_rows(&self) -> Option<u32> {
        match self {
            Choice::Regions(r) => r.needs_rows,
            _ => None,
        }
    }

    /// The wide code, if chosen.
    pub fn code(&self) -> Option<&KernelCode> {
        match self {
            Choice::Wide(c) => Some(c),
            Choice::Regions(r) => Some(&r.code),
            _ => None,
        }
    }

    /// The wide code, to keep alive with the kernel.
    pub fn into_code(self) -> Option<KernelCode> {
        match self {
            Choice::Wide(c) => Some(c),
            Choice::Regions(r) => Some(r.code),
            _ => None,
        }
    }
}

/// Whether this CPU has what the wide code uses (AVX-512F for everything,
/// BMI2 for the tail mask).
pub fn cpu_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU's divider runs a 512-bit `vsqrtps` and `vdivps` in a
/// few cycles each: AMD's from family 1Ah (Zen 5) on, measured at 4.5 and
/// 2.5 cycles, against 10–12 each on Intel's cores with AVX-512
/// (`JitOptions::rsqrt`). Read from `cpuid` once per process.
pub fn fast_vector_divider() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::__cpuid;
            // `cpuid` exists on every x86-64 CPU; leaves 0 and 1 always do.
            let (vendor, sig) = (__cpuid(0), __cpuid(1));
            let amd =
                (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
            let base = (sig.eax >> 8) & 0xf;
            let family = if base == 0xf {
                base + ((sig.eax >> 20) & 0xff)
            } else {
                base
            };
            amd && family >= 0x1a
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// Chooses the code of a kernel whose Cranelift entry is `fallback`.
pub fn choose(r: &Request<'_>, fallback: KernelEntry) -> Choice {
    if !r.asked {
        return Choice::NotAsked;
    }
    if r.checked_tail.is_some() && r.local_checks {
        return Choice::Refused(
            "checked mode (its `__local` race and initialisation checks are Cranelift's)".into(),
        );
    }
    if !cpu_supported() {
        return Choice::Refused("this CPU has no AVX-512F and BMI2".into());
    }
    if r.w != 16 {
        return Choice::Refused(format!("W = {} (the wide code runs chunks of 16)", r.w));
    }
    let plan = MemoryPlan::new(r.module, r.func, r.prefetch, r.checked_tail.is_some())
        .with_trusted(r.trusted);
    let opts = EntryOptions {
        stream_min_items: r.stream_min_items,
        checked_tail: r.checked_tail,
        lanes_along: r.lanes_along,
        id_end: super::int64::launch_end(r.func),
        spread: super::spread::spread(r.module, r.func, r.uni, r.slots),
    };
    if r.next.is_some() || has_barrier(&r.func.body.0) || uses_local(r.module, r.func) {
        return choose_regions(r, plan, fallback, &opts);
    }
    let lower = super::lower::LowerOptions {
        id_end: opts.id_end,
        rsqrt_newton: r.rsqrt_newton,
    };
    let mut body = match super::lower::lower_kernel(r.func, r.uni, r.slots, &plan, lower) {
        Ok(p) => p,
        Err(refusal) => return Choice::Refused(refusal.to_string()),
    };
    super::access::refine(&mut body);
    if let Some(why) = whole_vector_elements(r).or_else(|| slower_than_cranelift(&body)) {
        return Choice::Refused(why);
    }
    match compile_entry(&body, fallback, &opts) {
        Ok(code) => Choice::Wide(code),
        Err(e) => Choice::Refused(format!("code generation: {e}")),
    }
}

/// Why the wide code of a kernel without barriers or loops would be
/// slower than Cranelift's, if it would: it reads or writes consecutive vector
/// elements in `__global`/`__constant` memory (`float4 v = x[i]`), which
/// the wide code gathers and scatters a component at a time and
/// Cranelift's code moves as whole pieces (`lower::interleaved`).
/// Through PyOpenCL, 4M `float4`s, CPU per launch: `y[i] = a * x[i] +
/// y[i] * x[i].wzyx` 38.5 ms on the wide code against 6.7 ms on
/// Cranelift's, four dependent steps of arithmetic per component 40.0
/// against 11.9 ms, and `exp` and `sin` of every component 42.1 against
/// 30.7 ms (`docs/wide.md`). A barrier kernel's regions are chosen apart
/// (nbody's `float4` positions are a small part of its tile loop).
fn whole_vector_elements(r: &Request<'_>) -> Option<String> {
    use vecl_ir::analysis::uniformity::Shape;
    let consecutive_vectors = |ptr: vecl_ir::ValueId| -> bool {
        let Type::Pointer(AddressSpace::Global | AddressSpace::Constant, t) = r.func.ty(ptr) else {
            return false;
        };
        let Type::Vector(s, 2..=4) = &**t else {
            return false;
        };
        s.size() == 4
            && r.uni.shape(ptr) == Shape::Linear(i64::from(vecl_ir::size_of(t, &r.module.structs)))
    };
    // A loop's work (`gcd` of an `int2`, a divergent loop) outweighs them.
    if has_loop(&r.func.body) {
        return None;
    }
    let mut ptrs = load_ptrs(r.func);
    ptrs.extend(store_ptrs(&r.func.body));
    let found = ptrs.into_iter().find(|p| consecutive_vectors(*p))?;
    let ty = r.func.ty(found);
    Some(format!(
        "consecutive vector elements ({ty:?}), which the wide code moves a component at a time (slower than Cranelift's code)"
    ))
}

/// Why the wide code of `body` would be slower than Cranelift's, if it
/// would: an access inside a loop whose lanes the uniformity analysis
/// finds consecutive but the wide code must test at run time (about
/// fifteen instructions an access, where Cranelift's code knows them
/// consecutive from the index's form: conv5x5's clamped `in[yy * w + xx]`
/// and matmul's `tb[k][lx]` ran 1.1–2.3x slower so, `docs/wide.md`).
fn slower_than_cranelift(body: &Program) -> Option<String> {
    let mut depth = 0usize;
    for op in body.ops() {
        match op {
            Op::Loop => depth += 1,
            Op::WhileAny { .. } | Op::WhileCount { .. } => depth = depth.saturating_sub(1),
            Op::LoadElems { how, .. } | Op::StoreElems { how, .. }
                if depth > 0 && how.consecutive && how.known == Known::Tested =>
            {
                let what = if matches!(op, Op::LoadElems { .. }) {
                    "load"
                } else {
                    "store"
                };
                let place = if how.base == Base::Arg {
                    ""
                } else {
                    " `__local`"
                };
                return Some(format!(
                    "a{place} {what} in a loop whose consecutive lanes would be tested at run time (slower than Cranelift's code)"
                ));
            }
            _ => {}
        }
    }
    None
}

/// Why the wide code of a barrier kernel's region `body` would be slower
/// than Cranelift's, if it would: a loop of the body whose `__local`
/// accesses are more than a third of its floating-point operations. Each
/// such access costs the wide code about ten instructions per chunk (the
/// index's lane 0 moved to a general register, the buffer's address, the
/// mask tests), and a barrier kernel's regions add their per-chunk
/// entries; matmul's `k` loop (one FMA per two `__local` loads) ran 2.4x
/// slower so (about 2x since its last, empty trip skips the tested path),
/// bound one chunk at a time by its accumulator's chain of FMAs as
/// Cranelift's code is, and 1.5-1.6x with three operations per two loads, where
/// nbody's (about sixteen per four loads) runs 1.4-1.7x faster
/// (`docs/wide.md`).
fn tile_loop_too_light(body: &Program) -> Option<String> {
    // Per open loop: its `__local` accesses and floating-point operations.
    let mut open: Vec<(usize, usize)> = Vec::new();
    for op in body.ops() {
        match op {
            Op::Loop => open.push((0, 0)),
            Op::WhileAny { .. } | Op::WhileCount { .. } => {
                let (local, float) = open.pop().unwrap_or_default();
                if 3 * local > float {
                    return Some(format!(
                        "a loop with {local} `__local` accesses to {float} floating-point operations, and a region one row at a time (slower than Cranelift's code)"
                    ));
                }
                if let Some(outer) = open.last_mut() {
                    outer.0 += local;
                    outer.1 += float;
                }
            }
            Op::LoadElems { how, .. } | Op::LoadSum { how, .. } | Op::StoreElems { how, .. }
                if how.base != Base::Arg =>
            {
                if let Some(l) = open.last_mut() {
                    l.0 += 1;
                }
            }
            // A load fused into an FMA: an access and an operation.
            Op::FmaSum { how, .. } => {
                if let Some(l) = open.last_mut() {
                    l.0 += usize::from(how.base != Base::Arg);
                    l.1 += 1;
                }
            }
            Op::Fma { .. }
            | Op::FmaD { .. }
            | Op::Fms { .. }
            | Op::FmaMasked { .. }
            | Op::FmaDMasked { .. }
            | Op::Sqrt { .. } => {
                if let Some(l) = open.last_mut() {
                    l.1 += 1;
                }
            }
            Op::Bin { op: b, .. } if is_float(*b) => {
                if let Some(l) = open.last_mut() {
                    l.1 += 1;
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `b` is a floating-point operation.
fn is_float(b: Bin) -> bool {
    matches!(
        b,
        Bin::FAdd
            | Bin::FSub
            | Bin::FMul
            | Bin::FDiv
            | Bin::FMinX86
            | Bin::FMaxX86
            | Bin::Scalef
            | Bin::DDiv
            | Bin::DAdd
            | Bin::DSub
            | Bin::DMul
            | Bin::DMinX86
            | Bin::DMaxX86
    )
}

/// Whether `b` holds a loop, at any depth.
fn has_loop(b: &vecl_ir::Block) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| found |= matches!(s, Stmt::Loop { .. }));
    found
}

/// The pointers `func` loads through.
fn load_ptrs(func: &Function) -> Vec<vecl_ir::ValueId> {
    func.insts
        .iter()
        .filter_map(|d| match d.inst {
            Inst::Load(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// The pointers `b` stores through, at any depth.
fn store_ptrs(b: &vecl_ir::Block) -> Vec<vecl_ir::ValueId> {
    let mut out = Vec::new();
    walk_stmts(b, &mut |s| {
        if let Stmt::Store { ptr, .. } = s {
            out.push(*ptr);
        }
    });
    out
}

fn has_barrier(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| matches!(s, Stmt::Barrier(..)))
}

/// Whether `func` touches `__local` memory (a `__local` argument or
/// variable).
fn uses_local(module: &Module, func: &Function) -> bool {
    let local = |t: &Type| matches!(t, Type::Pointer(AddressSpace::Local, _));
    func.params.iter().any(|p| local(&p.ty))
        || func.insts.iter().any(|d| match d.inst {
            Inst::GlobalAddr(g) => module
                .globals
                .get(g.index())
                .is_some_and(|g| g.space == AddressSpace::Local),
            _ => false,
        })
}

/// The wide code of a kernel with barriers or `__local` memory: its
/// regions lowered one by one and run chunk by chunk
/// ([`super::regions`]).
fn choose_regions(
    r: &Request<'_>,
    plan: MemoryPlan,
    fallback: KernelEntry,
    opts: &EntryOptions,
) -> Choice {
    let plan = plan.with_local_places(r.module, r.places);
    let regions: Vec<&[Stmt]> = r
        .func
        .body
        .0
        .split(|s| matches!(s, Stmt::Barrier(..)))
        .collect();
    let skips = match skip_tests(r, &regions) {
        Ok(skips) => skips,
        Err(why) => return Choice::Refused(why),
    };
    let mut lowered = match super::lower::lower_regions(
        r.func,
        r.uni,
        r.slots,
        &plan,
        &regions,
        r.next,
        &skips,
        super::lower::LowerOptions {
            id_end: opts.id_end,
            rsqrt_newton: r.rsqrt_newton,
        },
    ) {
        Ok(l) => l,
        Err(refusal) => return Choice::Refused(refusal.to_string()),
    };
    let mut light = Vec::with_capacity(lowered.bodies.len());
    for body in &mut lowered.bodies {
        super::access::refine(body);
        if let Some(why) = slower_than_cranelift(body) {
            return Choice::Refused(why);
        }
    }
    if let Some(why) = mostly_per_lane(r) {
        return Choice::Refused(why);
    }
    for body in &lowered.bodies {
        light.push(tile_loop_too_light(body));
    }
    // A kernel chosen for its rows runs launches of rows wider than a
    // chunk on Cranelift's code: no chunks of a row in flight to compile.
    let chunks = light.iter().all(|why| why.is_none());
    match super::regions::compile_regions(&lowered, fallback, opts, chunks) {
        // A light tile loop one chunk at a time is slower than Cranelift's
        // code; with its region's rows in flight it is faster, the other
        // regions one row at a time or not (robust matmul: its staging
        // regions test their accesses; `docs/wide.md`, "Rows in flight"
        // and "Scalar parts of uniform indices").
        Ok(mut code) => {
            let light_rows = light
                .iter()
                .zip(&code.least_rows)
                .filter(|(why, _)| why.is_some())
                .map(|(_, rows)| *rows)
                .min();
            match (light.into_iter().flatten().next(), light_rows) {
                (Some(why), Some(rows)) if rows <= 1 => Choice::Refused(why),
                // Chosen for its rows: launches without them run
                // Cranelift's code (`CompiledKernel::prepare`).
                (Some(_), rows) => {
                    code.needs_rows = rows;
                    Choice::Regions(code)
                }
                (None, _) => Choice::Regions(code),
            }
        }
        Err(e) => Choice::Refused(format!("code generation: {e}")),
    }
}

/// Why the regions of a barrier kernel would run slower on the wide code,
/// if they would: at least [`PER_LANE_STORES`] stores of scalar elements
/// whose lanes the uniformity analysis finds neither consecutive nor
/// equal (scatters), and more such accesses than consecutive or uniform
/// ones (vector elements, accessed a component at a time, are not
/// counted). The cyclic reduction of `benches/programs.py` (`tridiag`:
/// strided `__local` accesses, 7 such stores and 30 such loads) ran
/// 1.2–1.4× slower on the wide code than on Cranelift's (`vecl run
/// --unchecked`, one thread, four rounds alternated, `docs/wide.md`);
/// where the time goes was not profiled.
fn mostly_per_lane(r: &Request<'_>) -> Option<String> {
    use vecl_ir::analysis::uniformity::Shape;
    let (mut lanes, mut scatters, mut whole) = (0, 0, 0);
    let mut count = |ptr: vecl_ir::ValueId, store: bool| {
        if !matches!(r.func.ty(ptr), Type::Pointer(_, t) if matches!(**t, Type::Scalar(_))) {
            return;
        }
        match r.uni.shape(ptr) {
            Shape::Uniform | Shape::Linear(4) => whole += 1,
            _ => {
                lanes += 1;
                scatters += usize::from(store);
            }
        }
    };
    for p in load_ptrs(r.func) {
        count(p, false);
    }
    for p in store_ptrs(&r.func.body) {
        count(p, true);
    }
    (scatters >= PER_LANE_STORES && lanes > whole).then(|| {
        format!(
            "a barrier kernel with {lanes} scalar accesses per lane ({scatters} of them stores) to {whole} consecutive or uniform ones (slower than Cranelift's code)"
        )
    })
}

/// The scatters from which [`mostly_per_lane`] refuses.
const PER_LANE_STORES: usize = 4;

/// What `skip_tests` found.
pub struct SkipTests {
    /// Per region, the condition of its skipping `if`, if it has one.
    pub tests: Vec<Option<ValueId>>,
    /// The group-level variables (`lower::group_level`): the same in
    /// every chunk of a group, so a skipped chunk's saved copy can be
    /// refreshed from one that ran.
    pub group_vars: std::collections::HashSet<VarId>,
}

/// Per region, the test of the `if (lid < bound)` that limits its
/// chunks (`lower::group_level::LidRange`), where the wide code can skip
/// them too: Cranelift's code visits only the chunks of a row the test can
/// accept, and the wide code, which runs every chunk of a group, skips the
/// rest of a row once a chunk's last lane fails the test (the later
/// chunks' local ids are larger: they fail it too). The tree reduction of
/// `benches/reduce.cl` (256 work-items a group, eight rounds) took 204–288
/// ms on the wide code running every chunk against 16–19 ms on
/// Cranelift's (`vecl bench --only reduce`, two threads, `docs/wide.md`).
///
/// The wide code skips where the `if` is a statement of the region or of
/// the group-level `if`s around it, the lanes run along dimension 0 and
/// the test is `<` or `<=`; what the region writes outside the `if` is
/// checked by the lowering ([`super::lower::lower_regions`]). Any other
/// region Cranelift's code limits so is refused: every chunk would run it.
fn skip_tests(r: &Request<'_>, regions: &[&[Stmt]]) -> Result<SkipTests, String> {
    let group = crate::lower::group_level::analyze(
        r.func,
        r.uni,
        regions,
        &std::collections::HashSet::new(),
    );
    let refused = || {
        "a region whose chunks Cranelift's code limits to those an `if (lid < bound)` accepts (it runs fewer chunks than the wide code)".to_string()
    };
    let mut tests = vec![None; regions.len()];
    for (i, (split, stmts)) in group.splits.iter().zip(regions).enumerate() {
        let (levels, body) = split.levels();
        // `lid > bound` skips the first chunks (and `lid == 0` the others
        // of one region once): left to the wide code running them all.
        let Body::Chunks {
            stmts: chunk_stmts,
            range:
                Some(LidRange {
                    op: CmpOp::Lt | CmpOp::Le,
                    ..
                }),
        } = body
        else {
            continue;
        };
        let Some(Stmt::If { cond, .. }) = chunk_stmts.last() else {
            return Err(refused());
        };
        // Down the group-level `if`s to the one holding the test.
        let mut at: &[Stmt] = stmts;
        for (_, guard, _) in &levels {
            let Some(g) = guard else { break };
            let inner = at.iter().find_map(|s| match s {
                Stmt::If { cond, then_, else_ } if cond == g && else_.0.is_empty() => {
                    Some(&then_.0[..])
                }
                _ => None,
            });
            match inner {
                Some(inner) => at = inner,
                None => return Err(refused()),
            }
        }
        let found = at
            .iter()
            .any(|s| matches!(s, Stmt::If { cond: c, .. } if c == cond));
        if !found || r.lanes_along != 0 {
            return Err(refused());
        }
        tests[i] = Some(*cond);
    }
    // Without a loop to carry them, the regions' entries and saved
    // variables cost the wide code more than the rounds it skips save:
    // `benches/reduce.cl` (one item each, eight rounds) 14.3 ms against
    // 3.7 on Cranelift's code; a grid-stride dot product (64 trips, then
    // the same tree) 1.86 against 2.72 ms.
    let looped = regions
        .iter()
        .any(|stmts| has_loop(&vecl_ir::Block(stmts.to_vec())));
    if tests.iter().any(Option::is_some) && !looped {
        return Err(refused());
    }
    Ok(SkipTests {
        tests,
        group_vars: group.vars,
    })
}

//! NDRange launches: validation, the choice of a local size, and execution
//! of a kernel's work-groups on the pool.
//!
//! Validation follows `clEnqueueNDRangeKernel`'s error list. The local size,
//! when the application leaves it to the device, is the largest multiple of
//! the kernel's SIMD width that divides the global size (so every chunk is
//! full) within a budget of work-items per group; the kernel's
//! `reqd_work_group_size` wins when it has one. Execution hands the linear
//! group range to the pool; every thread runs its ranges with its own
//! `__local` arena and context area.

use crate::cancel::StopFlag;
use crate::device_limits::{LOCAL_MEM_SIZE, MAX_WORK_GROUP_SIZE, MAX_WORK_ITEM_SIZES};
use crate::error::{Error, Result};
use crate::kernel_args::{ArgBlock, KernelArgs, KernelCode};
use crate::pool::{Pool, Scratch, STATUS_PANICKED};
use std::sync::{Arc, Mutex};
use vecl_jit::abi::{KernelStatus, Launch};

/// Work-items per group the device aims for when it chooses the local size.
const PREFERRED_GROUP_ITEMS: u64 = 256;

/// The longest row a group of a kernel that cannot observe its groups'
/// shape runs as ([`widened_rows`]): the device's largest group.
pub const ROW_ITEMS: u64 = MAX_WORK_GROUP_SIZE;

/// Groups per pool thread a launch keeps when [`widened_rows`] merges its
/// groups: the pool splits a job down to an eighth of a thread's share,
/// so each of those ranges still holds two groups.
pub const GROUPS_PER_THREAD: u64 = 16;

/// The status a range reports when its thread could not grow its arenas.
const STATUS_ARENA_ALLOCATION: u32 = 0xFFFF_FF00;

/// What `clEnqueueNDRangeKernel` was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdRange {
    /// 1 to 3.
    pub work_dim: u32,
    /// `global_work_offset` (zeros when absent).
    pub offset: [u64; 3],
    /// `global_work_size`; unused dimensions are ignored.
    pub global: [u64; 3],
    /// `local_work_size`, or `None` for the device to choose.
    pub local: Option<[u64; 3]>,
}

impl NdRange {
    /// A 1-D range of `global` items with the local size left to the device.
    pub fn linear(global: u64) -> NdRange {
        NdRange {
            work_dim: 1,
            offset: [0; 3],
            global: [global, 1, 1],
            local: None,
        }
    }

    /// Sets the local size.
    pub fn with_local(mut self, local: [u64; 3]) -> NdRange {
        self.local = Some(local);
        self
    }
}

/// The program- and kernel-level rules a launch is checked against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchRules {
    /// OpenCL 2.0+ non-uniform work-groups are allowed (the program was
    /// built for OpenCL C 2.0 or later without `-cl-uniform-work-group-size`).
    pub non_uniform_groups: bool,
    /// `__attribute__((reqd_work_group_size(x, y, z)))`.
    pub reqd_work_group_size: Option<[u32; 3]>,
}

/// Checks `range` and produces the launch the kernel will see (with
/// `local_mem_size` left at 0 for the caller to fill in). `Ok(None)` means
/// an empty range: there is nothing to run.
pub fn plan_launch(
    range: &NdRange,
    simd_width: u32,
    rules: &LaunchRules,
) -> Result<Option<Launch>> {
    let dims = range.work_dim as usize;
    if !(1..=3).contains(&dims) {
        return Err(Error::InvalidWorkDimension(range.work_dim));
    }
    let mut global = [1u64; 3];
    let mut offset = [0u64; 3];
    global[..dims].copy_from_slice(&range.global[..dims]);
    offset[..dims].copy_from_slice(&range.offset[..dims]);
    for d in 0..dims {
        if offset[d].checked_add(global[d]).is_none() {
            return Err(Error::InvalidGlobalOffset(format!(
                "offset {} + global size {} overflows in dimension {d}",
                offset[d], global[d]
            )));
        }
    }
    if global
        .iter()
        .try_fold(1u64, |acc, &g| acc.checked_mul(g))
        .is_none()
    {
        return Err(Error::InvalidGlobalWorkSize(format!(
            "{:?} work-items overflow",
            &global[..dims]
        )));
    }
    let reqd = rules.reqd_work_group_size.map(|r| r.map(u64::from));
    let local = match range.local {
        Some(requested) => {
            let mut local = [1u64; 3];
            local[..dims].copy_from_slice(&requested[..dims]);
            check_local(&global, &local, dims, rules)?;
            if let Some(reqd) = reqd {
                if local != reqd {
                    return Err(Error::InvalidWorkGroupSize(format!(
                        "local size {:?} differs from the kernel's reqd_work_group_size {:?}",
                        &local[..dims],
                        &reqd[..dims]
                    )));
                }
            }
            local
        }
        None => match reqd {
            Some(reqd) => {
                check_local(&global, &reqd, dims, rules)?;
                reqd
            }
            None => choose_local_size(&global, dims, simd_width, rules.non_uniform_groups),
        },
    };
    if global[..dims].contains(&0) {
        // OpenCL 2.1+: a zero-sized range is valid and runs nothing.
        return Ok(None);
    }
    Ok(Some(Launch::new(range.work_dim, offset, global, local)))
}

/// The checks on an explicit local size.
fn check_local(
    global: &[u64; 3],
    local: &[u64; 3],
    dims: usize,
    rules: &LaunchRules,
) -> Result<()> {
    if local[..dims].contains(&0) {
        return Err(Error::InvalidWorkGroupSize("a local size of 0".into()));
    }
    for d in 0..dims {
        if local[d] > MAX_WORK_ITEM_SIZES[d] {
            return Err(Error::InvalidWorkItemSize(format!(
                "local size {} exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES[{d}] = {}",
                local[d], MAX_WORK_ITEM_SIZES[d]
            )));
        }
    }
    let items: u64 = local.iter().product();
    if items > MAX_WORK_GROUP_SIZE {
        return Err(Error::InvalidWorkGroupSize(format!(
            "{items} work-items per group exceed the maximum {MAX_WORK_GROUP_SIZE}"
        )));
    }
    if !rules.non_uniform_groups {
        for d in 0..dims {
            if !global[d].is_multiple_of(local[d]) {
                return Err(Error::InvalidWorkGroupSize(format!(
                    "global size {} is not a multiple of local size {} in dimension {d} \
                     (non-uniform work-groups need -cl-std=CL2.0 or later)",
                    global[d], local[d]
                )));
            }
        }
    }
    Ok(())
}

/// The local size the device picks when the application gives none.
pub fn choose_local_size(
    global: &[u64; 3],
    dims: usize,
    simd_width: u32,
    non_uniform: bool,
) -> [u64; 3] {
    let width = u64::from(simd_width.max(1));
    let mut local = [1u64; 3];
    let mut budget = PREFERRED_GROUP_ITEMS.min(MAX_WORK_GROUP_SIZE);
    for d in 0..dims {
        let g = global[d].max(1);
        let cap = budget.min(MAX_WORK_ITEM_SIZES[d]).min(g);
        let divisors = (1..=cap).rev().filter(|l| g.is_multiple_of(*l));
        let chosen = if d == 0 {
            // Prefer full SIMD chunks; fall back to any divisor, or — when
            // groups may be non-uniform and the best divisor is poor — to a
            // multiple of the width with a partial last group.
            let full_chunks = divisors.clone().find(|l| l % width == 0);
            let any = divisors.clone().next().unwrap_or(1);
            match full_chunks {
                Some(l) => l,
                None if non_uniform && any < width && cap >= width => cap / width * width,
                None => any,
            }
        } else {
            divisors.clone().next().unwrap_or(1)
        };
        local[d] = chosen;
        budget = (budget / chosen).max(1);
    }
    local
}

/// Checks and runs a whole launch on the calling thread (with the pool's
/// help), outside any queue: for API layers that schedule commands
/// themselves.
pub fn run_blocking(
    code: Arc<dyn KernelCode>,
    args: &KernelArgs,
    range: &NdRange,
    rules: &LaunchRules,
) -> Result<()> {
    let Some(launch) = plan_launch(range, code.simd_width(), rules)? else {
        return Ok(());
    };
    let block = args.build_block(code.args_size(), code.static_local_size())?;
    execute(Pool::global(), code, block, launch)
}

/// Runs a planned launch of `code` to completion on `pool`.
pub fn execute(
    pool: &Pool,
    code: Arc<dyn KernelCode>,
    block: ArgBlock,
    launch: Launch,
) -> Result<()> {
    execute_stoppable(pool, code, block, launch, &StopFlag::new())
}

/// [`execute`], ended early (with an error saying why) once `stop` is set:
/// the code polls it at loop back edges, the pool before each range.
pub fn execute_stoppable(
    pool: &Pool,
    code: Arc<dyn KernelCode>,
    block: ArgBlock,
    launch: Launch,
    stop: &Arc<StopFlag>,
) -> Result<()> {
    let mut launch = run_shape(code.as_ref(), &launch, pool.threads());
    launch.stop_flag = stop.address();
    launch.local_mem_size = block.local_mem_size;
    if launch.local_mem_size > LOCAL_MEM_SIZE {
        return Err(Error::OutOfResources(format!(
            "kernel `{}` needs {} bytes of __local memory; the device has {LOCAL_MEM_SIZE}",
            code.name(),
            launch.local_mem_size
        )));
    }
    let local_len = launch.local_mem_size as usize;
    // The code every range runs, chosen once for the launch (which copy,
    // the proofs a robust launch rests on): before the context is sized,
    // as the code chosen may need more.
    // SAFETY: the block was laid out by `KernelArgs::build_block` for this
    // kernel's slots.
    let prepared = unsafe { code.prepare(block.bytes.as_ptr(), &launch) };
    let context_len = usize::try_from(code.context_size(launch.items_per_group()))
        .map_err(|_| Error::OutOfResources("context area too large".into()))?;
    let body_code = Arc::clone(&code);
    // The code reads the flag through `launch.stop_flag`: the closure
    // keeps it alive as long as any range may run.
    let body_stop = Arc::clone(stop);
    // The first divergence at a barrier or `__local` finding a thread
    // saw, in words.
    let divergence: Arc<Mutex<Option<String>>> = Arc::default();
    let seen = Arc::clone(&divergence);
    let local_args: Vec<(usize, u64, u64)> = block
        .checked
        .as_ref()
        .map(|c| c.local_args().to_vec())
        .unwrap_or_default();
    let body = move |first: u64, end: u64, scratch: &mut Scratch| {
        if body_stop.reason().is_some() {
            return KernelStatus::Cancelled as u32;
        }
        let Ok((local_mem, context)) = scratch.arenas(local_len, context_len) else {
            return STATUS_ARENA_ALLOCATION;
        };
        // The buffers the block points to are kept alive by `block.buffers`,
        // owned by this closure.
        let _keep_alive = &block.buffers;
        // SAFETY: the block was laid out by `KernelArgs::build_block` for this
        // kernel's slots and its buffers are alive; the arenas are 64-byte
        // aligned and as large as the launch and the kernel require.
        let status = unsafe {
            match &prepared {
                // The kernel the launch was prepared from is alive
                // (`body_code`).
                Some(p) => p.run_groups(block.bytes.as_ptr(), first, end, local_mem, context),
                None => body_code.run_groups(
                    block.bytes.as_ptr(),
                    &launch,
                    first,
                    end,
                    local_mem,
                    context,
                ),
            }
        };
        if status == KernelStatus::OutOfBounds as u32 {
            if let Some(c) = &block.checked {
                c.note_arena(local_mem as u64, local_len as u64);
            }
        }
        let words = if status == KernelStatus::DivergentBarrier as u32 {
            body_code.take_divergence()
        } else if status == KernelStatus::LocalMemory as u32 {
            body_code.take_local_report(&local_args)
        } else {
            None
        };
        if let Some(words) = words {
            if let Ok(mut first) = seen.lock() {
                first.get_or_insert(words);
            }
        }
        status
    };
    // The kernel's code names it to the pool, which remembers whether its
    // groups are dear from one launch to the next.
    let kernel = Arc::as_ptr(&code).cast::<()>() as usize;
    let status = pool.run_for(kernel, launch.total_groups(), Arc::new(body));
    if status == 0 {
        return Ok(());
    }
    if status == KernelStatus::Cancelled as u32 {
        return Err(Error::OutOfResources(stop.describe(code.name())));
    }
    let recorded = divergence.lock().ok().and_then(|mut d| d.take());
    let why = match recorded {
        Some(words)
            if status == KernelStatus::DivergentBarrier as u32
                || status == KernelStatus::LocalMemory as u32 =>
        {
            words
        }
        _ => describe_status(status),
    };
    Err(Error::OutOfResources(format!(
        "kernel `{}` stopped: {why}",
        code.name()
    )))
}

/// The launch `code` runs for the planned `launch` on a pool of `threads`
/// threads: itself, or for a kernel that cannot observe its groups' shape,
/// [`shaped_for_chunks`] and then [`widened_rows`].
pub fn run_shape(code: &dyn KernelCode, launch: &Launch, threads: usize) -> Launch {
    if code.group_shape_invisible() {
        widened_rows(&shaped_for_chunks(launch, code.simd_width()), threads)
    } else {
        *launch
    }
}

/// How `code` runs the planned `launch` on a pool of `threads` threads, in
/// words: the groups it runs with and the dimension along which work-items
/// fill a chunk's lanes.
pub fn describe_mapping(code: &dyn KernelCode, launch: &Launch, threads: usize) -> String {
    let run = run_shape(code, launch, threads);
    let [x, y, z] = run.local_size;
    let groups = if run.local_size == launch.local_size {
        format!("groups of {x}x{y}x{z}")
    } else {
        let [a, b, c] = launch.local_size;
        format!("groups of {a}x{b}x{c} run as {x}x{y}x{z} (the kernel cannot observe their shape)")
    };
    format!(
        "launch: {groups}; lanes along dimension {}",
        code.lane_dimension(&run)
    )
}

/// `launch` with the groups the device would choose for it, when its own
/// groups are narrower than a chunk in dimension 0 where the global size
/// is not (1×1, 1×N groups), or hold one work-item, and the device's
/// groups fill more lanes. Only for a kernel that cannot observe the shape
/// of its groups: it computes the same thing with either. The chosen
/// groups may leave a partial last group, which such a kernel cannot see
/// either.
pub fn shaped_for_chunks(launch: &Launch, simd_width: u32) -> Launch {
    let w = u64::from(simd_width.max(1));
    let (local, global) = (launch.local_size, launch.global_size);
    let single = launch.items_per_group() == 1;
    if !(local[0] < w.min(global[0]) || single) {
        return *launch;
    }
    let dims = launch.work_dim.clamp(1, 3) as usize;
    let chosen = choose_local_size(&global, dims, simd_width, true);
    let lanes = |l: &[u64; 3]| w.min(l[0]);
    let more_lanes =
        lanes(&chosen) > lanes(&local) || (single && chosen.iter().product::<u64>() > 1);
    if !more_lanes {
        return *launch;
    }
    let shaped = Launch::new(launch.work_dim, launch.global_offset, global, chosen);
    Launch {
        local_size: shaped.local_size,
        num_groups: shaped.num_groups,
        ..*launch
    }
}

/// `launch` with its groups of one row (one work-item high and deep)
/// merged along dimension 0 into rows of up to [`ROW_ITEMS`] work-items,
/// as long as the launch keeps [`GROUPS_PER_THREAD`] groups for each of
/// the pool's `threads`. Only for a kernel that cannot observe the shape
/// of its groups (as [`shaped_for_chunks`]): a row of a group is one run
/// of the compiled code's chunk loop, and each group costs the code its
/// row's set-up and the loop's exit. A streaming kernel over 1M floats
/// (`y[i] = a * x[i] + y[i]`, in the caches) ran ~85 µs on one thread in
/// groups of 256 and ~77 µs in groups of 1024 (`docs/runtime.md`). The
/// merged row is a multiple of the old one, one that divides the global
/// size where one at least half as long does (else the last group is
/// partial, which such a kernel cannot see either); groups already that
/// long, or more than one row high, are kept.
pub fn widened_rows(launch: &Launch, threads: usize) -> Launch {
    let (local, global) = (launch.local_size, launch.global_size);
    if local[1] != 1 || local[2] != 1 || local[0] == 0 || local[0] >= ROW_ITEMS {
        return *launch;
    }
    let rows = global[1].max(1).saturating_mul(global[2].max(1));
    let wanted = GROUPS_PER_THREAD.saturating_mul(threads.max(1) as u64);
    let fits = |m: u64| {
        let row = local[0] * m;
        row <= global[0] && global[0].div_ceil(row).saturating_mul(rows) >= wanted
    };
    let Some(most) = (2..=ROW_ITEMS / local[0]).rev().find(|&m| fits(m)) else {
        return *launch;
    };
    let m = (most.div_ceil(2)..=most)
        .rev()
        .find(|&m| global[0].is_multiple_of(local[0] * m))
        .unwrap_or(most);
    let widened = Launch::new(
        launch.work_dim,
        launch.global_offset,
        global,
        [local[0] * m, 1, 1],
    );
    Launch {
        local_size: widened.local_size,
        num_groups: widened.num_groups,
        ..*launch
    }
}

/// A kernel status in words.
pub fn describe_status(status: u32) -> String {
    match status {
        s if s == KernelStatus::OutOfBounds as u32 => "memory access out of bounds".into(),
        s if s == KernelStatus::DivergentBarrier as u32 => {
            "barrier not reached by every work-item of a group".into()
        }
        s if s == KernelStatus::Trap as u32 => "a builtin trapped at run time".into(),
        s if s == KernelStatus::LocalMemory as u32 => {
            "a data race, uninitialised read or mixed atomic on __local memory".into()
        }
        s if s == KernelStatus::Cancelled as u32 => "the command was stopped".into(),
        s if s == KernelStatus::NoCode as u32 => {
            "the kernel's code for this launch could not be compiled".into()
        }
        STATUS_PANICKED => "the kernel's host code panicked".into(),
        STATUS_ARENA_ALLOCATION => "cannot allocate __local memory or the context area".into(),
        s => format!("status {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(range: NdRange, rules: LaunchRules) -> Result<Option<Launch>> {
        plan_launch(&range, 8, &rules)
    }

    #[test]
    fn every_kernel_status_is_described_in_words() {
        for (status, words) in [
            (KernelStatus::OutOfBounds, "out of bounds"),
            (KernelStatus::DivergentBarrier, "barrier"),
            (KernelStatus::Trap, "trapped"),
            (KernelStatus::Cancelled, "stopped"),
            (KernelStatus::LocalMemory, "__local"),
            (KernelStatus::NoCode, "could not be compiled"),
        ] {
            let text = describe_status(status as u32);
            assert!(text.contains(words), "{status:?}: {text}");
            assert!(!text.starts_with("status "), "{status:?}: {text}");
        }
    }

    #[test]
    fn explicit_local_sizes_are_validated() {
        let uniform = LaunchRules::default();
        let r = |g: u64, l: u64| NdRange::linear(g).with_local([l, 1, 1]);
        assert!(matches!(
            plan(r(100, 0), uniform),
            Err(Error::InvalidWorkGroupSize(_))
        ));
        assert!(matches!(
            plan(r(4096, 2048), uniform),
            Err(Error::InvalidWorkItemSize(_))
        ));
        assert!(matches!(
            plan(r(100, 30), uniform),
            Err(Error::InvalidWorkGroupSize(_))
        ));
        let big = NdRange {
            work_dim: 2,
            offset: [0; 3],
            global: [64, 64, 1],
            local: Some([64, 32, 1]),
        };
        assert!(matches!(
            plan(big, uniform),
            Err(Error::InvalidWorkGroupSize(_))
        ));
        let ok = plan(r(100, 25), uniform)
            .expect("valid")
            .expect("non-empty");
        assert_eq!(ok.num_groups, [4, 1, 1]);
        // OpenCL 2.0 non-uniform groups: the last group is partial.
        let non_uniform = LaunchRules {
            non_uniform_groups: true,
            ..LaunchRules::default()
        };
        let partial = plan(r(100, 30), non_uniform)
            .expect("valid")
            .expect("non-empty");
        assert_eq!(partial.num_groups, [4, 1, 1]);
    }

    #[test]
    fn dimensions_offsets_and_empty_ranges() {
        let rules = LaunchRules::default();
        let mut bad = NdRange::linear(16);
        bad.work_dim = 4;
        assert_eq!(plan(bad, rules).err(), Some(Error::InvalidWorkDimension(4)));
        bad.work_dim = 0;
        assert_eq!(plan(bad, rules).err(), Some(Error::InvalidWorkDimension(0)));
        let overflow = NdRange {
            work_dim: 1,
            offset: [u64::MAX, 0, 0],
            global: [2, 1, 1],
            local: None,
        };
        assert!(matches!(
            plan(overflow, rules),
            Err(Error::InvalidGlobalOffset(_))
        ));
        let huge = NdRange {
            work_dim: 2,
            offset: [0; 3],
            global: [u64::MAX, 4, 1],
            local: None,
        };
        assert!(matches!(
            plan(huge, rules),
            Err(Error::InvalidGlobalWorkSize(_))
        ));
        assert_eq!(plan(NdRange::linear(0), rules), Ok(None));
        // Unused dimensions are 1 whatever the caller left there.
        let one_d = NdRange {
            work_dim: 1,
            offset: [5, 9, 9],
            global: [64, 0, 0],
            local: None,
        };
        let launch = plan(one_d, rules).expect("valid").expect("non-empty");
        assert_eq!(launch.global_size, [64, 1, 1]);
        assert_eq!(launch.global_offset, [5, 0, 0]);
    }

    #[test]
    fn reqd_work_group_size_is_honoured() {
        let rules = LaunchRules {
            reqd_work_group_size: Some([16, 2, 1]),
            ..LaunchRules::default()
        };
        let range = NdRange {
            work_dim: 2,
            offset: [0; 3],
            global: [64, 8, 1],
            local: None,
        };
        let launch = plan(range, rules).expect("valid").expect("non-empty");
        assert_eq!(launch.local_size, [16, 2, 1]);
        assert!(matches!(
            plan(range.with_local([8, 2, 1]), rules),
            Err(Error::InvalidWorkGroupSize(_))
        ));
        let misfit = NdRange {
            work_dim: 2,
            offset: [0; 3],
            global: [24, 8, 1],
            local: None,
        };
        assert!(matches!(
            plan(misfit, rules),
            Err(Error::InvalidWorkGroupSize(_))
        ));
    }

    #[test]
    fn chosen_local_sizes_divide_and_fill_chunks() {
        for (global, expect) in [
            (1u64 << 24, 256u64),
            (1000, 200),
            (96, 96),
            (7, 7),
            (1, 1),
            (1023, 93),
        ] {
            let local = choose_local_size(&[global, 1, 1], 1, 8, false);
            assert_eq!(local[0], expect, "global {global}");
            assert_eq!(global % local[0], 0);
        }
        // A prime size with non-uniform groups allowed: full chunks, partial last group.
        assert_eq!(choose_local_size(&[1_000_003, 1, 1], 1, 8, true)[0], 256);
        assert_eq!(choose_local_size(&[1_000_003, 1, 1], 1, 8, false)[0], 1);
        // 2-D: the budget is shared across dimensions.
        let local = choose_local_size(&[16, 1024, 1], 2, 8, false);
        assert_eq!(local, [16, 16, 1]);
        assert!(local.iter().product::<u64>() <= MAX_WORK_GROUP_SIZE);
    }

    #[test]
    fn rows_of_invisible_groups_are_widened_while_each_thread_keeps_its_groups() {
        let widened = |work_dim: u32, global: [u64; 3], local: [u64; 3], threads: usize| {
            let launch = Launch::new(work_dim, [3, 5, 0], global, local);
            let w = widened_rows(&launch, threads);
            assert_eq!((w.global_size, w.global_offset), (global, [3, 5, 0]));
            assert_eq!(w.work_dim, work_dim);
            for ((&groups, &g), &l) in w.num_groups.iter().zip(&global).zip(&w.local_size) {
                assert_eq!(groups, g.div_ceil(l));
            }
            w.local_size
        };
        // 16M items in groups of 256: rows of 1024 on 2 threads or 64.
        assert_eq!(widened(1, [1 << 24, 1, 1], [256, 1, 1], 2), [1024, 1, 1]);
        assert_eq!(widened(1, [1 << 24, 1, 1], [256, 1, 1], 64), [1024, 1, 1]);
        // 1M items on 64 threads: 1024 groups wanted, so rows of 1024 only
        // just fit; 64K items keep their 256 groups of 256 (never narrowed).
        assert_eq!(widened(1, [1 << 20, 1, 1], [256, 1, 1], 64), [1024, 1, 1]);
        assert_eq!(widened(1, [1 << 16, 1, 1], [256, 1, 1], 64), [256, 1, 1]);
        assert_eq!(widened(1, [1 << 16, 1, 1], [256, 1, 1], 2), [1024, 1, 1]);
        // Few groups: 4096 items on 2 threads keep 16 groups of 256.
        assert_eq!(widened(1, [4096, 1, 1], [256, 1, 1], 2), [256, 1, 1]);
        // A divisor of the global size when one is at least half as long...
        assert_eq!(widened(1, [1000 * 96, 1, 1], [96, 1, 1], 2), [960, 1, 1]);
        // ...else the longest row, the last group partial.
        assert_eq!(widened(1, [1_000_003, 1, 1], [256, 1, 1], 2), [1024, 1, 1]);
        // Rows of a 2-D range: merged along dimension 0 only.
        assert_eq!(widened(2, [1024, 1024, 1], [256, 1, 1], 2), [1024, 1, 1]);
        assert_eq!(widened(2, [512, 64, 1], [16, 1, 1], 2), [512, 1, 1]);
        // Groups more than one row high, or already long, are kept.
        assert_eq!(widened(2, [1024, 1024, 1], [16, 16, 1], 2), [16, 16, 1]);
        assert_eq!(widened(3, [256, 4, 4], [64, 1, 2], 2), [64, 1, 2]);
        assert_eq!(widened(1, [1 << 24, 1, 1], [1024, 1, 1], 2), [1024, 1, 1]);
        // A row no longer than the range.
        assert_eq!(widened(2, [48, 4096, 1], [16, 1, 1], 2), [48, 1, 1]);
    }

    #[test]
    fn groups_narrower_than_a_chunk_are_reshaped_only_when_more_lanes_fill() {
        let shaped = |global: [u64; 3], local: [u64; 3]| {
            let launch = Launch::new(2, [0, 5, 0], global, local);
            let s = shaped_for_chunks(&launch, 8);
            assert_eq!((s.global_size, s.global_offset), (global, [0, 5, 0]));
            assert_eq!(s.total_groups(), s.num_groups.iter().product::<u64>());
            s.local_size
        };
        // 1×N and 1×1 groups over a wide range: the device's groups.
        assert_eq!(shaped([1024, 1024, 1], [1, 256, 1]), [256, 1, 1]);
        assert_eq!(shaped([1024, 1024, 1], [1, 1, 1]), [256, 1, 1]);
        // A range one wide in dimension 0: groups along dimension 1.
        assert_eq!(shaped([1, 1024, 1], [1, 1, 1]), [1, 256, 1]);
        // Already as wide as a chunk, or as the range: kept.
        assert_eq!(shaped([1024, 1024, 1], [8, 2, 1]), [8, 2, 1]);
        assert_eq!(shaped([1, 1024, 1], [1, 64, 1]), [1, 64, 1]);
        assert_eq!(shaped([3, 5, 1], [3, 5, 1]), [3, 5, 1]);
        // A prime width: full chunks and a partial last group.
        assert_eq!(shaped([1009, 2, 1], [1, 2, 1]), [256, 1, 1]);
    }
}

//! The `--explain` report: how a kernel was vectorised, in words (the
//! width, regions, each kind of access, branches and loops, which values
//! stay scalar, where lanes step, the tier), from what the compile driver
//! and the lowering found.

use crate::lower::chunks::Lowered;
use crate::tiers::Tier;
use crate::width::{uses_sub_groups, WIDE_WIDTH};
use crate::JitOptions;
use std::fmt::Write as _;
use std::time::Duration;
use vecl_ir::analysis::uniformity::Uniformity;

/// What the report is made from: one compilation's choices and counts.
pub(crate) struct Facts<'a> {
    pub kernel: &'a str,
    /// Work-items per chunk.
    pub w: u32,
    pub opts: &'a JitOptions,
    pub tier: Tier,
    /// The kernel as the lowering received it.
    pub func: &'a vecl_ir::Function,
    pub uni: &'a Uniformity,
    pub lowered: &'a Lowered,
    /// 0, or the dimension the lanes of this copy step along.
    pub lanes_along: usize,
    /// Why the kernel has no copy with lanes along another dimension.
    pub lane_obstacle: &'a Option<String>,
    /// Why the kernel can observe its work-groups' shape.
    pub shape_observer: &'a Option<String>,
    /// `intel_reqd_sub_group_size`.
    pub required: Option<u32>,
    /// Whether the kernel has a copy at [`WIDE_WIDTH`].
    pub has_wide: bool,
    /// The group bound checked code trusts (`CompiledKernel::group_bound`).
    pub group_bound: Option<u64>,
    /// The `__local` parameters that code trusts to be large enough
    /// (`CompiledKernel::local_needs`).
    pub trusted_local_params: &'a [u32],
    /// How many accesses that code trusts to be proven at launch
    /// (`crate::launch_proofs`).
    pub launch_trusted: usize,
    pub clif_insts: usize,
    /// The Cranelift code was only lowered: the kernel runs the wide code,
    /// and its Cranelift code is compiled at the first launch that needs it.
    pub fallback_deferred: bool,
    /// The compile time.
    pub elapsed: Duration,
}

/// The report of the compilation `f` describes.
pub(crate) fn explain(f: &Facts<'_>) -> String {
    let Facts {
        kernel,
        w,
        opts,
        tier,
        func,
        uni,
        lowered,
        lanes_along,
        lane_obstacle,
        shape_observer,
        required,
        has_wide,
        group_bound,
        trusted_local_params,
        launch_trusted,
        clif_insts,
        fallback_deferred,
        elapsed,
    } = *f;
    let s = &lowered.stats;
    let mut explain = String::new();
    let _ = writeln!(explain, "kernel {kernel}: W = {w} work-items per chunk");
    if opts.checked {
        let _ = writeln!(
            explain,
            "checked mode: every load, store, atomic and copy is bounds-checked ({} proven in bounds at compile time)",
            s.proven_in_bounds
        );
        if let Some(l) = group_bound {
            let _ = writeln!(
                explain,
                "checked mode: {} of them proven for groups of at most {l} work-items in each dimension; launches of larger groups run a copy that tests them",
                s.proven_for_group
            );
            if !trusted_local_params.is_empty() {
                let names: Vec<String> = trusted_local_params
                    .iter()
                    .map(|n| format!("argument {n}"))
                    .collect();
                let _ = writeln!(
                    explain,
                    "checked mode: accesses of __local {} within an element per work-item of the group's longest dimension are among them; launches whose __local arguments are smaller run that copy too",
                    names.join(", ")
                );
            }
        }
    }
    if opts.checked && launch_trusted > 0 {
        let _ = writeln!(
            explain,
            "checked mode: {} of them ({launch_trusted} accesses) proven at launch from the global size, the scalar arguments and the buffer sizes; launches that do not prove them run a copy that tests them",
            s.proven_for_launch
        );
    }
    if opts.checked && opts.local_checks {
        let _ = writeln!(
            explain,
            "checked mode: every access that may touch __local memory updates its shadow state (data races in a barrier region, reads of uninitialised __local memory, atomics mixed with plain accesses); {} of them proven free of conflicts in their barrier region skip it where their object is already written in the group",
            s.conflict_free
        );
    }
    let _ = writeln!(
        explain,
        "regions: {} ({})",
        lowered.regions,
        if lowered.regions > 1 {
            "cut at barriers; live values kept per chunk in the context area"
        } else {
            "no barriers"
        }
    );
    let _ = writeln!(
        explain,
        "loads: {} vector (consecutive; {} prefetching ahead, {} of them by a loop's step), {} interleaved (2 to 4 components of consecutive items), {} uniform, {} per lane (gather)",
        s.vector_loads, s.prefetches, s.prefetches_by_step, s.interleaved_loads, s.uniform_loads, s.gathers
    );
    let _ = writeln!(
        explain,
        "stores: {} vector (consecutive; {} streamed on large launches, {} blended into __local when lanes are off), {} interleaved (2 to 4 components of consecutive items), {} uniform, {} per lane (scatter)",
        s.vector_stores, s.streamed_stores, s.blended_stores, s.interleaved_stores, s.uniform_stores, s.scatters
    );
    if s.copies > 0 {
        let _ = writeln!(
            explain,
            "copies: {} ({} of consecutive items as whole pieces when every lane runs)",
            s.copies, s.whole_chunk_copies
        );
    }
    let _ = writeln!(
        explain,
        "atomics: {} (one per active lane; {} of them four consecutive ints at a time when every lane runs, {} of those writing nothing for four zeros)",
        s.atomics, s.grouped_atomics, s.zero_skipping_atomics
    );
    let _ = writeln!(
        explain,
        "branches: {} uniform if, {} varying if (masked); loops: {} uniform, {} divergent (masked)",
        s.uniform_ifs, s.varying_ifs, s.uniform_loops, s.divergent_loops
    );
    let _ = writeln!(
        explain,
        "operations done lane by lane (no vector form): {}",
        s.per_lane_ops
    );
    if s.linear_divisions > 0 {
        let _ = writeln!(
            explain,
            "divisions of a consecutive integer by a uniform one: {} (one division per chunk where the divisor is at least W; otherwise counted above)",
            s.linear_divisions
        );
    }
    let uniform_values = uni.values.iter().filter(|v| v.is_uniform()).count();
    let _ = writeln!(
        explain,
        "values: {uniform_values} of {} uniform (kept scalar)",
        uni.values.len()
    );
    if let Some((vars, empty, ranged)) = lowered.group_level {
        let _ = writeln!(
            explain,
            "group-level: {vars} variables kept once per group; {empty} regions run no chunk loop; {ranged} chunk loops visit only the ids their `if` accepts, {} of them with a copy that runs the chunks inside those ids without the test",
            s.inside_copies
        );
    }
    if lowered.fixed_context_bytes > 0 {
        let _ = writeln!(
            explain,
            "private memory lives in the context area ({} bytes per chunk: too large for a worker's stack)",
            lowered.fixed_context_bytes
        );
    } else if lowered.private_in_context {
        let _ = writeln!(
            explain,
            "private memory lives in the context area (it crosses barriers)"
        );
    }
    for n in &s.notes {
        let _ = writeln!(explain, "note: {n}");
    }
    let _ = match (&lane_obstacle, lanes_along) {
        (_, d @ 1..) => writeln!(
            explain,
            "lanes: consecutive work-items of dimension {d} (this copy runs launches whose groups are one work-item wide below dimension {d})"
        ),
        (None, _) => writeln!(
            explain,
            "lanes: chosen at launch: consecutive work-items of dimension 0; when the groups are one work-item wide in dimension 0, of dimension 1 (or 2 when dimension 1 is one wide too), in a copy compiled at the first such launch"
        ),
        (Some(why), _) => writeln!(
            explain,
            "lanes: consecutive work-items of dimension 0 in every launch (no copy along another dimension: {why})"
        ),
    };
    let _ = match &shape_observer {
        None => writeln!(
            explain,
            "groups: the kernel cannot observe their shape (no barrier, __local memory, local or group query): a launch whose groups are narrower than a chunk in dimension 0 runs with groups the device chooses"
        ),
        Some(why) => writeln!(explain, "groups: shape observable ({why})"),
    };
    if uses_sub_groups(func) {
        let _ = writeln!(
            explain,
            "sub-groups: {w} work-items each (the chunk width{}; a row of the group whose length is not a multiple of {w} ends with a shorter one); no wide copy",
            match (required, opts.simd_width) {
                (Some(_), _) => ", as intel_reqd_sub_group_size requires",
                (None, Some(_)) => ", as asked",
                (None, None) => ", chosen by the width rules",
            }
        );
    }
    if has_wide {
        let _ = writeln!(
            explain,
            "wide copy: launches whose local and global sizes in dimension 0 are multiples of {WIDE_WIDTH} run a copy at W = {WIDE_WIDTH}"
        );
    }
    let _ = writeln!(
        explain,
        "{} {clif_insts} CLIF instructions in {:.2} ms ({})",
        if fallback_deferred { "lowered" } else { "compiled" },
        elapsed.as_secs_f64() * 1e3,
        match (fallback_deferred, tier) {
            (true, _) => "not compiled yet: the wide code runs; Cranelift compiles them at the first launch whose ids exceed the wide code's bound (the `code:` line)",
            (false, Tier::Quick) => "quick tier: single-pass register allocation; the optimised code replaces it when ready",
            (false, Tier::Optimised) => "optimised tier",
        }
    );
    explain
}

//! Checked mode's `__local` checks through the safe API: each kernel of
//! `tests/buggy/` fails its command with `CL_OUT_OF_RESOURCES` and a
//! report naming the kind of bug, both work-items and both source lines,
//! at every SIMD width; correct kernels that look like races (barrier
//! reductions and scans, `__local` atomics, `async_work_group_copy`) run
//! clean and give the unchecked results; robust access has none of these
//! checks.

use vecl::{Context, Error, Safety};

const WIDTHS: [Option<u32>; 5] = [Some(4), Some(8), Some(16), Some(32), None];

/// Builds `source` in checked mode at `width` (the JIT's choice for
/// `None`) and runs `kernel` over `global`/`local` with one `int` output
/// buffer per work-item; the command's failure message, or the output.
fn run_checked(
    source: &str,
    kernel: &str,
    global: &[usize],
    local: &[usize],
    width: Option<u32>,
    safety: Safety,
) -> Result<Vec<i32>, String> {
    let ctx = Context::new().expect("context");
    let mut builder = ctx.program(source);
    if let Some(w) = width {
        builder = builder.simd_width(w);
    }
    let program = match safety {
        Safety::Checked => builder.checked(true),
        _ => builder,
    }
    .build()
    .expect("build");
    let k = program.kernel(kernel).expect("kernel");
    let queue = ctx.queue().expect("queue");
    let items: usize = global.iter().product();
    let out = ctx.buffer_from(&vec![0i32; items]).expect("buffer");
    k.set_arg_buffer(0, &out).expect("arg");
    let event = queue
        .launch(&k)
        .global(global)
        .local(local)
        .enqueue()
        .expect("enqueue");
    if event.wait().is_err() {
        assert_eq!(event.status(), -5, "CL_OUT_OF_RESOURCES");
        return match event.failure() {
            Some(Error::OutOfResources(message)) => Err(message),
            other => panic!("expected CL_OUT_OF_RESOURCES, got {other:?}"),
        };
    }
    Ok(queue.read_vec(&out, &[]).expect("read"))
}

fn assert_report(bug: &str, width: Option<u32>, parts: &[&str]) {
    let source = std::fs::read_to_string(format!("tests/buggy/{bug}.cl")).expect("source");
    let got = run_checked(&source, bug, &[64], &[64], width, Safety::Checked);
    let Err(message) = got else {
        panic!("{bug} at W = {width:?} ran clean");
    };
    for part in parts {
        assert!(
            message.contains(part),
            "{bug} at W = {width:?}: `{part}` missing from: {message}"
        );
    }
}

#[test]
fn a_neighbours_word_read_in_the_region_that_writes_it_is_a_data_race() {
    for w in WIDTHS {
        assert_report(
            "local_race",
            w,
            &[
                "kernel `local_race` stopped: data race on __local memory",
                "read of 4 bytes",
                "by the work-item with local id (0, 0, 0) at line 9:",
                "after a write by the work-item with local id (1, 0, 0) at line 8:",
                "in the same barrier region, in group (0, 0, 0)",
                "(`t`, byte 4)",
            ],
        );
    }
}

#[test]
fn a_word_no_work_item_wrote_is_an_uninitialised_read() {
    for w in WIDTHS {
        assert_report(
            "uninit_local",
            w,
            &[
                "kernel `uninit_local` stopped: read of uninitialised __local memory",
                "read of 4 bytes",
                "by the work-item with local id (0, 0, 0) at line 11:",
                "which no work-item of the group had written",
                "(`t`, byte 252)",
            ],
        );
    }
}

#[test]
fn a_plain_store_to_a_word_updated_atomically_in_the_same_region_is_reported() {
    for w in WIDTHS {
        assert_report(
            "atomic_mixed",
            w,
            &[
                "kernel `atomic_mixed` stopped: atomic and plain accesses of one __local word",
                "write of 4 bytes at 0x",
                "by the work-item with local id (5, 0, 0) at line 13:",
                "after an atomic by the work-item with local id (0, 0, 0) at line 11:",
                "(`count`, byte 0)",
            ],
        );
    }
}

/// Which work-item is named as reaching the barrier depends on where the
/// width cuts the group (a chunk that splits inside names its own lanes):
/// any below 20 is right.
#[test]
fn a_barrier_some_work_items_skip_is_reported_before_the_group_goes_on() {
    for w in WIDTHS {
        assert_report(
            "divergent_barrier",
            w,
            &[
                "kernel `divergent_barrier` stopped: barrier at line 8:9",
                "in group (0, 0, 0) but not by the one with local id (20, 0, 0)",
            ],
        );
        let source = std::fs::read_to_string("tests/buggy/divergent_barrier.cl").expect("source");
        let message = run_checked(
            &source,
            "divergent_barrier",
            &[64],
            &[64],
            w,
            Safety::Checked,
        )
        .expect_err("fails");
        let reached: u32 = message
            .split("reached by the work-item with local id (")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("no work-item reaching it in: {message}"));
        assert!(reached < 20, "W = {w:?}: {message}");
    }
}

/// Rows of a 2-D group that disagree at a barrier the compiler proves
/// uniform within each chunk (a row): the report names the barrier and a
/// work-item on each side, where it used to give the bare status.
#[test]
fn rows_that_disagree_at_a_barrier_are_named() {
    let source = "kernel void rows(global int *out) {
        int y = get_local_id(1);
        if (y < 2) {
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = y;
    }";
    for w in WIDTHS {
        let got = run_checked(source, "rows", &[16, 4], &[16, 4], w, Safety::Checked);
        let Err(message) = got else {
            panic!("rows at W = {w:?} ran clean");
        };
        for part in [
            "barrier at line 4:13",
            "reached by the work-item with local id (0, 0, 0) in group (0, 0, 0)",
            "but not by the one with local id (0, 2, 0)",
        ] {
            assert!(
                message.contains(part),
                "W = {w:?}: `{part}` missing from: {message}"
            );
        }
    }
}

/// Work-items storing the same value to one word still race (the
/// specification makes no exception), lanes of one chunk included.
#[test]
fn work_items_writing_the_same_value_race() {
    let source = "kernel void flag(global int *out) {
        local int seen;
        seen = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = seen;
    }";
    for w in WIDTHS {
        let got = run_checked(source, "flag", &[32], &[32], w, Safety::Checked);
        let Err(message) = got else {
            panic!("flag at W = {w:?} ran clean");
        };
        for part in [
            "data race on __local memory: write of 4 bytes",
            "by the work-item with local id (1, 0, 0) at line 3:",
            "after a write by the work-item with local id (0, 0, 0) at line 3:",
        ] {
            assert!(
                message.contains(part),
                "W = {w:?}: `{part}` missing from: {message}"
            );
        }
    }
}

/// Correct kernels that share `__local` memory run clean in checked mode
/// and give the results of the unchecked build.
const CORRECT: &str = "
kernel void tree_sum(global int *out) {
    local int t[64];
    int l = get_local_id(0);
    t[l] = l + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 32; s > 0; s >>= 1) {
        if (l < s)
            t[l] += t[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[0];
}

kernel void scan(global int *out) {
    local int t[64];
    int l = get_local_id(0);
    t[l] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < 64; off <<= 1) {
        int add = l >= off ? t[l - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        t[l] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[l];
}

kernel void histogram(global int *out) {
    local int bins[8];
    int l = get_local_id(0);
    if (l < 8)
        bins[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&bins[l % 8]);
    atomic_add(&bins[(l * 3) % 8], 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = bins[l % 8];
}

kernel void staged(global int *out) {
    local int t[64];
    int l = get_local_id(0);
    event_t e = async_work_group_copy(t, (global const int *)out, 64, 0);
    wait_group_events(1, &e);
    int v = t[63 - l];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = v * 2;
}

kernel void bytes(global int *out) {
    local uchar b[64];
    int l = get_local_id(0);
    b[l] = (uchar)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = b[l ^ 1];
}
";

#[test]
fn correct_kernels_that_share_local_memory_run_clean() {
    for kernel in ["tree_sum", "scan", "histogram", "staged", "bytes"] {
        let want = run_checked(CORRECT, kernel, &[128], &[64], Some(8), Safety::Robust)
            .unwrap_or_else(|e| panic!("{kernel} robust: {e}"));
        for w in WIDTHS {
            let got = run_checked(CORRECT, kernel, &[128], &[64], w, Safety::Checked)
                .unwrap_or_else(|e| panic!("{kernel} checked at W = {w:?}: {e}"));
            assert_eq!(got, want, "{kernel} at W = {w:?}");
        }
    }
}

/// Robust access has bounds checks only: the racy kernel runs.
#[test]
fn robust_access_does_not_look_for_races() {
    let source = std::fs::read_to_string("tests/buggy/local_race.cl").expect("source");
    let got = run_checked(&source, "local_race", &[64], &[64], None, Safety::Robust);
    assert!(got.is_ok(), "{got:?}");
}

/// Accesses proven free of conflicts skip the shadow only for the group
/// shapes the proof holds for: a store at an offset that depends on
/// `get_local_id(0)` alone races between the rows of a 2-D group, and a
/// 16-wide tile stored as `t[ly][lx]` races between rows when the group
/// is 32 wide (`t[0][16]` is `t[1][0]`). Both are reported.
#[test]
fn own_word_stores_race_in_groups_the_proof_does_not_cover() {
    let rows = "kernel void rows(global int *out) {
        local int t[64];
        int x = get_local_id(0);
        t[x] = get_local_id(1);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = t[x];
    }";
    let tiles = "kernel void tiles(global int *out) {
        local int t[16][16];
        int x = get_local_id(0);
        int y = get_local_id(1);
        t[y][x] = x;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = t[y][x];
    }";
    for w in WIDTHS {
        let clean = run_checked(rows, "rows", &[16], &[16], w, Safety::Checked);
        assert!(clean.is_ok(), "rows in 1-D groups at W = {w:?}: {clean:?}");
        let got = run_checked(rows, "rows", &[16, 2], &[16, 2], w, Safety::Checked);
        let Err(message) = got else {
            panic!("rows in 16x2 groups at W = {w:?} ran clean");
        };
        for part in [
            "data race on __local memory: write of 4 bytes",
            "by the work-item with local id (0, 1, 0) at line 4:",
            "after a write by the work-item with local id (0, 0, 0) at line 4:",
        ] {
            assert!(
                message.contains(part),
                "W = {w:?}: `{part}` missing from: {message}"
            );
        }
        let clean = run_checked(tiles, "tiles", &[16, 16], &[16, 16], w, Safety::Checked);
        assert!(clean.is_ok(), "16x16 tiles at W = {w:?}: {clean:?}");
        let got = run_checked(tiles, "tiles", &[32, 4], &[32, 4], w, Safety::Checked);
        let Err(message) = got else {
            panic!("tiles in 32x4 groups at W = {w:?} ran clean");
        };
        for part in [
            "data race on __local memory: write of 4 bytes",
            "(`t`, byte 64)",
        ] {
            assert!(
                message.contains(part),
                "W = {w:?}: `{part}` missing from: {message}"
            );
        }
    }
}

/// A tree reduction whose guard lets one work-item too many through
/// (`lid <= s`, `tests/buggy/tree_overlap.cl`): work-item 32 stores
/// `t[32]`, which work-item 0 loads as `t[0 + 32]` in the same region.
/// The proof that keeps a reduction's stores apart from its other loads
/// does not hold, and the race is reported; the correct guard
/// (`tree_sum` above) runs clean.
#[test]
fn a_tree_reduction_whose_guard_overlaps_races() {
    for w in WIDTHS {
        assert_report(
            "tree_overlap",
            w,
            &[
                "kernel `tree_overlap` stopped: data race on __local memory",
                "write of 4 bytes",
                "by the work-item with local id (32, 0, 0) at line 14:",
                "after a read by the work-item with local id (0, 0, 0) at line 14:",
                "(`t`, byte 128)",
            ],
        );
    }
}

/// Asserts that `message` holds every one of `parts`.
fn assert_parts(what: &str, message: &str, parts: &[&str]) {
    for part in parts {
        assert!(
            message.contains(part),
            "{what}: `{part}` missing from: {message}"
        );
    }
}

/// A region whose proven object (`t`, each work-item on its own word) is
/// fully written runs the copy of its chunks without the per-access test
/// of the skip flag; the other object of the region (`u`, read at a
/// neighbour's word in the region that writes it, only in the last trip)
/// is still tracked there, and its race is reported.
#[test]
fn a_race_after_the_proven_objects_are_ready_is_reported() {
    let source = "kernel void late(global int *out) {
        local int t[64];
        local int u[64];
        int l = get_local_id(0);
        t[l] = l;
        u[l] = l;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < 3; i++) {
            t[l] = t[l] + 1;
            if (i == 2)
                u[l] = u[l ^ 1];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = t[l] + u[l];
    }";
    for w in WIDTHS {
        let got = run_checked(source, "late", &[64], &[64], w, Safety::Checked);
        let Err(message) = got else {
            panic!("late at W = {w:?} ran clean");
        };
        assert_parts(
            &format!("W = {w:?}"),
            &message,
            &[
                "data race on __local memory: write of 4 bytes at 0x",
                "by the work-item with local id (0, 0, 0) at line 11:",
                "after a read by the work-item with local id (1, 0, 0) at line 11:",
                "(`u`, byte 0)",
            ],
        );
    }
}

/// `for (b = lid; b < 256; b += n) bins[b] = 0` is proven free of
/// conflicts (a strided counter) only for groups one work-item deep:
/// in 16x2 groups the two rows clear the same bins, which is reported;
/// a counter that steps by less than the group's size is tracked, and
/// its overlap reported; and the bins the loop leaves unwritten are
/// reported when read.
#[test]
fn strided_clearing_loops_are_proven_only_where_they_cannot_meet() {
    let clear = |step: &str, end: u32, read: &str| {
        format!(
            "kernel void clear(global int *out) {{
        local int bins[256];
        int l = get_local_id(0) + get_local_id(1) * get_local_size(0);
        int x = get_local_id(0);
        int n = {step};
        for (int b = x; b < {end}; b += n)
            bins[b] = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = {read};
    }}"
        )
    };
    let whole = clear("get_local_size(0)", 256, "bins[l]");
    for w in WIDTHS {
        let got = run_checked(&whole, "clear", &[64], &[64], w, Safety::Checked);
        assert_eq!(got, Ok(vec![1; 64]), "1-D groups at W = {w:?}");
        let got = run_checked(&whole, "clear", &[16, 2], &[16, 2], w, Safety::Checked);
        let Err(message) = got else {
            panic!("16x2 groups at W = {w:?} ran clean");
        };
        assert_parts(
            &format!("16x2 groups at W = {w:?}"),
            &message,
            &[
                "data race on __local memory: write of 4 bytes",
                "by the work-item with local id (0, 1, 0) at line 7:",
                "after a write by the work-item with local id (0, 0, 0) at line 7:",
                "(`bins`, byte 0)",
            ],
        );
        let short = clear("8", 256, "bins[l]");
        let got = run_checked(&short, "clear", &[64], &[64], w, Safety::Checked);
        let Err(message) = got else {
            panic!("a step of 8 at W = {w:?} ran clean");
        };
        assert_parts(
            &format!("a step of 8 at W = {w:?}"),
            &message,
            &[
                "data race on __local memory: write of 4 bytes",
                "(`bins`, byte 32)",
            ],
        );
        let part = clear("get_local_size(0)", 200, "bins[255 - l]");
        let got = run_checked(&part, "clear", &[64], &[64], w, Safety::Checked);
        let Err(message) = got else {
            panic!("a partly cleared table at W = {w:?} ran clean");
        };
        assert_parts(
            &format!("a partly cleared table at W = {w:?}"),
            &message,
            &[
                "read of uninitialised __local memory: read of 4 bytes",
                "by the work-item with local id (0, 0, 0) at line 9:",
                "(`bins`, byte 1020)",
            ],
        );
    }
}

/// An access past a `__local` argument stops the command with a report
/// naming the argument, in checked mode and with robust access: one
/// that goes beyond an element per work-item (tested at every launch)
/// and one within it (trusted for large enough arguments, so a short one
/// runs the copy that tests it).
#[test]
fn a_fault_past_a_local_argument_names_it() {
    let run = |source: &str, bytes: usize, safety: Safety| -> String {
        let ctx = Context::new().expect("context");
        let builder = ctx.program(source);
        let program = match safety {
            Safety::Checked => builder.checked(true),
            _ => builder,
        }
        .build()
        .expect("build");
        let k = program.kernel("k").expect("kernel");
        let queue = ctx.queue().expect("queue");
        let out = ctx.buffer_from(&[0i32; 64]).expect("buffer");
        k.set_arg_buffer(0, &out).expect("arg 0");
        k.set_arg_local(1, bytes).expect("arg 1");
        let event = queue
            .launch(&k)
            .global(&[64])
            .local(&[64])
            .enqueue()
            .expect("enqueue");
        assert!(event.wait().is_err(), "the launch must fail");
        match event.failure() {
            Some(Error::OutOfResources(message)) => message,
            other => panic!("expected CL_OUT_OF_RESOURCES, got {other:?}"),
        }
    };
    let beyond = "kernel void k(global int *out, local int *t) {
        int l = get_local_id(0);
        t[l + 1] = l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = l;
    }";
    let within = "kernel void k(global int *out, local int *t) {
        int l = get_local_id(0);
        t[l] = l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = t[l];
    }";
    for safety in [Safety::Checked, Safety::Robust] {
        let message = run(beyond, 64 * 4, safety);
        assert_parts(
            &format!("t[l + 1], {safety:?}"),
            &message,
            &[
                "out-of-bounds store of 4 bytes",
                "by work-item (63, 0, 0) at line 3:",
                "(4 bytes past the end of __local argument 1, of 256 bytes)",
            ],
        );
        let message = run(within, 63 * 4, safety);
        assert_parts(
            &format!("t[l], {safety:?}"),
            &message,
            &[
                "by work-item (63, 0, 0) at line 3:",
                "(4 bytes past the end of __local argument 1, of 252 bytes)",
            ],
        );
    }
}

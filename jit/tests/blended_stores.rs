//! Consecutive stores to `__local` memory under a mask that is not full
//! are one vector store blended with what the vector held
//! (`blended_store_test` in `lower/memory.rs`): the lanes not running must
//! keep their values, whichever chunk or phase wrote them, at the arena's
//! end too. Each launch is compared with the interpreter at every width.

use vecl_testkit::*;

fn local_masks(ty: &str, spec: fn(usize) -> Spec) {
    // Three phases of partial-mask stores, each followed by a copy of the
    // whole array to global memory: a mask from the local id, one from the
    // data, and a store one element up from the storing lane.
    let src = format!(
        "kernel void k(global const {ty}* a, global {ty}* o, int m) {{
            local {ty} t[64];
            int lid = get_local_id(0);
            int n = get_local_size(0);
            size_t g = get_global_id(0);
            t[lid] = a[g];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid % m == 1 || lid < 3) t[lid] = t[lid] * ({ty})2 + ({ty})lid;
            barrier(CLK_LOCAL_MEM_FENCE);
            o[3 * g] = t[lid];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid + 1 < n && ((int)a[g] & 1)) t[lid + 1] += ({ty})5;
            barrier(CLK_LOCAL_MEM_FENCE);
            o[3 * g + 1] = t[lid];
            for (int s = n / 2; s > 0; s >>= 1) {{
                if (lid < s) t[lid] += t[lid + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }}
            o[3 * g + 2] = t[lid];
        }}"
    );
    let compared = differential(&src, "k", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![spec(n), spec(3 * n + 3), Spec::Int(4)]
    });
    assert_eq!(compared, chunk_edges_1d().len() * WIDTHS.len());
}

#[test]
fn int_lanes_that_are_off_keep_their_values() {
    local_masks("int", |n| Spec::Ints(n, 2));
}

#[test]
fn float_lanes_that_are_off_keep_their_values() {
    local_masks("float", |n| Spec::Floats(n, 5));
}

#[test]
fn long_lanes_that_are_off_keep_their_values() {
    local_masks("long", |n| Spec::Ints(2 * n, 7));
}

#[test]
fn a_local_argument_ending_the_arena_matches_interpreter() {
    // The `__local` argument sits last in the arena, sized to the group:
    // the last chunk's vector may reach past the arena's end and must take
    // the per-lane path. (What the blend would write there is what it read,
    // so this compares the results only; the arena test itself is seen in
    // the code, not here.)
    let src = "kernel void k(global const int* a, global int* o, local int* t) {
        int lid = get_local_id(0);
        size_t g = get_global_id(0);
        t[lid] = a[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (a[g] > 0) t[lid] = -t[lid] + lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        o[g] = t[lid];
    }";
    let compared = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Ints(n, 4),
            Spec::Ints(n, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
    assert_eq!(compared, chunk_edges_1d().len() * WIDTHS.len());
}

#[test]
fn the_report_counts_blended_stores() {
    let e = explain(
        "kernel void k(global float* o) {
            local float t[64];
            int lid = get_local_id(0);
            t[lid] = o[lid];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid < 5) t[lid] += t[lid + 5];
            barrier(CLK_LOCAL_MEM_FENCE);
            o[lid] = t[lid];
        }",
        "k",
    );
    assert!(
        e.contains("blended into __local when lanes are off") && !e.contains(" 0 blended"),
        "{e}"
    );
}

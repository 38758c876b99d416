//! Chunks wholly inside the ids a region's final `if (lid OP bound)`
//! accepts run the `if`'s body without the test (`lower/chunks.rs`,
//! `inside_chunk`); the chunk that straddles a bound, the group's partial
//! tail chunk and the chunks of a bound below W keep the masked copy.
//! Checked against the IR interpreter at W = 4, 8, 16, 32 over groups of
//! 1, 2, 24, 64, 100 and 256 work-items, whole and with a partial last
//! group, and bounds that are multiples of W, not, negative and past the
//! group.

use vecl_ir::interp::NdRange;
use vecl_testkit::{differential_at, explain, range_1d, Spec, BARRIER_WIDTHS};

/// Groups of 1, 2, 24, 64, 100 and 256 work-items: three whole groups,
/// and two and a half (a partial last group).
fn shapes() -> Vec<NdRange> {
    let mut out = Vec::new();
    for ls in [1u64, 2, 24, 64, 100, 256] {
        out.push(range_1d(0, 3 * ls, ls));
        if ls > 1 {
            out.push(range_1d(5, 2 * ls + ls / 2 + 1, ls));
        }
    }
    out
}

/// A tree reduction over `int` ids (`lid < s`, `s` halving from a bound
/// that need not be a power of two, a varying `if` inside the one that
/// limits the chunks), then the same tree written with the
/// bound first (`s > lid`) over `ulong` ids, each level's partial sums
/// kept in `out` so that every level is compared.
const TREES: &str = r#"
kernel void trees(global const int* in, global int* out, local int* t, local long* u) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    size_t gid = get_global_id(0);
    t[lid] = in[gid];
    u[lid] = in[gid] * 3;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = (n + 1) / 2; s > 0; s >>= 1) {
        if (lid < s) {
            if (lid + s < n) {
                t[lid] += t[lid + s];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (ulong s = (ulong)n / 2; s > 0; s >>= 1) {
        if (s > (ulong)get_local_id(0)) {
            u[get_local_id(0)] += u[get_local_id(0) + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gid] = t[lid] * 7 + (int)u[lid];
}
"#;

#[test]
fn tree_levels_at_every_width() {
    let n = differential_at(&BARRIER_WIDTHS, TREES, "", "trees", &shapes(), |r| {
        let items = r.global_size[0] as usize;
        let ls = r.local_size[0] as usize;
        vec![
            Spec::Ints(items, 3),
            Spec::Ints(items, 0),
            Spec::Local(4 * ls),
            Spec::Local(8 * ls),
        ]
    });
    assert_eq!(n, BARRIER_WIDTHS.len() * shapes().len());
}

/// Every comparison form against a bound `k + step` that moves through,
/// below and past the group, at multiples of W and between them, so that
/// chunks lie wholly inside, straddle either end or lie outside.
const FORMS: &str = r#"
kernel void forms(global int* out, local int* t, int k, int step) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    t[lid] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = k; b < n + 20; b += step) {
        if (lid < b) { t[lid] += 1; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= b) { t[lid] += 100; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (b >= lid) { t[lid] += 10000; }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid > b) { t[lid] = t[lid] * 3 - lid; }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[lid];
}
"#;

#[test]
fn comparison_forms_inside_and_across_chunks() {
    for (k, step) in [(-5, 7), (0, 16), (3, 32), (8, 5), (-40, 64)] {
        let n = differential_at(&BARRIER_WIDTHS, FORMS, "", "forms", &shapes(), |r| {
            vec![
                Spec::Ints(r.global_size[0] as usize, 0),
                Spec::Local(4 * r.local_size[0] as usize),
                Spec::Int(k),
                Spec::Int(step),
            ]
        });
        assert_eq!(n, BARRIER_WIDTHS.len() * shapes().len());
    }
}

/// The `if` that limits the chunk loop is not the region's only statement
/// with an effect before it: no range, so no inside copy either (the
/// store before it runs in every chunk).
const NOT_LAST: &str = r#"
kernel void not_last(global int* out, local int* t, int k) {
    int lid = get_local_id(0);
    t[lid] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    t[lid] += 2;
    if (lid < k) { t[lid] += 4; }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid];
}
"#;

#[test]
fn an_effect_before_the_if_keeps_every_chunk() {
    let text = explain(NOT_LAST, "not_last");
    assert!(
        text.contains("0 chunk loops visit only the ids their `if` accepts, 0 of them"),
        "{text}"
    );
    for k in [-1, 0, 5, 16, 300] {
        differential_at(&BARRIER_WIDTHS, NOT_LAST, "", "not_last", &shapes(), |r| {
            vec![
                Spec::Ints(r.global_size[0] as usize, 0),
                Spec::Local(4 * r.local_size[0] as usize),
                Spec::Int(k),
            ]
        });
    }
}

/// The report counts the range-limited loops that got the inside copy.
#[test]
fn explain_counts_the_inside_copies() {
    let text = explain(TREES, "trees");
    assert!(
        text.contains("2 chunk loops visit only the ids their `if` accepts, 2 of them with a copy"),
        "{text}"
    );
    let reduce = explain(include_str!("../../benches/reduce.cl"), "reduce");
    assert!(
        reduce
            .contains("1 chunk loops visit only the ids their `if` accepts, 1 of them with a copy")
            || reduce.contains(
                "2 chunk loops visit only the ids their `if` accepts, 2 of them with a copy"
            ),
        "{reduce}"
    );
}

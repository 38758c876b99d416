//! Random index expressions built from the work-item ids with the
//! operations the vector-access analysis follows (`index_steps`,
//! `wrap_points` in `lower/linear.rs`: uniform offsets, conversions,
//! remainders and quotients by a uniform value, `min`/`max`/`clamp`) and
//! some it must refuse (products, sums and differences of two varying
//! values: `clamp(x) - 2 * x` looks consecutive to the analysis), each used
//! for two loads. Ids that cancel (`(int)lid - lid`) are uniform to the
//! analysis and must be so to the lowering too. Each launch is
//! compared with the interpreter at every width. The expressions come from
//! a fixed seed, so a failure names a reproducible kernel; `VECL_INDEX_CASES`
//! sets how many (40 by default).

use vecl_testkit::*;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An integer expression of depth at most `depth` over the ids and the
/// uniform parameters `d`, `lo` and `hi`.
fn expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.below(4) == 0 {
        return match rng.below(5) {
            0 => "lid".into(),
            1 => "(int)get_global_id(0)".into(),
            2 => "(uint)get_local_id(0)".into(),
            3 => "get_local_id(0)".into(),
            _ => "(int)(get_global_id(0) - get_global_offset(0))".into(),
        };
    }
    let e = expr(rng, depth - 1);
    let c = rng.below(40) as i64 - 8;
    match rng.below(15) {
        0 => format!("({e} + {c})"),
        1 => format!("({e} - {c})"),
        2 => format!("((uint)({e}) % d)"),
        3 => format!("((size_t)({e}) % (size_t)d)"),
        4 => format!("((uint)({e}) / d)"),
        5 => format!("min((int)({e}), hi)"),
        6 => format!("max((int)({e}), lo)"),
        7 => format!("clamp((int)({e}), lo, hi)"),
        8 => format!("(long)({e})"),
        9 => format!("(uint)({e})"),
        10 => format!("((int)({e}) * 2)"),
        11 => format!("((int)({e}) + lid)"),
        12 => format!("((int)({e}) - lid)"),
        13 => format!("((int)({e}) - 2 * lid)"),
        _ => format!("({} - (int)({e}))", rng.below(64)),
    }
}

#[test]
fn random_index_expressions_match_interpreter() {
    random_indices(
        "kernel void k(global const int* a, global int* o, local int* slot,
                       uint d, int lo, int hi) {
            int lid = get_local_id(0);
            size_t g = get_global_id(0);
            int i = clamp((int)(EXPR), 0, 255);
            int j = clamp((int)(EXPR), 0, (int)get_local_size(0) - 1);
            o[g] = a[i] * 1000 + a[j + 256];
        }",
    );
}

/// The same after a barrier, the ids read from variables written before
/// it, and one index into `__local` memory: the uniformity analysis must
/// settle on the variables' shapes (a difference of two consecutive values
/// is consecutive while one is not yet known to be, and uniform after).
#[test]
fn random_index_expressions_after_a_barrier_match_interpreter() {
    random_indices(
        "kernel void k(global const int* a, global int* o, local int* slot,
                       uint d, int lo, int hi) {
            int lid = get_local_id(0);
            size_t g = get_global_id(0);
            slot[lid] = a[g] + 1;
            barrier(CLK_LOCAL_MEM_FENCE);
            int i = clamp((int)(EXPR), 0, 255);
            int j = clamp((int)(EXPR), 0, (int)get_local_size(0) - 1);
            o[g] = a[i] * 1000 + slot[j];
        }",
    );
}

/// Runs `template` with `EXPR` replaced by each random expression.
fn random_indices(template: &str) {
    // `VECL_INDEX_CASES` runs more expressions (by hand; CI runs 40).
    let cases = std::env::var("VECL_INDEX_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..cases {
        let e = expr(&mut rng, 4);
        let src = template.replace("EXPR", &e);
        for (d, lo, hi) in [(1u32, 0, 255), (4, 3, 40), (7, -5, 20), (16, 10, 10)] {
            let n = differential(&src, "k", &chunk_edges_1d(), |r| {
                let n = (r.global_offset[0] + r.global_size[0]) as usize + 512;
                vec![
                    Spec::Ints(n, 5),
                    Spec::Ints(n, 0),
                    Spec::Local(4 * r.local_size[0] as usize),
                    Spec::Int(d as i32),
                    Spec::Int(lo),
                    Spec::Int(hi),
                ]
            });
            assert_eq!(
                n,
                chunk_edges_1d().len() * WIDTHS.len(),
                "case {case}: {e} with d {d}, lo {lo}, hi {hi}"
            );
        }
    }
}

/// Ids that cancel: the analysis calls the result uniform when both sides
/// are exactly consecutive, and the lowering must then give one scalar (a
/// variable kept scalar could not take the vector: these kernels did not
/// build). When a side is consecutive only approximately (clamped, or
/// widened after a possible wrap), the lanes may differ and must stay a
/// vector.
#[test]
fn cancelling_ids_match_interpreter() {
    let src = "kernel void exact(global const int* a, global int* o, int lo, int hi) {
        int lid = get_local_id(0);
        int base = get_global_id(0) - get_local_id(0);
        int same = (int)lid - lid;
        int wrapped = (int)((uint)get_local_id(0) - 15u) - lid;
        o[get_global_id(0)] = base * 1000 + same * 100 + wrapped + a[base & 63];
    }
    kernel void approx(global const int* a, global int* o, int lo, int hi) {
        int lid = get_local_id(0);
        int cut = max(clamp(lid, lo, hi), lo) - lid;
        long widened = (long)((uint)get_local_id(0) - 2u) - (long)lid;
        o[get_global_id(0)] = cut * 1000 + (int)(widened >> 16) + a[clamp(cut + 8, 0, 63)];
    }";
    for kernel in ["exact", "approx"] {
        for (lo, hi) in [(0, 1000), (3, 20), (-5, 2), (10, 10)] {
            let n = differential(src, kernel, &chunk_edges_1d(), |r| {
                let n = (r.global_offset[0] + r.global_size[0]) as usize + 64;
                vec![
                    Spec::Ints(n, 5),
                    Spec::Ints(n, 0),
                    Spec::Int(lo),
                    Spec::Int(hi),
                ]
            });
            assert_eq!(
                n,
                chunk_edges_1d().len() * WIDTHS.len(),
                "{kernel} {lo} {hi}"
            );
        }
    }
}

/// Gathers whose index is a varying value plus a uniform one, in a loop
/// over the uniform part: the lane address is recomputed as `(p + a) + u`
/// (`varying_plus_uniform` in `lower/linear.rs`) for 64-bit and `int`
/// sums; a `uint` sum wraps at 32 bits and must not be split (the last
/// load reads `a[16..32]` through a sum that wraps: split, it would
/// address 16 GiB past the buffer).
#[test]
fn varying_plus_uniform_indices_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o, int n, int m) {
        size_t g = get_global_id(0);
        int lid = get_local_id(0);
        size_t base = (g * 7) % 64;
        long lbase = (long)((g * 5) % 64) + 8;
        int ibase = (int)((g * 3) % 64);
        int acc = 0;
        for (int k = 0; k < n; k++) {
            acc += a[base + k];
            acc += a[(size_t)k + base] * 3;
            acc += a[lbase - k] * 5;
            acc += a[ibase + m * k] * 7;
            acc += a[m + ibase];
        }
        uint wrapped = 0xfffffff0u + (uint)((lid * 5) % 16);
        acc += a[wrapped + (uint)m * 32u];
        o[g] = acc;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize + 256;
        vec![
            Spec::Ints(n, 3),
            Spec::Ints(n, 0),
            Spec::Int(6),
            Spec::Int(1),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

//! `/` and `%` of an integer consecutive across the chunk by a uniform one
//! (`gid % width`, `gid / width`; `linear_div_rem` in `lower/ops.rs`):
//! signed and unsigned, 32 and 64 bits, divisors below, at and above the
//! chunk width, zero, negative and past half the type's maximum (the
//! general form), negative dividends and lanes that wrap at the top of the
//! type. Each launch is compared with the interpreter at every width.

use vecl_testkit::*;

fn n_for(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

/// `q` and `r` of `x = (T)gid + base` by `d`, written to two buffers.
fn kernel(ty: &str, base: &str) -> String {
    format!(
        "kernel void k(global {ty}* q, global {ty}* r, {ty} d) {{
            size_t g = get_global_id(0);
            {ty} x = ({ty})g + ({ty})({base});
            q[g] = x / d;
            r[g] = x % d;
        }}"
    )
}

fn run(ty: &str, base: &str, divisors: &[i64]) {
    let src = kernel(ty, base);
    let long = ty.contains("long");
    for &d in divisors {
        let n = differential(&src, "k", &chunk_edges_1d(), |r| {
            let n = n_for(r) * if long { 2 } else { 1 };
            let d = if long {
                Spec::Long(d)
            } else {
                Spec::Int(d as i32)
            };
            vec![Spec::Ints(n, 0), Spec::Ints(n, 0), d]
        });
        assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len(), "{ty} {base} {d}");
    }
}

const DIVISORS: [i64; 10] = [1, 3, 4, 15, 16, 17, 100, 1000, 0, 0x7fff_ffff];

#[test]
fn int_and_uint_match_interpreter() {
    run("int", "0", &DIVISORS);
    run("int", "-50", &DIVISORS);
    run("int", "-3", &[-1, -7, -100, 7, 20]);
    run("uint", "0", &DIVISORS);
    run(
        "uint",
        "0xffffffc0u",
        &[5, 16, 33, 0x4000_0000, 0x8000_0001],
    );
}

#[test]
fn long_and_ulong_match_interpreter() {
    run("long", "0", &DIVISORS);
    run("long", "-40", &[3, 16, 17, 1000, -9]);
    run("ulong", "0", &DIVISORS);
    run(
        "ulong",
        "0xffffffffffffffc0ul",
        &[5, 16, 33, 0x4000_0000_0000_0000],
    );
}

/// Addresses indexed by `(lid + k) % d` or `(gid + k) / d`: where a chunk's
/// lanes are not consecutive, each lane's address is recomputed in the
/// per-lane loop, its division by the uniform `d` a mask or a shift when
/// `d` is a power of two (`scalar_div_rem_by_uniform`).
#[test]
fn recomputed_lane_addresses_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o, local int* slot,
                         uint d, uint k) {
        size_t g = get_global_id(0);
        int lid = get_local_id(0);
        slot[lid] = a[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        uint n = get_local_size(0);
        int wrapped = slot[(lid + k) % n];
        int modded = d == 0 ? 0 : a[(g + k) % d];
        int divided = d == 0 ? 0 : a[(g + k) / d];
        o[g] = wrapped * 10000 + modded * 100 + divided;
    }";
    for d in [0, 1, 2, 3, 8, 16, 17, 64] {
        for k in [0, 1, 5, 16] {
            run_with_local(src, d, k);
        }
    }
}

/// `src`'s kernel `k(a, o, slot, d, x)` over the 1-D shapes: `a` input
/// with room for indices a little past the range, `slot` one `int` per
/// work-item of the group.
fn run_with_local(src: &str, d: i32, x: i32) {
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = n_for(r) + 128;
        vec![
            Spec::Ints(n, 1),
            Spec::Ints(n, 0),
            Spec::Local(4 * r.local_size[0] as usize),
            Spec::Int(d),
            Spec::Int(x),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len(), "d {d}, {x}");
}

/// Indices that rise by at most one from lane to lane (`index_steps` in
/// `lower/linear.rs`): a consecutive value's remainder by a uniform one,
/// through `int`, `uint` and `size_t`, with and without a uniform offset
/// after it, and one clamped first. The vector path is taken when the last
/// lane is W - 1 above the first; chunks whose lanes wrap take the
/// per-lane path.
#[test]
fn remainders_as_indices_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o, local int* slot,
                         uint d, int lim) {
        size_t g = get_global_id(0);
        int lid = get_local_id(0);
        slot[lid] = a[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        uint n = get_local_size(0);
        int s1 = slot[(lid + 3) % n];
        int s2 = slot[(size_t)(lid + 1) % get_local_size(0)];
        int g1 = a[(uint)(lid + 3) % d];
        int g2 = a[(size_t)(lid + 1) % (size_t)d + 2];
        int g3 = a[(uint)min(lid + 2, lim) % d];
        o[g] = s1 + 3 * s2 + 5 * g1 + 7 * g2 + 11 * g3;
    }";
    for d in [1, 2, 3, 5, 8, 16, 17, 100] {
        for lim in [0, 5, 20, 1000] {
            run_with_local(src, d, lim);
        }
    }
}

//! Atomics on `__local` memory, which run as plain read-modify-writes in
//! lane order (a work-group never leaves its thread), against the
//! interpreter: counts, the old values returned, and every operation.
//! Each work-item touches each location once, so the order of the updates
//! to a location (work-item order) is the same in both.

use vecl_testkit::*;

#[test]
fn local_histogram_counts_and_old_values() {
    let src = "kernel void hist(global const uchar* data, global uint* bins, global uint* olds) {
        local uint counts[16];
        int lid = get_local_id(0);
        int n = get_local_size(0);
        for (int b = lid; b < 16; b += n) counts[b] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        size_t i = get_global_id(0);
        olds[i] = atomic_inc(&counts[data[i] & 15]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int b = lid; b < 16; b += n) atomic_add(&bins[b], counts[b]);
    }";
    let ranges = [
        range_1d(0, 256, 64),
        range_1d(0, 203, 29),
        range_1d(0, 37, 37),
        range_1d(0, 9, 1),
    ];
    let n = differential(src, "hist", &ranges, |r| {
        let n = r.global_size[0] as usize;
        vec![Spec::Bytes(n, 3), Spec::Ints(16, 0), Spec::Ints(n, 0)]
    });
    assert_eq!(n, 12);
    let e = explain(src, "hist");
    assert!(e.contains("atomics: 2"), "{e}");
}

#[test]
fn every_local_atomic_operation() {
    let src = "kernel void ops(global const int* in, global int* out, global int* final_) {
        local int s[10];
        int lid = get_local_id(0);
        if (lid < 10) s[lid] = 5;
        barrier(CLK_LOCAL_MEM_FENCE);
        int v = in[get_global_id(0)];
        size_t o = get_global_id(0) * 8;
        out[o + 0] = atomic_add(&s[0], v);
        out[o + 1] = atomic_sub(&s[1], v);
        out[o + 2] = atomic_xchg(&s[2], v);
        out[o + 3] = atomic_min(&s[3], v);
        out[o + 4] = atomic_max(&s[4], v);
        out[o + 5] = atomic_and(&s[5], v | 16);
        out[o + 6] = atomic_or(&s[6], v & 12) ^ atomic_xor(&s[7], v);
        out[o + 7] = atomic_cmpxchg(&s[8], 5, v) * 1000 + atomic_dec(&s[9]);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < 10) final_[get_group_id(0) * 10 + lid] = s[lid];
    }";
    let ranges = [
        range_1d(0, 64, 16),
        range_1d(0, 45, 15),
        range_1d(0, 24, 24),
    ];
    differential(src, "ops", &ranges, |r| {
        let n = r.global_size[0] as usize;
        let groups = n / r.local_size[0] as usize;
        vec![
            Spec::Ints(n, 4),
            Spec::Ints(n * 8, 0),
            Spec::Ints(groups * 8, 0),
        ]
    });
}

/// The four-ints-at-a-time path leaves out the locked update of a piece
/// whose operands are all zero for `add`, `sub`, `or` and `xor` (the ints
/// it read are the old values): pieces all zero, partly zero (written),
/// and zero pieces whose old values are used, against the interpreter;
/// and `and`, `min` and `max` of zeros, which change the ints and must
/// not be left out. Buffers start non-zero (`Spec::Ints`), so an update
/// wrongly left out or wrongly made shows.
#[test]
fn global_atomics_of_zero_operands() {
    let src = "kernel void z(global int* acc, global int* ors, global int* ands,
                             global int* mins, global uint* umaxs, global int* olds) {
        size_t i = get_global_id(0);
        // Zero for the first half of every 16 work-items: whole pieces of
        // zeros at W = 4, 8 and 16, a zero and a non-zero piece at W = 32.
        int v = (i % 16 < 8) ? 0 : (int)i - 40;
        // Zero for three lanes of four: every piece holds one non-zero.
        int w = (i % 4 == 3) ? (int)i + 1 : 0;
        size_t o = i * 8;
        olds[o + 0] = atomic_add(&acc[i], v);
        olds[o + 1] = atomic_sub(&acc[i], w);
        olds[o + 2] = atomic_xor(&acc[i], v);
        olds[o + 3] = atomic_or(&ors[i], w);
        atomic_add(&ors[i], 0);
        olds[o + 4] = atomic_and(&ands[i], v);
        olds[o + 5] = atomic_min(&mins[i], v);
        olds[o + 6] = atomic_max(&umaxs[i], (uint)w);
        olds[o + 7] = atomic_add(&acc[i], 0);
    }";
    let ranges = [
        range_1d(0, 256, 64),
        range_1d(0, 64, 16),
        range_1d(0, 203, 29),
        range_1d(4, 120, 24),
    ];
    let n = differential(src, "z", &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Ints(n, 1),
            Spec::Ints(n, 2),
            Spec::Ints(n, 3),
            Spec::Ints(n, 4),
            Spec::Ints(n, 5),
            Spec::Ints(8 * n, 0),
        ]
    });
    assert_eq!(n, ranges.len() * WIDTHS.len());
    let e = explain(src, "z");
    assert!(
        e.contains("9 of them four consecutive ints at a time when every lane runs, 6 of those writing nothing for four zeros"),
        "{e}"
    );
}

/// `__global` atomics of consecutive ints, which take four lanes per
/// `lock cmpxchg16b` when every lane runs and the chunk starts 16-byte
/// aligned: every operation that path takes, with the old values each lane
/// gets back, against the lane-by-lane path's cases — a first address one
/// int off the alignment, lanes switched off, every other int, and a
/// location two work-items add to (only the sum is kept: its order is the
/// interpreter's, not the chunk's). Global offsets move the first address
/// of a chunk off its alignment too.
#[test]
fn global_atomics_on_consecutive_ints() {
    let src = "kernel void g(global int* acc, global uint* uacc, global int* shifted,
                             global int* spaced, global int* pairs, global const int* in,
                             global int* olds) {
        size_t i = get_global_id(0);
        int v = in[i];
        size_t o = i * 9;
        olds[o + 0] = atomic_add(&acc[i], v);
        olds[o + 1] = atomic_sub(&acc[i], v * 3);
        olds[o + 2] = atomic_inc(&acc[i]);
        olds[o + 3] = atomic_dec(&shifted[i + 1]);
        olds[o + 4] = atomic_min(&acc[i], v);
        olds[o + 5] = atomic_max(&acc[i], -v);
        olds[o + 6] = atomic_and(&acc[i], v | 0x70);
        olds[o + 7] = atomic_or(&acc[i], v & 12) ^ atomic_xor(&acc[i], v);
        olds[o + 8] = atomic_min(&uacc[i], (uint)v) + atomic_max(&uacc[i], (uint)(v * 5));
        if (i % 5 != 2) atomic_add(&acc[i], 100);
        atomic_add(&spaced[i * 2], v);
        atomic_add(&pairs[i / 2], v);
    }";
    let ranges = [
        range_1d(0, 256, 64),
        range_1d(0, 64, 16),
        range_1d(0, 203, 29),
        range_1d(3, 61, 61),
        range_1d(4, 120, 24),
    ];
    let n = differential(src, "g", &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Ints(n, 1),
            Spec::Ints(n, 2),
            Spec::Ints(n + 1, 3),
            Spec::Ints(2 * n, 4),
            Spec::Ints(n / 2 + 1, 5),
            Spec::Ints(n, 6),
            Spec::Ints(9 * n, 0),
        ]
    });
    assert_eq!(n, ranges.len() * WIDTHS.len());
    let e = explain(src, "g");
    assert!(
        e.contains("atomics: 14 (one per active lane; 14 of them four consecutive ints"),
        "{e}"
    );
}

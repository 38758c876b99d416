//! Vector accesses and their run-time tests: consecutive loads and stores in
//! full chunks and partial tails, sizes that are not multiples of W,
//! offsets, `int` indices that wrap, addresses the analysis cannot prove
//! consecutive (`clamp`, permutations), vector and narrow element types,
//! and a buffer passed as both input and output. Every launch is compared
//! byte for byte with the interpreter, guard bytes included.

use vecl_testkit::*;

/// `n` elements per buffer: the last work-item of every shape plus slack.
fn n_for(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

#[test]
fn size_t_index_add_matches_interpreter() {
    let src = "kernel void vadd(global const float* a, global const float* b, global float* c) {
        size_t i = get_global_id(0);
        c[i] = a[i] + b[i];
    }";
    let n = differential(src, "vadd", &chunk_edges_1d(), |r| {
        let n = n_for(r);
        vec![Spec::Floats(n, 1), Spec::Floats(n, 2), Spec::Floats(n, 0)]
    });
    assert_eq!(n, 27);
    let e = explain(src, "vadd");
    assert!(e.contains("loads: 2 vector"), "{e}");
    assert!(e.contains("stores: 1 vector"), "{e}");
}

#[test]
fn guarded_int_index_touches_nothing_past_n() {
    let src = "kernel void saxpy(float alpha, global const float* x, global float* y, int n) {
        int i = get_global_id(0);
        if (i < n) y[i] = alpha * x[i] + y[i];
    }";
    for cut in [0usize, 3, 7] {
        differential(src, "saxpy", &chunk_edges_1d(), |r| {
            let end = (r.global_offset[0] + r.global_size[0]) as usize;
            let n = end.saturating_sub(cut);
            vec![
                Spec::Float(2.5),
                Spec::Floats(n, 3),
                Spec::Floats(n, 4),
                Spec::Int(n as i32),
            ]
        });
    }
}

#[test]
fn in_place_and_aliased_buffers() {
    // `out` is `in` itself (each work-item reads its element, then writes
    // it), or the second half of the same buffer.
    let src = "kernel void scale(global const float* in, global float* out, float k) {
        size_t i = get_global_id(0);
        out[i] = in[i] * k + 1.0f;
    }";
    for second_half in [false, true] {
        differential(src, "scale", &chunk_edges_1d(), |r| {
            let n = n_for(r);
            let offset = if second_half { 4 * n as u64 } else { 0 };
            vec![
                Spec::Floats(2 * n, 5),
                Spec::Alias(0, offset),
                Spec::Float(3.0),
            ]
        });
    }
}

#[test]
fn two_dimensional_rows_with_int_arithmetic() {
    let src = "kernel void rows(global const float* in, global float* out, int width) {
        int x = get_global_id(0);
        int y = get_global_id(1);
        out[y * width + x] = in[y * width + x] * 2.0f + (float)y;
    }";
    let mut ranges = Vec::new();
    for (w, h, lx, ly) in [
        (16u64, 4u64, 8u64, 2u64),
        (13, 3, 5, 1),
        (9, 5, 9, 5),
        (33, 2, 4, 2),
    ] {
        ranges.push(vecl_ir::interp::NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [w, h, 1],
            local_size: [lx, ly, 1],
        });
    }
    differential(src, "rows", &ranges, |r| {
        let n = (r.global_size[0] * r.global_size[1]) as usize;
        vec![
            Spec::Floats(n, 6),
            Spec::Floats(n, 0),
            Spec::Int(r.global_size[0] as i32),
        ]
    });
}

#[test]
fn clamped_neighbours_are_vector_loads_when_consecutive() {
    let src = "kernel void blur(global const float* in, global float* out, int n) {
        int x = get_global_id(0);
        float acc = 0.0f;
        for (int d = -2; d <= 2; d++) {
            acc += in[clamp(x + d, 0, n - 1)];
        }
        out[x] = acc;
    }";
    differential(src, "blur", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Floats(n, 7), Spec::Floats(n, 0), Spec::Int(n as i32)]
    });
    // The loop of five is unrolled: one vector load per tap.
    let e = explain(src, "blur");
    assert!(
        e.contains("loads: 5 vector (consecutive; 1 prefetching ahead, 0 of them by a loop's step), 0 interleaved (2 to 4 components of consecutive items), 0 uniform, 0 per lane"),
        "{e}"
    );
}

#[test]
fn clamped_neighbours_through_variables_in_two_dimensions() {
    let src = "kernel void conv(global const float* in, global float* out, constant float* w, int width, int height) {
        int x = get_global_id(0);
        int y = get_global_id(1);
        float acc = 0.0f;
        for (int dy = -1; dy <= 1; dy++) {
            int yy = clamp(y + dy, 0, height - 1);
            for (int dx = -2; dx <= 2; dx++) {
                int xx = clamp(x + dx, 0, width - 1);
                acc += w[(dy + 1) * 5 + dx + 2] * in[yy * width + xx];
            }
        }
        out[y * width + x] = acc;
    }";
    let mut ranges = Vec::new();
    for (w, h, lx, ly) in [(16u64, 4u64, 8u64, 2u64), (13, 3, 13, 1), (24, 5, 6, 5)] {
        ranges.push(vecl_ir::interp::NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [w, h, 1],
            local_size: [lx, ly, 1],
        });
    }
    differential(src, "conv", &ranges, |r| {
        let n = (r.global_size[0] * r.global_size[1]) as usize;
        vec![
            Spec::Floats(n, 12),
            Spec::Floats(n, 0),
            Spec::Floats(15, 13),
            Spec::Int(r.global_size[0] as i32),
            Spec::Int(r.global_size[1] as i32),
        ]
    });
    // The inner loop of five is unrolled (the weights are uniform loads).
    let e = explain(src, "conv");
    assert!(
        e.contains("loads: 5 vector (consecutive; 0 prefetching ahead, 0 of them by a loop's step), 0 interleaved (2 to 4 components of consecutive items), 5 uniform, 0 per lane"),
        "{e}"
    );
}

#[test]
fn int_indices_through_intermediates_that_wrap() {
    // `i` wraps past INT_MAX (or UINT_MAX) in some lanes; the index
    // `i - k` does not, and is consecutive except where `clamp` holds it.
    let src = "kernel void top(global const float* in, global float* out, int k) {
        int x = get_global_id(0);
        int i = clamp(x, 0, 15) + k;
        out[x] = in[i - k] + (float)(i > k + 3);
    }
    kernel void utop(global const float* in, global float* out, uint k) {
        uint x = get_global_id(0);
        uint i = min(x, 15u) + k;
        out[x] = in[i - k];
    }";
    for k in [0i32, i32::MAX - 3, i32::MAX - 12, -1, -5] {
        for kernel in ["top", "utop"] {
            differential(
                src,
                kernel,
                &[range_1d(0, 16, 16), range_1d(0, 32, 8)],
                |_| vec![Spec::Floats(48, 14), Spec::Floats(48, 0), Spec::Int(k)],
            );
        }
    }
}

#[test]
fn permuted_lanes_fall_back_to_per_lane_accesses() {
    // Lanes 1 and 2 of every 4 swap places: the first and last lane are
    // where a consecutive access would put them, the middle ones are not.
    let src = "kernel void perm(global const int* in, global int* out) {
        int i = get_global_id(0);
        int r = i % 4;
        int j = r == 1 ? i + 1 : (r == 2 ? i - 1 : i);
        out[j] = in[j ^ 4] + in[(i * 5) % 64];
    }";
    let ranges = [
        range_1d(0, 64, 16),
        range_1d(0, 128, 64),
        range_1d(0, 64, 8),
    ];
    differential(src, "perm", &ranges, |_| {
        vec![Spec::Ints(200, 3), Spec::Ints(200, 0)]
    });
}

#[test]
fn narrow_index_that_wraps_inside_a_chunk() {
    // `(uchar)` wraps from 255 to 0 inside a chunk for these offsets; the
    // second kernel adds two wraps that cancel in the first-to-last distance.
    let src = "kernel void wrap1(global const float* in, global float* out) {
        size_t i = get_global_id(0);
        out[i] = in[(uchar)i];
    }
    kernel void wrap2(global const float* in, global float* out) {
        size_t i = get_global_id(0);
        out[i] = in[(uchar)i + i - (uchar)(i + 4) + 300];
    }";
    let ranges = [
        range_1d(250, 16, 16),
        range_1d(244, 24, 8),
        range_1d(253, 11, 11),
        range_1d(0, 300, 30),
    ];
    for kernel in ["wrap1", "wrap2"] {
        differential(src, kernel, &ranges, |r| {
            let n = n_for(r) + 600;
            vec![Spec::Floats(n, 8), Spec::Floats(n, 0)]
        });
    }
}

#[test]
fn float4_and_narrow_types() {
    let src = "kernel void f4(global const float4* a, global float4* b) {
        size_t i = get_global_id(0);
        b[i] = a[i] * 2.0f + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    }
    kernel void bytes(global const uchar* a, global short* b, global char* c) {
        size_t i = get_global_id(0);
        b[i] = (short)a[i] * 3 - 100;
        c[i] = (char)(a[i] + 7);
    }";
    differential(src, "f4", &chunk_edges_1d(), |r| {
        let n = n_for(r) * 4;
        vec![Spec::Floats(n, 9), Spec::Floats(n, 0)]
    });
    differential(src, "bytes", &chunk_edges_1d(), |r| {
        let n = n_for(r) * 2;
        vec![Spec::Bytes(n, 10), Spec::Bytes(n, 0), Spec::Bytes(n, 1)]
    });
}

#[test]
fn stores_under_a_partial_mask_leave_other_lanes_alone() {
    let src = "kernel void odd(global const int* in, global int* out) {
        size_t i = get_global_id(0);
        if (in[i] & 1) out[i] = in[i] * 3;
    }";
    differential(src, "odd", &chunk_edges_1d(), |r| {
        let n = n_for(r);
        vec![Spec::Ints(n, 11), Spec::Ints(n, 0)]
    });
}

#[test]
fn addresses_computed_before_a_barrier_used_after_it() {
    let src = "kernel void keep(global const float* in, global float* out, local float* tmp) {
        size_t i = get_global_id(0);
        int l = get_local_id(0);
        global float* o = out + i;
        tmp[l] = in[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        *o = tmp[l] * 2.0f + tmp[(l + 1) % get_local_size(0)];
        o[0] += in[i];
    }";
    let ranges = [
        range_1d(0, 64, 16),
        range_1d(0, 45, 15),
        range_1d(3, 24, 24),
        range_1d(0, 9, 1),
    ];
    differential(src, "keep", &ranges, |r| {
        let n = n_for(r);
        vec![
            Spec::Floats(n, 15),
            Spec::Floats(n, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
}

#[test]
fn wide_elements_in_tails_and_partial_masks() {
    // 64-bit elements on every per-lane path of a consecutive access: a
    // `size_t` index (lanes `first + j * 8`), an `int` index (recomputed per
    // lane), a clamped index (address pieces), and stores under a partial
    // mask (mask pieces), in tail chunks and full ones.
    let src =
        "kernel void wide(global const long* a, global const long* b, global long* out, int n) {
        size_t i = get_global_id(0);
        int j = get_global_id(0);
        long x = a[i] + b[j];
        int k = clamp(j + 1, 0, n - 1);
        x += a[k];
        if (a[i] & 1) out[j] = x; else out[i] = -x;
    }";
    differential(src, "wide", &chunk_edges_1d(), |r| {
        let n = n_for(r);
        vec![
            Spec::Bytes(n * 8, 3),
            Spec::Bytes(n * 8, 7),
            Spec::Bytes(n * 8, 0),
            Spec::Int(n as i32),
        ]
    });
    let e = explain(src, "wide");
    assert!(e.contains("0 per lane (gather)"), "{e}");
    assert!(e.contains("0 per lane (scatter)"), "{e}");
}

#[test]
fn signed_int_local_offsets_without_a_wrap_test() {
    // `lid - off` and `lid + off` are signed `int` arithmetic: overflow is
    // undefined, so the index is consecutive without a run-time test. The
    // lanes below `off` are inactive and their `tmp[lid - off]` lies before
    // the arena in chunk 0; the lanes past the group read nothing.
    let src =
        "kernel void shifted(global const int* in, global int* out, local int* tmp, int off) {
        int lid = get_local_id(0);
        int n = get_local_size(0);
        tmp[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        int lo = lid >= off ? tmp[lid - off] : 0;
        int hi = lid + off < n ? tmp[lid + off] : -1;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = lo * 3 + hi;
    }";
    let ranges = [
        range_1d(0, 256, 64),
        range_1d(0, 64, 16),
        range_1d(3, 60, 20),
        range_1d(0, 37, 37),
    ];
    for off in [0, 1, 3, 4, 7, 16, 17, 40] {
        differential(src, "shifted", &ranges, |r| {
            let n = n_for(r);
            vec![
                Spec::Ints(n, 5),
                Spec::Ints(n, 0),
                Spec::Local(4 * r.local_size[0] as usize),
                Spec::Int(off),
            ]
        });
    }
}

#[test]
fn clamped_indices_cut_by_their_bounds_inside_a_chunk() {
    // `min`/`max`/`clamp` of a consecutive `int` is consecutive until a
    // bound cuts into the chunk: lane 0 and lane W-1 decide, even where
    // `(int)get_global_id(0)` wraps past INT_MAX inside a chunk. The last
    // kernel's inner clamp is mixed with `2 * x`, so its steps fall on both
    // sides of the stride and every lane must be compared.
    let src = "kernel void cl(global const int* in, global int* out, int lo, int hi) {
        int x = get_global_id(0);
        size_t g = get_global_id(0) - get_global_offset(0);
        out[g] = in[clamp(x, lo, hi) - lo] + 100 * in[max(min(x, hi), lo) - lo]
            + 10000 * in[min(hi, max(lo, x)) - lo];
    }
    kernel void ucl(global const int* in, global int* out, int lo, int hi) {
        uint x = get_global_id(0);
        size_t g = get_global_id(0) - get_global_offset(0);
        out[g] = in[clamp(x, (uint)lo, (uint)hi) - (uint)lo] + 100 * in[min(x - (uint)lo, 40u)];
    }
    kernel void mixed(global const int* in, global int* out, int lo, int hi) {
        int x = get_global_id(0);
        size_t g = get_global_id(0) - get_global_offset(0);
        int inner = clamp(x, lo, hi) - 2 * x;
        out[g] = in[40 - clamp(inner, 0, 40)];
    }";
    let near_wrap = (1u64 << 31) - 20;
    let ranges = [
        range_1d(0, 64, 16),
        range_1d(0, 45, 15),
        range_1d(near_wrap, 48, 16),
        range_1d(near_wrap - 3, 40, 8),
        range_1d((1u64 << 32) - 24, 48, 48),
    ];
    let bounds = [
        (3, 20),
        (-5, 40),
        (10, 10),
        (0, 37),
        (i32::MIN, i32::MIN + 40),
        (i32::MAX - 40, i32::MAX),
    ];
    for kernel in ["cl", "ucl", "mixed"] {
        for (lo, hi) in bounds {
            differential(src, kernel, &ranges, |_| {
                vec![
                    Spec::Ints(64, 5),
                    Spec::Ints(48, 0),
                    Spec::Int(lo),
                    Spec::Int(hi),
                ]
            });
        }
    }
    let e = explain(src, "cl");
    assert!(e.contains("loads: 3 vector"), "{e}");
}

#[test]
fn narrow_gathers_widened_match_interpreter() {
    // 8- and 16-bit elements gathered lane by lane (a permuted index) are
    // loaded extended by their signedness and widened from there
    // (`load_lane` in `lower/memory.rs`): to every wider type, as an
    // index (whose lanes are recomputed as scalars: a sign extension done
    // as a zero extension shows there), reinterpreted with the other
    // signedness before widening, and kept narrow.
    let src = "kernel void k(global const uchar* u8s, global const char* i8s,
                         global const ushort* u16s, global const short* i16s,
                         global long* o, global uchar* narrow) {
        size_t g = get_global_id(0);
        size_t p = (g * 5) % 32;
        uchar a = u8s[p];
        char b = i8s[p];
        ushort c = u16s[p];
        short d = i16s[p];
        long acc = (long)a + (long)b * 3 + (int)c * 5 + (long)d * 7;
        acc += (ulong)b + (uint)d + (short)a + (int)as_uchar(b) + (int)as_short(c);
        acc += u8s[(b >> 3) + 16] + u16s[(d >> 11) + 16] + i8s[(long)(b >> 4) + 8] * 11;
        acc += u8s[as_uchar(b) >> 3] + i8s[as_ushort(d) >> 11] * 13;
        o[g] = acc;
        narrow[g] = a + b;
    }";
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = n_for(r);
        vec![
            Spec::Bytes(64, 201),
            Spec::Bytes(64, 77),
            Spec::Bytes(128, 3),
            Spec::Bytes(128, 250),
            Spec::Ints(2 * n, 0),
            Spec::Bytes(n, 0),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

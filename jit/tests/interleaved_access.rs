//! Loads and stores of `float2`/`float4`/`int4`/`uint2` elements by
//! consecutive work-items, read and written as whole pieces and regrouped
//! by shuffles: full chunks and partial tails, offsets, lanes switched off
//! by a branch, `__local` arrays, 2-D rows, elements that are not
//! consecutive, a buffer read and written in place. Every launch is
//! compared byte for byte with the interpreter, guard bytes included (a
//! store that wrote a whole chunk where only some lanes may write shows
//! there).

use vecl_ir::interp::NdRange;
use vecl_testkit::*;

/// Elements per buffer: the last work-item of every shape plus slack.
fn items(r: &NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

fn counts(src: &str, kernel: &str) -> (String, String) {
    let e = explain(src, kernel);
    let line = |p: &str| {
        e.lines()
            .find(|l| l.starts_with(p))
            .unwrap_or("")
            .to_string()
    };
    (line("loads:"), line("stores:"))
}

#[test]
fn float4_and_int4_elements_of_consecutive_items() {
    let src = "kernel void f4(global const float4* a, global const float4* b, global float4* c) {
        size_t i = get_global_id(0);
        c[i] = a[i] * 2.0f + b[i].wzyx + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    }
    kernel void i4(global const int4* a, global int4* b, int k) {
        int i = get_global_id(0);
        int4 v = a[i];
        b[i] = (int4)(v.y - k, v.x * 3, v.w ^ v.z, i);
    }";
    let n = differential(src, "f4", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Floats(n, 9), Spec::Floats(n, 4), Spec::Floats(n, 0)]
    });
    assert_eq!(n, WIDTHS.len() * chunk_edges_1d().len());
    differential(src, "i4", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Ints(n, 3), Spec::Ints(n, 0), Spec::Int(5)]
    });
    for kernel in ["f4", "i4"] {
        let (loads, stores) = counts(src, kernel);
        let want = if kernel == "f4" {
            "2 interleaved"
        } else {
            "1 interleaved"
        };
        assert!(loads.contains(want), "{kernel}: {loads}");
        assert!(loads.contains("0 per lane (gather)"), "{kernel}: {loads}");
        assert!(stores.contains("1 interleaved"), "{kernel}: {stores}");
        assert!(
            stores.contains("0 per lane (scatter)"),
            "{kernel}: {stores}"
        );
    }
}

#[test]
fn float2_and_uint2_elements_of_consecutive_items() {
    let src = "kernel void f2(global const float2* a, global float2* b) {
        size_t i = get_global_id(0);
        float2 v = a[i];
        b[i] = (float2)(v.x * v.y, v.x - v.y);
    }
    kernel void u2(global const uint2* a, global uint2* b) {
        size_t i = get_global_id(0);
        b[i] = a[i].yx + (uint2)(1u, 2u);
    }";
    differential(src, "f2", &chunk_edges_1d(), |r| {
        let n = 2 * items(r);
        vec![Spec::Floats(n, 2), Spec::Floats(n, 0)]
    });
    differential(src, "u2", &chunk_edges_1d(), |r| {
        let n = 2 * items(r);
        vec![Spec::Ints(n, 8), Spec::Ints(n, 0)]
    });
    for kernel in ["f2", "u2"] {
        let (loads, stores) = counts(src, kernel);
        assert!(loads.contains("1 interleaved"), "{kernel}: {loads}");
        assert!(stores.contains("1 interleaved"), "{kernel}: {stores}");
    }
}

#[test]
fn lanes_switched_off_write_nothing() {
    // Under the branch the mask is not full: those chunks take the
    // per-lane path, and the items that skip the store keep the buffer's
    // bytes (the interpreter's comparison covers every element).
    let src = "kernel void some(global const float4* a, global float4* b) {
        size_t i = get_global_id(0);
        float4 v = a[i];
        if (((int)v.x & 3) != 1) b[i] = v + 0.5f;
    }
    kernel void early(global float2* b, int n) {
        int i = get_global_id(0);
        if (i >= n) return;
        b[i] = b[i] * 3.0f;
    }";
    differential(src, "some", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Floats(n, 1), Spec::Floats(n, 7)]
    });
    for cut in [0usize, 3, 9] {
        differential(src, "early", &chunk_edges_1d(), |r| {
            let end = (r.global_offset[0] + r.global_size[0]) as usize;
            let n = end.saturating_sub(cut);
            vec![Spec::Floats(2 * items(r), 6), Spec::Int(n as i32)]
        });
    }
}

#[test]
fn in_place_two_dimensional_rows() {
    let src = "kernel void rows(global float4* p, int width) {
        int x = get_global_id(0);
        int y = get_global_id(1);
        float4 v = p[y * width + x];
        p[y * width + x] = v.yzwx * (float)(y + 1);
    }";
    let ranges = [
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [32, 3, 1],
            local_size: [16, 1, 1],
        },
        NdRange {
            work_dim: 2,
            global_offset: [2, 1, 0],
            global_size: [21, 4, 1],
            local_size: [7, 2, 1],
        },
    ];
    differential(src, "rows", &ranges, |r| {
        let width = (r.global_offset[0] + r.global_size[0]) as usize;
        let height = (r.global_offset[1] + r.global_size[1]) as usize;
        vec![Spec::Floats(4 * width * height, 3), Spec::Int(width as i32)]
    });
}

#[test]
fn local_arrays_of_vectors() {
    let src = "kernel void stage(global const float4* in, global float4* out, local float4* tile) {
        size_t lid = get_local_id(0);
        size_t n = get_local_size(0);
        tile[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tile[n - 1 - lid] + tile[lid];
    }";
    let ranges: Vec<NdRange> = [(256, 64), (96, 32), (45, 15), (64, 16), (9, 3)]
        .into_iter()
        .map(|(g, l)| range_1d(0, g, l))
        .collect();
    let n = differential_at(&WIDTHS, src, "", "stage", &ranges, |r| {
        let n = 4 * items(r);
        vec![
            Spec::Floats(n, 2),
            Spec::Floats(n, 0),
            Spec::Local(16 * r.local_size[0] as usize),
        ]
    });
    assert_eq!(n, WIDTHS.len() * ranges.len());
}

#[test]
fn elements_that_are_not_consecutive_stay_per_lane() {
    // Every other element, and a permutation the analysis cannot see
    // through: the first is a gather; the second tests at run time and
    // falls back when the lanes are not in order.
    let src = "kernel void strided(global const float4* a, global float4* b) {
        size_t i = get_global_id(0);
        b[i] = a[2 * i];
    }
    kernel void shuffled(global const float4* a, global const int* idx, global float4* b) {
        size_t i = get_global_id(0);
        b[i] = a[idx[i]] * 2.0f;
    }";
    differential(src, "strided", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Floats(2 * n, 5), Spec::Floats(n, 0)]
    });
    // A stride known only at run time: consecutive when `k` is 1.
    let scaled = "kernel void scaled(global const float2* a, global float2* b, int k) {
        int i = get_global_id(0);
        b[i] = a[i * k] + 1.0f;
    }";
    for k in [1usize, 2] {
        differential(scaled, "scaled", &chunk_edges_1d(), |r| {
            let n = 2 * items(r);
            vec![
                Spec::Floats(k * n, 5),
                Spec::Floats(n, 0),
                Spec::Int(k as i32),
            ]
        });
    }
    let (loads, _) = counts(scaled, "scaled");
    assert!(loads.contains("1 interleaved"), "{loads}");
    let (loads, _) = counts(src, "strided");
    assert!(loads.contains("0 interleaved"), "{loads}");
    assert!(loads.contains("1 per lane (gather)"), "{loads}");
    // `Ints` holds values in [-11, 11]: indices must stay in the buffer,
    // so the kernel reads `a[idx[i]]` from a buffer indexed by 12 + value.
    let src = src.replace("a[idx[i]]", "a[12 + idx[i]]");
    differential(&src, "shuffled", &chunk_edges_1d(), |r| {
        let n = items(r);
        vec![
            Spec::Floats(4 * (n + 24), 1),
            Spec::Ints(n, 4),
            Spec::Floats(4 * n, 0),
        ]
    });
}

#[test]
fn three_component_vectors_keep_their_padding() {
    // A `float3` takes 16 bytes: loads read four components and drop the
    // fourth; stores read the element back so the padding keeps its
    // bytes (the buffers hold values there, compared like the rest).
    let src = "kernel void f3(global const float3* a, global float3* b) {
        size_t i = get_global_id(0);
        b[i] = a[i].zxy + 1.0f;
    }
    kernel void i3(global int3* p) {
        int i = get_global_id(0);
        int3 v = p[i];
        if (v.x != 4) p[i] = v * 2 + i;
    }";
    differential(src, "f3", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Floats(n, 3), Spec::Floats(n, 11)]
    });
    differential(src, "i3", &chunk_edges_1d(), |r| {
        vec![Spec::Ints(4 * items(r), 2)]
    });
    for kernel in ["f3", "i3"] {
        let (loads, stores) = counts(src, kernel);
        assert!(loads.contains("1 interleaved"), "{kernel}: {loads}");
        assert!(stores.contains("1 interleaved"), "{kernel}: {stores}");
    }
}

#[test]
fn double_and_long_vectors_of_consecutive_items() {
    // Two lanes per piece: a lane's element fills whole pieces, regrouped
    // two lanes at a time. The buffers hold integer bit patterns, so the
    // `double` kernels only move bits (NaN payloads would make arithmetic
    // differ by operand order) or compute from the index.
    let src = "kernel void d2(global const double2* a, global double2* b) {
        size_t i = get_global_id(0);
        b[i] = a[i].yx;
    }
    kernel void d4(global const double4* a, global double4* b) {
        size_t i = get_global_id(0);
        double4 v = a[i];
        b[i] = (double4)(v.w, v.x, v.z, v.y);
    }
    kernel void d3(global double3* p) {
        int i = get_global_id(0);
        double3 v = p[i];
        if (i % 4 != 2) p[i] = (double3)(v.z, (double)i * 0.5, v.x);
    }
    kernel void l2(global const long2* a, global ulong4* b) {
        size_t i = get_global_id(0);
        long2 v = a[i];
        b[i] = (ulong4)(v.x * 3, v.y - v.x, (ulong)i, v.y ^ 5);
    }";
    differential(src, "d2", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Ints(n, 3), Spec::Ints(n, 0)]
    });
    differential(src, "d4", &chunk_edges_1d(), |r| {
        let n = 8 * items(r);
        vec![Spec::Ints(n, 5), Spec::Ints(n, 0)]
    });
    differential(src, "d3", &chunk_edges_1d(), |r| {
        vec![Spec::Ints(8 * items(r), 2)]
    });
    differential(src, "l2", &chunk_edges_1d(), |r| {
        let n = items(r);
        vec![Spec::Ints(4 * n, 9), Spec::Ints(8 * n, 0)]
    });
    for kernel in ["d2", "d4", "d3", "l2"] {
        let (loads, stores) = counts(src, kernel);
        assert!(loads.contains("1 interleaved"), "{kernel}: {loads}");
        assert!(stores.contains("1 interleaved"), "{kernel}: {stores}");
    }
}

#[test]
fn vload_and_vstore_of_consecutive_offsets() {
    let src = "kernel void v4(global const float* in, global float* out) {
        size_t i = get_global_id(0);
        vstore4(vload4(i, in).wxyz * 2.0f, i, out);
    }
    kernel void v2(global const int* in, global int* out, int k) {
        int i = get_global_id(0);
        int2 v = vload2(i * k, in);
        if (v.x != 3) vstore2(v.yx + i, i, out);
    }
    kernel void v4_into_place(global float* p) {
        size_t i = get_global_id(0);
        vstore4(vload4(i, p + 1) + 1.0f, i, p + 1);
    }";
    differential(src, "v4", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Floats(n, 3), Spec::Floats(n, 0)]
    });
    for k in [1usize, 2] {
        differential(src, "v2", &chunk_edges_1d(), |r| {
            let n = 2 * items(r);
            vec![Spec::Ints(k * n, 6), Spec::Ints(n, 0), Spec::Int(k as i32)]
        });
    }
    differential(src, "v4_into_place", &chunk_edges_1d(), |r| {
        vec![Spec::Floats(4 * items(r) + 1, 2)]
    });
    // `clamp` of a consecutive index is expected consecutive, but a chunk
    // the bound cuts into is not: the run-time test sends it per lane.
    let clamped = "kernel void c4(global const float* in, global float* out, int m) {
        int i = get_global_id(0);
        vstore4(vload4(clamp(i, 0, m), in) + 1.0f, i, out);
    }";
    for m in [10, 1000] {
        differential(clamped, "c4", &chunk_edges_1d(), |r| {
            let n = 4 * items(r);
            vec![
                Spec::Floats(4 * 1001 + n, 8),
                Spec::Floats(n, 0),
                Spec::Int(m),
            ]
        });
    }
    let (loads, _) = counts(clamped, "c4");
    assert!(loads.contains("1 interleaved"), "{loads}");
    // `i * k` is not expected to be consecutive: that load stays per lane.
    for (kernel, loads_want) in [("v4", 1), ("v2", 0), ("v4_into_place", 1)] {
        let (loads, stores) = counts(src, kernel);
        let want = format!("{loads_want} interleaved");
        assert!(loads.contains(&want), "{kernel}: {loads}");
        assert!(stores.contains("1 interleaved"), "{kernel}: {stores}");
    }
}

#[test]
fn packed_narrow_vectors_of_consecutive_items() {
    // `uchar4`, `char4`, `ushort2`, `short2`: one 32-bit word per item,
    // components by shifts; signed components come back sign-extended and
    // go out with only their own bits.
    let src = "kernel void rgba(global const uchar4* in, global uchar4* out) {
        size_t i = get_global_id(0);
        uchar4 p = in[i];
        out[i] = (uchar4)(p.z, p.y + 1, p.x, p.w ^ (uchar)0x80);
    }
    kernel void signed4(global const char4* in, global char4* out, global int* sum) {
        size_t i = get_global_id(0);
        char4 p = in[i];
        sum[i] = p.x + p.y * 3 + p.z * 5 + p.w * 7;
        out[i] = -p.wzyx;
    }
    kernel void pairs(global const ushort2* a, global short2* b, global float* f) {
        size_t i = get_global_id(0);
        ushort2 u = a[i];
        short2 s = (short2)((short)(u.y - 40000), (short)u.x);
        b[i] = s;
        f[i] = convert_float(s.x) + convert_float(u.y);
    }
    kernel void bytes_by_vload(global const uchar* in, global uchar* out) {
        size_t i = get_global_id(0);
        uchar4 p = vload4(i, in);
        if (p.x != 7) vstore4(p.yzwx, i, out);
    }";
    differential(src, "rgba", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Bytes(n, 3), Spec::Bytes(n, 0)]
    });
    differential(src, "signed4", &chunk_edges_1d(), |r| {
        let n = items(r);
        vec![
            Spec::Bytes(4 * n, 200),
            Spec::Bytes(4 * n, 1),
            Spec::Ints(n, 0),
        ]
    });
    differential(src, "pairs", &chunk_edges_1d(), |r| {
        let n = items(r);
        vec![
            Spec::Bytes(4 * n, 77),
            Spec::Bytes(4 * n, 0),
            Spec::Floats(n, 0),
        ]
    });
    differential(src, "bytes_by_vload", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Bytes(n, 5), Spec::Bytes(n, 9)]
    });
    for kernel in ["rgba", "signed4", "pairs", "bytes_by_vload"] {
        let (loads, stores) = counts(src, kernel);
        assert!(loads.contains("1 interleaved"), "{kernel}: {loads}");
        assert!(stores.contains("1 interleaved"), "{kernel}: {stores}");
    }
}

#[test]
fn structs_of_two_or_four_32_bit_fields_copied_whole() {
    // A whole-struct copy between memory and a private struct becomes one
    // vector access (scalar replacement), which consecutive items then
    // read and write as pieces; other layouts stay field by field.
    let src = "typedef struct { float x, y, z, w; } P;
    typedef struct { int a, b; } Pair;
    typedef struct { float f; int n; } Mix;
    typedef struct { float x, y, z; } Tight;
    kernel void particles(global const P* in, global P* out, float dt) {
        size_t i = get_global_id(0);
        P p = in[i];
        p.x += p.w * dt;
        p.y *= 2.0f;
        out[i] = p;
    }
    kernel void pairs(global Pair* io) {
        int i = get_global_id(0);
        Pair q = io[i];
        Pair r = { q.b, q.a + i };
        io[i] = r;
    }
    kernel void mixed(global const Mix* in, global Mix* out) {
        size_t i = get_global_id(0);
        Mix m = in[i];
        m.n += (int)m.f;
        out[i] = m;
    }
    kernel void tight(global const Tight* in, global Tight* out) {
        size_t i = get_global_id(0);
        Tight t = in[i];
        t.z = t.x + t.y;
        out[i] = t;
    }";
    differential(src, "particles", &chunk_edges_1d(), |r| {
        let n = 4 * items(r);
        vec![Spec::Floats(n, 1), Spec::Floats(n, 0), Spec::Float(0.5)]
    });
    differential(src, "pairs", &chunk_edges_1d(), |r| {
        vec![Spec::Ints(2 * items(r), 4)]
    });
    differential(src, "mixed", &chunk_edges_1d(), |r| {
        let n = 2 * items(r);
        vec![Spec::Floats(n, 6), Spec::Floats(n, 0)]
    });
    differential(src, "tight", &chunk_edges_1d(), |r| {
        let n = 3 * items(r);
        vec![Spec::Floats(n, 2), Spec::Floats(n, 0)]
    });
    for (kernel, want) in [("particles", 1), ("pairs", 1), ("mixed", 0), ("tight", 0)] {
        let (loads, stores) = counts(src, kernel);
        let want = format!("{want} interleaved");
        assert!(loads.contains(&want), "{kernel}: {loads}");
        assert!(stores.contains(&want), "{kernel}: {stores}");
    }
}

#[test]
fn struct_copies_between_buffers_move_whole_chunks() {
    // `out[i] = in[i]` of a struct stays a copy; for consecutive items
    // whose objects are a multiple of 4 bytes it moves the chunk's bytes
    // as pieces when every lane runs, else one copy per lane.
    let src = "typedef struct { float x, y, z, w; } P;
    typedef struct { int a; float b; int c; } Three;
    typedef struct { int v[5]; } Five;
    typedef struct { uchar r, g, b; } Rgb;
    kernel void p16(global const P* in, global P* out) {
        size_t i = get_global_id(0);
        out[i] = in[i];
    }
    kernel void t12(global const Three* in, global Three* out) {
        int i = get_global_id(0);
        if (i % 3 != 1) out[i] = in[i];
    }
    kernel void f20(global const Five* in, global Five* out) {
        size_t i = get_global_id(0);
        out[i] = in[i];
    }
    kernel void rgb(global const Rgb* in, global Rgb* out) {
        size_t i = get_global_id(0);
        out[i] = in[i];
    }
    kernel void clamped(global const P* in, global P* out, int m) {
        int i = get_global_id(0);
        out[i] = in[min(i, m)];
    }";
    // `min` of a consecutive index is expected consecutive; chunks the
    // bound cuts into are not, and take the per-lane copy.
    for m in [5, 1000] {
        differential(src, "clamped", &chunk_edges_1d(), |r| {
            let n = 4 * items(r);
            vec![Spec::Ints(4 * 1001 + n, 3), Spec::Ints(n, 0), Spec::Int(m)]
        });
    }
    let e = explain(src, "clamped");
    assert!(e.contains("copies: 1 (1 of consecutive items"), "{e}");
    for (kernel, words) in [("p16", 4), ("t12", 3), ("f20", 5)] {
        differential(src, kernel, &chunk_edges_1d(), |r| {
            let n = words * items(r);
            vec![Spec::Ints(n, 3), Spec::Ints(n, 0)]
        });
        let e = explain(src, kernel);
        assert!(
            e.contains("copies: 1 (1 of consecutive items"),
            "{kernel}: {e}"
        );
    }
    differential(src, "rgb", &chunk_edges_1d(), |r| {
        let n = 3 * items(r);
        vec![Spec::Bytes(n, 3), Spec::Bytes(n, 0)]
    });
    let e = explain(src, "rgb");
    assert!(e.contains("copies: 1 (0 of consecutive items"), "{e}");
}

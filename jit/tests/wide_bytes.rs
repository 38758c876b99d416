//! `uchar4`/`char4` elements on the wide AVX-512 code against the
//! interpreter: loaded as one 32-bit element a lane (consecutive and
//! gathered), unpacked into components (zero- or sign-extended bytes),
//! converted (`convert_float4`, `convert_int4`, `convert_uchar4_sat`,
//! `convert_char4_sat`, the truncating `convert_uchar4`, the `_rte`,
//! `_rtp` and `_rtn` forms), packed and stored
//! back as one element; the saturating conversions at their edges (NaN,
//! ±inf, -0.5, 255.5, 256, -1, `INT_MIN`, `INT_MAX`, 128, -129); every
//! byte value in the inputs (bytes `5i + seed`); offsets and partial
//! chunks; each asserting that the wide code ran it. Byte scalars
//! (`char*` flags, `uchar` levels): consecutive, gathered, scattered,
//! one byte for every lane, a BFS step.

use vecl_ir::interp::NdRange;
use vecl_testkit::{range_1d, wide_agrees as agree, wide_refuses as refused, Spec};

/// Launches with offsets, partial chunks and groups narrower than a chunk.
fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 256, 64),
        range_1d(3, 125, 125),
        range_1d(0, 7, 7),
        range_1d(5, 49, 49),
    ]
}

/// `n` bytes of input (every byte value over 256 of them) and `out` bytes
/// of output per work-item.
fn bytes_in_out(per_in: usize, per_out: usize) -> impl Fn(&NdRange) -> Vec<Spec> {
    move |r: &NdRange| {
        let items = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Bytes(per_in * items, 3),
            Spec::Bytes(per_out * items, 0),
        ]
    }
}

#[test]
fn uchar4_through_floats_and_back_saturated_agrees() {
    // Exact float arithmetic (halves, negatives, past 255), so the
    // interpreter's and the code's values are the same before the
    // conversion rounds toward zero and saturates.
    let src = "kernel void k(global const uchar4* in, global uchar4* out) {
    int i = get_global_id(0);
    float4 p = convert_float4(in[i]);
    float g = dot(p.xyz, (float3)(1.0f, 0.5f, -2.0f));
    out[i] = convert_uchar4_sat((float4)(p.x * 1.5f - 40.0f, g, p.z + 0.5f, p.w));
}";
    agree(src, &ranges(), bytes_in_out(4, 4));
}

#[test]
fn char4_components_are_sign_extended_and_stored_packed() {
    let src = "kernel void k(global const char4* in, global char4* out) {
    int i = get_global_id(0);
    int4 v = convert_int4(in[i]);
    out[i] = convert_char4_sat((int4)(v.x * 2, v.y - 1, -v.z, v.w + v.x));
}";
    agree(src, &ranges(), bytes_in_out(4, 4));
    // Components as ints (scattered), each byte's extension.
    let src = "kernel void k(global const char4* in, global int* out) {
    int i = get_global_id(0);
    char4 c = in[i];
    out[8 * i + 0] = c.x; out[8 * i + 1] = c.y; out[8 * i + 2] = c.z; out[8 * i + 3] = c.w;
    out[8 * i + 4] = convert_int(c.w < (char)0);
    out[8 * i + 5] = convert_int(c.x) + (int)c.y * 256;
    out[8 * i + 6] = (int)(uint)c.z;
    out[8 * i + 7] = (c.y > c.x) ? 1 : 0;
}";
    agree(src, &ranges(), |r: &NdRange| {
        let items = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Bytes(4 * items, 7), Spec::Ints(8 * items, 0)]
    });
}

#[test]
fn uchar4_gathered_and_scattered_agrees() {
    let src = "kernel void k(global const uchar4* in, global uchar4* out, int n) {
    int i = get_global_id(0);
    uchar4 p = in[(i * 7) % n];
    out[(i * 5) % n] = (uchar4)(p.w, p.z, p.y, p.x);
}";
    // 5 and 7 are prime to the item counts' ends below, so each item
    // writes its own element.
    agree(
        src,
        &[range_1d(0, 256, 64), range_1d(0, 49, 49), range_1d(0, 7, 7)],
        |r: &NdRange| {
            let n = r.global_size[0] as usize;
            vec![
                Spec::Bytes(4 * n, 1),
                Spec::Bytes(4 * n, 0),
                Spec::Int(n as i32),
            ]
        },
    );
}

/// Float edges: NaN, ±inf, -0.5, 255.5, 256, -1, -128.5, 127.9, 1e10,
/// -1e10, -0, 0.99, the ties 2.5 and 0.5, and the id.
const FLOAT_EDGES: &str = r#"
float edge(int e, int i) {
    return e == 0 ? NAN : e == 1 ? INFINITY : e == 2 ? -INFINITY : e == 3 ? -0.5f
        : e == 4 ? 255.5f : e == 5 ? 256.0f : e == 6 ? -1.0f : e == 7 ? -128.5f
        : e == 8 ? 127.9f : e == 9 ? 1e10f : e == 10 ? -1e10f : e == 11 ? -0.0f
        : e == 12 ? 0.99f : e == 13 ? 2.5f : e == 14 ? 0.5f : (float)i - 100.25f;
}
"#;

#[test]
fn saturating_float_to_byte_conversions_at_the_edges_agree() {
    let src = format!(
        "{FLOAT_EDGES}
kernel void k(global uchar4* u, global char4* c, global int* out, global uchar4* r) {{
    int i = get_global_id(0);
    float4 f = (float4)(edge(i % 16, i), edge((i + 3) % 16, i), edge((i + 7) % 16, i), edge((i + 11) % 16, i));
    u[i] = convert_uchar4_sat(f);
    c[i] = convert_char4_sat(f);
    r[i] = convert_uchar4_sat_rte(f);
    out[8 * i + 0] = convert_uchar_sat(f.x);
    out[8 * i + 1] = convert_char_sat(f.y);
    out[8 * i + 2] = convert_uchar_sat_rtz(f.z) + convert_uchar(f.w);
    out[8 * i + 3] = convert_int_sat(f.x);
    out[8 * i + 4] = convert_char_sat_rte(f.y);
    out[8 * i + 5] = convert_uchar_sat_rtp(f.z);
    out[8 * i + 6] = convert_char_sat_rtn(f.w);
    out[8 * i + 7] = convert_char_rtp(f.x);
}}"
    );
    agree(&src, &ranges(), |r: &NdRange| {
        let items = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Bytes(4 * items, 0),
            Spec::Bytes(4 * items, 0),
            Spec::Ints(8 * items, 0),
            Spec::Bytes(4 * items, 0),
        ]
    });
}

/// Integer edges: 0, 1, -1, 127, 128, 255, 256, -128, -129, `INT_MIN`,
/// `INT_MAX` and a hash of the id.
const INT_EDGES: &str = r#"
int iedge(int e, int i) {
    return e == 0 ? 0 : e == 1 ? 1 : e == 2 ? -1 : e == 3 ? 127 : e == 4 ? 128
        : e == 5 ? 255 : e == 6 ? 256 : e == 7 ? -128 : e == 8 ? -129
        : e == 9 ? (int)0x80000000u : e == 10 ? 0x7fffffff : (int)((uint)i * 0x9E3779B1u);
}
"#;

#[test]
fn integer_to_byte_conversions_saturate_or_truncate_as_the_interpreter() {
    let src = format!(
        "{INT_EDGES}
kernel void k(global uchar4* u, global char4* c, global uchar4* t, global char4* s) {{
    int i = get_global_id(0);
    int4 v = (int4)(iedge(i % 12, i), iedge((i + 5) % 12, i), iedge((i + 8) % 12, i), iedge((i + 10) % 12, i));
    uint4 w = convert_uint4(v);
    u[i] = convert_uchar4_sat(v);
    c[i] = convert_char4_sat(w);
    t[i] = convert_uchar4(v);
    s[i] = (char4)(convert_char(v.x), convert_char(w.y), convert_char_sat(v.z), (char)convert_uchar_sat(w.w));
}}"
    );
    agree(&src, &ranges(), |r: &NdRange| {
        let items = (r.global_offset[0] + r.global_size[0]) as usize;
        (0..4).map(|_| Spec::Bytes(4 * items, 0)).collect()
    });
}

#[test]
fn byte_scalars_consecutive_and_sign_extended_agree() {
    // `char` loads sign-extend, `uchar` loads zero-extend; stores keep a
    // lane's low byte; a buffer of every byte value, offsets and partial
    // chunks (each load then takes the lane-by-lane path).
    let src = "kernel void k(global const char* s, global const uchar* u, global int* out, global uchar* b) {
    int i = get_global_id(0);
    char c = s[i];
    uchar x = u[i];
    out[i] = c * 1000 + x;
    b[i] = (uchar)(x * 3 + c);
}";
    agree(src, &ranges(), |r: &NdRange| {
        let items = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Bytes(items, 1),
            Spec::Bytes(items, 2),
            Spec::Ints(items, 0),
            Spec::Bytes(items, 0),
        ]
    });
}

#[test]
fn byte_scalars_gathered_scattered_and_one_address_agree() {
    // A permutation (7 and 5 are prime to 251): every lane a different
    // byte, gathered and scattered lane by lane; every other byte of the
    // output stored, the bytes between untouched; one byte for every lane
    // (`lut[k]`) in a loop.
    let src = "kernel void k(global const uchar* in, global uchar* out, global const char* lut, global int* sums) {
    int i = get_global_id(0);
    out[2 * ((i * 7) % 251)] = in[(i * 5) % 251] + 1;
    int s = 0;
    for (int k = 0; k < 9; k++) s += lut[k] * (k + 1);
    sums[i] = s + lut[i % 13];
}";
    let r = [
        range_1d(0, 251, 251),
        range_1d(0, 240, 16),
        range_1d(3, 77, 77),
    ];
    agree(src, &r, |_: &NdRange| {
        vec![
            Spec::Bytes(256, 9),
            Spec::Bytes(512, 4),
            Spec::Bytes(16, 200),
            Spec::Ints(256, 0),
        ]
    });
}

#[test]
fn byte_scalars_across_a_barrier_agree() {
    let src = "kernel void k(global const uchar* in, global char* out) {
    local int tile[64];
    int l = get_local_id(0);
    tile[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = (char)(tile[get_local_size(0) - 1 - l] - 100);
}";
    let r = [
        range_1d(0, 256, 64),
        range_1d(0, 96, 32),
        range_1d(5, 60, 20),
    ];
    agree(src, &r, |_: &NdRange| {
        vec![Spec::Bytes(300, 7), Spec::Bytes(300, 0)]
    });
}

#[test]
fn byte_scalars_with_lanes_along_dimension_1_agree() {
    // Groups one work-item wide in dimension 0: the lanes run along
    // dimension 1 (a copy compiled for such launches), whose id indexes
    // the bytes.
    let src = "kernel void k(global const uchar* in, global char* out, int w) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[y * w + x] = (char)(in[y * w + x] - 7 * x);
    out[4096 + y] = (char)in[y];
}";
    let r = [
        vecl_testkit::range_2d([1, 200], [1, 40], [0, 3]),
        vecl_testkit::range_2d([3, 64], [1, 64], [0, 0]),
        vecl_testkit::range_2d([16, 16], [16, 4], [2, 1]),
    ];
    agree(src, &r, |_: &NdRange| {
        vec![Spec::Bytes(5000, 11), Spec::Bytes(5000, 0), Spec::Int(19)]
    });
}

#[test]
fn breadth_first_search_step_agrees() {
    // Rodinia's BFS step: `char` flags read consecutively under a guard,
    // written at gathered vertices in a divergent loop (the same value
    // for a vertex whichever work-item writes it).
    let src = "kernel void k(global const int* start, global const int* edges, global char* mask, global char* updating, global const char* visited, global int* cost, int n) {
    int tid = get_global_id(0);
    if (tid < n && mask[tid]) {
        mask[tid] = 0;
        int first = 2 * (start[tid] & 15);
        for (int i = first; i < first + (tid % 4) + 1; i++) {
            int id = (edges[i] & 1023) * 5 % n;
            if (!visited[id]) { cost[id] = 3 * id + 1; updating[id] = 1; }
        }
    }
}";
    agree(src, &ranges(), |r: &NdRange| {
        let items = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Ints(items, 11),
            Spec::Ints(4 * items + 64, 11),
            Spec::Bytes(items, 1),
            Spec::Bytes(items, 0),
            Spec::Bytes(items + 16, 3),
            Spec::Ints(items + 16, 0),
            Spec::Int(items as i32),
        ]
    });
}

#[test]
fn dot_outside_byte_kernels_stays_with_cranelifts_code() {
    let src = "kernel void k(global const float4* a, global float* out) {
    int i = get_global_id(0);
    out[i] = dot(a[i], (float4)(1.0f, 2.0f, 0.5f, -1.0f));
}";
    refused(
        src,
        "the builtin `dot` in a kernel without byte elements",
        &ranges(),
        |r: &NdRange| {
            let items = (r.global_offset[0] + r.global_size[0]) as usize;
            vec![Spec::Floats(4 * items, 0), Spec::Floats(items, 0)]
        },
    );
}

#[test]
fn uchar4_through_constant_memory_and_a_local_tile_agrees() {
    let src = "kernel void k(constant uchar4* in, global uchar4* out) {
    local uchar4 tile[64];
    int i = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    tile[l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    uchar4 p = tile[n - 1 - l];
    char4 s = convert_char4_sat(convert_int4(p) - 100);
    out[i] = convert_uchar4_sat(convert_int4(s) * 3);
}";
    agree(
        src,
        &[
            range_1d(0, 256, 64),
            range_1d(0, 96, 32),
            range_1d(0, 48, 16),
        ],
        bytes_in_out(4, 4),
    );
}

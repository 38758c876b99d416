//! Scatters of `float2`, `int2`, `uint2` and `float4` elements (the
//! Cranelift code's one store of the whole element per lane,
//! `lower/interleaved.rs`, `scatter_elements`) compared with the
//! interpreter byte for byte at every width, W = 32 included: indices read
//! from memory with repeats (the later work-item's element stays, and
//! elements of neighbouring lanes overlap none), an odd element base,
//! divergent lanes, partial chunks at every launch shape of
//! `chunk_edges_1d`, and a `__local` FFT-like stage scatter at
//! `(t - k) * 2 + k` whose runs of `span` elements are and are not whole
//! pieces.

use vecl_testkit::*;

const GLOBAL: &str = "kernel void k(global const float2* in, global const int* perm,
                                    global float2* a, global uint2* b, global int2* c,
                                    global float4* d, int n) {
    int i = get_global_id(0);
    float2 v = in[i];
    int p = ((perm[i] % n) + n) % n;
    a[1 + p] = v;
    if (p % 3 != 1)
        b[p] = (uint2)(i, p) * 3u;
    c[i / 2] = (int2)(i, p - i);
    if (i % 5 < 3)
        d[n - 1 - p] = (float4)(v, v.y - v.x, (float)i);
}";

const LOCAL: &str = "kernel void k(global const float2* in, global float2* out, int span) {
    local float2 b[128];
    int t = get_local_id(0), h = get_local_size(0);
    float2 u = in[get_global_id(0)];
    int sp = min(span, h);
    int k = t % sp;
    int j = (t - k) * 2 + k;
    b[j] = u + (float2)(k, sp);
    b[j + sp] = u - (float2)(t, 1.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t g = get_group_id(0) * 2 * h;
    out[g + t] = b[t];
    out[g + t + h] = b[t + h];
}";

#[test]
fn global_element_scatters_match_the_interpreter() {
    let compared = differential_at(&BARRIER_WIDTHS, GLOBAL, "", "k", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(2 * n, 1),
            Spec::Ints(n, 4),
            Spec::Floats(2 * n + 2, 0),
            Spec::Ints(2 * n, 0),
            Spec::Ints(2 * n, 0),
            Spec::Floats(4 * n, 0),
            Spec::Int(n as i32),
        ]
    });
    assert_eq!(compared, chunk_edges_1d().len() * BARRIER_WIDTHS.len());
}

#[test]
fn local_stage_scatters_match_the_interpreter() {
    let ranges = [
        range_1d(0, 256, 64),
        range_1d(0, 64, 32),
        range_1d(0, 96, 16),
        range_1d(0, 24, 8),
    ];
    for span in [1, 2, 4, 8, 16, 32] {
        let compared = differential_at(&BARRIER_WIDTHS, LOCAL, "", "k", &ranges, |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize;
            vec![
                Spec::Floats(2 * n, 2),
                Spec::Floats(4 * n, 0),
                Spec::Int(span),
            ]
        });
        assert_eq!(compared, ranges.len() * BARRIER_WIDTHS.len(), "span {span}");
    }
}

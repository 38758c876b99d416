//! The wide code's work-group queries (`vecl_jit::wide::groups`: the
//! group's coordinate the entry keeps, the local id as the global id less
//! the group's first) and the one-chunk program beside chunks in flight
//! for groups too narrow for them (`entry::narrow_program`), against the
//! interpreter: groups of one work-item to several chunks, non-uniform
//! last groups, global offsets, in one, two and three dimensions, plain
//! kernels and barrier kernels.

use vecl_ir::interp::NdRange;
use vecl_testkit::differential::{build, compare_launches, compile_wide, Spec};
use vecl_testkit::{code_line, cpu_has_wide};

fn nd(work_dim: u32, offset: [u64; 3], global: [u64; 3], local: [u64; 3]) -> NdRange {
    NdRange {
        work_dim,
        global_offset: offset,
        global_size: global,
        local_size: local,
    }
}

/// Groups of one work-item, of fewer than a chunk, of one chunk exactly,
/// of one and a tail, of several; last groups smaller than the rest
/// (OpenCL 2.0's non-uniform groups); offsets in every dimension.
fn ranges() -> Vec<NdRange> {
    vec![
        nd(1, [0; 3], [40, 1, 1], [1, 1, 1]),
        nd(1, [7, 0, 0], [61, 1, 1], [16, 1, 1]),
        nd(1, [0; 3], [100, 1, 1], [33, 1, 1]),
        nd(2, [0; 3], [32, 8, 1], [16, 4, 1]),
        nd(2, [3, 5, 0], [37, 9, 1], [16, 2, 1]),
        nd(2, [0; 3], [24, 6, 1], [8, 3, 1]),
        nd(2, [1, 1, 0], [50, 7, 1], [17, 3, 1]),
        nd(2, [0; 3], [64, 5, 1], [32, 2, 1]),
        nd(2, [0; 3], [5, 16, 1], [1, 16, 1]),
        nd(3, [2, 1, 3], [19, 5, 4], [16, 2, 3]),
        nd(3, [0; 3], [48, 3, 3], [48, 1, 2]),
    ]
}

fn extent(r: &NdRange) -> usize {
    (0..3)
        .map(|d| (r.global_offset[d] + r.global_size[d]) as usize)
        .product()
}

/// Every query of every dimension, and a copy indexed the way tiled
/// kernels write it (`get_group_id(0) * get_local_size(0) +
/// get_local_id(0)`), its load and store consecutive by their form.
const QUERIES: &str = r#"
kernel void k(global const float* in, global int* q, global float* out, int w, int h) {
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int i = (z * h + y) * w + x;
    q[i * 15 + 0] = (int)get_local_id(0);
    q[i * 15 + 1] = (int)get_group_id(0);
    q[i * 15 + 2] = (int)get_local_size(0);
    q[i * 15 + 3] = (int)get_num_groups(0);
    q[i * 15 + 4] = (int)get_enqueued_local_size(0);
    q[i * 15 + 5] = (int)get_local_id(1);
    q[i * 15 + 6] = (int)get_group_id(1);
    q[i * 15 + 7] = (int)get_local_size(1);
    q[i * 15 + 8] = (int)get_num_groups(1);
    q[i * 15 + 9] = (int)get_enqueued_local_size(1);
    q[i * 15 + 10] = (int)get_local_id(2);
    q[i * 15 + 11] = (int)get_group_id(2);
    q[i * 15 + 12] = (int)get_local_size(2);
    q[i * 15 + 13] = (int)get_num_groups(2);
    q[i * 15 + 14] = (int)get_enqueued_local_size(2);
    int gx = (int)get_group_id(0) * (int)get_enqueued_local_size(0)
        + (int)get_local_id(0) + (int)get_global_offset(0);
    int gy = (int)get_group_id(1) * (int)get_enqueued_local_size(1)
        + (int)get_local_id(1) + (int)get_global_offset(1);
    int j = (z * h + gy) * w + gx;
    if (gx < w && gy < h)
        out[j] = in[j] * 2.0f + (float)get_local_id(0);
}
"#;

#[test]
fn group_queries_agree_in_groups_of_every_shape() {
    let m = build(QUERIES, "");
    let k = compile_wide(&m, "k");
    let ranges = ranges();
    let args = |r: &NdRange| {
        let w = r.global_offset[0] + r.global_size[0];
        let h = r.global_offset[1] + r.global_size[1];
        let n = extent(r);
        vec![
            Spec::Floats(n, 3),
            Spec::Ints(n * 15, 0),
            Spec::Floats(n, 0),
            Spec::Int(w as i32),
            Spec::Int(h as i32),
        ]
    };
    assert_eq!(compare_launches(&m, "k", &k, &ranges, args), ranges.len());
}

/// The group queries in a barrier kernel (`wide::regions`, rows in
/// flight): a tile written by local ids, read transposed after the
/// barrier, the group's coordinates addressing the output.
const TRANSPOSE: &str = r#"
kernel void k(global const float* in, global float* out, int w, int h) {
    local float tile[16][17];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_group_id(0) * 16 + lx, y = get_group_id(1) * 16 + ly;
    if (x < w && y < h) tile[ly][lx] = in[y * w + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * 16 + lx;
    y = get_group_id(0) * 16 + ly;
    if (x < h && y < w) out[y * h + x] = tile[lx][ly] + (float)get_local_size(0);
}
"#;

#[test]
fn a_tiled_transpose_agrees_and_its_accesses_are_known_consecutive() {
    let m = build(TRANSPOSE, "");
    let k = compile_wide(&m, "k");
    let ranges = [
        nd(2, [0; 3], [32, 32, 1], [16, 16, 1]),
        nd(2, [0; 3], [48, 16, 1], [16, 16, 1]),
        nd(2, [0; 3], [32, 64, 1], [16, 16, 1]),
        nd(2, [0; 3], [16, 48, 1], [16, 16, 1]),
    ];
    let args = |r: &NdRange| {
        let (w, h) = (r.global_size[0] as usize, r.global_size[1] as usize);
        vec![
            Spec::Floats(w * h, 1),
            Spec::Floats(w * h, 0),
            Spec::Int(w as i32),
            Spec::Int(h as i32),
        ]
    };
    assert_eq!(compare_launches(&m, "k", &k, &ranges, args), ranges.len());
    if cpu_has_wide() {
        // No division left: the index forms are the id plus uniform
        // values, so nothing spills.
        let line = code_line(&k);
        assert!(line.contains(" 0 spill slots"), "{line}");
    }
}

/// A loop-free body long enough for chunks in flight (`entry::LONG_BODY`),
/// with a `?:` of loads: the later copies' masked paths ran for nothing
/// on groups one chunk wide.
const STENCIL: &str = r#"
kernel void k(global const float* t, global const float* p, global float* o, int r, int c, float cap) {
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= r || col >= c) return;
    int i = row * c + col;
    float n = row > 0 ? t[i - c] : t[i];
    float s = row < r - 1 ? t[i + c] : t[i];
    float e = col < c - 1 ? t[i + 1] : t[i];
    float w = col > 0 ? t[i - 1] : t[i];
    float a = t[i] + cap * (p[i] + (s + n - 2.0f * t[i]) * 0.25f + (e + w - 2.0f * t[i]) * 0.5f);
    float b = (((0.375f * a - 1.25f) * a + 0.5f) * a - 2.0f) / (a * a + 1.5f) + a / (cap + 3.0f);
    o[i] = b > 7.0f ? b - 7.0f : b * 0.75f + sqrt(fabs(a) + 0.5f);
}
"#;

#[test]
fn narrow_groups_run_one_chunk_at_a_time_beside_chunks_in_flight() {
    let m = build(STENCIL, "");
    let k = compile_wide(&m, "k");
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.contains(" chunks in flight"), "{line}");
        assert!(
            line.contains("; one at a time in groups at most 16 wide")
                || line.contains("; one at a time in groups at most 32 wide"),
            "{line}"
        );
    }
    // Groups of 1, 8, 16 (one chunk), 17, 32 and 48 work-items a row; the
    // launch's last groups narrower; offsets.
    let ranges = [
        nd(2, [0; 3], [40, 6, 1], [1, 2, 1]),
        nd(2, [0; 3], [40, 6, 1], [8, 3, 1]),
        nd(2, [0; 3], [48, 9, 1], [16, 3, 1]),
        nd(2, [2, 1, 0], [45, 7, 1], [16, 4, 1]),
        nd(2, [0; 3], [51, 5, 1], [17, 5, 1]),
        nd(2, [0; 3], [64, 4, 1], [32, 2, 1]),
        nd(2, [0; 3], [96, 3, 1], [48, 3, 1]),
        nd(2, [0; 3], [100, 2, 1], [100, 1, 1]),
    ];
    let args = |r: &NdRange| {
        let c = r.global_offset[0] + r.global_size[0];
        let rows = r.global_offset[1] + r.global_size[1];
        let n = (c * rows) as usize;
        vec![
            Spec::Floats(n, 2),
            Spec::Floats(n, 5),
            Spec::Floats(n, 0),
            Spec::Int(rows as i32),
            Spec::Int(c as i32),
            Spec::Float(0.5),
        ]
    };
    assert_eq!(compare_launches(&m, "k", &k, &ranges, args), ranges.len());
}

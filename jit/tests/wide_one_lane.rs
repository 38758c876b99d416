//! Gathers and scatters of the wide AVX-512 code with one running lane
//! (`vecl_jit::wide::access`, `one_lane`: that lane's element read or
//! written as a scalar) against the interpreter at W = 16: a region's `if (lid == 0)` storing its group's
//! result at `get_group_id(0)` (groups of 16, 64 and 256 work-items and
//! of 24 and 40, not a multiple of 16, with a global offset; 2-D groups),
//! and a kernel whose chunks hold one running lane (not lane 0), none, or
//! several (which keep the gather and scatter), for ints and floats.
//! Robust access over guarded buffers: `wide_memory.rs`.

use vecl_ir::interp::NdRange;
use vecl_jit::compile_kernel;
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::range_1d;
use vecl_testkit::wide_options;
use vecl_testkit::{code_line, cpu_has_wide};

/// Kernel `k` of `src` on the wide code (on a CPU with AVX-512) against
/// the interpreter on every range.
fn agree(src: &str, ranges: &[NdRange], args: impl Fn(&NdRange) -> Vec<Spec>) {
    let m = build(src, "");
    let k = compile_kernel(&m, "k", &wide_options()).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    assert_eq!(compare_launches(&m, "k", &k, ranges, &args), ranges.len());
}

/// Each group stages its items in `__local` memory; its first work-item
/// stores the group's result at its group id (an index the wide code
/// computes per lane, so not known uniform: a masked scatter of one lane).
const GROUP_RESULT: &str = r#"
kernel void k(global const int* in, global int* partial, global float* fpartial,
              local int* scratch) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int s = scratch[0] * 3 + scratch[n - 1];
        partial[get_group_id(0)] = s;
        fpartial[get_group_id(0)] = (float)s * 0.5f;
    }
}
"#;

#[test]
fn a_groups_first_item_storing_at_its_group_id_agrees() {
    let ranges = [
        range_1d(0, 1024, 256),
        range_1d(0, 256, 64),
        range_1d(0, 64, 16),
        range_1d(0, 96, 24),
        range_1d(3, 120, 40),
        range_1d(5, 128, 64),
        range_1d(0, 8, 8),
    ];
    agree(GROUP_RESULT, &ranges, |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        let groups = (r.global_size[0] / r.local_size[0]) as usize;
        vec![
            Spec::Ints(n, 3),
            Spec::Ints(groups, 0),
            Spec::Floats(groups, 0),
            Spec::Local(4 * r.local_size[0] as usize),
        ]
    });
}

/// The same in two dimensions: one work-item of each 2-D group stores.
const GROUP_RESULT_2D: &str = r#"
kernel void k(global const int* in, global int* out, local int* tile) {
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int w = get_local_size(0);
    int gw = get_global_size(0);
    tile[ly * w + lx] = in[get_global_id(1) * gw + get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lx == 0 && ly == 0) {
        out[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = tile[0] * 3 + tile[w - 1];
    }
}
"#;

fn range_2d(global: [u64; 2], local: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [0, 0, 0],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

#[test]
fn two_dimensional_groups_storing_at_their_group_id_agree() {
    let ranges = [
        range_2d([64, 8], [16, 4]),
        range_2d([48, 8], [24, 4]),
        range_2d([40, 6], [20, 3]),
        range_2d([32, 32], [32, 8]),
    ];
    agree(GROUP_RESULT_2D, &ranges, |r| {
        let items = (r.global_size[0] * r.global_size[1]) as usize;
        let groups = items / (r.local_size[0] * r.local_size[1]) as usize;
        vec![
            Spec::Ints(items, 1),
            Spec::Ints(groups, 0),
            Spec::Local(4 * (r.local_size[0] * r.local_size[1]) as usize),
        ]
    });
}

/// Every `every`-th work-item gathers two elements and scatters two
/// results: one running lane per chunk (`every` 16, not lane 0 with an
/// offset), none in some chunks (37), several (7, 3: the gather and
/// scatter), all (1).
const EVERY: &str = r#"
kernel void k(global const int* in, global int* out, global float* f, int every, int n) {
    int i = get_global_id(0);
    if (i % every == 0) {
        int j = i / every;
        out[j] = in[(i * 13) % n] + i;
        f[j] = (float)in[(i * 7 + 5) % n] * 0.25f;
    }
}
"#;

#[test]
fn chunks_with_one_none_or_several_running_lanes_agree() {
    for every in [16, 37, 7, 3, 1] {
        let ranges = [
            range_1d(0, 512, 64),
            range_1d(5, 250, 50),
            range_1d(0, 48, 16),
            range_1d(1, 64, 32),
        ];
        agree(EVERY, &ranges, |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize;
            let outs = n / every as usize + 1;
            vec![
                Spec::Ints(n, 2),
                Spec::Ints(outs, 0),
                Spec::Floats(outs, 0),
                Spec::Int(every),
                Spec::Int(n as i32),
            ]
        });
    }
}

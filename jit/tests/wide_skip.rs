//! Barrier kernels whose regions end in `if (lid < bound)` (the tree of a
//! reduction) on the wide AVX-512 code, which skips the rest of a row's
//! chunks once one chunk's last lane fails the test and gives the skipped
//! chunks the group-level variables the region wrote (`select::skip_tests`,
//! `regions`): against the interpreter over whole, partial and 2-D groups,
//! bounds that end inside a chunk, `<=` tests and tests under a group-level
//! `if`; and the kernels the wide code leaves to Cranelift's code (no loop
//! to carry the regions, a kept per-item variable written beside the test).

use vecl_ir::interp::NdRange;
use vecl_testkit::{
    build, code_line, compare_launches, cpu_has_wide, range_1d, range_2d, wide_agrees,
    wide_options, Spec,
};

/// A grid-stride dot product, then the tree of its group's sums (`s` is
/// halved in the region of the test: a group-level variable the skipped
/// chunks take from the chunk before them).
const DOT: &str = "kernel void k(global const float* x, global const float* y, global float* out, local float* t, int n) {
    int lid = get_local_id(0);
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i] * y[i];
    t[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) t[lid] += t[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = t[0];
}";

fn dot_args(r: &NdRange, n: usize) -> Vec<Spec> {
    let local = r.local_size[0] as usize;
    let groups = r.global_size[0].div_ceil(r.local_size[0]) as usize;
    vec![
        Spec::Floats(n.max(1), 3),
        Spec::Floats(n.max(1), 5),
        Spec::Floats(groups, 0),
        Spec::Local(4 * local),
        Spec::Int(n as i32),
    ]
}

#[test]
fn a_tree_reduction_after_a_loop_takes_the_wide_code_and_agrees() {
    // Groups of whole chunks, of a partial last chunk (48, 40, 24), of one
    // chunk and less, and trip counts from none to several.
    for (global, local) in [
        (1024u64, 256u64),
        (192, 64),
        (240, 48),
        (160, 40),
        (96, 24),
        (64, 16),
        (32, 8),
    ] {
        for n in [0usize, 100, global as usize, 3 * global as usize + 7] {
            wide_agrees(DOT, &[range_1d(0, global, local)], |r| dot_args(r, n));
        }
    }
}

#[test]
fn non_uniform_groups_and_offsets_agree() {
    let m = build(DOT, "-cl-std=CL2.0");
    let k = vecl_jit::compile_kernel(&m, "k", &wide_options()).expect("compiles");
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    // The last group 40 (of 64) and 24 (of 48) items: its tree reads
    // `t[lid + s]` only where the test passes, the rest of the row skipped.
    let ranges = [
        range_1d(0, 360, 64),
        range_1d(5, 312, 48),
        range_1d(16, 256, 128),
    ];
    assert_eq!(
        compare_launches(&m, "k", &k, &ranges, |r| dot_args(r, 1000)),
        ranges.len()
    );
}

#[test]
fn a_bound_that_ends_inside_a_chunk_and_a_le_test_agree() {
    // `lid <= s - 1` (the chunks up to the one holding `s - 1`), and a
    // bound that is not a power of two: the first chunk past it is run
    // (its last lane fails), the rest skipped.
    let src = "kernel void k(global const float* x, global const float* y, global float* out, local float* t, int n) {
    int lid = get_local_id(0);
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc = fma(x[i], y[i], acc);
    t[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = (get_local_size(0) * 3) / 4; s > 1; s = (s + 1) / 2) {
        if (lid <= s / 2 - 1) t[lid] += t[lid + (s + 1) / 2];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = t[0] + t[1];
}";
    for (global, local) in [(768u64, 256u64), (288, 96), (240, 48)] {
        wide_agrees(src, &[range_1d(0, global, local)], |r| dot_args(r, 2000));
    }
}

#[test]
fn rows_of_a_2d_group_skip_their_own_chunks() {
    // A tree per row: each row's chunks skip by its own test; `s` is
    // group-level, the row's sum lands in `t[ly][0]`.
    let src = "kernel void k(global const float* x, global const float* y, global float* out, local float* t, int n) {
    int lx = get_local_id(0), ly = get_local_id(1), w = get_local_size(0);
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i] * y[i + ly];
    t[ly * w + lx] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = w / 2; s > 0; s >>= 1) {
        if (lx < s) t[ly * w + lx] += t[ly * w + lx + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lx == 0) out[get_global_id(1) * get_num_groups(0) + get_group_id(0)] = t[ly * w];
}";
    let ranges = [
        range_2d([128, 8], [64, 4], [0, 0]),
        range_2d([96, 6], [48, 2], [0, 0]),
        range_2d([64, 4], [32, 4], [0, 0]),
    ];
    wide_agrees(src, &ranges, |r| {
        let local = (r.local_size[0] * r.local_size[1]) as usize;
        let outs = (r.global_size[0] / r.local_size[0] * r.global_size[1]) as usize;
        vec![
            Spec::Floats(700, 3),
            Spec::Floats(720, 5),
            Spec::Floats(outs, 0),
            Spec::Local(4 * local),
            Spec::Int(600),
        ]
    });
}

#[test]
fn a_test_under_a_group_level_if_agrees() {
    // The tree runs only where `n` is positive: a group whose `if` fails
    // stores no test, and skips its chunks at once.
    let src = "kernel void k(global const float* x, global const float* y, global float* out, local float* t, int n) {
    int lid = get_local_id(0);
    float acc = 1.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i] * y[i];
    t[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (n > 0) {
            if (lid < s) t[lid] += t[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = t[0];
}";
    for n in [0usize, 500] {
        wide_agrees(src, &[range_1d(0, 256, 128), range_1d(0, 192, 48)], |r| {
            dot_args(r, n)
        });
    }
}

#[test]
fn a_tree_without_a_loop_is_left_to_cranelift() {
    // No loop: the tree alone (one item each) is faster on Cranelift's
    // code, which keeps `s` once per group.
    let tree = "kernel void k(global const float* x, global const float* y, global float* out, local float* t, int n) {
    int lid = get_local_id(0);
    t[lid] = x[get_global_id(0)] * y[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) t[lid] += t[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = t[0] + (float)n;
}";
    let m = build(tree, "");
    let k = vecl_jit::compile_kernel(&m, "k", &wide_options()).expect("compiles");
    let line = code_line(&k);
    assert!(line.starts_with("code: Cranelift"), "{line}");
    if cpu_has_wide() {
        let why = "limits to those an `if (lid < bound)` accepts (it runs fewer chunks";
        assert!(line.contains(why), "{why}: {line}");
    }
    let ranges = [range_1d(0, 512, 256), range_1d(0, 192, 64)];
    let compared = compare_launches(&m, "k", &k, &ranges, |r| {
        let mut a = dot_args(r, 700);
        a[2] = Spec::Floats(r.global_size[0] as usize, 0);
        a
    });
    assert_eq!(compared, ranges.len());
}

#[test]
fn a_per_item_write_beside_the_test_runs_every_chunk() {
    // `seen` is per item and kept across the barriers: the region's chunk
    // part no longer ends in the test alone, so no chunk is skipped (a
    // skipped chunk would keep a stale copy).
    let kept = "kernel void k(global const float* x, global const float* y, global float* out, local float* t, int n) {
    int lid = get_local_id(0);
    float acc = 0.0f, seen = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i] * y[i];
    t[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        seen += (float)lid;
        if (lid < s) t[lid] += t[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[0] + seen;
}";
    wide_agrees(kept, &[range_1d(0, 512, 256), range_1d(0, 192, 64)], |r| {
        let mut a = dot_args(r, 700);
        a[2] = Spec::Floats(r.global_size[0] as usize, 0);
        a
    });
}

#[test]
fn the_skipped_chunks_see_the_group_level_variables_the_region_wrote() {
    // `rounds` is counted in the tree's region, whose later chunks are
    // skipped, and read by every item after it: each skipped chunk must
    // have the count of the chunk before it.
    let src = "kernel void k(global const float* x, global const float* y, global float* out, local float* t, int n) {
    int lid = get_local_id(0);
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i] * y[i];
    t[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    int rounds = 0;
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) t[lid] += t[lid + s];
        rounds += 3;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[0] + (float)(rounds * 1000 + lid);
}";
    wide_agrees(src, &[range_1d(0, 512, 256), range_1d(0, 240, 48)], |r| {
        let mut a = dot_args(r, 900);
        a[2] = Spec::Floats(r.global_size[0] as usize, 0);
        a
    });
}

#[test]
fn robust_access_skips_the_same_chunks() {
    // The dot product under robust access, its argument block filled as
    // the runtime fills it: the same sums as the interpreter's.
    use vecl_ir::interp::{run_kernel, KernelArg};
    use vecl_jit::abi::Launch;
    use vecl_testkit::groups::{run_checked, CheckedArg};
    let m = build(DOT, "");
    let opts = vecl_jit::JitOptions {
        checked: true,
        ..wide_options()
    };
    let k = vecl_jit::compile_kernel(&m, "k", &opts).expect("compiles");
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    let n = 1500usize;
    let floats = |seed: u32| -> Vec<u8> {
        (0..n as u32)
            .flat_map(|i| (((i * 7 + seed) % 23) as f32 - 11.0).to_le_bytes())
            .collect()
    };
    let (x, y) = (floats(3), floats(5));
    for (global, local) in [(512u64, 256u64), (192, 64), (240, 48)] {
        let groups = (global / local) as usize;
        let mut want = [
            KernelArg::Buffer(x.clone()),
            KernelArg::Buffer(y.clone()),
            KernelArg::Buffer(vec![0; 4 * groups]),
            KernelArg::Local(4 * local as usize),
            KernelArg::Value((n as i32).to_le_bytes().to_vec()),
        ];
        run_kernel(&m, "k", &mut want, &range_1d(0, global, local)).expect("interpreter");
        let mut out = vec![0u8; 4 * groups];
        let count = (n as i32).to_le_bytes();
        let args = [
            CheckedArg::Buffer {
                addr: x.as_ptr() as u64,
                len: x.len() as u64,
            },
            CheckedArg::Buffer {
                addr: y.as_ptr() as u64,
                len: y.len() as u64,
            },
            CheckedArg::Buffer {
                addr: out.as_mut_ptr() as u64,
                len: out.len() as u64,
            },
            CheckedArg::Local(4 * local),
            CheckedArg::Bytes(&count),
        ];
        let mut launch = Launch::new(1, [0; 3], [global, 1, 1], [local, 1, 1]);
        // SAFETY: the buffers are as long as said and outlive the call;
        // the kernel tests its accesses.
        let run = unsafe { run_checked(&k, &args, &mut launch) };
        assert_eq!(run.status, 0, "groups of {local}: {:?}", run.fault);
        assert!(
            matches!(&want[2], KernelArg::Buffer(w) if *w == out),
            "groups of {local}"
        );
    }
}

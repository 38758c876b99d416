//! The SIMD width the JIT picks when none is asked for: 16 for loops of
//! vector work, divergent ones included; 8 when a loop holds work done lane
//! by lane (an atomic, a gather or a scatter) in Cranelift's code, 16 when
//! the wide AVX-512 code takes such a kernel; 32 for a barrier kernel whose
//! regions run straight through.

use vecl_jit::{compile_kernel, JitOptions};
use vecl_testkit::build;

/// The W line of `kernel`'s report at the default width.
fn width(src: &str, kernel: &str) -> u32 {
    width_with(src, kernel, &JitOptions::default())
}

/// The W line of `kernel`'s report at the default width, Cranelift's
/// code only.
fn cranelift_width(src: &str, kernel: &str) -> u32 {
    let opts = JitOptions {
        wide: false,
        ..JitOptions::default()
    };
    width_with(src, kernel, &opts)
}

fn width_with(src: &str, kernel: &str, opts: &JitOptions) -> u32 {
    let compiled =
        compile_kernel(&build(src, ""), kernel, opts).unwrap_or_else(|e| panic!("{kernel}: {e}"));
    let explain = compiled.explain();
    let line = explain.lines().next().unwrap_or_default();
    let w = line
        .split("W = ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no width in {line:?}"));
    w.parse().unwrap()
}

#[test]
fn straight_line_and_uniform_loops_run_sixteen_lanes() {
    let src = "kernel void add(global const float* a, global float* b) {
        size_t i = get_global_id(0);
        b[i] = a[i] + 1.0f;
    }
    kernel void sum(global const float* a, global float* b, int n) {
        size_t i = get_global_id(0);
        float s = 0.0f;
        for (int k = 0; k < n; k++) s += a[k * 1024 + i];
        b[i] = s;
    }";
    assert_eq!(width(src, "add"), 16);
    assert_eq!(width(src, "sum"), 16);
}

#[test]
fn divergent_loop_of_vector_work_runs_sixteen_lanes() {
    let src = "kernel void iterate(global int* out, int limit) {
        int x = get_global_id(0);
        float z = 0.0f;
        int i = 0;
        while (i < limit && z < 4.0f) {
            z = z * z + 0.001f * x;
            i++;
        }
        out[x] = i;
    }";
    assert_eq!(width(src, "iterate"), 16);
}

#[test]
fn loop_with_lane_by_lane_work_runs_eight_lanes() {
    let src = "kernel void bins(global const uchar* data, global uint* bins, int per_item) {
        size_t base = get_global_id(0) * per_item;
        for (int k = 0; k < per_item; k++) atomic_inc(&bins[data[base + k]]);
    }
    kernel void gather(global const float* a, global const int* idx, global float* b, int n) {
        size_t i = get_global_id(0);
        float s = 0.0f;
        for (int k = 0; k < n; k++) s += a[idx[i] + k * 7];
        b[i] = s;
    }
    kernel void scatter(global float* out, int n) {
        int i = get_global_id(0);
        for (int k = 0; k < n; k++) out[i * n + k] = k;
    }";
    for k in ["bins", "gather", "scatter"] {
        assert_eq!(cranelift_width(src, k), 8, "{k}");
    }
    // The wide code refuses the atomic, so `bins` keeps 8; it makes the
    // gather and the scatter one instruction each and takes them at 16.
    assert_eq!(width(src, "bins"), 8);
    let wide = vecl_jit::wide::select::cpu_supported();
    for k in ["gather", "scatter"] {
        assert_eq!(width(src, k), if wide { 16 } else { 8 }, "{k}");
    }
}

#[test]
fn a_kernel_refused_at_sixteen_gives_the_wide_codes_reason() {
    let src = "kernel void bins(global const uchar* data, global uint* bins, int per_item) {
        size_t base = get_global_id(0) * per_item;
        for (int k = 0; k < per_item; k++) atomic_inc(&bins[data[base + k]]);
    }";
    if !vecl_jit::wide::select::cpu_supported() {
        return;
    }
    let compiled = compile_kernel(&build(src, ""), "bins", &JitOptions::default()).unwrap();
    let explain = compiled.explain();
    assert!(
        explain.contains("(at W = 16; W = 8 for Cranelift's code)"),
        "{explain}"
    );
    assert!(explain.contains("atomic"), "{explain}");
}

#[test]
fn lane_by_lane_work_outside_loops_keeps_sixteen_lanes() {
    let src = "kernel void once(global const float* a, global const int* idx, global float* b) {
        size_t i = get_global_id(0);
        b[i] = a[idx[i]];
    }";
    assert_eq!(width(src, "once"), 16);
}

#[test]
fn barrier_kernel_of_straight_regions_runs_thirty_two_lanes() {
    // The bench's prefix scan: the loop holds the barriers, and the only
    // branch that differs between work-items (the `?:` around the load)
    // writes nothing.
    let src = include_str!("../../benches/scan.cl");
    assert_eq!(width(src, "scan"), 32);
}

#[test]
fn barrier_kernel_with_masked_stores_or_region_loops_keeps_sixteen_lanes() {
    let src = "kernel void reduce(global const float* in, global float* out, local float* x) {
        size_t lid = get_local_id(0);
        x[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (lid < s) x[lid] += x[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) out[get_group_id(0)] = x[0];
    }
    kernel void tiles(global const float* in, global float* out, local float* t, int n) {
        size_t lid = get_local_id(0);
        t[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        float s = 0.0f;
        for (int j = 0; j < n; j++) s += t[j];
        out[get_global_id(0)] = s;
    }
    kernel void straight(global float* out, local float* t) {
        size_t lid = get_local_id(0);
        t[lid] = lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = t[get_local_size(0) - 1 - lid];
    }";
    assert_eq!(width(src, "reduce"), 16);
    assert_eq!(width(src, "tiles"), 16);
    assert_eq!(width(src, "straight"), 32);
}

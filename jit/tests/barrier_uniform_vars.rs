//! Barriers in loops whose control is uniform within a work-group although
//! the variables it reads are also used for per-work-item values elsewhere
//! in the kernel, checked against the IR interpreter at W = 4, 8, 16.

use vecl_testkit::{differential_at, range_1d, Spec, BARRIER_WIDTHS};

/// The conformance suite's `barrier` test: `i` first walks the items' own
/// elements (varying), then is reused as the halving stride of a tree
/// reduction (uniform: it starts from `get_local_size(0)`), and the loop
/// holding the barrier exits on `lsize`, which also only depends on the
/// local size.
const COMPUTE_SUM: &str = r#"
__kernel void compute_sum(__global int *a, int n, __global int *tmp_sum,
                          __global int *sum)
{
    int tid = get_local_id(0);
    int lsize = get_local_size(0);
    int i;

    tmp_sum[tid] = 0;
    for (i = tid; i < n; i += lsize) tmp_sum[tid] += a[i];

    for (i = hadd(lsize, 1); lsize > 1; i = hadd(i, 1))
    {
        BARRIER(CLK_GLOBAL_MEM_FENCE);
        if (tid + i < lsize) tmp_sum[tid] += tmp_sum[tid + i];
        lsize = i;
    }

    if (tid == 0) *sum = tmp_sum[0];
}
"#;

fn one_group_shapes() -> Vec<vecl_ir::interp::NdRange> {
    [1u64, 2, 3, 5, 16, 37, 64, 256]
        .iter()
        .map(|&ls| range_1d(0, ls, ls))
        .collect()
}

fn compute_sum_args(r: &vecl_ir::interp::NdRange) -> Vec<Spec> {
    let n = 1000;
    vec![
        Spec::Ints(n, 3),
        Spec::Int(n as i32),
        Spec::Ints(r.local_size[0] as usize, 0),
        Spec::Ints(1, 0),
    ]
}

#[test]
fn conformance_compute_sum_with_barrier() {
    let n = differential_at(
        &BARRIER_WIDTHS,
        COMPUTE_SUM,
        "-DBARRIER=barrier",
        "compute_sum",
        &one_group_shapes(),
        compute_sum_args,
    );
    assert_eq!(n, BARRIER_WIDTHS.len() * 8);
}

#[test]
fn conformance_compute_sum_with_work_group_barrier() {
    let n = differential_at(
        &BARRIER_WIDTHS,
        COMPUTE_SUM,
        "-DBARRIER=work_group_barrier -cl-std=CL2.0",
        "compute_sum",
        &one_group_shapes(),
        compute_sum_args,
    );
    assert_eq!(n, BARRIER_WIDTHS.len() * 8);
}

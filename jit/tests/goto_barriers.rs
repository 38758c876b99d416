//! Barriers in kernels written with `goto`: the front end structures their
//! control-flow graphs (`vecl_ir::transform::structurize`), and the
//! barrier checks see the result as they see a `for` or an `if`: a loop of
//! labels with a uniform trip count runs like the `for` version (against
//! the interpreter at every width and local size), and a `goto` that makes
//! a barrier conditional is refused or reported exactly as the `if` that
//! says the same.

use vecl_ir::interp::{run_kernel, InterpError, NdRange};
use vecl_testkit::{
    build, differential_at, group_sizes_1d, interp_args_for, run_jit, try_compile, Spec,
    BARRIER_WIDTHS, DIVERGENT,
};

/// Hillis-Steele scan (as in `barrier_shapes.rs`) with its loop made of a
/// label and two gotos.
const GOTO_SCAN: &str = r#"
kernel void scan(global const int* in, global int* out, local int* tmp) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int offset = 1;
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
step:
    if (offset >= n)
        goto finish;
    int add = lid >= offset ? tmp[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
    offset <<= 1;
    goto step;
finish:
    out[get_global_id(0)] = tmp[lid];
}
"#;

#[test]
fn barrier_loop_made_of_gotos_matches_the_interpreter() {
    let n = differential_at(
        &BARRIER_WIDTHS,
        GOTO_SCAN,
        "",
        "scan",
        &group_sizes_1d(),
        |r| {
            let g = r.global_size[0] as usize;
            vec![
                Spec::Ints(g, 1),
                Spec::Ints(g, 2),
                Spec::Local(4 * r.local_size[0] as usize),
            ]
        },
    );
    assert_eq!(n, BARRIER_WIDTHS.len() * 9);
}

#[test]
fn barrier_skipped_by_a_varying_goto_is_checked_like_an_if() {
    let src = r#"
kernel void by_goto(global int* out, local int* tmp) {
    int lid = get_local_id(0);
    tmp[lid] = lid;
    if (lid >= 2)
        goto skip;
    barrier(CLK_LOCAL_MEM_FENCE);
skip:
    out[lid] = tmp[lid];
}
kernel void by_if(global int* out, local int* tmp) {
    int lid = get_local_id(0);
    tmp[lid] = lid;
    if (lid < 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[lid] = tmp[lid];
}
"#;
    // Neither is proven uniform: both build, with the barrier checked at
    // run time, and a launch whose work-items split fails the same way.
    let m = build(src, "");
    let range = NdRange {
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [8, 1, 1],
        local_size: [8, 1, 1],
    };
    let specs = vec![Spec::Ints(8, 0), Spec::Local(32)];
    for w in BARRIER_WIDTHS {
        for name in ["by_goto", "by_if"] {
            let k = try_compile(&m, name, w).expect("compiles");
            let (status, _) = run_jit(&k, &interp_args_for(&specs), &range);
            assert_eq!(status, DIVERGENT, "{name} W={w}");
        }
    }
}

#[test]
fn barrier_skipped_by_some_rows_through_goto_is_reported_as_divergent() {
    let src = r#"
kernel void rows(global int* out, local int* tmp) {
    int lid = get_local_id(0) + get_local_size(0) * get_local_id(1);
    tmp[lid] = lid;
    if (get_local_id(1) != 0)
        goto done;
    barrier(CLK_LOCAL_MEM_FENCE);
done:
    out[lid] = tmp[lid];
}
"#;
    let m = build(src, "");
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [8, 2, 1],
        local_size: [8, 2, 1],
    };
    let specs = vec![Spec::Ints(16, 0), Spec::Local(64)];
    let mut iargs = interp_args_for(&specs);
    let interp = run_kernel(&m, "rows", &mut iargs, &range);
    assert!(
        matches!(interp, Err(InterpError::DivergentBarrier { .. })),
        "{interp:?}"
    );
    for w in BARRIER_WIDTHS {
        let k = try_compile(&m, "rows", w).expect("compiles");
        let (status, _) = run_jit(&k, &interp_args_for(&specs), &range);
        assert_eq!(status, DIVERGENT, "W={w}");
    }
}

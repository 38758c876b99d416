//! Launches of kernels that cannot observe their groups' shape run with
//! their one-row groups merged into rows of up to 1024 work-items
//! (`vecl_runtime::ndrange::widened_rows`, `docs/runtime.md`): every
//! work-item still runs once, with its own ids, whatever the global size,
//! offset or dimensions; a kernel that can observe its groups keeps the
//! groups it was given.

use vecl::{Context, NdRange};

/// Reads only its global ids: the shape of its groups is invisible.
const STREAM: &str = "
kernel void stream(global const float* x, global float* y, float a, int w) {
    size_t i = (get_global_id(1) - get_global_offset(1)) * w
        + get_global_id(0) - get_global_offset(0);
    y[i] = a * x[i] + y[i] + (float)get_global_id(0) + 1000.0f * (float)get_global_id(1);
}
";

/// Writes its local id and group id: the shape of its groups is seen.
const LOCAL_IDS: &str = "
kernel void ids(global int* out) {
    size_t i = get_global_id(0);
    out[i] = (int)get_local_id(0) + 100000 * (int)get_group_id(0);
}
";

/// Runs `STREAM` over `global` (1 or 2 dimensions) at `offset`, with
/// `local` or the device's groups, built robust or unchecked, and checks
/// every element.
fn stream(global: &[usize], offset: &[usize], local: Option<&[usize]>, unchecked: bool) {
    let ctx = Context::new().expect("context");
    let builder = ctx.program(STREAM);
    let builder = if unchecked {
        // SAFETY: every index stays inside the buffers sized for the range.
        unsafe { builder.unchecked() }
    } else {
        builder
    };
    let program = builder
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"));
    let kernel = program.kernel("stream").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let w = global[0];
    let n: usize = global.iter().product();
    let x: Vec<f32> = (0..n).map(|i| (i % 1013) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 997) as f32).collect();
    let xb = ctx.buffer_from(&x).expect("buffer");
    let yb = ctx.buffer_from(&y).expect("buffer");
    kernel.set_arg_buffer(0, &xb).expect("arg 0");
    kernel.set_arg_buffer(1, &yb).expect("arg 1");
    kernel.set_arg(2, 2.0f32).expect("arg 2");
    kernel.set_arg(3, w as i32).expect("arg 3");
    let launch = queue.launch(&kernel).global(global).offset(offset);
    let launch = match local {
        Some(l) => launch.local(l),
        None => launch,
    };
    launch.run().expect("launch");
    let got: Vec<f32> = queue.read_vec(&yb, &[]).expect("read");
    for (i, &g) in got.iter().enumerate() {
        let (gx, gy) = (
            i % w + offset[0],
            i / w + offset.get(1).copied().unwrap_or(0),
        );
        let want = 2.0 * x[i] + y[i] + gx as f32 + 1000.0 * gy as f32;
        assert_eq!(g, want, "element {i} of a {global:?} launch at {offset:?}");
    }
}

#[test]
fn streaming_launches_run_every_work_item_once_in_merged_rows() {
    for unchecked in [false, true] {
        // Groups of 256 merged into rows of 1024.
        stream(&[1 << 20], &[0], None, unchecked);
        // A prime size: the last merged row is partial; with an offset.
        stream(&[1_000_003], &[7], None, unchecked);
        // Rows of a 2-D range in groups one row high, merged to the width.
        stream(&[48, 4096], &[3, 5], Some(&[16, 1]), unchecked);
        // A 2-D range in square groups, and a small launch: kept.
        stream(&[1024, 64], &[0, 0], None, unchecked);
        stream(&[4096], &[0], None, unchecked);
    }
}

#[test]
fn the_merged_rows_are_explained_and_a_kernel_that_sees_its_groups_keeps_them() {
    let ctx = Context::new().expect("context");
    let program = ctx
        .program(STREAM)
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"));
    let kernel = program.kernel("stream").expect("kernel");
    let said = kernel
        .describe_launch(&NdRange::linear(1 << 24))
        .expect("a valid range")
        .expect("a non-empty range");
    assert!(
        said.contains("groups of 256x1x1 run as 1024x1x1 (the kernel cannot observe their shape)"),
        "{said}"
    );

    let program = ctx
        .program(LOCAL_IDS)
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"));
    let kernel = program.kernel("ids").expect("kernel");
    let said = kernel
        .describe_launch(&NdRange::linear(1 << 20))
        .expect("a valid range")
        .expect("a non-empty range");
    assert!(said.contains("launch: groups of 256x1x1;"), "{said}");
    let queue = ctx.queue().expect("queue");
    let n = 1usize << 20;
    let out = ctx.buffer::<i32>(n).expect("buffer");
    kernel.set_arg_buffer(0, &out).expect("arg 0");
    queue.launch(&kernel).global(&[n]).run().expect("launch");
    let got: Vec<i32> = queue.read_vec(&out, &[]).expect("read");
    for (i, &g) in got.iter().enumerate() {
        assert_eq!(g, (i % 256) as i32 + 100000 * (i / 256) as i32, "item {i}");
    }
}

//! Checked mode through the safe API: a kernel that goes out of bounds
//! fails its command with `CL_OUT_OF_RESOURCES` and a message naming the
//! kernel, the work-item, the address and the size; the process and the
//! queue carry on, and a correct kernel gives the same results checked.

use vecl::{Context, Error, Program};

const WRITE_UPTO: &str = "
kernel void write_upto(global int* out, int n) {
    int i = get_global_id(0);
    if (i <= n)
        out[i] = i;
}
";

const SHIFT_LEFT: &str = "
kernel void shift_left(global const float* in, global float* out) {
    int i = get_global_id(0);
    out[i] = in[i - 1] * 2.0f;
}
";

const SAXPY: &str = "
kernel void saxpy(global const float* x, global float* y, float a, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
";

fn build(ctx: &Context, source: &str, checked: bool) -> Program {
    ctx.program(source)
        .checked(checked)
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"))
}

#[test]
fn an_out_of_bounds_write_fails_the_command_and_the_queue_goes_on() {
    let ctx = Context::new().expect("context");
    let program = build(&ctx, WRITE_UPTO, true);
    assert!(program
        .explain("write_upto")
        .is_some_and(|e| e.contains("checked mode")));
    let kernel = program.kernel("write_upto").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let out = ctx.buffer_from(&[-1i32; 64]).expect("buffer");
    kernel.set_arg_buffer(0, &out).expect("arg 0");
    kernel.set_arg(1, 64i32).expect("arg 1");

    let event = queue
        .launch(&kernel)
        .global(&[128])
        .local(&[32])
        .enqueue()
        .expect("enqueue");
    assert!(event.wait().is_err());
    assert_eq!(event.status(), -5, "CL_OUT_OF_RESOURCES");
    let Some(Error::OutOfResources(message)) = event.failure() else {
        panic!("expected CL_OUT_OF_RESOURCES, got {:?}", event.failure());
    };
    for part in [
        "kernel `write_upto`",
        "out-of-bounds store of 4 bytes",
        "work-item (64, 0, 0)",
        "line 5",
        "4 bytes past the end of argument 0, a buffer of 256 bytes",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
    assert_eq!(Error::OutOfResources(message).cl_code(), -5);

    // The same queue and kernel run a correct launch afterwards.
    kernel.set_arg(1, 63i32).expect("arg 1");
    queue
        .launch(&kernel)
        .global(&[128])
        .local(&[32])
        .run()
        .expect("a correct launch after the fault");
    let got = queue.read_vec(&out, &[]).expect("read");
    assert_eq!(got, (0..64).collect::<Vec<i32>>());
}

#[test]
fn a_negative_index_read_is_reported_through_run() {
    let ctx = Context::new().expect("context");
    let kernel = build(&ctx, SHIFT_LEFT, true)
        .kernel("shift_left")
        .expect("kernel");
    let queue = ctx.queue().expect("queue");
    let input = ctx.buffer_from(&[1.0f32; 16]).expect("in");
    let output = ctx.buffer_from(&[0.0f32; 16]).expect("out");
    kernel.set_arg_buffer(0, &input).expect("arg 0");
    kernel.set_arg_buffer(1, &output).expect("arg 1");
    let err = queue
        .launch(&kernel)
        .global(&[16])
        .run()
        .expect_err("in[-1] is out of bounds");
    let text = err.to_string();
    assert!(
        text.contains("out-of-bounds load of 4 bytes") && text.contains("work-item (0, 0, 0)"),
        "{text}"
    );
    assert!(
        text.contains("4 bytes before the start of argument 0"),
        "{text}"
    );
    // Kernel::run_blocking reports the same way.
    let err = kernel
        .run_blocking(&vecl::NdRange::linear(16))
        .expect_err("in[-1] is out of bounds");
    assert!(err.to_string().contains("work-item (0, 0, 0)"), "{err}");
    // With an offset of 1 every read is inside.
    queue
        .launch(&kernel)
        .global(&[15])
        .offset(&[1])
        .run()
        .expect("in bounds with an offset");
}

#[test]
fn a_null_buffer_argument_faults_instead_of_crashing() {
    let ctx = Context::new().expect("context");
    let kernel = build(&ctx, WRITE_UPTO, true)
        .kernel("write_upto")
        .expect("kernel");
    let queue = ctx.queue().expect("queue");
    kernel.set_arg_mem(0, None).expect("a null pointer");
    kernel.set_arg(1, 8i32).expect("arg 1");
    let err = queue
        .launch(&kernel)
        .global(&[8])
        .run()
        .expect_err("a store through a null pointer");
    let text = err.to_string();
    assert!(
        text.contains("out-of-bounds store of 4 bytes at 0x0 by work-item (0, 0, 0)"),
        "{text}"
    );
    assert!(text.contains("outside every buffer"), "{text}");
}

#[test]
fn checked_and_unchecked_saxpy_agree() {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let y: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    let mut results = Vec::new();
    for checked in [false, true] {
        let kernel = build(&ctx, SAXPY, checked).kernel("saxpy").expect("kernel");
        let bx = ctx.buffer_from(&x).expect("x");
        let by = ctx.buffer_from(&y).expect("y");
        kernel.set_arg_buffer(0, &bx).expect("arg 0");
        kernel.set_arg_buffer(1, &by).expect("arg 1");
        kernel.set_arg(2, 1.5f32).expect("arg 2");
        kernel.set_arg(3, n as i32).expect("arg 3");
        queue.launch(&kernel).global(&[1024]).run().expect("saxpy");
        results.push(queue.read_vec(&by, &[]).expect("read"));
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[1][10], 1.5 * 2.5 + (3.0 - 10.0));
}

/// A clamped 2-D read (`benches/conv5x5.cl`'s shape): robust access proves
/// it in bounds once per launch, from the launch's arguments and buffer
/// sizes (`vecl_jit`'s launch proofs, decided before the launch's groups
/// are spread over the pool), so a launch of many groups with the right
/// buffer runs the trusting code and one with a buffer an int short runs
/// the copy that tests, which names the work-item.
const CLAMPED: &str = "
kernel void clamped(global const int *in, global int *out, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1);
    int xx = clamp(x + 1, 0, width - 1), yy = clamp(y + 1, 0, height - 1);
    out[y * width + x] = in[yy * width + xx];
}
";

#[test]
fn a_launch_proof_decided_once_per_launch_still_reports_a_short_buffer() {
    let ctx = Context::new().expect("context");
    let program = ctx.program(CLAMPED).build().expect("robust build");
    let kernel = program.kernel("clamped").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let (w, h) = (256usize, 64usize);
    let input: Vec<i32> = (0..(w * h) as i32).collect();
    let expected: Vec<i32> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            input[(y + 1).min(h - 1) * w + (x + 1).min(w - 1)]
        })
        .collect();
    let full = ctx.buffer_from(&input).expect("in");
    let short = ctx.buffer_from(&input[..w * h - 1]).expect("short in");
    let out = ctx.buffer_from(&vec![0i32; w * h]).expect("out");
    kernel.set_arg_buffer(1, &out).expect("arg 1");
    kernel.set_arg(2, w as i32).expect("arg 2");
    kernel.set_arg(3, h as i32).expect("arg 3");
    for round in 0..3 {
        kernel.set_arg_buffer(0, &full).expect("arg 0");
        queue
            .launch(&kernel)
            .global(&[w, h])
            .local(&[16, 4])
            .run()
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(queue.read_vec(&out, &[]).expect("read"), expected);
        kernel.set_arg_buffer(0, &short).expect("arg 0");
        let err = queue
            .launch(&kernel)
            .global(&[w, h])
            .local(&[16, 4])
            .run()
            .expect_err("the last int is missing");
        let text = err.to_string();
        for part in [
            "kernel `clamped`",
            "out-of-bounds load of 4 bytes",
            "past the end of argument 0",
        ] {
            assert!(
                text.contains(part),
                "round {round}: `{part}` missing: {text}"
            );
        }
    }
}

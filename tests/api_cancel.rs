//! Stopping kernels that never end: `Event::cancel` and a queue's kernel
//! time limit. The process survives, the command fails with a message
//! saying why, and the queue runs what comes next.

use std::time::{Duration, Instant};
use vecl::{Buffer, Context, Program};

/// `spin` loops until `o[0]` becomes non-zero, which nothing does: with a
/// uniform condition, and with a condition that differs between
/// work-items (a divergent loop) in `spin_each`.
const SPIN: &str = "
kernel void spin(global int *o) {
    int i = 0;
    while (o[0] == 0) { i++; }
    o[1] = i;
}
kernel void spin_each(global int *o) {
    size_t g = get_global_id(0);
    int i = 0;
    while (o[g] == 0 || (g & 1)) { i += (int)g; }
    o[g] = i;
}
kernel void nested(global int *o) {
    for (int a = 0; a < 3; a++) {
        for (;;) { if (o[0] == 7) break; }
    }
    o[0] = 1;
}
kernel void add_one(global int *o) { o[get_global_id(0)] += 1; }
";

fn program(ctx: &Context) -> Program {
    ctx.program(SPIN).build().expect("build")
}

#[test]
fn a_cancelled_endless_kernel_fails_and_the_queue_goes_on() {
    let ctx = Context::new().expect("context");
    let q = ctx.queue().expect("queue");
    let p = program(&ctx);
    for name in ["spin", "spin_each", "nested"] {
        let o = Buffer::<i32>::new(&ctx, 64).expect("buffer");
        let k = p.kernel(name).expect("kernel");
        k.set_arg_buffer(0, &o).expect("arg");
        let running = q
            .launch(&k)
            .global(&[64])
            .local(&[16])
            .enqueue()
            .expect("enqueue");
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            running.cancel(),
            "{name}: a running kernel can be cancelled"
        );
        let start = Instant::now();
        let err = running.wait().expect_err("a cancelled kernel fails");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{name}: stopped promptly"
        );
        assert!(
            err.to_string().contains(&format!(
                "kernel `{name}` stopped: the command was cancelled"
            )),
            "{name}: {err}"
        );
        assert!(
            !running.cancel(),
            "a finished command cannot be cancelled again"
        );
        // The queue goes on: the next kernel runs and sees the buffer.
        let next = p.kernel("add_one").expect("kernel");
        next.set_arg_buffer(0, &o).expect("arg");
        q.launch(&next).global(&[64]).enqueue().expect("enqueue");
        q.finish()
            .expect_err("finish reports the cancelled command");
        let out = q.read_vec(&o, &[]).expect("read");
        assert_eq!(out.len(), 64);
        q.finish().expect("the queue is usable after the failure");
    }
}

#[test]
fn a_command_cancelled_before_it_starts_never_runs() {
    let ctx = Context::new().expect("context");
    let q = ctx.queue().expect("queue");
    let p = program(&ctx);
    let gate = vecl::Event::user();
    let o = Buffer::<i32>::from_slice(&ctx, &[5; 16]).expect("buffer");
    let k = p.kernel("add_one").expect("kernel");
    k.set_arg_buffer(0, &o).expect("arg");
    let e = q
        .launch(&k)
        .global(&[16])
        .wait_for(std::slice::from_ref(&gate))
        .enqueue()
        .expect("enqueue");
    assert!(e.cancel());
    gate.set_user_status(0).expect("complete the gate");
    e.wait().expect_err("cancelled");
    let _ = q.finish();
    assert_eq!(q.read_vec(&o, &[]).expect("read"), vec![5; 16]);
}

#[test]
fn a_queue_time_limit_stops_an_endless_kernel() {
    let ctx = Context::new().expect("context");
    let q = ctx
        .queue_builder()
        .kernel_timeout(Duration::from_millis(100))
        .build()
        .expect("queue");
    let p = program(&ctx);
    let o = Buffer::<i32>::new(&ctx, 64).expect("buffer");
    let k = p.kernel("spin_each").expect("kernel");
    k.set_arg_buffer(0, &o).expect("arg");
    let start = Instant::now();
    let err = q
        .launch(&k)
        .global(&[64])
        .run()
        .expect_err("an endless kernel is stopped by the time limit");
    assert!(start.elapsed() >= Duration::from_millis(100));
    assert!(
        err.to_string()
            .contains("ran past its time limit of 100 ms"),
        "{err}"
    );
    // A kernel that ends in time is not affected.
    let next = p.kernel("add_one").expect("kernel");
    next.set_arg_buffer(0, &o).expect("arg");
    q.launch(&next)
        .global(&[64])
        .run()
        .expect("a short kernel runs");
}

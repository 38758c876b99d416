//! The first context's warm-up (`vecl::warm_up`): programs built while it
//! runs, and after it, are built in full and behave the same; build errors
//! are reported at build with the same log; the warm-up itself may run
//! beside builds on other threads.

use vecl::{Context, Error};

const VADD: &str =
    "kernel void vadd(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
kernel void other(global int *p) { p[0] = 7; }
";

const BROKEN: &str = "kernel void ok(global int *p) { p[0] = 1; }
kernel void broken(global int *p) {
    p[0] = undeclared;
}
";

/// Builds, runs and checks `vadd` over `n` items; the explain report of
/// both kernels.
fn vadd_once(ctx: &Context, n: usize) -> Vec<String> {
    let program = ctx.program(VADD).build().expect("build");
    let kernel = program.kernel("vadd").expect("kernel");
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
    let (ba, bb) = (
        ctx.buffer_from(&a).expect("a"),
        ctx.buffer_from(&b).expect("b"),
    );
    let bc = ctx.buffer::<f32>(n).expect("c");
    kernel.set_arg_buffer(0, &ba).expect("arg 0");
    kernel.set_arg_buffer(1, &bb).expect("arg 1");
    kernel.set_arg_buffer(2, &bc).expect("arg 2");
    let queue = ctx.queue().expect("queue");
    queue.launch(&kernel).global(&[n]).run().expect("launch");
    let c = queue.read_vec(&bc, &[]).expect("read");
    assert!((0..n).all(|i| c[i] == a[i] + b[i]));
    ["vadd", "other"]
        .iter()
        .map(|k| {
            let text = program.explain(k).expect("explain").to_string();
            without_times(&text)
        })
        .collect()
}

/// The report without its times (`generated in 0.11 ms`, the compile
/// time's line), which differ from build to build.
fn without_times(report: &str) -> String {
    let words: Vec<&str> = report.split(' ').collect();
    words
        .iter()
        .enumerate()
        .filter(|&(i, w)| {
            let timed = |j: usize| words.get(j).is_some_and(|n| n.starts_with("ms"));
            !(timed(i + 1) || (w.starts_with("ms") && i > 0 && words[i - 1].parse::<f64>().is_ok()))
        })
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

fn build_log(ctx: &Context) -> String {
    match ctx.program(BROKEN).source_name("broken.cl").build() {
        Err(Error::BuildProgramFailure { log }) => log,
        other => panic!("expected a build failure, got {:?}", other.err()),
    }
}

#[test]
fn programs_built_during_and_after_the_warm_up_are_the_same() {
    // The process's first context starts the warm-up; this build runs
    // beside it (which then stops after its step).
    let ctx = Context::new().expect("context");
    let during = vadd_once(&ctx, 1000);
    let log_during = build_log(&ctx);
    // The warm-up's work again, here, to its end: what follows is built
    // after it.
    vecl::warm_up::run();
    let after = vadd_once(&ctx, 1000);
    assert_eq!(during, after);
    let log_after = build_log(&ctx);
    assert_eq!(log_during, log_after);
    assert!(
        log_after.contains("broken.cl:3:12: error") && log_after.contains("undeclared"),
        "{log_after}"
    );
}

#[test]
fn the_warm_up_beside_builds_on_other_threads() {
    let ctx = Context::new().expect("context");
    std::thread::scope(|s| {
        s.spawn(vecl::warm_up::run);
        for n in [1, 17, 4096] {
            let ctx = ctx.clone();
            s.spawn(move || vadd_once(&ctx, n));
        }
        s.spawn(vecl::warm_up::run);
    });
    // Starting it again is nothing.
    vecl::warm_up::start();
    vadd_once(&ctx, 33);
}

#[test]
fn the_warm_up_s_first_steps_beside_builds_that_have_begun() {
    // What the warm-up does even once a build has begun (the front end's
    // thread started ahead, the code generators' tables made), from
    // several threads at once and beside builds: the builds are the same.
    let ctx = Context::new().expect("context");
    let alone = vadd_once(&ctx, 100);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(vecl_clc::start_front_end);
            s.spawn(vecl_clc::make_tables);
            s.spawn(vecl_jit::make_tables);
        }
        for n in [5, 100] {
            let (ctx, alone) = (ctx.clone(), &alone);
            s.spawn(move || {
                let reports = vadd_once(&ctx, n);
                if n == 100 {
                    assert_eq!(&reports, alone);
                }
            });
        }
    });
    vecl_clc::start_front_end();
    vecl_clc::make_tables();
    vecl_jit::make_tables();
    assert_eq!(vadd_once(&ctx, 100), alone);
    assert!(build_log(&ctx).contains("broken.cl:3:12: error"));
}

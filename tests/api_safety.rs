//! Robust buffer access is the safe API's default: a program written
//! without `unsafe` cannot make a kernel touch memory its launch does not
//! own. The unsound launch of issue 30 (256 work-items over a 16-float
//! buffer) fails its command with an error naming the kernel, the
//! work-item and the argument, and the host's memory around it is intact;
//! `ProgramBuilder::unchecked` (an `unsafe` opt-out) drops the checks, and
//! the `-cl-vecl-*` build options bring them back whatever the builder says.

use vecl::{Context, Error, Safety};

const FILL: &str = "
kernel void fill(global float* out) {
    int i = get_global_id(0);
    out[i] = (float)i;
}
";

/// Launches `fill` over `items` work-items on a buffer of 16 floats, with
/// buffers of known contents allocated before and after it; returns the
/// launch's failure (if any) and whether those buffers and the 16 floats
/// outside the launch's reach kept their values.
fn fill_sixteen(program: &vecl::Program, items: usize) -> (Option<Error>, Vec<f32>) {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    let kernel = program.kernel("fill").expect("kernel");
    let before: Vec<_> = (0..8)
        .map(|k| ctx.buffer_from(&[k as f32; 16]).expect("neighbour"))
        .collect();
    let out = ctx.buffer_from(&[-1.0f32; 16]).expect("buffer");
    let after: Vec<_> = (0..8)
        .map(|k| ctx.buffer_from(&[100.0 + k as f32; 16]).expect("neighbour"))
        .collect();
    kernel.set_arg_buffer(0, &out).expect("arg 0");
    let failure = queue.launch(&kernel).global(&[items]).run().err();
    for (k, b) in before.iter().enumerate() {
        let got = queue.read_vec(b, &[]).expect("read");
        assert_eq!(got, vec![k as f32; 16], "buffer allocated before");
    }
    for (k, b) in after.iter().enumerate() {
        let got = queue.read_vec(b, &[]).expect("read");
        assert_eq!(got, vec![100.0 + k as f32; 16], "buffer allocated after");
    }
    (failure, queue.read_vec(&out, &[]).expect("read"))
}

#[test]
fn the_unsound_launch_of_the_safe_api_is_an_error_and_the_heap_is_intact() {
    let ctx = Context::new().expect("context");
    let builder = ctx.program(FILL);
    assert_eq!(builder.safety(), Safety::Robust, "robust by default");
    let program = builder.build().expect("build");
    let (failure, _) = fill_sixteen(&program, 256);
    let Some(Error::OutOfResources(message)) = failure else {
        panic!("expected CL_OUT_OF_RESOURCES, got {failure:?}");
    };
    for part in [
        "kernel `fill`",
        "out-of-bounds store of 4 bytes",
        "work-item (16, 0, 0)",
        "line 4",
        "past the end of argument 0, a buffer of 64 bytes",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
    // The heap's own bookkeeping is intact too: allocations and frees of
    // the sizes around the buffer's still work.
    let mut keep = Vec::new();
    for n in 1..512usize {
        keep.push(vec![n as u8; n]);
    }
    assert!(keep.iter().enumerate().all(|(i, v)| v.len() == i + 1));
    // The same program runs a sound launch, every element written.
    let (failure, got) = fill_sixteen(&program, 16);
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(got, (0..16).map(|i| i as f32).collect::<Vec<_>>());
}

#[test]
fn robust_kernels_give_the_unchecked_results() {
    let ctx = Context::new().expect("context");
    let robust = ctx.program(FILL).build().expect("robust build");
    // SAFETY: the launch below covers exactly the buffer's 16 elements.
    let unchecked = unsafe { ctx.program(FILL).unchecked() };
    assert_eq!(unchecked.safety(), Safety::Unchecked);
    let unchecked = unchecked.build().expect("unchecked build");
    let explain = |p: &vecl::Program| p.explain("fill").unwrap_or_default().to_string();
    assert!(
        explain(&robust).contains("bounds-checked"),
        "{}",
        explain(&robust)
    );
    assert!(
        !explain(&unchecked).contains("bounds-checked"),
        "{}",
        explain(&unchecked)
    );
    let (a, got_robust) = fill_sixteen(&robust, 16);
    let (b, got_unchecked) = fill_sixteen(&unchecked, 16);
    assert!(a.is_none() && b.is_none(), "{a:?} {b:?}");
    assert_eq!(got_robust, got_unchecked);
}

#[test]
fn build_options_turn_the_checks_on_for_an_unchecked_builder() {
    let ctx = Context::new().expect("context");
    for option in ["-cl-vecl-robust-access", "-cl-vecl-checked"] {
        // SAFETY: the option turns robust access back on (asserted below by
        // the failure of the unsound launch).
        let program = unsafe { ctx.program(FILL).unchecked() }
            .options(option)
            .build()
            .expect("build");
        let (failure, _) = fill_sixteen(&program, 64);
        assert!(
            matches!(&failure, Some(Error::OutOfResources(m)) if m.contains("work-item (16, 0, 0)")),
            "{option}: {failure:?}"
        );
    }
    // An option unknown to vecl is still refused.
    let err = ctx
        .program(FILL)
        .options("-cl-vecl-bogus")
        .build()
        .expect_err("unknown option");
    assert!(err.to_string().contains("-cl-vecl-bogus"), "{err}");
}

#[test]
fn linked_programs_are_robust_unless_linked_unchecked() {
    let ctx = Context::new().expect("context");
    let object = ctx.program(FILL).compile().expect("compile");
    let program = vecl::Program::link(&ctx, std::slice::from_ref(&object), "").expect("link");
    let (failure, _) = fill_sixteen(&program, 32);
    assert!(
        matches!(&failure, Some(Error::OutOfResources(m)) if m.contains("kernel `fill`")),
        "{failure:?}"
    );
    // SAFETY: the link option turns the checks back on.
    let checked = unsafe {
        vecl::Program::link_unchecked(&ctx, &[object], "-cl-vecl-robust-access").expect("link")
    };
    let (failure, _) = fill_sixteen(&checked, 32);
    assert!(
        matches!(&failure, Some(Error::OutOfResources(_))),
        "{failure:?}"
    );
}

/// A barrier that only some work-items of a group reach stops the command
/// in checked mode through the same path as an out-of-bounds access:
/// `CL_OUT_OF_RESOURCES`, with the barrier's line and a work-item on each
/// side.
#[test]
fn a_divergent_barrier_is_reported_like_every_command_failure_in_checked_mode() {
    let ctx = Context::new().expect("context");
    let program = ctx
        .program(
            "kernel void split(global int* out) {
                int l = get_local_id(0);
                if (l < 20) {
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                out[get_global_id(0)] = l;
            }",
        )
        .checked(true)
        .build()
        .expect("build");
    let kernel = program.kernel("split").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let out = ctx.buffer_from(&[0i32; 64]).expect("buffer");
    kernel.set_arg_buffer(0, &out).expect("arg");
    let event = queue
        .launch(&kernel)
        .global(&[64])
        .local(&[64])
        .enqueue()
        .expect("enqueue");
    assert!(event.wait().is_err());
    assert_eq!(event.status(), -5, "CL_OUT_OF_RESOURCES");
    let Some(Error::OutOfResources(message)) = event.failure() else {
        panic!("expected CL_OUT_OF_RESOURCES, got {:?}", event.failure());
    };
    for part in [
        "kernel `split` stopped: barrier at line 4:21",
        "reached by the work-item with local id (0, 0, 0) in group (0, 0, 0)",
        "but not by the one with local id (20, 0, 0)",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

/// A binary keeps the checks its build asked for: linked again without
/// options (as the C driver does with `clCreateProgramWithBinary`), even
/// unchecked, its kernels stop the unsound launch.
#[test]
fn binaries_keep_the_checks_their_build_asked_for() {
    let ctx = Context::new().expect("context");
    // SAFETY: the option turns robust access back on (asserted below).
    let built = unsafe { ctx.program(FILL).unchecked() }
        .options("-cl-vecl-robust-access")
        .build()
        .expect("build");
    let object = vecl::CompiledObject::from_binary(&ctx, &built.binary()).expect("binary");
    // SAFETY: the binary's own options turn the checks on.
    let relinked = unsafe { vecl::Program::link_unchecked(&ctx, &[object], "") }.expect("link");
    let (failure, _) = fill_sixteen(&relinked, 64);
    assert!(
        matches!(&failure, Some(Error::OutOfResources(m)) if m.contains("kernel `fill`")),
        "{failure:?}"
    );
}

//! The Rust API, robust by default, running kernels on the wide AVX-512
//! code (`docs/wide.md`): the results of a correct launch, and an access
//! out of bounds failing its command with the same report Cranelift's
//! robust code gives (kernel, work-item, address, argument, line).

use vecl::{Context, Error};

const SCALE: &str = "
kernel void scale(global const float* in, global float* out, float s) {
    int i = get_global_id(0);
    out[i] = in[i] * s;
}
";

fn wide_cpu() -> bool {
    vecl_jit::wide::select::cpu_supported()
}

#[test]
fn a_robust_kernel_runs_on_the_wide_code_and_stops_at_its_first_stray_access() {
    let ctx = Context::new().expect("context");
    let program = ctx
        .program(SCALE)
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"));
    let explain = program.explain("scale").expect("an explanation");
    let code = explain
        .lines()
        .find(|l| l.starts_with("code: "))
        .unwrap_or_else(|| panic!("no code line in {explain}"));
    if wide_cpu() {
        assert!(
            code.starts_with("code: wide AVX-512") && code.contains("2 accesses bounds-checked"),
            "{code}"
        );
    }
    let kernel = program.kernel("scale").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let n = 1000usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let inp = ctx.buffer_from(&input).expect("buffer");
    let out = ctx.buffer_from(&vec![0f32; n]).expect("buffer");
    kernel.set_arg_buffer(0, &inp).expect("arg 0");
    kernel.set_arg_buffer(1, &out).expect("arg 1");
    kernel.set_arg(2, 2.5f32).expect("arg 2");
    queue
        .launch(&kernel)
        .global(&[n])
        .local(&[100])
        .run()
        .expect("an in-bounds launch");
    let got: Vec<f32> = queue.read_vec(&out, &[]).expect("read");
    let want: Vec<f32> = input.iter().map(|x| x * 2.5).collect();
    assert_eq!(got, want);

    // 1000 items over a 990-float input: item 990, lane 10 of its chunk,
    // reads 4 bytes past the end.
    let short = ctx.buffer_from(&input[..990]).expect("buffer");
    kernel.set_arg_buffer(0, &short).expect("arg 0");
    let event = queue
        .launch(&kernel)
        .global(&[n])
        .local(&[100])
        .enqueue()
        .expect("enqueue");
    assert!(event.wait().is_err());
    assert_eq!(event.status(), -5, "CL_OUT_OF_RESOURCES");
    let Some(Error::OutOfResources(message)) = event.failure() else {
        panic!("expected CL_OUT_OF_RESOURCES, got {:?}", event.failure());
    };
    for part in [
        "kernel `scale`",
        "out-of-bounds load of 4 bytes",
        "work-item (990, 0, 0)",
        "line 4",
        "4 bytes past the end of argument 0, a buffer of 3960 bytes",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

/// A `__local` array read past its end after a barrier: the wide code's
/// region entry stops the command with the report Cranelift's robust code
/// gives for it (kind, size, work-item, line; the address outside every
/// range of the launch).
const LOCAL_TILE: &str = "
kernel void tile(global float* a, int off) {
    local float t[64];
    int l = get_local_id(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l >= 2) {
        a[get_global_id(0)] = t[l + off] + 1.0f;
    }
}
";

#[test]
fn a_local_array_read_past_its_end_stops_the_barrier_kernel_on_the_wide_code() {
    let ctx = Context::new().expect("context");
    let program = ctx
        .program(LOCAL_TILE)
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"));
    let explain = program.explain("tile").expect("an explanation");
    let code = explain
        .lines()
        .find(|l| l.starts_with("code: "))
        .unwrap_or_else(|| panic!("no code line in {explain}"));
    if wide_cpu() {
        assert!(
            code.starts_with("code: wide AVX-512") && code.contains("2 regions"),
            "{code}"
        );
    }
    let kernel = program.kernel("tile").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let n = 128usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let buf = ctx.buffer_from(&input).expect("buffer");
    kernel.set_arg_buffer(0, &buf).expect("arg 0");
    kernel.set_arg(1, 0i32).expect("arg 1");
    queue
        .launch(&kernel)
        .global(&[n])
        .local(&[64])
        .run()
        .expect("an in-bounds launch");
    let got: Vec<f32> = queue.read_vec(&buf, &[]).expect("read");
    let want: Vec<f32> = input
        .iter()
        .enumerate()
        .map(|(i, x)| if i % 64 >= 2 { x + 1.0 } else { *x })
        .collect();
    assert_eq!(got, want);
    // Item 59 reads t[64], the first element past the array.
    kernel.set_arg(1, 5i32).expect("arg 1");
    let event = queue
        .launch(&kernel)
        .global(&[n])
        .local(&[64])
        .enqueue()
        .expect("enqueue");
    assert!(event.wait().is_err());
    let Some(Error::OutOfResources(message)) = event.failure() else {
        panic!("expected CL_OUT_OF_RESOURCES, got {:?}", event.failure());
    };
    for part in [
        "kernel `tile`",
        "out-of-bounds load of 4 bytes",
        "work-item (59, 0, 0)",
        "line 8:32",
        "outside every buffer, __local and private range of the launch",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

/// A loop over the rows of a `__local` tile, read through `tb[k +
/// off][lx]` with some arithmetic on each: the lanes known consecutive
/// from lane 0 after the barrier (no run-time test of the lanes), and
/// under robust access the span of the chunk tested against the tile's
/// bytes.
const TILE_LOOP: &str = "
kernel void rows(global const float* a, global float* c, int off) {
    local float tb[16][16];
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int i = (int)get_global_id(1) * 16 + lx;
    tb[ly][lx] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int k = 0; k < 16; k++) {
        float x = tb[k + off][lx];
        acc += sqrt(x * x + 1.0f) * 0.5f + x * 0.25f;
    }
    c[i] = acc;
}
";

#[test]
fn a_tile_row_read_past_its_end_in_the_loop_stops_with_its_work_item() {
    let ctx = Context::new().expect("context");
    let program = ctx
        .program(TILE_LOOP)
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"));
    let explain = program.explain("rows").expect("an explanation");
    let code = explain
        .lines()
        .find(|l| l.starts_with("code: "))
        .unwrap_or_else(|| panic!("no code line in {explain}"));
    if wide_cpu() {
        assert!(
            code.starts_with("code: wide AVX-512") && code.contains("2 regions"),
            "{code}"
        );
    }
    let kernel = program.kernel("rows").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let n = 16 * 32usize;
    let input: Vec<f32> = (0..n).map(|i| (i % 37) as f32).collect();
    let a = ctx.buffer_from(&input).expect("buffer");
    let c = ctx.buffer_from(&vec![0f32; n]).expect("buffer");
    kernel.set_arg_buffer(0, &a).expect("arg 0");
    kernel.set_arg_buffer(1, &c).expect("arg 1");
    kernel.set_arg(2, 0i32).expect("arg 2");
    queue
        .launch(&kernel)
        .global(&[16, 32])
        .local(&[16, 16])
        .run()
        .expect("an in-bounds launch");
    let got: Vec<f32> = queue.read_vec(&c, &[]).expect("read");
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (x, group) = (i % 16, i / 256);
            (0..16)
                .map(|k| input[group * 256 + k * 16 + x])
                .fold(0.0f32, |s, v| s + ((v * v + 1.0).sqrt() * 0.5 + v * 0.25))
        })
        .collect();
    assert_eq!(got, want);
    // off = 1, one group: row 16 at k = 15, past the tile; the group's
    // first chunk (row 0) reaches it first, at its lane 0.
    kernel.set_arg(2, 1i32).expect("arg 2");
    let event = queue
        .launch(&kernel)
        .global(&[16, 16])
        .local(&[16, 16])
        .enqueue()
        .expect("enqueue");
    assert!(event.wait().is_err());
    let Some(Error::OutOfResources(message)) = event.failure() else {
        panic!("expected CL_OUT_OF_RESOURCES, got {:?}", event.failure());
    };
    for part in [
        "kernel `rows`",
        "out-of-bounds load of 4 bytes",
        "work-item (0, 0, 0)",
        "line 11:30",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

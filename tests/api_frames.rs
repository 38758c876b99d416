//! A huge kernel through the safe API (`jit/src/frame.rs`): at W = 32 its
//! quick code needs a stack frame of megabytes, which overflowed the
//! queue thread's 2 MiB stack and aborted the process. It builds at the
//! widest width whose frame fits, says so in its explanation, and gives
//! the results of the narrow code, launched from a thread of 2 MiB.

use vecl::Context;

/// A straight run of `n` steps on two private values, each step with a
/// varying `if` (the shape of a random kernel of `vecl fuzz`).
fn huge_kernel(n: usize) -> String {
    let mut s = String::from(
        "__kernel void big(__global float *a, int k) {\n    int i = get_global_id(0);\n    float x = a[i], y = (float)i;\n",
    );
    for j in 1..n {
        s += &format!(
            "    x = x * 0.{}f + y; y = y * 0.5f + (float)(k ^ {j});\n    if (x > {}.0f) x = x - y * 0.25f;\n",
            5 + j % 4,
            j % 97
        );
    }
    s += "    a[i] = x + y;\n}\n";
    s
}

/// Builds the kernel at `width` and runs it over 256 items in groups of
/// 32 on a thread of 2 MiB of stack; its explanation and output.
fn run_at(source: &str, width: u32) -> (String, Vec<f32>) {
    let source = source.to_string();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let ctx = Context::new().expect("context");
            let program = ctx
                .program(&source)
                .simd_width(width)
                .build()
                .expect("build");
            let explain = program.explain("big").expect("explained").to_string();
            let k = program.kernel("big").expect("kernel");
            let queue = ctx.queue().expect("queue");
            let input: Vec<f32> = (0..256).map(|i| (i % 9) as f32 - 4.0).collect();
            let a = ctx.buffer_from(&input).expect("buffer");
            k.set_arg_buffer(0, &a).expect("arg 0");
            k.set_arg(1, 5i32).expect("arg 1");
            queue
                .launch(&k)
                .global(&[256])
                .local(&[32])
                .enqueue()
                .expect("enqueue")
                .wait()
                .expect("the launch");
            (explain, queue.read_vec(&a, &[]).expect("read"))
        })
        .expect("a thread")
        .join()
        .expect("the launching thread")
}

#[test]
fn a_huge_kernel_asked_for_at_w_32_builds_narrower_and_runs() {
    let source = huge_kernel(2000);
    let (_, want) = run_at(&source, 4);
    let (explain, got) = run_at(&source, 32);
    // W = 16 where the wide AVX-512 code takes it (its spill area fits),
    // else W = 8, the widest whose Cranelift code's frame fits.
    assert!(
        explain.contains("width: 16 instead of 32, whose code needs a stack frame of ")
            && explain.contains("code: wide AVX-512")
            || explain.contains("width: 8 instead of 32, whose code needs a stack frame of "),
        "{explain}"
    );
    assert_eq!(got, want);
}

//! A program's kernels compiled side by side (`vecl::kernel_builds`): each
//! kernel answers as it does built alone, a build that fails names the
//! same kernel (the first failing one in the source) with the same log,
//! and builds on several threads at once share the helpers.

use vecl::{Context, Error};

/// Kernel `k{i}`: `p[id] = id * i + i`, with `i` private floats for
/// kernels past the fifth (their private memory differs).
fn kernel_source(i: usize) -> String {
    if i < 5 {
        format!(
            "kernel void k{i}(global int *p) {{ size_t id = get_global_id(0); p[id] = (int)id * {i} + {i}; }}\n"
        )
    } else {
        format!(
            "kernel void k{i}(global int *p) {{
    size_t id = get_global_id(0);
    float t[{i}];
    for (int j = 0; j < {i}; j++) t[j] = (float)(j + id);
    p[id] = (int)id * {i} + {i} + (int)(t[{i} - 1] - t[{i} - 1]);
}}\n"
        )
    }
}

/// The report without its times, which differ between builds, and
/// without the source positions of its reasons (`at 3:11`), which differ
/// between a kernel built alone and among others.
fn without_times(report: &str) -> String {
    let words: Vec<&str> = report.split(' ').collect();
    let position = |w: &str| {
        let w = w.trim_end_matches([')', ',', ';']);
        w.split_once(':').is_some_and(|(l, c)| {
            !l.is_empty()
                && l.bytes().all(|b| b.is_ascii_digit())
                && c.bytes().all(|b| b.is_ascii_digit())
        })
    };
    words
        .iter()
        .enumerate()
        .filter(|&(i, w)| {
            let timed = |j: usize| words.get(j).is_some_and(|n| n.starts_with("ms"));
            let placed =
                |j: usize| *words[j] == *"at" && words.get(j + 1).is_some_and(|n| position(n));
            !(timed(i + 1)
                || (w.starts_with("ms") && i > 0 && words[i - 1].parse::<f64>().is_ok())
                || placed(i)
                || (i > 0 && placed(i - 1)))
        })
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a kernel answers: its report, its work-group info, its arguments.
fn answers(program: &vecl::Program, name: &str) -> (String, vecl::WorkGroupInfo, u32) {
    let kernel = program.kernel(name).expect("kernel");
    (
        without_times(program.explain(name).expect("explain")),
        kernel.work_group_info(),
        kernel.num_args(),
    )
}

fn run(ctx: &Context, program: &vecl::Program, i: usize) {
    let n = 100;
    let kernel = program.kernel(&format!("k{i}")).expect("kernel");
    let out = ctx.buffer::<i32>(n).expect("buffer");
    kernel.set_arg_buffer(0, &out).expect("arg");
    let queue = ctx.queue().expect("queue");
    queue.launch(&kernel).global(&[n]).run().expect("launch");
    let got = queue.read_vec(&out, &[]).expect("read");
    let i = i as i32;
    assert!(
        (0..n).all(|id| got[id] == id as i32 * i + i),
        "k{i}: {got:?}"
    );
}

#[test]
fn kernels_built_together_answer_as_each_built_alone() {
    let ctx = Context::new().expect("context");
    let count = 12;
    let source: String = (0..count).map(kernel_source).collect();
    let together = ctx.program(&source).build().expect("build");
    for i in 0..count {
        let name = format!("k{i}");
        let alone = ctx.program(&kernel_source(i)).build().expect("alone");
        assert_eq!(answers(&together, &name), answers(&alone, &name), "{name}");
        run(&ctx, &together, i);
    }
}

/// A kernel the front end accepts and the compiler refuses: its code at
/// the sub-group size it requires needs a stack frame past the limit.
fn refused(name: &str) -> String {
    let mut s = format!(
        "kernel __attribute__((intel_reqd_sub_group_size(32))) void {name}(global float *a, int k) {{
    int i = get_global_id(0);
    float x = a[i], y = (float)i;\n"
    );
    for j in 1..2000 {
        s += &format!(
            "    x = x * 0.{}f + y; y = y * 0.5f + (float)(k ^ {j});\n    if (x > {}.0f) x = x - y * 0.25f;\n",
            5 + j % 4,
            j % 97
        );
    }
    s + "    a[i] = x + y;\n}\n"
}

fn build_log(ctx: &Context, source: &str) -> String {
    match ctx.program(source).source_name("two.cl").build() {
        Err(Error::BuildProgramFailure { log }) => log,
        other => panic!("expected a build failure, got {:?}", other.err()),
    }
}

#[test]
fn a_failed_build_names_the_first_failing_kernel_in_the_source() {
    let ctx = Context::new().expect("context");
    // `zeta` fails first in the source and last by name; kernels that
    // compile come before, between and after.
    let mut source: String = (0..4).map(kernel_source).collect();
    source += &refused("zeta");
    source += &kernel_source(6);
    source += &refused("alpha");
    source += &kernel_source(7);
    let log = build_log(&ctx, &source);
    assert!(log.contains("zeta") && !log.contains("alpha"), "{log}");
    assert!(
        log.contains("kernel `zeta`: its machine code needs a stack frame"),
        "{log}"
    );
    // Alone: the same log.
    let alone = build_log(&ctx, &refused("zeta"));
    assert_eq!(alone, log);
}

#[test]
fn builds_on_several_threads_at_once() {
    let ctx = Context::new().expect("context");
    let source: String = (0..6).map(kernel_source).collect();
    let bad = format!(
        "{}kernel void late(global int *p) {{ p[0] = undeclared; }}\n",
        source
    );
    std::thread::scope(|s| {
        for t in 0..4 {
            let (ctx, source, bad) = (ctx.clone(), source.clone(), bad.clone());
            s.spawn(move || {
                for round in 0..3 {
                    if (t + round) % 2 == 0 {
                        let program = ctx.program(&source).build().expect("build");
                        run(&ctx, &program, (t + round) % 6);
                    } else {
                        let log = build_log(&ctx, &bad);
                        assert!(log.contains("late"), "{log}");
                    }
                }
            });
        }
    });
}

//! A `__local` tree reduction through the safe API in every safety mode
//! and at every SIMD width: the levels whose chunks lie wholly inside
//! `lid < s` run without the test (`docs/jit.md`, "Chunks inside the
//! range"), the others masked; the sums must match the host's in robust,
//! checked and unchecked modes, for groups of 1, 2, 24, 64, 100 and 256.

use vecl::{Context, Safety};

const WIDTHS: [Option<u32>; 5] = [Some(4), Some(8), Some(16), Some(32), None];

const TREE: &str = r#"
kernel void tree(global const int* in, global int* out, local int* t) {
    size_t lid = get_local_id(0);
    size_t n = get_local_size(0);
    t[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (lid < s) {
            t[lid] += t[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[lid];
}
"#;

/// The tree on the host: each group's `t` after the last level.
fn expected(input: &[i32], local: usize) -> Vec<i32> {
    let mut out = Vec::with_capacity(input.len());
    for group in input.chunks(local) {
        let mut t = group.to_vec();
        let mut s = local / 2;
        while s > 0 {
            for lid in 0..s {
                t[lid] += t[lid + s];
            }
            s >>= 1;
        }
        out.extend(t);
    }
    out
}

fn run(local: usize, width: Option<u32>, safety: Safety) -> Vec<i32> {
    let ctx = Context::new().expect("context");
    let mut builder = ctx.program(TREE);
    if let Some(w) = width {
        builder = builder.simd_width(w);
    }
    let builder = match safety {
        Safety::Checked => builder.checked(true),
        // SAFETY: every access of the kernel stays inside its buffers and
        // its `__local` argument of one int per work-item.
        Safety::Unchecked => unsafe { builder.unchecked() },
        _ => builder,
    };
    let program = builder.build().expect("build");
    let k = program.kernel("tree").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let items = 3 * local;
    let input: Vec<i32> = (0..items as i32).map(|i| (i * 7) % 23 - 11).collect();
    let inp = ctx.buffer_from(&input).expect("in");
    let out = ctx.buffer_from(&vec![0i32; items]).expect("out");
    k.set_arg_buffer(0, &inp).expect("arg 0");
    k.set_arg_buffer(1, &out).expect("arg 1");
    k.set_arg_local(2, 4 * local).expect("arg 2");
    queue
        .launch(&k)
        .global(&[items])
        .local(&[local])
        .enqueue()
        .expect("enqueue")
        .wait()
        .expect("wait");
    let got = queue.read_vec(&out, &[]).expect("read");
    assert_eq!(
        got,
        expected(&input, local),
        "groups of {local}, W = {width:?}, {safety:?}"
    );
    got
}

#[test]
fn tree_levels_in_every_mode_and_width() {
    for local in [1usize, 2, 24, 64, 100, 256] {
        for w in WIDTHS {
            for safety in [Safety::Unchecked, Safety::Robust, Safety::Checked] {
                run(local, w, safety);
            }
        }
    }
}

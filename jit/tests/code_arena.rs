//! The wide code's executable memory (`vecl_jit::wide::arena`): kernels
//! compiled and dropped on several threads at once, each run against the
//! interpreter while its neighbours come and go, their blocks given back
//! and taken again; then the same with the arena turned off (a mapping per
//! kernel, what a process without `memfd` gets). One test, so that no
//! other test of this binary moves the process's arena while it counts.

use vecl_jit::wide::arena;
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::{build, compare_launches, range_1d, Spec};

fn source(n: usize) -> String {
    format!(
        "kernel void k(global const int *in, global int *out, int bias) {{
    size_t g = get_global_id(0) - get_global_offset(0);
    out[g] = in[g] * {m} + ((int)get_global_id(0) & 1023) + bias;
}}",
        m = 3 + n % 17
    )
}

fn compile(n: usize) -> (vecl_ir::Module, CompiledKernel) {
    let m = build(&source(n), "");
    let opts = JitOptions {
        tiers: Tiers::QuickOnly,
        ..JitOptions::default()
    };
    let k = compile_kernel(&m, "k", &opts).unwrap();
    assert!(
        k.explain().contains("code: wide AVX-512"),
        "{}",
        k.explain()
    );
    (m, k)
}

fn run(m: &vecl_ir::Module, k: &CompiledKernel) {
    let ranges = [range_1d(0, 100, 4), range_1d(7, 333, 1)];
    compare_launches(m, "k", k, &ranges, |r| {
        let items = r.global_size[0] as usize;
        vec![Spec::Ints(items, 1), Spec::Ints(items, 0), Spec::Int(-4)]
    });
}

/// On each of `threads` threads, `rounds` kernels compiled, run, kept a
/// while (up to three alive per thread) and dropped.
fn churn(threads: usize, rounds: usize) {
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut alive = std::collections::VecDeque::new();
                for r in 0..rounds {
                    let (m, k) = compile(t * rounds + r);
                    run(&m, &k);
                    alive.push_back((m, k));
                    if alive.len() > (t + r) % 3 {
                        let (m, k) = alive.pop_front().unwrap();
                        // Still right after others were placed and freed.
                        run(&m, &k);
                    }
                }
            });
        }
    });
}

#[test]
fn kernels_made_and_dropped_on_threads_share_the_arena_and_run_right() {
    if !vecl_jit::wide::select::cpu_supported() {
        eprintln!("skipped: this CPU has no AVX-512F and BMI2 (no wide code)");
        return;
    }
    let before = arena::global().stats();
    let (m, k) = compile(0);
    let held = arena::global().stats();
    if held.failed {
        eprintln!("this process has no code arena (no memfd): mappings of their own");
    } else {
        assert!(held.used > before.used, "{before:?} {held:?}");
    }
    drop(k);
    assert_eq!(arena::global().stats().used, before.used);

    churn(4, 30);
    let after = arena::global().stats();
    assert_eq!(after.used, before.used, "every block given back");
    // The blocks freed were taken again: a few kernels' code fits one slab.
    assert!(after.slabs <= 1, "{after:?}");

    // A kernel placed again after 120 others came and went still runs.
    let (m2, k2) = compile(1);
    run(&m, &compile(0).1);
    run(&m2, &k2);
    drop(k2);

    // Turned off: each kernel's code a mapping of its own, none in the arena.
    arena::set_enabled(false);
    let (m3, k3) = compile(2);
    assert_eq!(arena::global().stats().used, before.used);
    run(&m3, &k3);
    churn(2, 10);
    drop(k3);
    arena::set_enabled(true);
    assert_eq!(arena::global().stats().used, before.used);
}

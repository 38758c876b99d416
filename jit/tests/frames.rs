//! Stack frames of huge kernels (`jit/src/frame.rs`): the quick tier's
//! single-pass register allocator gives every spilled value a slot of its
//! own, so a kernel of tens of thousands of instructions at W = 32 gets a
//! frame of megabytes, which overflowed a thread's 2 MiB stack (the
//! runtime's queue thread aborted with "has overflowed its stack"). Such a
//! kernel is compiled narrower until its frame fits the limit, and runs on
//! a 2 MiB thread with the results of the narrow code.

use vecl_ir::interp::NdRange;
use vecl_jit::abi::KernelStatus;
use vecl_jit::{
    compile_kernel, CompiledKernel, FinalCode, JitOptions, Tiers, MAX_FRAME_BYTES,
    OPTIMISED_MAX_CLIF,
};
use vecl_testkit::differential::{build, code_line, cpu_has_wide, interp_args_for, run_jit, Spec};
use vecl_testkit::range_1d;

/// A straight run of `n` steps on two private values, each step with a
/// varying `if`: thousands of values live across blocks, one at a time.
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

/// The kernel's quick Cranelift code at width `w` (the wide AVX-512 code
/// off: its frame is its spill area, tested below).
fn quick_at(m: &vecl_ir::Module, w: u32) -> CompiledKernel {
    quick_with(m, w, false)
}

fn quick_with(m: &vecl_ir::Module, w: u32, wide: bool) -> CompiledKernel {
    let opts = JitOptions {
        simd_width: Some(w),
        tiers: Tiers::QuickOnly,
        wide,
        ..JitOptions::default()
    };
    compile_kernel(m, "big", &opts).unwrap_or_else(|e| panic!("W = {w}: {e}"))
}

/// Runs `k` over 64 items on a thread of 2 MiB of stack (Rust's default
/// for spawned threads).
fn run_on_small_stack(k: CompiledKernel, range: NdRange) -> (u32, Vec<Vec<u8>>) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let args = interp_args_for(&[Spec::Floats(64, 3), Spec::Int(5)]);
            run_jit(&k, &args, &range)
        })
        .expect("a thread")
        .join()
        .expect("the kernel's thread")
}

#[test]
fn a_huge_kernel_at_w_32_is_compiled_narrower_and_runs_on_a_2_mib_stack() {
    let m = build(&huge_kernel(2000), "");
    let narrow = quick_at(&m, 4);
    assert!(
        narrow.frame_bytes() <= MAX_FRAME_BYTES,
        "{}",
        narrow.frame_bytes()
    );
    let want = run_on_small_stack(narrow, range_1d(0, 64, 32));
    assert_eq!(want.0, 0);
    let k = quick_at(&m, 32);
    let e = k.explain().to_string();
    // Its code at W = 32 needs about 2.7 MB of frame, at W = 16 about
    // 1.1 MB: W = 8 is the widest that fits.
    assert_eq!(k.simd_width(), 8, "{e}");
    assert!(
        e.contains("width: 8 instead of 32, whose code needs a stack frame of "),
        "{e}"
    );
    assert!(k.frame_bytes() <= MAX_FRAME_BYTES, "{}", k.frame_bytes());
    assert!(k.frame_bytes() > MAX_FRAME_BYTES / 4, "{}", k.frame_bytes());
    let got = run_on_small_stack(k, range_1d(0, 64, 32));
    assert_eq!(got, want);
}

/// With the wide AVX-512 code allowed, the narrower width is the first
/// whose code fits: at W = 16 the wide code's spill area does (where the
/// CPU has the wide code), and its results are the narrow code's.
#[test]
fn a_huge_kernel_at_w_32_may_take_the_wide_code_at_w_16() {
    let m = build(&huge_kernel(2000), "");
    let want = run_on_small_stack(quick_at(&m, 4), range_1d(0, 64, 32));
    let k = quick_with(&m, 32, true);
    let e = k.explain().to_string();
    let w = k.simd_width();
    assert!(w == 16 || w == 8, "{e}");
    assert!(
        e.contains(&format!(
            "width: {w} instead of 32, whose code needs a stack frame of "
        )),
        "{e}"
    );
    assert_eq!(w == 16, e.contains("code: wide AVX-512"), "{e}");
    assert!(k.frame_bytes() <= MAX_FRAME_BYTES, "{}", k.frame_bytes());
    let got = run_on_small_stack(k, range_1d(0, 64, 32));
    assert_eq!(got, want);
}

#[test]
fn a_kernel_that_requires_its_sub_group_size_is_refused_when_its_frame_is_too_large() {
    let src = huge_kernel(2000).replacen(
        "__kernel void big",
        "__kernel __attribute__((intel_reqd_sub_group_size(32))) void big",
        1,
    );
    let m = build(&src, "");
    let opts = JitOptions {
        tiers: Tiers::QuickOnly,
        ..JitOptions::default()
    };
    let e = compile_kernel(&m, "big", &opts).expect_err("a frame of megabytes");
    let message = e.to_string();
    assert!(
        message.contains("kernel `big`: its machine code needs a stack frame of ")
            && message.contains(&format!("more than the {MAX_FRAME_BYTES} bytes")),
        "{message}"
    );
}

/// The wide code at W = 16 has a spill area that fits, but the kernel's
/// Cranelift code at W = 16, its fallback for launches whose ids pass 31
/// bits, needs about 1.1 MB of frame: compiled at the first such launch,
/// it is refused at that width (no narrower copy, which could not run the
/// kernel's launches, is compiled) and the launch stops with
/// `KernelStatus::NoCode`, touching nothing; launches the wide code
/// numbers run as before.
#[test]
fn a_deferred_fallback_past_the_frame_limit_stops_its_launch_with_no_code() {
    if !cpu_has_wide() {
        return;
    }
    let m = build(&huge_kernel(2000), "");
    let k = quick_with(&m, 16, true);
    let line = code_line(&k);
    assert!(line.starts_with("code: wide AVX-512"), "{line}");
    assert!(
        k.explain().contains("not compiled yet: the wide code runs"),
        "{}",
        k.explain()
    );
    let want = run_on_small_stack(quick_at(&m, 4), range_1d(0, 64, 32));
    let far = NdRange {
        work_dim: 1,
        global_offset: [i32::MAX as u64 - 8, 0, 0],
        global_size: [64, 1, 1],
        local_size: [32, 1, 1],
    };
    let args = interp_args_for(&[Spec::Floats(64, 3), Spec::Int(5)]);
    let (status, bufs) = run_jit(&k, &args, &far);
    assert_eq!(status, KernelStatus::NoCode as u32);
    let vecl_ir::interp::KernelArg::Buffer(a) = &args[0] else {
        unreachable!()
    };
    assert_eq!(&bufs[0], a, "nothing written");
    // The launches the wide code runs are unchanged.
    let got = run_on_small_stack(k, range_1d(0, 64, 32));
    assert_eq!(got, want);
}

/// The number in `--explain`'s line "compiled N CLIF instructions".
fn clif_of(k: &CompiledKernel) -> usize {
    let e = k.explain();
    e.lines()
        .find_map(|l| l.strip_prefix("compiled "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{e}"))
}

/// A kernel whose optimised code would be past `OPTIMISED_MAX_CLIF` is
/// compiled in the quick tier, with the results of the optimised code of a
/// smaller width; one below stays in the optimised tier.
#[test]
fn a_kernel_past_the_optimised_tiers_size_keeps_the_quick_tier() {
    let m = build(&huge_kernel(2000), "");
    let opts = |w: u32| JitOptions {
        simd_width: Some(w),
        tiers: Tiers::OptimisedOnly,
        wide: false,
        ..JitOptions::default()
    };
    let k = compile_kernel(&m, "big", &opts(8)).expect("compiles");
    let e = k.explain().to_string();
    assert!(
        e.contains(&format!(
            "CLIF instructions, more than the {OPTIMISED_MAX_CLIF} the optimised tier's register allocator takes"
        )),
        "{e}"
    );
    assert!(e.contains("(quick tier"), "{e}");
    assert_eq!(k.final_code(), FinalCode::QuickKept);
    assert_eq!(k.simd_width(), 8);
    let want = run_on_small_stack(quick_at(&m, 4), range_1d(0, 64, 32));
    let got = run_on_small_stack(k, range_1d(0, 64, 32));
    assert_eq!(got, want);
    // Below the cap: the optimised tier.
    let small = build(&huge_kernel(40), "");
    let k = compile_kernel(&small, "big", &opts(8)).expect("compiles");
    assert!(clif_of(&k) < OPTIMISED_MAX_CLIF, "{}", k.explain());
    assert!(matches!(k.final_code(), FinalCode::Optimised(_)));
    assert!(!k.explain().contains("not optimised"), "{}", k.explain());
}

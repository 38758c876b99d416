//! A kernel that gets the wide AVX-512 code compiles its Cranelift code —
//! the fallback for launches whose ids exceed 31 bits — only when such a
//! launch comes (`CompiledKernel::prepare`): the build reports it lowered,
//! not compiled, and a launch past 31 bits after ordinary launches, then
//! ordinary launches again, all match the interpreter.

use vecl_testkit::{build, compare_launches, compile, range_1d, Spec};

const SRC: &str = "kernel void k(global const int *in, global int *out, int bias) {
    size_t g = get_global_id(0) - get_global_offset(0);
    out[g] = in[g] * 3 + ((int)get_global_id(0) & 1023) + bias;
}";

#[test]
fn a_launch_past_31_bits_after_ordinary_ones_runs_the_fallback_compiled_then() {
    if !vecl_jit::wide::select::cpu_supported() {
        eprintln!("skipped: this CPU has no AVX-512F and BMI2 (no wide code)");
        return;
    }
    let m = build(SRC, "");
    let k = compile(&m, "k", 16);
    let e = k.explain();
    assert!(e.contains("code: wide AVX-512"), "{e}");
    assert!(
        e.lines()
            .any(|l| l.starts_with("lowered ") && l.contains("not compiled yet")),
        "the Cranelift code is compiled at build time:\n{e}"
    );
    let past = (1u64 << 31) - 8;
    let ranges = [
        range_1d(0, 256, 16),
        range_1d(5, 100, 20),
        // Ids up to 2^31 + 56: the wide code cannot number them.
        range_1d(past, 64, 16),
        range_1d((1u64 << 32) - 48, 48, 16),
        range_1d(0, 256, 16),
    ];
    let n = compare_launches(&m, "k", &k, &ranges, |r| {
        let items = r.global_size[0] as usize;
        vec![Spec::Ints(items, 3), Spec::Ints(items, 0), Spec::Int(7)]
    });
    assert_eq!(n, ranges.len());
}

#[test]
fn a_first_launch_past_31_bits_compiles_the_fallback_at_once() {
    if !vecl_jit::wide::select::cpu_supported() {
        eprintln!("skipped: this CPU has no AVX-512F and BMI2 (no wide code)");
        return;
    }
    let m = build(SRC, "");
    let k = compile(&m, "k", 16);
    let ranges = [
        range_1d(u64::from(u32::MAX) - 31, 32, 16),
        range_1d(0, 64, 16),
    ];
    compare_launches(&m, "k", &k, &ranges, |r| {
        let items = r.global_size[0] as usize;
        vec![Spec::Ints(items, 1), Spec::Ints(items, 0), Spec::Int(-4)]
    });
}

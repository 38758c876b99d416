//! A kernel without barriers that gets the wide AVX-512 code is not
//! lowered to CLIF at build (`JitOptions::lazy_lowering`): its build
//! answers from its private layout, and its report is made by a compile
//! that lowers it, at the report's first request. Against the same
//! kernels built with every kernel lowered at build: the same errors, the
//! same answers to what the runtime asks (private memory, context sizes,
//! argument layout) and the same report (its times aside), over the
//! corpus and at the edges — two threads asking for the report at once, a
//! kernel dropped without it, a launch that needs the Cranelift code
//! before and after the report.

use std::sync::Arc;
use vecl_clc::corpus;
use vecl_jit::{compile_kernel, CompiledKernel, JitError, JitOptions, Tiers};
use vecl_testkit::corpus::opencl_c_programs;
use vecl_testkit::{build, compare_launches, range_1d, Spec};

fn opts(lazy: bool, checked: bool, local_checks: bool) -> JitOptions {
    JitOptions {
        lazy_lowering: lazy,
        checked,
        local_checks,
        tiers: Tiers::QuickOnly,
        ..JitOptions::default()
    }
}

/// The report with its times (`… 0.071 ms`) taken out.
fn without_times(report: &str) -> String {
    report
        .split(' ')
        .map(|word| {
            let number = word.trim_end_matches([',', ';', ')']);
            match number.parse::<f64>() {
                Ok(_) if number.contains('.') => "T",
                _ => word,
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the runtime asks of a compiled kernel, and its report.
fn answers(k: &CompiledKernel) -> (String, u32, [usize; 3], usize, Option<usize>, u32) {
    (
        without_times(k.explain()),
        k.private_mem_size(),
        [k.context_size(1), k.context_size(64), k.context_size(1024)],
        k.args_size(),
        k.checked_tail(),
        k.simd_width(),
    )
}

fn outcome(
    r: &Result<CompiledKernel, JitError>,
) -> Result<impl PartialEq + std::fmt::Debug, String> {
    match r {
        Ok(k) => Ok(answers(k)),
        Err(e) => Err(e.to_string()),
    }
}

fn wide() -> bool {
    let on = vecl_jit::wide::select::cpu_supported();
    if !on {
        eprintln!("skipped: this CPU has no AVX-512F and BMI2 (no wide code)");
    }
    on
}

#[test]
fn the_corpus_gives_the_same_errors_answers_and_reports_lowered_late() {
    if !wide() {
        return;
    }
    let (mut kernels, mut lazy_wide) = (0, 0);
    for path in opencl_c_programs() {
        let source = std::fs::read_to_string(&path).unwrap();
        let Ok(case) = corpus::parse(&source) else {
            continue;
        };
        let Ok(built) = vecl_clc::build(&source, &case.options) else {
            continue;
        };
        let m = built.module;
        let names: Vec<String> = m.kernels().map(|(_, f)| f.name.clone()).collect();
        for name in &names {
            for (checked, local) in [(false, false), (true, false), (true, true)] {
                let lazy = compile_kernel(&m, name, &opts(true, checked, local));
                let eager = compile_kernel(&m, name, &opts(false, checked, local));
                kernels += 1;
                if let Ok(k) = &lazy {
                    // Not lowered at build: no CLIF count until the report.
                    lazy_wide += usize::from(k.explain().contains("code: wide AVX-512"));
                }
                assert_eq!(
                    outcome(&lazy),
                    outcome(&eager),
                    "{} kernel {name} (checked {checked}, local checks {local})",
                    path.display()
                );
            }
        }
    }
    assert!(kernels > 300, "{kernels} kernel builds compared");
    assert!(lazy_wide > 50, "{lazy_wide} builds got the wide code");
}

const SRC: &str = "kernel void k(global const int *in, global int *out, int bias) {
    size_t g = get_global_id(0) - get_global_offset(0);
    out[g] = in[g] * 3 + ((int)get_global_id(0) & 1023) + bias;
}";

#[test]
fn two_threads_asking_for_the_report_at_once_get_the_same_one() {
    if !wide() {
        return;
    }
    let m = build(SRC, "");
    let k = Arc::new(compile_kernel(&m, "k", &opts(true, false, false)).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let k = k.clone();
            std::thread::spawn(move || k.explain().to_string())
        })
        .collect();
    let reports: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(reports.iter().all(|r| r == &reports[0]), "{reports:?}");
    assert!(reports[0].contains("code: wide AVX-512"), "{}", reports[0]);
    assert!(
        reports[0]
            .lines()
            .any(|l| l.starts_with("lowered ") && l.contains("not compiled yet")),
        "{}",
        reports[0]
    );
    // The same text each time: made once.
    assert!(std::ptr::eq(k.explain(), k.explain()));
}

#[test]
fn a_kernel_dropped_before_its_report_frees_what_it_holds() {
    if !wide() {
        return;
    }
    let m = build(SRC, "");
    for _ in 0..50 {
        let k = compile_kernel(&m, "k", &opts(true, false, false)).unwrap();
        assert_eq!(k.private_mem_size(), 0);
        drop(k);
    }
}

#[test]
fn a_launch_past_31_bits_before_the_report_compiles_the_cranelift_code_then() {
    if !wide() {
        return;
    }
    let m = build(SRC, "");
    let k = compile_kernel(&m, "k", &opts(true, false, false)).unwrap();
    let ranges = [
        range_1d(0, 256, 16),
        // Ids past 2^31: the wide code cannot number them.
        range_1d(u64::from(u32::MAX) - 31, 32, 16),
        range_1d(5, 100, 20),
    ];
    compare_launches(&m, "k", &k, &ranges, |r| {
        let items = r.global_size[0] as usize;
        vec![Spec::Ints(items, 1), Spec::Ints(items, 0), Spec::Int(-4)]
    });
    let eager = compile_kernel(&m, "k", &opts(false, false, false)).unwrap();
    assert_eq!(answers(&k), answers(&eager));
}

#[test]
fn too_much_private_memory_is_the_same_build_error_lowered_late() {
    // 160 MB of private memory per work-item: past 1 GiB for a chunk.
    let src = "kernel void big(global float *out, int n) {
        float p[40000000];
        size_t i = get_global_id(0);
        for (int j = 0; j < n; j++) p[(j * 7) & 0xffffff] = (float)(i + j);
        out[i] = p[n & 0xffffff];
    }";
    let m = build(src, "");
    let at_16 = |lazy| JitOptions {
        simd_width: Some(16),
        ..opts(lazy, false, false)
    };
    let lazy = compile_kernel(&m, "big", &at_16(true));
    let eager = compile_kernel(&m, "big", &at_16(false));
    let e = lazy.as_ref().err().map(ToString::to_string);
    assert!(
        e.as_deref().is_some_and(|e| e.contains("private memory")),
        "{e:?}"
    );
    assert_eq!(outcome(&lazy), outcome(&eager));
}

#[test]
fn private_memory_past_the_stack_is_counted_the_same_lowered_late() {
    // 128 KiB per chunk of 16 (8 KiB a work-item): kept in the context
    // area, which the runtime sizes from the kernel's answers.
    let src = "kernel void arr(global float *out, int n) {
        float p[2048];
        size_t i = get_global_id(0);
        for (int j = 0; j < 2048; j++) p[j] = (float)(i + j);
        out[i] = p[n & 2047];
    }";
    let m = build(src, "");
    let at_16 = |lazy| JitOptions {
        simd_width: Some(16),
        ..opts(lazy, false, false)
    };
    let lazy = compile_kernel(&m, "arr", &at_16(true)).unwrap();
    let eager = compile_kernel(&m, "arr", &at_16(false)).unwrap();
    assert!(
        lazy.private_mem_size() >= 8192,
        "{}",
        lazy.private_mem_size()
    );
    assert_eq!(answers(&lazy), answers(&eager));
}

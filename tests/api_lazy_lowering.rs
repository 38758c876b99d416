//! A kernel the wide code takes is not lowered to CLIF at build
//! (`VECL_LAZY_LOWERING`, on by default): through the `vecl` command and
//! the Rust API, the build logs, the reports and the kernel queries are
//! those of a build that lowers every kernel, and the results are right.

use std::process::Command;
use vecl::{Context, Mem, MemFlags, NdRange};

const VADD: &str =
    "kernel void vadd(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
kernel void unused(global int *p) { p[0] = 7; }
";

/// Too much private memory at 16 lanes: a build error from the JIT.
const BIG: &str = "kernel void big(global float *out, int n) {
    float p[40000000];
    size_t i = get_global_id(0);
    for (int j = 0; j < n; j++) p[(j * 7) & 0xffffff] = (float)(i + j);
    out[i] = p[n & 0xffffff];
}
";

/// `vecl ARGS` with `VECL_LAZY_LOWERING=lazy`: success, stdout, stderr.
fn vecl(args: &[&str], lazy: &str) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vecl"))
        .args(args)
        .env("VECL_LAZY_LOWERING", lazy)
        .env("VECL_SIMD_WIDTH", "16")
        .output()
        .expect("run vecl");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `text`'s words, each decimal number (a time) replaced by `T` (the
/// columns' padding differs with the times' digits).
fn without_times(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|word| {
            let number = word.trim_end_matches([',', ';', ')']);
            if number.contains('.') && number.parse::<f64>().is_ok() {
                word.replacen(number, "T", 1)
            } else {
                word.to_string()
            }
        })
        .collect()
}

#[test]
fn a_build_error_has_the_same_log_lowered_late_or_at_build() {
    let dir = std::env::temp_dir().join(format!("vecl-lazy-lowering-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.cl");
    std::fs::write(&file, BIG).unwrap();
    let args = [
        "run",
        "--kernel",
        "big",
        "--global",
        "64",
        "--args",
        "out=64,n=5",
        "--unchecked",
        file.to_str().unwrap(),
    ];
    let lazy = vecl(&args, "1");
    let eager = vecl(&args, "0");
    assert!(!lazy.0, "{lazy:?}");
    assert!(lazy.2.contains("bytes of private memory"), "{}", lazy.2);
    assert_eq!(lazy, eager);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_corpus_gives_the_same_reports_lowered_late_or_at_build() {
    let dir = std::env::temp_dir().join(format!("vecl-lazy-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vadd.cl"), VADD).unwrap();
    std::fs::write(dir.join("big.cl"), BIG).unwrap();
    let args = ["explain-corpus", dir.to_str().unwrap(), "--reps", "1"];
    let lazy = vecl(&args, "1");
    let eager = vecl(&args, "0");
    assert_eq!(lazy.0, eager.0);
    // The summary's compile-time line and its aims ("median < 2 ms met",
    // "0 over 20 ms") follow the machine's load, not the lowering: the
    // reports are compared up to it, and both must have it.
    let before_timing = |text: &str| -> Vec<String> {
        let cut = text.find("compile time (").unwrap_or_else(|| {
            panic!("no compile-time line in the summary:\n{text}");
        });
        without_times(&text[..cut])
    };
    assert_eq!(before_timing(&lazy.1), before_timing(&eager.1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_program_answers_and_reports_the_same_and_runs_right() {
    let ctx = Context::new().unwrap();
    let program = ctx.program(VADD).build().unwrap();
    let report = program.explain("vadd").unwrap_or_default().to_string();
    assert!(report.starts_with("kernel vadd:"), "{report}");
    if vecl_jit::wide::select::cpu_supported() {
        assert!(report.contains("code: wide AVX-512"), "{report}");
        assert!(
            report
                .lines()
                .any(|l| l.starts_with("lowered ") && l.contains("not compiled yet")),
            "{report}"
        );
    }
    // Asked twice: the same text, made once.
    assert!(std::ptr::eq(
        program.explain("vadd").unwrap(),
        program.explain("vadd").unwrap()
    ));
    let kernel = program.kernel("vadd").unwrap();
    let info = kernel.work_group_info();
    assert_eq!(info.private_mem_size, 0);
    let n = 1usize << 12;
    let a: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let b: Vec<u8> = (0..n)
        .flat_map(|i| (2.0 * i as f32).to_le_bytes())
        .collect();
    let ma = Mem::from_bytes(MemFlags::READ_ONLY, &a).unwrap();
    let mb = Mem::from_bytes(MemFlags::READ_ONLY, &b).unwrap();
    let mc = Mem::new(MemFlags::READ_WRITE, 4 * n as u64).unwrap();
    kernel.set_arg_mem(0, Some(&ma)).unwrap();
    kernel.set_arg_mem(1, Some(&mb)).unwrap();
    kernel.set_arg_mem(2, Some(&mc)).unwrap();
    let queue = ctx.queue().unwrap();
    let event = kernel
        .enqueue(queue.raw(), &NdRange::linear(n as u64), &[])
        .unwrap();
    event.wait().unwrap();
    let mut out = vec![0u8; 4 * n];
    // SAFETY: a blocking read into a vector of the buffer's size.
    unsafe {
        queue
            .raw()
            .enqueue_read(&mc, 0, mc.size(), out.as_mut_ptr(), true, &[])
            .unwrap();
    }
    for (i, c) in out.chunks_exact(4).enumerate() {
        assert_eq!(f32::from_le_bytes([c[0], c[1], c[2], c[3]]), 3.0 * i as f32);
    }
    // A kernel released before its report: the program still has it.
    drop(kernel);
    let other = program.explain("unused").unwrap_or_default();
    assert!(other.starts_with("kernel unused:"), "{other}");
}

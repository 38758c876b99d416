//! No input makes the front end panic: every corpus program, truncated at
//! many points and mutated byte by byte (deterministically), builds or fails
//! with diagnostics, and what builds passes the IR verifier.

use std::path::PathBuf;

fn corpus() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// Builds `src` on its own thread so that a front end which never finishes
/// fails the test with the input named, instead of hanging it.
fn build_must_not_panic(src: &str) {
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = src.to_owned();
    std::thread::spawn(move || {
        build_verified(&owned);
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(20)) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("the front end did not finish within 20 s on:\n{src}")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("the front end panicked on:\n{src}")
        }
    }
}

fn build_checked(src: &str) {
    let r = std::panic::catch_unwind(|| {
        if let Err(vecl_clc::BuildError::Failed { log }) = vecl_clc::build(src, "") {
            assert!(
                log.contains("error"),
                "a failed build explains itself:\n{log}"
            );
            assert!(
                !log.contains("internal compiler error"),
                "the front end panicked on:\n{src}"
            );
        }
    });
    assert!(r.is_ok(), "the front end panicked on:\n{src}");
}

/// Like `build_checked`, and a module that builds must pass the IR verifier.
fn build_verified(src: &str) {
    build_checked(src);
    let r = std::panic::catch_unwind(|| {
        if let Ok(built) = vecl_clc::build(src, "") {
            if let Err(e) = vecl_ir::verify::verify_module(&built.module) {
                panic!(
                    "the verifier rejects the module built from:\n{src}\n{}",
                    vecl_ir::verify::format_errors(&e)
                );
            }
        }
    });
    assert!(r.is_ok(), "the front end panicked on:\n{src}");
}

#[test]
fn truncated_programs_never_panic() {
    for src in corpus() {
        let bytes = src.as_bytes();
        let step = (bytes.len() / 40).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            if src.is_char_boundary(cut) {
                build_must_not_panic(&src[..cut]);
            }
        }
    }
}

#[test]
fn mutated_programs_never_panic() {
    const ALPHABET: &[u8] = b"(){}[];,.+-*/%<>=!&|^~?:#\"' \n0123456789abcxyzfuL_";
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for src in corpus() {
        for _ in 0..40 {
            let mut b = src.clone().into_bytes();
            for _ in 0..1 + next() % 3 {
                let at = (next() % b.len() as u64) as usize;
                let c = ALPHABET[(next() % ALPHABET.len() as u64) as usize];
                match next() % 3 {
                    0 => b[at] = c,
                    1 => b.insert(at, c),
                    _ => {
                        b.remove(at);
                    }
                }
            }
            if let Ok(s) = String::from_utf8(b) {
                build_must_not_panic(&s);
            }
        }
    }
}

#[test]
fn designated_struct_members_given_a_non_struct_value_are_an_error() {
    let src = "typedef struct { float a; float b; } A;\n\
               struct P { A f; int t; };\n\
               kernel void k(A af, global float *o) {\n\
               struct P x = { .f = +af, .t = 1 };\n\
               o[0] = x.t; }";
    build_must_not_panic(src);
    assert!(vecl_clc::build(src, "").is_err());
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!(
        "kernel void k(global int *a) {{ a[0] = {}1{}; }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let log = match vecl_clc::build(&deep, "") {
        Err(vecl_clc::BuildError::Failed { log }) => log,
        other => panic!("{other:?}"),
    };
    assert!(log.contains("nested too deeply"), "{log}");
    let blocks = format!(
        "kernel void k(global int *a) {{ {} a[0] = 1; {} }}",
        "{".repeat(5000),
        "}".repeat(5000)
    );
    assert!(vecl_clc::build(&blocks, "").is_err());
    let unary = format!(
        "kernel void k(global int *a) {{ a[0] = {}1; }}",
        "-".repeat(5000)
    );
    assert!(vecl_clc::build(&unary, "").is_err());
    let pp = format!(
        "#if {}1{}\n#endif\nkernel void k(global int *a) {{ }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(vecl_clc::build(&pp, "").is_err());
}

/// Inputs the fuzzer (`fuzz/`, target `clc_build`) found, kept as files.
#[test]
fn fuzzer_findings_build_or_fail_cleanly() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/fuzz_regressions exists") {
        let path = entry.expect("readable directory").path();
        let src = std::fs::read_to_string(&path).expect("UTF-8 input");
        build_verified(&src);
        n += 1;
    }
    assert!(n >= 1);
}

#[test]
fn code_before_the_first_case_label_is_kept_but_never_runs() {
    use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
    let src = "kernel void k(global int *a) {
            int k = 1, m = 1;
            switch (a[0]) { skip: k = 0; break; case 0: k = 2; case 1: k += 3; }
            switch (a[0]) { m = 7; }
            a[1] = k; a[2] = m;
        }";
    build_verified(src);
    let built = vecl_clc::build(src, "").expect("builds");
    assert!(built.log.contains("never executed"), "{}", built.log);
    for (sel, want) in [(0i32, 5), (1, 4), (2, 1)] {
        let mut bytes = vec![0u8; 12];
        bytes[..4].copy_from_slice(&sel.to_le_bytes());
        let mut args = [KernelArg::Buffer(bytes)];
        run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).expect("runs");
        let KernelArg::Buffer(b) = &args[0] else {
            unreachable!()
        };
        let k = i32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        let m = i32::from_le_bytes([b[8], b[9], b[10], b[11]]);
        assert_eq!((k, m), (want, 1), "selector {sel}");
    }
}

//! `vecl explain-corpus DIR` on a small directory written here: one kernel
//! the JIT vectorises with consecutive accesses, one with a gather and a
//! scatter, one it refuses, and a file that does not build.

use std::process::Command;

const VADD: &str =
    "__kernel void vadd(__global const float *a, __global const float *b, __global float *c)
{ int i = get_global_id(0); c[i] = a[i] + b[i]; }
";

/// A data-dependent index: one consecutive load (`idx`), one gather, one
/// scatter. Needs its `@options` line to build.
const PERMUTE: &str = "// @options -DOFF=0
__kernel void permute(__global const int *in, __global const int *idx, __global int *out)
{ int i = get_global_id(0); int j = idx[i] + OFF; out[j] = in[j]; }
";

/// A work-item query the JIT has no lowering for (a dimension that
/// differs between work-items).
const REFUSED: &str = "__kernel void wg(__global int *a)
{ int i = get_global_id(0); a[i] = (int)get_local_id(a[i] & 1); }
";

const BROKEN: &str = "__kernel void broken(__global int *a) { a[0] = ; }\n";

fn explain(dir: &std::path::Path, extra: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vecl"))
        .arg("explain-corpus")
        .arg(dir)
        .args(extra)
        .output()
        .expect("run vecl");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The whitespace-separated fields of the line of `kernel`.
fn row<'a>(text: &'a str, kernel: &str) -> Vec<&'a str> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.get(1) == Some(&kernel))
        .unwrap_or_default()
}

#[test]
fn explain_corpus_reports_each_kernel_and_the_totals() {
    let dir = std::env::temp_dir().join(format!("vecl-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in [
        ("a_vadd.cl", VADD),
        ("b_permute.cl", PERMUTE),
        ("c_refused.cl", REFUSED),
        ("d_broken.cl", BROKEN),
        ("notes.txt", "not OpenCL C"),
    ] {
        std::fs::write(dir.join(name), text).expect("write");
    }
    let (ok, out, err) = explain(&dir, &["--width", "8", "--reps", "2"]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{err}");

    // file, kernel, W, vload, gather, vstore, scatter, ms
    let vadd = row(&out, "vadd");
    assert_eq!(
        vadd[..7],
        ["a_vadd.cl", "vadd", "8", "2", "0", "1", "0"],
        "{out}"
    );
    let ms: f64 = vadd[7].parse().expect("compile time");
    assert!(ms > 0.0 && ms < 10_000.0, "{out}");

    let permute = row(&out, "permute");
    assert_eq!(
        permute[..7],
        ["b_permute.cl", "permute", "8", "1", "1", "0", "1"],
        "{out}"
    );

    let refused = out.lines().find(|l| l.contains("wg")).unwrap_or("");
    assert!(refused.contains("not vectorised"), "{out}");
    assert!(refused.contains("dimension that differs"), "{out}");

    assert!(
        out.contains("d_broken.cl") && out.contains("build failed"),
        "{out}"
    );
    assert!(!out.contains("notes.txt"), "{out}");
    assert!(
        out.contains("kernels: 3, vectorised: 2 (66.7%), files that did not build: 1"),
        "{out}"
    );
    assert!(
        out.contains("compile time (front end + JIT, best of runs): median"),
        "{out}"
    );
    assert!(out.contains(">= 95% vectorised NOT met"), "{out}");
}

#[test]
fn explain_corpus_names_a_missing_directory() {
    let (ok, _, err) = explain(std::path::Path::new("/nonexistent/vecl-corpus"), &[]);
    assert!(!ok);
    assert!(err.contains("/nonexistent/vecl-corpus"), "{err}");
}

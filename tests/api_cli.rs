//! The `vecl` command: info, run and a quick bench, as a user runs them.

use std::process::Command;

fn vecl(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vecl"))
        .args(args)
        .output()
        .expect("run vecl");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn info_lists_the_device() {
    let (ok, out, _) = vecl(&["info"]);
    assert!(ok);
    assert!(out.contains("OpenCL 3.0 vecl"));
    assert!(out.contains("OpenCL C 1.2"));
    assert!(out.contains("Max work group size"));
}

/// `VECL_THREADS` sets the pool's size, which the device reports as its
/// compute units; a launch runs on it.
#[test]
fn vecl_threads_sets_the_compute_units() {
    let out = Command::new(env!("CARGO_BIN_EXE_vecl"))
        .arg("info")
        .env("VECL_THREADS", "3")
        .output()
        .expect("run vecl");
    let text = String::from_utf8_lossy(&out.stdout);
    let units = text
        .lines()
        .find(|l| l.contains("Max compute units"))
        .and_then(|l| l.split_whitespace().last())
        .map(str::to_string);
    assert_eq!(units.as_deref(), Some("3"), "{text}");
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/vadd.cl");
    let out = Command::new(env!("CARGO_BIN_EXE_vecl"))
        .args([
            "run", file, "--kernel", "vadd", "--global", "100000", "--reps", "1",
        ])
        .env("VECL_THREADS", "3")
        .output()
        .expect("run vecl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn run_prints_timing_and_a_reproducible_checksum() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/saxpy.cl");
    let args = [
        "run",
        file,
        "--kernel",
        "saxpy",
        "--global",
        "4096",
        "--args",
        "alpha=2.0",
        "--reps",
        "1",
    ];
    let (ok, first, err) = vecl(&args);
    assert!(ok, "{err}");
    assert!(first.contains("kernel saxpy"), "{first}");
    let checksum = |text: &str| {
        text.lines()
            .find(|l| l.contains("checksum"))
            .map(str::to_string)
    };
    assert!(checksum(&first).is_some(), "{first}");
    let (_, second, _) = vecl(&args);
    assert_eq!(checksum(&first), checksum(&second));
    let (ok, _, err) = vecl(&["run", file, "--kernel", "nope", "--global", "16"]);
    assert!(!ok);
    assert!(err.contains("nope"));
}

/// A 2-D launch with its local size, the vectorisation report and the
/// Kernel IR; a local size of other dimensions than the global one is an
/// error.
#[test]
fn run_two_dimensions_with_the_report_and_the_ir() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/matmul.cl");
    let run = |local: &str| {
        vecl(&[
            "run",
            file,
            "--kernel",
            "matmul",
            "--global",
            "64,64",
            "--local",
            local,
            "--args",
            "n=64",
            "--reps",
            "1",
            "--explain",
            "--dump-ir",
        ])
    };
    let (ok, out, err) = run("16,16");
    assert!(ok, "{err}");
    assert!(out.contains("kernel @matmul("), "the IR: {out}");
    assert!(
        out.contains("regions: 4 (cut at barriers"),
        "the report: {out}"
    );
    assert!(out.contains("arg 2 `c`: 16384 bytes, checksum"), "{out}");
    let (ok, _, err) = run("16,16,4");
    assert!(!ok);
    assert!(
        err.contains("--local has 3 dimension(s) and --global 2"),
        "{err}"
    );
}

#[test]
fn quick_bench_writes_a_verified_report() {
    let dir = std::env::temp_dir().join(format!("vecl-bench-{}", std::process::id()));
    let dir_text = dir.to_string_lossy().into_owned();
    let (ok, out, err) = vecl(&["bench", "--quick", "--only", "vadd", "--out", &dir_text]);
    assert!(ok, "{err}");
    assert!(out.contains("vadd"));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("report.json")).expect("report.json"),
    )
    .expect("json");
    let vecl_result = &json["benchmarks"][0]["results"][0];
    assert_eq!(vecl_result["platform"], "vecl");
    assert_eq!(vecl_result["verified"], true, "{vecl_result}");
    let svg = std::fs::read_to_string(dir.join("report.svg")).expect("report.svg");
    assert!(svg.starts_with("<svg"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run --explain` says which mapping of work-items to lanes a launch
/// used: lanes along dimension 1 for groups one work-item wide in
/// dimension 0, and other groups for a kernel blind to their shape.
#[test]
fn run_explain_names_the_launch_s_lane_mapping() {
    let dir = std::env::temp_dir().join(format!("vecl-cli-lanes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("k.cl");
    std::fs::write(
        &file,
        "kernel void by_rows(global float* a) {\n\
         \x20   a[get_global_id(1) * get_global_size(0) + get_global_id(0)] += get_local_id(1);\n\
         }\n\
         kernel void blind(global float* a) {\n\
         \x20   a[get_global_id(1) * get_global_size(0) + get_global_id(0)] *= 2.0f;\n\
         }\n",
    )
    .expect("write the kernel");
    let run = |kernel: &str, local: &str| {
        let (ok, out, err) = vecl(&[
            "run",
            file.to_str().expect("a UTF-8 path"),
            "--kernel",
            kernel,
            "--global",
            "64,64",
            "--local",
            local,
            "--reps",
            "1",
            "--explain",
        ]);
        assert!(ok, "{err}");
        out
    };
    let out = run("by_rows", "1,16");
    assert!(out.contains("lanes: chosen at launch"), "{out}");
    assert!(
        out.contains("launch: groups of 1x16x1; lanes along dimension 1"),
        "{out}"
    );
    let out = run("by_rows", "16,1");
    assert!(out.contains("lanes along dimension 0"), "{out}");
    let out = run("blind", "1,1");
    assert!(
        out.contains("groups of 1x1x1 run as 64x4x1 (the kernel cannot observe their shape); lanes along dimension 0"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn scratch_kernel(name: &str, source: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vecl-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let file = dir.join(format!("{name}.cl"));
    std::fs::write(&file, source).expect("write the kernel");
    file
}

/// Every malformed `--args` entry is an error that says what is wrong,
/// never ignored.
#[test]
fn run_refuses_bad_args() {
    let file = scratch_kernel(
        "badargs",
        "kernel void k(global float *out, local float *tmp, int n) {
            tmp[get_local_id(0)] = n;
            out[get_global_id(0)] = tmp[0];
        }",
    );
    let file = file.to_str().expect("utf-8 path");
    for (args, says) in [
        (
            "nope=3",
            "the kernel has no argument `nope` (its arguments: out, tmp, n)",
        ),
        ("out", "`out` is not NAME=VALUE"),
        (
            "out=many",
            "`out=many`: a buffer's value is its element count",
        ),
        (
            "tmp=many",
            "`tmp=many`: a __local argument's value is its element count",
        ),
        (
            "tmp=4611686018427387904",
            "`tmp=4611686018427387904`: too many elements",
        ),
        ("n=x", "`x` is not a valid int"),
    ] {
        let (ok, out, err) = vecl(&[
            "run", file, "--kernel", "k", "--global", "64", "--args", args,
        ]);
        assert!(!ok, "{args}: {out}");
        assert!(err.contains(says), "{args}: {err}");
    }
    let (ok, out, err) = vecl(&[
        "run",
        file,
        "--kernel",
        "k",
        "--global",
        "64",
        "--args",
        "out=64,n=3",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("arg 0 `out`: 256 bytes"), "{out}");
}

/// `--args NAME=COUNT` sizes a `__local` argument in elements: enough
/// runs, too few is an access outside it, reported by robust access.
#[test]
fn run_sizes_local_arguments_from_args() {
    let file = scratch_kernel(
        "localargs",
        "kernel void k(global float *out, local float *tmp) {
            int l = get_local_id(0);
            tmp[l] = l;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = tmp[get_local_size(0) - 1 - l];
        }",
    );
    let file = file.to_str().expect("utf-8 path");
    let run = |args: &str| {
        vecl(&[
            "run", file, "--kernel", "k", "--global", "64", "--local", "32", "--args", args,
        ])
    };
    let (ok, out, err) = run("tmp=32");
    assert!(ok, "{err}");
    assert!(out.contains("arg 0 `out`: 256 bytes"), "{out}");
    let (ok, _, err) = run("tmp=8");
    assert!(!ok, "8 elements for 32 work-items must fault");
    assert!(err.contains("out-of-bounds store"), "{err}");
    assert!(err.contains("`tmp`") || err.contains("__local"), "{err}");
}

/// The corpus launches of issue 30 whose generated inputs were smaller
/// than the kernel assumes end with a report naming the kernel, the work-item
/// and (for a buffer argument) the argument: robust access is `vecl run`'s
/// default. Nothing outside the run's memory is touched, so the process
/// exits normally.
#[test]
fn run_reports_accesses_past_the_generated_inputs() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/");
    let reduce = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/reduce.cl");
    let tiled = format!("{corpus}textbook_matmul_tiled.cl");
    let scan = format!("{corpus}textbook_scan_blelloch.cl");
    for (args, kernel, says) in [
        (
            vec![
                "run",
                &tiled,
                "--kernel",
                "matmul_tiled",
                "--global",
                "64,64",
            ],
            "matmul_tiled",
            "",
        ),
        (
            vec![
                "run",
                reduce,
                "--kernel",
                "reduce",
                "--global",
                "4096",
                "--args",
                "partial=4",
            ],
            "reduce",
            "past the end of argument 1, a buffer of 16 bytes",
        ),
    ] {
        let (ok, out, err) = vecl(&args);
        assert!(!ok, "{kernel}: {out}");
        assert!(
            err.contains(&format!("kernel `{kernel}` stopped: out-of-bounds")),
            "{err}"
        );
        assert!(err.contains("by work-item ("), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains("--args NAME=COUNT"), "{err}");
    }
    // The Blelloch scan reads `in[2 * lid + 1]` and keeps `t` at two
    // elements per work-item: its buffers are now sized for that, and it
    // runs.
    let (ok, out, err) = vecl(&["run", &scan, "--kernel", "scan", "--global", "512"]);
    assert!(ok, "{err}");
    assert!(out.contains("arg 1 `out`: 2048 bytes"), "{out}");
    assert!(
        out.contains("note: `t`: its indexing is not known before the run; assumed 512 elements"),
        "{out}"
    );
}

/// Buffers are sized for what the launch can address where the indexing
/// tells (two elements per work-item here; a counted loop's counter), and
/// `vecl run` says what it assumed where it does not (a counter counting
/// down).
#[test]
fn run_sizes_buffers_from_the_kernel_s_indexing() {
    let counted = scratch_kernel(
        "counted",
        "kernel void sums(global const int *in, global int *sum, int n) {
            int s = 0;
            for (int k = 0; k < n; k++)
                s += in[k];
            sum[get_global_id(0)] = s;
        }",
    );
    let counted = counted.to_str().expect("utf-8 path");
    let (ok, out, err) = vecl(&[
        "run", counted, "--kernel", "sums", "--global", "10", "--args", "n=100",
    ]);
    assert!(ok, "{err}");
    assert!(!out.contains("note: `in`"), "`in[k]` for k < 100: {out}");
    let file = scratch_kernel(
        "sizes",
        "kernel void pairs(global const int *in, global int *out, global int *sum, int n) {
            int i = get_global_id(0);
            out[2 * i] = in[2 * i + 1];
            out[2 * i + 1] = in[2 * i];
            int s = 0;
            for (int k = n - 1; k >= 0; k--)
                s += in[k];
            sum[i] = s;
        }",
    );
    let file = file.to_str().expect("utf-8 path");
    let (ok, out, err) = vecl(&[
        "run", file, "--kernel", "pairs", "--global", "100", "--args", "n=100",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("arg 1 `out`: 800 bytes"), "{out}");
    assert!(out.contains("arg 2 `sum`: 400 bytes"), "{out}");
    assert!(
        out.contains("note: `in`: its indexing is not known before the run; assumed 200 elements; give another count with --args in=COUNT"),
        "{out}"
    );
    // `in` holds 200 elements (`in[2 * i + 1]`): `in[k]` up to 200 is one
    // too far, stopped and named.
    let (ok, _, err) = vecl(&[
        "run", file, "--kernel", "pairs", "--global", "100", "--args", "n=201",
    ]);
    assert!(!ok);
    assert!(
        err.contains("4 bytes past the end of argument 0, a buffer of 800 bytes"),
        "{err}"
    );
    // Without the checks (`--unchecked`) a sound launch gives the same
    // bytes.
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run", file, "--kernel", "pairs", "--global", "100", "--args", "n=50",
        ];
        args.extend_from_slice(extra);
        let (ok, out, err) = vecl(&args);
        assert!(ok, "{err}");
        out.lines()
            .filter(|l| l.contains("checksum"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(run(&[]), run(&["--unchecked"]));
    assert_eq!(run(&[]), run(&["--checked"]));
}

/// `--dump-ir=all` prints the kernel after each middle pass, in order,
/// named; `--dump-ir=PASS` after one; an unknown pass is refused with the
/// list of passes.
#[test]
fn dump_ir_shows_the_kernel_after_each_pass() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/blackscholes.cl");
    let run = |when: &str| {
        vecl(&[
            "run",
            file,
            "--kernel",
            "blackscholes",
            "--global",
            "64",
            "--reps",
            "1",
            &format!("--dump-ir={when}"),
        ])
    };
    let (ok, out, err) = run("all");
    assert!(ok, "{err}");
    let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("; after ")).collect();
    assert_eq!(
        heads,
        [
            "; after inline",
            "; after widen-half",
            "; after sra",
            "; after define-at-entry",
            "; after unroll",
            "; after sra-unrolled",
            "; after cse"
        ],
        "{out}"
    );
    // The helper `cnd` is called before inlining and not after it.
    let after_inline = &out[out.find("; after inline").unwrap()..];
    assert!(!after_inline.contains(" = call "), "{after_inline}");
    assert!(out.contains("kernel @blackscholes("), "{out}");
    let (ok, out, err) = run("cse");
    assert!(ok, "{err}");
    assert_eq!(out.matches("; after ").count(), 1, "{out}");
    assert!(out.starts_with("; after cse\n"), "{out}");
    let (ok, _, err) = run("inlining");
    assert!(!ok);
    assert!(
        err.contains("no pass named `inlining`") && err.contains("inline, widen-half, sra"),
        "{err}"
    );
}

/// A kernel with barriers in a loop: `--dump-ir=all` ends with its region
/// graph (the form the lowering receives), `--dump-ir=regions` prints that
/// alone, and a kernel without barriers under control flow is told why it
/// has none.
#[test]
fn dump_ir_shows_the_region_graph() {
    let run = |file: &str, kernel: &str, when: &str| {
        let file = format!("{}/benches/{file}", env!("CARGO_MANIFEST_DIR"));
        vecl(&[
            "run",
            &file,
            "--kernel",
            kernel,
            "--global",
            "1024,16",
            "--local",
            "16,16",
            "--args",
            "n=16",
            "--reps",
            "1",
            &format!("--dump-ir={when}"),
        ])
    };
    let (ok, out, err) = run("matmul.cl", "matmul", "all");
    assert!(ok, "{err}");
    let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("; after ")).collect();
    assert_eq!(heads.last(), Some(&"; after regions"), "{out}");
    let graph = &out[out.find("; after regions").unwrap()..];
    assert!(graph.contains("next_region"), "{graph}");
    let (ok, out, err) = run("matmul.cl", "matmul", "regions");
    assert!(ok, "{err}");
    assert!(out.starts_with("; after regions\n"), "{out}");
    assert_eq!(out.matches("; after ").count(), 1, "{out}");
    let (ok, _, err) = run("mandelbrot.cl", "mandelbrot", "regions");
    assert!(!ok);
    assert!(err.contains("no barrier under control flow"), "{err}");
}

/// Build errors of `vecl run FILE.cl` name the file, not `<source>`.
#[test]
fn build_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("vecl-cli-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("broken.cl");
    std::fs::write(
        &file,
        "kernel void k(global int* o) {\n    o[0] = missing;\n}\n",
    )
    .expect("write the kernel file");
    let path = file.display().to_string();
    let (ok, _, err) = vecl(&["run", &path, "--kernel", "k", "--global", "4"]);
    assert!(!ok);
    assert!(err.contains(&format!("{path}:2:12")), "{err}");
    assert!(!err.contains("<source>"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

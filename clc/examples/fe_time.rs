//! Front-end timing: builds one OpenCL C file repeatedly with
//! `vecl_clc::build` and prints the median, minimum and maximum wall-clock
//! time per build. A measurement tool, not a test.
//!
//! `cargo run --release -p vecl-clc --example fe_time -- FILE [RUNS]`
//! (the options of the file's `// @options` line are used when it has one).

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: fe_time FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(501);
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let options = vecl_clc::corpus::parse(&source)
        .map(|c| c.options)
        .unwrap_or_default();
    if let Err(e) = vecl_clc::build(&source, &options) {
        eprintln!("{path}: build failed:\n{e}");
        std::process::exit(1);
    }
    let mut times: Vec<u64> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            let built = vecl_clc::build(&source, &options);
            let ns = start.elapsed().as_nanos() as u64;
            std::hint::black_box(built.is_ok());
            ns
        })
        .collect();
    times.sort_unstable();
    let us = |ns: u64| ns as f64 / 1e3;
    println!(
        "{path}: {} lines, {runs} runs: median {:.1} µs, min {:.1} µs, max {:.1} µs",
        source.lines().count(),
        us(times[times.len() / 2]),
        us(times[0]),
        us(times[times.len() - 1]),
    );
}

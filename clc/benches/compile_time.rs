//! Compile time of the front end over the corpus: builds every
//! `tests/corpus/*.cl` program repeatedly and prints the mean time per
//! build, largest program first. A measurement, not a test: nothing here
//! asserts a time. Run with `cargo bench -p vecl-clc --bench compile_time`.

use std::time::Instant;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "cl"))
                .filter_map(|e| {
                    Some((
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read_to_string(e.path()).ok()?,
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort_by_key(|(_, src)| std::cmp::Reverse(src.len()));
    // The fixed cost of a build: option parsing, predefined macros, thread.
    files.push(("(empty kernel)".into(), "kernel void k() {}".into()));
    const RUNS: u32 = 200;
    for (name, src) in &files {
        let options = vecl_clc::corpus::parse(src)
            .map(|c| c.options)
            .unwrap_or_default();
        let start = Instant::now();
        let mut insts = 0;
        for _ in 0..RUNS {
            match vecl_clc::build(src, &options) {
                Ok(b) => insts = b.module.functions.iter().map(|f| f.insts.len()).sum(),
                Err(e) => {
                    println!("{name}: build failed: {e}");
                    break;
                }
            }
        }
        let per = start.elapsed() / RUNS;
        println!(
            "{name:24} {:6} bytes {insts:5} IR insts {:9.1} µs/build",
            src.len(),
            per.as_secs_f64() * 1e6
        );
    }
}

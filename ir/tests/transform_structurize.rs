//! Structurization of control-flow graphs, text in → text out.
//!
//! Each `tests/transform/structurize/NAME.cfg` is a module in the CFG text
//! form (`vecl_ir::cfg::text`); every function is structured with
//! [`structurize`], and the module must verify and print exactly as
//! `NAME.out`. A graph the pass refuses prints `error: …` with the block's
//! position instead. `VECL_BLESS=1` rewrites the `.out` files.
//!
//! A case with a `; expect [a, b, …]` line also runs: kernel `@k` on 8
//! work-items in groups of 4, its first argument a buffer of 16 zero
//! `u32`s, which must afterwards hold the listed values (worked out by hand
//! from the graph, not from the output).

use std::path::{Path, PathBuf};
use vecl_ir::cfg::text::parse_cfg_module;
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::text::{parse_module, print_module};
use vecl_ir::transform::structurize::structurize;
use vecl_ir::verify::{format_errors, verify_module};
use vecl_testkit::file_tests;

fn cases() -> Vec<PathBuf> {
    file_tests::cases(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transform/structurize"),
        "cfg",
    )
}

/// The values of the `; expect [..]` line, if any.
fn expected(text: &str) -> Option<Vec<u32>> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("; expect "))?;
    let list = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    Some(
        list.split(',')
            .map(|x| x.trim().parse().expect("expect values are u32"))
            .collect(),
    )
}

/// The structured module printed, or `error: …` for a refused graph.
fn structure(text: &str, name: &str) -> Result<vecl_ir::Module, String> {
    let (mut m, cfgs) = parse_cfg_module(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (f, cfg) in m.functions.iter_mut().zip(cfgs) {
        if let Err(e) = structurize(f, cfg) {
            return Err(format!("error: {}:{}: {e}\n", e.loc.line, e.loc.col));
        }
    }
    Ok(m)
}

#[test]
fn structurize_text_cases() {
    let files = cases();
    assert!(files.len() >= 8, "only {} cases", files.len());
    let mut failures = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("case is readable");
        let printed = match structure(&text, &name) {
            Err(e) => e,
            Ok(m) => {
                if let Err(e) = verify_module(&m) {
                    panic!(
                        "{name}: invalid after the pass:\n{}\n{m}",
                        format_errors(&e)
                    );
                }
                let printed = print_module(&m);
                assert_eq!(
                    parse_module(&printed).as_ref(),
                    Ok(&m),
                    "{name}: the output does not read back"
                );
                if let Some(want) = expected(&text) {
                    let mut args = vec![KernelArg::Buffer(vec![0; 64])];
                    if let Err(e) = run_kernel(&m, "k", &mut args, &NdRange::linear(8, 4)) {
                        failures.push(format!("{name}: the kernel fails: {e}"));
                    }
                    let KernelArg::Buffer(bytes) = &args[0] else {
                        unreachable!("a buffer was passed")
                    };
                    let got: Vec<u32> = bytes
                        .chunks(4)
                        .take(want.len())
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect();
                    if got != want {
                        failures.push(format!(
                            "{name}: the kernel left {got:?}, expected {want:?}"
                        ));
                    }
                }
                printed
            }
        };
        file_tests::check_output(&path, &printed, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every case whose graph is accepted has an `expect` line: the tests pin
/// behaviour, not only shape.
#[test]
fn accepted_cases_are_run() {
    for path in cases() {
        let text = std::fs::read_to_string(&path).expect("case is readable");
        let name = path.display().to_string();
        if structure(&text, &name).is_ok() {
            assert!(expected(&text).is_some(), "{name} has no '; expect' line");
        }
    }
}

/// Malformed graph text is an error at the offending line and column.
#[test]
fn cfg_text_errors_have_positions() {
    let cases: &[(&str, &str)] = &[
        (
            "kernel @k() {\n  br nowhere\n}\n",
            "2:6: no block named 'nowhere'",
        ),
        (
            "kernel @k() {\n  br a\na:\nb:\n  return\n}\n",
            "4:1: block 'a' does not end in a terminator",
        ),
        (
            "kernel @k() {\n  br a\na:\n  return\na:\n  return\n}\n",
            "5:1: block 'a' is defined twice",
        ),
        (
            "kernel @k() {\n  %c: bool = const true\n  br_if %c, a\na:\n  return\n}\n",
            "3:3: 'br_if' needs two targets",
        ),
        (
            "kernel @k() {\n  %s: u32 = const 1\n  br_table %s, [1 a], b\nb:\n  return\n}\n",
            "3:17: expected 'value: block'",
        ),
    ];
    for (text, want) in cases {
        match parse_cfg_module(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => assert_eq!(e.to_string(), *want, "{text}"),
        }
    }
}

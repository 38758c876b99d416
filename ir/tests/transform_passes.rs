//! The middle passes one at a time, text in → text out.
//!
//! Each `tests/transform/PASS/NAME.ir` (for PASS `inline`, `unroll`,
//! `cse`) is a module whose kernel `@k` goes through that pass alone
//! ([`Pipeline::only`], which verifies its output); `@k` afterwards must
//! print exactly as `NAME.out` (the kernel alone, as
//! `vecl run --dump-ir=PASS` prints it; comment lines of the input are
//! dropped by the parser). `VECL_BLESS=1` rewrites the `.out` files from
//! the pass's output. `@k` also runs in the interpreter before and after
//! the pass, on the same arguments, and must leave the same bytes in every
//! buffer (or stop with the same error).

use std::path::{Path, PathBuf};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::text::parse_module;
use vecl_ir::transform::pipeline::{print_alone, Pipeline};
use vecl_ir::verify::{format_errors, verify_module};
use vecl_ir::{AddressSpace, Module, Type};

fn cases(pass: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/transform")
        .join(pass);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    files.sort();
    files
}

/// Arguments for `@k`: 64-byte buffers holding 1, 2, 3, … for `__global`
/// pointers, 64 bytes per group for `__local` ones, the value 1 for
/// scalars.
fn args_for(m: &Module) -> Vec<KernelArg> {
    let Some((_, k)) = m.function_by_name("k") else {
        return Vec::new();
    };
    k.params
        .iter()
        .map(|p| match &p.ty {
            Type::Pointer(AddressSpace::Local, _) => KernelArg::Local(64),
            Type::Pointer(..) => KernelArg::Buffer((1..=64).collect()),
            ty => {
                let mut bytes = vec![0u8; m.size_of(ty) as usize];
                if let Some(b) = bytes.first_mut() {
                    *b = 1;
                }
                KernelArg::Value(bytes)
            }
        })
        .collect()
}

fn run(m: &Module) -> (Result<(), String>, Vec<KernelArg>) {
    let mut args = args_for(m);
    let r = run_kernel(m, "k", &mut args, &NdRange::linear(4, 2)).map_err(|e| e.to_string());
    (r, args)
}

/// Runs every case of `pass`; returns how many there were.
fn check_pass(pass: &str) -> usize {
    let bless = std::env::var("VECL_BLESS").is_ok_and(|v| v == "1");
    let pipeline = Pipeline::only(pass).expect("a pass of the pipeline");
    let files = cases(pass);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("case is readable");
        let before = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = verify_module(&before) {
            panic!("{name} does not verify:\n{}", format_errors(&e));
        }
        let (index, kernel) = before
            .function_by_name("k")
            .unwrap_or_else(|| panic!("{name}: no kernel @k"));
        let out = pipeline
            .run(&before, kernel)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = print_alone(&before, &out.function);
        let expected_path = path.with_extension("out");
        if bless {
            std::fs::write(&expected_path, &printed).expect("writable");
        } else {
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if expected != printed {
                failures.push(format!(
                    "{name}: output differs from {}:\n{printed}",
                    expected_path.display()
                ));
            }
        }
        let mut after = before.clone();
        after.functions[index.index()] = out.function;
        if let Err(e) = verify_module(&after) {
            panic!("{name}: invalid after the pass:\n{}", format_errors(&e));
        }
        let (r0, a0) = run(&before);
        let (r1, a1) = run(&after);
        if r0 != r1 || a0 != a1 {
            failures.push(format!(
                "{name}: the interpreter disagrees: before {r0:?} {a0:?}, after {r1:?} {a1:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    files.len()
}

#[test]
fn inline_text_cases() {
    assert!(check_pass("inline") >= 4);
}

#[test]
fn unroll_text_cases() {
    assert!(check_pass("unroll") >= 4);
}

#[test]
fn cse_text_cases() {
    assert!(check_pass("cse") >= 4);
}

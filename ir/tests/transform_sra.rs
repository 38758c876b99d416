//! Scalar replacement of aggregates, text in → text out.
//!
//! Each `tests/transform/sra/NAME.ir` is run through
//! [`scalar_replace_module`]; the result must verify and print exactly as
//! `NAME.out` (comment lines of the input are dropped by the parser).
//! `VECL_BLESS=1` rewrites the `.out` files from the pass's output. The
//! kernel `@k` of each file also runs in the interpreter before and after
//! the pass, on the same arguments, and must leave the same bytes in every
//! buffer (or stop with the same error).

use std::path::{Path, PathBuf};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::text::{parse_module, print_module};
use vecl_ir::transform::sra::scalar_replace_module;
use vecl_ir::verify::{format_errors, verify_module};
use vecl_ir::{Module, Type};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transform/sra");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/transform/sra exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    files.sort();
    files
}

/// Arguments for `@k`: 64-byte buffers holding 1, 2, 3, … for pointers,
/// the value 1 for integers, 1.0-ish bytes for by-value structs.
fn args_for(m: &Module) -> Vec<KernelArg> {
    let Some((_, k)) = m.function_by_name("k") else {
        return Vec::new();
    };
    k.params
        .iter()
        .map(|p| match (&p.ty, p.byval) {
            (Type::Pointer(..), false) => KernelArg::Buffer((1..=64).collect()),
            (Type::Pointer(_, pointee), true) => {
                let n = m.size_of(pointee) as usize;
                KernelArg::Value((0..n).map(|i| if i % 4 == 3 { 0x3f } else { 0 }).collect())
            }
            (ty, _) => {
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

#[test]
fn sra_text_cases() {
    let bless = std::env::var("VECL_BLESS").is_ok_and(|v| v == "1");
    let files = cases();
    assert!(files.len() >= 8, "only {} cases", files.len());
    let mut failures = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("case is readable");
        let before = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = verify_module(&before) {
            panic!("{name} does not verify:\n{}", format_errors(&e));
        }
        let mut after = before.clone();
        scalar_replace_module(&mut after);
        if let Err(e) = verify_module(&after) {
            panic!("{name}: invalid after the pass:\n{}", format_errors(&e));
        }
        let printed = print_module(&after);
        assert_eq!(
            parse_module(&printed).as_ref(),
            Ok(&after),
            "{name}: the output does not read back"
        );
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
        if before.function_by_name("k").is_some() {
            let (r0, a0) = run(&before);
            let (r1, a1) = run(&after);
            if r0 != r1 || a0 != a1 {
                failures.push(format!(
                    "{name}: the interpreter disagrees: before {r0:?} {a0:?}, after {r1:?} {a1:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Running the pass twice changes nothing the second time.
#[test]
fn sra_is_idempotent() {
    for path in cases() {
        let text = std::fs::read_to_string(&path).expect("case is readable");
        let mut m = parse_module(&text).expect("case parses");
        scalar_replace_module(&mut m);
        let once = m.clone();
        let stats = scalar_replace_module(&mut m);
        assert_eq!(
            m,
            once,
            "{}: a second run changed the module",
            path.display()
        );
        assert_eq!(stats.slots + stats.params, 0, "{}", path.display());
    }
}

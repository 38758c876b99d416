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
use vecl_ir::text::{parse_module, print_module};
use vecl_ir::transform::sra::scalar_replace_module;
use vecl_ir::verify::{format_errors, verify_module};
use vecl_testkit::file_tests::{cases, check_output, same_run};

fn sra_cases() -> Vec<PathBuf> {
    cases(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transform/sra"),
        "ir",
    )
}

#[test]
fn sra_text_cases() {
    let files = cases(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transform/sra"),
        "ir",
    );
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
        check_output(&path, &printed, &mut failures);
        if before.function_by_name("k").is_some() {
            same_run(&name, &before, &after, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Running the pass twice changes nothing the second time.
#[test]
fn sra_is_idempotent() {
    for path in sra_cases() {
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

//! Every file of `tests/corpus` parses, verifies and prints back as written.
//!
//! Corpus files are canonical text except for whole-line `;` comments,
//! which the printer does not reproduce; they are dropped before comparing.

use std::fs;
use std::path::PathBuf;

use vecl_ir::text::{parse_module, print_module};
use vecl_ir::verify::{format_errors, verify_module};

fn corpus() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<(String, String)> = fs::read_dir(&dir)
        .expect("tests/corpus exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .map(|p| {
            let text = fs::read_to_string(&p).expect("corpus file is readable UTF-8");
            (
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                text,
            )
        })
        .collect();
    files.sort();
    files
}

fn without_comment_lines(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn corpus_round_trips_exactly() {
    for (name, text) in corpus() {
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{name}:{e}"));
        if let Err(errors) = verify_module(&m) {
            panic!("{name} does not verify:\n{}", format_errors(&errors));
        }
        let printed = print_module(&m);
        assert_eq!(
            printed,
            without_comment_lines(&text),
            "{name}: print(parse(f)) differs from f"
        );
        let again = parse_module(&printed).unwrap_or_else(|e| panic!("{name} (printed):{e}"));
        assert_eq!(
            again, m,
            "{name}: parse(print(parse(f))) differs from parse(f)"
        );
    }
}

#[test]
fn corpus_is_large_enough() {
    let n = corpus().len();
    assert!(n >= 20, "only {n} corpus files");
}

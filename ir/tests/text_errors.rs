//! Malformed text gives a `line:col: message` error — and never a panic.

use std::fs;
use std::path::PathBuf;

use proptest::prelude::*;
use vecl_ir::text::{parse_module, print_module, ParseError, MAX_DEPTH};

fn error(src: &str) -> ParseError {
    match parse_module(src) {
        Ok(m) => panic!("parsed, expected an error: {m:?}"),
        Err(e) => e,
    }
}

/// Asserts the error position and that the message mentions `needle`.
fn assert_error(src: &str, line: u32, col: u32, needle: &str) {
    let e = error(src);
    assert_eq!((e.line, e.col), (line, col), "wrong position for {e}");
    assert!(
        e.message.contains(needle),
        "message `{}` does not mention `{needle}`",
        e.message
    );
    assert_eq!(e.to_string(), format!("{line}:{col}: {}", e.message));
}

#[test]
fn errors_point_at_the_offending_token() {
    assert_error(
        "fn @f() {\n  %0: i32 = const 1\n  return %1\n}\n",
        3,
        10,
        "undefined value %1",
    );
    assert_error(
        "fn @f() {\n  %0: i32 = frob %0\n}\n",
        2,
        13,
        "unknown instruction `frob`",
    );
    assert_error(
        "fn @f() {\n  %0: f32 = const 0\n  %1: f32 = builtin sqrtf(%0)\n}\n",
        3,
        21,
        "unknown builtin `sqrtf`",
    );
    assert_error("fn @f() {\n  %0: i9 = undef\n}\n", 2, 7, "expected a type");
    assert_error(
        "fn @f() {\n  %0: i8 = const 300\n}\n",
        2,
        18,
        "out of range for i8",
    );
    assert_error(
        "fn @f() {\n  %0: u32 = const 0\n  %0: u32 = const 1\n}\n",
        3,
        3,
        "defined twice",
    );
    assert_error("fn @f() {\n  %1: u32 = const 0\n}\n", 2, 3, "leaves a gap");
    assert_error(
        "fn @f() {\n  %0: ptr global %S = undef\n}\n",
        2,
        18,
        "no struct named `S`",
    );
    assert_error(
        "fn @f() {\n  %0: u32 = call @g()\n}\n",
        2,
        18,
        "no function named `g`",
    );
    assert_error(
        "fn @f() {\n  %0: u32 = read $0\n}\n",
        2,
        18,
        "undeclared variable $0",
    );
    assert_error("fn @f() {\n  return\n", 3, 1, "expected `}`");
    assert_error("fn @f() {\n  store %0 %1\n}\n", 2, 12, "expected `,`");
    assert_error(
        "kernel @k(a: u32) args [\"uint\" far] {\n}\n",
        1,
        32,
        "address space",
    );
    assert_error(
        "global @g: local f32 = x\"0a1\"\n",
        1,
        29,
        "odd number of hex digits",
    );
    assert_error("struct %S { a: i32 offset 0 }\n", 1, 30, "size");
    assert_error("struct %S { a: %S }\n", 1, 1, "contains itself");
    assert_error(
        "fn @f() {\n  %0: f16 = const 0.1\n}\n",
        2,
        19,
        "not exactly a half",
    );
    assert_error("fn @f() {\n  var $1: i32\n}\n", 2, 7, "expected $0");
    assert_error(
        "fn @f() {\n  %0: u32 = const 1 ~\n}\n",
        2,
        21,
        "unexpected character",
    );
    assert_error(
        "fn @f() {\n  barrier local|nowhere\n}\n",
        2,
        17,
        "memory flags",
    );
    assert_error(
        "fn @f() {\n  %0: u32 = const 1 junk\n}\n",
        2,
        21,
        "expected end of line",
    );
    assert_error(
        "fn @f() {}\nfn @f() {}\nfn @g() {\n  %0: void = call @f()\n}\n",
        4,
        19,
        "more than one function",
    );
    assert_error("\"unterminated\n", 1, 1, "unterminated string");
    assert_error(
        "fn @f() {\n  %a: i32 = const 1\n  return %b\n}\n",
        3,
        10,
        "undefined value %b",
    );
    assert_error(
        "fn @f() {\n  %0 = const 1\n}\n",
        2,
        6,
        "expected `: type` before `=`",
    );
    assert_error(
        "fn @f() {\n  %0: <2 x f32> = const 1.0\n}\n",
        2,
        25,
        "use splat or construct",
    );
    assert_error(
        "fn @f() {\n  %a: i32 = const 1\n  %a: i32 = const 2\n}\n",
        3,
        3,
        "value %a is defined twice",
    );
    assert_error(
        "fn @f() {\n  %2147483648: i32 = const 1\n}\n",
        2,
        3,
        "too large",
    );
    assert_error(
        "frob\n",
        1,
        1,
        "expected `struct`, `union`, `global`, `fn` or `kernel`",
    );
}

#[test]
fn errors_render_with_a_caret() {
    let src = "fn @f() {\n\t%0: i32 = frob\n}\n";
    let e = error(src);
    assert_eq!(
        e.render(src, "k.ir"),
        "k.ir:2:12: unknown instruction `frob`\n\t%0: i32 = frob\n\t          ^\n"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = MAX_DEPTH as usize + 10;
    let mut src = String::from("fn @f() {\n  %0: bool = const true\n");
    for _ in 0..depth {
        src.push_str("if %0 {\n");
    }
    for _ in 0..depth {
        src.push_str("}\n");
    }
    src.push_str("}\n");
    assert!(error(&src).message.contains("nesting"));

    let deep_type = format!("global @g: private {}i32\n", "ptr private ".repeat(100_000));
    assert!(error(&deep_type).message.contains("nesting"));
    let deep_array = format!(
        "global @g: private {}i32{}\n",
        "[1 x ".repeat(5000),
        "]".repeat(5000)
    );
    assert!(error(&deep_array).message.contains("nesting"));
}

#[test]
fn huge_numbers_do_not_allocate_or_overflow() {
    // Value numbers near the top: too large, or a gap (no huge arena).
    assert!(error("fn @f() {\n  %4294967295: u32 = const 0\n}\n")
        .message
        .contains("too large"));
    assert!(error("fn @f() {\n  %2147483647: u32 = const 0\n}\n")
        .message
        .contains("gap"));
    // An array too large for 32-bit sizes inside a laid-out struct.
    assert!(error("struct %S { a: [4294967295 x i64], b: i8 }\n")
        .message
        .contains("too large"));
    assert!(error("fn @f() {\n  %99999999999: u32 = const 0\n}\n")
        .message
        .contains("number"));
}

fn corpus() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .expect("corpus directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| fs::read_to_string(p).expect("corpus file"))
        .collect()
}

/// Parsing must return (`Ok` or `Err`), whatever the input; an error must
/// point inside the input, and whatever parses must print to text that
/// parses back to the same module.
fn parses_without_panic(src: &str) {
    match parse_module(src) {
        Err(e) => {
            let lines = src.split('\n').count() as u32;
            assert!(
                e.line >= 1 && e.line <= lines,
                "error line {} outside the input ({lines} lines): {e}",
                e.line
            );
            assert!(e.col >= 1, "column 0: {e}");
            assert!(!e.message.is_empty());
        }
        Ok(m) => {
            let text = print_module(&m);
            assert_eq!(
                parse_module(&text).as_ref(),
                Ok(&m),
                "reprint differs for:\n{src}\nprinted:\n{text}"
            );
        }
    }
}

#[test]
fn truncated_and_garbled_corpus_files_never_panic() {
    let files = corpus();
    assert!(!files.is_empty());
    for text in &files {
        // Truncations: at every line end and every few characters (every
        // character would make the test quadratic in the corpus size).
        for (k, (i, c)) in text.char_indices().enumerate() {
            if c == '\n' || k % 23 == 0 {
                parses_without_panic(&text[..i]);
            }
        }
        // Every line dropped, every line doubled.
        let lines: Vec<&str> = text.lines().collect();
        for i in 0..lines.len() {
            let mut dropped = lines.clone();
            dropped.remove(i);
            parses_without_panic(&dropped.join("\n"));
            let mut doubled = lines.clone();
            doubled.insert(i, lines[i]);
            parses_without_panic(&doubled.join("\n"));
        }
        // Words swapped with their neighbour (every seventh pair).
        let words: Vec<&str> = text.split(' ').collect();
        for i in (1..words.len()).step_by(7) {
            let mut w = words.clone();
            w.swap(i - 1, i);
            parses_without_panic(&w.join(" "));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        parses_without_panic(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup_never_panics(tokens in proptest::collection::vec(0usize..TOKENS.len(), 0..80)) {
        let src: Vec<&str> = tokens.iter().map(|&i| TOKENS[i]).collect();
        parses_without_panic(&src.join(" "));
    }

    #[test]
    fn mutated_corpus_files_never_panic(file in 0usize..64, at in any::<usize>(), byte in any::<u8>(), cut in any::<bool>()) {
        let files = corpus();
        let text = &files[file % files.len()];
        let mut bytes = text.as_bytes().to_vec();
        let i = at % bytes.len().max(1);
        if cut {
            bytes.drain(i..(i + 7).min(bytes.len()));
        } else if !bytes.is_empty() {
            bytes[i] = byte;
        }
        parses_without_panic(&String::from_utf8_lossy(&bytes));
    }
}

const TOKENS: &[&str] = &[
    "fn",
    "kernel",
    "struct",
    "union",
    "packed",
    "global",
    "@f",
    "@g",
    "@#0",
    "@#9",
    "%S",
    "%#0",
    "%#7",
    "%0",
    "%1",
    "%2",
    "$0",
    "&0",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    ":",
    "=",
    "->",
    "|",
    "\n",
    "\n",
    "\n",
    "i32",
    "f32",
    "f16",
    "bool",
    "void",
    "ptr",
    "private",
    "local",
    "x",
    "4",
    "0",
    "-1",
    "1.5",
    "0x7fc00000",
    "nan",
    "inf",
    "-inf",
    "true",
    "const",
    "param",
    "add",
    "cmp",
    "lt",
    "load",
    "store",
    "if",
    "else",
    "loop",
    "continuing",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "return",
    "barrier",
    "fence",
    "at",
    "offset",
    "size",
    "align",
    "args",
    "byval",
    "var",
    "slot",
    "detached",
    "eval",
    "write",
    "read",
    "addr",
    "call",
    "builtin",
    "atomic",
    "work_item",
    "global_id",
    "shuffle",
    "construct",
    "\"str\"",
    "x\"00ff\"",
    ";c\n",
    "reqd_work_group_size",
    "vec_type_hint",
    "convert",
    "sat",
    "rte",
];

//! Fuzzes the OpenCL C front end: any byte string, as source, must build or
//! fail with a diagnostic — never panic, hang or overflow the stack — and a
//! module that builds must pass the IR verifier.
//!
//! The first line of the input (up to a newline) is used as the option
//! string when it starts with `-`, so option parsing is fuzzed too.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (options, source) = match text.split_once('\n') {
        Some((first, rest)) if first.starts_with('-') => (first, rest),
        _ => ("", text),
    };
    match vecl_clc::build(source, options) {
        // `build` turns a panic of the front end into this log line.
        Err(vecl_clc::BuildError::Failed { log }) if log.contains("internal compiler error") => {
            panic!("internal compiler error:\n{log}")
        }
        Err(_) => {}
        Ok(built) => {
            if let Err(errors) = vecl_ir::verify::verify_module(&built.module) {
            panic!(
                "the front end produced IR the verifier rejects:\n{}\n{}",
                vecl_ir::verify::format_errors(&errors),
                    built.module
                );
            }
        }
    }
});

//! Fuzzes the SPIR-V front end: any byte string, as a module, must
//! translate or fail with an error — never panic, hang or overflow the
//! stack — and a module that translates must pass the IR verifier (the
//! front end checks that itself: a failure there is an internal error).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(words) = vecl_spirv::words_from_bytes(data) else {
        return;
    };
    if let Err(e) = vecl_spirv::translate(&words, &Default::default()) {
        let text = e.to_string();
        // `translate` turns a panic, and IR the verifier rejects, into
        // these messages.
        if text.contains("internal compiler error") {
            panic!("{text}");
        }
    }
    let _ = vecl_spirv::spec_constants(&words);
});

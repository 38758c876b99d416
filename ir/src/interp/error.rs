//! Errors of the reference interpreter.
//!
//! Every failure of a kernel run is a value of [`InterpError`]: a bad
//! launch (unknown kernel, wrong arguments), a fault of the kernel itself
//! (out-of-bounds access, divergent barrier) or IR the interpreter cannot
//! execute. Faults name the kernel, the global id of the work-item and,
//! where the IR has one, the source position.

use crate::module::Loc;
use crate::types::AddressSpace;

/// Why a kernel run failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("no kernel named `{0}` in the module")]
    UnknownKernel(String),

    #[error("kernel `{kernel}`: argument {index}: {message}")]
    ArgMismatch {
        kernel: String,
        index: usize,
        message: String,
    },

    #[error("kernel `{kernel}`: bad NDRange: {message}")]
    BadRange { kernel: String, message: String },

    #[error(
        "kernel `{kernel}`, work-item {work_item:?}: out-of-bounds access of {size} bytes at offset {offset} of {object} ({space}){}",
        fmt_loc(*loc)
    )]
    OutOfBounds {
        kernel: String,
        /// Global id of the faulting work-item.
        work_item: [u64; 3],
        space: AddressSpace,
        /// Byte offset of the access into the object (wrapped to 40 bits
        /// when the pointer went below the object's start).
        offset: u64,
        size: u64,
        /// What the pointer pointed into, e.g. "argument `out`", "null".
        object: String,
        loc: Loc,
    },

    #[error(
        "kernel `{kernel}`, work-item {work_item:?}: store into read-only {object} at offset {offset}{}",
        fmt_loc(*loc)
    )]
    ReadOnlyWrite {
        kernel: String,
        work_item: [u64; 3],
        offset: u64,
        object: String,
        loc: Loc,
    },

    #[error(
        "kernel `{kernel}`: barrier{} reached by only some work-items of group {group:?}; work-item {work_item:?} (local id {missing_local:?}) did not reach it, the one with local id {reached_local:?} did",
        fmt_loc(*loc)
    )]
    DivergentBarrier {
        kernel: String,
        /// Global id of a work-item of the group that did not reach the barrier.
        work_item: [u64; 3],
        /// Its local id (32 bits per dimension keep the error small).
        missing_local: [u32; 3],
        /// Local id of a work-item of the group that reached the barrier.
        reached_local: [u32; 3],
        group: [u64; 3],
        loc: Loc,
    },

    #[error("kernel `{kernel}`: {message}")]
    Limit { kernel: String, message: String },

    #[error("unsupported builtin `{0}`")]
    UnsupportedBuiltin(crate::builtin::Builtin),

    /// The IR breaks a rule the verifier checks (wrong types, a value used
    /// before it is evaluated, recursion, …).
    #[error("kernel `{kernel}`, work-item {work_item:?}: malformed IR: {message}{}", fmt_loc(*loc))]
    Malformed {
        kernel: String,
        work_item: [u64; 3],
        message: String,
        loc: Loc,
    },
}

fn fmt_loc(loc: Loc) -> String {
    if loc.is_known() {
        format!(" at line {}:{}", loc.line, loc.col)
    } else {
        String::new()
    }
}

//! What the lowered function computes or imports once and every part of
//! the lowering reuses: the lane numbers and the scratch slot's address,
//! made in the entry block, and the Rust helpers and routines already
//! imported into the function.
//!
//! [`FunctionCache`] owns them: the entry values are fixed when it is made,
//! imports are added as the lowering first calls each one.

use cranelift_codegen::ir::{FuncRef, Value};
use std::collections::HashMap;

/// Values of the entry block and imported functions (see the module docs).
pub(crate) struct FunctionCache {
    /// `0, 1, …, W-1` as `i32x4` and `i64x2` pieces.
    iota32: Vec<Value>,
    iota64: Vec<Value>,
    /// A scratch address inactive lanes read and write instead of theirs.
    dummy: Option<Value>,
    /// Functions imported into this one, by symbol.
    externs: HashMap<String, FuncRef>,
}

impl FunctionCache {
    pub fn new(iota32: Vec<Value>, iota64: Vec<Value>, dummy: Option<Value>) -> Self {
        FunctionCache {
            iota32,
            iota64,
            dummy,
            externs: HashMap::new(),
        }
    }

    /// `0, 1, …, W-1` as `i32x4` pieces.
    pub fn iota32(&self) -> &[Value] {
        &self.iota32
    }

    /// `0, 1, …, W-1` as `i64x2` pieces.
    pub fn iota64(&self) -> &[Value] {
        &self.iota64
    }

    /// The scratch address inactive lanes use, when the function has one.
    pub fn dummy(&self) -> Option<Value> {
        self.dummy
    }

    /// The function imported as `symbol`, if it was.
    pub fn imported(&self, symbol: &str) -> Option<FuncRef> {
        self.externs.get(symbol).copied()
    }

    /// Records `f` as the import of `symbol`.
    pub fn import(&mut self, symbol: String, f: FuncRef) {
        self.externs.insert(symbol, f);
    }
}

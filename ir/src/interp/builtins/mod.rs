//! OpenCL C builtins (`Inst::Builtin`), selected by name and by the
//! argument and result types the front end resolved.

use crate::types::{StructDef, Type};

use super::memory::{Fault, Memory};

/// One argument: its type and its lanes for the current work-item.
pub struct Arg<'a> {
    pub ty: &'a Type,
    pub lanes: &'a [u64],
}

/// Why a builtin call failed.
pub enum BuiltinError {
    /// No builtin of that name (or not for these types).
    Unsupported,
    Fault(Fault),
    BadArgs(String),
}

/// Evaluates builtin `name` for one work-item.
pub fn call(
    name: &str,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
    structs: &[StructDef],
) -> Result<Vec<u64>, BuiltinError> {
    let _ = (name, args, ret, mem, structs);
    Err(BuiltinError::Unsupported)
}

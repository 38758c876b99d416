//! The front end's one error type: what is wrong, and where in the module.

use std::fmt;

/// Why a SPIR-V module could not be translated. `word` is the offset (in
/// 32-bit words from the start of the module) of the instruction concerned
/// and `opname` its name (`OpLoad`), when the error belongs to one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpirvError {
    pub word: Option<usize>,
    pub opname: Option<String>,
    pub message: String,
}

impl SpirvError {
    /// An error about the module as a whole.
    pub fn module(message: impl Into<String>) -> SpirvError {
        SpirvError {
            word: None,
            opname: None,
            message: message.into(),
        }
    }

    /// An error at the instruction starting at word `word`.
    pub fn at(word: usize, opname: &str, message: impl Into<String>) -> SpirvError {
        SpirvError {
            word: Some(word),
            opname: Some(opname.to_string()),
            message: message.into(),
        }
    }
}

impl fmt::Display for SpirvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SPIR-V")?;
        if let Some(w) = self.word {
            write!(f, " word {w}")?;
        }
        if let Some(op) = &self.opname {
            write!(f, " ({op})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SpirvError {}

pub type Result<T> = std::result::Result<T, SpirvError>;

//! The JIT's one error type.

#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error("kernel `{kernel}`: not supported yet: {what}")]
    Unsupported { kernel: String, what: String },
    #[error("kernel `{kernel}`: code generation failed: {message}")]
    Codegen { kernel: String, message: String },
    #[error("no kernel named `{0}`")]
    NoSuchKernel(String),
}

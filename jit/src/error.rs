//! The JIT's one error type.

#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error("kernel `{kernel}`: not supported yet: {what}")]
    Unsupported { kernel: String, what: String },
    #[error("kernel `{kernel}`: code generation failed: {message}")]
    Codegen { kernel: String, message: String },
    #[error("no kernel named `{0}`")]
    NoSuchKernel(String),
    /// The kernel's machine code needs a larger stack frame than
    /// [`crate::MAX_FRAME_BYTES`], even from the optimised tier.
    #[error("kernel `{kernel}`: its machine code needs a stack frame of {bytes} bytes, more than the {limit} bytes a kernel may use on a thread's stack (split the kernel or make its private arrays smaller)")]
    FrameTooLarge {
        kernel: String,
        bytes: usize,
        limit: usize,
    },
}

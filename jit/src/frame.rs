//! Stack frames of kernel code: how large one is, and how large it may be.
//!
//! A kernel's entry runs on whichever thread runs its work-groups: a pool
//! worker, a queue's executor, or the thread that enqueued it (groups run
//! inline). Each guarantees [`WORKER_STACK_BYTES`] of stack at least (the
//! runtime spawns its threads with that much; Rust's own threads have
//! 2 MiB, a process's main thread 8 MiB), and the entry's frame must fit
//! with the caller's frames above it. Most kernels need a few KiB; the
//! quick tier's single-pass register allocator gives every spilled value
//! a slot of its own, so the frame of a huge kernel (tens of thousands of
//! CLIF instructions, random kernels of `vecl fuzz`) grows with its code,
//! to megabytes (a random kernel of 27,000 IR instructions at W = 32: 2.0
//! MB in the quick tier, 0.56 MB in the optimised tier, whose allocator
//! took 7 minutes over it). A frame past [`MAX_FRAME_BYTES`] is not run:
//! `compile::compile` compiles the kernel again at half the width, whose
//! values are half the size, down to 4 lanes (not when the kernel
//! requires its sub-group size), and refuses it
//! (`JitError::FrameTooLarge`) when the frame is still too large. The
//! optional copy at the wide width is dropped instead.
//!
//! Cranelift's code also probes its frame page by page before using it
//! (`enable_probestack`, inline), so a thread whose stack is smaller than
//! the frame stops at its guard page instead of writing past it into
//! whatever lies below.

/// The largest stack frame a kernel's machine code may have: half of the
/// stack of a Rust thread, leaving the other half to the frames of the
/// runtime and the caller above it.
pub const MAX_FRAME_BYTES: usize = 1 << 20;

/// The stack the runtime gives the threads it spawns to run work-groups
/// (pool workers, queue executors): room for a frame of
/// [`MAX_FRAME_BYTES`] and several times more for the frames above it
/// (only the pages used are ever committed).
pub const WORKER_STACK_BYTES: usize = 8 << 20;

/// The size of the frame x86-64 code compiled by Cranelift sets up in its
/// prologue: the largest `sub rsp, imm` among the prologue's first
/// instructions (after `push rbp; mov rbp, rsp`; the inline stack probes
/// before it subtract a page at a time, never more than the frame). 0
/// when the code has no such prologue (a frame-less leaf).
pub(crate) fn prologue_frame_bytes(code: &[u8]) -> usize {
    // `push rbp; mov rbp, rsp`.
    const SETUP: [u8; 4] = [0x55, 0x48, 0x89, 0xe5];
    if !code.starts_with(&SETUP) {
        return 0;
    }
    let head = &code[SETUP.len()..code.len().min(160)];
    let mut largest = 0usize;
    for at in 0..head.len() {
        match head[at..] {
            // sub rsp, imm32
            [0x48, 0x81, 0xec, a, b, c, d, ..] => {
                let n = i32::from_le_bytes([a, b, c, d]);
                largest = largest.max(usize::try_from(n).unwrap_or(0));
            }
            // sub rsp, imm8
            [0x48, 0x83, 0xec, n, ..] => {
                largest = largest.max(usize::try_from(n as i8).unwrap_or(0));
            }
            _ => {}
        }
    }
    largest
}

#[cfg(test)]
mod tests {
    use super::prologue_frame_bytes;

    #[test]
    fn the_frame_is_read_from_the_prologue() {
        // push rbp; mov rbp, rsp; sub rsp, 0xd20; mov [rsp + 0xcf0], rbx
        let code = [
            0x55, 0x48, 0x89, 0xe5, 0x48, 0x81, 0xec, 0x20, 0x0d, 0, 0, 0x48, 0x89, 0x9c, 0x24,
            0xf0, 0x0c, 0, 0,
        ];
        assert_eq!(prologue_frame_bytes(&code), 0xd20);
        // sub rsp, 0x30
        let small = [0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x30, 0xc3];
        assert_eq!(prologue_frame_bytes(&small), 0x30);
        // No frame set up.
        assert_eq!(prologue_frame_bytes(&[0x31, 0xc0, 0xc3]), 0);
    }
}

//! Memory whose edges a runner can check: buffers with guard bytes on
//! both sides, 64-byte aligned as the kernel ABI wants its buffers, so a
//! kernel that writes past its buffer leaves a trace. For code that calls
//! compiled kernels directly (`CompiledKernel::run_groups`) and must know
//! they kept to their memory: `vecl fuzz` and the tests (`vecl-testkit`
//! re-exports it).

/// The byte every guard holds.
pub const GUARD_BYTE: u8 = 0xa5;

/// Guard bytes on each side of a [`GuardedBuffer`] by default.
pub const GUARD: usize = 64;

/// 64-byte aligned memory with guard bytes around `len` usable bytes.
pub struct GuardedBuffer {
    mem: Vec<u128>,
    start: usize,
    len: usize,
    guard: usize,
}

impl GuardedBuffer {
    /// A copy of `bytes` with [`GUARD`] bytes on each side.
    pub fn new(bytes: &[u8]) -> GuardedBuffer {
        GuardedBuffer::with_guard(bytes, GUARD)
    }

    /// With `guard` bytes on each side (the `__local` arena's are the
    /// padding the kernel ABI promises, `LOCAL_PAD`).
    pub fn with_guard(bytes: &[u8], guard: usize) -> GuardedBuffer {
        let mut mem = vec![0u128; (bytes.len() + 2 * guard + 64).div_ceil(16)];
        let base = mem.as_mut_ptr() as usize;
        let start = (64 - base % 64) % 64 + guard;
        let mut b = GuardedBuffer {
            mem,
            start,
            len: bytes.len(),
            guard,
        };
        let all = b.all_mut();
        all.fill(GUARD_BYTE);
        all[start..start + bytes.len()].copy_from_slice(bytes);
        b
    }

    fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: the u128 storage is plain bytes of this length.
        unsafe {
            std::slice::from_raw_parts_mut(self.mem.as_mut_ptr() as *mut u8, self.mem.len() * 16)
        }
    }

    fn all(&self) -> &[u8] {
        // SAFETY: as in `all_mut`.
        unsafe { std::slice::from_raw_parts(self.mem.as_ptr() as *const u8, self.mem.len() * 16) }
    }

    /// The usable bytes.
    pub fn data(&self) -> &[u8] {
        &self.all()[self.start..self.start + self.len]
    }

    /// How many usable bytes there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no usable bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of the first usable byte (64-aligned).
    pub fn addr(&self) -> u64 {
        self.all()[self.start..].as_ptr() as u64
    }

    /// A pointer to the first usable byte, for the kernel to write through.
    pub fn ptr(&mut self) -> *mut u8 {
        let start = self.start;
        self.all_mut()[start..].as_mut_ptr()
    }

    /// Whether every guard byte still holds [`GUARD_BYTE`].
    pub fn guards_intact(&self) -> bool {
        let all = self.all();
        all[self.start - self.guard..self.start]
            .iter()
            .chain(&all[self.start + self.len..self.start + self.len + self.guard])
            .all(|b| *b == GUARD_BYTE)
    }
}

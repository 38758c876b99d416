//! Memory whose edges a test can check: buffers with guard bytes on both
//! sides (a kernel that writes past its buffer leaves a trace; the JIT
//! crate's [`GuardedBuffer`], shared with `vecl fuzz`), and mappings with
//! inaccessible pages (a kernel that reads past them faults).

pub use vecl_jit::guarded::{GuardedBuffer, GUARD, GUARD_BYTE};

/// The page size the guards are made of.
pub const PAGE: usize = 4096;

/// A zeroed private anonymous mapping, unmapped when dropped, with pages
/// that can be made inaccessible ([`Mapping::guard`]).
pub struct Mapping {
    pub start: *mut u8,
    len: usize,
}

impl Mapping {
    pub fn new(len: usize) -> Mapping {
        // SAFETY: a fresh mapping, owned by the value returned.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mapping {len} bytes");
        Mapping {
            start: base as *mut u8,
            len,
        }
    }

    /// Makes the `pages` pages from byte `offset` (page-aligned) on
    /// inaccessible: an access there faults.
    pub fn guard(&self, offset: usize, pages: usize) {
        assert!(offset.is_multiple_of(PAGE) && offset + pages * PAGE <= self.len);
        // SAFETY: whole pages inside the mapping.
        let r = unsafe {
            libc::mprotect(
                self.start.add(offset) as *mut _,
                pages * PAGE,
                libc::PROT_NONE,
            )
        };
        assert_eq!(r, 0, "guarding pages");
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe {
            libc::munmap(self.start as *mut _, self.len);
        }
    }
}

//! 128-byte aligned host allocations that report failure instead of aborting.
//!
//! Buffers, `__local` arenas and context areas all live in [`AlignedBytes`]:
//! 128-byte alignment is the device's `CL_DEVICE_MEM_BASE_ADDR_ALIGN` (the
//! size of `long16`, as the full profile asks), lets the JIT use aligned
//! vector accesses and keeps two workers' arenas off one cache line. Allocation goes through
//! `std::alloc::alloc` directly so a failed allocation becomes
//! [`Error::MemObjectAllocationFailure`] rather than a process abort.
//!
//! Large blocks are anonymous mappings, which Linux grants beyond the
//! physical memory (overcommit): the shortage would surface later, as the
//! process being killed when the pages are touched. So the live blocks
//! together may not exceed `CL_DEVICE_GLOBAL_MEM_SIZE`
//! ([`crate::device_limits::global_mem_size`]); a block past it is the
//! same allocation failure.

use crate::error::{Error, Result};
use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of all live blocks.
static LIVE: AtomicU64 = AtomicU64::new(0);

/// Counts `len` more live bytes, or fails when the device's memory would
/// be exceeded.
fn reserve(len: usize) -> Result<()> {
    let len = len as u64;
    let limit = crate::device_limits::global_mem_size();
    LIVE.fetch_update(Ordering::AcqRel, Ordering::Acquire, |live| {
        live.checked_add(len).filter(|&total| total <= limit)
    })
    .map(|_| ())
    .map_err(|_| Error::MemObjectAllocationFailure(len))
}

fn release(len: usize) {
    LIVE.fetch_sub(len as u64, Ordering::AcqRel);
}

/// The alignment of every allocation the runtime makes for the device.
pub const ALIGN: usize = 128;

/// A type whose alignment is [`ALIGN`], for dangling empty blocks.
#[repr(align(128))]
struct AlignMarker;

/// A 128-byte aligned block of host memory, zero-initialised or holding a
/// copy ([`AlignedBytes::copied`]).
///
/// The bytes are only ever reached through raw pointers (kernels on several
/// threads write them concurrently), never through Rust references that
/// would claim exclusive access.
pub struct AlignedBytes {
    ptr: NonNull<u8>,
    len: usize,
    /// The anonymous mapping behind a large block; `None` for heap blocks.
    mapping: Option<memmap2::MmapMut>,
}

/// Blocks of at least this many bytes are anonymous mappings advised to use
/// transparent huge pages (2 MiB on x86-64): a kernel streaming through a
/// large buffer then misses the TLB once per 2 MiB instead of once per 4 KiB.
pub const HUGE_PAGE: usize = 2 << 20;

/// Blocks from this many bytes up to [`HUGE_PAGE`] are anonymous mappings
/// whose pages are zeroed and mapped in when made (`MAP_POPULATE`), not
/// one page fault at a time. On the 2-core development machine, a
/// process's first three 256 KiB buffers (with the queue and arguments)
/// went from 0.37 to 0.30 ms (`examples/first_result.rs`, medians of 8);
/// below 64 KiB the allocator's heap (often pages already in use) is
/// cheaper than a system call.
pub const POPULATED: usize = 64 << 10;

// SAFETY: `AlignedBytes` owns its allocation; the pointer is not shared with
// thread-local state, and accesses through it are the caller's (OpenCL's)
// synchronisation responsibility.
unsafe impl Send for AlignedBytes {}
// SAFETY: as above: `&AlignedBytes` only hands out the raw pointer.
unsafe impl Sync for AlignedBytes {}

impl AlignedBytes {
    /// Allocates `len` zeroed bytes (a zero-length request still yields a
    /// valid, aligned, non-null pointer).
    pub fn zeroed(len: usize) -> Result<AlignedBytes> {
        if len == 0 {
            return Ok(AlignedBytes::empty());
        }
        reserve(len)?;
        let made = if len >= HUGE_PAGE {
            AlignedBytes::mapped(len)
        } else if len >= POPULATED {
            AlignedBytes::populated(len)
        } else {
            AlignedBytes::heap(len)
        };
        if made.is_err() {
            release(len);
        }
        made
    }

    /// Allocates `len` bytes holding a copy of the `len` bytes at `src`:
    /// what [`AlignedBytes::zeroed`] and a copy would give, without
    /// zeroing first what the copy overwrites (for a block from fresh
    /// pages, the zeroing was the pass that took their page faults).
    ///
    /// # Safety
    ///
    /// `src` must be valid for reads of `len` bytes.
    pub unsafe fn copied(src: *const u8, len: usize) -> Result<AlignedBytes> {
        if len == 0 {
            return Ok(AlignedBytes::empty());
        }
        reserve(len)?;
        let made = if len >= HUGE_PAGE {
            // Mapped blocks come zeroed from the kernel at no cost.
            AlignedBytes::mapped(len)
        } else if len >= POPULATED {
            AlignedBytes::populated(len)
        } else {
            AlignedBytes::heap_with(len, false)
        };
        let Ok(block) = made else {
            release(len);
            return made;
        };
        // SAFETY: the caller's promise for `src`; `block` is a fresh
        // allocation of `len` bytes, so the two do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src, block.as_ptr(), len) };
        Ok(block)
    }

    fn heap(len: usize) -> Result<AlignedBytes> {
        AlignedBytes::heap_with(len, true)
    }

    /// A heap block, zeroed when `zero` (else its bytes are the caller's
    /// to write before anything reads them).
    fn heap_with(len: usize, zero: bool) -> Result<AlignedBytes> {
        let layout = Layout::from_size_align(len, ALIGN)
            .map_err(|_| Error::MemObjectAllocationFailure(len as u64))?;
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe {
            if zero {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        let ptr = NonNull::new(raw).ok_or(Error::MemObjectAllocationFailure(len as u64))?;
        Ok(AlignedBytes {
            ptr,
            len,
            mapping: None,
        })
    }

    /// A large block: an anonymous mapping (zeroed by the kernel) one huge
    /// page longer than asked, so the block can start on a huge-page
    /// boundary, advised to be backed by huge pages where the system allows.
    fn mapped(len: usize) -> Result<AlignedBytes> {
        let fail = || Error::MemObjectAllocationFailure(len as u64);
        let total = len.checked_add(HUGE_PAGE).ok_or_else(fail)?;
        let mut mapping = memmap2::MmapMut::map_anon(total).map_err(|_| fail())?;
        let base = mapping.as_mut_ptr();
        let offset = (HUGE_PAGE - base as usize % HUGE_PAGE) % HUGE_PAGE;
        // Only advice: a system without transparent huge pages still gets
        // correct, ordinary pages.
        let _ = mapping.advise_range(memmap2::Advice::HugePage, offset, len);
        // SAFETY: `offset + len <= total`, inside the mapping.
        let ptr = NonNull::new(unsafe { base.add(offset) }).ok_or_else(fail)?;
        Ok(AlignedBytes {
            ptr,
            len,
            mapping: Some(mapping),
        })
    }

    /// A block of middle size: an anonymous mapping whose pages the
    /// kernel zeroes and maps in one call (`MAP_POPULATE`), instead of
    /// one page fault per page at the first write, as a fresh heap block
    /// of this size (itself a mapping of the allocator's) would take.
    fn populated(len: usize) -> Result<AlignedBytes> {
        let fail = || Error::MemObjectAllocationFailure(len as u64);
        let mut mapping = memmap2::MmapOptions::new()
            .len(len)
            .populate()
            .map_anon()
            .map_err(|_| fail())?;
        // Page-aligned, so `ALIGN`-aligned.
        let ptr = NonNull::new(mapping.as_mut_ptr()).ok_or_else(fail)?;
        Ok(AlignedBytes {
            ptr,
            len,
            mapping: Some(mapping),
        })
    }

    /// An empty block (never fails).
    pub fn empty() -> AlignedBytes {
        AlignedBytes {
            ptr: NonNull::<AlignMarker>::dangling().cast(),
            len: 0,
            mapping: None,
        }
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the block is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first byte.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Makes the block at least `len` bytes long, discarding its contents
    /// when it has to grow (arenas are scratch space).
    pub fn ensure(&mut self, len: usize) -> Result<()> {
        if self.len < len {
            // Grow geometrically so a sequence of slightly larger launches
            // does not reallocate every time.
            *self = AlignedBytes::zeroed(len.max(self.len.saturating_mul(2)))?;
        }
        Ok(())
    }
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        release(self.len);
        if self.len != 0 && self.mapping.is_none() {
            // SAFETY: allocated in `zeroed` with exactly this layout.
            unsafe {
                alloc::dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.len, ALIGN),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_and_zeroed() {
        for len in [0usize, 1, 63, 64, 65, 4096, 100_000] {
            let block = AlignedBytes::zeroed(len).expect("allocation");
            assert_eq!(block.as_ptr() as usize % ALIGN, 0);
            assert_eq!(block.len(), len);
            for i in 0..len {
                // SAFETY: `i < len`.
                assert_eq!(unsafe { *block.as_ptr().add(i) }, 0);
            }
        }
    }

    #[test]
    fn copied_blocks_hold_the_source_aligned() {
        for len in [0usize, 1, 127, 128, 4097, 300_000, HUGE_PAGE + 17] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            // SAFETY: `src` holds `len` bytes.
            let block = unsafe { AlignedBytes::copied(src.as_ptr(), len) }.expect("allocation");
            assert_eq!(block.as_ptr() as usize % ALIGN, 0);
            assert_eq!(block.len(), len);
            assert_eq!(block.mapping.is_some(), len >= POPULATED);
            for (i, &b) in src.iter().enumerate() {
                // SAFETY: `i < len`.
                assert_eq!(unsafe { *block.as_ptr().add(i) }, b);
            }
        }
    }

    #[test]
    fn middle_blocks_are_populated_mappings_zeroed_and_writable() {
        for (len, mapped) in [(POPULATED - 1, false), (POPULATED, true), (300_000, true)] {
            let block = AlignedBytes::zeroed(len).expect("allocation");
            assert_eq!(block.mapping.is_some(), mapped, "{len} bytes");
            assert_eq!(block.as_ptr() as usize % ALIGN, 0);
            for i in (0..len).step_by(1021).chain([len - 1]) {
                // SAFETY: `i < len`.
                unsafe {
                    assert_eq!(*block.as_ptr().add(i), 0);
                    *block.as_ptr().add(i) = 9;
                    assert_eq!(*block.as_ptr().add(i), 9);
                }
            }
        }
    }

    #[test]
    fn large_blocks_are_mapped_aligned_zeroed_and_writable() {
        let len = HUGE_PAGE + 4100;
        let block = AlignedBytes::zeroed(len).expect("allocation");
        assert!(block.mapping.is_some());
        assert_eq!(block.as_ptr() as usize % HUGE_PAGE, 0);
        for i in (0..len).step_by(4093).chain([len - 1]) {
            // SAFETY: `i < len`.
            unsafe {
                assert_eq!(*block.as_ptr().add(i), 0);
                *block.as_ptr().add(i) = 7;
                assert_eq!(*block.as_ptr().add(i), 7);
            }
        }
    }

    #[test]
    fn live_blocks_stay_within_the_device_memory() {
        // Mapped and never touched: no physical memory is used.
        let half = (crate::device_limits::global_mem_size() / 2) as usize + HUGE_PAGE;
        let first = AlignedBytes::zeroed(half).expect("half the device memory");
        let err = AlignedBytes::zeroed(half).err();
        assert!(matches!(err, Some(Error::MemObjectAllocationFailure(_))));
        drop(first);
        AlignedBytes::zeroed(half).expect("again once the first is gone");
    }

    #[test]
    fn impossible_allocation_is_an_error() {
        let err = AlignedBytes::zeroed(usize::MAX - 1000).err();
        assert!(matches!(err, Some(Error::MemObjectAllocationFailure(_))));
    }

    #[test]
    fn ensure_grows_only_when_needed() {
        let mut block = AlignedBytes::zeroed(128).expect("allocation");
        let before = block.as_ptr();
        block.ensure(100).expect("no growth");
        assert_eq!(block.as_ptr(), before);
        block.ensure(1000).expect("growth");
        assert!(block.len() >= 1000);
        assert_eq!(block.as_ptr() as usize % ALIGN, 0);
    }
}

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
//!
//! Blocks of [`COLOR_MIN`] bytes and more start at staggered offsets
//! within a 4 KiB page ([`next_color`]), not all at one: an access to
//! `b[k - 1]` after a store to `a[k]` whose addresses agree in their low
//! twelve bits looked to the core like a load of the stored bytes (4K
//! aliasing), and FDTD's `fdtd_e` took a fifth more CPU with its three
//! buffers at one offset (`docs/runtime.md`, "Buffer placement").

use crate::error::{Error, Result};
use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

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

/// Blocks of at least this many bytes start at a staggered offset within
/// a 4 KiB page ([`next_color`]); the offset, at most 4 KiB less one
/// [`ALIGN`], costs a smaller block too large a share of its size.
pub const COLOR_MIN: usize = 32 << 10;

/// The offsets a staggered block may start at: multiples of [`ALIGN`]
/// within a 4 KiB page.
const COLORS: usize = 4096 / ALIGN;

/// Steps through the colors: odd, so that every color comes round once
/// in [`COLORS`] blocks, and 9 × 128 = 1152 bytes apart, so that blocks
/// allocated one after another (a kernel's buffers, usually) start more
/// than a few chunks' bytes apart in their pages.
const COLOR_STEP: usize = 9;

/// Blocks staggered so far.
static COLORED: AtomicUsize = AtomicUsize::new(0);

/// The offset within a 4 KiB page of the next large block: the colors
/// 0, 1152, 2304, 3456, 512, … bytes in turn (a multiple of [`ALIGN`]).
pub fn next_color() -> usize {
    let n = COLORED.fetch_add(1, Ordering::Relaxed);
    (n.wrapping_mul(COLOR_STEP) % COLORS) * ALIGN
}

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
    /// Bytes from the start of the heap allocation (or the huge-page
    /// boundary) to `ptr`: the block's color ([`next_color`]).
    color: usize,
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
        AlignedBytes::made(len, true)
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
        let block = AlignedBytes::made(len, false)?;
        if len != 0 {
            // SAFETY: the caller's promise for `src`; `block` is a fresh
            // allocation of `len` bytes, so the two do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(src, block.as_ptr(), len) };
        }
        Ok(block)
    }

    /// A block of `len` bytes at its color ([`next_color`]), zeroed when
    /// `zero` (mapped blocks always are: the kernel zeroes their pages at
    /// no cost to us; a heap block left unzeroed is its caller's to write
    /// before anything reads it).
    fn made(len: usize, zero: bool) -> Result<AlignedBytes> {
        if len == 0 {
            return Ok(AlignedBytes::empty());
        }
        reserve(len)?;
        let color = if len >= COLOR_MIN { next_color() } else { 0 };
        let made = if len >= HUGE_PAGE {
            AlignedBytes::mapped(len, color)
        } else if len >= POPULATED {
            AlignedBytes::populated(len, color, zero)
        } else {
            AlignedBytes::heap(len, color, zero)
        };
        if made.is_err() {
            release(len);
        }
        made
    }

    /// A heap block whose first byte is `color` bytes into its allocation,
    /// zeroed when `zero`.
    fn heap(len: usize, color: usize, zero: bool) -> Result<AlignedBytes> {
        let fail = || Error::MemObjectAllocationFailure(len as u64);
        let size = len.checked_add(color).ok_or_else(fail)?;
        let layout = Layout::from_size_align(size, ALIGN).map_err(|_| fail())?;
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe {
            if zero {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        let raw = NonNull::new(raw).ok_or_else(fail)?;
        // SAFETY: `color + len` is the allocation's size.
        let ptr = unsafe { raw.add(color) };
        Ok(AlignedBytes {
            ptr,
            len,
            color,
            mapping: None,
        })
    }

    /// A large block: an anonymous mapping (zeroed by the kernel) one huge
    /// page and its color longer than asked, so the block can start
    /// `color` bytes past a huge-page boundary, advised to be backed by
    /// huge pages where the system allows.
    fn mapped(len: usize, color: usize) -> Result<AlignedBytes> {
        let fail = || Error::MemObjectAllocationFailure(len as u64);
        let total = len.checked_add(HUGE_PAGE + color).ok_or_else(fail)?;
        let mut mapping = memmap2::MmapMut::map_anon(total).map_err(|_| fail())?;
        let base = mapping.as_mut_ptr();
        let offset = (HUGE_PAGE - base as usize % HUGE_PAGE) % HUGE_PAGE;
        // Only advice: a system without transparent huge pages still gets
        // correct, ordinary pages.
        let _ = mapping.advise_range(memmap2::Advice::HugePage, offset, len + color);
        // SAFETY: `offset + color + len <= total`, inside the mapping.
        let ptr = NonNull::new(unsafe { base.add(offset + color) }).ok_or_else(fail)?;
        Ok(AlignedBytes {
            ptr,
            len,
            color,
            mapping: Some(mapping),
        })
    }

    /// A block of middle size: an anonymous mapping whose pages the
    /// kernel zeroes and maps in one call (`MAP_POPULATE`), instead of
    /// one page fault per page at the first write, as a fresh heap block
    /// of this size (itself a mapping of the allocator's) would take. The
    /// block starts `color` bytes into the mapping.
    ///
    /// A mapping a dropped block of this size left in [`KEPT`] serves
    /// first (its pages already mapped in; zeroed here when `zero`).
    fn populated(len: usize, color: usize, zero: bool) -> Result<AlignedBytes> {
        let fail = || Error::MemObjectAllocationFailure(len as u64);
        let total = len.checked_add(color).ok_or_else(fail)?;
        let mut mapping = match kept_mapping(total) {
            Some(mut kept) => {
                if zero {
                    kept[color..total].fill(0);
                }
                kept
            }
            // Room for any color, so that a kept mapping serves the next
            // block of this length whatever its color.
            None => memmap2::MmapOptions::new()
                .len(len.checked_add(4096 - ALIGN).ok_or_else(fail)?)
                .populate()
                .map_anon()
                .map_err(|_| fail())?,
        };
        // Page-aligned, so `ALIGN`-aligned, and so is `color`.
        // SAFETY: `color + len` is within the mapping's length.
        let ptr = NonNull::new(unsafe { mapping.as_mut_ptr().add(color) }).ok_or_else(fail)?;
        Ok(AlignedBytes {
            ptr,
            len,
            color,
            mapping: Some(mapping),
        })
    }

    /// An empty block (never fails).
    pub fn empty() -> AlignedBytes {
        AlignedBytes {
            ptr: NonNull::<AlignMarker>::dangling().cast(),
            len: 0,
            color: 0,
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

/// Mappings of middle-sized blocks ([`POPULATED`] up to [`HUGE_PAGE`])
/// whose blocks were dropped, kept for the next block of about their size:
/// a program that makes and drops buffers of one size again and again (a
/// temporary per call, a fresh set of buffers per program) then takes no
/// system call and no page fault for them. At most [`KEPT_BYTES`] in all;
/// a block past that is unmapped as before.
static KEPT: std::sync::Mutex<Vec<memmap2::MmapMut>> = std::sync::Mutex::new(Vec::new());

/// The most bytes of mappings the kept list holds (`KEPT`).
pub const KEPT_BYTES: usize = 16 << 20;

/// A kept mapping of at least `total` bytes and at most two pages more
/// (each is made a page longer than its block, for any color).
fn kept_mapping(total: usize) -> Option<memmap2::MmapMut> {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let at = kept
        .iter()
        .rposition(|m| m.len() >= total && m.len() - total <= 2 * 4096)?;
    Some(kept.swap_remove(at))
}

/// Keeps `mapping` in [`KEPT`] when it fits, else unmaps it (outside the
/// lock: `munmap` is a system call).
fn keep_mapping(mapping: memmap2::MmapMut) {
    let unkept = {
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        let held: usize = kept.iter().map(|m| m.len()).sum();
        if held + mapping.len() <= KEPT_BYTES {
            kept.push(mapping);
            None
        } else {
            Some(mapping)
        }
    };
    drop(unkept);
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        release(self.len);
        if (POPULATED..HUGE_PAGE).contains(&self.len) {
            if let Some(mapping) = self.mapping.take() {
                keep_mapping(mapping);
                return;
            }
        }
        if self.len != 0 && self.mapping.is_none() {
            // SAFETY: allocated in `heap`, `color` bytes before `ptr`,
            // with exactly this layout.
            unsafe {
                alloc::dealloc(
                    self.ptr.as_ptr().sub(self.color),
                    Layout::from_size_align_unchecked(self.len + self.color, ALIGN),
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
    fn large_blocks_are_mapped_aligned_zeroed_and_writable() {
        let len = HUGE_PAGE + 4100;
        let block = AlignedBytes::zeroed(len).expect("allocation");
        assert!(block.mapping.is_some());
        assert_eq!(block.as_ptr() as usize % HUGE_PAGE, block.color);
        assert!(block.color < 4096 && block.color.is_multiple_of(ALIGN));
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
    fn a_dropped_middle_block_serves_the_next_zeroed_or_copied() {
        for len in [POPULATED, 200_000, 200_001, HUGE_PAGE - 1] {
            for round in 0..3u8 {
                let block = AlignedBytes::zeroed(len).expect("allocation");
                for i in (0..len).step_by(997).chain([len - 1]) {
                    // SAFETY: `i < len`.
                    assert_eq!(unsafe { *block.as_ptr().add(i) }, 0, "{len} bytes, {round}");
                }
                // SAFETY: the block's `len` bytes.
                unsafe { std::ptr::write_bytes(block.as_ptr(), 0xAB, len) };
                drop(block);
                let src: Vec<u8> = (0..len).map(|i| (i % 251) as u8 ^ round).collect();
                // SAFETY: `src` holds `len` bytes.
                let copy = unsafe { AlignedBytes::copied(src.as_ptr(), len) }.expect("copy");
                assert_eq!(copy.as_ptr() as usize % ALIGN, 0);
                for i in (0..len).step_by(991).chain([0, len - 1]) {
                    // SAFETY: `i < len`.
                    assert_eq!(unsafe { *copy.as_ptr().add(i) }, src[i]);
                }
            }
        }
        let held: usize = KEPT.lock().unwrap().iter().map(|m| m.len()).sum();
        assert!(held <= KEPT_BYTES);
    }

    #[test]
    fn large_blocks_start_at_staggered_offsets_small_ones_do_not() {
        // Other tests allocate at the same time: the colors of blocks
        // made here need not be consecutive, only mostly distinct.
        let blocks: Vec<AlignedBytes> = (0..8)
            .map(|_| AlignedBytes::zeroed(COLOR_MIN).expect("allocation"))
            .collect();
        let mut offsets: Vec<usize> = blocks.iter().map(|b| b.as_ptr() as usize % 4096).collect();
        for (block, offset) in blocks.iter().zip(&offsets) {
            assert_eq!(*offset % ALIGN, 0);
            assert_eq!(block.color % ALIGN, 0);
            assert!(block.color < 4096);
        }
        offsets.sort_unstable();
        offsets.dedup();
        assert!(offsets.len() >= 2, "eight large blocks at one page offset");
        for block in &blocks {
            // Every byte of the block is its own: write the ends.
            // SAFETY: both inside the block.
            unsafe {
                *block.as_ptr() = 1;
                *block.as_ptr().add(block.len() - 1) = 1;
            }
        }
        let small = AlignedBytes::zeroed(COLOR_MIN - 1).expect("allocation");
        assert_eq!(small.color, 0);
    }

    #[test]
    fn colors_cycle_through_every_page_offset() {
        let mut seen: Vec<usize> = (0..COLORS)
            .map(|n| (n * COLOR_STEP % COLORS) * ALIGN)
            .collect();
        assert_eq!(&seen[..4], &[0, 1152, 2304, 3456]);
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), COLORS);
        assert!(seen.iter().all(|&c| c < 4096 && c % ALIGN == 0));
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

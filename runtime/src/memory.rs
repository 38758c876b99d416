//! Memory objects: buffers and sub-buffers in host memory.
//!
//! A buffer is a 128-byte aligned host allocation, or — with
//! `CL_MEM_USE_HOST_PTR` — the application's own memory (zero copy: the
//! kernel reads and writes the host pointer directly). A sub-buffer is a
//! window on its parent's bytes. Kernels on several threads and host
//! commands reach the bytes through raw pointers only; OpenCL's event and
//! queue ordering is what keeps those accesses apart.
//!
//! The `cl_mem_flags` rules of `clCreateBuffer` and `clCreateSubBuffer` are
//! checked here so every API layer enforces the same ones.
//!
//! An image is a memory object too: the same storage with an
//! [`ImageInfo`] (format and layout) attached, made by `crate::image`.

use crate::device_limits::{max_mem_alloc_size, MEM_BASE_ADDR_ALIGN_BITS};
use crate::error::{Error, Result};
use crate::host_alloc::AlignedBytes;
use crate::image::ImageInfo;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// `cl_mem_flags`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MemFlags(pub u64);

impl MemFlags {
    /// `CL_MEM_READ_WRITE`.
    pub const READ_WRITE: MemFlags = MemFlags(1 << 0);
    /// `CL_MEM_WRITE_ONLY`.
    pub const WRITE_ONLY: MemFlags = MemFlags(1 << 1);
    /// `CL_MEM_READ_ONLY`.
    pub const READ_ONLY: MemFlags = MemFlags(1 << 2);
    /// `CL_MEM_USE_HOST_PTR`.
    pub const USE_HOST_PTR: MemFlags = MemFlags(1 << 3);
    /// `CL_MEM_ALLOC_HOST_PTR`.
    pub const ALLOC_HOST_PTR: MemFlags = MemFlags(1 << 4);
    /// `CL_MEM_COPY_HOST_PTR`.
    pub const COPY_HOST_PTR: MemFlags = MemFlags(1 << 5);
    /// `CL_MEM_HOST_WRITE_ONLY`.
    pub const HOST_WRITE_ONLY: MemFlags = MemFlags(1 << 7);
    /// `CL_MEM_HOST_READ_ONLY`.
    pub const HOST_READ_ONLY: MemFlags = MemFlags(1 << 8);
    /// `CL_MEM_HOST_NO_ACCESS`.
    pub const HOST_NO_ACCESS: MemFlags = MemFlags(1 << 9);
    /// `CL_MEM_KERNEL_READ_AND_WRITE` (images only; accepted and ignored).
    pub const KERNEL_READ_AND_WRITE: MemFlags = MemFlags(1 << 12);

    const DEVICE_ACCESS: MemFlags = MemFlags(0b111);
    const HOST_PTR_KIND: MemFlags = MemFlags((1 << 3) | (1 << 4) | (1 << 5));
    const HOST_ACCESS: MemFlags = MemFlags((1 << 7) | (1 << 8) | (1 << 9));
    const ALL: MemFlags = MemFlags(0b11_1011_1111 | (1 << 12));

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: MemFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any bit of `other` is set.
    pub fn intersects(self, other: MemFlags) -> bool {
        self.0 & other.0 != 0
    }

    fn masked(self, mask: MemFlags) -> MemFlags {
        MemFlags(self.0 & mask.0)
    }

    /// Whether the host may read the object (`clEnqueueReadBuffer`, map for reading).
    pub fn host_can_read(self) -> bool {
        !self.intersects(MemFlags(Self::HOST_WRITE_ONLY.0 | Self::HOST_NO_ACCESS.0))
    }

    /// Whether the host may write the object.
    pub fn host_can_write(self) -> bool {
        !self.intersects(MemFlags(Self::HOST_READ_ONLY.0 | Self::HOST_NO_ACCESS.0))
    }
}

impl std::ops::BitOr for MemFlags {
    type Output = MemFlags;
    fn bitor(self, rhs: MemFlags) -> MemFlags {
        MemFlags(self.0 | rhs.0)
    }
}

impl fmt::Debug for MemFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(MemFlags, &str); 10] = [
            (MemFlags::READ_WRITE, "READ_WRITE"),
            (MemFlags::WRITE_ONLY, "WRITE_ONLY"),
            (MemFlags::READ_ONLY, "READ_ONLY"),
            (MemFlags::USE_HOST_PTR, "USE_HOST_PTR"),
            (MemFlags::ALLOC_HOST_PTR, "ALLOC_HOST_PTR"),
            (MemFlags::COPY_HOST_PTR, "COPY_HOST_PTR"),
            (MemFlags::HOST_WRITE_ONLY, "HOST_WRITE_ONLY"),
            (MemFlags::HOST_READ_ONLY, "HOST_READ_ONLY"),
            (MemFlags::HOST_NO_ACCESS, "HOST_NO_ACCESS"),
            (MemFlags::KERNEL_READ_AND_WRITE, "KERNEL_READ_AND_WRITE"),
        ];
        let names: Vec<&str> = NAMES
            .iter()
            .filter(|(flag, _)| self.contains(*flag))
            .map(|(_, n)| *n)
            .collect();
        write!(
            f,
            "MemFlags({})",
            if names.is_empty() {
                "0".to_string()
            } else {
                names.join(" | ")
            }
        )
    }
}

/// Where a memory object's bytes are.
pub(crate) enum Storage {
    /// Allocated by the device.
    Owned(AlignedBytes),
    /// The application's memory (`CL_MEM_USE_HOST_PTR`).
    Host(*mut u8),
    /// A window on a parent buffer (also the storage of an image made from
    /// a buffer).
    Sub { parent: Mem, origin: u64 },
}

struct MemObject {
    flags: MemFlags,
    size: u64,
    storage: Storage,
    /// The `host_ptr` given at creation (`CL_MEM_HOST_PTR`), for USE_HOST_PTR.
    host_ptr: *mut u8,
    /// The format and layout of an image; `None` for buffers.
    image: Option<ImageInfo>,
    map_count: AtomicU32,
    /// Pointers handed out by map and not yet unmapped.
    mappings: Mutex<Vec<*mut u8>>,
    destructors: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

// SAFETY: the raw pointers are addresses of memory the object owns or that
// the application promised (USE_HOST_PTR) to keep valid while the object
// lives; they are only dereferenced by commands ordered by OpenCL's rules.
unsafe impl Send for MemObject {}
// SAFETY: as above; shared state is behind atomics and mutexes.
unsafe impl Sync for MemObject {}

impl Drop for MemObject {
    fn drop(&mut self) {
        // "The registered user callback functions are called in the reverse
        // order in which they were registered."
        let callbacks = std::mem::take(
            self.destructors
                .get_mut()
                .unwrap_or_else(|e| e.into_inner()),
        );
        for callback in callbacks.into_iter().rev() {
            callback();
        }
    }
}

/// A buffer or sub-buffer. Cloning shares the object (like `clRetainMemObject`).
#[derive(Clone)]
pub struct Mem(Arc<MemObject>);

impl fmt::Debug for Mem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mem")
            .field("flags", &self.flags())
            .field("size", &self.size())
            .finish()
    }
}

/// Checks the flag combinations `clCreateBuffer` rejects.
pub(crate) fn check_buffer_flags(flags: MemFlags) -> Result<()> {
    if flags.0 & !MemFlags::ALL.0 != 0 {
        return Err(Error::InvalidValue(format!(
            "unknown cl_mem_flags bits {:#x}",
            flags.0 & !MemFlags::ALL.0
        )));
    }
    if flags.masked(MemFlags::DEVICE_ACCESS).0.count_ones() > 1 {
        return Err(Error::InvalidValue(
            "READ_WRITE, WRITE_ONLY and READ_ONLY are mutually exclusive".into(),
        ));
    }
    if flags.contains(MemFlags::USE_HOST_PTR)
        && flags.intersects(MemFlags::ALLOC_HOST_PTR | MemFlags::COPY_HOST_PTR)
    {
        return Err(Error::InvalidValue(
            "USE_HOST_PTR excludes ALLOC_HOST_PTR and COPY_HOST_PTR".into(),
        ));
    }
    if flags.masked(MemFlags::HOST_ACCESS).0.count_ones() > 1 {
        return Err(Error::InvalidValue(
            "HOST_WRITE_ONLY, HOST_READ_ONLY and HOST_NO_ACCESS are mutually exclusive".into(),
        ));
    }
    Ok(())
}

impl Mem {
    /// A new buffer of `size` bytes, zero-initialised, without a host pointer.
    pub fn new(flags: MemFlags, size: u64) -> Result<Mem> {
        // SAFETY: a null host pointer is never dereferenced.
        unsafe { Mem::create(flags, size, std::ptr::null_mut()) }
    }

    /// A new buffer holding a copy of `data` (`CL_MEM_COPY_HOST_PTR` is implied).
    pub fn from_bytes(flags: MemFlags, data: &[u8]) -> Result<Mem> {
        if flags.contains(MemFlags::USE_HOST_PTR) {
            return Err(Error::InvalidValue(
                "from_bytes copies; USE_HOST_PTR needs Mem::create".into(),
            ));
        }
        // SAFETY: `data` is valid for `data.len()` bytes for the duration of
        // the call, which is all COPY_HOST_PTR needs.
        unsafe {
            Mem::create(
                flags | MemFlags::COPY_HOST_PTR,
                data.len() as u64,
                data.as_ptr().cast_mut(),
            )
        }
    }

    /// `clCreateBuffer`.
    ///
    /// # Safety
    /// With `COPY_HOST_PTR`, `host_ptr` must be valid for reads of `size`
    /// bytes during the call. With `USE_HOST_PTR`, it must be valid for reads
    /// and writes of `size` bytes for as long as the buffer (and any
    /// sub-buffer or kernel argument holding it) lives.
    pub unsafe fn create(flags: MemFlags, size: u64, host_ptr: *mut u8) -> Result<Mem> {
        check_buffer_flags(flags)?;
        let wants_ptr = flags.intersects(MemFlags::USE_HOST_PTR | MemFlags::COPY_HOST_PTR);
        if wants_ptr && host_ptr.is_null() {
            return Err(Error::InvalidHostPtr(
                "USE_HOST_PTR and COPY_HOST_PTR need a host pointer".into(),
            ));
        }
        if !wants_ptr && !host_ptr.is_null() {
            return Err(Error::InvalidHostPtr(
                "a host pointer is only allowed with USE_HOST_PTR or COPY_HOST_PTR".into(),
            ));
        }
        if size == 0 || size > max_mem_alloc_size() {
            return Err(Error::InvalidBufferSize(format!(
                "{size} bytes (must be 1 to {} bytes)",
                max_mem_alloc_size()
            )));
        }
        let len = usize::try_from(size).map_err(|_| Error::MemObjectAllocationFailure(size))?;
        let storage = if flags.contains(MemFlags::USE_HOST_PTR) {
            Storage::Host(host_ptr)
        } else {
            let bytes = if flags.contains(MemFlags::COPY_HOST_PTR) {
                // SAFETY: the caller guarantees `host_ptr` is readable for
                // `size` bytes.
                unsafe { AlignedBytes::copied(host_ptr, len)? }
            } else {
                AlignedBytes::zeroed(len)?
            };
            Storage::Owned(bytes)
        };
        let host_ptr = if flags.contains(MemFlags::USE_HOST_PTR) {
            host_ptr
        } else {
            std::ptr::null_mut()
        };
        Ok(Mem::from_parts(flags, size, storage, host_ptr))
    }

    fn from_parts(flags: MemFlags, size: u64, storage: Storage, host_ptr: *mut u8) -> Mem {
        Mem::with_image(flags, size, storage, host_ptr, None)
    }

    /// A memory object of `size` bytes in `storage`, an image when `image`
    /// is given.
    pub(crate) fn with_image(
        flags: MemFlags,
        size: u64,
        storage: Storage,
        host_ptr: *mut u8,
        image: Option<ImageInfo>,
    ) -> Mem {
        Mem(Arc::new(MemObject {
            flags,
            size,
            storage,
            host_ptr,
            image,
            map_count: AtomicU32::new(0),
            mappings: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
        }))
    }

    /// `clCreateSubBuffer` with `CL_BUFFER_CREATE_TYPE_REGION`.
    pub fn create_sub_buffer(&self, flags: MemFlags, origin: u64, size: u64) -> Result<Mem> {
        if self.0.image.is_some() {
            return Err(Error::InvalidMemObject(
                "a sub-buffer cannot be created from an image".into(),
            ));
        }
        if let Storage::Sub { .. } = self.0.storage {
            return Err(Error::InvalidMemObject(
                "a sub-buffer cannot be created from a sub-buffer".into(),
            ));
        }
        check_buffer_flags(flags)?;
        if flags.intersects(MemFlags::HOST_PTR_KIND) {
            return Err(Error::InvalidValue(
                "sub-buffer flags cannot name a host pointer kind".into(),
            ));
        }
        let parent = self.flags();
        // "CL_INVALID_VALUE if the buffer was created with CL_MEM_WRITE_ONLY and
        // flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY", and the converse.
        let device = flags.masked(MemFlags::DEVICE_ACCESS);
        if (parent.contains(MemFlags::WRITE_ONLY)
            && device.intersects(MemFlags::READ_WRITE | MemFlags::READ_ONLY))
            || (parent.contains(MemFlags::READ_ONLY)
                && device.intersects(MemFlags::READ_WRITE | MemFlags::WRITE_ONLY))
        {
            return Err(Error::InvalidValue(
                "sub-buffer device access wider than its parent's".into(),
            ));
        }
        let host = flags.masked(MemFlags::HOST_ACCESS);
        if (parent.contains(MemFlags::HOST_WRITE_ONLY) && host.contains(MemFlags::HOST_READ_ONLY))
            || (parent.contains(MemFlags::HOST_READ_ONLY)
                && host.contains(MemFlags::HOST_WRITE_ONLY))
            || (parent.contains(MemFlags::HOST_NO_ACCESS)
                && host.intersects(MemFlags::HOST_READ_ONLY | MemFlags::HOST_WRITE_ONLY))
        {
            return Err(Error::InvalidValue(
                "sub-buffer host access wider than its parent's".into(),
            ));
        }
        if size == 0 {
            return Err(Error::InvalidBufferSize(
                "a sub-buffer needs a non-zero size".into(),
            ));
        }
        if origin.checked_add(size).is_none_or(|end| end > self.size()) {
            return Err(Error::InvalidValue(format!(
                "region {origin}+{size} exceeds the parent's {} bytes",
                self.size()
            )));
        }
        if !origin.is_multiple_of(u64::from(MEM_BASE_ADDR_ALIGN_BITS) / 8) {
            return Err(Error::MisalignedSubBufferOffset(origin));
        }
        // Unspecified access flags are inherited from the parent.
        let mut inherited = flags.0 | parent.masked(MemFlags::HOST_PTR_KIND).0;
        if device.0 == 0 {
            inherited |= parent.masked(MemFlags::DEVICE_ACCESS).0;
        }
        if host.0 == 0 {
            inherited |= parent.masked(MemFlags::HOST_ACCESS).0;
        }
        let host_ptr = if self.0.host_ptr.is_null() {
            std::ptr::null_mut()
        } else {
            self.0.host_ptr.wrapping_add(origin as usize)
        };
        Ok(Mem::from_parts(
            MemFlags(inherited),
            size,
            Storage::Sub {
                parent: self.clone(),
                origin,
            },
            host_ptr,
        ))
    }

    /// The flags the object was created with (inherited ones included for
    /// sub-buffers).
    pub fn flags(&self) -> MemFlags {
        self.0.flags
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.0.size
    }

    /// The device address of the first byte (what a kernel argument holds).
    pub fn as_ptr(&self) -> *mut u8 {
        match &self.0.storage {
            Storage::Owned(bytes) => bytes.as_ptr(),
            Storage::Host(ptr) => *ptr,
            Storage::Sub { parent, origin } => parent.as_ptr().wrapping_add(*origin as usize),
        }
    }

    /// The format and layout of an image; `None` for a buffer.
    pub fn image(&self) -> Option<&ImageInfo> {
        self.0.image.as_ref()
    }

    /// `CL_MEM_HOST_PTR`: the application pointer of a USE_HOST_PTR buffer
    /// (offset by the origin for its sub-buffers), else null.
    pub fn host_ptr(&self) -> *mut u8 {
        self.0.host_ptr
    }

    /// `CL_MEM_ASSOCIATED_MEMOBJECT`: the parent of a sub-buffer.
    pub fn parent(&self) -> Option<&Mem> {
        match &self.0.storage {
            Storage::Sub { parent, .. } => Some(parent),
            _ => None,
        }
    }

    /// `CL_MEM_OFFSET`: a sub-buffer's origin in its parent (0 for buffers).
    pub fn origin(&self) -> u64 {
        match &self.0.storage {
            Storage::Sub { origin, .. } => *origin,
            _ => 0,
        }
    }

    /// `CL_MEM_MAP_COUNT`.
    pub fn map_count(&self) -> u32 {
        self.0.map_count.load(Ordering::Relaxed)
    }

    /// `CL_MEM_REFERENCE_COUNT`: handles sharing this object (sub-buffers
    /// and in-flight commands hold one each).
    pub fn reference_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// Whether two handles name the same memory object.
    pub fn same_object(&self, other: &Mem) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// `clSetMemObjectDestructorCallback`: `callback` runs when the object is
    /// destroyed (callbacks run in reverse order of registration).
    pub fn on_destroy(&self, callback: Box<dyn FnOnce() + Send>) {
        self.0
            .destructors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(callback);
    }

    /// The root allocation and this object's byte range in it, for overlap tests.
    pub(crate) fn root_range(&self, offset: u64, len: u64) -> (usize, u64, u64) {
        match &self.0.storage {
            Storage::Sub { parent, origin } => parent.root_range(origin + offset, len),
            _ => (Arc::as_ptr(&self.0) as usize, offset, offset + len),
        }
    }

    /// Checks that `[offset, offset + len)` lies inside the object.
    pub(crate) fn check_range(&self, offset: u64, len: u64) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size() => Ok(()),
            _ => Err(Error::InvalidValue(format!(
                "range {offset}+{len} exceeds the buffer's {} bytes",
                self.size()
            ))),
        }
    }

    /// Records a mapping handed out at `ptr`.
    pub(crate) fn add_mapping(&self, ptr: *mut u8) {
        self.0
            .mappings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(ptr);
        self.0.map_count.fetch_add(1, Ordering::Relaxed);
    }

    /// Forgets one mapping at `ptr`; an error if `ptr` was not mapped.
    pub(crate) fn remove_mapping(&self, ptr: *mut u8) -> Result<()> {
        let mut mappings = self.0.mappings.lock().unwrap_or_else(|e| e.into_inner());
        let index = mappings.iter().position(|&p| p == ptr).ok_or_else(|| {
            Error::InvalidValue("pointer was not returned by a map of this buffer".into())
        })?;
        mappings.swap_remove(index);
        self.0.map_count.fetch_sub(1, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: [MemFlags; 9] = [
        MemFlags::READ_WRITE,
        MemFlags::WRITE_ONLY,
        MemFlags::READ_ONLY,
        MemFlags::USE_HOST_PTR,
        MemFlags::ALLOC_HOST_PTR,
        MemFlags::COPY_HOST_PTR,
        MemFlags::HOST_WRITE_ONLY,
        MemFlags::HOST_READ_ONLY,
        MemFlags::HOST_NO_ACCESS,
    ];

    /// The rules of clCreateBuffer, stated independently of `check_buffer_flags`.
    fn spec_allows(flags: MemFlags, with_ptr: bool) -> bool {
        let count = |bits: &[MemFlags]| bits.iter().filter(|b| flags.contains(**b)).count();
        let device_ok = count(&[
            MemFlags::READ_WRITE,
            MemFlags::WRITE_ONLY,
            MemFlags::READ_ONLY,
        ]) <= 1;
        let host_ok = count(&[
            MemFlags::HOST_WRITE_ONLY,
            MemFlags::HOST_READ_ONLY,
            MemFlags::HOST_NO_ACCESS,
        ]) <= 1;
        let use_ok = !(flags.contains(MemFlags::USE_HOST_PTR)
            && (flags.contains(MemFlags::ALLOC_HOST_PTR)
                || flags.contains(MemFlags::COPY_HOST_PTR)));
        let needs_ptr =
            flags.contains(MemFlags::USE_HOST_PTR) || flags.contains(MemFlags::COPY_HOST_PTR);
        device_ok && host_ok && use_ok && needs_ptr == with_ptr
    }

    #[test]
    fn every_flag_combination_follows_the_spec() {
        let mut accepted = 0;
        for bits in 0u32..(1 << F.len()) {
            let flags = F
                .iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << i) != 0)
                .fold(MemFlags(0), |a, (_, f)| a | *f);
            for with_ptr in [false, true] {
                let mut host = vec![7u8; 256];
                let ptr = if with_ptr {
                    host.as_mut_ptr()
                } else {
                    std::ptr::null_mut()
                };
                // SAFETY: `host` outlives the buffer (dropped at the end of the iteration).
                let made = unsafe { Mem::create(flags, 256, ptr) };
                assert_eq!(
                    made.is_ok(),
                    spec_allows(flags, with_ptr),
                    "{flags:?} ptr={with_ptr}: {made:?}"
                );
                let Ok(mem) = made else { continue };
                accepted += 1;
                assert_eq!(mem.flags(), flags);
                // SAFETY: the buffer is 256 bytes long.
                let first = unsafe { *mem.as_ptr() };
                if flags.contains(MemFlags::USE_HOST_PTR) {
                    assert_eq!(
                        mem.as_ptr(),
                        host.as_mut_ptr(),
                        "USE_HOST_PTR must be zero-copy"
                    );
                    assert_eq!(mem.host_ptr(), host.as_mut_ptr());
                } else {
                    assert_eq!(mem.as_ptr() as usize % 64, 0);
                    assert!(mem.host_ptr().is_null());
                    assert_eq!(
                        first,
                        if flags.contains(MemFlags::COPY_HOST_PTR) {
                            7
                        } else {
                            0
                        }
                    );
                }
            }
        }
        assert!(accepted > 50);
    }

    #[test]
    fn unknown_flags_and_bad_sizes_are_rejected() {
        assert!(matches!(
            Mem::new(MemFlags(1 << 20), 16),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            Mem::new(MemFlags::READ_WRITE, 0),
            Err(Error::InvalidBufferSize(_))
        ));
        assert!(matches!(
            Mem::new(MemFlags::READ_WRITE, u64::MAX),
            Err(Error::InvalidBufferSize(_))
        ));
    }

    #[test]
    fn copy_host_ptr_copies() {
        let data: Vec<u8> = (0..=255).collect();
        let mem = Mem::from_bytes(MemFlags::READ_ONLY, &data).expect("buffer");
        // SAFETY: 256 bytes.
        let copied = unsafe { std::slice::from_raw_parts(mem.as_ptr(), 256) };
        assert_eq!(copied, &data[..]);
    }

    #[test]
    fn sub_buffers_follow_alignment_and_access_rules() {
        let parent =
            Mem::new(MemFlags::READ_ONLY | MemFlags::HOST_READ_ONLY, 1024).expect("parent");
        let sub = parent
            .create_sub_buffer(MemFlags(0), 128, 256)
            .expect("sub");
        assert_eq!(sub.flags(), MemFlags::READ_ONLY | MemFlags::HOST_READ_ONLY);
        assert_eq!(sub.as_ptr(), parent.as_ptr().wrapping_add(128));
        assert_eq!(sub.origin(), 128);
        assert!(sub.parent().is_some_and(|p| p.same_object(&parent)));
        assert!(matches!(
            parent.create_sub_buffer(MemFlags(0), 100, 16),
            Err(Error::MisalignedSubBufferOffset(100))
        ));
        assert!(matches!(
            parent.create_sub_buffer(MemFlags(0), 64, 16),
            Err(Error::MisalignedSubBufferOffset(64))
        ));
        assert!(matches!(
            parent.create_sub_buffer(MemFlags(0), 1024, 64),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            parent.create_sub_buffer(MemFlags(0), 0, 0),
            Err(Error::InvalidBufferSize(_))
        ));
        assert!(matches!(
            parent.create_sub_buffer(MemFlags::READ_WRITE, 0, 64),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            parent.create_sub_buffer(MemFlags::HOST_WRITE_ONLY, 0, 64),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            parent.create_sub_buffer(MemFlags::USE_HOST_PTR, 0, 64),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            sub.create_sub_buffer(MemFlags(0), 0, 64),
            Err(Error::InvalidMemObject(_))
        ));
        // A sub-buffer keeps its parent's bytes alive.
        drop(parent);
        // SAFETY: in range.
        assert_eq!(unsafe { *sub.as_ptr() }, 0);
    }

    #[test]
    fn use_host_ptr_sub_buffer_reports_offset_host_ptr() {
        let mut host = vec![0u8; 512];
        // SAFETY: `host` outlives both buffers.
        let parent =
            unsafe { Mem::create(MemFlags::USE_HOST_PTR, 512, host.as_mut_ptr()) }.expect("parent");
        let sub = parent
            .create_sub_buffer(MemFlags::READ_WRITE, 128, 64)
            .expect("sub");
        assert_eq!(sub.host_ptr(), host.as_mut_ptr().wrapping_add(128));
        assert!(sub.flags().contains(MemFlags::USE_HOST_PTR));
    }

    #[test]
    fn destructor_callbacks_run_in_reverse_order() {
        let order = Arc::new(Mutex::new(Vec::new()));
        let mem = Mem::new(MemFlags::READ_WRITE, 64).expect("buffer");
        for i in 0..3 {
            let order = Arc::clone(&order);
            mem.on_destroy(Box::new(move || {
                order.lock().map(|mut o| o.push(i)).unwrap_or(())
            }));
        }
        let clone = mem.clone();
        drop(mem);
        assert!(order.lock().map(|o| o.is_empty()).unwrap_or(false));
        drop(clone);
        assert_eq!(*order.lock().expect("lock"), vec![2, 1, 0]);
    }

    #[test]
    fn overlap_ranges_resolve_to_the_root() {
        let parent = Mem::new(MemFlags::READ_WRITE, 1024).expect("parent");
        let a = parent.create_sub_buffer(MemFlags(0), 0, 512).expect("a");
        let b = parent.create_sub_buffer(MemFlags(0), 256, 512).expect("b");
        let (ra, sa, ea) = a.root_range(300, 10);
        let (rb, sb, eb) = b.root_range(44, 10);
        assert_eq!(ra, rb);
        assert_eq!((sa, ea), (300, 310));
        assert_eq!((sb, eb), (300, 310));
    }
}

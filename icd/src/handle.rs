//! Handles: how API objects are laid out, validated and reference-counted.
//!
//! `cl_khr_icd` requires every handle to point at memory whose first word is
//! the driver's dispatch table, which the loader reads to route a call. A
//! handle is therefore the address of a small [`Header`] holding only that
//! pointer; the [`Object`] behind it holds the header's address, the API
//! reference count and the payload.
//!
//! Headers are never returned to the allocator: a freed object's header goes
//! to the back of a free list and is reused only after thousands of others
//! (see [`REUSE_DELAY`]). So a stale handle still
//! points at a valid header, the loader still reaches vecl, and vecl answers
//! `CL_INVALID_*` (or, if the header has been reused, treats the handle as
//! the new object, as any driver would) — never a crash in the loader.
//!
//! Every object lives in an `Arc` and every live handle is recorded in the
//! [`Registry`] of its type, so a wrong, stale or foreign handle is answered
//! with the type's `CL_INVALID_*` code instead of being dereferenced. A
//! validated handle yields an `Arc` clone: the object outlives the call even
//! if another thread releases it meanwhile. When the API count drops to zero
//! the handle leaves the registry; the object itself goes when the last
//! internal reference (a child object, a pending command) lets go of it, as
//! the specification's deferred deletion rules require.

use std::collections::{HashMap, VecDeque};
use std::ffi::c_void;
use std::ops::Deref;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use opencl_sys::cl_icd::cl_icd_dispatch;
use opencl_sys::{cl_int, cl_uint, CL_OUT_OF_HOST_MEMORY};

use crate::dispatch::DISPATCH;
use crate::ClResult;

/// What a handle points at: the dispatch table, as the loader expects.
#[repr(C)]
pub struct Header {
    dispatch: &'static cl_icd_dispatch,
}

/// Headers of dropped objects, oldest first (addresses), in shards so that
/// threads creating and dropping objects at once rarely share a lock: a
/// thread frees into and reuses from its own shard.
static FREE_HEADERS: [Mutex<VecDeque<usize>>; SHARDS] =
    [const { Mutex::new(VecDeque::new()) }; SHARDS];

/// The calling thread's shard of [`FREE_HEADERS`].
fn free_headers() -> MutexGuard<'static, VecDeque<usize>> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    thread_local! {
        static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) as usize % SHARDS;
    }
    FREE_HEADERS[SHARD.with(|shard| *shard)]
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
}

/// How many freed headers of a shard wait before one is reused: a handle
/// released recently stays invalid (rather than naming a new object) for at
/// least this many later object creations on that thread.
const REUSE_DELAY: usize = 4096;

/// A header for a new object: the oldest freed one once enough are waiting,
/// else a fresh allocation that is never freed.
fn new_header() -> usize {
    let reused = {
        let mut free = free_headers();
        if free.len() > REUSE_DELAY {
            free.pop_front()
        } else {
            None
        }
    };
    reused.unwrap_or_else(|| {
        Box::into_raw(Box::new(Header {
            dispatch: &DISPATCH,
        })) as usize
    })
}

/// An API object: its handle's header, API reference count and payload.
pub struct Object<T> {
    header: usize,
    refs: AtomicU32,
    value: T,
}

impl<T> Drop for Object<T> {
    fn drop(&mut self) {
        free_headers().push_back(self.header);
    }
}

impl<T> Object<T> {
    /// An object outside every registry: the static platform and device,
    /// and events no handle was asked for.
    pub fn new_unregistered(value: T) -> Object<T> {
        Object {
            header: new_header(),
            refs: AtomicU32::new(1),
            value,
        }
    }

    /// The API reference count (`CL_*_REFERENCE_COUNT`).
    pub fn ref_count(&self) -> cl_uint {
        self.refs.load(Ordering::Acquire)
    }

    /// The handle of this object, as handed to the application.
    pub fn handle(&self) -> *mut c_void {
        self.header as *mut c_void
    }
}

impl<T> Deref for Object<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// How many locks a registry's handles are spread over.
const SHARDS: usize = 16;

/// The live handles of one object type.
pub struct Registry<T> {
    /// Sharded by handle address, so threads using different objects
    /// rarely meet on one lock.
    live: [Mutex<HashMap<usize, Arc<Object<T>>>>; SHARDS],
}

impl<T> Registry<T> {
    pub fn new() -> Registry<T> {
        Registry {
            live: std::array::from_fn(|_| Mutex::new(HashMap::new())),
        }
    }

    fn lock(&self, handle: usize) -> MutexGuard<'_, HashMap<usize, Arc<Object<T>>>> {
        // A poisoned lock means a panic happened while the map was held;
        // the map itself is always consistent (single insert/remove calls).
        // Headers are 16-byte aligned allocations: the bits above those
        // pick the shard.
        self.live[(handle >> 4) % SHARDS]
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// A type of API object: its registry and the error for a bad handle.
pub trait ClType: Sized + Send + Sync + 'static {
    /// The error for a handle that is not a live object of this type
    /// (`CL_INVALID_CONTEXT`, `CL_INVALID_MEM_OBJECT`, ...).
    const INVALID: cl_int;

    /// The registry of this type's live handles.
    fn registry() -> &'static Registry<Self>;

    /// Wraps `value` in a new object with one API reference and records it.
    fn register(value: Self) -> ClResult<Arc<Object<Self>>> {
        let object = Arc::new(Object::new_unregistered(value));
        let mut live = Self::registry().lock(object.handle() as usize);
        if live
            .insert(object.handle() as usize, object.clone())
            .is_some()
        {
            return Err(CL_OUT_OF_HOST_MEMORY);
        }
        Ok(object)
    }

    /// The live object behind `handle`, or [`ClType::INVALID`].
    fn get(handle: *mut c_void) -> ClResult<Arc<Object<Self>>> {
        if handle.is_null() {
            return Err(Self::INVALID);
        }
        Self::registry()
            .lock(handle as usize)
            .get(&(handle as usize))
            .cloned()
            .ok_or(Self::INVALID)
    }

    /// `clRetain*`: one more API reference.
    fn retain(handle: *mut c_void) -> ClResult<()> {
        let live = Self::registry().lock(handle as usize);
        let object = live.get(&(handle as usize)).ok_or(Self::INVALID)?;
        object.refs.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// `clRelease*`: one API reference less; at zero the handle becomes
    /// invalid. Returns the object so the caller drops it outside the lock
    /// (dropping may run application callbacks).
    fn release(handle: *mut c_void) -> ClResult<Arc<Object<Self>>> {
        let mut live = Self::registry().lock(handle as usize);
        let object = live.get(&(handle as usize)).ok_or(Self::INVALID)?.clone();
        if object.refs.fetch_sub(1, Ordering::AcqRel) == 1 {
            live.remove(&(handle as usize));
        }
        Ok(object)
    }
}

/// Declares the registry of an object type.
macro_rules! cl_type {
    ($ty:ty, $invalid:expr) => {
        impl $crate::handle::ClType for $ty {
            const INVALID: opencl_sys::cl_int = $invalid;
            fn registry() -> &'static $crate::handle::Registry<Self> {
                static REGISTRY: std::sync::LazyLock<$crate::handle::Registry<$ty>> =
                    std::sync::LazyLock::new($crate::handle::Registry::new);
                &REGISTRY
            }
        }
    };
}
pub(crate) use cl_type;

/// The handle of the object holding `value`, for code that only has the
/// payload (a `Drop` implementation reporting its handle to a callback).
///
/// # Safety
/// `value` is the payload of an [`Object<T>`].
pub unsafe fn handle_of<T>(value: &T) -> *mut c_void {
    let offset = std::mem::offset_of!(Object<T>, value);
    // SAFETY: `value` sits `offset` bytes into its `Object<T>`, per the
    // caller's contract, so the subtraction stays inside that object.
    unsafe {
        (value as *const T)
            .cast::<u8>()
            .sub(offset)
            .cast_mut()
            .cast()
    }
}

//! The shim between C callers and the API bodies.
//!
//! Every entry point runs its body through [`api`] (functions returning a
//! `cl_int`) or [`api_create`] (functions returning a handle or pointer and
//! reporting through `errcode_ret`). Both catch panics, so no unwind ever
//! crosses the C ABI: a panic becomes `CL_OUT_OF_HOST_MEMORY`, the generic
//! failure every entry point may return. The rest of the file reads the C
//! caller's pointers and arrays with the null checks the specification asks
//! for.

use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use opencl_sys::{cl_int, CL_INVALID_VALUE, CL_OUT_OF_HOST_MEMORY, CL_SUCCESS};

use crate::ClResult;

/// Runs an API body that returns only a status.
pub fn api(body: impl FnOnce() -> ClResult<()>) -> cl_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(code)) => code,
        Err(_) => CL_OUT_OF_HOST_MEMORY,
    }
}

/// Something an API body can hand back through a pointer-returning entry
/// point: a null value for the failure case.
pub trait NullOnError {
    fn null() -> Self;
}

impl<T> NullOnError for *mut T {
    fn null() -> Self {
        ptr::null_mut()
    }
}

/// Runs an API body that returns a handle (or pointer) and reports its status
/// through `errcode_ret`, which may be null.
///
/// # Safety
/// `errcode_ret` is null or valid for one `cl_int` write.
pub unsafe fn api_create<T: NullOnError>(
    errcode_ret: *mut cl_int,
    body: impl FnOnce() -> ClResult<T>,
) -> T {
    let (value, code) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => (value, CL_SUCCESS),
        Ok(Err(code)) => (T::null(), code),
        Err(_) => (T::null(), CL_OUT_OF_HOST_MEMORY),
    };
    // SAFETY: the caller passes null or a writable cl_int.
    unsafe { write_out(errcode_ret, code) };
    value
}

/// Writes `value` through an optional out-parameter.
///
/// # Safety
/// `out` is null or valid for one `T` write.
pub unsafe fn write_out<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-null, and valid per the caller's contract.
        unsafe { out.write_unaligned(value) };
    }
}

/// A C array of `len` elements as a slice; an empty slice when `len` is 0.
/// A null pointer with a non-zero length is `error`.
///
/// # Safety
/// When non-null, `ptr` points at `len` initialised elements that stay valid
/// and unmodified for `'a`.
pub unsafe fn slice<'a, T>(ptr: *const T, len: usize, error: cl_int) -> ClResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(error);
    }
    // SAFETY: non-null with `len` valid elements, per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A wait list (`num_events_in_wait_list`, `event_wait_list`) as a slice:
/// the pointer and count must agree (both null/zero or both set).
///
/// # Safety
/// As for [`slice()`].
pub unsafe fn wait_list<'a, T>(ptr: *const T, len: u32, error: cl_int) -> ClResult<&'a [T]> {
    if (len == 0) != ptr.is_null() {
        return Err(error);
    }
    // SAFETY: forwarded contract.
    unsafe { slice(ptr, len as usize, error) }
}

/// A NUL-terminated C string, which must be non-null and UTF-8.
///
/// # Safety
/// When non-null, `ptr` points at a NUL-terminated string valid for `'a`.
pub unsafe fn c_str<'a>(ptr: *const c_char) -> ClResult<&'a str> {
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: non-null and NUL-terminated per the caller's contract.
    let bytes = unsafe { CStr::from_ptr(ptr) };
    bytes.to_str().map_err(|_| CL_INVALID_VALUE)
}

/// A zero-terminated property list (`{key, value, ..., 0}`) as pairs.
/// `None` for a null list.
///
/// # Safety
/// When non-null, `ptr` points at a zero-terminated list of key/value pairs.
pub unsafe fn property_list<T: Copy + Default + PartialEq>(ptr: *const T) -> Option<Vec<(T, T)>> {
    if ptr.is_null() {
        return None;
    }
    let mut pairs = Vec::new();
    let mut at = ptr;
    loop {
        // SAFETY: the list is zero-terminated; we stop at the terminator.
        let key = unsafe { at.read_unaligned() };
        if key == T::default() {
            return Some(pairs);
        }
        // SAFETY: every non-zero key is followed by its value.
        let value = unsafe { at.add(1).read_unaligned() };
        pairs.push((key, value));
        // SAFETY: moves past this pair, still inside the list.
        at = unsafe { at.add(2) };
    }
}

/// A raw pointer as an opaque value that may cross threads, for pointers the
/// application hands us to give back later (`user_data`, `host_ptr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserPtr(pub *mut c_void);

// SAFETY: the pointer is only handed back to the application (callbacks) or
// used as host memory the application promised to keep valid; vecl never
// assumes thread affinity for it.
unsafe impl Send for UserPtr {}
// SAFETY: as above; shared access only copies the address.
unsafe impl Sync for UserPtr {}

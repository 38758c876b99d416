//! The `clGet*Info` protocol, shared by every query of the API.
//!
//! Each query body maps a `param_name` to an [`Info`] value (bytes in the
//! caller's layout); [`write_info`] then applies the rules common to every
//! query: with `param_value` non-null, `param_value_size` must be at least the
//! value's size (else `CL_INVALID_VALUE`) and the value is copied; with
//! `param_value_size_ret` non-null, the value's size is stored there.

use std::ffi::c_void;

use opencl_sys::{cl_image_format, cl_name_version, CL_INVALID_VALUE};

use crate::ClResult;

/// A query result as the bytes the caller receives.
pub struct Info(Vec<u8>);

/// Plain C data that can be returned byte for byte: no padding, no pointers
/// to Rust-owned memory.
pub trait Plain: Copy {}
impl Plain for u8 {}
impl Plain for u32 {}
impl Plain for i32 {}
impl Plain for u64 {}
impl Plain for i64 {}
impl Plain for usize {}
impl Plain for isize {}
impl Plain for *mut c_void {}
impl Plain for cl_name_version {}
impl Plain for cl_image_format {}

impl Info {
    /// One value of plain data.
    pub fn value<T: Plain>(value: T) -> Info {
        Info::array(&[value])
    }

    /// An array of plain data.
    pub fn array<T: Plain>(values: &[T]) -> Info {
        let len = std::mem::size_of_val(values);
        // SAFETY: `Plain` types have no padding, so all `len` bytes of the
        // slice are initialised.
        let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), len) };
        Info(bytes.to_vec())
    }

    /// A string, NUL-terminated as C expects.
    pub fn string(text: &str) -> Info {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
        Info(bytes)
    }

    /// Raw bytes (binaries, argument values).
    pub fn bytes(bytes: Vec<u8>) -> Info {
        Info(bytes)
    }

    /// An array of `const char *`, pointing at strings that live as long
    /// as the program (`CL_DEVICE_SPIRV_EXTENSIONS_KHR` and its kind).
    pub fn static_strings(strings: &'static [std::ffi::CString]) -> Info {
        let pointers: Vec<usize> = strings.iter().map(|s| s.as_ptr() as usize).collect();
        Info::array(&pointers)
    }

    /// A `cl_bool`.
    pub fn bool(value: bool) -> Info {
        Info::value(u32::from(value))
    }

    /// The bytes of the value.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Returns `info` to the caller by the query protocol.
///
/// # Safety
/// `param_value` is null or valid for `param_value_size` bytes of writing;
/// `param_value_size_ret` is null or valid for one `usize` write.
pub unsafe fn write_info(
    info: Info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> ClResult<()> {
    let bytes = info.as_bytes();
    if !param_value.is_null() {
        if param_value_size < bytes.len() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the destination holds at least `bytes.len()` bytes (checked
        // above) and cannot overlap our freshly built vector.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), param_value.cast::<u8>(), bytes.len())
        };
    }
    // SAFETY: per the caller's contract.
    unsafe { crate::entry::write_out(param_value_size_ret, bytes.len()) };
    Ok(())
}

/// Runs a whole `clGet*Info` entry point: the query body, then the protocol.
///
/// # Safety
/// As for [`write_info`].
pub unsafe fn query(
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
    body: impl FnOnce() -> ClResult<Info>,
) -> opencl_sys::cl_int {
    crate::entry::api(|| {
        let info = body()?;
        // SAFETY: forwarded contract.
        unsafe { write_info(info, param_value_size, param_value, param_value_size_ret) }
    })
}

/// A `cl_name_version` entry.
pub fn name_version(name: &str, version: u32) -> cl_name_version {
    let mut entry = cl_name_version {
        version,
        name: [0; 64],
    };
    for (dst, src) in entry.name.iter_mut().zip(name.bytes().take(63)) {
        *dst = src;
    }
    entry
}

/// `CL_MAKE_VERSION(major, minor, patch)`.
pub const fn make_version(major: u32, minor: u32, patch: u32) -> u32 {
    (major << 22) | (minor << 12) | patch
}

//! The platform: `clIcdGetPlatformIDsKHR` (also the dispatch table's
//! `clGetPlatformIDs`), `clGetPlatformInfo`, `clUnloadPlatformCompiler`.
//!
//! vecl has exactly one platform, a static object: it is never created or
//! freed, so its handle is valid for the life of the process.

use std::ffi::c_void;
use std::sync::LazyLock;

use opencl_sys::*;

use crate::device_caps::{self, extension_version, version_of, CAPS};
use crate::entry::{api, write_out};
use crate::handle::Object;
use crate::info::{name_version, query, Info};
use crate::ClResult;

/// vecl's platform object (no state beyond its handle).
pub struct Platform;

/// The one platform.
pub static PLATFORM: LazyLock<Object<Platform>> =
    LazyLock::new(|| Object::new_unregistered(Platform));

/// The platform's handle.
pub fn platform_handle() -> cl_platform_id {
    PLATFORM.handle()
}

/// Checks a platform argument; null selects vecl's platform, as the
/// specification leaves null's meaning to the implementation.
pub fn check_platform(platform: cl_platform_id) -> ClResult<()> {
    if platform.is_null() || platform == platform_handle() {
        Ok(())
    } else {
        Err(CL_INVALID_PLATFORM)
    }
}

/// The platform version string, `OpenCL <major>.<minor> <platform-specific>`.
pub fn version_string() -> String {
    let (major, minor) = device_caps::CL_VERSION;
    format!("OpenCL {major}.{minor} vecl {}", CAPS.driver_version)
}

/// `clIcdGetPlatformIDsKHR`, the exported symbol the loader looks up.
///
/// The dispatch table and the extension lookup use [`get_platform_ids`]
/// instead: a reference to an exported name from inside the library would
/// bind to the loader's own function of that name, which is loaded first.
///
/// # Safety
/// As for [`get_platform_ids`].
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    // SAFETY: forwarded contract.
    unsafe { get_platform_ids(num_entries, platforms, num_platforms) }
}

/// `clIcdGetPlatformIDsKHR` and `clGetPlatformIDs`: the platforms this
/// driver offers (one).
///
/// # Safety
/// `platforms` is null or holds `num_entries` handles; `num_platforms` is
/// null or writable.
pub unsafe extern "C" fn get_platform_ids(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    api(|| {
        // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is
        // not NULL or if both num_platforms and platforms are NULL."
        if (num_entries == 0 && !platforms.is_null())
            || (num_platforms.is_null() && platforms.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        if !platforms.is_null() {
            // SAFETY: the caller provides room for num_entries ≥ 1 handles.
            unsafe { platforms.write(platform_handle()) };
        }
        // SAFETY: null or writable per the caller's contract.
        unsafe { write_out(num_platforms, 1) };
        Ok(())
    })
}

/// `clGetPlatformInfo`, the exported symbol (see [`clIcdGetPlatformIDsKHR`]
/// for why the dispatch table points at [`get_platform_info`] instead).
///
/// # Safety
/// As for [`get_platform_info`].
#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    // SAFETY: forwarded contract.
    unsafe {
        get_platform_info(
            platform,
            param_name,
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    }
}

/// `clGetPlatformInfo`.
///
/// # Safety
/// Pointers follow the query protocol of [`crate::info`].
pub unsafe extern "C" fn get_platform_info(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        check_platform(platform)?;
        platform_info(param_name)
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

fn platform_info(param_name: cl_platform_info) -> ClResult<Info> {
    let (major, minor) = device_caps::CL_VERSION;
    Ok(match param_name {
        CL_PLATFORM_PROFILE => Info::string("FULL_PROFILE"),
        CL_PLATFORM_VERSION => Info::string(&version_string()),
        CL_PLATFORM_NUMERIC_VERSION => Info::value(version_of((major, minor, 0))),
        CL_PLATFORM_NAME => Info::string(device_caps::NAME),
        CL_PLATFORM_VENDOR => Info::string(CAPS.platform_vendor),
        CL_PLATFORM_EXTENSIONS => Info::string(&CAPS.platform_extensions.join(" ")),
        CL_PLATFORM_EXTENSIONS_WITH_VERSION => Info::array(
            &CAPS
                .platform_extensions
                .iter()
                .map(|name| name_version(name, version_of(extension_version(name))))
                .collect::<Vec<_>>(),
        ),
        // Timestamps are nanoseconds of the monotonic clock.
        CL_PLATFORM_HOST_TIMER_RESOLUTION => Info::value(1u64),
        CL_PLATFORM_ICD_SUFFIX_KHR => Info::string(device_caps::ICD_SUFFIX),
        _ => return Err(CL_INVALID_VALUE),
    })
}

/// `clUnloadPlatformCompiler`: a hint; vecl's compiler holds no resources to
/// release.
pub extern "C" fn clUnloadPlatformCompiler(platform: cl_platform_id) -> cl_int {
    api(|| {
        if platform.is_null() {
            return Err(CL_INVALID_PLATFORM);
        }
        check_platform(platform)
    })
}

/// `clUnloadCompiler` (OpenCL 1.0): a hint, always successful.
pub extern "C" fn clUnloadCompiler() -> cl_int {
    CL_SUCCESS
}

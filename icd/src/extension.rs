//! Extension function lookup: `clGetExtensionFunctionAddress` and
//! `clGetExtensionFunctionAddressForPlatform`.
//!
//! The loader asks for `clIcdGetPlatformIDsKHR` this way when it loads the
//! driver; the other extension functions are `clCreateProgramWithILKHR`
//! (`cl_khr_il_program`) and `clGetKernelSuggestedLocalWorkSizeKHR`
//! (`cl_khr_suggested_local_work_size`).

use std::ffi::{c_char, c_void};

use opencl_sys::cl_platform_id;

use crate::entry::c_str;
use crate::platform::{check_platform, get_platform_ids};

fn lookup(name: &str) -> *mut c_void {
    match name {
        "clIcdGetPlatformIDsKHR" => get_platform_ids as *mut c_void,
        "clGetKernelSuggestedLocalWorkSizeKHR" => {
            crate::enqueue::clGetKernelSuggestedLocalWorkSizeKHR as *mut c_void
        }
        // cl_khr_il_program: the same function as the core one.
        "clCreateProgramWithILKHR" => crate::program::clCreateProgramWithIL as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

/// `clGetExtensionFunctionAddress`, the exported symbol. Like every
/// exported name, the dispatch table points at the internal twin
/// ([`get_extension_function_address`]), since a reference from inside the
/// library would bind to the loader's function of the same name.
///
/// # Safety
/// As for [`get_extension_function_address`].
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { get_extension_function_address(func_name) }
}

/// `clGetExtensionFunctionAddressForPlatform`, the exported symbol.
///
/// # Safety
/// As for [`get_extension_function_address_for_platform`].
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { get_extension_function_address_for_platform(platform, func_name) }
}

/// `clGetExtensionFunctionAddress`: the address of an extension function of
/// vecl, or null.
///
/// # Safety
/// `func_name` is null or a NUL-terminated string.
pub unsafe extern "C" fn get_extension_function_address(func_name: *const c_char) -> *mut c_void {
    std::panic::catch_unwind(|| {
        // SAFETY: forwarded contract.
        unsafe { c_str(func_name) }.map_or(std::ptr::null_mut(), lookup)
    })
    .unwrap_or(std::ptr::null_mut())
}

/// `clGetExtensionFunctionAddressForPlatform`.
///
/// # Safety
/// `func_name` is null or a NUL-terminated string.
pub unsafe extern "C" fn get_extension_function_address_for_platform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    if check_platform(platform).is_err() || platform.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: forwarded contract.
    unsafe { get_extension_function_address(func_name) }
}

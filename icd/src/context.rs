//! Contexts: `clCreateContext`, `clCreateContextFromType`, retain/release,
//! `clGetContextInfo` and `clSetContextDestructorCallback`.

use std::ffi::{c_char, c_void, CString};
use std::sync::Mutex;

use opencl_sys::*;

use crate::device::{check_device_list, device_handle, matches_type};
use crate::entry::{api, api_create, property_list, UserPtr};
use crate::handle::{cl_type, handle_of, ClType};
use crate::info::{query, Info};
use crate::platform::check_platform;
use crate::svm::SvmHeap;
use crate::ClResult;

/// The `pfn_notify` of `clCreateContext`.
pub type ContextNotify = unsafe extern "C" fn(
    errinfo: *const c_char,
    private_info: *const c_void,
    cb: usize,
    user_data: *mut c_void,
);

/// A context destructor callback.
pub type ContextDestructor = unsafe extern "C" fn(context: cl_context, user_data: *mut c_void);

/// A context: vecl's device plus the application's properties.
pub struct Context {
    /// The property list as given, with its terminating 0 (empty when none).
    properties: Vec<cl_context_properties>,
    /// `pfn_notify` and its `user_data`: where failures of commands go.
    notify: Option<(ContextNotify, UserPtr)>,
    destructors: Mutex<Vec<(ContextDestructor, UserPtr)>>,
    /// The context's shared virtual memory allocations.
    pub svm: SvmHeap,
}

cl_type!(Context, CL_INVALID_CONTEXT);

impl Context {
    /// Reports an error that happened after the call that caused it
    /// returned (a failed command): to the context's `pfn_notify`, or on
    /// stderr when the application gave none.
    pub fn notify(&self, message: &str) {
        match &self.notify {
            Some((callback, user_data)) => {
                let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
                // SAFETY: an application callback with the signature it
                // registered; the string outlives the call.
                unsafe { callback(text.as_ptr(), std::ptr::null(), 0, user_data.0) };
            }
            None => eprintln!("{message}"),
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: every Context lives in an Object<Context>.
        let handle = unsafe { handle_of(&*self) };
        let destructors = std::mem::take(
            self.destructors
                .get_mut()
                .unwrap_or_else(|poison| poison.into_inner()),
        );
        // "The registered callback functions are called in the reverse order
        // in which they were registered."
        for (callback, user_data) in destructors.into_iter().rev() {
            // SAFETY: an application callback with the signature it registered.
            unsafe { callback(handle, user_data.0) };
        }
    }
}

/// Parses and checks a context property list.
///
/// # Safety
/// `properties` is null or a zero-terminated property list.
unsafe fn context_properties(
    properties: *const cl_context_properties,
) -> ClResult<Vec<cl_context_properties>> {
    // SAFETY: forwarded contract.
    let Some(pairs) = (unsafe { property_list(properties) }) else {
        return Ok(Vec::new());
    };
    let mut seen = Vec::new();
    let mut flat = Vec::with_capacity(pairs.len() * 2 + 1);
    for &(key, value) in &pairs {
        // "CL_INVALID_PROPERTY if ... the same property name is specified
        // more than once."
        if seen.contains(&key) {
            return Err(CL_INVALID_PROPERTY);
        }
        seen.push(key);
        match key {
            CL_CONTEXT_PLATFORM => {
                if value == 0 {
                    return Err(CL_INVALID_PLATFORM);
                }
                check_platform(value as cl_platform_id)?;
            }
            CL_CONTEXT_INTEROP_USER_SYNC => {
                if value != CL_TRUE as isize && value != CL_FALSE as isize {
                    return Err(CL_INVALID_PROPERTY);
                }
            }
            _ => return Err(CL_INVALID_PROPERTY),
        }
        flat.extend([key, value]);
    }
    flat.push(0);
    Ok(flat)
}

fn new_context(
    properties: Vec<cl_context_properties>,
    pfn_notify: Option<ContextNotify>,
    user_data: *mut c_void,
) -> ClResult<cl_context> {
    // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
    if pfn_notify.is_none() && !user_data.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // The pool and the compiler get ready while the application goes on
    // (`vecl::warm_up`).
    vecl::warm_up::start();
    let context = Context::register(Context {
        properties,
        notify: pfn_notify.map(|f| (f, UserPtr(user_data))),
        destructors: Mutex::new(Vec::new()),
        svm: SvmHeap::default(),
    })?;
    Ok(context.handle())
}

/// `clCreateContext`.
pub unsafe extern "C" fn clCreateContext(
    properties: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    let body = || {
        // SAFETY: properties is null or zero-terminated and devices holds
        // num_devices handles, per the API contract.
        let properties = unsafe { context_properties(properties)? };
        // SAFETY: as above.
        unsafe { check_device_list(devices, num_devices)? };
        new_context(properties, pfn_notify, user_data)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateContextFromType`.
pub unsafe extern "C" fn clCreateContextFromType(
    properties: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    let body = || {
        // SAFETY: properties is null or zero-terminated, per the API contract.
        let properties = unsafe { context_properties(properties)? };
        if !matches_type(device_type)? {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        new_context(properties, pfn_notify, user_data)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clRetainContext`.
pub extern "C" fn clRetainContext(context: cl_context) -> cl_int {
    api(|| Context::retain(context))
}

/// `clReleaseContext`.
pub extern "C" fn clReleaseContext(context: cl_context) -> cl_int {
    api(|| Context::release(context).map(drop))
}

/// `clGetContextInfo`.
pub unsafe extern "C" fn clGetContextInfo(
    context: cl_context,
    param_name: cl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let context = Context::get(context)?;
        Ok(match param_name {
            CL_CONTEXT_REFERENCE_COUNT => Info::value(context.ref_count()),
            CL_CONTEXT_NUM_DEVICES => Info::value(1u32),
            CL_CONTEXT_DEVICES => Info::value(device_handle()),
            CL_CONTEXT_PROPERTIES => Info::array(&context.properties),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clSetContextDestructorCallback`.
pub unsafe extern "C" fn clSetContextDestructorCallback(
    context: cl_context,
    pfn_notify: Option<ContextDestructor>,
    user_data: *mut c_void,
) -> cl_int {
    api(|| {
        let context = Context::get(context)?;
        let callback = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        context
            .destructors
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push((callback, UserPtr(user_data)));
        Ok(())
    })
}

//! Entry points of optional features vecl's device does not offer, each
//! answering with the error the specification prescribes for a device
//! without the feature: pipes (`CL_DEVICE_PIPE_SUPPORT` false), device-side
//! queues, and OpenGL/EGL sharing (no such extension advertised). Images
//! and samplers live in [`crate::image`] and [`crate::sampler`].
//!
//! Handles are still validated first, so a bad handle gets its own
//! `CL_INVALID_*` code, as with every other entry point.

use std::ffi::c_void;

use opencl_sys::cl_egl::{
    cl_egl_image_properties_khr, CLeglDisplayKHR, CLeglImageKHR, CLeglSyncKHR,
};
use opencl_sys::*;

use crate::context::Context;
use crate::device::check_device;
use crate::entry::{api, api_create};
use crate::handle::ClType;
use crate::memory::Mem;
use crate::queue::Queue;

/// The answer of a creating call for a feature no device of the context
/// has: "CL_INVALID_OPERATION if no devices in context support …".
fn no_device_supports(context: cl_context) -> crate::ClResult<cl_mem> {
    Context::get(context)?;
    Err(CL_INVALID_OPERATION)
}

/// A GL sharing call on a context: no context was created from a GL one.
fn not_gl_context(context: cl_context) -> crate::ClResult<*mut c_void> {
    Context::get(context)?;
    Err(CL_INVALID_CONTEXT)
}

/// `clCreatePipe`: "CL_INVALID_OPERATION if no devices in context support
/// pipes."
pub unsafe extern "C" fn clCreatePipe(
    context: cl_context,
    _flags: cl_mem_flags,
    _pipe_packet_size: cl_uint,
    _pipe_max_packets: cl_uint,
    _properties: *const cl_pipe_properties,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || no_device_supports(context)) }
}

/// `clGetPipeInfo`: no memory object is a pipe.
pub unsafe extern "C" fn clGetPipeInfo(
    pipe: cl_mem,
    _param_name: cl_pipe_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    api(|| {
        Mem::get(pipe)?;
        Err(CL_INVALID_MEM_OBJECT)
    })
}

/// `clSetDefaultDeviceCommandQueue`: "CL_INVALID_OPERATION if device does
/// not support a replaceable default on-device queue."
pub unsafe extern "C" fn clSetDefaultDeviceCommandQueue(
    context: cl_context,
    device: cl_device_id,
    _command_queue: cl_command_queue,
) -> cl_int {
    api(|| {
        Context::get(context)?;
        check_device(device)?;
        // The queue is not looked at: "CL_INVALID_OPERATION if device does
        // not support a replaceable default on-device queue" holds for any.
        Err(CL_INVALID_OPERATION)
    })
}

/// `clCreateFromGLBuffer`.
pub unsafe extern "C" fn clCreateFromGLBuffer(
    context: cl_context,
    _flags: cl_mem_flags,
    _bufobj: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || not_gl_context(context)) }
}

/// `clCreateFromGLTexture`, `clCreateFromGLTexture2D`, `clCreateFromGLTexture3D`.
pub unsafe extern "C" fn clCreateFromGLTexture(
    context: cl_context,
    _flags: cl_mem_flags,
    _target: cl_GLenum,
    _miplevel: cl_GLint,
    _texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || not_gl_context(context)) }
}

/// `clCreateFromGLRenderbuffer`.
pub unsafe extern "C" fn clCreateFromGLRenderbuffer(
    context: cl_context,
    _flags: cl_mem_flags,
    _renderbuffer: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || not_gl_context(context)) }
}

/// `clCreateEventFromGLsyncKHR`.
pub unsafe extern "C" fn clCreateEventFromGLsyncKHR(
    context: cl_context,
    _sync: cl_GLsync,
    errcode_ret: *mut cl_int,
) -> cl_event {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || not_gl_context(context)) }
}

/// `clGetGLObjectInfo`: "CL_INVALID_GL_OBJECT if there is no GL object
/// associated with memobj."
pub unsafe extern "C" fn clGetGLObjectInfo(
    memobj: cl_mem,
    _gl_object_type: *mut cl_gl_object_type,
    _gl_object_name: *mut cl_GLuint,
) -> cl_int {
    api(|| {
        Mem::get(memobj)?;
        Err(CL_INVALID_GL_OBJECT)
    })
}

/// `clGetGLTextureInfo`.
pub unsafe extern "C" fn clGetGLTextureInfo(
    memobj: cl_mem,
    _param_name: cl_gl_texture_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    api(|| {
        Mem::get(memobj)?;
        Err(CL_INVALID_GL_OBJECT)
    })
}

/// `clEnqueueAcquireGLObjects`, `clEnqueueReleaseGLObjects` and their EGL
/// counterparts: "CL_INVALID_CONTEXT if context associated with
/// command_queue was not created from an OpenGL context."
pub unsafe extern "C" fn clEnqueueAcquireGLObjects(
    command_queue: cl_command_queue,
    _num_objects: cl_uint,
    _mem_objects: *const cl_mem,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    api(|| {
        Queue::get(command_queue)?;
        Err(CL_INVALID_CONTEXT)
    })
}

/// `clGetGLContextInfoKHR`: no GL context can be associated with vecl.
pub unsafe extern "C" fn clGetGLContextInfoKHR(
    _properties: *const cl_context_properties,
    _param_name: cl_gl_context_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR
}

/// `clCreateFromEGLImageKHR`.
pub unsafe extern "C" fn clCreateFromEGLImageKHR(
    context: cl_context,
    _display: CLeglDisplayKHR,
    _image: CLeglImageKHR,
    _flags: cl_mem_flags,
    _properties: *const cl_egl_image_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || not_gl_context(context)) }
}

/// `clCreateEventFromEGLSyncKHR`.
pub unsafe extern "C" fn clCreateEventFromEGLSyncKHR(
    context: cl_context,
    _sync: CLeglSyncKHR,
    _display: CLeglDisplayKHR,
    errcode_ret: *mut cl_int,
) -> cl_event {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || not_gl_context(context)) }
}

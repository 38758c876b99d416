//! Entry points of optional features vecl's device does not offer, each
//! answering with the error the specification prescribes for a device
//! without the feature: images and samplers (`CL_DEVICE_IMAGE_SUPPORT` is
//! false), pipes (`CL_DEVICE_PIPE_SUPPORT` false), device-side queues, and
//! OpenGL/EGL sharing (no such extension advertised).
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
use crate::entry::{api, api_create, write_out};
use crate::handle::ClType;
use crate::memory::Mem;
use crate::queue::Queue;

/// The memory flags an image may be created with.
const IMAGE_FLAGS: cl_mem_flags = CL_MEM_READ_WRITE
    | CL_MEM_WRITE_ONLY
    | CL_MEM_READ_ONLY
    | CL_MEM_USE_HOST_PTR
    | CL_MEM_ALLOC_HOST_PTR
    | CL_MEM_COPY_HOST_PTR
    | CL_MEM_HOST_WRITE_ONLY
    | CL_MEM_HOST_READ_ONLY
    | CL_MEM_HOST_NO_ACCESS
    | CL_MEM_KERNEL_READ_AND_WRITE;

/// The answer of every image-creating call: "CL_INVALID_OPERATION if there
/// are no devices in context that support images."
fn no_images(context: cl_context) -> crate::ClResult<cl_mem> {
    Context::get(context)?;
    Err(CL_INVALID_OPERATION)
}

/// A queue's command on an image: no memory object is an image.
fn image_command(queue: cl_command_queue) -> cl_int {
    api(|| {
        Queue::get(queue)?;
        Err(CL_INVALID_MEM_OBJECT)
    })
}

/// A GL sharing call on a context: no context was created from a GL one.
fn not_gl_context(context: cl_context) -> crate::ClResult<*mut c_void> {
    Context::get(context)?;
    Err(CL_INVALID_CONTEXT)
}

/// `clCreateImage`.
pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_desc: *const cl_image_desc,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || no_images(context)) }
}

/// `clCreateImageWithProperties`.
pub unsafe extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    _properties: *const cl_mem_properties,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_desc: *const cl_image_desc,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || no_images(context)) }
}

/// `clCreateImage2D` (OpenCL 1.1).
pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_width: usize,
    _image_height: usize,
    _image_row_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || no_images(context)) }
}

/// `clCreateImage3D` (OpenCL 1.1).
pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_width: usize,
    _image_height: usize,
    _image_depth: usize,
    _image_row_pitch: usize,
    _image_slice_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || no_images(context)) }
}

/// `clGetSupportedImageFormats`: the list is empty.
pub unsafe extern "C" fn clGetSupportedImageFormats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    api(|| {
        Context::get(context)?;
        let image_types = [
            CL_MEM_OBJECT_IMAGE1D,
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            CL_MEM_OBJECT_IMAGE2D,
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            CL_MEM_OBJECT_IMAGE3D,
        ];
        if (num_entries == 0 && !image_formats.is_null())
            || !image_types.contains(&image_type)
            || flags & !IMAGE_FLAGS != 0
        {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: null or writable, per the API contract.
        unsafe { write_out(num_image_formats, 0) };
        Ok(())
    })
}

/// `clGetImageInfo`: no memory object is an image.
pub unsafe extern "C" fn clGetImageInfo(
    image: cl_mem,
    _param_name: cl_image_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    api(|| {
        Mem::get(image)?;
        Err(CL_INVALID_MEM_OBJECT)
    })
}

/// `clEnqueueReadImage`.
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _blocking_read: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: usize,
    _slice_pitch: usize,
    _ptr: *mut c_void,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    image_command(command_queue)
}

/// `clEnqueueWriteImage`.
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _blocking_write: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _input_row_pitch: usize,
    _input_slice_pitch: usize,
    _ptr: *const c_void,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    image_command(command_queue)
}

/// `clEnqueueCopyImage`.
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    _src_image: cl_mem,
    _dst_image: cl_mem,
    _src_origin: *const usize,
    _dst_origin: *const usize,
    _region: *const usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    image_command(command_queue)
}

/// `clEnqueueCopyImageToBuffer`.
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    _src_image: cl_mem,
    _dst_buffer: cl_mem,
    _src_origin: *const usize,
    _region: *const usize,
    _dst_offset: usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    image_command(command_queue)
}

/// `clEnqueueCopyBufferToImage`.
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    _src_buffer: cl_mem,
    _dst_image: cl_mem,
    _src_offset: usize,
    _dst_origin: *const usize,
    _region: *const usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    image_command(command_queue)
}

/// `clEnqueueFillImage`.
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _fill_color: *const c_void,
    _origin: *const usize,
    _region: *const usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    image_command(command_queue)
}

/// `clEnqueueMapImage`.
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _blocking_map: cl_bool,
    _map_flags: cl_map_flags,
    _origin: *const usize,
    _region: *const usize,
    _image_row_pitch: *mut usize,
    _image_slice_pitch: *mut usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let code = image_command(command_queue);
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { write_out(errcode_ret, code) };
    std::ptr::null_mut()
}

/// `clCreateSampler`: samplers exist only for images.
pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    _normalized_coords: cl_bool,
    _addressing_mode: cl_addressing_mode,
    _filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || no_images(context)) }
}

/// `clCreateSamplerWithProperties`.
pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    _sampler_properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, || no_images(context)) }
}

/// `clRetainSampler` and `clReleaseSampler`: no sampler handle is valid.
pub extern "C" fn clRetainSampler(_sampler: cl_sampler) -> cl_int {
    CL_INVALID_SAMPLER
}

/// `clGetSamplerInfo`.
pub unsafe extern "C" fn clGetSamplerInfo(
    _sampler: cl_sampler,
    _param_name: cl_sampler_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_SAMPLER
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
    unsafe { api_create(errcode_ret, || no_images(context)) }
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

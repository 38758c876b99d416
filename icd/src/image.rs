//! Images: `clGetSupportedImageFormats`, `clCreateImage`,
//! `clCreateImageWithProperties`, `clCreateImage2D`, `clCreateImage3D`,
//! `clGetImageInfo`, and the image commands `clEnqueueReadImage`,
//! `clEnqueueWriteImage`, `clEnqueueCopyImage`,
//! `clEnqueueCopyImageToBuffer`, `clEnqueueCopyBufferToImage`,
//! `clEnqueueFillImage`, `clEnqueueMapImage` (unmapped by
//! `clEnqueueUnmapMemObject`).
//!
//! An image is a [`Mem`] whose `vecl::Mem` carries the image's format and
//! layout. The runtime (`vecl::runtime::image`) checks formats, descriptors
//! and regions and plans every transfer as a rectangular copy; this file
//! reads the C arguments, makes the checks that are about handles and host
//! access, and runs the plans as commands of the queue.

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use opencl_sys::*;
use vecl::runtime::image::{self as raw_image, ImageFormat, ImageShape};

use crate::context::Context;
use crate::device_caps::IMAGE_SUPPORT;
use crate::enqueue::{
    check_map_access, check_map_flags, handed_out, queue_buffer, queue_mem, triple,
};
use crate::entry::{api, api_create, property_list, write_out};
use crate::handle::{ClType, Object};
use crate::info::{query, Info};
use crate::memory::{check_flags, Mem};
use crate::queue::{submit, Queue};
use crate::ClResult;

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

/// The image types of `cl_mem_object_type`.
const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

fn code(error: vecl::Error) -> cl_int {
    error.cl_code()
}

/// `clGetSupportedImageFormats`: every supported format serves every image
/// type and access (none without image support).
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
        if (num_entries == 0 && !image_formats.is_null())
            || !IMAGE_TYPES.contains(&image_type)
            || flags & !IMAGE_FLAGS != 0
        {
            return Err(CL_INVALID_VALUE);
        }
        let formats = if IMAGE_SUPPORT {
            raw_image::supported_formats()
        } else {
            Vec::new()
        };
        if !image_formats.is_null() {
            for (i, format) in formats.iter().take(num_entries as usize).enumerate() {
                let entry = cl_image_format {
                    image_channel_order: format.order,
                    image_channel_data_type: format.channel_type,
                };
                // SAFETY: the application provides `num_entries` entries.
                unsafe { image_formats.add(i).write_unaligned(entry) };
            }
        }
        // SAFETY: null or writable, per the API contract.
        unsafe { write_out(num_image_formats, formats.len() as cl_uint) };
        Ok(())
    })
}

/// The common body of the image-creating entry points.
fn create_image(
    context: cl_context,
    properties: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    let context = Context::get(context)?;
    // "CL_INVALID_OPERATION if there are no devices in context that support
    // images (i.e. CL_DEVICE_IMAGE_SUPPORT … is CL_FALSE)."
    if !IMAGE_SUPPORT {
        return Err(CL_INVALID_OPERATION);
    }
    if flags & !IMAGE_FLAGS != 0 {
        return Err(CL_INVALID_VALUE);
    }
    // "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if … image_format is NULL."
    if image_format.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // SAFETY: non-null; the application passes a cl_image_format.
    let format = unsafe { image_format.read_unaligned() };
    if image_desc.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // SAFETY: non-null; the application passes a cl_image_desc.
    let desc = unsafe { image_desc.read_unaligned() };
    // "num_mip_levels and num_samples must be 0."
    if desc.num_mip_levels != 0 || desc.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let buffer = if desc.buffer.is_null() {
        None
    } else {
        let buffer = Mem::get(desc.buffer).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
        if !Arc::ptr_eq(&buffer.context, &context) || buffer.is_image() {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        Some(buffer)
    };
    // An image of its own gets READ_WRITE when no access is named; one made
    // from a buffer inherits the buffer's.
    let flags = match buffer {
        Some(_) => flags,
        None => check_flags(flags)?,
    };
    let shape = ImageShape {
        image_type: desc.image_type,
        width: desc.image_width as u64,
        height: desc.image_height as u64,
        depth: desc.image_depth as u64,
        array_size: desc.image_array_size as u64,
        row_pitch: desc.image_row_pitch as u64,
        slice_pitch: desc.image_slice_pitch as u64,
    };
    let format = ImageFormat {
        order: format.image_channel_order,
        channel_type: format.image_channel_data_type,
    };
    // SAFETY: the application promises the image's bytes at host_ptr, laid
    // out with the descriptor's pitches: readable now for COPY_HOST_PTR,
    // readable and writable for the image's life with USE_HOST_PTR.
    let raw = unsafe {
        vecl::Mem::create_image(
            vecl::MemFlags(flags),
            format,
            &shape,
            host_ptr.cast(),
            buffer.as_ref().map(|b| &b.raw),
        )
    }
    .map_err(code)?;
    let flags = raw.flags().0;
    let host_ptr = if flags & CL_MEM_USE_HOST_PTR != 0 && buffer.is_none() {
        host_ptr
    } else {
        std::ptr::null_mut()
    };
    let mem = Mem::register(Mem::new(context, flags, raw, buffer, host_ptr, properties))?;
    Ok(mem.handle())
}

/// `clCreateImage`.
pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        create_image(
            context,
            Vec::new(),
            flags,
            image_format,
            image_desc,
            host_ptr,
        )
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateImageWithProperties`: no image properties are defined by the
/// core specification, so the list must be empty.
pub unsafe extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        Context::get(context)?;
        // SAFETY: null or a zero-terminated list, per the API contract.
        let stored = match unsafe { property_list(properties) } {
            None => Vec::new(),
            Some(pairs) if pairs.is_empty() => vec![0],
            Some(_) => return Err(CL_INVALID_PROPERTY),
        };
        create_image(context, stored, flags, image_format, image_desc, host_ptr)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// The OpenCL 1.1 entry points report descriptor problems as sizes:
/// "CL_INVALID_IMAGE_SIZE if image_width or image_height are 0 … or if
/// values specified by image_row_pitch do not follow rules".
fn legacy_code(code: cl_int) -> cl_int {
    if code == CL_INVALID_IMAGE_DESCRIPTOR {
        CL_INVALID_IMAGE_SIZE
    } else {
        code
    }
}

/// A `cl_image_desc` of the OpenCL 1.1 entry points.
fn legacy_desc(
    image_type: cl_mem_object_type,
    size: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: size[0],
        image_height: size[1],
        image_depth: size[2],
        image_array_size: 0,
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

/// `clCreateImage2D` (OpenCL 1.1).
pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        let desc = legacy_desc(
            CL_MEM_OBJECT_IMAGE2D,
            [image_width, image_height, 1],
            image_row_pitch,
            0,
        );
        create_image(context, Vec::new(), flags, image_format, &desc, host_ptr).map_err(legacy_code)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateImage3D` (OpenCL 1.1): "CL_INVALID_IMAGE_SIZE if image_width,
/// image_height are 0 or if image_depth ≤ 1".
pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        Context::get(context)?;
        if IMAGE_SUPPORT && image_depth <= 1 {
            return Err(CL_INVALID_IMAGE_SIZE);
        }
        let desc = legacy_desc(
            CL_MEM_OBJECT_IMAGE3D,
            [image_width, image_height, image_depth],
            image_row_pitch,
            image_slice_pitch,
        );
        create_image(context, Vec::new(), flags, image_format, &desc, host_ptr).map_err(legacy_code)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// The image behind `image`: "CL_INVALID_MEM_OBJECT if image is not a valid
/// image object".
fn image_of(image: cl_mem) -> ClResult<Arc<Object<Mem>>> {
    let mem = Mem::get(image)?;
    if !mem.is_image() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(mem)
}

/// `clGetImageInfo`.
pub unsafe extern "C" fn clGetImageInfo(
    image: cl_mem,
    param_name: cl_image_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let mem = image_of(image)?;
        let info = mem.raw.image_info().map_err(code)?;
        let size = |value: u64| Info::value(value as usize);
        let one_d = matches!(
            info.image_type,
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE1D_ARRAY
        );
        Ok(match param_name {
            CL_IMAGE_FORMAT => Info::value(cl_image_format {
                image_channel_order: info.format.order,
                image_channel_data_type: info.format.channel_type,
            }),
            CL_IMAGE_ELEMENT_SIZE => size(u64::from(info.pixel_size)),
            CL_IMAGE_ROW_PITCH => size(info.row_pitch),
            CL_IMAGE_SLICE_PITCH => size(info.slice_pitch),
            CL_IMAGE_WIDTH => size(info.width),
            // "height … For a 1D image, 1D image buffer and 1D image array
            // object, height = 0"; depth is 0 for all but 3-D images.
            CL_IMAGE_HEIGHT => size(if one_d { 0 } else { info.height }),
            CL_IMAGE_DEPTH => size(if info.image_type == CL_MEM_OBJECT_IMAGE3D {
                info.depth
            } else {
                0
            }),
            CL_IMAGE_ARRAY_SIZE => size(info.array_size),
            CL_IMAGE_BUFFER => Info::value(
                mem.parent
                    .as_ref()
                    .map_or(std::ptr::null_mut(), |buffer| buffer.handle()),
            ),
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => Info::value(0 as cl_uint),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// An image of the queue's context.
fn queue_image(queue: &Object<Queue>, image: cl_mem) -> ClResult<Arc<Object<Mem>>> {
    let mem = queue_mem(queue, image)?;
    if !mem.is_image() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(mem)
}

/// An origin or region argument in the runtime's terms.
///
/// # Safety
/// `ptr` is null or points at three `size_t`s.
unsafe fn coords(ptr: *const usize) -> ClResult<[u64; 3]> {
    // SAFETY: forwarded contract.
    Ok(unsafe { triple(ptr)? }.map(|n| n as u64))
}

/// `clEnqueueReadImage`.
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let image = queue_image(&queue, image)?;
        // SAFETY: three size_t each, per the API contract.
        let (origin, region) = unsafe { (coords(origin)?, coords(region)?) };
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: forwarded contracts; the application keeps the host
        // rectangle at `ptr` valid until the command completes.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_read_image(
                &image.raw,
                origin,
                region,
                row_pitch as u64,
                slice_pitch as u64,
                ptr.cast(),
                blocking_read != CL_FALSE,
                &wait,
            );
            handed_out(&queue, CL_COMMAND_READ_IMAGE, submitted, event)
        }
    })
}

/// `clEnqueueWriteImage`.
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const usize,
    region: *const usize,
    input_row_pitch: usize,
    input_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let image = queue_image(&queue, image)?;
        // SAFETY: three size_t each, per the API contract.
        let (origin, region) = unsafe { (coords(origin)?, coords(region)?) };
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: forwarded contracts; the application keeps the host
        // rectangle at `ptr` valid until the command completes.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_write_image(
                &image.raw,
                origin,
                region,
                input_row_pitch as u64,
                input_slice_pitch as u64,
                ptr.cast(),
                blocking_write != CL_FALSE,
                &wait,
            );
            handed_out(&queue, CL_COMMAND_WRITE_IMAGE, submitted, event)
        }
    })
}

/// `clEnqueueCopyImage`.
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let src = queue_image(&queue, src_image)?;
        let dst = queue_image(&queue, dst_image)?;
        // SAFETY: three size_t each, per the API contract.
        let (src_origin, dst_origin, region) =
            unsafe { (coords(src_origin)?, coords(dst_origin)?, coords(region)?) };
        // SAFETY: forwarded contracts.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue
                .raw
                .enqueue_copy_image(&src.raw, &dst.raw, src_origin, dst_origin, region, &wait);
            handed_out(&queue, CL_COMMAND_COPY_IMAGE, submitted, event)
        }
    })
}

/// "CL_INVALID_MEM_OBJECT if … image is a 1D image buffer object created
/// from buffer" (the copy would read and write the same bytes).
fn check_not_own_buffer(image: &Mem, buffer: &Arc<Object<Mem>>) -> ClResult<()> {
    if image
        .parent
        .as_ref()
        .is_some_and(|parent| Arc::ptr_eq(parent, buffer))
    {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(())
}

/// `clEnqueueCopyImageToBuffer`.
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let src = queue_image(&queue, src_image)?;
        let dst = queue_buffer(&queue, dst_buffer)?;
        check_not_own_buffer(&src, &dst)?;
        // SAFETY: three size_t each, per the API contract.
        let (origin, region) = unsafe { (coords(src_origin)?, coords(region)?) };
        // SAFETY: forwarded contracts.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_copy_image_to_buffer(
                &src.raw,
                &dst.raw,
                origin,
                region,
                dst_offset as u64,
                &wait,
            );
            handed_out(&queue, CL_COMMAND_COPY_IMAGE_TO_BUFFER, submitted, event)
        }
    })
}

/// `clEnqueueCopyBufferToImage`.
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let src = queue_buffer(&queue, src_buffer)?;
        let dst = queue_image(&queue, dst_image)?;
        check_not_own_buffer(&dst, &src)?;
        // SAFETY: three size_t each, per the API contract.
        let (origin, region) = unsafe { (coords(dst_origin)?, coords(region)?) };
        // SAFETY: forwarded contracts.
        unsafe {
            let wait = queue.wait_list(num_events_in_wait_list, event_wait_list)?;
            let submitted = queue.raw.enqueue_copy_buffer_to_image(
                &src.raw,
                &dst.raw,
                src_offset as u64,
                origin,
                region,
                &wait,
            );
            handed_out(&queue, CL_COMMAND_COPY_BUFFER_TO_IMAGE, submitted, event)
        }
    })
}

/// `clEnqueueFillImage`: "The fill color is a single floating-point value
/// if the channel order is CL_DEPTH. Otherwise, the fill color is a four
/// component RGBA floating-point color value if the image channel data type
/// is not an unnormalized signed or unsigned integer type, … a four
/// component signed integer value if the image channel data type is an
/// unnormalized signed integer type and … unsigned integer value if …
/// unsigned".
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    api(|| {
        let queue = Queue::get(command_queue)?;
        let image = queue_image(&queue, image)?;
        if fill_color.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: three size_t each, per the API contract.
        let (origin, region) = unsafe { (coords(origin)?, coords(region)?) };
        // SAFETY: the application passes a four-component colour (16 bytes).
        let color = unsafe { fill_color.cast::<[u8; 16]>().read_unaligned() };
        let format = image.raw.image_info().map_err(code)?.format;
        let fill = raw_image::plan_fill(&image.raw, format.fill_value(color), origin, region)
            .map_err(code)?;
        let work = Box::new(move || {
            // SAFETY: the fill was planned for this image.
            unsafe { fill.run(image.base()) };
            Ok(())
        });
        // SAFETY: forwarded contracts.
        unsafe {
            submit(
                &queue,
                CL_COMMAND_FILL_IMAGE,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
                work,
            )
        }
    })
}

/// `clEnqueueMapImage`: images are host memory, so a map hands out the
/// image's own bytes at `origin` and its pitches.
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let body = || {
        let queue = Queue::get(command_queue)?;
        let image = queue_image(&queue, image)?;
        check_map_flags(map_flags)?;
        let info = image.raw.image_info().map_err(code)?;
        // "CL_INVALID_VALUE if image_row_pitch is NULL", and
        // "image_slice_pitch … must be a non-NULL value" for 3-D images and
        // arrays.
        if image_row_pitch.is_null() || (image_slice_pitch.is_null() && info.slice_pitch != 0) {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: three size_t each, per the API contract.
        let (origin, region) = unsafe { (coords(origin)?, coords(region)?) };
        let mapping = raw_image::plan_map(&image.raw, origin, region).map_err(code)?;
        check_map_access(&image, map_flags)?;
        // SAFETY: the region lies inside the image (checked by plan_map).
        let address = unsafe { image.base().add(mapping.offset as usize) };
        image.map_count.fetch_add(1, Ordering::AcqRel);
        // SAFETY: forwarded contracts.
        let submitted = unsafe {
            submit(
                &queue,
                CL_COMMAND_MAP_IMAGE,
                blocking_map != CL_FALSE,
                num_events_in_wait_list,
                event_wait_list,
                event,
                Box::new(|| Ok(())),
            )
        };
        if let Err(error) = submitted {
            image.map_count.fetch_sub(1, Ordering::AcqRel);
            return Err(error);
        }
        // SAFETY: non-null / null or writable, per the API contract.
        unsafe {
            write_out(image_row_pitch, mapping.row_pitch as usize);
            write_out(image_slice_pitch, mapping.slice_pitch as usize);
        }
        Ok(address.cast::<c_void>())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

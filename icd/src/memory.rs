//! Memory objects: `clCreateBuffer`, `clCreateBufferWithProperties`,
//! `clCreateSubBuffer`, retain/release, `clGetMemObjectInfo`,
//! `clSetMemObjectDestructorCallback`.
//!
//! Buffers are vecl's memory objects (`vecl::Mem`): host memory, aligned,
//! or with `CL_MEM_USE_HOST_PTR` the application's memory itself (zero
//! copy); a sub-buffer is a window onto its parent's bytes. Kernels receive
//! the `vecl::Mem`; copies and maps use its address.
//!
//! Images are memory objects too (`crate::image` makes them): their
//! `vecl::Mem` carries the image's format and layout, and `parent` is the
//! buffer a 1-D image buffer or a 2-D image from a buffer lives in.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use opencl_sys::*;

use crate::context::Context;
use crate::device_caps::{CAPS, MEM_BASE_ADDR_ALIGN_BITS};
use crate::entry::{api, api_create, property_list, UserPtr};
use crate::handle::{cl_type, handle_of, ClType, Object};
use crate::info::{query, Info};
use crate::ClResult;

/// Alignment of buffer storage and of sub-buffer origins, in bytes.
pub const ALIGN: usize = MEM_BASE_ADDR_ALIGN_BITS as usize / 8;

/// A memory-object destructor callback.
pub type MemDestructor = unsafe extern "C" fn(memobj: cl_mem, user_data: *mut c_void);

/// A buffer, sub-buffer or image.
pub struct Mem {
    pub context: Arc<Object<Context>>,
    pub flags: cl_mem_flags,
    pub size: usize,
    /// Offset into the parent (non-zero only for sub-buffers).
    pub offset: usize,
    /// vecl's memory object.
    pub raw: vecl::Mem,
    /// The buffer of a sub-buffer, or of an image made from a buffer.
    pub parent: Option<Arc<Object<Mem>>>,
    host_ptr: UserPtr,
    properties: Vec<cl_mem_properties>,
    pub map_count: AtomicU32,
    destructors: Mutex<Vec<(MemDestructor, UserPtr)>>,
}

cl_type!(Mem, CL_INVALID_MEM_OBJECT);

impl Mem {
    /// A memory object of `context` to register: its flags, size, vecl
    /// object, the buffer it is made from, the application's pointer (for
    /// `CL_MEM_HOST_PTR`) and its property list.
    pub fn new(
        context: Arc<Object<Context>>,
        flags: cl_mem_flags,
        raw: vecl::Mem,
        parent: Option<Arc<Object<Mem>>>,
        host_ptr: *mut c_void,
        properties: Vec<cl_mem_properties>,
    ) -> Mem {
        Mem {
            context,
            flags,
            size: raw.size() as usize,
            offset: 0,
            raw,
            parent,
            host_ptr: UserPtr(host_ptr),
            properties,
            map_count: AtomicU32::new(0),
            destructors: Mutex::new(Vec::new()),
        }
    }

    /// Whether the object is an image.
    pub fn is_image(&self) -> bool {
        self.raw.image().is_some()
    }

    /// The address of the buffer's first byte.
    pub fn base(&self) -> *mut u8 {
        self.raw.as_ptr()
    }

    /// Checks that `[offset, offset + len)` lies inside the buffer.
    pub fn check_range(&self, offset: usize, len: usize) -> ClResult<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(CL_INVALID_VALUE),
        }
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // SAFETY: every Mem lives in an Object<Mem>.
        let handle = unsafe { handle_of(&*self) };
        let destructors = std::mem::take(
            self.destructors
                .get_mut()
                .unwrap_or_else(|poison| poison.into_inner()),
        );
        for (callback, user_data) in destructors.into_iter().rev() {
            // SAFETY: an application callback with the signature it registered.
            unsafe { callback(handle, user_data.0) };
        }
    }
}

const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_ACCESS: cl_mem_flags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
const HOST_PTR: cl_mem_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

/// Checks a buffer's flags: known bits, at most one access mode and one
/// host access mode, `USE_HOST_PTR` alone among the host-pointer flags.
pub fn check_flags(flags: cl_mem_flags) -> ClResult<cl_mem_flags> {
    if flags & !(ACCESS | HOST_ACCESS | HOST_PTR | CL_MEM_KERNEL_READ_AND_WRITE) != 0
        || (flags & ACCESS).count_ones() > 1
        || (flags & HOST_ACCESS).count_ones() > 1
        || (flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    Ok(if flags & ACCESS == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    })
}

fn create_buffer(
    context: cl_context,
    properties: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    let context = Context::get(context)?;
    let flags = check_flags(flags)?;
    if size == 0 || size as u64 > CAPS.max_mem_alloc_size {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
    // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags."
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    // SAFETY: the application promises `size` bytes at host_ptr: readable
    // now for COPY_HOST_PTR, and readable and writable for the buffer's
    // life with USE_HOST_PTR (the specification's contract for host_ptr).
    let raw = unsafe { vecl::Mem::create(vecl::MemFlags(flags), size as u64, host_ptr.cast()) }
        .map_err(|e| e.cl_code())?;
    let mem = Mem::register(Mem {
        context,
        flags,
        size,
        offset: 0,
        raw,
        parent: None,
        host_ptr: UserPtr(if flags & CL_MEM_USE_HOST_PTR != 0 {
            host_ptr
        } else {
            std::ptr::null_mut()
        }),
        properties,
        map_count: AtomicU32::new(0),
        destructors: Mutex::new(Vec::new()),
    })?;
    Ok(mem.handle())
}

/// `clCreateBuffer`.
pub unsafe extern "C" fn clCreateBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: forwarded contract of errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            create_buffer(context, Vec::new(), flags, size, host_ptr)
        })
    }
}

/// `clCreateBufferWithProperties`: no buffer properties are defined by the
/// core specification, so the list must be empty.
pub unsafe extern "C" fn clCreateBufferWithProperties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        // SAFETY: null or a zero-terminated list, per the API contract.
        let list = unsafe { property_list(properties) };
        let stored = match list {
            None => Vec::new(),
            Some(pairs) if pairs.is_empty() => vec![0],
            Some(_) => return Err(CL_INVALID_PROPERTY),
        };
        create_buffer(context, stored, flags, size, host_ptr)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateSubBuffer`.
pub unsafe extern "C" fn clCreateSubBuffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    buffer_create_type: cl_buffer_create_type,
    buffer_create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        let parent = Mem::get(buffer)?;
        if parent.parent.is_some() || parent.is_image() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        if flags & HOST_PTR != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let given = check_flags(flags)?;
        // Access and host-access modes are inherited when not given, and
        // may not widen the parent's.
        let access = if flags & ACCESS == 0 {
            parent.flags & ACCESS
        } else {
            given & ACCESS
        };
        let host_access = if flags & HOST_ACCESS == 0 {
            parent.flags & HOST_ACCESS
        } else {
            flags & HOST_ACCESS
        };
        let widens = (parent.flags & CL_MEM_WRITE_ONLY != 0 && access != CL_MEM_WRITE_ONLY)
            || (parent.flags & CL_MEM_READ_ONLY != 0 && access != CL_MEM_READ_ONLY)
            || (parent.flags & CL_MEM_HOST_WRITE_ONLY != 0
                && host_access & CL_MEM_HOST_READ_ONLY != 0)
            || (parent.flags & CL_MEM_HOST_READ_ONLY != 0
                && host_access & CL_MEM_HOST_WRITE_ONLY != 0)
            || (parent.flags & CL_MEM_HOST_NO_ACCESS != 0
                && host_access & !CL_MEM_HOST_NO_ACCESS != 0);
        if widens {
            return Err(CL_INVALID_VALUE);
        }
        if buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION || buffer_create_info.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: non-null; the application passes a cl_buffer_region.
        let region = unsafe {
            buffer_create_info
                .cast::<cl_buffer_region>()
                .read_unaligned()
        };
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        parent.check_range(region.origin, region.size)?;
        if region.origin % ALIGN != 0 {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        let host_ptr = if parent.host_ptr.0.is_null() {
            std::ptr::null_mut()
        } else {
            // SAFETY: inside the parent's host memory (range checked).
            unsafe { parent.host_ptr.0.cast::<u8>().add(region.origin).cast() }
        };
        let raw = parent
            .raw
            .create_sub_buffer(
                vecl::MemFlags(access | host_access),
                region.origin as u64,
                region.size as u64,
            )
            .map_err(|e| e.cl_code())?;
        let sub = Mem::register(Mem {
            context: parent.context.clone(),
            flags: access | host_access | (parent.flags & HOST_PTR),
            size: region.size,
            offset: region.origin,
            raw,
            parent: Some(parent.clone()),
            host_ptr: UserPtr(host_ptr),
            properties: Vec::new(),
            map_count: AtomicU32::new(0),
            destructors: Mutex::new(Vec::new()),
        })?;
        Ok(sub.handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clRetainMemObject`.
pub extern "C" fn clRetainMemObject(memobj: cl_mem) -> cl_int {
    api(|| Mem::retain(memobj))
}

/// `clReleaseMemObject`.
pub extern "C" fn clReleaseMemObject(memobj: cl_mem) -> cl_int {
    api(|| Mem::release(memobj).map(drop))
}

/// `clGetMemObjectInfo`.
pub unsafe extern "C" fn clGetMemObjectInfo(
    memobj: cl_mem,
    param_name: cl_mem_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let mem = Mem::get(memobj)?;
        Ok(match param_name {
            CL_MEM_TYPE => Info::value(
                mem.raw
                    .image()
                    .map_or(CL_MEM_OBJECT_BUFFER, |image| image.image_type),
            ),
            CL_MEM_FLAGS => Info::value(mem.flags),
            CL_MEM_SIZE => Info::value(mem.size),
            CL_MEM_HOST_PTR => Info::value(mem.host_ptr.0),
            CL_MEM_MAP_COUNT => Info::value(mem.map_count.load(Ordering::Acquire)),
            CL_MEM_REFERENCE_COUNT => Info::value(mem.ref_count()),
            CL_MEM_CONTEXT => Info::value(mem.context.handle()),
            CL_MEM_ASSOCIATED_MEMOBJECT => Info::value(
                mem.parent
                    .as_ref()
                    .map_or(std::ptr::null_mut(), |parent| parent.handle()),
            ),
            CL_MEM_OFFSET => Info::value(mem.offset),
            CL_MEM_USES_SVM_POINTER => Info::bool(
                !mem.host_ptr.0.is_null() && mem.context.svm.contains(mem.host_ptr.0, mem.size),
            ),
            CL_MEM_PROPERTIES => Info::array(&mem.properties),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clSetMemObjectDestructorCallback`.
pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    memobj: cl_mem,
    pfn_notify: Option<MemDestructor>,
    user_data: *mut c_void,
) -> cl_int {
    api(|| {
        let mem = Mem::get(memobj)?;
        let callback = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        mem.destructors
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push((callback, UserPtr(user_data)));
        Ok(())
    })
}

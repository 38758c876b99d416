//! The device: `clGetDeviceIDs`, `clGetDeviceInfo`, sub-devices (not
//! supported: vecl's device cannot be partitioned), device retain/release
//! and the device timers.
//!
//! vecl has one root device, a static object like the platform. Root
//! devices are not reference counted (`clRetainDevice` on them succeeds and
//! does nothing).

use std::ffi::{c_void, CString};
use std::sync::LazyLock;

use opencl_sys::*;

use crate::device_caps::{self, extension_version, version_of, CAPS};
use crate::entry::{api, slice, write_out};
use crate::handle::Object;
use crate::info::{name_version, query, Info};
use crate::platform::{check_platform, platform_handle};
use crate::ClResult;
use vecl::runtime::image::limits as image_limits;

/// vecl's CPU device.
pub struct Device;

/// The one device.
pub static DEVICE: LazyLock<Object<Device>> = LazyLock::new(|| Object::new_unregistered(Device));

/// The device's handle.
pub fn device_handle() -> cl_device_id {
    DEVICE.handle()
}

/// Checks a device argument.
pub fn check_device(device: cl_device_id) -> ClResult<()> {
    if device == device_handle() {
        Ok(())
    } else {
        Err(CL_INVALID_DEVICE)
    }
}

/// The device clock: the runtime's (`vecl::runtime::event::device_time_ns`),
/// which stamps the profiling times of events, so host timer and profiling
/// times are comparable.
pub fn now_ns() -> u64 {
    vecl::runtime::event::device_time_ns()
}

const VALID_DEVICE_TYPES: cl_device_type = CL_DEVICE_TYPE_DEFAULT
    | CL_DEVICE_TYPE_CPU
    | CL_DEVICE_TYPE_GPU
    | CL_DEVICE_TYPE_ACCELERATOR
    | CL_DEVICE_TYPE_CUSTOM;

/// Whether the device matches a `cl_device_type` selection, after checking
/// the selection is valid.
pub fn matches_type(device_type: cl_device_type) -> ClResult<bool> {
    if device_type == CL_DEVICE_TYPE_ALL {
        return Ok(true);
    }
    if device_type == 0 || device_type & !VALID_DEVICE_TYPES != 0 {
        return Err(CL_INVALID_DEVICE_TYPE);
    }
    Ok(device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) != 0)
}

/// `clGetDeviceIDs`.
pub unsafe extern "C" fn clGetDeviceIDs(
    platform: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    api(|| {
        check_platform(platform)?;
        let matched = matches_type(device_type)?;
        // "CL_INVALID_VALUE if num_entries is equal to zero and devices is
        // not NULL or if both num_devices and devices are NULL."
        if (num_entries == 0 && !devices.is_null()) || (num_devices.is_null() && devices.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        if !matched {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        if !devices.is_null() {
            // SAFETY: the caller provides room for num_entries ≥ 1 handles.
            unsafe { devices.write(device_handle()) };
        }
        // SAFETY: null or writable per the caller's contract.
        unsafe { write_out(num_devices, 1) };
        Ok(())
    })
}

/// `clGetDeviceInfo`.
pub unsafe extern "C" fn clGetDeviceInfo(
    device: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        check_device(device)?;
        device_info(param_name)
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// The `cl_uint` image limits; 0 without image support.
fn image_uint(param_name: cl_device_info) -> u32 {
    if !device_caps::IMAGE_SUPPORT {
        return 0;
    }
    match param_name {
        CL_DEVICE_MAX_READ_IMAGE_ARGS => image_limits::MAX_READ_IMAGE_ARGS,
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => image_limits::MAX_WRITE_IMAGE_ARGS,
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => image_limits::MAX_READ_WRITE_IMAGE_ARGS,
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT => image_limits::IMAGE_PITCH_ALIGNMENT,
        CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => image_limits::IMAGE_BASE_ADDRESS_ALIGNMENT,
        _ => image_limits::MAX_SAMPLERS,
    }
}

/// The `size_t` image limits; 0 without image support.
fn image_size(param_name: cl_device_info) -> usize {
    if !device_caps::IMAGE_SUPPORT {
        return 0;
    }
    let limit = match param_name {
        CL_DEVICE_IMAGE2D_MAX_WIDTH => image_limits::IMAGE2D_MAX_WIDTH,
        CL_DEVICE_IMAGE2D_MAX_HEIGHT => image_limits::IMAGE2D_MAX_HEIGHT,
        CL_DEVICE_IMAGE3D_MAX_WIDTH => image_limits::IMAGE3D_MAX_WIDTH,
        CL_DEVICE_IMAGE3D_MAX_HEIGHT => image_limits::IMAGE3D_MAX_HEIGHT,
        CL_DEVICE_IMAGE3D_MAX_DEPTH => image_limits::IMAGE3D_MAX_DEPTH,
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => image_limits::image_max_buffer_size(),
        _ => image_limits::IMAGE_MAX_ARRAY_SIZE,
    };
    limit as usize
}

/// `CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR`,
/// under a name a pattern may use.
const DOT_PRODUCT_ACCELERATION_PROPERTIES_4X8BIT_PACKED: cl_device_info =
    CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED;

fn device_info(param_name: cl_device_info) -> ClResult<Info> {
    let (major, minor) = device_caps::CL_VERSION;
    let [p_char, p_short, p_int, p_long, p_float, p_double, p_half] = CAPS.preferred_widths;
    let [n_char, n_short, n_int, n_long, n_float, n_double, n_half] = CAPS.native_widths;
    let size = |value: usize| Info::value(value);
    let uint = |value: u32| Info::value(value);
    let ulong = |value: u64| Info::value(value);
    Ok(match param_name {
        CL_DEVICE_TYPE => ulong(CL_DEVICE_TYPE_CPU),
        CL_DEVICE_VENDOR_ID => uint(CAPS.vendor_id),
        CL_DEVICE_MAX_COMPUTE_UNITS => uint(CAPS.compute_units),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => uint(3),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => size(device_caps::MAX_WORK_GROUP_SIZE),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => Info::array(&device_caps::MAX_WORK_ITEM_SIZES),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR => uint(p_char),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT => uint(p_short),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT => uint(p_int),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG => uint(p_long),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT => uint(p_float),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE => uint(p_double),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF => uint(p_half),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR => uint(n_char),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT => uint(n_short),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_INT => uint(n_int),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG => uint(n_long),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => uint(n_float),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => uint(n_double),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => uint(n_half),
        CL_DEVICE_MAX_CLOCK_FREQUENCY => uint(CAPS.clock_mhz),
        CL_DEVICE_ADDRESS_BITS => uint(64),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => ulong(CAPS.max_mem_alloc_size),
        CL_DEVICE_IMAGE_SUPPORT => Info::bool(device_caps::IMAGE_SUPPORT),
        CL_DEVICE_MAX_READ_IMAGE_ARGS
        | CL_DEVICE_MAX_WRITE_IMAGE_ARGS
        | CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS
        | CL_DEVICE_IMAGE_PITCH_ALIGNMENT
        | CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT
        | CL_DEVICE_MAX_SAMPLERS => uint(image_uint(param_name)),
        CL_DEVICE_IMAGE2D_MAX_WIDTH
        | CL_DEVICE_IMAGE2D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_WIDTH
        | CL_DEVICE_IMAGE3D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_DEPTH
        | CL_DEVICE_IMAGE_MAX_BUFFER_SIZE
        | CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => size(image_size(param_name)),
        CL_DEVICE_MAX_PARAMETER_SIZE => size(CAPS.max_parameter_size),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => uint(device_caps::MEM_BASE_ADDR_ALIGN_BITS),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => uint(CAPS.min_data_type_align_size),
        CL_DEVICE_SINGLE_FP_CONFIG => ulong(CAPS.single_fp_config),
        CL_DEVICE_DOUBLE_FP_CONFIG => ulong(CAPS.double_fp_config),
        CL_DEVICE_HALF_FP_CONFIG => ulong(CAPS.half_fp_config),
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => uint(CL_READ_WRITE_CACHE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => uint(CAPS.cacheline_size),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => ulong(CAPS.cache_size),
        CL_DEVICE_GLOBAL_MEM_SIZE => ulong(CAPS.global_mem_size),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => ulong(CAPS.max_constant_buffer_size),
        CL_DEVICE_MAX_CONSTANT_ARGS => uint(device_caps::MAX_CONSTANT_ARGS),
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE | CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => {
            size(device_caps::max_global_variable_size())
        }
        CL_DEVICE_LOCAL_MEM_TYPE => uint(CL_GLOBAL),
        CL_DEVICE_LOCAL_MEM_SIZE => ulong(device_caps::LOCAL_MEM_SIZE),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => Info::bool(false),
        CL_DEVICE_HOST_UNIFIED_MEMORY => Info::bool(true),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => size(1),
        CL_DEVICE_ENDIAN_LITTLE => Info::bool(cfg!(target_endian = "little")),
        CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
            Info::bool(true)
        }
        CL_DEVICE_EXECUTION_CAPABILITIES => ulong(CL_EXEC_KERNEL),
        CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => ulong(CAPS.queue_properties),
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => ulong(0),
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE
        | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE
        | CL_DEVICE_MAX_ON_DEVICE_QUEUES
        | CL_DEVICE_MAX_ON_DEVICE_EVENTS
        | CL_DEVICE_MAX_PIPE_ARGS
        | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
        | CL_DEVICE_PIPE_MAX_PACKET_SIZE
        | CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PARTITION_MAX_SUB_DEVICES => uint(0),
        // A group one work-item wide in dimension 0 has one sub-group per
        // work-item (`vecl::SubGroupInfo`).
        CL_DEVICE_MAX_NUM_SUB_GROUPS => uint(device_caps::MAX_WORK_GROUP_SIZE as u32),
        CL_DEVICE_SVM_CAPABILITIES => ulong(crate::svm::SVM_CAPABILITIES),
        CL_DEVICE_BUILT_IN_KERNELS => Info::string(""),
        CL_DEVICE_NAME => Info::string(&CAPS.device_name),
        CL_DEVICE_VENDOR => Info::string(CAPS.device_vendor),
        CL_DRIVER_VERSION => Info::string(CAPS.driver_version),
        CL_DEVICE_PROFILE => Info::string("FULL_PROFILE"),
        CL_DEVICE_VERSION => Info::string(CAPS.device_version),
        CL_DEVICE_NUMERIC_VERSION => uint(version_of((major, minor, 0))),
        CL_DEVICE_OPENCL_C_VERSION => Info::string(CAPS.opencl_c_version),
        CL_DEVICE_OPENCL_C_ALL_VERSIONS => Info::array(
            &device_caps::OPENCL_C_VERSIONS
                .iter()
                .map(|&(major, minor)| name_version("OpenCL C", version_of((major, minor, 0))))
                .collect::<Vec<_>>(),
        ),
        CL_DEVICE_OPENCL_C_FEATURES => Info::array(
            &device_caps::opencl_c_features()
                .iter()
                .map(|name| name_version(name, version_of((3, 0, 0))))
                .collect::<Vec<_>>(),
        ),
        CL_DEVICE_EXTENSIONS => Info::string(&CAPS.device_extensions.join(" ")),
        CL_DEVICE_EXTENSIONS_WITH_VERSION => Info::array(
            &CAPS
                .device_extensions
                .iter()
                .map(|name| name_version(name, version_of(extension_version(name))))
                .collect::<Vec<_>>(),
        ),
        CL_DEVICE_IL_VERSION => Info::string(&il_versions().join(" ")),
        CL_DEVICE_ILS_WITH_VERSION => Info::array(
            &vecl_spirv::VERSIONS
                .iter()
                .map(|&(major, minor)| {
                    name_version("SPIR-V", version_of((major.into(), minor.into(), 0)))
                })
                .collect::<Vec<_>>(),
        ),
        // cl_khr_spirv_queries: the SPIR-V front end's own tables of what it
        // accepts (`vecl_spirv::support`).
        CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR => {
            Info::static_strings(&SPIRV_EXTENDED_INSTRUCTION_SETS)
        }
        CL_DEVICE_SPIRV_EXTENSIONS_KHR => Info::static_strings(&SPIRV_EXTENSIONS),
        CL_DEVICE_SPIRV_CAPABILITIES_KHR => {
            Info::array(&vecl_spirv::support::reported_capabilities())
        }
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => Info::bytes(Vec::new()),
        CL_DEVICE_PLATFORM => Info::value(platform_handle()),
        CL_DEVICE_PARENT_DEVICE => Info::value(std::ptr::null_mut::<c_void>()),
        CL_DEVICE_PARTITION_PROPERTIES => Info::value(0isize),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => ulong(0),
        CL_DEVICE_PARTITION_TYPE => Info::bytes(Vec::new()),
        CL_DEVICE_REFERENCE_COUNT => uint(1),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => Info::bool(true),
        CL_DEVICE_PRINTF_BUFFER_SIZE => size(CAPS.printf_buffer_size),
        // The sub-groups of a group run one after another between
        // barriers, so one that waits for another never finishes.
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => Info::bool(false),
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => ulong(device_caps::atomic_capabilities(false)),
        CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => ulong(device_caps::atomic_capabilities(true)),
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => Info::bool(true),
        CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => {
            Info::bool(device_caps::has_feature("__opencl_c_generic_address_space"))
        }
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => Info::bool(true),
        CL_DEVICE_PIPE_SUPPORT => Info::bool(false),
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
            size(CAPS.preferred_work_group_size_multiple)
        }
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => ulong(0),
        CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES => {
            ulong(device_caps::integer_dot_product_capabilities())
        }
        // cl_device_integer_dot_product_acceleration_properties_khr: six
        // cl_bools (signed, unsigned, mixed; the same accumulating and
        // saturating). None is faster than the same arithmetic written out,
        // which is how vecl computes it.
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT
        | DOT_PRODUCT_ACCELERATION_PROPERTIES_4X8BIT_PACKED => Info::array(&[CL_FALSE; 6]),
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => Info::string("v0000-01-01-00"),
        _ => return Err(CL_INVALID_VALUE),
    })
}

/// `clCreateSubDevices`: vecl's device offers no partition types
/// (`CL_DEVICE_PARTITION_PROPERTIES` is empty).
pub unsafe extern "C" fn clCreateSubDevices(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property,
    _num_devices: cl_uint,
    _out_devices: *mut cl_device_id,
    _num_devices_ret: *mut cl_uint,
) -> cl_int {
    api(|| {
        check_device(in_device)?;
        if properties.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if values specified in properties are not valid
        // or if values specified in properties are valid but not supported
        // by the device."
        Err(CL_INVALID_VALUE)
    })
}

/// `clCreateSubDevicesEXT` (`cl_ext_device_fission`): not offered.
pub unsafe extern "C" fn clCreateSubDevicesEXT(
    in_device: cl_device_id,
    _properties: *const cl_device_partition_property_ext,
    _num_entries: cl_uint,
    _out_devices: *mut cl_device_id,
    _num_devices: *mut cl_uint,
) -> cl_int {
    api(|| {
        check_device(in_device)?;
        Err(CL_INVALID_VALUE)
    })
}

/// `clRetainDevice`: root devices are not reference counted.
pub extern "C" fn clRetainDevice(device: cl_device_id) -> cl_int {
    api(|| check_device(device))
}

/// `clReleaseDevice`: root devices are not reference counted.
pub extern "C" fn clReleaseDevice(device: cl_device_id) -> cl_int {
    api(|| check_device(device))
}

/// `clGetDeviceAndHostTimer`: both read the same monotonic clock.
pub unsafe extern "C" fn clGetDeviceAndHostTimer(
    device: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    api(|| {
        check_device(device)?;
        if device_timestamp.is_null() || host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let now = now_ns();
        // SAFETY: both checked non-null; the caller provides writable u64s.
        unsafe {
            device_timestamp.write_unaligned(now);
            host_timestamp.write_unaligned(now);
        }
        Ok(())
    })
}

/// `clGetHostTimer`.
pub unsafe extern "C" fn clGetHostTimer(
    device: cl_device_id,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    api(|| {
        check_device(device)?;
        if host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: checked non-null; the caller provides a writable u64.
        unsafe { host_timestamp.write_unaligned(now_ns()) };
        Ok(())
    })
}

/// Checks a list of devices given to a context or program call: non-empty,
/// every entry vecl's device.
///
/// # Safety
/// `devices` is null or holds `num_devices` handles.
pub unsafe fn check_device_list(
    devices: *const cl_device_id,
    num_devices: cl_uint,
) -> ClResult<()> {
    if devices.is_null() || num_devices == 0 {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    let list = unsafe { slice(devices, num_devices as usize, CL_INVALID_VALUE)? };
    list.iter().try_for_each(|&device| check_device(device))
}

/// `CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR`'s strings, kept for the
/// life of the library: the query returns pointers to them.
static SPIRV_EXTENDED_INSTRUCTION_SETS: LazyLock<Vec<CString>> = LazyLock::new(|| {
    c_strings(
        vecl_spirv::support::EXTENDED_INSTRUCTION_SETS
            .iter()
            .map(|(name, _)| *name),
    )
});

/// `CL_DEVICE_SPIRV_EXTENSIONS_KHR`'s strings.
static SPIRV_EXTENSIONS: LazyLock<Vec<CString>> =
    LazyLock::new(|| c_strings(vecl_spirv::support::EXTENSIONS.iter().copied()));

fn c_strings<'a>(names: impl Iterator<Item = &'a str>) -> Vec<CString> {
    // The names are the front end's literals, without NUL bytes.
    names.filter_map(|n| CString::new(n).ok()).collect()
}

/// `CL_DEVICE_IL_VERSION`'s words: `SPIR-V_1.0` … for each version the
/// SPIR-V front end reads.
fn il_versions() -> Vec<String> {
    vecl_spirv::VERSIONS
        .iter()
        .map(|(major, minor)| format!("SPIR-V_{major}.{minor}"))
        .collect()
}

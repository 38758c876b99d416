//! The device's advertised properties, in one place.
//!
//! Everything the `vecl` crate states about its device (`vecl::Device`,
//! `vecl::Platform`, the runtime's limits) is taken from there, so the C API
//! reports exactly what validation enforces. What is specific to the C API
//! (the ICD suffix, the OpenCL 3.0 feature lists) is stated here.

use std::sync::LazyLock;

use opencl_sys::{
    cl_ulong, CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT,
    CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED, CL_DEVICE_ATOMIC_ORDER_ACQ_REL,
    CL_DEVICE_ATOMIC_ORDER_RELAXED, CL_DEVICE_ATOMIC_ORDER_SEQ_CST,
    CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES, CL_DEVICE_ATOMIC_SCOPE_DEVICE,
    CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP, CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM,
};
use vecl::runtime::device_limits as limits;

use crate::info::make_version;

/// The platform and device name.
pub const NAME: &str = "vecl";
/// The OpenCL version implemented.
pub const CL_VERSION: (u32, u32) = (3, 0);
/// `cl_khr_icd`'s suffix for extension functions of this vendor.
pub const ICD_SUFFIX: &str = "vecl";

/// OpenCL C versions the front end accepts (`-cl-std=`).
pub const OPENCL_C_VERSIONS: &[(u32, u32)] = &[(1, 0), (1, 1), (1, 2), (3, 0)];

/// OpenCL C 3.0 optional features the front end supports (the same list
/// defines its `__opencl_c_*` macros).
pub use vecl_clc::OPENCL_C_FEATURES;

/// `CL_DEVICE_IMAGE_SUPPORT` (the `vecl` crate's).
pub use vecl::IMAGE_SUPPORT;

/// OpenCL C 3.0 features that come with image support.
pub use vecl_clc::OPENCL_C_IMAGE_FEATURES;

/// Every OpenCL C 3.0 optional feature of the device.
pub fn opencl_c_features() -> Vec<&'static str> {
    let images = if IMAGE_SUPPORT {
        OPENCL_C_IMAGE_FEATURES
    } else {
        &[]
    };
    OPENCL_C_FEATURES.iter().chain(images).copied().collect()
}

/// Whether the front end offers (and defines the macro of) an OpenCL C
/// feature.
pub fn has_feature(name: &str) -> bool {
    OPENCL_C_FEATURES.contains(&name)
}

/// `CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE` (and the preferred total): the
/// runtime's limit with program-scope `__global` variables, else 0.
pub fn max_global_variable_size() -> usize {
    if has_feature("__opencl_c_program_scope_global_variables") {
        limits::MAX_GLOBAL_VARIABLE_SIZE as usize
    } else {
        0
    }
}

/// `CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES` (or, with `fence`,
/// `CL_DEVICE_ATOMIC_FENCE_CAPABILITIES`): the minimum of OpenCL 3.0
/// (relaxed order, work-group scope; for fences also acquire-release and
/// work-item scope) and the orders and scopes whose `__opencl_c_atomic_*`
/// features the front end defines, so that the two always agree.
pub fn atomic_capabilities(fence: bool) -> cl_ulong {
    let mut caps = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
    if fence {
        caps |= CL_DEVICE_ATOMIC_ORDER_ACQ_REL | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM;
    }
    for feature in OPENCL_C_FEATURES {
        caps |= match *feature {
            "__opencl_c_atomic_order_acq_rel" => CL_DEVICE_ATOMIC_ORDER_ACQ_REL,
            "__opencl_c_atomic_order_seq_cst" => CL_DEVICE_ATOMIC_ORDER_SEQ_CST,
            "__opencl_c_atomic_scope_device" => CL_DEVICE_ATOMIC_SCOPE_DEVICE,
            "__opencl_c_atomic_scope_all_devices" => CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES,
            _ => 0,
        };
    }
    caps
}

/// Largest work-group (product of the local sizes).
pub const MAX_WORK_GROUP_SIZE: usize = limits::MAX_WORK_GROUP_SIZE as usize;
/// Largest local size per dimension.
pub const MAX_WORK_ITEM_SIZES: [usize; 3] = [
    limits::MAX_WORK_ITEM_SIZES[0] as usize,
    limits::MAX_WORK_ITEM_SIZES[1] as usize,
    limits::MAX_WORK_ITEM_SIZES[2] as usize,
];
/// `__local` memory per work-group.
pub const LOCAL_MEM_SIZE: cl_ulong = limits::LOCAL_MEM_SIZE;
/// Most `__constant` arguments of a kernel.
pub const MAX_CONSTANT_ARGS: u32 = 8;
/// Buffer alignment, in bits (`CL_DEVICE_MEM_BASE_ADDR_ALIGN`).
pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = limits::MEM_BASE_ADDR_ALIGN_BITS;

/// The `vecl` crate's description of the platform and device, read once.
pub struct Caps {
    pub platform_vendor: &'static str,
    pub platform_extensions: Vec<String>,
    pub device_name: String,
    pub device_vendor: &'static str,
    pub vendor_id: u32,
    pub device_version: &'static str,
    pub driver_version: &'static str,
    pub opencl_c_version: &'static str,
    pub device_extensions: Vec<String>,
    pub compute_units: u32,
    pub clock_mhz: u32,
    pub global_mem_size: cl_ulong,
    pub max_mem_alloc_size: cl_ulong,
    pub cache_size: cl_ulong,
    pub cacheline_size: u32,
    pub max_constant_buffer_size: cl_ulong,
    pub max_parameter_size: usize,
    pub min_data_type_align_size: u32,
    pub single_fp_config: cl_ulong,
    pub double_fp_config: cl_ulong,
    pub half_fp_config: cl_ulong,
    pub queue_properties: cl_ulong,
    pub printf_buffer_size: usize,
    pub preferred_work_group_size_multiple: usize,
    /// Preferred vector widths: char, short, int, long, float, double, half.
    pub preferred_widths: [u32; 7],
    /// Native vector widths, in the same order.
    pub native_widths: [u32; 7],
}

fn widths(w: vecl::VectorWidths) -> [u32; 7] {
    [w.char, w.short, w.int, w.long, w.float, w.double, w.half]
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// The device's properties, read on first use.
pub static CAPS: LazyLock<Caps> = LazyLock::new(|| {
    let platform = vecl::Platform::get();
    let device = vecl::Device::get();
    Caps {
        platform_vendor: platform.vendor(),
        platform_extensions: words(platform.extensions()),
        device_name: device.name(),
        device_vendor: device.vendor(),
        vendor_id: device.vendor_id(),
        device_version: device.version(),
        driver_version: device.driver_version(),
        opencl_c_version: device.opencl_c_version(),
        device_extensions: words(device.extensions()),
        compute_units: device.max_compute_units(),
        clock_mhz: device.max_clock_frequency(),
        global_mem_size: device.global_mem_size(),
        max_mem_alloc_size: device.max_mem_alloc_size(),
        cache_size: device.global_mem_cache_size(),
        cacheline_size: device.global_mem_cacheline_size(),
        max_constant_buffer_size: device.max_constant_buffer_size(),
        max_parameter_size: device.max_parameter_size() as usize,
        min_data_type_align_size: device.min_data_type_align_size(),
        single_fp_config: device.single_fp_config(),
        double_fp_config: device.double_fp_config(),
        half_fp_config: device.half_fp_config(),
        queue_properties: device.queue_properties(),
        printf_buffer_size: device.printf_buffer_size() as usize,
        preferred_work_group_size_multiple: device.preferred_work_group_size_multiple() as usize,
        preferred_widths: widths(device.preferred_vector_widths()),
        native_widths: widths(device.native_vector_widths()),
    }
});

/// `CL_MAKE_VERSION` of a `(major, minor, patch)` triple.
pub const fn version_of((major, minor, patch): (u32, u32, u32)) -> u32 {
    make_version(major, minor, patch)
}

/// The version of the specification of each extension vecl names
/// (`CL_DEVICE_EXTENSIONS_WITH_VERSION`): 1.0.0 but for
/// `cl_khr_integer_dot_product`, whose 2.0.0 added the acceleration
/// queries vecl answers.
pub fn extension_version(name: &str) -> (u32, u32, u32) {
    match name {
        "cl_khr_integer_dot_product" => (2, 0, 0),
        _ => (1, 0, 0),
    }
}

/// `CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR`: the input forms whose
/// `__opencl_c_integer_dot_product_input_*` features the front end defines.
pub fn integer_dot_product_capabilities() -> cl_ulong {
    OPENCL_C_FEATURES
        .iter()
        .map(|feature| match *feature {
            "__opencl_c_integer_dot_product_input_4x8bit" => {
                CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT
            }
            "__opencl_c_integer_dot_product_input_4x8bit_packed" => {
                CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED
            }
            _ => 0,
        })
        .fold(0, |caps, bit| caps | bit)
}

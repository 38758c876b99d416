//! The vecl platform and its one device, with everything `clinfo` shows.
//!
//! The numbers come from the runtime's limits (what validation enforces)
//! and from the host (cores, memory); the strings name vecl. The C API
//! answers `clGetPlatformInfo`/`clGetDeviceInfo` from these same values.

use vecl_runtime::device_limits as limits;
use vecl_runtime::Pool;

/// `CL_DEVICE_IMAGE_SUPPORT`: images, samplers and the image builtins of
/// OpenCL C. The C driver's image entry points answer as a device without
/// images does (`CL_INVALID_OPERATION`) while this is false.
pub const IMAGE_SUPPORT: bool = true;

/// Extensions that come with image support: 2-D images over buffers (with
/// the pitch and base alignments the device reports) and writes to 3-D
/// images (which `__opencl_c_3d_image_writes` implies). Listed in
/// [`Device::extensions`].
pub const IMAGE_EXTENSIONS: &[&str] = &["cl_khr_image2d_from_buffer", "cl_khr_3d_image_writes"];

/// The vecl platform (`cl_platform_id`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Platform;

impl Platform {
    /// The platform. There is only one.
    pub fn get() -> Platform {
        Platform
    }

    /// `CL_PLATFORM_NAME`.
    pub fn name(&self) -> &'static str {
        "vecl"
    }

    /// `CL_PLATFORM_VENDOR`.
    pub fn vendor(&self) -> &'static str {
        "The vecl project"
    }

    /// `CL_PLATFORM_VERSION`.
    pub fn version(&self) -> String {
        format!("OpenCL 3.0 vecl {}", env!("CARGO_PKG_VERSION"))
    }

    /// `CL_PLATFORM_PROFILE`.
    pub fn profile(&self) -> &'static str {
        "FULL_PROFILE"
    }

    /// `CL_PLATFORM_EXTENSIONS`.
    pub fn extensions(&self) -> &'static str {
        "cl_khr_icd"
    }

    /// `CL_PLATFORM_ICD_SUFFIX_KHR`.
    pub fn icd_suffix(&self) -> &'static str {
        "vecl"
    }

    /// The platform's devices: one CPU device.
    pub fn devices(&self) -> Vec<Device> {
        vec![Device]
    }
}

/// The vecl CPU device (`cl_device_id`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Device;

/// Preferred and native vector widths per element type (`char`, `short`,
/// `int`, `long`, `float`, `double`, `half`), in elements of a 128-bit vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorWidths {
    /// `char`.
    pub char: u32,
    /// `short`.
    pub short: u32,
    /// `int`.
    pub int: u32,
    /// `long`.
    pub long: u32,
    /// `float`.
    pub float: u32,
    /// `double`.
    pub double: u32,
    /// `half` (0: `cl_khr_fp16` is not supported).
    pub half: u32,
}

impl Device {
    /// The device.
    pub fn get() -> Device {
        Device
    }

    /// `CL_DEVICE_NAME`.
    pub fn name(&self) -> String {
        format!(
            "vecl CPU ({})",
            cpu_model().unwrap_or_else(|| std::env::consts::ARCH.to_string())
        )
    }

    /// `CL_DEVICE_VENDOR`.
    pub fn vendor(&self) -> &'static str {
        "The vecl project"
    }

    /// `CL_DEVICE_VENDOR_ID` (no PCI vendor: 0).
    pub fn vendor_id(&self) -> u32 {
        0
    }

    /// `CL_DEVICE_VERSION`.
    pub fn version(&self) -> &'static str {
        "OpenCL 3.0 vecl"
    }

    /// `CL_DRIVER_VERSION`: the crate's version, with the version of the
    /// program binary format as build metadata, so that caches of binaries
    /// keyed by the driver version (PyOpenCL's) never serve a binary of
    /// another format.
    pub fn driver_version(&self) -> &'static str {
        concat!(env!("CARGO_PKG_VERSION"), "+binary.4")
    }

    /// `CL_DEVICE_OPENCL_C_VERSION`.
    pub fn opencl_c_version(&self) -> &'static str {
        "OpenCL C 1.2 vecl"
    }

    /// `CL_DEVICE_PROFILE`.
    pub fn profile(&self) -> &'static str {
        "FULL_PROFILE"
    }

    /// `CL_DEVICE_EXTENSIONS`: those of the device, and those that come
    /// with image support ([`IMAGE_EXTENSIONS`]).
    pub fn extensions(&self) -> &'static str {
        "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics \
         cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics \
         cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics \
         cl_khr_int64_extended_atomics cl_khr_fp64 cl_khr_fp16 cl_khr_icd \
         cl_khr_image2d_from_buffer cl_khr_3d_image_writes cl_khr_il_program \
         cl_khr_subgroups cl_khr_subgroup_non_uniform_vote cl_khr_subgroup_ballot \
         cl_khr_subgroup_shuffle cl_khr_subgroup_shuffle_relative \
         cl_khr_subgroup_extended_types cl_khr_subgroup_non_uniform_arithmetic \
         cl_khr_subgroup_clustered_reduce cl_khr_subgroup_rotate \
         cl_khr_integer_dot_product cl_khr_extended_bit_ops \
         cl_khr_suggested_local_work_size cl_khr_expect_assume \
         cl_khr_spirv_no_integer_wrap_decoration cl_khr_spirv_linkonce_odr \
         cl_khr_spirv_queries"
    }

    /// `CL_DEVICE_TYPE`: `CL_DEVICE_TYPE_CPU`.
    pub fn device_type(&self) -> u64 {
        1 << 1
    }

    /// `CL_DEVICE_MAX_COMPUTE_UNITS`: the threads of the pool.
    pub fn max_compute_units(&self) -> u32 {
        crate::Config::global();
        u32::try_from(Pool::global().threads()).unwrap_or(u32::MAX)
    }

    /// `CL_DEVICE_MAX_CLOCK_FREQUENCY` in MHz (0 when unknown).
    pub fn max_clock_frequency(&self) -> u32 {
        cpu_mhz().unwrap_or(0)
    }

    /// `CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS`.
    pub fn max_work_item_dimensions(&self) -> u32 {
        3
    }

    /// `CL_DEVICE_MAX_WORK_ITEM_SIZES`.
    pub fn max_work_item_sizes(&self) -> [u64; 3] {
        limits::MAX_WORK_ITEM_SIZES
    }

    /// `CL_DEVICE_MAX_WORK_GROUP_SIZE`.
    pub fn max_work_group_size(&self) -> u64 {
        limits::MAX_WORK_GROUP_SIZE
    }

    /// `CL_DEVICE_PREFERRED_VECTOR_WIDTH_*`.
    pub fn preferred_vector_widths(&self) -> VectorWidths {
        VectorWidths {
            char: 16,
            short: 8,
            int: 4,
            long: 2,
            float: 4,
            double: 2,
            // Halves are computed in f32 lanes: four to a 128-bit register
            // like float, but stored eight to one.
            half: 8,
        }
    }

    /// `CL_DEVICE_NATIVE_VECTOR_WIDTH_*`.
    pub fn native_vector_widths(&self) -> VectorWidths {
        self.preferred_vector_widths()
    }

    /// `CL_DEVICE_ADDRESS_BITS`.
    pub fn address_bits(&self) -> u32 {
        64
    }

    /// `CL_DEVICE_GLOBAL_MEM_SIZE`.
    pub fn global_mem_size(&self) -> u64 {
        limits::global_mem_size()
    }

    /// `CL_DEVICE_MAX_MEM_ALLOC_SIZE`.
    pub fn max_mem_alloc_size(&self) -> u64 {
        limits::max_mem_alloc_size()
    }

    /// `CL_DEVICE_GLOBAL_MEM_CACHE_TYPE`: `CL_READ_WRITE_CACHE`.
    pub fn global_mem_cache_type(&self) -> u32 {
        2
    }

    /// `CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE`.
    pub fn global_mem_cacheline_size(&self) -> u32 {
        limits::CACHELINE_SIZE
    }

    /// `CL_DEVICE_GLOBAL_MEM_CACHE_SIZE` (last-level cache, when known).
    pub fn global_mem_cache_size(&self) -> u64 {
        cache_size().unwrap_or(0)
    }

    /// `CL_DEVICE_LOCAL_MEM_TYPE`: `CL_GLOBAL` (host memory).
    pub fn local_mem_type(&self) -> u32 {
        2
    }

    /// `CL_DEVICE_LOCAL_MEM_SIZE`.
    pub fn local_mem_size(&self) -> u64 {
        limits::LOCAL_MEM_SIZE
    }

    /// `CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE`.
    pub fn max_constant_buffer_size(&self) -> u64 {
        limits::MAX_CONSTANT_BUFFER_SIZE
    }

    /// `CL_DEVICE_MAX_CONSTANT_ARGS`.
    pub fn max_constant_args(&self) -> u32 {
        8
    }

    /// `CL_DEVICE_MAX_PARAMETER_SIZE`.
    pub fn max_parameter_size(&self) -> u64 {
        limits::MAX_PARAMETER_SIZE
    }

    /// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` in bits.
    pub fn mem_base_addr_align(&self) -> u32 {
        limits::MEM_BASE_ADDR_ALIGN_BITS
    }

    /// `CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE` in bytes (deprecated; the largest type).
    pub fn min_data_type_align_size(&self) -> u32 {
        128
    }

    /// `CL_DEVICE_SINGLE_FP_CONFIG`: denorms, inf/nan, round to nearest,
    /// fma, correctly rounded divide and sqrt.
    pub fn single_fp_config(&self) -> u64 {
        (1 << 0) | (1 << 1) | (1 << 2) | (1 << 5) | (1 << 7)
    }

    /// `CL_DEVICE_DOUBLE_FP_CONFIG`: denorms, inf/nan, all roundings, fma.
    pub fn double_fp_config(&self) -> u64 {
        (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5)
    }

    /// `CL_DEVICE_HALF_FP_CONFIG` (`cl_khr_fp16`, present when the front
    /// end's feature list has `__opencl_c_fp16`): denorms, inf/nan, round
    /// to nearest, and a correctly rounded fma; every operation is
    /// correctly rounded to nearest (see `vecl_ir::transform::half`).
    pub fn half_fp_config(&self) -> u64 {
        if vecl_clc::OPENCL_C_FEATURES.contains(&"__opencl_c_fp16") {
            (1 << 0) | (1 << 1) | (1 << 2) | (1 << 5)
        } else {
            0
        }
    }

    /// `CL_DEVICE_PROFILING_TIMER_RESOLUTION` in nanoseconds.
    pub fn profiling_timer_resolution(&self) -> u64 {
        1
    }

    /// `CL_DEVICE_ENDIAN_LITTLE`.
    pub fn endian_little(&self) -> bool {
        cfg!(target_endian = "little")
    }

    /// `CL_DEVICE_QUEUE_ON_HOST_PROPERTIES`: out-of-order and profiling.
    pub fn queue_properties(&self) -> u64 {
        0b11
    }

    /// `CL_DEVICE_PRINTF_BUFFER_SIZE`.
    pub fn printf_buffer_size(&self) -> u64 {
        1 << 20
    }

    /// `CL_DEVICE_IMAGE_SUPPORT`: images, samplers and the image builtins
    /// of OpenCL C (the runtime's image commands; the C driver offers them,
    /// the Rust API does not yet).
    pub fn image_support(&self) -> bool {
        IMAGE_SUPPORT
    }

    /// `CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE` (the usual SIMD width).
    pub fn preferred_work_group_size_multiple(&self) -> u64 {
        8
    }

    /// `CL_DEVICE_BUILT_IN_KERNELS`.
    pub fn built_in_kernels(&self) -> &'static str {
        ""
    }
}

/// The CPU's model name from `/proc/cpuinfo`.
fn cpu_model() -> Option<String> {
    cpuinfo_field("model name")
}

fn cpu_mhz() -> Option<u32> {
    cpuinfo_field("cpu MHz")?
        .parse::<f64>()
        .ok()
        .map(|mhz| mhz.round() as u32)
}

fn cpuinfo_field(key: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// The size of the last-level cache from sysfs.
fn cache_size() -> Option<u64> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut best = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let text = std::fs::read_to_string(entry.path().join("size")).ok();
        let bytes = text.and_then(|t| {
            let t = t.trim();
            let (num, scale) = match t.strip_suffix('K') {
                Some(n) => (n, 1024),
                None => match t.strip_suffix('M') {
                    Some(n) => (n, 1024 * 1024),
                    None => (t, 1),
                },
            };
            num.parse::<u64>().ok().map(|n| n * scale)
        });
        best = best.max(bytes);
    }
    best
}

#[cfg(test)]
mod image_facts {
    use super::*;

    #[test]
    fn image_extensions_are_listed_exactly_when_images_are_supported() {
        let listed: Vec<&str> = Device.extensions().split_whitespace().collect();
        for e in IMAGE_EXTENSIONS {
            assert_eq!(listed.contains(e), IMAGE_SUPPORT, "{e}");
        }
        assert_eq!(Device.image_support(), IMAGE_SUPPORT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_reports_opencl_3_with_c_1_2() {
        let d = Device::get();
        assert!(d.version().starts_with("OpenCL 3.0"));
        assert!(d.opencl_c_version().starts_with("OpenCL C 1.2"));
        assert_eq!(d.max_work_group_size(), 1024);
        assert!(d.max_compute_units() >= 1);
        assert!(d.max_work_item_sizes().iter().all(|&s| s >= 1));
        assert!(d.name().starts_with("vecl"));
        assert_eq!(Platform::get().devices(), vec![d]);
        assert!(Platform::get().version().starts_with("OpenCL 3.0 vecl"));
    }
}

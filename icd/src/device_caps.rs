//! The device's advertised properties, in one place.
//!
//! Values that describe the host (core count, memory, CPU name) are read
//! once from the system; the rest state what vecl's compiler and runtime
//! offer. `clGetDeviceInfo` and the platform queries read only from here.

use std::sync::LazyLock;

use opencl_sys::cl_ulong;

use crate::info::make_version;

/// The platform and device name.
pub const NAME: &str = "vecl";
/// The vendor string of platform and device.
pub const VENDOR: &str = "vecl";
/// `CL_DEVICE_VENDOR_ID`: "vecl" in ASCII, as no PCI vendor applies.
pub const VENDOR_ID: u32 = 0x6c63_6576;
/// The OpenCL version implemented.
pub const CL_VERSION: (u32, u32) = (3, 0);
/// The driver version.
pub const DRIVER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// `cl_khr_icd`'s suffix for extension functions of this vendor.
pub const ICD_SUFFIX: &str = "vecl";

/// Platform extensions, with their versions.
pub const PLATFORM_EXTENSIONS: &[(&str, (u32, u32, u32))] = &[("cl_khr_icd", (1, 0, 0))];

/// Device extensions, with their versions.
pub const DEVICE_EXTENSIONS: &[(&str, (u32, u32, u32))] = &[
    ("cl_khr_byte_addressable_store", (1, 0, 0)),
    ("cl_khr_global_int32_base_atomics", (1, 0, 0)),
    ("cl_khr_global_int32_extended_atomics", (1, 0, 0)),
    ("cl_khr_local_int32_base_atomics", (1, 0, 0)),
    ("cl_khr_local_int32_extended_atomics", (1, 0, 0)),
    ("cl_khr_fp64", (1, 0, 0)),
];

/// OpenCL C versions the front end accepts (`-cl-std=`).
pub const OPENCL_C_VERSIONS: &[(u32, u32)] = &[(1, 0), (1, 1), (1, 2), (3, 0)];

/// OpenCL C 3.0 optional features the front end supports.
pub const OPENCL_C_FEATURES: &[&str] = &["__opencl_c_int64", "__opencl_c_fp64"];

/// Largest work-group (product of the local sizes).
pub const MAX_WORK_GROUP_SIZE: usize = 1024;
/// Largest local size per dimension.
pub const MAX_WORK_ITEM_SIZES: [usize; 3] = [1024, 1024, 1024];
/// Work-items per SIMD chunk: the natural work-group size multiple.
pub const PREFERRED_WORK_GROUP_SIZE_MULTIPLE: usize = 8;
/// `__local` memory per work-group.
pub const LOCAL_MEM_SIZE: cl_ulong = 64 * 1024;
/// `__constant` memory per buffer.
pub const MAX_CONSTANT_BUFFER_SIZE: cl_ulong = 64 * 1024;
/// Most `__constant` arguments of a kernel.
pub const MAX_CONSTANT_ARGS: u32 = 8;
/// Most bytes of kernel arguments.
pub const MAX_PARAMETER_SIZE: usize = 1024;
/// Buffer alignment, in bits (`CL_DEVICE_MEM_BASE_ADDR_ALIGN`).
pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = 1024;
/// Bytes of `printf` output per kernel launch.
pub const PRINTF_BUFFER_SIZE: usize = 1024 * 1024;
/// Cache line size of the host.
pub const CACHELINE_SIZE: u32 = 64;
/// Preferred (= native) vector widths: char, short, int, long, float, double, half.
pub const VECTOR_WIDTHS: [u32; 7] = [16, 8, 4, 2, 4, 2, 0];

/// Properties read from the host system.
pub struct HostCaps {
    /// Worker threads: one per core.
    pub compute_units: u32,
    /// Host memory, in bytes.
    pub global_mem_size: cl_ulong,
    /// The CPU's model name.
    pub cpu_name: String,
    /// The CPU's clock, in MHz (0 when unknown).
    pub clock_mhz: u32,
    /// The last-level cache size, in bytes.
    pub cache_size: cl_ulong,
}

impl HostCaps {
    /// `CL_DEVICE_MAX_MEM_ALLOC_SIZE`: a quarter of host memory, at least
    /// the 128 MiB OpenCL's full profile requires.
    pub fn max_mem_alloc_size(&self) -> cl_ulong {
        (self.global_mem_size / 4).max(128 * 1024 * 1024)
    }
}

/// The host's properties, read on first use.
pub static HOST: LazyLock<HostCaps> = LazyLock::new(read_host_caps);

fn read_host_caps() -> HostCaps {
    let compute_units = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_once(':'))
            .map(|(_, value)| value.trim().to_string())
    };
    let cpu_name = field("model name").unwrap_or_else(|| "CPU".to_string());
    let clock_mhz = field("cpu MHz")
        .and_then(|mhz| mhz.parse::<f64>().ok())
        .map_or(0, |mhz| mhz as u32);
    let cache_size = field("cache size")
        .and_then(|size| size.trim_end_matches(" KB").parse::<cl_ulong>().ok())
        .map_or(1024 * 1024, |kib| kib * 1024);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let global_mem_size = meminfo
        .lines()
        .find(|line| line.starts_with("MemTotal:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<cl_ulong>().ok())
        .map_or(1024 * 1024 * 1024, |kib| kib * 1024);
    HostCaps {
        compute_units,
        global_mem_size,
        cpu_name,
        clock_mhz,
        cache_size,
    }
}

/// `CL_MAKE_VERSION` of a `(major, minor, patch)` triple.
pub const fn version_of((major, minor, patch): (u32, u32, u32)) -> u32 {
    make_version(major, minor, patch)
}

/// The space-separated extension string of a list.
pub fn extension_string(list: &[(&str, (u32, u32, u32))]) -> String {
    list.iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(" ")
}

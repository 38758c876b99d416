//! `vecl info`: the platform's and device's properties, like `clinfo`.

use vecl::{Device, Platform};

fn row(out: &mut String, key: &str, value: impl std::fmt::Display) {
    out.push_str(&format!("  {key:<44} {value}\n"));
}

/// The properties as text.
pub fn describe() -> String {
    let p = Platform::get();
    let d = Device::get();
    let mut out = String::from("Platform\n");
    row(&mut out, "Name", p.name());
    row(&mut out, "Vendor", p.vendor());
    row(&mut out, "Version", p.version());
    row(&mut out, "Profile", p.profile());
    row(&mut out, "Extensions", p.extensions());
    row(&mut out, "ICD suffix", p.icd_suffix());
    out.push_str("Device\n");
    row(&mut out, "Name", d.name());
    row(&mut out, "Vendor", d.vendor());
    row(&mut out, "Device version", d.version());
    row(&mut out, "Driver version", d.driver_version());
    row(&mut out, "OpenCL C version", d.opencl_c_version());
    row(&mut out, "Type", "CPU");
    row(&mut out, "Profile", d.profile());
    row(&mut out, "Max compute units", d.max_compute_units());
    row(
        &mut out,
        "Max clock frequency (MHz)",
        d.max_clock_frequency(),
    );
    row(
        &mut out,
        "Max work item dimensions",
        d.max_work_item_dimensions(),
    );
    let s = d.max_work_item_sizes();
    row(
        &mut out,
        "Max work item sizes",
        format!("{}x{}x{}", s[0], s[1], s[2]),
    );
    row(&mut out, "Max work group size", d.max_work_group_size());
    row(
        &mut out,
        "Preferred work group size multiple",
        d.preferred_work_group_size_multiple(),
    );
    let (pv, nv) = (d.preferred_vector_widths(), d.native_vector_widths());
    for (name, a, b) in [
        ("char", pv.char, nv.char),
        ("short", pv.short, nv.short),
        ("int", pv.int, nv.int),
        ("long", pv.long, nv.long),
        ("float", pv.float, nv.float),
        ("double", pv.double, nv.double),
        ("half", pv.half, nv.half),
    ] {
        row(
            &mut out,
            &format!("Preferred / native vector width ({name})"),
            format!("{a} / {b}"),
        );
    }
    row(&mut out, "Address bits", d.address_bits());
    row(&mut out, "Little endian", d.endian_little());
    row(&mut out, "Global memory size", bytes(d.global_mem_size()));
    row(
        &mut out,
        "Max memory allocation",
        bytes(d.max_mem_alloc_size()),
    );
    row(
        &mut out,
        "Global memory cache line",
        format!("{} bytes", d.global_mem_cacheline_size()),
    );
    row(
        &mut out,
        "Global memory cache size",
        bytes(d.global_mem_cache_size()),
    );
    row(&mut out, "Local memory type", "global (host memory)");
    row(&mut out, "Local memory size", bytes(d.local_mem_size()));
    row(
        &mut out,
        "Max constant buffer size",
        bytes(d.max_constant_buffer_size()),
    );
    row(&mut out, "Max constant arguments", d.max_constant_args());
    row(
        &mut out,
        "Max parameter size",
        bytes(d.max_parameter_size()),
    );
    row(
        &mut out,
        "Memory base address alignment (bits)",
        d.mem_base_addr_align(),
    );
    row(
        &mut out,
        "Profiling timer resolution (ns)",
        d.profiling_timer_resolution(),
    );
    row(&mut out, "Queue properties", "out-of-order, profiling");
    row(&mut out, "Image support", d.image_support());
    row(
        &mut out,
        "printf buffer size",
        bytes(d.printf_buffer_size()),
    );
    row(
        &mut out,
        "Extensions",
        d.extensions()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    );
    out
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{n} ({:.2} GiB)", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{n} ({:.1} MiB)", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{n} ({} KiB)", n >> 10),
        n => n.to_string(),
    }
}

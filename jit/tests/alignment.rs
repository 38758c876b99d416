//! Addresses of `__local`, private and program-scope `__constant` variables
//! are aligned to their type's size, as the conformance suite's
//! `kernel_memory_alignment_*` tests check: `T`, `T2`, `T3`, `T4`, `T8` and
//! `T16` arrays at multiples of 1, 2, 4, 4, 8 and 16 times `sizeof(T)` (a
//! `long16` or `double16` at 128 bytes), for every work-item of several
//! chunks, with and without a barrier (which moves private memory into the
//! chunk's context area).

use vecl_jit::abi::{ArgKind, Launch};
use vecl_jit::{compile_kernel, JitOptions};

/// Memory as the runtime hands it to kernels: 128-byte aligned.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Line([u8; 128]);

fn lines(bytes: usize) -> Vec<Line> {
    vec![Line([0; 128]); bytes.div_ceil(128).max(1)]
}

const TYPES: [(&str, u64); 10] = [
    ("char", 1),
    ("uchar", 1),
    ("short", 2),
    ("ushort", 2),
    ("int", 4),
    ("uint", 4),
    ("long", 8),
    ("ulong", 8),
    ("float", 4),
    ("double", 8),
];

/// The kernel's six addresses for each of `items` work-items (one group),
/// at SIMD width `w`.
fn addresses(src: &str, w: u32, items: u64) -> Vec<u64> {
    let m = match vecl_clc::build(src, "") {
        Ok(b) => b.module,
        Err(e) => panic!("front end: {e}\n{src}"),
    };
    let opts = JitOptions {
        simd_width: Some(w),
        ..JitOptions::default()
    };
    let k = compile_kernel(&m, "test", &opts).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let mut results = vec![0u8; items as usize * 6 * 8];
    let mut block = vec![0u8; k.args_size().max(8)];
    let slot = &k.args()[0];
    assert_eq!(slot.kind, ArgKind::GlobalPointer);
    let at = slot.offset as usize;
    block[at..at + 8].copy_from_slice(&(results.as_mut_ptr() as u64).to_le_bytes());
    let mut launch = Launch::new(1, [0; 3], [items, 1, 1], [items, 1, 1]);
    launch.local_mem_size = k.static_local_size() as u64;
    // The arena with the padding the ABI promises on both sides.
    let pad = vecl_jit::abi::LOCAL_PAD;
    let mut local = lines(k.static_local_size() + 2 * pad);
    // SAFETY: the block holds the one buffer argument (as below).
    let mut context = lines(unsafe { k.launch_context_size(block.as_ptr(), &launch) });
    // SAFETY: the block holds the one buffer argument, `results`, which has
    // room for six addresses per work-item; local and context memory are
    // as large as the kernel asks (local with its padding) and 128-byte
    // aligned.
    let status = unsafe {
        k.run_groups(
            block.as_ptr(),
            &launch,
            0,
            1,
            (local.as_mut_ptr() as *mut u8).add(pad),
            context.as_mut_ptr() as *mut u8,
        )
    };
    assert_eq!(status, 0, "{src}");
    results
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

fn pragma(t: &str) -> &'static str {
    if t == "double" {
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"
    } else {
        ""
    }
}

/// The conformance suite's kernel with arrays declared in `space` inside
/// the kernel, each work-item writing its own six addresses.
fn declared_in_kernel(space: &str, t: &str, barrier: bool) -> String {
    let mut s = format!(
        "{}\nkernel void test(global ulong *results) {{\n    size_t i = get_global_id(0) * 6;\n",
        pragma(t)
    );
    for n in ["", "2", "3", "4", "8", "16"] {
        s += &format!("    {space} {t}{n} mem{n}[3];\n");
    }
    if barrier {
        s += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
    }
    for (k, n) in ["0", "2", "3", "4", "8", "16"].iter().enumerate() {
        let name = if *n == "0" { "mem" } else { &format!("mem{n}") };
        s += &format!("    results[i + {k}] = (ulong)&{name}[0];\n");
    }
    s + "}\n"
}

fn program_scope_constants(t: &str) -> String {
    let mut s = format!("{}\n", pragma(t));
    for n in ["", "2", "3", "4", "8", "16"] {
        s += &format!("constant {t}{n} mem{n}[3] = {{({t}{n})(0)}};\n");
    }
    s += "kernel void test(global ulong *results) {\n    size_t i = get_global_id(0) * 6;\n";
    for (k, n) in ["", "2", "3", "4", "8", "16"].iter().enumerate() {
        s += &format!("    results[i + {k}] = (ulong)&mem{n};\n");
    }
    s + "}\n"
}

/// Checks every work-item's six addresses against the alignment of
/// `T`, `T2`, `T3`, `T4`, `T8`, `T16`.
fn check(src: &str, size: u64) {
    let want = [size, 2 * size, 4 * size, 4 * size, 8 * size, 16 * size];
    for w in [4, 8] {
        let items = 2 * u64::from(w) + 1;
        let addrs = addresses(src, w, items);
        for (i, a) in addrs.iter().enumerate() {
            let align = want[i % 6];
            assert_eq!(
                a % align,
                0,
                "W={w} item {} vector {}: {a:#x} is not {align}-byte aligned\n{src}",
                i / 6,
                [1, 2, 3, 4, 8, 16][i % 6]
            );
        }
    }
}

#[test]
fn local_variables_are_aligned_to_their_type() {
    for (t, size) in TYPES {
        check(&declared_in_kernel("local", t, false), size);
    }
}

#[test]
fn private_variables_are_aligned_to_their_type() {
    for (t, size) in TYPES {
        check(&declared_in_kernel("private", t, false), size);
        check(&declared_in_kernel("private", t, true), size);
    }
}

#[test]
fn program_scope_constants_are_aligned_to_their_type() {
    for (t, size) in TYPES {
        check(&program_scope_constants(t), size);
    }
}

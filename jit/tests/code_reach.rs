//! A kernel builds and runs whatever the address space looks like: with
//! gigabytes of mappings placed between one build and the next, each
//! kernel's calls to its own routines and references to its own data must
//! still reach (they are 32-bit PC-relative). 200 kernels that call
//! per-kernel math routines and read program-scope `__constant` data are
//! built one after another with 1 GiB reserved between builds.

use vecl_jit::abi::Launch;
use vecl_jit::{compile_kernel, JitOptions};
use vecl_testkit::hand_built::{run, Arg};

/// 1 GiB of address space, reserved and never touched.
struct Reservation(*mut libc::c_void);

impl Reservation {
    fn new() -> Reservation {
        // SAFETY: an anonymous, inaccessible, unreserved mapping: no file,
        // no memory committed.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                1 << 30,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "reserving address space");
        Reservation(p)
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.0, 1 << 30) };
    }
}

#[test]
fn two_hundred_kernels_build_and_run_with_gigabytes_mapped_between() {
    let mut reserved = Vec::new();
    let mut kernels = Vec::new();
    for i in 0..200u32 {
        reserved.push(Reservation::new());
        let src = format!(
            "__constant float scale[4] = {{ 1.0f, 2.0f, 4.0f, {i}.0f }};
             __kernel void k(__global float *x) {{
                 size_t g = get_global_id(0);
                 x[g] = exp(log(x[g] + 1.0f)) * scale[g & 3] + sin(0.0f);
             }}"
        );
        let module = vecl_clc::build(&src, "")
            .unwrap_or_else(|e| panic!("{e}"))
            .module;
        let opts = JitOptions::default();
        let kernel =
            compile_kernel(&module, "k", &opts).unwrap_or_else(|e| panic!("kernel {i}: {e}"));
        kernels.push((i, kernel));
    }
    // Every kernel still runs (its code, routines and data where they were).
    for (i, kernel) in &kernels {
        let mut x: Vec<u8> = (0..16).flat_map(|g| (g as f32).to_le_bytes()).collect();
        x.extend([0u8; 64]);
        let mut launch = Launch::new(1, [0; 3], [16, 1, 1], [16, 1, 1]);
        run(kernel, &mut [Arg::Buf(&mut x)], &mut launch);
        for g in 0..16usize {
            let got = f32::from_le_bytes(x[4 * g..4 * g + 4].try_into().unwrap());
            let scale = [1.0, 2.0, 4.0, *i as f32][g & 3];
            let want = (g as f32 + 1.0) * scale;
            assert!(
                (got - want).abs() <= 1e-5 * want.abs().max(1.0),
                "kernel {i}, item {g}: {got} (expected {want})"
            );
        }
    }
}

#[test]
fn private_memory_past_what_a_chunk_can_have_is_an_error() {
    // 512 MiB per work-item: the chunk's copies together pass 1 GiB.
    let src = "kernel void k(global int *o) { int big[1 << 27]; big[get_global_id(0)] = 1; o[0] = big[0]; }";
    let module = vecl_clc::build(src, "")
        .unwrap_or_else(|e| panic!("{e}"))
        .module;
    let err = match compile_kernel(&module, "k", &JitOptions::default()) {
        Ok(_) => panic!("a kernel with 8 GiB of private memory per chunk was built"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("bytes of private memory"), "{err}");
}

//! Software prefetch of streaming loads (`lower/prefetch.rs`): which loads
//! prefetch, and launches whose prefetches reach past the end of their
//! buffers into inaccessible pages — harmless only if every placeholder
//! load became a `prefetcht0` — with results checked against the host.

use vecl_jit::abi::{ArgKind, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions};
use vecl_testkit::groups::run_all_groups;
use vecl_testkit::guarded::{Mapping, PAGE};
use vecl_testkit::*;
use vecl_testkit::{build, explain_line};

fn loads_line(src: &str, w: u32) -> String {
    explain_line(src, w, "loads:")
}

#[test]
fn the_first_streaming_load_of_each_buffer_prefetches() {
    // Two buffers read once each.
    let l = loads_line(
        "kernel void k(global const float* x, global float* y, float a) {
            size_t i = get_global_id(0); y[i] = a * x[i] + y[i]; }",
        16,
    );
    assert!(l.contains("2 prefetching"), "{l}");
    // Taps of one image: only the first load of `in` prefetches.
    let l = loads_line(
        "kernel void k(global const float* in, global float* o, int w) {
            int x = get_global_id(0);
            o[x] = in[x] + 2.0f * in[x + 1] + in[x + w] + in[x + 2 * w]; }",
        16,
    );
    assert!(l.contains("1 prefetching"), "{l}");
    // Loads in a loop (one not unrolled), and __local and __constant
    // ones, do not.
    let l = loads_line(
        "kernel void k(global const float* in, global float* o, constant float* c,
                       local float* t, int n) {
            size_t i = get_global_id(0);
            float s = 0.0f;
            for (int j = 0; s < 100.0f && j < n; j++) s += in[i + j * 64];
            t[get_local_id(0)] = s;
            o[i] = t[get_local_id(0)] * c[0]; }",
        16,
    );
    assert!(l.contains("0 prefetching"), "{l}");
    // A kernel evaluating as many transcendental functions as it would
    // prefetch loads does not; one with fewer does.
    let l = loads_line(
        "kernel void k(global const float* x, global const float* y, global float* o) {
            size_t i = get_global_id(0); o[i] = exp(x[i]) * log(y[i]); }",
        16,
    );
    assert!(l.contains("0 prefetching"), "{l}");
    let l = loads_line(
        "kernel void k(global const float* x, global const float* y, global float* o) {
            size_t i = get_global_id(0); o[i] = exp(x[i]) * y[i]; }",
        16,
    );
    assert!(l.contains("2 prefetching"), "{l}");
    // A tiled matrix product: the tile of `b` moves down 16 rows of a
    // run-time length per step of `t` and prefetches there; the tile of `a`
    // moves 16 floats along a row, which the fixed distance serves.
    let l = loads_line(
        "kernel void k(global const float* a, global const float* b, global float* c, int n) {
            local float ta[16][16];
            local float tb[16][16];
            int col = get_global_id(0), row = get_global_id(1);
            int lx = get_local_id(0), ly = get_local_id(1);
            float acc = 0.0f;
            for (int t = 0; t < n; t += 16) {
                ta[ly][lx] = a[row * n + t + lx];
                tb[ly][lx] = b[(t + ly) * n + col];
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int k = 0; k < 16; k++) acc += ta[ly][k] * tb[k][lx];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            c[row * n + col] = acc; }",
        16,
    );
    assert!(
        l.contains("2 prefetching ahead, 1 of them by a loop's step"),
        "{l}"
    );
    // A constant stride of at least the fixed distance is a step too.
    let l = loads_line(
        "kernel void k(global const float* in, global float* o, local float* t) {
            size_t l = get_local_id(0);
            float s = 0.0f;
            for (int r = 0; r < 8; r += 2) {
                t[l] = in[r * 1024 + get_global_id(0)];
                barrier(CLK_LOCAL_MEM_FENCE);
                s += t[(l + 1) % get_local_size(0)];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            o[get_global_id(0)] = s; }",
        16,
    );
    assert!(
        l.contains("1 prefetching ahead, 1 of them by a loop's step"),
        "{l}"
    );
    // A load under an `if` outside loops, and one in the first region of
    // a kernel with barriers.
    let l = loads_line(
        "kernel void k(global const float* in, global float* o, local float* t, int n) {
            size_t i = get_global_id(0);
            size_t l = get_local_id(0);
            t[l] = i < n ? in[i] : 0.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l == 0) o[get_group_id(0)] = t[0] + t[1]; }",
        16,
    );
    assert!(l.contains("1 prefetching"), "{l}");
}

/// `bytes` of memory ending where three inaccessible pages begin, filled
/// with `fill`.
struct EndGuarded {
    _mapping: Mapping,
    data: *mut u8,
}

impl EndGuarded {
    fn new(fill: &[u8]) -> EndGuarded {
        let data_pages = fill.len().div_ceil(PAGE);
        let mapping = Mapping::new((data_pages + 3) * PAGE);
        mapping.guard(data_pages * PAGE, 3);
        // SAFETY: the data ends where the guard pages begin, inside the
        // mapping.
        let data = unsafe { mapping.start.add(data_pages * PAGE - fill.len()) };
        // SAFETY: `fill.len()` bytes at `data` are in the mapping.
        unsafe { std::ptr::copy_nonoverlapping(fill.as_ptr(), data, fill.len()) };
        EndGuarded {
            _mapping: mapping,
            data,
        }
    }

    fn bytes(&self, n: usize) -> Vec<u8> {
        // SAFETY: `n` bytes were filled in `new`.
        unsafe { std::slice::from_raw_parts(self.data, n).to_vec() }
    }
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    (0..n as u32)
        .map(|i| ((i.wrapping_mul(2654435761) ^ seed) % 1000) as f32 * 0.25 - 100.0)
        .collect()
}

fn bytes_of(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `k` (parameters: two input buffers, one output, one float) over
/// `n` items in groups of `local`, every buffer ending at a guard.
fn run_guarded(k: &CompiledKernel, x: &[f32], y: &[f32], a: f32, local: u64) -> Vec<f32> {
    let n = x.len();
    let bufs = [
        EndGuarded::new(&bytes_of(x)),
        EndGuarded::new(&bytes_of(y)),
        EndGuarded::new(&vec![0u8; 4 * n]),
    ];
    let mut block = vec![0u8; k.args_size().max(8)];
    let mut next = bufs.iter();
    for slot in k.args() {
        let at = slot.offset as usize;
        match slot.kind {
            ArgKind::GlobalPointer => {
                let p = next.next().expect("three buffers").data as u64;
                block[at..at + 8].copy_from_slice(&p.to_le_bytes());
            }
            ArgKind::Value => block[at..at + 4].copy_from_slice(&a.to_le_bytes()),
            kind => panic!("unexpected argument {kind:?}"),
        }
    }
    let mut launch = Launch::new(1, [0; 3], [n as u64, 1, 1], [local, 1, 1]);
    // SAFETY: the block holds the three buffers of `n` floats and the
    // scalar the kernel takes.
    let status = unsafe { run_all_groups(k, &block, &mut launch, k.static_local_size() as u64) };
    assert_eq!(status, 0);
    bufs[2]
        .bytes(4 * n)
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn prefetches_past_the_end_of_a_buffer_do_not_fault() {
    let src = "kernel void k(global const float* x, global const float* y, global float* o,
                             float a) {
        size_t i = get_global_id(0);
        o[i] = a * x[i] + y[i];
    }";
    let m = build(src, "");
    let mut launched = 0;
    for w in [8, 16, 32] {
        let opts = JitOptions {
            simd_width: Some(w),
            tiers: vecl_testkit::test_tiers(w),
            prefetch: vecl_jit::Prefetch::On,
            ..JitOptions::default()
        };
        let k = compile_kernel(&m, "k", &opts).expect("compiles");
        assert!(
            k.explain().contains("2 prefetching"),
            "W={w}: {}",
            k.explain()
        );
        // Sizes that end on a chunk, mid-chunk and mid-line; local sizes
        // of whole and partial chunks.
        for (n, local) in [(4096, 256), (2048, 64), (1000, 40), (77, 7), (96, 32)] {
            let x = floats(n, 1);
            let y = floats(n, 2);
            let got = run_guarded(&k, &x, &y, 1.5, local);
            for i in 0..n {
                let want = 1.5f32.mul_add(x[i], y[i]);
                let plain = 1.5f32 * x[i] + y[i];
                assert!(
                    got[i] == want || got[i] == plain,
                    "W={w} n={n}: item {i}: {} instead of {want}",
                    got[i]
                );
            }
            launched += 1;
        }
    }
    assert_eq!(launched, 15);
    // The launches above compare with the interpreter too.
    let n = differential(src, "k", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize + 8;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(n, 2),
            Spec::Floats(n, 0),
            Spec::Float(1.5),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

/// An argument block for `k` (buffers, then a float) with `pointers`.
fn block_of(k: &CompiledKernel, pointers: &[u64], a: f32) -> Vec<u8> {
    let mut block = vec![0u8; k.args_size().max(8)];
    let mut next = pointers.iter();
    for slot in k.args() {
        let at = slot.offset as usize;
        match slot.kind {
            ArgKind::GlobalPointer => {
                let p = *next.next().expect("a pointer per buffer");
                block[at..at + 8].copy_from_slice(&p.to_le_bytes());
            }
            ArgKind::Value => block[at..at + 4].copy_from_slice(&a.to_le_bytes()),
            kind => panic!("unexpected argument {kind:?}"),
        }
    }
    block
}

#[test]
fn chains_of_launches_too_small_to_prefetch_run_the_wide_code_without_prefetches() {
    use vecl_jit::wide::access::PREFETCH_MIN_ITEMS;
    let src = "kernel void k(global const float* x, global const float* y, global float* o,
                             float a) {
        int i = get_global_id(0);
        o[i] = a * x[i] + y[i];
    }";
    let m = build(src, "");
    let compiled = |prefetch| {
        let opts = JitOptions {
            simd_width: Some(16),
            tiers: vecl_testkit::test_tiers(16),
            prefetch,
            ..JitOptions::default()
        };
        compile_kernel(&m, "k", &opts).expect("compiles")
    };
    let k = compiled(vecl_jit::Prefetch::On);
    if !vecl_jit::wide::select::cpu_supported() {
        return;
    }
    assert!(k.has_wide_code(), "{}", k.explain());
    assert!(
        k.explain().contains("2 loads prefetched"),
        "{}",
        k.explain()
    );
    let without = |k: &CompiledKernel, global: [u64; 3], local: [u64; 3]| {
        let block = block_of(k, &[0, 0, 0], 1.5);
        let launch = Launch::new(3, [0; 3], global, local);
        // SAFETY: the block is laid out for `k`; preparing reads no buffer.
        unsafe { k.prepare(block.as_ptr(), &launch) }.without_prefetches()
    };
    let big = PREFETCH_MIN_ITEMS;
    // The copy is made at the UNPREFETCHED_AFTER-th small launch: the
    // ones before run the prefetching code, as do large ones, which do
    // not count.
    for _ in 1..vecl_jit::UNPREFETCHED_AFTER {
        assert!(!without(&k, [4096, 1, 1], [256, 1, 1]));
        assert!(!without(&k, [big, 1, 1], [256, 1, 1]));
    }
    // Under the bound, in one dimension or three: the copy.
    assert!(without(&k, [big - 16, 1, 1], [256, 1, 1]));
    assert!(without(&k, [256, 256, 1], [256, 1, 1]));
    assert!(without(&k, [64, 64, 32], [64, 1, 1]));
    // From the bound on: the prefetching code.
    assert!(!without(&k, [big, 1, 1], [256, 1, 1]));
    assert!(!without(&k, [512, 512, 1], [256, 1, 1]));
    assert!(!without(&k, [64, 64, 64], [64, 1, 1]));
    // Ids past the wide code's reach run Cranelift's code, prefetching.
    assert!(!without(&k, [1 << 32, 1, 1], [256, 1, 1]));
    // A kernel compiled without prefetches has no copy.
    let plain = compiled(vecl_jit::Prefetch::Off);
    assert!(plain.has_wide_code(), "{}", plain.explain());
    assert!(!without(&plain, [4096, 1, 1], [256, 1, 1]));
    // Both codes compute the same, at the buffers' ends too.
    for n in [4096usize, 1000, big as usize - 16, big as usize] {
        let x = floats(n, 3);
        let y = floats(n, 4);
        let local = if n % 256 == 0 { 256 } else { 8 };
        let got = run_guarded(&k, &x, &y, 1.5, local);
        for i in 0..n {
            let want = 1.5f32.mul_add(x[i], y[i]);
            let plain = 1.5f32 * x[i] + y[i];
            assert!(
                got[i] == want || got[i] == plain,
                "n={n}: item {i}: {} instead of {want}",
                got[i]
            );
        }
    }
}

#[test]
fn kernels_with_local_memory_keep_one_wide_code_whatever_the_launch() {
    // A barrier kernel's regions are not emitted a second time: a small
    // launch runs the one wide code.
    let src = "kernel void tile(global const float* a, global const float* b, global float* o) {
        local float t[256];
        size_t l = get_local_id(0);
        t[l] = a[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        o[get_global_id(0)] = t[255 - l] + b[get_global_id(0)];
    }";
    let m = build(src, "");
    let opts = JitOptions {
        simd_width: Some(16),
        tiers: vecl_testkit::test_tiers(16),
        prefetch: vecl_jit::Prefetch::On,
        ..JitOptions::default()
    };
    let k = compile_kernel(&m, "tile", &opts).expect("compiles");
    if !vecl_jit::wide::select::cpu_supported() {
        return;
    }
    assert!(k.has_wide_code(), "{}", k.explain());
    assert!(
        k.explain().contains("regions run chunk by chunk"),
        "{}",
        k.explain()
    );
    let block = block_of(&k, &[0, 0, 0], 0.0);
    let launch = Launch::new(1, [0; 3], [4096, 1, 1], [256, 1, 1]);
    // SAFETY: the block is laid out for `k` (null buffers); preparing
    // an unchecked kernel reads no buffer.
    let prepared = unsafe { k.prepare(block.as_ptr(), &launch) };
    assert!(!prepared.without_prefetches());
}

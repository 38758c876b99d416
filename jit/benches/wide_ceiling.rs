//! The ceiling past 128 bits: what this CPU's vector units give at 128,
//! 256 and 512 bits, and how far from it vecl's code for mandelbrot and
//! nbody is.
//!
//! `cargo bench -p vecl-jit --bench wide_ceiling` (x86-64 with AVX-512F;
//! `-- quick` for a short run). Four parts, each timed by the thread's CPU
//! time, every variant once per round, the median over the rounds printed
//! (the machine may be shared, so ratios from one run are what count):
//!
//! 1. the clock, from a chain of dependent integer adds (one per cycle);
//! 2. the FMA peak per core at each width: twelve independent
//!    `vfmadd231ps` chains, enough to cover the latency of two FMA pipes;
//! 3. mandelbrot (1024², 256 iterations) written by hand with
//!    `core::arch` intrinsics: 16 lanes in four xmm registers (what a
//!    128-bit code generator could reach with no spills), in two ymm, in
//!    one zmm with a k-mask for the lanes still iterating, and two zmm
//!    chunks interleaved (32 lanes); against vecl's code for
//!    `benches/mandelbrot.cl` on the same launch;
//! 4. nbody's force loop (16384 bodies) by hand: each lane a body, the
//!    other body's coordinates broadcast, `rsqrt` as `1 / sqrt` (as vecl
//!    computes it) or as `vrsqrt14ps` and one Newton step; against vecl's
//!    code for `benches/nbody.cl` (local size 256).
//!
//! Both also run the chunk loops of the AVX-512 prototype
//! (`vecl_jit::wide`: machine IR, linear-scan allocation, `iced-x86`), one
//! chunk and two interleaved, and the compile time of those loops is
//! compared with vecl's whole compilation of each kernel.
//!
//! 5. matmul (512², 16 × 16 tiles) by hand, keeping the kernel's order of
//!    additions: one zmm accumulator per row of a group (a chunk), the
//!    k loop run for 1, 4 or all 16 rows of the group at once (chunks in
//!    flight), against vecl's code for `benches/matmul.cl`.
//!
//! The hand-written kernels are checked against vecl's results (every
//! iteration count of mandelbrot within 1%, every nbody acceleration to a
//! relative 1e-3 of its magnitude) so that a fast wrong loop cannot pass.

use std::arch::x86_64::*;
use std::hint::black_box;
use vecl_jit::abi::{ArgKind, Launch};
use vecl_jit::wide::chunks::{
    compile_mandelbrot, compile_nbody, nbody_accelerations, run_mandelbrot,
};
use vecl_jit::wide::Allocator;
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::groups;

/// The prototype's variants: chunks per loop and allocator, with names.
const WIDE: [(usize, Allocator, &str); 4] = [
    (1, Allocator::LinearScan, "wide, 1 chunk, linear scan"),
    (2, Allocator::LinearScan, "wide, 2 chunks, linear scan"),
    (1, Allocator::Regalloc2, "wide, 1 chunk, regalloc2"),
    (2, Allocator::Regalloc2, "wide, 2 chunks, regalloc2"),
];

/// Seconds of CPU time this thread has used.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t0 = thread_cpu();
    let r = f();
    (thread_cpu() - t0, r)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

// ---------------------------------------------------------------- clock

/// Cycles per second: `n` dependent `add`s take `n` cycles.
fn clock_hz() -> f64 {
    let n: u64 = 200_000_000;
    let (t, _) = timed(|| {
        let mut x: u64 = 0;
        // SAFETY: plain register arithmetic.
        unsafe {
            std::arch::asm!(
                "2:",
                "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
                "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
                "sub {n}, 8",
                "jnz 2b",
                x = inout(reg) x, n = inout(reg) n => _,
                options(nomem, nostack)
            );
        }
        black_box(x)
    });
    n as f64 / t
}

// ---------------------------------------------------------------- peak

/// Runs `iters` rounds of twelve independent FMAs at one width; returns
/// FMA instructions per second.
macro_rules! fma_peak {
    ($name:ident, $reg:literal) => {
        fn $name(iters: u64) -> f64 {
            let (t, _) = timed(|| {
                // SAFETY: register arithmetic only; the caller checked the
                // CPU has the width's instructions.
                unsafe {
                    std::arch::asm!(
                        concat!("vxorps ", $reg, "0, ", $reg, "0, ", $reg, "0"),
                        concat!("vxorps ", $reg, "1, ", $reg, "1, ", $reg, "1"),
                        concat!("vxorps ", $reg, "2, ", $reg, "2, ", $reg, "2"),
                        concat!("vxorps ", $reg, "3, ", $reg, "3, ", $reg, "3"),
                        concat!("vxorps ", $reg, "4, ", $reg, "4, ", $reg, "4"),
                        concat!("vxorps ", $reg, "5, ", $reg, "5, ", $reg, "5"),
                        concat!("vxorps ", $reg, "6, ", $reg, "6, ", $reg, "6"),
                        concat!("vxorps ", $reg, "7, ", $reg, "7, ", $reg, "7"),
                        concat!("vxorps ", $reg, "8, ", $reg, "8, ", $reg, "8"),
                        concat!("vxorps ", $reg, "9, ", $reg, "9, ", $reg, "9"),
                        concat!("vxorps ", $reg, "10, ", $reg, "10, ", $reg, "10"),
                        concat!("vxorps ", $reg, "11, ", $reg, "11, ", $reg, "11"),
                        concat!("vxorps ", $reg, "12, ", $reg, "12, ", $reg, "12"),
                        concat!("vxorps ", $reg, "13, ", $reg, "13, ", $reg, "13"),
                        "2:",
                        concat!("vfmadd231ps ", $reg, "0, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "1, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "2, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "3, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "4, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "5, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "6, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "7, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "8, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "9, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "10, ", $reg, "12, ", $reg, "13"),
                        concat!("vfmadd231ps ", $reg, "11, ", $reg, "12, ", $reg, "13"),
                        "dec {n}",
                        "jnz 2b",
                        n = inout(reg) iters => _,
                        out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                        out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
                        out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
                        out("xmm12") _, out("xmm13") _,
                        options(nomem, nostack)
                    );
                }
            });
            (iters * 12) as f64 / t
        }
    };
}

fma_peak!(fma_xmm, "xmm");
fma_peak!(fma_ymm, "ymm");
fma_peak!(fma_zmm, "zmm");

// ---------------------------------------------------------- mandelbrot

const SIDE: usize = 1024;
const MAX_ITER: i32 = 256;

/// The kernel's `cr` or `ci` for coordinate `x` of `side` (as the kernel
/// writes it: `-2.0f + 3.0f * x / width`).
fn coord(start: f32, x: usize, side: usize) -> f32 {
    start + 3.0f32 * x as f32 / side as f32
}

/// 16 lanes as four `__m128` per value: the loop vecl's W = 16 chunk runs,
/// with every value kept in a register.
#[target_feature(enable = "avx2,fma")]
fn mandel_xmm4(out: &mut [i32]) {
    let four = _mm_set1_ps(4.0);
    let maxv = _mm_set1_epi32(MAX_ITER);
    for y in 0..SIDE {
        let ci = _mm_set1_ps(coord(-1.5, y, SIDE));
        for x0 in (0..SIDE).step_by(16) {
            let mut cr = [_mm_setzero_ps(); 4];
            for (p, c) in cr.iter_mut().enumerate() {
                let xs: [f32; 4] = std::array::from_fn(|l| coord(-2.0, x0 + 4 * p + l, SIDE));
                // SAFETY: reads the four floats of `xs`.
                *c = unsafe { _mm_loadu_ps(xs.as_ptr()) };
            }
            let (mut zr, mut zi) = ([_mm_setzero_ps(); 4], [_mm_setzero_ps(); 4]);
            let mut it = [_mm_setzero_si128(); 4];
            let mut live = [_mm_set1_epi32(-1); 4];
            loop {
                let mut any = 0;
                for p in 0..4 {
                    let r2 = _mm_mul_ps(zr[p], zr[p]);
                    let i2 = _mm_mul_ps(zi[p], zi[p]);
                    let m = _mm_add_ps(r2, i2);
                    let ok = _mm_and_si128(
                        _mm_castps_si128(_mm_cmple_ps(m, four)),
                        _mm_cmpgt_epi32(maxv, it[p]),
                    );
                    live[p] = _mm_and_si128(live[p], ok);
                    any |= _mm_movemask_epi8(live[p]);
                    let t = _mm_add_ps(_mm_sub_ps(r2, i2), cr[p]);
                    zi[p] = _mm_fmadd_ps(_mm_add_ps(zr[p], zr[p]), zi[p], ci);
                    zr[p] = t;
                    it[p] = _mm_sub_epi32(it[p], live[p]);
                }
                if any == 0 {
                    break;
                }
            }
            for (p, v) in it.iter().enumerate() {
                // SAFETY: x0 + 4p + 4 <= SIDE, inside the row.
                unsafe { _mm_storeu_si128(out[y * SIDE + x0 + 4 * p..].as_mut_ptr().cast(), *v) };
            }
        }
    }
}

/// 16 lanes as two `__m256` per value (AVX2).
#[target_feature(enable = "avx2,fma")]
fn mandel_ymm2(out: &mut [i32]) {
    let four = _mm256_set1_ps(4.0);
    let maxv = _mm256_set1_epi32(MAX_ITER);
    for y in 0..SIDE {
        let ci = _mm256_set1_ps(coord(-1.5, y, SIDE));
        for x0 in (0..SIDE).step_by(16) {
            let mut cr = [_mm256_setzero_ps(); 2];
            for (p, c) in cr.iter_mut().enumerate() {
                let xs: [f32; 8] = std::array::from_fn(|l| coord(-2.0, x0 + 8 * p + l, SIDE));
                // SAFETY: reads the eight floats of `xs`.
                *c = unsafe { _mm256_loadu_ps(xs.as_ptr()) };
            }
            let (mut zr, mut zi) = ([_mm256_setzero_ps(); 2], [_mm256_setzero_ps(); 2]);
            let mut it = [_mm256_setzero_si256(); 2];
            let mut live = [_mm256_set1_epi32(-1); 2];
            loop {
                let mut any = 0;
                for p in 0..2 {
                    let r2 = _mm256_mul_ps(zr[p], zr[p]);
                    let i2 = _mm256_mul_ps(zi[p], zi[p]);
                    let m = _mm256_add_ps(r2, i2);
                    let ok = _mm256_and_si256(
                        _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(m, four)),
                        _mm256_cmpgt_epi32(maxv, it[p]),
                    );
                    live[p] = _mm256_and_si256(live[p], ok);
                    any |= _mm256_movemask_epi8(live[p]);
                    let t = _mm256_add_ps(_mm256_sub_ps(r2, i2), cr[p]);
                    zi[p] = _mm256_fmadd_ps(_mm256_add_ps(zr[p], zr[p]), zi[p], ci);
                    zr[p] = t;
                    it[p] = _mm256_sub_epi32(it[p], live[p]);
                }
                if any == 0 {
                    break;
                }
            }
            for (p, v) in it.iter().enumerate() {
                // SAFETY: x0 + 8p + 8 <= SIDE, inside the row.
                unsafe {
                    _mm256_storeu_si256(out[y * SIDE + x0 + 8 * p..].as_mut_ptr().cast(), *v)
                };
            }
        }
    }
}

/// `CHUNKS` chunks of 16 lanes, each one `__m512` per value, the lanes
/// still iterating in a k-mask; the chunks' loops interleaved so that
/// their dependence chains overlap (`CHUNKS` = 1 is one W = 16 chunk).
#[target_feature(enable = "avx512f")]
fn mandel_zmm<const CHUNKS: usize>(out: &mut [i32]) {
    let four = _mm512_set1_ps(4.0);
    let maxv = _mm512_set1_epi32(MAX_ITER);
    let one = _mm512_set1_epi32(1);
    let lanes = _mm512_setr_ps(
        0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,
    );
    let three = _mm512_set1_ps(3.0);
    let width = _mm512_set1_ps(SIDE as f32);
    let mtwo = _mm512_set1_ps(-2.0);
    for y in 0..SIDE {
        let ci = _mm512_set1_ps(coord(-1.5, y, SIDE));
        for x0 in (0..SIDE).step_by(16 * CHUNKS) {
            let cr: [__m512; CHUNKS] = std::array::from_fn(|p| {
                let x = _mm512_add_ps(_mm512_set1_ps((x0 + 16 * p) as f32), lanes);
                _mm512_add_ps(mtwo, _mm512_div_ps(_mm512_mul_ps(three, x), width))
            });
            let mut zr = [_mm512_setzero_ps(); CHUNKS];
            let mut zi = [_mm512_setzero_ps(); CHUNKS];
            let mut it = [_mm512_setzero_si512(); CHUNKS];
            let mut live: [__mmask16; CHUNKS] = [0xffff; CHUNKS];
            loop {
                let mut any: __mmask16 = 0;
                for p in 0..CHUNKS {
                    let r2 = _mm512_mul_ps(zr[p], zr[p]);
                    let i2 = _mm512_mul_ps(zi[p], zi[p]);
                    let m = _mm512_add_ps(r2, i2);
                    let ok = _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(live[p], m, four);
                    live[p] = _mm512_mask_cmpgt_epi32_mask(ok, maxv, it[p]);
                    any |= live[p];
                    let t = _mm512_add_ps(_mm512_sub_ps(r2, i2), cr[p]);
                    zi[p] = _mm512_fmadd_ps(_mm512_add_ps(zr[p], zr[p]), zi[p], ci);
                    zr[p] = t;
                    it[p] = _mm512_mask_add_epi32(it[p], live[p], it[p], one);
                }
                if any == 0 {
                    break;
                }
            }
            for (p, v) in it.iter().enumerate() {
                // SAFETY: x0 + 16p + 16 <= SIDE, inside the row.
                unsafe {
                    _mm512_storeu_si512(out[y * SIDE + x0 + 16 * p..].as_mut_ptr().cast(), *v)
                };
            }
        }
    }
}

// --------------------------------------------------------------- nbody

const BODIES: usize = 16384;
const EPS2: f32 = 0.01;
const DT: f32 = 0.01;

/// Accelerations of every body (x, y, z planes) from all bodies of `pos`
/// (x, y, z, mass per body), 16 bodies per zmm chunk, `CHUNKS` chunks
/// sharing each broadcast; `rsqrt` as `1 / sqrt` (`FAST` false, what vecl
/// computes) or `vrsqrt14ps` and one Newton step.
#[target_feature(enable = "avx512f")]
fn nbody_zmm<const CHUNKS: usize, const FAST: bool>(pos: &[f32], acc: &mut [[f32; 3]]) {
    let n = pos.len() / 4;
    let eps2 = _mm512_set1_ps(EPS2);
    let one = _mm512_set1_ps(1.0);
    let half = _mm512_set1_ps(0.5);
    let three = _mm512_set1_ps(3.0);
    let gather = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60);
    for i0 in (0..n).step_by(16 * CHUNKS) {
        let mut p = [[_mm512_setzero_ps(); 3]; CHUNKS];
        for (c, pc) in p.iter_mut().enumerate() {
            for (k, v) in pc.iter_mut().enumerate() {
                // SAFETY: bodies i0 + 16c .. + 16 are inside `pos`.
                *v = unsafe {
                    _mm512_i32gather_ps::<4>(gather, pos[4 * (i0 + 16 * c) + k..].as_ptr())
                };
            }
        }
        let mut a = [[_mm512_setzero_ps(); 3]; CHUNKS];
        for q in pos.chunks_exact(4) {
            let qx = _mm512_set1_ps(q[0]);
            let qy = _mm512_set1_ps(q[1]);
            let qz = _mm512_set1_ps(q[2]);
            let qw = _mm512_set1_ps(q[3]);
            for c in 0..CHUNKS {
                let dx = _mm512_sub_ps(qx, p[c][0]);
                let dy = _mm512_sub_ps(qy, p[c][1]);
                let dz = _mm512_sub_ps(qz, p[c][2]);
                let r2 = _mm512_fmadd_ps(
                    dz,
                    dz,
                    _mm512_fmadd_ps(dy, dy, _mm512_fmadd_ps(dx, dx, eps2)),
                );
                let inv = if FAST {
                    let y = _mm512_rsqrt14_ps(r2);
                    // y (3 - r2 y²) / 2
                    let ry2 = _mm512_mul_ps(_mm512_mul_ps(r2, y), y);
                    _mm512_mul_ps(_mm512_mul_ps(half, y), _mm512_sub_ps(three, ry2))
                } else {
                    _mm512_div_ps(one, _mm512_sqrt_ps(r2))
                };
                let s = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(qw, inv), inv), inv);
                a[c][0] = _mm512_fmadd_ps(dx, s, a[c][0]);
                a[c][1] = _mm512_fmadd_ps(dy, s, a[c][1]);
                a[c][2] = _mm512_fmadd_ps(dz, s, a[c][2]);
            }
        }
        for (c, ac) in a.iter().enumerate() {
            let mut planes = [[0f32; 16]; 3];
            for (k, v) in ac.iter().enumerate() {
                // SAFETY: writes the 16 floats of `planes[k]`.
                unsafe { _mm512_storeu_ps(planes[k].as_mut_ptr(), *v) };
            }
            for l in 0..16 {
                acc[i0 + 16 * c + l] = [planes[0][l], planes[1][l], planes[2][l]];
            }
        }
    }
}

/// The same loop with 16 bodies in four `__m128` per value and `1 /
/// sqrt`: the W = 16 chunk of a 128-bit code generator with no spills.
#[target_feature(enable = "avx2,fma")]
fn nbody_xmm4(pos: &[f32], acc: &mut [[f32; 3]]) {
    let n = pos.len() / 4;
    let eps2 = _mm_set1_ps(EPS2);
    let one = _mm_set1_ps(1.0);
    for i0 in (0..n).step_by(16) {
        let p: [[__m128; 3]; 4] = std::array::from_fn(|c| {
            std::array::from_fn(|k| {
                let v: [f32; 4] = std::array::from_fn(|l| pos[4 * (i0 + 4 * c + l) + k]);
                // SAFETY: reads the four floats of `v`.
                unsafe { _mm_loadu_ps(v.as_ptr()) }
            })
        });
        let mut a = [[_mm_setzero_ps(); 3]; 4];
        for q in pos.chunks_exact(4) {
            let qx = _mm_set1_ps(q[0]);
            let qy = _mm_set1_ps(q[1]);
            let qz = _mm_set1_ps(q[2]);
            let qw = _mm_set1_ps(q[3]);
            for c in 0..4 {
                let dx = _mm_sub_ps(qx, p[c][0]);
                let dy = _mm_sub_ps(qy, p[c][1]);
                let dz = _mm_sub_ps(qz, p[c][2]);
                let r2 = _mm_fmadd_ps(dz, dz, _mm_fmadd_ps(dy, dy, _mm_fmadd_ps(dx, dx, eps2)));
                let inv = _mm_div_ps(one, _mm_sqrt_ps(r2));
                let s = _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(qw, inv), inv), inv);
                a[c][0] = _mm_fmadd_ps(dx, s, a[c][0]);
                a[c][1] = _mm_fmadd_ps(dy, s, a[c][1]);
                a[c][2] = _mm_fmadd_ps(dz, s, a[c][2]);
            }
        }
        for (c, ac) in a.iter().enumerate() {
            let mut planes = [[0f32; 4]; 3];
            for (k, v) in ac.iter().enumerate() {
                // SAFETY: writes the 4 floats of `planes[k]`.
                unsafe { _mm_storeu_ps(planes[k].as_mut_ptr(), *v) };
            }
            for l in 0..4 {
                acc[i0 + 4 * c + l] = [planes[0][l], planes[1][l], planes[2][l]];
            }
        }
    }
}

// -------------------------------------------------------------- matmul

const MAT: usize = 512;

/// `benches/matmul.cl` by hand: per 16 × 16 group, its tiles copied as the
/// kernel stages them, then the k loop for `ROWS` rows (chunks) at a
/// time, each row's 16 columns one zmm accumulator updated in the
/// kernel's order (`acc = fma(ta[ly][k], tb[k][lx], acc)`).
#[target_feature(enable = "avx512f")]
fn matmul_zmm<const ROWS: usize>(a: &[f32], b: &[f32], c: &mut [f32]) {
    let n = MAT;
    let mut ta = [[0f32; 16]; 16];
    let mut tb = [[0f32; 16]; 16];
    for gy in (0..n).step_by(16) {
        for gx in (0..n).step_by(16) {
            let mut acc = [_mm512_setzero_ps(); 16];
            for t in (0..n).step_by(16) {
                for ly in 0..16 {
                    ta[ly].copy_from_slice(&a[(gy + ly) * n + t..][..16]);
                    tb[ly].copy_from_slice(&b[(t + ly) * n + gx..][..16]);
                }
                for r0 in (0..16).step_by(ROWS) {
                    let mut acc_r: [__m512; ROWS] = std::array::from_fn(|r| acc[r0 + r]);
                    for (k, tbk) in tb.iter().enumerate() {
                        // SAFETY: reads the 16 floats of row k of the tile.
                        let bk = unsafe { _mm512_loadu_ps(tbk.as_ptr()) };
                        for (r, ar) in acc_r.iter_mut().enumerate() {
                            *ar = _mm512_fmadd_ps(_mm512_set1_ps(ta[r0 + r][k]), bk, *ar);
                        }
                    }
                    acc[r0..r0 + ROWS].copy_from_slice(&acc_r);
                }
            }
            for (ly, v) in acc.iter().enumerate() {
                // SAFETY: 16 floats of row gy + ly from column gx, inside `c`.
                unsafe { _mm512_storeu_ps(c[(gy + ly) * n + gx..].as_mut_ptr(), *v) };
            }
        }
    }
}

// ---------------------------------------------------------------- vecl

/// A kernel of `benches/` compiled by vecl (optimised tier, default
/// width), with its argument block for the launch.
struct Vecl {
    kernel: CompiledKernel,
    block: Vec<u8>,
    launch: Launch,
    local_bytes: u64,
}

impl Vecl {
    /// Compiles `name` of `src`; `args` are each parameter's bytes (a
    /// buffer's address for pointers, `None` for the `__local` pointer,
    /// which gets `local` bytes).
    fn new(src: &str, name: &str, args: &[Option<Vec<u8>>], local: u64, launch: Launch) -> Vecl {
        let module = vecl_clc::build(src, "").expect("front end").module;
        // Cranelift's code: the row the wide loops are measured against.
        let opts = JitOptions {
            tiers: Tiers::OptimisedOnly,
            wide: false,
            ..JitOptions::default()
        };
        let kernel = compile_kernel(&module, name, &opts).expect("vecl compiles the kernel");
        let mut block = vec![0u8; kernel.args_size().max(8)];
        let mut local_bytes = kernel.static_local_size() as u64;
        for (slot, a) in kernel.args().iter().zip(args) {
            let at = slot.offset as usize;
            match (slot.kind, a) {
                (ArgKind::LocalPointer, None) => {
                    block[at..at + 8].copy_from_slice(&local_bytes.to_le_bytes());
                    local_bytes += local.div_ceil(64) * 64;
                }
                (_, Some(b)) => block[at..at + b.len()].copy_from_slice(b),
                (kind, None) => panic!("no argument for a {kind:?}"),
            }
        }
        Vecl {
            kernel,
            block,
            launch,
            local_bytes,
        }
    }

    fn run(&mut self) {
        // SAFETY: the block's pointers address buffers the caller keeps
        // alive and sized for the launch.
        let status = unsafe {
            groups::run_all_groups(
                &self.kernel,
                &self.block,
                &mut self.launch,
                self.local_bytes,
            )
        };
        assert_eq!(status, 0, "kernel status");
    }
}

fn ptr_arg<T>(v: &mut [T]) -> Option<Vec<u8>> {
    Some((v.as_mut_ptr() as u64).to_le_bytes().to_vec())
}

fn main() {
    if !is_x86_feature_detected!("avx512f")
        || !is_x86_feature_detected!("avx2")
        || !is_x86_feature_detected!("fma")
    {
        println!("wide_ceiling: this CPU has no AVX-512F/FMA; nothing to measure");
        return;
    }
    let quick = std::env::args().any(|a| a == "quick");
    let rounds = if quick { 3 } else { 7 };

    let mut hz = Vec::new();
    for _ in 0..rounds {
        hz.push(clock_hz());
    }
    let hz = median(&mut hz);
    println!("clock (dependent adds): {:.2} GHz", hz / 1e9);

    let iters = if quick { 20_000_000 } else { 100_000_000 };
    let (mut px, mut py, mut pz) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        // SAFETY (all three): the CPU has AVX-512F, hence AVX2 and FMA.
        px.push(fma_xmm(iters));
        py.push(fma_ymm(iters));
        pz.push(fma_zmm(iters));
    }
    let peak = [median(&mut px), median(&mut py), median(&mut pz)];
    for (bits, p) in [128, 256, 512].iter().zip(peak) {
        let lanes = f64::from(*bits / 32);
        println!(
            "FMA peak {bits:3} bits: {:.2} FMA/cycle, {:.1} GFLOP/s f32 per core",
            p / hz,
            p * lanes * 2.0 / 1e9
        );
    }

    // mandelbrot
    let mut v_out = vec![0i32; SIDE * SIDE];
    let mut vecl_m = Vecl::new(
        include_str!("../../benches/mandelbrot.cl"),
        "mandelbrot",
        &[
            ptr_arg(&mut v_out),
            Some((SIDE as i32).to_le_bytes().to_vec()),
            Some((SIDE as i32).to_le_bytes().to_vec()),
            Some(MAX_ITER.to_le_bytes().to_vec()),
        ],
        0,
        Launch::new(
            2,
            [0; 3],
            [SIDE as u64, SIDE as u64, 1],
            [SIDE as u64, 1, 1],
        ),
    );
    let wide: Vec<_> = WIDE
        .iter()
        .map(|&(c, a, _)| compile_mandelbrot(c, a).unwrap())
        .collect();
    let mut outs = vec![vec![0i32; SIDE * SIDE]; 4 + WIDE.len()];
    type Mandel = fn(&mut [i32]);
    let hand: [(&str, Mandel); 4] = [
        ("hand 4 x xmm (W=16)", |o| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { mandel_xmm4(o) }
        }),
        ("hand 2 x ymm (W=16)", |o| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { mandel_ymm2(o) }
        }),
        ("hand 1 x zmm (W=16)", |o| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { mandel_zmm::<1>(o) }
        }),
        ("hand 2 x zmm (W=32)", |o| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { mandel_zmm::<2>(o) }
        }),
    ];
    let mut times = vec![Vec::new(); 5 + WIDE.len()];
    for _ in 0..rounds {
        times[0].push(timed(|| vecl_m.run()).0);
        for (k, (_, f)) in hand.iter().enumerate() {
            times[k + 1].push(timed(|| f(&mut outs[k])).0);
        }
        for (w, code) in wide.iter().enumerate() {
            let c = WIDE[w].0;
            let t = timed(|| run_mandelbrot(code, c, &mut outs[4 + w], SIDE, SIDE, MAX_ITER)).0;
            times[5 + w].push(t);
        }
    }
    let iterations: i64 = v_out.iter().map(|&i| i64::from(i)).sum();
    println!(
        "\nmandelbrot {SIDE}x{SIDE}, {MAX_ITER} iterations ({:.1} M lane-iterations):",
        iterations as f64 / 1e6
    );
    let base = median(&mut times[0].clone());
    println!("  vecl (Cranelift, 128-bit)  {:8.2} ms", base * 1e3);
    let names: Vec<&str> = hand
        .iter()
        .map(|h| h.0)
        .chain(WIDE.iter().map(|w| w.2))
        .collect();
    for (k, name) in names.iter().enumerate() {
        let differ = outs[k].iter().zip(&v_out).filter(|(a, b)| a != b).count();
        assert!(
            differ * 100 <= SIDE * SIDE,
            "{name}: {differ} counts differ from vecl's"
        );
        let t = median(&mut times[k + 1]);
        println!(
            "  {name:26} {:8.2} ms  {:5.2}x vecl  ({differ} counts differ)",
            t * 1e3,
            base / t
        );
    }

    // nbody
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut pos: Vec<f32> = (0..4 * BODIES).map(|_| next() * 2.0 - 1.0).collect();
    for b in pos.chunks_exact_mut(4) {
        b[3] = b[3] * 0.5 + 0.6;
    }
    let mut vel = vec![0f32; 4 * BODIES];
    let (mut new_pos, mut new_vel) = (vec![0f32; 4 * BODIES], vec![0f32; 4 * BODIES]);
    let mut vecl_n = Vecl::new(
        include_str!("../../benches/nbody.cl"),
        "nbody",
        &[
            ptr_arg(&mut pos),
            ptr_arg(&mut vel),
            ptr_arg(&mut new_pos),
            ptr_arg(&mut new_vel),
            None,
            Some((BODIES as i32).to_le_bytes().to_vec()),
            Some(DT.to_le_bytes().to_vec()),
            Some(EPS2.to_le_bytes().to_vec()),
        ],
        256 * 16,
        Launch::new(1, [0; 3], [BODIES as u64, 1, 1], [256, 1, 1]),
    );
    let wide_n: Vec<_> = WIDE
        .iter()
        .map(|&(c, a, _)| compile_nbody(c, a).unwrap())
        .collect();
    let mut accs = vec![vec![[0f32; 3]; BODIES]; 5 + WIDE.len()];
    type Nbody = fn(&[f32], &mut [[f32; 3]]);
    let hand: [(&str, Nbody); 5] = [
        ("hand 4 x xmm, 1/sqrt (W=16)", |p, a| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { nbody_xmm4(p, a) }
        }),
        ("hand 1 x zmm, 1/sqrt (W=16)", |p, a| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { nbody_zmm::<1, false>(p, a) }
        }),
        ("hand 2 x zmm, 1/sqrt (W=32)", |p, a| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { nbody_zmm::<2, false>(p, a) }
        }),
        ("hand 1 x zmm, rsqrt14 (W=16)", |p, a| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { nbody_zmm::<1, true>(p, a) }
        }),
        ("hand 2 x zmm, rsqrt14 (W=32)", |p, a| {
            // SAFETY: main returned unless the CPU has AVX-512F, AVX2 and FMA.
            unsafe { nbody_zmm::<2, true>(p, a) }
        }),
    ];
    let mut times = vec![Vec::new(); 6 + WIDE.len()];
    for _ in 0..rounds {
        times[0].push(timed(|| vecl_n.run()).0);
        for (k, (_, f)) in hand.iter().enumerate() {
            times[k + 1].push(timed(|| f(&pos, &mut accs[k])).0);
        }
        for (w, code) in wide_n.iter().enumerate() {
            let (t, a) = timed(|| nbody_accelerations(code, WIDE[w].0, &pos, EPS2));
            accs[5 + w] = a;
            times[6 + w].push(t);
        }
    }
    let interactions = (BODIES * BODIES) as f64;
    // 20 floating-point operations per interaction, the usual count.
    let gflops = |t: f64| interactions * 20.0 / t / 1e9;
    let zmm_peak = peak[2] * 16.0 * 2.0 / 1e9;
    let xmm_peak = peak[0] * 4.0 * 2.0 / 1e9;
    println!(
        "\nnbody {BODIES} bodies (20 flop per interaction; % of the FMA peak at the loop's width):"
    );
    let base = median(&mut times[0].clone());
    println!(
        "  vecl (Cranelift, 128-bit)    {:8.2} ms  {:6.1} GFLOP/s  {:4.0}% of 128-bit peak",
        base * 1e3,
        gflops(base),
        100.0 * gflops(base) / xmm_peak
    );
    let names: Vec<&str> = hand
        .iter()
        .map(|h| h.0)
        .chain(WIDE.iter().map(|w| w.2))
        .collect();
    for (k, name) in names.iter().enumerate() {
        // vecl's acceleration is (new_vel - vel) / dt, vel = 0.
        let worst = accs[k]
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let v: Vec<f32> = (0..3).map(|c| new_vel[4 * i + c] / DT).collect();
                let mag = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-3);
                (0..3)
                    .map(|c| (a[c] - v[c]).abs() / mag)
                    .fold(0f32, f32::max)
            })
            .fold(0f32, f32::max);
        assert!(worst < 1e-3, "{name}: accelerations differ by {worst}");
        let t = median(&mut times[k + 1]);
        let bits_peak = if k == 0 { xmm_peak } else { zmm_peak };
        println!(
            "  {name:28} {:8.2} ms  {:6.1} GFLOP/s  {:4.0}% of its width's peak  {:5.2}x vecl",
            t * 1e3,
            gflops(t),
            100.0 * gflops(t) / bits_peak,
            base / t
        );
    }

    // matmul
    let n = MAT;
    let ma: Vec<f32> = (0..n * n).map(|_| next() - 0.5).collect();
    let mb: Vec<f32> = (0..n * n).map(|_| next() - 0.5).collect();
    let (mut ma, mut mb) = (ma, mb);
    let mut mc = vec![0f32; n * n];
    let mut vecl_mm = Vecl::new(
        include_str!("../../benches/matmul.cl"),
        "matmul",
        &[
            ptr_arg(&mut ma),
            ptr_arg(&mut mb),
            ptr_arg(&mut mc),
            Some((n as i32).to_le_bytes().to_vec()),
        ],
        0,
        Launch::new(2, [0; 3], [n as u64, n as u64, 1], [16, 16, 1]),
    );
    type Matmul = fn(&[f32], &[f32], &mut [f32]);
    let hand: [(&str, Matmul); 3] = [
        ("hand, 1 row in flight", |a, b, c| {
            // SAFETY: main returned unless the CPU has AVX-512F.
            unsafe { matmul_zmm::<1>(a, b, c) }
        }),
        ("hand, 4 rows in flight", |a, b, c| {
            // SAFETY: main returned unless the CPU has AVX-512F.
            unsafe { matmul_zmm::<4>(a, b, c) }
        }),
        ("hand, 16 rows in flight", |a, b, c| {
            // SAFETY: main returned unless the CPU has AVX-512F.
            unsafe { matmul_zmm::<16>(a, b, c) }
        }),
    ];
    let mut outs = vec![vec![0f32; n * n]; hand.len()];
    let mut times = vec![Vec::new(); 1 + hand.len()];
    for _ in 0..rounds {
        times[0].push(timed(|| vecl_mm.run()).0);
        for (k, (_, f)) in hand.iter().enumerate() {
            times[k + 1].push(timed(|| f(&ma, &mb, &mut outs[k])).0);
        }
    }
    let flop = 2.0 * (n * n * n) as f64;
    println!("\nmatmul {n}x{n}, 16 x 16 tiles (% of the FMA peak at the loop's width):");
    let base = median(&mut times[0].clone());
    println!(
        "  vecl (Cranelift, 128-bit)    {:8.2} ms  {:6.1} GFLOP/s  {:4.0}% of 128-bit peak",
        base * 1e3,
        flop / base / 1e9,
        100.0 * flop / base / 1e9 / xmm_peak
    );
    for (k, (name, _)) in hand.iter().enumerate() {
        assert!(
            outs[k]
                .iter()
                .zip(&mc)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{name}: results differ from vecl's"
        );
        let t = median(&mut times[k + 1]);
        println!(
            "  {name:28} {:8.2} ms  {:6.1} GFLOP/s  {:4.0}% of 512-bit peak  {:5.2}x vecl (bit-identical)",
            t * 1e3,
            flop / t / 1e9,
            100.0 * flop / t / 1e9 / zmm_peak,
            base / t
        );
    }

    // Compile times: the prototype's allocation, assembly and mapping of
    // the chunk loops against vecl's whole compilation of each kernel from
    // its IR (middle passes, lowering, Cranelift), optimised tier.
    println!("\ncompile time (median):");
    for (name, src, wide) in [
        (
            "mandelbrot",
            include_str!("../../benches/mandelbrot.cl"),
            &compile_mandelbrot as &dyn Fn(usize, Allocator) -> _,
        ),
        (
            "nbody",
            include_str!("../../benches/nbody.cl"),
            &compile_nbody,
        ),
    ] {
        let module = vecl_clc::build(src, "").expect("front end").module;
        let mut vt: Vec<f64> = (0..rounds)
            .map(|_| {
                let opts = JitOptions {
                    tiers: Tiers::OptimisedOnly,
                    ..JitOptions::default()
                };
                timed(|| compile_kernel(&module, name, &opts).expect("compiles")).0
            })
            .collect();
        print!("  {name:10} vecl {:7.3} ms;", median(&mut vt) * 1e3);
        for allocator in Allocator::ALL {
            let mut wt: Vec<f64> = (0..10 * rounds)
                .map(|_| {
                    let code = wide(1, allocator).expect("compiles");
                    code.compile_time.as_secs_f64()
                })
                .collect();
            let code = wide(1, allocator).expect("compiles");
            print!(
                "  wide loop, {allocator:?} {:6.3} ms ({} bytes, {} zmm, {} k)",
                median(&mut wt) * 1e3,
                code.size,
                code.zmm_used,
                code.k_used
            );
        }
        println!();
    }
}

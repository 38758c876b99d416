//! The chunk loops of two kernels, built by hand in the machine IR as a
//! lowering of their Kernel IR would build them: the same operations in
//! the same order (each `contract_fma` one FMA, `rsqrt` as `1 / sqrt`, as
//! vecl's Cranelift lowering computes them), 16 work-items per chunk, so
//! that their results can be compared bit for bit with the interpreter's.
//!
//! Each is one function per chunk; the scalar loops over chunks stay in
//! Rust ([`run_mandelbrot`], [`nbody_accelerations`]). Only full chunks:
//! the sizes must be multiples of 16.

use super::emit::{compile, WideCode};
use super::{Arg, Bin, Cmp, Op, Program, WideError};

/// `benches/mandelbrot.cl`'s body for one chunk. Arguments: A0 the chunk's
/// inputs (`[i32; 16]` x coordinates at 0, then y, width, height and
/// max_iter as `i32` at 64, 68, 72, 76), A1 where its 16 counts go.
pub fn mandelbrot_program() -> Program {
    let mut p = Program::new();
    let x = p.load(Arg::A0, 0);
    let y = p.broadcast(Arg::A0, 64);
    let width = p.broadcast(Arg::A0, 68);
    let height = p.broadcast(Arg::A0, 72);
    let max_iter = p.broadcast(Arg::A0, 76);
    // cr = -2.0f + 3.0f * x / width; ci = -1.5f + 3.0f * y / height
    let m2 = p.splat_f32(-2.0);
    let three = p.splat_f32(3.0);
    let xf = p.int_to_float(x);
    let t0 = p.bin(Bin::FMul, three, xf);
    let wf = p.int_to_float(width);
    let t1 = p.bin(Bin::FDiv, t0, wf);
    let cr = p.bin(Bin::FAdd, m2, t1);
    let m15 = p.splat_f32(-1.5);
    let yf = p.int_to_float(y);
    let t2 = p.bin(Bin::FMul, three, yf);
    let hf = p.int_to_float(height);
    let t3 = p.bin(Bin::FDiv, t2, hf);
    let ci = p.bin(Bin::FAdd, m15, t3);
    let zr = p.splat_f32(0.0);
    let zi = p.splat_f32(0.0);
    let i = p.splat_i32(0);
    let four = p.splat_f32(4.0);
    let two = p.splat_f32(2.0);
    let one = p.splat_i32(1);
    let sign = p.splat_i32(i32::MIN);
    let live = p.all_lanes();
    p.push(Op::Loop);
    // while (i < max_iter && zr * zr + zi * zi <= 4.0f)
    p.push(Op::Compare {
        cmp: Cmp::IGt,
        d: live,
        a: max_iter,
        b: i,
        within: live,
    });
    let i2 = p.bin(Bin::FMul, zi, zi);
    let mag = p.fma(zr, zr, i2);
    p.push(Op::Compare {
        cmp: Cmp::FLe,
        d: live,
        a: mag,
        b: four,
        within: live,
    });
    // t = zr * zr - zi * zi + cr (the front end: fma(zr, zr, -(zi * zi)) + cr)
    let neg = p.bin(Bin::IXor, i2, sign);
    let f = p.fma(zr, zr, neg);
    let t = p.bin(Bin::FAdd, f, cr);
    // zi = 2.0f * zr * zi + ci
    let tz = p.bin(Bin::FMul, two, zr);
    let nzi = p.fma(tz, zi, ci);
    p.push(Op::Copy { d: zi, a: nzi });
    p.push(Op::Copy { d: zr, a: t });
    // i++ in the lanes still iterating
    p.push(Op::BinMasked {
        op: Bin::IAdd,
        d: i,
        a: i,
        b: one,
        k: live,
    });
    p.push(Op::WhileAny { k: live });
    p.push(Op::Store {
        a: i,
        arg: Arg::A1,
        off: 0,
    });
    p
}

/// Mandelbrot over a `width` × `height` image (`width` a multiple of 16)
/// with the compiled [`mandelbrot_program`]; `out` as the kernel writes it.
pub fn run_mandelbrot(
    code: &WideCode,
    out: &mut [i32],
    width: usize,
    height: usize,
    max_iter: i32,
) {
    assert!(width.is_multiple_of(16) && out.len() >= width * height);
    let mut inputs = [0i32; 20];
    inputs[17] = width as i32;
    inputs[18] = height as i32;
    inputs[19] = max_iter;
    for y in 0..height {
        inputs[16] = y as i32;
        for x0 in (0..width).step_by(16) {
            for (l, v) in inputs[..16].iter_mut().enumerate() {
                *v = (x0 + l) as i32;
            }
            let dst = out[y * width + x0..].as_mut_ptr();
            // SAFETY: the program reads the 80 bytes of `inputs` and writes
            // 64 bytes at `dst`, inside `out` (x0 + 16 <= width).
            unsafe { code.call([inputs.as_ptr() as u64, dst as u64, 0, 0, 0]) };
        }
    }
}

/// nbody's force loop for one chunk of 16 bodies. Arguments: A0 the
/// chunk's positions as three planes of 16 floats (x, y, z) and `eps2` at
/// 192, A1 the positions of all bodies (`float4`, mass in w), A2 their
/// number (at least 1), A3 where the three planes of accelerations go.
pub fn nbody_program() -> Program {
    let mut p = Program::new();
    let px = p.load(Arg::A0, 0);
    let py = p.load(Arg::A0, 64);
    let pz = p.load(Arg::A0, 128);
    let eps2 = p.broadcast(Arg::A0, 192);
    let one = p.splat_f32(1.0);
    let ax = p.splat_f32(0.0);
    let ay = p.splat_f32(0.0);
    let az = p.splat_f32(0.0);
    p.push(Op::Loop);
    let qx = p.broadcast(Arg::A1, 0);
    let qy = p.broadcast(Arg::A1, 4);
    let qz = p.broadcast(Arg::A1, 8);
    let qw = p.broadcast(Arg::A1, 12);
    let dx = p.bin(Bin::FSub, qx, px);
    let dy = p.bin(Bin::FSub, qy, py);
    let dz = p.bin(Bin::FSub, qz, pz);
    // r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2, as the front end
    // contracts it
    let yy = p.bin(Bin::FMul, dy, dy);
    let s1 = p.fma(dx, dx, yy);
    let s2 = p.fma(dz, dz, s1);
    let r2 = p.bin(Bin::FAdd, s2, eps2);
    // inv = rsqrt(r2) as 1 / sqrt(r2)
    let sq = p.sqrt(r2);
    let inv = p.bin(Bin::FDiv, one, sq);
    let s = p.bin(Bin::FMul, qw, inv);
    let s = p.bin(Bin::FMul, s, inv);
    let s = p.bin(Bin::FMul, s, inv);
    // acc += d * s
    for (a, d) in [(ax, dx), (ay, dy), (az, dz)] {
        p.push(Op::Fma {
            d: a,
            a: d,
            b: s,
            c: a,
        });
    }
    p.push(Op::WhileCount {
        arg: Arg::A1,
        step: 16,
        count: Arg::A2,
    });
    for (k, a) in [ax, ay, az].into_iter().enumerate() {
        p.push(Op::Store {
            a,
            arg: Arg::A3,
            off: 64 * k as i32,
        });
    }
    p
}

/// The acceleration on every body of `pos` (x, y, z, mass per body; the
/// count a multiple of 16) from all of them, with the compiled
/// [`nbody_program`].
pub fn nbody_accelerations(code: &WideCode, pos: &[f32], eps2: f32) -> Vec<[f32; 3]> {
    let n = pos.len() / 4;
    assert!(n > 0 && n.is_multiple_of(16));
    let mut acc = vec![[0f32; 3]; n];
    let mut planes = [0f32; 49];
    let mut out = [0f32; 48];
    planes[48] = eps2;
    for i0 in (0..n).step_by(16) {
        for l in 0..16 {
            for k in 0..3 {
                planes[16 * k + l] = pos[4 * (i0 + l) + k];
            }
        }
        // SAFETY: the program reads the 196 bytes of `planes`, 16 bytes per
        // body of `pos` for `n` bodies, and writes the 192 of `out`.
        unsafe {
            code.call([
                planes.as_ptr() as u64,
                pos.as_ptr() as u64,
                n as u64,
                out.as_mut_ptr() as u64,
                0,
            ])
        };
        for l in 0..16 {
            acc[i0 + l] = [out[l], out[16 + l], out[32 + l]];
        }
    }
    acc
}

/// Both programs compiled.
pub fn compile_mandelbrot() -> Result<WideCode, WideError> {
    compile(&mandelbrot_program())
}

pub fn compile_nbody() -> Result<WideCode, WideError> {
    compile(&nbody_program())
}

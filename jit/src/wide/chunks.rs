//! The chunk loops of two kernels, built by hand in the machine IR as a
//! lowering of their Kernel IR would build them: the same operations in
//! the same order (each `contract_fma` one FMA, `rsqrt` as `1 / sqrt`, as
//! vecl's Cranelift lowering computes them), 16 work-items per chunk, so
//! that their results can be compared bit for bit with the interpreter's.
//!
//! Each is one function per chunk; the scalar loops over chunks stay in
//! Rust ([`run_mandelbrot`], [`nbody_accelerations`]). Only full chunks:
//! the sizes must be multiples of 16.

use super::emit::WideCode;
use super::{compile, Allocator, Arg, Bin, Cmp, Op, Program, WideError};

/// `benches/mandelbrot.cl`'s body for `chunks` chunks of 16 work-items,
/// their loops interleaved (one chunk is W = 16; two, W = 32, overlap two
/// dependence chains). Arguments: A0 the inputs (`[i32; 16 * chunks]` x
/// coordinates at 0, then y, width, height and max_iter as `i32` at `64 *
/// chunks` + 0, 4, 8, 12), A1 where the `16 * chunks` counts go.
pub fn mandelbrot_program(chunks: usize) -> Program {
    let mut p = Program::new();
    let at = 64 * chunks as i32;
    let y = p.broadcast(Arg::A0, at);
    let width = p.broadcast(Arg::A0, at + 4);
    let height = p.broadcast(Arg::A0, at + 8);
    let max_iter = p.broadcast(Arg::A0, at + 12);
    let m2 = p.splat_f32(-2.0);
    let three = p.splat_f32(3.0);
    let wf = p.int_to_float(width);
    // ci = -1.5f + 3.0f * y / height
    let m15 = p.splat_f32(-1.5);
    let yf = p.int_to_float(y);
    let t2 = p.bin(Bin::FMul, three, yf);
    let hf = p.int_to_float(height);
    let t3 = p.bin(Bin::FDiv, t2, hf);
    let ci = p.bin(Bin::FAdd, m15, t3);
    let four = p.splat_f32(4.0);
    let two = p.splat_f32(2.0);
    let one = p.splat_i32(1);
    let sign = p.splat_i32(i32::MIN);
    struct Chunk {
        cr: super::V,
        zr: super::V,
        zi: super::V,
        i: super::V,
        live: super::K,
    }
    let mut cs = Vec::new();
    for c in 0..chunks {
        // cr = -2.0f + 3.0f * x / width
        let x = p.load(Arg::A0, 64 * c as i32);
        let xf = p.int_to_float(x);
        let t0 = p.bin(Bin::FMul, three, xf);
        let t1 = p.bin(Bin::FDiv, t0, wf);
        let cr = p.bin(Bin::FAdd, m2, t1);
        let zr = p.splat_f32(0.0);
        let zi = p.splat_f32(0.0);
        let i = p.splat_i32(0);
        let live = p.all_lanes();
        cs.push(Chunk {
            cr,
            zr,
            zi,
            i,
            live,
        });
    }
    p.push(Op::Loop);
    for c in &cs {
        // while (i < max_iter && zr * zr + zi * zi <= 4.0f)
        p.push(Op::Compare {
            cmp: Cmp::IGt,
            d: c.live,
            a: max_iter,
            b: c.i,
            within: c.live,
        });
        let i2 = p.bin(Bin::FMul, c.zi, c.zi);
        let mag = p.fma(c.zr, c.zr, i2);
        p.push(Op::Compare {
            cmp: Cmp::FLe,
            d: c.live,
            a: mag,
            b: four,
            within: c.live,
        });
        // t = zr * zr - zi * zi + cr (the front end: fma(zr, zr, -(zi * zi)) + cr)
        let neg = p.bin(Bin::IXor, i2, sign);
        let f = p.fma(c.zr, c.zr, neg);
        let t = p.bin(Bin::FAdd, f, c.cr);
        // zi = 2.0f * zr * zi + ci
        let tz = p.bin(Bin::FMul, two, c.zr);
        let nzi = p.fma(tz, c.zi, ci);
        p.push(Op::Copy { d: c.zi, a: nzi });
        p.push(Op::Copy { d: c.zr, a: t });
        // i++ in the lanes still iterating
        p.push(Op::BinMasked {
            op: Bin::IAdd,
            d: c.i,
            a: c.i,
            b: one,
            k: c.live,
        });
    }
    let mut any = cs[0].live;
    for c in &cs[1..] {
        let d = p.k();
        p.push(Op::KOr {
            d,
            a: any,
            b: c.live,
        });
        any = d;
    }
    p.push(Op::WhileAny { k: any });
    for (k, c) in cs.iter().enumerate() {
        p.push(Op::Store {
            a: c.i,
            arg: Arg::A1,
            off: 64 * k as i32,
        });
    }
    p
}

/// Mandelbrot over a `width` × `height` image (`width` a multiple of 16
/// times `chunks`) with the compiled [`mandelbrot_program`] of `chunks`
/// chunks; `out` as the kernel writes it.
pub fn run_mandelbrot(
    code: &WideCode,
    chunks: usize,
    out: &mut [i32],
    width: usize,
    height: usize,
    max_iter: i32,
) {
    let lanes = 16 * chunks;
    assert!(width.is_multiple_of(lanes) && out.len() >= width * height);
    let mut inputs = vec![0i32; lanes + 4];
    inputs[lanes + 1] = width as i32;
    inputs[lanes + 2] = height as i32;
    inputs[lanes + 3] = max_iter;
    for y in 0..height {
        inputs[lanes] = y as i32;
        for x0 in (0..width).step_by(lanes) {
            for (l, v) in inputs[..lanes].iter_mut().enumerate() {
                *v = (x0 + l) as i32;
            }
            let dst = out[y * width + x0..].as_mut_ptr();
            // SAFETY: the program reads the inputs (`lanes + 4` ints) and
            // writes `lanes` ints at `dst`, inside `out` (x0 + lanes <=
            // width).
            unsafe { code.call([inputs.as_ptr() as u64, dst as u64, 0, 0, 0]) };
        }
    }
}

/// nbody's force loop for `chunks` chunks of 16 bodies, sharing each
/// broadcast of the other body. Arguments: A0 each chunk's positions as
/// three planes of 16 floats (x, y, z; chunk `c` at `192 * c`) and `eps2`
/// after them, A1 the positions of all bodies (`float4`, mass in w), A2
/// their number (at least 1), A3 where the chunks' three planes of
/// accelerations go.
pub fn nbody_program(chunks: usize) -> Program {
    let mut p = Program::new();
    let ps: Vec<[super::V; 3]> = (0..chunks as i32)
        .map(|c| std::array::from_fn(|k| p.load(Arg::A0, 192 * c + 64 * k as i32)))
        .collect();
    let eps2 = p.broadcast(Arg::A0, 192 * chunks as i32);
    let one = p.splat_f32(1.0);
    let accs: Vec<[super::V; 3]> = (0..chunks)
        .map(|_| std::array::from_fn(|_| p.splat_f32(0.0)))
        .collect();
    p.push(Op::Loop);
    let qx = p.broadcast(Arg::A1, 0);
    let qy = p.broadcast(Arg::A1, 4);
    let qz = p.broadcast(Arg::A1, 8);
    let qw = p.broadcast(Arg::A1, 12);
    for (pc, acc) in ps.iter().zip(&accs) {
        let dx = p.bin(Bin::FSub, qx, pc[0]);
        let dy = p.bin(Bin::FSub, qy, pc[1]);
        let dz = p.bin(Bin::FSub, qz, pc[2]);
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
        for (a, d) in acc.iter().zip([dx, dy, dz]) {
            p.push(Op::Fma {
                d: *a,
                a: d,
                b: s,
                c: *a,
            });
        }
    }
    p.push(Op::WhileCount {
        arg: Arg::A1,
        step: 16,
        count: Arg::A2,
    });
    for (c, acc) in accs.iter().enumerate() {
        for (k, a) in acc.iter().enumerate() {
            p.push(Op::Store {
                a: *a,
                arg: Arg::A3,
                off: 192 * c as i32 + 64 * k as i32,
            });
        }
    }
    p
}

/// The acceleration on every body of `pos` (x, y, z, mass per body; the
/// count a multiple of `16 * chunks`) from all of them, with the compiled
/// [`nbody_program`] of `chunks` chunks.
pub fn nbody_accelerations(
    code: &WideCode,
    chunks: usize,
    pos: &[f32],
    eps2: f32,
) -> Vec<[f32; 3]> {
    let n = pos.len() / 4;
    let lanes = 16 * chunks;
    assert!(n > 0 && n.is_multiple_of(lanes));
    let mut acc = vec![[0f32; 3]; n];
    let mut planes = vec![0f32; 48 * chunks + 1];
    let mut out = vec![0f32; 48 * chunks];
    planes[48 * chunks] = eps2;
    for i0 in (0..n).step_by(lanes) {
        for c in 0..chunks {
            for l in 0..16 {
                for k in 0..3 {
                    planes[48 * c + 16 * k + l] = pos[4 * (i0 + 16 * c + l) + k];
                }
            }
        }
        // SAFETY: the program reads the planes and `eps2`, 16 bytes per
        // body of `pos` for `n` bodies, and writes the `48 * chunks`
        // floats of `out`.
        unsafe {
            code.call([
                planes.as_ptr() as u64,
                pos.as_ptr() as u64,
                n as u64,
                out.as_mut_ptr() as u64,
                0,
            ])
        };
        for c in 0..chunks {
            for l in 0..16 {
                acc[i0 + 16 * c + l] =
                    [out[48 * c + l], out[48 * c + 16 + l], out[48 * c + 32 + l]];
            }
        }
    }
    acc
}

/// [`mandelbrot_program`] of `chunks` chunks, compiled.
pub fn compile_mandelbrot(chunks: usize, allocator: Allocator) -> Result<WideCode, WideError> {
    compile(&mandelbrot_program(chunks), allocator)
}

/// [`nbody_program`] of `chunks` chunks, compiled.
pub fn compile_nbody(chunks: usize, allocator: Allocator) -> Result<WideCode, WideError> {
    compile(&nbody_program(chunks), allocator)
}

//! Shared by the math and builtin tests: builds one-kernel OpenCL C
//! programs, runs them over a buffer of inputs, and measures errors in ULPs
//! against a more precise host reference.

#![allow(dead_code)]

use vecl_jit::abi::Launch;
use vecl_jit::CompiledKernel;
pub use vecl_testkit::*;

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// Compiles OpenCL C source and its kernel `k` at SIMD width 8.
pub fn kernel(src: &str) -> CompiledKernel {
    let src = format!("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n{src}");
    let m = match vecl_clc::build(&src, "") {
        Ok(b) => b.module,
        Err(e) => panic!("{e}\n{src}"),
    };
    compile(&m, "k", 8)
}

/// Runs `k` over `n` work-items (groups of 64) with buffer arguments.
pub fn run_n(k: &CompiledKernel, n: usize, bufs: &mut [&mut Vec<u8>]) {
    let mut args: Vec<Arg<'_>> = bufs
        .iter_mut()
        .map(|b| Arg::Buf(b.as_mut_slice()))
        .collect();
    let mut launch = Launch::new(1, [0; 3], [n as u64, 1, 1], [64, 1, 1]);
    run(k, &mut args, &mut launch);
}

pub fn pad64(n: usize) -> usize {
    n.div_ceil(64) * 64
}

pub fn bytes_of<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    let mut out: Vec<u8> = v.iter().flat_map(|x| f(*x)).collect();
    out.resize(pad64(v.len().max(1)) * N + 64, 0);
    out
}

pub fn f64_from(b: &[u8]) -> Vec<f64> {
    b.chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

/// Error of a float result in ULPs of the reference (`None`: a special
/// value is wrong — NaN, infinity or the sign of an exact zero).
pub fn ulp_f32(res: f32, want: f64, check_zero_sign: bool) -> Option<f64> {
    if want.is_nan() {
        return res.is_nan().then_some(0.0);
    }
    if res.is_nan() {
        return None;
    }
    let w32 = want as f32;
    if want.is_infinite() || res.is_infinite() {
        if res == w32 {
            return Some(0.0);
        }
        if want.is_infinite() {
            return None;
        }
    }
    if want == 0.0 {
        if res != 0.0 {
            // Measure against the smallest subnormal.
            return Some(f64::from(res).abs() / 2f64.powi(-149));
        }
        if check_zero_sign && res.is_sign_negative() != want.is_sign_negative() {
            return None;
        }
        return Some(0.0);
    }
    let a = want.abs().min(f64::from(f32::MAX));
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let ulp = 2f64.powi(e.max(-126) - 23);
    let r = f64::from(res);
    if r.is_infinite() {
        return Some((f64::from(f32::MAX) - want.abs()).abs() / ulp + 1.0);
    }
    Some((r - want).abs() / ulp)
}

/// Error of a double result in ULPs of a double-double reference.
pub fn ulp_f64(res: f64, hi: f64, lo: f64) -> Option<f64> {
    if hi.is_nan() {
        return res.is_nan().then_some(0.0);
    }
    if res.is_nan() {
        return None;
    }
    if hi.is_infinite() || res.is_infinite() {
        return (res == hi).then_some(0.0);
    }
    if hi == 0.0 {
        return Some(res.abs() / f64::from_bits(1));
    }
    let e = ((hi.abs().to_bits() >> 52) & 0x7ff) as i32 - 1023;
    // 2^(e-52), built from bits (powi underflows below 2^-1022).
    let k = e.max(-1022) - 52;
    let ulp = if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    };
    Some(((res - hi) - lo).abs() / ulp)
}

/// Interesting float inputs: zeros, subnormals, limits, infinities, NaN,
/// integers and halves, then `n` random bit patterns and `n` values in
/// `[lo, hi]`.
pub fn f32_inputs(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        -f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        1.5,
        -1.5,
        1e-20,
        -1e-20,
        1e20,
        -1e20,
        std::f32::consts::FRAC_PI_2,
        -std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
        1e6,
        -1e6,
        1.0e7,
        123_456_789.0,
        1e30,
        -1e30,
        88.7,
        89.0,
        -103.0,
        -150.0,
        0.999_999_94,
        1.000_000_1,
        -0.999_999_94,
    ];
    // Each special value once more among ordinary ones, in a four-lane
    // piece of its own (routines branch on a piece's specials).
    let specials = v[..13].to_vec();
    while v.len() % 4 != 0 {
        v.push(1.0);
    }
    for s in specials {
        v.extend([0.75, s, 1.25, 2.5]);
    }
    for _ in 0..n {
        v.push(f32::from_bits(rng.next() as u32));
    }
    for _ in 0..n {
        v.push(rng.range(lo, hi) as f32);
    }
    v
}

/// Runs a float kernel `r[i] = F(x[i] [, y[i]])` over the inputs.
pub fn run_f32(src_expr: &str, xs: &[f32], ys: Option<&[f32]>) -> Vec<f32> {
    let (params, bufs_y) = match ys {
        Some(_) => (
            "global const float* x, global const float* y, global float* r",
            true,
        ),
        None => ("global const float* x, global float* r", false),
    };
    let src =
        format!("kernel void k({params}) {{ size_t i = get_global_id(0); r[i] = {src_expr}; }}");
    let k = kernel(&src);
    let n = pad64(xs.len());
    let mut xb = bytes_of(xs, f32::to_le_bytes);
    let mut rb = vec![0u8; n * 4 + 64];
    if bufs_y {
        let mut yb = bytes_of(ys.unwrap_or(&[]), f32::to_le_bytes);
        run_n(&k, n, &mut [&mut xb, &mut yb, &mut rb]);
    } else {
        run_n(&k, n, &mut [&mut xb, &mut rb]);
    }
    f32_from(&rb[..xs.len() * 4])
}

/// Runs `r[i] = F(u)` with `u` a kernel argument (the uniform path).
pub fn run_f32_uniform(src_expr: &str, x: f32) -> f32 {
    let src = format!(
        "kernel void k(global const float* u, global float* r) {{ float x = u[0]; size_t i = get_global_id(0); r[i] = {src_expr}; }}"
    );
    let k = kernel(&src);
    let mut ub = bytes_of(&[x], f32::to_le_bytes);
    let mut rb = vec![0u8; 64 * 4 + 64];
    run_n(&k, 64, &mut [&mut ub, &mut rb]);
    let r = f32_from(&rb[..64 * 4]);
    // Every item got the same value.
    assert!(
        r.iter().all(|v| v.to_bits() == r[0].to_bits()),
        "{src_expr}: {r:?}"
    );
    r[0]
}

/// An OpenCL integer type, with exact host arithmetic on `i128`.
#[derive(Clone, Copy, Debug)]
pub struct IntTy {
    pub name: &'static str,
    pub bits: u32,
    pub signed: bool,
}

/// Every OpenCL integer type.
pub const INTS: &[IntTy] = &[
    IntTy {
        name: "char",
        bits: 8,
        signed: true,
    },
    IntTy {
        name: "uchar",
        bits: 8,
        signed: false,
    },
    IntTy {
        name: "short",
        bits: 16,
        signed: true,
    },
    IntTy {
        name: "ushort",
        bits: 16,
        signed: false,
    },
    IntTy {
        name: "int",
        bits: 32,
        signed: true,
    },
    IntTy {
        name: "uint",
        bits: 32,
        signed: false,
    },
    IntTy {
        name: "long",
        bits: 64,
        signed: true,
    },
    IntTy {
        name: "ulong",
        bits: 64,
        signed: false,
    },
];

impl IntTy {
    pub fn range(self) -> (i128, i128) {
        if self.signed {
            (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1)
        } else {
            (0, (1i128 << self.bits) - 1)
        }
    }
    pub fn unsigned(self) -> IntTy {
        INTS.iter()
            .copied()
            .find(|t| t.bits == self.bits && !t.signed)
            .unwrap_or(self)
    }
    pub fn bytes(self, v: &[i128]) -> Vec<u8> {
        let size = (self.bits / 8) as usize;
        let mut out: Vec<u8> = v
            .iter()
            .flat_map(|x| x.to_le_bytes()[..size].to_vec())
            .collect();
        out.resize(pad64(v.len()) * size + 64, 0);
        out
    }
    pub fn read(self, b: &[u8], n: usize) -> Vec<i128> {
        let size = (self.bits / 8) as usize;
        (0..n)
            .map(|i| {
                let mut w = [0u8; 16];
                w[..size].copy_from_slice(&b[i * size..(i + 1) * size]);
                let u = i128::from_le_bytes(w);
                if self.signed && (u >> (self.bits - 1)) & 1 == 1 {
                    u - (1i128 << self.bits)
                } else {
                    u
                }
            })
            .collect()
    }
    pub fn wrap(self, v: i128) -> i128 {
        let m = v & ((1i128 << self.bits) - 1);
        if self.signed && (m >> (self.bits - 1)) & 1 == 1 {
            m - (1i128 << self.bits)
        } else {
            m
        }
    }
}

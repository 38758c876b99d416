//! `sin`, `cos` and `sincos` of `float`s in single precision
//! (`MathCx::sincos_f32`, on hosts with FMA): every float in [2^-3, 16)
//! and random values of every exponent against the double reference
//! within 2 ULP (OpenCL's bound is 4); `sincos` equal to `sin` and `cos`
//! to the bit; and the uniform (scalar) path equal to the `f32x4` pieces
//! to the bit. Each test prints the largest error it found.

mod math_support;

use math_support::*;
use vecl_jit::abi::Launch;

/// The bound these tests hold the routine to (OpenCL's is 4 ULP).
const BOUND: f64 = 2.0;

/// `r[3i] = sin(x)`, `r[3i + 1] = cos(x)`, `r[3i + 2] = sincos`'s sine
/// xor `sin(x)` plus its cosine xor `cos(x)` (zero when they agree).
const SRC: &str = "kernel void k(global const float* x, global uint* r) {
    size_t i = get_global_id(0);
    float v = x[i], c, s = sincos(v, &c);
    float sv = sin(v), cv = cos(v);
    r[3 * i] = as_uint(sv);
    r[3 * i + 1] = as_uint(cv);
    r[3 * i + 2] = (as_uint(s) ^ as_uint(sv)) | (as_uint(c) ^ as_uint(cv));
}";

/// The largest errors of `sin` and `cos` over `xs`, with their arguments.
struct Worst {
    sin: (f64, f32),
    cos: (f64, f32),
}

fn check(k: &vecl_jit::CompiledKernel, xs: &[f32], worst: &mut Worst) {
    let n = pad64(xs.len());
    let mut xb = bytes_of(xs, f32::to_le_bytes);
    let mut rb = vec![0u8; 3 * n * 4 + 64];
    run_n(k, n, &mut [&mut xb, &mut rb]);
    let r = f32_from(&rb[..3 * xs.len() * 4]);
    for (i, &x) in xs.iter().enumerate() {
        let (s, c) = (r[3 * i], r[3 * i + 1]);
        assert_eq!(
            r[3 * i + 2].to_bits(),
            0,
            "sincos({x:e}) differs from sin and cos"
        );
        let xd = f64::from(x);
        let es = ulp_f32(s, xd.sin(), true).unwrap_or_else(|| panic!("sin({x:e}) = {s:e}"));
        let ec = ulp_f32(c, xd.cos(), true).unwrap_or_else(|| panic!("cos({x:e}) = {c:e}"));
        if es > worst.sin.0 {
            worst.sin = (es, x);
        }
        if ec > worst.cos.0 {
            worst.cos = (ec, x);
        }
    }
}

fn trig_kernel() -> vecl_jit::CompiledKernel {
    kernel(SRC)
}

#[test]
fn every_float_from_an_eighth_to_16_is_within_2_ulp() {
    if !has_fma() {
        return;
    }
    let k = trig_kernel();
    let mut worst = Worst {
        sin: (0.0, 0.0),
        cos: (0.0, 0.0),
    };
    let (lo, hi) = (0.125f32.to_bits(), 16f32.to_bits());
    let batch = 1u32 << 21;
    let mut b = lo;
    while b < hi {
        let end = (b + batch).min(hi);
        let xs: Vec<f32> = (b..end).map(f32::from_bits).collect();
        check(&k, &xs, &mut worst);
        b = end;
    }
    println!(
        "ulp sin float {:.3} at {:e}, cos {:.3} at {:e}, over every float in [2^-3, 16)",
        worst.sin.0, worst.sin.1, worst.cos.0, worst.cos.1
    );
    assert!(worst.sin.0 <= BOUND && worst.cos.0 <= BOUND);
}

#[test]
fn random_floats_of_every_exponent_are_within_2_ulp() {
    if !has_fma() {
        return;
    }
    let k = trig_kernel();
    let mut worst = Worst {
        sin: (0.0, 0.0),
        cos: (0.0, 0.0),
    };
    let mut rng = Rng(0x7219_5eed_0c05_0001);
    // Random bit patterns (every exponent and sign, huge arguments on the
    // exact path, NaN and infinities), then values near multiples of π/2
    // up to 2^20, where the reduction cancels most.
    let mut xs: Vec<f32> = (0..1 << 20)
        .map(|_| f32::from_bits(rng.next() as u32))
        .collect();
    for _ in 0..1 << 18 {
        let k = (rng.next() % 667_544) as f64;
        let near = (k * std::f64::consts::FRAC_PI_2) as f32;
        let step = (rng.next() % 7) as i32 - 3;
        let x = f32::from_bits((near.to_bits() as i32 + step) as u32);
        xs.push(if rng.next() & 1 == 0 { x } else { -x });
    }
    xs.extend([
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MIN_POSITIVE,
        1_048_576.0,
        1_048_576.1,
        -1_048_577.0,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ]);
    check(&k, &xs, &mut worst);
    println!(
        "ulp sin float {:.3} at {:e}, cos {:.3} at {:e}, over {} random floats",
        worst.sin.0,
        worst.sin.1,
        worst.cos.0,
        worst.cos.1,
        xs.len()
    );
    assert!(worst.sin.0 <= BOUND && worst.cos.0 <= BOUND);
}

/// A uniform argument takes the scalar form of the routine: the same
/// operations on one `float`, so the same bits as on the pieces.
#[test]
fn the_uniform_path_gives_the_bits_of_the_pieces() {
    let src = "kernel void k(global const float* u, global uint* r, int m) {
        if (get_global_id(0) == 0) {
            for (int j = 0; j < m; j++) {
                float v = u[j], c, s = sincos(v, &c);
                r[4 * j] = as_uint(sin(v));
                r[4 * j + 1] = as_uint(cos(v));
                r[4 * j + 2] = as_uint(s);
                r[4 * j + 3] = as_uint(c);
            }
        }
    }";
    let uni = kernel(src);
    let k = trig_kernel();
    let mut rng = Rng(0x0051_9e5c_a1a2_0002);
    let mut xs: Vec<f32> = (0..2000).map(|_| rng.range(-40.0, 40.0) as f32).collect();
    xs.extend((0..500).map(|_| f32::from_bits(rng.next() as u32)));
    xs.extend([0.0, -0.0, 3e5, -1e6, 2e6, f32::INFINITY, f32::NAN]);
    let m = xs.len();
    let mut ub = bytes_of(&xs, f32::to_le_bytes);
    let mut rb = vec![0u8; 4 * m * 4 + 64];
    let mut args = vec![
        Arg::Buf(ub.as_mut_slice()),
        Arg::Buf(rb.as_mut_slice()),
        Arg::Bytes((m as i32).to_le_bytes().to_vec()),
    ];
    let mut launch = Launch::new(1, [0; 3], [8, 1, 1], [8, 1, 1]);
    run(&uni, &mut args, &mut launch);
    let u = f32_from(&rb[..4 * m * 4]);
    let n = pad64(m);
    let mut xb = bytes_of(&xs, f32::to_le_bytes);
    let mut vb = vec![0u8; 3 * n * 4 + 64];
    run_n(&k, n, &mut [&mut xb, &mut vb]);
    let v = f32_from(&vb[..3 * m * 4]);
    for (j, x) in xs.iter().enumerate() {
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        assert!(
            same(u[4 * j], v[3 * j]),
            "sin({x:e}): {} vs {}",
            u[4 * j],
            v[3 * j]
        );
        assert!(
            same(u[4 * j + 1], v[3 * j + 1]),
            "cos({x:e}): {} vs {}",
            u[4 * j + 1],
            v[3 * j + 1]
        );
        assert!(same(u[4 * j + 2], u[4 * j]), "uniform sincos({x:e})");
        assert!(same(u[4 * j + 3], u[4 * j + 1]), "uniform sincos({x:e})");
    }
}

fn has_fma() -> bool {
    std::is_x86_feature_detected!("fma")
}

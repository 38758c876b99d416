//! The builtins that are exact by definition, checked against exact host
//! references on edge values: integer saturating/averaging arithmetic of
//! every width (64-bit included), `frexp modf fract remquo remainder ldexp
//! ilogb logb nextafter fmod lgamma_r`, the two-argument relationals,
//! `shuffle`/`shuffle2`, `upsample`, `maxmag minmag sign`, and the
//! half-precision loads and stores in every rounding mode.

mod math_support;

use math_support::*;

impl IntTy {
    fn edges(self) -> Vec<i128> {
        let (lo, hi) = self.range();
        let mut v = vec![
            lo,
            lo + 1,
            hi,
            hi - 1,
            0,
            1,
            2,
            3,
            hi / 2,
            hi / 2 + 1,
            lo / 2,
            100,
        ];
        if self.signed {
            v.extend([-1, -2, -3, -100]);
        }
        v
    }
}

/// `a·b` as (high, low) halves of `2·bits` width (exact for 64-bit too).
fn wide_mul(t: IntTy, a: i128, b: i128) -> (i128, i128) {
    if let Some(p) = a.checked_mul(b) {
        return (p >> t.bits, p & ((1i128 << t.bits) - 1));
    }
    // Only unsigned 64-bit products overflow i128.
    let p = (a as u128).wrapping_mul(b as u128);
    let full_hi = {
        let (a1, a0) = ((a as u128) >> 32, (a as u128) & 0xffff_ffff);
        let (b1, b0) = ((b as u128) >> 32, (b as u128) & 0xffff_ffff);
        let mid = a1 * b0 + a0 * b1 + ((a0 * b0) >> 32);
        a1 * b1 + (mid >> 32)
    };
    (full_hi as i128, (p & 0xffff_ffff_ffff_ffff) as i128)
}

fn int_ref(op: &str, t: IntTy, a: i128, b: i128, c: i128) -> i128 {
    let (lo, hi) = t.range();
    match op {
        "mul_hi" | "mad_hi" | "mad_sat" if a.checked_mul(b).is_none() => {
            let (h, _) = wide_mul(t, a, b);
            match op {
                "mul_hi" => h,
                "mad_hi" => t.wrap(h + c),
                // The product alone exceeds every 64-bit value.
                _ => hi,
            }
        }
        "add_sat" => (a + b).clamp(lo, hi),
        "sub_sat" => (a - b).clamp(lo, hi),
        "abs_diff" => (a - b).abs(),
        "hadd" => (a + b).div_euclid(2),
        "rhadd" => (a + b + 1).div_euclid(2),
        "mul_hi" => (a * b) >> t.bits,
        "mad_hi" => t.wrap(((a * b) >> t.bits) + c),
        "mad_sat" => (a * b).saturating_add(c).clamp(lo, hi),
        _ => panic!("{op}"),
    }
}

#[test]
fn integer_builtins_of_every_width() {
    for t in INTS {
        let e = t.edges();
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for x in &e {
            for y in &e {
                a.push(*x);
                b.push(*y);
                c.push(e[(a.len() * 7) % e.len()]);
            }
        }
        for op in [
            "add_sat", "sub_sat", "abs_diff", "hadd", "rhadd", "mul_hi", "mad_hi", "mad_sat",
        ] {
            let three = matches!(op, "mad_hi" | "mad_sat");
            let rt = if op == "abs_diff" { t.unsigned() } else { *t };
            let call = if three {
                format!("{op}(a[i], b[i], c[i])")
            } else {
                format!("{op}(a[i], b[i])")
            };
            let src = format!(
                "kernel void k(global const {0}* a, global const {0}* b, global const {0}* c, global {1}* r) {{ size_t i = get_global_id(0); r[i] = {call}; }}",
                t.name, rt.name
            );
            let k = kernel(&src);
            let n = pad64(a.len());
            let (mut ab, mut bb, mut cb) = (t.bytes(&a), t.bytes(&b), t.bytes(&c));
            let mut rb = vec![0u8; n * 8 + 64];
            run_n(&k, n, &mut [&mut ab, &mut bb, &mut cb, &mut rb]);
            let got = rt.read(&rb, a.len());
            for i in 0..a.len() {
                let want = int_ref(op, *t, a[i], b[i], c[i]);
                assert_eq!(
                    got[i], want,
                    "{op}(({}) {}, {}, {})",
                    t.name, a[i], b[i], c[i]
                );
            }
        }
    }
}

fn f32_edges() -> Vec<f32> {
    let mut rng = Rng(1234);
    f32_inputs(&mut rng, 300, -100.0, 100.0)
}

fn same(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

#[test]
fn frexp_modf_fract_write_both_results() {
    let xs = f32_edges();
    let n = pad64(xs.len());
    for f in ["frexp", "modf", "fract"] {
        let (ot, ob) = if f == "frexp" {
            ("int", 4)
        } else {
            ("float", 4)
        };
        let src = format!("kernel void k(global const float* x, global float* r, global {ot}* o) {{ size_t i = get_global_id(0); {ot} v; r[i] = {f}(x[i], &v); o[i] = v; }}");
        let k = kernel(&src);
        let mut xb = bytes_of(&xs, f32::to_le_bytes);
        let mut rb = vec![0u8; n * 4 + 64];
        let mut obuf = vec![0u8; n * ob + 64];
        run_n(&k, n, &mut [&mut xb, &mut rb, &mut obuf]);
        let r = f32_from(&rb[..xs.len() * 4]);
        for (i, x) in xs.iter().enumerate() {
            match f {
                "frexp" => {
                    let e = i32_from(&obuf[..xs.len() * 4])[i];
                    if x.is_finite() && *x != 0.0 {
                        assert!((0.5..1.0).contains(&r[i].abs()), "frexp({x:e}) = {}", r[i]);
                        assert_eq!(
                            f64::from(r[i]) * 2f64.powi(e),
                            f64::from(*x),
                            "frexp({x:e})"
                        );
                    } else {
                        assert!(same(r[i], *x) && e == 0, "frexp({x:e}) = {}, {e}", r[i]);
                    }
                }
                "modf" => {
                    let ip = f32_from(&obuf[..xs.len() * 4])[i];
                    let want_ip = x.trunc();
                    let want_f = if x.is_infinite() {
                        0f32.copysign(*x)
                    } else {
                        (*x - want_ip).copysign(*x)
                    };
                    assert!(
                        same(ip, want_ip) && same(r[i], want_f),
                        "modf({x:e}) = {}, {ip}",
                        r[i]
                    );
                }
                _ => {
                    let ip = f32_from(&obuf[..xs.len() * 4])[i];
                    let want_ip = x.floor();
                    let want_f = if x.is_nan() {
                        f32::NAN
                    } else if x.is_infinite() {
                        0f32.copysign(*x)
                    } else if *x == 0.0 {
                        *x
                    } else {
                        (*x - want_ip).min(f32::from_bits(0x3f7f_ffff))
                    };
                    assert!(
                        same(ip, want_ip) && same(r[i], want_f),
                        "fract({x:e}) = {}, {ip}",
                        r[i]
                    );
                }
            }
        }
    }
}

#[test]
fn remquo_remainder_fmod_are_exact() {
    let mut rng = Rng(8);
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for _ in 0..2000 {
        xs.push(rng.range(-1e4, 1e4) as f32);
        ys.push(rng.range(-50.0, 50.0) as f32);
    }
    for (x, y) in [
        (5.0f32, 2.0f32),
        (7.0, 2.0),
        (-7.0, 2.0),
        (1e30, 3.0),
        (3.0, 0.0),
        (f32::INFINITY, 1.0),
        (1.0, f32::INFINITY),
        (0.0, 1.0),
        (-0.0, 1.0),
    ] {
        xs.push(x);
        ys.push(y);
    }
    let n = pad64(xs.len());
    let src = "kernel void k(global const float* x, global const float* y, global float* r, global int* q, global float* m, global float* f) { size_t i = get_global_id(0); int qq; r[i] = remquo(x[i], y[i], &qq); q[i] = qq; m[i] = remainder(x[i], y[i]); f[i] = fmod(x[i], y[i]); }";
    let k = kernel(src);
    let mut xb = bytes_of(&xs, f32::to_le_bytes);
    let mut yb = bytes_of(&ys, f32::to_le_bytes);
    let (mut rb, mut qb, mut mb, mut fb) = (
        vec![0u8; n * 4 + 64],
        vec![0u8; n * 4 + 64],
        vec![0u8; n * 4 + 64],
        vec![0u8; n * 4 + 64],
    );
    run_n(
        &k,
        n,
        &mut [&mut xb, &mut yb, &mut rb, &mut qb, &mut mb, &mut fb],
    );
    let (r, q, m, f) = (f32_from(&rb), i32_from(&qb), f32_from(&mb), f32_from(&fb));
    for i in 0..xs.len() {
        let (x, y) = (f64::from(xs[i]), f64::from(ys[i]));
        assert!(same(f[i], xs[i] % ys[i]), "fmod({x}, {y}) = {}", f[i]);
        if !x.is_finite() || y == 0.0 || y.is_nan() {
            assert!(r[i].is_nan() && m[i].is_nan(), "remquo({x}, {y})");
            continue;
        }
        if y.is_infinite() {
            assert!(same(r[i], xs[i]), "remquo({x}, {y})");
            continue;
        }
        if (x / y).abs() > 2f64.powi(40) {
            // The f64 reference below is not exact there; 1e30 mod 3 is
            // checked in math.rs's unit tests.
            assert!(
                r[i].abs() <= ys[i].abs() / 2.0,
                "remquo({x}, {y}) = {}",
                r[i]
            );
            continue;
        }
        // The quotient is exact in f64 here (|x/y| < 2^53 for these inputs).
        let quo = (x / y).round_ties_even();
        let exact = x - quo * y;
        // Correct the rare double rounding of x / y.
        let (quo, exact) =
            if exact.abs() > y.abs() / 2.0 || (exact.abs() == y.abs() / 2.0 && quo % 2.0 != 0.0) {
                let qq = quo
                    + if (exact > 0.0) == (y > 0.0) {
                        1.0
                    } else {
                        -1.0
                    };
                (qq, x - qq * y)
            } else {
                (quo, exact)
            };
        let want = if exact == 0.0 {
            0f64.copysign(x)
        } else {
            exact
        };
        assert!(
            same(r[i], want as f32) && same(m[i], want as f32),
            "remquo({x}, {y}) = {} / {}, want {want}",
            r[i],
            m[i]
        );
        let qa = (quo.abs() as i64 % 128) as i32;
        if qa != 0 {
            assert_eq!(q[i].abs() & 0x7f, qa, "remquo({x}, {y}) quotient");
            assert_eq!(q[i] < 0, quo < 0.0, "remquo({x}, {y}) quotient sign");
        }
    }
}

#[test]
fn ldexp_ilogb_logb_nextafter() {
    let xs = f32_edges();
    let ns: Vec<i32> = (0..xs.len())
        .map(|i| [0, 1, -1, 10, -10, 127, -126, -149, 200, -200, 300][i % 11])
        .collect();
    let n = pad64(xs.len());
    let src = "kernel void k(global const float* x, global const int* e, global float* l, global int* il, global float* lb, global float* nu, global float* nd, global float* nn) { size_t i = get_global_id(0); l[i] = ldexp(x[i], e[i]); il[i] = ilogb(x[i]); lb[i] = logb(x[i]); nu[i] = nextafter(x[i], INFINITY); nd[i] = nextafter(x[i], -INFINITY); }";
    let k = kernel(src);
    let mut xb = bytes_of(&xs, f32::to_le_bytes);
    let mut eb = bytes_of(&ns, i32::to_le_bytes);
    let mut bufs: Vec<Vec<u8>> = (0..5).map(|_| vec![0u8; n * 4 + 64]).collect();
    {
        let [l, il, lb, nu, nd] = &mut bufs[..] else {
            unreachable!()
        };
        run_n(&k, n, &mut [&mut xb, &mut eb, l, il, lb, nu, nd]);
    }
    let l = f32_from(&bufs[0]);
    let il = i32_from(&bufs[1]);
    let lb = f32_from(&bufs[2]);
    let nu = f32_from(&bufs[3]);
    let nd = f32_from(&bufs[4]);
    for (i, x) in xs.iter().enumerate() {
        let want = (f64::from(*x) * 2f64.powi(ns[i])) as f32;
        assert!(
            same(l[i], want),
            "ldexp({x:e}, {}) = {:e}, want {want:e}",
            ns[i],
            l[i]
        );
        let (wi, wb) = if x.is_nan() {
            (i32::MAX, f32::NAN)
        } else if x.is_infinite() {
            (i32::MAX, f32::INFINITY)
        } else if *x == 0.0 {
            (i32::MIN, f32::NEG_INFINITY)
        } else {
            let e = f64::from(x.abs()).log2().floor() as i32;
            // log2 can round up just below a power of two.
            let e = if 2f64.powi(e) > f64::from(x.abs()) {
                e - 1
            } else {
                e
            };
            (e, e as f32)
        };
        assert_eq!(il[i], wi, "ilogb({x:e})");
        assert!(same(lb[i], wb), "logb({x:e}) = {}", lb[i]);
        let up = if x.is_nan() || *x == f32::INFINITY {
            *x
        } else if *x == 0.0 {
            f32::from_bits(1)
        } else if *x > 0.0 {
            f32::from_bits(x.to_bits() + 1)
        } else {
            f32::from_bits(x.to_bits() - 1)
        };
        assert!(same(nu[i], up), "nextafter({x:e}, inf) = {:e}", nu[i]);
        let down = if x.is_nan() || *x == f32::NEG_INFINITY {
            *x
        } else if *x == 0.0 {
            -f32::from_bits(1)
        } else if *x > 0.0 {
            f32::from_bits(x.to_bits() - 1)
        } else {
            f32::from_bits(x.to_bits() + 1)
        };
        assert!(same(nd[i], down), "nextafter({x:e}, -inf) = {:e}", nd[i]);
    }
}

#[test]
fn nan_carries_its_payload() {
    use vecl_ir::{Inst, Type};
    for (ft, it, size) in [(Type::F32, Type::U32, 4usize), (Type::F64, Type::U64, 8)] {
        let m = kernel_module(
            "k",
            vec![param("x", gptr(it.clone())), param("r", gptr(ft.clone()))],
            |b| {
                let (x, r) = (b.param(0), b.param(1));
                let gid = global_id0(b);
                let px = b.push(Inst::Index(x, gid), gptr(it.clone()));
                let pr = b.push(Inst::Index(r, gid), gptr(ft.clone()));
                let v = b.load(px);
                let n = b.push(Inst::Builtin(vecl_ir::Builtin::Nan, vec![v]), ft.clone());
                b.store(pr, n);
            },
        );
        let k = compile(&m, "k", 8);
        let codes: Vec<u64> = (0..64u64).map(|i| i * 0x1_0001 + 1).collect();
        let mut xb: Vec<u8> = codes
            .iter()
            .flat_map(|c| c.to_le_bytes()[..size].to_vec())
            .collect();
        xb.resize(64 * size + 64, 0);
        let mut rb = vec![0u8; 64 * size + 64];
        run_n(&k, 64, &mut [&mut xb, &mut rb]);
        for (i, c) in codes.iter().enumerate() {
            let bits = u64::from_le_bytes({
                let mut w = [0u8; 8];
                w[..size].copy_from_slice(&rb[i * size..(i + 1) * size]);
                w
            });
            let (quiet, payload) = if size == 4 {
                (0x7fc0_0000u64, 0x003f_ffffu64)
            } else {
                (0x7ff8_0000_0000_0000, 0x0007_ffff_ffff_ffff)
            };
            assert_eq!(bits, quiet | (c & payload), "nan({c:#x}) as {ft:?}");
        }
    }
}

#[test]
fn lgamma_r_writes_the_sign() {
    let xs: Vec<f32> = vec![0.5, 1.0, 2.0, 3.5, 10.0, -0.5, -1.5, -2.5, 0.1, 30.0];
    let n = pad64(xs.len());
    let src = "kernel void k(global const float* x, global float* r, global int* s, global float* g, global float* t) { size_t i = get_global_id(0); int sg; r[i] = lgamma_r(x[i], &sg); s[i] = sg; g[i] = lgamma(x[i]); t[i] = tgamma(x[i]); }";
    let k = kernel(src);
    let mut xb = bytes_of(&xs, f32::to_le_bytes);
    let (mut rb, mut sb, mut gb, mut tb) = (
        vec![0u8; n * 4 + 64],
        vec![0u8; n * 4 + 64],
        vec![0u8; n * 4 + 64],
        vec![0u8; n * 4 + 64],
    );
    run_n(&k, n, &mut [&mut xb, &mut rb, &mut sb, &mut gb, &mut tb]);
    let (r, s, g, t) = (f32_from(&rb), i32_from(&sb), f32_from(&gb), f32_from(&tb));
    for (i, x) in xs.iter().enumerate() {
        let tg = f64::from(t[i]);
        let e = ulp_f32(r[i], tg.abs().ln(), false).unwrap_or(f64::INFINITY);
        assert!(
            e <= 64.0,
            "lgamma_r({x}) = {} vs ln|tgamma| {}",
            r[i],
            tg.abs().ln()
        );
        assert_eq!(s[i], if tg < 0.0 { -1 } else { 1 }, "lgamma_r({x}) sign");
        assert_eq!(r[i], g[i], "lgamma({x})");
    }
    assert!((t[3] - 3.323_351).abs() < 1e-6, "tgamma(3.5) = {}", t[3]);
}

#[test]
fn relationals_shuffles_upsample_and_magnitudes() {
    let src = r#"
kernel void k(global const float* x, global const float* y, global int* rel, global float* mm, global int4* sh, global long* up) {
    size_t i = get_global_id(0);
    float a = x[i], b = y[i];
    rel[i] = isequal(a, b) | isnotequal(a, b) << 1 | isgreater(a, b) << 2 | isgreaterequal(a, b) << 3
           | isless(a, b) << 4 | islessequal(a, b) << 5 | islessgreater(a, b) << 6 | isordered(a, b) << 7
           | isunordered(a, b) << 8;
    mm[3 * i] = maxmag(a, b);
    mm[3 * i + 1] = minmag(a, b);
    mm[3 * i + 2] = sign(a);
    int4 v = (int4)(10, 20, 30, (int)i);
    int4 w = (int4)(50, 60, 70, 80);
    uint4 m = (uint4)((uint)i, (uint)i + 1u, 3u, 6u);
    sh[2 * i] = shuffle(v, m);
    sh[2 * i + 1] = shuffle2(v, w, m);
    up[i] = upsample((int)i - 3, (uint)(i * 0x10001u));
}
"#;
    let k = kernel(src);
    let vals = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -2.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.0,
    ];
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for a in vals {
        for b in vals {
            xs.push(a);
            ys.push(b);
        }
    }
    let n = pad64(xs.len());
    let mut xb = bytes_of(&xs, f32::to_le_bytes);
    let mut yb = bytes_of(&ys, f32::to_le_bytes);
    let mut rel = vec![0u8; n * 4 + 64];
    let mut mm = vec![0u8; n * 12 + 64];
    let mut sh = vec![0u8; n * 32 + 64];
    let mut up = vec![0u8; n * 8 + 64];
    run_n(
        &k,
        n,
        &mut [&mut xb, &mut yb, &mut rel, &mut mm, &mut sh, &mut up],
    );
    let rel = i32_from(&rel);
    let mm = f32_from(&mm);
    let sh = i32_from(&sh);
    for i in 0..xs.len() {
        let (a, b) = (xs[i], ys[i]);
        let un = a.is_nan() || b.is_nan();
        let want = i32::from(a == b)
            | i32::from(a != b) << 1
            | i32::from(a > b) << 2
            | i32::from(a >= b) << 3
            | i32::from(a < b) << 4
            | i32::from(a <= b) << 5
            | i32::from(!un && a != b) << 6
            | i32::from(!un) << 7
            | i32::from(un) << 8;
        assert_eq!(rel[i], want, "relationals({a}, {b})");
        let (ma, mb) = (a.abs(), b.abs());
        // The larger (smaller) magnitude wins; otherwise fmax (fmin), whose
        // NaN rule Rust's max/min share.
        let wmax = match ma.partial_cmp(&mb) {
            Some(std::cmp::Ordering::Greater) => a,
            Some(std::cmp::Ordering::Less) => b,
            _ => a.max(b),
        };
        let wmin = match ma.partial_cmp(&mb) {
            Some(std::cmp::Ordering::Less) => a,
            Some(std::cmp::Ordering::Greater) => b,
            _ => a.min(b),
        };
        // fmax/fmin may return either zero for ±0.
        let eq = |r: f32, w: f32| same(r, w) || (r == 0.0 && w == 0.0);
        assert!(eq(mm[3 * i], wmax), "maxmag({a}, {b}) = {}", mm[3 * i]);
        assert!(
            eq(mm[3 * i + 1], wmin),
            "minmag({a}, {b}) = {}",
            mm[3 * i + 1]
        );
        let ws = if a.is_nan() {
            0.0
        } else if a > 0.0 {
            1.0
        } else if a < 0.0 {
            -1.0
        } else {
            a
        };
        assert!(same(mm[3 * i + 2], ws), "sign({a})");
    }
    for i in 0..n {
        let v = [10, 20, 30, i as i32];
        let w = [50, 60, 70, 80];
        let m = [i, i + 1, 3, 6];
        for c in 0..4 {
            assert_eq!(sh[8 * i + c], v[m[c] & 3], "shuffle item {i} comp {c}");
            let j = m[c] & 7;
            let want2 = if j < 4 { v[j] } else { w[j - 4] };
            assert_eq!(sh[8 * i + 4 + c], want2, "shuffle2 item {i} comp {c}");
        }
        let u = i64::from_le_bytes(up[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
        let want = (i64::from(i as i32 - 3) << 32) | i64::from((i as u32).wrapping_mul(0x10001));
        assert_eq!(u, want, "upsample item {i}");
    }
}

#[test]
fn half_loads_and_stores_in_every_mode() {
    let mut rng = Rng(17);
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        65504.0,
        65520.0,
        1e6,
        -1e6,
        6.1e-5,
        5.96e-8,
        2.98e-8,
        1e-10,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0 + 1.0 / 2048.0,
        -(1.0 + 1.0 / 2048.0),
        1.0 + 3.0 / 2048.0,
    ];
    for _ in 0..400 {
        xs.push(rng.range(-70000.0, 70000.0) as f32);
        xs.push((rng.range(-1.0, 1.0) * 1e-4) as f32);
    }
    xs.truncate(xs.len() / 4 * 4);
    let n = pad64(xs.len());
    for mode in ["", "_rte", "_rtz", "_rtp", "_rtn"] {
        let src = format!("kernel void k(global const float* x, global half* h, global float* back, global half* h4) {{ size_t i = get_global_id(0); vstore_half{mode}(x[i], i, h); barrier(CLK_GLOBAL_MEM_FENCE); back[i] = vload_half(i, h); if (i % 4 == 0) vstorea_half4{mode}(vload4(i / 4, x), i / 4, h4); }}");
        let k = kernel(&src);
        let mut xb = bytes_of(&xs, f32::to_le_bytes);
        let mut hb = vec![0u8; n * 2 + 64];
        let mut bb = vec![0u8; n * 4 + 64];
        let mut h4 = vec![0u8; n * 2 + 64];
        run_n(&k, n, &mut [&mut xb, &mut hb, &mut bb, &mut h4]);
        let back = f32_from(&bb);
        for (i, x) in xs.iter().enumerate() {
            let h = u16::from_le_bytes([hb[2 * i], hb[2 * i + 1]]);
            let h_4 = u16::from_le_bytes([h4[2 * i], h4[2 * i + 1]]);
            let want = half_ref(f64::from(*x), mode);
            if x.is_nan() {
                assert!(
                    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0,
                    "vstore_half{mode}(NaN)"
                );
                assert!(back[i].is_nan(), "vload_half(NaN)");
                continue;
            }
            assert_eq!(h, want, "vstore_half{mode}({x:e})");
            assert_eq!(h_4, want, "vstorea_half4{mode}({x:e})");
            assert!(
                same(back[i], half_value(want)),
                "vload_half({h:#x}) = {}",
                back[i]
            );
        }
    }
}

fn half_value(h: u16) -> f32 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    let v = match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    };
    (s * v) as f32
}

/// The half with the given rounding, found by searching the ordered
/// half values around `x`.
fn half_ref(x: f64, mode: &str) -> u16 {
    let neg = x.is_sign_negative();
    let a = x.abs();
    // Largest non-negative half ≤ a (0x7c00 is inf).
    let mut lo = 0u16;
    for h in 0u16..=0x7c00 {
        if f64::from(half_value(h)) <= a {
            lo = h;
        } else {
            break;
        }
    }
    let vlo = f64::from(half_value(lo));
    let mag = if vlo == a || lo == 0x7c00 {
        lo
    } else {
        let hi = lo + 1;
        let vhi = if hi == 0x7c00 {
            65520.0
        } else {
            f64::from(half_value(hi))
        };
        let toward_zero = lo;
        let away = hi;
        match (mode, neg) {
            ("_rtz", _) | ("_rtp", true) | ("_rtn", false) => toward_zero,
            ("_rtp", false) | ("_rtn", true) => away,
            _ => {
                // Nearest, ties to even; 65520 and above round to inf.
                if a - vlo < vhi - a || (a - vlo == vhi - a && lo.is_multiple_of(2)) {
                    lo
                } else {
                    hi
                }
            }
        }
    };
    if neg {
        mag | 0x8000
    } else {
        mag
    }
}

/// `popcount` of 32-bit lanes and `rotate` of them by an amount equal in
/// every lane, on whole pieces (`bits_in_vector`), next to the per-lane
/// forms (a varying amount, narrower types): amounts 0, 1, 31, 32, 33,
/// negative ones, `int4`/`uint2` components, against the interpreter.
#[test]
fn popcount_and_uniform_rotate_match_interpreter() {
    let src = "kernel void k(global const int* a, global int* o, int n) {
        size_t g = get_global_id(0);
        int x = a[g] * 0x9E3779B1;
        uint u = (uint)x ^ 0xF0F0F00Fu;
        int r = popcount(x) + 3 * (int)popcount(u);
        r ^= rotate(x, n) + (int)rotate(u, (uint)n + 1u);
        r += rotate(x, 0) - rotate(x, 32) + rotate(x, -5);
        r ^= rotate(x, x & 63);
        int4 v = (int4)(x, ~x, x >> 3, 0x7FFFFFFF);
        int4 pv = popcount(v);
        uint2 w = rotate((uint2)(u, u >> 7), (uint2)(n));
        short s = popcount((short)x) + rotate((short)x, (short)3);
        r += pv.x + 2 * pv.y + 3 * pv.z + 4 * pv.w + (int)w.x - (int)w.y + s;
        o[g] = r;
    }";
    for n in [0, 1, 7, 31, 32, 33, -1, -31] {
        let launches = differential(src, "k", &chunk_edges_1d(), |r| {
            let len = (r.global_offset[0] + r.global_size[0]) as usize + 8;
            vec![Spec::Ints(len, 3), Spec::Ints(len, 0), Spec::Int(n)]
        });
        assert_eq!(launches, chunk_edges_1d().len() * WIDTHS.len(), "{n}");
    }
}

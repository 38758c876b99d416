//! `convert_T[_sat][_rte|_rtz|_rtp|_rtn]` on edge values, for every rounding
//! mode: float/double → every integer type (saturated: exact; plain: the
//! values in range), integer → float/double, double → float, and integer →
//! integer saturation. References are computed exactly on the host (i128
//! and f64 comparisons).

mod math_support;

use math_support::*;

const MODES: &[&str] = &["", "_rte", "_rtz", "_rtp", "_rtn"];

fn round_mode(x: f64, mode: &str) -> f64 {
    match mode {
        "_rte" => x.round_ties_even(),
        "_rtp" => x.ceil(),
        "_rtn" => x.floor(),
        _ => x.trunc(),
    }
}

fn float_edges() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.499_999_970_197_677_6,
        0.500_000_059_604_644_8,
        -0.499_999_970_197_677_6,
        1.0,
        -1.0,
        f64::from(f32::from_bits(1)),
        -f64::from(f32::from_bits(1)),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e30,
        -1e30,
    ];
    for t in INTS {
        let (lo, hi) = t.range();
        for e in [lo as f64, hi as f64] {
            for d in [-1.0, -0.5, 0.0, 0.5, 1.0] {
                v.push(e + d);
            }
            // Neighbouring floats of the limit.
            let f = e as f32;
            v.push(f64::from(f32::from_bits(f.to_bits().wrapping_add(1))));
            v.push(f64::from(f32::from_bits(f.to_bits().wrapping_sub(1))));
        }
    }
    v
}

#[test]
fn float_to_int_every_mode_and_saturation() {
    let xs = float_edges();
    let mut checked = 0;
    for (fname, fsize) in [("float", 4usize), ("double", 8)] {
        let vals: Vec<f64> = if fsize == 4 {
            xs.iter().map(|x| f64::from(*x as f32)).collect()
        } else {
            xs.clone()
        };
        for t in INTS {
            for mode in MODES {
                for sat in [true, false] {
                    let conv = format!(
                        "convert_{}{}{}",
                        t.name,
                        if sat { "_sat" } else { "" },
                        mode
                    );
                    let src = format!("kernel void k(global const {fname}* x, global {}* r) {{ size_t i = get_global_id(0); r[i] = {conv}(x[i]); }}", t.name);
                    let k = kernel(&src);
                    let n = pad64(vals.len());
                    let mut xb = if fsize == 4 {
                        let f: Vec<f32> = vals.iter().map(|v| *v as f32).collect();
                        bytes_of(&f, f32::to_le_bytes)
                    } else {
                        bytes_of(&vals, f64::to_le_bytes)
                    };
                    let mut rb = vec![0u8; n * 8 + 64];
                    run_n(&k, n, &mut [&mut xb, &mut rb]);
                    let got = t.read(&rb, vals.len());
                    let (lo, hi) = t.range();
                    for (x, r) in vals.iter().zip(&got) {
                        let rounded = round_mode(*x, mode);
                        // f64 → i128 saturates; every f32 and these doubles fit.
                        let ri = rounded as i128;
                        let in_range = !x.is_nan() && ri >= lo && ri <= hi;
                        let want = if x.is_nan() { 0 } else { ri.clamp(lo, hi) };
                        if sat || in_range {
                            assert_eq!(*r, want, "{conv}({x:e}) from {fname}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    println!("{checked} float→int conversions checked");
}

/// The float nearest to `x` in a mode, found by exact comparisons.
fn int_to_float_ref(x: i128, mode: &str, double: bool) -> f64 {
    let (near, up, down): (f64, f64, f64) = if double {
        let r = x as f64;
        (r, next_up64(r), next_down64(r))
    } else {
        let r = x as f32;
        (
            f64::from(r),
            f64::from(next_up32(r)),
            f64::from(next_down32(r)),
        )
    };
    let cmp = x.cmp(&(near as i128));
    use std::cmp::Ordering::*;
    match (mode, cmp) {
        (_, Equal) | ("", _) | ("_rte", _) => near,
        ("_rtp", Greater) => up,
        ("_rtn", Less) => down,
        ("_rtz", Greater) if near < 0.0 => up,
        ("_rtz", Less) if near > 0.0 => down,
        _ => near,
    }
}

fn next_up32(x: f32) -> f32 {
    if x >= 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}
fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}
fn next_up64(x: f64) -> f64 {
    if x >= 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}
fn next_down64(x: f64) -> f64 {
    -next_up64(-x)
}

#[test]
fn int_to_float_every_mode() {
    let mut rng = Rng(11);
    let mut checked = 0;
    for t in INTS {
        let (lo, hi) = t.range();
        let mut xs: Vec<i128> = vec![0, 1, 2, 3, lo, hi, lo + 1, hi - 1, hi / 2, lo / 2];
        for k in [24u32, 25, 31, 53, 54, 62, 63] {
            for d in [-3i128, -1, 1, 3] {
                let v = (1i128 << k) + d;
                for s in [v, -v] {
                    if s >= lo && s <= hi {
                        xs.push(s);
                    }
                }
            }
        }
        for _ in 0..300 {
            let span = (hi - lo) as u128;
            let r = (u128::from(rng.next()) << 64 | u128::from(rng.next())) % (span + 1);
            xs.push(lo + r as i128);
        }
        for (fname, double) in [("float", false), ("double", true)] {
            for mode in MODES {
                let conv = format!("convert_{fname}{mode}");
                let src = format!("kernel void k(global const {}* x, global {fname}* r) {{ size_t i = get_global_id(0); r[i] = {conv}(x[i]); }}", t.name);
                let k = kernel(&src);
                let n = pad64(xs.len());
                let mut xb = t.bytes(&xs);
                let mut rb = vec![0u8; n * 8 + 64];
                run_n(&k, n, &mut [&mut xb, &mut rb]);
                let got: Vec<f64> = if double {
                    f64_from(&rb[..xs.len() * 8])
                } else {
                    f32_from(&rb[..xs.len() * 4])
                        .into_iter()
                        .map(f64::from)
                        .collect()
                };
                for (x, r) in xs.iter().zip(&got) {
                    let want = int_to_float_ref(*x, mode, double);
                    assert_eq!(*r, want, "{conv}(({}){x})", t.name);
                    checked += 1;
                }
            }
        }
    }
    println!("{checked} int→float conversions checked");
}

#[test]
fn double_to_float_every_mode() {
    let mut xs: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::from(f32::MAX) * 1.5,
        -f64::from(f32::MAX) * 1.5,
        f64::from(f32::MAX),
        1e-50,
        -1e-50,
        f64::from(f32::from_bits(1)) * 0.5,
        f64::from(f32::from_bits(1)) * 1.5,
        f64::from(f32::MIN_POSITIVE) * 0.75,
    ];
    let mut rng = Rng(21);
    for _ in 0..500 {
        let f = f32::from_bits(rng.next() as u32);
        if !f.is_finite() {
            continue;
        }
        let x = f64::from(f);
        let ulp = f64::from(next_up32(f.abs())) - f64::from(f.abs());
        // Exactly halfway, and just either side of it.
        xs.push(x + ulp * 0.5);
        xs.push(x + ulp * 0.25);
        xs.push(x + ulp * 0.75);
        xs.push(x);
    }
    for mode in MODES {
        let conv = format!("convert_float{mode}");
        let src = format!("kernel void k(global const double* x, global float* r) {{ size_t i = get_global_id(0); r[i] = {conv}(x[i]); }}");
        let k = kernel(&src);
        let n = pad64(xs.len());
        let mut xb = bytes_of(&xs, f64::to_le_bytes);
        let mut rb = vec![0u8; n * 4 + 64];
        run_n(&k, n, &mut [&mut xb, &mut rb]);
        let got = f32_from(&rb[..xs.len() * 4]);
        for (x, r) in xs.iter().zip(&got) {
            if x.is_nan() {
                assert!(r.is_nan(), "{conv}(NaN)");
                continue;
            }
            let near = *x as f32;
            let n64 = f64::from(near);
            let want = match *mode {
                "_rtp" if n64 < *x => next_up32(near),
                "_rtn" if n64 > *x => next_down32(near),
                "_rtz" if n64.abs() > x.abs() => {
                    if near > 0.0 {
                        next_down32(near)
                    } else {
                        next_up32(near)
                    }
                }
                _ => near,
            };
            assert_eq!(r.to_bits(), want.to_bits(), "{conv}({x:e})");
        }
    }
}

#[test]
fn int_to_int_saturation() {
    for from in INTS {
        let (flo, fhi) = from.range();
        let xs: Vec<i128> = vec![
            flo,
            fhi,
            0,
            1,
            -1i128.max(flo),
            127,
            128,
            255,
            256,
            -128,
            -129,
            32767,
            32768,
            65535,
            65536,
            fhi / 2,
            flo / 2,
        ]
        .into_iter()
        .filter(|v| *v >= flo && *v <= fhi)
        .collect();
        for to in INTS {
            let src = format!("kernel void k(global const {}* x, global {}* r) {{ size_t i = get_global_id(0); r[i] = convert_{}_sat(x[i]); }}", from.name, to.name, to.name);
            let k = kernel(&src);
            let n = pad64(xs.len());
            let mut xb = from.bytes(&xs);
            let mut rb = vec![0u8; n * 8 + 64];
            run_n(&k, n, &mut [&mut xb, &mut rb]);
            let got = to.read(&rb, xs.len());
            let (lo, hi) = to.range();
            for (x, r) in xs.iter().zip(&got) {
                assert_eq!(
                    *r,
                    (*x).clamp(lo, hi),
                    "convert_{}_sat(({}){x})",
                    to.name,
                    from.name
                );
            }
        }
    }
}

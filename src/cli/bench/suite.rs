//! The benchmark suite: each kernel of `benches/` with its inputs, sizes
//! (full and `--quick`) and host reference.
//!
//! Inputs come from a fixed-seed generator, so every platform sees the same
//! data. References are computed on the host in the same precision (n-body's
//! in double, with a tolerance from the size of its float sums); checks
//! compare exactly where the arithmetic is exact (integers) and with a
//! tolerance where the kernels may use fused or differently-rounded float
//! operations. Large outputs are checked at a sample of positions.

use super::workload::{ArgSpec, Metric, Workload};

const VADD: &str = include_str!("../../../benches/vadd.cl");
const SAXPY: &str = include_str!("../../../benches/saxpy.cl");
const REDUCE: &str = include_str!("../../../benches/reduce.cl");
const MATMUL: &str = include_str!("../../../benches/matmul.cl");
const NBODY: &str = include_str!("../../../benches/nbody.cl");
const MANDELBROT: &str = include_str!("../../../benches/mandelbrot.cl");
const BLACKSCHOLES: &str = include_str!("../../../benches/blackscholes.cl");
const HISTOGRAM: &str = include_str!("../../../benches/histogram.cl");
const SCAN: &str = include_str!("../../../benches/scan.cl");
const REDUCE_SUB_GROUP: &str = include_str!("../../../benches/reduce_sub_group.cl");
const SCAN_WORK_GROUP: &str = include_str!("../../../benches/scan_work_group.cl");
const CONV5X5: &str = include_str!("../../../benches/conv5x5.cl");
const EMPTY: &str = include_str!("../../../benches/empty.cl");
const BARRIERS: &str = include_str!("../../../benches/barriers.cl");

/// Every kernel file of `benches/`, by file name.
pub const SOURCES: &[(&str, &str)] = &[
    ("vadd.cl", VADD),
    ("saxpy.cl", SAXPY),
    ("reduce.cl", REDUCE),
    ("matmul.cl", MATMUL),
    ("nbody.cl", NBODY),
    ("mandelbrot.cl", MANDELBROT),
    ("blackscholes.cl", BLACKSCHOLES),
    ("histogram.cl", HISTOGRAM),
    ("scan.cl", SCAN),
    ("reduce_sub_group.cl", REDUCE_SUB_GROUP),
    ("scan_work_group.cl", SCAN_WORK_GROUP),
    ("conv5x5.cl", CONV5X5),
    ("empty.cl", EMPTY),
    ("barriers.cl", BARRIERS),
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A float in `[lo, hi)`.
    fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
}

fn floats(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..n).map(|_| rng.float(lo, hi)).collect()
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn i32_bytes(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn as_f32(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn as_i32(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `|got - want| <= tol * max(1, |want|)`.
fn close(got: f32, want: f32, tol: f32) -> bool {
    (got - want).abs() <= tol * want.abs().max(1.0)
}

/// Compares `got[i]` with `want(i)` at every index (or a sample of them).
fn check_floats(
    got: &[f32],
    len: usize,
    tol: f32,
    sample: bool,
    want: impl Fn(usize) -> f32,
) -> Result<(), String> {
    if got.len() != len {
        return Err(format!("{} values, expected {len}", got.len()));
    }
    let step = if sample { (len / 4096).max(1) } else { 1 };
    for i in (0..len).step_by(step).chain(std::iter::once(len - 1)) {
        let w = want(i);
        if !close(got[i], w, tol) {
            return Err(format!("element {i}: got {}, expected {w}", got[i]));
        }
    }
    Ok(())
}

fn n_label(n: usize, what: &str) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M {what}", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{}K {what}", n >> 10)
    } else {
        format!("{n} {what}")
    }
}

/// Floats of vadd and saxpy, the memory-bound kernels.
pub fn stream_len(quick: bool) -> usize {
    if quick {
        1 << 16
    } else {
        16 << 20
    }
}

/// The suite at full (`quick == false`) or test sizes.
pub fn workloads(quick: bool) -> Vec<Workload> {
    workloads_where(quick, |_| true)
}

/// The workloads of the suite whose names `keep` accepts, in suite order;
/// the others' inputs are never made (a child process measuring a few
/// rows does not generate the gigabyte of the rest).
pub fn workloads_where(quick: bool, keep: impl Fn(&str) -> bool) -> Vec<Workload> {
    let reps = if quick { 1 } else { 5 };
    let pick = move |full: usize, small: usize| if quick { small } else { full };
    let makers: Vec<(&str, Box<dyn Fn() -> Workload>)> = vec![
        (
            "vadd",
            Box::new(move || vadd(stream_len(quick), reps, Metric::RunTime, "vadd")),
        ),
        ("saxpy", Box::new(move || saxpy(stream_len(quick), reps))),
        (
            "reduce",
            Box::new(move || reduce(pick(16 << 20, 1 << 16), reps)),
        ),
        (
            "reduce (sub-group)",
            Box::new(move || {
                reduce_with(
                    pick(16 << 20, 1 << 16),
                    reps,
                    "reduce (sub-group)",
                    REDUCE_SUB_GROUP,
                    "reduce_sub_group",
                )
            }),
        ),
        ("matmul", Box::new(move || matmul(pick(1024, 64), reps))),
        ("nbody", Box::new(move || nbody(pick(16384, 512), reps))),
        (
            "mandelbrot",
            Box::new(move || mandelbrot(pick(1024, 128), reps)),
        ),
        (
            "blackscholes",
            Box::new(move || blackscholes(pick(4 << 20, 1 << 16), reps)),
        ),
        (
            "histogram",
            Box::new(move || histogram(pick(16 << 20, 1 << 18), reps)),
        ),
        (
            "scan",
            Box::new(move || scan(pick(16 << 20, 1 << 16), reps)),
        ),
        (
            "scan (work-group)",
            Box::new(move || {
                scan_with(
                    pick(16 << 20, 1 << 16),
                    reps,
                    "scan (work-group)",
                    SCAN_WORK_GROUP,
                    "scan_work_group",
                )
            }),
        ),
        ("conv5x5", Box::new(move || conv5x5(pick(2048, 128), reps))),
        (
            "empty-kernel latency",
            Box::new(move || empty(if quick { 10 } else { 200 })),
        ),
        (
            "barriers (64 rounds)",
            Box::new(move || barriers(pick(16384, 1024), 64, reps)),
        ),
        (
            "barriers (0 rounds)",
            Box::new(move || barriers(pick(16384, 1024), 0, reps)),
        ),
        (
            "source-to-first-result",
            Box::new(|| vadd(1 << 16, 1, Metric::FirstResult, "source-to-first-result")),
        ),
        (
            "first-result, new source",
            Box::new(|| {
                fresh_source(vadd(
                    1 << 16,
                    1,
                    Metric::FirstResult,
                    "first-result, new source",
                ))
            }),
        ),
    ];
    makers
        .into_iter()
        .filter(|(name, _)| keep(name))
        .map(|(name, make)| {
            let work = make();
            debug_assert_eq!(work.name, name, "a workload under another name");
            work
        })
        .collect()
}

/// The workload with a small kernel unique to this run appended to its
/// source, so that no platform's program cache has seen the program (a
/// comment would not do: a cache may key on the preprocessed source). The
/// time then includes a real compile everywhere.
fn fresh_source(mut work: Workload) -> Workload {
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    work.source = format!(
        "{}\nkernel void unused_{nonce:x}(global int *p) {{ p[0] = {}; }}\n",
        work.source,
        nonce % 1_000_000
    )
    .into();
    work
}

fn vadd(n: usize, reps: usize, metric: Metric, name: &'static str) -> Workload {
    let a = floats(n, -1.0, 1.0, 1);
    let b = floats(n, -1.0, 1.0, 2);
    let (ra, rb) = (a.clone(), b.clone());
    Workload {
        name,
        size: n_label(n, "floats"),
        source: VADD.into(),
        kernel: "vadd",
        args: vec![
            ArgSpec::In(f32_bytes(&a)),
            ArgSpec::In(f32_bytes(&b)),
            ArgSpec::Out(4 * n),
        ],
        global: vec![n as u64],
        local: None,
        reps,
        // Reads a and b, writes c.
        bytes_moved: Some(3 * 4 * n as u64),
        metric,
        check: Box::new(move |out| {
            check_floats(&as_f32(&out[0]), n, 0.0, false, |i| ra[i] + rb[i])
        }),
    }
}

fn saxpy(n: usize, reps: usize) -> Workload {
    let alpha = 2.5f32;
    let x = floats(n, -1.0, 1.0, 3);
    let y = floats(n, -1.0, 1.0, 4);
    let (rx, ry) = (x.clone(), y.clone());
    Workload {
        name: "saxpy",
        size: n_label(n, "floats"),
        source: SAXPY.into(),
        kernel: "saxpy",
        args: vec![
            ArgSpec::Scalar(alpha.to_le_bytes().to_vec()),
            ArgSpec::In(f32_bytes(&x)),
            ArgSpec::InOut(f32_bytes(&y)),
        ],
        global: vec![n as u64],
        local: None,
        reps,
        // Reads x and y, writes y.
        bytes_moved: Some(3 * 4 * n as u64),
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            check_floats(&as_f32(&out[0]), n, 1e-6, false, |i| alpha * rx[i] + ry[i])
        }),
    }
}

fn reduce(n: usize, reps: usize) -> Workload {
    reduce_with(n, reps, "reduce", REDUCE, "reduce")
}

/// A per-group float sum: the `__local` tree of `reduce.cl`, or another
/// kernel with its arguments (`reduce_sub_group.cl`).
fn reduce_with(
    n: usize,
    reps: usize,
    name: &'static str,
    source: &'static str,
    kernel: &'static str,
) -> Workload {
    const LOCAL: usize = 256;
    let x = floats(n, 0.0, 1.0, 5);
    let rx = x.clone();
    Workload {
        name,
        size: n_label(n, "floats"),
        source: source.into(),
        kernel,
        args: vec![
            ArgSpec::In(f32_bytes(&x)),
            ArgSpec::Out(4 * n / LOCAL),
            ArgSpec::Local(4 * LOCAL),
        ],
        global: vec![n as u64],
        local: Some(vec![LOCAL as u64]),
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            check_floats(&as_f32(&out[0]), n / LOCAL, 1e-4, false, |g| {
                rx[g * LOCAL..(g + 1) * LOCAL]
                    .iter()
                    .map(|&v| f64::from(v))
                    .sum::<f64>() as f32
            })
        }),
    }
}

fn matmul(n: usize, reps: usize) -> Workload {
    let a = floats(n * n, -1.0, 1.0, 6);
    let b = floats(n * n, -1.0, 1.0, 7);
    let (ra, rb) = (a.clone(), b.clone());
    Workload {
        name: "matmul",
        size: format!("{n}x{n} floats"),
        source: MATMUL.into(),
        kernel: "matmul",
        args: vec![
            ArgSpec::In(f32_bytes(&a)),
            ArgSpec::In(f32_bytes(&b)),
            ArgSpec::Out(4 * n * n),
            ArgSpec::Scalar((n as i32).to_le_bytes().to_vec()),
        ],
        global: vec![n as u64, n as u64],
        local: Some(vec![16, 16]),
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            check_floats(&as_f32(&out[0]), n * n, 1e-3, true, |i| {
                let (row, col) = (i / n, i % n);
                (0..n)
                    .map(|k| f64::from(ra[row * n + k]) * f64::from(rb[k * n + col]))
                    .sum::<f64>() as f32
            })
        }),
    }
}

/// The host reference of one body's step, in double precision: new
/// position and velocity, and per component the sum of the magnitudes of
/// the acceleration terms (what a float sum's rounding error scales with).
struct BodyStep {
    pos: [f64; 4],
    vel: [f64; 4],
    abs_acc: [f64; 3],
}

fn nbody_step(pos: &[f32], vel: &[f32], i: usize, dt: f32, eps2: f32) -> BodyStep {
    let p: Vec<f64> = pos[4 * i..4 * i + 4]
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    let (mut acc, mut abs_acc) = ([0f64; 3], [0f64; 3]);
    for q in pos.chunks_exact(4) {
        let d = [
            f64::from(q[0]) - p[0],
            f64::from(q[1]) - p[1],
            f64::from(q[2]) - p[2],
        ];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + f64::from(eps2);
        let inv = 1.0 / r2.sqrt();
        let s = f64::from(q[3]) * inv * inv * inv;
        for k in 0..3 {
            acc[k] += d[k] * s;
            abs_acc[k] += (d[k] * s).abs();
        }
    }
    let dt = f64::from(dt);
    let mut v: [f64; 4] = std::array::from_fn(|k| f64::from(vel[4 * i + k]));
    let mut np = [p[0], p[1], p[2], p[3]];
    for k in 0..3 {
        v[k] += acc[k] * dt;
        np[k] += v[k] * dt;
    }
    BodyStep {
        pos: np,
        vel: v,
        abs_acc,
    }
}

/// Relative error allowed on an acceleration component, as a fraction of
/// the sum of its terms' magnitudes. A float sum of 16K terms, each with
/// rsqrt's 2 ulp, stays within a few 1e-6 of that sum in simulation; leaving
/// out one 256-body tile moves the result by about 1e-3 of it.
const NBODY_ACC_TOL: f64 = 1e-4;

fn nbody(n: usize, reps: usize) -> Workload {
    const LOCAL: usize = 256;
    let (dt, eps2) = (0.01f32, 0.01f32);
    let mut pos = floats(4 * n, -1.0, 1.0, 8);
    for body in pos.chunks_exact_mut(4) {
        body[3] = (body[3] + 1.0) * 0.5 + 0.1; // mass in (0.1, 1.1)
    }
    let vel = floats(4 * n, -0.1, 0.1, 9);
    let (rp, rv) = (pos.clone(), vel.clone());
    Workload {
        name: "nbody",
        size: format!("{} bodies, {LOCAL}-body tiles", n_label(n, "").trim_end()),
        source: NBODY.into(),
        kernel: "nbody",
        args: vec![
            ArgSpec::In(f32_bytes(&pos)),
            ArgSpec::In(f32_bytes(&vel)),
            ArgSpec::Out(16 * n),
            ArgSpec::Out(16 * n),
            ArgSpec::Local(16 * LOCAL),
            ArgSpec::Scalar((n as i32).to_le_bytes().to_vec()),
            ArgSpec::Scalar(dt.to_le_bytes().to_vec()),
            ArgSpec::Scalar(eps2.to_le_bytes().to_vec()),
        ],
        global: vec![n as u64],
        local: Some(vec![LOCAL as u64]),
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            let (p, v) = (as_f32(&out[0]), as_f32(&out[1]));
            if p.len() != 4 * n || v.len() != 4 * n {
                return Err(format!(
                    "{} and {} floats, expected {}",
                    p.len(),
                    v.len(),
                    4 * n
                ));
            }
            // 64 bodies spread over every work-group, and the last one.
            for i in (0..n)
                .step_by((n / 64).max(1))
                .chain(std::iter::once(n - 1))
            {
                let want = nbody_step(&rp, &rv, i, dt, eps2);
                for k in 0..4 {
                    let acc_tol = want.abs_acc.get(k).map_or(0.0, |a| NBODY_ACC_TOL * a);
                    let v_tol = 1e-6 * want.vel[k].abs().max(1.0) + acc_tol * f64::from(dt);
                    let p_tol = 1e-6 * want.pos[k].abs().max(1.0) + v_tol * f64::from(dt);
                    let (gp, gv) = (f64::from(p[4 * i + k]), f64::from(v[4 * i + k]));
                    if (gv - want.vel[k]).abs() > v_tol || (gp - want.pos[k]).abs() > p_tol {
                        return Err(format!(
                            "body {i}: got position {:?} velocity {:?}, expected {:?} {:?}",
                            &p[4 * i..4 * i + 4],
                            &v[4 * i..4 * i + 4],
                            want.pos,
                            want.vel
                        ));
                    }
                }
            }
            Ok(())
        }),
    }
}

fn mandelbrot(side: usize, reps: usize) -> Workload {
    let max_iter = 256;
    let reference = move |x: usize, y: usize| -> i32 {
        let cr = -2.0f32 + 3.0 * x as f32 / side as f32;
        let ci = -1.5f32 + 3.0 * y as f32 / side as f32;
        let (mut zr, mut zi, mut i) = (0f32, 0f32, 0);
        while i < max_iter && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            i += 1;
        }
        i
    };
    Workload {
        name: "mandelbrot",
        size: format!("{side}x{side}, {max_iter} iterations"),
        source: MANDELBROT.into(),
        kernel: "mandelbrot",
        args: vec![
            ArgSpec::Out(4 * side * side),
            ArgSpec::Scalar((side as i32).to_le_bytes().to_vec()),
            ArgSpec::Scalar((side as i32).to_le_bytes().to_vec()),
            ArgSpec::Scalar(max_iter.to_le_bytes().to_vec()),
        ],
        global: vec![side as u64, side as u64],
        local: None,
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            let got = as_i32(&out[0]);
            // Points on the set's boundary are sensitive to float contraction:
            // allow a tiny fraction of differing counts.
            let wrong = (0..side * side)
                .filter(|&i| got[i] != reference(i % side, i / side))
                .count();
            if wrong * 200 > side * side {
                return Err(format!(
                    "{wrong} of {} iteration counts differ",
                    side * side
                ));
            }
            Ok(())
        }),
    }
}

fn cnd(d: f32) -> f32 {
    let (a1, a2, a3, a4, a5) = (
        0.319_381_53f32,
        -0.356_563_78,
        1.781_477_9,
        -1.821_256,
        1.330_274_5,
    );
    let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
    let w = 1.0
        - 0.398_942_3 * (-0.5 * d * d).exp() * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    if d < 0.0 {
        1.0 - w
    } else {
        w
    }
}

fn blackscholes(n: usize, reps: usize) -> Workload {
    let (rate, vol) = (0.02f32, 0.30f32);
    let spot = floats(n, 5.0, 30.0, 10);
    let strike = floats(n, 1.0, 100.0, 11);
    let years = floats(n, 0.25, 10.0, 12);
    let (rs, rk, ry) = (spot.clone(), strike.clone(), years.clone());
    let price = move |i: usize| -> (f32, f32) {
        let (s, x, t) = (rs[i], rk[i], ry[i]);
        let sq = t.sqrt();
        let d1 = ((s / x).ln() + (rate + 0.5 * vol * vol) * t) / (vol * sq);
        let d2 = d1 - vol * sq;
        let disc = (-rate * t).exp();
        (
            s * cnd(d1) - x * disc * cnd(d2),
            x * disc * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)),
        )
    };
    Workload {
        name: "blackscholes",
        size: n_label(n, "options"),
        source: BLACKSCHOLES.into(),
        kernel: "blackscholes",
        args: vec![
            ArgSpec::In(f32_bytes(&spot)),
            ArgSpec::In(f32_bytes(&strike)),
            ArgSpec::In(f32_bytes(&years)),
            ArgSpec::Out(4 * n),
            ArgSpec::Out(4 * n),
            ArgSpec::Scalar(rate.to_le_bytes().to_vec()),
            ArgSpec::Scalar(vol.to_le_bytes().to_vec()),
        ],
        global: vec![n as u64],
        local: None,
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            let (call, put) = (as_f32(&out[0]), as_f32(&out[1]));
            check_floats(&call, n, 1e-3, true, |i| price(i).0)?;
            check_floats(&put, n, 1e-3, true, |i| price(i).1)
        }),
    }
}

fn histogram(n: usize, reps: usize) -> Workload {
    const PER_ITEM: usize = 16;
    let mut rng = Rng(0x1234_5678);
    // Skewed data: many values land in few bins, stressing the atomics.
    let data: Vec<u8> = (0..n)
        .map(|_| ((rng.next() >> 32) as u8) & ((rng.next() >> 60) as u8 | 0x0F))
        .collect();
    let mut want = vec![0u32; 256];
    for &b in &data {
        want[b as usize] += 1;
    }
    Workload {
        name: "histogram",
        size: n_label(n, "bytes, 256 bins"),
        source: HISTOGRAM.into(),
        kernel: "histogram",
        args: vec![
            ArgSpec::In(data),
            ArgSpec::InOut(vec![0; 4 * 256]),
            ArgSpec::Scalar((PER_ITEM as i32).to_le_bytes().to_vec()),
        ],
        global: vec![(n / PER_ITEM) as u64],
        local: Some(vec![256]),
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            let got: Vec<u32> = as_i32(&out[0]).into_iter().map(|v| v as u32).collect();
            match (0..256).find(|&b| got[b] != want[b]) {
                Some(b) => Err(format!("bin {b}: got {}, expected {}", got[b], want[b])),
                None => Ok(()),
            }
        }),
    }
}

fn scan(n: usize, reps: usize) -> Workload {
    scan_with(n, reps, "scan", SCAN, "scan")
}

/// A per-group inclusive prefix sum: the `__local` Hillis-Steele scan of
/// `scan.cl`, or the work-group collective (`scan_work_group.cl`, whose
/// kernel takes no `__local` buffer).
fn scan_with(
    n: usize,
    reps: usize,
    name: &'static str,
    source: &'static str,
    kernel: &'static str,
) -> Workload {
    const LOCAL: usize = 256;
    let mut rng = Rng(99);
    let input: Vec<i32> = (0..n).map(|_| (rng.next() % 100) as i32).collect();
    let mut want = input.clone();
    for block in want.chunks_mut(LOCAL) {
        for i in 1..block.len() {
            block[i] += block[i - 1];
        }
    }
    let mut args = vec![ArgSpec::In(i32_bytes(&input)), ArgSpec::Out(4 * n)];
    if !source.contains("work_group_scan") {
        args.push(ArgSpec::Local(4 * LOCAL));
    }
    Workload {
        name,
        size: n_label(n, "ints, 256 per group"),
        source: source.into(),
        kernel,
        args,
        global: vec![n as u64],
        local: Some(vec![LOCAL as u64]),
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            let got = as_i32(&out[0]);
            match (0..n).find(|&i| got[i] != want[i]) {
                Some(i) => Err(format!("element {i}: got {}, expected {}", got[i], want[i])),
                None => Ok(()),
            }
        }),
    }
}

fn conv5x5(side: usize, reps: usize) -> Workload {
    let image = floats(side * side, 0.0, 1.0, 13);
    let weights = floats(25, -0.2, 0.2, 14);
    let (ri, rw) = (image.clone(), weights.clone());
    let reference = move |x: usize, y: usize| -> f32 {
        let mut acc = 0f32;
        for dy in -2i64..=2 {
            let yy = (y as i64 + dy).clamp(0, side as i64 - 1) as usize;
            for dx in -2i64..=2 {
                let xx = (x as i64 + dx).clamp(0, side as i64 - 1) as usize;
                acc += rw[((dy + 2) * 5 + dx + 2) as usize] * ri[yy * side + xx];
            }
        }
        acc
    };
    Workload {
        name: "conv5x5",
        size: format!("{side}x{side} floats"),
        source: CONV5X5.into(),
        kernel: "conv5x5",
        args: vec![
            ArgSpec::In(f32_bytes(&image)),
            ArgSpec::Out(4 * side * side),
            ArgSpec::In(f32_bytes(&weights)),
            ArgSpec::Scalar((side as i32).to_le_bytes().to_vec()),
            ArgSpec::Scalar((side as i32).to_le_bytes().to_vec()),
        ],
        global: vec![side as u64, side as u64],
        local: None,
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            check_floats(&as_f32(&out[0]), side * side, 1e-4, true, |i| {
                reference(i % side, i / side)
            })
        }),
    }
}

fn empty(reps: usize) -> Workload {
    Workload {
        name: "empty-kernel latency",
        size: "1 work-item".into(),
        source: EMPTY.into(),
        kernel: "empty",
        args: vec![ArgSpec::Out(4)],
        global: vec![1],
        local: None,
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(|_| Ok(())),
    }
}

fn barriers(n: usize, rounds: i32, reps: usize) -> Workload {
    const LOCAL: usize = 256;
    // Every group computes the same values: simulate one.
    let mut group: Vec<i32> = (0..LOCAL as i32).collect();
    for _ in 0..rounds {
        let prev = group.clone();
        for (l, a) in group.iter_mut().enumerate() {
            *a = a.wrapping_add(prev[(l + 1) % LOCAL]);
        }
    }
    let want: Vec<i32> = (0..n).map(|i| group[i % LOCAL]).collect();
    Workload {
        name: if rounds == 0 {
            "barriers (0 rounds)"
        } else {
            "barriers (64 rounds)"
        },
        size: format!("{n} items, {} barriers per group", 2 * rounds),
        source: BARRIERS.into(),
        kernel: "barriers",
        args: vec![
            ArgSpec::Out(4 * n),
            ArgSpec::Scalar(rounds.to_le_bytes().to_vec()),
        ],
        global: vec![n as u64],
        local: Some(vec![LOCAL as u64]),
        reps,
        bytes_moved: None,
        metric: Metric::RunTime,
        check: Box::new(move |out| {
            let got = as_i32(&out[0]);
            match (0..n).find(|&i| got[i] != want[i]) {
                Some(i) => Err(format!("item {i}: got {}, expected {}", got[i], want[i])),
                None => Ok(()),
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workloads_kept_are_those_named_in_suite_order() {
        let all: Vec<&str> = workloads(true).iter().map(|w| w.name).collect();
        assert_eq!(all.len(), 17);
        let some: Vec<&str> = workloads_where(true, |n| n.starts_with("scan") || n == "vadd")
            .iter()
            .map(|w| w.name)
            .collect();
        assert_eq!(some, ["vadd", "scan", "scan (work-group)"]);
        assert!(workloads_where(true, |_| false).is_empty());
    }
}

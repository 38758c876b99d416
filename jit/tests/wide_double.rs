//! `double` values on the wide AVX-512 code (`Val::D`: two zmm registers
//! of eight doubles): arithmetic, comparisons, selects, conversions to and
//! from `float`, `int` and `uint`, the exact builtins (`fma`, `mad`,
//! `sqrt`, `fabs`, `floor`, `ceil`, `trunc`, `rint`, `copysign`, `fmin`,
//! `fmax`, `clamp`), variables under divergent `if`s and loops, buffers
//! read and written consecutively, gathered, scattered and at one
//! address, and in a barrier kernel's region, each against the
//! interpreter byte for byte over special values (zeros, subnormals,
//! infinities, NaN, the edges of the integer conversions); `exp`, `log`
//! and their bases bit for bit against the Cranelift code, whose routine
//! they repeat, over lanes of the usual and the general path mixed in
//! one chunk. Each asserts that the wide code ran it.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_jit::abi::Launch;
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::differential::{build, run_jit, GUARD};
use vecl_testkit::groups::{run_checked, CheckedArg};
use vecl_testkit::{code_line, cpu_has_wide, range_1d};

fn options(wide: bool) -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide,
        checked: false,
        local_checks: false,
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

const FP64: &str = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";

/// Kernel `k` of `src` (after the fp64 pragma) on the wide code, which it
/// must get on a CPU that has it.
fn wide(src: &str) -> (vecl_ir::Module, CompiledKernel) {
    let m = build(&format!("{FP64}{src}"), "");
    let k = compile_kernel(&m, "k", &options(true)).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    (m, k)
}

fn buffer(mut b: Vec<u8>) -> KernelArg {
    b.extend((0..GUARD).map(|i| 0xA5 ^ i as u8));
    KernelArg::Buffer(b)
}

fn doubles(v: &[f64]) -> KernelArg {
    buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn zeros(bytes: usize) -> KernelArg {
    buffer(vec![0; bytes])
}

fn double(x: f64) -> KernelArg {
    KernelArg::Value(x.to_le_bytes().to_vec())
}

fn int(x: i32) -> KernelArg {
    KernelArg::Value(x.to_le_bytes().to_vec())
}

/// Special values, then `n - specials` from a deterministic generator
/// (magnitudes 2^-40 to 2^40, both signs), `finite` leaving out the
/// infinities and NaN.
fn values(n: usize, seed: u64, finite: bool) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        3.7,
        -3.7,
        1e-310,
        -1e-310,
        1e300,
        -1e300,
        2_147_483_647.5,
        2_147_483_648.0,
        -2_147_483_648.5,
        -2_147_483_649.0,
        4_294_967_295.9,
        4_294_967_296.0,
        -0.75,
        1e-5,
    ];
    if !finite {
        v.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
    }
    let mut s = seed | 1;
    while v.len() < n {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        let r = s.wrapping_mul(0x2545_f491_4f6c_dd1d);
        let mant = (r >> 11) as f64 / (1u64 << 53) as f64;
        let e = ((r >> 3) % 81) as i32 - 40;
        let sign = if r & 1 == 0 { 1.0 } else { -1.0 };
        v.push(sign * (1.0 + mant) * 2f64.powi(e));
    }
    v.truncate(n);
    v
}

/// Every buffer of `k`'s run equals the interpreter's over `range`.
fn agrees(m: &vecl_ir::Module, k: &CompiledKernel, args: &[KernelArg], range: &NdRange) {
    let mut want = args.to_vec();
    run_kernel(m, "k", &mut want, range).expect("interpreter");
    let (status, got) = run_jit(k, args, range);
    assert_eq!(status, 0, "{range:?}");
    for (i, a) in want.iter().enumerate() {
        if let KernelArg::Buffer(w) = a {
            if *w != got[i] {
                let at = w.iter().zip(&got[i]).position(|(a, b)| a != b);
                panic!("{range:?}: buffer {i} differs from the interpreter at byte {at:?}");
            }
        }
    }
}

/// Runs the robust `k` over `n` items in groups of `local` with its
/// argument block filled as the runtime fills it; its status.
///
/// # Safety
///
/// Every buffer of `args` is as long as it says and outlives the call.
unsafe fn run_robust(k: &CompiledKernel, args: &[CheckedArg], n: u64, local: u64) -> u32 {
    let mut launch = Launch::new(1, [0; 3], [n, 1, 1], [local, 1, 1]);
    // SAFETY: the caller's promise; the kernel tests its accesses.
    unsafe { run_checked(k, args, &mut launch) }.status
}

/// Whether the interpreter's buffer `want` begins with `got`.
fn same_bytes(want: &KernelArg, got: &[u8]) -> bool {
    matches!(want, KernelArg::Buffer(w) if w[..got.len()] == *got)
}

/// Launches with offsets and tail chunks over at most `n` items.
fn ranges(n: u64) -> Vec<NdRange> {
    vec![
        range_1d(0, n, 64),
        range_1d(3, n - 3, n - 3),
        range_1d(0, 7, 7),
        range_1d(5, 41, 41),
    ]
}

#[test]
fn arithmetic_conversions_and_exact_builtins_agree_with_the_interpreter() {
    let src = "kernel void k(global const double* x, global const double* y, global double* o,
                     global int* oi, global uint* ou, global float* of, double a) {
    int i = get_global_id(0);
    double u = x[i], v = y[i];
    o[10 * i + 0] = u + v * a;
    o[10 * i + 1] = u / v - a;
    o[10 * i + 2] = fmin(u, v) + fmax(u, a) * 0.0 + fmax(v, u);
    o[10 * i + 3] = sqrt(fabs(u)) * copysign(1.0, v);
    o[10 * i + 4] = floor(u) + ceil(v) * trunc(u) - rint(v);
    o[10 * i + 5] = fma(u, v, a) + mad(u, a, v);
    o[10 * i + 6] = u < v ? u : (u == v ? -v : (double)i);
    o[10 * i + 7] = clamp(u, -2.0, 3.5) + (double)(uint)i * 0.5 + (double)(float)v;
    o[10 * i + 8] = (u >= v) + (u != v) * 2.0 + (u <= a) * 4.0 + (v > a) * 8.0 + (u != u) * 16.0;
    o[10 * i + 9] = -u * rsqrt(fabs(v) + 1.0) + (double)(i - 20) + (double)((uint)i * 3000000000u);
    oi[3 * i] = (int)u;
    oi[3 * i + 1] = convert_int(v * 1e9);
    oi[3 * i + 2] = (u != 0.0) ? 1 : 0;
    ou[2 * i] = (uint)u;
    ou[2 * i + 1] = convert_uint(v * 4.0);
    of[i] = (float)(u * v);
}";
    let (m, k) = wide(src);
    for (n, seed) in [(64u64, 7u64), (64, 99)] {
        let x = values(n as usize, seed, false);
        let mut y = values(n as usize, seed * 3 + 1, false);
        y.rotate_left(5);
        for range in ranges(n) {
            let args = [
                doubles(&x),
                doubles(&y),
                zeros(8 * 10 * n as usize),
                zeros(4 * 3 * n as usize),
                zeros(4 * 2 * n as usize),
                zeros(4 * n as usize),
                double(-1.25),
            ];
            agrees(&m, &k, &args, &range);
        }
    }
}

#[test]
fn double_variables_under_divergent_ifs_and_loops_agree_with_the_interpreter() {
    // Gathered reads (`(i + j) % n`), a loop whose trip count differs by
    // lane, a variable written in one arm only, a `while` on a double.
    let src = "kernel void k(global const double* x, global double* o, int n) {
    int i = get_global_id(0);
    double s = 0.0, p = 1.0, q = x[i];
    for (int j = 0; j < i % 7; j++) {
        s += x[(i + 3 * j) % n];
        if (s > 2.0) p *= 0.5; else p = p - s;
        q += x[(i + j) % n] * p;
        if (j > 1) q = fma(s, p, q);
    }
    o[2 * i + 1] = q;
    double t = fabs(x[i]);
    int steps = 0;
    while (t > 1.0 && steps < 40) { t *= 0.25; steps++; }
    if (x[i] < 0.0) o[2 * i + 1] = t * (double)steps + q;
    o[2 * i] = s + p * t;
}";
    let (m, k) = wide(src);
    let n = 64u64;
    let x = values(n as usize, 5, true);
    for range in ranges(n) {
        let args = [doubles(&x), zeros(16 * n as usize), int(n as i32)];
        agrees(&m, &k, &args, &range);
    }
}

#[test]
fn one_address_for_every_lane_and_scattered_stores_agree_with_the_interpreter() {
    // The loads of one address under masks without lanes 0-7, or with
    // one lane alone (each running lane's double is its own broadcast
    // words).
    let src = "kernel void k(global const double* x, global double* o, int n) {
    int i = get_global_id(0);
    double first = x[0], last = x[n - 1];
    double v = x[i] * first + last;
    if ((i & 15) >= 8) v -= x[n - 2];
    if ((i & 15) == 3) v *= x[1];
    o[(i * 5) % n] = v;
}";
    let (m, k) = wide(src);
    // 64 items over a permutation (5 is prime to 64).
    let n = 64u64;
    let x = values(n as usize, 11, false);
    let args = [doubles(&x), zeros(8 * n as usize), int(n as i32)];
    agrees(&m, &k, &args, &range_1d(0, n, 64));
    agrees(&m, &k, &args, &range_1d(0, 37, 37));
}

/// `double` variables kept across a barrier take the wide code: each has
/// two 64-byte halves in the chunk's save area, beside the other kept
/// variables (a `float` saved after the first `double` finds its own slot),
/// and the kernel agrees with the interpreter; so does one used within a
/// region. Under robust access, the groups past the code's trusted size
/// (the last of a non-uniform launch) run a copy compiled at launch,
/// whose context (the Cranelift code's) differs from the wide code's: the
/// launch sizes its context after choosing it.
#[test]
fn double_variables_across_a_barrier_take_the_wide_code() {
    let across = "kernel void k(global const double* x, global double* o, local float* t) {
    int l = get_local_id(0), i = get_global_id(0);
    double d = x[i] * 2.0 - 1.0;
    float f = (float)x[i] + 0.25f;
    double e = d * x[i];
    t[l] = (float)d;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[i] = d + (double)f + e + t[(l + 1) % get_local_size(0)];
}";
    let within = "kernel void k(global const double* x, global double* o, local float* t) {
    int l = get_local_id(0), i = get_global_id(0);
    t[l] = (float)(x[i] * 2.0 - 1.0);
    barrier(CLK_LOCAL_MEM_FENCE);
    double d = x[i] * 0.5;
    o[i] = d + t[(l + 1) % get_local_size(0)];
}";
    let n = 64u64;
    let x = values(n as usize, 23, true);
    for src in [across, within] {
        let (m, k) = wide(src);
        for local in [16u64, 32, 64] {
            let args = [
                doubles(&x),
                zeros(8 * n as usize),
                KernelArg::Local(4 * local as usize),
            ];
            agrees(&m, &k, &args, &range_1d(0, n, local));
        }
    }
    // The tiles' accesses are proven for groups of at most 16 items in
    // each dimension (256 elements over `ly * lsx + lx`): the larger
    // groups of a 1-D launch run the copy that tests them.
    let tiled = "kernel void k(global const double* x, global double* o, int m) {
    int lx = get_local_id(0), ly = get_local_id(1), i = get_global_id(0);
    int lsx = get_local_size(0), lsy = get_local_size(1);
    int lid = ly * lsx + lx;
    local float tile[256];
    local float tb[256];
    double d = i < m ? x[i] * 2.0 - 1.0 : 0.5;
    tile[lid] = (float)d;
    tb[lid] = 0.5f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float f = (float)lid;
    for (int k = 0; k < min(lsx, lsy); k++)
        f = (f * 0.5f + tile[ly * lsx + k] * tb[k * lsx + lx]) * 1.5f + f * f - 0.25f * f + (f - 2.0f) * (f + 3.0f);
    o[i] = d + (double)f;
}";
    let m = build(&format!("{FP64}{tiled}"), "");
    let robust = JitOptions {
        checked: true,
        ..options(true)
    };
    let k = compile_kernel(&m, "k", &robust).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    }
    let n = 256u64;
    let x = values(n as usize, 29, true);
    let bytes = |v: &[f64]| -> Vec<u8> { v.iter().flat_map(|d| d.to_le_bytes()).collect() };
    for (local, end) in [(16u64, 256), (16, 200), (64, 256), (48, 200), (40, 256)] {
        let range = range_1d(0, n, local);
        let mut want = [doubles(&x), zeros(8 * n as usize), int(end)];
        run_kernel(&m, "k", &mut want, &range).expect("interpreter");
        let xs = bytes(&x);
        let mut out = vec![0u8; 8 * n as usize];
        let args = [
            CheckedArg::Buffer {
                addr: xs.as_ptr() as u64,
                len: xs.len() as u64,
            },
            CheckedArg::Buffer {
                addr: out.as_mut_ptr() as u64,
                len: out.len() as u64,
            },
            CheckedArg::Bytes(&end.to_le_bytes()),
        ];
        // SAFETY: both buffers are as long as said and outlive the call;
        // the kernel is robust.
        let status = unsafe { run_robust(&k, &args, n, local) };
        assert_eq!(status, 0, "groups of {local}, m {end}");
        assert!(same_bytes(&want[1], &out), "groups of {local}, m {end}");
    }
}

/// A robust kernel whose tiles are proven for groups of at most 16 items
/// per dimension (`vecl fuzz --wide`, seed 101685, reduced): the larger
/// groups of a 1-D launch run a copy compiled at launch that trusts no
/// group size, which keeps Cranelift's code (the wide code's rows in
/// flight need that trust) and so a context laid out otherwise than the
/// wide code's: the launch sizes its context after choosing the copy, and
/// agrees with the interpreter.
#[test]
fn a_copy_with_another_context_runs_the_groups_past_the_proven_size() {
    let src = "kernel void k(global uint *out) {
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lsx = (int)get_local_size(0);
    const int lsy = (int)get_local_size(1);
    const int lid = ly * lsx + lx;
    local float tile[256];
    local float tb[256];
    tile[lid] = (float)((double)lid * 0.5 + 1.0);
    tb[lid] = 0.25f;
    out[get_global_id(0)] = as_uint(tile[lid]);
    barrier(CLK_LOCAL_MEM_FENCE);
    float f = (float)lid;
    for (int k = 0; k < min(lsx, lsy); k++) { f += tile[ly * lsx + k] * tb[k * lsx + lx]; }
}";
    let m = build(&format!("{FP64}{src}"), "");
    let robust = JitOptions {
        checked: true,
        ..options(true)
    };
    let k = compile_kernel(&m, "k", &robust).expect("compiles");
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
        assert!(
            k.explain().contains("proven for groups of at most 16"),
            "{}",
            k.explain()
        );
    }
    let n = 256u64;
    for local in [16u64, 48, 64] {
        let range = range_1d(0, n, local);
        let mut want = [zeros(4 * n as usize)];
        run_kernel(&m, "k", &mut want, &range).expect("interpreter");
        let mut out = vec![0u8; 4 * n as usize];
        let args = [CheckedArg::Buffer {
            addr: out.as_mut_ptr() as u64,
            len: out.len() as u64,
        }];
        // SAFETY: the buffer is as long as said and outlives the call; the
        // kernel is robust.
        let status = unsafe { run_robust(&k, &args, n, local) };
        assert_eq!(status, 0, "groups of {local}");
        assert!(same_bytes(&want[0], &out), "groups of {local}");
    }
}

/// `__local` doubles on the wide code: a grid-stride dot product and its
/// group's tree in a `__local double` array (the tree's chunks skipped),
/// a tile transposed through `__local double[16][17]` (2-D groups, rows
/// of the tile 17 elements apart), and a `__local double*` parameter
/// written and read at reversed places; each against the interpreter.
#[test]
fn local_doubles_agree_with_the_interpreter() {
    let dot =
        "kernel void k(global const double* x, global const double* y, global double* out, int n) {
    local double s[256];
    int lid = get_local_id(0);
    double acc = 0.0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc = fma(x[i], y[i], acc);
    s[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = get_local_size(0) / 2; h > 0; h >>= 1) {
        if (lid < h) s[lid] += s[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = s[0];
}";
    let (m, k) = wide(dot);
    let n = 3000usize;
    let (x, y) = (values(n, 31, true), values(n, 37, true));
    for (global, local) in [(1024u64, 256u64), (240, 48), (64, 16), (96, 32)] {
        let groups = (global / local) as usize;
        let args = [doubles(&x), doubles(&y), zeros(8 * groups), int(n as i32)];
        agrees(&m, &k, &args, &range_1d(0, global, local));
    }
    let transpose = "kernel void k(global const double* a, global double* b, int w) {
    local double tile[16][17];
    int lx = get_local_id(0), ly = get_local_id(1);
    int gx = get_group_id(0) * 16, gy = get_group_id(1) * 16;
    tile[ly][lx] = a[(gy + ly) * w + gx + lx] * 1.5;
    barrier(CLK_LOCAL_MEM_FENCE);
    b[(gx + ly) * w + gy + lx] = tile[lx][ly] - 0.25;
}";
    let (m, k) = wide(transpose);
    let w = 48usize;
    let a = values(w * w, 41, false);
    let args = [doubles(&a), zeros(8 * w * w), int(w as i32)];
    let range = vecl_testkit::range_2d([w as u64, w as u64], [16, 16], [0, 0]);
    agrees(&m, &k, &args, &range);
    let param = "kernel void k(global const double* a, global double* b, local double* t) {
    int l = get_local_id(0), n = get_local_size(0), i = get_global_id(0);
    t[n - 1 - l] = sqrt(fabs(a[i])) + (double)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    b[i] = t[l] * t[(l + 3) % n];
}";
    let (m, k) = wide(param);
    let a = values(256, 43, false);
    for local in [16u64, 48, 64] {
        let args = [
            doubles(&a),
            zeros(8 * 256),
            KernelArg::Local(8 * local as usize),
        ];
        agrees(&m, &k, &args, &range_1d(0, 192, local));
    }
}

/// A `__local double*` parameter given too few bytes, under robust
/// access: the wide code stops with a fault, as Cranelift's code does.
#[test]
fn local_doubles_past_their_argument_fault_under_robust_access() {
    let src = "kernel void k(global const double* a, global double* b, local double* t) {
    int l = get_local_id(0), i = get_global_id(0);
    t[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[i] = t[get_local_size(0) - 1 - l];
}";
    let m = build(&format!("{FP64}{src}"), "");
    let robust = |wide: bool| JitOptions {
        checked: true,
        ..options(wide)
    };
    let a = values(64, 47, true);
    let bytes: Vec<u8> = a.iter().flat_map(|d| d.to_le_bytes()).collect();
    let mut seen = Vec::new();
    for wide in [true, false] {
        let k = compile_kernel(&m, "k", &robust(wide)).expect("compiles");
        if wide && cpu_has_wide() {
            let line = code_line(&k);
            assert!(line.starts_with("code: wide AVX-512"), "{line}");
        }
        let mut out = vec![0u8; 8 * 64];
        // Room for 40 of the group's 64 doubles and half of the next.
        let args = [
            CheckedArg::Buffer {
                addr: bytes.as_ptr() as u64,
                len: bytes.len() as u64,
            },
            CheckedArg::Buffer {
                addr: out.as_mut_ptr() as u64,
                len: out.len() as u64,
            },
            CheckedArg::Local(8 * 40 + 4),
        ];
        // SAFETY: the buffers are as long as said and outlive the call;
        // the kernel is robust.
        let status = unsafe { run_robust(&k, &args, 64, 64) };
        assert_ne!(status, 0, "wide {wide}");
        seen.push(status);
    }
    assert_eq!(seen[0], seen[1]);
}

/// The inputs of `exp` and `log`: specials (both paths' edges: overflow
/// and underflow of `exp`, subnormal, zero, negative and infinite
/// arguments of `log`) spread among ordinary values, so that chunks mix
/// the usual path's lanes with the general path's, and whole chunks of
/// ordinary values take the usual path alone.
fn math_inputs() -> Vec<f64> {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        1e-310,
        5e-324,
        -1e-310,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        707.9,
        708.0,
        709.7,
        709.79,
        710.0,
        -707.0,
        -708.5,
        -744.0,
        -745.2,
        -746.0,
        1021.0,
        1023.9,
        1024.0,
        -1022.5,
        -1074.0,
        -1075.5,
        306.9,
        307.5,
        308.3,
        -307.5,
        -323.5,
        -324.5,
        0.5,
        std::f64::consts::SQRT_2,
        std::f64::consts::FRAC_1_SQRT_2,
        2.0,
        10.0,
        1e300,
    ];
    let mut v = Vec::new();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    for (i, x) in specials.iter().enumerate() {
        v.push(*x);
        for _ in 0..(i % 5) {
            let r = next();
            let f = (r >> 11) as f64 / (1u64 << 53) as f64;
            v.push((f - 0.5) * 60.0);
        }
    }
    // Whole chunks of ordinary values (the usual path only), positive
    // for the logarithms.
    for _ in 0..96 {
        let r = next();
        let f = (r >> 11) as f64 / (1u64 << 53) as f64;
        v.push(0.001 + f * 500.0);
    }
    v
}

#[test]
fn exp_and_log_of_doubles_match_the_cranelift_code_bit_for_bit() {
    let x = math_inputs();
    let n = x.len();
    for f in ["exp", "exp2", "exp10", "log", "log2", "log10"] {
        let src = format!(
            "kernel void k(global const double* x, global double* o) {{
    int i = get_global_id(0);
    o[i] = {f}(x[i]);
}}"
        );
        let (m, k) = wide(&src);
        let narrow = compile_kernel(&m, "k", &options(false)).expect("compiles");
        let args = [doubles(&x), zeros(8 * n)];
        for range in [
            range_1d(0, n as u64, 16),
            range_1d(1, n as u64 - 1, n as u64 - 1),
        ] {
            let (s1, wide_out) = run_jit(&k, &args, &range);
            let (s2, cl_out) = run_jit(&narrow, &args, &range);
            assert_eq!((s1, s2), (0, 0));
            for (i, xi) in x.iter().enumerate() {
                let at = 8 * i..8 * i + 8;
                let a = f64::from_le_bytes(wide_out[1][at.clone()].try_into().unwrap());
                let b = f64::from_le_bytes(cl_out[1][at].try_into().unwrap());
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{f}({xi:e}) = {a:e} on the wide code, {b:e} on Cranelift's"
                );
            }
        }
        // And a chunk-sized range, against the interpreter within a few
        // ulp (its library's results), for the usual inputs.
        let mut want = args.to_vec();
        run_kernel(&m, "k", &mut want, &range_1d(0, n as u64, 16)).expect("interpreter");
        let (_, got) = run_jit(&k, &args, &range_1d(0, n as u64, 16));
        let KernelArg::Buffer(w) = &want[1] else {
            unreachable!()
        };
        for (i, xi) in x.iter().enumerate() {
            let at = 8 * i..8 * i + 8;
            let a = f64::from_le_bytes(got[1][at.clone()].try_into().unwrap());
            let b = f64::from_le_bytes(w[at].try_into().unwrap());
            if a.is_nan() || b.is_nan() {
                assert!(a.is_nan() && b.is_nan(), "{f}({xi:e}): {a:e} against {b:e}");
                continue;
            }
            let ulps = (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
            assert!(
                ulps <= 3 || (a == b),
                "{f}({xi:e}): {a:e} against the interpreter's {b:e}"
            );
        }
    }
}

#[test]
fn daxpy_with_exp_and_sqrt_takes_the_wide_code_and_agrees_with_cranelifts() {
    let src = "kernel void k(global const double* x, global double* y, double a) {
    int i = get_global_id(0);
    y[i] = a * exp(x[i]) + sqrt(y[i]);
}";
    let (m, k) = wide(src);
    let narrow = compile_kernel(&m, "k", &options(false)).expect("compiles");
    let n = 1000usize;
    let x = values(n, 3, true);
    let y: Vec<f64> = values(n, 4, true).iter().map(|v| v.abs()).collect();
    let args = [doubles(&x), doubles(&y), double(0.5)];
    let range = range_1d(0, n as u64, 40);
    let (_, a) = run_jit(&k, &args, &range);
    let (_, b) = run_jit(&narrow, &args, &range);
    assert_eq!(a[1], b[1]);
}

/// What the wide code leaves to Cranelift's: `sin` of a double (whose
/// huge arguments the Cranelift code hands to the platform's library),
/// 64-bit results of doubles.
#[test]
fn double_builtins_outside_the_subset_keep_the_cranelift_code() {
    for (src, why) in [
        (
            "kernel void k(global const double* x, global double* o) {
    int i = get_global_id(0);
    o[i] = sin(x[i]);
}",
            "the builtin `sin` of doubles",
        ),
        (
            "kernel void k(global const double* x, global float* o) {
    int i = get_global_id(0);
    o[i] = (float)(long)x[i];
}",
            "a conversion from",
        ),
    ] {
        let m = build(&format!("{FP64}{src}"), "");
        let k = compile_kernel(&m, "k", &options(true)).expect("compiles");
        let line = code_line(&k);
        assert!(line.starts_with("code: Cranelift"), "{line}");
        if cpu_has_wide() {
            assert!(line.contains(why), "{why}: {line}");
        }
    }
}

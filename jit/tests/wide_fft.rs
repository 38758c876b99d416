//! The FFT of `benches/programs.py` on the wide AVX-512 code against the
//! interpreter, and the operations it brought to the wide code: `__local`
//! pointer variables swapped after a barrier (`VarRepr::Sel`), an indexed
//! `__global` pointer made and used in one region of a barrier kernel,
//! `x / d` and `x % d` of integers by a divisor the same in every lane but
//! not a constant (shifts and masks for a power of two, tested at run
//! time), and `x / d` of floats by such a divisor (a product by its
//! reciprocal when that is a normal power of two), and two-word elements
//! (`float2`, `int2`) moved as halves of eight elements' memory images
//! (one vector access where consecutive, else a 64-bit gather or
//! scatter). On a CPU without AVX-512 every kernel is refused for that
//! reason and still agrees (Cranelift's code).

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::differential::{build, compare_launches, interp_args_for, run_jit, Spec};
use vecl_testkit::{code_line, cpu_has_wide, range_1d};

/// `benches/programs.py`'s FFT as users write it: one FFT of `2 *
/// get_local_size(0)` points per group, `__local` ping-pong buffers
/// swapped after the barrier of each stage, `t % span` and `(float)k /
/// (float)span` by the stage's span, `sincos` through a pointer, and the
/// butterflies' scatters `b[j]`, `b[j + span]`.
const FFT: &str = r#"
kernel void fft(global const float2 *in, global float2 *out, local float2 *a, local float2 *b) {
    int t = get_local_id(0), h = get_local_size(0), n = 2 * h;
    global const float2 *src = in + get_group_id(0) * n;
    a[t] = src[t];
    a[t + h] = src[t + h];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int span = 1; span < n; span *= 2) {
        int k = t % span;
        float ang = -3.14159265358979f * (float)k / (float)span;
        float c, s = sincos(ang, &c);
        float2 u = a[t], v = a[t + h];
        float2 w = (float2)(v.x * c - v.y * s, v.x * s + v.y * c);
        int j = (t - k) * 2 + k;
        b[j] = u + w;
        b[j + span] = u - w;
        barrier(CLK_LOCAL_MEM_FENCE);
        local float2 *tmp = a; a = b; b = tmp;
    }
    global float2 *dst = out + get_group_id(0) * n;
    dst[t] = a[t];
    dst[t + h] = a[t + h];
}
"#;

/// The kernel compiled as a launch through the C driver builds it (no
/// width asked for, unchecked, the optimised tier only).
fn unchecked() -> JitOptions {
    JitOptions {
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

/// Kernel `kernel` of `src` compiled with `opts`, which must get the wide
/// code at W = 16 (on a CPU with AVX-512).
fn wide_with(src: &str, kernel: &str, opts: &JitOptions) -> (vecl_ir::Module, CompiledKernel) {
    let m = build(src, "");
    let k = compile_kernel(&m, kernel, opts).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{kernel}: {line}");
        assert_eq!(k.simd_width(), 16, "{kernel}: {line}");
    } else {
        assert!(line.contains("no AVX-512F"), "{kernel}: {line}");
    }
    (m, k)
}

fn fft_args(r: &NdRange) -> Vec<Spec> {
    let h = r.local_size[0] as usize;
    let items = (r.global_offset[0] + r.global_size[0]) as usize;
    // Each group reads and writes `2 * h` float2s from its first.
    let floats = 4 * items.div_ceil(h) * h;
    // Past a power of two, the last stages' `b[j + span]` reach up to
    // four times the next power of two's elements (the kernel is an FFT
    // only for powers of two; the other sizes test the code's groups).
    let local = 32 * h.next_power_of_two();
    vec![
        Spec::Floats(floats, 3),
        Spec::Floats(floats, 0),
        Spec::Local(local),
        Spec::Local(local),
    ]
}

/// The FFT's output of `k` against the interpreter's, within 2^-17 of the
/// largest magnitude (the interpreter's `sin` and `cos` are not the
/// JIT's single-precision routine to the bit; a wrong butterfly, index
/// or swap is off by the inputs' size), and bit for bit against
/// Cranelift's code at W = 16, whose `sincos` the wide code's is to the
/// bit (`docs/wide.md`, "The rest of the vector math").
fn fft_agrees(m: &vecl_ir::Module, k: &CompiledKernel, ranges: &[NdRange]) {
    let cranelift = compile_kernel(
        m,
        "fft",
        &JitOptions {
            simd_width: Some(16),
            wide: false,
            ..unchecked()
        },
    )
    .expect("compiles");
    for r in ranges {
        let init = interp_args_for(&fft_args(r));
        let mut want = init.clone();
        run_kernel(m, "fft", &mut want, r).expect("the interpreter runs it");
        let (status, got) = run_jit(k, &init, r);
        assert_eq!(status, 0, "{r:?}");
        let (status, reference) = run_jit(&cranelift, &init, r);
        assert_eq!(status, 0, "{r:?}");
        assert!(got[1] == reference[1], "{r:?}: not Cranelift's bits");
        let KernelArg::Buffer(want) = &want[1] else {
            panic!("the output buffer")
        };
        let floats = |b: &[u8]| -> Vec<f32> {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let (want, got) = (floats(want), floats(&got[1]));
        let scale = want.iter().fold(1.0f32, |m, x| m.max(x.abs()));
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            assert!(
                (w - g).abs() <= scale / 131072.0,
                "{r:?}: float {i}: {g} against the interpreter's {w}"
            );
        }
    }
}

#[test]
fn the_fft_gets_the_wide_code_at_16_and_agrees_at_every_group_size() {
    // Groups of 1 and 2 (less than a chunk), 16 (one chunk), 17 (a chunk
    // and a lane), 64 and 512 (the bench's); three groups each.
    let ranges: Vec<NdRange> = [1u64, 2, 16, 17, 64, 512]
        .iter()
        .map(|h| range_1d(0, 3 * h, *h))
        .collect();
    let (m, k) = wide_with(FFT, "fft", &unchecked());
    fft_agrees(&m, &k, &ranges);
}

#[test]
fn the_fft_at_w_16_asked_for_agrees() {
    let opts = JitOptions {
        simd_width: Some(16),
        ..unchecked()
    };
    let ranges = [range_1d(0, 128, 64), range_1d(0, 34, 17)];
    let (m, k) = wide_with(FFT, "fft", &opts);
    fft_agrees(&m, &k, &ranges);
}

#[test]
fn swapped_local_pointers_under_robust_access_keep_cranelifts_code_and_agree() {
    // Robust access tests an access against its buffer's argument, which
    // a pointer variable swapped at run time does not name.
    let m = build(FFT, "");
    let opts = JitOptions {
        checked: true,
        local_checks: false,
        ..unchecked()
    };
    let k = compile_kernel(&m, "fft", &opts).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(
            line.contains("the pointer variable `a` written after a barrier")
                && line.contains("(at W = 16; W = 32 for Cranelift's code)"),
            "{line}"
        );
        assert_eq!(k.simd_width(), 32, "{line}");
    }
    let ranges = [range_1d(0, 64, 16), range_1d(0, 34, 17)];
    for r in &ranges {
        let init = interp_args_for(&fft_args(r));
        let mut want = init.clone();
        run_kernel(&m, "fft", &mut want, r).expect("the interpreter runs it");
        let (status, _) = run_jit(&k, &init, r);
        assert_eq!(status, 0, "{r:?}");
    }
}

/// The edges of 32-bit integers and small values, by the work-item's id,
/// beside the buffer's small values.
const INT_EDGES: &str = r#"
int edge(int i, int small) {
    int e = i % 12;
    return e == 0 ? (int)0x80000000
        : e == 1 ? 0x7fffffff
        : e == 2 ? -1
        : e == 3 ? 0
        : e == 4 ? 1
        : e == 5 ? (int)0x80000001
        : e == 6 ? -small * 1000003
        : e == 7 ? small * 999983
        : e == 8 ? 0x40000000
        : e == 9 ? -0x40000000
        : small;
}
"#;

/// `x / d` and `x % d` of `int`s and `uint`s by a kernel argument (the
/// same in every lane, not a constant), in a barrier kernel (the FFT's
/// regions, where the power of two is tested) and a plain one (the
/// division in double), all lanes and under a branch.
fn division_kernels() -> String {
    format!(
        r#"{INT_EDGES}
kernel void divs(global const int *a, global int *out, int d, local int *tmp) {{
    int i = get_global_id(0);
    int x = edge(i, a[i]);
    uint ux = (uint)x, ud = (uint)d;
    int n = get_global_size(0);
    tmp[get_local_id(0)] = x % d;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tmp[get_local_id(0)];
    out[n + i] = x / d;
    out[2 * n + i] = (int)(ux / ud);
    out[3 * n + i] = (int)(ux % ud);
    out[4 * n + i] = a[i] > 0 ? x % d : -7;
    out[5 * n + i] = a[i] < 0 ? (int)(ux / ud) : 5;
}}
kernel void plain(global const int *a, global int *out, int d) {{
    int i = get_global_id(0);
    int x = edge(i, a[i]);
    uint ux = (uint)x, ud = (uint)d;
    int n = get_global_size(0);
    out[i] = x / d;
    out[n + i] = x % d;
    out[2 * n + i] = (int)(ux / ud);
    out[3 * n + i] = (int)(ux % ud);
}}
"#
    )
}

/// Divisors: powers of two (2^0, 2^1, 2^5, 2^30, and 2^31, negative as an
/// `int`, a power of two only unsigned), negative ones, zero, others.
const DIVISORS: [i32; 13] = [
    1,
    2,
    32,
    0x4000_0000,
    i32::MIN,
    -1,
    -2,
    -32,
    0,
    3,
    7,
    -3,
    0x7fff_ffff,
];

#[test]
fn integer_division_by_a_uniform_divisor_agrees_at_the_edges() {
    let src = division_kernels();
    let ranges = [range_1d(0, 96, 32), range_1d(0, 45, 15)];
    for kernel in ["divs", "plain"] {
        let (m, k) = wide_with(
            &src,
            kernel,
            &JitOptions {
                simd_width: Some(16),
                ..unchecked()
            },
        );
        for d in DIVISORS {
            let n = |r: &NdRange| (r.global_offset[0] + r.global_size[0]) as usize;
            compare_launches(&m, kernel, &k, &ranges, |r| {
                let mut args = vec![Spec::Ints(n(r), 5), Spec::Ints(6 * n(r), 0), Spec::Int(d)];
                if kernel == "divs" {
                    args.push(Spec::Local(4 * r.local_size[0] as usize));
                }
                args
            });
        }
    }
}

/// `x / d` of floats by a kernel argument in a barrier kernel, `x` at the
/// edges of floats by
/// the work-item's id (NaN, infinities, zeros, subnormals, the largest and
/// smallest normals) beside the buffer's small values.
const FLOAT_DIVISION: &str = r#"
float edge(int i, float small) {
    int e = i % 12;
    return e == 0 ? NAN
        : e == 1 ? INFINITY
        : e == 2 ? -INFINITY
        : e == 3 ? 0.0f
        : e == 4 ? -0.0f
        : e == 5 ? as_float(0x00000001)
        : e == 6 ? as_float(0x807fffff)
        : e == 7 ? 3.4028235e38f
        : e == 8 ? -1.17549435e-38f
        : e == 9 ? small * 0.1f
        : small;
}
kernel void fdiv(global const float *a, global float *out, float d, local float *tmp) {
    int i = get_global_id(0);
    float x = edge(i, a[i]);
    int n = get_global_size(0);
    tmp[get_local_id(0)] = x / d;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tmp[get_local_id(0)];
    out[n + i] = a[i] > 0.0f ? (x + 1.0f) / d : -1.0f;
}
"#;

#[test]
fn float_division_by_a_uniform_divisor_agrees_at_the_edges() {
    let (m, k) = wide_with(
        FLOAT_DIVISION,
        "fdiv",
        &JitOptions {
            simd_width: Some(16),
            ..unchecked()
        },
    );
    // Powers of two whose reciprocal is normal (2^-126, 2^126 the
    // extremes), those whose reciprocal is not (2^-127, subnormal; 2^127;
    // 2^-149), others, zeros, infinities and NaN, both signs.
    let divisors = [
        1.0f32,
        2.0,
        0.5,
        -4.0,
        f32::from_bits(0x0080_0000),
        f32::from_bits(0x7e80_0000),
        -f32::from_bits(0x7e80_0000),
        f32::from_bits(0x0040_0000),
        f32::from_bits(0x7f00_0000),
        f32::from_bits(1),
        3.0,
        -0.1,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let ranges = [range_1d(0, 96, 32), range_1d(0, 45, 15)];
    for d in divisors {
        compare_launches(&m, "fdiv", &k, &ranges, |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize;
            vec![
                Spec::Floats(n, 5),
                Spec::Floats(2 * n, 0),
                Spec::Float(d),
                Spec::Local(4 * r.local_size[0] as usize),
            ]
        });
    }
}

/// Two-word elements (`float2`, `int2`, `uint2`) through `__global` and
/// `__local` pointers, which the wide code moves as two halves of eight
/// elements' memory images (`Access::pair`): consecutive elements at
/// unaligned starts (`off` odd), reversed, strided and permuted ones (the
/// 64-bit gathers and scatters), under a branch that leaves lanes out, a
/// row's tail (groups of 15, 17, 33), one address in every lane, and bits
/// that only a move keeps (NaN payloads, subnormals, `INT_MIN`).
const PAIRS: &str = r#"
kernel void pairs(global const float2 *in, global float2 *out, global const uint2 *uin,
                  global int2 *iout, int off, int stride, local float2 *tmp, local int2 *itmp) {
    int i = get_global_id(0), l = get_local_id(0), h = get_local_size(0);
    int n = get_global_size(0) + get_global_offset(0);
    float2 v = in[i + off] + in[off];
    float2 e = (float2)(as_float(0x7fc00001 + i), as_float((int)0x80000001 - i));
    if (i & 1)
        tmp[l + off] = v;
    else
        tmp[l + off] = e;
    itmp[h - 1 - l] = (int2)((int)0x80000000 + i, -1 - i);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tmp[l + off];
    out[n + i * stride] = tmp[(l * 5) % h + off];
    if (l % 3 != 0)
        out[3 * n + i] = tmp[h - 1 - l + off];
    uint2 u = uin[i];
    iout[i + off] = itmp[l] + (int2)((int)u.x, (int)u.y);
    if (l < h - 2)
        iout[2 * n + i] = itmp[l + 1];
}
"#;

#[test]
fn two_word_elements_agree_at_every_start_stride_and_mask() {
    let (m, k) = wide_with(
        PAIRS,
        "pairs",
        &JitOptions {
            simd_width: Some(16),
            ..unchecked()
        },
    );
    let ranges = [
        range_1d(0, 3, 1),
        range_1d(0, 45, 15),
        range_1d(0, 48, 16),
        range_1d(0, 34, 17),
        range_1d(0, 99, 33),
        range_1d(5, 64, 32),
    ];
    for off in [0, 1, 3] {
        for stride in [1, 2] {
            compare_launches(&m, "pairs", &k, &ranges, |r| {
                let n = (r.global_offset[0] + r.global_size[0]) as usize;
                let h = r.local_size[0] as usize;
                vec![
                    Spec::Floats(2 * (n + 4), 3),
                    Spec::Floats(8 * n, 0),
                    Spec::Ints(2 * n, 7),
                    Spec::Ints(6 * n + 8, 0),
                    Spec::Int(off),
                    Spec::Int(stride),
                    Spec::Local(8 * (h + 4)),
                    Spec::Local(8 * h),
                ]
            });
        }
    }
}

/// Two-word elements in a kernel without barriers (the plain entry, its
/// chunks in flight): consecutive loads in a loop at unaligned starts, a
/// scatter and a gather by a permutation of the ids.
const PAIR_LOOP: &str = r#"
kernel void pair_loop(global const float2 *in, global float2 *out, global int2 *iout,
                      int off, int reps) {
    int i = get_global_id(0), n = get_global_size(0) + get_global_offset(0);
    float2 acc = (float2)(0.0f, 0.0f);
    for (int r = 0; r < reps; r++)
        acc += in[i + off + r];
    int p = (i * 7) % n;
    out[p] = acc;
    out[n + i] = in[p];
    if (i % 5 != 2)
        iout[i + off] = (int2)((int)0x80000000 + i, 0x7fffffff - p);
}
"#;

#[test]
fn two_word_elements_agree_in_a_plain_kernel_with_a_loop() {
    let (m, k) = wide_with(
        PAIR_LOOP,
        "pair_loop",
        &JitOptions {
            simd_width: Some(16),
            ..unchecked()
        },
    );
    // Sizes prime to 7: `(i * 7) % n` is a permutation.
    let ranges = [
        range_1d(0, 3, 1),
        range_1d(0, 45, 15),
        range_1d(0, 48, 16),
        range_1d(0, 99, 33),
        range_1d(3, 64, 32),
        range_1d(0, 1000, 40),
    ];
    for off in [0, 1, 3] {
        for reps in [0, 1, 3] {
            compare_launches(&m, "pair_loop", &k, &ranges, |r| {
                let n = (r.global_offset[0] + r.global_size[0]) as usize;
                vec![
                    Spec::Floats(2 * (n + 8), 3),
                    Spec::Floats(4 * n, 0),
                    Spec::Ints(2 * (n + 4), 0),
                    Spec::Int(off),
                    Spec::Int(reps),
                ]
            });
        }
    }
}

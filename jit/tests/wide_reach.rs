//! The 64-bit arithmetic of real kernels on the wide AVX-512 code
//! (`vecl_jit::wide::int64`): products and sums read only in their low
//! 32 bits (`int base = get_group_id(0) * n`), `size_t` row-major indices
//! and pointer offsets exact for the launches under the kernel's bound
//! (`int64::launch_end`: the entry runs the Cranelift code past it), and
//! `__global` pointers moved by an index and indexed again (`o + 16 * i`,
//! then `f[k]`). Each against the interpreter at every width (the wide
//! code at W = 16), over values past 2^32, negative offsets and wrapping
//! products; launches past the bound (which take the Cranelift code);
//! robust and checked mode's faults with such indices, reported as the
//! Cranelift code reports them; and the shapes that must still be
//! refused.

use vecl_ir::interp::{KernelArg, NdRange};
use vecl_jit::abi::{Fault, KernelStatus, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::groups::{run_checked, CheckedArg};
use vecl_testkit::guarded::GuardedBuffer;
use vecl_testkit::range_1d;
use vecl_testkit::{code_line, cpu_has_wide};

fn options(w: u32) -> JitOptions {
    JitOptions {
        simd_width: Some(w),
        wide: true,
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

/// Kernel `k` of `src` at W = 16 must get the wide code (on a CPU with
/// AVX-512) and say `bound` of its launches (`None`: 31 bits); at every
/// width it agrees with the interpreter over `ranges`.
fn agree(
    src: &str,
    bound: Option<u32>,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec> + Copy,
) {
    let m = build(src, "");
    for w in [4, 8, 16, 32] {
        let k = compile_kernel(&m, "k", &options(w)).expect("compiles");
        if w == 16 {
            let line = code_line(&k);
            if cpu_has_wide() {
                assert!(line.starts_with("code: wide AVX-512"), "{line}");
                let says = match bound {
                    Some(b) => format!("ids exceed 2^{b} in a dimension"),
                    None => "ids exceed 31 bits".into(),
                };
                assert!(line.contains(&says), "{says}: {line}");
            } else {
                assert!(line.contains("no AVX-512F"), "{line}");
            }
        }
        assert_eq!(compare_launches(&m, "k", &k, ranges, args), ranges.len());
    }
}

/// Kernel `k` of `src` at W = 16 is refused for `why`; Cranelift's code
/// agrees with the interpreter.
fn refused(src: &str, why: &str, ranges: &[NdRange], args: impl Fn(&NdRange) -> Vec<Spec>) {
    let m = build(src, "");
    let k = compile_kernel(&m, "k", &options(16)).expect("compiles");
    let line = code_line(&k);
    assert!(line.starts_with("code: Cranelift"), "{line}");
    if cpu_has_wide() {
        assert!(line.contains(why), "{why}: {line}");
    }
    assert_eq!(compare_launches(&m, "k", &k, ranges, args), ranges.len());
}

fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 49, 49),
        range_1d(0, 64, 16),
        range_1d(3, 100, 25),
        range_1d(5, 333, 64),
    ]
}

fn range_2d(offset: [u64; 2], global: [u64; 2], local: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [offset[0], offset[1], 0],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

/// Sums, products, shifts and constants of `long`/`ulong` past 2^32 and
/// wrapping past 2^64, read only through a truncation to `int`/`uint`:
/// the 32-bit operations give those bits for any values.
#[test]
fn products_read_in_their_low_half_agree_past_2_32() {
    let src = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    long x = (long)a[i] * 100003, y = (long)b[i] - 77;
    long p = x * 3000000000L * y;
    ulong u = (ulong)a[i] * 4000000000UL + 0x123456789UL;
    out[6 * i] = (int)p;
    out[6 * i + 1] = (int)(p + x * y - 0x7fffffffffL);
    out[6 * i + 2] = (int)((x << 31) ^ (y << 7));
    out[6 * i + 3] = (int)(uint)(u * u - (ulong)i);
    out[6 * i + 4] = (int)(-(x * x) & ~y | 0x100000000L);
    out[6 * i + 5] = (int)(get_group_id(0) * 4000000000UL + get_global_id(0) * 2999999999UL);
}
"#;
    agree(src, None, &ranges(), |r| {
        let n = r.global_size[0] as usize;
        vec![Spec::Ints(n, 3), Spec::Ints(n, 11), Spec::Ints(6 * n, 0)]
    });
}

/// `size_t` row-major indices of two and three dimensions: exact in
/// 32-bit lanes below 2^15 (2^10) work-items a dimension, the bound the
/// entry tests; launches past it take the Cranelift code.
#[test]
fn size_t_row_major_indices_agree_and_launches_past_the_bound_fall_back() {
    let two = r#"
kernel void k(global const float* a, global float* out) {
    size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
    out[i] = a[i] * 2.0f + (float)get_global_id(1);
}
"#;
    let ranges2 = [
        range_2d([0, 0], [48, 5], [16, 5]),
        range_2d([3, 2], [33, 4], [11, 2]),
        range_2d([0, 0], [16, 16], [16, 1]),
        // Past 2^15 in dimension 0: the Cranelift code.
        range_2d([40000, 0], [20, 2], [20, 1]),
    ];
    agree(two, Some(15), &ranges2, |r| {
        let n = ((r.global_offset[1] + r.global_size[1]) * (r.global_offset[0] + r.global_size[0])
            + r.global_offset[0]) as usize;
        vec![Spec::Floats(n, 1), Spec::Floats(n, 0)]
    });
    let three = r#"
kernel void k(global int* out) {
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    out[(z * get_global_size(1) + y) * get_global_size(0) + x] = (int)(z * 100 + y * 10 + x);
}
"#;
    let ranges3 = [NdRange {
        work_dim: 3,
        global_offset: [0, 0, 0],
        global_size: [20, 3, 4],
        local_size: [10, 3, 2],
    }];
    agree(three, Some(10), &ranges3, |_| vec![Spec::Ints(240, 0)]);
}

/// A `__global` pointer moved by a `size_t` offset and indexed again,
/// forwards and backwards (`o + 16 * i`, `(a + 64)[i - 64]`), and by a
/// group's offset (`in + get_group_id(0) * n`, `n = 2 * get_local_size(0)`,
/// the FFT's).
#[test]
fn indexed_pointers_agree() {
    let strided = r#"
kernel void k(global const float* a, global float* o) {
    size_t i = get_global_id(0);
    global const float* p = a + 64;
    float v = p[(long)i - 64];
    global float* f = o + 16 * i;
    f[0] = v;
    f[3] = v * 3.0f;
    f[15] = -v;
}
"#;
    agree(strided, Some(27), &ranges(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Floats(n, 1), Spec::Floats(16 * n, 0)]
    });
    // `float4` elements: the lanes count 4-byte words, 4 per element,
    // so the bound is 2^26 where `float`'s would be 2^28.
    let vectors = r#"
kernel void k(global const float4* a, global float* o) {
    size_t i = get_global_id(0);
    global const float4* p = a + 8 * i;
    float4 v = p[1];
    o[i - get_global_offset(0)] = v.x + v.y * 2.0f + v.w;
}
"#;
    agree(vectors, Some(26), &ranges(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Floats(4 * (8 * n + 2), 1), Spec::Floats(n, 0)]
    });
    let groups = r#"
kernel void k(global const float* in, global float* out) {
    int t = get_local_id(0), h = get_local_size(0), n = 2 * h;
    global const float* src = in + get_group_id(0) * n;
    global float* dst = out + get_group_id(0) * n;
    dst[t] = src[t + h] - src[t];
    dst[t + h] = src[t] + src[t + h];
}
"#;
    let rs = [
        range_1d(0, 64, 32),
        range_1d(0, 48, 16),
        range_1d(0, 96, 12),
    ];
    agree(groups, Some(29), &rs, |r| {
        let n = 2 * r.global_size[0] as usize;
        vec![Spec::Floats(n, 1), Spec::Floats(n, 0)]
    });
}

/// What must keep the Cranelift code: a product of two loaded values
/// read whole (compared), a 64-bit shift by a varying count under a
/// truncation, a pointer moved by an `int` argument and indexed again
/// (the sum of the two may pass 2^31).
#[test]
fn unbounded_64_bit_values_are_still_refused() {
    let args = |r: &NdRange| {
        let n = r.global_size[0] as usize;
        vec![Spec::Ints(n, 3), Spec::Ints(n, 11), Spec::Ints(n, 0)]
    };
    let compared = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    long p = (long)a[i] * 1000000007L * (long)b[i];
    out[i] = p > 5000000000L;
}
"#;
    refused(compared, "64-bit multiplication", &ranges(), args);
    let shifted = r#"
kernel void k(global const int* a, global const int* b, global int* out) {
    int i = get_global_id(0) - get_global_offset(0);
    long x = (long)a[i] * 1000000007L;
    out[i] = (int)(x << (b[i] & 63));
}
"#;
    refused(shifted, "64-bit", &ranges(), args);
    let offset = r#"
kernel void k(global const int* a, global const int* b, global int* out, int off) {
    int i = get_global_id(0) - get_global_offset(0);
    global const int* p = a + (long)off;
    out[i] = p[i] + b[i];
}
"#;
    refused(
        offset,
        "indexed pointer whose index may leave 32 bits",
        &ranges(),
        |r| {
            let n = r.global_size[0] as usize;
            vec![
                Spec::Ints(n + 3, 3),
                Spec::Ints(n, 11),
                Spec::Ints(n, 0),
                Spec::Int(3),
            ]
        },
    );
}

/// Runs every group of `range` through `k` with `args` under robust
/// access (the checked tail filled as the runtime fills it), buffers in
/// guarded allocations; the status, the fault (its address from buffer
/// 1) and whether the guards held.
fn run(k: &CompiledKernel, args: &[KernelArg], range: &NdRange) -> (u32, Option<Fault>, bool) {
    assert!(k.checked_tail().is_some(), "robust access");
    let mut launch = Launch::new(
        range.work_dim,
        range.global_offset,
        range.global_size,
        range.local_size,
    );
    let bufs: Vec<Option<GuardedBuffer>> = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => Some(GuardedBuffer::new(b)),
            _ => None,
        })
        .collect();
    let launch_args: Vec<CheckedArg> = args
        .iter()
        .zip(&bufs)
        .map(|(a, buf)| match (a, buf) {
            (KernelArg::Buffer(b), Some(g)) => CheckedArg::Buffer {
                addr: g.addr(),
                len: b.len() as u64,
            },
            (KernelArg::Value(b), _) => CheckedArg::Bytes(b),
            (other, _) => panic!("no launch argument for {other:?}"),
        })
        .collect();
    // SAFETY: the guarded buffers outlive the call; the kernel is robust
    // and stops before it leaves them.
    let run = unsafe { run_checked(k, &launch_args, &mut launch) };
    let base = bufs
        .get(1)
        .and_then(Option::as_ref)
        .map_or(0, GuardedBuffer::addr);
    let fault = run.fault.map(|mut f| {
        f.address = f.address.wrapping_sub(base);
        f
    });
    let intact = bufs.iter().flatten().all(|b| b.guards_intact());
    (run.status, fault, intact)
}

fn floats(n: usize) -> KernelArg {
    KernelArg::Buffer((0..n).flat_map(|i| (i as f32).to_le_bytes()).collect())
}

/// Robust and checked mode: a store through `o + 16 * i` past its buffer
/// stops at the first such work-item with Cranelift's report (its id and
/// the address from the buffer), inside the bound, where the wide code
/// runs, and past it (ids from 2^28: indices past 2^32, the Cranelift
/// code through the wide entry's fallback).
#[test]
fn out_of_bounds_through_64_bit_offsets_report_as_cranelift() {
    let src = r#"
kernel void k(global const float* a, global float* o) {
    size_t i = get_global_id(0);
    global float* f = o + 16 * i;
    f[3] = a[i - get_global_offset(0)];
}
"#;
    let m = build(src, "");
    for local_checks in [false, true] {
        let opts = |wide| JitOptions {
            checked: true,
            local_checks,
            ..JitOptions {
                wide,
                ..options(16)
            }
        };
        let wide = compile_kernel(&m, "k", &opts(true)).expect("compiles");
        let cranelift = compile_kernel(&m, "k", &opts(false)).expect("compiles");
        if cpu_has_wide() {
            let line = code_line(&wide);
            assert!(line.starts_with("code: wide AVX-512"), "{line}");
        }
        // 64 items; the buffer holds 16 elements for the first 37.
        let args = [floats(64), floats(16 * 37)];
        let mut faults = Vec::new();
        for k in [&wide, &cranelift] {
            let (status, fault, intact) = run(k, &args, &range_1d(0, 64, 32));
            assert_eq!(status, KernelStatus::OutOfBounds as u32);
            assert!(intact, "nothing written outside");
            faults.push(fault.expect("a fault"));
        }
        assert_eq!(faults[0], faults[1], "wide and Cranelift's reports");
        assert_eq!(
            (faults[0].global_id, faults[0].address),
            ([37, 0, 0], 4 * (16 * 37 + 3))
        );
        // Ids from 2^28: 16 * i is 2^32 and more, past every buffer.
        let far = range_1d(1 << 28, 32, 32);
        let mut faults = Vec::new();
        for k in [&wide, &cranelift] {
            let (status, fault, intact) = run(k, &args, &far);
            assert_eq!(status, KernelStatus::OutOfBounds as u32);
            assert!(intact, "nothing written outside");
            faults.push(fault.expect("a fault"));
        }
        assert_eq!(faults[0], faults[1], "wide and Cranelift's reports");
        assert_eq!(
            (faults[0].global_id, faults[0].address),
            ([1 << 28, 0, 0], 4 * ((16u64 << 28) + 3))
        );
    }
}

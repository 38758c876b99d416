//! Clamped stencil reads, the shape of `benches/conv5x5.cl`
//! (`in[yy * w + clamp(x + dx, 0, w - 1)]`), against the interpreter at
//! every width, unchecked and under robust access: borders on every side,
//! images smaller than the stencil (width 1, height 1), widths that are
//! not a multiple of 16, negative offsets, clamps whose bounds are not the
//! image (and a single-element range), the `min`/`max` forms, in 1-D and
//! 2-D, in loops (the taps of a `dy` loop) and written out without one.
//! Whatever code each kernel gets (the wide code's lane test, a gather, or
//! Cranelift's), it must compute what the interpreter computes.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_jit::abi::{Fault, KernelStatus, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::groups::{run_checked, CheckedArg};
use vecl_testkit::*;

/// A 2-D launch of `w` x `h` work-items in groups of `lw` x `lh`.
fn range_2d(w: u64, h: u64, lw: u64, lh: u64) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [w, h, 1],
        local_size: [lw, lh, 1],
    }
}

/// Images from one pixel to a few chunks wide: smaller than a 5 x 5
/// stencil, one row, one column, widths below, at and around 16 and 32.
fn images() -> Vec<NdRange> {
    let mut out = Vec::new();
    for (w, h) in [
        (1, 1),
        (1, 6),
        (6, 1),
        (3, 3),
        (16, 4),
        (17, 3),
        (31, 2),
        (33, 5),
        (47, 7),
        (64, 3),
    ] {
        out.push(range_2d(w, h, w, 1));
    }
    // Groups narrower than a chunk, and two rows per group.
    out.push(range_2d(40, 6, 8, 2));
    out.push(range_2d(48, 4, 16, 4));
    out
}

fn image_args(r: &NdRange, weights: usize) -> Vec<Spec> {
    let (w, h) = (r.global_size[0] as usize, r.global_size[1] as usize);
    vec![
        Spec::Floats(w * h, 3),
        Spec::Floats(w * h, 0),
        Spec::Floats(weights, 7),
        Spec::Int(w as i32),
        Spec::Int(h as i32),
    ]
}

const CONV5X5: &str = include_str!("../../benches/conv5x5.cl");

/// The same with the taps written out (no loop): a clamped read outside
/// any loop, with negative and positive offsets on both axes.
const TAPS: &str = "
kernel void taps(global const float* in, global float* out, constant float* k, int w, int h) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    int up = clamp(y - 1, 0, h - 1) * w;
    int down = clamp(y + 2, 0, h - 1) * w;
    float s = k[0] * in[up + clamp(x - 3, 0, w - 1)];
    s += k[1] * in[up + clamp(x, 0, w - 1)];
    s += k[2] * in[up + clamp(x + 1, 0, w - 1)];
    s += k[3] * in[down + clamp(x - 1, 0, w - 1)];
    s += k[4] * in[down + clamp(x + 17, 0, w - 1)];
    out[y * w + x] = s;
}
";

/// A 3 x 3 box read through `min`/`max` instead of `clamp`, in a loop
/// over rows, and the columns' bounds taken from the row's neighbours.
const MINMAX: &str = "
kernel void minmax(global const float* in, global float* out, constant float* k, int w, int h) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    float s = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        int row = min(max(y + dy, 0), h - 1) * w;
        s += k[0] * in[row + max(x - 1, 0)];
        s += k[1] * in[row + x];
        s += k[2] * in[row + min(x + 1, w - 1)];
        s += k[3] * in[row + max(min(x + 2, w - 1), 0)];
    }
    out[y * w + x] = s;
}
";

#[test]
fn conv5x5_agrees_with_the_interpreter_on_every_border() {
    let n = differential(CONV5X5, "conv5x5", &images(), |r| image_args(r, 25));
    assert_eq!(n, images().len() * WIDTHS.len());
}

/// The bench's kernel, its row loop unrolled by the middle passes (the
/// column loop inside it first), has no loop left: its clamped reads are
/// outside any loop and the wide code takes it (before, the row loop
/// kept them in a loop and the selection refused them).
#[test]
fn conv5x5_takes_the_wide_code_with_its_loops_unrolled() {
    if !cpu_has_wide() {
        return;
    }
    let k = compile(&build(CONV5X5, ""), "conv5x5", 16);
    let line = code_line(&k);
    assert!(line.starts_with("code: wide AVX-512"), "{line}");
    // Its five clamps of `x + dx` are versioned: a row's interior chunks
    // run a copy that reads `in` by plain loads from the row's base (the
    // weights, read once per row there, wait in spill slots).
    assert!(line.contains("; 5 clamps versioned"), "{line}");
}

/// Images wide enough that a row has chunk groups (two or four chunks in
/// flight: 32 or 64 work-items) whose clamps are all their operand and
/// groups at the borders whose clamps are not: widths around 66, 100 and
/// 200, a group size that cuts a row into groups of 64 and 48 (interior
/// and border groups), a launch offset that moves every chunk off the
/// image's grid, and one row and two.
fn wide_images() -> Vec<NdRange> {
    let mut out = Vec::new();
    for (w, h) in [(66, 2), (97, 3), (100, 1), (131, 5), (200, 4), (260, 2)] {
        out.push(range_2d(w, h, w, 1));
    }
    out.push(range_2d(256, 3, 64, 1));
    out.push(range_2d(192, 2, 48, 2));
    let mut shifted = range_2d(150, 3, 150, 1);
    shifted.global_offset = [5, 0, 0];
    out.push(shifted);
    out
}

/// The image arguments of [`image_args`], sized for a launch offset too.
fn offset_image_args(r: &NdRange, weights: usize) -> Vec<Spec> {
    let w = (r.global_offset[0] + r.global_size[0]) as usize;
    let h = (r.global_offset[1] + r.global_size[1]) as usize;
    vec![
        Spec::Floats(w * h, 3),
        Spec::Floats(w * h, 0),
        Spec::Floats(weights, 7),
        Spec::Int(w as i32),
        Spec::Int(h as i32),
    ]
}

/// The versioned body (`wide::version`): on images with interior and
/// border chunk groups, the bench's kernel and the written-out taps
/// (offsets -3 to 17 on both axes) compute what the interpreter
/// computes at every width, the wide code's interior chunks running the
/// copy whose clamps are their operand.
#[test]
fn versioned_clamps_agree_with_the_interpreter_inside_and_at_the_borders() {
    if cpu_has_wide() {
        for (src, kernel, clamps) in [(CONV5X5, "conv5x5", 5), (TAPS, "taps", 5)] {
            let k = compile(&build(src, ""), kernel, 16);
            let line = code_line(&k);
            assert!(line.starts_with("code: wide AVX-512"), "{line}");
            assert!(
                line.contains(&format!("; {clamps} clamps versioned")),
                "{kernel}: {line}"
            );
        }
    }
    let n = differential(CONV5X5, "conv5x5", &wide_images(), |r| {
        offset_image_args(r, 25)
    });
    assert_eq!(n, wide_images().len() * WIDTHS.len());
    let n = differential(TAPS, "taps", &wide_images(), |r| offset_image_args(r, 5));
    assert_eq!(n, wide_images().len() * WIDTHS.len());
}

/// 1-D clamps versioned with bounds that are parameters: ordinary ones,
/// `lo > hi` (undefined in OpenCL C, but computed as `min(max(x, lo),
/// hi)`, which is `hi`: the versioned copy must never run for it), one
/// element, negative offsets, the id plus a value of the row, and an
/// operand near `i32::MAX` whose lanes wrap inside a chunk group (the
/// range is computed in 64 bits: no group whose lanes wrap runs the
/// copy). Every index the kernel forms lies in `a`'s `n + 512`
/// elements.
const VERSIONED_1D: &str = "
kernel void v1(global const int* a, global int* o, int n, int lo, int hi, int big, int blo) {
    int x = get_global_id(0);
    int s = a[clamp(x - 3, lo, hi)];
    s += 3 * a[clamp(x + 40, lo, hi)];
    s += 5 * a[min(max(x + n / 2, lo), hi)];
    s += 7 * a[max(min(x - 70, hi), lo)];
    s += 11 * a[clamp(x + big, blo, 2147483647) - blo];
    s += 13 * a[clamp(x, lo, hi) + 1];
    o[x] = s;
}
";

/// 1-D launches with interior and border chunk groups: lengths around
/// 64 and 128 and 300, groups of 64, an offset.
fn wide_lines() -> Vec<NdRange> {
    let mut out = Vec::new();
    for (n, l, off) in [
        (64, 64, 0),
        (100, 100, 0),
        (130, 130, 0),
        (300, 300, 0),
        (320, 64, 0),
        (257, 257, 7),
        (31, 31, 0),
    ] {
        out.push(NdRange {
            work_dim: 1,
            global_offset: [off, 0, 0],
            global_size: [n, 1, 1],
            local_size: [l, 1, 1],
        });
    }
    out
}

fn v1_args(r: &NdRange, lo: i32, hi: i32, big: i32) -> Vec<Spec> {
    let n = (r.global_offset[0] + r.global_size[0]) as usize;
    // Indices up to `n + 511`: the bounds kept inside the buffer.
    let hi = hi.min(n as i32 + 300);
    vec![
        Spec::Ints(n + 512, 5),
        Spec::Ints(n, 0),
        Spec::Int(n as i32),
        Spec::Int(lo),
        Spec::Int(hi),
        Spec::Int(big),
        Spec::Int(i32::MAX - 200),
    ]
}

/// The bounds of [`VERSIONED_1D`]: `lo`, `hi` and the offset that takes
/// `x + big` near (and past) `i32::MAX`.
const V1_BOUNDS: [(i32, i32, i32); 6] = [
    (0, 1000, i32::MAX - 100),
    (10, 200, i32::MAX - 40),
    (50, 10, i32::MAX - 300),
    (7, 7, i32::MAX - 150),
    (0, 90, i32::MAX),
    (3, 500, i32::MAX - 200),
];

#[test]
fn versioned_1d_clamps_agree_with_the_interpreter() {
    if cpu_has_wide() {
        let k = compile(&build(VERSIONED_1D, ""), "v1", 16);
        let line = code_line(&k);
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
        assert!(line.contains("; 6 clamps versioned"), "{line}");
    }
    for (lo, hi, big) in V1_BOUNDS {
        let n = differential(VERSIONED_1D, "v1", &wide_lines(), |r| {
            v1_args(r, lo, hi, big)
        });
        assert_eq!(n, wide_lines().len() * WIDTHS.len(), "lo {lo} hi {hi}");
    }
}

/// The same kernels under robust access (not versioned: every access
/// keeps its bounds test), `lo > hi` included: in bounds, no fault and
/// the interpreter's results, with the wide code allowed and not.
#[test]
fn robust_versionable_clamps_agree_with_the_interpreter() {
    let m = build(VERSIONED_1D, "");
    for wide in [true, false] {
        let k = compile_kernel(&m, "v1", &robust(wide)).expect("compiles");
        assert!(!k.explain().contains("clamps versioned"), "{}", k.explain());
        for (lo, hi, big) in V1_BOUNDS {
            for range in wide_lines() {
                let init = interp_args_for(&v1_args(&range, lo, hi, big));
                let mut want = init.clone();
                run_kernel(&m, "v1", &mut want, &range).expect("interpreter");
                let (status, fault, got) = run_robust(&k, &init, &range);
                assert_eq!((status, fault), (0, None), "wide {wide} {range:?}");
                for (i, a) in want.iter().enumerate() {
                    if let KernelArg::Buffer(w) = a {
                        assert!(
                            *w == got[i],
                            "wide {wide} {range:?} lo {lo} hi {hi}: buffer {i}"
                        );
                    }
                }
            }
        }
    }
}

/// Uniform loads at constant indices (integer arithmetic of constants,
/// the unrolled loops' counters, a shift past 31 that the lowering
/// masks): every lane, a divergent branch that leaves lane 0 out, a
/// branch no lane takes, a loop, and an index far into the buffer (the
/// largest displacement).
const CONSTANTS: &str = "
kernel void constants(global const float* in, global float* out, constant float* w, int n) {
    int x = get_global_id(0);
    float s = w[0] * in[x];
    for (int i = 0; i < 3; i++) {
        for (int j = -1; j <= 1; j++) {
            s += w[(i + 1) * 3 + j + 1] * in[min(x + j + 1, n - 1)];
        }
    }
    s += w[(1 << 35) - 5];
    s += w[12 * 100 - 1000 + 3];
    if (x % 3 == 1) {
        s += w[13];
    }
    if (x > 100000) {
        s += w[14];
    }
    for (int t = 0; t < n % 7 + 20; t++) {
        s += w[15] * (float)t;
    }
    out[x] = s;
}
";

#[test]
fn loads_of_constant_indices_agree_with_the_interpreter() {
    if cpu_has_wide() {
        let k = compile(&build(CONSTANTS, ""), "constants", 16);
        assert!(
            code_line(&k).starts_with("code: wide AVX-512"),
            "{}",
            code_line(&k)
        );
    }
    let n = differential(CONSTANTS, "constants", &chunk_edges_1d(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 3),
            Spec::Floats(n, 0),
            Spec::Floats(256, 7),
            Spec::Int(n as i32),
        ]
    });
    assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
}

#[test]
fn written_out_taps_agree_with_the_interpreter() {
    if cpu_has_wide() {
        // Outside loops the wide code takes clamped reads (their lanes
        // tested at run time), so this runs it at W = 16.
        let k = compile(&build(TAPS, ""), "taps", 16);
        assert!(
            code_line(&k).starts_with("code: wide AVX-512"),
            "{}",
            code_line(&k)
        );
    }
    let n = differential(TAPS, "taps", &images(), |r| image_args(r, 5));
    assert_eq!(n, images().len() * WIDTHS.len());
}

#[test]
fn min_and_max_forms_agree_with_the_interpreter() {
    let n = differential(MINMAX, "minmax", &images(), |r| image_args(r, 4));
    assert_eq!(n, images().len() * WIDTHS.len());
}

/// 1-D reads clamped to bounds that are not the buffer's (`lo`, `hi`
/// parameters, one element when equal), by `min`, `max`, `clamp` and
/// their nestings, with a uniform part added, inside a loop and outside.
const BOUNDS: &str = "
kernel void bounds(global const int* a, global int* o, int n, int lo, int hi) {
    int x = get_global_id(0);
    int s = a[min(x + 3, n - 1)];
    s += 3 * a[max(x - 7, 0)];
    s += 5 * a[clamp(x - 2, lo, hi)];
    s += 7 * a[max(min(x + 1, hi), lo)];
    s += 11 * a[min(max(x - 20, lo), hi)];
    for (int d = -3; d <= 3; d += 3) {
        s += 13 * a[n + clamp(x + d, lo, hi) - lo];
    }
    o[x] = s;
}
";

#[test]
fn clamps_to_other_bounds_agree_with_the_interpreter() {
    for (lo, hi) in [(0, 0), (3, 40), (5, 5), (0, 200), (17, 18)] {
        let n = differential(BOUNDS, "bounds", &chunk_edges_1d(), |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize;
            // `hi` past the launch still inside the buffer: `2n + 256`
            // elements hold every index the kernel forms.
            let hi = hi.min(n as i32 + 255);
            vec![
                Spec::Ints(2 * n + 256, 5),
                Spec::Ints(n, 0),
                Spec::Int(n as i32),
                Spec::Int(lo),
                Spec::Int(hi),
            ]
        });
        assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len(), "lo {lo}, hi {hi}");
    }
}

/// Runs every group of `range` through `k` with `args`, the checked
/// tail filled as the runtime fills it (each buffer's bounds, the fault
/// record); returns the status, the fault and the buffers afterwards, a
/// fault's address made relative to buffer 0.
fn run_robust(
    k: &CompiledKernel,
    args: &[KernelArg],
    range: &NdRange,
) -> (u32, Option<Fault>, Vec<Vec<u8>>) {
    let mut bufs: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => b.clone(),
            _ => Vec::new(),
        })
        .collect();
    let launch_args: Vec<CheckedArg> = args
        .iter()
        .zip(&mut bufs)
        .map(|(a, buf)| match a {
            KernelArg::Buffer(_) => CheckedArg::Buffer {
                addr: buf.as_mut_ptr() as u64,
                len: buf.len() as u64,
            },
            KernelArg::Value(b) => CheckedArg::Bytes(b),
            other => panic!("no launch argument for {other:?}"),
        })
        .collect();
    let mut launch = Launch::new(
        range.work_dim,
        range.global_offset,
        range.global_size,
        range.local_size,
    );
    // SAFETY: the buffers outlive the call, and the kernel is robust: it
    // stops before an access outside them.
    let run = unsafe { run_checked(k, &launch_args, &mut launch) };
    let base = bufs[0].as_ptr() as u64;
    let fault = run.fault.map(|mut f| {
        f.address = f.address.wrapping_sub(base);
        f
    });
    (run.status, fault, bufs)
}

/// W = 16 under robust access, the wide code allowed or not.
fn robust(wide: bool) -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide,
        checked: true,
        local_checks: false,
        tiers: Tiers::OptimisedOnly,
        passes: test_passes(),
        ..JitOptions::default()
    }
}

/// Robust access (every access bounds-tested) computes what the
/// interpreter computes in bounds, with the wide code allowed and not.
#[test]
fn robust_clamped_reads_agree_with_the_interpreter() {
    for (src, kernel, weights) in [
        (CONV5X5, "conv5x5", 25),
        (TAPS, "taps", 5),
        (MINMAX, "minmax", 4),
    ] {
        let m = build(src, "");
        for wide in [true, false] {
            let k = compile_kernel(&m, kernel, &robust(wide)).expect("compiles");
            for range in images() {
                let init = interp_args_for(&image_args(&range, weights));
                let mut want = init.clone();
                run_kernel(&m, kernel, &mut want, &range).expect("interpreter");
                let (status, fault, got) = run_robust(&k, &init, &range);
                assert_eq!((status, fault), (0, None), "{kernel} wide {wide} {range:?}");
                for (i, a) in want.iter().enumerate() {
                    if let KernelArg::Buffer(w) = a {
                        assert!(*w == got[i], "{kernel} wide {wide} {range:?}: buffer {i}");
                    }
                }
            }
        }
    }
}

/// Under robust access a uniform load of a constant index keeps its
/// index register and its bounds test (`Access::constant` is for loads
/// without one): in bounds it computes what the interpreter computes,
/// with the wide code allowed and not.
#[test]
fn robust_loads_of_constant_indices_agree_with_the_interpreter() {
    let m = build(CONSTANTS, "");
    for wide in [true, false] {
        let k = compile_kernel(&m, "constants", &robust(wide)).expect("compiles");
        for range in chunk_edges_1d() {
            let n = (range.global_offset[0] + range.global_size[0]) as usize;
            let init = interp_args_for(&[
                Spec::Floats(n, 3),
                Spec::Floats(n, 0),
                Spec::Floats(256, 7),
                Spec::Int(n as i32),
            ]);
            let mut want = init.clone();
            run_kernel(&m, "constants", &mut want, &range).expect("interpreter");
            let (status, fault, got) = run_robust(&k, &init, &range);
            assert_eq!((status, fault), (0, None), "wide {wide} {range:?}");
            for (i, a) in want.iter().enumerate() {
                if let KernelArg::Buffer(w) = a {
                    assert!(*w == got[i], "wide {wide} {range:?}: buffer {i}");
                }
            }
        }
    }
}

/// A constant index past the buffer (and before it, through a pointer
/// moved into the buffer): the first running work-item is reported, by
/// the wide code as by Cranelift's robust code; one that no lane reaches
/// (a branch no work-item takes) faults nowhere.
#[test]
fn constant_indices_past_the_buffer_fault_as_cranelifts_code() {
    let src = "
    kernel void k(global const float* a, global float* o, int which) {
        int x = get_global_id(0);
        float s = a[2 * 3];
        if (which == 1) {
            s += a[40 * 8];
        }
        if (which == 2 && x >= 5) {
            s += (a + 4)[3 - 10];
        }
        if (x > 100000) {
            s += a[1 << 20];
        }
        o[x] = s;
    }";
    let m = build(src, "");
    let guard = GUARD / 4;
    let len = 16usize;
    for which in [0, 1, 2] {
        let args = interp_args_for(&[Spec::Floats(len, 1), Spec::Floats(64, 0), Spec::Int(which)]);
        let range = range_1d(0, 64, 32);
        let mut seen = Vec::new();
        for wide in [true, false] {
            let k = compile_kernel(&m, "k", &robust(wide)).expect("compiles");
            if wide && cpu_has_wide() {
                assert!(
                    code_line(&k).starts_with("code: wide AVX-512"),
                    "{}",
                    code_line(&k)
                );
            }
            let (status, fault, _) = run_robust(&k, &args, &range);
            seen.push((status, fault));
        }
        assert_eq!(seen[0], seen[1], "which {which}");
        let faults = which == 1 && 40 * 8 >= len + guard || which == 2;
        assert_eq!(
            seen[0].0,
            if faults {
                KernelStatus::OutOfBounds as u32
            } else {
                0
            },
            "which {which}: {:?}",
            seen[0]
        );
    }
}

/// A clamp whose upper bound lies past the buffer (and its guard bytes,
/// part of the buffer here): the first work-item
/// whose clamped index leaves it is reported, by the wide code as by
/// Cranelift's robust code (same work-item, address and position).
#[test]
fn clamps_past_the_buffer_fault_as_cranelifts_code() {
    let src = "
    kernel void k(global const float* a, global float* o, int hi) {
        int x = get_global_id(0);
        o[x] = a[clamp(x + 2, 0, hi)] + 2.0f * a[max(x - 3, 0)];
    }";
    let m = build(src, "");
    // The buffers end `GUARD` bytes after their elements: `hi` reaches
    // past those too.
    let guard = GUARD / 4;
    for (n, len, hi) in [
        (200u64, 50usize, 150),
        (300, 100, 1000),
        (130, 10, 80),
        (97, 16, 90),
    ] {
        assert!(
            (hi as u64).min(n + 1) >= (len + guard) as u64,
            "a fault to report"
        );
        let args = interp_args_for(&[
            Spec::Floats(len, 1),
            Spec::Floats(n as usize, 0),
            Spec::Int(hi),
        ]);
        let range = range_1d(0, n, n.min(32));
        let mut faults = Vec::new();
        for wide in [true, false] {
            let k = compile_kernel(&m, "k", &robust(wide)).expect("compiles");
            if wide && cpu_has_wide() {
                // No loop: the clamped reads take the wide code's tested
                // path and its lane-wise bounds test.
                assert!(
                    code_line(&k).starts_with("code: wide AVX-512"),
                    "{}",
                    code_line(&k)
                );
            }
            let (status, fault, _) = run_robust(&k, &args, &range);
            assert_eq!(
                status,
                KernelStatus::OutOfBounds as u32,
                "n {n} wide {wide}"
            );
            faults.push(fault.expect("a recorded fault"));
        }
        assert_eq!(faults[0], faults[1], "n {n}, {len} elements, hi {hi}");
    }
}

/// A weight read once per row in the versioned copy (loaded before any
/// store or branch) and used again after a branch, beside one loaded
/// after the branch (per chunk): the copy reads the row's value past the
/// branch's region.
const AFTER_BRANCH: &str = "
kernel void after_branch(global const float* in, global float* out, constant float* k, int n) {
    int x = get_global_id(0);
    float w0 = k[0];
    float s = w0 * in[clamp(x - 1, 0, n - 1)];
    if (in[x] > 0.5f) {
        s += sin(in[x] * 3.0f) * k[1] + cos(s);
    }
    s += w0 * in[clamp(x + 2, 0, n - 1)] + k[2] * in[clamp(x - 2, 0, n - 1)];
    out[x] = s;
}
";

#[test]
fn versioned_weights_read_past_a_branch_agree_with_the_interpreter() {
    if cpu_has_wide() {
        let k = compile(&build(AFTER_BRANCH, ""), "after_branch", 16);
        let line = code_line(&k);
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
        assert!(line.contains("; 3 clamps versioned"), "{line}");
    }
    let n = differential(AFTER_BRANCH, "after_branch", &wide_lines(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(n, 3),
            Spec::Floats(n, 0),
            Spec::Floats(3, 7),
            Spec::Int(n as i32),
        ]
    });
    assert_eq!(n, wide_lines().len() * WIDTHS.len());
}

//! Checked mode at the JIT's level: kernels built from OpenCL C, compiled
//! with `JitOptions::checked`, run through `run_groups` with the checked
//! tail of the argument block filled the way the runtime fills it.
//!
//! Each faulting case asserts the status, the recorded fault (kind,
//! address, size, work-item, line), that the buffers' guard bytes are
//! intact (nothing was written outside them), and that a following launch
//! of the same code runs. The corpus test runs the declared launch of every
//! `tests/corpus/*.cl` program checked and unchecked and wants the same
//! bytes.

use vecl_clc::corpus::{self, Arg as CorpusArg};
use vecl_jit::abi::{AccessKind, Fault, KernelStatus, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions};
use vecl_testkit::groups::{run_checked, CheckedArg};
use vecl_testkit::guarded::GuardedBuffer;

/// One kernel argument.
#[derive(Clone)]
enum Arg {
    Buf(Vec<u8>),
    Bytes(Vec<u8>),
    Local(u64),
}

fn ints(v: &[i32]) -> Arg {
    Arg::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn int(v: i32) -> Arg {
    Arg::Bytes(v.to_le_bytes().to_vec())
}

fn as_ints(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// What a launch did.
struct Outcome {
    status: u32,
    fault: Option<Fault>,
    bufs: Vec<Option<GuardedBuffer>>,
    /// Where the `__local` arena was.
    local_base: u64,
}

impl Outcome {
    fn buf(&self, i: usize) -> &GuardedBuffer {
        self.bufs[i].as_ref().expect("a buffer argument")
    }

    fn all_guards_intact(&self) -> bool {
        self.bufs.iter().flatten().all(GuardedBuffer::guards_intact)
    }
}

fn build(src: &str, name: &str, checked: bool, w: u32) -> CompiledKernel {
    let module = match vecl_clc::build(src, "") {
        Ok(b) => b.module,
        Err(e) => panic!("{e:?}"),
    };
    let opts = JitOptions {
        simd_width: Some(w),
        checked,
        ..JitOptions::default()
    };
    compile_kernel(&module, name, &opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs every group of a 1-D launch of `global` items in groups of `local`,
/// filling the checked tail like the runtime does.
fn run(k: &CompiledKernel, args: &[Arg], global: u64, local: u64) -> Outcome {
    run_nd(k, args, &[global], &[local])
}

fn run_nd(k: &CompiledKernel, args: &[Arg], global: &[u64], local: &[u64]) -> Outcome {
    let (mut g, mut l) = ([1u64; 3], [1u64; 3]);
    g[..global.len()].copy_from_slice(global);
    l[..local.len()].copy_from_slice(local);
    let mut launch = Launch::new(global.len() as u32, [0; 3], g, l);
    let bufs: Vec<Option<GuardedBuffer>> = args
        .iter()
        .map(|a| match a {
            Arg::Buf(b) => Some(GuardedBuffer::new(b)),
            _ => None,
        })
        .collect();
    let launch_args: Vec<CheckedArg> = args
        .iter()
        .zip(&bufs)
        .map(|(a, buf)| match (a, buf) {
            (Arg::Buf(_), Some(g)) => CheckedArg::Buffer {
                addr: g.addr(),
                len: g.len() as u64,
            },
            (Arg::Local(size), _) => CheckedArg::Local(*size),
            (Arg::Bytes(b), _) => CheckedArg::Bytes(b),
            (Arg::Buf(_), None) => unreachable!("every buffer is guarded"),
        })
        .collect();
    // SAFETY: the guarded buffers outlive the call; a checked kernel stops
    // before it leaves them, and an unchecked one is given buffers its
    // test sized for it.
    let run = unsafe { run_checked(k, &launch_args, &mut launch) };
    Outcome {
        status: run.status,
        fault: run.fault,
        bufs,
        local_base: run.local_base,
    }
}

const OOB: u32 = KernelStatus::OutOfBounds as u32;

#[test]
fn one_lane_writing_past_the_end_faults_and_writes_nothing_outside() {
    let src = "__kernel void k(__global int *out, int n) {
        int i = get_global_id(0);
        if (i <= n)
            out[i] = 7;
    }";
    for w in [4, 8, 16] {
        let k = build(src, "k", true, w);
        let r = run(&k, &[ints(&[0; 16]), int(16)], 32, 16);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(f.kind, AccessKind::Store);
        assert_eq!(f.size, 4);
        assert_eq!(f.global_id, [16, 0, 0]);
        assert_eq!(f.address, r.buf(0).addr() + 64);
        assert_eq!(f.line, 4, "the line of the store");
        assert!(r.all_guards_intact(), "W = {w}: nothing written outside");
        // The same code runs a correct launch afterwards.
        let ok = run(&k, &[ints(&[0; 16]), int(15)], 32, 16);
        assert_eq!(ok.status, 0);
        assert_eq!(as_ints(ok.buf(0).data()), vec![7; 16]);
    }
}

#[test]
fn a_whole_vector_past_the_end_falls_back_and_names_the_first_lane_outside() {
    let src = "__kernel void k(__global float *out) {
        out[get_global_id(0)] = 1.0f;
    }";
    for w in [4, 8, 16] {
        let k = build(src, "k", true, w);
        // 20 floats for 32 items: the chunk holding item 20 is full and
        // consecutive, but does not fit.
        let r = run(&k, &[Arg::Buf(vec![0; 80])], 32, 32);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(f.global_id, [20, 0, 0], "W = {w}");
        assert_eq!(f.address, r.buf(0).addr() + 80);
        assert!(r.all_guards_intact(), "W = {w}");
    }
    // vload4 / vstore4 go through the builtins' access path.
    let vec4 = "__kernel void k(__global const float *in, __global float *out) {
        int i = get_global_id(0);
        vstore4(vload4(i, in) * 2.0f, i, out);
    }";
    let k = build(vec4, "k", true, 8);
    let r = run(&k, &[Arg::Buf(vec![0; 60]), Arg::Buf(vec![0; 64])], 4, 4);
    assert_eq!(r.status, OOB);
    let f = r.fault.expect("a recorded fault");
    assert_eq!(
        (f.kind, f.size, f.global_id),
        (AccessKind::Load, 16, [3, 0, 0])
    );
    let ok = run(&k, &[Arg::Buf(vec![0; 64]), Arg::Buf(vec![0; 64])], 4, 4);
    assert_eq!(ok.status, 0);
}

#[test]
fn a_float4_chunk_past_the_end_falls_back_and_names_the_first_item_outside() {
    // Consecutive items' float4 elements are read and written as whole
    // pieces; a chunk that does not fit takes the per-lane path, which
    // names the first item outside.
    let src = "__kernel void k(__global const float4 *in, __global float4 *out) {
        size_t i = get_global_id(0);
        out[i] = in[i] + 1.0f;
    }";
    for w in [4, 8, 16] {
        let k = build(src, "k", true, w);
        // 32 items; the input holds 32 elements, the output 21.
        let r = run(
            &k,
            &[Arg::Buf(vec![0; 512]), Arg::Buf(vec![0; 336])],
            32,
            32,
        );
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.size, f.global_id),
            (AccessKind::Store, 16, [21, 0, 0]),
            "W = {w}"
        );
        assert_eq!(f.address, r.buf(1).addr() + 336);
        assert!(r.all_guards_intact(), "W = {w}");
        let ok = run(
            &k,
            &[Arg::Buf(vec![0; 512]), Arg::Buf(vec![0; 512])],
            32,
            32,
        );
        assert_eq!(ok.status, 0, "W = {w}");
        let out: Vec<f32> = ok
            .buf(1)
            .data()
            .chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(out, vec![1.0; 128], "W = {w}");
    }
}

#[test]
fn a_negative_index_read_faults() {
    let src = "__kernel void k(__global const int *in, __global int *out) {
        int i = get_global_id(0);
        out[i] = in[i - 1];
    }";
    let k = build(src, "k", true, 8);
    let input: Vec<i32> = (0..16).collect();
    let r = run(&k, &[ints(&input), ints(&[0; 16])], 16, 16);
    assert_eq!(r.status, OOB);
    let f = r.fault.expect("a recorded fault");
    assert_eq!(f.kind, AccessKind::Load);
    assert_eq!(f.global_id, [0, 0, 0]);
    assert_eq!(f.address, r.buf(0).addr().wrapping_sub(4));
    assert_eq!(f.size, 4);
    assert!(r.all_guards_intact());
    // The group stopped before any store: the output is untouched.
    assert_eq!(as_ints(r.buf(1).data()), vec![0; 16]);
}

#[test]
fn inactive_lanes_of_a_gather_are_not_checked() {
    let src = "__kernel void k(__global const int *idx, __global const int *in,
                           __global int *out, int skip) {
        int i = get_global_id(0);
        if (i != skip)
            out[i] = in[idx[i]];
    }";
    let mut idx: Vec<i32> = (0..16).rev().collect();
    idx[3] = 1_000_000;
    let input: Vec<i32> = (100..116).collect();
    for w in [4, 8] {
        let k = build(src, "k", true, w);
        // Lane 3 (the bad index) is masked off: no fault, every other lane runs.
        let r = run(
            &k,
            &[ints(&idx), ints(&input), ints(&[-1; 16]), int(3)],
            16,
            16,
        );
        assert_eq!(r.status, 0, "W = {w}");
        assert!(r.fault.is_none());
        let out = as_ints(r.buf(2).data());
        for (i, v) in out.iter().enumerate() {
            let want = if i == 3 { -1 } else { input[idx[i] as usize] };
            assert_eq!(*v, want, "W = {w}, item {i}");
        }
        // With the lane active the same gather faults, at item 3.
        let r = run(
            &k,
            &[ints(&idx), ints(&input), ints(&[-1; 16]), int(-1)],
            16,
            16,
        );
        assert_eq!(r.status, OOB);
        let f = r.fault.expect("a recorded fault");
        assert_eq!(f.global_id, [3, 0, 0]);
        assert_eq!(f.address, r.buf(1).addr() + 4 * 1_000_000);
        assert!(r.all_guards_intact());
    }
}

#[test]
fn local_overflow_faults_for_variables_and_arguments() {
    let var = "__kernel void k(__global int *out) {
        __local int tmp[8];
        int l = get_local_id(0);
        tmp[l] = l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tmp[0];
    }";
    let k = build(var, "k", true, 8);
    let r = run(&k, &[ints(&[0; 32])], 32, 16);
    assert_eq!(r.status, OOB);
    let f = r.fault.expect("a recorded fault");
    assert_eq!(f.kind, AccessKind::Store);
    assert_eq!(f.global_id, [8, 0, 0], "the first item past tmp[7]");
    let ok = run(&k, &[ints(&[0; 8])], 8, 8);
    assert_eq!(ok.status, 0);

    let arg = "__kernel void k(__global int *out, __local int *scratch) {
        int l = get_local_id(0);
        scratch[l + 1] = l;
        out[get_global_id(0)] = 1;
    }";
    let k = build(arg, "k", true, 8);
    // 16 ints of __local memory for groups of 16: the last item writes one past.
    let r = run(&k, &[ints(&[0; 16]), Arg::Local(64)], 16, 16);
    assert_eq!(r.status, OOB);
    assert_eq!(r.fault.expect("a recorded fault").global_id, [15, 0, 0]);
    let ok = run(&k, &[ints(&[0; 16]), Arg::Local(68)], 16, 16);
    assert_eq!(ok.status, 0);
    assert_eq!(as_ints(ok.buf(0).data()), vec![1; 16]);
}

#[test]
fn uniform_private_and_atomic_accesses_are_checked() {
    // A uniform address: reported for the first active work-item.
    let uniform = "__kernel void k(__global int *out, int n) {
        out[n] = 1;
    }";
    let k = build(uniform, "k", true, 8);
    let r = run(&k, &[ints(&[0; 4]), int(4)], 8, 8);
    assert_eq!(r.status, OOB);
    assert_eq!(r.fault.expect("fault").global_id, [0, 0, 0]);
    assert!(r.all_guards_intact());

    // A private array indexed past its end by some work-items.
    let private = "__kernel void k(__global int *out, int n) {
        int a[4];
        int i = get_global_id(0);
        for (int j = 0; j < 4; j++) a[j] = j;
        out[i] = a[i % n];
    }";
    let k = build(private, "k", true, 8);
    let r = run(&k, &[ints(&[0; 8]), int(8)], 8, 8);
    assert_eq!(r.status, OOB);
    assert_eq!(r.fault.expect("fault").global_id, [4, 0, 0]);
    let ok = run(&k, &[ints(&[0; 8]), int(4)], 8, 8);
    assert_eq!(ok.status, 0);
    assert_eq!(as_ints(ok.buf(0).data()), vec![0, 1, 2, 3, 0, 1, 2, 3]);

    // The same across a barrier, where private memory lives in each
    // chunk's context area.
    let across = "__kernel void k(__global int *out, int n) {
        int a[4];
        int l = get_local_id(0);
        for (int j = 0; j < 4; j++) a[j] = j + l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = a[l % n];
    }";
    let k = build(across, "k", true, 8);
    let r = run(&k, &[ints(&[0; 16]), int(8)], 16, 16);
    assert_eq!(r.status, OOB);
    let f = r.fault.expect("fault");
    assert_eq!((f.kind, f.global_id), (AccessKind::Load, [4, 0, 0]));
    let ok = run(&k, &[ints(&[0; 16]), int(4)], 16, 16);
    assert_eq!(ok.status, 0);
    let want: Vec<i32> = (0..16).map(|l| l % 4 + l).collect();
    assert_eq!(as_ints(ok.buf(0).data()), want);

    // An atomic on the element after the last.
    let atomic = "__kernel void k(__global int *bins, __global const int *data) {
        atomic_inc(&bins[data[get_global_id(0)]]);
    }";
    let k = build(atomic, "k", true, 4);
    let r = run(&k, &[ints(&[0; 4]), ints(&[0, 1, 2, 3, 4, 0, 1, 2])], 8, 8);
    assert_eq!(r.status, OOB);
    let f = r.fault.expect("fault");
    assert_eq!(f.kind, AccessKind::Atomic);
    assert_eq!(f.global_id, [4, 0, 0]);
    assert!(r.all_guards_intact());

    // Atomics on consecutive ints (four lanes per locked instruction when
    // the chunk fits): the chunk that runs past the end goes lane by lane.
    let consecutive = "__kernel void k(__global int *bins) {
        atomic_add(&bins[get_global_id(0)], 1);
    }";
    let k = build(consecutive, "k", true, 4);
    let r = run(&k, &[ints(&[0; 6])], 8, 8);
    assert_eq!(r.status, OOB);
    let f = r.fault.expect("fault");
    assert_eq!((f.kind, f.global_id), (AccessKind::Atomic, [6, 0, 0]));
    assert!(r.all_guards_intact());
    assert_eq!(&as_ints(r.buf(0).data())[..4], &[1, 1, 1, 1]);
}

/// Runs `src` checked and unchecked at W = 4, 8 and 16 and wants the same
/// bytes with status 0.
fn same_results(src: &str, name: &str, args: &[Arg], global: u64, local: u64) {
    for w in [4, 8, 16] {
        let plain = run(&build(src, name, false, w), args, global, local);
        let checked = run(&build(src, name, true, w), args, global, local);
        assert_eq!(plain.status, 0, "{name}, W = {w}");
        assert_eq!(checked.status, 0, "{name}, W = {w}: {:?}", checked.fault);
        for (a, b) in plain.bufs.iter().zip(&checked.bufs) {
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(a.data(), b.data(), "{name}, W = {w}");
            }
        }
    }
}

#[test]
fn correct_kernels_give_the_same_results_checked() {
    let floats = |n: usize| {
        Arg::Buf(
            (0..n)
                .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
                .collect(),
        )
    };
    same_results(
        "__kernel void vadd(__global const float *a, __global const float *b,
                            __global float *c, int n) {
            int i = get_global_id(0);
            if (i < n) c[i] = a[i] + b[i];
        }",
        "vadd",
        &[floats(100), floats(100), floats(100), int(100)],
        104,
        8,
    );
    same_results(
        "__kernel void sum(__global const float *in, __global float *out,
                           __local float *tmp) {
            int l = get_local_id(0);
            tmp[l] = in[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
                if (l < s) tmp[l] += tmp[l + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (l == 0) out[get_group_id(0)] = tmp[0];
        }",
        "sum",
        &[floats(64), floats(4), Arg::Local(64)],
        64,
        16,
    );
    same_results(
        "typedef struct { float x; int n; } P;
        __kernel void s(__global const float4 *v, __global float *out, P p) {
            int i = get_global_id(0);
            float t[3];
            for (int j = 0; j < 3; j++) t[j] = v[i].x * j + p.x;
            float4 q = vload4(i, (__global const float *)v);
            vstore2(q.xy, i, out);
            out[2 * get_global_size(0) + i] = t[i % 3] + p.n;
        }",
        "s",
        &[
            floats(64),
            floats(48),
            Arg::Bytes([1.5f32.to_le_bytes(), 3i32.to_le_bytes()].concat()),
        ],
        16,
        8,
    );
}

/// The corpus programs: declared launch, checked and unchecked, same bytes.
#[test]
fn corpus_programs_run_unchanged_in_checked_mode() {
    let files = vecl_testkit::corpus::opencl_c_programs();
    let mut ran = 0;
    for path in &files {
        let source = std::fs::read_to_string(path).expect("read");
        let Ok(case) = corpus::parse(&source) else {
            continue;
        };
        let Ok(built) = vecl_clc::build(&source, &case.options) else {
            continue;
        };
        let args: Vec<Arg> = case
            .args
            .iter()
            .map(|a| match a {
                CorpusArg::Buffer { .. } => Arg::Buf(a.bytes()),
                CorpusArg::Value { .. } => Arg::Bytes(a.bytes()),
                CorpusArg::Local { bytes } => Arg::Local(*bytes as u64),
            })
            .collect();
        // Every width: the chunk shapes (which lanes are off, where a
        // chunk ends) differ with it.
        for w in [4, 8, 16, 32] {
            let opts = |checked| JitOptions {
                simd_width: Some(w),
                checked,
                ..JitOptions::default()
            };
            let (Ok(plain), Ok(checked)) = (
                compile_kernel(&built.module, &case.kernel, &opts(false)),
                compile_kernel(&built.module, &case.kernel, &opts(true)),
            ) else {
                continue;
            };
            let a = run_nd(&plain, &args, &case.global, &case.local);
            let b = run_nd(&checked, &args, &case.global, &case.local);
            let name = path.display();
            assert_eq!(a.status, 0, "{name} unchecked, W = {w}");
            assert_eq!(b.status, 0, "{name} checked, W = {w}: {:?}", b.fault);
            for (x, y) in a.bufs.iter().zip(&b.bufs) {
                if let (Some(x), Some(y)) = (x, y) {
                    assert_eq!(x.data(), y.data(), "{name}, W = {w}");
                }
            }
        }
        ran += 1;
    }
    eprintln!("{ran} of {} corpus programs compared", files.len());
    assert!(ran >= 100, "only {ran} corpus programs ran");
}

#[test]
fn a_fault_in_groups_one_wide_in_dimension_0_names_the_work_item_by_the_launch_s_dimensions() {
    // Local size (1, 16) runs the copy whose lanes step along dimension 1;
    // the report still gives (x, y) as the launch sees them.
    let src = "__kernel void k(__global int *out, int n) {
        int i = get_global_id(0) * 32 + get_global_id(1);
        if (i < n)
            out[i] = 7;
    }";
    for w in [4, 8, 16] {
        let k = build(src, "k", true, w);
        let launch = Launch::new(2, [0; 3], [4, 32, 1], [1, 16, 1]);
        assert_eq!(k.lane_dimension(&launch), 1, "W = {w}");
        let r = run_nd(&k, &[ints(&[0; 100]), int(101)], &[4, 32], &[1, 16]);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            f.global_id,
            [3, 4, 0],
            "W = {w}: the first item past out[99]"
        );
        assert!(r.all_guards_intact(), "W = {w}: nothing written outside");
        let ok = run_nd(&k, &[ints(&[0; 128]), int(128)], &[4, 32], &[1, 16]);
        assert_eq!(ok.status, 0);
        assert_eq!(as_ints(ok.buf(0).data()), vec![7; 128]);
    }
}

#[test]
fn a_chunk_outside_only_in_its_last_lane_faults_at_that_item() {
    // A full chunk of consecutive items is tested once, as a whole; when
    // the test fails the fault names the one item outside, the last of
    // the chunk, and nothing is written.
    let src = "__kernel void k(__global const int *in, __global int *out) {
        int i = get_global_id(0);
        out[i] = in[i] + 1;
    }";
    let input: Vec<i32> = (0..32).collect();
    for w in [4, 8, 16, 32] {
        let k = build(src, "k", true, w);
        // The output holds 31 ints: only item 31 is outside.
        let r = run(&k, &[ints(&input), ints(&[0; 31])], 32, 32);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.size, f.global_id),
            (AccessKind::Store, 4, [31, 0, 0]),
            "W = {w}"
        );
        assert_eq!(f.address, r.buf(1).addr() + 124, "W = {w}");
        assert_eq!(f.line, 3, "W = {w}");
        assert!(r.all_guards_intact(), "W = {w}");
        // The input one short: the load of item 31 faults first.
        let r = run(&k, &[ints(&input[..31]), ints(&[0; 32])], 32, 32);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.global_id),
            (AccessKind::Load, [31, 0, 0]),
            "W = {w}"
        );
        assert_eq!(f.address, r.buf(0).addr() + 124, "W = {w}");
        // Exactly the right sizes: no fault, every item written.
        let ok = run(&k, &[ints(&input), ints(&[0; 32])], 32, 32);
        assert_eq!(ok.status, 0, "W = {w}: {:?}", ok.fault);
        let want: Vec<i32> = (1..33).collect();
        assert_eq!(as_ints(ok.buf(1).data()), want, "W = {w}");
    }
}

/// `tmp[l + shift]` read by the items with `l >= from` only, from a
/// `__local` buffer of one int per item of a group of 16.
const SHIFTED_LOCAL: &str = "__kernel void k(__global int *out, __local int *tmp,
                                             int from, int shift) {
        int l = get_local_id(0);
        tmp[l] = 100 + l;
        barrier(CLK_LOCAL_MEM_FENCE);
        int v = l >= from ? tmp[l + shift] : -1;
        out[get_global_id(0)] = v;
    }";

#[test]
fn a_masked_local_load_tests_only_its_running_lanes() {
    for w in [4, 8, 16, 32] {
        let k = build(SHIFTED_LOCAL, "k", true, w);
        // The scan's `tmp[l - 3]` for `l >= 3`: the lanes that are off
        // would read before the buffer; they are not tested.
        for (from, shift) in [(3, -3), (1, -1), (15, -15), (0, 0)] {
            let r = run(
                &k,
                &[ints(&[0; 32]), Arg::Local(64), int(from), int(shift)],
                32,
                16,
            );
            assert_eq!(r.status, 0, "W = {w}, l >= {from}: {:?}", r.fault);
            let out = as_ints(r.buf(0).data());
            for (i, v) in out.iter().enumerate() {
                let l = (i % 16) as i32;
                let want = if l >= from { 100 + l + shift } else { -1 };
                assert_eq!(*v, want, "W = {w}, l >= {from}, item {i}");
            }
        }
        // One running item past either end: that item is named.
        for (from, shift, item) in [(3, -4, 3), (3, 1, 15), (0, -1, 0)] {
            let r = run(
                &k,
                &[ints(&[0; 32]), Arg::Local(64), int(from), int(shift)],
                32,
                16,
            );
            assert_eq!(r.status, OOB, "W = {w}, shift {shift}");
            let f = r.fault.expect("a recorded fault");
            assert_eq!(
                (f.kind, f.size, f.global_id),
                (AccessKind::Load, 4, [item, 0, 0]),
                "W = {w}, shift {shift}"
            );
            assert_eq!(f.line, 6, "W = {w}");
            assert!(r.all_guards_intact(), "W = {w}");
            // Items past the one named did not run their store.
            let out = as_ints(r.buf(0).data());
            assert!(out[item as usize..].iter().all(|v| *v == 0), "W = {w}");
        }
    }
}

#[test]
fn the_hillis_steele_scan_gives_prefix_sums_checked_at_every_width() {
    let src = "__kernel void scan(__global const int *in, __global int *out,
                               __local int *tmp) {
        int lid = get_local_id(0);
        int n = get_local_size(0);
        tmp[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int offset = 1; offset < n; offset <<= 1) {
            int add = lid >= offset ? tmp[lid - offset] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            tmp[lid] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = tmp[lid];
    }";
    let input: Vec<i32> = (0..256).map(|i| (i * 7 % 13) - 6).collect();
    for local in [16u64, 64, 128] {
        let want: Vec<i32> = input
            .chunks(local as usize)
            .flat_map(|g| {
                g.iter().scan(0, |acc, x| {
                    *acc += x;
                    Some(*acc)
                })
            })
            .collect();
        for w in [4, 8, 16, 32] {
            let k = build(src, "scan", true, w);
            let r = run(
                &k,
                &[ints(&input), ints(&[0; 256]), Arg::Local(4 * local)],
                256,
                local,
            );
            assert_eq!(r.status, 0, "W = {w}, groups of {local}: {:?}", r.fault);
            assert_eq!(as_ints(r.buf(1).data()), want, "W = {w}, groups of {local}");
            // One int short of __local memory: the last item of the first
            // group writes past it.
            let r = run(
                &k,
                &[ints(&input), ints(&[0; 256]), Arg::Local(4 * local - 4)],
                256,
                local,
            );
            assert_eq!(r.status, OOB, "W = {w}, groups of {local}");
            let f = r.fault.expect("a recorded fault");
            assert_eq!(
                (f.kind, f.global_id),
                (AccessKind::Store, [local - 1, 0, 0]),
                "W = {w}, groups of {local}"
            );
        }
    }
}

/// Scan's `tmp[lid - offset]` under `lid >= offset` is proven for the
/// group (`offset` doubles from 1 while below the group's size, which the
/// kernel before the region rewrite shows), so no access of the kernel
/// keeps a test; a guard one weaker (`lid + 1 >= offset`) lets the index
/// reach -1, keeps the test, and the first work-item of the first group
/// reports its load below the `__local` argument.
#[test]
fn scan_s_shifted_local_read_is_proven_and_a_weaker_guard_keeps_its_test() {
    let src = "__kernel void scan(__global const int *in, __global int *out,
                               __local int *tmp) {
        int lid = get_local_id(0);
        int n = get_local_size(0);
        tmp[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int offset = 1; offset < n; offset <<= 1) {
            int add = lid >= offset ? tmp[lid - offset] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            tmp[lid] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = tmp[lid];
    }";
    let weaker = src.replace("lid >= offset ?", "lid + 1 >= offset ?");
    let input: Vec<i32> = (0..256).map(|i| (i * 5 % 11) - 5).collect();
    for w in [4, 8, 16, 32] {
        let k = build(src, "scan", true, w);
        let e = k.explain();
        assert!(
            e.contains("bounds-checked (7 proven in bounds at compile time)"),
            "W = {w}: {e}"
        );
        let k = build(&weaker, "scan", true, w);
        let e = k.explain();
        assert!(
            e.contains("bounds-checked (6 proven in bounds at compile time)"),
            "W = {w}: {e}"
        );
        let r = run(
            &k,
            &[ints(&input), ints(&[0; 256]), Arg::Local(4 * 64)],
            256,
            64,
        );
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.global_id, f.line),
            (AccessKind::Load, [0, 0, 0], 8),
            "W = {w}"
        );
        assert_eq!(f.address, r.local_base.wrapping_sub(4), "W = {w}");
    }
}

#[test]
fn uniform_accesses_fault_on_either_side_and_not_at_the_edges() {
    // Each bound is its own compare and branch: the first and last
    // elements pass, one before and one past fault.
    let src = "__kernel void k(__global int *out, __global const int *in, int at) {
        out[get_global_id(0)] = in[at];
    }";
    let input: Vec<i32> = (10..26).collect();
    for w in [4, 8, 16, 32] {
        let k = build(src, "k", true, w);
        for (at, want) in [(0, 10), (15, 25)] {
            let ok = run(&k, &[ints(&[0; 32]), ints(&input), int(at)], 32, 32);
            assert_eq!(ok.status, 0, "W = {w}, in[{at}]: {:?}", ok.fault);
            assert_eq!(as_ints(ok.buf(0).data()), vec![want; 32], "W = {w}");
        }
        for (at, off) in [(-1, -4i64), (16, 64)] {
            let r = run(&k, &[ints(&[0; 32]), ints(&input), int(at)], 32, 32);
            assert_eq!(r.status, OOB, "W = {w}, in[{at}]");
            let f = r.fault.expect("a recorded fault");
            assert_eq!(
                (f.kind, f.size, f.global_id),
                (AccessKind::Load, 4, [0, 0, 0]),
                "W = {w}, in[{at}]"
            );
            assert_eq!(f.address, r.buf(1).addr().wrapping_add_signed(off));
            assert_eq!(as_ints(r.buf(0).data()), vec![0; 32], "W = {w}");
        }
    }
    // A `__local` table read in a loop with an index the group's shape
    // bounds (matmul's `ta[ly][k]`): in bounds for groups of 4 rows, one
    // row past it for the fifth row's items.
    let table = "__kernel void k(__global float *out) {
        __local float t[4][8];
        int x = get_local_id(0), y = get_local_id(1);
        t[y % 4][x] = (float)(x + 8 * (y % 4));
        barrier(CLK_LOCAL_MEM_FENCE);
        float acc = 0.0f;
        for (int j = 0; j < 8; j++)
            acc += t[y][j];
        out[get_global_id(1) * 8 + get_global_id(0)] = acc;
    }";
    for w in [4, 8] {
        let k = build(table, "k", true, w);
        let ok = run_nd(&k, &[Arg::Buf(vec![0; 128])], &[8, 4], &[8, 4]);
        assert_eq!(ok.status, 0, "W = {w}: {:?}", ok.fault);
        let sums: Vec<f32> = ok
            .buf(0)
            .data()
            .chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let want: Vec<f32> = (0..32)
            .map(|i| (0..8).map(|j| (j + 8 * (i / 8)) as f32).sum())
            .collect();
        assert_eq!(sums, want, "W = {w}");
        let r = run_nd(&k, &[Arg::Buf(vec![0; 160])], &[8, 5], &[8, 5]);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.global_id),
            (AccessKind::Load, [0, 4, 0]),
            "W = {w}"
        );
        assert_eq!(f.line, 8, "W = {w}");
    }
}

/// A 16×16 `__local` tile indexed by local ids and by a counted loop's
/// counter: `t[ly][k]`, `t[ly][lx]`.
const TILE: &str = "__kernel void k(__global const int *in, __global int *out) {
    __local int t[16][16];
    int lx = get_local_id(0), ly = get_local_id(1);
    int w = get_global_size(0), i = get_global_id(1) * w + get_global_id(0);
    t[ly][lx] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    int s = 0;
    for (int k = 0; k < 16; k++)
        s += t[ly][k] * (k + 1);
    out[i] = s;
}";

#[test]
fn tile_accesses_proven_for_the_group_size_are_in_bounds_and_larger_groups_are_checked() {
    let (side, n) = (32u64, 32 * 32);
    let input: Vec<i32> = (0..n as i32).map(|v| v % 23 - 11).collect();
    // Row y of a 16-wide group: the sum over its 16 items of in * (k + 1).
    let expected: Vec<i32> = (0..n)
        .map(|i| {
            let (x, y) = (i % side as usize, i / side as usize);
            let row = y * side as usize + x / 16 * 16;
            (0..16).map(|k| input[row + k] * (k as i32 + 1)).sum()
        })
        .collect();
    for w in [4, 8, 16] {
        let k = build(TILE, "k", true, w);
        assert!(
            k.explain()
                .contains("proven for groups of at most 16 work-items in each dimension"),
            "W = {w}: {}",
            k.explain()
        );
        // Groups of 16×16: the code without the tests, right results.
        let args = [ints(&input), ints(&vec![0; n])];
        let r = run_nd(&k, &args, &[side, side], &[16, 16]);
        assert_eq!(r.status, 0, "W = {w}: {:?}", r.fault);
        assert_eq!(as_ints(r.buf(1).data()), expected, "W = {w}");
        // Groups of 8×32 break the bound: the copy that tests every access
        // stops at the first item whose row is past the tile.
        let r = run_nd(&k, &args, &[side, side], &[8, 32]);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(f.kind, AccessKind::Store, "W = {w}");
        assert_eq!(f.global_id, [0, 16, 0], "W = {w}: the first item of row 16");
        assert_eq!(f.line, 5, "W = {w}");
        assert!(r.all_guards_intact(), "W = {w}");
        // And the bounded code still runs the launches it fits.
        let again = run_nd(&k, &args, &[side, side], &[16, 16]);
        assert_eq!(again.status, 0, "W = {w}");
        assert_eq!(as_ints(again.buf(1).data()), expected, "W = {w}");
    }
}

#[test]
fn reqd_work_group_size_bounds_local_ids_and_other_group_sizes_are_checked() {
    let src = "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
    void k(__global int *out) {
        __local int t[8];
        int l = get_local_id(0);
        t[l] = l * 3;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = t[7 - l];
    }";
    for w in [4, 8] {
        let k = build(src, "k", true, w);
        assert!(
            k.explain().contains("at most 8 work-items"),
            "W = {w}: {}",
            k.explain()
        );
        let r = run(&k, &[ints(&[0; 16])], 16, 8);
        assert_eq!(r.status, 0, "W = {w}: {:?}", r.fault);
        let want: Vec<i32> = (0..16).map(|i| (7 - i % 8) * 3).collect();
        assert_eq!(as_ints(r.buf(0).data()), want, "W = {w}");
        // A launch that ignores the attribute (the runtime refuses one;
        // the code must not trust it either): item 8 stores past `t`.
        let r = run(&k, &[ints(&[0; 16])], 16, 16);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.global_id, f.line),
            (AccessKind::Store, [8, 0, 0], 5)
        );
    }
}

#[test]
fn a_counted_loop_s_private_array_accesses_are_proven_for_every_launch() {
    let src = "__kernel void k(__global int *out) {
        int a[12];
        for (int k = 0; k < 12; k++)
            a[k] = k * k;
        int s = 0;
        for (int k = 0; k < 12; k += 3)
            s += a[k + 2];
        out[get_global_id(0)] = s;
    }";
    for w in [4, 8, 16] {
        let k = build(src, "k", true, w);
        let e = k.explain();
        assert!(!e.contains("(0 proven"), "W = {w}: {e}");
        assert!(!e.contains("proven for groups"), "W = {w}: {e}");
        let r = run(&k, &[ints(&[0; 32])], 32, 8);
        assert_eq!(r.status, 0, "W = {w}: {:?}", r.fault);
        // a[2] + a[5] + a[8] + a[11]
        assert_eq!(as_ints(r.buf(0).data()), vec![4 + 25 + 64 + 121; 32]);
    }
}

/// The tree reduction of `benches/reduce.cl`: `scratch[lid]` and, under
/// `lid < s`, `scratch[lid + s]`, all within one float per item.
const TREE_REDUCE: &str = "__kernel void reduce(__global const float *in, __global float *partial,
                                 __local float *scratch) {
        size_t lid = get_local_id(0);
        size_t n = get_local_size(0);
        scratch[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t s = n / 2; s > 0; s >>= 1) {
            if (lid < s)
                scratch[lid] += scratch[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            partial[get_group_id(0)] = scratch[0];
    }";

fn floats(v: &[f32]) -> Arg {
    Arg::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn as_floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

#[test]
fn local_argument_accesses_trusted_for_the_group_and_a_short_argument_reported_exactly() {
    let input: Vec<f32> = (0..256).map(|i| (i % 9) as f32).collect();
    for w in [4, 8, 16, 32] {
        let k = build(TREE_REDUCE, "reduce", true, w);
        let e = k.explain();
        assert!(
            e.contains("__local argument 2 within an element per work-item"),
            "W = {w}: {e}"
        );
        assert!(!e.contains(" 0 of them proven for groups"), "W = {w}: {e}");
        for local in [16u64, 64, 256] {
            let want: Vec<f32> = input
                .chunks(local as usize)
                .map(|g| g.iter().sum())
                .collect();
            let groups = 256 / local as usize;
            let r = run(
                &k,
                &[
                    floats(&input),
                    floats(&vec![0.0; groups]),
                    Arg::Local(4 * local),
                ],
                256,
                local,
            );
            assert_eq!(r.status, 0, "W = {w}, groups of {local}: {:?}", r.fault);
            assert_eq!(
                as_floats(r.buf(1).data()),
                want,
                "W = {w}, groups of {local}"
            );
            // One float short, and half the floats: the copy that tests
            // every access names the first item whose store leaves it,
            // the address one past the argument's end, and the line.
            for size in [4 * local - 4, 2 * local] {
                let r = run(
                    &k,
                    &[floats(&input), floats(&vec![0.0; groups]), Arg::Local(size)],
                    256,
                    local,
                );
                assert_eq!(r.status, OOB, "W = {w}, groups of {local}, {size} bytes");
                let f = r.fault.expect("a recorded fault");
                assert_eq!(
                    (f.kind, f.size, f.global_id, f.line),
                    (AccessKind::Store, 4, [size / 4, 0, 0], 5),
                    "W = {w}, groups of {local}, {size} bytes"
                );
                // The argument starts the arena (the kernel has no __local
                // variable): the address is its byte `size`.
                assert_eq!(f.address, r.local_base + size, "W = {w}");
                assert!(r.all_guards_intact(), "W = {w}");
                assert!(as_floats(r.buf(1).data()).iter().all(|v| *v == 0.0));
            }
        }
        // Groups of 48 (not a power of two) with exactly 48 floats: the
        // code trusting groups of up to 64 does not run them, the copy
        // that tests does, and finds nothing wrong.
        let input48: Vec<f32> = (0..96).map(|i| (i % 5) as f32).collect();
        let want: Vec<f32> = input48.chunks(48).map(|g| g.iter().sum()).collect();
        let r = run(
            &k,
            &[floats(&input48), floats(&[0.0; 2]), Arg::Local(4 * 48)],
            96,
            48,
        );
        assert_eq!(r.status, 0, "W = {w}, groups of 48: {:?}", r.fault);
        // The tree over 48 items drops what a power of two would not:
        // compare with the same tree on the host.
        let tree = |g: &[f32]| {
            let mut v = g.to_vec();
            let mut s = v.len() / 2;
            while s > 0 {
                for l in 0..s {
                    v[l] += v[l + s];
                }
                s /= 2;
            }
            v[0]
        };
        let want48: Vec<f32> = input48.chunks(48).map(tree).collect();
        assert_eq!(as_floats(r.buf(1).data()), want48, "W = {w}, groups of 48");
        assert_ne!(want48, want, "the tree over 48 items is not the plain sum");
    }
}

/// A gather in a counted loop (`benches/histogram.cl`'s `data[base + k]`):
/// each item reads its own `per` bytes, so the buffer's last byte is read
/// by the last lane of the launch in the loop's last trip.
const PER_ITEM_SUM: &str =
    "__kernel void k(__global const uchar *data, __global int *out, int per) {
        size_t base = get_global_id(0) * per;
        int s = 0;
        for (int k = 0; k < per; k++)
            s += data[base + k];
        out[get_global_id(0)] = s;
    }";

#[test]
fn a_gather_in_a_loop_faults_at_the_last_lane_of_the_last_trip_only() {
    let per = 5usize;
    for w in [4, 8, 16, 32] {
        let k = build(PER_ITEM_SUM, "k", true, w);
        for items in [32usize, 64] {
            let data: Vec<u8> = (0..items * per).map(|i| (i % 7) as u8).collect();
            let want: Vec<i32> = data
                .chunks(per)
                .map(|c| c.iter().map(|b| i32::from(*b)).sum())
                .collect();
            let args = |bytes: &[u8]| {
                [
                    Arg::Buf(bytes.to_vec()),
                    ints(&vec![0; items]),
                    int(per as i32),
                ]
            };
            // Exactly the bytes read: no fault, every sum right.
            let r = run(&k, &args(&data), items as u64, 16);
            assert_eq!(r.status, 0, "W = {w}, {items} items: {:?}", r.fault);
            assert_eq!(as_ints(r.buf(1).data()), want, "W = {w}, {items} items");
            // One byte short: the last item's last read, and nothing else.
            let short = &data[..data.len() - 1];
            let r = run(&k, &args(short), items as u64, 16);
            assert_eq!(r.status, OOB, "W = {w}, {items} items");
            let f = r.fault.expect("a recorded fault");
            assert_eq!(
                (f.kind, f.size, f.global_id, f.line),
                (AccessKind::Load, 1, [items as u64 - 1, 0, 0], 5),
                "W = {w}, {items} items"
            );
            assert_eq!(f.address, r.buf(0).addr() + short.len() as u64, "W = {w}");
            assert!(r.all_guards_intact(), "W = {w}");
            // The groups before the last one ran to the end.
            let got = as_ints(r.buf(1).data());
            assert_eq!(
                got[..items - 16],
                want[..items - 16],
                "W = {w}, {items} items"
            );
        }
    }
}

/// Whether `k`'s code trusts some accesses to be proven at launch.
fn proven_at_launch(k: &CompiledKernel) -> bool {
    k.explain().contains("proven at launch")
}

/// A clamped 2-D read (the shape of `benches/conv5x5.cl`): in bounds for
/// every work-item when `in` holds `width * height` ints, which only the
/// launch's arguments and buffer size show.
const CLAMPED: &str =
    "__kernel void k(__global const int *in, __global int *out, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1);
    int xx = clamp(x + 1, 0, width - 1), yy = clamp(y + 1, 0, height - 1);
    out[y * width + x] = in[yy * width + xx];
}";

#[test]
fn a_clamped_index_is_proven_at_launch_and_a_short_buffer_is_reported_exactly() {
    let (w_, h_) = (24usize, 8usize);
    let input: Vec<i32> = (0..(w_ * h_) as i32).collect();
    let expected: Vec<i32> = (0..w_ * h_)
        .map(|i| {
            let (x, y) = (i % w_, i / w_);
            let (xx, yy) = ((x + 1).min(w_ - 1), (y + 1).min(h_ - 1));
            input[yy * w_ + xx]
        })
        .collect();
    for w in [4, 8, 16, 32] {
        let k = build(CLAMPED, "k", true, w);
        assert!(proven_at_launch(&k), "W = {w}: {}", k.explain());
        let args = |len: usize| {
            [
                ints(&input[..len]),
                ints(&vec![0; w_ * h_]),
                int(w_ as i32),
                int(h_ as i32),
            ]
        };
        let r = run_nd(&k, &args(w_ * h_), &[w_ as u64, h_ as u64], &[8, 4]);
        assert_eq!(r.status, 0, "W = {w}: {:?}", r.fault);
        assert_eq!(as_ints(r.buf(1).data()), expected, "W = {w}");
        // One int short: the items of the last two rows and columns read
        // the last int, the first of them at (22, 6). The launch proves
        // nothing, and the copy that tests reports it.
        let short = w_ * h_ - 1;
        let r = run_nd(&k, &args(short), &[w_ as u64, h_ as u64], &[8, 4]);
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.size, f.global_id, f.line),
            (AccessKind::Load, 4, [w_ as u64 - 2, h_ as u64 - 2, 0], 4),
            "W = {w}"
        );
        assert_eq!(f.address, r.buf(0).addr() + 4 * short as u64, "W = {w}");
        assert!(r.all_guards_intact(), "W = {w}");
        // A height larger than the buffer's rows, with the buffer right
        // for the launch: the clamp keeps rows below `height`, so row 8 is
        // read by the items of the last launched row, from column 1.
        let r = run_nd(
            &k,
            &[
                ints(&input),
                ints(&vec![0; w_ * h_]),
                int(w_ as i32),
                int(h_ as i32 + 1),
            ],
            &[w_ as u64, h_ as u64],
            &[8, 4],
        );
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(f.global_id, [0, h_ as u64 - 1, 0], "W = {w}");
        assert_eq!(
            f.address,
            r.buf(0).addr() + 4 * (w_ * h_ + 1) as u64,
            "W = {w}"
        );
        // The proven code runs the right launch again.
        let r = run_nd(&k, &args(w_ * h_), &[w_ as u64, h_ as u64], &[8, 4]);
        assert_eq!(r.status, 0, "W = {w}");
        assert_eq!(as_ints(r.buf(1).data()), expected, "W = {w}");
    }
}

/// Work-item `i` copies column `i` of an `n`-row table to its row of
/// `out`, one store per trip: the load's index is affine in the counted
/// loop's counter.
const COLUMNS: &str = "__kernel void k(__global const int *in, __global int *out, int n, int m) {
    int i = get_global_id(0);
    for (int r = 0; r < n; r++) {
        out[i * n + r] = in[r * m + i];
    }
}";

#[test]
fn a_fault_in_a_loop_proven_at_launch_is_reported_at_its_trip_and_lane() {
    let n = 6usize;
    for w in [4, 8, 16, 32] {
        // One chunk of `m` items: every item makes trip `r` before any
        // makes trip `r + 1`, so a table cut in row `r` faults in trip `r`.
        let m = w as usize;
        let table: Vec<i32> = (0..(n * m) as i32).map(|v| v * 3 - 7).collect();
        let expected: Vec<i32> = (0..m * n).map(|j| table[(j % n) * m + j / n]).collect();
        let k = build(COLUMNS, "k", true, w);
        assert!(proven_at_launch(&k), "W = {w}: {}", k.explain());
        let args = |len: usize| {
            [
                ints(&table[..len]),
                ints(&vec![0; m * n]),
                int(n as i32),
                int(m as i32),
            ]
        };
        let r = run(&k, &args(n * m), m as u64, m as u64);
        assert_eq!(r.status, 0, "W = {w}: {:?}", r.fault);
        assert_eq!(as_ints(r.buf(1).data()), expected, "W = {w}");
        // The first trip, one in the middle and the last; the row missing
        // (the first item faults) or its last int (the last item).
        for trip in [0, n / 2, n - 1] {
            for (len, item) in [(trip * m, 0usize), ((trip + 1) * m - 1, m - 1)] {
                let r = run(&k, &args(len), m as u64, m as u64);
                assert_eq!(r.status, OOB, "W = {w}, trip {trip}, item {item}");
                let f = r.fault.expect("a recorded fault");
                assert_eq!(
                    (f.kind, f.size, f.global_id, f.line),
                    (AccessKind::Load, 4, [item as u64, 0, 0], 4),
                    "W = {w}, trip {trip}, item {item}"
                );
                let at = trip * m + item;
                assert_eq!(f.address, r.buf(0).addr() + 4 * at as u64, "W = {w}");
                assert!(r.all_guards_intact(), "W = {w}");
                // Every earlier trip stored its values.
                let got = as_ints(r.buf(1).data());
                for i in 0..m {
                    for t in 0..trip {
                        assert_eq!(
                            got[i * n + t],
                            expected[i * n + t],
                            "W = {w}, trip {trip}, item {item}: item {i}'s trip {t}"
                        );
                    }
                }
            }
        }
    }
}

/// A `__local` argument indexed by the local id plus the group's number:
/// it must hold an element per work-item and one more per group after the
/// first, so a launch whose argument is one short faults in its last
/// group only.
const LOCAL_BY_GROUP: &str = "__kernel void k(__global int *out, __local int *t) {
    int l = get_local_id(0), g = get_group_id(0);
    t[l + g] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[l + g] + g;
}";

#[test]
fn a_local_access_out_of_range_in_one_group_only_is_reported_there() {
    let (groups, size) = (4usize, 16usize);
    let n = groups * size;
    let expected: Vec<i32> = (0..n as i32).map(|i| i % 16 + i / 16).collect();
    for w in [4, 8, 16, 32] {
        let k = build(LOCAL_BY_GROUP, "k", true, w);
        assert!(proven_at_launch(&k), "W = {w}: {}", k.explain());
        let enough = (4 * (size + groups - 1)) as u64;
        let r = run(&k, &[ints(&vec![0; n]), Arg::Local(enough)], n as u64, 16);
        assert_eq!(r.status, 0, "W = {w}: {:?}", r.fault);
        assert_eq!(as_ints(r.buf(0).data()), expected, "W = {w}");
        // One int short: only the last group's last item stores past it.
        let r = run(
            &k,
            &[ints(&vec![0; n]), Arg::Local(enough - 4)],
            n as u64,
            16,
        );
        assert_eq!(r.status, OOB, "W = {w}");
        let f = r.fault.expect("a recorded fault");
        assert_eq!(
            (f.kind, f.size, f.global_id, f.line),
            (AccessKind::Store, 4, [n as u64 - 1, 0, 0], 3),
            "W = {w}"
        );
        assert_eq!(f.address, r.local_base + enough - 4, "W = {w}");
        // The groups before the last ran to the end.
        let got = as_ints(r.buf(0).data());
        assert_eq!(got[..n - size], expected[..n - size], "W = {w}");
    }
}

/// A tile staged in a `__local` argument and read whole by every item in
/// a loop to the group's size (`benches/nbody.cl`'s `tile[j]`): every
/// access is trusted for the group size, on the wide code too, where
/// only the two `__global` accesses keep their tests. The components `y`
/// and `z` are 0, so `g` is 0: its arithmetic, as much as nbody's per
/// tile element, is what makes the wide code take the loop.
const TILE_LOOP: &str =
    "__kernel void k(__global const float4 *in, __global float *out, __local float4 *tile, int n) {
    int lid = get_local_id(0), size = get_local_size(0);
    if (lid < n) tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int j = 0; j < size; j++) {
        float4 q = tile[j];
        float a = q.y * q.z + q.y, b = a * q.x - q.z, c = b * q.w + a;
        float d = c * c + b * a, e = d * q.x - c * q.w;
        float f = e * q.y + d * q.z, g = f * q.w - e * q.x;
        s += q.x + q.w * (float)lid + g;
    }
    out[get_global_id(0)] = s;
}";

fn build_with(src: &str, name: &str, w: u32, wide: bool) -> CompiledKernel {
    let module = vecl_clc::build(src, "")
        .unwrap_or_else(|e| panic!("{e:?}"))
        .module;
    let opts = JitOptions {
        simd_width: Some(w),
        checked: true,
        wide,
        ..JitOptions::default()
    };
    compile_kernel(&module, name, &opts).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_local_tile_read_to_the_group_size_is_trusted_and_a_short_one_faults_in_the_last_trip() {
    let float4s =
        |v: &[[f32; 4]]| Arg::Buf(v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect());
    let wide_cpu = vecl_jit::wide::select::cpu_supported();
    for (w, wide) in [(4, true), (8, true), (16, true), (16, false), (32, true)] {
        let k = build_with(TILE_LOOP, "k", w, wide);
        let e = k.explain();
        assert!(
            e.contains("__local argument 2 within an element per work-item"),
            "W = {w}: {e}"
        );
        let on_wide = wide && w == 16 && wide_cpu;
        if on_wide {
            // `in[gid]` (a component at a time) and `out[gid]`: the
            // tile's store and the loop's loads are trusted.
            assert!(e.contains("code: wide AVX-512"), "W = {w}: {e}");
            assert!(e.contains("; 5 accesses bounds-checked"), "W = {w}: {e}");
        }
        for local in [16u64, 64] {
            let groups = 2u64;
            let n = (groups * local) as usize;
            let input: Vec<[f32; 4]> = (0..n)
                .map(|i| [(i % 7) as f32, 0.0, 0.0, (i % 3) as f32])
                .collect();
            let want: Vec<f32> = (0..n)
                .map(|i| {
                    let g = i / local as usize * local as usize;
                    let lid = (i % local as usize) as f32;
                    (0..local as usize)
                        .map(|j| input[g + j][0] + input[g + j][3] * lid)
                        .sum()
                })
                .collect();
            let r = run(
                &k,
                &[
                    float4s(&input),
                    floats(&vec![0.0; n]),
                    Arg::Local(16 * local),
                    int(local as i32),
                ],
                n as u64,
                local,
            );
            assert_eq!(r.status, 0, "W = {w}, groups of {local}: {:?}", r.fault);
            assert_eq!(
                as_floats(r.buf(1).data()),
                want,
                "W = {w}, groups of {local}"
            );
            // One group, a tile one element short of the loop's bound
            // (the stores stay inside it): the copy that tests every
            // access stops at the load of the loop's last trip, by the
            // group's first item, one element past the argument's end.
            let short = 16 * (local - 1);
            let r = run(
                &k,
                &[
                    float4s(&input[..local as usize]),
                    floats(&vec![0.0; local as usize]),
                    Arg::Local(short),
                    int(local as i32 - 1),
                ],
                local,
                local,
            );
            assert_eq!(r.status, OOB, "W = {w}, groups of {local}");
            let f = r.fault.expect("a recorded fault");
            assert_eq!(
                (f.kind, f.global_id, f.line),
                (AccessKind::Load, [0, 0, 0], 7),
                "W = {w}, groups of {local}: {f:?}"
            );
            assert_eq!(
                f.address,
                r.local_base + short,
                "W = {w}, groups of {local}"
            );
            assert!(r.all_guards_intact(), "W = {w}");
            assert!(as_floats(r.buf(1).data()).iter().all(|v| *v == 0.0));
        }
    }
}

//! The wide AVX-512 code's memory path (`vecl_jit::wide::access`) against
//! the interpreter and against Cranelift's robust code: streaming stores
//! on launches above the threshold (lowered through
//! `JitOptions::stream_min_items`), prefetched loads, tails, offsets and
//! partial groups, in 64-byte aligned buffers with guard bytes on both
//! sides and at a 4-byte offset in them (so that both the streaming and
//! the plain paths run); robust access's faults in the first, a middle
//! and the last lane of a chunk, for loads and stores, reported exactly
//! as Cranelift's robust code reports them.

use std::sync::Arc;
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_jit::abi::{checked_offsets as co, ArgKind, Fault, FaultRecord, KernelStatus, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::differential::{build, interp_args_for, Spec};
use vecl_testkit::groups::{align64, aligned};
use vecl_testkit::guarded::GuardedBuffer;
use vecl_testkit::range_1d;
use vecl_testkit::{code_line, cpu_has_wide};

/// W = 16, optimised tier; `wide` asked for or not, robust access or
/// not, streaming from `stream_min_items` work-items.
fn options(wide: bool, robust: bool, stream_min_items: u64) -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide,
        checked: robust,
        local_checks: false,
        tiers: Tiers::OptimisedOnly,
        stream_min_items,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

/// Kernel `kernel` of `m` with `opts`, which must get the wide code (on a
/// CPU with AVX-512).
fn compile_wide(m: &vecl_ir::Module, kernel: &str, opts: &JitOptions) -> CompiledKernel {
    let k = compile_kernel(m, kernel, opts).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{kernel}: {line}");
    }
    k
}

/// What a launch did.
struct Outcome {
    status: u32,
    fault: Option<Fault>,
    /// Per argument: its buffer (with the offset into it), if a buffer.
    bufs: Vec<Option<(GuardedBuffer, usize)>>,
}

impl Outcome {
    /// The bytes the kernel saw as buffer `i`.
    fn data(&self, i: usize) -> &[u8] {
        let (b, skew) = self.bufs[i].as_ref().expect("a buffer");
        &b.data()[*skew..]
    }

    /// The address the kernel saw as buffer `i`.
    fn addr(&self, i: usize) -> u64 {
        let (b, skew) = self.bufs[i].as_ref().expect("a buffer");
        b.addr() + *skew as u64
    }

    fn guards_intact(&self) -> bool {
        self.bufs.iter().flatten().all(|(b, _)| b.guards_intact())
    }
}

/// Runs every group of `range` through `k` with `args`, each buffer in a
/// 64-aligned guarded allocation `skew` bytes in (the bytes before it
/// hold zeros the kernel must not touch), the checked tail filled as the
/// runtime fills it.
fn run(k: &CompiledKernel, args: &[KernelArg], range: &NdRange, skew: usize) -> Outcome {
    let mut launch = Launch::new(
        range.work_dim,
        range.global_offset,
        range.global_size,
        range.local_size,
    );
    let mut bufs: Vec<Option<(GuardedBuffer, usize)>> = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => {
                let mut bytes = vec![0u8; skew];
                bytes.extend_from_slice(b);
                Some((GuardedBuffer::new(&bytes), skew))
            }
            _ => None,
        })
        .collect();
    let mut block = vec![0u8; k.args_size().max(8)];
    let put = |block: &mut Vec<u8>, at: usize, v: u64| {
        block[at..at + 8].copy_from_slice(&v.to_le_bytes())
    };
    let record = Arc::new(FaultRecord::new());
    let tail = k.checked_tail();
    if let Some(t) = tail {
        put(&mut block, t, Arc::as_ptr(&record) as u64);
    }
    for (i, ((slot, a), buf)) in k.args().iter().zip(args).zip(&mut bufs).enumerate() {
        let at = slot.offset as usize;
        match (slot.kind, a, buf) {
            (ArgKind::GlobalPointer, KernelArg::Buffer(b), Some((g, skew))) => {
                let p = g.addr() + *skew as u64;
                put(&mut block, at, p);
                if let Some(t) = tail {
                    let e = t + (co::BOUNDS + co::BOUNDS_ENTRY * i as i32) as usize;
                    put(&mut block, e, p);
                    put(&mut block, e + 8, p + b.len() as u64);
                }
            }
            (ArgKind::Value, KernelArg::Value(b), _) => {
                block[at..at + b.len()].copy_from_slice(b);
            }
            (kind, a, _) => panic!("argument {a:?} does not match slot {kind:?}"),
        }
    }
    launch.local_mem_size = 0;
    let mut local = aligned(64 + 2 * vecl_jit::abi::LOCAL_PAD + k.static_local_size());
    // SAFETY: as for the run below.
    let mut context = aligned(unsafe { k.launch_context_size(block.as_ptr(), &launch) } + 64);
    // SAFETY: the arena's padding lies inside its allocation.
    let lp = unsafe { align64(local.as_mut_ptr() as *mut u8).add(vecl_jit::abi::LOCAL_PAD) };
    let cp = align64(context.as_mut_ptr() as *mut u8);
    // SAFETY: the block matches args() (the checked tail included); the
    // buffers outlive the call and hold every element the launches below
    // address (or the kernel is robust and stops before it leaves them).
    let status = unsafe { k.run_groups(block.as_ptr(), &launch, 0, launch.total_groups(), lp, cp) };
    Outcome {
        status,
        fault: record.fault(),
        bufs,
    }
}

/// `kernel` of `src` on the wide code (with `opts`) against the
/// interpreter over `ranges`, each buffer at skews 0 (64-aligned) and 4.
fn agree(
    src: &str,
    kernel: &str,
    opts: &JitOptions,
    ranges: &[NdRange],
    specs: impl Fn(&NdRange) -> Vec<Spec>,
) {
    let m = build(src, "");
    let k = compile_wide(&m, kernel, opts);
    for range in ranges {
        let init = interp_args_for(&specs(range));
        let mut want = init.clone();
        run_kernel(&m, kernel, &mut want, range)
            .unwrap_or_else(|e| panic!("{kernel} {range:?}: interpreter: {e}"));
        for skew in [0, 4] {
            let got = run(&k, &init, range, skew);
            assert_eq!(got.status, 0, "{kernel} {range:?} skew {skew}");
            assert!(
                got.guards_intact(),
                "{kernel} {range:?} skew {skew}: guards"
            );
            for (i, a) in want.iter().enumerate() {
                if let KernelArg::Buffer(w) = a {
                    let (b, _) = got.bufs[i].as_ref().expect("a buffer");
                    assert!(
                        b.data()[..skew].iter().all(|x| *x == 0),
                        "{kernel} {range:?} skew {skew}: bytes before buffer {i}"
                    );
                    assert!(
                        got.data(i) == &w[..],
                        "{kernel} {range:?} skew {skew}: buffer {i} differs from the interpreter at byte {:?}",
                        w.iter().zip(got.data(i)).position(|(a, b)| a != b)
                    );
                }
            }
        }
    }
}

/// 1-D launches of more than the lowered streaming threshold: whole
/// chunks, tails, offsets (chunks off the line), partial groups.
fn large_ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 1024, 256),
        range_1d(0, 1000, 128),
        range_1d(3, 997, 100),
        range_1d(16, 777, 777),
        range_1d(0, 333, 64),
    ]
}

fn bench_source(name: &str) -> String {
    let path = format!("{}/../benches/{name}.cl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn streaming_stores_above_the_threshold_agree_with_the_interpreter() {
    // Threshold 256: every launch but the last streams.
    let opts = options(true, false, 256);
    let vadd = bench_source("vadd");
    let m = build(&vadd, "");
    let k = compile_wide(&m, "vadd", &opts);
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(
            line.contains("; 1 streaming stores on large launches"),
            "{line}"
        );
        assert!(line.contains("; 2 loads prefetched"), "{line}");
    }
    agree(&vadd, "vadd", &opts, &large_ranges(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Floats(n, 1), Spec::Floats(n, 2), Spec::Floats(n, 0)]
    });
    // saxpy reads the buffer it writes: no streaming, a prefetch of x.
    let saxpy = bench_source("saxpy");
    let k = compile_wide(&build(&saxpy, ""), "saxpy", &opts);
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(!line.contains("streaming"), "{line}");
        assert!(line.contains("; 2 loads prefetched"), "{line}");
    }
    agree(&saxpy, "saxpy", &opts, &large_ranges(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![Spec::Float(2.5), Spec::Floats(n, 1), Spec::Floats(n, 2)]
    });
    // Two outputs, one written under a branch (masked in full chunks),
    // a 2-D launch whose rows end in tails.
    let two = r#"
kernel void k(global const float* a, global float* p, global float* q, int w) {
    int x = get_global_id(0), y = get_global_id(1);
    int i = y * w + x;
    float v = a[i];
    p[i] = v * 2.0f;
    if (v > 0.0f)
        q[i] = v;
}
"#;
    let k = compile_wide(&build(two, ""), "k", &opts);
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.contains("; 2 streaming stores"), "{line}");
    }
    let ranges = [
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [64, 9, 1],
            local_size: [32, 3, 1],
        },
        NdRange {
            work_dim: 2,
            global_offset: [1, 2, 0],
            global_size: [37, 11, 1],
            local_size: [16, 4, 1],
        },
    ];
    agree(two, "k", &opts, &ranges, |r| {
        let w = r.global_offset[0] + r.global_size[0];
        let n = (w * (r.global_offset[1] + r.global_size[1])) as usize;
        vec![
            Spec::Floats(n, 1),
            Spec::Floats(n, 0),
            Spec::Floats(n, 0),
            Spec::Int(w as i32),
        ]
    });
}

#[test]
fn robust_wide_code_agrees_with_the_interpreter_in_bounds() {
    let opts = options(true, true, 256);
    for name in ["vadd", "saxpy"] {
        let src = bench_source(name);
        let k = compile_wide(&build(&src, ""), name, &opts);
        if cpu_has_wide() {
            let line = code_line(&k);
            assert!(line.contains("; 3 accesses bounds-checked"), "{line}");
        }
        agree(&src, name, &opts, &large_ranges(), |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize;
            match name {
                "vadd" => vec![Spec::Floats(n, 1), Spec::Floats(n, 2), Spec::Floats(n, 0)],
                _ => vec![Spec::Float(2.5), Spec::Floats(n, 1), Spec::Floats(n, 2)],
            }
        });
    }
    // Gathers and scatters in bounds: indices from a table, under a mask.
    let gather = r#"
kernel void k(global const int* idx, global const float* a, global float* out) {
    int i = get_global_id(0);
    int j = idx[i];
    if (j >= 0)
        out[j] = a[j] + 1.0f;
}
"#;
    let m = build(gather, "");
    let k = compile_wide(&m, "k", &opts);
    let n = 100usize;
    // A permutation of 0..n, with every seventh index negative (skipped).
    let idx: Vec<u8> = (0..n as i32)
        .map(|i| if i % 7 == 3 { -5 } else { (i * 37) % n as i32 })
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let a: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let init = vec![
        KernelArg::Buffer(idx),
        KernelArg::Buffer(a),
        KernelArg::Buffer(vec![0; 4 * n]),
    ];
    let range = range_1d(0, n as u64, 25);
    let mut want = init.clone();
    run_kernel(&m, "k", &mut want, &range).expect("the interpreter runs it");
    let got = run(&k, &init, &range, 4);
    assert_eq!(got.status, 0);
    assert!(got.guards_intact());
    let KernelArg::Buffer(w) = &want[2] else {
        unreachable!()
    };
    assert_eq!(got.data(2), &w[..]);
}

/// Gathered bytes read the aligned words that hold them: at every
/// alignment of the buffers (skews 0 to 3), the first and the last byte
/// included, with every byte value, against the interpreter.
#[test]
fn gathered_bytes_agree_at_every_alignment() {
    let src = "kernel void k(global const uchar* u, global const char* c, global int* out, int n) {
    int i = get_global_id(0);
    out[i] = u[(i * 7) % n] + 1000 * c[(n - 1 - i * 3 % n)];
}";
    let m = build(src, "");
    let k = compile_wide(&m, "k", &options(true, true, 1 << 22));
    let n = 61usize;
    let bytes = |seed: usize| KernelArg::Buffer((0..n).map(|i| (i * 131 + seed) as u8).collect());
    let init = vec![
        bytes(0),
        bytes(77),
        KernelArg::Buffer(vec![0; 4 * n]),
        KernelArg::Value((n as i32).to_le_bytes().to_vec()),
    ];
    for range in [range_1d(0, n as u64, 61), range_1d(0, n as u64, 16)] {
        let mut want = init.clone();
        run_kernel(&m, "k", &mut want, &range).expect("the interpreter runs it");
        let KernelArg::Buffer(w) = &want[2] else {
            unreachable!()
        };
        for skew in 0..4 {
            let got = run(&k, &init, &range, skew);
            assert_eq!(got.status, 0, "skew {skew}");
            assert!(got.guards_intact(), "skew {skew}");
            assert_eq!(got.data(2), &w[..], "skew {skew}");
        }
    }
}

/// The fault of `src`'s kernel `k` over `n` items in groups of 32 with
/// `args`, on the wide code and on Cranelift's robust code: both must
/// stop with the same report (the address relative to the faulting
/// buffer, `buf`), and write nothing outside their buffers.
fn same_fault(src: &str, args: &[KernelArg], n: u64, buf: usize) -> Fault {
    same_fault_in(src, args, &range_1d(0, n, 32), buf)
}

/// [`same_fault`] over `range`.
fn same_fault_in(src: &str, args: &[KernelArg], range: &NdRange, buf: usize) -> Fault {
    let m = build(src, "");
    let wide = compile_wide(&m, "k", &options(true, true, 1 << 22));
    let cranelift = compile_kernel(&m, "k", &options(false, true, 1 << 22)).expect("compiles");
    let mut faults = Vec::new();
    for k in [&wide, &cranelift] {
        let got = run(k, args, range, 0);
        assert_eq!(got.status, KernelStatus::OutOfBounds as u32);
        assert!(got.guards_intact(), "nothing written outside");
        let mut f = got.fault.expect("a recorded fault");
        f.address = f.address.wrapping_sub(got.addr(buf));
        faults.push(f);
    }
    assert_eq!(faults[0], faults[1], "wide and Cranelift's reports");
    faults[0]
}

fn floats(n: usize) -> KernelArg {
    KernelArg::Buffer((0..n).flat_map(|i| (i as f32).to_le_bytes()).collect())
}

/// Checked mode adds nothing to a kernel with neither `__local` memory nor
/// a barrier: it takes the wide code, which stops at the first lane past
/// the buffer with the report of Cranelift's checked code.
#[test]
fn checked_mode_without_local_memory_takes_the_wide_code_and_its_reports() {
    let src = "kernel void k(global const float* a, global float* out) {
    int i = get_global_id(0);
    out[i] = a[i] * 2.0f;
}";
    let m = build(src, "");
    let checked = |wide| JitOptions {
        local_checks: true,
        ..options(wide, true, 1 << 22)
    };
    let wide = compile_wide(&m, "k", &checked(true));
    let cranelift = compile_kernel(&m, "k", &checked(false)).expect("compiles");
    let mut faults = Vec::new();
    for k in [&wide, &cranelift] {
        let got = run(k, &[floats(37), floats(64)], &range_1d(0, 64, 32), 0);
        assert_eq!(got.status, KernelStatus::OutOfBounds as u32);
        assert!(got.guards_intact(), "nothing written outside");
        let mut f = got.fault.expect("a recorded fault");
        f.address = f.address.wrapping_sub(got.addr(0));
        faults.push(f);
    }
    assert_eq!(faults[0], faults[1], "wide and Cranelift's reports");
    assert_eq!(
        (faults[0].global_id, faults[0].address),
        ([37, 0, 0], 4 * 37)
    );
}

fn bytes(n: usize) -> KernelArg {
    KernelArg::Buffer((0..n).map(|i| (i * 5) as u8).collect())
}

fn ints(n: usize) -> KernelArg {
    KernelArg::Buffer((0..n).flat_map(|i| (i as i32 - 20).to_le_bytes()).collect())
}

/// Bytes (`Access::byte`) test their bounds by the byte: a buffer whose
/// length is not a multiple of 4 faults at its first byte past the end,
/// consecutive or gathered, loaded or stored, with Cranelift's report.
#[test]
fn out_of_bounds_byte_accesses_stop_with_cranelifts_report() {
    let load = "kernel void k(global const uchar* a, global int* out) {
    int i = get_global_id(0);
    out[i] = a[i] + 1;
}";
    let store = "kernel void k(global const int* a, global char* out) {
    int i = get_global_id(0);
    out[i] = (char)a[i];
}";
    let gathered = "kernel void k(global const char* a, global int* out) {
    int i = get_global_id(0);
    out[i] = a[(i * 3) % 64];
}";
    for lane in [0u64, 7, 13, 15] {
        let short = (32 + lane) as usize;
        let f = same_fault(load, &[bytes(short), ints(64)], 64, 0);
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
        assert_eq!((f.size, f.global_id), (1, [32 + lane, 0, 0]));
        assert_eq!(f.address, 32 + lane);
        let f = same_fault(store, &[ints(64), bytes(short)], 64, 1);
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Store);
        assert_eq!((f.size, f.global_id), (1, [32 + lane, 0, 0]));
        assert_eq!(f.address, 32 + lane);
        let f = same_fault(gathered, &[bytes(short), ints(64)], 64, 0);
        assert_eq!(f.size, 1);
        assert!(f.address >= short as u64, "{f:?}");
    }
    // In a barrier kernel's regions (their own entry and frame).
    let tiled = "kernel void k(global const uchar* in, global uchar* out) {
    local int tile[32];
    int l = get_local_id(0);
    int i = get_global_id(0);
    tile[l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = (uchar)(tile[31 - l] + 1);
}";
    let f = same_fault(tiled, &[bytes(45), bytes(64)], 64, 0);
    assert_eq!((f.size, f.global_id, f.address), (1, [45, 0, 0], 45));
    let f = same_fault(tiled, &[bytes(64), bytes(50)], 64, 1);
    assert_eq!((f.size, f.address), (1, 50));
}

#[test]
fn out_of_bounds_loads_and_stores_stop_with_cranelifts_report() {
    let load = "kernel void k(global const float* a, global float* out) {
    int i = get_global_id(0);
    out[i] = a[i] * 2.0f;
}";
    let store = "kernel void k(global const float* a, global float* out) {
    int i = get_global_id(0);
    float v = a[i];
    out[i] = v + 1.0f;
}";
    // 64 items; the short buffer ends in the chunk of items 32–47 (the
    // second group's first chunk) at its first, a middle and its last
    // lane.
    for lane in [0u64, 7, 15] {
        let short = (32 + lane) as usize;
        let f = same_fault(load, &[floats(short), floats(64)], 64, 0);
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
        assert_eq!((f.size, f.global_id), (4, [32 + lane, 0, 0]));
        assert_eq!(f.address, 4 * (32 + lane));
        assert_eq!(f.line, 3, "the load's line");
        assert_eq!(
            f.to_string(),
            format!(
                "out-of-bounds load of 4 bytes at {:#x} by work-item ({}, 0, 0) at line 3:{}",
                f.address,
                32 + lane,
                f.col
            )
        );
        let f = same_fault(store, &[floats(64), floats(short)], 64, 1);
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Store);
        assert_eq!((f.size, f.global_id), (4, [32 + lane, 0, 0]));
        assert_eq!(f.address, 4 * (32 + lane));
        assert_eq!(f.line, 4, "the store's line");
    }
    // A tail chunk: 40 items, the buffer 37 floats; and a gather whose
    // stray index is in the middle of a chunk, below the buffer.
    let f = same_fault(load, &[floats(37), floats(40)], 40, 0);
    assert_eq!(f.global_id, [37, 0, 0]);
    let gather = "kernel void k(global const float* a, global float* out) {
    int i = get_global_id(0);
    out[i] = a[i == 21 ? -3 : i >> 1];
}";
    let f = same_fault(gather, &[floats(32), floats(32)], 32, 0);
    assert_eq!((f.global_id, f.address), ([21, 0, 0], (-12i64) as u64));
    // The id plus a uniform offset, known consecutive; near `INT_MAX`
    // the 32-bit lanes wrap and the lanes are tested instead.
    let offset = "kernel void k(global const float* a, global float* out, int k) {
    int i = get_global_id(0);
    out[i] = a[i + k];
}";
    for (k, lane) in [(16, 16u64), (i32::MAX - 40, 0), (i32::MAX - 8, 0)] {
        let args = [
            floats(32),
            floats(48),
            KernelArg::Value(k.to_le_bytes().to_vec()),
        ];
        let f = same_fault(offset, &args, 48, 0);
        assert_eq!(f.global_id, [lane, 0, 0], "k = {k}");
        assert_eq!(f.address, 4 * (k as u64 + lane), "k = {k}");
    }
    // A load of one address for every running lane (one scalar load,
    // broadcast) past the end: the first running lane reports it, in the
    // first chunk, and under a branch whose running lanes start in the
    // middle of a chunk.
    let uniform = "kernel void k(global const float* w, global float* out, int k) {
    int i = get_global_id(0);
    float x = out[i];
    if (i >= 37) {
        x += w[k + 1];
    }
    out[i] = x + w[k];
}";
    for (k, id, at) in [(8i32, 0u64, 8u64), (7, 37, 8), (-1, 0, u64::MAX)] {
        let args = [
            floats(8),
            floats(48),
            KernelArg::Value(k.to_le_bytes().to_vec()),
        ];
        let f = same_fault(uniform, &args, 48, 0);
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
        assert_eq!(f.global_id, [id, 0, 0], "k = {k}");
        assert_eq!(f.address, at.wrapping_mul(4), "k = {k}");
    }
    // Groups one work-item wide in dimension 0: the copy whose lanes step
    // along dimension 1 reports the launch's own ids.
    let column = "kernel void k(global const float* a, global float* out) {
    int y = get_global_id(1);
    out[y] = a[y + (int)get_global_id(0)] + 1.0f;
}";
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [1, 64, 1],
        local_size: [1, 32, 1],
    };
    let f = same_fault_in(column, &[floats(40), floats(64)], &range, 0);
    assert_eq!(f.global_id, [0, 40, 0]);
}

#[test]
fn faults_in_the_first_and_last_chunks_and_with_two_chunks_in_flight_match_cranelifts() {
    // Rows of 50 items (groups of 50): three full chunks and a tail of
    // 2; the buffer ends in the first chunk of the first row, in its last
    // full chunk, and in the tail of the last row.
    let load = "kernel void k(global const float* a, global float* out) {
    int i = get_global_id(0);
    out[i] = a[i] * 2.0f;
}";
    let rows = range_1d(0, 100, 50);
    for end in [3u64, 47, 99] {
        let f = same_fault_in(load, &[floats(end as usize), floats(100)], &rows, 0);
        assert_eq!((f.global_id, f.address), ([end, 0, 0], 4 * end), "{end}");
    }
    // A loop bound by latency whose one checked access is the store
    // after it: robust, it runs two chunks in flight; a fault in the
    // first chunk of a pair, in the second, and in the last (odd) chunk
    // of a row, each the one that running the chunks in order meets
    // first.
    let looped = "kernel void k(global float* out, int n) {
    int i = get_global_id(0);
    float acc = 1.0f;
    for (int j = 0; j < ((i >> 4) & 1) * n + (i & 7); j++)
        acc = acc * 0.5f + (float)j;
    out[i] = acc;
}";
    let m = build(looped, "");
    let k = compile_wide(&m, "k", &options(true, true, 1 << 22));
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.contains("; 4 chunks in flight"), "{line}");
        assert!(line.contains("; 1 accesses bounds-checked"), "{line}");
    }
    // Rows of 40 (three chunks: a trip's fourth has no lane) and of 64
    // (four), a fault in each chunk of a trip.
    let rows = range_1d(0, 80, 40);
    for end in [5u64, 21, 34, 77] {
        let args = [
            floats(end as usize),
            KernelArg::Value(9i32.to_le_bytes().to_vec()),
        ];
        let f = same_fault_in(looped, &args, &rows, 0);
        assert_eq!((f.global_id, f.address), ([end, 0, 0], 4 * end), "{end}");
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Store);
    }
    let rows = range_1d(0, 128, 64);
    for end in [50u64, 63, 100] {
        let args = [
            floats(end as usize),
            KernelArg::Value(9i32.to_le_bytes().to_vec()),
        ];
        let f = same_fault_in(looped, &args, &rows, 0);
        assert_eq!((f.global_id, f.address), ([end, 0, 0], 4 * end), "{end}");
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Store);
    }
    // Checked accesses before and after the loop: under robust access two
    // chunks in flight only for a launch whose ids index inside both
    // buffers, one at a time otherwise, so that the store of the first
    // chunk (item 10) faults before the load of the second (item 20)
    // would.
    let two = "kernel void k(global const float* a, global float* out, int n) {
    int i = get_global_id(0);
    float acc = a[i];
    for (int j = 0; j < (i & 7) + n; j++)
        acc = acc * 0.5f + (float)j;
    out[i] = acc;
}";
    let m = build(two, "");
    let k = compile_wide(&m, "k", &options(true, true, 1 << 22));
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(
            line.ends_with(
                "; 4 chunks in flight untested when the launch's ids index inside every checked buffer); Cranelift's code runs launches whose ids exceed 31 bits"
            ),
            "{line}"
        );
    }
    let k = compile_wide(&m, "k", &options(true, false, 1 << 22));
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.contains("; 4 chunks in flight"), "{line}");
    }
    let args = [
        floats(20),
        floats(10),
        KernelArg::Value(3i32.to_le_bytes().to_vec()),
    ];
    let f = same_fault_in(two, &args, &range_1d(0, 64, 64), 1);
    assert_eq!(
        (f.global_id, f.kind),
        ([10, 0, 0], vecl_jit::abi::AccessKind::Store)
    );
}

/// Black-Scholes' arguments for `n` options: the inputs in `in_len`
/// floats each (realistic prices), the outputs `call_len` and `put_len`
/// floats.
fn black_scholes_args(in_len: [usize; 3], call_len: usize, put_len: usize) -> Vec<KernelArg> {
    let input = |n: usize, f: &dyn Fn(usize) -> f32| {
        KernelArg::Buffer((0..n).flat_map(|i| f(i).to_le_bytes()).collect())
    };
    vec![
        input(in_len[0], &|i| 5.0 + (i % 23) as f32),
        input(in_len[1], &|i| 1.0 + (i % 47) as f32 * 2.0),
        input(in_len[2], &|i| 0.25 + (i % 9) as f32),
        KernelArg::Buffer(vec![0; 4 * call_len]),
        KernelArg::Buffer(vec![0; 4 * put_len]),
        KernelArg::Value(0.02f32.to_le_bytes().to_vec()),
        KernelArg::Value(0.30f32.to_le_bytes().to_vec()),
    ]
}

/// Robust access on a long loop-free body whose accesses are all `x[gid]`
/// (Black-Scholes): a launch whose ids index inside every buffer runs the
/// body untested, four chunks alternating, with the results of the
/// unchecked code and Cranelift's robust code; any other launch runs the
/// tested body one chunk at a time, whose report is the one a one-chunk
/// run gives: a fault in the first chunk of a pair, in the second, in a
/// row's tail, and a store of the first chunk that faults after the
/// second chunk's load would have.
#[test]
fn robust_black_scholes_runs_two_chunks_when_the_launch_proves_it_and_reports_faults_in_chunk_order(
) {
    let src = bench_source("blackscholes").replace("kernel void blackscholes", "kernel void k");
    let m = build(&src, "");
    let robust = compile_wide(&m, "k", &options(true, true, 1 << 22));
    let unchecked = compile_wide(&m, "k", &options(true, false, 1 << 22));
    let cranelift = compile_kernel(&m, "k", &options(false, true, 1 << 22)).expect("compiles");
    if cpu_has_wide() {
        let line = code_line(&robust);
        assert!(line.contains("; 5 accesses bounds-checked"), "{line}");
        assert!(
            line.contains(
                "; 4 chunks in flight untested when the launch's ids index inside every checked buffer"
            ),
            "{line}"
        );
        assert!(code_line(&unchecked).contains("; 4 chunks in flight"));
    }
    // In bounds: whole pairs, a pair whose second chunk is a tail, a lone
    // tail, an offset launch, and buffers longer than the launch.
    for (range, n) in [
        (range_1d(0, 1024, 256), 1024),
        (range_1d(0, 1000, 100), 1000),
        (range_1d(3, 997, 100), 1000),
        (range_1d(0, 7, 7), 7),
        (range_1d(16, 77, 77), 200),
    ] {
        let args = black_scholes_args([n; 3], n, n);
        let got = run(&robust, &args, &range, 4);
        assert_eq!(got.status, 0, "{range:?}");
        assert!(got.guards_intact());
        for k in [&unchecked, &cranelift] {
            let want = run(k, &args, &range, 4);
            assert_eq!(want.status, 0, "{range:?}");
            for out in [3, 4] {
                assert!(got.data(out) == want.data(out), "{range:?}: output {out}");
            }
        }
    }
    // Rows of 50: pairs of chunks 0–31 and 32–49 (its second chunk a tail
    // of 2). Each fault is the first one running the chunks in order
    // meets, reported as Cranelift's robust code reports it.
    use vecl_jit::abi::AccessKind::{Load, Store};
    let rows = range_1d(0, 100, 50);
    for (ins, call, put, buf, id, kind) in [
        // The first chunk of a pair: `spot` ends at item 5.
        ([5, 100, 100], 100, 100, 0, 5, Load),
        // The second: `strike` ends at item 20.
        ([100, 20, 100], 100, 100, 1, 20, Load),
        // The tail of the second row: `years` ends at item 99.
        ([100, 100, 99], 100, 100, 2, 99, Load),
        // A store of the first chunk (put[3]) before the second chunk's
        // load past `spot`'s end (item 20).
        ([20, 100, 100], 100, 3, 4, 3, Store),
        // The store of `call` in the second chunk of the second row's
        // first pair (items 66–81).
        ([100, 100, 100], 66, 100, 3, 66, Store),
    ] {
        let args = black_scholes_args(ins, call, put);
        let f = same_fault_in(&src, &args, &rows, buf);
        assert_eq!((f.global_id, f.kind), ([id, 0, 0], kind), "{ins:?}");
        assert_eq!(f.address, 4 * id, "{ins:?}");
    }
}

/// A `__local` tile read through one address for every lane (`t[j]`,
/// nbody's `tile[j]`) in a loop no divergent branch narrows: the load
/// takes lane 0's index with no search for the first running lane, and
/// tests its mask through a general register. Groups of 16 (full chunks)
/// and of 12 (every chunk a tail whose lane 0 runs).
const LOCAL_UNIFORM: &str = "kernel void k(global const float* a, global float* out, int extra) {
    local float t[16];
    int l = get_local_id(0);
    int size = get_local_size(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int j = 0; j < size + extra; j++) {
        float q = t[j];
        s += q * q * 0.5f + sqrt(q * q + 1.0f);
    }
    out[get_global_id(0)] = s;
}";

#[test]
fn uniform_local_loads_in_a_loop_agree_and_stop_past_the_tile_as_cranelifts() {
    agree(
        LOCAL_UNIFORM,
        "k",
        &options(true, true, 1 << 22),
        &[
            range_1d(0, 48, 16),
            range_1d(0, 48, 12),
            range_1d(5, 36, 12),
        ],
        |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize;
            vec![Spec::Floats(n, 1), Spec::Floats(n, 0), Spec::Int(0)]
        },
    );
    // One element past the tile at j = 16, in groups of 16 and of 12
    // (where t[12..16] are in the array): the group's first chunk reaches
    // it first, at its lane 0, in both codes; the report names the same
    // work-item, size, kind and line (the address is in each run's own
    // arena).
    let m = build(LOCAL_UNIFORM, "");
    let wide = compile_wide(&m, "k", &options(true, true, 1 << 22));
    let cranelift = compile_kernel(&m, "k", &options(false, true, 1 << 22)).expect("compiles");
    for (local, extra) in [(16u64, 1i32), (12, 5)] {
        let args = [
            floats(48),
            floats(48),
            KernelArg::Value(extra.to_le_bytes().to_vec()),
        ];
        let range = range_1d(0, 48, local);
        let mut faults = Vec::new();
        for k in [&wide, &cranelift] {
            let got = run(k, &args, &range, 0);
            assert_eq!(
                got.status,
                KernelStatus::OutOfBounds as u32,
                "local {local}"
            );
            assert!(got.guards_intact(), "nothing written outside");
            let f = got.fault.expect("a recorded fault");
            faults.push((f.kind, f.size, f.global_id, f.line, f.col));
        }
        assert_eq!(
            faults[0], faults[1],
            "wide and Cranelift's reports, local {local}"
        );
        assert_eq!(faults[0].0, vecl_jit::abi::AccessKind::Load);
        assert_eq!(faults[0].2, [0, 0, 0], "local {local}");
        assert_eq!(faults[0].3, 9, "local {local}");
    }
}

/// FDTD's two steps (`benches/programs.py`): several known-consecutive
/// accesses under one mask, which test the mask once and share the
/// buffer's address and the index's lane 0 (`wide::held`).
const FDTD: &str = r#"
kernel void fdtd_h(global float *hx, global float *hy, global const float *ez, int nx, int ny) {
    int i = get_global_id(0), j = get_global_id(1);
    int k = j * nx + i;
    if (j < ny - 1) hx[k] -= 0.5f * (ez[k + nx] - ez[k]);
    if (i < nx - 1) hy[k] += 0.5f * (ez[k + 1] - ez[k]);
}

kernel void fdtd_e(global float *ez, global const float *hx, global const float *hy, int nx, int ny, int t) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i < 1 || j < 1) return;
    int k = j * nx + i;
    ez[k] += 0.5f * ((hy[k] - hy[k - 1]) - (hx[k] - hx[k - nx]));
    if (i == nx / 2 && j == ny / 2) ez[k] += sin(0.1f * (float)t);
}
"#;

/// 2-D launches whose rows are whole chunks, end in tails (37, 21), start
/// off a chunk (offsets), and groups not a multiple of 16 wide.
fn grid_ranges() -> Vec<NdRange> {
    let r = |offset: [u64; 3], size: [u64; 3], local: [u64; 3]| NdRange {
        work_dim: 2,
        global_offset: offset,
        global_size: size,
        local_size: local,
    };
    vec![
        r([0; 3], [64, 9, 1], [32, 3, 1]),
        r([1, 2, 0], [37, 11, 1], [37, 1, 1]),
        r([0; 3], [48, 6, 1], [24, 2, 1]),
        r([5, 0, 0], [21, 7, 1], [7, 7, 1]),
        r([0; 3], [16, 5, 1], [16, 1, 1]),
    ]
}

#[test]
fn full_mask_stretches_agree_with_the_interpreter_on_fdtd() {
    for robust in [false, true] {
        let opts = options(true, robust, 1 << 22);
        for kernel in ["fdtd_h", "fdtd_e"] {
            agree(FDTD, kernel, &opts, &grid_ranges(), |r| {
                let nx = r.global_offset[0] + r.global_size[0];
                let ny = r.global_offset[1] + r.global_size[1];
                let n = (nx * ny) as usize;
                let mut specs = vec![
                    Spec::Floats(n, 1),
                    Spec::Floats(n, 2),
                    Spec::Floats(n, 3),
                    Spec::Int(nx as i32),
                    Spec::Int(ny as i32),
                ];
                if kernel == "fdtd_e" {
                    specs.push(Spec::Int(7));
                }
                specs
            });
        }
    }
}

#[test]
fn full_mask_stretches_with_divergent_lanes_aliasing_and_offsets_agree() {
    // Lanes an `if` on the data turns off inside whole chunks (the copy
    // that tests each access's mask), a load after a store through the
    // same buffer and index (it must see the store), and the id plus a
    // uniform offset under one mask.
    let src = r#"
kernel void k(global float* a, global const float* b, global float* c, global float* d, int w, int off) {
    int x = get_global_id(0), y = get_global_id(1);
    int i = y * w + x;
    float v = a[i];
    if (v > b[i]) {
        a[i] = v - b[i];
        c[i] = a[i] * 2.0f + b[i];
    }
    d[i + off] += b[i + off] * c[i] + b[i + off];
}
"#;
    for robust in [false, true] {
        let opts = options(true, robust, 1 << 22);
        agree(src, "k", &opts, &grid_ranges(), |r| {
            let w = r.global_offset[0] + r.global_size[0];
            let n = (w * (r.global_offset[1] + r.global_size[1])) as usize;
            // Seeds whose `a` lies above `b` in some lanes of a chunk and
            // below in others.
            vec![
                Spec::Floats(n + 3, 7),
                Spec::Floats(n + 3, 8),
                Spec::Floats(n + 3, 9),
                Spec::Floats(n + 3, 10),
                Spec::Int(w as i32),
                Spec::Int(3),
            ]
        });
    }
}

#[test]
fn robust_faults_inside_a_full_mask_stretch_match_cranelifts() {
    // Four accesses under one mask (the running lanes): the short buffer
    // ends at the first, a middle and the last lane of a whole chunk, in
    // the stretch's second access (a load), and its last (a store).
    let src = "kernel void k(global const float* a, global float* out, int k) {
    int i = (int)get_global_id(0) + k;
    float v = a[i];
    out[i] = v + a[i] * out[i];
}";
    let at = |k: i32| KernelArg::Value(k.to_le_bytes().to_vec());
    for lane in [0u64, 9, 15] {
        let short = (32 + lane) as usize;
        let f = same_fault(src, &[floats(short), floats(64), at(0)], 64, 0);
        assert_eq!(
            (f.kind, f.global_id),
            (vecl_jit::abi::AccessKind::Load, [32 + lane, 0, 0])
        );
        assert_eq!(f.address, 4 * (32 + lane));
        let f = same_fault(src, &[floats(64), floats(short), at(0)], 64, 1);
        assert_eq!(f.global_id, [32 + lane, 0, 0]);
        assert_eq!(f.address, 4 * (32 + lane));
    }
    // Near `INT_MAX` the 32-bit lanes wrap: the stretch's copy without
    // mask tests still tests the index's range, and the tested path
    // finds the lane outside.
    for (k, lane) in [(i32::MAX - 40, 0u64), (i32::MAX - 8, 0), (-16, 0)] {
        let f = same_fault(src, &[floats(48), floats(48), at(k)], 48, 0);
        assert_eq!(f.global_id, [lane, 0, 0], "k = {k}");
        assert_eq!(
            f.address,
            4u64.wrapping_mul((k as i64 + lane as i64) as u64),
            "k = {k}"
        );
    }
    // FDTD's `fdtd_h` over a 2-D launch with `ez` one row short: the
    // fault is in the last row, reported as Cranelift's code reports it.
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [48, 4, 1],
        local_size: [16, 2, 1],
    };
    let fdtd_h = FDTD.replace("fdtd_h", "k");
    let n = 48 * 4;
    let f = same_fault_in(
        &fdtd_h,
        &[
            floats(n),
            floats(n),
            floats(n - 48 + 5),
            at(48),
            KernelArg::Value(5i32.to_le_bytes().to_vec()),
        ],
        &range,
        2,
    );
    assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
    assert_eq!(f.global_id, [5, 2, 0]);
}

#[test]
fn indices_shifted_by_constants_from_a_held_index_agree() {
    // `i ± c` addresses from the held lane 0 of `i` (unchecked; robust
    // access tests each index itself), with lanes an `if` turns off at
    // both ends of each row (the first chunk's lane 0 among them: the
    // tested path, which gives r10 back) and stores between the loads.
    let src = r#"
kernel void k(global const float* a, global float* out, global float* side, int w) {
    int x = get_global_id(0), y = get_global_id(1);
    int i = (y + 1) * w + x + 16;
    if (x > 0 && x < w - 1) {
        out[i] = a[i - 1] + 2.0f * a[i] + a[i + 1];
        side[i + 3] = a[i + 17] - a[i - 16];
        out[i] += side[i + 3] * a[i];
    }
    side[i - 2] += a[i + 2];
}
"#;
    for robust in [false, true] {
        let opts = options(true, robust, 1 << 22);
        agree(src, "k", &opts, &grid_ranges(), |r| {
            let w = r.global_offset[0] + r.global_size[0];
            let n = (w * (r.global_offset[1] + r.global_size[1] + 2) + 64) as usize;
            vec![
                Spec::Floats(n, 1),
                Spec::Floats(n, 2),
                Spec::Floats(n, 3),
                Spec::Int(w as i32),
            ]
        });
    }
}

/// The bench's matmul under robust access: the wide code, its staging and
/// store regions (tested accesses) one row at a time, its `k` region eight
/// rows in flight (`select::choose_regions`), against the interpreter in
/// bounds, and stopping at a short `b` with Cranelift's robust report.
#[test]
fn robust_matmul_agrees_in_bounds_and_faults_as_cranelifts() {
    let src = bench_source("matmul");
    let opts = options(true, true, 1 << 22);
    if cpu_has_wide() {
        let k = compile_wide(&build(&src, ""), "matmul", &opts);
        let line = code_line(&k);
        assert!(
            line.contains("8 rows in flight in 1 of 4 regions")
                && line.contains("4 rows in flight in 1 of 4 regions"),
            "{line}"
        );
    }
    let square = |n: u64| NdRange {
        work_dim: 2,
        global_offset: [0, 0, 0],
        global_size: [n, n, 1],
        local_size: [16, 16, 1],
    };
    agree(
        &src,
        "matmul",
        &opts,
        &[square(32), square(48), square(64)],
        |r| {
            let n = r.global_size[0] as usize;
            vec![
                Spec::Floats(n * n, 1),
                Spec::Floats(n * n, 2),
                Spec::Floats(n * n, 0),
                Spec::Int(n as i32),
            ]
        },
    );
    // `b` one element short: the last group's staging of its last tile
    // reads past it.
    let k_src = src.replace("kernel void matmul", "kernel void k");
    let n = 32usize;
    let args = [
        floats(n * n),
        floats(n * n - 1),
        floats(n * n),
        KernelArg::Value((n as i32).to_le_bytes().to_vec()),
    ];
    let f = same_fault_in(&k_src, &args, &square(n as u64), 1);
    assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
    // `a` short by all but five elements of the second row: the first
    // group's second row faults in its staging at lane 5, reported as
    // Cranelift's robust code reports it, though the `k` region's later
    // rows read their `ta[ly][k]` at a displacement from the first row's
    // address (`rows::affine_parts`).
    if cpu_has_wide() {
        let k = compile_wide(&build(&k_src, ""), "k", &opts);
        let line = code_line(&k);
        assert!(
            line.contains("later rows' loads at a displacement"),
            "{line}"
        );
    }
    let args = [
        floats(n + 5),
        floats(n * n),
        floats(n * n),
        KernelArg::Value((n as i32).to_le_bytes().to_vec()),
    ];
    let f = same_fault_in(&k_src, &args, &square(n as u64), 0);
    assert_eq!((f.global_id, f.address), ([5, 1, 0], 4 * (n as u64 + 5)));
}

/// Loops whose test at the top the wide code runs at the bottom, and FMA
/// chains merged under the loop's mask (`jit/tests/wide_rows.rs`), under
/// robust access.
#[test]
fn loops_tested_at_the_bottom_agree_under_robust_access() {
    let src = include_str!("wide_rows.rs");
    let start = src.find("kernel void heads").expect("the kernel");
    let end = start + src[start..].find("\"#;").expect("its end");
    let heads = &src[start..end];
    let opts = options(true, true, 1 << 22);
    for n in [0, 1, 2, 5, 9] {
        agree(
            heads,
            "heads",
            &opts,
            &[range_1d(0, 7, 7), range_1d(0, 37, 16), range_1d(3, 64, 16)],
            |r| {
                let len = (r.global_offset[0] + r.global_size[0]) as usize;
                vec![Spec::Floats(len, 3), Spec::Floats(len, 0), Spec::Int(n)]
            },
        );
    }
}

/// Mandelbrot's loop condition, its two compares folded into the loop's
/// mask (`wide::kfold`), under robust access: rows with tails, a row of
/// a tail only, offsets, against the interpreter.
#[test]
fn robust_mandelbrot_with_its_compares_under_the_loops_mask_agrees() {
    let opts = options(true, true, 256);
    let src = bench_source("mandelbrot");
    let grid = |size: [u64; 2], offset: [u64; 2], local: [u64; 2]| NdRange {
        work_dim: 2,
        global_offset: [offset[0], offset[1], 0],
        global_size: [size[0], size[1], 1],
        local_size: [local[0], local[1], 1],
    };
    let ranges = [
        grid([53, 7], [0, 0], [53, 7]),
        grid([80, 6], [0, 0], [16, 2]),
        grid([9, 3], [0, 0], [9, 1]),
    ];
    agree(&src, "mandelbrot", &opts, &ranges, |r| {
        let (w, h) = (r.global_size[0], r.global_size[1]);
        vec![
            Spec::Ints((w * h) as usize, 0),
            Spec::Int(w as i32),
            Spec::Int(h as i32),
            Spec::Int(40),
        ]
    });
}

/// Gathers and scatters with one running lane per chunk (taken as scalar
/// accesses), none, or several, under robust access and unchecked, in
/// guarded buffers (`wide_one_lane.rs` has the barrier kernels).
#[test]
fn one_running_lane_gathers_and_scatters_agree_robust_and_unchecked() {
    let src = r#"
kernel void k(global const int* in, global int* out, global float* f, int every, int n) {
    int i = get_global_id(0);
    if (i % every == 0) {
        int j = i / every;
        out[j] = in[(i * 13) % n] + i;
        f[j] = (float)in[(i * 7 + 5) % n] * 0.25f;
    }
}
"#;
    for robust in [false, true] {
        for every in [16, 37, 7, 1] {
            let ranges = [range_1d(0, 512, 64), range_1d(5, 250, 50)];
            agree(src, "k", &options(true, robust, u64::MAX), &ranges, |r| {
                let n = (r.global_offset[0] + r.global_size[0]) as usize;
                let outs = n / every as usize + 1;
                vec![
                    Spec::Ints(n, 2),
                    Spec::Ints(outs, 0),
                    Spec::Floats(outs, 0),
                    Spec::Int(every),
                    Spec::Int(n as i32),
                ]
            });
        }
    }
}

/// Robust access in a row's full chunks (no mask, a row offset's lane 0
/// from its slot) and in its last, partial chunk: the first fault in the
/// chunks' order, reported as Cranelift's robust code reports it.
#[test]
fn faults_in_full_chunks_and_in_the_last_partial_one_of_a_row_match_cranelifts() {
    // Rows of 40: two full chunks and a tail of 8.
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [40, 3, 1],
        local_size: [40, 1, 1],
    };
    let src = "kernel void k(global const float* a, global float* out) {
    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    out[k] = a[k] * 2.0f;
}";
    if cpu_has_wide() {
        let m = build(src, "");
        let line = code_line(&compile_wide(&m, "k", &options(true, true, 1 << 22)));
        assert!(line.contains("1 row offsets addressed"), "{line}");
    }
    // The load's buffer ends in the first row's first chunk, its second
    // (full) chunk, its tail, the second row's second chunk and the last
    // row's tail; then the store's.
    for end in [5u64, 20, 37, 57, 119] {
        let f = same_fault_in(src, &[floats(end as usize), floats(120)], &range, 0);
        assert_eq!(
            (f.global_id, f.address),
            ([end % 40, end / 40, 0], 4 * end),
            "{end}"
        );
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
        let f = same_fault_in(src, &[floats(120), floats(end as usize)], &range, 1);
        assert_eq!(
            (f.global_id, f.address),
            ([end % 40, end / 40, 0], 4 * end),
            "{end}"
        );
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Store);
    }
    // A row whose indices wrap 32 bits part-way (the second, from
    // i32::MAX - 20): it runs no full chunk, and its first work-item's
    // store faults at the address its wrapped index gives.
    let wrap = "kernel void k(global float* out, int s) {
    int k = (int)get_global_id(1) * s + (int)get_global_id(0);
    out[k] = 1.0f;
}";
    let s = i32::MAX - 20;
    let args = [floats(40), KernelArg::Value(s.to_le_bytes().to_vec())];
    let f = same_fault_in(wrap, &args, &range, 0);
    assert_eq!(
        (f.global_id, f.address),
        ([0, 1, 0], 4 * s as u64),
        "a wrapping row"
    );
}

/// nbody's shape in a `__local` array: the `j` loop's region has no
/// tested access (its `__local` loads are not checked under robust
/// access), so it runs full chunks of a row in flight (`wide::rows`,
/// along chunks); the staging and store regions test theirs, one chunk
/// at a time. `EXTRA` adds a tested load to the loop's region.
const ROW_OF_CHUNKS: &str =
    "kernel void k(global const float* pos, global float* out, global const float* w, int n) {
    local float tile[64];
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    float p = pos[i];
    float acc = 0.0f;
    for (int base = 0; base < n; base += size) {
        tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < size; j++) {
            float d = tile[j] - p;
            float s = 1.0f / sqrt(d * d + 0.5f);
            acc += d * s * s * s + 0.25f * s;
        }
        EXTRA
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = acc;
}";

#[test]
fn robust_faults_after_and_beside_chunks_in_flight_match_cranelifts() {
    let plain = ROW_OF_CHUNKS.replace("EXTRA", "");
    let extra = ROW_OF_CHUNKS.replace("EXTRA", "acc += w[i];");
    let m = build(&plain, "");
    let line = code_line(&compile_wide(&m, "k", &options(true, true, 1 << 22)));
    if cpu_has_wide() {
        assert!(line.contains("full chunks of a row in flight"), "{line}");
    }
    let m = build(&extra, "");
    let line = code_line(&compile_wide(&m, "k", &options(true, true, 1 << 22)));
    assert!(!line.contains("full chunks of a row in flight"), "{line}");
    // In bounds: groups of 64 (three chunks in flight, then one) and 48.
    for src in [&plain, &extra] {
        agree(
            src,
            "k",
            &options(true, true, 1 << 22),
            &[range_1d(0, 192, 64), range_1d(0, 192, 48)],
            |r| {
                let n = r.global_size[0] as usize;
                vec![
                    Spec::Floats(n, 1),
                    Spec::Floats(n, 0),
                    Spec::Floats(n, 2),
                    Spec::Int(n as i32),
                ]
            },
        );
    }
    // The store's buffer ends in the second chunk of the first group's
    // row, or of the second group's; `w` (read in the loop's region) in
    // the second chunk of a row.
    let n = KernelArg::Value(128i32.to_le_bytes().to_vec());
    let range = range_1d(0, 128, 64);
    for end in [21usize, 64 + 17] {
        let f = same_fault_in(
            &plain,
            &[floats(128), floats(end), floats(128), n.clone()],
            &range,
            1,
        );
        assert_eq!(
            (f.global_id, f.address),
            ([end as u64, 0, 0], 4 * end as u64)
        );
        let f = same_fault_in(
            &extra,
            &[floats(128), floats(128), floats(end), n.clone()],
            &range,
            2,
        );
        assert_eq!(
            (f.global_id, f.address),
            ([end as u64, 0, 0], 4 * end as u64)
        );
    }
}

/// `uchar4` elements (one 32-bit element a lane) past the end of a buffer
/// whose length is not a whole number of them: the element that would
/// cross the end faults, loaded or stored, consecutive or gathered, with
/// Cranelift's robust report (4 bytes at the element).
#[test]
fn uchar4_elements_past_a_ragged_end_fault_as_cranelifts() {
    let bytes = |n: usize| KernelArg::Buffer((0..n).map(|i| (i * 5 + 3) as u8).collect());
    let load = "kernel void k(global const uchar4* a, global uchar4* out) {
    int i = get_global_id(0);
    out[i] = convert_uchar4_sat(convert_float4(a[i]) * 2.0f);
}";
    let store = "kernel void k(global const uchar4* a, global uchar4* out) {
    int i = get_global_id(0);
    uchar4 v = a[i];
    out[i] = v.wzyx;
}";
    let gather = "kernel void k(global const uchar4* a, global uchar4* out) {
    int i = get_global_id(0);
    out[i] = a[i == 21 ? 40 : i >> 1];
}";
    // 64 items; the short buffer holds 37 whole elements and 2 bytes.
    let f = same_fault(load, &[bytes(4 * 37 + 2), bytes(256)], 64, 0);
    assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
    assert_eq!((f.size, f.global_id, f.address), (4, [37, 0, 0], 4 * 37));
    let f = same_fault(store, &[bytes(256), bytes(4 * 37 + 3)], 64, 1);
    assert_eq!(f.kind, vecl_jit::abi::AccessKind::Store);
    assert_eq!((f.size, f.global_id, f.address), (4, [37, 0, 0], 4 * 37));
    let f = same_fault(gather, &[bytes(4 * 40 + 1), bytes(128)], 32, 0);
    assert_eq!((f.global_id, f.address), ([21, 0, 0], 4 * 40));
}

/// `double` elements past the end of a buffer, robust access: the element
/// that would cross the end faults, loaded or stored, consecutive or
/// gathered, with Cranelift's robust report (8 bytes at the element),
/// also where the buffer ends inside an element.
#[test]
fn double_elements_past_the_end_fault_as_cranelifts() {
    let bytes = |n: usize| KernelArg::Buffer((0..n).map(|i| (i * 7 + 1) as u8 & 0x3f).collect());
    let fp64 = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    let load = format!(
        "{fp64}kernel void k(global const double* a, global double* out) {{
    int i = get_global_id(0);
    out[i] = a[i] * 2.0;
}}"
    );
    let store = format!(
        "{fp64}kernel void k(global const double* a, global double* out) {{
    int i = get_global_id(0);
    out[i] = a[i] - 1.0;
}}"
    );
    let gather = format!(
        "{fp64}kernel void k(global const double* a, global double* out) {{
    int i = get_global_id(0);
    out[i] = a[i == 21 ? 40 : i >> 1];
}}"
    );
    for extra in [0usize, 4, 7] {
        // 64 items; the short buffer holds 37 whole elements and `extra`
        // bytes.
        let f = same_fault(&load, &[bytes(8 * 37 + extra), bytes(512)], 64, 0);
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Load);
        assert_eq!((f.size, f.global_id, f.address), (8, [37, 0, 0], 8 * 37));
        let f = same_fault(&store, &[bytes(512), bytes(8 * 37 + extra)], 64, 1);
        assert_eq!(f.kind, vecl_jit::abi::AccessKind::Store);
        assert_eq!((f.size, f.global_id, f.address), (8, [37, 0, 0], 8 * 37));
        let f = same_fault(&gather, &[bytes(8 * 40 + extra), bytes(256)], 32, 0);
        assert_eq!((f.global_id, f.address), ([21, 0, 0], 8 * 40));
    }
}

/// A 2-D launch of `w` × `h` items in groups of `lw` × 2.
fn rows_2d(w: u64, h: u64, lw: u64) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [w, h, 1],
        local_size: [lw, 2, 1],
    }
}

/// Constants added to a row offset (`a[k - 1]`, `a[k + 2]` with `k` the
/// row's value plus the id) are displacements of its slot, which the row's
/// robust test takes in: in bounds, the code agrees with the interpreter
/// (the first and last rows' reads reach the buffer's ends); a read one
/// element past either end stops with Cranelift's report, at the first
/// row's first item or at the last rows' last items.
#[test]
fn robust_row_offsets_with_displacements_agree_and_stop_as_cranelifts() {
    let src = "kernel void k(global const float* a, global float* out) {
    int k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    out[k] = a[k + 1] * 2.0f - a[k + 3];
}";
    let opts = options(true, true, 1 << 22);
    let m = build(src, "");
    let k = compile_wide(&m, "k", &opts);
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.contains("1 row offsets addressed"), "{line}");
    }
    let ranges = [rows_2d(64, 4, 32), rows_2d(48, 3, 16), rows_2d(40, 5, 20)];
    agree(src, "k", &opts, &ranges, |r| {
        let n = (r.global_size[0] * r.global_size[1]) as usize;
        vec![Spec::Floats(n + 3, 1), Spec::Floats(n, 0)]
    });
    // Past the end: `a` two elements short, so the last row's last two
    // items read past it (the first of them, in chunk order, reports).
    let below = "kernel void k(global const float* a, global float* out) {
    int k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    out[k] = a[k - 1] + a[k + 2];
}";
    let range = rows_2d(64, 4, 32);
    let f = same_fault_in(below, &[floats(256 + 1), floats(256)], &range, 0);
    assert_eq!(f.global_id, [0, 0, 0], "a[-1] by the first item");
    let above = "kernel void k(global const float* a, global float* out) {
    int k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    out[k] = a[k + 2] + a[k + 1];
}";
    let f = same_fault_in(above, &[floats(256), floats(256)], &range, 0);
    assert_eq!(f.global_id, [62, 3, 0], "a[256] by item 254");
    assert_eq!(f.address, 4 * 256);
}

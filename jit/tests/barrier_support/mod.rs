//! Differential harness for kernels with barriers: OpenCL C compiled by the
//! front end, run by the JIT at several SIMD widths and by the IR
//! interpreter over the same launches; every buffer must come out
//! byte-identical.

#![allow(dead_code)]

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::Module;
use vecl_jit::abi::{ArgKind, KernelStatus, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitError, JitOptions};

pub const WIDTHS: [u32; 3] = [4, 8, 16];

/// One kernel argument of a test launch.
#[derive(Clone, Debug)]
pub enum Spec {
    /// `n` ints `(i * 7 + seed) % 23 - 11`.
    Ints(usize, i32),
    /// `n` floats holding small integers (exact sums and products).
    Floats(usize, i32),
    Int(i32),
    /// A `__local` buffer of this many bytes.
    Local(usize),
}

pub fn build(src: &str, options: &str) -> Module {
    match vecl_clc::build(src, options) {
        Ok(b) => b.module,
        Err(e) => panic!("front end: {e}"),
    }
}

pub fn compile(m: &Module, kernel: &str, w: u32) -> Result<CompiledKernel, JitError> {
    let opts = JitOptions {
        simd_width: Some(w),
        checked: false,
        dump_clif: false,
    };
    compile_kernel(m, kernel, &opts)
}

pub fn interp_args_for(specs: &[Spec]) -> Vec<KernelArg> {
    specs
        .iter()
        .map(|s| match s {
            Spec::Ints(n, seed) => KernelArg::Buffer(
                (0..*n as i32)
                    .flat_map(|i| ((i * 7 + seed) % 23 - 11).to_le_bytes())
                    .collect(),
            ),
            Spec::Floats(n, seed) => KernelArg::Buffer(
                (0..*n as i32)
                    .flat_map(|i| (((i * 5 + seed) % 9 - 4) as f32).to_le_bytes())
                    .collect(),
            ),
            Spec::Int(x) => KernelArg::Value(x.to_le_bytes().to_vec()),
            Spec::Local(n) => KernelArg::Local(*n),
        })
        .collect()
}

/// 64-byte aligned zeroed memory of at least `bytes` bytes.
fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes.div_ceil(16) + 4]
}

fn align64(p: *mut u8) -> *mut u8 {
    let off = (64 - (p as usize) % 64) % 64;
    // SAFETY: `aligned` allocates 64 spare bytes.
    unsafe { p.add(off) }
}

/// Runs every group of the range through `k` with the interpreter's initial
/// arguments; returns the kernel status and the buffers afterwards.
pub fn run_jit(k: &CompiledKernel, args: &[KernelArg], range: &NdRange) -> (u32, Vec<Vec<u8>>) {
    let mut bufs: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => b.clone(),
            _ => Vec::new(),
        })
        .collect();
    let mut block = vec![0u8; k.args_size().max(8)];
    let mut local_off = k.static_local_size() as u64;
    for (i, (slot, a)) in k.args().iter().zip(args).enumerate() {
        let at = slot.offset as usize;
        match (slot.kind, a) {
            (ArgKind::GlobalPointer, KernelArg::Buffer(_)) => {
                let p = bufs[i].as_mut_ptr() as u64;
                block[at..at + 8].copy_from_slice(&p.to_le_bytes());
            }
            (ArgKind::LocalPointer, KernelArg::Local(size)) => {
                block[at..at + 8].copy_from_slice(&local_off.to_le_bytes());
                local_off += (*size as u64).div_ceil(64) * 64;
            }
            (ArgKind::Value, KernelArg::Value(b)) => {
                block[at..at + b.len()].copy_from_slice(b);
            }
            (kind, a) => panic!("argument {a:?} does not match slot {kind:?}"),
        }
    }
    let mut launch = Launch::new(
        range.work_dim,
        range.global_offset,
        range.global_size,
        range.local_size,
    );
    launch.local_mem_size = local_off;
    let mut local = aligned(local_off as usize + 64);
    let mut context = aligned(k.context_size(launch.items_per_group()) + 64);
    let lp = align64(local.as_mut_ptr() as *mut u8);
    let cp = align64(context.as_mut_ptr() as *mut u8);
    // SAFETY: the block matches args() and points into `bufs`, which
    // outlive the call (the kernels index within the buffers the tests
    // size for them); local and context are large enough and 64-aligned.
    let status = unsafe { k.run_groups(block.as_ptr(), &launch, 0, launch.total_groups(), lp, cp) };
    (status, bufs)
}

pub fn range1(global: u64, local: u64) -> NdRange {
    NdRange {
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [global, 1, 1],
        local_size: [local, 1, 1],
    }
}

/// One-dimensional launches over the local sizes 1, 3, 16, 64 and 256, each
/// with three full groups and with a partial last group.
pub fn shapes_1d() -> Vec<NdRange> {
    let mut out = Vec::new();
    for ls in [1u64, 3, 16, 64, 256] {
        out.push(range1(3 * ls, ls));
        if ls > 1 {
            out.push(range1(2 * ls + ls / 2 + 1, ls));
        }
    }
    out
}

/// Checks kernel `kernel` of `src` against the interpreter at W = 4, 8, 16
/// over `ranges`; `args` gives the arguments of each range. Returns the
/// number of launches compared.
pub fn differential(
    src: &str,
    options: &str,
    kernel: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    let m = build(src, options);
    let mut compared = 0;
    for w in WIDTHS {
        let k = match compile(&m, kernel, w) {
            Ok(k) => k,
            Err(e) => panic!("{kernel} W={w}: {e}"),
        };
        for range in ranges {
            let init = interp_args_for(&args(range));
            let mut want = init.clone();
            if let Err(e) = run_kernel(&m, kernel, &mut want, range) {
                panic!("{kernel} {range:?}: interpreter: {e}");
            }
            let (status, got) = run_jit(&k, &init, range);
            assert_eq!(status, 0, "{kernel} W={w} {range:?}: status");
            for (i, a) in want.iter().enumerate() {
                if let KernelArg::Buffer(want) = a {
                    if *want != got[i] {
                        let at = want.iter().zip(&got[i]).position(|(a, b)| a != b);
                        panic!(
                            "{kernel} W={w} {range:?}: argument {i} differs from the interpreter at byte {at:?}"
                        );
                    }
                }
            }
            compared += 1;
        }
    }
    compared
}

/// The status the JIT reports for a group whose work-items take different
/// paths to a barrier.
pub const DIVERGENT: u32 = KernelStatus::DivergentBarrier as u32;

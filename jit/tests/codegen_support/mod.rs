//! Differential harness of the code-generation tests: OpenCL C compiled by
//! the front end, run by the JIT at W = 4, 8, 16 and by the IR interpreter
//! over the same launches. Buffers carry a guard region the kernels never
//! address, so byte-identical results also show that no inactive lane
//! wrote anywhere.

#![allow(dead_code)]

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::Module;
use vecl_jit::abi::{ArgKind, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions};

pub const WIDTHS: [u32; 3] = [4, 8, 16];

/// Bytes after each buffer's last element that no kernel addresses.
pub const GUARD: usize = 256;

/// One kernel argument of a test launch.
#[derive(Clone, Debug)]
pub enum Spec {
    /// `n` floats holding small integers, then the guard.
    Floats(usize, i32),
    /// `n` ints `(i * 7 + seed) % 23 - 11`, then the guard.
    Ints(usize, i32),
    /// `n` bytes `i * 5 + seed`, then the guard.
    Bytes(usize, u8),
    Int(i32),
    Float(f32),
    /// The buffer of argument `arg` again, `offset` bytes in (aliasing).
    Alias(usize, u64),
    /// A `__local` buffer of this many bytes.
    Local(usize),
}

pub fn build(src: &str) -> Module {
    match vecl_clc::build(src, "") {
        Ok(b) => b.module,
        Err(e) => panic!("front end: {e}"),
    }
}

pub fn compile(m: &Module, kernel: &str, w: u32) -> CompiledKernel {
    let opts = JitOptions {
        simd_width: Some(w),
        checked: false,
        dump_clif: false,
    };
    match compile_kernel(m, kernel, &opts) {
        Ok(k) => k,
        Err(e) => panic!("{kernel} W={w}: {e}"),
    }
}

fn guard() -> impl Iterator<Item = u8> {
    (0..GUARD).map(|i| 0xA5 ^ i as u8)
}

pub fn interp_args(specs: &[Spec]) -> Vec<KernelArg> {
    specs
        .iter()
        .map(|s| match s {
            Spec::Floats(n, seed) => KernelArg::Buffer(
                (0..*n as i32)
                    .flat_map(|i| (((i * 5 + seed) % 9 - 4) as f32).to_le_bytes())
                    .chain(guard())
                    .collect(),
            ),
            Spec::Ints(n, seed) => KernelArg::Buffer(
                (0..*n as i32)
                    .flat_map(|i| ((i * 7 + seed) % 23 - 11).to_le_bytes())
                    .chain(guard())
                    .collect(),
            ),
            Spec::Bytes(n, seed) => KernelArg::Buffer(
                (0..*n)
                    .map(|i| (i as u8).wrapping_mul(5).wrapping_add(*seed))
                    .chain(guard())
                    .collect(),
            ),
            Spec::Int(x) => KernelArg::Value(x.to_le_bytes().to_vec()),
            Spec::Float(x) => KernelArg::Value(x.to_le_bytes().to_vec()),
            Spec::Alias(arg, offset) => KernelArg::Alias {
                arg: *arg,
                offset: *offset,
            },
            Spec::Local(n) => KernelArg::Local(*n),
        })
        .collect()
}

fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes.div_ceil(16) + 4]
}

fn align64(p: *mut u8) -> *mut u8 {
    let off = (64 - (p as usize) % 64) % 64;
    // SAFETY: `aligned` allocates 64 spare bytes.
    unsafe { p.add(off) }
}

/// Runs every group of `range` through `k`; returns the status and the
/// buffers afterwards (aliases point into their parent buffer).
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
    for (slot, a) in k.args().iter().zip(args) {
        let at = slot.offset as usize;
        let ptr = match (slot.kind, a) {
            (ArgKind::GlobalPointer, KernelArg::Buffer(_)) => None,
            (ArgKind::GlobalPointer, KernelArg::Alias { arg, offset }) => {
                Some(bufs[*arg].as_mut_ptr() as u64 + offset)
            }
            (ArgKind::LocalPointer, KernelArg::Local(size)) => {
                block[at..at + 8].copy_from_slice(&local_off.to_le_bytes());
                local_off += (*size as u64).div_ceil(64) * 64;
                continue;
            }
            (ArgKind::Value, KernelArg::Value(b)) => {
                block[at..at + b.len()].copy_from_slice(b);
                continue;
            }
            (kind, a) => panic!("argument {a:?} does not match slot {kind:?}"),
        };
        if let Some(p) = ptr {
            block[at..at + 8].copy_from_slice(&p.to_le_bytes());
        }
    }
    for (i, (slot, a)) in k.args().iter().zip(args).enumerate() {
        if let (ArgKind::GlobalPointer, KernelArg::Buffer(_)) = (slot.kind, a) {
            let at = slot.offset as usize;
            let p = bufs[i].as_mut_ptr() as u64;
            block[at..at + 8].copy_from_slice(&p.to_le_bytes());
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
    // outlive the call; the tests size every buffer for the elements their
    // kernels address; local and context are large enough and 64-aligned.
    let status = unsafe { k.run_groups(block.as_ptr(), &launch, 0, launch.total_groups(), lp, cp) };
    (status, bufs)
}

/// A 1-D range with an offset.
pub fn range1(offset: u64, global: u64, local: u64) -> NdRange {
    NdRange {
        work_dim: 1,
        global_offset: [offset, 0, 0],
        global_size: [global, 1, 1],
        local_size: [local, 1, 1],
    }
}

/// 1-D launches: full chunks only, sizes that are not multiples of W or of
/// the local size (partial tail chunks), local sizes 1 and odd, offsets.
pub fn shapes_1d() -> Vec<NdRange> {
    vec![
        range1(0, 256, 64),
        range1(0, 64, 16),
        range1(0, 203, 29),
        range1(0, 100, 10),
        range1(0, 37, 37),
        range1(0, 9, 1),
        range1(5, 120, 24),
        range1(3, 61, 61),
        range1(7, 130, 13),
    ]
}

/// Checks `kernel` of `src` against the interpreter at every width over
/// `ranges`; returns the number of launches compared.
pub fn differential(
    src: &str,
    kernel: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    let m = build(src);
    let mut compared = 0;
    for w in WIDTHS {
        let k = compile(&m, kernel, w);
        for range in ranges {
            let init = interp_args(&args(range));
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
                            "{kernel} W={w} {range:?}: buffer {i} differs from the interpreter at byte {at:?}"
                        );
                    }
                }
            }
            compared += 1;
        }
    }
    compared
}

/// The `explain` report of `kernel` at W = 8.
pub fn explain(src: &str, kernel: &str) -> String {
    compile(&build(src), kernel, 8).explain().to_string()
}

//! The differential engine: OpenCL C compiled by the front end, run by the
//! JIT at several widths (W = 4, 8, 16 by default) and by the IR interpreter over the same launches;
//! every buffer must come out byte-identical. Buffers carry a guard region
//! that no kernel addresses, so identical results also show that no
//! inactive lane wrote anywhere.

use crate::groups::run_all_groups;
use crate::hand_built::compile;
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::Module;
use vecl_jit::abi::{ArgKind, KernelStatus, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitError, JitOptions};

/// The SIMD widths every kernel is compared at.
pub const WIDTHS: [u32; 3] = [4, 8, 16];

/// The widths barrier kernels are compared at: the common ones, and 32,
/// the default width of a barrier kernel whose regions run straight
/// through (a prefix scan).
pub const BARRIER_WIDTHS: [u32; 4] = [4, 8, 16, 32];

/// Bytes after each buffer's last element that no kernel addresses.
pub const GUARD: usize = 256;

/// The status the JIT reports for a group whose work-items take different
/// paths to a barrier.
pub const DIVERGENT: u32 = KernelStatus::DivergentBarrier as u32;

/// One kernel argument of a test launch.
#[derive(Clone, Debug)]
pub enum Spec {
    /// `n` floats holding small integers (exact sums and products), then
    /// the guard.
    Floats(usize, i32),
    /// `n` ints `(i * 7 + seed) % 23 - 11`, then the guard.
    Ints(usize, i32),
    /// `n` bytes `i * 5 + seed`, then the guard.
    Bytes(usize, u8),
    Int(i32),
    Long(i64),
    Float(f32),
    /// The buffer of argument `arg` again, `offset` bytes in (aliasing).
    Alias(usize, u64),
    /// A `__local` buffer of this many bytes.
    Local(usize),
}

/// The front end's module for `src`; panics with its log on failure.
pub fn build(src: &str, options: &str) -> Module {
    match vecl_clc::build(src, options) {
        Ok(b) => b.module,
        Err(e) => panic!("front end: {e}"),
    }
}

/// Kernel `kernel` of `m` at `w` work-items per chunk, or the JIT's error.
pub fn try_compile(m: &Module, kernel: &str, w: u32) -> Result<CompiledKernel, JitError> {
    let opts = JitOptions {
        simd_width: Some(w),
        tiers: crate::test_tiers(w),
        prefetch: crate::test_prefetch(),
        passes: crate::test_passes(),
        ..JitOptions::default()
    };
    compile_kernel(m, kernel, &opts)
}

fn guard() -> impl Iterator<Item = u8> {
    (0..GUARD).map(|i| 0xA5 ^ i as u8)
}

/// The interpreter's arguments for `specs` (the JIT's start from a copy).
pub fn interp_args_for(specs: &[Spec]) -> Vec<KernelArg> {
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
            Spec::Long(x) => KernelArg::Value(x.to_le_bytes().to_vec()),
            Spec::Float(x) => KernelArg::Value(x.to_le_bytes().to_vec()),
            Spec::Alias(arg, offset) => KernelArg::Alias {
                arg: *arg,
                offset: *offset,
            },
            Spec::Local(n) => KernelArg::Local(*n),
        })
        .collect()
}

/// Runs every group of `range` through `k` with the interpreter's initial
/// arguments; returns the kernel status and the buffers afterwards (an
/// alias points into its parent buffer).
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
        let pointer = match (slot.kind, a) {
            (ArgKind::GlobalPointer, KernelArg::Buffer(_)) => continue,
            (ArgKind::GlobalPointer, KernelArg::Alias { arg, offset }) => {
                bufs[*arg].as_mut_ptr() as u64 + offset
            }
            (ArgKind::LocalPointer, KernelArg::Local(size)) => {
                let at_local = local_off;
                local_off += (*size as u64).div_ceil(64) * 64;
                at_local
            }
            (ArgKind::Value, KernelArg::Value(b)) => {
                block[at..at + b.len()].copy_from_slice(b);
                continue;
            }
            (kind, a) => panic!("argument {a:?} does not match slot {kind:?}"),
        };
        block[at..at + 8].copy_from_slice(&pointer.to_le_bytes());
    }
    // Buffers last: their addresses are final once every alias is taken.
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
    // SAFETY: the block matches args() and points into `bufs`, which
    // outlive the call; the tests size every buffer for the elements their
    // kernels address.
    let status = unsafe { run_all_groups(k, &block, &mut launch, local_off) };
    (status, bufs)
}

/// Checks kernel `kernel` of `src` (built without options) against the
/// interpreter at each of [`WIDTHS`] over `ranges`; `args` gives the
/// arguments of each range. Returns the number of launches compared.
pub fn differential(
    src: &str,
    kernel: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    differential_at(&WIDTHS, src, "", kernel, ranges, args)
}

/// Checks kernel `kernel` of `src` (built with `options`) against the
/// interpreter at each of `widths` over `ranges`; `args` gives the
/// arguments of each range. Returns the number of launches compared.
pub fn differential_at(
    widths: &[u32],
    src: &str,
    options: &str,
    kernel: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    let m = build(src, options);
    let mut compared = 0;
    for &w in widths {
        let k = compile(&m, kernel, w);
        compared += compare_launches(&m, kernel, &k, ranges, &args);
    }
    compared
}

/// Runs the compiled `k` of `m`'s `kernel` and the interpreter over
/// `ranges` (arguments from `args`) and panics at the first buffer that
/// differs; returns the number of launches compared.
pub fn compare_launches(
    m: &Module,
    kernel: &str,
    k: &CompiledKernel,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) -> usize {
    let w = k.simd_width();
    for range in ranges {
        let init = interp_args_for(&args(range));
        let mut want = init.clone();
        if let Err(e) = run_kernel(m, kernel, &mut want, range) {
            panic!("{kernel} {range:?}: interpreter: {e}");
        }
        let (status, got) = run_jit(k, &init, range);
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
    }
    ranges.len()
}

/// The `explain` report of `kernel` of `src` at W = 8.
pub fn explain(src: &str, kernel: &str) -> String {
    compile(&build(src, ""), kernel, 8).explain().to_string()
}

/// The explain report of kernel `k` of `src` compiled at width `w` with
/// the default options.
pub fn explain_at(src: &str, w: u32) -> String {
    let opts = vecl_jit::JitOptions {
        simd_width: Some(w),
        prefetch: crate::test_prefetch(),
        passes: crate::test_passes(),
        ..vecl_jit::JitOptions::default()
    };
    vecl_jit::compile_kernel(&build(src, ""), "k", &opts)
        .expect("compiles")
        .explain()
        .to_string()
}

/// The line of [`explain_at`]'s report that starts with `prefix`.
pub fn explain_line(src: &str, w: u32, prefix: &str) -> String {
    let e = explain_at(src, w);
    e.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix} in {e}"))
        .to_string()
}

/// The line of `k`'s report that says which code it got (`code: …`: the
/// wide AVX-512 code or Cranelift's, and why).
pub fn code_line(k: &CompiledKernel) -> String {
    k.explain()
        .lines()
        .find(|l| l.starts_with("code: "))
        .unwrap_or_else(|| panic!("no code line in {}", k.explain()))
        .to_string()
}

/// `kernel` of `m` compiled with [`crate::wide_options`]; on a CPU that
/// runs the wide code, it must have got it.
pub fn compile_wide(m: &Module, kernel: &str) -> CompiledKernel {
    let k = vecl_jit::compile_kernel(m, kernel, &crate::wide_options()).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{line}");
    } else {
        assert!(line.contains("no AVX-512F"), "{line}");
    }
    k
}

/// Kernel `k` of `src` on the wide code ([`compile_wide`]) against the
/// interpreter over `ranges`.
pub fn wide_agrees(src: &str, ranges: &[NdRange], args: impl Fn(&NdRange) -> Vec<Spec>) {
    let m = build(src, "");
    let k = compile_wide(&m, "k");
    assert_eq!(compare_launches(&m, "k", &k, ranges, args), ranges.len());
}

/// Kernel `k` of `src`, which the wide code refuses for `why` (on a CPU
/// that has it): Cranelift's code against the interpreter over `ranges`.
pub fn wide_refuses(
    src: &str,
    why: &str,
    ranges: &[NdRange],
    args: impl Fn(&NdRange) -> Vec<Spec>,
) {
    let m = build(src, "");
    let k = vecl_jit::compile_kernel(&m, "k", &crate::wide_options()).expect("compiles");
    let line = code_line(&k);
    assert!(line.starts_with("code: Cranelift"), "{line}");
    if cpu_has_wide() {
        assert!(line.contains(why), "{why}: {line}");
    }
    assert_eq!(compare_launches(&m, "k", &k, ranges, args), ranges.len());
}

/// Whether this CPU runs the wide AVX-512 code (tests of which code a
/// kernel gets assert it only there).
pub fn cpu_has_wide() -> bool {
    vecl_jit::wide::select::cpu_supported()
}

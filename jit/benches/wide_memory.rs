//! The memory-bound kernels of `vecl bench` (vadd, saxpy) on the wide
//! AVX-512 code against Cranelift's, unchecked and with robust access:
//! one thread, thread CPU time (less disturbed by other processes than
//! wall time), the four codes interleaved in each round, the median of
//! the rounds. Two sizes: 16M floats per buffer (from memory; streaming
//! stores and prefetch at work) and 256K (from the caches; the
//! instructions per chunk at work).
//!
//! `cargo bench -p vecl-jit --bench wide_memory` (`-- quick`: fewer
//! rounds).

use std::sync::Arc;
use vecl_jit::abi::{checked_offsets as co, ArgKind, FaultRecord, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions, Tiers};
use vecl_testkit::groups;

fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One compiled kernel with its argument block (and checked tail).
struct Run {
    kernel: CompiledKernel,
    block: Vec<u8>,
    launch: Launch,
    _record: Arc<FaultRecord>,
}

impl Run {
    /// `args`: per parameter, a buffer (address, bytes) or a value's bytes.
    fn new(src: &str, name: &str, wide: bool, robust: bool, args: &[Arg], n: u64) -> Run {
        let module = vecl_clc::build(src, "").expect("front end").module;
        let opts = JitOptions {
            tiers: Tiers::OptimisedOnly,
            simd_width: Some(16),
            wide,
            checked: robust,
            ..JitOptions::default()
        };
        let kernel = compile_kernel(&module, name, &opts).expect("compiles");
        let got_wide = kernel
            .explain()
            .lines()
            .any(|l| l.starts_with("code: wide"));
        assert_eq!(got_wide, wide, "{}", kernel.explain());
        let mut block = vec![0u8; kernel.args_size().max(8)];
        let record = Arc::new(FaultRecord::new());
        let tail = kernel.checked_tail();
        if let Some(t) = tail {
            let r = Arc::as_ptr(&record) as u64;
            block[t..t + 8].copy_from_slice(&r.to_le_bytes());
        }
        for (i, (slot, a)) in kernel.args().iter().zip(args).enumerate() {
            let at = slot.offset as usize;
            match (slot.kind, a) {
                (ArgKind::GlobalPointer, Arg::Buf(p, len)) => {
                    block[at..at + 8].copy_from_slice(&p.to_le_bytes());
                    if let Some(t) = tail {
                        let e = t + (co::BOUNDS + co::BOUNDS_ENTRY * i as i32) as usize;
                        block[e..e + 8].copy_from_slice(&p.to_le_bytes());
                        block[e + 8..e + 16].copy_from_slice(&(p + len).to_le_bytes());
                    }
                }
                (_, Arg::Val(b)) => block[at..at + b.len()].copy_from_slice(b),
                (kind, _) => panic!("no argument for a {kind:?}"),
            }
        }
        Run {
            kernel,
            block,
            launch: Launch::new(1, [0; 3], [n, 1, 1], [256, 1, 1]),
            _record: record,
        }
    }

    fn time(&mut self) -> f64 {
        let t = thread_cpu();
        // SAFETY: the block's pointers address buffers `main` keeps alive
        // and sized for the launch.
        let status =
            unsafe { groups::run_all_groups(&self.kernel, &self.block, &mut self.launch, 0) };
        assert_eq!(status, 0);
        thread_cpu() - t
    }
}

enum Arg {
    Buf(u64, u64),
    Val(Vec<u8>),
}

fn buf(v: &mut [f32]) -> Arg {
    Arg::Buf(v.as_mut_ptr() as u64, 4 * v.len() as u64)
}

fn main() {
    if !vecl_jit::wide::select::cpu_supported() {
        println!("wide_memory: this CPU has no AVX-512F and BMI2; nothing to measure");
        return;
    }
    let quick = std::env::args().any(|a| a == "quick");
    let rounds = if quick { 5 } else { 21 };
    let vadd = include_str!("../../benches/vadd.cl");
    let saxpy = include_str!("../../benches/saxpy.cl");
    for n in [1usize << 24, 1 << 18] {
        let (mut a, mut b, mut c) = (vec![1f32; n], vec![2f32; n], vec![0f32; n]);
        let codes = [(false, false), (true, false), (false, true), (true, true)];
        let name = |(wide, robust): (bool, bool)| {
            format!(
                "{}{}",
                if wide { "wide" } else { "Cranelift" },
                if robust { ", robust" } else { "" }
            )
        };
        for kernel in ["vadd", "saxpy"] {
            let mut runs: Vec<Run> = codes
                .iter()
                .map(|&(wide, robust)| match kernel {
                    "vadd" => Run::new(
                        vadd,
                        "vadd",
                        wide,
                        robust,
                        &[buf(&mut a), buf(&mut b), buf(&mut c)],
                        n as u64,
                    ),
                    _ => Run::new(
                        saxpy,
                        "saxpy",
                        wide,
                        robust,
                        &[
                            Arg::Val(2.5f32.to_le_bytes().to_vec()),
                            buf(&mut a),
                            buf(&mut b),
                        ],
                        n as u64,
                    ),
                })
                .collect();
            let reps = if n > 1 << 20 { 1 } else { 64 };
            let mut times = vec![Vec::new(); runs.len()];
            for _ in 0..rounds {
                for (r, t) in runs.iter_mut().zip(&mut times) {
                    t.push((0..reps).map(|_| r.time()).sum::<f64>() / reps as f64);
                }
            }
            let base = median(&mut times[0].clone());
            for (code, t) in codes.iter().zip(&mut times) {
                let lo = t.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = t.iter().copied().fold(0f64, f64::max);
                let m = median(t);
                println!(
                    "{kernel} {n:>9} floats, {:<18} {:8.3} ms (range {:.3}-{:.3}), {:.2}x Cranelift's time",
                    name(*code),
                    m * 1e3,
                    lo * 1e3,
                    hi * 1e3,
                    m / base
                );
            }
        }
    }
}

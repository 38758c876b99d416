//! Divergent control flow in the interpreter: switch fall-through, loops
//! with per-item break and continue, early returns from loops and kernels.
//! The kernels are IR text (`tests/interp/control.ir`); each result is
//! checked against the same C code run on the host.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::text::parse_module;

fn run_u32(kernel: &str, n: usize, local: u64) -> Vec<u32> {
    let module = parse_module(include_str!("interp/control.ir")).expect("control.ir parses");
    let mut args = [KernelArg::Buffer(vec![0; n * 4])];
    run_kernel(
        &module,
        kernel,
        &mut args,
        &NdRange::linear(n as u64, local),
    )
    .expect("kernel runs");
    let KernelArg::Buffer(out) = &args[0] else {
        unreachable!()
    };
    out.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn switch_falls_through_per_work_item() {
    let out = run_u32("switch_fall", 70, 16);
    for (i, &got) in out.iter().enumerate() {
        let mut r: i32 = match i % 5 {
            0 => 1 + 10,
            1 | 2 => 10,
            3 => 100 + 1000,
            _ => 1000,
        };
        if i % 7 == 6 && i % 2 == 0 {
            r = -1;
        }
        assert_eq!(got as i32, r, "item {i}");
    }
}

#[test]
fn loops_with_break_and_continue_under_divergence() {
    let out = run_u32("loop_break_continue", 40, 8);
    for (i, &got) in out.iter().enumerate() {
        let mut acc = 0u32;
        let mut k = 0u32;
        loop {
            if k >= i as u32 {
                break;
            }
            if k % 3 != 1 {
                acc += k;
                if acc > 50 {
                    break;
                }
            }
            k += 1;
        }
        assert_eq!(got, acc, "item {i}");
    }
}

#[test]
fn early_returns_from_loops_and_kernels() {
    let out = run_u32("call_collatz", 60, 12);
    for (i, &got) in out.iter().enumerate() {
        let want = if i % 4 == 0 {
            7
        } else {
            let (mut x, mut steps) = (i as u32 + 1, 0);
            while x != 1 {
                x = if x & 1 == 1 { 3 * x + 1 } else { x / 2 };
                steps += 1;
            }
            steps
        };
        assert_eq!(got, want, "item {i}");
    }
}

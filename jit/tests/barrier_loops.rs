//! Barriers inside loops: the `__local` tree reduction and the inclusive
//! scan of the IR corpus, run over power-of-two local sizes from 1 to 256
//! and SIMD widths 4, 8 and 16, checked against sums computed here.

use vecl_ir::text::parse_module;
use vecl_jit::abi::Launch;
use vecl_testkit::{compile, f32_bytes, f32_from, i32_bytes, i32_from, Arg};

const LOCAL_SIZES: [u64; 7] = [1, 2, 4, 8, 16, 64, 256];

fn corpus(name: &str) -> vecl_ir::Module {
    let path = format!("{}/../ir/tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).expect("corpus file");
    parse_module(&src).expect("corpus parses")
}

#[test]
fn local_tree_reduction_sums_each_group() {
    let m = corpus("reduce_local.ir");
    for w in [4, 8, 16] {
        let k = compile(&m, "reduce_sum", w);
        for ls in LOCAL_SIZES {
            let groups = 3u64;
            let n = (ls * groups) as usize;
            let input: Vec<f32> = (0..n).map(|i| (i % 13) as f32 - 4.0).collect();
            let mut inb = f32_bytes(&input);
            let mut out = f32_bytes(&vec![0.0; groups as usize]);
            let mut args = [Arg::Buf(&mut inb), Arg::Buf(&mut out), Arg::Local(ls * 4)];
            let mut launch = Launch::new(1, [0; 3], [n as u64, 1, 1], [ls, 1, 1]);
            vecl_testkit::run(&k, &mut args, &mut launch);
            let got = f32_from(&out);
            for g in 0..groups as usize {
                let want: f32 = input[g * ls as usize..(g + 1) * ls as usize].iter().sum();
                assert_eq!(got[g], want, "W={w} local={ls} group {g}");
            }
        }
    }
}

#[test]
fn local_inclusive_scan_per_group() {
    let m = corpus("prefix_scan.ir");
    for w in [4, 8, 16] {
        let k = compile(&m, "scan_inclusive", w);
        for ls in LOCAL_SIZES {
            let groups = 2u64;
            let n = (ls * groups) as usize;
            let input: Vec<i32> = (0..n).map(|i| (i % 7) as i32 - 3).collect();
            let mut data = i32_bytes(&input);
            let mut args = [Arg::Buf(&mut data), Arg::Local(ls * 4)];
            let mut launch = Launch::new(1, [0; 3], [n as u64, 1, 1], [ls, 1, 1]);
            vecl_testkit::run(&k, &mut args, &mut launch);
            let got = i32_from(&data);
            for g in 0..groups as usize {
                let mut acc = 0;
                for i in g * ls as usize..(g + 1) * ls as usize {
                    acc += input[i];
                    assert_eq!(got[i], acc, "W={w} local={ls} item {i}");
                }
            }
        }
    }
}

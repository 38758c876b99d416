//! The AVX-512 prototype (`vecl_jit::wide`), compiled with each of its
//! register allocators: every operation of its machine IR at 16 lanes
//! against the same arithmetic in Rust, a program that must spill, and its
//! mandelbrot and nbody chunk loops against the interpreter running
//! `benches/mandelbrot.cl` and `benches/nbody.cl` (and, for nbody, whose
//! `rsqrt` the interpreter computes in double precision, against vecl's
//! Cranelift code at W = 16, bit for bit). On a CPU without AVX-512F each
//! test checks that compilation is refused and stops.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_jit::wide::chunks::{
    compile_mandelbrot, compile_nbody, nbody_accelerations, run_mandelbrot,
};
use vecl_jit::wide::emit::WideCode;
use vecl_jit::wide::{
    compile, supported, Allocator, Arg, Bin, Cmp, CmpKind, Op, Program, WideError,
};

/// Inputs with the awkward values: zeros of both signs, infinities, NaN,
/// a denormal, large and small magnitudes.
fn awkward() -> ([f32; 16], [f32; 16]) {
    let a = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        3.0e38,
        -7.0,
        0.1,
        4.0,
        100.0,
        -0.5,
        2.0,
        9.0,
    ];
    let b = [
        -0.0,
        0.0,
        0.75,
        3.0,
        1.0,
        f32::INFINITY,
        2.0,
        1e-40,
        10.0,
        -7.0,
        0.3,
        4.0,
        -100.0,
        0.25,
        f32::NAN,
        3.0,
    ];
    (a, b)
}

fn ints() -> ([i32; 16], [i32; 16]) {
    let a = [
        0,
        1,
        -1,
        i32::MAX,
        i32::MIN,
        7,
        -7,
        1 << 20,
        12345,
        -99,
        3,
        0x7fff,
        -0x8000,
        42,
        5,
        -6,
    ];
    let b = [0, -1, 1, 1, -1, 7, 8, -7, 3, -99, 100, 2, 3, -42, 5, 6];
    (a, b)
}

/// Compiles `p` with every allocator, or checks that a CPU without
/// AVX-512F refuses it.
fn compiled(p: &Program) -> Option<Vec<WideCode>> {
    let mut codes = Vec::new();
    for allocator in Allocator::ALL {
        match compile(p, allocator) {
            Ok(c) => codes.push(c),
            Err(WideError::NoAvx512) => {
                assert!(!supported());
                return None;
            }
            Err(e) => panic!("{allocator:?}: {e}"),
        }
    }
    Some(codes)
}

/// Runs a program reading two vectors at A0 and A0 + 64 and writing one
/// at A1, compiled by each allocator; the results must agree.
fn run2(p: &Program, a: &[u32; 16], b: &[u32; 16]) -> Option<[u32; 16]> {
    let mut input = [0u32; 32];
    input[..16].copy_from_slice(a);
    input[16..].copy_from_slice(b);
    let mut outs = Vec::new();
    for code in compiled(p)? {
        let mut out = [0u32; 16];
        // SAFETY: the programs read 128 bytes at A0 and write 64 at A1.
        unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
        outs.push(out);
    }
    assert!(
        outs.windows(2).all(|w| w[0] == w[1]),
        "the allocators' code disagrees"
    );
    Some(outs[0])
}

fn bits_f(v: [f32; 16]) -> [u32; 16] {
    v.map(f32::to_bits)
}

fn bits_i(v: [i32; 16]) -> [u32; 16] {
    v.map(|x| x as u32)
}

/// Equal as floats, NaN equal to NaN.
fn same_f(got: u32, want: f32) -> bool {
    let g = f32::from_bits(got);
    (g.is_nan() && want.is_nan()) || got == want.to_bits()
}

#[test]
fn float_binary_operations_match_rust_in_every_lane() {
    let (a, b) = awkward();
    let ops: [(Bin, fn(f32, f32) -> f32); 4] = [
        (Bin::FAdd, |x, y| x + y),
        (Bin::FSub, |x, y| x - y),
        (Bin::FMul, |x, y| x * y),
        (Bin::FDiv, |x, y| x / y),
    ];
    for (op, f) in ops {
        let mut p = Program::new();
        let x = p.load(Arg::A0, 0);
        let y = p.load(Arg::A0, 64);
        let d = p.bin(op, x, y);
        p.push(Op::Store {
            a: d,
            arg: Arg::A1,
            off: 0,
        });
        let Some(got) = run2(&p, &bits_f(a), &bits_f(b)) else {
            return;
        };
        for l in 0..16 {
            assert!(same_f(got[l], f(a[l], b[l])), "{op:?} lane {l}");
        }
    }
}

#[test]
fn integer_binary_operations_wrap_as_rust_does() {
    let (a, b) = ints();
    let ops: [(Bin, fn(i32, i32) -> i32); 4] = [
        (Bin::IAdd, i32::wrapping_add),
        (Bin::ISub, i32::wrapping_sub),
        (Bin::IMul, i32::wrapping_mul),
        (Bin::IXor, |x, y| x ^ y),
    ];
    for (op, f) in ops {
        let mut p = Program::new();
        let x = p.load(Arg::A0, 0);
        let y = p.load(Arg::A0, 64);
        let d = p.bin(op, x, y);
        p.push(Op::Store {
            a: d,
            arg: Arg::A1,
            off: 0,
        });
        let Some(got) = run2(&p, &bits_i(a), &bits_i(b)) else {
            return;
        };
        for l in 0..16 {
            assert_eq!(got[l] as i32, f(a[l], b[l]), "{op:?} lane {l}");
        }
    }
}

/// `d = a * b + c` with every assignment of registers the emitter picks a
/// form for: `d` a fresh value, or the same value as `c` (an
/// accumulator), as `a`, as `b`.
#[test]
fn fma_rounds_once_whichever_operand_the_result_overwrites() {
    let (a, b) = awkward();
    let c: [f32; 16] = std::array::from_fn(|l| b[15 - l] * 0.5);
    let want = |l: usize| a[l].mul_add(b[l], c[l]);
    for form in 0..4 {
        let mut p = Program::new();
        let x = p.load(Arg::A0, 0);
        let y = p.load(Arg::A0, 64);
        let z = p.load(Arg::A0, 128);
        let d = match form {
            0 => p.fma(x, y, z),
            1 => {
                p.push(Op::Fma {
                    d: z,
                    a: x,
                    b: y,
                    c: z,
                });
                z
            }
            2 => {
                p.push(Op::Fma {
                    d: x,
                    a: x,
                    b: y,
                    c: z,
                });
                x
            }
            _ => {
                p.push(Op::Fma {
                    d: y,
                    a: x,
                    b: y,
                    c: z,
                });
                y
            }
        };
        p.push(Op::Store {
            a: d,
            arg: Arg::A1,
            off: 0,
        });
        let Some(codes) = compiled(&p) else { return };
        let mut input = [0u32; 48];
        input[..16].copy_from_slice(&bits_f(a));
        input[16..32].copy_from_slice(&bits_f(b));
        input[32..].copy_from_slice(&bits_f(c));
        for code in codes {
            let mut out = [0u32; 16];
            // SAFETY: reads 192 bytes at A0, writes 64 at A1.
            unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
            for (l, got) in out.iter().enumerate() {
                assert!(same_f(*got, want(l)), "form {form} lane {l}");
            }
        }
    }
}

#[test]
fn sqrt_conversion_splat_and_broadcast_match_rust() {
    let (a, _) = awkward();
    let (ia, _) = ints();
    let mut p = Program::new();
    let x = p.load(Arg::A0, 0);
    let s = p.sqrt(x);
    p.push(Op::Store {
        a: s,
        arg: Arg::A1,
        off: 0,
    });
    let Some(got) = run2(&p, &bits_f(a), &[0; 16]) else {
        return;
    };
    for l in 0..16 {
        assert!(same_f(got[l], a[l].sqrt()), "sqrt lane {l}");
    }
    let mut p = Program::new();
    let x = p.load(Arg::A0, 0);
    let f = p.int_to_float(x);
    p.push(Op::Store {
        a: f,
        arg: Arg::A1,
        off: 0,
    });
    let got = run2(&p, &bits_i(ia), &[0; 16]).unwrap();
    for l in 0..16 {
        assert_eq!(got[l], (ia[l] as f32).to_bits(), "convert lane {l}");
    }
    // A splat of a constant plus a broadcast of lane 3 of the second input.
    let mut p = Program::new();
    let k = p.splat_f32(0.375);
    let y = p.broadcast(Arg::A0, 64 + 12);
    let d = p.bin(Bin::FAdd, k, y);
    p.push(Op::Store {
        a: d,
        arg: Arg::A1,
        off: 0,
    });
    let (_, b) = awkward();
    let got = run2(&p, &[0; 16], &bits_f(b)).unwrap();
    for (l, g) in got.iter().enumerate() {
        assert!(same_f(*g, 0.375 + b[3]), "splat + broadcast lane {l}");
    }
}

/// A compare into a mask, then an add under that mask: the lanes where
/// the comparison holds get `a + b`, the others keep `a`. Compares whose
/// `within` mask is itself a compare's result drop the lanes outside it.
#[test]
fn compares_select_the_lanes_a_masked_add_changes() {
    let (fa, fb) = awkward();
    let (ia, ib) = ints();
    let cases: [(Cmp, Box<dyn Fn(usize) -> bool>, [u32; 16], [u32; 16]); 4] = [
        (
            Cmp::FLe,
            Box::new(move |l| fa[l] <= fb[l]),
            bits_f(fa),
            bits_f(fb),
        ),
        (
            Cmp::FLt,
            Box::new(move |l| fa[l] < fb[l]),
            bits_f(fa),
            bits_f(fb),
        ),
        (
            Cmp::IGt,
            Box::new(move |l| ia[l] > ib[l]),
            bits_i(ia),
            bits_i(ib),
        ),
        (
            Cmp::IEq,
            Box::new(move |l| ia[l] == ib[l]),
            bits_i(ia),
            bits_i(ib),
        ),
    ];
    for (cmp, holds, a, b) in cases {
        for nested in [false, true] {
            let mut p = Program::new();
            let x = p.load(Arg::A0, 0);
            let y = p.load(Arg::A0, 64);
            let all = p.all_lanes();
            let within = if nested {
                // Lanes whose bits as integers are equal to themselves: all,
                // then the ones whose second input is not lane 0's...
                let k = p.k();
                let l0 = p.broadcast(Arg::A0, 64);
                p.push(Op::Compare {
                    cmp: Cmp::IEq,
                    d: k,
                    a: y,
                    b: l0,
                    within: all,
                });
                k
            } else {
                all
            };
            let d = p.k();
            p.push(Op::Compare {
                cmp,
                d,
                a: x,
                b: y,
                within,
            });
            let acc = p.load(Arg::A0, 0);
            p.push(Op::BinMasked {
                op: Bin::IAdd,
                d: acc,
                a: acc,
                b: y,
                k: d,
            });
            p.push(Op::Store {
                a: acc,
                arg: Arg::A1,
                off: 0,
            });
            let Some(got) = run2(&p, &a, &b) else { return };
            for l in 0..16 {
                let inside = !nested || b[l] == b[0];
                let want = if inside && holds(l) {
                    a[l].wrapping_add(b[l])
                } else {
                    a[l]
                };
                assert_eq!(got[l], want, "{cmp:?} nested {nested} lane {l}");
            }
        }
    }
}

/// A counted loop over memory (a sum of 16-lane rows) and a loop that
/// runs while any lane is active (each lane counts down from its own
/// start), with a value carried around each.
#[test]
fn loops_carry_values_and_end_when_their_condition_says() {
    let mut p = Program::new();
    let sum = p.splat_i32(0);
    p.push(Op::Loop);
    let row = p.load(Arg::A0, 0);
    p.push(Op::Bin {
        op: Bin::IAdd,
        d: sum,
        a: sum,
        b: row,
    });
    p.push(Op::WhileCount {
        arg: Arg::A0,
        step: 64,
        count: Arg::A2,
    });
    p.push(Op::Store {
        a: sum,
        arg: Arg::A1,
        off: 0,
    });
    let Some(codes) = compiled(&p) else { return };
    let rows: Vec<i32> = (0..16 * 7).map(|i| i * 3 - 50).collect();
    for code in codes {
        let mut out = [0i32; 16];
        // SAFETY: 7 rows of 64 bytes at A0, 64 bytes written at A1.
        unsafe { code.call([rows.as_ptr() as u64, out.as_mut_ptr() as u64, 7, 0, 0]) };
        for (l, got) in out.iter().enumerate() {
            let want: i32 = (0..7).map(|r| rows[16 * r + l]).sum();
            assert_eq!(*got, want, "sum lane {l}");
        }
    }

    let mut p = Program::new();
    let left = p.load(Arg::A0, 0);
    let steps = p.splat_i32(0);
    let one = p.splat_i32(1);
    let zero = p.splat_i32(0);
    let live = p.all_lanes();
    p.push(Op::Loop);
    p.push(Op::Compare {
        cmp: Cmp::IGt,
        d: live,
        a: left,
        b: zero,
        within: live,
    });
    p.push(Op::BinMasked {
        op: Bin::ISub,
        d: left,
        a: left,
        b: one,
        k: live,
    });
    p.push(Op::BinMasked {
        op: Bin::IAdd,
        d: steps,
        a: steps,
        b: one,
        k: live,
    });
    p.push(Op::WhileAny { k: live });
    p.push(Op::Store {
        a: steps,
        arg: Arg::A1,
        off: 0,
    });
    let start: [i32; 16] = std::array::from_fn(|l| [0, 3, 17, -4][l % 4] + l as i32 / 4);
    let got = run2(&p, &bits_i(start), &[0; 16]).unwrap();
    for l in 0..16 {
        assert_eq!(got[l] as i32, start[l].max(0), "steps lane {l}");
    }
}

fn interp_args(args: &[KernelArg]) -> Vec<KernelArg> {
    args.to_vec()
}

#[test]
fn mandelbrot_chunks_match_the_interpreter_count_for_count() {
    if compiled(&vecl_jit::wide::chunks::mandelbrot_program(1)).is_none() {
        return;
    }
    let (w, h, max_iter) = (64usize, 24usize, 40i32);
    let m = vecl_clc::build(include_str!("../../benches/mandelbrot.cl"), "")
        .expect("front end")
        .module;
    let mut args = interp_args(&[
        KernelArg::Buffer(vec![0u8; 4 * w * h]),
        KernelArg::Value((w as i32).to_le_bytes().to_vec()),
        KernelArg::Value((h as i32).to_le_bytes().to_vec()),
        KernelArg::Value(max_iter.to_le_bytes().to_vec()),
    ]);
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [w as u64, h as u64, 1],
        local_size: [16, 4, 1],
    };
    run_kernel(&m, "mandelbrot", &mut args, &range).expect("interpreter");
    let KernelArg::Buffer(want) = &args[0] else {
        unreachable!()
    };
    // One chunk (W = 16) and two interleaved (W = 32).
    for (chunks, allocator) in [1, 2]
        .into_iter()
        .flat_map(|c| Allocator::ALL.map(|a| (c, a)))
    {
        let code = compile_mandelbrot(chunks, allocator).unwrap();
        let mut got = vec![0i32; w * h];
        run_mandelbrot(&code, chunks, &mut got, w, h, max_iter);
        let mut escaped = 0;
        for (i, g) in got.iter().enumerate() {
            let want = i32::from_le_bytes(want[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(
                *g,
                want,
                "{chunks} chunks, {allocator:?}: pixel ({}, {})",
                i % w,
                i / w
            );
            escaped += usize::from(want < max_iter);
        }
        // Both kinds of lane, so that the loop's divergent exit was exercised.
        assert!(escaped > 0 && escaped < w * h);
    }
}

#[test]
fn nbody_chunks_match_the_interpreter_body_for_body() {
    if compiled(&vecl_jit::wide::chunks::nbody_program(1)).is_none() {
        return;
    }
    let (n, local, dt, eps2) = (64usize, 16u64, 0.01f32, 0.01f32);
    let pos: Vec<f32> = (0..4 * n)
        .map(|i| {
            if i % 4 == 3 {
                0.5 + (i % 7) as f32 * 0.1
            } else {
                ((i * 37 % 101) as f32 - 50.0) / 25.0
            }
        })
        .collect();
    let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let m = vecl_clc::build(include_str!("../../benches/nbody.cl"), "")
        .expect("front end")
        .module;
    let mut args = vec![
        KernelArg::Buffer(bytes(&pos)),
        KernelArg::Buffer(vec![0u8; 16 * n]),
        KernelArg::Buffer(vec![0u8; 16 * n]),
        KernelArg::Buffer(vec![0u8; 16 * n]),
        KernelArg::Local(16 * local as usize),
        KernelArg::Value((n as i32).to_le_bytes().to_vec()),
        KernelArg::Value(dt.to_le_bytes().to_vec()),
        KernelArg::Value(eps2.to_le_bytes().to_vec()),
    ];
    let range = NdRange::linear(n as u64, local);
    // The prototype's `1 / sqrt`, as `Rsqrt::Divide` computes `rsqrt`.
    let opts = vecl_jit::JitOptions {
        simd_width: Some(16),
        tiers: vecl_testkit::test_tiers(16),
        prefetch: vecl_testkit::test_prefetch(),
        passes: vecl_testkit::test_passes(),
        rsqrt: vecl_jit::Rsqrt::Divide,
        ..vecl_jit::JitOptions::default()
    };
    let k = vecl_jit::compile_kernel(&m, "nbody", &opts).expect("vecl compiles nbody");
    let (status, jit) = vecl_testkit::run_jit(&k, &args, &range);
    assert_eq!(status, 0);
    run_kernel(&m, "nbody", &mut args, &range).expect("interpreter");
    let KernelArg::Buffer(new_vel) = &args[3] else {
        unreachable!()
    };
    let at = |buf: &[u8], i: usize, c: usize| {
        f32::from_le_bytes(buf[16 * i + 4 * c..16 * i + 4 * c + 4].try_into().unwrap())
    };
    for (chunks, allocator) in [1, 2]
        .into_iter()
        .flat_map(|c| Allocator::ALL.map(|a| (c, a)))
    {
        let code = compile_nbody(chunks, allocator).unwrap();
        let acc = nbody_accelerations(&code, chunks, &pos, eps2);
        for (i, a) in acc.iter().enumerate() {
            let mag = a.iter().map(|x| x * x).sum::<f32>().sqrt() * dt;
            for (c, ac) in a.iter().enumerate() {
                // The kernel's velocity starts at 0: v += acc * dt.
                let got = ac.mul_add(dt, 0.0);
                assert_eq!(
                    got,
                    at(&jit[3], i, c),
                    "body {i} component {c} vs vecl's code"
                );
                let want = at(new_vel, i, c);
                assert!(
                    (got - want).abs() <= 1e-5 * mag,
                    "body {i} component {c}: {got} vs the interpreter's {want}"
                );
            }
        }
    }
}

#[test]
fn the_chunk_loops_fit_the_registers_without_spilling() {
    if compiled(&vecl_jit::wide::chunks::mandelbrot_program(2)).is_none() {
        return;
    }
    let m = compile_mandelbrot(2, Allocator::LinearScan).unwrap();
    let n = compile_nbody(2, Allocator::LinearScan).unwrap();
    assert!(m.zmm_used <= 32 && n.zmm_used <= 32);
    // Two chunks' masks and their union.
    assert_eq!((m.k_used, n.k_used), (3, 0));
}

/// 40 values live at once: linear scan refuses the program, regalloc2
/// spills and the sum comes out right. (The values are computed, `c | 0`:
/// constants themselves would be read from the code's pool and take no
/// register.)
#[test]
fn regalloc2_spills_what_does_not_fit_the_32_registers() {
    let mut p = Program::new();
    let zero = p.constant(0);
    let vs: Vec<_> = (0..40)
        .map(|i| {
            let c = p.splat_i32(i * 1000 + 1);
            p.bin(Bin::IOr, c, zero)
        })
        .collect();
    let x = p.load(Arg::A0, 0);
    let acc = p.bin(Bin::IMul, x, vs[0]);
    // Every value stays live until the loop has used it.
    p.push(Op::Loop);
    for v in &vs[1..] {
        let t = p.bin(Bin::IAdd, acc, *v);
        p.push(Op::Copy { d: acc, a: t });
    }
    p.push(Op::WhileCount {
        arg: Arg::A1,
        step: 0,
        count: Arg::A2,
    });
    p.push(Op::Store {
        a: acc,
        arg: Arg::A3,
        off: 0,
    });
    match compile(&p, Allocator::LinearScan) {
        Err(WideError::NoAvx512) => return,
        Err(e) => assert_eq!(e, WideError::OutOfRegisters(32, "zmm")),
        Ok(_) => panic!("linear scan fitted 41 live values in 32 registers"),
    }
    let (code, stats) = vecl_jit::wide::ra2::compile_regalloc2(&p).unwrap();
    assert!(stats.spill_slots > 0, "{stats:?}");
    let input: [i32; 16] = std::array::from_fn(|l| l as i32 - 3);
    let mut out = [0i32; 16];
    let trips = 3u64;
    // SAFETY: reads 64 bytes at A0, writes 64 at A3; A1 is not read.
    unsafe { code.call([input.as_ptr() as u64, 0, trips, out.as_mut_ptr() as u64, 0]) };
    let step: i32 = (1..40).map(|i| i * 1000 + 1).sum();
    for (l, got) in out.iter().enumerate() {
        let want = input[l].wrapping_mul(1) + step * trips as i32;
        assert_eq!(*got, want, "lane {l}");
    }
}

/// Why the prototype exists: the Cranelift vecl builds with compiles
/// `fadd`, `fma` and `fcmp` + `bitselect` of loaded `f32x4` values and
/// refuses the same at `f32x8` and `f32x16` (its x64 back end has no
/// register class for them). When this fails, Cranelift has gained wider
/// vectors and docs/wide.md needs a new look.
#[test]
fn cranelift_refuses_vectors_past_128_bits() {
    use cranelift_codegen::ir::condcodes::FloatCC;
    use cranelift_codegen::ir::{
        types, AbiParam, Endianness, Function, InstBuilder, MemFlagsData, Signature, UserFuncName,
    };
    use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
    use cranelift_codegen::settings::{self, Configurable};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    let compile = |ty: types::Type, op: &str| -> Result<usize, String> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").unwrap();
        let isa = cranelift_native::builder()
            .unwrap()
            .finish(settings::Flags::new(flags))
            .unwrap();
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        let mut func = Function::with_name_signature(UserFuncName::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let (p, q) = (b.block_params(block)[0], b.block_params(block)[1]);
        let mem = MemFlagsData::trusted();
        let x = b.ins().load(ty, mem, p, 0);
        let y = b.ins().load(ty, mem, q, 0);
        let r = match op {
            "fadd" => b.ins().fadd(x, y),
            "fma" => b.ins().fma(x, y, x),
            _ => {
                let c = b.ins().fcmp(FloatCC::LessThan, x, y);
                let little = MemFlagsData::new().with_endianness(Endianness::Little);
                let c = b.ins().bitcast(ty, little, c);
                b.ins().bitselect(c, x, y)
            }
        };
        b.ins().store(mem, r, p, 0);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(TargetFrontendConfig {
            default_call_conv: CallConv::SystemV,
            pointer_width: target_lexicon::PointerWidth::U64,
            page_size_align_log2: 12,
        });
        let mut ctx = cranelift_codegen::Context::for_function(func);
        match ctx.compile(&*isa, &mut Default::default()) {
            Ok(c) => Ok(c.code_buffer().len()),
            Err(e) => Err(format!("{:?}", e.inner)),
        }
    };
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    for op in ["fadd", "fma", "fcmp+bitselect"] {
        let bytes = compile(types::F32X4, op).unwrap_or_else(|e| panic!("f32x4 {op}: {e}"));
        assert!(bytes > 0);
        for ty in [types::F32X8, types::F32X16] {
            let err = compile(ty, op).expect_err("Cranelift compiled a vector past 128 bits");
            assert!(
                err.contains("Unexpected SSA-value type"),
                "{ty} {op}: {err}"
            );
        }
    }
}

/// A skipped region (`Op::IfAny`): run when a lane of its mask is set,
/// skipped otherwise, the values it writes joined either way, with 36
/// values live across it (so that `regalloc2` spills around the join).
#[test]
fn a_region_runs_only_when_a_lane_of_its_mask_is_set_and_joins_its_values() {
    let mut p = Program::new();
    let x = p.load(Arg::A0, 0);
    let y = p.load(Arg::A0, 64);
    let zero = p.splat_i32(0);
    let one = p.splat_i32(1);
    let vs: Vec<_> = (0..36).map(|i| p.splat_i32(i * 10 + 7)).collect();
    let v = p.bin(Bin::IAdd, x, one);
    let k = p.k();
    p.push(Op::Compare2 {
        kind: CmpKind::I32,
        pred: 6,
        d: k,
        a: y,
        b: zero,
    });
    p.push(Op::IfAny { k });
    // A value of the region's own, then `v` rewritten in the mask's lanes.
    let three = p.splat_i32(3);
    let t = p.bin(Bin::IMul, v, three);
    let t = p.bin(Bin::IAdd, t, vs[0]);
    p.push(Op::BinMasked {
        op: Bin::IAdd,
        d: v,
        a: t,
        b: t,
        k,
    });
    p.push(Op::EndIf);
    let mut acc = v;
    for c in &vs {
        acc = p.bin(Bin::IAdd, acc, *c);
    }
    p.push(Op::Store {
        a: acc,
        arg: Arg::A1,
        off: 0,
    });
    match compile(&p, Allocator::LinearScan) {
        Err(WideError::NoAvx512) => return,
        // It has no regions (and no spilling).
        Err(WideError::Malformed(_) | WideError::OutOfRegisters(..)) => {}
        other => panic!("linear scan: {other:?}"),
    }
    let (code, _) = vecl_jit::wide::ra2::compile_regalloc2(&p).unwrap();
    let sum: i32 = (0..36).map(|i| i * 10 + 7).sum();
    let xs: [i32; 16] = std::array::from_fn(|l| l as i32 * 5 - 20);
    for set in [vec![], vec![5], vec![0, 15], (0..16).collect()] {
        let mut input = [0i32; 32];
        input[..16].copy_from_slice(&xs);
        for l in &set {
            input[16 + l] = 1;
        }
        let mut out = [0i32; 16];
        // SAFETY: reads 128 bytes at A0, writes 64 at A1.
        unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
        for l in 0..16 {
            let v = xs[l] + 1;
            let v = if set.contains(&l) { 2 * (3 * v + 7) } else { v };
            assert_eq!(out[l], v + sum, "lanes {set:?}, lane {l}");
        }
    }
}

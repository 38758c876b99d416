//! Constants as broadcast memory operands in the wide code: `regalloc2`'s
//! allocation (`wide::ra2`) reads a constant from the code's pool
//! (`{1to16}` of 32 bits, `{1to8}` of 64) wherever the instruction takes a
//! memory operand, and gives it no register. Every operation and operand
//! position it does that for runs here against the same program compiled
//! by linear scan, which keeps every constant in a register, over
//! awkward inputs and constants, bit for bit; and the regalloc2 code's
//! pool is checked to hold the constant, so the memory form is the one
//! it emitted (or not to, where the operation must not take it: a non-commuting
//! operation with the constant first, a float one with a NaN constant
//! first, a 64-bit constant whose halves differ in 32-bit lanes).

use vecl_jit::wide::ra2::compile_regalloc2;
use vecl_jit::wide::{compile, supported, Allocator, Arg, Bin, Cmp, CmpKind, Op, Program, V};
use vecl_jit::wide::{WideError, K};

/// Inputs: three vectors of awkward float bits (zeros of both signs,
/// infinities, NaN, subnormals, large and small magnitudes, integers).
fn inputs() -> [u32; 48] {
    let f: [f32; 16] = [
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
    let i: [i32; 16] = [
        0,
        1,
        -1,
        i32::MAX,
        i32::MIN,
        7,
        -7,
        33,
        12345,
        -99,
        3,
        31,
        -0x8000,
        42,
        5,
        -6,
    ];
    let mut v = [0u32; 48];
    for l in 0..16 {
        v[l] = f[l].to_bits();
        v[16 + l] = i[l] as u32;
        v[32 + l] = f[15 - l].to_bits() ^ (l as u32) << 3;
    }
    v
}

/// 32-bit constants: floats (a NaN among them) and integers, shift counts
/// past 31 included.
const CONSTANTS: [u32; 8] = [
    0x3fc0_0000, // 1.5
    0x8000_0000, // -0.0
    0x7f80_0000, // inf
    0x7fc0_0001, // a NaN
    0x0000_0001, // the least subnormal; the integer 1
    0xffff_ffff, // -1
    0x0000_0021, // 33
    0x4b00_0007, // 8388615.0
];

/// 64-bit constants: doubles (a NaN among them), integers, and one whose
/// halves agree.
const CONSTANTS_Q: [u64; 5] = [
    0x3ff8_0000_0000_0000, // 1.5
    0x8000_0000_0000_0000, // -0.0
    0x7ff8_0000_0000_0001, // a NaN
    0x0000_0000_0000_0025, // 37
    0x1234_5678_1234_5678, // equal halves
];

/// Runs `p` (reading 192 bytes at A0, writing `outs` vectors at A1)
/// compiled by linear scan and by regalloc2; asserts that both give the
/// same bits and returns how many constants the regalloc2 code reads from
/// its pool (`None` on a CPU without AVX-512F).
fn both(p: &Program, outs: usize, what: &str) -> Option<usize> {
    both_as(p, outs, what, Nan::Bits)
}

/// How two results must agree.
#[derive(Clone, Copy, PartialEq)]
enum Nan {
    /// Bit for bit.
    Bits,
    /// Bit for bit, except that any two NaNs of `f32` lanes (or `f64`
    /// lanes) agree: an FMA of two NaN operands returns the first in its
    /// form's operand order, and the allocators may pick different forms
    /// (the product commutes), as they did before constants came from
    /// memory.
    F32,
    F64,
}

fn agree(a: &[u32], b: &[u32], nan: Nan) -> bool {
    match nan {
        Nan::Bits => a == b,
        Nan::F32 => a
            .iter()
            .zip(b)
            .all(|(x, y)| x == y || (f32::from_bits(*x).is_nan() && f32::from_bits(*y).is_nan())),
        Nan::F64 => a.chunks(2).zip(b.chunks(2)).all(|(x, y)| {
            let d = |v: &[u32]| f64::from_bits(u64::from(v[1]) << 32 | u64::from(v[0]));
            x == y || (d(x).is_nan() && d(y).is_nan())
        }),
    }
}

fn both_as(p: &Program, outs: usize, what: &str, nan: Nan) -> Option<usize> {
    let linear = match compile(p, Allocator::LinearScan) {
        Ok(c) => c,
        Err(WideError::NoAvx512) => {
            assert!(!supported());
            return None;
        }
        Err(e) => panic!("{what}: linear scan: {e}"),
    };
    let (pooled, stats) = compile_regalloc2(p).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(linear.pool_constants, 0, "{what}");
    assert_eq!(stats.pool_constants, pooled.pool_constants, "{what}");
    let input = inputs();
    let mut got = Vec::new();
    for code in [&linear, &pooled] {
        let mut out = vec![0u32; 16 * outs];
        // SAFETY: the programs read 192 bytes at A0 and write `outs`
        // vectors at A1.
        unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
        got.push(out);
    }
    assert!(
        agree(&got[0], &got[1], nan),
        "{what}: the register form and the memory form disagree: {:x?} against {:x?}",
        got[0],
        got[1]
    );
    Some(pooled.pool_constants)
}

fn store(p: &mut Program, a: V, n: i32) {
    p.push(Op::Store {
        a,
        arg: Arg::A1,
        off: 64 * n,
    });
}

/// The three input vectors.
fn loads(p: &mut Program) -> [V; 3] {
    [
        p.load(Arg::A0, 0),
        p.load(Arg::A0, 64),
        p.load(Arg::A0, 128),
    ]
}

/// A mask of the lanes where the first input is below the third
/// (unordered lanes clear), as a vector: the second input there, the
/// first elsewhere.
fn as_vector(p: &mut Program, k: K, [x, y, _]: [V; 3]) -> V {
    let d = p.v();
    p.push(Op::Select { d, k, a: y, b: x });
    d
}

const BINS: [Bin; 33] = [
    Bin::FAdd,
    Bin::FSub,
    Bin::FMul,
    Bin::FDiv,
    Bin::IAdd,
    Bin::ISub,
    Bin::IMul,
    Bin::IXor,
    Bin::IAnd,
    Bin::IOr,
    Bin::Shl,
    Bin::Sar,
    Bin::Shr,
    Bin::FMinX86,
    Bin::FMaxX86,
    Bin::IMinS,
    Bin::IMaxS,
    Bin::IMinU,
    Bin::IMaxU,
    Bin::Scalef,
    Bin::DDiv,
    Bin::DAdd,
    Bin::DSub,
    Bin::DMul,
    Bin::DMinX86,
    Bin::DMaxX86,
    Bin::QAdd,
    Bin::QSub,
    Bin::QAnd,
    Bin::QOr,
    Bin::QXor,
    Bin::QShl,
    Bin::QShr,
];

fn is_q(op: Bin) -> bool {
    matches!(
        op,
        Bin::DDiv
            | Bin::DAdd
            | Bin::DSub
            | Bin::DMul
            | Bin::DMinX86
            | Bin::DMaxX86
            | Bin::QAdd
            | Bin::QSub
            | Bin::QAnd
            | Bin::QOr
            | Bin::QXor
            | Bin::QShl
            | Bin::QShr
    )
}

/// Whether `op(c, x)` may be emitted as `op(x, [c])`: the operation
/// commutes, exactly (NaN payloads included).
fn commutes(op: Bin, nan: bool) -> bool {
    match op {
        Bin::FAdd | Bin::FMul | Bin::DAdd | Bin::DMul => !nan,
        _ => matches!(
            op,
            Bin::IAdd
                | Bin::IMul
                | Bin::IXor
                | Bin::IAnd
                | Bin::IOr
                | Bin::IMinS
                | Bin::IMaxS
                | Bin::IMinU
                | Bin::IMaxU
                | Bin::QAdd
                | Bin::QAnd
                | Bin::QOr
                | Bin::QXor
        ),
    }
}

/// A constant of `p`: 32 bits, or 64 bits.
#[derive(Clone, Copy, Debug)]
enum C {
    D(u32),
    Q(u64),
}

impl C {
    fn value(self, p: &mut Program) -> V {
        match self {
            C::D(b) => p.constant(b),
            C::Q(b) => p.constant_q(b),
        }
    }

    /// Whether an operation on 32-bit (`q` false) or 64-bit lanes can
    /// read it from memory as a broadcast.
    fn fits(self, q: bool) -> bool {
        match self {
            C::D(_) => true,
            C::Q(b) => q || (b >> 32) as u32 == b as u32,
        }
    }

    /// Whether it is a NaN as the operation `q` reads it.
    fn nan(self, q: bool) -> bool {
        match (self, q) {
            (C::D(b), false) => f32::from_bits(b).is_nan(),
            (C::D(b), true) => f64::from_bits(u64::from(b) << 32 | u64::from(b)).is_nan(),
            (C::Q(b), true) => f64::from_bits(b).is_nan(),
            (C::Q(b), false) => f32::from_bits(b as u32).is_nan(),
        }
    }
}

fn constants() -> Vec<C> {
    CONSTANTS
        .iter()
        .map(|b| C::D(*b))
        .chain(CONSTANTS_Q.iter().map(|b| C::Q(*b)))
        .collect()
}

#[test]
fn binary_operations_read_a_constant_second_operand_from_memory() {
    for op in BINS {
        for c in constants() {
            for first in [false, true] {
                let mut p = Program::new();
                let [x, ..] = loads(&mut p);
                let k = c.value(&mut p);
                let d = if first {
                    p.bin(op, k, x)
                } else {
                    p.bin(op, x, k)
                };
                store(&mut p, d, 0);
                let what = format!(
                    "{op:?} with {c:?} {}",
                    if first { "first" } else { "second" }
                );
                let Some(reads) = both(&p, 1, &what) else {
                    return;
                };
                let q = is_q(op);
                let memory = c.fits(q) && (!first || commutes(op, c.nan(q)));
                assert_eq!(reads, usize::from(memory), "{what}");
            }
        }
    }
}

#[test]
fn masked_binary_operations_read_a_constant_from_memory_and_merge() {
    for op in BINS {
        for c in constants() {
            let mut p = Program::new();
            let v = loads(&mut p);
            let m = p.k();
            p.push(Op::Compare2 {
                kind: CmpKind::F32,
                pred: 1,
                d: m,
                a: v[0],
                b: v[2],
            });
            let k = c.value(&mut p);
            let d = v[1];
            p.push(Op::BinMasked {
                op,
                d,
                a: d,
                b: k,
                k: m,
            });
            store(&mut p, d, 0);
            let what = format!("masked {op:?} with {c:?}");
            let Some(reads) = both(&p, 1, &what) else {
                return;
            };
            assert_eq!(reads, usize::from(c.fits(is_q(op))), "{what}");
        }
    }
}

/// `a * b + c` with the constant in each position, the other operands
/// read for the last time there (their registers free for the result:
/// `vfmadd213ps`, `231`, `132` with the memory operand) or living on (a
/// copy first), and with two constants (one of them in a register).
#[test]
fn fma_reads_a_constant_in_any_position_from_memory() {
    let consts = [
        C::D(0x3fc0_0000),
        C::D(0xc0a0_0000),
        C::D(0x7f80_0000),
        C::Q(0x3ff8_0000_0000_0000),
        C::Q(0xc014_0000_0000_0000),
    ];
    for double in [false, true] {
        for c in consts {
            for at in 0..3 {
                for keep in [false, true] {
                    let mut p = Program::new();
                    let v = loads(&mut p);
                    let k = c.value(&mut p);
                    let mut s = v;
                    s[at] = k;
                    let d = p.v();
                    let [a, b, c2] = s;
                    p.push(if double {
                        Op::FmaD { d, a, b, c: c2 }
                    } else {
                        Op::Fma { d, a, b, c: c2 }
                    });
                    store(&mut p, d, 0);
                    if keep {
                        for (n, x) in v.iter().enumerate() {
                            store(&mut p, *x, 1 + n as i32);
                        }
                    }
                    let what = format!("fma (double {double}) with {c:?} at {at}, keep {keep}");
                    let nan = if double { Nan::F64 } else { Nan::F32 };
                    let Some(reads) = both_as(&p, 4, &what, nan) else {
                        return;
                    };
                    assert_eq!(reads, usize::from(c.fits(double)), "{what}");
                }
            }
            // Two constants: one from memory, one in a register.
            let mut p = Program::new();
            let [x, ..] = loads(&mut p);
            let k = c.value(&mut p);
            let k2 = p.constant(0x4040_0000);
            let d = p.v();
            p.push(if double {
                Op::FmaD {
                    d,
                    a: k,
                    b: x,
                    c: k2,
                }
            } else {
                Op::Fma {
                    d,
                    a: k,
                    b: x,
                    c: k2,
                }
            });
            store(&mut p, d, 0);
            let what = format!("fma (double {double}) of {c:?}, x and 3.0");
            let nan = if double { Nan::F64 } else { Nan::F32 };
            let Some(reads) = both_as(&p, 1, &what, nan) else {
                return;
            };
            assert_eq!(reads, 1, "{what}");
        }
    }
}

/// `vfmsub` (`Op::Fms`, the front end's `fma(a, b, -c)`) with a
/// constant in each position, from memory or living on, against the
/// register form, and its lanes against Rust's `a.mul_add(b, -c)`.
#[test]
fn fms_reads_a_constant_in_any_position_and_subtracts_the_addend() {
    for c in [C::D(0x3fc0_0000), C::D(0xc0a0_0000), C::D(0x7f80_0000)] {
        for at in 0..3 {
            for keep in [false, true] {
                let mut p = Program::new();
                let v = loads(&mut p);
                let k = c.value(&mut p);
                let mut s = v;
                s[at] = k;
                let d = p.v();
                let [a, b, c2] = s;
                p.push(Op::Fms { d, a, b, c: c2 });
                store(&mut p, d, 0);
                if keep {
                    for (n, x) in v.iter().enumerate() {
                        store(&mut p, *x, 1 + n as i32);
                    }
                }
                let what = format!("fms with {c:?} at {at}, keep {keep}");
                let Some(reads) = both_as(&p, 4, &what, Nan::F32) else {
                    return;
                };
                assert_eq!(reads, 1, "{what}");
            }
        }
    }
    let mut p = Program::new();
    let [x, y, z] = loads(&mut p);
    let d = p.v();
    p.push(Op::Fms {
        d,
        a: x,
        b: y,
        c: z,
    });
    store(&mut p, d, 0);
    let Ok((code, _)) = compile_regalloc2(&p) else {
        assert!(!supported());
        return;
    };
    let input = inputs();
    let mut out = vec![0u32; 16];
    // SAFETY: the program reads 192 bytes at A0 and writes 64 at A1.
    unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
    for (l, o) in out.iter().enumerate() {
        let f = |i: usize| f32::from_bits(input[i]);
        let want = f(l).mul_add(f(16 + l), -f(32 + l));
        let got = f32::from_bits(*o);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "lane {l}: {got} against {want}"
        );
    }
}

#[test]
fn compares_read_a_constant_second_operand_from_memory() {
    let kinds: [(CmpKind, &[u8]); 5] = [
        (CmpKind::F32, &[0, 1, 2, 3, 4, 13, 14]),
        (CmpKind::I32, &[0, 1, 2, 4, 5, 6]),
        (CmpKind::U32, &[0, 1, 2, 4, 5, 6]),
        (CmpKind::F64, &[0, 1, 2, 3, 4, 13, 14]),
        (CmpKind::I64, &[0, 1, 2, 4, 5, 6]),
    ];
    for (kind, preds) in kinds {
        let q = matches!(kind, CmpKind::F64 | CmpKind::I64);
        for &pred in preds {
            for c in constants() {
                let mut p = Program::new();
                let v = loads(&mut p);
                let k = c.value(&mut p);
                let m = p.k();
                p.push(Op::Compare2 {
                    kind,
                    pred,
                    d: m,
                    a: v[0],
                    b: k,
                });
                let r = as_vector(&mut p, m, v);
                store(&mut p, r, 0);
                let what = format!("{kind:?} {pred} against {c:?}");
                let Some(reads) = both(&p, 1, &what) else {
                    return;
                };
                assert_eq!(reads, usize::from(c.fits(q)), "{what}");
            }
        }
    }
    for cmp in [Cmp::FLe, Cmp::FLt, Cmp::IGt, Cmp::IEq] {
        for c in constants() {
            let mut p = Program::new();
            let v = loads(&mut p);
            let within = p.k();
            p.push(Op::Compare2 {
                kind: CmpKind::I32,
                pred: 6,
                d: within,
                a: v[1],
                b: v[2],
            });
            let k = c.value(&mut p);
            let m = p.k();
            p.push(Op::Compare {
                cmp,
                d: m,
                a: v[0],
                b: k,
                within,
            });
            let r = as_vector(&mut p, m, v);
            store(&mut p, r, 0);
            let what = format!("{cmp:?} within a mask against {c:?}");
            let Some(reads) = both(&p, 1, &what) else {
                return;
            };
            assert_eq!(reads, usize::from(c.fits(false)), "{what}");
        }
    }
}

/// A select takes its lanes of the mask from memory (`vpblendmd`'s last
/// source), not those outside it; a masked copy of a constant is a
/// merge-masked broadcast.
#[test]
fn selects_and_masked_copies_read_a_constant_from_memory() {
    for c in constants() {
        for taken in [true, false] {
            let mut p = Program::new();
            let v = loads(&mut p);
            let m = p.k();
            p.push(Op::Compare2 {
                kind: CmpKind::F32,
                pred: 1,
                d: m,
                a: v[0],
                b: v[2],
            });
            let k = c.value(&mut p);
            let d = p.v();
            let (a, b) = if taken { (k, v[1]) } else { (v[1], k) };
            p.push(Op::Select { d, k: m, a, b });
            store(&mut p, d, 0);
            let what = format!("select of {c:?}, taken {taken}");
            let Some(reads) = both(&p, 1, &what) else {
                return;
            };
            assert_eq!(reads, usize::from(taken && c.fits(false)), "{what}");
        }
        let mut p = Program::new();
        let v = loads(&mut p);
        let m = p.k();
        p.push(Op::Compare2 {
            kind: CmpKind::I32,
            pred: 1,
            d: m,
            a: v[1],
            b: v[2],
        });
        let k = c.value(&mut p);
        let d = v[0];
        p.push(Op::MaskedCopy { d, a: k, k: m });
        store(&mut p, d, 0);
        let what = format!("masked copy of {c:?}");
        let Some(reads) = both(&p, 1, &what) else {
            return;
        };
        assert_eq!(reads, usize::from(c.fits(false)), "{what}");
    }
}

/// A fixup (`vfixupimmps`) reads its table from memory and keeps the
/// lanes of `d` the table keeps: the tables of `exp` (a NaN input returns
/// itself) and `log` (±0 → -inf, +inf → +inf, negative → NaN), and one
/// that answers every class, over the awkward inputs, against the
/// register form and against what the classes say.
#[test]
fn fixups_read_their_table_from_memory() {
    // (table, what each class of the input gives: None keeps d).
    let classes = |x: f32| -> usize {
        if x.is_nan() {
            0
        } else if x == 0.0 {
            2
        } else if x == 1.0 {
            3
        } else if x == f32::NEG_INFINITY {
            4
        } else if x == f32::INFINITY {
            5
        } else if x < 0.0 {
            6
        } else {
            7
        }
    };
    for table in [0x0000_0011u32, 0x0353_0411, 0x7654_3011] {
        let mut p = Program::new();
        let v = loads(&mut p);
        let t = p.constant(table);
        let d = p.bin(Bin::FAdd, v[1], v[2]);
        p.push(Op::Fixup {
            d,
            x: v[0],
            table: t,
        });
        store(&mut p, d, 0);
        let what = format!("fixup by {table:#x}");
        let Some(reads) = both(&p, 1, &what) else {
            return;
        };
        assert_eq!(reads, 1, "{what}");
        let code = compile_regalloc2(&p).expect("compiles").0;
        let input = inputs();
        let mut out = vec![0u32; 16];
        // SAFETY: the program reads 192 bytes at A0 and writes 64 at A1.
        unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
        for (l, o) in out.iter().enumerate() {
            let x = f32::from_bits(input[l]);
            let kept = (f32::from_bits(input[16 + l]) + f32::from_bits(input[32 + l])).to_bits();
            let want = match (table >> (4 * classes(x))) & 0xf {
                0 => kept,
                1 => x.to_bits(),
                3 => 0xffc0_0000,
                4 => f32::NEG_INFINITY.to_bits(),
                5 => f32::INFINITY.to_bits(),
                6 => {
                    if x.is_sign_negative() {
                        f32::NEG_INFINITY.to_bits()
                    } else {
                        f32::INFINITY.to_bits()
                    }
                }
                7 => (-0.0f32).to_bits(),
                r => panic!("response {r}"),
            };
            assert_eq!(*o, want, "{what}: lane {l}, x = {x:?}");
        }
    }
}

/// A constant read only from memory takes no register: 40 constants
/// defined before a chain of FMAs that adds each in turn, which would
/// need 40 registers at once (linear scan refuses the program), need no
/// spill slot with the pool, and the chain's result is Rust's.
#[test]
fn constants_read_from_memory_take_no_register() {
    let mut p = Program::new();
    let [x, y, _] = loads(&mut p);
    let cs: Vec<f32> = (0..40).map(|i| 1.0 + i as f32 / 64.0).collect();
    let ks: Vec<V> = cs.iter().map(|c| p.splat_f32(*c)).collect();
    let mut acc = x;
    for k in &ks {
        acc = p.fma(acc, y, *k);
    }
    store(&mut p, acc, 0);
    if !supported() {
        return;
    }
    let (code, stats) = compile_regalloc2(&p).unwrap();
    assert_eq!(stats.spill_slots, 0);
    assert_eq!(code.pool_constants, 40);
    let input = inputs();
    let mut out = [0u32; 16];
    // SAFETY: reads 192 bytes at A0, writes 64 at A1.
    unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
    for l in 0..16 {
        let (x, y) = (f32::from_bits(input[l]), f32::from_bits(input[16 + l]));
        let want = cs.iter().fold(x, |acc, c| acc.mul_add(y, *c));
        let got = f32::from_bits(out[l]);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "lane {l}: {got} against {want}"
        );
    }
}

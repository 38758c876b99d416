//! Randomised checks of the interpreter's value semantics against
//! independent host computations: thousands of operands (random bit
//! patterns plus edge values) go through one kernel each, one work-item
//! per operand pair, and every result is compared bit for bit.

use std::cmp::Ordering;

use vecl_ir::builder::FunctionBuilder;
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::*;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const EDGE_U64: [u64; 12] = [
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
];

/// Operands: the edge values, each width's negative one, then random bits.
fn operands(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    let mut v: Vec<u64> = EDGE_U64.to_vec();
    while v.len() < n {
        let x = rng.next();
        // Mix in small magnitudes, where most interesting cases are.
        v.push(match rng.next() % 4 {
            0 => x % 64,
            1 => (x % 64).wrapping_neg(),
            _ => x,
        });
    }
    v
}

/// Runs `out[i] = build(a[i], b[i])` over all operand pairs (lanes of type `t`,
/// result of type `r`) and returns the results as lanes.
fn map2(
    t: Scalar,
    r: Scalar,
    a: &[u64],
    b: &[u64],
    build: impl FnOnce(&mut FunctionBuilder, ValueId, ValueId) -> ValueId,
) -> Vec<u64> {
    let (pt, pr) = (
        Type::ptr(AddressSpace::Global, Type::Scalar(t)),
        Type::ptr(AddressSpace::Global, Type::Scalar(r)),
    );
    let params = vec![
        Param {
            name: "a".into(),
            ty: pt.clone(),
            byval: false,
        },
        Param {
            name: "b".into(),
            ty: pt.clone(),
            byval: false,
        },
        Param {
            name: "out".into(),
            ty: pr.clone(),
            byval: false,
        },
    ];
    let mut bl = FunctionBuilder::new("k", params, Type::Void);
    let (pa, pb, po) = (bl.param(0), bl.param(1), bl.param(2));
    let zero = bl.const_u32(0);
    let i = bl.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(zero)), Type::U64);
    let qa = bl.push(Inst::Index(pa, i), pt.clone());
    let qb = bl.push(Inst::Index(pb, i), pt);
    let x = bl.load(qa);
    let y = bl.load(qb);
    let z = build(&mut bl, x, y);
    let qo = bl.push(Inst::Index(po, i), pr);
    bl.store(qo, z);
    let mut f = bl.finish();
    f.kernel = Some(KernelInfo::default());
    let module = Module {
        functions: vec![f],
        ..Module::default()
    };
    let bytes = |v: &[u64], s: Scalar| -> Vec<u8> {
        v.iter()
            .flat_map(|x| x.to_le_bytes()[..s.size() as usize].to_vec())
            .collect()
    };
    let n = a.len();
    let mut args = [
        KernelArg::Buffer(bytes(a, t)),
        KernelArg::Buffer(bytes(b, t)),
        KernelArg::Buffer(vec![0; n * r.size() as usize]),
    ];
    run_kernel(&module, "k", &mut args, &NdRange::linear(n as u64, 64)).unwrap();
    let KernelArg::Buffer(out) = &args[2] else {
        unreachable!()
    };
    out.chunks_exact(r.size() as usize)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn mask(s: Scalar, x: u64) -> u64 {
    if s.bits() == 64 {
        x
    } else {
        x & ((1 << s.bits()) - 1)
    }
}

macro_rules! int_ops_match_rust {
    ($name:ident, $t:ty, $s:expr) => {
        #[test]
        fn $name() {
            let n = 1024;
            let a: Vec<u64> = operands(n, 1).into_iter().map(|x| mask($s, x)).collect();
            let b: Vec<u64> = operands(n, 2)
                .into_iter()
                .rev()
                .map(|x| mask($s, x))
                .collect();
            let host: [(BinaryOp, fn($t, $t) -> $t); 10] = [
                (BinaryOp::Add, |x, y| x.wrapping_add(y)),
                (BinaryOp::Sub, |x, y| x.wrapping_sub(y)),
                (BinaryOp::Mul, |x, y| x.wrapping_mul(y)),
                (
                    BinaryOp::Div,
                    |x, y| if y == 0 { 0 } else { x.wrapping_div(y) },
                ),
                (
                    BinaryOp::Rem,
                    |x, y| if y == 0 { 0 } else { x.wrapping_rem(y) },
                ),
                (BinaryOp::And, |x, y| x & y),
                (BinaryOp::Or, |x, y| x | y),
                (BinaryOp::Xor, |x, y| x ^ y),
                (BinaryOp::Shl, |x, y| x.wrapping_shl(y as u32 % <$t>::BITS)),
                (BinaryOp::Shr, |x, y| x.wrapping_shr(y as u32 % <$t>::BITS)),
            ];
            for (op, f) in host {
                let got = map2($s, $s, &a, &b, |bl, x, y| bl.binary(op, x, y));
                for k in 0..n {
                    let (x, y) = (a[k] as $t, b[k] as $t);
                    let want = mask($s, f(x, y) as u64);
                    assert_eq!(got[k], want, "{op:?}({x}, {y})");
                }
            }
            for op in [
                CmpOp::Eq,
                CmpOp::Ne,
                CmpOp::Lt,
                CmpOp::Le,
                CmpOp::Gt,
                CmpOp::Ge,
            ] {
                let got = map2($s, Scalar::Bool, &a, &b, |bl, x, y| bl.cmp(op, x, y));
                for k in 0..n {
                    let (x, y) = (a[k] as $t, b[k] as $t);
                    let want = match op {
                        CmpOp::Eq => x == y,
                        CmpOp::Ne => x != y,
                        CmpOp::Lt => x < y,
                        CmpOp::Le => x <= y,
                        CmpOp::Gt => x > y,
                        CmpOp::Ge => x >= y,
                    };
                    assert_eq!(got[k], u64::from(want), "{op:?}({x}, {y})");
                }
            }
        }
    };
}

int_ops_match_rust!(i8_ops_match_rust, i8, Scalar::I8);
int_ops_match_rust!(u16_ops_match_rust, u16, Scalar::U16);
int_ops_match_rust!(i32_ops_match_rust, i32, Scalar::I32);
int_ops_match_rust!(u32_ops_match_rust, u32, Scalar::U32);
int_ops_match_rust!(i64_ops_match_rust, i64, Scalar::I64);
int_ops_match_rust!(u64_ops_match_rust, u64, Scalar::U64);

/// f32 operands: random bit patterns, small decimals, and the specials.
fn f32_operands(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        2147483648.0,
        -2147483904.0,
        2.5,
        -3.5,
    ];
    let mut v: Vec<u64> = specials.iter().map(|x| u64::from(x.to_bits())).collect();
    while v.len() < n {
        let x = rng.next();
        v.push(if x.is_multiple_of(2) {
            x & 0xffff_ffff
        } else {
            u64::from((((x >> 8) % 20001) as f32 / 64.0 - 156.0).to_bits())
        });
    }
    v
}

fn same_f32(got: u64, want: f32) -> bool {
    let g = f32::from_bits(got as u32);
    (g.is_nan() && want.is_nan()) || g.to_bits() == want.to_bits()
}

#[test]
fn f32_arithmetic_matches_rust() {
    let n = 2048;
    let a = f32_operands(n, 3);
    let b: Vec<u64> = f32_operands(n, 4).into_iter().rev().collect();
    let host: [(BinaryOp, fn(f32, f32) -> f32); 5] = [
        (BinaryOp::Add, |x, y| x + y),
        (BinaryOp::Sub, |x, y| x - y),
        (BinaryOp::Mul, |x, y| x * y),
        (BinaryOp::Div, |x, y| x / y),
        (BinaryOp::Rem, |x, y| x % y),
    ];
    for (op, f) in host {
        let got = map2(Scalar::F32, Scalar::F32, &a, &b, |bl, x, y| {
            bl.binary(op, x, y)
        });
        for k in 0..n {
            let (x, y) = (f32::from_bits(a[k] as u32), f32::from_bits(b[k] as u32));
            assert!(
                same_f32(got[k], f(x, y)),
                "{op:?}({x:e}, {y:e}) = {:e}",
                f32::from_bits(got[k] as u32)
            );
        }
    }
}

/// float → int conversions, checked against the definition: round in the
/// chosen direction, then clamp (NaN → 0).
#[test]
fn f32_to_int_conversions_round_then_saturate() {
    let n = 2048;
    let a = f32_operands(n, 5);
    let modes: [(Rounding, fn(f64) -> f64); 5] = [
        (Rounding::Default, f64::trunc),
        (Rounding::Rte, f64::round_ties_even),
        (Rounding::Rtz, f64::trunc),
        (Rounding::Rtp, f64::ceil),
        (Rounding::Rtn, f64::floor),
    ];
    for dst in [
        Scalar::I8,
        Scalar::U8,
        Scalar::I32,
        Scalar::U32,
        Scalar::I64,
        Scalar::U64,
    ] {
        let (lo, hi): (i128, i128) = if dst.is_signed() {
            (-(1 << (dst.bits() - 1)), (1 << (dst.bits() - 1)) - 1)
        } else {
            (0, (1 << dst.bits()) - 1)
        };
        for (rounding, round) in modes {
            let got = map2(Scalar::F32, dst, &a, &a, |bl, x, _| {
                bl.push(
                    Inst::Convert {
                        value: x,
                        saturate: true,
                        rounding,
                    },
                    Type::Scalar(dst),
                )
            });
            for k in 0..n {
                let x = f64::from(f32::from_bits(a[k] as u32));
                // Rounded, an f32 is an integer below 2^128: exact in i128.
                let want = if x.is_nan() {
                    0
                } else {
                    (round(x) as i128).clamp(lo, hi)
                };
                let want = mask(dst, want as u64);
                assert_eq!(got[k], want, "convert_{dst}_sat_{rounding:?}({x:e})");
            }
        }
    }
}

/// int → float conversions, checked by bracketing: the result is a float
/// on the required side of the exact value, and the next float beyond it
/// in that direction is on the other side (or the result is exact).
#[test]
fn int_to_f32_conversions_bracket_the_exact_value() {
    let n = 2048;
    let a = operands(n, 6);
    for src in [Scalar::I32, Scalar::U32, Scalar::I64, Scalar::U64] {
        let a: Vec<u64> = a.iter().map(|&x| mask(src, x)).collect();
        for rounding in [
            Rounding::Default,
            Rounding::Rte,
            Rounding::Rtz,
            Rounding::Rtp,
            Rounding::Rtn,
        ] {
            let got = map2(src, Scalar::F32, &a, &a, |bl, x, _| {
                bl.push(
                    Inst::Convert {
                        value: x,
                        saturate: false,
                        rounding,
                    },
                    Type::F32,
                )
            });
            for k in 0..n {
                let v: i128 = if src.is_signed() {
                    let sh = 64 - src.bits();
                    i128::from(((a[k] << sh) as i64) >> sh)
                } else {
                    i128::from(a[k])
                };
                let r = f32::from_bits(got[k] as u32);
                let (lo, hi) = (r.next_down(), r.next_up());
                let above = |f: f32| cmp_exact(f, v) == Ordering::Greater;
                let below = |f: f32| cmp_exact(f, v) == Ordering::Less;
                let ok = match rounding {
                    Rounding::Rtp => !below(r) && below(lo),
                    Rounding::Rtn => !above(r) && above(hi),
                    Rounding::Rtz if v >= 0 => !above(r) && above(hi),
                    Rounding::Rtz => !below(r) && below(lo),
                    // Nearest: no neighbour is closer; a tie goes to the even one.
                    _ => {
                        let (d, dl, dh) = (dist(r, v), dist(lo, v), dist(hi, v));
                        d == 0.0
                            || (d < dl && d < dh)
                            || ((d == dl || d == dh) && r.to_bits().is_multiple_of(2))
                    }
                };
                assert!(ok, "convert_float_{rounding:?}(({src}){v}) = {r:e}");
            }
        }
    }
}

/// Compares a float with an integer exactly. An integral f32 converts to
/// i128 exactly; a fractional one is below 2^23 in magnitude, where the
/// comparison in f64 is exact too unless `v` is huge, and then the order is
/// plain either way.
fn cmp_exact(f: f32, v: i128) -> Ordering {
    if f.fract() == 0.0 {
        (f as i128).cmp(&v)
    } else {
        f64::from(f)
            .partial_cmp(&(v as f64))
            .unwrap_or(Ordering::Equal)
    }
}

/// |f − v|: exact for the distances that matter here (below 2^53).
fn dist(f: f32, v: i128) -> f64 {
    if f.fract() == 0.0 {
        ((f as i128) - v).abs() as f64
    } else {
        (f64::from(f) - v as f64).abs()
    }
}

//! Value semantics of the interpreter, one instruction or builtin at a
//! time: each case runs a one-work-item kernel that takes its operands as
//! by-value arguments and stores the result, and compares the result with
//! the value computed on the host by Rust (or written out where the OpenCL
//! rule differs from Rust's).

use vecl_ir::builder::FunctionBuilder;
use vecl_ir::interp::{run_kernel, InterpError, KernelArg, NdRange};
use vecl_ir::*;

/// A value argument: its type and lanes (bit patterns as in `Inst::Const`).
type Operand<'a> = (Type, &'a [u64]);

fn lane_bytes(ty: &Type, lanes: &[u64]) -> Vec<u8> {
    let s = ty.scalar().unwrap_or(Scalar::U64);
    let w = s.size() as usize;
    let mut out: Vec<u8> = lanes
        .iter()
        .flat_map(|l| l.to_le_bytes()[..w].to_vec())
        .collect();
    out.resize(size_of(ty, &[]) as usize, 0);
    out
}

fn bytes_lanes(ty: &Type, bytes: &[u8]) -> Vec<u64> {
    let s = ty.scalar().unwrap_or(Scalar::U64);
    let w = s.size() as usize;
    (0..ty.lanes() as usize)
        .map(|i| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(&bytes[i * w..(i + 1) * w]);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// Runs `out[0] = build(operands…)` for one work-item and returns the lanes of `out[0]`.
fn eval(
    operands: &[Operand<'_>],
    ret: Type,
    build: impl FnOnce(&mut FunctionBuilder, &[ValueId]) -> ValueId,
) -> Result<Vec<u64>, InterpError> {
    let mut params: Vec<Param> = operands
        .iter()
        .enumerate()
        .map(|(i, (ty, _))| Param {
            name: format!("x{i}"),
            ty: ty.clone(),
            byval: false,
        })
        .collect();
    let out_ty = Type::ptr(AddressSpace::Global, ret.clone());
    params.push(Param {
        name: "out".into(),
        ty: out_ty,
        byval: false,
    });
    let mut b = FunctionBuilder::new("k", params, Type::Void);
    let vals: Vec<ValueId> = (0..operands.len() as u32).map(|i| b.param(i)).collect();
    let out = b.param(operands.len() as u32);
    let r = build(&mut b, &vals);
    b.store(out, r);
    let mut f = b.finish();
    f.kernel = Some(KernelInfo::default());
    let module = Module {
        functions: vec![f],
        ..Module::default()
    };
    let mut args: Vec<KernelArg> = operands
        .iter()
        .map(|(ty, l)| KernelArg::Value(lane_bytes(ty, l)))
        .collect();
    args.push(KernelArg::Buffer(vec![0; size_of(&ret, &[]) as usize]));
    run_kernel(&module, "k", &mut args, &NdRange::linear(1, 1))?;
    let Some(KernelArg::Buffer(bytes)) = args.last() else {
        unreachable!()
    };
    Ok(bytes_lanes(&ret, bytes))
}

fn builtin(name: &str, operands: &[Operand<'_>], ret: Type) -> Result<Vec<u64>, InterpError> {
    let name = Builtin::from_name(name).unwrap_or_else(|| panic!("no builtin `{name}`"));
    let r = ret.clone();
    eval(operands, ret, move |b, v| {
        b.push(Inst::Builtin(name, v.to_vec()), r)
    })
}

fn s(x: Scalar) -> Type {
    Type::Scalar(x)
}

fn f(x: f32) -> u64 {
    u64::from(x.to_bits())
}

fn d(x: f64) -> u64 {
    x.to_bits()
}

fn i(x: i64, t: Scalar) -> u64 {
    (x as u64)
        & if t.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << t.bits()) - 1
        }
}

fn as_f32(l: u64) -> f32 {
    f32::from_bits(l as u32)
}

fn convert(src: Scalar, dst: Scalar, saturate: bool, rounding: Rounding, x: u64) -> u64 {
    eval(&[(s(src), &[x])], s(dst), |b, v| {
        b.push(
            Inst::Convert {
                value: v[0],
                saturate,
                rounding,
            },
            s(dst),
        )
    })
    .unwrap()[0]
}

#[test]
fn float_to_int_rounding_and_saturation() {
    use Rounding::*;
    let cases: [(f32, [i32; 5]); 9] = [
        // x: [default (rtz), rte, rtz, rtp, rtn], all saturating
        (2.5, [2, 2, 2, 3, 2]),
        (-2.5, [-2, -2, -2, -2, -3]),
        (3.5, [3, 4, 3, 4, 3]),
        (-0.5, [0, 0, 0, 0, -1]),
        (1e10, [i32::MAX; 5]),
        (-1e10, [i32::MIN; 5]),
        (f32::NAN, [0; 5]),
        (2147483520.0, [2147483520; 5]),
        (2147483648.0, [i32::MAX; 5]),
    ];
    for (x, want) in cases {
        for (r, w) in [Default, Rte, Rtz, Rtp, Rtn].into_iter().zip(want) {
            let got = convert(Scalar::F32, Scalar::I32, true, r, f(x)) as u32 as i32;
            assert_eq!(got, w, "convert_int_sat_{r:?}({x})");
        }
    }
    // Unsigned and narrow destinations saturate at their own range.
    assert_eq!(convert(Scalar::F32, Scalar::U8, true, Rtz, f(-1.0)), 0);
    assert_eq!(convert(Scalar::F32, Scalar::U8, true, Rte, f(255.5)), 255);
    assert_eq!(convert(Scalar::F32, Scalar::U8, true, Rtz, f(255.5)), 255);
    assert_eq!(convert(Scalar::F64, Scalar::I64, true, Rtp, d(-0.25)), 0);
    assert_eq!(
        convert(Scalar::F64, Scalar::U64, true, Default, d(1e30)),
        u64::MAX
    );
}

#[test]
fn int_to_int_wraps_or_saturates() {
    use Rounding::Default;
    assert_eq!(
        convert(Scalar::I32, Scalar::U8, false, Default, i(300, Scalar::I32)),
        44
    );
    assert_eq!(
        convert(Scalar::I32, Scalar::U8, true, Default, i(300, Scalar::I32)),
        255
    );
    assert_eq!(
        convert(Scalar::I32, Scalar::U8, true, Default, i(-5, Scalar::I32)),
        0
    );
    assert_eq!(
        convert(Scalar::I8, Scalar::I32, false, Default, i(-5, Scalar::I8)),
        i(-5, Scalar::I32)
    );
    assert_eq!(
        convert(Scalar::U32, Scalar::I32, true, Default, u64::from(u32::MAX)),
        i(i64::from(i32::MAX), Scalar::I32)
    );
    assert_eq!(
        convert(Scalar::I64, Scalar::U32, true, Default, i(-1, Scalar::I64)),
        0
    );
    assert_eq!(
        convert(Scalar::U64, Scalar::I16, false, Default, 0x1_8001),
        i(-32767, Scalar::I16)
    );
    assert_eq!(
        convert(
            Scalar::I32,
            Scalar::Bool,
            false,
            Default,
            i(-2, Scalar::I32)
        ),
        1
    );
    assert_eq!(convert(Scalar::Bool, Scalar::I32, false, Default, 1), 1);
}

#[test]
fn int_to_float_rounding_modes() {
    use Rounding::*;
    let x = (1i64 << 24) + 1; // between two floats: 2^24 and 2^24 + 2
    let go = |v: i64, r| as_f32(convert(Scalar::I64, Scalar::F32, false, r, v as u64));
    assert_eq!(go(x, Default), 16777216.0);
    assert_eq!(go(x, Rte), 16777216.0);
    assert_eq!(go(x, Rtz), 16777216.0);
    assert_eq!(go(x, Rtp), 16777218.0);
    assert_eq!(go(x, Rtn), 16777216.0);
    assert_eq!(go(-x, Rtn), -16777218.0);
    assert_eq!(go(-x, Rtz), -16777216.0);
    assert_eq!(go(-x, Rtp), -16777216.0);
    let top = |r| as_f32(convert(Scalar::U64, Scalar::F32, false, r, u64::MAX));
    assert_eq!(top(Rte), 18446744073709551616.0);
    assert_eq!(top(Rtz), 18446742974197923840.0);
    assert_eq!(top(Rtn), 18446742974197923840.0);
    let big = (1i64 << 53) + 1;
    assert_eq!(
        f64::from_bits(convert(Scalar::I64, Scalar::F64, false, Rtp, big as u64)),
        9007199254740994.0
    );
    assert_eq!(
        f64::from_bits(convert(Scalar::I64, Scalar::F64, false, Rtz, big as u64)),
        9007199254740992.0
    );
}

#[test]
fn float_to_float_rounding_modes() {
    use Rounding::*;
    let x = 1.0 + 2f64.powi(-30);
    let go = |v: f64, r| as_f32(convert(Scalar::F64, Scalar::F32, false, r, d(v)));
    assert_eq!(go(x, Default), 1.0);
    assert_eq!(go(x, Rtp), 1.0f32.next_up());
    assert_eq!(go(-x, Rtn), -(1.0f32.next_up()));
    assert_eq!(go(-x, Rtz), -1.0);
    assert_eq!(go(1e300, Rte), f32::INFINITY);
    assert_eq!(go(1e300, Rtz), f32::MAX);
    assert_eq!(go(-1e300, Rtp), -f32::MAX);
    assert_eq!(go(1e-50, Rtp), f32::from_bits(1));
    assert!(go(f64::NAN, Rte).is_nan());
    // float -> half -> float
    assert_eq!(
        convert(Scalar::F32, Scalar::F16, false, Default, f(1.0)),
        0x3c00
    );
    assert_eq!(
        convert(Scalar::F32, Scalar::F16, false, Rtz, f(65520.0)),
        0x7bff
    );
    assert_eq!(
        convert(Scalar::F32, Scalar::F16, false, Rte, f(65520.0)),
        0x7c00
    );
    assert_eq!(
        as_f32(convert(Scalar::F16, Scalar::F32, false, Default, 0x3555)),
        0.33325195
    );
    assert_eq!(
        convert(Scalar::F32, Scalar::Bool, false, Default, f(f32::NAN)),
        1
    );
    assert_eq!(
        convert(Scalar::F32, Scalar::Bool, false, Default, f(-0.0)),
        0
    );
}

fn bin(op: BinaryOp, t: Scalar, a: i64, b: i64) -> i64 {
    let r = eval(&[(s(t), &[i(a, t)]), (s(t), &[i(b, t)])], s(t), |bld, v| {
        bld.binary(op, v[0], v[1])
    })
    .unwrap()[0];
    if t.is_signed() {
        let shift = 64 - t.bits();
        ((r << shift) as i64) >> shift
    } else {
        r as i64
    }
}

#[test]
fn integer_arithmetic_wraps_shifts_mod_width_and_div_by_zero_is_zero() {
    use BinaryOp::*;
    use Scalar::*;
    assert_eq!(bin(Add, I32, i64::from(i32::MAX), 1), i64::from(i32::MIN));
    assert_eq!(bin(Mul, U8, 200, 2), 144);
    assert_eq!(bin(Sub, U16, 0, 1), 65535);
    assert_eq!(bin(Mul, I64, i64::MAX, 3), i64::MAX.wrapping_mul(3));
    assert_eq!(bin(Shl, I32, 1, 33), 2);
    assert_eq!(bin(Shr, I32, -8, 33), -4);
    assert_eq!(bin(Shr, U32, 0x8000_0000, 35), 0x1000_0000);
    assert_eq!(bin(Shl, I8, 1, 9), 2);
    assert_eq!(bin(Shr, I64, -1, 64), -1);
    assert_eq!(bin(Shl, U64, 1, 65), 2);
    assert_eq!(bin(Div, I32, 7, 0), 0);
    assert_eq!(bin(Rem, U32, 7, 0), 0);
    assert_eq!(bin(Div, I32, i64::from(i32::MIN), -1), i64::from(i32::MIN));
    assert_eq!(bin(Rem, I32, i64::from(i32::MIN), -1), 0);
    assert_eq!(bin(Div, I64, i64::MIN, -1), i64::MIN);
    assert_eq!(bin(Div, I32, -7, 2), -3);
    assert_eq!(bin(Rem, I32, -7, 2), -1);
    assert_eq!(bin(Div, U32, 0xffff_fff0, 16), 0x0fff_ffff);
    assert_eq!(bin(Rem, I8, -128, 3), -2);
    let neg = eval(
        &[(s(I32), &[i(i64::from(i32::MIN), I32)])],
        s(I32),
        |b, v| b.push(Inst::Unary(UnaryOp::Neg, v[0]), Type::I32),
    )
    .unwrap()[0];
    assert_eq!(neg, i(i64::from(i32::MIN), I32));
}

#[test]
fn float_comparisons_are_ordered_except_ne() {
    let nan = f(f32::NAN);
    for (op, want) in [
        (CmpOp::Eq, 0),
        (CmpOp::Ne, 1),
        (CmpOp::Lt, 0),
        (CmpOp::Le, 0),
        (CmpOp::Gt, 0),
        (CmpOp::Ge, 0),
    ] {
        let got = eval(
            &[(Type::F32, &[nan]), (Type::F32, &[f(1.0)])],
            Type::BOOL,
            |b, v| b.cmp(op, v[0], v[1]),
        )
        .unwrap();
        assert_eq!(got, [want], "{op:?}");
    }
    // Signed and unsigned compare differently.
    let lt = |t: Scalar| {
        eval(&[(s(t), &[i(-1, t)]), (s(t), &[1])], Type::BOOL, |b, v| {
            b.cmp(CmpOp::Lt, v[0], v[1])
        })
        .unwrap()[0]
    };
    assert_eq!((lt(Scalar::I16), lt(Scalar::U16)), (1, 0));
}

#[test]
fn float_arithmetic_is_single_precision_for_f32() {
    let (a, b) = (16777216.0f32, 1.0f32);
    let got = eval(
        &[(Type::F32, &[f(a)]), (Type::F32, &[f(b)])],
        Type::F32,
        |bl, v| bl.binary(BinaryOp::Add, v[0], v[1]),
    )
    .unwrap();
    assert_eq!(as_f32(got[0]), a + b);
    let q = eval(
        &[(Type::F32, &[f(1.0)]), (Type::F32, &[f(3.0)])],
        Type::F32,
        |bl, v| bl.binary(BinaryOp::Div, v[0], v[1]),
    )
    .unwrap();
    assert_eq!(as_f32(q[0]), 1.0f32 / 3.0);
    // Vectors work component-wise.
    let v4 = Type::vector(Scalar::F32, 4);
    let x = [f(1.0), f(-2.0), f(0.5), f(1e30)];
    let y = [f(3.0), f(4.0), f(0.25), f(1e30)];
    let got = eval(&[(v4.clone(), &x), (v4.clone(), &y)], v4, |bl, v| {
        bl.binary(BinaryOp::Mul, v[0], v[1])
    })
    .unwrap();
    let want: Vec<u64> = [3.0f32, -8.0, 0.125, f32::INFINITY]
        .iter()
        .map(|&z| f(z))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn fmin_fmax_return_the_number_when_one_operand_is_nan() {
    let nan = f(f32::NAN);
    let run = |name: &str, a: u64, b: u64| {
        as_f32(builtin(name, &[(Type::F32, &[a]), (Type::F32, &[b])], Type::F32).unwrap()[0])
    };
    assert_eq!(run("fmin", nan, f(1.0)), 1.0);
    assert_eq!(run("fmin", f(1.0), nan), 1.0);
    assert_eq!(run("fmax", nan, f(-3.0)), -3.0);
    assert_eq!(run("fmax", f(2.0), f(-3.0)), 2.0);
    assert!(run("fmax", nan, nan).is_nan());
    // fmin(float4, float): the scalar applies to every component.
    let v4 = Type::vector(Scalar::F32, 4);
    let got = builtin(
        "fmin",
        &[
            (v4.clone(), &[f(1.0), nan, f(3.0), f(-1.0)]),
            (Type::F32, &[f(2.0)]),
        ],
        v4,
    )
    .unwrap();
    assert_eq!(got, [f(1.0), f(2.0), f(2.0), f(-1.0)]);
}

#[test]
fn integer_builtins() {
    use Scalar::*;
    let one = |name: &str, t: Scalar, args: &[i64], r: Scalar| {
        let lanes: Vec<[u64; 1]> = args.iter().map(|&a| [i(a, t)]).collect();
        let ops: Vec<Operand<'_>> = lanes.iter().map(|l| (s(t), &l[..])).collect();
        builtin(name, &ops, s(r)).unwrap()[0]
    };
    assert_eq!(one("abs", I32, &[i64::from(i32::MIN)], U32), 0x8000_0000);
    assert_eq!(one("abs_diff", I8, &[-128, 127], U8), 255);
    assert_eq!(one("add_sat", I8, &[100, 100], I8), 127);
    assert_eq!(one("sub_sat", U32, &[3, 5], U32), 0);
    assert_eq!(
        one(
            "hadd",
            I32,
            &[i64::from(i32::MAX), i64::from(i32::MAX)],
            I32
        ),
        i(i64::from(i32::MAX), I32)
    );
    assert_eq!(one("rhadd", U8, &[255, 0], U8), 128);
    assert_eq!(one("mul_hi", I32, &[-2, 3], I32), i(-1, I32));
    assert_eq!(
        one("mul_hi", U32, &[0xffff_ffff, 0xffff_ffff], U32),
        0xffff_fffe
    );
    assert_eq!(one("mul_hi", U64, &[-1, -1], U64), u64::MAX - 1);
    assert_eq!(one("mul_hi", I64, &[i64::MIN, 2], I64), u64::MAX);
    assert_eq!(one("mad_hi", U32, &[0x8000_0000, 4, 5], U32), 7);
    assert_eq!(one("mad_sat", U8, &[20, 20, 0], U8), 255);
    assert_eq!(one("mad24", I32, &[-3, 1000, 7], I32), i(-2993, I32));
    assert_eq!(one("mul24", U32, &[0xff_ffff, 2], U32), 0x1ff_fffe);
    assert_eq!(one("rotate", U8, &[0b1000_0001, 1], U8), 0b0000_0011);
    assert_eq!(one("rotate", U32, &[0x1234_5678, 36], U32), 0x2345_6781);
    assert_eq!(one("clz", U16, &[1], U16), 15);
    assert_eq!(one("clz", I32, &[0], I32), 32);
    assert_eq!(one("ctz", U64, &[0], U64), 64);
    assert_eq!(one("ctz", U8, &[8], U8), 3);
    assert_eq!(one("popcount", I16, &[-1], I16), 16);
    assert_eq!(one("min", I32, &[-1, 1], I32), i(-1, I32));
    assert_eq!(one("min", U32, &[-1, 1], U32), 1);
    assert_eq!(one("clamp", I32, &[50, -10, 10], I32), 10);
    let up = builtin(
        "upsample",
        &[(s(U16), &[0xabcd]), (s(U16), &[0x1234])],
        s(U32),
    )
    .unwrap();
    assert_eq!(up, [0xabcd_1234]);
    let up = builtin("upsample", &[(s(I8), &[i(-1, I8)]), (s(U8), &[2])], s(I16)).unwrap();
    assert_eq!(up, [0xff02]);
}

#[test]
fn math_builtins_match_the_host() {
    let un =
        |name: &str, x: f32| as_f32(builtin(name, &[(Type::F32, &[f(x)])], Type::F32).unwrap()[0]);
    for x in [0.0f32, 0.3, 1.0, 2.5, 7.75, 100.0, 1e-3] {
        assert_eq!(un("sqrt", x), x.sqrt(), "sqrt({x})");
        assert_eq!(un("native_sqrt", x), x.sqrt(), "native_sqrt({x})");
        assert_eq!(un("exp", x), (f64::from(x).exp()) as f32, "exp({x})");
        assert_eq!(un("sin", x), (f64::from(x).sin()) as f32, "sin({x})");
        assert_eq!(
            un("half_cos", x),
            (f64::from(x).cos()) as f32,
            "half_cos({x})"
        );
        assert_eq!(un("floor", -x), (-x).floor());
        assert_eq!(un("cbrt", x), (f64::from(x).cbrt()) as f32);
    }
    assert_eq!(un("round", 2.5), 3.0);
    assert_eq!(un("round", -2.5), -3.0);
    assert_eq!(un("rint", 2.5), 2.0);
    assert_eq!(un("rint", 3.5), 4.0);
    assert_eq!(un("sign", -0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(un("sign", f32::NAN), 0.0);
    assert_eq!(un("sign", -7.0), -1.0);
    assert_eq!(un("sinpi", 1.0), 0.0);
    assert_eq!(un("cospi", 0.5), 0.0);
    assert_eq!(un("exp10", 2.0), 100.0);
    assert_eq!(un("erf", 0.5), libm::erf(0.5) as f32);
    assert_eq!(un("rsqrt", 4.0), 0.5);
    assert_eq!(un("degrees", std::f32::consts::PI), 180.0);
    let bi = |name: &str, x: f32, y: f32| {
        as_f32(
            builtin(
                name,
                &[(Type::F32, &[f(x)]), (Type::F32, &[f(y)])],
                Type::F32,
            )
            .unwrap()[0],
        )
    };
    assert_eq!(bi("pow", 2.0, 10.0), 1024.0);
    assert!(bi("powr", -2.0, 2.0).is_nan());
    assert_eq!(bi("fmod", 7.5, 2.0), 1.5);
    assert_eq!(bi("fmod", -7.5, 2.0), -1.5);
    assert_eq!(bi("copysign", 3.0, -0.0), -3.0);
    assert_eq!(bi("hypot", 3.0, 4.0), 5.0);
    assert_eq!(bi("step", 1.0, 0.5), 0.0);
    assert_eq!(bi("step", 1.0, 1.0), 1.0);
    assert_eq!(bi("maxmag", -3.0, 2.0), -3.0);
    assert_eq!(bi("minmag", -3.0, 2.0), 2.0);
    assert_eq!(bi("nextafter", 1.0, 2.0), 1.0f32.next_up());
    let tri = |name: &str, a: f32, b: f32, c: f32| {
        let ops = [
            (Type::F32, [f(a)]),
            (Type::F32, [f(b)]),
            (Type::F32, [f(c)]),
        ];
        let ops: Vec<Operand<'_>> = ops.iter().map(|(t, l)| (t.clone(), &l[..])).collect();
        as_f32(builtin(name, &ops, Type::F32).unwrap()[0])
    };
    let (a, b, c) = (1.0f32 + f32::EPSILON, 1.0f32 - f32::EPSILON, -1.0f32);
    assert_eq!(tri("fma", a, b, c), a.mul_add(b, c));
    assert_eq!(tri("mad", a, b, c), a * b + c);
    assert_ne!(tri("fma", a, b, c), tri("mad", a, b, c));
    assert_eq!(tri("clamp", 5.0, 0.0, 1.0), 1.0);
    assert_eq!(tri("mix", 2.0, 4.0, 0.25), 2.5);
    assert_eq!(tri("smoothstep", 0.0, 1.0, 0.5), 0.5);
    assert_eq!(tri("smoothstep", 0.0, 1.0, 2.0), 1.0);
    let pown = builtin(
        "pown",
        &[(Type::F32, &[f(1.5)]), (Type::I32, &[i(-2, Scalar::I32)])],
        Type::F32,
    )
    .unwrap();
    assert_eq!(as_f32(pown[0]), 1.0 / 2.25);
    let ilogb = builtin("ilogb", &[(Type::F32, &[f(10.0)])], Type::I32).unwrap();
    assert_eq!(ilogb, [3]);
    // Double precision keeps double precision.
    let x = 0.1f64;
    assert_eq!(
        f64::from_bits(builtin("sqrt", &[(Type::F64, &[d(x)])], Type::F64).unwrap()[0]),
        x.sqrt()
    );
}

#[test]
fn geometric_builtins() {
    let v3 = Type::vector(Scalar::F32, 3);
    let v4 = Type::vector(Scalar::F32, 4);
    let a = [f(1.0), f(2.0), f(3.0)];
    let b = [f(4.0), f(5.0), f(6.0)];
    let dot = builtin("dot", &[(v3.clone(), &a), (v3.clone(), &b)], Type::F32).unwrap();
    assert_eq!(as_f32(dot[0]), 32.0);
    let cross = builtin("cross", &[(v3.clone(), &a), (v3.clone(), &b)], v3.clone()).unwrap();
    assert_eq!(cross, [f(-3.0), f(6.0), f(-3.0)]);
    let len = builtin(
        "length",
        &[(v4.clone(), &[f(1.0), f(2.0), f(2.0), f(4.0)])],
        Type::F32,
    )
    .unwrap();
    assert_eq!(as_f32(len[0]), 5.0);
    let dist = builtin("distance", &[(v3.clone(), &a), (v3.clone(), &b)], Type::F32).unwrap();
    assert_eq!(as_f32(dist[0]), 27f32.sqrt());
    let n = builtin(
        "normalize",
        &[(v3.clone(), &[f(3.0), f(0.0), f(4.0)])],
        v3.clone(),
    )
    .unwrap();
    assert_eq!(n, [f(0.6), f(0.0), f(0.8)]);
    let z = builtin("fast_normalize", &[(v3.clone(), &[f(0.0); 3])], v3).unwrap();
    assert_eq!(z, [f(0.0); 3]);
}

#[test]
fn relational_builtins_give_one_for_scalars_and_minus_one_for_vectors() {
    let v4 = Type::vector(Scalar::F32, 4);
    let i4 = Type::vector(Scalar::I32, 4);
    let x = [f(f32::NAN), f(1.0), f(f32::INFINITY), f(1e-40)];
    assert_eq!(
        builtin("isnan", &[(v4.clone(), &x)], i4.clone()).unwrap(),
        [0xffff_ffff, 0, 0, 0]
    );
    assert_eq!(
        builtin("isinf", &[(v4.clone(), &x)], i4.clone()).unwrap(),
        [0, 0, 0xffff_ffff, 0]
    );
    assert_eq!(
        builtin("isnormal", &[(v4.clone(), &x)], i4.clone()).unwrap(),
        [0, 0xffff_ffff, 0, 0]
    );
    assert_eq!(
        builtin("isfinite", &[(v4.clone(), &x)], i4.clone()).unwrap(),
        [0, 0xffff_ffff, 0, 0xffff_ffff]
    );
    assert_eq!(
        builtin("isnan", &[(Type::F32, &[f(f32::NAN)])], Type::I32).unwrap(),
        [1]
    );
    assert_eq!(
        builtin("signbit", &[(Type::F32, &[f(-0.0)])], Type::I32).unwrap(),
        [1]
    );
    let two = |name: &str, a: f32, b: f32| {
        builtin(
            name,
            &[(Type::F32, &[f(a)]), (Type::F32, &[f(b)])],
            Type::I32,
        )
        .unwrap()[0]
    };
    assert_eq!(two("isless", 1.0, 2.0), 1);
    assert_eq!(two("isgreaterequal", 1.0, 2.0), 0);
    assert_eq!(two("islessgreater", 1.0, f32::NAN), 0);
    assert_eq!(two("isunordered", 1.0, f32::NAN), 1);
    assert_eq!(two("isnotequal", f32::NAN, f32::NAN), 1);
    let d2 = Type::vector(Scalar::F64, 2);
    let l2 = Type::vector(Scalar::I64, 2);
    let eq = builtin(
        "isequal",
        &[(d2.clone(), &[d(1.0), d(2.0)]), (d2, &[d(1.0), d(3.0)])],
        l2,
    )
    .unwrap();
    assert_eq!(eq, [u64::MAX, 0]);
    // any/all test the most significant bit of each component.
    assert_eq!(
        builtin("any", &[(i4.clone(), &[0, 1, 0x7fff_ffff, 0])], Type::I32).unwrap(),
        [0]
    );
    assert_eq!(
        builtin("any", &[(i4.clone(), &[0, 0x8000_0000, 0, 0])], Type::I32).unwrap(),
        [1]
    );
    assert_eq!(
        builtin("all", &[(i4.clone(), &[0x8000_0000; 4])], Type::I32).unwrap(),
        [1]
    );
    assert_eq!(
        builtin("all", &[(Type::I32, &[1])], Type::I32).unwrap(),
        [0]
    );
    // select: vector conditions by MSB, scalar conditions by value.
    let a = [1, 2, 3, 4];
    let b = [10, 20, 30, 40];
    let c = [0xffff_ffff, 1, 0x8000_0000, 0];
    let sel = builtin(
        "select",
        &[(i4.clone(), &a), (i4.clone(), &b), (i4.clone(), &c)],
        i4.clone(),
    )
    .unwrap();
    assert_eq!(sel, [10, 2, 30, 4]);
    let sel = builtin(
        "select",
        &[(Type::I32, &[1]), (Type::I32, &[2]), (Type::I32, &[1])],
        Type::I32,
    )
    .unwrap();
    assert_eq!(sel, [2]);
    let bs = builtin(
        "bitselect",
        &[
            (Type::U32, &[0xf0f0]),
            (Type::U32, &[0x0ff0]),
            (Type::U32, &[0xff00]),
        ],
        Type::U32,
    )
    .unwrap();
    assert_eq!(bs, [0x0ff0 & 0xff00 | 0xf0f0 & 0x00ff]);
    let u4 = Type::vector(Scalar::U32, 4);
    let sh = builtin(
        "shuffle2",
        &[(i4.clone(), &a), (i4.clone(), &b), (u4, &[7, 0, 5, 10])],
        i4,
    )
    .unwrap();
    assert_eq!(sh, [40, 1, 20, 3]);
}

#[test]
fn vector_instructions() {
    let v4 = Type::vector(Scalar::I32, 4);
    let v2 = Type::vector(Scalar::I32, 2);
    let a = [1, 2, 3, 4];
    let b = [5, 6, 7, 8];
    let sh = eval(
        &[(v4.clone(), &a), (v4.clone(), &b)],
        v4.clone(),
        |bl, v| {
            bl.push(
                Inst::Shuffle(v[0], v[1], vec![7, 0, 4, 2]),
                Type::vector(Scalar::I32, 4),
            )
        },
    )
    .unwrap();
    assert_eq!(sh, [8, 1, 5, 3]);
    let built = eval(
        &[(v2.clone(), &[9, 8]), (Type::I32, &[7])],
        v4.clone(),
        |bl, v| {
            let x = bl.push(Inst::Extract(v[0], 1), Type::I32);
            let c = bl.push(
                Inst::Construct(vec![v[1], v[0], x]),
                Type::vector(Scalar::I32, 4),
            );
            let s = bl.push(Inst::Splat(v[1]), Type::vector(Scalar::I32, 4));
            let sum = bl.binary(BinaryOp::Add, c, s);
            bl.push(Inst::Insert(sum, 3, v[1]), Type::vector(Scalar::I32, 4))
        },
    )
    .unwrap();
    assert_eq!(built, [14, 16, 15, 7]);
    let f4 = Type::vector(Scalar::F32, 4);
    let sel = eval(
        &[(f4.clone(), &[f(1.0), f(2.0), f(3.0), f(4.0)])],
        f4.clone(),
        |bl, v| {
            let two = bl.const_f32(2.5);
            let two = bl.push(Inst::Splat(two), Type::vector(Scalar::F32, 4));
            let c = bl.cmp(CmpOp::Gt, v[0], two);
            bl.push(Inst::Select(c, two, v[0]), Type::vector(Scalar::F32, 4))
        },
    )
    .unwrap();
    assert_eq!(sel, [f(1.0), f(2.0), f(2.5), f(2.5)]);
    let bits = eval(&[(Type::F32, &[f(-1.5)])], Type::U32, |bl, v| {
        bl.push(Inst::Bitcast(v[0]), Type::U32)
    })
    .unwrap();
    assert_eq!(bits, [u64::from((-1.5f32).to_bits())]);
}

#[test]
fn a_builtin_the_interpreter_does_not_run_is_an_error() {
    // The JIT's combining step of a collective, never in a module the
    // interpreter is given.
    assert_eq!(
        builtin(
            "__vecl_work_group_combine",
            &[(Type::F32, &[f(1.0)])],
            Type::Void
        ),
        Err(InterpError::UnsupportedBuiltin(Builtin::WorkGroupCombine))
    );
}

/// `sinpi`, `cospi`, `tanpi` in double: exact at half-integers (`tanpi`'s
/// poles are +inf after an even integer, -inf after an odd one) and at
/// huge arguments, all of them integers (even from 2^53 on).
#[test]
fn double_trigpi_of_half_integers_and_huge_arguments() {
    let un = |name: &str, x: f64| {
        f64::from_bits(builtin(name, &[(Type::F64, &[d(x)])], Type::F64).unwrap()[0])
    };
    let p52 = 2f64.powi(52);
    let inf = f64::INFINITY;
    // (x, sinpi, cospi, tanpi)
    let cases = [
        (0.5, 1.0, 0.0, inf),
        (-0.5, -1.0, 0.0, -inf),
        (1.5, -1.0, 0.0, -inf),
        (-1.5, 1.0, 0.0, inf),
        (2.5, 1.0, 0.0, inf),
        (p52 + 1.0, 0.0, -1.0, -0.0),
        (-(p52 + 1.0), -0.0, -1.0, 0.0),
        (2.0 * p52, 0.0, 1.0, 0.0),
        (1e300, 0.0, 1.0, 0.0),
        (f64::MAX, 0.0, 1.0, 0.0),
        (-f64::MAX, -0.0, 1.0, -0.0),
    ];
    for (x, sp, cp, tp) in cases {
        for (name, want) in [("sinpi", sp), ("cospi", cp), ("tanpi", tp)] {
            let got = un(name, x);
            assert_eq!(got.to_bits(), want.to_bits(), "{name}({x:e}) = {got:e}");
        }
    }
}

/// `rootn` in double stays within the specification's 2 ULP at the ends of
/// the range, where the rounding of 1/n is multiplied by ln x ≈ 710. The
/// wanted values are mpmath's roots rounded to double.
#[test]
fn double_rootn_at_the_ends_of_the_range() {
    let rootn = |x: f64, n: i64| {
        let r = builtin(
            "rootn",
            &[(Type::F64, &[d(x)]), (s(Scalar::I32), &[i(n, Scalar::I32)])],
            Type::F64,
        );
        f64::from_bits(r.unwrap()[0])
    };
    let cases: [(f64, i64, u64); 12] = [
        (f64::MAX, 3, 0x5544_28a2_f98d_728b),
        (f64::MAX, 5, 0x4cbb_db8c_dadb_e120),
        (f64::MAX, 7, 0x4913_8114_7622_f886),
        (f64::MAX, 9, 0x470b_6e8a_eee1_7ed5),
        (f64::MAX, 11, 0x45c1_0a68_8680_a753),
        (f64::MAX, 6, 0x4a99_65fe_a53d_6e3c),
        (f64::MAX, -5, 0x3322_6111_86ba_e675),
        (f64::MAX, -7, 0x36ca_402f_eeb9_c533),
        (-f64::MAX, 5, 0xccbb_db8c_dadb_e120),
        (1e300, 5, 0x4c63_e9e4_e4c2_f344),
        (5e-324, 7, 0x3657_c6a1_f29e_2ce6),
        (5e-324, -7, 0x4985_88ce_a3f0_93be),
    ];
    for (x, n, want) in cases {
        let got = rootn(x, n);
        let ulps = (got.to_bits() as i64).abs_diff(want as i64);
        assert!(
            ulps <= 2,
            "rootn({x:e}, {n}) = {got:e}, want {:e} ({ulps} ULP)",
            f64::from_bits(want)
        );
    }
    assert_eq!(rootn(-0.0, 3).to_bits(), (-0.0f64).to_bits());
    assert_eq!(rootn(-0.0, -3), f64::NEG_INFINITY);
    assert_eq!(rootn(0.0, -4), f64::INFINITY);
    assert!(rootn(-8.0, 4).is_nan());
}

/// `length`, `distance` and `normalize` of components whose squares
/// overflow or underflow, in float and double; infinities and NaNs.
#[test]
fn geometric_builtins_at_the_ends_of_the_range() {
    let f2 = Type::vector(Scalar::F32, 2);
    let f3 = Type::vector(Scalar::F32, 3);
    let d4 = Type::vector(Scalar::F64, 4);
    let len_f = |v: &[f32]| {
        let ty = Type::vector(Scalar::F32, v.len() as _);
        let l: Vec<u64> = v.iter().map(|x| f(*x)).collect();
        as_f32(builtin("length", &[(ty, &l)], Type::F32).unwrap()[0])
    };
    let sqrt2 = std::f32::consts::SQRT_2;
    assert_eq!(len_f(&[1e30, 1e30]), 1e30 * sqrt2);
    assert_eq!(len_f(&[3e-30, 4e-30]), 5e-30);
    assert_eq!(len_f(&[1e-45, 0.0, 0.0]), 1e-45);
    assert_eq!(len_f(&[f32::MAX, f32::MAX]), f32::INFINITY);
    assert!(len_f(&[f32::INFINITY, f32::NAN]).is_nan());
    let dist = builtin(
        "distance",
        &[
            (f2.clone(), &[f(3e30), f(0.0)]),
            (f2.clone(), &[f(0.0), f(-4e30)]),
        ],
        Type::F32,
    )
    .unwrap();
    assert_eq!(as_f32(dist[0]), 5e30);
    let len_d = builtin("length", &[(d4.clone(), &[d(1e300); 4])], Type::F64).unwrap();
    assert_eq!(f64::from_bits(len_d[0]), 2e300);
    let len_d = builtin(
        "length",
        &[(d4.clone(), &[d(3e-310), d(4e-310), d(0.0), d(0.0)])],
        Type::F64,
    )
    .unwrap();
    assert_eq!(f64::from_bits(len_d[0]), 5e-310);
    let norm = |v: [f32; 3]| -> Vec<u32> {
        let l: Vec<u64> = v.iter().map(|x| f(*x)).collect();
        builtin("normalize", &[(f3.clone(), &l)], f3.clone())
            .unwrap()
            .into_iter()
            .map(|l| l as u32)
            .collect()
    };
    let bits = |v: [f32; 3]| v.map(f32::to_bits).to_vec();
    let (big, tiny) = (2f32.powi(100), 2f32.powi(-140));
    assert_eq!(norm([3.0 * big, 0.0, -4.0 * big]), bits([0.6, 0.0, -0.8]));
    assert_eq!(norm([3.0 * tiny, 4.0 * tiny, 0.0]), bits([0.6, 0.8, 0.0]));
    assert_eq!(norm([-0.0, 0.0, -0.0]), bits([-0.0, 0.0, -0.0]));
    assert_eq!(
        norm([f32::NEG_INFINITY, 5.0, -1.0]),
        bits([-1.0, 0.0, -0.0])
    );
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert_eq!(norm([f32::INFINITY, 0.0, f32::INFINITY]), bits([h, 0.0, h]));
    let nan = norm([f32::NAN, 1.0, f32::INFINITY]);
    assert!(nan.iter().all(|x| f32::from_bits(*x).is_nan()));
}

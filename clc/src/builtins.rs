//! The declaration table of OpenCL C 1.2 builtin functions and their
//! overload resolution.
//!
//! Each builtin has one or more signatures written over *gentype families*,
//! which keeps the table to a few lines per group of the specification
//! (6.12.2–6.12.7): `F` is a float gentype (`float`, `floatn`, `double`,
//! `doublen`), `I` an integer gentype, `G` any arithmetic gentype; lower-case
//! `f`/`i`/`g` is the element scalar of the same binding; `K` is `int` with
//! `F`'s component count, `k` plain `int`, `u` plain `uint`, `U` the unsigned type of `I`,
//! `L` the result of a relational function on `F` (`int` for scalars, the
//! signed integer vector of the element width otherwise), `N` the unsigned
//! integer type with `F`'s shape, `S` `size_t`; `*X` is a pointer (any
//! address space) to `X`. Resolution binds each family from the arguments,
//! then checks that every argument converts: exactly, or scalar to scalar.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;
use vecl_ir::{Builtin, Scalar, Type};

const TABLE: &[(&[Builtin], &[&str])] = {
    use Builtin::*;
    &[
        (
            &[
                Acos,
                Acosh,
                Acospi,
                Asin,
                Asinh,
                Asinpi,
                Atan,
                Atanh,
                Atanpi,
                Cbrt,
                Ceil,
                Cos,
                Cosh,
                Cospi,
                Erfc,
                Erf,
                Exp,
                Exp2,
                Exp10,
                Expm1,
                Fabs,
                Floor,
                Lgamma,
                Log,
                Log2,
                Log10,
                Log1p,
                Logb,
                Rint,
                Round,
                Rsqrt,
                Sin,
                Sinh,
                Sinpi,
                Sqrt,
                Tan,
                Tanh,
                Tanpi,
                Tgamma,
                Trunc,
                NativeCos,
                NativeExp,
                NativeExp2,
                NativeExp10,
                NativeLog,
                NativeLog2,
                NativeLog10,
                NativeRecip,
                NativeRsqrt,
                NativeSin,
                NativeSqrt,
                NativeTan,
                HalfCos,
                HalfExp,
                HalfExp2,
                HalfExp10,
                HalfLog,
                HalfLog2,
                HalfLog10,
                HalfRecip,
                HalfRsqrt,
                HalfSin,
                HalfSqrt,
                HalfTan,
                Degrees,
                Radians,
                Sign,
                Normalize,
                FastNormalize,
            ],
            &["F:F"],
        ),
        (
            &[
                Atan2,
                Atan2pi,
                Copysign,
                Fdim,
                Fmod,
                Hypot,
                Maxmag,
                Minmag,
                Nextafter,
                Pow,
                Powr,
                Remainder,
                NativeDivide,
                NativePowr,
                HalfDivide,
                HalfPowr,
                Cross,
            ],
            &["F:F,F"],
        ),
        (&[Fmax, Fmin], &["F:F,F", "F:F,f"]),
        (&[Fma, Mad], &["F:F,F,F"]),
        (&[Mix], &["F:F,F,F", "F:F,F,f"]),
        (&[Smoothstep], &["F:F,F,F", "F:f,f,F"]),
        (&[Step], &["F:F,F", "F:f,F"]),
        (&[Fract, Modf, Sincos], &["F:F,*F"]),
        (&[Frexp, LgammaR], &["F:F,*K"]),
        (&[Remquo], &["F:F,F,*K"]),
        (&[Ldexp], &["F:F,K", "F:F,k"]),
        (&[Pown, Rootn], &["F:F,K"]),
        (&[Ilogb], &["K:F"]),
        (&[Nan], &["F:N"]),
        (&[Dot, Distance, FastDistance], &["f:F,F"]),
        (&[Length, FastLength], &["f:F"]),
        (
            &[
                Isequal,
                Isnotequal,
                Isgreater,
                Isgreaterequal,
                Isless,
                Islessequal,
                Islessgreater,
                Isordered,
                Isunordered,
            ],
            &["L:F,F"],
        ),
        (&[Isfinite, Isinf, Isnan, Isnormal, Signbit], &["L:F"]),
        (&[Abs], &["U:I"]),
        (&[AbsDiff], &["U:I,I"]),
        (&[AddSat, Hadd, Rhadd, MulHi, Rotate, SubSat], &["I:I,I"]),
        (&[Clz, Popcount, Ctz], &["I:I"]),
        (&[MadHi, MadSat], &["I:I,I,I"]),
        (&[Mad24], &["I:I,I,I"]),
        (&[Mul24], &["I:I,I"]),
        (&[Max, Min], &["G:G,G", "G:G,g"]),
        (&[Clamp], &["G:G,G,G", "G:G,g,g"]),
        (&[Any, All], &["k:I"]),
        (&[Bitselect], &["G:G,G,G"]),
        // OpenCL 2.0 work-group and sub-group functions (6.13.15, cl_khr_subgroups).
        (
            &[WorkGroupAll, WorkGroupAny, SubGroupAll, SubGroupAny],
            &["k:k"],
        ),
        (
            &[
                WorkGroupReduceAdd,
                WorkGroupReduceMin,
                WorkGroupReduceMax,
                WorkGroupScanExclusiveAdd,
                WorkGroupScanExclusiveMin,
                WorkGroupScanExclusiveMax,
                WorkGroupScanInclusiveAdd,
                WorkGroupScanInclusiveMin,
                WorkGroupScanInclusiveMax,
                SubGroupReduceAdd,
                SubGroupReduceMin,
                SubGroupReduceMax,
                SubGroupScanExclusiveAdd,
                SubGroupScanExclusiveMin,
                SubGroupScanExclusiveMax,
                SubGroupScanInclusiveAdd,
                SubGroupScanInclusiveMin,
                SubGroupScanInclusiveMax,
            ],
            &["G:G"],
        ),
        (&[WorkGroupBroadcast], &["G:G,S", "G:G,S,S", "G:G,S,S,S"]),
        (&[SubGroupBroadcast], &["G:G,u"]),
        (
            &[
                GetSubGroupSize,
                GetMaxSubGroupSize,
                GetNumSubGroups,
                GetEnqueuedNumSubGroups,
                GetSubGroupId,
                GetSubGroupLocalId,
            ],
            &["u:"],
        ),
        // The cl_khr_subgroup_* extensions (`Q` is `uint4`, a ballot).
        (&[SubGroupElect], &["k:"]),
        (&[SubGroupNonUniformAll, SubGroupNonUniformAny], &["k:k"]),
        (&[SubGroupNonUniformAllEqual], &["k:G"]),
        (
            &[
                SubGroupNonUniformBroadcast,
                SubGroupShuffle,
                SubGroupShuffleXor,
                SubGroupShuffleUp,
                SubGroupShuffleDown,
            ],
            &["G:G,u"],
        ),
        (&[SubGroupBroadcastFirst], &["G:G"]),
        (&[SubGroupRotate], &["G:G,k"]),
        (&[SubGroupClusteredRotate], &["G:G,k,u"]),
        (
            &[
                SubGroupNonUniformReduceAdd,
                SubGroupNonUniformReduceMul,
                SubGroupNonUniformReduceMin,
                SubGroupNonUniformReduceMax,
                SubGroupNonUniformReduceAnd,
                SubGroupNonUniformReduceOr,
                SubGroupNonUniformReduceXor,
                SubGroupNonUniformReduceLogicalAnd,
                SubGroupNonUniformReduceLogicalOr,
                SubGroupNonUniformReduceLogicalXor,
                SubGroupNonUniformScanInclusiveAdd,
                SubGroupNonUniformScanInclusiveMul,
                SubGroupNonUniformScanInclusiveMin,
                SubGroupNonUniformScanInclusiveMax,
                SubGroupNonUniformScanInclusiveAnd,
                SubGroupNonUniformScanInclusiveOr,
                SubGroupNonUniformScanInclusiveXor,
                SubGroupNonUniformScanInclusiveLogicalAnd,
                SubGroupNonUniformScanInclusiveLogicalOr,
                SubGroupNonUniformScanInclusiveLogicalXor,
                SubGroupNonUniformScanExclusiveAdd,
                SubGroupNonUniformScanExclusiveMul,
                SubGroupNonUniformScanExclusiveMin,
                SubGroupNonUniformScanExclusiveMax,
                SubGroupNonUniformScanExclusiveAnd,
                SubGroupNonUniformScanExclusiveOr,
                SubGroupNonUniformScanExclusiveXor,
                SubGroupNonUniformScanExclusiveLogicalAnd,
                SubGroupNonUniformScanExclusiveLogicalOr,
                SubGroupNonUniformScanExclusiveLogicalXor,
            ],
            &["G:G"],
        ),
        (
            &[
                SubGroupClusteredReduceAdd,
                SubGroupClusteredReduceMul,
                SubGroupClusteredReduceMin,
                SubGroupClusteredReduceMax,
                SubGroupClusteredReduceAnd,
                SubGroupClusteredReduceOr,
                SubGroupClusteredReduceXor,
                SubGroupClusteredReduceLogicalAnd,
                SubGroupClusteredReduceLogicalOr,
                SubGroupClusteredReduceLogicalXor,
            ],
            &["G:G,u"],
        ),
        (&[SubGroupBallot], &["Q:k"]),
        (
            &[
                SubGroupBallotBitCount,
                SubGroupBallotInclusiveScan,
                SubGroupBallotExclusiveScan,
                SubGroupBallotFindLsb,
                SubGroupBallotFindMsb,
            ],
            &["u:Q"],
        ),
        (&[SubGroupInverseBallot], &["k:Q"]),
        (&[SubGroupBallotBitExtract], &["k:Q,u"]),
        (
            &[
                GetSubGroupEqMask,
                GetSubGroupGeMask,
                GetSubGroupGtMask,
                GetSubGroupLeMask,
                GetSubGroupLtMask,
            ],
            &["Q:"],
        ),
    ]
};

type Entry = (Builtin, &'static [&'static str]);

fn table() -> &'static FxHashMap<&'static str, Entry> {
    static T: OnceLock<FxHashMap<&'static str, Entry>> = OnceLock::new();
    T.get_or_init(|| {
        let mut m = FxHashMap::default();
        for (builtins, sigs) in TABLE {
            for b in *builtins {
                m.insert(b.name(), (*b, *sigs));
            }
        }
        m
    })
}

/// Whether `name` is a builtin of the table.
pub fn is_table_builtin(name: &str) -> bool {
    table().contains_key(name)
}

/// A resolved overload: the builtin, the parameter types the arguments
/// convert to and the result type.
#[derive(Debug, PartialEq)]
pub struct Overload {
    pub builtin: Builtin,
    pub params: Vec<Type>,
    pub ret: Type,
}

#[derive(Default, Clone)]
struct Binding {
    f: Option<Type>,
    i: Option<Type>,
    g: Option<Type>,
}

fn family_ok(letter: char, t: &Type) -> bool {
    let Some(s) = t.scalar() else { return false };
    if s == Scalar::Bool {
        return false;
    }
    match letter {
        'F' => s.is_float(),
        'I' => s.is_int(),
        'G' => true,
        _ => false,
    }
}

fn slot(b: &mut Binding, letter: char) -> &mut Option<Type> {
    match letter {
        'F' => &mut b.f,
        'I' => &mut b.i,
        _ => &mut b.g,
    }
}

/// The concrete type of a pattern under a binding.
fn instantiate(pat: &str, b: &Binding) -> Option<Type> {
    if let Some(inner) = pat.strip_prefix('*') {
        // The address space is taken from the argument by the caller.
        return instantiate(inner, b).map(|t| Type::ptr(vecl_ir::AddressSpace::Generic, t));
    }
    let f = || b.f.clone();
    Some(match pat {
        "F" => f()?,
        "f" => Type::Scalar(f()?.scalar()?),
        "I" => b.i.clone()?,
        "i" => Type::Scalar(b.i.clone()?.scalar()?),
        "U" => {
            let i = b.i.clone()?;
            i.with_scalar(i.scalar()?.unsigned_int_of_same_width())
        }
        "G" => b.g.clone()?,
        "g" => Type::Scalar(b.g.clone()?.scalar()?),
        "K" => f()?.with_scalar(Scalar::I32),
        "k" => Type::I32,
        "u" => Type::U32,
        "S" => Type::U64,
        "Q" => Type::vector(Scalar::U32, 4),
        "L" => {
            let t = f()?;
            match t {
                Type::Vector(s, n) => Type::Vector(s.signed_int_of_same_width(), n),
                _ => Type::I32,
            }
        }
        "N" => {
            let t = f()?;
            t.with_scalar(t.scalar()?.unsigned_int_of_same_width())
        }
        _ => return None,
    })
}

/// `half`/`float`/`double` with the shape of a 16-/32-/64-bit integer type (`nan`'s argument).
fn float_of_same_width(t: &Type) -> Option<Type> {
    let s = t.scalar()?;
    let f = match s {
        Scalar::U16 | Scalar::I16 => Scalar::F16,
        Scalar::U32 | Scalar::I32 => Scalar::F32,
        Scalar::U64 | Scalar::I64 => Scalar::F64,
        _ => return None,
    };
    Some(t.with_scalar(f))
}

fn try_sig(builtin: Builtin, sig: &str, args: &[Type]) -> Option<Overload> {
    let (ret, params) = sig.split_once(':')?;
    let pats: Vec<&str> = if params.is_empty() {
        Vec::new()
    } else {
        params.split(',').collect()
    };
    if pats.len() != args.len() {
        return None;
    }
    let mut b = Binding::default();
    // Bind families from vector arguments first, then from scalars of the family.
    for pass in 0..3 {
        for (p, a) in pats.iter().zip(args) {
            let (letter, a) = match p.strip_prefix('*') {
                Some(inner) => (inner.chars().next()?, a.pointee()?.clone()),
                None => (p.chars().next()?, a.clone()),
            };
            if letter == 'N' && b.f.is_none() && pass < 2 {
                // `nan(uintn)`: the float type of the argument's width and shape.
                b.f = float_of_same_width(&a);
                continue;
            }
            if !matches!(letter, 'F' | 'I' | 'G') || slot(&mut b, letter).is_some() {
                continue;
            }
            let ok = match pass {
                0 => matches!(a, Type::Vector(..)) && family_ok(letter, &a),
                1 => family_ok(letter, &a),
                // A scalar of another family: `sqrt(2)` resolves to `float`.
                _ => {
                    matches!(a, Type::Scalar(s) if s != Scalar::Bool)
                        && letter == 'F'
                        && !p.starts_with('*')
                }
            };
            if ok {
                *slot(&mut b, letter) = Some(if pass == 2 { Type::F32 } else { a });
            }
        }
    }
    // Lower-case patterns can bind their family from a scalar too (`max(x, 1)`).
    let mut params = Vec::new();
    for (p, a) in pats.iter().zip(args) {
        let t = instantiate(p, &b)?;
        let ok = match (&t, a) {
            (Type::Pointer(_, tp), Type::Pointer(_, ap)) => tp == ap,
            _ if &t == a => true,
            (Type::Scalar(_), Type::Scalar(_)) => true,
            _ => false,
        };
        if !ok {
            return None;
        }
        params.push(match (&t, a) {
            (Type::Pointer(..), Type::Pointer(..)) => a.clone(),
            _ => t,
        });
    }
    let ret = instantiate(ret, &b)?;
    Some(Overload {
        builtin,
        params,
        ret,
    })
}

/// Resolves a call of a table builtin. `None` when no overload accepts the arguments.
pub fn resolve(name: &str, args: &[Type]) -> Option<Overload> {
    let (b, sigs) = table().get(name)?;
    sigs.iter().find_map(|s| try_sig(*b, s, args))
}

/// The signatures of table builtin `b` (empty for the builtins the front
/// end types itself), in the notation of the module header.
pub fn signatures(b: Builtin) -> &'static [&'static str] {
    table().get(b.name()).map_or(&[], |(_, s)| s)
}

/// The signatures of a builtin as the diagnostics show them.
pub fn describe(name: &str) -> String {
    table()
        .get(name)
        .map(|(_, s)| s.join(" | "))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_gentype_overloads() {
        let f4 = Type::vector(Scalar::F32, 4);
        assert_eq!(
            resolve("sqrt", std::slice::from_ref(&f4)).map(|o| o.ret),
            Some(f4.clone())
        );
        assert_eq!(
            resolve("sqrt", &[Type::I32]).map(|o| o.params),
            Some(vec![Type::F32])
        );
        assert_eq!(
            resolve("fmax", &[f4.clone(), Type::F32]).map(|o| o.params),
            Some(vec![f4.clone(), Type::F32])
        );
        assert_eq!(
            resolve("dot", &[f4.clone(), f4.clone()]).map(|o| o.ret),
            Some(Type::F32)
        );
        assert_eq!(
            resolve("isnan", std::slice::from_ref(&f4)).map(|o| o.ret),
            Some(Type::vector(Scalar::I32, 4))
        );
        assert_eq!(
            resolve("isnan", &[Type::F64]).map(|o| o.ret),
            Some(Type::I32)
        );
        assert_eq!(resolve("abs", &[Type::I32]).map(|o| o.ret), Some(Type::U32));
        assert_eq!(
            resolve("max", &[Type::U32, Type::I32]).map(|o| o.params),
            Some(vec![Type::U32, Type::U32])
        );
        assert!(resolve("clz", &[Type::F32]).is_none());
        assert!(resolve("sqrt", &[f4.clone(), f4]).is_none());
    }
}

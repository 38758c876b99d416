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
use vecl_ir::{Scalar, Type};

const TABLE: &[(&str, &[&str])] = &[
    (
        "acos acosh acospi asin asinh asinpi atan atanh atanpi cbrt ceil cos cosh cospi erfc erf exp exp2 exp10 expm1 \
         fabs floor lgamma log log2 log10 log1p logb rint round rsqrt sin sinh sinpi sqrt tan tanh tanpi tgamma trunc \
         native_cos native_exp native_exp2 native_exp10 native_log native_log2 native_log10 native_recip native_rsqrt \
         native_sin native_sqrt native_tan half_cos half_exp half_exp2 half_exp10 half_log half_log2 half_log10 \
         half_recip half_rsqrt half_sin half_sqrt half_tan degrees radians sign normalize fast_normalize",
        &["F:F"],
    ),
    (
        "atan2 atan2pi copysign fdim fmod hypot maxmag minmag nextafter pow powr remainder native_divide native_powr \
         half_divide half_powr cross",
        &["F:F,F"],
    ),
    ("fmax fmin", &["F:F,F", "F:F,f"]),
    ("fma mad", &["F:F,F,F"]),
    ("mix", &["F:F,F,F", "F:F,F,f"]),
    ("smoothstep", &["F:F,F,F", "F:f,f,F"]),
    ("step", &["F:F,F", "F:f,F"]),
    ("fract modf sincos", &["F:F,*F"]),
    ("frexp lgamma_r", &["F:F,*K"]),
    ("remquo", &["F:F,F,*K"]),
    ("ldexp", &["F:F,K", "F:F,k"]),
    ("pown rootn", &["F:F,K"]),
    ("ilogb", &["K:F"]),
    ("nan", &["F:N"]),
    ("dot distance fast_distance", &["f:F,F"]),
    ("length fast_length", &["f:F"]),
    (
        "isequal isnotequal isgreater isgreaterequal isless islessequal islessgreater isordered isunordered",
        &["L:F,F"],
    ),
    ("isfinite isinf isnan isnormal signbit", &["L:F"]),
    ("abs", &["U:I"]),
    ("abs_diff", &["U:I,I"]),
    ("add_sat hadd rhadd mul_hi rotate sub_sat", &["I:I,I"]),
    ("clz popcount ctz", &["I:I"]),
    ("mad_hi mad_sat", &["I:I,I,I"]),
    ("mad24", &["I:I,I,I"]),
    ("mul24", &["I:I,I"]),
    ("max min", &["G:G,G", "G:G,g"]),
    ("clamp", &["G:G,G,G", "G:G,g,g"]),
    ("any all", &["k:I"]),
    ("bitselect", &["G:G,G,G"]),
    // OpenCL 2.0 work-group and sub-group functions (6.13.15, cl_khr_subgroups).
    ("work_group_all work_group_any sub_group_all sub_group_any", &["k:k"]),
    (
        "work_group_reduce_add work_group_reduce_min work_group_reduce_max \
         work_group_scan_exclusive_add work_group_scan_exclusive_min work_group_scan_exclusive_max \
         work_group_scan_inclusive_add work_group_scan_inclusive_min work_group_scan_inclusive_max \
         sub_group_reduce_add sub_group_reduce_min sub_group_reduce_max \
         sub_group_scan_exclusive_add sub_group_scan_exclusive_min sub_group_scan_exclusive_max \
         sub_group_scan_inclusive_add sub_group_scan_inclusive_min sub_group_scan_inclusive_max",
        &["G:G"],
    ),
    ("work_group_broadcast", &["G:G,S", "G:G,S,S", "G:G,S,S,S"]),
    ("sub_group_broadcast", &["G:G,u"]),
    (
        "get_sub_group_size get_max_sub_group_size get_num_sub_groups get_enqueued_num_sub_groups \
         get_sub_group_id get_sub_group_local_id",
        &["u:"],
    ),
    // The cl_khr_subgroup_* extensions (`Q` is `uint4`, a ballot).
    ("sub_group_elect", &["k:"]),
    ("sub_group_non_uniform_all sub_group_non_uniform_any", &["k:k"]),
    ("sub_group_non_uniform_all_equal", &["k:G"]),
    (
        "sub_group_non_uniform_broadcast sub_group_shuffle sub_group_shuffle_xor \
         sub_group_shuffle_up sub_group_shuffle_down",
        &["G:G,u"],
    ),
    ("sub_group_broadcast_first", &["G:G"]),
    ("sub_group_rotate", &["G:G,k"]),
    ("sub_group_clustered_rotate", &["G:G,k,u"]),
    (
        "sub_group_non_uniform_reduce_add sub_group_non_uniform_reduce_mul \
         sub_group_non_uniform_reduce_min sub_group_non_uniform_reduce_max \
         sub_group_non_uniform_reduce_and sub_group_non_uniform_reduce_or \
         sub_group_non_uniform_reduce_xor sub_group_non_uniform_reduce_logical_and \
         sub_group_non_uniform_reduce_logical_or sub_group_non_uniform_reduce_logical_xor \
         sub_group_non_uniform_scan_inclusive_add sub_group_non_uniform_scan_inclusive_mul \
         sub_group_non_uniform_scan_inclusive_min sub_group_non_uniform_scan_inclusive_max \
         sub_group_non_uniform_scan_inclusive_and sub_group_non_uniform_scan_inclusive_or \
         sub_group_non_uniform_scan_inclusive_xor sub_group_non_uniform_scan_inclusive_logical_and \
         sub_group_non_uniform_scan_inclusive_logical_or sub_group_non_uniform_scan_inclusive_logical_xor \
         sub_group_non_uniform_scan_exclusive_add sub_group_non_uniform_scan_exclusive_mul \
         sub_group_non_uniform_scan_exclusive_min sub_group_non_uniform_scan_exclusive_max \
         sub_group_non_uniform_scan_exclusive_and sub_group_non_uniform_scan_exclusive_or \
         sub_group_non_uniform_scan_exclusive_xor sub_group_non_uniform_scan_exclusive_logical_and \
         sub_group_non_uniform_scan_exclusive_logical_or sub_group_non_uniform_scan_exclusive_logical_xor",
        &["G:G"],
    ),
    (
        "sub_group_clustered_reduce_add sub_group_clustered_reduce_mul sub_group_clustered_reduce_min \
         sub_group_clustered_reduce_max sub_group_clustered_reduce_and sub_group_clustered_reduce_or \
         sub_group_clustered_reduce_xor sub_group_clustered_reduce_logical_and \
         sub_group_clustered_reduce_logical_or sub_group_clustered_reduce_logical_xor",
        &["G:G,u"],
    ),
    ("sub_group_ballot", &["Q:k"]),
    (
        "sub_group_ballot_bit_count sub_group_ballot_inclusive_scan \
         sub_group_ballot_exclusive_scan sub_group_ballot_find_lsb sub_group_ballot_find_msb",
        &["u:Q"],
    ),
    ("sub_group_inverse_ballot", &["k:Q"]),
    ("sub_group_ballot_bit_extract", &["k:Q,u"]),
    (
        "get_sub_group_eq_mask get_sub_group_ge_mask get_sub_group_gt_mask get_sub_group_le_mask \
         get_sub_group_lt_mask",
        &["Q:"],
    ),
];

fn table() -> &'static FxHashMap<&'static str, &'static [&'static str]> {
    static T: OnceLock<FxHashMap<&'static str, &'static [&'static str]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut m = FxHashMap::default();
        for (names, sigs) in TABLE {
            for n in names.split_whitespace() {
                m.insert(n, *sigs);
            }
        }
        m
    })
}

/// Whether `name` is a builtin of the table.
pub fn is_table_builtin(name: &str) -> bool {
    table().contains_key(name)
}

/// A resolved overload: the parameter types the arguments convert to and the result type.
#[derive(Debug, PartialEq)]
pub struct Overload {
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

fn try_sig(sig: &str, args: &[Type]) -> Option<Overload> {
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
    Some(Overload { params, ret })
}

/// Resolves a call of a table builtin. `None` when no overload accepts the arguments.
pub fn resolve(name: &str, args: &[Type]) -> Option<Overload> {
    let sigs = table().get(name)?;
    sigs.iter().find_map(|s| try_sig(s, args))
}

/// The signatures of a builtin as the diagnostics show them.
pub fn describe(name: &str) -> String {
    table().get(name).map(|s| s.join(" | ")).unwrap_or_default()
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

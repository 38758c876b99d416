//! OpenCL C builtins (`Inst::Builtin`), selected by [`Builtin`] and by
//! the argument and result types the front end resolved.
//!
//! Each family lives in its own file: [`math`] (float functions, including
//! the `native_` and `half_` forms, which the reference computes at full
//! precision), [`integer`], [`relational`] (comparisons, `select`, `any`,
//! `all`, `shuffle`), [`geometric`], and the ones that touch memory:
//! [`vmem`] (`vloadN`, `vstoreN` and their `half` forms), [`outparam`]
//! (`fract`, `sincos`, … which store a second result), [`async_copy`] and
//! [`image`]. Vector forms
//! work component-wise; a scalar argument given where the result is a
//! vector (`fmin(float4, float)`, `clamp(int8, int, int)`) applies to every
//! component.

mod async_copy;
mod geometric;
mod image;
mod integer;
mod math;
mod outparam;
pub mod printf;
mod relational;
mod vmem;

use crate::builtin::Builtin;
use crate::types::{AddressSpace, Scalar, StructDef, Type};

use super::memory::{Fault, Memory};

/// One argument: its type and its lanes for the current work-item.
pub struct Arg<'a> {
    pub ty: &'a Type,
    pub lanes: &'a [u64],
}

impl Arg<'_> {
    /// Component `i`, or the scalar itself for a scalar argument.
    fn lane(&self, i: usize) -> u64 {
        match self.lanes {
            [one] => *one,
            many => many.get(i).copied().unwrap_or(0),
        }
    }

    /// The element scalar (pointers read as `u64`).
    fn elem(&self) -> Scalar {
        self.ty.scalar().unwrap_or(Scalar::U64)
    }
}

/// Why a builtin call failed.
pub enum BuiltinError {
    /// No builtin of that name (or not for these types).
    Unsupported,
    Fault(Fault),
    BadArgs(String),
}

impl From<Fault> for BuiltinError {
    fn from(f: Fault) -> BuiltinError {
        BuiltinError::Fault(f)
    }
}

/// Components of a value type (1 for scalars).
fn width(ty: &Type) -> usize {
    match ty {
        Type::Vector(_, n) => usize::from(*n),
        Type::Void => 0,
        _ => 1,
    }
}

/// `to_global`, `to_local`, `to_private` (the pointer, or null when it
/// points into another address space) and `get_fence` (the fence flags of
/// the pointer's space: `CLK_LOCAL_MEM_FENCE` (1) for `__local`, else
/// `CLK_GLOBAL_MEM_FENCE` (2)), OpenCL C 2.0 6.13.9.
fn generic_cast(b: Builtin, args: &[Arg<'_>], mem: &Memory) -> Result<Vec<u64>, BuiltinError> {
    let bits = args
        .first()
        .ok_or_else(|| BuiltinError::BadArgs("a pointer argument is needed".into()))?
        .lane(0);
    let space = mem.space_of(super::memory::Ptr::decode(bits));
    let want = match b {
        Builtin::ToGlobal => AddressSpace::Global,
        Builtin::ToLocal => AddressSpace::Local,
        Builtin::ToPrivate => AddressSpace::Private,
        _ => {
            return Ok(vec![match space {
                Some(AddressSpace::Local) => 1,
                _ => 2,
            }])
        }
    };
    Ok(vec![if space == Some(want) { bits } else { 0 }])
}

/// Evaluates builtin `b` for one work-item. Every builtin is listed: a new
/// one does not compile until the interpreter says how it runs.
pub fn call(
    b: Builtin,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
    structs: &[StructDef],
) -> Result<Vec<u64>, BuiltinError> {
    use Builtin::*;
    let r = match b {
        // Value functions: the argument and result types choose between
        // the float and the integer forms of `min`, `abs`, `clamp`, ….
        Acos | Acosh | Acospi | Asin | Asinh | Asinpi | Atan | Atanh | Atanpi | Cbrt | Ceil
        | Cos | Cosh | Cospi | Erfc | Erf | Exp | Exp2 | Exp10 | Expm1 | Fabs | Floor | Lgamma
        | Log | Log2 | Log10 | Log1p | Logb | Rint | Round | Rsqrt | Sin | Sinh | Sinpi | Sqrt
        | Tan | Tanh | Tanpi | Tgamma | Trunc | NativeCos | NativeExp | NativeExp2
        | NativeExp10 | NativeLog | NativeLog2 | NativeLog10 | NativeRecip | NativeRsqrt
        | NativeSin | NativeSqrt | NativeTan | HalfCos | HalfExp | HalfExp2 | HalfExp10
        | HalfLog | HalfLog2 | HalfLog10 | HalfRecip | HalfRsqrt | HalfSin | HalfSqrt | HalfTan
        | Atan2 | Atan2pi | Copysign | Fdim | Fmod | Hypot | Maxmag | Minmag | Nextafter | Pow
        | Powr | Remainder | NativeDivide | NativePowr | HalfDivide | HalfPowr | Fmax | Fmin
        | Fma | Mad | Ldexp | Pown | Rootn | Ilogb | Nan | Abs | AbsDiff | AddSat | Hadd
        | Rhadd | Clz | Ctz | MadHi | MadSat | MulHi | Rotate | SubSat | Popcount | Mad24
        | Mul24 | Upsample | Clamp | Degrees | Max | Min | Mix | Radians | Step | Smoothstep
        | Sign | Cross | Dot | Distance | Length | Normalize | FastDistance | FastLength
        | FastNormalize | Isequal | Isnotequal | Isgreater | Isgreaterequal | Isless
        | Islessequal | Islessgreater | Isfinite | Isinf | Isnan | Isnormal | Isordered
        | Isunordered | Signbit | Any | All | Bitselect | Select | Shuffle | Shuffle2
        | ContractFma => {
            let first_is_float = args.first().is_some_and(|a| a.elem().is_float());
            if first_is_float || ret.scalar().is_some_and(Scalar::is_float) && !b.is_relational() {
                math::call(b, args, ret)
                    .or_else(|| geometric::call(b, args, ret))
                    .or_else(|| relational::call(b, args, ret))
            } else {
                integer::call(b, args, ret).or_else(|| relational::call(b, args, ret))
            }
        }
        Fract | Modf | Sincos | Frexp | LgammaR | Remquo => {
            outparam::call(b, args, ret, mem, structs)
        }
        crate::vector_data_builtins!() => vmem::call(b, args, ret, mem, structs),
        AsyncWorkGroupCopy | AsyncWorkGroupStridedCopy | WaitGroupEvents => {
            async_copy::call(b, args, ret, mem, structs)
        }
        ReadImagef
        | ReadImagei
        | ReadImageui
        | WriteImagef
        | WriteImagei
        | WriteImageui
        | GetImageWidth
        | GetImageHeight
        | GetImageDepth
        | GetImageArraySize
        | GetImageDim
        | GetImageChannelDataType
        | GetImageChannelOrder => image::call(b, args, ret, mem),
        ToGlobal | ToLocal | ToPrivate | GetFence => Some(generic_cast(b, args, mem)),
        // A hint only.
        Prefetch => Some(Ok(Vec::new())),
        // Run by the executor: printf writes to the launch's output, the
        // collectives and sub-group functions see the whole (sub-)group.
        Printf | crate::work_group_builtins!() | crate::sub_group_builtins!() => Some(Err(
            BuiltinError::BadArgs(format!("`{b}` evaluated for one work-item")),
        )),
        // The JIT's own step, never in a module the interpreter runs.
        WorkGroupCombine => None,
    };
    r.unwrap_or(Err(BuiltinError::Unsupported))
}

//! OpenCL C builtins (`Inst::Builtin`), selected by name and by the
//! argument and result types the front end resolved.
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
fn generic_cast(name: &str, args: &[Arg<'_>], mem: &Memory) -> Option<u64> {
    let want = match name {
        "to_global" => AddressSpace::Global,
        "to_local" => AddressSpace::Local,
        "to_private" => AddressSpace::Private,
        "get_fence" => {
            let p = super::memory::Ptr::decode(args.first()?.lane(0));
            return Some(match mem.space_of(p) {
                Some(AddressSpace::Local) => 1,
                _ => 2,
            });
        }
        _ => return None,
    };
    let bits = args.first()?.lane(0);
    let space = mem.space_of(super::memory::Ptr::decode(bits));
    Some(if space == Some(want) { bits } else { 0 })
}

/// Evaluates builtin `name` for one work-item.
pub fn call(
    name: &str,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
    structs: &[StructDef],
) -> Result<Vec<u64>, BuiltinError> {
    let memory_builtin = vmem::call(name, args, ret, mem, structs)
        .or_else(|| outparam::call(name, args, ret, mem, structs))
        .or_else(|| async_copy::call(name, args, ret, mem, structs))
        .or_else(|| image::call(name, args, ret, mem));
    if let Some(r) = memory_builtin {
        return r;
    }
    if name == "prefetch" {
        return Ok(Vec::new());
    }
    if let Some(r) = generic_cast(name, args, mem) {
        return Ok(vec![r]);
    }
    let first_is_float = args.first().is_some_and(|a| a.elem().is_float());
    let r = if first_is_float
        || ret.scalar().is_some_and(Scalar::is_float) && !relational::is_relational(name)
    {
        math::call(name, args, ret)
            .or_else(|| geometric::call(name, args, ret))
            .or_else(|| relational::call(name, args, ret))
    } else {
        integer::call(name, args, ret).or_else(|| relational::call(name, args, ret))
    };
    r.unwrap_or(Err(BuiltinError::Unsupported))
}

//! The image builtins (`read_image{f,i,ui}`, `write_image{f,i,ui}`,
//! `get_image_*`) over the image arguments of the launch, through the
//! functions of [`crate::image`] that the JIT's host calls share.
//!
//! Operands are those the front end gives: the image (a pointer to the start
//! of a [`KernelArg::Image`](crate::interp::KernelArg::Image) region), the
//! sampler as `u32` for the sampling forms, the coordinate (`int`/`float`,
//! 1, 2 or 4 components) and for writes the colour.

use crate::builtin::Builtin;
use crate::image::{self, Coord, PixelValue, ValueClass};
use crate::types::{Scalar, Type};

use super::super::memory::{Memory, Ptr};
use super::{Arg, BuiltinError};

/// `None` when `name` is not an image builtin.
pub fn call(
    name: Builtin,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
) -> Option<Result<Vec<u64>, BuiltinError>> {
    Some(image_call(name, args, ret, mem))
}

fn not_an_image() -> BuiltinError {
    BuiltinError::BadArgs("the first argument is not an image argument of the launch".into())
}

/// Whether `name` reads or writes, and the value class it does so in.
fn access_of(name: Builtin) -> Option<(bool, ValueClass)> {
    Some(match name {
        Builtin::ReadImagef => (true, ValueClass::Float),
        Builtin::ReadImagei => (true, ValueClass::Int),
        Builtin::ReadImageui => (true, ValueClass::Uint),
        Builtin::WriteImagef => (false, ValueClass::Float),
        Builtin::WriteImagei => (false, ValueClass::Int),
        Builtin::WriteImageui => (false, ValueClass::Uint),
        _ => return None,
    })
}

/// A coordinate operand as (x, y, z, w).
fn coord(a: &Arg<'_>) -> Coord {
    let lane = |i: usize| a.lanes.get(i).copied().unwrap_or(0) as u32;
    let bits: [u32; 4] = std::array::from_fn(lane);
    if a.ty.scalar() == Some(Scalar::F32) {
        Coord::Float(bits.map(f32::from_bits))
    } else {
        Coord::Int(bits.map(|b| b as i32))
    }
}

fn image_call(
    name: Builtin,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
) -> Result<Vec<u64>, BuiltinError> {
    let img = Ptr::decode(
        args.first()
            .and_then(|a| a.lanes.first())
            .copied()
            .unwrap_or(0),
    );
    let access = access_of(name);
    if let Some((true, class)) = access {
        let (sampler, c) = match args {
            [_, s, c] => (Some(s.lanes.first().copied().unwrap_or(0) as u32), c),
            [_, c] => (None, c),
            _ => return Err(BuiltinError::BadArgs("takes 2 or 3 arguments".into())),
        };
        let (desc, pixels) = mem.image(img).ok_or_else(not_an_image)?;
        let v = image::read_image(desc, pixels, sampler, coord(c), class);
        return Ok(v.bits().iter().map(|b| u64::from(*b)).collect());
    }
    if let Some((false, class)) = access {
        let [_, c, color] = args else {
            return Err(BuiltinError::BadArgs("takes 3 arguments".into()));
        };
        let bits: [u32; 4] =
            std::array::from_fn(|i| color.lanes.get(i).copied().unwrap_or(0) as u32);
        let at = match coord(c) {
            Coord::Int(v) => v,
            Coord::Float(_) => {
                return Err(BuiltinError::BadArgs("the coordinate must be int".into()))
            }
        };
        let (desc, pixels) = mem.image_mut(img).ok_or_else(not_an_image)?;
        image::write_image(&desc, pixels, at, PixelValue::from_bits(class, bits));
        return Ok(Vec::new());
    }
    let (desc, _) = mem.image(img).ok_or_else(not_an_image)?;
    let int = |n: u64| u64::from(i32::try_from(n).unwrap_or(i32::MAX) as u32);
    Ok(match name {
        Builtin::GetImageWidth => vec![int(desc.width)],
        Builtin::GetImageHeight => vec![int(desc.height)],
        Builtin::GetImageDepth => vec![int(desc.depth)],
        Builtin::GetImageArraySize => vec![desc.array_size],
        Builtin::GetImageChannelDataType => vec![u64::from(desc.channel_type)],
        Builtin::GetImageChannelOrder => vec![u64::from(desc.channel_order)],
        Builtin::GetImageDim => {
            let n = match ret {
                Type::Vector(_, n) => usize::from(*n),
                _ => 2,
            };
            image::image_dim(desc)[..n.min(4)]
                .iter()
                .map(|d| u64::from(*d as u32))
                .collect()
        }
        _ => return Err(BuiltinError::Unsupported),
    })
}

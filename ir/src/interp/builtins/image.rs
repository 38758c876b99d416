//! The image builtins (`read_image{f,i,ui}`, `write_image{f,i,ui}`,
//! `get_image_*`) over the image arguments of the launch, through the
//! functions of [`crate::image`] that the JIT's host calls share.
//!
//! Operands are those the front end gives: the image (a pointer to the start
//! of a [`KernelArg::Image`](crate::interp::KernelArg::Image) region), the
//! sampler as `u32` for the sampling forms, the coordinate (`int`/`float`,
//! 1, 2 or 4 components) and for writes the colour.

use crate::image::{self, Coord, PixelValue, ValueClass};
use crate::types::{Scalar, Type};

use super::super::memory::{Memory, Ptr};
use super::{Arg, BuiltinError};

/// `None` when `name` is not an image builtin.
pub fn call(
    name: &str,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
) -> Option<Result<Vec<u64>, BuiltinError>> {
    let is_image_fn = name.starts_with("read_image")
        || name.starts_with("write_image")
        || name.starts_with("get_image_");
    if !is_image_fn {
        return None;
    }
    Some(image_call(name, args, ret, mem))
}

fn not_an_image() -> BuiltinError {
    BuiltinError::BadArgs("the first argument is not an image argument of the launch".into())
}

/// The value class a `read_image*`/`write_image*` name selects.
fn class_of(suffix: &str) -> Option<ValueClass> {
    Some(match suffix {
        "f" => ValueClass::Float,
        "i" => ValueClass::Int,
        "ui" => ValueClass::Uint,
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
    name: &str,
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
    if let Some(suffix) = name.strip_prefix("read_image") {
        let class = class_of(suffix).ok_or(BuiltinError::Unsupported)?;
        let (sampler, c) = match args {
            [_, s, c] => (Some(s.lanes.first().copied().unwrap_or(0) as u32), c),
            [_, c] => (None, c),
            _ => return Err(BuiltinError::BadArgs("takes 2 or 3 arguments".into())),
        };
        let (desc, pixels) = mem.image(img).ok_or_else(not_an_image)?;
        let v = image::read_image(desc, pixels, sampler, coord(c), class);
        return Ok(v.bits().iter().map(|b| u64::from(*b)).collect());
    }
    if let Some(suffix) = name.strip_prefix("write_image") {
        let class = class_of(suffix).ok_or(BuiltinError::Unsupported)?;
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
        "get_image_width" => vec![int(desc.width)],
        "get_image_height" => vec![int(desc.height)],
        "get_image_depth" => vec![int(desc.depth)],
        "get_image_array_size" => vec![desc.array_size],
        "get_image_channel_data_type" => vec![u64::from(desc.channel_type)],
        "get_image_channel_order" => vec![u64::from(desc.channel_order)],
        "get_image_dim" => {
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

//! Images and samplers in OpenCL C: their types while lowering, the image
//! builtins (`read_image*`, `write_image*`, `get_image_*`) with their
//! overloads, the `CLK_*` names of sampler bits and image formats, and the
//! checks that keep images opaque.
//!
//! While a unit is lowered, an image type is a `__global` pointer to a
//! pointee no OpenCL C can spell (a `bool` vector whose length names the
//! image type), so each image type is distinct from every other type and
//! from the others. When lowering ends, [`finish`] checks every use of an
//! image value (OpenCL C 1.2 §6.9 b: an image can only be a function
//! argument; it cannot be assigned, compared, stored, converted or have its
//! address taken) and rewrites every image type into the `ptr global u8`
//! the IR and the kernel ABI carry (see `vecl_ir::image`). A `sampler_t` is
//! a `uint` of the `vecl_ir::image::SAMPLER_*` bits throughout.
//!
//! Builtins lower to `Inst::Builtin` with these operands:
//! - `read_image{f,i,ui}`: (image, sampler `u32`, coordinate) or (image,
//!   coordinate) for the sampler-less forms; the coordinate is `float`/`int`
//!   of 1, 2 or 4 components as the image type wants; the result is
//!   `float4`/`int4`/`uint4`;
//! - `write_image{f,i,ui}`: (image, `int` coordinate, `float4`/`int4`/
//!   `uint4` colour), `void`;
//! - `read_imageh` / `write_imageh` (`cl_khr_fp16`) are `read_imagef`
//!   with its result converted to `half4` (rounded to nearest even) and
//!   `write_imagef` of the `half4` colour widened to `float4` (exact).
//! - `get_image_width/height/depth/channel_data_type/channel_order`:
//!   (image) → `int`; `get_image_array_size` → `size_t`; `get_image_dim` →
//!   `int2` (2-D images and arrays) or `int4` (3-D).

use super::expr::Val;
use super::{LResult, Lowerer};
use crate::ast::Expr;
use crate::diag::{Diags, Pos};
use vecl_ir::image::SAMPLER_NORMALIZED;
use vecl_ir::image::{channel, order, SAMPLER_ADDRESS_CLAMP, SAMPLER_ADDRESS_CLAMP_TO_EDGE};
use vecl_ir::image::{SAMPLER_ADDRESS_MIRRORED_REPEAT, SAMPLER_ADDRESS_NONE};
use vecl_ir::image::{SAMPLER_ADDRESS_REPEAT, SAMPLER_FILTER_LINEAR, SAMPLER_FILTER_NEAREST};
use vecl_ir::*;

/// The six image types of OpenCL C 1.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ImageKind {
    D1,
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
}

/// The first vector length that marks an image pointee; `bool` vectors of
/// these lengths exist nowhere else. The length is `TAG_BASE + 3 · kind +
/// access` (access 0 `read_only`, 1 `write_only`, 2 `read_write`), so
/// images of different access are different types, as in clang.
const TAG_BASE: u8 = 0xe0;
const ACCESSES: [AccessQualifier; 3] = [
    AccessQualifier::ReadOnly,
    AccessQualifier::WriteOnly,
    AccessQualifier::ReadWrite,
];
const KINDS: [ImageKind; 6] = [
    ImageKind::D1,
    ImageKind::D1Buffer,
    ImageKind::D1Array,
    ImageKind::D2,
    ImageKind::D2Array,
    ImageKind::D3,
];

impl ImageKind {
    pub(super) fn from_name(name: &str) -> Option<ImageKind> {
        KINDS.into_iter().find(|k| k.name() == name)
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            ImageKind::D1 => "image1d_t",
            ImageKind::D1Buffer => "image1d_buffer_t",
            ImageKind::D1Array => "image1d_array_t",
            ImageKind::D2 => "image2d_t",
            ImageKind::D2Array => "image2d_array_t",
            ImageKind::D3 => "image3d_t",
        }
    }

    /// The type an image of this kind and access has while lowering
    /// (no qualifier written means `read_only`).
    pub(super) fn ty(self, access: AccessQualifier) -> Type {
        let kind = KINDS.iter().position(|k| *k == self).unwrap_or(0) as u8;
        let access = ACCESSES.iter().position(|a| *a == access).unwrap_or(0) as u8;
        let tag = TAG_BASE + 3 * kind + access;
        Type::ptr(AddressSpace::Global, Type::Vector(Scalar::Bool, tag))
    }

    /// The image kind and access of a lowering type, if it is an image.
    pub(super) fn with_access(ty: &Type) -> Option<(ImageKind, AccessQualifier)> {
        match ty {
            Type::Pointer(AddressSpace::Global, inner) => match **inner {
                Type::Vector(Scalar::Bool, tag) if tag >= TAG_BASE => {
                    let i = usize::from(tag - TAG_BASE);
                    Some((*KINDS.get(i / 3)?, ACCESSES[i % 3]))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The image kind of a lowering type, if it is one.
    pub(super) fn of(ty: &Type) -> Option<ImageKind> {
        ImageKind::with_access(ty).map(|(k, _)| k)
    }

    /// Components of a read or write coordinate.
    fn coord_lanes(self) -> u8 {
        match self {
            ImageKind::D1 | ImageKind::D1Buffer => 1,
            ImageKind::D1Array | ImageKind::D2 => 2,
            ImageKind::D2Array | ImageKind::D3 => 4,
        }
    }
}

/// Whether `ty` is what an image points to while lowering (which
/// diagnostics call image data).
pub(super) fn is_image_data(ty: &Type) -> bool {
    matches!(ty, Type::Vector(Scalar::Bool, tag) if *tag >= TAG_BASE)
}

/// The OpenCL C spelling of an image type (`image2d_t`,
/// `write_only image3d_t`), for diagnostics.
pub(super) fn spelling(ty: &Type) -> Option<String> {
    let (kind, access) = ImageKind::with_access(ty)?;
    Some(match access {
        AccessQualifier::WriteOnly => format!("write_only {}", kind.name()),
        AccessQualifier::ReadWrite => format!("read_write {}", kind.name()),
        _ => kind.name().into(),
    })
}

/// Whether a lowering type is or contains an image type.
fn contains_image(ty: &Type) -> bool {
    ImageKind::of(ty).is_some()
        || match ty {
            Type::Pointer(_, inner) | Type::Array(inner, _) => contains_image(inner),
            _ => false,
        }
}

/// The predefined macros of images: `__IMAGE_SUPPORT__`, the sampler bits
/// and the channel order and type codes (the `cl.h` values, which
/// `get_image_channel_order`/`_data_type` return).
pub(crate) fn macros() -> Vec<(String, String)> {
    let mut m: Vec<(&str, u32)> = vec![
        ("__IMAGE_SUPPORT__", 1),
        ("CLK_NORMALIZED_COORDS_FALSE", 0),
        ("CLK_NORMALIZED_COORDS_TRUE", SAMPLER_NORMALIZED),
        ("CLK_ADDRESS_NONE", SAMPLER_ADDRESS_NONE),
        ("CLK_ADDRESS_CLAMP_TO_EDGE", SAMPLER_ADDRESS_CLAMP_TO_EDGE),
        ("CLK_ADDRESS_CLAMP", SAMPLER_ADDRESS_CLAMP),
        ("CLK_ADDRESS_REPEAT", SAMPLER_ADDRESS_REPEAT),
        (
            "CLK_ADDRESS_MIRRORED_REPEAT",
            SAMPLER_ADDRESS_MIRRORED_REPEAT,
        ),
        ("CLK_FILTER_NEAREST", SAMPLER_FILTER_NEAREST),
        ("CLK_FILTER_LINEAR", SAMPLER_FILTER_LINEAR),
    ];
    m.extend([
        ("CLK_R", order::R),
        ("CLK_A", order::A),
        ("CLK_RG", order::RG),
        ("CLK_RA", order::RA),
        ("CLK_RGB", order::RGB),
        ("CLK_RGBA", order::RGBA),
        ("CLK_BGRA", order::BGRA),
        ("CLK_ARGB", order::ARGB),
        ("CLK_INTENSITY", order::INTENSITY),
        ("CLK_LUMINANCE", order::LUMINANCE),
        ("CLK_Rx", order::RX),
        ("CLK_RGx", order::RGX),
        ("CLK_RGBx", order::RGBX),
        ("CLK_SNORM_INT8", channel::SNORM_INT8),
        ("CLK_SNORM_INT16", channel::SNORM_INT16),
        ("CLK_UNORM_INT8", channel::UNORM_INT8),
        ("CLK_UNORM_INT16", channel::UNORM_INT16),
        ("CLK_UNORM_SHORT_565", channel::UNORM_SHORT_565),
        ("CLK_UNORM_SHORT_555", channel::UNORM_SHORT_555),
        ("CLK_UNORM_INT_101010", channel::UNORM_INT_101010),
        ("CLK_SIGNED_INT8", channel::SIGNED_INT8),
        ("CLK_SIGNED_INT16", channel::SIGNED_INT16),
        ("CLK_SIGNED_INT32", channel::SIGNED_INT32),
        ("CLK_UNSIGNED_INT8", channel::UNSIGNED_INT8),
        ("CLK_UNSIGNED_INT16", channel::UNSIGNED_INT16),
        ("CLK_UNSIGNED_INT32", channel::UNSIGNED_INT32),
        ("CLK_HALF_FLOAT", channel::HALF_FLOAT),
        ("CLK_FLOAT", channel::FLOAT),
    ]);
    m.into_iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

/// The element a read or write builtin's name selects: `f`, `i` or `ui`.
fn pixel_type(name: &str, prefix: &str) -> Option<Type> {
    Some(match name.strip_prefix(prefix)? {
        "f" => Type::Vector(Scalar::F32, 4),
        "i" => Type::Vector(Scalar::I32, 4),
        "ui" => Type::Vector(Scalar::U32, 4),
        "h" => Type::Vector(Scalar::F16, 4),
        _ => return None,
    })
}

impl Lowerer<'_> {
    /// Lowers a call of an image builtin; `None` when `name` is not one.
    pub(super) fn image_call(
        &mut self,
        name: &str,
        args: &[Expr],
        pos: Pos,
    ) -> LResult<Option<Val>> {
        if let Some(ret) = pixel_type(name, "read_image") {
            return self.read_image(name, ret, args, pos).map(Some);
        }
        if let Some(color) = pixel_type(name, "write_image") {
            return self.write_image(name, color, args, pos).map(Some);
        }
        let query: &[ImageKind] = match name {
            "get_image_width" | "get_image_channel_data_type" | "get_image_channel_order" => &KINDS,
            "get_image_height" => &[ImageKind::D2, ImageKind::D2Array, ImageKind::D3],
            "get_image_depth" => &[ImageKind::D3],
            "get_image_array_size" => &[ImageKind::D1Array, ImageKind::D2Array],
            "get_image_dim" => &[ImageKind::D2, ImageKind::D2Array, ImageKind::D3],
            _ => return Ok(None),
        };
        if args.len() != 1 {
            return self.err(
                pos,
                format!(
                    "too {} arguments to function call '{name}': expected 1, have {}",
                    if args.is_empty() { "few" } else { "many" },
                    args.len()
                ),
            );
        }
        let (img, ty) = self.rvalue(&args[0])?;
        let kind = match ImageKind::of(&ty) {
            Some(k) if query.contains(&k) => k,
            _ => {
                let wanted: Vec<&str> = query.iter().map(|k| k.name()).collect();
                let t = self.type_str(&ty);
                return self.err(
                    args[0].pos,
                    format!(
                        "no matching function for call to '{name}' with '{t}'; candidates take {}",
                        wanted.join(", ")
                    ),
                );
            }
        };
        let ret = match name {
            "get_image_array_size" => Type::U64,
            "get_image_dim" if kind == ImageKind::D3 => Type::Vector(Scalar::I32, 4),
            "get_image_dim" => Type::Vector(Scalar::I32, 2),
            _ => Type::I32,
        };
        self.set_pos(pos);
        let r = self
            .b()
            .push(Inst::Builtin(name.into(), vec![img]), ret.clone());
        Ok(Some(Val::R(r, ret)))
    }

    /// The image operand of a read or write: its value and kind. Reads
    /// need an image that is not `write_only`, writes one that is not
    /// `read_only`.
    fn image_operand(&mut self, name: &str, arg: &Expr) -> LResult<(ValueId, ImageKind)> {
        let (v, ty) = self.rvalue(arg)?;
        let forbidden = if name.starts_with("read") {
            AccessQualifier::WriteOnly
        } else {
            AccessQualifier::ReadOnly
        };
        match ImageKind::with_access(&ty) {
            Some((k, access)) if access == forbidden => {
                let (what, verb) = if name.starts_with("read") {
                    ("write_only", "read")
                } else {
                    ("read_only", "written")
                };
                self.err(
                    arg.pos,
                    format!(
                        "no matching function for call to '{name}': a {what} '{}' cannot be {verb}",
                        k.name()
                    ),
                )
            }
            Some((k, _)) => Ok((v, k)),
            None => {
                let t = self.type_str(&ty);
                self.err(
                    arg.pos,
                    format!("no matching function for call to '{name}': the first argument must be an image, not '{t}'"),
                )
            }
        }
    }

    /// A coordinate operand: exactly `lanes` components of `float` (when
    /// `float_ok`) or `int`.
    fn coord_operand(
        &mut self,
        name: &str,
        kind: ImageKind,
        arg: &Expr,
        float_ok: bool,
    ) -> LResult<ValueId> {
        let (v, ty) = self.rvalue(arg)?;
        let lanes = kind.coord_lanes();
        let fits = |s: Scalar| match ty {
            Type::Scalar(t) => lanes == 1 && t == s,
            Type::Vector(t, n) => lanes > 1 && n == lanes && t == s,
            _ => false,
        };
        if fits(Scalar::I32) || float_ok && fits(Scalar::F32) {
            return Ok(v);
        }
        let suffix = if lanes == 1 {
            String::new()
        } else {
            lanes.to_string()
        };
        let wanted = if float_ok {
            format!("'int{suffix}' or 'float{suffix}'")
        } else {
            format!("'int{suffix}'")
        };
        let t = self.type_str(&ty);
        self.err(
            arg.pos,
            format!(
                "no matching function for call to '{name}' with '{}': the coordinate must be {wanted}, not '{t}'",
                kind.name()
            ),
        )
    }

    fn read_image(&mut self, name: &str, ret: Type, args: &[Expr], pos: Pos) -> LResult<Val> {
        if !matches!(args.len(), 2 | 3) {
            return self.err(
                pos,
                format!(
                    "too {} arguments to function call '{name}': expected 2 or 3, have {}",
                    if args.len() > 3 { "many" } else { "few" },
                    args.len()
                ),
            );
        }
        let (img, kind) = self.image_operand(name, &args[0])?;
        let mut ops = vec![img];
        if args.len() == 3 {
            if kind == ImageKind::D1Buffer {
                return self.err(
                    args[1].pos,
                    format!("no matching function for call to '{name}': an 'image1d_buffer_t' is read without a sampler"),
                );
            }
            let (s, st) = self.rvalue(&args[1])?;
            if !matches!(st, Type::Scalar(sc) if sc.is_int() && sc != Scalar::Bool) {
                let t = self.type_str(&st);
                return self.err(
                    args[1].pos,
                    format!("no matching function for call to '{name}': the second argument must be a 'sampler_t', not '{t}'"),
                );
            }
            ops.push(self.convert(s, &st, &Type::U32, args[1].pos, false)?);
        }
        let float_ok = args.len() == 3;
        ops.push(self.coord_operand(name, kind, &args[args.len() - 1], float_ok)?);
        self.set_pos(pos);
        if ret == Type::Vector(Scalar::F16, 4) {
            // `read_imageh`: the float texel rounded to half.
            let f = self.b().push(
                Inst::Builtin("read_imagef".into(), ops),
                Type::Vector(Scalar::F32, 4),
            );
            let r = self.b().push(
                Inst::Convert {
                    value: f,
                    saturate: false,
                    rounding: Rounding::Default,
                },
                ret.clone(),
            );
            return Ok(Val::R(r, ret));
        }
        let r = self.b().push(Inst::Builtin(name.into(), ops), ret.clone());
        Ok(Val::R(r, ret))
    }

    fn write_image(&mut self, name: &str, color: Type, args: &[Expr], pos: Pos) -> LResult<Val> {
        if args.len() != 3 {
            return self.err(
                pos,
                format!(
                    "too {} arguments to function call '{name}': expected 3, have {}",
                    if args.len() > 3 { "many" } else { "few" },
                    args.len()
                ),
            );
        }
        let (img, kind) = self.image_operand(name, &args[0])?;
        let coord = self.coord_operand(name, kind, &args[1], false)?;
        let (c, ct) = self.rvalue(&args[2])?;
        if ct != color {
            let (t, w) = (self.type_str(&ct), self.type_str(&color));
            return self.err(
                args[2].pos,
                format!("no matching function for call to '{name}': the colour must be '{w}', not '{t}'"),
            );
        }
        self.set_pos(pos);
        let (name, c) = if color == Type::Vector(Scalar::F16, 4) {
            // `write_imageh`: the half texel widened (exactly) to float.
            let f = self.b().push(
                Inst::Convert {
                    value: c,
                    saturate: false,
                    rounding: Rounding::Default,
                },
                Type::Vector(Scalar::F32, 4),
            );
            ("write_imagef", f)
        } else {
            (name, c)
        };
        self.b()
            .push(Inst::Builtin(name.into(), vec![img, coord, c]), Type::Void);
        Ok(Val::Void)
    }
}

/// Checks every use of an image value in `module` and rewrites image types
/// into `ptr global u8`; image kernel arguments without an access
/// qualifier become `read_only`.
pub(super) fn finish(module: &mut Module, diags: &mut Diags) {
    let u8_ptr = Type::ptr(AddressSpace::Global, Type::Scalar(Scalar::U8));
    let erase = |t: &mut Type| {
        if ImageKind::of(t).is_some() {
            *t = u8_ptr.clone();
        }
    };
    for g in &module.globals {
        if contains_image(&g.ty) {
            diags.error(
                Pos::default(),
                format!(
                    "program scope variable '{}' cannot have an image type",
                    g.name
                ),
            );
        }
    }
    for f in &mut module.functions {
        if let Some(msg) = misuse(f) {
            diags.error(msg.0, msg.1);
        }
        if let Some(info) = f.kernel.as_mut() {
            for (a, p) in info.args.iter_mut().zip(&f.params) {
                if ImageKind::of(&p.ty).is_some() && a.access == AccessQualifier::None {
                    a.access = AccessQualifier::ReadOnly;
                }
            }
        }
        for p in &mut f.params {
            erase(&mut p.ty);
        }
        for v in &mut f.vars {
            erase(&mut v.ty);
        }
        for i in &mut f.insts {
            erase(&mut i.ty);
        }
    }
}

/// The first misuse of an image value in `f`: where and what.
fn misuse(f: &Function) -> Option<(Pos, String)> {
    let at = |v: ValueId| {
        let loc = f.inst(v).loc;
        Pos {
            file: 0,
            line: loc.line,
            col: loc.col,
        }
    };
    let is_image = |v: &ValueId| ImageKind::of(f.ty(*v)).is_some();
    if contains_image(&f.ret) {
        return Some((
            Pos::default(),
            format!("function '{}' cannot return an image type", f.name),
        ));
    }
    if let Some(s) = f.slots.iter().find(|s| contains_image(&s.ty)) {
        // The first address is the parameter's spill at entry; the last is
        // the kernel's own `&`.
        let last = (0..f.insts.len()).map(|i| ValueId(i as u32)).rfind(
            |v| matches!(f.inst(*v).inst, Inst::SlotAddr(id) if f.slots[id.index()].name == s.name),
        );
        let pos = last.map(at).unwrap_or_default();
        return Some((
            pos,
            format!("cannot take the address of image '{}'", s.name),
        ));
    }
    for (i, data) in f.insts.iter().enumerate() {
        let v = ValueId(i as u32);
        let what = match &data.inst {
            Inst::Cmp(_, a, b) if is_image(a) || is_image(b) => "compared",
            Inst::Unary(_, a) | Inst::Binary(_, a, _) if is_image(a) => "used in arithmetic",
            Inst::Binary(_, _, b) if is_image(b) => "used in arithmetic",
            Inst::Select(_, a, b) if is_image(a) || is_image(b) => "selected by a conditional",
            Inst::Index(a, _) | Inst::Load(a) | Inst::Elem(a, _) if is_image(a) => {
                "dereferenced: their elements cannot be accessed directly"
            }
            Inst::PtrCast(a) if is_image(a) && ImageKind::of(&data.ty).is_some() => {
                let from = spelling(f.ty(*a)).unwrap_or_default();
                let to = spelling(&data.ty).unwrap_or_default();
                return Some((at(v), format!("passing '{from}' where '{to}' is expected: image types of different kinds or access qualifiers are incompatible")));
            }
            Inst::Convert { value: a, .. }
            | Inst::Bitcast(a)
            | Inst::PtrCast(a)
            | Inst::PtrToInt(a)
                if is_image(a) =>
            {
                // A comparison of pointers converts both sides first.
                let cmp = f
                    .insts
                    .iter()
                    .find(|d| matches!(d.inst, Inst::Cmp(_, x, y) if x == v || y == v));
                if let Some(c) = cmp {
                    let pos = Pos {
                        file: 0,
                        line: c.loc.line,
                        col: c.loc.col,
                    };
                    return Some((pos, "image types cannot be compared".into()));
                }
                "converted to another type"
            }
            _ if contains_image(&data.ty) && ImageKind::of(&data.ty).is_none() => {
                "pointed to or put in arrays"
            }
            _ => continue,
        };
        return Some((at(v), format!("image types cannot be {what}")));
    }
    misuse_in(f, &f.body, &at)
}

fn misuse_in(f: &Function, block: &Block, at: &dyn Fn(ValueId) -> Pos) -> Option<(Pos, String)> {
    let is_image = |v: &ValueId| ImageKind::of(f.ty(*v)).is_some();
    for s in &block.0 {
        let found = match s {
            Stmt::WriteVar(_, v) if is_image(v) && !matches!(f.inst(*v).inst, Inst::Param(_)) => {
                Some((at(*v), "image types cannot be assigned".to_string()))
            }
            Stmt::Store { value, .. } if is_image(value) => Some((
                at(*value),
                "image types cannot be stored in memory".to_string(),
            )),
            Stmt::Return(Some(v)) if is_image(v) => {
                Some((at(*v), "image types cannot be returned".to_string()))
            }
            Stmt::If { then_, else_, .. } => {
                misuse_in(f, then_, at).or_else(|| misuse_in(f, else_, at))
            }
            Stmt::Loop { body, continuing } => {
                misuse_in(f, body, at).or_else(|| misuse_in(f, continuing, at))
            }
            Stmt::Switch { cases, .. } => cases.iter().find_map(|c| misuse_in(f, &c.body, at)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

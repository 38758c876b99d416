//! Images and samplers: `OpSampledImage`, `OpImageRead`, `OpImageWrite`,
//! `OpImageSampleExplicitLod` (level of detail 0), `OpImageQuerySize(Lod)`,
//! `OpImageQueryFormat` and `OpImageQueryOrder` → the image builtins of the
//! OpenCL C front end (`read_image*`, `write_image*`, `get_image_*`), on
//! the same values: an image is a `ptr global u8` to the runtime's
//! descriptor, a sampler a `u32` of `vecl_ir::image::SAMPLER_*` bits.
//!
//! - Integers are signless: an integer texel is read with `read_imageui`,
//!   which gives the bits `read_imagei` gives (the channel type decides
//!   the conversion; the result is reinterpreted). A write must know the
//!   texel's sign to saturate it: the `SignExtend` / `ZeroExtend` image
//!   operands say it; without them the image's channel type decides at
//!   run time (`write_imagei` for the signed channel types).
//! - `OpImageQueryFormat` and `OpImageQueryOrder` give SPIR-V's
//!   `ImageChannelDataType` / `ImageChannelOrder` enumerants: the
//!   `CL_*` code minus the first one (`CL_SNORM_INT8`, `CL_R`), as the
//!   OpenCL SPIR-V environment specifies.
//! - A coordinate has the components the OpenCL C builtin takes for the
//!   image type: fewer are padded with zeros, more are cut.

use crate::error::Result;
use crate::function::{FnCx, Inst_, Val};
use crate::module::{result_id, result_type, word_of, Const, ImageType, SType};
use crate::reader::Inst;
use rspirv::dr::Operand;
use rspirv::spirv::Op;
use vecl_ir::image::{channel, order};
use vecl_ir::*;

/// `ImageOperands` bits.
const LOD: u32 = 0x2;
const SIGN_EXTEND: u32 = 0x1000;
const ZERO_EXTEND: u32 = 0x2000;
/// Hints with no effect here (`Nontemporal`).
const HINTS: u32 = 0x4000;

/// Whether `op` is translated here.
pub(crate) fn is_image(op: Op) -> bool {
    matches!(
        op,
        Op::SampledImage
            | Op::ImageRead
            | Op::ImageWrite
            | Op::ImageSampleExplicitLod
            | Op::ImageQuerySize
            | Op::ImageQuerySizeLod
            | Op::ImageQueryFormat
            | Op::ImageQueryOrder
    )
}

impl FnCx<'_, '_> {
    pub fn image(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.inst.class.opcode;
        if op == Op::SampledImage {
            let (img, ty) = self.image_operand(inst, 0)?;
            let s = self.operand(inst, 1)?;
            if self.ty(s) != Type::U32 {
                return Err(inst.error("the sampler is not a sampler"));
            }
            self.define(result_id(inst)?, Val::SampledImage(img, s, ty));
            return Ok(());
        }
        if op == Op::ImageWrite {
            return self.image_write(inst);
        }
        let rty = self.ir_type(result_type(inst)?)?;
        let r = match op {
            Op::ImageRead | Op::ImageSampleExplicitLod => {
                let (img, sampler, ty) = if op == Op::ImageRead {
                    let (img, ty) = self.image_operand(inst, 0)?;
                    (img, None, ty)
                } else {
                    match self.val(word_of(inst, 0)?)? {
                        Val::SampledImage(i, s, t) => (i, Some(s), t),
                        _ => return Err(inst.error("operand 0 is not a sampled image")),
                    }
                };
                if ty.access == AccessQualifier::WriteOnly {
                    return Err(inst.error(format!("a write_only {} is read", ty.name)));
                }
                // SignExtend/ZeroExtend need nothing: the channel type
                // decides how an integer texel is extended.
                self.image_operands(inst, 2, op == Op::ImageSampleExplicitLod)?;
                let coord = self.image_coord(inst, 1, &ty, sampler.is_some())?;
                let float4 = Type::Vector(Scalar::F32, 4);
                // A half texel (`read_imageh`) is the float one rounded to
                // half.
                let (name, read_ty) = match rty {
                    Type::Vector(Scalar::F32, 4) => ("read_imagef", rty.clone()),
                    Type::Vector(Scalar::F16, 4) => ("read_imagef", float4),
                    Type::Vector(Scalar::U32, 4) => ("read_imageui", rty.clone()),
                    ref t => {
                        return Err(inst.error(format!(
                            "an image read of {t:?} (vecl reads float4, half4 and 32-bit integer vectors of 4)"
                        )))
                    }
                };
                let mut args = vec![img];
                args.extend(sampler);
                args.push(coord);
                let texel = self.emit(Inst_::Builtin(name.into(), args), read_ty.clone());
                if read_ty == rty {
                    texel
                } else {
                    self.emit(
                        Inst_::Convert {
                            value: texel,
                            saturate: false,
                            rounding: Rounding::Default,
                        },
                        rty.clone(),
                    )
                }
            }
            Op::ImageQuerySize | Op::ImageQuerySizeLod => {
                let (img, ty) = self.image_operand(inst, 0)?;
                if op == Op::ImageQuerySizeLod {
                    self.zero_lod(inst, word_of(inst, 1)?)?;
                }
                let queries: &[&str] = match ty.name {
                    "image1d_t" | "image1d_buffer_t" => &["get_image_width"],
                    "image1d_array_t" => &["get_image_width", "get_image_array_size"],
                    "image2d_t" => &["get_image_width", "get_image_height"],
                    "image2d_array_t" => &[
                        "get_image_width",
                        "get_image_height",
                        "get_image_array_size",
                    ],
                    _ => &["get_image_width", "get_image_height", "get_image_depth"],
                };
                let elem = match rty.scalar() {
                    Some(s) if s.is_int() && rty.lanes() as usize == queries.len() => {
                        Type::Scalar(s)
                    }
                    _ => {
                        return Err(inst.error(format!(
                            "the size of a {} is {} integers",
                            ty.name,
                            queries.len()
                        )))
                    }
                };
                let mut parts = Vec::new();
                for q in queries {
                    let qt = if *q == "get_image_array_size" {
                        Type::U64
                    } else {
                        Type::I32
                    };
                    let v = self.emit(Inst_::Builtin((*q).into(), vec![img]), qt);
                    let v = self.as_unsigned(v);
                    parts.push(self.fit_int(v, &elem)?);
                }
                if parts.len() == 1 {
                    parts[0]
                } else {
                    self.emit(Inst_::Construct(parts), rty.clone())
                }
            }
            _ => {
                let (img, _) = self.image_operand(inst, 0)?;
                let (name, base) = if op == Op::ImageQueryFormat {
                    ("get_image_channel_data_type", channel::SNORM_INT8)
                } else {
                    ("get_image_channel_order", order::R)
                };
                if !matches!(rty, Type::Scalar(s) if s.is_int()) {
                    return Err(inst.error("the result is not an integer"));
                }
                let v = self.emit(Inst_::Builtin(name.into(), vec![img]), Type::I32);
                let v = self.as_unsigned(v);
                let b = self.emit(Inst_::Const(u64::from(base)), Type::U32);
                let d = self.emit(Inst_::Binary(BinaryOp::Sub, v, b), Type::U32);
                self.fit_int(d, &rty)?
            }
        };
        self.define(result_id(inst)?, Val::V(r));
        Ok(())
    }

    fn image_write(&mut self, inst: &Inst) -> Result<()> {
        let (img, ty) = self.image_operand(inst, 0)?;
        if ty.access == AccessQualifier::ReadOnly {
            return Err(inst.error(format!("a read_only {} is written", ty.name)));
        }
        let coord = self.image_coord(inst, 1, &ty, false)?;
        let texel = self.operand(inst, 2)?;
        let mask = self.image_operands(inst, 3, false)?;
        let tt = self.ty(texel);
        let call = |this: &mut Self, name: &str, texel: ValueId| {
            this.push_value(
                Inst_::Builtin(name.into(), vec![img, coord, texel]),
                Type::Void,
            )
        };
        match tt {
            Type::Vector(Scalar::F32, 4) => {
                let w = call(self, "write_imagef", texel);
                self.stmt(Stmt::Eval(w));
            }
            // `write_imageh`: the half texel widened (exactly) to float.
            Type::Vector(Scalar::F16, 4) => {
                let wide = self.emit(
                    Inst_::Convert {
                        value: texel,
                        saturate: false,
                        rounding: Rounding::Default,
                    },
                    Type::Vector(Scalar::F32, 4),
                );
                let w = call(self, "write_imagef", wide);
                self.stmt(Stmt::Eval(w));
            }
            Type::Vector(Scalar::U32, 4) => {
                let signed = self.emit(Inst_::Bitcast(texel), Type::Vector(Scalar::I32, 4));
                if mask & SIGN_EXTEND != 0 {
                    let as_i = call(self, "write_imagei", signed);
                    self.stmt(Stmt::Eval(as_i));
                } else if mask & ZERO_EXTEND != 0 {
                    let as_u = call(self, "write_imageui", texel);
                    self.stmt(Stmt::Eval(as_u));
                } else {
                    let as_i = call(self, "write_imagei", signed);
                    let as_u = call(self, "write_imageui", texel);
                    // The channel type says the texel's sign.
                    let ct = self.emit(
                        Inst_::Builtin("get_image_channel_data_type".into(), vec![img]),
                        Type::I32,
                    );
                    let ct = self.as_unsigned(ct);
                    let lo = self.emit(Inst_::Const(u64::from(channel::SIGNED_INT8)), Type::U32);
                    let hi = self.emit(Inst_::Const(u64::from(channel::SIGNED_INT32)), Type::U32);
                    let ge = self.emit(Inst_::Cmp(CmpOp::Ge, ct, lo), Type::BOOL);
                    let le = self.emit(Inst_::Cmp(CmpOp::Le, ct, hi), Type::BOOL);
                    let is_signed = self.emit(Inst_::Binary(BinaryOp::And, ge, le), Type::BOOL);
                    self.stmt(Stmt::If {
                        cond: is_signed,
                        then_: Block(vec![Stmt::Eval(as_i)]),
                        else_: Block(vec![Stmt::Eval(as_u)]),
                    });
                }
            }
            t => {
                return Err(inst.error(format!(
                    "an image write of {t:?} (vecl writes float4, half4 and 32-bit integer vectors of 4)"
                )))
            }
        }
        Ok(())
    }

    /// An image operand: its value and type.
    fn image_operand(&mut self, inst: &Inst, i: usize) -> Result<(ValueId, ImageType)> {
        let id = word_of(inst, i)?;
        let ty = self.cx.id_types.get(&id).copied();
        let Some(SType::Image(t)) = ty.and_then(|t| self.cx.types.get(&t)).cloned() else {
            return Err(inst.error(format!("operand {i} is not an image")));
        };
        Ok((self.value(id)?, t))
    }

    /// The coordinate operand, as the builtin takes it: `int` (or, with a
    /// sampler, `float`) of the image type's components.
    fn image_coord(
        &mut self,
        inst: &Inst,
        i: usize,
        ty: &ImageType,
        float_ok: bool,
    ) -> Result<ValueId> {
        let c = self.operand(inst, i)?;
        let ct = self.ty(c);
        let s = match ct.scalar() {
            Some(s) if s.is_float() && float_ok && s == Scalar::F32 => Scalar::F32,
            Some(s) if s.is_int() && s.size() == 4 => Scalar::I32,
            _ => {
                return Err(inst.error(format!(
                    "the coordinate of a {} is not {}32-bit integers",
                    ty.name,
                    if float_ok { "floats or " } else { "" }
                )))
            }
        };
        let c = self.recast(c, &ct.with_scalar(s));
        let have = ct.lanes() as u8;
        let want = ty.coord_lanes;
        if have == want {
            return Ok(c);
        }
        let elem = Type::Scalar(s);
        let mut parts = Vec::new();
        for k in 0..want {
            parts.push(if k >= have {
                self.emit(Inst_::Const(0), elem.clone())
            } else if have == 1 {
                c
            } else {
                self.emit(Inst_::Extract(c, k), elem.clone())
            });
        }
        Ok(if want == 1 {
            parts[0]
        } else {
            self.emit(Inst_::Construct(parts), Type::Vector(s, want))
        })
    }

    /// The image operands from operand `i` on: their mask. A level of
    /// detail must be 0 (and is required when `lod`).
    fn image_operands(&mut self, inst: &Inst, i: usize, lod: bool) -> Result<u32> {
        let mask = match inst.inst.operands.get(i) {
            Some(Operand::ImageOperands(m)) => m.bits(),
            None => 0,
            Some(_) => return Err(inst.error("the image operands are malformed")),
        };
        let known = LOD | SIGN_EXTEND | ZERO_EXTEND | HINTS;
        if mask & !known != 0 {
            return Err(inst.error(format!(
                "image operands {:#x} are not supported by vecl (it reads Lod 0, SignExtend, ZeroExtend, Nontemporal)",
                mask & !known
            )));
        }
        if mask & LOD != 0 {
            self.zero_lod(inst, word_of(inst, i + 1)?)?;
        } else if lod {
            return Err(inst.error("an explicit-lod sample without a Lod operand"));
        }
        Ok(mask)
    }

    /// Checks that a level of detail is the constant 0.
    fn zero_lod(&self, inst: &Inst, id: u32) -> Result<()> {
        match self.cx.consts.get(&id) {
            Some(Const::Scalar(_, 0) | Const::Null(_)) => Ok(()),
            // -0.0
            Some(Const::Scalar(Scalar::F32, b)) if *b == 0x8000_0000 => Ok(()),
            _ => Err(inst.error(
                "a level of detail that is not the constant 0 (vecl's images have no mipmaps)",
            )),
        }
    }
}

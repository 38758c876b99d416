//! The image builtins. `read_image*` and `write_image*` call host functions
//! of `crate::image`, so texel addressing, filtering and format conversion
//! are the very code the interpreter runs:
//! - a read whose operands are all uniform is one `vecl_read_image` call and
//!   its result is uniform;
//! - with a uniform image (and sampler) — the usual case — the chunk makes
//!   one `vecl_read_image_lanes`/`vecl_write_image_lanes` call: the varying
//!   coordinate (and colour) components are stored as whole pieces into a
//!   component-major stack record, the active mask goes as a bit per lane,
//!   and the results come back as whole pieces;
//! - otherwise (an image that differs between lanes) one
//!   `vecl_read_image`/`vecl_write_image` call per lane with that lane's
//!   operands in an eight-word record and its active bit;
//! - in front of either, for a uniform image and an integer coordinate
//!   whose x is consecutive across the lanes and whose other components
//!   are uniform, a vector path for chunks of texels inside the image of a
//!   plain format (`image_rows.rs`).
//!
//! `get_image_*` load the descriptor's fields directly
//! (`vecl_ir::image::desc_offset`).

use super::super::lanes::{carrier, Lanes, Val};
use super::super::{FunctionCx, LResult};
use crate::image::flag;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use vecl_ir::image::{desc_offset, object};
use vecl_ir::{Builtin, Scalar, Type, ValueId};

/// Lanes a chunk call's active bits can name.
const MAX_CHUNK_LANES: u32 = 32;

/// Record bytes: coordinate words 0–3, colour words 4–7.
const RECORD_BYTES: u32 = 32;
const COLOR_AT: i32 = 16;

impl FunctionCx<'_, '_> {
    /// Lowers an image builtin.
    pub(super) fn lower_image(
        &mut self,
        name: Builtin,
        args: &[ValueId],
        ty: &Type,
    ) -> LResult<Val> {
        match name {
            Builtin::ReadImagef => self.read_image(args, 0, Scalar::F32),
            Builtin::ReadImagei => self.read_image(args, flag::CLASS_INT, Scalar::I32),
            Builtin::ReadImageui => self.read_image(args, flag::CLASS_UINT, Scalar::U32),
            Builtin::WriteImagef => self.write_image(args, 0, Scalar::F32),
            Builtin::WriteImagei => self.write_image(args, flag::CLASS_INT, Scalar::I32),
            Builtin::WriteImageui => self.write_image(args, flag::CLASS_UINT, Scalar::U32),
            _ => self.image_query(name, args, ty),
        }
    }

    fn record(&mut self) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            RECORD_BYTES,
            2,
        ));
        self.b.ins().stack_addr(types::I64, slot, 0)
    }

    /// A record for a whole chunk: eight components of W 32-bit lanes each,
    /// component-major, so whole pieces go in and out.
    fn chunk_record(&mut self) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            32 * self.kernel.w(),
            4,
        ));
        self.b.ins().stack_addr(types::I64, slot, 0)
    }

    /// Stores every component of `v` (element `s`, 32-bit) as W lanes from
    /// word `word` of a chunk record on.
    fn store_pieces(&mut self, rec: Value, word: usize, s: Scalar, v: &Val) {
        let w = self.kernel.w() as usize;
        for (c, l) in v.iter().enumerate() {
            let pieces = self.varying(s, l);
            for (p, piece) in pieces.into_iter().enumerate() {
                let at = (word + c * w + p * 4) * 4;
                self.b
                    .ins()
                    .store(MemFlagsData::trusted(), piece, rec, at as i32);
            }
        }
    }

    /// One component of W 32-bit lanes from word `word` of a chunk record.
    fn load_pieces(&mut self, rec: Value, word: usize, s: Scalar) -> Lanes {
        let pieces = (0..self.kernel.w() as usize / 4)
            .map(|p| {
                let at = (word + p * 4) * 4;
                self.b
                    .ins()
                    .load(carrier(s), MemFlagsData::trusted(), rec, at as i32)
            })
            .collect();
        Lanes::Varying(pieces)
    }

    /// The active mask as one bit per lane (lane `j` at bit `j`).
    fn mask_bits(&mut self) -> Value {
        let mask = self.cur_mask();
        let mut bits = self.iconst(types::I32, 0);
        for (i, m) in mask.iter().enumerate() {
            let b = self.b.ins().vhigh_bits(types::I32, *m);
            let b = self.b.ins().ishl_imm_u(b, 4 * i as i64);
            bits = self.b.ins().bor(bits, b);
        }
        bits
    }

    /// Stores the components of operand `v` (of element `s`) lane `j` at
    /// word `at`; with `j` `None` only its uniform components.
    fn store_operand(&mut self, rec: Value, at: i32, s: Scalar, v: &Val, j: Option<usize>) {
        for (c, l) in v.iter().enumerate() {
            let x = match (l, j) {
                (Lanes::Uniform(x), None) => *x,
                (Lanes::Varying(_), Some(j)) => self.lane(s, l, j),
                _ => continue,
            };
            self.b
                .ins()
                .store(MemFlagsData::trusted(), x, rec, at + 4 * c as i32);
        }
    }

    fn read_image(&mut self, args: &[ValueId], class: u32, s: Scalar) -> LResult<Val> {
        let (img, sampler, coord) = match args {
            [i, smp, c] => (*i, Some(*smp), *c),
            [i, c] => (*i, None, *c),
            _ => return Err(self.internal("read_image takes 2 or 3 operands")),
        };
        let coord_s = self.elem(coord)?;
        let mut flags = class;
        if sampler.is_some() {
            flags |= flag::SAMPLER;
        }
        if coord_s == Scalar::F32 {
            flags |= flag::FLOAT_COORD;
        }
        let img_l = self.scalar(img)?;
        let smp_l = match sampler {
            Some(v) => self.scalar(v)?,
            None => Lanes::Uniform(self.iconst(types::I32, 0)),
        };
        let coord_v = self.value(coord)?;
        let flags = self.iconst(types::I32, i64::from(flags));
        let uniform =
            img_l.is_uniform() && smp_l.is_uniform() && coord_v.iter().all(Lanes::is_uniform);
        if uniform {
            let host = self.extern_fn(
                "vecl_read_image",
                &[types::I64, types::I32, types::I32, types::I64, types::I32],
                None,
            )?;
            let rec = self.record();
            self.store_operand(rec, 0, coord_s, &coord_v, None);
            let load_ty = if s == Scalar::F32 {
                types::F32
            } else {
                types::I32
            };
            let d = self.lane(Scalar::U64, &img_l, 0);
            let smp = self.lane(Scalar::U32, &smp_l, 0);
            let on = self.iconst(types::I32, -1);
            self.call(host, &[d, smp, flags, rec, on]);
            let out = (0..4)
                .map(|c| {
                    let v =
                        self.b
                            .ins()
                            .load(load_ty, MemFlagsData::trusted(), rec, COLOR_AT + 4 * c);
                    Lanes::Uniform(v)
                })
                .collect();
            return Ok(out);
        }
        let slow = |cx: &mut Self| cx.read_image_lanes(&img_l, &smp_l, &coord_v, coord_s, flags, s);
        if let Lanes::Uniform(d) = img_l {
            let smp = match (sampler, &smp_l) {
                (Some(_), Lanes::Uniform(v)) => Some(*v),
                _ => None,
            };
            return self.read_image_rows(d, smp, &coord_v, coord_s, s, &mut { slow });
        }
        slow(self)
    }

    /// A varying `read_image*` by host calls: one for the chunk when the
    /// image and the sampler are uniform, else one per lane.
    fn read_image_lanes(
        &mut self,
        img_l: &Lanes,
        smp_l: &Lanes,
        coord_v: &Val,
        coord_s: Scalar,
        flags: Value,
        s: Scalar,
    ) -> LResult<Val> {
        if let (Lanes::Uniform(d), Lanes::Uniform(smp), true) =
            (img_l, smp_l, self.kernel.w() <= MAX_CHUNK_LANES)
        {
            // One call for the chunk: operands and results in whole pieces.
            let (d, smp) = (*d, *smp);
            let host = self.extern_fn(
                "vecl_read_image_lanes",
                &[
                    types::I64,
                    types::I32,
                    types::I32,
                    types::I64,
                    types::I32,
                    types::I32,
                ],
                None,
            )?;
            let rec = self.chunk_record();
            self.store_pieces(rec, 0, coord_s, coord_v);
            let lanes = self.iconst(types::I32, i64::from(self.kernel.w()));
            let active = self.mask_bits();
            self.call(host, &[d, smp, flags, rec, lanes, active]);
            let w = self.kernel.w() as usize;
            return Ok((0..4)
                .map(|c| self.load_pieces(rec, 4 * w + c * w, s))
                .collect());
        }
        let host = self.extern_fn(
            "vecl_read_image",
            &[types::I64, types::I32, types::I32, types::I64, types::I32],
            None,
        )?;
        let rec = self.record();
        self.store_operand(rec, 0, coord_s, coord_v, None);
        let load_ty = if s == Scalar::F32 {
            types::F32
        } else {
            types::I32
        };
        let mask = self.cur_mask();
        let mut comps: [Vec<Value>; 4] = Default::default();
        for j in 0..self.kernel.w() as usize {
            self.store_operand(rec, 0, coord_s, coord_v, Some(j));
            let d = self.lane(Scalar::U64, img_l, j);
            let smp = self.lane(Scalar::U32, smp_l, j);
            let on = self.lane_active(&mask, j);
            self.call(host, &[d, smp, flags, rec, on]);
            for (c, out) in comps.iter_mut().enumerate() {
                let v = self.b.ins().load(
                    load_ty,
                    MemFlagsData::trusted(),
                    rec,
                    COLOR_AT + 4 * c as i32,
                );
                out.push(v);
            }
        }
        Ok(comps
            .iter()
            .map(|lanes| Lanes::Varying(self.build(s, lanes)))
            .collect())
    }

    fn write_image(&mut self, args: &[ValueId], class: u32, s: Scalar) -> LResult<Val> {
        let [img, coord, color] = args else {
            return Err(self.internal("write_image takes 3 operands"));
        };
        let img_l = self.scalar(*img)?;
        let coord_s = self.elem(*coord)?;
        let coord_v = self.value(*coord)?;
        let color_v = self.value(*color)?;
        let flags = self.iconst(types::I32, i64::from(class));
        let slow =
            |cx: &mut Self| cx.write_image_lanes(&img_l, &coord_v, coord_s, &color_v, flags, s);
        if let Lanes::Uniform(d) = img_l {
            self.write_image_rows(d, &coord_v, &color_v, s, &mut { slow })?;
        } else {
            slow(self)?;
        }
        Ok(Vec::new())
    }

    /// A varying `write_image*` by host calls: one for the chunk when the
    /// image is uniform, else one per lane.
    fn write_image_lanes(
        &mut self,
        img_l: &Lanes,
        coord_v: &Val,
        coord_s: Scalar,
        color_v: &Val,
        flags: Value,
        s: Scalar,
    ) -> LResult<()> {
        if let (Lanes::Uniform(d), true) = (img_l, self.kernel.w() <= MAX_CHUNK_LANES) {
            let d = *d;
            let host = self.extern_fn(
                "vecl_write_image_lanes",
                &[types::I64, types::I32, types::I64, types::I32, types::I32],
                None,
            )?;
            let rec = self.chunk_record();
            let w = self.kernel.w() as usize;
            self.store_pieces(rec, 0, coord_s, coord_v);
            self.store_pieces(rec, 4 * w, s, color_v);
            let lanes = self.iconst(types::I32, i64::from(self.kernel.w()));
            let active = self.mask_bits();
            self.call(host, &[d, flags, rec, lanes, active]);
            return Ok(());
        }
        let host = self.extern_fn(
            "vecl_write_image",
            &[types::I64, types::I32, types::I64, types::I32],
            None,
        )?;
        let rec = self.record();
        self.store_operand(rec, 0, coord_s, coord_v, None);
        self.store_operand(rec, COLOR_AT, s, color_v, None);
        let mask = self.cur_mask();
        for j in 0..self.kernel.w() as usize {
            self.store_operand(rec, 0, coord_s, coord_v, Some(j));
            self.store_operand(rec, COLOR_AT, s, color_v, Some(j));
            let d = self.lane(Scalar::U64, img_l, j);
            let on = self.lane_active(&mask, j);
            self.call(host, &[d, flags, rec, on]);
        }
        Ok(())
    }

    /// `get_image_*`: fields of the descriptor, loaded per distinct image
    /// pointer (once when the image is uniform, as it nearly always is).
    fn image_query(&mut self, name: Builtin, args: &[ValueId], ty: &Type) -> LResult<Val> {
        let [img] = args else {
            return Err(self.internal("get_image_* takes 1 operand"));
        };
        let img_l = self.scalar(*img)?;
        // (field offset, 64-bit field) per result component; `None` is 0.
        let fields: Vec<Option<(u32, bool)>> = match name {
            Builtin::GetImageWidth => vec![Some((desc_offset::WIDTH, true))],
            Builtin::GetImageHeight => vec![Some((desc_offset::HEIGHT, true))],
            Builtin::GetImageDepth => vec![Some((desc_offset::DEPTH, true))],
            Builtin::GetImageArraySize => vec![Some((desc_offset::ARRAY_SIZE, true))],
            Builtin::GetImageChannelDataType => vec![Some((desc_offset::CHANNEL_TYPE, false))],
            Builtin::GetImageChannelOrder => vec![Some((desc_offset::CHANNEL_ORDER, false))],
            Builtin::GetImageDim => {
                let mut f = vec![
                    Some((desc_offset::WIDTH, true)),
                    Some((desc_offset::HEIGHT, true)),
                ];
                if ty.lanes() == 4 {
                    f.extend([Some((desc_offset::DEPTH, true)), None]);
                }
                f
            }
            _ => return Err(self.unsupported(name.name())),
        };
        let s = if name == Builtin::GetImageArraySize {
            Scalar::U64
        } else {
            Scalar::I32
        };
        let lanes = if img_l.is_uniform() {
            1
        } else {
            self.kernel.w() as usize
        };
        let mut comps: Vec<Vec<Value>> = vec![Vec::with_capacity(lanes); fields.len()];
        for j in 0..lanes {
            let d = self.lane(Scalar::U64, &img_l, j);
            for (c, field) in fields.iter().enumerate() {
                let v = self.desc_field(d, *field, s);
                comps[c].push(v);
            }
        }
        if name == Builtin::GetImageDim && ty.lanes() == 4 {
            // A depth is reported for 3-D images only (the front end
            // allows `int4` results for them alone; this keeps any
            // descriptor honest).
            for (j, depth) in comps[2].iter_mut().enumerate() {
                let d = self.lane(Scalar::U64, &img_l, j);
                let t = self.b.ins().load(
                    types::I32,
                    MemFlagsData::trusted(),
                    d,
                    desc_offset::IMAGE_TYPE as i32,
                );
                let is_3d = self.b.ins().icmp_imm_u(
                    cranelift_codegen::ir::condcodes::IntCC::Equal,
                    t,
                    i64::from(object::IMAGE3D),
                );
                let zero = self.iconst(types::I32, 0);
                *depth = self.b.ins().select(is_3d, *depth, zero);
            }
        }
        Ok(comps
            .iter()
            .map(|l| {
                if lanes == 1 {
                    Lanes::Uniform(l[0])
                } else {
                    Lanes::Varying(self.build(s, l))
                }
            })
            .collect())
    }

    /// One descriptor field as a value of `s` (`int` fields saturate like
    /// the interpreter's).
    fn desc_field(&mut self, d: Value, field: Option<(u32, bool)>, s: Scalar) -> Value {
        let flags = MemFlagsData::trusted();
        let Some((at, wide)) = field else {
            return self.iconst(types::I32, 0);
        };
        if !wide {
            return self.b.ins().load(types::I32, flags, d, at as i32);
        }
        let v = self.b.ins().load(types::I64, flags, d, at as i32);
        if s == Scalar::U64 {
            return v;
        }
        let max = self.iconst(types::I64, i64::from(i32::MAX));
        let v = self.b.ins().umin(v, max);
        self.b.ins().ireduce(types::I32, v)
    }
}

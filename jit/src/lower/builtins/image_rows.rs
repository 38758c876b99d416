//! Texel reads and writes of a whole chunk as vector loads and stores.
//!
//! `read_image*` and `write_image*` go through the host functions of
//! `crate::image`, which address, convert and bound one texel per lane.
//! Most image kernels, though, touch one row of texels per chunk:
//! `read_imagef(img, s, (int2)(get_global_id(0) + dx, y))`, x rising by
//! one from lane to lane and the other coordinates uniform (chunks run
//! along dimension 0). For an integer coordinate of that shape this file
//! puts a vector path in front of the host call, and for a `float` one
//! read with a uniform sampler (its texel indices `floor(c)`, taken when
//! the sampler is unnormalised and nearest), taken at run time when
//! - the image is not null and the x indices of all W lanes, running or
//!   not, are `x0 + lane` without wrapping around;
//! - the image's type is the one the coordinate's size names (1-D or 1-D
//!   buffer, 2-D, 3-D; arrays take the host call) and texels
//!   `x0 … x0 + W − 1` of the row (and slice) all lie inside it;
//! - its format is one of the plain layouts: `CL_R` or `CL_RGBA` of a
//!   32-bit type (`FLOAT`, `SIGNED_INT32`, `UNSIGNED_INT32`), or `CL_RGBA`
//!   or `CL_BGRA` of the 8-bit type the builtin's class names
//!   (`UNORM_INT8` for `read_imagef`/`write_imagef`, `UNSIGNED_INT8` for
//!   `…ui`, `SIGNED_INT8` for `…i`).
//!
//! Inside the image an index is its own texel under every addressing mode
//! (the repeating modes clamp unnormalised coordinates, as the host does),
//! and the filter and the normalised flag do not apply to integer
//! coordinates (OpenCL 1.2 §8.2), so for those the sampler plays no part.
//! Everything else — edges, other shapes, formats and coordinates,
//! normalised or linear samplers — takes the host call as before, which
//! keeps border colours and clamping in one place.
//!
//! The mask need not be full. A read loads all W texels (inside the image,
//! so lanes that do not run read harmlessly and drop the value); a write
//! stores whole vectors when every lane runs and otherwise the running
//! lanes' texels one by one. Local sizes below W (the CTS's `1 × n`
//! groups leave one lane running per chunk) so avoid the host call too.
//!
//! The conversions are `vecl_ir::image::PixelCodec`'s, bit for bit: 32-bit
//! channels move their bits unchanged (a missing alpha reads 1 of the
//! format's class, a missing green and blue 0); `UNORM_INT8` reads as
//! `x / 255.0f` (one correctly rounded division) and writes as
//! `rte(clamp(f · 255, 0, 255))` with NaN giving 0; `UNSIGNED_INT8` and
//! `SIGNED_INT8` read zero- and sign-extended and write saturated.
//!
//! The format and the geometry are read from the descriptor for each
//! chunk: a handful of loads and compares, against a host call that built
//! the format's conversion and walked every lane. Checked mode keeps every
//! image access in the host functions.

use super::super::lanes::{carrier, Lanes, Val};
use super::super::{FunctionCx, LResult};
use cranelift_codegen::ir::{
    condcodes::FloatCC, condcodes::IntCC, types, Block, BlockArg, Endianness, InstBuilder,
    MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use vecl_ir::image::{channel, desc_offset, object, order};
use vecl_ir::image::{SAMPLER_FILTER_LINEAR, SAMPLER_NORMALIZED};
use vecl_ir::Scalar;

/// The note the kernel report carries when a chunk access has a vector path.
const NOTE: &str =
    "image accesses of consecutive in-image texels (plain formats) read and write whole vectors; others call the host per chunk";

/// The texel layouts with a vector path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// `CL_R` of a 32-bit type: one word per texel.
    R32,
    /// `CL_RGBA` of a 32-bit type: four words per texel.
    Rgba32,
    /// `CL_RGBA` or `CL_BGRA` of an 8-bit type: one word per texel.
    Bytes8,
}

const LAYOUTS: [Layout; 3] = [Layout::R32, Layout::Rgba32, Layout::Bytes8];

/// What the tests of a chunk found: where its texels start and how the
/// format reads.
struct Row {
    /// The address of texel x = 0 of the chunk's row (and slice).
    row: Value,
    /// `x0` widened to 64 bits (at least 0).
    x0: Value,
    /// The channel type (`i32`).
    channel_type: Value,
    /// Whether the order is `CL_BGRA` (`i8`).
    bgra: Value,
    /// Per layout (in [`LAYOUTS`] order), whether the format has it (`i8`).
    has: [Value; 3],
}

/// Texel memory: in bounds by the tests before, so never trapping.
fn texel_flags() -> MemFlagsData {
    MemFlagsData::new()
        .with_endianness(Endianness::Little)
        .with_notrap()
}

/// The 8-bit channel type a builtin of element `s` has a vector path for.
fn bytes_type(s: Scalar) -> u32 {
    match s {
        Scalar::F32 => channel::UNORM_INT8,
        Scalar::U32 => channel::UNSIGNED_INT8,
        _ => channel::SIGNED_INT8,
    }
}

impl FunctionCx<'_, '_> {
    /// A chunk's `read_image*` of image `d` at the integer coordinate
    /// `coord`, with the vector path in front of `slow` (the host call)
    /// when the coordinate's shape allows one; the four result components.
    ///
    /// A `float` coordinate needs the uniform `sampler`: its lanes take the
    /// path when the sampler is unnormalised and nearest, where a
    /// coordinate reads texel `floor(c)`.
    pub(super) fn read_image_rows(
        &mut self,
        d: Value,
        sampler: Option<Value>,
        coord: &Val,
        coord_s: Scalar,
        s: Scalar,
        slow: &mut dyn FnMut(&mut Self) -> LResult<Val>,
    ) -> LResult<Val> {
        let (sampler, coord_s) = match (coord_s, sampler) {
            (Scalar::F32, Some(smp)) => (Some(smp), Scalar::F32),
            (Scalar::F32, None) => return slow(self),
            (s, _) => (None, s),
        };
        let Some((x, rest)) = self.row_coord(coord, coord_s) else {
            return slow(self);
        };
        self.note_rows();
        // Float lanes as the texel indices nearest filtering takes:
        // `floor(c)`, saturated (NaN gives 0, as the host's conversion);
        // a saturated index is outside any image the tests accept.
        let (x, rest, nearest) = match sampler {
            Some(smp) => {
                let x = x
                    .iter()
                    .map(|&p| {
                        let f = self.b.ins().floor(p);
                        self.b.ins().fcvt_to_sint_sat(types::I32X4, f)
                    })
                    .collect::<Vec<_>>();
                let rest = rest
                    .iter()
                    .map(|&c| {
                        let f = self.b.ins().floor(c);
                        self.b.ins().fcvt_to_sint_sat(types::I32, f)
                    })
                    .collect::<Vec<_>>();
                let bits = i64::from(SAMPLER_NORMALIZED | SAMPLER_FILTER_LINEAR);
                let other = self.b.ins().band_imm_u(smp, bits);
                let nearest = self.b.ins().icmp_imm_s(IntCC::Equal, other, 0);
                (x, rest, Some(nearest))
            }
            None => (x, rest, None),
        };
        let pieces = self.kernel.w() as usize / 4;
        let ty = carrier(s);
        let (slow_b, join) = (self.b.create_block(), self.b.create_block());
        for _ in 0..4 * pieces {
            self.b.append_block_param(join, ty);
        }
        let row = self.row_tests(d, &x, &rest, nearest, s, slow_b);
        for (layout, has) in LAYOUTS.into_iter().zip(row.has) {
            let (yes, no) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(has, yes, &[], no, &[]);
            self.enter(yes);
            let comps = self.read_layout(layout, &row, s);
            let args: Vec<BlockArg> = comps.concat().into_iter().map(BlockArg::Value).collect();
            self.b.ins().jump(join, &args);
            self.enter(no);
        }
        self.b.ins().jump(slow_b, &[]);
        self.enter(slow_b);
        let v = slow(self)?;
        let mut args = Vec::with_capacity(4 * pieces);
        for l in &v {
            args.extend(self.varying(s, l).into_iter().map(BlockArg::Value));
        }
        self.b.ins().jump(join, &args);
        self.enter(join);
        let params = self.b.block_params(join).to_vec();
        Ok(params
            .chunks(pieces)
            .map(|c| Lanes::Varying(c.to_vec()))
            .collect())
    }

    /// A chunk's `write_image*` of `color` (element `s`) to image `d` at the
    /// integer coordinate `coord`, with the vector path in front of `slow`
    /// when the coordinate's shape allows one.
    pub(super) fn write_image_rows(
        &mut self,
        d: Value,
        coord: &Val,
        color: &Val,
        s: Scalar,
        slow: &mut dyn FnMut(&mut Self) -> LResult<()>,
    ) -> LResult<()> {
        let (Some((x, rest)), 4) = (self.row_coord(coord, Scalar::I32), color.len()) else {
            return slow(self);
        };
        self.note_rows();
        let (slow_b, join) = (self.b.create_block(), self.b.create_block());
        let comps: [Vec<Value>; 4] = std::array::from_fn(|c| self.varying(s, &color[c]));
        let full = self.mask_is_full();
        let row = self.row_tests(d, &x, &rest, None, s, slow_b);
        for (layout, has) in LAYOUTS.into_iter().zip(row.has) {
            let (yes, no) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(has, yes, &[], no, &[]);
            self.enter(yes);
            let (at, texels, px) = self.write_layout(layout, &row, s, &comps);
            self.store_texels(at, &texels, px, full, join);
            self.enter(no);
        }
        self.b.ins().jump(slow_b, &[]);
        self.enter(slow_b);
        slow(self)?;
        self.b.ins().jump(join, &[]);
        self.enter(join);
        Ok(())
    }

    fn note_rows(&mut self) {
        if !self.stats.notes.iter().any(|n| n == NOTE) {
            self.stats.notes.push(NOTE.to_string());
        }
    }

    /// The x pieces and the uniform other coordinates (y, then z) of an
    /// `int` or `float` coordinate whose x varies and whose others are
    /// uniform; `None` for any other shape, and always in checked mode.
    fn row_coord(&self, coord: &Val, coord_s: Scalar) -> Option<(Vec<Value>, Vec<Value>)> {
        if self.kernel.checks().is_some() || !matches!(coord_s, Scalar::I32 | Scalar::F32) {
            return None;
        }
        // 1 (1-D), 2 (2-D) or 4 (3-D) components; the fourth is unused.
        let used = match coord.len() {
            1 | 2 => coord.len(),
            4 => 3,
            _ => return None,
        };
        let Lanes::Varying(x) = &coord[0] else {
            return None;
        };
        let rest = coord[1..used]
            .iter()
            .map(|l| match l {
                Lanes::Uniform(v) => Some(*v),
                Lanes::Varying(_) => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some((x.clone(), rest))
    }

    /// Emits the tests of a chunk access: in the current block those that
    /// need no memory (consecutive x without wrap-around, a descriptor), then the descriptor's type, size and format. Leaves
    /// the builder in a block reached only when the texels are all inside
    /// the image; every failing test branches to `slow`, as does a false
    /// `also` (an `i8`).
    fn row_tests(
        &mut self,
        d: Value,
        x: &[Value],
        rest: &[Value],
        also: Option<Value>,
        s: Scalar,
        slow: Block,
    ) -> Row {
        let w = i64::from(self.kernel.w());
        let x0 = self.b.ins().extractlane(x[0], 0);
        let start = self.b.ins().splat(types::I32X4, x0);
        let mut same: Option<Value> = None;
        for (piece, k) in x.iter().zip(self.cache.iota32().to_vec()) {
            let want = self.b.ins().iadd(start, k);
            let eq = self.b.ins().icmp(IntCC::Equal, *piece, want);
            same = Some(match same {
                Some(a) => self.b.ins().band(a, eq),
                None => eq,
            });
        }
        let same = match same {
            Some(v) => self.b.ins().vall_true(v),
            None => self.b.ins().iconst(types::I8, 0),
        };
        let from_zero = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, x0, 0);
        let no_wrap = self.b.ins().icmp_imm_s(
            IntCC::SignedLessThanOrEqual,
            x0,
            i64::from(i32::MAX) - (w - 1),
        );
        let present = self.b.ins().icmp_imm_s(IntCC::NotEqual, d, 0);
        let mut ok = same;
        for t in [from_zero, no_wrap, present].into_iter().chain(also) {
            ok = self.b.ins().band(ok, t);
        }
        let check = self.b.create_block();
        self.b.ins().brif(ok, check, &[], slow, &[]);
        self.enter(check);

        // The descriptor does not change while the kernel runs.
        let f = MemFlagsData::trusted().with_readonly();
        let field = |cx: &mut Self, ty, at: u32| cx.b.ins().load(ty, f, d, at as i32);
        let image_type = field(self, types::I32, desc_offset::IMAGE_TYPE);
        let is_type = |cx: &mut Self, t: u32| {
            cx.b.ins()
                .icmp_imm_s(IntCC::Equal, image_type, i64::from(t))
        };
        let mut ok = match rest.len() {
            0 => {
                let a = is_type(self, object::IMAGE1D);
                let b = is_type(self, object::IMAGE1D_BUFFER);
                self.b.ins().bor(a, b)
            }
            1 => is_type(self, object::IMAGE2D),
            _ => is_type(self, object::IMAGE3D),
        };
        let x0 = self.b.ins().sextend(types::I64, x0);
        let end = self.b.ins().iadd_imm_s(x0, w);
        let width = field(self, types::I64, desc_offset::WIDTH);
        let inside = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, end, width);
        ok = self.b.ins().band(ok, inside);
        let mut row = field(self, types::I64, desc_offset::DATA);
        // y against the height and the row pitch, z against the depth and
        // the slice pitch; a negative one is a huge unsigned index.
        let dims = [
            (desc_offset::HEIGHT, desc_offset::ROW_PITCH),
            (desc_offset::DEPTH, desc_offset::SLICE_PITCH),
        ];
        for (&c, (size_at, pitch_at)) in rest.iter().zip(dims) {
            let c = self.b.ins().sextend(types::I64, c);
            let size = field(self, types::I64, size_at);
            let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, c, size);
            ok = self.b.ins().band(ok, inside);
            let pitch = field(self, types::I64, pitch_at);
            let off = self.b.ins().imul(c, pitch);
            row = self.b.ins().iadd(row, off);
        }
        let go = self.b.create_block();
        self.b.ins().brif(ok, go, &[], slow, &[]);
        self.enter(go);

        let ord = field(self, types::I32, desc_offset::CHANNEL_ORDER);
        let channel_type = field(self, types::I32, desc_offset::CHANNEL_TYPE);
        let is =
            |cx: &mut Self, v: Value, k: u32| cx.b.ins().icmp_imm_s(IntCC::Equal, v, i64::from(k));
        let mut wide = is(self, channel_type, channel::FLOAT);
        for t in [channel::SIGNED_INT32, channel::UNSIGNED_INT32] {
            let y = is(self, channel_type, t);
            wide = self.b.ins().bor(wide, y);
        }
        let r = is(self, ord, order::R);
        let rgba = is(self, ord, order::RGBA);
        let bgra = is(self, ord, order::BGRA);
        let r32 = self.b.ins().band(r, wide);
        let rgba32 = self.b.ins().band(rgba, wide);
        let four = self.b.ins().bor(rgba, bgra);
        let bytes = is(self, channel_type, bytes_type(s));
        let bytes8 = self.b.ins().band(four, bytes);
        Row {
            row,
            x0,
            channel_type,
            bgra,
            has: [r32, rgba32, bytes8],
        }
    }

    /// The address of texel `x0` of the row for texels of `px` bytes.
    fn row_start(&mut self, row: &Row, px: i64) -> Value {
        let off = self.b.ins().imul_imm_s(row.x0, px);
        self.b.ins().iadd(row.row, off)
    }

    /// The bit position of each component's byte in an 8-bit texel's word
    /// (red and blue swap places in `CL_BGRA`), as `i32`s.
    fn byte_shifts(&mut self, row: &Row) -> [Value; 4] {
        let (zero, sixteen) = (
            self.b.ins().iconst(types::I32, 0),
            self.b.ins().iconst(types::I32, 16),
        );
        let red = self.b.ins().select(row.bgra, sixteen, zero);
        let blue = self.b.ins().select(row.bgra, zero, sixteen);
        [
            red,
            self.b.ins().iconst(types::I32, 8),
            blue,
            self.b.ins().iconst(types::I32, 24),
        ]
    }

    fn splat32(&mut self, x: i64) -> Value {
        let v = self.b.ins().iconst(types::I32, x);
        self.b.ins().splat(types::I32X4, v)
    }

    /// The four result components (W/4 pieces of `s` each) of the chunk's
    /// texels of `layout`.
    fn read_layout(&mut self, layout: Layout, row: &Row, s: Scalar) -> [Vec<Value>; 4] {
        let pieces = self.kernel.w() as usize / 4;
        let ty = carrier(s);
        let mut out: [Vec<Value>; 4] = Default::default();
        match layout {
            Layout::R32 => {
                let at = self.row_start(row, 4);
                // Alpha is 1 of the format's class: 1.0f for FLOAT.
                let is_float = self.b.ins().icmp_imm_s(
                    IntCC::Equal,
                    row.channel_type,
                    i64::from(channel::FLOAT),
                );
                let one_f = self.b.ins().iconst(types::I32, 1f32.to_bits() as i64);
                let one_i = self.b.ins().iconst(types::I32, 1);
                let one = self.b.ins().select(is_float, one_f, one_i);
                let alpha = self.b.ins().splat(types::I32X4, one);
                let alpha = self.vcast(ty, alpha);
                let zero = self.splat32(0);
                let zero = self.vcast(ty, zero);
                for p in 0..pieces {
                    let q = self.b.ins().load(ty, texel_flags(), at, (16 * p) as i32);
                    out[0].push(q);
                    out[1].push(zero);
                    out[2].push(zero);
                    out[3].push(alpha);
                }
            }
            Layout::Rgba32 => {
                let at = self.row_start(row, 16);
                for p in 0..pieces {
                    let texels = std::array::from_fn(|k| {
                        self.b
                            .ins()
                            .load(types::I32X4, texel_flags(), at, (64 * p + 16 * k) as i32)
                    });
                    for (o, c) in out.iter_mut().zip(self.transpose4(s, texels)) {
                        o.push(c);
                    }
                }
            }
            Layout::Bytes8 => {
                let at = self.row_start(row, 4);
                let shifts = self.byte_shifts(row);
                let byte = self.splat32(0xff);
                let scale = self.b.ins().f32const(255.0);
                let scale = self.b.ins().splat(types::F32X4, scale);
                for p in 0..pieces {
                    let word = self
                        .b
                        .ins()
                        .load(types::I32X4, texel_flags(), at, (16 * p) as i32);
                    for (o, &sh) in out.iter_mut().zip(&shifts) {
                        let c = if s == Scalar::I32 {
                            // Sign-extend: the byte to the top, then back.
                            let k24 = self.b.ins().iconst(types::I32, 24);
                            let up = self.b.ins().isub(k24, sh);
                            let hi = self.b.ins().ishl(word, up);
                            self.b.ins().sshr_imm_s(hi, 24)
                        } else {
                            let down = self.b.ins().ushr(word, sh);
                            let v = self.b.ins().band(down, byte);
                            if s == Scalar::F32 {
                                let f = self.b.ins().fcvt_from_sint(types::F32X4, v);
                                self.b.ins().fdiv(f, scale)
                            } else {
                                v
                            }
                        };
                        o.push(c);
                    }
                }
            }
        }
        out
    }

    /// The colour components (W/4 pieces of `s` each) as the chunk's texels
    /// of `layout`: where they go, the 16-byte pieces in memory order, and
    /// the bytes of a texel.
    fn write_layout(
        &mut self,
        layout: Layout,
        row: &Row,
        s: Scalar,
        comps: &[Vec<Value>; 4],
    ) -> (Value, Vec<Value>, u32) {
        let [r, g, b, a] = comps;
        match layout {
            Layout::R32 => {
                let at = self.row_start(row, 4);
                let texels = r.iter().map(|&v| self.vcast(types::I32X4, v)).collect();
                (at, texels, 4)
            }
            Layout::Rgba32 => {
                let at = self.row_start(row, 16);
                let mut texels = Vec::with_capacity(4 * r.len());
                for (((&r, &g), &b), &a) in r.iter().zip(g).zip(b).zip(a) {
                    texels.extend(self.transpose4(Scalar::I32, [r, g, b, a]));
                }
                (at, texels, 16)
            }
            Layout::Bytes8 => {
                let at = self.row_start(row, 4);
                let shifts = self.byte_shifts(row);
                let mut texels = Vec::with_capacity(r.len());
                for (((&r, &g), &b), &a) in r.iter().zip(g).zip(b).zip(a) {
                    let mut parts = [r, g, b, a];
                    for (v, &sh) in parts.iter_mut().zip(&shifts) {
                        let byte = self.channel_byte(s, *v);
                        *v = self.b.ins().ishl(byte, sh);
                    }
                    let low = self.b.ins().bor(parts[0], parts[1]);
                    let high = self.b.ins().bor(parts[2], parts[3]);
                    texels.push(self.b.ins().bor(low, high));
                }
                (at, texels, 4)
            }
        }
    }

    /// Stores the texel pieces from `at` on and jumps to `join`: whole
    /// pieces when `full` (every lane runs), else the texels of the running
    /// lanes one by one (a loop over the mask's set bits), the others left
    /// as they are.
    fn store_texels(&mut self, at: Value, texels: &[Value], px: u32, full: Value, join: Block) {
        let (all, some) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(full, all, &[], some, &[]);
        self.enter(all);
        for (i, t) in texels.iter().enumerate() {
            self.b.ins().store(texel_flags(), *t, at, (16 * i) as i32);
        }
        self.b.ins().jump(join, &[]);

        self.enter(some);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            16 * texels.len() as u32,
            4,
        ));
        let staged = self.b.ins().stack_addr(types::I64, slot, 0);
        for (i, t) in texels.iter().enumerate() {
            self.b
                .ins()
                .store(MemFlagsData::trusted(), *t, staged, (16 * i) as i32);
        }
        let bits = self.lane_bits();
        let (head, body) = (self.b.create_block(), self.b.create_block());
        let left = self.b.append_block_param(head, types::I64);
        self.b.ins().jump(head, &[BlockArg::Value(bits)]);
        self.b.switch_to_block(head);
        let done = self.b.ins().icmp_imm_s(IntCC::Equal, left, 0);
        self.b.ins().brif(done, join, &[], body, &[]);
        self.enter(body);
        let lane = self.b.ins().ctz(left);
        let off = self.b.ins().imul_imm_s(lane, i64::from(px));
        let from = self.b.ins().iadd(staged, off);
        let to = self.b.ins().iadd(at, off);
        let ty = if px == 16 { types::I32X4 } else { types::I32 };
        let texel = self.b.ins().load(ty, MemFlagsData::trusted(), from, 0);
        self.b.ins().store(texel_flags(), texel, to, 0);
        let lower = self.b.ins().iadd_imm_s(left, -1);
        let rest = self.b.ins().band(left, lower);
        self.b.ins().jump(head, &[BlockArg::Value(rest)]);
        self.b.seal_block(head);
    }

    /// The current mask as one bit per lane (lane `j` at bit `j`), `i64`.
    fn lane_bits(&mut self) -> Value {
        let mask = self.cur_mask();
        let mut bits = self.b.ins().iconst(types::I64, 0);
        for (i, m) in mask.iter().enumerate() {
            let b = self.b.ins().vhigh_bits(types::I64, *m);
            let b = self.b.ins().ishl_imm_u(b, 4 * i as i64);
            bits = self.b.ins().bor(bits, b);
        }
        bits
    }

    /// One colour component (a piece of `s`) as the stored byte of the
    /// 8-bit type of its class, in the low 8 bits of each `i32` lane (the
    /// others 0).
    fn channel_byte(&mut self, s: Scalar, v: Value) -> Value {
        match s {
            Scalar::F32 => {
                // convert_uchar_sat_rte(f * 255.0f) as the codec does it:
                // clamped to [0, 255] (a compare that is false for NaN makes
                // it 0), then rounded to nearest even by adding 2^23, whose
                // low bits are then the byte.
                let f = self.vcast(types::F32X4, v);
                let k = |cx: &mut Self, x: f32| {
                    let c = cx.b.ins().f32const(x);
                    cx.b.ins().splat(types::F32X4, c)
                };
                let (zero, max, shift) = (k(self, 0.0), k(self, 255.0), k(self, 8_388_608.0));
                let m = self.b.ins().fmul(f, max);
                let above = self.b.ins().fcmp(FloatCC::GreaterThan, m, zero);
                let above = self.vcast(types::F32X4, above);
                let m = self.b.ins().band(m, above);
                let below = self.b.ins().fcmp(FloatCC::LessThan, m, max);
                let below = self.vcast(types::F32X4, below);
                let m = self.b.ins().bitselect(below, m, max);
                let r = self.b.ins().fadd(m, shift);
                let r = self.vcast(types::I32X4, r);
                let byte = self.splat32(0xff);
                self.b.ins().band(r, byte)
            }
            Scalar::U32 => {
                let max = self.splat32(0xff);
                self.b.ins().umin(v, max)
            }
            _ => {
                let (lo, hi, byte) = (self.splat32(-128), self.splat32(127), self.splat32(0xff));
                let c = self.b.ins().smax(v, lo);
                let c = self.b.ins().smin(c, hi);
                self.b.ins().band(c, byte)
            }
        }
    }
}

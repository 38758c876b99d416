//! What `read_image*` and `write_image*` do to an image: coordinates to
//! texel indices by the sampler's addressing and filter, texels fetched,
//! converted and (for `CLK_FILTER_LINEAR`) blended, or one texel written.
//!
//! The rules are §8.2 of the OpenCL 1.2 specification ("Image Addressing and
//! Filtering") and §6.12.14.2 of OpenCL C ("Image Read and Write
//! Functions", "Selecting an Image from an Image Array"):
//! - nearest: `i = floor(u)` where `u = s · size` for normalised
//!   coordinates; linear: `i0 = floor(u − 0.5)`, `i1 = i0 + 1`,
//!   `a = frac(u − 0.5)` and the texels weighted `(1 − a)`, `a` per
//!   dimension;
//! - `CLK_ADDRESS_CLAMP_TO_EDGE` clamps indices into the image,
//!   `CLK_ADDRESS_CLAMP` reads the border colour for an index outside it,
//!   `CLK_ADDRESS_REPEAT` and `CLK_ADDRESS_MIRRORED_REPEAT` (normalised
//!   coordinates only) wrap `s` as the specification's formulas do;
//! - the layer of an image array is `clamp(rint(c), 0, layers − 1)` and is
//!   never normalised or filtered.
//!
//! Where OpenCL leaves the result undefined, vecl picks something that
//! never reads or writes outside the image: `CLK_ADDRESS_NONE` and the
//! sampler-less reads clamp like `CLAMP_TO_EDGE`; `REPEAT` and
//! `MIRRORED_REPEAT` with unnormalised coordinates clamp too; integer
//! coordinates ignore the normalised flag and the filter; `read_imagei` and
//! `read_imageui` always filter nearest; a write outside the image does
//! nothing.
//!
//! The pixels are reached through [`TexelMemory`] so the same code serves
//! the interpreter (a byte vector) and the JIT's host functions (the
//! descriptor's `data` pointer). [`PreparedImage`] does the per-image work
//! (shape, format) once, for callers that access many texels of one image;
//! [`read_image`] and [`write_image`] prepare the image on every call.

use super::codec::PixelCodec;
use super::format::{border_color, value_class, PixelValue, ValueClass};
use super::{object, ImageDesc};
use super::{SAMPLER_ADDRESS_CLAMP, SAMPLER_ADDRESS_MASK, SAMPLER_ADDRESS_MIRRORED_REPEAT};
use super::{SAMPLER_ADDRESS_REPEAT, SAMPLER_FILTER_LINEAR, SAMPLER_NORMALIZED};

/// The bytes of an image, addressed from pixel (0, 0, 0) of layer 0.
pub trait TexelMemory {
    /// Copies `out.len()` bytes at `offset` into `out`; `false`, with `out`
    /// untouched, when they are not all inside the image.
    fn load(&self, offset: u64, out: &mut [u8]) -> bool;
    /// Copies `bytes` to `offset`; `false`, writing nothing, when they are
    /// not all inside the image.
    fn store(&mut self, offset: u64, bytes: &[u8]) -> bool;
}

impl TexelMemory for [u8] {
    #[inline]
    fn load(&self, offset: u64, out: &mut [u8]) -> bool {
        let src = usize::try_from(offset)
            .ok()
            .and_then(|at| self.get(at..at.checked_add(out.len())?));
        match src {
            Some(src) => {
                out.copy_from_slice(src);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn store(&mut self, offset: u64, bytes: &[u8]) -> bool {
        let dst = usize::try_from(offset)
            .ok()
            .and_then(|at| self.get_mut(at..at.checked_add(bytes.len())?));
        match dst {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }
}

/// The coordinate argument of a read or write: (x, y, z or layer, unused),
/// components the image does not use ignored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coord {
    Int([i32; 4]),
    Float([f32; 4]),
}

/// How an image type reads its coordinates.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Spatial dimensions (1, 2 or 3), the first components of a coordinate.
    dims: usize,
    /// The coordinate component holding the array layer, for image arrays.
    layer: Option<usize>,
    /// Width, height, depth in pixels, each at least 1.
    size: [i64; 3],
    /// Layers (at least 1).
    layers: i64,
}

fn shape(desc: &ImageDesc) -> Option<Shape> {
    let (dims, layer) = match desc.image_type {
        object::IMAGE1D | object::IMAGE1D_BUFFER => (1, None),
        object::IMAGE1D_ARRAY => (1, Some(1)),
        object::IMAGE2D => (2, None),
        object::IMAGE2D_ARRAY => (2, Some(2)),
        object::IMAGE3D => (3, None),
        _ => return None,
    };
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX).max(1);
    Some(Shape {
        dims,
        layer,
        size: [clamp(desc.width), clamp(desc.height), clamp(desc.depth)],
        layers: clamp(desc.array_size),
    })
}

/// The sampler's addressing mode.
#[inline]
fn addressing(sampler: u32) -> u32 {
    sampler & SAMPLER_ADDRESS_MASK
}

/// `floor(u)` as an index (saturating; NaN gives 0).
#[inline]
fn floor_index(u: f32) -> i64 {
    u.floor() as i64
}

/// An index after addressing: `None` (the border colour) for
/// `CLK_ADDRESS_CLAMP` outside the image, otherwise clamped into it.
#[inline]
fn address(i: i64, n: i64, mode: u32) -> Option<i64> {
    if mode == SAMPLER_ADDRESS_CLAMP {
        (0..n).contains(&i).then_some(i)
    } else {
        Some(i.clamp(0, n - 1))
    }
}

/// `s` of a normalised mirrored-repeat coordinate folded into [0, 1]:
/// `s' = fabs(s − 2 · rint(0.5 · s))`.
fn mirror(s: f32) -> f32 {
    (s - 2.0 * (0.5 * s).round_ties_even()).abs()
}

/// The texel index of nearest filtering along one dimension of size `n`.
#[inline]
fn nearest(s: f32, n: i64, normalized: bool, mode: u32) -> Option<i64> {
    let w = n as f32;
    match mode {
        SAMPLER_ADDRESS_REPEAT if normalized => {
            let mut i = floor_index((s - s.floor()) * w);
            if i > n - 1 {
                i -= n;
            }
            Some(i.clamp(0, n - 1))
        }
        SAMPLER_ADDRESS_MIRRORED_REPEAT if normalized => {
            Some(floor_index(mirror(s) * w).clamp(0, n - 1))
        }
        _ => address(floor_index(if normalized { s * w } else { s }), n, mode),
    }
}

/// The two texel indices and the weight `a` of the second one for linear
/// filtering along one dimension of size `n`.
fn linear(s: f32, n: i64, normalized: bool, mode: u32) -> (Option<i64>, Option<i64>, f32) {
    let w = n as f32;
    let frac = |x: f32| x - x.floor();
    match mode {
        SAMPLER_ADDRESS_REPEAT if normalized => {
            let u = (s - s.floor()) * w;
            let mut i0 = floor_index(u - 0.5);
            let mut i1 = i0.saturating_add(1);
            if i0 < 0 {
                i0 += n;
            }
            if i1 > n - 1 {
                i1 -= n;
            }
            let a = frac(u - 0.5);
            (Some(i0.clamp(0, n - 1)), Some(i1.clamp(0, n - 1)), a)
        }
        SAMPLER_ADDRESS_MIRRORED_REPEAT if normalized => {
            let u = mirror(s) * w;
            let i0 = floor_index(u - 0.5);
            let i1 = i0.saturating_add(1);
            let a = frac(u - 0.5);
            (Some(i0.clamp(0, n - 1)), Some(i1.clamp(0, n - 1)), a)
        }
        _ => {
            let u = if normalized { s * w } else { s };
            let i0 = floor_index(u - 0.5);
            let i1 = i0.saturating_add(1);
            (address(i0, n, mode), address(i1, n, mode), frac(u - 0.5))
        }
    }
}

/// The byte offset of a texel whose indices are inside the image.
#[inline]
fn texel_offset(desc: &ImageDesc, shape: &Shape, index: [i64; 3], layer: i64, px: u32) -> u64 {
    let [x, y, z] = index.map(|i| i as u64);
    let slice = if shape.layer.is_some() {
        layer as u64
    } else {
        z
    };
    (x.wrapping_mul(u64::from(px)))
        .wrapping_add(y.wrapping_mul(desc.row_pitch))
        .wrapping_add(slice.wrapping_mul(desc.slice_pitch))
}

/// One texel converted by the read rules; `None` indices give the border
/// colour, and bytes outside the memory read as zeros.
#[inline]
fn fetch(
    img: &PreparedImage<'_>,
    mem: &(impl TexelMemory + ?Sized),
    index: [Option<i64>; 3],
    layer: i64,
) -> PixelValue {
    let (Some(x), Some(y), Some(z)) = (index[0], index[1], index[2]) else {
        return img.border;
    };
    let Some(codec) = &img.codec else {
        return PixelValue::from_bits(img.format_class, [0; 4]);
    };
    let px = codec.pixel_size();
    let mut bytes = [0u8; 16];
    let bytes = &mut bytes[..px as usize];
    let offset = texel_offset(img.desc, &img.shape, [x, y, z], layer, px);
    // Constant lengths for the common sizes let the copy be inlined.
    match bytes.len() {
        4 => mem.load(offset, &mut bytes[..4]),
        16 => mem.load(offset, &mut bytes[..16]),
        _ => mem.load(offset, bytes),
    };
    codec.decode(bytes)
}

/// An image ready for texel accesses: its shape, format and border colour
/// worked out once from the descriptor.
#[derive(Clone, Copy, Debug)]
pub struct PreparedImage<'a> {
    desc: &'a ImageDesc,
    shape: Shape,
    /// `None` for an unsupported format: reads give zeros, writes nothing.
    codec: Option<PixelCodec>,
    /// The class the channel type reads as.
    format_class: ValueClass,
    border: PixelValue,
}

impl<'a> PreparedImage<'a> {
    /// `None` when the descriptor's image type is unknown (every read then
    /// gives zeros and every write does nothing).
    #[inline]
    pub fn new(desc: &'a ImageDesc) -> Option<PreparedImage<'a>> {
        Some(PreparedImage {
            desc,
            shape: shape(desc)?,
            codec: PixelCodec::new(desc.channel_order, desc.channel_type),
            format_class: value_class(desc.channel_type),
            border: border_color(desc.channel_order, desc.channel_type),
        })
    }

    /// [`read_image`] of this image.
    #[inline]
    pub fn read(
        &self,
        mem: &(impl TexelMemory + ?Sized),
        sampler: Option<u32>,
        coord: Coord,
        class: ValueClass,
    ) -> PixelValue {
        let shape = &self.shape;
        let sampler = sampler.unwrap_or(0);
        let mode = addressing(sampler);
        let layer = layer_of(shape, coord);
        let value = match coord {
            Coord::Int(c) => {
                let mut index = [Some(0); 3];
                for (d, i) in index.iter_mut().enumerate().take(shape.dims) {
                    *i = address(i64::from(c[d]), shape.size[d], mode);
                }
                fetch(self, mem, index, layer)
            }
            Coord::Float(c) => {
                let normalized = sampler & SAMPLER_NORMALIZED != 0;
                let filter_linear = sampler & SAMPLER_FILTER_LINEAR != 0
                    && class == ValueClass::Float
                    && self.format_class == ValueClass::Float;
                if filter_linear {
                    PixelValue::Float(read_linear(self, mem, c, normalized, mode, layer))
                } else {
                    let mut index = [Some(0); 3];
                    for (d, i) in index.iter_mut().enumerate().take(shape.dims) {
                        *i = nearest(c[d], shape.size[d], normalized, mode);
                    }
                    fetch(self, mem, index, layer)
                }
            }
        };
        value.reinterpret(class)
    }

    /// [`write_image`] of this image.
    #[inline]
    pub fn write(&self, mem: &mut (impl TexelMemory + ?Sized), coord: [i32; 4], value: PixelValue) {
        let shape = &self.shape;
        let Some(codec) = &self.codec else {
            return;
        };
        let px = codec.pixel_size();
        let mut index = [0i64; 3];
        for d in 0..shape.dims {
            let i = i64::from(coord[d]);
            if !(0..shape.size[d]).contains(&i) {
                return;
            }
            index[d] = i;
        }
        let layer = match shape.layer {
            Some(c) => {
                let l = i64::from(coord[c]);
                if !(0..shape.layers).contains(&l) {
                    return;
                }
                l
            }
            None => 0,
        };
        let mut bytes = [0u8; 16];
        let bytes = &mut bytes[..px as usize];
        codec.encode(value, bytes);
        let offset = texel_offset(self.desc, shape, index, layer, px);
        // As in `fetch`: constant lengths for the common sizes.
        match bytes.len() {
            4 => mem.store(offset, &bytes[..4]),
            16 => mem.store(offset, &bytes[..16]),
            _ => mem.store(offset, bytes),
        };
    }
}

/// The array layer a coordinate selects (0 for images that are not arrays).
#[inline]
fn layer_of(shape: &Shape, coord: Coord) -> i64 {
    let Some(c) = shape.layer else {
        return 0;
    };
    let l = match coord {
        Coord::Int(v) => i64::from(v[c]),
        Coord::Float(v) => v[c].round_ties_even() as i64,
    };
    l.clamp(0, shape.layers - 1)
}

/// `read_imagef` / `read_imagei` / `read_imageui` (by `class`) of the image
/// `desc` whose pixels `mem` holds, at `coord`, with `sampler` (`None` for
/// the sampler-less forms of OpenCL 1.2, which read like an unnormalised,
/// `CLK_ADDRESS_NONE`, nearest sampler).
pub fn read_image(
    desc: &ImageDesc,
    mem: &(impl TexelMemory + ?Sized),
    sampler: Option<u32>,
    coord: Coord,
    class: ValueClass,
) -> PixelValue {
    match PreparedImage::new(desc) {
        Some(img) => img.read(mem, sampler, coord, class),
        None => PixelValue::from_bits(class, [0; 4]),
    }
}

/// Linear filtering: the 2, 4 or 8 texels around the coordinate, weighted
/// as §8.2 writes it, `T[i0] (1 − a) + T[i1] a` per dimension, corners taken
/// x fastest.
fn read_linear(
    img: &PreparedImage<'_>,
    mem: &(impl TexelMemory + ?Sized),
    c: [f32; 4],
    normalized: bool,
    mode: u32,
    layer: i64,
) -> [f32; 4] {
    let shape = &img.shape;
    let mut taps = [(Some(0), Some(0), 0f32); 3];
    for (d, t) in taps.iter_mut().enumerate().take(shape.dims) {
        *t = linear(c[d], shape.size[d], normalized, mode);
    }
    let mut sum = [0f32; 4];
    for corner in 0..1usize << shape.dims {
        let mut weight = 1f32;
        let mut index = [Some(0); 3];
        for d in 0..shape.dims {
            let (i0, i1, a) = taps[d];
            let second = corner >> d & 1 == 1;
            index[d] = if second { i1 } else { i0 };
            weight *= if second { a } else { 1.0 - a };
        }
        let texel = fetch(img, mem, index, layer).as_f32();
        for (s, t) in sum.iter_mut().zip(texel) {
            *s += weight * t;
        }
    }
    sum
}

/// `write_imagef` / `write_imagei` / `write_imageui`: `value` converted by
/// the image's format and stored at integer coordinate `coord` (x, y, z or
/// layer). A coordinate outside the image (or its layers) writes nothing.
pub fn write_image(
    desc: &ImageDesc,
    mem: &mut (impl TexelMemory + ?Sized),
    coord: [i32; 4],
    value: PixelValue,
) {
    if let Some(img) = PreparedImage::new(desc) {
        img.write(mem, coord, value);
    }
}

/// The `get_image_dim` result: (width, height) for 2-D images and 2-D
/// arrays, (width, height, depth, 0) for 3-D images.
pub fn image_dim(desc: &ImageDesc) -> [i32; 4] {
    let w = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
    let depth = if desc.image_type == object::IMAGE3D {
        w(desc.depth)
    } else {
        0
    };
    [w(desc.width), w(desc.height), depth, 0]
}

//! Image formats: which (channel order, channel type) pairs vecl offers, how
//! many bytes a pixel of each takes, and the conversions between a pixel's
//! bytes and the four-component value `read_image*` returns and
//! `write_image*` takes.
//!
//! The rules are those of OpenCL C 1.2 §6.12.14.4 and §8.3 ("Conversion
//! Rules for normalized integer / half / floating-point / signed and
//! unsigned integer channel data types"):
//! - reading a normalized channel gives `x / 255.0f` (`UNORM_INT8`),
//!   `max(-1, x / 127.0f)` (`SNORM_INT8`) and likewise for 16 bits, each a
//!   single correctly rounded division; `half` widens exactly;
//! - writing one gives `convert_uchar_sat_rte(f * 255.0f)`,
//!   `convert_char_sat_rte(f * 127.0f)`, … (NaN → 0); `half` rounds to
//!   nearest even; integer channels saturate (`convert_char_sat(i)`, …);
//! - channels an order lacks read as 0, except alpha, which reads as 1;
//!   `CL_INTENSITY` replicates its channel into all four components,
//!   `CL_LUMINANCE` into red, green and blue; `CL_BGRA` and `CL_ARGB` store
//!   their channels in memory in the order their name says.
//!
//! Reading an integer image with `read_imagef`, or writing a float value
//! into one, is undefined in OpenCL; here the value's bits are reinterpreted
//! as the class the format wants, which is deterministic and never panics.

use super::{channel, order};
use crate::interp::convert::{f16_to_f64, f64_to_f16, RoundDir};

/// Every channel type of OpenCL 1.2 but the packed ones.
const PLAIN_TYPES: [u32; 12] = [
    channel::SNORM_INT8,
    channel::SNORM_INT16,
    channel::UNORM_INT8,
    channel::UNORM_INT16,
    channel::SIGNED_INT8,
    channel::SIGNED_INT16,
    channel::SIGNED_INT32,
    channel::UNSIGNED_INT8,
    channel::UNSIGNED_INT16,
    channel::UNSIGNED_INT32,
    channel::HALF_FLOAT,
    channel::FLOAT,
];
/// The types `CL_INTENSITY` and `CL_LUMINANCE` allow.
const NORM_FLOAT_TYPES: [u32; 6] = [
    channel::SNORM_INT8,
    channel::SNORM_INT16,
    channel::UNORM_INT8,
    channel::UNORM_INT16,
    channel::HALF_FLOAT,
    channel::FLOAT,
];
/// The types `CL_BGRA` and `CL_ARGB` allow.
const BYTE_TYPES: [u32; 4] = [
    channel::UNORM_INT8,
    channel::SNORM_INT8,
    channel::SIGNED_INT8,
    channel::UNSIGNED_INT8,
];
/// The packed types, each only with `CL_RGB`.
const PACKED_TYPES: [u32; 3] = [
    channel::UNORM_SHORT_565,
    channel::UNORM_SHORT_555,
    channel::UNORM_INT_101010,
];
const FORMAT_COUNT: usize =
    5 * PLAIN_TYPES.len() + 2 * NORM_FLOAT_TYPES.len() + 2 * BYTE_TYPES.len() + PACKED_TYPES.len();

/// Appends `order` paired with each of `types` at `at`; returns the new end.
const fn pair_all(
    mut list: [(u32, u32); FORMAT_COUNT],
    mut at: usize,
    order: u32,
    types: &[u32],
) -> ([(u32, u32); FORMAT_COUNT], usize) {
    let mut i = 0;
    while i < types.len() {
        list[at] = (order, types[i]);
        at += 1;
        i += 1;
    }
    (list, at)
}

const fn all_formats() -> [(u32, u32); FORMAT_COUNT] {
    let list = [(0, 0); FORMAT_COUNT];
    let (list, at) = pair_all(list, 0, order::RGBA, &PLAIN_TYPES);
    let (list, at) = pair_all(list, at, order::BGRA, &BYTE_TYPES);
    let (list, at) = pair_all(list, at, order::ARGB, &BYTE_TYPES);
    let (list, at) = pair_all(list, at, order::R, &PLAIN_TYPES);
    let (list, at) = pair_all(list, at, order::RG, &PLAIN_TYPES);
    let (list, at) = pair_all(list, at, order::RA, &PLAIN_TYPES);
    let (list, at) = pair_all(list, at, order::A, &PLAIN_TYPES);
    let (list, at) = pair_all(list, at, order::INTENSITY, &NORM_FLOAT_TYPES);
    let (list, at) = pair_all(list, at, order::LUMINANCE, &NORM_FLOAT_TYPES);
    let (list, at) = pair_all(list, at, order::RGB, &PACKED_TYPES);
    assert!(at == FORMAT_COUNT);
    list
}

/// The (channel order, channel type) pairs vecl supports, for
/// `clGetSupportedImageFormats`: the OpenCL 1.2 full-profile minimum
/// (`CL_RGBA` with every non-packed type, `CL_BGRA` with `CL_UNORM_INT8`)
/// and every other non-`x` order with every type the specification allows
/// it. Every pair here is read, written, sampled and filled by this module.
pub const SUPPORTED_FORMATS: &[(u32, u32)] = &all_formats();

/// Whether `(order, channel_type)` is one of [`SUPPORTED_FORMATS`].
/// (A match rather than a search of the list: every texel access asks.)
pub fn is_supported(channel_order: u32, channel_type: u32) -> bool {
    let types: &[u32] = match channel_order {
        order::RGBA | order::R | order::RG | order::RA | order::A => &PLAIN_TYPES,
        order::BGRA | order::ARGB => &BYTE_TYPES,
        order::INTENSITY | order::LUMINANCE => &NORM_FLOAT_TYPES,
        order::RGB => &PACKED_TYPES,
        _ => return false,
    };
    types.contains(&channel_type)
}

/// Which component (0 = red … 3 = alpha) each stored channel holds, in
/// memory order; `None` for an unsupported order. `CL_INTENSITY` and
/// `CL_LUMINANCE` store one channel, replicated when read.
fn stored_components(channel_order: u32) -> Option<&'static [usize]> {
    Some(match channel_order {
        order::R | order::INTENSITY | order::LUMINANCE => &[0],
        order::A => &[3],
        order::RG => &[0, 1],
        order::RA => &[0, 3],
        order::RGB => &[0, 1, 2],
        order::RGBA => &[0, 1, 2, 3],
        order::BGRA => &[2, 1, 0, 3],
        order::ARGB => &[3, 0, 1, 2],
        _ => return None,
    })
}

/// Bytes of one channel of a non-packed type.
fn channel_size(channel_type: u32) -> Option<u32> {
    Some(match channel_type {
        channel::SNORM_INT8 | channel::UNORM_INT8 => 1,
        channel::SIGNED_INT8 | channel::UNSIGNED_INT8 => 1,
        channel::SNORM_INT16 | channel::UNORM_INT16 => 2,
        channel::SIGNED_INT16 | channel::UNSIGNED_INT16 => 2,
        channel::HALF_FLOAT => 2,
        channel::SIGNED_INT32 | channel::UNSIGNED_INT32 | channel::FLOAT => 4,
        _ => return None,
    })
}

/// Bytes of one pixel of the format, or `None` when vecl does not support
/// the pair.
pub fn pixel_size(channel_order: u32, channel_type: u32) -> Option<u32> {
    if !is_supported(channel_order, channel_type) {
        return None;
    }
    match channel_type {
        channel::UNORM_SHORT_565 | channel::UNORM_SHORT_555 => Some(2),
        channel::UNORM_INT_101010 => Some(4),
        _ => {
            let n = stored_components(channel_order)?.len() as u32;
            Some(n * channel_size(channel_type)?)
        }
    }
}

/// The four components (red, green, blue, alpha) of a pixel as a kernel
/// sees them: what `read_imagef`/`read_imagei`/`read_imageui` return and
/// `write_imagef`/`write_imagei`/`write_imageui` take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PixelValue {
    Float([f32; 4]),
    Int([i32; 4]),
    Uint([u32; 4]),
}

/// Which of the three value classes a channel type reads as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueClass {
    /// Normalized, half and float channels (`read_imagef`).
    Float,
    /// Signed integer channels (`read_imagei`).
    Int,
    /// Unsigned integer channels (`read_imageui`).
    Uint,
}

/// The value class `read_image*` of a `channel_type` image returns.
#[inline]
pub fn value_class(channel_type: u32) -> ValueClass {
    match channel_type {
        channel::SIGNED_INT8 | channel::SIGNED_INT16 | channel::SIGNED_INT32 => ValueClass::Int,
        channel::UNSIGNED_INT8 | channel::UNSIGNED_INT16 | channel::UNSIGNED_INT32 => {
            ValueClass::Uint
        }
        _ => ValueClass::Float,
    }
}

impl PixelValue {
    /// The four components' bits, whatever the class.
    #[inline]
    pub fn bits(self) -> [u32; 4] {
        match self {
            PixelValue::Float(v) => v.map(f32::to_bits),
            PixelValue::Int(v) => v.map(|x| x as u32),
            PixelValue::Uint(v) => v,
        }
    }

    /// A value of class `class` made of `bits`.
    #[inline]
    pub fn from_bits(class: ValueClass, bits: [u32; 4]) -> PixelValue {
        match class {
            ValueClass::Float => PixelValue::Float(bits.map(f32::from_bits)),
            ValueClass::Int => PixelValue::Int(bits.map(|x| x as i32)),
            ValueClass::Uint => PixelValue::Uint(bits),
        }
    }

    /// The same bits seen as class `class` (the undefined cases of OpenCL:
    /// `read_imagef` of an integer image and the like).
    #[inline]
    pub fn reinterpret(self, class: ValueClass) -> PixelValue {
        PixelValue::from_bits(class, self.bits())
    }

    /// The components as floats; integer classes reinterpreted.
    #[inline]
    pub fn as_f32(self) -> [f32; 4] {
        self.bits().map(f32::from_bits)
    }
}

/// `x` scaled by `scale`, rounded to nearest even and saturated to
/// `[lo, hi]` in the float domain: `convert_T_sat_rte(x * scale)`.
fn norm_to_int(x: f32, scale: f32, lo: f32, hi: f32) -> i32 {
    let v = x * scale;
    if v.is_nan() {
        return 0;
    }
    v.round_ties_even().clamp(lo, hi) as i32
}

/// Converts one component into the bits of a stored channel of
/// `channel_type` (not a packed type), per the write rules.
fn encode_channel(channel_type: u32, bits: u32) -> u32 {
    let f = f32::from_bits(bits);
    let i = bits as i32;
    match channel_type {
        channel::UNORM_INT8 => norm_to_int(f, 255.0, 0.0, 255.0) as u32,
        channel::UNORM_INT16 => norm_to_int(f, 65535.0, 0.0, 65535.0) as u32,
        channel::SNORM_INT8 => norm_to_int(f, 127.0, -128.0, 127.0) as u32,
        channel::SNORM_INT16 => norm_to_int(f, 32767.0, -32768.0, 32767.0) as u32,
        channel::SIGNED_INT8 => i.clamp(-128, 127) as u32,
        channel::SIGNED_INT16 => i.clamp(-32768, 32767) as u32,
        channel::UNSIGNED_INT8 => bits.min(0xff),
        channel::UNSIGNED_INT16 => bits.min(0xffff),
        channel::HALF_FLOAT => u32::from(f64_to_f16(f64::from(f), RoundDir::NearestEven)),
        // SIGNED_INT32, UNSIGNED_INT32 and FLOAT store the bits as they are.
        _ => bits,
    }
}

/// Converts the stored bits of one channel of `channel_type` into the bits
/// of the component `read_image*` returns.
fn decode_channel(channel_type: u32, raw: u32) -> u32 {
    let f = match channel_type {
        channel::UNORM_INT8 | channel::UNORM_INT16 => {
            let max = if channel_type == channel::UNORM_INT8 {
                255.0
            } else {
                65535.0
            };
            raw as f32 / max
        }
        // The most negative stored value reads as -1, like the next one.
        channel::SNORM_INT8 => (f32::from(raw as u8 as i8) / 127.0).max(-1.0),
        channel::SNORM_INT16 => (f32::from(raw as u16 as i16) / 32767.0).max(-1.0),
        // A half widens exactly (NaN stays NaN, -65504 stays -65504).
        channel::HALF_FLOAT => f16_to_f64(raw as u16) as f32,
        channel::SIGNED_INT8 => return i32::from(raw as u8 as i8) as u32,
        channel::SIGNED_INT16 => return i32::from(raw as u16 as i16) as u32,
        // Unsigned integers were stored zero-extended; 32-bit types and
        // FLOAT hold the bits as they are.
        _ => return raw,
    };
    f.to_bits()
}

/// The bit layouts of the packed `CL_RGB` types: (shift, width) of red,
/// green and blue.
fn packed_fields(channel_type: u32) -> Option<[(u32, u32); 3]> {
    match channel_type {
        channel::UNORM_SHORT_565 => Some([(11, 5), (5, 6), (0, 5)]),
        channel::UNORM_SHORT_555 => Some([(10, 5), (5, 5), (0, 5)]),
        channel::UNORM_INT_101010 => Some([(20, 10), (10, 10), (0, 10)]),
        _ => None,
    }
}

/// Writes `value` as one pixel of format `(channel_order, channel_type)`
/// into the first [`pixel_size`] bytes of `out`, little-endian, by the
/// `write_image*` conversion rules. An unsupported format, or an `out`
/// shorter than a pixel, writes nothing.
pub fn encode_pixel(channel_order: u32, channel_type: u32, value: PixelValue, out: &mut [u8]) {
    let Some(size) = pixel_size(channel_order, channel_type) else {
        return;
    };
    let Some(out) = out.get_mut(..size as usize) else {
        return;
    };
    let bits = value.reinterpret(value_class(channel_type)).bits();
    if let Some(fields) = packed_fields(channel_type) {
        let mut word = 0u32;
        for (c, (shift, width)) in fields.into_iter().enumerate() {
            let max = ((1u32 << width) - 1) as f32;
            let v = norm_to_int(f32::from_bits(bits[c]), max, 0.0, max) as u32;
            word |= v << shift;
        }
        out.copy_from_slice(&word.to_le_bytes()[..size as usize]);
        return;
    }
    let Some(components) = stored_components(channel_order) else {
        return;
    };
    let width = size as usize / components.len();
    for (chunk, &c) in out.chunks_exact_mut(width).zip(components) {
        let stored = encode_channel(channel_type, bits[c]);
        chunk.copy_from_slice(&stored.to_le_bytes()[..width]);
    }
}

/// Reads one pixel of format `(channel_order, channel_type)` from the first
/// [`pixel_size`] bytes of `bytes` by the `read_image*` conversion rules:
/// the value class of the channel type, missing components filled with
/// (0, 0, 0, 1), swizzled orders put back in red, green, blue, alpha order.
/// An unsupported format or a short `bytes` reads as all zeros (of the
/// channel type's class).
pub fn decode_pixel(channel_order: u32, channel_type: u32, bytes: &[u8]) -> PixelValue {
    let class = value_class(channel_type);
    let one = match class {
        ValueClass::Float => 1f32.to_bits(),
        _ => 1,
    };
    let zeros = PixelValue::from_bits(class, [0; 4]);
    let Some(size) = pixel_size(channel_order, channel_type) else {
        return zeros;
    };
    let Some(bytes) = bytes.get(..size as usize) else {
        return zeros;
    };
    let mut out = [0, 0, 0, one];
    if let Some(fields) = packed_fields(channel_type) {
        let mut word = [0u8; 4];
        word[..bytes.len()].copy_from_slice(bytes);
        let word = u32::from_le_bytes(word);
        for (c, (shift, width)) in fields.into_iter().enumerate() {
            let max = (1u32 << width) - 1;
            out[c] = (((word >> shift) & max) as f32 / max as f32).to_bits();
        }
        return PixelValue::from_bits(class, out);
    }
    let Some(components) = stored_components(channel_order) else {
        return zeros;
    };
    let width = size as usize / components.len();
    for (chunk, &c) in bytes.chunks_exact(width).zip(components) {
        let mut raw = [0u8; 4];
        raw[..width].copy_from_slice(chunk);
        out[c] = decode_channel(channel_type, u32::from_le_bytes(raw));
    }
    match channel_order {
        order::INTENSITY => out = [out[0]; 4],
        order::LUMINANCE => out = [out[0], out[0], out[0], one],
        _ => {}
    }
    PixelValue::from_bits(class, out)
}

/// The border colour of `CL_ADDRESS_CLAMP` for an image of this format:
/// (0, 0, 0, 0) when the order has an alpha channel, (0, 0, 0, 1)
/// otherwise, in the channel type's class.
pub fn border_color(channel_order: u32, channel_type: u32) -> PixelValue {
    let class = value_class(channel_type);
    let has_alpha = matches!(
        channel_order,
        order::A | order::RA | order::RGBA | order::BGRA | order::ARGB | order::INTENSITY
    );
    let alpha = match (has_alpha, class) {
        (true, _) => 0,
        (false, ValueClass::Float) => 1f32.to_bits(),
        (false, _) => 1,
    };
    PixelValue::from_bits(class, [0, 0, 0, alpha])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_profile_minimum_is_offered() {
        for t in PLAIN_TYPES {
            assert!(is_supported(order::RGBA, t), "RGBA {t:#x}");
        }
        assert!(is_supported(order::BGRA, channel::UNORM_INT8));
        assert!(!is_supported(order::BGRA, channel::FLOAT));
        assert!(!is_supported(order::RGB, channel::FLOAT));
        let mut sorted = SUPPORTED_FORMATS.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), SUPPORTED_FORMATS.len());
    }

    #[test]
    fn is_supported_agrees_with_the_list() {
        let mut accepted = 0;
        for o in 0x10B0..=0x10C0 {
            for t in 0x10D0..=0x10E0 {
                if is_supported(o, t) {
                    assert!(SUPPORTED_FORMATS.contains(&(o, t)), "{o:#x}/{t:#x}");
                    accepted += 1;
                }
            }
        }
        assert_eq!(accepted, SUPPORTED_FORMATS.len());
    }

    #[test]
    fn pixel_sizes() {
        assert_eq!(pixel_size(order::RGBA, channel::UNORM_INT8), Some(4));
        assert_eq!(pixel_size(order::RGBA, channel::FLOAT), Some(16));
        assert_eq!(pixel_size(order::RG, channel::HALF_FLOAT), Some(4));
        assert_eq!(pixel_size(order::R, channel::SIGNED_INT16), Some(2));
        assert_eq!(pixel_size(order::RGB, channel::UNORM_SHORT_565), Some(2));
        assert_eq!(pixel_size(order::RGB, channel::UNORM_INT_101010), Some(4));
        assert_eq!(pixel_size(order::RGBX, channel::UNORM_INT8), None);
        assert_eq!(pixel_size(order::INTENSITY, channel::SIGNED_INT8), None);
        assert_eq!(pixel_size(0, 0), None);
    }

    #[test]
    fn unorm8_write_rounds_to_nearest_even_and_saturates() {
        let mut px = [0u8; 4];
        // 0.5 * 255 = 127.5 → 128 (even); 1/255*1.5 → 1.5 → 2; NaN → 0.
        let v = PixelValue::Float([0.5, 1.5 / 255.0, f32::NAN, 2.0]);
        encode_pixel(order::RGBA, channel::UNORM_INT8, v, &mut px);
        assert_eq!(px, [128, 2, 0, 255]);
        encode_pixel(
            order::RGBA,
            channel::UNORM_INT8,
            PixelValue::Float([-1.0; 4]),
            &mut px,
        );
        assert_eq!(px, [0; 4]);
    }

    #[test]
    fn bgra_and_argb_store_in_name_order() {
        let v = PixelValue::Float([1.0, 0.0, 128.0 / 255.0, 64.0 / 255.0]);
        let mut px = [0u8; 4];
        encode_pixel(order::BGRA, channel::UNORM_INT8, v, &mut px);
        assert_eq!(px, [128, 0, 255, 64]);
        assert_eq!(decode_pixel(order::BGRA, channel::UNORM_INT8, &px), v);
        encode_pixel(order::ARGB, channel::UNORM_INT8, v, &mut px);
        assert_eq!(px, [64, 255, 0, 128]);
        assert_eq!(decode_pixel(order::ARGB, channel::UNORM_INT8, &px), v);
    }

    #[test]
    fn missing_channels_read_as_zero_and_alpha_one() {
        let r = decode_pixel(order::R, channel::SIGNED_INT8, &[0xff]);
        assert_eq!(r, PixelValue::Int([-1, 0, 0, 1]));
        let a = decode_pixel(order::A, channel::UNSIGNED_INT16, &[7, 0]);
        assert_eq!(a, PixelValue::Uint([0, 0, 0, 7]));
        let ra = decode_pixel(order::RA, channel::UNORM_INT8, &[255, 0]);
        assert_eq!(ra, PixelValue::Float([1.0, 0.0, 0.0, 0.0]));
        let i = decode_pixel(order::INTENSITY, channel::UNORM_INT8, &[51]);
        assert_eq!(i, PixelValue::Float([0.2; 4]));
        let l = decode_pixel(order::LUMINANCE, channel::FLOAT, &0.25f32.to_le_bytes());
        assert_eq!(l, PixelValue::Float([0.25, 0.25, 0.25, 1.0]));
    }

    #[test]
    fn snorm_reads_clamp_the_most_negative_value() {
        let v = decode_pixel(order::RG, channel::SNORM_INT8, &[0x80, 0x81]);
        assert_eq!(v, PixelValue::Float([-1.0, -1.0, 0.0, 1.0]));
        let v = decode_pixel(order::R, channel::SNORM_INT16, &0x7fffu16.to_le_bytes());
        assert_eq!(v, PixelValue::Float([1.0, 0.0, 0.0, 1.0]));
    }

    #[test]
    fn integer_writes_saturate() {
        let mut px = [0u8; 4];
        let v = PixelValue::Int([300, -300, 5, -5]);
        encode_pixel(order::RGBA, channel::SIGNED_INT8, v, &mut px);
        assert_eq!(px, [127, 0x80, 5, 0xfb]);
        let v = PixelValue::Uint([70000, 1, 2, 3]);
        let mut px = [0u8; 8];
        encode_pixel(order::RGBA, channel::UNSIGNED_INT16, v, &mut px);
        assert_eq!(px, [0xff, 0xff, 1, 0, 2, 0, 3, 0]);
    }

    #[test]
    fn half_writes_round_to_nearest_even() {
        // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: rounds to 1.
        let mut px = [0u8; 2];
        let v = PixelValue::Float([1.0 + 2f32.powi(-11), 0.0, 0.0, 0.0]);
        encode_pixel(order::R, channel::HALF_FLOAT, v, &mut px);
        assert_eq!(u16::from_le_bytes(px), 0x3c00);
        let v = PixelValue::Float([1.0 + 3.0 * 2f32.powi(-11), 0.0, 0.0, 0.0]);
        encode_pixel(order::R, channel::HALF_FLOAT, v, &mut px);
        assert_eq!(u16::from_le_bytes(px), 0x3c02);
    }

    #[test]
    fn packed_rgb_types() {
        let v = PixelValue::Float([1.0, 0.5, 0.0, 1.0]);
        let mut px = [0u8; 2];
        encode_pixel(order::RGB, channel::UNORM_SHORT_565, v, &mut px);
        // 0.5 * 63 = 31.5 → 32.
        assert_eq!(u16::from_le_bytes(px), (31 << 11) | (32 << 5));
        let back = decode_pixel(order::RGB, channel::UNORM_SHORT_565, &px);
        assert_eq!(back, PixelValue::Float([1.0, 32.0 / 63.0, 0.0, 1.0]));
    }

    #[test]
    fn bad_formats_and_short_buffers_do_not_panic() {
        let mut px = [9u8; 2];
        encode_pixel(
            order::RGBA,
            channel::FLOAT,
            PixelValue::Float([1.0; 4]),
            &mut px,
        );
        assert_eq!(px, [9, 9]);
        assert_eq!(decode_pixel(0, 0, &[]), PixelValue::Float([0.0; 4]));
        assert_eq!(
            decode_pixel(order::RGBA, channel::SIGNED_INT32, &[1, 2]),
            PixelValue::Int([0; 4])
        );
    }

    #[test]
    fn border_colours() {
        assert_eq!(
            border_color(order::RGBA, channel::FLOAT),
            PixelValue::Float([0.0; 4])
        );
        assert_eq!(
            border_color(order::R, channel::UNSIGNED_INT8),
            PixelValue::Uint([0, 0, 0, 1])
        );
    }

    #[test]
    fn half_channels_widen_exactly_below_minus_one_and_for_nan() {
        // -2.0, -65504 (the most negative finite half), a quiet NaN, 0.5.
        let bits: [u16; 4] = [0xC000, 0xFBFF, 0x7E00, 0x3800];
        let bytes: Vec<u8> = bits.iter().flat_map(|b| b.to_le_bytes()).collect();
        let PixelValue::Float(v) = decode_pixel(order::RGBA, channel::HALF_FLOAT, &bytes) else {
            panic!("a half image reads as float");
        };
        assert_eq!(v[0], -2.0);
        assert_eq!(v[1], -65504.0);
        assert!(v[2].is_nan());
        assert_eq!(v[3], 0.5);
        // SNORM keeps its clamp: the most negative stored value reads as -1.
        let PixelValue::Float(s) = decode_pixel(order::R, channel::SNORM_INT8, &[0x80]) else {
            panic!("an SNORM image reads as float");
        };
        assert_eq!(s[0], -1.0);
    }
}

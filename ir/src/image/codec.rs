//! A pixel format resolved once: [`PixelCodec`] holds everything
//! [`decode_pixel`](super::decode_pixel) and
//! [`encode_pixel`](super::encode_pixel) would look up on every call (pixel
//! size, value class, which component each stored channel holds) and, for
//! the formats kernels use most, a dedicated conversion without the
//! per-channel dispatch of the general code.
//!
//! Image builtins convert one texel per work-item, so the general functions
//! repeat the same format lookups millions of times for one image. Callers
//! that touch many texels of one image build a codec per image and convert
//! through it; its results are bit for bit those of the general functions
//! (a test compares them on every supported format).

use super::format::{self, PixelValue, ValueClass};
use super::{channel, order};

/// The conversions with a dedicated implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fast {
    /// `CL_RGBA` / `CL_UNORM_INT8`.
    RgbaUnorm8,
    /// `CL_R` / `CL_UNORM_INT8`.
    RUnorm8,
    /// `CL_RGBA` with `CL_FLOAT` or a 32-bit integer type: the bits as
    /// they are.
    Rgba32,
    /// `CL_R` with `CL_FLOAT` or a 32-bit integer type.
    R32,
    /// `CL_RGBA` / `CL_HALF_FLOAT`.
    RgbaHalf,
    /// `CL_R` / `CL_HALF_FLOAT`.
    RHalf,
    /// Everything else, through the general per-channel code.
    General,
}

/// One supported format, ready to convert pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelCodec {
    channel_order: u32,
    channel_type: u32,
    pixel_size: u32,
    class: ValueClass,
    fast: Fast,
}

/// `x / 255.0f` of a stored `UNORM_INT8` channel, as the general read gives it.
#[inline]
fn unorm8(b: u8) -> u32 {
    (f32::from(b) / 255.0).to_bits()
}

/// `convert_uchar_sat_rte(f · 255)` of a component's bits (NaN → 0).
#[inline]
fn to_unorm8(bits: u32) -> u8 {
    let v = f32::from_bits(bits) * 255.0;
    if v.is_nan() {
        return 0;
    }
    // Clamping before rounding gives the same result (the bounds are
    // integers), and in [0, 255] adding and removing 2^23 rounds to nearest
    // even without a library call.
    const SHIFT: f32 = 8_388_608.0;
    ((v.clamp(0.0, 255.0) + SHIFT) - SHIFT) as u8
}

/// A stored `half` read as the general code reads it: widened exactly.
#[inline]
fn half(h: u16) -> u32 {
    half_to_f32(h).to_bits()
}

/// `half` bits widened exactly to `f32` (NaN payloads kept in the top
/// mantissa bits, quieted).
#[inline]
fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from(h >> 10 & 0x1f);
    let mant = u32::from(h & 0x3ff);
    let bits = match exp {
        // Zero and subnormals: mant · 2^-24 is exact in f32.
        0 => {
            let m = mant as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -m } else { m };
        }
        31 if mant == 0 => sign | 0x7f80_0000,
        31 => sign | 0x7fc0_0000 | mant << 13,
        _ => sign | (exp + 112) << 23 | mant << 13,
    };
    f32::from_bits(bits)
}

/// The stored bits of a component written to a `half` channel: rounded
/// to nearest even on the bits, as the general code's
/// `f64_to_f16(x, NearestEven)` rounds (NaNs keep the top payload bits,
/// quieted; overflow gives infinity).
#[inline]
fn to_half(bits: u32) -> u16 {
    let sign = (bits >> 16 & 0x8000) as u16;
    let exp = (bits >> 23 & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return match mant {
            0 => sign | 0x7c00,
            _ => sign | 0x7e00 | (mant >> 13 & 0x1ff) as u16,
        };
    }
    let e = exp - 127;
    if e > 15 {
        return sign | 0x7c00;
    }
    // Drop `shift` bits of the 24-bit significand: 13 for normal halves,
    // more below 2^-14 where the unit of a half is 2^-24.
    let shift = 13 + (-14 - e).max(0);
    if shift > 24 {
        return sign;
    }
    let m = mant | 0x80_0000;
    let q = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    let q = if rem > halfway || (rem == halfway && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    if shift > 13 {
        // Subnormal, or the smallest normal after rounding up.
        return sign | q as u16;
    }
    // `q` holds the implicit bit (1024); a carry out of the mantissa moves
    // into the exponent, up to infinity.
    sign | ((((e + 14) as u32) << 10) + q) as u16
}

#[inline]
fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
fn half_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

impl PixelCodec {
    /// The codec of `(channel_order, channel_type)`, or `None` when vecl
    /// does not support the pair.
    pub fn new(channel_order: u32, channel_type: u32) -> Option<PixelCodec> {
        let pixel_size = format::pixel_size(channel_order, channel_type)?;
        let wide = matches!(
            channel_type,
            channel::FLOAT | channel::SIGNED_INT32 | channel::UNSIGNED_INT32
        );
        let fast = match (channel_order, channel_type) {
            (order::RGBA, channel::UNORM_INT8) => Fast::RgbaUnorm8,
            (order::R, channel::UNORM_INT8) => Fast::RUnorm8,
            (order::RGBA, channel::HALF_FLOAT) => Fast::RgbaHalf,
            (order::R, channel::HALF_FLOAT) => Fast::RHalf,
            (order::RGBA, _) if wide => Fast::Rgba32,
            (order::R, _) if wide => Fast::R32,
            _ => Fast::General,
        };
        Some(PixelCodec {
            channel_order,
            channel_type,
            pixel_size,
            class: format::value_class(channel_type),
            fast,
        })
    }

    /// Bytes of one pixel.
    #[inline]
    pub fn pixel_size(&self) -> u32 {
        self.pixel_size
    }

    /// The class `read_image*` of this format returns.
    #[inline]
    pub fn class(&self) -> ValueClass {
        self.class
    }

    /// Whether this format has a dedicated conversion (rather than the
    /// general per-channel one).
    pub fn is_fast(&self) -> bool {
        self.fast != Fast::General
    }

    /// `decode_pixel(order, type, bytes)`.
    #[inline]
    pub fn decode(&self, bytes: &[u8]) -> PixelValue {
        let Some(b) = bytes.get(..self.pixel_size as usize) else {
            return PixelValue::from_bits(self.class, [0; 4]);
        };
        let one = match self.class {
            ValueClass::Float => 1f32.to_bits(),
            _ => 1,
        };
        let bits = match self.fast {
            Fast::RgbaUnorm8 => [unorm8(b[0]), unorm8(b[1]), unorm8(b[2]), unorm8(b[3])],
            Fast::RUnorm8 => [unorm8(b[0]), 0, 0, one],
            Fast::Rgba32 => [word(b, 0), word(b, 4), word(b, 8), word(b, 12)],
            Fast::R32 => [word(b, 0), 0, 0, one],
            Fast::RgbaHalf => [
                half(half_at(b, 0)),
                half(half_at(b, 2)),
                half(half_at(b, 4)),
                half(half_at(b, 6)),
            ],
            Fast::RHalf => [half(half_at(b, 0)), 0, 0, one],
            Fast::General => return format::decode_pixel(self.channel_order, self.channel_type, b),
        };
        PixelValue::from_bits(self.class, bits)
    }

    /// `encode_pixel(order, type, value, out)`.
    #[inline]
    pub fn encode(&self, value: PixelValue, out: &mut [u8]) {
        let Some(out) = out.get_mut(..self.pixel_size as usize) else {
            return;
        };
        let v = value.bits();
        match self.fast {
            Fast::RgbaUnorm8 => out.copy_from_slice(&v.map(to_unorm8)),
            Fast::RUnorm8 => out[0] = to_unorm8(v[0]),
            Fast::Rgba32 => {
                for (chunk, x) in out.chunks_exact_mut(4).zip(v) {
                    chunk.copy_from_slice(&x.to_le_bytes());
                }
            }
            Fast::R32 => out.copy_from_slice(&v[0].to_le_bytes()),
            Fast::RgbaHalf => {
                for (chunk, x) in out.chunks_exact_mut(2).zip(v) {
                    chunk.copy_from_slice(&to_half(x).to_le_bytes());
                }
            }
            Fast::RHalf => out.copy_from_slice(&to_half(v[0]).to_le_bytes()),
            Fast::General => {
                format::encode_pixel(self.channel_order, self.channel_type, value, out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::convert::{f16_to_f64, f64_to_f16, RoundDir};

    fn general(bits: u32) -> u16 {
        f64_to_f16(f64::from(f32::from_bits(bits)), RoundDir::NearestEven)
    }

    /// Every half value, the exact midpoints between neighbours (ties) and
    /// the floats one step either side of each, both signs; then a sweep of
    /// floats across and beyond the half range.
    #[test]
    fn half_rounding_matches_the_general_conversion() {
        let mut checked = 0u32;
        let mut check = |bits: u32| {
            assert_eq!(to_half(bits), general(bits), "{bits:#010x}");
            checked += 1;
        };
        for h in 0..0x7c00u16 {
            let lo = f16_to_f64(h);
            let hi = f16_to_f64(h + 1);
            let mid = ((lo + hi) / 2.0) as f32;
            for x in [lo as f32, mid] {
                for b in [x.to_bits().wrapping_sub(1), x.to_bits(), x.to_bits() + 1] {
                    check(b);
                    check(b | 0x8000_0000);
                }
            }
        }
        for b in (0..u32::MAX).step_by(4099) {
            check(b);
        }
        for b in [
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0xffbf_ffff,
            0x477f_f000,
        ] {
            check(b);
        }
        assert!(checked > 1_000_000);
    }
}

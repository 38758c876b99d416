//! Constants and names as the text form spells them.
//!
//! A constant is printed by its type so it reads like source: integers in
//! decimal with their sign, bools as `true`/`false`, floats in the shortest
//! decimal that parses back to the same bits (`1.0`, `-0.0`, `1e-7`), `inf`
//! and `-inf`, `nan` for the default quiet NaN. Anything else — other NaN
//! payloads, bit patterns wider than the type — is printed as raw `0x` bits,
//! which parse back exactly. `half` has no Rust type: its values go through
//! `f64`, which holds every `half` exactly.

use crate::types::Scalar;

use super::lexer::{is_name_char, is_name_start};

/// A name bare when it can be, quoted otherwise.
pub(crate) fn name(s: &str) -> String {
    let mut chars = s.chars();
    let bare = chars.next().is_some_and(is_name_start) && chars.all(is_name_char);
    if bare {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// A string in double quotes with `\"`, `\\`, `\n`, `\t` and `\u{…}` escapes.
pub(crate) fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The default quiet NaN of each float type, printed as `nan`.
fn canonical_nan(s: Scalar) -> u64 {
    match s {
        Scalar::F16 => 0x7e00,
        Scalar::F32 => 0x7fc0_0000,
        _ => 0x7ff8_0000_0000_0000,
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `half` bits → the same value as `f64` (exact).
pub(crate) fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    let mag = match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + frac) * 2f64.powi(exp - 25),
    };
    sign * mag
}

/// `f64` → `half` bits when the value is exactly a finite `half`.
pub(crate) fn f64_to_f16_exact(v: f64) -> Option<u16> {
    if !v.is_finite() {
        return None;
    }
    let sign: u16 = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    if a == 0.0 {
        return Some(sign);
    }
    if a > 65504.0 {
        return None;
    }
    // Every half is an integer multiple of 2^-24.
    let scaled = a * 16_777_216.0;
    if scaled.fract() != 0.0 {
        return None;
    }
    let m = scaled as u64;
    let bits = if m < 1024 {
        m as u16
    } else {
        let shift = 63 - m.leading_zeros() - 10;
        if m & ((1u64 << shift) - 1) != 0 {
            return None;
        }
        let mant = (m >> shift) as u16;
        ((shift as u16 + 1) << 10) | (mant - 1024)
    };
    let bits = sign | bits;
    (f16_to_f64(bits) == v).then_some(bits)
}

/// The text of a constant of scalar type `ty` with bit pattern `bits`.
pub(crate) fn format_const(ty: Option<Scalar>, bits: u64) -> String {
    let raw = || format!("{bits:#x}");
    let Some(s) = ty else { return raw() };
    if bits & !mask(s.size() * 8) != 0 {
        return raw();
    }
    match s {
        Scalar::Bool => match bits {
            0 => "false".to_string(),
            1 => "true".to_string(),
            _ => raw(),
        },
        s if s.is_int() => {
            if s.is_signed() {
                let shift = 64 - s.bits();
                (((bits << shift) as i64) >> shift).to_string()
            } else {
                bits.to_string()
            }
        }
        s => {
            if bits == canonical_nan(s) {
                return "nan".to_string();
            }
            let v = match s {
                Scalar::F16 => f16_to_f64(bits as u16),
                Scalar::F32 => f64::from(f32::from_bits(bits as u32)),
                _ => f64::from_bits(bits),
            };
            if v.is_nan() {
                return raw();
            }
            if v.is_infinite() {
                return if v > 0.0 { "inf" } else { "-inf" }.to_string();
            }
            let text = match s {
                Scalar::F32 => format!("{:?}", f32::from_bits(bits as u32)),
                _ => format!("{v:?}"),
            };
            // `{:?}` is the shortest text that reads back as the same value;
            // check anyway, and fall back to the bits.
            if parse_const(s, &text) == Ok(bits) {
                text
            } else {
                raw()
            }
        }
    }
}

/// Reads a constant of scalar type `s` (see [`format_const`]); `text` is one
/// number or name token.
pub(crate) fn parse_const(s: Scalar, text: &str) -> Result<u64, String> {
    if let Some(hex) = text.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16)
            .map_err(|_| format!("`{text}` is not a 64-bit hex constant"));
    }
    let width = s.size() * 8;
    match s {
        Scalar::Bool => match text {
            "true" => Ok(1),
            "false" => Ok(0),
            _ => Err(format!(
                "`{text}` is not a bool constant (true, false or 0x bits)"
            )),
        },
        s if s.is_int() => {
            let out_of_range = || format!("`{text}` is out of range for {}", s.name());
            if s.is_signed() {
                let v: i64 = text
                    .parse()
                    .map_err(|_| format!("`{text}` is not an integer"))?;
                let half = 1i128 << (width - 1);
                if i128::from(v) < -half || i128::from(v) >= half {
                    return Err(out_of_range());
                }
                Ok(v as u64 & mask(width))
            } else {
                let v: u64 = text
                    .parse()
                    .map_err(|_| format!("`{text}` is not an unsigned integer"))?;
                if v & !mask(width) != 0 {
                    return Err(out_of_range());
                }
                Ok(v)
            }
        }
        s => {
            let v: f64 = match text {
                "nan" => return Ok(canonical_nan(s)),
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                // Rust also reads `infinity`, `NaN`…; the text form does not.
                t if t.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                    && !t.contains(['i', 'n', 'N']) =>
                {
                    t.parse()
                        .map_err(|_| format!("`{text}` is not a floating-point number"))?
                }
                _ => return Err(format!("`{text}` is not a floating-point number")),
            };
            match s {
                Scalar::F16 => {
                    if v.is_infinite() {
                        return Ok(if v > 0.0 { 0x7c00 } else { 0xfc00 });
                    }
                    f64_to_f16_exact(v).map(u64::from).ok_or_else(|| {
                        format!("`{text}` is not exactly a half value; write its bits as 0x…")
                    })
                }
                Scalar::F32 => {
                    // Read the text as f32 directly: rounding twice (via f64) can be off by one ulp.
                    let f: f32 = if v.is_infinite() {
                        v as f32
                    } else {
                        text.parse()
                            .map_err(|_| format!("`{text}` is not a floating-point number"))?
                    };
                    Ok(u64::from(f.to_bits()))
                }
                _ => Ok(v.to_bits()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_half_round_trips() {
        for h in 0..=u16::MAX {
            let text = format_const(Some(Scalar::F16), u64::from(h));
            assert_eq!(
                parse_const(Scalar::F16, &text),
                Ok(u64::from(h)),
                "{h:#x} printed as {text}"
            );
        }
    }

    #[test]
    fn floats_read_like_source() {
        assert_eq!(
            format_const(Some(Scalar::F32), u64::from(1.0f32.to_bits())),
            "1.0"
        );
        assert_eq!(
            format_const(Some(Scalar::F32), u64::from(0.1f32.to_bits())),
            "0.1"
        );
        assert_eq!(
            format_const(Some(Scalar::F32), u64::from((-0.0f32).to_bits())),
            "-0.0"
        );
        assert_eq!(format_const(Some(Scalar::F32), 0x7fc0_0001), "0x7fc00001");
        assert_eq!(
            format_const(Some(Scalar::F64), f64::NEG_INFINITY.to_bits()),
            "-inf"
        );
        assert_eq!(format_const(Some(Scalar::F64), 1e300f64.to_bits()), "1e300");
        assert_eq!(format_const(Some(Scalar::I8), 0xff), "-1");
        assert_eq!(format_const(Some(Scalar::U8), 0xff), "255");
        assert_eq!(format_const(Some(Scalar::I8), 0x1ff), "0x1ff");
    }

    #[test]
    fn integers_are_range_checked() {
        assert_eq!(parse_const(Scalar::I8, "-128"), Ok(0x80));
        assert!(parse_const(Scalar::I8, "128").is_err());
        assert!(parse_const(Scalar::U16, "-1").is_err());
        assert_eq!(parse_const(Scalar::I64, "-1"), Ok(u64::MAX));
    }
}

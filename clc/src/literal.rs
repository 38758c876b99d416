//! Numeric, character and string literals.
//!
//! Integer constants take the first type of C99 6.4.4.1's list that holds
//! the value (`long` is 64-bit in OpenCL C); floating constants are `double`
//! unless suffixed `f` (or `h` for half), including hexadecimal floats such
//! as `0x1.8p3f`.

use std::borrow::Cow;
use vecl_ir::Scalar;

/// `text` in lower case, copied only when it has upper-case letters.
fn lower_case(text: &str) -> Cow<'_, str> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// Parses an integer pp-number: its value and type.
pub fn parse_int(text: &str) -> Option<(u64, Scalar)> {
    let lower = lower_case(text);
    let digits_end = lower.trim_end_matches(['u', 'l']).len();
    let (body, suffix) = lower.split_at(digits_end);
    let unsigned = suffix.contains('u');
    let longs = suffix.matches('l').count();
    if suffix.len() != usize::from(unsigned) + longs || longs > 2 {
        return None;
    }
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = body.strip_prefix("0b") {
        (2, b)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() {
        return None;
    }
    let v = u64::from_str_radix(digits, radix).ok()?;
    let decimal = radix == 10;
    let ty = match (unsigned, longs > 0) {
        (false, false) if v <= i32::MAX as u64 => Scalar::I32,
        (false, false) if !decimal && v <= u32::MAX as u64 => Scalar::U32,
        (true, false) if v <= u32::MAX as u64 => Scalar::U32,
        (false, _) if v <= i64::MAX as u64 => Scalar::I64,
        _ => Scalar::U64,
    };
    Some((v, ty))
}

/// Parses a floating pp-number: its value and type (`f32`, `f64` or `f16`).
pub fn parse_float(text: &str) -> Option<(f64, Scalar)> {
    let lower = lower_case(text);
    let (body, ty) = if let Some(b) = lower.strip_suffix('f') {
        if lower.starts_with("0x") && !lower.contains('p') {
            return None;
        }
        (b, Scalar::F32)
    } else if let Some(b) = lower.strip_suffix('h') {
        (b, Scalar::F16)
    } else if let Some(b) = lower.strip_suffix('l') {
        (b, Scalar::F64)
    } else {
        (&*lower, Scalar::F64)
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        parse_hex_float(h)?
    } else {
        if body.is_empty()
            || !body
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'))
        {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    Some((v, ty))
}

fn parse_hex_float(h: &str) -> Option<f64> {
    let (mant, exp) = h.split_once('p')?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp))
}

/// Whether a pp-number is a floating constant rather than an integer.
pub fn is_float_text(text: &str) -> bool {
    let lower = lower_case(text);
    if lower.starts_with("0x") {
        lower.contains('.') || lower.contains('p')
    } else {
        lower.contains('.') || lower.contains('e') || lower.ends_with('f') || lower.ends_with('h')
    }
}

/// The first of the characters that stand for source bytes which are not
/// UTF-8 (a private-use block: byte `b` is `RAW_BYTES + b`).
const RAW_BYTES: u32 = 0xF700;

/// OpenCL C source as text, from its bytes as a C compiler takes them:
/// UTF-8 is read as such, and each byte that is not part of UTF-8 (say a
/// Windows-1252 quote in a comment) becomes a private-use character that
/// stands for it. Comments ignore such characters, string and character
/// literals turn them back into the byte itself ([`unescape`]), and
/// anywhere else the lexer reports them as unexpected characters.
pub fn decode_source(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            // Invalid bytes are never ASCII, so 0x80..=0xFF.
            out.push(char::from_u32(RAW_BYTES + u32::from(b)).unwrap_or('\u{FFFD}'));
        }
    }
    Cow::Owned(out)
}

/// The source byte a character of [`decode_source`] stands for, if it is
/// one of those.
pub fn raw_byte(c: char) -> Option<u8> {
    let v = u32::from(c);
    (RAW_BYTES + 0x80..=RAW_BYTES + 0xFF)
        .contains(&v)
        .then(|| (v - RAW_BYTES) as u8)
}

/// Decodes the escapes of a character or string literal body.
pub fn unescape(body: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if let Some(byte) = raw_byte(c) {
            out.push(byte);
            continue;
        }
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let e = it.next()?;
        let byte = match e {
            'n' => b'\n',
            't' => b'\t',
            'r' => b'\r',
            '0'..='7' => {
                let mut v = e.to_digit(8)?;
                for _ in 0..2 {
                    match it.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            it.next();
                        }
                        None => break,
                    }
                }
                v as u8
            }
            'x' => {
                let mut v = 0u32;
                let mut any = false;
                while let Some(d) = it.peek().and_then(|d| d.to_digit(16)) {
                    v = v.wrapping_mul(16) + d;
                    any = true;
                    it.next();
                }
                if !any {
                    return None;
                }
                v as u8
            }
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            '\\' | '\'' | '"' | '?' => e as u8,
            _ => return None,
        };
        out.push(byte);
    }
    Some(out)
}

/// The value of a character constant `'x'` (type `int`, from a `char`).
pub fn parse_char(text: &str) -> Option<i64> {
    let body = text.strip_prefix('\'')?.strip_suffix('\'')?;
    let bytes = unescape(body)?;
    match bytes.as_slice() {
        [b] => Some(i64::from(*b as i8)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_types_follow_c99() {
        assert_eq!(parse_int("42"), Some((42, Scalar::I32)));
        assert_eq!(parse_int("0xffffffff"), Some((0xffff_ffff, Scalar::U32)));
        assert_eq!(parse_int("4294967295"), Some((4_294_967_295, Scalar::I64)));
        assert_eq!(parse_int("7u"), Some((7, Scalar::U32)));
        assert_eq!(parse_int("7UL"), Some((7, Scalar::U64)));
        assert_eq!(parse_int("010"), Some((8, Scalar::I32)));
        assert_eq!(parse_int("12q"), None);
    }

    #[test]
    fn floats_and_hex_floats() {
        assert_eq!(parse_float("1.5f"), Some((1.5, Scalar::F32)));
        assert_eq!(parse_float("0x1.8p3f"), Some((12.0, Scalar::F32)));
        assert_eq!(parse_float("2e-1"), Some((0.2, Scalar::F64)));
        assert!(is_float_text("1e5") && !is_float_text("0xe5"));
    }

    #[test]
    fn source_bytes_that_are_not_utf8_stand_for_themselves() {
        let bytes = b"// \x93quoted\x94\nprintf(\"\xe9t\xe9\");\n";
        let text = decode_source(bytes);
        assert!(text.starts_with("// "));
        assert!(text.contains("quoted"));
        // The literal's body gives back the bytes themselves.
        let body = &text[text.find('"').unwrap() + 1..text.rfind('"').unwrap()];
        assert_eq!(unescape(body), Some(vec![0xE9, b't', 0xE9]));
        // UTF-8 stays as it is (and borrowed).
        assert!(matches!(decode_source("é".as_bytes()), Cow::Borrowed("é")));
        assert_eq!(raw_byte('a'), None);
    }

    #[test]
    fn char_escapes() {
        assert_eq!(parse_char("'a'"), Some(97));
        assert_eq!(parse_char("'\\n'"), Some(10));
        assert_eq!(parse_char("'\\xff'"), Some(-1));
    }
}

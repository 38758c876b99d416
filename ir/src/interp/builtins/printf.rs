//! `printf`: formats one call's output, which the launch appends to its
//! output as a whole (so the output of different calls never interleaves).
//!
//! The format follows C99 with OpenCL's additions: conversion
//! `%[flags][width][.precision][vN][length]conv`, where `vN` formats each
//! component of an N-vector argument with the same specification, separated
//! by commas, and `hl` is the length of 32-bit vector components. Supported
//! conversions: `d i o u x X c s p f F e E g G a A %`. The format string and
//! `%s` arguments are read from memory with bounds checks.
//!
//! [`format_printf`] is the same formatter for a caller with its own memory
//! (the JIT's host side): it takes the format's bytes and a reader for `%s`
//! strings instead of the interpreter's memory.

use super::super::memory::{Memory, Ptr};
use super::super::scalar;
use super::{width, Arg, BuiltinError};
use crate::types::Type;

/// The bytes one `printf` call prints.
pub fn format(args: &[Arg<'_>], mem: &Memory) -> Result<Vec<u8>, BuiltinError> {
    let Some(fmt_arg) = args.first() else {
        return Err(BuiltinError::BadArgs("printf needs a format".into()));
    };
    let fmt = mem.read_cstr(Ptr::decode(fmt_arg.lane(0)))?;
    let mut read =
        |bits: u64| -> Result<Vec<u8>, BuiltinError> { Ok(mem.read_cstr(Ptr::decode(bits))?) };
    format_parts(&fmt, &args[1..], &mut read)
}

/// The bytes one `printf` call prints, for a caller outside the
/// interpreter: `fmt` is the format string (without its NUL), `args` each
/// argument after the format as its type and its components' bits (one
/// `u64` per component, the value in the low bits), and `read_str` reads
/// the NUL-terminated string a `%s` argument's bits address (`None`: it
/// cannot be read). The error says what is wrong with the call.
pub fn format_printf(
    fmt: &[u8],
    args: &[(&Type, &[u64])],
    read_str: &mut dyn FnMut(u64) -> Option<Vec<u8>>,
) -> Result<Vec<u8>, String> {
    let args: Vec<Arg<'_>> = args.iter().map(|&(ty, lanes)| Arg { ty, lanes }).collect();
    let mut read = |bits: u64| {
        read_str(bits)
            .ok_or_else(|| BuiltinError::BadArgs(format!("%s argument {bits:#x} is unreadable")))
    };
    format_parts(fmt, &args, &mut read).map_err(|e| match e {
        BuiltinError::BadArgs(msg) => msg,
        BuiltinError::Fault(_) => "printf read outside memory".into(),
        BuiltinError::Unsupported => "unsupported printf".into(),
    })
}

/// Formats `fmt` with `args` (the arguments after the format); `read`
/// reads a `%s` string.
fn format_parts(
    fmt: &[u8],
    args: &[Arg<'_>],
    read: &mut dyn FnMut(u64) -> Result<Vec<u8>, BuiltinError>,
) -> Result<Vec<u8>, BuiltinError> {
    let mut out = Vec::new();
    let mut next = 0;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let (spec, used) = parse_spec(&fmt[i..]).ok_or_else(|| bad_format(fmt))?;
        i += used;
        if spec.conv == b'%' {
            out.push(b'%');
            continue;
        }
        let arg = args.get(next).ok_or_else(|| {
            BuiltinError::BadArgs("printf has fewer arguments than conversions".into())
        })?;
        next += 1;
        let lanes = spec.vector.unwrap_or(1);
        if spec.vector.is_some() && width(arg.ty) != lanes {
            return Err(BuiltinError::BadArgs(format!(
                "%v{lanes} given a {}-component argument",
                width(arg.ty)
            )));
        }
        for k in 0..lanes {
            if k > 0 {
                out.push(b',');
            }
            let text = one(&spec, arg, k, read)?;
            out.extend_from_slice(&pad(&spec, text));
        }
    }
    Ok(out)
}

fn bad_format(fmt: &[u8]) -> BuiltinError {
    BuiltinError::BadArgs(format!(
        "bad printf format {:?}",
        String::from_utf8_lossy(fmt)
    ))
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    vector: Option<usize>,
    /// Bits of an integer conversion given by `hh`, `h`, `l` (None: the argument's own).
    int_bits: Option<u32>,
    conv: u8,
}

/// Parses the specification after a `%`; returns it and the bytes used.
fn parse_spec(s: &[u8]) -> Option<(Spec, usize)> {
    let mut spec = Spec::default();
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        match c {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            _ => break,
        }
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while s.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        std::str::from_utf8(&s[start..*i])
            .ok()
            .and_then(|d| d.parse::<usize>().ok())
    };
    spec.width = digits(&mut i).unwrap_or(0).min(4096);
    if s.get(i) == Some(&b'.') {
        i += 1;
        spec.precision = Some(digits(&mut i).unwrap_or(0).min(4096));
    }
    if s.get(i) == Some(&b'v') {
        i += 1;
        let n = digits(&mut i)?;
        if ![2, 3, 4, 8, 16].contains(&n) {
            return None;
        }
        spec.vector = Some(n);
    }
    let rest = &s[i..];
    let (bits, used) = if rest.starts_with(b"hh") {
        (Some(8), 2)
    } else if rest.starts_with(b"hl") {
        (Some(32), 2)
    } else if rest.starts_with(b"h") {
        (Some(16), 1)
    } else if rest.starts_with(b"l") {
        (Some(64), 1)
    } else {
        (None, 0)
    };
    spec.int_bits = bits;
    i += used;
    spec.conv = *s.get(i)?;
    if !b"diouxXcspfFeEgGaA%".contains(&spec.conv) {
        return None;
    }
    Some((spec, i + 1))
}

/// Formats one component, without the width padding.
fn one(
    spec: &Spec,
    arg: &Arg<'_>,
    k: usize,
    read: &mut dyn FnMut(u64) -> Result<Vec<u8>, BuiltinError>,
) -> Result<Vec<u8>, BuiltinError> {
    let s = arg.elem();
    let bits = arg.lane(k);
    Ok(match spec.conv {
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
            let w = spec
                .int_bits
                .unwrap_or(if s.is_int() { s.bits() } else { 64 });
            let raw = if s.is_float() {
                scalar::float(s, bits) as i64 as u64
            } else {
                bits
            };
            let as_u = if w >= 64 {
                raw
            } else {
                raw & ((1u64 << w) - 1)
            };
            let signed = matches!(spec.conv, b'd' | b'i');
            let (neg, mag) = if signed && w > 0 && as_u >> (w - 1) & 1 == 1 {
                (
                    true,
                    (!as_u).wrapping_add(1) & if w >= 64 { u64::MAX } else { (1u64 << w) - 1 },
                )
            } else {
                (false, as_u)
            };
            let mut digits = match spec.conv {
                b'o' => format!("{mag:o}"),
                b'x' => format!("{mag:x}"),
                b'X' => format!("{mag:X}"),
                _ => mag.to_string(),
            };
            if let Some(p) = spec.precision {
                if p == 0 && mag == 0 {
                    digits.clear();
                }
                while digits.len() < p {
                    digits.insert(0, '0');
                }
            }
            if spec.alt && mag != 0 {
                match spec.conv {
                    b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                    b'x' => digits.insert_str(0, "0x"),
                    b'X' => digits.insert_str(0, "0X"),
                    _ => {}
                }
            }
            let sign = sign_of(spec, neg, signed);
            format!("{sign}{digits}").into_bytes()
        }
        b'c' => vec![bits as u8],
        b's' => {
            let mut text = read(bits)?;
            text.truncate(spec.precision.unwrap_or(usize::MAX));
            text
        }
        b'p' => format!("{:#x}", bits).into_bytes(),
        _ => {
            let v = if s.is_float() {
                scalar::float(s, bits)
            } else {
                scalar::int(s, bits) as f64
            };
            float(spec, v).into_bytes()
        }
    })
}

fn sign_of(spec: &Spec, negative: bool, signed: bool) -> &'static str {
    if negative {
        "-"
    } else if signed && spec.plus {
        "+"
    } else if signed && spec.space {
        " "
    } else {
        ""
    }
}

fn float(spec: &Spec, v: f64) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    let sign = sign_of(spec, v.is_sign_negative() && !v.is_nan(), true);
    let a = v.abs();
    let body = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        "inf".to_string()
    } else {
        let p = spec.precision.unwrap_or(6);
        match spec.conv.to_ascii_lowercase() {
            b'f' => {
                let mut t = format!("{a:.p$}");
                if spec.alt && p == 0 {
                    t.push('.');
                }
                t
            }
            b'e' => exp_form(a, p, spec.alt),
            b'g' => general(a, p, spec.alt),
            _ => hex_float(a, spec.precision),
        }
    };
    let body = if upper {
        body.to_ascii_uppercase()
    } else {
        body
    };
    format!("{sign}{body}")
}

/// `d.ddde±XX`
fn exp_form(a: f64, p: usize, alt: bool) -> String {
    let t = format!("{a:.p$e}");
    let (mant, exp) = t.split_once('e').unwrap_or((&t, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    format!(
        "{mant}{dot}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// `%g`: `%e` or `%f` by the exponent, trailing zeros removed unless `#`.
fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let e = format!("{a:.prec$e}", prec = p - 1);
    let x: i64 = e
        .split_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    let mut t = if (p as i64) > x && x >= -4 {
        let prec = (p as i64 - 1 - x) as usize;
        format!("{a:.prec$}")
    } else {
        exp_form(a, p - 1, alt)
    };
    if !alt {
        let (num, tail) = match t.find('e') {
            Some(at) => (t[..at].to_string(), t[at..].to_string()),
            None => (t.clone(), String::new()),
        };
        let num = if num.contains('.') {
            num.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            num
        };
        t = num + &tail;
    }
    t
}

/// `%a`: `0x1.hhhp±d`: all significant hex digits when no precision, else
/// exactly `precision` of them (rounded to nearest even, or padded with
/// zeros past the mantissa's 13).
fn hex_float(a: f64, precision: Option<usize>) -> String {
    if a == 0.0 {
        return format!(
            "0x0{}p+0",
            precision
                .filter(|&p| p > 0)
                .map(|p| format!(".{}", "0".repeat(p)))
                .unwrap_or_default()
        );
    }
    let bits = a.to_bits();
    let (mut exp, mut mant, lead) = if (bits >> 52) & 0x7ff == 0 {
        (-1022i64, bits & ((1 << 52) - 1), 0u64)
    } else {
        (
            ((bits >> 52) & 0x7ff) as i64 - 1023,
            bits & ((1 << 52) - 1),
            1u64,
        )
    };
    let mut lead = lead;
    let mut hex = format!("{mant:013x}");
    if let Some(p) = precision.filter(|&p| p < 13) {
        // Round the mantissa to p hex digits, nearest even.
        let drop = 4 * (13 - p) as u32;
        let full = (lead << 52) | mant;
        let half = 1u64 << (drop - 1);
        let rem = full & ((1u64 << drop) - 1);
        let mut kept = full >> drop;
        if rem > half || (rem == half && kept & 1 == 1) {
            kept += 1;
        }
        lead = kept >> (4 * p as u32);
        mant = kept & ((1u64 << (4 * p as u32)) - 1);
        if lead >= 2 {
            lead = 1;
            mant >>= 1;
            exp += 1;
        }
        hex = if p == 0 {
            String::new()
        } else {
            format!("{mant:0w$x}", w = p)
        };
    } else if let Some(p) = precision {
        // 13 digits or more: every mantissa digit, then zeros to `p`.
        hex.push_str(&"0".repeat(p - 13));
    } else {
        hex = hex.trim_end_matches('0').to_string();
    }
    let dot = if hex.is_empty() {
        String::new()
    } else {
        format!(".{hex}")
    };
    format!(
        "0x{lead}{dot}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// Applies the field width (`-` left-aligns, `0` pads numbers after the sign).
fn pad(spec: &Spec, text: Vec<u8>) -> Vec<u8> {
    if text.len() >= spec.width {
        return text;
    }
    let fill = spec.width - text.len();
    let numeric = !matches!(spec.conv, b'c' | b's' | b'p');
    let int_with_precision =
        matches!(spec.conv, b'd' | b'i' | b'o' | b'u' | b'x' | b'X') && spec.precision.is_some();
    if spec.left {
        let mut t = text;
        t.extend(std::iter::repeat_n(b' ', fill));
        t
    } else if spec.zero && numeric && !int_with_precision && text.iter().any(u8::is_ascii_digit) {
        // Zeros go after the sign and any 0x prefix.
        let mut at = usize::from(matches!(text.first(), Some(b'-' | b'+' | b' ')));
        if text.get(at) == Some(&b'0') && matches!(text.get(at + 1), Some(b'x' | b'X')) {
            at += 2;
        }
        let mut t = text[..at].to_vec();
        t.extend(std::iter::repeat_n(b'0', fill));
        t.extend_from_slice(&text[at..]);
        t
    } else {
        let mut t: Vec<u8> = std::iter::repeat_n(b' ', fill).collect();
        t.extend(text);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> Spec {
        parse_spec(s.as_bytes()).expect("valid spec").0
    }

    #[test]
    fn floats_format_like_c() {
        assert_eq!(float(&spec("f"), 1.5), "1.500000");
        assert_eq!(float(&spec(".2f"), -0.125), "-0.12");
        assert_eq!(float(&spec("e"), 1234.5), "1.234500e+03");
        assert_eq!(float(&spec(".1E"), 0.0001), "1.0E-04");
        assert_eq!(float(&spec("g"), 100000.0), "100000");
        assert_eq!(float(&spec("g"), 1000000.0), "1e+06");
        assert_eq!(float(&spec("g"), 0.0001), "0.0001");
        assert_eq!(float(&spec("g"), 0.00001), "1e-05");
        assert_eq!(float(&spec("#g"), 1.0), "1.00000");
        assert_eq!(float(&spec("+f"), f64::INFINITY), "+inf");
        assert_eq!(float(&spec("F"), f64::NAN), "NAN");
        assert_eq!(float(&spec("a"), 1.0), "0x1p+0");
        assert_eq!(float(&spec("a"), 0.75), "0x1.8p-1");
        assert_eq!(float(&spec(".1a"), 1.0 + 1.0 / 32.0), "0x1.0p+0");
        // A precision of 13 or more keeps (and pads) every digit.
        assert_eq!(float(&spec(".13A"), 1.0), "0X1.0000000000000P+0");
        assert_eq!(float(&spec(".13a"), 0.75), "0x1.8000000000000p-1");
        assert_eq!(float(&spec(".15a"), 0.75), "0x1.800000000000000p-1");
        assert_eq!(float(&spec(".3a"), 0.0), "0x0.000p+0");
        assert_eq!(
            pad(&spec("08.3f"), float(&spec("08.3f"), -9.87654).into_bytes()),
            b"-009.877"
        );
        assert_eq!(pad(&spec("-6d"), b"42".to_vec()), b"42    ");
        assert_eq!(pad(&spec("5c"), b"x".to_vec()), b"    x");
    }
}

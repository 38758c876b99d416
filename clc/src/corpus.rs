//! The header format of the OpenCL C test corpus (`tests/corpus/*.cl`).
//!
//! Each corpus program says in `// @` comment lines which kernel to run, on
//! which NDRange, with which arguments, and what the outputs must be, so
//! the front end's tests, the interpreter and the JIT's differential
//! harness can all run the same files (see `docs/frontend.md`):
//!
//! ```text
//! // @kernel vadd
//! // @range 16 / 4                  global[,global…] / local[,local…]
//! // @options -DSCALE=2             build options (optional)
//! // @arg buffer float iota(16)     a __global/__constant buffer
//! // @arg buffer float fill(16, 2)
//! // @arg buffer float zeros(16)
//! // @arg value int 16              a by-value argument (scalar or vector: [1, 2, 3, 4])
//! // @arg local 256                 a __local buffer of 256 bytes
//! // @expect 2 iota(16, 2, 1)       argument 2 afterwards (exact)
//! // @expect 2 ~1e-5 [2, 3, 4]      … or within a relative tolerance
//! ```
//!
//! Value lists: `[a, b, …]`, `iota(n[, start[, step]])`, `fill(n, v)`,
//! `zeros(n)`, `repeat(n, [pattern])`.

use std::fmt;

/// An element type of a buffer or value argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Elem {
    pub fn parse(s: &str) -> Option<(Elem, u32)> {
        let digits = s.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let base = &s[..s.len() - digits.len()];
        let n = if digits.is_empty() {
            1
        } else {
            digits.parse().ok()?
        };
        let e = match base {
            "char" => Elem::I8,
            "uchar" => Elem::U8,
            "short" => Elem::I16,
            "ushort" => Elem::U16,
            "int" => Elem::I32,
            "uint" => Elem::U32,
            "long" => Elem::I64,
            "ulong" => Elem::U64,
            "float" => Elem::F32,
            "double" => Elem::F64,
            _ => return None,
        };
        Some((e, n))
    }

    pub fn size(self) -> usize {
        match self {
            Elem::I8 | Elem::U8 => 1,
            Elem::I16 | Elem::U16 => 2,
            Elem::I32 | Elem::U32 | Elem::F32 => 4,
            Elem::I64 | Elem::U64 | Elem::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64)
    }

    /// Little-endian bytes of `v` in this type (integers wrap).
    pub fn encode(self, v: f64, out: &mut Vec<u8>) {
        let i = v as i128 as u64;
        match self {
            Elem::F32 => out.extend((v as f32).to_le_bytes()),
            Elem::F64 => out.extend(v.to_le_bytes()),
            _ => out.extend(&i.to_le_bytes()[..self.size()]),
        }
    }

    /// The value of one element.
    pub fn decode(self, b: &[u8]) -> f64 {
        let mut buf = [0u8; 8];
        buf[..self.size()].copy_from_slice(&b[..self.size()]);
        let u = u64::from_le_bytes(buf);
        match self {
            Elem::I8 => f64::from(u as u8 as i8),
            Elem::U8 => f64::from(u as u8),
            Elem::I16 => f64::from(u as u16 as i16),
            Elem::U16 => f64::from(u as u16),
            Elem::I32 => f64::from(u as u32 as i32),
            Elem::U32 => f64::from(u as u32),
            Elem::I64 => u as i64 as f64,
            Elem::U64 => u as f64,
            Elem::F32 => f64::from(f32::from_bits(u as u32)),
            Elem::F64 => f64::from_bits(u),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Buffer {
        elem: Elem,
        values: Vec<f64>,
    },
    /// A by-value argument; `lanes` > 1 for vectors (a 3-vector is padded to 4).
    Value {
        elem: Elem,
        lanes: u32,
        values: Vec<f64>,
    },
    Local {
        bytes: usize,
    },
}

impl Arg {
    /// The argument's bytes (buffers and values).
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Arg::Buffer { elem, values } | Arg::Value { elem, values, .. } => {
                for v in values {
                    elem.encode(*v, &mut out);
                }
                if let Arg::Value { lanes: 3, elem, .. } = self {
                    elem.encode(0.0, &mut out);
                }
            }
            Arg::Local { .. } => {}
        }
        out
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    pub arg: usize,
    /// Relative tolerance for floats; 0 means exact.
    pub tolerance: f64,
    pub values: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub kernel: String,
    pub global: Vec<u64>,
    pub local: Vec<u64>,
    pub options: String,
    pub args: Vec<Arg>,
    pub expects: Vec<Expect>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct HeaderError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "corpus header line {}: {}", self.line, self.message)
    }
}

fn list(s: &str) -> Result<Vec<f64>, String> {
    let s = s.trim();
    let num = |x: &str| -> Result<f64, String> {
        let x = x.trim();
        if let Some(h) = x.strip_prefix("0x") {
            return u64::from_str_radix(h, 16)
                .map(|v| v as f64)
                .map_err(|e| format!("bad number '{x}': {e}"));
        }
        x.parse::<f64>()
            .map_err(|e| format!("bad number '{x}': {e}"))
    };
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        if inner.trim().is_empty() {
            return Ok(Vec::new());
        }
        return inner.split(',').map(num).collect();
    }
    let Some((fname, rest)) = s.split_once('(') else {
        // A single number.
        return Ok(vec![num(s)?]);
    };
    let args = rest
        .strip_suffix(')')
        .ok_or_else(|| format!("missing ')' in '{s}'"))?;
    match fname.trim() {
        "repeat" => {
            let (n, pat) = args.split_once(',').ok_or("repeat(n, [pattern])")?;
            let n = num(n)? as usize;
            let pat = list(pat)?;
            if pat.is_empty() {
                return Err("empty repeat pattern".into());
            }
            Ok((0..n).map(|i| pat[i % pat.len()]).collect())
        }
        f => {
            let a: Vec<f64> = args.split(',').map(num).collect::<Result<_, _>>()?;
            let n = *a.first().ok_or("missing count")? as usize;
            match (f, a.len()) {
                ("iota", 1..=3) => {
                    let start = a.get(1).copied().unwrap_or(0.0);
                    let step = a.get(2).copied().unwrap_or(1.0);
                    Ok((0..n).map(|i| start + step * i as f64).collect())
                }
                ("fill", 2) => Ok(vec![a[1]; n]),
                ("zeros", 1) => Ok(vec![0.0; n]),
                _ => Err(format!(
                    "unknown value list '{f}' with {} arguments",
                    a.len()
                )),
            }
        }
    }
}

fn dims(s: &str) -> Result<Vec<u64>, String> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<u64>()
                .map_err(|e| format!("bad size '{x}': {e}"))
        })
        .collect()
}

/// Reads the header of a corpus program.
pub fn parse(source: &str) -> Result<Case, HeaderError> {
    let mut case = Case {
        kernel: String::new(),
        global: Vec::new(),
        local: Vec::new(),
        options: String::new(),
        args: Vec::new(),
        expects: Vec::new(),
    };
    for (i, line) in source.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix("// @") else {
            continue;
        };
        let err = |m: String| HeaderError {
            line: i + 1,
            message: m,
        };
        let (key, val) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let val = val.trim();
        match key {
            "kernel" => case.kernel = val.to_string(),
            "options" => case.options = val.to_string(),
            "range" => {
                let (g, l) = val
                    .split_once('/')
                    .ok_or_else(|| err("expected 'global / local'".into()))?;
                case.global = dims(g).map_err(err)?;
                case.local = dims(l).map_err(err)?;
                if case.global.len() != case.local.len()
                    || case.global.is_empty()
                    || case.global.len() > 3
                {
                    return Err(err(
                        "global and local need the same 1 to 3 dimensions".into()
                    ));
                }
            }
            "arg" => {
                let (kind, rest) = val
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| err("expected 'buffer|value|local …'".into()))?;
                let arg = match kind {
                    "local" => Arg::Local {
                        bytes: rest
                            .trim()
                            .parse()
                            .map_err(|e| err(format!("bad size: {e}")))?,
                    },
                    "buffer" | "value" => {
                        let (ty, vals) = rest
                            .trim()
                            .split_once(char::is_whitespace)
                            .ok_or_else(|| err("expected a type and values".into()))?;
                        let (elem, lanes) =
                            Elem::parse(ty).ok_or_else(|| err(format!("unknown type '{ty}'")))?;
                        let values = list(vals).map_err(err)?;
                        if kind == "buffer" {
                            if lanes != 1 {
                                return Err(err(
                                    "buffers are described by their element scalar type".into(),
                                ));
                            }
                            Arg::Buffer { elem, values }
                        } else {
                            if values.len() != lanes as usize {
                                return Err(err(format!("'{ty}' needs {lanes} values")));
                            }
                            Arg::Value {
                                elem,
                                lanes,
                                values,
                            }
                        }
                    }
                    _ => return Err(err(format!("unknown argument kind '{kind}'"))),
                };
                case.args.push(arg);
            }
            "expect" => {
                let (idx, rest) = val
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| err("expected 'ARG VALUES'".into()))?;
                let arg: usize = idx
                    .parse()
                    .map_err(|e| err(format!("bad argument index: {e}")))?;
                let rest = rest.trim();
                let (tolerance, vals) = match rest.strip_prefix('~') {
                    Some(r) => {
                        let (t, v) = r
                            .split_once(char::is_whitespace)
                            .ok_or_else(|| err("expected a tolerance and values".into()))?;
                        (
                            t.parse().map_err(|e| err(format!("bad tolerance: {e}")))?,
                            v,
                        )
                    }
                    None => (0.0, rest),
                };
                case.expects.push(Expect {
                    arg,
                    tolerance,
                    values: list(vals).map_err(err)?,
                });
            }
            _ => return Err(err(format!("unknown header key '@{key}'"))),
        }
    }
    if case.kernel.is_empty() {
        return Err(HeaderError {
            line: 1,
            message: "missing '// @kernel NAME'".into(),
        });
    }
    if case.global.is_empty() {
        return Err(HeaderError {
            line: 1,
            message: "missing '// @range GLOBAL / LOCAL'".into(),
        });
    }
    for e in &case.expects {
        if !matches!(case.args.get(e.arg), Some(Arg::Buffer { .. })) {
            return Err(HeaderError {
                line: 1,
                message: format!("@expect {} does not name a buffer argument", e.arg),
            });
        }
    }
    Ok(case)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_header() {
        let c = parse("// @kernel k\n// @range 8,2 / 4,1\n// @arg buffer int iota(4, 1, 2)\n// @arg value float2 [1, 2]\n// @arg local 64\n// @expect 0 ~1e-6 repeat(4, [1, 3])\n").expect("valid");
        assert_eq!(c.kernel, "k");
        assert_eq!((c.global, c.local), (vec![8, 2], vec![4, 1]));
        assert_eq!(
            c.args[0],
            Arg::Buffer {
                elem: Elem::I32,
                values: vec![1.0, 3.0, 5.0, 7.0]
            }
        );
        assert_eq!(
            c.args[1].bytes(),
            [1f32.to_le_bytes(), 2f32.to_le_bytes()].concat()
        );
        assert_eq!(c.expects[0].values, [1.0, 3.0, 1.0, 3.0]);
        assert!(parse("// @kernel k\n// @range 4 / 4\n// @arg bogus 1\n").is_err());
    }
}

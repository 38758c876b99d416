//! Program binaries: a self-describing byte form of a compiled object, a
//! library or an executable.
//!
//! The form is text, so it survives any transport and can be read by eye:
//! a versioned magic line, the binary type, a checksum of the rest, then
//! length-prefixed sections: the options, whether kernels may have
//! non-uniform work-groups, the source (when there is one), the linkage
//! table and the Kernel IR in its text form (`vecl_ir::text`). Loading
//! parses and verifies the IR; an executable is JIT-compiled again, so a
//! binary stays valid across CPUs. Any damage (a changed byte, a cut) is
//! [`Error::InvalidBinary`], found by the checksum before anything is parsed.

use vecl_ir::link::Unit;
use vecl_runtime::{Error, Result};

/// The first line; its number is the format's version, which
/// `Device::driver_version` carries too (`+binary.4`).
const MAGIC: &str = "VECL-PROGRAM 4\n";

/// What a binary holds (`CL_PROGRAM_BINARY_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryType {
    /// `clCompileProgram`'s result: one unit, to be linked.
    CompiledObject,
    /// `clLinkProgram -create-library`: units linked, imports may remain.
    Library,
    /// A linked program, ready to JIT-compile.
    Executable,
}

impl BinaryType {
    fn name(self) -> &'static str {
        match self {
            BinaryType::CompiledObject => "object",
            BinaryType::Library => "library",
            BinaryType::Executable => "executable",
        }
    }

    fn from_name(name: &str) -> Option<BinaryType> {
        [
            BinaryType::CompiledObject,
            BinaryType::Library,
            BinaryType::Executable,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }
}

/// The contents of a binary.
#[derive(Clone, Debug)]
pub(crate) struct Contents {
    pub(crate) binary_type: BinaryType,
    pub(crate) options: String,
    pub(crate) non_uniform_groups: bool,
    pub(crate) source: Option<String>,
    pub(crate) unit: Unit,
}

/// FNV-1a, 64 bits: enough to tell a damaged binary from an intact one.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn push_section(out: &mut String, name: &str, body: &str) {
    out.push_str(&format!("{name} {}\n", body.len()));
    out.push_str(body);
    out.push('\n');
}

/// The bytes of a binary.
pub(crate) fn encode(c: &Contents) -> Vec<u8> {
    let mut body = String::new();
    push_section(&mut body, "options", &c.options);
    let groups = if c.non_uniform_groups {
        "non-uniform"
    } else {
        "uniform"
    };
    push_section(&mut body, "groups", groups);
    if let Some(source) = &c.source {
        push_section(&mut body, "source", source);
    }
    push_section(&mut body, "linkage", &c.unit.linkage_text());
    push_section(
        &mut body,
        "ir",
        &vecl_ir::text::print_module(&c.unit.module),
    );
    let mut out = String::from(MAGIC);
    out.push_str(&format!("type {}\n", c.binary_type.name()));
    out.push_str(&format!("checksum {:016x}\n", checksum(body.as_bytes())));
    out.push_str(&body);
    out.into_bytes()
}

fn bad(why: impl Into<String>) -> Error {
    Error::InvalidBinary(why.into())
}

/// Reads `name <len>\n<body>\n` at the front of `rest`.
fn take_section<'a>(rest: &mut &'a str) -> Result<(&'a str, &'a str)> {
    let (header, tail) = rest
        .split_once('\n')
        .ok_or_else(|| bad("truncated section header"))?;
    let (name, len) = header
        .split_once(' ')
        .ok_or_else(|| bad("malformed section header"))?;
    let len: usize = len.parse().map_err(|_| bad("malformed section length"))?;
    let body = tail.get(..len).ok_or_else(|| bad("truncated section"))?;
    let after = tail
        .get(len..)
        .and_then(|t| t.strip_prefix('\n'))
        .ok_or_else(|| bad("section not terminated"))?;
    *rest = after;
    Ok((name, body))
}

/// Reads `key value\n` at the front of `rest`.
fn take_line<'a>(rest: &mut &'a str, key: &str) -> Result<&'a str> {
    let (line, tail) = rest
        .split_once('\n')
        .ok_or_else(|| bad(format!("no `{key}` line")))?;
    let value = line
        .strip_prefix(key)
        .and_then(|v| v.strip_prefix(' '))
        .ok_or_else(|| bad(format!("no `{key}` line")))?;
    *rest = tail;
    Ok(value)
}

/// Parses bytes made by [`encode`] and checks the IR: a binary that
/// decodes is one the JIT may be given.
pub(crate) fn decode(bytes: &[u8]) -> Result<Contents> {
    let text = std::str::from_utf8(bytes).map_err(|_| bad("not a vecl program binary"))?;
    let mut rest = match text.strip_prefix(MAGIC) {
        Some(rest) => rest,
        None if text.starts_with("VECL-PROGRAM ") => {
            return Err(bad("a binary of another vecl version"))
        }
        None => return Err(bad("not a vecl program binary")),
    };
    let binary_type =
        BinaryType::from_name(take_line(&mut rest, "type")?).ok_or_else(|| bad("unknown type"))?;
    let sum = take_line(&mut rest, "checksum")?;
    if sum != format!("{:016x}", checksum(rest.as_bytes())) {
        return Err(bad("the binary is damaged (checksum mismatch)"));
    }
    let (mut options, mut groups, mut source, mut linkage, mut ir) = (None, None, None, None, None);
    while !rest.is_empty() {
        let (name, body) = take_section(&mut rest)?;
        let slot = match name {
            "options" => &mut options,
            "groups" => &mut groups,
            "source" => &mut source,
            "linkage" => &mut linkage,
            "ir" => &mut ir,
            other => return Err(bad(format!("unknown section `{other}`"))),
        };
        *slot = Some(body);
    }
    let ir = ir.ok_or_else(|| bad("no IR section"))?;
    let module = vecl_ir::text::parse_module(ir).map_err(|e| bad(format!("IR: {e}")))?;
    if let Err(errors) = vecl_ir::verify::verify_module(&module) {
        return Err(bad(format!(
            "IR: {}",
            vecl_ir::verify::format_errors(&errors)
        )));
    }
    let linkage = linkage.ok_or_else(|| bad("no linkage section"))?;
    let unit = Unit::from_parts(module, linkage).map_err(|e| bad(e.to_string()))?;
    let non_uniform_groups = match groups {
        Some("non-uniform") => true,
        Some("uniform") => false,
        _ => return Err(bad("no groups section")),
    };
    Ok(Contents {
        binary_type,
        options: options.unwrap_or_default().to_string(),
        non_uniform_groups,
        source: source.map(str::to_string),
        unit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents() -> Contents {
        let module = vecl_ir::text::parse_module(
            "fn @f(x: i32) -> i32 {\n  %0: i32 = param 0\n  return %0\n}\n",
        )
        .expect("IR");
        Contents {
            binary_type: BinaryType::Library,
            options: "-cl-std=CL2.0".into(),
            non_uniform_groups: true,
            source: Some("int f(int x) { return x; }\n".into()),
            unit: Unit::exporting_all(module),
        }
    }

    #[test]
    fn the_driver_version_names_the_format() {
        let format = MAGIC.trim_end().rsplit(' ').next().expect("a version");
        let device = crate::Device;
        assert!(
            device
                .driver_version()
                .ends_with(&format!("+binary.{format}")),
            "{}",
            device.driver_version()
        );
    }

    #[test]
    fn sections_round_trip() {
        let c = contents();
        let decoded = decode(&encode(&c)).expect("decode");
        assert_eq!(decoded.binary_type, BinaryType::Library);
        assert_eq!(decoded.options, "-cl-std=CL2.0");
        assert!(decoded.non_uniform_groups);
        assert_eq!(decoded.source, c.source);
        assert_eq!(decoded.unit, c.unit);
    }

    #[test]
    fn every_cut_and_every_changed_byte_is_an_invalid_binary() {
        let bytes = encode(&contents());
        for len in 0..bytes.len() {
            assert!(
                matches!(decode(&bytes[..len]), Err(Error::InvalidBinary(_))),
                "cut at {len}"
            );
        }
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x20;
            assert!(
                matches!(decode(&damaged), Err(Error::InvalidBinary(_))),
                "byte {at} changed"
            );
        }
        assert!(matches!(decode(b"garbage"), Err(Error::InvalidBinary(_))));
        assert!(matches!(
            decode(b"VECL-PROGRAM 1\noptions 0\n\n"),
            Err(Error::InvalidBinary(_))
        ));
    }

    #[test]
    fn ir_the_verifier_refuses_is_an_invalid_binary() {
        // A well-formed file whose IR calls a function that does not exist.
        let mut c = contents();
        c.unit.module = vecl_ir::text::parse_module(
            "fn @f() {\n  return\n}\n\nfn @g() {\n  %0: void = call @f()\n  return\n}\n",
        )
        .expect("IR");
        c.unit.module.functions[1].insts[0].inst = vecl_ir::Inst::Call(vecl_ir::FuncId(7), vec![]);
        c.unit.functions = vec![vecl_ir::link::Linkage::Export; 2];
        let err = decode(&encode(&c)).err();
        assert!(matches!(err, Some(Error::InvalidBinary(m)) if m.contains("IR")));
    }
}

//! Program binaries: a self-describing byte form of a built program.
//!
//! The form is text, so it survives any transport and can be read by eye:
//! a magic line, then length-prefixed sections for the build options, the
//! source (when there is one) and the Kernel IR in its text form
//! (`vecl_ir::text`). Loading parses the IR back and JIT-compiles it again;
//! machine code is never stored, so a binary stays valid across CPUs.

use vecl_ir::Module;
use vecl_runtime::{Error, Result};

const MAGIC: &str = "VECL-PROGRAM 1\n";

/// A decoded binary.
pub(crate) struct Decoded {
    pub(crate) options: String,
    pub(crate) source: Option<String>,
    pub(crate) module: Module,
}

fn push_section(out: &mut String, name: &str, body: &str) {
    out.push_str(&format!("{name} {}\n", body.len()));
    out.push_str(body);
    out.push('\n');
}

/// The bytes of a program.
pub(crate) fn encode(source: Option<&str>, options: &str, module: &Module) -> Vec<u8> {
    let mut out = String::from(MAGIC);
    push_section(&mut out, "options", options);
    if let Some(source) = source {
        push_section(&mut out, "source", source);
    }
    push_section(&mut out, "ir", &vecl_ir::text::print_module(module));
    out.into_bytes()
}

/// Reads `name <len>\n<body>\n` at the front of `rest`.
fn take_section<'a>(rest: &mut &'a str) -> Result<(&'a str, &'a str)> {
    let bad = |why: &str| Error::InvalidBinary(why.to_string());
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

/// Parses bytes made by [`encode`].
pub(crate) fn decode(bytes: &[u8]) -> Result<Decoded> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Error::InvalidBinary("not a vecl program binary".into()))?;
    let mut rest = text
        .strip_prefix(MAGIC)
        .ok_or_else(|| Error::InvalidBinary("not a vecl program binary".into()))?;
    let (mut options, mut source, mut ir) = (None, None, None);
    while !rest.is_empty() {
        let (name, body) = take_section(&mut rest)?;
        match name {
            "options" => options = Some(body.to_string()),
            "source" => source = Some(body.to_string()),
            "ir" => ir = Some(body),
            other => return Err(Error::InvalidBinary(format!("unknown section `{other}`"))),
        }
    }
    let ir = ir.ok_or_else(|| Error::InvalidBinary("no IR section".into()))?;
    let module =
        vecl_ir::text::parse_module(ir).map_err(|e| Error::InvalidBinary(format!("IR: {e}")))?;
    Ok(Decoded {
        options: options.unwrap_or_default(),
        source,
        module,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_round_trip_and_damage_is_an_error() {
        let module = Module::default();
        let bytes = encode(Some("kernel void k() {}\n"), "-cl-std=CL2.0", &module);
        let decoded = decode(&bytes).expect("decode");
        assert_eq!(decoded.options, "-cl-std=CL2.0");
        assert_eq!(decoded.source.as_deref(), Some("kernel void k() {}\n"));
        assert_eq!(decoded.module, module);
        assert!(matches!(decode(b"garbage"), Err(Error::InvalidBinary(_))));
        assert!(matches!(
            decode(&bytes[..bytes.len() - 3]),
            Err(Error::InvalidBinary(_))
        ));
    }
}

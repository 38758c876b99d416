//! The host side of `printf`: the generated code calls `vecl_printf`
//! once per lane (in lane order, inactive lanes included, which return at
//! once) with the call's format and arguments packed in a record on its
//! stack; this formats them with the interpreter's formatter
//! ([`vecl_ir::interp::format_printf`], so both print the same bytes) and
//! writes the whole call's output with one write under a lock, flushed at
//! once — the output of two calls never interleaves, and a host whose
//! stdout is a pipe (PyOpenCL's) sees each call when it is made.
//!
//! The record is a sequence of 64-bit words, written by
//! `lower/builtins/printf.rs`:
//! `[format address, argument count, (tag, component bits…)…]`, where a
//! `tag` gives the argument's type and the number of component words
//! after it; each component is in the low bits of its word (a float as its
//! bit pattern).
//!
//! Tests read the output through [`PrintfCapture`], which diverts it from
//! stdout to a buffer while it lives.

use std::ffi::CStr;
use std::io::Write;
use std::sync::{Mutex, MutexGuard};
use vecl_ir::{AddressSpace, Scalar, Type};

/// The tag bit of a pointer argument.
const POINTER: u64 = 1 << 16;

/// Where output goes: `Some` while a [`PrintfCapture`] lives, else stdout.
/// Held while one call's output is written.
static OUTPUT: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// Held by the one live [`PrintfCapture`], so captures never overlap.
static CAPTURE_OWNER: Mutex<()> = Mutex::new(());

/// The record tag of an argument of type `ty` (`None`: printf cannot take
/// it): the scalar's index, the component count in bits 8–15, and
/// [`POINTER`] for a pointer (one component, its address).
pub(crate) fn tag(ty: &Type) -> Option<u64> {
    let (s, n, ptr) = match ty {
        Type::Scalar(s) => (*s, 1, 0),
        Type::Vector(s, n) => (*s, u64::from(*n), 0),
        Type::Pointer(..) => (Scalar::U64, 1, POINTER),
        _ => return None,
    };
    let code = Scalar::ALL.iter().position(|x| *x == s)? as u64;
    Some(code | n << 8 | ptr)
}

/// The type and component count a tag stands for.
fn untag(t: u64) -> Option<(Type, usize)> {
    let n = ((t >> 8) & 0xff) as usize;
    if t & POINTER != 0 {
        return Some((
            Type::ptr(AddressSpace::Constant, Type::Scalar(Scalar::I8)),
            1,
        ));
    }
    let s = *Scalar::ALL.get((t & 0xff) as usize)?;
    Some(match n {
        1 => (Type::Scalar(s), 1),
        2..=16 => (Type::Vector(s, n as u8), n),
        _ => return None,
    })
}

/// The NUL-terminated string at `addr`, or `None` for a null address.
///
/// # Safety
/// A non-null `addr` must point at a NUL-terminated string.
unsafe fn read_cstr(addr: u64) -> Option<Vec<u8>> {
    if addr == 0 {
        return None;
    }
    // SAFETY: the caller guarantees a NUL-terminated string at `addr`.
    Some(
        unsafe { CStr::from_ptr(addr as *const std::ffi::c_char) }
            .to_bytes()
            .to_vec(),
    )
}

/// Formats the call a record describes.
///
/// # Safety
/// `record` must point at a complete record (see the module comment) whose
/// string addresses point at NUL-terminated strings.
unsafe fn format_record(record: *const u64) -> Option<Vec<u8>> {
    // SAFETY: (every read below) the record is complete: its count and
    // tags say how many words follow.
    let word = |i: usize| unsafe { record.add(i).read() };
    // SAFETY: the format is a string literal of the program.
    let fmt = unsafe { read_cstr(word(0)) }?;
    let count = usize::try_from(word(1)).ok()?;
    let mut args: Vec<(Type, Vec<u64>)> = Vec::with_capacity(count);
    let mut at = 2;
    for _ in 0..count {
        let (ty, n) = untag(word(at))?;
        let bits = (0..n).map(|k| word(at + 1 + k)).collect();
        args.push((ty, bits));
        at += 1 + n;
    }
    let refs: Vec<(&Type, &[u64])> = args.iter().map(|(t, b)| (t, b.as_slice())).collect();
    // SAFETY: `%s` arguments are the program's string pointers.
    let mut read = |addr: u64| unsafe { read_cstr(addr) };
    vecl_ir::interp::format_printf(&fmt, &refs, &mut read).ok()
}

/// Writes one call's output whole: to the capture buffer if one is
/// installed, else to stdout, flushed.
fn emit(text: &[u8]) -> bool {
    let mut sink = OUTPUT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(buf) = sink.as_mut() {
        buf.extend_from_slice(text);
        return true;
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text).and_then(|()| out.flush()).is_ok()
}

/// One lane's `printf`: formats and prints the call in `record` when
/// `active` is non-zero. Returns 0 on success and -1 when the call could
/// not be formatted or written (OpenCL's return value of `printf`).
///
/// # Safety
/// When `active` is non-zero, `record` must point at a complete record
/// (module comment) whose string addresses are NUL-terminated strings.
pub(crate) unsafe extern "C" fn vecl_printf(record: *const u64, active: i32) -> i32 {
    if active == 0 {
        return 0;
    }
    // No panic may unwind into the generated code.
    let done = std::panic::catch_unwind(|| {
        // SAFETY: the generated code passes a complete record.
        let text = unsafe { format_record(record) }?;
        emit(&text).then_some(())
    });
    match done {
        Ok(Some(())) => 0,
        _ => -1,
    }
}

/// The symbols of this file the generated code imports.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![("vecl_printf", vecl_printf as *const u8)]
}

/// Diverts kernels' `printf` output (of every thread) from stdout into a
/// buffer while it lives; one capture at a time (a second `start` waits).
pub struct PrintfCapture {
    _owner: MutexGuard<'static, ()>,
}

impl PrintfCapture {
    /// Starts capturing, with an empty buffer.
    pub fn start() -> PrintfCapture {
        let owner = CAPTURE_OWNER.lock().unwrap_or_else(|e| e.into_inner());
        *OUTPUT.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
        PrintfCapture { _owner: owner }
    }

    /// The output captured since `start` or the last `take`.
    pub fn take(&self) -> Vec<u8> {
        let mut sink = OUTPUT.lock().unwrap_or_else(|e| e.into_inner());
        sink.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

impl Drop for PrintfCapture {
    fn drop(&mut self) {
        *OUTPUT.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        for ty in [
            Type::Scalar(Scalar::I32),
            Type::Vector(Scalar::F32, 4),
            Type::Vector(Scalar::I16, 2),
            Type::Scalar(Scalar::F64),
        ] {
            let t = tag(&ty).expect("printable");
            assert_eq!(untag(t).map(|(u, _)| u), Some(ty));
        }
        let p = tag(&Type::ptr(AddressSpace::Constant, Type::Scalar(Scalar::I8)));
        assert_eq!(p.and_then(untag).map(|(_, n)| n), Some(1));
    }

    #[test]
    fn a_record_formats_and_prints_whole() {
        let fmt = c"x=%d v=%v2f s=%s\n";
        let lit = c"lit";
        let i = tag(&Type::Scalar(Scalar::I32)).unwrap_or(0);
        let v = tag(&Type::Vector(Scalar::F32, 2)).unwrap_or(0);
        let p = tag(&Type::ptr(AddressSpace::Constant, Type::Scalar(Scalar::I8))).unwrap_or(0);
        let record = [
            fmt.as_ptr() as u64,
            3,
            i,
            (-5i32) as u32 as u64,
            v,
            u64::from(1.5f32.to_bits()),
            u64::from((-2.0f32).to_bits()),
            p,
            lit.as_ptr() as u64,
        ];
        let cap = PrintfCapture::start();
        // SAFETY: a complete record of live strings.
        let (on, off) = unsafe {
            (
                vecl_printf(record.as_ptr(), -1),
                vecl_printf(record.as_ptr(), 0),
            )
        };
        assert_eq!((on, off), (0, 0));
        assert_eq!(
            String::from_utf8_lossy(&cap.take()),
            "x=-5 v=1.500000,-2.000000 s=lit\n"
        );
        // A bad format is -1 and prints nothing.
        let bad = [c"%q".as_ptr() as u64, 0];
        // SAFETY: a complete record.
        assert_eq!(unsafe { vecl_printf(bad.as_ptr(), -1) }, -1);
        assert!(cap.take().is_empty());
    }
}

//! Link options of libvecl.so.
//!
//! The dispatch table points at internal functions, never at the four
//! exported `cl*` symbols: a reference to an exported name from inside the
//! library would bind to the ICD loader's function of that name, which
//! calls back through the table forever. The compiler may still merge an
//! internal function with an exported one of identical body (it did for
//! `clGetExtensionFunctionAddressForPlatform`) and point the table at the
//! exported name. `-Bsymbolic` makes the linker bind every reference from
//! inside the library to the library's own definitions, whatever the
//! compiler merged.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    }
}

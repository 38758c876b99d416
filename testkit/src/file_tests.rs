//! File tests, text in → text out: inputs `NAME.EXT` in a folder, each
//! with its expected output `NAME.out` beside it, which `VECL_BLESS=1`
//! rewrites from what the code under test printed; and the interpreter run
//! of a case's kernel `@k` before and after a pass, which must leave the
//! same bytes.

use std::path::{Path, PathBuf};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::{AddressSpace, Module, Type};

/// The files of `dir` ending in `.ext`, sorted.
pub fn cases(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// Whether the run rewrites the expected outputs (`VECL_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var("VECL_BLESS").is_ok_and(|v| v == "1")
}

/// Checks `printed` against the `.out` file of case `path` (or writes it
/// there when [`blessing`]); a difference is added to `failures`.
pub fn check_output(path: &Path, printed: &str, failures: &mut Vec<String>) {
    let expected_path = path.with_extension("out");
    if blessing() {
        std::fs::write(&expected_path, printed).expect("writable");
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    if expected != printed {
        failures.push(format!(
            "{}: output differs from {}:\n{printed}",
            path.display(),
            expected_path.display()
        ));
    }
}

/// Arguments for `@k`: 64-byte buffers holding 1, 2, 3, … for `__global`
/// pointers, 64 bytes per group for `__local` ones, 1.0-ish bytes for
/// by-value structs, the value 1 for scalars.
pub fn args_for(m: &Module) -> Vec<KernelArg> {
    let Some((_, k)) = m.function_by_name("k") else {
        return Vec::new();
    };
    k.params
        .iter()
        .map(|p| match (&p.ty, p.byval) {
            (Type::Pointer(_, pointee), true) => {
                let n = m.size_of(pointee) as usize;
                KernelArg::Value((0..n).map(|i| if i % 4 == 3 { 0x3f } else { 0 }).collect())
            }
            (Type::Pointer(AddressSpace::Local, _), false) => KernelArg::Local(64),
            (Type::Pointer(..), false) => KernelArg::Buffer((1..=64).collect()),
            (ty, _) => {
                let mut bytes = vec![0u8; m.size_of(ty) as usize];
                if let Some(b) = bytes.first_mut() {
                    *b = 1;
                }
                KernelArg::Value(bytes)
            }
        })
        .collect()
}

/// Runs `@k` of `m` on 4 work-items in groups of 2 with [`args_for`]'s
/// arguments: how it ended, and the arguments afterwards.
pub fn run_k(m: &Module) -> (Result<(), String>, Vec<KernelArg>) {
    let mut args = args_for(m);
    let r = run_kernel(m, "k", &mut args, &NdRange::linear(4, 2)).map_err(|e| e.to_string());
    (r, args)
}

/// Runs `@k` of `before` and of `after` (a pass's output); a difference in
/// the buffers or the outcome is added to `failures` under `name`.
pub fn same_run(name: &str, before: &Module, after: &Module, failures: &mut Vec<String>) {
    let (r0, a0) = run_k(before);
    let (r1, a1) = run_k(after);
    if r0 != r1 || a0 != a1 {
        failures.push(format!(
            "{name}: the interpreter disagrees: before {r0:?} {a0:?}, after {r1:?} {a1:?}"
        ));
    }
}

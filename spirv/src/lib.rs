//! vecl's SPIR-V front end: a SPIR-V module of the OpenCL environment
//! (`Kernel` capability, `Physical64` addressing, `OpenCL` memory model) →
//! Kernel IR, so that everything after the front end (vectorisation, the
//! JIT, checked mode, `--explain`) serves SPIR-V kernels as it serves
//! OpenCL C.
//!
//! The stages, one module each: [`reader`] decodes the binary (with
//! `rspirv`) into instructions that know their word offset; `module` reads
//! the module-level tables (types, constants, variables, signatures,
//! entry points); `function` turns each body into a control-flow graph that
//! the IR's structurizer makes structured, with `ops`, `atomics` and
//! `extinst` translating the instructions. The result is a
//! [`vecl_ir::link::Unit`]: the module and the linkage of its functions
//! and variables (`LinkageAttributes`), ready to be built or linked.
//!
//! Every problem is a [`SpirvError`] naming the word offset and the
//! instruction; a panic inside the translation (a bug) is caught and
//! reported as an internal error, never propagated.
//!
//! ```
//! // Not a SPIR-V module: the error says where and why.
//! let e = vecl_spirv::translate(&[0x1234_5678, 0, 0, 1, 0], &Default::default()).unwrap_err();
//! assert!(e.to_string().contains("magic number"));
//! ```

mod atomics;
mod bits;
mod dot;
pub mod error;
mod extinst;
mod function;
mod groups;
mod images;
mod module;
mod ops;
pub mod reader;
pub mod support;

pub use error::SpirvError;
pub use module::Options;

use rspirv::spirv::Op;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use vecl_ir::link::Unit;

/// The SPIR-V magic number, the module's first word.
pub const MAGIC: u32 = 0x0723_0203;

/// The SPIR-V versions the front end reads (`CL_DEVICE_IL_VERSION`).
pub const VERSIONS: [(u8, u8); 7] = [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6)];

/// Whether `bytes` start like a SPIR-V module (either byte order).
pub fn is_spirv(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && {
        let w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        w == MAGIC || w == MAGIC.swap_bytes()
    }
}

/// The module's words from its bytes, in either byte order (the magic
/// number tells which).
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, SpirvError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(SpirvError {
            word: Some(bytes.len() / 4),
            opname: None,
            message: format!(
                "the module is {} bytes long, not a whole number of 32-bit words",
                bytes.len()
            ),
        });
    }
    let mut words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words.first() == Some(&MAGIC.swap_bytes()) {
        for w in &mut words {
            *w = w.swap_bytes();
        }
    }
    Ok(words)
}

/// Stack of the translating thread: the structurizer and the verifier
/// recurse over the nesting of the control flow they build.
const STACK: usize = 256 << 20;

/// Translates a module into a unit with the linkage its
/// `LinkageAttributes` give (kernels are exported).
pub fn translate(words: &[u32], opts: &Options) -> Result<Unit, SpirvError> {
    let owned = words.to_vec();
    let owned_opts = opts.clone();
    let worker = std::thread::Builder::new()
        .name("vecl-spirv".into())
        .stack_size(STACK)
        .spawn(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| translate_here(&owned, &owned_opts)))
        });
    let joined = match worker {
        Ok(handle) => handle.join().unwrap_or_else(Err),
        // No thread: translate here.
        Err(_) => std::panic::catch_unwind(AssertUnwindSafe(|| translate_here(words, opts))),
    };
    joined.unwrap_or_else(|_| {
        Err(SpirvError::module(
            "internal compiler error (the SPIR-V front end panicked)",
        ))
    })
}

fn translate_here(words: &[u32], opts: &Options) -> Result<Unit, SpirvError> {
    let bin = reader::read(words)?;
    if !VERSIONS.contains(&bin.version) {
        return Err(SpirvError {
            word: Some(1),
            opname: None,
            message: format!(
                "SPIR-V {}.{} is not supported (vecl reads 1.0 to 1.6)",
                bin.version.0, bin.version.1
            ),
        });
    }
    let mut cx = module::Cx::new(&bin, opts);
    cx.read_module()?;
    let mut const_globals = HashMap::new();
    let mut i = 0;
    while i < bin.insts.len() {
        if bin.insts[i].inst.class.opcode == Op::Function {
            i = function::translate_function(&mut cx, &bin.insts, i, &mut const_globals)?;
        } else {
            i += 1;
        }
    }
    name_kernel_params(&mut cx, &bin);
    let provenance = std::mem::take(&mut cx.provenance);
    let unit = cx.finish();
    if let Err(errors) = vecl_ir::verify::verify_module(&unit.module) {
        // An instruction whose operands do not fit it (a hostile or
        // malformed module) makes IR the verifier refuses: report it at
        // that instruction. Anything else is a bug of the front end.
        for e in &errors {
            let at = e.function.as_deref().and_then(|name| {
                let (fid, _) = unit.module.function_by_name(name)?;
                let n: usize = e
                    .subject
                    .split('%')
                    .nth(1)?
                    .split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse()
                    .ok()?;
                provenance.get(&fid)?.get(n).copied()
            });
            if let Some((word, opname)) = at {
                return Err(SpirvError::at(
                    word,
                    opname,
                    format!("the operands do not fit the instruction: {}", e.message),
                ));
            }
        }
        return Err(SpirvError::module(format!(
            "internal compiler error: the translated module is not valid IR:\n{}",
            vecl_ir::verify::format_errors(&errors)
        )));
    }
    Ok(unit)
}

/// Compilers often emit a kernel as a wrapper that passes its parameters
/// to a function with the kernel's body; when the kernel's own parameters
/// have no names, that function's names are the source's.
fn name_kernel_params(cx: &mut module::Cx<'_>, bin: &reader::Binary) {
    let ids: Vec<(u32, vecl_ir::FuncId)> = cx
        .functions
        .iter()
        .map(|(s, f)| (*s, f.id))
        .filter(|(_, f)| cx.module.functions[f.index()].kernel.is_some())
        .collect();
    for (spv, fid) in ids {
        let Some(start) = bin
            .insts
            .iter()
            .position(|i| i.inst.class.opcode == Op::Function && i.inst.result_id == Some(spv))
        else {
            continue;
        };
        let params: Vec<u32> = bin.insts[start + 1..]
            .iter()
            .take_while(|i| i.inst.class.opcode == Op::FunctionParameter)
            .filter_map(|i| i.inst.result_id)
            .collect();
        if params.iter().any(|p| cx.names.contains_key(p)) {
            continue;
        }
        let call = bin.insts[start + 1..]
            .iter()
            .take_while(|i| i.inst.class.opcode != Op::FunctionEnd)
            .find(|i| i.inst.class.opcode == Op::FunctionCall);
        let Some(call) = call else { continue };
        let passed: Vec<u32> = call.inst.operands[1..]
            .iter()
            .filter_map(|o| match o {
                rspirv::dr::Operand::IdRef(w) => Some(*w),
                _ => None,
            })
            .collect();
        if passed != params {
            continue;
        }
        let Ok(callee) = module::word_of(call, 0) else {
            continue;
        };
        let Some(cstart) = bin
            .insts
            .iter()
            .position(|i| i.inst.class.opcode == Op::Function && i.inst.result_id == Some(callee))
        else {
            continue;
        };
        let names: Vec<Option<String>> = bin.insts[cstart + 1..]
            .iter()
            .take_while(|i| i.inst.class.opcode == Op::FunctionParameter)
            .map(|i| i.inst.result_id.and_then(|r| cx.names.get(&r).cloned()))
            .collect();
        let f = &mut cx.module.functions[fid.index()];
        if names.len() == f.params.len() {
            for (p, n) in f.params.iter_mut().zip(names) {
                if let Some(n) = n {
                    p.name = module::clean_name(&n);
                }
            }
        }
    }
}

/// The specialisation constants of a module: each `SpecId` with the size
/// in bytes of its value (1 for booleans), for
/// `clSetProgramSpecializationConstant`'s checks.
pub fn spec_constants(words: &[u32]) -> Result<Vec<(u32, usize)>, SpirvError> {
    let words = words.to_vec();
    let scan = move || -> Result<Vec<(u32, usize)>, SpirvError> {
        let bin = reader::read(&words)?;
        let mut ids: HashMap<u32, u32> = HashMap::new();
        let mut widths: HashMap<u32, usize> = HashMap::new();
        for i in &bin.insts {
            let ops = &i.inst.operands;
            match i.inst.class.opcode {
                Op::Decorate => {
                    if let (
                        Some(rspirv::dr::Operand::IdRef(t)),
                        Some(rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::SpecId)),
                        Some(rspirv::dr::Operand::LiteralBit32(n)),
                    ) = (ops.first(), ops.get(1), ops.get(2))
                    {
                        ids.insert(*t, *n);
                    }
                }
                Op::TypeBool => {
                    if let Some(r) = i.inst.result_id {
                        widths.insert(r, 1);
                    }
                }
                Op::TypeInt | Op::TypeFloat => {
                    if let (Some(r), Some(rspirv::dr::Operand::LiteralBit32(bits))) =
                        (i.inst.result_id, ops.first())
                    {
                        widths.insert(r, (*bits as usize).div_ceil(8));
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        for i in &bin.insts {
            if matches!(
                i.inst.class.opcode,
                Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse
            ) {
                let (Some(r), Some(t)) = (i.inst.result_id, i.inst.result_type) else {
                    continue;
                };
                if let (Some(id), Some(size)) = (ids.get(&r), widths.get(&t)) {
                    out.push((*id, *size));
                }
            }
        }
        out.sort();
        Ok(out)
    };
    std::panic::catch_unwind(AssertUnwindSafe(scan)).unwrap_or_else(|_| {
        Err(SpirvError::module(
            "internal compiler error (the SPIR-V front end panicked)",
        ))
    })
}

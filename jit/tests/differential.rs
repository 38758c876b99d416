//! Differential tests: every kernel of the IR corpus (`ir/tests/corpus`) and
//! of `ir/tests/interp/control.ir` runs on the reference interpreter and on
//! the JIT over several launch shapes and SIMD widths; the buffers must
//! agree. Inputs are small deterministic values; a launch the interpreter
//! rejects (e.g. an access out of bounds for these inputs) is not run on the
//! JIT.

use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::text::parse_module;
use vecl_ir::{AddressSpace, Module, Scalar, Type};
use vecl_jit::abi::Launch;
use vecl_jit::{compile_kernel, JitError, JitOptions};
use vecl_testkit::{aligned, Arg};

const BUF_BYTES: usize = 8192;

/// Whether a kernel asks for ids in dimensions 1 or 2 (or linear ids).
/// Kernels indexed by `get_global_id(0)` alone race on their elements in a
/// 2-D or 3-D launch, where results depend on the order: those run 1-D only.
fn uses_more_dimensions(f: &vecl_ir::Function) -> bool {
    use vecl_ir::{Inst, WorkItemFn};
    f.insts.iter().any(|d| match &d.inst {
        Inst::WorkItem(WorkItemFn::GlobalLinearId | WorkItemFn::LocalLinearId, _) => true,
        Inst::WorkItem(WorkItemFn::GlobalId | WorkItemFn::LocalId, Some(dim)) => {
            !matches!(f.inst(*dim).inst, Inst::Const(0))
        }
        _ => false,
    })
}

fn input_bytes(elem: Option<Scalar>, seed: usize, negative: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(BUF_BYTES);
    let mut i = 0usize;
    while out.len() < BUF_BYTES {
        let k = ((i * 7 + seed * 13) % 16) as i64 - if negative { 6 } else { 0 };
        match elem {
            Some(Scalar::F32) => out.extend((k as f32 * 0.5 - 2.0).to_le_bytes()),
            Some(Scalar::F64) => out.extend((k as f64 * 0.5 - 2.0).to_le_bytes()),
            Some(s) if s.size() == 8 => out.extend(k.to_le_bytes()),
            Some(s) if s.size() == 2 => out.extend((k as i16).to_le_bytes()),
            Some(s) if s.size() == 1 => out.push(k as u8),
            _ => out.extend((k as i32).to_le_bytes()),
        }
        i += 1;
    }
    out.truncate(BUF_BYTES);
    out
}

fn scalar_value(ty: &Type, module: &Module) -> Vec<u8> {
    let size = module.size_of(ty) as usize;
    match ty.scalar() {
        Some(Scalar::F32) => (0..ty.lanes())
            .flat_map(|_| 1.5f32.to_le_bytes())
            .collect::<Vec<u8>>()[..size.min(4 * ty.lanes() as usize)]
            .iter()
            .copied()
            .chain(std::iter::repeat(0))
            .take(size)
            .collect(),
        Some(Scalar::F64) => (0..ty.lanes())
            .flat_map(|_| 1.5f64.to_le_bytes())
            .chain(std::iter::repeat(0))
            .take(size)
            .collect(),
        Some(s) => (0..ty.lanes())
            .flat_map(|_| {
                let mut b = 24u64.to_le_bytes().to_vec();
                b.truncate(s.size() as usize);
                b
            })
            .chain(std::iter::repeat(0))
            .take(size)
            .collect(),
        None => vec![3u8; size],
    }
}

fn close(elem: Option<Scalar>, a: &[u8], b: &[u8]) -> bool {
    match elem {
        Some(Scalar::F32) => a.chunks(4).zip(b.chunks(4)).all(|(x, y)| {
            let (x, y) = (
                f32::from_le_bytes(x.try_into().unwrap_or([0; 4])),
                f32::from_le_bytes(y.try_into().unwrap_or([0; 4])),
            );
            x == y
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(1.0)
        }),
        _ => a == b,
    }
}

struct Outcome {
    /// Fill integer buffers with some negative values too.
    negative: bool,
    compared: usize,
    timings: Vec<String>,
    unsupported: Vec<String>,
    /// Kernels that got the wide AVX-512 code, and why the others asked
    /// for it did not.
    wide: usize,
    refused: Vec<String>,
}

fn check_module(src: &str, label: &str, out: &mut Outcome) {
    let module = match parse_module(src) {
        Ok(m) => m,
        Err(e) => panic!("{label}: {e}"),
    };
    let shapes = [
        NdRange {
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [64, 1, 1],
            local_size: [16, 1, 1],
        },
        NdRange {
            work_dim: 1,
            global_offset: [3, 0, 0],
            global_size: [37, 1, 1],
            local_size: [8, 1, 1],
        },
        NdRange {
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [100, 1, 1],
            local_size: [25, 1, 1],
        },
        NdRange {
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [20, 1, 1],
            local_size: [1, 1, 1],
        },
        NdRange {
            work_dim: 3,
            global_offset: [1, 2, 3],
            global_size: [9, 5, 3],
            local_size: [4, 2, 3],
        },
    ];
    for (_, f) in module.kernels() {
        // W = 16 twice: Cranelift's code, and the wide AVX-512 code for
        // the kernels it takes (the others keep Cranelift's).
        for (w, wide) in [(4u32, false), (8, false), (16, false), (16, true)] {
            let opts = JitOptions {
                simd_width: Some(w),
                tiers: vecl_testkit::test_tiers(w),
                wide,
                ..JitOptions::default()
            };
            let k = match compile_kernel(&module, &f.name, &opts) {
                Ok(k) => k,
                Err(e @ JitError::Unsupported { .. }) => {
                    out.unsupported.push(format!("{label}: {e}"));
                    break;
                }
                Err(e) => panic!("{label}: {e}"),
            };
            if k.explain().contains("code: wide AVX-512") {
                out.wide += 1;
            } else if let Some(line) = k.explain().lines().find(|l| l.starts_with("code: ")) {
                out.refused.push(format!("{label}: {line}"));
            }
            if let Some(line) = k.explain().lines().last() {
                out.timings.push(format!("W={w} {line}"));
            }
            // A kernel that requires a work-group size runs with that size
            // only (other shapes read __local memory it never writes).
            let required = f.kernel.as_ref().and_then(|k| k.reqd_work_group_size);
            let own_shape = required.map(|r| NdRange {
                work_dim: 3,
                global_offset: [0; 3],
                global_size: [2 * u64::from(r[0]), u64::from(r[1]), u64::from(r[2])],
                local_size: [u64::from(r[0]), u64::from(r[1]), u64::from(r[2])],
            });
            let kernel_shapes = match &own_shape {
                Some(s) => std::slice::from_ref(s),
                None => &shapes[..],
            };
            for shape in kernel_shapes {
                if shape.work_dim > 1 && !uses_more_dimensions(f) && own_shape.is_none() {
                    continue;
                }
                let mut iargs: Vec<KernelArg> = f
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| match &p.ty {
                        Type::Pointer(AddressSpace::Local, _) if !p.byval => KernelArg::Local(1024),
                        Type::Pointer(_, t) if !p.byval => {
                            KernelArg::Buffer(input_bytes(t.scalar(), i, out.negative))
                        }
                        Type::Pointer(_, t) => KernelArg::Value(scalar_value(t, &module)),
                        t => KernelArg::Value(scalar_value(t, &module)),
                    })
                    .collect();
                let before: Vec<Option<Vec<u8>>> = iargs
                    .iter()
                    .map(|a| {
                        if let KernelArg::Buffer(b) = a {
                            Some(b.clone())
                        } else {
                            None
                        }
                    })
                    .collect();
                if run_kernel(&module, &f.name, &mut iargs, shape).is_err() {
                    continue;
                }
                // A launch that copies uninitialised __local bytes out has no
                // defined result to compare.
                let uninit = iargs.iter().any(
                    |a| matches!(a, KernelArg::Buffer(b) if b.chunks(4).any(|c| c == [0xcd; 4])),
                );
                if uninit {
                    continue;
                }
                let mut bufs: Vec<Vec<u128>> = Vec::new();
                for b in &before {
                    let mut v = aligned(BUF_BYTES);
                    if let Some(b) = b {
                        // SAFETY: `v` holds at least BUF_BYTES bytes.
                        let dst = unsafe {
                            std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, BUF_BYTES)
                        };
                        dst.copy_from_slice(b);
                    }
                    bufs.push(v);
                }
                let mut jargs: Vec<Arg<'_>> = Vec::new();
                for ((a, buf), p) in iargs.iter().zip(bufs.iter_mut()).zip(&f.params) {
                    jargs.push(match a {
                        KernelArg::Buffer(_) => {
                            // SAFETY: as above.
                            Arg::Buf(unsafe {
                                std::slice::from_raw_parts_mut(
                                    buf.as_mut_ptr() as *mut u8,
                                    BUF_BYTES,
                                )
                            })
                        }
                        KernelArg::Local(n) => Arg::Local(*n as u64),
                        KernelArg::Value(v) => Arg::Bytes(v.clone()),
                        _ => panic!("{label}: unexpected argument for {}", p.name),
                    });
                }
                let mut launch = Launch::new(
                    shape.work_dim,
                    shape.global_offset,
                    shape.global_size,
                    shape.local_size,
                );
                vecl_testkit::run(&k, &mut jargs, &mut launch);
                drop(jargs);
                for (i, (a, buf)) in iargs.iter().zip(&bufs).enumerate() {
                    if let KernelArg::Buffer(want) = a {
                        // SAFETY: as above.
                        let got = unsafe {
                            std::slice::from_raw_parts(buf.as_ptr() as *const u8, BUF_BYTES)
                        };
                        let elem = f.params[i].ty.pointee().and_then(|t| t.scalar());
                        if !close(elem, want, got) {
                            let at = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(0);
                            eprintln!(
                                "first difference at byte {at}: want {:?} got {:?}",
                                &want[at & !3..(at & !3) + 8],
                                &got[at & !3..(at & !3) + 8]
                            );
                        }
                        assert!(
                            close(elem, want, got),
                            "{label}: kernel {} W={w} shape {shape:?}: buffer {} differs from the interpreter",
                            f.name,
                            f.params[i].name
                        );
                    }
                }
                out.compared += 1;
            }
        }
    }
}

#[test]
fn jit_agrees_with_interpreter_on_the_ir_corpus() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../ir/tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../ir/tests/interp/control.ir").into());
    files.sort();
    let mut out = Outcome {
        negative: false,
        compared: 0,
        timings: Vec::new(),
        unsupported: Vec::new(),
        wide: 0,
        refused: Vec::new(),
    };
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
    {
        let src = std::fs::read_to_string(path).expect("read corpus file");
        check_module(&src, &path.display().to_string(), &mut out);
    }
    for u in &out.unsupported {
        eprintln!("unsupported: {u}");
    }
    for r in &out.refused {
        eprintln!("wide code refused: {r}");
    }
    eprintln!(
        "compared {} launches; {} kernels got the wide code",
        out.compared, out.wide
    );
    for t in &out.timings {
        eprintln!("{t}");
    }
    assert!(out.compared > 50, "only {} launches compared", out.compared);
}

const TYPES: [&str; 10] = [
    "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64",
];

/// One kernel per (binary operation, type): `c[i] = a[i] OP b[i]`, so every
/// vector and per-lane form the lowering emits is run and compared.
#[test]
fn every_binary_operation_and_type_agrees_with_interpreter() {
    let mut out = Outcome {
        negative: true,
        compared: 0,
        timings: Vec::new(),
        unsupported: Vec::new(),
        wide: 0,
        refused: Vec::new(),
    };
    for t in TYPES {
        let float = t.starts_with('f');
        let ops: &[&str] = if float {
            &["add", "sub", "mul", "div"]
        } else {
            &[
                "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr",
            ]
        };
        for op in ops {
            let src = format!(
                "kernel @k(a: ptr global {t}, b: ptr global {t}, c: ptr global {t}) {{\n  %0: ptr global {t} = param 0\n  %1: ptr global {t} = param 1\n  %2: ptr global {t} = param 2\n  %3: u32 = const 0\n  %4: u64 = work_item global_id %3\n  %5: ptr global {t} = index %0, %4\n  %6: ptr global {t} = index %1, %4\n  %7: ptr global {t} = index %2, %4\n  %8: {t} = load %5\n  %9: {t} = load %6\n  %10: {t} = {op} %8, %9\n  store %7, %10\n}}\n"
            );
            check_module(&src, &format!("{op} {t}"), &mut out);
        }
    }
    assert!(out.unsupported.is_empty(), "{:?}", out.unsupported);
    // The wide code's subset: float and double add, sub, mul, div; int
    // and uint add, sub, mul, div, rem, and, or, xor, shl, shr (2 × 4 +
    // 2 × 10).
    if vecl_jit::wide::select::cpu_supported() {
        assert_eq!(
            out.wide, 28,
            "kernels with the wide code: refused {:?}",
            out.refused
        );
    }
    assert!(
        out.compared >= 80 * 4,
        "only {} launches compared",
        out.compared
    );
}

/// One kernel per (source, destination) type pair of `convert`, plus
/// comparisons and selects on each type.
#[test]
fn every_conversion_and_comparison_agrees_with_interpreter() {
    let mut out = Outcome {
        negative: true,
        compared: 0,
        timings: Vec::new(),
        unsupported: Vec::new(),
        wide: 0,
        refused: Vec::new(),
    };
    for from in TYPES {
        for to in TYPES {
            let src = format!(
                "kernel @k(a: ptr global {from}, c: ptr global {to}) {{\n  %0: ptr global {from} = param 0\n  %1: ptr global {to} = param 1\n  %2: u32 = const 0\n  %3: u64 = work_item global_id %2\n  %4: ptr global {from} = index %0, %3\n  %5: ptr global {to} = index %1, %3\n  %6: {from} = load %4\n  %7: {to} = convert %6\n  store %5, %7\n}}\n"
            );
            check_module(&src, &format!("convert {from} -> {to}"), &mut out);
        }
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
            let t = from;
            let src = format!(
                "kernel @k(a: ptr global {t}, b: ptr global {t}, c: ptr global {t}) {{\n  %0: ptr global {t} = param 0\n  %1: ptr global {t} = param 1\n  %2: ptr global {t} = param 2\n  %3: u32 = const 0\n  %4: u64 = work_item global_id %3\n  %5: ptr global {t} = index %0, %4\n  %6: ptr global {t} = index %1, %4\n  %7: ptr global {t} = index %2, %4\n  %8: {t} = load %5\n  %9: {t} = load %6\n  %10: bool = cmp {cmp} %8, %9\n  %11: {t} = select %10, %8, %9\n  store %7, %11\n}}\n"
            );
            check_module(&src, &format!("cmp {cmp} {t}"), &mut out);
        }
    }
    assert!(out.unsupported.is_empty(), "{:?}", out.unsupported);
    eprintln!("{} kernels got the wide code", out.wide);
    // The wide code's: every conversion among `char`, `uchar`, `int`,
    // `uint`, `float` and `double` and the six comparisons of each (36 +
    // 36).
    if vecl_jit::wide::select::cpu_supported() {
        assert_eq!(
            out.wide, 72,
            "kernels with the wide code: refused {:?}",
            out.refused
        );
    }
    assert!(
        out.compared >= 160 * 4,
        "only {} launches compared",
        out.compared
    );
}

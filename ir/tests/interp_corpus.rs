//! Every kernel of the IR text corpus (`tests/corpus/*.ir`) runs in the
//! interpreter on generated arguments: zero-filled buffers, small scalar
//! values, 64 work-items in groups of 16 (or the kernel's required size).
//! The checks: no kernel uses an instruction or builtin the interpreter
//! lacks or trips over its IR (`UnsupportedBuiltin`, `Malformed`), and two
//! runs give the same bytes (the interpreter is deterministic).

use vecl_ir::interp::{run_kernel_capture, InterpError, KernelArg, NdRange};
use vecl_ir::text::parse_module;
use vecl_ir::*;

fn args_for(module: &Module, f: &Function) -> Vec<KernelArg> {
    f.params
        .iter()
        .map(|p| match &p.ty {
            Type::Pointer(AddressSpace::Local, _) => KernelArg::Local(4096),
            Type::Pointer(_, pointee) if p.byval => {
                KernelArg::Value(vec![0; module.size_of(pointee) as usize])
            }
            Type::Pointer(..) => KernelArg::Buffer(vec![0; 1 << 16]),
            ty => {
                let s = ty.scalar().unwrap_or(Scalar::U32);
                let one: Vec<u8> = match s {
                    Scalar::F32 => 0.5f32.to_le_bytes().to_vec(),
                    Scalar::F64 => 0.5f64.to_le_bytes().to_vec(),
                    Scalar::F16 => vec![0x00, 0x38],
                    _ => 8u64.to_le_bytes()[..s.size() as usize].to_vec(),
                };
                let mut bytes: Vec<u8> = (0..ty.lanes()).flat_map(|_| one.clone()).collect();
                bytes.resize(module.size_of(ty) as usize, 0);
                KernelArg::Value(bytes)
            }
        })
        .collect()
}

#[test]
fn every_corpus_kernel_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut ran = 0;
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
    {
        let src = std::fs::read_to_string(path).unwrap();
        let module = parse_module(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (_, f) in module.kernels() {
            let local = f
                .kernel
                .as_ref()
                .and_then(|k| k.reqd_work_group_size)
                .map_or([16, 1, 1], |r| r.map(u64::from));
            let range = NdRange {
                work_dim: 3,
                global_offset: [0; 3],
                global_size: [local[0] * 4, local[1], local[2]],
                local_size: local,
            };
            let mut runs = Vec::new();
            for _ in 0..2 {
                let mut args = args_for(&module, f);
                let mut out = Vec::new();
                let result = run_kernel_capture(&module, &f.name, &mut args, &range, &mut out);
                if let Err(
                    e @ (InterpError::UnsupportedBuiltin(_) | InterpError::Malformed { .. }),
                ) = &result
                {
                    panic!("{} `{}`: {e}", path.display(), f.name);
                }
                runs.push((result, args, out));
            }
            assert_eq!(
                runs[0],
                runs[1],
                "{} `{}` is not deterministic",
                path.display(),
                f.name
            );
            ran += 1;
        }
    }
    assert!(ran >= 20, "only {ran} corpus kernels found");
}

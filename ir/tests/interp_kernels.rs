//! Whole kernels run through the reference interpreter, each result checked
//! element by element against the same computation done on the host.

use vecl_ir::builder::FunctionBuilder;
use vecl_ir::interp::{run_kernel, InterpError, KernelArg, NdRange};
use vecl_ir::*;

fn param(name: &str, ty: Type) -> Param {
    Param {
        name: name.into(),
        ty,
        byval: false,
    }
}

fn gptr(t: Type) -> Type {
    Type::ptr(AddressSpace::Global, t)
}

fn module_of(kernels: Vec<Function>) -> Module {
    let functions = kernels
        .into_iter()
        .map(|mut f| {
            f.kernel.get_or_insert_with(KernelInfo::default);
            f
        })
        .collect();
    Module {
        functions,
        ..Module::default()
    }
}

fn work_item(b: &mut FunctionBuilder, f: WorkItemFn, dim: u32) -> ValueId {
    let d = b.const_u32(dim);
    b.push(Inst::WorkItem(f, Some(d)), Type::U64)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(arg: &KernelArg) -> Vec<f32> {
    match arg {
        KernelArg::Buffer(b) => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        other => panic!("not a buffer: {other:?}"),
    }
}

fn u32s(arg: &KernelArg) -> Vec<u32> {
    match arg {
        KernelArg::Buffer(b) => b
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        other => panic!("not a buffer: {other:?}"),
    }
}

fn u64s(arg: &KernelArg) -> Vec<u64> {
    match arg {
        KernelArg::Buffer(b) => b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        other => panic!("not a buffer: {other:?}"),
    }
}

/// `kernel void vadd(global float *a, global float *b, global float *c) { c[i] = a[i] + b[i]; }`
fn vadd() -> Function {
    let t = gptr(Type::F32);
    let mut b = FunctionBuilder::new(
        "vadd",
        vec![
            param("a", t.clone()),
            param("b", t.clone()),
            param("c", t.clone()),
        ],
        Type::Void,
    );
    let (pa, pb, pc) = (b.param(0), b.param(1), b.param(2));
    let i = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let qa = b.push(Inst::Index(pa, i), t.clone());
    let qb = b.push(Inst::Index(pb, i), t.clone());
    let qc = b.push(Inst::Index(pc, i), t);
    let x = b.load(qa);
    let y = b.load(qb);
    let s = b.binary(BinaryOp::Add, x, y);
    b.store(qc, s);
    b.finish()
}

#[test]
fn vector_addition() {
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let bv: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let mut args = [
        KernelArg::Buffer(f32_bytes(&a)),
        KernelArg::Buffer(f32_bytes(&bv)),
        KernelArg::Buffer(vec![0; n * 4]),
    ];
    run_kernel(
        &module_of(vec![vadd()]),
        "vadd",
        &mut args,
        &NdRange::linear(n as u64, 64),
    )
    .unwrap();
    let c = f32s(&args[2]);
    for i in 0..n {
        assert_eq!(c[i], a[i] + bv[i], "c[{i}]");
    }
    // The inputs are untouched.
    assert_eq!(f32s(&args[0]), a);
}

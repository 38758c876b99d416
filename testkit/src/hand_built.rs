//! Kernels built by hand: IR-builder shortcuts, host arguments, and a run of
//! every group of a launch that must finish with status 0.

use crate::groups::run_all_groups;
use vecl_ir::builder::FunctionBuilder;
use vecl_ir::*;
use vecl_jit::abi::{ArgKind, Launch};
use vecl_jit::{compile_kernel, CompiledKernel, JitOptions};

pub fn param(name: &str, ty: Type) -> Param {
    Param {
        name: name.into(),
        ty,
        byval: false,
    }
}

pub fn gptr(t: Type) -> Type {
    Type::ptr(AddressSpace::Global, t)
}

/// A module holding one kernel built by `f`.
pub fn kernel_module(
    name: &str,
    params: Vec<Param>,
    f: impl FnOnce(&mut FunctionBuilder),
) -> Module {
    let mut b = FunctionBuilder::new(name, params, Type::Void);
    f(&mut b);
    let mut func = b.finish();
    func.kernel = Some(KernelInfo::default());
    Module {
        functions: vec![func],
        ..Module::default()
    }
}

pub fn global_id0(b: &mut FunctionBuilder) -> ValueId {
    let zero = b.const_u32(0);
    b.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(zero)), Type::U64)
}

pub fn conv(b: &mut FunctionBuilder, v: ValueId, ty: Type) -> ValueId {
    b.push(
        Inst::Convert {
            value: v,
            saturate: false,
            rounding: Rounding::Default,
        },
        ty,
    )
}

/// One kernel argument as the host passes it.
pub enum Arg<'a> {
    Buf(&'a mut [u8]),
    Bytes(Vec<u8>),
    Local(u64),
}

/// Kernel `name` of `m` compiled at `w` work-items per chunk; panics with
/// the JIT's message if it does not compile.
pub fn compile(m: &Module, name: &str, w: u32) -> CompiledKernel {
    let opts = JitOptions {
        simd_width: Some(w),
        tiers: crate::test_tiers(w),
        prefetch: crate::test_prefetch(),
        passes: crate::test_passes(),
        ..JitOptions::default()
    };
    match compile_kernel(m, name, &opts) {
        Ok(k) => k,
        Err(e) => panic!("{name} W={w}: {e}"),
    }
}

/// Runs every group of `launch`, with local memory for `Local` arguments.
pub fn run(k: &CompiledKernel, args: &mut [Arg<'_>], launch: &mut Launch) {
    let mut block = vec![0u8; k.args_size().max(8)];
    let mut local_off = k.static_local_size() as u64;
    for (slot, a) in k.args().iter().zip(args.iter_mut()) {
        let at = slot.offset as usize;
        match (slot.kind, a) {
            (ArgKind::GlobalPointer, Arg::Buf(buf)) => {
                block[at..at + 8].copy_from_slice(&(buf.as_mut_ptr() as u64).to_le_bytes());
            }
            (ArgKind::LocalPointer, Arg::Local(size)) => {
                block[at..at + 8].copy_from_slice(&local_off.to_le_bytes());
                local_off += size.div_ceil(64) * 64;
            }
            (ArgKind::Value | ArgKind::ByValStruct, Arg::Bytes(b)) => {
                block[at..at + b.len()].copy_from_slice(b);
            }
            (kind, _) => panic!("argument does not match slot {kind:?}"),
        }
    }
    // SAFETY: the block matches args(); the buffers outlive the call.
    let status = unsafe { run_all_groups(k, &block, launch, local_off) };
    assert_eq!(status, 0);
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn f32_from(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn i32_from(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

//! Shared test harness: builds argument blocks and runs every group of a
//! launch through a compiled kernel.

#![allow(dead_code)]

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

pub fn compile(m: &Module, name: &str, w: u32) -> CompiledKernel {
    let opts = JitOptions {
        simd_width: Some(w),
        checked: false,
        dump_clif: false,
    };
    match compile_kernel(m, name, &opts) {
        Ok(k) => k,
        Err(e) => panic!("{e}"),
    }
}

/// 64-byte aligned scratch memory.
pub fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes.div_ceil(16) + 4]
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
    launch.local_mem_size = local_off;
    let mut local = aligned(local_off as usize + 64);
    let items = launch.items_per_group();
    let mut context = aligned(k.context_size(items) + 64);
    let lp = align64(local.as_mut_ptr() as *mut u8);
    let cp = align64(context.as_mut_ptr() as *mut u8);
    // SAFETY: the block matches args(); buffers outlive the call; local and
    // context are large enough and 64-aligned.
    let status = unsafe { k.run_groups(block.as_ptr(), launch, 0, launch.total_groups(), lp, cp) };
    assert_eq!(status, 0);
}

fn align64(p: *mut u8) -> *mut u8 {
    let off = (64 - (p as usize) % 64) % 64;
    // SAFETY: `aligned` allocates 64 spare bytes.
    unsafe { p.add(off) }
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

//! Memory layouts the compiled kernel and the runtime agree on: the argument
//! block, the kernel's static `__local` variables, module-scope data, and the
//! per-lane private memory of a chunk.

use crate::abi::{ArgKind, ArgSlot};
use vecl_ir::{AddressSpace, Function, Module, Type};

/// Argument-block slots of a kernel's parameters, and the block size.
pub(crate) fn arg_slots(module: &Module, kernel: &Function) -> (Vec<ArgSlot>, usize) {
    let mut offset = 0u32;
    let mut slots = Vec::with_capacity(kernel.params.len());
    for p in &kernel.params {
        let (kind, size, align) = if p.byval {
            let pointee = p.ty.pointee().cloned().unwrap_or(Type::Void);
            (
                ArgKind::ByValStruct,
                module.size_of(&pointee),
                module.align_of(&pointee).max(8),
            )
        } else {
            match &p.ty {
                Type::Pointer(AddressSpace::Local, _) => (ArgKind::LocalPointer, 8, 8),
                Type::Pointer(..) => (ArgKind::GlobalPointer, 8, 8),
                t => (ArgKind::Value, module.size_of(t), module.align_of(t)),
            }
        };
        offset = offset.div_ceil(align.max(1)) * align.max(1);
        slots.push(ArgSlot { kind, offset, size });
        offset += size;
    }
    (slots, offset.div_ceil(8) as usize * 8)
}

/// Where each module-scope variable lives for one kernel.
#[derive(Clone, Debug)]
pub(crate) enum GlobalPlace {
    /// Offset in the work-group's `__local` arena.
    Local(u32),
    /// Byte offset in the kernel's own data block (constant/global data).
    Data(usize),
}

/// Places of the globals `kernel` uses; returns the places, the static
/// `__local` size (rounded to 64) and the initial data block.
pub(crate) fn global_places(
    module: &Module,
    used: &[bool],
) -> (Vec<Option<GlobalPlace>>, usize, Vec<u8>) {
    let mut places = Vec::with_capacity(module.globals.len());
    let mut local = 0u32;
    let mut data: Vec<u8> = Vec::new();
    for (g, is_used) in module.globals.iter().zip(used) {
        if !is_used {
            places.push(None);
            continue;
        }
        let size = module.size_of(&g.ty);
        let align = module.align_of(&g.ty).max(16);
        if g.space == AddressSpace::Local {
            local = local.div_ceil(align) * align;
            places.push(Some(GlobalPlace::Local(local)));
            local += size.max(1);
        } else {
            let at = data.len().div_ceil(align as usize) * align as usize;
            data.resize(at, 0);
            match &g.init {
                Some(bytes) => {
                    data.extend_from_slice(bytes);
                    data.resize(at + size as usize, 0);
                }
                None => data.resize(at + size as usize, 0),
            }
            places.push(Some(GlobalPlace::Data(at)));
        }
    }
    (places, local.div_ceil(64) as usize * 64, data)
}

/// Per-lane private memory of one chunk: slot `s` of lane `l` is at
/// `offsets[s] + l * strides[s]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct PrivateLayout {
    pub offsets: Vec<u32>,
    pub strides: Vec<u32>,
    /// Bytes for the whole chunk.
    pub size: u32,
}

pub(crate) fn private_layout(module: &Module, func: &Function, lanes: u32) -> PrivateLayout {
    let mut l = PrivateLayout::default();
    let mut at = 0u32;
    for s in &func.slots {
        let align = module.align_of(&s.ty).max(8);
        let stride = module.size_of(&s.ty).max(1).div_ceil(align) * align;
        at = at.div_ceil(16.max(align)) * 16.max(align);
        l.offsets.push(at);
        l.strides.push(stride);
        at += stride * lanes;
    }
    l.size = at.div_ceil(64) * 64;
    l
}

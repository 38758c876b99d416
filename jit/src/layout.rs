//! Memory layouts the compiled kernel and the runtime agree on: the argument
//! block, the kernel's static `__local` variables, module-scope data, and the
//! per-lane private memory of a chunk. Every variable is aligned to its type,
//! as OpenCL C requires (a vector of n elements to n times the element size,
//! `vec3` as `vec4`), up to [`MAX_ALIGN`] for `long16` and `double16`.

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
/// `__local` size (rounded to 64) and the initial data block. Every
/// `__constant` and `__global` variable of the module has a place, used or
/// not, so that the data block is laid out alike for every kernel of the
/// module and one block can serve them all ([`crate::ModuleData`]).
pub(crate) fn global_places(
    module: &Module,
    used: &[bool],
) -> (Vec<Option<GlobalPlace>>, usize, Vec<u8>) {
    let mut places = Vec::with_capacity(module.globals.len());
    let mut local = 0u32;
    let mut data: Vec<u8> = Vec::new();
    for (g, is_used) in module.globals.iter().zip(used) {
        if !is_used && g.space == AddressSpace::Local {
            places.push(None);
            continue;
        }
        let size = module.size_of(&g.ty);
        // Offsets aligned to the type from bases aligned to MAX_ALIGN (the
        // data block, the runtime's __local arena) give aligned addresses.
        let align = module.align_of(&g.ty).clamp(16, MAX_ALIGN);
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

/// Writes the addresses the module's relocations ask for into `block`, a
/// data block laid out by `places` ([`global_places`]): a program-scope
/// pointer initialised with `&x[1]` holds that address from the start.
pub(crate) fn apply_relocs(
    module: &Module,
    places: &[Option<GlobalPlace>],
    block: &mut [DataLine],
) {
    let base = block.as_ptr() as u64;
    let line = MAX_ALIGN as usize;
    for r in &module.relocs {
        let place = |id: vecl_ir::GlobalId| match places.get(id.index()) {
            Some(Some(GlobalPlace::Data(at))) => Some(*at),
            _ => None,
        };
        let (Some(at), Some(to)) = (place(r.global), place(r.target)) else {
            continue;
        };
        let address = base + to as u64 + u64::from(r.addend);
        for (k, byte) in address.to_le_bytes().into_iter().enumerate() {
            let o = at + r.offset as usize + k;
            if let Some(l) = block.get_mut(o / line) {
                l.0[o % line] = byte;
            }
        }
    }
}

/// Per-lane private memory of one chunk: slot `s` of lane `l` is at
/// `offsets[s] + l * strides[s]` from a base aligned to `align`, so every
/// lane's copy of a variable is aligned to its type (OpenCL C 6.3.5: a
/// `long16` at a 128-byte boundary, a `float3` at 16).
#[derive(Clone, Debug)]
pub(crate) struct PrivateLayout {
    pub offsets: Vec<u32>,
    pub strides: Vec<u32>,
    /// Bytes for the whole chunk (a multiple of 64 and of `align`).
    pub size: u32,
    /// The alignment the base needs: the largest of the slots' (at least 16).
    pub align: u32,
}

impl Default for PrivateLayout {
    fn default() -> PrivateLayout {
        PrivateLayout {
            offsets: Vec::new(),
            strides: Vec::new(),
            size: 0,
            align: 16,
        }
    }
}

pub(crate) fn private_layout(
    module: &Module,
    func: &Function,
    lanes: u32,
) -> Result<PrivateLayout, u64> {
    let mut l = PrivateLayout::default();
    // In 64 bits: a chunk's copies of large arrays may not fit 32.
    let mut at = 0u64;
    for s in &func.slots {
        let align = module.align_of(&s.ty).clamp(8, MAX_ALIGN);
        let stride = module.size_of(&s.ty).max(1).div_ceil(align) * align;
        let start = u64::from(16.max(align));
        at = at.div_ceil(start) * start;
        l.align = l.align.max(start as u32);
        l.offsets.push(u32::try_from(at).map_err(|_| at)?);
        l.strides.push(stride);
        at += u64::from(stride) * u64::from(lanes);
    }
    let round = u64::from(l.align.max(64));
    let size = at.div_ceil(round) * round;
    l.size = u32::try_from(size)
        .ok()
        .filter(|&s| s <= MAX_PRIVATE_CHUNK)
        .ok_or(size)?;
    Ok(l)
}

/// The most private memory a chunk's work-items may have together (bytes).
pub(crate) const MAX_PRIVATE_CHUNK: u32 = 1 << 30;

/// The largest alignment an OpenCL C type asks for (`long16`, `double16`).
pub(crate) const MAX_ALIGN: u32 = 128;

/// One [`MAX_ALIGN`]-aligned line of a kernel's module-scope data.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(128))]
pub(crate) struct DataLine(pub [u8; MAX_ALIGN as usize]);

/// The kernel's module-scope data block holding `bytes` (laid out by
/// [`global_places`]), at a [`MAX_ALIGN`]-aligned address so each
/// variable's offset, aligned to its type, gives an aligned address.
pub(crate) fn data_block(bytes: &[u8]) -> Box<[DataLine]> {
    let lines = bytes.len().div_ceil(MAX_ALIGN as usize).max(1);
    let mut data = vec![DataLine([0; MAX_ALIGN as usize]); lines];
    for (line, chunk) in data.iter_mut().zip(bytes.chunks(MAX_ALIGN as usize)) {
        line.0[..chunk.len()].copy_from_slice(chunk);
    }
    data.into_boxed_slice()
}

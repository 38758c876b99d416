//! Running every group of a launch through a compiled kernel: the 64-byte
//! aligned local memory and per-thread context the kernel ABI asks for, and
//! the one `run_groups` call that every harness of the tests goes through.

use crate::guarded::{Mapping, PAGE};
use vecl_jit::abi::{checked_offsets as co, ArgKind, Fault, FaultRecord, Launch, LOCAL_PAD};
use vecl_jit::CompiledKernel;

/// Zeroed memory of at least `bytes` bytes plus 64 spare bytes, so that a
/// 64-byte aligned start can be found in it ([`align64`]).
pub fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes.div_ceil(16) + 4]
}

/// The first 64-byte aligned address at or after `p` (inside memory from
/// [`aligned`], which has 64 spare bytes for it).
pub fn align64(p: *mut u8) -> *mut u8 {
    let off = (64 - (p as usize) % 64) % 64;
    p.wrapping_add(off)
}

/// Zeroed `__local` memory for one launch: the arena, 64-byte aligned,
/// with [`LOCAL_PAD`] bytes on each side, in a mapping whose pages beyond
/// them are inaccessible on one side, the low and the high side in turn
/// from call to call: a kernel that reads past the padding faults.
struct GuardedLocal {
    _mapping: Mapping,
    arena: *mut u8,
}

static LOW_SIDE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

impl GuardedLocal {
    fn new(bytes: usize) -> GuardedLocal {
        let data = (bytes + 2 * LOCAL_PAD + 64).div_ceil(PAGE) * PAGE;
        let mapping = Mapping::new(data + 2 * PAGE);
        mapping.guard(0, 1);
        mapping.guard(PAGE + data, 1);
        let low = LOW_SIDE.fetch_xor(true, std::sync::atomic::Ordering::Relaxed);
        let start = mapping.start as usize;
        let arena = if low {
            start + PAGE + LOCAL_PAD
        } else {
            let at = start + PAGE + data - LOCAL_PAD - bytes;
            at - at % 64
        };
        GuardedLocal {
            _mapping: mapping,
            arena: arena as *mut u8,
        }
    }
}

/// Runs every group of `launch` through `k` with the argument block
/// `block`, `local_bytes` of `__local` memory (static and arguments, with
/// the padding the kernel ABI promises, guarded past it) and a fresh
/// context; returns the kernel's status.
///
/// # Safety
///
/// `block` must match `k.args()`, and every pointer in it must address
/// memory that outlives the call and is large enough for what the kernel
/// accesses over `launch`.
pub unsafe fn run_all_groups(
    k: &CompiledKernel,
    block: &[u8],
    launch: &mut Launch,
    local_bytes: u64,
) -> u32 {
    // SAFETY: the caller's promises, passed on.
    unsafe { run_in_guarded_local(k, block, launch, local_bytes).0 }
}

/// [`run_all_groups`], also returning where the launch's `__local` arena
/// began.
///
/// # Safety
///
/// As for [`run_all_groups`].
unsafe fn run_in_guarded_local(
    k: &CompiledKernel,
    block: &[u8],
    launch: &mut Launch,
    local_bytes: u64,
) -> (u32, u64) {
    launch.local_mem_size = local_bytes;
    let local = GuardedLocal::new(local_bytes as usize);
    // SAFETY: the caller vouches for the block.
    let mut context = aligned(unsafe { k.launch_context_size(block.as_ptr(), launch) } + 64);
    let cp = align64(context.as_mut_ptr() as *mut u8);
    // SAFETY: the caller vouches for the block; local memory (with its
    // padding) and context are large enough and 64-aligned.
    let status = unsafe {
        k.run_groups(
            block.as_ptr(),
            launch,
            0,
            launch.total_groups(),
            local.arena,
            cp,
        )
    };
    (status, local.arena as u64)
}

/// An argument of [`run_checked`], in parameter order.
#[derive(Clone, Copy, Debug)]
pub enum CheckedArg<'a> {
    /// A `__global` or `__constant` buffer of `len` bytes at `addr`.
    Buffer { addr: u64, len: u64 },
    /// A value parameter's bytes (at most the slot's size are copied).
    Bytes(&'a [u8]),
    /// A `__local` pointer parameter given `size` bytes.
    Local(u64),
}

/// What [`run_checked`] saw.
#[derive(Debug)]
pub struct CheckedRun {
    /// The kernel's status.
    pub status: u32,
    /// The fault the kernel recorded, its address as the kernel saw it.
    pub fault: Option<Fault>,
    /// Where the launch's `__local` arena began (a fault in `__local`
    /// memory is reported at an address in it).
    pub local_base: u64,
}

/// Runs every group of `launch` through `k` (compiled under robust access
/// or checked mode, or neither) with its argument block filled the way the
/// runtime fills it: buffers' addresses, values' bytes, `__local`
/// arguments at their offsets after the kernel's static `__local` memory
/// (each rounded up to 64 bytes), and, when the kernel has a checked tail,
/// the fault record and each parameter's range (`__local` ones as
/// offsets into the arena).
///
/// # Safety
///
/// Every buffer must be `len` bytes at `addr`, outlive the call, and
/// either hold every access the kernel makes over `launch` or the kernel
/// must check its accesses (robust access, checked mode).
///
/// # Panics
///
/// When `args` does not match `k.args()` (count or kinds).
pub unsafe fn run_checked(
    k: &CompiledKernel,
    args: &[CheckedArg],
    launch: &mut Launch,
) -> CheckedRun {
    assert_eq!(k.args().len(), args.len(), "argument count");
    let mut block = vec![0u8; k.args_size().max(8)];
    let mut local_off = k.static_local_size() as u64;
    let mut ranges = Vec::with_capacity(args.len());
    for (i, (slot, arg)) in k.args().iter().zip(args).enumerate() {
        let at = slot.offset as usize;
        let put = |block: &mut Vec<u8>, v: u64| block[at..at + 8].copy_from_slice(&v.to_le_bytes());
        match (slot.kind, *arg) {
            (ArgKind::GlobalPointer, CheckedArg::Buffer { addr, len }) => {
                put(&mut block, addr);
                ranges.push((addr, addr + len));
            }
            (ArgKind::LocalPointer, CheckedArg::Local(size)) => {
                put(&mut block, local_off);
                ranges.push((local_off, local_off + size));
                local_off += size.div_ceil(64) * 64;
            }
            (ArgKind::Value | ArgKind::ByValStruct, CheckedArg::Bytes(b)) => {
                let n = b.len().min(slot.size as usize);
                block[at..at + n].copy_from_slice(&b[..n]);
                ranges.push((0, 0));
            }
            (kind, arg) => panic!("argument {i} ({arg:?}) does not match slot {kind:?}"),
        }
    }
    let record = FaultRecord::new();
    if let Some(tail) = k.checked_tail() {
        write_checked_tail(&mut block, tail, &record, &ranges);
    }
    // SAFETY: the block matches `k.args()`, its checked tail included; the
    // caller vouches for the buffers.
    let (status, local_base) = unsafe { run_in_guarded_local(k, &block, launch, local_off) };
    CheckedRun {
        status,
        fault: record.fault(),
        local_base,
    }
}

/// Fills the checked tail of an argument block at `tail`
/// ([`vecl_jit::CompiledKernel::checked_tail`]) the way the runtime does:
/// the fault record's address, then `[start, end)` of each parameter
/// (`ranges`, in parameter order) for its bounds table.
pub fn write_checked_tail(
    block: &mut [u8],
    tail: usize,
    record: &FaultRecord,
    ranges: &[(u64, u64)],
) {
    let at = tail + co::FAULT_RECORD as usize;
    block[at..at + 8].copy_from_slice(&(std::ptr::from_ref(record) as u64).to_le_bytes());
    for (i, (start, end)) in ranges.iter().enumerate() {
        let at = tail + co::BOUNDS as usize + co::BOUNDS_ENTRY as usize * i;
        block[at..at + 8].copy_from_slice(&start.to_le_bytes());
        block[at + 8..at + 16].copy_from_slice(&end.to_le_bytes());
    }
}

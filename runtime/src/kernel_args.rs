//! Kernel code as the runtime sees it, and the arguments set on a kernel.
//!
//! [`KernelCode`] is the little the runtime needs from a compiled kernel:
//! its argument slots, its memory needs and its entry (the ABI of
//! `vecl_jit::abi`). The JIT's compiled kernels implement it; so can a
//! hand-written Rust function, which is how the pool and the NDRange
//! executor are tested without a compiler.
//!
//! [`KernelArgs`] holds the values `clSetKernelArg` gave, checked against the
//! slots when they are set, and lays them out into an argument block at
//! enqueue time — a snapshot, so setting an argument after an enqueue does
//! not change the enqueued launch.
//!
//! A kernel compiled in checked mode reads a tail after its parameters (see
//! `vecl_jit::abi`): the address of the launch's fault record and one
//! `[start, end)` pair per parameter. [`KernelArgs::for_code`] learns where
//! the tail goes and [`KernelArgs::build_block`] fills it from the buffers
//! and `__local` sizes set; the launch's [`CheckedLaunch`] then turns a
//! fault into a report naming the work-item, the address and the buffer it
//! missed. A raw address set with [`KernelArgs::set_address`] has no known
//! length: its range runs to the end of the address space.
//!
//! An image argument is, to the kernel, a `__global` pointer to the image's
//! `vecl_ir::image::ImageDesc`. The block builder writes one descriptor per
//! image argument into memory the [`ArgBlock`] owns (so the launch keeps
//! them alive until it has run) and points the slot at it; in checked mode
//! the slot's range is the descriptor's bytes. A `sampler_t` argument is a
//! plain 4-byte value (`vecl_ir::image::SAMPLER_*` bits).

use crate::error::{Error, Result};
use crate::host_alloc::{AlignedBytes, ALIGN};
use crate::memory::Mem;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use vecl_ir::image::ImageDesc;
use vecl_jit::abi::{checked_offsets, ArgKind, ArgSlot, Fault, FaultRecord, Launch};
use vecl_jit::PreparedLaunch;

/// What the runtime needs from compiled kernel code.
pub trait KernelCode: Send + Sync {
    /// The kernel's name.
    fn name(&self) -> &str;
    /// One slot per parameter, in order.
    fn arg_slots(&self) -> &[ArgSlot];
    /// Size in bytes of the argument block.
    fn args_size(&self) -> usize;
    /// Bytes of `__local` memory the kernel declares itself.
    fn static_local_size(&self) -> u64;
    /// Bytes of context area a work-group of `items_per_group` items needs.
    fn context_size(&self, items_per_group: u64) -> u64;
    /// Bytes of private memory (the kernel's private variables and arrays)
    /// one work-item has: `CL_KERNEL_PRIVATE_MEM_SIZE`.
    fn private_mem_size(&self) -> u64 {
        let simd = u64::from(self.simd_width().max(1));
        self.context_size(simd) / simd
    }
    /// Work-items per SIMD chunk.
    fn simd_width(&self) -> u32;
    /// Whether the kernel cannot observe the shape of its work-groups (no
    /// barrier, no `__local` memory, no local or group query), so that a
    /// launch may run with groups of another shape than it asked for.
    fn group_shape_invisible(&self) -> bool {
        false
    }
    /// The dimension along which consecutive work-items fill the lanes of
    /// a chunk in `launch` (0 unless the code has another mapping for it).
    fn lane_dimension(&self, _launch: &Launch) -> usize {
        0
    }
    /// Checked mode: the offset of the tail (fault record and bounds table)
    /// in the argument block; `None` for unchecked code.
    fn checked_tail(&self) -> Option<usize> {
        None
    }
    /// Blocks until the kernel runs its final code (a JIT compiling in
    /// tiers swaps its optimised code in after the build); returns at once
    /// when there is no later code.
    fn wait_for_final_code(&self) {}
    /// Called on the thread whose [`KernelCode::run_groups`] just returned
    /// `KernelStatus::DivergentBarrier`: the divergence it recorded, in
    /// words (which barrier, which work-items went which way), if any.
    fn take_divergence(&self) -> Option<String> {
        None
    }
    /// Called on the thread whose [`KernelCode::run_groups`] just returned
    /// `KernelStatus::LocalMemory`: the data race, uninitialised read or
    /// mixed atomic it recorded, in words, naming the `__local` variable or
    /// argument (`local_args`: index, start, end of each `__local`
    /// argument in the arena).
    fn take_local_report(&self, _local_args: &[(usize, u64, u64)]) -> Option<String> {
        None
    }
    /// Chooses, once for a whole launch, the code its ranges run (which
    /// copy of the kernel, the proofs a robust launch rests on), so that
    /// each range only runs it; `None` when every range should go through
    /// [`KernelCode::run_groups`]. Called before
    /// [`KernelCode::context_size`] is asked for the launch (the code
    /// chosen may need more context).
    ///
    /// # Safety
    /// `args` is a block laid out per [`KernelCode::arg_slots`] for this
    /// launch, as [`KernelCode::run_groups`] takes it.
    unsafe fn prepare(&self, _args: *const u8, _launch: &Launch) -> Option<PreparedLaunch> {
        None
    }
    /// Runs work-groups `[first_group, end_group)`; 0 on success, else a
    /// `vecl_jit::abi::KernelStatus` code.
    ///
    /// # Safety
    /// `args` must be a block laid out per [`KernelCode::arg_slots`] whose
    /// pointers are valid for the kernel's accesses; `local_mem` and
    /// `context` must be 64-byte aligned and at least
    /// `launch.local_mem_size` and `context_size(items)` bytes long.
    unsafe fn run_groups(
        &self,
        args: *const u8,
        launch: &Launch,
        first_group: u64,
        end_group: u64,
        local_mem: *mut u8,
        context: *mut u8,
    ) -> u32;
}

/// One argument's value.
#[derive(Clone, Debug)]
pub enum ArgValue {
    /// Scalar, vector or struct bytes.
    Bytes(Vec<u8>),
    /// A `__global`/`__constant` buffer, or `None` for a null pointer. An
    /// image given this way is recorded as [`ArgValue::Image`].
    Buffer(Option<Mem>),
    /// An image: the kernel receives the address of its descriptor.
    Image(Mem),
    /// A `__local` buffer of this many bytes.
    Local(u64),
    /// A raw device address for a pointer argument, which the caller keeps
    /// valid (set only through the unsafe [`KernelArgs::set_address`]).
    Address(u64),
}

/// The arguments of one kernel object.
#[derive(Clone, Debug)]
pub struct KernelArgs {
    slots: Vec<ArgSlot>,
    values: Vec<Option<ArgValue>>,
    /// Where the checked-mode tail goes, for checked code.
    checked_tail: Option<usize>,
}

/// A laid-out argument block and what it refers to.
pub struct ArgBlock {
    /// The bytes the kernel reads.
    pub bytes: AlignedBytes,
    /// The buffers and images the block points into (kept alive while the
    /// launch runs).
    pub buffers: Vec<Mem>,
    /// The descriptors of the image arguments, which the block points to.
    pub image_descriptors: AlignedBytes,
    /// Total `__local` bytes: the kernel's own plus every `__local` argument.
    pub local_mem_size: u64,
    /// Checked code: the fault record the block points to and what a report
    /// needs (shared with whoever reports the launch's failure).
    pub checked: Option<Arc<CheckedLaunch>>,
}

/// Checked mode: the fault record of one launch and the buffer ranges it
/// was given, to explain a fault.
#[derive(Debug, Default)]
pub struct CheckedLaunch {
    record: FaultRecord,
    /// (argument index, start, end) of each `__global`/`__constant` buffer.
    buffers: Vec<(usize, u64, u64)>,
    /// (argument index, start, end) of each `__local` argument, as offsets
    /// into the `__local` arena.
    local_args: Vec<(usize, u64, u64)>,
    /// The address of the `__local` arena of the thread whose run stopped
    /// on the recorded fault, when the fault lies in or next to it
    /// ([`Self::note_arena`]; 0: none).
    arena: AtomicU64,
}

impl CheckedLaunch {
    /// The first out-of-bounds access of the launch, once it has run.
    pub fn fault(&self) -> Option<Fault> {
        self.record.fault()
    }

    /// The `__local` arguments: (argument index, start, end) in the arena.
    pub fn local_args(&self) -> &[(usize, u64, u64)] {
        &self.local_args
    }

    /// Called by a thread whose run stopped out of bounds, with its
    /// `__local` arena (`len` bytes at `local_mem`): remembers the arena
    /// when the recorded fault lies in it or within a page of it, so that
    /// the report can name the `__local` argument. The arenas of the
    /// launch's threads are apart, so at most one holds the address.
    pub fn note_arena(&self, local_mem: u64, len: u64) {
        let Some(fault) = self.fault() else {
            return;
        };
        let near =
            local_mem.saturating_sub(4096)..local_mem.saturating_add(len).saturating_add(4096);
        if !self.local_args.is_empty() && near.contains(&fault.address) {
            let _ = self
                .arena
                .compare_exchange(0, local_mem, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    /// The launch's failure as an error (`CL_OUT_OF_RESOURCES`, what GPU
    /// drivers report for a faulting kernel), when a fault was recorded.
    pub fn error(&self, kernel: &str) -> Option<Error> {
        let fault = self.fault()?;
        Some(Error::OutOfResources(format!(
            "kernel `{kernel}` stopped: {fault} ({})",
            self.whereabouts(&fault)
        )))
    }

    /// Where the faulting access lies relative to the buffer arguments.
    fn whereabouts(&self, fault: &Fault) -> String {
        if let Some(local) = self.local_whereabouts(fault) {
            return local;
        }
        let (a, end) = (fault.address, fault.address.saturating_add(fault.size));
        let nearest = self
            .buffers
            .iter()
            .map(|&(index, start, stop)| {
                let distance = if a >= stop {
                    a - stop
                } else {
                    start.saturating_sub(a)
                };
                (distance, index, start, stop)
            })
            .min();
        match nearest {
            Some((_, index, start, stop))
                if a >= start && end > stop && end - stop <= (stop - start).max(4096) =>
            {
                format!(
                    "{} bytes past the end of argument {index}, a buffer of {} bytes",
                    end - stop,
                    stop - start
                )
            }
            Some((_, index, start, stop)) if a < start && start - a <= stop - start => format!(
                "{} bytes before the start of argument {index}, a buffer of {} bytes",
                start - a,
                stop - start
            ),
            _ => "outside every buffer, __local and private range of the launch".into(),
        }
    }

    /// Where a fault in or next to the `__local` arena of the thread that
    /// made it lies relative to the `__local` arguments: past the end of
    /// the one it starts in or after, or before the first when that starts
    /// the arena. `None` for anything else (a fault past a `__local`
    /// variable, which lies before the arguments, is not theirs).
    fn local_whereabouts(&self, fault: &Fault) -> Option<String> {
        let arena = self.arena.load(Ordering::Acquire);
        if arena == 0 {
            return None;
        }
        let a = fault.address.wrapping_sub(arena) as i64;
        let end = a.saturating_add(i64::try_from(fault.size).ok()?);
        let args = self
            .local_args
            .iter()
            .map(|&(index, start, stop)| (index, start as i64, stop as i64));
        // The argument the access starts in or after.
        let before = args
            .clone()
            .filter(|(_, start, _)| *start <= a)
            .max_by_key(|x| x.1);
        match before {
            Some((index, start, stop)) if end > stop => Some(format!(
                "{} bytes past the end of __local argument {index}, of {} bytes",
                end - stop,
                stop - start
            )),
            Some(_) => None,
            None => {
                let (index, start, stop) = args.min_by_key(|x| x.1)?;
                (start == 0).then(|| {
                    format!(
                        "{} bytes before the start of __local argument {index}, of {} bytes",
                        -a,
                        stop - start
                    )
                })
            }
        }
    }
}

impl KernelArgs {
    /// No arguments set yet for a kernel with these slots.
    pub fn new(slots: &[ArgSlot]) -> KernelArgs {
        KernelArgs {
            slots: slots.to_vec(),
            values: vec![None; slots.len()],
            checked_tail: None,
        }
    }

    /// No arguments set yet for `code` (its slots, and for checked code the
    /// tail [`build_block`](Self::build_block) fills).
    pub fn for_code(code: &dyn KernelCode) -> KernelArgs {
        KernelArgs {
            checked_tail: code.checked_tail(),
            ..KernelArgs::new(code.arg_slots())
        }
    }

    /// The kernel's argument slots.
    pub fn slots(&self) -> &[ArgSlot] {
        &self.slots
    }

    /// The value set for argument `index`, if any.
    pub fn get(&self, index: u32) -> Option<&ArgValue> {
        self.values.get(index as usize).and_then(Option::as_ref)
    }

    /// `clSetKernelArg`: checks `value` against the parameter and records it.
    pub fn set(&mut self, index: u32, value: ArgValue) -> Result<()> {
        let slot = *self
            .slots
            .get(index as usize)
            .ok_or(Error::InvalidArgIndex(index))?;
        let value = match value {
            ArgValue::Buffer(Some(mem)) if mem.image().is_some() => ArgValue::Image(mem),
            other => other,
        };
        match (&value, slot.kind) {
            (ArgValue::Bytes(bytes), ArgKind::Value | ArgKind::ByValStruct) => {
                if bytes.len() != slot.size as usize {
                    return Err(Error::InvalidArgSize(format!(
                        "argument {index} takes {} bytes, got {}",
                        slot.size,
                        bytes.len()
                    )));
                }
            }
            (ArgValue::Buffer(_), ArgKind::GlobalPointer) => {}
            (ArgValue::Image(mem), ArgKind::GlobalPointer) => {
                if mem.image().is_none() {
                    return Err(Error::InvalidMemObject(format!(
                        "argument {index}: a buffer where an image is expected"
                    )));
                }
            }
            (ArgValue::Local(size), ArgKind::LocalPointer) => {
                if *size == 0 {
                    return Err(Error::InvalidArgSize(format!(
                        "__local argument {index} needs a non-zero size"
                    )));
                }
            }
            (ArgValue::Bytes(_), ArgKind::GlobalPointer) => {
                return Err(Error::InvalidArgValue(format!(
                    "argument {index} is a buffer, not a value"
                )));
            }
            (
                ArgValue::Bytes(_) | ArgValue::Buffer(_) | ArgValue::Image(_),
                ArgKind::LocalPointer,
            ) => {
                return Err(Error::InvalidArgValue(format!(
                    "argument {index} is a __local pointer: set a size, not a value"
                )));
            }
            (ArgValue::Address(_), _) => {
                return Err(Error::InvalidArgValue(format!(
                    "argument {index}: raw addresses are set with set_address"
                )));
            }
            (ArgValue::Local(_), _) => {
                return Err(Error::InvalidArgValue(format!(
                    "argument {index} is not a __local pointer"
                )));
            }
            (ArgValue::Buffer(_) | ArgValue::Image(_), _) => {
                return Err(Error::InvalidArgValue(format!(
                    "argument {index} is a value, not a memory object"
                )));
            }
        }
        self.values[index as usize] = Some(value);
        Ok(())
    }

    /// Sets pointer argument `index` to a raw device address (the C API's
    /// buffers, which it owns).
    ///
    /// # Safety
    /// `address` must be null or valid for every access the kernel makes
    /// through the argument, for as long as launches using it run.
    pub unsafe fn set_address(&mut self, index: u32, address: u64) -> Result<()> {
        let slot = *self
            .slots
            .get(index as usize)
            .ok_or(Error::InvalidArgIndex(index))?;
        if slot.kind != ArgKind::GlobalPointer {
            return Err(Error::InvalidArgValue(format!(
                "argument {index} is not a __global or __constant pointer"
            )));
        }
        self.values[index as usize] = Some(ArgValue::Address(address));
        Ok(())
    }

    /// Lays the arguments out into a block of `args_size` bytes, placing
    /// `__local` arguments after `static_local` bytes of the arena, each
    /// 128-byte aligned; for checked code, fills the checked tail too.
    pub fn build_block(&self, args_size: usize, static_local: u64) -> Result<ArgBlock> {
        let bytes = AlignedBytes::zeroed(args_size)?;
        let mut buffers = Vec::new();
        let images = self
            .values
            .iter()
            .filter(|v| matches!(v, Some(ArgValue::Image(_))))
            .count();
        let desc_size = std::mem::size_of::<ImageDesc>();
        let image_descriptors = AlignedBytes::zeroed(images * desc_size)?;
        let mut next_desc = 0;
        let mut local_end = static_local;
        // Per parameter: its `[start, end)` for the checked tail; no access
        // fits the empty marker (null pointers, non-pointers).
        let mut ranges = vec![(u64::MAX, u64::MAX); self.slots.len()];
        let write = |at: usize, field: &[u8]| -> Result<()> {
            if at + field.len() > args_size {
                return Err(Error::InvalidKernelDefinition);
            }
            // SAFETY: `at + field.len() <= args_size`, the block's length.
            unsafe {
                std::ptr::copy_nonoverlapping(field.as_ptr(), bytes.as_ptr().add(at), field.len())
            };
            Ok(())
        };
        for (index, (slot, value)) in self.slots.iter().zip(&self.values).enumerate() {
            let value = value
                .as_ref()
                .ok_or_else(|| Error::InvalidKernelArgs(format!("argument {index} not set")))?;
            // A pointer's 8 bytes, or a value's own (no copy of them).
            let word: [u8; 8];
            let field: &[u8] = match value {
                ArgValue::Bytes(b) => b,
                ArgValue::Buffer(None) => {
                    word = 0u64.to_le_bytes();
                    &word
                }
                ArgValue::Address(address) => {
                    if *address != 0 {
                        ranges[index] = (*address, u64::MAX);
                    }
                    word = address.to_le_bytes();
                    &word
                }
                ArgValue::Buffer(Some(mem)) => {
                    buffers.push(mem.clone());
                    let start = mem.as_ptr() as u64;
                    ranges[index] = (start, start.saturating_add(mem.size()));
                    word = start.to_le_bytes();
                    &word
                }
                ArgValue::Image(mem) => {
                    buffers.push(mem.clone());
                    let desc = mem.image_descriptor()?;
                    // SAFETY: `next_desc < images`, so the descriptor fits
                    // the block of `images` descriptors; the block is
                    // 128-byte aligned and the descriptor size a multiple of
                    // its 8-byte alignment.
                    let at = unsafe {
                        let at = image_descriptors
                            .as_ptr()
                            .add(next_desc * desc_size)
                            .cast::<ImageDesc>();
                        at.write(desc);
                        at as u64
                    };
                    next_desc += 1;
                    ranges[index] = (at, at + desc_size as u64);
                    word = at.to_le_bytes();
                    &word
                }
                ArgValue::Local(size) => {
                    let offset = local_end.next_multiple_of(ALIGN as u64);
                    local_end = offset.checked_add(*size).ok_or_else(|| {
                        Error::OutOfResources("__local arguments overflow".into())
                    })?;
                    ranges[index] = (offset, local_end);
                    word = offset.to_le_bytes();
                    &word
                }
            };
            write(slot.offset as usize, field)?;
        }
        let checked = match self.checked_tail {
            Some(tail) => {
                let launch = Arc::new(CheckedLaunch {
                    record: FaultRecord::new(),
                    buffers: self
                        .slots
                        .iter()
                        .zip(&ranges)
                        .enumerate()
                        .filter(|(_, (slot, r))| {
                            slot.kind == ArgKind::GlobalPointer && r.0 != u64::MAX
                        })
                        .map(|(index, (_, r))| (index, r.0, r.1))
                        .collect(),
                    local_args: self
                        .slots
                        .iter()
                        .zip(&ranges)
                        .enumerate()
                        .filter(|(_, (slot, _))| slot.kind == ArgKind::LocalPointer)
                        .map(|(index, (_, r))| (index, r.0, r.1))
                        .collect(),
                    arena: AtomicU64::new(0),
                });
                let record = std::ptr::from_ref(&launch.record) as u64;
                write(
                    tail + checked_offsets::FAULT_RECORD as usize,
                    &record.to_le_bytes(),
                )?;
                for (index, (start, end)) in ranges.iter().enumerate() {
                    let at = tail
                        + checked_offsets::BOUNDS as usize
                        + checked_offsets::BOUNDS_ENTRY as usize * index;
                    write(at, &start.to_le_bytes())?;
                    write(at + 8, &end.to_le_bytes())?;
                }
                Some(launch)
            }
            None => None,
        };
        Ok(ArgBlock {
            bytes,
            buffers,
            image_descriptors,
            local_mem_size: local_end,
            checked,
        })
    }

    /// Bytes of `__local` memory the set arguments ask for (128-byte aligned each).
    pub fn local_args_size(&self) -> u64 {
        self.values
            .iter()
            .filter_map(|v| match v {
                Some(ArgValue::Local(size)) => Some(size.next_multiple_of(ALIGN as u64)),
                _ => None,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemFlags;

    fn slots() -> Vec<ArgSlot> {
        vec![
            ArgSlot {
                kind: ArgKind::GlobalPointer,
                offset: 0,
                size: 8,
            },
            ArgSlot {
                kind: ArgKind::Value,
                offset: 8,
                size: 4,
            },
            ArgSlot {
                kind: ArgKind::LocalPointer,
                offset: 16,
                size: 8,
            },
            ArgSlot {
                kind: ArgKind::LocalPointer,
                offset: 24,
                size: 8,
            },
        ]
    }

    #[test]
    fn arguments_are_checked_against_their_slots() {
        let mut args = KernelArgs::new(&slots());
        let mem = Mem::new(MemFlags::READ_WRITE, 64).expect("buffer");
        assert_eq!(
            args.set(4, ArgValue::Local(4)).err(),
            Some(Error::InvalidArgIndex(4))
        );
        assert!(matches!(
            args.set(1, ArgValue::Bytes(vec![0; 8])),
            Err(Error::InvalidArgSize(_))
        ));
        assert!(matches!(
            args.set(0, ArgValue::Bytes(vec![0; 8])),
            Err(Error::InvalidArgValue(_))
        ));
        assert!(matches!(
            args.set(1, ArgValue::Buffer(Some(mem.clone()))),
            Err(Error::InvalidArgValue(_))
        ));
        assert!(matches!(
            args.set(2, ArgValue::Local(0)),
            Err(Error::InvalidArgSize(_))
        ));
        assert!(matches!(
            args.set(2, ArgValue::Bytes(vec![0; 8])),
            Err(Error::InvalidArgValue(_))
        ));
        args.set(0, ArgValue::Buffer(Some(mem.clone())))
            .expect("buffer arg");
        args.set(1, ArgValue::Bytes(7u32.to_le_bytes().to_vec()))
            .expect("value arg");
        args.set(2, ArgValue::Local(100)).expect("local arg");
        assert!(matches!(
            args.build_block(32, 0),
            Err(Error::InvalidKernelArgs(_))
        ));
        args.set(3, ArgValue::Local(10)).expect("local arg");

        let block = args.build_block(32, 40).expect("block");
        // SAFETY: the block is 32 bytes.
        let raw = unsafe { std::slice::from_raw_parts(block.bytes.as_ptr(), 32) };
        let word = |at: usize| u64::from_le_bytes(raw[at..at + 8].try_into().expect("8 bytes"));
        assert_eq!(word(0), mem.as_ptr() as u64);
        assert_eq!(&raw[8..12], &7u32.to_le_bytes());
        assert_eq!(
            word(16),
            128,
            "first __local argument after the static 40 bytes, aligned"
        );
        assert_eq!(word(24), 256, "second after the first's 100 bytes, aligned");
        assert_eq!(block.local_mem_size, 266);
        assert_eq!(block.buffers.len(), 1);
        assert_eq!(args.local_args_size(), 128 + 128);
        assert!(block.checked.is_none(), "no tail for unchecked code");
    }

    #[test]
    fn checked_tail_holds_the_record_and_every_range() {
        let tail = 32;
        let mut args = KernelArgs {
            checked_tail: Some(tail),
            ..KernelArgs::new(&slots())
        };
        let mem = Mem::new(MemFlags::READ_WRITE, 64).expect("buffer");
        args.set(0, ArgValue::Buffer(Some(mem.clone())))
            .expect("buffer arg");
        args.set(1, ArgValue::Bytes(7u32.to_le_bytes().to_vec()))
            .expect("value arg");
        args.set(2, ArgValue::Local(100)).expect("local arg");
        args.set(3, ArgValue::Local(10)).expect("local arg");
        let size = tail + checked_offsets::tail_size(4);
        assert_eq!(
            args.build_block(tail, 0).err(),
            Some(Error::InvalidKernelDefinition),
            "a block without room for the tail"
        );
        let block = args.build_block(size, 0).expect("block");
        // SAFETY: the block is `size` bytes.
        let raw = unsafe { std::slice::from_raw_parts(block.bytes.as_ptr(), size) };
        let word = |at: usize| u64::from_le_bytes(raw[at..at + 8].try_into().expect("8 bytes"));
        let checked = block.checked.as_ref().expect("checked launch");
        assert_eq!(word(tail), std::ptr::from_ref(&checked.record) as u64);
        let entry = |i: usize| (word(tail + 8 + 16 * i), word(tail + 16 + 16 * i));
        let base = mem.as_ptr() as u64;
        assert_eq!(entry(0), (base, base + 64));
        assert_eq!(entry(1), (u64::MAX, u64::MAX), "values have no range");
        assert_eq!(entry(2), (0, 100), "__local: offsets in the arena");
        assert_eq!(entry(3), (128, 138));

        assert!(checked.error("k").is_none(), "nothing recorded yet");
        checked.record.record(&Fault {
            kind: vecl_jit::abi::AccessKind::Store,
            address: base + 64,
            size: 4,
            global_id: [16, 0, 0],
            line: 4,
            col: 13,
        });
        let Some(Error::OutOfResources(message)) = checked.error("k") else {
            panic!("a fault is CL_OUT_OF_RESOURCES");
        };
        assert_eq!(
            message,
            format!(
                "kernel `k` stopped: out-of-bounds store of 4 bytes at {:#x} by work-item \
                 (16, 0, 0) at line 4:13 (4 bytes past the end of argument 0, a buffer of 64 bytes)",
                base + 64
            )
        );
    }
}

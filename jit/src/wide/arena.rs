//! Executable memory for the wide code: one process-wide arena of blocks,
//! so that a kernel's code costs no system call once the arena has room.
//!
//! Each slab of the arena is one `memfd` mapped twice: a writable view,
//! through which a block's code is written, and an executable view (read
//! and execute, never writable), from which it runs. A kernel's code is a
//! block of a slab; dropping the code gives the block back (its bytes
//! overwritten with `int3` through the writable view), and the next
//! kernel's code may take its place. A mapping of its own per kernel,
//! made writable, copied into and then turned executable with `mprotect`
//! (what the wide code did before), costs an `mmap`, an `mprotect` and a
//! `munmap` per kernel, and the last two each interrupt every other CPU
//! running the process to flush its TLB; the page faults of the fresh
//! mapping come on top (`docs/wide.md`, "Code memory").
//!
//! Where `memfd_create` or either mapping fails (a kernel without
//! `memfd`, a policy refusing shared executable mappings), or where the
//! arena is turned off ([`set_enabled`]), each block is a mapping of its
//! own as before. A block larger than a slab gets a mapping of its own
//! too.
//!
//! A slab's pages are shared mappings, so a child made by `fork` shares
//! them with its parent: in a child (a `pthread_atfork` handler sets
//! `FORKED` when the first slab is made) the arena places nothing and
//! gives nothing back, so a child that compiles or drops kernels never
//! writes over its parent's code; its code gets mappings of its own.
//!
//! x86 keeps instruction fetch coherent with stores to the same physical
//! memory whatever the virtual address written through; a block is given
//! back only when no launch runs its code any more (its kernel is dropped
//! after its launches), so no CPU executes the old bytes while the new
//! ones are written, and the code reaches the threads that run it through
//! the same synchronisation that hands them the kernel.

use super::WideError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// Bytes of one slab (virtual; pages are touched as blocks first use them).
pub const SLAB_BYTES: usize = 4 << 20;

/// Blocks start on a 64-byte line (a constant pool placed on a line stays
/// on it, however the block's start moves).
pub const BLOCK_ALIGN: usize = 64;

/// The code of one compiled function: a block of the arena, or a mapping
/// of its own.
pub struct CodeMemory {
    place: Place,
    /// The block's executable bytes.
    exec: *const u8,
    len: usize,
}

enum Place {
    Block {
        arena: &'static Arena,
        slab: usize,
        offset: usize,
    },
    /// A mapping of its own, unmapped with the code.
    Own { _mapping: memmap2::Mmap },
}

// SAFETY: the memory is read-only and executable once placed; the block's
// owner is the only one that writes or frees it (on drop, under the
// arena's lock). Nothing about it is tied to the thread that made it.
unsafe impl Send for CodeMemory {}
// SAFETY: shared references only read the bytes.
unsafe impl Sync for CodeMemory {}

impl CodeMemory {
    /// The first byte of the code's memory (executable).
    pub fn as_ptr(&self) -> *const u8 {
        self.exec
    }

    /// Bytes of the block (at least the code's).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the block is empty (never: a block holds at least a byte).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the code lies in the arena (false: a mapping of its own).
    pub fn in_arena(&self) -> bool {
        matches!(self.place, Place::Block { .. })
    }
}

impl std::ops::Deref for CodeMemory {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: `exec` points at `len` readable bytes that live as long
        // as `self` (the arena's slabs are never unmapped; an own mapping
        // is a field of `self`).
        unsafe { std::slice::from_raw_parts(self.exec, self.len) }
    }
}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        if let Place::Block {
            arena,
            slab,
            offset,
        } = self.place
        {
            arena.free(slab, offset, self.len);
        }
    }
}

impl std::fmt::Debug for CodeMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeMemory")
            .field("len", &self.len)
            .field("in_arena", &self.in_arena())
            .finish()
    }
}

/// Blocks of executable memory handed out and given back.
pub struct Arena {
    state: Mutex<State>,
    /// Bytes of one slab.
    slab_bytes: usize,
}

#[derive(Default)]
struct State {
    slabs: Vec<Slab>,
    /// A slab could not be made (no `memfd`, or a mapping refused): every
    /// block from now on is a mapping of its own.
    failed: bool,
}

struct Slab {
    /// The writable view.
    write: *mut u8,
    /// The executable view of the same pages.
    exec: *const u8,
    /// Free ranges `(offset, len)`, ordered by offset, none adjacent.
    free: Vec<(usize, usize)>,
}

// SAFETY: the views are process-wide mappings; the state is reached only
// under the arena's mutex.
unsafe impl Send for State {}

/// What an arena holds, for tests and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArenaStats {
    pub slabs: usize,
    /// Bytes in blocks handed out.
    pub used: usize,
    /// Whether the arena fell back to a mapping per block.
    pub failed: bool,
}

static ENABLED: AtomicBool = AtomicBool::new(true);

/// Set in a child made by `fork` after the process made a slab: the slabs
/// are shared with the parent, so the child neither places in them nor
/// frees from them (the module header).
static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn forked_child() {
    FORKED.store(true, Ordering::Relaxed);
}

/// Registers [`forked_child`] with `pthread_atfork`, once.
fn watch_forks() {
    static WATCHING: std::sync::Once = std::sync::Once::new();
    WATCHING.call_once(|| {
        // SAFETY: registers a handler that only stores to an atomic,
        // which is async-signal-safe as a fork handler must be.
        unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
    });
}

/// Turns the process's arena on or off for the code placed from now on
/// (on by default); off, each function gets a mapping of its own, as
/// when the arena cannot be made. Code placed before keeps its memory.
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// The process's arena.
pub fn global() -> &'static Arena {
    static ARENA: OnceLock<Arena> = OnceLock::new();
    ARENA.get_or_init(|| Arena::new(SLAB_BYTES))
}

/// Places `bytes`, a function whose constant pool (if any) starts at byte
/// `pool_at` of it, in executable memory so that the pool starts on a
/// 64-byte line. Returns the memory and the offset of the function's
/// first byte in it.
pub fn place(bytes: &[u8], pool_at: Option<usize>) -> Result<(CodeMemory, usize), WideError> {
    if ENABLED.load(Ordering::Relaxed) {
        global().place(bytes, pool_at)
    } else {
        place_own(bytes, pool_at)
    }
}

/// Where in a block starting on a 64-byte line the function starts, so
/// that its pool at `pool_at` starts on a line.
fn shift_for(pool_at: Option<usize>) -> usize {
    pool_at.map_or(0, |at| (BLOCK_ALIGN - at % BLOCK_ALIGN) % BLOCK_ALIGN)
}

/// `bytes` in a mapping of its own, made executable with `mprotect`.
fn place_own(bytes: &[u8], pool_at: Option<usize>) -> Result<(CodeMemory, usize), WideError> {
    let shift = shift_for(pool_at);
    let mut mem = memmap2::MmapMut::map_anon(shift + bytes.len().max(1))
        .map_err(|e| WideError::Memory(e.to_string()))?;
    mem[shift..shift + bytes.len()].copy_from_slice(bytes);
    let memory = mem
        .make_exec()
        .map_err(|e| WideError::Memory(e.to_string()))?;
    let (exec, len) = (memory.as_ptr(), memory.len());
    Ok((
        CodeMemory {
            place: Place::Own { _mapping: memory },
            exec,
            len,
        },
        shift,
    ))
}

impl Arena {
    /// An arena of slabs of `slab_bytes` (a multiple of the page size),
    /// made as blocks need them.
    pub fn new(slab_bytes: usize) -> Arena {
        Arena {
            state: Mutex::new(State::default()),
            slab_bytes,
        }
    }

    /// An arena that has failed already: every block a mapping of its
    /// own (what a process without `memfd` gets).
    pub fn failed() -> Arena {
        let arena = Arena::new(SLAB_BYTES);
        arena.lock().failed = true;
        arena
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic under the lock leaves the free lists whole (every change
        // to them is a single step), so a poisoned lock is taken as is.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the arena holds now.
    pub fn stats(&self) -> ArenaStats {
        let state = self.lock();
        let used = state
            .slabs
            .iter()
            .map(|s| self.slab_bytes - s.free.iter().map(|(_, l)| l).sum::<usize>())
            .sum();
        ArenaStats {
            slabs: state.slabs.len(),
            used,
            failed: state.failed,
        }
    }

    /// [`place`] in this arena.
    pub fn place(
        &'static self,
        bytes: &[u8],
        pool_at: Option<usize>,
    ) -> Result<(CodeMemory, usize), WideError> {
        let shift = shift_for(pool_at);
        let len = (shift + bytes.len()).max(1).next_multiple_of(BLOCK_ALIGN);
        if len > self.slab_bytes || FORKED.load(Ordering::Relaxed) {
            return place_own(bytes, pool_at);
        }
        let mut state = self.lock();
        if state.failed {
            drop(state);
            return place_own(bytes, pool_at);
        }
        let found = state
            .slabs
            .iter_mut()
            .enumerate()
            .find_map(|(i, s)| s.take(len).map(|offset| (i, offset)));
        let (slab, offset) = match found {
            Some(found) => found,
            None => match Slab::new(self.slab_bytes) {
                Some(mut s) => {
                    let offset = s.take(len).ok_or_else(|| {
                        WideError::Memory("a new slab without room for a block".into())
                    })?;
                    state.slabs.push(s);
                    (state.slabs.len() - 1, offset)
                }
                None => {
                    state.failed = true;
                    drop(state);
                    return place_own(bytes, pool_at);
                }
            },
        };
        let s = &state.slabs[slab];
        // SAFETY: the block `offset..offset + len` lies in the slab and is
        // this caller's alone (just taken from the free list, under the
        // lock); `shift + bytes.len() <= len`. It is written only through
        // the writable view.
        let exec = unsafe {
            let w = s.write.add(offset);
            std::ptr::write_bytes(w, INT3, shift);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), w.add(shift), bytes.len());
            s.exec.add(offset)
        };
        Ok((
            CodeMemory {
                place: Place::Block {
                    arena: self,
                    slab,
                    offset,
                },
                exec,
                len,
            },
            shift,
        ))
    }

    /// Gives block `offset..offset + len` of slab `slab` back.
    fn free(&self, slab: usize, offset: usize, len: usize) {
        if FORKED.load(Ordering::Relaxed) {
            // The parent may still run this block's code: leave it.
            return;
        }
        let mut state = self.lock();
        let Some(s) = state.slabs.get_mut(slab) else {
            return;
        };
        // SAFETY: the block lies in the slab and is no longer handed out;
        // no code runs from it (its owner is being dropped).
        unsafe { std::ptr::write_bytes(s.write.add(offset), INT3, len) };
        s.give_back(offset, len);
    }
}

/// `int3`: what a freed block and the gap before a function hold, so that
/// a jump into either stops at once.
const INT3: u8 = 0xcc;

impl Slab {
    /// A `memfd` of `bytes` mapped writable and executable; `None` if any
    /// step fails.
    fn new(bytes: usize) -> Option<Slab> {
        watch_forks();
        // SAFETY: plain system calls on a descriptor this function owns;
        // each result is checked, and the descriptor is closed on every
        // path (the mappings keep the memory).
        unsafe {
            let fd = libc::memfd_create(c"vecl-wide-code".as_ptr(), libc::MFD_CLOEXEC);
            if fd < 0 {
                return None;
            }
            let map = |prot| {
                let p = libc::mmap(std::ptr::null_mut(), bytes, prot, libc::MAP_SHARED, fd, 0);
                (p != libc::MAP_FAILED).then_some(p)
            };
            let views = if libc::ftruncate(fd, bytes as libc::off_t) == 0 {
                match map(libc::PROT_READ | libc::PROT_WRITE) {
                    Some(write) => match map(libc::PROT_READ | libc::PROT_EXEC) {
                        Some(exec) => Some((write, exec)),
                        None => {
                            libc::munmap(write, bytes);
                            None
                        }
                    },
                    None => None,
                }
            } else {
                None
            };
            libc::close(fd);
            let (write, exec) = views?;
            Some(Slab {
                write: write.cast(),
                exec: exec.cast_const().cast(),
                free: vec![(0, bytes)],
            })
        }
    }

    /// The offset of a free block of `len` bytes, taken (first fit).
    fn take(&mut self, len: usize) -> Option<usize> {
        let i = self.free.iter().position(|&(_, l)| l >= len)?;
        let (offset, l) = self.free[i];
        if l == len {
            self.free.remove(i);
        } else {
            self.free[i] = (offset + len, l - len);
        }
        Some(offset)
    }

    /// Returns `offset..offset + len` to the free list, merged with its
    /// free neighbours.
    fn give_back(&mut self, offset: usize, len: usize) {
        let i = self.free.partition_point(|&(o, _)| o < offset);
        let joins_next = self.free.get(i).is_some_and(|&(o, _)| o == offset + len);
        let joins_prev = i > 0 && {
            let (o, l) = self.free[i - 1];
            o + l == offset
        };
        match (joins_prev, joins_next) {
            (true, true) => {
                self.free[i - 1].1 += len + self.free[i].1;
                self.free.remove(i);
            }
            (true, false) => self.free[i - 1].1 += len,
            (false, true) => self.free[i] = (offset, len + self.free[i].1),
            (false, false) => self.free.insert(i, (offset, len)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena(slab_bytes: usize) -> &'static Arena {
        Box::leak(Box::new(Arena::new(slab_bytes)))
    }

    #[test]
    fn a_freed_block_is_reused_and_neighbours_merge() {
        let arena = arena(64 << 10);
        let (a, _) = arena.place(&[0xc3; 100], None).unwrap();
        let (b, _) = arena.place(&[0xc3; 64], None).unwrap();
        let (c, _) = arena.place(&[0xc3; 10], None).unwrap();
        assert!(a.in_arena() && b.in_arena() && c.in_arena());
        assert_eq!(a.len(), 128);
        assert_eq!(b.as_ptr() as usize, a.as_ptr() as usize + 128);
        let at_b = b.as_ptr();
        drop(b);
        let (d, _) = arena.place(&[0xc3; 40], None).unwrap();
        assert_eq!(d.as_ptr(), at_b, "the freed block is taken first");
        drop((a, c, d));
        let stats = arena.stats();
        assert_eq!((stats.slabs, stats.used), (1, 0));
        let state = arena.lock();
        assert_eq!(state.slabs[0].free, vec![(0, 64 << 10)]);
    }

    #[test]
    fn the_pool_starts_on_a_line_and_the_gap_holds_int3() {
        let arena = arena(64 << 10);
        let bytes: Vec<u8> = (0..90).collect();
        let (m, at) = arena.place(&bytes, Some(70)).unwrap();
        assert_eq!((m.as_ptr() as usize + at + 70) % 64, 0);
        assert_eq!(at, 58);
        assert!(m[..at].iter().all(|&b| b == INT3));
        assert_eq!(&m[at..at + 90], &bytes[..]);
    }

    #[test]
    fn a_full_slab_opens_another_and_a_large_block_is_mapped_alone() {
        let arena = arena(4096);
        let blocks: Vec<_> = (0..3)
            .map(|_| arena.place(&[0xc3; 2000], None).unwrap().0)
            .collect();
        assert_eq!(arena.stats().slabs, 2);
        let (big, _) = arena.place(&[0xc3; 5000], None).unwrap();
        assert!(!big.in_arena());
        assert_eq!(&big[..5000], &[0xc3; 5000][..]);
        drop(blocks);
        assert_eq!(arena.stats().used, 0);
    }

    #[test]
    fn a_failed_arena_maps_each_block() {
        let arena: &'static Arena = Box::leak(Box::new(Arena::failed()));
        let bytes = [0x90, 0xc3];
        let (m, at) = arena.place(&bytes, Some(1)).unwrap();
        assert!(!m.in_arena());
        assert_eq!((m.as_ptr() as usize + at + 1) % 64, 0);
        assert_eq!(&m[at..at + 2], &bytes);
        assert_eq!(arena.stats().slabs, 0);
    }

    #[test]
    fn placed_code_runs() {
        // mov eax, 42; ret
        let code = [0xb8, 42, 0, 0, 0, 0xc3];
        for arena in [arena(64 << 10), Box::leak(Box::new(Arena::failed()))] {
            let (m, at) = arena.place(&code, None).unwrap();
            // SAFETY: the block holds the function above from `at` on.
            let f = unsafe {
                std::mem::transmute::<*const u8, extern "C" fn() -> u32>(m.as_ptr().add(at))
            };
            assert_eq!(f(), 42);
        }
    }

    #[test]
    fn a_forked_child_leaves_its_parents_blocks_alone() {
        // mov eax, 7; ret
        let code = [0xb8, 7, 0, 0, 0, 0xc3];
        let a = arena(64 << 10);
        let (m, at) = a.place(&code, None).unwrap();
        let bytes = m.to_vec();
        // SAFETY: the child only drops the block (an atomic load and a
        // return: no lock, no allocation) and reads an atomic before
        // `_exit`, which is what a child of a threaded process may do.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let forked = FORKED.load(Ordering::Relaxed);
            drop(m);
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(if forked { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just made.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
        assert!(!FORKED.load(Ordering::Relaxed));
        assert_eq!(m.to_vec(), bytes, "the child wrote over the parent's block");
        // SAFETY: the block holds the function above from `at` on.
        let f =
            unsafe { std::mem::transmute::<*const u8, extern "C" fn() -> u32>(m.as_ptr().add(at)) };
        assert_eq!(f(), 7);
    }
}

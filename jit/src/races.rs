//! Checked mode's `__local` memory checks, the half that runs: shadow
//! state per `__local` word and the rules that find data races, reads of
//! memory no work-item of the group wrote, and atomics mixed with plain
//! accesses. The code that calls in here is `lower::races`.
//!
//! **Shadow.** Each thread running checked kernels keeps one
//! [`RaceState`] (thread-local, grown as launches need): one `Shadow`
//! cell per *granule* of the launch's `__local` arena — 4 bytes, or 1 in a
//! kernel that makes narrower `__local` (or generic) accesses, so that
//! work-items writing neighbouring bytes of one word are not taken for a
//! race. A cell remembers, for the current barrier region, the last plain
//! writer, up to two distinct plain readers and up to two distinct
//! work-items that made atomic accesses, each with the epoch it happened
//! in and its source line.
//!
//! **Epochs.** A counter per thread goes up at the start of every group
//! and of every barrier region (`vecl_races_group`, `vecl_races_region`);
//! accesses of one region share its epoch. An entry of an older epoch is
//! history: it no longer conflicts. Whether a granule has been written in
//! the group is kept apart, one `u32` per granule (`init`): the group's
//! first epoch once any write or atomic of the group touched it. Nothing is cleared
//! between groups or launches; the counter wrapping around (after 2^32
//! groups and barriers on one thread) clears the cells.
//!
//! **Rules** (work-items X ≠ Y of one group, one region):
//!
//! | earlier | later | report |
//! |---|---|---|
//! | plain write by X | plain read or write by Y | data race |
//! | plain read by X | plain write by Y | data race |
//! | atomic by X | plain access by Y | atomic mixed with a plain access |
//! | plain access by X | atomic by Y | atomic mixed with a plain access |
//! | atomic by X | atomic by Y | nothing |
//!
//! and a plain read or a reading atomic of a word that no plain write or
//! atomic of the group has touched since the group started is a read of
//! uninitialised `__local` memory. Every pair is found whatever order the
//! lanes and chunks run in: the later access of a conflicting pair sees the
//! earlier one in the cell (one writer suffices, since a second writer
//! would already have been reported; two readers suffice, since one of
//! them differs from any later writer). Lanes of one chunk, which vecl runs
//! in lock step, count as the distinct work-items they are.
//!
//! On the first finding the access returns [`crate::abi::KernelStatus::LocalMemory`];
//! the entry returns it at once, and the thread that ran it takes the
//! [`LocalReport`] with [`take_local_report`] (as it takes a barrier
//! divergence).

use std::cell::{Cell, UnsafeCell};

/// No work-item (an empty reader or atomic slot).
const NONE: u32 = u32::MAX;

/// What an access of `__local` memory does, for the shadow (bits 0–7 of
/// the packed site).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalAccess {
    Read = 1,
    Write = 2,
    /// An atomic that reads the word (every one but `atomic_store`).
    Atomic = 3,
    /// `atomic_store`: an atomic that only writes.
    AtomicStore = 4,
}

impl LocalAccess {
    fn from_code(code: u64) -> LocalAccess {
        match code & 0x7f {
            2 => LocalAccess::Write,
            3 => LocalAccess::Atomic,
            4 => LocalAccess::AtomicStore,
            _ => LocalAccess::Read,
        }
    }

    /// The word a report uses.
    pub fn word(self) -> &'static str {
        match self {
            LocalAccess::Read => "read",
            LocalAccess::Write => "write",
            LocalAccess::Atomic | LocalAccess::AtomicStore => "atomic",
        }
    }

    fn is_atomic(self) -> bool {
        matches!(self, LocalAccess::Atomic | LocalAccess::AtomicStore)
    }
}

/// A flag of the packed site: every lane accesses the same address (a
/// uniform pointer), so the first two distinct active work-items stand
/// for all of them (a third finds nothing the second did not: it conflicts
/// with a writer or reader exactly when one of the first two does, and
/// adds no reader or atomic slot).
pub const SAME_ADDRESS: u64 = 0x80;

/// Kind, column and line of an access packed into one word: kind in bits
/// 0–6, column in 8–31, line in 32–63.
pub fn pack_local_site(kind: LocalAccess, line: u32, col: u32) -> u64 {
    u64::from(kind as u8) | (u64::from(col.min(0x00ff_ffff)) << 8) | (u64::from(line) << 32)
}

/// A source position as a cell keeps it: line in bits 12–31, column
/// (at most 4095) in 0–11.
fn short_site(site: u64) -> u32 {
    let line = (site >> 32) as u32;
    let col = ((site >> 8) & 0x00ff_ffff) as u32;
    (line.min(0x000f_ffff) << 12) | col.min(0xfff)
}

fn unshort(s: u32) -> (u32, u32) {
    (s >> 12, s & 0xfff)
}

/// The shadow of one granule of `__local` memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    w_epoch: u32,
    w_item: u32,
    w_site: u32,
    r_epoch: u32,
    r_item: [u32; 2],
    r_site: [u32; 2],
    a_epoch: u32,
    a_item: [u32; 2],
    a_site: [u32; 2],
}

/// What a report found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Two work-items, at least one writing, accessed the word in one
    /// barrier region with plain accesses.
    DataRace,
    /// An atomic and a plain access of the word by two work-items in one
    /// barrier region.
    MixedAtomic,
    /// A read of a word no work-item of the group had written.
    Uninitialised,
}

/// One access in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportedAccess {
    pub kind: LocalAccess,
    /// `get_local_id(0..3)` of the work-item.
    pub local_id: [u64; 3],
    /// Source position (0 when unknown; the column only for the later
    /// access and when known).
    pub line: u32,
    pub col: u32,
}

/// The first `__local` memory finding of an entry: what, where (the byte
/// offset in the `__local` arena and the access's address), the group and
/// the accesses (the earlier one absent for an uninitialised read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalReport {
    pub finding: Finding,
    pub address: u64,
    /// Offset of the later access in the `__local` arena.
    pub offset: u64,
    /// Bytes of the later access.
    pub size: u64,
    pub group: [u64; 3],
    pub earlier: Option<ReportedAccess>,
    pub later: ReportedAccess,
}

/// Offsets of the fields of [`RaceState`] the generated code reads at a
/// group's start (`lower::races`): the address of the first `init` word,
/// the arena's address and length, the group's first epoch; and the epoch
/// counter it steps at each region's start.
pub(crate) mod state_offsets {
    pub const INIT: i32 = 0;
    pub const BASE: i32 = 8;
    pub const LEN: i32 = 16;
    pub const GROUP_START: i32 = 24;
    /// The epoch counter, which the generated code increments at each
    /// region's start (what [`super::vecl_races_region`] does).
    pub const EPOCH: i32 = 28;
}

/// The shadow state of one thread.
#[repr(C)]
#[derive(Debug, Default)]
pub struct RaceState {
    /// `init.as_ptr()`, for the generated code (set at each group's start;
    /// `init` only grows there).
    init_at: u64,
    base: u64,
    len: u64,
    group_start: u32,
    epoch: u32,
    /// Per granule: the first epoch of the last group that wrote it
    /// (plainly, atomically or by `async_work_group_copy`). A granule is
    /// initialised in the group when its word is at least `group_start`.
    /// Kept apart from the cells so that the generated code can mark and
    /// test a chunk's granules as vectors where an access is proven free
    /// of conflicts (`lower::race_proofs`).
    init: Vec<u32>,
    /// log2 of the granule's bytes.
    shift: u32,
    /// The enqueued local size in dimensions 0 and 1 of the code's own
    /// numbering (a work-item's number is `x + lx * (y + ly * z)`).
    lx: u64,
    ly: u64,
    /// The launch's dimension the code's dimension 0 stands for.
    lanes_along: usize,
    group: [u64; 3],
    cells: Vec<Shadow>,
}

thread_local! {
    static STATE: UnsafeCell<RaceState> = UnsafeCell::new(RaceState::default());
    static REPORT: Cell<Option<LocalReport>> = const { Cell::new(None) };
}

/// The finding the last entry that returned
/// [`crate::abi::KernelStatus::LocalMemory`] on this thread recorded; clears it.
pub fn take_local_report() -> Option<LocalReport> {
    REPORT.with(|r| r.take())
}

impl RaceState {
    /// `get_local_id` of work-item number `item`, by the launch's dimensions.
    fn local_id(&self, item: u32) -> [u64; 3] {
        let item = u64::from(item);
        let (lx, ly) = (self.lx.max(1), self.ly.max(1));
        let mut id = [item % lx, (item / lx) % ly, item / (lx * ly)];
        id.swap(0, self.lanes_along.min(2));
        id
    }

    fn access(&self, kind: LocalAccess, item: u32, site: u32) -> ReportedAccess {
        let (line, col) = unshort(site);
        ReportedAccess {
            kind,
            local_id: self.local_id(item),
            line,
            col,
        }
    }

    /// Applies one work-item's access of granule `k`: `None`, or what it
    /// conflicts with (the earlier access, absent for an uninitialised
    /// read). The common case — nothing found — reads the cell, compares
    /// three epochs and writes one slot; building a report is cold.
    #[inline(always)]
    fn apply(&mut self, k: usize, kind: LocalAccess, item: u32, here: u32) -> Option<Conflict> {
        let (e, start) = (self.epoch, self.group_start);
        let written = self.init[k] >= start;
        let cell = &mut self.cells[k];
        let other = |items: [u32; 2], sites: [u32; 2]| {
            if items[0] != item {
                Some((items[0], sites[0]))
            } else if items[1] != NONE {
                Some((items[1], sites[1]))
            } else {
                None
            }
        };
        let wrote_here = cell.w_epoch == e && cell.w_item != item;
        match kind {
            LocalAccess::Read | LocalAccess::Write => {
                if cell.a_epoch == e {
                    if let Some((who, s)) = other(cell.a_item, cell.a_site) {
                        return Some(Conflict::Mixed(LocalAccess::Atomic, who, s));
                    }
                }
                if wrote_here {
                    return Some(Conflict::Race(LocalAccess::Write, cell.w_item, cell.w_site));
                }
                if kind == LocalAccess::Write {
                    if cell.r_epoch == e {
                        if let Some((who, s)) = other(cell.r_item, cell.r_site) {
                            return Some(Conflict::Race(LocalAccess::Read, who, s));
                        }
                    }
                    cell.w_epoch = e;
                    cell.w_item = item;
                    cell.w_site = here;
                    self.init[k] = start;
                    return None;
                }
            }
            LocalAccess::Atomic | LocalAccess::AtomicStore => {
                if wrote_here {
                    return Some(Conflict::Mixed(
                        LocalAccess::Write,
                        cell.w_item,
                        cell.w_site,
                    ));
                }
                if cell.r_epoch == e {
                    if let Some((who, s)) = other(cell.r_item, cell.r_site) {
                        return Some(Conflict::Mixed(LocalAccess::Read, who, s));
                    }
                }
            }
        }
        if kind != LocalAccess::AtomicStore && !written {
            return Some(Conflict::Uninitialised);
        }
        if kind != LocalAccess::Read {
            self.init[k] = start;
        }
        let (epoch, items, sites) = if kind == LocalAccess::Read {
            (&mut cell.r_epoch, &mut cell.r_item, &mut cell.r_site)
        } else {
            (&mut cell.a_epoch, &mut cell.a_item, &mut cell.a_site)
        };
        if *epoch != e {
            *epoch = e;
            *items = [item, NONE];
            *sites = [here, 0];
        } else if items[0] != item && items[1] == NONE {
            items[1] = item;
            sites[1] = here;
        }
        None
    }

    /// Records the report of `conflict` and returns the status the entry
    /// returns.
    #[cold]
    fn report(
        &self,
        conflict: Conflict,
        kind: LocalAccess,
        item: u32,
        site: u64,
        address: u64,
        size: u64,
    ) -> u32 {
        let later = ReportedAccess {
            kind,
            local_id: self.local_id(item),
            line: (site >> 32) as u32,
            col: ((site >> 8) & 0x00ff_ffff) as u32,
        };
        let (finding, earlier) = match conflict {
            Conflict::Race(k, who, s) => (Finding::DataRace, Some(self.access(k, who, s))),
            Conflict::Mixed(k, who, s) => (Finding::MixedAtomic, Some(self.access(k, who, s))),
            Conflict::Uninitialised => (Finding::Uninitialised, None),
        };
        let r = LocalReport {
            finding,
            address,
            offset: address.wrapping_sub(self.base),
            size,
            group: self.group,
            earlier,
            later,
        };
        REPORT.with(|c| c.set(Some(r)));
        crate::abi::KernelStatus::LocalMemory as u32
    }
}

/// What an access conflicts with: the earlier access's kind, work-item
/// number and short site.
#[derive(Clone, Copy, Debug)]
enum Conflict {
    Race(LocalAccess, u32, u32),
    Mixed(LocalAccess, u32, u32),
    Uninitialised,
}

/// Called at the start of every work-group of a kernel compiled with the
/// `__local` checks: the arena (`local_mem`, `len` bytes), the enqueued
/// local size in the code's dimensions 0 and 1, the group's id by the
/// launch's dimensions, and `lanes_along | granule_shift << 8`. Returns
/// this thread's state, which the group's accesses pass back.
pub extern "C" fn vecl_races_group(
    local_mem: u64,
    len: u64,
    lx: u64,
    ly: u64,
    g0: u64,
    g1: u64,
    g2: u64,
    shape: u64,
) -> *mut RaceState {
    STATE.with(|s| {
        let p = s.get();
        // SAFETY: the state is this thread's own; the generated code uses
        // the pointer only on this thread, between this call and the next
        // one (no reference to it is alive here).
        let st = unsafe { &mut *p };
        let shift = ((shape >> 8) & 0xff) as u32;
        let cells = usize::try_from(len.div_ceil(1 << shift)).unwrap_or(0);
        if st.cells.len() < cells {
            st.cells.resize(cells, Shadow::default());
            st.init.resize(cells, 0);
        }
        if st.epoch >= u32::MAX - (1 << 16) || st.shift != shift {
            st.cells.iter_mut().for_each(|c| *c = Shadow::default());
            st.init.iter_mut().for_each(|w| *w = 0);
            st.epoch = 0;
        }
        st.init_at = st.init.as_mut_ptr() as u64;
        st.epoch += 1;
        st.group_start = st.epoch;
        st.base = local_mem;
        st.len = len;
        st.shift = shift;
        st.lx = lx;
        st.ly = ly;
        st.lanes_along = (shape & 0xff) as usize;
        st.group = [g0, g1, g2];
        p
    })
}

/// Called at the start of every barrier region of a group.
///
/// # Safety
/// `state` comes from [`vecl_races_group`] on this thread.
pub unsafe extern "C" fn vecl_races_region(state: *mut RaceState) {
    // SAFETY: per the contract above.
    if let Some(st) = unsafe { state.as_mut() } {
        st.epoch += 1;
    }
}

/// Called before a chunk's access of `bytes` bytes per lane of memory that
/// may be `__local`: `lanes` holds `w` lane addresses (`u64`) followed by
/// `w` lane flags (`i32`, non-zero for the lanes that make the access);
/// lane `j` is work-item number `first_item + j`. Addresses outside the
/// arena are not `__local` memory (or are out of bounds, which the bounds
/// checks report). Returns 0, or `KernelStatus::LocalMemory` with a
/// [`LocalReport`] recorded.
///
/// # Safety
/// `state` comes from [`vecl_races_group`] on this thread; `lanes` points
/// to `12 * w` readable bytes, 8-aligned.
pub unsafe extern "C" fn vecl_races_access(
    state: *mut RaceState,
    lanes: *const u8,
    w: u64,
    first_item: u64,
    bytes: u64,
    site: u64,
) -> u32 {
    // SAFETY: per the contract above.
    let Some(st) = (unsafe { state.as_mut() }) else {
        return 0;
    };
    let w = w as usize;
    let kind = LocalAccess::from_code(site);
    let here = short_site(site);
    let (base, len, shift) = (st.base, st.len, st.shift);
    if bytes == 0 || bytes > len {
        return 0;
    }
    let cells = st.cells.len();
    // Lanes of one address: the first two active ones (below).
    let mut budget = if site & SAME_ADDRESS != 0 {
        2
    } else {
        usize::MAX
    };
    // The common whole-vector case: every lane active, lane `j` at
    // `first + j * bytes`, one cell per lane.
    if budget == usize::MAX && bytes == 1 << shift {
        // SAFETY: `lanes` holds `w` addresses then `w` flags, per the contract.
        let (addrs, flags) = unsafe {
            (
                std::slice::from_raw_parts(lanes as *const u64, w),
                std::slice::from_raw_parts(lanes.add(8 * w) as *const i32, w),
            )
        };
        let a0 = addrs.first().copied().unwrap_or(0);
        let off = a0.wrapping_sub(base);
        let run = (w as u64).saturating_mul(bytes);
        let whole = off <= len.saturating_sub(run)
            && run <= len
            && flags.iter().all(|f| *f != 0)
            && addrs
                .iter()
                .enumerate()
                .all(|(j, a)| *a == a0.wrapping_add(j as u64 * bytes));
        if whole {
            let k0 = (off >> shift) as usize;
            for (j, a) in addrs.iter().enumerate() {
                let item = (first_item + j as u64) as u32;
                if let Some(c) = st.apply(k0 + j, kind, item, here) {
                    return st.report(c, kind, item, site, *a, bytes);
                }
            }
            return 0;
        }
    }
    for j in 0..w {
        if budget == 0 {
            break;
        }
        // SAFETY: `lanes` holds `w` addresses then `w` flags, per the contract.
        let (a, on) = unsafe {
            (
                (lanes as *const u64).add(j).read(),
                (lanes.add(8 * w) as *const i32).add(j).read(),
            )
        };
        // Outside the arena: not `__local` memory (or out of bounds, which
        // the bounds checks report).
        let off = a.wrapping_sub(base);
        if on == 0 || off > len - bytes {
            continue;
        }
        budget -= 1;
        let first = (off >> shift) as usize;
        let last = (((off + bytes - 1) >> shift) as usize).min(cells - 1);
        let item = (first_item + j as u64) as u32;
        for k in first..=last {
            if let Some(c) = st.apply(k, kind, item, here) {
                return st.report(c, kind, item, site, a, bytes);
            }
        }
    }
    0
}

/// Called after `async_work_group_copy` wrote `n` elements of `elem` bytes
/// at `dst` with a stride of `stride` elements: the words count as
/// written by the group, before the current region (the copy is complete
/// when the group's work-items wait for it), so they are initialised and
/// race with nothing.
///
/// # Safety
/// `state` comes from [`vecl_races_group`] on this thread.
pub unsafe extern "C" fn vecl_races_copied(
    state: *mut RaceState,
    dst: u64,
    n: u64,
    elem: u64,
    stride: u64,
) {
    // SAFETY: per the contract above.
    let Some(st) = (unsafe { state.as_mut() }) else {
        return;
    };
    let (base, end) = (st.base, st.base.saturating_add(st.len));
    for i in 0..n {
        let a = dst.wrapping_add(i.wrapping_mul(stride).wrapping_mul(elem));
        if a < base || a.saturating_add(elem) > end || elem == 0 {
            continue;
        }
        let first = ((a - base) >> st.shift) as usize;
        let last = ((a - base + elem - 1) >> st.shift) as usize;
        for k in first..=last.min(st.init.len().saturating_sub(1)) {
            st.init[k] = st.group_start;
        }
    }
}

/// Whether every granule of `[start, end)` has been written (plainly,
/// atomically or by `async_work_group_copy`) since the group started:
/// 1 or 0. The generated code asks at the start of a region where it
/// proved an object's accesses free of conflicts, and skips their
/// tracking while the answer is 1 (`lower::race_proofs`); once 1, it stays
/// 1 for the group. A range outside the arena is never ready.
///
/// # Safety
/// `state` comes from [`vecl_races_group`] on this thread.
pub unsafe extern "C" fn vecl_races_ready(state: *mut RaceState, start: u64, end: u64) -> u32 {
    // SAFETY: per the contract above.
    let Some(st) = (unsafe { state.as_ref() }) else {
        return 0;
    };
    let (base, len) = (st.base, st.len);
    if start < base || end < start || end - base > len {
        return 0;
    }
    if start == end {
        return 1;
    }
    let first = ((start - base) >> st.shift) as usize;
    let last = ((end - base - 1) >> st.shift) as usize;
    let Some(words) = st.init.get(first..=last) else {
        return 0;
    };
    let start = st.group_start;
    // At a group's first region nothing is written yet: one word says so.
    if words.first().is_some_and(|w| *w < start) {
        return 0;
    }
    // Otherwise no early exit: a fold the compiler vectorises.
    let unwritten = words
        .iter()
        .fold(0u32, |acc, w| acc | u32::from(*w < start));
    u32::from(unwritten == 0)
}

/// The symbols of this module the generated code imports.
pub(crate) fn lookup_symbol(name: &str) -> Option<*const u8> {
    Some(match name {
        "vecl_races_group" => vecl_races_group as *const u8,
        "vecl_races_region" => vecl_races_region as *const u8,
        "vecl_races_access" => vecl_races_access as *const u8,
        "vecl_races_copied" => vecl_races_copied as *const u8,
        "vecl_races_ready" => vecl_races_ready as *const u8,
        _ => return None,
    })
}

impl std::fmt::Display for LocalReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = |l: [u64; 3]| format!("({}, {}, {})", l[0], l[1], l[2]);
        let at = |a: &ReportedAccess| match (a.line, a.col) {
            (0, _) => String::new(),
            (l, 0) => format!(" at line {l}"),
            (l, c) => format!(" at line {l}:{c}"),
        };
        let [g0, g1, g2] = self.group;
        let what = match self.finding {
            Finding::DataRace => "data race on __local memory",
            Finding::MixedAtomic => "atomic and plain accesses of one __local word",
            Finding::Uninitialised => "read of uninitialised __local memory",
        };
        let later = &self.later;
        write!(
            f,
            "{what}: {} of {} bytes at {:#x} by the work-item with local id {}{}",
            later.kind.word(),
            self.size,
            self.address,
            id(later.local_id),
            at(later)
        )?;
        match &self.earlier {
            Some(e) => write!(
                f,
                " after {} {} by the work-item with local id {}{} in the same barrier region, in group ({g0}, {g1}, {g2})",
                if e.kind.is_atomic() { "an" } else { "a" },
                e.kind.word(),
                id(e.local_id),
                at(e)
            ),
            None => write!(
                f,
                " in group ({g0}, {g1}, {g2}), which no work-item of the group had written"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: usize = 4;

    /// An arena of 64 bytes (16 words) at a fake address, one group of 4.
    const BASE: u64 = 0x10_0000;

    /// A new group and its first region, as the generated code starts them.
    fn group() -> *mut RaceState {
        let st = vecl_races_group(BASE, 64, 4, 1, 0, 0, 0, 2 << 8);
        // SAFETY: the state of this thread.
        unsafe { vecl_races_region(st) };
        st
    }

    /// One chunk access: `addrs[j]` for lane `j` where `on[j]`.
    fn access(st: *mut RaceState, addrs: [u64; W], on: [bool; W], kind: LocalAccess) -> u32 {
        let mut lanes = [0u8; 12 * W];
        for (j, (a, on)) in addrs.iter().zip(on).enumerate() {
            lanes[8 * j..8 * j + 8].copy_from_slice(&a.to_le_bytes());
            let f: i32 = if on { -1 } else { 0 };
            lanes[8 * W + 4 * j..8 * W + 4 * j + 4].copy_from_slice(&f.to_le_bytes());
        }
        let site = pack_local_site(kind, 7, 3);
        // SAFETY: a state of this thread and 12 * W bytes of lanes.
        unsafe { vecl_races_access(st, lanes.as_ptr(), W as u64, 0, 4, site) }
    }

    fn word(k: u64) -> u64 {
        BASE + 4 * k
    }

    fn own() -> [u64; W] {
        [word(0), word(1), word(2), word(3)]
    }

    const ALL: [bool; W] = [true; W];

    fn finding() -> Finding {
        take_local_report().expect("a report").finding
    }

    #[test]
    fn the_generated_code_finds_the_fields_it_reads() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(RaceState, init_at), state_offsets::INIT as usize);
        assert_eq!(offset_of!(RaceState, base), state_offsets::BASE as usize);
        assert_eq!(offset_of!(RaceState, len), state_offsets::LEN as usize);
        assert_eq!(
            offset_of!(RaceState, group_start),
            state_offsets::GROUP_START as usize
        );
        assert_eq!(offset_of!(RaceState, epoch), state_offsets::EPOCH as usize);
        let st = group();
        // SAFETY: the state of this thread.
        let st = unsafe { &*st };
        assert_eq!(st.init_at, st.init.as_ptr() as u64);
    }

    #[test]
    fn an_object_is_ready_once_every_granule_is_written_in_the_group() {
        let st = group();
        // SAFETY: the state of this thread.
        let ready = |a: u64, b: u64| unsafe { vecl_races_ready(st, a, b) };
        assert_eq!(ready(word(0), word(4)), 0);
        assert_eq!(access(st, own(), ALL, LocalAccess::Write), 0);
        assert_eq!(ready(word(0), word(4)), 1);
        assert_eq!(ready(word(0), word(5)), 0);
        assert_eq!(ready(word(0), word(0)), 1);
        // Past the arena: never.
        assert_eq!(ready(word(12), word(20)), 0);
        // The next group starts afresh.
        let st = group();
        // SAFETY: the state of this thread.
        assert_eq!(unsafe { vecl_races_ready(st, word(0), word(4)) }, 0);
    }

    #[test]
    fn each_work_item_on_its_own_word_is_clean() {
        let st = group();
        assert_eq!(access(st, own(), ALL, LocalAccess::Write), 0);
        assert_eq!(access(st, own(), ALL, LocalAccess::Read), 0);
        assert_eq!(access(st, own(), ALL, LocalAccess::Write), 0);
    }

    #[test]
    fn a_neighbours_word_in_one_region_races_and_after_a_barrier_does_not() {
        let st = group();
        assert_eq!(access(st, own(), ALL, LocalAccess::Write), 0);
        let next = [word(1), word(2), word(3), word(0)];
        // SAFETY: the state of this thread.
        unsafe { vecl_races_region(st) };
        assert_eq!(access(st, next, ALL, LocalAccess::Read), 0);
        assert_eq!(access(st, own(), ALL, LocalAccess::Write), 5);
        let r = take_local_report().expect("report");
        assert_eq!(r.finding, Finding::DataRace);
        // Lane 0 writes word 0, which lane 3 read in this region.
        assert_eq!(r.later.local_id, [0, 0, 0]);
        assert_eq!(r.earlier.map(|e| e.local_id), Some([3, 0, 0]));
    }

    #[test]
    fn two_lanes_of_one_store_to_one_word_race() {
        let st = group();
        let same = [word(5); W];
        assert_eq!(
            access(st, same, [true, false, true, false], LocalAccess::Write),
            5
        );
        let r = take_local_report().expect("report");
        assert_eq!(r.finding, Finding::DataRace);
        assert_eq!(r.later.local_id, [2, 0, 0]);
        assert_eq!(r.earlier.map(|e| e.local_id), Some([0, 0, 0]));
    }

    #[test]
    fn atomics_race_with_plain_accesses_only() {
        let st = group();
        let same = [word(2); W];
        assert_eq!(
            access(st, same, [true, false, false, false], LocalAccess::Write),
            0
        );
        // SAFETY: the state of this thread.
        unsafe { vecl_races_region(st) };
        assert_eq!(access(st, same, ALL, LocalAccess::Atomic), 0);
        assert_eq!(access(st, same, ALL, LocalAccess::Atomic), 0);
        assert_eq!(
            access(st, same, [false, true, false, false], LocalAccess::Read),
            5
        );
        assert_eq!(finding(), Finding::MixedAtomic);
    }

    #[test]
    fn a_word_no_one_wrote_in_this_group_is_uninitialised() {
        let st = group();
        assert_eq!(access(st, own(), ALL, LocalAccess::Write), 0);
        // The next group starts afresh: last group's writes do not count.
        let st = group();
        assert_eq!(access(st, own(), ALL, LocalAccess::Read), 5);
        assert_eq!(finding(), Finding::Uninitialised);
        // An async copy initialises, without racing with the reads after it.
        // SAFETY: the state of this thread.
        unsafe { vecl_races_copied(st, word(0), 4, 4, 1) };
        assert_eq!(
            access(
                st,
                [word(3), word(2), word(1), word(0)],
                ALL,
                LocalAccess::Read
            ),
            0
        );
    }
}

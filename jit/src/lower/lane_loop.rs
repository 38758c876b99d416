//! The cold per-lane path of an access that has a whole-vector path.
//!
//! A consecutive load or store (see [`super::memory`]) is one vector access
//! per piece when the mask is full and the addresses are consecutive; the
//! other chunks — a group's tail chunk, a partial mask, addresses that
//! wrapped around — take a per-lane path. That path runs rarely, yet W
//! unrolled lanes (extract the address and the mask bit, redirect, access,
//! insert) made it most of the code Cranelift compiles for a small kernel,
//! and register allocation grows with the code. Here it is one loop over
//! the lanes instead, about a dozen instructions whatever W is:
//!
//! - lane `j`'s address is `first + j * size` when the address chain is
//!   exact 64-bit arithmetic (consecutive by construction); otherwise it is
//!   recomputed in the loop from the instructions that define it (as lane
//!   0's and lane W-1's are for the vector path: `int i =
//!   get_global_id(0)` wraps, so the lanes are not `first + j * size` in
//!   every chunk) when that chain reaches no other varying value; otherwise
//!   the address pieces are spilled to the scratch area and reloaded;
//! - outside divergent control in a kernel without `return` the active lanes
//!   are the first `min(group_size0 - x0, W)` of the chunk (at least one:
//!   a chunk starts inside its group), so the loop runs over those only;
//!   otherwise the mask pieces are spilled too and an inactive lane's access
//!   goes to the scratch slot, as in the unrolled form;
//! - loaded lanes are written to the scratch area and read back as vector
//!   pieces; stored values are spilled as pieces and read per lane.
//!
//! Lanes run in lane order, inactive lanes never touch their own address,
//! and a store writes only the lanes' own elements: the guarantees of the
//! unrolled form. Checked mode tests the lanes before the loop, unchanged.
//! Accesses with no vector path (true gathers and scatters) keep the
//! unrolled form: for them the per-lane path is the main one, and it is
//! faster unrolled.
//!
//! The scratch slot (`FunctionCx::dummy`) holds, in this order: the bytes
//! inactive lanes read and write ([`INACTIVE_BYTES`]), the lanes' values,
//! their addresses, and their mask bits.

use super::lanes::{carrier, is_narrow, natural, Lanes};
use super::{FunctionCx, LResult};
use cranelift_codegen::ir::{condcodes::IntCC, types, BlockArg, InstBuilder, MemFlagsData, Value};
use vecl_ir::{Scalar, ValueId};

/// Bytes at the start of the scratch slot that inactive lanes access
/// (covers the largest offset of a component of an IR vector).
pub(crate) const INACTIVE_BYTES: u32 = 128;

/// Size of the scratch slot at width `w`: the inactive lanes' bytes, then
/// per lane 32 bytes of values (an 8-byte element, or the words of a
/// vector element up to a `double4`), an 8-byte address and a 4-byte mask.
pub(crate) fn scratch_size(w: u32) -> u32 {
    INACTIVE_BYTES + w * (32 + 8 + 4)
}

/// Offsets in the scratch slot of the lane values, addresses and masks.
fn spill_offsets(w: u32) -> (i32, i32, i32) {
    let values = INACTIVE_BYTES;
    let addrs = values + 32 * w;
    let masks = addrs + 8 * w;
    (values as i32, addrs as i32, masks as i32)
}

fn scratch() -> MemFlagsData {
    MemFlagsData::trusted()
}

fn mem() -> MemFlagsData {
    MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little)
}

/// Where the loop finds lane `j`'s address.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LaneAddrs {
    /// `first + j * size`.
    Affine(Value),
    /// Recomputed from the instructions defining this pointer, for the
    /// lane index at run time (see `FunctionCx::lane_scalar_dyn`).
    Recompute(ValueId),
    /// In the address pieces of the access.
    Pieces,
}

impl FunctionCx<'_, '_> {
    /// Loads one element of `s` per active lane from `addr` in a loop over
    /// the lanes; returns the varying value's pieces.
    pub fn cold_gather(
        &mut self,
        addr: &Lanes,
        lanes: LaneAddrs,
        s: Scalar,
    ) -> LResult<Vec<Value>> {
        let (values, _, _) = spill_offsets(self.kernel.w());
        // An 8- or 16-bit element is loaded extended into its 32-bit lane.
        let slot_size = if is_narrow(s) { 4 } else { s.size() };
        self.lane_loop(addr, lanes, slot_size, s.size(), |cx, at, slot| {
            let ins = cx.b.ins();
            let x = match s {
                Scalar::I8 => ins.sload8(types::I32, mem(), at, 0),
                Scalar::U8 => ins.uload8(types::I32, mem(), at, 0),
                Scalar::I16 => ins.sload16(types::I32, mem(), at, 0),
                Scalar::U16 | Scalar::F16 => ins.uload16(types::I32, mem(), at, 0),
                _ => ins.load(natural(s), mem(), at, 0),
            };
            cx.b.ins().store(scratch(), x, slot, values);
        })?;
        let d = self.dummy_addr()?;
        Ok((0..self.piece_count(s))
            .map(|i| {
                self.b
                    .ins()
                    .load(carrier(s), scratch(), d, values + 16 * i as i32)
            })
            .collect())
    }

    /// Stores lane `j` of `val` (elements of `s`) at lane `j`'s address of
    /// `addr`, for each active lane in lane order, in a loop over the lanes.
    pub fn cold_scatter(
        &mut self,
        addr: &Lanes,
        lanes: LaneAddrs,
        s: Scalar,
        val: &Lanes,
    ) -> LResult<()> {
        let (values, _, _) = spill_offsets(self.kernel.w());
        let d = self.dummy_addr()?;
        let pieces = self.varying(s, val);
        for (i, p) in pieces.iter().enumerate() {
            self.b.ins().store(scratch(), *p, d, values + 16 * i as i32);
        }
        let slot_size = if is_narrow(s) { 4 } else { s.size() };
        self.lane_loop(addr, lanes, slot_size, s.size(), |cx, at, slot| {
            if is_narrow(s) {
                let x = cx.b.ins().load(types::I32, scratch(), slot, values);
                if s.size() == 1 {
                    cx.b.ins().istore8(mem(), x, at, 0);
                } else {
                    cx.b.ins().istore16(mem(), x, at, 0);
                }
            } else {
                let x = cx.b.ins().load(natural(s), scratch(), slot, values);
                cx.b.ins().store(mem(), x, at, 0);
            }
        })
    }

    /// Loads `words` 32-bit words per active lane from `addr` (lanes
    /// `stride` bytes apart when affine) in a loop over the lanes; returns
    /// the pieces of word `k` of every lane for each `k` (`i32x4`).
    pub fn cold_gather_words(
        &mut self,
        addr: &Lanes,
        lanes: LaneAddrs,
        words: u32,
        stride: u32,
    ) -> LResult<Vec<Vec<Value>>> {
        let (values, _, _) = spill_offsets(self.kernel.w());
        let plane = (4 * self.kernel.w()) as i32;
        self.lane_loop(addr, lanes, 4, stride, |cx, at, slot| {
            for k in 0..words as i32 {
                let x = cx.b.ins().load(types::I32, mem(), at, 4 * k);
                cx.b.ins().store(scratch(), x, slot, values + k * plane);
            }
        })?;
        let d = self.dummy_addr()?;
        Ok((0..words as i32)
            .map(|k| {
                (0..self.kernel.w() as i32 / 4)
                    .map(|i| {
                        self.b
                            .ins()
                            .load(types::I32X4, scratch(), d, values + k * plane + 16 * i)
                    })
                    .collect()
            })
            .collect())
    }

    /// Stores word `k` of every active lane (the `i32x4` pieces
    /// `words[k]`) at `addr` + 4·`k` (lanes `stride` bytes apart when
    /// affine), in lane order, in a loop over the lanes.
    pub fn cold_scatter_words(
        &mut self,
        addr: &Lanes,
        lanes: LaneAddrs,
        words: &[Vec<Value>],
        stride: u32,
    ) -> LResult<()> {
        let (values, _, _) = spill_offsets(self.kernel.w());
        let plane = (4 * self.kernel.w()) as i32;
        let d = self.dummy_addr()?;
        for (k, pieces) in words.iter().enumerate() {
            for (i, p) in pieces.iter().enumerate() {
                let at = values + k as i32 * plane + 16 * i as i32;
                self.b.ins().store(scratch(), *p, d, at);
            }
        }
        let n = words.len() as i32;
        self.lane_loop(addr, lanes, 4, stride, |cx, at, slot| {
            for k in 0..n {
                let x =
                    cx.b.ins()
                        .load(types::I32, scratch(), slot, values + k * plane);
                cx.b.ins().store(mem(), x, at, 4 * k);
            }
        })
    }

    fn dummy_addr(&self) -> LResult<Value> {
        self.cache
            .dummy()
            .ok_or_else(|| self.internal("no scratch slot"))
    }

    /// The loop over the lanes: `access(at, slot)` per active lane, with
    /// `slot` the scratch slot `j · size` bytes in (`size` 4 or 8) and `at`
    /// lane `j`'s address (`first + j · stride` when affine; `stride` is a
    /// power of two: `size` times a power of two, or the 1 or 2 bytes of a
    /// narrow element carried in a 4-byte slot).
    fn lane_loop(
        &mut self,
        addr: &Lanes,
        lanes: LaneAddrs,
        size: u32,
        stride: u32,
        access: impl FnOnce(&mut Self, Value, Value),
    ) -> LResult<()> {
        if size != 4 && size != 8 || !stride.is_power_of_two() {
            return Err(self.internal(format!("lane loop over {size}-byte lanes {stride} apart")));
        }
        // Lane j's memory offset from its slot offset `j · size`.
        let shift = i64::from(stride.trailing_zeros()) - i64::from(size.trailing_zeros());
        let (_, addrs, masks) = spill_offsets(self.kernel.w());
        let d = self.dummy_addr()?;
        if let (LaneAddrs::Pieces, Lanes::Varying(pieces)) = (lanes, addr) {
            for (i, p) in pieces.iter().enumerate() {
                self.b.ins().store(scratch(), *p, d, addrs + 16 * i as i32);
            }
        }
        let all = i64::from(self.kernel.w()) * i64::from(size);
        // The loop runs over byte offsets `j * size` below `end`.
        let prefix = self.mask.is_entry_mask();
        let end = if prefix && !self.chunk_full {
            let env = self.env().clone();
            let left = self.b.ins().isub(env.group_size[0], env.x0);
            let w = self.b.ins().iconst(types::I64, i64::from(self.kernel.w()));
            let n = self.b.ins().umin(left, w);
            self.b.ins().imul_imm_s(n, i64::from(size))
        } else {
            if !prefix {
                let m = self.cur_mask();
                for (i, p) in m.iter().enumerate() {
                    self.b.ins().store(scratch(), *p, d, masks + 16 * i as i32);
                }
            }
            self.b.ins().iconst(types::I64, all)
        };
        let zero = self.b.ins().iconst(types::I64, 0);
        let (body, exit) = (self.b.create_block(), self.b.create_block());
        let off = self.b.append_block_param(body, types::I64);
        self.b.ins().jump(body, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(body);
        let at = match (lanes, addr) {
            (LaneAddrs::Affine(first), _) if shift == 0 => self.b.ins().iadd(first, off),
            (LaneAddrs::Affine(first), _) => {
                let o = if shift > 0 {
                    self.b.ins().ishl_imm_s(off, shift)
                } else {
                    self.b.ins().ushr_imm_s(off, -shift)
                };
                self.b.ins().iadd(first, o)
            }
            (LaneAddrs::Recompute(ptr), _) => {
                let j = self
                    .b
                    .ins()
                    .ushr_imm_s(off, i64::from(size.trailing_zeros()));
                self.lane_scalar_dyn(ptr, j)?
                    .ok_or_else(|| self.internal("lane address not recomputable"))?
            }
            (LaneAddrs::Pieces, Lanes::Uniform(a)) => *a,
            (LaneAddrs::Pieces, Lanes::Varying(_)) => {
                let o8 = if size == 8 {
                    off
                } else {
                    self.b.ins().ishl_imm_s(off, 1)
                };
                let p = self.b.ins().iadd(d, o8);
                self.b.ins().load(types::I64, scratch(), p, addrs)
            }
        };
        let at = if prefix {
            at
        } else {
            let o4 = if size == 4 {
                off
            } else {
                self.b.ins().ushr_imm_s(off, 1)
            };
            let p = self.b.ins().iadd(d, o4);
            let on = self.b.ins().load(types::I32, scratch(), p, masks);
            self.b.ins().select(on, at, d)
        };
        let slot = self.b.ins().iadd(d, off);
        access(self, at, slot);
        let next = self.b.ins().iadd_imm_s(off, i64::from(size));
        let done = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, next, end);
        self.b
            .ins()
            .brif(done, exit, &[], body, &[BlockArg::Value(next)]);
        self.b.seal_block(body);
        self.enter(exit);
        Ok(())
    }
}

//! Loads and stores of 2-, 3- and 4-component vectors of 32- and 64-bit
//! elements (`float2`, `float3`, `float4`, `int4`, `double2`, …) and of
//! packed narrow vectors (`uchar4`, …) by consecutive work-items.
//!
//! A chunk holds such a value component by component: one vector of lanes
//! per component (`x` of every lane, then `y`, …). In memory, consecutive
//! work-items' elements lie one after another, components interleaved
//! (`x0 y0 z0 w0 x1 y1 …`). Where the lanes' elements are consecutive and
//! every lane runs (the same run-time test as a consecutive scalar access,
//! [`FunctionCx::vector_plan`], on elements of the whole vector's size),
//! the chunk's elements are read as whole 128-bit pieces and regrouped by
//! shuffles, instead of one scalar access per lane and component:
//!
//! - four components: each four pieces (four lanes) are a 4 × 4 transpose,
//!   eight single-instruction interleaves (`punpck{l,h}dq`,
//!   `punpck{l,h}qdq` on x86-64); the transpose is its own inverse, so a
//!   store regroups the same way;
//! - two components: each two pieces (four lanes) split into their even and
//!   odd elements (`shufps`), and a store interleaves them again
//!   (`punpck{l,h}dq`);
//! - three components (`float3`, 16 bytes with its padding): as four, the
//!   fourth dropped on a load; a store reads the elements back first so
//!   that the padding keeps its bytes (`float3` addition over 4M items:
//!   ~8.8 → ~5.7 ms);
//! - 64-bit elements (`double2`/`double3`/`double4`, `long2`, …): a piece
//!   holds two components of one lane, so each two lanes' pieces pair up
//!   by 64-bit interleaves (`punpck{l,h}qdq`) (`double4` scaled over 2M
//!   items: ~6.2 → ~4.9 ms);
//! - narrow elements packed in one 32-bit word per item (`uchar4`, `char4`,
//!   `ushort2`, `short2`, `half2`): each piece is four items' words, a component a
//!   shift and a mask (two shifts when signed) away, and a store shifts
//!   and ors them back (an RGBA swizzle over 4M pixels: ~5.7 → ~0.7 ms).
//!
//! `vloadN`/`vstoreN` (N = 2, 4) at an offset the analysis expects to
//! rise by one per lane take the same paths after a run-time test of the
//! lanes' addresses (outside checked mode).
//!
//! Anything else (a partial chunk, lanes off, elements that turn out not to
//! be consecutive) reads or writes the elements' 32-bit words lane by lane
//! in the compact loop of `super::lane_loop` (a float3 store its three
//! components only), so a kernel's code does not grow by W unrolled lanes
//! per component on this cold path (`benches/nbody.cl`, six `float4`
//! accesses: 3,951 → 2,381 CLIF instructions).
//! `float4` vector addition over 4M items on two threads: ~10.0 → ~4.6–5.0
//! ms (the same bytes added as `float`s: ~3.6 ms).

use super::lane_loop::LaneAddrs;
use super::lanes::{carrier, Lanes, Val};
use super::{FunctionCx, LResult};
use crate::abi::AccessKind;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use vecl_ir::analysis::uniformity::Shape;
use vecl_ir::{Scalar, ValueId};

/// Whether a `comps`-component vector of `s` is read and written as whole
/// pieces when consecutive: 2, 3 or 4 components of a 32-bit type, or a
/// vector of narrow integers packed in 32 bits ([`packed`]).
pub(crate) fn interleavable(s: Scalar, comps: u32) -> bool {
    matches!(comps, 2..=4) && (matches!(s, Scalar::F32 | Scalar::I32 | Scalar::U32) || wide(s))
        || packed(s, comps)
}

/// Whether `s` is a 64-bit element (`double`, `long`, `ulong`): a piece
/// holds two lanes, and a lane's vector element fills whole pieces.
fn wide(s: Scalar) -> bool {
    matches!(s, Scalar::F64 | Scalar::I64 | Scalar::U64)
}

/// Bytes a `comps`-component vector of `s` takes in memory (a
/// three-component vector takes four components' room).
pub(crate) fn element_bytes(s: Scalar, comps: u32) -> u32 {
    s.size() * if comps == 3 { 4 } else { comps }
}

/// Whether a `comps`-component vector of `s` fills one 32-bit word:
/// `uchar4`, `char4`, `ushort2`, `short2`, `half2`. A piece of such elements holds
/// four lanes' words; a component is a shift and a mask (or two shifts,
/// signed) away.
pub(crate) fn packed(s: Scalar, comps: u32) -> bool {
    matches!(
        (s, comps),
        (Scalar::U8 | Scalar::I8, 4) | (Scalar::U16 | Scalar::I16 | Scalar::F16, 2)
    )
}

/// The integer type whose lanes a packed component's bits travel as:
/// `half` is its bits, zero-extended, as a `ushort`'s.
fn bits_of(s: Scalar) -> Scalar {
    if s == Scalar::F16 {
        Scalar::U16
    } else {
        s
    }
}

/// Byte indices of a shuffle picking 32-bit lanes `picks` (0–3 from the
/// first operand, 4–7 from the second).
fn lanes32(picks: [u8; 4]) -> [u8; 16] {
    let mut idx = [0u8; 16];
    for (i, p) in picks.iter().enumerate() {
        for b in 0..4 {
            idx[4 * i + b] = 4 * p + b as u8;
        }
    }
    idx
}

/// `[a0 b0 a1 b1]`.
const LOW_DWORDS: [u8; 4] = [0, 4, 1, 5];
/// `[a2 b2 a3 b3]`.
const HIGH_DWORDS: [u8; 4] = [2, 6, 3, 7];
/// `[a0 a1 b0 b1]`.
const LOW_QWORDS: [u8; 4] = [0, 1, 4, 5];
/// `[a2 a3 b2 b3]`.
const HIGH_QWORDS: [u8; 4] = [2, 3, 6, 7];
/// `[a0 a2 b0 b2]`.
const EVENS: [u8; 4] = [0, 2, 4, 6];
/// `[a1 a3 b1 b3]`.
const ODDS: [u8; 4] = [1, 3, 5, 7];

impl FunctionCx<'_, '_> {
    /// Two 32-bit-lane pieces shuffled by `picks`, as a piece of `s`.
    fn pick32(&mut self, s: Scalar, a: Value, b: Value, picks: [u8; 4]) -> Value {
        let r = self.shuffle_bytes(a, b, lanes32(picks));
        self.vcast(carrier(s), r)
    }

    /// The transpose of four pieces seen as a 4 × 4 matrix of 32-bit lanes.
    pub(super) fn transpose4(&mut self, s: Scalar, r: [Value; 4]) -> [Value; 4] {
        let t0 = self.pick32(s, r[0], r[1], LOW_DWORDS);
        let t1 = self.pick32(s, r[2], r[3], LOW_DWORDS);
        let t2 = self.pick32(s, r[0], r[1], HIGH_DWORDS);
        let t3 = self.pick32(s, r[2], r[3], HIGH_DWORDS);
        [
            self.pick32(s, t0, t1, LOW_QWORDS),
            self.pick32(s, t0, t1, HIGH_QWORDS),
            self.pick32(s, t2, t3, LOW_QWORDS),
            self.pick32(s, t2, t3, HIGH_QWORDS),
        ]
    }

    /// Component `c` of four lanes' packed words (`packed`), normalized
    /// as the lanes of `s` are (sign- or zero-extended).
    fn unpack(&mut self, s: Scalar, word: Value, c: u32) -> Value {
        let s = bits_of(s);
        let bits = 8 * s.size();
        let top = c * bits + bits == 32;
        if s.is_signed() {
            let low = i64::from(32 - bits - c * bits);
            let up = if low > 0 {
                self.b.ins().ishl_imm_s(word, low)
            } else {
                word
            };
            self.b.ins().sshr_imm_s(up, i64::from(32 - bits))
        } else if top {
            self.b.ins().ushr_imm_s(word, i64::from(c * bits))
        } else {
            let down = if c > 0 {
                self.b.ins().ushr_imm_s(word, i64::from(c * bits))
            } else {
                word
            };
            self.normalize(s, down)
        }
    }

    /// Four lanes' packed words from their components (normalized lanes).
    fn pack(&mut self, s: Scalar, parts: &[Value]) -> Value {
        let s = bits_of(s);
        let bits = 8 * s.size();
        let mut word: Option<Value> = None;
        for (c, &p) in parts.iter().enumerate() {
            let c = c as u32;
            let top = c * bits + bits == 32;
            // A signed lane carries its sign above its bits; the top
            // component's is shifted out.
            let p = if s.is_signed() && !top {
                self.normalize(s.unsigned_int_of_same_width(), p)
            } else {
                p
            };
            let p = if c > 0 {
                self.b.ins().ishl_imm_s(p, i64::from(c * bits))
            } else {
                p
            };
            word = Some(match word {
                Some(w) => self.b.ins().bor(w, p),
                None => p,
            });
        }
        word.expect("a packed vector has components")
    }

    /// Memory-order pieces of a chunk's elements → one list of pieces per
    /// component.
    fn deinterleave(&mut self, s: Scalar, memory: &[Value], comps: u32) -> Vec<Vec<Value>> {
        if wide(s) {
            // Two lanes at a time: lane 0's pieces, then lane 1's; each
            // piece holds two components.
            let per_lane = element_bytes(s, comps) as usize / 16;
            let mut out = vec![Vec::new(); 2 * per_lane];
            for pair in memory.chunks(2 * per_lane) {
                let (l0, l1) = pair.split_at(per_lane);
                for k in 0..per_lane {
                    out[2 * k].push(self.pick32(s, l0[k], l1[k], LOW_QWORDS));
                    out[2 * k + 1].push(self.pick32(s, l0[k], l1[k], HIGH_QWORDS));
                }
            }
            out.truncate(comps as usize);
            return out;
        }
        if packed(s, comps) {
            return (0..comps)
                .map(|c| memory.iter().map(|&w| self.unpack(s, w, c)).collect())
                .collect();
        }
        let slots = if comps == 3 { 4 } else { comps as usize };
        let mut out = vec![Vec::new(); slots];
        for group in memory.chunks(slots) {
            match *group {
                [a, b, c, d] => {
                    for (o, piece) in out.iter_mut().zip(self.transpose4(s, [a, b, c, d])) {
                        o.push(piece);
                    }
                }
                [a, b] => {
                    let x = self.pick32(s, a, b, EVENS);
                    let y = self.pick32(s, a, b, ODDS);
                    out[0].push(x);
                    out[1].push(y);
                }
                _ => unreachable!("interleaved groups have 2 or 4 pieces"),
            }
        }
        // A three-component vector's fourth is its padding.
        out.truncate(comps as usize);
        out
    }

    /// One list of pieces per component → the chunk's elements as pieces
    /// in memory order.
    fn interleave(&mut self, s: Scalar, components: &[Vec<Value>]) -> Vec<Value> {
        if wide(s) {
            let mut out = Vec::new();
            for i in 0..components[0].len() {
                let (mut l0, mut l1) = (Vec::new(), Vec::new());
                for pair in components.chunks(2) {
                    let [x, y] = pair else {
                        unreachable!("wide vectors have an even number of components")
                    };
                    l0.push(self.pick32(s, x[i], y[i], LOW_QWORDS));
                    l1.push(self.pick32(s, x[i], y[i], HIGH_QWORDS));
                }
                out.extend(l0);
                out.extend(l1);
            }
            return out;
        }
        if packed(s, components.len() as u32) {
            return (0..components[0].len())
                .map(|i| {
                    let parts: Vec<Value> = components.iter().map(|c| c[i]).collect();
                    self.pack(s, &parts)
                })
                .collect();
        }
        let mut out = Vec::new();
        for i in 0..components[0].len() {
            match components {
                [x, y, z, w] => out.extend(self.transpose4(s, [x[i], y[i], z[i], w[i]])),
                [x, y] => {
                    let lo = self.pick32(s, x[i], y[i], LOW_DWORDS);
                    let hi = self.pick32(s, x[i], y[i], HIGH_DWORDS);
                    out.extend([lo, hi]);
                }
                _ => unreachable!("interleaved values have 2 to 4 components"),
            }
        }
        out
    }

    /// A scatter of `float2`/`int2`/`uint2` or four-component elements of
    /// 32-bit scalars: the components interleaved into the elements'
    /// memory image as for a whole-chunk store, then one 8- or 16-byte
    /// store per lane in lane order (inactive lanes write the scratch
    /// slot), where a store per component and lane took two or four
    /// (`b[(t - k) * 2 + k] = u + w` in an FFT stage). A lane's element
    /// is written whole before the next lane's, as the work-items would
    /// one after the other. `false` (nothing emitted) for other shapes.
    pub(super) fn scatter_elements(&mut self, addr: &Lanes, s: Scalar, val: &Val) -> LResult<bool> {
        let comps = val.len();
        if !matches!(s, Scalar::F32 | Scalar::I32 | Scalar::U32) || !matches!(comps, 2 | 4) {
            return Ok(false);
        }
        let components: Vec<Vec<Value>> = val.iter().map(|l| self.varying(s, l)).collect();
        let memory = self.interleave(s, &components);
        let m = self.cur_mask();
        for j in 0..self.kernel.w() as usize {
            let a = self.lane_addr(addr, &m, j)?;
            let element = if comps == 4 {
                memory[j]
            } else {
                // Two lanes' elements per piece: lane j's is qword j % 2.
                let q = self.vcast(types::F64X2, memory[j / 2]);
                self.b.ins().extractlane(q, (j % 2) as u8)
            };
            self.b.ins().store(super::memory::mem(), element, a, 0);
        }
        Ok(true)
    }

    /// A load of a `comps`-component vector of `s` through the varying
    /// address `addr` (pieces `ap`) as whole pieces when the lanes'
    /// elements are consecutive; `None` when the address is not of a form
    /// that may be.
    pub(super) fn interleaved_load(
        &mut self,
        ptr: ValueId,
        addr: &Lanes,
        ap: &[Value],
        s: Scalar,
        comps: u32,
    ) -> LResult<Option<Val>> {
        if !interleavable(s, comps) {
            return Ok(None);
        }
        let Some((ok, first, lanes, _)) = self.vector_plan(ptr, ap, s, comps, true)? else {
            return Ok(None);
        };
        let ok = self.vector_test(
            ptr,
            ok,
            first,
            element_bytes(s, comps),
            AccessKind::Load,
            true,
        )?;
        self.pieces_or_lanes_load(Some(ptr), (ok, first, lanes), addr, s, comps)
            .map(Some)
    }

    /// `vloadN(offset, p)` (`addr` = `p + offset·N` elements) as whole
    /// pieces when `offset` is expected to rise by one from lane to lane,
    /// tested at run time on the addresses; `None` otherwise, and in
    /// checked mode.
    pub(crate) fn interleaved_vload(
        &mut self,
        offset: ValueId,
        addr: &Lanes,
        s: Scalar,
        comps: u32,
    ) -> LResult<Option<Val>> {
        let Some((ok, first)) = self.vdata_plan(offset, addr, s, comps) else {
            return Ok(None);
        };
        self.pieces_or_lanes_load(None, (ok, first, LaneAddrs::Pieces), addr, s, comps)
            .map(Some)
    }

    /// The test (an `i8`) and lane 0's address of a `vloadN`/`vstoreN` of
    /// `comps` elements of `s` at `addr` read or written as whole pieces.
    fn vdata_plan(
        &mut self,
        offset: ValueId,
        addr: &Lanes,
        s: Scalar,
        comps: u32,
    ) -> Option<(Value, Value)> {
        let Lanes::Varying(ap) = addr else {
            return None;
        };
        let expected = self.kernel.uni().shape(offset) == Shape::Linear(1);
        if !interleavable(s, comps) || comps == 3 || self.kernel.checks().is_some() || !expected {
            return None;
        }
        let first = self.b.ins().extractlane(ap[0], 0);
        let consecutive = self.lanes_consecutive(ap, first, element_bytes(s, comps));
        let full = self.mask_is_full();
        Some((self.b.ins().band(consecutive, full), first))
    }

    /// Where `ok`, the chunk's elements read as pieces from `first` on;
    /// else the elements' words lane by lane in a loop (`lanes`: where it
    /// finds the lanes' addresses). `ptr`: the load's address value, for
    /// prefetching and checked mode.
    fn pieces_or_lanes_load(
        &mut self,
        ptr: Option<ValueId>,
        (ok, first, lanes): (Value, Value, LaneAddrs),
        addr: &Lanes,
        s: Scalar,
        comps: u32,
    ) -> LResult<Val> {
        self.stats.interleaved_loads += 1;
        let per_component = self.piece_count(s);
        let n = per_component * comps as usize;
        // Pieces the chunk's elements fill in memory.
        let words = (self.kernel.w() * element_bytes(s, comps) / 16) as usize;
        let (slow, join) = self.fast_path(ok, n, carrier(s));
        if let Some(p) = ptr {
            self.prefetch_ahead(p, first, words);
        }
        let memory = self.load_chunk_pieces(carrier(s), first, words);
        let parts = self.deinterleave(s, &memory, comps);
        let args: Vec<BlockArg> = parts.concat().into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);

        self.enter(slow);
        self.check_access(ptr, addr, comps * s.size(), AccessKind::Load)?;
        let stride = element_bytes(s, comps);
        let gathered = if packed(s, comps) {
            let words = self.cold_gather_words(addr, lanes, 1, stride)?;
            self.deinterleave(s, &words[0], comps)
        } else if wide(s) {
            // Words 2c and 2c + 1 of each lane are component c's halves.
            let words = self.cold_gather_words(addr, lanes, 2 * comps, stride)?;
            words
                .chunks(2)
                .map(|halves| {
                    let mut pieces = Vec::new();
                    for (&lo, &hi) in halves[0].iter().zip(&halves[1]) {
                        pieces.push(self.pick32(s, lo, hi, LOW_DWORDS));
                        pieces.push(self.pick32(s, lo, hi, HIGH_DWORDS));
                    }
                    pieces
                })
                .collect()
        } else {
            let words = self.cold_gather_words(addr, lanes, comps, stride)?;
            words
                .into_iter()
                .map(|w| w.into_iter().map(|p| self.vcast(carrier(s), p)).collect())
                .collect()
        };
        let args: Vec<BlockArg> = gathered.concat().into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);

        self.enter(join);
        let params = self.b.block_params(join).to_vec();
        Ok(params
            .chunks(per_component)
            .map(|p| Lanes::Varying(p.to_vec()))
            .collect())
    }

    /// A store of `val`, a `comps`-component vector of `s`, through the
    /// varying address `addr` (pieces `ap`) as whole pieces when the
    /// lanes' elements are consecutive; `false` (nothing emitted) when the
    /// address is not of a form that may be.
    pub(super) fn interleaved_store(
        &mut self,
        ptr: ValueId,
        addr: &Lanes,
        ap: &[Value],
        s: Scalar,
        val: &Val,
    ) -> LResult<bool> {
        let comps = val.len() as u32;
        if !interleavable(s, comps) {
            return Ok(false);
        }
        let Some((ok, first, lanes, _)) = self.vector_plan(ptr, ap, s, comps, false)? else {
            return Ok(false);
        };
        let ok = self.vector_test(
            ptr,
            ok,
            first,
            element_bytes(s, comps),
            AccessKind::Store,
            false,
        )?;
        self.pieces_or_lanes_store(Some(ptr), (ok, first, lanes), addr, s, val)?;
        Ok(true)
    }

    /// `vstoreN(val, offset, p)` (`addr` = `p + offset·N` elements) as
    /// whole pieces when `offset` is expected to rise by one from lane to
    /// lane, tested at run time; `false` (nothing emitted) otherwise.
    pub(crate) fn interleaved_vstore(
        &mut self,
        offset: ValueId,
        addr: &Lanes,
        s: Scalar,
        val: &Val,
    ) -> LResult<bool> {
        let Some((ok, first)) = self.vdata_plan(offset, addr, s, val.len() as u32) else {
            return Ok(false);
        };
        self.pieces_or_lanes_store(None, (ok, first, LaneAddrs::Pieces), addr, s, val)?;
        Ok(true)
    }

    /// Where `ok`, the chunk's elements written as pieces from `first` on
    /// (streamed when `ptr`'s buffer streams); else the elements' words
    /// lane by lane in a loop, in lane order.
    fn pieces_or_lanes_store(
        &mut self,
        ptr: Option<ValueId>,
        (ok, first, lanes): (Value, Value, LaneAddrs),
        addr: &Lanes,
        s: Scalar,
        val: &Val,
    ) -> LResult<()> {
        self.stats.interleaved_stores += 1;
        let (slow, join) = self.fast_path(ok, 0, types::I8);
        let mut components: Vec<Vec<Value>> = val.iter().map(|l| self.varying(s, l)).collect();
        let three = components.len() == 3;
        if three {
            // The padding keeps what it holds: read back with the element.
            let n = (self.kernel.w() * element_bytes(s, 3) / 16) as usize;
            let old = self.load_chunk_pieces(carrier(s), first, n);
            let mut parts = self.deinterleave(s, &old, 4);
            components.push(parts.remove(3));
        }
        let memory = self.interleave(s, &components);
        // A streamed store would evict the lines just read back.
        self.store_chunk_pieces(ptr.filter(|_| !three), first, &memory, join);

        self.enter(slow);
        let comps = val.len() as u32;
        self.check_access(ptr, addr, comps * s.size(), AccessKind::Store)?;
        let components: Vec<Vec<Value>> = val.iter().map(|l| self.varying(s, l)).collect();
        let words: Vec<Vec<Value>> = if packed(s, comps) {
            vec![self.interleave(s, &components)]
        } else if wide(s) {
            // Each component's low and high words, four lanes a piece.
            let mut planes = Vec::new();
            for c in &components {
                let (mut lo, mut hi) = (Vec::new(), Vec::new());
                for pair in c.chunks(2) {
                    lo.push(self.pick32(Scalar::I32, pair[0], pair[1], EVENS));
                    hi.push(self.pick32(Scalar::I32, pair[0], pair[1], ODDS));
                }
                planes.push(lo);
                planes.push(hi);
            }
            planes
        } else {
            components
                .into_iter()
                .map(|c| c.into_iter().map(|p| self.vcast(types::I32X4, p)).collect())
                .collect()
        };
        self.cold_scatter_words(addr, lanes, &words, element_bytes(s, comps))?;
        self.b.ins().jump(join, &[]);
        self.enter(join);
        Ok(())
    }
}

//! Whole-chunk loads and stores of 8- and 16-bit elements (`char`,
//! `uchar`, `short`, `ushort`, `half`) by consecutive work-items.
//!
//! A chunk carries a narrow value in 32-bit lanes, sign- or zero-extended
//! (`half` as its bits, zero-extended; see [`super::lanes`]), but in memory
//! W consecutive work-items' elements are W × 1 or W × 2 bytes. Where
//! [`FunctionCx::vector_plan`] finds the lanes consecutive and every lane
//! running, the chunk's bytes are read as one piece per 16 bytes and
//! widened into the lanes (`pmovzx`/`pmovsx`, `punpck`), and written by
//! narrowing the lanes with byte shuffles (a truncation: Cranelift's
//! `snarrow`/`unarrow` saturate) and one store per 16 bytes, instead of
//! one scalar access per lane. A chunk of fewer than 16 bytes (W = 4 of
//! any narrow type, W = 8 of bytes) is one 4- or 8-byte access: never a
//! byte outside the chunk's own elements is read or written, so the
//! access may end at the last byte of a buffer.
//!
//! Partial chunks and lanes that are off take the per-lane path of the
//! 32-bit elements (`super::lane_loop`), and so does a chunk size that is
//! none of those (`narrow_chunk_fits`).

use super::lanes::carrier;
use super::memory::mem;
use super::FunctionCx;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use vecl_ir::Scalar;

/// Whether W consecutive elements of the narrow `s` make an access this
/// file emits: 4 or 8 bytes, or whole 16-byte pieces.
pub(crate) fn narrow_chunk_fits(s: Scalar, w: u32) -> bool {
    let bytes = s.size() * w;
    bytes == 4 || bytes == 8 || bytes.is_multiple_of(16)
}

/// Byte indices picking the low `bytes` bytes of each 32-bit lane of two
/// `i32x4` pieces, in lane order, packed at the front of the result (the
/// rest repeats the first picks; they are never stored).
fn low_bytes_of_lanes(bytes: u8) -> [u8; 16] {
    let mut idx = [0u8; 16];
    let per = 8 * bytes as usize;
    for (i, slot) in idx.iter_mut().enumerate() {
        let k = i % per;
        let (lane, b) = (k / bytes as usize, k % bytes as usize);
        *slot = (4 * lane + b) as u8;
    }
    idx
}

impl FunctionCx<'_, '_> {
    /// The chunk's W elements of the narrow `s` at `first`, widened into
    /// `i32x4` pieces (sign-extended when `s` is signed).
    pub(super) fn load_narrow_chunk(&mut self, s: Scalar, first: Value) -> Vec<Value> {
        let w = self.kernel.w() as usize;
        let bytes = s.size() as usize * w;
        let signed = s.is_signed() && !s.is_float();
        let raw_ty = if s.size() == 1 {
            types::I8X16
        } else {
            types::I16X8
        };
        // The chunk's bytes, 16 at a time (the last vector's upper half
        // undefined when the chunk is shorter).
        let raw: Vec<Value> = if bytes >= 16 {
            (0..bytes / 16)
                .map(|i| self.b.ins().load(raw_ty, mem(), first, (16 * i) as i32))
                .collect()
        } else {
            let it = if bytes == 8 { types::I64 } else { types::I32 };
            let x = self.b.ins().load(it, mem(), first, 0);
            let v = self
                .b
                .ins()
                .scalar_to_vector(it.by(128 / it.bits()).unwrap(), x);
            vec![self.vcast(raw_ty, v)]
        };
        let mut out = Vec::with_capacity(w / 4);
        for r in raw {
            let lanes = (16 / s.size() as usize).min(w);
            self.widen_into(r, signed, lanes, &mut out);
        }
        out
    }

    /// Widens the first `lanes` lanes of the 8- or 16-bit vector `v` to
    /// 32-bit lanes, appended to `out` as `i32x4` pieces; only the halves
    /// that hold wanted lanes are widened.
    fn widen_into(&mut self, v: Value, signed: bool, lanes: usize, out: &mut Vec<Value>) {
        let ty = self.b.func.dfg.value_type(v);
        if ty.lane_bits() == 32 {
            out.push(v);
            return;
        }
        let half = ty.lane_count() as usize / 2;
        let low = if signed {
            self.b.ins().swiden_low(v)
        } else {
            self.b.ins().uwiden_low(v)
        };
        self.widen_into(low, signed, lanes.min(half), out);
        if lanes > half {
            let high = if signed {
                self.b.ins().swiden_high(v)
            } else {
                self.b.ins().uwiden_high(v)
            };
            self.widen_into(high, signed, lanes - half, out);
        }
    }

    /// The low 1 or 2 bytes of each lane of `pieces` (`i32x4`, W lanes),
    /// packed in lane order into 16-byte vectors; the last one holds
    /// fewer when the chunk is shorter than 16 bytes.
    fn narrow_bytes(&mut self, s: Scalar, pieces: &[Value]) -> Vec<Value> {
        let size = s.size() as u8;
        let idx = low_bytes_of_lanes(size);
        // Each pair of pieces (eight lanes) → 8 × size bytes at the front.
        let pairs: Vec<Value> = pieces
            .chunks(2)
            .map(|p| {
                let b = *p.get(1).unwrap_or(&p[0]);
                self.shuffle_bytes(p[0], b, idx)
            })
            .collect();
        if size == 2 {
            return pairs;
        }
        // Bytes: each two pairs' 8-byte fronts → one 16-byte vector.
        let mut front = [0u8; 16];
        for (i, f) in front.iter_mut().enumerate() {
            *f = if i < 8 { i as u8 } else { 8 + i as u8 };
        }
        pairs
            .chunks(2)
            .map(|p| {
                let b = *p.get(1).unwrap_or(&p[0]);
                self.shuffle_bytes(p[0], b, front)
            })
            .collect()
    }

    /// Stores the chunk's W lanes of the narrow `s` (`i32x4` pieces) as
    /// W consecutive elements at `first`, then jumps to `join`; streamed
    /// as the 32-bit stores are where `ptr`'s buffer streams.
    pub(super) fn store_narrow_chunk(
        &mut self,
        ptr: Option<vecl_ir::ValueId>,
        s: Scalar,
        first: Value,
        pieces: &[Value],
        join: cranelift_codegen::ir::Block,
    ) {
        let bytes = s.size() * self.kernel.w();
        let packed = self.narrow_bytes(s, pieces);
        if bytes >= 16 {
            let packed: Vec<Value> = packed
                .into_iter()
                .map(|v| self.vcast(carrier(Scalar::I32), v))
                .collect();
            self.store_chunk_pieces(ptr, first, &packed, join);
            return;
        }
        let (vt, it) = if bytes == 8 {
            (types::I64X2, types::I64)
        } else {
            (types::I32X4, types::I32)
        };
        let v = self.vcast(vt, packed[0]);
        let x = self.b.ins().extractlane(v, 0);
        debug_assert_eq!(self.b.func.dfg.value_type(x), it);
        self.b.ins().store(mem(), x, first, 0);
        self.b.ins().jump(join, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_low_bytes_of_each_lane() {
        assert_eq!(
            low_bytes_of_lanes(2),
            [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29]
        );
        assert_eq!(
            low_bytes_of_lanes(1),
            [0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28]
        );
    }

    #[test]
    fn chunk_sizes_with_an_access() {
        assert!(narrow_chunk_fits(Scalar::U8, 4));
        assert!(narrow_chunk_fits(Scalar::F16, 4));
        assert!(narrow_chunk_fits(Scalar::I8, 16));
        assert!(narrow_chunk_fits(Scalar::I16, 32));
        assert!(!narrow_chunk_fits(Scalar::U8, 12));
        assert!(!narrow_chunk_fits(Scalar::I16, 12));
    }
}

//! Addresses, loads, stores, copies and atomics under the active mask.
//!
//! Accesses are classified per address: uniform (one scalar access),
//! consecutive (one vector access per 128-bit piece — taken only when the
//! mask is full and the lane addresses are checked to be consecutive at run
//! time; otherwise the lanes in a loop, see [`super::lane_loop`]), or
//! arbitrary (one scalar access per lane, unrolled). A lane that is not
//! active never touches its own address: its access is redirected to a
//! scratch slot of the entry frame, so no branch per lane is needed and no
//! memory another work-item may own is ever read-modified-written.

use super::lane_loop::LaneAddrs;
use super::lanes::{carrier, elem_of, is_narrow, little, natural, Lanes, Val};
use super::{FunctionCx, LResult};
use crate::abi::AccessKind;
use crate::layout::GlobalPlace;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AtomicRmwOp, BlockArg, ConstantData, InstBuilder, MemFlagsData, Value,
};
use cranelift_module::Module as _;
use vecl_ir::analysis::uniformity::Shape;
use vecl_ir::{AddressSpace, AtomicOp, GlobalId, Scalar, SlotId, Type, ValueId};

pub(super) fn mem() -> MemFlagsData {
    MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little)
}

impl FunctionCx<'_, '_> {
    /// Branches on `ok` to a fast block, entered on return, and a slow
    /// one; both end by jumping to the join block, which takes `params`
    /// values of type `ty`. Returns `(slow, join)`.
    pub(super) fn fast_path(
        &mut self,
        ok: Value,
        params: usize,
        ty: types::Type,
    ) -> (cranelift_codegen::ir::Block, cranelift_codegen::ir::Block) {
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for _ in 0..params {
            self.b.append_block_param(join, ty);
        }
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.enter(fast);
        (slow, join)
    }

    /// `n` 128-bit pieces of type `ty` from `first` on.
    pub(super) fn load_chunk_pieces(
        &mut self,
        ty: types::Type,
        first: Value,
        n: usize,
    ) -> Vec<Value> {
        (0..n)
            .map(|i| self.b.ins().load(ty, mem(), first, (i * 16) as i32))
            .collect()
    }

    /// Stores `pieces` from `first` on, streamed past the caches on large
    /// launches when `ptr`'s buffer streams (`super::stream`), then jumps
    /// to `join`.
    pub(super) fn store_chunk_pieces(
        &mut self,
        ptr: Option<ValueId>,
        first: Value,
        pieces: &[Value],
        join: cranelift_codegen::ir::Block,
    ) {
        if ptr.is_some_and(|p| self.streams(p, pieces.len())) {
            self.stream_pieces(first, pieces, join);
        }
        for (i, p) in pieces.iter().enumerate() {
            self.b.ins().store(mem(), *p, first, (i * 16) as i32);
        }
        self.b.ins().jump(join, &[]);
    }
}

impl FunctionCx<'_, '_> {
    pub fn lower_slot_addr(&mut self, s: SlotId) -> LResult<Val> {
        let (off, stride) = (
            self.kernel.private().offsets[s.index()],
            self.kernel.private().strides[s.index()],
        );
        let base = self
            .private_base
            .ok_or_else(|| self.internal("private memory without a base"))?;
        let b = self.b.ins().iadd_imm_s(base, i64::from(off));
        let bs = self.b.ins().splat(types::I64X2, b);
        // Lane j's copy is `j * stride` bytes further: constant offsets (an
        // `i64x2` multiply is a long sequence on x86-64 without AVX-512).
        let pieces = (0..self.kernel.w() as usize / 2)
            .map(|i| self.lane_offsets(bs, i, stride))
            .collect();
        Ok(vec![Lanes::Varying(pieces)])
    }

    /// `i64x2` piece `i` of `base + lane * step` (`base` splatted).
    fn lane_offsets(&mut self, base: Value, i: usize, step: u32) -> Value {
        let offsets: Vec<u8> = (0..2u64)
            .flat_map(|l| ((2 * i as u64 + l) * u64::from(step)).to_le_bytes())
            .collect();
        let c = self
            .b
            .func
            .dfg
            .constants
            .insert(ConstantData::from(offsets));
        let k = self.b.ins().vconst(types::I64X2, c);
        self.b.ins().iadd(base, k)
    }

    pub fn lower_global_addr(&mut self, g: GlobalId) -> LResult<Val> {
        let place = self
            .kernel
            .places()
            .get(g.index())
            .cloned()
            .flatten()
            .ok_or_else(|| self.internal("unplaced global"))?;
        let v = match place {
            GlobalPlace::Local(off) => {
                let base = self.env().local_mem;
                self.b.ins().iadd_imm_s(base, i64::from(off))
            }
            GlobalPlace::Data(off) => self
                .b
                .ins()
                .iconst(types::I64, (self.kernel.data_base() + off as u64) as i64),
        };
        Ok(vec![Lanes::Uniform(v)])
    }

    /// `p + i * size` (size defaults to the pointee's).
    pub fn lower_index(&mut self, p: ValueId, i: ValueId, size: Option<u32>) -> LResult<Val> {
        let size = match size {
            Some(s) => s,
            None => {
                let pointee = self
                    .kernel
                    .func()
                    .ty(p)
                    .pointee()
                    .cloned()
                    .unwrap_or(Type::Void);
                self.kernel.module().size_of(&pointee)
            }
        };
        let is = self.elem(i)?;
        let (pl, il) = (self.scalar(p)?, self.scalar(i)?);
        let idx = self.convert(
            &il,
            is,
            if is.is_signed() {
                Scalar::I64
            } else {
                Scalar::U64
            },
            false,
            Default::default(),
        )?;
        let off = match &idx {
            Lanes::Uniform(x) => Lanes::Uniform(self.b.ins().imul_imm_s(*x, i64::from(size))),
            Lanes::Varying(ps) => Lanes::Varying(
                ps.iter()
                    .map(|x| {
                        if size.is_power_of_two() {
                            self.b
                                .ins()
                                .ishl_imm_s(*x, i64::from(size.trailing_zeros()))
                        } else {
                            let k = self.b.ins().iconst(types::I64, i64::from(size));
                            let ks = self.b.ins().splat(types::I64X2, k);
                            self.b.ins().imul(*x, ks)
                        }
                    })
                    .collect(),
            ),
        };
        Ok(vec![self.binary(
            vecl_ir::BinaryOp::Add,
            Scalar::U64,
            &pl,
            &off,
        )?])
    }

    pub fn lower_field(&mut self, p: ValueId, n: u32) -> LResult<Val> {
        let off = match self.kernel.func().ty(p).pointee() {
            Some(Type::Struct(id)) => self
                .kernel
                .module()
                .structs
                .get(id.0 as usize)
                .and_then(|s| s.fields.get(n as usize))
                .map(|f| f.offset)
                .ok_or_else(|| self.internal("field out of range"))?,
            other => return Err(self.internal(format!("field of a pointer to {other:?}"))),
        };
        let pl = self.scalar(p)?;
        let k = self.b.ins().iconst(types::I64, i64::from(off));
        Ok(vec![self.binary(
            vecl_ir::BinaryOp::Add,
            Scalar::U64,
            &pl,
            &Lanes::Uniform(k),
        )?])
    }

    fn dummy(&self) -> LResult<Value> {
        self.cache
            .dummy()
            .ok_or_else(|| self.internal("no scratch slot"))
    }

    /// Lane `j`'s address, or the scratch slot when the lane is inactive.
    pub(super) fn lane_addr(&mut self, addr: &Lanes, mask: &[Value], j: usize) -> LResult<Value> {
        self.lane_addr_of(None, addr, mask, j)
    }

    /// [`Self::lane_addr`] for the address `ptr`: recomputed as a scalar
    /// from the instructions that define it where the chain allows
    /// ([`super::linear`]), any varying value in it read from its own
    /// lane (`&bins[data[i]]`: one `i32` lane, widened and scaled). The
    /// `i64x2` address vectors are then not used, so not computed: for
    /// `histogram` 16.9 M → 13.8 M instructions per launch. Not for loads
    /// of several components, which would recompute it per component.
    fn lane_addr_of(
        &mut self,
        ptr: Option<ValueId>,
        addr: &Lanes,
        mask: &[Value],
        j: usize,
    ) -> LResult<Value> {
        let recomputed = match ptr {
            Some(p) => self.try_lane_scalar(p, j as u32)?,
            None => None,
        };
        let a = match recomputed {
            Some(x) => x,
            None => self.lane(Scalar::U64, addr, j),
        };
        // In a full chunk outside divergent code every lane is running.
        if self.chunk_full && self.mask.is_entry_mask() {
            return Ok(a);
        }
        let on = self.lane_active(mask, j);
        let d = self.dummy()?;
        Ok(self.b.ins().select(on, a, d))
    }

    /// Decides whether a varying access of `comps` elements of `s` at
    /// `ptr` may be done as whole vectors and emits the run-time test.
    ///
    /// - Address analysed as consecutive (`Linear(size)`): lane 0's address
    ///   is recomputed as a scalar (see [`super::linear`]). Without any
    ///   wrap-around point in its chain it is consecutive by construction;
    ///   with one, lane W-1's address is recomputed too and their distance
    ///   checked; with more, every lane is compared.
    /// - Address the analysis calls varying but that is derived from a
    ///   linear value (`in[clamp(x + dx, 0, w - 1)]`): every lane's address
    ///   is compared with lane 0's plus its offset; most chunks pass.
    ///
    /// Either way the mask must be full. Returns the test (`i8`), lane 0's
    /// address, and where the cold per-lane loop finds the lanes' addresses
    /// (`first + lane * size` without a wrap-around point, else recomputed
    /// per lane when the chain allows, else the address pieces).
    ///
    /// A load from `__local` memory under divergence needs no full mask:
    /// the vector only has to lie in the group's arena, where an inactive
    /// lane's element is some work-item's data of this group, read and
    /// dropped (the tree reduction's `if (lid < s) x[lid] += x[lid + s]`
    /// with `s` below W).
    ///
    /// Also returned: the test that the lanes are consecutive, on its own
    /// (`None` when they are by construction), for a store that may blend.
    #[allow(clippy::type_complexity)]
    pub(super) fn vector_plan(
        &mut self,
        ptr: ValueId,
        addr: &[Value],
        s: Scalar,
        comps: u32,
        load: bool,
    ) -> LResult<Option<(Value, Value, LaneAddrs, Option<Value>)>> {
        let whole = comps != 1 && super::interleaved::interleavable(s, comps);
        // 8- and 16-bit elements: `super::narrow`.
        let narrow_ok = !is_narrow(s) || super::narrow::narrow_chunk_fits(s, self.kernel.w());
        if !whole && (comps != 1 || !narrow_ok || s == Scalar::Bool) {
            return Ok(None);
        }
        // The element of a vector type is the whole vector (see
        // `super::interleaved`).
        let size = super::interleaved::element_bytes(s, comps);
        let linear = match self.kernel.uni().shape(ptr) {
            Shape::Linear(k) if k == i64::from(size) => true,
            Shape::Varying if self.derives_from_linear(ptr, !self.mask.in_loop()) => false,
            _ => return Ok(None),
        };
        let wraps = if linear { self.wrap_points(ptr) } else { None };
        let (spaced, first) = match wraps {
            // Wrapping 64-bit arithmetic only: `first + lane * size` exactly.
            Some(0) => (None, self.lane_scalar(ptr, 0)?),
            // One wrap-around point on a consecutive chain, or an index that
            // rises by at most one element from lane to lane
            // (`in[clamp(x + dx, 0, w - 1)]`, `slot[(lid + 1) % n]`;
            // `FunctionCx::index_steps`): consecutive exactly when the last
            // lane is W - 1 elements above the first.
            w if w == Some(1) || self.steps_by_at_most_one(ptr, size) => {
                let first = self.lane_scalar(ptr, 0)?;
                let last = self.lane_scalar(ptr, self.kernel.w() - 1)?;
                let span = self.b.ins().isub(last, first);
                let want = i64::from(size) * (i64::from(self.kernel.w()) - 1);
                let ok = self.b.ins().icmp_imm_s(IntCC::Equal, span, want);
                (Some(ok), first)
            }
            _ => match self.consecutive_int_index(ptr, size)? {
                Some((ok, first)) => (Some(ok), first),
                None => {
                    let first = if linear {
                        self.lane_scalar(ptr, 0)?
                    } else {
                        self.b.ins().extractlane(addr[0], 0)
                    };
                    (Some(self.lanes_consecutive(addr, first, size)), first)
                }
            },
        };
        let full = if load && self.masked_local_load(ptr) {
            // Reading lanes that are not running is harmless where the
            // memory is there: in the arena or its padding. Checked code
            // then tests only the running lanes' span
            // (`FunctionCx::and_load_fits`).
            self.in_local_arena(first, size * self.kernel.w(), crate::abi::LOCAL_PAD as u32)
        } else {
            self.mask_is_full()
        };
        let (ok, lanes) = match spaced {
            Some(x) => {
                let lanes = if self.recomputes_any_lane(ptr) {
                    LaneAddrs::Recompute(ptr)
                } else {
                    LaneAddrs::Pieces
                };
                (self.b.ins().band(x, full), lanes)
            }
            None => (full, LaneAddrs::Affine(first)),
        };
        Ok(Some((ok, first, lanes, spaced)))
    }

    /// Whether a load through `ptr` is a `__local` load under a mask that
    /// may be partial: its vector path may read lanes that are not
    /// running anywhere in the padded arena.
    pub(super) fn masked_local_load(&self, ptr: ValueId) -> bool {
        matches!(
            self.kernel.func().ty(ptr),
            Type::Pointer(AddressSpace::Local, _)
        ) && !self.mask.is_entry_mask()
    }

    /// Whether `[first, first + bytes)` lies in the group's `__local`
    /// arena widened by `pad` bytes on each side, `[local_mem - pad,
    /// local_mem + Launch::local_mem_size + pad)` (an `i8`); `pad` is 0 or
    /// the padding the caller provides, `abi::LOCAL_PAD`.
    fn in_local_arena(&mut self, first: Value, bytes: u32, pad: u32) -> Value {
        let env = self.env().clone();
        let size = self.b.ins().load(
            types::I64,
            super::invariant(),
            env.launch,
            crate::abi::launch_offsets::LOCAL_MEM_SIZE,
        );
        // `first - local_mem + pad < size + 2 pad - bytes + 1`, with a bound
        // of 0 when the span is smaller than the vector: one compare per
        // access, the bound being loop-invariant.
        let reach = 2 * i64::from(pad) - i64::from(bytes);
        let bound = self.b.ins().iadd_imm_s(size, reach + 1);
        let bound = if reach < 0 {
            let big_enough =
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, size, -reach);
            let zero = self.b.ins().iconst(types::I64, 0);
            self.b.ins().select(big_enough, bound, zero)
        } else {
            bound
        };
        let off = self.b.ins().isub(first, env.local_mem);
        let off = self.b.ins().iadd_imm_s(off, i64::from(pad));
        self.b.ins().icmp(IntCC::UnsignedLessThan, off, bound)
    }

    /// Whether `ptr` is a uniform base indexed in elements of `size` bytes
    /// by an integer that rises by at most one from lane to lane and stays
    /// small enough that a span of W lanes is exact (`index_is_small`).
    fn steps_by_at_most_one(&self, ptr: ValueId, size: u32) -> bool {
        let (p, i, elem) = match self.kernel.func().inst(ptr).inst {
            vecl_ir::Inst::Index(p, i) => {
                let pointee = self
                    .kernel
                    .func()
                    .ty(p)
                    .pointee()
                    .cloned()
                    .unwrap_or(Type::Void);
                (p, i, self.kernel.module().size_of(&pointee))
            }
            vecl_ir::Inst::Elem(p, i) => match self.kernel.func().ty(p).pointee() {
                Some(Type::Array(e, _)) => (p, i, self.kernel.module().size_of(e)),
                _ => return false,
            },
            _ => return false,
        };
        self.kernel.uni().shape(p) == Shape::Uniform
            && elem == size
            && self.index_is_small(i)
            && self.index_steps(i).is_some()
    }

    /// The test under which a consecutive `__local` store whose mask is not
    /// full may still be one vector store, the lanes not running keeping
    /// what they hold: the lanes are consecutive and the vector lies in the
    /// group's arena. Only this thread runs the group, and no other lane of
    /// the store writes an inactive lane's element, so loading the vector,
    /// blending in the running lanes and storing it back changes nothing
    /// else (the tree reduction's `if (lid < s) x[lid] += x[lid + s]` with
    /// `s` below W, which was a loop over the lanes). `None` where that does
    /// not hold or the mask is full anyway.
    fn blended_store_test(
        &mut self,
        ptr: ValueId,
        s: Scalar,
        first: Value,
        spaced: Option<Value>,
    ) -> Option<Value> {
        let local = matches!(
            self.kernel.func().ty(ptr),
            Type::Pointer(AddressSpace::Local, _)
        );
        if !local || self.mask.is_entry_mask() {
            return None;
        }
        let inside = self.in_local_arena(first, s.size() * self.kernel.w(), 0);
        Some(match spaced {
            Some(x) => self.b.ins().band(x, inside),
            None => inside,
        })
    }

    /// Whether every lane of the chunk is running (an `i8`). Outside
    /// divergent control, in a kernel without returns, the running lanes
    /// are the chunk's, so a scalar test of the chunk's length does and
    /// the mask vectors are not needed.
    pub(super) fn mask_is_full(&mut self) -> Value {
        if self.mask.is_entry_mask() {
            if self.chunk_full {
                return self.b.ins().iconst(types::I8, 1);
            }
            let env = self.env().clone();
            let left = self.b.ins().isub(env.group_size[0], env.x0);
            return self.b.ins().icmp_imm_s(
                IntCC::UnsignedGreaterThanOrEqual,
                left,
                i64::from(self.kernel.w()),
            );
        }
        let m = self.cur_mask();
        self.mask_all(&m)
    }

    /// For `p[i]` with a uniform `p` and a 32-bit `i` (or `i` widened to
    /// 64 bits) of elements of `size` bytes: whether the `i32x4` pieces of `i` are `i0 + lane` in
    /// every lane without overflowing (so the addresses are consecutive),
    /// tested on the index itself — half the pieces of the addresses, and
    /// the address vectors stay off the fast path. Returns the test and
    /// lane 0's address; `None` when the address is not of that form.
    fn consecutive_int_index(
        &mut self,
        ptr: ValueId,
        size: u32,
    ) -> LResult<Option<(Value, Value)>> {
        let vecl_ir::Inst::Index(p, i) = self.kernel.func().inst(ptr).inst else {
            return Ok(None);
        };
        // The front end widens `int` indices to 64 bits first: look through
        // the (exact) widening to the 32-bit lanes.
        let i = match self.kernel.func().inst(i).inst {
            vecl_ir::Inst::Convert { value, .. }
                if matches!(self.elem(i)?, Scalar::I64 | Scalar::U64) =>
            {
                value
            }
            _ => i,
        };
        let is = self.elem(i)?;
        let pointee = self
            .kernel
            .func()
            .ty(p)
            .pointee()
            .cloned()
            .unwrap_or(Type::Void);
        let (Some(pv), Some(iv)) = (self.lowered(p), self.lowered(i)) else {
            return Ok(None);
        };
        let (Some(Lanes::Uniform(base)), Some(Lanes::Varying(pieces))) =
            (pv.into_iter().next(), iv.into_iter().next())
        else {
            return Ok(None);
        };
        if !matches!(is, Scalar::I32 | Scalar::U32)
            || self.kernel.module().size_of(&pointee) != size
        {
            return Ok(None);
        }
        let i0 = self.b.ins().extractlane(pieces[0], 0);
        let start = self.b.ins().splat(types::I32X4, i0);
        let iota = self.cache.iota32().to_vec();
        let mut all: Option<Value> = None;
        for (piece, k) in pieces.iter().zip(&iota) {
            let want = self.b.ins().iadd(start, *k);
            let eq = self.b.ins().icmp(IntCC::Equal, *piece, want);
            all = Some(match all {
                Some(a) => self.b.ins().band(a, eq),
                None => eq,
            });
        }
        let Some(all) = all else {
            return Ok(None);
        };
        let same = self.b.ins().vall_true(all);
        // Lane W-1's index, i0 + W-1, must not wrap around.
        let last_ok = i64::from(self.kernel.w()) - 1;
        let (cc, max) = if is == Scalar::I32 {
            (IntCC::SignedLessThanOrEqual, i64::from(i32::MAX) - last_ok)
        } else {
            (
                IntCC::UnsignedLessThanOrEqual,
                i64::from(u32::MAX) - last_ok,
            )
        };
        let max = self.b.ins().iconst(types::I32, max);
        let no_wrap = self.b.ins().icmp(cc, i0, max);
        let ok = self.b.ins().band(same, no_wrap);
        let wide = if is == Scalar::I32 {
            self.b.ins().sextend(types::I64, i0)
        } else {
            self.b.ins().uextend(types::I64, i0)
        };
        let off = self.b.ins().imul_imm_s(wide, i64::from(size));
        let first = self.b.ins().iadd(base, off);
        Ok(Some((ok, first)))
    }

    /// Whether `i64x2` address pieces are `first + lane * size` in every lane.
    pub(super) fn lanes_consecutive(&mut self, addr: &[Value], first: Value, size: u32) -> Value {
        let base = self.b.ins().splat(types::I64X2, first);
        let mut all: Option<Value> = None;
        for (i, piece) in addr.iter().enumerate() {
            let want = self.lane_offsets(base, i, size);
            let eq = self.b.ins().icmp(IntCC::Equal, *piece, want);
            all = Some(match all {
                Some(a) => self.b.ins().band(a, eq),
                None => eq,
            });
        }
        match all {
            Some(a) => self.b.ins().vall_true(a),
            None => self.b.ins().iconst(types::I8, 0),
        }
    }

    pub fn lower_load(&mut self, ptr: ValueId, ty: &Type) -> LResult<Val> {
        let s = elem_of(ty).ok_or_else(|| self.unsupported(format!("load of {ty:?}")))?;
        let comps = ty.lanes();
        let addr = self.scalar(ptr)?;
        let esize = s.size() as i32;
        match &addr {
            Lanes::Uniform(a) => {
                self.check_access(Some(ptr), &addr, comps * s.size(), AccessKind::Load)?;
                self.stats.uniform_loads += 1;
                Ok((0..comps)
                    .map(|c| {
                        Lanes::Uniform(self.b.ins().load(natural(s), mem(), *a, c as i32 * esize))
                    })
                    .collect())
            }
            Lanes::Varying(ap) if comps > 1 => {
                if let Some(v) = self.interleaved_load(ptr, &addr, ap, s, comps)? {
                    return Ok(v);
                }
                self.check_access(Some(ptr), &addr, comps * s.size(), AccessKind::Load)?;
                self.stats.gathers += 1;
                (0..comps)
                    .map(|c| {
                        Ok(Lanes::Varying(self.gather(
                            None,
                            &addr,
                            s,
                            c as i32 * esize,
                        )?))
                    })
                    .collect()
            }
            Lanes::Varying(ap) => {
                if let Some((ok, first, lanes, _)) = self.vector_plan(ptr, ap, s, comps, true)? {
                    let ok = self.vector_test(ptr, ok, first, s.size(), AccessKind::Load, true)?;
                    self.stats.vector_loads += 1;
                    let n = self.piece_count(s);
                    let (slow, join) = self.fast_path(ok, n, carrier(s));
                    let loaded = if is_narrow(s) {
                        let bytes = (s.size() * self.kernel.w()) as usize;
                        self.prefetch_ahead(ptr, first, bytes.div_ceil(16));
                        self.load_narrow_chunk(s, first)
                    } else {
                        self.prefetch_ahead(ptr, first, n);
                        self.load_chunk_pieces(carrier(s), first, n)
                    };
                    let vals: Vec<BlockArg> = loaded.into_iter().map(BlockArg::Value).collect();
                    self.b.ins().jump(join, &vals);
                    self.enter(slow);
                    self.check_access(Some(ptr), &addr, s.size(), AccessKind::Load)?;
                    let g = self.cold_gather(&addr, lanes, s)?;
                    let args: Vec<BlockArg> = g.iter().map(|v| BlockArg::Value(*v)).collect();
                    self.b.ins().jump(join, &args);
                    self.enter(join);
                    return Ok(vec![Lanes::Varying(self.b.block_params(join).to_vec())]);
                }
                self.check_access(Some(ptr), &addr, comps * s.size(), AccessKind::Load)?;
                self.stats.gathers += 1;
                (0..comps)
                    .map(|c| {
                        Ok(Lanes::Varying(self.gather(
                            (comps == 1).then_some(ptr),
                            &addr,
                            s,
                            c as i32 * esize,
                        )?))
                    })
                    .collect()
            }
        }
    }

    /// One scalar load per lane (inactive lanes read the scratch slot).
    fn gather(
        &mut self,
        ptr: Option<ValueId>,
        addr: &Lanes,
        s: Scalar,
        offset: i32,
    ) -> LResult<Vec<Value>> {
        let m = self.cur_mask();
        let mut vals = Vec::with_capacity(self.kernel.w() as usize);
        for j in 0..self.kernel.w() as usize {
            let a = self.lane_addr_of(ptr, addr, &m, j)?;
            vals.push(self.load_lane(s, a, offset));
        }
        Ok(self.build(s, &vals))
    }

    /// One lane's element. An 8- or 16-bit integer is loaded extended to
    /// 64 bits (`movzx`/`movsx`, one instruction) and narrowed, and the
    /// wide value is remembered ([`super::ValueMaps::widened`]): a widening of
    /// the lane (`(size_t)data[i]`) then costs nothing, where a load of
    /// the narrow type and an extension of it were two instructions
    /// (`benches/histogram.cl`'s byte per lane and trip).
    fn load_lane(&mut self, s: Scalar, a: Value, offset: i32) -> Value {
        let ins = self.b.ins();
        let wide = match s {
            Scalar::U8 => ins.uload8(types::I64, mem(), a, offset),
            Scalar::I8 => ins.sload8(types::I64, mem(), a, offset),
            Scalar::U16 => ins.uload16(types::I64, mem(), a, offset),
            Scalar::I16 => ins.sload16(types::I64, mem(), a, offset),
            _ => return ins.load(natural(s), mem(), a, offset),
        };
        let v = self.b.ins().ireduce(natural(s), wide);
        self.vals.record_widened(v, wide, s);
        v
    }

    pub fn lower_store(&mut self, ptr: ValueId, value: ValueId) -> LResult<()> {
        let ty = self.kernel.func().ty(value).clone();
        let s = elem_of(&ty).ok_or_else(|| self.unsupported(format!("store of {ty:?}")))?;
        let comps = ty.lanes();
        let addr = self.scalar(ptr)?;
        let val = self.value(value)?;
        let esize = s.size() as i32;
        if let Lanes::Uniform(a) = addr {
            if val.iter().all(|l| l.is_uniform()) {
                self.check_access(Some(ptr), &addr, comps * s.size(), AccessKind::Store)?;
                self.stats.uniform_stores += 1;
                for (c, l) in val.iter().enumerate() {
                    if let Lanes::Uniform(v) = l {
                        self.b.ins().store(mem(), *v, a, c as i32 * esize);
                    }
                }
                return Ok(());
            }
        }
        if let Lanes::Varying(ap) = &addr {
            if comps > 1 && self.interleaved_store(ptr, &addr, ap, s, &val)? {
                return Ok(());
            }
        }
        let plan = match &addr {
            Lanes::Varying(ap) if comps == 1 => self.vector_plan(ptr, ap, s, comps, false)?,
            _ => None,
        };
        if let Some((ok, first, lanes, spaced)) = plan {
            let blend_ok = self.blended_store_test(ptr, s, first, spaced);
            // In checked code the blend writes back every lane's element,
            // so it is taken only where all of them lie in the pointer's
            // range; elsewhere the scatter's per-lane checks run.
            let blend_ok = match blend_ok {
                Some(b) => Some(self.and_vector_fits(ptr, b, first, s.size())?),
                None => None,
            };
            let ok = self.vector_test(ptr, ok, first, s.size(), AccessKind::Store, false)?;
            self.stats.vector_stores += 1;
            let (slow, join) = self.fast_path(ok, 0, types::I8);
            let pieces = self.varying(s, &val[0]);
            if is_narrow(s) {
                self.store_narrow_chunk(Some(ptr), s, first, &pieces, join);
            } else {
                self.store_chunk_pieces(Some(ptr), first, &pieces, join);
            }
            self.enter(slow);
            if let Some(blend_ok) = blend_ok {
                let (blend, scatter) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(blend_ok, blend, &[], scatter, &[]);
                self.enter(blend);
                self.stats.blended_stores += 1;
                let pieces = self.varying(s, &val[0]);
                let m = self.cur_mask();
                if is_narrow(s) {
                    let old = self.load_narrow_chunk(s, first);
                    let new = self.blend(s, &m, &pieces, &old);
                    self.store_narrow_chunk(None, s, first, &new, join);
                } else {
                    let old: Vec<Value> = (0..pieces.len())
                        .map(|i| self.b.ins().load(carrier(s), mem(), first, (i * 16) as i32))
                        .collect();
                    let new = self.blend(s, &m, &pieces, &old);
                    for (i, p) in new.iter().enumerate() {
                        self.b.ins().store(mem(), *p, first, (i * 16) as i32);
                    }
                    self.b.ins().jump(join, &[]);
                }
                self.enter(scatter);
            }
            self.check_access(Some(ptr), &addr, s.size(), AccessKind::Store)?;
            self.cold_scatter(&addr, lanes, s, &val[0])?;
            self.b.ins().jump(join, &[]);
            self.enter(join);
            return Ok(());
        }
        self.check_access(Some(ptr), &addr, comps * s.size(), AccessKind::Store)?;
        self.stats.scatters += 1;
        if self.scatter_elements(&addr, s, &val)? {
            return Ok(());
        }
        for (c, l) in val.iter().enumerate() {
            self.scatter(&addr, s, l, c as i32 * esize)?;
        }
        Ok(())
    }

    /// One scalar store per lane in lane order (inactive lanes write the
    /// scratch slot).
    fn scatter(&mut self, addr: &Lanes, s: Scalar, val: &Lanes, offset: i32) -> LResult<()> {
        let m = self.cur_mask();
        for j in 0..self.kernel.w() as usize {
            let a = self.lane_addr(addr, &m, j)?;
            let v = self.lane(s, val, j);
            self.b.ins().store(mem(), v, a, offset);
        }
        Ok(())
    }

    pub fn lower_copy(&mut self, dst: ValueId, src: ValueId, size: u32) -> LResult<()> {
        let (d, s) = (self.scalar(dst)?, self.scalar(src)?);
        let f = self.extern_fn(
            "vecl_copy_if",
            &[types::I64, types::I64, types::I64, types::I32],
            None,
        )?;
        self.check_access(Some(dst), &d, size, AccessKind::Copy)?;
        self.check_access(Some(src), &s, size, AccessKind::Copy)?;
        let n = self.b.ins().iconst(types::I64, i64::from(size));
        if let (Lanes::Uniform(dv), Lanes::Uniform(sv)) = (&d, &s) {
            let one = self.b.ins().iconst(types::I32, 1);
            self.call(f, &[*dv, *sv, n, one]);
            return Ok(());
        }
        self.stats.copies += 1;
        let join = self.whole_chunk_copy(dst, src, &d, &s, size);
        let m = self.cur_mask();
        for j in 0..self.kernel.w() as usize {
            let dv = self.lane(Scalar::U64, &d, j);
            let sv = self.lane(Scalar::U64, &s, j);
            let on = self.lane_active(&m, j);
            self.call(f, &[dv, sv, n, on]);
        }
        if let Some(join) = join {
            self.b.ins().jump(join, &[]);
            self.enter(join);
        }
        Ok(())
    }

    /// A copy of `size`-byte objects between consecutive elements of the
    /// chunk's lanes on both sides (`out[i] = in[i]` of a struct): where
    /// every lane runs and both sides' lane addresses are consecutive (a
    /// run-time test), the chunk's bytes move as 128-bit pieces, then
    /// control goes to the returned block; the code emitted after the call
    /// is the per-lane copy, which must end by jumping there. `None` (and
    /// nothing emitted) when the copy does not have that form or in
    /// checked mode.
    fn whole_chunk_copy(
        &mut self,
        dst: ValueId,
        src: ValueId,
        d: &Lanes,
        s: &Lanes,
        size: u32,
    ) -> Option<cranelift_codegen::ir::Block> {
        let (Lanes::Varying(dp), Lanes::Varying(sp)) = (d, s) else {
            return None;
        };
        let expected = |p: ValueId| self.kernel.uni().shape(p) == Shape::Linear(i64::from(size));
        let bytes = size * self.kernel.w();
        if self.kernel.checks().is_some()
            || !size.is_multiple_of(4)
            || !bytes.is_multiple_of(16)
            || bytes > 1024
        {
            return None;
        }
        if !expected(dst) || !expected(src) {
            return None;
        }
        let d0 = self.b.ins().extractlane(dp[0], 0);
        let s0 = self.b.ins().extractlane(sp[0], 0);
        let dok = self.lanes_consecutive(dp, d0, size);
        let sok = self.lanes_consecutive(sp, s0, size);
        let full = self.mask_is_full();
        let ok = self.b.ins().band(dok, sok);
        let ok = self.b.ins().band(ok, full);
        self.stats.whole_chunk_copies += 1;
        let (slow, join) = self.fast_path(ok, 0, types::I8);
        for i in 0..(bytes / 16) as i32 {
            let v = self.b.ins().load(types::I32X4, mem(), s0, 16 * i);
            self.b.ins().store(mem(), v, d0, 16 * i);
        }
        self.b.ins().jump(join, &[]);
        self.enter(slow);
        Some(join)
    }

    /// Atomics run once per active lane, in lane order.
    pub fn lower_atomic(
        &mut self,
        op: AtomicOp,
        ptr: ValueId,
        args: &[ValueId],
        ty: &Type,
    ) -> LResult<Val> {
        self.stats.atomics += 1;
        let pty = self
            .kernel
            .func()
            .ty(ptr)
            .pointee()
            .cloned()
            .unwrap_or(Type::Void);
        let s = elem_of(&pty).ok_or_else(|| self.unsupported(format!("atomic on {pty:?}")))?;
        if s.is_float()
            && !matches!(
                op,
                AtomicOp::Xchg | AtomicOp::Load | AtomicOp::Store | AtomicOp::CmpXchg
            )
        {
            return Err(self.unsupported(format!("atomic {op:?} on {s}")));
        }
        let int_s = if s.is_float() {
            s.unsigned_int_of_same_width()
        } else {
            s
        };
        let it = natural(int_s);
        let addr = self.scalar(ptr)?;
        let argv: Vec<Lanes> = args
            .iter()
            .map(|a| self.scalar(*a))
            .collect::<LResult<_>>()?;
        // A work-group runs on one thread from start to end and its
        // `__local` arena is that thread's own, so atomics there need no
        // locked instruction: plain read-modify-writes in lane order.
        let local = self.kernel.func().ty(ptr).address_space() == Some(AddressSpace::Local);
        self.check_access(Some(ptr), &addr, s.size(), AccessKind::Atomic)?;
        let grouped = if local {
            None
        } else {
            self.grouped_atomic(op, s, &addr, &argv)?
        };
        let m = self.cur_mask();
        let flags = MemFlagsData::new();
        let mut olds = Vec::with_capacity(self.kernel.w() as usize);
        for j in 0..self.kernel.w() as usize {
            let a = self.lane_addr_of(Some(ptr), &addr, &m, j)?;
            let mut lane_args = Vec::with_capacity(argv.len());
            for l in &argv {
                let v = self.lane(s, l, j);
                let v = if s.is_float() {
                    self.b.ins().bitcast(it, MemFlagsData::new(), v)
                } else {
                    v
                };
                lane_args.push(v);
            }
            let rmw = |op| Some(op);
            let kind = match op {
                AtomicOp::Add | AtomicOp::Inc => rmw(AtomicRmwOp::Add),
                AtomicOp::Sub | AtomicOp::Dec => rmw(AtomicRmwOp::Sub),
                AtomicOp::Xchg => rmw(AtomicRmwOp::Xchg),
                AtomicOp::And => rmw(AtomicRmwOp::And),
                AtomicOp::Or => rmw(AtomicRmwOp::Or),
                AtomicOp::Xor => rmw(AtomicRmwOp::Xor),
                AtomicOp::Min => rmw(if s.is_signed() {
                    AtomicRmwOp::Smin
                } else {
                    AtomicRmwOp::Umin
                }),
                AtomicOp::Max => rmw(if s.is_signed() {
                    AtomicRmwOp::Smax
                } else {
                    AtomicRmwOp::Umax
                }),
                _ => None,
            };
            let old = if local {
                self.local_rmw(op, s, it, a, &lane_args)?
            } else {
                match (op, kind) {
                    (AtomicOp::Inc | AtomicOp::Dec, Some(k)) => {
                        let one = self.b.ins().iconst(it, 1);
                        Some(self.b.ins().atomic_rmw(it, flags, k, a, one))
                    }
                    (_, Some(k)) => {
                        let x = *lane_args
                            .first()
                            .ok_or_else(|| self.internal("atomic without operand"))?;
                        Some(self.b.ins().atomic_rmw(it, flags, k, a, x))
                    }
                    (AtomicOp::CmpXchg, None) => {
                        let (e, x) = match lane_args.as_slice() {
                            [e, x] => (*e, *x),
                            _ => return Err(self.internal("cmpxchg needs two operands")),
                        };
                        Some(self.b.ins().atomic_cas(flags, a, e, x))
                    }
                    (AtomicOp::Load, None) => Some(self.b.ins().atomic_load(it, flags, a)),
                    (AtomicOp::Store, None) => {
                        let x = *lane_args
                            .first()
                            .ok_or_else(|| self.internal("atomic store without operand"))?;
                        self.b.ins().atomic_store(flags, x, a);
                        None
                    }
                    _ => return Err(self.internal("unhandled atomic")),
                }
            };
            if let Some(o) = old {
                let o = if s.is_float() {
                    self.b.ins().bitcast(natural(s), MemFlagsData::new(), o)
                } else {
                    o
                };
                olds.push(o);
            }
        }
        let mut pieces = if ty.is_void() || olds.is_empty() {
            Vec::new()
        } else {
            self.build(s, &olds)
        };
        if let Some(join) = grouped {
            let args: Vec<BlockArg> = pieces.iter().map(|v| BlockArg::Value(*v)).collect();
            self.b.ins().jump(join, &args);
            self.enter(join);
            if !pieces.is_empty() {
                pieces = self.b.block_params(join).to_vec();
            }
        }
        Ok(if pieces.is_empty() {
            Vec::new()
        } else {
            vec![Lanes::Varying(pieces)]
        })
    }

    /// The atomics of a chunk on consecutive `__global` 32-bit integers,
    /// four lanes at a time: each piece's four ints are read, combined with
    /// the piece's operands as one vector, and written back by one
    /// `lock cmpxchg16b`, retried until no other thread changed them in
    /// between. Each int is still updated atomically, and the four updates
    /// happen at one instant, which every order of the lanes' atomics
    /// allows; the old values are the lanes' results. A histogram's merge
    /// (`atomic_add(&bins[lid], local_bins[lid])`) then takes a quarter of
    /// the locked instructions, each of which costs tens of cycles and
    /// more when another core holds the line.
    ///
    /// Only when every lane runs, the lanes' addresses are consecutive and
    /// the first is 16-byte aligned (`cmpxchg16b` faults otherwise), tested
    /// at run time; the fast path is emitted, and the lane-by-lane code
    /// that follows becomes the slow path: the join block is returned (its
    /// parameters the result pieces when `ty` has a value).
    fn grouped_atomic(
        &mut self,
        op: AtomicOp,
        s: Scalar,
        addr: &Lanes,
        argv: &[Lanes],
    ) -> LResult<Option<cranelift_codegen::ir::Block>> {
        let combinable = matches!(
            op,
            AtomicOp::Add
                | AtomicOp::Sub
                | AtomicOp::Inc
                | AtomicOp::Dec
                | AtomicOp::And
                | AtomicOp::Or
                | AtomicOp::Xor
                | AtomicOp::Min
                | AtomicOp::Max
        );
        let Lanes::Varying(ap) = addr else {
            return Ok(None);
        };
        if !combinable
            || !matches!(s, Scalar::I32 | Scalar::U32)
            || self.kernel.w() < 4
            || !self.kernel.w().is_multiple_of(4)
            // Cranelift lowers 128-bit atomics only with `cmpxchg16b`.
            || !crate::isa_has(self.jit.isa(), "has_cmpxchg16b")
        {
            return Ok(None);
        }
        // An atomic costs far more than this test, so it is made whatever
        // the analysis expects of the addresses.
        let first = self.b.ins().extractlane(ap[0], 0);
        let consecutive = self.lanes_consecutive(ap, first, s.size());
        let full = self.mask_is_full();
        // In checked mode, `check_access` has already stopped a chunk with
        // a lane outside its buffer.
        let ok = self.b.ins().band(consecutive, full);
        let low = self.b.ins().band_imm_s(first, 15);
        let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
        let ok = self.b.ins().band(ok, aligned);
        let operand = match op {
            AtomicOp::Inc | AtomicOp::Dec => {
                let one = self.b.ins().iconst(types::I32, 1);
                self.splat(s, one)
            }
            _ => {
                let x = argv
                    .first()
                    .ok_or_else(|| self.internal("atomic without operand"))?;
                self.varying(s, x)
            }
        };
        self.stats.grouped_atomics += 1;
        let n = operand.len();
        let (slow, join) = self.fast_path(ok, n, types::I32X4);
        let mut olds = Vec::with_capacity(n);
        // Adding, subtracting, or-ing or xor-ing zeros changes nothing: a
        // piece whose four operands are all zero takes the ints it read as
        // its old values (each int read whole, as an atomic load of it
        // would) and writes nothing. A histogram's merge adds mostly zeros
        // when its data fill few bins, and each locked instruction left
        // out is one line fewer taken from another core.
        let zero_is_identity = matches!(
            op,
            AtomicOp::Add | AtomicOp::Sub | AtomicOp::Or | AtomicOp::Xor
        );
        if zero_is_identity {
            self.stats.zero_skipping_atomics += 1;
        }
        for (i, x) in operand.into_iter().enumerate() {
            let a = self.b.ins().iadd_imm_s(first, 16 * i as i64);
            let seen = self.b.ins().load(types::I128, mem(), a, 0);
            let retry = self.b.create_block();
            let old = self.b.append_block_param(retry, types::I128);
            let done = self.b.create_block();
            let result = self.b.append_block_param(done, types::I128);
            if zero_is_identity {
                let any = self.b.ins().vany_true(x);
                self.b.ins().brif(
                    any,
                    retry,
                    &[BlockArg::Value(seen)],
                    done,
                    &[BlockArg::Value(seen)],
                );
            } else {
                self.b.ins().jump(retry, &[BlockArg::Value(seen)]);
            }
            self.b.switch_to_block(retry);
            let ov = self.b.ins().bitcast(types::I32X4, little(), old);
            let nv = self
                .combine(op, s, ov, x)
                .ok_or_else(|| self.internal("grouped atomic without an operation"))?;
            let new = self.b.ins().bitcast(types::I128, little(), nv);
            let got = self.b.ins().atomic_cas(MemFlagsData::new(), a, old, new);
            let same = self.b.ins().icmp(IntCC::Equal, got, old);
            self.b.ins().brif(
                same,
                done,
                &[BlockArg::Value(old)],
                retry,
                &[BlockArg::Value(got)],
            );
            self.b.seal_block(retry);
            self.enter(done);
            olds.push(self.b.ins().bitcast(types::I32X4, little(), result));
        }
        let args: Vec<BlockArg> = olds.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);
        self.enter(slow);
        Ok(Some(join))
    }

    /// The new value of an arithmetic or bitwise atomic `op` from the old
    /// one and the operand (`inc`/`dec` with an operand of 1), on one
    /// integer of `s` or on a vector of them; `None` for the other ops.
    fn combine(&mut self, op: AtomicOp, s: Scalar, old: Value, x: Value) -> Option<Value> {
        let ins = self.b.ins();
        Some(match op {
            AtomicOp::Add | AtomicOp::Inc => ins.iadd(old, x),
            AtomicOp::Sub | AtomicOp::Dec => ins.isub(old, x),
            AtomicOp::And => ins.band(old, x),
            AtomicOp::Or => ins.bor(old, x),
            AtomicOp::Xor => ins.bxor(old, x),
            AtomicOp::Min if s.is_signed() => ins.smin(old, x),
            AtomicOp::Min => ins.umin(old, x),
            AtomicOp::Max if s.is_signed() => ins.smax(old, x),
            AtomicOp::Max => ins.umax(old, x),
            _ => return None,
        })
    }

    /// One lane's atomic on `__local` memory as a plain load, operation and
    /// store at `a` (the lane's address or the scratch slot). Operands and
    /// the old value are in the integer type `it` (floats as their bits).
    fn local_rmw(
        &mut self,
        op: AtomicOp,
        s: Scalar,
        it: types::Type,
        a: Value,
        args: &[Value],
    ) -> LResult<Option<Value>> {
        let old = self.b.ins().load(it, mem(), a, 0);
        let operand = |i: usize| args.get(i).copied();
        let x = match (op, operand(0)) {
            (AtomicOp::Load | AtomicOp::Inc | AtomicOp::Dec, _) => old,
            (_, Some(x)) => x,
            (_, None) => return Err(self.internal("atomic without operand")),
        };
        let desired = match (op, operand(1)) {
            (AtomicOp::CmpXchg, None) => return Err(self.internal("cmpxchg needs two operands")),
            (_, d) => d.unwrap_or(x),
        };
        let new = match op {
            AtomicOp::Load => return Ok(Some(old)),
            AtomicOp::Store => {
                self.b.ins().store(mem(), x, a, 0);
                return Ok(None);
            }
            AtomicOp::Inc => self.b.ins().iadd_imm_s(old, 1),
            AtomicOp::Dec => self.b.ins().iadd_imm_s(old, -1),
            AtomicOp::Xchg => x,
            AtomicOp::CmpXchg => {
                let same = self.b.ins().icmp(IntCC::Equal, old, x);
                self.b.ins().select(same, desired, old)
            }
            _ => self
                .combine(op, s, old, x)
                .ok_or_else(|| self.internal("unhandled local atomic"))?,
        };
        self.b.ins().store(mem(), new, a, 0);
        Ok(Some(old))
    }

    /// Loads `comps` elements of `s` at `addr` (uniform or per lane).
    pub fn load_lanes(&mut self, addr: &Lanes, s: Scalar, comps: u32) -> LResult<Val> {
        let esize = s.size() as i32;
        self.check_access(None, addr, comps * s.size(), AccessKind::Load)?;
        self.track_local(
            None,
            addr,
            comps * s.size(),
            crate::races::LocalAccess::Read,
        )?;
        match addr {
            Lanes::Uniform(a) => Ok((0..comps)
                .map(|c| Lanes::Uniform(self.b.ins().load(natural(s), mem(), *a, c as i32 * esize)))
                .collect()),
            Lanes::Varying(_) => {
                self.stats.gathers += 1;
                (0..comps)
                    .map(|c| {
                        Ok(Lanes::Varying(self.gather(
                            None,
                            addr,
                            s,
                            c as i32 * esize,
                        )?))
                    })
                    .collect()
            }
        }
    }

    /// Stores the components of `val` (elements of `s`) at `addr`.
    pub fn store_lanes(&mut self, addr: &Lanes, s: Scalar, val: &Val) -> LResult<()> {
        let esize = s.size() as i32;
        self.check_access(None, addr, val.len() as u32 * s.size(), AccessKind::Store)?;
        let n = val.len() as u32 * s.size();
        self.track_local(None, addr, n, crate::races::LocalAccess::Write)?;
        if let Lanes::Uniform(a) = addr {
            if val.iter().all(|l| l.is_uniform()) {
                for (c, l) in val.iter().enumerate() {
                    if let Lanes::Uniform(v) = l {
                        self.b.ins().store(mem(), *v, *a, c as i32 * esize);
                    }
                }
                return Ok(());
            }
        }
        self.stats.scatters += 1;
        for (c, l) in val.iter().enumerate() {
            self.scatter(addr, s, l, c as i32 * esize)?;
        }
        Ok(())
    }
}

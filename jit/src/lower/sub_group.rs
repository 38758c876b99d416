//! Sub-group builtins. A sub-group is the SIMD chunk: its size is the
//! chunk width W, cut short by the end of the row (`vecl_ir::sub_group`
//! gives the partition), its local id the lane number, and its active
//! work-items the lanes of the current mask.
//!
//! The queries are scalar arithmetic on the chunk's position. A function
//! that exchanges values between lanes (reductions, scans, broadcasts,
//! shuffles, votes, ballots) stores the operand's pieces, the second
//! operand's lanes and the mask in stack records and calls
//! `crate::sub_group::vecl_sub_group`, which writes the result lanes into
//! a third record, one call per component per chunk. Results the same in
//! every lane (reductions, broadcasts, votes, ballots) come back uniform.
//! The ballot queries and the mask queries are functions of one lane's
//! values and its local id, computed lane by lane.

use super::lanes::{carrier, elem_of, is_narrow, natural, Lanes, Val};
use super::{invariant, FunctionCx, LResult};
use crate::abi::launch_offsets as lo;
use crate::sub_group as rt;
use cranelift_codegen::ir::{
    condcodes::FloatCC, types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use vecl_ir::sub_group::{BallotQuery, SubGroupFn, SubGroupOp, SubGroupQuery};
use vecl_ir::{Builtin, Scalar, Type, ValueId};

/// The `ELEM_*` kind of `crate::sub_group` for lanes of `s`.
pub(crate) fn elem_code(s: Scalar) -> Option<u32> {
    Some(match s {
        Scalar::I8 => rt::ELEM_I8,
        Scalar::I16 => rt::ELEM_I16,
        Scalar::I32 => rt::ELEM_I32,
        Scalar::Bool | Scalar::U8 | Scalar::U16 | Scalar::U32 => rt::ELEM_U32,
        Scalar::F32 => rt::ELEM_F32,
        Scalar::I64 => rt::ELEM_I64,
        Scalar::U64 => rt::ELEM_U64,
        Scalar::F64 => rt::ELEM_F64,
        Scalar::F16 => return None,
    })
}

impl FunctionCx<'_, '_> {
    /// Lowers a sub-group builtin or a work-group collective's combine
    /// step; `None` for any other builtin.
    pub(crate) fn lower_sub_group(
        &mut self,
        name: Builtin,
        args: &[ValueId],
        ty: &Type,
    ) -> LResult<Option<Val>> {
        if name == Builtin::WorkGroupCombine {
            return self.work_group_combine(args).map(Some);
        }
        if let Some(q) = SubGroupQuery::of(name) {
            return self.sub_group_query(q, ty).map(Some);
        }
        if let Some(q) = BallotQuery::of(name) {
            return self.ballot_query(q, args).map(Some);
        }
        match SubGroupFn::of(name) {
            Some(f) => self.sub_group_fn(name, f, args, ty).map(Some),
            None => Ok(None),
        }
    }

    /// The combine step of a work-group collective (`collectives.rs`):
    /// one call with the uniform operands.
    fn work_group_combine(&mut self, args: &[ValueId]) -> LResult<Val> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            match self.scalar(*a)? {
                Lanes::Uniform(v) => vals.push(v),
                Lanes::Varying(_) => {
                    return Err(self.internal("a work-group combine with a varying operand"))
                }
            }
        }
        let f = self.extern_fn(
            "vecl_work_group_combine",
            &[types::I32, types::I32, types::I32, types::I64, types::I64],
            None,
        )?;
        self.call(f, &vals);
        Ok(Vec::new())
    }

    /// The chunk's sub-group size: `min(W, lx - x0)` as an `i64`.
    fn sub_group_size(&mut self) -> Value {
        let env = self.env().clone();
        let left = self.b.ins().isub(env.group_size[0], env.x0);
        let w = self.b.ins().iconst(types::I64, i64::from(self.kernel.w()));
        self.b.ins().umin(left, w)
    }

    /// `get_max_sub_group_size()`: `min(W, enqueued lx)` as an `i64`.
    fn max_sub_group_size(&mut self) -> Value {
        let l = self.env().launch;
        let ls = self
            .b
            .ins()
            .load(types::I64, invariant(), l, lo::LOCAL_SIZE);
        let w = self.b.ins().iconst(types::I64, i64::from(self.kernel.w()));
        self.b.ins().umin(ls, w)
    }

    /// `⌈lx / W⌉ · ly · lz` of a group of size `size`.
    fn sub_group_count(&mut self, size: [Value; 3]) -> Value {
        let per_row = self
            .b
            .ins()
            .iadd_imm_s(size[0], i64::from(self.kernel.w()) - 1);
        let w = self.b.ins().iconst(types::I64, i64::from(self.kernel.w()));
        let per_row = self.b.ins().udiv(per_row, w);
        let n = self.b.ins().imul(per_row, size[1]);
        self.b.ins().imul(n, size[2])
    }

    fn sub_group_query(&mut self, q: SubGroupQuery, ty: &Type) -> LResult<Val> {
        let env = self.env().clone();
        let w = self.b.ins().iconst(types::I64, i64::from(self.kernel.w()));
        let to32 = |cx: &mut Self, v: Value| cx.b.ins().ireduce(types::I32, v);
        let scalar = match q {
            SubGroupQuery::LocalId => {
                return Ok(vec![Lanes::Varying(self.cache.iota32().to_vec())]);
            }
            SubGroupQuery::Size => self.sub_group_size(),
            SubGroupQuery::MaxSize => self.max_sub_group_size(),
            SubGroupQuery::Num => self.sub_group_count(env.group_size),
            SubGroupQuery::EnqueuedNum => {
                let size = [0, 1, 2].map(|d| self.launch_field(lo::LOCAL_SIZE, d));
                self.sub_group_count(size)
            }
            SubGroupQuery::Id => {
                let one = self.b.ins().iconst(types::I64, 1);
                let per_row = self.sub_group_count([env.group_size[0], one, one]);
                let row = self.b.ins().imul(env.z, env.group_size[1]);
                let row = self.b.ins().iadd(row, env.y);
                let first = self.b.ins().imul(row, per_row);
                let within = self.b.ins().udiv(env.x0, w);
                self.b.ins().iadd(first, within)
            }
            _ => return self.sub_group_masks(q, ty),
        };
        Ok(vec![Lanes::Uniform(to32(self, scalar))])
    }

    /// `get_sub_group_{eq,ge,gt,le,lt}_mask`: four words per lane.
    fn sub_group_masks(&mut self, q: SubGroupQuery, ty: &Type) -> LResult<Val> {
        let index = rt::MASK_QUERIES
            .iter()
            .position(|m| *m == q)
            .ok_or_else(|| self.internal(format!("sub-group query {q:?}")))?;
        if ty.lanes() != 4 {
            return Err(self.internal(format!("sub-group mask of type {ty:?}")));
        }
        let f = self.extern_fn("vecl_sub_group_mask", &[types::I32; 4], Some(types::I32))?;
        // The bits of a mask or ballot that count: those below the
        // maximum sub-group size (as the conformance tests read the spec).
        let size = self.max_sub_group_size();
        let size = self.b.ins().ireduce(types::I32, size);
        let qv = self.b.ins().iconst(types::I32, index as i64);
        let mut out = Vec::with_capacity(4);
        for word in 0..4 {
            let wv = self.b.ins().iconst(types::I32, word);
            let lanes: Vec<Value> = (0..self.kernel.w())
                .map(|j| {
                    let lid = self.b.ins().iconst(types::I32, i64::from(j));
                    self.call(f, &[qv, lid, size, wv]).unwrap_or(lid)
                })
                .collect();
            out.push(Lanes::Varying(self.build(Scalar::U32, &lanes)));
        }
        Ok(out)
    }

    /// `sub_group_inverse_ballot`, `sub_group_ballot_bit_*`, …: lane by lane.
    fn ballot_query(&mut self, q: BallotQuery, args: &[ValueId]) -> LResult<Val> {
        let index = rt::BALLOT_QUERIES
            .iter()
            .position(|m| *m == q)
            .ok_or_else(|| self.internal(format!("ballot query {q:?}")))?;
        let value = self.value(args[0])?;
        if value.len() != 4 {
            return Err(self.internal("a ballot that is not a uint4"));
        }
        let bit = match args.get(1) {
            Some(a) => Some(self.scalar(*a)?),
            None => None,
        };
        let f = self.extern_fn("vecl_ballot_query", &[types::I32; 8], Some(types::I32))?;
        // The bits of a mask or ballot that count: those below the
        // maximum sub-group size (as the conformance tests read the spec).
        let size = self.max_sub_group_size();
        let size = self.b.ins().ireduce(types::I32, size);
        let qv = self.b.ins().iconst(types::I32, index as i64);
        let lanes: Vec<Value> = (0..self.kernel.w() as usize)
            .map(|j| {
                let v: Vec<Value> = value.iter().map(|c| self.lane(Scalar::U32, c, j)).collect();
                let b = match &bit {
                    Some(l) => self.lane(Scalar::U32, l, j),
                    None => self.b.ins().iconst(types::I32, 0),
                };
                let lid = self.b.ins().iconst(types::I32, j as i64);
                self.call(f, &[qv, v[0], v[1], v[2], v[3], b, lid, size])
                    .unwrap_or(lid)
            })
            .collect();
        Ok(vec![Lanes::Varying(self.build(Scalar::I32, &lanes))])
    }

    /// `sub_group_reduce_{add,min,max}` of a 32- or 64-bit operand without
    /// the host call: inactive lanes take the identity, then sums and
    /// 32-bit integer `min`/`max` fold piece by piece and across the last
    /// piece's lanes (for floats the order `float_sum_order` defines, the
    /// interpreter's too); float and 64-bit `min`/`max` combine lane by
    /// lane in lane order. `None` for the other operators and types.
    fn reduce_in_registers(&mut self, op: SubGroupOp, s: Scalar, l: &Lanes) -> Option<Lanes> {
        if !matches!(op, SubGroupOp::Add | SubGroupOp::Min | SubGroupOp::Max) || is_narrow(s) {
            return None;
        }
        let t = natural(s);
        let ident = match (op, s) {
            (SubGroupOp::Add, Scalar::F32) => self.b.ins().f32const(0.0),
            (SubGroupOp::Add, Scalar::F64) => self.b.ins().f64const(0.0),
            (SubGroupOp::Min, Scalar::F32) => self.b.ins().f32const(f32::INFINITY),
            (SubGroupOp::Min, Scalar::F64) => self.b.ins().f64const(f64::INFINITY),
            (SubGroupOp::Max, Scalar::F32) => self.b.ins().f32const(f32::NEG_INFINITY),
            (SubGroupOp::Max, Scalar::F64) => self.b.ins().f64const(f64::NEG_INFINITY),
            (SubGroupOp::Add, _) => self.b.ins().iconst(t, 0),
            (SubGroupOp::Min, Scalar::I32) => self.b.ins().iconst(t, i64::from(i32::MAX)),
            (SubGroupOp::Min, Scalar::I64) => self.b.ins().iconst(t, i64::MAX),
            (SubGroupOp::Min, _) => self.b.ins().iconst(t, -1),
            (SubGroupOp::Max, Scalar::I32) => self.b.ins().iconst(t, i64::from(i32::MIN)),
            (SubGroupOp::Max, Scalar::I64) => self.b.ins().iconst(t, i64::MIN),
            (SubGroupOp::Max, _) => self.b.ins().iconst(t, 0),
            _ => return None,
        };
        let mask = self.cur_mask();
        let pieces = self.varying(s, l);
        let ident_v = self.b.ins().splat(carrier(s), ident);
        let blended: Vec<Value> = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let m = self.mask_piece_for(s, &mask, i);
                self.b.ins().bitselect(m, *p, ident_v)
            })
            .collect();
        let signed = s.is_signed();
        let scalar_op = |cx: &mut Self, acc: Value, x: Value| -> Value {
            let ins = cx.b.ins();
            match (op, s.is_float()) {
                (SubGroupOp::Add, true) => ins.fadd(acc, x),
                (SubGroupOp::Add, false) => ins.iadd(acc, x),
                (SubGroupOp::Min, true) => {
                    let lt = ins.fcmp(FloatCC::LessThan, x, acc);
                    cx.b.ins().select(lt, x, acc)
                }
                (SubGroupOp::Max, true) => {
                    let gt = ins.fcmp(FloatCC::GreaterThan, x, acc);
                    cx.b.ins().select(gt, x, acc)
                }
                (SubGroupOp::Min, false) if signed => ins.smin(acc, x),
                (SubGroupOp::Min, false) => ins.umin(acc, x),
                (SubGroupOp::Max, false) if signed => ins.smax(acc, x),
                _ => ins.umax(acc, x),
            }
        };
        let pp = self.per_piece(s);
        // Sums (floats too: `vecl_ir::sub_group::float_sum_order`) and
        // 32-bit integer `min`/`max` fold whole pieces first.
        let whole_pieces = op == SubGroupOp::Add || (!s.is_float() && s.bits() == 32);
        let lanes: Vec<Value> = if whole_pieces {
            let mut v = blended[0];
            for p in &blended[1..] {
                v = scalar_op(self, v, *p);
            }
            (0..pp)
                .map(|k| self.b.ins().extractlane(v, k as u8))
                .collect()
        } else {
            (0..self.kernel.w() as usize)
                .map(|j| self.b.ins().extractlane(blended[j / pp], (j % pp) as u8))
                .collect()
        };
        let mut acc = ident;
        for x in lanes {
            acc = scalar_op(self, acc, x);
        }
        Some(Lanes::Uniform(acc))
    }

    /// A stack record of `bytes` bytes and its address.
    fn record_of(&mut self, bytes: u32) -> (cranelift_codegen::ir::StackSlot, Value) {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            bytes,
            4,
        ));
        let addr = self.b.ins().stack_addr(types::I64, slot, 0);
        (slot, addr)
    }

    /// Stores the W lanes of a component in a new record; its address.
    fn spill_lanes(&mut self, s: Scalar, l: &Lanes) -> Value {
        let pieces = self.varying(s, l);
        let (_, addr) = self.record_of(16 * pieces.len() as u32);
        for (i, p) in pieces.iter().enumerate() {
            self.b
                .ins()
                .store(MemFlagsData::trusted(), *p, addr, 16 * i as i32);
        }
        addr
    }

    fn sub_group_fn(
        &mut self,
        name: Builtin,
        f: SubGroupFn,
        args: &[ValueId],
        ty: &Type,
    ) -> LResult<Val> {
        let value = match args.first() {
            Some(a) => self.value(*a)?,
            None => Vec::new(),
        };
        let s = match args.first() {
            Some(a) => self.elem(*a)?,
            None => Scalar::I32,
        };
        let elem = elem_code(s).ok_or_else(|| self.unsupported(format!("{name} on {s}")))?;
        if let (SubGroupFn::Reduce(op), [l]) = (f, value.as_slice()) {
            if let Some(r) = self.reduce_in_registers(op, s, l) {
                return Ok(vec![r]);
            }
        }
        let aux = match args.get(1) {
            Some(a) => {
                let l = self.scalar(*a)?;
                let sa = self.elem(*a)?;
                Some((sa, l))
            }
            None => None,
        };
        let param = match args.get(2) {
            Some(a) => match self.scalar(*a)? {
                Lanes::Uniform(v) => v,
                l => self.lane(Scalar::U32, &l, 0),
            },
            None => self.b.ins().iconst(types::I32, 0),
        };
        let param = if self.b.func.dfg.value_type(param) == types::I32 {
            param
        } else {
            self.b.ins().ireduce(types::I32, param)
        };
        let mask = self.cur_mask();
        let (_, maddr) = self.record_of(4 * self.kernel.w());
        for (i, p) in mask.iter().enumerate() {
            self.b
                .ins()
                .store(MemFlagsData::trusted(), *p, maddr, 16 * i as i32);
        }
        let aux_addr = match &aux {
            Some((sa, l)) => {
                let l = if matches!(sa, Scalar::I64 | Scalar::U64) {
                    self.convert(l, *sa, Scalar::U32, false, Default::default())?
                } else {
                    l.clone()
                };
                self.spill_lanes(Scalar::U32, &l)
            }
            None => {
                let (_, a) = self.record_of(4 * self.kernel.w());
                a
            }
        };
        let size = self.sub_group_size();
        let size = self.b.ins().ireduce(types::I32, size);
        let helper = self.extern_fn(
            "vecl_sub_group",
            &[
                types::I32,
                types::I32,
                types::I32,
                types::I32,
                types::I32,
                types::I64,
                types::I64,
                types::I64,
                types::I64,
            ],
            None,
        )?;
        let code = self.b.ins().iconst(types::I32, i64::from(f.code()));
        let elem_v = self.b.ins().iconst(types::I32, i64::from(elem));
        let wv = self.b.ins().iconst(types::I32, i64::from(self.kernel.w()));
        let call = |cx: &mut Self, src: Value| -> (cranelift_codegen::ir::StackSlot, Value) {
            let (oslot, oaddr) = cx.record_of(8 * cx.kernel.w());
            cx.call(
                helper,
                &[code, elem_v, wv, size, param, src, aux_addr, maddr, oaddr],
            );
            (oslot, oaddr)
        };
        match f {
            SubGroupFn::All | SubGroupFn::Any | SubGroupFn::AllEqual | SubGroupFn::Elect => {
                let src = match value.first() {
                    Some(l) => self.spill_lanes(s, l),
                    None => self.record_of(8 * self.kernel.w()).1,
                };
                let (_, oaddr) = call(self, src);
                if f == SubGroupFn::Elect {
                    let pieces = (0..self.kernel.w() / 4)
                        .map(|i| {
                            self.b.ins().load(
                                types::I32X4,
                                MemFlagsData::trusted(),
                                oaddr,
                                16 * i as i32,
                            )
                        })
                        .collect();
                    return Ok(vec![Lanes::Varying(pieces)]);
                }
                let r = self
                    .b
                    .ins()
                    .load(types::I32, MemFlagsData::trusted(), oaddr, 0);
                Ok(vec![Lanes::Uniform(r)])
            }
            SubGroupFn::Ballot => {
                let src = self.spill_lanes(s, &value[0]);
                let (_, oaddr) = call(self, src);
                Ok((0..4)
                    .map(|k| {
                        Lanes::Uniform(self.b.ins().load(
                            types::I32,
                            MemFlagsData::trusted(),
                            oaddr,
                            4 * k,
                        ))
                    })
                    .collect())
            }
            _ => {
                let out_s = elem_of(ty).unwrap_or(s);
                let mut out = Vec::with_capacity(value.len());
                for comp in &value {
                    let src = self.spill_lanes(s, comp);
                    let (_, oaddr) = call(self, src);
                    if f.uniform_result() {
                        let r = if is_narrow(out_s) {
                            let x =
                                self.b
                                    .ins()
                                    .load(types::I32, MemFlagsData::trusted(), oaddr, 0);
                            self.b.ins().ireduce(natural(out_s), x)
                        } else {
                            self.b
                                .ins()
                                .load(natural(out_s), MemFlagsData::trusted(), oaddr, 0)
                        };
                        out.push(Lanes::Uniform(r));
                    } else {
                        let c = carrier(out_s);
                        let pieces = (0..self.piece_count(out_s))
                            .map(|i| {
                                let p = self.b.ins().load(
                                    c,
                                    MemFlagsData::trusted(),
                                    oaddr,
                                    16 * i as i32,
                                );
                                self.normalize(out_s, p)
                            })
                            .collect();
                        out.push(Lanes::Varying(pieces));
                    }
                }
                Ok(out)
            }
        }
    }
}

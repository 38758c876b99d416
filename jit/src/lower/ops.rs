//! Arithmetic, comparisons, selects, conversions and bitcasts.
//!
//! Each operation has a scalar form (uniform values, and the per-lane
//! fallback) and, where Cranelift's x86-64 backend has one, a vector form on
//! the 128-bit pieces. Integer division never traps: by zero gives 0 and
//! `MIN / -1` wraps, as the IR specifies.

use super::lanes::{carrier, elem_of, is_narrow, natural, Lanes, Val};
use super::{FunctionCx, LResult};
use crate::abi::ArgKind;
use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types, BlockArg, InstBuilder, MemFlagsData, Opcode, Value,
};
use vecl_ir::analysis::uniformity::Shape;
use vecl_ir::{BinaryOp, CmpOp, Rounding, Scalar, Type, UnaryOp, ValueId};

pub(crate) fn int_cc(op: CmpOp, signed: bool) -> IntCC {
    match (op, signed) {
        (CmpOp::Eq, _) => IntCC::Equal,
        (CmpOp::Ne, _) => IntCC::NotEqual,
        (CmpOp::Lt, true) => IntCC::SignedLessThan,
        (CmpOp::Le, true) => IntCC::SignedLessThanOrEqual,
        (CmpOp::Gt, true) => IntCC::SignedGreaterThan,
        (CmpOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
        (CmpOp::Lt, false) => IntCC::UnsignedLessThan,
        (CmpOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
        (CmpOp::Gt, false) => IntCC::UnsignedGreaterThan,
        (CmpOp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
    }
}

pub(crate) fn float_cc(op: CmpOp) -> FloatCC {
    match op {
        CmpOp::Eq => FloatCC::Equal,
        CmpOp::Ne => FloatCC::NotEqual,
        CmpOp::Lt => FloatCC::LessThan,
        CmpOp::Le => FloatCC::LessThanOrEqual,
        CmpOp::Gt => FloatCC::GreaterThan,
        CmpOp::Ge => FloatCC::GreaterThanOrEqual,
    }
}

/// Smallest and largest value of an integer scalar, as i128.
fn int_range(s: Scalar) -> (i128, i128) {
    let bits = s.bits();
    if s == Scalar::Bool {
        (0, 1)
    } else if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The `math.rs` code of a directed rounding mode (`None` for to-nearest).
fn directed_mode(r: Rounding) -> Option<i32> {
    match r {
        Rounding::Rtz => Some(crate::math::RTZ),
        Rounding::Rtp => Some(crate::math::RTP),
        Rounding::Rtn => Some(crate::math::RTN),
        Rounding::Default | Rounding::Rte => None,
    }
}

impl FunctionCx<'_, '_> {
    pub fn elem(&self, v: ValueId) -> LResult<Scalar> {
        let ty = self.kernel.func().ty(v);
        elem_of(ty).ok_or_else(|| self.internal(format!("%{} of type {ty:?} is not a value", v.0)))
    }

    /// Kernel argument `n`. Arguments are loaded once, in the entry block
    /// (see [`Self::preload_params`]); until then (and for a parameter the
    /// preload did not see) the load is emitted where it is asked for.
    pub fn lower_param(&mut self, n: u32, ty: &Type) -> LResult<Val> {
        if let Some(v) = self.vals.param(n as usize) {
            return Ok(v.clone());
        }
        let slot = *self
            .kernel
            .arg_slots()
            .get(n as usize)
            .ok_or_else(|| self.internal("parameter out of range"))?;
        let args = self.env().args;
        let off = slot.offset as i32;
        let flags = MemFlagsData::trusted().with_readonly();
        match slot.kind {
            ArgKind::GlobalPointer => Ok(vec![Lanes::Uniform(self.b.ins().load(
                types::I64,
                flags,
                args,
                off,
            ))]),
            ArgKind::LocalPointer => {
                let o = self.b.ins().load(types::I64, flags, args, off);
                let base = self.env().local_mem;
                Ok(vec![Lanes::Uniform(self.b.ins().iadd(base, o))])
            }
            ArgKind::ByValStruct => Ok(vec![Lanes::Uniform(
                self.b.ins().iadd_imm_s(args, i64::from(off)),
            )]),
            ArgKind::Value => {
                let s = elem_of(ty)
                    .ok_or_else(|| self.unsupported(format!("kernel argument of type {ty:?}")))?;
                let mut out = Vec::new();
                for c in 0..ty.lanes() {
                    let o = off + (c * s.size()) as i32;
                    let x =
                        self.b
                            .ins()
                            .load(natural(s), MemFlagsData::new().with_notrap(), args, o);
                    out.push(Lanes::Uniform(x));
                }
                Ok(out)
            }
        }
    }

    /// Loads every parameter the kernel reads where the builder stands (the
    /// entry block, which dominates every use) and keeps the values, so
    /// the chunk loops do not reload them per chunk. The loads are not
    /// `can_move`: Cranelift places movable loads at their uses and does not
    /// hoist them out of the chunk loops, so only a fixed load stays put.
    pub fn preload_params(&mut self) -> LResult<()> {
        let mut types: Vec<Option<Type>> = vec![None; self.kernel.arg_slots().len()];
        for d in &self.kernel.func().insts {
            if let vecl_ir::Inst::Param(n) = d.inst {
                if let Some(t) = types.get_mut(n as usize) {
                    t.get_or_insert_with(|| d.ty.clone());
                }
            }
        }
        self.vals.reset_params(types.len());
        for (n, ty) in types.iter().enumerate() {
            if let Some(ty) = ty {
                let v = self.lower_param(n as u32, ty)?;
                self.vals.set_param(n, v);
            }
        }
        Ok(())
    }

    pub fn const_scalar(&mut self, s: Scalar, bits: u64) -> Value {
        match s {
            Scalar::F32 => self.b.ins().f32const(f32::from_bits(bits as u32)),
            Scalar::F64 => self.b.ins().f64const(f64::from_bits(bits)),
            _ => {
                let t = natural(s);
                let masked = if t.bits() >= 64 {
                    bits
                } else {
                    bits & ((1u64 << t.bits()) - 1)
                };
                self.b.ins().iconst(t, masked as i64)
            }
        }
    }

    pub fn lower_const(&mut self, bits: u64, ty: &Type) -> LResult<Val> {
        let s = elem_of(ty).ok_or_else(|| self.unsupported(format!("constant of type {ty:?}")))?;
        let v = self.const_scalar(s, bits);
        Ok(vec![Lanes::Uniform(v); ty.lanes() as usize])
    }

    pub fn lower_unary(&mut self, op: UnaryOp, a: ValueId, ty: &Type) -> LResult<Val> {
        let s = elem_of(ty).ok_or_else(|| self.internal("unary on a non-value"))?;
        let x = self.value(a)?;
        Ok(x.iter().map(|l| self.unary(op, s, l)).collect())
    }

    pub fn unary(&mut self, op: UnaryOp, s: Scalar, l: &Lanes) -> Lanes {
        match l {
            Lanes::Uniform(v) => Lanes::Uniform(self.scalar_unary(op, s, *v)),
            Lanes::Varying(p) => Lanes::Varying(
                p.iter()
                    .map(|v| {
                        let r = match (op, s.is_float()) {
                            (UnaryOp::Neg, true) => self.b.ins().fneg(*v),
                            (UnaryOp::Neg, false) => self.b.ins().ineg(*v),
                            (UnaryOp::Not, _) => self.b.ins().bnot(*v),
                        };
                        self.normalize(s, r)
                    })
                    .collect(),
            ),
        }
    }

    pub fn scalar_unary(&mut self, op: UnaryOp, s: Scalar, v: Value) -> Value {
        match op {
            UnaryOp::Neg if s.is_float() => self.b.ins().fneg(v),
            UnaryOp::Neg => self.b.ins().ineg(v),
            UnaryOp::Not if s == Scalar::Bool => self.b.ins().bxor_imm_s(v, 1),
            UnaryOp::Not => self.b.ins().bnot(v),
        }
    }

    pub fn lower_binary(
        &mut self,
        op: BinaryOp,
        a: ValueId,
        b: ValueId,
        ty: &Type,
    ) -> LResult<Val> {
        let s = elem_of(ty).ok_or_else(|| self.internal("binary on a non-value"))?;
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) {
            if let Some(v) = self.linear_div_rem(op, s, a, b)? {
                return Ok(vec![v]);
            }
        }
        let (x, y) = (self.value(a)?, self.value(b)?);
        let mut out = Vec::with_capacity(x.len());
        for (l, r) in x.iter().zip(&y) {
            out.push(self.binary(op, s, l, r)?);
        }
        Ok(out)
    }

    pub fn binary(&mut self, op: BinaryOp, s: Scalar, l: &Lanes, r: &Lanes) -> LResult<Lanes> {
        if let (Lanes::Uniform(a), Lanes::Uniform(b)) = (l, r) {
            return Ok(Lanes::Uniform(self.scalar_binary(op, s, *a, *b)));
        }
        // Shifts by a uniform amount stay vector operations.
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) && s != Scalar::Bool {
            if let Lanes::Uniform(amt) = r {
                let amt = self.b.ins().band_imm_s(*amt, i64::from(s.bits() - 1));
                let x = self.varying(s, l);
                let res = x
                    .iter()
                    .map(|v| {
                        let r = match (op, s.is_signed()) {
                            (BinaryOp::Shl, _) => self.b.ins().ishl(*v, amt),
                            (_, true) => self.b.ins().sshr(*v, amt),
                            (_, false) => self.b.ins().ushr(*v, amt),
                        };
                        self.normalize(s, r)
                    })
                    .collect();
                return Ok(Lanes::Varying(res));
            }
        }
        if let (BinaryOp::Div | BinaryOp::Rem, Lanes::Uniform(d)) = (op, r) {
            if s.is_int() && !s.is_signed() && s != Scalar::Bool {
                return Ok(self.unsigned_div_by_uniform(op, s, l, *d));
            }
            if s == Scalar::I32 {
                return Ok(self.signed_div_by_uniform(op, l, *d));
            }
            if op == BinaryOp::Div && matches!(s, Scalar::F32 | Scalar::F64) {
                return Ok(self.float_div_by_uniform(s, l, *d));
            }
        }
        let vector_ok = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => s != Scalar::Bool && s != Scalar::F16,
            BinaryOp::Div => s.is_float() && s != Scalar::F16,
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => !s.is_float(),
            _ => false,
        };
        if vector_ok {
            let (x, y) = (self.varying(s, l), self.varying(s, r));
            let res = x
                .iter()
                .zip(&y)
                .map(|(a, b)| {
                    let (a, b) = (*a, *b);
                    let ins = self.b.ins();
                    let v = match (op, s.is_float()) {
                        (BinaryOp::Add, true) => ins.fadd(a, b),
                        (BinaryOp::Sub, true) => ins.fsub(a, b),
                        (BinaryOp::Mul, true) => ins.fmul(a, b),
                        (BinaryOp::Div, true) => ins.fdiv(a, b),
                        (BinaryOp::Add, false) => ins.iadd(a, b),
                        (BinaryOp::Sub, false) => ins.isub(a, b),
                        (BinaryOp::Mul, false) => ins.imul(a, b),
                        (BinaryOp::And, _) => ins.band(a, b),
                        (BinaryOp::Or, _) => ins.bor(a, b),
                        _ => ins.bxor(a, b),
                    };
                    if matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) {
                        self.normalize(s, v)
                    } else {
                        v
                    }
                })
                .collect();
            return Ok(Lanes::Varying(res));
        }
        Ok(self.per_lane(&[(s, l), (s, r)], s, |cx, a| {
            cx.scalar_binary(op, s, a[0], a[1])
        }))
    }

    /// `x / d` and `x % d` for a 32- or 64-bit integer `x` consecutive
    /// across the chunk (stride 1) and a uniform `d` (`gid % width`, `gid /
    /// width`): one scalar division of lane 0's value, `x0 = q0·d + r0`;
    /// lane `i` is `r0 + i`, less `d` where that reaches `d`, and its
    /// quotient `q0`, plus 1 there. That holds when at most one lane
    /// passes a multiple of `d` — `d ≥ W` — the lanes do not wrap (lane 0 ≤
    /// lane W-1), `x0 ≥ 0` for signed types, and `r0 + i` cannot overflow
    /// (`d` at most half the type's maximum); otherwise, tested at run
    /// time, the general form. `None` when `x` and `d` are not so shaped.
    fn linear_div_rem(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: ValueId,
        b: ValueId,
    ) -> LResult<Option<Lanes>> {
        if !s.is_int() || s.bits() < 32 || self.kernel.func().ty(a).lanes() != 1 {
            return Ok(None);
        }
        if self.kernel.uni().shape(a) != Shape::Linear(1)
            || self.kernel.uni().shape(b) != Shape::Uniform
        {
            return Ok(None);
        }
        if !self.one_map_at(a, s.bits()) {
            return Ok(None);
        }
        let (l, r) = (self.value(a)?, self.value(b)?);
        let (Some(l), Some(Lanes::Uniform(d))) = (l.first().cloned(), r.first().cloned()) else {
            return Ok(None);
        };
        let ty = natural(s);
        let signed = s.is_signed();
        let (check, fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let piece_ty = if ty == types::I64 {
            types::I64X2
        } else {
            types::I32X4
        };
        let pieces = (self.kernel.w() / piece_ty.lane_count()) as usize;
        for _ in 0..pieces {
            self.b.append_block_param(join, piece_ty);
        }
        // A power of two (`% get_local_size(0)`): for unsigned types one
        // mask or shift per piece, before any lane is recomputed.
        let (pow2, below_d) = self.power_of_two(d);
        if s == Scalar::I32 {
            // A positive power of two: shifts and masks (uniform_div.rs).
            let (positive, below) = self.positive_power_of_two(d);
            let by_shift = self.b.create_block();
            self.b.ins().brif(positive, by_shift, &[], check, &[]);
            self.enter(by_shift);
            let x = self.varying(s, &l);
            let pieces = self.signed_pow2_div_rem(op, &x, d, below);
            self.b.ins().jump(join, &pieces);
        } else if signed {
            self.b.ins().jump(check, &[]);
        } else {
            let by_mask = self.b.create_block();
            self.b.ins().brif(pow2, by_mask, &[], check, &[]);
            self.b.switch_to_block(by_mask);
            self.b.seal_block(by_mask);
            let x = self.varying(s, &l);
            let pieces = self.pow2_div_rem(op, &x, d, below_d);
            self.b.ins().jump(join, &pieces);
        }
        self.b.switch_to_block(check);
        self.b.seal_block(check);
        // The run-time conditions of the fast form.
        let x0 = self.lane_scalar(a, 0)?;
        let xl = self.lane_scalar(a, self.kernel.w() - 1)?;
        let le = if signed {
            IntCC::SignedLessThanOrEqual
        } else {
            IntCC::UnsignedLessThanOrEqual
        };
        let ordered = self.b.ins().icmp(le, x0, xl);
        let half = if ty == types::I64 {
            i64::MAX / 2
        } else {
            i64::from(i32::MAX / 2)
        };
        let big = self.b.ins().icmp_imm_s(
            IntCC::UnsignedGreaterThanOrEqual,
            d,
            i64::from(self.kernel.w()),
        );
        let small = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, d, half);
        let mut ok = self.b.ins().band(ordered, big);
        ok = self.b.ins().band(ok, small);
        if signed {
            let nonneg = self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, x0, 0);
            ok = self.b.ins().band(ok, nonneg);
        }
        self.b.ins().brif(ok, fast, &[], slow, &[]);

        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        // Lane 0's quotient and remainder: a shift and a mask for a power
        // of two (signed types only reach here with one), else a division.
        let qr = self.pow2_or_divided(
            x0,
            d,
            pow2,
            below_d,
            &[BinaryOp::Div, BinaryOp::Rem],
            |cx| vec![cx.b.ins().udiv(x0, d), cx.b.ins().urem(x0, d)],
        );
        let (q0, r0) = (qr[0], qr[1]);
        let r0v = self.b.ins().splat(piece_ty, r0);
        let dv = self.b.ins().splat(piece_ty, d);
        let iota = if ty == types::I64 {
            self.cache.iota64().to_vec()
        } else {
            self.cache.iota32().to_vec()
        };
        let out: Vec<BlockArg> = iota
            .iter()
            .map(|i| {
                let t = self.b.ins().iadd(r0v, *i);
                // All ones where lane `i` stays below `d`.
                let below = self.b.ins().icmp(IntCC::SignedGreaterThan, dv, t);
                let v = if op == BinaryOp::Rem {
                    let wrapped = self.b.ins().isub(t, dv);
                    self.b.ins().bitselect(below, t, wrapped)
                } else {
                    let q1 = self.b.ins().iadd_imm_s(q0, 1);
                    let q1v = self.b.ins().splat(piece_ty, q1);
                    self.b.ins().iadd(q1v, below)
                };
                BlockArg::Value(v)
            })
            .collect();
        self.b.ins().jump(join, &out);

        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let general = if s == Scalar::I32 {
            let x = self.varying(s, &l);
            self.signed_div_rem_general(op, &l, &x, d)
        } else {
            self.div_rem_lane_by_lane(op, s, &l, d)
        };
        self.b.ins().jump(join, &general);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.stats.linear_divisions += 1;
        Ok(Some(Lanes::Varying(self.b.block_params(join).to_vec())))
    }

    /// Unsigned `/` and `%` of varying lanes by a uniform divisor (`i %
    /// get_local_size(0)`): when the divisor is a power of two, checked at
    /// run time, they are one shift or mask per piece; otherwise, for
    /// 32-bit lanes on x86-64, in double (`unsigned_div_rem_in_double`),
    /// else lane by lane, with the IR's rule that dividing by zero gives 0.
    fn unsigned_div_by_uniform(&mut self, op: BinaryOp, s: Scalar, l: &Lanes, d: Value) -> Lanes {
        let x = self.varying(s, l);
        let (pow2, other, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for v in &x {
            let ty = self.b.func.dfg.value_type(*v);
            self.b.append_block_param(join, ty);
        }
        let (is_pow2, below) = self.power_of_two(d);
        self.b.ins().brif(is_pow2, pow2, &[], other, &[]);

        self.b.switch_to_block(pow2);
        let fast = self.pow2_div_rem(op, &x, d, below);
        self.b.ins().jump(join, &fast);

        self.b.switch_to_block(other);
        let x86 = cranelift_module::Module::isa(&*self.jit)
            .triple()
            .architecture
            == target_lexicon::Architecture::X86_64;
        let slow = if s == Scalar::U32 && x86 {
            self.unsigned_div_rem_in_double(op, &x, d)
        } else {
            self.div_rem_lane_by_lane(op, s, l, d)
        };
        self.b.ins().jump(join, &slow);
        self.b.switch_to_block(join);
        Lanes::Varying(self.b.block_params(join).to_vec())
    }

    /// Whether `d` is a power of two (an `i8`; 0 is not), and `d - 1`.
    pub(super) fn power_of_two(&mut self, d: Value) -> (Value, Value) {
        let below = self.b.ins().iadd_imm_s(d, -1);
        let common = self.b.ins().band(d, below);
        let single_bit = self.b.ins().icmp_imm_s(IntCC::Equal, common, 0);
        let nonzero = self.b.ins().icmp_imm_s(IntCC::NotEqual, d, 0);
        (self.b.ins().band(single_bit, nonzero), below)
    }

    /// Unsigned `x / d` or `x % d` of pieces `x` by a power of two `d`
    /// (`below` = `d - 1`): a shift or a mask per piece.
    fn pow2_div_rem(&mut self, op: BinaryOp, x: &[Value], d: Value, below: Value) -> Vec<BlockArg> {
        let shift = self.b.ins().ctz(d);
        x.iter()
            .map(|v| {
                let ty = self.b.func.dfg.value_type(*v);
                let r = if op == BinaryOp::Rem {
                    let lane = ty.lane_type();
                    let m = match self.b.func.dfg.value_type(below) {
                        t if t == lane => below,
                        t if t.bits() < lane.bits() => self.b.ins().uextend(lane, below),
                        _ => self.b.ins().ireduce(lane, below),
                    };
                    let splat = self.b.ins().splat(ty, m);
                    self.b.ins().band(*v, splat)
                } else {
                    self.b.ins().ushr(*v, shift)
                };
                BlockArg::Value(r)
            })
            .collect()
    }

    /// `/` or `%` of lanes `l` by a uniform `d`, lane by lane, with the
    /// IR's rule that dividing by zero gives 0.
    pub(super) fn div_rem_lane_by_lane(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        l: &Lanes,
        d: Value,
    ) -> Vec<BlockArg> {
        let lanes = match self.per_lane(&[(s, l), (s, &Lanes::Uniform(d))], s, |cx, a| {
            cx.scalar_binary(op, s, a[0], a[1])
        }) {
            Lanes::Varying(v) => v,
            Lanes::Uniform(v) => vec![v],
        };
        lanes.into_iter().map(BlockArg::Value).collect()
    }

    /// Unsigned `x / d` or `x % d` of one lane by a uniform `d`: a shift or
    /// a mask when `d` is a power of two (tested once, outside any loop
    /// over the lanes), else the division. A lane recomputed for a per-lane
    /// access (`slot[(lid + 1) % get_local_size(0)]` where the chunk wraps)
    /// took a hardware division per lane.
    pub fn scalar_div_rem_by_uniform(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        x: Value,
        d: Value,
    ) -> Value {
        let (pow2, below) = self.power_of_two(d);
        self.pow2_or_divided(x, d, pow2, below, &[op], |cx| {
            vec![cx.scalar_binary(op, s, x, d)]
        })[0]
    }

    /// Scalar `x / d` and/or `x % d` (`ops`, in that order) for unsigned
    /// or non-negative `x`: a shift or a mask where `pow2` (`below` =
    /// `d - 1`), else what `divide` emits, one value per op.
    fn pow2_or_divided(
        &mut self,
        x: Value,
        d: Value,
        pow2: Value,
        below: Value,
        ops: &[BinaryOp],
        divide: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Vec<Value> {
        let (by_shift, by_division, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let ty = self.b.func.dfg.value_type(x);
        for _ in ops {
            self.b.append_block_param(join, ty);
        }
        self.b.ins().brif(pow2, by_shift, &[], by_division, &[]);
        self.enter(by_shift);
        let shifted: Vec<BlockArg> = ops
            .iter()
            .map(|op| {
                BlockArg::Value(if *op == BinaryOp::Rem {
                    self.b.ins().band(x, below)
                } else {
                    let shift = self.b.ins().ctz(d);
                    self.b.ins().ushr(x, shift)
                })
            })
            .collect();
        self.b.ins().jump(join, &shifted);
        self.enter(by_division);
        let divided: Vec<BlockArg> = divide(self).into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &divided);
        self.enter(join);
        self.b.block_params(join).to_vec()
    }

    pub fn scalar_binary(&mut self, op: BinaryOp, s: Scalar, a: Value, b: Value) -> Value {
        let t = natural(s);
        if s.is_float() {
            let ins = self.b.ins();
            return match op {
                BinaryOp::Add => ins.fadd(a, b),
                BinaryOp::Sub => ins.fsub(a, b),
                BinaryOp::Mul => ins.fmul(a, b),
                BinaryOp::Div => ins.fdiv(a, b),
                // Not produced for floats; fmod is a builtin.
                _ => ins.fdiv(a, b),
            };
        }
        match op {
            BinaryOp::Add => self.b.ins().iadd(a, b),
            BinaryOp::Sub => self.b.ins().isub(a, b),
            BinaryOp::Mul => self.b.ins().imul(a, b),
            BinaryOp::And => self.b.ins().band(a, b),
            BinaryOp::Or => self.b.ins().bor(a, b),
            BinaryOp::Xor => self.b.ins().bxor(a, b),
            BinaryOp::Shl | BinaryOp::Shr => {
                let amt = self.b.ins().band_imm_s(b, i64::from(s.bits().max(1) - 1));
                match (op, s.is_signed()) {
                    (BinaryOp::Shl, _) => self.b.ins().ishl(a, amt),
                    (_, true) => self.b.ins().sshr(a, amt),
                    (_, false) => self.b.ins().ushr(a, amt),
                }
            }
            BinaryOp::Div | BinaryOp::Rem => {
                let zero = self.b.ins().iconst(t, 0);
                let one = self.b.ins().iconst(t, 1);
                let b_zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                let mut d = self.b.ins().select(b_zero, one, b);
                if s.is_signed() {
                    let (min, _) = int_range(s);
                    let is_min = self.b.ins().icmp_imm_s(IntCC::Equal, a, min as i64);
                    let is_m1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                    let both = self.b.ins().band(is_min, is_m1);
                    d = self.b.ins().select(both, one, d);
                }
                let r = match (op, s.is_signed()) {
                    (BinaryOp::Div, true) => self.b.ins().sdiv(a, d),
                    (BinaryOp::Div, false) => self.b.ins().udiv(a, d),
                    (_, true) => self.b.ins().srem(a, d),
                    (_, false) => self.b.ins().urem(a, d),
                };
                self.b.ins().select(b_zero, zero, r)
            }
        }
    }

    pub fn lower_cmp(&mut self, op: CmpOp, a: ValueId, b: ValueId) -> LResult<Val> {
        if let Some(m) = self.linear_compare(op, a, b)? {
            return Ok(m);
        }
        let s = self.elem(a)?;
        let (x, y) = (self.value(a)?, self.value(b)?);
        Ok(x.iter()
            .zip(&y)
            .map(|(l, r)| self.compare(op, s, l, r))
            .collect())
    }

    /// For `a op b` (`a`, `b` integers) with one side consecutive across
    /// the chunk (stride 1, lanes exactly lane 0's value plus `i` in its
    /// width, [`FunctionCx::one_map_at`]) and the other uniform: the
    /// consecutive side, the uniform side's value and `op` turned so that
    /// it reads `consecutive op uniform`.
    fn linear_against_uniform(
        &self,
        op: CmpOp,
        a: ValueId,
        b: ValueId,
    ) -> LResult<Option<(ValueId, Value, CmpOp)>> {
        let s = self.elem(a)?;
        if !s.is_int() || self.kernel.func().ty(a).lanes() != 1 {
            return Ok(None);
        }
        let (lin, uniform, op) = match (self.kernel.uni().shape(a), self.kernel.uni().shape(b)) {
            (Shape::Linear(1), Shape::Uniform) => (a, b, op),
            (Shape::Uniform, Shape::Linear(1)) => (b, a, op.swapped()),
            _ => return Ok(None),
        };
        if !self.one_map_at(lin, s.bits()) {
            return Ok(None);
        }
        let lin_varies = matches!(self.value(lin)?.first(), Some(Lanes::Varying(_)));
        match self.value(uniform)?.first() {
            Some(Lanes::Uniform(u)) if lin_varies => Ok(Some((lin, *u, op))),
            _ => Ok(None),
        }
    }

    /// `a op b` for an integer consecutive across the chunk (stride 1) and a
    /// uniform (either side). The lanes where it holds are a prefix, a
    /// suffix or one lane, found from lane 0's value by scalar arithmetic
    /// and turned into masks by one compare of the lane numbers per `i32x4`
    /// piece, where the general form compares every lane (four `i64x2`
    /// compares and two narrowings for a `size_t` at W = 8). The lanes must
    /// be lane 0's value plus `i` in the comparison's width
    /// ([`FunctionCx::one_map_at`]); a chunk whose lanes pass the top of
    /// the comparison's order (`MAX` to `MIN`) takes the general form.
    fn linear_compare(&mut self, op: CmpOp, a: ValueId, b: ValueId) -> LResult<Option<Val>> {
        let s = self.elem(a)?;
        // For 32-bit lanes the general form is already one compare per
        // piece, no dearer than this one.
        if s.bits() != 64 {
            return Ok(None);
        }
        let Some((lin, bound, lin_op)) = self.linear_against_uniform(op, a, b)? else {
            return Ok(None);
        };
        let (Some(l), Some(r)) = (
            self.value(a)?.first().cloned(),
            self.value(b)?.first().cloned(),
        ) else {
            return Ok(None);
        };
        let ty = natural(s);
        let signed = s.is_signed();
        let w = i64::from(self.kernel.w());
        let x0 = self.lane_scalar(lin, 0)?;
        // `bound - x0` modulo 2^bits: the lane holding `bound`, if any.
        let diff = self.b.ins().isub(bound, x0);
        let lt = if signed {
            IntCC::SignedLessThan
        } else {
            IntCC::UnsignedLessThan
        };
        let le = if signed {
            IntCC::SignedLessThanOrEqual
        } else {
            IntCC::UnsignedLessThanOrEqual
        };
        // The lanes where the comparison holds: `(lane count, kind)`.
        let (count, suffix, one) = match lin_op {
            CmpOp::Eq | CmpOp::Ne => {
                let wk = self.b.ins().iconst(ty, w);
                (self.b.ins().umin(diff, wk), lin_op == CmpOp::Ne, true)
            }
            CmpOp::Lt | CmpOp::Ge => {
                // Lanes below `bound`: none when `bound <= x0`, else
                // `bound - x0` of them, at most W.
                let none = self.b.ins().icmp(le, bound, x0);
                let wk = self.b.ins().iconst(ty, w);
                let c = self.b.ins().umin(diff, wk);
                let zero = self.b.ins().iconst(ty, 0);
                (
                    self.b.ins().select(none, zero, c),
                    lin_op == CmpOp::Ge,
                    false,
                )
            }
            CmpOp::Le | CmpOp::Gt => {
                // Lanes at most `bound`: none when `bound < x0`, else
                // `bound - x0 + 1` of them, at most W.
                let none = self.b.ins().icmp(lt, bound, x0);
                let wk = self.b.ins().iconst(ty, w - 1);
                let c = self.b.ins().umin(diff, wk);
                let c = self.b.ins().iadd_imm_s(c, 1);
                let zero = self.b.ins().iconst(ty, 0);
                (
                    self.b.ins().select(none, zero, c),
                    lin_op == CmpOp::Gt,
                    false,
                )
            }
        };
        let count = if ty == types::I64 {
            self.b.ins().ireduce(types::I32, count)
        } else {
            count
        };
        let split = self.b.ins().splat(types::I32X4, count);
        let iota = self.cache.iota32().to_vec();
        let fast_masks = |cx: &mut Self| -> Vec<Value> {
            iota.iter()
                .map(|i| {
                    let cc = match (one, suffix) {
                        (true, false) => IntCC::Equal,
                        (true, true) => IntCC::NotEqual,
                        (false, false) => IntCC::SignedLessThan,
                        (false, true) => IntCC::SignedGreaterThanOrEqual,
                    };
                    cx.b.ins().icmp(cc, *i, split)
                })
                .collect()
        };
        if one {
            // One lane at most: exact whether or not the lanes wrap.
            return Ok(Some(vec![Lanes::Varying(fast_masks(self))]));
        }
        let xl = self.lane_scalar(lin, self.kernel.w() - 1)?;
        let ordered = self.b.ins().icmp(le, x0, xl);
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for _ in 0..self.kernel.w() / 4 {
            self.b.append_block_param(join, types::I32X4);
        }
        self.b.ins().brif(ordered, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let m: Vec<BlockArg> = fast_masks(self).into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &m);
        self.b.switch_to_block(slow);
        let Lanes::Varying(general) = self.compare(op, s, &l, &r) else {
            return Err(self.internal("a varying comparison gave a uniform result"));
        };
        let m: Vec<BlockArg> = general.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &m);
        self.b.switch_to_block(join);
        Ok(Some(vec![Lanes::Varying(
            self.b.block_params(join).to_vec(),
        )]))
    }

    /// For `cond`, a comparison (`<`, `<=`, `>`, `>=`) of an integer
    /// consecutive across the chunk (stride 1) with a uniform one: whether
    /// it holds in every lane and whether it holds in none (`i8`s), from
    /// the first and last lanes' values. Lanes that pass the top of the
    /// comparison's order (`MAX` to `MIN`) give two false answers, so the
    /// caller takes its general path. `None` for any other condition.
    pub fn linear_agreement(&mut self, cond: ValueId) -> LResult<Option<(Value, Value)>> {
        let vecl_ir::Inst::Cmp(op, a, b) = self.kernel.func().inst(cond).inst else {
            return Ok(None);
        };
        let s = self.elem(a)?;
        if s.bits() < 32 || matches!(op, CmpOp::Eq | CmpOp::Ne) {
            return Ok(None);
        }
        let Some((lin, bound, op)) = self.linear_against_uniform(op, a, b)? else {
            return Ok(None);
        };
        let first = self.lane_scalar(lin, 0)?;
        let last = self.lane_scalar(lin, self.kernel.w() - 1)?;
        let signed = s.is_signed();
        let cc = |op| int_cc(op, signed);
        // The chunk's lanes may pass the top of the order (`MAX` to `MIN`),
        // except for a local id, which stays far below it.
        let ordered =
            (!self.is_local_id(lin)).then(|| self.b.ins().icmp(cc(CmpOp::Le), first, last));
        // (the lane deciding "all", its test; the lane deciding "none",
        // the test that no lane passes)
        let (all, none) = match op {
            CmpOp::Lt => (
                self.b.ins().icmp(cc(CmpOp::Lt), last, bound),
                self.b.ins().icmp(cc(CmpOp::Ge), first, bound),
            ),
            CmpOp::Le => (
                self.b.ins().icmp(cc(CmpOp::Le), last, bound),
                self.b.ins().icmp(cc(CmpOp::Gt), first, bound),
            ),
            CmpOp::Gt => (
                self.b.ins().icmp(cc(CmpOp::Gt), first, bound),
                self.b.ins().icmp(cc(CmpOp::Le), last, bound),
            ),
            _ => (
                self.b.ins().icmp(cc(CmpOp::Ge), first, bound),
                self.b.ins().icmp(cc(CmpOp::Lt), last, bound),
            ),
        };
        Ok(Some(match ordered {
            Some(ordered) => (
                self.b.ins().band(all, ordered),
                self.b.ins().band(none, ordered),
            ),
            None => (all, none),
        }))
    }

    /// A comparison: an `i8` 0/1 for uniform operands, mask pieces otherwise.
    pub fn compare(&mut self, op: CmpOp, s: Scalar, l: &Lanes, r: &Lanes) -> Lanes {
        if let (Lanes::Uniform(a), Lanes::Uniform(b)) = (l, r) {
            return Lanes::Uniform(self.scalar_compare(op, s, *a, *b));
        }
        let (x, y) = (self.varying(s, l), self.varying(s, r));
        let m: Vec<Value> = x
            .iter()
            .zip(&y)
            .map(|(a, b)| {
                if s.is_float() {
                    self.b.ins().fcmp(float_cc(op), *a, *b)
                } else {
                    self.b.ins().icmp(int_cc(op, s.is_signed()), *a, *b)
                }
            })
            .collect();
        Lanes::Varying(if carrier(s).lane_count() == 2 {
            self.narrow_masks(&m)
        } else {
            m
        })
    }

    pub fn scalar_compare(&mut self, op: CmpOp, s: Scalar, a: Value, b: Value) -> Value {
        if s.is_float() {
            self.b.ins().fcmp(float_cc(op), a, b)
        } else {
            self.b.ins().icmp(int_cc(op, s.is_signed()), a, b)
        }
    }

    pub fn lower_select(&mut self, c: ValueId, a: ValueId, b: ValueId, ty: &Type) -> LResult<Val> {
        let s = elem_of(ty).ok_or_else(|| self.internal("select of a non-value"))?;
        let (cv, x, y) = (self.value(c)?, self.value(a)?, self.value(b)?);
        let mut out = Vec::with_capacity(x.len());
        for i in 0..x.len() {
            let cl = if cv.len() == 1 {
                cv[0].clone()
            } else {
                cv[i].clone()
            };
            out.push(self.select_lanes(s, &cl, &x[i], &y[i]));
        }
        Ok(out)
    }

    pub fn select_lanes(&mut self, s: Scalar, c: &Lanes, a: &Lanes, b: &Lanes) -> Lanes {
        match c {
            Lanes::Uniform(cv) => match (a, b) {
                (Lanes::Uniform(x), Lanes::Uniform(y)) => {
                    Lanes::Uniform(self.b.ins().select(*cv, *x, *y))
                }
                _ => {
                    let (x, y) = (self.varying(s, a), self.varying(s, b));
                    Lanes::Varying(
                        x.iter()
                            .zip(&y)
                            .map(|(p, q)| self.b.ins().select(*cv, *p, *q))
                            .collect(),
                    )
                }
            },
            Lanes::Varying(m) => {
                let (x, y) = (self.varying(s, a), self.varying(s, b));
                Lanes::Varying(self.blend(s, m, &x, &y))
            }
        }
    }

    pub fn lower_convert(
        &mut self,
        v: ValueId,
        ty: &Type,
        sat: bool,
        rounding: Rounding,
    ) -> LResult<Val> {
        let from = self.elem(v)?;
        let to = elem_of(ty).ok_or_else(|| self.internal("convert to a non-value"))?;
        let x = self.value(v)?;
        let mut out = Vec::with_capacity(x.len());
        for l in &x {
            out.push(self.convert(l, from, to, sat, rounding)?);
        }
        Ok(out)
    }

    pub fn convert(
        &mut self,
        l: &Lanes,
        from: Scalar,
        to: Scalar,
        sat: bool,
        rounding: Rounding,
    ) -> LResult<Lanes> {
        if from == to {
            return Ok(l.clone());
        }
        if from == Scalar::F16 || to == Scalar::F16 {
            return self.half_convert(l, from, to, rounding);
        }
        if let Some(mode) = directed_mode(rounding) {
            if let Some(r) = self.directed_convert(l, from, to, mode)? {
                return Ok(r);
            }
        }
        if let Lanes::Varying(p) = l {
            if let Some(v) = self.vector_convert(p, from, to, sat, rounding) {
                return Ok(Lanes::Varying(v));
            }
        }
        Ok(self.per_lane(&[(from, l)], to, |cx, a| {
            cx.scalar_convert(a[0], from, to, sat, rounding)
        }))
    }

    /// The scalar `base` when the `i64x2` pieces `p` are `base + lane` in
    /// every lane, as a work-item id is made (`splat(base) + iota`).
    fn base_plus_lane(&self, p: &[Value]) -> Option<Value> {
        let dfg = &self.b.func.dfg;
        let mut base = None;
        for (piece, want) in p.iter().zip(self.cache.iota64()) {
            let inst = dfg.value_def(*piece).inst()?;
            if dfg.insts[inst].opcode() != Opcode::Iadd {
                return None;
            }
            let args = dfg.inst_args(inst);
            if args[1] != *want {
                return None;
            }
            let b = self.splat_source(args[0])?;
            if base.is_some_and(|x| x != b) {
                return None;
            }
            base = Some(b);
        }
        (p.len() == self.cache.iota64().len())
            .then_some(base)
            .flatten()
    }

    fn vector_convert(
        &mut self,
        p: &[Value],
        from: Scalar,
        to: Scalar,
        sat: bool,
        r: Rounding,
    ) -> Option<Vec<Value>> {
        use Scalar::*;
        let int32 = |s: Scalar| matches!(s, I32 | U32);
        let int64 = |s: Scalar| matches!(s, I64 | U64);
        match (from, to) {
            (a, b) if int32(a) && int32(b) && !sat => Some(p.to_vec()),
            (a, b) if int64(a) && int64(b) && !sat => Some(p.to_vec()),
            (I32, F32) => Some(
                p.iter()
                    .map(|v| self.b.ins().fcvt_from_sint(types::F32X4, *v))
                    .collect(),
            ),
            (F32, I32) => Some(
                p.iter()
                    .map(|v| {
                        let v = match r {
                            Rounding::Rte => self.b.ins().nearest(*v),
                            Rounding::Rtp => self.b.ins().ceil(*v),
                            Rounding::Rtn => self.b.ins().floor(*v),
                            Rounding::Default | Rounding::Rtz => *v,
                        };
                        self.b.ins().fcvt_to_sint_sat(types::I32X4, v)
                    })
                    .collect(),
            ),
            (a, b) if int32(a) && int64(b) && !sat => Some(
                p.iter()
                    .flat_map(|v| {
                        if a == I32 {
                            [self.b.ins().swiden_low(*v), self.b.ins().swiden_high(*v)]
                        } else {
                            [self.b.ins().uwiden_low(*v), self.b.ins().uwiden_high(*v)]
                        }
                    })
                    .collect(),
            ),
            (a, b) if int64(a) && int32(b) && !sat => {
                if let Some(base) = self.base_plus_lane(p) {
                    // `(int)get_global_id(0)`: the low halves of `base + i`
                    // are `(int)base + i`, no narrowing shuffles.
                    let b32 = self.b.ins().ireduce(types::I32, base);
                    let s = self.b.ins().splat(types::I32X4, b32);
                    let iota = self.cache.iota32().to_vec();
                    return Some(iota.iter().map(|i| self.b.ins().iadd(s, *i)).collect());
                }
                Some(p.chunks(2).map(|c| self.narrow_pair(c[0], c[1])).collect())
            }
            (F32, F64) => Some(
                p.iter()
                    .flat_map(|v| {
                        let lo = self.b.ins().fvpromote_low(*v);
                        let as_i = self.vcast(types::I64X2, *v);
                        let zero = self.b.ins().iconst(types::I64, 0);
                        let z = self.b.ins().splat(types::I64X2, zero);
                        let hi_i = self.shuffle_bytes(
                            as_i,
                            z,
                            [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23],
                        );
                        let hi_f = self.vcast(types::F32X4, hi_i);
                        let hi = self.b.ins().fvpromote_low(hi_f);
                        [lo, hi]
                    })
                    .collect(),
            ),
            (F64, F32) if matches!(r, Rounding::Default | Rounding::Rte) => Some(
                p.chunks(2)
                    .map(|c| {
                        let a = self.b.ins().fvdemote(c[0]);
                        let b = self.b.ins().fvdemote(c[1]);
                        let r = self.shuffle_bytes(
                            a,
                            b,
                            [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23],
                        );
                        self.vcast(types::F32X4, r)
                    })
                    .collect(),
            ),
            (Bool, b)
                if carrier(b) == types::I32X4 && !is_narrow(b)
                    || matches!(b, I8 | I16 | U8 | U16) =>
            {
                // Masks are -1/0; integers want 1/0.
                let one = self.b.ins().iconst(types::I32, 1);
                let ones = self.b.ins().splat(types::I32X4, one);
                Some(p.iter().map(|v| self.b.ins().band(*v, ones)).collect())
            }
            (a, Bool) if a.is_int() && carrier(a) == types::I32X4 => {
                let zero = self.b.ins().iconst(types::I32, 0);
                let z = self.b.ins().splat(types::I32X4, zero);
                Some(
                    p.iter()
                        .map(|v| self.b.ins().icmp(IntCC::NotEqual, *v, z))
                        .collect(),
                )
            }
            (a, b) if is_narrow(b) && !sat && (int32(a) || is_narrow(a)) && b != F16 => {
                Some(p.iter().map(|v| self.normalize(b, *v)).collect())
            }
            (a, b) if is_narrow(a) && int32(b) && a != F16 && !sat => Some(p.to_vec()),
            _ => None,
        }
    }

    /// Picks 16 bytes from the concatenation of two 128-bit vectors.
    pub fn shuffle_bytes(&mut self, a: Value, b: Value, idx: [u8; 16]) -> Value {
        let a8 = self.vcast(types::I8X16, a);
        let b8 = self.vcast(types::I8X16, b);
        let imm = self.b.func.dfg.immediates.push(idx.to_vec().into());
        self.b.ins().shuffle(a8, b8, imm)
    }

    pub fn scalar_convert(
        &mut self,
        v: Value,
        from: Scalar,
        to: Scalar,
        sat: bool,
        rounding: Rounding,
    ) -> Value {
        let tt = natural(to);
        let ft = natural(from);
        if from == to {
            return v;
        }
        // A gathered 8- or 16-bit lane, already extended by its signedness
        // (`memory::load_lane`), which is how C widens it.
        if let Some((wide, loaded)) = self.vals.widened(v) {
            if loaded == from && to.is_int() && to.bits() > from.bits() {
                return if to.bits() == 64 {
                    wide
                } else {
                    self.b.ins().ireduce(tt, wide)
                };
            }
        }
        if to == Scalar::Bool {
            return if from.is_float() {
                let z = if from == Scalar::F32 {
                    self.b.ins().f32const(0.0)
                } else {
                    self.b.ins().f64const(0.0)
                };
                self.b.ins().fcmp(FloatCC::NotEqual, v, z)
            } else {
                self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
            };
        }
        if from.is_float() && to.is_float() {
            return if to == Scalar::F64 {
                self.b.ins().fpromote(tt, v)
            } else {
                self.b.ins().fdemote(tt, v)
            };
        }
        if from.is_float() {
            let r = match rounding {
                Rounding::Rte => self.b.ins().nearest(v),
                Rounding::Rtp => self.b.ins().ceil(v),
                Rounding::Rtn => self.b.ins().floor(v),
                Rounding::Default | Rounding::Rtz => v,
            };
            let wide = if to.bits() < 32 { types::I32 } else { tt };
            let x = if to.is_signed() {
                self.b.ins().fcvt_to_sint_sat(wide, r)
            } else {
                self.b.ins().fcvt_to_uint_sat(wide, r)
            };
            if wide == tt {
                return x;
            }
            let x = if sat {
                self.clamp_int(x, Scalar::I32, to, to.is_signed())
            } else {
                x
            };
            return self.b.ins().ireduce(tt, x);
        }
        if to.is_float() {
            let src = if from == Scalar::Bool {
                Scalar::U8
            } else {
                from
            };
            return if src.is_signed() {
                self.b.ins().fcvt_from_sint(tt, v)
            } else {
                self.b.ins().fcvt_from_uint(tt, v)
            };
        }
        // Integer to integer (bool counts as an unsigned 0/1).
        let from = if from == Scalar::Bool {
            Scalar::U8
        } else {
            from
        };
        let x = if sat {
            self.clamp_int(v, from, to, from.is_signed())
        } else {
            v
        };
        if tt.bits() < ft.bits() {
            self.b.ins().ireduce(tt, x)
        } else if tt.bits() > ft.bits() {
            if from.is_signed() {
                self.b.ins().sextend(tt, x)
            } else {
                self.b.ins().uextend(tt, x)
            }
        } else {
            x
        }
    }

    /// Conversions that round to a float in a mode other than to-nearest
    /// (int → float, double → float), lane by lane through `math.rs`.
    /// `None` when the conversion is exact or not of that kind.
    fn directed_convert(
        &mut self,
        l: &Lanes,
        from: Scalar,
        to: Scalar,
        mode: i32,
    ) -> LResult<Option<Lanes>> {
        let exact_int = from.bits() <= 16 || (to == Scalar::F64 && from.bits() <= 32);
        let sym = match (from, to) {
            (Scalar::F64, Scalar::F32) => "vecl_f64_to_f32",
            (f, _) if !f.is_int() || f == Scalar::Bool || !to.is_float() || exact_int => {
                return Ok(None)
            }
            (f, Scalar::F32) if f.is_signed() => "vecl_i64_to_f32",
            (_, Scalar::F32) => "vecl_u64_to_f32",
            (f, _) if f.is_signed() => "vecl_i64_to_f64",
            _ => "vecl_u64_to_f64",
        };
        let arg = if from.is_float() {
            types::F64
        } else {
            types::I64
        };
        let f = self.extern_fn(sym, &[arg, types::I32], Some(natural(to)))?;
        Ok(Some(self.per_lane(&[(from, l)], to, |cx, v| {
            let x = match from {
                Scalar::F64 => v[0],
                s if s.bits() == 64 => v[0],
                s if s.is_signed() => cx.b.ins().sextend(types::I64, v[0]),
                _ => cx.b.ins().uextend(types::I64, v[0]),
            };
            let m = cx.b.ins().iconst(types::I32, i64::from(mode));
            cx.call(f, &[x, m]).unwrap_or(v[0])
        })))
    }

    /// Clamps `v` (of type `from`) into the range of `to`, in `from`'s type.
    fn clamp_int(&mut self, v: Value, from: Scalar, to: Scalar, signed: bool) -> Value {
        let (fmin, fmax) = int_range(from);
        let (tmin, tmax) = int_range(to);
        let t = self.b.func.dfg.value_type(v);
        let mut x = v;
        if tmin > fmin {
            let k = self.b.ins().iconst(t, tmin as i64);
            x = if signed {
                self.b.ins().smax(x, k)
            } else {
                self.b.ins().umax(x, k)
            };
        }
        if tmax < fmax {
            let k = self.b.ins().iconst(t, tmax as i64);
            x = if signed {
                self.b.ins().smin(x, k)
            } else {
                self.b.ins().umin(x, k)
            };
        }
        x
    }

    pub fn lower_bitcast(&mut self, v: ValueId, ty: &Type) -> LResult<Val> {
        let from = self.elem(v)?;
        let to = elem_of(ty).ok_or_else(|| self.internal("bitcast to a non-value"))?;
        let x = self.value(v)?;
        if x.len() as u32 == ty.lanes() && from.size() == to.size() {
            let mut out = Vec::with_capacity(x.len());
            for l in &x {
                out.push(match l {
                    Lanes::Uniform(u) => Lanes::Uniform(self.scalar_bitcast(*u, to)),
                    Lanes::Varying(p) => Lanes::Varying(
                        p.iter()
                            .map(|q| {
                                let c = self.vcast(carrier(to), *q);
                                self.normalize(to, c)
                            })
                            .collect(),
                    ),
                });
            }
            return Ok(out);
        }
        self.bitcast_through_memory(&x, from, to, ty.lanes())
    }

    fn scalar_bitcast(&mut self, v: Value, to: Scalar) -> Value {
        let t = natural(to);
        if self.b.func.dfg.value_type(v) == t {
            v
        } else {
            self.b.ins().bitcast(t, MemFlagsData::new(), v)
        }
    }

    /// `as_T` between shapes with different component counts: each lane's
    /// bytes go through a scratch slot.
    fn bitcast_through_memory(
        &mut self,
        x: &Val,
        from: Scalar,
        to: Scalar,
        n_to: u32,
    ) -> LResult<Val> {
        let uniform = x.iter().all(|l| l.is_uniform());
        let scratch = self
            .b
            .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                128,
                4,
            ));
        let addr = self.b.ins().stack_addr(types::I64, scratch, 0);
        let lanes = if uniform { 1 } else { self.kernel.w() as usize };
        let mut per_comp: Vec<Vec<Value>> = vec![Vec::with_capacity(lanes); n_to as usize];
        for j in 0..lanes {
            for (c, l) in x.iter().enumerate() {
                let v = self.lane(from, l, j);
                self.b.ins().store(
                    MemFlagsData::trusted(),
                    v,
                    addr,
                    (c as u32 * from.size()) as i32,
                );
            }
            for (c, dst) in per_comp.iter_mut().enumerate() {
                let v = self.b.ins().load(
                    natural(to),
                    MemFlagsData::trusted(),
                    addr,
                    (c as u32 * to.size()) as i32,
                );
                dst.push(v);
            }
        }
        Ok(per_comp
            .into_iter()
            .map(|vals| {
                if uniform {
                    Lanes::Uniform(vals[0])
                } else {
                    Lanes::Varying(self.build(to, &vals))
                }
            })
            .collect())
    }
}

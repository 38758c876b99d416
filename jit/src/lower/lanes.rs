//! How IR values are carried in Cranelift values.
//!
//! A chunk runs W work-items (W = 4·k). One component of an IR value is
//! either **uniform** — one scalar in its natural Cranelift type (`bool` as
//! an `i8` 0/1) — or **varying** — W lanes in 128-bit vectors: 32-bit and
//! narrower types (and bools, as all-ones masks) in `i32x4`/`f32x4` pieces,
//! 64-bit types and pointers in `i64x2`/`f64x2` pieces. Narrow integers are
//! kept sign- or zero-extended in their 32-bit lanes. An IR vector (`float4`)
//! is one such component per element.
//!
//! Operations Cranelift has no vector form for go lane by lane
//! ([`FunctionCx::per_lane`]), the same fallback for every op.

use super::FunctionCx;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Opcode, Type as CType, Value};
use vecl_ir::{Scalar, Type};

/// One component of an IR value.
#[derive(Clone, Debug)]
pub(crate) enum Lanes {
    Uniform(Value),
    Varying(Vec<Value>),
}

impl Lanes {
    pub fn is_uniform(&self) -> bool {
        matches!(self, Lanes::Uniform(_))
    }
}

/// An IR value: one [`Lanes`] per component.
pub(crate) type Val = Vec<Lanes>;

/// The element scalar of a value type (pointers are 64-bit integers).
pub(crate) fn elem_of(ty: &Type) -> Option<Scalar> {
    match ty {
        Type::Scalar(s) | Type::Vector(s, _) => Some(*s),
        Type::Pointer(..) => Some(Scalar::U64),
        _ => None,
    }
}

/// The Cranelift type of a uniform value.
pub(crate) fn natural(s: Scalar) -> CType {
    match s {
        Scalar::Bool | Scalar::I8 | Scalar::U8 => types::I8,
        Scalar::I16 | Scalar::U16 | Scalar::F16 => types::I16,
        Scalar::I32 | Scalar::U32 => types::I32,
        Scalar::I64 | Scalar::U64 => types::I64,
        Scalar::F32 => types::F32,
        Scalar::F64 => types::F64,
    }
}

/// The vector type of one piece of a varying value.
pub(crate) fn carrier(s: Scalar) -> CType {
    match s {
        Scalar::F32 => types::F32X4,
        Scalar::I64 | Scalar::U64 => types::I64X2,
        Scalar::F64 => types::F64X2,
        _ => types::I32X4,
    }
}

/// Whether `s` travels in 32-bit lanes though it is narrower.
pub(crate) fn is_narrow(s: Scalar) -> bool {
    matches!(
        s,
        Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16 | Scalar::F16
    )
}

pub(crate) fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little)
}

impl FunctionCx<'_, '_> {
    /// Lanes per piece of a varying `s`.
    pub fn per_piece(&self, s: Scalar) -> usize {
        carrier(s).lane_count() as usize
    }

    pub fn piece_count(&self, s: Scalar) -> usize {
        self.kernel.w() as usize / self.per_piece(s)
    }

    /// A uniform scalar widened to its carrier's lane type.
    pub fn widen_to_lane(&mut self, s: Scalar, v: Value) -> Value {
        if let Some((wide, loaded)) = self.vals.widened(v) {
            if loaded == s {
                return self.b.ins().ireduce(types::I32, wide);
            }
        }
        let ins = self.b.ins();
        match s {
            Scalar::Bool => {
                let w = ins.uextend(types::I32, v);
                self.b.ins().ineg(w)
            }
            Scalar::I8 | Scalar::I16 => ins.sextend(types::I32, v),
            Scalar::U8 | Scalar::U16 | Scalar::F16 => ins.uextend(types::I32, v),
            _ => v,
        }
    }

    /// A lane's value back in its natural type.
    pub fn narrow_from_lane(&mut self, s: Scalar, v: Value) -> Value {
        match s {
            Scalar::Bool => {
                self.b
                    .ins()
                    .icmp_imm_s(cranelift_codegen::ir::condcodes::IntCC::NotEqual, v, 0)
            }
            s if is_narrow(s) => self.b.ins().ireduce(natural(s), v),
            _ => v,
        }
    }

    pub fn splat(&mut self, s: Scalar, v: Value) -> Vec<Value> {
        let l = self.widen_to_lane(s, v);
        let vec = self.b.ins().splat(carrier(s), l);
        vec![vec; self.piece_count(s)]
    }

    pub fn varying(&mut self, s: Scalar, l: &Lanes) -> Vec<Value> {
        match l {
            Lanes::Uniform(v) => self.splat(s, *v),
            Lanes::Varying(p) => p.clone(),
        }
    }

    /// Lane `j` of a component, in its natural type.
    pub fn lane(&mut self, s: Scalar, l: &Lanes, j: usize) -> Value {
        match l {
            Lanes::Uniform(v) => *v,
            Lanes::Varying(p) => {
                let pp = self.per_piece(s);
                let x = self.b.ins().extractlane(p[j / pp], (j % pp) as u8);
                self.narrow_from_lane(s, x)
            }
        }
    }

    /// A varying component from W natural scalars.
    pub fn build(&mut self, s: Scalar, lanes: &[Value]) -> Vec<Value> {
        let pp = self.per_piece(s);
        let mut out = Vec::with_capacity(lanes.len() / pp);
        for chunk in lanes.chunks(pp) {
            let first = self.widen_to_lane(s, chunk[0]);
            let mut v = self.b.ins().splat(carrier(s), first);
            for (i, x) in chunk.iter().enumerate().skip(1) {
                let l = self.widen_to_lane(s, *x);
                v = self.b.ins().insertlane(v, l, i as u8);
            }
            out.push(v);
        }
        if s != Scalar::Bool {
            if let Some(first) = out.first() {
                self.vals.record_built(*first, lanes.to_vec());
            }
        }
        out
    }

    /// Applies a scalar operation lane by lane (once if every input is uniform).
    pub fn per_lane(
        &mut self,
        ins: &[(Scalar, &Lanes)],
        out: Scalar,
        mut f: impl FnMut(&mut Self, &[Value]) -> Value,
    ) -> Lanes {
        if ins.iter().all(|(_, l)| l.is_uniform()) {
            let args: Vec<Value> = ins
                .iter()
                .map(|(_, l)| {
                    if let Lanes::Uniform(v) = l {
                        *v
                    } else {
                        unreachable!()
                    }
                })
                .collect();
            return Lanes::Uniform(f(self, &args));
        }
        self.stats.per_lane_ops += 1;
        let mut results = Vec::with_capacity(self.kernel.w() as usize);
        for j in 0..self.kernel.w() as usize {
            let args: Vec<Value> = ins.iter().map(|(s, l)| self.lane(*s, l, j)).collect();
            results.push(f(self, &args));
        }
        Lanes::Varying(self.build(out, &results))
    }

    /// Reinterprets a vector's bits as another vector type.
    pub fn vcast(&mut self, to: CType, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == to {
            v
        } else {
            self.b.ins().bitcast(to, little(), v)
        }
    }

    /// The low 32 bits of each lane of two `i64x2` pieces, as one `i32x4`.
    pub fn narrow_pair(&mut self, lo: Value, hi: Value) -> Value {
        let a = self.vcast(types::I8X16, lo);
        let b = self.vcast(types::I8X16, hi);
        let bytes: Vec<u8> = [0u8, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27].to_vec();
        let imm = self.b.func.dfg.immediates.push(bytes.into());
        let r = self.b.ins().shuffle(a, b, imm);
        self.vcast(types::I32X4, r)
    }

    /// Masks of a 64-bit-lane comparison → one `i32x4` mask per 4 lanes.
    pub fn narrow_masks(&mut self, pieces: &[Value]) -> Vec<Value> {
        pieces
            .chunks(2)
            .map(|p| self.narrow_pair(p[0], p[1]))
            .collect()
    }

    /// Piece `i` of the active mask, shaped for a value of scalar `s`.
    pub fn mask_piece_for(&mut self, s: Scalar, mask: &[Value], i: usize) -> Value {
        let c = carrier(s);
        let m = if c.lane_count() == 4 {
            mask[i]
        } else {
            let src = mask[i / 2];
            if i.is_multiple_of(2) {
                self.b.ins().swiden_low(src)
            } else {
                self.b.ins().swiden_high(src)
            }
        };
        self.vcast(c, m)
    }

    /// `mask ? a : b` lane-wise (mask as `i32x4` pieces).
    pub fn blend(&mut self, s: Scalar, mask: &[Value], a: &[Value], b: &[Value]) -> Vec<Value> {
        (0..a.len())
            .map(|i| {
                let m = self.mask_piece_for(s, mask, i);
                self.select_piece(m, a[i], b[i])
            })
            .collect()
    }

    /// `m ? a : b` for one piece whose mask lanes are all ones or zeros: one
    /// `and` (`and not`) when a side is an integer zero (`c ? x[i] : 0`),
    /// and `b ± (step & m)` when `a` is `b ± step` on integers (`i++` under
    /// a mask), or `b - m` for a step of one.
    pub fn select_piece(&mut self, m: Value, a: Value, b: Value) -> Value {
        if self.is_splat_of(a, 0) {
            return self.b.ins().band_not(b, m);
        }
        if self.is_splat_of(b, 0) {
            return self.b.ins().band(a, m);
        }
        match self.step_from(a, b) {
            Some((step, true)) if self.is_splat_of(step, 1) => self.b.ins().isub(b, m),
            Some((step, add)) => {
                let s = self.b.ins().band(step, m);
                if add {
                    self.b.ins().iadd(b, s)
                } else {
                    self.b.ins().isub(b, s)
                }
            }
            None => self.b.ins().bitselect(m, a, b),
        }
    }

    /// When the integer vector `new` is `old + step` or `old - step`: the
    /// step and whether it is added.
    fn step_from(&self, new: Value, old: Value) -> Option<(Value, bool)> {
        let dfg = &self.b.func.dfg;
        let ty = dfg.value_type(new);
        if !ty.is_vector() || !ty.lane_type().is_int() {
            return None;
        }
        let inst = dfg.value_def(new).inst()?;
        let args = dfg.inst_args(inst);
        match dfg.insts[inst].opcode() {
            Opcode::Iadd if args[0] == old => Some((args[1], true)),
            Opcode::Iadd if args[1] == old => Some((args[0], true)),
            Opcode::Isub if args[0] == old => Some((args[1], false)),
            _ => None,
        }
    }

    /// Re-extends narrow integers (and `half` bits) after wrapping vector
    /// arithmetic or a bitcast.
    pub fn normalize(&mut self, s: Scalar, v: Value) -> Value {
        match s {
            Scalar::I8 | Scalar::I16 => {
                let sh = if s == Scalar::I8 { 24 } else { 16 };
                let x = self.b.ins().ishl_imm_s(v, sh);
                self.b.ins().sshr_imm_s(x, sh)
            }
            // `half` travels zero-extended like `ushort`: a bitcast from a
            // sign-extended `short` must clear the upper bits.
            Scalar::U8 | Scalar::U16 | Scalar::F16 => {
                let m = if s == Scalar::U8 { 0xff } else { 0xffff };
                let k = self.b.ins().iconst(types::I32, m);
                let k = self.b.ins().splat(types::I32X4, k);
                self.b.ins().band(v, k)
            }
            _ => v,
        }
    }
}

//! Lowering expressions, with OpenCL C's typing rules.
//!
//! Scalars follow C99: integer promotion and the usual arithmetic
//! conversions. Vectors follow OpenCL C 6.2–6.3: a scalar operand widens to
//! the vector's element type, two vectors must have the same type (there are
//! no implicit vector conversions), comparisons and logical operators give
//! 0 / −1 in the signed integer type of the operands' width, and `?:` with
//! a vector condition selects per component by the condition's sign bit.
//! Swizzles are lvalues ([`Place::Comp`]) so `v.xy = …` and `v.s3 += 1`
//! write back the components they name.

use super::{to_loc, Breakable, LResult, Lowerer, Sym};
use crate::ast::*;
use crate::diag::Pos;
use vecl_ir::*;

/// Where an lvalue lives.
#[derive(Clone, Debug)]
pub(super) enum Place {
    Var(VarId),
    /// Memory at a pointer value.
    Mem(ValueId),
    /// Components of a vector lvalue.
    Comp(Box<LVal>, Vec<u8>),
    /// One component of a register vector chosen at run time (`v[i]`).
    DynComp(Box<LVal>, ValueId),
}

#[derive(Clone, Debug)]
pub(super) struct LVal {
    pub place: Place,
    /// The object's type.
    pub ty: Type,
    pub is_const: bool,
}

/// The result of lowering an expression.
#[derive(Clone, Debug)]
pub(super) enum Val {
    R(ValueId, Type),
    L(LVal),
    /// A `void` expression (a call of a void function, a cast to void).
    Void,
}

/// C's integer promotion.
pub(super) fn promote(s: Scalar) -> Scalar {
    if s.is_int() && s.bits() < 32 || s == Scalar::Bool {
        Scalar::I32
    } else {
        s
    }
}

/// The usual arithmetic conversions on two scalar types.
pub(super) fn arith_common(a: Scalar, b: Scalar) -> Scalar {
    if a.is_float() || b.is_float() {
        let rank = |s: Scalar| match s {
            Scalar::F64 => 3,
            Scalar::F32 => 2,
            Scalar::F16 => 1,
            _ => 0,
        };
        // `half` with `half` or an integer stays `half` (cl_khr_fp16);
        // whether `half` arithmetic is allowed at all is checked by the
        // caller ([`Lowerer::need_fp16`]).
        return if rank(a) >= rank(b) { a } else { b };
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let (wide, narrow) = if a.bits() >= b.bits() { (a, b) } else { (b, a) };
    if wide.bits() > narrow.bits() {
        wide
    } else {
        wide.unsigned_int_of_same_width()
    }
}

/// Whether `e` is a null pointer constant (C99 6.3.2.3): an integer
/// constant 0, possibly cast (to an integer type or `void *`), as `NULL`
/// (`((void *)0)`) is.
pub(super) fn is_null_pointer_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(0, _) => true,
        ExprKind::Cast(_, inner) => is_null_pointer_constant(inner),
        _ => false,
    }
}

/// `vec_step`: the number of elements, except that a 3-component vector
/// counts 4 (it occupies four elements' storage), as the OpenCL C
/// specification says.
pub(super) fn vec_step(t: &Type) -> u32 {
    match t.lanes() {
        3 => 4,
        n => n,
    }
}

fn is_arith(t: &Type) -> bool {
    matches!(t, Type::Scalar(_) | Type::Vector(..))
}

impl Lowerer<'_> {
    pub(super) fn lookup(&self, name: &str) -> Option<Sym> {
        if let Some(cx) = &self.cx {
            for s in cx.scopes.iter().rev() {
                if let Some(sym) = s.get(name) {
                    return Some(sym.clone());
                }
            }
        }
        self.globals.get(name).cloned()
    }

    pub(super) fn set_pos(&mut self, pos: Pos) {
        self.b().set_loc(to_loc(pos));
    }

    pub(super) fn konst(&mut self, ty: &Type, bits: u64) -> ValueId {
        match ty {
            Type::Vector(s, _) => {
                let c = self.b().const_bits(*s, bits);
                self.b().push(Inst::Splat(c), ty.clone())
            }
            Type::Scalar(s) => self.b().const_bits(*s, bits),
            _ => self.b().push(Inst::Const(bits), ty.clone()),
        }
    }

    /// The constant 1 (or 1.0) of a scalar or vector type.
    fn one(&mut self, ty: &Type) -> ValueId {
        let s = ty.scalar().unwrap_or(Scalar::I32);
        let bits = super::consts::CVal::Int(1, Scalar::I32).bits_as(s);
        self.konst(ty, bits)
    }

    pub(super) fn zero(&mut self, ty: &Type) -> ValueId {
        self.konst(ty, 0)
    }

    /// An expression, as an lvalue when it designates an object.
    pub(super) fn expr(&mut self, e: &Expr) -> LResult<Val> {
        self.set_pos(e.pos);
        use ExprKind::*;
        match &e.kind {
            Ident(name) => self.ident(name, e.pos),
            Int(v, s) => {
                let c = self.b().const_bits(*s, *v);
                Ok(Val::R(c, Type::Scalar(*s)))
            }
            Float(f, s) => {
                let bits = super::consts::CVal::Float(*f, *s).bits_as(*s);
                let c = self.b().const_bits(*s, bits);
                Ok(Val::R(c, Type::Scalar(*s)))
            }
            Str(bytes) => Ok(Val::L(self.string_literal(bytes))),
            Unary(op, a) => self.unary(*op, a, e.pos),
            Binary(op, a, b) => self.binary_expr(*op, a, b, e.pos),
            Assign(op, a, b) => self.assign(*op, a, b, e.pos),
            Cond(c, a, b) => self.conditional(c, a, b, e.pos),
            Call(name, args) => self.call(name, args, e.pos),
            Index(a, i) => self.index(a, i, e.pos),
            Member(a, name, arrow) => self.member(a, name, *arrow, e.pos),
            Cast(tn, a) => {
                let to = self.resolve_type_name(tn)?;
                if to == Type::Void {
                    self.expr(a)?;
                    return Ok(Val::Void);
                }
                let (v, from) = self.rvalue(a)?;
                let r = self.convert(v, &from, &to, e.pos, true)?;
                Ok(Val::R(r, to))
            }
            VecLit(tn, elems) => self.vector_literal(tn, elems, e.pos),
            CompoundLit(tn, init) => {
                // An unnamed private object initialised like a declaration.
                let t = self.resolve_type_name(tn)?;
                let t = self.complete_array_from_init(t, Some(init), e.pos)?;
                if t == Type::Void {
                    return self.err(e.pos, "compound literal of type 'void'");
                }
                let slot = self.b().new_slot("literal", t.clone());
                let p = self.b().push(
                    Inst::SlotAddr(slot),
                    Type::ptr(AddressSpace::Private, t.clone()),
                );
                let lv = LVal {
                    place: Place::Mem(p),
                    ty: t,
                    is_const: false,
                };
                self.init_local(&lv, init, e.pos)?;
                Ok(Val::L(lv))
            }
            SizeofType(tn) => {
                let t = self.resolve_type_name(tn)?;
                if t == Type::Void {
                    return self.err(e.pos, "invalid application of 'sizeof' to type 'void'");
                }
                let n = u64::from(self.module.size_of(&t));
                let c = self.b().const_bits(Scalar::U64, n);
                Ok(Val::R(c, Type::U64))
            }
            AlignofType(tn) => {
                let t = self.resolve_type_name(tn)?;
                let n = u64::from(self.module.align_of(&t));
                let c = self.b().const_bits(Scalar::U64, n);
                Ok(Val::R(c, Type::U64))
            }
            VecStepType(tn) => {
                let t = self.resolve_type_name(tn)?;
                let c = self.b().const_i32(vec_step(&t) as i32);
                Ok(Val::R(c, Type::I32))
            }
            SizeofExpr(a) | VecStepExpr(a) => {
                let t = self.type_without_effects(a)?;
                let (n, ty) = if matches!(e.kind, SizeofExpr(_)) {
                    (u64::from(self.module.size_of(&t)), Scalar::U64)
                } else {
                    (u64::from(vec_step(&t)), Scalar::I32)
                };
                let c = self.b().const_bits(ty, n);
                Ok(Val::R(c, Type::Scalar(ty)))
            }
            Comma(a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            StmtExpr(items) => self.statement_expr(items),
        }
    }

    /// The type of an expression whose code is thrown away (`sizeof x`).
    fn type_without_effects(&mut self, e: &Expr) -> LResult<Type> {
        let (ni, nv, ns) = {
            let f = self.b().func();
            (f.insts.len(), f.vars.len(), f.slots.len())
        };
        self.b().begin_block();
        self.cx().types_only += 1;
        let r = self.expr(e);
        self.cx().types_only -= 1;
        self.b().end_block();
        let f = self.b().func_mut();
        f.insts.truncate(ni);
        f.vars.truncate(nv);
        f.slots.truncate(ns);
        Ok(match r? {
            Val::R(_, t) => t,
            Val::L(lv) => lv.ty,
            Val::Void => Type::Void,
        })
    }

    fn ident(&mut self, name: &str, pos: Pos) -> LResult<Val> {
        let Some(sym) = self.lookup(name) else {
            return self.err(pos, format!("use of undeclared identifier '{name}'"));
        };
        Ok(match sym {
            Sym::Var { id, ty, is_const } => Val::L(LVal {
                place: Place::Var(id),
                ty,
                is_const,
            }),
            Sym::Slot { id, ty, is_const } => {
                let p = self.b().push(
                    Inst::SlotAddr(id),
                    Type::ptr(AddressSpace::Private, ty.clone()),
                );
                Val::L(LVal {
                    place: Place::Mem(p),
                    ty,
                    is_const,
                })
            }
            Sym::Global { id, ty, is_const } => {
                let space = self.module.globals[id.index()].space;
                let p = self
                    .b()
                    .push(Inst::GlobalAddr(id), Type::ptr(space, ty.clone()));
                Val::L(LVal {
                    place: Place::Mem(p),
                    ty,
                    is_const,
                })
            }
            Sym::Mem { ptr, ty } => Val::L(LVal {
                place: Place::Mem(ptr),
                ty,
                is_const: false,
            }),
            Sym::EnumConst(v) => {
                let c = self.b().const_i32(v as i32);
                Val::R(c, Type::I32)
            }
        })
    }

    /// A string literal: a `__constant char[N]` object (it decays to a pointer).
    fn string_literal(&mut self, bytes: &[u8]) -> LVal {
        let mut data = bytes.to_vec();
        data.push(0);
        let id = match self.strings.get(&data) {
            Some(id) => *id,
            None => {
                let id = GlobalId(self.module.globals.len() as u32);
                let ty = Type::array(Type::Scalar(Scalar::I8), data.len() as u32);
                let name = format!(".str.{}", self.strings.len());
                self.module.globals.push(Global {
                    name,
                    space: AddressSpace::Constant,
                    ty,
                    init: Some(data.clone()),
                });
                self.strings.insert(data.clone(), id);
                id
            }
        };
        let ty = self.module.globals[id.index()].ty.clone();
        let p = self.b().push(
            Inst::GlobalAddr(id),
            Type::ptr(AddressSpace::Constant, ty.clone()),
        );
        LVal {
            place: Place::Mem(p),
            ty,
            is_const: true,
        }
    }

    /// An expression as a value: lvalues are read, arrays decay to pointers.
    pub(super) fn rvalue(&mut self, e: &Expr) -> LResult<(ValueId, Type)> {
        match self.expr(e)? {
            Val::R(v, t) => {
                if t == Type::Void {
                    return self.err(e.pos, "expression of type 'void' used as a value");
                }
                Ok((v, t))
            }
            Val::L(lv) => self.lval_rvalue(&lv, e.pos),
            Val::Void => self.err(e.pos, "expression of type 'void' used as a value"),
        }
    }

    pub(super) fn lval_rvalue(&mut self, lv: &LVal, pos: Pos) -> LResult<(ValueId, Type)> {
        match (&lv.ty, &lv.place) {
            (Type::Array(elem, _), Place::Mem(p)) => {
                let space = self
                    .b()
                    .func()
                    .ty(*p)
                    .address_space()
                    .unwrap_or(AddressSpace::Private);
                let zero = self.b().const_i32(0);
                let t = Type::ptr(space, (**elem).clone());
                let v = self.b().push(Inst::Elem(*p, zero), t.clone());
                Ok((v, t))
            }
            (Type::Struct(_), _) => self.err(
                pos,
                "struct value used where a scalar, vector or pointer is required",
            ),
            _ => Ok((self.read(lv), lv.ty.clone())),
        }
    }

    pub(super) fn read(&mut self, lv: &LVal) -> ValueId {
        match &lv.place {
            Place::Var(id) => self.b().push(Inst::ReadVar(*id), lv.ty.clone()),
            Place::Mem(p) => self.b().push(Inst::Load(*p), lv.ty.clone()),
            Place::Comp(base, idx) => {
                let bv = self.read(base);
                if idx.len() == 1 {
                    self.b().push(Inst::Extract(bv, idx[0]), lv.ty.clone())
                } else {
                    self.b()
                        .push(Inst::Shuffle(bv, bv, idx.clone()), lv.ty.clone())
                }
            }
            Place::DynComp(base, idx) => {
                // A select chain over the lanes; an out-of-range index reads lane 0.
                let bv = self.read(base);
                let mut acc = self.b().push(Inst::Extract(bv, 0), lv.ty.clone());
                for k in 1..base.ty.lanes() as u8 {
                    let e = self.b().push(Inst::Extract(bv, k), lv.ty.clone());
                    let hit = self.lane_is(*idx, k);
                    acc = self.b().push(Inst::Select(hit, e, acc), lv.ty.clone());
                }
                acc
            }
        }
    }

    /// `idx == k` for a run-time component index.
    fn lane_is(&mut self, idx: ValueId, k: u8) -> ValueId {
        let c = self.b().const_u32(u32::from(k));
        self.b().cmp(CmpOp::Eq, idx, c)
    }

    pub(super) fn write(&mut self, lv: &LVal, v: ValueId) {
        match &lv.place {
            Place::Var(id) => self.b().stmt(Stmt::WriteVar(*id, v)),
            Place::Mem(p) => self.b().store(*p, v),
            Place::Comp(base, idx) => {
                let elem = Type::Scalar(lv.ty.scalar().unwrap_or(Scalar::I32));
                if let Place::Mem(p) = &base.place {
                    // In memory, write only the named components: other
                    // work-items may write the others concurrently.
                    let space = self
                        .b()
                        .func()
                        .ty(*p)
                        .address_space()
                        .unwrap_or(AddressSpace::Private);
                    for (k, lane) in idx.iter().enumerate() {
                        let part = if idx.len() == 1 {
                            v
                        } else {
                            self.b().push(Inst::Extract(v, k as u8), elem.clone())
                        };
                        let i = self.b().const_i32(i32::from(*lane));
                        let ep = self
                            .b()
                            .push(Inst::Elem(*p, i), Type::ptr(space, elem.clone()));
                        self.b().store(ep, part);
                    }
                    return;
                }
                let mut bv = self.read(base);
                for (k, lane) in idx.iter().enumerate() {
                    let part = if idx.len() == 1 {
                        v
                    } else {
                        let s = Type::Scalar(lv.ty.scalar().unwrap_or(Scalar::I32));
                        self.b().push(Inst::Extract(v, k as u8), s)
                    };
                    bv = self
                        .b()
                        .push(Inst::Insert(bv, *lane, part), base.ty.clone());
                }
                self.write(base, bv);
            }
            Place::DynComp(base, idx) => {
                let mut bv = self.read(base);
                for k in 0..base.ty.lanes() as u8 {
                    let old = self.b().push(Inst::Extract(bv, k), lv.ty.clone());
                    let hit = self.lane_is(*idx, k);
                    let new = self.b().push(Inst::Select(hit, v, old), lv.ty.clone());
                    bv = self.b().push(Inst::Insert(bv, k, new), base.ty.clone());
                }
                self.write(base, bv);
            }
        }
    }

    pub(super) fn lvalue(&mut self, e: &Expr) -> LResult<LVal> {
        match self.expr(e)? {
            Val::L(lv) => Ok(lv),
            Val::R(..) | Val::Void => self.err(e.pos, "expression is not assignable"),
        }
    }

    /// A scalar condition as `bool`.
    pub(super) fn condition(&mut self, e: &Expr) -> LResult<ValueId> {
        let (v, t) = self.rvalue(e)?;
        self.as_bool(v, &t, e.pos)
    }

    pub(super) fn as_bool(&mut self, v: ValueId, t: &Type, pos: Pos) -> LResult<ValueId> {
        self.set_pos(pos);
        match t {
            Type::Scalar(Scalar::Bool) => Ok(v),
            Type::Scalar(_) => {
                let z = self.zero(t);
                Ok(self.b().cmp(CmpOp::Ne, v, z))
            }
            Type::Pointer(..) => {
                let i = self.b().push(Inst::PtrToInt(v), Type::U64);
                let z = self.zero(&Type::U64);
                Ok(self.b().cmp(CmpOp::Ne, i, z))
            }
            _ => {
                let ts = self.type_str(t);
                self.err(
                    pos,
                    format!("statement requires expression of scalar type ('{ts}' invalid)"),
                )
            }
        }
    }

    /// Converts a value; `explicit` for casts (vector ↔ vector is never implicit).
    pub(super) fn convert(
        &mut self,
        v: ValueId,
        from: &Type,
        to: &Type,
        pos: Pos,
        explicit: bool,
    ) -> LResult<ValueId> {
        if from == to {
            return Ok(v);
        }
        if from.scalar() == Some(Scalar::F16) || to.scalar() == Some(Scalar::F16) {
            self.need_fp16(pos)?;
        }
        self.set_pos(pos);
        // The types' spellings, for diagnostics only.
        let names = |l: &Self| (l.type_str(from), l.type_str(to));
        match (from, to) {
            (Type::Scalar(_), Type::Scalar(Scalar::Bool)) => self.as_bool(v, from, pos),
            (Type::Scalar(fs), Type::Scalar(ts)) => {
                // Fold conversions of constants (`get_global_id(0)`, `x + 1.0f`).
                if let Inst::Const(bits) = self.b().func().inst(v).inst {
                    if *fs != Scalar::F16 && *ts != Scalar::F16 {
                        let c = if fs.is_float() {
                            let f = if *fs == Scalar::F32 {
                                f64::from(f32::from_bits(bits as u32))
                            } else {
                                f64::from_bits(bits)
                            };
                            super::consts::CVal::Float(f, *fs)
                        } else {
                            let shift = 64 - fs.bits().max(1);
                            let v = if fs.is_signed() {
                                ((bits << shift) as i64) >> shift
                            } else {
                                bits as i64
                            };
                            super::consts::CVal::Int(v, *fs)
                        };
                        let in_range = !ts.is_int()
                            || !fs.is_float()
                            || c.as_f64().is_finite() && c.as_f64().abs() < 9.2e18;
                        if in_range {
                            return Ok(self.b().const_bits(*ts, c.bits_as(*ts)));
                        }
                    }
                }
                Ok(self.b().push(
                    Inst::Convert {
                        value: v,
                        saturate: false,
                        rounding: Rounding::Default,
                    },
                    to.clone(),
                ))
            }
            (Type::Scalar(_), Type::Vector(s, _)) => {
                let e = self.convert(v, from, &Type::Scalar(*s), pos, explicit)?;
                Ok(self.b().push(Inst::Splat(e), to.clone()))
            }
            (Type::Vector(..), Type::Vector(..)) if explicit => {
                let (fs, ts) = names(self);
                self.err(
                    pos,
                    format!(
                    "invalid conversion between vector types '{fs}' and '{ts}': use convert_{ts}()"
                ),
                )
            }
            (Type::Vector(..), _) | (_, Type::Vector(..)) => {
                let (fs, ts) = names(self);
                self.err(
                    pos,
                    format!(
                        "cannot convert between {} '{fs}' and '{ts}'",
                        if explicit {
                            "types"
                        } else {
                            "vector values of different type"
                        }
                    ),
                )
            }
            (Type::Pointer(fsp, fp), Type::Pointer(tsp, tp)) => {
                if fsp != tsp && !explicit && *tsp != AddressSpace::Generic {
                    let (fs, ts) = names(self);
                    return self.err(
                        pos,
                        format!("assigning to '{ts}' from '{fs}' changes address space of pointer"),
                    );
                }
                if !explicit && fp != tp && **fp != Type::Void && **tp != Type::Void {
                    let (fs, ts) = names(self);
                    self.diags.warning(
                        pos,
                        format!("incompatible pointer types converting '{fs}' to '{ts}'"),
                    );
                }
                Ok(self.b().push(Inst::PtrCast(v), to.clone()))
            }
            (Type::Pointer(..), Type::Scalar(s)) if s.is_int() || *s == Scalar::Bool => {
                if *s == Scalar::Bool {
                    return self.as_bool(v, from, pos);
                }
                if !explicit {
                    let (fs, ts) = names(self);
                    self.diags.warning(
                        pos,
                        format!("incompatible pointer to integer conversion from '{fs}' to '{ts}'"),
                    );
                }
                let i = self.b().push(Inst::PtrToInt(v), Type::U64);
                self.convert(i, &Type::U64, to, pos, true)
            }
            (Type::Scalar(s), Type::Pointer(..)) if s.is_int() => {
                // An explicit cast, or a null pointer constant
                // (`assign_convert` refuses other integers implicitly): the
                // integer is an address as `PtrToInt` gives it.
                let wide = self.convert(v, from, &Type::U64, pos, true)?;
                Ok(self.b().push(Inst::IntToPtr(wide), to.clone()))
            }
            _ => {
                let (fs, ts) = names(self);
                self.err(pos, format!("cannot convert from '{fs}' to '{ts}'"))
            }
        }
    }

    /// `half` used as a value (arithmetic, conversions, builtins) is valid
    /// only with `cl_khr_fp16`: without it, a clear error.
    pub(super) fn need_fp16(&mut self, pos: Pos) -> LResult<()> {
        let scoped = self
            .opts
            .fp16_scope
            .as_ref()
            .and_then(|s| s.enabled_at(pos));
        if scoped.unwrap_or(self.opts.fp16) {
            return Ok(());
        }
        let why = if scoped.is_some() && self.opts.fp16 {
            " (it is disabled here by '#pragma OPENCL EXTENSION cl_khr_fp16 : disable' \
             or not yet enabled)"
        } else {
            ""
        };
        self.err(
            pos,
            format!(
                "arithmetic and conversions on 'half' need the cl_khr_fp16 extension \
                 (#pragma OPENCL EXTENSION cl_khr_fp16 : enable){why}; without it 'half' is \
                 only loaded and stored through vload_half/vstore_half"
            ),
        )
    }

    /// The common type of two arithmetic operands (OpenCL C 6.2.6, C99 6.3.1.8).
    pub(super) fn common_type(&mut self, a: &Type, b: &Type, pos: Pos) -> LResult<Type> {
        let bad = |s: &mut Self| {
            let (x, y) = (s.type_str(a), s.type_str(b));
            s.err(
                pos,
                format!("invalid operands to binary expression ('{x}' and '{y}')"),
            )
        };
        let half = |t: &Type| t.scalar() == Some(Scalar::F16);
        if half(a) || half(b) {
            self.need_fp16(pos)?;
        }
        match (a, b) {
            (Type::Scalar(x), Type::Scalar(y)) => Ok(Type::Scalar(arith_common(*x, *y))),
            (Type::Vector(..), Type::Scalar(s)) | (Type::Scalar(s), Type::Vector(..)) => {
                let v = if matches!(a, Type::Vector(..)) { a } else { b };
                let e = v.scalar().unwrap_or(Scalar::I32);
                if s.is_float() && !e.is_float() {
                    let (x, y) = (self.type_str(a), self.type_str(b));
                    return self.err(pos, format!("cannot convert between scalar type '{}' and vector type '{}' (operands '{x}' and '{y}')", self.type_str(&Type::Scalar(*s)), self.type_str(v)));
                }
                Ok(v.clone())
            }
            (Type::Vector(..), Type::Vector(..)) => {
                if a == b {
                    Ok(a.clone())
                } else {
                    let (x, y) = (self.type_str(a), self.type_str(b));
                    self.err(pos, format!("cannot convert between vector values of different type ('{x}' and '{y}')"))
                }
            }
            _ => bad(self),
        }
    }

    fn unary(&mut self, op: UnOp, a: &Expr, pos: Pos) -> LResult<Val> {
        match op {
            UnOp::Deref => {
                let (p, t) = self.rvalue(a)?;
                if super::images::ImageKind::of(&t).is_some() {
                    return self.err(pos, "image types cannot be dereferenced");
                }
                let Type::Pointer(_, inner) = &t else {
                    let ts = self.type_str(&t);
                    return self.err(
                        pos,
                        format!("indirection requires pointer operand ('{ts}' invalid)"),
                    );
                };
                if **inner == Type::Void {
                    return self.err(pos, "dereferencing a 'void *' pointer");
                }
                Ok(Val::L(LVal {
                    place: Place::Mem(p),
                    ty: (**inner).clone(),
                    is_const: false,
                }))
            }
            UnOp::AddrOf => {
                let lv = self.lvalue(a)?;
                self.address_of(&lv, pos)
            }
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let lv = self.lvalue(a)?;
                self.check_writable(&lv, a, pos)?;
                let old = self.read(&lv);
                self.set_pos(pos);
                let new = match &lv.ty {
                    Type::Pointer(..) => {
                        let d = self
                            .b()
                            .const_i64(if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                                1
                            } else {
                                -1
                            });
                        self.b().push(Inst::Index(old, d), lv.ty.clone())
                    }
                    t if is_arith(t) => {
                        let one = self.one(t);
                        let bop = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                            BinaryOp::Add
                        } else {
                            BinaryOp::Sub
                        };
                        self.b().binary(bop, old, one)
                    }
                    t => {
                        let ts = self.type_str(t);
                        return self.err(pos, format!("cannot increment value of type '{ts}'"));
                    }
                };
                self.write(&lv, new);
                let r = if matches!(op, UnOp::PreInc | UnOp::PreDec) {
                    new
                } else {
                    old
                };
                Ok(Val::R(r, lv.ty))
            }
            UnOp::Plus | UnOp::Neg | UnOp::BitNot => {
                let (v, t) = self.rvalue(a)?;
                let t2 = match &t {
                    Type::Scalar(s) => Type::Scalar(promote(*s)),
                    Type::Vector(..) => t.clone(),
                    _ => {
                        let ts = self.type_str(&t);
                        return self.err(
                            pos,
                            format!("invalid argument type '{ts}' to unary expression"),
                        );
                    }
                };
                if t2.scalar() == Some(Scalar::F16) && op != UnOp::Plus {
                    self.need_fp16(pos)?;
                }
                if op == UnOp::BitNot && t2.scalar().is_some_and(|s| s.is_float()) {
                    let ts = self.type_str(&t);
                    return self.err(
                        pos,
                        format!("invalid argument type '{ts}' to unary expression"),
                    );
                }
                let v = self.convert(v, &t, &t2, pos, false)?;
                self.set_pos(pos);
                let r = match op {
                    UnOp::Plus => v,
                    UnOp::Neg => self.b().push(Inst::Unary(UnaryOp::Neg, v), t2.clone()),
                    _ => self.b().push(Inst::Unary(UnaryOp::Not, v), t2.clone()),
                };
                Ok(Val::R(r, t2))
            }
            UnOp::Not => {
                let (v, t) = self.rvalue(a)?;
                if let Type::Vector(..) = t {
                    let z = self.zero(&t);
                    let m = self.b().cmp(CmpOp::Eq, v, z);
                    return Ok(self.mask_to_int(m, &t));
                }
                let b = self.as_bool(v, &t, a.pos)?;
                self.set_pos(pos);
                let r = self.b().push(Inst::Unary(UnaryOp::Not, b), Type::BOOL);
                Ok(Val::R(r, Type::BOOL))
            }
        }
    }

    fn address_of(&mut self, lv: &LVal, pos: Pos) -> LResult<Val> {
        match &lv.place {
            Place::Mem(p) => {
                let space = self
                    .b()
                    .func()
                    .ty(*p)
                    .address_space()
                    .unwrap_or(AddressSpace::Private);
                Ok(Val::R(*p, Type::ptr(space, lv.ty.clone())))
            }
            Place::Comp(base, idx) if idx.len() == 1 => {
                if let Place::Mem(p) = &base.place {
                    let space = self
                        .b()
                        .func()
                        .ty(*p)
                        .address_space()
                        .unwrap_or(AddressSpace::Private);
                    let i = self.b().const_i32(i32::from(idx[0]));
                    let t = Type::ptr(space, lv.ty.clone());
                    let e = self.b().push(Inst::Elem(*p, i), t.clone());
                    return Ok(Val::R(e, t));
                }
                self.err(pos, "cannot take the address of this vector component")
            }
            _ => self.err(pos, "cannot take the address of an rvalue"),
        }
    }

    /// A comparison mask → the OpenCL integer vector (−1 true, 0 false).
    pub(super) fn mask_to_int(&mut self, mask: ValueId, operand_ty: &Type) -> Val {
        let s = operand_ty
            .scalar()
            .unwrap_or(Scalar::I32)
            .signed_int_of_same_width();
        let t = operand_ty.with_scalar(s);
        let ones = self.konst(&t, u64::MAX >> (64 - s.bits()));
        let zero = self.zero(&t);
        let r = self.b().push(Inst::Select(mask, ones, zero), t.clone());
        Val::R(r, t)
    }

    fn check_writable(&mut self, lv: &LVal, e: &Expr, pos: Pos) -> LResult<()> {
        if lv.is_const {
            let what = match &e.kind {
                ExprKind::Ident(n) => {
                    format!("cannot assign to variable '{n}' with const-qualified type")
                }
                _ => "cannot assign to a const-qualified object".to_string(),
            };
            return self.err(pos, what);
        }
        let mut base = lv;
        while let Place::Comp(b, idx) = &base.place {
            if idx.iter().enumerate().any(|(i, x)| idx[..i].contains(x)) {
                return self.err(
                    pos,
                    "vector is not assignable (contains duplicate components)",
                );
            }
            base = b;
        }
        if let Place::Mem(p) = &base.place {
            if self.b().func().ty(*p).address_space() == Some(AddressSpace::Constant) {
                return self.err(
                    pos,
                    "cannot write to memory in the __constant address space",
                );
            }
        }
        if matches!(lv.ty, Type::Array(..)) {
            return self.err(pos, "array type is not assignable");
        }
        Ok(())
    }

    fn assign(&mut self, op: Option<BinOp>, a: &Expr, b: &Expr, pos: Pos) -> LResult<Val> {
        let lv = self.lvalue(a)?;
        self.check_writable(&lv, a, pos)?;
        if let Type::Struct(_) = lv.ty {
            if op.is_some() {
                return self.err(pos, "invalid operands to compound assignment of a struct");
            }
            let src = self.lvalue(b)?;
            if src.ty != lv.ty {
                let (x, y) = (self.type_str(&lv.ty), self.type_str(&src.ty));
                return self.err(
                    pos,
                    format!("assigning to '{x}' from incompatible type '{y}'"),
                );
            }
            let (Place::Mem(dst), Place::Mem(sp)) = (&lv.place, &src.place) else {
                return self.err(pos, "struct assignment needs objects in memory");
            };
            let size = self.module.size_of(&lv.ty);
            let loc = to_loc(pos);
            self.b().stmt(Stmt::Copy {
                dst: *dst,
                src: *sp,
                size,
                loc,
            });
            return Ok(Val::L(lv));
        }
        let (v, t) = match op {
            None => self.rvalue(b)?,
            Some(bop) => {
                let old = self.read(&lv);
                let (rv, rt) = self.rvalue(b)?;
                let (r, t) = self.binary_values(bop, (old, lv.ty.clone()), (rv, rt), pos)?;
                if matches!(lv.ty, Type::Scalar(_)) && matches!(t, Type::Vector(..)) {
                    let (x, y) = (self.type_str(&lv.ty), self.type_str(&t));
                    return self.err(
                        pos,
                        format!("assigning to '{x}' from incompatible type '{y}'"),
                    );
                }
                (r, t)
            }
        };
        let v = self.assign_convert(v, &t, &lv.ty, pos, b)?;
        self.write(&lv, v);
        Ok(Val::R(v, lv.ty))
    }

    /// The implicit conversion of an assignment (or argument, or return).
    pub(super) fn assign_convert(
        &mut self,
        v: ValueId,
        from: &Type,
        to: &Type,
        pos: Pos,
        src: &Expr,
    ) -> LResult<ValueId> {
        if let (Type::Vector(..), Type::Scalar(_)) = (from, to) {
            let (x, y) = (self.type_str(to), self.type_str(from));
            return self.err(
                pos,
                format!("assigning to '{x}' from incompatible type '{y}'"),
            );
        }
        if to.is_pointer() && from.scalar().is_some() && is_null_pointer_constant(src) {
            // A null pointer constant converts to any pointer type, in any
            // address space.
            let zero = self.b().const_bits(Scalar::U64, 0);
            return Ok(self.b().push(Inst::IntToPtr(zero), to.clone()));
        }
        if to.is_pointer() && from.is_pointer() && is_null_pointer_constant(src) {
            let zero = self.b().const_bits(Scalar::U64, 0);
            return Ok(self.b().push(Inst::IntToPtr(zero), to.clone()));
        }
        if let (Type::Scalar(s), Type::Pointer(..)) = (from, to) {
            let is_null = is_null_pointer_constant(src);
            if !is_null || !s.is_int() {
                let (x, y) = (self.type_str(to), self.type_str(from));
                return self.err(
                    pos,
                    format!(
                        "incompatible integer to pointer conversion assigning to '{x}' from '{y}'"
                    ),
                );
            }
        }
        self.convert(v, from, to, pos, false)
    }

    /// Whether evaluating an expression unconditionally is safe and cheap
    /// (no memory access, division, call or side effect).
    pub(super) fn is_pure(&self, e: &Expr) -> bool {
        use ExprKind::*;
        match &e.kind {
            Int(..) | Float(..) => true,
            Ident(n) => matches!(self.lookup(n), Some(Sym::Var { .. } | Sym::EnumConst(_))),
            Unary(UnOp::Neg | UnOp::Plus | UnOp::Not | UnOp::BitNot, a) | Cast(_, a) => {
                self.is_pure(a)
            }
            Binary(op, a, b) => {
                !matches!(op, BinOp::Div | BinOp::Rem) && self.is_pure(a) && self.is_pure(b)
            }
            Member(a, _, false) => self.is_pure(a),
            Cond(c, a, b) => self.is_pure(c) && self.is_pure(a) && self.is_pure(b),
            VecLit(_, xs) => xs.iter().all(|x| self.is_pure(x)),
            _ => false,
        }
    }

    fn binary_expr(&mut self, op: BinOp, a: &Expr, b: &Expr, pos: Pos) -> LResult<Val> {
        if matches!(op, BinOp::LogAnd | BinOp::LogOr) {
            return self.logical(op, a, b, pos);
        }
        let x = self.rvalue(a)?;
        let y = self.rvalue(b)?;
        let (v, t) = self.binary_values(op, x, y, pos)?;
        Ok(Val::R(v, t))
    }

    fn logical(&mut self, op: BinOp, a: &Expr, b: &Expr, pos: Pos) -> LResult<Val> {
        let (av, at) = self.rvalue(a)?;
        // With a vector on either side the operator works per component
        // on both operands, evaluated (OpenCL C 6.3.h): a scalar left
        // operand does not short-circuit a vector right one.
        // Code lowered only for its type is thrown away: there the right
        // operand is lowered at once rather than looked ahead at.
        let scalar_a = !matches!(at, Type::Vector(..));
        let early_b = if scalar_a && self.cx().types_only > 0 {
            Some(self.rvalue(b)?)
        } else {
            None
        };
        let vector = !scalar_a
            || match &early_b {
                Some((_, bt)) => matches!(bt, Type::Vector(..)),
                None => matches!(self.type_without_effects(b)?, Type::Vector(..)),
            };
        if vector {
            let (bv, bt) = match early_b {
                Some(x) => x,
                None => self.rvalue(b)?,
            };
            let ct = self.common_type(&at, &bt, pos)?;
            let av = self.convert(av, &at, &ct, pos, false)?;
            let bv = self.convert(bv, &bt, &ct, pos, false)?;
            let z = self.zero(&ct);
            let ma = self.b().cmp(CmpOp::Ne, av, z);
            let mb = self.b().cmp(CmpOp::Ne, bv, z);
            let Val::R(ia, it) = self.mask_to_int(ma, &ct) else {
                unreachable!("mask_to_int gives an rvalue")
            };
            let Val::R(ib, _) = self.mask_to_int(mb, &ct) else {
                unreachable!("mask_to_int gives an rvalue")
            };
            let bop = if op == BinOp::LogAnd {
                BinaryOp::And
            } else {
                BinaryOp::Or
            };
            let r = self.b().binary(bop, ia, ib);
            return Ok(Val::R(r, it));
        }
        let ab = self.as_bool(av, &at, a.pos)?;
        if early_b.is_some() || self.is_pure(b) {
            let (bv, bt) = match early_b {
                Some(x) => x,
                None => self.rvalue(b)?,
            };
            let bb = self.as_bool(bv, &bt, b.pos)?;
            self.set_pos(pos);
            let bop = if op == BinOp::LogAnd {
                BinaryOp::And
            } else {
                BinaryOp::Or
            };
            let r = self.b().binary(bop, ab, bb);
            return Ok(Val::R(r, Type::BOOL));
        }
        // Short-circuit: the right operand only runs when it decides.
        let var = self.b().new_var("logical", Type::BOOL);
        self.b().stmt(Stmt::WriteVar(var, ab));
        let mut failed = None;
        self.b().begin_block();
        match self
            .rvalue(b)
            .and_then(|(bv, bt)| self.as_bool(bv, &bt, b.pos))
        {
            Ok(bb) => self.b().stmt(Stmt::WriteVar(var, bb)),
            Err(r) => failed = Some(r),
        }
        let rhs = self.b().end_block();
        if let Some(r) = failed {
            return Err(r);
        }
        let (then_, else_) = if op == BinOp::LogAnd {
            (rhs, Block::default())
        } else {
            (Block::default(), rhs)
        };
        self.b().stmt(Stmt::If {
            cond: ab,
            then_,
            else_,
        });
        let r = self.b().push(Inst::ReadVar(var), Type::BOOL);
        Ok(Val::R(r, Type::BOOL))
    }

    /// A binary operator on two values (also compound assignment).
    pub(super) fn binary_values(
        &mut self,
        op: BinOp,
        (av, at): (ValueId, Type),
        (bv, bt): (ValueId, Type),
        pos: Pos,
    ) -> LResult<(ValueId, Type)> {
        self.set_pos(pos);
        if at.is_pointer() || bt.is_pointer() {
            return self.pointer_arith(op, (av, at), (bv, bt), pos);
        }
        if !is_arith(&at) || !is_arith(&bt) {
            let (x, y) = (self.type_str(&at), self.type_str(&bt));
            return self.err(
                pos,
                format!("invalid operands to binary expression ('{x}' and '{y}')"),
            );
        }
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let rt = match &at {
                Type::Scalar(s) => Type::Scalar(promote(*s)),
                t => t.clone(),
            };
            if rt.scalar().is_some_and(|s| s.is_float())
                || bt.scalar().is_some_and(|s| s.is_float())
            {
                let (x, y) = (self.type_str(&at), self.type_str(&bt));
                return self.err(
                    pos,
                    format!("invalid operands to binary expression ('{x}' and '{y}')"),
                );
            }
            if matches!(rt, Type::Scalar(_)) && matches!(bt, Type::Vector(..)) {
                let (x, y) = (self.type_str(&at), self.type_str(&bt));
                return self.err(
                    pos,
                    format!("invalid operands to binary expression ('{x}' and '{y}')"),
                );
            }
            let a = self.convert(av, &at, &rt, pos, false)?;
            let b = match (&bt, &rt) {
                (Type::Vector(..), Type::Vector(..)) if bt != rt && bt.lanes() == rt.lanes() => {
                    self.b().push(
                        Inst::Convert {
                            value: bv,
                            saturate: false,
                            rounding: Rounding::Default,
                        },
                        rt.clone(),
                    )
                }
                _ => self.convert(bv, &bt, &rt, pos, false)?,
            };
            let bop = if op == BinOp::Shl {
                BinaryOp::Shl
            } else {
                BinaryOp::Shr
            };
            let r = self.b().binary(bop, a, b);
            return Ok((r, rt));
        }
        let ct = self.common_type(&at, &bt, pos)?;
        let a = self.convert(av, &at, &ct, pos, false)?;
        let b = self.convert(bv, &bt, &ct, pos, false)?;
        let float = ct.scalar().is_some_and(|s| s.is_float());
        let arith = |op| -> Option<BinaryOp> {
            Some(match op {
                BinOp::Add => BinaryOp::Add,
                BinOp::Sub => BinaryOp::Sub,
                BinOp::Mul => BinaryOp::Mul,
                BinOp::Div => BinaryOp::Div,
                BinOp::Rem => BinaryOp::Rem,
                BinOp::BitAnd => BinaryOp::And,
                BinOp::BitOr => BinaryOp::Or,
                BinOp::BitXor => BinaryOp::Xor,
                _ => return None,
            })
        };
        if let Some(bop) = arith(op) {
            if float
                && matches!(
                    bop,
                    BinaryOp::Rem | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor
                )
            {
                let (x, y) = (self.type_str(&at), self.type_str(&bt));
                return self.err(
                    pos,
                    format!("invalid operands to binary expression ('{x}' and '{y}')"),
                );
            }
            if float && matches!(bop, BinaryOp::Add | BinaryOp::Sub) {
                if let Some(r) = self.contract(bop, a, b, &ct) {
                    return Ok((r, ct));
                }
            }
            let r = self.b().binary(bop, a, b);
            return Ok((r, ct));
        }
        let cop = match op {
            BinOp::Lt => CmpOp::Lt,
            BinOp::Gt => CmpOp::Gt,
            BinOp::Le => CmpOp::Le,
            BinOp::Ge => CmpOp::Ge,
            BinOp::Eq => CmpOp::Eq,
            _ => CmpOp::Ne,
        };
        let m = self.b().cmp(cop, a, b);
        if let Type::Vector(..) = ct {
            let Val::R(v, t) = self.mask_to_int(m, &ct) else {
                unreachable!("mask_to_int gives an rvalue")
            };
            return Ok((v, t));
        }
        Ok((m, Type::BOOL))
    }

    /// `a ± b` where one side is a product computed in this same
    /// expression (`x * y + c`, `acc += x * y`), as one fused
    /// `contract_fma`: `FP_CONTRACT`, on by default in OpenCL C (1.2
    /// §6.10), lets an implementation evaluate such an expression with one
    /// rounding. `None` when contraction is off or neither side is such a
    /// product. The product's own evaluation stays, unread.
    fn contract(&mut self, op: BinaryOp, a: ValueId, b: ValueId, ty: &Type) -> Option<ValueId> {
        if !self.opts.contract {
            return None;
        }
        let product = |s: &mut Self, v: ValueId| -> Option<(ValueId, ValueId)> {
            let d = s.b().func().inst(v).clone();
            match d.inst {
                Inst::Binary(BinaryOp::Mul, x, y)
                    if d.ty == *ty && s.b().unused_since_evaluated(v) =>
                {
                    Some((x, y))
                }
                _ => None,
            }
        };
        let (x, y, c) = if let Some((x, y)) = product(self, a) {
            // x * y + b, or x * y - b as x * y + (-b).
            let c = if op == BinaryOp::Sub {
                self.b().push(Inst::Unary(UnaryOp::Neg, b), ty.clone())
            } else {
                b
            };
            (x, y, c)
        } else if let Some((x, y)) = product(self, b) {
            // a + x * y, or a - x * y as (-x) * y + a.
            let x = if op == BinaryOp::Sub {
                self.b().push(Inst::Unary(UnaryOp::Neg, x), ty.clone())
            } else {
                x
            };
            (x, y, a)
        } else {
            return None;
        };
        Some(self.b().push(
            Inst::Builtin(Builtin::ContractFma, vec![x, y, c]),
            ty.clone(),
        ))
    }

    fn pointer_arith(
        &mut self,
        op: BinOp,
        (av, at): (ValueId, Type),
        (bv, bt): (ValueId, Type),
        pos: Pos,
    ) -> LResult<(ValueId, Type)> {
        let bad = |s: &mut Self| {
            let (x, y) = (s.type_str(&at), s.type_str(&bt));
            s.err(
                pos,
                format!("invalid operands to binary expression ('{x}' and '{y}')"),
            )
        };
        let is_int = |t: &Type| matches!(t, Type::Scalar(s) if s.is_int() || *s == Scalar::Bool);
        match op {
            BinOp::Add | BinOp::Sub if at.is_pointer() && is_int(&bt) => {
                let mut i = self.convert(bv, &bt, &Type::I64, pos, false)?;
                if op == BinOp::Sub {
                    i = self.b().push(Inst::Unary(UnaryOp::Neg, i), Type::I64);
                }
                let r = self.b().push(Inst::Index(av, i), at.clone());
                Ok((r, at))
            }
            BinOp::Add if bt.is_pointer() && is_int(&at) => {
                let i = self.convert(av, &at, &Type::I64, pos, false)?;
                let r = self.b().push(Inst::Index(bv, i), bt.clone());
                Ok((r, bt))
            }
            BinOp::Sub if at.is_pointer() && bt.is_pointer() => {
                let size = at
                    .pointee()
                    .map(|t| self.module.size_of(t))
                    .unwrap_or(1)
                    .max(1);
                let x = self.b().push(Inst::PtrToInt(av), Type::I64);
                let y = self.b().push(Inst::PtrToInt(bv), Type::I64);
                let d = self.b().binary(BinaryOp::Sub, x, y);
                let s = self.b().const_i64(i64::from(size));
                let r = self.b().binary(BinaryOp::Div, d, s);
                Ok((r, Type::I64))
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => {
                let x = if at.is_pointer() {
                    self.b().push(Inst::PtrToInt(av), Type::U64)
                } else {
                    self.convert(av, &at, &Type::U64, pos, true)?
                };
                let y = if bt.is_pointer() {
                    self.b().push(Inst::PtrToInt(bv), Type::U64)
                } else {
                    self.convert(bv, &bt, &Type::U64, pos, true)?
                };
                let cop = match op {
                    BinOp::Lt => CmpOp::Lt,
                    BinOp::Gt => CmpOp::Gt,
                    BinOp::Le => CmpOp::Le,
                    BinOp::Ge => CmpOp::Ge,
                    BinOp::Eq => CmpOp::Eq,
                    _ => CmpOp::Ne,
                };
                let m = self.b().cmp(cop, x, y);
                Ok((m, Type::BOOL))
            }
            _ => bad(self),
        }
    }

    fn conditional(&mut self, c: &Expr, a: &Expr, b: &Expr, pos: Pos) -> LResult<Val> {
        let (cv, ct) = self.rvalue(c)?;
        if let Type::Vector(cs, n) = ct {
            let (av, at) = self.rvalue(a)?;
            let (bv, bt) = self.rvalue(b)?;
            // Two scalar operands of one type keep it (no integer
            // promotion: `char2 v = c ? x : y` with `char` x and y is a
            // `char2`), and scalar results widen to the condition's size.
            let rt = match (&at, &bt) {
                (Type::Scalar(x), Type::Scalar(y)) if x == y => Type::Scalar(*x),
                _ => self.common_type(&at, &bt, pos)?,
            };
            let rt = match rt {
                Type::Scalar(s) => Type::Vector(s, n),
                v => v,
            };
            if rt.lanes() != u32::from(n) || rt.scalar().is_some_and(|s| s.size() != cs.size()) {
                let (x, y) = (self.type_str(&ct), self.type_str(&rt));
                return self.err(pos, format!("vector condition type '{x}' and result type '{y}' do not have the same number of elements and element size"));
            }
            if cs.is_float() {
                return self.err(
                    c.pos,
                    "vector condition of '?:' must have an integer element type",
                );
            }
            let av = self.convert(av, &at, &rt, pos, false)?;
            let bv = self.convert(bv, &bt, &rt, pos, false)?;
            // Components whose most significant bit is set take the second operand.
            let signed = ct.with_scalar(cs.signed_int_of_same_width());
            let cv = if cs.is_signed() {
                cv
            } else {
                self.b().push(Inst::Bitcast(cv), signed.clone())
            };
            let z = self.zero(&signed);
            let m = self.b().cmp(CmpOp::Lt, cv, z);
            let r = self.b().push(Inst::Select(m, av, bv), rt.clone());
            return Ok(Val::R(r, rt));
        }
        let cb = self.as_bool(cv, &ct, c.pos)?;
        if self.is_pure(a) && self.is_pure(b) {
            let (av, at) = self.rvalue(a)?;
            let (bv, bt) = self.rvalue(b)?;
            let rt = self.cond_result_type(&at, &bt, pos)?;
            let av = self.convert(av, &at, &rt, pos, false)?;
            let bv = self.convert(bv, &bt, &rt, pos, false)?;
            self.set_pos(pos);
            let r = self.b().push(Inst::Select(cb, av, bv), rt.clone());
            return Ok(Val::R(r, rt));
        }
        // Evaluate only the chosen arm; the result type needs both arm types first.
        let at = self.type_without_effects(a)?;
        let bt = self.type_without_effects(b)?;
        let at = decay_type(at);
        let bt = decay_type(bt);
        if at == Type::Void && bt == Type::Void {
            self.b().begin_block();
            let ra = self.expr(a);
            let ta = self.b().end_block();
            self.b().begin_block();
            let rb = self.expr(b);
            let tb = self.b().end_block();
            ra?;
            rb?;
            self.b().stmt(Stmt::If {
                cond: cb,
                then_: ta,
                else_: tb,
            });
            return Ok(Val::Void);
        }
        let rt = self.cond_result_type(&at, &bt, pos)?;
        let var = self.b().new_var("cond", rt.clone());
        let arm = |s: &mut Self, e: &Expr| -> LResult<Block> {
            s.b().begin_block();
            let r = s
                .rvalue(e)
                .and_then(|(v, t)| s.convert(v, &t, &rt, pos, false));
            match r {
                Ok(v) => {
                    s.b().stmt(Stmt::WriteVar(var, v));
                    Ok(s.b().end_block())
                }
                Err(e) => {
                    s.b().end_block();
                    Err(e)
                }
            }
        };
        let then_ = arm(self, a)?;
        let else_ = arm(self, b)?;
        self.b().stmt(Stmt::If {
            cond: cb,
            then_,
            else_,
        });
        let r = self.b().push(Inst::ReadVar(var), rt.clone());
        Ok(Val::R(r, rt))
    }

    fn cond_result_type(&mut self, at: &Type, bt: &Type, pos: Pos) -> LResult<Type> {
        match (at, bt) {
            (Type::Pointer(sa, pa), Type::Pointer(sb, pb)) => {
                if pa != pb && **pa != Type::Void {
                    let (x, y) = (self.type_str(at), self.type_str(bt));
                    self.diags
                        .warning(pos, format!("pointer type mismatch ('{x}' and '{y}')"));
                }
                // OpenCL C 2.0 6.5.5: a pointer to a named address space
                // (but __constant) converts to a generic one, so the two
                // arms meet in the generic address space.
                let named = |s: &AddressSpace| *s != AddressSpace::Constant;
                if sa != sb && *sa == AddressSpace::Generic && named(sb) {
                    return Ok(at.clone());
                }
                if sa != sb && *sb == AddressSpace::Generic && named(sa) {
                    return Ok(Type::Pointer(AddressSpace::Generic, pa.clone()));
                }
                Ok(at.clone())
            }
            (Type::Pointer(..), Type::Scalar(_)) => Ok(at.clone()),
            (Type::Scalar(_), Type::Pointer(..)) => Ok(bt.clone()),
            (Type::Struct(_), _) | (_, Type::Struct(_)) => self.err(
                pos,
                "conditional expressions of struct type are not supported",
            ),
            _ => self.common_type(at, bt, pos),
        }
    }

    pub(super) fn in_loop(&self) -> bool {
        self.cx
            .as_ref()
            .is_some_and(|c| c.breakables.contains(&Breakable::Loop))
    }
}

fn decay_type(t: Type) -> Type {
    match t {
        Type::Array(e, _) => Type::ptr(AddressSpace::Private, *e),
        t => t,
    }
}

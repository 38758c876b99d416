//! Constant expressions and initialisers.
//!
//! Array sizes, `case` labels, enum values and attribute arguments are
//! integer constant expressions; program-scope `__constant` data needs its
//! initial bytes. Initialiser lists are flattened to leaves (scalars,
//! vectors, pointers) at byte offsets, with C's brace elision and
//! designators; the same flattening serves local initialisers, which the
//! statement lowering turns into stores.

use super::{LResult, Lowerer, Sym};
use crate::ast::*;
use crate::diag::Pos;
use vecl_ir::*;

/// A constant scalar value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CVal {
    Int(i64, Scalar),
    Float(f64, Scalar),
}

impl CVal {
    pub fn as_i64(self) -> i64 {
        match self {
            CVal::Int(v, _) => v,
            CVal::Float(f, _) => f as i64,
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            CVal::Int(v, s) if !s.is_signed() => v as u64 as f64,
            CVal::Int(v, _) => v as f64,
            CVal::Float(f, _) => f,
        }
    }

    pub fn scalar(self) -> Scalar {
        match self {
            CVal::Int(_, s) | CVal::Float(_, s) => s,
        }
    }

    /// Converts to `to` and returns the bit pattern (zero-extended), as `Inst::Const` wants.
    pub fn bits_as(self, to: Scalar) -> u64 {
        match to {
            Scalar::F32 => u64::from((self.as_f64() as f32).to_bits()),
            Scalar::F64 => self.as_f64().to_bits(),
            Scalar::F16 => u64::from(f32_to_f16(self.as_f64() as f32)),
            Scalar::Bool => u64::from(match self {
                CVal::Int(v, _) => v != 0,
                CVal::Float(f, _) => f != 0.0,
            }),
            _ => {
                let v = match self {
                    CVal::Int(v, _) => v as u64,
                    CVal::Float(f, _) => {
                        if to.is_signed() {
                            f as i64 as u64
                        } else {
                            f as u64
                        }
                    }
                };
                let bits = to.bits();
                if bits >= 64 {
                    v
                } else {
                    v & ((1u64 << bits) - 1)
                }
            }
        }
    }
}

/// IEEE binary16 from binary32, round to nearest even.
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let mant = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// One leaf of a flattened initialiser.
pub struct InitLeaf<'e> {
    pub offset: u32,
    pub ty: Type,
    pub expr: &'e Expr,
}

fn truncate(v: i64, s: Scalar) -> i64 {
    let bits = s.bits();
    if bits >= 64 || s == Scalar::Bool {
        return if s == Scalar::Bool {
            i64::from(v != 0)
        } else {
            v
        };
    }
    let m = (1i64 << bits) - 1;
    let t = v & m;
    if s.is_signed() && t >> (bits - 1) & 1 == 1 {
        t | !m
    } else {
        t
    }
}

fn int_rank_common(a: Scalar, b: Scalar) -> Scalar {
    let promote = |s: Scalar| if s.bits() < 32 { Scalar::I32 } else { s };
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let (wide, narrow) = if a.bits() >= b.bits() { (a, b) } else { (b, a) };
    if wide.bits() > narrow.bits() {
        wide
    } else {
        wide.unsigned_int_of_same_width()
            .max(narrow.unsigned_int_of_same_width())
    }
}

impl Lowerer<'_> {
    pub(super) fn const_int(&mut self, e: &Expr) -> LResult<i64> {
        match self.const_eval(e)? {
            CVal::Int(v, _) => Ok(v),
            CVal::Float(..) => self.err(e.pos, "expression is not an integer constant expression"),
        }
    }

    fn not_const<T>(&mut self, pos: Pos) -> LResult<T> {
        self.err(pos, "expression is not a constant expression")
    }

    pub(super) fn const_eval(&mut self, e: &Expr) -> LResult<CVal> {
        use ExprKind::*;
        Ok(match &e.kind {
            Int(v, s) => CVal::Int(truncate(*v as i64, *s), *s),
            Float(f, s) => CVal::Float(*f, *s),
            Ident(n) => match self.lookup(n) {
                Some(Sym::EnumConst(v)) => CVal::Int(v, Scalar::I32),
                _ => return self.not_const(e.pos),
            },
            Call(n, args) if args.is_empty() => match n.as_str() {
                "__builtin_inff" | "__builtin_huge_valf" => CVal::Float(f64::INFINITY, Scalar::F32),
                "__builtin_nanf" => CVal::Float(f64::NAN, Scalar::F32),
                "__builtin_inf" | "__builtin_huge_val" => CVal::Float(f64::INFINITY, Scalar::F64),
                "__builtin_nan" => CVal::Float(f64::NAN, Scalar::F64),
                _ => return self.not_const(e.pos),
            },
            Unary(op, a) => {
                let v = self.const_eval(a)?;
                match (op, v) {
                    (UnOp::Plus, _) => v,
                    (UnOp::Neg, CVal::Int(x, s)) => {
                        let s = int_rank_common(s, s);
                        CVal::Int(truncate(x.wrapping_neg(), s), s)
                    }
                    (UnOp::Neg, CVal::Float(f, s)) => CVal::Float(-f, s),
                    (UnOp::BitNot, CVal::Int(x, s)) => {
                        let s = int_rank_common(s, s);
                        CVal::Int(truncate(!x, s), s)
                    }
                    (UnOp::Not, _) => {
                        CVal::Int(i64::from(v.as_f64() == 0.0 && v.as_i64() == 0), Scalar::I32)
                    }
                    _ => return self.not_const(e.pos),
                }
            }
            Binary(op, a, b) => {
                let x = self.const_eval(a)?;
                if *op == BinOp::LogAnd && x.as_f64() == 0.0 {
                    return Ok(CVal::Int(0, Scalar::I32));
                }
                if *op == BinOp::LogOr && x.as_f64() != 0.0 {
                    return Ok(CVal::Int(1, Scalar::I32));
                }
                let y = self.const_eval(b)?;
                self.const_binary(*op, x, y, e.pos)?
            }
            Cond(c, a, b) => {
                let c = self.const_eval(c)?;
                if c.as_f64() != 0.0 || c.as_i64() != 0 {
                    self.const_eval(a)?
                } else {
                    self.const_eval(b)?
                }
            }
            Cast(tn, a) => {
                let t = self.resolve_type_name(tn)?;
                let v = self.const_eval(a)?;
                match t {
                    Type::Scalar(s) if s.is_float() => CVal::Float(
                        if s == Scalar::F32 {
                            v.as_f64() as f32 as f64
                        } else {
                            v.as_f64()
                        },
                        s,
                    ),
                    Type::Scalar(s) => CVal::Int(truncate(v.bits_as(s) as i64, s), s),
                    _ => return self.not_const(e.pos),
                }
            }
            SizeofType(tn) => {
                let t = self.resolve_type_name(tn)?;
                CVal::Int(i64::from(self.module.size_of(&t)), Scalar::U64)
            }
            AlignofType(tn) => {
                let t = self.resolve_type_name(tn)?;
                CVal::Int(i64::from(self.module.align_of(&t)), Scalar::U64)
            }
            VecStepType(tn) => {
                let t = self.resolve_type_name(tn)?;
                CVal::Int(i64::from(super::expr::vec_step(&t)), Scalar::I32)
            }
            SizeofExpr(a) => match self.static_type_of(a) {
                Some(t) => CVal::Int(i64::from(self.module.size_of(&t)), Scalar::U64),
                None => return self.not_const(e.pos),
            },
            _ => return self.not_const(e.pos),
        })
    }

    /// The type of a simple expression without lowering it (for `sizeof` in constants).
    fn static_type_of(&mut self, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n)? {
                Sym::Var { ty, .. }
                | Sym::Slot { ty, .. }
                | Sym::Global { ty, .. }
                | Sym::Mem { ty, .. } => Some(ty),
                Sym::EnumConst(_) => Some(Type::I32),
            },
            ExprKind::Index(a, _) => match self.static_type_of(a)? {
                Type::Array(t, _) => Some(*t),
                Type::Pointer(_, t) => Some(*t),
                _ => None,
            },
            ExprKind::Int(_, s) | ExprKind::Float(_, s) => Some(Type::Scalar(*s)),
            _ => None,
        }
    }

    fn const_binary(&mut self, op: BinOp, x: CVal, y: CVal, pos: Pos) -> LResult<CVal> {
        use BinOp::*;
        let cmp = |c: bool| CVal::Int(i64::from(c), Scalar::I32);
        if let (CVal::Int(a, sa), CVal::Int(b, sb)) = (x, y) {
            let s = if matches!(op, Shl | Shr) {
                int_rank_common(sa, sa)
            } else {
                int_rank_common(sa, sb)
            };
            let (a, b) = (
                truncate(a, s),
                truncate(b, if matches!(op, Shl | Shr) { sb } else { s }),
            );
            let u = !s.is_signed();
            let v = match op {
                Add => a.wrapping_add(b),
                Sub => a.wrapping_sub(b),
                Mul => a.wrapping_mul(b),
                Div | Rem => {
                    if b == 0 {
                        return self.err(pos, "division by zero in constant expression");
                    }
                    match (op, u) {
                        (Div, true) => ((a as u64) / (b as u64)) as i64,
                        (Div, false) => a.wrapping_div(b),
                        (_, true) => ((a as u64) % (b as u64)) as i64,
                        _ => a.wrapping_rem(b),
                    }
                }
                Shl => a.wrapping_shl((b as u32) % s.bits()),
                Shr => {
                    if u {
                        ((a as u64
                            & if s.bits() >= 64 {
                                u64::MAX
                            } else {
                                (1 << s.bits()) - 1
                            })
                            >> ((b as u32) % s.bits())) as i64
                    } else {
                        a >> ((b as u32) % s.bits())
                    }
                }
                BitAnd => a & b,
                BitOr => a | b,
                BitXor => a ^ b,
                Lt => return Ok(cmp(if u { (a as u64) < (b as u64) } else { a < b })),
                Gt => return Ok(cmp(if u { (a as u64) > (b as u64) } else { a > b })),
                Le => return Ok(cmp(if u { (a as u64) <= (b as u64) } else { a <= b })),
                Ge => return Ok(cmp(if u { (a as u64) >= (b as u64) } else { a >= b })),
                Eq => return Ok(cmp(a == b)),
                Ne => return Ok(cmp(a != b)),
                LogAnd => return Ok(cmp(a != 0 && b != 0)),
                LogOr => return Ok(cmp(a != 0 || b != 0)),
            };
            return Ok(CVal::Int(truncate(v, s), s));
        }
        let s = if x.scalar() == Scalar::F64 || y.scalar() == Scalar::F64 {
            Scalar::F64
        } else {
            Scalar::F32
        };
        let (a, b) = (x.as_f64(), y.as_f64());
        let r = match op {
            Add => a + b,
            Sub => a - b,
            Mul => a * b,
            Div => a / b,
            Lt => return Ok(cmp(a < b)),
            Gt => return Ok(cmp(a > b)),
            Le => return Ok(cmp(a <= b)),
            Ge => return Ok(cmp(a >= b)),
            Eq => return Ok(cmp(a == b)),
            Ne => return Ok(cmp(a != b)),
            LogAnd => return Ok(cmp(a != 0.0 && b != 0.0)),
            LogOr => return Ok(cmp(a != 0.0 || b != 0.0)),
            _ => return self.err(pos, "invalid operands to binary expression in constant"),
        };
        Ok(CVal::Float(
            if s == Scalar::F32 { r as f32 as f64 } else { r },
            s,
        ))
    }

    /// The initial bytes of a program-scope variable.
    pub(super) fn const_init_bytes(&mut self, ty: &Type, init: &Init) -> LResult<Vec<u8>> {
        let mut bytes = vec![0u8; self.module.size_of(ty) as usize];
        let mut leaves = Vec::new();
        self.flatten_init(ty, init, 0, &mut leaves)?;
        for leaf in leaves {
            self.const_leaf(&leaf.ty, leaf.expr, leaf.offset, &mut bytes)?;
        }
        Ok(bytes)
    }

    fn const_leaf(&mut self, ty: &Type, e: &Expr, offset: u32, bytes: &mut [u8]) -> LResult<()> {
        match ty {
            Type::Scalar(s) => {
                let v = self.const_eval(e)?;
                write_bits(bytes, offset, v.bits_as(*s), s.size());
            }
            Type::Vector(s, n) => {
                let mut vals = Vec::new();
                self.const_vector_elems(e, &mut vals)?;
                let n = usize::from(*n);
                if vals.len() == 1 {
                    vals = vec![vals[0]; n];
                }
                if vals.len() != n {
                    return self.err(
                        e.pos,
                        format!("vector literal has {} elements, expected {n}", vals.len()),
                    );
                }
                for (i, v) in vals.into_iter().enumerate() {
                    write_bits(bytes, offset + i as u32 * s.size(), v.bits_as(*s), s.size());
                }
            }
            Type::Array(elem, n) if matches!(**elem, Type::Scalar(Scalar::I8 | Scalar::U8)) => {
                let ExprKind::Str(s) = &e.kind else {
                    return self.not_const(e.pos);
                };
                for (i, b) in s.iter().take(*n as usize).enumerate() {
                    bytes[offset as usize + i] = *b;
                }
            }
            Type::Pointer(..) => {
                // An address constant: null, or a module-scope variable's
                // address plus a constant offset, which becomes a reloc of
                // the variable being initialised (pushed next).
                if let Some((target, addend)) = self.const_address(e)? {
                    self.module.relocs.push(Reloc {
                        global: GlobalId(self.module.globals.len() as u32),
                        offset,
                        target,
                        addend,
                    });
                }
            }
            _ => return self.err(e.pos, "initializer of this type is not a constant"),
        }
        Ok(())
    }

    /// The value of an address constant (OpenCL C 6.5 / C99 6.6): `None`
    /// for a null pointer, else a program-scope variable and a byte offset
    /// into it (`&x`, `&a[2]`, `a + 2`, `a`, through casts).
    fn const_address(&mut self, e: &Expr) -> LResult<Option<(GlobalId, u32)>> {
        use ExprKind::*;
        let not_address = |l: &mut Self| -> LResult<Option<(GlobalId, u32)>> {
            l.err(
                e.pos,
                "initializer is not an address constant (the address of a program-scope variable, plus a constant)",
            )
        };
        // (variable, offset, type of what the address points at)
        let place = |l: &mut Self, x: &Expr| -> LResult<Option<(GlobalId, u32, Type)>> {
            match &x.kind {
                Ident(n) => match l.lookup(n) {
                    Some(Sym::Global { id, ty, .. }) => Ok(Some((id, 0, ty))),
                    _ => Ok(None),
                },
                Index(base, index) => {
                    let Ident(n) = &base.kind else {
                        return Ok(None);
                    };
                    let Some(Sym::Global {
                        id,
                        ty: Type::Array(elem, len),
                        ..
                    }) = l.lookup(n)
                    else {
                        return Ok(None);
                    };
                    let k = l.const_int(index)?;
                    if k < 0 || k as u64 > u64::from(len) {
                        return Ok(None);
                    }
                    let at = k as u64 * u64::from(l.module.size_of(&elem));
                    Ok(u32::try_from(at).ok().map(|at| (id, at, (*elem).clone())))
                }
                _ => Ok(None),
            }
        };
        match &e.kind {
            Int(0, _) => Ok(None),
            Cast(_, a) => self.const_address(a),
            Unary(UnOp::AddrOf, x) => match place(self, x)? {
                Some((id, at, _)) => Ok(Some((id, at))),
                None => not_address(self),
            },
            // An array's name is the address of its first element.
            Ident(_) => match place(self, e)? {
                Some((id, at, Type::Array(..))) => Ok(Some((id, at))),
                _ => not_address(self),
            },
            Binary(BinOp::Add, a, b) => {
                let (p, k) = if matches!(a.kind, Ident(_) | Unary(UnOp::AddrOf, _)) {
                    (a, b)
                } else {
                    (b, a)
                };
                let elem = match &p.kind {
                    Ident(_) => match place(self, p)? {
                        Some((_, _, Type::Array(elem, _))) => *elem,
                        _ => return not_address(self),
                    },
                    Unary(UnOp::AddrOf, x) => match place(self, x)? {
                        Some((_, _, t)) => t,
                        None => return not_address(self),
                    },
                    _ => return not_address(self),
                };
                let Some((id, at)) = self.const_address(p)? else {
                    return not_address(self);
                };
                let k = self.const_int(k)?;
                let at = i64::from(at) + k * i64::from(self.module.size_of(&elem));
                match u32::try_from(at) {
                    Ok(at) => Ok(Some((id, at))),
                    Err(_) => not_address(self),
                }
            }
            _ => not_address(self),
        }
    }

    fn const_vector_elems(&mut self, e: &Expr, out: &mut Vec<CVal>) -> LResult<()> {
        match &e.kind {
            ExprKind::VecLit(_, elems) => {
                for x in elems {
                    self.const_vector_elems(x, out)?;
                }
            }
            // `(float2)1`: a scalar cast to a vector type is every component.
            ExprKind::Cast(tn, a) => {
                let t = self.resolve_type_name(tn)?;
                match t {
                    Type::Vector(s, _) => {
                        let v = self.const_eval(a)?;
                        out.push(match v {
                            CVal::Int(..) if s.is_float() => CVal::Float(v.as_f64(), s),
                            _ => v,
                        });
                    }
                    _ => out.push(self.const_eval(e)?),
                }
            }
            _ => out.push(self.const_eval(e)?),
        }
        Ok(())
    }

    /// Flattens an initialiser for an object of type `ty` at `offset`.
    pub(super) fn flatten_init<'e>(
        &mut self,
        ty: &Type,
        init: &'e Init,
        offset: u32,
        out: &mut Vec<InitLeaf<'e>>,
    ) -> LResult<()> {
        match init {
            Init::Expr(e) => {
                if let (Type::Array(..), false) = (ty, matches!(e.kind, ExprKind::Str(_))) {
                    return self.err(e.pos, "array initializer must be an initializer list");
                }
                out.push(InitLeaf {
                    offset,
                    ty: ty.clone(),
                    expr: e,
                });
            }
            Init::List(items, pos) => match ty {
                Type::Scalar(_) | Type::Pointer(..) => {
                    if let Some((_, i)) = items.first() {
                        self.flatten_init(ty, i, offset, out)?;
                    }
                }
                Type::Vector(s, n) => {
                    if items.len() > usize::from(*n) {
                        return self.err(*pos, "excess elements in vector initializer");
                    }
                    for (i, (_, it)) in items.iter().enumerate() {
                        self.flatten_init(
                            &Type::Scalar(*s),
                            it,
                            offset + i as u32 * s.size(),
                            out,
                        )?;
                    }
                }
                Type::Array(..) | Type::Struct(_) => {
                    let mut idx = 0;
                    self.fill_list(ty, items, &mut idx, offset, out, true)?;
                    if idx < items.len() {
                        self.diags.warning(*pos, "excess elements in initializer");
                    }
                }
                Type::Void => return self.err(*pos, "initializer for an object of type void"),
            },
        }
        Ok(())
    }

    fn members(&self, ty: &Type) -> Vec<(u32, Type, Option<String>)> {
        match ty {
            Type::Array(elem, n) => {
                let es = self.module.size_of(elem);
                (0..*n).map(|i| (i * es, (**elem).clone(), None)).collect()
            }
            Type::Struct(id) => {
                let d = &self.module.structs[id.0 as usize];
                let fs = d
                    .fields
                    .iter()
                    .map(|f| (f.offset, f.ty.clone(), Some(f.name.clone())));
                if d.is_union {
                    fs.take(1).collect()
                } else {
                    fs.collect()
                }
            }
            _ => Vec::new(),
        }
    }

    fn fill_list<'e>(
        &mut self,
        ty: &Type,
        items: &'e [(Vec<Designator>, Init)],
        idx: &mut usize,
        offset: u32,
        out: &mut Vec<InitLeaf<'e>>,
        braced: bool,
    ) -> LResult<()> {
        let mut members = self.members(ty);
        let mut m = 0usize;
        let start = *idx;
        while *idx < items.len() {
            let (desig, init) = &items[*idx];
            // A designated item that starts an elided-brace sub-object was
            // designated by the enclosing level; the designator of any later
            // item belongs to the enclosing level too.
            if let Some(d) = desig.first().filter(|_| braced || *idx != start) {
                if !braced {
                    break;
                }
                if desig.len() > 1 {
                    return self.err(designator_pos(d), "nested designators are not supported");
                }
                m = match d {
                    Designator::Index(e) => {
                        if !matches!(ty, Type::Array(..)) {
                            return self.err(e.pos, "array designator used for a non-array type");
                        }
                        let i = self.const_int(e)?;
                        if i < 0 || i as usize >= members.len() {
                            return self.err(e.pos, "array designator index exceeds array bounds");
                        }
                        i as usize
                    }
                    Designator::Field(name, p) => {
                        let Type::Struct(id) = ty else {
                            return self.err(*p, "field designator used for a non-struct type");
                        };
                        let Some(path) = self.field_path(ty, name) else {
                            let sname = self.module.structs[id.0 as usize].name.clone();
                            return self.err(*p, format!("field designator '{name}' does not refer to any field in type 'struct {sname}'"));
                        };
                        // Walk down anonymous members: later positional items
                        // continue in the innermost struct that holds the field.
                        // A designator restarts at this level, whatever an
                        // earlier one walked into.
                        members = self.members(ty);
                        let (mut holder, mut base) = (ty.clone(), 0u32);
                        for &step in &path[..path.len() - 1] {
                            let Type::Struct(hid) = holder else {
                                return Err(super::Reported);
                            };
                            let f = &self.module.structs[hid.0 as usize].fields[step as usize];
                            base += f.offset;
                            holder = f.ty.clone();
                        }
                        let Type::Struct(hid) = holder else {
                            return Err(super::Reported);
                        };
                        let leaf = path[path.len() - 1] as usize;
                        let d = &self.module.structs[hid.0 as usize];
                        let shifted =
                            |f: &Field| (base + f.offset, f.ty.clone(), Some(f.name.clone()));
                        if d.is_union {
                            members = vec![shifted(&d.fields[leaf])];
                            0
                        } else if path.len() > 1 {
                            members = d.fields.iter().map(shifted).collect();
                            leaf
                        } else {
                            leaf
                        }
                    }
                };
            }
            if m >= members.len() {
                break;
            }
            let (mo, mt, _) = members[m].clone();
            match init {
                Init::List(..) => {
                    self.flatten_init(&mt, init, offset + mo, out)?;
                    *idx += 1;
                }
                Init::Expr(e) => {
                    let elide = match &mt {
                        Type::Array(el, _) => {
                            !(matches!(e.kind, ExprKind::Str(_))
                                && matches!(**el, Type::Scalar(Scalar::I8 | Scalar::U8)))
                        }
                        Type::Struct(_) => !matches!(
                            e.kind,
                            ExprKind::Ident(_)
                                | ExprKind::Member(..)
                                | ExprKind::Index(..)
                                | ExprKind::Unary(UnOp::Deref, _)
                        ),
                        _ => false,
                    };
                    if elide {
                        let before = *idx;
                        self.fill_list(&mt, items, idx, offset + mo, out, false)?;
                        if *idx == before {
                            return self.err(
                                e.pos,
                                "initializer does not match the type of the member it initializes",
                            );
                        }
                    } else {
                        out.push(InitLeaf {
                            offset: offset + mo,
                            ty: mt,
                            expr: e,
                        });
                        *idx += 1;
                    }
                }
            }
            m += 1;
            if m >= members.len() && !braced {
                break;
            }
        }
        Ok(())
    }

    /// Every scalar/vector/pointer leaf of a type, with offsets (zero-filling).
    pub(super) fn all_leaves(&self, ty: &Type, offset: u32, out: &mut Vec<(u32, Type)>) {
        match ty {
            Type::Array(..) | Type::Struct(_) => {
                for (o, t, _) in self.members(ty) {
                    self.all_leaves(&t, offset + o, out);
                }
            }
            Type::Void => {}
            _ => out.push((offset, ty.clone())),
        }
    }
}

fn designator_pos(d: &Designator) -> Pos {
    match d {
        Designator::Field(_, p) => *p,
        Designator::Index(e) => e.pos,
    }
}

fn write_bits(bytes: &mut [u8], offset: u32, bits: u64, size: u32) {
    let le = bits.to_le_bytes();
    for (i, byte) in le.iter().take(size as usize).enumerate() {
        if let Some(b) = bytes.get_mut(offset as usize + i) {
            *b = *byte;
        }
    }
}

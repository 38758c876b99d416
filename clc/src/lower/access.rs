//! Lowering element and component access: subscripts (arrays, pointers,
//! vectors — constant or run-time component), struct members through `.`
//! and `->`, vector swizzles (`.xyzw`, `.rgba`, `.s0…sF`, `.lo/.hi/.even/.odd`)
//! as rvalues and lvalues, and vector literals `(float4)(a, v.xy, c)`.

use super::expr::{LVal, Place, Val};
use super::{LResult, Lowerer};
use crate::ast::*;
use crate::diag::Pos;
use crate::parser::Reported;
use vecl_ir::*;

impl Lowerer<'_> {
    pub(super) fn index(&mut self, a: &Expr, i: &Expr, pos: Pos) -> LResult<Val> {
        let base = self.expr(a)?;
        let (iv, it) = self.rvalue(i)?;
        if !matches!(it, Type::Scalar(s) if s.is_int() || s == Scalar::Bool) {
            return self.err(i.pos, "array subscript is not an integer");
        }
        // Arrays in memory index their elements directly.
        if let Val::L(LVal {
            place: Place::Mem(p),
            ty: Type::Array(elem, _),
            is_const,
        }) = &base
        {
            let space = self
                .b()
                .func()
                .ty(*p)
                .address_space()
                .unwrap_or(AddressSpace::Private);
            let idx = self.convert(iv, &it, &Type::I64, pos, false)?;
            self.set_pos(pos);
            let ep = self
                .b()
                .push(Inst::Elem(*p, idx), Type::ptr(space, (**elem).clone()));
            return Ok(Val::L(LVal {
                place: Place::Mem(ep),
                ty: (**elem).clone(),
                is_const: *is_const,
            }));
        }
        // Vector subscripts (a clang extension OpenCL code uses).
        if let Val::L(lv) = &base {
            if let Type::Vector(s, n) = lv.ty {
                if let ExprKind::Int(k, _) = i.kind {
                    if k >= u64::from(n) {
                        return self.err(i.pos, "vector subscript is out of range");
                    }
                    return Ok(Val::L(LVal {
                        place: Place::Comp(Box::new(lv.clone()), vec![k as u8]),
                        ty: Type::Scalar(s),
                        is_const: lv.is_const,
                    }));
                }
                if let Place::Mem(p) = &lv.place {
                    let space = self
                        .b()
                        .func()
                        .ty(*p)
                        .address_space()
                        .unwrap_or(AddressSpace::Private);
                    let idx = self.convert(iv, &it, &Type::I64, pos, false)?;
                    let ep = self
                        .b()
                        .push(Inst::Elem(*p, idx), Type::ptr(space, Type::Scalar(s)));
                    return Ok(Val::L(LVal {
                        place: Place::Mem(ep),
                        ty: Type::Scalar(s),
                        is_const: lv.is_const,
                    }));
                }
                let idx = self.convert(iv, &it, &Type::U32, pos, false)?;
                return Ok(Val::L(LVal {
                    place: Place::DynComp(Box::new(lv.clone()), idx),
                    ty: Type::Scalar(s),
                    is_const: lv.is_const,
                }));
            }
        }
        let (pv, pt) = match base {
            Val::R(v, t) => (v, t),
            Val::L(lv) => self.lval_rvalue(&lv, a.pos)?,
            Val::Void => return self.err(a.pos, "subscripted value is 'void'"),
        };
        if super::images::ImageKind::of(&pt).is_some() {
            return self.err(pos, "image types cannot be dereferenced");
        }
        let Type::Pointer(_, elem) = &pt else {
            let ts = self.type_str(&pt);
            return self.err(
                pos,
                format!("subscripted value is not an array, pointer, or vector ('{ts}')"),
            );
        };
        if **elem == Type::Void {
            return self.err(pos, "subscript of a 'void *' pointer");
        }
        let idx = self.convert(iv, &it, &Type::I64, pos, false)?;
        self.set_pos(pos);
        let ep = self.b().push(Inst::Index(pv, idx), pt.clone());
        Ok(Val::L(LVal {
            place: Place::Mem(ep),
            ty: (**elem).clone(),
            is_const: false,
        }))
    }

    pub(super) fn member(&mut self, a: &Expr, name: &str, arrow: bool, pos: Pos) -> LResult<Val> {
        let (ptr, sty, is_const) = if arrow {
            let (p, t) = self.rvalue(a)?;
            match t {
                Type::Pointer(_, inner) if matches!(*inner, Type::Struct(_)) => (p, *inner, false),
                _ => {
                    let ts = self.type_str(&t);
                    return self.err(
                        pos,
                        format!("member reference type '{ts}' is not a pointer to a struct"),
                    );
                }
            }
        } else {
            match self.expr(a)? {
                Val::Void => {
                    return self.err(
                        pos,
                        "member reference base type 'void' is not a structure or union",
                    )
                }
                Val::L(lv) => match (&lv.ty, &lv.place) {
                    (Type::Struct(_), Place::Mem(p)) => (*p, lv.ty.clone(), lv.is_const),
                    (Type::Vector(..), _) => return self.swizzle_lval(lv, name, pos),
                    _ => {
                        let ts = self.type_str(&lv.ty);
                        return self.err(
                            pos,
                            format!(
                                "member reference base type '{ts}' is not a structure or union"
                            ),
                        );
                    }
                },
                Val::R(v, t) => {
                    if let Type::Vector(..) = t {
                        let (idx, rt) = self.swizzle_indices(&t, name, pos)?;
                        self.set_pos(pos);
                        let r = if idx.len() == 1 {
                            self.b().push(Inst::Extract(v, idx[0]), rt.clone())
                        } else {
                            self.b().push(Inst::Shuffle(v, v, idx), rt.clone())
                        };
                        return Ok(Val::R(r, rt));
                    }
                    let ts = self.type_str(&t);
                    return self.err(
                        pos,
                        format!("member reference base type '{ts}' is not a structure or union"),
                    );
                }
            }
        };
        if !matches!(sty, Type::Struct(_)) {
            return Err(Reported);
        }
        let Some(path) = self.field_path(&sty, name) else {
            let ts = self.type_str(&sty);
            return self.err(pos, format!("no member named '{name}' in '{ts}'"));
        };
        let space = self
            .b()
            .func()
            .ty(ptr)
            .address_space()
            .unwrap_or(AddressSpace::Private);
        self.set_pos(pos);
        let (mut fp, mut fty) = (ptr, sty);
        for i in path {
            let Type::Struct(id) = fty else {
                return Err(Reported);
            };
            fty = self.module.structs[id.0 as usize].fields[i as usize]
                .ty
                .clone();
            fp = self
                .b()
                .push(Inst::Field(fp, i), Type::ptr(space, fty.clone()));
        }
        Ok(Val::L(LVal {
            place: Place::Mem(fp),
            ty: fty,
            is_const,
        }))
    }

    fn swizzle_lval(&mut self, lv: LVal, name: &str, pos: Pos) -> LResult<Val> {
        let (idx, rt) = self.swizzle_indices(&lv.ty, name, pos)?;
        let is_const = lv.is_const;
        Ok(Val::L(LVal {
            place: Place::Comp(Box::new(lv), idx),
            ty: rt,
            is_const,
        }))
    }

    /// The component indices a swizzle names, and its result type.
    pub(super) fn swizzle_indices(
        &mut self,
        vt: &Type,
        name: &str,
        pos: Pos,
    ) -> LResult<(Vec<u8>, Type)> {
        let (s, n) = match vt {
            Type::Vector(s, n) => (*s, *n),
            _ => return self.err(pos, "swizzle of a non-vector"),
        };
        let half = n.div_ceil(2);
        let idx: Vec<u8> = match name {
            "lo" => (0..half).collect(),
            "hi" => (half..half * 2).map(|i| i.min(n - 1)).collect(),
            "even" => (0..half).map(|i| (i * 2).min(n - 1)).collect(),
            "odd" => (0..half).map(|i| (i * 2 + 1).min(n - 1)).collect(),
            _ => {
                let digits = name.strip_prefix('s').or_else(|| name.strip_prefix('S'));
                let mut out = Vec::new();
                match digits {
                    Some(d) if !d.is_empty() && d.chars().all(|c| c.is_ascii_hexdigit()) => {
                        for c in d.chars() {
                            out.push(c.to_digit(16).unwrap_or(0) as u8);
                        }
                    }
                    _ => {
                        let xyzw = name.chars().all(|c| "xyzw".contains(c));
                        let rgba = name.chars().all(|c| "rgba".contains(c));
                        if !(xyzw || rgba) || name.is_empty() {
                            let ts = self.type_str(vt);
                            return self.err(
                                pos,
                                format!("illegal vector component name '{name}' for type '{ts}'"),
                            );
                        }
                        for c in name.chars() {
                            out.push(match c {
                                'x' | 'r' => 0,
                                'y' | 'g' => 1,
                                'z' | 'b' => 2,
                                _ => 3,
                            });
                        }
                    }
                }
                if let Some(bad) = out.iter().find(|&&i| i >= n) {
                    let ts = self.type_str(vt);
                    return self.err(
                        pos,
                        format!("vector component access exceeds type '{ts}' (component {bad})"),
                    );
                }
                out
            }
        };
        let rt = match idx.len() {
            1 => Type::Scalar(s),
            k if vecl_ir::VECTOR_LENGTHS.contains(&(k as u8)) => Type::Vector(s, k as u8),
            k => {
                return self.err(
                    pos,
                    format!("vector swizzle of length {k} is not a valid vector length"),
                )
            }
        };
        Ok((idx, rt))
    }

    pub(super) fn vector_literal(
        &mut self,
        tn: &TypeName,
        elems: &[Expr],
        pos: Pos,
    ) -> LResult<Val> {
        let t = self.resolve_type_name(tn)?;
        let Type::Vector(s, n) = t else {
            // `(int)(a, b)`: a cast of a comma expression.
            let mut last = None;
            for e in elems {
                last = Some(self.rvalue(e)?);
            }
            let Some((v, from)) = last else {
                return self.err(pos, "expected expression");
            };
            let r = self.convert(v, &from, &t, pos, true)?;
            return Ok(Val::R(r, t));
        };
        let mut parts = Vec::new();
        let mut lanes = 0u32;
        for e in elems {
            let (v, et) = self.rvalue(e)?;
            match et {
                Type::Scalar(_) => {
                    let c = self.convert(v, &et, &Type::Scalar(s), e.pos, false)?;
                    parts.push(c);
                    lanes += 1;
                }
                Type::Vector(es, en) if es == s => {
                    parts.push(v);
                    lanes += u32::from(en);
                }
                _ => {
                    let (x, y) = (self.type_str(&et), self.type_str(&t));
                    return self.err(
                        e.pos,
                        format!("invalid element of type '{x}' in vector literal of type '{y}'"),
                    );
                }
            }
        }
        self.set_pos(pos);
        if parts.len() == 1 && lanes == 1 {
            let r = self.b().push(Inst::Splat(parts[0]), t.clone());
            return Ok(Val::R(r, t));
        }
        if lanes != u32::from(n) {
            let ts = self.type_str(&t);
            return self.err(
                pos,
                format!(
                    "vector literal of type '{ts}' has {lanes} component{}, expected {n}",
                    if lanes == 1 { "" } else { "s" }
                ),
            );
        }
        let r = self.b().push(Inst::Construct(parts), t.clone());
        Ok(Val::R(r, t))
    }
}

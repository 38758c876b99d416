//! Resolving written types: declaration specifiers, declarators, struct
//! and union layouts, enums and typedefs; and the C spelling of a type for
//! diagnostics.

use super::images::ImageKind;
use super::{LResult, Lowerer, Sym};
use crate::ast::*;
use crate::diag::Pos;
use vecl_ir::*;

impl Lowerer<'_> {
    pub(super) fn resolve_specs(&mut self, s: &DeclSpecs) -> LResult<Type> {
        Ok(match &s.ty {
            TypeSpec::Void => Type::Void,
            TypeSpec::Scalar(sc) => Type::Scalar(*sc),
            TypeSpec::Vector(sc, n) => Type::Vector(*sc, *n),
            TypeSpec::Event => Type::U64,
            TypeSpec::Unsupported(name) => {
                if let Some(kind) = ImageKind::from_name(name) {
                    return Ok(kind.ty(s.access));
                }
                if name == "sampler_t" {
                    return Ok(Type::U32);
                }
                return self.err(
                    s.pos,
                    format!("type '{name}' is not supported by vecl (no pipe or device-side enqueue support)"),
                );
            }
            TypeSpec::Typedef(name) => match self.lookup_typedef(name) {
                Some(t) => t,
                None => return self.err(s.pos, format!("unknown type name '{name}'")),
            },
            TypeSpec::Enum { name, items, pos } => {
                if let Some(items) = items {
                    let mut next = 0i64;
                    for (n, v, p) in items {
                        if let Some(e) = v {
                            next = self.const_int(e)?;
                        }
                        self.define_enum_const(n, next, *p)?;
                        next = next.wrapping_add(1);
                    }
                    if let Some(n) = name {
                        self.tags.insert(format!("enum {n}"), Type::I32);
                    }
                } else if let Some(n) = name {
                    if !self.tags.contains_key(&format!("enum {n}")) {
                        return self.err(*pos, format!("use of undeclared enum 'enum {n}'"));
                    }
                }
                // Enums with negative or small values are `int`, as clang chooses.
                Type::I32
            }
            TypeSpec::Struct {
                is_union,
                name,
                fields,
                attrs,
                pos,
            } => {
                let kw = if *is_union { "union" } else { "struct" };
                let tag = name.as_ref().map(|n| format!("{kw} {n}"));
                match fields {
                    None => match tag.as_ref().and_then(|t| self.tags.get(t)) {
                        Some(t) => t.clone(),
                        None => {
                            // A forward declaration: an incomplete struct usable behind pointers.
                            let id = StructId(self.module.structs.len() as u32);
                            let n = name.clone().unwrap_or_default();
                            self.module.structs.push(StructDef::layout(
                                &n,
                                *is_union,
                                false,
                                1,
                                Vec::new(),
                                &[],
                            ));
                            let t = Type::Struct(id);
                            if let Some(tag) = tag {
                                self.tags.insert(tag, t.clone());
                            }
                            t
                        }
                    },
                    Some(fdecls) => {
                        let mut fs: Vec<(String, Type)> = Vec::new();
                        for fd in fdecls {
                            let base = self.resolve_specs(&fd.specs)?;
                            if fd.items.is_empty() {
                                // An anonymous struct/union member (C11): its
                                // fields are reached through `field_path`.
                                if !matches!(base, Type::Struct(_)) {
                                    return self
                                        .err(fd.pos, "declaration does not declare anything");
                                }
                                self.anon_structs += 1;
                                fs.push((format!("<anon{}>", self.anon_structs), base));
                                continue;
                            }
                            for it in &fd.items {
                                // `__global int *p;`: the address space
                                // written qualifies what the pointer member
                                // points to.
                                let ty =
                                    self.apply_declarator(base.clone(), &it.decl, fd.specs.space)?;
                                let (fname, fpos) = it.decl.name.clone().unwrap_or_default();
                                if ty == Type::Void {
                                    return self.err(
                                        fpos,
                                        format!("field '{fname}' has incomplete type 'void'"),
                                    );
                                }
                                if let Some(kind) = ImageKind::of(&ty) {
                                    return self.err(
                                        fpos,
                                        format!("the '{}' type cannot be used to declare a structure or union field", kind.name()),
                                    );
                                }
                                if fs.iter().any(|(n, _)| *n == fname)
                                    || fs.iter().any(|(n, t)| {
                                        is_anonymous_member(n)
                                            && self.field_path(t, &fname).is_some()
                                    })
                                {
                                    return self.err(fpos, format!("duplicate member '{fname}'"));
                                }
                                fs.push((fname, ty));
                            }
                        }
                        let packed = attrs.iter().any(|a| a.name == "packed");
                        let mut min_align = 1;
                        for a in attrs.iter().filter(|a| a.name == "aligned") {
                            min_align = match a.args.first() {
                                Some(e) => self.const_int(e)? as u32,
                                None => 16,
                            };
                            if !min_align.is_power_of_two() {
                                return self.err(a.pos, "requested alignment is not a power of 2");
                            }
                        }
                        let n = name.clone().unwrap_or_else(|| {
                            self.anon_structs += 1;
                            format!("anon.{}", self.anon_structs)
                        });
                        let def = StructDef::layout(
                            &n,
                            *is_union,
                            packed,
                            min_align,
                            fs,
                            &self.module.structs,
                        );
                        // Complete an earlier forward declaration in place.
                        let existing = tag.as_ref().and_then(|t| self.tags.get(t)).cloned();
                        let t = match existing {
                            Some(Type::Struct(id))
                                if self.module.structs[id.0 as usize].fields.is_empty() =>
                            {
                                self.module.structs[id.0 as usize] = def;
                                Type::Struct(id)
                            }
                            Some(_) => {
                                return self.err(
                                    *pos,
                                    format!("redefinition of '{}'", tag.unwrap_or_default()),
                                )
                            }
                            None => {
                                let id = StructId(self.module.structs.len() as u32);
                                self.module.structs.push(def);
                                Type::Struct(id)
                            }
                        };
                        if let Some(tag) = tag {
                            self.tags.insert(tag, t.clone());
                        }
                        t
                    }
                }
            }
        })
    }

    /// The field indices leading to member `name` of struct type `ty`,
    /// looking through anonymous struct/union members: `[i]` for a direct
    /// field, `[i, j, …]` for one inside anonymous members.
    pub(super) fn field_path(&self, ty: &Type, name: &str) -> Option<Vec<u32>> {
        self.field_path_depth(ty, name, 0)
    }

    fn field_path_depth(&self, ty: &Type, name: &str, depth: u32) -> Option<Vec<u32>> {
        let Type::Struct(id) = ty else {
            return None;
        };
        let def = self.module.structs.get(id.0 as usize)?;
        if let Some((i, _)) = def.field(name) {
            return Some(vec![i as u32]);
        }
        if depth > 64 {
            return None;
        }
        def.fields.iter().enumerate().find_map(|(i, f)| {
            if !is_anonymous_member(&f.name) {
                return None;
            }
            let mut rest = self.field_path_depth(&f.ty, name, depth + 1)?;
            rest.insert(0, i as u32);
            Some(rest)
        })
    }

    fn define_enum_const(&mut self, name: &str, v: i64, pos: Pos) -> LResult<()> {
        match self.cx.as_mut() {
            Some(cx) => {
                if let Some(s) = cx.scopes.last_mut() {
                    s.insert(name.to_string(), Sym::EnumConst(v));
                }
            }
            None => {
                if self.globals.contains_key(name) {
                    return self.err(pos, format!("redefinition of '{name}'"));
                }
                self.globals.insert(name.to_string(), Sym::EnumConst(v));
            }
        }
        Ok(())
    }

    /// The address space of the declared object itself: the qualifier after
    /// the outermost `*`, or the specifiers' when the declarator has no pointer.
    pub(super) fn object_space(specs: &DeclSpecs, d: &Declarator) -> Option<AddressSpace> {
        let mut space = specs.space;
        for op in &d.ops {
            if let DeclOp::Pointer { space: s, .. } = op {
                space = *s;
            }
        }
        space
    }

    /// Whether the declared object itself is const: `const` after its
    /// outermost `*` (`int *const p`), or in the specifiers when the
    /// declarator has no pointer (`const int x`; `const int *p` is not).
    pub(super) fn object_is_const(specs: &DeclSpecs, d: &Declarator) -> bool {
        let mut is_const = specs.is_const;
        for op in &d.ops {
            if let DeclOp::Pointer { is_const: c, .. } = op {
                is_const = *c;
            }
        }
        is_const
    }

    pub(super) fn lookup_typedef(&self, name: &str) -> Option<Type> {
        self.typedefs
            .iter()
            .rev()
            .find_map(|s| s.get(name).cloned())
    }

    /// Applies a declarator's pointer/array operations to a base type.
    /// `space` is the address space written in the specifiers: it qualifies
    /// the object the innermost pointer points to.
    pub(super) fn apply_declarator(
        &mut self,
        base: Type,
        d: &Declarator,
        space: Option<AddressSpace>,
    ) -> LResult<Type> {
        if let (Some(kind), Some(op)) = (ImageKind::of(&base), d.ops.first()) {
            let pos = d.name.as_ref().map(|n| n.1).unwrap_or_default();
            let what = match op {
                DeclOp::Pointer { .. } => "pointer to",
                DeclOp::Array(_) => "array of",
                DeclOp::Function(_) => "function returning",
            };
            return self.err(
                pos,
                format!("{what} type '{}' is invalid in OpenCL", kind.name()),
            );
        }
        let mut ty = base;
        let mut pending_space = space;
        for op in &d.ops {
            match op {
                DeclOp::Pointer { space: next, .. } => {
                    let sp = pending_space.take().unwrap_or(if self.opts.cl_std >= 200 {
                        AddressSpace::Generic
                    } else {
                        AddressSpace::Private
                    });
                    ty = Type::ptr(sp, ty);
                    pending_space = *next;
                }
                DeclOp::Array(size) => {
                    if ty == Type::Void {
                        let pos = d.name.as_ref().map(|n| n.1).unwrap_or_default();
                        return self.err(pos, "declaration of array of 'void'");
                    }
                    let n = match size {
                        Some(e) => {
                            let n = self.const_int(e)?;
                            if n <= 0 {
                                return self.err(e.pos, "array size must be greater than zero");
                            }
                            n as u32
                        }
                        // Completed later from the initialiser, or a parameter.
                        None => 0,
                    };
                    // Sizes are 32-bit in the IR: a larger object is an
                    // error here rather than a size that wraps.
                    let bytes = u64::from(self.module.size_of(&ty)) * u64::from(n);
                    if bytes > u64::from(MAX_OBJECT_BYTES) {
                        let pos = d.name.as_ref().map(|n| n.1).unwrap_or_default();
                        return self.err(
                            pos,
                            format!(
                                "array of {bytes} bytes is too large (an object holds at most {MAX_OBJECT_BYTES} bytes)"
                            ),
                        );
                    }
                    ty = Type::array(ty, n);
                }
                DeclOp::Function(_) => {
                    let pos = d.name.as_ref().map(|n| n.1).unwrap_or_default();
                    return self.err(pos, "function pointers are not supported in OpenCL C");
                }
            }
        }
        Ok(ty)
    }

    pub(super) fn resolve_type_name(&mut self, tn: &TypeName) -> LResult<Type> {
        let base = self.resolve_specs(&tn.specs)?;
        self.apply_declarator(base, &tn.decl, tn.specs.space)
    }

    /// `int a[] = {1, 2, 3}`: the length comes from the initialiser.
    pub(super) fn complete_array_from_init(
        &mut self,
        ty: Type,
        init: Option<&Init>,
        pos: Pos,
    ) -> LResult<Type> {
        if let Type::Array(elem, 0) = &ty {
            let n = match init {
                Some(Init::List(items, _)) => {
                    let mut max = 0i64;
                    let mut at = 0i64;
                    for (desig, _) in items {
                        if let Some(Designator::Index(e)) = desig.first() {
                            at = self.const_int(e)?;
                        }
                        at += 1;
                        max = max.max(at);
                    }
                    max as u32
                }
                Some(Init::Expr(Expr { kind: ExprKind::Str(s), .. })) => s.len() as u32 + 1,
                _ => return self.err(pos, "definition of variable with array type needs an explicit size or an initializer"),
            };
            return Ok(Type::array((**elem).clone(), n.max(1)));
        }
        Ok(ty)
    }

    /// The OpenCL C spelling of a type, for diagnostics.
    pub(super) fn type_str(&self, t: &Type) -> String {
        if let Some(name) = super::images::spelling(t) {
            return name;
        }
        if super::images::is_image_data(t) {
            return "image data".into();
        }
        match t {
            Type::Void => "void".into(),
            Type::Scalar(s) => s.c_name().into(),
            Type::Vector(s, n) => format!("{}{n}", s.c_name()),
            Type::Pointer(sp, inner) => {
                let q = match sp {
                    AddressSpace::Private => "",
                    AddressSpace::Global => "__global ",
                    AddressSpace::Constant => "__constant ",
                    AddressSpace::Local => "__local ",
                    AddressSpace::Generic => "",
                };
                format!("{q}{} *", self.type_str(inner))
            }
            Type::Array(e, n) => format!("{}[{n}]", self.type_str(e)),
            Type::Struct(id) => {
                let d = &self.module.structs[id.0 as usize];
                format!("{} {}", if d.is_union { "union" } else { "struct" }, d.name)
            }
        }
    }
}

/// The largest object, in bytes (sizes are 32-bit in the IR).
const MAX_OBJECT_BYTES: u32 = i32::MAX as u32;

/// Whether a field is an anonymous struct/union member (named `<anonN>`,
/// which no identifier can spell).
pub(super) fn is_anonymous_member(name: &str) -> bool {
    name.starts_with("<anon")
}

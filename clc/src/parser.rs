//! The OpenCL C parser: tokens → [`ast`](crate::ast).
//!
//! A recursive-descent parser for C99 with the OpenCL C additions (address
//! space and access qualifiers, `__kernel`, vector type names, vector
//! literals, `__attribute__`). Typedef names are tracked per scope, which is
//! what C needs to tell `(T)x` from `(a)*b`. After an error the parser skips
//! to the next `;` or `}` and goes on, so one build reports several errors.

use crate::ast::*;
use crate::diag::{Diags, Pos};
use crate::lexer::{recycle, Text, TokKind, Token};
use crate::literal;
use rustc_hash::FxHashSet;
use vecl_ir::{AccessQualifier, AddressSpace, Scalar};

pub struct Parser<'a> {
    toks: Vec<Token>,
    k: usize,
    diags: &'a mut Diags,
    typedefs: Vec<FxHashSet<String>>,
    /// `-cl-single-precision-constant`: unsuffixed floating constants are `float`.
    single_precision_constants: bool,
    /// Current nesting of expressions and statements (bounded: deep
    /// recursion would overflow the stack).
    depth: u32,
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.toks));
    }
}

/// How deeply expressions and statements may nest.
pub const MAX_NESTING: u32 = 256;

/// A parse failure already reported to the diagnostics.
#[derive(Debug)]
pub struct Reported;

type PResult<T> = Result<T, Reported>;

/// The scalar of a builtin scalar type name (`uint`, `size_t`…).
pub fn scalar_type_name(name: &str) -> Option<Scalar> {
    Some(match name {
        "bool" => Scalar::Bool,
        "char" => Scalar::I8,
        "uchar" => Scalar::U8,
        "short" => Scalar::I16,
        "ushort" => Scalar::U16,
        "int" => Scalar::I32,
        "uint" => Scalar::U32,
        "long" => Scalar::I64,
        "ulong" => Scalar::U64,
        "half" => Scalar::F16,
        "float" => Scalar::F32,
        "double" => Scalar::F64,
        "size_t" | "uintptr_t" => Scalar::U64,
        "ptrdiff_t" | "intptr_t" => Scalar::I64,
        // OpenCL 2.0 atomic types have the layout of their value type.
        "atomic_int" | "atomic_flag" => Scalar::I32,
        "atomic_uint" => Scalar::U32,
        "atomic_long" | "atomic_intptr_t" | "atomic_ptrdiff_t" => Scalar::I64,
        "atomic_ulong" | "atomic_uintptr_t" | "atomic_size_t" => Scalar::U64,
        "atomic_float" => Scalar::F32,
        "atomic_double" => Scalar::F64,
        // The enumerations of OpenCL C 2.0 atomics and fences, which clang
        // declares as enums and a typedef of uint.
        "memory_order" | "memory_scope" => Scalar::I32,
        "cl_mem_fence_flags" => Scalar::U32,
        _ => return None,
    })
}

/// The vector type of a vector type name (`float4`, `uchar16`).
pub fn vector_type_name(name: &str) -> Option<(Scalar, u8)> {
    let digits = name.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let base = &name[..name.len() - digits.len()];
    let n: u8 = digits.parse().ok()?;
    if !vecl_ir::VECTOR_LENGTHS.contains(&n) || base == "bool" || base == "size_t" {
        return None;
    }
    let s = scalar_type_name(base)?;
    Some((s, n))
}

fn address_space_keyword(name: &str) -> Option<AddressSpace> {
    Some(match name {
        "__global" | "global" => AddressSpace::Global,
        "__local" | "local" => AddressSpace::Local,
        "__constant" | "constant" => AddressSpace::Constant,
        "__private" | "private" => AddressSpace::Private,
        "__generic" | "generic" => AddressSpace::Generic,
        _ => return None,
    })
}

const UNSUPPORTED_TYPES: [&str; 10] = [
    "image1d_t",
    "image1d_array_t",
    "image1d_buffer_t",
    "image2d_t",
    "image2d_array_t",
    "image3d_t",
    "sampler_t",
    "pipe",
    "queue_t",
    "clk_event_t",
];

impl<'a> Parser<'a> {
    pub fn new(toks: Vec<Token>, diags: &'a mut Diags, single_precision_constants: bool) -> Self {
        Parser {
            toks,
            k: 0,
            diags,
            typedefs: vec![FxHashSet::default()],
            single_precision_constants,
            depth: 0,
        }
    }

    // ---- token helpers ----

    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.k)
    }

    fn peek_at(&self, n: usize) -> Option<&Token> {
        self.toks.get(self.k + n)
    }

    fn pos(&self) -> Pos {
        self.peek()
            .or(self.toks.last())
            .map(|t| t.pos)
            .unwrap_or_default()
    }

    /// Just past the last token.
    fn end_pos(&self) -> Pos {
        match self.toks.last() {
            Some(t) => Pos {
                col: t.pos.col + t.text.chars().count() as u32,
                ..t.pos
            },
            None => Pos::default(),
        }
    }

    fn at(&self, p: &str) -> bool {
        self.peek()
            .is_some_and(|t| t.is(p) && t.kind != TokKind::Str)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.at(p) {
            self.k += 1;
            true
        } else {
            false
        }
    }

    fn err<T>(&mut self, pos: Pos, msg: impl Into<String>) -> PResult<T> {
        self.diags.error(pos, msg);
        Err(Reported)
    }

    fn expect(&mut self, p: &str) -> PResult<Pos> {
        let pos = self.pos();
        if self.eat(p) {
            return Ok(pos);
        }
        let found = match self.peek() {
            Some(t) => format!("'{}'", t.text),
            None => "end of input".to_string(),
        };
        // Point just past the previous token, where the missing one belongs.
        let at = match (self.k.checked_sub(1).map(|i| &self.toks[i]), p) {
            (Some(prev), ";" | ")" | "]") => Pos {
                col: prev.pos.col + prev.text.chars().count() as u32,
                ..prev.pos
            },
            _ => pos,
        };
        self.err(at, format!("expected '{p}' before {found}"))
    }

    fn ident(&mut self) -> PResult<(Text, Pos)> {
        match self.peek() {
            Some(t) if t.kind == TokKind::Ident => {
                let r = (t.text.clone(), t.pos);
                self.k += 1;
                Ok(r)
            }
            Some(t) => {
                let (pos, text) = (t.pos, t.text.clone());
                self.err(pos, format!("expected identifier before '{text}'"))
            }
            None => {
                let pos = self.pos();
                self.err(pos, "expected identifier before end of input")
            }
        }
    }

    fn is_typedef(&self, name: &str) -> bool {
        self.typedefs.iter().rev().any(|s| s.contains(name))
    }

    /// A typedef name that is not also a keyword or builtin type name.
    fn is_plain_typedef(&self, w: &str) -> bool {
        self.is_typedef(w)
            && scalar_type_name(w).is_none()
            && vector_type_name(w).is_none()
            && address_space_keyword(w).is_none()
    }

    fn push_scope(&mut self) {
        self.typedefs.push(FxHashSet::default());
    }

    fn pop_scope(&mut self) {
        self.typedefs.pop();
    }

    /// Whether the next token can begin declaration specifiers.
    fn starts_decl(&self) -> bool {
        self.peek()
            .is_some_and(|t| t.kind == TokKind::Ident && self.is_decl_word(&t.text))
    }

    fn is_decl_word(&self, w: &str) -> bool {
        matches!(
            w,
            "void"
                | "signed"
                | "unsigned"
                | "struct"
                | "union"
                | "enum"
                | "typedef"
                | "static"
                | "extern"
                | "inline"
                | "__inline"
                | "const"
                | "__const"
                | "volatile"
                | "restrict"
                | "__restrict"
                | "__kernel"
                | "kernel"
                | "__attribute__"
                | "read_only"
                | "__read_only"
                | "write_only"
                | "__write_only"
                | "read_write"
                | "__read_write"
                | "event_t"
                | "_Bool"
        ) || scalar_type_name(w).is_some()
            || vector_type_name(w).is_some()
            || address_space_keyword(w).is_some()
            || UNSUPPORTED_TYPES.contains(&w)
            || self.is_typedef(w)
    }

    fn skip_to_recovery(&mut self) {
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            if t.is_punct("{") {
                depth += 1;
            } else if t.is_punct("}") {
                if depth == 0 {
                    return;
                }
                depth -= 1;
                if depth == 0 {
                    self.k += 1;
                    return;
                }
            } else if t.is_punct(";") && depth == 0 {
                self.k += 1;
                return;
            }
            self.k += 1;
        }
    }

    // ---- translation unit ----

    pub fn translation_unit(&mut self) -> Vec<External> {
        let mut out = Vec::new();
        while self.peek().is_some() {
            if self.diags.too_many() {
                break;
            }
            if self.eat(";") {
                continue;
            }
            let start = self.k;
            match self.external() {
                Ok(e) => out.push(e),
                Err(Reported) => {
                    if self.k == start {
                        self.k += 1;
                    }
                    self.skip_to_recovery();
                }
            }
        }
        out
    }

    fn external(&mut self) -> PResult<External> {
        let pos = self.pos();
        if !self.starts_decl() {
            let t = self.peek().map(|t| t.text.clone()).unwrap_or_default();
            return self.err(pos, format!("unknown type name '{t}'"));
        }
        let specs = self.decl_specs()?;
        if self.eat(";") {
            return Ok(External::Decl(Decl {
                specs,
                items: Vec::new(),
                pos,
            }));
        }
        let decl = self.declarator(false)?;
        if matches!(decl.ops.last(), Some(DeclOp::Function(_))) && self.at("{") {
            let body_pos = self.pos();
            self.push_scope();
            let body = self.compound_body();
            self.pop_scope();
            let end = self
                .toks
                .get(self.k.saturating_sub(1))
                .map(|t| t.pos)
                .unwrap_or(body_pos);
            return Ok(External::Func(FuncDef {
                specs,
                decl,
                body: body?,
                pos,
                end,
            }));
        }
        let d = self.rest_of_decl(specs, decl, pos)?;
        Ok(External::Decl(d))
    }

    /// After the first declarator: initialiser, more declarators, `;`.
    fn rest_of_decl(&mut self, specs: DeclSpecs, first: Declarator, pos: Pos) -> PResult<Decl> {
        let mut items = Vec::new();
        let mut decl = first;
        loop {
            if specs.storage == Storage::Typedef {
                if let Some((n, _)) = &decl.name {
                    if let Some(s) = self.typedefs.last_mut() {
                        s.insert(n.clone());
                    }
                }
            }
            let init = if self.eat("=") {
                Some(self.initializer()?)
            } else {
                None
            };
            items.push(InitDeclarator { decl, init });
            if !self.eat(",") {
                break;
            }
            decl = self.declarator(false)?;
        }
        self.expect(";")?;
        Ok(Decl { specs, items, pos })
    }

    fn initializer(&mut self) -> PResult<Init> {
        if !self.at("{") {
            return Ok(Init::Expr(self.assign_expr()?));
        }
        let pos = self.pos();
        self.k += 1;
        let mut items = Vec::new();
        while !self.at("}") {
            let mut desig = Vec::new();
            loop {
                if self.eat(".") {
                    let (n, p) = self.ident()?;
                    desig.push(Designator::Field(n.to_string(), p));
                } else if self.eat("[") {
                    let e = self.cond_expr()?;
                    self.expect("]")?;
                    desig.push(Designator::Index(e));
                } else {
                    break;
                }
            }
            if !desig.is_empty() {
                self.expect("=")?;
            }
            items.push((desig, self.initializer()?));
            if !self.eat(",") {
                break;
            }
        }
        self.expect("}")?;
        Ok(Init::List(items, pos))
    }

    // ---- declaration specifiers ----

    fn attributes(&mut self, out: &mut Vec<Attr>) -> PResult<()> {
        while self.at("__attribute__") || self.at("__attribute") {
            self.k += 1;
            self.expect("(")?;
            self.expect("(")?;
            while !self.at(")") {
                let (name, pos) = self.ident()?;
                let name = name
                    .trim_start_matches("__")
                    .trim_end_matches("__")
                    .to_string();
                let mut attr = Attr {
                    name,
                    args: Vec::new(),
                    type_arg: None,
                    pos,
                };
                if self.eat("(") {
                    if attr.name == "vec_type_hint" {
                        attr.type_arg = Some(Box::new(self.type_name()?));
                    } else {
                        while !self.at(")") {
                            attr.args.push(self.assign_expr()?);
                            if !self.eat(",") {
                                break;
                            }
                        }
                    }
                    self.expect(")")?;
                }
                out.push(attr);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(")")?;
            self.expect(")")?;
        }
        Ok(())
    }

    fn decl_specs(&mut self) -> PResult<DeclSpecs> {
        let pos = self.pos();
        let mut s = DeclSpecs {
            storage: Storage::None,
            kernel: false,
            inline: false,
            space: None,
            is_const: false,
            is_volatile: false,
            is_restrict: false,
            access: AccessQualifier::None,
            ty: TypeSpec::Scalar(Scalar::I32),
            written: String::new(),
            attrs: Vec::new(),
            pos,
        };
        let mut base: Option<TypeSpec> = None;
        let (mut signed, mut unsigned, mut short, mut longs, mut char_, mut int_) =
            (false, false, false, 0, false, false);
        let mut written = Vec::<Text>::new();
        while let Some(t) = self.peek() {
            if t.kind != TokKind::Ident {
                break;
            }
            let w = t.text.clone();
            let wpos = t.pos;
            if w == "__attribute__" || w == "__attribute" {
                let mut attrs = std::mem::take(&mut s.attrs);
                self.attributes(&mut attrs)?;
                s.attrs = attrs;
                continue;
            }
            if let Some(sp) = address_space_keyword(&w) {
                if s.space.is_some_and(|old| old != sp) {
                    return self.err(wpos, "multiple address spaces specified for type");
                }
                s.space = Some(sp);
                self.k += 1;
                continue;
            }
            match w.as_str() {
                "typedef" => s.storage = Storage::Typedef,
                "static" => s.storage = Storage::Static,
                "extern" => s.storage = Storage::Extern,
                "inline" | "__inline" => s.inline = true,
                "__kernel" | "kernel" => s.kernel = true,
                "const" | "__const" => s.is_const = true,
                "volatile" => s.is_volatile = true,
                "restrict" | "__restrict" => s.is_restrict = true,
                "read_only" | "__read_only" => s.access = AccessQualifier::ReadOnly,
                "write_only" | "__write_only" => s.access = AccessQualifier::WriteOnly,
                "read_write" | "__read_write" => s.access = AccessQualifier::ReadWrite,
                "signed" => signed = true,
                "unsigned" => unsigned = true,
                "short" => short = true,
                "long" if base.is_none() => longs += 1,
                "char" if base.is_none() => char_ = true,
                "int" if base.is_none() => int_ = true,
                "struct" | "union" => {
                    if base.is_some() {
                        return self.err(wpos, "cannot combine with previous type specifier");
                    }
                    self.k += 1;
                    let spec = self.struct_spec(w == "union", wpos)?;
                    if let TypeSpec::Struct { name, .. } = &spec {
                        written.push(format!("{w} {}", name.clone().unwrap_or_default()).into());
                    }
                    base = Some(spec);
                    continue;
                }
                "enum" => {
                    if base.is_some() {
                        return self.err(wpos, "cannot combine with previous type specifier");
                    }
                    self.k += 1;
                    let spec = self.enum_spec(wpos)?;
                    if let TypeSpec::Enum { name, .. } = &spec {
                        written.push(format!("enum {}", name.clone().unwrap_or_default()).into());
                    }
                    base = Some(spec);
                    continue;
                }
                _ => {
                    let spec = if w == "void" {
                        Some(TypeSpec::Void)
                    } else if w == "_Bool" {
                        Some(TypeSpec::Scalar(Scalar::Bool))
                    } else if w == "event_t" {
                        Some(TypeSpec::Event)
                    } else if UNSUPPORTED_TYPES.contains(&w.as_str()) {
                        Some(TypeSpec::Unsupported(w.to_string()))
                    } else if let Some(sc) = scalar_type_name(&w)
                        .filter(|_| !matches!(w.as_str(), "char" | "int" | "long" | "short"))
                    {
                        Some(TypeSpec::Scalar(sc))
                    } else if let Some((sc, n)) = vector_type_name(&w) {
                        Some(TypeSpec::Vector(sc, n))
                    } else if self.is_typedef(&w)
                        && base.is_none()
                        && !(signed || unsigned || short || longs > 0 || char_ || int_)
                    {
                        Some(TypeSpec::Typedef(w.to_string()))
                    } else {
                        None
                    };
                    match spec {
                        Some(sp) => {
                            if base.is_some() {
                                return self
                                    .err(wpos, "cannot combine with previous type specifier");
                            }
                            base = Some(sp);
                            written.push(w.clone());
                        }
                        None => break,
                    }
                    self.k += 1;
                    continue;
                }
            }
            if matches!(
                w.as_str(),
                "signed" | "unsigned" | "short" | "long" | "char" | "int"
            ) {
                written.push(w.clone());
            }
            self.k += 1;
        }
        let any_int_word = signed || unsigned || short || longs > 0 || char_ || int_;
        s.ty = match base {
            Some(b) => {
                if any_int_word {
                    return self.err(pos, "cannot combine with previous type specifier");
                }
                b
            }
            None if any_int_word => {
                if signed && unsigned {
                    return self.err(pos, "cannot combine 'signed' with 'unsigned'");
                }
                let sc = if char_ {
                    if unsigned {
                        Scalar::U8
                    } else {
                        Scalar::I8
                    }
                } else if short {
                    if unsigned {
                        Scalar::U16
                    } else {
                        Scalar::I16
                    }
                } else if longs > 0 {
                    if unsigned {
                        Scalar::U64
                    } else {
                        Scalar::I64
                    }
                } else if unsigned {
                    Scalar::U32
                } else {
                    Scalar::I32
                };
                TypeSpec::Scalar(sc)
            }
            None => {
                let found = self.peek().map(|t| t.text.clone()).unwrap_or_default();
                let at = self.pos();
                if self.peek().is_some_and(|t| t.kind == TokKind::Ident) {
                    return self.err(at, format!("unknown type name '{found}'"));
                }
                return self.err(at, format!("expected a type before '{found}'"));
            }
        };
        s.written = canonical_type_name(&written);
        Ok(s)
    }

    fn struct_spec(&mut self, is_union: bool, pos: Pos) -> PResult<TypeSpec> {
        let mut attrs = Vec::new();
        self.attributes(&mut attrs)?;
        let name = if self.peek().is_some_and(|t| t.kind == TokKind::Ident) {
            Some(self.ident()?.0.to_string())
        } else {
            None
        };
        let fields = if self.eat("{") {
            let mut fields = Vec::new();
            while !self.at("}") && self.peek().is_some() {
                let fpos = self.pos();
                let specs = self.decl_specs()?;
                let mut items = Vec::new();
                if !self.at(";") {
                    loop {
                        let d = self.declarator(false)?;
                        if self.eat(":") {
                            return self.err(fpos, "bit-fields are not supported in OpenCL C");
                        }
                        items.push(InitDeclarator {
                            decl: d,
                            init: None,
                        });
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(";")?;
                fields.push(Decl {
                    specs,
                    items,
                    pos: fpos,
                });
            }
            self.expect("}")?;
            self.attributes(&mut attrs)?;
            Some(fields)
        } else {
            if name.is_none() {
                return self.err(pos, "declaration of anonymous struct must be a definition");
            }
            None
        };
        Ok(TypeSpec::Struct {
            is_union,
            name,
            fields,
            attrs,
            pos,
        })
    }

    fn enum_spec(&mut self, pos: Pos) -> PResult<TypeSpec> {
        let name = if self.peek().is_some_and(|t| t.kind == TokKind::Ident) {
            Some(self.ident()?.0.to_string())
        } else {
            None
        };
        let items = if self.eat("{") {
            let mut items = Vec::new();
            while !self.at("}") {
                let (n, p) = self.ident()?;
                let n = n.to_string();
                let v = if self.eat("=") {
                    Some(self.cond_expr()?)
                } else {
                    None
                };
                items.push((n, v, p));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("}")?;
            Some(items)
        } else {
            None
        };
        Ok(TypeSpec::Enum { name, items, pos })
    }

    // ---- declarators ----

    /// A declarator; `abstract_` allows the name to be missing (type names, parameters).
    fn declarator(&mut self, abstract_: bool) -> PResult<Declarator> {
        let mut ptrs = Vec::new();
        let mut attrs = Vec::new();
        while self.eat("*") {
            let (mut space, mut is_const, mut is_restrict, mut is_volatile) =
                (None, false, false, false);
            while let Some(t) = self.peek() {
                let w = t.text.as_str();
                if let Some(sp) = address_space_keyword(w) {
                    space = Some(sp);
                } else {
                    match w {
                        "const" | "__const" => is_const = true,
                        "restrict" | "__restrict" => is_restrict = true,
                        "volatile" => is_volatile = true,
                        "__attribute__" => {
                            self.attributes(&mut attrs)?;
                            continue;
                        }
                        _ => break,
                    }
                }
                self.k += 1;
            }
            ptrs.push(DeclOp::Pointer {
                space,
                is_const,
                is_restrict,
                is_volatile,
            });
        }
        let mut inner = Declarator::default();
        if self.at("(") && !abstract_ {
            self.k += 1;
            inner = self.declarator(false)?;
            self.expect(")")?;
        } else if self.at("(") && self.peek_at(1).is_some_and(|t| t.is_punct("*")) {
            self.k += 1;
            inner = self.declarator(true)?;
            self.expect(")")?;
        } else if self.peek().is_some_and(|t| {
            // A typedef name after the specifiers is the declared name: an
            // inner scope may redeclare it (`typedef float T;` under `typedef int T;`).
            t.kind == TokKind::Ident
                && (!self.is_decl_word(&t.text) || self.is_plain_typedef(&t.text))
        }) {
            let (name, pos) = self.ident()?;
            inner.name = Some((name.to_string(), pos));
        } else if !abstract_ {
            let at = self.pos();
            let found = self.peek().map(|t| t.text.clone()).unwrap_or_default();
            return self.err(at, format!("expected identifier or '(' before '{found}'"));
        }
        let mut suffixes = Vec::new();
        loop {
            if self.eat("[") {
                let size = if self.at("]") {
                    None
                } else {
                    Some(Box::new(self.assign_expr()?))
                };
                self.expect("]")?;
                suffixes.push(DeclOp::Array(size));
            } else if self.at("(") {
                self.k += 1;
                let params = self.params()?;
                suffixes.push(DeclOp::Function(params));
            } else {
                break;
            }
        }
        self.attributes(&mut attrs)?;
        let mut ops = ptrs;
        ops.extend(suffixes.into_iter().rev());
        ops.extend(inner.ops);
        attrs.extend(inner.attrs);
        Ok(Declarator {
            name: inner.name,
            ops,
            attrs,
        })
    }

    fn params(&mut self) -> PResult<Vec<ParamDecl>> {
        let mut ps = Vec::new();
        if self.eat(")") {
            return Ok(ps);
        }
        if self.at("void") && self.peek_at(1).is_some_and(|t| t.is_punct(")")) {
            self.k += 2;
            return Ok(ps);
        }
        loop {
            let pos = self.pos();
            if !self.starts_decl() {
                let found = self.peek().map(|t| t.text.clone()).unwrap_or_default();
                return self.err(pos, format!("unknown type name '{found}'"));
            }
            let specs = self.decl_specs()?;
            let decl = self.declarator(true)?;
            ps.push(ParamDecl { specs, decl, pos });
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        Ok(ps)
    }

    fn type_name(&mut self) -> PResult<TypeName> {
        let specs = self.decl_specs()?;
        let decl = self.declarator(true)?;
        Ok(TypeName { specs, decl })
    }

    // ---- statements ----

    fn compound_body(&mut self) -> PResult<Vec<Statement>> {
        self.expect("{")?;
        let mut out = Vec::new();
        let mut failed = false;
        while !self.at("}") {
            if self.peek().is_none() {
                let pos = self.end_pos();
                return self.err(pos, "expected '}' at end of input");
            }
            if self.diags.too_many() {
                return Err(Reported);
            }
            let start = self.k;
            match self.statement() {
                Ok(s) => out.push(s),
                Err(Reported) => {
                    failed = true;
                    if self.k == start {
                        self.k += 1;
                    }
                    self.skip_statement();
                }
            }
        }
        self.k += 1;
        // Statements that failed to parse are dropped (their errors are
        // reported); the rest still reach semantic analysis, so one build
        // reports the errors of the whole function.
        let _ = failed;
        Ok(out)
    }

    /// Skips the rest of a broken statement: to `;` or a `}` at this level.
    fn skip_statement(&mut self) {
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            if t.is_punct("{") {
                depth += 1;
            } else if t.is_punct("}") {
                if depth == 0 {
                    return;
                }
                depth -= 1;
            } else if t.is_punct(";") && depth == 0 {
                self.k += 1;
                return;
            }
            self.k += 1;
        }
    }

    fn statement(&mut self) -> PResult<Statement> {
        self.nested(Self::statement_inner)
    }

    /// Runs `f` one nesting level deeper, failing past [`MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            let pos = self.pos();
            // Skip everything: the rest cannot be parsed sensibly at this depth.
            self.k = self.toks.len();
            return self.err(pos, "expressions or statements nested too deeply");
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn statement_inner(&mut self) -> PResult<Statement> {
        // Statement attributes (`__attribute__((opencl_unroll_hint(4))) for …`)
        // are hints vecl does not need; attributes before a declaration stay
        // with its specifiers.
        if self.at("__attribute__") {
            let save = self.k;
            let mut ignored = Vec::new();
            self.attributes(&mut ignored)?;
            let loop_follows = ["for", "while", "do", "if", "switch", "{"]
                .iter()
                .any(|w| self.at(w));
            if !loop_follows {
                self.k = save;
            }
        }
        let pos = self.pos();
        let Some(t) = self.peek() else {
            return self.err(pos, "expected statement at end of input");
        };
        if t.kind == TokKind::Ident {
            let w = t.text.clone();
            match w.as_str() {
                "if" => {
                    self.k += 1;
                    self.expect("(")?;
                    let c = self.expr()?;
                    self.expect(")")?;
                    let then_ = self.sub_statement()?;
                    let else_ = if self.eat("else") {
                        Some(Box::new(self.sub_statement()?))
                    } else {
                        None
                    };
                    return Ok(Statement::If(c, Box::new(then_), else_));
                }
                "while" => {
                    self.k += 1;
                    self.expect("(")?;
                    let c = self.expr()?;
                    self.expect(")")?;
                    let body = self.sub_statement()?;
                    return Ok(Statement::While(c, Box::new(body)));
                }
                "do" => {
                    self.k += 1;
                    let body = self.sub_statement()?;
                    if !self.eat("while") {
                        let at = self.pos();
                        return self.err(at, "expected 'while' in do/while loop");
                    }
                    self.expect("(")?;
                    let c = self.expr()?;
                    self.expect(")")?;
                    self.expect(";")?;
                    return Ok(Statement::DoWhile(Box::new(body), c));
                }
                "for" => {
                    self.k += 1;
                    self.expect("(")?;
                    self.push_scope();
                    let r = self.for_rest();
                    self.pop_scope();
                    return r;
                }
                "switch" => {
                    self.k += 1;
                    self.expect("(")?;
                    let c = self.expr()?;
                    self.expect(")")?;
                    let body = self.sub_statement()?;
                    return Ok(Statement::Switch(c, Box::new(body)));
                }
                "case" => {
                    self.k += 1;
                    let e = self.cond_expr()?;
                    self.expect(":")?;
                    return Ok(Statement::Case(e, pos));
                }
                "default" => {
                    self.k += 1;
                    self.expect(":")?;
                    return Ok(Statement::Default(pos));
                }
                "break" => {
                    self.k += 1;
                    self.expect(";")?;
                    return Ok(Statement::Break(pos));
                }
                "continue" => {
                    self.k += 1;
                    self.expect(";")?;
                    return Ok(Statement::Continue(pos));
                }
                "return" => {
                    self.k += 1;
                    let e = if self.at(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect(";")?;
                    return Ok(Statement::Return(e, pos));
                }
                "goto" => {
                    self.k += 1;
                    let (name, npos) = self.ident()?;
                    self.expect(";")?;
                    return Ok(Statement::Goto(name.to_string(), npos));
                }
                _ => {}
            }
            if self.peek_at(1).is_some_and(|n| n.is_punct(":")) && !self.is_decl_word(&w) {
                self.k += 2;
                let s = if self.at("}") {
                    Statement::Empty
                } else {
                    self.statement()?
                };
                return Ok(Statement::Label(w.to_string(), pos, Box::new(s)));
            }
            if self.starts_decl() {
                let specs = self.decl_specs()?;
                if self.eat(";") {
                    return Ok(Statement::Decl(Decl {
                        specs,
                        items: Vec::new(),
                        pos,
                    }));
                }
                let d = self.declarator(false)?;
                return Ok(Statement::Decl(self.rest_of_decl(specs, d, pos)?));
            }
        }
        if self.at("{") {
            self.push_scope();
            let b = self.compound_body();
            self.pop_scope();
            return Ok(Statement::Block(b?));
        }
        if self.eat(";") {
            return Ok(Statement::Empty);
        }
        let e = self.expr()?;
        self.expect(";")?;
        Ok(Statement::Expr(e))
    }

    fn sub_statement(&mut self) -> PResult<Statement> {
        self.push_scope();
        let s = self.statement();
        self.pop_scope();
        s
    }

    fn for_rest(&mut self) -> PResult<Statement> {
        let init = if self.eat(";") {
            None
        } else if self.starts_decl() {
            let pos = self.pos();
            let specs = self.decl_specs()?;
            let d = self.declarator(false)?;
            Some(Box::new(Statement::Decl(self.rest_of_decl(specs, d, pos)?)))
        } else {
            let e = self.expr()?;
            self.expect(";")?;
            Some(Box::new(Statement::Expr(e)))
        };
        let cond = if self.at(";") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(";")?;
        let step = if self.at(")") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(")")?;
        let body = self.sub_statement()?;
        Ok(Statement::For(init, cond, step, Box::new(body)))
    }

    // ---- expressions ----

    pub fn expr(&mut self) -> PResult<Expr> {
        let mut e = self.assign_expr()?;
        while self.at(",") {
            let pos = self.pos();
            self.k += 1;
            let r = self.assign_expr()?;
            e = Expr {
                kind: ExprKind::Comma(Box::new(e), Box::new(r)),
                pos,
            };
        }
        Ok(e)
    }

    fn assign_expr(&mut self) -> PResult<Expr> {
        let lhs = self.cond_expr()?;
        let Some(t) = self.peek().filter(|t| t.kind == TokKind::Punct) else {
            return Ok(lhs);
        };
        let op = match t.text.as_str() {
            "=" => None,
            "+=" => Some(BinOp::Add),
            "-=" => Some(BinOp::Sub),
            "*=" => Some(BinOp::Mul),
            "/=" => Some(BinOp::Div),
            "%=" => Some(BinOp::Rem),
            "<<=" => Some(BinOp::Shl),
            ">>=" => Some(BinOp::Shr),
            "&=" => Some(BinOp::BitAnd),
            "^=" => Some(BinOp::BitXor),
            "|=" => Some(BinOp::BitOr),
            _ => return Ok(lhs),
        };
        let pos = t.pos;
        self.k += 1;
        let rhs = self.assign_expr()?;
        Ok(Expr {
            kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
            pos,
        })
    }

    fn cond_expr(&mut self) -> PResult<Expr> {
        let c = self.binary(0)?;
        if !self.at("?") {
            return Ok(c);
        }
        let pos = self.pos();
        self.k += 1;
        let a = self.expr()?;
        self.expect(":")?;
        let b = self.cond_expr()?;
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            pos,
        })
    }

    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.cast_expr()?;
        while let Some(t) = self.peek().filter(|t| t.kind == TokKind::Punct) {
            let Some((op, prec)) = binop_of(&t.text) else {
                break;
            };
            if prec < min_prec {
                break;
            }
            let pos = t.pos;
            self.k += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                pos,
            };
        }
        Ok(lhs)
    }

    /// Whether `(` at the cursor starts a type name.
    fn paren_type_follows(&self) -> bool {
        self.at("(")
            && self
                .peek_at(1)
                .is_some_and(|t| t.kind == TokKind::Ident && self.is_decl_word(&t.text))
    }

    fn cast_expr(&mut self) -> PResult<Expr> {
        self.nested(Self::cast_expr_inner)
    }

    fn cast_expr_inner(&mut self) -> PResult<Expr> {
        if self.paren_type_follows() {
            let pos = self.pos();
            self.k += 1;
            let tn = self.type_name()?;
            self.expect(")")?;
            if self.at("{") {
                let init = self.initializer()?;
                let lit = Expr {
                    kind: ExprKind::CompoundLit(Box::new(tn), Box::new(init)),
                    pos,
                };
                return self.postfix_ops(lit);
            }
            if self.at("(") && !self.paren_type_follows() {
                // `(T)(a, b, …)`: a vector literal when there is more than one element.
                let save = self.k;
                self.k += 1;
                let mut elems = Vec::new();
                if !self.at(")") {
                    loop {
                        elems.push(self.assign_expr()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                if elems.len() > 1
                    || matches!(tn.specs.ty, TypeSpec::Vector(..))
                        && elems.len() == 1
                        && !self.at(".")
                        && !self.at("[")
                        && !self.at("->")
                {
                    let lit = Expr {
                        kind: ExprKind::VecLit(Box::new(tn), elems),
                        pos,
                    };
                    return self.postfix_ops(lit);
                }
                self.k = save;
            }
            let inner = self.cast_expr()?;
            return Ok(Expr {
                kind: ExprKind::Cast(Box::new(tn), Box::new(inner)),
                pos,
            });
        }
        self.unary_expr()
    }

    fn unary_expr(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let Some(t) = self.peek() else {
            return self.err(pos, "expected expression at end of input");
        };
        let op = match (t.kind, t.text.as_str()) {
            (TokKind::Punct, "-") => Some(UnOp::Neg),
            (TokKind::Punct, "+") => Some(UnOp::Plus),
            (TokKind::Punct, "!") => Some(UnOp::Not),
            (TokKind::Punct, "~") => Some(UnOp::BitNot),
            (TokKind::Punct, "*") => Some(UnOp::Deref),
            (TokKind::Punct, "&") => Some(UnOp::AddrOf),
            (TokKind::Punct, "++") => Some(UnOp::PreInc),
            (TokKind::Punct, "--") => Some(UnOp::PreDec),
            _ => None,
        };
        if let Some(op) = op {
            self.k += 1;
            let e = if matches!(op, UnOp::PreInc | UnOp::PreDec) {
                self.unary_expr()?
            } else {
                self.cast_expr()?
            };
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                pos,
            });
        }
        if t.kind == TokKind::Ident
            && matches!(
                t.text.as_str(),
                "sizeof" | "vec_step" | "__alignof__" | "_Alignof" | "__alignof"
            )
        {
            let which = t.text.clone();
            self.k += 1;
            if self.paren_type_follows() {
                self.k += 1;
                let tn = Box::new(self.type_name()?);
                self.expect(")")?;
                let kind = match which.as_str() {
                    "sizeof" => ExprKind::SizeofType(tn),
                    "vec_step" => ExprKind::VecStepType(tn),
                    _ => ExprKind::AlignofType(tn),
                };
                return Ok(Expr { kind, pos });
            }
            let e = Box::new(self.unary_expr()?);
            let kind = match which.as_str() {
                "sizeof" => ExprKind::SizeofExpr(e),
                "vec_step" => ExprKind::VecStepExpr(e),
                _ => return self.err(pos, "alignof requires a type name"),
            };
            return Ok(Expr { kind, pos });
        }
        let prim = self.primary()?;
        self.postfix_ops(prim)
    }

    fn postfix_ops(&mut self, mut e: Expr) -> PResult<Expr> {
        loop {
            let pos = self.pos();
            if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(i)),
                    pos,
                };
            } else if self.eat(".") || self.at("->") {
                let arrow = self.eat("->");
                // `.s01` lexes as `.` then the pp-number-free identifier `s01`; `.0` cannot occur.
                let (name, _) = self.ident()?;
                e = Expr {
                    kind: ExprKind::Member(Box::new(e), name, arrow),
                    pos,
                };
            } else if self.eat("++") {
                e = Expr {
                    kind: ExprKind::Unary(UnOp::PostInc, Box::new(e)),
                    pos,
                };
            } else if self.eat("--") {
                e = Expr {
                    kind: ExprKind::Unary(UnOp::PostDec, Box::new(e)),
                    pos,
                };
            } else if self.at("(") {
                let ExprKind::Ident(name) = &e.kind else {
                    return self.err(pos, "called object is not a function name");
                };
                let name = name.clone();
                self.k += 1;
                let mut args = Vec::new();
                if !self.at(")") {
                    loop {
                        args.push(self.assign_expr()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                e = Expr {
                    kind: ExprKind::Call(name, args),
                    pos: e.pos,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let Some(t) = self.peek().cloned() else {
            return self.err(pos, "expected expression at end of input");
        };
        self.k += 1;
        let kind = match t.kind {
            TokKind::Ident => {
                if self.is_decl_word(&t.text) {
                    return self.err(
                        pos,
                        format!("unexpected type name '{}': expected expression", t.text),
                    );
                }
                ExprKind::Ident(t.text.clone())
            }
            TokKind::Number => {
                if literal::is_float_text(&t.text) {
                    match literal::parse_float(&t.text) {
                        Some((v, sc)) => {
                            let sc = if sc == Scalar::F64 && self.single_precision_constants {
                                Scalar::F32
                            } else {
                                sc
                            };
                            ExprKind::Float(v, sc)
                        }
                        None => {
                            return self.err(pos, format!("invalid floating constant '{}'", t.text))
                        }
                    }
                } else {
                    match literal::parse_int(&t.text) {
                        Some((v, sc)) => ExprKind::Int(v, sc),
                        None => {
                            return self.err(pos, format!("invalid integer constant '{}'", t.text))
                        }
                    }
                }
            }
            TokKind::Char => match literal::parse_char(&t.text) {
                Some(v) => ExprKind::Int(v as i32 as u32 as u64, Scalar::I32),
                None => return self.err(pos, format!("invalid character constant {}", t.text)),
            },
            TokKind::Str => {
                let mut bytes = Vec::new();
                let mut tok = t;
                loop {
                    let body = tok
                        .text
                        .trim_start_matches('"')
                        .strip_suffix('"')
                        .unwrap_or("");
                    match literal::unescape(body) {
                        Some(b) => bytes.extend(b),
                        None => {
                            return self.err(tok.pos, "invalid escape sequence in string literal")
                        }
                    }
                    match self.peek() {
                        Some(n) if n.kind == TokKind::Str => {
                            tok = n.clone();
                            self.k += 1;
                        }
                        _ => break,
                    }
                }
                ExprKind::Str(bytes)
            }
            TokKind::Punct if t.text == "(" && self.at("{") => {
                // `({ … })`, a GNU statement expression (clang takes them in
                // OpenCL C; safe-math headers use them in macros).
                let body = self.compound_body()?;
                self.expect(")")?;
                ExprKind::StmtExpr(body)
            }
            TokKind::Punct if t.text == "(" => {
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            TokKind::Punct => {
                self.k -= 1;
                return self.err(pos, format!("expected expression before '{}'", t.text));
            }
        };
        Ok(Expr { kind, pos })
    }
}

fn binop_of(p: &str) -> Option<(BinOp, u8)> {
    Some(match p {
        "||" => (BinOp::LogOr, 1),
        "&&" => (BinOp::LogAnd, 2),
        "|" => (BinOp::BitOr, 3),
        "^" => (BinOp::BitXor, 4),
        "&" => (BinOp::BitAnd, 5),
        "==" => (BinOp::Eq, 6),
        "!=" => (BinOp::Ne, 6),
        "<" => (BinOp::Lt, 7),
        ">" => (BinOp::Gt, 7),
        "<=" => (BinOp::Le, 7),
        ">=" => (BinOp::Ge, 7),
        "<<" => (BinOp::Shl, 8),
        ">>" => (BinOp::Shr, 8),
        "+" => (BinOp::Add, 9),
        "-" => (BinOp::Sub, 9),
        "*" => (BinOp::Mul, 10),
        "/" => (BinOp::Div, 10),
        "%" => (BinOp::Rem, 10),
        _ => return None,
    })
}

/// The OpenCL spelling of a base type as `clGetKernelArgInfo` reports it
/// (`unsigned int` → `uint`).
fn canonical_type_name(words: &[Text]) -> String {
    if let [word] = words {
        if !matches!(
            word.as_str(),
            "unsigned" | "signed" | "char" | "short" | "long" | "int"
        ) {
            return word.to_string();
        }
    }
    let has = |w: &str| words.iter().any(|x| x == w);
    let unsigned = has("unsigned");
    let base = if has("char") {
        "char"
    } else if has("short") {
        "short"
    } else if has("long") {
        "long"
    } else if has("int") || has("signed") || unsigned {
        "int"
    } else {
        return words.join(" ");
    };
    if unsigned {
        format!("u{base}")
    } else {
        base.to_string()
    }
}

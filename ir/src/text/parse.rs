//! The parser: text → [`Module`].
//!
//! A recursive-descent parser over the token list of [`super::lexer`].
//! Before parsing, one scan over the top level collects the names of every
//! struct, global and function in order, so an item may refer to one defined
//! later (a struct with a pointer to itself, a call of a function below).
//! Struct layouts not written out are computed once every struct is known,
//! dependencies first.
//!
//! Each instruction goes to the arena slot its `%N` names; the numbers of a
//! function must be exactly `0..n`. Every reference to a value, variable,
//! slot, struct, global or function must name one that exists, so a typo is
//! a parse error with its position rather than a module that fails later.
//! Nesting is limited (see [`MAX_DEPTH`]) so no input can exhaust the stack.

use std::collections::HashMap;

use crate::builtin::Builtin;
use crate::module::*;
use crate::types::{AddressSpace, Field, Scalar, StructDef, StructId, Type};

use super::lexer::{tokenize, Tok, Token};
use super::literal::parse_const;
use super::print::{
    default_args, natural_layout, ACCESS_NAMES, ATOMIC_NAMES, BINARY_NAMES, CMP_NAMES,
    MEM_FLAG_NAMES, ORDER_NAMES, ROUNDING_NAMES, SCOPE_NAMES, UNARY_NAMES, WORK_ITEM_NAMES,
};
use super::rename::rename_block;
use super::ParseError;

/// The deepest nesting of types and blocks the parser accepts.
pub const MAX_DEPTH: u32 = 200;

/// Parses a module in the text form.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    let toks = tokenize(src)?;
    let mut p = Parser {
        structs: Names::default(),
        globals: Names::default(),
        funcs: Names::default(),
        toks,
        pos: 0,
        depth: 0,
        f: FnCx::default(),
    };
    p.prescan();
    p.module()
}

type PResult<T> = Result<T, ParseError>;

/// The names of one kind of item, in definition order.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    by_name: HashMap<String, Vec<u32>>,
}

impl Names {
    fn add(&mut self, name: &str) {
        let id = self.list.len() as u32;
        self.list.push(name.to_string());
        self.by_name.entry(name.to_string()).or_default().push(id);
    }
}

/// How a struct's layout is given.
enum LayoutSpec {
    /// Offsets, size and alignment written out.
    Explicit,
    /// Computed by the C rules with this minimum alignment.
    Natural(u32),
}

/// What the parser knows about the function being parsed.
#[derive(Default)]
struct FnCx {
    vars: Vec<Var>,
    slots: Vec<Slot>,
    /// Instruction by number, with the position of its definition.
    defs: HashMap<u32, (InstData, u32, u32)>,
    /// Every value reference, with its position, checked at the end.
    uses: Vec<(u32, u32, u32)>,
    /// Named values (`%gid`): name → provisional key (from [`NAMED_BASE`]).
    names: HashMap<String, u32>,
    /// Names by provisional key − `NAMED_BASE`.
    name_list: Vec<String>,
    /// Provisional keys of named values in definition order.
    named_order: Vec<u32>,
}

/// Keys of named values while a function is parsed; numbered values stay
/// below it, and become `0..n` then the named ones `n..` in order.
const NAMED_BASE: u32 = 1 << 31;

impl FnCx {
    /// The key of a named value, allotted at its first mention.
    fn named(&mut self, name: &str) -> u32 {
        if let Some(&key) = self.names.get(name) {
            return key;
        }
        let key = NAMED_BASE.saturating_add(self.name_list.len() as u32);
        self.names.insert(name.to_string(), key);
        self.name_list.push(name.to_string());
        key
    }

    /// `%N` or `%name` for a key, for messages.
    fn text(&self, key: u32) -> String {
        match key
            .checked_sub(NAMED_BASE)
            .and_then(|i| self.name_list.get(i as usize))
        {
            Some(name) => format!("%{name}"),
            None => format!("%{key}"),
        }
    }
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    structs: Names,
    globals: Names,
    funcs: Names,
    depth: u32,
    f: FnCx,
}

impl Parser {
    // ----- token access -----

    fn token(&self) -> &Token {
        // `tokenize` always ends the list with `Eof`, and `advance` never
        // moves past it.
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek(&self) -> &Tok {
        &self.token().tok
    }

    fn advance(&mut self) -> Token {
        let t = self.token().clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn err_at(t: &Token, message: impl Into<String>) -> ParseError {
        ParseError {
            line: t.line,
            col: t.col,
            message: message.into(),
        }
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        Self::err_at(self.token(), message)
    }

    fn expected(&self, what: &str) -> ParseError {
        self.err(format!("expected {what}, found {}", self.peek().describe()))
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(w) if w == word)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.advance();
        }
        yes
    }

    fn eat_ident(&mut self, word: &str) -> bool {
        let yes = self.is_ident(word);
        if yes {
            self.advance();
        }
        yes
    }

    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{p}`")))
        }
    }

    fn expect_ident(&mut self, word: &str) -> PResult<()> {
        if self.eat_ident(word) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{word}`")))
        }
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.advance();
        }
    }

    /// The end of a line-terminated construct: a newline (consumed), or a
    /// `}` or the end of input (left for the caller).
    fn end_of_line(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::Punct("}") | Tok::Eof => Ok(()),
            _ => Err(self.expected("end of line")),
        }
    }

    /// A keyword from a table of names.
    fn keyword<T: Copy>(&mut self, table: &[(T, &str)], what: &str) -> PResult<T> {
        if let Tok::Ident(w) = self.peek() {
            if let Some((v, _)) = table.iter().find(|(_, n)| n == w) {
                let v = *v;
                self.advance();
                return Ok(v);
            }
        }
        Err(self.expected(what))
    }

    fn opt_keyword<T: Copy>(&mut self, table: &[(T, &str)]) -> Option<T> {
        if let Tok::Ident(w) = self.peek() {
            if let Some((v, _)) = table.iter().find(|(_, n)| n == w) {
                let v = *v;
                self.advance();
                return Some(v);
            }
        }
        None
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ----- literals -----

    fn number<T: std::str::FromStr>(&mut self, what: &str) -> PResult<T> {
        if let Tok::Num(text) = self.peek() {
            if let Ok(v) = text.parse::<T>() {
                self.advance();
                return Ok(v);
            }
            return Err(self.err(format!("`{text}` is not a valid {what}")));
        }
        Err(self.expected(what))
    }

    fn u32(&mut self) -> PResult<u32> {
        self.number("unsigned 32-bit integer")
    }

    /// A name: bare or quoted.
    fn name(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) | Tok::Str(s) => {
                self.advance();
                Ok(s)
            }
            _ => Err(self.expected(what)),
        }
    }

    fn loc(&mut self) -> PResult<Loc> {
        if !self.eat_ident("at") {
            return Ok(Loc::NONE);
        }
        let line = self.u32()?;
        self.expect_punct(":")?;
        let col = self.u32()?;
        Ok(Loc { line, col })
    }

    fn mem_flags(&mut self) -> PResult<MemFlags> {
        if self.eat_ident("none") {
            return Ok(MemFlags(0));
        }
        let mut flags = 0u32;
        loop {
            let bit = match self.peek().clone() {
                Tok::Ident(w) => match MEM_FLAG_NAMES.iter().find(|(_, n)| *n == w) {
                    Some((b, _)) => *b,
                    None => {
                        return Err(
                            self.expected("memory flags (`local`, `global`, `image`, `none`)")
                        )
                    }
                },
                Tok::Num(text) => match text
                    .strip_prefix("0x")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                {
                    Some(b) => b,
                    None => return Err(self.err(format!("`{text}` is not a 0x flag mask"))),
                },
                _ => return Err(self.expected("memory flags (`local`, `global`, `image`, `none`)")),
            };
            self.advance();
            flags |= bit;
            if !self.eat_punct("|") {
                return Ok(MemFlags(flags));
            }
        }
    }

    // ----- names of items -----

    /// Collects struct, global and function names at the top level.
    fn prescan(&mut self) {
        let mut depth = 0u32;
        for w in self.toks.windows(2) {
            match &w[0].tok {
                Tok::Punct("(" | "[" | "{") => depth += 1,
                Tok::Punct(")" | "]" | "}") => depth = depth.saturating_sub(1),
                Tok::Ident(kw) if depth == 0 => match (kw.as_str(), &w[1].tok) {
                    ("struct" | "union", Tok::StructName(n)) => self.structs.add(n),
                    ("global", Tok::AtName(n)) => self.globals.add(n),
                    ("fn" | "kernel", Tok::AtName(n)) => self.funcs.add(n),
                    _ => {}
                },
                _ => {}
            }
        }
    }

    fn resolve(&self, names: &Names, tok: &Tok, what: &str) -> PResult<u32> {
        match tok {
            Tok::StructName(n) | Tok::AtName(n) => match names.by_name.get(n).map(Vec::as_slice) {
                Some([id]) => Ok(*id),
                Some(_) => Err(self.err(format!(
                    "more than one {what} is named `{n}`; refer to it by `#` index"
                ))),
                None => Err(self.err(format!("no {what} named `{n}`"))),
            },
            Tok::StructIndex(i) | Tok::AtIndex(i) if (*i as usize) < names.list.len() => Ok(*i),
            Tok::StructIndex(i) | Tok::AtIndex(i) => {
                Err(self.err(format!("there is no {what} #{i}")))
            }
            _ => Err(self.expected(what)),
        }
    }

    // ----- types -----

    fn ty(&mut self) -> PResult<Type> {
        self.enter()?;
        let t = self.ty_inner();
        self.leave();
        t
    }

    fn ty_inner(&mut self) -> PResult<Type> {
        match self.peek().clone() {
            Tok::Ident(w) => {
                if let Some(s) = Scalar::from_name(&w) {
                    self.advance();
                    return Ok(Type::Scalar(s));
                }
                match w.as_str() {
                    "void" => {
                        self.advance();
                        Ok(Type::Void)
                    }
                    "ptr" => {
                        self.advance();
                        let space = self.address_space()?;
                        Ok(Type::ptr(space, self.ty()?))
                    }
                    _ => Err(self.expected("a type")),
                }
            }
            Tok::Punct("<") => {
                self.advance();
                let n: u8 = self.number("vector length")?;
                self.expect_ident("x")?;
                let s = match self.peek() {
                    Tok::Ident(w) => Scalar::from_name(w),
                    _ => None,
                };
                let Some(s) = s else {
                    return Err(self.expected("a scalar type"));
                };
                self.advance();
                self.expect_punct(">")?;
                Ok(Type::Vector(s, n))
            }
            Tok::Punct("[") => {
                self.advance();
                let n = self.u32()?;
                self.expect_ident("x")?;
                let elem = self.ty()?;
                self.expect_punct("]")?;
                Ok(Type::array(elem, n))
            }
            tok @ (Tok::StructName(_) | Tok::StructIndex(_)) => {
                let id = self.resolve(&self.structs, &tok, "struct")?;
                self.advance();
                Ok(Type::Struct(StructId(id)))
            }
            _ => Err(self.expected("a type")),
        }
    }

    fn address_space(&mut self) -> PResult<AddressSpace> {
        if let Tok::Ident(w) = self.peek() {
            if let Some(s) = AddressSpace::from_name(w) {
                self.advance();
                return Ok(s);
            }
        }
        Err(self.expected("an address space (private, global, constant, local, generic)"))
    }

    // ----- items -----

    fn module(&mut self) -> PResult<Module> {
        let mut m = Module::default();
        let mut layouts = Vec::new();
        // Kernels written without `args [...]` get the default infos, which
        // name struct types: filled in once every struct is known.
        let mut needs_args = Vec::new();
        loop {
            self.skip_newlines();
            match self.peek() {
                Tok::Eof => break,
                Tok::Ident(w) if matches!(w.as_str(), "struct" | "union" | "packed") => {
                    let at = self.token().clone();
                    let (def, spec) = self.struct_def(m.structs.len())?;
                    m.structs.push(def);
                    layouts.push((spec, at));
                }
                Tok::Ident(w) if w == "math" => {
                    self.advance();
                    self.math_flags(&mut m.math)?;
                }
                Tok::Ident(w) if w == "global" => {
                    let g = self.global(m.globals.len())?;
                    m.globals.push(g);
                }
                Tok::Ident(w) if w == "reloc" => {
                    let r = self.reloc()?;
                    m.relocs.push(r);
                }
                Tok::Ident(w) if w == "fn" || w == "kernel" => {
                    let (f, args_given) = self.function(m.functions.len())?;
                    needs_args.push(!args_given);
                    m.functions.push(f);
                }
                _ => {
                    return Err(self.expected(
                        "`struct`, `union`, `global`, `fn` or `kernel` (or a `math` line)",
                    ))
                }
            }
        }
        compute_layouts(&mut m.structs, &layouts)?;
        for (f, needs) in m.functions.iter_mut().zip(needs_args) {
            if let (Some(k), true) = (f.kernel.as_mut(), needs) {
                k.args = default_args(&f.params, &m.structs);
            }
        }
        Ok(m)
    }

    /// The flag names of a `math` line, up to its end.
    fn math_flags(&mut self, math: &mut MathFlags) -> PResult<()> {
        while let Tok::Ident(w) = self.peek().clone() {
            match math.flag_mut(&w) {
                Some(flag) => *flag = true,
                None => return Err(self.err(format!("unknown math flag `{w}`"))),
            }
            self.advance();
        }
        self.end_of_line()
    }

    /// Checks that the item being defined is the `index`-th the prescan saw.
    fn check_item(&self, names: &Names, index: usize, name: &str, at: &Token) -> PResult<()> {
        if names.list.get(index).map(String::as_str) == Some(name) {
            Ok(())
        } else {
            Err(Self::err_at(at, "definition not at the top level"))
        }
    }

    fn struct_def(&mut self, index: usize) -> PResult<(StructDef, LayoutSpec)> {
        let packed = self.eat_ident("packed");
        let is_union = if self.eat_ident("union") {
            true
        } else {
            self.expect_ident("struct")?;
            false
        };
        let at = self.token().clone();
        let Tok::StructName(name) = self.peek().clone() else {
            return Err(self.expected("a struct name (`%name`)"));
        };
        self.check_item(&self.structs, index, &name, &at)?;
        self.advance();
        self.expect_punct("{")?;
        let mut fields = Vec::new();
        let mut offsets = Vec::new();
        self.skip_newlines();
        while !self.is_punct("}") {
            let fname = self.name("a field name")?;
            self.expect_punct(":")?;
            let ty = self.ty()?;
            let offset_at = self.token().clone();
            let offset = if self.eat_ident("offset") {
                Some(self.u32()?)
            } else {
                None
            };
            offsets.push((offset, offset_at));
            fields.push(Field {
                name: fname,
                ty,
                offset: offset.unwrap_or(0),
            });
            self.skip_newlines();
            if !self.eat_punct(",") {
                break;
            }
            self.skip_newlines();
        }
        self.expect_punct("}")?;
        let explicit = offsets.iter().filter(|(o, _)| o.is_some()).count();
        if explicit != 0 && explicit != offsets.len() {
            let (_, t) = offsets
                .iter()
                .find(|(o, _)| o.is_none())
                .unwrap_or(&offsets[0]);
            return Err(Self::err_at(
                t,
                "either every field has an `offset` or none does",
            ));
        }
        let size_at = self.token().clone();
        let size = if self.eat_ident("size") {
            Some(self.u32()?)
        } else {
            None
        };
        let align = if self.eat_ident("align") {
            Some(self.u32()?)
        } else {
            None
        };
        let spec = match (size, align) {
            (Some(_), Some(_)) if explicit == offsets.len() => LayoutSpec::Explicit,
            (Some(_), Some(_)) => {
                let message = "with `size`, every field needs an `offset`";
                return Err(Self::err_at(&size_at, message));
            }
            (Some(_), None) => return Err(self.expected("`align`")),
            (None, _) if explicit > 0 => {
                let message = "fields with offsets need `size N align N` after `}`";
                return Err(Self::err_at(&size_at, message));
            }
            (None, a) => LayoutSpec::Natural(a.unwrap_or(1)),
        };
        self.end_of_line()?;
        let def = StructDef {
            name,
            is_union,
            packed,
            fields,
            size: size.unwrap_or(0),
            align: align.unwrap_or(1),
        };
        Ok((def, spec))
    }

    /// `reloc @global[offset] = @target[addend]`.
    fn reloc(&mut self) -> PResult<Reloc> {
        self.expect_ident("reloc")?;
        let place = |p: &mut Self| -> PResult<(GlobalId, u32)> {
            let tok = p.peek().clone();
            if !matches!(tok, Tok::AtName(_) | Tok::AtIndex(_)) {
                return Err(p.expected("a global name (`@name`)"));
            }
            let g = p.resolve(&p.globals, &tok, "global")?;
            p.advance();
            p.expect_punct("[")?;
            let at = p.u32()?;
            p.expect_punct("]")?;
            Ok((GlobalId(g), at))
        };
        let (global, offset) = place(self)?;
        self.expect_punct("=")?;
        let (target, addend) = place(self)?;
        self.end_of_line()?;
        Ok(Reloc {
            global,
            offset,
            target,
            addend,
        })
    }

    fn global(&mut self, index: usize) -> PResult<Global> {
        self.expect_ident("global")?;
        let at = self.token().clone();
        let Tok::AtName(name) = self.peek().clone() else {
            return Err(self.expected("a global name (`@name`)"));
        };
        self.check_item(&self.globals, index, &name, &at)?;
        self.advance();
        self.expect_punct(":")?;
        let space = self.address_space()?;
        let ty = self.ty()?;
        let init = if self.eat_punct("=") {
            match self.peek().clone() {
                Tok::Bytes(b) => {
                    self.advance();
                    Some(b)
                }
                _ => return Err(self.expected("initial bytes (`x\"…\"`)")),
            }
        } else {
            None
        };
        self.end_of_line()?;
        Ok(Global {
            name,
            space,
            ty,
            init,
        })
    }

    /// A function, and whether it had an `args [...]` attribute.
    fn function(&mut self, index: usize) -> PResult<(Function, bool)> {
        let is_kernel = self.eat_ident("kernel");
        if !is_kernel {
            self.expect_ident("fn")?;
        }
        let at = self.token().clone();
        let Tok::AtName(name) = self.peek().clone() else {
            return Err(self.expected("a function name (`@name`)"));
        };
        self.check_item(&self.funcs, index, &name, &at)?;
        self.advance();
        self.expect_punct("(")?;
        let mut params = Vec::new();
        self.skip_newlines();
        while !self.is_punct(")") {
            let pname = self.name("a parameter name")?;
            self.expect_punct(":")?;
            let ty = self.ty()?;
            let byval = self.eat_ident("byval");
            params.push(Param {
                name: pname,
                ty,
                byval,
            });
            self.skip_newlines();
            if !self.eat_punct(",") {
                break;
            }
            self.skip_newlines();
        }
        self.expect_punct(")")?;
        let ret = if self.eat_punct("->") {
            self.ty()?
        } else {
            Type::Void
        };
        let mut kernel = is_kernel.then(KernelInfo::default);
        let mut args_given = false;
        loop {
            self.skip_newlines();
            if self.is_punct("{") {
                break;
            }
            let Some(k) = kernel.as_mut() else {
                return Err(self.expected("`{`"));
            };
            let attr = match self.peek() {
                Tok::Ident(w) => w.clone(),
                _ => String::new(),
            };
            match attr.as_str() {
                "args" => {
                    self.advance();
                    self.expect_punct("[")?;
                    self.skip_newlines();
                    let mut args = Vec::new();
                    while !self.is_punct("]") {
                        args.push(self.arg_info()?);
                        self.skip_newlines();
                        if !self.eat_punct(",") {
                            break;
                        }
                        self.skip_newlines();
                    }
                    self.expect_punct("]")?;
                    k.args = args;
                    args_given = true;
                }
                "reqd_work_group_size" => {
                    self.advance();
                    k.reqd_work_group_size = Some(self.triple()?);
                }
                "work_group_size_hint" => {
                    self.advance();
                    k.work_group_size_hint = Some(self.triple()?);
                }
                "vec_type_hint" => {
                    self.advance();
                    self.expect_punct("(")?;
                    k.vec_type_hint = Some(self.ty()?);
                    self.expect_punct(")")?;
                }
                "reqd_sub_group_size" => {
                    self.advance();
                    self.expect_punct("(")?;
                    k.reqd_sub_group_size = Some(self.u32()?);
                    self.expect_punct(")")?;
                }
                _ => {
                    return Err(self.expected(
                        "`args`, `reqd_work_group_size`, `work_group_size_hint`, `vec_type_hint`, `reqd_sub_group_size` or `{`",
                    ))
                }
            }
        }
        self.expect_punct("{")?;
        self.f = FnCx::default();
        self.decls()?;
        let mut body = self.block_items()?;
        self.expect_punct("}")?;
        self.end_of_line()?;
        let insts = self.finish_insts(&mut body)?;
        let f = std::mem::take(&mut self.f);
        let func = Function {
            name,
            params,
            ret,
            kernel,
            vars: f.vars,
            slots: f.slots,
            insts,
            body,
        };
        Ok((func, args_given))
    }

    fn triple(&mut self) -> PResult<[u32; 3]> {
        self.expect_punct("(")?;
        let x = self.u32()?;
        self.expect_punct(",")?;
        let y = self.u32()?;
        self.expect_punct(",")?;
        let z = self.u32()?;
        self.expect_punct(")")?;
        Ok([x, y, z])
    }

    fn arg_info(&mut self) -> PResult<ArgInfo> {
        let Tok::Str(type_name) = self.peek().clone() else {
            return Err(self.expected("the argument's type name as a string"));
        };
        self.advance();
        let address = self.address_space()?;
        let access = self.opt_keyword(ACCESS_NAMES).unwrap_or_default();
        let mut qualifiers = TypeQualifiers::default();
        loop {
            let flag = match self.peek() {
                Tok::Ident(w) if w == "const" => &mut qualifiers.is_const,
                Tok::Ident(w) if w == "restrict" => &mut qualifiers.is_restrict,
                Tok::Ident(w) if w == "volatile" => &mut qualifiers.is_volatile,
                Tok::Ident(w) if w == "pipe" => &mut qualifiers.is_pipe,
                _ => break,
            };
            *flag = true;
            self.advance();
        }
        Ok(ArgInfo {
            type_name,
            address,
            access,
            qualifiers,
        })
    }

    /// `var $N [name]: T` and `slot &N [name]: T` lines.
    fn decls(&mut self) -> PResult<()> {
        loop {
            self.skip_newlines();
            let is_var = self.is_ident("var");
            if !is_var && !self.is_ident("slot") {
                return Ok(());
            }
            self.advance();
            let at = self.token().clone();
            let (index, expected) = match (self.peek().clone(), is_var) {
                (Tok::Var(n), true) => (n, self.f.vars.len()),
                (Tok::Slot(n), false) => (n, self.f.slots.len()),
                _ => return Err(self.expected(if is_var { "`$N`" } else { "`&N`" })),
            };
            if index as usize != expected {
                let sigil = if is_var { '$' } else { '&' };
                return Err(Self::err_at(
                    &at,
                    format!("expected {sigil}{expected} here: declare them in order"),
                ));
            }
            self.advance();
            let name = if self.is_punct(":") {
                String::new()
            } else {
                self.name("a name or `:`")?
            };
            self.expect_punct(":")?;
            let ty = self.ty()?;
            self.end_of_line()?;
            if is_var {
                self.f.vars.push(Var { name, ty });
            } else {
                self.f.slots.push(Slot { name, ty });
            }
        }
    }

    /// Orders the function's instructions: numbered values are `0..n`
    /// (checked), named ones follow in definition order; renumbers the
    /// named values in `insts` and `body`.
    fn finish_insts(&mut self, body: &mut Block) -> PResult<Vec<InstData>> {
        let n = self.f.defs.keys().filter(|k| **k < NAMED_BASE).count();
        let mut gaps: Vec<_> = self
            .f
            .defs
            .iter()
            .filter(|(i, _)| (n..NAMED_BASE as usize).contains(&(**i as usize)))
            .collect();
        gaps.sort_by_key(|(i, _)| **i);
        if let Some((i, (_, line, col))) = gaps.first() {
            let message = format!(
                "value %{i} leaves a gap: the {n} numbered values of a function are %0 to %{}",
                n - 1
            );
            return Err(ParseError {
                line: *line,
                col: *col,
                message,
            });
        }
        if let Some((v, line, col)) = self
            .f
            .uses
            .iter()
            .find(|(v, _, _)| !self.f.defs.contains_key(v) && (*v as usize >= n))
        {
            return Err(ParseError {
                line: *line,
                col: *col,
                message: format!("undefined value {}", self.f.text(*v)),
            });
        }
        let mut defs = std::mem::take(&mut self.f.defs);
        let named = std::mem::take(&mut self.f.named_order);
        let final_index: HashMap<u32, u32> = named
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, (n + i) as u32))
            .collect();
        let mut insts = Vec::with_capacity(defs.len());
        for key in (0..n as u32).chain(named) {
            match defs.remove(&key) {
                Some((d, _, _)) => insts.push(d),
                None => return Err(self.err(format!("value {} is not defined", self.f.text(key)))),
            }
        }
        if !final_index.is_empty() {
            let rename = |v: &mut ValueId| {
                if let Some(&i) = final_index.get(&v.0) {
                    v.0 = i;
                }
            };
            for d in &mut insts {
                d.inst.operands_mut().for_each(&rename);
            }
            rename_block(body, &rename);
        }
        Ok(insts)
    }

    // ----- statements -----

    /// Statements up to (not including) the closing `}`.
    fn block_items(&mut self) -> PResult<Block> {
        self.enter()?;
        let mut stmts = Vec::new();
        let result = loop {
            self.skip_newlines();
            match self.peek() {
                Tok::Punct("}") => break Ok(Block(stmts)),
                Tok::Eof => break Err(self.expected("`}`")),
                _ => {}
            }
            if let Err(e) = self.stmt(&mut stmts) {
                break Err(e);
            }
        };
        self.leave();
        result
    }

    /// `{ statements }`
    fn braced(&mut self) -> PResult<Block> {
        self.expect_punct("{")?;
        let b = self.block_items()?;
        self.expect_punct("}")?;
        Ok(b)
    }

    /// Whether the next token names a value (`%N` or `%name`).
    fn at_value(&self) -> bool {
        matches!(self.peek(), Tok::Value(_) | Tok::StructName(_))
    }

    /// The key of the value the next token names, without consuming it.
    fn value_key(&mut self) -> PResult<u32> {
        match self.peek().clone() {
            Tok::Value(n) if n >= NAMED_BASE => {
                Err(self.err(format!("value number %{n} is too large")))
            }
            Tok::Value(n) => Ok(n),
            Tok::StructName(name) => Ok(self.f.named(&name)),
            _ => Err(self.expected("a value (`%N` or `%name`)")),
        }
    }

    fn value(&mut self) -> PResult<ValueId> {
        let key = self.value_key()?;
        let t = self.advance();
        self.f.uses.push((key, t.line, t.col));
        Ok(ValueId(key))
    }

    /// `%a, %b, …` until something else; possibly empty.
    fn value_list(&mut self) -> PResult<Vec<ValueId>> {
        let mut vs = Vec::new();
        if !self.at_value() {
            return Ok(vs);
        }
        loop {
            vs.push(self.value()?);
            if !self.eat_punct(",") {
                return Ok(vs);
            }
        }
    }

    fn stmt(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        let start = self.token().clone();
        let word = match &start.tok {
            Tok::Value(_) | Tok::StructName(_) => {
                let v = self.definition()?;
                out.push(Stmt::Eval(v));
                return Ok(());
            }
            Tok::Ident(w) => w.clone(),
            _ => return Err(self.expected("a statement")),
        };
        self.advance();
        let stmt = match word.as_str() {
            "detached" => {
                self.definition()?;
                return Ok(());
            }
            "eval" => Stmt::Eval(self.value()?),
            "write" => {
                let var = self.var()?;
                self.expect_punct(",")?;
                Stmt::WriteVar(var, self.value()?)
            }
            "store" => {
                let ptr = self.value()?;
                self.expect_punct(",")?;
                let value = self.value()?;
                Stmt::Store {
                    ptr,
                    value,
                    loc: self.loc()?,
                }
            }
            "copy" => {
                let dst = self.value()?;
                self.expect_punct(",")?;
                let src = self.value()?;
                self.expect_punct(",")?;
                let size = self.u32()?;
                Stmt::Copy {
                    dst,
                    src,
                    size,
                    loc: self.loc()?,
                }
            }
            "if" => {
                let cond = self.value()?;
                let then_ = self.braced()?;
                let else_ = if self.eat_ident("else") {
                    self.braced()?
                } else {
                    Block::default()
                };
                Stmt::If { cond, then_, else_ }
            }
            "loop" => {
                let body = self.braced()?;
                let continuing = if self.eat_ident("continuing") {
                    self.braced()?
                } else {
                    Block::default()
                };
                Stmt::Loop { body, continuing }
            }
            "switch" => {
                let selector = self.value()?;
                self.expect_punct("{")?;
                let mut cases = Vec::new();
                loop {
                    self.skip_newlines();
                    if self.eat_punct("}") {
                        break;
                    }
                    cases.push(self.case()?);
                    self.end_of_line()?;
                }
                Stmt::Switch { selector, cases }
            }
            "break" => Stmt::Break,
            "continue" => Stmt::Continue,
            "return" => match self.peek() {
                Tok::Value(_) | Tok::StructName(_) => Stmt::Return(Some(self.value()?)),
                _ => Stmt::Return(None),
            },
            "barrier" => {
                let flags = self.mem_flags()?;
                Stmt::Barrier(flags, self.loc()?)
            }
            "fence" => Stmt::Fence(self.mem_flags()?),
            _ => {
                return Err(Self::err_at(
                    &start,
                    format!("expected a statement, found `{word}`"),
                ))
            }
        };
        self.end_of_line()?;
        out.push(stmt);
        Ok(())
    }

    fn case(&mut self) -> PResult<SwitchCase> {
        let mut case = SwitchCase {
            values: Vec::new(),
            is_default: false,
            body: Block::default(),
        };
        if self.eat_ident("default") {
            case.is_default = true;
        } else {
            self.expect_ident("case")?;
            while !self.is_punct("{") {
                if self.eat_ident("default") {
                    case.is_default = true;
                } else {
                    case.values
                        .push(self.number("case value (a 64-bit integer)")?);
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        case.body = self.braced()?;
        Ok(case)
    }

    fn var(&mut self) -> PResult<VarId> {
        match self.peek() {
            Tok::Var(n) if (*n as usize) < self.f.vars.len() => {
                let n = *n;
                self.advance();
                Ok(VarId(n))
            }
            Tok::Var(n) => Err(self.err(format!("undeclared variable ${n}"))),
            _ => Err(self.expected("a variable (`$N`)")),
        }
    }

    /// `%N: T = inst [at L:C]` — returns N.
    fn definition(&mut self) -> PResult<ValueId> {
        let at = self.token().clone();
        if !self.at_value() {
            return Err(self.expected("a value definition (`%N: type = …`)"));
        }
        let n = self.value_key()?;
        if self.f.defs.contains_key(&n) {
            let v = self.f.text(n);
            let message =
                format!("value {v} is defined twice; use `eval {v}` to evaluate it again");
            return Err(Self::err_at(&at, message));
        }
        if n >= NAMED_BASE {
            self.f.named_order.push(n);
        }
        self.advance();
        if self.is_punct("=") {
            return Err(self.err("expected `: type` before `=`: a definition is `%N: type = …`"));
        }
        self.expect_punct(":")?;
        let ty = self.ty()?;
        self.expect_punct("=")?;
        let inst = self.inst(&ty)?;
        let loc = self.loc()?;
        self.end_of_line()?;
        self.f
            .defs
            .insert(n, (InstData { inst, ty, loc }, at.line, at.col));
        Ok(ValueId(n))
    }

    fn inst(&mut self, ty: &Type) -> PResult<Inst> {
        let start = self.token().clone();
        let Tok::Ident(op) = &start.tok else {
            return Err(self.expected("an instruction"));
        };
        let op = op.clone();
        self.advance();
        if let Some((u, _)) = UNARY_NAMES.iter().find(|(_, n)| *n == op) {
            return Ok(Inst::Unary(*u, self.value()?));
        }
        if let Some((b, _)) = BINARY_NAMES.iter().find(|(_, n)| *n == op) {
            let a = self.value()?;
            self.expect_punct(",")?;
            return Ok(Inst::Binary(*b, a, self.value()?));
        }
        let inst = match op.as_str() {
            "param" => Inst::Param(self.u32()?),
            "const" => self.constant(ty)?,
            "undef" => Inst::Undef,
            "cmp" => {
                let c = self.keyword(CMP_NAMES, "a comparison (eq, ne, lt, le, gt, ge)")?;
                let a = self.value()?;
                self.expect_punct(",")?;
                Inst::Cmp(c, a, self.value()?)
            }
            "select" => {
                let c = self.value()?;
                self.expect_punct(",")?;
                let a = self.value()?;
                self.expect_punct(",")?;
                Inst::Select(c, a, self.value()?)
            }
            "convert" => {
                let saturate = self.eat_ident("sat");
                let rounding = match self.peek() {
                    Tok::Ident(w) if w != "default" => {
                        self.opt_keyword(ROUNDING_NAMES).unwrap_or_default()
                    }
                    _ => Rounding::Default,
                };
                Inst::Convert {
                    value: self.value()?,
                    saturate,
                    rounding,
                }
            }
            "bitcast" => Inst::Bitcast(self.value()?),
            "splat" => Inst::Splat(self.value()?),
            "construct" => Inst::Construct(self.value_list()?),
            "extract" => {
                let v = self.value()?;
                self.expect_punct(",")?;
                Inst::Extract(v, self.number("component index (0-255)")?)
            }
            "insert" => {
                let v = self.value()?;
                self.expect_punct(",")?;
                let i = self.number("component index (0-255)")?;
                self.expect_punct(",")?;
                Inst::Insert(v, i, self.value()?)
            }
            "shuffle" => {
                let a = self.value()?;
                self.expect_punct(",")?;
                let b = self.value()?;
                self.expect_punct(",")?;
                self.expect_punct("[")?;
                let mut idx = Vec::new();
                while !self.is_punct("]") {
                    idx.push(self.number("component index (0-255)")?);
                    if !self.eat_punct(",") {
                        break;
                    }
                }
                self.expect_punct("]")?;
                Inst::Shuffle(a, b, idx)
            }
            "read" => Inst::ReadVar(self.var()?),
            "addr" => match self.peek().clone() {
                Tok::Slot(n) if (n as usize) < self.f.slots.len() => {
                    self.advance();
                    Inst::SlotAddr(SlotId(n))
                }
                Tok::Slot(n) => return Err(self.err(format!("undeclared slot &{n}"))),
                tok @ (Tok::AtName(_) | Tok::AtIndex(_)) => {
                    let g = self.resolve(&self.globals, &tok, "global")?;
                    self.advance();
                    Inst::GlobalAddr(GlobalId(g))
                }
                _ => return Err(self.expected("a slot (`&N`) or a global (`@name`)")),
            },
            "index" | "elem" => {
                let p = self.value()?;
                self.expect_punct(",")?;
                let i = self.value()?;
                if op == "index" {
                    Inst::Index(p, i)
                } else {
                    Inst::Elem(p, i)
                }
            }
            "field" => {
                let p = self.value()?;
                self.expect_punct(",")?;
                Inst::Field(p, self.u32()?)
            }
            "ptrcast" => Inst::PtrCast(self.value()?),
            "ptrtoint" => Inst::PtrToInt(self.value()?),
            "inttoptr" => Inst::IntToPtr(self.value()?),
            "load" => Inst::Load(self.value()?),
            "atomic" => {
                let op = self.keyword(ATOMIC_NAMES, "an atomic operation")?;
                let ptr = self.value()?;
                let mut args = Vec::new();
                while self.eat_punct(",") {
                    args.push(self.value()?);
                }
                let order = self.opt_keyword(ORDER_NAMES).unwrap_or_default();
                let scope = self.opt_keyword(SCOPE_NAMES).unwrap_or_default();
                Inst::Atomic {
                    op,
                    ptr,
                    args,
                    order,
                    scope,
                }
            }
            "work_item" => {
                let f = self.keyword(WORK_ITEM_NAMES, "a work-item function")?;
                let dim = match self.peek() {
                    Tok::Value(_) | Tok::StructName(_) => Some(self.value()?),
                    _ => None,
                };
                Inst::WorkItem(f, dim)
            }
            "call" => {
                let tok = self.peek().clone();
                let f = self.resolve(&self.funcs, &tok, "function")?;
                self.advance();
                Inst::Call(FuncId(f), self.call_args()?)
            }
            "builtin" => {
                let at = self.token().clone();
                let name = self.name("a builtin name")?;
                let Some(b) = Builtin::from_name(&name) else {
                    return Err(Self::err_at(&at, format!("unknown builtin `{name}`")));
                };
                Inst::Builtin(b, self.call_args()?)
            }
            _ => return Err(Self::err_at(&start, format!("unknown instruction `{op}`"))),
        };
        Ok(inst)
    }

    fn call_args(&mut self) -> PResult<Vec<ValueId>> {
        self.expect_punct("(")?;
        let args = self.value_list()?;
        self.expect_punct(")")?;
        Ok(args)
    }

    fn constant(&mut self, ty: &Type) -> PResult<Inst> {
        let text = match self.peek() {
            Tok::Num(t) | Tok::Ident(t) => t.clone(),
            _ => return Err(self.expected("a constant")),
        };
        let bits = match ty {
            Type::Scalar(s) => parse_const(*s, &text),
            _ => match text.strip_prefix("0x").map(|h| u64::from_str_radix(h, 16)) {
                Some(Ok(b)) => Ok(b),
                _ => Err(format!(
                    "constants are scalars (use splat or construct for vectors); \
                     other types take only 0x bits, not `{text}`"
                )),
            },
        };
        let bits = bits.map_err(|m| self.err(m))?;
        self.advance();
        Ok(Inst::Const(bits))
    }
}

/// The struct ids a type holds by value (not behind a pointer).
fn by_value_struct(ty: &Type) -> Option<StructId> {
    match ty {
        Type::Struct(id) => Some(*id),
        Type::Array(e, _) => by_value_struct(e),
        _ => None,
    }
}

/// Lays out every struct whose layout was not written out, each after the
/// structs it contains by value (an explicit stack: no recursion on input).
fn compute_layouts(structs: &mut [StructDef], specs: &[(LayoutSpec, Token)]) -> PResult<()> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Todo,
        Visiting,
        Done,
    }
    let mut state: Vec<State> = specs
        .iter()
        .map(|(s, _)| {
            if matches!(s, LayoutSpec::Explicit) {
                State::Done
            } else {
                State::Todo
            }
        })
        .collect();
    for root in 0..structs.len() {
        let mut stack = vec![root];
        while let Some(&i) = stack.last() {
            if state[i] == State::Done {
                stack.pop();
                continue;
            }
            state[i] = State::Visiting;
            let pending = structs[i]
                .fields
                .iter()
                .filter_map(|f| by_value_struct(&f.ty))
                .map(|id| id.0 as usize)
                .find(|&d| d < state.len() && state[d] != State::Done);
            if let Some(d) = pending {
                if state[d] == State::Visiting {
                    let at = &specs[i].1;
                    return Err(Parser::err_at(
                        at,
                        format!("struct `{}` contains itself", structs[i].name),
                    ));
                }
                stack.push(d);
                continue;
            }
            if let LayoutSpec::Natural(min_align) = specs[i].0 {
                let s = &structs[i];
                let fields = s
                    .fields
                    .iter()
                    .map(|f| (f.name.clone(), f.ty.clone()))
                    .collect();
                match natural_layout(s, min_align, fields, structs) {
                    Some(def) => structs[i] = def,
                    None => {
                        let message = format!("struct `{}` is too large", structs[i].name);
                        return Err(Parser::err_at(&specs[i].1, message));
                    }
                }
            }
            state[i] = State::Done;
            stack.pop();
        }
    }
    Ok(())
}

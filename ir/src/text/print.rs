//! The printer: [`Module`] → canonical text.
//!
//! The output is exactly what the parser reads back into an equal module
//! (arena indices included), and printing the parse of canonical text gives
//! the same text. Each instruction is printed where its `Eval` stands, under
//! its arena number; an instruction evaluated twice prints `eval %N` the
//! second time, one never evaluated prints as a `detached` line at the end
//! of its function, so even modules the verifier rejects print faithfully.

use std::fmt::{self, Write};

use crate::module::*;
use crate::types::{AddressSpace, Scalar, StructDef, Type};

use super::literal::{format_const, name, quoted};

/// Prints a module in the text form.
pub fn print_module(m: &Module) -> String {
    let mut p = Printer {
        m,
        out: String::new(),
    };
    p.module();
    p.out
}

/// Prints a type; structs print by name when `structs` names them uniquely.
pub fn print_type(ty: &Type, structs: &[StructDef]) -> String {
    match ty {
        Type::Void => "void".to_string(),
        Type::Scalar(s) => s.name().to_string(),
        Type::Vector(s, n) => format!("<{n} x {s}>"),
        Type::Pointer(space, p) => format!("ptr {space} {}", print_type(p, structs)),
        Type::Array(e, n) => format!("[{n} x {}]", print_type(e, structs)),
        Type::Struct(id) => match structs.get(id.0 as usize) {
            Some(s) if structs.iter().filter(|t| t.name == s.name).count() == 1 => {
                format!("%{}", name(&s.name))
            }
            _ => format!("%#{}", id.0),
        },
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_module(self))
    }
}

struct Printer<'m> {
    m: &'m Module,
    out: String,
}

impl Printer<'_> {
    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn global_ref(&self, id: GlobalId) -> String {
        let globals = &self.m.globals;
        match globals.get(id.index()) {
            Some(g) if globals.iter().filter(|h| h.name == g.name).count() == 1 => {
                format!("@{}", name(&g.name))
            }
            _ => format!("@#{}", id.0),
        }
    }

    fn func_ref(&self, id: FuncId) -> String {
        let funcs = &self.m.functions;
        match funcs.get(id.index()) {
            Some(f) if funcs.iter().filter(|g| g.name == f.name).count() == 1 => {
                format!("@{}", name(&f.name))
            }
            _ => format!("@#{}", id.0),
        }
    }

    fn ty(&self, t: &Type) -> String {
        print_type(t, &self.m.structs)
    }

    fn module(&mut self) {
        let m = self.m;
        let mut first = true;
        let mut gap = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push('\n');
            }
        };
        let math = m.math.set_names();
        if !math.is_empty() {
            gap(&mut self.out);
            self.line(0, &format!("math {}", math.join(" ")));
        }
        if !m.structs.is_empty() {
            gap(&mut self.out);
            for s in &m.structs {
                let text = self.struct_def(s);
                self.line(0, &text);
            }
        }
        if !m.globals.is_empty() {
            gap(&mut self.out);
            for g in &m.globals {
                let mut text = format!("global @{}: {} {}", name(&g.name), g.space, self.ty(&g.ty));
                if let Some(bytes) = &g.init {
                    text.push_str(" = x\"");
                    for b in bytes {
                        let _ = write!(text, "{b:02x}");
                    }
                    text.push('"');
                }
                self.line(0, &text);
            }
            for r in &m.relocs {
                let text = format!(
                    "reloc {}[{}] = {}[{}]",
                    self.global_ref(r.global),
                    r.offset,
                    self.global_ref(r.target),
                    r.addend
                );
                self.line(0, &text);
            }
        }
        for f in &m.functions {
            gap(&mut self.out);
            self.function(f);
        }
    }

    fn struct_def(&self, s: &StructDef) -> String {
        let fields: Vec<(String, Type)> = s
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone()))
            .collect();
        let natural = natural_layout(s, 1, fields.clone(), &self.m.structs);
        let aligned = natural_layout(s, s.align, fields, &self.m.structs);
        let natural = natural.as_ref() == Some(s);
        let explicit = !natural && aligned.as_ref() != Some(s);
        let mut text = String::new();
        if s.packed {
            text.push_str("packed ");
        }
        text.push_str(if s.is_union { "union " } else { "struct " });
        let _ = write!(text, "%{} {{", name(&s.name));
        for (i, f) in s.fields.iter().enumerate() {
            text.push_str(if i == 0 { " " } else { ", " });
            let _ = write!(text, "{}: {}", name(&f.name), self.ty(&f.ty));
            if explicit {
                let _ = write!(text, " offset {}", f.offset);
            }
        }
        text.push_str(if s.fields.is_empty() { "}" } else { " }" });
        if explicit {
            let _ = write!(text, " size {} align {}", s.size, s.align);
        } else if !natural {
            let _ = write!(text, " align {}", s.align);
        }
        text
    }

    fn function(&mut self, f: &Function) {
        let mut head = String::from(if f.kernel.is_some() {
            "kernel @"
        } else {
            "fn @"
        });
        head.push_str(&name(&f.name));
        head.push('(');
        for (i, p) in f.params.iter().enumerate() {
            if i > 0 {
                head.push_str(", ");
            }
            let _ = write!(head, "{}: {}", name(&p.name), self.ty(&p.ty));
            if p.byval {
                head.push_str(" byval");
            }
        }
        head.push(')');
        if !f.ret.is_void() {
            let _ = write!(head, " -> {}", self.ty(&f.ret));
        }
        let mut lines = vec![head];
        if let Some(k) = &f.kernel {
            if k.args != default_args(&f.params, &self.m.structs) {
                let args: Vec<String> = k.args.iter().map(arg_info).collect();
                lines.push(format!("  args [{}]", args.join(", ")));
            }
            if let Some([x, y, z]) = k.reqd_work_group_size {
                lines.push(format!("  reqd_work_group_size({x}, {y}, {z})"));
            }
            if let Some([x, y, z]) = k.work_group_size_hint {
                lines.push(format!("  work_group_size_hint({x}, {y}, {z})"));
            }
            if let Some(t) = &k.vec_type_hint {
                lines.push(format!("  vec_type_hint({})", self.ty(t)));
            }
            if let Some(n) = k.reqd_sub_group_size {
                lines.push(format!("  reqd_sub_group_size({n})"));
            }
        }
        if let Some(last) = lines.last_mut() {
            last.push_str(" {");
        }
        for l in lines {
            self.line(0, &l);
        }
        for (i, v) in f.vars.iter().enumerate() {
            let text = format!("var ${i}{}: {}", opt_name(&v.name), self.ty(&v.ty));
            self.line(1, &text);
        }
        for (i, s) in f.slots.iter().enumerate() {
            let text = format!("slot &{i}{}: {}", opt_name(&s.name), self.ty(&s.ty));
            self.line(1, &text);
        }
        let mut printed = vec![false; f.insts.len()];
        self.block(f, &f.body, 1, &mut printed);
        for (i, done) in printed.iter().enumerate() {
            if !done {
                let text = format!("detached {}", self.inst_line(f, ValueId(i as u32)));
                self.line(1, &text);
            }
        }
        self.line(0, "}");
    }

    /// `%N: T = op … [at L:C]`
    fn inst_line(&self, f: &Function, v: ValueId) -> String {
        let d = &f.insts[v.index()];
        let mut text = format!(
            "%{}: {} = {}",
            v.0,
            self.ty(&d.ty),
            self.inst(&d.inst, &d.ty)
        );
        text.push_str(&loc(d.loc));
        text
    }

    fn inst(&self, inst: &Inst, ty: &Type) -> String {
        let vals = |vs: &[ValueId]| {
            vs.iter()
                .map(|v| format!("%{}", v.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match inst {
            Inst::Param(i) => format!("param {i}"),
            Inst::Const(bits) => {
                let scalar = match ty {
                    Type::Scalar(s) => Some(*s),
                    _ => None,
                };
                format!("const {}", format_const(scalar, *bits))
            }
            Inst::Undef => "undef".to_string(),
            Inst::Unary(op, a) => format!("{} %{}", unary_name(*op), a.0),
            Inst::Binary(op, a, b) => format!("{} %{}, %{}", binary_name(*op), a.0, b.0),
            Inst::Cmp(op, a, b) => format!("cmp {} %{}, %{}", cmp_name(*op), a.0, b.0),
            Inst::Select(c, a, b) => format!("select %{}, %{}, %{}", c.0, a.0, b.0),
            Inst::Convert {
                value,
                saturate,
                rounding,
            } => {
                let mut s = String::from("convert");
                if *saturate {
                    s.push_str(" sat");
                }
                if *rounding != Rounding::Default {
                    s.push(' ');
                    s.push_str(rounding_name(*rounding));
                }
                let _ = write!(s, " %{}", value.0);
                s
            }
            Inst::Bitcast(a) => format!("bitcast %{}", a.0),
            Inst::Splat(a) => format!("splat %{}", a.0),
            Inst::Construct(parts) if parts.is_empty() => "construct".to_string(),
            Inst::Construct(parts) => format!("construct {}", vals(parts)),
            Inst::Extract(a, i) => format!("extract %{}, {i}", a.0),
            Inst::Insert(a, i, b) => format!("insert %{}, {i}, %{}", a.0, b.0),
            Inst::Shuffle(a, b, idx) => {
                let idx: Vec<String> = idx.iter().map(u8::to_string).collect();
                format!("shuffle %{}, %{}, [{}]", a.0, b.0, idx.join(", "))
            }
            Inst::ReadVar(v) => format!("read ${}", v.0),
            Inst::SlotAddr(s) => format!("addr &{}", s.0),
            Inst::GlobalAddr(g) => format!("addr {}", self.global_ref(*g)),
            Inst::Index(p, i) => format!("index %{}, %{}", p.0, i.0),
            Inst::Field(p, i) => format!("field %{}, {i}", p.0),
            Inst::Elem(p, i) => format!("elem %{}, %{}", p.0, i.0),
            Inst::PtrCast(p) => format!("ptrcast %{}", p.0),
            Inst::PtrToInt(p) => format!("ptrtoint %{}", p.0),
            Inst::IntToPtr(v) => format!("inttoptr %{}", v.0),
            Inst::Load(p) => format!("load %{}", p.0),
            Inst::Atomic {
                op,
                ptr,
                args,
                order,
                scope,
            } => {
                let mut s = format!("atomic {} %{}", atomic_name(*op), ptr.0);
                for a in args {
                    let _ = write!(s, ", %{}", a.0);
                }
                if *order != MemoryOrder::default() {
                    s.push(' ');
                    s.push_str(order_name(*order));
                }
                if *scope != MemoryScope::default() {
                    s.push(' ');
                    s.push_str(scope_name(*scope));
                }
                s
            }
            Inst::WorkItem(wi, dim) => match dim {
                Some(d) => format!("work_item {} %{}", work_item_name(*wi), d.0),
                None => format!("work_item {}", work_item_name(*wi)),
            },
            Inst::Call(func, args) => format!("call {}({})", self.func_ref(*func), vals(args)),
            Inst::Builtin(b, args) => format!("builtin {}({})", name(b.name()), vals(args)),
        }
    }

    fn block(&mut self, f: &Function, b: &Block, indent: usize, printed: &mut [bool]) {
        for s in &b.0 {
            self.stmt(f, s, indent, printed);
        }
    }

    fn stmt(&mut self, f: &Function, s: &Stmt, indent: usize, printed: &mut [bool]) {
        match s {
            Stmt::Eval(v) => match printed.get_mut(v.index()) {
                Some(done) if !*done => {
                    *done = true;
                    let text = self.inst_line(f, *v);
                    self.line(indent, &text);
                }
                _ => self.line(indent, &format!("eval %{}", v.0)),
            },
            Stmt::WriteVar(var, v) => self.line(indent, &format!("write ${}, %{}", var.0, v.0)),
            Stmt::Store { ptr, value, loc: l } => {
                self.line(
                    indent,
                    &format!("store %{}, %{}{}", ptr.0, value.0, loc(*l)),
                );
            }
            Stmt::Copy {
                dst,
                src,
                size,
                loc: l,
            } => {
                self.line(
                    indent,
                    &format!("copy %{}, %{}, {size}{}", dst.0, src.0, loc(*l)),
                );
            }
            Stmt::If { cond, then_, else_ } => {
                self.line(indent, &format!("if %{} {{", cond.0));
                self.block(f, then_, indent + 1, printed);
                if else_.0.is_empty() {
                    self.line(indent, "}");
                } else {
                    self.line(indent, "} else {");
                    self.block(f, else_, indent + 1, printed);
                    self.line(indent, "}");
                }
            }
            Stmt::Loop { body, continuing } => {
                self.line(indent, "loop {");
                self.block(f, body, indent + 1, printed);
                if continuing.0.is_empty() {
                    self.line(indent, "}");
                } else {
                    self.line(indent, "} continuing {");
                    self.block(f, continuing, indent + 1, printed);
                    self.line(indent, "}");
                }
            }
            Stmt::Switch { selector, cases } => {
                self.line(indent, &format!("switch %{} {{", selector.0));
                for c in cases {
                    let mut labels: Vec<String> = c.values.iter().map(i64::to_string).collect();
                    let head = if c.values.is_empty() && c.is_default {
                        "default {".to_string()
                    } else {
                        if c.is_default {
                            labels.push("default".to_string());
                        }
                        if labels.is_empty() {
                            "case {".to_string()
                        } else {
                            format!("case {} {{", labels.join(", "))
                        }
                    };
                    self.line(indent + 1, &head);
                    self.block(f, &c.body, indent + 2, printed);
                    self.line(indent + 1, "}");
                }
                self.line(indent, "}");
            }
            Stmt::Break => self.line(indent, "break"),
            Stmt::Continue => self.line(indent, "continue"),
            Stmt::Return(None) => self.line(indent, "return"),
            Stmt::Return(Some(v)) => self.line(indent, &format!("return %{}", v.0)),
            Stmt::Barrier(flags, l) => {
                self.line(indent, &format!("barrier {}{}", mem_flags(*flags), loc(*l)))
            }
            Stmt::Fence(flags) => self.line(indent, &format!("fence {}", mem_flags(*flags))),
        }
    }
}

/// The argument infos a kernel gets when its text has no `args [...]`:
/// the OpenCL C spelling of each parameter's type (`float*`, `uint4`,
/// `struct S`), its pointee's address space, no access or type qualifiers.
pub fn default_args(params: &[Param], structs: &[StructDef]) -> Vec<ArgInfo> {
    params
        .iter()
        .map(|p| {
            let (type_name, address) = match &p.ty {
                Type::Pointer(_, pointee) if p.byval => {
                    (c_type_name(pointee, structs), AddressSpace::Private)
                }
                Type::Pointer(space, pointee) => {
                    (format!("{}*", c_type_name(pointee, structs)), *space)
                }
                t => (c_type_name(t, structs), AddressSpace::Private),
            };
            ArgInfo {
                type_name,
                address,
                access: AccessQualifier::None,
                qualifiers: TypeQualifiers::default(),
            }
        })
        .collect()
}

/// The OpenCL C name of a type, as far as it has one.
fn c_type_name(ty: &Type, structs: &[StructDef]) -> String {
    let scalar = |s: Scalar| s.c_name();
    match ty {
        Type::Void => "void".to_string(),
        Type::Scalar(s) => scalar(*s).to_string(),
        Type::Vector(s, n) => format!("{}{n}", scalar(*s)),
        Type::Pointer(_, p) => format!("{}*", c_type_name(p, structs)),
        Type::Array(e, n) => format!("{}[{n}]", c_type_name(e, structs)),
        Type::Struct(id) => match structs.get(id.0 as usize) {
            Some(s) if s.is_union => format!("union {}", s.name),
            Some(s) => format!("struct {}", s.name),
            None => "struct".to_string(),
        },
    }
}

/// Size in bytes like [`crate::types::size_of`], `None` where it would overflow.
pub(crate) fn checked_size(ty: &Type, structs: &[StructDef]) -> Option<u64> {
    match ty {
        Type::Array(elem, n) => checked_size(elem, structs)?.checked_mul(u64::from(*n)),
        _ => Some(u64::from(crate::types::size_of(ty, structs))),
    }
}

/// [`StructDef::layout`] of `s`'s fields, unless the layout would overflow
/// 32-bit sizes (a module built by hand may hold any numbers).
pub(crate) fn natural_layout(
    s: &StructDef,
    min_align: u32,
    fields: Vec<(String, Type)>,
    structs: &[StructDef],
) -> Option<StructDef> {
    let mut total = 2 * u64::from(min_align);
    for (_, ty) in &fields {
        total += checked_size(ty, structs)? + u64::from(crate::types::align_of(ty, structs));
        if total > u64::from(u32::MAX) {
            return None;
        }
    }
    Some(StructDef::layout(
        &s.name, s.is_union, s.packed, min_align, fields, structs,
    ))
}

fn opt_name(n: &str) -> String {
    if n.is_empty() {
        String::new()
    } else {
        format!(" {}", name(n))
    }
}

fn loc(l: Loc) -> String {
    if l == Loc::NONE {
        String::new()
    } else {
        format!(" at {}:{}", l.line, l.col)
    }
}

fn arg_info(a: &ArgInfo) -> String {
    let mut s = format!("{} {}", quoted(&a.type_name), a.address);
    if a.access != AccessQualifier::None {
        s.push(' ');
        s.push_str(access_name(a.access));
    }
    let q = a.qualifiers;
    for (set, word) in [
        (q.is_const, "const"),
        (q.is_restrict, "restrict"),
        (q.is_volatile, "volatile"),
        (q.is_pipe, "pipe"),
    ] {
        if set {
            s.push(' ');
            s.push_str(word);
        }
    }
    s
}

/// `local`, `global|local`, `image`, `none`, with unknown bits in hex.
pub(crate) fn mem_flags(flags: MemFlags) -> String {
    let mut parts = Vec::new();
    let mut rest = flags.0;
    for (bit, word) in MEM_FLAG_NAMES {
        if rest & bit != 0 {
            parts.push(word.to_string());
            rest &= !bit;
        }
    }
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join("|")
    }
}

pub(crate) const MEM_FLAG_NAMES: [(u32, &str); 3] = [(1, "local"), (2, "global"), (4, "image")];

macro_rules! names {
    ($fn_name:ident, $table:ident, $ty:ty, [$($variant:expr => $text:literal),* $(,)?]) => {
        pub(crate) const $table: &[($ty, &str)] = &[$(($variant, $text)),*];

        pub(crate) fn $fn_name(v: $ty) -> &'static str {
            $table.iter().find(|(x, _)| *x == v).map_or("?", |(_, n)| n)
        }
    };
}

names!(unary_name, UNARY_NAMES, UnaryOp, [UnaryOp::Neg => "neg", UnaryOp::Not => "not"]);
names!(binary_name, BINARY_NAMES, BinaryOp, [
    BinaryOp::Add => "add", BinaryOp::Sub => "sub", BinaryOp::Mul => "mul", BinaryOp::Div => "div",
    BinaryOp::Rem => "rem", BinaryOp::And => "and", BinaryOp::Or => "or", BinaryOp::Xor => "xor",
    BinaryOp::Shl => "shl", BinaryOp::Shr => "shr",
]);
names!(cmp_name, CMP_NAMES, CmpOp, [
    CmpOp::Eq => "eq", CmpOp::Ne => "ne", CmpOp::Lt => "lt", CmpOp::Le => "le", CmpOp::Gt => "gt", CmpOp::Ge => "ge",
]);
names!(rounding_name, ROUNDING_NAMES, Rounding, [
    Rounding::Default => "default", Rounding::Rte => "rte", Rounding::Rtz => "rtz", Rounding::Rtp => "rtp",
    Rounding::Rtn => "rtn",
]);
names!(atomic_name, ATOMIC_NAMES, AtomicOp, [
    AtomicOp::Load => "load", AtomicOp::Store => "store", AtomicOp::Add => "add", AtomicOp::Sub => "sub",
    AtomicOp::Xchg => "xchg", AtomicOp::Inc => "inc", AtomicOp::Dec => "dec", AtomicOp::CmpXchg => "cmpxchg",
    AtomicOp::Min => "min", AtomicOp::Max => "max", AtomicOp::And => "and", AtomicOp::Or => "or",
    AtomicOp::Xor => "xor",
]);
names!(order_name, ORDER_NAMES, MemoryOrder, [
    MemoryOrder::Relaxed => "relaxed", MemoryOrder::Acquire => "acquire", MemoryOrder::Release => "release",
    MemoryOrder::AcqRel => "acq_rel", MemoryOrder::SeqCst => "seq_cst",
]);
names!(scope_name, SCOPE_NAMES, MemoryScope, [
    MemoryScope::WorkItem => "work_item", MemoryScope::SubGroup => "sub_group",
    MemoryScope::WorkGroup => "work_group", MemoryScope::Device => "device",
    MemoryScope::AllDevices => "all_devices",
]);
names!(work_item_name, WORK_ITEM_NAMES, WorkItemFn, [
    WorkItemFn::WorkDim => "work_dim", WorkItemFn::GlobalSize => "global_size",
    WorkItemFn::GlobalId => "global_id", WorkItemFn::LocalSize => "local_size",
    WorkItemFn::EnqueuedLocalSize => "enqueued_local_size", WorkItemFn::LocalId => "local_id",
    WorkItemFn::NumGroups => "num_groups", WorkItemFn::GroupId => "group_id",
    WorkItemFn::GlobalOffset => "global_offset", WorkItemFn::GlobalLinearId => "global_linear_id",
    WorkItemFn::LocalLinearId => "local_linear_id",
]);
names!(access_name, ACCESS_NAMES, AccessQualifier, [
    AccessQualifier::None => "none", AccessQualifier::ReadOnly => "read_only",
    AccessQualifier::WriteOnly => "write_only", AccessQualifier::ReadWrite => "read_write",
]);

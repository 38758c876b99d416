//! The IR verifier: checks the invariants every pass may rely on.
//!
//! Run after the front end and after every pass in tests and debug builds
//! ([`verify_if_debug`]). It never panics, whatever the module holds, and
//! reports every error it finds, each naming its function and the value
//! (`%N`) or statement concerned.
//!
//! Rules checked:
//! - **Types.** Every type is well formed: vectors of 2, 3, 4, 8 or 16
//!   elements, struct ids in range, no `void` where memory is needed, no
//!   struct containing itself by value, sizes that fit 32 bits. Values
//!   (instruction results, variables, parameters, returns) are scalars,
//!   vectors or pointers; an instruction's result is `void` only for calls
//!   of void functions, builtins and atomic stores.
//! - **Instructions**, as documented on [`Inst`]: operand and result types of
//!   each kind (`f16` has the arithmetic of the other floats, as `cl_khr_fp16`
//!   gives OpenCL C; the JIT computes it widened, see `transform::half`), indices in
//!   range, indices of `index`/`elem` of any integer type (the front end
//!   passes `size_t` ids directly), atomics on 32/64-bit integers (and
//!   `f32`/`f64` for load, store, xchg and cmpxchg) behind `global`, `local` or `generic` pointers, work-item
//!   dimensions of type `u32`, call arity and types.
//! - **Statements.** Conditions are `bool`, switch selectors integers with
//!   distinct labels and at most one default, stores go through pointers
//!   to the stored type and never into `constant` memory, returns match the
//!   function's result type.
//! - **Evaluation and dominance.** Each instruction is evaluated by exactly
//!   one `Eval`; a value is used only after its `Eval`, in the same block or
//!   a nested one — values defined in an `if` arm, a loop or a switch case
//!   do not escape it (use a variable). In a loop's `continuing` block, the
//!   values of the body are visible only if defined at the body's top level
//!   before the first statement that may `continue`.
//! - **Structure.** `break` inside a loop or switch, `continue` inside a loop
//!   body (not its `continuing` block). Barriers may stand anywhere,
//!   `continuing` blocks included (`for (…; barrier(…), i++)`, which the
//!   JIT's region graph cuts like any other): whether all work-items of a
//!   group reach a barrier depends on uniformity, which the analyses and
//!   the checked mode handle.
//! - **Functions.** Kernels return `void`, have one [`ArgInfo`] per
//!   parameter whose address space matches a pointer parameter's, and take
//!   pointers to `global`, `constant` or `local` memory only; function names
//!   are unique (kernels are looked up by name); the call graph has no
//!   cycle. Globals live in `constant`, `local` or `global` memory, `local`
//!   ones have no initialiser and initialisers have the type's size.

use std::collections::HashSet;
use std::fmt;

use crate::module::*;
use crate::text::print_type;
use crate::types::{AddressSpace, Scalar, StructId, Type, VECTOR_LENGTHS};

/// One verifier finding.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct VerifyError {
    /// The function concerned; `None` for module-level items.
    pub function: Option<String>,
    /// What the error is about: `%5`, `store %3, %4`, `struct %S`, `param 1`…
    pub subject: String,
    /// The source position of the instruction or statement, when known.
    pub loc: Loc,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(func) = &self.function {
            write!(f, "@{func}: ")?;
        }
        f.write_str(&self.subject)?;
        if self.loc.is_known() {
            write!(f, " (line {}:{})", self.loc.line, self.loc.col)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Checks every rule above; `Err` holds all the errors found.
pub fn verify_module(m: &Module) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    check_structs(m, &mut errors);
    check_globals(m, &mut errors);
    for f in &m.functions {
        FnCheck::new(m, f, &mut errors).run();
    }
    check_names(m, &mut errors);
    check_recursion(m, &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The rules of one function `f`, with `m`'s structs, globals and
/// functions around it; `f` need not be in `m` (a pass's copy of a
/// kernel). The module-level rules are not checked.
pub fn verify_function(m: &Module, f: &Function) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    FnCheck::new(m, f, &mut errors).run();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// [`verify_module`] in builds with debug assertions (and so in tests);
/// `Ok(())` without looking in release builds. Passes call it on their
/// output: a verifier error there is a bug in the pass.
pub fn verify_if_debug(m: &Module) -> Result<(), Vec<VerifyError>> {
    if cfg!(debug_assertions) {
        verify_module(m)
    } else {
        Ok(())
    }
}

/// Formats a list of errors one per line (for `panic!`, logs and reports).
pub fn format_errors(errors: &[VerifyError]) -> String {
    errors.iter().map(|e| format!("{e}\n")).collect()
}

fn module_error(subject: String, message: String) -> VerifyError {
    VerifyError {
        function: None,
        subject,
        loc: Loc::NONE,
        message,
    }
}

/// Why `ty` is not a well-formed type, if it is not.
fn type_problem(m: &Module, ty: &Type) -> Option<String> {
    match ty {
        Type::Void | Type::Scalar(_) => None,
        Type::Vector(_, n) if !VECTOR_LENGTHS.contains(n) => {
            Some(format!("vectors have 2, 3, 4, 8 or 16 elements, not {n}"))
        }
        Type::Vector(..) => None,
        Type::Pointer(_, p) => type_problem(m, p),
        Type::Array(e, _) if e.is_void() => Some("array of void".to_string()),
        Type::Array(e, _) => type_problem(m, e),
        Type::Struct(id) if id.0 as usize >= m.structs.len() => {
            Some(format!("struct #{} does not exist", id.0))
        }
        Type::Struct(_) => None,
    }
}

/// Size in bytes in u64, `None` past u32 (arrays can multiply out of range).
fn size_u64(m: &Module, ty: &Type) -> Option<u64> {
    let size = match ty {
        Type::Array(e, n) => size_u64(m, e)?.checked_mul(u64::from(*n))?,
        _ => u64::from(m.size_of(ty)),
    };
    (size <= u64::from(u32::MAX)).then_some(size)
}

fn check_structs(m: &Module, errors: &mut Vec<VerifyError>) {
    for (i, s) in m.structs.iter().enumerate() {
        let subject = format!("struct %{}", s.name);
        for fld in &s.fields {
            if fld.ty.is_void() {
                errors.push(module_error(
                    subject.clone(),
                    format!("field `{}` has type void", fld.name),
                ));
            } else if let Some(p) = type_problem(m, &fld.ty) {
                errors.push(module_error(
                    subject.clone(),
                    format!("field `{}`: {p}", fld.name),
                ));
            } else if size_u64(m, &fld.ty).is_none() {
                errors.push(module_error(
                    subject.clone(),
                    format!("field `{}` is larger than 4 GiB", fld.name),
                ));
            } else if u64::from(fld.offset) + size_u64(m, &fld.ty).unwrap_or(0) > u64::from(s.size)
            {
                errors.push(module_error(
                    subject.clone(),
                    format!("field `{}` extends past the struct's size", fld.name),
                ));
            }
        }
        if !s.align.is_power_of_two() {
            errors.push(module_error(
                subject.clone(),
                format!("alignment {} is not a power of two", s.align),
            ));
        }
        // Containment by value must be acyclic: walk from each struct.
        let mut stack: Vec<StructId> = Vec::new();
        let mut seen = HashSet::new();
        let push_fields = |id: StructId, stack: &mut Vec<StructId>| {
            if let Some(def) = m.structs.get(id.0 as usize) {
                for f in &def.fields {
                    let mut t = &f.ty;
                    while let Type::Array(e, _) = t {
                        t = e;
                    }
                    if let Type::Struct(inner) = t {
                        stack.push(*inner);
                    }
                }
            }
        };
        push_fields(StructId(i as u32), &mut stack);
        while let Some(id) = stack.pop() {
            if id.0 as usize == i {
                errors.push(module_error(
                    subject.clone(),
                    "contains itself by value".to_string(),
                ));
                break;
            }
            if seen.insert(id) {
                push_fields(id, &mut stack);
            }
        }
    }
}

fn check_globals(m: &Module, errors: &mut Vec<VerifyError>) {
    for g in &m.globals {
        let subject = format!("global @{}", g.name);
        let mut err = |msg: String| errors.push(module_error(subject.clone(), msg));
        if !matches!(
            g.space,
            AddressSpace::Constant | AddressSpace::Local | AddressSpace::Global
        ) {
            err(format!(
                "module-scope variables live in constant, local or global memory, not {}",
                g.space
            ));
        }
        if g.ty.is_void() {
            err("has type void".to_string());
        } else if let Some(p) = type_problem(m, &g.ty) {
            err(p);
        } else if let Some(init) = &g.init {
            if g.space == AddressSpace::Local {
                err("__local variables cannot be initialised".to_string());
            }
            if size_u64(m, &g.ty) != Some(init.len() as u64) {
                let ty = print_type(&g.ty, &m.structs);
                err(format!(
                    "initialiser has {} bytes, {ty} needs {}",
                    init.len(),
                    m.size_of(&g.ty)
                ));
            }
        }
    }
    for r in &m.relocs {
        let (Some(g), Some(t)) = (
            m.globals.get(r.global.index()),
            m.globals.get(r.target.index()),
        ) else {
            errors.push(module_error(
                "reloc".to_string(),
                format!(
                    "names global #{} or #{}, which do not exist",
                    r.global.0, r.target.0
                ),
            ));
            continue;
        };
        let subject = format!("reloc in @{}", g.name);
        let fits = u64::from(r.offset) + 8 <= u64::from(m.size_of(&g.ty));
        if g.space == AddressSpace::Local || t.space == AddressSpace::Local || !fits {
            errors.push(module_error(
                subject,
                format!(
                    "the address of @{} at byte {} must lie in a __constant or __global variable, inside it",
                    t.name, r.offset
                ),
            ));
        }
    }
}

fn check_names(m: &Module, errors: &mut Vec<VerifyError>) {
    let mut seen = HashSet::new();
    for f in &m.functions {
        if !seen.insert(f.name.as_str()) {
            errors.push(module_error(
                format!("function @{}", f.name),
                "more than one function has this name".into(),
            ));
        }
    }
}

/// Reports every function on a cycle of the call graph.
fn check_recursion(m: &Module, errors: &mut Vec<VerifyError>) {
    let n = m.functions.len();
    let callees: Vec<Vec<usize>> = m
        .functions
        .iter()
        .map(|f| {
            let mut c: Vec<usize> = f
                .insts
                .iter()
                .filter_map(|d| match d.inst {
                    Inst::Call(id, _) if id.index() < n => Some(id.index()),
                    _ => None,
                })
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    // A function is recursive when it can reach itself.
    for start in 0..n {
        let mut seen = vec![false; n];
        let mut stack = callees[start].clone();
        let mut recursive = false;
        while let Some(g) = stack.pop() {
            if g == start {
                recursive = true;
                break;
            }
            if !std::mem::replace(&mut seen[g], true) {
                stack.extend(&callees[g]);
            }
        }
        if recursive {
            let f = &m.functions[start];
            errors.push(VerifyError {
                function: Some(f.name.clone()),
                subject: "call graph".into(),
                loc: Loc::NONE,
                message:
                    "calls itself (directly or through other functions); recursion is not allowed"
                        .into(),
            });
        }
    }
}

/// The innermost construct that `break`/`continue` refer to.
#[derive(Clone, Copy, PartialEq)]
enum Construct {
    LoopBody,
    LoopContinuing,
    Switch,
}

/// Whether `s` may `continue` the loop it is in (not a nested loop).
fn may_continue(s: &Stmt) -> bool {
    match s {
        Stmt::Continue => true,
        Stmt::If { then_, else_, .. } => then_.0.iter().chain(&else_.0).any(may_continue),
        Stmt::Switch { cases, .. } => cases.iter().flat_map(|c| &c.body.0).any(may_continue),
        _ => false,
    }
}

struct FnCheck<'a> {
    m: &'a Module,
    f: &'a Function,
    errors: &'a mut Vec<VerifyError>,
    /// Times each instruction has been evaluated so far.
    evals: Vec<u32>,
    /// Whether each value is visible at the current point.
    visible: Vec<bool>,
    /// Values made visible, in order, to hide them when their block ends.
    defined: Vec<ValueId>,
    constructs: Vec<Construct>,
}

impl<'a> FnCheck<'a> {
    fn new(m: &'a Module, f: &'a Function, errors: &'a mut Vec<VerifyError>) -> FnCheck<'a> {
        let n = f.insts.len();
        FnCheck {
            m,
            f,
            errors,
            evals: vec![0; n],
            visible: vec![false; n],
            defined: Vec::new(),
            constructs: Vec::new(),
        }
    }

    fn error(&mut self, subject: impl Into<String>, loc: Loc, message: impl Into<String>) {
        self.errors.push(VerifyError {
            function: Some(self.f.name.clone()),
            subject: subject.into(),
            loc,
            message: message.into(),
        });
    }

    fn ty_name(&self, ty: &Type) -> String {
        print_type(ty, &self.m.structs)
    }

    fn run(mut self) {
        self.header();
        let body = &self.f.body;
        self.block(body);
        for (i, &n) in self.evals.clone().iter().enumerate() {
            if n == 0 {
                let loc = self.f.insts[i].loc;
                self.error(
                    format!("%{i}"),
                    loc,
                    "never evaluated (no `Eval` of it in the body)",
                );
            }
        }
    }

    fn header(&mut self) {
        let f = self.f;
        for (i, p) in f.params.iter().enumerate() {
            let subject = format!("param {i} ({})", p.name);
            if let Some(problem) = type_problem(self.m, &p.ty) {
                self.error(subject, Loc::NONE, problem);
            } else if !p.ty.is_value() {
                let t = self.ty_name(&p.ty);
                self.error(
                    subject,
                    Loc::NONE,
                    format!("parameters are scalars, vectors or pointers, not {t}"),
                );
            } else if p.byval
                && !matches!(&p.ty, Type::Pointer(AddressSpace::Private, t) if matches!(**t, Type::Struct(_)))
            {
                self.error(
                    subject,
                    Loc::NONE,
                    "a byval parameter is a `ptr private` to a struct",
                );
            }
        }
        if let Some(problem) = type_problem(self.m, &f.ret) {
            self.error("result type", Loc::NONE, problem);
        } else if !f.ret.is_void() && !f.ret.is_value() {
            let t = self.ty_name(&f.ret);
            self.error(
                "result type",
                Loc::NONE,
                format!("functions return void, a scalar, a vector or a pointer, not {t}"),
            );
        }
        for (i, v) in f.vars.iter().enumerate() {
            if let Some(problem) = type_problem(self.m, &v.ty) {
                self.error(format!("${i}"), Loc::NONE, problem);
            } else if !v.ty.is_value() {
                let t = self.ty_name(&v.ty);
                self.error(
                    format!("${i}"),
                    Loc::NONE,
                    format!("variables hold scalars, vectors or pointers, not {t}"),
                );
            }
        }
        for (i, s) in f.slots.iter().enumerate() {
            if let Some(problem) = type_problem(self.m, &s.ty) {
                self.error(format!("&{i}"), Loc::NONE, problem);
            } else if s.ty.is_void() {
                self.error(format!("&{i}"), Loc::NONE, "a slot of type void");
            } else if size_u64(self.m, &s.ty).is_none() {
                self.error(format!("&{i}"), Loc::NONE, "larger than 4 GiB");
            }
        }
        let Some(k) = &f.kernel else { return };
        if !f.ret.is_void() {
            self.error("result type", Loc::NONE, "kernels return void");
        }
        if k.args.len() != f.params.len() {
            let msg = format!(
                "{} parameters but {} argument infos",
                f.params.len(),
                k.args.len()
            );
            self.error("kernel args", Loc::NONE, msg);
        }
        for (i, (p, a)) in f.params.iter().zip(&k.args).enumerate() {
            let space = match &p.ty {
                Type::Pointer(space, _) if !p.byval => *space,
                _ => AddressSpace::Private,
            };
            if !p.byval
                && matches!(space, AddressSpace::Private | AddressSpace::Generic)
                && p.ty.is_pointer()
            {
                let msg = format!("kernel pointer parameters point to global, constant or local memory, not {space}");
                self.error(format!("param {i} ({})", p.name), Loc::NONE, msg);
            }
            if a.address != space {
                let msg = format!(
                    "argument info says {} but the parameter's address space is {space}",
                    a.address
                );
                self.error(format!("param {i} ({})", p.name), Loc::NONE, msg);
            }
        }
        for (what, size) in [
            ("reqd_work_group_size", k.reqd_work_group_size),
            ("work_group_size_hint", k.work_group_size_hint),
        ] {
            if size.is_some_and(|s| s.contains(&0)) {
                self.error(what, Loc::NONE, "sizes are at least 1");
            }
        }
        if k.reqd_sub_group_size == Some(0) {
            self.error("reqd_sub_group_size", Loc::NONE, "the size is at least 1");
        }
        if let Some(t) = &k.vec_type_hint {
            if !matches!(t, Type::Scalar(_) | Type::Vector(..)) || type_problem(self.m, t).is_some()
            {
                let t = self.ty_name(t);
                self.error(
                    "vec_type_hint",
                    Loc::NONE,
                    format!("expected a scalar or vector type, not {t}"),
                );
            }
        }
    }

    // ----- statements -----

    fn block(&mut self, b: &'a Block) {
        let mark = self.defined.len();
        for s in &b.0 {
            self.stmt(s);
        }
        self.hide_from(mark);
    }

    fn hide_from(&mut self, mark: usize) {
        for v in self.defined.drain(mark..) {
            self.visible[v.index()] = false;
        }
    }

    /// Checks that `v` exists and is visible; returns its type if it exists.
    fn operand(&mut self, subject: &str, loc: Loc, v: ValueId) -> Option<&'a Type> {
        let f = self.f;
        let Some(d) = f.insts.get(v.index()) else {
            self.error(subject, loc, format!("uses %{}, which does not exist", v.0));
            return None;
        };
        if !self.visible[v.index()] {
            let msg = format!(
                "uses %{} where it is not defined (not evaluated before, or out of its block)",
                v.0
            );
            self.error(subject, loc, msg);
        }
        Some(&d.ty)
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Eval(v) => self.eval(*v),
            Stmt::WriteVar(var, v) => {
                let subject = format!("write ${}, %{}", var.0, v.0);
                let ty = self.operand(&subject, Loc::NONE, *v);
                match (self.f.vars.get(var.index()), ty) {
                    (None, _) => self.error(
                        subject,
                        Loc::NONE,
                        format!("variable ${} does not exist", var.0),
                    ),
                    (Some(decl), Some(ty)) if decl.ty != *ty => {
                        let msg = format!(
                            "writes {} to a variable of type {}",
                            self.ty_name(ty),
                            self.ty_name(&decl.ty)
                        );
                        self.error(subject, Loc::NONE, msg);
                    }
                    _ => {}
                }
            }
            Stmt::Store { ptr, value, loc } => {
                let subject = format!("store %{}, %{}", ptr.0, value.0);
                let p = self.operand(&subject, *loc, *ptr);
                let v = self.operand(&subject, *loc, *value);
                if let (Some(p), Some(v)) = (p, v) {
                    match p {
                        Type::Pointer(AddressSpace::Constant, _) => {
                            self.error(subject, *loc, "stores into constant memory");
                        }
                        Type::Pointer(_, pointee) if **pointee == *v && v.is_value() => {}
                        Type::Pointer(_, pointee) => {
                            let msg = format!(
                                "stores {} through a pointer to {}",
                                self.ty_name(v),
                                self.ty_name(pointee)
                            );
                            self.error(subject, *loc, msg);
                        }
                        _ => self.error(
                            subject,
                            *loc,
                            format!("stores through {}, not a pointer", self.ty_name(p)),
                        ),
                    }
                }
            }
            Stmt::Copy {
                dst,
                src,
                size,
                loc,
            } => {
                let subject = format!("copy %{}, %{}, {size}", dst.0, src.0);
                let d = self.operand(&subject, *loc, *dst);
                let s = self.operand(&subject, *loc, *src);
                if d.is_some_and(|t| !t.is_pointer()) || s.is_some_and(|t| !t.is_pointer()) {
                    self.error(subject, *loc, "copies between pointers only");
                } else if d.and_then(Type::address_space) == Some(AddressSpace::Constant) {
                    self.error(subject, *loc, "copies into constant memory");
                } else {
                    // The bytes must fit the objects pointed to (when sized).
                    for t in [d, s].into_iter().flatten().filter_map(Type::pointee) {
                        let room = size_u64(self.m, t).unwrap_or(u64::MAX);
                        if !t.is_void() && u64::from(*size) > room {
                            let msg = format!(
                                "copies {size} bytes through a pointer to {}",
                                self.ty_name(t)
                            );
                            self.error(subject.clone(), *loc, msg);
                        }
                    }
                }
            }
            Stmt::If { cond, then_, else_ } => {
                let subject = format!("if %{}", cond.0);
                if let Some(t) = self.operand(&subject, Loc::NONE, *cond) {
                    if *t != Type::BOOL {
                        let msg = format!("the condition is {}, not bool", self.ty_name(t));
                        self.error(subject, Loc::NONE, msg);
                    }
                }
                self.block(then_);
                self.block(else_);
            }
            Stmt::Loop { body, continuing } => self.loop_(body, continuing),
            Stmt::Switch { selector, cases } => {
                let subject = format!("switch %{}", selector.0);
                if let Some(t) = self.operand(&subject, Loc::NONE, *selector) {
                    if !matches!(t, Type::Scalar(s) if s.is_int()) {
                        let msg = format!("the selector is {}, not an integer", self.ty_name(t));
                        self.error(subject.clone(), Loc::NONE, msg);
                    }
                }
                let mut labels = HashSet::new();
                let mut defaults = 0;
                for c in cases {
                    defaults += usize::from(c.is_default);
                    for v in &c.values {
                        if !labels.insert(*v) {
                            self.error(
                                subject.clone(),
                                Loc::NONE,
                                format!("case {v} appears twice"),
                            );
                        }
                    }
                }
                if defaults > 1 {
                    self.error(subject, Loc::NONE, "more than one default");
                }
                self.constructs.push(Construct::Switch);
                for c in cases {
                    self.block(&c.body);
                }
                self.constructs.pop();
            }
            Stmt::Break => {
                if self.constructs.is_empty() {
                    self.error("break", Loc::NONE, "outside any loop or switch");
                }
            }
            Stmt::Continue => {
                let target = self
                    .constructs
                    .iter()
                    .rev()
                    .find(|c| **c != Construct::Switch);
                match target {
                    None => self.error("continue", Loc::NONE, "outside any loop"),
                    Some(Construct::LoopContinuing) => {
                        self.error("continue", Loc::NONE, "inside a loop's continuing block")
                    }
                    Some(_) => {}
                }
            }
            Stmt::Return(v) => {
                let subject = match v {
                    Some(v) => format!("return %{}", v.0),
                    None => "return".to_string(),
                };
                let ty = match v {
                    Some(v) => self.operand(&subject, Loc::NONE, *v),
                    None => Some(&Type::Void),
                };
                if let Some(ty) = ty {
                    if *ty != self.f.ret {
                        let msg = format!(
                            "returns {} from a function returning {}",
                            self.ty_name(ty),
                            self.ty_name(&self.f.ret)
                        );
                        self.error(subject, Loc::NONE, msg);
                    }
                }
            }
            Stmt::Barrier(..) | Stmt::Fence(_) => {}
        }
    }

    fn loop_(&mut self, body: &'a Block, continuing: &'a Block) {
        let mark = self.defined.len();
        self.constructs.push(Construct::LoopBody);
        // Values of the body's top level defined before the first statement
        // that may `continue` reach the continuing block.
        let mut reach_continuing = None;
        for s in &body.0 {
            if reach_continuing.is_none() && may_continue(s) {
                reach_continuing = Some(self.defined.len());
            }
            self.stmt(s);
        }
        let keep = reach_continuing.unwrap_or(self.defined.len());
        self.hide_from(keep);
        self.constructs.pop();
        self.constructs.push(Construct::LoopContinuing);
        self.block(continuing);
        self.constructs.pop();
        self.hide_from(mark);
    }

    fn eval(&mut self, v: ValueId) {
        let f = self.f;
        let Some(d) = f.insts.get(v.index()) else {
            self.error(
                format!("eval %{}", v.0),
                Loc::NONE,
                "evaluates a value that does not exist",
            );
            return;
        };
        self.evals[v.index()] += 1;
        if self.evals[v.index()] > 1 {
            self.error(format!("%{}", v.0), d.loc, "evaluated more than once");
            return;
        }
        self.inst(v, d);
        self.visible[v.index()] = true;
        self.defined.push(v);
    }

    // ----- instructions -----

    fn inst(&mut self, v: ValueId, d: &'a InstData) {
        let subject = format!("%{}", v.0);
        let loc = d.loc;
        let ty = &d.ty;
        if let Some(p) = type_problem(self.m, ty) {
            self.error(&subject, loc, p);
            return;
        }
        let may_be_void = matches!(
            &d.inst,
            Inst::Call(..)
                | Inst::Builtin(..)
                | Inst::Atomic {
                    op: AtomicOp::Store,
                    ..
                }
        );
        let allowed = ty.is_value() || (ty.is_void() && may_be_void);
        if !allowed {
            let msg = format!(
                "values are scalars, vectors or pointers, not {}",
                self.ty_name(ty)
            );
            self.error(&subject, loc, msg);
            return;
        }
        // Operand types (None when an operand does not exist: reported).
        let ops = |this: &mut Self, vs: &[ValueId]| -> Option<Vec<&'a Type>> {
            let tys: Vec<Option<&'a Type>> =
                vs.iter().map(|o| this.operand(&subject, loc, *o)).collect();
            tys.into_iter().collect()
        };
        let problem: Option<String> = match &d.inst {
            Inst::Param(i) => match self.f.params.get(*i as usize) {
                None => Some(format!("parameter {i} does not exist")),
                Some(p) if p.ty != *ty => Some(format!("parameter {i} has type {}", self.ty_name(&p.ty))),
                Some(_) => None,
            },
            Inst::Const(bits) => match ty {
                Type::Scalar(Scalar::Bool) if *bits > 1 => Some("a bool constant is 0 or 1".into()),
                Type::Scalar(s) if s.bits() < 64 && *s != Scalar::Bool && bits >> (s.size() * 8) != 0 => {
                    Some(format!("bits {bits:#x} do not fit {}", s.name()))
                }
                Type::Scalar(_) => None,
                _ => Some("constants are scalars".into()),
            },
            Inst::Undef => None,
            Inst::Unary(op, a) => ops(self, &[*a]).and_then(|t| {
                let s = ty.scalar();
                if t[0] != ty {
                    Some(format!("operand is {}, result {}", self.ty_name(t[0]), self.ty_name(ty)))
                } else {
                    match (op, s) {
                        (UnaryOp::Neg, Some(s)) if s != Scalar::Bool => None,
                        (UnaryOp::Not, Some(s)) if !s.is_float() => None,
                        _ => Some(format!("{op:?} does not apply to {}", self.ty_name(ty))),
                    }
                }
            }),
            Inst::Binary(op, a, b) => ops(self, &[*a, *b]).and_then(|t| {
                let s = ty.scalar();
                if t[0] != ty || t[1] != ty {
                    let (x, y) = (self.ty_name(t[0]), self.ty_name(t[1]));
                    Some(format!("operands are {x} and {y}, result {}", self.ty_name(ty)))
                } else {
                    use BinaryOp::*;
                    let ok = match (op, s) {
                        (Add | Sub | Mul | Div, Some(s)) => s != Scalar::Bool,
                        (Rem | Shl | Shr, Some(s)) => s.is_int(),
                        (And | Or | Xor, Some(s)) => !s.is_float(),
                        _ => false,
                    };
                    (!ok).then(|| format!("{op:?} does not apply to {}", self.ty_name(ty)))
                }
            }),
            Inst::Cmp(_, a, b) => ops(self, &[*a, *b]).and_then(|t| {
                if t[0] != t[1] {
                    Some(format!("compares {} with {}", self.ty_name(t[0]), self.ty_name(t[1])))
                } else {
                    let want = match t[0] {
                        Type::Vector(_, n) => Type::Vector(Scalar::Bool, *n),
                        _ => Type::BOOL,
                    };
                    (*ty != want).then(|| format!("comparing {} gives {}", self.ty_name(t[0]), self.ty_name(&want)))
                }
            }),
            Inst::Select(c, a, b) => ops(self, &[*c, *a, *b]).and_then(|t| {
                if t[1] != ty || t[2] != ty {
                    Some(format!("picks between {} and {} for {}", self.ty_name(t[1]), self.ty_name(t[2]), self.ty_name(ty)))
                } else {
                    match t[0] {
                        Type::Scalar(Scalar::Bool) => None,
                        Type::Vector(Scalar::Bool, n) if matches!(ty, Type::Vector(_, m) if m == n) => None,
                        c => Some(format!("the condition {} does not fit {}", self.ty_name(c), self.ty_name(ty))),
                    }
                }
            }),
            Inst::Convert { value, .. } => ops(self, &[*value]).and_then(|t| {
                let both = matches!(t[0], Type::Scalar(_) | Type::Vector(..)) && matches!(ty, Type::Scalar(_) | Type::Vector(..));
                if !both || t[0].lanes() != ty.lanes() {
                    Some(format!("converts {} to {}", self.ty_name(t[0]), self.ty_name(ty)))
                } else {
                    None
                }
            }),
            Inst::Bitcast(a) => ops(self, &[*a]).and_then(|t| {
                let both = matches!(t[0], Type::Scalar(_) | Type::Vector(..)) && matches!(ty, Type::Scalar(_) | Type::Vector(..));
                if !both || self.m.size_of(t[0]) != self.m.size_of(ty) {
                    Some(format!("reinterprets {} as {}: sizes differ", self.ty_name(t[0]), self.ty_name(ty)))
                } else {
                    None
                }
            }),
            Inst::Splat(a) => ops(self, &[*a]).and_then(|t| match (t[0], ty) {
                (Type::Scalar(s), Type::Vector(e, _)) if s == e => None,
                _ => Some(format!("splats {} into {}", self.ty_name(t[0]), self.ty_name(ty))),
            }),
            Inst::Construct(parts) => ops(self, parts).and_then(|t| {
                let Type::Vector(e, n) = ty else {
                    return Some("constructs a vector".into());
                };
                let same = t.iter().all(|p| matches!(p, Type::Scalar(s) | Type::Vector(s, _) if s == e));
                let lanes: u32 = t.iter().map(|p| p.lanes()).sum();
                if !same {
                    Some(format!("every part is a {e} or a vector of {e}"))
                } else if lanes != u32::from(*n) {
                    Some(format!("parts have {lanes} components, the result {n}"))
                } else {
                    None
                }
            }),
            Inst::Extract(a, i) => ops(self, &[*a]).and_then(|t| match t[0] {
                Type::Vector(e, n) if i >= n => Some(format!("component {i} of a {n}-component vector of {e}")),
                Type::Vector(e, _) if *ty == Type::Scalar(*e) => None,
                _ => Some(format!("extracts {} from {}", self.ty_name(ty), self.ty_name(t[0]))),
            }),
            Inst::Insert(a, i, x) => ops(self, &[*a, *x]).and_then(|t| match t[0] {
                Type::Vector(_, n) if i >= n => Some(format!("component {i} of a {n}-component vector")),
                Type::Vector(e, _) if t[0] == ty && *t[1] == Type::Scalar(*e) => None,
                _ => Some(format!("inserts {} into {} giving {}", self.ty_name(t[1]), self.ty_name(t[0]), self.ty_name(ty))),
            }),
            Inst::Shuffle(a, b, idx) => ops(self, &[*a, *b]).and_then(|t| match t[0] {
                _ if t[0] != t[1] => Some(format!("shuffles {} with {}", self.ty_name(t[0]), self.ty_name(t[1]))),
                Type::Vector(e, n) => {
                    let want = if idx.len() == 1 { Type::Scalar(*e) } else { Type::Vector(*e, idx.len() as u8) };
                    if idx.is_empty() || idx.len() > 16 {
                        Some(format!("{} indices", idx.len()))
                    } else if let Some(i) = idx.iter().find(|&&i| u32::from(i) >= 2 * u32::from(*n)) {
                        Some(format!("index {i} out of range for two {n}-component vectors"))
                    } else if *ty != want {
                        Some(format!("{} indices give {}", idx.len(), self.ty_name(&want)))
                    } else {
                        None
                    }
                }
                _ => Some(format!("shuffles {}, not vectors", self.ty_name(t[0]))),
            }),
            Inst::ReadVar(var) => match self.f.vars.get(var.index()) {
                None => Some(format!("variable ${} does not exist", var.0)),
                Some(decl) if decl.ty != *ty => Some(format!("variable ${} has type {}", var.0, self.ty_name(&decl.ty))),
                Some(_) => None,
            },
            Inst::SlotAddr(s) => match self.f.slots.get(s.index()) {
                None => Some(format!("slot &{} does not exist", s.0)),
                Some(decl) => {
                    let want = Type::ptr(AddressSpace::Private, decl.ty.clone());
                    (*ty != want).then(|| format!("the address of &{} is {}", s.0, self.ty_name(&want)))
                }
            },
            Inst::GlobalAddr(g) => match self.m.globals.get(g.index()) {
                None => Some(format!("global #{} does not exist", g.0)),
                Some(decl) => {
                    let want = Type::ptr(decl.space, decl.ty.clone());
                    (*ty != want).then(|| format!("the address of @{} is {}", decl.name, self.ty_name(&want)))
                }
            },
            Inst::Index(p, i) => ops(self, &[*p, *i]).and_then(|t| {
                if !t[0].is_pointer() || t[0] != ty {
                    Some(format!("indexes {} giving {}", self.ty_name(t[0]), self.ty_name(ty)))
                } else if !matches!(t[1], Type::Scalar(s) if s.is_int()) {
                    Some(format!("the index is {}, not an integer", self.ty_name(t[1])))
                } else {
                    None
                }
            }),
            Inst::Field(p, n) => ops(self, &[*p]).and_then(|t| match t[0] {
                Type::Pointer(space, inner) => match &**inner {
                    Type::Struct(id) => match self.m.structs.get(id.0 as usize).and_then(|s| s.fields.get(*n as usize)) {
                        None => Some(format!("field {n} does not exist")),
                        Some(fld) => {
                            let want = Type::ptr(*space, fld.ty.clone());
                            (*ty != want).then(|| format!("field {n} is at {}", self.ty_name(&want)))
                        }
                    },
                    _ => Some(format!("takes a field of {}, not a struct", self.ty_name(inner))),
                },
                _ => Some(format!("takes a field through {}, not a pointer", self.ty_name(t[0]))),
            }),
            Inst::Elem(p, i) => ops(self, &[*p, *i]).and_then(|t| {
                let elem = match t[0] {
                    Type::Pointer(space, inner) => match &**inner {
                        Type::Array(e, _) => Some(Type::ptr(*space, (**e).clone())),
                        Type::Vector(e, _) => Some(Type::ptr(*space, Type::Scalar(*e))),
                        _ => None,
                    },
                    _ => None,
                };
                match elem {
                    None => Some(format!("takes an element of {}, not a pointer to an array or vector", self.ty_name(t[0]))),
                    Some(_) if !matches!(t[1], Type::Scalar(s) if s.is_int()) => {
                        Some(format!("the index is {}, not an integer", self.ty_name(t[1])))
                    }
                    Some(want) => (*ty != want).then(|| format!("the element is at {}", self.ty_name(&want))),
                }
            }),
            Inst::PtrCast(p) => ops(self, &[*p]).and_then(|t| {
                (!t[0].is_pointer() || !ty.is_pointer()).then(|| format!("casts {} to {}", self.ty_name(t[0]), self.ty_name(ty)))
            }),
            Inst::PtrToInt(p) => ops(self, &[*p]).and_then(|t| {
                let ok = t[0].is_pointer() && matches!(ty, Type::Scalar(Scalar::U64 | Scalar::I64));
                (!ok).then(|| format!("turns {} into {}", self.ty_name(t[0]), self.ty_name(ty)))
            }),
            Inst::IntToPtr(v) => ops(self, &[*v]).and_then(|t| {
                let ok = matches!(t[0], Type::Scalar(Scalar::U64 | Scalar::I64)) && ty.is_pointer();
                (!ok).then(|| format!("turns {} into {}", self.ty_name(t[0]), self.ty_name(ty)))
            }),
            Inst::Load(p) => ops(self, &[*p]).and_then(|t| match t[0] {
                Type::Pointer(_, inner) if **inner == *ty => None,
                Type::Pointer(_, inner) => Some(format!("loads {} through a pointer to {}", self.ty_name(ty), self.ty_name(inner))),
                _ => Some(format!("loads through {}, not a pointer", self.ty_name(t[0]))),
            }),
            Inst::Atomic { op, ptr, args, .. } => ops(self, &[*ptr]).and_then(|t| self.atomic(*op, t[0], args, ty, &subject, loc)),
            Inst::WorkItem(wi, dim) => {
                let wants_dim = !matches!(wi, WorkItemFn::WorkDim | WorkItemFn::GlobalLinearId | WorkItemFn::LocalLinearId);
                let want = if *wi == WorkItemFn::WorkDim { Type::U32 } else { Type::U64 };
                let dim_ty = match dim {
                    Some(d) => self.operand(&subject, loc, *d),
                    None => None,
                };
                if wants_dim != dim.is_some() {
                    Some(format!("{wi:?} {} a dimension", if wants_dim { "takes" } else { "takes no" }))
                } else if dim_ty.is_some_and(|t| *t != Type::U32) {
                    Some("the dimension is a u32".into())
                } else {
                    (*ty != want).then(|| format!("{wi:?} gives {}", self.ty_name(&want)))
                }
            }
            Inst::Call(func, args) => {
                let arg_tys = ops(self, args);
                match self.m.functions.get(func.index()) {
                    None => Some(format!("function #{} does not exist", func.0)),
                    Some(callee) if callee.params.len() != args.len() => {
                        Some(format!("@{} takes {} arguments, given {}", callee.name, callee.params.len(), args.len()))
                    }
                    Some(callee) if callee.ret != *ty => {
                        Some(format!("@{} returns {}", callee.name, self.ty_name(&callee.ret)))
                    }
                    Some(callee) => arg_tys.and_then(|tys| {
                        let (i, (p, a)) = callee.params.iter().zip(tys).enumerate().find(|(_, (p, a))| p.ty != **a)?;
                        Some(format!("argument {i} of @{} is {}, given {}", callee.name, self.ty_name(&p.ty), self.ty_name(a)))
                    }),
                }
            }
            Inst::Builtin(name, args) => ops(self, args).and_then(|tys| {
                tys.iter().find(|t| !t.is_value()).map(|t| format!("passes {} to {name}", self.ty_name(t)))
            }),
        };
        if let Some(p) = problem {
            self.error(subject, loc, p);
        }
    }

    fn atomic(
        &mut self,
        op: AtomicOp,
        p: &Type,
        args: &[ValueId],
        ty: &Type,
        subject: &str,
        loc: Loc,
    ) -> Option<String> {
        let Type::Pointer(space, pointee) = p else {
            return Some(format!(
                "atomics go through pointers, not {}",
                self.ty_name(p)
            ));
        };
        if !matches!(
            space,
            AddressSpace::Global | AddressSpace::Local | AddressSpace::Generic
        ) {
            return Some(format!("atomics on {space} memory"));
        }
        let float_ok = matches!(
            op,
            AtomicOp::Load | AtomicOp::Store | AtomicOp::Xchg | AtomicOp::CmpXchg
        );
        let ok_pointee = match **pointee {
            Type::Scalar(Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64) => true,
            Type::Scalar(Scalar::F32 | Scalar::F64) => float_ok,
            _ => false,
        };
        if !ok_pointee {
            return Some(format!("atomic {op:?} on {}", self.ty_name(pointee)));
        }
        let arity = match op {
            AtomicOp::Load | AtomicOp::Inc | AtomicOp::Dec => 0,
            AtomicOp::CmpXchg => 2,
            _ => 1,
        };
        if args.len() != arity {
            return Some(format!(
                "atomic {op:?} takes {arity} operands after the pointer, given {}",
                args.len()
            ));
        }
        for a in args {
            if let Some(t) = self.operand(subject, loc, *a) {
                if *t != **pointee {
                    return Some(format!(
                        "an operand is {}, the memory {}",
                        self.ty_name(t),
                        self.ty_name(pointee)
                    ));
                }
            }
        }
        let want = if op == AtomicOp::Store {
            Type::Void
        } else {
            (**pointee).clone()
        };
        (*ty != want).then(|| format!("atomic {op:?} gives {}", self.ty_name(&want)))
    }
}

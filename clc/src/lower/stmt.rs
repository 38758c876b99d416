//! Lowering statements and local declarations to structured IR.
//!
//! `while`/`for` become `Loop` with the test at the head of the body (a
//! `break` when false) and the step in `continuing`; `do … while` tests at
//! the end of `continuing`. `switch` bodies are split at their top-level
//! `case`/`default` labels into IR cases that fall through like C's.
//! Locals: register variables unless they are arrays, structs or have their
//! address taken; `__local` variables of kernels and `static`/`__constant`
//! locals become module globals named `function.variable`.

use super::expr::Val;
use super::expr::{LVal, Place};
use super::{to_loc, Breakable, LResult, Lowerer, Sym};
use crate::ast::*;
use crate::diag::Pos;
use crate::parser::Reported;
use rustc_hash::FxHashMap as HashMap;
use vecl_ir::*;

impl Lowerer<'_> {
    pub(super) fn push_scope(&mut self) {
        self.cx().scopes.push(HashMap::default());
        self.typedefs.push(HashMap::default());
    }

    pub(super) fn pop_scope(&mut self) {
        self.cx().scopes.pop();
        self.typedefs.pop();
    }

    fn scoped_block(&mut self, s: &Statement) -> LResult<Block> {
        self.b().begin_block();
        self.push_scope();
        let r = self.stmt(s);
        self.pop_scope();
        let b = self.b().end_block();
        r.map(|_| b)
    }

    /// `({ s1; …; e; })`: the statements in a scope of their own; the value
    /// is that of the last when it is an expression statement.
    pub(super) fn statement_expr(&mut self, items: &[Statement]) -> LResult<Val> {
        // Lowered structured even in a function with `goto` (`goto.rs`):
        // its statements are inside an expression of the current block.
        let graph = self.cx().cfg.take();
        let r = self.statement_expr_structured(items);
        self.cx().cfg = graph;
        r
    }

    fn statement_expr_structured(&mut self, items: &[Statement]) -> LResult<Val> {
        self.push_scope();
        let (last, init) = match items.split_last() {
            Some((Statement::Expr(e), init)) => (Some(e), init),
            _ => (None, items),
        };
        let mut result = Ok(Val::Void);
        for s in init {
            if let Err(r) = self.stmt(s) {
                result = Err(r);
                break;
            }
        }
        if let (Ok(_), Some(e)) = (&result, last) {
            // The value, read now: variables of the scope end with it.
            result = match self.expr(e) {
                Ok(Val::L(lv)) => {
                    let ty = lv.ty.clone();
                    Ok(Val::R(self.read(&lv), ty))
                }
                other => other,
            };
        }
        self.pop_scope();
        result
    }

    pub(super) fn stmt(&mut self, s: &Statement) -> LResult<()> {
        if self.cx().cfg.is_some() {
            if let Some(r) = self.cfg_stmt(s) {
                return r;
            }
        }
        match s {
            Statement::Empty => Ok(()),
            Statement::Expr(e) => {
                self.expr(e)?;
                Ok(())
            }
            Statement::Decl(d) => self.local_decl(d),
            Statement::Block(items) => {
                self.push_scope();
                let mut result = Ok(());
                for s in items {
                    if self.diags.too_many() {
                        break;
                    }
                    if let Err(r) = self.stmt(s) {
                        result = Err(r);
                    }
                }
                self.pop_scope();
                result
            }
            Statement::If(c, t, e) => {
                let cond = self.condition(c)?;
                let then_ = self.scoped_block(t);
                let else_ = match e {
                    Some(e) => self.scoped_block(e),
                    None => Ok(Block::default()),
                };
                let (then_, else_) = (then_?, else_?);
                self.b().stmt(Stmt::If { cond, then_, else_ });
                Ok(())
            }
            Statement::While(c, body) => self.lower_loop(None, Some(c), None, body, false),
            Statement::DoWhile(body, c) => self.lower_loop(None, Some(c), None, body, true),
            Statement::For(init, c, step, body) => {
                self.push_scope();
                let r = (|| {
                    if let Some(i) = init {
                        self.stmt(i)?;
                    }
                    self.lower_loop(None, c.as_ref(), step.as_ref(), body, false)
                })();
                self.pop_scope();
                r
            }
            Statement::Switch(sel, body) => self.switch(sel, body),
            Statement::Case(_, pos) | Statement::Default(pos) => self.err(
                *pos,
                "'case' or 'default' label not directly inside a switch body is not supported",
            ),
            Statement::Break(pos) => {
                if self.cx().breakables.is_empty() {
                    return self.err(*pos, "'break' statement not in loop or switch statement");
                }
                self.b().stmt(Stmt::Break);
                Ok(())
            }
            Statement::Continue(pos) => {
                if !self.in_loop() {
                    return self.err(*pos, "'continue' statement not in loop statement");
                }
                self.b().stmt(Stmt::Continue);
                Ok(())
            }
            Statement::Return(e, pos) => {
                if self.cx().goto_fn && self.cx().cfg.is_none() {
                    return self.err(*pos, "'return' inside a statement expression is not supported by vecl in a function with 'goto'");
                }
                let ret = self.cx().ret.clone();
                let v = match (e, &ret) {
                    (None, Type::Void) => None,
                    (Some(e), Type::Void) => {
                        let (_, t) = self.rvalue(e)?;
                        let _ = t;
                        let name = self.cx().name.clone();
                        return self.err(
                            e.pos,
                            format!("void function '{name}' should not return a value"),
                        );
                    }
                    (None, _) => {
                        let name = self.cx().name.clone();
                        return self.err(
                            *pos,
                            format!("non-void function '{name}' should return a value"),
                        );
                    }
                    (Some(e), Type::Struct(_)) => {
                        let src = self.lvalue(e)?;
                        let (Place::Mem(sp), Some(dst)) = (&src.place, self.cx().sret) else {
                            return self.err(e.pos, "invalid struct return value");
                        };
                        if src.ty != ret {
                            let (x, y) = (self.type_str(&ret), self.type_str(&src.ty));
                            return self.err(e.pos, format!("returning '{y}' from a function with incompatible result type '{x}'"));
                        }
                        let size = self.module.size_of(&ret);
                        let loc = to_loc(e.pos);
                        self.b().stmt(Stmt::Copy {
                            dst,
                            src: *sp,
                            size,
                            loc,
                        });
                        None
                    }
                    (Some(e), _) => {
                        let (v, t) = self.rvalue(e)?;
                        Some(self.assign_convert(v, &t, &ret, e.pos, e)?)
                    }
                };
                if self.cx().cfg.is_some() {
                    self.cfg_return(v);
                } else {
                    self.b().stmt(Stmt::Return(v));
                }
                Ok(())
            }
            // A function with `goto` or labels goes through `goto.rs`; only
            // statement expressions are lowered structured in it.
            Statement::Goto(_, pos) => self.err(
                *pos,
                "'goto' inside a statement expression is not supported by vecl",
            ),
            Statement::Label(_, pos, s) => {
                if self.cx().goto_fn {
                    return self.err(
                        *pos,
                        "a label inside a statement expression is not supported by vecl",
                    );
                }
                self.stmt(s)
            }
        }
    }

    fn lower_loop(
        &mut self,
        _label: Option<&str>,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Statement,
        do_while: bool,
    ) -> LResult<()> {
        self.cx().breakables.push(Breakable::Loop);
        let r = (|| {
            self.b().begin_block();
            let mut res = Ok(());
            if !do_while {
                if let Some(c) = cond {
                    res = self.exit_unless(c);
                }
            }
            self.push_scope();
            let rb = self.stmt(body);
            self.pop_scope();
            let body_block = self.b().end_block();
            self.b().begin_block();
            let mut rc = Ok(());
            if let Some(st) = step {
                rc = self.expr(st).map(|_| ());
            }
            if do_while {
                if let Some(c) = cond {
                    rc = rc.and(self.exit_unless(c));
                }
            }
            let continuing = self.b().end_block();
            res?;
            rb?;
            rc?;
            self.b().stmt(Stmt::Loop {
                body: body_block,
                continuing,
            });
            Ok(())
        })();
        self.cx().breakables.pop();
        r
    }

    /// `if (!cond) break;`
    fn exit_unless(&mut self, c: &Expr) -> LResult<()> {
        let cond = self.condition(c)?;
        self.b().begin_block();
        self.b().stmt(Stmt::Break);
        let brk = self.b().end_block();
        self.b().stmt(Stmt::If {
            cond,
            then_: Block::default(),
            else_: brk,
        });
        Ok(())
    }

    /// A `switch`'s selector, promoted, with its type.
    pub(super) fn switch_selector(&mut self, sel: &Expr) -> LResult<(ValueId, Type)> {
        let (v, t) = self.rvalue(sel)?;
        let st = match t {
            Type::Scalar(s) if s.is_int() || s == Scalar::Bool => {
                Type::Scalar(super::expr::promote(s))
            }
            _ => {
                let ts = self.type_str(&t);
                return self.err(
                    sel.pos,
                    format!("statement requires expression of integer type ('{ts}' invalid)"),
                );
            }
        };
        let selector = self.convert(v, &t, &st, sel.pos, false)?;
        Ok((selector, st))
    }

    fn switch(&mut self, sel: &Expr, body: &Statement) -> LResult<()> {
        let (selector, st) = self.switch_selector(sel)?;
        let items: &[Statement] = match body {
            Statement::Block(items) => items,
            other => std::slice::from_ref(other),
        };
        self.cx().breakables.push(Breakable::Switch);
        self.push_scope();
        let r = (|| {
            let mut cases: Vec<SwitchCase> = Vec::new();
            let mut seen = Vec::new();
            let mut has_default = false;
            let mut failed = false;
            self.b().begin_block();
            for s in items {
                match s {
                    Statement::Case(_, pos) | Statement::Default(pos) => {
                        let label = match s {
                            Statement::Case(e, _) => Some(self.const_int(e)),
                            _ => None,
                        };
                        // Each label starts an IR case; consecutive labels give
                        // empty cases that fall through, which C means too.
                        let b = self.b().end_block();
                        let mut dead = Block::default();
                        match cases.last_mut() {
                            Some(last) => last.body = b,
                            None => {
                                if !b.0.is_empty() {
                                    self.diags.warning(*pos, "code before the first case label of a switch is never executed");
                                    dead = b;
                                }
                            }
                        }
                        self.b().begin_block();
                        self.keep_dead_code(dead);
                        cases.push(SwitchCase {
                            values: Vec::new(),
                            is_default: false,
                            body: Block::default(),
                        });
                        let case = cases.last_mut().ok_or(Reported)?;
                        match label {
                            Some(Ok(v)) => {
                                let v = truncate_to(v, &st);
                                if seen.contains(&v) {
                                    self.diags
                                        .error(*pos, format!("duplicate case value '{v}'"));
                                    failed = true;
                                }
                                seen.push(v);
                                case.values.push(v);
                            }
                            Some(Err(_)) => failed = true,
                            None => {
                                if has_default {
                                    self.diags
                                        .error(*pos, "multiple default labels in one switch");
                                    failed = true;
                                }
                                has_default = true;
                                case.is_default = true;
                            }
                        }
                    }
                    other => {
                        if self.stmt(other).is_err() {
                            failed = true;
                        }
                    }
                }
            }
            let b = self.b().end_block();
            match cases.last_mut() {
                Some(last) => last.body = b,
                None if !b.0.is_empty() => {
                    // No label at all: the body never runs.
                    self.b().begin_block();
                    self.keep_dead_code(b);
                    let body = self.b().end_block();
                    cases.push(SwitchCase {
                        values: Vec::new(),
                        is_default: true,
                        body,
                    });
                }
                None => {}
            }
            if failed {
                return Err(Reported);
            }
            self.b().stmt(Stmt::Switch { selector, cases });
            Ok(())
        })();
        self.pop_scope();
        self.cx().breakables.pop();
        r
    }

    /// Emits code that can never run (a switch body before its first label)
    /// under `if (false)`: its instructions must still be evaluated somewhere
    /// for the IR to be well formed, and a `break` in it stays inside the switch.
    fn keep_dead_code(&mut self, dead: Block) {
        if dead.0.is_empty() {
            return;
        }
        let never = self.b().const_bool(false);
        self.b().stmt(Stmt::If {
            cond: never,
            then_: dead,
            else_: Block::default(),
        });
    }

    fn local_decl(&mut self, d: &Decl) -> LResult<()> {
        let base = self.resolve_specs(&d.specs)?;
        for item in &d.items {
            let Some((name, npos)) = item.decl.name.clone() else {
                continue;
            };
            if matches!(item.decl.ops.last(), Some(DeclOp::Function(_))) {
                return self.err(
                    npos,
                    "function declarations inside functions are not supported",
                );
            }
            let ty = self.apply_declarator(base.clone(), &item.decl, d.specs.space)?;
            if d.specs.storage == Storage::Typedef {
                if let Some(s) = self.typedefs.last_mut() {
                    s.insert(name, ty);
                }
                continue;
            }
            if ty == Type::Void {
                return self.err(
                    npos,
                    format!("variable '{name}' has incomplete type 'void'"),
                );
            }
            let ty = self.complete_array_from_init(ty, item.init.as_ref(), npos)?;
            if let Type::Array(_, 0) = ty {
                return self.err(npos, format!("definition of variable '{name}' with array type needs an explicit size or an initializer"));
            }
            self.set_pos(npos);
            let explicit_space = Self::object_space(&d.specs, &item.decl);
            let space = explicit_space.unwrap_or(AddressSpace::Private);
            match space {
                AddressSpace::Local => {
                    if !self.cx().is_kernel {
                        return self.err(npos, format!("variable '{name}' in the __local address space can only be declared at kernel function scope"));
                    }
                    if item.init.is_some() {
                        return self.err(npos, format!("variable '{name}' in the __local address space cannot have an initializer"));
                    }
                    let id = GlobalId(self.module.globals.len() as u32);
                    let global_name = format!("{}.{name}", self.cx().name);
                    self.module.globals.push(Global {
                        name: global_name,
                        space: AddressSpace::Local,
                        ty: ty.clone(),
                        init: None,
                    });
                    self.declare(
                        name,
                        Sym::Global {
                            id,
                            ty,
                            is_const: d.specs.is_const,
                        },
                    );
                    continue;
                }
                AddressSpace::Constant => {
                    let Some(init) = &item.init else {
                        return self.err(npos, format!("variable '{name}' in the __constant address space must be initialized"));
                    };
                    let bytes = self.const_init_bytes(&ty, init)?;
                    let id = GlobalId(self.module.globals.len() as u32);
                    let global_name = format!("{}.{name}", self.cx().name);
                    self.module.globals.push(Global {
                        name: global_name,
                        space: AddressSpace::Constant,
                        ty: ty.clone(),
                        init: Some(bytes),
                    });
                    self.declare(
                        name,
                        Sym::Global {
                            id,
                            ty,
                            is_const: true,
                        },
                    );
                    continue;
                }
                AddressSpace::Global
                    if d.specs.storage != Storage::Static || self.opts.cl_std < 200 =>
                {
                    return self.err(npos, format!("function scope variable '{name}' cannot be declared in the __global address space (only a static one can, from OpenCL C 2.0)"));
                }
                _ => {}
            }
            if d.specs.storage == Storage::Static {
                // OpenCL C 2.0 6.5.1: a static variable lives in __global
                // (unqualified and not const) or __constant memory, once
                // for the program, initialised by a constant expression.
                let space = match explicit_space {
                    Some(AddressSpace::Global) => AddressSpace::Global,
                    _ if d.specs.is_const => AddressSpace::Constant,
                    _ if self.opts.cl_std >= 200 => AddressSpace::Global,
                    _ => {
                        return self.err(npos, format!("static local variable '{name}' must be const (it is placed in __constant memory; OpenCL C 2.0 places non-const ones in __global)"));
                    }
                };
                let bytes = match &item.init {
                    Some(i) => Some(self.const_init_bytes(&ty, i)?),
                    None => None,
                };
                let id = GlobalId(self.module.globals.len() as u32);
                let global_name = format!("{}.{name}", self.cx().name);
                self.module.globals.push(Global {
                    name: global_name,
                    space,
                    ty: ty.clone(),
                    init: bytes,
                });
                self.declare(
                    name,
                    Sym::Global {
                        id,
                        ty,
                        is_const: space == AddressSpace::Constant || d.specs.is_const,
                    },
                );
                continue;
            }
            let in_register = ty.is_value() && !self.cx().address_taken.contains(&name);
            let lv = if in_register {
                let var = self.b().new_var(name.clone(), ty.clone());
                LVal {
                    place: Place::Var(var),
                    ty: ty.clone(),
                    is_const: false,
                }
            } else {
                let slot = self.b().new_slot(name.clone(), ty.clone());
                let p = self.b().push(
                    Inst::SlotAddr(slot),
                    Type::ptr(AddressSpace::Private, ty.clone()),
                );
                self.declare(
                    name.clone(),
                    Sym::Slot {
                        id: slot,
                        ty: ty.clone(),
                        is_const: false,
                    },
                );
                LVal {
                    place: Place::Mem(p),
                    ty: ty.clone(),
                    is_const: false,
                }
            };
            // The initialiser sees the new name only after its declarator in
            // C, but `int x = x;` is meaningless anyway; declare after.
            if let Some(init) = &item.init {
                self.init_local(&lv, init, npos)?;
            } else if let Place::Var(_) = lv.place {
                let u = self.b().push(Inst::Undef, ty.clone());
                self.write(&lv, u);
            }
            if let Place::Var(id) = lv.place {
                self.declare(
                    name,
                    Sym::Var {
                        id,
                        ty,
                        is_const: Self::object_is_const(&d.specs, &item.decl),
                    },
                );
            } else if Self::object_is_const(&d.specs, &item.decl) {
                if let Some(Sym::Slot { id, ty, .. }) = self.lookup(&name) {
                    self.declare(
                        name,
                        Sym::Slot {
                            id,
                            ty,
                            is_const: true,
                        },
                    );
                }
            }
        }
        Ok(())
    }

    fn declare(&mut self, name: String, sym: Sym) {
        if let Some(s) = self.cx().scopes.last_mut() {
            s.insert(name, sym);
        }
    }

    pub(super) fn init_local(&mut self, lv: &LVal, init: &Init, pos: Pos) -> LResult<()> {
        // A scalar/vector/pointer from an expression.
        if let (Init::Expr(e), true) = (init, lv.ty.is_value()) {
            let (v, t) = self.rvalue(e)?;
            let v = self.assign_convert(v, &t, &lv.ty, e.pos, e)?;
            self.write(lv, v);
            return Ok(());
        }
        let Place::Mem(base) = lv.place else {
            // A register variable with `= { x }`.
            if let Init::List(items, _) = init {
                if let Some((_, Init::Expr(e))) = items.first() {
                    if let Type::Vector(s, n) = lv.ty {
                        let mut parts = Vec::new();
                        for (_, it) in items {
                            let Init::Expr(x) = it else {
                                return self.err(pos, "nested braces in a vector initializer");
                            };
                            let (v, t) = self.rvalue(x)?;
                            parts.push(self.convert(v, &t, &Type::Scalar(s), x.pos, false)?);
                        }
                        while parts.len() < usize::from(n) {
                            let z = self.zero(&Type::Scalar(s));
                            parts.push(z);
                        }
                        let v = self.b().push(Inst::Construct(parts), lv.ty.clone());
                        self.write(lv, v);
                        return Ok(());
                    }
                    let (v, t) = self.rvalue(e)?;
                    let v = self.assign_convert(v, &t, &lv.ty, e.pos, e)?;
                    self.write(lv, v);
                    return Ok(());
                }
            }
            return self.err(pos, "invalid initializer");
        };
        if let (Init::Expr(e), Type::Struct(_)) = (init, &lv.ty) {
            let src = self.lvalue(e)?;
            let Place::Mem(sp) = src.place else {
                return self.err(e.pos, "invalid struct initializer");
            };
            if src.ty != lv.ty {
                let (x, y) = (self.type_str(&lv.ty), self.type_str(&src.ty));
                return self.err(
                    e.pos,
                    format!("initializing '{x}' with an expression of incompatible type '{y}'"),
                );
            }
            let size = self.module.size_of(&lv.ty);
            let loc = to_loc(pos);
            self.b().stmt(Stmt::Copy {
                dst: base,
                src: sp,
                size,
                loc,
            });
            return Ok(());
        }
        let mut leaves = Vec::new();
        self.flatten_init(&lv.ty, init, 0, &mut leaves)?;
        // Zero what the list leaves out (C99 6.7.8p21).
        let mut all = Vec::new();
        self.all_leaves(&lv.ty, 0, &mut all);
        let covered: std::collections::HashSet<u32> = leaves.iter().map(|l| l.offset).collect();
        for (off, t) in all {
            if !covered.contains(&off) {
                // A pointer is zeroed as the 8 bytes of a null pointer: the
                // IR has no pointer constants.
                let t = if matches!(t, Type::Pointer(..)) {
                    Type::U64
                } else {
                    t
                };
                let p = self.byte_offset_ptr(base, off, &t);
                let z = self.zero(&t);
                self.b().store(p, z);
            }
        }
        for leaf in leaves {
            let e = leaf.expr;
            if let (Type::Array(elem, n), ExprKind::Str(s)) = (&leaf.ty, &e.kind) {
                for i in 0..*n {
                    let p = self.byte_offset_ptr(base, leaf.offset + i, elem);
                    let c = self.konst(elem, u64::from(s.get(i as usize).copied().unwrap_or(0)));
                    self.b().store(p, c);
                }
                continue;
            }
            if let Type::Struct(_) = leaf.ty {
                let src = self.lvalue(e)?;
                let Place::Mem(sp) = src.place else {
                    return self.err(e.pos, "invalid struct initializer");
                };
                let p = self.byte_offset_ptr(base, leaf.offset, &leaf.ty);
                let size = self.module.size_of(&leaf.ty);
                let loc = to_loc(e.pos);
                self.b().stmt(Stmt::Copy {
                    dst: p,
                    src: sp,
                    size,
                    loc,
                });
                continue;
            }
            let (v, t) = self.rvalue(e)?;
            let v = self.assign_convert(v, &t, &leaf.ty, e.pos, e)?;
            let p = self.byte_offset_ptr(base, leaf.offset, &leaf.ty);
            self.b().store(p, v);
        }
        Ok(())
    }

    /// A pointer `offset` bytes into the private object at `base`, typed `ty`.
    fn byte_offset_ptr(&mut self, base: ValueId, offset: u32, ty: &Type) -> ValueId {
        let space = self
            .b()
            .func()
            .ty(base)
            .address_space()
            .unwrap_or(AddressSpace::Private);
        let bytes = self.b().push(
            Inst::PtrCast(base),
            Type::ptr(space, Type::Scalar(Scalar::U8)),
        );
        let at = if offset == 0 {
            bytes
        } else {
            let o = self.b().const_i64(i64::from(offset));
            self.b().push(
                Inst::Index(bytes, o),
                Type::ptr(space, Type::Scalar(Scalar::U8)),
            )
        };
        self.b()
            .push(Inst::PtrCast(at), Type::ptr(space, ty.clone()))
    }
}

pub(super) fn truncate_to(v: i64, t: &Type) -> i64 {
    match t.scalar() {
        Some(Scalar::I32) => v as i32 as i64,
        Some(Scalar::U32) => v as u32 as i64,
        _ => v,
    }
}

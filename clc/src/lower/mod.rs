//! Lowering: the syntax tree → Kernel IR, with the semantic checks of
//! OpenCL C done on the way (types, conversions, lvalues, overloads).
//!
//! One pass over the translation unit: declarations resolve their types and
//! enter scopes, function bodies are lowered statement by statement through a
//! [`FunctionBuilder`]. Expressions are typed as they are lowered; the C type
//! of a value is its IR [`Type`] (C's `_Bool` and the result of a scalar
//! comparison are both IR `bool`, which promotes to `int` like C says).
//! Scalar, vector and pointer locals whose address is never taken become
//! register [`Var`]s; arrays, structs and address-taken
//! locals get private slots.
//!
//! Submodules: [`types`] resolves written types, [`expr`], [`access`] and
//! [`stmt`] lower code, [`consts`] evaluates constant expressions and initialisers,
//! [`calls`] lowers calls of builtins and user functions.

mod access;
mod calls;
mod consts;
mod expr;
mod goto;
pub(crate) mod images;
mod integer_ext;
mod stmt;
mod types;

use crate::ast::*;
use crate::diag::{Diags, Pos};
use crate::parser::Reported;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use vecl_ir::builder::FunctionBuilder;
use vecl_ir::*;

pub type LResult<T> = Result<T, Reported>;

/// Options that change how code is lowered.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// `-cl-std` as a number: 100, 110, 120, 200, 300.
    pub cl_std: u32,
    /// `FP_CONTRACT` is on (its default): `a * b + c` within one
    /// expression may be fused (see `expr.rs`).
    pub contract: bool,
    /// The unit is compiled to be linked later (`clCompileProgram`): a
    /// function called but not defined is an import another unit may
    /// define, not an error.
    pub separate: bool,
    /// `half` is an arithmetic type (`cl_khr_fp16` enabled by its pragma,
    /// or OpenCL C 3.0); otherwise only pointers to it are used. Where a
    /// position has a state in `fp16_scope`, that state decides instead.
    pub fp16: bool,
    /// Where pragmas enabled and disabled `cl_khr_fp16` (`None` when none
    /// did).
    pub fp16_scope: Option<std::sync::Arc<crate::preprocess::Fp16Scope>>,
}

/// What a name in scope refers to.
#[derive(Clone, Debug)]
enum Sym {
    Var {
        id: VarId,
        ty: Type,
        is_const: bool,
    },
    Slot {
        id: SlotId,
        ty: Type,
        is_const: bool,
    },
    Global {
        id: GlobalId,
        ty: Type,
        is_const: bool,
    },
    /// An object in memory at a pointer value defined at function entry
    /// (struct parameters passed by value).
    Mem {
        ptr: ValueId,
        ty: Type,
    },
    EnumConst(i64),
}

/// A user function's signature.
#[derive(Clone, Debug)]
struct FuncSig {
    id: FuncId,
    params: Vec<Type>,
    ret: Type,
    pos: Pos,
    defined: bool,
    is_kernel: bool,
    /// Declared `static`: private to the unit.
    internal: bool,
}

/// Where `break` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Breakable {
    Loop,
    Switch,
}

/// Per-function lowering state.
struct FnCx {
    b: FunctionBuilder,
    scopes: Vec<HashMap<String, Sym>>,
    ret: Type,
    name: String,
    is_kernel: bool,
    /// Names that appear under unary `&` somewhere in the body.
    address_taken: HashSet<String>,
    breakables: Vec<Breakable>,
    /// Functions this one calls (for the recursion check).
    calls: Vec<(FuncId, Pos)>,
    /// Where a struct result goes (the hidden last parameter).
    sret: Option<ValueId>,
    /// Inside `type_without_effects`: code is lowered only for its type
    /// and thrown away, so `&&`/`||` need not look ahead at their right
    /// operand's type (which would make nested chains exponential).
    types_only: u32,
    /// The function uses `goto` or labels: its body is built as a graph.
    goto_fn: bool,
    /// That graph, while statements are lowered into it (`goto.rs`).
    cfg: Option<goto::CfgCx>,
}

pub struct Lowerer<'d> {
    diags: &'d mut Diags,
    opts: LowerOptions,
    module: Module,
    /// Struct, union and enum tags (one namespace for the translation unit).
    tags: HashMap<String, Type>,
    /// File-scope names.
    globals: HashMap<String, Sym>,
    typedefs: Vec<HashMap<String, Type>>,
    funcs: HashMap<String, FuncSig>,
    /// `__constant` string literals already emitted, by content.
    strings: HashMap<Vec<u8>, GlobalId>,
    cx: Option<FnCx>,
    anon_structs: u32,
    /// Calls made by each lowered function, for the recursion check.
    call_graph: Vec<(FuncId, Vec<(FuncId, Pos)>)>,
    /// The linkage of program-scope variables; every other module-scope
    /// variable (function-scope data, string literals) is internal.
    global_linkage: HashMap<GlobalId, link::Linkage>,
}

impl<'d> Lowerer<'d> {
    pub fn new(diags: &'d mut Diags, opts: LowerOptions) -> Self {
        Lowerer {
            diags,
            opts,
            module: Module::default(),
            tags: HashMap::default(),
            globals: HashMap::default(),
            typedefs: vec![HashMap::default()],
            funcs: HashMap::default(),
            strings: HashMap::default(),
            cx: None,
            anon_structs: 0,
            call_graph: Vec::new(),
            global_linkage: HashMap::default(),
        }
    }

    fn err<T>(&mut self, pos: Pos, msg: impl Into<String>) -> LResult<T> {
        self.diags.error(pos, msg);
        Err(Reported)
    }

    fn cx(&mut self) -> &mut FnCx {
        self.cx.as_mut().expect("lowering code outside a function")
    }

    fn b(&mut self) -> &mut FunctionBuilder {
        &mut self.cx().b
    }

    /// Lowers a translation unit into a module, with the linkage of its
    /// functions and variables.
    pub fn lower(mut self, unit: &[External]) -> link::Unit {
        // Signatures first, so that functions may call ones defined later
        // when a prototype precedes the call.
        for ext in unit {
            if self.diags.too_many() {
                break;
            }
            match ext {
                External::Decl(d) => {
                    let _ = self.file_scope_decl(d);
                }
                External::Func(f) => {
                    if self
                        .declare_function(&f.specs, &f.decl, true, f.pos)
                        .is_ok()
                    {
                        let _ = self.function(f);
                    }
                }
            }
        }
        // A prototype without a definition is an error only when called
        // (and the unit is not compiled for a later link); the others get a
        // body that returns an unspecified value so the module stays well
        // formed, and are imports.
        let mut undefined: Vec<(FuncId, String)> = self
            .funcs
            .iter()
            .filter(|(_, s)| !s.defined)
            .map(|(n, s)| (s.id, n.clone()))
            .collect();
        undefined.sort();
        for (id, name) in undefined {
            let call = self
                .call_graph
                .iter()
                .flat_map(|(_, calls)| calls)
                .find(|(g, _)| *g == id)
                .map(|(_, p)| *p);
            if let Some(pos) = call.filter(|_| !self.opts.separate) {
                self.diags.error(
                    pos,
                    format!("function '{name}' is declared but never defined"),
                );
                continue;
            }
            let f = &mut self.module.functions[id.index()];
            if f.ret == Type::Void {
                f.body.0.push(Stmt::Return(None));
            } else {
                f.insts.push(InstData {
                    inst: Inst::Undef,
                    ty: f.ret.clone(),
                    loc: Loc::NONE,
                });
                let v = ValueId(f.insts.len() as u32 - 1);
                f.body.0.push(Stmt::Eval(v));
                f.body.0.push(Stmt::Return(Some(v)));
            }
        }
        self.check_recursion();
        images::finish(&mut self.module, self.diags);
        let mut functions = vec![link::Linkage::Export; self.module.functions.len()];
        for sig in self.funcs.values() {
            functions[sig.id.index()] = match (sig.defined, sig.internal) {
                (false, _) => link::Linkage::Import,
                (true, true) => link::Linkage::Internal,
                (true, false) => link::Linkage::Export,
            };
        }
        let globals = (0..self.module.globals.len())
            .map(|i| {
                let id = GlobalId(i as u32);
                let linkage = self.global_linkage.get(&id);
                linkage.copied().unwrap_or(link::Linkage::Internal)
            })
            .collect();
        link::Unit {
            module: self.module,
            functions,
            globals,
        }
    }

    fn file_scope_decl(&mut self, d: &Decl) -> LResult<()> {
        let base = self.resolve_specs(&d.specs)?;
        for item in &d.items {
            if matches!(item.decl.ops.last(), Some(DeclOp::Function(_))) {
                self.declare_function(&d.specs, &item.decl, false, d.pos)?;
                continue;
            }
            let Some((name, npos)) = item.decl.name.clone() else {
                continue;
            };
            let ty = self.apply_declarator(base.clone(), &item.decl, d.specs.space)?;
            if d.specs.storage == Storage::Typedef {
                if let Some(s) = self.typedefs.last_mut() {
                    s.insert(name, ty);
                }
                continue;
            }
            let space = Self::object_space(&d.specs, &item.decl).unwrap_or(AddressSpace::Private);
            // OpenCL C 1.2: program-scope data is __constant (const data
            // without a qualifier is taken as __constant too); 2.0 adds
            // __global variables, the default for unqualified ones.
            let cl2 = self.opts.cl_std >= 200;
            let space = match space {
                AddressSpace::Constant => AddressSpace::Constant,
                AddressSpace::Global if cl2 => AddressSpace::Global,
                AddressSpace::Private if d.specs.is_const => AddressSpace::Constant,
                AddressSpace::Private if cl2 => AddressSpace::Global,
                _ => {
                    let what = if cl2 {
                        "the __constant or __global"
                    } else {
                        "the __constant"
                    };
                    return self.err(npos, format!("program scope variable '{name}' must be declared in {what} address space"));
                }
            };
            let ty = self.complete_array_from_init(ty, item.init.as_ref(), npos)?;
            if space == AddressSpace::Constant
                && item.init.is_none()
                && d.specs.storage != Storage::Extern
            {
                return self.err(
                    npos,
                    format!(
                        "variable '{name}' in the __constant address space must be initialized"
                    ),
                );
            }
            let init = match &item.init {
                Some(i) => Some(self.const_init_bytes(&ty, i)?),
                None => None,
            };
            let id = GlobalId(self.module.globals.len() as u32);
            let linkage = match d.specs.storage {
                Storage::Static => link::Linkage::Internal,
                Storage::Extern if init.is_none() => link::Linkage::Import,
                _ => link::Linkage::Export,
            };
            self.global_linkage.insert(id, linkage);
            self.module.globals.push(Global {
                name: name.clone(),
                space,
                ty: ty.clone(),
                init,
            });
            self.globals.insert(
                name,
                Sym::Global {
                    id,
                    ty,
                    is_const: space == AddressSpace::Constant || d.specs.is_const,
                },
            );
        }
        Ok(())
    }

    /// Enters a function's signature (prototype or definition) and returns its id.
    fn declare_function(
        &mut self,
        specs: &DeclSpecs,
        decl: &Declarator,
        defining: bool,
        pos: Pos,
    ) -> LResult<FuncId> {
        let Some((name, npos)) = decl.name.clone() else {
            return self.err(pos, "function without a name");
        };
        let Some(DeclOp::Function(params)) = decl.ops.last() else {
            return self.err(npos, "expected a function declarator");
        };
        let base = self.resolve_specs(specs)?;
        let ret_decl = Declarator {
            name: None,
            ops: decl.ops[..decl.ops.len() - 1].to_vec(),
            attrs: Vec::new(),
        };
        let ret = self.apply_declarator(base, &ret_decl, None)?;
        if specs.kernel && ret != Type::Void {
            return self.err(
                npos,
                format!("kernel function '{name}' must have a void return type"),
            );
        }
        if matches!(ret, Type::Array(..)) {
            return self.err(npos, "function cannot return array type");
        }
        let mut ptys = Vec::new();
        let mut ir_params = Vec::new();
        for p in params {
            let ty = self.param_type(p, specs.kernel)?;
            let byval = matches!(ty, Type::Struct(_));
            let pname = p.decl.name.clone().map(|n| n.0).unwrap_or_default();
            ptys.push(ty.clone());
            let ir_ty = if byval {
                Type::ptr(AddressSpace::Private, ty)
            } else {
                ty
            };
            ir_params.push(Param {
                name: pname,
                ty: ir_ty,
                byval,
            });
        }
        // A struct result is written through a hidden last parameter that
        // points at the caller's object; the IR function returns void.
        let ir_ret = if let Type::Struct(_) = ret {
            ir_params.push(Param {
                name: ".result".into(),
                ty: Type::ptr(AddressSpace::Private, ret.clone()),
                byval: false,
            });
            Type::Void
        } else {
            ret.clone()
        };
        if let Some(old) = self.funcs.get(&name).cloned() {
            if old.params != ptys || old.ret != ret {
                return self.err(npos, format!("conflicting types for '{name}'"));
            }
            if defining && old.defined {
                return self.err(npos, format!("redefinition of '{name}'"));
            }
            if let Some(f) = self.funcs.get_mut(&name) {
                f.internal |= specs.storage == Storage::Static;
            }
            if defining {
                if let Some(f) = self.funcs.get_mut(&name) {
                    f.defined = true;
                    f.pos = npos;
                }
                self.module.functions[old.id.index()].params = ir_params;
            }
            return Ok(old.id);
        }
        if specs.kernel && self.opts.cl_std < 200 && name == "main" {
            return self.err(npos, "kernel cannot be called 'main'");
        }
        let id = FuncId(self.module.functions.len() as u32);
        self.module
            .functions
            .push(Function::new(name.clone(), ir_params, ir_ret));
        self.funcs.insert(
            name,
            FuncSig {
                id,
                params: ptys,
                ret,
                pos: npos,
                defined: defining,
                is_kernel: specs.kernel,
                internal: specs.storage == Storage::Static,
            },
        );
        Ok(id)
    }

    fn param_type(&mut self, p: &ParamDecl, kernel: bool) -> LResult<Type> {
        let base = self.resolve_specs(&p.specs)?;
        let mut ty = self.apply_declarator(base, &p.decl, p.specs.space)?;
        // Array parameters are pointers.
        if let Type::Array(elem, _) = ty {
            ty = Type::ptr(p.specs.space.unwrap_or(AddressSpace::Private), *elem);
        }
        if ty == Type::Void {
            return self.err(p.pos, "parameter has incomplete type 'void'");
        }
        if kernel {
            if let Type::Pointer(AddressSpace::Private, _) = ty {
                return self.err(p.pos, "pointer arguments to kernel functions must reside in '__global', '__constant', or '__local' address space");
            }
            if ty.scalar() == Some(Scalar::Bool)
                || matches!(ty, Type::Scalar(Scalar::U64) if p.specs.written == "size_t")
            {
                let what = if ty.scalar() == Some(Scalar::Bool) {
                    "bool"
                } else {
                    "size_t"
                };
                return self.err(
                    p.pos,
                    format!("'{what}' cannot be used as the type of a kernel parameter"),
                );
            }
        }
        Ok(ty)
    }

    fn function(&mut self, f: &FuncDef) -> LResult<()> {
        let Some((name, _)) = f.decl.name.clone() else {
            return Ok(());
        };
        let Some(sig) = self.funcs.get(&name).cloned() else {
            return Ok(());
        };
        let Some(DeclOp::Function(params)) = f.decl.ops.last() else {
            return Ok(());
        };
        let ir_params = self.module.functions[sig.id.index()].params.clone();
        let ir_ret = self.module.functions[sig.id.index()].ret.clone();
        let mut b = FunctionBuilder::new(name.clone(), ir_params.clone(), ir_ret);
        if f.specs.kernel {
            let info = self.kernel_info(f, params, &sig)?;
            b.func_mut().kernel = Some(info);
        }
        let mut address_taken = HashSet::default();
        for s in &f.body {
            collect_address_taken_stmt(s, &mut address_taken);
        }
        self.cx = Some(FnCx {
            b,
            scopes: vec![HashMap::default()],
            ret: sig.ret.clone(),
            name: name.clone(),
            is_kernel: f.specs.kernel,
            address_taken,
            breakables: Vec::new(),
            calls: Vec::new(),
            sret: None,
            types_only: 0,
            goto_fn: goto::uses_goto(&f.body),
            cfg: None,
        });
        if matches!(sig.ret, Type::Struct(_)) {
            let v = self.b().param(ir_params.len() as u32 - 1);
            self.cx().sret = Some(v);
        }
        // Parameters: values become variables (they may be assigned), struct
        // parameters stay in the memory the caller provides.
        for (i, (p, ty)) in params.iter().zip(&sig.params).enumerate() {
            let Some((pname, ppos)) = p.decl.name.clone() else {
                continue;
            };
            let loc = to_loc(ppos);
            self.b().set_loc(loc);
            let v = self.b().param(i as u32);
            let sym = if ir_params[i].byval {
                Sym::Mem {
                    ptr: v,
                    ty: ty.clone(),
                }
            } else if self.cx().address_taken.contains(&pname) {
                let slot = self.b().new_slot(pname.clone(), ty.clone());
                let addr = self.b().push(
                    Inst::SlotAddr(slot),
                    Type::ptr(AddressSpace::Private, ty.clone()),
                );
                self.b().store(addr, v);
                Sym::Slot {
                    id: slot,
                    ty: ty.clone(),
                    is_const: Self::object_is_const(&p.specs, &p.decl),
                }
            } else {
                let var = self.b().new_var(pname.clone(), ty.clone());
                self.b().stmt(Stmt::WriteVar(var, v));
                Sym::Var {
                    id: var,
                    ty: ty.clone(),
                    is_const: Self::object_is_const(&p.specs, &p.decl),
                }
            };
            self.cx().scopes[0].insert(pname, sym);
        }
        let errors_before = self.diags.error_count();
        if self.cx().goto_fn {
            self.begin_cfg();
        }
        let mut ok = true;
        for s in &f.body {
            if self.diags.too_many() {
                break;
            }
            if self.stmt(s).is_err() {
                ok = false;
            }
        }
        let graph = if self.cx().goto_fn {
            self.end_cfg(f.end)
        } else {
            None
        };
        let Some(cx) = self.cx.take() else {
            return Ok(());
        };
        let mut func = cx.b.finish();
        if let Some((cfg, pos)) = graph {
            if self.diags.error_count() == errors_before {
                self.structure(&mut func, cfg, &pos, f.pos);
            }
        } else if func.ret != Type::Void && !ends_in_return(&func.body) {
            // Falling off the end of a non-void function: the value is unspecified.
            let ty = func.ret.clone();
            let id = ValueId(func.insts.len() as u32);
            func.insts.push(InstData {
                inst: Inst::Undef,
                ty,
                loc: to_loc(f.end),
            });
            func.body.0.push(Stmt::Eval(id));
            func.body.0.push(Stmt::Return(Some(id)));
        }
        let _ = ok;
        self.call_graph.push((sig.id, cx.calls));
        func.kernel = func.kernel.take();
        self.module.functions[sig.id.index()] = func;
        Ok(())
    }

    fn check_recursion(&mut self) {
        let n = self.module.functions.len();
        let mut edges: Vec<Vec<(FuncId, Pos)>> = vec![Vec::new(); n];
        for (f, calls) in &self.call_graph {
            edges[f.index()] = calls.clone();
        }
        // Depth-first search for a back edge.
        let mut state = vec![0u8; n];
        fn visit(
            f: usize,
            edges: &[Vec<(FuncId, Pos)>],
            state: &mut [u8],
            found: &mut Option<(usize, Pos)>,
        ) {
            state[f] = 1;
            for (g, pos) in &edges[f] {
                if found.is_some() {
                    return;
                }
                match state[g.index()] {
                    1 => *found = Some((g.index(), *pos)),
                    0 => visit(g.index(), edges, state, found),
                    _ => {}
                }
            }
            state[f] = 2;
        }
        for f in 0..n {
            if state[f] == 0 {
                let mut found = None;
                visit(f, &edges, &mut state, &mut found);
                if let Some((g, pos)) = found {
                    let name = self.module.functions[g].name.clone();
                    self.diags.error(
                        pos,
                        format!("recursive call of '{name}': recursion is not allowed in OpenCL C"),
                    );
                    return;
                }
            }
        }
    }

    fn kernel_info(
        &mut self,
        f: &FuncDef,
        params: &[ParamDecl],
        sig: &FuncSig,
    ) -> LResult<KernelInfo> {
        let mut info = KernelInfo::default();
        for (p, ty) in params.iter().zip(&sig.params) {
            let (address, pointee_quals) = match ty {
                Type::Pointer(space, _) => (*space, true),
                _ => (AddressSpace::Private, false),
            };
            let mut type_name = p.specs.written.clone();
            let mut qualifiers = TypeQualifiers::default();
            for op in &p.decl.ops {
                match op {
                    DeclOp::Pointer {
                        is_restrict,
                        is_volatile,
                        ..
                    } => {
                        type_name.push('*');
                        qualifiers.is_restrict |= *is_restrict;
                        let _ = is_volatile;
                    }
                    DeclOp::Array(_) => type_name.push('*'),
                    DeclOp::Function(_) => {}
                }
            }
            if pointee_quals {
                qualifiers.is_const = p.specs.is_const || address == AddressSpace::Constant;
                qualifiers.is_volatile = p.specs.is_volatile;
            }
            info.args.push(ArgInfo {
                type_name,
                address,
                access: p.specs.access,
                qualifiers,
            });
        }
        for a in f.specs.attrs.iter().chain(&f.decl.attrs) {
            match a.name.as_str() {
                "reqd_work_group_size" | "work_group_size_hint" => {
                    let mut v = [1u32; 3];
                    if a.args.len() != 3 {
                        return self.err(
                            a.pos,
                            format!("'{}' attribute requires exactly 3 arguments", a.name),
                        );
                    }
                    for (i, e) in a.args.iter().enumerate() {
                        match self.const_int(e) {
                            Ok(x) if x > 0 && x <= u32::MAX as i64 => v[i] = x as u32,
                            Ok(_) => {
                                return self.err(
                                    e.pos,
                                    format!("'{}' attribute requires positive values", a.name),
                                )
                            }
                            Err(r) => return Err(r),
                        }
                    }
                    if a.name == "reqd_work_group_size" {
                        info.reqd_work_group_size = Some(v);
                    } else {
                        info.work_group_size_hint = Some(v);
                    }
                }
                "intel_reqd_sub_group_size" => {
                    let [arg] = a.args.as_slice() else {
                        return self.err(
                            a.pos,
                            "'intel_reqd_sub_group_size' attribute requires exactly 1 argument",
                        );
                    };
                    let n = self.const_int(arg)?;
                    // A sub-group is one SIMD chunk, and the JIT makes
                    // chunks of 4·k work-items up to 64.
                    if !(4..=64).contains(&n) || n % 4 != 0 {
                        return self.err(
                            arg.pos,
                            format!(
                                "sub-group size {n} is not available: vecl's sub-groups are SIMD \
                                 chunks of 4, 8, 12, … 64 work-items"
                            ),
                        );
                    }
                    info.reqd_sub_group_size = Some(n as u32);
                }
                "vec_type_hint" => {
                    if let Some(tn) = &a.type_arg {
                        let t = self.resolve_type_name(tn)?;
                        if t.scalar().is_none_or(|s| s == Scalar::Bool) {
                            return self.err(a.pos, "invalid type in 'vec_type_hint' attribute");
                        }
                        info.vec_type_hint = Some(t);
                    }
                }
                _ => {}
            }
        }
        Ok(info)
    }
}

fn ends_in_return(b: &Block) -> bool {
    matches!(b.0.last(), Some(Stmt::Return(_)))
}

pub fn to_loc(p: Pos) -> Loc {
    Loc {
        line: p.line,
        col: p.col,
    }
}

fn collect_address_taken_stmt(s: &Statement, out: &mut HashSet<String>) {
    let mut e = |x: &Expr| collect_address_taken(x, out);
    match s {
        Statement::Expr(x) => e(x),
        Statement::Decl(d) => {
            for it in &d.items {
                if let Some(i) = &it.init {
                    collect_init(i, out);
                }
            }
        }
        Statement::Block(b) => b.iter().for_each(|s| collect_address_taken_stmt(s, out)),
        Statement::If(c, t, el) => {
            collect_address_taken(c, out);
            collect_address_taken_stmt(t, out);
            if let Some(el) = el {
                collect_address_taken_stmt(el, out);
            }
        }
        Statement::While(c, b) | Statement::DoWhile(b, c) | Statement::Switch(c, b) => {
            collect_address_taken(c, out);
            collect_address_taken_stmt(b, out);
        }
        Statement::For(i, c, st, b) => {
            if let Some(i) = i {
                collect_address_taken_stmt(i, out);
            }
            for x in [c, st].into_iter().flatten() {
                collect_address_taken(x, out);
            }
            collect_address_taken_stmt(b, out);
        }
        Statement::Return(Some(x), _) => e(x),
        Statement::Label(_, _, s) => collect_address_taken_stmt(s, out),
        _ => {}
    }
}

fn collect_init(i: &Init, out: &mut HashSet<String>) {
    match i {
        Init::Expr(x) => collect_address_taken(x, out),
        Init::List(items, _) => items.iter().for_each(|(_, i)| collect_init(i, out)),
    }
}

fn collect_address_taken(e: &Expr, out: &mut HashSet<String>) {
    use ExprKind::*;
    match &e.kind {
        Unary(UnOp::AddrOf, inner) => {
            let mut base = inner.as_ref();
            // `&v.x` takes the address of `v`.
            while let Member(b, _, false) = &base.kind {
                base = b;
            }
            if let Ident(n) = &base.kind {
                out.insert(n.to_string());
            }
            collect_address_taken(inner, out);
        }
        Unary(_, a) | Cast(_, a) | SizeofExpr(a) | VecStepExpr(a) | Member(a, _, _) => {
            collect_address_taken(a, out)
        }
        Binary(_, a, b) | Assign(_, a, b) | Index(a, b) | Comma(a, b) => {
            collect_address_taken(a, out);
            collect_address_taken(b, out);
        }
        Cond(a, b, c) => {
            collect_address_taken(a, out);
            collect_address_taken(b, out);
            collect_address_taken(c, out);
        }
        Call(_, args) | VecLit(_, args) => args.iter().for_each(|a| collect_address_taken(a, out)),
        CompoundLit(_, init) => collect_init(init, out),
        StmtExpr(items) => items
            .iter()
            .for_each(|s| collect_address_taken_stmt(s, out)),
        _ => {}
    }
}

//! Linking: merging the modules of separately compiled units into one.
//!
//! `clCompileProgram` gives each translation unit its own [`Module`], with
//! its own options already applied. A [`Unit`] adds what linking needs: the
//! [`Linkage`] of each function and module-scope variable. [`link`] merges
//! units into one: an `Import` resolves to the `Export` of the same name in
//! another unit, `Internal` items stay private to their unit (renamed when
//! their name is taken), and struct types are matched by structure, since
//! every unit declares its own (`struct S` written in two units is one type
//! when the two agree field for field).
//!
//! Integer types that differ only in their sign are one type to the
//! linker, as in LLVM IR and SPIR-V, whose integers are signless: a SPIR-V
//! unit (whose integers are the IR's unsigned types) calls an OpenCL C
//! `int f(int)`, and the other way round. Such an import resolves through
//! a small internal function of the importer's signature that reinterprets
//! the arguments and the result (`bitcast`, free in the JIT); a variable
//! declared with the other sign is reached through its address cast to the
//! declared pointer type.
//!
//! Linking a library keeps unresolved imports; [`Unit::executable`] is the
//! last step of a program's link and refuses a unit that still uses one.
//! Errors name the symbol and are collected, not stopped at the first.

use std::collections::{HashMap, HashSet};

use crate::module::*;
use crate::types::{Scalar, StructDef, StructId, Type};

/// How a function or module-scope variable of a unit is seen by other units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// Defined in this unit and visible to the others (kernels, functions
    /// and program-scope variables that are not `static`).
    Export,
    /// Defined in this unit and private to it (`static` functions and
    /// variables, function-scope data, string literals).
    Internal,
    /// Declared in this unit and defined in another (a prototype, an
    /// `extern` variable). The module holds a placeholder of the right
    /// type: a body that returns an unspecified value, a variable with no
    /// initialiser.
    Import,
    /// Defined in this unit and visible to the others, and possibly
    /// defined alike in others (SPIR-V's `LinkOnceODR`): the first
    /// definition is kept, the others must have its type.
    LinkOnce,
}

impl Linkage {
    fn letter(self) -> char {
        match self {
            Linkage::Export => 'e',
            Linkage::Internal => 'i',
            Linkage::Import => 'u',
            Linkage::LinkOnce => 'o',
        }
    }

    fn from_letter(c: char) -> Option<Linkage> {
        Some(match c {
            'e' => Linkage::Export,
            'i' => Linkage::Internal,
            'u' => Linkage::Import,
            'o' => Linkage::LinkOnce,
            _ => return None,
        })
    }
}

/// A compiled unit: its module and the linkage of its items.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unit {
    pub module: Module,
    /// One per [`Module::functions`], in order.
    pub functions: Vec<Linkage>,
    /// One per [`Module::globals`], in order.
    pub globals: Vec<Linkage>,
}

/// Why units do not link.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// A function or variable is used but no unit defines it.
    #[error("undefined reference to {kind} '{name}'")]
    Undefined { kind: &'static str, name: String },
    /// Two units define the same external function or variable.
    #[error("{kind} '{name}' is defined in more than one program")]
    Duplicate { kind: &'static str, name: String },
    /// A declaration and the definition disagree on the type.
    #[error("conflicting types for {kind} '{name}' in the programs linked")]
    Conflicting { kind: &'static str, name: String },
    /// Functions of different units call each other in a cycle.
    #[error("recursive call of '{name}' across the programs linked: recursion is not allowed in OpenCL C")]
    Recursion { name: String },
    /// The unit's linkage table does not fit its module.
    #[error("malformed unit: {0}")]
    Malformed(String),
}

impl Unit {
    /// A unit whose items are all exported: a module built as one
    /// translation unit.
    pub fn exporting_all(module: Module) -> Unit {
        Unit {
            functions: vec![Linkage::Export; module.functions.len()],
            globals: vec![Linkage::Export; module.globals.len()],
            module,
        }
    }

    fn check(&self) -> Result<(), LinkError> {
        if self.functions.len() != self.module.functions.len()
            || self.globals.len() != self.module.globals.len()
        {
            return Err(LinkError::Malformed(
                "the linkage table does not match the module".into(),
            ));
        }
        Ok(())
    }

    /// The linkage table as text: `fn ` and one letter per function
    /// (`e` export, `i` internal, `u` import), then a `global ` line alike.
    /// [`Unit::from_parts`] reads it back.
    pub fn linkage_text(&self) -> String {
        let letters = |l: &[Linkage]| l.iter().map(|l| l.letter()).collect::<String>();
        format!(
            "fn {}\nglobal {}\n",
            letters(&self.functions),
            letters(&self.globals)
        )
    }

    /// A unit from a module and its [`Unit::linkage_text`].
    pub fn from_parts(module: Module, linkage: &str) -> Result<Unit, LinkError> {
        let bad = |why: &str| LinkError::Malformed(why.to_string());
        let mut lines = linkage.lines();
        let mut table = |kind: &str| -> Result<Vec<Linkage>, LinkError> {
            let line = lines.next().ok_or_else(|| bad("truncated linkage table"))?;
            let letters = line
                .strip_prefix(kind)
                .and_then(|l| l.strip_prefix(' '))
                .ok_or_else(|| bad("malformed linkage table"))?;
            letters
                .chars()
                .map(|c| Linkage::from_letter(c).ok_or_else(|| bad("unknown linkage")))
                .collect()
        };
        let functions = table("fn")?;
        let globals = table("global")?;
        if lines.next().is_some() {
            return Err(bad("trailing text after the linkage table"));
        }
        let unit = Unit {
            module,
            functions,
            globals,
        };
        unit.check()?;
        Ok(unit)
    }

    /// The module of a fully linked program. An import nothing uses is
    /// harmless (its placeholder stays); one that is used is an error.
    pub fn executable(self) -> Result<Module, Vec<LinkError>> {
        self.check().map_err(|e| vec![e])?;
        let m = &self.module;
        let mut used_funcs = HashSet::new();
        let mut used_globals = HashSet::new();
        for f in &m.functions {
            for d in &f.insts {
                match d.inst {
                    Inst::Call(id, _) => {
                        used_funcs.insert(id);
                    }
                    Inst::GlobalAddr(id) => {
                        used_globals.insert(id);
                    }
                    _ => {}
                }
            }
        }
        let mut errors = Vec::new();
        for (i, l) in self.functions.iter().enumerate() {
            if *l == Linkage::Import && used_funcs.contains(&FuncId(i as u32)) {
                errors.push(LinkError::Undefined {
                    kind: "function",
                    name: m.functions[i].name.clone(),
                });
            }
        }
        for (i, l) in self.globals.iter().enumerate() {
            if *l == Linkage::Import && used_globals.contains(&GlobalId(i as u32)) {
                errors.push(LinkError::Undefined {
                    kind: "variable",
                    name: m.globals[i].name.clone(),
                });
            }
        }
        if errors.is_empty() {
            Ok(self.module)
        } else {
            Err(errors)
        }
    }
}

/// Merges `units` into one. Imports resolve to the export of the same name;
/// unresolved ones stay imports of the result (a library may leave them
/// for a later link). The math flags of the result are those every unit
/// grants (a consumer may always ignore one).
pub fn link(units: &[Unit]) -> Result<Unit, Vec<LinkError>> {
    for u in units {
        u.check().map_err(|e| vec![e])?;
    }
    let mut errors = Vec::new();
    let mut out = Unit::default();
    out.module.math = units.first().map(|u| u.module.math).unwrap_or_default();
    for u in units.iter().skip(1) {
        out.module.math = intersect(out.module.math, u.module.math);
    }

    let struct_maps: Vec<Vec<StructId>> = units
        .iter()
        .map(|u| merge_structs(&mut out.module.structs, &u.module.structs))
        .collect();

    // Every item's place in the result: definitions first, in unit order,
    // then one placeholder per name imported but defined nowhere.
    let mut funcs = place_items(
        units,
        |u| u.module.functions.iter().map(|f| f.name.as_str()).collect(),
        |u| &u.functions,
        "function",
        &mut errors,
    );
    let globals = place_items(
        units,
        |u| u.module.globals.iter().map(|g| g.name.as_str()).collect(),
        |u| &u.globals,
        "variable",
        &mut errors,
    );
    let thunks = signless_thunks(units, &struct_maps, &mut funcs);
    out.functions = funcs.linkage.clone();
    out.globals = globals.linkage.clone();

    let mut new_funcs: Vec<Option<Function>> = vec![None; funcs.linkage.len()];
    let mut new_globals: Vec<Option<Global>> = vec![None; globals.linkage.len()];
    // Definitions first, so that an import meets the definition it must
    // agree with, or becomes the placeholder of a name defined nowhere.
    for imports in [false, true] {
        for (ui, u) in units.iter().enumerate() {
            let smap = &struct_maps[ui];
            let ty = |t: &Type| remap_type(t, smap);
            for (gi, g) in u.module.globals.iter().enumerate() {
                if (u.globals[gi] == Linkage::Import) != imports {
                    continue;
                }
                let at = globals.map[ui][gi];
                let mut g = g.clone();
                g.ty = ty(&g.ty);
                g.name = globals.names[at].clone();
                match &new_globals[at] {
                    Some(def) => {
                        if def.ty != g.ty
                            && !array_completes(&g.ty, &def.ty)
                            && !same_but_sign(&g.ty, &def.ty)
                        {
                            errors.push(LinkError::Conflicting {
                                kind: "variable",
                                name: g.name.clone(),
                            });
                        }
                    }
                    None => new_globals[at] = Some(g),
                }
            }
            for (fi, f) in u.module.functions.iter().enumerate() {
                if (u.functions[fi] == Linkage::Import) != imports {
                    continue;
                }
                let at = funcs.map[ui][fi];
                if thunks.iter().any(|t| t.at == at) {
                    continue;
                }
                let mut f = f.clone();
                for p in &mut f.params {
                    p.ty = ty(&p.ty);
                }
                f.ret = ty(&f.ret);
                f.name = funcs.names[at].clone();
                if let Some(def) = &new_funcs[at] {
                    let same = def.ret == f.ret
                        && def.params.len() == f.params.len()
                        && def.params.iter().zip(&f.params).all(|(a, b)| a.ty == b.ty);
                    if !same {
                        errors.push(LinkError::Conflicting {
                            kind: "function",
                            name: f.name.clone(),
                        });
                    }
                    continue;
                }
                for v in &mut f.vars {
                    v.ty = ty(&v.ty);
                }
                for s in &mut f.slots {
                    s.ty = ty(&s.ty);
                }
                if let Some(k) = f.kernel.as_mut() {
                    k.vec_type_hint = k.vec_type_hint.as_ref().map(ty);
                }
                for d in &mut f.insts {
                    d.ty = ty(&d.ty);
                    match &mut d.inst {
                        Inst::Call(id, _) => {
                            if let Some(&to) = funcs.map[ui].get(id.index()) {
                                *id = FuncId(to as u32);
                            }
                        }
                        Inst::GlobalAddr(id) => {
                            if let Some(&to) = globals.map[ui].get(id.index()) {
                                *id = GlobalId(to as u32);
                            }
                        }
                        _ => {}
                    }
                }
                new_funcs[at] = Some(f);
            }
        }
    }
    for t in &thunks {
        new_funcs[t.at] = Some(thunk(t));
    }
    // A variable declared with integers of the other sign: its users see
    // the address as they declared it.
    reinterpret_global_addresses(&mut new_funcs, &new_globals);
    // The addresses in the initial data of the definitions.
    for (ui, u) in units.iter().enumerate() {
        for r in &u.module.relocs {
            if u.globals.get(r.global.index()) == Some(&Linkage::Import) {
                continue;
            }
            let map = |id: GlobalId| {
                globals.map[ui]
                    .get(id.index())
                    .map(|&to| GlobalId(to as u32))
            };
            if let (Some(global), Some(target)) = (map(r.global), map(r.target)) {
                out.module.relocs.push(Reloc {
                    global,
                    target,
                    ..*r
                });
            }
        }
    }
    // Every slot was filled: each place has at least the item it was made for.
    out.module.functions = new_funcs.into_iter().flatten().collect();
    out.module.globals = new_globals.into_iter().flatten().collect();
    if out.module.functions.len() != out.functions.len()
        || out.module.globals.len() != out.globals.len()
    {
        errors.push(LinkError::Malformed("an item was lost in the merge".into()));
    }
    if let Some(name) = recursive_function(&out.module) {
        errors.push(LinkError::Recursion { name });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The flags both sets grant.
fn intersect(a: MathFlags, b: MathFlags) -> MathFlags {
    MathFlags {
        mad_enable: a.mad_enable && b.mad_enable,
        no_signed_zeros: a.no_signed_zeros && b.no_signed_zeros,
        unsafe_math: a.unsafe_math && b.unsafe_math,
        finite_math_only: a.finite_math_only && b.finite_math_only,
        fast_relaxed_math: a.fast_relaxed_math && b.fast_relaxed_math,
        denorms_are_zero: a.denorms_are_zero && b.denorms_are_zero,
    }
}

/// Whether `a` and `b` are the same type but for the sign of integers
/// (of the same width), here or behind pointers.
fn same_but_sign(a: &Type, b: &Type) -> bool {
    let scalar =
        |x: &Scalar, y: &Scalar| x == y || (x.is_int() && y.is_int() && x.size() == y.size());
    match (a, b) {
        (Type::Scalar(x), Type::Scalar(y)) => scalar(x, y),
        (Type::Vector(x, n), Type::Vector(y, m)) => n == m && scalar(x, y),
        (Type::Pointer(s, p), Type::Pointer(t, q)) => s == t && same_but_sign(p, q),
        _ => a == b,
    }
}

/// An import that resolves to a definition of the same signature but for
/// the sign of integers: the importer calls a function of its own
/// signature (placed at `at`) that calls the definition (at `target`).
struct Thunk {
    at: usize,
    target: usize,
    name: String,
    params: Vec<Param>,
    ret: Type,
    def_params: Vec<Type>,
    def_ret: Type,
}

/// Finds the imports that need a [`Thunk`], gives each its place (an
/// internal function) and points the importer's calls there.
fn signless_thunks(
    units: &[Unit],
    struct_maps: &[Vec<StructId>],
    funcs: &mut Placement,
) -> Vec<Thunk> {
    let mut defs: HashMap<usize, (usize, usize)> = HashMap::new();
    for (ui, u) in units.iter().enumerate() {
        for (fi, l) in u.functions.iter().enumerate() {
            if matches!(l, Linkage::Export | Linkage::LinkOnce) {
                defs.entry(funcs.map[ui][fi]).or_insert((ui, fi));
            }
        }
    }
    let mut thunks = Vec::new();
    for (ui, u) in units.iter().enumerate() {
        for (fi, l) in u.functions.iter().enumerate() {
            let target = funcs.map[ui][fi];
            let Some(&(du, df)) = defs.get(&target).filter(|_| *l == Linkage::Import) else {
                continue;
            };
            let f = &u.module.functions[fi];
            let def = &units[du].module.functions[df];
            let ty = |t: &Type| remap_type(t, &struct_maps[ui]);
            let def_ty = |t: &Type| remap_type(t, &struct_maps[du]);
            let params: Vec<Param> = f
                .params
                .iter()
                .map(|p| Param {
                    ty: ty(&p.ty),
                    ..p.clone()
                })
                .collect();
            let def_params: Vec<Type> = def.params.iter().map(|p| def_ty(&p.ty)).collect();
            let (ret, def_ret) = (ty(&f.ret), def_ty(&def.ret));
            let exact = ret == def_ret
                && params.len() == def_params.len()
                && params.iter().zip(&def_params).all(|(p, d)| p.ty == *d);
            let close = same_but_sign(&ret, &def_ret)
                && params.len() == def_params.len()
                && params
                    .iter()
                    .zip(&def_params)
                    .all(|(p, d)| same_but_sign(&p.ty, d));
            if exact || !close {
                continue;
            }
            let at = funcs.linkage.len();
            let base = format!("{}.signless", funcs.names[target]);
            let mut name = base.clone();
            let mut n = 1;
            while funcs.names.contains(&name) {
                name = format!("{base}.{n}");
                n += 1;
            }
            funcs.linkage.push(Linkage::Internal);
            funcs.names.push(name.clone());
            funcs.map[ui][fi] = at;
            thunks.push(Thunk {
                at,
                target,
                name,
                params,
                ret,
                def_params,
                def_ret,
            });
        }
    }
    thunks
}

/// The body of a [`Thunk`]: reinterpret, call, reinterpret.
fn thunk(t: &Thunk) -> Function {
    let mut f = Function::new(t.name.clone(), t.params.clone(), t.ret.clone());
    let mut stmts = Vec::new();
    let push = |f: &mut Function, inst: Inst, ty: Type, stmts: &mut Vec<Stmt>| {
        f.insts.push(InstData {
            inst,
            ty,
            loc: Loc::NONE,
        });
        let v = ValueId(f.insts.len() as u32 - 1);
        stmts.push(Stmt::Eval(v));
        v
    };
    let recast = |f: &mut Function, v: ValueId, from: &Type, to: &Type, stmts: &mut Vec<Stmt>| {
        if from == to {
            v
        } else if to.is_pointer() {
            push(f, Inst::PtrCast(v), to.clone(), stmts)
        } else {
            push(f, Inst::Bitcast(v), to.clone(), stmts)
        }
    };
    let mut args = Vec::new();
    for (i, (p, d)) in t.params.iter().zip(&t.def_params).enumerate() {
        let v = push(&mut f, Inst::Param(i as u32), p.ty.clone(), &mut stmts);
        args.push(recast(&mut f, v, &p.ty, d, &mut stmts));
    }
    let r = push(
        &mut f,
        Inst::Call(FuncId(t.target as u32), args),
        t.def_ret.clone(),
        &mut stmts,
    );
    if t.ret.is_void() {
        stmts.push(Stmt::Return(None));
    } else {
        let r = recast(&mut f, r, &t.def_ret, &t.ret, &mut stmts);
        stmts.push(Stmt::Return(Some(r)));
    }
    f.body = Block(stmts);
    f
}

/// Where a function takes the address of a variable that its unit
/// declared with integers of the other sign, the address of the variable
/// as defined is evaluated first and cast to the declared pointer type.
fn reinterpret_global_addresses(funcs: &mut [Option<Function>], globals: &[Option<Global>]) {
    for f in funcs.iter_mut().flatten() {
        let mut fixes = Vec::new();
        for (i, d) in f.insts.iter().enumerate() {
            if let Inst::GlobalAddr(g) = d.inst {
                if let Some(Some(decl)) = globals.get(g.index()) {
                    let want = Type::ptr(decl.space, decl.ty.clone());
                    if d.ty != want && same_but_sign(&d.ty, &want) {
                        fixes.push((i, want));
                    }
                }
            }
        }
        for (i, want) in fixes {
            let at = ValueId(i as u32);
            let defined = InstData {
                inst: f.insts[i].inst.clone(),
                ty: want,
                loc: f.insts[i].loc,
            };
            f.insts.push(defined);
            let addr = ValueId(f.insts.len() as u32 - 1);
            f.insts[i].inst = Inst::PtrCast(addr);
            eval_before(&mut f.body, at, addr);
        }
    }
}

/// Inserts `Eval(new)` just before the statement that evaluates `at`.
fn eval_before(block: &mut Block, at: ValueId, new: ValueId) -> bool {
    for k in 0..block.0.len() {
        let found = match &mut block.0[k] {
            Stmt::Eval(v) if *v == at => {
                block.0.insert(k, Stmt::Eval(new));
                return true;
            }
            Stmt::If { then_, else_, .. } => {
                eval_before(then_, at, new) || eval_before(else_, at, new)
            }
            Stmt::Loop { body, continuing } => {
                eval_before(body, at, new) || eval_before(continuing, at, new)
            }
            Stmt::Switch { cases, .. } => {
                cases.iter_mut().any(|c| eval_before(&mut c.body, at, new))
            }
            _ => false,
        };
        if found {
            return true;
        }
    }
    false
}

/// `extern int a[];` declares the array `int a[4]` defines.
fn array_completes(decl: &Type, def: &Type) -> bool {
    matches!((decl, def), (Type::Array(a, 0), Type::Array(b, _)) if a == b)
}

/// Where the items of one kind land in the merged module.
struct Placement {
    /// `map[unit][item]`: the item's index in the result.
    map: Vec<Vec<usize>>,
    /// The result's items: linkage and name.
    linkage: Vec<Linkage>,
    names: Vec<String>,
}

/// Assigns every function (or global) of every unit its index in the
/// merged module; reports names defined twice.
fn place_items(
    units: &[Unit],
    names_of: impl Fn(&Unit) -> Vec<&str>,
    linkage_of: impl Fn(&Unit) -> &Vec<Linkage>,
    kind: &'static str,
    errors: &mut Vec<LinkError>,
) -> Placement {
    let mut p = Placement {
        map: Vec::new(),
        linkage: Vec::new(),
        names: Vec::new(),
    };
    let all_names: Vec<Vec<&str>> = units.iter().map(&names_of).collect();
    let mut exported: HashMap<&str, usize> = HashMap::new();
    // Names of exports and imports are the program's; internal names give
    // way to them.
    let mut taken: HashSet<String> = HashSet::new();
    for (ui, u) in units.iter().enumerate() {
        for (i, l) in linkage_of(u).iter().enumerate() {
            if *l != Linkage::Internal {
                taken.insert(all_names[ui][i].to_string());
            }
        }
    }
    for (ui, u) in units.iter().enumerate() {
        let mut map = Vec::new();
        for (i, l) in linkage_of(u).iter().enumerate() {
            let name = all_names[ui][i];
            let at = p.linkage.len();
            match l {
                Linkage::Export | Linkage::LinkOnce => {
                    if let Some(&first) = exported.get(name) {
                        if *l == Linkage::LinkOnce || p.linkage[first] == Linkage::LinkOnce {
                            // One of several definitions alike: the first
                            // stands for all.
                            map.push(first);
                            continue;
                        }
                        errors.push(LinkError::Duplicate {
                            kind,
                            name: name.to_string(),
                        });
                    } else {
                        exported.insert(name, at);
                    }
                    p.names.push(name.to_string());
                }
                Linkage::Internal => {
                    let mut unique = name.to_string();
                    let mut n = 1;
                    while !taken.insert(unique.clone()) {
                        unique = format!("{name}.{n}");
                        n += 1;
                    }
                    p.names.push(unique);
                }
                Linkage::Import => {
                    map.push(usize::MAX);
                    continue;
                }
            }
            p.linkage.push(*l);
            map.push(at);
        }
        p.map.push(map);
    }
    // Imports: to the export, or to one placeholder per name.
    let mut placeholders: HashMap<&str, usize> = HashMap::new();
    for (ui, u) in units.iter().enumerate() {
        for (i, l) in linkage_of(u).iter().enumerate() {
            if *l != Linkage::Import {
                continue;
            }
            let name = all_names[ui][i];
            let at = match exported.get(name).or(placeholders.get(name)) {
                Some(at) => *at,
                None => {
                    let at = p.linkage.len();
                    p.linkage.push(Linkage::Import);
                    p.names.push(name.to_string());
                    placeholders.insert(name, at);
                    at
                }
            };
            p.map[ui][i] = at;
        }
    }
    p
}

/// Adds the structs of a unit to `merged`, reusing a struct already there
/// when it is the same type field for field; returns where each landed.
fn merge_structs(merged: &mut Vec<StructDef>, incoming: &[StructDef]) -> Vec<StructId> {
    let existing = merged.len();
    let mut map: Vec<Option<StructId>> = vec![None; incoming.len()];
    for (i, slot) in map.iter_mut().enumerate() {
        *slot = (0..existing).find_map(|j| {
            let mut assumed = HashSet::new();
            same_struct(incoming, i, merged, j, &mut assumed).then_some(StructId(j as u32))
        });
    }
    let mut next = existing as u32;
    let map: Vec<StructId> = map
        .into_iter()
        .map(|m| {
            m.unwrap_or_else(|| {
                next += 1;
                StructId(next - 1)
            })
        })
        .collect();
    for (i, s) in incoming.iter().enumerate() {
        if map[i].0 as usize >= existing {
            let mut s = s.clone();
            for f in &mut s.fields {
                f.ty = remap_type(&f.ty, &map);
            }
            merged.push(s);
        }
    }
    map
}

/// Whether struct `a` of one table and `b` of another are the same type:
/// name, layout and fields alike, structs inside compared the same way
/// (`assumed` breaks the cycles of self-referring pointers).
fn same_struct(
    at: &[StructDef],
    a: usize,
    bt: &[StructDef],
    b: usize,
    assumed: &mut HashSet<(usize, usize)>,
) -> bool {
    if !assumed.insert((a, b)) {
        return true;
    }
    let (Some(x), Some(y)) = (at.get(a), bt.get(b)) else {
        return false;
    };
    x.name == y.name
        && x.is_union == y.is_union
        && x.packed == y.packed
        && x.size == y.size
        && x.align == y.align
        && x.fields.len() == y.fields.len()
        && x.fields.iter().zip(&y.fields).all(|(f, g)| {
            f.name == g.name && f.offset == g.offset && same_type(at, &f.ty, bt, &g.ty, assumed)
        })
}

fn same_type(
    at: &[StructDef],
    x: &Type,
    bt: &[StructDef],
    y: &Type,
    assumed: &mut HashSet<(usize, usize)>,
) -> bool {
    match (x, y) {
        (Type::Struct(a), Type::Struct(b)) => {
            same_struct(at, a.0 as usize, bt, b.0 as usize, assumed)
        }
        (Type::Pointer(s, p), Type::Pointer(t, q)) => s == t && same_type(at, p, bt, q, assumed),
        (Type::Array(p, n), Type::Array(q, m)) => n == m && same_type(at, p, bt, q, assumed),
        _ => x == y,
    }
}

/// `t` with its struct ids moved by `map`.
fn remap_type(t: &Type, map: &[StructId]) -> Type {
    match t {
        Type::Struct(id) => Type::Struct(map.get(id.0 as usize).copied().unwrap_or(*id)),
        Type::Pointer(s, p) => Type::Pointer(*s, Box::new(remap_type(p, map))),
        Type::Array(e, n) => Type::Array(Box::new(remap_type(e, map)), *n),
        other => other.clone(),
    }
}

/// A function that can reach itself through calls, if any.
fn recursive_function(m: &Module) -> Option<String> {
    let n = m.functions.len();
    let callees: Vec<Vec<usize>> = m
        .functions
        .iter()
        .map(|f| {
            f.insts
                .iter()
                .filter_map(|d| match d.inst {
                    Inst::Call(id, _) if id.index() < n => Some(id.index()),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // Depth-first search with colours: a grey callee is a back edge.
    let mut colour = vec![0u8; n];
    for start in 0..n {
        if colour[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        colour[start] = 1;
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            if let Some(&g) = callees[f].get(*next) {
                *next += 1;
                match colour[g] {
                    0 => {
                        colour[g] = 1;
                        stack.push((g, 0));
                    }
                    1 => return Some(m.functions[g].name.clone()),
                    _ => {}
                }
            } else {
                colour[f] = 2;
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    /// A unit from IR text and one linkage letter per function and global.
    fn unit(text: &str, functions: &str, globals: &str) -> Unit {
        let module = parse_module(text).expect("test IR parses");
        Unit::from_parts(module, &format!("fn {functions}\nglobal {globals}\n"))
            .expect("linkage fits")
    }

    /// The name of the function `caller` calls (its first call).
    fn callee<'m>(m: &'m Module, caller: &str) -> &'m Function {
        let (_, f) = m.function_by_name(caller).expect("caller");
        let id = f
            .insts
            .iter()
            .find_map(|d| match d.inst {
                Inst::Call(id, _) => Some(id),
                _ => None,
            })
            .expect("a call");
        m.function(id)
    }

    const CALLS_F: &str = "
fn @f(x: i32) -> i32 {
  %0: i32 = undef
  return %0
}

kernel @k(out: ptr global i32) {
  %0: ptr global i32 = param 0
  %1: i32 = const 3
  %2: i32 = call @f(%1)
  store %0, %2
}
";

    const DEFINES_F: &str = "
fn @f(x: i32) -> i32 {
  %0: i32 = param 0
  %1: i32 = mul %0, %0
  return %1
}
";

    #[test]
    fn an_import_resolves_to_the_definition_in_another_unit() {
        let a = unit(CALLS_F, "ue", "");
        let b = unit(DEFINES_F, "e", "");
        for units in [[a.clone(), b.clone()], [b, a]] {
            let linked = link(&units).expect("links");
            let m = linked.executable().expect("nothing undefined");
            assert_eq!(m.functions.len(), 2);
            let f = callee(&m, "k");
            assert_eq!(f.name, "f");
            assert!(matches!(f.insts[1].inst, Inst::Binary(BinaryOp::Mul, ..)));
            crate::verify::verify_module(&m).expect("the linked module verifies");
        }
    }

    #[test]
    fn a_signless_import_calls_a_signed_definition_through_a_reinterpreting_function() {
        // The caller's `f` takes and returns u32 (as a SPIR-V unit declares
        // `int f(int)`); the definition divides signed: -7 / 2 is -3.
        let caller = "
fn @f(x: u32) -> u32 {
  %0: u32 = undef
  return %0
}

kernel @k(out: ptr global u32) {
  %0: ptr global u32 = param 0
  %1: u32 = const 4294967289
  %2: u32 = call @f(%1)
  store %0, %2
}
";
        let signed = "
fn @f(x: i32) -> i32 {
  %0: i32 = param 0
  %1: i32 = const 2
  %2: i32 = div %0, %1
  return %2
}
";
        let a = unit(caller, "ue", "");
        let b = unit(signed, "e", "");
        for units in [[a.clone(), b.clone()], [b.clone(), a.clone()]] {
            let m = link(&units).expect("links").executable().expect("complete");
            crate::verify::verify_module(&m).expect("the linked module verifies");
            assert_eq!(callee(&m, "k").name, "f.signless");
            let mut args = [crate::interp::KernelArg::Buffer(vec![0; 4])];
            let range = crate::interp::NdRange {
                work_dim: 1,
                global_offset: [0; 3],
                global_size: [1, 1, 1],
                local_size: [1, 1, 1],
            };
            crate::interp::run_kernel(&m, "k", &mut args, &range).expect("runs");
            let crate::interp::KernelArg::Buffer(out) = &args[0] else {
                unreachable!()
            };
            assert_eq!(i32::from_le_bytes([out[0], out[1], out[2], out[3]]), -3);
        }
        // A float is not an integer of either sign.
        let float = signed
            .replace("i32", "f32")
            .replace("const 2", "const 1073741824");
        let errors = link(&[a, unit(&float, "e", "")]).unwrap_err();
        assert!(matches!(&errors[0], LinkError::Conflicting { .. }));
    }

    #[test]
    fn a_variable_declared_with_the_other_sign_is_the_definition() {
        // `extern uint x;` (a SPIR-V unit's `int`) reads OpenCL C's `int x = -5`.
        let reader = "global @x: global u32\n\nkernel @k(out: ptr global u32) {\n  %0: ptr global u32 = param 0\n  %1: ptr global u32 = addr @x\n  %2: u32 = load %1\n  store %0, %2\n}\n";
        let definer = "global @x: global i32 = x\"fbffffff\"\n";
        let units = [unit(reader, "e", "u"), unit(definer, "", "e")];
        let m = link(&units).expect("links").executable().expect("complete");
        crate::verify::verify_module(&m).expect("the linked module verifies");
        let mut args = [crate::interp::KernelArg::Buffer(vec![0; 4])];
        let range = crate::interp::NdRange {
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [1, 1, 1],
            local_size: [1, 1, 1],
        };
        crate::interp::run_kernel(&m, "k", &mut args, &range).expect("runs");
        let crate::interp::KernelArg::Buffer(out) = &args[0] else {
            unreachable!()
        };
        assert_eq!(i32::from_le_bytes([out[0], out[1], out[2], out[3]]), -5);
    }

    #[test]
    fn link_once_definitions_merge_into_the_first() {
        // Two units define `f` link-once (one also calls it), a third
        // imports it: one `f` remains, and everyone calls it.
        let both = format!(
            "{DEFINES_F}\n{}",
            CALLS_F
                .split("kernel")
                .nth(1)
                .map(|k| format!("kernel{k}"))
                .unwrap_or_default()
        );
        let a = unit(&both, "oe", "");
        let b = unit(DEFINES_F, "o", "");
        let c = unit(&CALLS_F.replace("@k", "@k2"), "ue", "");
        let linked = link(&[a, b, c]).expect("links");
        assert_eq!(
            linked
                .functions
                .iter()
                .filter(|l| **l == Linkage::LinkOnce)
                .count(),
            1
        );
        let m = linked.executable().expect("complete");
        crate::verify::verify_module(&m).expect("verifies");
        assert_eq!(callee(&m, "k").name, "f");
        assert_eq!(callee(&m, "k2").name, "f");
        // An ordinary second definition is still a duplicate.
        let errors = link(&[unit(DEFINES_F, "e", ""), unit(DEFINES_F, "e", "")]).unwrap_err();
        assert!(matches!(errors[0], LinkError::Duplicate { .. }));
    }

    #[test]
    fn a_missing_definition_fails_only_when_used() {
        let a = unit(CALLS_F, "ue", "");
        let linked = link(std::slice::from_ref(&a)).expect("a library may leave imports");
        // The placeholder of `f` comes after the definitions.
        assert_eq!(linked.functions, vec![Linkage::Export, Linkage::Import]);
        let errors = linked.executable().unwrap_err();
        assert_eq!(
            errors,
            vec![LinkError::Undefined {
                kind: "function",
                name: "f".into()
            }]
        );
        assert_eq!(errors[0].to_string(), "undefined reference to function 'f'");
        // A prototype nothing calls is harmless.
        let unused = unit(DEFINES_F, "u", "");
        assert!(link(&[unused]).expect("links").executable().is_ok());
    }

    #[test]
    fn two_definitions_of_one_function_are_an_error() {
        let errors = link(&[unit(DEFINES_F, "e", ""), unit(DEFINES_F, "e", "")]).unwrap_err();
        assert_eq!(
            errors,
            vec![LinkError::Duplicate {
                kind: "function",
                name: "f".into()
            }]
        );
    }

    #[test]
    fn internal_functions_of_one_name_stay_apart() {
        let helper = |n: u32, k: &str| {
            format!(
                "
fn @h() -> i32 {{
  %0: i32 = const {n}
  return %0
}}

kernel @{k}(out: ptr global i32) {{
  %0: ptr global i32 = param 0
  %1: i32 = call @h()
  store %0, %1
}}
"
            )
        };
        let a = unit(&helper(1, "ka"), "ie", "");
        let b = unit(&helper(2, "kb"), "ie", "");
        let m = link(&[a, b])
            .expect("links")
            .executable()
            .expect("complete");
        let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["h", "ka", "h.1", "kb"]);
        assert_eq!(callee(&m, "ka").name, "h");
        assert_eq!(callee(&m, "kb").name, "h.1");
        assert_eq!(callee(&m, "kb").insts[0].inst, Inst::Const(2));
        crate::verify::verify_module(&m).expect("the linked module verifies");
    }

    #[test]
    fn a_struct_written_in_two_units_is_one_type() {
        let uses_s = |fname: &str, linkage: &str| {
            let body = if linkage == "u" {
                "  return"
            } else {
                "  %0: ptr private %S = param 0\n  %1: ptr private i32 = field %0, 1\n  %2: i32 = const 7\n  store %1, %2\n  return"
            };
            format!(
                "struct %S {{ a: f32, b: i32, next: ptr private %S }}\nstruct %T {{ a: f32 }}\n\nfn @{fname}(s: ptr private %S) {{\n{body}\n}}\n"
            )
        };
        let a = unit(&uses_s("set", "u"), "u", "");
        let b = unit(&uses_s("set", "e"), "e", "");
        let linked = link(&[a, b]).expect("the declaration and definition agree");
        assert_eq!(linked.module.structs.len(), 2, "S and T once each");
        // The same name with another layout is another type.
        let other = unit(
            "struct %S { a: i32 }\n\nfn @g(s: ptr private %S) {\n  return\n}\n",
            "e",
            "",
        );
        let linked = link(&[linked, other]).expect("links");
        assert_eq!(linked.module.structs.len(), 3);
        let (_, g) = linked.module.function_by_name("g").expect("g");
        assert_eq!(
            g.params[0].ty,
            Type::ptr(crate::AddressSpace::Private, Type::Struct(StructId(2)))
        );
    }

    #[test]
    fn a_declaration_of_another_type_conflicts() {
        let wrong = "fn @f(x: f32) -> i32 {\n  %0: i32 = undef\n  return %0\n}\n";
        let errors = link(&[unit(wrong, "u", ""), unit(DEFINES_F, "e", "")]).unwrap_err();
        assert_eq!(
            errors,
            vec![LinkError::Conflicting {
                kind: "function",
                name: "f".into()
            }]
        );
    }

    #[test]
    fn an_extern_variable_resolves_and_statics_stay_apart() {
        let reader = |k: &str| {
            format!(
                "global @foo: constant f32\nglobal @bar: constant i32 = x\"01000000\"\n\nkernel @{k}(out: ptr global f32) {{\n  %0: ptr global f32 = param 0\n  %1: ptr constant f32 = addr @foo\n  %2: f32 = load %1\n  store %0, %2\n  %3: ptr constant i32 = addr @bar\n}}\n"
            )
        };
        let definer = "global @foo: constant f32 = x\"00008040\"\nglobal @bar: constant i32 = x\"02000000\"\n";
        let units = [
            unit(&reader("k1"), "e", "ui"),
            unit(definer, "", "ei"),
            unit(&reader("k2"), "e", "ui"),
        ];
        let m = link(&units).expect("links").executable().expect("complete");
        let names: Vec<&str> = m.globals.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["bar", "foo", "bar.1", "bar.2"]);
        let foo = &m.globals[1];
        assert_eq!(foo.init.as_deref(), Some(&[0, 0, 0x80, 0x40][..]));
        for k in ["k1", "k2"] {
            let (_, f) = m.function_by_name(k).expect("kernel");
            assert_eq!(f.insts[1].inst, Inst::GlobalAddr(GlobalId(1)));
        }
        let undefined = link(&units[..1]).expect("links").executable().unwrap_err();
        assert_eq!(
            undefined,
            vec![LinkError::Undefined {
                kind: "variable",
                name: "foo".into()
            }]
        );
    }

    #[test]
    fn recursion_across_units_is_an_error() {
        let f_calls_g =
            "fn @g() {\n  return\n}\n\nfn @f() {\n  %0: void = call @g()\n  return\n}\n";
        let g_calls_f =
            "fn @f() {\n  return\n}\n\nfn @g() {\n  %0: void = call @f()\n  return\n}\n";
        let errors = link(&[unit(f_calls_g, "ue", ""), unit(g_calls_f, "ue", "")]).unwrap_err();
        assert!(
            matches!(&errors[..], [LinkError::Recursion { .. }]),
            "{errors:?}"
        );
    }

    #[test]
    fn the_linkage_table_round_trips_and_must_fit() {
        let a = unit(CALLS_F, "ue", "");
        assert_eq!(a.linkage_text(), "fn ue\nglobal \n");
        let back = Unit::from_parts(a.module.clone(), &a.linkage_text()).expect("reads back");
        assert_eq!(back, a);
        for bad in [
            "fn e\nglobal \n",
            "fn ux\nglobal \n",
            "fn ue\n",
            "global \nfn ue\n",
        ] {
            assert!(
                matches!(
                    Unit::from_parts(a.module.clone(), bad),
                    Err(LinkError::Malformed(_))
                ),
                "{bad:?}"
            );
        }
    }
}

//! Lowering calls: user functions, and the builtins with their own IR
//! (work-item functions, barriers and fences, atomics, `convert_T`, `as_T`)
//! or special typing (`vloadN`/`vstoreN`, `select`, `shuffle`, async copies,
//! `printf`). Everything else resolves through the declaration table in
//! [`builtins`](crate::builtins) and becomes `Inst::Builtin`.

use super::expr::{Place, Val};
use super::{to_loc, LResult, Lowerer};
use crate::ast::*;
use crate::builtins;
use crate::diag::Pos;
use crate::parser::{scalar_type_name, vector_type_name};
use vecl_ir::*;

fn work_item_fn(name: &str) -> Option<(WorkItemFn, bool)> {
    Some(match name {
        "get_work_dim" => (WorkItemFn::WorkDim, false),
        "get_global_size" => (WorkItemFn::GlobalSize, true),
        "get_global_id" => (WorkItemFn::GlobalId, true),
        "get_local_size" => (WorkItemFn::LocalSize, true),
        "get_enqueued_local_size" => (WorkItemFn::EnqueuedLocalSize, true),
        "get_local_id" => (WorkItemFn::LocalId, true),
        "get_num_groups" => (WorkItemFn::NumGroups, true),
        "get_group_id" => (WorkItemFn::GroupId, true),
        "get_global_offset" => (WorkItemFn::GlobalOffset, true),
        "get_global_linear_id" => (WorkItemFn::GlobalLinearId, false),
        "get_local_linear_id" => (WorkItemFn::LocalLinearId, false),
        _ => return None,
    })
}

fn atomic_op(name: &str) -> Option<AtomicOp> {
    let base = name
        .strip_prefix("atomic_")
        .or_else(|| name.strip_prefix("atom_"))?;
    Some(match base {
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "xchg" => AtomicOp::Xchg,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "cmpxchg" => AtomicOp::CmpXchg,
        "min" => AtomicOp::Min,
        "max" => AtomicOp::Max,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        _ => return None,
    })
}

/// `convert_float4_sat_rte` → (type, saturate, rounding).
fn parse_convert(name: &str) -> Option<(Type, bool, Rounding)> {
    let rest = name.strip_prefix("convert_")?;
    let mut parts = rest.split('_').peekable();
    let mut tname = parts.next()?.to_string();
    if matches!(tname.as_str(), "size" | "ptrdiff" | "intptr" | "uintptr")
        && parts.peek() == Some(&"t")
    {
        parts.next();
        tname.push_str("_t");
    }
    let ty = match vector_type_name(&tname) {
        Some((s, n)) => Type::Vector(s, n),
        None => Type::Scalar(scalar_type_name(&tname).filter(|s| *s != Scalar::Bool)?),
    };
    let (mut sat, mut rounding) = (false, Rounding::Default);
    for p in parts {
        match p {
            "sat" if !sat && rounding == Rounding::Default => sat = true,
            "rte" if rounding == Rounding::Default => rounding = Rounding::Rte,
            "rtz" if rounding == Rounding::Default => rounding = Rounding::Rtz,
            "rtp" if rounding == Rounding::Default => rounding = Rounding::Rtp,
            "rtn" if rounding == Rounding::Default => rounding = Rounding::Rtn,
            _ => return None,
        }
    }
    Some((ty, sat, rounding))
}

impl Lowerer<'_> {
    pub(super) fn args(&mut self, args: &[Expr]) -> LResult<Vec<(ValueId, Type)>> {
        let mut out = Vec::new();
        let mut failed = None;
        for a in args {
            match self.rvalue(a) {
                Ok(v) => out.push(v),
                Err(r) => failed = Some(r),
            }
        }
        match failed {
            Some(r) => Err(r),
            None => Ok(out),
        }
    }

    pub(super) fn arity(
        &mut self,
        name: &str,
        args: &[Expr],
        want: &[usize],
        pos: Pos,
    ) -> LResult<()> {
        if want.contains(&args.len()) {
            return Ok(());
        }
        let w = want
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" or ");
        self.err(
            pos,
            format!(
                "too {} arguments to function call '{name}': expected {w}, have {}",
                if args.len() > want[0] { "many" } else { "few" },
                args.len()
            ),
        )
    }

    pub(super) fn call(&mut self, name: &str, args: &[Expr], pos: Pos) -> LResult<Val> {
        if let Some(sig) = self.funcs.get(name).cloned() {
            return self.user_call(name, sig, args, pos);
        }
        if let Some((f, has_dim)) = work_item_fn(name) {
            self.arity(name, args, &[usize::from(has_dim)], pos)?;
            let dim = match args.first() {
                Some(a) => {
                    let (v, t) = self.rvalue(a)?;
                    Some(self.convert(v, &t, &Type::U32, a.pos, false)?)
                }
                None => None,
            };
            let ty = if f == WorkItemFn::WorkDim {
                Type::U32
            } else {
                Type::U64
            };
            self.set_pos(pos);
            let r = self.b().push(Inst::WorkItem(f, dim), ty.clone());
            return Ok(Val::R(r, ty));
        }
        match name {
            "barrier" | "work_group_barrier" | "sub_group_barrier" | "mem_fence"
            | "read_mem_fence" | "write_mem_fence" => {
                let max = if name.ends_with("group_barrier") {
                    2
                } else {
                    1
                };
                self.arity(name, args, &[1, max], pos)?;
                let flags = self.const_int(&args[0])?;
                if !(0..=7).contains(&flags) {
                    return self.err(args[0].pos, "invalid memory fence flags");
                }
                let flags = MemFlags(flags as u32);
                // The work-items of a sub-group run in lockstep (one SIMD
                // chunk), so a sub-group barrier only orders memory.
                let s = if name.ends_with("barrier") && name != "sub_group_barrier" {
                    Stmt::Barrier(flags, to_loc(pos))
                } else {
                    Stmt::Fence(flags)
                };
                self.b().stmt(s);
                return Ok(self.void_val());
            }
            "__builtin_inff" | "__builtin_huge_valf" | "__builtin_nanf" => {
                let bits = if name == "__builtin_nanf" {
                    0x7fc0_0000
                } else {
                    0x7f80_0000
                };
                let c = self.b().const_bits(Scalar::F32, bits);
                return Ok(Val::R(c, Type::F32));
            }
            "__builtin_inf" | "__builtin_huge_val" | "__builtin_nan" => {
                let bits = if name == "__builtin_nan" {
                    0x7ff8_0000_0000_0000
                } else {
                    0x7ff0_0000_0000_0000
                };
                let c = self.b().const_bits(Scalar::F64, bits);
                return Ok(Val::R(c, Type::F64));
            }
            "printf" => {
                if args.is_empty() || !matches!(args[0].kind, ExprKind::Str(_)) {
                    return self.err(pos, "the format of 'printf' must be a string literal");
                }
                let vals = self.args(args)?;
                let ids = vals.into_iter().map(|(v, _)| v).collect();
                self.set_pos(pos);
                let r = self
                    .b()
                    .push(Inst::Builtin(Builtin::Printf, ids), Type::I32);
                return Ok(Val::R(r, Type::I32));
            }
            _ => {}
        }
        if let Some(v) = self.image_call(name, args, pos)? {
            return Ok(v);
        }
        if let Some(v) = self.c11_atomic(name, args, pos)? {
            return Ok(v);
        }
        if let Some(op) = atomic_op(name) {
            return self.atomic(name, op, args, pos);
        }
        if let Some((to, saturate, rounding)) = parse_convert(name) {
            self.arity(name, args, &[1], pos)?;
            let (v, t) = self.rvalue(&args[0])?;
            if !matches!(t, Type::Scalar(_) | Type::Vector(..)) || t.lanes() != to.lanes() {
                let (x, y) = (self.type_str(&t), self.type_str(&to));
                return self.err(
                    pos,
                    format!(
                        "no matching function for call to '{name}': cannot convert '{x}' to '{y}'"
                    ),
                );
            }
            if to.scalar() == Some(Scalar::F16) || t.scalar() == Some(Scalar::F16) {
                self.need_fp16(pos)?;
            }
            if saturate && to.scalar().is_some_and(|s| s.is_float()) {
                return self.err(
                    pos,
                    format!("'{name}': saturation is only for integer destination types"),
                );
            }
            self.set_pos(pos);
            let r = self.b().push(
                Inst::Convert {
                    value: v,
                    saturate,
                    rounding,
                },
                to.clone(),
            );
            return Ok(Val::R(r, to));
        }
        if let Some(tname) = name.strip_prefix("as_") {
            let to = match vector_type_name(tname) {
                Some((s, n)) => Type::Vector(s, n),
                None => match scalar_type_name(tname) {
                    Some(s) if s != Scalar::Bool => Type::Scalar(s),
                    _ => return self.err(pos, format!("use of undeclared function '{name}'")),
                },
            };
            self.arity(name, args, &[1], pos)?;
            let (v, t) = self.rvalue(&args[0])?;
            let (fs, ts) = (self.module.size_of(&t), self.module.size_of(&to));
            if fs != ts || !matches!(t, Type::Scalar(_) | Type::Vector(..)) {
                let (x, y) = (self.type_str(&t), self.type_str(&to));
                return self.err(
                    pos,
                    format!("invalid reinterpretation: sizes of '{x}' and '{y}' must match"),
                );
            }
            self.set_pos(pos);
            let r = self.b().push(Inst::Bitcast(v), to.clone());
            return Ok(Val::R(r, to));
        }
        if let Some(v) = self.vector_data_call(name, args, pos)? {
            return Ok(v);
        }
        match name {
            "to_global" | "to_local" | "to_private" | "get_fence" if self.opts.cl_std >= 200 => {
                return self.generic_cast_call(name, args, pos)
            }
            "select" => return self.select_call(args, pos),
            "shuffle" | "shuffle2" => return self.shuffle_call(name, args, pos),
            "async_work_group_copy" | "async_work_group_strided_copy" => {
                let (b, n) = if name == "async_work_group_copy" {
                    (Builtin::AsyncWorkGroupCopy, 4)
                } else {
                    (Builtin::AsyncWorkGroupStridedCopy, 5)
                };
                self.arity(name, args, &[n], pos)?;
                let vals = self.args(args)?;
                let (dt, st) = (&vals[0].1, &vals[1].1);
                let ok = matches!((dt, st), (Type::Pointer(a, x), Type::Pointer(b, y)) if x == y && a != b && (*a == AddressSpace::Local || *b == AddressSpace::Local));
                if !ok {
                    let (x, y) = (self.type_str(dt), self.type_str(st));
                    return self.err(pos, format!("no matching function for call to '{name}' with '{x}' and '{y}': one pointer must be __local and the other __global, to the same type"));
                }
                let mut ids = vec![vals[0].0, vals[1].0];
                for (v, t) in &vals[2..] {
                    ids.push(self.convert(*v, t, &Type::U64, pos, false)?);
                }
                self.set_pos(pos);
                let r = self.b().push(Inst::Builtin(b, ids), Type::U64);
                return Ok(Val::R(r, Type::U64));
            }
            "wait_group_events" => {
                self.arity(name, args, &[2], pos)?;
                let vals = self.args(args)?;
                let n = self.convert(vals[0].0, &vals[0].1, &Type::I32, pos, false)?;
                if !matches!(&vals[1].1, Type::Pointer(_, t) if **t == Type::U64) {
                    return self.err(
                        args[1].pos,
                        "'wait_group_events' expects an 'event_t *' list",
                    );
                }
                self.set_pos(pos);
                self.b().push(
                    Inst::Builtin(Builtin::WaitGroupEvents, vec![n, vals[1].0]),
                    Type::Void,
                );
                return Ok(self.void_val());
            }
            // cl_khr_expect_assume: hints. `__builtin_expect(exp, c)` is
            // `exp` (a `long`); `__builtin_assume(cond)` only evaluates.
            "__builtin_expect" => {
                self.arity(name, args, &[2], pos)?;
                let vals = self.args(args)?;
                let v = self.convert(vals[0].0, &vals[0].1, &Type::I64, pos, false)?;
                return Ok(Val::R(v, Type::I64));
            }
            "__builtin_assume" => {
                self.arity(name, args, &[1], pos)?;
                self.args(args)?;
                return Ok(self.void_val());
            }
            "prefetch" => {
                self.arity(name, args, &[2], pos)?;
                let vals = self.args(args)?;
                let n = self.convert(vals[1].0, &vals[1].1, &Type::U64, pos, false)?;
                self.set_pos(pos);
                self.b().push(
                    Inst::Builtin(Builtin::Prefetch, vec![vals[0].0, n]),
                    Type::Void,
                );
                return Ok(self.void_val());
            }
            "upsample" => {
                self.arity(name, args, &[2], pos)?;
                let vals = self.args(args)?;
                let (ht, lt) = (&vals[0].1, &vals[1].1);
                let ok = ht.lanes() == lt.lanes()
                    && matches!((ht.scalar(), lt.scalar()), (Some(h), Some(l)) if h.is_int() && l.is_int() && !l.is_signed() && h.size() == l.size() && h.size() < 8);
                if !ok {
                    let (x, y) = (self.type_str(ht), self.type_str(lt));
                    return self.err(
                        pos,
                        format!("no matching function for call to 'upsample' with '{x}' and '{y}'"),
                    );
                }
                let h = ht.scalar().unwrap_or(Scalar::I32);
                let wide = match (h.size(), h.is_signed()) {
                    (1, true) => Scalar::I16,
                    (1, false) => Scalar::U16,
                    (2, true) => Scalar::I32,
                    (2, false) => Scalar::U32,
                    (_, true) => Scalar::I64,
                    _ => Scalar::U64,
                };
                let rt = ht.with_scalar(wide);
                self.set_pos(pos);
                let r = self.b().push(
                    Inst::Builtin(Builtin::Upsample, vec![vals[0].0, vals[1].0]),
                    rt.clone(),
                );
                return Ok(Val::R(r, rt));
            }
            _ => {}
        }
        if let Some(v) = self.integer_extension_call(name, args, pos)? {
            return Ok(v);
        }
        if builtins::is_table_builtin(name) {
            let vals = self.args(args)?;
            return self.table_call(name, vals, pos);
        }
        self.err(
            pos,
            format!("implicit declaration of function '{name}' is invalid in OpenCL"),
        )
    }

    /// A builtin of the declaration table, on arguments already lowered.
    pub(super) fn table_call(
        &mut self,
        name: &str,
        vals: Vec<(ValueId, Type)>,
        pos: Pos,
    ) -> LResult<Val> {
        let tys: Vec<Type> = vals.iter().map(|(_, t)| t.clone()).collect();
        let Some(ov) = builtins::resolve(name, &tys) else {
            let list = tys
                .iter()
                .map(|t| self.type_str(t))
                .collect::<Vec<_>>()
                .join(", ");
            return self.err(pos, format!("no matching function for call to '{name}' with arguments ({list}); candidates: {}", builtins::describe(name)));
        };
        let half = |t: &Type| {
            t.scalar() == Some(Scalar::F16)
                || t.pointee().and_then(Type::scalar) == Some(Scalar::F16)
        };
        if half(&ov.ret) || ov.params.iter().any(half) {
            self.need_fp16(pos)?;
        }
        let mut ids = Vec::new();
        for ((v, t), p) in vals.iter().zip(&ov.params) {
            ids.push(self.convert(*v, t, p, pos, false)?);
        }
        self.set_pos(pos);
        let r = self
            .b()
            .push(Inst::Builtin(ov.builtin, ids), ov.ret.clone());
        Ok(Val::R(r, ov.ret))
    }

    fn void_val(&mut self) -> Val {
        Val::Void
    }

    fn user_call(
        &mut self,
        name: &str,
        sig: super::FuncSig,
        args: &[Expr],
        pos: Pos,
    ) -> LResult<Val> {
        if args.len() != sig.params.len() {
            let n = sig.params.len();
            return self.err(
                pos,
                format!(
                    "too {} arguments to function call '{name}': expected {n}, have {}",
                    if args.len() > n { "many" } else { "few" },
                    args.len()
                ),
            );
        }
        let mut ids = Vec::new();
        for (a, pt) in args.iter().zip(&sig.params) {
            if let Type::Struct(_) = pt {
                let lv = self.lvalue(a)?;
                let Place::Mem(src) = lv.place else {
                    return self.err(a.pos, "struct argument must be an object in memory");
                };
                if &lv.ty != pt {
                    let (x, y) = (self.type_str(&lv.ty), self.type_str(pt));
                    return self.err(
                        a.pos,
                        format!("passing '{x}' to parameter of incompatible type '{y}'"),
                    );
                }
                // Pass a private copy: the callee may modify its parameter.
                let slot = self.b().new_slot(format!("{name}.arg"), pt.clone());
                let dst = self.b().push(
                    Inst::SlotAddr(slot),
                    Type::ptr(AddressSpace::Private, pt.clone()),
                );
                let size = self.module.size_of(pt);
                self.b().stmt(Stmt::Copy {
                    dst,
                    src,
                    size,
                    loc: to_loc(a.pos),
                });
                ids.push(dst);
                continue;
            }
            let (v, t) = self.rvalue(a)?;
            ids.push(self.assign_convert(v, &t, pt, a.pos, a)?);
        }
        self.set_pos(pos);
        if let Type::Struct(_) = sig.ret {
            // The callee writes its result into a temporary of the caller.
            let slot = self.b().new_slot(format!("{name}.result"), sig.ret.clone());
            let dst = self.b().push(
                Inst::SlotAddr(slot),
                Type::ptr(AddressSpace::Private, sig.ret.clone()),
            );
            ids.push(dst);
            self.b().push(Inst::Call(sig.id, ids), Type::Void);
            self.cx().calls.push((sig.id, pos));
            return Ok(Val::L(super::expr::LVal {
                place: Place::Mem(dst),
                ty: sig.ret,
                is_const: false,
            }));
        }
        let r = self.b().push(Inst::Call(sig.id, ids), sig.ret.clone());
        self.cx().calls.push((sig.id, pos));
        if sig.is_kernel && self.cx().is_kernel {
            // Calling a kernel from a kernel is a plain call in vecl.
        }
        if sig.ret == Type::Void {
            let _ = r;
            return Ok(Val::Void);
        }
        Ok(Val::R(r, sig.ret))
    }

    fn atomic(&mut self, name: &str, op: AtomicOp, args: &[Expr], pos: Pos) -> LResult<Val> {
        let want = match op {
            AtomicOp::Inc | AtomicOp::Dec => 1,
            AtomicOp::CmpXchg => 3,
            _ => 2,
        };
        self.arity(name, args, &[want], pos)?;
        let vals = self.args(args)?;
        let (p, pt) = vals[0].clone();
        let elem = match &pt {
            Type::Pointer(
                AddressSpace::Global | AddressSpace::Local | AddressSpace::Generic,
                t,
            ) => (**t).clone(),
            _ => {
                let ts = self.type_str(&pt);
                return self.err(args[0].pos, format!("no matching function for call to '{name}': '{ts}' is not a pointer to __global or __local memory"));
            }
        };
        let ok = match elem {
            Type::Scalar(Scalar::I32 | Scalar::U32) => true,
            Type::Scalar(Scalar::I64 | Scalar::U64) => name.starts_with("atom_"),
            Type::Scalar(Scalar::F32) => op == AtomicOp::Xchg,
            _ => false,
        };
        if !ok {
            let ts = self.type_str(&pt);
            return self.err(
                args[0].pos,
                format!("no matching function for call to '{name}' with a pointer of type '{ts}'"),
            );
        }
        let mut ids = Vec::new();
        for (v, t) in &vals[1..] {
            ids.push(self.convert(*v, t, &elem, pos, false)?);
        }
        let scope = if pt.address_space() == Some(AddressSpace::Local) {
            MemoryScope::WorkGroup
        } else {
            MemoryScope::Device
        };
        self.set_pos(pos);
        let r = self.b().push(
            Inst::Atomic {
                op,
                ptr: p,
                args: ids,
                order: MemoryOrder::Relaxed,
                scope,
            },
            elem.clone(),
        );
        Ok(Val::R(r, elem))
    }

    /// `vloadN`, `vstoreN`, `vload_half[N]`, `vstore_half[N][_rXX]`, `vloada_halfN`, `vstorea_halfN[_rXX]`.
    fn vector_data_call(&mut self, name: &str, args: &[Expr], pos: Pos) -> LResult<Option<Val>> {
        let Some((b, vd)) = Builtin::from_name(name).and_then(|b| Some((b, b.vector_data()?)))
        else {
            return Ok(None);
        };
        let (load, half, n) = (vd.load, vd.half, vd.n);
        self.arity(name, args, &[if load { 2 } else { 3 }], pos)?;
        let vals = self.args(args)?;
        let (ptr_i, off_i) = if load { (1, 0) } else { (2, 1) };
        let (p, pt) = vals[ptr_i].clone();
        let Type::Pointer(_, elem) = &pt else {
            let ts = self.type_str(&pt);
            return self.err(
                args[ptr_i].pos,
                format!("no matching function for call to '{name}': '{ts}' is not a pointer"),
            );
        };
        let elem_s = match **elem {
            Type::Scalar(s) if s != Scalar::Bool => s,
            _ => {
                let ts = self.type_str(&pt);
                return self.err(
                    args[ptr_i].pos,
                    format!("no matching function for call to '{name}' with pointer '{ts}'"),
                );
            }
        };
        if half && elem_s != Scalar::F16 {
            return self.err(
                args[ptr_i].pos,
                format!("'{name}' expects a pointer to half"),
            );
        }
        if !load && pt.address_space() == Some(AddressSpace::Constant) {
            return self.err(args[ptr_i].pos, "cannot store to __constant memory");
        }
        let data_s = if half { Scalar::F32 } else { elem_s };
        let data_t = if n == 1 {
            Type::Scalar(data_s)
        } else {
            Type::Vector(data_s, n)
        };
        let off = self.convert(vals[off_i].0, &vals[off_i].1, &Type::U64, pos, false)?;
        self.set_pos(pos);
        if load {
            let r = self
                .b()
                .push(Inst::Builtin(b, vec![off, p]), data_t.clone());
            return Ok(Some(Val::R(r, data_t)));
        }
        let (dv, dt) = vals[0].clone();
        let dv = if half && dt.lanes() == data_t.lanes() && matches!(dt.scalar(), Some(Scalar::F64))
        {
            dv
        } else if dt == data_t || matches!(dt, Type::Scalar(_)) {
            // A scalar argument converts to the data type as in C: to the
            // element type, then (for vstoreN) splatted to every component,
            // e.g. `vstore3(v.x, 0, p)` stores `v.x` three times.
            self.convert(dv, &dt, &data_t, pos, false)?
        } else {
            let (x, y) = (self.type_str(&dt), self.type_str(&data_t));
            return self.err(
                args[0].pos,
                format!("no matching function for call to '{name}': data is '{x}', expected '{y}'"),
            );
        };
        self.b()
            .push(Inst::Builtin(b, vec![dv, off, p]), Type::Void);
        Ok(Some(self.void_val()))
    }

    /// `to_global`, `to_local`, `to_private` and `get_fence` (OpenCL C
    /// 2.0 6.13.9): what a pointer of the generic address space points
    /// into is known only when the code runs.
    fn generic_cast_call(&mut self, name: &str, args: &[Expr], pos: Pos) -> LResult<Val> {
        self.arity(name, args, &[1], pos)?;
        let (v, t) = self.rvalue(&args[0])?;
        let pointee = match &t {
            Type::Pointer(space, pointee) if *space != AddressSpace::Constant => pointee.clone(),
            _ => {
                let ts = self.type_str(&t);
                return self.err(pos, format!("no matching function for call to '{name}' with '{ts}': the argument must be a pointer that is not __constant"));
            }
        };
        let (b, rt) = match name {
            "to_global" => (
                Builtin::ToGlobal,
                Type::Pointer(AddressSpace::Global, pointee),
            ),
            "to_local" => (
                Builtin::ToLocal,
                Type::Pointer(AddressSpace::Local, pointee),
            ),
            "to_private" => (
                Builtin::ToPrivate,
                Type::Pointer(AddressSpace::Private, pointee),
            ),
            _ => (Builtin::GetFence, Type::U32),
        };
        self.set_pos(pos);
        let r = self.b().push(Inst::Builtin(b, vec![v]), rt.clone());
        Ok(Val::R(r, rt))
    }

    fn select_call(&mut self, args: &[Expr], pos: Pos) -> LResult<Val> {
        self.arity("select", args, &[3], pos)?;
        let vals = self.args(args)?;
        let (at, bt, ct) = (&vals[0].1, &vals[1].1, &vals[2].1);
        // `select(gentype, gentype, igentype)`: operands of one type keep
        // it (a builtin's overload is chosen before any integer promotion,
        // so `select` of `char`s is a `char`).
        let rt = if at == bt {
            at.clone()
        } else {
            self.common_type(at, bt, pos)?
        };
        let ok = ct.scalar().is_some_and(|s| s.is_int())
            && ct.lanes() == rt.lanes()
            && ct.scalar().map(|s| s.size()) == rt.scalar().map(|s| s.size());
        if !ok {
            let (x, y) = (self.type_str(&rt), self.type_str(ct));
            return self.err(pos, format!("no matching function for call to 'select' with operands '{x}' and condition '{y}'"));
        }
        let a = self.convert(vals[0].0, at, &rt, pos, false)?;
        let b = self.convert(vals[1].0, bt, &rt, pos, false)?;
        self.set_pos(pos);
        let r = self.b().push(
            Inst::Builtin(Builtin::Select, vec![a, b, vals[2].0]),
            rt.clone(),
        );
        Ok(Val::R(r, rt))
    }

    fn shuffle_call(&mut self, name: &str, args: &[Expr], pos: Pos) -> LResult<Val> {
        let (b, two) = if name == "shuffle2" {
            (Builtin::Shuffle2, true)
        } else {
            (Builtin::Shuffle, false)
        };
        self.arity(name, args, &[if two { 3 } else { 2 }], pos)?;
        let vals = self.args(args)?;
        let x = &vals[0].1;
        let m = &vals[vals.len() - 1].1;
        let ok = matches!(x, Type::Vector(..))
            && matches!(m, Type::Vector(s, _) if !s.is_signed() && Some(s.size()) == x.scalar().map(|e| e.size()))
            && (!two || &vals[1].1 == x);
        if !ok {
            let (a, b) = (self.type_str(x), self.type_str(m));
            return self.err(
                pos,
                format!("no matching function for call to '{name}' with '{a}' and mask '{b}'"),
            );
        }
        let rt = Type::Vector(x.scalar().unwrap_or(Scalar::F32), m.lanes() as u8);
        let ids = vals.iter().map(|(v, _)| *v).collect();
        self.set_pos(pos);
        let r = self.b().push(Inst::Builtin(b, ids), rt.clone());
        Ok(Val::R(r, rt))
    }

    /// The OpenCL 2.0 atomics (`atomic_load`, `atomic_fetch_add_explicit`,
    /// `atomic_compare_exchange_strong`, `atomic_flag_test_and_set`, …).
    fn c11_atomic(&mut self, name: &str, args: &[Expr], pos: Pos) -> LResult<Option<Val>> {
        let Some(base) = name.strip_prefix("atomic_") else {
            return Ok(None);
        };
        let (base, explicit) = match base.strip_suffix("_explicit") {
            Some(b) => (b, true),
            None => (base, false),
        };
        // (operation, value operands before the order/scope arguments)
        let (op, values) = match base {
            "init" if !explicit => (AtomicOp::Store, 1),
            "load" => (AtomicOp::Load, 0),
            "store" => (AtomicOp::Store, 1),
            "exchange" => (AtomicOp::Xchg, 1),
            "fetch_add" => (AtomicOp::Add, 1),
            "fetch_sub" => (AtomicOp::Sub, 1),
            "fetch_or" => (AtomicOp::Or, 1),
            "fetch_xor" => (AtomicOp::Xor, 1),
            "fetch_and" => (AtomicOp::And, 1),
            "fetch_min" => (AtomicOp::Min, 1),
            "fetch_max" => (AtomicOp::Max, 1),
            "compare_exchange_strong" | "compare_exchange_weak" => (AtomicOp::CmpXchg, 2),
            "flag_test_and_set" => (AtomicOp::Xchg, 0),
            "flag_clear" => (AtomicOp::Store, 0),
            "work_item_fence" => {
                self.arity(name, args, &[3], pos)?;
                // A fence's flags, order or scope known only at run time
                // fence everything.
                let flags = self.atomic_enum_arg(&args[0])?.unwrap_or(7);
                self.atomic_enum_arg(&args[1])?;
                self.atomic_enum_arg(&args[2])?;
                self.set_pos(pos);
                self.b()
                    .stmt(Stmt::Fence(MemFlags(flags.clamp(0, 7) as u32)));
                return Ok(Some(Val::Void));
            }
            _ => return Ok(None),
        };
        let orders = if op == AtomicOp::CmpXchg { 2 } else { 1 };
        let want: &[usize] = if explicit {
            &[1 + values + orders, 2 + values + orders]
        } else {
            &[1 + values]
        };
        self.arity(name, args, want, pos)?;
        let (p, pt) = self.rvalue(&args[0])?;
        let elem = match &pt {
            Type::Pointer(
                AddressSpace::Global | AddressSpace::Local | AddressSpace::Generic,
                t,
            ) => (**t).clone(),
            _ => {
                let ts = self.type_str(&pt);
                return self.err(args[0].pos, format!("no matching function for call to '{name}': '{ts}' is not a pointer to an atomic object in __global or __local memory"));
            }
        };
        if !matches!(elem, Type::Scalar(s) if s.size() >= 4) {
            let ts = self.type_str(&pt);
            return self.err(
                args[0].pos,
                format!("no matching function for call to '{name}' with '{ts}'"),
            );
        }
        // An order or scope that is not a constant expression is legal
        // (OpenCL C 6.15.12.3: "memory_order … may be a run-time value");
        // the strongest one is correct for every value it may take.
        let order = if explicit {
            match self.atomic_enum_arg(&args[1 + values])? {
                Some(0) => MemoryOrder::Relaxed,
                Some(1 | 2) => MemoryOrder::Acquire,
                Some(3) => MemoryOrder::Release,
                Some(4) => MemoryOrder::AcqRel,
                _ => MemoryOrder::SeqCst,
            }
        } else {
            MemoryOrder::SeqCst
        };
        if explicit && orders == 2 {
            // The failure order of compare-exchange: no stronger than the
            // success order's load, which the instruction already honours.
            self.atomic_enum_arg(&args[2 + values])?;
        }
        let default_scope = if pt.address_space() == Some(AddressSpace::Local) {
            MemoryScope::WorkGroup
        } else {
            MemoryScope::Device
        };
        let scope = match args.get(1 + values + orders).filter(|_| explicit) {
            Some(e) => match self.atomic_enum_arg(e)? {
                Some(0) => MemoryScope::WorkItem,
                Some(1) => MemoryScope::SubGroup,
                Some(2) => MemoryScope::WorkGroup,
                Some(3) => MemoryScope::Device,
                _ => MemoryScope::AllDevices,
            },
            None => default_scope,
        };
        self.set_pos(pos);
        if base == "init" {
            let (v, t) = self.rvalue(&args[1])?;
            let v = self.convert(v, &t, &elem, pos, false)?;
            self.b().store(p, v);
            return Ok(Some(Val::Void));
        }
        if op == AtomicOp::CmpXchg {
            // bool atomic_compare_exchange(A *obj, C *expected, C desired):
            // on failure the current value is written to *expected.
            let (ep, et) = self.rvalue(&args[1])?;
            if et.pointee() != Some(&elem) {
                let ts = self.type_str(&et);
                return self.err(
                    args[1].pos,
                    format!("'{name}' expects a pointer to the expected value, not '{ts}'"),
                );
            }
            let expected = self.b().push(Inst::Load(ep), elem.clone());
            let (dv, dt) = self.rvalue(&args[2])?;
            let desired = self.convert(dv, &dt, &elem, pos, false)?;
            self.set_pos(pos);
            let old = self.b().push(
                Inst::Atomic {
                    op,
                    ptr: p,
                    args: vec![expected, desired],
                    order,
                    scope,
                },
                elem.clone(),
            );
            // Success is equal bits, as the exchange compared them (a float
            // NaN may succeed; -0.0 does not match 0.0).
            let ok = match elem.scalar() {
                Some(s) if s.is_float() => {
                    let bits = Type::Scalar(s.unsigned_int_of_same_width());
                    let o = self.b().push(Inst::Bitcast(old), bits.clone());
                    let e = self.b().push(Inst::Bitcast(expected), bits);
                    self.b().cmp(CmpOp::Eq, o, e)
                }
                _ => self.b().cmp(CmpOp::Eq, old, expected),
            };
            self.b().begin_block();
            self.b().store(ep, old);
            let on_fail = self.b().end_block();
            self.b().stmt(Stmt::If {
                cond: ok,
                then_: Block::default(),
                else_: on_fail,
            });
            return Ok(Some(Val::R(ok, Type::BOOL)));
        }
        let mut operands = Vec::new();
        match base {
            "flag_test_and_set" => {
                operands.push(self.b().const_bits(elem.scalar().unwrap_or(Scalar::I32), 1))
            }
            "flag_clear" => {
                operands.push(self.b().const_bits(elem.scalar().unwrap_or(Scalar::I32), 0))
            }
            _ => {
                for a in &args[1..1 + values] {
                    let (v, t) = self.rvalue(a)?;
                    operands.push(self.convert(v, &t, &elem, pos, false)?);
                }
            }
        }
        if elem.scalar().is_some_and(|s| s.is_float())
            && !matches!(op, AtomicOp::Load | AtomicOp::Store | AtomicOp::Xchg)
        {
            return self.err(
                pos,
                format!("no matching function for call to '{name}' with a floating-point atomic"),
            );
        }
        self.set_pos(pos);
        let ty = if op == AtomicOp::Store {
            Type::Void
        } else {
            elem.clone()
        };
        let r = self.b().push(
            Inst::Atomic {
                op,
                ptr: p,
                args: operands,
                order,
                scope,
            },
            ty,
        );
        Ok(Some(match base {
            "flag_test_and_set" => {
                let z = self.zero(&elem);
                Val::R(self.b().cmp(CmpOp::Ne, r, z), Type::BOOL)
            }
            _ if op == AtomicOp::Store => Val::Void,
            _ => Val::R(r, elem),
        }))
    }

    /// The value of a `memory_order`, `memory_scope` or
    /// `cl_mem_fence_flags` argument when it is a constant expression;
    /// otherwise `None`, after evaluating it for its side effects.
    fn atomic_enum_arg(&mut self, e: &Expr) -> LResult<Option<i64>> {
        let before = self.diags.list.len();
        match self.const_int(e) {
            Ok(v) => Ok(Some(v)),
            Err(_) => {
                self.diags.list.truncate(before);
                self.rvalue(e)?;
                Ok(None)
            }
        }
    }
}

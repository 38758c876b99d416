//! Checked mode's `__local` checks, the generated half: calls that keep
//! the shadow state of `crate::races` up to date.
//!
//! Only in kernels compiled with `JitOptions::local_checks` (the `Checked`
//! safety level; robust access has none of this). Each group starts with a
//! call to `vecl_races_group`, which hands back the thread's shadow state
//! (kept in a Cranelift value for the whole group); each barrier region
//! starts with `vecl_races_region` (a new epoch); and every access that may
//! touch `__local` memory — through a `__local` or generic pointer, or one
//! whose origin the lowering does not know — calls `vecl_races_access`
//! before it is made, with the chunk's lane addresses and active lanes
//! stored in a stack slot (the `i64x2` address pieces and `i32x4` mask
//! pieces as they are, no lane extraction). A finding makes the entry
//! return `KernelStatus::LocalMemory` at once. `async_work_group_copy`
//! into `__local` memory marks what it wrote (`vecl_races_copied`).
//!
//! The hook sits before every path an access may take (uniform, whole
//! vector, gather and scatter), so the vector fast paths stay as they are;
//! the cost is the call, which does the per-lane work in Rust.

use super::lanes::{elem_of, Lanes};
use super::{FunctionCx, LResult};
use crate::abi::{ArgKind, ArgSlot};
use crate::layout::GlobalPlace;
use crate::races::{pack_local_site, LocalAccess};
use cranelift_codegen::ir::{
    condcodes::IntCC, types, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind,
    Value,
};
use vecl_ir::{AddressSpace, AtomicOp, Function, Inst, Loc, Module, ValueId};

/// The generated side's state: the granule and, while a group is lowered,
/// the shadow state's address.
#[derive(Clone, Debug)]
pub(crate) struct RaceCx {
    /// log2 of the bytes a shadow cell stands for ([`granule_shift`]).
    shift: u32,
    /// The value `vecl_races_group` returned for the group being run.
    state: Option<Value>,
    /// W lane addresses then W lane flags, filled before each call.
    slot: Option<StackSlot>,
}

impl RaceCx {
    /// `None` for a kernel with no `__local` memory of its own: no
    /// `__local` parameter and no `__local` variable but the compiler's
    /// (a generic pointer can point to `__local` memory only if there is
    /// some), so that kernels without it pay nothing per group.
    pub fn new(
        module: &Module,
        func: &Function,
        arg_slots: &[ArgSlot],
        places: &[Option<GlobalPlace>],
    ) -> Option<RaceCx> {
        let param = arg_slots.iter().any(|s| s.kind == ArgKind::LocalPointer);
        let variable = module.globals.iter().zip(places).any(|(g, p)| {
            matches!(p, Some(GlobalPlace::Local(_))) && !g.name.starts_with("__vecl_")
        });
        (param || variable).then(|| RaceCx {
            shift: granule_shift(module, func),
            state: None,
            slot: None,
        })
    }
}

/// log2 of the shadow granule: 2 (a 4-byte word), or 0 when the kernel
/// makes an access narrower than 4 bytes through a pointer that may point
/// to `__local` memory (two work-items writing the two bytes of one
/// `ushort` pair do not race).
pub(crate) fn granule_shift(module: &Module, func: &Function) -> u32 {
    let narrow = |p: ValueId| {
        let ty = func.ty(p);
        matches!(ty, vecl_ir::Type::Pointer(..))
            && may_be_local(ty.address_space())
            && ty
                .pointee()
                .is_some_and(|t| !module.size_of(t).is_multiple_of(4) || module.size_of(t) == 0)
    };
    let mut any = false;
    for d in &func.insts {
        match &d.inst {
            Inst::Load(p) | Inst::Atomic { ptr: p, .. } => any |= narrow(*p),
            // `vload_half`, `vstore4` of a `uchar` pointer, …
            Inst::Builtin(_, args) => any |= args.iter().any(|a| narrow(*a)),
            _ => {}
        }
    }
    let mut stack = vec![&func.body];
    while let Some(b) = stack.pop() {
        for s in &b.0 {
            match s {
                vecl_ir::Stmt::Store { ptr, .. } => any |= narrow(*ptr),
                vecl_ir::Stmt::Copy { dst, src, size, .. } => {
                    let local = |p: &ValueId| may_be_local(func.ty(*p).address_space());
                    any |= !size.is_multiple_of(4) && (local(dst) || local(src));
                }
                vecl_ir::Stmt::If { then_, else_, .. } => {
                    stack.push(then_);
                    stack.push(else_);
                }
                vecl_ir::Stmt::Loop { body, continuing } => {
                    stack.push(body);
                    stack.push(continuing);
                }
                vecl_ir::Stmt::Switch { cases, .. } => stack.extend(cases.iter().map(|c| &c.body)),
                _ => {}
            }
        }
    }
    if any {
        0
    } else {
        2
    }
}

fn may_be_local(space: Option<AddressSpace>) -> bool {
    matches!(
        space,
        Some(AddressSpace::Local | AddressSpace::Generic) | None
    )
}

/// The kernel's own `__local` variables: name, offset in the arena, bytes.
pub(crate) fn local_variables(
    module: &Module,
    places: &[Option<GlobalPlace>],
) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = module
        .globals
        .iter()
        .zip(places)
        .filter_map(|(g, p)| match p {
            Some(GlobalPlace::Local(off)) => Some((
                g.name.clone(),
                u64::from(*off),
                u64::from(module.size_of(&g.ty)),
            )),
            _ => None,
        })
        .collect();
    out.sort_by_key(|(_, off, _)| *off);
    out
}

impl FunctionCx<'_, '_> {
    /// At the start of each group: gets the shadow state for it.
    /// `local_size` and `group_id` are in the code's own dimensions.
    pub fn races_group_start(
        &mut self,
        local_mem: Value,
        local_size: [Value; 3],
        group_id: [Value; 3],
    ) -> LResult<()> {
        let Some(rc) = self.races.as_ref() else {
            return Ok(());
        };
        let shape = (u64::from(rc.shift) << 8) | self.kernel.lanes_along() as u64;
        let launch = self.env().launch;
        let len = self.b.ins().load(
            types::I64,
            super::invariant(),
            launch,
            crate::abi::launch_offsets::LOCAL_MEM_SIZE,
        );
        let mut group = group_id;
        group.swap(0, self.kernel.lanes_along());
        let shape = self.b.ins().iconst(types::I64, shape as i64);
        let f = self.extern_fn("vecl_races_group", &[types::I64; 8], Some(types::I64))?;
        let args = [
            local_mem,
            len,
            local_size[0],
            local_size[1],
            group[0],
            group[1],
            group[2],
            shape,
        ];
        let state = self.call(f, &args);
        if let Some(rc) = self.races.as_mut() {
            rc.state = state;
        }
        Ok(())
    }

    /// At the start of each barrier region: a new epoch.
    pub fn races_region_start(&mut self) -> LResult<()> {
        let Some(state) = self.races.as_ref().and_then(|r| r.state) else {
            return Ok(());
        };
        let f = self.extern_fn("vecl_races_region", &[types::I64], None)?;
        self.call(f, &[state]);
        Ok(())
    }

    /// Before an access of `bytes` bytes per active lane at `addr` through
    /// `ptr` (`None`: a pointer the lowering cannot name), in kernels with
    /// the `__local` checks: updates the shadow, and returns from the entry
    /// with its status on a finding.
    pub fn track_local(
        &mut self,
        ptr: Option<ValueId>,
        addr: &Lanes,
        bytes: u32,
        kind: LocalAccess,
    ) -> LResult<()> {
        let Some(state) = self.races.as_ref().and_then(|r| r.state) else {
            return Ok(());
        };
        if let Some(p) = ptr {
            if !may_be_local(self.kernel.func().ty(p).address_space()) || self.is_internal(p) {
                return Ok(());
            }
        }
        let w = self.kernel.w();
        let slot = match self.races.as_ref().and_then(|r| r.slot) {
            Some(s) => s,
            None => {
                let s = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    12 * w,
                    4,
                ));
                if let Some(rc) = self.races.as_mut() {
                    rc.slot = Some(s);
                }
                s
            }
        };
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        let flags = MemFlagsData::trusted();
        let pieces = match addr {
            Lanes::Uniform(a) => {
                let v = self.b.ins().splat(types::I64X2, *a);
                vec![v; (w / 2) as usize]
            }
            Lanes::Varying(p) => p.clone(),
        };
        for (k, p) in pieces.iter().enumerate() {
            self.b.ins().store(flags, *p, at, 16 * k as i32);
        }
        let m = self.cur_mask();
        for (k, p) in m.iter().enumerate() {
            self.b
                .ins()
                .store(flags, *p, at, (8 * w + 16 * k as u32) as i32);
        }
        let first = self.first_item_number();
        let loc = ptr.map(|p| self.access_loc(p)).unwrap_or(Loc::NONE);
        let mut site = pack_local_site(kind, loc.line, loc.col);
        if addr.is_uniform() {
            site |= crate::races::SAME_ADDRESS;
        }
        let site = self.b.ins().iconst(types::I64, site as i64);
        let wv = self.b.ins().iconst(types::I64, i64::from(w));
        let n = self.b.ins().iconst(types::I64, i64::from(bytes));
        let f = self.extern_fn("vecl_races_access", &[types::I64; 6], Some(types::I32))?;
        let status = self
            .call(f, &[state, at, wv, first, n, site])
            .ok_or_else(|| self.internal("vecl_races_access without a result"))?;
        let (cold, cont) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        let bad = self.b.ins().icmp_imm_s(IntCC::NotEqual, status, 0);
        self.b.ins().brif(bad, cold, &[], cont, &[]);
        self.b.switch_to_block(cold);
        self.b.seal_block(cold);
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
        Ok(())
    }

    /// Before a load of a `ty` through `ptr`.
    pub fn track_load(&mut self, ptr: ValueId, ty: &vecl_ir::Type) -> LResult<()> {
        if self.races.is_none() {
            return Ok(());
        }
        let bytes = elem_of(ty).map_or(0, |s| s.size() * ty.lanes());
        let addr = self.scalar(ptr)?;
        self.track_local(Some(ptr), &addr, bytes, LocalAccess::Read)
    }

    /// Before a store of `value` through `ptr`.
    pub fn track_store(&mut self, ptr: ValueId, value: ValueId) -> LResult<()> {
        if self.races.is_none() {
            return Ok(());
        }
        let ty = self.kernel.func().ty(value).clone();
        let bytes = elem_of(&ty).map_or(0, |s| s.size() * ty.lanes());
        let addr = self.scalar(ptr)?;
        self.track_local(Some(ptr), &addr, bytes, LocalAccess::Write)
    }

    /// Before an atomic `op` through `ptr`.
    pub fn track_atomic(&mut self, op: AtomicOp, ptr: ValueId) -> LResult<()> {
        if self.races.is_none() {
            return Ok(());
        }
        let bytes = self
            .kernel
            .func()
            .ty(ptr)
            .pointee()
            .map_or(0, |t| self.kernel.module().size_of(t));
        let kind = if op == AtomicOp::Store {
            LocalAccess::AtomicStore
        } else {
            LocalAccess::Atomic
        };
        let addr = self.scalar(ptr)?;
        self.track_local(Some(ptr), &addr, bytes, kind)
    }

    /// Before a copy of `size` bytes from `src` to `dst`.
    pub fn track_copy(&mut self, dst: ValueId, src: ValueId, size: u32) -> LResult<()> {
        if self.races.is_none() {
            return Ok(());
        }
        let s = self.scalar(src)?;
        self.track_local(Some(src), &s, size, LocalAccess::Read)?;
        let d = self.scalar(dst)?;
        self.track_local(Some(dst), &d, size, LocalAccess::Write)
    }

    /// After `async_work_group_copy` wrote `n` elements of `elem` bytes
    /// `stride` elements apart at `dst`: they count as written.
    pub fn races_copied(
        &mut self,
        dst: Value,
        n: Value,
        elem: Value,
        stride: Value,
    ) -> LResult<()> {
        let Some(state) = self.races.as_ref().and_then(|r| r.state) else {
            return Ok(());
        };
        let f = self.extern_fn("vecl_races_copied", &[types::I64; 5], None)?;
        self.call(f, &[state, dst, n, elem, stride]);
        Ok(())
    }

    /// The number of the chunk's lane 0 in its group:
    /// `x0 + lx * (y + ly * z)` in the code's own dimensions.
    fn first_item_number(&mut self) -> Value {
        let env = self.env().clone();
        let ro = super::invariant();
        use crate::abi::launch_offsets as lo;
        let lx = self
            .b
            .ins()
            .load(types::I64, ro, env.launch, lo::LOCAL_SIZE);
        let ly = self
            .b
            .ins()
            .load(types::I64, ro, env.launch, lo::LOCAL_SIZE + 8);
        let zy = self.b.ins().imul(env.z, ly);
        let row = self.b.ins().iadd(zy, env.y);
        let rx = self.b.ins().imul(row, lx);
        self.b.ins().iadd(rx, env.x0)
    }

    /// Whether `ptr` points into a `__local` variable the compiler added
    /// (the work-group collectives' scratch area, `crate::collectives`),
    /// whose accesses are correct by construction and partly made by
    /// run-time helpers the shadow does not see.
    fn is_internal(&self, ptr: ValueId) -> bool {
        let mut v = ptr;
        for _ in 0..16 {
            match &self.kernel.func().inst(v).inst {
                Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
                    v = *p
                }
                Inst::GlobalAddr(g) => {
                    return self
                        .kernel
                        .module()
                        .globals
                        .get(g.index())
                        .is_some_and(|gl| gl.name.starts_with("__vecl_"))
                }
                _ => return false,
            }
        }
        false
    }

    /// The source position of an access through `ptr`: the pointer's own,
    /// or that of the pointer it is computed from.
    fn access_loc(&self, ptr: ValueId) -> Loc {
        let mut v = ptr;
        for _ in 0..8 {
            let data = self.kernel.func().inst(v);
            if data.loc.is_known() {
                return data.loc;
            }
            match &data.inst {
                Inst::Index(p, _) | Inst::Elem(p, _) | Inst::Field(p, _) | Inst::PtrCast(p) => {
                    v = *p
                }
                _ => break,
            }
        }
        Loc::NONE
    }
}

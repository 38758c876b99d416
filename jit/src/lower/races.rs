//! Checked mode's `__local` checks, the generated half: calls that keep
//! the shadow state of `crate::races` up to date.
//!
//! Only in kernels compiled with `JitOptions::local_checks` (the `Checked`
//! safety level; robust access has none of this). Each group starts with a
//! call to `vecl_races_group`, which hands back the thread's shadow state
//! (kept in a Cranelift value for the whole group); each barrier region
//! starts with a new epoch (the state's counter, stepped inline); and every
//! access that may touch `__local` memory — through a `__local` or generic
//! pointer, or one whose origin the lowering does not know — calls
//! `vecl_races_access` before it is made, with the chunk's lane addresses
//! and active lanes stored in a stack slot (the `i64x2` address pieces and
//! `i32x4` mask pieces as they are, no lane extraction). A finding makes
//! the entry return `KernelStatus::LocalMemory` at once.
//! `async_work_group_copy` into `__local` memory marks what it wrote
//! (`vecl_races_copied`).
//!
//! The accesses `super::race_proofs` proves free of conflicts in their
//! region skip the call where their object is already written in the
//! group, and mark or test their granules' `init` words as vectors where
//! it is not yet (`FunctionCx::races_proven`); the call stays for the
//! rest, and for every case the proof's conditions on the launch do not
//! cover.
//!
//! The hook sits before every path an access may take (uniform, whole
//! vector, gather and scatter), so the vector fast paths stay as they are.

use super::lanes::{elem_of, Lanes};
use super::race_proofs::{Injective, Key, LocalObject, Proofs, RacePlan, SYM_LIMIT};
use super::{FunctionCx, LResult};
use crate::abi::{checked_offsets as co, ArgKind, ArgSlot};
use crate::layout::GlobalPlace;
use crate::races::{pack_local_site, LocalAccess};
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, FuncRef, InstBuilder, MemFlagsData, Signature, StackSlot,
    StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncOrDataId, Linkage, Module as _};
use vecl_ir::{AddressSpace, AtomicOp, Function, Inst, Loc, Module, ValueId};

/// The generated side's state: the granule and, while a group is lowered,
/// the shadow state's address.
#[derive(Clone, Debug)]
pub(crate) struct RaceCx {
    /// log2 of the bytes a shadow cell stands for ([`granule_shift`]).
    shift: u32,
    /// The value `vecl_races_group` returned for the group being run.
    state: Option<Value>,
    /// W lane addresses then W lane flags, filled before each call, then
    /// the status the call stores.
    slot: Option<StackSlot>,
    /// The accesses that need no tracking where their object is
    /// initialised (`super::race_proofs`).
    plan: RacePlan,
    /// The objects conflict-free in some region, in a fixed order: the
    /// index of each is its word in `ready`.
    objects: Vec<LocalObject>,
    /// One `i32` per object of `objects`: non-zero once every granule of
    /// it has been written in the current group (cleared at its start).
    ready: Option<StackSlot>,
    /// The launch conditions of the own-word keys, computed at the
    /// group's start.
    conds: Vec<(Key, Value)>,
    /// The region being lowered.
    region: usize,
    /// For the region being lowered, per conflict-free object: an `i8`
    /// non-zero when its accesses skip the shadow (initialised, and the
    /// proof's conditions on the launch hold), and one non-zero when the
    /// proof's conditions hold (the object may not be initialised yet).
    fast: Vec<(LocalObject, Value, Value)>,
    /// Set while the copy of a region's chunk statements that runs only
    /// when every conflict-free object of the region skips the shadow is
    /// lowered ([`FunctionCx::lower_chunk_stmts`]): its proven accesses
    /// need no test at all.
    all_fast: bool,
    /// Read from the shadow state at the group's start, for the proven
    /// accesses that mark or test their granules' `init` words inline:
    /// the words' address, the arena's address and length, the group's
    /// first epoch.
    inline: Option<[Value; 4]>,
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
        regions: &[&[vecl_ir::Stmt]],
        group_vars: &std::collections::HashSet<vecl_ir::VarId>,
        splits: &[super::group_level::Split],
    ) -> Option<RaceCx> {
        if !has_local_memory(module, arg_slots, places) {
            return None;
        }
        let shift = granule_shift(module, func);
        let entry = regions.first().copied().unwrap_or(&[]);
        let proofs = Proofs::new(module, func, arg_slots, places, shift, entry, group_vars);
        let plan = proofs.plan(regions, splits);
        let mut objects: Vec<LocalObject> = (0..regions.len())
            .flat_map(|r| plan.free_in(r).iter().map(|f| f.object))
            .collect();
        objects.sort();
        objects.dedup();
        Some(RaceCx {
            shift,
            state: None,
            slot: None,
            plan,
            objects,
            ready: None,
            conds: Vec::new(),
            region: 0,
            fast: Vec::new(),
            all_fast: false,
            inline: None,
        })
    }
}

/// Whether the kernel has `__local` memory of its own: a `__local`
/// parameter or a `__local` variable other than the compiler's. A generic
/// pointer can point to `__local` memory only if there is some, so a
/// kernel without any has nothing for the `__local` checks to watch.
pub(crate) fn has_local_memory(
    module: &Module,
    arg_slots: &[ArgSlot],
    places: &[Option<GlobalPlace>],
) -> bool {
    let param = arg_slots.iter().any(|s| s.kind == ArgKind::LocalPointer);
    let variable =
        module.globals.iter().zip(places).any(|(g, p)| {
            matches!(p, Some(GlobalPlace::Local(_))) && !g.name.starts_with("__vecl_")
        });
    param || variable
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
        self.races_group_proofs(local_size)
    }

    /// At the start of each group, for the proofs of `super::race_proofs`:
    /// clears the objects' "initialised" words and evaluates each own-word
    /// key's condition on the group's size.
    fn races_group_proofs(&mut self, local_size: [Value; 3]) -> LResult<()> {
        let Some(rc) = self.races.as_ref() else {
            return Ok(());
        };
        let objects = rc.objects.len() as u32;
        if objects == 0 {
            return Ok(());
        }
        let state = rc.state;
        let mut keys: Vec<Key> = (0..rc.plan.regions())
            .flat_map(|r| rc.plan.free_in(r).iter().filter_map(|f| f.key))
            .collect();
        keys.dedup();
        let ready = match rc.ready {
            Some(s) => s,
            None => {
                let s = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    4 * objects,
                    2,
                ));
                if let Some(rc) = self.races.as_mut() {
                    rc.ready = Some(s);
                }
                s
            }
        };
        if let Some(state) = state {
            use crate::races::state_offsets as so;
            let ro = MemFlagsData::trusted();
            let init = self.b.ins().load(types::I64, ro, state, so::INIT);
            let base = self.b.ins().load(types::I64, ro, state, so::BASE);
            let len = self.b.ins().load(types::I64, ro, state, so::LEN);
            let start = self.b.ins().load(types::I32, ro, state, so::GROUP_START);
            if let Some(rc) = self.races.as_mut() {
                rc.inline = Some([init, base, len, start]);
            }
        }
        let zero = self.b.ins().iconst(types::I32, 0);
        for i in 0..objects {
            self.b
                .ins()
                .stack_store(types::I64, zero, ready, 4 * i as i32);
        }
        let mut conds = Vec::new();
        for key in keys {
            if conds.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let steps = key
                .injective_for()
                .ok_or_else(|| self.internal("a conflict-free key without a condition"))?;
            let mut ok = self.b.ins().iconst(types::I8, 1);
            for step in steps {
                let holds = match step {
                    Injective::Single(d) => self.b.ins().icmp_imm_s(IntCC::Equal, local_size[d], 1),
                    Injective::Spaced { below, stride } => {
                        let mut span = self.b.ins().iconst(types::I64, i64::from(key.bytes));
                        for d in below {
                            let l = self.b.ins().iadd_imm_s(local_size[d], -1);
                            let part = self.b.ins().imul_imm_s(l, key.k[d].abs());
                            span = self.b.ins().iadd(span, part);
                        }
                        self.b
                            .ins()
                            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, span, stride as i64)
                    }
                };
                ok = self.b.ins().band(ok, holds);
            }
            conds.push((key, ok));
        }
        if let Some(rc) = self.races.as_mut() {
            rc.conds = conds;
        }
        Ok(())
    }

    /// At the start of barrier region `r`: a new epoch, and for each
    /// object conflict-free in the region, whether its accesses here skip
    /// the shadow.
    pub fn races_region_start(&mut self, r: usize) -> LResult<()> {
        let Some(state) = self.races.as_ref().and_then(|r| r.state) else {
            return Ok(());
        };
        // A new epoch: `vecl_races_region`, inline.
        let flags = MemFlagsData::trusted();
        let epoch_at = crate::races::state_offsets::EPOCH;
        let epoch = self.b.ins().load(types::I32, flags, state, epoch_at);
        let next = self.b.ins().iadd_imm_s(epoch, 1);
        self.b.ins().store(flags, next, state, epoch_at);
        let Some(rc) = self.races.as_mut() else {
            return Ok(());
        };
        rc.region = r;
        rc.fast.clear();
        let free = rc.plan.free_in(r).to_vec();
        for f in free {
            let ready = self.races_ready(state, f.object)?;
            let mut ok = self.b.ins().iconst(types::I8, 1);
            if let Some(k) = f.key {
                let cond = self
                    .races
                    .as_ref()
                    .and_then(|rc| rc.conds.iter().find(|(x, _)| *x == k))
                    .map(|(_, v)| *v)
                    .ok_or_else(|| self.internal("a key without its condition"))?;
                ok = self.b.ins().band(ok, cond);
            }
            // The group-level variables the proof reads lie in the range
            // it was made for.
            for var in f.vars {
                let val = self.read_var(var)?;
                let small = match val.as_slice() {
                    [Lanes::Uniform(v)] => {
                        let ty = self.b.func.dfg.value_type(*v);
                        let signed = self
                            .kernel
                            .func()
                            .vars
                            .get(var.index())
                            .and_then(|x| x.ty.scalar())
                            .is_some_and(|s| s.is_signed());
                        let wide = match (ty.bits(), signed) {
                            (64, _) => *v,
                            (_, true) => self.b.ins().sextend(types::I64, *v),
                            (_, false) => self.b.ins().uextend(types::I64, *v),
                        };
                        self.b
                            .ins()
                            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, wide, SYM_LIMIT)
                    }
                    _ => self.b.ins().iconst(types::I8, 0),
                };
                ok = self.b.ins().band(ok, small);
            }
            let fast = self.b.ins().band(ready, ok);
            if let Some(rc) = self.races.as_mut() {
                rc.fast.push((f.object, fast, ok));
            }
        }
        Ok(())
    }

    /// Lowers a chunk's statements `stmts` of the current region and
    /// jumps to `end`. Where the region has objects proven free of
    /// conflicts, they are lowered twice, and one branch per chunk on the
    /// region's flags picks the copy: one for chunks of a region instance
    /// where every such object skips the shadow (its *fast* flag, set at
    /// the region's start, holds), whose proven accesses have no test at
    /// all, and the general copy, where each proven access tests its
    /// object's flag as before. Each copy does exactly what the general
    /// code does for the flags it runs under, so every report is the
    /// same; the fast copy only leaves the tests of a flag it knows out
    /// of the inner loops (matmul's `ta[ly][k] * tb[k][lx]`: two tests
    /// and the blocks around them per multiply-add before).
    pub fn lower_chunk_stmts(
        &mut self,
        stmts: &[vecl_ir::Stmt],
        end: cranelift_codegen::ir::Block,
    ) -> LResult<()> {
        let body = vecl_ir::Block(stmts.to_vec());
        let flags: Vec<Value> = match self.races.as_ref() {
            Some(rc) if !rc.all_fast && rc.state.is_some() => {
                rc.fast.iter().map(|(_, fast, _)| *fast).collect()
            }
            _ => Vec::new(),
        };
        let Some((&first, rest)) = flags.split_first() else {
            self.lower_block(&body)?;
            self.jump_live(end);
            return Ok(());
        };
        let all = rest.iter().fold(first, |a, f| self.b.ins().band(a, *f));
        let (fast_b, general_b) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(all, fast_b, &[], general_b, &[]);
        // The general copy first: the report's counts describe it.
        let (values, mask) = (self.vals.snapshot(), self.cur_mask());
        self.enter(general_b);
        self.lower_block(&body)?;
        self.jump_live(end);
        let stats = self.stats.clone();
        self.enter(fast_b);
        self.set_cur(&mask);
        self.vals.restore(values);
        if let Some(rc) = self.races.as_mut() {
            rc.all_fast = true;
        }
        let lowered = self.lower_block(&body);
        if let Some(rc) = self.races.as_mut() {
            rc.all_fast = false;
        }
        lowered?;
        let notes = std::mem::take(&mut self.stats.notes);
        self.stats = stats;
        self.stats.notes = notes;
        self.jump_live(end);
        Ok(())
    }

    /// In the copy of [`Self::lower_chunk_stmts`] where every
    /// conflict-free object of the region skips the shadow: whether an
    /// access through `ptr` is one of theirs.
    fn known_fast(&self, ptr: Option<ValueId>) -> bool {
        let (Some(rc), Some(p)) = (self.races.as_ref(), ptr) else {
            return false;
        };
        rc.all_fast
            && rc
                .plan
                .free_object(rc.region, p)
                .is_some_and(|o| rc.fast.iter().any(|(x, ..)| *x == o))
    }

    /// An `i8`, non-zero when every granule of `object` has been written
    /// in this group: the cached word, or (until it holds) a look at the
    /// shadow, `vecl_races_ready`.
    fn races_ready(&mut self, state: Value, object: LocalObject) -> LResult<Value> {
        let (slot, index) = match self.races.as_ref() {
            Some(rc) => (rc.ready, rc.objects.iter().position(|o| *o == object)),
            None => (None, None),
        };
        let (Some(slot), Some(index)) = (slot, index) else {
            return Err(self.internal("a conflict-free object without its word"));
        };
        let at = 4 * index as i32;
        let cached = self.b.ins().stack_load(types::I64, types::I32, slot, at);
        let (look, join) = (self.b.create_block(), self.b.create_block());
        let ready = self.b.append_block_param(join, types::I32);
        self.b.ins().brif(cached, join, &[cached.into()], look, &[]);
        self.b.switch_to_block(look);
        self.b.seal_block(look);
        let local_mem = self.env().local_mem;
        let (start, end) = match object {
            LocalObject::Var(g) => {
                let off = match self.kernel.places().get(g.index()) {
                    Some(Some(GlobalPlace::Local(off))) => i64::from(*off),
                    _ => return Err(self.internal("a __local variable without a place")),
                };
                let module = self.kernel.module();
                let size = module
                    .globals
                    .get(g.index())
                    .map_or(0, |gl| module.size_of(&gl.ty));
                let start = self.b.ins().iadd_imm_s(local_mem, off);
                let end = self.b.ins().iadd_imm_s(start, i64::from(size));
                (start, end)
            }
            LocalObject::Param(n) => {
                let tail = self
                    .kernel
                    .checks()
                    .map(|c| c.tail)
                    .ok_or_else(|| self.internal("__local checks without bounds checks"))?;
                let args = self.env().args;
                let at = tail as i32 + co::BOUNDS + co::BOUNDS_ENTRY * n as i32;
                let plain = super::invariant();
                let s = self.b.ins().load(types::I64, plain, args, at);
                let e = self.b.ins().load(types::I64, plain, args, at + 8);
                let start = self.b.ins().iadd(local_mem, s);
                let end = self.b.ins().iadd(local_mem, e);
                (start, end)
            }
        };
        let f = self.extern_fn("vecl_races_ready", &[types::I64; 3], Some(types::I32))?;
        let now = self
            .call(f, &[state, start, end])
            .ok_or_else(|| self.internal("vecl_races_ready without a result"))?;
        self.b.ins().stack_store(types::I64, now, slot, at);
        self.b.ins().jump(join, &[now.into()]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        Ok(self.b.ins().icmp_imm_s(IntCC::NotEqual, ready, 0))
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
        if self.known_fast(ptr) {
            return Ok(());
        }
        let skip = self.races_proven(ptr, addr, bytes, kind)?;
        let w = self.kernel.w();
        let slot = match self.races.as_ref().and_then(|r| r.slot) {
            Some(s) => s,
            None => {
                let s = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    12 * w + 4,
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
        let f = self.races_access_fn()?;
        self.b.ins().call(f, &[state, at, wv, first, n, site]);
        let status = self.b.ins().load(types::I32, flags, at, (12 * w) as i32);
        let (cold, cont) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        let bad = self.b.ins().icmp_imm_s(IntCC::NotEqual, status, 0);
        self.b.ins().brif(bad, cold, &[], cont, &[]);
        self.b.switch_to_block(cold);
        self.b.seal_block(cold);
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
        if let Some(skip) = skip {
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
            self.b.seal_block(skip);
        }
        Ok(())
    }

    /// For an access proven free of conflicts in its region
    /// (`race_proofs`): skips the shadow when the region started with its
    /// object initialised; otherwise, while the proof's launch conditions
    /// hold, a whole chunk's consecutive store marks its granules'
    /// `init` words as vectors, and a consecutive or uniform load tests
    /// them (the shadow call, which reports exactly, only when one is not
    /// written); any other case calls into the shadow as before. Returns
    /// the block to go on in after the call, with the builder left where
    /// the call goes; `None` for an access with no proof.
    fn races_proven(
        &mut self,
        ptr: Option<ValueId>,
        addr: &Lanes,
        bytes: u32,
        kind: LocalAccess,
    ) -> LResult<Option<cranelift_codegen::ir::Block>> {
        let found = ptr.and_then(|p| {
            let rc = self.races.as_ref()?;
            let o = rc.plan.free_object(rc.region, p)?;
            let (_, fast, cond) = rc.fast.iter().find(|(x, ..)| *x == o)?;
            Some((p, *fast, *cond, rc.inline?, rc.shift))
        });
        let Some((p, fast, cond, [init, base, len, start], shift)) = found else {
            return Ok(None);
        };
        self.stats.conflict_free += 1;
        let (track, skip, next) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // Everything but the skip is off the hot path once the object is
        // written.
        self.b.set_cold_block(track);
        self.b.set_cold_block(next);
        self.b.ins().brif(fast, skip, &[], next, &[]);
        self.b.switch_to_block(next);
        self.b.seal_block(next);
        // Granules per lane, and lanes whose granules follow each other.
        let granule = 1u32 << shift;
        let cells = bytes / granule;
        let linear = self.kernel.uni().shape(p)
            == vecl_ir::analysis::uniformity::Shape::Linear(i64::from(bytes));
        let shape = match (kind, addr) {
            _ if cells == 0 || !bytes.is_multiple_of(granule) => None,
            (LocalAccess::Write | LocalAccess::Read, Lanes::Varying(pieces)) if linear => {
                Some((pieces[0], self.kernel.w() * cells, false))
            }
            (LocalAccess::Read, Lanes::Uniform(a)) if cells == 1 || cells == 4 => {
                Some((*a, cells, true))
            }
            _ => None,
        };
        let scatter = match (kind, addr) {
            (LocalAccess::Write, Lanes::Varying(pieces))
                if shape.is_none() && cells > 0 && bytes.is_multiple_of(granule) =>
            {
                Some(pieces.clone())
            }
            _ => None,
        };
        if let Some(pieces) = scatter {
            self.races_mark_lanes(&pieces, cond, [init, base, len, start], cells, track, skip);
            self.b.switch_to_block(track);
            self.b.seal_block(track);
            return Ok(Some(skip));
        }
        let Some((first, total, uniform)) = shape else {
            self.b.ins().jump(track, &[]);
            self.b.switch_to_block(track);
            self.b.seal_block(track);
            return Ok(Some(skip));
        };
        let a0 = if uniform {
            first
        } else {
            self.b.ins().extractlane(first, 0)
        };
        let off = self.b.ins().isub(a0, base);
        let span = i64::from(total) * i64::from(granule);
        let end = self.b.ins().iadd_imm_s(off, span);
        let starts = self.b.ins().icmp(IntCC::UnsignedLessThan, off, len);
        let ends = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, len);
        let inside = self.b.ins().band(starts, ends);
        let mut ok = self.b.ins().band(cond, inside);
        if !uniform {
            let full = self.mask_is_full();
            ok = self.b.ins().band(ok, full);
        }
        let go = self.b.create_block();
        self.b.set_cold_block(go);
        self.b.ins().brif(ok, go, &[], track, &[]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        let cell = self.b.ins().ushr_imm_u(off, i64::from(shift));
        let cell = self.b.ins().ishl_imm_u(cell, 2);
        let at = self.b.ins().iadd(init, cell);
        let flags = MemFlagsData::trusted();
        if kind == LocalAccess::Write {
            let v = self.b.ins().splat(types::I32X4, start);
            for i in 0..total / 4 {
                self.b.ins().store(flags, v, at, 16 * i as i32);
            }
            self.b.ins().jump(skip, &[]);
        } else if total == 1 {
            let w = self.b.ins().load(types::I32, flags, at, 0);
            let written = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, w, start);
            self.b.ins().brif(written, skip, &[], track, &[]);
        } else {
            let s = self.b.ins().splat(types::I32X4, start);
            let mut all = None;
            for i in 0..total / 4 {
                let w = self.b.ins().load(types::I32X4, flags, at, 16 * i as i32);
                let written = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, w, s);
                all = Some(match all {
                    Some(x) => self.b.ins().band(x, written),
                    None => written,
                });
            }
            let all = all.ok_or_else(|| self.internal("a proven load of no granule"))?;
            let written = self.b.ins().vall_true(all);
            self.b.ins().brif(written, skip, &[], track, &[]);
        }
        self.b.switch_to_block(track);
        self.b.seal_block(track);
        Ok(Some(skip))
    }

    /// For a proven store through per-lane addresses `pieces` (`i64x2`
    /// each) of `cells` granules per lane: when the proof's conditions
    /// hold (`cond`), every lane runs and every lane's granules lie in
    /// the arena, writes the group's first epoch into each lane's `init`
    /// words and goes on at `skip`; otherwise goes to `track`, the shadow
    /// call. (Histogram's `for (b = lid; b < 256; b += n) bins[b] = 0`,
    /// whose index the lane-stride analysis does not see as consecutive:
    /// a call per chunk before.)
    fn races_mark_lanes(
        &mut self,
        pieces: &[Value],
        cond: Value,
        [init, base, len, start]: [Value; 4],
        cells: u32,
        track: cranelift_codegen::ir::Block,
        skip: cranelift_codegen::ir::Block,
    ) {
        let shift = self.races.as_ref().map_or(2, |rc| rc.shift);
        let bytes = i64::from(cells) << shift;
        // `off <= len - bytes` for every lane, with `len >= bytes`.
        let room = self.b.ins().iadd_imm_s(len, -bytes);
        let fits_any = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, len, bytes);
        let base2 = self.b.ins().splat(types::I64X2, base);
        let room2 = self.b.ins().splat(types::I64X2, room);
        let mut offs = Vec::new();
        let mut outside = None;
        for p in pieces {
            let off = self.b.ins().isub(*p, base2);
            let bad = self.b.ins().icmp(IntCC::UnsignedGreaterThan, off, room2);
            outside = Some(match outside {
                Some(x) => self.b.ins().bor(x, bad),
                None => bad,
            });
            offs.push(off);
        }
        let inside = match outside {
            Some(x) => {
                let any = self.b.ins().vany_true(x);
                self.b.ins().icmp_imm_s(IntCC::Equal, any, 0)
            }
            None => self.b.ins().iconst(types::I8, 0),
        };
        let full = self.mask_is_full();
        let ok = self.b.ins().band(cond, inside);
        let ok = self.b.ins().band(ok, full);
        let ok = self.b.ins().band(ok, fits_any);
        let go = self.b.create_block();
        self.b.set_cold_block(go);
        self.b.ins().brif(ok, go, &[], track, &[]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        let flags = MemFlagsData::trusted();
        for off in offs {
            for lane in 0..2u8 {
                let a = self.b.ins().extractlane(off, lane);
                let cell = self.b.ins().ushr_imm_u(a, i64::from(shift));
                let cell = self.b.ins().ishl_imm_u(cell, 2);
                let at = self.b.ins().iadd(init, cell);
                for c in 0..cells {
                    self.b.ins().store(flags, start, at, 4 * c as i32);
                }
            }
        }
        self.b.ins().jump(skip, &[]);
    }

    /// `vecl_races_access` behind an adapter of the `preserve_all`
    /// convention, defined once per JIT module: the adapter saves every
    /// register it uses, so a call that runs only when an access is not
    /// proven clobbers nothing at its call site, and the vectors live
    /// across it stay in registers on the paths that skip it (with a
    /// plain call they were spilled around every access of a hot loop).
    /// The status goes to the word after the lanes (the convention returns
    /// nothing).
    fn races_access_fn(&mut self) -> LResult<FuncRef> {
        const NAME: &str = "vecl_races_access_preserving";
        if let Some(f) = self.cache.imported(NAME) {
            return Ok(f);
        }
        let mut sig = Signature::new(CallConv::PreserveAll);
        sig.params.extend([AbiParam::new(types::I64); 6]);
        let id = match self.jit.get_name(NAME) {
            Some(FuncOrDataId::Func(id)) => id,
            _ => {
                let id = self
                    .jit
                    .declare_function(NAME, Linkage::Local, &sig)
                    .map_err(|e| format!("declaring {NAME}: {e}"))
                    .map_err(|m| self.internal(m))?;
                let mut inner = Signature::new(self.jit.isa().default_call_conv());
                inner.params.extend([AbiParam::new(types::I64); 6]);
                inner.returns.push(AbiParam::new(types::I32));
                let access = self
                    .jit
                    .declare_function("vecl_races_access", Linkage::Import, &inner)
                    .map_err(|e| format!("declaring the callee of {NAME}: {e}"))
                    .map_err(|m| self.internal(m))?;
                let mut ctx = self.jit.make_context();
                ctx.func.signature = sig.clone();
                let mut fctx = FunctionBuilderContext::new();
                let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
                let entry = b.create_block();
                b.append_block_params_for_function_params(entry);
                b.switch_to_block(entry);
                b.seal_block(entry);
                let params = b.block_params(entry).to_vec();
                let callee = self.jit.declare_func_in_func(access, b.func);
                let call = b.ins().call(callee, &params);
                let status = b.inst_results(call)[0];
                let off = b.ins().imul_imm_s(params[2], 12);
                let at = b.ins().iadd(params[1], off);
                b.ins().store(MemFlagsData::trusted(), status, at, 0);
                b.ins().return_(&[]);
                b.finalize(self.jit.isa().frontend_config());
                self.jit
                    .define_function(id, &mut ctx)
                    .map_err(|e| format!("defining {NAME}: {e}"))
                    .map_err(|m| self.internal(m))?;
                id
            }
        };
        let f = self.jit.declare_func_in_func(id, self.b.func);
        self.cache.import(NAME.to_string(), f);
        Ok(f)
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

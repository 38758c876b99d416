//! Structured statements under the active mask.
//!
//! - A uniform `if` stays a branch; a varying one runs each arm under its
//!   lanes' mask and skips an arm no lane takes. A small one with two arms
//!   first tests whether all running lanes take the same arm, which then
//!   runs unmasked (`lower_split_if`).
//! - A loop whose exits are uniform stays a plain loop. A divergent loop runs
//!   while any lane is active: `break` drops lanes from `cur`, `continue`
//!   parks them in the loop's `cont` mask until its `continuing` block, and
//!   on exit the lanes that entered (minus returned ones) resume.
//! - `switch` always runs under masks: each case body runs for the lanes
//!   that matched it or fell through into it.
//! - After a statement that may have emptied the mask, the rest of the block
//!   is skipped when no lane is left, so uniform code never runs for nobody.

use super::lanes::{elem_of, Lanes, Val};
use super::{invariant, FunctionCx, LResult, Target, VarSlot};
use crate::abi::{launch_offsets, KernelStatus};
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, TrapCode, Value};
use vecl_ir::{Block, Stmt, Type, ValueId, VarId};

/// Whether a statement may leave fewer lanes running after it than
/// before: it is, or holds, a `break`, `continue` or `return` of the
/// enclosing loop or of the kernel. A loop's own `break`s and
/// `continue`s end its trips, not the lanes' run after it (every lane
/// that entered leaves it), so in a loop only a `return` counts.
fn has_exit(s: &Stmt) -> bool {
    let block = |b: &Block| b.0.iter().any(has_exit);
    match s {
        Stmt::Break | Stmt::Continue | Stmt::Return(_) => true,
        Stmt::If { then_, else_, .. } => block(then_) || block(else_),
        Stmt::Loop { body, continuing } => has_return(body) || has_return(continuing),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| block(&c.body)),
        _ => false,
    }
}

/// Whether a block holds a `return`, at any depth.
pub(super) fn has_return(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::If { then_, else_, .. } => has_return(then_) || has_return(else_),
        Stmt::Loop { body, continuing } => has_return(body) || has_return(continuing),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| has_return(&c.body)),
        _ => false,
    })
}

/// Statements of a block, nested ones included; `None` when it holds a
/// loop, a `switch` or an exit (`break`, `continue`, `return`).
fn straight_size(b: &Block) -> Option<usize> {
    let mut n = 0;
    for s in &b.0 {
        n += 1 + match s {
            Stmt::If { then_, else_, .. } => straight_size(then_)? + straight_size(else_)?,
            Stmt::Loop { .. } | Stmt::Switch { .. } => return None,
            s if has_exit(s) => return None,
            _ => 0,
        };
    }
    Some(n)
}

/// Statements of both arms of a varying `if` above which it is not split
/// into one-arm paths and the masked one (see `lower_split_if`).
const MAX_SPLIT_STATEMENTS: usize = 40;

/// Whether a block leaves the enclosing loop or chunk at its top level
/// (`break`, `return`).
fn leaves(b: &Block) -> bool {
    b.0.iter()
        .any(|s| matches!(s, Stmt::Break | Stmt::Return(_)))
}

/// Whether a loop body holds a `continue` of its own loop (one in a
/// nested loop continues that loop).
fn has_continue(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Continue => true,
        Stmt::If { then_, else_, .. } => has_continue(then_) || has_continue(else_),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| has_continue(&c.body)),
        _ => false,
    })
}

impl FunctionCx<'_, '_> {
    /// Whether an arm of a varying `if` is only `break`s and `continue`s
    /// that update masks (none jumps out of a uniform loop).
    fn mask_only(&self, b: &Block) -> bool {
        let masked_loop = |t: Option<&Target>| {
            matches!(
                t,
                Some(Target::Loop {
                    divergent: true,
                    ..
                })
            )
        };
        let innermost_loop = self.mask.innermost_loop();
        !b.0.is_empty()
            && b.0.iter().all(|s| match s {
                Stmt::Break => {
                    matches!(self.mask.innermost(), Some(Target::Switch))
                        || masked_loop(self.mask.innermost())
                }
                Stmt::Continue => {
                    masked_loop(innermost_loop)
                        && !matches!(self.mask.innermost(), Some(Target::Switch))
                }
                _ => false,
            })
    }

    pub fn lower_block(&mut self, block: &Block) -> LResult<()> {
        self.lower_block_skipping(block, None).map(|_| ())
    }

    /// Lowers a block whose remaining statements are skipped when a
    /// statement leaves no lane running: to the block's end, or to
    /// `skip_to` when given (the exit of a divergent loop whose body this
    /// is, where an empty mask ends the loop). With `skip_to`, returns the
    /// mask last found non-empty when no later statement changed it: every
    /// path to the block's end passed that test.
    fn lower_block_skipping(
        &mut self,
        block: &Block,
        skip_to: Option<cranelift_codegen::ir::Block>,
    ) -> LResult<Option<Vec<Value>>> {
        let mut skip = None;
        let mut tested = None;
        let mut paired = None;
        for (i, s) in block.0.iter().enumerate() {
            if paired.take() == Some(i) {
                continue;
            }
            if let Some((sin, cos)) = self.sin_cos_pair(s, block.0.get(i + 1)) {
                self.lower_sin_cos_pair(sin, cos)?;
                paired = Some(i + 1);
                continue;
            }
            let exits = has_exit(s);
            let before = exits.then(|| self.cur_mask());
            self.lower_stmt(s)?;
            if matches!(s, Stmt::Break | Stmt::Continue | Stmt::Return(_)) {
                break;
            }
            if exits {
                let m = self.cur_mask();
                // Exits that are plain jumps (a uniform `break` of a
                // uniform loop) leave the mask as it was: no test.
                if before.as_ref() == Some(&m) {
                    continue;
                }
                let rest = self.b.create_block();
                let sk = match skip_to {
                    Some(to) => to,
                    None => *skip.get_or_insert_with(|| self.b.create_block()),
                };
                let any = self.mask_any(&m);
                if skip_to.is_some() {
                    // The loop's exit as first target: see `lower_if`.
                    let none = self.b.ins().icmp_imm_s(IntCC::Equal, any, 0);
                    self.b.ins().brif(none, sk, &[], rest, &[]);
                } else {
                    self.b.ins().brif(any, rest, &[], sk, &[]);
                }
                self.enter(rest);
                if skip_to.is_some() {
                    tested = Some(m);
                }
            }
        }
        if let Some(sk) = skip {
            self.jump_live(sk);
            self.enter(sk);
        }
        let now = self.cur_mask();
        Ok(tested.filter(|m| *m == now))
    }

    /// Continues emission in a fresh block no edge reaches (after a jump).
    /// It is sealed at once (it never gets a predecessor), so that
    /// [`Self::jump_live`] knows it is unreachable.
    fn dead_block(&mut self) {
        let d = self.b.create_block();
        self.b.switch_to_block(d);
        self.b.seal_block(d);
    }

    /// Continues emission in `block`, whose predecessors are all known:
    /// sealing it now lets the builder find a variable's value in the
    /// single predecessor instead of adding a block parameter it may not be
    /// able to remove later.
    pub fn enter(&mut self, block: cranelift_codegen::ir::Block) {
        self.b.switch_to_block(block);
        self.b.seal_block(block);
    }

    /// Jumps to `target`, or ends the current block with a trap when no
    /// edge reaches it (the rest of a block after `break`, `continue` or an
    /// unmasked `return`). An edge from such a block would bring the zeros
    /// the builder gives variables there into the block parameters of
    /// `target`: an outer loop's counters would then look modified by every
    /// inner loop and stay block parameters of its header through
    /// Cranelift's optimisations, costing register allocation time.
    pub fn jump_live(&mut self, target: cranelift_codegen::ir::Block) {
        if self.b.is_unreachable() {
            self.b.ins().trap(TrapCode::unwrap_user(1));
        } else {
            self.b.ins().jump(target, &[]);
        }
    }

    /// `Eval(sin(x))` followed at once by `Eval(cos(x))`, both `float`
    /// of one type: the pair [`Self::lower_sin_cos_pair`] lowers.
    fn sin_cos_pair(&self, s: &Stmt, next: Option<&Stmt>) -> Option<(ValueId, ValueId)> {
        use vecl_ir::{Builtin, Inst};
        let (Stmt::Eval(a), Some(Stmt::Eval(b))) = (s, next) else {
            return None;
        };
        let f = self.kernel.func();
        let (Inst::Builtin(Builtin::Sin, xa), Inst::Builtin(Builtin::Cos, xb)) =
            (&f.inst(*a).inst, &f.inst(*b).inst)
        else {
            return None;
        };
        let same = xa.len() == 1 && xa == xb && f.ty(*a) == f.ty(*b);
        (same && f.ty(*a).scalar() == Some(vecl_ir::Scalar::F32)).then_some((*a, *b))
    }

    /// Both values of a [`Self::sin_cos_pair`], defined as two `Eval`s
    /// would define them.
    fn lower_sin_cos_pair(&mut self, sin: ValueId, cos: ValueId) -> LResult<()> {
        let x = self.kernel.func().inst(sin).inst.operands().next();
        let x = x.ok_or_else(|| self.internal("sin without an argument"))?;
        let (sv, cv) = self.lower_sin_cos_f32(x)?;
        for (v, val) in [(sin, sv), (cos, cv)] {
            let val = self.as_uniform_if_proved(v, val)?;
            self.vals.define(v, val);
            if self.vals.is_saved(v) {
                self.save_value(v)?;
            }
        }
        Ok(())
    }

    fn lower_stmt(&mut self, s: &Stmt) -> LResult<()> {
        match s {
            Stmt::Eval(v) => {
                let val = self.lower_inst(*v)?;
                self.vals.define(*v, val);
                if self.vals.is_saved(*v) {
                    self.save_value(*v)?;
                }
                Ok(())
            }
            Stmt::WriteVar(var, v) => {
                let val = self.value(*v)?;
                // No lane that skips a write in `unblended` reads the
                // variable afterwards (`fresh_writes`): a plain write.
                let blend = self.mask.is_divergent() && !self.vals.is_unblended(*var, *v);
                self.write_var_as(*var, &val, blend)
            }
            Stmt::Store { ptr, value, .. } => {
                self.track_store(*ptr, *value)?;
                self.lower_store(*ptr, *value)
            }
            Stmt::Copy { dst, src, size, .. } => {
                self.track_copy(*dst, *src, *size)?;
                self.lower_copy(*dst, *src, *size)
            }
            Stmt::If { cond, then_, else_ } => self.lower_if(*cond, then_, else_),
            Stmt::Loop { body, continuing } => self.lower_loop(body, continuing),
            Stmt::Switch { selector, cases } => self.lower_switch(*selector, cases),
            Stmt::Break => self.lower_break(),
            Stmt::Continue => self.lower_continue(),
            Stmt::Return(_) => self.lower_return(),
            Stmt::Barrier(..) => Err(self.internal("barrier left inside a region")),
            Stmt::Fence(_) => {
                self.b.ins().fence();
                Ok(())
            }
        }
    }

    /// Sets a varying variable to zero in every lane: at the start of a
    /// chunk, where no work-item of the chunk has written it yet, this cuts
    /// the dependence of its first (partial) write on the previous chunk's
    /// value, which would otherwise be carried around the chunk loop.
    pub fn clear_var(&mut self, var: VarId) -> LResult<()> {
        let slots = self.var_slots(var)?;
        let ty = self.kernel.func().vars[var.index()].ty.clone();
        let elem = elem_of(&ty).ok_or_else(|| self.internal("variable without element type"))?;
        for slot in &slots {
            if let VarSlot::Varying(vs) = slot {
                let z = self.zero_mask()[0];
                let z = self.vcast(super::lanes::carrier(elem), z);
                for v in vs {
                    self.b.def_var(*v, z);
                }
            }
        }
        Ok(())
    }

    fn var_slots(&mut self, var: VarId) -> LResult<Vec<VarSlot>> {
        if let Some(s) = self.vals.var_slots(var) {
            return Ok(s.clone());
        }
        let ty = self
            .kernel
            .func()
            .vars
            .get(var.index())
            .map(|v| v.ty.clone())
            .ok_or_else(|| self.internal(format!("unknown variable ${}", var.0)))?;
        let elem =
            elem_of(&ty).ok_or_else(|| self.unsupported(format!("variable of type {ty:?}")))?;
        let uniform = self.kernel.uni().var_is_uniform(var);
        let mut slots = Vec::new();
        for _ in 0..ty.lanes() {
            slots.push(if uniform {
                VarSlot::Uniform(self.b.declare_var(super::lanes::natural(elem)))
            } else {
                let n = self.piece_count(elem);
                VarSlot::Varying(
                    (0..n)
                        .map(|_| self.b.declare_var(super::lanes::carrier(elem)))
                        .collect(),
                )
            });
        }
        self.vals.set_var_slots(var, slots.clone());
        Ok(slots)
    }

    pub fn read_var(&mut self, var: VarId) -> LResult<Val> {
        let slots = self.var_slots(var)?;
        Ok(slots
            .iter()
            .map(|s| match s {
                VarSlot::Uniform(v) => Lanes::Uniform(self.b.use_var(*v)),
                VarSlot::Varying(vs) => {
                    Lanes::Varying(vs.iter().map(|v| self.b.use_var(*v)).collect())
                }
            })
            .collect())
    }

    /// `val` with each varying integer component made the scalar of lane 0
    /// when the uniformity analysis proves `v` the same in every lane:
    /// consecutive values can cancel (`get_global_id(0) -
    /// get_local_id(0)`), which the analysis sees and the lowering of the
    /// subtraction does not. A variable the analysis keeps scalar could not
    /// take the vector.
    fn as_uniform_if_proved(&mut self, v: vecl_ir::ValueId, val: Val) -> LResult<Val> {
        if self.kernel.uni().shape(v) != vecl_ir::analysis::uniformity::Shape::Uniform
            || val.iter().all(|l| l.is_uniform())
        {
            return Ok(val);
        }
        let s = self.elem(v)?;
        if !s.is_int() {
            return Ok(val);
        }
        Ok(val
            .iter()
            .map(|l| match l {
                Lanes::Varying(_) => Lanes::Uniform(self.lane(s, l, 0)),
                u => u.clone(),
            })
            .collect())
    }

    pub fn write_var(&mut self, var: VarId, val: &Val) -> LResult<()> {
        let blend = self.mask.is_divergent();
        self.write_var_as(var, val, blend)
    }

    /// Writes a variable; `blend`: the lanes not running keep their value.
    fn write_var_as(&mut self, var: VarId, val: &Val, blend: bool) -> LResult<()> {
        let slots = self.var_slots(var)?;
        let ty = self.kernel.func().vars[var.index()].ty.clone();
        let elem = elem_of(&ty).ok_or_else(|| self.internal("variable without element type"))?;
        for (slot, l) in slots.iter().zip(val) {
            match (slot, l) {
                (VarSlot::Uniform(v), Lanes::Uniform(x)) => self.b.def_var(*v, *x),
                (VarSlot::Uniform(_), Lanes::Varying(_)) => {
                    return Err(self.internal(format!(
                        "varying value written to uniform variable ${}",
                        var.0
                    )))
                }
                (VarSlot::Varying(vs), l) => {
                    let new = self.varying(elem, l);
                    let new = if blend {
                        let old: Vec<Value> = vs.iter().map(|v| self.b.use_var(*v)).collect();
                        let m = self.cur_mask();
                        self.blend(elem, &m, &new, &old)
                    } else {
                        new
                    };
                    for (v, x) in vs.iter().zip(new) {
                        self.b.def_var(*v, x);
                    }
                }
            }
        }
        Ok(())
    }

    /// A uniform bool as an `i8` 0/1, or a varying one as mask pieces.
    fn cond(&mut self, c: vecl_ir::ValueId) -> LResult<Lanes> {
        self.scalar(c)
    }

    fn lower_if(&mut self, cond: vecl_ir::ValueId, then_: &Block, else_: &Block) -> LResult<()> {
        match self.cond(cond)? {
            Lanes::Uniform(c) => {
                self.stats.uniform_ifs += 1;
                let (tb, eb, merge) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                // Cranelift's loop-invariant code motion loses the
                // enclosing loop once it has visited a block outside it
                // among the dominator-tree children it visits first (those
                // of the second branch target come first). An arm that
                // leaves the loop (`if (i < n) {} else break;`) is made the
                // first target so that the code after the `if` keeps it.
                if leaves(else_) && !leaves(then_) {
                    let not_c = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
                    self.b.ins().brif(not_c, eb, &[], tb, &[]);
                } else {
                    self.b.ins().brif(c, tb, &[], eb, &[]);
                }
                self.enter(tb);
                self.lower_block(then_)?;
                self.jump_live(merge);
                self.enter(eb);
                self.lower_block(else_)?;
                self.jump_live(merge);
                self.enter(merge);
                Ok(())
            }
            Lanes::Varying(cm) => {
                self.stats.varying_ifs += 1;
                if self.chunk_full
                    && !self.mask.in_split_if()
                    && !else_.0.is_empty()
                    && straight_size(then_)
                        .zip(straight_size(else_))
                        .is_some_and(|(t, e)| t + e <= MAX_SPLIT_STATEMENTS)
                {
                    return self.lower_split_if(cond, &cm, then_, else_);
                }
                self.lower_masked_if(&cm, then_, else_)
            }
        }
    }

    /// A small varying `if` with two arms whose lanes often agree
    /// (`lid >= offset ? tmp[lid - offset] : 0`, a test on coherent data),
    /// in the full-chunk copy: when every running lane takes one arm, that
    /// arm runs alone as under a uniform `if` — no masks, no blends, loads
    /// and stores as whole vectors — and only a chunk whose lanes disagree
    /// runs both arms under their masks. With every lane running, a
    /// comparison of a consecutive integer with a uniform one is decided by
    /// its end lanes (`linear_agreement`). Each arm is emitted twice, so
    /// this is kept to arms of at most [`MAX_SPLIT_STATEMENTS`] statements
    /// between them, without loops or exits, and to the full-chunk copy,
    /// which is only made while the general one is small. An `if` without
    /// `else` stays masked: its masked path is already one test and one arm
    /// (`benches/reduce.cl` split: 13.3 → 14.8 ms on one thread), where two
    /// arms also cost the second test, the mask kept between the arms and
    /// the blends of their writes (`benches/scan.cl` over 16M items: 52.8 →
    /// ~38 ms).
    fn lower_split_if(
        &mut self,
        cond: vecl_ir::ValueId,
        cm: &[Value],
        then_: &Block,
        else_: &Block,
    ) -> LResult<()> {
        let (only_then, not_only_then, only_else, mixed, merge) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // With every lane of the chunk running, a comparison of a
        // consecutive integer with a uniform one is decided by its end
        // lanes; otherwise by the masks.
        let every_lane = self.chunk_full && self.mask.is_entry_mask();
        let scalar = if every_lane {
            self.linear_agreement(cond)?
        } else {
            None
        };
        let (all, none) = match scalar {
            Some(tests) => tests,
            None => {
                let entry = self.cur_mask();
                let then_mask = self.mask_and(&entry, cm);
                let else_mask = self.mask_and_not(&entry, cm);
                let any_e = self.mask_any(&else_mask);
                let any_t = self.mask_any(&then_mask);
                let all = self.b.ins().icmp_imm_s(IntCC::Equal, any_e, 0);
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, any_t, 0);
                (all, none)
            }
        };
        self.b.ins().brif(all, only_then, &[], not_only_then, &[]);
        self.enter(only_then);
        self.lower_block(then_)?;
        self.jump_live(merge);
        self.enter(not_only_then);
        self.b.ins().brif(none, only_else, &[], mixed, &[]);
        self.enter(only_else);
        self.lower_block(else_)?;
        self.jump_live(merge);
        self.enter(mixed);
        self.mask.start_split_if();
        let masked = self.lower_masked_if(cm, then_, else_);
        self.mask.end_split_if();
        masked?;
        self.jump_live(merge);
        self.enter(merge);
        Ok(())
    }

    /// A varying `if`: each arm runs under its lanes' mask, skipped when no
    /// lane takes it.
    fn lower_masked_if(&mut self, cm: &[Value], then_: &Block, else_: &Block) -> LResult<()> {
        let entry = self.cur_mask();
        let then_mask = self.mask_and(&entry, cm);
        let else_mask = self.mask_and_not(&entry, cm);
        self.mask.start_varying_if();
        // An arm of only `break`/`continue` is a few mask
        // operations: cheaper to run than to test for.
        let taken = if then_.0.is_empty() || self.mask_only(then_) {
            self.set_cur(&then_mask);
            self.lower_block(then_)?;
            self.cur_mask()
        } else {
            let acc = self.new_mask_vars();
            let zero = self.zero_mask();
            self.write_mask(&acc, &zero);
            let (tb, mid) = (self.b.create_block(), self.b.create_block());
            let any_t = self.mask_any(&then_mask);
            self.b.ins().brif(any_t, tb, &[], mid, &[]);
            self.enter(tb);
            self.set_cur(&then_mask);
            self.lower_block(then_)?;
            let out = self.cur_mask();
            self.write_mask(&acc, &out);
            self.jump_live(mid);
            self.enter(mid);
            self.read_mask(&acc)
        };
        if else_.0.is_empty() {
            let m = self.mask_or(&taken, &else_mask);
            self.set_cur(&m);
        } else {
            // Skipped when no lane takes it, unless it is only
            // mask operations.
            let skip = (!self.mask_only(else_)).then(|| {
                let (eb, no_else, merge) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let any_e = self.mask_any(&else_mask);
                self.b.ins().brif(any_e, eb, &[], no_else, &[]);
                self.enter(eb);
                (no_else, merge)
            });
            self.set_cur(&else_mask);
            self.lower_block(else_)?;
            let after = self.cur_mask();
            let m = self.mask_or(&after, &taken);
            self.set_cur(&m);
            if let Some((no_else, merge)) = skip {
                self.jump_live(merge);
                self.enter(no_else);
                self.set_cur(&taken);
                self.b.ins().jump(merge, &[]);
                self.enter(merge);
            }
        }
        self.mask.end_if();
        Ok(())
    }

    /// The mask lanes resume with after a loop or switch: those that entered
    /// it and have not returned.
    fn resume_mask(&mut self, entry: &[Value]) -> Vec<Value> {
        match self.mask.alive() {
            Some(alive) => {
                let a = self.read_mask(&alive);
                self.mask_and(entry, &a)
            }
            None => entry.to_vec(),
        }
    }

    fn lower_loop(&mut self, body: &Block, continuing: &Block) -> LResult<()> {
        let divergent = self.kernel.uni().loop_is_divergent(body, continuing);
        let (header, cont_b, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        if !divergent {
            self.stats.uniform_loops += 1;
            self.b.ins().jump(header, &[]);
            self.b.switch_to_block(header);
            self.mask.enter_loop(Target::Loop {
                divergent,
                continuing: cont_b,
                exit,
                cont: Vec::new(),
            });
            self.lower_block(body)?;
            self.jump_live(cont_b);
            self.enter(cont_b);
            self.lower_block(continuing)?;
            self.poll_stop();
            self.jump_live(header);
            self.b.seal_block(header);
            self.mask.exit_loop();
            self.enter(exit);
        } else {
            self.stats.divergent_loops += 1;
            let entry = self.cur_mask();
            // Lanes parked by `continue`: only a loop with one needs them.
            let cont = if has_continue(body) {
                self.new_mask_vars()
            } else {
                Vec::new()
            };
            self.b.ins().jump(header, &[]);
            self.b.switch_to_block(header);
            let zero = self.zero_mask();
            self.write_mask(&cont, &zero);
            self.mask.enter_loop(Target::Loop {
                divergent,
                continuing: cont_b,
                exit,
                cont: cont.clone(),
            });
            // Without lanes parked by `continue`, a statement of the body
            // that leaves no lane running ends the loop at once; when the
            // mask it found non-empty reaches the body's end unchanged, the
            // loop's own test is known to pass (`benches/mandelbrot.cl`:
            // one test per trip instead of two).
            let skip_to = cont.is_empty().then_some(exit);
            let tested = self.lower_block_skipping(body, skip_to)?;
            if tested.is_some() && !self.b.is_unreachable() {
                self.b.ins().jump(cont_b, &[]);
            } else {
                let now = self.cur_mask();
                let m = if cont.is_empty() {
                    now
                } else {
                    let c = self.read_mask(&cont);
                    self.mask_or(&now, &c)
                };
                self.set_cur(&m);
                let any = self.mask_any(&m);
                // The exit as first target: see `lower_if`.
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, any, 0);
                self.b.ins().brif(none, exit, &[], cont_b, &[]);
            }
            self.enter(cont_b);
            self.lower_block(continuing)?;
            self.poll_stop();
            if continuing.0.iter().any(has_exit) {
                let now = self.cur_mask();
                let any = self.mask_any(&now);
                self.b.ins().brif(any, header, &[], exit, &[]);
            } else {
                // The mask is the one just found non-empty.
                self.jump_live(header);
            }
            self.b.seal_block(header);
            self.mask.exit_loop();
            self.enter(exit);
            let m = self.resume_mask(&entry);
            self.set_cur(&m);
        }
        Ok(())
    }

    /// At a loop's back edge: leaves the range with
    /// [`KernelStatus::Cancelled`] when the launch's stop flag is set, so
    /// that a kernel that never ends can be cancelled or stopped by its
    /// time limit (one load and a branch not taken per iteration; the
    /// flag's address is loaded once, outside the loop).
    fn poll_stop(&mut self) {
        if self.b.is_unreachable() {
            return;
        }
        let launch = self.env().launch;
        let flag_at = self
            .b
            .ins()
            .load(types::I64, invariant(), launch, launch_offsets::STOP_FLAG);
        // Not `readonly`: another thread sets it while the loop runs.
        let flag = self
            .b
            .ins()
            .load(types::I32, MemFlagsData::trusted(), flag_at, 0);
        let (stop, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(flag, stop, &[], go, &[]);
        self.b.switch_to_block(stop);
        self.b.set_cold_block(stop);
        self.b.seal_block(stop);
        let status = self
            .b
            .ins()
            .iconst(types::I32, KernelStatus::Cancelled as i64);
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
    }

    fn lower_switch(
        &mut self,
        selector: vecl_ir::ValueId,
        cases: &[vecl_ir::SwitchCase],
    ) -> LResult<()> {
        let sel = self.scalar(selector)?;
        let sty = self.kernel.func().ty(selector).clone();
        let elem = elem_of(&sty).ok_or_else(|| self.internal("switch on a non-scalar"))?;
        let entry = self.cur_mask();
        // Match masks of every case, then the default's.
        let mut matches = Vec::with_capacity(cases.len());
        let mut any_case = self.zero_mask();
        for c in cases {
            let mut m = self.zero_mask();
            for &v in &c.values {
                let k = self.iconst(super::lanes::natural(elem), v);
                let eq = self.cmp_eq_int(elem, &sel, k);
                m = self.mask_or(&m, &eq);
            }
            any_case = self.mask_or(&any_case, &m);
            matches.push(m);
        }
        let default_mask = self.mask_and_not(&entry, &any_case);
        self.mask.enter_switch();
        let zero = self.zero_mask();
        self.set_cur(&zero);
        for (c, m) in cases.iter().zip(&matches) {
            let mine = if c.is_default {
                let x = self.mask_and(&entry, m);
                self.mask_or(&x, &default_mask)
            } else {
                self.mask_and(&entry, m)
            };
            let now = self.cur_mask();
            let now = self.mask_or(&now, &mine);
            self.set_cur(&now);
            let (body_b, next) = (self.b.create_block(), self.b.create_block());
            let any = self.mask_any(&now);
            self.b.ins().brif(any, body_b, &[], next, &[]);
            self.enter(body_b);
            self.lower_block(&c.body)?;
            self.jump_live(next);
            self.enter(next);
        }
        self.mask.exit_switch();
        let mut m = self.resume_mask(&entry);
        if let Some(Target::Loop {
            divergent: true,
            cont,
            ..
        }) = self.mask.innermost_loop().cloned()
        {
            if !cont.is_empty() {
                let c = self.read_mask(&cont);
                m = self.mask_and_not(&m, &c);
            }
        }
        self.set_cur(&m);
        Ok(())
    }

    /// `sel == k` as mask pieces (uniform selectors give all-or-nothing masks).
    fn cmp_eq_int(&mut self, elem: vecl_ir::Scalar, sel: &Lanes, k: Value) -> Vec<Value> {
        match sel {
            Lanes::Uniform(s) => {
                let eq = self.b.ins().icmp(IntCC::Equal, *s, k);
                let w = self.b.ins().uextend(types::I32, eq);
                let w = self.b.ins().ineg(w);
                let v = self.b.ins().splat(types::I32X4, w);
                vec![v; (self.kernel.w() / 4) as usize]
            }
            Lanes::Varying(p) => {
                let ks = self.splat(elem, k);
                let eq: Vec<Value> = p
                    .iter()
                    .zip(&ks)
                    .map(|(a, b)| self.b.ins().icmp(IntCC::Equal, *a, *b))
                    .collect();
                if super::lanes::carrier(elem).lane_count() == 2 {
                    self.narrow_masks(&eq)
                } else {
                    eq
                }
            }
        }
    }

    fn lower_break(&mut self) -> LResult<()> {
        match self.mask.innermost().cloned() {
            Some(Target::Loop {
                divergent: false,
                exit,
                ..
            }) => {
                self.b.ins().jump(exit, &[]);
                self.dead_block();
            }
            Some(_) => {
                let z = self.zero_mask();
                self.set_cur(&z);
            }
            None => return Err(self.internal("break outside a loop or switch")),
        }
        Ok(())
    }

    fn lower_continue(&mut self) -> LResult<()> {
        let inner = self.mask.innermost_loop().cloned();
        match inner {
            Some(Target::Loop {
                divergent: false,
                continuing,
                ..
            }) => {
                if matches!(self.mask.innermost(), Some(Target::Switch)) {
                    return Err(self.internal("continue from a switch inside a uniform loop"));
                }
                self.b.ins().jump(continuing, &[]);
                self.dead_block();
            }
            Some(Target::Loop { cont, .. }) => {
                let c = self.read_mask(&cont);
                let now = self.cur_mask();
                let m = self.mask_or(&c, &now);
                self.write_mask(&cont, &m);
                let z = self.zero_mask();
                self.set_cur(&z);
            }
            _ => return Err(self.internal("continue outside a loop")),
        }
        Ok(())
    }

    fn lower_return(&mut self) -> LResult<()> {
        let masked = self.mask.return_is_masked(self.kernel.uni());
        if masked {
            let alive = self
                .mask
                .alive()
                .ok_or_else(|| self.internal("masked return without an alive mask"))?;
            let a = self.read_mask(&alive);
            let now = self.cur_mask();
            let m = self.mask_and_not(&a, &now);
            self.write_mask(&alive, &m);
            let z = self.zero_mask();
            self.set_cur(&z);
        } else {
            self.b.ins().jump(self.chunk_end, &[]);
            self.dead_block();
        }
        Ok(())
    }

    /// Lowers the instruction defining `v`, as a scalar wherever the
    /// uniformity analysis proves it the same in every lane.
    pub fn lower_inst(&mut self, v: vecl_ir::ValueId) -> LResult<Val> {
        let val = self.lower_inst_lanes(v)?;
        self.as_uniform_if_proved(v, val)
    }

    fn lower_inst_lanes(&mut self, v: vecl_ir::ValueId) -> LResult<Val> {
        use vecl_ir::Inst;
        let data = self.kernel.func().inst(v).clone();
        let ty = data.ty.clone();
        match &data.inst {
            Inst::Param(n) => self.lower_param(*n, &ty),
            Inst::Const(bits) => self.lower_const(*bits, &ty),
            Inst::Undef => {
                if ty.is_void() {
                    return Ok(Vec::new());
                }
                self.lower_const(0, &ty)
            }
            Inst::Unary(op, a) => self.lower_unary(*op, *a, &ty),
            Inst::Binary(op, a, b) => self.lower_binary(*op, *a, *b, &ty),
            Inst::Cmp(op, a, b) => self.lower_cmp(*op, *a, *b),
            Inst::Select(c, a, b) => self.lower_select(*c, *a, *b, &ty),
            Inst::Convert {
                value,
                saturate,
                rounding,
            } => self.lower_convert(*value, &ty, *saturate, *rounding),
            Inst::Bitcast(a) => self.lower_bitcast(*a, &ty),
            Inst::Splat(a) => {
                let x = self.scalar(*a)?;
                Ok(vec![x; ty.lanes() as usize])
            }
            Inst::Construct(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.extend(self.value(*p)?);
                }
                Ok(out)
            }
            Inst::Extract(a, i) => {
                let x = self.value(*a)?;
                x.get(*i as usize)
                    .cloned()
                    .map(|l| vec![l])
                    .ok_or_else(|| self.internal("extract out of range"))
            }
            Inst::Insert(a, i, b) => {
                let mut x = self.value(*a)?;
                let y = self.scalar(*b)?;
                let slot = x
                    .get_mut(*i as usize)
                    .ok_or_else(|| self.internal("insert out of range"))?;
                *slot = y;
                Ok(x)
            }
            Inst::Shuffle(a, b, idx) => {
                let mut all = self.value(*a)?;
                all.extend(self.value(*b)?);
                idx.iter()
                    .map(|i| {
                        all.get(*i as usize)
                            .cloned()
                            .ok_or_else(|| self.internal("shuffle index out of range"))
                    })
                    .collect()
            }
            Inst::ReadVar(var) => self.read_var(*var),
            Inst::SlotAddr(s) => self.lower_slot_addr(*s),
            Inst::GlobalAddr(g) => self.lower_global_addr(*g),
            Inst::Index(p, i) => self.lower_index(*p, *i, None),
            Inst::Elem(p, i) => {
                let pointee = self
                    .kernel
                    .func()
                    .ty(*p)
                    .pointee()
                    .cloned()
                    .unwrap_or(Type::Void);
                let size = match &pointee {
                    Type::Array(e, _) => self.kernel.module().size_of(e),
                    Type::Vector(s, _) => s.size(),
                    other => return Err(self.internal(format!("elem of a pointer to {other:?}"))),
                };
                self.lower_index(*p, *i, Some(size))
            }
            Inst::Field(p, n) => self.lower_field(*p, *n),
            // Pointers are addresses: the casts between them and 64-bit
            // integers move no bits.
            Inst::PtrCast(p) | Inst::PtrToInt(p) | Inst::IntToPtr(p) => self.value(*p),
            Inst::Load(p) => {
                self.track_load(*p, &ty)?;
                self.lower_load(*p, &ty)
            }
            Inst::Atomic { op, ptr, args, .. } => {
                self.track_atomic(*op, *ptr)?;
                self.lower_atomic(*op, *ptr, args, &ty)
            }
            Inst::WorkItem(f, dim) => self.lower_work_item(*f, *dim, &ty),
            Inst::Call(..) => Err(self.internal("call left after inlining")),
            Inst::Builtin(name, args) => self.lower_builtin(*name, args, &ty),
        }
    }
}

//! Barriers checked at run time: the successor region a chunk's lanes
//! chose, when the uniformity analysis could not prove that they agree.
//!
//! OpenCL requires every work-item of a group to reach a barrier in a
//! conditional or a loop, or none; whether `if (gid < n)` or a loop bounded
//! by a value loaded per work-item is the same for the whole group is often
//! known only at run time. In a region graph (`crate::regions`) such a
//! barrier makes the successor variable `$next` varying: each lane writes the
//! region it goes to next. At the end of a region the chunk loop then reads
//! it lane by lane ([`FunctionCx::agreed_successor`]): the lanes that run
//! (in the chunk, not returned) must all have chosen the same successor,
//! which then goes on exactly as a uniform one (the chunks of the group must
//! agree too, as for every barrier). Otherwise the entry records two
//! work-items that went different ways ([`crate::abi::vecl_barrier_divergence`])
//! and returns `KernelStatus::DivergentBarrier`.
//!
//! Lanes that returned, and the lanes of a partial chunk past the group's
//! end, take no part: they keep `NONE`, and the alive and chunk masks
//! exclude them besides. Kernels whose `$next` is uniform have none of this
//! code.
//!
//! The decision is made where the lanes' successors are compared, at the
//! end of a region: two work-items of which one enters a loop holding a
//! barrier and the other does not differ there even when the loop then
//! runs no iteration for the first one (no barrier is passed by either);
//! the interpreter, which follows each barrier exactly, accepts that case.

use super::FunctionCx;
use crate::abi::LOCAL_ID_BITS;
use cranelift_codegen::ir::{condcodes::IntCC, types, Block, InstBuilder, Value};
use cranelift_frontend::Variable;
use std::collections::BTreeSet;
use vecl_ir::analysis::uniformity::Uniformity;
use vecl_ir::{CmpOp, Function, Inst, Loc, Stmt, ValueId, VarId};

/// What a chunk's lanes chose, as [`FunctionCx::agreed_successor`] finds it.
pub(crate) struct Choice {
    /// The successor every running lane chose (`NONE` when no lane runs).
    pub chosen: Value,
    /// Per piece: the lanes that run and chose a successor.
    choosing: Vec<Value>,
    pieces: Vec<Value>,
}

impl FunctionCx<'_, '_> {
    /// Lanes of `pieces` (`i32x4`) combined with `op` into one `i32`.
    fn reduce_u32(&mut self, pieces: &[Value], op: fn(&mut Self, Value, Value) -> Value) -> Value {
        let mut acc = pieces[0];
        for p in &pieces[1..] {
            acc = op(self, acc, *p);
        }
        let lanes: Vec<Value> = (0..4)
            .map(|i| self.b.ins().extractlane(acc, i as u8))
            .collect();
        let a = op(self, lanes[0], lanes[1]);
        let b = op(self, lanes[2], lanes[3]);
        op(self, a, b)
    }

    /// The successor the lanes of the chunk chose when `$next` is varying
    /// (`pieces`): `active` are the chunk's lanes in the group (and alive).
    /// Branches to a cold block that reports the divergence and jumps to
    /// `divergent` when two running lanes differ.
    pub(crate) fn agreed_successor(
        &mut self,
        pieces: &[Value],
        active: &[Value],
        divergent: Block,
    ) -> Choice {
        let none_s = self
            .b
            .ins()
            .iconst(types::I32, i64::from(crate::regions::NONE));
        let none = self.b.ins().splat(types::I32X4, none_s);
        let zero_s = self.b.ins().iconst(types::I32, 0);
        let zero = self.b.ins().splat(types::I32X4, zero_s);
        let mut choosing = Vec::new();
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        for (p, a) in pieces.iter().zip(active) {
            let unset = self.b.ins().icmp(IntCC::Equal, *p, none);
            let c = self.b.ins().band_not(*a, unset);
            lo.push(self.b.ins().bitselect(c, *p, none));
            hi.push(self.b.ins().bitselect(c, *p, zero));
            choosing.push(c);
        }
        let umin = |cx: &mut Self, a: Value, b: Value| cx.b.ins().umin(a, b);
        let umax = |cx: &mut Self, a: Value, b: Value| cx.b.ins().umax(a, b);
        let lo = self.reduce_u32(&lo, umin);
        let hi = self.reduce_u32(&hi, umax);
        // No lane chose (`lo` is NONE), or every one chose `lo`.
        let nobody = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, lo, i64::from(crate::regions::NONE));
        let same = self.b.ins().icmp(IntCC::Equal, lo, hi);
        let ok = self.b.ins().bor(nobody, same);
        let (go, cold) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        self.b.ins().brif(ok, go, &[], cold, &[]);
        self.b.switch_to_block(cold);
        let choice = Choice {
            chosen: lo,
            choosing,
            pieces: pieces.to_vec(),
        };
        let a = self.packed_local_id_of(&choice, lo);
        let b = self.packed_local_id_of(&choice, hi);
        self.report_divergence([lo, a], [hi, b]);
        self.b.ins().jump(divergent, &[]);
        self.b.seal_block(cold);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        choice
    }

    /// The local id, packed for the report, of the first lane of `choice`
    /// that chose `next`.
    fn packed_local_id_of(&mut self, choice: &Choice, next: Value) -> Value {
        let w = self.b.ins().iconst(types::I32, i64::from(self.kernel.w()));
        let w = self.b.ins().splat(types::I32X4, w);
        let want = self.b.ins().splat(types::I32X4, next);
        let mut idx = Vec::new();
        for (i, (p, c)) in choice.pieces.iter().zip(&choice.choosing).enumerate() {
            let eq = self.b.ins().icmp(IntCC::Equal, *p, want);
            let m = self.b.ins().band(eq, *c);
            let iota = self.cache.iota32()[i];
            idx.push(self.b.ins().bitselect(m, iota, w));
        }
        let umin = |cx: &mut Self, a: Value, b: Value| cx.b.ins().umin(a, b);
        let lane = self.reduce_u32(&idx, umin);
        let lane = self.b.ins().uextend(types::I64, lane);
        self.packed_local_id(lane)
    }

    /// `get_local_id` of lane `lane` (an `i64`) of the chunk, packed
    /// [`LOCAL_ID_BITS`] bits per dimension.
    fn packed_local_id(&mut self, lane: Value) -> Value {
        let env = self.env();
        let (x0, y, z) = (env.x0, env.y, env.z);
        let x = self.b.ins().iadd(x0, lane);
        // A copy with lanes along another dimension runs the launch with
        // that dimension and 0 exchanged: report the launch's own ids.
        let mut ids = [x, y, z];
        ids.swap(0, self.kernel.lanes_along());
        let [x, y, z] = ids;
        let y = self.b.ins().ishl_imm_s(y, i64::from(LOCAL_ID_BITS));
        let z = self.b.ins().ishl_imm_s(z, i64::from(2 * LOCAL_ID_BITS));
        let xy = self.b.ins().bor(x, y);
        self.b.ins().bor(xy, z)
    }

    /// Calls [`crate::abi::vecl_barrier_divergence`] with two
    /// `(successor, packed local id)` pairs.
    fn report_divergence(&mut self, a: [Value; 2], b: [Value; 2]) {
        let Ok(f) = self.extern_fn("vecl_barrier_divergence", &[types::I64; 7], None) else {
            // Without the report the status alone still fails the launch.
            return;
        };
        let widen = |cx: &mut Self, v: Value| {
            if cx.b.func.dfg.value_type(v) == types::I32 {
                cx.b.ins().uextend(types::I64, v)
            } else {
                v
            }
        };
        let mut group = self.env().group_id;
        group.swap(0, self.kernel.lanes_along());
        let args = [
            widen(self, a[0]),
            a[1],
            widen(self, b[0]),
            b[1],
            group[0],
            group[1],
            group[2],
        ];
        self.call(f, &args);
    }

    /// Tracks where the group's successor was first chosen and checks a
    /// chunk's against it: `agreed` (`i32`) holds the successor so far
    /// (`NONE` before any chunk chose), `agreed_at` the packed local id of
    /// a work-item that chose it. Branches to a cold report and `divergent`
    /// when the chunk chose another.
    pub(crate) fn agree_across_chunks(
        &mut self,
        choice: &Choice,
        agreed: Variable,
        agreed_at: Variable,
        divergent: Block,
    ) {
        let chosen = choice.chosen;
        let prev = self.b.use_var(agreed);
        let none = i64::from(crate::regions::NONE);
        let prev_none = self.b.ins().icmp_imm_s(IntCC::Equal, prev, none);
        let chosen_none = self.b.ins().icmp_imm_s(IntCC::Equal, chosen, none);
        let same = self.b.ins().icmp(IntCC::Equal, prev, chosen);
        let either_none = self.b.ins().bor(prev_none, chosen_none);
        let ok = self.b.ins().bor(either_none, same);
        let (go, cold) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        self.b.ins().brif(ok, go, &[], cold, &[]);
        self.b.switch_to_block(cold);
        let at = self.b.use_var(agreed_at);
        let here = self.packed_local_id_of(choice, chosen);
        self.report_divergence([prev, at], [chosen, here]);
        self.b.ins().jump(divergent, &[]);
        self.b.seal_block(cold);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        // The first chunk to choose: remember one of its work-items.
        let (first, join) = (self.b.create_block(), self.b.create_block());
        let not_chosen = self.b.ins().bnot(chosen_none);
        let is_first = self.b.ins().band(prev_none, not_chosen);
        self.b.ins().brif(is_first, first, &[], join, &[]);
        self.b.switch_to_block(first);
        self.b.seal_block(first);
        let here = self.packed_local_id_of(choice, chosen);
        self.b.def_var(agreed_at, here);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        let keep = self.b.ins().select(chosen_none, prev, chosen);
        self.b.def_var(agreed, keep);
    }
}

impl FunctionCx<'_, '_> {
    /// [`Self::agree_across_chunks`] for a successor the chunk's lanes
    /// share (`chosen`, an `i32`: the barrier is proven uniform within a
    /// chunk, but the rows of a group may still differ): the report names
    /// lane 0 of the chunk that chose first and of this one.
    pub(crate) fn agree_uniform_across_chunks(
        &mut self,
        chosen: Value,
        agreed: Variable,
        agreed_at: Variable,
        divergent: Block,
    ) {
        let prev = self.b.use_var(agreed);
        let none = i64::from(crate::regions::NONE);
        let prev_none = self.b.ins().icmp_imm_s(IntCC::Equal, prev, none);
        let chosen_none = self.b.ins().icmp_imm_s(IntCC::Equal, chosen, none);
        let same = self.b.ins().icmp(IntCC::Equal, prev, chosen);
        let either_none = self.b.ins().bor(prev_none, chosen_none);
        let ok = self.b.ins().bor(either_none, same);
        let (go, cold) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        self.b.ins().brif(ok, go, &[], cold, &[]);
        self.b.switch_to_block(cold);
        let at = self.b.use_var(agreed_at);
        let lane0 = self.b.ins().iconst(types::I64, 0);
        let here = self.packed_local_id(lane0);
        self.report_divergence([prev, at], [chosen, here]);
        self.b.ins().jump(divergent, &[]);
        self.b.seal_block(cold);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        let lane0 = self.b.ins().iconst(types::I64, 0);
        let here = self.packed_local_id(lane0);
        let not_chosen = self.b.ins().bnot(chosen_none);
        let is_first = self.b.ins().band(prev_none, not_chosen);
        let old_at = self.b.use_var(agreed_at);
        let new_at = self.b.ins().select(is_first, here, old_at);
        self.b.def_var(agreed_at, new_at);
        let keep = self.b.ins().select(chosen_none, prev, chosen);
        self.b.def_var(agreed, keep);
    }
}

/// Why a barrier is checked at run time.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Why {
    /// A condition (`if`, `switch`) the analysis calls varying, by its
    /// source line and column.
    Condition(u32, u32),
    /// A loop whose exits the analysis calls varying.
    Loop,
}

/// One `--explain` note per barrier checked at run time (and per path to
/// a loop or `switch` holding barriers), naming the condition that was not
/// proven uniform; none when `$next` is uniform.
pub(crate) fn notes(func: &Function, uni: &Uniformity, next: VarId) -> Vec<String> {
    if uni.var_is_uniform_everywhere(next) {
        return Vec::new();
    }
    let mut found = BTreeSet::new();
    walk(func, uni, next, &func.body.0, None, &mut found);
    // A way around a barrier (the `else` of `if (c) barrier(…)`) is
    // covered by that barrier's note.
    let named: BTreeSet<Why> = found
        .iter()
        .filter(|(b, _)| b.is_some())
        .map(|(_, w)| *w)
        .collect();
    found.retain(|(b, w)| b.is_some() || !named.contains(w));
    let at = |loc: Loc| {
        if loc.is_known() {
            format!(" at line {}:{}", loc.line, loc.col)
        } else {
            String::new()
        }
    };
    found
        .into_iter()
        .map(|(barrier, why)| {
            let what = match barrier {
                Some((line, col)) => format!("barrier{} is checked at run time", at(Loc { line, col })),
                None => "the way into a loop or switch holding barriers is checked at run time"
                    .to_string(),
            };
            let because = match why {
                Why::Condition(line, col) => {
                    format!("the condition{} was not proven uniform", at(Loc { line, col }))
                }
                Why::Loop => "the exit of an enclosing loop was not proven uniform".to_string(),
            };
            format!(
                "{what}: {because} across a work-group, so every work-item of a group must take the same way there (the launch fails if they do not)"
            )
        })
        .collect()
}

/// Whether `cond` is a guard `$next == NONE` the region graph added.
fn is_guard(func: &Function, next: VarId, cond: ValueId) -> bool {
    matches!(func.inst(cond).inst, Inst::Cmp(CmpOp::Eq, a, _)
        if matches!(func.inst(a).inst, Inst::ReadVar(x) if x == next))
}

fn walk(
    func: &Function,
    uni: &Uniformity,
    next: VarId,
    stmts: &[Stmt],
    why: Option<Why>,
    found: &mut BTreeSet<(Option<(u32, u32)>, Why)>,
) {
    let varying = |c: ValueId| !uni.is_uniform(c) && !is_guard(func, next, c);
    let cond_why = |c: ValueId| {
        let loc = func.inst(c).loc;
        Why::Condition(loc.line, loc.col)
    };
    for s in stmts {
        match s {
            Stmt::WriteVar(x, v) if *x == next => {
                if let Some(w) = why {
                    let barrier = crate::regions::barrier_tag(func, next, *v)
                        .map(|(_, loc)| (loc.line, loc.col));
                    found.insert((barrier, w));
                }
            }
            Stmt::If { cond, then_, else_ } => {
                let w = why.or_else(|| varying(*cond).then(|| cond_why(*cond)));
                walk(func, uni, next, &then_.0, w, found);
                walk(func, uni, next, &else_.0, w, found);
            }
            Stmt::Switch { selector, cases } => {
                let w = why.or_else(|| varying(*selector).then(|| cond_why(*selector)));
                for c in cases {
                    walk(func, uni, next, &c.body.0, w, found);
                }
            }
            Stmt::Loop { body, continuing } => {
                let w =
                    why.or_else(|| uni.loop_is_divergent(body, continuing).then_some(Why::Loop));
                walk(func, uni, next, &body.0, w, found);
                walk(func, uni, next, &continuing.0, w, found);
            }
            _ => {}
        }
    }
}

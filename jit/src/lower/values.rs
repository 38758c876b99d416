//! What the lowering has made of the kernel's IR so far: the Cranelift
//! values of each IR value and kernel argument, the Cranelift variables of
//! each register variable, the values a later barrier region reloads, and
//! the facts remembered about particular Cranelift values (vectors built
//! lane by lane, narrow integers already widened).
//!
//! [`ValueMaps`] owns those maps; the lowering defines and looks up
//! through its calls ([`ValueMaps::define`], [`ValueMaps::get`], …).

use super::lanes::Val;
use super::VarSlot;
use cranelift_codegen::ir::Value;
use std::collections::{HashMap, HashSet};
use vecl_ir::{Scalar, ValueId, VarId};

/// The values a [`ValueMaps::snapshot`] took: each defined value's index
/// and lowered value.
#[derive(Clone, Debug, Default)]
pub(crate) struct Snapshot(Vec<(usize, Val)>);

/// The lowering's maps from IR values and variables to Cranelift ones
/// (see the module docs).
#[derive(Debug)]
pub(crate) struct ValueMaps {
    /// Lowered IR values of the current region, by index.
    values: Vec<Option<Val>>,
    /// The indices `values` holds a value at (each once): a new region
    /// forgets those instead of rewriting every slot (a kernel of many
    /// barriers has hundreds of regions over thousands of values).
    defined: Vec<u32>,
    /// Cranelift variables of each register variable, made at first use.
    vars: Vec<Option<Vec<VarSlot>>>,
    /// Kernel arguments loaded once in the entry block, by index.
    params: Vec<Option<Val>>,
    /// Values a later barrier region reads: context offset of each.
    saved_values: HashMap<ValueId, u32>,
    /// How each saved value was stored (per component: uniform?).
    saved_shapes: HashMap<ValueId, Vec<bool>>,
    /// The natural scalars each vector built lane by lane (`build`) came
    /// from, by its first piece: lane `j` of such a vector is its `j`-th
    /// scalar, no extraction needed.
    built: HashMap<Value, Vec<Value>>,
    /// 8- and 16-bit integers gathered lane by lane, by their natural
    /// value: the same load extended to 64 bits by the signedness of its
    /// element type, and that type (`memory::load_lane`). Widening
    /// conversions and lane widening of a value of that type take it
    /// instead of extending again.
    widened: HashMap<Value, (Value, Scalar)>,
    /// Variable writes made without a blend even under divergence
    /// (`fresh_writes`).
    unblended: HashSet<(VarId, ValueId)>,
}

impl ValueMaps {
    /// Empty maps for a function of `insts` values and `vars` variables;
    /// `saved_values` are the values kept across barriers, `unblended` the
    /// writes that need no blend.
    pub fn new(
        insts: usize,
        vars: usize,
        saved_values: HashMap<ValueId, u32>,
        unblended: HashSet<(VarId, ValueId)>,
    ) -> Self {
        ValueMaps {
            values: vec![None; insts],
            defined: Vec::new(),
            vars: vec![None; vars],
            params: Vec::new(),
            saved_values,
            saved_shapes: HashMap::new(),
            built: HashMap::new(),
            widened: HashMap::new(),
            unblended,
        }
    }

    /// `v`'s lowered value, if it has one in the current region.
    pub fn get(&self, v: ValueId) -> Option<&Val> {
        self.values.get(v.index()).and_then(|x| x.as_ref())
    }

    /// Whether `v` has a lowered value in the current region.
    pub fn is_defined(&self, v: ValueId) -> bool {
        self.values[v.index()].is_some()
    }

    /// Records `v`'s lowered value.
    pub fn define(&mut self, v: ValueId, val: Val) {
        let slot = &mut self.values[v.index()];
        if slot.is_none() {
            self.defined.push(v.index() as u32);
        }
        *slot = Some(val);
    }

    /// Forgets every lowered value (a new region starts).
    pub fn clear(&mut self) {
        for i in self.defined.drain(..) {
            self.values[i as usize] = None;
        }
    }

    /// The lowered values as they are now, for [`Self::restore`]: only
    /// those defined (a barrier kernel's regions snapshot the few values
    /// made before their chunk loop, out of all the kernel's values, once
    /// or more per region).
    pub fn snapshot(&self) -> Snapshot {
        let mut defined: Vec<(usize, Val)> = self
            .defined
            .iter()
            .filter_map(|&i| {
                let i = i as usize;
                self.values[i].as_ref().map(|v| (i, v.clone()))
            })
            .collect();
        defined.sort_unstable_by_key(|(i, _)| *i);
        Snapshot(defined)
    }

    /// Puts back the lowered values of a [`Self::snapshot`]: those, and no
    /// others.
    pub fn restore(&mut self, snapshot: Snapshot) {
        self.clear();
        for (i, v) in snapshot.0 {
            self.values[i] = Some(v);
            self.defined.push(i as u32);
        }
    }

    /// The Cranelift variables of `var`, once made.
    pub fn var_slots(&self, var: VarId) -> Option<&Vec<VarSlot>> {
        self.vars.get(var.index()).and_then(|x| x.as_ref())
    }

    /// Records the Cranelift variables made for `var`.
    pub fn set_var_slots(&mut self, var: VarId, slots: Vec<VarSlot>) {
        self.vars[var.index()] = Some(slots);
    }

    /// Kernel argument `n` as loaded in the entry block, if it was.
    pub fn param(&self, n: usize) -> Option<&Val> {
        self.params.get(n).and_then(|x| x.as_ref())
    }

    /// Room for `n` preloaded kernel arguments, none loaded yet.
    pub fn reset_params(&mut self, n: usize) {
        self.params = vec![None; n];
    }

    /// Records kernel argument `n` as loaded in the entry block.
    pub fn set_param(&mut self, n: usize, val: Val) {
        self.params[n] = Some(val);
    }

    /// Where in the chunk's context `v` is saved for a later barrier
    /// region, when it is.
    pub fn saved_offset(&self, v: ValueId) -> Option<u32> {
        self.saved_values.get(&v).copied()
    }

    /// Whether `v` is saved for a later barrier region.
    pub fn is_saved(&self, v: ValueId) -> bool {
        self.saved_values.contains_key(&v)
    }

    /// How a saved value was stored (per component: uniform?).
    pub fn saved_shape(&self, v: ValueId) -> Option<&Vec<bool>> {
        self.saved_shapes.get(&v)
    }

    /// Records how a saved value was stored.
    pub fn set_saved_shape(&mut self, v: ValueId, shapes: Vec<bool>) {
        self.saved_shapes.insert(v, shapes);
    }

    /// The scalars a vector built lane by lane came from, by its first
    /// piece.
    pub fn built_from(&self, first: Value) -> Option<&Vec<Value>> {
        self.built.get(&first)
    }

    /// Records the scalars of a vector built lane by lane.
    pub fn record_built(&mut self, first: Value, lanes: Vec<Value>) {
        self.built.insert(first, lanes);
    }

    /// The 64-bit extension of a narrow integer gathered lane by lane, and
    /// its element type.
    pub fn widened(&self, v: Value) -> Option<(Value, Scalar)> {
        self.widened.get(&v).copied()
    }

    /// Records the 64-bit extension of a narrow integer.
    pub fn record_widened(&mut self, v: Value, wide: Value, s: Scalar) {
        self.widened.insert(v, (wide, s));
    }

    /// Whether the write of `v` to `var` needs no blend under divergence.
    pub fn is_unblended(&self, var: VarId, v: ValueId) -> bool {
        self.unblended.contains(&(var, v))
    }

    /// Makes every write of `var` blend.
    pub fn blend_writes_of(&mut self, var: VarId) {
        self.unblended.retain(|(x, _)| *x != var);
    }
}

//! Lowering of one kernel to a Cranelift function vectorised across
//! work-items.
//!
//! [`FunctionCx`] threads everything through the lowering: the Cranelift
//! builder and a context for each part of the state, each in its own file
//! with private fields and a small set of calls: the kernel and the
//! compilation's options ([`kernel_env`]), the active-mask state
//! ([`mask`]: lanes executing now, lanes that have not returned, what
//! `break` and `continue` refer to), the IR values and register variables
//! as lowered ([`values`]), and the entry block's values and imported
//! functions ([`function_cache`]).
//! Statements follow the IR's structure (see [`control`]); the entry point
//! with its group and chunk loops and barrier regions is in [`chunks`].

pub(crate) mod barrier_agreement;
pub(crate) mod bounds;
pub(crate) mod builtins;
pub(crate) mod chunks;
pub(crate) mod control;
pub(crate) mod float_div;
pub(crate) mod fold;
pub(crate) mod fresh_writes;
pub(crate) mod function_cache;
pub(crate) mod group_level;
pub(crate) mod half;
pub(crate) mod interleaved;
pub(crate) mod kernel_env;
pub(crate) mod lane_loop;
pub(crate) mod lanes;
pub(crate) mod linear;
pub(crate) mod mask;
pub(crate) mod memory;
pub(crate) mod narrow;
pub(crate) mod ops;
pub(crate) mod prefetch;
pub(crate) mod race_proofs;
pub(crate) mod races;
pub(crate) mod stream;
pub(crate) mod sub_group;
pub(crate) mod uniform_div;
pub(crate) mod values;
pub(crate) mod workitem;

use crate::JitError;
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, InstructionData, MemFlagsData, Opcode, Signature,
    Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
pub(crate) use function_cache::FunctionCache;
pub(crate) use kernel_env::KernelEnv;
use lanes::{Lanes, Val};
pub(crate) use mask::{MaskCx, Target};
pub(crate) use values::ValueMaps;
use vecl_ir::ValueId;

/// Flags of a load from memory that no one writes while the kernel runs
/// (the argument block, the `Launch`): aligned, never trapping, read-only
/// and movable, so Cranelift may merge such loads and hoist them out of
/// loops.
pub(crate) fn invariant() -> MemFlagsData {
    MemFlagsData::trusted().with_readonly().with_can_move()
}

/// Counters for the `explain` report.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stats {
    pub vector_loads: u32,
    pub vector_stores: u32,
    /// Loads of 2- or 4-component vectors whose consecutive elements are
    /// read as whole pieces (`interleaved`).
    pub interleaved_loads: u32,
    /// Stores of 2- or 4-component vectors written as whole pieces.
    pub interleaved_stores: u32,
    /// Vector stores whose full-chunk path streams on large launches.
    pub streamed_stores: u32,
    /// Vector loads whose full-chunk path prefetches ahead (`prefetch`).
    pub prefetches: u32,
    /// Those of them that prefetch where the next step of a loop's
    /// induction variable takes them (`prefetch::Ahead::Step`).
    pub prefetches_by_step: u32,
    /// Vector stores to `__local` memory with a blended path for a mask
    /// that is not full (`memory::blended_store_test`).
    pub blended_stores: u32,
    /// Accesses of checked code proven in bounds at compile time (no test
    /// emitted, `bounds::proven_in_bounds`).
    pub proven_in_bounds: u32,
    /// Those of them proven only for groups within the kernel's trusted
    /// size (`bounds::trusted_group_bound`).
    pub proven_for_group: u32,
    /// Those of them proven for the launches the code runs
    /// (`crate::launch_proofs`).
    pub proven_for_launch: u32,
    /// Accesses of checked code that may touch `__local` memory and are
    /// proven free of conflicts in their barrier region
    /// (`race_proofs`): they skip the shadow once their object is written.
    pub conflict_free: u32,
    /// Copies of aggregates (`out[i] = in[i]` of a struct), and those of
    /// them that move a chunk of consecutive items as whole pieces.
    pub copies: u32,
    pub whole_chunk_copies: u32,
    /// `/` and `%` of a consecutive integer by a uniform one, with a
    /// one-division fast form (`ops::linear_div_rem`).
    pub linear_divisions: u32,
    pub gathers: u32,
    pub scatters: u32,
    pub uniform_loads: u32,
    pub uniform_stores: u32,
    pub atomics: u32,
    /// Those of them with a path that updates four consecutive `__global`
    /// ints per locked instruction (`memory::grouped_atomic`).
    pub grouped_atomics: u32,
    /// Those of them whose four-int pieces of zero operands write
    /// nothing (`add`, `sub`, `or`, `xor`).
    pub zero_skipping_atomics: u32,
    pub per_lane_ops: u32,
    pub varying_ifs: u32,
    pub uniform_ifs: u32,
    pub divergent_loops: u32,
    pub uniform_loops: u32,
    /// Range-limited chunk loops (`group_level::LidRange`) with a copy for
    /// the chunks wholly inside the ids their final `if` accepts.
    pub inside_copies: u32,
    pub notes: Vec<String>,
}

/// A register variable as Cranelift variables, one entry per component.
#[derive(Clone, Debug)]
pub(crate) enum VarSlot {
    Uniform(Variable),
    Varying(Vec<Variable>),
}

/// Launch- and chunk-level values.
#[derive(Clone, Debug)]
pub(crate) struct Env {
    pub args: Value,
    pub launch: Value,
    pub local_mem: Value,
    pub group_id: [Value; 3],
    /// Actual size of this group (the last one may be smaller).
    pub group_size: [Value; 3],
    /// Global id of the chunk's lane 0 in dimension 0, and of the chunk's
    /// row in dimensions 1 and 2 (offset included).
    pub global_base: [Value; 3],
    /// First local id (dimension 0) of the chunk, and the row's ids in 1, 2.
    pub x0: Value,
    pub y: Value,
    pub z: Value,
}

/// The state threaded through one kernel's lowering, in contexts that
/// each own one part of it: the kernel and its options ([`KernelEnv`],
/// fixed for the compilation), the active masks ([`MaskCx`]), the IR
/// values and variables as lowered ([`ValueMaps`]), the entry block's
/// values and the imported functions ([`FunctionCache`]), and `__local`
/// race checking ([`races::RaceCx`]). The Cranelift builder and the chunk's
/// launch values are used by every file and stay plain fields.
pub(crate) struct FunctionCx<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    pub jit: &'b mut JITModule,
    /// The kernel, its layout and the compilation's options.
    pub kernel: KernelEnv<'a>,
    /// IR values and variables as lowered.
    pub vals: ValueMaps,
    /// The active-mask state.
    pub mask: MaskCx,
    pub chunk_end: Block,
    pub env: Option<Env>,
    pub stats: Stats,
    pub private_base: Option<Value>,
    /// Entry-block values and imported functions.
    pub cache: FunctionCache,
    pub chunk_context: Option<Value>,
    /// The code being lowered runs for full chunks only (every lane of
    /// the chunk is a work-item of the group).
    pub chunk_full: bool,
    /// Checked mode's `__local` checks (`races`; `None`: not compiled in).
    pub races: Option<races::RaceCx>,
}

pub(crate) type LResult<T> = Result<T, JitError>;

impl<'a, 'b> FunctionCx<'a, 'b> {
    pub fn unsupported(&self, what: impl Into<String>) -> JitError {
        JitError::Unsupported {
            kernel: self.kernel.name().to_string(),
            what: what.into(),
        }
    }

    pub fn internal(&self, what: impl Into<String>) -> JitError {
        JitError::Codegen {
            kernel: self.kernel.name().to_string(),
            message: what.into(),
        }
    }

    pub fn env(&self) -> &Env {
        self.env
            .as_ref()
            .expect("environment set before lowering statements")
    }

    pub fn value(&self, v: ValueId) -> LResult<Val> {
        self.vals
            .get(v)
            .cloned()
            .ok_or_else(|| self.internal(format!("%{} used before its definition", v.0)))
    }

    /// The single component of a scalar or pointer value.
    pub fn scalar(&self, v: ValueId) -> LResult<Lanes> {
        let val = self.value(v)?;
        val.into_iter()
            .next()
            .ok_or_else(|| self.internal(format!("%{} has no components", v.0)))
    }

    pub fn iconst(&mut self, ty: types::Type, x: i64) -> Value {
        self.b.ins().iconst(ty, x)
    }

    /// Current values of a set of mask variables.
    pub fn read_mask(&mut self, vars: &[Variable]) -> Vec<Value> {
        vars.iter().map(|v| self.b.use_var(*v)).collect()
    }

    pub fn write_mask(&mut self, vars: &[Variable], vals: &[Value]) {
        for (v, x) in vars.iter().zip(vals) {
            self.b.def_var(*v, *x);
        }
    }

    pub fn cur_mask(&mut self) -> Vec<Value> {
        let b = &mut self.b;
        self.mask.cur_vars().iter().map(|v| b.use_var(*v)).collect()
    }

    pub fn set_cur(&mut self, vals: &[Value]) {
        for (v, x) in self.mask.cur_vars().iter().zip(vals) {
            self.b.def_var(*v, *x);
        }
    }

    pub fn new_mask_vars(&mut self) -> Vec<Variable> {
        (0..self.kernel.w() / 4)
            .map(|_| self.b.declare_var(types::I32X4))
            .collect()
    }

    pub fn zero_mask(&mut self) -> Vec<Value> {
        let z = self.b.ins().iconst(types::I32, 0);
        let v = self.b.ins().splat(types::I32X4, z);
        vec![v; (self.kernel.w() / 4) as usize]
    }

    /// Whether any lane of a mask is set (an `i8` 0/1).
    pub fn mask_any(&mut self, m: &[Value]) -> Value {
        let mut acc = m[0];
        for x in &m[1..] {
            acc = self.b.ins().bor(acc, *x);
        }
        self.b.ins().vany_true(acc)
    }

    pub fn mask_all(&mut self, m: &[Value]) -> Value {
        let mut acc = m[0];
        for x in &m[1..] {
            acc = self.b.ins().band(acc, *x);
        }
        self.b.ins().vall_true(acc)
    }

    /// The scalar `v` is a splat of, when it is one.
    pub fn splat_source(&self, v: Value) -> Option<Value> {
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(v).inst()?;
        (dfg.insts[inst].opcode() == Opcode::Splat).then(|| dfg.inst_args(inst)[0])
    }

    /// Whether `v` is a splat of the integer constant `k`.
    pub fn is_splat_of(&self, v: Value, k: i64) -> bool {
        let dfg = &self.b.func.dfg;
        let Some(x) = self.splat_source(v) else {
            return false;
        };
        dfg.value_def(x).inst().is_some_and(|c| {
            matches!(dfg.insts[c], InstructionData::UnaryImm { opcode: Opcode::Iconst, imm }
                if imm.bits() == k)
        })
    }

    /// Whether `v` is an all-zero mask piece made by [`Self::zero_mask`]
    /// (such as the mask after `break`): mask operations with it fold.
    fn is_zero_piece(&self, v: Value) -> bool {
        self.is_splat_of(v, 0)
    }

    pub fn mask_and(&mut self, a: &[Value], c: &[Value]) -> Vec<Value> {
        a.iter()
            .zip(c)
            .map(
                |(x, y)| match (self.is_zero_piece(*x), self.is_zero_piece(*y)) {
                    (true, _) => *x,
                    (_, true) => *y,
                    _ => self.b.ins().band(*x, *y),
                },
            )
            .collect()
    }

    pub fn mask_or(&mut self, a: &[Value], c: &[Value]) -> Vec<Value> {
        a.iter()
            .zip(c)
            .map(
                |(x, y)| match (self.is_zero_piece(*x), self.is_zero_piece(*y)) {
                    (true, _) => *y,
                    (_, true) => *x,
                    _ => self.b.ins().bor(*x, *y),
                },
            )
            .collect()
    }

    pub fn mask_and_not(&mut self, a: &[Value], c: &[Value]) -> Vec<Value> {
        a.iter()
            .zip(c)
            .map(
                |(x, y)| match (self.is_zero_piece(*x), self.is_zero_piece(*y)) {
                    (true, _) | (_, true) => *x,
                    _ => self.b.ins().band_not(*x, *y),
                },
            )
            .collect()
    }

    /// Lane `j` of the current mask as an `i32` (0 or -1).
    pub fn lane_active(&mut self, mask: &[Value], j: usize) -> Value {
        self.b.ins().extractlane(mask[j / 4], (j % 4) as u8)
    }

    /// A Rust helper registered with the JIT, imported into this function.
    pub fn extern_fn(
        &mut self,
        name: &str,
        params: &[types::Type],
        ret: Option<types::Type>,
    ) -> LResult<FuncRef> {
        if let Some(f) = self.cache.imported(name) {
            return Ok(f);
        }
        let mut sig = Signature::new(self.jit.isa().default_call_conv());
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let id = self
            .jit
            .declare_function(name, Linkage::Import, &sig)
            .map_err(|e| self.internal(format!("declaring {name}: {e}")))?;
        let fref = self.jit.declare_func_in_func(id, self.b.func);
        self.cache.import(name.to_string(), fref);
        Ok(fref)
    }

    pub fn call(&mut self, f: FuncRef, args: &[Value]) -> Option<Value> {
        let inst = self.b.ins().call(f, args);
        self.b.inst_results(inst).first().copied()
    }
}

//! Modules, functions, instructions and structured statements.
//!
//! A [`Function`] describes **one work-item**. Its values live in an arena
//! (`Function::insts`) and are named by [`ValueId`]; its control flow is a
//! tree of structured statements ([`Block`], [`Stmt`]). Vectorisation across
//! work-items is not expressed here: it happens when the JIT lowers a kernel.
//!
//! Invariants (checked by the verifier):
//! - every instruction of the arena is evaluated by exactly one
//!   [`Stmt::Eval`], and every use of a value is dominated by that `Eval`
//!   (earlier in the same block or in an enclosing block); a value defined
//!   inside a loop body is not used in its `continuing` block unless the
//!   `Eval` precedes every `continue`;
//! - only scalars, vectors (including bool vectors, which are masks) and
//!   pointers are values; arrays and structs exist only in memory;
//! - `Break` is inside a `Loop` or `Switch`, `Continue` inside a `Loop` body;
//! - no recursion (directly or through other functions).

use crate::builtin::Builtin;
use crate::types::{AddressSpace, StructDef, Type};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A value: an index into [`Function::insts`]. Text form `%N`.
    ValueId
);
id_type!(
    /// A register variable of a function (no address). Text form `$N`.
    VarId
);
id_type!(
    /// A private-memory slot of a function (arrays, structs, address-taken
    /// locals). Text form `&N`.
    SlotId
);
id_type!(
    /// A function of the module. Text form `@name`.
    FuncId
);
id_type!(
    /// A module-scope variable (`__constant` data, `__local` variables of
    /// kernels). Text form `@name`.
    GlobalId
);

/// A source position (1-based; 0 when unknown) for reports and annotations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Loc {
    pub line: u32,
    pub col: u32,
}

impl Loc {
    pub const NONE: Loc = Loc { line: 0, col: 0 };

    pub fn is_known(self) -> bool {
        self.line != 0
    }
}

/// A translation unit after the front end: what one program build produces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub structs: Vec<StructDef>,
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
    /// The floating-point freedoms the build options grant every function.
    pub math: MathFlags,
    /// Addresses in the initial data of `__constant` and `__global`
    /// variables (a program-scope pointer initialised with `&x[1]`).
    pub relocs: Vec<Reloc>,
}

/// An address in a global's initial data: the 8 bytes at `offset` of
/// `global` hold the address of `target` plus `addend` bytes. Text form:
/// `reloc @global[offset] = @target[addend]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    pub global: GlobalId,
    pub offset: u32,
    pub target: GlobalId,
    pub addend: u32,
}

/// The math build options (OpenCL 1.2 5.6.4.2) a program was built with:
/// each one *permits* a faster, less strict evaluation; a consumer that
/// ignores them all is still correct. Text form: a `math` line naming the
/// set flags (printed only when one is set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MathFlags {
    /// `-cl-mad-enable`: `a * b + c` may be a fused or reduced-accuracy mad.
    pub mad_enable: bool,
    /// `-cl-no-signed-zeros`: the sign of a zero result may be ignored.
    pub no_signed_zeros: bool,
    /// `-cl-unsafe-math-optimizations` (implies `mad_enable` and `no_signed_zeros`).
    pub unsafe_math: bool,
    /// `-cl-finite-math-only`: arguments and results are never NaN or infinite.
    pub finite_math_only: bool,
    /// `-cl-fast-relaxed-math`: all of the above.
    pub fast_relaxed_math: bool,
    /// `-cl-denorms-are-zero`: single-precision denormals may flush to zero.
    pub denorms_are_zero: bool,
}

impl MathFlags {
    /// Each flag with its text-form name, in printing order.
    pub const NAMES: [&'static str; 6] = [
        "mad_enable",
        "no_signed_zeros",
        "unsafe_math",
        "finite_math_only",
        "fast_relaxed_math",
        "denorms_are_zero",
    ];

    /// The flag named `name` in [`MathFlags::NAMES`].
    pub fn flag_mut(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "mad_enable" => &mut self.mad_enable,
            "no_signed_zeros" => &mut self.no_signed_zeros,
            "unsafe_math" => &mut self.unsafe_math,
            "finite_math_only" => &mut self.finite_math_only,
            "fast_relaxed_math" => &mut self.fast_relaxed_math,
            "denorms_are_zero" => &mut self.denorms_are_zero,
            _ => return None,
        })
    }

    /// The set flags' names, in [`MathFlags::NAMES`] order.
    pub fn set_names(&self) -> Vec<&'static str> {
        let values = [
            self.mad_enable,
            self.no_signed_zeros,
            self.unsafe_math,
            self.finite_math_only,
            self.fast_relaxed_math,
            self.denorms_are_zero,
        ];
        Self::NAMES
            .iter()
            .zip(values)
            .filter(|(_, set)| *set)
            .map(|(n, _)| *n)
            .collect()
    }
}

impl Module {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn function_by_name(&self, name: &str) -> Option<(FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kernel.is_some())
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    pub fn size_of(&self, ty: &Type) -> u32 {
        crate::types::size_of(ty, &self.structs)
    }

    pub fn align_of(&self, ty: &Type) -> u32 {
        crate::types::align_of(ty, &self.structs)
    }
}

/// A module-scope variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: String,
    /// `Constant` for program-scope `__constant` data; `Local` for a
    /// `__local` variable declared in a kernel (one instance per work-group);
    /// `Global` for program-scope `__global` variables (OpenCL 2.0).
    pub space: AddressSpace,
    pub ty: Type,
    /// Initial bytes (little-endian, `size_of(ty)` long); `None` means zero
    /// for constant/global data and uninitialised for `__local`.
    pub init: Option<Vec<u8>>,
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    /// A struct passed by value: `ty` is a `ptr private %S` to a private copy
    /// the caller (or, for a kernel, the argument block) provides.
    pub byval: bool,
}

/// A register variable: a scalar, vector or pointer that is assigned but
/// never has its address taken. The JIT turns these into SSA values.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Type,
}

/// A private-memory slot, one instance per work-item (and per call).
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub name: String,
    pub ty: Type,
}

/// A function or kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Type,
    /// `Some` for `__kernel` functions.
    pub kernel: Option<KernelInfo>,
    pub vars: Vec<Var>,
    pub slots: Vec<Slot>,
    pub insts: Vec<InstData>,
    pub body: Block,
}

impl Function {
    pub fn new(name: impl Into<String>, params: Vec<Param>, ret: Type) -> Function {
        Function {
            name: name.into(),
            params,
            ret,
            kernel: None,
            vars: Vec::new(),
            slots: Vec::new(),
            insts: Vec::new(),
            body: Block::default(),
        }
    }

    pub fn inst(&self, v: ValueId) -> &InstData {
        &self.insts[v.index()]
    }

    pub fn ty(&self, v: ValueId) -> &Type {
        &self.insts[v.index()].ty
    }

    /// The value of `v` when it is an integer constant, sign-extended by
    /// its type.
    pub fn int_const(&self, v: ValueId) -> Option<i64> {
        match (&self.inst(v).inst, self.ty(v).scalar()) {
            (Inst::Const(bits), Some(s)) if s.is_int() => {
                let b = s.bits();
                let x = *bits as i64;
                Some(if s.is_signed() && b < 64 {
                    (x << (64 - b)) >> (64 - b)
                } else {
                    x
                })
            }
            _ => None,
        }
    }

    pub fn is_kernel(&self) -> bool {
        self.kernel.is_some()
    }
}

/// What `clGetKernelArgInfo` and `clGetKernelWorkGroupInfo` report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelInfo {
    /// One per parameter, in order.
    pub args: Vec<ArgInfo>,
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<Type>,
    /// `__attribute__((intel_reqd_sub_group_size(N)))`: the sub-group size
    /// the kernel needs (the JIT compiles it at that SIMD width).
    pub reqd_sub_group_size: Option<u32>,
}

/// Kernel argument metadata, as the source spelled it.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgInfo {
    /// The type as written, without qualifiers, e.g. `float*`, `float4`, `struct S`.
    pub type_name: String,
    /// The pointee's address space for pointer arguments; `Private` otherwise.
    pub address: AddressSpace,
    pub access: AccessQualifier,
    pub qualifiers: TypeQualifiers,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AccessQualifier {
    #[default]
    None,
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

/// `const`, `restrict`, `volatile`, `pipe` on a kernel argument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TypeQualifiers {
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
    pub is_pipe: bool,
}

/// An instruction with its result type and source position.
#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    pub inst: Inst,
    /// The result type; `Void` for instructions that produce nothing.
    pub ty: Type,
    pub loc: Loc,
}

/// Value-producing (or side-effecting, for calls and atomics) operations.
/// The result type is [`InstData::ty`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// The N-th parameter of the function.
    Param(u32),
    /// A scalar constant: the value's bit pattern, zero-extended to 64 bits
    /// (`-1i32` is `0xffff_ffff`; floats are their IEEE bits; bool is 0/1).
    Const(u64),
    /// An unspecified value of the result type (uninitialised variables).
    Undef,
    Unary(UnaryOp, ValueId),
    /// Both operands and the result have the same type.
    Binary(BinaryOp, ValueId, ValueId),
    /// Operands of one type; the result is `bool` or a bool vector of the
    /// same length.
    Cmp(CmpOp, ValueId, ValueId),
    /// `cond ? a : b`; `cond` is bool (scalar: picks a whole value) or a bool
    /// vector of the result's length (per component).
    Select(ValueId, ValueId, ValueId),
    /// Numeric conversion to the result type (same lane count). Bool converts
    /// to 1/0; to bool means `!= 0`.
    Convert {
        value: ValueId,
        saturate: bool,
        rounding: Rounding,
    },
    /// Reinterpret the bits (`as_T`): same size in memory.
    Bitcast(ValueId),
    /// A vector with every component equal to a scalar.
    Splat(ValueId),
    /// A vector from scalars and vectors whose components add up to the
    /// result's length, in order (`(float4)(a, v.xy, c)`).
    Construct(Vec<ValueId>),
    /// One component of a vector.
    Extract(ValueId, u8),
    /// A vector with one component replaced.
    Insert(ValueId, u8, ValueId),
    /// Components picked from the concatenation of two vectors of one type
    /// (swizzles use the same vector twice). The result has
    /// `indices.len()` components (1 means a scalar).
    Shuffle(ValueId, ValueId, Vec<u8>),
    /// The current value of a register variable.
    ReadVar(VarId),
    /// The address of a private slot (`ptr private T`).
    SlotAddr(SlotId),
    /// The address of a module-scope variable.
    GlobalAddr(GlobalId),
    /// `ptr + index` in elements of the pointee (`index` is i64 or i32).
    Index(ValueId, ValueId),
    /// Pointer to a struct → pointer to its field N.
    Field(ValueId, u32),
    /// Pointer to an array or vector → pointer to element `index`.
    Elem(ValueId, ValueId),
    /// Pointer to another pointee type or address space (same address).
    PtrCast(ValueId),
    /// A pointer's address as an integer (u64 / i64).
    PtrToInt(ValueId),
    /// An integer (u64 / i64) as a pointer: the inverse of `PtrToInt`, and
    /// from 0 the null pointer, which every access faults on.
    IntToPtr(ValueId),
    /// Load a value (scalar, vector or pointer) through a pointer.
    Load(ValueId),
    /// An atomic read-modify-write; returns the old value (`Void` for `Store`).
    Atomic {
        op: AtomicOp,
        ptr: ValueId,
        /// `[]` for Load/Inc/Dec, `[cmp, new]` for CmpXchg, `[value]` otherwise.
        args: Vec<ValueId>,
        order: MemoryOrder,
        scope: MemoryScope,
    },
    /// A work-item query; `dim` is absent for `WorkDim` and the linear ids.
    /// Out-of-range dimensions give 0 (ids, offsets) or 1 (sizes), as OpenCL says.
    WorkItem(WorkItemFn, Option<ValueId>),
    /// A call of a function of the module.
    Call(FuncId, Vec<ValueId>),
    /// A call of an OpenCL C builtin (`sqrt`, `vload4`, `mad24`…),
    /// already overload-resolved by the front end: the argument types and
    /// the result type select the overload.
    Builtin(Builtin, Vec<ValueId>),
}

impl Inst {
    /// The values the instruction reads, in operand order (variables,
    /// slots and globals it names are not values). The one walk over
    /// operands: passes, the parser's renaming and the code generators use
    /// it, so a new variant is handled in one place.
    pub fn operands(&self) -> impl Iterator<Item = ValueId> + '_ {
        let (fixed, rest): ([Option<ValueId>; 3], &[ValueId]) = match self {
            Inst::Param(_)
            | Inst::Const(_)
            | Inst::Undef
            | Inst::ReadVar(_)
            | Inst::SlotAddr(_)
            | Inst::GlobalAddr(_) => ([None; 3], &[]),
            Inst::Unary(_, a)
            | Inst::Convert { value: a, .. }
            | Inst::Bitcast(a)
            | Inst::Splat(a)
            | Inst::Extract(a, _)
            | Inst::Field(a, _)
            | Inst::PtrCast(a)
            | Inst::PtrToInt(a)
            | Inst::IntToPtr(a)
            | Inst::Load(a) => ([Some(*a), None, None], &[]),
            Inst::WorkItem(_, d) => ([*d, None, None], &[]),
            Inst::Binary(_, a, b)
            | Inst::Cmp(_, a, b)
            | Inst::Insert(a, _, b)
            | Inst::Shuffle(a, b, _)
            | Inst::Index(a, b)
            | Inst::Elem(a, b) => ([Some(*a), Some(*b), None], &[]),
            Inst::Select(c, a, b) => ([Some(*c), Some(*a), Some(*b)], &[]),
            Inst::Atomic { ptr, args, .. } => ([Some(*ptr), None, None], args),
            Inst::Construct(xs) | Inst::Call(_, xs) | Inst::Builtin(_, xs) => ([None; 3], xs),
        };
        fixed.into_iter().flatten().chain(rest.iter().copied())
    }

    /// The operands of [`operands`](Self::operands), in the same order,
    /// to rewrite in place (renumbering, forwarding).
    pub fn operands_mut(&mut self) -> impl Iterator<Item = &mut ValueId> + '_ {
        let (fixed, rest): ([Option<&mut ValueId>; 3], &mut [ValueId]) = match self {
            Inst::Param(_)
            | Inst::Const(_)
            | Inst::Undef
            | Inst::ReadVar(_)
            | Inst::SlotAddr(_)
            | Inst::GlobalAddr(_) => ([None, None, None], &mut []),
            Inst::Unary(_, a)
            | Inst::Convert { value: a, .. }
            | Inst::Bitcast(a)
            | Inst::Splat(a)
            | Inst::Extract(a, _)
            | Inst::Field(a, _)
            | Inst::PtrCast(a)
            | Inst::PtrToInt(a)
            | Inst::IntToPtr(a)
            | Inst::Load(a) => ([Some(a), None, None], &mut []),
            Inst::WorkItem(_, d) => ([d.as_mut(), None, None], &mut []),
            Inst::Binary(_, a, b)
            | Inst::Cmp(_, a, b)
            | Inst::Insert(a, _, b)
            | Inst::Shuffle(a, b, _)
            | Inst::Index(a, b)
            | Inst::Elem(a, b) => ([Some(a), Some(b), None], &mut []),
            Inst::Select(c, a, b) => ([Some(c), Some(a), Some(b)], &mut []),
            Inst::Atomic { ptr, args, .. } => ([Some(ptr), None, None], args),
            Inst::Construct(xs) | Inst::Call(_, xs) | Inst::Builtin(_, xs) => {
                ([None, None, None], xs)
            }
        };
        fixed.into_iter().flatten().chain(rest.iter_mut())
    }

    /// Whether the value is a function of the operands alone: arithmetic,
    /// comparisons, conversions, vector construction and address
    /// arithmetic, reading no memory, variable or work-item state and with
    /// no effect.
    pub fn depends_only_on_operands(&self) -> bool {
        matches!(
            self,
            Inst::Unary(..)
                | Inst::Binary(..)
                | Inst::Cmp(..)
                | Inst::Select(..)
                | Inst::Convert { .. }
                | Inst::Bitcast(_)
                | Inst::Splat(_)
                | Inst::Construct(_)
                | Inst::Extract(..)
                | Inst::Insert(..)
                | Inst::Shuffle(..)
                | Inst::Index(..)
                | Inst::Field(..)
                | Inst::Elem(..)
                | Inst::PtrCast(_)
                | Inst::PtrToInt(_)
                | Inst::IntToPtr(_)
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Arithmetic negation (wrapping for integers).
    Neg,
    /// Bitwise complement; logical not on bool.
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Integer division truncates; division by zero gives 0 and
    /// `MIN / -1` wraps to `MIN` (OpenCL leaves both undefined; vecl never traps).
    Div,
    /// Integer remainder (sign of the dividend); by zero gives 0. Not for floats.
    Rem,
    And,
    Or,
    Xor,
    /// Shifts take the amount modulo the element width (OpenCL C rule).
    Shl,
    /// Arithmetic for signed types, logical for unsigned.
    Shr,
}

/// Comparisons. For floats every comparison is ordered (false with a NaN)
/// except `Ne`, which is true when either operand is NaN, as in C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator that gives `b op' a` the value of `a op b`.
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }
}

/// Rounding of a conversion. `Default` is the C rule: toward zero for
/// float → integer, to nearest even otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rounding {
    #[default]
    Default,
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Load,
    Store,
    Add,
    Sub,
    Xchg,
    Inc,
    Dec,
    CmpXchg,
    /// Signedness from the operand type.
    Min,
    Max,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    #[default]
    SeqCst,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryScope {
    WorkItem,
    SubGroup,
    WorkGroup,
    #[default]
    Device,
    AllDevices,
}

/// Work-item functions. Results are `u32` for `WorkDim`, `u64` (size_t) otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkItemFn {
    WorkDim,
    GlobalSize,
    GlobalId,
    LocalSize,
    EnqueuedLocalSize,
    LocalId,
    NumGroups,
    GroupId,
    GlobalOffset,
    GlobalLinearId,
    LocalLinearId,
}

/// `CLK_LOCAL_MEM_FENCE` (1), `CLK_GLOBAL_MEM_FENCE` (2), `CLK_IMAGE_MEM_FENCE` (4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemFlags(pub u32);

impl MemFlags {
    pub const LOCAL: MemFlags = MemFlags(1);
    pub const GLOBAL: MemFlags = MemFlags(2);
    pub const IMAGE: MemFlags = MemFlags(4);
}

/// A sequence of statements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block(pub Vec<Stmt>);

/// Whether `stmts` hold a barrier, at any depth.
pub fn contains_barrier(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Barrier(..) => true,
        Stmt::If { then_, else_, .. } => contains_barrier(&then_.0) || contains_barrier(&else_.0),
        Stmt::Loop { body, continuing } => {
            contains_barrier(&body.0) || contains_barrier(&continuing.0)
        }
        Stmt::Switch { cases, .. } => cases.iter().any(|c| contains_barrier(&c.body.0)),
        _ => false,
    })
}

/// Structured statements.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Evaluate an instruction here; its value is defined from here on.
    Eval(ValueId),
    /// Assign a register variable.
    WriteVar(VarId, ValueId),
    /// Store a value through a pointer.
    Store {
        ptr: ValueId,
        value: ValueId,
        loc: Loc,
    },
    /// Copy `size` bytes between non-overlapping objects (struct assignment).
    Copy {
        dst: ValueId,
        src: ValueId,
        size: u32,
        loc: Loc,
    },
    If {
        cond: ValueId,
        then_: Block,
        else_: Block,
    },
    /// `loop { body; continuing }`: `Continue` in `body` jumps to
    /// `continuing`; `Break` (in either) leaves the loop. `for` and `while`
    /// put their test at the head of `body`, `do … while` at the end of
    /// `continuing`.
    Loop {
        body: Block,
        continuing: Block,
    },
    /// C `switch`: control enters at the matching case (or the default) and
    /// falls through the following cases until a `Break`.
    Switch {
        selector: ValueId,
        cases: Vec<SwitchCase>,
    },
    /// Leave the innermost `Loop` or `Switch`.
    Break,
    /// Go to the `continuing` block of the innermost `Loop`.
    Continue,
    Return(Option<ValueId>),
    /// `barrier(flags)` / `work_group_barrier`: every work-item of the group
    /// must reach it before any goes on.
    Barrier(MemFlags, Loc),
    /// `mem_fence` and its read/write forms: ordering only.
    Fence(MemFlags),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// Case labels; empty together with `is_default` for `default:` alone.
    pub values: Vec<i64>,
    pub is_default: bool,
    pub body: Block,
}

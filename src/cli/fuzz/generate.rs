//! Random OpenCL C kernels without undefined behaviour, in the style of
//! CLsmith: deterministic from a seed, every work-item folding its state
//! into a hash that it writes to `out[idx]`.
//!
//! The kernel always has the same interface:
//!
//! ```text
//! kernel void fuzz(global uint *out, global const uint *in, global uint *gatom)
//! ```
//!
//! `in` holds [`IN_WORDS`] words (indices are masked), `out` one word per
//! work-item (a work-item reads and writes only its own), `gatom`
//! [`ATOMIC_COUNTERS`] counters, each updated with one commutative
//! operation only, so that their final values do not depend on the order
//! of the work-items.
//!
//! **No undefined behaviour.** Arithmetic that could overflow is done in an
//! unsigned type of at least 32 bits (vectors: reinterpreted as unsigned
//! with `as_*`) and converted back, which wraps; divisors are forced
//! non-zero; scalar shifts of promoted narrow types are masked; every index
//! is masked to a power-of-two length; `clamp` gets ordered bounds;
//! `mul24` and `mad24` get 11-bit operands; every variable is initialised
//! where it is declared. Floats appear only inside integer expressions, on
//! values that are multiples of 1/4 below 2^21, so `+`, `-`, `*` and the
//! rounding builtins are exact whether or not the compiler contracts them,
//! and they go back to integers through saturating conversions (all four
//! rounding modes). Loops have bounded trip counts (a constant, or a
//! varying value masked to 1–4); their counters are never assigned.
//!
//! **Barriers** stand only at the kernel's top level or directly in a
//! top-level loop with a constant trip count and no `break`/`continue`:
//! every work-item of a group reaches them. Each is one line (write your
//! slot of `lbuf`, barrier, read a neighbour's, barrier), so that the
//! reducer removes it whole.
//!
//! **`goto`** (only with [`Options::goto`]): forward jumps to a label that
//! ends an enclosing block (out of nested loops too), and backward jumps
//! that repeat a block at most three more times; never across a barrier.

use std::fmt::Write as _;

/// Words of the input buffer `in`.
pub const IN_WORDS: usize = 64;
/// Counters of `gatom` (and of the kernel's `latom`): add, xor, min, max,
/// or, and.
pub const ATOMIC_COUNTERS: usize = 6;
/// The initial value of each counter (the identity of its operation).
pub const ATOMIC_INIT: [u32; ATOMIC_COUNTERS] = [0, 0, u32::MAX, 0, 0, u32::MAX];
/// The largest work-group the kernels allow (`lbuf`'s length).
pub const MAX_LOCAL: u64 = 64;
/// The kernel's name.
pub const KERNEL: &str = "fuzz";

/// What the generator may produce.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Generate `goto` (forward and backward).
    pub goto: bool,
    /// Smaller kernels (fewer statements and helpers).
    pub small: bool,
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_f022_c0de_0001)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// An integer element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

const ELEMS: [Elem; 8] = [
    Elem::I8,
    Elem::U8,
    Elem::I16,
    Elem::U16,
    Elem::I32,
    Elem::U32,
    Elem::I64,
    Elem::U64,
];

impl Elem {
    fn name(self) -> &'static str {
        match self {
            Elem::I8 => "char",
            Elem::U8 => "uchar",
            Elem::I16 => "short",
            Elem::U16 => "ushort",
            Elem::I32 => "int",
            Elem::U32 => "uint",
            Elem::I64 => "long",
            Elem::U64 => "ulong",
        }
    }

    fn bits(self) -> u32 {
        match self {
            Elem::I8 | Elem::U8 => 8,
            Elem::I16 | Elem::U16 => 16,
            Elem::I32 | Elem::U32 => 32,
            Elem::I64 | Elem::U64 => 64,
        }
    }

    fn signed(self) -> bool {
        matches!(self, Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64)
    }

    fn unsigned(self) -> Elem {
        match self {
            Elem::I8 => Elem::U8,
            Elem::I16 => Elem::U16,
            Elem::I32 => Elem::U32,
            Elem::I64 => Elem::U64,
            e => e,
        }
    }

    fn to_signed(self) -> Elem {
        match self {
            Elem::U8 => Elem::I8,
            Elem::U16 => Elem::I16,
            Elem::U32 => Elem::I32,
            Elem::U64 => Elem::I64,
            e => e,
        }
    }

    /// The type of the same signedness and half the width.
    fn half(self) -> Option<Elem> {
        Some(match self {
            Elem::I16 => Elem::I8,
            Elem::U16 => Elem::U8,
            Elem::I32 => Elem::I16,
            Elem::U32 => Elem::U16,
            Elem::I64 => Elem::I32,
            Elem::U64 => Elem::U32,
            _ => return None,
        })
    }

    /// The unsigned type scalar arithmetic on this type is done in (at
    /// least 32 bits: no promotion to `int` can overflow).
    fn wide_unsigned(self) -> Elem {
        if self.bits() == 64 {
            Elem::U64
        } else {
            Elem::U32
        }
    }

    fn of_bits(bits: u32, signed: bool) -> Elem {
        let u = match bits {
            8 => Elem::U8,
            16 => Elem::U16,
            32 => Elem::U32,
            _ => Elem::U64,
        };
        if signed {
            u.to_signed()
        } else {
            u
        }
    }
}

/// A scalar or vector integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ty {
    elem: Elem,
    lanes: u32,
}

const LANES: [u32; 5] = [1, 2, 4, 8, 16];

impl Ty {
    fn scalar(elem: Elem) -> Ty {
        Ty { elem, lanes: 1 }
    }

    fn uint() -> Ty {
        Ty::scalar(Elem::U32)
    }

    fn name(self) -> String {
        if self.lanes == 1 {
            self.elem.name().to_string()
        } else {
            format!("{}{}", self.elem.name(), self.lanes)
        }
    }

    fn with_elem(self, elem: Elem) -> Ty {
        Ty { elem, ..self }
    }
}

/// A field of a struct.
#[derive(Clone, Debug)]
enum Field {
    Value(Ty),
    Array(Ty, u32),
}

#[derive(Clone, Debug)]
struct StructDef {
    name: String,
    fields: Vec<(String, Field)>,
}

#[derive(Clone, Debug)]
struct UnionDef {
    name: String,
    /// Members of equal size; the first is the one initialised.
    members: Vec<(String, Ty)>,
}

#[derive(Clone, Debug)]
enum VarKind {
    Value(Ty),
    /// Elements and length (a power of two).
    Array(Ty, u32),
    Struct(usize),
    Union(usize),
    /// A pointer to this many elements (a power of two).
    Ptr(Ty, u32),
    StructPtr(usize),
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    kind: VarKind,
    writable: bool,
}

/// A function the kernel may call in an expression: no pointers, no side
/// effects on the caller's variables.
#[derive(Clone, Debug)]
struct PureFn {
    name: String,
    ret: Ty,
    params: Vec<Ty>,
}

/// A parameter of a function called as a statement.
#[derive(Clone, Debug)]
enum PtrParam {
    Value(Ty),
    Ptr(Ty, u32),
    StructPtr(usize),
}

#[derive(Clone, Debug)]
struct PtrFn {
    name: String,
    params: Vec<PtrParam>,
}

/// Something an expression can read or a statement assign, with the
/// index expressions still to draw.
#[derive(Clone, Debug)]
enum Place {
    Var(String),
    /// `name[i & mask]`
    Index(String, u32),
    /// `base.field` / `base->field`
    Member(String),
    /// `base.field[i & mask]`
    MemberIndex(String, u32),
    /// `*p` / `p[i & mask]` / `*(p + (i & mask))`
    Deref(String, u32),
}

/// What a `return` in the current function looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ret {
    /// The kernel: no early return (barriers follow).
    Kernel,
    Void,
    Value(Ty),
}

struct Gen {
    rng: Rng,
    ret: Ret,
    /// The type of the second `__local` buffer, `lbx`.
    lbx: Ty,
    opts: Options,
    out: Vec<String>,
    indent: usize,
    scopes: Vec<Vec<Var>>,
    structs: Vec<StructDef>,
    unions: Vec<UnionDef>,
    pure_fns: Vec<PureFn>,
    ptr_fns: Vec<PtrFn>,
    fresh: u32,
    /// Inside the kernel (barriers, atomics, `out` and `lbuf` are there).
    in_kernel: bool,
    /// The name of the input buffer here (`in`, or a helper's parameter).
    input: &'static str,
    break_ok: bool,
    continue_ok: bool,
    /// Labels a forward `goto` here may jump to.
    exit_labels: Vec<String>,
    /// Statements left to the current function.
    budget: i32,
    depth: u32,
}

/// Generates the kernel of `seed`.
pub fn generate(seed: u64, opts: &Options) -> String {
    let mut g = Gen {
        rng: Rng::new(seed),
        ret: Ret::Kernel,
        lbx: Ty::uint(),
        opts: *opts,
        out: Vec::new(),
        indent: 0,
        scopes: Vec::new(),
        structs: Vec::new(),
        unions: Vec::new(),
        pure_fns: Vec::new(),
        ptr_fns: Vec::new(),
        fresh: 0,
        in_kernel: false,
        input: "src",
        break_ok: false,
        continue_ok: false,
        exit_labels: Vec::new(),
        budget: 0,
        depth: 0,
    };
    g.program(seed);
    let mut text = String::new();
    for l in &g.out {
        text.push_str(l);
        text.push('\n');
    }
    text
}

impl Gen {
    fn line(&mut self, text: impl AsRef<str>) {
        let l = format!("{}{}", "    ".repeat(self.indent), text.as_ref());
        self.out.push(l);
    }

    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn declare(&mut self, name: String, kind: VarKind, writable: bool) {
        self.scopes.last_mut().expect("a scope is open").push(Var {
            name,
            kind,
            writable,
        });
    }

    fn random_ty(&mut self) -> Ty {
        let elem = self.rng.pick(&ELEMS);
        // Wide vectors are rare: at W = 32 a `ulong16` value is 512 lanes,
        // and the optimised tier's register allocation grows much faster
        // than linearly with them.
        let lanes = match self.rng.below(100) {
            0..=54 => 1,
            55..=71 => 2,
            72..=89 => 4,
            90..=93 => 3,
            94..=97 => 8,
            _ => 16,
        };
        Ty { elem, lanes }
    }

    // ---------------------------------------------------------------- program

    fn program(&mut self, seed: u64) {
        self.line(format!("// vecl fuzz seed {seed}"));
        self.line("uint mix(uint h, uint v) { h = (h ^ v) * 0x01000193u; return h ^ (h >> 15); }");
        self.line("uint mix64(uint h, ulong v) { return mix(mix(h, (uint)v), (uint)(v >> 32)); }");
        for _ in 0..self.rng.below(3) {
            self.struct_def();
        }
        for _ in 0..self.rng.below(3) {
            self.union_def();
        }
        let helpers = if self.opts.small { 2 } else { 4 };
        for _ in 0..self.rng.below(helpers) {
            if self.rng.percent(50) {
                self.pure_fn();
            } else {
                self.ptr_fn();
            }
        }
        self.kernel();
    }

    fn struct_def(&mut self) {
        let name = format!("S{}", self.structs.len());
        let mut fields = Vec::new();
        for i in 0..2 + self.rng.below(3) {
            let f = if self.rng.percent(25) {
                Field::Array(Ty::scalar(self.rng.pick(&ELEMS)), 4)
            } else {
                Field::Value(self.random_ty())
            };
            fields.push((format!("f{i}"), f));
        }
        self.line(format!("struct {name} {{"));
        for (n, f) in &fields {
            let l = match f {
                Field::Value(t) => format!("    {} {n};", t.name()),
                Field::Array(t, len) => format!("    {} {n}[{len}];", t.name()),
            };
            self.out.push(l);
        }
        self.line("};");
        self.structs.push(StructDef { name, fields });
    }

    fn union_def(&mut self) {
        let name = format!("U{}", self.unions.len());
        let bytes = self.rng.pick(&[4u32, 8, 16]);
        let mut members: Vec<(String, Ty)> = Vec::new();
        for i in 0..2 + self.rng.below(3) {
            let elem = self.rng.pick(&ELEMS);
            let lanes = bytes / (elem.bits() / 8);
            if !LANES.contains(&lanes) {
                continue;
            }
            members.push((format!("m{i}"), Ty { elem, lanes }));
        }
        if members.is_empty() {
            members.push(("m".into(), Ty::scalar(Elem::U32)));
        }
        self.line(format!("union {name} {{"));
        for (n, t) in &members {
            self.out.push(format!("    {} {n};", t.name()));
        }
        self.line("};");
        self.unions.push(UnionDef { name, members });
    }

    fn begin_function(&mut self, budget: i32) {
        self.scopes = vec![Vec::new()];
        self.budget = budget;
        self.depth = 0;
        self.break_ok = false;
        self.continue_ok = false;
        self.exit_labels.clear();
    }

    fn pure_fn(&mut self) {
        let name = format!("pf{}", self.pure_fns.len());
        let ret = self.random_ty();
        let params: Vec<Ty> = (0..1 + self.rng.below(3))
            .map(|_| self.random_ty())
            .collect();
        let list: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{} arg{i}", t.name()))
            .collect();
        self.line(format!(
            "{} {name}(global const uint *src, {})",
            ret.name(),
            list.join(", ")
        ));
        self.line("{");
        self.indent += 1;
        let budget = 6 + self.rng.below(8) as i32;
        self.begin_function(budget);
        self.in_kernel = false;
        self.input = "src";
        self.ret = Ret::Value(ret);
        for (i, t) in params.iter().enumerate() {
            self.declare(format!("arg{i}"), VarKind::Value(*t), true);
        }
        self.line("uint h = 0x12345u;");
        self.declare("h".into(), VarKind::Value(Ty::uint()), true);
        let n = 1 + self.rng.below(5);
        self.statements(n);
        self.fold_scope(0);
        let e = self.expr(ret, 2);
        let splat = format!("({})({})h", ret.name(), ret.elem.name());
        self.line(format!("return {splat} ^ {e};"));
        self.indent -= 1;
        self.line("}");
        self.pure_fns.push(PureFn { name, ret, params });
    }

    fn ptr_fn(&mut self) {
        let name = format!("sf{}", self.ptr_fns.len());
        let mut params = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            let p = match self.rng.below(4) {
                0 if !self.structs.is_empty() => {
                    PtrParam::StructPtr(self.rng.below(self.structs.len() as u64) as usize)
                }
                0 | 1 => PtrParam::Ptr(self.random_ty(), self.rng.pick(&[1u32, 4])),
                _ => PtrParam::Value(self.random_ty()),
            };
            params.push(p);
        }
        if !params.iter().any(|p| !matches!(p, PtrParam::Value(_))) {
            params.push(PtrParam::Ptr(self.random_ty(), 1));
        }
        let list: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                PtrParam::Value(t) => format!("{} arg{i}", t.name()),
                PtrParam::Ptr(t, _) => format!("{} *arg{i}", t.name()),
                PtrParam::StructPtr(s) => format!("struct {} *arg{i}", self.structs[*s].name),
            })
            .collect();
        self.line(format!(
            "void {name}(global const uint *src, {})",
            list.join(", ")
        ));
        self.line("{");
        self.indent += 1;
        let budget = 5 + self.rng.below(8) as i32;
        self.begin_function(budget);
        self.in_kernel = false;
        self.input = "src";
        self.ret = Ret::Void;
        for (i, p) in params.iter().enumerate() {
            let kind = match p {
                PtrParam::Value(t) => VarKind::Value(*t),
                PtrParam::Ptr(t, n) => VarKind::Ptr(*t, *n),
                PtrParam::StructPtr(s) => VarKind::StructPtr(*s),
            };
            self.declare(format!("arg{i}"), kind, true);
        }
        self.line("uint h = 0x6789u;");
        self.declare("h".into(), VarKind::Value(Ty::uint()), true);
        let n = 1 + self.rng.below(5);
        self.statements(n);
        // Leave a trace of `h` in the first pointee.
        if let Some((i, p)) = params
            .iter()
            .enumerate()
            .find(|(_, p)| !matches!(p, PtrParam::Value(_)))
        {
            match p {
                PtrParam::Ptr(t, _) => {
                    let t = *t;
                    self.line(format!("*arg{i} ^= ({})({})h;", t.name(), t.elem.name()))
                }
                PtrParam::StructPtr(s) => {
                    if let Some((f, t)) =
                        self.structs[*s].fields.iter().find_map(|(f, k)| match k {
                            Field::Value(t) => Some((f.clone(), *t)),
                            Field::Array(..) => None,
                        })
                    {
                        self.line(format!(
                            "arg{i}->{f} ^= ({})({})h;",
                            t.name(),
                            t.elem.name()
                        ));
                    }
                }
                PtrParam::Value(_) => {}
            }
        }
        self.indent -= 1;
        self.line("}");
        self.ptr_fns.push(PtrFn { name, params });
    }

    fn kernel(&mut self) {
        self.line(format!(
            "kernel void {KERNEL}(global uint *out, global const uint *in, global uint *gatom)"
        ));
        self.line("{");
        self.indent += 1;
        let budget = if self.opts.small {
            6 + self.rng.below(10) as i32
        } else {
            15 + self.rng.below(25) as i32
        };
        self.begin_function(budget);
        self.in_kernel = true;
        self.ret = Ret::Kernel;
        self.input = "in";
        self.line("const uint gid = (uint)get_global_id(0);");
        self.line("const uint gid1 = (uint)get_global_id(1);");
        self.line(
            "const uint lid = (uint)(get_local_id(1) * get_local_size(0) + get_local_id(0));",
        );
        self.line("const uint lsz = (uint)(get_local_size(0) * get_local_size(1));");
        self.line("const uint grp = (uint)get_group_id(0);");
        self.line("const uint idx = (uint)((get_global_id(1) - get_global_offset(1)) * get_global_size(0) + (get_global_id(0) - get_global_offset(0)));");
        self.line(format!("local uint lbuf[{MAX_LOCAL}];"));
        self.line(format!("local uint latom[{ATOMIC_COUNTERS}];"));
        self.lbx = Ty {
            elem: self.rng.pick(&ELEMS),
            lanes: self.rng.pick(&[1, 1, 2, 3, 4]),
        };
        self.line(format!("local {} lbx[{MAX_LOCAL}];", self.lbx.name()));
        self.line("uint h = 0x811c9dc5u ^ idx;");
        for n in ["gid", "gid1", "lid", "lsz", "grp", "idx"] {
            self.declare(n.into(), VarKind::Value(Ty::uint()), false);
        }
        self.declare("h".into(), VarKind::Value(Ty::uint()), true);
        let init: Vec<String> = ATOMIC_INIT
            .iter()
            .enumerate()
            .map(|(i, v)| format!("latom[{i}] = {v:#x}u;"))
            .collect();
        self.line(format!(
            "if (lid == 0u) {{ {} }} barrier(CLK_LOCAL_MEM_FENCE);",
            init.join(" ")
        ));
        while self.budget > 0 {
            self.top_statement();
        }
        let reads: Vec<String> = (0..ATOMIC_COUNTERS)
            .map(|i| format!("h = mix(h, latom[{i}]);"))
            .collect();
        self.line(format!("barrier(CLK_LOCAL_MEM_FENCE); {}", reads.join(" ")));
        self.fold_scope(0);
        if self.rng.percent(30) {
            let c = self.cond(2);
            self.line(format!("if ({c}) {{ out[idx] = h ^ 0x5555u; return; }}"));
        }
        self.line("out[idx] = h;");
        self.indent -= 1;
        self.line("}");
    }

    /// A statement of the kernel's top level: barriers allowed.
    fn top_statement(&mut self) {
        match self.rng.below(10) {
            0 => {
                self.budget -= 1;
                let line = self.barrier_line();
                self.line(line);
            }
            1 => self.barrier_loop(),
            _ => self.statement(),
        }
    }

    /// Write the own slot of `lbuf`, barrier, read a neighbour's, barrier.
    fn barrier_line(&mut self) -> String {
        let k = self.rng.below(MAX_LOCAL);
        if self.rng.percent(40) {
            let t = self.lbx;
            let v = self.expr(t, 2);
            let mut parts = Vec::new();
            fold_value(&mut parts, &format!("lbx[(lid + {k}u) % lsz]"), t);
            return format!(
                "lbx[lid] = {v}; barrier(CLK_LOCAL_MEM_FENCE); {} barrier(CLK_LOCAL_MEM_FENCE);",
                parts.join(" ")
            );
        }
        let v = self.expr(Ty::uint(), 2);
        let read = format!("lbuf[(lid + {k}u) % lsz]");
        let take = match self.writable_place(Ty::uint()) {
            Some(p) if self.rng.percent(40) => {
                let p = self.place_text(&p);
                format!("{p} ^= {read};")
            }
            _ => format!("h = mix(h, {read});"),
        };
        format!(
            "lbuf[lid] = {v}; barrier(CLK_LOCAL_MEM_FENCE); {take} barrier(CLK_LOCAL_MEM_FENCE);"
        )
    }

    /// A loop with a constant trip count holding barriers.
    fn barrier_loop(&mut self) {
        let i = self.name("b");
        let n = 1 + self.rng.below(3);
        self.line(format!("for (uint {i} = 0u; {i} < {n}u; {i}++) {{"));
        self.indent += 1;
        self.scopes.push(vec![Var {
            name: i,
            kind: VarKind::Value(Ty::uint()),
            writable: false,
        }]);
        let saved = (self.break_ok, self.continue_ok);
        self.break_ok = false;
        self.continue_ok = false;
        self.budget -= 1;
        let line = self.barrier_line();
        self.line(line);
        for _ in 0..self.rng.below(3) {
            if self.rng.percent(30) {
                let line = self.barrier_line();
                self.line(line);
            } else {
                self.statement();
            }
        }
        (self.break_ok, self.continue_ok) = saved;
        self.close_block();
    }

    // ---------------------------------------------------------- statements

    fn statements(&mut self, n: u64) {
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.statement();
        }
    }

    /// Closes the innermost block: folds its variables into `h`.
    fn close_block(&mut self) {
        let level = self.scopes.len() - 1;
        self.fold_scope(level);
        self.scopes.pop();
        self.indent -= 1;
        self.line("}");
    }

    /// A nested block `{ … }` of a few statements (the opening line is the
    /// caller's).
    fn block_body(&mut self, extra: Vec<Var>) {
        self.indent += 1;
        self.scopes.push(extra);
        self.depth += 1;
        let label = (self.opts.goto && self.rng.percent(25)).then(|| self.name("L"));
        if let Some(l) = &label {
            self.exit_labels.push(l.clone());
        }
        let n = 1 + self.rng.below(4);
        self.statements(n);
        let level = self.scopes.len() - 1;
        self.fold_scope(level);
        if let Some(l) = label {
            self.exit_labels.pop();
            self.line(format!("{l}: ;"));
        }
        self.scopes.pop();
        self.depth -= 1;
        self.indent -= 1;
    }

    fn statement(&mut self) {
        self.budget -= 1;
        let nested = self.depth < 3 && self.budget > 2;
        loop {
            let choice = self.rng.below(100);
            let done = match choice {
                0..=13 => {
                    self.decl_value();
                    true
                }
                14..=17 => {
                    self.decl_array();
                    true
                }
                18..=19 => self.decl_struct(),
                20..=21 => self.decl_union(),
                22..=24 => self.decl_pointer(),
                25..=44 => self.assign(),
                45..=49 => self.compound_assign(),
                50..=53 if nested => {
                    self.if_stmt();
                    true
                }
                54..=57 if nested => {
                    self.for_stmt();
                    true
                }
                58..=59 if nested => {
                    self.while_stmt();
                    true
                }
                60..=61 if nested => {
                    self.do_stmt();
                    true
                }
                62..=63 if nested => {
                    self.switch_stmt();
                    true
                }
                64..=66 if self.break_ok || self.continue_ok => self.jump(),
                67..=69 => self.call_ptr_fn(),
                70..=73 if self.in_kernel => {
                    self.atomic();
                    true
                }
                74..=75 if self.in_kernel => {
                    let e = self.expr(Ty::uint(), 3);
                    self.line(format!("out[idx] = {e};"));
                    true
                }
                76..=78 => {
                    let e = self.expr(Ty::uint(), 3);
                    self.line(format!("h = mix(h, {e});"));
                    true
                }
                79..=80 => self.vstore(),
                81..=82 if self.opts.goto && !self.exit_labels.is_empty() => {
                    let l = self.rng.pick_label(&self.exit_labels);
                    let c = self.cond(2);
                    self.line(format!("if ({c}) goto {l};"));
                    true
                }
                83..=84 if self.opts.goto && nested => {
                    self.goto_back();
                    true
                }
                85..=86 => self.struct_copy(),
                90..=91 if self.ret != Ret::Kernel && self.depth > 0 => {
                    let c = self.cond(2);
                    match self.ret {
                        Ret::Value(t) => {
                            let e = self.expr(t, 2);
                            self.line(format!("if ({c}) return {e};"));
                        }
                        _ => self.line(format!("if ({c}) return;")),
                    }
                    true
                }
                87..=89 => {
                    self.increment();
                    true
                }
                _ => false,
            };
            if done {
                return;
            }
        }
    }

    fn decl_value(&mut self) {
        let t = self.random_ty();
        let e = self.expr(t, 3);
        let n = self.name("v");
        let writable = self.rng.percent(85);
        let q = if writable { "" } else { "const " };
        self.line(format!("{q}{} {n} = {e};", t.name()));
        self.declare(n, VarKind::Value(t), writable);
    }

    fn decl_array(&mut self) {
        let t = if self.rng.percent(70) {
            Ty::scalar(self.rng.pick(&ELEMS))
        } else {
            self.random_ty()
        };
        let len = self.rng.pick(&[2u32, 4, 8]);
        let items: Vec<String> = (0..len).map(|_| self.expr(t, 1)).collect();
        let n = self.name("a");
        self.line(format!(
            "{} {n}[{len}] = {{ {} }};",
            t.name(),
            items.join(", ")
        ));
        self.declare(n, VarKind::Array(t, len), true);
    }

    fn struct_init(&mut self, s: usize) -> String {
        let fields = self.structs[s].fields.clone();
        let items: Vec<String> = fields
            .iter()
            .map(|(_, f)| match f {
                Field::Value(t) => self.expr(*t, 1),
                Field::Array(t, len) => {
                    let e: Vec<String> = (0..*len).map(|_| self.expr(*t, 0)).collect();
                    format!("{{ {} }}", e.join(", "))
                }
            })
            .collect();
        format!("{{ {} }}", items.join(", "))
    }

    fn decl_struct(&mut self) -> bool {
        if self.structs.is_empty() {
            return false;
        }
        let s = self.rng.below(self.structs.len() as u64) as usize;
        let init = self.struct_init(s);
        let n = self.name("s");
        self.line(format!("struct {} {n} = {init};", self.structs[s].name));
        self.declare(n, VarKind::Struct(s), true);
        true
    }

    fn decl_union(&mut self) -> bool {
        if self.unions.is_empty() {
            return false;
        }
        let u = self.rng.below(self.unions.len() as u64) as usize;
        let (m, t) = self.unions[u].members[0].clone();
        let e = self.expr(t, 2);
        let n = self.name("u");
        self.line(format!("union {} {n}; {n}.{m} = {e};", self.unions[u].name));
        self.declare(n, VarKind::Union(u), true);
        true
    }

    fn decl_pointer(&mut self) -> bool {
        // Pointers to arrays (part of one) or to single values.
        let mut targets: Vec<(String, Ty, u32)> = Vec::new();
        for scope in &self.scopes {
            for v in scope {
                match &v.kind {
                    VarKind::Array(t, len) if v.writable => {
                        targets.push((v.name.clone(), *t, *len));
                    }
                    VarKind::Value(t) if v.writable => targets.push((v.name.clone(), *t, 0)),
                    VarKind::Struct(s) => {
                        for (f, k) in &self.structs[*s].fields {
                            if let Field::Value(t) = k {
                                targets.push((format!("{}.{f}", v.name), *t, 0));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if targets.is_empty() {
            return false;
        }
        let (base, t, len) = targets[self.rng.below(targets.len() as u64) as usize].clone();
        let n = self.name("p");
        let (init, count) = if len == 0 {
            (format!("&{base}"), 1)
        } else if self.rng.percent(50) {
            (base.clone(), len)
        } else {
            let half = len / 2;
            let i = self.index(half - 1, 1);
            if self.rng.percent(50) {
                (format!("&{base}[{i}]"), half)
            } else {
                (format!("{base} + {i}"), half)
            }
        };
        self.line(format!("{} *{n} = {init};", t.name()));
        self.declare(n, VarKind::Ptr(t, count), false);
        true
    }

    /// `(e & mask)` for an index below `mask + 1` (a power of two).
    fn index(&mut self, mask: u32, depth: u32) -> String {
        if mask == 0 {
            return "0".into();
        }
        if self.rng.percent(20) {
            return format!("{}", self.rng.below(u64::from(mask) + 1));
        }
        let e = self.expr(Ty::uint(), depth);
        format!("({e} & {mask}u)")
    }

    fn assign(&mut self) -> bool {
        let t = self.random_ty();
        let Some(p) = self.writable_place(t) else {
            return false;
        };
        let target = self.place_text(&p);
        // Sometimes only some components of a vector.
        if t.lanes > 1 && self.rng.percent(25) {
            let n = self.rng.pick(&[1u32, 2]);
            let comps = self.distinct_components(t.lanes, n);
            let sub = Ty { lanes: n, ..t };
            let e = self.expr(sub, 3);
            self.line(format!("{target}.s{comps} = {e};"));
            return true;
        }
        let e = self.expr(t, 3);
        self.line(format!("{target} = {e};"));
        true
    }

    /// `n` distinct component letters of a vector of `lanes`.
    fn distinct_components(&mut self, lanes: u32, n: u32) -> String {
        let mut all: Vec<u32> = (0..lanes).collect();
        let mut s = String::new();
        for _ in 0..n {
            let i = self.rng.below(all.len() as u64) as usize;
            let c = all.remove(i);
            let _ = write!(s, "{c:x}");
        }
        s
    }

    fn compound_assign(&mut self) -> bool {
        let t = self.random_ty();
        let Some(p) = self.writable_place(t) else {
            return false;
        };
        let mut target = self.place_text(&p);
        let mut t = t;
        if t.lanes > 1 && self.rng.percent(30) {
            // One component.
            let c = self.rng.below(u64::from(t.lanes));
            target = format!("{target}.s{c:x}");
            t = Ty::scalar(t.elem);
        }
        // Arithmetic only where nothing is promoted to a signed type.
        let arith = !t.elem.signed() && (t.lanes > 1 || t.elem.bits() >= 32);
        let ops: &[&str] = if arith {
            &["+=", "-=", "*=", "^=", "|=", "&=", "<<=", ">>="]
        } else {
            &["^=", "|=", "&="]
        };
        let op = self.rng.pick(ops);
        let e = self.expr(t, 3);
        self.line(format!("{target} {op} {e};"));
        true
    }

    fn increment(&mut self) {
        let elem = self.rng.pick(&[Elem::U32, Elem::U64]);
        let t = Ty::scalar(elem);
        match self.writable_place(t) {
            Some(p) => {
                let target = self.place_text(&p);
                let op = self.rng.pick(&["++", "--"]);
                if self.rng.percent(50) {
                    self.line(format!("{target}{op};"));
                } else {
                    self.line(format!("{op}{target};"));
                }
            }
            None => self.line("h++;"),
        }
    }

    fn struct_copy(&mut self) -> bool {
        let mut pairs = Vec::new();
        for a in self.scopes.iter().flatten() {
            for b in self.scopes.iter().flatten() {
                if let (VarKind::Struct(x), VarKind::Struct(y)) = (&a.kind, &b.kind) {
                    if x == y && a.name != b.name {
                        pairs.push((a.name.clone(), b.name.clone()));
                    }
                }
            }
        }
        if pairs.is_empty() {
            return false;
        }
        let (a, b) = pairs[self.rng.below(pairs.len() as u64) as usize].clone();
        self.line(format!("{a} = {b};"));
        true
    }

    fn cond(&mut self, depth: u32) -> String {
        let t = Ty::scalar(self.rng.pick(&ELEMS));
        let a = self.expr(t, depth);
        match self.rng.below(4) {
            0 => {
                let m = self.rng.below(8);
                format!("({a} & {m}) == 0")
            }
            1 => a,
            _ => {
                let b = self.expr(t, depth);
                let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                format!("{a} {op} {b}")
            }
        }
    }

    fn if_stmt(&mut self) {
        let c = self.cond(3);
        self.line(format!("if ({c}) {{"));
        self.block_body(Vec::new());
        if self.rng.percent(40) {
            self.line("} else {");
            self.block_body(Vec::new());
        }
        self.line("}");
    }

    /// A trip count: a constant, or a varying value from 1 to 4.
    fn trip_count(&mut self) -> String {
        if self.rng.percent(50) {
            format!("{}u", 1 + self.rng.below(4))
        } else {
            let e = self.expr(Ty::uint(), 2);
            format!("(({e}) & 3u) + 1u")
        }
    }

    fn loop_body(&mut self, counter: Option<Var>) {
        let saved = (self.break_ok, self.continue_ok);
        (self.break_ok, self.continue_ok) = (true, true);
        self.block_body(counter.into_iter().collect());
        (self.break_ok, self.continue_ok) = saved;
    }

    fn for_stmt(&mut self) {
        let i = self.name("i");
        let n = self.trip_count();
        self.line(format!("for (uint {i} = 0u; {i} < {n}; {i}++) {{"));
        let v = Var {
            name: i,
            kind: VarKind::Value(Ty::uint()),
            writable: false,
        };
        self.loop_body(Some(v));
        self.line("}");
    }

    fn while_stmt(&mut self) {
        let w = self.name("w");
        let n = self.trip_count();
        self.line(format!("uint {w} = {n};"));
        self.line(format!("while ({w} > 0u) {{"));
        self.indent += 1;
        self.line(format!("{w}--;"));
        self.indent -= 1;
        self.loop_body(None);
        self.line("}");
        self.declare(w, VarKind::Value(Ty::uint()), false);
    }

    fn do_stmt(&mut self) {
        let d = self.name("d");
        let n = self.trip_count();
        self.line(format!("uint {d} = 0u;"));
        self.line("do {");
        self.indent += 1;
        self.line(format!("{d}++;"));
        self.indent -= 1;
        self.loop_body(None);
        self.line(format!("}} while ({d} < {n});"));
        self.declare(d, VarKind::Value(Ty::uint()), false);
    }

    fn switch_stmt(&mut self) {
        let e = self.expr(Ty::uint(), 2);
        self.line(format!("switch (({e}) & 7u) {{"));
        let mut cases: Vec<u64> = (0..8).collect();
        let n = 1 + self.rng.below(4);
        let saved = self.break_ok;
        for k in 0..n {
            let c = cases.remove(self.rng.below(cases.len() as u64) as usize);
            let label = if k == n - 1 && self.rng.percent(50) {
                "default:".to_string()
            } else {
                format!("case {c}:")
            };
            self.line(format!("{label} {{"));
            self.break_ok = true;
            self.block_body(Vec::new());
            self.break_ok = saved;
            if self.rng.percent(70) {
                self.line("} break;");
            } else {
                self.line("}");
            }
        }
        self.line("}");
    }

    fn jump(&mut self) -> bool {
        let c = self.cond(2);
        let what = match (self.break_ok, self.continue_ok) {
            (true, true) => self.rng.pick(&["break", "continue"]),
            (true, false) => "break",
            (false, true) => "continue",
            (false, false) => return false,
        };
        self.line(format!("if ({c}) {what};"));
        true
    }

    /// A block repeated by a backward `goto` at most three more times.
    fn goto_back(&mut self) {
        let g = self.name("g");
        let l = self.name("L");
        let k = 1 + self.rng.below(3);
        self.line(format!("uint {g} = 0u;"));
        self.line(format!("{l}: {{"));
        let saved = (self.break_ok, self.continue_ok);
        self.block_body(vec![Var {
            name: g.clone(),
            kind: VarKind::Value(Ty::uint()),
            writable: false,
        }]);
        (self.break_ok, self.continue_ok) = saved;
        let c = self.cond(2);
        self.line(format!("}} if ({g}++ < {k}u && ({c})) goto {l};"));
        self.declare(g, VarKind::Value(Ty::uint()), false);
    }

    fn atomic(&mut self) {
        let space = if self.rng.percent(50) {
            "gatom"
        } else {
            "latom"
        };
        let k = self.rng.below(ATOMIC_COUNTERS as u64) as usize;
        let f = match k {
            0 => self
                .rng
                .pick(&["atomic_add", "atomic_sub", "atomic_inc", "atomic_dec"]),
            1 => "atomic_xor",
            2 => "atomic_min",
            3 => "atomic_max",
            4 => "atomic_or",
            _ => "atomic_and",
        };
        if f == "atomic_inc" || f == "atomic_dec" {
            self.line(format!("{f}(&{space}[{k}]);"));
        } else {
            let e = self.expr(Ty::uint(), 2);
            self.line(format!("{f}(&{space}[{k}], {e});"));
        }
    }

    fn vstore(&mut self) -> bool {
        let arrays: Vec<(String, Elem, u32)> = self
            .scopes
            .iter()
            .flatten()
            .filter_map(|v| match &v.kind {
                VarKind::Array(t, len) if t.lanes == 1 && *len >= 2 && v.writable => {
                    Some((v.name.clone(), t.elem, *len))
                }
                _ => None,
            })
            .collect();
        if arrays.is_empty() {
            return false;
        }
        let (a, elem, len) = arrays[self.rng.below(arrays.len() as u64) as usize].clone();
        let n = self.rng.pick(&[2u32, 3, 4, 8]).min(len);
        let e = self.expr(Ty { elem, lanes: n }, 2);
        let i = self.index(len / n - 1, 1);
        self.line(format!("vstore{n}({e}, {i}, {a});"));
        true
    }

    fn call_ptr_fn(&mut self) -> bool {
        if self.ptr_fns.is_empty() {
            return false;
        }
        let f = self.ptr_fns[self.rng.below(self.ptr_fns.len() as u64) as usize].clone();
        let mut args = vec![self.input.to_string()];
        for p in &f.params {
            let a = match p {
                PtrParam::Value(t) => self.expr(*t, 2),
                PtrParam::Ptr(t, n) => match self.pointer_to(*t, *n) {
                    Some(a) => a,
                    None => return false,
                },
                PtrParam::StructPtr(s) => {
                    let vars: Vec<String> = self
                        .scopes
                        .iter()
                        .flatten()
                        .filter(|v| matches!(v.kind, VarKind::Struct(x) if x == *s))
                        .map(|v| format!("&{}", v.name))
                        .collect();
                    if vars.is_empty() {
                        return false;
                    }
                    vars[self.rng.below(vars.len() as u64) as usize].clone()
                }
            };
            args.push(a);
        }
        self.line(format!("{}({});", f.name, args.join(", ")));
        true
    }

    /// An expression pointing to `n` writable elements of type `t`.
    fn pointer_to(&mut self, t: Ty, n: u32) -> Option<String> {
        let mut found = Vec::new();
        for v in self.scopes.iter().flatten() {
            match &v.kind {
                VarKind::Value(x) if *x == t && v.writable && n == 1 => {
                    found.push(format!("&{}", v.name))
                }
                VarKind::Array(x, len) if *x == t && v.writable && *len >= n => {
                    if *len > n && self.rng.percent(50) {
                        found.push(format!("&{}[{}]", v.name, len - n));
                    } else {
                        found.push(v.name.clone());
                    }
                }
                VarKind::Ptr(x, len) if *x == t && *len >= n => found.push(v.name.clone()),
                _ => {}
            }
        }
        (!found.is_empty()).then(|| found[self.rng.below(found.len() as u64) as usize].clone())
    }

    // --------------------------------------------------------------- places

    /// Every place of type `t` in scope.
    fn places(&self, t: Ty, writable_only: bool) -> Vec<Place> {
        let mut out = Vec::new();
        for v in self.scopes.iter().flatten() {
            match &v.kind {
                VarKind::Value(x) if *x == t && (v.writable || !writable_only) => {
                    out.push(Place::Var(v.name.clone()))
                }
                VarKind::Array(x, len) if *x == t => {
                    out.push(Place::Index(v.name.clone(), len - 1))
                }
                VarKind::Ptr(x, len) if *x == t => out.push(Place::Deref(v.name.clone(), len - 1)),
                VarKind::Struct(s) | VarKind::StructPtr(s) => {
                    let sep = if matches!(v.kind, VarKind::Struct(_)) {
                        "."
                    } else {
                        "->"
                    };
                    for (f, k) in &self.structs[*s].fields {
                        match k {
                            Field::Value(x) if *x == t => {
                                out.push(Place::Member(format!("{}{sep}{f}", v.name)))
                            }
                            Field::Array(x, len) if *x == t => {
                                out.push(Place::MemberIndex(format!("{}{sep}{f}", v.name), len - 1))
                            }
                            _ => {}
                        }
                    }
                }
                VarKind::Union(u) => {
                    for (m, x) in &self.unions[*u].members {
                        if *x == t {
                            out.push(Place::Member(format!("{}.{m}", v.name)));
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn writable_place(&mut self, t: Ty) -> Option<Place> {
        let ps = self.places(t, true);
        (!ps.is_empty()).then(|| ps[self.rng.below(ps.len() as u64) as usize].clone())
    }

    fn place_text(&mut self, p: &Place) -> String {
        match p {
            Place::Var(n) | Place::Member(n) => n.clone(),
            Place::Index(n, mask) | Place::MemberIndex(n, mask) => {
                let i = self.index(*mask, 1);
                format!("{n}[{i}]")
            }
            Place::Deref(n, mask) => {
                if *mask == 0 {
                    return format!("(*{n})");
                }
                let i = self.index(*mask, 1);
                if self.rng.percent(50) {
                    format!("{n}[{i}]")
                } else {
                    format!("(*({n} + {i}))")
                }
            }
        }
    }

    /// Folds the variables of scope `level` into `h`.
    fn fold_scope(&mut self, level: usize) {
        let vars = self.scopes[level].clone();
        let mut parts = Vec::new();
        for v in &vars {
            match &v.kind {
                VarKind::Value(t) => fold_value(&mut parts, &v.name, *t),
                VarKind::Array(t, len) => {
                    for i in 0..*len {
                        fold_value(&mut parts, &format!("{}[{i}]", v.name), *t);
                    }
                }
                VarKind::Struct(s) => {
                    for (f, k) in &self.structs[*s].fields {
                        match k {
                            Field::Value(t) => {
                                fold_value(&mut parts, &format!("{}.{f}", v.name), *t)
                            }
                            Field::Array(t, len) => {
                                for i in 0..*len {
                                    fold_value(&mut parts, &format!("{}.{f}[{i}]", v.name), *t);
                                }
                            }
                        }
                    }
                }
                VarKind::Union(u) => {
                    let (m, t) = &self.unions[*u].members[0];
                    fold_value(&mut parts, &format!("{}.{m}", v.name), *t);
                }
                VarKind::Ptr(..) | VarKind::StructPtr(_) => {}
            }
        }
        if v_is_h_only(&vars) || parts.is_empty() {
            return;
        }
        for chunk in parts.chunks(8) {
            self.line(chunk.join(" "));
        }
    }

    // ---------------------------------------------------------- expressions

    /// An expression of type `t`, at most `depth` operators deep.
    fn expr(&mut self, t: Ty, depth: u32) -> String {
        // Mostly shallower than allowed: sizes grow as 3^depth.
        let depth = if depth > 1 && self.rng.percent(50) {
            depth - 1
        } else {
            depth
        };
        if depth == 0 || self.rng.percent(25) {
            return self.leaf(t);
        }
        let e = self.operation(t, depth);
        // A narrow scalar operand is promoted to `int`: cast it back, so
        // that overloaded builtins see the type the expression stands for.
        if t.lanes == 1 && t.elem.bits() < 32 {
            format!("(({})({e}))", t.name())
        } else {
            e
        }
    }

    fn operation(&mut self, t: Ty, depth: u32) -> String {
        let d = depth - 1;
        loop {
            let r = match self.rng.below(22) {
                0..=4 => self.binary(t, d),
                5 => Some(self.unary(t, d)),
                6 => self.compare(t, d),
                7 => {
                    let c = self.cond(d);
                    let a = self.expr(t, d);
                    let b = self.expr(t, d);
                    Some(format!("(({c}) ? {a} : {b})"))
                }
                8..=10 => self.builtin(t, d),
                11 => Some(self.conversion(t, d)),
                12 => self.swizzle(t, d),
                13 => self.construct(t, d),
                14 => self.call_pure(t, d),
                15 => self.float_to_int(t, d),
                16 => self.select(t, d),
                17 => self.vload(t, d),
                18 => self.shift(t, d),
                19 => self.divide(t, d),
                _ => Some(self.leaf(t)),
            };
            if let Some(e) = r {
                return e;
            }
        }
    }

    fn literal_scalar(&mut self, e: Elem) -> String {
        let bits = e.bits();
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let v = match self.rng.below(6) {
            0 => 0,
            1 => 1,
            2 => mask,
            3 => mask >> 1,
            4 => self.rng.below(16),
            _ => self.rng.next() & mask,
        };
        let suffix = if bits == 64 { "UL" } else { "u" };
        if e == Elem::U32 || e == Elem::U64 {
            format!("{v:#x}{suffix}")
        } else {
            format!("({}){v:#x}{suffix}", e.name())
        }
    }

    fn leaf(&mut self, t: Ty) -> String {
        for _ in 0..4 {
            match self.rng.below(8) {
                0..=2 => {
                    let ps = self.places(t, false);
                    if !ps.is_empty() {
                        let p = ps[self.rng.below(ps.len() as u64) as usize].clone();
                        return self.place_text(&p);
                    }
                }
                3 => {
                    let src = self.rng.pick(&["gid", "lid", "idx", "grp", "gid1", "lsz"]);
                    let src = if self.in_kernel {
                        src.to_string()
                    } else {
                        "(uint)get_global_id(0)".to_string()
                    };
                    return self.splat(t, &format!("({})({src})", t.elem.name()));
                }
                4 => {
                    let i = self.rng.below(IN_WORDS as u64);
                    let masked = if self.rng.percent(50) || !self.in_kernel {
                        format!("{i}")
                    } else {
                        let v = self.rng.pick(&["gid", "lid", "idx"]);
                        format!("({v} + {i}u) & {}u", IN_WORDS - 1)
                    };
                    let r = format!("({})({}[{masked}])", t.elem.name(), self.input);
                    return self.splat(t, &r);
                }
                5 if self.in_kernel && t == Ty::uint() => return "out[idx]".into(),
                _ => {}
            }
        }
        self.literal(t)
    }

    fn literal(&mut self, t: Ty) -> String {
        if t.lanes == 1 {
            return self.literal_scalar(t.elem);
        }
        if self.rng.percent(if t.lanes >= 8 { 80 } else { 30 }) {
            let l = self.literal_scalar(t.elem);
            return format!("({})({l})", t.name());
        }
        let items: Vec<String> = (0..t.lanes).map(|_| self.literal_scalar(t.elem)).collect();
        format!("({})({})", t.name(), items.join(", "))
    }

    /// A scalar expression of `t.elem` as type `t`.
    fn splat(&mut self, t: Ty, scalar: &str) -> String {
        if t.lanes == 1 {
            scalar.to_string()
        } else {
            format!("({})({scalar})", t.name())
        }
    }

    /// `a op b` on `t`, computed where it cannot overflow a signed type.
    fn binary(&mut self, t: Ty, d: u32) -> Option<String> {
        let op = self.rng.pick(&["+", "-", "*", "&", "|", "^"]);
        let a = self.expr(t, d);
        let b = self.expr(t, d);
        let bitwise = matches!(op, "&" | "|" | "^");
        if bitwise || (!t.elem.signed() && (t.lanes > 1 || t.elem.bits() >= 32)) {
            return Some(format!("({a} {op} {b})"));
        }
        if t.lanes == 1 {
            let w = t.elem.wide_unsigned().name();
            Some(format!("(({})(({w})({a}) {op} ({w})({b})))", t.name()))
        } else {
            let u = t.with_elem(t.elem.unsigned()).name();
            Some(format!("as_{}(as_{u}({a}) {op} as_{u}({b}))", t.name()))
        }
    }

    fn unary(&mut self, t: Ty, d: u32) -> String {
        let a = self.expr(t, d);
        match self.rng.below(3) {
            0 => format!("(~{a})"),
            1 if !t.elem.signed() && (t.lanes > 1 || t.elem.bits() >= 32) => format!("(-{a})"),
            1 if t.lanes == 1 => {
                let w = t.elem.wide_unsigned().name();
                format!("(({})(-({w})({a})))", t.name())
            }
            _ if t.lanes == 1 => {
                let s = Ty::scalar(self.rng.pick(&ELEMS));
                let b = self.expr(s, d);
                format!("(({})(!{b}))", t.name())
            }
            _ => format!("(~{a})"),
        }
    }

    /// A comparison: 0/1 for scalars, 0/-1 lanes for vectors.
    fn compare(&mut self, t: Ty, d: u32) -> Option<String> {
        let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
        if t.lanes == 1 {
            let s = Ty::scalar(self.rng.pick(&ELEMS));
            let a = self.expr(s, d);
            let b = self.expr(s, d);
            return Some(format!("(({})({a} {op} {b}))", t.name()));
        }
        let src = Ty {
            elem: Elem::of_bits(t.elem.bits(), self.rng.percent(50)),
            lanes: t.lanes,
        };
        let a = self.expr(src, d);
        let b = self.expr(src, d);
        Some(format!("as_{}({a} {op} {b})", t.name()))
    }

    fn builtin(&mut self, t: Ty, d: u32) -> Option<String> {
        let e = t.elem;
        let tn = t.name();
        Some(match self.rng.below(17) {
            0 | 1 => {
                let f = self.rng.pick(&[
                    "min", "max", "add_sat", "sub_sat", "hadd", "rhadd", "mul_hi", "rotate",
                ]);
                let a = self.expr(t, d);
                let b = self.expr(t, d);
                format!("{f}({a}, {b})")
            }
            2 => {
                let a = self.expr(t, d);
                let b = self.expr(t, d);
                let c = self.expr(t, d);
                format!("clamp({a}, min({b}, {c}), max({b}, {c}))")
            }
            3 => {
                let f = self.rng.pick(&["popcount", "clz", "ctz"]);
                let a = self.expr(t, d);
                format!("{f}({a})")
            }
            4 if !e.signed() => {
                // abs and abs_diff give the unsigned type of their argument.
                let s = t.with_elem(e.to_signed());
                let a = self.expr(s, d);
                if self.rng.percent(50) {
                    format!("abs({a})")
                } else {
                    let b = self.expr(s, d);
                    format!("abs_diff({a}, {b})")
                }
            }
            5 => {
                let f = self.rng.pick(&["mad_hi", "mad_sat", "bitselect"]);
                let a = self.expr(t, d);
                let b = self.expr(t, d);
                let c = self.expr(t, d);
                format!("{f}({a}, {b}, {c})")
            }
            6 if e.bits() == 32 => {
                let a = self.expr(t, d);
                let b = self.expr(t, d);
                let m = format!("({tn})(0x7ff)");
                if self.rng.percent(50) {
                    format!("mul24({a} & {m}, {b} & {m})")
                } else {
                    let c = self.expr(t, d);
                    if e.signed() {
                        // The sum of mad24 may overflow: keep it small too.
                        format!("mad24({a} & {m}, {b} & {m}, {c} & {m})")
                    } else {
                        format!("mad24({a} & {m}, {b} & {m}, {c})")
                    }
                }
            }
            7 => {
                let h = e.half()?;
                let hi = self.expr(t.with_elem(h), d);
                let lo = self.expr(t.with_elem(h.unsigned()), d);
                format!("upsample({hi}, {lo})")
            }
            8 if e.signed() && t.lanes == 1 => {
                // abs of a signed value, back to the signed type (wraps).
                let a = self.expr(t, d);
                format!("(({tn})abs({a}))")
            }
            9 => {
                let a = self.expr(t, d);
                let b = self.expr(t, d);
                let c = self.expr(t, d);
                let f = self.rng.pick(&["max", "min"]);
                format!("{f}({a}, {f}({b}, {c}))")
            }
            10 if t.lanes == 1 && e.bits() == 32 => {
                // A scalar result of a vector builtin.
                let v = Ty { lanes: 4, ..t };
                let a = self.expr(v, d);
                let c = self.rng.pick(&["x", "y", "z", "w"]);
                format!("(({tn})(popcount({a})).{c})")
            }
            _ => return None,
        })
    }

    fn conversion(&mut self, t: Ty, d: u32) -> String {
        let s = Ty {
            elem: self.rng.pick(&ELEMS),
            lanes: t.lanes,
        };
        let a = self.expr(s, d);
        match self.rng.below(4) {
            0 if t.lanes == 1 => format!("(({})({a}))", t.name()),
            1 => format!("convert_{}({a})", t.name()),
            _ => format!("convert_{}_sat({a})", t.name()),
        }
    }

    fn swizzle(&mut self, t: Ty, d: u32) -> Option<String> {
        let from = self.rng.pick(&[2, 3, 4, 8, 16]);
        let src = Ty {
            elem: t.elem,
            lanes: from,
        };
        if from == 2 * t.lanes && self.rng.percent(40) {
            let a = self.expr(src, d);
            let part = self.rng.pick(&["lo", "hi", "even", "odd"]);
            return Some(format!("({a}).{part}"));
        }
        let a = self.expr(src, d);
        let comps: String = (0..t.lanes)
            .map(|_| format!("{:x}", self.rng.below(u64::from(from))))
            .collect();
        if from <= 4 && t.lanes <= 4 && self.rng.percent(40) {
            let xyzw: String = comps
                .chars()
                .map(|c| ['x', 'y', 'z', 'w'][c.to_digit(16).unwrap_or(0) as usize])
                .collect();
            return Some(format!("({a}).{xyzw}"));
        }
        Some(format!("({a}).s{comps}"))
    }

    fn construct(&mut self, t: Ty, d: u32) -> Option<String> {
        if t.lanes == 1 {
            return None;
        }
        let mut left = t.lanes;
        let mut parts = Vec::new();
        while left > 0 {
            let n = self.rng.pick(&[1u32, 2, 4, 8]).min(left);
            let n = if left.is_power_of_two() || n == 1 {
                n
            } else {
                1
            };
            parts.push(self.expr(Ty { lanes: n, ..t }, d));
            left -= n;
        }
        Some(format!("({})({})", t.name(), parts.join(", ")))
    }

    fn call_pure(&mut self, t: Ty, d: u32) -> Option<String> {
        let fs: Vec<PureFn> = self
            .pure_fns
            .iter()
            .filter(|f| f.ret == t)
            .cloned()
            .collect();
        if fs.is_empty() {
            return None;
        }
        let f = fs[self.rng.below(fs.len() as u64) as usize].clone();
        let mut args = vec![self.input.to_string()];
        for p in &f.params {
            args.push(self.expr(*p, d.min(1)));
        }
        Some(format!("{}({})", f.name, args.join(", ")))
    }

    fn select(&mut self, t: Ty, d: u32) -> Option<String> {
        let a = self.expr(t, d);
        let b = self.expr(t, d);
        let c_ty = Ty {
            elem: Elem::of_bits(t.elem.bits(), self.rng.percent(50)),
            lanes: t.lanes,
        };
        let c = self.expr(c_ty, d);
        Some(format!("select({a}, {b}, {c})"))
    }

    fn vload(&mut self, t: Ty, d: u32) -> Option<String> {
        if t.lanes == 1 {
            return None;
        }
        let n = t.lanes;
        // From `in` (uint), converted; or from a private array of t.elem.
        if self.rng.percent(50) {
            let i = self.index(IN_WORDS as u32 / n - 1, d);
            let v = format!("vload{n}({i}, {})", self.input);
            return Some(if t.elem == Elem::U32 {
                v
            } else if t.elem.bits() == 32 {
                format!("as_{}({v})", t.name())
            } else {
                format!("convert_{}({v})", t.name())
            });
        }
        let arrays: Vec<(String, u32)> = self
            .scopes
            .iter()
            .flatten()
            .filter_map(|v| match &v.kind {
                VarKind::Array(x, len) if x.lanes == 1 && x.elem == t.elem && *len >= n => {
                    Some((v.name.clone(), *len))
                }
                _ => None,
            })
            .collect();
        if arrays.is_empty() {
            return None;
        }
        let (a, len) = arrays[self.rng.below(arrays.len() as u64) as usize].clone();
        let i = self.index(len / n - 1, d);
        Some(format!("vload{n}({i}, {a})"))
    }

    /// Shifts: vectors and 32/64-bit unsigned scalars take any count
    /// (OpenCL masks it); narrower or signed scalars get a masked count.
    fn shift(&mut self, t: Ty, d: u32) -> Option<String> {
        let op = self.rng.pick(&["<<", ">>"]);
        let a = self.expr(t, d);
        if t.lanes > 1 {
            let b = self.expr(t.with_elem(t.elem.unsigned()), d);
            if t.elem.signed() && op == "<<" {
                let u = t.with_elem(t.elem.unsigned()).name();
                return Some(format!("as_{}(as_{u}({a}) << {b})", t.name()));
            }
            return Some(format!("({a} {op} {b})"));
        }
        let b = self.expr(Ty::uint(), d);
        if !t.elem.signed() && t.elem.bits() >= 32 {
            return Some(format!("({a} {op} {b})"));
        }
        let w = t.elem.wide_unsigned();
        let mask = w.bits() - 1;
        if op == ">>" && t.elem.signed() {
            return Some(format!("({a} >> ({b} & {}u))", t.elem.bits() - 1));
        }
        Some(format!(
            "(({})(({})({a}) {op} ({b} & {mask}u)))",
            t.name(),
            w.name()
        ))
    }

    /// Division and remainder in the unsigned type, by a non-zero divisor.
    fn divide(&mut self, t: Ty, d: u32) -> Option<String> {
        let op = self.rng.pick(&["/", "%"]);
        let u = if t.lanes == 1 {
            Ty::scalar(t.elem.wide_unsigned())
        } else {
            t.with_elem(t.elem.unsigned())
        };
        let a = self.expr(u, d);
        let b = self.expr(u, d);
        let one = if u.lanes == 1 {
            "1u".to_string()
        } else {
            format!("({})(1)", u.name())
        };
        let q = format!("({a} {op} ({b} | {one}))");
        Some(if u == t {
            q
        } else if t.lanes == 1 {
            format!("(({})({q}))", t.name())
        } else {
            format!("as_{}({q})", t.name())
        })
    }

    // ---------------------------------------------------------------- floats

    /// A float (vector) leaf: a multiple of 1/2 in [-512, 512).
    fn float_leaf(&mut self, lanes: u32, d: u32) -> String {
        let u = Ty {
            elem: Elem::U32,
            lanes,
        };
        let a = self.expr(u, d.min(1));
        let f = if lanes == 1 {
            "float".to_string()
        } else {
            format!("float{lanes}")
        };
        let m = if lanes == 1 {
            "0x7ffu".to_string()
        } else {
            format!("({})(0x7ffu)", u.name())
        };
        format!("(convert_{f}({a} & {m}) * 0.5f - 512.0f)")
    }

    /// A product level: |v| < 2^18, a multiple of 1/4.
    fn float_product(&mut self, lanes: u32, d: u32) -> String {
        let a = self.float_leaf(lanes, d);
        match self.rng.below(6) {
            0 => {
                let b = self.float_leaf(lanes, d);
                format!("({a} * {b})")
            }
            1 => {
                let f = self
                    .rng
                    .pick(&["floor", "ceil", "trunc", "round", "rint", "fabs"]);
                format!("{f}({a})")
            }
            2 => {
                let b = self.float_leaf(lanes, d);
                format!("copysign({a}, {b})")
            }
            3 => {
                let b = self.float_leaf(lanes, d);
                let c = self.float_leaf(lanes, d);
                let f = self.rng.pick(&["fma", "mad"]);
                format!("{f}({a}, {b}, {c})")
            }
            _ => a,
        }
    }

    /// A sum level: |v| < 2^20, a multiple of 1/4: exact in a float.
    fn float_sum(&mut self, lanes: u32, d: u32) -> String {
        let a = self.float_product(lanes, d);
        match self.rng.below(5) {
            0 | 1 => {
                let b = self.float_product(lanes, d);
                let op = self.rng.pick(&["+", "-"]);
                format!("({a} {op} {b})")
            }
            2 => {
                let b = self.float_product(lanes, d);
                let f = self.rng.pick(&["fmin", "fmax"]);
                format!("{f}({a}, {b})")
            }
            _ => a,
        }
    }

    fn float_to_int(&mut self, t: Ty, d: u32) -> Option<String> {
        let f = self.float_sum(t.lanes, d);
        let mode = self.rng.pick(&["", "_rte", "_rtz", "_rtp", "_rtn"]);
        if self.rng.percent(20) {
            // A comparison of floats.
            let g = self.float_sum(t.lanes, d);
            let op = self.rng.pick(&["<", "<=", "==", "!="]);
            if t.lanes == 1 {
                return Some(format!("(({})({f} {op} {g}))", t.name()));
            }
            if t.elem.bits() == 32 {
                return Some(format!("as_{}({f} {op} {g})", t.name()));
            }
            return Some(format!("convert_{}({f} {op} {g})", t.name()));
        }
        if t.lanes == 1 && matches!(t.elem, Elem::I32 | Elem::I64) && self.rng.percent(30) {
            return Some(format!("(({})({f}))", t.name()));
        }
        Some(format!("convert_{}_sat{mode}({f})", t.name()))
    }
}

impl Rng {
    fn pick_label(&mut self, labels: &[String]) -> String {
        labels[self.below(labels.len() as u64) as usize].clone()
    }
}

/// Whether the scope holds only the function's own `h` (nothing to fold).
fn v_is_h_only(vars: &[Var]) -> bool {
    vars.iter().all(|v| v.name == "h")
}

/// `h = mix(h, lane)` for every lane of `name` of type `t` (`h` itself is
/// skipped).
fn fold_value(parts: &mut Vec<String>, name: &str, t: Ty) {
    if name == "h" {
        return;
    }
    let f = if t.elem.bits() == 64 { "mix64" } else { "mix" };
    let cast = if t.elem.bits() == 64 { "ulong" } else { "uint" };
    if t.lanes == 1 {
        parts.push(format!("h = {f}(h, ({cast}){name});"));
    } else {
        for i in 0..t.lanes {
            parts.push(format!("h = {f}(h, ({cast})({name}).s{i:x});"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_kernel() {
        let o = Options::default();
        assert_eq!(generate(7, &o), generate(7, &o));
        assert_ne!(generate(7, &o), generate(8, &o));
    }

    #[test]
    fn goto_appears_only_when_asked_for() {
        let without = (0..50).any(|s| {
            generate(
                s,
                &Options {
                    goto: false,
                    small: true,
                },
            )
            .contains("goto")
        });
        let with = (0..50).any(|s| {
            generate(
                s,
                &Options {
                    goto: true,
                    small: true,
                },
            )
            .contains("goto")
        });
        assert!(!without);
        assert!(with);
    }
}

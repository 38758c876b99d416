//! A prototype of a second code generator past 128 bits: 16-lane values in
//! zmm registers, masks in k registers, emitted as AVX-512 machine code
//! (docs/jit.md, "Past 128 bits").
//!
//! Cranelift's x86-64 back end has 128-bit vectors and xmm0–15 only, so a
//! W = 16 chunk of vecl is four xmm values per varying value. This module
//! is the back half of the other route: a small machine IR ([`Program`]:
//! zmm values, k masks, structured loops), a register allocator for it
//! ([`alloc`]) and an emitter through the `iced-x86` assembler into
//! executable memory ([`emit`]). The front half — lowering vecl's Kernel IR
//! into this machine IR — is not written: [`chunks`] builds the chunk
//! loops of `benches/mandelbrot.cl` and of nbody's force loop by hand, as
//! such a lowering would, so that what the route gives (speed, compile
//! time, register pressure with 32 registers) can be measured now. No
//! kernel compiled by [`crate::compile_kernel`] takes this path.
//!
//! Two register allocators ([`Allocator`]): [`alloc`], linear scan over the
//! program's order without spilling (a value used inside a loop and
//! referenced outside it lives for the whole loop; a program that needs
//! more than 32 zmm or 7 k registers is refused), and [`ra2`], the program
//! in SSA form allocated by `regalloc2` (which Cranelift uses already),
//! with spilling.

pub mod alloc;
pub mod chunks;
pub mod emit;
pub mod ra2;

/// A 16-lane vector value (32-bit lanes: `f32` or `i32` bits), a virtual
/// zmm register. Writing it again (a loop-carried variable) is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V(pub u32);

/// A 16-lane mask, a virtual k register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct K(pub u32);

/// The argument registers of a program's function (System V), in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    A0,
    A1,
    A2,
    A3,
    A4,
}

/// A binary lane-wise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    FAdd,
    FSub,
    FMul,
    FDiv,
    IAdd,
    ISub,
    IMul,
    /// Bitwise exclusive or of the lanes' bits.
    IXor,
}

/// A lane-wise comparison into a mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// Ordered `<=` of floats.
    FLe,
    /// Ordered `<` of floats.
    FLt,
    /// Signed `>` of 32-bit integers.
    IGt,
    /// `==` of 32-bit integers.
    IEq,
}

/// One operation of a [`Program`].
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Every lane the constant bits.
    Splat {
        d: V,
        bits: u32,
    },
    /// 64 bytes at `[arg + off]`.
    Load {
        d: V,
        arg: Arg,
        off: i32,
    },
    /// 32 bits at `[arg + off]` in every lane.
    Broadcast {
        d: V,
        arg: Arg,
        off: i32,
    },
    /// `d` to 64 bytes at `[arg + off]`.
    Store {
        a: V,
        arg: Arg,
        off: i32,
    },
    Bin {
        op: Bin,
        d: V,
        a: V,
        b: V,
    },
    /// `d = a * b + c`, rounded once.
    Fma {
        d: V,
        a: V,
        b: V,
        c: V,
    },
    Sqrt {
        d: V,
        a: V,
    },
    /// Signed 32-bit integers to floats.
    IntToFloat {
        d: V,
        a: V,
    },
    Copy {
        d: V,
        a: V,
    },
    /// `d = a OP b` in the lanes of `k`, `d` unchanged in the others
    /// (merge masking).
    BinMasked {
        op: Bin,
        d: V,
        a: V,
        b: V,
        k: K,
    },
    /// Every lane of `d` set.
    AllLanes {
        d: K,
    },
    /// `d = a | b`.
    KOr {
        d: K,
        a: K,
        b: K,
    },
    /// `d = (a CMP b)` in the lanes of `within`, clear elsewhere.
    Compare {
        cmp: Cmp,
        d: K,
        a: V,
        b: V,
        within: K,
    },
    /// Start of a loop body.
    Loop,
    /// End of the innermost loop: back to its start while a lane of `k` is
    /// set.
    WhileAny {
        k: K,
    },
    /// End of the innermost loop: `arg` advances by `step` bytes, and the
    /// loop runs again while `count` (decremented) is not zero.
    WhileCount {
        arg: Arg,
        step: i32,
        count: Arg,
    },
}

impl Op {
    /// The operation with its values and masks renamed by `v` and `k`.
    pub fn map_regs(&self, v: impl Fn(V) -> V, k: impl Fn(K) -> K) -> Op {
        match *self {
            Op::Splat { d, bits } => Op::Splat { d: v(d), bits },
            Op::Load { d, arg, off } => Op::Load { d: v(d), arg, off },
            Op::Broadcast { d, arg, off } => Op::Broadcast { d: v(d), arg, off },
            Op::Store { a, arg, off } => Op::Store { a: v(a), arg, off },
            Op::Bin { op, d, a, b } => Op::Bin {
                op,
                d: v(d),
                a: v(a),
                b: v(b),
            },
            Op::Fma { d, a, b, c } => Op::Fma {
                d: v(d),
                a: v(a),
                b: v(b),
                c: v(c),
            },
            Op::Sqrt { d, a } => Op::Sqrt { d: v(d), a: v(a) },
            Op::IntToFloat { d, a } => Op::IntToFloat { d: v(d), a: v(a) },
            Op::Copy { d, a } => Op::Copy { d: v(d), a: v(a) },
            Op::BinMasked { op, d, a, b, k: m } => Op::BinMasked {
                op,
                d: v(d),
                a: v(a),
                b: v(b),
                k: k(m),
            },
            Op::AllLanes { d } => Op::AllLanes { d: k(d) },
            Op::KOr { d, a, b } => Op::KOr {
                d: k(d),
                a: k(a),
                b: k(b),
            },
            Op::Compare {
                cmp,
                d,
                a,
                b,
                within,
            } => Op::Compare {
                cmp,
                d: k(d),
                a: v(a),
                b: v(b),
                within: k(within),
            },
            Op::Loop => Op::Loop,
            Op::WhileAny { k: m } => Op::WhileAny { k: k(m) },
            Op::WhileCount { arg, step, count } => Op::WhileCount { arg, step, count },
        }
    }
}

/// Straight-line code with structured loops, the unit the allocator and
/// the emitter take. The function it becomes is `extern "C" fn(a0, a1, a2,
/// a3, a4)` of pointers or integers, returning nothing.
#[derive(Clone, Debug, Default)]
pub struct Program {
    ops: Vec<Op>,
    next_v: u32,
    next_k: u32,
}

impl Program {
    pub fn new() -> Program {
        Program::default()
    }

    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    pub fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    /// A fresh vector value.
    pub fn v(&mut self) -> V {
        self.next_v += 1;
        V(self.next_v - 1)
    }

    /// A fresh mask.
    pub fn k(&mut self) -> K {
        self.next_k += 1;
        K(self.next_k - 1)
    }

    pub fn splat_f32(&mut self, x: f32) -> V {
        let d = self.v();
        self.push(Op::Splat {
            d,
            bits: x.to_bits(),
        });
        d
    }

    pub fn splat_i32(&mut self, x: i32) -> V {
        let d = self.v();
        self.push(Op::Splat { d, bits: x as u32 });
        d
    }

    pub fn load(&mut self, arg: Arg, off: i32) -> V {
        let d = self.v();
        self.push(Op::Load { d, arg, off });
        d
    }

    pub fn broadcast(&mut self, arg: Arg, off: i32) -> V {
        let d = self.v();
        self.push(Op::Broadcast { d, arg, off });
        d
    }

    pub fn bin(&mut self, op: Bin, a: V, b: V) -> V {
        let d = self.v();
        self.push(Op::Bin { op, d, a, b });
        d
    }

    pub fn fma(&mut self, a: V, b: V, c: V) -> V {
        let d = self.v();
        self.push(Op::Fma { d, a, b, c });
        d
    }

    pub fn sqrt(&mut self, a: V) -> V {
        let d = self.v();
        self.push(Op::Sqrt { d, a });
        d
    }

    pub fn int_to_float(&mut self, a: V) -> V {
        let d = self.v();
        self.push(Op::IntToFloat { d, a });
        d
    }

    pub fn all_lanes(&mut self) -> K {
        let d = self.k();
        self.push(Op::AllLanes { d });
        d
    }
}

/// Why a program was not compiled.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WideError {
    #[error("the CPU has no AVX-512F")]
    NoAvx512,
    #[error("the program needs more than {0} {1} registers at once (no spilling yet)")]
    OutOfRegisters(u32, &'static str),
    #[error("malformed program: {0}")]
    Malformed(String),
    #[error("the assembler refused the code: {0}")]
    Assembler(String),
    #[error("executable memory: {0}")]
    Memory(String),
}

/// Which register allocator compiles a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocator {
    /// [`alloc`]: linear scan, no spilling.
    LinearScan,
    /// [`ra2`]: `regalloc2`, with spilling.
    Regalloc2,
}

impl Allocator {
    pub const ALL: [Allocator; 2] = [Allocator::LinearScan, Allocator::Regalloc2];
}

/// Compiles `p` with `allocator`.
pub fn compile(p: &Program, allocator: Allocator) -> Result<emit::WideCode, WideError> {
    match allocator {
        Allocator::LinearScan => emit::compile(p),
        Allocator::Regalloc2 => ra2::compile_regalloc2(p).map(|(code, _)| code),
    }
}

/// Whether this CPU runs the code of this module.
pub fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

//! A prototype of a second code generator past 128 bits: 16-lane values in
//! zmm registers, masks in k registers, emitted as AVX-512 machine code
//! (docs/wide.md).
//!
//! Cranelift's x86-64 back end has 128-bit vectors and xmm0–15 only, so a
//! W = 16 chunk of vecl is four xmm values per varying value. This module
//! is the back half of the other route: a small machine IR ([`Program`]:
//! zmm values, k masks, structured loops), a register allocator for it
//! ([`alloc`]) and an emitter through the `iced-x86` assembler into
//! executable memory ([`emit`]). The front half, [`lower`], lowers a
//! kernel's Kernel IR into the body of one 16-lane chunk, [`entry`] wraps
//! it in a function with the runtime's entry ABI, and [`select`] decides
//! whether a kernel gets it (`JitOptions::wide`, `VECL_WIDE=1`) or keeps
//! Cranelift's code, and why. [`chunks`] holds the hand-built mandelbrot
//! and nbody loops of the prototype that measured the route.
//!
//! Two register allocators ([`Allocator`]): [`alloc`], linear scan over the
//! program's order without spilling (a value used inside a loop and
//! referenced outside it lives for the whole loop; a program that needs
//! more than 32 zmm or 7 k registers is refused), and [`ra2`], the program
//! in SSA form allocated by `regalloc2` (which Cranelift uses already),
//! with spilling.

pub mod access;
pub mod alloc;
pub mod arena;
pub mod chunks;
pub mod dmath;
pub mod emit;
pub(crate) mod encode;
pub mod entry;
pub mod groups;
pub(crate) mod held;
pub mod int64;
pub mod intmath;
pub(crate) mod kfold;
pub mod live;
pub(crate) mod loop_local;
pub mod lower;
pub mod math;
pub mod ra2;
pub mod recurrence;
pub mod regions;
pub mod rows;
pub mod select;
pub mod spread;
pub(crate) mod version;

/// A 16-lane vector value (32-bit lanes: `f32` or `i32` bits), a virtual
/// zmm register. Writing it again (a loop-carried variable) is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V(pub u32);

/// [`Op::Ternlog`]'s `d ^ (b & c)`: `b`'s bits where `c` has them
/// flip `d`'s (a sign moved into place, flipped by a sign mask).
pub const TERNLOG_XOR_AND: u8 = 0x78;

/// [`Op::Ternlog`]'s `c ? b : d`, bit by bit: `b`'s bits where `c` has
/// them, `d`'s elsewhere (`copysign` with `c` the sign bit).
pub const TERNLOG_SELECT: u8 = 0xd8;

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
    /// A kernel entry's argument block (`entry`: kept in rbx).
    Args,
    /// A kernel entry's `Launch` (`entry`: kept in r12).
    Launch,
    /// A barrier kernel's entry (`regions`): the chunk's save area in the
    /// context, kept in r14.
    Save,
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
    IAnd,
    IOr,
    /// Shifts by the second operand's lanes (0–31: the lowering masks
    /// the count as OpenCL C does).
    Shl,
    /// Arithmetic (signed) right shift.
    Sar,
    /// Logical (unsigned) right shift.
    Shr,
    /// `vminps`: `a < b ? a : b` (so `b` when either is NaN or both are
    /// zeros: IEEE's `minNum` is built from it in `math`).
    FMinX86,
    /// `vmaxps`: `a > b ? a : b` (as [`Bin::FMinX86`]).
    FMaxX86,
    /// Signed and unsigned minimum and maximum of 32-bit integers.
    IMinS,
    IMaxS,
    IMinU,
    IMaxU,
    /// `vscalefps`: `a · 2^⌊b⌋`, rounded once (subnormal and infinite
    /// results included).
    Scalef,
    /// `vdivpd`: the lanes as eight doubles, divided.
    DDiv,
    /// The eight doubles of `a` truncated to signed integers in lanes 0–7,
    /// those of `b` in lanes 8–15 (`vcvttpd2dq`; out of range:
    /// 0x80000000). Not for [`Op::BinMasked`].
    PackTruncD2I,
    /// As [`Bin::PackTruncD2I`], to unsigned integers (`vcvttpd2udq`).
    PackTruncD2U,
    /// The lanes as eight doubles (`wide::dmath`): `vaddpd`, `vsubpd`,
    /// `vmulpd`, and `vminpd`/`vmaxpd` (`b` when either is NaN, as
    /// [`Bin::FMinX86`]). Under a mask, eight mask bits, one per double.
    DAdd,
    DSub,
    DMul,
    DMinX86,
    DMaxX86,
    /// The lanes as eight 64-bit integers: `vpaddq`, `vpsubq`, `vpandq`,
    /// `vporq`, `vpxorq`, and shifts by `b`'s lanes (`vpsllvq`, `vpsrlvq`).
    QAdd,
    QSub,
    QAnd,
    QOr,
    QXor,
    QShl,
    QShr,
    /// The even lanes (the low halves of the eight 64-bit lanes) of `a`
    /// and `b` multiplied into eight 64-bit products, unsigned
    /// (`vpmuludq`) or signed (`vpmuldq`): the odd lanes are not read.
    QMulU,
    QMulS,
    /// Each lane rotated left by the count in `b`'s lane modulo 32
    /// (`vprolvd`).
    Rotl,
    /// The eight doubles of `a` rounded to floats in lanes 0–7, those of
    /// `b` in lanes 8–15 (`vcvtpd2ps`). Not for [`Op::BinMasked`].
    PackD2F,
    /// The lanes of `a` and `b` interleaved (`vpermi2ps` by a table):
    /// `ZipLow` is `a0 b0 a1 b1 … a7 b7`, `ZipHigh` `a8 b8 … a15 b15`: the
    /// memory image of the two-word elements (`float2`, `int2`) of lanes
    /// 0–7 and 8–15 whose components are `a` and `b`. Not for
    /// [`Op::BinMasked`].
    ZipLow,
    ZipHigh,
    /// The even (`UnzipEven`: `a0 a2 … a14 b0 b2 … b14`) or odd lanes of
    /// `a` then `b`: component 0 or 1 of the 16 two-word elements whose
    /// memory image `a` and `b` hold ([`Bin::ZipLow`]'s inverse). Not for
    /// [`Op::BinMasked`].
    UnzipEven,
    UnzipOdd,
}

impl Bin {
    /// Whether the operation moves lanes across the register (so not
    /// lane-wise, nor under a mask) and is emitted as a sequence with the
    /// scratch register (`emit::emit_pack`, `emit::emit_shuffle`): both
    /// operands registers.
    pub fn moves_lanes(self) -> bool {
        matches!(
            self,
            Bin::PackTruncD2I
                | Bin::PackTruncD2U
                | Bin::PackD2F
                | Bin::ZipLow
                | Bin::ZipHigh
                | Bin::UnzipEven
                | Bin::UnzipOdd
        )
    }
}

/// A lane-wise operation of one source ([`Op::Un`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    /// `vrndscaleps`: the float rounded to an integer, ties to even.
    RoundEven,
    /// `vrndscaleps`: rounded down, up, towards zero.
    Floor,
    Ceil,
    Trunc,
    /// `vgetexpps`: ⌊log2 |x|⌋ as a float, subnormals included (±0: -inf).
    GetExp,
    /// `vgetmantps`: |x|'s significand in [1, 2), subnormals included.
    GetMant,
    /// Lanes 0–7 as signed integers, converted to eight doubles.
    I2DLow,
    /// Lanes 8–15 as signed integers, converted to eight doubles.
    I2DHigh,
    /// Lanes 0–7 as unsigned integers, converted to eight doubles.
    U2DLow,
    /// Lanes 8–15 as unsigned integers, converted to eight doubles.
    U2DHigh,
    /// Lanes 0–7 as floats, converted to eight doubles (`vcvtps2pd`).
    F2DLow,
    /// Lanes 8–15 as floats, converted to eight doubles.
    F2DHigh,
    /// `vrndscalepd`: the doubles rounded to integers, ties to even, or
    /// towards zero.
    DRoundEven,
    DTrunc,
    /// `vrndscalepd`: the doubles rounded down or up to integers.
    DFloor,
    DCeil,
    /// `vsqrtpd`.
    DSqrt,
    /// `vrsqrt14ps`: an estimate of `1/√x` within a relative error of
    /// 2^-14 (±0 → ±inf, +inf → +0, negative → NaN, subnormals
    /// estimated, not flushed).
    Rsqrt14,
    /// `vprold`: each lane rotated left by the constant count (0–31).
    RotlImm(u8),
    /// `vpopcntd`: the number of set bits of each lane (AVX512_VPOPCNTDQ:
    /// only where [`has_vpopcntdq`] says so).
    Popcnt,
}

/// How [`Op::Compare2`] compares the lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpKind {
    /// `vcmpps`: the predicate is its immediate (0 `==` ordered, 1 `<`,
    /// 2 `<=`, 4 `!=` unordered, 13 `>=`, 14 `>`).
    F32,
    /// `vpcmpd`, signed: 0 `==`, 1 `<`, 2 `<=`, 4 `!=`, 5 `>=`, 6 `>`.
    I32,
    /// `vpcmpud`, unsigned, the same predicates.
    U32,
    /// `vcmppd` of eight doubles (the predicates of [`CmpKind::F32`]):
    /// eight mask bits.
    F64,
    /// `vpcmpq` of eight signed 64-bit integers (those of
    /// [`CmpKind::I32`]).
    I64,
}

/// A lane-wise conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cvt {
    /// Signed integer to float, rounded to nearest.
    I2F,
    /// Unsigned integer to float, rounded to nearest.
    U2F,
    /// Float to signed integer, truncated.
    F2I,
    /// Float to unsigned integer, truncated.
    F2U,
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
    /// What [`Op::Compare2`] does with this kind (32-bit lanes only) and
    /// predicate (`kfold`: a compare folded into the mask it was and-ed
    /// with).
    Pred(CmpKind, u8),
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
    /// `d = a * b - c`, rounded once (`vfmsub`: the front end's
    /// `fma(a, b, -c)`, the negation exact, without its `vpxord`).
    Fms {
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
    /// `d = a * b + d` rounded once in the lanes of `k`, `d` unchanged
    /// in the others (`vfmadd231ps d{k}, a, b`): an FMA into a variable
    /// under a mask whose addend is the variable's old value.
    FmaMasked {
        d: V,
        a: V,
        b: V,
        k: K,
    },
    /// `d = a * b + d` of eight doubles rounded once in the doubles of
    /// the low eight bits of `k`, `d` unchanged in the others
    /// (`vfmadd231pd d{k}, a, b`): [`Op::FmaMasked`] for one half of a
    /// `double` variable.
    FmaDMasked {
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
    /// `d = a CMP b` in every lane (see [`CmpKind`] for `pred`).
    Compare2 {
        kind: CmpKind,
        pred: u8,
        d: K,
        a: V,
        b: V,
    },
    /// `d = a & b`.
    KAnd {
        d: K,
        a: K,
        b: K,
    },
    /// `d = a & !b`.
    KAndNot {
        d: K,
        a: K,
        b: K,
    },
    /// `d = a ^ b`.
    KXor {
        d: K,
        a: K,
        b: K,
    },
    /// `d = !a`.
    KNot {
        d: K,
        a: K,
    },
    /// No lane of `d` set.
    KZero {
        d: K,
    },
    /// `d = a` (a renaming for the allocator).
    KCopy {
        d: K,
        a: K,
    },
    /// `d = a >> 8` (`kshiftrw`): the mask of lanes 8–15 as the low eight
    /// bits, for an operation on the second half's eight doubles.
    KHigh {
        d: K,
        a: K,
    },
    /// `d` = the low eight bits of `lo` then those of `hi` (`kunpckbw`):
    /// the 16-lane mask of two halves' masks of eight doubles each.
    KJoin {
        d: K,
        lo: K,
        hi: K,
    },
    /// `d = k ? a : b`, lane by lane.
    Select {
        d: V,
        k: K,
        a: V,
        b: V,
    },
    /// `d = a` in the lanes of `k`, `d` unchanged in the others.
    MaskedCopy {
        d: V,
        a: V,
        k: K,
    },
    /// `vfixupimmps d, x, table`: each lane of `d` (read and written)
    /// replaced by what `table` says for the class of `x`'s lane, four
    /// bits per class from the lowest: quiet NaN, signalling NaN, ±0, +1,
    /// -inf, +inf, negative, positive (0: `d` kept, 1: `x` itself, 3: the
    /// default NaN, 4: -inf, 5: +inf, 8: +0…). `table` is a constant.
    /// The special inputs of a math routine in one instruction.
    Fixup {
        d: V,
        x: V,
        table: V,
    },
    /// `d = f(d, b, c)` bit by bit (`vpternlogd d, b, c, imm`): bit `4·d +
    /// 2·b + c` of `imm` is the result for those bits of the three
    /// ([`TERNLOG_XOR_AND`], [`TERNLOG_SELECT`]). `c` may be a constant,
    /// read as a broadcast memory operand.
    Ternlog {
        d: V,
        b: V,
        c: V,
        imm: u8,
    },
    Convert {
        cvt: Cvt,
        d: V,
        a: V,
    },
    /// A kernel entry's `get_global_id(dim)` as 32-bit lanes (lane `l` of
    /// dimension 0 is the chunk's first id plus `l`; the entry runs only
    /// launches whose ids fit in 31 bits).
    GlobalId {
        d: V,
        dim: u8,
    },
    /// A kernel entry's `get_group_id(dim)` in every lane: the group's
    /// coordinate, which the entry keeps in its frame
    /// (`access::EntryFrame::group_at`) for the group it runs.
    GroupId {
        d: V,
        dim: u8,
    },
    /// A kernel entry's running lanes of the chunk (the tail chunk of a
    /// row has fewer than 16).
    RunningLanes {
        d: K,
    },
    /// A kernel entry's row slot `slot` (`access::EntryFrame::rows_at`)
    /// set to lane 0 of `a`, sign-extended: the value fixed for the row
    /// that the accesses of `access::Known::RowOffset` add to the chunk's
    /// first id.
    RowLane0 {
        a: V,
        slot: u8,
    },
    /// The 32-bit elements `ptr[idx[l]]` in the lanes of `k` (zero in the
    /// others), `ptr` the 8-byte address at `[args + ptr]`, `idx` signed.
    /// How (`access::Access`): with `consecutive`, one vector load when the
    /// lanes of `k` hold consecutive indices (tested at run time), a
    /// gather otherwise; prefetching, bounds-checked.
    LoadElems {
        d: V,
        ptr: i32,
        idx: V,
        k: K,
        how: access::Access,
    },
    /// `ptr[idx[l]] = a[l]` in the lanes of `k` (see [`Op::LoadElems`];
    /// streaming).
    StoreElems {
        a: V,
        ptr: i32,
        idx: V,
        k: K,
        how: access::Access,
    },
    /// The uniform load of [`Op::LoadElems`] (`how`: uniform, lane 0
    /// running, unchecked) of `ptr[idx + part]`, `part` written once,
    /// before the loop the load is in: its lane 0, as the element's
    /// address without `idx`, is kept in the entry's frame from where
    /// `part` is written, and `idx`'s lane 0 goes to r10
    /// (`lower::split_uniform_indices`; barrier kernels' regions only).
    LoadSum {
        d: V,
        ptr: i32,
        idx: V,
        part: V,
        /// Bytes added to the element's address: a later row in flight
        /// whose part is the first row's plus a constant reads through the
        /// first row's address (`rows::affine_parts`); 0 otherwise.
        disp: i32,
        k: K,
        how: access::Access,
    },
    /// `d = e · b + d` rounded once in the lanes of `k`, `d` unchanged in
    /// the others, where `e` is the element [`Op::LoadSum`] would load
    /// (`ptr[idx + part]`, lane 0's index): that load fused into the
    /// [`Op::FmaMasked`] that was its only reader, under the same mask, as
    /// the FMA's broadcast memory operand (`vfmadd231ps d{k}, b,
    /// [r11 + 4 · r10]{1to16}`; `lower::fuse_sum_loads`).
    FmaSum {
        d: V,
        b: V,
        ptr: i32,
        idx: V,
        part: V,
        /// As [`Op::LoadSum`]'s.
        disp: i32,
        k: K,
        how: access::Access,
    },
    /// `d = OP a` ([`Un`]).
    Un {
        op: Un,
        d: V,
        a: V,
    },
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
    /// Every 64-bit lane the constant bits (eight doubles).
    SplatQ {
        d: V,
        bits: u64,
    },
    /// `d = a * b + c` of eight doubles, rounded once.
    FmaD {
        d: V,
        a: V,
        b: V,
        c: V,
    },
    /// Start of a region of straight-line code that runs only when a lane
    /// of `k` is set (a cold path), ended by [`Op::EndIf`]. Values
    /// written in it keep their old versions when it is skipped; a value
    /// first written in it must not be read after it. `regalloc2` only.
    IfAny {
        k: K,
    },
    /// Start of a region a kernel entry runs only when its test of the
    /// entry's registers passes ([`EntryTest`]), ended by [`Op::EndIf`];
    /// values as in [`Op::IfAny`]'s region (`entry`'s program only, which
    /// places the full chunks of a row and its last one in such regions).
    IfEntry(EntryTest),
    EndIf,
    /// A kernel entry's own scalar code between the body's operations
    /// (`entry`: the group, row and chunk loops around the body); no
    /// vector or mask operand.
    Entry(EntryStep),
    /// End of the innermost loop, one of a kernel entry's ([`EntryLoop`]).
    WhileEntry(EntryLoop),
}

/// A step of a kernel entry's scalar code ([`Op::Entry`]; `entry` emits
/// it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryStep {
    /// A group starts: the ranges of its ids from its coordinates.
    Group,
    /// A plane (one id of dimension 2) starts: its first row.
    Plane,
    /// A row starts: its first chunk.
    Row,
    /// The running lanes of the chunk that starts at the current first id
    /// (none when the row ends before it), for [`Op::RunningLanes`].
    Lanes,
    /// The chunk's first id moves by this many work-items (with two chunks
    /// in flight, the second chunk's operations run 16 ahead).
    Shift(i32),
    /// A barrier kernel's region with rows in flight (`rows`): the
    /// operations of the chunk this many rows further down the group run
    /// (its id of dimension 1 and its save area).
    NextRow(i32),
    /// Back from [`EntryStep::NextRow`] to the first row's chunk.
    BackRow(i32),
    /// A barrier kernel's region with full chunks of a row in flight
    /// (`rows`): the operations of the chunk this many chunks further
    /// along the row run (its first id and its save area).
    NextChunk(i32),
    /// Back from [`EntryStep::NextChunk`] to the first chunk.
    BackChunk(i32),
    /// The row's range of first ids whose chunks run the version of the
    /// body with its clamps taken as their operand (`version`), started:
    /// row slots `at` and `at + 1` (the lowest and the highest first id)
    /// set to `i32::MIN` and to the row's end less `items`, so that a
    /// trip of `items` work-items from a first id in the range lies in
    /// the row, every lane running.
    RangeStart { at: u8, items: i32 },
    /// The range narrowed to the first ids where `clamp(c, lo, hi)` is
    /// its operand over the trip's `items` lanes, `c` the id plus the
    /// value in row slot `off` (none: the id; `true`: minus that value),
    /// the bounds in row slots `lo` and `hi`: `lo - off <= first` and
    /// `first + items - 1 + off <= hi`, in 64 bits (so no lane of `c`
    /// wraps either).
    RangeClamp {
        at: u8,
        off: Option<(u8, bool)>,
        lo: u8,
        hi: u8,
        items: i32,
    },
    /// The range narrowed to the first ids where the indices of row slot
    /// `slot` (`access::Known::RowOffset`) plus `dmin` to `dmax`, over
    /// the trip's `items` lanes, stay in `i32` (no lane wraps).
    RangeSlot {
        at: u8,
        slot: u8,
        dmin: i32,
        dmax: i32,
        items: i32,
    },
}

/// What a kernel entry tests before a region ([`Op::IfEntry`]), at the
/// start of a row (the chunk's first id, r15, at the row's first or at the
/// first past the row's full chunks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryTest {
    /// At least `items` work-items of the row from the chunk's first id:
    /// the region runs the row's full chunks, `items` at a time
    /// ([`EntryLoop::Full`]; the last first id such a trip may start at
    /// kept in rdx). Also fails for a row where some access indexed by
    /// the id plus a value fixed for the row could wrap its 32-bit lanes
    /// (`entry::row_offsets`): such a row's chunks all take the masked path.
    /// `disps`: for each row slot, the least and the greatest displacement
    /// its accesses add (`access::Known::RowOffset`), which the test of
    /// the row's lanes against `i32` (and under robust access, against the
    /// buffer's bounds) takes in.
    Full {
        items: i32,
        disps: [(i32, i32); entry::ROW_SLOTS],
    },
    /// A work-item of the row left from the chunk's first id.
    Left,
    /// The chunk's first id inside the row's range in row slots `at` and
    /// `at + 1` ([`EntryStep::RangeStart`]): the chunks of the trip run
    /// the body's version with its clamps taken as their operand.
    Within { at: u8 },
    /// The chunk's first id outside that range: the body as it is.
    Outside { at: u8 },
}

/// Which of a kernel entry's loops ends ([`Op::WhileEntry`]): each runs
/// its body at least once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryLoop {
    /// The chunks of a row: the first id advances by `step` work-items
    /// while it is below the row's end.
    Chunks { step: i32 },
    /// The full chunks of a row ([`EntryTest::Full`]): the first id
    /// advances by `step` work-items while the `step` from it are all in
    /// the row.
    Full { step: i32 },
    /// The rows of a plane (the launch's stop flag is read after each).
    Rows,
    /// The planes of a group.
    Planes,
    /// The groups of the call.
    Groups,
}

impl Op {
    /// Whether the operation reads the value it writes: a merge under a
    /// mask, or an instruction whose destination is also a source
    /// (`vfixupimmps`, `vpternlogd`).
    pub fn reads_destination(&self) -> bool {
        matches!(
            self,
            Op::BinMasked { .. }
                | Op::FmaMasked { .. }
                | Op::FmaDMasked { .. }
                | Op::FmaSum { .. }
                | Op::MaskedCopy { .. }
                | Op::Fixup { .. }
                | Op::Ternlog { .. }
        )
    }

    /// Whether the operation ends a stretch of straight-line code: a loop's
    /// or an `if`'s edge, or an entry step. Passes that pair an operation
    /// with an earlier one look no further back than this.
    pub(crate) fn ends_stretch(&self) -> bool {
        matches!(
            self,
            Op::Loop
                | Op::WhileAny { .. }
                | Op::WhileCount { .. }
                | Op::IfAny { .. }
                | Op::IfEntry(_)
                | Op::EndIf
                | Op::Entry(_)
                | Op::WhileEntry(_)
        )
    }

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
            Op::Fms { d, a, b, c } => Op::Fms {
                d: v(d),
                a: v(a),
                b: v(b),
                c: v(c),
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
            Op::FmaMasked { d, a, b, k: m } => Op::FmaMasked {
                d: v(d),
                a: v(a),
                b: v(b),
                k: k(m),
            },
            Op::FmaDMasked { d, a, b, k: m } => Op::FmaDMasked {
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
            Op::Compare2 {
                kind,
                pred,
                d,
                a,
                b,
            } => Op::Compare2 {
                kind,
                pred,
                d: k(d),
                a: v(a),
                b: v(b),
            },
            Op::KAnd { d, a, b } => Op::KAnd {
                d: k(d),
                a: k(a),
                b: k(b),
            },
            Op::KAndNot { d, a, b } => Op::KAndNot {
                d: k(d),
                a: k(a),
                b: k(b),
            },
            Op::KXor { d, a, b } => Op::KXor {
                d: k(d),
                a: k(a),
                b: k(b),
            },
            Op::KNot { d, a } => Op::KNot { d: k(d), a: k(a) },
            Op::KZero { d } => Op::KZero { d: k(d) },
            Op::KCopy { d, a } => Op::KCopy { d: k(d), a: k(a) },
            Op::KHigh { d, a } => Op::KHigh { d: k(d), a: k(a) },
            Op::KJoin { d, lo, hi } => Op::KJoin {
                d: k(d),
                lo: k(lo),
                hi: k(hi),
            },
            Op::Select { d, k: m, a, b } => Op::Select {
                d: v(d),
                k: k(m),
                a: v(a),
                b: v(b),
            },
            Op::MaskedCopy { d, a, k: m } => Op::MaskedCopy {
                d: v(d),
                a: v(a),
                k: k(m),
            },
            Op::Fixup { d, x, table } => Op::Fixup {
                d: v(d),
                x: v(x),
                table: v(table),
            },
            Op::Ternlog { d, b, c, imm } => Op::Ternlog {
                d: v(d),
                b: v(b),
                c: v(c),
                imm,
            },
            Op::Convert { cvt, d, a } => Op::Convert {
                cvt,
                d: v(d),
                a: v(a),
            },
            Op::GlobalId { d, dim } => Op::GlobalId { d: v(d), dim },
            Op::GroupId { d, dim } => Op::GroupId { d: v(d), dim },
            Op::RunningLanes { d } => Op::RunningLanes { d: k(d) },
            Op::RowLane0 { a, slot } => Op::RowLane0 { a: v(a), slot },
            Op::LoadElems {
                d,
                ptr,
                idx,
                k: m,
                how,
            } => Op::LoadElems {
                d: v(d),
                ptr,
                idx: v(idx),
                k: k(m),
                how,
            },
            Op::StoreElems {
                a,
                ptr,
                idx,
                k: m,
                how,
            } => Op::StoreElems {
                a: v(a),
                ptr,
                idx: v(idx),
                k: k(m),
                how,
            },
            Op::LoadSum {
                d,
                ptr,
                idx,
                part,
                disp,
                k: m,
                how,
            } => Op::LoadSum {
                d: v(d),
                ptr,
                idx: v(idx),
                part: v(part),
                disp,
                k: k(m),
                how,
            },
            Op::FmaSum {
                d,
                b,
                ptr,
                idx,
                part,
                disp,
                k: m,
                how,
            } => Op::FmaSum {
                d: v(d),
                b: v(b),
                ptr,
                idx: v(idx),
                part: v(part),
                disp,
                k: k(m),
                how,
            },
            Op::Un { op, d, a } => Op::Un {
                op,
                d: v(d),
                a: v(a),
            },
            Op::Loop => Op::Loop,
            Op::WhileAny { k: m } => Op::WhileAny { k: k(m) },
            Op::WhileCount { arg, step, count } => Op::WhileCount { arg, step, count },
            Op::SplatQ { d, bits } => Op::SplatQ { d: v(d), bits },
            Op::IfAny { k: m } => Op::IfAny { k: k(m) },
            Op::IfEntry(t) => Op::IfEntry(t),
            Op::EndIf => Op::EndIf,
            Op::FmaD { d, a, b, c } => Op::FmaD {
                d: v(d),
                a: v(a),
                b: v(b),
                c: v(c),
            },
            Op::Entry(s) => Op::Entry(s),
            Op::WhileEntry(l) => Op::WhileEntry(l),
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
    /// The values of [`Program::constant`], by their bits.
    constants: std::collections::HashMap<u32, V>,
    /// The values of [`Program::constant_q`], by their bits.
    constants_q: std::collections::HashMap<u64, V>,
}

impl Program {
    pub fn new() -> Program {
        Program::default()
    }

    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// How many values and masks the program has numbered.
    pub fn numbered(&self) -> (u32, u32) {
        (self.next_v, self.next_k)
    }

    /// A program of `ops` whose values and masks are numbered below `v`
    /// and `k` (a body rearranged by `entry`).
    pub(crate) fn from_ops(ops: Vec<Op>, v: u32, k: u32) -> Program {
        Program {
            ops,
            next_v: v,
            next_k: k,
            constants: Default::default(),
            constants_q: Default::default(),
        }
    }

    /// The operations, to refine in place (`access::refine`).
    pub(crate) fn ops_mut(&mut self) -> &mut [Op] {
        &mut self.ops
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

    /// Every lane the constant bits, one value per constant for the whole
    /// program (the first use's, which comes first in every path: ifs are
    /// masked straight-line code and loops run their body at least once).
    /// The value must never be written again.
    pub fn constant(&mut self, bits: u32) -> V {
        if let Some(v) = self.constants.get(&bits) {
            return *v;
        }
        let d = self.v();
        self.push(Op::Splat { d, bits });
        self.constants.insert(bits, d);
        d
    }

    /// Every 64-bit lane the constant bits, shared as [`Program::constant`].
    pub fn constant_q(&mut self, bits: u64) -> V {
        if let Some(v) = self.constants_q.get(&bits) {
            return *v;
        }
        let d = self.v();
        self.push(Op::SplatQ { d, bits });
        self.constants_q.insert(bits, d);
        d
    }

    /// Where the program stands, for [`Program::skip_since`].
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            at: self.ops.len(),
            constants: self.constants.keys().copied().collect(),
            constants_q: self.constants_q.keys().copied().collect(),
        }
    }

    /// How many operations were pushed since `m`.
    pub(crate) fn pushed_since(&self, m: &Mark) -> usize {
        self.ops.len() - m.at
    }

    /// Makes the operations pushed since `m` a skipped region
    /// ([`Op::IfAny`]) run only when a lane of `k` is set; `k` must be
    /// written before `m`. The shared constants first made in the region
    /// are forgotten, so that a later use makes its own: a value first
    /// written in a skipped region must not be read after it.
    pub(crate) fn skip_since(&mut self, m: Mark, k: K) {
        self.ops.insert(m.at, Op::IfAny { k });
        self.ops.push(Op::EndIf);
        self.constants.retain(|bits, _| m.constants.contains(bits));
        self.constants_q
            .retain(|bits, _| m.constants_q.contains(bits));
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

    pub fn un(&mut self, op: Un, a: V) -> V {
        let d = self.v();
        self.push(Op::Un { op, d, a });
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

/// A point in a program being built ([`Program::mark`]): its length and
/// the shared constants made so far.
pub(crate) struct Mark {
    at: usize,
    constants: std::collections::HashSet<u32>,
    constants_q: std::collections::HashSet<u64>,
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

/// Whether this CPU has AVX512_VPOPCNTDQ, which [`Un::Popcnt`] needs
/// (elsewhere `popcount` is a sequence of AVX-512F operations,
/// `intmath::popcount`).
pub fn has_vpopcntdq() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512vpopcntdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
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

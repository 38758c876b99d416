//! Machine code for an allocated [`Program`]: AVX-512 instructions through
//! `iced-x86`'s code assembler, copied into executable memory.
//!
//! The function takes its arguments in the System V registers (rdi, rsi,
//! rdx, rcx, r8), uses only caller-saved registers (every zmm and k
//! register is caller-saved in System V; rax holds constants) and needs no
//! frame. It ends with `vzeroupper`, so that the SSE code of its caller
//! pays no transition.

use super::alloc::{allocate, Allocation};
use super::{Arg, Bin, Cmp, CmpKind, Cvt, Op, Program, Un, WideError};
use iced_x86::code_asm::*;
use std::time::Instant;

/// A compiled [`Program`]: its executable memory and entry point.
pub struct WideCode {
    _memory: super::arena::CodeMemory,
    /// Where the function starts in the memory (its constant pool, after
    /// the code, starts on a 64-byte line).
    at: usize,
    entry: unsafe extern "C" fn(u64, u64, u64, u64, u64),
    /// Bytes of machine code.
    pub size: usize,
    /// The distinct zmm and k registers the code uses.
    pub zmm_used: u32,
    pub k_used: u32,
    /// Constants read as broadcast memory operands from the code's pool.
    pub pool_constants: usize,
    /// Time of allocation, assembly and mapping.
    pub compile_time: std::time::Duration,
}

impl std::fmt::Debug for WideCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WideCode")
            .field("size", &self.size)
            .field("zmm_used", &self.zmm_used)
            .field("k_used", &self.k_used)
            .finish()
    }
}

impl WideCode {
    /// The machine code (for a disassembler: `objdump -D -b binary -m
    /// i386:x86-64`).
    pub fn bytes(&self) -> &[u8] {
        &self._memory[self.at..self.at + self.size]
    }

    /// Runs the code with arguments `a`.
    ///
    /// # Safety
    ///
    /// Every address the program reads or writes through its arguments
    /// must be valid for its accesses (64 bytes for a load or store, 4 for
    /// a broadcast, over every trip of its loops), and a `WhileCount` count
    /// must be at least 1.
    pub unsafe fn call(&self, a: [u64; 5]) {
        // SAFETY: the caller vouches for the memory; the code was
        // assembled for this CPU (`compile` checked AVX-512F).
        unsafe { (self.entry)(a[0], a[1], a[2], a[3], a[4]) }
    }
}

pub(crate) fn arg(a: Arg) -> AsmRegister64 {
    match a {
        Arg::A0 => rdi,
        Arg::A1 => rsi,
        Arg::A2 => rdx,
        Arg::A3 => rcx,
        Arg::A4 => r8,
        Arg::Args => rbx,
        Arg::Launch => r12,
        Arg::Save => r14,
    }
}

/// The lane numbers 0–15, which `GlobalId` adds to the chunk's first id
/// and the consecutive test of an access compares against.
pub(crate) static IOTA: [i32; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// The zmm register and k register no allocator hands out: the scratch of
/// the memory operations (`LoadElems`, `StoreElems`).
pub(crate) const SCRATCH_ZMM: u8 = 31;
pub(crate) const SCRATCH_K: u8 = 7;

/// A constant that an operation reads as a broadcast memory operand
/// instead of a register: 32 bits read into every lane (`{1to16}`) or 64
/// bits into every 64-bit lane (`{1to8}`), from the code's constant pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolConst {
    D(u32),
    Q(u64),
}

/// In an allocated operation, a value numbered `POOL_BASE + i` is entry
/// `i` of the constant pool, read as a broadcast memory operand, not a
/// register (`ra2` puts them where the instruction takes memory).
pub(crate) const POOL_BASE: u32 = 1 << 30;

/// The constant pool of one function: its entries and their labels. The
/// data follows the code ([`ConstPool::emit_data`]); [`finish`] and
/// `entry::fallback_jump_pool_and_map` place the function so that the pool
/// starts on a 64-byte line, so no entry crosses one.
#[derive(Default)]
pub(crate) struct ConstPool {
    entries: Vec<(PoolConst, CodeLabel)>,
}

impl ConstPool {
    /// The label of `c`, made when first asked for.
    pub(crate) fn label(&mut self, a: &mut CodeAssembler, c: PoolConst) -> CodeLabel {
        if let Some((_, l)) = self.entries.iter().find(|(x, _)| *x == c) {
            return *l;
        }
        let l = a.create_label();
        self.entries.push((c, l));
        l
    }

    /// How many constants the pool holds.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Appends the pool's data (the 64-bit entries first, so that each
    /// is aligned to its size once the pool's start is aligned to 64);
    /// returns the index of its first instruction, `None` for an empty
    /// pool.
    pub(crate) fn emit_data(&mut self, a: &mut CodeAssembler) -> Result<Option<usize>, WideError> {
        let first = a.instructions().len();
        self.entries
            .sort_by_key(|(c, _)| matches!(c, PoolConst::D(_)));
        for (c, l) in &mut self.entries {
            a.set_label(l).map_err(asm_err)?;
            match *c {
                PoolConst::Q(bits) => a.dq(&[bits]),
                PoolConst::D(bits) => a.dd(&[bits]),
            }
            .map_err(asm_err)?;
        }
        Ok((!self.entries.is_empty()).then_some(first))
    }
}

/// The machine code of a function whose constant pool (if any) starts at
/// instruction `pool`, encoded ([`super::encode`]) and placed in
/// executable memory ([`super::arena`]) so that the pool starts on a
/// 64-byte line: the memory, the offset of the function's first byte in
/// it, and the code's size. The code is position-independent (its labels
/// and the pool are RIP-relative), so it may start anywhere.
pub(crate) fn assemble_and_map(
    a: &mut CodeAssembler,
    pool: Option<usize>,
) -> Result<(super::arena::CodeMemory, usize, usize), WideError> {
    super::encode::encode(a.instructions(), |bytes, offsets| {
        let pool_at = match pool {
            Some(i) => Some(
                *offsets
                    .get(i)
                    .ok_or_else(|| WideError::Malformed(format!("pool at instruction {i}")))?
                    as usize,
            ),
            None => None,
        };
        let (memory, at) = super::arena::place(bytes, pool_at)?;
        Ok((memory, at, bytes.len()))
    })
}

/// Whether `op` needs a kernel entry around it (registers the entry keeps,
/// the scratch registers): such programs are compiled by [`crate::wide::entry`]
/// only.
pub(crate) fn needs_entry(op: &Op) -> bool {
    matches!(
        op,
        Op::GlobalId { .. }
            | Op::GroupId { .. }
            | Op::RunningLanes { .. }
            | Op::RowLane0 { .. }
            | Op::Entry(_)
            | Op::WhileEntry(_)
            | Op::IfEntry(_)
            | Op::LoadElems { .. }
            | Op::LoadSum { .. }
            | Op::FmaSum { .. }
            | Op::StoreElems { .. }
            | Op::Load {
                arg: Arg::Args | Arg::Launch | Arg::Save,
                ..
            }
            | Op::Broadcast {
                arg: Arg::Args | Arg::Launch | Arg::Save,
                ..
            }
            | Op::Store {
                arg: Arg::Args | Arg::Launch | Arg::Save,
                ..
            }
    )
}

pub(crate) fn zmm_reg(n: u8) -> Result<AsmRegisterZmm, WideError> {
    get_zmm(iced_x86::Register::ZMM0 + u32::from(n))
        .ok_or_else(|| WideError::Malformed(format!("zmm{n}")))
}

pub(crate) fn k_reg(n: u8) -> Result<AsmRegisterK, WideError> {
    get_k(iced_x86::Register::K0 + u32::from(n))
        .ok_or_else(|| WideError::Malformed(format!("k{n}")))
}

/// `z` writing under mask register `k` (1–7).
pub(super) fn zmm_masked(z: AsmRegisterZmm, k: u8) -> AsmRegisterZmm {
    match k {
        1 => z.k1(),
        2 => z.k2(),
        3 => z.k3(),
        4 => z.k4(),
        5 => z.k5(),
        6 => z.k6(),
        _ => z.k7(),
    }
}

/// `d` written under mask register `k` (1–7).
pub(super) fn k_masked(d: AsmRegisterK, k: u8) -> AsmRegisterK {
    match k {
        1 => d.k1(),
        2 => d.k2(),
        3 => d.k3(),
        4 => d.k4(),
        5 => d.k5(),
        6 => d.k6(),
        _ => d.k7(),
    }
}

/// A memory operand accessed under mask register `k` (1–7).
pub(super) fn mem_masked(m: AsmMemoryOperand, k: u8) -> AsmMemoryOperand {
    match k {
        1 => m.k1(),
        2 => m.k2(),
        3 => m.k3(),
        4 => m.k4(),
        5 => m.k5(),
        6 => m.k6(),
        _ => m.k7(),
    }
}

pub(crate) fn asm_err(e: IcedError) -> WideError {
    WideError::Assembler(e.to_string())
}

/// An instruction's last source: a register, or a constant of the pool
/// read as a broadcast memory operand (`{1to16}` of 32 bits, `{1to8}` of
/// 64).
#[derive(Clone, Copy)]
enum Src {
    Z(AsmRegisterZmm),
    M(CodeLabel, PoolConst),
}

impl Src {
    /// The broadcast memory operand of a pool constant.
    fn bcst(l: CodeLabel, c: PoolConst) -> AsmMemoryOperand {
        match c {
            PoolConst::D(_) => dword_bcst(l),
            PoolConst::Q(_) => qword_bcst(l),
        }
    }
}

/// The values of an allocated operation that are constants of the pool
/// ([`POOL_BASE`]): the table of the allocation's constants and the
/// function's pool, which gives them their labels.
pub(crate) struct PoolOperands<'p> {
    pub table: &'p [PoolConst],
    pub pool: &'p mut ConstPool,
}

impl PoolOperands<'_> {
    /// `v` as a register, or as the pool constant it names.
    fn src(&mut self, a: &mut CodeAssembler, v: super::V) -> Result<Src, WideError> {
        if v.0 < POOL_BASE {
            return Ok(Src::Z(zmm_reg(v.0 as u8)?));
        }
        let c = *self
            .table
            .get((v.0 - POOL_BASE) as usize)
            .ok_or_else(|| WideError::Malformed(format!("pool constant {}", v.0 - POOL_BASE)))?;
        Ok(Src::M(self.pool.label(a, c), c))
    }
}

/// The match of [`bin`] over every [`Bin`] with the last source `$y` (a
/// register or a memory operand: every one of these instructions takes
/// either).
macro_rules! bin_ops {
    ($a:expr, $op:expr, $d:expr, $x:expr, $y:expr) => {
        match $op {
            Bin::FAdd => $a.vaddps($d, $x, $y),
            Bin::FSub => $a.vsubps($d, $x, $y),
            Bin::FMul => $a.vmulps($d, $x, $y),
            Bin::FDiv => $a.vdivps($d, $x, $y),
            Bin::IAdd => $a.vpaddd($d, $x, $y),
            Bin::ISub => $a.vpsubd($d, $x, $y),
            Bin::IMul => $a.vpmulld($d, $x, $y),
            Bin::IXor => $a.vpxord($d, $x, $y),
            Bin::IAnd => $a.vpandd($d, $x, $y),
            Bin::IOr => $a.vpord($d, $x, $y),
            Bin::Shl => $a.vpsllvd($d, $x, $y),
            Bin::Sar => $a.vpsravd($d, $x, $y),
            Bin::Shr => $a.vpsrlvd($d, $x, $y),
            Bin::FMinX86 => $a.vminps($d, $x, $y),
            Bin::FMaxX86 => $a.vmaxps($d, $x, $y),
            Bin::IMinS => $a.vpminsd($d, $x, $y),
            Bin::IMaxS => $a.vpmaxsd($d, $x, $y),
            Bin::IMinU => $a.vpminud($d, $x, $y),
            Bin::IMaxU => $a.vpmaxud($d, $x, $y),
            Bin::Scalef => $a.vscalefps($d, $x, $y),
            Bin::DDiv => $a.vdivpd($d, $x, $y),
            Bin::DAdd => $a.vaddpd($d, $x, $y),
            Bin::DSub => $a.vsubpd($d, $x, $y),
            Bin::DMul => $a.vmulpd($d, $x, $y),
            Bin::DMinX86 => $a.vminpd($d, $x, $y),
            Bin::DMaxX86 => $a.vmaxpd($d, $x, $y),
            Bin::QAdd => $a.vpaddq($d, $x, $y),
            Bin::QSub => $a.vpsubq($d, $x, $y),
            Bin::QAnd => $a.vpandq($d, $x, $y),
            Bin::QOr => $a.vporq($d, $x, $y),
            Bin::QXor => $a.vpxorq($d, $x, $y),
            Bin::QShl => $a.vpsllvq($d, $x, $y),
            Bin::QShr => $a.vpsrlvq($d, $x, $y),
            Bin::QMulU => $a.vpmuludq($d, $x, $y),
            Bin::QMulS => $a.vpmuldq($d, $x, $y),
            Bin::Rotl => $a.vprolvd($d, $x, $y),
            // Two instructions and a scratch register: `emit_pack`.
            Bin::PackTruncD2I
            | Bin::PackTruncD2U
            | Bin::PackD2F
            | Bin::ZipLow
            | Bin::ZipHigh
            | Bin::UnzipEven
            | Bin::UnzipOdd => {
                return Err(WideError::Malformed(
                    "a packing conversion or a shuffle under a mask".into(),
                ))
            }
        }
    };
}

/// One lane-wise binary operation `d = a OP b` (`d` possibly masked).
fn bin(
    a: &mut CodeAssembler,
    op: Bin,
    d: AsmRegisterZmm,
    x: AsmRegisterZmm,
    y: Src,
) -> Result<(), WideError> {
    match y {
        Src::Z(y) => bin_ops!(a, op, d, x, y),
        Src::M(l, c) => bin_ops!(a, op, d, x, Src::bcst(l, c)),
    }
    .map_err(asm_err)
}

/// Whether `op` works on 64-bit lanes, so that a constant it reads from
/// the pool is broadcast as 64 bits.
pub(crate) fn bin_is_q(op: Bin) -> bool {
    matches!(
        op,
        Bin::DDiv
            | Bin::DAdd
            | Bin::DSub
            | Bin::DMul
            | Bin::DMinX86
            | Bin::DMaxX86
            | Bin::QAdd
            | Bin::QSub
            | Bin::QAnd
            | Bin::QOr
            | Bin::QXor
            | Bin::QShl
            | Bin::QShr
            | Bin::QMulU
            | Bin::QMulS
    )
}

/// Which fused multiply-add [`fma`] emits.
#[derive(Clone, Copy)]
enum FmaKind {
    /// `x * y + c` of floats.
    Add,
    /// `x * y + c` of doubles.
    AddD,
    /// `x * y - c` of floats.
    Sub,
}

/// `d = x * y + c` (`AddD`: of eight doubles; `Sub`: `x * y - c`), rounded once, where at
/// most one operand is a pool constant and, with `regalloc2`'s ties, `d`
/// is one of the register operands (else `d` takes the addend, or the
/// first factor when the addend is the constant, by a copy first). Every
/// form reads all three before it writes `d`; the product commutes.
fn fma(
    a: &mut CodeAssembler,
    kind: FmaKind,
    d: AsmRegisterZmm,
    [x, y, c]: [Src; 3],
) -> Result<(), WideError> {
    // Each form's instruction for floats, doubles, and floats subtracting
    // the addend (`vfmsub…`: the same operand roles).
    macro_rules! form {
        ($f:ident, $g:ident, $h:ident, $d:expr, $p:expr, $q:expr) => {
            match $q {
                Src::Z(q) => match kind {
                    FmaKind::Add => a.$f($d, $p, q),
                    FmaKind::AddD => a.$g($d, $p, q),
                    FmaKind::Sub => a.$h($d, $p, q),
                },
                Src::M(l, k) => {
                    let m = Src::bcst(l, k);
                    match kind {
                        FmaKind::Add => a.$f($d, $p, m),
                        FmaKind::AddD => a.$g($d, $p, m),
                        FmaKind::Sub => a.$h($d, $p, m),
                    }
                }
            }
            .map_err(asm_err)
        };
    }
    let is = |s: Src| matches!(s, Src::Z(r) if r == d);
    let reg = |s: Src| match s {
        Src::Z(r) => Ok(r),
        Src::M(..) => Err(WideError::Malformed("two pool constants in an FMA".into())),
    };
    match (x, y, c) {
        // The addend in memory: d = d * other + [c].
        (_, _, Src::M(..)) => {
            let (d_is, other) = if is(x) {
                (true, reg(y)?)
            } else if is(y) {
                (true, reg(x)?)
            } else {
                (false, reg(y)?)
            };
            if !d_is {
                a.vmovaps(d, reg(x)?).map_err(asm_err)?;
            }
            form!(vfmadd213ps, vfmadd213pd, vfmsub213ps, d, other, c)
        }
        // A factor in memory (`m`), the other factor `f`.
        (Src::M(..), f, _) | (f, Src::M(..), _) => {
            let m = if matches!(x, Src::M(..)) { x } else { y };
            let (f, c) = (reg(f)?, reg(c)?);
            if f == d && c != d {
                // d = d * [m] + c.
                form!(vfmadd132ps, vfmadd132pd, vfmsub132ps, d, c, m)
            } else {
                if c != d {
                    a.vmovaps(d, c).map_err(asm_err)?;
                }
                // d = f * [m] + d.
                form!(vfmadd231ps, vfmadd231pd, vfmsub231ps, d, f, m)
            }
        }
        _ => {
            let (x, y, c) = (reg(x)?, reg(y)?, reg(c)?);
            if d == c {
                form!(vfmadd231ps, vfmadd231pd, vfmsub231ps, d, x, Src::Z(y))
            } else if d == x {
                form!(vfmadd213ps, vfmadd213pd, vfmsub213ps, d, y, Src::Z(c))
            } else if d == y {
                form!(vfmadd213ps, vfmadd213pd, vfmsub213ps, d, x, Src::Z(c))
            } else {
                a.vmovaps(d, c).map_err(asm_err)?;
                form!(vfmadd231ps, vfmadd231pd, vfmsub231ps, d, x, Src::Z(y))
            }
        }
    }
}

/// The lower half of zmm `n` as a ymm register.
fn ymm_of(n: u8) -> Result<AsmRegisterYmm, WideError> {
    get_ymm(iced_x86::Register::YMM0 + u32::from(n))
        .ok_or_else(|| WideError::Malformed(format!("ymm{n}")))
}

/// `d` = the doubles of `x` truncated to 32-bit integers (or rounded to
/// floats, `op`) in lanes 0–7 and those of `y` in lanes 8–15 (`y` goes
/// through the scratch register first, so `d` may be either source).
fn emit_pack(a: &mut CodeAssembler, op: Bin, d: u8, x: u8, y: u8) -> Result<(), WideError> {
    let t = ymm_of(SCRATCH_ZMM)?;
    let (dy, xz, yz) = (ymm_of(d)?, zmm_reg(x)?, zmm_reg(y)?);
    if op == Bin::PackD2F {
        a.vcvtpd2ps(t, yz).map_err(asm_err)?;
        a.vcvtpd2ps(dy, xz).map_err(asm_err)?;
    } else if op == Bin::PackTruncD2I {
        a.vcvttpd2dq(t, yz).map_err(asm_err)?;
        a.vcvttpd2dq(dy, xz).map_err(asm_err)?;
    } else {
        a.vcvttpd2udq(t, yz).map_err(asm_err)?;
        a.vcvttpd2udq(dy, xz).map_err(asm_err)?;
    }
    a.vinserti64x4(zmm_reg(d)?, zmm_reg(d)?, t, 1)
        .map_err(asm_err)?;
    Ok(())
}

/// The tables of `vpermi2ps` for [`Bin::ZipLow`], [`Bin::ZipHigh`],
/// [`Bin::UnzipEven`] and [`Bin::UnzipOdd`]: lane `l` of the result is lane
/// `t[l]` of the 32 lanes of `a` then `b`.
pub(crate) static SHUFFLES: [[u32; 16]; 4] = [
    [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23],
    [8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31],
    [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30],
    [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31],
];

/// `d` = the lanes of `x` and `y` moved as [`Bin::ZipLow`] and its
/// siblings say: the table into `d` (or the scratch register, when `d` is
/// a source), then one `vpermi2ps`; `r11` is clobbered.
fn emit_shuffle(a: &mut CodeAssembler, op: Bin, d: u8, x: u8, y: u8) -> Result<(), WideError> {
    let table = match op {
        Bin::ZipLow => &SHUFFLES[0],
        Bin::ZipHigh => &SHUFFLES[1],
        Bin::UnzipEven => &SHUFFLES[2],
        _ => &SHUFFLES[3],
    };
    let t = if d == x || d == y { SCRATCH_ZMM } else { d };
    a.mov(r11, table.as_ptr() as u64).map_err(asm_err)?;
    a.vmovdqu32(zmm_reg(t)?, zmmword_ptr(r11))
        .map_err(asm_err)?;
    a.vpermi2ps(zmm_reg(t)?, zmm_reg(x)?, zmm_reg(y)?)
        .map_err(asm_err)?;
    if t != d {
        a.vmovaps(zmm_reg(d)?, zmm_reg(t)?).map_err(asm_err)?;
    }
    Ok(())
}

/// `d = OP a` for an [`Un`] (reads `a` before it writes `d`).
fn emit_un(a: &mut CodeAssembler, op: Un, d: u8, x: u8) -> Result<(), WideError> {
    let (dz, xz) = (zmm_reg(d)?, zmm_reg(x)?);
    match op {
        // Round to nearest even (imm 0), down (1), up (2), towards zero
        // (3); no precision exception (bit 3).
        Un::RoundEven => a.vrndscaleps(dz, xz, 8),
        Un::Floor => a.vrndscaleps(dz, xz, 9),
        Un::Ceil => a.vrndscaleps(dz, xz, 10),
        Un::Trunc => a.vrndscaleps(dz, xz, 11),
        Un::GetExp => a.vgetexpps(dz, xz),
        // Interval [1, 2) (bits 1:0 = 0), sign cleared (bits 3:2 = 1).
        Un::GetMant => a.vgetmantps(dz, xz, 4),
        Un::I2DLow => a.vcvtdq2pd(dz, ymm_of(x)?),
        Un::U2DLow => a.vcvtudq2pd(dz, ymm_of(x)?),
        Un::I2DHigh | Un::U2DHigh => {
            a.vextracti64x4(ymm_of(d)?, xz, 1).map_err(asm_err)?;
            if op == Un::I2DHigh {
                a.vcvtdq2pd(dz, ymm_of(d)?)
            } else {
                a.vcvtudq2pd(dz, ymm_of(d)?)
            }
        }
        Un::F2DLow => a.vcvtps2pd(dz, ymm_of(x)?),
        Un::F2DHigh => {
            a.vextractf64x4(ymm_of(d)?, xz, 1).map_err(asm_err)?;
            a.vcvtps2pd(dz, ymm_of(d)?)
        }
        Un::DRoundEven => a.vrndscalepd(dz, xz, 8),
        Un::DTrunc => a.vrndscalepd(dz, xz, 11),
        Un::DFloor => a.vrndscalepd(dz, xz, 9),
        Un::DCeil => a.vrndscalepd(dz, xz, 10),
        Un::DSqrt => a.vsqrtpd(dz, xz),
        Un::Rsqrt14 => a.vrsqrt14ps(dz, xz),
        Un::RotlImm(n) => a.vprold(dz, xz, u32::from(n & 31)),
        Un::Popcnt => a.vpopcntd(dz, xz),
    }
    .map_err(asm_err)
}

/// Emits one operation that is not loop control, its values already
/// physical registers (`V(n)` is zmm`n`, `K(n)` is k`n`).
/// `pool` names the constants that operands read from memory
/// ([`POOL_BASE`]).
pub(crate) fn emit_op(
    a: &mut CodeAssembler,
    op: &Op,
    pool: &mut PoolOperands<'_>,
) -> Result<(), WideError> {
    let z = |v: super::V| zmm_reg(v.0 as u8);
    let k = |m: super::K| k_reg(m.0 as u8);
    let kn = |m: super::K| m.0 as u8;
    match *op {
        Op::Splat { d, bits } => {
            if bits == 0 {
                a.vpxord(z(d)?, z(d)?, z(d)?).map_err(asm_err)?;
            } else {
                a.mov(eax, bits).map_err(asm_err)?;
                a.vpbroadcastd(z(d)?, eax).map_err(asm_err)?;
            }
        }
        Op::Load { d, arg: r, off } => {
            a.vmovups(z(d)?, zmmword_ptr(arg(r) + off))
                .map_err(asm_err)?;
        }
        Op::Broadcast { d, arg: r, off } => {
            a.vbroadcastss(z(d)?, dword_ptr(arg(r) + off))
                .map_err(asm_err)?;
        }
        Op::Store { a: x, arg: r, off } => {
            a.vmovups(zmmword_ptr(arg(r) + off), z(x)?)
                .map_err(asm_err)?;
        }
        Op::Bin {
            op: op @ (Bin::PackTruncD2I | Bin::PackTruncD2U | Bin::PackD2F),
            d,
            a: x,
            b: y,
        } => emit_pack(a, op, d.0 as u8, x.0 as u8, y.0 as u8)?,
        Op::Bin {
            op: op @ (Bin::ZipLow | Bin::ZipHigh | Bin::UnzipEven | Bin::UnzipOdd),
            d,
            a: x,
            b: y,
        } => emit_shuffle(a, op, d.0 as u8, x.0 as u8, y.0 as u8)?,
        Op::Bin { op, d, a: x, b: y } => {
            let y = pool.src(a, y)?;
            bin(a, op, z(d)?, z(x)?, y)?
        }
        Op::Un { op, d, a: x } => emit_un(a, op, d.0 as u8, x.0 as u8)?,
        Op::BinMasked {
            op,
            d,
            a: x,
            b: y,
            k: m,
        } => {
            let dm = zmm_masked(z(d)?, kn(m));
            let y = pool.src(a, y)?;
            bin(a, op, dm, z(x)?, y)?;
        }
        Op::FmaMasked {
            d,
            a: x,
            b: y,
            k: m,
        }
        | Op::FmaDMasked {
            d,
            a: x,
            b: y,
            k: m,
        } => {
            let dm = zmm_masked(z(d)?, kn(m));
            let double = matches!(op, Op::FmaDMasked { .. });
            match (pool.src(a, y)?, double) {
                (Src::Z(q), false) => a.vfmadd231ps(dm, z(x)?, q),
                (Src::Z(q), true) => a.vfmadd231pd(dm, z(x)?, q),
                (Src::M(l, c), false) => a.vfmadd231ps(dm, z(x)?, Src::bcst(l, c)),
                (Src::M(l, c), true) => a.vfmadd231pd(dm, z(x)?, Src::bcst(l, c)),
            }
            .map_err(asm_err)?;
        }
        Op::Fma { d, a: x, b: y, c }
        | Op::FmaD { d, a: x, b: y, c }
        | Op::Fms { d, a: x, b: y, c } => {
            let srcs = [pool.src(a, x)?, pool.src(a, y)?, pool.src(a, c)?];
            let kind = match op {
                Op::FmaD { .. } => FmaKind::AddD,
                Op::Fms { .. } => FmaKind::Sub,
                _ => FmaKind::Add,
            };
            fma(a, kind, z(d)?, srcs)?
        }
        Op::SplatQ { d, bits } => {
            if bits == 0 {
                a.vpxord(z(d)?, z(d)?, z(d)?).map_err(asm_err)?;
            } else {
                a.mov(rax, bits).map_err(asm_err)?;
                a.vpbroadcastq(z(d)?, rax).map_err(asm_err)?;
            }
        }
        Op::Sqrt { d, a: x } => a.vsqrtps(z(d)?, z(x)?).map_err(asm_err)?,
        Op::IntToFloat { d, a: x } => a.vcvtdq2ps(z(d)?, z(x)?).map_err(asm_err)?,
        Op::Copy { d, a: x } => {
            if d.0 != x.0 {
                a.vmovaps(z(d)?, z(x)?).map_err(asm_err)?;
            }
        }
        Op::AllLanes { d } => a.kxnorw(k(d)?, k(d)?, k(d)?).map_err(asm_err)?,
        Op::KOr { d, a: x, b: y } => a.korw(k(d)?, k(x)?, k(y)?).map_err(asm_err)?,
        Op::Compare {
            cmp,
            d,
            a: x,
            b: y,
            within,
        } => {
            let dm = k_masked(k(d)?, kn(within));
            macro_rules! compare {
                ($y:expr) => {
                    match cmp {
                        // Predicates 2 (LE_OS) and 1 (LT_OS): false on NaN.
                        Cmp::FLe => a.vcmpps(dm, z(x)?, $y, 2),
                        Cmp::FLt => a.vcmpps(dm, z(x)?, $y, 1),
                        Cmp::IGt => a.vpcmpgtd(dm, z(x)?, $y),
                        Cmp::IEq => a.vpcmpeqd(dm, z(x)?, $y),
                        Cmp::Pred(kind, p) => {
                            let p = i32::from(p);
                            match kind {
                                CmpKind::F32 => a.vcmpps(dm, z(x)?, $y, p),
                                CmpKind::I32 => a.vpcmpd(dm, z(x)?, $y, p),
                                CmpKind::U32 => a.vpcmpud(dm, z(x)?, $y, p),
                                CmpKind::F64 | CmpKind::I64 => {
                                    return Err(WideError::Malformed(
                                        "a masked compare of 64-bit lanes".into(),
                                    ))
                                }
                            }
                        }
                    }
                };
            }
            match pool.src(a, y)? {
                Src::Z(y) => compare!(y),
                Src::M(l, c) => compare!(Src::bcst(l, c)),
            }
            .map_err(asm_err)?;
        }
        Op::Compare2 {
            kind,
            pred,
            d,
            a: x,
            b: y,
        } => {
            let p = i32::from(pred);
            macro_rules! compare {
                ($y:expr) => {
                    match kind {
                        CmpKind::F32 => a.vcmpps(k(d)?, z(x)?, $y, p),
                        CmpKind::I32 => a.vpcmpd(k(d)?, z(x)?, $y, p),
                        CmpKind::U32 => a.vpcmpud(k(d)?, z(x)?, $y, p),
                        CmpKind::F64 => a.vcmppd(k(d)?, z(x)?, $y, p),
                        CmpKind::I64 => a.vpcmpq(k(d)?, z(x)?, $y, p),
                    }
                };
            }
            match pool.src(a, y)? {
                Src::Z(y) => compare!(y),
                Src::M(l, c) => compare!(Src::bcst(l, c)),
            }
            .map_err(asm_err)?;
        }
        Op::KAnd { d, a: x, b: y } => a.kandw(k(d)?, k(x)?, k(y)?).map_err(asm_err)?,
        // kandnw computes !first & second.
        Op::KAndNot { d, a: x, b: y } => a.kandnw(k(d)?, k(y)?, k(x)?).map_err(asm_err)?,
        Op::KXor { d, a: x, b: y } => a.kxorw(k(d)?, k(x)?, k(y)?).map_err(asm_err)?,
        Op::KNot { d, a: x } => a.knotw(k(d)?, k(x)?).map_err(asm_err)?,
        Op::KHigh { d, a: x } => a.kshiftrw(k(d)?, k(x)?, 8).map_err(asm_err)?,
        // kunpckbw d, high, low.
        Op::KJoin { d, lo, hi } => a.kunpckbw(k(d)?, k(hi)?, k(lo)?).map_err(asm_err)?,
        Op::KZero { d } => a.kxorw(k(d)?, k(d)?, k(d)?).map_err(asm_err)?,
        Op::KCopy { d, a: x } => {
            if d.0 != x.0 {
                a.kmovw(k(d)?, k(x)?).map_err(asm_err)?;
            }
        }
        // vpblendmd takes the second source where the mask is set.
        Op::Select {
            d,
            k: m,
            a: x,
            b: y,
        } => {
            let dm = zmm_masked(z(d)?, kn(m));
            match pool.src(a, x)? {
                Src::Z(x) => a.vpblendmd(dm, z(y)?, x),
                Src::M(l, c) => a.vpblendmd(dm, z(y)?, Src::bcst(l, c)),
            }
            .map_err(asm_err)?
        }
        Op::Fixup { d, x, table } => match pool.src(a, table)? {
            Src::Z(t) => a.vfixupimmps(z(d)?, z(x)?, t, 0),
            Src::M(l, c) => a.vfixupimmps(z(d)?, z(x)?, Src::bcst(l, c), 0),
        }
        .map_err(asm_err)?,
        Op::Ternlog { d, b, c, imm } => match pool.src(a, c)? {
            Src::Z(t) => a.vpternlogd(z(d)?, z(b)?, t, i32::from(imm)),
            Src::M(l, x) => a.vpternlogd(z(d)?, z(b)?, Src::bcst(l, x), i32::from(imm)),
        }
        .map_err(asm_err)?,
        Op::MaskedCopy { d, a: x, k: m } => {
            let dm = zmm_masked(z(d)?, kn(m));
            match pool.src(a, x)? {
                Src::Z(x) => a.vmovdqa32(dm, x),
                // A merge-masked broadcast of the 32 bits.
                Src::M(l, PoolConst::D(_)) => a.vpbroadcastd(dm, dword_ptr(l)),
                Src::M(_, PoolConst::Q(_)) => {
                    return Err(WideError::Malformed(
                        "a 64-bit pool constant in a masked copy".into(),
                    ))
                }
            }
            .map_err(asm_err)?
        }
        Op::Convert { cvt, d, a: x } => match cvt {
            Cvt::I2F => a.vcvtdq2ps(z(d)?, z(x)?),
            Cvt::U2F => a.vcvtudq2ps(z(d)?, z(x)?),
            Cvt::F2I => a.vcvttps2dq(z(d)?, z(x)?),
            Cvt::F2U => a.vcvttps2udq(z(d)?, z(x)?),
        }
        .map_err(asm_err)?,
        Op::GlobalId { d, dim } => {
            // The entry keeps the chunk's first id of dimension 0 in r15,
            // the row's ids of dimensions 1 and 2 in rdi and r9.
            match dim {
                0 => {
                    a.vpbroadcastd(z(d)?, r15d).map_err(asm_err)?;
                    a.mov(r11, IOTA.as_ptr() as u64).map_err(asm_err)?;
                    a.vpaddd(z(d)?, z(d)?, zmmword_ptr(r11)).map_err(asm_err)?;
                }
                1 => a.vpbroadcastd(z(d)?, edi).map_err(asm_err)?,
                _ => a.vpbroadcastd(z(d)?, r9d).map_err(asm_err)?,
            }
        }
        // The entry keeps the chunk's running lanes in edx.
        Op::RunningLanes { d } => a.kmovw(k(d)?, edx).map_err(asm_err)?,
        // Inside a kernel entry only (`access::emit_access`).
        Op::LoadElems { .. }
        | Op::LoadSum { .. }
        | Op::FmaSum { .. }
        | Op::StoreElems { .. }
        | Op::GroupId { .. }
        | Op::RowLane0 { .. } => {
            return Err(WideError::Malformed(
                "a memory operation outside a kernel entry".into(),
            ));
        }
        Op::Loop
        | Op::WhileAny { .. }
        | Op::WhileCount { .. }
        | Op::WhileEntry(_)
        | Op::IfAny { .. }
        | Op::IfEntry(_)
        | Op::EndIf => {
            return Err(WideError::Malformed("control flow in emit_op".into()));
        }
        Op::Entry(_) => {
            return Err(WideError::Malformed(
                "a kernel entry's step outside a kernel entry".into(),
            ));
        }
    }
    Ok(())
}

/// The function's end, assembled and copied into executable memory.
pub(crate) fn finish(
    mut a: CodeAssembler,
    start: Instant,
    zmm_used: u32,
    k_used: u32,
    mut pool: ConstPool,
) -> Result<WideCode, WideError> {
    a.vzeroupper().map_err(asm_err)?;
    a.ret().map_err(asm_err)?;
    let pool_constants = pool.len();
    let pool_at = pool.emit_data(&mut a)?;
    let (memory, at, size) = assemble_and_map(&mut a, pool_at)?;
    // SAFETY: the mapping holds the function just assembled from byte
    // `at` on, whose calling convention is System V with five integer
    // arguments; it lives as long as the returned `WideCode`.
    let entry = unsafe {
        std::mem::transmute::<*const u8, unsafe extern "C" fn(u64, u64, u64, u64, u64)>(
            memory.as_ptr().add(at),
        )
    };
    Ok(WideCode {
        _memory: memory,
        at,
        entry,
        size,
        zmm_used,
        k_used,
        pool_constants,
        compile_time: start.elapsed(),
    })
}

/// Compiles `p` to machine code with the linear-scan allocator
/// ([`allocate`]).
pub fn compile(p: &Program) -> Result<WideCode, WideError> {
    if !super::supported() {
        return Err(WideError::NoAvx512);
    }
    if p.ops().iter().any(needs_entry) {
        return Err(WideError::Malformed(
            "a kernel entry's operation in a plain program".into(),
        ));
    }
    let start = Instant::now();
    let ra: Allocation = allocate(p)?;
    let zv = |v: super::V| super::V(u32::from(ra.zmm[v.0 as usize]));
    let kv = |m: super::K| super::K(u32::from(ra.k[m.0 as usize]));
    let mut a = CodeAssembler::new(64).map_err(asm_err)?;
    // Linear scan gives every value a register: no operand is a pool
    // constant.
    let mut pool = ConstPool::default();
    let mut no_pool = PoolOperands {
        table: &[],
        pool: &mut pool,
    };
    let mut open: Vec<CodeLabel> = Vec::new();
    for op in p.ops() {
        match *op {
            Op::Loop => {
                let mut l = a.create_label();
                a.set_label(&mut l).map_err(asm_err)?;
                a.zero_bytes().map_err(asm_err)?;
                open.push(l);
            }
            Op::WhileAny { k: m } => {
                let l = open
                    .pop()
                    .ok_or_else(|| WideError::Malformed("loop end without a start".into()))?;
                let km = k_reg(kv(m).0 as u8)?;
                a.kortestw(km, km).map_err(asm_err)?;
                a.jnz(l).map_err(asm_err)?;
            }
            Op::WhileCount {
                arg: r,
                step,
                count,
            } => {
                let l = open
                    .pop()
                    .ok_or_else(|| WideError::Malformed("loop end without a start".into()))?;
                a.add(arg(r), step).map_err(asm_err)?;
                a.dec(arg(count)).map_err(asm_err)?;
                a.jnz(l).map_err(asm_err)?;
            }
            _ => emit_op(&mut a, &op.map_regs(zv, kv), &mut no_pool)?,
        }
    }
    let distinct = |regs: &[u8]| regs.iter().fold(0u32, |m, r| m | 1 << r).count_ones();
    finish(a, start, distinct(&ra.zmm), distinct(&ra.k), pool)
}

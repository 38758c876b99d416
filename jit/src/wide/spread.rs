//! Per-lane accesses that stream through pages far apart: where chunks in
//! flight stop paying.
//!
//! A loop whose work-items each walk their own row of a matrix
//! (`s += A[i * n + j] * x[j]`, the row `i` per work-item, `j` the loop's
//! counter) gathers, in every trip, one element from each of the chunk's
//! sixteen rows. With rows `4 n` bytes apart, each lane streams through
//! its own pages, and four chunks in flight walk 64 such streams at once:
//! more than the core's prefetchers follow and its first-level TLB holds
//! (64 entries). Measured on one thread, `n × n` floats in rows of `n`
//! (`docs/wide.md`, "Chunks in flight and far-apart rows"): at `n` = 1024
//! and beyond, four chunks in flight took 1.8–1.9× the time of one chunk
//! at a time (4096: 10.3 against 5.3 ms), at 512 1.1×, while at 256 and
//! below four chunks were 1.05–1.15× faster (and kmeans' points, rows of
//! 16 floats, 1.14×).
//!
//! So the entry runs one chunk at a time when a loop's per-lane access
//! moves at least [`SPREAD_BYTES`] from one lane to the next: decided at
//! compile time when that stride is a constant, at each call from the
//! parameter when it is a constant times a scalar parameter (the row
//! length `n`), and left to the chunks in flight otherwise. The stride
//! comes from the address's slope in the lane (`lower::prefetch`'s
//! `slope_by`), the lanes' own shapes from the uniformity analysis.

use crate::abi::ArgSlot;
use crate::lower::prefetch::{slope_by, Slope};
use vecl_ir::analysis::uniformity::{Shape, Uniformity};
use vecl_ir::{AddressSpace, Block, Function, Inst, Module, Scalar, Stmt, Type, ValueId};

/// Bytes between two lanes' elements from which a loop's per-lane access
/// runs one chunk at a time: 2 KiB, sixteen lanes 32 KiB apart in all
/// (eight pages; four chunks, 32).
pub const SPREAD_BYTES: i64 = 2048;

/// A scalar `int` or `uint` parameter (the wide code takes no 64-bit one)
/// whose value, times `bytes`, is a per-lane access's stride from one
/// lane to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrideParam {
    /// The parameter's offset in the argument block.
    pub slot: i32,
    /// Read with sign extension (`int`).
    pub signed: bool,
    /// Bytes per unit of the parameter.
    pub bytes: i32,
}

/// What the loops' per-lane accesses of a kernel say about chunks in
/// flight.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spread {
    /// Some access's lanes are a constant stride of at least
    /// [`SPREAD_BYTES`] apart: one chunk at a time always.
    pub fixed: bool,
    /// The parameters that decide at each call: one chunk at a time when
    /// any of them, times its bytes, is at least [`SPREAD_BYTES`] in
    /// magnitude.
    pub params: Vec<StrideParam>,
}

impl Spread {
    /// Nothing to decide: the chunks in flight as the allocation allows.
    pub fn is_empty(&self) -> bool {
        !self.fixed && self.params.is_empty()
    }
}

/// The [`Spread`] of `func`'s `__global` and `__constant` loads and stores
/// inside loops whose address varies across the lanes (those not one
/// element apart the wide code gathers and scatters).
pub fn spread(module: &Module, func: &Function, uni: &Uniformity, slots: &[ArgSlot]) -> Spread {
    let mut out = Spread::default();
    let mut ptrs = Vec::new();
    in_loops(func, &func.body, false, &mut ptrs);
    for p in ptrs {
        let global = matches!(
            func.ty(p),
            Type::Pointer(AddressSpace::Global | AddressSpace::Constant, _)
        );
        if !global || uni.shape(p) == Shape::Uniform {
            continue;
        }
        // A constant stride is the uniformity analysis' `Linear`.
        let Some(s) = lane_slope(module, func, uni, p) else {
            continue;
        };
        match s.factors.as_slice() {
            [] if s.konst.unsigned_abs() >= SPREAD_BYTES as u64 => out.fixed = true,
            [f] => {
                if let Some(sp) = stride_param(func, slots, *f, s.konst) {
                    if !out.params.contains(&sp) {
                        out.params.push(sp);
                    }
                }
            }
            _ => {}
        }
    }
    if out.fixed {
        out.params.clear();
    }
    out
}

/// The pointers of the loads and stores inside `block`'s loops (`looped`:
/// `block` is inside one).
fn in_loops(func: &Function, block: &Block, looped: bool, out: &mut Vec<ValueId>) {
    for s in &block.0 {
        match s {
            Stmt::Eval(v) if looped => {
                if let Inst::Load(p) = func.inst(*v).inst {
                    out.push(p);
                }
            }
            Stmt::Store { ptr, .. } if looped => out.push(*ptr),
            Stmt::If { then_, else_, .. } => {
                in_loops(func, then_, looped, out);
                in_loops(func, else_, looped, out);
            }
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    in_loops(func, &c.body, looped, out);
                }
            }
            Stmt::Loop { body, continuing } => {
                in_loops(func, body, true, out);
                in_loops(func, continuing, true, out);
            }
            _ => {}
        }
    }
}

/// How `v` grows from one lane to the next: the lanes' shapes where the
/// uniformity analysis knows them, sums and products of those otherwise.
fn lane_slope(module: &Module, func: &Function, uni: &Uniformity, v: ValueId) -> Option<Slope> {
    let leaf = |v: ValueId| match uni.shape(v) {
        Shape::Uniform => Some(Some(Slope::zero())),
        Shape::Linear(s) => Some(Some(Slope {
            konst: s,
            factors: Vec::new(),
        })),
        Shape::Varying => match func.inst(v).inst {
            // A variable that differs between lanes: its growth unknown.
            Inst::ReadVar(_) | Inst::Load(_) => Some(None),
            _ => None,
        },
    };
    slope_by(module, func, v, &leaf, 0)
}

/// The scalar integer parameter `f` is (through integer conversions),
/// with `bytes` per unit.
fn stride_param(func: &Function, slots: &[ArgSlot], f: ValueId, bytes: i64) -> Option<StrideParam> {
    let mut v = f;
    for _ in 0..8 {
        match func.inst(v).inst {
            Inst::Convert { value, .. } if func.ty(value).scalar().is_some_and(|s| s.is_int()) => {
                v = value
            }
            Inst::Param(n) => {
                let slot = slots.get(n as usize)?;
                let signed = match func.ty(v) {
                    Type::Scalar(Scalar::I32) => true,
                    Type::Scalar(Scalar::U32) => false,
                    _ => return None,
                };
                if slot.size != 4 {
                    return None;
                }
                return Some(StrideParam {
                    slot: i32::try_from(slot.offset).ok()?,
                    signed,
                    bytes: i32::try_from(bytes).ok().filter(|b| *b != 0)?,
                });
            }
            _ => return None,
        }
    }
    None
}

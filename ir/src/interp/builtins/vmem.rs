//! `vloadN`/`vstoreN` and the `half` forms (`vload_half[N]`,
//! `vloada_halfN`, `vstore_half[N][_rtX]`, `vstorea_halfN[_rtX]`).
//!
//! Arguments are `(offset, p)` for loads and `(data, offset, p)` for
//! stores; the address is `p + offset * N` elements, except that the
//! aligned `a` forms step a 3-vector by 4. Unlike a `float3` load, `vload3`
//! touches exactly three elements. Every access is bounds-checked like a
//! load or store.

use crate::builtin::Builtin;
use crate::types::{AddressSpace, Scalar, StructDef, Type};

use super::super::convert::{self, RoundDir};
use super::super::memory::{Memory, Ptr};
use super::super::scalar;
use super::{width, Arg, BuiltinError};

struct Access {
    store: bool,
    /// Components moved.
    n: usize,
    half: bool,
    /// Elements between consecutive `offset`s.
    stride: usize,
    dir: RoundDir,
}

fn parse(name: Builtin) -> Option<Access> {
    let v = name.vector_data()?;
    let dir = match v.rounding {
        None | Some("rte") => RoundDir::NearestEven,
        Some("rtz") => RoundDir::TowardZero,
        Some("rtp") => RoundDir::Up,
        Some("rtn") => RoundDir::Down,
        Some(_) => return None,
    };
    let n = usize::from(v.n);
    Some(Access {
        store: !v.load,
        n,
        half: v.half,
        stride: if v.aligned && n == 3 { 4 } else { n },
        dir,
    })
}

/// `None` when `name` is not one of these builtins.
pub fn call(
    name: Builtin,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
    _structs: &[StructDef],
) -> Option<Result<Vec<u64>, BuiltinError>> {
    let acc = parse(name)?;
    Some(run(&acc, args, ret, mem))
}

fn run(
    acc: &Access,
    args: &[Arg<'_>],
    ret: &Type,
    mem: &mut Memory,
) -> Result<Vec<u64>, BuiltinError> {
    let want = if acc.store { 3 } else { 2 };
    if args.len() != want {
        return Err(BuiltinError::BadArgs(format!(
            "takes {want} arguments, {} given",
            args.len()
        )));
    }
    let (offset, ptr) = (&args[want - 2], &args[want - 1]);
    let offset = scalar::int(offset.elem(), offset.lane(0)) as i64;
    let p = Ptr::decode(ptr.lanes.first().copied().unwrap_or(0));
    // Element type in memory: half for the half forms, else the value's.
    let value_scalar = if acc.store {
        args[0].elem()
    } else {
        ret.scalar().unwrap_or(Scalar::F32)
    };
    let mem_scalar = if acc.half { Scalar::F16 } else { value_scalar };
    let esize = mem_scalar.size() as usize;
    let at = p.add(offset.wrapping_mul((acc.stride * esize) as i64));
    let space = ptr.ty.address_space().unwrap_or(AddressSpace::Generic);
    mem.check_space(at, space, (acc.n * esize) as u64)?;
    if acc.store {
        let data = &args[0];
        if width(data.ty) != acc.n {
            return Err(BuiltinError::BadArgs(format!(
                "stores {} components, data has {}",
                acc.n,
                width(data.ty)
            )));
        }
        let mut bytes = Vec::with_capacity(acc.n * esize);
        for i in 0..acc.n {
            let lane = if acc.half {
                u64::from(convert::f64_to_f16(
                    scalar::float(data.elem(), data.lane(i)),
                    acc.dir,
                ))
            } else {
                data.lane(i)
            };
            bytes.extend_from_slice(&lane.to_le_bytes()[..esize]);
        }
        mem.write(at, &bytes)?;
        Ok(Vec::new())
    } else {
        if width(ret) != acc.n {
            return Err(BuiltinError::BadArgs(format!(
                "loads {} components into {ret:?}",
                acc.n
            )));
        }
        let bytes = mem.read(at, (acc.n * esize) as u64)?;
        Ok(bytes
            .chunks_exact(esize)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..esize].copy_from_slice(c);
                let bits = u64::from_le_bytes(b);
                if acc.half {
                    scalar::from_float(value_scalar, convert::f16_to_f64(bits as u16))
                } else {
                    bits
                }
            })
            .collect())
    }
}

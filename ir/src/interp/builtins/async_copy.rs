//! `async_work_group_copy`, `async_work_group_strided_copy` and
//! `wait_group_events`.
//!
//! Every work-item of the group calls the copy with the same arguments and
//! the copy is one operation of the whole group. The interpreter lets each
//! item perform the complete copy when it executes the call: source and
//! destination are in different address spaces, so repeating it copies the
//! same bytes again and the result is the group's single copy, done by the
//! time any item goes on (which `wait_group_events` then only confirms).
//! Arguments: `(dst, src, n, event)` and `(dst, src, n, stride, event)`;
//! the stride applies on the `__global` side.

use crate::types::{AddressSpace, StructDef, Type};

use super::super::memory::{Memory, Ptr};
use super::super::scalar;
use super::{Arg, BuiltinError};
use crate::builtin::Builtin;

/// `None` when `name` is not one of these builtins.
pub fn call(
    name: Builtin,
    args: &[Arg<'_>],
    _ret: &Type,
    mem: &mut Memory,
    structs: &[StructDef],
) -> Option<Result<Vec<u64>, BuiltinError>> {
    let strided = match name {
        Builtin::AsyncWorkGroupCopy => false,
        Builtin::AsyncWorkGroupStridedCopy => true,
        Builtin::WaitGroupEvents => return Some(Ok(Vec::new())),
        _ => return None,
    };
    Some(copy(args, strided, mem, structs))
}

fn copy(
    args: &[Arg<'_>],
    strided: bool,
    mem: &mut Memory,
    structs: &[StructDef],
) -> Result<Vec<u64>, BuiltinError> {
    let want = if strided { 5 } else { 4 };
    if args.len() != want {
        return Err(BuiltinError::BadArgs(format!(
            "takes {want} arguments, {} given",
            args.len()
        )));
    }
    let (dst, src) = (&args[0], &args[1]);
    let Some(elem) = dst.ty.pointee() else {
        return Err(BuiltinError::BadArgs(
            "the destination must be a pointer".into(),
        ));
    };
    let size = i64::from(crate::types::size_of(elem, structs));
    let count = |a: &Arg<'_>| scalar::int(a.elem(), a.lane(0)) as i64;
    let n = count(&args[2]);
    let stride = if strided { count(&args[3]) } else { 1 };
    let (d, s) = (Ptr::decode(dst.lane(0)), Ptr::decode(src.lane(0)));
    let dst_is_local = dst.ty.address_space() == Some(AddressSpace::Local);
    let space = |a: &Arg<'_>| a.ty.address_space().unwrap_or(AddressSpace::Generic);
    mem.check_space(d, space(dst), size as u64)?;
    mem.check_space(s, space(src), size as u64)?;
    for k in 0..n.max(0) {
        let (dk, sk) = if dst_is_local {
            (k, k.wrapping_mul(stride))
        } else {
            (k.wrapping_mul(stride), k)
        };
        let bytes = mem
            .read(s.add(sk.wrapping_mul(size)), size as u64)?
            .to_vec();
        mem.write(d.add(dk.wrapping_mul(size)), &bytes)?;
    }
    // The event: any non-zero token; waiting on it has nothing left to do.
    Ok(vec![args[want - 1].lane(0).max(1)])
}

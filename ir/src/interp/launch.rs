//! A launch: checks the arguments against the kernel's parameters, lays
//! out memory (buffers and module globals for the whole launch, `__local`
//! memory fresh for each group), then runs every work-group in linear group
//! order (`g → (g % n0, g / n0 % n1, g / (n0 n1))`, as the kernel ABI
//! numbers them) and hands the buffers back.

use crate::module::{Function, Loc, Module};
use crate::types::{AddressSpace, Type};

use super::error::InterpError;
use super::exec::{Group, Item};
use super::memory::{self, Memory, Ptr, Region, UNINIT_BYTE};
use super::{KernelArg, NdRange, RunOptions};

/// The largest `__local` argument buffer accepted (1 GiB).
const MAX_LOCAL_ARG: usize = 1 << 30;

/// Runs `kernel` of `module` over `range`.
///
/// `args` has one entry per kernel parameter: [`KernelArg::Buffer`] (or
/// [`KernelArg::Null`]) for `__global` and `__constant` pointers,
/// [`KernelArg::Local`] for `__local` pointers and [`KernelArg::Value`] for
/// everything else (scalars, vectors, structs passed by value). Buffers are
/// updated in place, whether the run succeeds or stops at a fault. `printf`
/// output goes to standard output when the launch ends; use
/// [`run_kernel_capture`] to keep it instead.
///
/// Errors: [`InterpError::UnknownKernel`], [`InterpError::ArgMismatch`] and
/// [`InterpError::BadRange`] before anything runs; a fault of the kernel
/// ([`InterpError::OutOfBounds`], [`InterpError::DivergentBarrier`],
/// [`InterpError::UnsupportedBuiltin`], …) stops the launch at the first one.
pub fn run_kernel(
    module: &Module,
    kernel: &str,
    args: &mut [KernelArg],
    range: &NdRange,
) -> Result<(), InterpError> {
    run_kernel_with(module, kernel, args, range, &RunOptions::default())
}

/// [`run_kernel`] with [`RunOptions`] (the sub-group size).
pub fn run_kernel_with(
    module: &Module,
    kernel: &str,
    args: &mut [KernelArg],
    range: &NdRange,
    opts: &RunOptions,
) -> Result<(), InterpError> {
    let mut output = Vec::new();
    let result = run_kernel_capture_with(module, kernel, args, range, opts, &mut output);
    if !output.is_empty() {
        use std::io::Write;
        // Best effort, as printf's own: a closed stdout is not the kernel's fault.
        let _ = std::io::stdout().lock().write_all(&output);
    }
    result
}

/// [`run_kernel`], appending the kernel's `printf` output to `output`
/// (each call's text whole, in execution order: groups in linear order,
/// then statement by statement, items in local-linear-id order).
pub fn run_kernel_capture(
    module: &Module,
    kernel: &str,
    args: &mut [KernelArg],
    range: &NdRange,
    output: &mut Vec<u8>,
) -> Result<(), InterpError> {
    run_kernel_capture_with(module, kernel, args, range, &RunOptions::default(), output)
}

/// [`run_kernel_capture`] with [`RunOptions`].
pub fn run_kernel_capture_with(
    module: &Module,
    kernel: &str,
    args: &mut [KernelArg],
    range: &NdRange,
    opts: &RunOptions,
    output: &mut Vec<u8>,
) -> Result<(), InterpError> {
    let func = match module.function_by_name(kernel) {
        Some((_, f)) if f.is_kernel() => f,
        _ => return Err(InterpError::UnknownKernel(kernel.to_string())),
    };
    let range = normalise(kernel, range)?;
    check_args(module, func, args)?;

    let mut mem = Memory::new();
    // Buffers: taken out of `args` for the run and put back afterwards.
    let mut buffer_regions = vec![0usize; args.len()];
    for (i, (arg, param)) in args.iter_mut().zip(&func.params).enumerate() {
        if let KernelArg::Image { desc, pixels } = arg {
            let region = Region {
                space: AddressSpace::Global,
                name: format!("image `{}`", param.name),
                data: std::mem::take(pixels),
                writable: true,
            };
            buffer_regions[i] = mem.alloc(region).map_or(0, |p| p.region);
            mem.attach_image(buffer_regions[i], *desc);
        }
        if let KernelArg::Buffer(bytes) = arg {
            let space = param.ty.address_space().unwrap_or(AddressSpace::Global);
            let region = Region {
                space,
                name: format!("argument `{}`", param.name),
                data: std::mem::take(bytes),
                writable: space != AddressSpace::Constant,
            };
            buffer_regions[i] = mem.alloc(region).map_or(0, |p| p.region);
        }
    }
    let mut globals = vec![0u64; module.globals.len()];
    for (g, global) in module.globals.iter().enumerate() {
        if global.space != AddressSpace::Local {
            let size = module.size_of(&global.ty) as usize;
            let mut data = global.init.clone().unwrap_or_default();
            data.resize(size, 0);
            let region = Region {
                space: global.space,
                name: format!("global `{}`", global.name),
                data,
                writable: global.space != AddressSpace::Constant,
            };
            globals[g] = mem.alloc(region).map_or(0, Ptr::encode);
        }
    }
    for r in &module.relocs {
        let (Some(&at), Some(&to)) = (globals.get(r.global.index()), globals.get(r.target.index()))
        else {
            continue;
        };
        let mut place = Ptr::decode(at);
        place.offset += u64::from(r.offset);
        let address = Ptr::decode(to).add(i64::from(r.addend)).encode();
        mem.init_bytes(place, &address.to_le_bytes())
            .map_err(|_| InterpError::Malformed {
                kernel: kernel.to_string(),
                work_item: [0; 3],
                message: format!("reloc at byte {} outside its variable", r.offset),
                loc: Loc::default(),
            })?;
    }
    mem.make_persistent();

    let result = run_groups(
        module,
        kernel,
        func,
        args,
        &range,
        &mut mem,
        globals,
        &buffer_regions,
        output,
        // A kernel that requires a sub-group size gets it.
        u64::from(
            func.kernel
                .as_ref()
                .and_then(|k| k.reqd_sub_group_size)
                .unwrap_or(opts.sub_group_size)
                .max(1),
        ),
    );

    for (arg, &region) in args.iter_mut().zip(&buffer_regions) {
        if let KernelArg::Buffer(bytes) | KernelArg::Image { pixels: bytes, .. } = arg {
            *bytes = mem.take(region);
        }
    }
    result
}

fn normalise(kernel: &str, range: &NdRange) -> Result<NdRange, InterpError> {
    let bad = |message: String| InterpError::BadRange {
        kernel: kernel.to_string(),
        message,
    };
    if !(1..=3).contains(&range.work_dim) {
        return Err(bad(format!("work_dim {} is not 1, 2 or 3", range.work_dim)));
    }
    let mut r = *range;
    for d in 0..3 {
        if d >= r.work_dim as usize {
            r.global_offset[d] = 0;
            r.global_size[d] = 1;
            r.local_size[d] = 1;
        } else if r.local_size[d] == 0 {
            return Err(bad(format!("local size of dimension {d} is 0")));
        }
    }
    let per_group: u64 = r.local_size.iter().product();
    if per_group > 1 << 20 {
        return Err(bad(format!("{per_group} work-items per group")));
    }
    Ok(r)
}

fn check_args(module: &Module, func: &Function, args: &[KernelArg]) -> Result<(), InterpError> {
    let mismatch = |index: usize, message: String| InterpError::ArgMismatch {
        kernel: func.name.clone(),
        index,
        message,
    };
    if args.len() != func.params.len() {
        return Err(mismatch(
            args.len().min(func.params.len()),
            format!(
                "the kernel takes {} arguments, {} given",
                func.params.len(),
                args.len()
            ),
        ));
    }
    for (i, (arg, param)) in args.iter().zip(&func.params).enumerate() {
        let value_type = if param.byval {
            param.ty.pointee().cloned()
        } else {
            Some(param.ty.clone())
        };
        match (arg, &param.ty) {
            (
                KernelArg::Buffer(_) | KernelArg::Null,
                Type::Pointer(AddressSpace::Global | AddressSpace::Constant, _),
            ) if !param.byval => {}
            (
                KernelArg::Alias { arg, .. },
                Type::Pointer(AddressSpace::Global | AddressSpace::Constant, _),
            ) if !param.byval => {
                if !matches!(args.get(*arg), Some(KernelArg::Buffer(_))) {
                    return Err(mismatch(
                        i,
                        format!("aliases argument {arg}, which is not a buffer"),
                    ));
                }
            }
            (KernelArg::Image { .. }, Type::Pointer(AddressSpace::Global, _)) if !param.byval => {}
            (KernelArg::Local(size), Type::Pointer(AddressSpace::Local, _)) if !param.byval => {
                if *size > MAX_LOCAL_ARG {
                    return Err(mismatch(
                        i,
                        format!("__local size {size} is over {MAX_LOCAL_ARG} bytes"),
                    ));
                }
            }
            (KernelArg::Value(bytes), _) if param.byval || !param.ty.is_pointer() => {
                let want = value_type.map_or(0, |t| module.size_of(&t)) as usize;
                if bytes.len() != want {
                    return Err(mismatch(
                        i,
                        format!("`{}` takes {want} bytes, {} given", param.name, bytes.len()),
                    ));
                }
            }
            _ => {
                return Err(mismatch(
                    i,
                    format!(
                        "{} given for parameter `{}` of type {:?}",
                        kind(arg),
                        param.name,
                        param.ty
                    ),
                ))
            }
        }
    }
    Ok(())
}

fn kind(arg: &KernelArg) -> &'static str {
    match arg {
        KernelArg::Buffer(_) => "a buffer",
        KernelArg::Null => "a null buffer",
        KernelArg::Alias { .. } => "an alias of a buffer",
        KernelArg::Value(_) => "a value",
        KernelArg::Local(_) => "a local buffer size",
        KernelArg::Image { .. } => "an image",
    }
}

#[allow(clippy::too_many_arguments)]
fn run_groups(
    module: &Module,
    kernel: &str,
    func: &Function,
    args: &[KernelArg],
    range: &NdRange,
    mem: &mut Memory,
    mut globals: Vec<u64>,
    buffer_regions: &[usize],
    output: &mut Vec<u8>,
    sub_group_size: u64,
) -> Result<(), InterpError> {
    let num_groups = range.num_groups();
    let total: u64 = num_groups.iter().product();
    let limit = |message: &str| InterpError::Limit {
        kernel: kernel.to_string(),
        message: message.to_string(),
    };
    for g in 0..total {
        let group_id = [
            g % num_groups[0],
            g / num_groups[0] % num_groups[1],
            g / (num_groups[0] * num_groups[1]),
        ];
        let mut local_size = [1u64; 3];
        for d in 0..3 {
            local_size[d] =
                range.local_size[d].min(range.global_size[d] - group_id[d] * range.local_size[d]);
        }
        let mut items = Vec::new();
        for z in 0..local_size[2] {
            for y in 0..local_size[1] {
                for x in 0..local_size[0] {
                    let local = [x, y, z];
                    let global = std::array::from_fn(|d| {
                        range.global_offset[d] + group_id[d] * range.local_size[d] + local[d]
                    });
                    items.push(Item { global, local });
                }
            }
        }
        let n = items.len();

        mem.end_group();
        for (slot, global) in globals.iter_mut().zip(&module.globals) {
            if global.space == AddressSpace::Local {
                let region = Region {
                    space: AddressSpace::Local,
                    name: format!("local `{}`", global.name),
                    data: vec![UNINIT_BYTE; module.size_of(&global.ty) as usize],
                    writable: true,
                };
                *slot = mem
                    .alloc(region)
                    .ok_or_else(|| limit("too many memory objects"))?
                    .encode();
            }
        }
        // Parameter lanes for every item of the group.
        let mut params = Vec::with_capacity(args.len());
        for (i, (arg, param)) in args.iter().zip(&func.params).enumerate() {
            let lanes: Vec<u64> = match arg {
                KernelArg::Buffer(_) | KernelArg::Image { .. } => vec![
                    Ptr {
                        region: buffer_regions[i],
                        offset: 0
                    }
                    .encode();
                    n
                ],
                KernelArg::Null => vec![0; n],
                KernelArg::Alias { arg, offset } => {
                    let region = buffer_regions.get(*arg).copied().unwrap_or(0);
                    vec![Ptr { region, offset: 0 }.add(*offset as i64).encode(); n]
                }
                KernelArg::Local(size) => {
                    let region = Region {
                        space: AddressSpace::Local,
                        name: format!("local argument `{}`", param.name),
                        data: vec![UNINIT_BYTE; *size],
                        writable: true,
                    };
                    vec![
                        mem.alloc(region)
                            .ok_or_else(|| limit("too many memory objects"))?
                            .encode();
                        n
                    ]
                }
                KernelArg::Value(bytes) if param.byval => {
                    // Each work-item gets its own private copy.
                    let mut ptrs = Vec::with_capacity(n);
                    for _ in 0..n {
                        let region = Region {
                            space: AddressSpace::Private,
                            name: format!("by-value argument `{}`", param.name),
                            data: bytes.clone(),
                            writable: true,
                        };
                        ptrs.push(
                            mem.alloc(region)
                                .ok_or_else(|| limit("too many memory objects"))?
                                .encode(),
                        );
                    }
                    ptrs
                }
                KernelArg::Value(bytes) => {
                    let one = memory::decode(&param.ty, bytes);
                    (0..n).flat_map(|_| one.iter().copied()).collect()
                }
            };
            params.push(lanes);
        }

        let mut group = Group {
            module,
            kernel,
            range,
            mem,
            globals: globals.clone(),
            group_id,
            local_size,
            num_groups,
            items,
            exited: vec![false; n],
            depth: 0,
            output: &mut *output,
            sub_group_size,
        };
        group.call(func, params, &vec![true; n])?;
    }
    mem.end_group();
    Ok(())
}

//! Every builtin (`vecl_ir::Builtin::ALL`) compiles through the JIT: the
//! ones of the front end's overload table for scalar and vector float,
//! double and integer types, the rest from kernels that call them (vector
//! loads and stores of every width and rounding, images, `printf`, the
//! address-space casts, …). The builtins each kernel calls are read from
//! its IR, and the test fails for a builtin that no kernel reached and
//! that is not exempt below with its reason: a new builtin needs a kernel
//! here. Conversions with every rounding mode and async copies have their
//! own tests.

mod math_support;

use math_support::*;
use std::collections::BTreeSet;
use vecl_ir::{Builtin, Inst};

struct Family {
    /// The float/int/generic type bound by F, I and G.
    t: &'static str,
    scalar: &'static str,
    lanes: u32,
}

fn vec_of(scalar: &str, lanes: u32) -> String {
    if lanes == 1 {
        scalar.to_string()
    } else {
        format!("{scalar}{lanes}")
    }
}

/// The OpenCL type a signature letter stands for under a family.
fn letter_type(l: char, f: &Family) -> String {
    let unsigned = |s: &str| match s {
        "float" => "uint".to_string(),
        "double" => "ulong".to_string(),
        s if s.starts_with('u') => s.to_string(),
        s => format!("u{s}"),
    };
    match l {
        'F' | 'I' | 'G' => f.t.to_string(),
        'f' | 'i' | 'g' => f.scalar.to_string(),
        'U' => vec_of(&unsigned(f.scalar), f.lanes),
        'K' => vec_of("int", f.lanes),
        'k' => "int".to_string(),
        'u' => "uint".to_string(),
        'S' => "size_t".to_string(),
        'Q' => "uint4".to_string(),
        'N' => vec_of(&unsigned(f.scalar), f.lanes),
        'L' if f.lanes == 1 => "int".to_string(),
        'L' => vec_of(if f.scalar == "double" { "long" } else { "int" }, f.lanes),
        _ => "int".to_string(),
    }
}

/// A kernel calling `name` with signature `sig` under family `f`.
fn kernel_for(name: &str, sig: &str, f: &Family) -> Option<String> {
    let (ret, params) = sig.split_once(':')?;
    let rt = letter_type(ret.chars().next()?, f);
    let mut decls = String::new();
    let mut args = Vec::new();
    for (i, p) in params.split(',').filter(|p| !p.is_empty()).enumerate() {
        let (ptr, l) = match p.strip_prefix('*') {
            Some(r) => (true, r.chars().next()?),
            None => (false, p.chars().next()?),
        };
        let t = letter_type(l, f);
        decls.push_str(&format!("{t} a{i} = *(global {t}*)(in + {});\n", 16 * i));
        args.push(if ptr {
            format!("&a{i}")
        } else {
            format!("a{i}")
        });
    }
    Some(format!(
        "kernel void k(global const char* in, global char* out) {{\n{decls}{rt} r = {name}({});\n*(global {rt}*)out = r;\n}}",
        args.join(", ")
    ))
}

fn compiles(src: &str) -> Result<(), String> {
    compiles_with(src, "", &mut BTreeSet::new())
}

/// Builds `src` with `options` and compiles its kernel `k`; adds the
/// builtins its IR calls to `reached`.
fn compiles_with(src: &str, options: &str, reached: &mut BTreeSet<Builtin>) -> Result<(), String> {
    let src = format!("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n{src}");
    let m = vecl_clc::build(&src, options)
        .map_err(|e| format!("front end: {e}"))?
        .module;
    let opts = vecl_jit::JitOptions {
        simd_width: Some(8),
        ..vecl_jit::JitOptions::default()
    };
    vecl_jit::compile_kernel(&m, "k", &opts).map_err(|e| e.to_string())?;
    for f in &m.functions {
        for d in &f.insts {
            if let Inst::Builtin(b, _) = d.inst {
                reached.insert(b);
            }
        }
    }
    Ok(())
}

/// A kernel calling vector load or store `b` (`None` for other builtins).
fn vector_data_kernel(b: Builtin) -> Option<String> {
    let v = b.vector_data()?;
    let t = vec_of("float", u32::from(v.n));
    let name = b.name();
    let mem = if v.half { "half" } else { "float" };
    let data = if v.n == 1 {
        "a[i]".to_string()
    } else {
        format!("vload{}(i, a)", v.n)
    };
    Some(if v.load {
        format!("kernel void k(global const {mem}* p, global {t}* o) {{ size_t i = get_global_id(0); o[i] = {name}(i, p); }}")
    } else {
        format!("kernel void k(global const float* a, global {mem}* p) {{ size_t i = get_global_id(0); {name}({data}, i, p); }}")
    })
}

/// Kernels for the builtins the front end types itself: (source, options).
fn special_kernels() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Builtin::ALL
        .iter()
        .filter_map(|b| vector_data_kernel(*b))
        .map(|s| (s, ""))
        .collect();
    let fixed: [(&str, &str); 7] = [
        ("kernel void k(global uint8* m, global float4* a, global float8* r) { size_t i = get_global_id(0); r[i] = shuffle2(a[i], a[i + 1], m[i]) + shuffle(a[i], m[i]); }", ""),
        ("kernel void k(global short* h, global ushort* l, global int* r) { size_t i = get_global_id(0); r[i] = upsample(h[i], l[i]); }", ""),
        ("kernel void k(global float* a, global int* c, global float* r) { size_t i = get_global_id(0); r[i] = select(a[i], a[i + 1], c[i]) + a[i] * a[i + 1] + r[i]; }", ""),
        ("kernel void k(global float* g, local float* l) { event_t e = async_work_group_copy(l, g, 64, 0); wait_group_events(1, &e); e = async_work_group_strided_copy(g, l, 16, 4, 0); wait_group_events(1, &e); prefetch(g, 16); }", ""),
        ("kernel void k(global int* a) { printf(\"%d %f\\n\", a[get_global_id(0)], 1.5f); }", ""),
        ("kernel void k(global int* g, local int* l) { int* p = g + get_global_id(0); private int x = 1; int* q = &x; int* r = l; global int* pg = to_global(p); local int* pl = to_local(r); private int* pp = to_private(q); *pg = (pl != 0) + (pp != 0) + (int)get_fence(p); }", "-cl-std=CL2.0"),
        ("kernel void k(read_only image2d_t a, write_only image2d_t b, read_only image3d_t c, read_only image2d_array_t d, sampler_t s, global int* o) {
            int2 p = (int2)((int)get_global_id(0), 0);
            float4 f = read_imagef(a, s, p);
            int4 x = read_imagei(a, s, p);
            uint4 u = read_imageui(a, p);
            write_imagef(b, p, f);
            write_imagei(b, p, x);
            write_imageui(b, p, u);
            int2 dim = get_image_dim(a);
            o[0] = get_image_width(a) + get_image_height(a) + get_image_depth(c) + (int)get_image_array_size(d) + get_image_channel_data_type(a) + get_image_channel_order(a) + dim.x;
        }", ""),
    ];
    out.extend(fixed.iter().map(|(s, o)| (s.to_string(), *o)));
    out
}

/// Builtins no kernel here reaches, and why.
fn exempt(b: Builtin) -> Option<&'static str> {
    match b {
        // Made by the JIT's collective lowering from every work-group
        // collective, which the table kernels call.
        Builtin::WorkGroupCombine => Some("created inside the JIT"),
        // Its `F` comes only from the result; builtins_misc.rs runs it
        // from IR.
        Builtin::Nan => Some("not resolvable from OpenCL C"),
        _ => None,
    }
}

#[test]
fn every_builtin_compiles() {
    let floats = [
        Family {
            t: "float",
            scalar: "float",
            lanes: 1,
        },
        Family {
            t: "float4",
            scalar: "float",
            lanes: 4,
        },
        Family {
            t: "double",
            scalar: "double",
            lanes: 1,
        },
        Family {
            t: "double2",
            scalar: "double",
            lanes: 2,
        },
    ];
    let ints = [
        Family {
            t: "char",
            scalar: "char",
            lanes: 1,
        },
        Family {
            t: "ushort4",
            scalar: "ushort",
            lanes: 4,
        },
        Family {
            t: "int",
            scalar: "int",
            lanes: 1,
        },
        Family {
            t: "uint4",
            scalar: "uint",
            lanes: 4,
        },
        Family {
            t: "long",
            scalar: "long",
            lanes: 1,
        },
        Family {
            t: "ulong2",
            scalar: "ulong",
            lanes: 2,
        },
    ];
    let mut failures = Vec::new();
    let mut reached = BTreeSet::new();
    let mut count = 0;
    for &b in Builtin::ALL {
        let name = b.name();
        if exempt(b).is_some() {
            continue;
        }
        for sig in vecl_clc::builtins::signatures(b) {
            {
                let fams: &[Family] = if sig.contains('F') || sig.contains('f') {
                    &floats
                } else if sig.contains('G') || sig.contains('I') {
                    &ints
                } else {
                    &floats[..1]
                };
                // The collectives take scalars of 32 and 64 bits.
                let group = matches!(
                    b,
                    vecl_ir::work_group_builtins!() | vecl_ir::sub_group_builtins!()
                );
                for f in fams {
                    if group && (f.lanes != 1 || matches!(f.scalar, "char")) {
                        continue;
                    }
                    // Geometric functions take at most 4 components; cross 3 or 4.
                    if b == Builtin::Cross && f.lanes != 4 {
                        continue;
                    }
                    let Some(src) = kernel_for(name, sig, f) else {
                        continue;
                    };
                    count += 1;
                    if let Err(e) = compiles_with(&src, "", &mut reached) {
                        failures.push(format!("{name} [{sig}] for {}: {e}", f.t));
                    }
                }
            }
        }
    }
    for (src, options) in special_kernels() {
        count += 1;
        if let Err(e) = compiles_with(&src, options, &mut reached) {
            failures.push(format!("{e}\n  {src}"));
        }
    }
    println!("{count} builtin instances compiled");
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let missed: Vec<&str> = Builtin::ALL
        .iter()
        .filter(|b| !reached.contains(b) && exempt(**b).is_none())
        .map(|b| b.name())
        .collect();
    assert!(missed.is_empty(), "no kernel calls {missed:?}");
    let exempt_reached: Vec<&str> = Builtin::ALL
        .iter()
        .filter(|b| reached.contains(b) && exempt(**b).is_some())
        .map(|b| b.name())
        .collect();
    assert!(
        exempt_reached.is_empty(),
        "{exempt_reached:?} are reached: no longer exempt"
    );
}

#[test]
fn specially_typed_builtins_compile() {
    let mut srcs = Vec::new();
    for mode in ["", "_rte", "_rtz", "_rtp", "_rtn"] {
        for (from, to) in [
            ("int", "float"),
            ("ulong", "float"),
            ("long", "double"),
            ("double", "float"),
            ("float", "int"),
            ("double", "ulong"),
            ("float", "uchar"),
        ] {
            let sat = if to.contains("int") || to.contains("long") || to.contains("char") {
                "_sat"
            } else {
                ""
            };
            srcs.push(format!("kernel void k(global {from}4* a, global {to}4* b) {{ size_t i = get_global_id(0); b[i] = convert_{to}4{sat}{mode}(a[i]); }}"));
        }
        srcs.push(format!("kernel void k(global float* a, global half* h) {{ size_t i = get_global_id(0); vstore_half4{mode}(vload4(i, a), i, h); vstorea_half3{mode}(vload3(i, a), i, h); vstore_half{mode}(a[i], i, h); }}"));
        srcs.push(format!("kernel void k(global double* a, global half* h) {{ size_t i = get_global_id(0); vstore_half2{mode}(vload2(i, a), i, h); }}"));
    }
    srcs.push("kernel void k(global half* h, global float* a) { size_t i = get_global_id(0); vstore4(vload_half4(i, h) + vloada_half4(i, h), i, a); a[i] += vload_half(i, h); }".to_string());
    srcs.push("kernel void k(global uint8* m, global float4* a, global float8* r) { size_t i = get_global_id(0); r[i] = shuffle2(a[i], a[i + 1], m[i]) + shuffle(a[i], m[i]); }".to_string());
    srcs.push("kernel void k(global short* h, global ushort* l, global int* r) { size_t i = get_global_id(0); r[i] = upsample(h[i], l[i]); }".to_string());
    srcs.push("kernel void k(global float* g, local float* l) { event_t e = async_work_group_copy(l, g, 64, 0); wait_group_events(1, &e); e = async_work_group_strided_copy(g, l, 16, 4, 0); wait_group_events(1, &e); prefetch(g, 16); }".to_string());
    let mut failures = Vec::new();
    for s in &srcs {
        if let Err(e) = compiles(s) {
            failures.push(format!("{e}\n  {s}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn async_copies_move_the_data() {
    let src = "kernel void k(global const float* g, global float* out, local float* l) {
        size_t i = get_local_id(0);
        event_t e = async_work_group_copy(l, g + get_group_id(0) * 64, 64, 0);
        wait_group_events(1, &e);
        out[get_global_id(0)] = l[63 - i];
        barrier(CLK_LOCAL_MEM_FENCE);
        e = async_work_group_strided_copy(out + get_group_id(0) * 64, l, 16, 4, 0);
        wait_group_events(1, &e);
    }";
    let k = kernel(src);
    let n = 256usize;
    let g: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut gb = bytes_of(&g, f32::to_le_bytes);
    let mut ob = vec![0u8; n * 4 + 64];
    let mut args = [Arg::Buf(&mut gb), Arg::Buf(&mut ob), Arg::Local(64 * 4)];
    let mut launch = vecl_jit::abi::Launch::new(1, [0; 3], [n as u64, 1, 1], [64, 1, 1]);
    run(&k, &mut args, &mut launch);
    let out = f32_from(&ob[..n * 4]);
    for grp in 0..n / 64 {
        for i in 0..64 {
            let want = if i % 4 == 0 {
                // Overwritten by the strided copy back: element i/4 of l.
                (grp * 64 + i / 4) as f32
            } else {
                (grp * 64 + 63 - i) as f32
            };
            assert_eq!(out[grp * 64 + i], want, "group {grp} item {i}");
        }
    }
}

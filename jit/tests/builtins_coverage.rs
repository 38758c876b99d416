//! Every builtin of the front end's overload table (`clc/src/builtins.rs`,
//! read as text so new entries are picked up) compiles through the JIT for
//! scalar and vector float, double and integer types, along with the
//! specially typed ones (`vload_half`, `shuffle`, `upsample`, conversions
//! with every rounding mode, async copies). Only the work-group and
//! sub-group collectives are expected to be rejected (see docs/builtins.md).

mod math_support;

use math_support::*;

const TABLE_SRC: &str = include_str!("../../clc/src/builtins.rs");

/// (names, signatures) of the table.
fn table() -> Vec<(Vec<String>, Vec<String>)> {
    let start = TABLE_SRC.find("const TABLE").unwrap_or(0);
    let start = TABLE_SRC[start..]
        .find("= &[")
        .map_or(start, |s| start + s + 4);
    let end = TABLE_SRC[start..]
        .find("\n];")
        .map_or(TABLE_SRC.len(), |e| start + e);
    let body = &TABLE_SRC[start..end];
    let mut out = Vec::new();
    // Each entry is `("names", &["sig", …])`, possibly over several lines.
    for entry in body.split("),").filter(|e| e.contains("&[")) {
        let quoted: Vec<&str> = entry.split('"').skip(1).step_by(2).collect();
        let joined: String = entry.split("&[").next().unwrap_or("").to_string();
        let names: Vec<String> = joined
            .split('"')
            .skip(1)
            .step_by(2)
            .flat_map(|s| s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .filter(|s| s != "\\")
            .collect();
        let sigs: Vec<String> = quoted
            .iter()
            .filter(|q| q.contains(':'))
            .map(|s| s.to_string())
            .collect();
        out.push((names, sigs));
    }
    out
}

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
    let src = format!("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n{src}");
    let m = vecl_clc::build(&src, "")
        .map_err(|e| format!("front end: {e}"))?
        .module;
    let opts = vecl_jit::JitOptions {
        simd_width: Some(8),
        ..vecl_jit::JitOptions::default()
    };
    vecl_jit::compile_kernel(&m, "k", &opts)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn every_table_builtin_compiles() {
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
    let mut count = 0;
    for (names, sigs) in table() {
        for name in names {
            // `nan` is not resolvable from OpenCL C yet (its F comes only
            // from the result); builtins_misc.rs runs it from IR.
            if name.starts_with("work_group_") || name.contains("sub_group") || name == "nan" {
                continue;
            }
            for sig in &sigs {
                let fams: &[Family] = if sig.contains('F') || sig.contains('f') {
                    &floats
                } else if sig.contains('G') || sig.contains('I') {
                    &ints
                } else {
                    &floats[..1]
                };
                for f in fams {
                    // Geometric functions take at most 4 components; cross 3 or 4.
                    if matches!(name.as_str(), "cross") && f.lanes != 4 {
                        continue;
                    }
                    let Some(src) = kernel_for(&name, sig, f) else {
                        continue;
                    };
                    count += 1;
                    if let Err(e) = compiles(&src) {
                        failures.push(format!("{name} [{sig}] for {}: {e}", f.t));
                    }
                }
            }
        }
    }
    println!("{count} builtin instances compiled");
    assert!(count > 400, "the table was not read ({count})");
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
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

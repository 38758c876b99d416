//! The public API's contract: options, logs, kernel metadata, globals,
//! includes and predefined macros.

use vecl_clc::{build, build_with_headers, BuildError};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::{AccessQualifier, AddressSpace, Scalar, Type};

fn log_of(r: Result<vecl_clc::Build, BuildError>) -> String {
    match r {
        Err(BuildError::Failed { log }) => log,
        other => panic!("expected a failed build, got {other:?}"),
    }
}

/// Builds a one-output kernel `k(global int *out)` and returns `out[0..n]` after one work-item.
fn run_ints(src: &str, options: &str, n: usize) -> Vec<i32> {
    let built = build(src, options).unwrap_or_else(|e| panic!("{e}"));
    vecl_ir::verify::verify_module(&built.module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    let mut args = [KernelArg::Buffer(vec![0; 4 * n])];
    run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    let KernelArg::Buffer(b) = &args[0] else {
        unreachable!()
    };
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn several_errors_are_reported_in_one_build() {
    let log = log_of(build(
        "kernel void k(global int *a) {\n  a[0] = x;\n  a[1] = y;\n  int z = 1\n  a[2] = z;\n}\n",
        "",
    ));
    assert!(
        log.contains("<source>:2:10: error: use of undeclared identifier 'x'"),
        "{log}"
    );
    assert!(
        log.contains("<source>:3:10: error: use of undeclared identifier 'y'"),
        "{log}"
    );
    assert!(log.contains("<source>:4:12: error: expected ';'"), "{log}");
    assert!(log.contains("3 errors generated."), "{log}");
    // Source line and caret under the column.
    assert!(log.contains("  a[0] = x;\n         ^\n"), "{log}");
}

#[test]
fn unknown_options_are_invalid_options() {
    match build("kernel void k() {}", "-cl-mad-enable -cl-bogus") {
        Err(BuildError::InvalidOptions(m)) => assert!(m.contains("-cl-bogus"), "{m}"),
        other => panic!("{other:?}"),
    }
    let all = "-D A=1 -DB -I /nonexistent -cl-std=CL1.2 -cl-opt-disable -cl-mad-enable -cl-no-signed-zeros \
               -cl-unsafe-math-optimizations -cl-finite-math-only -cl-fast-relaxed-math -cl-denorms-are-zero \
               -cl-single-precision-constant -cl-kernel-arg-info -w";
    assert!(build("kernel void k() {}", all).is_ok());
}

#[test]
fn warnings_go_to_the_log_and_werror_fails() {
    let src = "#warning check this\nkernel void k(global int *a) { a[0] = 1; }";
    let ok = build(src, "").expect("a warning is not an error");
    assert!(
        ok.log
            .contains("<source>:1:2: warning: #warning check this"),
        "{}",
        ok.log
    );
    assert!(build(src, "-w").expect("builds").log.is_empty());
    assert!(log_of(build(src, "-Werror")).contains("error: #warning check this"));
}

#[test]
fn fp16_pragmas_enable_and_disable_half_arithmetic_by_position() {
    // Enabled, disabled, enabled again: the first and last kernels build,
    // the middle one's operator is the error.
    let on = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable";
    let off = "#pragma OPENCL EXTENSION cl_khr_fp16 : disable";
    let k = |name: &str| format!("kernel void {name}(global half *p) {{ p[0] = p[1] + p[2]; }}\n");
    let both = format!("{on}\n{}{off}\n{on}\n{}", k("a"), k("b"));
    assert!(build(&both, "").is_ok(), "{}", log_of(build(&both, "")));
    let cut = format!("{on}\n{}{off}\n{}", k("a"), k("b"));
    let log = log_of(build(&cut, ""));
    assert!(log.contains("<source>:4:45: error:"), "{log}");
    assert_eq!(log.matches("error:").count(), 1, "{log}");
    // OpenCL C 3.0 has `half` without the pragma; `disable` takes it away.
    assert!(build(&k("a"), "-cl-std=CL3.0").is_ok());
    let log = log_of(build(&format!("{off}\n{}", k("a")), "-cl-std=CL3.0"));
    assert!(log.contains("<source>:2:45: error:"), "{log}");
}

#[test]
fn extension_pragmas_of_unknown_extensions_warn() {
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               #pragma OPENCL EXTENSION cl_vendor_magic : enable\n\
               #pragma OPENCL EXTENSION cl_khr_subgroups : disable\n\
               #pragma OPENCL EXTENSION cl_vendor_magic : disable\n\
               #pragma OPENCL EXTENSION cl_khr_fp16 : warn\n\
               #pragma OPENCL EXTENSION all : enable\n\
               kernel void k(global int *a) { a[0] = 1; }";
    let built = build(src, "").expect("warnings only");
    let warnings: Vec<&str> = built
        .log
        .lines()
        .filter(|l| l.contains("warning:"))
        .collect();
    assert_eq!(
        warnings,
        [
            "<source>:2:26: warning: unknown OpenCL extension 'cl_vendor_magic' - ignoring",
            "<source>:4:26: warning: unknown OpenCL extension 'cl_vendor_magic' - ignoring",
            "<source>:5:40: warning: expected 'enable' or 'disable' - ignoring pragma for 'cl_khr_fp16'",
        ],
        "{}",
        built.log
    );
}

#[test]
fn line_directive_renames_file_and_renumbers() {
    let log = log_of(build(
        "kernel void k(global int *a) {\n#line 100 \"kern.cl\"\n  a[0] = bad;\n}\n",
        "",
    ));
    assert!(
        log.contains("kern.cl:100:10: error: use of undeclared identifier 'bad'"),
        "{log}"
    );
}

#[test]
fn includes_find_supplied_headers_and_include_dirs() {
    let headers = [
        ("defs.h", "#define K 7\n#include \"more.h\"\n"),
        ("more.h", "int twice(int x) { return 2 * x; }\n"),
    ];
    let src = "#include \"defs.h\"\nkernel void k(global int *out) { out[0] = twice(K); }";
    let built = build_with_headers(src, "", &headers).unwrap_or_else(|e| panic!("{e}"));
    let mut args = [KernelArg::Buffer(vec![0; 4])];
    run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    assert_eq!(args[0], KernelArg::Buffer(14i32.to_le_bytes().to_vec()));

    let dir = std::env::temp_dir().join(format!("vecl-clc-inc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("val.h"), "#define VAL 21\n").unwrap();
    let out = run_ints(
        "#include <val.h>\nkernel void k(global int *out) { out[0] = VAL; }",
        &format!("-I {}", dir.display()),
        1,
    );
    assert_eq!(out, [21]);

    // A quoted include inside a header found on disk looks in that header's
    // own directory first (PyOpenCL's random123 headers rely on this).
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(dir.join("lib/outer.h"), "#include \"inner.h\"\n").unwrap();
    std::fs::write(dir.join("lib/inner.h"), "#define INNER 5\n").unwrap();
    let out = run_ints(
        "#include \"lib/outer.h\"\nkernel void k(global int *out) { out[0] = INNER; }",
        &format!("-I {}", dir.display()),
        1,
    );
    assert_eq!(out, [5]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn float_h_limits_and_huge_values_are_defined() {
    let src = "kernel void k(global int *out) {
        out[0] = DBL_DIG; out[1] = DBL_MANT_DIG; out[2] = DBL_MAX_EXP; out[3] = DBL_MIN_EXP;
        out[4] = isinf(HUGE_VAL); out[5] = isinf(HUGE_VALF); out[6] = FLT_MANT_DIG;
        out[7] = DBL_RADIX; out[8] = FLT_RADIX;
    }";
    assert_eq!(run_ints(src, "", 9), [15, 53, 1024, -1021, 1, 1, 24, 2, 2]);
}

#[test]
fn ilogb_limits_nan_of_unsigned_and_the_correctly_rounded_option() {
    let src = "kernel void k(global int *out) {
        out[0] = FP_ILOGB0 == ilogb(0.0f); out[1] = FP_ILOGBNAN == ilogb(NAN);
        uint4 bits = (uint4)(1, 2, 3, 4);
        out[2] = all(isnan(nan(bits))); out[3] = isnan(nan(7u)); out[4] = isnan(nan(7ul));
        out[5] = FP_ILOGB0 < 0;
    }";
    assert_eq!(
        run_ints(src, "-cl-fp32-correctly-rounded-divide-sqrt", 6),
        [1, 1, 1, 1, 1, 1]
    );
}

#[test]
fn predefined_macros_follow_the_options() {
    let src = "kernel void k(global int *out) {
        out[0] = __OPENCL_VERSION__; out[1] = __OPENCL_C_VERSION__; out[2] = CL_VERSION_1_2;
        out[3] = __ENDIAN_LITTLE__;
    #ifdef __FAST_RELAXED_MATH__
        out[4] = 1;
    #endif
    #if defined(cl_khr_global_int32_base_atomics) && defined(FP_FAST_FMAF)
        out[5] = 1;
    #endif
        out[6] = __LINE__;
    }";
    assert_eq!(run_ints(src, "", 7), [300, 120, 120, 1, 0, 1, 10]);
    assert_eq!(
        run_ints(src, "-cl-std=CL2.0 -cl-fast-relaxed-math", 7),
        [300, 200, 120, 1, 1, 1, 10]
    );
}

#[test]
fn single_precision_constant_makes_literals_float() {
    let src = "kernel void k(global int *out) { out[0] = sizeof(1.0); }";
    assert_eq!(run_ints(src, "", 1), [8]);
    assert_eq!(run_ints(src, "-cl-single-precision-constant", 1), [4]);
}

#[test]
fn kernel_arg_info_is_as_written() {
    let src = "typedef struct { int a; } S;
        __kernel __attribute__((reqd_work_group_size(8, 4, 1))) __attribute__((vec_type_hint(float4)))
        void k(__global const float *restrict a, __constant uint *b, __local float4 *c,
               unsigned int n, float4 v, S s, __global volatile int *d, read_only __global char *e) { }";
    let built = build(src, "").unwrap_or_else(|e| panic!("{e}"));
    let (_, f) = built.module.function_by_name("k").unwrap();
    let info = f.kernel.as_ref().unwrap();
    let names: Vec<&str> = info.args.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(
        names,
        ["float*", "uint*", "float4*", "uint", "float4", "S", "int*", "char*"]
    );
    let spaces: Vec<AddressSpace> = info.args.iter().map(|a| a.address).collect();
    use AddressSpace::*;
    assert_eq!(
        spaces,
        [Global, Constant, Local, Private, Private, Private, Global, Global]
    );
    assert!(info.args[0].qualifiers.is_const && info.args[0].qualifiers.is_restrict);
    assert!(
        info.args[1].qualifiers.is_const,
        "__constant pointees are const"
    );
    assert!(!info.args[3].qualifiers.is_const);
    assert!(info.args[6].qualifiers.is_volatile);
    assert_eq!(info.args[7].access, AccessQualifier::ReadOnly);
    assert_eq!(info.reqd_work_group_size, Some([8, 4, 1]));
    assert_eq!(info.vec_type_hint, Some(Type::vector(Scalar::F32, 4)));
    // The struct argument is passed by value as a private copy.
    assert!(f.params[5].byval);
}

#[test]
fn constant_data_and_local_variables_become_globals() {
    let src = "__constant int table[3] = {1, 2, 3};
        kernel void k(global int *out) { __local float tile[16]; tile[0] = 1.0f; out[0] = table[2]; }";
    let built = build(src, "").unwrap_or_else(|e| panic!("{e}"));
    let g = &built.module.globals;
    let t = g.iter().find(|g| g.name == "table").expect("table");
    assert_eq!(t.space, AddressSpace::Constant);
    assert_eq!(
        t.init.as_deref(),
        Some(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0][..])
    );
    let l = g.iter().find(|g| g.name == "k.tile").expect("k.tile");
    assert_eq!(
        (l.space, l.ty.clone(), l.init.clone()),
        (AddressSpace::Local, Type::array(Type::F32, 16), None)
    );
}

#[test]
fn printf_and_string_literals_lower_to_builtin_calls() {
    let built = build(
        "kernel void k(global int *a) { printf(\"%d\\n\", a[0]); }",
        "",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    vecl_ir::verify::verify_module(&built.module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    let (_, f) = built.module.function_by_name("k").unwrap();
    assert!(f.insts.iter().any(
        |i| matches!(&i.inst, vecl_ir::Inst::Builtin(vecl_ir::Builtin::Printf, args) if args.len() == 2)
    ));
    assert!(built
        .module
        .globals
        .iter()
        .any(|g| g.init.as_deref() == Some(b"%d\n\0")));
}

#[test]
fn work_group_functions_resolve_as_builtins() {
    let src = "kernel void k(global int *a) {
        int s = work_group_reduce_add(a[get_local_id(0)]);
        a[0] = s + work_group_broadcast(s, 0) + (int)get_sub_group_size() + work_group_all(s > 0);
    }";
    let built = build(src, "-cl-std=CL2.0").unwrap_or_else(|e| panic!("{e}"));
    vecl_ir::verify::verify_module(&built.module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    let (_, f) = built.module.function_by_name("k").unwrap();
    let called: Vec<(&str, Type)> = f
        .insts
        .iter()
        .filter_map(|i| match &i.inst {
            vecl_ir::Inst::Builtin(n, _) => Some((n.name(), i.ty.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        called,
        [
            ("work_group_reduce_add", Type::I32),
            ("work_group_broadcast", Type::I32),
            ("get_sub_group_size", Type::U32),
            ("work_group_all", Type::I32)
        ]
    );
}

#[test]
fn opencl_2_program_scope_globals_persist_across_items() {
    let src = "int counter = 5;\n__global float scale = 2.0f;\n
        kernel void k(global int *out) { out[0] = counter * (int)scale; counter = 1; }";
    assert!(
        build(src, "").is_err(),
        "OpenCL C 1.2 has no program-scope __global variables"
    );
    let built = build(src, "-cl-std=CL2.0").unwrap_or_else(|e| panic!("{e}"));
    let g: Vec<(&str, AddressSpace)> = built
        .module
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.space))
        .collect();
    assert_eq!(
        g,
        [
            ("counter", AddressSpace::Global),
            ("scale", AddressSpace::Global)
        ]
    );
    let mut args = [KernelArg::Buffer(vec![0; 4])];
    run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    assert_eq!(args[0], KernelArg::Buffer(10i32.to_le_bytes().to_vec()));
}

#[test]
fn swizzle_stores_to_memory_write_only_their_components() {
    // Two work-items write different components of the same float2.
    let src = "kernel void k(global float2 *v) { if (get_global_id(0) == 0) v[0].x = 1.0f; else v[0].y = 2.0f; }";
    let built = build(src, "").unwrap_or_else(|e| panic!("{e}"));
    let (_, f) = built.module.function_by_name("k").unwrap();
    assert!(
        !f.insts
            .iter()
            .any(|i| matches!(i.inst, vecl_ir::Inst::Load(_))),
        "no read-modify-write of the vector"
    );
    let mut args = [KernelArg::Buffer(vec![0; 8])];
    run_kernel(&built.module, "k", &mut args, &NdRange::linear(2, 2)).unwrap();
    let want: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    assert_eq!(args[0], KernelArg::Buffer(want));
}

#[test]
fn math_options_are_recorded_in_the_module() {
    let src = "kernel void k(global float *a) { a[0] = a[0] * a[1] + a[2]; }";
    let plain = vecl_clc::build(src, "").expect("builds").module;
    assert_eq!(plain.math, vecl_ir::MathFlags::default());
    let fast = vecl_clc::build(src, "-cl-fast-relaxed-math")
        .expect("builds")
        .module;
    assert!(fast.math.fast_relaxed_math && fast.math.finite_math_only);
    assert!(fast.math.unsafe_math && fast.math.mad_enable && fast.math.no_signed_zeros);
    assert!(!fast.math.denorms_are_zero);
    let some = vecl_clc::build(src, "-cl-denorms-are-zero -cl-mad-enable")
        .expect("builds")
        .module;
    assert!(some.math.denorms_are_zero && some.math.mad_enable);
    assert!(!some.math.finite_math_only && !some.math.no_signed_zeros);
    // The flags survive the IR text form.
    let text = vecl_ir::text::print_module(&some);
    assert!(
        text.starts_with("math mad_enable denorms_are_zero\n"),
        "{text}"
    );
    let back = vecl_ir::text::parse_module(&text).expect("parses");
    assert_eq!(back.math, some.math);
}

#[test]
fn anonymous_members_nest_and_take_designated_initialisers() {
    // S = { union { struct { int a, b; }; int arr[2]; }; int c; }: a and b
    // alias arr[0] and arr[1]; c follows the union.
    let src = "typedef struct { union { struct { int a, b; }; int arr[2]; }; int c; } S;
        kernel void k(global int *out) {
            S s = { .b = 2, .a = 1, .c = 7 };
            S t = { { { 3, 4 } }, 5 };
            out[0] = s.arr[0]; out[1] = s.arr[1]; out[2] = s.c;
            out[3] = t.a; out[4] = t.arr[1]; out[5] = t.c;
            out[6] = sizeof(S);
            out[7] = (int)((char *)&s.c - (char *)&s);
        }";
    assert_eq!(run_ints(src, "", 8), [1, 2, 7, 3, 4, 5, 12, 8]);
}

#[test]
fn pointers_to_const_are_reassignable_and_typedefs_redeclarable() {
    let src = "typedef int T;
        int first(const int *p, const int *end) { int s = 0; while (p < end) s += *p++; return s; }
        kernel void k(global int *out) {
            int a[3] = {1, 2, 3};
            const int *p = a;
            p += 1;
            { typedef short T; out[1] = sizeof(T); }
            out[0] = first(a, a + 3) * 10 + *p;
            out[2] = sizeof(T);
            out[3] = (int)(bool)(float)0.5f;
        }";
    assert_eq!(run_ints(src, "", 4), [62, 2, 4, 1]);
}

#[test]
fn only_null_pointer_constants_convert_implicitly_to_pointers() {
    // 0, NULL and (void *)0 in any address space; a struct's pointer member
    // keeps the address space written on it.
    let ok = "typedef struct { __local uint *l; __global int *g; } S;
        kernel void k(global int *out, local uint *scratch) {
            global int *a = 0; private int *b = NULL; global int *c = (void *)0;
            S s = { scratch, 0 };
            s.g = out;
            out[0] = (a == 0) + (b == NULL) + (c == 0) + (s.l == scratch);
            out[1] = *(global int *)((ulong)out + 4);
        }";
    build(ok, "").unwrap_or_else(|e| panic!("{e}"));
    for bad in [
        "kernel void k(global int *out) { global int *p = 1; out[0] = 0; }",
        "kernel void k(global int *out) { int one = 0; global int *p = one; out[0] = 0; }",
    ] {
        let err = build(bad, "").expect_err(bad).to_string();
        assert!(err.contains("integer to pointer"), "{bad}: {err}");
    }
}

#[test]
fn in_memory_headers_include_each_other_at_every_depth() {
    // clCompileProgram's headers: "inc/a.h" includes "b.h", found beside
    // it as "inc/b.h" (before the top-level "b.h"), which includes
    // "sub/c.h", found as "inc/sub/c.h".
    let headers = [
        ("inc/a.h", "#include \"b.h\"\n#define A (B + 1)\n"),
        ("inc/b.h", "#include \"sub/c.h\"\n#define B (C * 10)\n"),
        (
            "b.h",
            "#error the top-level b.h is not the one beside inc/a.h\n",
        ),
        ("inc/sub/c.h", "#define C 4\n"),
    ];
    let src = "#include \"inc/a.h\"\nkernel void k(global int *o) { o[0] = A; }";
    let built = build_with_headers(src, "", &headers).unwrap_or_else(|e| panic!("{e}"));
    let mut args = [KernelArg::Buffer(vec![0; 4])];
    run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    assert_eq!(args[0], KernelArg::Buffer(41i32.to_le_bytes().to_vec()));
}

#[test]
fn command_line_macros_behave_as_defines_at_the_top() {
    let src = r#"
        #define STR(x) S(x)
        constant char text[] = S(hello world) STR(N);
        kernel void k(global int *out) {
            int ab = 7;
            out[0] = F(a, b);          // pasting: the variable ab
            out[1] = sizeof(text);     // "hello world" "3": 11 + 1 + 1
            out[2] = text[11];
            out[3] = N * M;            // M = 1 when no value is given
            out[4] = SUM(1, 5);
        #ifdef CL_VERSION_1_0
            out[5] = -1;
        #else
            out[5] = SPACED;
        #endif
        }
    "#;
    let options = "-DF(a,b)=a##b -DS(x)=#x -D N=3 -DM \
                   -D'SUM(x,...)=x + __VA_ARGS__' -UCL_VERSION_1_0 -D\"SPACED=2 + 2\"";
    assert_eq!(run_ints(src, options, 6), [7, 13, i32::from(b'3'), 3, 6, 4]);
}

#[test]
fn options_clang_would_warn_about_are_warnings_in_the_log() {
    let src = "kernel void k(global int *out) { out[0] = 1; }";
    let built = build(src, "-DX -fbogus -Wshadow").expect("a warning only");
    assert!(
        built.log.contains(
            "<command line>:1:5: warning: argument unused during compilation: '-fbogus'\n\
             -DX -fbogus -Wshadow\n    ^\n"
        ),
        "{}",
        built.log
    );
    assert!(built
        .log
        .contains("<command line>:1:13: warning: unknown warning option '-Wshadow'"));
    assert!(build(src, "-fbogus -w").expect("quiet").log.is_empty());
    let log = log_of(build(src, "-fbogus -Werror"));
    assert!(
        log.contains("error: argument unused during compilation"),
        "{log}"
    );
}

#[test]
fn arrays_past_what_an_object_can_hold_are_errors() {
    // 2^30 ints are 4 GiB: the size would wrap in 32 bits.
    let src = "kernel void k(global int *o) { int big[1 << 30]; big[0] = 1; o[0] = big[0]; }";
    let err = build(src, "").expect_err("too large").to_string();
    assert!(
        err.contains("array of 4294967296 bytes is too large"),
        "{err}"
    );
}

#[test]
fn an_absolute_include_path_works_from_a_program_made_from_a_string() {
    let dir = std::env::temp_dir().join(format!("vecl-abs-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let header = dir.join("seven.h");
    std::fs::write(&header, "#define SEVEN 7\n").expect("header");
    let src = format!(
        "#include \"{}\"\nkernel void k(global int *o) {{ o[0] = SEVEN; }}",
        header.display()
    );
    let built = build(&src, "").unwrap_or_else(|e| panic!("{e}"));
    let mut args = [KernelArg::Buffer(vec![0; 4])];
    run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    assert_eq!(args[0], KernelArg::Buffer(7i32.to_le_bytes().to_vec()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn half_arithmetic_needs_cl_khr_fp16_or_opencl_c_3() {
    let body = "kernel void k(global half *p) { p[0] = p[1] * 3.0h + (half)1; }";
    let err = build(body, "").expect_err("no cl_khr_fp16").to_string();
    assert!(err.contains("cl_khr_fp16"), "{err}");
    let pragma = format!("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n{body}");
    for (src, options) in [(pragma.as_str(), ""), (body, "-cl-std=CL3.0")] {
        let built = build(src, options).unwrap_or_else(|e| panic!("{options}: {e}"));
        // p[1] = 2.5: 2.5 * 3 + 1 = 8.5 (0x4840).
        let mut args = [KernelArg::Buffer([0u8, 0, 0x00, 0x41].to_vec())];
        run_kernel(&built.module, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
        assert_eq!(
            args[0],
            KernelArg::Buffer([0x40u8, 0x48, 0x00, 0x41].to_vec())
        );
    }
    // Loads and stores of half data need nothing.
    assert!(build("kernel void k(global half *p, global float *f) { f[0] = vload_half(0, p); vstore_half(f[1], 1, p); }", "").is_ok());
}

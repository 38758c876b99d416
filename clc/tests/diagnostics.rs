//! The negative corpus: wrong programs must fail to build, without a panic,
//! with an error at the marked position (`@@` in the source, removed before
//! compiling) whose message contains the given fragment.

/// (source with `@@` at the error, message fragment, build options)
const CASES: &[(&str, &str, &str)] = &[
    ("kernel void k(global int *a) { int x = 1@@ a[0] = x; }", "expected ';'", ""),
    ("kernel void k(global int *a) { a[0] = @@y; }", "use of undeclared identifier 'y'", ""),
    ("kernel void k(global @@foo *a) { }", "unknown type name 'foo'", ""),
    ("kernel void k(global float4 *a, global int4 *b) { a[0] = a[0] @@+ b[0]; }", "cannot convert between vector values of different type ('float4' and 'int4')", ""),
    ("kernel void k(global float *a) { float2 v = (float2)(1.0f, 2.0f); a[0] = v@@.z; }", "vector component access exceeds type 'float2'", ""),
    ("kernel void k(global float *a) { float4 v = 0; a[0] = v@@.q; }", "illegal vector component name 'q'", ""),
    ("kernel void k(global float *a) { float8 v = 0; a[0] = v@@.s9; }", "exceeds type 'float8'", ""),
    ("kernel void k(global int *a) { L: a[0] = 1; @@L: a[1] = 2; goto L; }", "redefinition of label 'L'", ""),
    ("int f(int x) { return x > 0 ? @@f(x - 1) : 0; }\nkernel void k(global int *a) { a[0] = f(3); }", "recursive call of 'f'", ""),
    ("kernel void k(global int *a) { @@break; }", "'break' statement not in loop or switch", ""),
    ("kernel void k(global int *a) { switch (a[0]) { case 0: @@continue; } }", "'continue' statement not in loop", ""),
    ("void f(void) { return @@1; }\nkernel void k(global int *a) { f(); }", "void function 'f' should not return a value", ""),
    ("int f(void) { @@return; }\nkernel void k(global int *a) { a[0] = f(); }", "non-void function 'f' should return a value", ""),
    ("kernel int @@k(global int *a) { return 0; }", "must have a void return type", ""),
    ("kernel void k(@@int *p) { }", "pointer arguments to kernel functions must reside in", ""),
    ("kernel void k(global float *a) { a[0] = @@sqrt(1.0f, 2.0f); }", "no matching function for call to 'sqrt'", ""),
    ("kernel void k(global float *a) { a[0] = @@clz(1.0f); }", "no matching function for call to 'clz'", ""),
    ("kernel void k(global float *a) { a[0] = @@frobnicate(1.0f); }", "implicit declaration of function 'frobnicate'", ""),
    ("int add(int a, int b) { return a + b; }\nkernel void k(global int *a) { a[0] = @@add(1, 2, 3); }", "too many arguments to function call 'add'", ""),
    ("kernel void k(global int *a) { const int x = 1; x @@= 2; a[0] = x; }", "cannot assign to variable 'x' with const-qualified type", ""),
    ("kernel void k(constant int *p, global int *q) { p[0] @@= q[0]; }", "__constant address space", ""),
    ("kernel void k(global int *a) { local int @@t = 3; a[0] = t; }", "cannot have an initializer", ""),
    ("void f(global int *a) { local int @@t[4]; t[0] = 1; a[0] = t[0]; }\nkernel void k(global int *a) { f(a); }", "can only be declared at kernel function scope", ""),
    ("int @@g = 1;\nkernel void k(global int *a) { a[0] = g; }", "must be declared in the __constant address space", ""),
    ("constant int @@c;\nkernel void k(global int *a) { a[0] = c; }", "must be initialized", ""),
    ("#@@error boom here\nkernel void k(global int *a) { }", "#error boom here", ""),
    ("@@#if 1\nkernel void k(global int *a) { }", "unterminated conditional directive", ""),
    ("#@@else\nkernel void k(global int *a) { }", "#else without #if", ""),
    ("#@@frob\nkernel void k(global int *a) { }", "invalid preprocessing directive '#frob'", ""),
    ("#@@include \"missing.h\"\nkernel void k(global int *a) { }", "'missing.h' file not found", ""),
    ("#define TWO(a, b) a + b\nkernel void k(global int *a) { a[0] = @@TWO(1); }", "macro 'TWO' takes 2 arguments, 1 given", ""),
    ("kernel void k(global int *a) { } @@/* never closed", "unterminated /* comment", ""),
    ("kernel void k(global int *a) { a[0] = 1 @@$ 2; }", "invalid character '$'", ""),
    ("kernel void k(global half *p) { p[0] = p[1] @@+ p[2]; }", "need the cl_khr_fp16 extension", ""),
    ("kernel void k(global half *p, global float *f) { f[0] = @@convert_float(p[0]); }", "need the cl_khr_fp16 extension", ""),
    ("kernel void k(global int *a) { a[0] = @@12q; }", "invalid integer constant '12q'", ""),
    ("kernel void k(global int *a) { a[@@1.0f] = 1; }", "array subscript is not an integer", ""),
    ("kernel void k(global int *a) { int x = 0; a[0] = x@@[0]; }", "subscripted value is not an array, pointer, or vector", ""),
    ("kernel void k(global int *a) { int x = 0; a[0] = @@*x; }", "indirection requires pointer operand", ""),
    ("typedef struct { int a; } S;\nkernel void k(global int *a) { S s; s.a = 1; a[0] = s@@.nope; }", "no member named 'nope' in 'struct", ""),
    ("kernel void k(global int *a) { int x = 0; a[0] = x@@.y; }", "member reference base type 'int' is not a structure or union", ""),
    ("kernel void k(global int *a) { switch (a[0]) { case 1: break; @@case 1: break; } }", "duplicate case value '1'", ""),
    ("kernel void k(global int *a) { switch (a[0]) { default: break; @@default: break; } }", "multiple default labels", ""),
    ("kernel void k(global int *a) { @@case 3: a[0] = 1; }", "'case' or 'default' label not directly inside a switch", ""),
    ("kernel void k(global float4 *a) { a[0] = @@(float4)(1.0f, 2.0f, 3.0f); }", "vector literal of type 'float4' has 3 components, expected 4", ""),
    ("kernel void k(global int4 *a, float4 f) { a[0] = @@(int4)f; }", "invalid conversion between vector types 'float4' and 'int4'", ""),
    ("kernel void k(global int *a) { a[0] = @@as_int(1.0); }", "sizes of 'double' and 'int' must match", ""),
    ("kernel void k(global float *a) { a[0] = 1.0f @@% 2.0f; }", "invalid operands to binary expression ('float' and 'float')", ""),
    ("kernel void k(global int *a, int n) { int b[@@n]; b[0] = 1; a[0] = b[0]; }", "not a constant expression", ""),
    ("void f(void) { }\nvoid @@f(void) { }\nkernel void k(global int *a) { f(); }", "redefinition of 'f'", ""),
    ("int f(int);\nfloat @@f(int x) { return 1.0f; }\nkernel void k(global float *a) { a[0] = f(1); }", "conflicting types for 'f'", ""),
    ("kernel void k(global int *a) { int x = 0; (x @@+ 1)++; a[0] = x; }", "expression is not assignable", ""),
    ("kernel void k(global int *a, float4 x, int4 y) { int4 m = x @@< y; a[0] = m.x; }", "cannot convert between vector values of different type", ""),
    ("kernel void k(@@bool b, global int *a) { a[0] = b; }", "'bool' cannot be used as the type of a kernel parameter", ""),
    ("kernel void k(global float *a) { atomic_add(@@a, 1.0f); }", "no matching function for call to 'atomic_add'", ""),
    ("kernel void k(global int *a, int f) { barrier(@@f); }", "not a constant expression", ""),
    ("kernel void k(global int *a, float f) { switch (@@f) { default: a[0] = 1; } }", "statement requires expression of integer type ('float' invalid)", ""),
    ("kernel void k(global int *p, local int *q) { p @@= q; }", "changes address space of pointer", ""),
    ("kernel void k(global int *a) { void @@v; }", "variable 'v' has incomplete type 'void'", ""),
    ("kernel void k(global int *a) { a[0] = 1;@@ ", "expected '}' at end of input", ""),
    ("kernel void k(global int4 *a) { a[0] = @@convert_int4(1.0f); }", "no matching function for call to 'convert_int4'", ""),
    ("#@@warning careful\nkernel void k(global int *a) { }", "#warning careful", "-Werror"),
    ("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\nkernel void a(global half *p) { p[0] = p[1] + p[2]; }\n#pragma OPENCL EXTENSION cl_khr_fp16 : disable\nkernel void k(global half *p) { p[0] = p[1] @@+ p[2]; }", "disabled here by '#pragma OPENCL EXTENSION cl_khr_fp16 : disable'", ""),
    ("#pragma OPENCL EXTENSION all : disable\nkernel void k(global half *p) { p[0] = p[1] @@* p[2]; }", "need the cl_khr_fp16 extension", "-cl-std=CL3.0"),
    ("kernel void k(global half *p) { p[0] = p[1] @@- p[2]; }\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable", "not yet enabled", ""),
    ("#pragma OPENCL EXTENSION @@cl_vendor_magic : enable\nkernel void k(global int *a) { }", "unknown OpenCL extension 'cl_vendor_magic' - ignoring", "-Werror"),
    ("#pragma OPENCL EXTENSION cl_khr_fp64 : @@require\nkernel void k(global int *a) { }", "expected 'enable' or 'disable'", "-Werror"),
    ("kernel void k(global int *a) { int (*@@fp)(int); }", "function pointers are not supported", ""),
    ("struct S { @@int a : 3; };\nkernel void k(global int *a) { }", "bit-fields are not supported", ""),
    ("kernel void k(global int *a) { global int *p = a; p @@= 5; }", "incompatible integer to pointer conversion", ""),
    ("kernel void k(global int *a) { a[0] = (1 + @@; }", "expected expression before ';'", ""),
    ("kernel void k(global int *a) { if (a[0]) { a[0] = 1; } else @@}", "expected expression before '}'", ""),
    ("kernel void k(global int *a) { float4 v = 0; if (@@v) a[0] = 1; }", "statement requires expression of scalar type ('float4' invalid)", ""),
    ("kernel void k(global int *a) { a[0] = @@sizeof(void); }", "invalid application of 'sizeof' to type 'void'", ""),
    ("kernel void k(global float *a) { a[0] = vload4(0, @@1.0f).x; }", "no matching function for call to 'vload4'", ""),
    ("kernel void k(global int *a) { float4 v = 0; v.xx @@= (float2)(1.0f, 2.0f); }", "duplicate components", ""),
    ("kernel void k(global int *a, int x) { atomic_fetch_add(@@x, 1); }", "is not a pointer to an atomic object", "-cl-std=CL2.0"),
    ("typedef struct { int a; } A;\ntypedef struct { int b; } B;\nA f(B b) { return @@b; }\nkernel void k(global int *o) { B b; b.b = 1; o[0] = f(b).a; }", "returning 'struct", ""),
    ("global int @@g;\nkernel void k(global int *a) { a[0] = g; }", "must be declared in the __constant address space", ""),
    ("kernel void k(global int *a) { a[0] = @@work_group_reduce_add(a[0], 1); }", "no matching function for call to 'work_group_reduce_add'", "-cl-std=CL2.0"),
    ("kernel void k(global int *a) { a[0] = 1; }\nkernel void @@main(global int *a) { }", "kernel cannot be called 'main'", ""),
    ("#define F(x) x\nkernel void k(global int *a) { a[0] = @@F(1; }", "unterminated call of macro 'F'", ""),
    ("int g(int);\nkernel void k(global int *a) { a[0] = @@g(1); }", "function 'g' is declared but never defined", ""),
    ("kernel void k(global int *a) { a[0] = 1; }\nkernel void @@k(global int *b) { }", "redefinition of 'k'", ""),
    ("typedef union { struct { float x, y; }; struct { float re, im; }; } C;\nkernel void k(global float *a) { C c; c.x = 1.0f; a[0] = c@@.z; }", "no member named 'z'", ""),
    ("struct S { struct { int a; }; int @@a; };\nkernel void k(global int *o) { }", "duplicate member 'a'", ""),
    ("struct S { @@int; int b; };\nkernel void k(global int *o) { }", "declaration does not declare anything", ""),
    ("typedef union { struct { float x, y; }; } C;\nkernel void k(global float *a) { C c = { .@@w = 1.0f }; a[0] = c.x; }", "field designator 'w' does not refer to any field", ""),
    ("struct S { int a; @@unsigned b : 4; };\nkernel void k(global int *o) { }", "bit-fields are not supported", ""),
    ("kernel void k(global int *a) { int i = 0; again: a[i] = i; if (++i < 4) goto @@agian; }", "use of undeclared label 'agian'", ""),
    ("kernel void k(global int *a) { int i = 0; if (a[0]) goto inside; while (i < 4) { i++; @@inside: a[i] = i; } }", "irreducible control flow through label 'inside'", ""),
    ("kernel void k(global int *a) { a[0] = ({ int x = 1; if (x) goto @@L; x; }); L: a[1] = 0; }", "'goto' inside a statement expression is not supported", ""),
    ("kernel void k(global int *a) { if (a[0]) goto L; a[0] = ({ int x = 1; @@L: x; }); }", "a label inside a statement expression is not supported", ""),
    ("kernel void k(global int *const out) { out[0] = 1; out @@= 0; }", "cannot assign to variable 'out' with const-qualified type", ""),
    // Images and samplers.
    ("kernel void k(image2d_t img, image2d_t other) { img = @@other; }", "image types cannot be assigned", ""),
    ("kernel void k(image2d_t a, image2d_t b, global int *o) { o[0] = a @@== b; }", "image types cannot be compared", ""),
    ("kernel void k(image2d_t a, global uchar *o) { o[0] = a@@[0]; }", "image types cannot be dereferenced", ""),
    ("kernel void k(image2d_t a, global ulong *o) { o[0] = (ulong)&@@a; }", "cannot take the address of image 'a'", ""),
    ("kernel void k(global image2d_t *@@p) { }", "pointer to type 'image2d_t' is invalid", ""),
    ("struct S { image3d_t @@i; };\nkernel void k(global int *o) { }", "cannot be used to declare a structure or union field", ""),
    ("kernel void k(image2d_t a, sampler_t s, global float4 *o) { o[0] = read_imagef(a, s, @@1.0f); }", "the coordinate must be 'int2' or 'float2', not 'float'", ""),
    ("kernel void k(image2d_t a, global float4 *o) { o[0] = read_imagef(a, @@(float2)(0.5f)); }", "the coordinate must be 'int2', not 'float2'", ""),
    ("kernel void k(global float4 *o) { o[0] = read_imagef(@@o, 0, (int2)(0)); }", "the first argument must be an image", ""),
    ("kernel void k(image2d_t a, global int *o) { o[0] = get_image_depth(@@a); }", "no matching function for call to 'get_image_depth' with 'image2d_t'", ""),
    ("kernel void k(write_only image2d_t a) { write_imagef(a, (int2)(0), @@(int4)(0)); }", "the colour must be 'float4', not 'int4'", ""),
    ("kernel void k(image1d_buffer_t a, sampler_t s, global float4 *o) { o[0] = read_imagef(a, @@s, 0); }", "read without a sampler", ""),
    ("kernel void k(image2d_t a, global float4 *o) { o[0] = read_imagef(a, @@o, (float2)(0)); }", "must be a 'sampler_t'", ""),
    ("kernel void k(global int *o) { @@queue_t q; }", "not supported by vecl", ""),
    ("kernel void k(write_only image2d_t a, global float4 *o) { o[0] = read_imagef(@@a, (int2)(0)); }", "a write_only 'image2d_t' cannot be read", ""),
    ("kernel void k(image2d_t a) { write_imagef(@@a, (int2)(0), (float4)(0)); }", "a read_only 'image2d_t' cannot be written", ""),
    ("void f(write_only image2d_t a) { }\nkernel void k(read_only image2d_t a) { f(@@a); }", "passing 'image2d_t' where 'write_only image2d_t' is expected", ""),
    ("__attribute__((intel_reqd_sub_group_size(@@6))) kernel void k(global int *o) { o[0] = get_sub_group_size(); }", "sub-group size 6 is not available", ""),
    ("__attribute__((intel_reqd_sub_group_size(@@128))) kernel void k(global int *o) { }", "SIMD chunks of 4, 8, 12", ""),
];

fn locate(marked: &str) -> (String, u32, u32) {
    let at = marked
        .find("@@")
        .expect("every case marks its error with @@");
    let before = &marked[..at];
    let line = before.matches('\n').count() as u32 + 1;
    let col = (before.len() - before.rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
    (marked.replacen("@@", "", 1), line, col)
}

#[test]
fn wrong_programs_report_errors_at_the_right_place() {
    assert!(
        CASES.len() >= 50,
        "negative corpus has {} cases",
        CASES.len()
    );
    let mut failures = Vec::new();
    for (marked, fragment, options) in CASES {
        let (src, line, col) = locate(marked);
        let result = std::panic::catch_unwind(|| vecl_clc::build(&src, options));
        let log = match result {
            Err(_) => {
                failures.push(format!("PANIC on: {src}"));
                continue;
            }
            Ok(Ok(_)) => {
                failures.push(format!("built without error: {src}"));
                continue;
            }
            Ok(Err(vecl_clc::BuildError::Failed { log })) => log,
            Ok(Err(e)) => {
                failures.push(format!("unexpected error kind {e:?}: {src}"));
                continue;
            }
        };
        let want = format!("<source>:{line}:{col}: error: ");
        let first = log.lines().find(|l| l.contains(": error: ")).unwrap_or("");
        let hit = log
            .lines()
            .any(|l| l.starts_with(&want) && l.contains(fragment));
        if !hit {
            failures.push(format!("{src}\n  want {want}…{fragment}\n  got  {first}"));
        }
        // The log shows the source line and a caret under the column.
        if !log.contains('^') {
            failures.push(format!("no caret line in log for: {src}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

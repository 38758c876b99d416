//! Kernels end to end through the safe API: OpenCL C source → front end →
//! JIT → pool, checked against host-computed results.

use vecl::{BinaryType, CompiledObject, Context, Error, Program};
use vecl_ir::AddressSpace;

const VADD: &str = "
kernel void vadd(global const float* a, global const float* b, global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
";

const SCALE: &str = "
kernel void scale(global int* data, int factor) {
    size_t i = get_global_id(0);
    data[i] = data[i] * factor + (int)get_local_size(0) * 0;
}
";

const GROUP_SUM: &str = "
kernel void group_sum(global const int* in, global int* out, local int* tmp) {
    int lid = get_local_id(0);
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int s = 0;
        for (int k = 0; k < (int)get_local_size(0); k++) s += tmp[k];
        out[get_group_id(0)] = s;
    }
}
";

fn build(ctx: &Context, source: &str, options: &str) -> Program {
    ctx.program(source)
        .options(options)
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}"))
}

#[test]
fn vector_add_end_to_end() {
    let ctx = Context::new().expect("context");
    let program = build(&ctx, VADD, "");
    assert_eq!(program.kernel_names(), vec!["vadd".to_string()]);
    let kernel = program.kernel("vadd").expect("kernel");
    let queue = ctx.queue().expect("queue");
    for n in [1usize, 7, 64, 1000, 100_003] {
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
        let (ba, bb) = (
            ctx.buffer_from(&a).expect("a"),
            ctx.buffer_from(&b).expect("b"),
        );
        let bc = ctx.buffer::<f32>(n).expect("c");
        kernel.set_arg_buffer(0, &ba).expect("arg 0");
        kernel.set_arg_buffer(1, &bb).expect("arg 1");
        kernel.set_arg_buffer(2, &bc).expect("arg 2");
        queue.launch(&kernel).global(&[n]).run().expect("run");
        let c = queue.read_vec(&bc, &[]).expect("read");
        assert!((0..n).all(|i| c[i] == a[i] + b[i]), "n = {n}");
    }
}

#[test]
fn arguments_are_checked_when_set() {
    let ctx = Context::new().expect("context");
    let kernel = build(&ctx, SCALE, "").kernel("scale").expect("kernel");
    assert_eq!(kernel.num_args(), 2);
    assert!(matches!(
        kernel.set_arg(1, 3i64),
        Err(Error::InvalidArgSize(_))
    ));
    assert!(matches!(
        kernel.set_arg(0, 3i32),
        Err(Error::InvalidArgValue(_))
    ));
    assert!(matches!(
        kernel.set_arg(2, 3i32),
        Err(Error::InvalidArgIndex(2))
    ));
    let info = kernel.arg_info(0).expect("arg info");
    assert_eq!(info.name, "data");
    assert_eq!(info.address, AddressSpace::Global);
    assert!(info.type_name.starts_with("int"));
    let queue = ctx.queue().expect("queue");
    let missing = queue.launch(&kernel).global(&[16]).enqueue();
    assert!(matches!(missing, Err(Error::InvalidKernelArgs(_))));
    // A buffer's element must have the size of the parameter's.
    let bytes = ctx.buffer::<u8>(256).expect("bytes");
    let wrong = kernel.set_arg_buffer(0, &bytes);
    assert!(matches!(wrong, Err(Error::InvalidArgValue(_))), "{wrong:?}");
    assert_eq!(wrong.map_err(|e| e.cl_code()), Err(-50));
    assert!(!kernel.is_arg_set(0));
    let vectors = build(
        &ctx,
        "kernel void v(global float4* p, global void* any) { p[0] = (float4)(1.0f); }",
        "",
    )
    .kernel("v")
    .expect("kernel");
    let quads = ctx.buffer::<[f32; 4]>(4).expect("quads");
    vectors.set_arg_buffer(0, &quads).expect("float4 elements");
    let floats = ctx.buffer::<f32>(16).expect("floats");
    assert!(vectors.set_arg_buffer(0, &floats).is_err());
    vectors
        .set_arg_buffer(1, &bytes)
        .expect("void takes any buffer");
    let data = ctx
        .buffer_from(&(0..64).collect::<Vec<i32>>())
        .expect("buffer");
    kernel.set_arg_buffer(0, &data).expect("arg 0");
    kernel.set_arg(1, 3i32).expect("arg 1");
    queue
        .launch(&kernel)
        .global(&[64])
        .local(&[16])
        .run()
        .expect("run");
    assert_eq!(
        queue.read_vec(&data, &[]).expect("read"),
        (0..64).map(|i| 3 * i).collect::<Vec<i32>>()
    );
}

#[test]
fn local_arguments_and_barriers() {
    let ctx = Context::new().expect("context");
    let kernel = build(&ctx, GROUP_SUM, "")
        .kernel("group_sum")
        .expect("kernel");
    let queue = ctx.queue().expect("queue");
    let input: Vec<i32> = (0..4096).map(|i| i % 17).collect();
    let bin = ctx.buffer_from(&input).expect("in");
    let bout = ctx.buffer::<i32>(4096 / 64).expect("out");
    kernel.set_arg_buffer(0, &bin).expect("arg 0");
    kernel.set_arg_buffer(1, &bout).expect("arg 1");
    kernel.set_arg_local(2, 64 * 4).expect("arg 2");
    assert!(kernel.work_group_info().local_mem_size >= 256);
    queue
        .launch(&kernel)
        .global(&[4096])
        .local(&[64])
        .run()
        .expect("run");
    let out = queue.read_vec(&bout, &[]).expect("read");
    let want: Vec<i32> = input.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(out, want);
}

#[test]
fn work_group_rules_depend_on_the_language_version() {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    let data = ctx.buffer_from(&vec![1i32; 100]).expect("buffer");
    let cl12 = build(&ctx, SCALE, "").kernel("scale").expect("kernel");
    cl12.set_arg_buffer(0, &data).expect("arg");
    cl12.set_arg(1, 2i32).expect("arg");
    let uneven = queue.launch(&cl12).global(&[100]).local(&[16]).enqueue();
    assert_eq!(uneven.map_err(|e| e.cl_code()).err(), Some(-54));
    let too_big = queue.launch(&cl12).global(&[4096]).local(&[2048]).enqueue();
    assert_eq!(too_big.map_err(|e| e.cl_code()).err(), Some(-55));
    let cl20 = build(&ctx, SCALE, "-cl-std=CL2.0")
        .kernel("scale")
        .expect("kernel");
    cl20.set_arg_buffer(0, &data).expect("arg");
    cl20.set_arg(1, 2i32).expect("arg");
    queue
        .launch(&cl20)
        .global(&[100])
        .local(&[16])
        .run()
        .expect("non-uniform groups in OpenCL C 2.0");
    assert!(queue
        .read_vec(&data, &[])
        .expect("read")
        .iter()
        .all(|&v| v == 2));
}

#[test]
fn build_errors_carry_the_log() {
    let ctx = Context::new().expect("context");
    let err = ctx
        .program("kernel void broken(global int* p) { p[0] = undeclared; }")
        .build()
        .err();
    match err {
        Some(Error::BuildProgramFailure { log }) => {
            assert!(log.contains("undeclared"), "log: {log}")
        }
        other => panic!("expected a build failure, got {other:?}"),
    }
    let bad_option = ctx.program(VADD).options("-no-such-option").build().err();
    assert_eq!(bad_option.map(|e| e.cl_code()), Some(-43));
    let program = build(&ctx, VADD, "");
    assert_eq!(
        program.kernel("nope").err(),
        Some(Error::InvalidKernelName("nope".into()))
    );
}

#[test]
fn binaries_round_trip() {
    let ctx = Context::new().expect("context");
    let program = build(&ctx, VADD, "-cl-std=CL2.0");
    let bytes = program.binary();
    let again = Program::from_binary(&ctx, &bytes).expect("from binary");
    assert_eq!(again.options(), "-cl-std=CL2.0");
    assert_eq!(again.kernel_names(), program.kernel_names());
    let kernel = again.kernel("vadd").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let a = ctx.buffer_from(&[1.0f32, 2.0, 3.0]).expect("a");
    let c = ctx.buffer::<f32>(3).expect("c");
    kernel.set_arg_buffer(0, &a).expect("arg");
    kernel.set_arg_buffer(1, &a).expect("arg");
    kernel.set_arg_buffer(2, &c).expect("arg");
    queue.launch(&kernel).global(&[3]).run().expect("run");
    assert_eq!(queue.read_vec(&c, &[]).expect("read"), vec![2.0, 4.0, 6.0]);
    assert!(matches!(
        Program::from_binary(&ctx, b"not a binary"),
        Err(Error::InvalidBinary(_))
    ));
}

#[test]
fn compile_then_link() {
    let ctx = Context::new().expect("context");
    let helper = ctx
        .program("int twice(int x) { return 2 * x; }")
        .compile()
        .expect("compile helper");
    let main = ctx
        .program("int twice(int x);\nkernel void k(global int* p) { p[get_global_id(0)] = twice(p[get_global_id(0)]); }")
        .compile()
        .expect("compile kernel");
    let program = Program::link(&ctx, &[helper, main], "").expect("link");
    let kernel = program.kernel("k").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let data = ctx.buffer_from(&[1i32, 2, 3, 4]).expect("buffer");
    kernel.set_arg_buffer(0, &data).expect("arg");
    queue.launch(&kernel).global(&[4]).run().expect("run");
    assert_eq!(queue.read_vec(&data, &[]).expect("read"), vec![2, 4, 6, 8]);
}

#[test]
fn libraries_and_object_binaries_link_again() {
    let ctx = Context::new().expect("context");
    let helper = ctx
        .program("static int base(void) { return N; }\nint twice(int x) { return base() * x; }")
        .options("-DN=2")
        .compile()
        .expect("compile helper");
    let library =
        CompiledObject::link_library(&ctx, &[helper], "-create-library").expect("library");
    assert_eq!(library.binary_type(), BinaryType::Library);
    let main = ctx
        .program("static int base(void) { return 100; }\nint twice(int x);\nkernel void k(global int* p) { p[get_global_id(0)] = twice(p[get_global_id(0)]) + base(); }")
        .compile()
        .expect("compile kernel");
    // Through binaries: both come back with their type and link.
    let library = CompiledObject::from_binary(&ctx, &library.binary()).expect("library binary");
    let main = CompiledObject::from_binary(&ctx, &main.binary()).expect("object binary");
    assert_eq!(main.binary_type(), BinaryType::CompiledObject);
    let program = Program::link(&ctx, &[main, library], "").expect("link");
    let kernel = program.kernel("k").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let data = ctx.buffer_from(&[1i32, 2, 3]).expect("buffer");
    kernel.set_arg_buffer(0, &data).expect("arg");
    queue.launch(&kernel).global(&[3]).run().expect("run");
    assert_eq!(
        queue.read_vec(&data, &[]).expect("read"),
        vec![102, 104, 106]
    );
    // An object's binary is not a program.
    let object = ctx
        .program("int f(void) { return 1; }")
        .compile()
        .expect("compile");
    assert!(matches!(
        Program::from_binary(&ctx, &object.binary()),
        Err(Error::InvalidBinary(_))
    ));
}

#[test]
fn link_options_apply_to_the_linked_program() {
    let ctx = Context::new().expect("context");
    let unit = |options: &str| {
        ctx.program("kernel void k(global float* p) { p[0] = p[0] * 2.0f; }")
            .options(options)
            .compile()
            .expect("compile")
    };
    let strict = Program::link(&ctx, &[unit("")], "").expect("link");
    assert!(!strict.module().math.finite_math_only);
    let relaxed = Program::link(&ctx, &[unit("")], "-cl-fast-relaxed-math").expect("link");
    let math = relaxed.module().math;
    assert!(math.fast_relaxed_math && math.finite_math_only && math.no_signed_zeros);
    // A unit's compile options grant only what every unit linked grants.
    let other = ctx
        .program("float half_of(float x) { return x * 0.5f; }")
        .options("-cl-finite-math-only")
        .compile()
        .expect("compile");
    let alone = Program::link(&ctx, std::slice::from_ref(&other), "").expect("link");
    assert!(alone.module().math.finite_math_only);
    let mixed = Program::link(&ctx, &[unit(""), other], "").expect("link");
    assert!(!mixed.module().math.finite_math_only);
    let library =
        CompiledObject::link_library(&ctx, &[unit("")], "-create-library -cl-denorms-are-zero")
            .expect("library");
    let from_library = Program::link(&ctx, &[library], "").expect("link");
    assert!(from_library.module().math.denorms_are_zero);
}

#[test]
fn a_link_names_what_is_missing_or_defined_twice() {
    let ctx = Context::new().expect("context");
    let caller = ctx
        .program("int gone(int);\nkernel void k(global int* p) { p[0] = gone(1); }")
        .compile()
        .expect("compile");
    match Program::link(&ctx, &[caller], "") {
        Err(Error::LinkProgramFailure { log }) => {
            assert!(
                log.contains("undefined reference to function 'gone'"),
                "{log}"
            )
        }
        other => panic!("expected a link failure, got {other:?}"),
    }
    let f = || {
        ctx.program("int f(void) { return 1; }")
            .compile()
            .expect("compile")
    };
    match Program::link(&ctx, &[f(), f()], "") {
        Err(Error::LinkProgramFailure { log }) => {
            assert!(
                log.contains("'f' is defined in more than one program"),
                "{log}"
            )
        }
        other => panic!("expected a link failure, got {other:?}"),
    }
    assert!(matches!(
        Program::link(&ctx, &[f()], "-DX=1"),
        Err(Error::InvalidLinkerOptions(_))
    ));
}

#[test]
fn many_threads_launch_kernels_concurrently() {
    let ctx = Context::new().expect("context");
    let program = build(&ctx, SCALE, "");
    std::thread::scope(|s| {
        for t in 1..=4i32 {
            let (ctx, program) = (ctx.clone(), program.clone());
            s.spawn(move || {
                let kernel = program.kernel("scale").expect("kernel");
                let queue = ctx.queue().expect("queue");
                let data = ctx.buffer_from(&vec![1i32; 10_000]).expect("buffer");
                kernel.set_arg_buffer(0, &data).expect("arg");
                kernel.set_arg(1, t).expect("arg");
                for _ in 0..5 {
                    queue
                        .launch(&kernel)
                        .global(&[10_000])
                        .enqueue()
                        .expect("enqueue");
                }
                queue.finish().expect("finish");
                let out = queue.read_vec(&data, &[]).expect("read");
                assert!(out.iter().all(|&v| v == t.pow(5)), "thread {t}");
            });
        }
    });
}

#[test]
fn kernel_attributes_are_spelled_as_in_source() {
    let ctx = Context::new().expect("context");
    let program = build(
        &ctx,
        "__attribute__((reqd_work_group_size(8, 1, 1))) __attribute__((vec_type_hint(float4)))
         kernel void k(global float *a) { a[get_global_id(0)] = 1.0f; }
         __attribute__((vec_type_hint(uint)))
         kernel void h(global float *a) { a[get_global_id(0)] = 2.0f; }",
        "",
    );
    let k = program.kernel("k").expect("kernel k");
    assert_eq!(
        k.attributes(),
        "reqd_work_group_size(8,1,1) vec_type_hint(float4)"
    );
    let h = program.kernel("h").expect("kernel h");
    assert_eq!(h.attributes(), "vec_type_hint(uint)");
}

/// `__global` atomics that every work-group aims at the same 64 ints, from
/// all of the pool's threads at once: the chunks' four-ints-at-a-time path
/// (`lock cmpxchg16b`, retried when another thread got in between) loses
/// and repeats no update, and hands each work-item a distinct old value.
#[test]
fn global_atomics_from_every_thread_lose_nothing() {
    const SRC: &str = "
    kernel void count(global int* counts, global uint* sums, global int* down, global int* up,
                      global uint* bits, global int* olds) {
        int lid = get_local_id(0);
        size_t i = get_global_id(0);
        olds[i] = atomic_add(&counts[lid], 1);
        for (int k = 0; k < 8; k++) {
            atomic_add(&sums[lid], (uint)i);
            atomic_sub(&down[lid], 1);
            atomic_inc(&up[lid]);
        }
        atomic_or(&bits[lid], 1u << (get_group_id(0) % 32));
    }";
    const LOCAL: usize = 64;
    const GROUPS: usize = 4096;
    let n = LOCAL * GROUPS;
    let ctx = Context::new().expect("context");
    let kernel = build(&ctx, SRC, "").kernel("count").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let zeros = [0i32; LOCAL];
    let counts = ctx.buffer_from(&zeros).expect("counts");
    let sums = ctx.buffer_from(&[0u32; LOCAL]).expect("sums");
    let down = ctx.buffer_from(&zeros).expect("down");
    let up = ctx.buffer_from(&zeros).expect("up");
    let bits = ctx.buffer_from(&[0u32; LOCAL]).expect("bits");
    let olds = ctx.buffer::<i32>(n).expect("olds");
    kernel.set_arg_buffer(0, &counts).expect("arg 0");
    kernel.set_arg_buffer(1, &sums).expect("arg 1");
    kernel.set_arg_buffer(2, &down).expect("arg 2");
    kernel.set_arg_buffer(3, &up).expect("arg 3");
    kernel.set_arg_buffer(4, &bits).expect("arg 4");
    kernel.set_arg_buffer(5, &olds).expect("arg 5");
    queue
        .launch(&kernel)
        .global(&[n])
        .local(&[LOCAL])
        .run()
        .expect("launch");
    let read = |b: &vecl::Buffer<i32>| queue.read_vec(b, &[]).expect("read");
    let (counts, down, up, olds) = (read(&counts), read(&down), read(&up), read(&olds));
    let sums = queue.read_vec(&sums, &[]).expect("read");
    let bits = queue.read_vec(&bits, &[]).expect("read");
    for lid in 0..LOCAL {
        assert_eq!(counts[lid], GROUPS as i32, "count {lid}");
        assert_eq!(down[lid], -8 * GROUPS as i32, "down {lid}");
        assert_eq!(up[lid], 8 * GROUPS as i32, "up {lid}");
        let want = (0..GROUPS).fold(0u32, |a, g| a.wrapping_add(8 * (g * LOCAL + lid) as u32));
        assert_eq!(sums[lid], want, "sum {lid}");
        assert_eq!(bits[lid], u32::MAX, "bits {lid}");
        // Each location handed out the old values 0 to GROUPS - 1, once each.
        let mut seen: Vec<i32> = (0..GROUPS).map(|g| olds[g * LOCAL + lid]).collect();
        seen.sort_unstable();
        assert!(
            seen.iter().enumerate().all(|(k, &v)| v == k as i32),
            "old values of {lid}: {:?}…",
            &seen[..8]
        );
    }
}

/// A histogram-like merge from all of the pool's threads into the same 64
/// ints, whose operands are zero for whole groups, for half of each
/// group's lanes, or not at all: the pieces of zeros that the
/// four-ints-at-a-time path leaves out change nothing, the others lose
/// no update, and an `atomic_add` of zero returns the current value.
#[test]
fn global_atomics_of_zeros_from_every_thread_lose_nothing() {
    const SRC: &str = "
    kernel void merge(global uint* sums, global uint* bits, global uint* seen) {
        int lid = get_local_id(0);
        uint g = get_group_id(0);
        uint v = (g % 3 == 0 || (g % 3 == 1 && lid % 8 < 4)) ? 0u : g;
        atomic_add(&sums[lid], v);
        atomic_or(&bits[lid], (g % 2 == 0) ? 0u : 1u << (g % 32));
        seen[get_global_id(0)] = atomic_add(&sums[lid], 0u);
    }";
    const LOCAL: usize = 64;
    const GROUPS: usize = 4096;
    let n = LOCAL * GROUPS;
    let ctx = Context::new().expect("context");
    let kernel = build(&ctx, SRC, "").kernel("merge").expect("kernel");
    let queue = ctx.queue().expect("queue");
    let sums = ctx.buffer_from(&[0u32; LOCAL]).expect("sums");
    let bits = ctx.buffer_from(&[0u32; LOCAL]).expect("bits");
    let seen = ctx.buffer::<u32>(n).expect("seen");
    kernel.set_arg_buffer(0, &sums).expect("arg 0");
    kernel.set_arg_buffer(1, &bits).expect("arg 1");
    kernel.set_arg_buffer(2, &seen).expect("arg 2");
    queue
        .launch(&kernel)
        .global(&[n])
        .local(&[LOCAL])
        .run()
        .expect("launch");
    let sums = queue.read_vec(&sums, &[]).expect("read");
    let bits = queue.read_vec(&bits, &[]).expect("read");
    let seen = queue.read_vec(&seen, &[]).expect("read");
    for lid in 0..LOCAL {
        let want = (0..GROUPS as u32)
            .filter(|g| !(g % 3 == 0 || (g % 3 == 1 && lid % 8 < 4)))
            .fold(0u32, |a, g| a.wrapping_add(g));
        assert_eq!(sums[lid], want, "sum {lid}");
        // Odd groups or in bit g % 32, odd too; even groups or in zero.
        assert_eq!(bits[lid], 0xAAAA_AAAA, "bits {lid}");
        // What an add of zero returned: a value the sum passed through
        // (it only grows), never above its total.
        for g in 0..GROUPS {
            let got = seen[g * LOCAL + lid];
            assert!(
                got <= want,
                "group {g} lane {lid}: {got} above the total {want}"
            );
        }
    }
}

/// The example program, as `cargo run --example vadd` runs it: it checks its
/// own results and fails when one is wrong.
#[path = "../examples/vadd.rs"]
mod example_vadd;

#[test]
fn the_example_runs_and_checks_its_results() {
    example_vadd::main().expect("examples/vadd.rs");
}

#[test]
fn a_value_of_the_wrong_kind_is_refused_where_the_parameter_says() {
    let ctx = Context::new().expect("context");
    let p = build(
        &ctx,
        "kernel void k(float f, int i, float4 v, int3 t, global float *o) { o[0] = f + i + v.x + t.x; }",
        "",
    );
    let k = p.kernel("k").expect("kernel");
    // Same size, other kind: refused with a message saying what was wanted.
    let e = k
        .set_arg(0, 2i32)
        .expect_err("an int for a float parameter");
    assert!(matches!(e, Error::InvalidArgValue(_)), "{e:?}");
    assert!(
        e.to_string().contains(
            "argument 0 (`float f`) is a floating-point scalar, the value given (`i32`) is an integer scalar"
        ),
        "{e}"
    );
    let e = k
        .set_arg(2, [1i32; 4])
        .expect_err("int components for a float4");
    assert!(
        e.to_string().contains(
            "argument 2 (`float4 v`) is 4 floating-point components, the value given (`[i32; 4]`) is 4 integer components"
        ),
        "{e}"
    );
    k.set_arg(1, 2.0f32)
        .expect_err("a float for an int parameter");
    k.set_arg(2, 1.5f64).expect_err("a double is not 2 floats");
    // The right kinds, either signedness for integers, 4 values for a vec3.
    k.set_arg(0, 2.0f32).expect("float");
    k.set_arg(1, 3u32).expect("an unsigned value for int");
    k.set_arg(2, [1.0f32; 4]).expect("float4");
    k.set_arg(3, [1i32, 2, 3, 0]).expect("int3 as four ints");
    // Raw bytes are checked by size only.
    k.set_arg_bytes(0, &7i32.to_le_bytes()).expect("bytes");
}

#[test]
fn a_launch_must_say_its_range_consistently() {
    let ctx = Context::new().expect("context");
    let q = ctx.queue().expect("queue");
    let p = build(&ctx, SCALE, "");
    let k = p.kernel("scale").expect("kernel");
    let data = ctx.buffer::<i32>(64).expect("buffer");
    k.set_arg_buffer(0, &data).expect("arg");
    k.set_arg(1, 2i32).expect("arg");
    let e = q.launch(&k).enqueue().expect_err("no global size");
    assert!(matches!(e, Error::InvalidGlobalWorkSize(_)), "{e:?}");
    let e = q
        .launch(&k)
        .global(&[64])
        .local(&[8, 8])
        .enqueue()
        .expect_err("a 2-D local size for a 1-D launch");
    assert!(matches!(e, Error::InvalidWorkGroupSize(_)), "{e:?}");
    let e = q
        .launch(&k)
        .global(&[8, 8, 1, 1])
        .enqueue()
        .expect_err("four dimensions");
    assert!(matches!(e, Error::InvalidWorkDimension(4)), "{e:?}");
    let e = q
        .launch(&k)
        .global(&[64])
        .offset(&[0, 0])
        .enqueue()
        .expect_err("a 2-D offset for a 1-D launch");
    assert!(matches!(e, Error::InvalidGlobalOffset(_)), "{e:?}");
    q.launch(&k)
        .global(&[64])
        .local(&[8])
        .run()
        .expect("a consistent launch");
}

#[test]
fn builders_carry_their_context_and_sizes_are_usize() {
    let ctx = Context::new().expect("context");
    let queue = vecl::Queue::builder(&ctx)
        .profiling()
        .build()
        .expect("queue");
    assert_eq!(queue.context().device().name(), ctx.device().name());
    let data: Vec<i32> = (0..100).collect();
    let buf = vecl::Buffer::builder(&ctx, data.len())
        .host_read_only()
        .build_from(&data)
        .expect("buffer");
    assert_eq!(buf.context().device().name(), ctx.device().name());
    let p = build(&ctx, SCALE, "");
    let k = p.kernel("scale").expect("kernel");
    k.set_arg_buffer(0, &buf).expect("arg");
    k.set_arg(1, 3i32).expect("arg");
    // A length is a launch size as it is: no conversion.
    queue
        .launch(&k)
        .global(&[data.len()])
        .local(&[data.len() / 4])
        .offset(&[0])
        .run()
        .expect("run");
    let out = queue.read_vec(&buf, &[]).expect("read");
    assert_eq!(out, data.iter().map(|x| x * 3).collect::<Vec<_>>());
}

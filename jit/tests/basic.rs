//! Hand-built kernels compiled and run over several launch shapes.

use vecl_ir::*;
use vecl_jit::abi::Launch;
use vecl_testkit::*;

fn vadd_module() -> Module {
    let ptr = gptr(Type::F32);
    kernel_module(
        "vadd",
        vec![
            param("a", ptr.clone()),
            param("b", ptr.clone()),
            param("c", ptr.clone()),
        ],
        |b| {
            let (a, bb, c) = (b.param(0), b.param(1), b.param(2));
            let gid = global_id0(b);
            let pa = b.push(Inst::Index(a, gid), ptr.clone());
            let pb = b.push(Inst::Index(bb, gid), ptr.clone());
            let pc = b.push(Inst::Index(c, gid), ptr.clone());
            let x = b.load(pa);
            let y = b.load(pb);
            let s = b.binary(BinaryOp::Add, x, y);
            b.store(pc, s);
        },
    )
}

#[test]
fn vector_add_over_several_shapes() {
    let m = vadd_module();
    for w in [4, 8, 16] {
        let k = compile(&m, "vadd", w);
        for (n, local) in [
            (64u64, 16u64),
            (37, 8),
            (100, 7),
            (5, 1),
            (256, 256),
            (13, 13),
        ] {
            let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let b: Vec<f32> = (0..n).map(|i| (i * 3) as f32 + 0.5).collect();
            let mut ab = f32_bytes(&a);
            let mut bb = f32_bytes(&b);
            let mut cb = vec![0u8; n as usize * 4 + 64];
            let mut launch = Launch::new(1, [0; 3], [n, 1, 1], [local, 1, 1]);
            run(
                &k,
                &mut [Arg::Buf(&mut ab), Arg::Buf(&mut bb), Arg::Buf(&mut cb)],
                &mut launch,
            );
            let c = f32_from(&cb[..n as usize * 4]);
            for i in 0..n as usize {
                assert_eq!(c[i], a[i] + b[i], "W={w} n={n} local={local} i={i}");
            }
            // Nothing past the end was written.
            assert!(
                cb[n as usize * 4..].iter().all(|x| *x == 0),
                "W={w} n={n} wrote past the end"
            );
        }
    }
}

fn saxpy_module() -> Module {
    let ptr = gptr(Type::F32);
    kernel_module(
        "saxpy",
        vec![
            param("x", ptr.clone()),
            param("y", ptr.clone()),
            param("a", Type::F32),
            param("n", Type::I32),
        ],
        |b| {
            let (x, y, a, n) = (b.param(0), b.param(1), b.param(2), b.param(3));
            let gid = global_id0(b);
            let i = conv(b, gid, Type::I32);
            let c = b.cmp(CmpOp::Lt, i, n);
            b.if_else(
                c,
                |b| {
                    let px = b.push(Inst::Index(x, i), ptr.clone());
                    let py = b.push(Inst::Index(y, i), ptr.clone());
                    let xv = b.load(px);
                    let yv = b.load(py);
                    let ax = b.binary(BinaryOp::Mul, a, xv);
                    let s = b.binary(BinaryOp::Add, ax, yv);
                    b.store(py, s);
                },
                |_| {},
            );
        },
    )
}

#[test]
fn saxpy_with_guard_never_touches_past_n() {
    let m = saxpy_module();
    for w in [4, 8] {
        let k = compile(&m, "saxpy", w);
        for (n, global, local) in [
            (50i32, 64u64, 16u64),
            (33, 40, 8),
            (7, 8, 4),
            (100, 100, 10),
        ] {
            let x: Vec<f32> = (0..global).map(|i| i as f32 * 0.25).collect();
            let y: Vec<f32> = (0..global).map(|i| 1.0 + i as f32).collect();
            let mut xb = f32_bytes(&x);
            let mut yb = f32_bytes(&y);
            let mut launch = Launch::new(1, [0; 3], [global, 1, 1], [local, 1, 1]);
            run(
                &k,
                &mut [
                    Arg::Buf(&mut xb),
                    Arg::Buf(&mut yb),
                    Arg::Bytes(2.0f32.to_le_bytes().to_vec()),
                    Arg::Bytes(n.to_le_bytes().to_vec()),
                ],
                &mut launch,
            );
            let out = f32_from(&yb);
            for i in 0..global as usize {
                let want = if (i as i32) < n {
                    2.0 * x[i] + y[i]
                } else {
                    y[i]
                };
                assert_eq!(out[i], want, "W={w} n={n} i={i}");
            }
        }
    }
}

#[test]
fn consecutive_accesses_become_vector_accesses() {
    let k = compile(&vadd_module(), "vadd", 8);
    let e = k.explain();
    assert!(e.contains("loads: 2 vector"), "{e}");
    assert!(e.contains("stores: 1 vector"), "{e}");
    assert_eq!(k.simd_width(), 8);
    assert_eq!(k.context_size(256), 0);
    eprintln!("{e}");
}

#[test]
fn unknown_kernel_and_bad_width_are_errors() {
    let m = vadd_module();
    let opts = |w| vecl_jit::JitOptions {
        simd_width: Some(w),
        dump_clif: true,
        ..vecl_jit::JitOptions::default()
    };
    assert!(matches!(
        vecl_jit::compile_kernel(&m, "nope", &opts(8)),
        Err(vecl_jit::JitError::NoSuchKernel(_))
    ));
    assert!(matches!(
        vecl_jit::compile_kernel(&m, "vadd", &opts(6)),
        Err(vecl_jit::JitError::Unsupported { .. })
    ));
    let k = vecl_jit::compile_kernel(&m, "vadd", &opts(4)).expect("compiles");
    assert!(k.clif().is_some_and(|c| c.contains("f32x4")));
}

//! Memory in the interpreter: by-value structs, private slots, struct and
//! array addressing, 3-vector layout, `vload`/`vstore` and their half
//! forms, module globals, pointers stored in memory, atomics, and the
//! errors for bad accesses.

use vecl_ir::builder::FunctionBuilder;
use vecl_ir::interp::{run_kernel, InterpError, KernelArg, NdRange, UNINIT_BYTE};
use vecl_ir::*;

fn param(name: &str, ty: Type) -> Param {
    Param {
        name: name.into(),
        ty,
        byval: false,
    }
}

fn gptr(t: Type) -> Type {
    Type::ptr(AddressSpace::Global, t)
}

fn pptr(t: Type) -> Type {
    Type::ptr(AddressSpace::Private, t)
}

fn kernel(mut f: Function) -> Function {
    f.kernel = Some(KernelInfo::default());
    f
}

fn gid(b: &mut FunctionBuilder) -> ValueId {
    let d = b.const_u32(0);
    b.push(Inst::WorkItem(WorkItemFn::GlobalId, Some(d)), Type::U64)
}

fn buffer(arg: &KernelArg) -> &[u8] {
    match arg {
        KernelArg::Buffer(b) => b,
        other => panic!("not a buffer: {other:?}"),
    }
}

fn f32s(arg: &KernelArg) -> Vec<f32> {
    buffer(arg)
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i32s(arg: &KernelArg) -> Vec<i32> {
    buffer(arg)
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// ```c
/// struct S { int a; float b[3]; };
/// kernel void k(struct S s, global float *out) {
///     struct S t = s;
///     t.b[1] += t.a;
///     s.a = 99 + get_global_id(0);     // each work-item's own copy
///     out[i] = t.b[1] + s.a;
/// }
/// ```
#[test]
fn struct_by_value_slots_fields_and_elements() {
    let s_def = StructDef::layout(
        "S",
        false,
        false,
        1,
        vec![
            ("a".into(), Type::I32),
            ("b".into(), Type::array(Type::F32, 3)),
        ],
        &[],
    );
    assert_eq!((s_def.fields[1].offset, s_def.size), (4, 16));
    let s_ty = Type::Struct(StructId(0));
    let sp = pptr(s_ty.clone());
    let params = vec![
        Param {
            name: "s".into(),
            ty: sp.clone(),
            byval: true,
        },
        param("out", gptr(Type::F32)),
    ];
    let mut b = FunctionBuilder::new("k", params, Type::Void);
    let (s, out) = (b.param(0), b.param(1));
    let t_slot = b.new_slot("t", s_ty.clone());
    let t = b.push(Inst::SlotAddr(t_slot), sp.clone());
    b.stmt(Stmt::Copy {
        dst: t,
        src: s,
        size: 16,
        loc: Loc::NONE,
    });
    let ta = b.push(Inst::Field(t, 0), pptr(Type::I32));
    let tb = b.push(Inst::Field(t, 1), pptr(Type::array(Type::F32, 3)));
    let one = b.const_i32(1);
    let tb1 = b.push(Inst::Elem(tb, one), pptr(Type::F32));
    let a = b.load(ta);
    let af = b.push(
        Inst::Convert {
            value: a,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::F32,
    );
    let x = b.load(tb1);
    let sum = b.binary(BinaryOp::Add, x, af);
    b.store(tb1, sum);
    let i = gid(&mut b);
    let i32v = b.push(
        Inst::Convert {
            value: i,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::I32,
    );
    let ninety_nine = b.const_i32(99);
    let new_a = b.binary(BinaryOp::Add, ninety_nine, i32v);
    let sa = b.push(Inst::Field(s, 0), pptr(Type::I32));
    b.store(sa, new_a);
    let sa_now = b.load(sa);
    let sa_f = b.push(
        Inst::Convert {
            value: sa_now,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::F32,
    );
    let t_now = b.load(tb1);
    let r = b.binary(BinaryOp::Add, t_now, sa_f);
    let o = b.push(Inst::Index(out, i), gptr(Type::F32));
    b.store(o, r);
    let module = Module {
        structs: vec![s_def],
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };

    let mut s_bytes = 5i32.to_le_bytes().to_vec();
    s_bytes.extend(f32_bytes(&[0.5, 1.25, 2.0]));
    let mut args = [KernelArg::Value(s_bytes), KernelArg::Buffer(vec![0; 8 * 4])];
    run_kernel(&module, "k", &mut args, &NdRange::linear(8, 4)).unwrap();
    let out = f32s(&args[1]);
    for (i, &got) in out.iter().enumerate() {
        assert_eq!(got, 1.25 + 5.0 + (99 + i) as f32, "item {i}");
    }
}

/// `out3[i] = in3[i] * 2` on `float3` (16-byte elements), then
/// `vstore3(vload3(i, a) + 1, i, b)` on packed floats (12-byte steps).
#[test]
fn three_vectors_occupy_four_elements_but_vload3_does_not() {
    let v3 = Type::vector(Scalar::F32, 3);
    let p3 = gptr(v3.clone());
    let pf = gptr(Type::F32);
    let params = vec![
        param("in3", p3.clone()),
        param("out3", p3.clone()),
        param("a", pf.clone()),
        param("b", pf.clone()),
    ];
    let mut b = FunctionBuilder::new("k", params, Type::Void);
    let (in3, out3, pa, pb) = (b.param(0), b.param(1), b.param(2), b.param(3));
    let i = gid(&mut b);
    let src = b.push(Inst::Index(in3, i), p3.clone());
    let x = b.load(src);
    let y = b.binary(BinaryOp::Add, x, x);
    let dst = b.push(Inst::Index(out3, i), p3.clone());
    b.store(dst, y);
    let packed = b.push(Inst::Builtin(Builtin::Vload3, vec![i, pa]), v3.clone());
    let one = b.const_f32(1.0);
    let ones = b.push(Inst::Splat(one), v3.clone());
    let plus = b.binary(BinaryOp::Add, packed, ones);
    b.push(
        Inst::Builtin(Builtin::Vstore3, vec![plus, i, pb]),
        Type::Void,
    );
    let module = Module {
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };

    let n = 5;
    let in3: Vec<f32> = (0..n * 4).map(|k| k as f32).collect();
    let a: Vec<f32> = (0..n * 3).map(|k| k as f32 * 10.0).collect();
    let mut args = [
        KernelArg::Buffer(f32_bytes(&in3)),
        KernelArg::Buffer(vec![0xaa; n * 16]),
        KernelArg::Buffer(f32_bytes(&a)),
        KernelArg::Buffer(vec![0; n * 12]),
    ];
    run_kernel(&module, "k", &mut args, &NdRange::linear(n as u64, 1)).unwrap();
    let out3 = buffer(&args[1]);
    for item in 0..n {
        for c in 0..3 {
            let at = (item * 4 + c) * 4;
            let got = f32::from_le_bytes(out3[at..at + 4].try_into().unwrap());
            assert_eq!(got, in3[item * 4 + c] * 2.0, "out3[{item}].s{c}");
        }
        // The padding element is not written.
        assert_eq!(&out3[item * 16 + 12..item * 16 + 16], &[0xaa; 4]);
    }
    let outb = f32s(&args[3]);
    for (k, &got) in outb.iter().enumerate() {
        assert_eq!(got, a[k] + 1.0, "b[{k}]");
    }
}

/// `vstore_half4_rtz(vload4(i, in), i, h); out[i] = vload_half(4 * i + 1, h);`
#[test]
fn vload_vstore_and_half_forms() {
    let v4 = Type::vector(Scalar::F32, 4);
    let pf = gptr(Type::F32);
    let ph = gptr(Type::Scalar(Scalar::F16));
    let params = vec![
        param("in", pf.clone()),
        param("h", ph.clone()),
        param("out", pf.clone()),
    ];
    let mut b = FunctionBuilder::new("k", params, Type::Void);
    let (pin, h, out) = (b.param(0), b.param(1), b.param(2));
    let i = gid(&mut b);
    let x = b.push(Inst::Builtin(Builtin::Vload4, vec![i, pin]), v4.clone());
    b.push(
        Inst::Builtin(Builtin::VstoreHalf4Rtz, vec![x, i, h]),
        Type::Void,
    );
    let four = b.push(Inst::Const(4), Type::U64);
    let one = b.push(Inst::Const(1), Type::U64);
    let i4 = b.binary(BinaryOp::Mul, i, four);
    let k = b.binary(BinaryOp::Add, i4, one);
    let back = b.push(Inst::Builtin(Builtin::VloadHalf, vec![k, h]), Type::F32);
    let o = b.push(Inst::Index(out, i), pf.clone());
    b.store(o, back);
    let module = Module {
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };

    let n = 6;
    let input: Vec<f32> = (0..n * 4).map(|k| 1.0 + k as f32 / 3.0).collect();
    let mut args = [
        KernelArg::Buffer(f32_bytes(&input)),
        KernelArg::Buffer(vec![0; n * 4 * 2]),
        KernelArg::Buffer(vec![0; n * 4]),
    ];
    run_kernel(&module, "k", &mut args, &NdRange::linear(n as u64, 2)).unwrap();
    // Host half conversion toward zero: keep the top 10 mantissa bits (all inputs are normal, in [1, 9)).
    let to_half_rtz = |x: f32| {
        let bits = x.to_bits();
        let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
        ((exp as u16) << 10) | ((bits >> 13) & 0x3ff) as u16
    };
    let from_half = |h: u16| {
        let exp = i32::from((h >> 10) & 0x1f) - 15;
        (1.0 + f32::from(h & 0x3ff) / 1024.0) * 2f32.powi(exp)
    };
    let halves = buffer(&args[1]);
    for (k, &x) in input.iter().enumerate() {
        let got = u16::from_le_bytes([halves[2 * k], halves[2 * k + 1]]);
        assert_eq!(got, to_half_rtz(x), "h[{k}] for {x}");
    }
    let out = f32s(&args[2]);
    for (item, &got) in out.iter().enumerate() {
        assert_eq!(
            got,
            from_half(to_half_rtz(input[item * 4 + 1])),
            "out[{item}]"
        );
    }
}

/// A `__constant` table with initial bytes, a `__local` variable read
/// before it is written (the uninitialised pattern), and a store into the
/// constant table, which faults.
#[test]
fn module_globals() {
    let table = Global {
        name: "table".into(),
        space: AddressSpace::Constant,
        ty: Type::array(Type::I32, 4),
        init: Some(
            [10i32, 20, 30, 40]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
    };
    let scratch = Global {
        name: "scratch".into(),
        space: AddressSpace::Local,
        ty: Type::I32,
        init: None,
    };
    let counter = Global {
        name: "counter".into(),
        space: AddressSpace::Global,
        ty: Type::I32,
        init: None,
    };
    let pc = Type::ptr(AddressSpace::Constant, Type::array(Type::I32, 4));
    let pl = Type::ptr(AddressSpace::Local, Type::I32);
    let pg = gptr(Type::I32);

    let mut b = FunctionBuilder::new("k", vec![param("out", pg.clone())], Type::Void);
    let out = b.param(0);
    let i = gid(&mut b);
    let t = b.push(Inst::GlobalAddr(GlobalId(0)), pc.clone());
    let three = b.push(Inst::Const(3), Type::U64);
    let k = b.binary(BinaryOp::And, i, three);
    let e = b.push(
        Inst::Elem(t, k),
        Type::ptr(AddressSpace::Constant, Type::I32),
    );
    let v = b.load(e);
    let l = b.push(Inst::GlobalAddr(GlobalId(1)), pl.clone());
    let junk = b.load(l);
    let c = b.push(Inst::GlobalAddr(GlobalId(2)), pg.clone());
    let old = b.push(
        Inst::Atomic {
            op: AtomicOp::Inc,
            ptr: c,
            args: vec![],
            order: MemoryOrder::Relaxed,
            scope: MemoryScope::Device,
        },
        Type::I32,
    );
    let i3 = b.binary(BinaryOp::Mul, i, three);
    let slots: Vec<ValueId> = (0..3u64)
        .map(|j| {
            let jj = b.push(Inst::Const(j), Type::U64);
            let at = b.binary(BinaryOp::Add, i3, jj);
            b.push(Inst::Index(out, at), pg.clone())
        })
        .collect();
    b.store(slots[0], v);
    b.store(slots[1], junk);
    b.store(slots[2], old);
    let good = kernel(b.finish());

    let mut b = FunctionBuilder::new("bad", vec![], Type::Void);
    let t = b.push(Inst::GlobalAddr(GlobalId(0)), pc.clone());
    let p = b.push(
        Inst::PtrCast(t),
        Type::ptr(AddressSpace::Constant, Type::I32),
    );
    let x = b.const_i32(1);
    b.set_loc(Loc { line: 9, col: 3 });
    b.store(p, x);
    let bad = kernel(b.finish());

    let module = Module {
        globals: vec![table, scratch, counter],
        functions: vec![good, bad],
        ..Module::default()
    };
    let n = 10;
    let mut args = [KernelArg::Buffer(vec![0; n * 3 * 4])];
    run_kernel(&module, "k", &mut args, &NdRange::linear(n as u64, 5)).unwrap();
    let out = i32s(&args[0]);
    let uninit = i32::from_le_bytes([UNINIT_BYTE; 4]);
    for item in 0..n {
        assert_eq!(
            out[item * 3],
            [10, 20, 30, 40][item % 4],
            "table[{item} & 3]"
        );
        assert_eq!(out[item * 3 + 1], uninit);
        assert_eq!(
            out[item * 3 + 2],
            item as i32,
            "the __global counter counts across groups"
        );
    }
    let err = run_kernel(&module, "bad", &mut [], &NdRange::linear(1, 1)).unwrap_err();
    assert!(
        matches!(&err, InterpError::ReadOnlyWrite { object, loc: Loc { line: 9, .. }, .. } if object == "global `table`"),
        "{err:?}"
    );
}

/// A pointer stored into a private slot and loaded back, pointer
/// differences through `ptrtoint`, and a call that writes through a
/// pointer to the caller's slot.
#[test]
fn pointers_in_memory_and_calls_through_pointers() {
    let pf = gptr(Type::F32);
    let pi = pptr(Type::I32);
    // void bump(private int *p, int by) { *p += by; }
    let mut c = FunctionBuilder::new(
        "bump",
        vec![param("p", pi.clone()), param("by", Type::I32)],
        Type::Void,
    );
    let (p, by) = (c.param(0), c.param(1));
    let x = c.load(p);
    let y = c.binary(BinaryOp::Add, x, by);
    c.store(p, y);
    let bump = c.finish();

    let mut b = FunctionBuilder::new(
        "k",
        vec![param("a", pf.clone()), param("out", gptr(Type::I64))],
        Type::Void,
    );
    let (a, out) = (b.param(0), b.param(1));
    let i = gid(&mut b);
    let holder = b.new_slot("holder", pf.clone());
    let counter = b.new_slot("counter", Type::I32);
    let hp = b.push(Inst::SlotAddr(holder), pptr(pf.clone()));
    let five = b.const_i64(5);
    let a5 = b.push(Inst::Index(a, five), pf.clone());
    b.store(hp, a5);
    let back = b.load(hp);
    let minus3 = b.const_i64(-3);
    let a2 = b.push(Inst::Index(back, minus3), pf.clone());
    let x = b.load(a2);
    let xi = b.push(
        Inst::Convert {
            value: x,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::I64,
    );
    let i5 = b.push(Inst::PtrToInt(a5), Type::I64);
    let i2 = b.push(Inst::PtrToInt(a2), Type::I64);
    let diff = b.binary(BinaryOp::Sub, i5, i2);
    let cp = b.push(Inst::SlotAddr(counter), pi.clone());
    let zero = b.const_i32(0);
    b.store(cp, zero);
    let iv = b.push(
        Inst::Convert {
            value: i,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::I32,
    );
    b.push(Inst::Call(FuncId(0), vec![cp, iv]), Type::Void);
    b.push(Inst::Call(FuncId(0), vec![cp, iv]), Type::Void);
    let cnt = b.load(cp);
    let cnt64 = b.push(
        Inst::Convert {
            value: cnt,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::I64,
    );
    let three = b.push(Inst::Const(3), Type::U64);
    let base = b.binary(BinaryOp::Mul, i, three);
    for (k, v) in [xi, diff, cnt64].into_iter().enumerate() {
        let kk = b.push(Inst::Const(k as u64), Type::U64);
        let at = b.binary(BinaryOp::Add, base, kk);
        let q = b.push(Inst::Index(out, at), gptr(Type::I64));
        b.store(q, v);
    }
    let module = Module {
        functions: vec![bump, kernel(b.finish())],
        ..Module::default()
    };
    let n = 4;
    let mut args = [
        KernelArg::Buffer(f32_bytes(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])),
        KernelArg::Buffer(vec![0; n * 3 * 8]),
    ];
    run_kernel(&module, "k", &mut args, &NdRange::linear(n as u64, 2)).unwrap();
    let out: Vec<i64> = buffer(&args[1])
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for item in 0..n {
        assert_eq!(
            &out[item * 3..item * 3 + 3],
            &[2, 12, 2 * item as i64],
            "item {item}"
        );
    }
}

/// Every atomic operation on one `__global int`/`uint`/`float`, with the
/// old values it returns, from a single work-item so the order is known.
#[test]
fn atomic_operations_return_the_old_value() {
    let pi = gptr(Type::I32);
    let pu = gptr(Type::U32);
    let pf = gptr(Type::F32);
    let mut b = FunctionBuilder::new(
        "k",
        vec![param("x", pi.clone()), param("out", pi.clone())],
        Type::Void,
    );
    let (x, out) = (b.param(0), b.param(1));
    let xu = b.push(Inst::PtrCast(x), pu.clone());
    let xf = b.push(Inst::PtrCast(x), pf.clone());
    let atomic = |op, ptr, args| Inst::Atomic {
        op,
        ptr,
        args,
        order: MemoryOrder::SeqCst,
        scope: MemoryScope::Device,
    };
    let mut olds = Vec::new();
    // x = 10
    let c = |b: &mut FunctionBuilder, v: i32| b.const_i32(v);
    let ten = c(&mut b, 10);
    b.push(atomic(AtomicOp::Store, x, vec![ten]), Type::Void);
    let five = c(&mut b, 5);
    olds.push(b.push(atomic(AtomicOp::Add, x, vec![five]), Type::I32)); // 10 -> 15
    let three = c(&mut b, 3);
    olds.push(b.push(atomic(AtomicOp::Sub, x, vec![three]), Type::I32)); // 15 -> 12
    olds.push(b.push(atomic(AtomicOp::Inc, x, vec![]), Type::I32)); // 12 -> 13
    olds.push(b.push(atomic(AtomicOp::Dec, x, vec![]), Type::I32)); // 13 -> 12
    let m1 = c(&mut b, -1);
    olds.push(b.push(atomic(AtomicOp::Min, x, vec![m1]), Type::I32)); // signed: 12 -> -1
    let m1u = b.push(Inst::Const(0xffff_ffff), Type::U32);
    let seven_u = b.push(Inst::Const(7), Type::U32);
    olds.push(b.push(atomic(AtomicOp::Min, xu, vec![seven_u]), Type::U32)); // unsigned: 0xffffffff -> 7
    olds.push(b.push(atomic(AtomicOp::Max, xu, vec![m1u]), Type::U32)); // unsigned: 7 -> 0xffffffff
    let six = c(&mut b, 6);
    olds.push(b.push(atomic(AtomicOp::And, x, vec![six]), Type::I32)); // -1 -> 6
    let nine = c(&mut b, 9);
    olds.push(b.push(atomic(AtomicOp::Or, x, vec![nine]), Type::I32)); // 6 -> 15
    let twelve = c(&mut b, 12);
    olds.push(b.push(atomic(AtomicOp::Xor, x, vec![twelve]), Type::I32)); // 15 -> 3
    let four = c(&mut b, 4);
    let hundred = c(&mut b, 100);
    olds.push(b.push(atomic(AtomicOp::CmpXchg, x, vec![four, hundred]), Type::I32)); // fails: stays 3
    olds.push(b.push(
        atomic(AtomicOp::CmpXchg, x, vec![three, hundred]),
        Type::I32,
    )); // 3 -> 100
    let half = b.const_f32(0.5);
    let oldf = b.push(atomic(AtomicOp::Xchg, xf, vec![half]), Type::F32); // 100 (as float bits) -> 0.5
    olds.push(b.push(Inst::Bitcast(oldf), Type::I32));
    olds.push(b.push(atomic(AtomicOp::Load, x, vec![]), Type::I32));
    for (k, v) in olds.iter().enumerate() {
        let kk = b.const_i32(k as i32);
        let q = b.push(Inst::Index(out, kk), pi.clone());
        let v = if *b.func().ty(*v) == Type::U32 {
            b.push(Inst::Bitcast(*v), Type::I32)
        } else {
            *v
        };
        b.store(q, v);
    }
    let module = Module {
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };
    let mut args = [
        KernelArg::Buffer(vec![0; 4]),
        KernelArg::Buffer(vec![0; olds.len() * 4]),
    ];
    run_kernel(&module, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    assert_eq!(
        i32s(&args[1]),
        [
            10,
            15,
            12,
            13,
            12,
            -1,
            7,
            -1,
            6,
            15,
            3,
            3,
            100,
            0.5f32.to_bits() as i32
        ]
    );
    assert_eq!(f32s(&args[0]), [0.5]);
}

/// `int a[4]; a[i] = 1;` for i up to 4: the fifth write is outside the slot.
#[test]
fn private_array_overrun_is_out_of_bounds() {
    let mut b = FunctionBuilder::new("k", vec![], Type::Void);
    let arr = b.new_slot("a", Type::array(Type::I32, 4));
    let p = b.push(Inst::SlotAddr(arr), pptr(Type::array(Type::I32, 4)));
    let i = gid(&mut b);
    let e = b.push(Inst::Elem(p, i), pptr(Type::I32));
    let one = b.const_i32(1);
    b.set_loc(Loc { line: 2, col: 12 });
    b.store(e, one);
    let module = Module {
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };
    let err = run_kernel(&module, "k", &mut [], &NdRange::linear(8, 8)).unwrap_err();
    match &err {
        InterpError::OutOfBounds {
            work_item,
            space,
            offset,
            size,
            object,
            loc,
            ..
        } => {
            assert_eq!(*work_item, [4, 0, 0]);
            assert_eq!(*space, AddressSpace::Private);
            assert_eq!((*offset, *size), (16, 4));
            assert_eq!(object, "slot `a` of `k`");
            assert_eq!(loc.line, 2);
        }
        other => panic!("expected out of bounds, got {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("work-item [4, 0, 0]")
            && text.contains("offset 16")
            && text.contains("line 2:12"),
        "{text}"
    );
}

fn constant_string(name: &str, text: &str) -> Global {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    Global {
        name: name.into(),
        space: AddressSpace::Constant,
        ty: Type::array(Type::Scalar(Scalar::I8), bytes.len() as u32),
        init: Some(bytes),
    }
}

/// `printf("item %d: %5.2f %v2hld|%s|%.1s|%-4x|%+05d\n", (int)i, i * 1.5f, (int2)(i, -i), "ok", "ok", i + 10, -i);`
#[test]
fn printf_output_is_whole_per_call_in_item_order() {
    let fmt = constant_string("fmt", "item %d: %5.2f %v2hld|%s|%.1s|%-4x|%+05d\n");
    let ok = constant_string("ok", "ok");
    let cstr = Type::ptr(AddressSpace::Constant, Type::Scalar(Scalar::I8));
    let mut b = FunctionBuilder::new("k", vec![], Type::Void);
    let f_arr = b.push(
        Inst::GlobalAddr(GlobalId(0)),
        Type::ptr(AddressSpace::Constant, fmt.ty.clone()),
    );
    let f_ptr = b.push(Inst::PtrCast(f_arr), cstr.clone());
    let s_arr = b.push(
        Inst::GlobalAddr(GlobalId(1)),
        Type::ptr(AddressSpace::Constant, ok.ty.clone()),
    );
    let s_ptr = b.push(Inst::PtrCast(s_arr), cstr.clone());
    let i = gid(&mut b);
    let ii = b.push(
        Inst::Convert {
            value: i,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::I32,
    );
    let fi = b.push(
        Inst::Convert {
            value: i,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::F32,
    );
    let k = b.const_f32(1.5);
    let x = b.binary(BinaryOp::Mul, fi, k);
    let neg = b.push(Inst::Unary(UnaryOp::Neg, ii), Type::I32);
    let v = b.push(Inst::Construct(vec![ii, neg]), Type::vector(Scalar::I32, 2));
    let ten = b.const_i32(10);
    let h = b.binary(BinaryOp::Add, ii, ten);
    b.push(
        Inst::Builtin(Builtin::Printf, vec![f_ptr, ii, x, v, s_ptr, s_ptr, h, neg]),
        Type::I32,
    );
    let module = Module {
        globals: vec![fmt, ok],
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };
    let mut out = Vec::new();
    vecl_ir::interp::run_kernel_capture(&module, "k", &mut [], &NdRange::linear(7, 4), &mut out)
        .unwrap();
    let want: String = (0..7)
        .map(|i: i32| {
            format!(
                "item {i}: {:5.2} {},{}|ok|o|{:<4x}|{:+05}\n",
                i as f32 * 1.5,
                i,
                -i,
                i + 10,
                -i
            )
        })
        .collect();
    assert_eq!(String::from_utf8(out).unwrap(), want);
}

/// ```c
/// kernel void k(global float *in, global float *out, local float *tile) {
///     event_t e = async_work_group_copy(tile, in + get_group_id(0) * 8, 8, 0);
///     wait_group_events(1, &e);
///     size_t l = get_local_id(0);
///     float whole;
///     float f = fract(tile[(l + 1) % 8], &whole);
///     float c;
///     float s = sincos(f, &c);
///     out[3 * i] = f; out[3 * i + 1] = whole; out[3 * i + 2] = s * s + c * c;
/// }
/// ```
#[test]
fn async_copy_and_builtins_with_output_pointers() {
    let pf = gptr(Type::F32);
    let lf = Type::ptr(AddressSpace::Local, Type::F32);
    let params = vec![
        param("in", pf.clone()),
        param("out", pf.clone()),
        param("tile", lf.clone()),
    ];
    let mut b = FunctionBuilder::new("k", params, Type::Void);
    let (pin, out, tile) = (b.param(0), b.param(1), b.param(2));
    let zero = b.const_u32(0);
    let grp = b.push(Inst::WorkItem(WorkItemFn::GroupId, Some(zero)), Type::U64);
    let lid = b.push(Inst::WorkItem(WorkItemFn::LocalId, Some(zero)), Type::U64);
    let eight = b.push(Inst::Const(8), Type::U64);
    let off = b.binary(BinaryOp::Mul, grp, eight);
    let src = b.push(Inst::Index(pin, off), pf.clone());
    let no_event = b.push(Inst::Const(0), Type::U64);
    let e = b.push(
        Inst::Builtin(
            Builtin::AsyncWorkGroupCopy,
            vec![tile, src, eight, no_event],
        ),
        Type::U64,
    );
    let ev_slot = b.new_slot("e", Type::U64);
    let ev = b.push(Inst::SlotAddr(ev_slot), pptr(Type::U64));
    b.store(ev, e);
    let one_i = b.const_i32(1);
    b.push(
        Inst::Builtin(Builtin::WaitGroupEvents, vec![one_i, ev]),
        Type::Void,
    );
    let one = b.push(Inst::Const(1), Type::U64);
    let next = b.binary(BinaryOp::Add, lid, one);
    let k = b.binary(BinaryOp::Rem, next, eight);
    let tk = b.push(Inst::Index(tile, k), lf.clone());
    let t = b.load(tk);
    let whole_slot = b.new_slot("whole", Type::F32);
    let whole = b.push(Inst::SlotAddr(whole_slot), pptr(Type::F32));
    let fr = b.push(Inst::Builtin(Builtin::Fract, vec![t, whole]), Type::F32);
    let c_slot = b.new_slot("c", Type::F32);
    let cp = b.push(Inst::SlotAddr(c_slot), pptr(Type::F32));
    let s = b.push(Inst::Builtin(Builtin::Sincos, vec![fr, cp]), Type::F32);
    let c = b.load(cp);
    let ss = b.binary(BinaryOp::Mul, s, s);
    let cc = b.binary(BinaryOp::Mul, c, c);
    let one_f = b.binary(BinaryOp::Add, ss, cc);
    let w = b.load(whole);
    let i = gid(&mut b);
    let three = b.push(Inst::Const(3), Type::U64);
    let base = b.binary(BinaryOp::Mul, i, three);
    for (j, v) in [fr, w, one_f].into_iter().enumerate() {
        let jj = b.push(Inst::Const(j as u64), Type::U64);
        let at = b.binary(BinaryOp::Add, base, jj);
        let p = b.push(Inst::Index(out, at), pf.clone());
        b.store(p, v);
    }
    let module = Module {
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };
    let n = 24;
    let input: Vec<f32> = (0..n).map(|k| k as f32 * 0.75 - 7.3).collect();
    let mut args = [
        KernelArg::Buffer(f32_bytes(&input)),
        KernelArg::Buffer(vec![0; n * 12]),
        KernelArg::Local(32),
    ];
    run_kernel(&module, "k", &mut args, &NdRange::linear(n as u64, 8)).unwrap();
    let got = f32s(&args[1]);
    for item in 0..n {
        let x = input[item / 8 * 8 + (item % 8 + 1) % 8];
        let fl = x.floor();
        let fr = x - fl;
        assert_eq!(got[3 * item], fr, "fract of {x}");
        assert_eq!(got[3 * item + 1], fl, "floor of {x}");
        let (sn, cs) = (f64::from(fr).sin() as f32, f64::from(fr).cos() as f32);
        assert_eq!(got[3 * item + 2], sn * sn + cs * cs, "sin² + cos² of {fr}");
    }
}

/// A `__global` buffer reached through a pointer the IR calls `__local`
/// (what a front-end bug would produce) faults instead of reading it.
#[test]
fn access_through_a_pointer_of_the_wrong_address_space_faults() {
    let mut b = FunctionBuilder::new("k", vec![param("a", gptr(Type::F32))], Type::Void);
    let a = b.param(0);
    let wrong = b.push(Inst::PtrCast(a), Type::ptr(AddressSpace::Local, Type::F32));
    b.load(wrong);
    let module = Module {
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };
    let err = run_kernel(
        &module,
        "k",
        &mut [KernelArg::Buffer(vec![0; 16])],
        &NdRange::linear(1, 1),
    )
    .unwrap_err();
    match &err {
        InterpError::OutOfBounds { space, object, .. } => {
            assert_eq!(*space, AddressSpace::Local);
            assert_eq!(
                object,
                "argument `a` (global memory, through a local pointer)"
            );
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    // Through a generic pointer the same access is fine.
    let mut b = FunctionBuilder::new("k", vec![param("a", gptr(Type::F32))], Type::Void);
    let a = b.param(0);
    let generic = b.push(
        Inst::PtrCast(a),
        Type::ptr(AddressSpace::Generic, Type::F32),
    );
    b.load(generic);
    let module = Module {
        functions: vec![kernel(b.finish())],
        ..Module::default()
    };
    run_kernel(
        &module,
        "k",
        &mut [KernelArg::Buffer(vec![0; 16])],
        &NdRange::linear(1, 1),
    )
    .unwrap();
}

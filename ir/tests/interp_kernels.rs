//! Whole kernels run through the reference interpreter, each result checked
//! element by element against the same computation done on the host.

use vecl_ir::builder::FunctionBuilder;
use vecl_ir::interp::{run_kernel, InterpError, KernelArg, NdRange};
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

fn module_of(kernels: Vec<Function>) -> Module {
    let functions = kernels
        .into_iter()
        .map(|mut f| {
            f.kernel.get_or_insert_with(KernelInfo::default);
            f
        })
        .collect();
    Module {
        functions,
        ..Module::default()
    }
}

fn work_item(b: &mut FunctionBuilder, f: WorkItemFn, dim: u32) -> ValueId {
    let d = b.const_u32(dim);
    b.push(Inst::WorkItem(f, Some(d)), Type::U64)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(arg: &KernelArg) -> Vec<f32> {
    match arg {
        KernelArg::Buffer(b) => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        other => panic!("not a buffer: {other:?}"),
    }
}

fn u32s(arg: &KernelArg) -> Vec<u32> {
    match arg {
        KernelArg::Buffer(b) => b
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        other => panic!("not a buffer: {other:?}"),
    }
}

fn u64s(arg: &KernelArg) -> Vec<u64> {
    match arg {
        KernelArg::Buffer(b) => b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        other => panic!("not a buffer: {other:?}"),
    }
}

/// `kernel void vadd(global float *a, global float *b, global float *c) { c[i] = a[i] + b[i]; }`
fn vadd() -> Function {
    let t = gptr(Type::F32);
    let mut b = FunctionBuilder::new(
        "vadd",
        vec![
            param("a", t.clone()),
            param("b", t.clone()),
            param("c", t.clone()),
        ],
        Type::Void,
    );
    let (pa, pb, pc) = (b.param(0), b.param(1), b.param(2));
    let i = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let qa = b.push(Inst::Index(pa, i), t.clone());
    let qb = b.push(Inst::Index(pb, i), t.clone());
    let qc = b.push(Inst::Index(pc, i), t);
    let x = b.load(qa);
    let y = b.load(qb);
    let s = b.binary(BinaryOp::Add, x, y);
    b.store(qc, s);
    b.finish()
}

#[test]
fn vector_addition() {
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let bv: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let mut args = [
        KernelArg::Buffer(f32_bytes(&a)),
        KernelArg::Buffer(f32_bytes(&bv)),
        KernelArg::Buffer(vec![0; n * 4]),
    ];
    run_kernel(
        &module_of(vec![vadd()]),
        "vadd",
        &mut args,
        &NdRange::linear(n as u64, 64),
    )
    .unwrap();
    let c = f32s(&args[2]);
    for i in 0..n {
        assert_eq!(c[i], a[i] + bv[i], "c[{i}]");
    }
    // The inputs are untouched.
    assert_eq!(f32s(&args[0]), a);
}

fn lptr(t: Type) -> Type {
    Type::ptr(AddressSpace::Local, t)
}

/// ```c
/// kernel void reduce(global float *in, global float *out, local float *scratch) {
///     size_t lid = get_local_id(0);
///     scratch[lid] = in[get_global_id(0)];
///     barrier(CLK_LOCAL_MEM_FENCE);
///     for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
///         if (lid < s) scratch[lid] += scratch[lid + s];
///         barrier(CLK_LOCAL_MEM_FENCE);
///     }
///     if (lid == 0) out[get_group_id(0)] = scratch[0];
/// }
/// ```
fn reduce() -> Function {
    let g = gptr(Type::F32);
    let l = lptr(Type::F32);
    let mut b = FunctionBuilder::new(
        "reduce",
        vec![
            param("in", g.clone()),
            param("out", g.clone()),
            param("scratch", l.clone()),
        ],
        Type::Void,
    );
    let (pin, pout, scratch) = (b.param(0), b.param(1), b.param(2));
    let lid = work_item(&mut b, WorkItemFn::LocalId, 0);
    let gid = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let src = b.push(Inst::Index(pin, gid), g.clone());
    let x = b.load(src);
    let dst = b.push(Inst::Index(scratch, lid), l.clone());
    b.store(dst, x);
    b.stmt(Stmt::Barrier(MemFlags::LOCAL, Loc { line: 4, col: 5 }));
    let s = b.new_var("s", Type::U64);
    let ls = work_item(&mut b, WorkItemFn::LocalSize, 0);
    let one = b.push(Inst::Const(1), Type::U64);
    let half = b.binary(BinaryOp::Shr, ls, one);
    b.stmt(Stmt::WriteVar(s, half));
    b.loop_(
        |b| {
            let sv = b.push(Inst::ReadVar(s), Type::U64);
            let zero = b.push(Inst::Const(0), Type::U64);
            let done = b.cmp(CmpOp::Eq, sv, zero);
            b.if_else(done, |b| b.stmt(Stmt::Break), |_| {});
            let active = b.cmp(CmpOp::Lt, lid, sv);
            b.if_else(
                active,
                |b| {
                    let other = b.binary(BinaryOp::Add, lid, sv);
                    let po = b.push(Inst::Index(scratch, other), l.clone());
                    let pm = b.push(Inst::Index(scratch, lid), l.clone());
                    let y = b.load(po);
                    let m = b.load(pm);
                    let sum = b.binary(BinaryOp::Add, m, y);
                    b.store(pm, sum);
                },
                |_| {},
            );
            b.stmt(Stmt::Barrier(MemFlags::LOCAL, Loc { line: 7, col: 9 }));
        },
        |b| {
            let sv = b.push(Inst::ReadVar(s), Type::U64);
            let one = b.push(Inst::Const(1), Type::U64);
            let next = b.binary(BinaryOp::Shr, sv, one);
            b.stmt(Stmt::WriteVar(s, next));
        },
    );
    let zero = b.push(Inst::Const(0), Type::U64);
    let first = b.cmp(CmpOp::Eq, lid, zero);
    b.if_else(
        first,
        |b| {
            let grp = work_item(b, WorkItemFn::GroupId, 0);
            let p0 = b.push(Inst::Index(scratch, zero), l.clone());
            let total = b.load(p0);
            let po = b.push(Inst::Index(pout, grp), g.clone());
            b.store(po, total);
        },
        |_| {},
    );
    b.finish()
}

#[test]
fn local_tree_reduction_with_barriers_in_a_loop() {
    let (n, local) = (512usize, 64usize);
    let input: Vec<f32> = (0..n).map(|i| ((i * 7) % 19) as f32 - 9.0).collect();
    let mut args = [
        KernelArg::Buffer(f32_bytes(&input)),
        KernelArg::Buffer(vec![0; n / local * 4]),
        KernelArg::Local(local * 4),
    ];
    run_kernel(
        &module_of(vec![reduce()]),
        "reduce",
        &mut args,
        &NdRange::linear(n as u64, local as u64),
    )
    .unwrap();
    let out = f32s(&args[1]);
    for (g, &got) in out.iter().enumerate() {
        let want: f32 = input[g * local..(g + 1) * local].iter().sum();
        assert_eq!(got, want, "group {g}");
    }
}

/// ```c
/// kernel void hist(global uint *data, global uint *bins, local uint *lbins) {
///     size_t lid = get_local_id(0);
///     if (lid < 16) lbins[lid] = 0;
///     barrier(CLK_LOCAL_MEM_FENCE);
///     uint v = data[get_global_id(0)];
///     atomic_inc(&lbins[v % 16]);
///     atomic_max(&bins[16], v);
///     barrier(CLK_LOCAL_MEM_FENCE);
///     if (lid < 16) atomic_add(&bins[lid], lbins[lid]);
/// }
/// ```
fn histogram() -> Function {
    let g = gptr(Type::U32);
    let l = lptr(Type::U32);
    let mut b = FunctionBuilder::new(
        "hist",
        vec![
            param("data", g.clone()),
            param("bins", g.clone()),
            param("lbins", l.clone()),
        ],
        Type::Void,
    );
    let (data, bins, lbins) = (b.param(0), b.param(1), b.param(2));
    let lid = work_item(&mut b, WorkItemFn::LocalId, 0);
    let sixteen = b.push(Inst::Const(16), Type::U64);
    let low = b.cmp(CmpOp::Lt, lid, sixteen);
    b.if_else(
        low,
        |b| {
            let p = b.push(Inst::Index(lbins, lid), l.clone());
            let z = b.const_u32(0);
            b.store(p, z);
        },
        |_| {},
    );
    b.stmt(Stmt::Barrier(MemFlags::LOCAL, Loc::NONE));
    let gid = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let pd = b.push(Inst::Index(data, gid), g.clone());
    let v = b.load(pd);
    let sixteen32 = b.const_u32(16);
    let bin = b.binary(BinaryOp::Rem, v, sixteen32);
    let pb = b.push(Inst::Index(lbins, bin), l.clone());
    let atomic = |op, ptr, args| Inst::Atomic {
        op,
        ptr,
        args,
        order: MemoryOrder::Relaxed,
        scope: MemoryScope::Device,
    };
    b.push(atomic(AtomicOp::Inc, pb, vec![]), Type::U32);
    let pmax = b.push(Inst::Index(bins, sixteen32), g.clone());
    b.push(atomic(AtomicOp::Max, pmax, vec![v]), Type::U32);
    b.stmt(Stmt::Barrier(MemFlags::LOCAL, Loc::NONE));
    b.if_else(
        low,
        |b| {
            let pl = b.push(Inst::Index(lbins, lid), l.clone());
            let count = b.load(pl);
            let pg = b.push(Inst::Index(bins, lid), g.clone());
            b.push(atomic(AtomicOp::Add, pg, vec![count]), Type::U32);
        },
        |_| {},
    );
    b.finish()
}

#[test]
fn histogram_with_local_and_global_atomics() {
    let n = 1000usize;
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut args = [
        KernelArg::Buffer(data.iter().flat_map(|x| x.to_le_bytes()).collect()),
        KernelArg::Buffer(vec![0; 17 * 4]),
        KernelArg::Local(16 * 4),
    ];
    // 25 groups of 40: every group has the 16 items that clear and flush its bins.
    run_kernel(
        &module_of(vec![histogram()]),
        "hist",
        &mut args,
        &NdRange::linear(n as u64, 40),
    )
    .unwrap();
    let bins = u32s(&args[1]);
    let mut want = [0u32; 16];
    for &v in &data {
        want[(v % 16) as usize] += 1;
    }
    assert_eq!(&bins[..16], &want);
    assert_eq!(bins[16], *data.iter().max().unwrap());
}

/// Writes, per work-item at its global linear id: the three global ids,
/// the global linear id, the local linear id, the three group ids and the
/// work dimension.
fn ids() -> Function {
    let g = gptr(Type::U64);
    let mut b = FunctionBuilder::new("ids", vec![param("out", g.clone())], Type::Void);
    let out = b.param(0);
    let lin = b.push(Inst::WorkItem(WorkItemFn::GlobalLinearId, None), Type::U64);
    let nine = b.push(Inst::Const(9), Type::U64);
    let base = b.binary(BinaryOp::Mul, lin, nine);
    let mut fields = Vec::new();
    for d in 0..3 {
        fields.push(work_item(&mut b, WorkItemFn::GlobalId, d));
    }
    fields.push(lin);
    fields.push(b.push(Inst::WorkItem(WorkItemFn::LocalLinearId, None), Type::U64));
    for d in 0..3 {
        fields.push(work_item(&mut b, WorkItemFn::GroupId, d));
    }
    let wd = b.push(Inst::WorkItem(WorkItemFn::WorkDim, None), Type::U32);
    fields.push(b.push(
        Inst::Convert {
            value: wd,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::U64,
    ));
    for (k, v) in fields.into_iter().enumerate() {
        let kk = b.push(Inst::Const(k as u64), Type::U64);
        let at = b.binary(BinaryOp::Add, base, kk);
        let p = b.push(Inst::Index(out, at), g.clone());
        b.store(p, v);
    }
    b.finish()
}

#[test]
fn three_dimensional_range_with_global_offset() {
    let range = NdRange {
        work_dim: 3,
        global_offset: [5, 100, 7],
        global_size: [6, 4, 3],
        local_size: [3, 2, 3],
    };
    let n = 6 * 4 * 3;
    let mut args = [KernelArg::Buffer(vec![0; n * 9 * 8])];
    run_kernel(&module_of(vec![ids()]), "ids", &mut args, &range).unwrap();
    let out = u64s(&args[0]);
    let mut seen = 0;
    for z in 0..3u64 {
        for y in 0..4u64 {
            for x in 0..6u64 {
                let lin = (z * 4 + y) * 6 + x;
                let rec = &out[lin as usize * 9..lin as usize * 9 + 9];
                let (lx, ly, lz) = (x % 3, y % 2, z % 3);
                let want = [
                    x + 5,
                    y + 100,
                    z + 7,
                    lin,
                    (lz * 2 + ly) * 3 + lx,
                    x / 3,
                    y / 2,
                    z / 3,
                    3,
                ];
                assert_eq!(rec, &want, "item ({x}, {y}, {z})");
                seen += 1;
            }
        }
    }
    assert_eq!(seen, n);
}

/// Per work-item: local size, enqueued local size, local id, group id, number of groups.
fn sizes() -> Function {
    let g = gptr(Type::U64);
    let mut b = FunctionBuilder::new("sizes", vec![param("out", g.clone())], Type::Void);
    let out = b.param(0);
    let gid = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let five = b.push(Inst::Const(5), Type::U64);
    let base = b.binary(BinaryOp::Mul, gid, five);
    let fields = [
        work_item(&mut b, WorkItemFn::LocalSize, 0),
        work_item(&mut b, WorkItemFn::EnqueuedLocalSize, 0),
        work_item(&mut b, WorkItemFn::LocalId, 0),
        work_item(&mut b, WorkItemFn::GroupId, 0),
        work_item(&mut b, WorkItemFn::NumGroups, 0),
    ];
    for (k, v) in fields.into_iter().enumerate() {
        let kk = b.push(Inst::Const(k as u64), Type::U64);
        let at = b.binary(BinaryOp::Add, base, kk);
        let p = b.push(Inst::Index(out, at), g.clone());
        b.store(p, v);
    }
    b.finish()
}

#[test]
fn non_uniform_last_group() {
    let mut args = [KernelArg::Buffer(vec![0; 10 * 5 * 8])];
    run_kernel(
        &module_of(vec![sizes()]),
        "sizes",
        &mut args,
        &NdRange::linear(10, 4),
    )
    .unwrap();
    let out = u64s(&args[0]);
    for i in 0..10u64 {
        let group = i / 4;
        let local_size = if group == 2 { 2 } else { 4 };
        assert_eq!(
            &out[i as usize * 5..i as usize * 5 + 5],
            &[local_size, 4, i % 4, group, 3],
            "item {i}"
        );
    }
}

/// `if (get_global_id(0) < 3) barrier(CLK_LOCAL_MEM_FENCE);`
fn divergent() -> Function {
    let mut b = FunctionBuilder::new("divergent", vec![], Type::Void);
    let gid = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let three = b.push(Inst::Const(3), Type::U64);
    let c = b.cmp(CmpOp::Lt, gid, three);
    b.if_else(
        c,
        |b| b.stmt(Stmt::Barrier(MemFlags::LOCAL, Loc { line: 3, col: 24 })),
        |_| {},
    );
    b.finish()
}

#[test]
fn barrier_reached_by_some_items_is_an_error() {
    let err = run_kernel(
        &module_of(vec![divergent()]),
        "divergent",
        &mut [],
        &NdRange::linear(8, 8),
    )
    .unwrap_err();
    match &err {
        InterpError::DivergentBarrier {
            kernel,
            work_item,
            missing_local,
            reached_local,
            group,
            loc,
        } => {
            assert_eq!(kernel, "divergent");
            assert_eq!(*work_item, [3, 0, 0]);
            assert_eq!(*missing_local, [3, 0, 0]);
            assert_eq!(*reached_local, [0, 0, 0]);
            assert_eq!(*group, [0, 0, 0]);
            assert_eq!(loc.line, 3);
        }
        other => panic!("expected a divergent barrier, got {other:?}"),
    }
    assert!(err.to_string().contains("work-item [3, 0, 0]"), "{err}");
    assert!(err.to_string().contains("local id [0, 0, 0] did"), "{err}");
    // With groups of 3 every group is uniform: the first group all reach it,
    // the others all skip it.
    run_kernel(
        &module_of(vec![divergent()]),
        "divergent",
        &mut [],
        &NdRange::linear(9, 3),
    )
    .unwrap();
}

#[test]
fn out_of_bounds_store_names_the_work_item() {
    let n = 100usize;
    let mut args = [
        KernelArg::Buffer(f32_bytes(&vec![1.0; n])),
        KernelArg::Buffer(f32_bytes(&vec![2.0; n])),
        KernelArg::Buffer(vec![0; (n - 1) * 4]),
    ];
    let err = run_kernel(
        &module_of(vec![vadd()]),
        "vadd",
        &mut args,
        &NdRange::linear(n as u64, 25),
    )
    .unwrap_err();
    match &err {
        InterpError::OutOfBounds {
            kernel,
            work_item,
            space,
            offset,
            size,
            ..
        } => {
            assert_eq!(kernel, "vadd");
            assert_eq!(*work_item, [99, 0, 0]);
            assert_eq!(*space, AddressSpace::Global);
            assert_eq!((*offset, *size), (99 * 4, 4));
        }
        other => panic!("expected out of bounds, got {other:?}"),
    }
    assert!(err.to_string().contains("argument `c`"), "{err}");
    // Every in-bounds store happened before the fault.
    assert!(f32s(&args[2]).iter().all(|&x| x == 3.0));
}

#[test]
fn launch_errors() {
    let m = module_of(vec![vadd()]);
    let range = NdRange::linear(4, 4);
    assert_eq!(
        run_kernel(&m, "nope", &mut [], &range),
        Err(InterpError::UnknownKernel("nope".into()))
    );
    let mut two = [KernelArg::Buffer(vec![]), KernelArg::Buffer(vec![])];
    assert!(matches!(
        run_kernel(&m, "vadd", &mut two, &range),
        Err(InterpError::ArgMismatch { .. })
    ));
    let mut wrong = [
        KernelArg::Buffer(vec![]),
        KernelArg::Value(vec![0; 4]),
        KernelArg::Buffer(vec![]),
    ];
    assert!(matches!(
        run_kernel(&m, "vadd", &mut wrong, &range),
        Err(InterpError::ArgMismatch { index: 1, .. })
    ));
    let mut null = [
        KernelArg::Null,
        KernelArg::Buffer(vec![0; 16]),
        KernelArg::Buffer(vec![0; 16]),
    ];
    let err = run_kernel(&m, "vadd", &mut null, &range).unwrap_err();
    assert!(
        matches!(&err, InterpError::OutOfBounds { work_item: [0, 0, 0], object, .. } if object == "null"),
        "{err}"
    );
}

/// ```c
/// void sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }
/// kernel void rotate(global int *buf, local int *tmp, uint n) {
///     size_t l = get_local_id(0), ls = get_local_size(0);
///     if (get_global_id(0) >= n) return;      // the tail of the last group leaves early
///     tmp[l] = buf[get_global_id(0)];
///     sync();                                   // a barrier inside a called function
///     size_t g = get_group_id(0) * ls;
///     size_t live = min(ls, n - g);
///     buf[get_global_id(0)] = tmp[(l + 1) % live];
/// }
/// ```
fn rotate() -> (Function, Function) {
    let mut s = FunctionBuilder::new("sync", vec![], Type::Void);
    s.stmt(Stmt::Barrier(MemFlags::LOCAL, Loc::NONE));
    let sync = s.finish();

    let g = gptr(Type::I32);
    let l = lptr(Type::I32);
    let params = vec![
        param("buf", g.clone()),
        param("tmp", l.clone()),
        param("n", Type::U32),
    ];
    let mut b = FunctionBuilder::new("rotate", params, Type::Void);
    let (buf, tmp, n) = (b.param(0), b.param(1), b.param(2));
    let lid = work_item(&mut b, WorkItemFn::LocalId, 0);
    let ls = work_item(&mut b, WorkItemFn::LocalSize, 0);
    let gid = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let n64 = b.push(
        Inst::Convert {
            value: n,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::U64,
    );
    let out = b.cmp(CmpOp::Ge, gid, n64);
    b.if_else(out, |b| b.stmt(Stmt::Return(None)), |_| {});
    let src = b.push(Inst::Index(buf, gid), g.clone());
    let x = b.load(src);
    let dst = b.push(Inst::Index(tmp, lid), l.clone());
    b.store(dst, x);
    b.push(Inst::Call(FuncId(0), vec![]), Type::Void);
    let grp = work_item(&mut b, WorkItemFn::GroupId, 0);
    let first = b.binary(BinaryOp::Mul, grp, ls);
    let rest = b.binary(BinaryOp::Sub, n64, first);
    let live = b.push(Inst::Builtin(Builtin::Min, vec![ls, rest]), Type::U64);
    let one = b.push(Inst::Const(1), Type::U64);
    let next = b.binary(BinaryOp::Add, lid, one);
    let k = b.binary(BinaryOp::Rem, next, live);
    let pk = b.push(Inst::Index(tmp, k), l.clone());
    let y = b.load(pk);
    b.store(src, y);
    (sync, b.finish())
}

#[test]
fn items_that_returned_are_not_waited_for_at_barriers() {
    let (sync, rot) = rotate();
    let mut rot = rot;
    rot.kernel = Some(KernelInfo::default());
    let module = Module {
        functions: vec![sync, rot],
        ..Module::default()
    };
    let (n, global, local) = (21usize, 24u64, 8usize);
    let input: Vec<i32> = (0..global as i32).map(|i| i * 10).collect();
    let mut args = [
        KernelArg::Buffer(input.iter().flat_map(|x| x.to_le_bytes()).collect()),
        KernelArg::Local(local * 4),
        KernelArg::Value((n as u32).to_le_bytes().to_vec()),
    ];
    run_kernel(
        &module,
        "rotate",
        &mut args,
        &NdRange::linear(global, local as u64),
    )
    .unwrap();
    let KernelArg::Buffer(out) = &args[0] else {
        unreachable!()
    };
    let out: Vec<i32> = out
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for i in 0..global as usize {
        let want = if i >= n {
            input[i]
        } else {
            let first = i / local * local;
            let live = local.min(n - first);
            input[first + (i - first + 1) % live]
        };
        assert_eq!(out[i], want, "buf[{i}]");
    }
}

/// ```c
/// kernel void groups(global int *in, global int *out) {
///     int x = in[get_global_id(0)];
///     out[5 * i + 0] = work_group_reduce_add(x);
///     out[5 * i + 1] = work_group_scan_inclusive_add(x);
///     out[5 * i + 2] = work_group_scan_exclusive_max(x);
///     out[5 * i + 3] = work_group_broadcast(x, 2);
///     out[5 * i + 4] = work_group_any(x > 40);
/// }
/// ```
fn collectives() -> Function {
    let g = gptr(Type::I32);
    let mut b = FunctionBuilder::new(
        "groups",
        vec![param("in", g.clone()), param("out", g.clone())],
        Type::Void,
    );
    let (pin, out) = (b.param(0), b.param(1));
    let gid = work_item(&mut b, WorkItemFn::GlobalId, 0);
    let src = b.push(Inst::Index(pin, gid), g.clone());
    let x = b.load(src);
    let two = b.push(Inst::Const(2), Type::U64);
    let forty = b.const_i32(40);
    let big = b.cmp(CmpOp::Gt, x, forty);
    let big = b.push(
        Inst::Convert {
            value: big,
            saturate: false,
            rounding: Rounding::Default,
        },
        Type::I32,
    );
    let results = [
        b.push(
            Inst::Builtin(Builtin::WorkGroupReduceAdd, vec![x]),
            Type::I32,
        ),
        b.push(
            Inst::Builtin(Builtin::WorkGroupScanInclusiveAdd, vec![x]),
            Type::I32,
        ),
        b.push(
            Inst::Builtin(Builtin::WorkGroupScanExclusiveMax, vec![x]),
            Type::I32,
        ),
        b.push(
            Inst::Builtin(Builtin::WorkGroupBroadcast, vec![x, two]),
            Type::I32,
        ),
        b.push(Inst::Builtin(Builtin::WorkGroupAny, vec![big]), Type::I32),
    ];
    let five = b.push(Inst::Const(5), Type::U64);
    let base = b.binary(BinaryOp::Mul, gid, five);
    for (k, r) in results.into_iter().enumerate() {
        let kk = b.push(Inst::Const(k as u64), Type::U64);
        let at = b.binary(BinaryOp::Add, base, kk);
        let p = b.push(Inst::Index(out, at), g.clone());
        b.store(p, r);
    }
    b.finish()
}

#[test]
fn work_group_collectives_combine_in_local_id_order() {
    let (n, local) = (21usize, 8usize);
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 50 - 10).collect();
    let mut args = [
        KernelArg::Buffer(input.iter().flat_map(|x| x.to_le_bytes()).collect()),
        KernelArg::Buffer(vec![0; n * 5 * 4]),
    ];
    run_kernel(
        &module_of(vec![collectives()]),
        "groups",
        &mut args,
        &NdRange::linear(n as u64, local as u64),
    )
    .unwrap();
    let KernelArg::Buffer(out) = &args[1] else {
        unreachable!()
    };
    let out: Vec<i32> = out
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for i in 0..n {
        let group = &input[i / local * local..(i / local * local + local).min(n)];
        let l = i % local;
        let want = [
            group.iter().sum::<i32>(),
            group[..=l].iter().sum(),
            group[..l].iter().copied().max().unwrap_or(i32::MIN),
            group[2],
            i32::from(group.iter().any(|&x| x > 40)),
        ];
        assert_eq!(&out[5 * i..5 * i + 5], &want, "item {i}");
    }
}

#[test]
fn one_buffer_passed_as_several_arguments() {
    // vadd(a, a, a + n): the second half of the buffer receives a[i] + a[i].
    let n = 40usize;
    let first: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let mut data = f32_bytes(&first);
    data.resize(2 * n * 4, 0);
    let mut args = [
        KernelArg::Buffer(data),
        KernelArg::Alias { arg: 0, offset: 0 },
        KernelArg::Alias {
            arg: 0,
            offset: (n * 4) as u64,
        },
    ];
    run_kernel(
        &module_of(vec![vadd()]),
        "vadd",
        &mut args,
        &NdRange::linear(n as u64, 8),
    )
    .unwrap();
    let all = f32s(&args[0]);
    for i in 0..n {
        assert_eq!(all[i], first[i], "a[{i}] is untouched");
        assert_eq!(all[n + i], first[i] * 2.0, "a[{}]", n + i);
    }
    // Past the end of the parent buffer is out of bounds.
    let mut args = [
        KernelArg::Buffer(f32_bytes(&first)),
        KernelArg::Alias { arg: 0, offset: 0 },
        KernelArg::Alias { arg: 0, offset: 4 },
    ];
    let err = run_kernel(
        &module_of(vec![vadd()]),
        "vadd",
        &mut args,
        &NdRange::linear(n as u64, 8),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::OutOfBounds {
                work_item: [39, 0, 0],
                ..
            }
        ),
        "{err}"
    );
    let mut bad = [
        KernelArg::Alias { arg: 1, offset: 0 },
        KernelArg::Null,
        KernelArg::Null,
    ];
    assert!(matches!(
        run_kernel(
            &module_of(vec![vadd()]),
            "vadd",
            &mut bad,
            &NdRange::linear(1, 1)
        ),
        Err(InterpError::ArgMismatch { index: 0, .. })
    ));
}

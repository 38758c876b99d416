//! Printing then parsing gives back the very same module.
//!
//! One hand-built module uses every type, instruction, statement and enum
//! value of the IR; a generator then builds random modules — not valid ones,
//! just well-formed enough to print (every reference in range) — with odd
//! names, odd layouts, arbitrary constant bits and instructions evaluated
//! zero, one or two times. The verifier runs on the same random modules:
//! it must report, never panic.

use proptest::prelude::*;
use vecl_ir::text::{parse_module, print_module};
use vecl_ir::*;

fn round_trip(m: &Module) {
    let text = print_module(m);
    match parse_module(&text) {
        Ok(back) => {
            assert_eq!(&back, m, "module changed through the text:\n{text}");
            assert_eq!(print_module(&back), text);
        }
        Err(e) => panic!("printed text does not parse: {e}\n{text}"),
    }
}

fn inst(inst: Inst, ty: Type) -> InstData {
    InstData {
        inst,
        ty,
        loc: Loc::NONE,
    }
}

/// A module that uses every variant at least once.
fn everything() -> Module {
    let s0 = StructDef::layout(
        "Pair",
        false,
        false,
        1,
        vec![
            ("a".into(), Type::I32),
            ("b".into(), Type::vector(Scalar::F32, 3)),
        ],
        &[],
    );
    let s1 = StructDef::layout(
        "P",
        false,
        true,
        1,
        vec![
            ("c".into(), Type::Scalar(Scalar::I8)),
            ("d".into(), Type::I64),
        ],
        &[],
    );
    let s2 = StructDef::layout(
        "U",
        true,
        false,
        32,
        vec![
            ("x".into(), Type::F64),
            ("y".into(), Type::Struct(StructId(0))),
        ],
        &[s0.clone(), s1.clone()],
    );
    // A layout no rule produces: printed with explicit offsets.
    let s3 = StructDef {
        name: "odd name".into(),
        is_union: false,
        packed: false,
        fields: vec![Field {
            name: "".into(),
            ty: Type::U32,
            offset: 4,
        }],
        size: 12,
        align: 4,
    };
    let structs = vec![s0, s1, s2, s3];
    let globals = vec![
        Global {
            name: "lut".into(),
            space: AddressSpace::Constant,
            ty: Type::array(Type::F32, 2),
            init: Some(vec![0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]),
        },
        Global {
            name: "tile".into(),
            space: AddressSpace::Local,
            ty: Type::array(Type::F32, 64),
            init: None,
        },
        Global {
            name: "counter".into(),
            space: AddressSpace::Global,
            ty: Type::U32,
            init: Some(vec![0; 4]),
        },
        Global {
            name: "second".into(),
            space: AddressSpace::Global,
            ty: Type::ptr(AddressSpace::Constant, Type::F32),
            init: Some(vec![0; 8]),
        },
    ];
    // `second` holds the address of lut[1].
    let relocs = vec![Reloc {
        global: GlobalId(3),
        offset: 0,
        target: GlobalId(0),
        addend: 4,
    }];

    let gptr = Type::ptr(AddressSpace::Global, Type::U32);
    let mut insts = Vec::new();
    let mut body = Vec::new();
    let mut push = |d: InstData, body: &mut Vec<Stmt>| {
        insts.push(d);
        let v = ValueId(insts.len() as u32 - 1);
        body.push(Stmt::Eval(v));
        v
    };
    let p = push(inst(Inst::Param(0), gptr.clone()), &mut body);
    let zero = push(inst(Inst::Const(0), Type::U32), &mut body);
    let f = push(
        inst(Inst::Const(u64::from(1.5f32.to_bits())), Type::F32),
        &mut body,
    );
    push(
        inst(Inst::Const(0x3c00), Type::Scalar(Scalar::F16)),
        &mut body,
    );
    push(
        inst(Inst::Const(f64::NAN.to_bits() | 1), Type::F64),
        &mut body,
    );
    let t = push(inst(Inst::Const(1), Type::BOOL), &mut body);
    let neg = push(
        inst(Inst::Const(u64::from((-7i32) as u32)), Type::I32),
        &mut body,
    );
    let _undef = push(inst(Inst::Undef, Type::vector(Scalar::I16, 8)), &mut body);
    for op in [UnaryOp::Neg, UnaryOp::Not] {
        push(inst(Inst::Unary(op, neg), Type::I32), &mut body);
    }
    use BinaryOp::*;
    for op in [Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr] {
        push(inst(Inst::Binary(op, neg, neg), Type::I32), &mut body);
    }
    let mut cond = t;
    for op in [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ] {
        cond = push(inst(Inst::Cmp(op, f, f), Type::BOOL), &mut body);
    }
    push(inst(Inst::Select(cond, f, f), Type::F32), &mut body);
    for (sat, r) in [
        (false, Rounding::Default),
        (true, Rounding::Rte),
        (false, Rounding::Rtz),
        (true, Rounding::Rtp),
        (false, Rounding::Rtn),
    ] {
        push(
            inst(
                Inst::Convert {
                    value: f,
                    saturate: sat,
                    rounding: r,
                },
                Type::I32,
            ),
            &mut body,
        );
    }
    push(inst(Inst::Bitcast(f), Type::U32), &mut body);
    let v4 = push(
        inst(Inst::Splat(f), Type::vector(Scalar::F32, 4)),
        &mut body,
    );
    let v2 = push(
        inst(Inst::Construct(vec![f, f]), Type::vector(Scalar::F32, 2)),
        &mut body,
    );
    push(
        inst(
            Inst::Construct(vec![v2, f, f]),
            Type::vector(Scalar::F32, 4),
        ),
        &mut body,
    );
    push(inst(Inst::Extract(v4, 3), Type::F32), &mut body);
    push(
        inst(Inst::Insert(v4, 1, f), Type::vector(Scalar::F32, 4)),
        &mut body,
    );
    push(
        inst(
            Inst::Shuffle(v4, v4, vec![3, 2, 1, 0, 7, 6, 5, 4]),
            Type::vector(Scalar::F32, 8),
        ),
        &mut body,
    );
    push(inst(Inst::ReadVar(VarId(0)), Type::F32), &mut body);
    let slot = push(
        inst(
            Inst::SlotAddr(SlotId(0)),
            Type::ptr(AddressSpace::Private, Type::Struct(StructId(0))),
        ),
        &mut body,
    );
    let g = push(inst(Inst::GlobalAddr(GlobalId(2)), gptr.clone()), &mut body);
    let idx = push(inst(Inst::Index(p, zero), gptr.clone()), &mut body);
    push(
        inst(
            Inst::Field(slot, 1),
            Type::ptr(AddressSpace::Private, Type::vector(Scalar::F32, 3)),
        ),
        &mut body,
    );
    let lut = push(
        inst(
            Inst::GlobalAddr(GlobalId(0)),
            Type::ptr(AddressSpace::Constant, Type::array(Type::F32, 2)),
        ),
        &mut body,
    );
    push(
        inst(
            Inst::Elem(lut, zero),
            Type::ptr(AddressSpace::Constant, Type::F32),
        ),
        &mut body,
    );
    push(
        inst(
            Inst::PtrCast(g),
            Type::ptr(AddressSpace::Generic, Type::I32),
        ),
        &mut body,
    );
    push(inst(Inst::PtrToInt(g), Type::U64), &mut body);
    let x = push(inst(Inst::Load(idx), Type::U32), &mut body);
    use AtomicOp as A;
    let orders = [
        MemoryOrder::Relaxed,
        MemoryOrder::Acquire,
        MemoryOrder::Release,
        MemoryOrder::AcqRel,
        MemoryOrder::SeqCst,
    ];
    let scopes = [
        MemoryScope::WorkItem,
        MemoryScope::SubGroup,
        MemoryScope::WorkGroup,
        MemoryScope::Device,
        MemoryScope::AllDevices,
    ];
    for (i, op) in [
        A::Load,
        A::Store,
        A::Add,
        A::Sub,
        A::Xchg,
        A::Inc,
        A::Dec,
        A::CmpXchg,
        A::Min,
        A::Max,
        A::And,
        A::Or,
        A::Xor,
    ]
    .into_iter()
    .enumerate()
    {
        let args = match op {
            A::Load | A::Inc | A::Dec => vec![],
            A::CmpXchg => vec![x, x],
            _ => vec![x],
        };
        let ty = if op == A::Store {
            Type::Void
        } else {
            Type::U32
        };
        push(
            inst(
                Inst::Atomic {
                    op,
                    ptr: g,
                    args,
                    order: orders[i % 5],
                    scope: scopes[(i / 2) % 5],
                },
                ty,
            ),
            &mut body,
        );
    }
    use WorkItemFn as W;
    for wi in [
        W::WorkDim,
        W::GlobalSize,
        W::GlobalId,
        W::LocalSize,
        W::EnqueuedLocalSize,
        W::LocalId,
        W::NumGroups,
        W::GroupId,
        W::GlobalOffset,
        W::GlobalLinearId,
        W::LocalLinearId,
    ] {
        let dim = if matches!(wi, W::WorkDim | W::GlobalLinearId | W::LocalLinearId) {
            None
        } else {
            Some(zero)
        };
        let ty = if wi == W::WorkDim {
            Type::U32
        } else {
            Type::U64
        };
        push(inst(Inst::WorkItem(wi, dim), ty), &mut body);
    }
    let call = push(
        inst(Inst::Call(FuncId(1), vec![f, zero]), Type::F32),
        &mut body,
    );
    push(
        inst(Inst::Builtin(Builtin::Sqrt, vec![call]), Type::F32),
        &mut body,
    );
    push(
        inst(
            Inst::Builtin(Builtin::GetSubGroupEqMask, vec![]),
            Type::vector(Scalar::U32, 4),
        ),
        &mut body,
    );

    // Statements.
    let mut then_ = Vec::new();
    let inner = push(inst(Inst::Const(2), Type::U32), &mut then_);
    then_.push(Stmt::Store {
        ptr: idx,
        value: inner,
        loc: Loc { line: 9, col: 3 },
    });
    then_.push(Stmt::WriteVar(VarId(0), f));
    body.push(Stmt::If {
        cond,
        then_: Block(then_),
        else_: Block(vec![Stmt::Copy {
            dst: slot,
            src: slot,
            size: 32,
            loc: Loc::NONE,
        }]),
    });
    body.push(Stmt::If {
        cond,
        then_: Block(vec![Stmt::Return(None)]),
        else_: Block::default(),
    });
    body.push(Stmt::Loop {
        body: Block(vec![Stmt::If {
            cond,
            then_: Block(vec![Stmt::Break]),
            else_: Block(vec![Stmt::Continue]),
        }]),
        continuing: Block(vec![Stmt::Barrier(
            MemFlags::LOCAL,
            Loc { line: 4, col: 1 },
        )]),
    });
    body.push(Stmt::Loop {
        body: Block(vec![Stmt::Break]),
        continuing: Block::default(),
    });
    body.push(Stmt::Switch {
        selector: neg,
        cases: vec![
            SwitchCase {
                values: vec![1, -2],
                is_default: false,
                body: Block(vec![Stmt::Fence(MemFlags(3))]),
            },
            SwitchCase {
                values: vec![i64::MIN],
                is_default: true,
                body: Block(vec![Stmt::Break]),
            },
            SwitchCase {
                values: vec![],
                is_default: true,
                body: Block::default(),
            },
            SwitchCase {
                values: vec![],
                is_default: false,
                body: Block::default(),
            },
        ],
    });
    body.push(Stmt::Barrier(MemFlags(0), Loc::NONE));
    body.push(Stmt::Barrier(MemFlags(2 | 4 | 64), Loc::NONE));
    body.push(Stmt::Eval(zero));
    body.push(Stmt::Return(None));
    // Never evaluated.
    insts.push(InstData {
        inst: Inst::Const(5),
        ty: Type::U32,
        loc: Loc { line: 0, col: 7 },
    });

    let params: Vec<Param> = vec![
        Param {
            name: "out".into(),
            ty: gptr.clone(),
            byval: false,
        },
        Param {
            name: "s".into(),
            ty: Type::ptr(AddressSpace::Private, Type::Struct(StructId(1))),
            byval: true,
        },
    ];
    let arg = |t: &str, address, access, q| ArgInfo {
        type_name: t.into(),
        address,
        access,
        qualifiers: q,
    };
    let kernel = Function {
        name: "everything".into(),
        params,
        ret: Type::Void,
        kernel: Some(KernelInfo {
            args: vec![
                arg(
                    "uint*",
                    AddressSpace::Global,
                    AccessQualifier::None,
                    TypeQualifiers {
                        is_const: true,
                        is_restrict: true,
                        is_volatile: true,
                        is_pipe: true,
                    },
                ),
                arg(
                    "struct P",
                    AddressSpace::Private,
                    AccessQualifier::ReadWrite,
                    TypeQualifiers::default(),
                ),
            ],
            reqd_work_group_size: Some([64, 1, 1]),
            work_group_size_hint: Some([8, 8, 2]),
            vec_type_hint: Some(Type::vector(Scalar::F32, 4)),
            reqd_sub_group_size: Some(16),
        }),
        vars: vec![
            Var {
                name: "acc".into(),
                ty: Type::F32,
            },
            Var {
                name: String::new(),
                ty: Type::ptr(AddressSpace::Local, Type::I32),
            },
        ],
        slots: vec![
            Slot {
                name: "pair".into(),
                ty: Type::Struct(StructId(0)),
            },
            Slot {
                name: "arr".into(),
                ty: Type::array(Type::array(Type::Scalar(Scalar::U8), 3), 4),
            },
        ],
        insts,
        body: Block(body),
    };
    let helper = Function {
        name: "helper".into(),
        params: vec![
            Param {
                name: "x".into(),
                ty: Type::F32,
                byval: false,
            },
            Param {
                name: "i".into(),
                ty: Type::U32,
                byval: false,
            },
        ],
        ret: Type::F32,
        kernel: None,
        vars: vec![],
        slots: vec![],
        insts: vec![inst(Inst::Param(0), Type::F32)],
        body: Block(vec![Stmt::Eval(ValueId(0)), Stmt::Return(Some(ValueId(0)))]),
    };
    let mut bare = Function::new("bare kernel", vec![], Type::Void);
    bare.kernel = Some(KernelInfo::default());
    Module {
        structs,
        globals,
        functions: vec![kernel, helper, bare],
        math: MathFlags {
            mad_enable: true,
            finite_math_only: true,
            denorms_are_zero: true,
            ..MathFlags::default()
        },
        relocs,
    }
}

#[test]
fn every_variant_round_trips() {
    let m = everything();
    round_trip(&m);
    let text = print_module(&m);
    assert_eq!(m.to_string(), text, "Display prints the text form");
    for expected in [
        "packed struct %P { c: i8, d: i64 }",
        "union %U { x: f64, y: %Pair } align 32",
        "struct %\"odd name\" { \"\": u32 offset 4 } size 12 align 4",
        "global @lut: constant [2 x f32] = x\"0000803f00000040\"",
        "reloc @second[0] = @lut[4]",
        "kernel @everything(out: ptr global u32, s: ptr private %P byval)",
        "  args [\"uint*\" global const restrict volatile pipe, \"struct P\" private read_write]",
        "  vec_type_hint(<4 x f32>)",
        "  reqd_sub_group_size(16) {",
        "%2: f32 = const 1.5",
        "%3: f16 = const 1.0",
        "%4: f64 = const 0x7ff8000000000001",
        "%6: i32 = const -7",
        "= convert sat rte %2",
        "= atomic cmpxchg %",
        "store %",
        "at 9:3",
        "case 1, -2 {",
        "case -9223372036854775808, default {",
        "    default {",
        "    case {",
        "barrier none",
        "barrier global|image|0x40",
        "fence local|global",
        "detached %",
        "at 0:7",
        "kernel @\"bare kernel\"() {",
        "= call @helper(%2, %1)",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in\n{text}");
    }
}

#[test]
fn named_values_number_after_the_numbered_ones() {
    let named = "kernel @vadd(a: ptr global f32, b: ptr global f32, c: ptr global f32)
  args [\"float*\" global const, \"float*\" global const, \"float*\" global] {
  %a: ptr global f32 = param 0
  %b: ptr global f32 = param 1
  %c: ptr global f32 = param 2
  %zero: u32 = const 0
  %gid: u64 = work_item global_id %zero at 3:15
  %pa: ptr global f32 = index %a, %gid
  %x: f32 = load %pa at 4:13
  %pb: ptr global f32 = index %b, %gid
  %y: f32 = load %pb at 4:20
  %sum: f32 = add %x, %y at 4:18
  %pc: ptr global f32 = index %c, %gid
  store %pc, %sum at 4:10
}
";
    let corpus = include_str!("corpus/vadd.ir");
    assert_eq!(parse_module(named), parse_module(corpus));

    // Mixed: %0 and %1 keep their numbers, the names follow in order.
    let mixed = "fn @f(x: i32) -> i32 {
  %1: i32 = const 2
  %0: i32 = param 0
  %twice: i32 = mul %0, %1
  if %twice {
    %inner: i32 = add %twice, %0
    eval %inner
  }
  return %twice
}
";
    let m = parse_module(mixed).expect("parses");
    let text = print_module(&m);
    assert!(text.contains("%2: i32 = mul %0, %1"), "{text}");
    assert!(text.contains("%3: i32 = add %2, %0"), "{text}");
    assert!(text.contains("eval %3"), "{text}");
    assert!(text.contains("return %2"), "{text}");
    assert_eq!(m.functions[0].insts[0].inst, Inst::Param(0));
    assert_eq!(m.functions[0].insts[1].inst, Inst::Const(2));
}

#[test]
fn access_qualifiers_round_trip() {
    for access in [
        AccessQualifier::None,
        AccessQualifier::ReadOnly,
        AccessQualifier::WriteOnly,
        AccessQualifier::ReadWrite,
    ] {
        let mut f = Function::new(
            "k",
            vec![Param {
                name: "img".into(),
                ty: Type::U64,
                byval: false,
            }],
            Type::Void,
        );
        f.kernel = Some(KernelInfo {
            args: vec![ArgInfo {
                type_name: "image2d_t".into(),
                address: AddressSpace::Global,
                access,
                qualifiers: TypeQualifiers::default(),
            }],
            ..KernelInfo::default()
        });
        round_trip(&Module {
            functions: vec![f],
            ..Module::default()
        });
    }
}

#[test]
fn every_address_space_and_scalar_round_trips() {
    let mut globals = Vec::new();
    for space in AddressSpace::ALL {
        for s in Scalar::ALL {
            globals.push(Global {
                name: format!("g_{space}_{s}"),
                space,
                ty: Type::ptr(space, Type::Scalar(s)),
                init: None,
            });
        }
    }
    round_trip(&Module {
        globals,
        ..Module::default()
    });
}

#[test]
fn duplicate_names_print_by_index() {
    let mut m = everything();
    m.functions[2].name = "helper".into();
    m.functions[0]
        .insts
        .push(inst(Inst::Call(FuncId(2), vec![]), Type::Void));
    m.structs[1].name = "Pair".into();
    round_trip(&m);
    let text = print_module(&m);
    assert!(text.contains("call @#1("), "{text}");
    assert!(text.contains("call @#2()"), "{text}");
    assert!(text.contains("%#0"), "{text}");
}

/// SplitMix64: a small deterministic generator for random modules.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }

    fn name(&mut self) -> String {
        const PARTS: [&str; 10] = [
            "a",
            "b_1",
            "x.y",
            "",
            "weird name",
            "\"q\"",
            "tab\t",
            "é",
            "9lives",
            "kernel",
        ];
        let mut s = self.pick(&PARTS).to_string();
        if self.chance(30) {
            s.push_str(self.pick(&PARTS));
        }
        s
    }

    fn scalar(&mut self) -> Scalar {
        self.pick(&Scalar::ALL)
    }

    fn ty(&mut self, n_structs: usize, depth: u32) -> Type {
        let k = if depth > 3 {
            self.below(3)
        } else {
            self.below(6)
        };
        match k {
            0 => Type::Scalar(self.scalar()),
            1 => Type::Vector(self.scalar(), self.pick(&[2, 3, 4, 8, 16, 0, 255])),
            2 if n_structs > 0 => Type::Struct(StructId(self.below(n_structs) as u32)),
            2 => Type::Void,
            3 => Type::ptr(self.pick(&AddressSpace::ALL), self.ty(n_structs, depth + 1)),
            4 => Type::array(self.ty(n_structs, depth + 1), self.pick(&[0, 1, 3, 16])),
            _ => Type::Void,
        }
    }

    fn loc(&mut self) -> Loc {
        if self.chance(50) {
            Loc::NONE
        } else {
            Loc {
                line: self.below(1000) as u32,
                col: self.below(100) as u32,
            }
        }
    }
}

fn random_module(seed: u64) -> Module {
    let mut r = Rng(seed);
    let n_structs = r.below(4);
    let mut structs: Vec<StructDef> = Vec::new();
    for i in 0..n_structs {
        let nf = r.below(4);
        // By value, only earlier structs (a struct cannot contain itself).
        let fields: Vec<(String, Type)> = (0..nf)
            .map(|_| {
                let mut t = r.ty(i, 1);
                if matches!(t, Type::Void) {
                    t = Type::ptr(
                        AddressSpace::Private,
                        Type::Struct(StructId(r.below(n_structs) as u32)),
                    );
                }
                (r.name(), t)
            })
            .collect();
        let (is_union, packed) = (r.chance(30), r.chance(30));
        let mut def = StructDef::layout(
            &r.name(),
            is_union,
            packed,
            r.pick(&[1, 1, 16, 64]),
            fields,
            &structs,
        );
        if r.chance(20) {
            def.size += 4;
        }
        structs.push(def);
    }
    let n_globals = r.below(4);
    let globals = (0..n_globals)
        .map(|_| Global {
            name: r.name(),
            space: r.pick(&AddressSpace::ALL),
            ty: r.ty(n_structs, 0),
            init: r
                .chance(50)
                .then(|| (0..r.below(9)).map(|_| r.next() as u8).collect()),
        })
        .collect();
    let n_funcs = 1 + r.below(3);
    let functions = (0..n_funcs)
        .map(|_| random_function(&mut r, n_structs, n_globals, n_funcs))
        .collect();
    let mut math = MathFlags::default();
    for name in MathFlags::NAMES {
        if let (true, Some(flag)) = (r.chance(30), math.flag_mut(name)) {
            *flag = true;
        }
    }
    Module {
        structs,
        globals,
        functions,
        math,
        relocs: Vec::new(),
    }
}

fn random_function(r: &mut Rng, n_structs: usize, n_globals: usize, n_funcs: usize) -> Function {
    let params: Vec<Param> = (0..r.below(4))
        .map(|_| Param {
            name: r.name(),
            ty: r.ty(n_structs, 0),
            byval: r.chance(20),
        })
        .collect();
    let mut f = Function::new(
        r.name(),
        params,
        if r.chance(50) {
            Type::Void
        } else {
            r.ty(n_structs, 0)
        },
    );
    if r.chance(50) {
        let args = (0..r.below(4))
            .map(|_| ArgInfo {
                type_name: r.name(),
                address: r.pick(&AddressSpace::ALL),
                access: r.pick(&[
                    AccessQualifier::None,
                    AccessQualifier::ReadOnly,
                    AccessQualifier::WriteOnly,
                    AccessQualifier::ReadWrite,
                ]),
                qualifiers: TypeQualifiers {
                    is_const: r.chance(50),
                    is_restrict: r.chance(50),
                    is_volatile: r.chance(20),
                    is_pipe: r.chance(10),
                },
            })
            .collect();
        let triple = |r: &mut Rng| [r.below(1025) as u32, r.below(9) as u32, u32::MAX];
        f.kernel = Some(KernelInfo {
            args,
            reqd_work_group_size: r.chance(50).then(|| triple(r)),
            work_group_size_hint: r.chance(30).then(|| triple(r)),
            vec_type_hint: r.chance(30).then(|| r.ty(n_structs, 0)),
            reqd_sub_group_size: r.chance(30).then(|| 1 + r.below(64) as u32),
        });
    }
    f.vars = (0..r.below(3))
        .map(|_| Var {
            name: r.name(),
            ty: r.ty(n_structs, 0),
        })
        .collect();
    f.slots = (0..r.below(3))
        .map(|_| Slot {
            name: r.name(),
            ty: r.ty(n_structs, 0),
        })
        .collect();
    let n = 1 + r.below(30);
    let (nv, ns) = (f.vars.len(), f.slots.len());
    for _ in 0..n {
        let ty = r.ty(n_structs, 0);
        let inst = random_inst(r, n, nv, ns, n_globals, n_funcs, &ty);
        f.insts.push(InstData {
            inst,
            ty,
            loc: r.loc(),
        });
    }
    // Evaluate each instruction zero, one or two times, at random depths.
    let mut evals: Vec<Stmt> = Vec::new();
    for i in 0..n {
        let times = r.pick(&[0, 1, 1, 1, 2]);
        for _ in 0..times {
            evals.push(Stmt::Eval(ValueId(i as u32)));
        }
    }
    // Shuffle.
    for i in (1..evals.len()).rev() {
        let j = r.below(i + 1);
        evals.swap(i, j);
    }
    f.body = random_block(r, &mut evals, n, nv, 0);
    f.body.0.extend(evals);
    f
}

fn random_block(r: &mut Rng, evals: &mut Vec<Stmt>, n: usize, nv: usize, depth: u32) -> Block {
    let mut out = Vec::new();
    let v = |r: &mut Rng| ValueId(r.below(n) as u32);
    for _ in 0..r.below(6) {
        let k = if depth > 3 { r.below(9) } else { r.below(13) };
        let s = match k {
            0..=2 => match evals.pop() {
                Some(e) => e,
                None => Stmt::Break,
            },
            3 if nv > 0 => Stmt::WriteVar(VarId(r.below(nv) as u32), v(r)),
            3 => Stmt::Continue,
            4 => Stmt::Store {
                ptr: v(r),
                value: v(r),
                loc: r.loc(),
            },
            5 => Stmt::Copy {
                dst: v(r),
                src: v(r),
                size: r.next() as u32,
                loc: r.loc(),
            },
            6 => Stmt::Return(r.chance(50).then(|| v(r))),
            7 => Stmt::Barrier(
                MemFlags(r.pick(&[0, 1, 2, 3, 4, 7, 8, 0x8000_0001])),
                r.loc(),
            ),
            8 => Stmt::Fence(MemFlags(r.pick(&[0, 1, 2, 3, 16]))),
            9 => Stmt::If {
                cond: v(r),
                then_: random_block(r, evals, n, nv, depth + 1),
                else_: random_block(r, evals, n, nv, depth + 1),
            },
            10 => Stmt::Loop {
                body: random_block(r, evals, n, nv, depth + 1),
                continuing: random_block(r, evals, n, nv, depth + 1),
            },
            _ => {
                let cases = (0..r.below(4))
                    .map(|_| SwitchCase {
                        values: (0..r.below(3)).map(|_| r.next() as i64).collect(),
                        is_default: r.chance(30),
                        body: random_block(r, evals, n, nv, depth + 1),
                    })
                    .collect();
                Stmt::Switch {
                    selector: v(r),
                    cases,
                }
            }
        };
        out.push(s);
    }
    Block(out)
}

fn random_inst(
    r: &mut Rng,
    n: usize,
    nv: usize,
    ns: usize,
    ng: usize,
    nf: usize,
    ty: &Type,
) -> Inst {
    let v = |r: &mut Rng| ValueId(r.below(n) as u32);
    let vs = |r: &mut Rng| {
        (0..r.below(4))
            .map(|_| ValueId(r.below(n) as u32))
            .collect::<Vec<_>>()
    };
    loop {
        let inst = match r.below(24) {
            0 => Inst::Param(r.below(5) as u32),
            1 | 2 => {
                let bits = match (ty, r.below(4)) {
                    (Type::Scalar(s), 0) if s.is_float() => r.pick(&[
                        0u64,
                        0x7fc0_0000,
                        0x7e00,
                        0x7ff8_0000_0000_0000,
                        0x8000_0000,
                        0x3f80_0000,
                        0x7f80_0000,
                    ]),
                    (Type::Scalar(s), 1) => {
                        r.next()
                            & if s.bits() >= 64 {
                                u64::MAX
                            } else {
                                (1 << (s.size() * 8)) - 1
                            }
                    }
                    (Type::Scalar(Scalar::F64), 2) => (r.next() as f64 / 7.0).to_bits(),
                    (Type::Scalar(Scalar::F32), 2) => u64::from((r.next() as f32 / 3.0).to_bits()),
                    _ => r.next() >> r.below(64),
                };
                Inst::Const(bits)
            }
            3 => Inst::Undef,
            4 => Inst::Unary(r.pick(&[UnaryOp::Neg, UnaryOp::Not]), v(r)),
            5 => Inst::Binary(
                r.pick(&[BinaryOp::Add, BinaryOp::Shr, BinaryOp::Rem]),
                v(r),
                v(r),
            ),
            6 => Inst::Cmp(r.pick(&[CmpOp::Eq, CmpOp::Ge]), v(r), v(r)),
            7 => Inst::Select(v(r), v(r), v(r)),
            8 => Inst::Convert {
                value: v(r),
                saturate: r.chance(50),
                rounding: r.pick(&[
                    Rounding::Default,
                    Rounding::Rte,
                    Rounding::Rtz,
                    Rounding::Rtp,
                    Rounding::Rtn,
                ]),
            },
            9 => Inst::Bitcast(v(r)),
            10 => Inst::Splat(v(r)),
            11 => Inst::Construct(vs(r)),
            12 => Inst::Extract(v(r), r.next() as u8),
            13 => Inst::Insert(v(r), r.next() as u8, v(r)),
            14 => Inst::Shuffle(
                v(r),
                v(r),
                (0..r.below(5)).map(|_| r.next() as u8).collect(),
            ),
            15 if nv > 0 => Inst::ReadVar(VarId(r.below(nv) as u32)),
            16 if ns > 0 => Inst::SlotAddr(SlotId(r.below(ns) as u32)),
            17 if ng > 0 => Inst::GlobalAddr(GlobalId(r.below(ng) as u32)),
            18 => {
                let choices = [
                    Inst::Index(v(r), v(r)),
                    Inst::Elem(v(r), v(r)),
                    Inst::Field(v(r), r.next() as u32),
                ];
                r.pick(&choices)
            }
            19 => {
                let choices = [Inst::PtrCast(v(r)), Inst::PtrToInt(v(r)), Inst::Load(v(r))];
                r.pick(&choices)
            }
            20 => Inst::Atomic {
                op: r.pick(&[
                    AtomicOp::Load,
                    AtomicOp::CmpXchg,
                    AtomicOp::Xor,
                    AtomicOp::Min,
                ]),
                ptr: v(r),
                args: vs(r),
                order: r.pick(&[
                    MemoryOrder::Relaxed,
                    MemoryOrder::SeqCst,
                    MemoryOrder::AcqRel,
                ]),
                scope: r.pick(&[
                    MemoryScope::Device,
                    MemoryScope::WorkGroup,
                    MemoryScope::AllDevices,
                ]),
            },
            21 => Inst::WorkItem(
                r.pick(&[WorkItemFn::WorkDim, WorkItemFn::LocalId]),
                r.chance(50).then(|| v(r)),
            ),
            22 => Inst::Call(FuncId(r.below(nf) as u32), vs(r)),
            23 => Inst::Builtin(r.pick(Builtin::ALL), vs(r)),
            _ => continue,
        };
        return inst;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The verifier, too, must take any module without panicking (the
    /// random modules are mostly ill-typed, so errors are expected).
    #[test]
    fn verifier_never_panics_on_random_modules(seed in any::<u64>()) {
        let m = random_module(seed);
        if let Err(errors) = vecl_ir::verify::verify_module(&m) {
            prop_assert!(errors.iter().all(|e| !e.message.is_empty()));
        }
    }

    #[test]
    fn random_modules_round_trip(seed in any::<u64>()) {
        let m = random_module(seed);
        let text = print_module(&m);
        let back = parse_module(&text);
        prop_assert_eq!(back.as_ref(), Ok(&m), "text:\n{}", text);
    }
}

#[test]
fn math_flags_print_as_one_line_and_parse_back() {
    let m = Module {
        math: MathFlags {
            unsafe_math: true,
            no_signed_zeros: true,
            ..MathFlags::default()
        },
        ..Module::default()
    };
    let text = print_module(&m);
    assert_eq!(text, "math no_signed_zeros unsafe_math\n");
    round_trip(&m);
    assert_eq!(print_module(&Module::default()), "");
    assert!(parse_module("math fast_and_loose\n").is_err());
}

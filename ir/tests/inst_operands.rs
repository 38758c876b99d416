//! `Inst::operands` and `Inst::operands_mut`, the one walk over an
//! instruction's operands, cover every variant: each sample below names
//! the values it reads, and `variant` (a `match` without a catch-all)
//! stops this test from compiling until a new variant has a sample.

use vecl_ir::*;

fn v(n: u32) -> ValueId {
    ValueId(n)
}

/// Which variant `inst` is, as an index into the samples.
fn variant(inst: &Inst) -> usize {
    match inst {
        Inst::Param(_) => 0,
        Inst::Const(_) => 1,
        Inst::Undef => 2,
        Inst::Unary(..) => 3,
        Inst::Binary(..) => 4,
        Inst::Cmp(..) => 5,
        Inst::Select(..) => 6,
        Inst::Convert { .. } => 7,
        Inst::Bitcast(_) => 8,
        Inst::Splat(_) => 9,
        Inst::Construct(_) => 10,
        Inst::Extract(..) => 11,
        Inst::Insert(..) => 12,
        Inst::Shuffle(..) => 13,
        Inst::ReadVar(_) => 14,
        Inst::SlotAddr(_) => 15,
        Inst::GlobalAddr(_) => 16,
        Inst::Index(..) => 17,
        Inst::Field(..) => 18,
        Inst::Elem(..) => 19,
        Inst::PtrCast(_) => 20,
        Inst::PtrToInt(_) => 21,
        Inst::IntToPtr(_) => 22,
        Inst::Load(_) => 23,
        Inst::Atomic { .. } => 24,
        Inst::WorkItem(..) => 25,
        Inst::Call(..) => 26,
        Inst::Builtin(..) => 27,
    }
}
const VARIANTS: usize = 28;

/// One instruction of every variant (two for those whose operand count
/// varies), with the operands it reads.
fn samples() -> Vec<(Inst, Vec<u32>)> {
    vec![
        (Inst::Param(3), vec![]),
        (Inst::Const(7), vec![]),
        (Inst::Undef, vec![]),
        (Inst::Unary(UnaryOp::Neg, v(1)), vec![1]),
        (Inst::Binary(BinaryOp::Add, v(1), v(2)), vec![1, 2]),
        (Inst::Cmp(CmpOp::Lt, v(2), v(1)), vec![2, 1]),
        (Inst::Select(v(3), v(1), v(2)), vec![3, 1, 2]),
        (
            Inst::Convert {
                value: v(4),
                saturate: true,
                rounding: Rounding::Default,
            },
            vec![4],
        ),
        (Inst::Bitcast(v(5)), vec![5]),
        (Inst::Splat(v(6)), vec![6]),
        (
            Inst::Construct(vec![v(1), v(2), v(1), v(9)]),
            vec![1, 2, 1, 9],
        ),
        (Inst::Extract(v(7), 2), vec![7]),
        (Inst::Insert(v(7), 1, v(8)), vec![7, 8]),
        (Inst::Shuffle(v(7), v(8), vec![0, 5]), vec![7, 8]),
        (Inst::ReadVar(VarId(4)), vec![]),
        (Inst::SlotAddr(SlotId(4)), vec![]),
        (Inst::GlobalAddr(GlobalId(4)), vec![]),
        (Inst::Index(v(9), v(10)), vec![9, 10]),
        (Inst::Field(v(9), 2), vec![9]),
        (Inst::Elem(v(9), v(11)), vec![9, 11]),
        (Inst::PtrCast(v(12)), vec![12]),
        (Inst::PtrToInt(v(12)), vec![12]),
        (Inst::IntToPtr(v(13)), vec![13]),
        (Inst::Load(v(14)), vec![14]),
        (
            Inst::Atomic {
                op: AtomicOp::CmpXchg,
                ptr: v(14),
                args: vec![v(15), v(16)],
                order: MemoryOrder::Relaxed,
                scope: MemoryScope::WorkGroup,
            },
            vec![14, 15, 16],
        ),
        (
            Inst::Atomic {
                op: AtomicOp::Load,
                ptr: v(14),
                args: vec![],
                order: MemoryOrder::Relaxed,
                scope: MemoryScope::WorkGroup,
            },
            vec![14],
        ),
        (Inst::WorkItem(WorkItemFn::GlobalId, Some(v(17))), vec![17]),
        (Inst::WorkItem(WorkItemFn::WorkDim, None), vec![]),
        (Inst::Call(FuncId(1), vec![v(18), v(19)]), vec![18, 19]),
        (
            Inst::Builtin(Builtin::Mad, vec![v(1), v(2), v(3)]),
            vec![1, 2, 3],
        ),
    ]
}

#[test]
fn every_variant_has_a_sample() {
    let mut seen = [false; VARIANTS];
    for (inst, _) in samples() {
        seen[variant(&inst)] = true;
    }
    let missing: Vec<usize> = (0..VARIANTS).filter(|&i| !seen[i]).collect();
    assert!(missing.is_empty(), "variants without a sample: {missing:?}");
}

#[test]
fn operands_are_the_values_read_in_order() {
    for (inst, expected) in samples() {
        let got: Vec<u32> = inst.operands().map(|o| o.0).collect();
        assert_eq!(got, expected, "{inst:?}");
    }
}

#[test]
fn operands_mut_reaches_every_operand_and_nothing_else() {
    for (inst, expected) in samples() {
        let mut renamed = inst.clone();
        for o in renamed.operands_mut() {
            o.0 += 100;
        }
        let got: Vec<u32> = renamed.operands().map(|o| o.0).collect();
        let want: Vec<u32> = expected.iter().map(|n| n + 100).collect();
        assert_eq!(got, want, "{inst:?}");
        // Renaming back gives the instruction again: nothing but the
        // operands changed.
        for o in renamed.operands_mut() {
            o.0 -= 100;
        }
        assert_eq!(renamed, inst);
    }
}

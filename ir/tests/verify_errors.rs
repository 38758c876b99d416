//! Ill-formed modules are rejected with errors that name the function and
//! the value or statement at fault; well-formed corner cases are accepted.

use vecl_ir::text::parse_module;
use vecl_ir::verify::{format_errors, verify_if_debug, verify_module, VerifyError};
use vecl_ir::*;

fn errors_of(src: &str) -> Vec<VerifyError> {
    let m = parse_module(src).unwrap_or_else(|e| panic!("test input does not parse: {e}\n{src}"));
    match verify_module(&m) {
        Ok(()) => panic!("verified, expected errors:\n{src}"),
        Err(errors) => errors,
    }
}

/// Asserts that verifying `src` reports, among others, an error in
/// function `func` about `subject` whose message contains `needle`.
fn assert_rejects(src: &str, func: &str, subject: &str, needle: &str) {
    let errors = errors_of(src);
    let found = errors.iter().any(|e| {
        e.function.as_deref() == Some(func) && e.subject == subject && e.message.contains(needle)
    });
    assert!(
        found,
        "no error `@{func}: {subject}: …{needle}…` among:\n{}",
        format_errors(&errors)
    );
}

fn assert_accepts(src: &str) {
    let m = parse_module(src).unwrap_or_else(|e| panic!("test input does not parse: {e}"));
    if let Err(errors) = verify_module(&m) {
        panic!("rejected:\n{}", format_errors(&errors));
    }
}

#[test]
fn values_defined_in_an_if_arm_do_not_escape() {
    let src = "fn @f(c: bool) -> i32 {
  %0: bool = param 0
  if %0 {
    %1: i32 = const 1
  }
  return %1
}
";
    assert_rejects(src, "f", "return %1", "not defined");
}

#[test]
fn copies_fit_their_objects() {
    let src = "struct %S { a: i32, b: i32 }

fn @f(p: ptr global %S, q: ptr private %S) {
  %0: ptr global %S = param 0
  %1: ptr private %S = param 1
  copy %0, %1, 8
  copy %1, %0, 12
}
";
    let errors = errors_of(src);
    assert_eq!(errors.len(), 2, "{}", format_errors(&errors));
    assert!(errors
        .iter()
        .all(|e| e.subject == "copy %1, %0, 12" && e.message.contains("copies 12 bytes")));
}

#[test]
fn values_are_used_after_their_definition_only() {
    let src = "fn @f() -> i32 {
  %1: i32 = add %0, %0
  %0: i32 = const 1
  return %1
}
";
    assert_rejects(src, "f", "%1", "uses %0 where it is not defined");
}

#[test]
fn operand_and_result_types_are_checked() {
    let src = "fn @f(a: i32, b: u32, p: ptr global f32, q: ptr constant f32) {
  %0: i32 = param 0
  %1: u32 = param 1
  %2: ptr global f32 = param 2
  %3: ptr constant f32 = param 3
  %4: i32 = add %0, %1
  %5: i32 = cmp lt %0, %0
  %6: i32 = load %2
  %7: <4 x f32> = construct %6, %6
  %8: f32 = const 1.0
  %9: <4 x f32> = splat %8
  %10: f32 = extract %9, 4
  %11: <2 x f32> = shuffle %9, %9, [0, 8]
  %12: u64 = bitcast %8
  %13: u64 = work_item global_id %0
  %14: <2 x i32> = convert %9
  %15: f32 = rem %8, %8
  %16: f16 = const 1.0
  %17: f16 = and %16, %16
  store %2, %0
  store %3, %8
  %18: f32 = param 7
  %19: bool = select %0, %0, %0
}
";
    let errors = errors_of(src);
    let expect = [
        ("%4", "operands are i32 and u32"),
        ("%5", "gives bool"),
        ("%6", "loads i32 through a pointer to f32"),
        ("%7", "every part is a f32"),
        ("%10", "component 4 of a 4-component vector"),
        ("%11", "index 8 out of range"),
        ("%12", "sizes differ"),
        ("%13", "the dimension is a u32"),
        ("%14", "converts <4 x f32> to <2 x i32>"),
        ("%15", "Rem does not apply to f32"),
        ("%17", "And does not apply to f16"),
        ("store %2, %0", "stores i32 through a pointer to f32"),
        ("store %3, %8", "constant memory"),
        ("%18", "parameter 7 does not exist"),
        ("%19", "picks between i32 and i32 for bool"),
    ];
    for (subject, needle) in expect {
        let found = errors
            .iter()
            .any(|e| e.subject == subject && e.message.contains(needle));
        assert!(
            found,
            "no error `{subject}: …{needle}…` among:\n{}",
            format_errors(&errors)
        );
    }
    // %14's operand %9 is fine: only real problems are reported.
    assert!(
        !errors.iter().any(|e| e.subject == "%9"),
        "{}",
        format_errors(&errors)
    );
}

#[test]
fn loads_of_memory_only_types_are_rejected() {
    let src = "struct %S { a: i32 }

fn @f(p: ptr global %S) {
  %0: ptr global %S = param 0
  %1: %S = load %0
}
";
    assert_rejects(
        src,
        "f",
        "%1",
        "values are scalars, vectors or pointers, not %S",
    );
}

#[test]
fn atomics_need_integer_pointers_to_shared_memory() {
    let src = "fn @f(p: ptr private i32, q: ptr global f32, r: ptr global u32) {
  %0: ptr private i32 = param 0
  %1: ptr global f32 = param 1
  %2: ptr global u32 = param 2
  %3: i32 = const 1
  %4: i32 = atomic add %0, %3
  %5: f32 = const 1.0
  %6: f32 = atomic add %1, %5
  %7: f32 = atomic xchg %1, %5
  %8: u32 = atomic cmpxchg %2, %2
  %9: u32 = atomic inc %2, %3
}
";
    let errors = errors_of(src);
    for (subject, needle) in [
        ("%4", "atomics on private memory"),
        ("%6", "atomic Add on f32"),
        ("%8", "takes 2 operands"),
        ("%9", "takes 0 operands"),
    ] {
        let found = errors
            .iter()
            .any(|e| e.subject == subject && e.message.contains(needle));
        assert!(
            found,
            "no error `{subject}: …{needle}…` among:\n{}",
            format_errors(&errors)
        );
    }
    assert!(
        !errors.iter().any(|e| e.subject == "%7"),
        "xchg of a float is allowed:\n{}",
        format_errors(&errors)
    );
}

#[test]
fn break_continue_and_barriers_respect_structure() {
    let src = "fn @f(c: bool) {
  %0: bool = param 0
  break
  if %0 {
    continue
  }
  loop {
    break
  } continuing {
    continue
  }
  loop {
    switch %1 {
      case 0 {
        continue
      }
    }
  } continuing {
    barrier local
    break
  }
  %1: i32 = const 0
}
";
    let errors = errors_of(src);
    let count = |subject: &str, needle: &str| {
        errors
            .iter()
            .filter(|e| e.subject == subject && e.message.contains(needle))
            .count()
    };
    assert_eq!(
        count("break", "outside any loop or switch"),
        1,
        "{}",
        format_errors(&errors)
    );
    assert_eq!(
        count("continue", "outside any loop"),
        1,
        "{}",
        format_errors(&errors)
    );
    assert_eq!(
        count("continue", "continuing block"),
        1,
        "{}",
        format_errors(&errors)
    );
    // A barrier in a continuing block is valid (`for (…; barrier(…), i++)`).
    assert_eq!(count("barrier", ""), 0, "{}", format_errors(&errors));
    // `continue` inside a switch inside a loop body is fine; %1 used before
    // its definition is not.
    assert_eq!(
        count("switch %1", "not defined"),
        1,
        "{}",
        format_errors(&errors)
    );
}

#[test]
fn continuing_sees_body_values_only_before_the_first_continue() {
    assert_accepts(
        "fn @f(c: bool) {
  %0: bool = param 0
  loop {
    %1: i32 = const 1
    if %0 {
      continue
    }
    break
  } continuing {
    %2: i32 = add %1, %1
  }
}
",
    );
    let src = "fn @f(c: bool) {
  %0: bool = param 0
  loop {
    if %0 {
      continue
    }
    %1: i32 = const 1
    break
  } continuing {
    %2: i32 = add %1, %1
  }
}
";
    assert_rejects(src, "f", "%2", "uses %1 where it is not defined");
}

#[test]
fn each_instruction_is_evaluated_exactly_once() {
    let src = "fn @f() {
  %0: i32 = const 1
  eval %0
  detached %1: i32 = const 2
}
";
    assert_rejects(src, "f", "%0", "evaluated more than once");
    assert_rejects(src, "f", "%1", "never evaluated");
}

#[test]
fn kernels_return_void_and_describe_every_argument() {
    let src = "kernel @k(a: ptr global f32, b: ptr private f32) -> i32
  args [\"float*\" local] {
  %0: i32 = const 0
  return %0
}
";
    assert_rejects(src, "k", "result type", "kernels return void");
    assert_rejects(src, "k", "kernel args", "2 parameters but 1 argument infos");
    assert_rejects(src, "k", "param 0 (a)", "argument info says local");
    let src = "kernel @k(b: ptr private f32) {
}
";
    assert_rejects(
        src,
        "k",
        "param 0 (b)",
        "global, constant or local memory, not private",
    );
}

#[test]
fn recursion_is_rejected_directly_and_through_other_functions() {
    let src = "fn @even(n: u32) -> bool {
  %0: u32 = param 0
  %1: bool = call @odd(%0)
  return %1
}

fn @odd(n: u32) -> bool {
  %0: u32 = param 0
  %1: bool = call @even(%0)
  return %1
}

fn @leaf() {
}

fn @self() {
  %0: void = call @self()
  %1: void = call @leaf()
}
";
    for f in ["even", "odd", "self"] {
        assert_rejects(src, f, "call graph", "recursion is not allowed");
    }
    let errors = errors_of(src);
    assert!(
        !errors.iter().any(|e| e.function.as_deref() == Some("leaf")),
        "{}",
        format_errors(&errors)
    );
}

#[test]
fn calls_match_the_callee() {
    let src = "fn @g(x: f32) -> f32 {
  %0: f32 = param 0
  return %0
}

fn @f() {
  %0: i32 = const 1
  %1: f32 = call @g()
  %2: f32 = call @g(%0)
  %3: i32 = call @g(%0)
  return %0
}
";
    assert_rejects(src, "f", "%1", "takes 1 arguments, given 0");
    assert_rejects(src, "f", "%2", "argument 0 of @g is f32, given i32");
    assert_rejects(src, "f", "%3", "@g returns f32");
    assert_rejects(
        src,
        "f",
        "return %0",
        "returns i32 from a function returning void",
    );
}

#[test]
fn module_items_are_checked() {
    let src = "struct %Inner { a: [2 x %Outer] offset 0 } size 16 align 4
struct %Outer { i: %Inner offset 0 } size 16 align 4

global @l: local u32 = x\"01000000\"
global @c: constant u32 = x\"0100\"
global @p: private u32

fn @f(x: i32) {
  %0: i32 = param 0
  switch %0 {
    case 1, 2 {
    }
    case 2, default {
    }
    default {
    }
  }
  %1: <5 x f32> = undef
}

fn @f() {
}
";
    let errors = errors_of(src);
    let module_level = |subject: &str, needle: &str| {
        errors
            .iter()
            .any(|e| e.function.is_none() && e.subject == subject && e.message.contains(needle))
    };
    assert!(
        module_level("struct %Inner", "contains itself"),
        "{}",
        format_errors(&errors)
    );
    assert!(
        module_level("struct %Outer", "contains itself"),
        "{}",
        format_errors(&errors)
    );
    assert!(
        module_level("global @l", "cannot be initialised"),
        "{}",
        format_errors(&errors)
    );
    assert!(
        module_level("global @c", "initialiser has 2 bytes, u32 needs 4"),
        "{}",
        format_errors(&errors)
    );
    assert!(
        module_level("global @p", "not private"),
        "{}",
        format_errors(&errors)
    );
    assert!(
        module_level("function @f", "more than one function"),
        "{}",
        format_errors(&errors)
    );
    let in_f = |subject: &str, needle: &str| {
        errors
            .iter()
            .any(|e| e.subject == subject && e.message.contains(needle))
    };
    assert!(
        in_f("switch %0", "case 2 appears twice"),
        "{}",
        format_errors(&errors)
    );
    assert!(
        in_f("switch %0", "more than one default"),
        "{}",
        format_errors(&errors)
    );
    assert!(in_f("%1", "not 5"), "{}", format_errors(&errors));
}

#[test]
fn errors_display_function_subject_and_position() {
    let src = "fn @f(a: i32) {
  %0: i32 = param 0
  %1: u32 = add %0, %0 at 12:7
}
";
    let errors = errors_of(src);
    assert_eq!(errors.len(), 1, "{}", format_errors(&errors));
    assert_eq!(
        errors[0].to_string(),
        "@f: %1 (line 12:7): operands are i32 and i32, result u32"
    );
}

#[test]
fn dangling_ids_are_errors_not_panics() {
    let mut f = Function::new("broken", vec![], Type::Void);
    f.insts.push(InstData {
        inst: Inst::Binary(BinaryOp::Add, ValueId(50), ValueId(0)),
        ty: Type::I32,
        loc: Loc::NONE,
    });
    f.insts.push(InstData {
        inst: Inst::Call(FuncId(7), vec![]),
        ty: Type::Struct(StructId(9)),
        loc: Loc::NONE,
    });
    f.insts.push(InstData {
        inst: Inst::ReadVar(VarId(3)),
        ty: Type::I32,
        loc: Loc::NONE,
    });
    f.insts.push(InstData {
        inst: Inst::GlobalAddr(GlobalId(2)),
        ty: Type::U64,
        loc: Loc::NONE,
    });
    f.body = Block(vec![
        Stmt::Eval(ValueId(0)),
        Stmt::Eval(ValueId(99)),
        Stmt::Eval(ValueId(1)),
        Stmt::Eval(ValueId(2)),
        Stmt::Eval(ValueId(3)),
        Stmt::WriteVar(VarId(5), ValueId(0)),
        Stmt::Store {
            ptr: ValueId(77),
            value: ValueId(0),
            loc: Loc::NONE,
        },
    ]);
    let m = Module {
        functions: vec![f],
        ..Module::default()
    };
    let errors = verify_module(&m).expect_err("broken module");
    let text = format_errors(&errors);
    for needle in [
        "uses %50, which does not exist",
        "evaluates a value that does not exist",
        "struct #9 does not exist",
        "variable $3 does not exist",
        "global #2 does not exist",
        "variable $5 does not exist",
        "uses %77, which does not exist",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
}

#[test]
fn verify_if_debug_checks_in_test_builds() {
    let m = parse_module("fn @f() {\n  break\n}\n").expect("parses");
    assert_eq!(verify_if_debug(&m).is_err(), cfg!(debug_assertions));
    let ok = parse_module("fn @f() {\n  return\n}\n").expect("parses");
    assert_eq!(verify_if_debug(&ok), Ok(()));
}

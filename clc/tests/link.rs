//! Separate compilation: `compile_unit` gives each unit's functions and
//! variables their linkage, and units compiled with their own options link
//! into a module the interpreter runs.

use vecl_clc::{build, compile_unit, BuildError};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::link::{link, Linkage, Unit};

fn unit(src: &str, options: &str) -> Unit {
    compile_unit(src, options, &[])
        .unwrap_or_else(|e| panic!("{e}"))
        .unit
}

fn linkage_of<'u>(u: &'u Unit, name: &str) -> &'u Linkage {
    if let Some((id, _)) = u.module.function_by_name(name) {
        return &u.functions[id.index()];
    }
    let i = u.module.globals.iter().position(|g| g.name == name);
    &u.globals[i.unwrap_or_else(|| panic!("no item '{name}'"))]
}

#[test]
fn each_item_has_the_linkage_its_declaration_gives() {
    let u = unit(
        "int other(int);
         static int helper(int x) { return x + 1; }
         int shared(int x) { return helper(x) * 2; }
         int unused_prototype(void);
         constant int table[2] = {1, 2};
         static constant int private_table[2] = {3, 4};
         extern constant int elsewhere;
         kernel void k(global int *out) {
             out[0] = other(shared(table[0]) + private_table[1] + elsewhere);
             out[1] = \"ab\"[1];
         }",
        "",
    );
    assert_eq!(*linkage_of(&u, "other"), Linkage::Import);
    assert_eq!(*linkage_of(&u, "unused_prototype"), Linkage::Import);
    assert_eq!(*linkage_of(&u, "helper"), Linkage::Internal);
    assert_eq!(*linkage_of(&u, "shared"), Linkage::Export);
    assert_eq!(*linkage_of(&u, "k"), Linkage::Export);
    assert_eq!(*linkage_of(&u, "table"), Linkage::Export);
    assert_eq!(*linkage_of(&u, "private_table"), Linkage::Internal);
    assert_eq!(*linkage_of(&u, "elsewhere"), Linkage::Import);
    // The string literal is the unit's own.
    let strings = u
        .module
        .globals
        .iter()
        .position(|g| g.name.starts_with(".str"));
    assert_eq!(
        u.globals[strings.expect("a string literal")],
        Linkage::Internal
    );
}

#[test]
fn a_call_of_an_undefined_function_waits_for_the_link() {
    let src = "int twice(int);\nkernel void k(global int *out) { out[0] = twice(N); }";
    let log = match build(src, "-DN=4") {
        Err(BuildError::Failed { log }) => log,
        other => panic!("a whole-program build must fail, got {other:?}"),
    };
    assert!(
        log.contains("'twice' is declared but never defined"),
        "{log}"
    );
    let caller = unit(src, "-DN=4");
    let callee = unit("int twice(int x) { return x * N; }", "-DN=2");
    let module = link(&[caller, callee])
        .expect("links")
        .executable()
        .expect("complete");
    vecl_ir::verify::verify_module(&module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    let mut args = [KernelArg::Buffer(vec![0; 4])];
    run_kernel(&module, "k", &mut args, &NdRange::linear(1, 1)).expect("runs");
    let KernelArg::Buffer(out) = &args[0] else {
        unreachable!()
    };
    // Each unit's N: 4 in the caller, 2 in twice.
    assert_eq!(i32::from_le_bytes([out[0], out[1], out[2], out[3]]), 8);
}

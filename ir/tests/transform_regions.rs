//! The region graph (`vecl_ir::transform::regions`), text in → text out.
//!
//! Each `tests/transform/regions/NAME.ir` is a module whose kernel `@k`
//! has barriers under control flow, as the pipeline leaves it; the region
//! graph of `@k` must verify and print exactly as `NAME.out` (the kernel
//! alone, as `vecl run --dump-ir=regions` prints it). `VECL_BLESS=1`
//! rewrites the `.out` files. Unlike the pipeline's passes, the graph is
//! not run by the interpreter: it means "run the top-level regions in the
//! order `$next` chooses", which only a chunk driver does (the JIT's
//! barrier tests run it).

use std::path::Path;
use vecl_ir::text::parse_module;
use vecl_ir::transform::pipeline::print_alone;
use vecl_ir::transform::regions::{barrier_sites, region_graph, split_successor, END};
use vecl_ir::verify::{format_errors, verify_module};
use vecl_ir::{Inst, Stmt};
use vecl_testkit::file_tests::{cases, check_output};

#[test]
fn region_graph_text_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transform/regions");
    let files = cases(&dir, "ir");
    assert!(files.len() >= 3, "cases in {}", dir.display());
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("case is readable");
        let module = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (index, kernel) = module
            .function_by_name("k")
            .unwrap_or_else(|| panic!("{name}: no kernel @k"));
        let graph = region_graph(kernel)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|| panic!("{name}: no barrier under control flow"));
        // Every barrier of the graph is at the top level: the regions.
        assert!(
            graph.func.body.0.iter().all(|s| match s {
                Stmt::Barrier(..) => true,
                other => !vecl_ir::contains_barrier(std::slice::from_ref(other)),
            }),
            "{name}: a barrier left under control flow"
        );
        // Each cut barrier is tagged with its source line.
        let sites = barrier_sites(&graph.func, graph.next);
        assert!(
            !sites.is_empty() && sites.iter().all(|(_, loc)| loc.is_known()),
            "{name}: barrier tags {sites:?}"
        );
        // Some region ends the kernel.
        let ends = graph.func.insts.iter().any(|d| {
            matches!(d.inst, Inst::Const(k) if k <= u64::from(u32::MAX)
                && split_successor(k as u32).1 == END)
        });
        assert!(ends, "{name}: no region goes to the end");
        let mut after = module.clone();
        after.functions[index.index()] = graph.func.clone();
        if let Err(e) = verify_module(&after) {
            panic!("{name}: invalid region graph:\n{}", format_errors(&e));
        }
        check_output(path, &print_alone(&module, &graph.func), &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn top_level_barriers_need_no_graph() {
    let text = "kernel @k(out: ptr global u32) {
  %0: ptr global u32 = param 0
  %1: u32 = const 1
  store %0, %1
  barrier local
  store %0, %1
}
";
    let module = parse_module(text).expect("parses");
    let (_, kernel) = module.function_by_name("k").expect("kernel");
    assert!(region_graph(kernel).expect("rewrites").is_none());
}

//! The middle of the compiler: the named passes a kernel goes through
//! between the front end and the code generator, in order.
//!
//! A code generator compiles one kernel at a time and wants it as one
//! function with nothing left to call, its private aggregates in
//! variables, and its short counted loops and repeated expressions gone.
//! [`PASSES`] lists the passes that do that, each in its own file; a
//! [`Pipeline`] runs them on a copy of a kernel. Keeping them in one list
//! makes the order visible, lets a pass be turned off by name (for
//! measuring what it buys), checks the IR after each one with
//! [`crate::verify`] (so a broken invariant is blamed on the pass that broke
//! it, not on the lowering that trips over it later), and prints the IR
//! after any of them (`vecl run --dump-ir=all`).

use crate::verify::{format_errors, verify_function};
use crate::{Function, Module};
use std::fmt::Write as _;

/// What a pass sees besides the function it rewrites.
pub struct PassCx<'a> {
    /// The module the kernel comes from (callees, structs, globals).
    pub module: &'a Module,
    /// The kernel as the front end made it, before any pass.
    pub kernel: &'a Function,
    /// [`PipelineOptions::wide_unroll`].
    pub wide_unroll: bool,
}

/// One pass of the pipeline.
#[derive(Clone, Copy)]
pub struct Pass {
    /// The name options and dumps use.
    pub name: &'static str,
    /// What it does, in one line.
    pub about: &'static str,
    /// Rewrites the function; an error is a kernel the pass cannot handle.
    pub run: fn(&PassCx<'_>, &mut Function) -> Result<(), String>,
}

impl std::fmt::Debug for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every pass, in the order a [`Pipeline`] runs them.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "inline",
        about: "every call replaced by the callee's body",
        run: |cx, f| {
            *f = super::inline::inline_calls(cx.module, f)?;
            Ok(())
        },
    },
    Pass {
        name: "widen-half",
        about: "half arithmetic computed in float and rounded back to half once",
        run: |_, f| {
            super::half::widen_half(f);
            Ok(())
        },
    },
    Pass {
        name: "sra",
        about: "private aggregates reached at constant offsets become variables",
        run: |cx, f| {
            super::sra::scalar_replace(&cx.module.structs, f);
            Ok(())
        },
    },
    Pass {
        name: "define-at-entry",
        about: "variables the passes added defined once at the top",
        run: |cx, f| {
            super::define_at_entry::define_at_entry(f, cx.kernel.vars.len());
            Ok(())
        },
    },
    Pass {
        name: "unroll",
        about: "short counted loops unrolled, longer ones two iterations per trip",
        run: |cx, f| {
            let max_copied = match cx.wide_unroll {
                true => super::unroll::MAX_COPIED_WIDE,
                false => super::unroll::MAX_COPIED,
            };
            super::unroll::unroll_counted_loops_within(f, max_copied);
            Ok(())
        },
    },
    Pass {
        name: "sra-unrolled",
        about: "aggregates that unrolling left indexed by constants become variables",
        // `float p[3][3]` filled and read by short loops: before unrolling
        // the indices are loop counters, after it constant expressions
        // (`p[dy + 1][dx + 1]`), which `sra` takes as known offsets. The
        // leaves it adds are defined at the top, as `define-at-entry`
        // does for the earlier passes' variables. A 3×3 Sobel filter
        // reading its window into such an array: 9 scattered stores and
        // 12 gathered loads per item become registers, ~1.5–2.3× faster
        // at 2048² (`benches/programs.py`'s kernel, `vecl run`, 2 cores).
        run: |cx, f| {
            let first = f.vars.len();
            let replaced = super::sra::scalar_replace(&cx.module.structs, f);
            if replaced.slots + replaced.params > 0 {
                super::define_at_entry::define_at_entry(f, first);
            }
            Ok(())
        },
    },
    Pass {
        name: "cse",
        about: "common subexpressions and single-assignment variables",
        run: |_, f| {
            super::cse::eliminate_common(f);
            Ok(())
        },
    },
];

/// After which passes the IR is printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IrDump {
    /// After every pass that runs.
    All,
    /// After the pass of this name.
    After(String),
}

impl IrDump {
    /// `all`, or the name of a pass; an error lists the names.
    pub fn parse(text: &str) -> Result<IrDump, String> {
        match text.trim() {
            "all" => Ok(IrDump::All),
            name => {
                check_names([name])?;
                Ok(IrDump::After(name.to_string()))
            }
        }
    }
}

/// How a [`Pipeline`] runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// Names of passes not to run.
    pub disabled: Vec<String>,
    /// Verify the function after every pass. On by default in builds with
    /// debug assertions; code generators' tests turn it on.
    pub verify: bool,
    /// Print the IR after some passes into [`Output::dump`].
    pub dump: Option<IrDump>,
    /// The kernel is meant for the wide AVX-512 code, unchecked: `unroll`
    /// copies loops of up to `unroll::MAX_COPIED_WIDE` evaluations
    /// (conv5x5's row loop), which Cranelift's code runs slower.
    pub wide_unroll: bool,
}

/// Whether a pipeline verifies by default: in builds with debug assertions.
const VERIFY_BY_DEFAULT: bool = cfg!(debug_assertions);

impl Default for PipelineOptions {
    fn default() -> PipelineOptions {
        PipelineOptions {
            disabled: Vec::new(),
            verify: VERIFY_BY_DEFAULT,
            dump: None,
            wide_unroll: false,
        }
    }
}

/// Why a pipeline stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    /// A pass could not handle the kernel.
    #[error("{message}")]
    Pass { pass: &'static str, message: String },
    /// The IR after a pass broke the verifier's rules: a bug in the pass.
    #[error("the IR after pass `{pass}` does not verify:\n{errors}")]
    Verify { pass: &'static str, errors: String },
}

/// What [`Pipeline::run`] returns.
#[derive(Debug)]
pub struct Output {
    /// The kernel after every pass.
    pub function: Function,
    /// The IR printed after the passes [`PipelineOptions::dump`] asked
    /// for, each headed `; after NAME`; empty when it asked for none.
    pub dump: String,
}

/// The passes to run and how.
#[derive(Clone, Debug)]
pub struct Pipeline {
    passes: Vec<Pass>,
    verify: bool,
    dump: Option<IrDump>,
    wide_unroll: bool,
}

/// An error naming any of `names` that is not a pass.
fn check_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), String> {
    for name in names {
        if !PASSES.iter().any(|p| p.name == name) {
            let known: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
            return Err(format!(
                "no pass named `{name}` (passes: {})",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

impl Pipeline {
    /// The passes of [`PASSES`] that `options` leaves on; an error names a
    /// disabled or dumped pass that does not exist.
    pub fn new(options: &PipelineOptions) -> Result<Pipeline, String> {
        check_names(options.disabled.iter().map(String::as_str))?;
        if let Some(IrDump::After(name)) = &options.dump {
            check_names([name.as_str()])?;
        }
        Ok(Pipeline {
            passes: PASSES
                .iter()
                .filter(|p| !options.disabled.iter().any(|d| d == p.name))
                .copied()
                .collect(),
            verify: options.verify,
            dump: options.dump.clone(),
            wide_unroll: options.wide_unroll,
        })
    }

    /// The one pass named `name`, verified after it (for file tests and
    /// for looking at one pass alone).
    pub fn only(name: &str) -> Result<Pipeline, String> {
        check_names([name])?;
        Ok(Pipeline {
            passes: PASSES.iter().filter(|p| p.name == name).copied().collect(),
            verify: true,
            dump: None,
            wide_unroll: false,
        })
    }

    /// The names of the passes that run, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name).collect()
    }

    /// Runs the passes on a copy of `kernel` of `module`.
    pub fn run(&self, module: &Module, kernel: &Function) -> Result<Output, PipelineError> {
        let cx = PassCx {
            module,
            kernel,
            wide_unroll: self.wide_unroll,
        };
        let mut function = kernel.clone();
        let mut dump = String::new();
        // A pass is blamed only for what it broke: whatever the kernel
        // already broke (a hand-built kernel without argument infos) is
        // not reported again after each pass.
        let known = match self.verify {
            true => verify_function(module, kernel).err().unwrap_or_default(),
            false => Vec::new(),
        };
        for pass in &self.passes {
            (pass.run)(&cx, &mut function).map_err(|message| PipelineError::Pass {
                pass: pass.name,
                message,
            })?;
            if self.verify {
                if let Err(mut errors) = verify_function(module, &function) {
                    errors.retain(|e| !known.contains(e));
                    if !errors.is_empty() {
                        return Err(PipelineError::Verify {
                            pass: pass.name,
                            errors: format_errors(&errors),
                        });
                    }
                }
            }
            let wanted = match &self.dump {
                None => false,
                Some(IrDump::All) => true,
                Some(IrDump::After(name)) => name == pass.name,
            };
            if wanted {
                let _ = writeln!(dump, "; after {}", pass.name);
                dump.push_str(&print_alone(module, &function));
            }
        }
        Ok(Output { function, dump })
    }
}

/// `f` printed as the one function of a module with `m`'s structs,
/// globals and math flags (a kernel after inlining calls nothing).
pub fn print_alone(m: &Module, f: &Function) -> String {
    let alone = Module {
        structs: m.structs.clone(),
        globals: m.globals.clone(),
        functions: vec![f.clone()],
        math: m.math,
        relocs: m.relocs.clone(),
    };
    crate::text::print_module(&alone)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "kernel @k(out: ptr global u32) {
  var $0 x: u32
  %0: ptr global u32 = param 0
  %1: u32 = const 3
  write $0, %1
  store %0, %1
  return
}
";

    #[test]
    fn unknown_pass_names_are_refused_with_the_list() {
        let e = Pipeline::new(&PipelineOptions {
            disabled: vec!["inlining".into()],
            ..PipelineOptions::default()
        })
        .unwrap_err();
        assert!(
            e.contains("`inlining`") && e.contains("inline, widen-half, sra"),
            "{e}"
        );
        assert!(IrDump::parse("nope").is_err());
        assert_eq!(IrDump::parse("cse"), Ok(IrDump::After("cse".into())));
    }

    #[test]
    fn disabled_passes_do_not_run() {
        let p = Pipeline::new(&PipelineOptions {
            disabled: vec!["sra".into(), "cse".into()],
            ..PipelineOptions::default()
        })
        .unwrap();
        assert_eq!(
            p.names(),
            [
                "inline",
                "widen-half",
                "define-at-entry",
                "unroll",
                "sra-unrolled"
            ]
        );
    }

    #[test]
    fn a_pass_that_breaks_the_ir_is_named() {
        let m = crate::text::parse_module(SRC).unwrap();
        let broken = Pass {
            name: "broken",
            about: "evaluates an instruction twice",
            run: |_, f| {
                let first = f.body.0[0].clone();
                f.body.0.insert(0, first);
                Ok(())
            },
        };
        let p = Pipeline {
            passes: vec![PASSES[0], broken],
            verify: true,
            dump: None,
            wide_unroll: false,
        };
        let e = p.run(&m, &m.functions[0]).unwrap_err();
        assert!(
            matches!(&e, PipelineError::Verify { pass: "broken", .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("after pass `broken`"), "{e}");
    }

    #[test]
    fn errors_the_kernel_had_before_are_not_blamed_on_a_pass() {
        let mut m = crate::text::parse_module(SRC).unwrap();
        if let Some(k) = m.functions[0].kernel.as_mut() {
            k.args.clear();
        }
        assert!(verify_function(&m, &m.functions[0]).is_err());
        let p = Pipeline::new(&PipelineOptions {
            verify: true,
            ..PipelineOptions::default()
        })
        .unwrap();
        assert!(p.run(&m, &m.functions[0]).is_ok());
    }

    #[test]
    fn dumps_name_each_pass() {
        let m = crate::text::parse_module(SRC).unwrap();
        let p = Pipeline::new(&PipelineOptions {
            dump: Some(IrDump::All),
            verify: true,
            ..PipelineOptions::default()
        })
        .unwrap();
        let out = p.run(&m, &m.functions[0]).unwrap();
        let heads: Vec<&str> = out
            .dump
            .lines()
            .filter(|l| l.starts_with("; after"))
            .collect();
        assert_eq!(
            heads,
            [
                "; after inline",
                "; after widen-half",
                "; after sra",
                "; after define-at-entry",
                "; after unroll",
                "; after sra-unrolled",
                "; after cse"
            ]
        );
        let one = Pipeline::new(&PipelineOptions {
            dump: Some(IrDump::After("unroll".into())),
            ..PipelineOptions::default()
        })
        .unwrap()
        .run(&m, &m.functions[0])
        .unwrap();
        assert!(
            one.dump.starts_with("; after unroll\nkernel @k("),
            "{}",
            one.dump
        );
    }
}

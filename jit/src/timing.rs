//! Compile-phase timing ([`crate::JitOptions::phases`]).

use crate::PhaseReport;
use std::fmt::Write as _;
use std::time::Instant;

/// Time spent in each phase of `compile`, printed to standard error when
/// [`crate::JitOptions::phases`] asks (for finding where compile time goes).
pub(crate) struct Phases {
    last: Option<Instant>,
    marks: Vec<(&'static str, f64)>,
    cranelift_passes: bool,
}

impl Phases {
    pub(crate) fn new(started: Instant, report: PhaseReport) -> Phases {
        Phases {
            last: (report != PhaseReport::Off).then_some(started),
            marks: Vec::new(),
            cranelift_passes: report == PhaseReport::CraneliftPasses,
        }
    }

    pub(crate) fn mark(&mut self, phase: &'static str) {
        if let Some(last) = self.last {
            let now = Instant::now();
            self.marks
                .push((phase, now.duration_since(last).as_secs_f64() * 1e3));
            self.last = Some(now);
        }
    }

    /// `counts`: branches folded, block parameters removed, bytes of
    /// machine code.
    pub(crate) fn report(
        &self,
        kernel: &str,
        ir_insts: usize,
        clif_insts: usize,
        counts: [usize; 3],
    ) {
        if self.last.is_none() {
            return;
        }
        let mut line = format!(
            "jit phases {kernel}: {ir_insts} IR, {clif_insts} CLIF, {} branches folded, \
             {} block parameters removed, {} code bytes;",
            counts[0], counts[1], counts[2]
        );
        for (phase, ms) in &self.marks {
            let _ = write!(line, " {phase} {ms:.3}");
        }
        eprintln!("{line} ms");
        if self.cranelift_passes {
            eprintln!("{}", cranelift_codegen::timing::take_current());
        }
    }
}

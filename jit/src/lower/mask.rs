//! The execution-mask state of one lowering: which Cranelift variables
//! hold the lanes executing now (`cur`) and the lanes that have not
//! returned (`alive`), what `break` and `continue` refer to, and how deeply
//! the code being lowered is nested in divergent control flow.
//!
//! [`MaskCx`] owns that state and changes it only through paired calls
//! that follow the statements' structure ([`MaskCx::start_varying_if`] /
//! [`MaskCx::end_if`], [`MaskCx::enter_loop`] / [`MaskCx::exit_loop`],
//! [`MaskCx::enter_switch`] / [`MaskCx::exit_switch`]), in the manner of
//! ISPC's `FunctionEmitContext`. Reading and writing the mask values
//! themselves needs the function builder and stays on
//! [`super::FunctionCx`] (`cur_mask`, `set_cur`).

use cranelift_codegen::ir::Block;
use cranelift_frontend::Variable;
use vecl_ir::analysis::uniformity::Uniformity;

/// What `break`/`continue` refer to.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Loop {
        divergent: bool,
        continuing: Block,
        exit: Block,
        cont: Vec<Variable>,
    },
    Switch,
}

/// The active-mask state of one kernel's lowering (see the module docs).
#[derive(Debug)]
pub(crate) struct MaskCx {
    /// Mask of the lanes executing now, one `i32x4` variable per piece.
    cur: Vec<Variable>,
    /// Mask of the lanes that have not returned; `None` when the kernel
    /// has no `return` that could leave some lanes behind.
    alive: Option<Vec<Variable>>,
    /// Enclosing loops and switches, innermost last.
    targets: Vec<Target>,
    /// Enclosing varying ifs, divergent loops and switches.
    divergence: u32,
    /// Lowering the masked path of a split `if` (`control::lower_split_if`):
    /// the `if`s inside it are not split again.
    splitting_if: bool,
    /// Enclosing loops and switches (a `return` there is masked).
    exit_depth: u32,
    /// Every `return` updates the alive mask rather than leaving the chunk
    /// (barrier regions, where the region's end is not the chunk's).
    force_masked_returns: bool,
}

impl MaskCx {
    /// The state before the mask variables exist ([`Self::bind`] gives
    /// them).
    pub fn new(force_masked_returns: bool) -> Self {
        MaskCx {
            cur: Vec::new(),
            alive: None,
            targets: Vec::new(),
            divergence: 0,
            splitting_if: false,
            exit_depth: 0,
            force_masked_returns,
        }
    }

    /// Gives the variables of the current mask and, for kernels that may
    /// return early, of the alive mask.
    pub fn bind(&mut self, cur: Vec<Variable>, alive: Option<Vec<Variable>>) {
        self.cur = cur;
        self.alive = alive;
    }

    /// The variables of the current mask.
    pub fn cur_vars(&self) -> &[Variable] {
        &self.cur
    }

    /// The variables of the alive mask, when the kernel has one.
    pub fn alive(&self) -> Option<Vec<Variable>> {
        self.alive.clone()
    }

    /// Whether some enclosing varying `if`, divergent loop or switch may
    /// have turned lanes off.
    pub fn is_divergent(&self) -> bool {
        self.divergence > 0
    }

    /// Whether the current mask is the one the chunk entered with: no
    /// divergent statement encloses the code and no lane can have returned.
    pub fn is_entry_mask(&self) -> bool {
        self.divergence == 0 && self.alive.is_none()
    }

    /// Entering the arms of a varying `if`.
    pub fn start_varying_if(&mut self) {
        self.divergence += 1;
    }

    /// Leaving the arms of a varying `if`.
    pub fn end_if(&mut self) {
        self.divergence -= 1;
    }

    /// Entering the masked path of a split `if`.
    pub fn start_split_if(&mut self) {
        self.splitting_if = true;
    }

    /// Leaving the masked path of a split `if`.
    pub fn end_split_if(&mut self) {
        self.splitting_if = false;
    }

    /// Whether the code is the masked path of a split `if`.
    pub fn in_split_if(&self) -> bool {
        self.splitting_if
    }

    /// Entering a loop's body (`target` is a [`Target::Loop`]); a divergent
    /// loop counts as divergence.
    pub fn enter_loop(&mut self, target: Target) {
        if matches!(
            target,
            Target::Loop {
                divergent: true,
                ..
            }
        ) {
            self.divergence += 1;
        }
        self.exit_depth += 1;
        self.targets.push(target);
    }

    /// Whether the code being lowered is inside a loop's body.
    pub fn in_loop(&self) -> bool {
        self.targets
            .iter()
            .any(|t| matches!(t, Target::Loop { .. }))
    }

    /// Leaving the loop of the matching [`Self::enter_loop`].
    pub fn exit_loop(&mut self) {
        if let Some(Target::Loop {
            divergent: true, ..
        }) = self.targets.pop()
        {
            self.divergence -= 1;
        }
        self.exit_depth -= 1;
    }

    /// Entering the cases of a switch.
    pub fn enter_switch(&mut self) {
        self.divergence += 1;
        self.exit_depth += 1;
        self.targets.push(Target::Switch);
    }

    /// Leaving the switch of the matching [`Self::enter_switch`].
    pub fn exit_switch(&mut self) {
        self.targets.pop();
        self.exit_depth -= 1;
        self.divergence -= 1;
    }

    /// What a `break` here leaves: the innermost loop or switch.
    pub fn innermost(&self) -> Option<&Target> {
        self.targets.last()
    }

    /// What a `continue` here continues: the innermost loop.
    pub fn innermost_loop(&self) -> Option<&Target> {
        self.targets
            .iter()
            .rev()
            .find(|t| matches!(t, Target::Loop { .. }))
    }

    /// Whether a `return` here must update the alive mask rather than
    /// leave the chunk.
    pub fn return_is_masked(&self, uni: &Uniformity) -> bool {
        self.force_masked_returns || uni.return_is_masked(self.divergence > 0, self.exit_depth > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::entity::EntityRef;

    fn divergent_loop(divergent: bool) -> Target {
        Target::Loop {
            divergent,
            continuing: Block::new(1),
            exit: Block::new(2),
            cont: Vec::new(),
        }
    }

    #[test]
    fn paired_calls_nest_and_restore_the_state() {
        let mut m = MaskCx::new(false);
        m.bind(vec![Variable::new(0)], None);
        assert!(m.is_entry_mask() && !m.is_divergent());
        assert!(m.innermost().is_none());

        // A uniform loop is a target but no divergence.
        m.enter_loop(divergent_loop(false));
        assert!(!m.is_divergent());
        // A switch inside it: `break` leaves the switch, `continue`
        // continues the loop.
        m.enter_switch();
        assert!(m.is_divergent());
        assert!(matches!(m.innermost(), Some(Target::Switch)));
        assert!(matches!(
            m.innermost_loop(),
            Some(Target::Loop {
                divergent: false,
                ..
            })
        ));
        m.enter_loop(divergent_loop(true));
        m.start_varying_if();
        assert!(matches!(
            m.innermost(),
            Some(Target::Loop {
                divergent: true,
                ..
            })
        ));
        m.end_if();
        m.exit_loop();
        m.exit_switch();
        assert!(!m.is_divergent());
        m.exit_loop();
        assert!(m.innermost().is_none());
        assert!(m.is_entry_mask());
    }

    #[test]
    fn an_alive_mask_means_lanes_may_have_left() {
        let mut m = MaskCx::new(false);
        m.bind(vec![Variable::new(0)], Some(vec![Variable::new(1)]));
        assert!(!m.is_divergent());
        assert!(!m.is_entry_mask());
        assert_eq!(m.alive(), Some(vec![Variable::new(1)]));
        assert_eq!(m.cur_vars(), &[Variable::new(0)]);
    }

    #[test]
    fn split_ifs_are_marked_while_their_masked_path_lowers() {
        let mut m = MaskCx::new(false);
        assert!(!m.in_split_if());
        m.start_split_if();
        assert!(m.in_split_if());
        m.end_split_if();
        assert!(!m.in_split_if());
    }
}

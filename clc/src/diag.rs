//! Source files, positions and diagnostics.
//!
//! Every token carries a [`Pos`] into a [`SourceMap`] file. Diagnostics are
//! collected (several per build where the front end can recover) and rendered
//! as `file:line:col: error: message`, followed by the source line and a
//! caret under the column, the shape C compilers print and users expect in a
//! build log. `#line` directives are honoured at render time through the
//! per-file remapping table.

use std::fmt::Write as _;

/// A physical position: file index, 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pos {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// One source file (the main source, an included file or a supplied header).
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    /// `#line` remappings: from physical line `.0` on, the presumed file name
    /// is `.1` and the presumed line of physical line `.0` is `.2`.
    pub line_map: Vec<(u32, String, u32)>,
}

#[derive(Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, name: &str, text: &str) -> u32 {
        self.files.push(SourceFile {
            name: name.to_string(),
            text: text.to_string(),
            line_map: Vec::new(),
        });
        self.files.len() as u32 - 1
    }

    /// The file name and line a position reports, after `#line`.
    pub fn presumed(&self, pos: Pos) -> (&str, u32) {
        let Some(f) = self.files.get(pos.file as usize) else {
            return ("<unknown>", pos.line);
        };
        match f
            .line_map
            .iter()
            .rev()
            .find(|(from, _, _)| *from <= pos.line)
        {
            Some((from, name, base)) => (name.as_str(), base + (pos.line - from)),
            None => (f.name.as_str(), pos.line),
        }
    }

    fn line_text(&self, pos: Pos) -> Option<&str> {
        let f = self.files.get(pos.file as usize)?;
        f.text.lines().nth(pos.line.checked_sub(1)? as usize)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug)]
pub struct Diag {
    pub severity: Severity,
    pub pos: Pos,
    pub message: String,
}

/// The diagnostics of one build.
#[derive(Debug, Default)]
pub struct Diags {
    pub list: Vec<Diag>,
    /// `-w`: drop warnings.
    pub suppress_warnings: bool,
    /// `-Werror`: warnings count as errors.
    pub warnings_are_errors: bool,
}

/// Past this many errors the build stops: later ones are usually echoes.
pub const MAX_ERRORS: usize = 20;

impl Diags {
    pub fn error(&mut self, pos: Pos, message: impl Into<String>) {
        self.list.push(Diag {
            severity: Severity::Error,
            pos,
            message: message.into(),
        });
    }

    pub fn warning(&mut self, pos: Pos, message: impl Into<String>) {
        if self.suppress_warnings {
            return;
        }
        let severity = if self.warnings_are_errors {
            Severity::Error
        } else {
            Severity::Warning
        };
        self.list.push(Diag {
            severity,
            pos,
            message: message.into(),
        });
    }

    pub fn error_count(&self) -> usize {
        self.list
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }

    pub fn too_many(&self) -> bool {
        self.error_count() >= MAX_ERRORS
    }

    /// Renders every diagnostic, in the order reported.
    pub fn render(&self, sm: &SourceMap) -> String {
        let mut out = String::new();
        for d in &self.list {
            let (name, line) = sm.presumed(d.pos);
            let kind = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let _ = writeln!(out, "{name}:{line}:{}: {kind}: {}", d.pos.col, d.message);
            if let Some(text) = sm.line_text(d.pos) {
                let _ = writeln!(out, "{text}");
                let pad: String = text
                    .chars()
                    .take(d.pos.col.saturating_sub(1) as usize)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = writeln!(out, "{pad}^");
            }
        }
        let errors = self.error_count();
        if errors > 0 {
            let _ = writeln!(
                out,
                "{errors} error{} generated.",
                if errors == 1 { "" } else { "s" }
            );
        }
        out
    }
}

//! The text form of control-flow graphs: the IR text form (`docs/ir-text.md`)
//! in which a function body is a sequence of basic blocks, each introduced
//! by a label line `name:` and ended by a terminator line:
//!
//! ```text
//! kernel @k(out: ptr global u32) {
//!   var $0 i: u32
//!   %0: u32 = const 0
//!   write $0, %0
//!   br head                          ; jump
//! head:
//!   %1: u32 = read $0
//!   %2: u32 = const 4
//!   %3: bool = cmp lt %1, %2
//!   br_if %3, body, done             ; true → body, false → done
//! body:
//!   %4: u32 = const 1
//!   %5: u32 = add %1, %4
//!   write $0, %5
//!   br_table %5, [1: head, 3: done], head   ; cases, then the default
//! done:
//!   return
//! }
//! ```
//!
//! The first block is the entry; it needs no label (it is then named
//! `entry`). Labels and terminators are recognised only at the top level of
//! a function body; `return [%v]` there is the return terminator. Every
//! function of the text is in this form (a body without labels is one
//! block).
//!
//! The parser rewrites the labels and terminators into markers the IR
//! parser reads (so values keep their numbering and every error its line),
//! then cuts the parsed body at the markers.

use super::{BasicBlock, BlockId, Cfg, Terminator};
use crate::module::{Block, Loc, Module, Stmt};
use crate::text::{parse_module, ParseError};
use std::collections::HashMap;

/// A label or terminator found on a top-level line of a function body.
enum Event {
    Label(String, Loc),
    Term(TermText),
}

/// A terminator as written: its kind, the case values of a `br_table`, and
/// the target names with their positions.
struct TermText {
    kind: TermKind,
    values: Vec<i64>,
    targets: Vec<(String, Loc)>,
    loc: Loc,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TermKind {
    Jump,
    Branch,
    Table,
    Return,
}

fn err(loc: Loc, message: impl Into<String>) -> ParseError {
    ParseError {
        line: loc.line,
        col: loc.col,
        message: message.into(),
    }
}

fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '.')
}

/// The code of `line` without its comment, and the brace depth after it.
fn scan(line: &str, mut depth: i32) -> (&str, i32) {
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            ';' => return (&line[..i], depth),
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
    }
    (line, depth)
}

/// Parses a target name at `text` (offset `col0` in its line).
fn target(text: &str, line: u32, col0: usize) -> Result<(String, Loc), ParseError> {
    let t = text.trim();
    let col = col0 + (text.len() - text.trim_start().len()) + 1;
    let loc = Loc {
        line,
        col: col as u32,
    };
    if !is_name(t) {
        return Err(err(loc, format!("expected a block name, found '{t}'")));
    }
    Ok((t.to_string(), loc))
}

/// Reads a terminator line (`code` starts at column `indent + 1`) and the
/// marker statement that replaces it for the IR parser.
fn terminator(
    code: &str,
    line: u32,
    indent: usize,
) -> Result<Option<(TermText, String)>, ParseError> {
    let loc = Loc {
        line,
        col: indent as u32 + 1,
    };
    let (word, rest) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
    let rest_col = indent + word.len() + 1;
    let mut t = TermText {
        kind: TermKind::Jump,
        values: Vec::new(),
        targets: Vec::new(),
        loc,
    };
    let marker = match word {
        "br" => {
            t.targets.push(target(rest, line, rest_col)?);
            "continue".to_string()
        }
        "br_if" | "br_table" => {
            let Some((value, tail)) = rest.split_once(',') else {
                return Err(err(loc, format!("'{word}' needs a value and targets")));
            };
            let tail_col = rest_col + value.len() + 1;
            if word == "br_if" {
                t.kind = TermKind::Branch;
                let Some((a, b)) = tail.split_once(',') else {
                    return Err(err(loc, "'br_if' needs two targets"));
                };
                t.targets.push(target(a, line, tail_col)?);
                t.targets.push(target(b, line, tail_col + a.len() + 1)?);
            } else {
                t.kind = TermKind::Table;
                let (Some(open), Some(close)) = (tail.find('['), tail.find(']')) else {
                    return Err(err(loc, "'br_table' needs a [value: block, …] list"));
                };
                let mut at = tail_col + open + 1;
                let list = &tail[open + 1..close];
                for item in list.split(',') {
                    if item.trim().is_empty() && list.trim().is_empty() {
                        break;
                    }
                    let Some((v, name)) = item.split_once(':') else {
                        return Err(err(
                            Loc {
                                line,
                                col: at as u32 + 1,
                            },
                            "expected 'value: block'",
                        ));
                    };
                    let Ok(v) = v.trim().parse::<i64>() else {
                        return Err(err(
                            Loc {
                                line,
                                col: at as u32 + 1,
                            },
                            format!("bad case value '{}'", v.trim()),
                        ));
                    };
                    t.values.push(v);
                    t.targets
                        .push(target(name, line, at + item.find(':').unwrap_or(0) + 1)?);
                    at += item.len() + 1;
                }
                let Some(default) = tail[close + 1..].trim_start().strip_prefix(',') else {
                    return Err(err(loc, "'br_table' needs a default block after the list"));
                };
                let dcol = tail_col + tail.len() - default.len();
                t.targets.push(target(default, line, dcol)?);
            }
            format!("if {} {{ continue }}", value.trim())
        }
        "return" => {
            t.kind = TermKind::Return;
            code.to_string()
        }
        _ => return Ok(None),
    };
    Ok(Some((t, marker)))
}

/// Parses a module whose function bodies are control-flow graphs; returns
/// the module (bodies empty) and one [`Cfg`] per function, in order.
pub fn parse_cfg_module(src: &str) -> Result<(Module, Vec<Cfg>), ParseError> {
    let mut out = String::with_capacity(src.len());
    let mut bodies: Vec<Vec<Event>> = Vec::new();
    let mut depth = 0;
    let mut header = false;
    let mut in_body = false;
    for (n, line) in src.split('\n').enumerate() {
        let line_no = n as u32 + 1;
        let (code, after) = scan(line, depth);
        let trimmed = code.trim();
        let indent = code.len() - code.trim_start().len();
        let mut replaced = None;
        if depth == 0 && !in_body {
            let first = trimmed.split_whitespace().next().unwrap_or("");
            if first == "fn" || first == "kernel" {
                header = true;
            }
        } else if in_body && depth == 1 {
            let events = bodies.last_mut().expect("a body is open");
            if let Some(name) = trimmed.strip_suffix(':').filter(|n| is_name(n)) {
                let loc = Loc {
                    line: line_no,
                    col: indent as u32 + 1,
                };
                events.push(Event::Label(name.to_string(), loc));
                replaced = Some(String::new());
            } else if let Some((t, marker)) = terminator(trimmed, line_no, indent)? {
                events.push(Event::Term(t));
                replaced = Some(format!("{}{marker}", &code[..indent]));
            }
        }
        if header && depth == 0 && after >= 1 {
            header = false;
            in_body = true;
            bodies.push(Vec::new());
        } else if in_body && after == 0 {
            in_body = false;
        }
        depth = after;
        match replaced {
            Some(r) => out.push_str(&r),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    let mut m = parse_module(&out)?;
    let mut cfgs = Vec::new();
    for (f, events) in m.functions.iter_mut().zip(bodies) {
        let body = std::mem::take(&mut f.body);
        cfgs.push(split_body(body, events, &f.name)?);
    }
    Ok((m, cfgs))
}

/// Cuts a parsed body at its terminator markers into the blocks `events`
/// describe.
fn split_body(body: Block, events: Vec<Event>, fname: &str) -> Result<Cfg, ParseError> {
    // Block names and terminators, in order.
    let mut blocks: Vec<(String, Loc, Option<TermText>)> = Vec::new();
    for e in events {
        match e {
            Event::Label(name, loc) => {
                if let Some((prev, _, None)) = blocks.last() {
                    return Err(err(
                        loc,
                        format!("block '{prev}' does not end in a terminator"),
                    ));
                }
                if blocks.iter().any(|(n, ..)| *n == name) {
                    return Err(err(loc, format!("block '{name}' is defined twice")));
                }
                blocks.push((name, loc, None));
            }
            Event::Term(t) => {
                if blocks.is_empty() {
                    blocks.push(("entry".into(), Loc::NONE, None));
                }
                match blocks.last_mut() {
                    Some((_, _, slot @ None)) => *slot = Some(t),
                    _ => {
                        return Err(err(
                            t.loc,
                            "a terminator without a block: put a label before it",
                        ))
                    }
                }
            }
        }
    }
    match blocks.last() {
        None => return Err(err(Loc::NONE, format!("function @{fname} has no blocks"))),
        Some((name, loc, None)) => {
            return Err(err(
                *loc,
                format!("block '{name}' does not end in a terminator"),
            ))
        }
        _ => {}
    }
    let ids: HashMap<&str, BlockId> = blocks
        .iter()
        .enumerate()
        .map(|(i, (n, ..))| (n.as_str(), BlockId(i as u32)))
        .collect();
    let resolve = |(name, loc): &(String, Loc)| {
        ids.get(name.as_str())
            .copied()
            .ok_or_else(|| err(*loc, format!("no block named '{name}'")))
    };
    let mut stmts = body.0.into_iter();
    let mut cfg = Cfg::default();
    for (name, loc, term) in &blocks {
        let t = term.as_ref().expect("checked above");
        let mut content = Vec::new();
        let marker = loop {
            match stmts.next() {
                Some(s @ (Stmt::Continue | Stmt::Return(_))) => break s,
                Some(Stmt::If { cond, then_, else_ })
                    if then_.0 == [Stmt::Continue] && else_.0.is_empty() =>
                {
                    break Stmt::If { cond, then_, else_ }
                }
                Some(s) => content.push(s),
                None => return Err(err(t.loc, "internal: terminator marker missing")),
            }
        };
        let term = match (t.kind, marker) {
            (TermKind::Jump, Stmt::Continue) => Terminator::Jump(resolve(&t.targets[0])?),
            (TermKind::Branch, Stmt::If { cond, .. }) => Terminator::Branch {
                cond,
                then_: resolve(&t.targets[0])?,
                else_: resolve(&t.targets[1])?,
            },
            (TermKind::Table, Stmt::If { cond, .. }) => {
                let (default, cases) = t.targets.split_last().expect("a default");
                let cases = t
                    .values
                    .iter()
                    .zip(cases)
                    .map(|(v, c)| Ok((*v, resolve(c)?)))
                    .collect::<Result<_, ParseError>>()?;
                Terminator::Switch {
                    selector: cond,
                    cases,
                    default: resolve(default)?,
                }
            }
            (TermKind::Return, Stmt::Return(v)) => Terminator::Return(v),
            _ => {
                return Err(err(
                    t.loc,
                    "a top-level 'continue' or 'if … { continue }' is not allowed in a block",
                ))
            }
        };
        cfg.blocks.push(BasicBlock {
            name: name.clone(),
            loc: *loc,
            stmts: Block(content),
            term,
        });
    }
    if stmts.next().is_some() {
        return Err(err(
            Loc::NONE,
            format!("statements after the last terminator of @{fname}"),
        ));
    }
    Ok(cfg)
}

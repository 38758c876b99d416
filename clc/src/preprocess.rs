//! The C preprocessor (C99 6.10) as OpenCL C uses it.
//!
//! Directives: `#define` (object-like, function-like, variadic, `#`, `##`),
//! `#undef`, `#include` (supplied headers first, then `-I` directories),
//! `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` with `defined`,
//! `#error`, `#warning`, `#line`, `#pragma` (OpenCL extension pragmas are
//! accepted, unknown pragmas ignored). Macro expansion follows the hide-set
//! rule: a token produced by expanding macro `M` never expands `M` again, so
//! self-referential macros terminate.

use crate::diag::{Diags, Pos, SourceMap};
use crate::lexer::{lex, recycle, token_buffer, Text, TokKind, Token};
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

#[derive(Debug)]
struct Macro {
    /// `None` for object-like macros.
    params: Option<Vec<Text>>,
    variadic: bool,
    body: Vec<Token>,
}

/// A set of macro definitions (the predefined macros of an option set are
/// computed once per process and reused by every build). Definitions are
/// shared: copying a table or expanding a macro copies no tokens.
#[derive(Clone, Debug, Default)]
pub struct MacroTable(FxHashMap<Text, Arc<Macro>>);

/// One level of `#if` nesting.
struct Cond {
    /// Some group of this `#if` chain has been taken.
    taken: bool,
    /// Lines of the current group are kept.
    active: bool,
    seen_else: bool,
    pos: Pos,
}

pub struct Preprocessor<'a> {
    pub sm: &'a mut SourceMap,
    pub diags: &'a mut Diags,
    macros: FxHashMap<Text, Arc<Macro>>,
    include_dirs: Vec<String>,
    /// Directories of the files being included from disk, innermost last:
    /// a quoted `#include` searches the including file's directory first.
    including_dirs: Vec<std::path::PathBuf>,
    /// The directories, within the names of the in-memory headers, of the
    /// headers being included (`inc/a.h` including `"b.h"` finds `inc/b.h`
    /// first), at every depth.
    header_dirs: Vec<String>,
    headers: HashMap<String, String>,
    out: Vec<Token>,
    conds: Vec<Cond>,
    depth: u32,
    /// A `#pragma OPENCL FP_CONTRACT OFF` was seen (in an active group).
    contract_off: bool,
    /// Each `#pragma OPENCL EXTENSION cl_khr_fp16` (or `all`) `: enable`
    /// or `: disable`: the number of tokens output before it, and whether
    /// it enables.
    fp16_changes: Vec<(usize, bool)>,
}

/// What the pragmas of a program asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pragmas {
    /// `#pragma OPENCL FP_CONTRACT OFF`, wherever it stood.
    pub contract_off: bool,
    /// `#pragma OPENCL EXTENSION cl_khr_fp16 : enable` (or `all : enable`)
    /// somewhere.
    pub fp16: bool,
    /// Where `cl_khr_fp16` (or `all`) was enabled or disabled, in order:
    /// the index in the output tokens of the first token after the pragma,
    /// and whether it enables.
    pub fp16_changes: Vec<(usize, bool)>,
}

/// Whether `half` arithmetic is valid at a source position, for a program
/// whose pragmas enable or disable `cl_khr_fp16`: the state the last such
/// pragma before the position's token left, in token order (a macro's
/// tokens stand where it is expanded).
#[derive(Debug)]
pub struct Fp16Scope {
    /// The state before any pragma (on in OpenCL C 3.0, whose device
    /// reports `__opencl_c_fp16`).
    initial: bool,
    changes: Vec<(usize, bool)>,
    /// The index of the first output token at each position.
    index: HashMap<Pos, usize>,
}

impl Fp16Scope {
    pub fn new(initial: bool, changes: &[(usize, bool)], tokens: &[Token]) -> Self {
        let mut index = HashMap::with_capacity(tokens.len());
        for (i, t) in tokens.iter().enumerate() {
            index.entry(t.pos).or_insert(i);
        }
        Fp16Scope {
            initial,
            changes: changes.to_vec(),
            index,
        }
    }

    /// The state at the token at `pos`; `None` when no token stands there.
    pub fn enabled_at(&self, pos: Pos) -> Option<bool> {
        let i = *self.index.get(&pos)?;
        let before = self.changes.partition_point(|c| c.0 <= i);
        Some(match before {
            0 => self.initial,
            n => self.changes[n - 1].1,
        })
    }
}

const MAX_INCLUDE_DEPTH: u32 = 64;
const MAX_EXPANSIONS: usize = 1 << 20;

impl<'a> Preprocessor<'a> {
    pub fn new(
        sm: &'a mut SourceMap,
        diags: &'a mut Diags,
        include_dirs: Vec<String>,
        headers: &[(&str, &str)],
    ) -> Self {
        Preprocessor {
            sm,
            diags,
            macros: FxHashMap::default(),
            include_dirs,
            including_dirs: Vec::new(),
            header_dirs: Vec::new(),
            headers: headers
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
            out: token_buffer(),
            conds: Vec::new(),
            depth: 0,
            contract_off: false,
            fp16_changes: Vec::new(),
        }
    }

    /// Defines each `name` as the tokens of its `value` (the predefined
    /// set), from one synthetic file so the lexer runs once.
    pub fn define_all(&mut self, defs: &[(String, String)]) {
        let mut text = String::new();
        for (name, value) in defs {
            text.push_str(&format!("#define {name} {value}\n"));
        }
        self.command_line(&text);
    }

    /// Runs `text`, lines of `#define` and `#undef` (the `-D` and `-U`
    /// options), as if they opened the source.
    pub fn command_line(&mut self, text: &str) {
        let file = self.sm.add("<command line>", text);
        let toks = lex(text, file, self.diags);
        let mut i = 0;
        while i < toks.len() {
            let mut j = i + 1;
            while j < toks.len() && !toks[j].bol {
                j += 1;
            }
            self.directive(&toks[i..j]);
            i = j;
        }
    }

    /// The macros defined so far.
    pub fn macro_table(&self) -> MacroTable {
        MacroTable(self.macros.clone())
    }

    /// Starts from the given definitions (replacing any so far).
    pub fn set_macro_table(&mut self, table: MacroTable) {
        self.macros = table.0;
    }

    /// Preprocesses a whole file and returns the tokens for the parser.
    pub fn run(self, file: u32) -> Vec<Token> {
        self.run_with_pragmas(file).0
    }

    /// [`Preprocessor::run`], also telling which pragmas were seen.
    pub fn run_with_pragmas(mut self, file: u32) -> (Vec<Token>, Pragmas) {
        self.file(file);
        let pragmas = Pragmas {
            contract_off: self.contract_off,
            fp16: self.fp16_changes.iter().any(|c| c.1),
            fp16_changes: self.fp16_changes,
        };
        (self.out, pragmas)
    }

    fn file(&mut self, file: u32) {
        let toks = lex(&self.sm.files[file as usize].text, file, self.diags);
        let base_conds = self.conds.len();
        let is_directive = |t: &Token| t.bol && t.is_punct("#");
        let mut lexed = toks;
        let mut toks = lexed.drain(..).peekable();
        let mut line = Vec::new();
        while let Some(first) = toks.next() {
            if is_directive(&first) {
                line.clear();
                line.push(first);
                while let Some(t) = toks.next_if(|t| !t.bol) {
                    line.push(t);
                }
                self.directive(&line);
                continue;
            }
            // The text up to the next directive expands as one sequence (a
            // macro call may span lines, not a directive).
            let mut text = token_buffer();
            text.push(first);
            while let Some(t) = toks.next_if(|t| !is_directive(t)) {
                text.push(t);
            }
            if self.active() {
                let mut out = std::mem::take(&mut self.out);
                self.expand_into(text, &mut out);
                self.out = out;
            } else {
                recycle(text);
            }
        }
        drop(toks);
        recycle(lexed);
        while self.conds.len() > base_conds {
            if let Some(c) = self.conds.pop() {
                self.diags
                    .error(c.pos, "unterminated conditional directive");
            }
        }
    }

    fn active(&self) -> bool {
        self.conds.last().is_none_or(|c| c.active)
    }

    fn directive(&mut self, line: &[Token]) {
        let hash = line[0].pos;
        let Some(name_tok) = line.get(1) else { return };
        let args = &line[2..];
        let name = name_tok.text.as_str();
        let parent_active = self.conds.iter().all(|c| c.active);
        match name {
            "if" | "ifdef" | "ifndef" => {
                let value = parent_active && self.eval_condition(name, name_tok.pos, args);
                self.conds.push(Cond {
                    taken: value,
                    active: value && parent_active,
                    seen_else: false,
                    pos: hash,
                });
                return;
            }
            "elif" | "else" | "endif" => {
                let outer_active = self.conds.len() < 2
                    || self.conds[..self.conds.len() - 1].iter().all(|c| c.active);
                let Some(c) = self.conds.last_mut() else {
                    self.diags
                        .error(name_tok.pos, format!("#{name} without #if"));
                    return;
                };
                match name {
                    "endif" => {
                        self.conds.pop();
                    }
                    "else" => {
                        if c.seen_else {
                            self.diags.error(name_tok.pos, "#else after #else");
                        }
                        c.seen_else = true;
                        c.active = outer_active && !c.taken;
                        c.taken = true;
                    }
                    _ => {
                        if c.seen_else {
                            self.diags.error(name_tok.pos, "#elif after #else");
                        }
                        let already = c.taken;
                        let value = outer_active
                            && !already
                            && self.eval_condition("if", name_tok.pos, args);
                        if let Some(c) = self.conds.last_mut() {
                            c.active = value;
                            c.taken = already || value;
                        }
                    }
                }
                return;
            }
            _ => {}
        }
        if !parent_active {
            return;
        }
        match name {
            "define" => self.define_directive(name_tok.pos, args),
            "undef" => match args.first() {
                Some(t) if t.kind == TokKind::Ident => {
                    self.macros.remove(t.text.as_str());
                }
                _ => self.diags.error(name_tok.pos, "macro name missing"),
            },
            "include" => self.include(name_tok.pos, args),
            "error" => self
                .diags
                .error(name_tok.pos, format!("#error {}", join_tokens(args))),
            "warning" => self
                .diags
                .warning(name_tok.pos, format!("#warning {}", join_tokens(args))),
            "pragma" => {
                // `FP_CONTRACT OFF` anywhere turns contraction off for the
                // whole program: never contracting is always allowed, so
                // this is exact wherever the pragma's scope would end.
                let words: Vec<&str> = args.iter().map(|t| t.text.as_str()).collect();
                if parent_active && words == ["OPENCL", "FP_CONTRACT", "OFF"] {
                    self.contract_off = true;
                }
                if let ["OPENCL", "EXTENSION", ..] = words.as_slice() {
                    self.extension_pragma(name_tok.pos, &args[2..]);
                }
            }
            "line" => self.line_directive(name_tok.pos, args),
            _ if name_tok.kind == TokKind::Number => self.line_directive(name_tok.pos, &line[1..]),
            _ => self.diags.error(
                name_tok.pos,
                format!("invalid preprocessing directive '#{name}'"),
            ),
        }
    }

    /// `#pragma OPENCL EXTENSION name : behavior` (OpenCL C 3.0 6.1.2,
    /// "Pragma Directives"), `args` from the name on. `cl_khr_fp16`'s
    /// state is kept by position: `half` arithmetic is valid from an
    /// `enable` to the next `disable` (`Pragmas::fp16_changes`). As clang
    /// does, an extension the device does not report, a behavior other than
    /// `enable`/`disable`, or a malformed pragma is a warning and ignored.
    fn extension_pragma(&mut self, at: Pos, args: &[Token]) {
        let words: Vec<&str> = args.iter().map(|t| t.text.as_str()).collect();
        let (name, behavior) = match words.as_slice() {
            [name, ":", behavior] if args[0].kind == TokKind::Ident => (*name, *behavior),
            _ => {
                self.diags.warning(
                    at,
                    "expected 'OPENCL EXTENSION <name> : <behavior>' - ignoring",
                );
                return;
            }
        };
        let on = match behavior {
            "enable" => true,
            "disable" => false,
            _ => {
                self.diags.warning(
                    args[2].pos,
                    format!("expected 'enable' or 'disable' - ignoring pragma for '{name}'"),
                );
                return;
            }
        };
        // The extensions the device reports are predefined as macros
        // (`crate::predefined_macros`).
        let known = name == "all" || name.starts_with("cl_") && self.macros.contains_key(name);
        if !known {
            self.diags.warning(
                args[0].pos,
                format!("unknown OpenCL extension '{name}' - ignoring"),
            );
            return;
        }
        if matches!(name, "cl_khr_fp16" | "all") {
            self.fp16_changes.push((self.out.len(), on));
        }
    }

    fn define_directive(&mut self, at: Pos, args: &[Token]) {
        let Some(name) = args.first().filter(|t| t.kind == TokKind::Ident) else {
            self.diags.error(at, "macro name must be an identifier");
            return;
        };
        if name.text == "defined" {
            self.diags
                .error(name.pos, "'defined' cannot be used as a macro name");
            return;
        }
        let mut rest = &args[1..];
        let mut params = None;
        let mut variadic = false;
        if rest.first().is_some_and(|t| t.is_punct("(") && !t.space) {
            let mut ps = Vec::new();
            let mut k = 1;
            loop {
                let Some(t) = rest.get(k) else {
                    self.diags
                        .error(name.pos, "missing ')' in macro parameter list");
                    return;
                };
                if t.is_punct(")") && ps.is_empty() && !variadic {
                    k += 1;
                    break;
                }
                if t.is_punct("...") {
                    variadic = true;
                } else if t.kind == TokKind::Ident {
                    ps.push(t.text.clone());
                } else {
                    self.diags
                        .error(t.pos, "invalid token in macro parameter list");
                    return;
                }
                k += 1;
                match rest.get(k) {
                    Some(t) if t.is_punct(",") && !variadic => k += 1,
                    Some(t) if t.is_punct(")") => {
                        k += 1;
                        break;
                    }
                    Some(t) => {
                        self.diags
                            .error(t.pos, "expected ',' or ')' in macro parameter list");
                        return;
                    }
                    None => {
                        self.diags
                            .error(name.pos, "missing ')' in macro parameter list");
                        return;
                    }
                }
            }
            rest = &rest[k..];
            params = Some(ps);
        }
        let mut body = rest.to_vec();
        if let Some(first) = body.first_mut() {
            first.space = false;
        }
        if body.first().is_some_and(|t| t.is_punct("##"))
            || (body.len() > 1 && body.last().is_some_and(|t| t.is_punct("##")))
        {
            self.diags.error(
                name.pos,
                "'##' cannot appear at either end of a macro expansion",
            );
            return;
        }
        self.macros.insert(
            name.text.clone(),
            Arc::new(Macro {
                params,
                variadic,
                body,
            }),
        );
    }

    fn include(&mut self, at: Pos, args: &[Token]) {
        let expanded;
        let args = if args.first().is_some_and(|t| t.kind == TokKind::Ident) {
            expanded = self.expand(args.to_vec());
            &expanded[..]
        } else {
            args
        };
        let name = match args.first() {
            Some(t) if t.kind == TokKind::Str => t.text.trim_matches('"').to_string(),
            Some(t) if t.is_punct("<") => {
                let mut s = String::new();
                for t in &args[1..] {
                    if t.is_punct(">") {
                        break;
                    }
                    s.push_str(&t.text);
                }
                s
            }
            _ => {
                self.diags.error(at, "expected \"FILENAME\" or <FILENAME>");
                return;
            }
        };
        if self.depth >= MAX_INCLUDE_DEPTH {
            self.diags.error(at, "#include nested too deeply");
            return;
        }
        let quoted = args.first().is_some_and(|t| t.kind == TokKind::Str);
        // A quoted name is looked up first beside the in-memory header
        // that includes it.
        let beside = self
            .header_dirs
            .last()
            .filter(|d| quoted && !d.is_empty())
            .map(|d| format!("{d}/{name}"))
            .filter(|n| self.headers.contains_key(n));
        let header_name = beside.or_else(|| self.headers.contains_key(&name).then(|| name.clone()));
        let (text, found_in) = match header_name.as_ref().and_then(|n| self.headers.get(n)) {
            Some(t) => (Some(t.clone()), None),
            None => {
                let own_dir = self.including_dirs.last().filter(|_| quoted).cloned();
                // An absolute name is looked up as it is, from a program
                // made from a string (no directory of its own) too.
                let absolute = std::path::Path::new(&name)
                    .is_absolute()
                    .then(std::path::PathBuf::new);
                let dirs = absolute
                    .into_iter()
                    .chain(own_dir)
                    .chain(self.include_dirs.iter().map(std::path::PathBuf::from));
                let mut found = (None, None);
                for d in dirs {
                    let path = d.join(&name);
                    if let Ok(bytes) = std::fs::read(&path) {
                        let text = crate::literal::decode_source(&bytes).into_owned();
                        found = (Some(text), path.parent().map(std::path::Path::to_path_buf));
                        break;
                    }
                }
                found
            }
        };
        let Some(text) = text else {
            self.diags.error(at, format!("'{name}' file not found"));
            return;
        };
        let file = self.sm.add(&name, &text);
        let pushed = found_in.is_some();
        if let Some(d) = found_in {
            self.including_dirs.push(d);
        }
        let header_dir = header_name.map(|n| match n.rfind('/') {
            Some(at) => n[..at].to_string(),
            None => String::new(),
        });
        if let Some(d) = &header_dir {
            self.header_dirs.push(d.clone());
        }
        self.depth += 1;
        self.file(file);
        self.depth -= 1;
        if pushed {
            self.including_dirs.pop();
        }
        if header_dir.is_some() {
            self.header_dirs.pop();
        }
    }

    fn line_directive(&mut self, at: Pos, args: &[Token]) {
        let args = self.expand(args.to_vec());
        let Some(n) = args
            .first()
            .and_then(|t| t.text.as_str().parse::<u32>().ok())
        else {
            self.diags
                .error(at, "#line directive requires a positive integer argument");
            return;
        };
        let file = at.file as usize;
        let name = match args.get(1) {
            Some(t) if t.kind == TokKind::Str => t.text.trim_matches('"').to_string(),
            _ => self.sm.presumed(at).0.to_string(),
        };
        self.sm.files[file].line_map.push((at.line + 1, name, n));
    }

    fn eval_condition(&mut self, kind: &str, at: Pos, args: &[Token]) -> bool {
        if kind != "if" {
            let Some(t) = args.first().filter(|t| t.kind == TokKind::Ident) else {
                self.diags.error(at, "macro name missing");
                return false;
            };
            let defined = self.macros.contains_key(t.text.as_str()) || is_dynamic_macro(&t.text);
            return defined == (kind == "ifdef");
        }
        // Replace `defined X` / `defined(X)` before expansion.
        let mut toks = Vec::new();
        let mut k = 0;
        while k < args.len() {
            let t = &args[k];
            if t.kind == TokKind::Ident && t.text == "defined" {
                let paren = args.get(k + 1).is_some_and(|t| t.is_punct("("));
                let name_at = if paren { k + 2 } else { k + 1 };
                let Some(name) = args.get(name_at).filter(|t| t.kind == TokKind::Ident) else {
                    self.diags
                        .error(t.pos, "macro name missing after 'defined'");
                    return false;
                };
                let value =
                    self.macros.contains_key(name.text.as_str()) || is_dynamic_macro(&name.text);
                let mut one = t.clone();
                one.kind = TokKind::Number;
                one.text = Text::Static(if value { "1" } else { "0" });
                toks.push(one);
                k = name_at + 1;
                if paren {
                    if !args.get(k).is_some_and(|t| t.is_punct(")")) {
                        self.diags.error(t.pos, "missing ')' after 'defined'");
                        return false;
                    }
                    k += 1;
                }
                continue;
            }
            toks.push(t.clone());
            k += 1;
        }
        let toks = self.expand(toks);
        if toks.is_empty() {
            self.diags.error(at, "#if with no expression");
            return false;
        }
        let mut ev = CondEval {
            toks: &toks,
            k: 0,
            err: None,
            depth: 0,
        };
        let v = ev.ternary();
        if ev.err.is_none() && ev.k < toks.len() {
            ev.err = Some((
                toks[ev.k].pos,
                format!(
                    "unexpected token '{}' in preprocessor expression",
                    toks[ev.k].text
                ),
            ));
        }
        match ev.err {
            Some((pos, msg)) => {
                self.diags.error(pos, msg);
                false
            }
            None => v.0 != 0,
        }
    }

    /// Fully macro-expands a token list.
    pub fn expand(&mut self, input: Vec<Token>) -> Vec<Token> {
        let mut out = Vec::with_capacity(input.len());
        self.expand_into(input, &mut out);
        out
    }

    /// Fully macro-expands a token list, appending the result to `out`.
    fn expand_into(&mut self, input: Vec<Token>, out: &mut Vec<Token>) {
        let mut inp: VecDeque<Token> = input.into();
        self.expand_queue(&mut inp, out);
        recycle(inp.into());
    }

    /// Expands the tokens of `inp` into `out`, taking them from the front.
    fn expand_queue(&mut self, inp: &mut VecDeque<Token>, out: &mut Vec<Token>) {
        let mut budget = MAX_EXPANSIONS;
        while let Some(t) = inp.pop_front() {
            if t.kind != TokKind::Ident || t.hidden(&t.text) {
                out.push(t);
                continue;
            }
            if t.text == "__LINE__" || t.text == "__FILE__" {
                let (file, line) = self.sm.presumed(t.pos);
                let mut r = t.clone();
                if t.text == "__LINE__" {
                    r.kind = TokKind::Number;
                    r.text = line.to_string().into();
                } else {
                    r.kind = TokKind::Str;
                    r.text = format!("\"{file}\"").into();
                }
                out.push(r);
                continue;
            }
            let Some(m) = self.macros.get(t.text.as_str()).cloned() else {
                out.push(t);
                continue;
            };
            if budget == 0 {
                self.diags.error(t.pos, "macro expansion too large");
                return;
            }
            budget -= 1;
            let mut hide: BTreeSet<Text> = t.hide.as_deref().cloned().unwrap_or_default();
            hide.insert(t.text.clone());
            let hide = Arc::new(hide);
            let body = match &m.params {
                None => self.substitute(&m, &[], &t),
                Some(params) => {
                    if !inp.front().is_some_and(|n| n.is_punct("(")) {
                        out.push(t);
                        continue;
                    }
                    inp.pop_front();
                    let Some(args) = self.collect_args(inp, &t) else {
                        return;
                    };
                    let want = params.len();
                    let args = if args.len() == 1 && args[0].is_empty() && want == 0 && !m.variadic
                    {
                        Vec::new()
                    } else {
                        args
                    };
                    let ok = if m.variadic {
                        args.len() >= want
                    } else {
                        args.len() == want
                    };
                    if !ok {
                        self.diags.error(
                            t.pos,
                            format!(
                                "macro '{}' takes {} argument{}, {} given",
                                t.text,
                                want,
                                if want == 1 { "" } else { "s" },
                                args.len()
                            ),
                        );
                        continue;
                    }
                    self.substitute(&m, &args, &t)
                }
            };
            for mut b in body.into_iter().rev() {
                b.hide = Some(match b.hide.take() {
                    // The common cases share one set: tokens of the macro's
                    // own body, and argument tokens hidden from no more.
                    None => hide.clone(),
                    Some(h) if h.is_subset(&hide) => hide.clone(),
                    Some(h) => {
                        let mut u = Arc::unwrap_or_clone(h);
                        u.extend(hide.iter().cloned());
                        Arc::new(u)
                    }
                });
                inp.push_front(b);
            }
            if let Some(f) = inp.front_mut() {
                f.space = t.space;
            }
        }
    }

    /// Collects the arguments of a function-like macro call after its `(`.
    fn collect_args(&mut self, inp: &mut VecDeque<Token>, name: &Token) -> Option<Vec<Vec<Token>>> {
        let mut args = vec![Vec::new()];
        let mut depth = 0;
        loop {
            let Some(t) = inp.pop_front() else {
                self.diags.error(
                    name.pos,
                    format!("unterminated call of macro '{}'", name.text),
                );
                return None;
            };
            if t.is_punct("(") {
                depth += 1;
            } else if t.is_punct(")") {
                if depth == 0 {
                    return Some(args);
                }
                depth -= 1;
            } else if t.is_punct(",") && depth == 0 {
                args.push(Vec::new());
                continue;
            }
            if let Some(last) = args.last_mut() {
                last.push(t);
            }
        }
    }

    /// The replacement list of one invocation with parameters substituted,
    /// `#` stringized and `##` pasted.
    fn substitute(&mut self, m: &Macro, args: &[Vec<Token>], at: &Token) -> Vec<Token> {
        let params = m.params.as_deref().unwrap_or(&[]);
        let arg_of = |name: &str| -> Option<Vec<Token>> {
            if let Some(i) = params.iter().position(|p| p == name) {
                return Some(args.get(i).cloned().unwrap_or_default());
            }
            if m.variadic && name == "__VA_ARGS__" {
                let mut v = Vec::new();
                for (i, a) in args.iter().enumerate().skip(params.len()) {
                    if i > params.len() {
                        v.push(Token {
                            kind: TokKind::Punct,
                            text: Text::Static(","),
                            pos: at.pos,
                            bol: false,
                            space: false,
                            hide: None,
                        });
                    }
                    v.extend(a.iter().cloned());
                }
                return Some(v);
            }
            None
        };
        let body = &m.body;
        let mut out: Vec<Token> = Vec::new();
        let mut paste_next = false;
        let mut k = 0;
        while k < body.len() {
            let t = &body[k];
            let mut piece: Vec<Token>;
            if m.params.is_some()
                && t.is_punct("#")
                && body.get(k + 1).is_some_and(|n| n.kind == TokKind::Ident)
            {
                let name = &body[k + 1].text;
                let Some(a) = arg_of(name) else {
                    self.diags
                        .error(t.pos, "'#' is not followed by a macro parameter");
                    k += 1;
                    continue;
                };
                piece = vec![Token {
                    kind: TokKind::Str,
                    text: stringize(&a).into(),
                    pos: at.pos,
                    bol: false,
                    space: t.space,
                    hide: None,
                }];
                k += 2;
            } else if t.is_punct("##") {
                paste_next = true;
                k += 1;
                continue;
            } else if t.kind == TokKind::Ident {
                match arg_of(&t.text) {
                    Some(a) => {
                        let next_paste = body.get(k + 1).is_some_and(|n| n.is_punct("##"));
                        piece = if paste_next || next_paste {
                            a
                        } else {
                            self.expand(a)
                        };
                        if let Some(f) = piece.first_mut() {
                            f.space = t.space;
                        }
                    }
                    None => {
                        let mut c = t.clone();
                        c.pos = at.pos;
                        piece = vec![c];
                    }
                }
                k += 1;
            } else {
                let mut c = t.clone();
                c.pos = at.pos;
                piece = vec![c];
                k += 1;
            }
            if paste_next {
                paste_next = false;
                if !piece.is_empty() {
                    if let Some(left) = out.pop() {
                        {
                            let right = piece.remove(0);
                            let text = format!("{}{}", left.text, right.text);
                            let mut scratch = Diags::default();
                            let toks = lex(&text, left.pos.file, &mut scratch);
                            if toks.len() == 1 && !scratch.has_errors() {
                                let mut p = left.clone();
                                p.kind = toks[0].kind;
                                p.text = text.into();
                                out.push(p);
                            } else {
                                self.diags.error(at.pos, format!("pasting \"{}\" and \"{}\" does not give a valid preprocessing token", left.text, right.text));
                                out.push(left);
                                out.push(right);
                            }
                        }
                    }
                }
            }
            out.extend(piece);
        }
        out
    }
}

fn is_dynamic_macro(name: &str) -> bool {
    name == "__LINE__" || name == "__FILE__"
}

fn join_tokens(toks: &[Token]) -> String {
    let mut s = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        s.push_str(&t.text);
    }
    s
}

fn stringize(toks: &[Token]) -> String {
    let mut s = String::from("\"");
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        if matches!(t.kind, TokKind::Str | TokKind::Char) {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}

/// Evaluates a `#if` expression over intmax_t/uintmax_t (C99 6.10.1).
struct CondEval<'t> {
    toks: &'t [Token],
    k: usize,
    err: Option<(Pos, String)>,
    depth: u32,
}

/// A value and whether it is unsigned.
type PpVal = (i64, bool);

impl CondEval<'_> {
    fn fail(&mut self, msg: &str) -> PpVal {
        if self.err.is_none() {
            let pos = self
                .toks
                .get(self.k)
                .or(self.toks.last())
                .map(|t| t.pos)
                .unwrap_or_default();
            self.err = Some((pos, msg.to_string()));
        }
        (0, false)
    }

    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.k)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_punct(p)) {
            self.k += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> PpVal {
        let c = self.binary(0);
        if self.eat("?") {
            let a = self.ternary();
            if !self.eat(":") {
                return self.fail("expected ':' in preprocessor expression");
            }
            let b = self.ternary();
            let u = a.1 || b.1;
            return if c.0 != 0 { (a.0, u) } else { (b.0, u) };
        }
        c
    }

    fn binary(&mut self, min_prec: u8) -> PpVal {
        let mut lhs = self.unary();
        while let Some(op) = self
            .peek()
            .filter(|t| t.kind == TokKind::Punct)
            .map(|t| t.text.clone())
        {
            let Some(prec) = binary_prec(&op) else { break };
            if prec < min_prec {
                break;
            }
            self.k += 1;
            let rhs = self.binary(prec + 1);
            lhs = self.apply(&op, lhs, rhs);
        }
        lhs
    }

    fn apply(&mut self, op: &str, a: PpVal, b: PpVal) -> PpVal {
        let u = a.1 || b.1;
        let (x, y) = (a.0, b.0);
        let cmp = |c: bool| (i64::from(c), false);
        match op {
            "||" => cmp(x != 0 || y != 0),
            "&&" => cmp(x != 0 && y != 0),
            "|" => (x | y, u),
            "^" => (x ^ y, u),
            "&" => (x & y, u),
            "==" => cmp(x == y),
            "!=" => cmp(x != y),
            "<" => cmp(if u { (x as u64) < (y as u64) } else { x < y }),
            ">" => cmp(if u { (x as u64) > (y as u64) } else { x > y }),
            "<=" => cmp(if u { (x as u64) <= (y as u64) } else { x <= y }),
            ">=" => cmp(if u { (x as u64) >= (y as u64) } else { x >= y }),
            "<<" => (x.wrapping_shl(y as u32), a.1),
            ">>" => (
                if a.1 {
                    ((x as u64) >> (y as u32 & 63)) as i64
                } else {
                    x.wrapping_shr(y as u32)
                },
                a.1,
            ),
            "+" => (x.wrapping_add(y), u),
            "-" => (x.wrapping_sub(y), u),
            "*" => (x.wrapping_mul(y), u),
            "/" | "%" => {
                if y == 0 {
                    return self.fail("division by zero in preprocessor expression");
                }
                let r = match (op, u) {
                    ("/", true) => ((x as u64) / (y as u64)) as i64,
                    ("/", false) => x.wrapping_div(y),
                    (_, true) => ((x as u64) % (y as u64)) as i64,
                    _ => x.wrapping_rem(y),
                };
                (r, u)
            }
            _ => self.fail("unknown operator"),
        }
    }

    fn unary(&mut self) -> PpVal {
        if self.depth > 256 {
            return self.fail("preprocessor expression nested too deeply");
        }
        self.depth += 1;
        let v = self.unary_inner();
        self.depth -= 1;
        v
    }

    fn unary_inner(&mut self) -> PpVal {
        let Some(t) = self.peek().cloned() else {
            return self.fail("expected value in preprocessor expression");
        };
        self.k += 1;
        match t.kind {
            TokKind::Punct => match t.text.as_str() {
                "(" => {
                    let v = self.ternary();
                    if !self.eat(")") {
                        return self.fail("expected ')' in preprocessor expression");
                    }
                    v
                }
                "!" => {
                    let v = self.unary();
                    (i64::from(v.0 == 0), false)
                }
                "-" => {
                    let v = self.unary();
                    (v.0.wrapping_neg(), v.1)
                }
                "+" => self.unary(),
                "~" => {
                    let v = self.unary();
                    (!v.0, v.1)
                }
                _ => {
                    self.k -= 1;
                    self.fail(&format!(
                        "unexpected token '{}' in preprocessor expression",
                        t.text
                    ))
                }
            },
            TokKind::Number => match crate::literal::parse_int(&t.text) {
                Some((v, ty)) => (v as i64, !ty.is_signed()),
                None => {
                    self.k -= 1;
                    self.fail("invalid integer constant in preprocessor expression")
                }
            },
            TokKind::Char => (crate::literal::parse_char(&t.text).unwrap_or(0), false),
            TokKind::Ident => (i64::from(t.text == "true"), false),
            TokKind::Str => {
                self.k -= 1;
                self.fail("string literal in preprocessor expression")
            }
        }
    }
}

fn binary_prec(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

//! Preprocessing tokens.
//!
//! The lexer turns one source file into preprocessing tokens (C99 6.4):
//! identifiers, pp-numbers, character and string literals and punctuators.
//! Line splices (`\` newline) are removed first, keeping every character's
//! original line and column so diagnostics point into the file as written.
//! Comments become whitespace. Each token records whether it starts a line
//! (directives) and whether whitespace preceded it (stringizing, `#define
//! f(x)` versus `#define f (x)`).

use crate::diag::{Diags, Pos};
use std::collections::BTreeSet;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    Ident,
    Number,
    Char,
    Str,
    Punct,
}

/// Names of macros that must not expand this token again (C99 6.10.3.4).
pub type HideSet = Option<Arc<BTreeSet<String>>>;

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokKind,
    pub text: String,
    pub pos: Pos,
    /// First token of a source line.
    pub bol: bool,
    /// Whitespace precedes the token.
    pub space: bool,
    pub hide: HideSet,
}

impl Token {
    pub fn is(&self, text: &str) -> bool {
        matches!(self.kind, TokKind::Punct | TokKind::Ident) && self.text == text
    }

    pub fn is_punct(&self, text: &str) -> bool {
        self.kind == TokKind::Punct && self.text == text
    }

    pub fn hidden(&self, name: &str) -> bool {
        self.hide.as_ref().is_some_and(|h| h.contains(name))
    }
}

const PUNCTS: [&str; 49] = [
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=",
    "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "[", "]", "(", ")", "{", "}", ".", "&", "*",
    "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", ";", "=", ",", "#", "@",
];

/// Lexes `text` (file index `file`). Unknown characters are reported and skipped.
pub fn lex(text: &str, file: u32, diags: &mut Diags) -> Vec<Token> {
    // Splice lines, remembering where each character came from.
    let raw: Vec<char> = text.chars().collect();
    let mut chars = Vec::with_capacity(raw.len());
    let mut where_ = Vec::with_capacity(raw.len());
    let (mut line, mut col) = (1u32, 1u32);
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c == '\\' {
            let mut j = i + 1;
            while j < raw.len() && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\r') {
                j += 1;
            }
            if j < raw.len() && raw[j] == '\n' {
                i = j + 1;
                line += 1;
                col = 1;
                continue;
            }
        }
        if c == '\r' {
            i += 1;
            continue;
        }
        chars.push(c);
        where_.push((line, col));
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
        i += 1;
    }
    let pos_at = |k: usize| {
        let (line, col) = where_.get(k).copied().unwrap_or((line, col));
        Pos { file, line, col }
    };

    let mut toks = Vec::new();
    let mut bol = true;
    let mut space = false;
    let mut k = 0;
    let n = chars.len();
    while k < n {
        let c = chars[k];
        if c == '\n' {
            bol = true;
            space = false;
            k += 1;
            continue;
        }
        if c.is_whitespace() {
            space = true;
            k += 1;
            continue;
        }
        if c == '/' && k + 1 < n && chars[k + 1] == '/' {
            while k < n && chars[k] != '\n' {
                k += 1;
            }
            space = true;
            continue;
        }
        if c == '/' && k + 1 < n && chars[k + 1] == '*' {
            let start = k;
            k += 2;
            while k + 1 < n && !(chars[k] == '*' && chars[k + 1] == '/') {
                k += 1;
            }
            if k + 1 >= n {
                diags.error(pos_at(start), "unterminated /* comment");
                k = n;
            } else {
                k += 2;
            }
            space = true;
            continue;
        }
        let start = k;
        let kind;
        if c.is_ascii_alphabetic() || c == '_' {
            while k < n && (chars[k].is_ascii_alphanumeric() || chars[k] == '_') {
                k += 1;
            }
            kind = TokKind::Ident;
        } else if c.is_ascii_digit() || (c == '.' && k + 1 < n && chars[k + 1].is_ascii_digit()) {
            k += 1;
            while k < n {
                let d = chars[k];
                let exponent_sign =
                    (d == '+' || d == '-') && matches!(chars[k - 1], 'e' | 'E' | 'p' | 'P');
                if exponent_sign || d.is_ascii_alphanumeric() || d == '_' || d == '.' {
                    k += 1;
                } else {
                    break;
                }
            }
            kind = TokKind::Number;
        } else if c == '"' || c == '\'' {
            k += 1;
            while k < n && chars[k] != c && chars[k] != '\n' {
                if chars[k] == '\\' && k + 1 < n {
                    k += 1;
                }
                k += 1;
            }
            if k >= n || chars[k] != c {
                diags.error(
                    pos_at(start),
                    if c == '"' {
                        "missing terminating '\"' character"
                    } else {
                        "missing terminating ' character"
                    },
                );
            } else {
                k += 1;
            }
            kind = if c == '"' {
                TokKind::Str
            } else {
                TokKind::Char
            };
        } else {
            let rest = &chars[k..n.min(k + 3)];
            let matches = |p: &&&str| {
                p.len() <= rest.len() && p.bytes().zip(rest).all(|(b, c)| char::from(b) == *c)
            };
            match PUNCTS.iter().find(matches) {
                Some(p) => {
                    k += p.len();
                    kind = TokKind::Punct;
                }
                None => {
                    diags.error(pos_at(start), format!("invalid character '{c}' in source"));
                    k += 1;
                    continue;
                }
            }
        }
        toks.push(Token {
            kind,
            text: chars[start..k].iter().collect(),
            pos: pos_at(start),
            bol,
            space,
            hide: None,
        });
        bol = false;
        space = false;
    }
    toks
}

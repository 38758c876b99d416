//! Preprocessing tokens.
//!
//! The lexer turns one source file into preprocessing tokens (C99 6.4):
//! identifiers, pp-numbers, character and string literals and punctuators.
//! Line splices (`\` newline) are removed first, keeping every character's
//! original line and column so diagnostics point into the file as written.
//! Comments become whitespace. Each token records whether it starts a line
//! (directives) and whether whitespace preceded it (stringizing, `#define
//! f(x)` versus `#define f (x)`).
//!
//! The lexer is on the path of every build, so it works on bytes and keeps
//! allocation low: punctuators get `'static` text, and each distinct other
//! spelling is allocated once per file and shared by every token that
//! spells it (see [`Text`]).

use crate::diag::{Diags, Pos};
use rustc_hash::FxHashMap;
use std::borrow::{Borrow, Cow};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    Ident,
    Number,
    Char,
    Str,
    Punct,
}

/// The spelling of a token: a `'static` string for punctuators (and text
/// the front end makes up), otherwise a shared one, so that copying a token (macro
/// expansion does that a lot) never copies its text.
#[derive(Clone)]
pub enum Text {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Text {
    pub fn as_str(&self) -> &str {
        match self {
            Text::Static(s) => s,
            Text::Shared(s) => s,
        }
    }
}

impl Default for Text {
    fn default() -> Text {
        Text::Static("")
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::Shared(s.into())
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::Shared(s.into())
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Names of macros that must not expand this token again (C99 6.10.3.4).
pub type HideSet = Option<Arc<BTreeSet<Text>>>;

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokKind,
    pub text: Text,
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

thread_local! {
    /// Emptied token buffers of this thread's earlier builds. Builds run on
    /// kept threads, and reusing their large buffers spares the allocator
    /// the large frees that make it reorganise its free lists.
    static SPARE_BUFFERS: RefCell<Vec<Vec<Token>>> = const { RefCell::new(Vec::new()) };
}

/// Spare buffers kept per thread, and the largest kept (in tokens).
const MAX_SPARE_BUFFERS: usize = 4;
const MAX_SPARE_CAPACITY: usize = 1 << 14;

/// An empty token buffer, one of this thread's spare ones when it has one.
pub fn token_buffer() -> Vec<Token> {
    SPARE_BUFFERS
        .try_with(|s| s.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Drops the tokens of `buffer` and keeps it for a later [`token_buffer`].
pub fn recycle(mut buffer: Vec<Token>) {
    buffer.clear();
    if buffer.capacity() == 0 || buffer.capacity() > MAX_SPARE_CAPACITY {
        return;
    }
    let _ = SPARE_BUFFERS.try_with(|s| {
        let mut spare = s.borrow_mut();
        if spare.len() < MAX_SPARE_BUFFERS {
            spare.push(buffer);
        }
    });
}

/// The punctuator at the start of `s`, longest match first.
fn punctuator(s: &[u8]) -> Option<&'static str> {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let (a, b, c) = (at(0), at(1), at(2));
    let three = match (a, b, c) {
        (b'.', b'.', b'.') => Some("..."),
        (b'<', b'<', b'=') => Some("<<="),
        (b'>', b'>', b'=') => Some(">>="),
        _ => None,
    };
    if three.is_some() {
        return three;
    }
    let two = match (a, b) {
        (b'-', b'>') => Some("->"),
        (b'+', b'+') => Some("++"),
        (b'-', b'-') => Some("--"),
        (b'<', b'<') => Some("<<"),
        (b'>', b'>') => Some(">>"),
        (b'<', b'=') => Some("<="),
        (b'>', b'=') => Some(">="),
        (b'=', b'=') => Some("=="),
        (b'!', b'=') => Some("!="),
        (b'&', b'&') => Some("&&"),
        (b'|', b'|') => Some("||"),
        (b'*', b'=') => Some("*="),
        (b'/', b'=') => Some("/="),
        (b'%', b'=') => Some("%="),
        (b'+', b'=') => Some("+="),
        (b'-', b'=') => Some("-="),
        (b'&', b'=') => Some("&="),
        (b'^', b'=') => Some("^="),
        (b'|', b'=') => Some("|="),
        (b'#', b'#') => Some("##"),
        _ => None,
    };
    if two.is_some() {
        return two;
    }
    Some(match a {
        b'[' => "[",
        b']' => "]",
        b'(' => "(",
        b')' => ")",
        b'{' => "{",
        b'}' => "}",
        b'.' => ".",
        b'&' => "&",
        b'*' => "*",
        b'+' => "+",
        b'-' => "-",
        b'~' => "~",
        b'!' => "!",
        b'/' => "/",
        b'%' => "%",
        b'<' => "<",
        b'>' => ">",
        b'^' => "^",
        b'|' => "|",
        b'?' => "?",
        b':' => ":",
        b';' => ";",
        b'=' => "=",
        b',' => ",",
        b'#' => "#",
        b'@' => "@",
        _ => return None,
    })
}

/// Where each byte of the spliced text came from: the text between two
/// splices keeps counting lines and columns from the splice's position.
struct Positions<'s> {
    text: &'s [u8],
    /// Text without splices: the lexer reports each newline
    /// ([`Positions::newline`]) and columns are counted from the line's
    /// start. Otherwise positions are found by scanning the text.
    simple: bool,
    /// No byte of the text, or of the current line, is beyond ASCII (a
    /// column is then a byte count).
    text_ascii: bool,
    line_ascii: bool,
    /// Start of the current line (simple text).
    line_start: usize,
    file: u32,
    /// `(offset, line)`: the byte at `offset` of the spliced text is at
    /// column 1 of `line` (it follows a removed `\` newline).
    restarts: Vec<(usize, u32)>,
    next_restart: usize,
    at: usize,
    line: u32,
    col: u32,
}

impl Positions<'_> {
    /// The lexer passed the newline at byte `at`.
    #[inline]
    fn newline(&mut self, at: usize) {
        if self.simple {
            self.line += 1;
            self.start_line(at + 1);
        }
    }

    fn start_line(&mut self, start: usize) {
        self.line_start = start;
        self.at = start;
        self.col = 1;
        if !self.text_ascii {
            let rest = &self.text[start.min(self.text.len())..];
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            self.line_ascii = rest[..end].is_ascii();
        }
    }

    /// The position of spliced byte `to`; calls must not go backwards.
    #[inline]
    fn of(&mut self, to: usize) -> Pos {
        if self.simple {
            let col = if self.line_ascii {
                (to - self.line_start) as u32 + 1
            } else {
                // Columns count characters, not UTF-8 continuation bytes.
                let chars = self.text[self.at..to]
                    .iter()
                    .filter(|&&b| b & 0xC0 != 0x80)
                    .count();
                self.at = to;
                self.col += chars as u32;
                self.col
            };
            return Pos {
                file: self.file,
                line: self.line,
                col,
            };
        }
        self.scan_to(to)
    }

    fn scan_to(&mut self, to: usize) -> Pos {
        while self.at < to {
            self.restart_here();
            let b = self.text[self.at];
            if b == b'\n' {
                self.line += 1;
                self.col = 1;
            } else if b & 0xC0 != 0x80 {
                // Columns count characters, not UTF-8 continuation bytes.
                self.col += 1;
            }
            self.at += 1;
        }
        self.restart_here();
        Pos {
            file: self.file,
            line: self.line,
            col: self.col,
        }
    }

    fn restart_here(&mut self) {
        while let Some(&(offset, line)) = self.restarts.get(self.next_restart) {
            if offset > self.at {
                break;
            }
            self.line = line;
            self.col = 1;
            self.next_restart += 1;
        }
    }
}

/// Removes line splices and carriage returns, recording where lines
/// restart. Borrows the text when it has neither.
fn splice(text: &str) -> (Cow<'_, str>, Vec<(usize, u32)>) {
    let bytes = text.as_bytes();
    let needs_work = bytes.contains(&b'\r')
        || text
            .match_indices('\\')
            .any(|(i, _)| splice_end(bytes, i).is_some());
    if !needs_work {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut out = String::with_capacity(text.len());
    let mut restarts = Vec::new();
    let mut line = 1u32;
    let mut i = 0;
    let mut copied_from = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                if let Some(end) = splice_end(bytes, i) {
                    out.push_str(&text[copied_from..i]);
                    line += 1;
                    i = end;
                    copied_from = i;
                    restarts.push((out.len(), line));
                    continue;
                }
            }
            b'\r' => {
                out.push_str(&text[copied_from..i]);
                i += 1;
                copied_from = i;
                continue;
            }
            b'\n' => line += 1,
            _ => {}
        }
        i += 1;
    }
    out.push_str(&text[copied_from..]);
    (Cow::Owned(out), restarts)
}

/// If the `\` at `i` ends its line (only spaces, tabs or carriage returns
/// between it and the newline), the index just past that newline.
fn splice_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\r') {
        j += 1;
    }
    (j < bytes.len() && bytes[j] == b'\n').then_some(j + 1)
}

/// Lexes `text` (file index `file`). Unknown characters are reported and skipped.
pub fn lex(text: &str, file: u32, diags: &mut Diags) -> Vec<Token> {
    let (spliced, restarts) = splice(text);
    let s: &str = &spliced;
    let bytes = s.as_bytes();
    let n = bytes.len();
    let mut pos = Positions {
        text: bytes,
        simple: restarts.is_empty(),
        text_ascii: s.is_ascii(),
        line_ascii: true,
        line_start: 0,
        file,
        restarts,
        next_restart: 0,
        at: 0,
        line: 1,
        col: 1,
    };
    pos.start_line(0);
    let mut spellings: FxHashMap<&str, Arc<str>> =
        FxHashMap::with_capacity_and_hasher(256, Default::default());

    let mut toks = token_buffer();
    toks.reserve(n / 4);
    let mut bol = true;
    let mut space = false;
    let mut k = 0;
    while k < n {
        let c = bytes[k];
        if c == b'\n' {
            pos.newline(k);
            bol = true;
            space = false;
            k += 1;
            continue;
        }
        if matches!(c, b' ' | b'\t' | 0x0b | 0x0c) {
            space = true;
            k += 1;
            continue;
        }
        if c == b'/' && k + 1 < n && bytes[k + 1] == b'/' {
            while k < n && bytes[k] != b'\n' {
                k += 1;
            }
            space = true;
            continue;
        }
        if c == b'/' && k + 1 < n && bytes[k + 1] == b'*' {
            let at = pos.of(k);
            k += 2;
            while k + 1 < n && !(bytes[k] == b'*' && bytes[k + 1] == b'/') {
                if bytes[k] == b'\n' {
                    pos.newline(k);
                }
                k += 1;
            }
            if k + 1 >= n {
                diags.error(at, "unterminated /* comment");
                k = n;
            } else {
                k += 2;
            }
            space = true;
            continue;
        }
        let start = k;
        let kind;
        let text;
        if c.is_ascii_alphabetic() || c == b'_' {
            while k < n && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_') {
                k += 1;
            }
            kind = TokKind::Ident;
            text = intern(&mut spellings, &s[start..k]);
        } else if c.is_ascii_digit() || (c == b'.' && k + 1 < n && bytes[k + 1].is_ascii_digit()) {
            k += 1;
            while k < n {
                let d = bytes[k];
                let exponent_sign =
                    (d == b'+' || d == b'-') && matches!(bytes[k - 1], b'e' | b'E' | b'p' | b'P');
                if exponent_sign || d.is_ascii_alphanumeric() || d == b'_' || d == b'.' {
                    k += 1;
                } else {
                    break;
                }
            }
            kind = TokKind::Number;
            text = intern(&mut spellings, &s[start..k]);
        } else if c == b'"' || c == b'\'' {
            k += 1;
            while k < n && bytes[k] != c && bytes[k] != b'\n' {
                if bytes[k] == b'\\' && k + 1 < n {
                    k += 1;
                }
                k += 1;
            }
            if k >= n || bytes[k] != c {
                diags.error(
                    pos.of(start),
                    if c == b'"' {
                        "missing terminating '\"' character"
                    } else {
                        "missing terminating ' character"
                    },
                );
            } else {
                k += 1;
            }
            // A backslash before a multi-byte character leaves `k` inside it;
            // the scan ends on an ASCII byte or at the end, both boundaries.
            kind = if c == b'"' {
                TokKind::Str
            } else {
                TokKind::Char
            };
            text = Text::Shared(s.get(start..k).unwrap_or_default().into());
        } else if let Some(p) = punctuator(&bytes[k..]) {
            k += p.len();
            kind = TokKind::Punct;
            text = Text::Static(p);
        } else {
            // Whitespace, or a character that cannot start a token.
            let ch = s[k..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
            if ch.is_whitespace() {
                space = true;
            } else {
                diags.error(pos.of(start), format!("invalid character '{ch}' in source"));
            }
            k += ch.len_utf8();
            continue;
        }
        toks.push(Token {
            kind,
            text,
            pos: pos.of(start),
            bol,
            space,
            hide: None,
        });
        bol = false;
        space = false;
    }
    toks
}

/// The shared text of spelling `w`, allocated on first use.
fn intern<'s>(spellings: &mut FxHashMap<&'s str, Arc<str>>, w: &'s str) -> Text {
    if let Some(t) = spellings.get(w) {
        return Text::Shared(t.clone());
    }
    let t: Arc<str> = w.into();
    spellings.insert(w, t.clone());
    Text::Shared(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(text, line, col, bol)` of each token.
    fn lexed(src: &str) -> (Vec<(String, u32, u32, bool)>, Vec<String>) {
        let mut diags = Diags::default();
        let toks = lex(src, 0, &mut diags)
            .into_iter()
            .map(|t| (t.text.to_string(), t.pos.line, t.pos.col, t.bol))
            .collect();
        let errors = diags
            .list
            .iter()
            .map(|d| format!("{}:{}: {}", d.pos.line, d.pos.col, d.message))
            .collect();
        (toks, errors)
    }

    fn tok(text: &str, line: u32, col: u32, bol: bool) -> (String, u32, u32, bool) {
        (text.to_string(), line, col, bol)
    }

    #[test]
    fn positions_count_lines_and_characters() {
        let (toks, errors) = lexed("a\n  bb /* x\n y */ c\n/* é */ z");
        assert!(errors.is_empty());
        assert_eq!(
            toks,
            [
                tok("a", 1, 1, true),
                tok("bb", 2, 3, true),
                tok("c", 3, 7, false),
                tok("z", 4, 9, true),
            ]
        );
    }

    #[test]
    fn splices_keep_the_written_positions() {
        let (toks, _) = lexed("#define A 1 + \\\n  2\nb");
        assert_eq!(
            toks,
            [
                tok("#", 1, 1, true),
                tok("define", 1, 2, false),
                tok("A", 1, 9, false),
                tok("1", 1, 11, false),
                tok("+", 1, 13, false),
                tok("2", 2, 3, false),
                tok("b", 3, 1, true),
            ]
        );
        let (toks, _) = lexed("ab\\  \r\ncd e");
        assert_eq!(toks, [tok("abcd", 1, 1, true), tok("e", 2, 4, false)]);
    }

    #[test]
    fn carriage_returns_are_not_columns() {
        let (toks, _) = lexed("x\r\n y\r\n");
        assert_eq!(toks, [tok("x", 1, 1, true), tok("y", 2, 2, true)]);
    }

    #[test]
    fn punctuators_take_the_longest_match() {
        let (toks, _) = lexed("a<<=b...c->d.5e+3f");
        let texts: Vec<&str> = toks.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(texts, ["a", "<<=", "b", "...", "c", "->", "d", ".5e+3f"]);
    }

    #[test]
    fn errors_point_at_the_bad_text() {
        let (_, errors) = lexed("a\n $");
        assert_eq!(errors, ["2:2: invalid character '$' in source"]);
        let (_, errors) = lexed("x /* \n\n");
        assert_eq!(errors, ["1:3: unterminated /* comment"]);
        let (toks, errors) = lexed("s = \"é\\\"\n");
        assert_eq!(errors, ["1:5: missing terminating '\"' character"]);
        assert_eq!(toks[2], tok("\"é\\\"", 1, 5, false));
    }
}

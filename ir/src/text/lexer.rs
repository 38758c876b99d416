//! Tokens of the IR text form.
//!
//! The lexer turns the whole input into a token list up front, each token
//! with its 1-based line and column, so the parser can look ahead freely
//! (it needs to, once, to find the names of structs, globals and functions
//! before their definitions). Newlines are tokens: a statement ends at the
//! end of its line. `;` starts a comment that runs to the end of the line.

use super::ParseError;

/// A token's kind and payload.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A keyword or bare name: `[A-Za-z_][A-Za-z0-9_.]*`.
    Ident(String),
    /// A number as written: `-12`, `1.5e-3`, `0x7fc00000`.
    Num(String),
    /// A quoted string, unescaped.
    Str(String),
    /// `x"00ff…"`: bytes in hex.
    Bytes(Vec<u8>),
    /// `%N`: a value.
    Value(u32),
    /// `%name` / `%"name"`: a struct by name.
    StructName(String),
    /// `%#N`: a struct by index.
    StructIndex(u32),
    /// `@name` / `@"name"`: a global or function by name.
    AtName(String),
    /// `@#N`: a global or function by index.
    AtIndex(u32),
    /// `$N`: a register variable.
    Var(u32),
    /// `&N`: a private slot.
    Slot(u32),
    /// Punctuation: `( ) { } [ ] < > , : = | ->`.
    Punct(&'static str),
    Newline,
    Eof,
}

impl Tok {
    /// How the token is named in error messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Num(s) => format!("number `{s}`"),
            Tok::Str(_) => "a string".to_string(),
            Tok::Bytes(_) => "a byte string".to_string(),
            Tok::Value(n) => format!("`%{n}`"),
            Tok::StructName(s) => format!("struct `%{s}`"),
            Tok::StructIndex(n) => format!("struct `%#{n}`"),
            Tok::AtName(s) => format!("`@{s}`"),
            Tok::AtIndex(n) => format!("`@#{n}`"),
            Tok::Var(n) => format!("`${n}`"),
            Tok::Slot(n) => format!("`&{n}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Newline => "end of line".to_string(),
            Tok::Eof => "end of input".to_string(),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub line: u32,
    pub col: u32,
}

/// Whether `c` may start a bare name.
pub(crate) fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// Whether `c` may continue a bare name.
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    col: u32,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn err(&self, line: u32, col: u32, message: impl Into<String>) -> ParseError {
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek() {
            if !f(c) {
                break;
            }
            s.push(c);
            self.bump();
        }
        s
    }

    /// A decimal index after a sigil (`%12`, `$3`, `#4`).
    fn index(&mut self, line: u32, col: u32, what: &str) -> Result<u32, ParseError> {
        let digits = self.take_while(|c| c.is_ascii_digit());
        digits
            .parse::<u32>()
            .map_err(|_| self.err(line, col, format!("expected the number of a {what} here")))
    }

    /// A quoted string; the opening quote is next.
    fn string(&mut self) -> Result<String, ParseError> {
        let (line, col) = (self.line, self.col);
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => return Err(self.err(line, col, "unterminated string")),
                Some('"') => return Ok(s),
                Some('\\') => {
                    let (el, ec) = (self.line, self.col.saturating_sub(1));
                    match self.bump() {
                        Some('"') => s.push('"'),
                        Some('\\') => s.push('\\'),
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('u') => {
                            if self.bump() != Some('{') {
                                return Err(self.err(el, ec, "expected `{` after `\\u`"));
                            }
                            let hex = self.take_while(|c| c.is_ascii_hexdigit());
                            if self.bump() != Some('}') {
                                return Err(self.err(el, ec, "expected `}` to close `\\u{…}`"));
                            }
                            let c = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                            match c {
                                Some(c) => s.push(c),
                                None => {
                                    return Err(self.err(
                                        el,
                                        ec,
                                        "invalid character code in `\\u{…}`",
                                    ))
                                }
                            }
                        }
                        _ => return Err(self.err(el, ec, "unknown escape in string")),
                    }
                }
                Some(c) => s.push(c),
            }
        }
    }

    /// A name after `%` or `@`: bare or quoted.
    fn name(&mut self) -> Result<Option<String>, ParseError> {
        match self.peek() {
            Some('"') => self.string().map(Some),
            Some(c) if is_name_start(c) => Ok(Some(self.take_while(is_name_char))),
            _ => Ok(None),
        }
    }

    /// `x"…"`: hex digit pairs, whitespace allowed between pairs.
    fn bytes(&mut self, line: u32, col: u32) -> Result<Vec<u8>, ParseError> {
        self.bump();
        let mut out = Vec::new();
        let mut high: Option<u8> = None;
        loop {
            let (l, c) = (self.line, self.col);
            match self.bump() {
                None | Some('\n') => return Err(self.err(line, col, "unterminated byte string")),
                Some('"') if high.is_none() => return Ok(out),
                Some('"') => return Err(self.err(l, c, "odd number of hex digits in byte string")),
                Some(ch) if ch == ' ' || ch == '\t' => {
                    if high.is_some() {
                        return Err(self.err(l, c, "space inside a byte of a byte string"));
                    }
                }
                Some(ch) => {
                    let Some(d) = ch.to_digit(16) else {
                        return Err(self.err(l, c, format!("`{ch}` is not a hex digit")));
                    };
                    let d = d as u8;
                    match high.take() {
                        Some(h) => out.push(h << 4 | d),
                        None => high = Some(d),
                    }
                }
            }
        }
    }

    /// A number: decimal integer or float (`-1`, `2.5`, `1e-7`) or `0x` hex.
    fn number(&mut self) -> String {
        let mut s = String::new();
        if self.peek() == Some('-') {
            s.push('-');
            self.bump();
        }
        if self.peek() == Some('0') {
            s.push('0');
            self.bump();
            if matches!(self.peek(), Some('x' | 'X')) {
                s.push('x');
                self.bump();
                s.push_str(&self.take_while(|c| c.is_ascii_hexdigit()));
                return s;
            }
        }
        s.push_str(&self.take_while(|c| c.is_ascii_digit()));
        if self.peek() == Some('.') {
            s.push('.');
            self.bump();
            s.push_str(&self.take_while(|c| c.is_ascii_digit()));
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            s.push('e');
            self.bump();
            if let Some(c @ ('+' | '-')) = self.peek() {
                s.push(c);
                self.bump();
            }
            s.push_str(&self.take_while(|c| c.is_ascii_digit()));
        }
        s
    }

    fn next_token(&mut self) -> Result<Token, ParseError> {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\r') => {
                    self.bump();
                }
                Some(';') => {
                    while matches!(self.peek(), Some(c) if c != '\n') {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
        let (line, col) = (self.line, self.col);
        let token = |tok| Ok(Token { tok, line, col });
        let Some(c) = self.peek() else {
            return token(Tok::Eof);
        };
        match c {
            '\n' => {
                self.bump();
                token(Tok::Newline)
            }
            '%' => {
                self.bump();
                match self.peek() {
                    Some(d) if d.is_ascii_digit() => {
                        token(Tok::Value(self.index(line, col, "value")?))
                    }
                    Some('#') => {
                        self.bump();
                        token(Tok::StructIndex(self.index(line, col, "struct")?))
                    }
                    _ => match self.name()? {
                        Some(n) => token(Tok::StructName(n)),
                        None => Err(self.err(
                            line,
                            col,
                            "expected a value number or a struct name after `%`",
                        )),
                    },
                }
            }
            '@' => {
                self.bump();
                if self.peek() == Some('#') {
                    self.bump();
                    return token(Tok::AtIndex(self.index(line, col, "global or function")?));
                }
                match self.name()? {
                    Some(n) => token(Tok::AtName(n)),
                    None => Err(self.err(line, col, "expected a name after `@`")),
                }
            }
            '$' => {
                self.bump();
                token(Tok::Var(self.index(line, col, "variable")?))
            }
            '&' => {
                self.bump();
                token(Tok::Slot(self.index(line, col, "slot")?))
            }
            '"' => token(Tok::Str(self.string()?)),
            '-' => {
                self.bump();
                match self.peek() {
                    Some('>') => {
                        self.bump();
                        token(Tok::Punct("->"))
                    }
                    Some(d) if d.is_ascii_digit() => {
                        let rest = self.number();
                        token(Tok::Num(format!("-{rest}")))
                    }
                    Some(d) if is_name_start(d) => {
                        // `-inf`
                        let name = self.take_while(is_name_char);
                        token(Tok::Num(format!("-{name}")))
                    }
                    _ => Err(self.err(line, col, "unexpected `-`")),
                }
            }
            d if d.is_ascii_digit() => token(Tok::Num(self.number())),
            c if is_name_start(c) => {
                let name = self.take_while(is_name_char);
                if name == "x" && self.peek() == Some('"') {
                    return token(Tok::Bytes(self.bytes(line, col)?));
                }
                token(Tok::Ident(name))
            }
            _ => {
                self.bump();
                let p = match c {
                    '(' => "(",
                    ')' => ")",
                    '{' => "{",
                    '}' => "}",
                    '[' => "[",
                    ']' => "]",
                    '<' => "<",
                    '>' => ">",
                    ',' => ",",
                    ':' => ":",
                    '=' => "=",
                    '|' => "|",
                    _ => {
                        return Err(self.err(
                            line,
                            col,
                            format!("unexpected character `{}`", c.escape_debug()),
                        ))
                    }
                };
                token(Tok::Punct(p))
            }
        }
    }
}

/// Splits `src` into tokens, ending with [`Tok::Eof`].
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut lexer = Lexer {
        chars: src.chars().peekable(),
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    loop {
        let t = lexer.next_token()?;
        let eof = t.tok == Tok::Eof;
        out.push(t);
        if eof {
            return Ok(out);
        }
    }
}

//! Shrinks a failing kernel while it keeps failing the same way: removes
//! statements, whole blocks (a line that opens a brace through the line
//! that closes it, a function with its body, an `else` part), unwraps
//! blocks (keeps an `if`'s or a loop's body without its head), and
//! replaces parenthesised subexpressions with `0` or `1`. The generator
//! writes one statement per line, and each barrier with the accesses to
//! `lbuf` around it on one line, so removing lines keeps barriers whole.
//!
//! Candidates that no longer build, or fail differently, are rejected by
//! the caller's predicate; so a removal that would leave a variable
//! undeclared, or unbalance the braces, is simply not kept.

use std::time::Instant;

/// The line that closes the brace opened at the end of line `open`.
fn matching_close(lines: &[String], open: usize) -> Option<usize> {
    let mut depth = 1i32;
    for (j, l) in lines.iter().enumerate().skip(open + 1) {
        for c in l.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

fn net_braces(l: &str) -> i32 {
    l.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Line ranges worth trying to remove, starting at line `i`.
fn units(lines: &[String], i: usize) -> Vec<(usize, usize)> {
    let l = lines[i].trim();
    let mut out = Vec::new();
    if l.ends_with('{') {
        if let Some(j) = matching_close(lines, i) {
            if l.starts_with('}') {
                // `} else {`: drop the else part, keep the closing brace.
                out.push((i, j));
            } else {
                out.push((i, j + 1));
            }
        }
    } else if net_braces(l) == 0 {
        out.push((i, i + 1));
        // A function head and its body on the following lines.
        if i + 1 < lines.len() && lines[i + 1].trim() == "{" {
            if let Some(j) = matching_close(lines, i + 1) {
                out.push((i, j + 1));
            }
        }
    }
    out
}

/// Reduces `source` while `fails` holds, until `deadline`.
pub fn reduce(source: &str, fails: &mut dyn FnMut(&str) -> bool, deadline: Instant) -> String {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let join = |ls: &[String]| {
        let mut s = ls.join("\n");
        s.push('\n');
        s
    };
    loop {
        let mut progress = false;
        // Removals, from the end: later statements use earlier ones.
        let mut i = lines.len();
        while i > 0 {
            i -= 1;
            if Instant::now() > deadline {
                return join(&lines);
            }
            if i >= lines.len() {
                continue;
            }
            for (a, b) in units(&lines, i) {
                let mut cand = lines.clone();
                cand.drain(a..b);
                if fails(&join(&cand)) {
                    lines = cand;
                    progress = true;
                    break;
                }
            }
        }
        // Unwrapping: a block's head and closing line go, its body stays.
        let mut i = lines.len();
        while i > 0 {
            i -= 1;
            if Instant::now() > deadline {
                return join(&lines);
            }
            if i >= lines.len() {
                continue;
            }
            let l = lines[i].trim();
            if !l.ends_with('{') || l.starts_with('}') || l == "{" {
                continue;
            }
            let Some(j) = matching_close(&lines, i) else {
                continue;
            };
            if lines[j].trim() != "}" {
                continue;
            }
            let mut cand = lines.clone();
            cand.remove(j);
            cand.remove(i);
            if fails(&join(&cand)) {
                lines = cand;
                progress = true;
            }
        }
        // Subexpressions to constants.
        for i in 0..lines.len() {
            let mut start = 0;
            loop {
                if Instant::now() > deadline {
                    return join(&lines);
                }
                let Some((a, b)) = next_parens(&lines[i], start) else {
                    break;
                };
                let mut kept = false;
                for c in ["0", "1"] {
                    if &lines[i][a..b] == c || lines[i][a..b] == format!("({c})") {
                        continue;
                    }
                    let mut cand = lines.clone();
                    cand[i] = format!("{}({c}){}", &lines[i][..a], &lines[i][b..]);
                    if fails(&join(&cand)) {
                        lines = cand;
                        progress = true;
                        kept = true;
                        break;
                    }
                }
                start = if kept { a + 3 } else { a + 1 };
            }
        }
        if !progress {
            return join(&lines);
        }
    }
}

/// The next parenthesised group `(…)` starting at or after byte `from`
/// that is not a call's argument list or a cast: `[a, b)` covers the
/// parentheses.
fn next_parens(line: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut a = from;
    while a < bytes.len() {
        if bytes[a] == b'(' {
            let prev = line[..a].trim_end().chars().last();
            let call = prev.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ')');
            let mut depth = 0;
            let mut end = None;
            for (k, &c) in bytes.iter().enumerate().skip(a) {
                match c {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(k + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let end = end?;
            let inner = &line[a + 1..end - 1];
            let cast = inner
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ' ')
                && !inner.chars().all(|c| c.is_ascii_digit());
            // A cast's or a call's parentheses are not an expression.
            if !call && !cast && !line[end..].trim_start().starts_with('{') {
                return Some((a, end));
            }
        }
        a += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_what_the_failure_needs() {
        let src = "kernel void k(global uint *out)\n{\n    uint a = 1u;\n    uint b = (a + 2u);\n    if (a) {\n        b = 3u;\n    }\n    out[0] = b ^ 7u;\n}\n";
        // "Fails" while the store of `b ^ 7u` is there.
        let mut fails = |s: &str| s.contains("out[0] = b ^ 7u;") && s.contains("uint b");
        let far = Instant::now() + std::time::Duration::from_secs(10);
        let r = reduce(src, &mut fails, far);
        assert!(r.contains("out[0] = b ^ 7u;"));
        assert!(!r.contains("if (a)"), "{r}");
        assert!(!r.contains("uint a"), "{r}");
        assert!(
            r.contains("uint b = (0);") || r.contains("uint b = (1);"),
            "{r}"
        );
    }

    #[test]
    fn casts_and_calls_are_not_subexpressions() {
        let l = "x = (uint)f(a) + (b * c);";
        let (a, b) = next_parens(l, 0).expect("a group");
        assert_eq!(&l[a..b], "(b * c)");
    }
}

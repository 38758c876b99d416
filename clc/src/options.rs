//! Build options (the option string of `clBuildProgram`, `clCompileProgram`
//! and `clLinkProgram`, OpenCL 3.0 API 5.8.6 and 5.8.7), taken as clang
//! takes them.
//!
//! The string is split into words as a POSIX shell splits a command line
//! (single quotes, double quotes, backslash escapes), so `-D"N=a b"` is one
//! word, `-DN=a b` two. `-D` and `-U` become `#define`/`#undef` lines run in
//! their order before the source, exactly as if written at its top: a name
//! may carry a parameter list (`-DF(a,b)=a##b`) and a value is any text up
//! to a newline (`-DS(x)=#x`), as clang's `-D` is.
//!
//! Every option of the specification's lists is accepted, with its meaning
//! where vecl has one. An unknown option is handled as clang's driver
//! handles it: `-f…` and `-m…` options and warning options (`-W…`) vecl does
//! not use are a warning in the build log (clang: "argument unused during
//! compilation", "unknown warning option"); anything else unknown, an
//! unknown `-cl-…` option, or a bad value is [`BuildError::InvalidOptions`].

use crate::BuildError;

/// A `-D` or `-U`, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacroOption {
    /// `-D name[(params)][=value]`; `value` is `1` when none is given.
    Define { name: String, value: String },
    /// `-U name`.
    Undefine(String),
}

/// A warning about the option string, at a 1-based line and column of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionWarning {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// The parsed option string.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-D` and `-U`, in order.
    pub macros: Vec<MacroOption>,
    pub include_dirs: Vec<String>,
    /// `-cl-std`: 100, 110, 120 (default), 200, 300.
    pub cl_std: u32,
    /// The math options, with their implications applied (see [`Options::parse`]).
    pub math: vecl_ir::MathFlags,
    pub single_precision_constant: bool,
    pub suppress_warnings: bool,
    pub warnings_are_errors: bool,
    pub opt_disable: bool,
    pub kernel_arg_info: bool,
    /// `-cl-uniform-work-group-size`: under OpenCL C 2.0 and later, launches
    /// must use uniform work-groups.
    pub uniform_work_group_size: bool,
    /// `-create-library` (`clLinkProgram`: make a library, not an executable).
    pub create_library: bool,
    /// `-enable-link-options` (`clLinkProgram` with `-create-library`).
    pub enable_link_options: bool,
    /// `-cl-vecl-robust-access`: every memory access of the program's
    /// kernels is bounds-checked (vecl's own option; the Rust API has it on
    /// by default, the C driver only when asked).
    pub robust_access: bool,
    /// `-cl-vecl-checked`: checked mode (robust access and the checks of
    /// `__local` memory and barriers); implies `robust_access`.
    pub checked: bool,
    /// The option string as given: [`Options::warnings`] point into it.
    pub text: String,
    /// Options accepted with a warning (see the module documentation).
    pub warnings: Vec<OptionWarning>,
}

/// One word of the option string and the byte offset where it starts.
#[derive(Debug)]
struct Word {
    text: String,
    start: usize,
}

/// Splits an option string into words as a POSIX shell does: unquoted
/// whitespace separates; `'…'` is literal; in `"…"` a backslash escapes
/// only `"`, `\`, `$`, `` ` `` and a newline; elsewhere a backslash escapes
/// any character; a backslash-newline joins lines.
fn words(s: &str) -> Result<Vec<Word>, BuildError> {
    let unterminated =
        |q: char| BuildError::InvalidOptions(format!("unterminated {q} quote in build options"));
    let mut out = Vec::new();
    let mut cur: Option<Word> = None;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_whitespace() {
            out.extend(cur.take());
            continue;
        }
        if c == '\\' && chars.next_if(|&(_, n)| n == '\n').is_some() {
            continue;
        }
        let word = cur.get_or_insert_with(|| Word {
            text: String::new(),
            start: i,
        });
        match c {
            '\'' => loop {
                match chars.next() {
                    Some((_, '\'')) => break,
                    Some((_, c)) => word.text.push(c),
                    None => return Err(unterminated('\'')),
                }
            },
            '"' => loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((_, '\\')) => {
                        match chars.next_if(|&(_, n)| matches!(n, '"' | '\\' | '$' | '`' | '\n')) {
                            Some((_, '\n')) => {}
                            Some((_, e)) => word.text.push(e),
                            None => word.text.push('\\'),
                        }
                    }
                    Some((_, c)) => word.text.push(c),
                    None => return Err(unterminated('"')),
                }
            },
            '\\' => word.text.push(chars.next().map_or('\\', |(_, e)| e)),
            c => word.text.push(c),
        }
    }
    out.extend(cur);
    Ok(out)
}

fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` is what `-D` may define: an identifier, optionally
/// followed at once by a parameter list (`F(a, b)`, `G(x, ...)`, `H()`).
fn is_macro_name(name: &str) -> bool {
    let Some(open) = name.find('(') else {
        return is_identifier(name);
    };
    let Some(list) = name[open + 1..].strip_suffix(')') else {
        return false;
    };
    let params: Vec<&str> = list.split(',').map(str::trim).collect();
    is_identifier(&name[..open])
        && (list.trim().is_empty()
            || params
                .iter()
                .enumerate()
                .all(|(k, p)| is_identifier(p) || (*p == "..." && k + 1 == params.len())))
}

/// The 1-based line and column of byte `offset` of `s`.
fn line_col(s: &str, offset: usize) -> (u32, u32) {
    let before = &s[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line as u32, col as u32)
}

fn invalid(message: String) -> BuildError {
    BuildError::InvalidOptions(message)
}

impl Options {
    pub fn parse(s: &str) -> Result<Options, BuildError> {
        let mut o = Options {
            cl_std: 120,
            text: s.to_string(),
            ..Options::default()
        };
        let w = words(s)?;
        let mut warnings = Vec::new();
        let mut i = 0;
        while i < w.len() {
            let a = w[i].text.as_str();
            let (line, col) = line_col(s, w[i].start);
            let mut warn = |message: String| {
                warnings.push(OptionWarning { line, col, message });
            };
            // The argument of `-D`, `-U`, `-I`, `-x`: the rest of the word
            // or the next word.
            let mut value = |prefix: &str| -> Result<String, BuildError> {
                if a.len() > prefix.len() {
                    Ok(a[prefix.len()..].to_string())
                } else {
                    i += 1;
                    w.get(i)
                        .map(|w| w.text.clone())
                        .ok_or_else(|| invalid(format!("missing argument to '{prefix}'")))
                }
            };
            if a.starts_with("-D") {
                let d = value("-D")?;
                let (name, value) = d.split_once('=').unwrap_or((&d, "1"));
                if !is_macro_name(name) {
                    return Err(invalid(format!("invalid macro name in '-D{d}'")));
                }
                // As clang (and GCC) take `-D`: the definition ends at a newline.
                let value = match value.split_once(['\n', '\r']) {
                    Some((first, _)) => {
                        warn(format!(
                            "macro '{name}' contains embedded newline; text after the newline is ignored"
                        ));
                        first
                    }
                    None => value,
                };
                o.macros.push(MacroOption::Define {
                    name: name.to_string(),
                    value: value.to_string(),
                });
            } else if a.starts_with("-U") {
                let name = value("-U")?;
                if !is_identifier(&name) {
                    return Err(invalid(format!("invalid macro name in '-U{name}'")));
                }
                o.macros.push(MacroOption::Undefine(name));
            } else if a.starts_with("-I") {
                let d = value("-I")?;
                o.include_dirs.push(d);
            } else if a.starts_with("-x") {
                match value("-x")?.as_str() {
                    "cl" => {}
                    "clc++" | "cl++" | "CLC++" => {
                        return Err(invalid("C++ for OpenCL is not supported".into()))
                    }
                    other => {
                        return Err(invalid(format!(
                            "language '{other}' in '-x' is not OpenCL C"
                        )))
                    }
                }
            } else if let Some(std) = a.strip_prefix("-cl-std=") {
                o.cl_std = match std.to_ascii_uppercase().as_str() {
                    "CL" | "CL1.0" => 100,
                    "CL1.1" => 110,
                    "CL1.2" => 120,
                    "CL2.0" => 200,
                    "CL3.0" => 300,
                    "CLC++" | "CLC++1.0" | "CLC++2021" => {
                        return Err(invalid(format!(
                            "'-cl-std={std}': C++ for OpenCL is not supported"
                        )))
                    }
                    _ => return Err(invalid(format!("invalid value '{std}' in '-cl-std='"))),
                };
            } else if let Some(level) = a.strip_prefix("-O") {
                // Optimisation levels: vecl always optimises the same way.
                let known = ["", "s", "z", "g", "fast"];
                if !known.contains(&level) && !level.chars().all(|c| c.is_ascii_digit()) {
                    return Err(invalid(format!("invalid optimisation level '{a}'")));
                }
            } else if a.starts_with("-g") {
                // Debugging information: vecl emits none.
                let known = [
                    "-g",
                    "-g0",
                    "-g1",
                    "-g2",
                    "-g3",
                    "-ggdb",
                    "-gline-tables-only",
                    "-gfull",
                ];
                if !known.contains(&a) && !a.starts_with("-gdwarf") {
                    return Err(invalid(format!("unrecognised build option '{a}'")));
                }
            } else {
                match a {
                    "-cl-opt-disable" => o.opt_disable = true,
                    "-cl-mad-enable" => o.math.mad_enable = true,
                    // `-cl-no-signed-zeroes` is the linker options' spelling
                    // in the specification (5.8.7).
                    "-cl-no-signed-zeros" | "-cl-no-signed-zeroes" => o.math.no_signed_zeros = true,
                    "-cl-unsafe-math-optimizations" => o.math.unsafe_math = true,
                    "-cl-finite-math-only" => o.math.finite_math_only = true,
                    "-cl-denorms-are-zero" => o.math.denorms_are_zero = true,
                    "-cl-fast-relaxed-math" => o.math.fast_relaxed_math = true,
                    // Division and sqrt are correctly rounded already.
                    "-cl-fp32-correctly-rounded-divide-sqrt" => {}
                    // Sub-groups are not supported, so there is no
                    // independent forward progress to give up.
                    "-cl-strict-aliasing" | "-cl-no-subgroup-ifp" => {}
                    "-cl-uniform-work-group-size" => o.uniform_work_group_size = true,
                    "-cl-single-precision-constant" => o.single_precision_constant = true,
                    "-cl-kernel-arg-info" => o.kernel_arg_info = true,
                    "-cl-vecl-robust-access" => o.robust_access = true,
                    "-cl-vecl-checked" => {
                        o.robust_access = true;
                        o.checked = true;
                    }
                    "-create-library" => o.create_library = true,
                    "-enable-link-options" => o.enable_link_options = true,
                    "-w" => o.suppress_warnings = true,
                    "-Werror" => o.warnings_are_errors = true,
                    "-Wno-error" => o.warnings_are_errors = false,
                    // vecl's warnings are always all on.
                    "-Wall" | "-Wextra" | "-Weverything" | "-Wpedantic" | "-pedantic" => {}
                    _ if a.starts_with("-W") && a.len() > 2 => warn(format!(
                        "unknown warning option '{a}' (vecl's warnings have no names to select)"
                    )),
                    _ if (a.starts_with("-f") || a.starts_with("-m")) && a.len() > 2 => {
                        warn(format!("argument unused during compilation: '{a}'"))
                    }
                    _ => return Err(invalid(format!("unrecognised build option '{a}'"))),
                }
            }
            i += 1;
        }
        o.warnings = warnings;
        // 5.8.7: "-enable-link-options ... can only be specified when
        // -create-library is specified."
        if o.enable_link_options && !o.create_library {
            return Err(invalid(
                "'-enable-link-options' is only allowed with '-create-library'".into(),
            ));
        }
        // 5.6.4.2: -cl-fast-relaxed-math sets -cl-finite-math-only and
        // -cl-unsafe-math-optimizations, which in turn sets -cl-mad-enable
        // and -cl-no-signed-zeros; the IR carries the closure so a consumer
        // tests the one flag it cares about.
        let m = &mut o.math;
        if m.fast_relaxed_math {
            m.finite_math_only = true;
            m.unsafe_math = true;
        }
        if m.unsafe_math {
            m.mad_enable = true;
            m.no_signed_zeros = true;
        }
        Ok(o)
    }

    /// Parses the options of `clLinkProgram`, which takes only the
    /// linker options of OpenCL 3.0 5.8.7: `-create-library`,
    /// `-enable-link-options` and the math options a link may still apply.
    pub fn parse_link(s: &str) -> Result<Options, BuildError> {
        const LINK_OPTIONS: &[&str] = &[
            "-create-library",
            "-enable-link-options",
            "-cl-denorms-are-zero",
            "-cl-no-signed-zeros",
            "-cl-no-signed-zeroes",
            "-cl-unsafe-math-optimizations",
            "-cl-finite-math-only",
            "-cl-fast-relaxed-math",
            "-cl-no-subgroup-ifp",
            "-cl-vecl-robust-access",
            "-cl-vecl-checked",
        ];
        for w in words(s)? {
            if !LINK_OPTIONS.contains(&w.text.as_str()) {
                return Err(invalid(format!(
                    "'{}' is not a link option (clLinkProgram takes {})",
                    w.text,
                    LINK_OPTIONS.join(", ")
                )));
            }
        }
        Options::parse(s)
    }

    /// The `#define` and `#undef` lines of `-D` and `-U`, in order: the
    /// preprocessor runs them before the source.
    pub fn macro_directives(&self) -> String {
        let mut text = String::new();
        for m in &self.macros {
            match m {
                MacroOption::Define { name, value } => {
                    text.push_str(&format!("#define {name} {value}\n"))
                }
                MacroOption::Undefine(name) => text.push_str(&format!("#undef {name}\n")),
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn define(name: &str, value: &str) -> MacroOption {
        MacroOption::Define {
            name: name.into(),
            value: value.into(),
        }
    }

    fn invalid_message(options: &str) -> String {
        match Options::parse(options) {
            Err(BuildError::InvalidOptions(m)) => m,
            other => panic!("{options:?}: expected InvalidOptions, got {other:?}"),
        }
    }

    #[test]
    fn parses_defines_includes_and_std() {
        let o =
            Options::parse("-DN=4 -D M -I /tmp/x -cl-std=CL2.0 -cl-mad-enable -w").expect("valid");
        assert_eq!(o.macros, [define("N", "4"), define("M", "1")]);
        assert_eq!(o.include_dirs, ["/tmp/x"]);
        assert_eq!(o.cl_std, 200);
        assert!(o.math.mad_enable && o.suppress_warnings);
        assert!(!o.math.finite_math_only);
    }

    #[test]
    fn function_like_macros_stringizing_and_pasting() {
        let o = Options::parse("-DF(a,b)=a##b -DS(x)=#x -D G(x,...)=x -DH()= -DE=").expect("valid");
        assert_eq!(
            o.macros,
            [
                define("F(a,b)", "a##b"),
                define("S(x)", "#x"),
                define("G(x,...)", "x"),
                define("H()", ""),
                define("E", ""),
            ]
        );
        assert_eq!(
            o.macro_directives(),
            "#define F(a,b) a##b\n#define S(x) #x\n#define G(x,...) x\n#define H() \n#define E \n"
        );
    }

    #[test]
    fn words_are_split_as_a_shell_splits_them() {
        let o = Options::parse(
            r#"-D"A=a b" -D 'B=x  "y"' -DC=c\ d "-DD=\"s\"" -DE='$x'\'' q' -DF="\n\$""#,
        )
        .expect("valid");
        assert_eq!(
            o.macros,
            [
                define("A", "a b"),
                define("B", r#"x  "y""#),
                define("C", "c d"),
                define("D", r#""s""#),
                define("E", "$x' q"),
                define("F", r"\n$"),
            ]
        );
        // A backslash-newline joins; quotes make an empty word an argument.
        let o = Options::parse("-I \\\n/a -I '' -DX=1").expect("valid");
        assert_eq!(o.include_dirs, ["/a", ""]);
        assert!(invalid_message("-D'N=1").contains("unterminated"));
        assert!(invalid_message("-D\"N=1").contains("unterminated"));
    }

    #[test]
    fn undefines_keep_their_place_among_defines() {
        let o = Options::parse("-DA -UA -U B -DA=2").expect("valid");
        assert_eq!(
            o.macros,
            [
                define("A", "1"),
                MacroOption::Undefine("A".into()),
                MacroOption::Undefine("B".into()),
                define("A", "2"),
            ]
        );
        assert_eq!(
            o.macro_directives(),
            "#define A 1\n#undef A\n#undef B\n#define A 2\n"
        );
    }

    #[test]
    fn a_definition_ends_at_a_newline_with_a_warning() {
        let o = Options::parse("-DX='1\n#define Y 2'").expect("valid");
        assert_eq!(o.macros, [define("X", "1")]);
        assert_eq!(o.warnings.len(), 1);
        assert!(o.warnings[0].message.contains("embedded newline"));
    }

    #[test]
    fn every_option_of_the_specification_is_accepted() {
        let all = "-D A=1 -DB -UC -I /x -Iy -cl-std=CL1.0 -cl-std=CL1.1 -cl-std=CL1.2 \
                   -cl-std=CL2.0 -cl-std=CL3.0 -cl-single-precision-constant \
                   -cl-denorms-are-zero -cl-fp32-correctly-rounded-divide-sqrt \
                   -cl-opt-disable -cl-strict-aliasing -cl-uniform-work-group-size \
                   -cl-no-subgroup-ifp -cl-mad-enable -cl-no-signed-zeros \
                   -cl-unsafe-math-optimizations -cl-finite-math-only \
                   -cl-fast-relaxed-math -w -Werror -cl-kernel-arg-info -g \
                   -create-library -enable-link-options -cl-no-signed-zeroes -x cl -xcl";
        let o = Options::parse(all).expect("valid");
        assert_eq!(o.cl_std, 300);
        assert!(o.uniform_work_group_size && o.opt_disable && o.kernel_arg_info);
        assert!(o.create_library && o.enable_link_options);
        assert!(o.suppress_warnings && o.warnings_are_errors);
        assert!(o.warnings.is_empty(), "{:?}", o.warnings);
        // What clang also takes: levels, debug forms, lower-case versions.
        let o = Options::parse("-O0 -O3 -Os -O -g0 -gdwarf-4 -cl-std=cl2.0 -Wall -Wno-error")
            .expect("valid");
        assert_eq!(o.cl_std, 200);
        assert!(o.warnings.is_empty() && !o.warnings_are_errors);
    }

    #[test]
    fn a_link_takes_only_link_options() {
        let o = Options::parse_link("-create-library -enable-link-options -cl-fast-relaxed-math")
            .expect("link options");
        assert!(o.create_library && o.enable_link_options && o.math.finite_math_only);
        let o =
            Options::parse_link("-cl-denorms-are-zero -cl-no-signed-zeroes -cl-no-subgroup-ifp")
                .expect("link options");
        assert!(o.math.denorms_are_zero && o.math.no_signed_zeros);
        for compile_only in ["-DX=1", "-cl-std=CL2.0", "-I dir", "-cl-mad-enable", "-w"] {
            let err = Options::parse_link(compile_only).err();
            assert!(
                matches!(&err, Some(BuildError::InvalidOptions(m)) if m.contains("is not a link option")),
                "{compile_only}: {err:?}"
            );
        }
        // 5.8.7: -enable-link-options only with -create-library.
        assert!(Options::parse_link("-enable-link-options").is_err());
    }

    #[test]
    fn math_options_imply_what_the_standard_says() {
        let o = Options::parse("-cl-fast-relaxed-math -cl-denorms-are-zero").expect("valid");
        let m = o.math;
        assert!(m.fast_relaxed_math && m.finite_math_only && m.unsafe_math);
        assert!(m.mad_enable && m.no_signed_zeros && m.denorms_are_zero);
        let u = Options::parse("-cl-unsafe-math-optimizations")
            .expect("valid")
            .math;
        assert!(u.unsafe_math && u.mad_enable && u.no_signed_zeros);
        assert!(!u.finite_math_only && !u.fast_relaxed_math && !u.denorms_are_zero);
        let n = Options::parse("-cl-no-signed-zeros").expect("valid").math;
        assert_eq!(
            n,
            vecl_ir::MathFlags {
                no_signed_zeros: true,
                ..Default::default()
            }
        );
    }

    #[test]
    fn options_clang_warns_about_are_warnings_at_their_column() {
        let o =
            Options::parse("-DN=1 -fno-bogus -march=native\n -Wshadow -Werror=foo").expect("valid");
        let at: Vec<(u32, u32, &str)> = o
            .warnings
            .iter()
            .map(|w| (w.line, w.col, w.message.as_str()))
            .collect();
        assert_eq!(
            at,
            [
                (
                    1,
                    7,
                    "argument unused during compilation: '-fno-bogus'"
                ),
                (
                    1,
                    18,
                    "argument unused during compilation: '-march=native'"
                ),
                (
                    2,
                    2,
                    "unknown warning option '-Wshadow' (vecl's warnings have no names to select)"
                ),
                (
                    2,
                    11,
                    "unknown warning option '-Werror=foo' (vecl's warnings have no names to select)"
                ),
            ]
        );
    }

    #[test]
    fn rejects_unknown_options_by_name() {
        assert!(invalid_message("-cl-fast-relaxed-math -cl-bogus").contains("-cl-bogus"));
        assert!(invalid_message("-bogus").contains("-bogus"));
        assert!(invalid_message("--bogus").contains("--bogus"));
        assert!(invalid_message("kernel.cl").contains("kernel.cl"));
        assert!(invalid_message("-cl-std=CL9.9").contains("CL9.9"));
        assert!(invalid_message("-cl-std=CLC++").contains("C++"));
        assert!(invalid_message("-x c").contains("'c'"));
        assert!(invalid_message("-Ofoo").contains("-Ofoo"));
        assert!(invalid_message("-gbogus").contains("-gbogus"));
        assert!(invalid_message("-enable-link-options").contains("-create-library"));
        for missing in ["-D", "-U", "-I", "-x"] {
            assert!(invalid_message(missing).contains("missing argument"));
        }
        for bad in [
            "-D=1",
            "-D1X",
            "-D 'F (x)=x'",
            "-DF(a,=1",
            "-DF(a",
            "-DF(1)=1",
            "-U F(x)",
        ] {
            assert!(invalid_message(bad).contains("invalid macro name"), "{bad}");
        }
    }
}

//! Build options (`clBuildProgram`'s option string, OpenCL 1.2 5.6.4).

use crate::BuildError;

/// The parsed option string.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-D name[=value]`, in order.
    pub defines: Vec<(String, String)>,
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
}

/// Splits an option string into words, honouring double quotes.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

impl Options {
    pub fn parse(s: &str) -> Result<Options, BuildError> {
        let mut o = Options {
            cl_std: 120,
            ..Options::default()
        };
        let w = words(s);
        let mut i = 0;
        while i < w.len() {
            let a = w[i].as_str();
            let mut value = |prefix: &str| -> Result<String, BuildError> {
                if a.len() > prefix.len() {
                    Ok(a[prefix.len()..].to_string())
                } else {
                    i += 1;
                    w.get(i).cloned().ok_or_else(|| {
                        BuildError::InvalidOptions(format!("missing argument to '{prefix}'"))
                    })
                }
            };
            if a.starts_with("-D") {
                let d = value("-D")?;
                let (n, v) = match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), v.to_string()),
                    None => (d.clone(), "1".to_string()),
                };
                if n.is_empty()
                    || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    || n.starts_with(|c: char| c.is_ascii_digit())
                {
                    return Err(BuildError::InvalidOptions(format!(
                        "invalid macro name in '-D{d}'"
                    )));
                }
                o.defines.push((n, v));
            } else if a.starts_with("-I") {
                let d = value("-I")?;
                o.include_dirs.push(d);
            } else if let Some(std) = a.strip_prefix("-cl-std=") {
                o.cl_std = match std {
                    "CL1.0" => 100,
                    "CL1.1" => 110,
                    "CL1.2" => 120,
                    "CL2.0" => 200,
                    "CL3.0" => 300,
                    _ => {
                        return Err(BuildError::InvalidOptions(format!(
                            "invalid value '{std}' in '-cl-std='"
                        )))
                    }
                };
            } else {
                match a {
                    "-cl-opt-disable" => o.opt_disable = true,
                    "-cl-mad-enable" => o.math.mad_enable = true,
                    "-cl-no-signed-zeros" => o.math.no_signed_zeros = true,
                    "-cl-unsafe-math-optimizations" => o.math.unsafe_math = true,
                    "-cl-finite-math-only" => o.math.finite_math_only = true,
                    "-cl-denorms-are-zero" => o.math.denorms_are_zero = true,
                    "-cl-fast-relaxed-math" => o.math.fast_relaxed_math = true,
                    // Division and sqrt are correctly rounded already.
                    "-cl-fp32-correctly-rounded-divide-sqrt" => {}
                    "-cl-strict-aliasing"
                    | "-cl-uniform-work-group-size"
                    | "-cl-no-subgroup-ifp" => {}
                    "-cl-single-precision-constant" => o.single_precision_constant = true,
                    "-cl-kernel-arg-info" => o.kernel_arg_info = true,
                    "-w" => o.suppress_warnings = true,
                    "-Werror" => o.warnings_are_errors = true,
                    _ => {
                        return Err(BuildError::InvalidOptions(format!(
                            "unrecognised build option '{a}'"
                        )))
                    }
                }
            }
            i += 1;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_defines_includes_and_std() {
        let o =
            Options::parse("-DN=4 -D M -I /tmp/x -cl-std=CL2.0 -cl-mad-enable -w").expect("valid");
        assert_eq!(
            o.defines,
            [("N".into(), "4".into()), ("M".into(), "1".into())]
        );
        assert_eq!(o.include_dirs, ["/tmp/x"]);
        assert_eq!(o.cl_std, 200);
        assert!(o.math.mad_enable && o.suppress_warnings);
        assert!(!o.math.finite_math_only);
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
    fn rejects_unknown_options_by_name() {
        match Options::parse("-cl-fast-relaxed-math -fno-bogus") {
            Err(BuildError::InvalidOptions(m)) => assert!(m.contains("-fno-bogus"), "{m}"),
            other => panic!("expected InvalidOptions, got {other:?}"),
        }
        assert!(matches!(
            Options::parse("-cl-std=CL9.9"),
            Err(BuildError::InvalidOptions(_))
        ));
        assert!(matches!(
            Options::parse("-D"),
            Err(BuildError::InvalidOptions(_))
        ));
    }
}

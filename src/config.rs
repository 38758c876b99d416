//! [`Config`]: every `VECL_*` environment variable, read in one place.
//!
//! The library crates below (`vecl-jit`, `vecl-runtime`, `vecl-ir`) read no
//! environment: they take plain options ([`vecl_jit::JitOptions`], the
//! pool's thread count, a queue's kernel timeout). This module reads the
//! variables once per process, at the first call of [`Config::global`],
//! and maps them onto those options for the Rust API, the command line and
//! the driver alike. [`VARIABLES`] lists them; the README's table is the
//! same list (a test checks it).

use std::sync::OnceLock;
use std::time::Duration;
use vecl_ir::transform::pipeline::{Pipeline, PipelineOptions};
use vecl_jit::{JitOptions, PhaseReport, Prefetch, Rsqrt, Tiers};

/// One environment variable [`Config`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Its name.
    pub name: &'static str,
    /// What it does when unset.
    pub default: &'static str,
    /// What it does.
    pub meaning: &'static str,
}

/// Every variable [`Config::from_lookup`] reads, in the README's order.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: "VECL_THREADS",
        default: "one per core",
        meaning: "worker threads of the process-wide pool (the submitting thread counts as one)",
    },
    Variable {
        name: "VECL_CHECKED",
        default: "off",
        meaning: "`1`: every kernel is built in checked mode (every memory access bounds-checked)",
    },
    Variable {
        name: "VECL_SIMD_WIDTH",
        default: "chosen per kernel",
        meaning: "work-items per SIMD chunk of every kernel (a multiple of 4 up to 64)",
    },
    Variable {
        name: "VECL_KERNEL_TIMEOUT_MS",
        default: "no limit",
        meaning: "kernel commands running longer than this many milliseconds are stopped and fail",
    },
    Variable {
        name: "VECL_JIT_TIERS",
        default: "both",
        meaning: "`quick` or `optimised`: compile one JIT tier only",
    },
    Variable {
        name: "VECL_STREAM_MIN_ITEMS",
        default: "4194304",
        meaning: "launches of at least this many work-items use non-temporal stores for outputs never read",
    },
    Variable {
        name: "VECL_PREFETCH",
        default: "on",
        meaning: "`0`: streaming loads do not prefetch ahead",
    },
    Variable {
        name: "VECL_NO_SRA",
        default: "off",
        meaning: "`1`: private aggregates are not replaced by variables (`sra`, `sra-unrolled`)",
    },
    Variable {
        name: "VECL_DISABLE_PASSES",
        default: "none",
        meaning: "comma-separated names of middle passes not to run (`inline` cannot be: the JIT needs it)",
    },
    Variable {
        name: "VECL_VERIFY_IR",
        default: "off (on in debug builds)",
        meaning: "`1`: the IR is verified after every middle pass",
    },
    Variable {
        name: "VECL_JIT_PHASES",
        default: "off",
        meaning: "print each compilation's phase times to stderr; `passes` adds Cranelift's pass timings",
    },
    Variable {
        name: "VECL_JIT_DISASM",
        default: "off",
        meaning: "print each kernel's machine code to stderr and write its bytes to the temporary directory",
    },
    Variable {
        name: "VECL_WIDE",
        default: "on",
        meaning: "`0`: every kernel keeps Cranelift's code; by default kernels in the wide code generator's subset get AVX-512 code (16 lanes per zmm register) on CPUs with AVX-512F and BMI2, unchecked or with robust access",
    },
    Variable {
        name: "VECL_RSQRT",
        default: "by the CPU",
        meaning: "`divide` or `newton`: the wide code's `rsqrt` as a square root and a division (bit for bit Cranelift's) or as `vrsqrt14ps` and a Newton step (within 1.05 ULP); by default the Newton step except on CPUs with a fast 512-bit divider (AMD Zen 5 on)",
    },
    Variable {
        name: "VECL_LAZY_LOWERING",
        default: "on",
        meaning: "`0`: a kernel without barriers that gets the wide code is lowered to CLIF at build too, not only when its Cranelift code or its report is needed",
    },
    Variable {
        name: "VECL_WARM_UP",
        default: "on",
        meaning: "`0`: the process's first context does not start the pool and run the compiler once in the background",
    },
    Variable {
        name: "VECL_POOL_TRACE",
        default: "off",
        meaning: "`1`: the pool times each launch's ranges on each thread; `vecl run` prints the sums (wall time, time in ranges, helpers' start, the tail)",
    },
];

/// The configuration the environment sets: the defaults of every option
/// a user can change without code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// `VECL_THREADS`: threads of the pool; `None`: one per core.
    pub threads: Option<usize>,
    /// `VECL_CHECKED`: checked mode for every program.
    pub checked: bool,
    /// `VECL_SIMD_WIDTH`: the SIMD width of every kernel.
    pub simd_width: Option<u32>,
    /// `VECL_KERNEL_TIMEOUT_MS`: the time limit of kernel commands.
    pub kernel_timeout: Option<Duration>,
    /// `VECL_JIT_TIERS`.
    pub tiers: Tiers,
    /// `VECL_STREAM_MIN_ITEMS`.
    pub stream_min_items: u64,
    /// `VECL_PREFETCH`.
    pub prefetch: bool,
    /// `VECL_NO_SRA`, `VECL_DISABLE_PASSES`, `VECL_VERIFY_IR`.
    pub passes: PipelineOptions,
    /// `VECL_JIT_PHASES`.
    pub phases: PhaseReport,
    /// `VECL_JIT_DISASM`.
    pub disasm: bool,
    /// `VECL_WIDE` (on unless `0`): the wide AVX-512 code for the kernels
    /// it takes.
    pub wide: bool,
    /// `VECL_RSQRT` (`divide`, `newton`; by the CPU otherwise): how the
    /// wide code computes `rsqrt`.
    pub rsqrt: Rsqrt,
    /// `VECL_LAZY_LOWERING` (on unless `0`): a kernel without barriers
    /// that gets the wide code is lowered to CLIF only when needed.
    pub lazy_lowering: bool,
    /// `VECL_WARM_UP` (on unless `0`): the first context starts the pool
    /// and runs the compiler once in the background (`crate::warm_up`).
    pub warm_up: bool,
    /// `VECL_POOL_TRACE`: the pool times its launches' ranges
    /// (`vecl_runtime::pool_trace`).
    pub pool_trace: bool,
    /// What was wrong with the values read, one line each (printed once
    /// to stderr by [`Config::global`]).
    pub warnings: Vec<String>,
}

impl Default for Config {
    /// The configuration of an empty environment.
    fn default() -> Config {
        Config::from_lookup(|_| None)
    }
}

/// Whether a flag variable is on: set, not empty and not `0`.
/// An on/off variable: `1`, `on`, `true`, `yes` or `0`, `off`, `false`,
/// `no` (in any case); unset or empty gives `default`; anything else gives
/// `default` too, and a warning that says so (a typo must not turn a
/// switch the wrong way silently).
fn switch(name: &str, value: Option<String>, default: bool, warnings: &mut Vec<String>) -> bool {
    let Some(text) = value else {
        return default;
    };
    match text.trim().to_ascii_lowercase().as_str() {
        "" => default,
        "1" | "on" | "true" | "yes" => true,
        "0" | "off" | "false" | "no" => false,
        _ => {
            warnings.push(format!(
                "{name}={text:?} is not 0/1/on/off/true/false/yes/no; left {}",
                if default { "on" } else { "off" }
            ));
            default
        }
    }
}

impl Config {
    /// The configuration of the process's environment, read once; the
    /// first call also sets the pool's thread count and prints the
    /// warnings.
    pub fn global() -> &'static Config {
        static CONFIG: OnceLock<Config> = OnceLock::new();
        CONFIG.get_or_init(|| {
            let config = Config::from_env();
            for w in &config.warnings {
                eprintln!("vecl: {w}");
            }
            vecl_runtime::Pool::set_global_threads(config.threads.unwrap_or(0));
            vecl_runtime::pool_trace::set_enabled(config.pool_trace);
            config
        })
    }

    /// The configuration of the process's environment, read now.
    pub fn from_env() -> Config {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// The configuration `get` gives: `get(name)` is the value of variable
    /// `name`, if set. Reads exactly the variables of [`VARIABLES`].
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Config {
        let mut warnings = Vec::new();
        let read = |name: &str| {
            debug_assert!(VARIABLES.iter().any(|v| v.name == name), "{name}");
            get(name)
        };
        let threads = read("VECL_THREADS")
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0);
        let checked = switch("VECL_CHECKED", read("VECL_CHECKED"), false, &mut warnings);
        let simd_width = read("VECL_SIMD_WIDTH").and_then(|v| v.trim().parse().ok());
        let kernel_timeout = read("VECL_KERNEL_TIMEOUT_MS").and_then(|text| {
            match text.trim().parse::<u64>() {
                Ok(0) => None,
                Ok(ms) => Some(Duration::from_millis(ms)),
                Err(_) if text.trim().is_empty() => None,
                Err(_) => {
                    warnings.push(format!(
                        "VECL_KERNEL_TIMEOUT_MS={text:?} is not a number of milliseconds; no time limit"
                    ));
                    None
                }
            }
        });
        let jit = JitOptions::default();
        let tiers = read("VECL_JIT_TIERS")
            .and_then(|v| Tiers::from_name(&v))
            .unwrap_or(jit.tiers);
        let stream_min_items = read("VECL_STREAM_MIN_ITEMS")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(jit.stream_min_items);
        let prefetch = switch("VECL_PREFETCH", read("VECL_PREFETCH"), true, &mut warnings);
        let mut passes = PipelineOptions::default();
        if switch("VECL_NO_SRA", read("VECL_NO_SRA"), false, &mut warnings) {
            passes.disabled.push("sra".into());
            passes.disabled.push("sra-unrolled".into());
        }
        for name in read("VECL_DISABLE_PASSES")
            .iter()
            .flat_map(|v| v.split(','))
        {
            let name = name.trim();
            if name.is_empty() || passes.disabled.iter().any(|d| d == name) {
                continue;
            }
            let one = PipelineOptions {
                disabled: vec![name.to_string()],
                ..PipelineOptions::default()
            };
            match Pipeline::new(&one) {
                Ok(_) if name == "inline" => warnings.push(
                    "VECL_DISABLE_PASSES: `inline` stays on (the JIT compiles no calls)".into(),
                ),
                Ok(_) if name == "widen-half" => warnings.push(
                    "VECL_DISABLE_PASSES: `widen-half` stays on (the JIT computes no half arithmetic)"
                        .into(),
                ),
                Ok(_) => passes.disabled.push(name.to_string()),
                Err(e) => warnings.push(format!("VECL_DISABLE_PASSES: {e}")),
            }
        }
        if switch(
            "VECL_VERIFY_IR",
            read("VECL_VERIFY_IR"),
            false,
            &mut warnings,
        ) {
            passes.verify = true;
        }
        let phases = match read("VECL_JIT_PHASES") {
            None => PhaseReport::Off,
            Some(v) if v == "passes" => PhaseReport::CraneliftPasses,
            Some(_) => PhaseReport::Phases,
        };
        let disasm = read("VECL_JIT_DISASM").is_some();
        let wide = switch("VECL_WIDE", read("VECL_WIDE"), true, &mut warnings);
        let rsqrt = match read("VECL_RSQRT") {
            None => Rsqrt::ByCpu,
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "" | "cpu" => Rsqrt::ByCpu,
                "divide" => Rsqrt::Divide,
                "newton" => Rsqrt::Newton,
                _ => {
                    warnings.push(format!(
                        "VECL_RSQRT={v:?} is not `divide` or `newton`; chosen by the CPU"
                    ));
                    Rsqrt::ByCpu
                }
            },
        };
        let lazy_lowering = switch(
            "VECL_LAZY_LOWERING",
            read("VECL_LAZY_LOWERING"),
            true,
            &mut warnings,
        );
        let warm_up = switch("VECL_WARM_UP", read("VECL_WARM_UP"), true, &mut warnings);
        let pool_trace = switch(
            "VECL_POOL_TRACE",
            read("VECL_POOL_TRACE"),
            false,
            &mut warnings,
        );
        Config {
            threads,
            checked,
            simd_width,
            kernel_timeout,
            tiers,
            stream_min_items,
            prefetch,
            passes,
            phases,
            disasm,
            wide,
            rsqrt,
            lazy_lowering,
            warm_up,
            pool_trace,
            warnings,
        }
    }

    /// The JIT's options under this configuration (no dumps).
    pub fn jit_options(&self) -> JitOptions {
        JitOptions {
            simd_width: self.simd_width,
            checked: self.checked,
            local_checks: self.checked,
            dump_clif: false,
            tiers: self.tiers,
            stream_min_items: self.stream_min_items,
            prefetch: if self.prefetch {
                Prefetch::On
            } else {
                Prefetch::Off
            },
            passes: self.passes.clone(),
            phases: self.phases,
            disasm: self.disasm,
            wide: self.wide,
            lazy_lowering: self.lazy_lowering,
            rsqrt: self.rsqrt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Config {
        Config::from_lookup(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn rsqrt_is_chosen_by_the_cpu_unless_named_and_a_bad_name_warns() {
        assert_eq!(with(&[]).rsqrt, Rsqrt::ByCpu);
        let c = with(&[("VECL_RSQRT", "Divide")]);
        assert_eq!(
            (c.rsqrt, c.jit_options().rsqrt),
            (Rsqrt::Divide, Rsqrt::Divide)
        );
        assert_eq!(with(&[("VECL_RSQRT", " newton ")]).rsqrt, Rsqrt::Newton);
        let c = with(&[("VECL_RSQRT", "fast")]);
        assert_eq!(c.rsqrt, Rsqrt::ByCpu);
        assert!(
            c.warnings.iter().any(|w| w.contains("VECL_RSQRT=\"fast\"")),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn an_empty_environment_gives_the_jit_defaults() {
        let c = Config::default();
        assert_eq!(c.jit_options(), JitOptions::default());
        assert_eq!((c.threads, c.kernel_timeout), (None, None));
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn switches_take_words_and_warn_on_anything_else() {
        let c = with(&[("VECL_WIDE", "off"), ("VECL_CHECKED", "Yes")]);
        assert!(!c.wide && c.checked && c.warnings.is_empty());
        let c = with(&[("VECL_WIDE", "nope"), ("VECL_CHECKED", "2")]);
        assert!(c.wide && !c.checked, "bad values keep the defaults");
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c
            .warnings
            .iter()
            .any(|w| w.contains("VECL_WIDE=\"nope\"") && w.ends_with("left on")));
    }

    #[test]
    fn every_variable_reaches_its_option() {
        let c = with(&[
            ("VECL_THREADS", "3"),
            ("VECL_CHECKED", "1"),
            ("VECL_SIMD_WIDTH", " 8"),
            ("VECL_KERNEL_TIMEOUT_MS", "250"),
            ("VECL_JIT_TIERS", "quick"),
            ("VECL_STREAM_MIN_ITEMS", "0"),
            ("VECL_PREFETCH", "0"),
            ("VECL_NO_SRA", "1"),
            ("VECL_DISABLE_PASSES", "cse, unroll"),
            ("VECL_VERIFY_IR", "1"),
            ("VECL_JIT_PHASES", "passes"),
            ("VECL_JIT_DISASM", "1"),
            ("VECL_WIDE", "1"),
            ("VECL_WARM_UP", "0"),
            ("VECL_POOL_TRACE", "1"),
        ]);
        assert!(!c.warm_up);
        assert!(c.pool_trace && !Config::default().pool_trace);
        assert!(Config::default().warm_up);
        assert_eq!(c.threads, Some(3));
        assert_eq!(c.kernel_timeout, Some(Duration::from_millis(250)));
        let j = c.jit_options();
        assert_eq!(j.simd_width, Some(8));
        assert!(j.checked && j.disasm && j.passes.verify && j.wide);
        assert_eq!(j.passes.disabled, ["sra", "sra-unrolled", "cse", "unroll"]);
        assert_eq!(j.tiers, Tiers::QuickOnly);
        assert_eq!(j.stream_min_items, 0);
        assert_eq!(j.prefetch, Prefetch::Off);
        assert_eq!(j.phases, PhaseReport::CraneliftPasses);
    }

    #[test]
    fn off_values_and_bad_values() {
        let c = with(&[
            ("VECL_THREADS", "0"),
            ("VECL_CHECKED", "0"),
            ("VECL_NO_SRA", ""),
            ("VECL_DISABLE_PASSES", "inline,nope,widen-half"),
            ("VECL_KERNEL_TIMEOUT_MS", "soon"),
            ("VECL_JIT_TIERS", "optimized"),
            ("VECL_JIT_PHASES", "1"),
            ("VECL_WIDE", "0"),
        ]);
        assert_eq!(c.threads, None);
        assert!(!c.wide);
        assert!(!c.checked && c.passes.disabled.is_empty());
        assert_eq!(c.kernel_timeout, None);
        assert_eq!(c.tiers, Tiers::OptimisedOnly);
        assert_eq!(c.phases, PhaseReport::Phases);
        assert_eq!(c.warnings.len(), 4, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("VECL_KERNEL_TIMEOUT_MS"));
        assert!(c.warnings[1].contains("`inline` stays on"));
        assert!(c.warnings[2].contains("no pass named `nope`"));
        assert!(c.warnings[3].contains("`widen-half` stays on"));
    }

    #[test]
    fn every_listed_variable_is_read() {
        let read = std::cell::RefCell::new(Vec::new());
        Config::from_lookup(|name| {
            read.borrow_mut().push(name.to_string());
            None
        });
        let listed: Vec<String> = VARIABLES.iter().map(|v| v.name.to_string()).collect();
        assert_eq!(read.into_inner(), listed);
    }
}

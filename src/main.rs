//! The `vecl` command: device information, running one kernel, and the
//! benchmark suite against the other OpenCL platforms of the machine.

mod cli;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "vecl",
    version,
    about = "A CPU OpenCL device: OpenCL C vectorised across work-items, JIT-compiled with Cranelift"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the platform's and device's properties (like clinfo).
    Info,
    /// Build a kernel from a file and run it on generated inputs.
    Run {
        /// The OpenCL C file, or a SPIR-V module (`.spv`).
        file: PathBuf,
        /// The kernel to run.
        #[arg(long)]
        kernel: String,
        /// Global size: X[,Y[,Z]].
        #[arg(long, value_delimiter = ',', required = true)]
        global: Vec<u64>,
        /// Local size: X[,Y[,Z]] (default: the device chooses).
        #[arg(long, value_delimiter = ',')]
        local: Option<Vec<u64>>,
        /// Argument values: name=value (scalars; element counts for buffers and __local arguments), comma-separated.
        #[arg(long, value_delimiter = ',')]
        args: Vec<String>,
        /// Build options, e.g. "-cl-std=CL2.0 -DN=4".
        #[arg(long, default_value = "", allow_hyphen_values = true)]
        options: String,
        /// Timed runs.
        #[arg(long, default_value_t = 3)]
        reps: usize,
        /// Show how the kernel was vectorised (and its Cranelift IR).
        #[arg(long)]
        explain: bool,
        /// Print Kernel IR: bare, the program's as the front end made it;
        /// `--dump-ir=all`, the kernel's after each middle pass and as the
        /// region graph the lowering receives; `--dump-ir=PASS`, after that
        /// pass (inline, widen-half, sra, define-at-entry, unroll,
        /// sra-unrolled, cse, regions).
        #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "front", value_name = "WHEN")]
        dump_ir: Option<String>,
        /// Checked mode: robust access and the checks of __local memory
        /// and barriers (as VECL_CHECKED=1).
        #[arg(long)]
        checked: bool,
        /// No checks at all (the default is robust buffer access: every
        /// access bounds-checked).
        #[arg(long, conflicts_with = "checked")]
        unchecked: bool,
    },
    /// Run the benchmark suite on vecl and every other OpenCL platform.
    Bench {
        /// Small sizes and one repetition (for tests).
        #[arg(long)]
        quick: bool,
        /// Only benchmarks whose name contains this (or one of these,
        /// comma-separated: `vadd,saxpy,blackscholes`).
        #[arg(long)]
        only: Option<String>,
        /// Where report.json and report.svg go.
        #[arg(long, default_value = "bench-out")]
        out: PathBuf,
        /// How many times each platform's kernel rows are measured, the
        /// platforms in order and then in reverse, runs pooled (default:
        /// 2, or 1 with `--quick`).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16))]
        rounds: Option<u32>,
    },
    /// Measure one command-engine row of `bench` on one platform and print
    /// the result as JSON (run by `bench` in a child process, so that a
    /// driver's crash loses only its own entry).
    #[command(hide = true)]
    BenchCommands {
        /// The row's name.
        #[arg(long)]
        row: String,
        /// The platform's label, as `bench` shows it.
        #[arg(long)]
        platform: String,
        /// The `--quick` sizes.
        #[arg(long)]
        quick: bool,
    },
    /// Measure the kernel rows of `bench` on one platform, each result a
    /// JSON line, or list the platforms (run by `bench` in a child process
    /// per platform, so that no platform's threads run beside another's
    /// measurements and a driver's crash loses only its own rows).
    #[command(hide = true)]
    BenchKernels {
        /// List the other platforms instead.
        #[arg(long)]
        list: bool,
        /// The platform's label, as `bench` shows it (`vecl` for vecl's
        /// three safety levels).
        #[arg(long)]
        platform: Option<String>,
        /// The `--quick` sizes.
        #[arg(long)]
        quick: bool,
        /// As `bench --only`.
        #[arg(long)]
        only: Option<String>,
    },
    /// Build every kernel of every .cl file of a directory: vectorised or
    /// why not, access counts, compile time, and totals.
    ExplainCorpus {
        /// The directory of OpenCL C files.
        dir: PathBuf,
        /// Work-items per SIMD chunk (default: the JIT chooses).
        #[arg(long)]
        width: Option<u32>,
        /// Compile each kernel this many times and report the fastest.
        #[arg(long, default_value_t = 3)]
        reps: usize,
    },
    /// Differential fuzzing: random UB-free kernels on the interpreter, the
    /// JIT at every width and tier, the Rust API (and PoCL); findings are
    /// saved and reduced.
    Fuzz {
        /// Stop after this many seconds.
        #[arg(long)]
        seconds: Option<u64>,
        /// Check this many seeds (default 100 without --seconds).
        #[arg(long)]
        count: Option<u64>,
        /// The first seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Where findings are saved.
        #[arg(long, default_value = "fuzz-out")]
        out: PathBuf,
        /// Also compare with PoCL through the OpenCL API.
        #[arg(long)]
        pocl: bool,
        /// Generate `goto` (forward and backward jumps).
        #[arg(long)]
        goto: bool,
        /// Seconds one kernel's check may take before it is a finding.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// Seconds spent reducing each finding (0: no reduction).
        #[arg(long, default_value_t = 300)]
        reduce_seconds: u64,
        /// Check this OpenCL C file (kernel `fuzz`, the generator's
        /// interface) with the shapes of --seed instead of generating.
        #[arg(long)]
        replay: Option<PathBuf>,
        /// Print the kernel of --seed (and its launch shapes) instead of
        /// checking it.
        #[arg(long)]
        emit: bool,
        /// Smaller kernels, two JIT variants each (turning with the seed),
        /// no run through the Rust API: many seeds in little time.
        #[arg(long)]
        quick: bool,
        /// Generate `float` kernels in the wide AVX-512 code's shape
        /// (special inputs, math, loops with exits, `__local` tiles in
        /// 2-D groups) instead of integer kernels.
        #[arg(long)]
        wide: bool,
    },
    /// Check the kernels `fuzz` sends on standard input (run by `fuzz` in a
    /// child process, so that a crash of generated code is a finding).
    #[command(hide = true)]
    FuzzWorker {
        /// Also compare with PoCL.
        #[arg(long)]
        pocl: bool,
        /// No run through the Rust API.
        #[arg(long)]
        no_api: bool,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Command::Info => Ok(cli::info::describe()),
        Command::Run {
            file,
            kernel,
            global,
            local,
            args,
            options,
            reps,
            explain,
            dump_ir,
            checked,
            unchecked,
        } => {
            let args = args
                .iter()
                .map(|a| match a.split_once('=') {
                    Some((n, v)) => (n.trim().to_string(), v.trim().to_string()),
                    None => (String::new(), a.clone()),
                })
                .collect();
            let request = cli::run::RunRequest {
                file,
                kernel,
                global,
                local,
                args,
                options,
                reps,
                explain,
                dump_ir,
                safety: if checked {
                    vecl::Safety::Checked
                } else if unchecked {
                    vecl::Safety::Unchecked
                } else {
                    vecl::Safety::Robust
                },
            };
            cli::run::run(&request)
        }
        Command::Bench {
            quick,
            only,
            out,
            rounds,
        } => {
            let rounds = rounds.map(|r| r as usize);
            cli::bench::run(quick, only.as_deref(), rounds, &out).map(|report| {
                let mut text = report.table();
                for note in &report.notes {
                    text.push_str(&format!("note: {note}\n"));
                }
                text.push_str(&format!(
                    "report: {}/report.json, {}/report.svg\n",
                    out.display(),
                    out.display()
                ));
                text
            })
        }
        Command::BenchCommands {
            row,
            platform,
            quick,
        } => cli::bench::engine_child(&row, &platform, quick),
        Command::BenchKernels {
            list,
            platform,
            quick,
            only,
        } => cli::bench::kernels_child(list, platform.as_deref(), quick, only.as_deref()),
        Command::ExplainCorpus { dir, width, reps } => cli::explain_corpus::run(&dir, width, reps),
        Command::Fuzz {
            seconds,
            count,
            seed,
            out,
            pocl,
            goto,
            timeout,
            reduce_seconds,
            replay,
            emit,
            quick,
            wide,
        } => cli::fuzz::run(&cli::fuzz::FuzzRequest {
            seconds,
            count,
            seed,
            out,
            pocl,
            goto,
            timeout,
            reduce_seconds,
            replay,
            emit,
            quick,
            wide,
        }),
        Command::FuzzWorker { pocl, no_api } => cli::fuzz::worker(pocl, !no_api),
    };
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("vecl: {message}");
            ExitCode::FAILURE
        }
    }
}

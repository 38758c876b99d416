//! Runs workloads on vecl through its Rust API (no C loader in between),
//! once per safety mode: `vecl` is the unchecked code (what the C driver
//! runs by default), `vecl robust` the safe API's default, `vecl checked`
//! checked mode.

use super::workload::{ArgSpec, Backend, Measured, Workload};
use std::time::Instant;
use vecl::{Context, Mem, MemFlags, NdRange, Safety};

/// The vecl platform in one safety mode as a benchmark backend.
pub struct VeclBackend {
    ctx: Context,
    safety: Safety,
}

impl VeclBackend {
    /// A backend on a fresh context whose kernels check what `safety` says.
    pub fn new(safety: Safety) -> Result<VeclBackend, String> {
        Ok(VeclBackend {
            ctx: Context::new().map_err(|e| e.to_string())?,
            safety,
        })
    }

    /// The label of the unchecked backend (ratios are taken against it).
    pub const LABEL: &'static str = "vecl";
}

fn range_of(work: &Workload) -> NdRange {
    let mut range = NdRange::linear(1);
    range.work_dim = work.global.len() as u32;
    for (d, &g) in work.global.iter().enumerate() {
        range.global[d] = g;
    }
    if let Some(local) = &work.local {
        let mut l = [1u64; 3];
        l[..local.len()].copy_from_slice(local);
        range.local = Some(l);
    }
    range
}

impl Backend for VeclBackend {
    fn label(&self) -> String {
        match self.safety {
            Safety::Unchecked => VeclBackend::LABEL.into(),
            Safety::Robust => format!("{} robust", VeclBackend::LABEL),
            Safety::Checked => format!("{} checked", VeclBackend::LABEL),
        }
    }

    fn run(&mut self, work: &Workload, warm_up: bool) -> Result<Measured, String> {
        let err = |e: vecl::Error| e.to_string();
        let start = Instant::now();
        let builder = self.ctx.program(&work.source);
        let builder = match self.safety {
            // SAFETY: the suite's kernels keep every access inside their
            // buffers (each output is verified, and the robust row runs the
            // same launches with every access checked).
            Safety::Unchecked => unsafe { builder.unchecked() },
            Safety::Robust => builder,
            Safety::Checked => builder.checked(true),
        };
        let program = builder.build().map_err(err)?;
        let kernel = program.kernel(work.kernel).map_err(err)?;
        let queue = self.ctx.queue().map_err(err)?;
        let mut resets: Vec<(Mem, &[u8])> = Vec::new();
        let mut outputs: Vec<Mem> = Vec::new();
        for (i, arg) in work.args.iter().enumerate() {
            let index = i as u32;
            match arg {
                ArgSpec::In(bytes) => {
                    let mem = Mem::from_bytes(MemFlags::READ_ONLY, bytes).map_err(err)?;
                    kernel.set_arg_mem(index, Some(&mem)).map_err(err)?;
                }
                ArgSpec::InOut(bytes) => {
                    let mem = Mem::from_bytes(MemFlags::READ_WRITE, bytes).map_err(err)?;
                    kernel.set_arg_mem(index, Some(&mem)).map_err(err)?;
                    resets.push((mem.clone(), bytes));
                    outputs.push(mem);
                }
                ArgSpec::Out(size) => {
                    let mem = Mem::new(MemFlags::READ_WRITE, *size as u64).map_err(err)?;
                    kernel.set_arg_mem(index, Some(&mem)).map_err(err)?;
                    outputs.push(mem);
                }
                ArgSpec::Scalar(bytes) => kernel.set_arg_bytes(index, bytes).map_err(err)?,
                ArgSpec::Local(size) => kernel.set_arg_local(index, *size).map_err(err)?,
            }
        }
        let range = range_of(work);
        let read_all = |outputs: &[Mem]| -> Result<Vec<Vec<u8>>, String> {
            outputs
                .iter()
                .map(|mem| {
                    let mut out = vec![0u8; mem.size() as usize];
                    // SAFETY: a blocking read into a vector of the buffer's size.
                    unsafe {
                        queue
                            .raw()
                            .enqueue_read(mem, 0, mem.size(), out.as_mut_ptr(), true, &[])
                    }
                    .map_err(err)?;
                    Ok(out)
                })
                .collect()
        };
        let run_once = |resets: &[(Mem, &[u8])]| -> Result<u64, String> {
            for (mem, bytes) in resets {
                // SAFETY: blocking write from a slice of the buffer's size.
                unsafe {
                    queue
                        .raw()
                        .enqueue_write(mem, 0, mem.size(), bytes.as_ptr(), true, &[])
                }
                .map_err(err)?;
            }
            let t0 = Instant::now();
            let event = kernel.enqueue(queue.raw(), &range, &[]).map_err(err)?;
            event
                .wait()
                .map_err(|e| event.failure().unwrap_or(e).to_string())?;
            Ok(t0.elapsed().as_nanos() as u64)
        };
        let first_began = Instant::now();
        let first = run_once(&resets)?;
        let mut last_outputs = read_all(&outputs)?;
        let first_result_ns = start.elapsed().as_nanos() as u64;
        let mut runs_ns = Vec::new();
        // Timed runs measure the optimised code (the first result above may
        // come from the quick tier).
        program.wait_for_final_code();
        if warm_up {
            super::workload::warm_up(first_began, || run_once(&resets))?;
            runs_ns = super::workload::timed_runs(work.reps, || run_once(&resets))?;
            last_outputs = read_all(&outputs)?;
        } else {
            runs_ns.push(first);
        }
        Ok(Measured {
            runs_ns,
            first_result_ns,
            outputs: last_outputs,
        })
    }
}

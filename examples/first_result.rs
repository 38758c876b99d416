//! Times the way from a never-seen source to its first result read back,
//! phase by phase, the way `vecl bench`'s "first-result, new source" row
//! makes and runs it (vadd over 2^16 floats, a unique unused kernel
//! appended): build, kernel creation, buffers and arguments, first launch,
//! read. Each program after the first in the process runs with the
//! process already warm (the pool's threads started, the JIT's tables
//! made); the first is what the bench's first column measures. The
//! context is made, and `delay_ms` waited, before the first source is
//! made (the bench makes its contexts, then its inputs).
//!
//! `cargo run --release --example first_result -- [programs] [unchecked|robust|checked] [delay_ms]`

use std::time::Instant;
use vecl::{Context, Mem, MemFlags, NdRange};

const VADD: &str =
    "kernel void vadd(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
";

fn main() -> vecl::Result<()> {
    let mut args = std::env::args().skip(1);
    let programs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mode = args.next().unwrap_or_else(|| "unchecked".into());
    let n = 1usize << 16;
    let a: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let b: Vec<u8> = (0..n)
        .flat_map(|i| (0.5 * i as f32).to_le_bytes())
        .collect();
    let process = Instant::now();
    let ctx = Context::new()?;
    let context_ms = process.elapsed().as_secs_f64() * 1e3;
    println!("context {context_ms:.3} ms");
    let delay: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0.0);
    std::thread::sleep(std::time::Duration::from_secs_f64(delay / 1e3));
    for p in 0..programs {
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let source =
            format!("{VADD}\nkernel void unused_{nonce:x}(global int *p) {{ p[0] = {p}; }}\n");
        let mut marks = Vec::new();
        let started = Instant::now();
        let faults0 = minor_faults();
        let cpu0 = (
            cpu_ms(libc::CLOCK_THREAD_CPUTIME_ID),
            cpu_ms(libc::CLOCK_PROCESS_CPUTIME_ID),
        );
        let mut mark = |name: &'static str| {
            let cpu = (
                cpu_ms(libc::CLOCK_THREAD_CPUTIME_ID),
                cpu_ms(libc::CLOCK_PROCESS_CPUTIME_ID),
            );
            marks.push((name, started.elapsed(), minor_faults(), cpu))
        };
        let builder = ctx.program(&source);
        let builder = match mode.as_str() {
            // SAFETY: vadd over buffers of its launch's size.
            "unchecked" => unsafe { builder.unchecked() },
            "checked" => builder.checked(true),
            _ => builder,
        };
        let program = builder.build()?;
        mark("build");
        let kernel = program.kernel("vadd")?;
        mark("kernel");
        let queue = ctx.queue()?;
        let ma = Mem::from_bytes(MemFlags::READ_ONLY, &a)?;
        let mb = Mem::from_bytes(MemFlags::READ_ONLY, &b)?;
        let mc = Mem::new(MemFlags::READ_WRITE, 4 * n as u64)?;
        kernel.set_arg_mem(0, Some(&ma))?;
        kernel.set_arg_mem(1, Some(&mb))?;
        kernel.set_arg_mem(2, Some(&mc))?;
        mark("queue, buffers, args");
        let event = kernel.enqueue(queue.raw(), &NdRange::linear(n as u64), &[])?;
        mark("enqueue");
        event.wait()?;
        mark("launch done");
        let mut out = vec![0u8; 4 * n];
        // SAFETY: a blocking read into a vector of the buffer's size.
        unsafe {
            queue
                .raw()
                .enqueue_read(&mc, 0, mc.size(), out.as_mut_ptr(), true, &[])?;
        }
        mark("read");
        let last = f32::from_le_bytes([
            out[4 * n - 4],
            out[4 * n - 3],
            out[4 * n - 2],
            out[4 * n - 1],
        ]);
        assert_eq!(last, 1.5 * (n - 1) as f32);
        let mut line = format!("program {p} ({mode}):");
        let (mut before, mut faults, mut cpu) = (std::time::Duration::ZERO, faults0, cpu0);
        for (name, at, f, _) in &marks {
            line += &format!(
                " {name} {:.3} ({} faults)",
                (*at - before).as_secs_f64() * 1e3,
                f - faults
            );
            (before, faults) = (*at, *f);
        }
        if let Some((.., c)) = marks.last() {
            cpu = (c.0 - cpu.0, c.1 - cpu.1);
        }
        line += &format!(
            " = {:.3} ms; CPU: this thread {:.3} ms, the process {:.3} ms",
            before.as_secs_f64() * 1e3,
            cpu.0,
            cpu.1
        );
        println!("{line}");
        program.wait_for_final_code();
    }
    Ok(())
}

/// CPU time of `clock` (the thread's or the process's) in milliseconds.
fn cpu_ms(clock: libc::clockid_t) -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write.
    unsafe { libc::clock_gettime(clock, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

/// The process's minor page faults so far (`/proc/self/stat`, field 10).
fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1;
            after.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

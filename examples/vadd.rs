//! Adds two vectors on the vecl device: build a program from source, make
//! buffers, set arguments, launch, read back and check.
//!
//! `cargo run --release --example vadd`

use vecl::{Context, Device, Result};

const SOURCE: &str = r#"
kernel void vadd(global const float* a, global const float* b, global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
"#;

/// Public so that the tests can run the example too.
pub fn main() -> Result<()> {
    let n = 1 << 20;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (n - i) as f32 * 0.5).collect();

    let ctx = Context::new()?;
    println!("device: {}", Device::get().name());
    let program = ctx.program(SOURCE).build()?;
    let kernel = program.kernel("vadd")?;

    let buf_a = ctx.buffer_from(&a)?;
    let buf_b = ctx.buffer_from(&b)?;
    let buf_c = ctx.buffer::<f32>(n)?;
    kernel.set_arg_buffer(0, &buf_a)?;
    kernel.set_arg_buffer(1, &buf_b)?;
    kernel.set_arg_buffer(2, &buf_c)?;

    let queue = ctx.queue_builder().profiling().build()?;
    let event = queue.launch(&kernel).global(&[n]).run()?;
    let c = queue.read_vec(&buf_c, &[])?;

    let wrong = (0..n).filter(|&i| c[i] != a[i] + b[i]).count();
    let start = event.profiling(vecl::ProfilingInfo::Start)?;
    let end = event.profiling(vecl::ProfilingInfo::End)?;
    println!(
        "{n} additions in {:.3} ms, {wrong} wrong",
        (end - start) as f64 / 1e6
    );
    if wrong != 0 {
        return Err(vecl::Error::OutOfResources(format!(
            "{wrong} wrong results"
        )));
    }
    Ok(())
}

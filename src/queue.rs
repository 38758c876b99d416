//! [`Queue`]: the typed command API over a runtime queue.
//!
//! Blocking transfers take slices; non-blocking ones take owned vectors
//! whose storage is released when the command completes, so no borrow can
//! outlive its command. Kernel launches are built with
//! [`Queue::launch`]. [`Queue::raw`] exposes the byte-level commands
//! (rectangles, maps, raw pointers) that the C API uses.

use crate::buffer::Buffer;
use crate::context::Context;
use crate::kernel::Kernel;
use crate::pod::{as_bytes, value_bytes, Pod};
use vecl_runtime::event::COMPLETE;
use vecl_runtime::{Error, Event, NdRange, Queue as RawQueue, QueueProperties, Result};

/// A command queue on the vecl device.
#[derive(Clone, Debug)]
pub struct Queue {
    raw: RawQueue,
    ctx: Context,
}

/// Chooses a queue's properties: `Queue::builder(&ctx).profiling().build()`.
#[derive(Clone, Debug)]
pub struct QueueBuilder {
    ctx: Context,
    properties: QueueProperties,
}

impl QueueBuilder {
    /// Commands may run in any order their events allow.
    pub fn out_of_order(mut self) -> Self {
        self.properties.out_of_order = true;
        self
    }

    /// Events record profiling timestamps.
    pub fn profiling(mut self) -> Self {
        self.properties.profiling = true;
        self
    }

    /// Kernel commands that run longer than `limit` are stopped and fail
    /// with an error saying so (the queue goes on). Without this, the
    /// limit is `VECL_KERNEL_TIMEOUT_MS`'s, if set.
    pub fn kernel_timeout(mut self, limit: std::time::Duration) -> Self {
        self.properties.kernel_timeout = Some(limit);
        self
    }

    /// Creates the queue in the builder's context.
    pub fn build(mut self) -> Result<Queue> {
        if self.properties.kernel_timeout.is_none() {
            self.properties.kernel_timeout = crate::Config::global().kernel_timeout;
        }
        Ok(Queue {
            raw: RawQueue::new(self.properties)?,
            ctx: self.ctx,
        })
    }
}

fn elem_range<T: Pod>(buffer: &Buffer<T>, offset: usize, len: usize) -> Result<(u64, u64)> {
    let size = std::mem::size_of::<T>();
    let end = offset.checked_add(len).filter(|&e| e <= buffer.len());
    end.ok_or_else(|| {
        Error::InvalidValue(format!(
            "elements {offset}..{offset}+{len} exceed the buffer's {}",
            buffer.len()
        ))
    })?;
    Ok(((offset * size) as u64, (len * size) as u64))
}

impl Queue {
    /// Starts a queue in `ctx` with chosen properties.
    pub fn builder(ctx: &Context) -> QueueBuilder {
        QueueBuilder {
            ctx: ctx.clone(),
            properties: QueueProperties::default(),
        }
    }

    /// The context the queue was made in (`CL_QUEUE_CONTEXT`).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The byte-level queue.
    pub fn raw(&self) -> &RawQueue {
        &self.raw
    }

    /// Writes `data` at element `offset` and waits for it.
    pub fn write<T: Pod>(&self, buffer: &Buffer<T>, offset: usize, data: &[T]) -> Result<Event> {
        let (at, size) = elem_range(buffer, offset, data.len())?;
        // SAFETY: blocking: `data` outlives the command.
        unsafe {
            self.raw
                .enqueue_write(buffer.raw(), at, size, as_bytes(data).as_ptr(), true, &[])
        }
    }

    /// Writes `data` at element `offset` once `wait` completes, without
    /// blocking; `data` is freed when the command has run.
    pub fn write_async<T: Pod>(
        &self,
        buffer: &Buffer<T>,
        offset: usize,
        data: Vec<T>,
        wait: &[Event],
    ) -> Result<Event> {
        let (at, size) = elem_range(buffer, offset, data.len())?;
        let ptr = as_bytes(&data).as_ptr();
        // SAFETY: the vector is moved into the event's completion callback
        // below, so its heap storage lives until the command has run.
        let event = unsafe {
            self.raw
                .enqueue_write(buffer.raw(), at, size, ptr, false, wait)?
        };
        event.on_status(COMPLETE, Box::new(move |_| drop(data)))?;
        Ok(event)
    }

    /// Reads elements from `offset` into `out` and waits for it.
    pub fn read<T: Pod>(&self, buffer: &Buffer<T>, offset: usize, out: &mut [T]) -> Result<Event> {
        let (at, size) = elem_range(buffer, offset, out.len())?;
        // SAFETY: blocking: `out` outlives the command; any bytes are valid `T`.
        unsafe {
            self.raw
                .enqueue_read(buffer.raw(), at, size, out.as_mut_ptr().cast(), true, &[])
        }
    }

    /// Reads the whole buffer into a new vector (after `wait`).
    pub fn read_vec<T: Pod + Default>(&self, buffer: &Buffer<T>, wait: &[Event]) -> Result<Vec<T>> {
        let mut out = vec![T::default(); buffer.len()];
        // SAFETY: blocking: `out` outlives the command.
        unsafe {
            self.raw.enqueue_read(
                buffer.raw(),
                0,
                buffer.byte_size(),
                out.as_mut_ptr().cast(),
                true,
                wait,
            )?;
        }
        Ok(out)
    }

    /// Fills `len` elements from `offset` with `value`.
    pub fn fill<T: Pod>(
        &self,
        buffer: &Buffer<T>,
        value: T,
        offset: usize,
        len: usize,
        wait: &[Event],
    ) -> Result<Event> {
        let (at, size) = elem_range(buffer, offset, len)?;
        self.raw
            .enqueue_fill(buffer.raw(), value_bytes(&value), at, size, wait)
    }

    /// Copies all of `src` into `dst` (same length).
    pub fn copy<T: Pod>(&self, src: &Buffer<T>, dst: &Buffer<T>, wait: &[Event]) -> Result<Event> {
        if src.len() != dst.len() {
            return Err(Error::InvalidValue(format!(
                "copy of {} elements into {}",
                src.len(),
                dst.len()
            )));
        }
        self.raw
            .enqueue_copy(src.raw(), dst.raw(), 0, 0, src.byte_size(), wait)
    }

    /// Starts a kernel launch.
    pub fn launch<'a>(&'a self, kernel: &'a Kernel) -> KernelLaunch<'a> {
        KernelLaunch {
            queue: self,
            kernel,
            range: NdRange::linear(1),
            wait: Vec::new(),
            dims: [None; 3],
        }
    }

    /// A marker: completes when `wait` (or everything before it) has.
    pub fn marker(&self, wait: &[Event]) -> Result<Event> {
        self.raw.enqueue_marker(wait)
    }

    /// A barrier: later commands wait for it.
    pub fn barrier(&self, wait: &[Event]) -> Result<Event> {
        self.raw.enqueue_barrier(wait)
    }

    /// Runs a host function in the queue's order.
    pub fn host_fn(
        &self,
        wait: &[Event],
        f: impl FnOnce() -> Result<()> + Send + 'static,
    ) -> Result<Event> {
        self.raw.enqueue_host_fn(wait, f)
    }

    /// `clFlush`.
    pub fn flush(&self) -> Result<()> {
        self.raw.flush()
    }

    /// `clFinish`: waits for every command enqueued so far; the failure of
    /// the first of them whose own work failed since the previous `finish`
    /// (a kernel stopped by checked mode), if any.
    pub fn finish(&self) -> Result<()> {
        self.raw.finish()
    }
}

/// A kernel launch being described: range, offsets, wait list.
#[derive(Debug)]
pub struct KernelLaunch<'a> {
    queue: &'a Queue,
    kernel: &'a Kernel,
    range: NdRange,
    wait: Vec<Event>,
    /// How many sizes `global`, `local` and `offset` were given (checked
    /// at `enqueue`: a launch needs a global size of 1 to 3 dimensions,
    /// and a local size or offset of as many).
    dims: [Option<usize>; 3],
}

/// Sizes as the runtime takes them (`usize` is at most 64 bits on every
/// target vecl runs on).
fn dims3(values: &[usize], fill: u64) -> [u64; 3] {
    let mut out = [fill; 3];
    for (o, v) in out.iter_mut().zip(values) {
        *o = *v as u64;
    }
    out
}

impl KernelLaunch<'_> {
    /// The global size, in work-items per dimension (`size_t` in OpenCL,
    /// `usize` here like every size of the API: `.global(&[data.len()])`);
    /// its length (1 to 3) is the work dimension.
    pub fn global(mut self, global: &[usize]) -> Self {
        self.dims[0] = Some(global.len());
        self.range.work_dim = global.len().min(3) as u32;
        self.range.global = dims3(global, 1);
        self
    }

    /// The local (work-group) size, as many dimensions as the global
    /// size; by default the device chooses.
    pub fn local(mut self, local: &[usize]) -> Self {
        self.dims[1] = Some(local.len());
        self.range.local = Some(dims3(local, 1));
        self
    }

    /// The global offset, as many dimensions as the global size.
    pub fn offset(mut self, offset: &[usize]) -> Self {
        self.dims[2] = Some(offset.len());
        self.range.offset = dims3(offset, 0);
        self
    }

    /// Events the launch waits for.
    pub fn wait_for(mut self, events: &[Event]) -> Self {
        self.wait.extend_from_slice(events);
        self
    }

    /// Enqueues the launch.
    pub fn enqueue(self) -> Result<Event> {
        let [global, local, offset] = self.dims;
        let dims = match global {
            None => {
                return Err(Error::InvalidGlobalWorkSize(
                    "a launch needs a global size: .global(&[n]) (up to 3 dimensions)".into(),
                ))
            }
            Some(n @ 1..=3) => n,
            Some(n) => return Err(Error::InvalidWorkDimension(n as u32)),
        };
        if let Some(n) = local.filter(|&n| n != dims) {
            return Err(Error::InvalidWorkGroupSize(format!(
                "the local size has {n} dimensions, the global size {dims}"
            )));
        }
        if let Some(n) = offset.filter(|&n| n != dims) {
            return Err(Error::InvalidGlobalOffset(format!(
                "the offset has {n} dimensions, the global size {dims}"
            )));
        }
        self.kernel
            .enqueue(self.queue.raw(), &self.range, &self.wait)
    }

    /// Enqueues the launch and waits for it; a kernel failure is the error.
    pub fn run(self) -> Result<Event> {
        let event = self.enqueue()?;
        match event.wait() {
            Ok(()) => Ok(event),
            Err(e) => Err(event.failure().unwrap_or(e)),
        }
    }
}

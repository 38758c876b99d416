//! [`Context`]: the scope that buffers, programs and queues are created in.
//!
//! vecl has one device, so a context is light: it names the device and is
//! the entry point of the builder-style API (`ctx.buffer(..)`,
//! `ctx.program(..)`, `ctx.queue()`); the builders carry it
//! (`Queue::builder(&ctx)…build()`, `Buffer::builder(&ctx, len)…build()`).

use crate::buffer::Buffer;
use crate::device::Device;
use crate::pod::Pod;
use crate::program::ProgramBuilder;
use crate::queue::{Queue, QueueBuilder};
use vecl_runtime::{Mem, MemFlags, Result};

/// An OpenCL context on the vecl device.
#[derive(Clone, Debug, Default)]
pub struct Context {
    device: Device,
}

impl Context {
    /// A context on the vecl device. The process's first starts the
    /// pool and readies the compiler in the background
    /// ([`crate::warm_up`]).
    pub fn new() -> Result<Context> {
        crate::warm_up::start();
        Ok(Context {
            device: Device::get(),
        })
    }

    /// The context's device.
    pub fn device(&self) -> Device {
        self.device
    }

    /// A zero-initialised read-write buffer of `len` elements.
    pub fn buffer<T: Pod>(&self, len: usize) -> Result<Buffer<T>> {
        Buffer::new(self, len)
    }

    /// A read-write buffer holding a copy of `data`.
    pub fn buffer_from<T: Pod>(&self, data: &[T]) -> Result<Buffer<T>> {
        Buffer::from_slice(self, data)
    }

    /// `clCreateBuffer` at the byte level: `size` bytes with `flags`.
    ///
    /// # Safety
    /// See [`Mem::create`]: with `COPY_HOST_PTR` `host_ptr` must be readable
    /// for `size` bytes during the call; with `USE_HOST_PTR` readable and
    /// writable for as long as the buffer lives.
    pub unsafe fn create_raw_buffer(
        &self,
        flags: MemFlags,
        size: u64,
        host_ptr: *mut u8,
    ) -> Result<Mem> {
        // SAFETY: forwarded from the caller.
        unsafe { Mem::create(flags, size, host_ptr) }
    }

    /// Starts a program from OpenCL C source.
    pub fn program(&self, source: &str) -> ProgramBuilder {
        ProgramBuilder::new(self, source)
    }

    /// Starts a program from a SPIR-V module (`clCreateProgramWithIL`),
    /// its words in host byte order.
    pub fn program_il(&self, words: &[u32]) -> ProgramBuilder {
        ProgramBuilder::new_il(self, words)
    }

    /// An in-order queue without profiling.
    pub fn queue(&self) -> Result<Queue> {
        Queue::builder(self).build()
    }

    /// Starts a queue with chosen properties ([`Queue::builder`]):
    /// `ctx.queue_builder().profiling().build()`.
    pub fn queue_builder(&self) -> QueueBuilder {
        Queue::builder(self)
    }
}

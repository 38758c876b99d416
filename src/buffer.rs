//! [`Buffer<T>`]: a typed view of a device buffer.
//!
//! The bytes live in a runtime [`Mem`]; the element type only fixes sizes
//! and offsets. The byte-level layer (the C API) uses `Mem` directly.

use crate::context::Context;
use crate::pod::{as_bytes, Pod};
use std::marker::PhantomData;
use vecl_runtime::{Error, Mem, MemFlags, Result};

/// A buffer of `len` elements of `T`.
#[derive(Clone, Debug)]
pub struct Buffer<T: Pod> {
    mem: Mem,
    len: usize,
    ctx: Context,
    _elem: PhantomData<T>,
}

/// Chooses the flags of a new buffer:
/// `Buffer::<f32>::builder(&ctx, n).read_only().build()`.
#[derive(Clone, Debug)]
pub struct BufferBuilder<T: Pod> {
    ctx: Context,
    len: usize,
    flags: MemFlags,
    _elem: PhantomData<T>,
}

fn byte_len<T: Pod>(len: usize) -> Result<u64> {
    len.checked_mul(std::mem::size_of::<T>())
        .map(|n| n as u64)
        .ok_or_else(|| Error::InvalidBufferSize(format!("{len} elements overflow")))
}

impl<T: Pod> BufferBuilder<T> {
    /// Kernels only read the buffer (`CL_MEM_READ_ONLY`).
    pub fn read_only(mut self) -> Self {
        self.flags = self.flags | MemFlags::READ_ONLY;
        self
    }

    /// Kernels only write the buffer (`CL_MEM_WRITE_ONLY`).
    pub fn write_only(mut self) -> Self {
        self.flags = self.flags | MemFlags::WRITE_ONLY;
        self
    }

    /// The host only reads it (`CL_MEM_HOST_READ_ONLY`).
    pub fn host_read_only(mut self) -> Self {
        self.flags = self.flags | MemFlags::HOST_READ_ONLY;
        self
    }

    /// The host only writes it (`CL_MEM_HOST_WRITE_ONLY`).
    pub fn host_write_only(mut self) -> Self {
        self.flags = self.flags | MemFlags::HOST_WRITE_ONLY;
        self
    }

    /// The host does not access it (`CL_MEM_HOST_NO_ACCESS`).
    pub fn host_no_access(mut self) -> Self {
        self.flags = self.flags | MemFlags::HOST_NO_ACCESS;
        self
    }

    /// Creates the zero-initialised buffer in the builder's context.
    pub fn build(self) -> Result<Buffer<T>> {
        let mem = Mem::new(self.flags, byte_len::<T>(self.len)?)?;
        Ok(Buffer {
            mem,
            len: self.len,
            ctx: self.ctx,
            _elem: PhantomData,
        })
    }

    /// Creates the buffer holding a copy of `data` (its length wins).
    pub fn build_from(self, data: &[T]) -> Result<Buffer<T>> {
        let mem = Mem::from_bytes(self.flags, as_bytes(data))?;
        Ok(Buffer {
            mem,
            len: data.len(),
            ctx: self.ctx,
            _elem: PhantomData,
        })
    }
}

impl<T: Pod> Buffer<T> {
    /// A zero-initialised read-write buffer of `len` elements.
    pub fn new(ctx: &Context, len: usize) -> Result<Buffer<T>> {
        Buffer::builder(ctx, len).build()
    }

    /// A read-write buffer holding a copy of `data`.
    pub fn from_slice(ctx: &Context, data: &[T]) -> Result<Buffer<T>> {
        Buffer::builder(ctx, data.len()).build_from(data)
    }

    /// Starts a buffer of `len` elements in `ctx` with chosen flags.
    pub fn builder(ctx: &Context, len: usize) -> BufferBuilder<T> {
        BufferBuilder {
            ctx: ctx.clone(),
            len,
            flags: MemFlags(0),
            _elem: PhantomData,
        }
    }

    /// A typed view of an existing memory object (its size must be a
    /// multiple of the element size), in `ctx`.
    pub fn from_mem(ctx: &Context, mem: Mem) -> Result<Buffer<T>> {
        let elem = std::mem::size_of::<T>() as u64;
        if elem == 0 || !mem.size().is_multiple_of(elem) {
            return Err(Error::InvalidBufferSize(format!(
                "{} bytes is not a whole number of elements",
                mem.size()
            )));
        }
        Ok(Buffer {
            len: (mem.size() / elem) as usize,
            mem,
            ctx: ctx.clone(),
            _elem: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements (never true: buffers are non-empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn byte_size(&self) -> u64 {
        self.mem.size()
    }

    /// The context the buffer was made in (`CL_MEM_CONTEXT`).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The untyped memory object.
    pub fn raw(&self) -> &Mem {
        &self.mem
    }

    /// A sub-buffer of `len` elements starting at element `offset` (the byte
    /// origin must meet the device's base address alignment, 64 bytes).
    pub fn sub_buffer(&self, offset: usize, len: usize) -> Result<Buffer<T>> {
        let mem =
            self.mem
                .create_sub_buffer(MemFlags(0), byte_len::<T>(offset)?, byte_len::<T>(len)?)?;
        Ok(Buffer {
            mem,
            len,
            ctx: self.ctx.clone(),
            _elem: PhantomData,
        })
    }
}

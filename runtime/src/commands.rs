//! The commands a queue runs: buffer transfers, fills, maps, kernels,
//! markers and barriers.
//!
//! Image commands plan their rectangular copies with `crate::image` (the
//! same checks the C API makes) and run the plan when their turn comes.
//!
//! Each `enqueue_*` checks its arguments the way the matching
//! `clEnqueue*` call does — at enqueue time, so errors come back from the
//! call rather than through the event — then submits a closure to the queue.
//! Host pointers are raw: the byte-level callers (the C API) own the
//! promise that they stay valid until the event completes, which is why the
//! functions taking them are `unsafe`.

use crate::cancel::{StopFlag, Watchdog};
use crate::error::{Error, Result};
use crate::event::{command_type, Event};
use crate::image::{self, ImageMapping};
use crate::kernel_args::{KernelArgs, KernelCode};
use crate::memory::Mem;
use crate::ndrange::{self, LaunchRules, NdRange};
use crate::pool::Pool;
use crate::queue::{wait_blocking, CommandOrder, Queue, Work};
use crate::rect::{copy_rect, regions_overlap, Rect, RectCopy};
use vecl_ir::image::PixelValue;

/// `cl_command_type` codes of the image commands.
pub mod image_command {
    /// `clEnqueueReadImage`.
    pub const READ_IMAGE: u32 = 0x11F6;
    /// `clEnqueueWriteImage`.
    pub const WRITE_IMAGE: u32 = 0x11F7;
    /// `clEnqueueCopyImage`.
    pub const COPY_IMAGE: u32 = 0x11F8;
    /// `clEnqueueCopyImageToBuffer`.
    pub const COPY_IMAGE_TO_BUFFER: u32 = 0x11F9;
    /// `clEnqueueCopyBufferToImage`.
    pub const COPY_BUFFER_TO_IMAGE: u32 = 0x11FA;
    /// `clEnqueueMapImage`.
    pub const MAP_IMAGE: u32 = 0x11FC;
    /// `clEnqueueFillImage`.
    pub const FILL_IMAGE: u32 = 0x1208;
}
use std::sync::Arc;

/// `cl_map_flags`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapFlags(pub u64);

impl MapFlags {
    /// `CL_MAP_READ`.
    pub const READ: MapFlags = MapFlags(1);
    /// `CL_MAP_WRITE`.
    pub const WRITE: MapFlags = MapFlags(2);
    /// `CL_MAP_WRITE_INVALIDATE_REGION`.
    pub const WRITE_INVALIDATE_REGION: MapFlags = MapFlags(4);
}

/// A host address moved into a command's closure.
#[derive(Clone, Copy)]
struct HostPtr(*mut u8);

// SAFETY: the enqueuing caller promised the pointer stays valid until the
// command completes; the command is its only user meanwhile.
unsafe impl Send for HostPtr {}

impl HostPtr {
    /// The address (a method, so closures capture the whole `Send` wrapper).
    fn get(self) -> *mut u8 {
        self.0
    }
}

fn check_host_ptr(ptr: *const u8) -> Result<()> {
    if ptr.is_null() {
        return Err(Error::InvalidValue("null host pointer".into()));
    }
    Ok(())
}

/// Host memory of `len` bytes at `ptr` must not run past the end of the
/// address space (a size no allocation can have).
fn check_host_span(ptr: *const u8, len: u64) -> Result<()> {
    check_host_ptr(ptr)?;
    match (ptr as u64).checked_add(len) {
        Some(_) => Ok(()),
        None => Err(Error::InvalidValue(format!(
            "{len} bytes of host memory at {ptr:?} run past the end of the address space"
        ))),
    }
}

fn check_readable(mem: &Mem) -> Result<()> {
    if !mem.flags().host_can_read() {
        return Err(Error::InvalidOperation(
            "the buffer was created with HOST_WRITE_ONLY or HOST_NO_ACCESS".into(),
        ));
    }
    Ok(())
}

/// Known map flags, `WRITE_INVALIDATE_REGION` alone, and host access that
/// allows the mapping.
fn check_map_flags(mem: &Mem, flags: MapFlags) -> Result<()> {
    if flags.0 & !0b111 != 0 {
        return Err(Error::InvalidValue(format!(
            "unknown map flags {:#x}",
            flags.0
        )));
    }
    if flags.0 & MapFlags::WRITE_INVALIDATE_REGION.0 != 0 && flags.0 & 0b11 != 0 {
        return Err(Error::InvalidValue(
            "WRITE_INVALIDATE_REGION excludes READ and WRITE".into(),
        ));
    }
    if flags.0 & MapFlags::READ.0 != 0 {
        check_readable(mem)?;
    }
    if flags.0 & (MapFlags::WRITE.0 | MapFlags::WRITE_INVALIDATE_REGION.0) != 0 {
        check_writable(mem)?;
    }
    Ok(())
}

fn check_writable(mem: &Mem) -> Result<()> {
    if !mem.flags().host_can_write() {
        return Err(Error::InvalidOperation(
            "the buffer was created with HOST_READ_ONLY or HOST_NO_ACCESS".into(),
        ));
    }
    Ok(())
}

/// Commands moving at most this many bytes run on the enqueuing thread
/// when their dependencies are already complete: the copy costs less than
/// handing it to an executor thread.
pub const SMALL_COMMAND_BYTES: u64 = 64 * 1024;

/// Bytes of pattern a fill copies at a time (a multiple of every pattern size).
const FILL_BLOCK: usize = 64 * 1024;

/// How a command is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// On an executor; the enqueue returns at once.
    Async,
    /// Small work: on the enqueuing thread if its dependencies are complete,
    /// otherwise on an executor; the enqueue does not wait.
    Small,
    /// The enqueue waits for the command (running it itself when it can).
    Blocking,
}

/// The run mode of a command moving `bytes`, blocking or not.
pub fn run_mode(blocking: bool, bytes: u64) -> Run {
    if blocking {
        Run::Blocking
    } else if bytes <= SMALL_COMMAND_BYTES {
        Run::Small
    } else {
        Run::Async
    }
}

impl Queue {
    /// Submits `work` as a command of type `command` and, for
    /// [`Run::Blocking`], waits for it: its failure is this call's error.
    pub fn enqueue_work(
        &self,
        command: u32,
        order: CommandOrder,
        wait: &[Event],
        run: Run,
        work: Work,
    ) -> Result<Event> {
        let event = self.submit(command, order, wait, run != Run::Async, work);
        if run == Run::Blocking {
            wait_blocking(event)
        } else {
            Ok(event)
        }
    }

    /// `clEnqueueReadBuffer`.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `size` bytes until the returned
    /// event completes (until return when `blocking`).
    pub unsafe fn enqueue_read(
        &self,
        mem: &Mem,
        offset: u64,
        size: u64,
        dst: *mut u8,
        blocking: bool,
        wait: &[Event],
    ) -> Result<Event> {
        check_host_span(dst, size)?;
        mem.check_range(offset, size)?;
        check_readable(mem)?;
        let (mem, dst) = (mem.clone(), HostPtr(dst));
        let work: Work = Box::new(move || {
            // SAFETY: the range was checked against the buffer; the caller
            // keeps `dst` valid for `size` bytes.
            unsafe { std::ptr::copy(mem.as_ptr().add(offset as usize), dst.get(), size as usize) };
            Ok(())
        });
        self.enqueue_work(
            command_type::READ_BUFFER,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, size),
            work,
        )
    }

    /// `clEnqueueWriteBuffer`.
    ///
    /// # Safety
    /// `src` must be valid for reads of `size` bytes until the returned
    /// event completes (until return when `blocking`).
    pub unsafe fn enqueue_write(
        &self,
        mem: &Mem,
        offset: u64,
        size: u64,
        src: *const u8,
        blocking: bool,
        wait: &[Event],
    ) -> Result<Event> {
        check_host_span(src, size)?;
        mem.check_range(offset, size)?;
        check_writable(mem)?;
        let (mem, src) = (mem.clone(), HostPtr(src.cast_mut()));
        let work: Work = Box::new(move || {
            // SAFETY: as for reads, in the other direction.
            unsafe { std::ptr::copy(src.get(), mem.as_ptr().add(offset as usize), size as usize) };
            Ok(())
        });
        self.enqueue_work(
            command_type::WRITE_BUFFER,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, size),
            work,
        )
    }

    /// `clEnqueueCopyBuffer`.
    pub fn enqueue_copy(
        &self,
        src: &Mem,
        dst: &Mem,
        src_offset: u64,
        dst_offset: u64,
        size: u64,
        wait: &[Event],
    ) -> Result<Event> {
        src.check_range(src_offset, size)?;
        dst.check_range(dst_offset, size)?;
        let (root_a, a0, a1) = src.root_range(src_offset, size);
        let (root_b, b0, b1) = dst.root_range(dst_offset, size);
        if root_a == root_b && a0 < b1 && b0 < a1 {
            return Err(Error::MemCopyOverlap);
        }
        let (src, dst) = (src.clone(), dst.clone());
        let work: Work = Box::new(move || {
            // SAFETY: both ranges were checked and do not overlap.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    src.as_ptr().add(src_offset as usize),
                    dst.as_ptr().add(dst_offset as usize),
                    size as usize,
                )
            };
            Ok(())
        });
        self.enqueue_work(
            command_type::COPY_BUFFER,
            CommandOrder::Plain,
            wait,
            run_mode(false, size),
            work,
        )
    }

    /// `clEnqueueReadBufferRect`: `buffer` describes the rectangle in `mem`,
    /// `host` the one at `dst`.
    ///
    /// # Safety
    /// `dst` must be valid for writes over the host rectangle's extent until
    /// the event completes (until return when `blocking`).
    pub unsafe fn enqueue_read_rect(
        &self,
        mem: &Mem,
        buffer: &Rect,
        host: &Rect,
        region: [u64; 3],
        dst: *mut u8,
        blocking: bool,
        wait: &[Event],
    ) -> Result<Event> {
        check_host_ptr(dst)?;
        let b = buffer.resolve(&region, "buffer")?;
        let h = host.resolve(&region, "host")?;
        let (_, end) = b.extent(&region)?;
        let (_, host_end) = h.extent(&region)?;
        check_host_span(dst, host_end)?;
        mem.check_range(0, end)?;
        check_readable(mem)?;
        let (mem, dst) = (mem.clone(), HostPtr(dst));
        let work: Work = Box::new(move || {
            // SAFETY: the buffer extent was checked; the caller covers the host one.
            unsafe { copy_rect(mem.as_ptr(), &b, dst.get(), &h, &region) };
            Ok(())
        });
        self.enqueue_work(
            command_type::READ_BUFFER_RECT,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, region.iter().product()),
            work,
        )
    }

    /// `clEnqueueWriteBufferRect`.
    ///
    /// # Safety
    /// `src` must be valid for reads over the host rectangle's extent until
    /// the event completes (until return when `blocking`).
    pub unsafe fn enqueue_write_rect(
        &self,
        mem: &Mem,
        buffer: &Rect,
        host: &Rect,
        region: [u64; 3],
        src: *const u8,
        blocking: bool,
        wait: &[Event],
    ) -> Result<Event> {
        check_host_ptr(src)?;
        let b = buffer.resolve(&region, "buffer")?;
        let h = host.resolve(&region, "host")?;
        let (_, end) = b.extent(&region)?;
        let (_, host_end) = h.extent(&region)?;
        check_host_span(src, host_end)?;
        mem.check_range(0, end)?;
        check_writable(mem)?;
        let (mem, src) = (mem.clone(), HostPtr(src.cast_mut()));
        let work: Work = Box::new(move || {
            // SAFETY: as for reads, in the other direction.
            unsafe { copy_rect(src.get(), &h, mem.as_ptr(), &b, &region) };
            Ok(())
        });
        self.enqueue_work(
            command_type::WRITE_BUFFER_RECT,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, region.iter().product()),
            work,
        )
    }

    /// `clEnqueueCopyBufferRect`.
    pub fn enqueue_copy_rect(
        &self,
        src: &Mem,
        dst: &Mem,
        src_rect: &Rect,
        dst_rect: &Rect,
        region: [u64; 3],
        wait: &[Event],
    ) -> Result<Event> {
        let s = src_rect.resolve(&region, "source")?;
        let d = dst_rect.resolve(&region, "destination")?;
        let (s0, s1) = s.extent(&region)?;
        let (d0, d1) = d.extent(&region)?;
        src.check_range(0, s1)?;
        dst.check_range(0, d1)?;
        let (root_a, a0, a1) = src.root_range(s0, s1 - s0);
        let (root_b, b0, b1) = dst.root_range(d0, d1 - d0);
        if root_a == root_b {
            // "CL_INVALID_VALUE if src_buffer and dst_buffer are the same
            // buffer object and src_slice_pitch is not equal to
            // dst_slice_pitch and src_row_pitch is not equal to
            // dst_row_pitch."
            if src.same_object(dst) && s.row_pitch != d.row_pitch && s.slice_pitch != d.slice_pitch
            {
                return Err(Error::InvalidValue(
                    "a copy within one buffer with different row and slice pitches".into(),
                ));
            }
            // a0 - s0 and b0 - d0: where each object starts in the root.
            if a0 < b1 && b0 < a1 && regions_overlap(&s, a0 - s0, &d, b0 - d0, &region) {
                return Err(Error::MemCopyOverlap);
            }
        }
        let (src, dst) = (src.clone(), dst.clone());
        let work: Work = Box::new(move || {
            // SAFETY: both extents were checked and, row by row, do not
            // overlap.
            unsafe { copy_rect(src.as_ptr(), &s, dst.as_ptr(), &d, &region) };
            Ok(())
        });
        self.enqueue_work(
            command_type::COPY_BUFFER_RECT,
            CommandOrder::Plain,
            wait,
            run_mode(false, region.iter().product()),
            work,
        )
    }

    /// `clEnqueueFillBuffer`.
    pub fn enqueue_fill(
        &self,
        mem: &Mem,
        pattern: &[u8],
        offset: u64,
        size: u64,
        wait: &[Event],
    ) -> Result<Event> {
        let p = pattern.len() as u64;
        if !matches!(p, 1 | 2 | 4 | 8 | 16 | 32 | 64 | 128) {
            return Err(Error::InvalidValue(format!("fill pattern of {p} bytes")));
        }
        if !offset.is_multiple_of(p) || !size.is_multiple_of(p) {
            return Err(Error::InvalidValue(
                "fill offset and size must be multiples of the pattern size".into(),
            ));
        }
        mem.check_range(offset, size)?;
        // The pattern repeated over a block (a multiple of every pattern
        // size): the fill copies whole blocks, not one pattern at a time.
        let block_len = (FILL_BLOCK as u64).min(size) as usize;
        let block: Vec<u8> = pattern.iter().copied().cycle().take(block_len).collect();
        let mem = mem.clone();
        let work: Work = Box::new(move || {
            let base = mem.as_ptr().wrapping_add(offset as usize);
            let size = size as usize;
            for at in (0..size).step_by(FILL_BLOCK) {
                let len = FILL_BLOCK.min(size - at);
                // SAFETY: `offset + size` was checked against the buffer;
                // `len` bytes of the block exist (the block is `size` long
                // when shorter than FILL_BLOCK).
                unsafe { std::ptr::copy_nonoverlapping(block.as_ptr(), base.add(at), len) };
            }
            Ok(())
        });
        self.enqueue_work(
            command_type::FILL_BUFFER,
            CommandOrder::Plain,
            wait,
            run_mode(false, size),
            work,
        )
    }

    /// `clEnqueueMapBuffer`: buffers live in host memory, so the mapped
    /// pointer is the buffer's own bytes at `offset`.
    pub fn enqueue_map(
        &self,
        mem: &Mem,
        flags: MapFlags,
        offset: u64,
        size: u64,
        blocking: bool,
        wait: &[Event],
    ) -> Result<(Event, *mut u8)> {
        if size == 0 {
            return Err(Error::InvalidValue("map of 0 bytes".into()));
        }
        mem.check_range(offset, size)?;
        check_map_flags(mem, flags)?;
        let ptr = mem.as_ptr().wrapping_add(offset as usize);
        mem.add_mapping(ptr);
        let event = self.enqueue_work(
            command_type::MAP_BUFFER,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, 0),
            Box::new(|| Ok(())),
        );
        Ok((event?, ptr))
    }

    /// `clEnqueueUnmapMemObject`.
    pub fn enqueue_unmap(&self, mem: &Mem, ptr: *mut u8, wait: &[Event]) -> Result<Event> {
        mem.remove_mapping(ptr)?;
        self.enqueue_work(
            command_type::UNMAP_MEM_OBJECT,
            CommandOrder::Plain,
            wait,
            Run::Small,
            Box::new(|| Ok(())),
        )
    }

    /// `clEnqueueNDRangeKernel` (and, with a 1×1×1 range, `clEnqueueTask`):
    /// the launch is checked and the argument block laid out now; the
    /// kernel runs on the pool when the command's turn comes.
    pub fn enqueue_kernel(
        &self,
        code: Arc<dyn KernelCode>,
        args: &KernelArgs,
        range: &NdRange,
        rules: &LaunchRules,
        wait: &[Event],
    ) -> Result<Event> {
        let Some(launch) = ndrange::plan_launch(range, code.simd_width(), rules)? else {
            // An empty range still orders like a command.
            return self.enqueue_work(
                command_type::NDRANGE_KERNEL,
                CommandOrder::Plain,
                wait,
                Run::Small,
                Box::new(|| Ok(())),
            );
        };
        let block = args.build_block(code.args_size(), code.static_local_size())?;
        if block.local_mem_size > crate::device_limits::LOCAL_MEM_SIZE {
            return Err(Error::OutOfResources(format!(
                "kernel `{}` needs {} bytes of __local memory; the device has {}",
                code.name(),
                block.local_mem_size,
                crate::device_limits::LOCAL_MEM_SIZE
            )));
        }
        let is_task =
            range.work_dim == 1 && range.global[0] == 1 && range.local.is_none_or(|l| l[0] == 1);
        let kind = if is_task {
            command_type::TASK
        } else {
            command_type::NDRANGE_KERNEL
        };
        // Checked code: a fault becomes an error naming the work-item, the
        // address and the buffer it missed.
        let checked = block.checked.clone();
        // Cancellation and the queue's time limit stop the launch through
        // its flag (`cancel`); the limit counts from the command's start.
        let stop = StopFlag::new();
        let run_stop = Arc::clone(&stop);
        let timeout = self.properties().kernel_timeout;
        let work: Work = Box::new(move || {
            let name = code.name().to_string();
            if let Some(limit) = timeout {
                Watchdog::arm(&run_stop, limit);
            }
            ndrange::execute_stoppable(Pool::global(), code, block, launch, &run_stop)
                .map_err(|e| checked.and_then(|c| c.error(&name)).unwrap_or(e))
        });
        let event = self.enqueue_work(kind, CommandOrder::Plain, wait, Run::Async, work)?;
        event.set_stop_flag(stop);
        Ok(event)
    }

    /// Runs a planned copy between two memory objects as a command.
    fn enqueue_planned_copy(
        &self,
        command: u32,
        src: &Mem,
        dst: &Mem,
        copy: RectCopy,
        wait: &[Event],
    ) -> Result<Event> {
        let bytes = copy.bytes();
        let (src, dst) = (src.clone(), dst.clone());
        let work: Work = Box::new(move || {
            // SAFETY: the plan checked both sides against these objects
            // and that they do not overlap.
            unsafe { copy.run(src.as_ptr(), dst.as_ptr()) };
            Ok(())
        });
        self.enqueue_work(
            command,
            CommandOrder::Plain,
            wait,
            run_mode(false, bytes),
            work,
        )
    }

    /// `clEnqueueReadImage`: `region` of the image at `origin` to host
    /// memory with `row_pitch` and `slice_pitch` (0: packed).
    ///
    /// # Safety
    /// `dst` must be valid for writes over the host rectangle until the
    /// event completes (until return when `blocking`).
    pub unsafe fn enqueue_read_image(
        &self,
        image: &Mem,
        origin: [u64; 3],
        region: [u64; 3],
        row_pitch: u64,
        slice_pitch: u64,
        dst: *mut u8,
        blocking: bool,
        wait: &[Event],
    ) -> Result<Event> {
        check_host_ptr(dst)?;
        let copy = image::plan_read(image, origin, region, row_pitch, slice_pitch)?;
        check_host_span(dst, copy.dst_extent()?.1)?;
        check_readable(image)?;
        let bytes = copy.bytes();
        let (image, dst) = (image.clone(), HostPtr(dst));
        let work: Work = Box::new(move || {
            // SAFETY: the image side was checked; the caller covers the host one.
            unsafe { copy.run(image.as_ptr(), dst.get()) };
            Ok(())
        });
        self.enqueue_work(
            image_command::READ_IMAGE,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, bytes),
            work,
        )
    }

    /// `clEnqueueWriteImage`.
    ///
    /// # Safety
    /// `src` must be valid for reads over the host rectangle until the
    /// event completes (until return when `blocking`).
    pub unsafe fn enqueue_write_image(
        &self,
        image: &Mem,
        origin: [u64; 3],
        region: [u64; 3],
        row_pitch: u64,
        slice_pitch: u64,
        src: *const u8,
        blocking: bool,
        wait: &[Event],
    ) -> Result<Event> {
        check_host_ptr(src)?;
        let copy = image::plan_write(image, origin, region, row_pitch, slice_pitch)?;
        check_host_span(src, copy.src_extent()?.1)?;
        check_writable(image)?;
        let bytes = copy.bytes();
        let (image, src) = (image.clone(), HostPtr(src.cast_mut()));
        let work: Work = Box::new(move || {
            // SAFETY: as for reads, in the other direction.
            unsafe { copy.run(src.get(), image.as_ptr()) };
            Ok(())
        });
        self.enqueue_work(
            image_command::WRITE_IMAGE,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, bytes),
            work,
        )
    }

    /// `clEnqueueCopyImage`.
    pub fn enqueue_copy_image(
        &self,
        src: &Mem,
        dst: &Mem,
        src_origin: [u64; 3],
        dst_origin: [u64; 3],
        region: [u64; 3],
        wait: &[Event],
    ) -> Result<Event> {
        let copy = image::plan_copy(src, dst, src_origin, dst_origin, region)?;
        self.enqueue_planned_copy(image_command::COPY_IMAGE, src, dst, copy, wait)
    }

    /// `clEnqueueCopyImageToBuffer`.
    pub fn enqueue_copy_image_to_buffer(
        &self,
        src: &Mem,
        dst: &Mem,
        origin: [u64; 3],
        region: [u64; 3],
        offset: u64,
        wait: &[Event],
    ) -> Result<Event> {
        let copy = image::plan_image_to_buffer(src, dst, origin, region, offset)?;
        self.enqueue_planned_copy(image_command::COPY_IMAGE_TO_BUFFER, src, dst, copy, wait)
    }

    /// `clEnqueueCopyBufferToImage`.
    pub fn enqueue_copy_buffer_to_image(
        &self,
        src: &Mem,
        dst: &Mem,
        offset: u64,
        origin: [u64; 3],
        region: [u64; 3],
        wait: &[Event],
    ) -> Result<Event> {
        let copy = image::plan_buffer_to_image(src, dst, offset, origin, region)?;
        self.enqueue_planned_copy(image_command::COPY_BUFFER_TO_IMAGE, src, dst, copy, wait)
    }

    /// `clEnqueueFillImage`: `color` (of the image's value class) encoded in
    /// its format over `region`.
    pub fn enqueue_fill_image(
        &self,
        image: &Mem,
        color: PixelValue,
        origin: [u64; 3],
        region: [u64; 3],
        wait: &[Event],
    ) -> Result<Event> {
        let fill = image::plan_fill(image, color, origin, region)?;
        let image = image.clone();
        let work: Work = Box::new(move || {
            // SAFETY: the fill was planned for this image.
            unsafe { fill.run(image.as_ptr()) };
            Ok(())
        });
        self.enqueue_work(
            image_command::FILL_IMAGE,
            CommandOrder::Plain,
            wait,
            Run::Async,
            work,
        )
    }

    /// `clEnqueueMapImage`: images live in host memory, so the mapping is
    /// the image's own bytes at `origin`, read with the image's pitches.
    pub fn enqueue_map_image(
        &self,
        image: &Mem,
        flags: MapFlags,
        origin: [u64; 3],
        region: [u64; 3],
        blocking: bool,
        wait: &[Event],
    ) -> Result<(Event, *mut u8, ImageMapping)> {
        let mapping = image::plan_map(image, origin, region)?;
        check_map_flags(image, flags)?;
        let ptr = image.as_ptr().wrapping_add(mapping.offset as usize);
        image.add_mapping(ptr);
        let event = self.enqueue_work(
            image_command::MAP_IMAGE,
            CommandOrder::Plain,
            wait,
            run_mode(blocking, 0),
            Box::new(|| Ok(())),
        );
        Ok((event?, ptr, mapping))
    }

    /// `clEnqueueMarkerWithWaitList`: completes when `wait` has (or, with an
    /// empty list, when every command before it has).
    pub fn enqueue_marker(&self, wait: &[Event]) -> Result<Event> {
        self.enqueue_work(
            command_type::MARKER,
            CommandOrder::Marker,
            wait,
            Run::Small,
            Box::new(|| Ok(())),
        )
    }

    /// `clEnqueueBarrierWithWaitList`: like a marker, and later commands
    /// wait for it.
    pub fn enqueue_barrier(&self, wait: &[Event]) -> Result<Event> {
        self.enqueue_work(
            command_type::BARRIER,
            CommandOrder::Barrier,
            wait,
            Run::Small,
            Box::new(|| Ok(())),
        )
    }

    /// `clEnqueueMigrateMemObjects`: memory is always where the device
    /// needs it, so this only orders.
    pub fn enqueue_migrate(&self, wait: &[Event]) -> Result<Event> {
        self.enqueue_work(
            command_type::MIGRATE_MEM_OBJECTS,
            CommandOrder::Plain,
            wait,
            Run::Small,
            Box::new(|| Ok(())),
        )
    }

    /// Runs a host function as a command (`clEnqueueNativeKernel`, and the
    /// way to put arbitrary host work in a queue's order).
    pub fn enqueue_host_fn(
        &self,
        wait: &[Event],
        f: impl FnOnce() -> Result<()> + Send + 'static,
    ) -> Result<Event> {
        self.enqueue_work(
            command_type::NATIVE_KERNEL,
            CommandOrder::Plain,
            wait,
            Run::Async,
            Box::new(f),
        )
    }
}

//! The host's copy bandwidth, measured in the same run as the kernels: the
//! reference the memory-bound kernels (vadd, saxpy) are reported against.
//!
//! A plain `memcpy` from one buffer to another, split into one contiguous
//! slice per thread with as many threads as vecl's pool runs work-items on,
//! so that both sides of the comparison use the same cores. The copy moves
//! the same number of bytes (read + written) as the kernel it stands for:
//! half of them read from the source, half written to the destination. The
//! destination is written once before timing, so that no timed run pays for
//! first-touch page faults (the kernels' buffers are warm too). Both buffers
//! come from the allocator vecl's buffers use, so the copy runs on the same
//! kind of pages (huge pages for large blocks) as the kernels it stands for.

use std::time::Instant;
use vecl_runtime::host_alloc::AlignedBytes;

/// The timed runs of a host copy.
pub struct CopyRuns {
    /// Bytes read plus bytes written per run.
    pub bytes_moved: u64,
    /// Threads that copied.
    pub threads: usize,
    /// Wall-clock nanoseconds of each timed run.
    pub runs_ns: Vec<u64>,
}

/// Copies `src` into `dst` with `threads` threads, one contiguous slice
/// each; returns the wall-clock nanoseconds.
fn copy_once(src: &[u8], dst: &mut [u8], threads: usize) -> u64 {
    let chunk = src.len().div_ceil(threads.max(1)).max(1);
    let start = Instant::now();
    std::thread::scope(|scope| {
        let mut pieces = dst.chunks_mut(chunk).zip(src.chunks(chunk));
        // The calling thread takes the first slice, as vecl's submitting
        // thread joins its pool.
        let first = pieces.next();
        for (to, from) in pieces {
            scope.spawn(move || to.copy_from_slice(from));
        }
        if let Some((to, from)) = first {
            to.copy_from_slice(from);
        }
    });
    start.elapsed().as_nanos() as u64
}

/// Times `reps` copies that move `bytes_moved` bytes (read + written) with
/// `threads` threads, after one untimed copy; checks the destination.
pub fn measure(bytes_moved: u64, threads: usize, reps: usize) -> Result<CopyRuns, String> {
    let len = usize::try_from(bytes_moved / 2)
        .map_err(|_| format!("{bytes_moved} bytes do not fit this machine"))?;
    let alloc = |len| AlignedBytes::zeroed(len).map_err(|e| format!("host copy buffer: {e}"));
    let (src_block, dst_block) = (alloc(len)?, alloc(len)?);
    // SAFETY: each block is `len` bytes, owned here, and reached only
    // through these two slices until it is dropped.
    let (src, dst) = unsafe {
        (
            std::slice::from_raw_parts_mut(src_block.as_ptr(), len),
            std::slice::from_raw_parts_mut(dst_block.as_ptr(), len),
        )
    };
    for (i, byte) in src.iter_mut().enumerate() {
        *byte = (i % 251) as u8;
    }
    let src = &*src;
    copy_once(src, dst, threads);
    let runs_ns = (0..reps.max(1))
        .map(|_| copy_once(src, dst, threads))
        .collect();
    if src != dst {
        return Err("the copy's destination differs from its source".into());
    }
    Ok(CopyRuns {
        bytes_moved: 2 * len as u64,
        threads,
        runs_ns,
    })
}

/// Bytes per second at `ns` nanoseconds, in GB/s (10^9 bytes per second).
pub fn gb_per_s(bytes: u64, ns: u64) -> Option<f64> {
    (ns > 0).then(|| bytes as f64 / ns as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_byte_with_any_thread_count() {
        for threads in [1, 2, 3, 7] {
            let runs = measure(2 * 1001, threads, 2).expect("copy");
            assert_eq!(runs.bytes_moved, 2002);
            assert_eq!(runs.runs_ns.len(), 2);
        }
    }

    #[test]
    fn bandwidth_is_bytes_per_nanosecond() {
        assert_eq!(gb_per_s(3_000_000_000, 1_000_000_000), Some(3.0));
        assert_eq!(gb_per_s(1, 0), None);
    }
}

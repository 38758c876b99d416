//! Loops that walk a group's `__local` array by the local size,
//! `for (int b = lid; b < n; b += get_local_size(0))`, and grid-stride
//! loops over `__global` memory: their index is a variable the uniformity
//! analysis calls varying (lanes may leave the loop at different
//! iterations), but it derives from a consecutive id, so its accesses take
//! the run-time-tested vector path (consecutive lanes and a full mask,
//! else the lane-by-lane one). An index scaled by a uniform
//! (`get_global_id(0) * per_item`) is not tried: its lanes are spaced
//! apart in every chunk but for a factor of one.
//!
//! Against the interpreter at every width: the bench's histogram (bins
//! hit by every lane at once, by none, partial last chunks, `per_item`
//! 0, 1, odd and 16, groups of 1, 16, 17 and 256 items), and a
//! grid-stride loop whose last round runs part of a chunk.

use vecl_testkit::*;

/// `benches/histogram.cl` with the bytes masked, so that every increment
/// can be sent to one bin (`mask` 0) or spread over 16 or 256.
const HISTOGRAM: &str = "
kernel void histogram(global const uchar* data, global uint* bins, int per_item, int mask) {
    local uint local_bins[256];
    int lid = get_local_id(0);
    int n = get_local_size(0);
    for (int b = lid; b < 256; b += n) {
        local_bins[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t base = get_global_id(0) * per_item;
    for (int k = 0; k < per_item; k++) {
        atomic_inc(&local_bins[data[base + k] & mask]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < 256; b += n) {
        atomic_add(&bins[b], local_bins[b]);
    }
}";

#[test]
fn histogram_matches_the_interpreter() {
    // Groups of 1, 16, 17 (a partial last chunk at every width, and a
    // last round of the bin loops that runs part of a chunk: 256 = 15 *
    // 17 + 1) and 256 items.
    let ranges = [
        range_1d(0, 8, 1),
        range_1d(0, 64, 16),
        range_1d(0, 68, 17),
        range_1d(0, 512, 256),
    ];
    let mut compared = 0;
    for per_item in [0, 1, 3, 16] {
        for mask in [0, 15, 255] {
            compared += differential(HISTOGRAM, "histogram", &ranges, |r| {
                let n = r.global_size[0] as usize;
                vec![
                    Spec::Bytes((n * per_item as usize).max(1), 3),
                    Spec::Ints(256, 0),
                    Spec::Int(per_item),
                    Spec::Int(mask),
                ]
            });
        }
    }
    assert_eq!(compared, 4 * 3 * ranges.len() * WIDTHS.len());
}

#[test]
fn local_size_loops_take_vector_accesses_and_scaled_ids_in_loops_do_not() {
    // The bins' store and load by the local-size loops are vector accesses
    // (tested at run time); the bytes at `get_global_id(0) * per_item + k`
    // stay lane by lane in the loop (its two unrolled trips), and only the
    // odd trip the unrolling leaves after it, run once per chunk, tests
    // for consecutive lanes.
    let e = explain(HISTOGRAM, "histogram");
    let loads = line(&e, "loads:");
    assert!(loads.starts_with("loads: 2 vector"), "{e}");
    assert!(loads.ends_with(" 2 per lane (gather)"), "{e}");
    let stores = line(&e, "stores:");
    assert!(stores.starts_with("stores: 1 vector"), "{e}");
    assert!(stores.ends_with(" 0 per lane (scatter)"), "{e}");
}

#[test]
fn grid_stride_loop_matches_the_interpreter() {
    let src = "kernel void scale(global const int* in, global int* out, int n) {
        for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
            out[i] = in[i] * 3 + i;
        }
    }";
    let ranges = [
        range_1d(0, 16, 16),
        range_1d(0, 24, 8),
        range_1d(0, 17, 17),
        range_1d(0, 5, 1),
    ];
    let mut compared = 0;
    for n in [0, 1, 16, 37, 100] {
        compared += differential(src, "scale", &ranges, |_| {
            vec![Spec::Ints(100, 1), Spec::Ints(100, 0), Spec::Int(n)]
        });
    }
    assert_eq!(compared, 5 * ranges.len() * WIDTHS.len());
    let e = explain(src, "scale");
    assert!(line(&e, "stores:").starts_with("stores: 1 vector"), "{e}");
}

/// The line of an `explain` report that starts with `prefix`.
fn line<'e>(e: &'e str, prefix: &str) -> &'e str {
    e.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix} in {e}"))
}

/// A strided kernel (`x[i * incx]`) outside any loop tests its lanes for
/// consecutive addresses once per chunk, so a launch with a stride of one
/// gets whole vectors; any stride gives the interpreter's results.
#[test]
fn strided_accesses_outside_loops_test_for_a_stride_of_one() {
    let src =
        "kernel void saxpy(float a, global const float* x, int incx, global float* y, int incy) {
        int i = get_global_id(0);
        y[i * incy] = a * x[i * incx] + y[i * incy];
    }";
    let ranges = [range_1d(0, 64, 16), range_1d(0, 17, 17), range_1d(3, 40, 8)];
    let mut compared = 0;
    for (incx, incy) in [(1, 1), (2, 1), (1, 3), (0, 1), (4, 4)] {
        compared += differential(src, "saxpy", &ranges, |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize;
            let span = |inc: i32| (n * inc.unsigned_abs() as usize).max(1);
            vec![
                Spec::Float(1.5),
                Spec::Floats(span(incx), 2),
                Spec::Int(incx),
                Spec::Floats(span(incy), 3),
                Spec::Int(incy),
            ]
        });
    }
    assert_eq!(compared, 5 * ranges.len() * WIDTHS.len());
    let e = explain(src, "saxpy");
    assert!(line(&e, "loads:").starts_with("loads: 2 vector"), "{e}");
    assert!(line(&e, "stores:").starts_with("stores: 1 vector"), "{e}");
}

//! The wide code's chunk loop (`vecl_jit::wide::entry::entry_program`): a
//! row's full chunks run in a loop of their own with every lane running
//! (no mask computed or tested), values fixed for the row computed once
//! per row, accesses by the id plus such a value addressed from the
//! chunk's first id plus a row slot (`Known::RowOffset`); the rest of the
//! row runs one masked chunk at a time. Against the interpreter at every
//! width and on the wide code (robust access's faults: `wide_memory`): rows whose
//! length is a multiple of 16, one more, one less, shorter than a chunk,
//! 2-D and 3-D launches with odd sizes, global offsets, groups narrower
//! than a chunk, masked accesses inside the full chunks, a body with a
//! loop (four chunks in flight) and a long one (chunks alternating), and
//! constants added to a row offset (displacements of its slot: a 3 x 3
//! stencil's nine reads from three slots).

use vecl_ir::interp::NdRange;
use vecl_jit::{compile_kernel, JitOptions, Tiers};
use vecl_testkit::differential::{build, compare_launches, differential, Spec};
use vecl_testkit::{code_line, cpu_has_wide, range_1d};

fn options() -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide: true,
        checked: false,
        local_checks: false,
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

fn nd(offset: [u64; 3], global: [u64; 3], local: [u64; 3]) -> NdRange {
    let work_dim = if global[2] > 1 || offset[2] > 0 {
        3
    } else if global[1] > 1 || offset[1] > 0 {
        2
    } else {
        1
    };
    NdRange {
        work_dim,
        global_offset: offset,
        global_size: global,
        local_size: local,
    }
}

/// The launches: rows of 16, 17, 15, 5 and 48 work-items, 2-D and 3-D
/// with odd sizes and offsets, groups narrower than a chunk (8 and 11
/// wide), a row of 64 (four full chunks: one trip of four in flight), and
/// groups one work-item wide (lanes along dimension 1).
fn shapes() -> Vec<NdRange> {
    vec![
        nd([0; 3], [16, 3, 1], [16, 1, 1]),
        nd([0; 3], [17, 3, 1], [17, 3, 1]),
        nd([0; 3], [15, 3, 1], [15, 1, 1]),
        nd([0; 3], [5, 4, 1], [5, 2, 1]),
        nd([0; 3], [48, 5, 1], [16, 1, 1]),
        nd([0; 3], [64, 2, 1], [64, 1, 1]),
        nd([3, 2, 0], [33, 3, 1], [11, 3, 1]),
        nd([0; 3], [64, 2, 1], [8, 2, 1]),
        nd([1, 2, 3], [19, 5, 3], [19, 5, 3]),
        nd([2, 0, 1], [47, 2, 2], [47, 1, 2]),
        nd([5, 0, 0], [333, 1, 1], [111, 1, 1]),
        range_1d(0, 31, 31),
        range_1d(7, 80, 80),
        // Groups one work-item wide in dimension 0: the lanes along
        // dimension 1 (a copy compiled for such launches).
        nd([0; 3], [1, 37, 2], [1, 37, 1]),
        nd([2, 3, 0], [1, 64, 1], [1, 16, 1]),
    ]
}

/// Elements every buffer holds for `r` (the kernels index at most
/// `gid2 * gsize1 * gsize0 + gid1 * gsize0 + gid0` or `gid1 * gsize0 +
/// gid0 + 2048 * gid2`, plus an offset of 40).
fn elems(r: &NdRange) -> usize {
    let end = |d: usize| (r.global_offset[d] + r.global_size[d]) as usize;
    end(0) + end(1) * r.global_size[0] as usize * (1 + end(2)) + 2048 * end(2) + 64
}

/// `src`'s `k` against the interpreter at every width, then on the wide
/// code, plain and robust, whose `--explain` line must contain each of
/// `notes`.
fn agree(src: &str, notes: &[&str], args: impl Fn(&NdRange) -> Vec<Spec>) {
    let shapes = shapes();
    assert_eq!(differential(src, "k", &shapes, &args), 3 * shapes.len());
    let m = build(src, "");
    // (Robust access's tests need the bounds table: `wide_memory`.)
    {
        let k = compile_kernel(&m, "k", &options()).expect("compiles");
        let line = code_line(&k);
        if cpu_has_wide() {
            assert!(line.starts_with("code: wide AVX-512"), "{line}");
            for note in notes {
                assert!(line.contains(note), "{note}: {line}");
            }
        }
        assert_eq!(compare_launches(&m, "k", &k, &shapes, &args), shapes.len());
    }
}

#[test]
fn a_row_offset_in_two_and_three_dimensions_matches_the_interpreter() {
    let two = "kernel void k(global float* u, global const float* a, int t) {
    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0) + get_global_id(2) * 2048;
    u[k] = u[k] * 2.0f + a[k] + (float)t;
}";
    agree(two, &["once per row", "1 row offsets addressed"], |r| {
        let n = elems(r);
        vec![Spec::Floats(n, 1), Spec::Floats(n, 2), Spec::Int(3)]
    });
    let three = "kernel void k(global float* out, global const float* a) {
    int k = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0)
        + get_global_id(0);
    out[k] = a[k] + (float)get_global_id(1);
}";
    agree(three, &["row offsets addressed"], |r| {
        let n = elems(r);
        vec![Spec::Floats(n, 0), Spec::Floats(n, 4)]
    });
}

#[test]
fn offsets_fixed_for_the_call_and_shifted_indices_match_the_interpreter() {
    // A kernel argument added to the id (fixed for the call), and indices
    // one before and after it (the shifted index's path, beside the row
    // offset's).
    let src = "kernel void k(global float* out, global const float* a, int off) {
    int i = get_global_id(0) + off;
    out[i] = a[i] * 3.0f + a[i + 1] - a[i - 1];
}";
    agree(src, &["row offsets addressed"], |r| {
        let n = elems(r);
        vec![Spec::Floats(n, 0), Spec::Floats(n, 5), Spec::Int(40)]
    });
}

#[test]
fn masked_accesses_inside_full_chunks_match_the_interpreter() {
    // An `if` leaves lanes out of full chunks: the accesses under it test
    // their mask; those outside it do not.
    let src = "kernel void k(global float* out, global const float* a) {
    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    float x = a[k];
    if ((get_global_id(0) & 3) != 1)
        out[k] = x + 1.0f;
    if (get_global_id(0) % 5 == 2)
        out[k] = a[k + 1];
}";
    agree(src, &[], |r| {
        let n = elems(r);
        vec![Spec::Floats(n, 0), Spec::Floats(n, 6)]
    });
}

#[test]
fn chunks_in_flight_in_full_rows_match_the_interpreter() {
    // A loop bound by latency (chunks in flight, each with its own
    // trips), indexed by a row offset.
    let looped = "kernel void k(global float* out, global const float* a, int n) {
    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    float acc = a[k];
    for (int j = 0; j < ((int)get_global_id(0) & 7) + n; j++)
        acc = acc * 0.5f + (float)j;
    out[k] = acc;
}";
    agree(looped, &["chunks in flight"], |r| {
        let n = elems(r);
        vec![Spec::Floats(n, 0), Spec::Floats(n, 7), Spec::Int(3)]
    });
    // A long loop-free body: chunks alternating operation by operation
    // (square roots and quotients, rounded once in every code, summed).
    let terms: String = (0..16)
        .map(|t| format!("    s += sqrt(y + {t}.0f) / (y + {}.0f);\n", 2 * t + 3))
        .collect();
    let long = format!(
        "kernel void k(global float* out, global const float* a) {{
    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    float x = a[k];
    float y = x * x + 1.0f;
    float s = 0.0f;
{terms}    out[k] = s;
}}"
    );
    let m = build(&long, "");
    let k = compile_kernel(&m, "k", &options()).expect("compiles");
    if cpu_has_wide() {
        let line = code_line(&k);
        assert!(line.contains("chunks in flight"), "{line}");
    }
    let shapes = shapes();
    assert_eq!(
        compare_launches(&m, "k", &k, &shapes, |r| {
            let n = elems(r);
            vec![Spec::Floats(n, 0), Spec::Floats(n, 8)]
        }),
        shapes.len()
    );
}

#[test]
fn constants_added_to_a_row_offset_are_displacements_and_match_the_interpreter() {
    // PolyBench's 2-D convolution: nine reads at one, the row's width and
    // one, from the rows above and below, under a guard that keeps the
    // border out; each row's three reads share a slot, `j - 1` and `j + 1`
    // its displacements.
    let guarded = "kernel void k(global const float* A, global float* B, int ni, int nj) {
    int j = get_global_id(0), i = get_global_id(1);
    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1)
        B[i * nj + j] = 0.2f * A[(i - 1) * nj + j - 1] + 0.5f * A[(i - 1) * nj + j]
            - 0.8f * A[(i - 1) * nj + j + 1] - 0.3f * A[i * nj + j - 1] + 0.6f * A[i * nj + j]
            - 0.9f * A[i * nj + j + 1] + 0.4f * A[(i + 1) * nj + j - 1]
            + 0.7f * A[(i + 1) * nj + j] + 0.1f * A[(i + 1) * nj + j + 1];
}";
    let end = |r: &NdRange, d: usize| (r.global_offset[d] + r.global_size[d]) as i32;
    agree(guarded, &["3 row offsets addressed"], |r| {
        let n = (end(r, 0) * end(r, 1)) as usize;
        vec![
            Spec::Floats(n, 9),
            Spec::Floats(n, 0),
            Spec::Int(end(r, 1)),
            Spec::Int(end(r, 0)),
        ]
    });
    // Without a guard, displacements from -3 to +5 elements and one of a
    // whole row, the row's value first or last in the sum: every index
    // stays inside the buffer, 40 elements of margin on each side.
    let open = "kernel void k(global const float* a, global float* out, int w) {
    int r = get_global_id(1) + 1;
    int x = get_global_id(0) + 40;
    int k = r * w + x;
    out[k] = a[r * w + x - 3] + 2.0f * a[x + r * w + 5] - a[k + w] + a[k - 1] * a[k];
}";
    agree(open, &["2 row offsets addressed"], |r| {
        let w = end(r, 0) + 80;
        let n = (w * (end(r, 1) + 3)) as usize;
        vec![Spec::Floats(n, 10), Spec::Floats(n, 0), Spec::Int(w)]
    });
}

#[test]
fn row_values_subtracted_from_a_row_offset_match_the_interpreter() {
    // FDTD's `hx[k - nx]` and `hy[k - 1]`: a parameter subtracted from the
    // id's sum is a term of its own slot (subtracted from the row's
    // value), a constant a displacement; and a slot of subtracted terms
    // only (`x - w - h`, from zero).
    // (The new field goes to a buffer of its own: the 3-D launches run
    // each item of a plane once per plane.)
    let src = "kernel void k(global float* out, global const float* hx, global const float* hy,
                  int nx, int ny) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i < 1 || j < 1) return;
    int k = j * nx + i;
    out[k] = hx[k] + 0.5f * ((hy[k] - hy[k - 1]) - (hx[k] - hx[k - nx]));
}";
    let end = |r: &NdRange, d: usize| (r.global_offset[d] + r.global_size[d]) as i32;
    agree(src, &["2 row offsets addressed"], |r| {
        let n = (end(r, 0) * end(r, 1)) as usize;
        vec![
            Spec::Floats(n, 0),
            Spec::Floats(n, 2),
            Spec::Floats(n, 3),
            Spec::Int(end(r, 0)),
            Spec::Int(end(r, 1)),
        ]
    });
    let neg = "kernel void k(global const float* a, global float* out, int w, int h) {
    int x = get_global_id(0) + 2 * w + 2 * h + 8;
    out[x] = a[x - w - h] + a[x - w + 3] * a[x - 8 - h];
}";
    agree(neg, &["row offsets addressed"], |r| {
        let n = end(r, 0) as usize + 2 * 40 + 2 * 24 + 16;
        vec![
            Spec::Floats(n, 4),
            Spec::Floats(n, 0),
            Spec::Int(40),
            Spec::Int(24),
        ]
    });
}

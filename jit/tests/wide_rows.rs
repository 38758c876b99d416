//! Rows of a group in flight in the wide code's barrier regions
//! (`vecl_jit::wide::rows`) against the interpreter at W = 16: a tile
//! loop whose `__local` reads are the row's own (`t[ly][k]`) and the same
//! in every row (`u[k][lx]`, loaded once for the rows), over groups
//! of 16 x 16, 8 x 8, 16 x 4, 16 x 6 and 16 x 3 (rows left over after the
//! fours, or only such rows), 16 x 12, 16 x 13 and 16 x 20 (eights, then a
//! four, then one), 32 x 2 (rows of two chunks: one at a time),
//! partial last groups and offsets; loops whose trips differ by row or by
//! lane, a guard that leaves lanes out, and indices that differ by row
//! where a shared load must not apply (`u[(k + ly) & 15][lx]`).

use vecl_ir::interp::NdRange;
use vecl_jit::compile_kernel;
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::range_2d;
use vecl_testkit::wide_options;
use vecl_testkit::{code_line, cpu_has_wide};

/// A tile loop of the bench's matmul shape over a `w`-wide matrix (`w` a
/// multiple of the group's width `LX`, groups at most `LY` high): each
/// tile staged in `t` (a row per row of the group) and `u` (all `LY`
/// rows: a partial group's rows, at least half of `LY`, stage two)
/// behind a barrier,
/// then `acc += OWN * SHARED` for `TRIPS` trips of `k`.
const TILES: &str = r#"
#ifndef LX
#define LX 16
#endif
#ifndef LY
#define LY 16
#endif
#ifndef OWN
#define OWN t[ly][k]
#endif
#ifndef SHARED
#define SHARED u[k][lx]
#endif
#ifndef TRIPS
#define TRIPS LY
#endif
#ifndef GUARD
#define GUARD 1
#endif
#ifndef TW
#define TW LX
#endif
#ifndef ROW
#define ROW ly
#endif
#ifndef ROWFIX
#define ROWFIX
#endif
kernel void tiles(global const float* a, global const float* b, global float* c, int w) {
    local float t[LY][TW];
    local float u[LY][LX];
    int x = get_global_id(0);
    int y = get_global_id(1);
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int sx = get_local_size(0);
    int sy = get_local_size(1);
    int x0 = get_global_offset(0);
    int r = ROW;
    ROWFIX
    float acc = 0.0f;
    for (int base = 0; base < w; base += sx) {
        t[ly][lx] = a[y * w + base + lx];
        u[ly][lx] = b[y * w + base + lx] + (float)ly;
        if (ly + sy < LY) {
            u[ly + sy][lx] = b[(y + sy) * w + base + lx] + (float)(ly + sy);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TRIPS; k++) {
            if (GUARD) {
                acc += OWN * SHARED;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[y * w + (x - x0)] = acc;
}
"#;

/// `TILES` built with `defines` against the interpreter over `ranges`
/// (their global widths a multiple of the groups'); returns the `code:`
/// line.
fn tiles_agree(defines: &str, ranges: &[NdRange]) -> String {
    let m = build(TILES, defines);
    let k = compile_kernel(&m, "tiles", &wide_options()).expect("compiles");
    let line = code_line(&k);
    let got = compare_launches(&m, "tiles", &k, ranges, |r| {
        let w = r.global_size[0] as usize;
        let h = (r.global_offset[1] + r.global_size[1]) as usize;
        let tall = h + r.local_size[1] as usize + 16;
        vec![
            Spec::Floats(w * h, 1),
            Spec::Floats(w * tall, 2),
            Spec::Floats(w * h, 0),
            Spec::Int(w as i32),
        ]
    });
    assert_eq!(got, ranges.len(), "{defines}");
    line
}

/// Asserts that the kernel got the wide code with rows in flight (on a
/// CPU with AVX-512) and shares `shared` loads.
fn in_rows(line: &str, shared: usize) {
    if cpu_has_wide() {
        assert!(
            line.starts_with("code: wide AVX-512") && line.contains(" rows in flight in "),
            "{line}"
        );
        assert!(
            line.contains(&format!("{shared} loads shared by the rows")),
            "{line}"
        );
    }
}

#[test]
fn tiles_of_16_by_16_and_8_by_8_agree_and_share_the_row_free_load() {
    let line = tiles_agree(
        "",
        &[
            range_2d([32, 32], [16, 16], [0, 0]),
            range_2d([48, 16], [16, 16], [16, 0]),
        ],
    );
    // `u[k][lx]`: one load for the four rows.
    assert!(
        !cpu_has_wide() || !line.contains(" 0 loads shared"),
        "{line}"
    );
    in_rows(&line, shared_loads(&line));
    tiles_agree(
        "-DLX=8 -DLY=8",
        &[
            range_2d([16, 24], [8, 8], [0, 0]),
            range_2d([8, 8], [8, 8], [0, 3]),
        ],
    );
}

/// The number before "loads shared by the rows" in `line` (0 without).
fn shared_loads(line: &str) -> usize {
    line.split("; ")
        .find_map(|part| {
            let at = part.find(" loads shared by the rows")?;
            part[..at].rsplit(' ').next()?.parse().ok()
        })
        .unwrap_or(0)
}

#[test]
fn groups_of_16_by_4_6_and_3_rows_and_partial_last_groups_agree() {
    // 16 x 4: one set of four rows; 16 x 6: four, then two left over; a
    // last group of 4 rows (22 = 6 + 6 + 6 + 4); 16 x 3: only rows left
    // over.
    let line = tiles_agree("-DLY=4", &[range_2d([32, 12], [16, 4], [0, 0])]);
    in_rows(&line, shared_loads(&line));
    assert!(!cpu_has_wide() || shared_loads(&line) > 0, "{line}");
    let line = tiles_agree("-DLY=6", &[range_2d([32, 22], [16, 6], [0, 0])]);
    in_rows(&line, shared_loads(&line));
    tiles_agree("-DLY=3", &[range_2d([16, 9], [16, 3], [0, 2])]);
}

#[test]
fn eight_rows_then_four_then_one_at_a_time_agree() {
    // The loop's region runs eight rows in flight, the rows a group has
    // left four at a time, then one at a time: 16 x 16 (eight twice),
    // 16 x 12 (eight, four), 16 x 13 (eight, four, one), 16 x 20 (eight
    // twice, four), 16 x 8 with a last group of 5 rows (four, one) and 16
    // x 4 (four only), with offsets.
    for (ly, ranges) in [
        (16, vec![range_2d([32, 32], [16, 16], [0, 0])]),
        (12, vec![range_2d([32, 24], [16, 12], [16, 0])]),
        (13, vec![range_2d([16, 26], [16, 13], [0, 3])]),
        (20, vec![range_2d([32, 40], [16, 20], [0, 0])]),
        (8, vec![range_2d([32, 21], [16, 8], [0, 0])]),
        (4, vec![range_2d([16, 12], [16, 4], [0, 1])]),
    ] {
        // Trips of `k` within both tiles (20 rows, 16 columns).
        let (most, shape) = (ly.min(16), format!("-DLY={ly}"));
        let line = tiles_agree(&format!("{shape} -DTRIPS={most}"), &ranges);
        in_rows(&line, shared_loads(&line));
        // (Eight trips or fewer the middle passes unroll whole: no loop.)
        assert!(
            !cpu_has_wide()
                || ly <= 8
                || line.contains(
                    "8 rows in flight in 1 of 4 regions when a group's rows are one chunk each (then 4 at a time for the rows left)"
                ),
            "{line}"
        );
        // Trips that differ by lane and an odd count, at eight rows.
        tiles_agree(&format!("{shape} -DTRIPS=({most}-lx%5)"), &ranges);
        tiles_agree(&format!("{shape} -DTRIPS={}", most / 2 * 2 - 1), &ranges);
    }
}

#[test]
fn rows_of_two_chunks_run_one_chunk_at_a_time_and_agree() {
    // 32 x 2: each row is two chunks; the rows' code is not used.
    tiles_agree(
        "-DLX=32 -DLY=2",
        &[
            range_2d([64, 4], [32, 2], [0, 0]),
            range_2d([32, 6], [32, 2], [0, 0]),
        ],
    );
}

#[test]
fn loops_whose_trips_differ_by_row_or_by_lane_agree() {
    // Groups of 16 x 16, and of 16 x 8 with a last group of 6 rows.
    for (ly, ranges) in [
        ("-DLY=16", [range_2d([32, 32], [16, 16], [0, 0])]),
        ("-DLY=8", [range_2d([32, 22], [16, 8], [0, 0])]),
    ] {
        // Trips that differ by row: the loop's masks are each row's own,
        // and so is `k`, and the load that depends on it. (Its masks
        // times the rows spill: the loop keeps one row, and the kernel
        // Cranelift's code.)
        tiles_agree(&format!("{ly} -DTRIPS=(LY-ly%3)"), &ranges);
        // Trips that differ by lane, alike in every row: shared masks.
        let line = tiles_agree(&format!("{ly} -DTRIPS=(LY-lx%5)"), &ranges);
        in_rows(&line, shared_loads(&line));
        assert!(!cpu_has_wide() || shared_loads(&line) > 0, "{line}");
        // A guard that leaves lanes out of the update, alike in every
        // row or each row's own.
        let line = tiles_agree(&format!("{ly} -DGUARD=(lx%3!=1)"), &ranges);
        in_rows(&line, shared_loads(&line));
        let line = tiles_agree(&format!("{ly} -DGUARD=(lx>ly)"), &ranges);
        in_rows(&line, 0);
    }
}

#[test]
fn local_indices_that_differ_by_row_are_not_shared() {
    // The same form as the shared load but for the row's id in it: every
    // row loads its own (groups of 16 x 16 and 8 x 8).
    for (shape, mask, ranges) in [
        ("", 15, range_2d([32, 32], [16, 16], [0, 0])),
        ("-DLX=8 -DLY=8", 7, range_2d([16, 16], [8, 8], [0, 0])),
    ] {
        let line = tiles_agree(&format!("{shape} -DSHARED=u[(k+ly)&{mask}][lx]"), &[ranges]);
        in_rows(&line, 0);
        // The row's id in the column, and the global id of dimension 1
        // (saved across the barrier from the first region).
        let line = tiles_agree(&format!("{shape} -DSHARED=u[k][(lx+ly)&{mask}]"), &[ranges]);
        in_rows(&line, 0);
        let line = tiles_agree(&format!("{shape} -DSHARED=u[k][(lx+y)&{mask}]"), &[ranges]);
        in_rows(&line, 0);
    }
}

#[test]
fn rows_of_fewer_lanes_than_a_chunk_and_row_uniform_global_loads_agree() {
    // Groups 12 and 4 wide (and as high): every chunk of a row is its tail (12 or 4
    // running lanes), so the loads without a mask test
    // (`access::suppressed_load`) read under a partial mask, and the
    // last trip of `k` under an empty one.
    let line = tiles_agree(
        "-DLX=12 -DLY=12",
        &[
            range_2d([24, 36], [12, 12], [0, 0]),
            range_2d([36, 12], [12, 12], [12, 0]),
        ],
    );
    in_rows(&line, shared_loads(&line));
    tiles_agree("-DLX=4 -DLY=4", &[range_2d([12, 24], [4, 4], [0, 0])]);
    // A load of one `__global` address per row, not per group (`y` is the
    // row's own): uniform in a chunk, not across the rows in flight.
    for ranges in [
        [range_2d([32, 32], [16, 16], [0, 0])],
        [range_2d([24, 24], [12, 12], [0, 0])],
    ] {
        let (lx, ly) = (ranges[0].local_size[0], ranges[0].local_size[1]);
        let line = tiles_agree(
            &format!("-DLX={lx} -DLY={ly} -DOWN=(a[y*w+k]+t[ly][k])"),
            &ranges,
        );
        in_rows(&line, shared_loads(&line));
    }
}

/// A loop whose variables are written before they are read in each trip
/// (no loop parameter for the allocator, `ra2::read_before_written`),
/// read before written, merged under a branch, first written inside an
/// inner loop, and read after the loop, at trips alike in every lane and
/// different by lane.
const CARRIED: &str = r#"
kernel void carried(global const float* a, global float* c, int n) {
    int i = get_global_id(0);
    float x = a[i];
    float acc = 0.0f, last = -1.0f, kept = 0.5f, inner = 2.0f;
    for (int k = 0; k < n; k++) {
        last = x * (float)k;
        acc += last;
        if (x > (float)k) {
            kept = last + kept;
        }
        for (int j = 0; j < (k & 3); j++) {
            inner = x + (float)j;
            acc = fma(inner, 0.25f, acc);
        }
    }
    for (int k = 0; k < (i & 7); k++) {
        float t = x + (float)k;
        last = t * 0.5f;
        acc = fma(t, last, acc);
    }
    c[i] = acc + last * 3.0f + kept * 5.0f + inner * 7.0f;
}
"#;

#[test]
fn loop_variables_written_before_read_agree() {
    let m = build(CARRIED, "");
    let k = compile_kernel(&m, "carried", &wide_options()).expect("compiles");
    let line = code_line(&k);
    assert!(
        !cpu_has_wide() || line.starts_with("code: wide AVX-512"),
        "{line}"
    );
    let ranges: Vec<NdRange> = [7u64, 20, 37, 64, 100]
        .iter()
        .map(|&n| NdRange {
            work_dim: 1,
            global_offset: [0, 0, 0],
            global_size: [n, 1, 1],
            local_size: [n.min(20), 1, 1],
        })
        .collect();
    for n in [0, 1, 5, 9] {
        let got = compare_launches(&m, "carried", &k, &ranges, |r| {
            let len = r.global_size[0] as usize;
            vec![Spec::Floats(len, 3), Spec::Floats(len, 0), Spec::Int(n)]
        });
        assert_eq!(got, ranges.len());
    }
}

#[test]
fn tile_loops_of_0_1_and_odd_trips_agree() {
    // The `k` loop's test runs at the bottom (`lower::rotated_head`):
    // no trip at all (its one trip with no lane), one, an odd count (the
    // middle passes' unrolling by two leaves a half trip), and trips
    // that differ by lane; the accumulator merged under the loop's mask
    // (`lower::merge_masked_fma_chains`).
    for trips in ["0", "1", "(LY-1)", "(LY-lx%5)", "(ly&1)"] {
        for (shape, ranges) in [
            ("", range_2d([32, 32], [16, 16], [0, 0])),
            ("-DLX=8 -DLY=8", range_2d([16, 24], [8, 8], [0, 0])),
            ("-DLY=4", range_2d([32, 12], [16, 4], [0, 0])),
            ("-DLX=32 -DLY=2", range_2d([64, 4], [32, 2], [0, 0])),
            ("-DLX=12 -DLY=12", range_2d([24, 36], [12, 12], [0, 0])),
        ] {
            tiles_agree(&format!("{shape} -DTRIPS={trips}"), &[ranges]);
        }
    }
}

/// Loops whose test at the top runs at the bottom (`lower::rotated_head`)
/// and loops where it must not: a test whose value the trip reads, a test
/// in the middle of the trip, a test of a variable the trip writes before
/// `continuing`, a `continue`, nested loops; and FMA chains into a
/// variable that is read between the links (no merge).
const HEADS: &str = r#"
kernel void heads(global const float* a, global float* c, int n) {
    int i = get_global_id(0);
    float x = a[i];
    float acc = 0.0f, other = 1.0f;
    for (int k = 0; k < n; k++) {
        acc = fma(x, (float)k, acc);
        acc = fma(x, 0.25f, acc);
    }
    for (int k = 0; k < (i & 7); k++) {
        acc = fma(x, 0.5f, acc);
        other = acc;
        acc = fma(other, 0.125f, acc);
    }
    for (int j = 0; ; j++) {
        int q = j * 3;
        if (q >= n + (i & 3)) break;
        acc += (float)q;
    }
    int m = 0;
    while (1) {
        acc += x;
        m++;
        if (m >= n) break;
    }
    float s = x;
    while (s < 100.0f) {
        s = fabs(s) * 2.0f + 1.0f;
        acc += s;
    }
    for (int k = 0; k < n; k++) {
        if ((k ^ i) & 1) continue;
        for (int j = k; j < n; j += 2) {
            acc = fma(x, (float)j, acc);
        }
    }
    c[i] = acc + other;
}
"#;

#[test]
fn loops_tested_at_the_bottom_agree_at_0_1_and_odd_trips() {
    // (Under robust access: `wide_memory.rs`.)
    let m = build(HEADS, "");
    let k = compile_kernel(&m, "heads", &wide_options()).expect("compiles");
    let line = code_line(&k);
    assert!(
        !cpu_has_wide() || line.starts_with("code: wide AVX-512"),
        "{line}"
    );
    let ranges: Vec<NdRange> = [7u64, 20, 37, 64]
        .iter()
        .map(|&n| NdRange {
            work_dim: 1,
            global_offset: [0, 0, 0],
            global_size: [n, 1, 1],
            local_size: [n.min(16), 1, 1],
        })
        .collect();
    for n in [0, 1, 2, 5, 9] {
        let got = compare_launches(&m, "heads", &k, &ranges, |r| {
            let len = r.global_size[0] as usize;
            vec![Spec::Floats(len, 3), Spec::Floats(len, 0), Spec::Int(n)]
        });
        assert_eq!(got, ranges.len(), "n = {n}");
    }
}

/// The number before "loads fused into FMAs" in `line` (0 without).
fn fused_loads(line: &str) -> usize {
    line.split("; ")
        .find_map(|part| {
            let at = part.find(" loads fused into FMAs")?;
            part[..at].rsplit(' ').next()?.parse().ok()
        })
        .unwrap_or(0)
}

#[test]
fn row_loads_fused_into_their_fmas_agree_and_where_they_must_not_be() {
    // `t[ly][k]` (a load of a sum, `lower::split_uniform_indices`) as the
    // merged FMA's broadcast operand (`lower::fuse_sum_loads`): either
    // factor, every group shape the rows run, trips of 0, 1, odd and by
    // lane (the last trip's empty mask: the broadcast reads nothing).
    // (The loop of `LY` trips at 8 x 8 and 32 x 2 is unrolled whole by
    // the middle passes: no loop, no load of a sum, nothing fused.)
    let shapes = [
        ("", range_2d([32, 32], [16, 16], [0, 0]), true),
        ("-DLY=12", range_2d([32, 24], [16, 12], [0, 0]), true),
        ("-DLY=13", range_2d([32, 26], [16, 13], [16, 0]), true),
        ("-DLX=8 -DLY=8", range_2d([16, 24], [8, 8], [0, 0]), false),
        (
            "-DLX=12 -DLY=12",
            range_2d([24, 36], [12, 12], [0, 0]),
            true,
        ),
        ("-DLX=32 -DLY=2", range_2d([64, 4], [32, 2], [0, 0]), false),
    ];
    for (shape, ranges, looped) in shapes {
        // (No loop is left at 0 or 1 trips: nothing to fuse.)
        for (extra, fuses) in [
            ("", true),
            ("-DOWN=u[k][lx] -DSHARED=t[ly][k]", true),
            ("-DSHARED=2.5f", true),
            ("-DTRIPS=0", false),
            ("-DTRIPS=1", false),
            ("-DTRIPS=(LY-1)", true),
            // Lanes that leave the loop apart: not a load under uniform
            // control, so no load of a sum.
            ("-DTRIPS=(LY-lx%5)", false),
        ] {
            let line = tiles_agree(&format!("{shape} {extra}"), &[ranges]);
            assert!(
                !(cpu_has_wide() && fuses && looped) || fused_loads(&line) > 0,
                "{shape} {extra}: {line}"
            );
        }
        // Where the load must stay a load: a store between it and the FMA
        // (the element is read at the FMA's place; any store stops the
        // fusion), under a guard that narrows the lanes; and where two
        // loads of the element (no common load: one fused, one read by
        // an add) or two row elements as factors (one fused) stay right.
        for (extra, fused) in [
            ("-DSHARED=(c[y*w+(x-x0)]=u[k][lx])", Some(0)),
            ("-DGUARD=(lx>ly)", Some(0)),
            ("-DSHARED=(u[k][lx]+t[ly][k]*0.5f)", None),
            ("-DSHARED=t[ly][(k+1)&(LX-1)]", None),
        ] {
            let line = tiles_agree(&format!("{shape} {extra}"), &[ranges]);
            if let (true, Some(n)) = (cpu_has_wide(), fused) {
                if line.starts_with("code: wide AVX-512") {
                    assert_eq!(fused_loads(&line), n, "{shape} {extra}: {line}");
                }
            }
        }
    }
}

fn displaced_loads(line: &str) -> usize {
    line.split("; ")
        .find_map(|part| {
            let at = part.find(" later rows' loads at a displacement")?;
            part[..at].rsplit(' ').next()?.parse().ok()
        })
        .unwrap_or(0)
}

#[test]
fn later_rows_read_their_elements_at_a_displacement_where_the_step_is_known() {
    // `t[ly][k]` of the rows in flight: the part `ly * TW` (saved across
    // the barrier in `ly`, one more per row) is the first row's plus
    // `TW` elements a row, so a later row reads at a displacement from
    // the first row's address (`rows::affine_parts`). Rows of `LX`,
    // `LX + 1` (odd) and `LX + 8` elements, a negative step, a step through a variable
    // saved across the barrier, every group shape the rows run, trips by
    // lane and odd.
    let shapes = [
        ("", range_2d([32, 32], [16, 16], [0, 0]), true),
        ("-DLY=13", range_2d([32, 26], [16, 13], [16, 0]), true),
        // (Four trips of `k` are unrolled whole: no loop, no load of a
        // sum, whatever the rows.)
        ("-DLY=4", range_2d([32, 8], [16, 4], [0, 0]), false),
        // (Trips known at compile time are unrolled whole at 8 x 8.)
        (
            "-DLX=8 -DLY=8 -DTRIPS=(w/4)",
            range_2d([16, 24], [8, 8], [0, 0]),
            true,
        ),
        (
            "-DLX=12 -DLY=12",
            range_2d([24, 36], [12, 12], [0, 4]),
            true,
        ),
        // Rows of two chunks: one row at a time, nothing displaced.
        ("-DLX=32 -DLY=2", range_2d([64, 4], [32, 2], [0, 0]), false),
    ];
    for (shape, ranges, rows) in shapes {
        for extra in [
            "",
            "-DTW=(LX+1)",
            "-DTW=(LX+8) -DGUARD=(k!=LY-2)",
            "-DOWN=t[LY-1-ly][k]",
            "-DROW=(LY-1-ly) -DOWN=t[r][k]",
            "-DROW=(ly+y-get_global_id(1)) -DOWN=t[r][k]",
            "-DOWN=t[ly][k] -DSHARED=2.5f",
        ] {
            let line = tiles_agree(&format!("{shape} {extra}"), &[ranges]);
            if cpu_has_wide() && line.starts_with("code: wide AVX-512") {
                let n = displaced_loads(&line);
                assert!(!rows || n > 0, "{shape} {extra}: {line}");
                assert!(
                    rows || n == 0 || shape == "-DLY=4",
                    "{shape} {extra}: {line}"
                );
            }
        }
        // Where the step is not a constant known at compile time, or the
        // part is not a constant step from row to row, or the row's
        // variable is written where not every row writes it: each row
        // keeps its own address.
        for extra in [
            "-DROW=(ly*(w/w)) -DOWN=t[r][k]",
            "-DOWN=t[(ly*ly)%LY][k]",
            "-DOWN=t[ly/2][k]",
            "-DOWN=t[(ly^1)%LY][k]",
            "-DROWFIX=if(w<0)r=0; -DOWN=t[r][k]",
            "-DROWFIX=if(x<0)r=0; -DOWN=t[r][k]",
            "-DROW=(ly+(int)a[0]) -DOWN=t[r&(LY-1)][k]",
        ] {
            let line = tiles_agree(&format!("{shape} {extra}"), &[ranges]);
            if cpu_has_wide() {
                assert_eq!(displaced_loads(&line), 0, "{shape} {extra}: {line}");
            }
        }
    }
}

//! Full chunks of a row in flight in the wide code's barrier regions
//! (`vecl_jit::wide::rows`, `Along::Chunks`) against the interpreter at
//! W = 16: nbody's shape (a tile of `float4` staged in `__local` memory,
//! a `j` loop over it between two barriers) over groups of 16, 32, 48,
//! 64, 80 and 256 work-items and groups whose rows end in a partial chunk
//! (40, 56), with offsets; tiles of 1, 16, 17 and 256 trips; trips that
//! differ by lane, a `break`, loops under an `if`, a loop whose bound is
//! each chunk's own; two-dimensional groups whose
//! rows are wider than a chunk. (Under robust access, against Cranelift's
//! reports: `wide_memory.rs`.)

use vecl_ir::interp::NdRange;
use vecl_jit::{compile_kernel, JitOptions, Tiers};
use vecl_testkit::differential::{build, compare_launches, Spec};
use vecl_testkit::range_1d;
use vecl_testkit::{code_line, cpu_has_wide};

fn options() -> JitOptions {
    JitOptions {
        simd_width: Some(16),
        wide: true,
        tiers: Tiers::OptimisedOnly,
        passes: vecl_testkit::test_passes(),
        ..JitOptions::default()
    }
}

/// nbody's loop with its shape in macros: `TRIPS` trips of `j` over the
/// tile (at most the group's size), `GUARD` around the update, `STOP` a
/// `break`, `OUTER` around the whole loop.
const TILES: &str = r#"
#ifndef TRIPS
#define TRIPS size
#endif
#ifndef GUARD
#define GUARD 1
#endif
#ifndef STOP
#define STOP 0
#endif
#ifndef OUTER
#define OUTER 1
#endif
kernel void k(global const float4* pos, global float4* out, local float4* tile, int n, float eps2) {
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    float4 p = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (int base = 0; base < n; base += size) {
        tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (OUTER) {
            for (int j = 0; j < TRIPS; j++) {
                float4 q = tile[j];
                float3 d = q.xyz - p.xyz;
                float r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
                if (STOP) break;
                float inv = 1.0f / sqrt(r2);
                float s = q.w * inv * inv * inv;
                if (GUARD) acc += d * s;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = (float4)(acc, (float)lid);
}
"#;

/// `TILES` with `defines` against the interpreter over one-dimensional
/// launches of `n` work-items in groups of each of `locals` (and one with
/// an offset); returns the `code:` line.
fn tiles_agree(defines: &str, n: u64, locals: &[u64]) -> String {
    let m = build(TILES, defines);
    let k = compile_kernel(&m, "k", &options()).expect("compiles");
    let line = code_line(&k);
    if cpu_has_wide() {
        assert!(line.starts_with("code: wide AVX-512"), "{defines}: {line}");
    }
    let mut ranges: Vec<NdRange> = locals.iter().map(|&l| range_1d(0, n, l)).collect();
    ranges.push(range_1d(5, n, locals[0]));
    let got = compare_launches(&m, "k", &k, &ranges, |r| {
        let end = (r.global_offset[0] + r.global_size[0]) as usize;
        vec![
            Spec::Floats(4 * end, 1),
            Spec::Floats(4 * end, 0),
            Spec::Local(16 * r.local_size[0] as usize),
            Spec::Int(r.global_size[0] as i32),
            Spec::Float(0.01),
        ]
    });
    assert_eq!(got, ranges.len(), "{defines}");
    line
}

/// The count of chunks the `j` loop's region runs in flight (0 for none)
/// and the loads they share.
fn in_chunks(line: &str) -> (u32, usize) {
    line.split("; ")
        .find_map(|part| {
            if !part.contains(" full chunks of a row in flight") {
                return None;
            }
            let chunks = part.split(' ').next()?.parse().ok()?;
            let (_, shared) = part.split_once("sharing ")?;
            Some((chunks, shared.split(' ').next()?.parse().ok()?))
        })
        .unwrap_or((0, 0))
}

#[test]
fn nbodys_loop_runs_chunks_in_flight_over_groups_of_every_width() {
    // Groups of 16 (one chunk a row: none in flight), 32 (two), 48 (three),
    // 64 (three, then one), 80 (three, then two), 256; 40 and 56 end in a
    // partial chunk, which runs alone after the full ones.
    let line = tiles_agree("", 480, &[16, 32, 48, 40, 80, 96, 160]);
    let line_256 = tiles_agree("", 512, &[256, 64, 128]);
    tiles_agree("", 448, &[56, 64]);
    assert_eq!(in_chunks(&line), in_chunks(&line_256));
    if cpu_has_wide() {
        let (chunks, shared) = in_chunks(&line);
        assert!(chunks >= 2, "{line}");
        // `tile[j]`'s four components, loaded once for the chunks.
        assert!(shared >= 4, "{line}");
    }
}

#[test]
fn tiles_of_1_16_and_17_trips_agree() {
    for trips in [1, 16, 17] {
        let defines = format!("-DTRIPS=min(size,{trips})");
        tiles_agree(&defines, 480, &[32, 48, 40, 96]);
        tiles_agree(&defines, 512, &[256]);
    }
}

#[test]
fn loops_whose_trips_differ_by_lane_or_that_break_agree() {
    // Trips that differ by lane: the loop's masks, `j` and the loads are
    // each chunk's own.
    let line = tiles_agree("-DTRIPS=(size-lid%5)", 480, &[32, 48, 40, 96]);
    if cpu_has_wide() {
        assert_eq!(in_chunks(&line).1, 0, "{line}");
    }
    // A bound that differs by chunk (each chunk's first local id).
    tiles_agree("-DTRIPS=(size-lid/16)", 480, &[32, 48, 40, 96]);
    // A `break` some lanes take, and one every lane of a chunk takes.
    tiles_agree("-DSTOP=(r2>q.w*40.0f)", 480, &[32, 48, 40, 96]);
    tiles_agree("-DSTOP=(j>lid/16+3)", 480, &[32, 48, 40, 96]);
    // A guard that leaves lanes out of the update.
    tiles_agree("-DGUARD=(lid%3!=1)", 480, &[32, 48, 96]);
}

#[test]
fn loops_under_an_if_agree() {
    // Under an `if` that differs by lane (masked, every chunk its own
    // loop masks: nothing shared), and under one alike in every lane.
    let line = tiles_agree("-DOUTER=(lid%2==0)", 480, &[32, 48, 40, 96]);
    assert_eq!(in_chunks(&line).1, 0, "{line}");
    tiles_agree("-DOUTER=(n>0)", 480, &[32, 48, 96]);
    tiles_agree("-DOUTER=(n>1000)", 480, &[32, 48]);
}

/// A tile loop of two-dimensional groups whose rows are wider than a
/// chunk: a row's chunks share `u[k]`, each row its own `t[ly][k]`.
const TWO_D: &str = r#"
kernel void k(global const float* a, global float* c, int w) {
    local float t[4][64];
    local float u[64];
    int x = get_global_id(0);
    int y = get_global_id(1);
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int sx = get_local_size(0);
    float acc = 0.0f;
    for (int base = 0; base < w; base += sx) {
        t[ly][lx] = a[y * w + base + lx];
        if (ly == 0) u[lx] = a[base + lx] * 0.5f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < sx; k++) {
            acc += t[ly][k] * u[k] + (float)ly;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[y * w + x] = acc;
}
"#;

#[test]
fn two_dimensional_groups_with_rows_wider_than_a_chunk_agree() {
    let m = build(TWO_D, "");
    let k = compile_kernel(&m, "k", &options()).expect("compiles");
    let line = code_line(&k);
    let r = |global: [u64; 2], local: [u64; 2]| NdRange {
        work_dim: 2,
        global_offset: [0, 0, 0],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    };
    // Rows of two, three, four chunks and of two and a partial one.
    let ranges = [
        r([64, 4], [32, 2]),
        r([96, 6], [48, 3]),
        r([64, 8], [64, 4]),
        r([120, 3], [40, 1]),
    ];
    let got = compare_launches(&m, "k", &k, &ranges, |r| {
        let w = r.global_size[0] as usize;
        let h = r.global_size[1] as usize;
        vec![
            Spec::Floats(w * h, 1),
            Spec::Floats(w * h, 0),
            Spec::Int(w as i32),
        ]
    });
    assert_eq!(got, ranges.len(), "{line}");
}

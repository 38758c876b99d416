//! Later rows in flight whose access indices are the previous row's plus
//! a step (`vecl_jit::wide::rows`, `shifted_row_indices`), and rows that
//! test one barrier successor for all of them (`one_successor`), against
//! the interpreter at W = 16: a staging region of the bench's matmul
//! shape whose `__global` loads step by a parameter (`y * s`, several
//! strides and signs, through a difference, a product by a constant, a
//! part that wraps 32 bits), whose `__local` stores step by a constant
//! (rows of `LX`, `LX + 1`, `LX + 8` elements, a negative step), over
//! groups of 16 x 16, 8 x 8, 12 x 12 (partial chunks), 16 x 4, 16 x 13
//! (eights, a four, a one), 32 x 2 (rows of two chunks: one at a time)
//! and partial last groups; and where no step applies (a part that is
//! not a constant step from row to row, a step written per row, 64-bit
//! parts).

use vecl_ir::interp::NdRange;
use vecl_jit::abi::{take_barrier_divergence, KernelStatus};
use vecl_jit::compile_kernel;
use vecl_testkit::differential::{build, compare_launches, interp_args_for, run_jit, Spec};
use vecl_testkit::range_2d;
use vecl_testkit::wide_options;
use vecl_testkit::{code_line, cpu_has_wide};

/// A tile loop whose staging region loads `a[AIDX]` into `t[TROW * TW +
/// lx]` and `b[BIDX]` into `u[ly][lx]`, then `acc += t[TROW * TW + k] *
/// u[k][lx]` for `TRIPS` trips, and stores `c[y * w + x]`; `s` and `o`
/// are the stride and offset of `a`'s rows.
const STAGE: &str = r#"
#ifndef LX
#define LX 16
#endif
#ifndef LY
#define LY 16
#endif
#ifndef TW
#define TW LX
#endif
#ifndef TROW
#define TROW ly
#endif
#ifndef AIDX
#define AIDX (y * s + o + base + lx)
#endif
#ifndef BIDX
#define BIDX ((base + ly) * w + x)
#endif
#ifndef TRIPS
#define TRIPS LY
#endif
kernel void stage(global const float* a, global const float* b, global float* c,
                  int w, int s, int o) {
    local float t[LY * TW];
    local float u[LY][LX];
    int x = get_global_id(0);
    int y = get_global_id(1);
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    float acc = 0.0f;
    for (int base = 0; base < w; base += LX) {
        t[TROW * TW + lx] = a[AIDX];
        u[ly][lx] = b[BIDX];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TRIPS; k++) {
            acc += t[TROW * TW + k] * u[k][lx];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[y * w + x] = acc;
}
"#;

/// `STAGE` built with `defines` against the interpreter over `ranges`
/// (no offset in dimension 0, widths a multiple of the groups'), `a`'s
/// rows `s` elements apart from `o` (`a` 2^16 elements); returns the
/// `code:` line.
fn stage_agrees(defines: &str, ranges: &[NdRange], s: i32, o: i32) -> String {
    let m = build(STAGE, defines);
    let k = compile_kernel(&m, "stage", &wide_options()).expect("compiles");
    let line = code_line(&k);
    let got = compare_launches(&m, "stage", &k, ranges, |r| {
        let w = r.global_size[0] as usize;
        let h = (r.global_offset[1] + r.global_size[1]) as usize;
        // Every case's indices lie below 2^16 (its stride, offset and
        // shape chosen so).
        vec![
            Spec::Floats(1 << 16, 1),
            Spec::Floats((w + r.local_size[1] as usize) * w, 2),
            Spec::Floats(w * h, 0),
            Spec::Int(w as i32),
            Spec::Int(s),
            Spec::Int(o),
        ]
    });
    assert_eq!(got, ranges.len(), "{defines}");
    line
}

/// The number before "later rows' indices as the previous row's plus a
/// step" in `line` (0 without).
fn stepped(line: &str) -> usize {
    line.split("; ")
        .find_map(|part| {
            let at = part.find(" later rows' indices as the previous row's")?;
            part[..at].rsplit(' ').next()?.parse().ok()
        })
        .unwrap_or(0)
}

/// The group shapes the rows run (and 32 x 2, whose launches run none),
/// with a partial last group where the shape allows, and whether rows
/// run.
fn shapes() -> Vec<(&'static str, NdRange, bool)> {
    vec![
        ("", range_2d([32, 32], [16, 16], [0, 0]), true),
        ("-DLX=8 -DLY=8", range_2d([16, 24], [8, 8], [0, 3]), true),
        // Rows of 12 lanes: every chunk partial.
        (
            "-DLX=12 -DLY=12",
            range_2d([24, 36], [12, 12], [0, 4]),
            true,
        ),
        // A partial last group of 2 rows (four, then one at a time),
        // whose `k` runs over the rows it staged.
        (
            "-DLY=4 -DTRIPS=(int)get_local_size(1)",
            range_2d([32, 10], [16, 4], [0, 0]),
            true,
        ),
        ("-DLY=13", range_2d([32, 26], [16, 13], [0, 0]), true),
        (
            "-DLX=32 -DLY=2 -DTRIPS=2",
            range_2d([64, 4], [32, 2], [0, 0]),
            false,
        ),
    ]
}

#[test]
fn rows_stepped_by_a_parameter_or_a_constant_agree() {
    for (shape, range, rows) in shapes() {
        let w = range.global_size[0] as i32;
        let h = (range.global_offset[1] + range.global_size[1]) as i32;
        // (defines, a's stride, a's offset)
        let cases: Vec<(String, i32, i32)> = vec![
            (String::new(), w, 0),
            (String::new(), w + 3, 0),
            (String::new(), 2 * w + 1, 5),
            // A negative stride: rows read upwards.
            (String::new(), -w, h * w),
            // A difference: `o - y * s`.
            ("-DAIDX=(o-y*s+base+lx)".into(), w, h * w),
            // A product by a constant: a step of `2 * s` a row.
            ("-DAIDX=(y*s*2+base+lx)".into(), w, 0),
            ("-DAIDX=((y+1)*s+base+lx)".into(), w, 0),
            // The stride written again each tile (the same in every row):
            // the step is the value the rows' index reads.
            ("-DAIDX=(s=s+1,y*s+base+lx)".into(), w, 0),
            // `__local` rows of `LX + 1` and `LX + 8` elements, a negative
            // step.
            ("-DTW=(LX+1)".into(), w, 0),
            ("-DTW=(LX+8)".into(), w, 0),
            ("-DTROW=(LY-1-ly)".into(), w, 0),
            // `y * s` wraps 32 bits at every odd row; twice it is 0 in
            // every row (modulo 2^32, as the lanes and the interpreter
            // compute it).
            ("-DAIDX=(y*s+y*s+base+lx)".into(), i32::MIN, 0),
        ];
        for (extra, s, o) in cases {
            let defines = format!("{shape} {extra}");
            let line = stage_agrees(&defines, &[range], s, o);
            if cpu_has_wide() && line.starts_with("code: wide AVX-512") {
                // (32 x 2 compiles the rows too; its launches run one row
                // at a time.)
                assert!(!rows || stepped(&line) > 0, "{defines}: {line}");
            }
        }
    }
}

#[test]
fn indices_without_a_step_from_row_to_row_keep_their_own_arithmetic() {
    // `a`'s part is not a constant (times a value the same in every row)
    // step from row to row, or its step is written by each row, or it is
    // 64-bit: `a`'s index keeps the row's own arithmetic, and only the
    // other accesses (`u`'s store, `b`'s load, `c`'s store) step.
    let range = range_2d([32, 32], [16, 16], [0, 0]);
    let plain = stepped(&stage_agrees("", &[range], 32, 0));
    for (extra, s, o) in [
        ("-DAIDX=((y*y)%32*s+base+lx)", 32, 0),
        ("-DAIDX=(y/2*s+base+lx)", 32, 0),
        ("-DAIDX=((y^1)*s+base+lx)", 32, 0),
        ("-DAIDX=(y*(s+ly-ly*(w/w))+base+lx)", 32, 0),
        ("-DAIDX=(y*s+y*o+base+lx)", i32::MIN, i32::MIN + 32),
        ("-DAIDX=((size_t)y*(size_t)s+base+lx)", 32, 0),
    ] {
        let line = stage_agrees(extra, &[range], s, o);
        if cpu_has_wide() && line.starts_with("code: wide AVX-512") {
            assert!(stepped(&line) < plain, "{extra}: {line}");
        }
    }
}

#[test]
fn rows_in_flight_that_disagree_at_a_barrier_stop_the_group() {
    // Rows of 16 x 4 groups leave a barrier loop after different trips:
    // each row's successor is its own (no single test for the rows), and
    // the second row's chunk is reported against the group's first.
    let src = r#"
kernel void k(global int* out) {
    int i = (int)get_global_id(0) + (int)get_global_id(1) * 16;
    out[i] = 1;
    for (int r = 0; r < 2 + ((int)get_local_id(1) == 1); r++) {
        barrier(CLK_GLOBAL_MEM_FENCE);
        out[i] += r;
    }
}
"#;
    let m = build(src, "");
    let k = compile_kernel(&m, "k", &wide_options()).expect("compiles");
    let line = code_line(&k);
    // (The loop's test region's successor is each row's own.)
    assert!(
        !line.contains("one barrier successor test for the rows in 3 regions"),
        "{line}"
    );
    let range = range_2d([16, 8], [16, 4], [0, 0]);
    let args = interp_args_for(&[Spec::Ints(128, 0)]);
    let _ = take_barrier_divergence();
    let (status, _) = run_jit(&k, &args, &range);
    assert_eq!(status, KernelStatus::DivergentBarrier as u32);
    if cpu_has_wide() && line.starts_with("code: wide AVX-512") {
        let d = take_barrier_divergence().expect("a report");
        let words = k.describe_divergence(&d);
        assert!(
            words.contains("local id (0, 0, 0)") && words.contains("local id (0, 1, 0)"),
            "{words}"
        );
    }
    // The rows agree: one test for them, and every row's result.
    let same = src.replace("((int)get_local_id(1) == 1)", "((int)get_group_id(1) == 1)");
    let m = build(&same, "");
    let k = compile_kernel(&m, "k", &wide_options()).expect("compiles");
    let line = code_line(&k);
    let got = compare_launches(&m, "k", &k, &[range], |_| vec![Spec::Ints(128, 0)]);
    assert_eq!(got, 1);
    if cpu_has_wide() && line.contains(" rows in flight in ") {
        assert!(line.contains("one barrier successor test"), "{line}");
    }
}

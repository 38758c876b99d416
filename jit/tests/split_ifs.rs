//! Small varying `if`s with two arms, split into a path for chunks whose
//! lanes all take the then arm, one for chunks whose lanes all take the
//! else arm, and the masked path for chunks whose lanes disagree
//! (`lower_split_if` in `lower/control.rs`): conditions on the local id
//! against a bound that moves through the chunks (all, none and part of a
//! chunk's lanes), on data in runs and on data that changes every lane,
//! loads, stores and variable writes in both arms, nested `if`s, every
//! order of comparison and lanes that pass the top of the type. Each
//! launch is compared with the interpreter at every width. The
//! Hillis-Steele scan of `benches/scan.cl`, whose step this is for, is
//! compared in `barrier_shapes.rs`.

use vecl_testkit::*;

fn n_for(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

#[test]
fn bound_on_the_local_id_matches_interpreter() {
    // `cut` takes lanes below, inside and past every chunk.
    let src = "kernel void k(global const int* a, global int* o, int cut) {
        size_t g = get_global_id(0);
        int lid = get_local_id(0);
        int v;
        if (lid >= cut) { v = a[g - (size_t)cut] * 3; o[g] = v + 1; }
        else { v = -a[g]; o[g] = v - 1; }
        o[g] += v;
    }";
    for cut in [0, 1, 3, 7, 8, 16, 17, 40, 1000] {
        let n = differential(src, "k", &chunk_edges_1d(), |r| {
            let n = n_for(r);
            vec![Spec::Ints(n, 3), Spec::Ints(n, 0), Spec::Int(cut)]
        });
        assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
    }
}

#[test]
fn local_id_variables_match_interpreter() {
    // A variable only ever assigned local ids is decided by its end lanes
    // alone (no test that the lanes stay in order); one also assigned
    // something else keeps that test.
    let src = "kernel void k(global const int* a, global int* o, int cut) {
        size_t g = get_global_id(0);
        uint lid = get_local_id(0);
        int moved = get_local_id(0);
        if (cut > 100) { lid = get_local_linear_id(); moved = 0x7ffffff8 + (int)(g & 7); }
        int r = lid >= (uint)cut ? a[g] * 2 : -a[g];
        if (moved < cut) { r += 3; o[g] = r; } else { o[g] = r - 3; }
    }";
    for cut in [0, 5, 16, 33, 101, 0x7ffffffc] {
        differential(src, "k", &chunk_edges_1d(), |r| {
            let n = n_for(r);
            vec![Spec::Ints(n, 3), Spec::Ints(n, 0), Spec::Int(cut)]
        });
    }
}

#[test]
fn data_in_runs_and_data_per_lane_match_interpreter() {
    // `(a[g] >> shift) & 1`: with a large shift the condition changes
    // slowly along the data, with shift 0 almost every lane.
    let src = "kernel void k(global const int* a, global int* o, int shift) {
        size_t g = get_global_id(0);
        int x = a[g];
        int r = 0;
        if (((g >> shift) ^ (size_t)(x & 1)) & 1) {
            r = x * x;
            if (x > 3) r += 5; else r -= 5;
        } else {
            r = a[(g + 1) % 50] - x;
        }
        o[g] = r;
    }";
    for shift in [0, 2, 4, 6] {
        differential(src, "k", &chunk_edges_1d(), |r| {
            let n = n_for(r).max(50);
            vec![Spec::Ints(n, 1), Spec::Ints(n, 0), Spec::Int(shift)]
        });
    }
}

#[test]
fn every_order_and_lanes_passing_the_top_match_interpreter() {
    // `x` passes UINT_MAX → 0 (and INT_MAX → INT_MIN) inside some chunks:
    // those take the masked path.
    for (ty, base) in [
        ("uint", "0xfffffff0u"),
        ("int", "0x7ffffff0"),
        ("int", "-20"),
    ] {
        for op in ["<", "<=", ">", ">="] {
            let src = format!(
                "kernel void k(global const int* a, global int* o, int bound) {{
                    size_t g = get_global_id(0);
                    {ty} x = ({ty})g + {base};
                    int r;
                    if (x {op} ({ty})bound) {{ r = a[g] + 1; o[g] = r; }}
                    else {{ r = a[g] * 2; o[g] = -r; }}
                    o[g] += r;
                }}"
            );
            for bound in [-40, -3, 0, 5, 17, 100, 0x7ffffff8, -0x7ffffff0] {
                differential(&src, "k", &chunk_edges_1d(), |r| {
                    let n = n_for(r);
                    vec![Spec::Ints(n, 2), Spec::Ints(n, 0), Spec::Int(bound)]
                });
            }
        }
    }
}

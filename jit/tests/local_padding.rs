//! Consecutive `__local` loads under a partial mask read the whole vector
//! when it lies within the arena or the padding the kernel ABI promises on
//! each side of it (`abi::LOCAL_PAD`): `t[lid - k]` in the chunk where
//! `lid < k` reaches below the arena, `t[lid + k]` in the last chunk above
//! it. The harness (`common/groups.rs`) maps the arena with inaccessible
//! pages just past the padding, on the low and the high side in turn, so a
//! load reaching further faults; the values of lanes that are not running
//! must not show in the results either. Checked against the interpreter at
//! every width.

use vecl_testkit::{differential_at, range_1d, Spec, BARRIER_WIDTHS};

/// The only `__local` memory is the argument `t`, so it starts and ends
/// the arena.
const EDGES: &str = r#"
kernel void edges(global const int* in, global int* out, local int* t, int k) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    t[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    int below = lid >= k ? t[lid - k] : -1;
    int above = lid + k < n ? t[lid + k] : -2;
    out[get_global_id(0)] = below * 3 + above;
}
"#;

/// The same with `float` and `long` elements.
const EDGES_WIDE: &str = r#"
kernel void edges(global const int* in, global float* out, local long* t, local float* f, int k) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    t[lid] = (long)in[get_global_id(0)] * 1000003L;
    f[lid] = (float)in[get_global_id(0)] * 0.5f;
    barrier(CLK_LOCAL_MEM_FENCE);
    long below = lid >= k ? t[lid - k] : -1;
    float above = lid + k < n ? f[lid + k] : -2.0f;
    out[get_global_id(0)] = (float)below + above;
}
"#;

fn shapes() -> Vec<vecl_ir::interp::NdRange> {
    [4u64, 16, 64, 256]
        .iter()
        .flat_map(|&ls| {
            [
                range_1d(0, 2 * ls, ls),
                range_1d(0, 2 * ls + ls / 2 + 1, ls),
            ]
        })
        .collect()
}

#[test]
fn loads_reaching_into_the_padding_match_interpreter() {
    for k in [1, 2, 3, 5, 8, 15, 31, 63, 300] {
        differential_at(&BARRIER_WIDTHS, EDGES, "", "edges", &shapes(), |r| {
            let n = r.global_size[0] as usize;
            vec![
                Spec::Ints(n, 9),
                Spec::Ints(n, 0),
                Spec::Local(4 * r.local_size[0] as usize),
                Spec::Int(k),
            ]
        });
    }
}

#[test]
fn wide_elements_reaching_into_the_padding_match_interpreter() {
    for k in [1, 3, 7, 16, 33] {
        differential_at(&BARRIER_WIDTHS, EDGES_WIDE, "", "edges", &shapes(), |r| {
            let n = r.global_size[0] as usize;
            vec![
                Spec::Ints(n, 4),
                Spec::Floats(n, 0),
                Spec::Local(8 * r.local_size[0] as usize),
                Spec::Local(4 * r.local_size[0] as usize),
                Spec::Int(k),
            ]
        });
    }
}

//! Loads and stores of 8- and 16-bit elements (`char`, `uchar`, `short`,
//! `ushort`, `half`) by consecutive work-items are whole-chunk vector
//! accesses, widened into the lanes and narrowed back (`lower/narrow.rs`),
//! in every shape the 32-bit elements take one: consecutive by
//! construction, an `int` index that may wrap, an index that rises by at
//! most one (`clamp`), a store under a partial mask, a `__local` store
//! blended under divergence. Each kernel runs at W = 4, 8 and 16 over
//! launches with tails, odd sizes and offsets, compared byte for byte
//! (guard bytes included) with the interpreter, and the report must count
//! the accesses as vector ones.

use vecl_testkit::*;

/// The integer types and `half`, with the `Spec` of a buffer of `n`
/// elements of them: bytes for the integers (every value occurs), floats
/// holding small integers for `half` (their two halves are 0 and a normal
/// half of small magnitude: no NaN, whose payload arithmetic may set).
const TYPES: [&str; 5] = ["char", "uchar", "short", "ushort", "half"];

fn buffer(ty: &str, n: usize, seed: u8) -> Spec {
    match ty {
        "char" | "uchar" => Spec::Bytes(n, seed),
        "short" | "ushort" => Spec::Bytes(2 * n, seed),
        "half" => Spec::Floats(n.div_ceil(2), i32::from(seed)),
        _ => unreachable!("{ty}"),
    }
}

fn source(ty: &str, body: &str) -> String {
    format!(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n{}",
        body.replace("T", ty)
    )
}

fn end(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize
}

/// The report's line of `kind` ("loads" or "stores") at width `w`.
fn counted(src: &str, w: u32, kind: &str) -> String {
    explain_at(src, w)
        .lines()
        .find(|l| l.starts_with(&format!("{kind}:")))
        .unwrap_or_else(|| panic!("no {kind} line"))
        .to_string()
}

#[test]
fn consecutive_loads_and_stores_match_interpreter() {
    for ty in TYPES {
        // A consecutive load and store, arithmetic between them, and a
        // second store of the loaded value under a mask from the data.
        let src = source(
            ty,
            "kernel void k(global const T* a, global T* o, global T* p) {
                size_t g = get_global_id(0);
                T x = a[g];
                o[g] = x * (T)3 + (T)1;
                if (((int)x & 3) == 1) p[g] = x;
            }",
        );
        let n = differential(&src, "k", &chunk_edges_1d(), |r| {
            let n = end(r);
            vec![buffer(ty, n, 1), buffer(ty, n, 2), buffer(ty, n, 3)]
        });
        assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
        // W = 32: two 16-byte pieces of `char`, four of `short`.
        differential_at(&[32], &src, "", "k", &chunk_edges_1d(), |r| {
            let n = end(r);
            vec![buffer(ty, n, 1), buffer(ty, n, 2), buffer(ty, n, 3)]
        });
        for w in WIDTHS {
            assert!(
                counted(&src, w, "loads").starts_with("loads: 1 vector"),
                "{ty} W={w}"
            );
            assert!(
                counted(&src, w, "stores").starts_with("stores: 2 vector"),
                "{ty} W={w}"
            );
        }
    }
}

#[test]
fn int_indices_and_clamped_neighbours_match_interpreter() {
    for ty in TYPES {
        // `int` indices (a wrap-around point in the address chain), a
        // neighbour one element up, and a clamped one that repeats the
        // last element at the edge (consecutive in most chunks only).
        let src = source(
            ty,
            "kernel void k(global const T* a, global T* o, int n) {
                int i = get_global_id(0);
                T l = a[clamp(i - 1, 0, n - 1)];
                T r = a[i + 1];
                o[i] = l + r;
            }",
        );
        differential(&src, "k", &chunk_edges_1d(), |r| {
            let n = end(r);
            vec![buffer(ty, n + 1, 4), buffer(ty, n, 5), Spec::Int(n as i32)]
        });
        for w in WIDTHS {
            assert!(
                counted(&src, w, "loads").starts_with("loads: 2 vector"),
                "{ty} W={w}"
            );
            assert!(
                counted(&src, w, "stores").starts_with("stores: 1 vector"),
                "{ty} W={w}"
            );
        }
    }
}

#[test]
fn divergent_local_stores_keep_the_lanes_that_are_off() {
    for ty in TYPES {
        // A tree reduction in `__local` memory: under `lid < s` with `s`
        // below W the store is one vector blended with what it held.
        let src = source(
            ty,
            "kernel void k(global const T* a, global T* o) {
                local T t[64];
                int lid = get_local_id(0);
                size_t g = get_global_id(0);
                t[lid] = a[g];
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
                    if (lid < s) t[lid] = t[lid] + t[lid + s];
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                o[g] = t[lid];
            }",
        );
        differential(&src, "k", &chunk_edges_1d(), |r| {
            let n = end(r);
            vec![buffer(ty, n, 6), buffer(ty, n, 7)]
        });
        let e = counted(&src, 8, "stores");
        assert!(e.contains("1 blended into __local"), "{ty}: {e}");
    }
}

#[test]
fn stores_under_a_partial_mask_write_only_their_lanes() {
    for ty in TYPES {
        // Every other lane, then the first few lanes of each group: the
        // lanes that are off must keep the bytes the buffer had.
        let src = source(
            ty,
            "kernel void k(global const T* a, global T* o, global T* p, int m) {
                size_t g = get_global_id(0);
                if (g % 2 == 0) o[g] = a[g];
                if (get_local_id(0) < m) p[g] = a[g] + (T)2;
            }",
        );
        for m in [1, 3, 5, 9] {
            differential(&src, "k", &chunk_edges_1d(), |r| {
                let n = end(r);
                vec![
                    buffer(ty, n, 8),
                    buffer(ty, n, 9),
                    buffer(ty, n, 10),
                    Spec::Int(m),
                ]
            });
        }
    }
}

#[test]
fn packed_two_component_vectors_match_interpreter() {
    // `half2`, `short2`, `ushort2` fill one 32-bit word per item: read and
    // written as whole pieces (`lower/interleaved.rs`), `half2` as the bits
    // of a `ushort2`.
    for ty in ["half", "short", "ushort"] {
        let src = source(
            ty,
            "kernel void k(global const T2* a, global T2* o, global T2* p) {
                size_t g = get_global_id(0);
                T2 x = a[g];
                o[g] = x.yx + x;
                if (((int)x.x & 1) == 0) p[g] = x;
            }",
        );
        let n = differential(&src, "k", &chunk_edges_1d(), |r| {
            let n = end(r);
            vec![
                buffer(ty, 2 * n, 11),
                buffer(ty, 2 * n, 12),
                buffer(ty, 2 * n, 13),
            ]
        });
        assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len());
        for w in WIDTHS {
            let loads = counted(&src, w, "loads");
            assert!(loads.contains(", 1 interleaved"), "{ty} W={w}: {loads}");
            let stores = counted(&src, w, "stores");
            assert!(stores.contains(", 2 interleaved"), "{ty} W={w}: {stores}");
        }
    }
}

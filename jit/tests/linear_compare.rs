//! Comparisons of a consecutive 64-bit integer (`get_global_id(0)` plus a
//! constant) with a uniform one, which the JIT answers from lane 0's value
//! (`linear_compare` in `lower/ops.rs`): every operator, both operand
//! orders, signed and unsigned, bounds below, inside and above the chunk's
//! lanes, and chunks whose lanes pass the top of the order (`LONG_MAX` to
//! `LONG_MIN`, `ULONG_MAX` to 0), which take the lane-wise comparison.
//! Each launch is compared with the interpreter at every width.

use vecl_testkit::*;

/// Results written per work-item.
const OUTS: usize = 3 * 12 + 1;

fn kernel(ty: &str, base: u64) -> String {
    let mut body = String::new();
    let mut k = 0;
    for b in ["b0", "b1", "b2"] {
        for (l, r) in [("x", "y"), ("y", "x")] {
            for op in ["<", "<=", ">", ">=", "==", "!="] {
                body.push_str(&format!(
                    "    {{ {ty} y = ({ty})((ulong)BASE + (ulong)(long){b}); out[o + {k}] = {l} {op} {r}; }}\n"
                ));
                k += 1;
            }
        }
    }
    format!(
        "#define BASE {base}UL
kernel void cmp(global int* out, int b0, int b1, int b2) {{
    {ty} x = ({ty})((ulong)get_global_id(0) + BASE);
    size_t o = (get_global_id(0) - get_global_offset(0)) * {OUTS};
{body}    {{ {ty} y = ({ty})((ulong)BASE + (ulong)(long)b1); if (x < y) out[o + {k}] = 7; }}
}}"
    )
}

#[test]
fn consecutive_against_uniform_matches_interpreter() {
    let bases = [
        0u64,
        u64::MAX - 40,
        (1u64 << 63) - 40,
        (1u64 << 63) + 5,
        u64::MAX - 300,
    ];
    let bounds = [(-45, 0, 3), (37, 100, 300), (-1, 1, 131)];
    let mut launches = 0;
    for ty in ["long", "ulong"] {
        for base in bases {
            let src = kernel(ty, base);
            for (b0, b1, b2) in bounds {
                launches += differential(&src, "cmp", &chunk_edges_1d(), |r| {
                    let n = (r.global_size[0] as usize) * OUTS;
                    vec![
                        Spec::Ints(n, 0),
                        Spec::Int(b0),
                        Spec::Int(b1),
                        Spec::Int(b2),
                    ]
                });
            }
        }
    }
    assert_eq!(launches, 2 * 5 * 3 * chunk_edges_1d().len() * WIDTHS.len());
}

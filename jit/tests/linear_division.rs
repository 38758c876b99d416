//! `/` and `%` of an integer consecutive across the chunk by a uniform one
//! (`gid % width`, `gid / width`; `linear_div_rem` in `lower/ops.rs`):
//! signed and unsigned, 32 and 64 bits, divisors below, at and above the
//! chunk width, zero, negative and past half the type's maximum (the
//! general form), negative dividends and lanes that wrap at the top of the
//! type. Each launch is compared with the interpreter at every width.

mod common;

use common::codegen::*;

fn n_for(r: &vecl_ir::interp::NdRange) -> usize {
    (r.global_offset[0] + r.global_size[0]) as usize + 8
}

/// `q` and `r` of `x = (T)gid + base` by `d`, written to two buffers.
fn kernel(ty: &str, base: &str) -> String {
    format!(
        "kernel void k(global {ty}* q, global {ty}* r, {ty} d) {{
            size_t g = get_global_id(0);
            {ty} x = ({ty})g + ({ty})({base});
            q[g] = x / d;
            r[g] = x % d;
        }}"
    )
}

fn run(ty: &str, base: &str, divisors: &[i64]) {
    let src = kernel(ty, base);
    let long = ty.contains("long");
    for &d in divisors {
        let n = differential(&src, "k", &shapes_1d(), |r| {
            let n = n_for(r) * if long { 2 } else { 1 };
            let d = if long {
                Spec::Long(d)
            } else {
                Spec::Int(d as i32)
            };
            vec![Spec::Ints(n, 0), Spec::Ints(n, 0), d]
        });
        assert_eq!(n, shapes_1d().len() * WIDTHS.len(), "{ty} {base} {d}");
    }
}

const DIVISORS: [i64; 10] = [1, 3, 4, 15, 16, 17, 100, 1000, 0, 0x7fff_ffff];

#[test]
fn int_and_uint_match_interpreter() {
    run("int", "0", &DIVISORS);
    run("int", "-50", &DIVISORS);
    run("int", "-3", &[-1, -7, -100, 7, 20]);
    run("uint", "0", &DIVISORS);
    run(
        "uint",
        "0xffffffc0u",
        &[5, 16, 33, 0x4000_0000, 0x8000_0001],
    );
}

#[test]
fn long_and_ulong_match_interpreter() {
    run("long", "0", &DIVISORS);
    run("long", "-40", &[3, 16, 17, 1000, -9]);
    run("ulong", "0", &DIVISORS);
    run(
        "ulong",
        "0xffffffffffffffc0ul",
        &[5, 16, 33, 0x4000_0000_0000_0000],
    );
}

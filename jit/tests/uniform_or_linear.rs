//! A variable written a uniform value in one place and a linear one in
//! another (the arms of `c ? u : gid`, which write one variable) is
//! neither at every read: the uniformity analysis must call it varying.
//! It called it linear, and Cranelift's code gave lane `j` of a chunk
//! `in[25] + j` where every work-item should read `in[25]` (`vecl fuzz`
//! seed 131154). Against the interpreter at every width, with the
//! condition constant and from an argument.

use vecl_testkit::{differential, range_1d, Spec};

#[test]
fn a_uniform_or_linear_variable_agrees_with_the_interpreter() {
    let src = "kernel void k(global const uint* in, global uint* out, int c) {
    uint i = get_global_id(0);
    out[i] = ((1) ? in[25] : i) % 65u;
    out[i + 64] = (c ? in[3] : i) * 3u + 1u;
    uint v = 7u;
    if (c > 1) v = i;
    out[i + 128] = in[v & 63u] + v;
}";
    for c in [0, 1, 2] {
        let compared = differential(
            src,
            "k",
            &[range_1d(0, 64, 64), range_1d(0, 48, 16)],
            |_| vec![Spec::Ints(64, 9), Spec::Ints(192, 0), Spec::Int(c)],
        );
        assert!(compared > 0);
    }
}

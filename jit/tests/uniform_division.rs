//! Signed `int` `/` and `%` of varying, non-consecutive values by a
//! uniform divisor (`lower/uniform_div.rs`: shifts for a positive power
//! of two, division in double otherwise): every divisor kind — 1, -1,
//! powers of two up to 2^30, `INT_MIN`, 0, small and large odd ones,
//! negative ones — over dividends that include `INT_MIN`, `INT_MAX`, -1
//! and 0, compared with the interpreter byte for byte at every width
//! (its rules for the undefined cases: `x / 0` and `x % 0` are 0,
//! `INT_MIN / -1` is `INT_MIN`, `INT_MIN % -1` is 0).

use vecl_testkit::*;

const SRC: &str = "kernel void k(global int* q, global int* r, int d) {
    size_t g = get_global_id(0);
    uint h = (uint)g * 2654435761u;
    h ^= h >> 13;
    int x = (int)h;
    int m = (int)(h & 7);
    x = m == 0 ? INT_MIN : m == 1 ? INT_MAX : m == 2 ? -1 : m == 3 ? 0 : m == 4 ? x >> 20 : m == 5 ? -(x >> 24) : x ^ 5;
    q[g] = x / d;
    r[g] = x % d;
}";

#[test]
fn int_division_by_a_uniform_divisor_matches_the_interpreter() {
    let divisors = [
        1,
        -1,
        2,
        4,
        64,
        1 << 30,
        i32::MIN,
        0,
        3,
        7,
        -7,
        -2,
        33,
        1000,
        65_537,
        i32::MAX,
    ];
    for d in divisors {
        let n = differential(SRC, "k", &chunk_edges_1d(), |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize + 8;
            vec![Spec::Ints(n, 0), Spec::Ints(n, 0), Spec::Int(d)]
        });
        assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len(), "{d}");
    }
}

/// The kernel report no longer counts the division among the operations
/// done lane by lane.
#[test]
fn the_division_is_not_lane_by_lane() {
    let report = explain(SRC, "k");
    assert!(
        report.contains("operations done lane by lane (no vector form): 0"),
        "{report}"
    );
}

/// `uint` `/` and `%` by a uniform divisor that is not a power of two
/// (`unsigned_div_rem_in_double`): dividends and divisors at and above
/// 2^31, `UINT_MAX`, 0 and 1, against the interpreter at every width.
const SRC_U: &str = "kernel void k(global uint* q, global uint* r, uint d) {
    size_t g = get_global_id(0);
    uint h = (uint)g * 2654435761u;
    h ^= h >> 13;
    uint m = h & 7;
    uint x = m == 0 ? 0xFFFFFFFFu : m == 1 ? 0x80000000u : m == 2 ? 0x7FFFFFFFu : m == 3 ? 0u : m == 4 ? h >> 20 : m == 5 ? 1u : h;
    q[g] = x / d;
    r[g] = x % d;
}";

#[test]
fn uint_division_by_a_uniform_divisor_matches_the_interpreter() {
    let divisors: [u32; 14] = [
        0,
        1,
        2,
        3,
        7,
        10,
        1000,
        65_537,
        0x7FFF_FFFF,
        0x8000_0000,
        0x8000_0001,
        0xC000_0000,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
    ];
    for d in divisors {
        let n = differential(SRC_U, "k", &chunk_edges_1d(), |r| {
            let n = (r.global_offset[0] + r.global_size[0]) as usize + 8;
            vec![Spec::Ints(n, 0), Spec::Ints(n, 0), Spec::Int(d as i32)]
        });
        assert_eq!(n, chunk_edges_1d().len() * WIDTHS.len(), "{d}");
    }
    let report = explain(SRC_U, "k");
    assert!(
        report.contains("operations done lane by lane (no vector form): 0"),
        "{report}"
    );
}

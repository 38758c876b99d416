//! The order in which a work-group reduction or scan combines its items'
//! values, shared by the interpreter and the JIT's combine so that both
//! give the same bits.
//!
//! OpenCL C leaves the order of floating-point operations in
//! `work_group_reduce_<op>` and `work_group_scan_*_<op>` to the
//! implementation. Combining in local-linear-id order one item after the
//! other makes a chain as long as the group (a float add's latency per
//! item); these orders keep independent chains that run side by side:
//!
//! - A **reduction** keeps [`LANES`] (16) partial results, item `k` going
//!   into partial `k % LANES` (each in local-id order), and combines the
//!   partials as a balanced tree of neighbours: `((p0∘p1)∘(p2∘p3))∘…`
//!   ([`tree`]).
//! - A **scan** takes the items in blocks of [`BLOCK`]: within a block the
//!   prefix of its own items in local-id order (`x0`, `x0∘x1`, …), and the
//!   block's results are the carry (everything before the block) combined
//!   with that prefix, `carry ∘ prefix`; the next carry is `carry ∘` the
//!   block's whole prefix. An exclusive scan's item gets the inclusive
//!   result of the item before it (the carry for a block's first item).
//!
//! For integers every order gives the same result (the operators are
//! associative and commutative, additions wrap), so the JIT may use any
//! vector form for them; for floats these orders are the contract.

/// The partial results a reduction keeps.
pub const LANES: usize = 16;

/// The items of a scan's block.
pub const BLOCK: usize = 8;

/// `xs` reduced by `op` in the order the module header gives, starting
/// each partial result from `identity`.
pub fn reduce<T: Copy>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> T {
    let mut p = [identity; LANES];
    let mut blocks = xs.chunks_exact(LANES);
    for b in &mut blocks {
        for j in 0..LANES {
            p[j] = op(p[j], b[j]);
        }
    }
    for (j, &x) in blocks.remainder().iter().enumerate() {
        p[j] = op(p[j], x);
    }
    tree(p, op)
}

/// The partial results combined as a balanced tree: neighbours in pairs,
/// level by level (`(p0∘p1)∘(p2∘p3)` …).
pub fn tree<T: Copy>(mut p: [T; LANES], op: impl Fn(T, T) -> T) -> T {
    let mut n = LANES;
    while n > 1 {
        for i in 0..n / 2 {
            p[i] = op(p[2 * i], p[2 * i + 1]);
        }
        n /= 2;
    }
    p[0]
}

/// The inclusive (or exclusive) scan of `xs` by `op` in the order the
/// module header gives, written over `xs`: the carry starts at `identity`.
pub fn scan<T: Copy>(xs: &mut [T], identity: T, exclusive: bool, op: impl Fn(T, T) -> T) {
    let mut carry = identity;
    for b in xs.chunks_mut(BLOCK) {
        // `run` is the block's own prefix up to the item just read.
        let mut run = b[0];
        b[0] = if exclusive { carry } else { op(carry, run) };
        for x in &mut b[1..] {
            let before = run;
            run = op(run, *x);
            *x = op(carry, if exclusive { before } else { run });
        }
        carry = op(carry, run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_results_are_the_sequential_ones() {
        let xs: Vec<i64> = (0..300).map(|i| (i * 7919 % 1013) - 500).collect();
        for n in [0, 1, 7, 8, 9, 16, 17, 255, 256, 300] {
            let xs = &xs[..n];
            assert_eq!(reduce(xs, 0, |a, b| a + b), xs.iter().sum::<i64>());
            assert_eq!(
                reduce(xs, i64::MAX, |a, b| a.min(b)),
                xs.iter().copied().min().unwrap_or(i64::MAX)
            );
            for exclusive in [false, true] {
                let mut got = xs.to_vec();
                scan(&mut got, 0, exclusive, |a, b| a + b);
                let mut acc = 0;
                let want: Vec<i64> = xs
                    .iter()
                    .map(|&x| {
                        let before = acc;
                        acc += x;
                        if exclusive {
                            before
                        } else {
                            acc
                        }
                    })
                    .collect();
                assert_eq!(got, want, "n = {n}, exclusive = {exclusive}");
            }
        }
    }

    #[test]
    fn float_sums_follow_the_documented_order() {
        // Twenty items: partial 0 holds items 0 and 16, partial 3 items 3
        // and 19, partial 4 item 4 alone.
        let xs: Vec<f32> = (0..20).map(|i| 1.0 + i as f32 * 0.1).collect();
        let p: Vec<f32> = (0..LANES)
            .map(|j| xs.iter().skip(j).step_by(LANES).fold(0.0f32, |a, &x| a + x))
            .collect();
        let q: Vec<f32> = p.chunks(2).map(|c| c[0] + c[1]).collect();
        let r: Vec<f32> = q.chunks(2).map(|c| c[0] + c[1]).collect();
        let t: Vec<f32> = r.chunks(2).map(|c| c[0] + c[1]).collect();
        let want = t[0] + t[1];
        assert_eq!(reduce(&xs, 0.0, |a, b| a + b).to_bits(), want.to_bits());
        // The scan's item 9: the carry of block 0 (its prefix, from the
        // identity) combined with block 1's own prefix.
        let mut s = xs.clone();
        scan(&mut s, 0.0, false, |a, b| a + b);
        let block0 = xs[..8].iter().skip(1).fold(xs[0], |a, &x| a + x);
        let carry = 0.0 + block0;
        assert_eq!(s[9].to_bits(), (carry + (xs[8] + xs[9])).to_bits());
        assert_eq!(
            s[3].to_bits(),
            (0.0 + (((xs[0] + xs[1]) + xs[2]) + xs[3])).to_bits()
        );
        let mut e = xs.clone();
        scan(&mut e, 0.0, true, |a, b| a + b);
        assert_eq!(e[0].to_bits(), 0.0f32.to_bits());
        assert_eq!(e[8].to_bits(), carry.to_bits());
        assert_eq!(e[9].to_bits(), (carry + xs[8]).to_bits());
    }
}

//! The OpenCL C corpus (`tests/corpus/*.cl`, each program with a header of
//! arguments, launch and expected values; see `vecl_clc::corpus`): the
//! files, the declared launch, and the comparisons every corpus test makes
//! (floats within units in the last place, the header's `@expect` lines).

use std::path::PathBuf;
use vecl_clc::corpus::{Arg, Case, Elem};
use vecl_ir::interp::NdRange;

/// The corpus programs, sorted by path.
pub fn opencl_c_programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    files
}

/// The launch `case` declares (`@range`), from `offset`.
pub fn ndrange(case: &Case, offset: [u64; 3]) -> NdRange {
    let mut r = NdRange {
        work_dim: case.global.len() as u32,
        global_offset: offset,
        global_size: [1; 3],
        local_size: [1; 3],
    };
    for (d, (g, l)) in case.global.iter().zip(&case.local).enumerate() {
        r.global_size[d] = *g;
        r.local_size[d] = *l;
    }
    r
}

/// Distance in units in the last place between two floats of `elem`'s
/// precision (ordered as integers).
pub fn ulps(a: f64, b: f64, elem: Elem) -> u64 {
    let key = |x: f64| -> i128 {
        if elem == Elem::F32 {
            let bits = (x as f32).to_bits() as i32;
            i128::from(if bits < 0 { i32::MIN - bits } else { bits })
        } else {
            let bits = x.to_bits() as i64;
            i128::from(if bits < 0 { i64::MIN - bits } else { bits })
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u128::from(u64::MAX)) as u64
}

/// The first element where `got` differs from `want` (elements of
/// `elem`): integers exactly; floats by more than `tolerance` relative to
/// the expected magnitude when given, else by more than `max_ulps` units
/// in the last place, NaN matching NaN. `(index, want, got)`; a length
/// difference is `(0, want's length, got's length)`.
pub fn first_difference(
    elem: Elem,
    want: &[u8],
    got: &[u8],
    tolerance: Option<f64>,
    max_ulps: u64,
) -> Option<(usize, f64, f64)> {
    if want.len() != got.len() {
        return Some((0, want.len() as f64, got.len() as f64));
    }
    for (i, (w, g)) in want
        .chunks_exact(elem.size())
        .zip(got.chunks_exact(elem.size()))
        .enumerate()
    {
        if w == g {
            continue;
        }
        let (wv, gv) = (elem.decode(w), elem.decode(g));
        let ok = elem.is_float()
            && ((wv.is_nan() && gv.is_nan())
                || match tolerance {
                    Some(t) => (wv - gv).abs() <= t * wv.abs().max(1.0),
                    None => ulps(wv, gv, elem) <= max_ulps,
                });
        if !ok {
            return Some((i, wv, gv));
        }
    }
    None
}

/// The first `@expect` of `case` the buffers `got(arg)` do not meet.
pub fn expect_failure(case: &Case, got: impl Fn(usize) -> Option<Vec<u8>>) -> Option<String> {
    for e in &case.expects {
        let (Some(g), Some(Arg::Buffer { elem, .. })) = (got(e.arg), case.args.get(e.arg)) else {
            return Some(format!("@expect {}: not a buffer", e.arg));
        };
        let vals: Vec<f64> = g
            .chunks_exact(elem.size())
            .map(|c| elem.decode(c))
            .collect();
        if vals.len() < e.values.len() {
            return Some(format!("@expect {}: only {} elements", e.arg, vals.len()));
        }
        for (at, (g, w)) in vals.iter().zip(&e.values).enumerate() {
            let good = if e.tolerance > 0.0 {
                (g - w).abs() <= e.tolerance * w.abs().max(1.0)
            } else {
                g == w || (g.is_nan() && w.is_nan())
            };
            if !good {
                return Some(format!(
                    "@expect {} element {at}: got {g}, expected {w}",
                    e.arg
                ));
            }
        }
    }
    None
}

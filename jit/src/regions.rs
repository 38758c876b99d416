//! The JIT's side of the region graph (`vecl_ir::transform::regions`):
//! the rewrite itself is an IR-to-IR transform; what is here turns a
//! group's disagreement at a barrier, as the chunk driver records it, into
//! words.

pub(crate) use vecl_ir::transform::regions::*;
use vecl_ir::Loc;

/// A [`crate::abi::BarrierDivergence`] in words, with the barriers' source
/// positions from `sites` ([`barrier_sites`]).
pub(crate) fn describe_divergence(
    sites: &[(u32, Loc)],
    d: &crate::abi::BarrierDivergence,
) -> String {
    let barrier = |number: u32| match sites.iter().find(|(n, _)| *n == number) {
        Some((_, loc)) if loc.is_known() => format!("barrier at line {}:{}", loc.line, loc.col),
        _ => "barrier".to_string(),
    };
    let id = |l: [u64; 3]| format!("({}, {}, {})", l[0], l[1], l[2]);
    let [g0, g1, g2] = d.group;
    let (a, b) = (&d.first, &d.second);
    let ((na, _), (nb, rb)) = (split_successor(a.next), split_successor(b.next));
    // Name a barrier one of them passes first.
    let (reached, other, nother, rother) = if na == 0 && nb != 0 {
        (b, a, na, split_successor(a.next).1)
    } else {
        (a, b, nb, rb)
    };
    let nreached = split_successor(reached.next).0;
    if nreached == 0 {
        return format!(
            "the work-items with local ids {} and {} in group ({g0}, {g1}, {g2}) took different ways \
             towards the next barrier (a loop or switch holding barriers entered by one of \
             them only); every work-item of a group must reach each barrier, or none",
            id(a.local_id),
            id(b.local_id)
        );
    }
    let instead = if nother != 0 {
        format!("which reached the {} instead", barrier(nother))
    } else if rother == END {
        "which finished the kernel".to_string()
    } else {
        "which went on without reaching it".to_string()
    };
    format!(
        "{} reached by the work-item with local id {} in group ({g0}, {g1}, {g2}) but not by \
         the one with local id {}, {instead}; every work-item of a group must reach it, or none",
        barrier(nreached),
        id(reached.local_id),
        id(other.local_id)
    )
}

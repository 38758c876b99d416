//! The geometry of rectangular copies (`clEnqueue{Read,Write,Copy}BufferRect`).
//!
//! A rectangle is an origin in bytes/rows/slices and the row and slice
//! pitches of the memory it lives in. The copy moves `region[0]` bytes per
//! row, `region[1]` rows per slice, `region[2]` slices. Pitches of 0 mean
//! "tightly packed", as the spec says.
//!
//! Image transfers are rectangular copies too: an image's pixels are rows of
//! `width * pixel_size` bytes at its row pitch, and its slices or array
//! layers sit at its slice pitch. [`RectCopy`] is a checked copy between two
//! such rectangles, planned when a command is enqueued and run later on the
//! addresses of the two sides.

use crate::error::{Error, Result};

/// One side of a rectangular copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    /// (bytes, rows, slices).
    pub origin: [u64; 3],
    /// Bytes between rows (0: `region[0]`).
    pub row_pitch: u64,
    /// Bytes between slices (0: `region[1] * row_pitch`).
    pub slice_pitch: u64,
}

/// A validated rectangle with its pitches resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ResolvedRect {
    origin: [u64; 3],
    pub(crate) row_pitch: u64,
    pub(crate) slice_pitch: u64,
}

impl Rect {
    /// Resolves default pitches and checks them against `region`.
    pub(crate) fn resolve(&self, region: &[u64; 3], side: &str) -> Result<ResolvedRect> {
        if region.contains(&0) {
            return Err(Error::InvalidValue(format!(
                "rectangle region {region:?} has a zero extent"
            )));
        }
        let row_pitch = if self.row_pitch == 0 {
            region[0]
        } else {
            self.row_pitch
        };
        if row_pitch < region[0] {
            return Err(Error::InvalidValue(format!(
                "{side} row pitch {row_pitch} < region width {}",
                region[0]
            )));
        }
        let min_slice = region[1]
            .checked_mul(row_pitch)
            .ok_or_else(|| Error::InvalidValue(format!("{side} slice size overflows")))?;
        let slice_pitch = if self.slice_pitch == 0 {
            min_slice
        } else {
            self.slice_pitch
        };
        if slice_pitch < min_slice || slice_pitch % row_pitch != 0 {
            return Err(Error::InvalidValue(format!(
                "{side} slice pitch {slice_pitch} must be a multiple of the row pitch {row_pitch} and at least {min_slice}"
            )));
        }
        Ok(ResolvedRect {
            origin: self.origin,
            row_pitch,
            slice_pitch,
        })
    }
}

impl ResolvedRect {
    /// A rectangle whose pitches are already known (an image's own layout).
    pub(crate) fn with_pitches(origin: [u64; 3], row_pitch: u64, slice_pitch: u64) -> ResolvedRect {
        ResolvedRect {
            origin,
            row_pitch,
            slice_pitch,
        }
    }

    /// The byte offset of row `y` of slice `z` of the region.
    pub(crate) fn row_offset(&self, y: u64, z: u64) -> u64 {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }

    /// `[first byte, one past the last byte]` the region touches; an error if
    /// the arithmetic overflows.
    pub(crate) fn extent(&self, region: &[u64; 3]) -> Result<(u64, u64)> {
        let last_row = (|| {
            let z = self.origin[2]
                .checked_add(region[2] - 1)?
                .checked_mul(self.slice_pitch)?;
            let y = self.origin[1]
                .checked_add(region[1] - 1)?
                .checked_mul(self.row_pitch)?;
            z.checked_add(y)?
                .checked_add(self.origin[0])?
                .checked_add(region[0])
        })()
        .ok_or_else(|| Error::InvalidValue("rectangle offsets overflow".into()))?;
        Ok((self.row_offset(0, 0), last_row))
    }
}

/// Whether a copy of `region` between two rectangles of one allocation
/// would touch a byte from both sides: `src_at` and `dst_at` are where the
/// two memory objects start in that allocation (sub-buffers shift them).
///
/// With equal pitches the test is exact, whatever the rows do (a row of the
/// region may even run past its row pitch into the next): row (y1, z1) of
/// the source and row (y2, z2) of the destination meet when their starts
/// are less than a row's width apart, `|δ + dz·slice + dy·row| < width`
/// with δ the distance of the two first bytes and dz, dy the differences of
/// the slice and row indices. For each dz at most two dy can satisfy it
/// (the row pitch is at least the width), so the test costs one step per
/// slice difference. Unequal pitches, or more than [`MAX_OVERLAP_STEPS`]
/// slice differences, take the extents' intersection as an overlap.
pub(crate) fn regions_overlap(
    src: &ResolvedRect,
    src_at: u64,
    dst: &ResolvedRect,
    dst_at: u64,
    region: &[u64; 3],
) -> bool {
    let (row, slice) = (i128::from(src.row_pitch), i128::from(src.slice_pitch));
    if src.row_pitch != dst.row_pitch || src.slice_pitch != dst.slice_pitch {
        return true;
    }
    let [width, height, depth] = region.map(i128::from);
    if depth > MAX_OVERLAP_STEPS {
        return true;
    }
    let first = |rect: &ResolvedRect, at: u64| i128::from(at) + i128::from(rect.row_offset(0, 0));
    let delta = first(dst, dst_at) - first(src, src_at);
    let reach = (height - 1) * row + width;
    (-(depth - 1)..depth).any(|dz| {
        let v = delta + dz * slice;
        if v.abs() >= reach {
            return false;
        }
        let c = (-v).div_euclid(row);
        [c, c + 1]
            .into_iter()
            .any(|dy| dy.abs() < height && (v + dy * row).abs() < width)
    })
}

/// The most slices [`regions_overlap`] compares exactly.
const MAX_OVERLAP_STEPS: i128 = 1 << 22;

/// Copies the region row by row from `src` to `dst`; rows that follow each
/// other on both sides (pitch = row length) are copied as one run, and so
/// are slices.
///
/// # Safety
/// Both pointers must be valid for every byte of their rectangle's extent,
/// and the two extents must not overlap.
pub(crate) unsafe fn copy_rect(
    src: *const u8,
    src_rect: &ResolvedRect,
    dst: *mut u8,
    dst_rect: &ResolvedRect,
    region: &[u64; 3],
) {
    let rows_packed = src_rect.row_pitch == region[0] && dst_rect.row_pitch == region[0];
    let slice_len = region[0] * region[1];
    let slices_packed =
        rows_packed && src_rect.slice_pitch == slice_len && dst_rect.slice_pitch == slice_len;
    // (bytes per run, runs per slice, slices)
    let (run, rows, slices) = if slices_packed {
        (slice_len * region[2], 1, 1)
    } else if rows_packed {
        (slice_len, 1, region[2])
    } else {
        (region[0], region[1], region[2])
    };
    for z in 0..slices {
        for y in 0..rows {
            let from = src_rect.row_offset(y, z) as usize;
            let to = dst_rect.row_offset(y, z) as usize;
            // SAFETY: each run lies inside its rectangle's extent (caller's
            // guarantee: packed rows and slices are the extent's bytes) and
            // the extents are disjoint.
            unsafe { std::ptr::copy_nonoverlapping(src.add(from), dst.add(to), run as usize) };
        }
    }
}

/// A rectangular copy whose two sides were checked against the memory they
/// address: `region[0]` bytes per row, `region[1]` rows, `region[2]`
/// slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RectCopy {
    pub(crate) src: ResolvedRect,
    pub(crate) dst: ResolvedRect,
    pub(crate) region: [u64; 3],
}

impl RectCopy {
    /// Bytes the copy moves.
    pub fn bytes(&self) -> u64 {
        self.region.iter().product()
    }

    /// `[first byte, one past the last byte]` the copy reads at the source.
    pub fn src_extent(&self) -> Result<(u64, u64)> {
        self.src.extent(&self.region)
    }

    /// `[first byte, one past the last byte]` the copy writes at the destination.
    pub fn dst_extent(&self) -> Result<(u64, u64)> {
        self.dst.extent(&self.region)
    }

    /// Runs the copy from the rectangle at `src` to the one at `dst`.
    ///
    /// # Safety
    /// `src` and `dst` must be the base addresses the copy was planned for:
    /// valid for every byte of their side's extent, and the two extents must
    /// not overlap.
    pub unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        // SAFETY: forwarded contract.
        unsafe { copy_rect(src, &self.src, dst, &self.dst, &self.region) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes a region of `rect` covers, by enumeration.
    fn covered(rect: &ResolvedRect, at: u64, region: &[u64; 3]) -> std::collections::HashSet<u64> {
        let mut bytes = std::collections::HashSet::new();
        for z in 0..region[2] {
            for y in 0..region[1] {
                let start = at + rect.row_offset(y, z);
                bytes.extend(start..start + region[0]);
            }
        }
        bytes
    }

    #[test]
    fn regions_of_one_buffer_overlap_exactly_when_they_share_a_byte() {
        // Pitches as the CTS gives them (rows of 16 or 23 bytes, slices of
        // 15 or 244 rows), origins and regions that do and do not meet,
        // rows that run past their pitch, and a sub-buffer's shift.
        let mut cases = 0;
        for (row, rows) in [(16u64, 15u64), (16, 244), (23, 15), (23, 244)] {
            let at = |origin| ResolvedRect::with_pitches(origin, row, row * rows);
            for (a, b, region) in [
                ([2, 96, 41], [2, 198, 97], [16, 15, 5]),
                ([0, 0, 0], [16, 0, 0], [16, 3, 2]),
                ([0, 0, 0], [8, 1, 0], [8, 3, 2]),
                ([0, 0, 0], [0, 0, 2], [5, 5, 2]),
                ([0, 0, 0], [0, 0, 1], [5, 5, 2]),
                ([3, 0, 0], [0, 1, 0], [16, 2, 1]),
            ] {
                for shift in [0, row, 7] {
                    let region: [u64; 3] = region;
                    let (src, dst) = (at(a), at(b));
                    let exact =
                        !covered(&src, 0, &region).is_disjoint(&covered(&dst, shift, &region));
                    assert_eq!(
                        regions_overlap(&src, 0, &dst, shift, &region),
                        exact,
                        "pitch {row}x{rows}: {a:?} -> {b:?} (+{shift}), region {region:?}"
                    );
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 72);
        // Unequal pitches are taken as overlapping.
        let one = ResolvedRect::with_pitches([0, 0, 0], 256, 256 * 64);
        let other = ResolvedRect::with_pitches([0, 0, 0], 512, 512 * 64);
        assert!(regions_overlap(&one, 0, &other, 1 << 20, &[16, 15, 20]));
    }

    #[test]
    fn default_pitches_pack_tightly() {
        let r = Rect {
            origin: [1, 2, 3],
            ..Rect::default()
        }
        .resolve(&[4, 5, 6], "src")
        .expect("valid");
        assert_eq!(r.row_pitch, 4);
        assert_eq!(r.slice_pitch, 20);
        assert_eq!(r.row_offset(0, 0), 3 * 20 + 2 * 4 + 1);
        assert_eq!(
            r.extent(&[4, 5, 6]).expect("extent").1,
            8 * 20 + 6 * 4 + 1 + 4
        );
    }

    #[test]
    fn bad_pitches_are_rejected() {
        let region = [8, 4, 2];
        assert!(Rect {
            row_pitch: 4,
            ..Rect::default()
        }
        .resolve(&region, "src")
        .is_err());
        assert!(Rect {
            row_pitch: 8,
            slice_pitch: 20,
            ..Rect::default()
        }
        .resolve(&region, "src")
        .is_err());
        assert!(Rect {
            row_pitch: 10,
            slice_pitch: 45,
            ..Rect::default()
        }
        .resolve(&region, "src")
        .is_err());
        assert!(Rect::default().resolve(&[0, 1, 1], "src").is_err());
    }

    #[test]
    fn packed_rows_and_slices_copy_as_runs() {
        // A packed 3x2x2 block into a pitched one and back: both directions
        // of the row-run and whole-region paths.
        let region = [3, 2, 2];
        let packed: Vec<u8> = (1..=12).collect();
        let p = Rect::default().resolve(&region, "packed").expect("packed");
        let q = Rect {
            origin: [1, 0, 0],
            row_pitch: 4,
            slice_pitch: 8,
        }
        .resolve(&region, "pitched")
        .expect("pitched");
        let mut pitched = vec![0u8; 16];
        // SAFETY: 12 and 16 bytes cover the two extents; distinct vectors.
        unsafe { copy_rect(packed.as_ptr(), &p, pitched.as_mut_ptr(), &q, &region) };
        assert_eq!(
            pitched,
            vec![0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12]
        );
        let mut back = vec![0u8; 12];
        // SAFETY: as above.
        unsafe { copy_rect(pitched.as_ptr(), &q, back.as_mut_ptr(), &p, &region) };
        assert_eq!(back, packed);
        let mut again = vec![0u8; 12];
        // SAFETY: both packed, 12 bytes each.
        unsafe { copy_rect(packed.as_ptr(), &p, again.as_mut_ptr(), &p, &region) };
        assert_eq!(again, packed);
        // Packed rows, pitched slices.
        let r = Rect {
            slice_pitch: 9,
            ..Rect::default()
        }
        .resolve(&region, "rows")
        .expect("rows");
        let mut rows = vec![0u8; 15];
        // SAFETY: the extent is 9 + 6 = 15 bytes.
        unsafe { copy_rect(packed.as_ptr(), &p, rows.as_mut_ptr(), &r, &region) };
        assert_eq!(rows, vec![1, 2, 3, 4, 5, 6, 0, 0, 0, 7, 8, 9, 10, 11, 12]);
    }

    #[test]
    fn copies_a_sub_rectangle() {
        // A 4x3 block out of an 8-wide, 5-row image, into a packed buffer.
        let src: Vec<u8> = (0..40).collect();
        let mut dst = vec![0u8; 12];
        let region = [4, 3, 1];
        let s = Rect {
            origin: [2, 1, 0],
            row_pitch: 8,
            slice_pitch: 0,
        }
        .resolve(&region, "src")
        .expect("src");
        let d = Rect::default().resolve(&region, "dst").expect("dst");
        // SAFETY: both vectors cover their extents; they are distinct.
        unsafe { copy_rect(src.as_ptr(), &s, dst.as_mut_ptr(), &d, &region) };
        assert_eq!(dst, vec![10, 11, 12, 13, 18, 19, 20, 21, 26, 27, 28, 29]);
    }
}

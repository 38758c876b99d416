//! [`Lanes`]: the lanes of one value of one work-item, held inline.
//!
//! Every instruction of every work-item produces one of these, so they
//! live on the stack rather than the heap: a value has at most 16 lanes
//! (the longest OpenCL vector).

use std::ops::{Deref, DerefMut};

/// The most lanes a value has.
pub const MAX_LANES: usize = 16;

/// Up to [`MAX_LANES`] lanes. Collecting more than that keeps the first 16
/// and marks the value as overlong, so a length check catches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lanes {
    len: u8,
    overlong: bool,
    lanes: [u64; MAX_LANES],
}

impl Lanes {
    pub const EMPTY: Lanes = Lanes {
        len: 0,
        overlong: false,
        lanes: [0; MAX_LANES],
    };

    pub fn one(x: u64) -> Lanes {
        Lanes::splat(x, 1)
    }

    pub fn splat(x: u64, n: usize) -> Lanes {
        let mut l = Lanes::EMPTY;
        for _ in 0..n {
            l.push(x);
        }
        l
    }

    pub fn push(&mut self, x: u64) {
        match self.lanes.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = x;
                self.len += 1;
            }
            None => self.overlong = true,
        }
    }

    /// The number of lanes pushed (more than [`MAX_LANES`] if it overflowed).
    pub fn count(&self) -> usize {
        usize::from(self.len) + usize::from(self.overlong)
    }
}

impl From<&[u64]> for Lanes {
    fn from(s: &[u64]) -> Lanes {
        s.iter().copied().collect()
    }
}

impl FromIterator<u64> for Lanes {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Lanes {
        let mut l = Lanes::EMPTY;
        for x in iter {
            l.push(x);
        }
        l
    }
}

impl Deref for Lanes {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        &self.lanes[..usize::from(self.len)]
    }
}

impl DerefMut for Lanes {
    fn deref_mut(&mut self) -> &mut [u64] {
        &mut self.lanes[..usize::from(self.len)]
    }
}

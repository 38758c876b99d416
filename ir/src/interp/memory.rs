//! Memory of an interpreted launch: objects reached through fat pointers.
//!
//! Every object a kernel can address — an argument buffer, a module global,
//! a `__local` variable or argument of the current work-group, a private
//! slot of one work-item — is a [`Region`] of bytes. A pointer value is the
//! pair (region, offset) packed into 64 bits: the region index in the top
//! 24 bits and the byte offset in the low 40. Index 0 is the null region
//! (size 0), so a null pointer is the integer 0 and every access through it
//! faults. Pointer arithmetic changes the offset only (modulo 2^40), so it
//! can never move a pointer into another object, and every load and store
//! is checked against the bounds of the one object it names.
//!
//! Pointers stored to memory are stored as this 64-bit encoding; `PtrToInt`
//! yields it too, so differences of pointers into one object are exact.

use crate::image::ImageDesc;
use crate::types::{AddressSpace, Scalar, StructDef, Type};

use super::lanes::Lanes;
use super::scalar;

const OFFSET_BITS: u32 = 40;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// Regions addressable by a pointer encoding (2^24).
const MAX_REGIONS: usize = 1 << 24;

/// Byte written into `__local` memory and private slots before a kernel
/// touches them, so reads of uninitialised memory are easy to recognise.
pub const UNINIT_BYTE: u8 = 0xcd;

/// A fat pointer: an object and a byte offset into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ptr {
    pub region: usize,
    pub offset: u64,
}

impl Ptr {
    pub fn encode(self) -> u64 {
        ((self.region as u64) << OFFSET_BITS) | (self.offset & OFFSET_MASK)
    }

    pub fn decode(bits: u64) -> Ptr {
        Ptr {
            region: (bits >> OFFSET_BITS) as usize,
            offset: bits & OFFSET_MASK,
        }
    }

    /// The pointer moved by `delta` bytes (wrapping within the offset field).
    pub fn add(self, delta: i64) -> Ptr {
        Ptr {
            region: self.region,
            offset: self.offset.wrapping_add(delta as u64) & OFFSET_MASK,
        }
    }
}

/// One addressable object.
#[derive(Debug)]
pub struct Region {
    pub space: AddressSpace,
    /// How reports name it: "argument `out`", "slot `tmp`", "null"…
    pub name: String,
    pub data: Vec<u8>,
    pub writable: bool,
}

/// An access that failed; the executor adds the kernel and work-item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    OutOfBounds {
        space: AddressSpace,
        offset: u64,
        size: u64,
        object: String,
    },
    ReadOnly {
        offset: u64,
        object: String,
    },
}

/// All regions of a launch. Regions below `persistent` live for the whole
/// launch (buffers, module globals); the rest belong to the current
/// work-group and are dropped by [`Memory::end_group`].
#[derive(Debug)]
pub struct Memory {
    regions: Vec<Region>,
    persistent: usize,
    /// Image arguments: the region holding an image's pixels and the
    /// descriptor the image builtins read (its `data` pointer unused).
    images: Vec<(usize, ImageDesc)>,
}

impl Memory {
    pub fn new() -> Memory {
        let null = Region {
            space: AddressSpace::Generic,
            name: "null".into(),
            data: Vec::new(),
            writable: false,
        };
        Memory {
            regions: vec![null],
            persistent: 1,
            images: Vec::new(),
        }
    }

    /// Records that `region` holds the pixels of an image described by `desc`.
    pub fn attach_image(&mut self, region: usize, desc: ImageDesc) {
        self.images.push((region, desc));
    }

    /// The descriptor and the pixels of the image a pointer names: `None`
    /// when it points at anything but the start of an image argument.
    pub fn image(&self, p: Ptr) -> Option<(&ImageDesc, &[u8])> {
        let (region, desc) = self
            .images
            .iter()
            .find(|(r, _)| *r == p.region && p.offset == 0)?;
        Some((desc, &self.regions.get(*region)?.data))
    }

    /// [`image`](Self::image), with the pixels writable.
    pub fn image_mut(&mut self, p: Ptr) -> Option<(ImageDesc, &mut [u8])> {
        let (region, desc) = *self
            .images
            .iter()
            .find(|(r, _)| *r == p.region && p.offset == 0)?;
        Some((desc, &mut self.regions.get_mut(region)?.data))
    }

    /// Adds an object and returns a pointer to its first byte, or `None`
    /// when the launch has used every region index.
    pub fn alloc(&mut self, region: Region) -> Option<Ptr> {
        if self.regions.len() >= MAX_REGIONS {
            return None;
        }
        self.regions.push(region);
        Some(Ptr {
            region: self.regions.len() - 1,
            offset: 0,
        })
    }

    /// Marks every region allocated so far as living for the whole launch.
    pub fn make_persistent(&mut self) {
        self.persistent = self.regions.len();
    }

    /// The number of regions now, to [`release`](Self::release) back to.
    pub fn mark(&self) -> usize {
        self.regions.len()
    }

    /// Drops the regions allocated since `mark` (a returning call's private
    /// memory); a pointer into them then faults, until the index is reused.
    pub fn release(&mut self, mark: usize) {
        self.regions.truncate(mark.max(self.persistent));
    }

    /// Drops the regions of the finished work-group.
    pub fn end_group(&mut self) {
        self.regions.truncate(self.persistent);
    }

    /// Takes the bytes of a region back out (buffers returned to the caller).
    pub fn take(&mut self, region: usize) -> Vec<u8> {
        self.regions
            .get_mut(region)
            .map(|r| std::mem::take(&mut r.data))
            .unwrap_or_default()
    }

    fn check(&self, p: Ptr, size: u64) -> Result<&Region, Fault> {
        let r = &self.regions[if p.region < self.regions.len() {
            p.region
        } else {
            0
        }];
        let fits = p
            .offset
            .checked_add(size)
            .is_some_and(|end| end <= r.data.len() as u64);
        if p.region == 0 || p.region >= self.regions.len() || !fits {
            return Err(Fault::OutOfBounds {
                space: r.space,
                offset: p.offset,
                size,
                object: if p.region >= self.regions.len() {
                    "a freed or invalid object".into()
                } else {
                    r.name.clone()
                },
            });
        }
        Ok(r)
    }

    /// Checks that `p`, reached through a pointer into `space`, points into
    /// an object of that address space (a `generic` pointer may point
    /// anywhere; `global` and `constant` are both device memory, whose
    /// objects say themselves whether they can be written). Null and
    /// dangling pointers are left to the bounds check.
    /// The address space of the object `p` names (`None` for null and
    /// pointers that name no object).
    pub fn space_of(&self, p: Ptr) -> Option<AddressSpace> {
        match self.regions.get(p.region) {
            Some(r) if p.region != 0 => Some(r.space),
            _ => None,
        }
    }

    pub fn check_space(&self, p: Ptr, space: AddressSpace, size: u64) -> Result<(), Fault> {
        let device = |s: AddressSpace| matches!(s, AddressSpace::Global | AddressSpace::Constant);
        match self.regions.get(p.region) {
            Some(r)
                if p.region != 0
                    && space != AddressSpace::Generic
                    && r.space != space
                    && !(device(r.space) && device(space)) =>
            {
                Err(Fault::OutOfBounds {
                    space,
                    offset: p.offset,
                    size,
                    object: format!("{} ({} memory, through a {space} pointer)", r.name, r.space),
                })
            }
            _ => Ok(()),
        }
    }

    pub fn read(&self, p: Ptr, size: u64) -> Result<&[u8], Fault> {
        let r = self.check(p, size)?;
        let at = p.offset as usize;
        Ok(&r.data[at..at + size as usize])
    }

    pub fn write(&mut self, p: Ptr, bytes: &[u8]) -> Result<(), Fault> {
        let r = self.check(p, bytes.len() as u64)?;
        if !r.writable {
            return Err(Fault::ReadOnly {
                offset: p.offset,
                object: r.name.clone(),
            });
        }
        let at = p.offset as usize;
        self.regions[p.region].data[at..at + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// The bytes of a NUL-terminated string, without the NUL; a string that
    /// runs off the end of its object faults.
    pub fn read_cstr(&self, p: Ptr) -> Result<Vec<u8>, Fault> {
        let mut out = Vec::new();
        let mut at = p;
        loop {
            let b = self.read(at, 1)?[0];
            if b == 0 {
                return Ok(out);
            }
            out.push(b);
            at = at.add(1);
        }
    }

    /// Loads a value of type `ty` (scalar, vector or pointer) as lanes.
    pub fn load(&self, p: Ptr, ty: &Type, structs: &[StructDef]) -> Result<Lanes, Fault> {
        let size = crate::types::size_of(ty, structs);
        let bytes = self.read(p, u64::from(size))?;
        Ok(decode(ty, bytes))
    }

    /// Writes initial bytes at `p`, read-only objects included (the
    /// addresses in the initial data of module-scope variables).
    pub fn init_bytes(&mut self, p: Ptr, bytes: &[u8]) -> Result<(), Fault> {
        self.check(p, bytes.len() as u64)?;
        let at = p.offset as usize;
        self.regions[p.region].data[at..at + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Stores lanes of type `ty`. The padding element of a 3-vector is
    /// bounds-checked (the object is four elements) but left unchanged.
    pub fn store(
        &mut self,
        p: Ptr,
        ty: &Type,
        lanes: &[u64],
        structs: &[StructDef],
    ) -> Result<(), Fault> {
        let size = crate::types::size_of(ty, structs);
        let r = self.check(p, u64::from(size))?;
        if !r.writable {
            return Err(Fault::ReadOnly {
                offset: p.offset,
                object: r.name.clone(),
            });
        }
        let (s, n) = lane_layout(ty);
        let w = s.size() as usize;
        let data = &mut self.regions[p.region].data[p.offset as usize..];
        for (k, l) in lanes.iter().take(n).enumerate() {
            data[k * w..(k + 1) * w].copy_from_slice(&l.to_le_bytes()[..w]);
        }
        Ok(())
    }
}

/// The element scalar and lane count of a value type as it sits in memory;
/// pointers are one 8-byte lane.
fn lane_layout(ty: &Type) -> (Scalar, usize) {
    match ty {
        Type::Scalar(s) => (*s, 1),
        Type::Vector(s, n) => (*s, usize::from(*n)),
        _ => (Scalar::U64, 1),
    }
}

/// Value lanes → little-endian bytes (bool as one byte; a 3-vector as its
/// three elements, without the padding element).
pub fn encode(ty: &Type, lanes: &[u64]) -> Vec<u8> {
    let (s, n) = lane_layout(ty);
    let w = s.size() as usize;
    let mut out = Vec::with_capacity(w * n);
    for &l in lanes.iter().take(n) {
        out.extend_from_slice(&l.to_le_bytes()[..w]);
    }
    out
}

/// Little-endian bytes → value lanes (a bool byte is true when non-zero).
pub fn decode(ty: &Type, bytes: &[u8]) -> Lanes {
    let (s, n) = lane_layout(ty);
    let w = s.size() as usize;
    (0..n)
        .map(|i| {
            let mut b = [0u8; 8];
            if let Some(src) = bytes.get(i * w..(i + 1) * w) {
                b[..w].copy_from_slice(src);
            }
            let bits = u64::from_le_bytes(b);
            if s == Scalar::Bool {
                u64::from(bits != 0)
            } else {
                scalar::mask(s, bits)
            }
        })
        .collect()
}

//! The host side of the image builtins: the generated code calls
//! [`vecl_read_image_lanes`] and [`vecl_write_image_lanes`] once per chunk
//! (a uniform image), or [`vecl_read_image`] and [`vecl_write_image`] once
//! per lane, with the operands in a stack record; these run the shared
//! definitions of `vecl_ir::image`, so a JIT-compiled kernel reads and
//! writes texels exactly as the interpreter does.
//!
//! A lane record is eight 32-bit words: the coordinate (x, y, z, w) in
//! words 0–3 (`int` or `float` bits, components the image does not use
//! ignored) and the colour in words 4–7 — written by the kernel for a
//! write, filled by the host for a read. A chunk record holds the same
//! eight components with one word per lane each, component-major.
//!
//! A chunk call resolves the image (shape, format, border colour) once
//! into a [`PreparedImage`] and converts every lane through it, so the
//! per-texel work is only the addressing and the pixel's conversion.

use vecl_ir::image::{self, Coord, ImageDesc, PixelValue, PreparedImage, TexelMemory, ValueClass};

/// `flags` bits of a call: the value class (0 float, 1 int, 2 uint) in
/// bits 0–1, whether a sampler is given in bit 2, whether the coordinate
/// is `float` in bit 3.
pub(crate) mod flag {
    pub const CLASS_INT: u32 = 1;
    pub const CLASS_UINT: u32 = 2;
    pub const CLASS_MASK: u32 = 3;
    pub const SAMPLER: u32 = 4;
    pub const FLOAT_COORD: u32 = 8;
}

/// The pixels of an image in host memory, as its descriptor describes them.
struct HostTexels {
    data: *mut u8,
    len: u64,
}

impl TexelMemory for HostTexels {
    #[inline]
    fn load(&self, offset: u64, out: &mut [u8]) -> bool {
        let fits = offset
            .checked_add(out.len() as u64)
            .is_some_and(|end| end <= self.len);
        if !fits || self.data.is_null() {
            return false;
        }
        // SAFETY: the runtime hands the kernel a descriptor whose `data`
        // holds `byte_len()` bytes for the whole launch, and the range was
        // checked against that length above.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.data.add(offset as usize),
                out.as_mut_ptr(),
                out.len(),
            );
        }
        true
    }

    #[inline]
    fn store(&mut self, offset: u64, bytes: &[u8]) -> bool {
        let fits = offset
            .checked_add(bytes.len() as u64)
            .is_some_and(|end| end <= self.len);
        if !fits || self.data.is_null() {
            return false;
        }
        // SAFETY: as in `load`; work-items writing the same texel race as
        // OpenCL allows (the result is one of the values written).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.data.add(offset as usize),
                bytes.len(),
            );
        }
        true
    }
}

fn class(flags: u32) -> ValueClass {
    match flags & flag::CLASS_MASK {
        flag::CLASS_INT => ValueClass::Int,
        flag::CLASS_UINT => ValueClass::Uint,
        _ => ValueClass::Float,
    }
}

/// The descriptor and the pixels behind an image argument; `None` for a
/// null image.
///
/// # Safety
/// `desc` is null or points to a live [`ImageDesc`].
unsafe fn image<'a>(desc: *const ImageDesc) -> Option<(&'a ImageDesc, HostTexels)> {
    // SAFETY: the caller's contract.
    let d = unsafe { desc.as_ref()? };
    let texels = HostTexels {
        data: d.data,
        len: d.byte_len(),
    };
    Some((d, texels))
}

/// `read_image{f,i,ui}` of one lane: reads `record[0..4]` as the coordinate
/// and writes the pixel into `record[4..8]`. An inactive lane (`active`
/// 0) or a null image does nothing.
///
/// # Safety
/// `desc` is null or points to a live descriptor whose pixels are valid;
/// `record` points to eight writable `u32`s.
pub(crate) unsafe extern "C" fn vecl_read_image(
    desc: *const ImageDesc,
    sampler: u32,
    flags: u32,
    record: *mut u32,
    active: i32,
) {
    if active == 0 {
        return;
    }
    // SAFETY: the generated code passes the kernel's image argument.
    let Some((d, texels)) = (unsafe { image(desc) }) else {
        return;
    };
    // SAFETY: the record is the caller's eight-word stack slot.
    let words = unsafe { std::slice::from_raw_parts_mut(record, 8) };
    let c: [u32; 4] = std::array::from_fn(|i| words[i]);
    let coord = if flags & flag::FLOAT_COORD != 0 {
        Coord::Float(c.map(f32::from_bits))
    } else {
        Coord::Int(c.map(|x| x as i32))
    };
    let sampler = (flags & flag::SAMPLER != 0).then_some(sampler);
    let v = image::read_image(d, &texels, sampler, coord, class(flags));
    words[4..].copy_from_slice(&v.bits());
}

/// `write_image{f,i,ui}` of one lane: the `int` coordinate in
/// `record[0..4]`, the colour in `record[4..8]`. An inactive lane or a null
/// image does nothing.
///
/// # Safety
/// As [`vecl_read_image`]; the record is only read.
pub(crate) unsafe extern "C" fn vecl_write_image(
    desc: *const ImageDesc,
    flags: u32,
    record: *const u32,
    active: i32,
) {
    if active == 0 {
        return;
    }
    // SAFETY: the generated code passes the kernel's image argument.
    let Some((d, mut texels)) = (unsafe { image(desc) }) else {
        return;
    };
    // SAFETY: the record is the caller's eight-word stack slot.
    let words = unsafe { std::slice::from_raw_parts(record, 8) };
    let coord: [i32; 4] = std::array::from_fn(|i| words[i] as i32);
    let color: [u32; 4] = std::array::from_fn(|i| words[4 + i]);
    image::write_image(
        d,
        &mut texels,
        coord,
        PixelValue::from_bits(class(flags), color),
    );
}

/// `read_image{f,i,ui}` of a whole chunk of `lanes` work-items (at most
/// 32). The record is eight components of `lanes` words each,
/// component-major: the coordinate's (x, y, z, w) in components 0–3, the
/// results written into components 4–7. Lane `j` is read when bit `j` of
/// `active` is set; an inactive lane's results are 0.
///
/// # Safety
/// `desc` is null or points to a live descriptor whose pixels are valid;
/// `record` points to `8 · lanes` writable `u32`s.
pub(crate) unsafe extern "C" fn vecl_read_image_lanes(
    desc: *const ImageDesc,
    sampler: u32,
    flags: u32,
    record: *mut u32,
    lanes: u32,
    active: u32,
) {
    let n = lanes.min(32) as usize;
    // SAFETY: the record is the caller's chunk-sized stack slot.
    let words = unsafe { std::slice::from_raw_parts_mut(record, 8 * n) };
    // SAFETY: the generated code passes the kernel's image argument.
    let img = unsafe { image(desc) };
    let prepared = img
        .as_ref()
        .and_then(|(d, texels)| Some((PreparedImage::new(d)?, texels)));
    let sampler = (flags & flag::SAMPLER != 0).then_some(sampler);
    let class = class(flags);
    let float_coord = flags & flag::FLOAT_COORD != 0;
    for j in 0..n {
        let v = match &prepared {
            Some((p, texels)) if active >> j & 1 == 1 => {
                let c: [u32; 4] = std::array::from_fn(|k| words[k * n + j]);
                let coord = if float_coord {
                    Coord::Float(c.map(f32::from_bits))
                } else {
                    Coord::Int(c.map(|x| x as i32))
                };
                p.read(*texels, sampler, coord, class).bits()
            }
            _ => [0; 4],
        };
        for (k, b) in v.into_iter().enumerate() {
            words[(4 + k) * n + j] = b;
        }
    }
}

/// `write_image{f,i,ui}` of a whole chunk: the `int` coordinate in
/// components 0–3 and the colour in components 4–7 of a component-major
/// record of `lanes` words per component; lane `j` writes when bit `j` of
/// `active` is set, in lane order.
///
/// # Safety
/// As [`vecl_read_image_lanes`]; the record is only read.
pub(crate) unsafe extern "C" fn vecl_write_image_lanes(
    desc: *const ImageDesc,
    flags: u32,
    record: *const u32,
    lanes: u32,
    active: u32,
) {
    let n = lanes.min(32) as usize;
    // SAFETY: the generated code passes the kernel's image argument.
    let Some((d, mut texels)) = (unsafe { image(desc) }) else {
        return;
    };
    // SAFETY: the record is the caller's chunk-sized stack slot.
    let words = unsafe { std::slice::from_raw_parts(record, 8 * n) };
    let Some(prepared) = PreparedImage::new(d) else {
        return;
    };
    let class = class(flags);
    for j in (0..n).filter(|j| active >> j & 1 == 1) {
        let coord: [i32; 4] = std::array::from_fn(|k| words[k * n + j] as i32);
        let color: [u32; 4] = std::array::from_fn(|k| words[(4 + k) * n + j]);
        prepared.write(&mut texels, coord, PixelValue::from_bits(class, color));
    }
}

/// The symbols of this file the generated code imports.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("vecl_read_image", vecl_read_image as *const u8),
        ("vecl_write_image", vecl_write_image as *const u8),
        ("vecl_read_image_lanes", vecl_read_image_lanes as *const u8),
        (
            "vecl_write_image_lanes",
            vecl_write_image_lanes as *const u8,
        ),
    ]
}

//! Images: memory objects with a pixel format and a 1-D, 2-D or 3-D layout,
//! the transfers between them, buffers and host memory, and the descriptor
//! a kernel's image argument points to.
//!
//! An image is a [`Mem`] with an [`ImageInfo`] attached. Its pixels are
//! rows of `width * pixel_size` bytes, `row_pitch` apart; 2-D slices of a
//! 3-D image and layers of an array are `slice_pitch` apart (for a 1-D
//! array, a layer is one row). Images the device allocates are packed
//! tightly; with `CL_MEM_USE_HOST_PTR` the application's memory is the image
//! (zero copy), laid out with the pitches it gave; a 1-D image buffer (and a
//! 2-D image made from a buffer) is a window on the buffer's bytes.
//!
//! Every transfer is a rectangular copy in bytes ([`RectCopy`]): an image
//! region is `region[0] * pixel_size` bytes per row, `region[1]` rows (or
//! layers of a 1-D array), `region[2]` slices (or layers of a 2-D array).
//! The checks here are those of `clCreateImage`, `clEnqueue*Image` and
//! `clEnqueueCopy{Image,Buffer}To{Buffer,Image}`, so every API layer
//! enforces the same ones; the pixel formats themselves (sizes, encoding of
//! a fill colour) are `vecl_ir::image`'s, shared with the kernel builtins.

use crate::device_limits::max_mem_alloc_size;
use crate::error::{Error, Result};
use crate::host_alloc::AlignedBytes;
use crate::memory::{check_buffer_flags, Mem, MemFlags, Storage};
use crate::rect::{RectCopy, ResolvedRect};
use vecl_ir::image::{self as ir, channel, object, order, ImageDesc, PixelValue};

/// The device's image limits, reported by `clGetDeviceInfo` and enforced
/// when an image is created (at least the OpenCL 1.2 full-profile minimums).
pub mod limits {
    use crate::device_limits::max_mem_alloc_size;

    /// `CL_DEVICE_IMAGE2D_MAX_WIDTH` (also the width limit of 1-D images).
    pub const IMAGE2D_MAX_WIDTH: u64 = 16384;
    /// `CL_DEVICE_IMAGE2D_MAX_HEIGHT`.
    pub const IMAGE2D_MAX_HEIGHT: u64 = 16384;
    /// `CL_DEVICE_IMAGE3D_MAX_WIDTH`.
    pub const IMAGE3D_MAX_WIDTH: u64 = 2048;
    /// `CL_DEVICE_IMAGE3D_MAX_HEIGHT`.
    pub const IMAGE3D_MAX_HEIGHT: u64 = 2048;
    /// `CL_DEVICE_IMAGE3D_MAX_DEPTH`.
    pub const IMAGE3D_MAX_DEPTH: u64 = 2048;
    /// `CL_DEVICE_IMAGE_MAX_ARRAY_SIZE`.
    pub const IMAGE_MAX_ARRAY_SIZE: u64 = 2048;
    /// `CL_DEVICE_MAX_READ_IMAGE_ARGS`.
    pub const MAX_READ_IMAGE_ARGS: u32 = 128;
    /// `CL_DEVICE_MAX_WRITE_IMAGE_ARGS`.
    pub const MAX_WRITE_IMAGE_ARGS: u32 = 64;
    /// `CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS`.
    pub const MAX_READ_WRITE_IMAGE_ARGS: u32 = 64;
    /// `CL_DEVICE_MAX_SAMPLERS`.
    pub const MAX_SAMPLERS: u32 = 16;
    /// `CL_DEVICE_IMAGE_PITCH_ALIGNMENT`, in pixels: any row pitch that
    /// holds a row will do (kernels read pixels at any address).
    pub const IMAGE_PITCH_ALIGNMENT: u32 = 1;
    /// `CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT`, in pixels.
    pub const IMAGE_BASE_ADDRESS_ALIGNMENT: u32 = 1;

    /// `CL_DEVICE_IMAGE_MAX_BUFFER_SIZE`, in pixels: as many of the largest
    /// pixels (16 bytes) as the largest allocation holds.
    pub fn image_max_buffer_size() -> u64 {
        max_mem_alloc_size() / 16
    }
}

/// `cl_image_format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageFormat {
    /// A `CL_R`, `CL_RGBA`, … code.
    pub order: u32,
    /// A `CL_UNORM_INT8`, `CL_FLOAT`, … code.
    pub channel_type: u32,
}

/// Channel orders of the OpenCL headers beyond `vecl_ir::image::order`:
/// valid codes the device does not support.
const OTHER_ORDERS: [u32; 7] = [
    0x10BD, // CL_DEPTH
    0x10BE, // CL_DEPTH_STENCIL
    0x10BF, // CL_sRGB
    0x10C0, // CL_sRGBx
    0x10C1, // CL_sRGBA
    0x10C2, // CL_sBGRA
    0x10C3, // CL_ABGR
];
/// `CL_UNORM_INT24` and `CL_UNORM_INT_101010_2`.
const OTHER_CHANNEL_TYPES: [u32; 2] = [0x10DF, 0x10E0];

impl ImageFormat {
    /// The format's pixel size, after the checks of `clCreateImage`:
    /// `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` for codes that are not a channel
    /// order and type, or a pairing the specification's table of channel
    /// orders forbids; `CL_IMAGE_FORMAT_NOT_SUPPORTED` for a valid format
    /// outside [`supported_formats`].
    pub fn check(&self) -> Result<u32> {
        use channel::*;
        let (o, t) = (self.order, self.channel_type);
        let known_order = (order::R..=order::RGBX).contains(&o) || OTHER_ORDERS.contains(&o);
        let known_type = (SNORM_INT8..=FLOAT).contains(&t) || OTHER_CHANNEL_TYPES.contains(&t);
        if !known_order || !known_type {
            return Err(Error::InvalidImageFormatDescriptor);
        }
        let packed = [UNORM_SHORT_565, UNORM_SHORT_555, UNORM_INT_101010];
        let eight_bit = [UNORM_INT8, SNORM_INT8, SIGNED_INT8, UNSIGNED_INT8];
        let normalised_or_float = [
            UNORM_INT8,
            UNORM_INT16,
            SNORM_INT8,
            SNORM_INT16,
            HALF_FLOAT,
            FLOAT,
        ];
        // The table of channel orders: "This format can only be used if
        // channel data type = …".
        let allowed = match o {
            order::INTENSITY | order::LUMINANCE => normalised_or_float.contains(&t),
            order::RGB | order::RGBX => packed.contains(&t),
            order::BGRA | order::ARGB | 0x10C3 => eight_bit.contains(&t),
            0x10BF..=0x10C2 => t == UNORM_INT8,
            0x10BD => t == UNORM_INT16 || t == FLOAT,
            0x10BE => t == 0x10DF || t == FLOAT,
            _ => !packed.contains(&t) && t != 0x10DF && (t != 0x10E0 || o == order::RGBA),
        };
        if !allowed {
            return Err(Error::InvalidImageFormatDescriptor);
        }
        if !ir::SUPPORTED_FORMATS.contains(&(o, t)) {
            return Err(Error::ImageFormatNotSupported);
        }
        ir::pixel_size(o, t).ok_or(Error::ImageFormatNotSupported)
    }

    /// How `clEnqueueFillImage` reads this format's fill colour: four
    /// `int`s for signed integer channels, four `uint`s for unsigned ones,
    /// four `float`s otherwise.
    pub fn fill_value(&self, color: [u8; 16]) -> PixelValue {
        let bits = std::array::from_fn(|i| {
            u32::from_ne_bytes([
                color[4 * i],
                color[4 * i + 1],
                color[4 * i + 2],
                color[4 * i + 3],
            ])
        });
        PixelValue::from_bits(ir::value_class(self.channel_type), bits)
    }
}

/// The formats `clGetSupportedImageFormats` lists, for every image type
/// and access.
pub fn supported_formats() -> Vec<ImageFormat> {
    ir::SUPPORTED_FORMATS
        .iter()
        .map(|&(order, channel_type)| ImageFormat {
            order,
            channel_type,
        })
        .collect()
}

/// `cl_image_desc` without its memory object: the image type, its size and
/// the pitches of the host memory (or of the buffer) it is made from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImageShape {
    /// A `CL_MEM_OBJECT_IMAGE*` code.
    pub image_type: u32,
    /// Pixels per row.
    pub width: u64,
    /// Rows; 0 or 1 for 1-D images and 1-D arrays.
    pub height: u64,
    /// Slices of a 3-D image; 0 or 1 for the others.
    pub depth: u64,
    /// Layers of an image array; 0 for other images.
    pub array_size: u64,
    /// Bytes between rows of the host memory or buffer; 0 for the default.
    pub row_pitch: u64,
    /// Bytes between slices or layers of the host memory; 0 for the default.
    pub slice_pitch: u64,
}

/// An image's format and layout, fixed when it is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageInfo {
    /// Channel order and data type of a pixel.
    pub format: ImageFormat,
    /// A `CL_MEM_OBJECT_IMAGE*` code.
    pub image_type: u32,
    /// Pixels per row.
    pub width: u64,
    /// 1 for 1-D images and 1-D arrays.
    pub height: u64,
    /// 1 for everything but 3-D images.
    pub depth: u64,
    /// Layers of an array; 0 for other images.
    pub array_size: u64,
    /// Bytes between rows.
    pub row_pitch: u64,
    /// Bytes between 2-D slices of a 3-D image or layers of an array; 0 for
    /// 1-D and 2-D images (`CL_IMAGE_SLICE_PITCH`).
    pub slice_pitch: u64,
    /// Bytes per pixel (`CL_IMAGE_ELEMENT_SIZE`).
    pub pixel_size: u32,
}

impl ImageInfo {
    /// Whether the image is a 1-D or 2-D array.
    pub fn is_array(&self) -> bool {
        matches!(
            self.image_type,
            object::IMAGE1D_ARRAY | object::IMAGE2D_ARRAY
        )
    }

    /// How far origins and regions reach in each of their three
    /// coordinates: pixels, then rows or 1-D layers, then slices or 2-D
    /// layers (1 where the image has no such coordinate).
    pub fn extent(&self) -> [u64; 3] {
        match self.image_type {
            object::IMAGE1D_ARRAY => [self.width, self.array_size, 1],
            object::IMAGE2D_ARRAY => [self.width, self.height, self.array_size],
            _ => [self.width, self.height, self.depth],
        }
    }

    /// Bytes between neighbours in the second and third coordinates.
    fn strides(&self) -> (u64, u64) {
        match self.image_type {
            object::IMAGE1D_ARRAY => (self.slice_pitch, self.slice_pitch),
            _ => (self.row_pitch, self.slice_pitch),
        }
    }

    /// Bytes the image's pixels span in its storage.
    pub fn storage_size(&self) -> u64 {
        let [_, rows, slices] = self.extent();
        let (s1, s2) = self.strides();
        match self.image_type {
            object::IMAGE1D_ARRAY => s1 * rows,
            object::IMAGE2D_ARRAY | object::IMAGE3D => s2 * slices,
            _ => self.row_pitch * rows,
        }
    }

    /// Checks an origin and region of `clEnqueue*Image`: "CL_INVALID_VALUE
    /// if the region being read or written specified by origin and region is
    /// out of bounds", or if a coordinate the image does not have is not
    /// origin 0 and region 1.
    pub fn check_region(&self, origin: [u64; 3], region: [u64; 3]) -> Result<()> {
        if region.contains(&0) {
            return Err(Error::InvalidValue(format!(
                "image region {region:?} has a zero extent"
            )));
        }
        let extent = self.extent();
        for d in 0..3 {
            let fits = origin[d]
                .checked_add(region[d])
                .is_some_and(|end| end <= extent[d]);
            if !fits {
                return Err(Error::InvalidValue(format!(
                    "image region {origin:?}+{region:?} exceeds the image's {extent:?}"
                )));
            }
        }
        Ok(())
    }

    /// The image's own rectangle starting at `origin`, in bytes.
    fn rect(&self, origin: [u64; 3]) -> ResolvedRect {
        let (s1, s2) = self.strides();
        ResolvedRect::with_pitches(
            [origin[0] * u64::from(self.pixel_size), origin[1], origin[2]],
            s1,
            s2,
        )
    }

    /// A region in pixels as a region in bytes.
    fn byte_region(&self, region: [u64; 3]) -> [u64; 3] {
        [region[0] * u64::from(self.pixel_size), region[1], region[2]]
    }

    /// The rectangle of host memory a read or write of `region` uses:
    /// "If row_pitch is 0, the appropriate row pitch is calculated based on
    /// the size of each element in bytes multiplied by width"; the slice
    /// pitch defaults to `row_pitch * region[1]` (for a 1-D array, the
    /// distance between layers, which defaults to the row pitch).
    fn host_rect(
        &self,
        region: [u64; 3],
        row_pitch: u64,
        slice_pitch: u64,
    ) -> Result<ResolvedRect> {
        let row_bytes = region[0] * u64::from(self.pixel_size);
        let row_pitch = if row_pitch == 0 { row_bytes } else { row_pitch };
        if row_pitch < row_bytes {
            return Err(Error::InvalidValue(format!(
                "host row pitch {row_pitch} < {row_bytes} bytes of a row"
            )));
        }
        if self.image_type == object::IMAGE1D_ARRAY {
            let layer = if slice_pitch == 0 {
                row_pitch
            } else {
                slice_pitch
            };
            if layer < row_pitch {
                return Err(Error::InvalidValue(format!(
                    "host slice pitch {layer} < row pitch {row_pitch}"
                )));
            }
            return Ok(ResolvedRect::with_pitches([0; 3], layer, layer));
        }
        let min_slice = row_pitch
            .checked_mul(region[1])
            .ok_or_else(|| Error::InvalidValue("host slice size overflows".into()))?;
        let slice_pitch = if slice_pitch == 0 || region[2] == 1 {
            slice_pitch.max(min_slice)
        } else {
            slice_pitch
        };
        if slice_pitch < min_slice {
            return Err(Error::InvalidValue(format!(
                "host slice pitch {slice_pitch} < {min_slice} bytes of a slice"
            )));
        }
        Ok(ResolvedRect::with_pitches([0; 3], row_pitch, slice_pitch))
    }

    /// What a kernel's image argument points to, for pixels at `data`.
    pub fn descriptor(&self, data: *mut u8) -> ImageDesc {
        let slice_pitch = match self.image_type {
            object::IMAGE1D | object::IMAGE1D_BUFFER => self.row_pitch,
            object::IMAGE2D => self.row_pitch * self.height,
            _ => self.slice_pitch,
        };
        ImageDesc {
            data,
            width: self.width,
            height: self.height,
            depth: self.depth,
            array_size: self.array_size,
            row_pitch: self.row_pitch,
            slice_pitch,
            channel_order: self.format.order,
            channel_type: self.format.channel_type,
            image_type: self.image_type,
            pixel_size: self.pixel_size,
        }
    }
}

/// Checks a shape's type and sizes against the device's limits:
/// `CL_INVALID_IMAGE_DESCRIPTOR` for an unknown type or a zero size,
/// `CL_INVALID_IMAGE_SIZE` beyond the limits.
fn check_shape(shape: &ImageShape) -> Result<()> {
    use limits::*;
    // (width, height, depth, array) limits; 0 where the size is unused.
    let (w, h, d, a) = match shape.image_type {
        object::IMAGE1D => (IMAGE2D_MAX_WIDTH, 0, 0, 0),
        object::IMAGE1D_BUFFER => (image_max_buffer_size(), 0, 0, 0),
        object::IMAGE1D_ARRAY => (IMAGE2D_MAX_WIDTH, 0, 0, IMAGE_MAX_ARRAY_SIZE),
        object::IMAGE2D => (IMAGE2D_MAX_WIDTH, IMAGE2D_MAX_HEIGHT, 0, 0),
        object::IMAGE2D_ARRAY => (
            IMAGE2D_MAX_WIDTH,
            IMAGE2D_MAX_HEIGHT,
            0,
            IMAGE_MAX_ARRAY_SIZE,
        ),
        object::IMAGE3D => (IMAGE3D_MAX_WIDTH, IMAGE3D_MAX_HEIGHT, IMAGE3D_MAX_DEPTH, 0),
        _ => return Err(Error::InvalidImageDescriptor),
    };
    let sizes = [
        (shape.width, w),
        (shape.height, h),
        (shape.depth, d),
        (shape.array_size, a),
    ];
    for (size, limit) in sizes {
        if limit != 0 && size == 0 {
            return Err(Error::InvalidImageDescriptor);
        }
    }
    for (size, limit) in sizes {
        if limit != 0 && size > limit {
            return Err(Error::InvalidImageSize);
        }
    }
    Ok(())
}

/// The image's layout in memory with the given row and slice pitches (0:
/// packed); `CL_INVALID_IMAGE_DESCRIPTOR` when a pitch is too small or not
/// a multiple of what it must be.
fn layout(
    format: ImageFormat,
    pixel_size: u32,
    shape: &ImageShape,
    row_pitch: u64,
    slice_pitch: u64,
) -> Result<ImageInfo> {
    let px = u64::from(pixel_size);
    let (height, depth, array_size) = match shape.image_type {
        object::IMAGE1D | object::IMAGE1D_BUFFER => (1, 1, 0),
        object::IMAGE1D_ARRAY => (1, 1, shape.array_size),
        object::IMAGE2D => (shape.height, 1, 0),
        object::IMAGE2D_ARRAY => (shape.height, 1, shape.array_size),
        _ => (shape.height, shape.depth, 0),
    };
    let row_bytes = shape.width * px;
    let row_pitch = if row_pitch == 0 { row_bytes } else { row_pitch };
    // "If image_row_pitch is not 0, it must be a multiple of the image
    // element size in bytes" and at least a row.
    if row_pitch < row_bytes || !row_pitch.is_multiple_of(px) {
        return Err(Error::InvalidImageDescriptor);
    }
    let has_slices = matches!(
        shape.image_type,
        object::IMAGE1D_ARRAY | object::IMAGE2D_ARRAY | object::IMAGE3D
    );
    let slice_pitch = if has_slices {
        // "image_slice_pitch … must be greater than or equal to
        // image_row_pitch * image_height for a 2D image array or 3D image
        // and can be greater than or equal to image_row_pitch for a 1D
        // image array … must be a multiple of the image_row_pitch."
        let min = row_pitch
            .checked_mul(height)
            .ok_or(Error::InvalidImageSize)?;
        let pitch = if slice_pitch == 0 { min } else { slice_pitch };
        if pitch < min || !pitch.is_multiple_of(row_pitch) {
            return Err(Error::InvalidImageDescriptor);
        }
        pitch
    } else {
        0
    };
    let info = ImageInfo {
        format,
        image_type: shape.image_type,
        width: shape.width,
        height,
        depth,
        array_size,
        row_pitch,
        slice_pitch,
        pixel_size,
    };
    // Pitches and sizes within the limits cannot overflow a u64, but the
    // pitches are the application's: check.
    let [_, rows, slices] = info.extent();
    let fits = |a: u64, b: u64| a.checked_mul(b).is_some();
    if !fits(row_pitch, rows) || !fits(slice_pitch, slices) {
        return Err(Error::InvalidImageSize);
    }
    Ok(info)
}

/// "CL_INVALID_VALUE if an image is being created from another memory
/// object (buffer or image)" and `flags` names a host pointer or widens the
/// object's device or host access. Returns the flags with the unstated
/// access modes inherited.
fn flags_from(parent: MemFlags, flags: MemFlags) -> Result<MemFlags> {
    check_buffer_flags(flags)?;
    let widens = flags
        .intersects(MemFlags::USE_HOST_PTR | MemFlags::ALLOC_HOST_PTR | MemFlags::COPY_HOST_PTR)
        || (parent.contains(MemFlags::WRITE_ONLY)
            && flags.intersects(MemFlags::READ_WRITE | MemFlags::READ_ONLY))
        || (parent.contains(MemFlags::READ_ONLY)
            && flags.intersects(MemFlags::READ_WRITE | MemFlags::WRITE_ONLY))
        || (parent.contains(MemFlags::HOST_WRITE_ONLY) && flags.contains(MemFlags::HOST_READ_ONLY))
        || (parent.contains(MemFlags::HOST_READ_ONLY) && flags.contains(MemFlags::HOST_WRITE_ONLY))
        || (parent.contains(MemFlags::HOST_NO_ACCESS)
            && flags.intersects(MemFlags::HOST_READ_ONLY | MemFlags::HOST_WRITE_ONLY));
    if widens {
        return Err(Error::InvalidValue(
            "an image made from a buffer cannot name a host pointer or widen the buffer's access"
                .into(),
        ));
    }
    let device = MemFlags::READ_WRITE | MemFlags::WRITE_ONLY | MemFlags::READ_ONLY;
    let host = MemFlags::HOST_WRITE_ONLY | MemFlags::HOST_READ_ONLY | MemFlags::HOST_NO_ACCESS;
    let host_ptr_kind = MemFlags::USE_HOST_PTR | MemFlags::ALLOC_HOST_PTR | MemFlags::COPY_HOST_PTR;
    let mut out = flags.0 | (parent.0 & host_ptr_kind.0);
    if !flags.intersects(device) {
        out |= parent.0 & device.0;
    }
    if !flags.intersects(host) {
        out |= parent.0 & host.0;
    }
    Ok(MemFlags(out))
}

/// A 2-D image from a buffer: "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D
/// image is created from a buffer and the row pitch and base address
/// alignment does not follow the rules described for creating a 2D image
/// from a buffer": the row pitch a multiple of `IMAGE_PITCH_ALIGNMENT`
/// pixels, and the host pointer of a `USE_HOST_PTR` buffer aligned to
/// `IMAGE_BASE_ADDRESS_ALIGNMENT` pixels.
fn check_buffer_alignment(buffer: &Mem, pixel_size: u32, shape: &ImageShape) -> Result<()> {
    let px = u64::from(pixel_size);
    let pitch_unit = px * u64::from(limits::IMAGE_PITCH_ALIGNMENT);
    let base_unit = px * u64::from(limits::IMAGE_BASE_ADDRESS_ALIGNMENT);
    let host = buffer.host_ptr() as u64;
    if !shape.row_pitch.is_multiple_of(pitch_unit) || !host.is_multiple_of(base_unit) {
        return Err(Error::InvalidImageFormatDescriptor);
    }
    Ok(())
}

impl Mem {
    /// `clCreateImage`: an image of `format` and `shape`, in its own
    /// storage or (for a 1-D image buffer or a 2-D image from a buffer) in
    /// `buffer`'s bytes.
    ///
    /// # Safety
    /// With `COPY_HOST_PTR`, `host_ptr` must be valid for reads of the
    /// image's bytes at the shape's pitches during the call; with
    /// `USE_HOST_PTR`, valid for reads and writes of them for as long as the
    /// image (and anything holding it) lives.
    pub unsafe fn create_image(
        flags: MemFlags,
        format: ImageFormat,
        shape: &ImageShape,
        host_ptr: *mut u8,
        buffer: Option<&Mem>,
    ) -> Result<Mem> {
        let pixel_size = format.check()?;
        check_shape(shape)?;
        let from_buffer = matches!(shape.image_type, object::IMAGE1D_BUFFER | object::IMAGE2D)
            && buffer.is_some();
        if shape.image_type == object::IMAGE1D_BUFFER && buffer.is_none() {
            return Err(Error::InvalidImageDescriptor);
        }
        if buffer.is_some() && !from_buffer {
            return Err(Error::InvalidImageDescriptor);
        }
        match buffer {
            Some(buffer) => {
                if buffer.image().is_some() {
                    // Images made from images (OpenCL 2.0's sRGB views) are
                    // not offered.
                    return Err(Error::InvalidImageDescriptor);
                }
                let flags = flags_from(buffer.flags(), flags)?;
                if !host_ptr.is_null() {
                    return Err(Error::InvalidHostPtr(
                        "an image made from a buffer takes no host pointer".into(),
                    ));
                }
                let info = if shape.image_type == object::IMAGE2D {
                    check_buffer_alignment(buffer, pixel_size, shape)?;
                    layout(format, pixel_size, shape, shape.row_pitch, 0)
                        .map_err(|_| Error::InvalidImageFormatDescriptor)?
                } else {
                    // A 1-D image buffer is one row: a row pitch, when given,
                    // is checked and then has nothing to space.
                    layout(format, pixel_size, shape, shape.row_pitch, 0)?;
                    layout(format, pixel_size, shape, 0, 0)?
                };
                // "CL_INVALID_IMAGE_SIZE if … the buffer … is not large
                // enough": the size of buffer must be at least the image's.
                if info.storage_size() > buffer.size() {
                    return Err(Error::InvalidImageSize);
                }
                let storage = Storage::Sub {
                    parent: buffer.clone(),
                    origin: 0,
                };
                let size = info.storage_size();
                Ok(Mem::with_image(
                    flags,
                    size,
                    storage,
                    buffer.host_ptr(),
                    Some(info),
                ))
            }
            // SAFETY: forwarded contract.
            None => unsafe {
                Mem::create_image_storage(flags, format, pixel_size, shape, host_ptr)
            },
        }
    }

    /// An image in its own storage (or the application's, with
    /// `USE_HOST_PTR`).
    ///
    /// # Safety
    /// As for [`Mem::create_image`].
    unsafe fn create_image_storage(
        flags: MemFlags,
        format: ImageFormat,
        pixel_size: u32,
        shape: &ImageShape,
        host_ptr: *mut u8,
    ) -> Result<Mem> {
        check_buffer_flags(flags)?;
        let wants_ptr = flags.intersects(MemFlags::USE_HOST_PTR | MemFlags::COPY_HOST_PTR);
        if wants_ptr == host_ptr.is_null() {
            return Err(Error::InvalidHostPtr(
                "USE_HOST_PTR and COPY_HOST_PTR need a host pointer, and only they allow one"
                    .into(),
            ));
        }
        // "image_row_pitch … must be 0 if host_ptr is NULL"; likewise the
        // slice pitch.
        if host_ptr.is_null() && (shape.row_pitch != 0 || shape.slice_pitch != 0) {
            return Err(Error::InvalidImageDescriptor);
        }
        let host = layout(
            format,
            pixel_size,
            shape,
            shape.row_pitch,
            shape.slice_pitch,
        )?;
        let packed = layout(format, pixel_size, shape, 0, 0)?;
        if packed.storage_size() > max_mem_alloc_size() {
            return Err(Error::InvalidImageSize);
        }
        if flags.contains(MemFlags::USE_HOST_PTR) {
            let size = host.storage_size();
            return Ok(Mem::with_image(
                flags,
                size,
                Storage::Host(host_ptr),
                host_ptr,
                Some(host),
            ));
        }
        let size = packed.storage_size();
        let len = usize::try_from(size).map_err(|_| Error::MemObjectAllocationFailure(size))?;
        let bytes = AlignedBytes::zeroed(len)?;
        if flags.contains(MemFlags::COPY_HOST_PTR) {
            let region = packed.byte_region(packed.extent());
            let copy = RectCopy {
                src: host.rect([0; 3]),
                dst: packed.rect([0; 3]),
                region,
            };
            // SAFETY: the caller guarantees the host image is readable at
            // its pitches; `bytes` is a fresh allocation of the packed size.
            unsafe { copy.run(host_ptr, bytes.as_ptr()) };
        }
        Ok(Mem::with_image(
            flags,
            size,
            Storage::Owned(bytes),
            std::ptr::null_mut(),
            Some(packed),
        ))
    }

    /// The image's layout, or `CL_INVALID_MEM_OBJECT` for a buffer.
    pub fn image_info(&self) -> Result<ImageInfo> {
        self.image()
            .copied()
            .ok_or_else(|| Error::InvalidMemObject("not an image".into()))
    }

    /// The descriptor a kernel's image argument points to.
    pub fn image_descriptor(&self) -> Result<ImageDesc> {
        Ok(self.image_info()?.descriptor(self.as_ptr()))
    }
}

/// Checks that `mem` is a buffer, not an image.
fn check_buffer(mem: &Mem) -> Result<()> {
    if mem.image().is_some() {
        return Err(Error::InvalidMemObject("an image, not a buffer".into()));
    }
    Ok(())
}

/// `clEnqueueReadImage`: copies `region` of `image` at `origin` to host
/// memory laid out with `row_pitch` and `slice_pitch` (0: packed). Run the
/// plan with the image's address as source and the host's as destination.
pub fn plan_read(
    image: &Mem,
    origin: [u64; 3],
    region: [u64; 3],
    row_pitch: u64,
    slice_pitch: u64,
) -> Result<RectCopy> {
    let info = image.image_info()?;
    info.check_region(origin, region)?;
    let host = info.host_rect(region, row_pitch, slice_pitch)?;
    Ok(RectCopy {
        src: info.rect(origin),
        dst: host,
        region: info.byte_region(region),
    })
}

/// `clEnqueueWriteImage`: the reverse of [`plan_read`] (host memory is the
/// source, the image the destination).
pub fn plan_write(
    image: &Mem,
    origin: [u64; 3],
    region: [u64; 3],
    row_pitch: u64,
    slice_pitch: u64,
) -> Result<RectCopy> {
    let read = plan_read(image, origin, region, row_pitch, slice_pitch)?;
    Ok(RectCopy {
        src: read.dst,
        dst: read.src,
        region: read.region,
    })
}

/// Whether two byte ranges of memory objects share bytes.
fn ranges_overlap(a: &Mem, a_extent: (u64, u64), b: &Mem, b_extent: (u64, u64)) -> bool {
    let (root_a, a0, a1) = a.root_range(a_extent.0, a_extent.1 - a_extent.0);
    let (root_b, b0, b1) = b.root_range(b_extent.0, b_extent.1 - b_extent.0);
    root_a == root_b && a0 < b1 && b0 < a1
}

/// `clEnqueueCopyImage`: "CL_IMAGE_FORMAT_MISMATCH if src_image and
/// dst_image do not use the same image format", "CL_MEM_COPY_OVERLAP if
/// src_image and dst_image are the same image object and the source and
/// destination regions overlap".
pub fn plan_copy(
    src: &Mem,
    dst: &Mem,
    src_origin: [u64; 3],
    dst_origin: [u64; 3],
    region: [u64; 3],
) -> Result<RectCopy> {
    let (s, d) = (src.image_info()?, dst.image_info()?);
    if s.format != d.format {
        return Err(Error::ImageFormatMismatch);
    }
    s.check_region(src_origin, region)?;
    d.check_region(dst_origin, region)?;
    let copy = RectCopy {
        src: s.rect(src_origin),
        dst: d.rect(dst_origin),
        region: s.byte_region(region),
    };
    let overlap = if src.same_object(dst) {
        (0..3).all(|i| {
            src_origin[i] < dst_origin[i] + region[i] && dst_origin[i] < src_origin[i] + region[i]
        })
    } else {
        ranges_overlap(src, copy.src_extent()?, dst, copy.dst_extent()?)
    };
    if overlap {
        return Err(Error::MemCopyOverlap);
    }
    Ok(copy)
}

/// The packed rectangle of a buffer at `offset` holding `region` of `info`
/// (`region[0]` pixels per row, rows, slices), checked against the buffer.
fn buffer_side(
    info: &ImageInfo,
    buffer: &Mem,
    offset: u64,
    region: [u64; 3],
) -> Result<ResolvedRect> {
    check_buffer(buffer)?;
    let row = region[0] * u64::from(info.pixel_size);
    let rect = ResolvedRect::with_pitches([offset, 0, 0], row, row * region[1]);
    let (_, end) = rect.extent(&info.byte_region(region))?;
    buffer.check_range(0, end)?;
    Ok(rect)
}

/// `clEnqueueCopyImageToBuffer`: `region` of `image` at `origin` to
/// `buffer` at `offset`, packed ("the size in bytes of the region to be
/// copied … is computed as width * height * depth * bytes/image element").
pub fn plan_image_to_buffer(
    image: &Mem,
    buffer: &Mem,
    origin: [u64; 3],
    region: [u64; 3],
    offset: u64,
) -> Result<RectCopy> {
    let info = image.image_info()?;
    info.check_region(origin, region)?;
    let copy = RectCopy {
        src: info.rect(origin),
        dst: buffer_side(&info, buffer, offset, region)?,
        region: info.byte_region(region),
    };
    if ranges_overlap(image, copy.src_extent()?, buffer, copy.dst_extent()?) {
        return Err(Error::MemCopyOverlap);
    }
    Ok(copy)
}

/// `clEnqueueCopyBufferToImage`: the reverse of [`plan_image_to_buffer`].
pub fn plan_buffer_to_image(
    buffer: &Mem,
    image: &Mem,
    offset: u64,
    origin: [u64; 3],
    region: [u64; 3],
) -> Result<RectCopy> {
    let info = image.image_info()?;
    info.check_region(origin, region)?;
    let copy = RectCopy {
        src: buffer_side(&info, buffer, offset, region)?,
        dst: info.rect(origin),
        region: info.byte_region(region),
    };
    if ranges_overlap(buffer, copy.src_extent()?, image, copy.dst_extent()?) {
        return Err(Error::MemCopyOverlap);
    }
    Ok(copy)
}

/// `clEnqueueFillImage`: one encoded pixel written over a region.
#[derive(Clone, Debug)]
pub struct ImageFill {
    pixel: Vec<u8>,
    rect: ResolvedRect,
    region: [u64; 3],
}

impl ImageFill {
    /// Writes the pixel over the region of the image at `base`.
    ///
    /// # Safety
    /// `base` must be the address of the image the fill was planned for,
    /// valid for writes of its pixels.
    pub unsafe fn run(&self, base: *mut u8) {
        let px = self.pixel.len();
        // One row of pixels, copied to every row of the region.
        let row: Vec<u8> = self
            .pixel
            .iter()
            .copied()
            .cycle()
            .take(px * self.region[0] as usize)
            .collect();
        for z in 0..self.region[2] {
            for y in 0..self.region[1] {
                let at = self.rect.row_offset(y, z) as usize;
                // SAFETY: the region was checked against the image.
                unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), base.add(at), row.len()) };
            }
        }
    }
}

/// `clEnqueueFillImage`: `color` encoded in the image's format over
/// `region` at `origin`.
pub fn plan_fill(
    image: &Mem,
    color: PixelValue,
    origin: [u64; 3],
    region: [u64; 3],
) -> Result<ImageFill> {
    let info = image.image_info()?;
    info.check_region(origin, region)?;
    let mut pixel = vec![0u8; info.pixel_size as usize];
    ir::encode_pixel(
        info.format.order,
        info.format.channel_type,
        color,
        &mut pixel,
    );
    Ok(ImageFill {
        pixel,
        rect: info.rect(origin),
        region,
    })
}

/// `clEnqueueMapImage`: where `origin` is in the image's bytes, and the row
/// and slice pitches the application reads the mapping with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageMapping {
    /// Byte offset of `origin` in the image's storage.
    pub offset: u64,
    /// Bytes between rows of the mapping.
    pub row_pitch: u64,
    /// 0 for 1-D and 2-D images.
    pub slice_pitch: u64,
}

/// Checks a map of `region` at `origin` and says where it lies.
pub fn plan_map(image: &Mem, origin: [u64; 3], region: [u64; 3]) -> Result<ImageMapping> {
    let info = image.image_info()?;
    info.check_region(origin, region)?;
    Ok(ImageMapping {
        offset: info.rect(origin).row_offset(0, 0),
        row_pitch: info.row_pitch,
        slice_pitch: info.slice_pitch,
    })
}

/// Sampler addressing modes (`cl_addressing_mode`).
pub mod addressing {
    /// Coordinates outside the image are not expected (`CL_ADDRESS_NONE`).
    pub const NONE: u32 = 0x1130;
    /// Outside coordinates clamp to the edge pixels.
    pub const CLAMP_TO_EDGE: u32 = 0x1131;
    /// Outside coordinates read the border colour.
    pub const CLAMP: u32 = 0x1132;
    /// Coordinates wrap around (normalized coordinates only).
    pub const REPEAT: u32 = 0x1133;
    /// Coordinates reflect at the edges (normalized coordinates only).
    pub const MIRRORED_REPEAT: u32 = 0x1134;
}

/// Sampler filter modes (`cl_filter_mode`).
pub mod filter {
    /// The pixel nearest to the coordinate.
    pub const NEAREST: u32 = 0x1140;
    /// Bilinear (trilinear in 3-D) interpolation of the nearest pixels.
    pub const LINEAR: u32 = 0x1141;
}

/// A sampler: how a kernel's `read_image*` with it addresses and filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    /// Coordinates run over [0, 1) rather than [0, size).
    pub normalized_coords: bool,
    /// A `CL_ADDRESS_*` code.
    pub addressing_mode: u32,
    /// A `CL_FILTER_*` code.
    pub filter_mode: u32,
}

impl Sampler {
    /// `clCreateSampler`'s checks: "CL_INVALID_VALUE if addressing_mode,
    /// filter_mode, normalized_coords or a combination of these arguments
    /// are not valid."
    pub fn new(normalized_coords: bool, addressing_mode: u32, filter_mode: u32) -> Result<Sampler> {
        if !(addressing::NONE..=addressing::MIRRORED_REPEAT).contains(&addressing_mode) {
            return Err(Error::InvalidValue(format!(
                "{addressing_mode:#x} is not an addressing mode"
            )));
        }
        if filter_mode != filter::NEAREST && filter_mode != filter::LINEAR {
            return Err(Error::InvalidValue(format!(
                "{filter_mode:#x} is not a filter mode"
            )));
        }
        Ok(Sampler {
            normalized_coords,
            addressing_mode,
            filter_mode,
        })
    }

    /// The `u32` a `sampler_t` argument holds (`vecl_ir::image::SAMPLER_*`).
    pub fn bits(&self) -> u32 {
        let address = match self.addressing_mode {
            addressing::CLAMP_TO_EDGE => ir::SAMPLER_ADDRESS_CLAMP_TO_EDGE,
            addressing::CLAMP => ir::SAMPLER_ADDRESS_CLAMP,
            addressing::REPEAT => ir::SAMPLER_ADDRESS_REPEAT,
            addressing::MIRRORED_REPEAT => ir::SAMPLER_ADDRESS_MIRRORED_REPEAT,
            _ => ir::SAMPLER_ADDRESS_NONE,
        };
        let filter = if self.filter_mode == filter::LINEAR {
            ir::SAMPLER_FILTER_LINEAR
        } else {
            ir::SAMPLER_FILTER_NEAREST
        };
        let normalized = if self.normalized_coords {
            ir::SAMPLER_NORMALIZED
        } else {
            0
        };
        normalized | address | filter
    }
}

//! Images as kernels see them: the descriptor an image argument points to,
//! the format codes it carries and the bits of a sampler value.
//!
//! An image kernel argument (`image2d_t`, `image3d_t`, …) is, in the IR and
//! in the argument block, a `ptr global u8` holding the address of an
//! [`ImageDesc`] that the runtime builds when it launches the kernel and keeps
//! alive until the command completes. A `sampler_t` value is a `u32` made of
//! the `SAMPLER_*` bits below; the front end gives the `CLK_*` names of OpenCL
//! C these values, and the driver encodes a `cl_sampler` argument the same
//! way. The image builtins (`read_image*`, `write_image*`, `get_image_*`) take
//! the descriptor's address and decode everything from it, so the interpreter
//! and the JIT share one definition of what a texel read does.
//!
//! Format codes are the `cl_channel_order`, `cl_channel_type` and
//! `cl_mem_object_type` values of the OpenCL headers, so the driver passes
//! them through unchanged.

/// What an image argument points to. `#[repr(C)]`: the JIT reads fields at
/// the offsets below.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    /// The first byte of pixel (0, 0, 0) of the first array layer.
    pub data: *mut u8,
    /// In pixels.
    pub width: u64,
    /// In pixels; 1 for 1-D images and 1-D arrays.
    pub height: u64,
    /// In pixels; 1 for anything but 3-D images.
    pub depth: u64,
    /// Layers of a 1-D or 2-D image array; 0 for other images.
    pub array_size: u64,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one 2-D slice (3-D images) or array layer to the next;
    /// for 1-D arrays the distance between layers.
    pub slice_pitch: u64,
    /// A `CL_R`, `CL_RGBA`, … code.
    pub channel_order: u32,
    /// A `CL_UNORM_INT8`, `CL_FLOAT`, … code.
    pub channel_type: u32,
    /// A `CL_MEM_OBJECT_IMAGE2D`, … code.
    pub image_type: u32,
    /// Bytes per pixel.
    pub pixel_size: u32,
}

// SAFETY: a descriptor only describes memory; nothing safe dereferences
// `data` (the pixel accessors that do are `unsafe` and their callers answer
// for the pointer), so sharing or sending the description is harmless.
unsafe impl Send for ImageDesc {}
// SAFETY: as for `Send`: no method reads through `data`.
unsafe impl Sync for ImageDesc {}

impl ImageDesc {
    /// A descriptor of a tightly packed image (rows of `width` pixels,
    /// slices of `height` rows) with a null `data` pointer, or `None` when
    /// the format is unsupported, the image type unknown or a size 0.
    /// `height`, `depth` and `array_size` are taken as the image type
    /// uses them (1, 1 and 0 where it does not).
    pub fn packed(
        image_type: u32,
        channel_order: u32,
        channel_type: u32,
        size: [u64; 3],
        array_size: u64,
    ) -> Option<ImageDesc> {
        let px = pixel_size(channel_order, channel_type)?;
        let (height, depth, array_size) = match image_type {
            object::IMAGE1D | object::IMAGE1D_BUFFER => (1, 1, 0),
            object::IMAGE1D_ARRAY => (1, 1, array_size),
            object::IMAGE2D => (size[1], 1, 0),
            object::IMAGE2D_ARRAY => (size[1], 1, array_size),
            object::IMAGE3D => (size[1], size[2], 0),
            _ => return None,
        };
        let is_array = matches!(image_type, object::IMAGE1D_ARRAY | object::IMAGE2D_ARRAY);
        if size[0] == 0 || height == 0 || depth == 0 || (is_array && array_size == 0) {
            return None;
        }
        let row_pitch = size[0].checked_mul(u64::from(px))?;
        let slice_pitch = row_pitch.checked_mul(height)?;
        Some(ImageDesc {
            data: std::ptr::null_mut(),
            width: size[0],
            height,
            depth,
            array_size,
            row_pitch,
            slice_pitch,
            channel_order,
            channel_type,
            image_type,
            pixel_size: px,
        })
    }

    /// Bytes from pixel (0, 0, 0) of layer 0 to the end of the last pixel:
    /// how much memory at `data` the image reads and writes.
    pub fn byte_len(&self) -> u64 {
        let last = |n: u64| n.saturating_sub(1);
        let layers_or_slices = match self.image_type {
            object::IMAGE1D_ARRAY | object::IMAGE2D_ARRAY => self.array_size,
            _ => self.depth,
        };
        let rows = match self.image_type {
            object::IMAGE1D | object::IMAGE1D_BUFFER | object::IMAGE1D_ARRAY => 1,
            _ => self.height,
        };
        if self.width == 0 || rows == 0 || layers_or_slices == 0 {
            return 0;
        }
        last(layers_or_slices)
            .saturating_mul(self.slice_pitch)
            .saturating_add(last(rows).saturating_mul(self.row_pitch))
            .saturating_add(self.width.saturating_mul(u64::from(self.pixel_size)))
    }
}

/// Field offsets of [`ImageDesc`], for generated code.
pub mod desc_offset {
    pub const DATA: u32 = 0;
    pub const WIDTH: u32 = 8;
    pub const HEIGHT: u32 = 16;
    pub const DEPTH: u32 = 24;
    pub const ARRAY_SIZE: u32 = 32;
    pub const ROW_PITCH: u32 = 40;
    pub const SLICE_PITCH: u32 = 48;
    pub const CHANNEL_ORDER: u32 = 56;
    pub const CHANNEL_TYPE: u32 = 60;
    pub const IMAGE_TYPE: u32 = 64;
    pub const PIXEL_SIZE: u32 = 68;
}

/// `cl_channel_order` codes.
pub mod order {
    pub const R: u32 = 0x10B0;
    pub const A: u32 = 0x10B1;
    pub const RG: u32 = 0x10B2;
    pub const RA: u32 = 0x10B3;
    pub const RGB: u32 = 0x10B4;
    pub const RGBA: u32 = 0x10B5;
    pub const BGRA: u32 = 0x10B6;
    pub const ARGB: u32 = 0x10B7;
    pub const INTENSITY: u32 = 0x10B8;
    pub const LUMINANCE: u32 = 0x10B9;
    pub const RX: u32 = 0x10BA;
    pub const RGX: u32 = 0x10BB;
    pub const RGBX: u32 = 0x10BC;
}

/// `cl_channel_type` codes.
pub mod channel {
    pub const SNORM_INT8: u32 = 0x10D0;
    pub const SNORM_INT16: u32 = 0x10D1;
    pub const UNORM_INT8: u32 = 0x10D2;
    pub const UNORM_INT16: u32 = 0x10D3;
    pub const UNORM_SHORT_565: u32 = 0x10D4;
    pub const UNORM_SHORT_555: u32 = 0x10D5;
    pub const UNORM_INT_101010: u32 = 0x10D6;
    pub const SIGNED_INT8: u32 = 0x10D7;
    pub const SIGNED_INT16: u32 = 0x10D8;
    pub const SIGNED_INT32: u32 = 0x10D9;
    pub const UNSIGNED_INT8: u32 = 0x10DA;
    pub const UNSIGNED_INT16: u32 = 0x10DB;
    pub const UNSIGNED_INT32: u32 = 0x10DC;
    pub const HALF_FLOAT: u32 = 0x10DD;
    pub const FLOAT: u32 = 0x10DE;
}

/// `cl_mem_object_type` codes of images.
pub mod object {
    pub const IMAGE2D: u32 = 0x10F1;
    pub const IMAGE3D: u32 = 0x10F2;
    pub const IMAGE2D_ARRAY: u32 = 0x10F3;
    pub const IMAGE1D: u32 = 0x10F4;
    pub const IMAGE1D_ARRAY: u32 = 0x10F5;
    pub const IMAGE1D_BUFFER: u32 = 0x10F6;
}

/// Bit 0: coordinates are normalised (`CLK_NORMALIZED_COORDS_TRUE`).
pub const SAMPLER_NORMALIZED: u32 = 0x1;
/// Bits 1–3: the addressing mode, one of the `SAMPLER_ADDRESS_*` values.
pub const SAMPLER_ADDRESS_MASK: u32 = 0xE;
pub const SAMPLER_ADDRESS_NONE: u32 = 0x0;
pub const SAMPLER_ADDRESS_CLAMP_TO_EDGE: u32 = 0x2;
pub const SAMPLER_ADDRESS_CLAMP: u32 = 0x4;
pub const SAMPLER_ADDRESS_REPEAT: u32 = 0x6;
pub const SAMPLER_ADDRESS_MIRRORED_REPEAT: u32 = 0x8;
/// Bits 4–5: the filter (`CLK_FILTER_NEAREST` / `CLK_FILTER_LINEAR`).
pub const SAMPLER_FILTER_NEAREST: u32 = 0x10;
pub const SAMPLER_FILTER_LINEAR: u32 = 0x20;

mod codec;
mod format;
mod sample;

pub use codec::PixelCodec;
pub use format::{
    border_color, decode_pixel, encode_pixel, is_supported, pixel_size, value_class, PixelValue,
    ValueClass, SUPPORTED_FORMATS,
};
pub use sample::{image_dim, read_image, write_image, Coord, PreparedImage, TexelMemory};

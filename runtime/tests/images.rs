//! Images in the runtime: creation rules, the layout of host and device
//! memory, every transfer command against a pixel-by-pixel model, and image
//! and sampler kernel arguments (with a kernel written in Rust against the
//! kernel ABI, so no compiler is needed).

use vecl_ir::image::{channel, decode_pixel, object, order, ImageDesc, PixelValue};
use vecl_runtime::abi::{checked_offsets, ArgKind, ArgSlot, Launch};
use vecl_runtime::image::{self, addressing, filter, limits};
use vecl_runtime::{
    ArgValue, Error, ImageFormat, ImageShape, KernelArgs, KernelCode, MapFlags, Mem, MemFlags,
    NdRange, Queue, Sampler,
};

const RGBA8: ImageFormat = ImageFormat {
    order: order::RGBA,
    channel_type: channel::UNORM_INT8,
};
const R32F: ImageFormat = ImageFormat {
    order: order::R,
    channel_type: channel::FLOAT,
};
const RG16I: ImageFormat = ImageFormat {
    order: order::RG,
    channel_type: channel::SIGNED_INT16,
};

fn shape(image_type: u32, size: [u64; 3], array_size: u64) -> ImageShape {
    ImageShape {
        image_type,
        width: size[0],
        height: size[1],
        depth: size[2],
        array_size,
        ..ImageShape::default()
    }
}

fn new_image(format: ImageFormat, shape: &ImageShape) -> Mem {
    // SAFETY: no host pointer.
    unsafe {
        Mem::create_image(
            MemFlags::READ_WRITE,
            format,
            shape,
            std::ptr::null_mut(),
            None,
        )
    }
    .expect("image")
}

/// Bytes of pixel `p` of a test pattern: distinct for every byte of a
/// small image.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32 * 7 + u32::from(seed)) as u8)
        .collect()
}

/// The image's pixels read back packed (region = the whole image).
fn read_all(queue: &Queue, image: &Mem) -> Vec<u8> {
    let info = image.image_info().expect("info");
    let extent = info.extent();
    let len = extent.iter().product::<u64>() as usize * info.pixel_size as usize;
    let mut out = vec![0u8; len];
    // SAFETY: `out` holds the packed region; the read blocks.
    unsafe { queue.enqueue_read_image(image, [0; 3], extent, 0, 0, out.as_mut_ptr(), true, &[]) }
        .expect("read");
    out
}

#[test]
fn copy_host_ptr_repacks_host_pitches_and_use_host_ptr_is_zero_copy() {
    // A 5x3 RGBA8 image in host memory with 32-byte rows (20 bytes used).
    let host = pattern(32 * 3, 1);
    let pitched = ImageShape {
        row_pitch: 32,
        ..shape(object::IMAGE2D, [5, 3, 1], 0)
    };
    // SAFETY: `host` holds 3 rows of 32 bytes and outlives the call.
    let copied = unsafe {
        Mem::create_image(
            MemFlags::COPY_HOST_PTR,
            RGBA8,
            &pitched,
            host.as_ptr().cast_mut(),
            None,
        )
    }
    .expect("copy");
    let info = copied.image_info().expect("info");
    assert_eq!(
        (info.row_pitch, info.slice_pitch, info.pixel_size),
        (20, 0, 4)
    );
    assert_eq!(copied.size(), 60);
    let queue = Queue::new(Default::default()).expect("queue");
    let expected: Vec<u8> = (0..3)
        .flat_map(|y| host[32 * y..32 * y + 20].to_vec())
        .collect();
    assert_eq!(read_all(&queue, &copied), expected);

    let mut shared = host.clone();
    // SAFETY: `shared` outlives the image.
    let used = unsafe {
        Mem::create_image(
            MemFlags::USE_HOST_PTR,
            RGBA8,
            &pitched,
            shared.as_mut_ptr(),
            None,
        )
    }
    .expect("use");
    assert_eq!(used.as_ptr(), shared.as_mut_ptr());
    assert_eq!(used.image_info().expect("info").row_pitch, 32);
    assert_eq!(read_all(&queue, &used), expected);
    drop(used);
}

#[test]
fn formats_are_checked_by_the_channel_order_table() {
    let d = shape(object::IMAGE2D, [4, 4, 1], 0);
    // SAFETY: no host pointer.
    let make = |order, channel_type| unsafe {
        Mem::create_image(
            MemFlags::READ_WRITE,
            ImageFormat {
                order,
                channel_type,
            },
            &d,
            std::ptr::null_mut(),
            None,
        )
    };
    assert_eq!(
        make(0x1234, channel::FLOAT).err(),
        Some(Error::InvalidImageFormatDescriptor)
    );
    assert_eq!(
        make(order::RGBA, 0x1234).err(),
        Some(Error::InvalidImageFormatDescriptor)
    );
    // "CL_INTENSITY … can only be used if channel data type = CL_UNORM_INT8,
    // CL_UNORM_INT16, CL_SNORM_INT8, CL_SNORM_INT16, CL_HALF_FLOAT, or CL_FLOAT."
    assert_eq!(
        make(order::INTENSITY, channel::SIGNED_INT8).err(),
        Some(Error::InvalidImageFormatDescriptor)
    );
    assert_eq!(
        make(order::RGBA, channel::UNORM_SHORT_565).err(),
        Some(Error::InvalidImageFormatDescriptor)
    );
    // Valid pairs the device does not offer.
    assert_eq!(
        make(order::RGBX, channel::UNORM_SHORT_565).err(),
        Some(Error::ImageFormatNotSupported)
    );
    assert_eq!(
        make(0x10C1, channel::UNORM_INT8).err(),
        Some(Error::ImageFormatNotSupported)
    );
    for f in image::supported_formats() {
        let mem = make(f.order, f.channel_type).expect("supported format");
        assert_eq!(mem.image_info().expect("info").format, f);
    }
    // The 1.2 full-profile minimum list.
    let minimum = [
        channel::UNORM_INT8,
        channel::UNORM_INT16,
        channel::SIGNED_INT8,
        channel::SIGNED_INT16,
        channel::SIGNED_INT32,
        channel::UNSIGNED_INT8,
        channel::UNSIGNED_INT16,
        channel::UNSIGNED_INT32,
        channel::HALF_FLOAT,
        channel::FLOAT,
    ];
    let supported = image::supported_formats();
    for t in minimum {
        assert!(supported.contains(&ImageFormat {
            order: order::RGBA,
            channel_type: t
        }));
    }
    assert!(supported.contains(&RGBA8.with_order(order::BGRA)));
}

trait WithOrder {
    fn with_order(self, order: u32) -> Self;
}

impl WithOrder for ImageFormat {
    fn with_order(self, order: u32) -> ImageFormat {
        ImageFormat { order, ..self }
    }
}

#[test]
fn descriptors_are_checked() {
    // SAFETY: each call passes the pointer it names, valid for the call.
    let make = |flags, s: ImageShape, host: *mut u8| unsafe {
        Mem::create_image(flags, RGBA8, &s, host, None).err()
    };
    let null = std::ptr::null_mut();
    let mut host = vec![0u8; 4096];
    let h = host.as_mut_ptr();
    let rw = MemFlags::READ_WRITE;
    let bad = Some(Error::InvalidImageDescriptor);
    assert_eq!(make(rw, shape(0x1234, [4, 4, 1], 0), null), bad);
    assert_eq!(make(rw, shape(object::IMAGE2D, [0, 4, 1], 0), null), bad);
    assert_eq!(make(rw, shape(object::IMAGE2D, [4, 0, 1], 0), null), bad);
    assert_eq!(make(rw, shape(object::IMAGE3D, [4, 4, 0], 0), null), bad);
    assert_eq!(
        make(rw, shape(object::IMAGE2D_ARRAY, [4, 4, 1], 0), null),
        bad
    );
    // A 1-D image buffer needs its buffer.
    assert_eq!(
        make(rw, shape(object::IMAGE1D_BUFFER, [4, 1, 1], 0), null),
        bad
    );
    // "image_row_pitch must be 0 if host_ptr is NULL."
    let pitched = ImageShape {
        row_pitch: 64,
        ..shape(object::IMAGE2D, [4, 4, 1], 0)
    };
    assert_eq!(make(rw, pitched, null), bad);
    // With a host pointer: at least a row, a multiple of the pixel size.
    let short = ImageShape {
        row_pitch: 12,
        ..pitched
    };
    assert_eq!(make(MemFlags::COPY_HOST_PTR, short, h), bad);
    let odd = ImageShape {
        row_pitch: 18,
        ..pitched
    };
    assert_eq!(make(MemFlags::COPY_HOST_PTR, odd, h), bad);
    // Slice pitch: at least a slice and a multiple of the row pitch.
    let slices = ImageShape {
        row_pitch: 16,
        slice_pitch: 72,
        ..shape(object::IMAGE3D, [4, 4, 2], 0)
    };
    assert_eq!(make(MemFlags::COPY_HOST_PTR, slices, h), bad);
    // Beyond the limits.
    let big = Some(Error::InvalidImageSize);
    let wide = limits::IMAGE2D_MAX_WIDTH + 1;
    assert_eq!(make(rw, shape(object::IMAGE2D, [wide, 1, 1], 0), null), big);
    let deep = limits::IMAGE3D_MAX_DEPTH + 1;
    assert_eq!(make(rw, shape(object::IMAGE3D, [1, 1, deep], 0), null), big);
    let layers = limits::IMAGE_MAX_ARRAY_SIZE + 1;
    assert_eq!(
        make(rw, shape(object::IMAGE1D_ARRAY, [1, 1, 1], layers), null),
        big
    );
    // Host pointer rules, as for buffers.
    assert!(matches!(
        make(
            MemFlags::COPY_HOST_PTR,
            shape(object::IMAGE2D, [4, 4, 1], 0),
            null
        ),
        Some(Error::InvalidHostPtr(_))
    ));
    assert!(matches!(
        make(rw, shape(object::IMAGE2D, [4, 4, 1], 0), h),
        Some(Error::InvalidHostPtr(_))
    ));
    drop(host);
}

#[test]
fn each_image_type_has_its_extent_and_pitches() {
    let cases = [
        (object::IMAGE1D, [7, 9, 9], 0, [7, 1, 1], (28, 0)),
        (object::IMAGE1D_ARRAY, [7, 9, 9], 3, [7, 3, 1], (28, 28)),
        (object::IMAGE2D, [7, 5, 9], 0, [7, 5, 1], (28, 0)),
        (object::IMAGE2D_ARRAY, [7, 5, 9], 3, [7, 5, 3], (28, 140)),
        (object::IMAGE3D, [7, 5, 2], 0, [7, 5, 2], (28, 140)),
    ];
    for (image_type, size, layers, extent, pitches) in cases {
        let mem = new_image(RGBA8, &shape(image_type, size, layers));
        let info = mem.image_info().expect("info");
        assert_eq!(info.extent(), extent, "{image_type:#x}");
        assert_eq!((info.row_pitch, info.slice_pitch), pitches);
        assert_eq!(mem.size(), extent.iter().product::<u64>() * 4);
        // Regions: inside, and one past in each coordinate.
        assert!(info.check_region([0; 3], extent).is_ok());
        for d in 0..3 {
            let mut origin = [0; 3];
            origin[d] = 1;
            assert!(matches!(
                info.check_region(origin, extent),
                Err(Error::InvalidValue(_))
            ));
        }
        let mut zero = extent;
        zero[0] = 0;
        assert!(info.check_region([0; 3], zero).is_err());
        let desc = mem.image_descriptor().expect("descriptor");
        assert_eq!(desc.data, mem.as_ptr());
        assert_eq!(desc.image_type, image_type);
        assert_eq!(desc.byte_len(), mem.size());
    }
}

/// A pixel-by-pixel model of an image: `extent` and packed bytes.
struct Model {
    extent: [u64; 3],
    px: usize,
    bytes: Vec<u8>,
}

impl Model {
    fn at(&self, p: [u64; 3]) -> usize {
        ((p[2] * self.extent[1] + p[1]) * self.extent[0] + p[0]) as usize * self.px
    }

    /// Copies `region` of `src` at `so` into `self` at `dst_origin`.
    fn copy_from(&mut self, src: &Model, so: [u64; 3], dst_origin: [u64; 3], region: [u64; 3]) {
        for z in 0..region[2] {
            for y in 0..region[1] {
                for x in 0..region[0] {
                    let s = src.at([so[0] + x, so[1] + y, so[2] + z]);
                    let d = self.at([dst_origin[0] + x, dst_origin[1] + y, dst_origin[2] + z]);
                    self.bytes[d..d + self.px].copy_from_slice(&src.bytes[s..s + src.px]);
                }
            }
        }
    }
}

#[test]
fn transfers_match_a_pixel_model_for_every_image_type() {
    let queue = Queue::new(Default::default()).expect("queue");
    let cases = [
        (object::IMAGE1D, [9, 1, 1], 0, RGBA8),
        (object::IMAGE1D_ARRAY, [9, 1, 1], 4, R32F),
        (object::IMAGE2D, [9, 6, 1], 0, RG16I),
        (object::IMAGE2D_ARRAY, [9, 6, 1], 3, RGBA8),
        (object::IMAGE3D, [9, 6, 4], 0, R32F),
    ];
    for (image_type, size, layers, format) in cases {
        let a = new_image(format, &shape(image_type, size, layers));
        let b = new_image(format, &shape(image_type, size, layers));
        let info = a.image_info().expect("info");
        let extent = info.extent();
        let px = info.pixel_size as usize;
        let full = extent.iter().product::<u64>() as usize * px;
        let mut model_a = Model {
            extent,
            px,
            bytes: vec![0; full],
        };
        let mut model_b = Model {
            extent,
            px,
            bytes: vec![0; full],
        };

        // Write the whole of `a`.
        let data = pattern(full, image_type as u8);
        // SAFETY: `data` is the packed image; the write blocks.
        unsafe { queue.enqueue_write_image(&a, [0; 3], extent, 0, 0, data.as_ptr(), true, &[]) }
            .expect("write");
        model_a.bytes.copy_from_slice(&data);
        assert_eq!(read_all(&queue, &a), model_a.bytes);

        // A sub-region written from host memory with padded rows and slices.
        let origin = extent.map(|e| u64::from(e > 2));
        let region = extent.map(|e| if e > 2 { e - 2 } else { e });
        let row_pitch = region[0] * px as u64 + 8;
        let slice_pitch = row_pitch * (region[1] + 1);
        let host_len = (slice_pitch * region[2]) as usize;
        let host = pattern(host_len, 99);
        // SAFETY: `host` covers the pitched rectangle; the write blocks.
        unsafe {
            queue.enqueue_write_image(
                &a,
                origin,
                region,
                row_pitch,
                if image_type == object::IMAGE1D_ARRAY {
                    row_pitch
                } else {
                    slice_pitch
                },
                host.as_ptr(),
                true,
                &[],
            )
        }
        .expect("sub-region write");
        let host_model = Model {
            extent: [row_pitch / px as u64, slice_pitch / row_pitch, region[2]],
            px,
            bytes: host.clone(),
        };
        // The host model's rows are pitched; for a 1-D array the layers are
        // rows of the host rectangle.
        let host_model = if image_type == object::IMAGE1D_ARRAY {
            Model {
                extent: [row_pitch / px as u64, region[1], 1],
                ..host_model
            }
        } else {
            host_model
        };
        model_a.copy_from(&host_model, [0; 3], origin, region);
        assert_eq!(read_all(&queue, &a), model_a.bytes, "{image_type:#x}");

        // Image to image, shifted.
        let copy_region = extent.map(|e| e.div_ceil(2));
        let dst_origin = extent.map(|e| e / 2);
        queue
            .enqueue_copy_image(&a, &b, [0; 3], dst_origin, copy_region, &[])
            .expect("copy")
            .wait()
            .expect("copied");
        model_b.copy_from(&model_a, [0; 3], dst_origin, copy_region);
        assert_eq!(read_all(&queue, &b), model_b.bytes);

        // Image to buffer and back into the other corner.
        let buffer = Mem::new(MemFlags::READ_WRITE, full as u64 + 64).expect("buffer");
        queue
            .enqueue_copy_image_to_buffer(&a, &buffer, origin, region, 64, &[])
            .expect("to buffer")
            .wait()
            .expect("copied");
        queue
            .enqueue_copy_buffer_to_image(&buffer, &b, 64, [0; 3], region, &[])
            .expect("to image")
            .wait()
            .expect("copied");
        model_b.copy_from(&model_a, origin, [0; 3], region);
        assert_eq!(read_all(&queue, &b), model_b.bytes);

        // Fill, then check every pixel decodes to the colour.
        let color = match vecl_ir::image::value_class(format.channel_type) {
            vecl_ir::image::ValueClass::Float => PixelValue::Float([0.25, 0.5, 0.75, 1.0]),
            vecl_ir::image::ValueClass::Int => PixelValue::Int([-3, 7, 0, 1]),
            vecl_ir::image::ValueClass::Uint => PixelValue::Uint([3, 7, 0, 1]),
        };
        queue
            .enqueue_fill_image(&b, color, origin, region, &[])
            .expect("fill")
            .wait()
            .expect("filled");
        let filled = read_all(&queue, &b);
        let mut pixel = vec![0u8; px];
        vecl_ir::image::encode_pixel(format.order, format.channel_type, color, &mut pixel);
        for z in 0..extent[2] {
            for y in 0..extent[1] {
                for x in 0..extent[0] {
                    let p = [x, y, z];
                    let at = model_b.at(p);
                    let inside = (0..3).all(|d| p[d] >= origin[d] && p[d] < origin[d] + region[d]);
                    if inside {
                        model_b.bytes[at..at + px].copy_from_slice(&pixel);
                    }
                }
            }
        }
        assert_eq!(filled, model_b.bytes);

        // Map: the pointer and pitches address the image's pixels.
        let (event, ptr, mapping) = queue
            .enqueue_map_image(&b, MapFlags::READ, origin, region, true, &[])
            .expect("map");
        event.wait().expect("mapped");
        assert_eq!(mapping.row_pitch, info.row_pitch);
        assert_eq!(mapping.slice_pitch, info.slice_pitch);
        let stride1 = if image_type == object::IMAGE1D_ARRAY {
            mapping.slice_pitch
        } else {
            mapping.row_pitch
        };
        for y in 0..region[1] {
            for z in 0..region[2] {
                let at = (z * mapping.slice_pitch + y * stride1) as usize;
                // SAFETY: inside the mapped region of the image.
                let got = unsafe { std::slice::from_raw_parts(ptr.add(at), px) };
                let want = model_b.at([origin[0], origin[1] + y, origin[2] + z]);
                assert_eq!(got, &model_b.bytes[want..want + px]);
            }
        }
        queue.enqueue_unmap(&b, ptr, &[]).expect("unmap");
        assert_eq!(b.map_count(), 0);
        let decoded = decode_pixel(format.order, format.channel_type, &pixel);
        assert_eq!(decoded.bits().len(), 4);
    }
}

#[test]
fn transfer_errors() {
    let queue = Queue::new(Default::default()).expect("queue");
    let a = new_image(RGBA8, &shape(object::IMAGE2D, [8, 8, 1], 0));
    let f = new_image(R32F, &shape(object::IMAGE2D, [8, 8, 1], 0));
    let buffer = Mem::new(MemFlags::READ_WRITE, 256).expect("buffer");
    assert_eq!(
        queue
            .enqueue_copy_image(&a, &f, [0; 3], [0; 3], [1, 1, 1], &[])
            .err(),
        Some(Error::ImageFormatMismatch)
    );
    assert_eq!(
        queue
            .enqueue_copy_image(&a, &a, [0; 3], [2, 2, 0], [4, 4, 1], &[])
            .err(),
        Some(Error::MemCopyOverlap)
    );
    assert!(queue
        .enqueue_copy_image(&a, &a, [0; 3], [4, 0, 0], [4, 8, 1], &[])
        .is_ok());
    // A 2-D image has no third coordinate.
    assert!(matches!(
        queue.enqueue_copy_image(&a, &a, [0; 3], [4, 0, 0], [4, 4, 2], &[]),
        Err(Error::InvalidValue(_))
    ));
    // The buffer side must fit: 8x8 RGBA8 is 256 bytes.
    assert!(queue
        .enqueue_copy_image_to_buffer(&a, &buffer, [0; 3], [8, 8, 1], 0, &[])
        .is_ok());
    assert!(matches!(
        queue.enqueue_copy_image_to_buffer(&a, &buffer, [0; 3], [8, 8, 1], 4, &[]),
        Err(Error::InvalidValue(_))
    ));
    // Buffers and images are not interchangeable.
    assert!(matches!(
        queue.enqueue_copy_image_to_buffer(&a, &f, [0; 3], [1, 1, 1], 0, &[]),
        Err(Error::InvalidMemObject(_))
    ));
    assert!(matches!(
        queue.enqueue_copy_image(&buffer, &a, [0; 3], [0; 3], [1, 1, 1], &[]),
        Err(Error::InvalidMemObject(_))
    ));
    assert!(matches!(
        a.create_sub_buffer(MemFlags(0), 0, 128),
        Err(Error::InvalidMemObject(_))
    ));
    let mut out = [0u8; 16];
    // SAFETY: 16 bytes hold one row of 4 pixels; a row pitch of 8 is refused.
    let short_pitch = unsafe {
        queue.enqueue_read_image(&a, [0; 3], [4, 1, 1], 8, 0, out.as_mut_ptr(), true, &[])
    };
    assert!(matches!(short_pitch, Err(Error::InvalidValue(_))));
    // Host access flags.
    let hidden = {
        // SAFETY: no host pointer.
        unsafe {
            Mem::create_image(
                MemFlags::HOST_NO_ACCESS,
                RGBA8,
                &shape(object::IMAGE2D, [4, 4, 1], 0),
                std::ptr::null_mut(),
                None,
            )
        }
        .expect("image")
    };
    // SAFETY: as above.
    let refused = unsafe {
        queue.enqueue_read_image(
            &hidden,
            [0; 3],
            [4, 1, 1],
            0,
            0,
            out.as_mut_ptr(),
            true,
            &[],
        )
    };
    assert!(matches!(refused, Err(Error::InvalidOperation(_))));
    assert!(matches!(
        queue.enqueue_map_image(&hidden, MapFlags::WRITE, [0; 3], [1, 1, 1], true, &[]),
        Err(Error::InvalidOperation(_))
    ));
}

#[test]
fn image_buffers_share_the_buffers_bytes() {
    let queue = Queue::new(Default::default()).expect("queue");
    let data = pattern(256, 5);
    let buffer = Mem::from_bytes(MemFlags::READ_ONLY, &data).expect("buffer");
    let s = shape(object::IMAGE1D_BUFFER, [64, 1, 1], 0);
    // SAFETY: no host pointer.
    let image =
        unsafe { Mem::create_image(MemFlags(0), RGBA8, &s, std::ptr::null_mut(), Some(&buffer)) }
            .expect("image buffer");
    assert_eq!(image.as_ptr(), buffer.as_ptr());
    assert!(image.parent().is_some_and(|p| p.same_object(&buffer)));
    assert!(
        image.flags().contains(MemFlags::READ_ONLY),
        "access inherited"
    );
    assert_eq!(read_all(&queue, &image), data);
    // Wider access than the buffer's, a host pointer kind, or more pixels
    // than the buffer holds are refused.
    // SAFETY: no host pointer.
    let make = |flags, width| unsafe {
        Mem::create_image(
            flags,
            RGBA8,
            &shape(object::IMAGE1D_BUFFER, [width, 1, 1], 0),
            std::ptr::null_mut(),
            Some(&buffer),
        )
    };
    assert!(matches!(
        make(MemFlags::READ_WRITE, 64),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        make(MemFlags::ALLOC_HOST_PTR, 64),
        Err(Error::InvalidValue(_))
    ));
    assert_eq!(make(MemFlags(0), 65).err(), Some(Error::InvalidImageSize));
    // A row pitch may be given (it must hold the row).
    let pitched = |row_pitch| {
        let s = ImageShape {
            row_pitch,
            ..shape(object::IMAGE1D_BUFFER, [16, 1, 1], 0)
        };
        // SAFETY: no host pointer.
        unsafe { Mem::create_image(MemFlags(0), RGBA8, &s, std::ptr::null_mut(), Some(&buffer)) }
    };
    assert_eq!(
        pitched(64)
            .expect("pitch of the row")
            .image_info()
            .expect("info")
            .row_pitch,
        64
    );
    assert_eq!(pitched(60).err(), Some(Error::InvalidImageDescriptor));
    // A 2-D image over a buffer with a row pitch.
    let s2 = ImageShape {
        row_pitch: 64,
        ..shape(object::IMAGE2D, [8, 4, 1], 0)
    };
    // SAFETY: no host pointer.
    let flat =
        unsafe { Mem::create_image(MemFlags(0), RGBA8, &s2, std::ptr::null_mut(), Some(&buffer)) }
            .expect("2-D from buffer");
    let info = flat.image_info().expect("info");
    assert_eq!(info.row_pitch, 64);
    // A row pitch shorter than a row, or not a whole number of pixels.
    for row_pitch in [16, 66] {
        let bad = ImageShape { row_pitch, ..s2 };
        // SAFETY: no host pointer.
        let made = unsafe {
            Mem::create_image(
                MemFlags(0),
                RGBA8,
                &bad,
                std::ptr::null_mut(),
                Some(&buffer),
            )
        };
        assert_eq!(made.err(), Some(Error::InvalidImageFormatDescriptor));
    }
    let row1 = &read_all(&queue, &flat)[32..64];
    assert_eq!(row1, &data[64..96]);
}

#[test]
fn samplers_encode_to_the_kernel_bits() {
    use vecl_ir::image as ir;
    let s = Sampler::new(true, addressing::REPEAT, filter::LINEAR).expect("sampler");
    assert_eq!(
        s.bits(),
        ir::SAMPLER_NORMALIZED | ir::SAMPLER_ADDRESS_REPEAT | ir::SAMPLER_FILTER_LINEAR
    );
    let s = Sampler::new(false, addressing::CLAMP_TO_EDGE, filter::NEAREST).expect("sampler");
    assert_eq!(
        s.bits(),
        ir::SAMPLER_ADDRESS_CLAMP_TO_EDGE | ir::SAMPLER_FILTER_NEAREST
    );
    assert!(matches!(
        Sampler::new(false, 0x1135, filter::NEAREST),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        Sampler::new(false, addressing::CLAMP, 0x1142),
        Err(Error::InvalidValue(_))
    ));
}

/// `out[i] = first byte of pixel (i, 0) of the image` plus the sampler
/// value, for every work-item: reads through the descriptor the argument
/// block points to.
struct ReadThroughDescriptor {
    slots: Vec<ArgSlot>,
    /// Checked code: the tail follows the 24 bytes of parameters.
    checked: bool,
}

fn read_through_descriptor(checked: bool) -> ReadThroughDescriptor {
    ReadThroughDescriptor {
        slots: vec![
            ArgSlot {
                kind: ArgKind::GlobalPointer,
                offset: 0,
                size: 8,
            },
            ArgSlot {
                kind: ArgKind::Value,
                offset: 8,
                size: 4,
            },
            ArgSlot {
                kind: ArgKind::GlobalPointer,
                offset: 16,
                size: 8,
            },
        ],
        checked,
    }
}

impl KernelCode for ReadThroughDescriptor {
    fn name(&self) -> &str {
        "read_through_descriptor"
    }
    fn arg_slots(&self) -> &[ArgSlot] {
        &self.slots
    }
    fn args_size(&self) -> usize {
        if self.checked {
            24 + checked_offsets::tail_size(3)
        } else {
            24
        }
    }
    fn checked_tail(&self) -> Option<usize> {
        self.checked.then_some(24)
    }
    fn static_local_size(&self) -> u64 {
        0
    }
    fn context_size(&self, _: u64) -> u64 {
        0
    }
    fn simd_width(&self) -> u32 {
        1
    }
    unsafe fn run_groups(
        &self,
        args: *const u8,
        launch: &Launch,
        first_group: u64,
        end_group: u64,
        _: *mut u8,
        _: *mut u8,
    ) -> u32 {
        // SAFETY: the block is laid out per the slots: an image descriptor
        // pointer at 0, a u32 sampler at 8, an output pointer at 16.
        unsafe {
            let desc = &*(args.cast::<*const ImageDesc>().read_unaligned());
            let sampler = args.add(8).cast::<u32>().read_unaligned();
            let out = args.add(16).cast::<*mut u32>().read_unaligned();
            for g in first_group..end_group {
                for l in 0..launch.local_size[0] {
                    let i = g * launch.local_size[0] + l;
                    let byte = *desc.data.add((i * u64::from(desc.pixel_size)) as usize);
                    *out.add(i as usize) = u32::from(byte) + sampler + desc.width as u32 * 1000;
                }
            }
        }
        0
    }
}

#[test]
fn image_arguments_point_to_a_descriptor_and_samplers_are_values() {
    let code = std::sync::Arc::new(read_through_descriptor(false));
    let queue = Queue::new(Default::default()).expect("queue");
    let image = new_image(RGBA8, &shape(object::IMAGE1D, [16, 1, 1], 0));
    let data = pattern(64, 3);
    // SAFETY: 64 bytes, blocking.
    unsafe {
        queue.enqueue_write_image(&image, [0; 3], [16, 1, 1], 0, 0, data.as_ptr(), true, &[])
    }
    .expect("write");
    let out = Mem::new(MemFlags::READ_WRITE, 64).expect("out");
    let mut args = KernelArgs::for_code(&*code);
    let sampler = Sampler::new(false, addressing::CLAMP, filter::NEAREST).expect("sampler");
    // An image given like a buffer is recorded as an image.
    args.set(0, ArgValue::Buffer(Some(image.clone())))
        .expect("image");
    assert!(matches!(args.get(0), Some(ArgValue::Image(_))));
    assert!(matches!(
        args.set(0, ArgValue::Image(out.clone())),
        Err(Error::InvalidMemObject(_))
    ));
    assert!(matches!(
        args.set(1, ArgValue::Image(image.clone())),
        Err(Error::InvalidArgValue(_))
    ));
    args.set(1, ArgValue::Bytes(sampler.bits().to_le_bytes().to_vec()))
        .expect("sampler");
    args.set(2, ArgValue::Buffer(Some(out.clone())))
        .expect("out");
    let range = NdRange {
        work_dim: 1,
        offset: [0; 3],
        global: [16, 1, 1],
        local: Some([4, 1, 1]),
    };
    queue
        .enqueue_kernel(code, &args, &range, &Default::default(), &[])
        .expect("launch")
        .wait()
        .expect("ran");
    let mut got = [0u32; 16];
    // SAFETY: 64 bytes, blocking.
    unsafe { queue.enqueue_read(&out, 0, 64, got.as_mut_ptr().cast(), true, &[]) }.expect("read");
    for (i, &g) in got.iter().enumerate() {
        assert_eq!(g, u32::from(data[4 * i]) + sampler.bits() + 16_000);
    }

    // The block: the slot holds the descriptor's address; in checked mode
    // its range is the descriptor's bytes.
    let block = args.build_block(24, 0).expect("block");
    // SAFETY: the block is 24 bytes.
    let slot = unsafe { block.bytes.as_ptr().cast::<u64>().read() };
    assert_eq!(slot, block.image_descriptors.as_ptr() as u64);
    // SAFETY: the slot points at the block's descriptor.
    let desc = unsafe { *(slot as *const ImageDesc) };
    assert_eq!(desc, image.image_descriptor().expect("descriptor"));
    assert!(block.buffers.iter().any(|m| m.same_object(&image)));
}

#[test]
fn checked_launches_bound_an_image_argument_by_its_descriptor() {
    let code = read_through_descriptor(true);
    let image = new_image(R32F, &shape(object::IMAGE2D, [4, 4, 1], 0));
    let out = Mem::new(MemFlags::READ_WRITE, 64).expect("out");
    let mut args = KernelArgs::for_code(&code);
    args.set(0, ArgValue::Image(image.clone())).expect("image");
    args.set(1, ArgValue::Bytes(vec![0; 4])).expect("sampler");
    args.set(2, ArgValue::Buffer(Some(out.clone())))
        .expect("out");
    let block = args.build_block(code.args_size(), 0).expect("block");
    // SAFETY: the block is `args_size` bytes.
    let raw = unsafe { std::slice::from_raw_parts(block.bytes.as_ptr(), code.args_size()) };
    let word = |at: usize| u64::from_le_bytes(raw[at..at + 8].try_into().expect("8 bytes"));
    let entry = |i: usize| {
        let at = 24 + checked_offsets::BOUNDS as usize + checked_offsets::BOUNDS_ENTRY as usize * i;
        (word(at), word(at + 8))
    };
    let desc = word(0);
    assert_eq!(desc, block.image_descriptors.as_ptr() as u64);
    assert_eq!(
        entry(0),
        (desc, desc + std::mem::size_of::<ImageDesc>() as u64),
        "the image slot's range is its descriptor"
    );
    assert_eq!(entry(1), (u64::MAX, u64::MAX));
    let base = out.as_ptr() as u64;
    assert_eq!(entry(2), (base, base + 64));
}

//! The shared image functions of `vecl_ir::image` against cases worked by
//! hand from the OpenCL 1.2 rules (§8.2 "Image Addressing and Filtering",
//! §8.3 conversion rules, "Selecting an Image from an Image Array"), and
//! the pixel conversions round-tripped for every supported format.

use vecl_ir::image::*;

const EDGE: u32 = SAMPLER_ADDRESS_CLAMP_TO_EDGE;
const CLAMP: u32 = SAMPLER_ADDRESS_CLAMP;
const REPEAT: u32 = SAMPLER_ADDRESS_REPEAT;
const MIRROR: u32 = SAMPLER_ADDRESS_MIRRORED_REPEAT;
const NEAREST: u32 = SAMPLER_FILTER_NEAREST;
const LINEAR: u32 = SAMPLER_FILTER_LINEAR;
const NORM: u32 = SAMPLER_NORMALIZED;

/// An image of `CL_R`/`CL_FLOAT` pixels, x fastest, then y, z or layer.
fn r_float(image_type: u32, size: [u64; 3], layers: u64, values: &[f32]) -> (ImageDesc, Vec<u8>) {
    let desc = ImageDesc::packed(image_type, order::R, channel::FLOAT, size, layers).unwrap();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(bytes.len() as u64, desc.byte_len());
    (desc, bytes)
}

/// The red component of a float read.
fn red(desc: &ImageDesc, mem: &[u8], sampler: u32, coord: [f32; 4]) -> f32 {
    match read_image(
        desc,
        mem,
        Some(sampler),
        Coord::Float(coord),
        ValueClass::Float,
    ) {
        PixelValue::Float(v) => v[0],
        other => panic!("a float read gave {other:?}"),
    }
}

fn line() -> (ImageDesc, Vec<u8>) {
    r_float(object::IMAGE1D, [4, 1, 1], 0, &[10.0, 20.0, 30.0, 40.0])
}

fn x(s: f32) -> [f32; 4] {
    [s, 0.0, 0.0, 0.0]
}

#[test]
fn nearest_unnormalized_clamp_to_edge() {
    let (d, m) = line();
    assert_eq!(red(&d, &m, EDGE | NEAREST, x(1.7)), 20.0);
    assert_eq!(red(&d, &m, EDGE | NEAREST, x(-3.0)), 10.0);
    assert_eq!(red(&d, &m, EDGE | NEAREST, x(9.0)), 40.0);
    assert_eq!(red(&d, &m, EDGE | NEAREST, x(f32::NAN)), 10.0);
}

#[test]
fn nearest_normalized_clamp_to_edge_and_clamp() {
    let (d, m) = line();
    // u = 0.6 * 4 = 2.4 → texel 2.
    assert_eq!(red(&d, &m, NORM | EDGE | NEAREST, x(0.6)), 30.0);
    // u = 4 → texel 4, clamped to 3.
    assert_eq!(red(&d, &m, NORM | EDGE | NEAREST, x(1.0)), 40.0);
    // With CLAMP the same texel 4 is outside: the border colour of CL_R,
    // (0, 0, 0, 1).
    let v = read_image(
        &d,
        &m[..],
        Some(NORM | CLAMP | NEAREST),
        Coord::Float(x(1.0)),
        ValueClass::Float,
    );
    assert_eq!(v, PixelValue::Float([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(red(&d, &m, NORM | CLAMP | NEAREST, x(-0.1)), 0.0);
    assert_eq!(red(&d, &m, NORM | CLAMP | NEAREST, x(0.1)), 10.0);
}

#[test]
fn nearest_repeat() {
    let (d, m) = line();
    // s − floor(s) = 0.3 → u = 1.2 → texel 1.
    assert_eq!(red(&d, &m, NORM | REPEAT | NEAREST, x(1.3)), 20.0);
    // −0.1 → 0.9 → u = 3.6 → texel 3.
    assert_eq!(red(&d, &m, NORM | REPEAT | NEAREST, x(-0.1)), 40.0);
    assert_eq!(red(&d, &m, NORM | REPEAT | NEAREST, x(7.8)), 40.0);
    assert_eq!(red(&d, &m, NORM | REPEAT | NEAREST, x(7.55)), 30.0);
}

#[test]
fn nearest_mirrored_repeat() {
    let (d, m) = line();
    // s' = |1.3 − 2·rint(0.65)| = 0.7 → u = 2.8 → texel 2.
    assert_eq!(red(&d, &m, NORM | MIRROR | NEAREST, x(1.3)), 30.0);
    // s' = |−0.2 − 0| = 0.2 → u = 0.8 → texel 0.
    assert_eq!(red(&d, &m, NORM | MIRROR | NEAREST, x(-0.2)), 10.0);
    // s' = |1.9 − 2| = 0.1 → texel 0.
    assert_eq!(red(&d, &m, NORM | MIRROR | NEAREST, x(1.9)), 10.0);
    // s' = 1 → u = 4 → min(4, 3).
    assert_eq!(red(&d, &m, NORM | MIRROR | NEAREST, x(1.0)), 40.0);
}

#[test]
fn linear_clamp_to_edge() {
    let (d, m) = line();
    // u − 0.5 = 1.25: i0 = 1, i1 = 2, a = 0.25 → 20·0.75 + 30·0.25.
    assert_eq!(red(&d, &m, EDGE | LINEAR, x(1.75)), 22.5);
    // u − 0.5 = −0.25: i0 = −1 → 0, i1 = 0.
    assert_eq!(red(&d, &m, EDGE | LINEAR, x(0.25)), 10.0);
    assert_eq!(red(&d, &m, EDGE | LINEAR, x(4.0)), 40.0);
    // Normalised: 0.5 · 4 = 2 → i0 = 1, i1 = 2, a = 0.5.
    assert_eq!(red(&d, &m, NORM | EDGE | LINEAR, x(0.5)), 25.0);
}

#[test]
fn linear_clamp_blends_with_the_border() {
    let (d, m) = line();
    // i0 = −1 is the border (0), i1 = 0 is 10, a = 0.75.
    let v = read_image(
        &d,
        &m[..],
        Some(CLAMP | LINEAR),
        Coord::Float(x(0.25)),
        ValueClass::Float,
    );
    assert_eq!(v, PixelValue::Float([7.5, 0.0, 0.0, 1.0]));
    // Past the far edge: i0 = 3 (40), i1 = 4 border, a = 0.5.
    assert_eq!(red(&d, &m, CLAMP | LINEAR, x(4.0)), 20.0);
}

#[test]
fn linear_repeat_wraps_both_taps() {
    let (d, m) = line();
    // u = 0: i0 = −1 → 3, i1 = 0, a = frac(−0.5) = 0.5.
    assert_eq!(red(&d, &m, NORM | REPEAT | LINEAR, x(0.0)), 25.0);
    // u = 1.0 − floor → 0 as well.
    assert_eq!(red(&d, &m, NORM | REPEAT | LINEAR, x(1.0)), 25.0);
    // s = 0.875: u = 3.5 → i0 = 3, i1 = 4 → 0, a = 0.
    assert_eq!(red(&d, &m, NORM | REPEAT | LINEAR, x(0.875)), 40.0);
}

#[test]
fn linear_mirrored_repeat() {
    let (d, m) = line();
    // s' = 0.125 → u = 0.5 → i0 = 0, i1 = 1, a = 0.
    assert_eq!(red(&d, &m, NORM | MIRROR | LINEAR, x(-0.125)), 10.0);
    // rint(0.5) = 0 (ties to even) → s' = 1 → u = 4 → i0 = 3, i1 = min(4, 3).
    assert_eq!(red(&d, &m, NORM | MIRROR | LINEAR, x(1.0)), 40.0);
    // s = 1.75: rint(0.875) = 1 → s' = 0.25 → u = 1 → i0 = 0, i1 = 1, a = 0.5.
    assert_eq!(red(&d, &m, NORM | MIRROR | LINEAR, x(1.75)), 15.0);
}

#[test]
fn bilinear_weights() {
    // T00 = 0, T10 = 4, T01 = 8, T11 = 16.
    let (d, m) = r_float(object::IMAGE2D, [2, 2, 1], 0, &[0.0, 4.0, 8.0, 16.0]);
    // a = 0.25, b = 0.75: 0.25·0.25·4 + 0.75·0.75·8 + 0.25·0.75·16.
    assert_eq!(red(&d, &m, EDGE | LINEAR, [0.75, 1.25, 0.0, 0.0]), 7.75);
    assert_eq!(red(&d, &m, EDGE | NEAREST, [0.75, 1.25, 0.0, 0.0]), 8.0);
    assert_eq!(
        red(&d, &m, NORM | EDGE | NEAREST, [0.9, 0.9, 0.0, 0.0]),
        16.0
    );
}

#[test]
fn trilinear_reproduces_a_linear_function() {
    // Texel (x, y, z) holds x + 2y + 4z; trilinear filtering of a linear
    // function is exact between texel centres.
    let values: Vec<f32> = (0..8)
        .map(|i| (i & 1) as f32 + 2.0 * ((i >> 1) & 1) as f32 + 4.0 * (i >> 2) as f32)
        .collect();
    let (d, m) = r_float(object::IMAGE3D, [2, 2, 2], 0, &values);
    assert_eq!(red(&d, &m, EDGE | LINEAR, [1.0, 1.0, 1.0, 0.0]), 3.5);
    let v = red(&d, &m, EDGE | LINEAR, [0.8, 1.2, 1.4, 0.0]);
    assert!((v - 5.3).abs() < 1e-5, "{v}");
    assert_eq!(red(&d, &m, EDGE | NEAREST, [1.5, 0.2, 1.9, 0.0]), 5.0);
}

#[test]
fn array_layers_are_rounded_and_clamped() {
    // Two pixels per layer, three layers: layer l holds 10l, 10l + 1.
    let values = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0];
    let (d, m) = r_float(object::IMAGE2D_ARRAY, [2, 1, 1], 3, &values);
    let at = |layer: f32| red(&d, &m, EDGE | NEAREST, [1.5, 0.5, layer, 0.0]);
    assert_eq!(at(1.6), 21.0);
    assert_eq!(at(1.5), 21.0); // rint(1.5) = 2
    assert_eq!(at(0.5), 1.0); // rint(0.5) = 0
    assert_eq!(at(-5.0), 1.0);
    assert_eq!(at(9.0), 21.0);
    // The layer is never filtered, nor normalised.
    assert_eq!(
        red(&d, &m, NORM | EDGE | LINEAR, [0.5, 0.5, 1.0, 0.0]),
        10.5
    );

    let (d, m) = r_float(object::IMAGE1D_ARRAY, [2, 1, 1], 3, &values);
    let v = read_image(
        &d,
        &m[..],
        None,
        Coord::Int([0, 2, 0, 0]),
        ValueClass::Float,
    );
    assert_eq!(v, PixelValue::Float([20.0, 0.0, 0.0, 1.0]));
    assert_eq!(red(&d, &m, EDGE | NEAREST, [1.2, 1.4, 0.0, 0.0]), 11.0);
}

/// A 2×2 `CL_RGBA`/`CL_SIGNED_INT32` image whose pixel (x, y) is
/// (x, y, −1, 100 + x + 2y).
fn rgba_int() -> (ImageDesc, Vec<u8>) {
    let desc = ImageDesc::packed(
        object::IMAGE2D,
        order::RGBA,
        channel::SIGNED_INT32,
        [2, 2, 1],
        0,
    )
    .unwrap();
    let mut bytes = Vec::new();
    for y in 0..2i32 {
        for x in 0..2i32 {
            for c in [x, y, -1, 100 + x + 2 * y] {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
        }
    }
    (desc, bytes)
}

#[test]
fn integer_coordinates() {
    let (d, m) = rgba_int();
    let read = |sampler: Option<u32>, c: [i32; 4]| {
        read_image(&d, &m[..], sampler, Coord::Int(c), ValueClass::Int)
    };
    assert_eq!(read(None, [1, 0, 0, 0]), PixelValue::Int([1, 0, -1, 101]));
    assert_eq!(
        read(Some(EDGE | NEAREST), [5, -2, 0, 0]),
        PixelValue::Int([1, 0, -1, 101])
    );
    // CL_RGBA has alpha: its border is (0, 0, 0, 0).
    assert_eq!(
        read(Some(CLAMP | NEAREST), [2, 0, 0, 0]),
        PixelValue::Int([0; 4])
    );
    assert_eq!(
        read(Some(CLAMP | NEAREST), [0, 1, 0, 0]),
        PixelValue::Int([0, 1, -1, 102])
    );
}

#[test]
fn integer_images_filter_nearest_even_with_a_linear_sampler() {
    let (d, m) = rgba_int();
    let v = read_image(
        &d,
        &m[..],
        Some(EDGE | LINEAR),
        Coord::Float([1.9, 1.1, 0.0, 0.0]),
        ValueClass::Int,
    );
    assert_eq!(v, PixelValue::Int([1, 1, -1, 103]));
}

#[test]
fn writes_land_at_the_pitch_and_skip_outside_coordinates() {
    let mut d = ImageDesc::packed(
        object::IMAGE2D,
        order::RGBA,
        channel::UNORM_INT8,
        [2, 2, 1],
        0,
    )
    .unwrap();
    // Rows padded to 12 bytes.
    d.row_pitch = 12;
    d.slice_pitch = 24;
    let mut m = vec![0u8; 24];
    let v = PixelValue::Float([1.0, 0.5, 0.0, 0.25]);
    write_image(&d, &mut m[..], [1, 1, 0, 0], v);
    assert_eq!(&m[16..20], &[255, 128, 0, 64]);
    let before = m.clone();
    write_image(&d, &mut m[..], [2, 0, 0, 0], v);
    write_image(&d, &mut m[..], [0, -1, 0, 0], v);
    assert_eq!(m, before);
    let back = read_image(
        &d,
        &m[..],
        None,
        Coord::Int([1, 1, 0, 0]),
        ValueClass::Float,
    );
    assert_eq!(
        back,
        PixelValue::Float([1.0, 128.0 / 255.0, 0.0, 64.0 / 255.0])
    );
}

#[test]
fn array_and_3d_writes_select_the_slice() {
    let mut values = vec![0.0f32; 6];
    let (d, mut m) = r_float(object::IMAGE2D_ARRAY, [2, 1, 1], 3, &values);
    write_image(
        &d,
        &mut m[..],
        [1, 0, 2, 0],
        PixelValue::Float([7.0, 0.0, 0.0, 0.0]),
    );
    write_image(
        &d,
        &mut m[..],
        [1, 0, 3, 0],
        PixelValue::Float([9.0, 0.0, 0.0, 0.0]),
    );
    values[5] = 7.0;
    let want: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(m, want);

    let (d, mut m) = r_float(object::IMAGE3D, [2, 2, 2], 0, &[0.0; 8]);
    write_image(
        &d,
        &mut m[..],
        [0, 1, 1, 0],
        PixelValue::Float([3.0, 0.0, 0.0, 0.0]),
    );
    assert_eq!(&m[24..28], &3.0f32.to_le_bytes());
}

#[test]
fn reads_and_writes_never_leave_short_memory() {
    let (d, m) = line();
    // The descriptor claims 4 pixels; the memory holds 2.
    let v = read_image(
        &d,
        &m[..8],
        Some(EDGE | NEAREST),
        Coord::Float(x(3.0)),
        ValueClass::Float,
    );
    assert_eq!(v, PixelValue::Float([0.0, 0.0, 0.0, 1.0]));
    let mut short = m[..8].to_vec();
    write_image(
        &d,
        &mut short[..],
        [3, 0, 0, 0],
        PixelValue::Float([1.0; 4]),
    );
    assert_eq!(short, m[..8]);
    let mut bad = d;
    bad.image_type = 0;
    assert_eq!(
        read_image(&bad, &m[..], None, Coord::Int([0; 4]), ValueClass::Uint),
        PixelValue::Uint([0; 4])
    );
}

#[test]
fn image_dims() {
    let d = ImageDesc::packed(object::IMAGE3D, order::RGBA, channel::FLOAT, [5, 6, 7], 0).unwrap();
    assert_eq!(image_dim(&d), [5, 6, 7, 0]);
    assert_eq!(d.byte_len(), 5 * 6 * 7 * 16);
    let d = ImageDesc::packed(
        object::IMAGE2D_ARRAY,
        order::R,
        channel::UNORM_INT8,
        [5, 6, 1],
        3,
    )
    .unwrap();
    assert_eq!(image_dim(&d), [5, 6, 0, 0]);
    assert_eq!((d.depth, d.array_size, d.byte_len()), (1, 3, 90));
    assert!(ImageDesc::packed(
        object::IMAGE2D_ARRAY,
        order::R,
        channel::UNORM_INT8,
        [5, 6, 1],
        0
    )
    .is_none());
}

/// Equal as values: bit-identical, or both NaN.
fn same(a: PixelValue, b: PixelValue) -> bool {
    let (fa, fb) = (a.as_f32(), b.as_f32());
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
        && a.bits()
            .iter()
            .zip(b.bits())
            .enumerate()
            .all(|(i, (x, y))| {
                *x == y || matches!(a, PixelValue::Float(_)) && fa[i].is_nan() && fb[i].is_nan()
            })
}

#[test]
fn every_format_round_trips_its_values() {
    // For every pixel value a format can hold, writing it and reading it
    // back gives it again; bytes from a simple generator cover each format.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for &(o, t) in SUPPORTED_FORMATS {
        let px = pixel_size(o, t).unwrap() as usize;
        for _ in 0..500 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut bytes = [0u8; 16];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = (seed >> (i % 8 * 8)) as u8 ^ i as u8;
            }
            let v = decode_pixel(o, t, &bytes[..px]);
            let mut out = [0u8; 16];
            encode_pixel(o, t, v, &mut out[..px]);
            let again = decode_pixel(o, t, &out[..px]);
            assert!(
                same(v, again),
                "{o:#x}/{t:#x}: {v:?} → {:?} → {again:?}",
                &out[..px]
            );
        }
    }
}

#[test]
fn normalized_writes_by_the_spec_formula() {
    // convert_char_sat_rte(f · 127): 0.5 · 127 = 63.5 → 64; −2 → −128.
    let mut px = [0u8; 2];
    encode_pixel(
        order::RG,
        channel::SNORM_INT8,
        PixelValue::Float([0.5, -2.0, 0.0, 0.0]),
        &mut px,
    );
    assert_eq!(px, [64, 0x80]);
    // UNORM_INT16: 0.5 · 65535 = 32767.5 → 32768.
    let mut px = [0u8; 2];
    encode_pixel(
        order::R,
        channel::UNORM_INT16,
        PixelValue::Float([0.5, 0.0, 0.0, 0.0]),
        &mut px,
    );
    assert_eq!(u16::from_le_bytes(px), 32768);
    // CL_A writes the alpha component, CL_INTENSITY the red one.
    let mut px = [0u8; 1];
    encode_pixel(
        order::A,
        channel::UNORM_INT8,
        PixelValue::Float([0.0, 0.0, 0.0, 1.0]),
        &mut px,
    );
    assert_eq!(px, [255]);
    encode_pixel(
        order::INTENSITY,
        channel::UNORM_INT8,
        PixelValue::Float([1.0, 0.0, 0.0, 0.0]),
        &mut px,
    );
    assert_eq!(px, [255]);
}

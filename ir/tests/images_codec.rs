//! `PixelCodec` (a format resolved once, with dedicated conversions for the
//! common formats) against the general `decode_pixel` / `encode_pixel`:
//! bit-identical results for every supported format on random and special
//! pixels and values, and `PreparedImage` against `read_image` /
//! `write_image`.

use vecl_ir::image::{
    self, channel, decode_pixel, encode_pixel, object, order, Coord, ImageDesc, PixelCodec,
    PixelValue, PreparedImage, ValueClass, SUPPORTED_FORMATS,
};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn word(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
}

/// Component bits worth checking whatever the class: NaNs, infinities,
/// zeros, values around the saturation and rounding limits, integer
/// extremes.
fn special_words() -> Vec<u32> {
    let floats = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc1_2345),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        0.5 / 255.0,
        1.5 / 255.0,
        254.5 / 255.0,
        1.0 + f32::EPSILON,
        65504.0,
        65520.0,
        1e10,
        -1e10,
        f32::MIN_POSITIVE,
        1e-8,
        -1e-8,
        5.960_464_5e-8,
        1.0 + 2f32.powi(-11),
        f32::MAX,
        f32::MIN,
    ];
    let mut words: Vec<u32> = floats.iter().map(|f| f.to_bits()).collect();
    for i in [
        i32::MIN,
        i32::MAX,
        -1,
        0,
        1,
        127,
        128,
        -128,
        -129,
        255,
        256,
        65535,
        65536,
        -32769,
    ] {
        words.push(i as u32);
    }
    words
}

fn same(a: PixelValue, b: PixelValue) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b) && a.bits() == b.bits()
}

#[test]
fn decode_matches_the_general_code_on_every_format() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let specials = special_words();
    for &(o, t) in SUPPORTED_FORMATS {
        let codec = PixelCodec::new(o, t).expect("supported");
        let px = codec.pixel_size() as usize;
        let mut patterns: Vec<[u8; 16]> = (0..4000)
            .map(|_| {
                let mut b = [0u8; 16];
                for chunk in b.chunks_exact_mut(8) {
                    chunk.copy_from_slice(&rng.next().to_le_bytes());
                }
                b
            })
            .collect();
        for &w in &specials {
            let mut b = [0u8; 16];
            for chunk in b.chunks_exact_mut(4) {
                chunk.copy_from_slice(&w.to_le_bytes());
            }
            patterns.push(b);
            // The same pattern at half width: 16-bit halves, NaNs, infinities.
            let h = (w >> 16) as u16;
            for chunk in b.chunks_exact_mut(2) {
                chunk.copy_from_slice(&h.to_le_bytes());
            }
            patterns.push(b);
        }
        for b in &patterns {
            let fast = codec.decode(&b[..px]);
            let general = decode_pixel(o, t, &b[..px]);
            assert!(
                same(fast, general),
                "{o:#x}/{t:#x} {:?}: {fast:?} vs {general:?}",
                &b[..px]
            );
        }
        // Too few bytes: zeros of the class, as the general code.
        let short = codec.decode(&patterns[0][..px - 1]);
        assert!(same(short, decode_pixel(o, t, &patterns[0][..px - 1])));
    }
}

#[test]
fn every_half_decodes_as_the_general_code() {
    for (o, n) in [(order::R, 1), (order::RGBA, 4)] {
        let codec = PixelCodec::new(o, channel::HALF_FLOAT).expect("supported");
        assert!(codec.is_fast());
        for h in 0..=u16::MAX {
            let bytes: Vec<u8> = (0..n).flat_map(|_| h.to_le_bytes()).collect();
            let fast = codec.decode(&bytes);
            let general = decode_pixel(o, channel::HALF_FLOAT, &bytes);
            assert!(same(fast, general), "{h:#06x}: {fast:?} vs {general:?}");
        }
    }
}

#[test]
fn encode_matches_the_general_code_on_every_format() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let specials = special_words();
    let classes = [ValueClass::Float, ValueClass::Int, ValueClass::Uint];
    for &(o, t) in SUPPORTED_FORMATS {
        let codec = PixelCodec::new(o, t).expect("supported");
        let px = codec.pixel_size() as usize;
        let mut values: Vec<[u32; 4]> = (0..4000)
            .map(|_| std::array::from_fn(|_| rng.word()))
            .collect();
        // Floats in the range normalised writes care about, and the specials
        // in every component position.
        values.extend((0..2000).map(|_| {
            std::array::from_fn(|_| ((rng.word() as f32 / u32::MAX as f32) * 3.0 - 1.5).to_bits())
        }));
        for (i, &w) in specials.iter().enumerate() {
            let other = specials[(i * 7 + 3) % specials.len()];
            values.push([w, other, w, other]);
            values.push([other, w, other, w]);
        }
        for (i, bits) in values.iter().enumerate() {
            let v = PixelValue::from_bits(classes[i % 3], *bits);
            let mut fast = [0xa5u8; 16];
            let mut general = [0xa5u8; 16];
            codec.encode(v, &mut fast[..px]);
            encode_pixel(o, t, v, &mut general[..px]);
            assert_eq!(fast, general, "{o:#x}/{t:#x} {v:?}");
        }
        // Too little room: nothing written, as the general code.
        let mut short = [0x5au8; 16];
        codec.encode(PixelValue::Uint([7; 4]), &mut short[..px - 1]);
        assert_eq!(short, [0x5a; 16]);
    }
}

#[test]
fn the_common_formats_take_a_dedicated_path() {
    for t in [
        channel::UNORM_INT8,
        channel::FLOAT,
        channel::HALF_FLOAT,
        channel::SIGNED_INT32,
        channel::UNSIGNED_INT32,
    ] {
        for o in [order::RGBA, order::R] {
            let codec = PixelCodec::new(o, t).expect("supported");
            assert!(codec.is_fast(), "{o:#x}/{t:#x}");
        }
    }
    let codec = PixelCodec::new(order::BGRA, channel::UNORM_INT8).expect("supported");
    assert!(!codec.is_fast());
    assert_eq!(PixelCodec::new(order::RGBX, channel::UNORM_INT8), None);
}

#[test]
fn prepared_images_read_and_write_as_the_one_call_functions() {
    let mut rng = Rng(0x0dd_ba11);
    let samplers = [
        None,
        Some(image::SAMPLER_ADDRESS_CLAMP | image::SAMPLER_FILTER_NEAREST),
        Some(
            image::SAMPLER_NORMALIZED
                | image::SAMPLER_ADDRESS_REPEAT
                | image::SAMPLER_FILTER_LINEAR,
        ),
        Some(
            image::SAMPLER_NORMALIZED
                | image::SAMPLER_ADDRESS_MIRRORED_REPEAT
                | image::SAMPLER_FILTER_NEAREST,
        ),
    ];
    for &(o, t) in SUPPORTED_FORMATS {
        let desc = ImageDesc::packed(object::IMAGE2D_ARRAY, o, t, [5, 3, 1], 2).expect("valid");
        let len = usize::try_from(desc.byte_len()).expect("small");
        let mem: Vec<u8> = (0..len).map(|_| rng.word() as u8).collect();
        let img = PreparedImage::new(&desc).expect("known type");
        let class = image::value_class(t);
        for i in 0..200 {
            let ic: [i32; 4] = std::array::from_fn(|_| (rng.word() % 9) as i32 - 2);
            let fc: [f32; 4] =
                std::array::from_fn(|_| rng.word() as f32 / u32::MAX as f32 * 8.0 - 2.0);
            let sampler = samplers[i % samplers.len()];
            for coord in [Coord::Int(ic), Coord::Float(fc)] {
                let a = img.read(&mem[..], sampler, coord, class);
                let b = image::read_image(&desc, &mem[..], sampler, coord, class);
                assert!(same(a, b), "{o:#x}/{t:#x} {coord:?}");
            }
            let value = PixelValue::from_bits(class, std::array::from_fn(|_| rng.word()));
            let (mut m1, mut m2) = (mem.clone(), mem.clone());
            img.write(&mut m1[..], ic, value);
            image::write_image(&desc, &mut m2[..], ic, value);
            assert_eq!(m1, m2);
        }
    }
}

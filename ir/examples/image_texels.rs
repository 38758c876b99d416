//! Times texel reads and writes through `vecl_ir::image`: nanoseconds per
//! texel for a few common formats with integer coordinates, and a nearest
//! read with float coordinates, both through `read_image`/`write_image`
//! (the format resolved per call) and through a `PreparedImage` (resolved
//! once). Run with
//! `cargo run --release -p vecl-ir --example image_texels [millions]`.

use std::hint::black_box;
use std::time::Instant;
use vecl_ir::image::{
    self, channel, object, order, Coord, ImageDesc, PixelValue, PreparedImage, ValueClass,
    SAMPLER_ADDRESS_CLAMP_TO_EDGE, SAMPLER_FILTER_NEAREST,
};

const SIDE: u64 = 256;

fn image_of(channel_order: u32, channel_type: u32) -> Option<(ImageDesc, Vec<u8>)> {
    let desc = ImageDesc::packed(
        object::IMAGE2D,
        channel_order,
        channel_type,
        [SIDE, SIDE, 1],
        0,
    )?;
    let len = usize::try_from(desc.byte_len()).ok()?;
    let mem = (0..len).map(|i| (i * 7 + 3) as u8).collect();
    Some((desc, mem))
}

/// Nanoseconds per call of `f(i)` over `n` calls.
fn time(n: u64, mut f: impl FnMut(u64)) -> f64 {
    let start = Instant::now();
    for i in 0..n {
        f(i);
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

fn int_coord(i: u64) -> [i32; 4] {
    [(i % SIDE) as i32, (i / SIDE % SIDE) as i32, 0, 0]
}

fn main() {
    let millions: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4);
    let n = millions * 1_000_000;
    let cases = [
        (
            "RGBA/UNORM_INT8",
            order::RGBA,
            channel::UNORM_INT8,
            ValueClass::Float,
        ),
        ("RGBA/FLOAT", order::RGBA, channel::FLOAT, ValueClass::Float),
        ("R/FLOAT", order::R, channel::FLOAT, ValueClass::Float),
        (
            "RGBA/UNSIGNED_INT32",
            order::RGBA,
            channel::UNSIGNED_INT32,
            ValueClass::Uint,
        ),
        (
            "RGBA/HALF_FLOAT",
            order::RGBA,
            channel::HALF_FLOAT,
            ValueClass::Float,
        ),
    ];
    println!("{n} texels per case, ns per texel");
    for (name, o, t, class) in cases {
        let Some((desc, mut mem)) = image_of(o, t) else {
            println!("{name}: unsupported");
            continue;
        };
        let read = time(n, |i| {
            let v = image::read_image(&desc, &mem[..], None, Coord::Int(int_coord(i)), class);
            black_box(v);
        });
        let value = PixelValue::from_bits(class, [0.25f32, 0.5, 0.75, 1.0].map(f32::to_bits));
        let write = time(n, |i| {
            image::write_image(&desc, &mut mem[..], int_coord(i), black_box(value));
        });
        let Some(img) = PreparedImage::new(&desc) else {
            continue;
        };
        let prepared_read = time(n, |i| {
            black_box(img.read(&mem[..], None, Coord::Int(int_coord(i)), class));
        });
        let mut copy = mem.clone();
        let prepared_write = time(n, |i| {
            img.write(&mut copy[..], int_coord(i), black_box(value));
        });
        println!(
            "{name:22} read {read:6.1}  write {write:6.1}  \
             prepared read {prepared_read:6.1}  write {prepared_write:6.1}"
        );
    }
    if let Some((desc, mem)) = image_of(order::RGBA, channel::UNORM_INT8) {
        let sampler = SAMPLER_ADDRESS_CLAMP_TO_EDGE | SAMPLER_FILTER_NEAREST;
        let read = time(n, |i| {
            let [x, y, ..] = int_coord(i).map(|c| c as f32 + 0.5);
            let coord = Coord::Float([x, y, 0.0, 0.0]);
            black_box(image::read_image(
                &desc,
                &mem[..],
                Some(sampler),
                coord,
                ValueClass::Float,
            ));
        });
        let Some(img) = PreparedImage::new(&desc) else {
            return;
        };
        let prepared = time(n, |i| {
            let [x, y, ..] = int_coord(i).map(|c| c as f32 + 0.5);
            let coord = Coord::Float([x, y, 0.0, 0.0]);
            black_box(img.read(&mem[..], Some(sampler), coord, ValueClass::Float));
        });
        println!(
            "{:22} read {read:6.1}  prepared read {prepared:6.1}",
            "RGBA/UNORM_INT8 float"
        );
    }
}

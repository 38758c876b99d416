//! Image kernels in the JIT against the reference interpreter: reads with
//! every sampler kind (normalised or not, each addressing mode, both
//! filters), integer and sampler-less reads, every image type, writes of
//! every supported format, the `get_image_*` queries, and divergent lanes,
//! at W = 4 and 8. Pixels and buffers must come out byte-identical, and the
//! guard bytes after each image untouched.

use vecl_ir::image::*;
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::Module;
use vecl_jit::abi::{ArgKind, Launch};
use vecl_jit::CompiledKernel;
use vecl_testkit::groups::run_all_groups;
use vecl_testkit::hand_built::compile;

const WIDTHS: [u32; 2] = [4, 8];
const GUARD: usize = 64;

fn build(src: &str) -> Module {
    match vecl_clc::build(src, "") {
        Ok(b) => b.module,
        Err(e) => panic!("front end: {e}"),
    }
}

/// Runs `kernel` with `args` (buffers, values and images) in the JIT at
/// width `w`; returns the arguments as they come out (images' pixels and
/// buffers updated).
fn run_jit(
    m: &Module,
    kernel: &str,
    w: u32,
    args: &[KernelArg],
    range: &NdRange,
) -> Vec<KernelArg> {
    run_compiled(&compile(m, kernel, w), kernel, w, args, range)
}

/// [`run_jit`] of a kernel already compiled at width `w`.
fn run_compiled(
    k: &CompiledKernel,
    kernel: &str,
    w: u32,
    args: &[KernelArg],
    range: &NdRange,
) -> Vec<KernelArg> {
    // Each buffer or image's bytes, followed by a guard region.
    let mut mems: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) | KernelArg::Image { pixels: b, .. } => b
                .iter()
                .copied()
                .chain((0..GUARD).map(|i| 0xA5 ^ i as u8))
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    let mut descs: Vec<Box<ImageDesc>> = Vec::new();
    let mut block = vec![0u8; k.args_size().max(8)];
    for (i, (slot, a)) in k.args().iter().zip(args).enumerate() {
        let at = slot.offset as usize;
        match (slot.kind, a) {
            (ArgKind::GlobalPointer, KernelArg::Buffer(_)) => {
                let p = mems[i].as_mut_ptr() as u64;
                block[at..at + 8].copy_from_slice(&p.to_le_bytes());
            }
            (ArgKind::GlobalPointer, KernelArg::Image { desc, .. }) => {
                let mut d = Box::new(*desc);
                d.data = mems[i].as_mut_ptr();
                let p = &*d as *const ImageDesc as u64;
                descs.push(d);
                block[at..at + 8].copy_from_slice(&p.to_le_bytes());
            }
            (ArgKind::Value, KernelArg::Value(b)) => block[at..at + b.len()].copy_from_slice(b),
            (kind, a) => panic!("argument {a:?} does not match slot {kind:?}"),
        }
    }
    let mut launch = Launch::new(
        range.work_dim,
        range.global_offset,
        range.global_size,
        range.local_size,
    );
    // SAFETY: the block matches args(); its pointers point into `mems` and
    // `descs`, which outlive the call, and every image descriptor's data
    // holds byte_len() bytes.
    let status = unsafe { run_all_groups(k, &block, &mut launch, k.static_local_size() as u64) };
    assert_eq!(status, 0, "{kernel} W={w}: status");
    drop(descs);
    args.iter()
        .zip(mems)
        .map(|(a, mut mem)| {
            let n = mem.len().saturating_sub(GUARD);
            let guard_ok = mem[n..]
                .iter()
                .enumerate()
                .all(|(i, b)| *b == 0xA5 ^ i as u8);
            assert!(
                guard_ok,
                "{kernel} W={w}: a write past the end of an argument"
            );
            mem.truncate(n);
            match a {
                KernelArg::Buffer(_) => KernelArg::Buffer(mem),
                KernelArg::Image { desc, .. } => KernelArg::Image {
                    desc: *desc,
                    pixels: mem,
                },
                other => other.clone(),
            }
        })
        .collect()
}

/// The interpreter's and the JIT's results agree at every width; returns
/// the interpreter's.
fn versus(m: &Module, kernel: &str, args: &[KernelArg], range: &NdRange) -> Vec<KernelArg> {
    let mut want = args.to_vec();
    run_kernel(m, kernel, &mut want, range)
        .unwrap_or_else(|e| panic!("{kernel}: interpreter: {e}"));
    for w in WIDTHS {
        let got = run_jit(m, kernel, w, args, range);
        for (i, (a, b)) in want.iter().zip(&got).enumerate() {
            assert_eq!(
                a, b,
                "{kernel} W={w}: argument {i} differs from the interpreter"
            );
        }
    }
    want
}

/// An image of format (`o`, `t`) and type `ty` whose pixel bytes follow a
/// simple generator (every byte pattern a format can hold).
fn image(ty: u32, o: u32, t: u32, size: [u64; 3], layers: u64, seed: u32) -> KernelArg {
    let desc = ImageDesc::packed(ty, o, t, size, layers).unwrap();
    let px = pixel_size(o, t).unwrap() as usize;
    let count = desc.byte_len() as usize / px;
    let mut pixels = vec![0u8; desc.byte_len() as usize];
    for p in 0..count {
        // Representable values for the class: decode any bytes, encode back.
        let mut raw = [0u8; 16];
        for (i, b) in raw.iter_mut().enumerate() {
            *b = ((p as u32 * 37 + i as u32 * 11 + seed) % 251) as u8;
        }
        let v = match value_class(t) {
            ValueClass::Float if t == channel::FLOAT => {
                PixelValue::Float(std::array::from_fn(|c| {
                    ((p * 3 + c) % 17) as f32 * 0.25 - 1.0
                }))
            }
            _ => decode_pixel(o, t, &raw[..px]),
        };
        encode_pixel(o, t, v, &mut pixels[p * px..(p + 1) * px]);
    }
    KernelArg::Image { desc, pixels }
}

fn floats(n: usize) -> KernelArg {
    KernelArg::Buffer(vec![0; n * 16])
}

fn value(bytes: &[u8]) -> KernelArg {
    KernelArg::Value(bytes.to_vec())
}

/// Every sampler value: normalised or not × five addressing modes × two filters.
fn samplers() -> Vec<u32> {
    let mut out = Vec::new();
    for norm in [0, SAMPLER_NORMALIZED] {
        for addr in [
            SAMPLER_ADDRESS_NONE,
            SAMPLER_ADDRESS_CLAMP_TO_EDGE,
            SAMPLER_ADDRESS_CLAMP,
            SAMPLER_ADDRESS_REPEAT,
            SAMPLER_ADDRESS_MIRRORED_REPEAT,
        ] {
            for filter in [SAMPLER_FILTER_NEAREST, SAMPLER_FILTER_LINEAR] {
                out.push(norm | addr | filter);
            }
        }
    }
    out
}

#[test]
fn float_reads_with_every_sampler_and_divergent_lanes() {
    let m = build(
        "kernel void sample(read_only image2d_t img, sampler_t s, global float4 *out, float scale, float bias) {
            int i = get_global_id(0);
            float2 c = (float2)(i * scale + bias, (i % 7) * scale * 1.5f + bias * 0.3f);
            if (i % 5 != 3)
                out[i] = read_imagef(img, s, c);
            else
                out[i] = (float4)(-7.0f);
        }",
    );
    let n = 37;
    let img = image(
        object::IMAGE2D,
        order::RGBA,
        channel::UNORM_INT8,
        [5, 3, 1],
        0,
        1,
    );
    let mut launches = 0;
    for s in samplers() {
        let (scale, bias) = if s & SAMPLER_NORMALIZED != 0 {
            (0.061f32, -0.7f32)
        } else {
            (0.31, -2.2)
        };
        let args = [
            img.clone(),
            value(&s.to_le_bytes()),
            floats(n),
            value(&scale.to_le_bytes()),
            value(&bias.to_le_bytes()),
        ];
        let out = versus(&m, "sample", &args, &NdRange::linear(n as u64, 8));
        // The reads hit many different texels and weights.
        let KernelArg::Buffer(b) = &out[2] else {
            unreachable!()
        };
        let mut distinct: Vec<&[u8]> = b.chunks(16).collect();
        distinct.sort();
        distinct.dedup();
        assert!(
            distinct.len() >= 5,
            "sampler {s:#x}: {} distinct values",
            distinct.len()
        );
        launches += 1;
    }
    assert_eq!(launches, 20);
}

#[test]
fn uniform_reads_give_one_value_to_every_lane() {
    let m = build(
        "__constant sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
        kernel void k(read_only image2d_t img, global float4 *out, float x) {
            out[get_global_id(0)] = read_imagef(img, s, (float2)(x, 0.3f));
        }",
    );
    let img = image(
        object::IMAGE2D,
        order::BGRA,
        channel::UNORM_INT8,
        [4, 4, 1],
        0,
        9,
    );
    let args = [img, floats(12), value(&1.37f32.to_le_bytes())];
    let out = versus(&m, "k", &args, &NdRange::linear(12, 4));
    let KernelArg::Buffer(b) = &out[1] else {
        unreachable!()
    };
    assert!(b.chunks(16).all(|c| c == &b[..16]));
}

#[test]
fn integer_reads_of_every_image_type() {
    let m = build(
        "__constant sampler_t clampy = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
        kernel void k(read_only image1d_t a, read_only image1d_array_t b, read_only image2d_array_t c,
                      read_only image3d_t d, read_only image1d_buffer_t e,
                      global int4 *oi, global uint4 *ou, global float4 *of) {
            int i = get_global_id(0);
            int j = i % 9 - 2;
            oi[i] = read_imagei(a, clampy, j) + read_imagei(a, j & 3);
            ou[i] = read_imageui(b, clampy, (int2)(j, i % 4)) + read_imageui(b, clampy, (float2)(j * 0.7f, 1.4f));
            if (i & 1)
                of[i] = read_imagef(c, clampy, (float4)(j * 0.9f, i * 0.3f, i % 3, 0));
            else
                of[i] = read_imagef(d, clampy, (int4)(j, i % 3, i % 2, 0));
            of[i] += read_imagef(e, i % 6);
        }",
    );
    let n = 24;
    let args = [
        image(
            object::IMAGE1D,
            order::RG,
            channel::SIGNED_INT16,
            [6, 1, 1],
            0,
            2,
        ),
        image(
            object::IMAGE1D_ARRAY,
            order::RGBA,
            channel::UNSIGNED_INT8,
            [5, 1, 1],
            3,
            3,
        ),
        image(
            object::IMAGE2D_ARRAY,
            order::R,
            channel::HALF_FLOAT,
            [4, 3, 1],
            2,
            4,
        ),
        image(
            object::IMAGE3D,
            order::RA,
            channel::SNORM_INT16,
            [3, 3, 2],
            0,
            5,
        ),
        image(
            object::IMAGE1D_BUFFER,
            order::RGBA,
            channel::FLOAT,
            [6, 1, 1],
            0,
            6,
        ),
        floats(n),
        floats(n),
        floats(n),
    ];
    versus(&m, "k", &args, &NdRange::linear(n as u64, 8));
}

#[test]
fn linear_filtering_of_3d_images_and_arrays() {
    let m = build(
        "__constant sampler_t lin = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;
        kernel void k(read_only image3d_t d, read_only image2d_array_t c, global float4 *o) {
            int i = get_global_id(0);
            float t = i * 0.093f - 0.4f;
            o[2 * i] = read_imagef(d, lin, (float4)(t, 1.0f - t, t * 0.5f, 0));
            o[2 * i + 1] = read_imagef(c, lin, (float4)(t, t * t, i * 0.25f, 0));
        }",
    );
    let n = 20;
    let args = [
        image(
            object::IMAGE3D,
            order::LUMINANCE,
            channel::UNORM_INT16,
            [4, 3, 3],
            0,
            7,
        ),
        image(
            object::IMAGE2D_ARRAY,
            order::INTENSITY,
            channel::FLOAT,
            [3, 4, 1],
            4,
            8,
        ),
        floats(2 * n),
    ];
    versus(&m, "k", &args, &NdRange::linear(n as u64, 4));
}

#[test]
fn writes_of_every_supported_format() {
    let m = build(
        "kernel void wf(write_only image2d_t img, global const float4 *c) {
            int i = get_global_id(0);
            if (i % 5 != 2)
                write_imagef(img, (int2)(i % 4, i / 4), c[i]);
        }
        kernel void wi(write_only image2d_t img, global const int4 *c) {
            int i = get_global_id(0);
            if (i % 5 != 2)
                write_imagei(img, (int2)(i % 4, i / 4), c[i]);
        }
        kernel void wu(write_only image2d_t img, global const uint4 *c) {
            int i = get_global_id(0);
            if (i % 5 != 2)
                write_imageui(img, (int2)(i % 4, i / 4), c[i]);
        }",
    );
    // 14 items over a 4×3 image: the last two write outside it.
    let n: usize = 14;
    let mut formats = 0;
    for &(o, t) in SUPPORTED_FORMATS {
        let (kernel, colors): (&str, Vec<u8>) = match value_class(t) {
            ValueClass::Float => (
                "wf",
                (0..n * 4)
                    .flat_map(|k| (((k * 13) % 29) as f32 * 0.09 - 0.6).to_le_bytes())
                    .collect(),
            ),
            ValueClass::Int => (
                "wi",
                (0..n * 4)
                    .flat_map(|k| ((k as i32 * 7919) % 90001 - 45000).to_le_bytes())
                    .collect(),
            ),
            ValueClass::Uint => (
                "wu",
                (0..n * 4)
                    .flat_map(|k| ((k as u32 * 7919) % 90001).to_le_bytes())
                    .collect(),
            ),
        };
        let desc = ImageDesc::packed(object::IMAGE2D, o, t, [4, 3, 1], 0).unwrap();
        let blank = KernelArg::Image {
            desc,
            pixels: vec![0x11; desc.byte_len() as usize],
        };
        let args = [blank.clone(), KernelArg::Buffer(colors)];
        let out = versus(&m, kernel, &args, &NdRange::linear(n as u64, 4));
        // Items 2, 7 and 12 (and the two outside) wrote nothing.
        let KernelArg::Image { pixels, .. } = &out[0] else {
            unreachable!()
        };
        let px = desc.pixel_size as usize;
        assert_eq!(
            &pixels[2 * px..3 * px],
            &vec![0x11; px][..],
            "{o:#x}/{t:#x}"
        );
        formats += 1;
    }
    assert_eq!(formats, SUPPORTED_FORMATS.len());
}

#[test]
fn queries() {
    let m = build(
        "kernel void k(read_only image3d_t d, write_only image2d_array_t c, image1d_t a, global int *o, global ulong *l) {
            int4 dd = get_image_dim(d);
            int2 cd = get_image_dim(c);
            o[0] = dd.x; o[1] = dd.y; o[2] = dd.z; o[3] = dd.w;
            o[4] = cd.x; o[5] = cd.y; o[6] = get_image_width(a); o[7] = get_image_depth(d);
            o[8] = get_image_channel_order(c); o[9] = get_image_channel_data_type(a);
            o[10] = get_image_height(c);
            l[get_global_id(0)] = get_image_array_size(c) + get_global_id(0);
        }",
    );
    let args = [
        image(
            object::IMAGE3D,
            order::RGBA,
            channel::UNORM_INT8,
            [5, 6, 7],
            0,
            1,
        ),
        image(
            object::IMAGE2D_ARRAY,
            order::RG,
            channel::FLOAT,
            [3, 2, 1],
            4,
            1,
        ),
        image(
            object::IMAGE1D,
            order::A,
            channel::HALF_FLOAT,
            [9, 1, 1],
            0,
            1,
        ),
        KernelArg::Buffer(vec![0; 44]),
        KernelArg::Buffer(vec![0; 64]),
    ];
    let out = versus(&m, "k", &args, &NdRange::linear(8, 8));
    let KernelArg::Buffer(o) = &out[3] else {
        unreachable!()
    };
    let o: Vec<i32> = o
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        o,
        [
            5,
            6,
            7,
            0,
            3,
            2,
            9,
            7,
            order::RG as i32,
            channel::HALF_FLOAT as i32,
            2
        ]
    );
}

#[test]
fn images_and_samplers_through_helper_functions() {
    let m = build(
        "float4 fetch(read_only image2d_t img, sampler_t s, float2 at) { return read_imagef(img, s, at); }
        void put(write_only image2d_t img, int2 at, float4 v) { write_imagef(img, at, v); }
        kernel void k(read_only image2d_t src, write_only image2d_t dst, sampler_t s) {
            int x = get_global_id(0), y = get_global_id(1);
            float4 v = fetch(src, s, (float2)(x * 0.7f + 0.2f, y * 0.6f + 0.1f));
            if ((x + y) % 3 != 0)
                put(dst, (int2)(x, y), v * 0.5f);
        }",
    );
    let src = image(
        object::IMAGE2D,
        order::RGBA,
        channel::UNORM_INT16,
        [5, 4, 1],
        0,
        3,
    );
    let desc = ImageDesc::packed(
        object::IMAGE2D,
        order::RG,
        channel::HALF_FLOAT,
        [6, 5, 1],
        0,
    )
    .unwrap();
    let dst = KernelArg::Image {
        desc,
        pixels: vec![0; desc.byte_len() as usize],
    };
    let s = SAMPLER_ADDRESS_CLAMP | SAMPLER_FILTER_LINEAR;
    let range = NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [6, 5, 1],
        local_size: [4, 2, 1],
    };
    let out = versus(&m, "k", &[src, dst, value(&s.to_le_bytes())], &range);
    let KernelArg::Image { pixels, .. } = &out[1] else {
        unreachable!()
    };
    // Item (0, 0) skipped its write; others wrote something.
    assert_eq!(&pixels[..4], &[0; 4]);
    assert!(pixels.iter().any(|b| *b != 0));
}

/// A kernel (in IR text; OpenCL C cannot write it) whose image differs
/// between lanes: the JIT's per-lane calls.
const PER_LANE_IMAGES: &str = r#"
kernel @k(a: ptr global u8, b: ptr global u8, c: ptr global u8, d: ptr global u8, o: ptr global <4 x f32>) {
  %0: ptr global u8 = param 0
  %1: ptr global u8 = param 1
  %2: ptr global u8 = param 2
  %3: ptr global u8 = param 3
  %4: ptr global <4 x f32> = param 4
  %5: u32 = const 0
  %6: u64 = work_item global_id %5
  %7: u64 = const 1
  %8: u64 = and %6, %7
  %9: bool = cmp eq %8, %7
  %10: ptr global u8 = select %9, %0, %1
  %11: i32 = convert %6
  %12: i32 = const 1
  %13: <2 x i32> = construct %11, %12
  %14: <4 x f32> = builtin read_imagef(%10, %13)
  %15: ptr global <4 x f32> = index %4, %6
  store %15, %14
  %16: ptr global u8 = select %9, %2, %3
  %17: u64 = const 3
  %18: bool = cmp lt %6, %17
  if %18 {
    %19: void = builtin write_imagef(%16, %13, %14)
  }
  return
}
"#;

#[test]
fn images_that_differ_between_lanes() {
    let m = vecl_ir::text::parse_module(PER_LANE_IMAGES).unwrap_or_else(|e| panic!("{e:?}"));
    let blank = |o, t| {
        let desc = ImageDesc::packed(object::IMAGE2D, o, t, [8, 2, 1], 0).unwrap();
        KernelArg::Image {
            desc,
            pixels: vec![0; desc.byte_len() as usize],
        }
    };
    let args = [
        image(
            object::IMAGE2D,
            order::RGBA,
            channel::UNORM_INT8,
            [8, 2, 1],
            0,
            1,
        ),
        image(object::IMAGE2D, order::R, channel::FLOAT, [8, 2, 1], 0, 2),
        blank(order::RGBA, channel::HALF_FLOAT),
        blank(order::RG, channel::UNORM_INT16),
        floats(8),
    ];
    let out = versus(&m, "k", &args, &NdRange::linear(8, 8));
    // Item 1 (odd: image c) wrote pixel (1, 1); items 0 and 2 (even:
    // image d) pixels (0, 1) and (2, 1).
    let (KernelArg::Image { pixels: c, .. }, KernelArg::Image { pixels: d, .. }) =
        (&out[2], &out[3])
    else {
        unreachable!()
    };
    let nonzero = |p: &[u8]| p.iter().filter(|b| **b != 0).count();
    assert!(nonzero(&c[..72]) == 0 && nonzero(&c[72..80]) > 0 && nonzero(&c[80..]) == 0);
    assert!(nonzero(&d[32..36]) > 0 && nonzero(&d[40..44]) > 0 && nonzero(&d[44..]) == 0);
}

// Chunks of consecutive texels (`lower/builtins/image_rows.rs`): a vector
// path in front of the host call for integer coordinates whose x is
// `get_global_id(0) + uniform` and whose other components are uniform.
// Each case below puts chunks inside the image (the vector path), across
// its edges, outside it, partial or divergent (the host call) and checks
// every one against the interpreter at widths from 4 to 64 (64 is past the
// chunk call, so the fallback there is one call per lane).

const ROW_WIDTHS: [u32; 5] = [4, 8, 16, 32, 64];

/// The formats with a vector path, then some without.
const ROW_FORMATS: [(u32, u32); 17] = [
    (order::R, channel::FLOAT),
    (order::R, channel::SIGNED_INT32),
    (order::R, channel::UNSIGNED_INT32),
    (order::RGBA, channel::FLOAT),
    (order::RGBA, channel::SIGNED_INT32),
    (order::RGBA, channel::UNSIGNED_INT32),
    (order::RGBA, channel::UNORM_INT8),
    (order::BGRA, channel::UNORM_INT8),
    (order::RGBA, channel::UNSIGNED_INT8),
    (order::RGBA, channel::SIGNED_INT8),
    (order::BGRA, channel::UNSIGNED_INT8),
    (order::BGRA, channel::SIGNED_INT8),
    (order::R, channel::UNORM_INT8),
    (order::R, channel::HALF_FLOAT),
    (order::RG, channel::UNORM_INT16),
    (order::ARGB, channel::UNORM_INT8),
    (order::RGBA, channel::SNORM_INT8),
];

/// Compiles each kernel of `m` at every row width once.
fn compile_rows(m: &Module, kernels: &[&str]) -> Vec<(String, u32, CompiledKernel)> {
    let mut out = Vec::new();
    for k in kernels {
        for w in ROW_WIDTHS {
            out.push((k.to_string(), w, compile(m, k, w)));
        }
    }
    out
}

/// The interpreter's result of `kernel` and the JIT's at every row width
/// agree; returns the interpreter's.
fn versus_rows(
    m: &Module,
    compiled: &[(String, u32, CompiledKernel)],
    kernel: &str,
    args: &[KernelArg],
    range: &NdRange,
    what: &str,
) -> Vec<KernelArg> {
    let mut want = args.to_vec();
    run_kernel(m, kernel, &mut want, range)
        .unwrap_or_else(|e| panic!("{kernel}: interpreter: {e}"));
    let mut widths = 0;
    for (name, w, k) in compiled.iter().filter(|(n, _, _)| n == kernel) {
        let got = run_compiled(k, name, *w, args, range);
        for (i, (a, b)) in want.iter().zip(&got).enumerate() {
            assert_eq!(a, b, "{kernel} W={w} {what}: argument {i} differs");
        }
        widths += 1;
    }
    assert_eq!(widths, ROW_WIDTHS.len(), "{kernel} compiled");
    want
}

fn range2(global: [u64; 2], local: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

fn int(x: i32) -> KernelArg {
    value(&x.to_le_bytes())
}

#[test]
fn row_reads_match_the_interpreter_inside_across_and_outside_the_image() {
    let m = build(
        "kernel void rf(read_only image2d_t img, sampler_t s, global float4 *out, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imagef(img, s, (int2)(x + dx, y + dy));
        }
        kernel void ri(read_only image2d_t img, sampler_t s, global int4 *out, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imagei(img, s, (int2)(x + dx, y + dy));
        }
        kernel void ru(read_only image2d_t img, sampler_t s, global uint4 *out, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imageui(img, s, (int2)(x + dx, y + dy));
        }
        kernel void rn(read_only image2d_t img, sampler_t s, global float4 *out, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imagef(img, (int2)(x + dx, y + dy));
        }",
    );
    let compiled = compile_rows(&m, &["rf", "ri", "ru", "rn"]);
    assert!(compiled
        .iter()
        .all(|(_, _, k)| k.explain().contains("image accesses of consecutive")));
    // A 70 × 5 image under a 72 × 6 launch: chunks wholly inside, chunks
    // across the right edge, rows above and below it; the second local
    // size leaves partial chunks at every width above 4.
    let (global, size) = ([72, 6], [70, 5, 1]);
    let samplers = [
        SAMPLER_ADDRESS_CLAMP_TO_EDGE | SAMPLER_FILTER_NEAREST,
        SAMPLER_ADDRESS_CLAMP | SAMPLER_FILTER_NEAREST,
        SAMPLER_NORMALIZED | SAMPLER_ADDRESS_REPEAT | SAMPLER_FILTER_LINEAR,
    ];
    let shifts = [(0, 0), (-3, -1), (6, 1), (-70, 0)];
    let mut cases = 0;
    for (f, &(o, t)) in ROW_FORMATS.iter().enumerate() {
        let img = image(object::IMAGE2D, o, t, size, 0, f as u32);
        for kernel in ["rf", "ri", "ru", "rn"] {
            for (si, &s) in samplers.iter().enumerate() {
                if kernel == "rn" && si > 0 {
                    continue;
                }
                for &(dx, dy) in &shifts {
                    for local in [[72, 1], [24, 3], [1, 2]] {
                        let args = [
                            img.clone(),
                            value(&s.to_le_bytes()),
                            floats(72 * 6),
                            int(dx),
                            int(dy),
                        ];
                        let what = format!(
                            "{o:#x}/{t:#x} sampler {s:#x} shift ({dx}, {dy}) local {local:?}"
                        );
                        let out = versus_rows(
                            &m,
                            &compiled,
                            kernel,
                            &args,
                            &range2(global, local),
                            &what,
                        );
                        // Shift (0, 0) reads the image itself: every texel
                        // of the first row is in the output.
                        if (dx, dy) == (0, 0) && kernel == "rf" && si == 0 && t == channel::FLOAT {
                            let (KernelArg::Buffer(b), KernelArg::Image { pixels, .. }) =
                                (&out[2], &img)
                            else {
                                unreachable!()
                            };
                            let px = pixel_size(o, t).unwrap() as usize;
                            assert_eq!(&b[..4], &pixels[..4], "{what}");
                            assert_eq!(
                                &b[16 * 69..16 * 69 + 4],
                                &pixels[69 * px..69 * px + 4],
                                "{what}"
                            );
                        }
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, ROW_FORMATS.len() * 10 * shifts.len() * 3);
}

#[test]
fn row_reads_of_1d_3d_array_and_buffer_images() {
    let m = build(
        "kernel void k(read_only image1d_t a, read_only image1d_buffer_t b, read_only image3d_t c,
                       read_only image2d_array_t d, read_only image1d_array_t e,
                       sampler_t s, global float4 *out, int dx, int z) {
            int x = get_global_id(0) + dx;
            int i = get_global_id(0);
            out[5 * i] = read_imagef(a, s, x);
            out[5 * i + 1] = read_imagef(b, x);
            out[5 * i + 2] = read_imagef(c, s, (int4)(x, 1, z, 7));
            out[5 * i + 3] = read_imagef(d, s, (int4)(x, 2, z, 0));
            out[5 * i + 4] = read_imagef(e, s, (int2)(x, z));
        }",
    );
    let compiled = compile_rows(&m, &["k"]);
    let n = 80u64;
    let args = |dx: i32, z: i32, s: u32| {
        vec![
            image(
                object::IMAGE1D,
                order::RGBA,
                channel::UNORM_INT8,
                [75, 1, 1],
                0,
                1,
            ),
            image(
                object::IMAGE1D_BUFFER,
                order::R,
                channel::FLOAT,
                [70, 1, 1],
                0,
                2,
            ),
            image(
                object::IMAGE3D,
                order::RGBA,
                channel::FLOAT,
                [67, 3, 2],
                0,
                3,
            ),
            image(
                object::IMAGE2D_ARRAY,
                order::R,
                channel::FLOAT,
                [66, 3, 1],
                3,
                4,
            ),
            image(
                object::IMAGE1D_ARRAY,
                order::BGRA,
                channel::UNORM_INT8,
                [72, 1, 1],
                2,
                5,
            ),
            value(&s.to_le_bytes()),
            floats(5 * n as usize),
            int(dx),
            int(z),
        ]
    };
    for s in [SAMPLER_ADDRESS_CLAMP_TO_EDGE, SAMPLER_ADDRESS_CLAMP] {
        for (dx, z) in [(0, 0), (0, 1), (-2, 1), (4, 2), (0, -1)] {
            for local in [n, 20] {
                let what = format!("sampler {s:#x} dx {dx} z {z} local {local}");
                versus_rows(
                    &m,
                    &compiled,
                    "k",
                    &args(dx, z, s),
                    &NdRange::linear(n, local),
                    &what,
                );
            }
        }
    }
}

#[test]
fn row_reads_of_coordinates_that_are_not_a_row() {
    // Strided, reversed, permuted within the chunk, clamped, divergent,
    // and a varying y: none is `x0 + lane` with a uniform y everywhere.
    let m = build(
        "kernel void k(read_only image2d_t img, sampler_t s, global float4 *out, int n) {
            int i = get_global_id(0);
            out[6 * i] = read_imagef(img, s, (int2)(2 * i, 1));
            out[6 * i + 1] = read_imagef(img, s, (int2)(n - i, 2));
            out[6 * i + 2] = read_imagef(img, s, (int2)(i ^ 1, 0));
            out[6 * i + 3] = read_imagef(img, s, (int2)(min(i, 9), 3));
            out[6 * i + 4] = (i % 7 == 3) ? (float4)(-1.0f) : read_imagef(img, s, (int2)(i, 1));
            out[6 * i + 5] = read_imagef(img, s, (int2)(i, i % 3));
        }",
    );
    let compiled = compile_rows(&m, &["k"]);
    let n = 96u64;
    for (o, t) in [
        (order::R, channel::FLOAT),
        (order::RGBA, channel::UNORM_INT8),
    ] {
        for local in [n, 32] {
            let args = [
                image(object::IMAGE2D, o, t, [100, 4, 1], 0, 7),
                value(&SAMPLER_ADDRESS_CLAMP.to_le_bytes()),
                floats(6 * n as usize),
                int(90),
            ];
            let what = format!("{o:#x}/{t:#x} local {local}");
            versus_rows(&m, &compiled, "k", &args, &NdRange::linear(n, local), &what);
        }
    }
}

/// Colour components for writes of class `class`: for floats the values
/// the conversions treat specially (NaN, infinities, signed zeros, ties
/// of the 8-bit rounding, out of range), for integers the saturation
/// limits and values past them.
fn row_colors(class: ValueClass, n: usize) -> Vec<u8> {
    let floats = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        1.0,
        1.5,
        -0.25,
        0.5 / 255.0,
        1.5 / 255.0,
        2.5 / 255.0,
        127.5 / 255.0,
        254.5 / 255.0,
        0.3,
        1e-30,
        -1e30,
        0.123_456_7,
    ];
    let ints = [
        i32::MIN,
        -129,
        -128,
        -1,
        0,
        1,
        127,
        128,
        255,
        256,
        65_535,
        i32::MAX,
        -70_000,
    ];
    (0..n * 4)
        .flat_map(|k| match class {
            ValueClass::Float => floats[(k * 7) % floats.len()].to_le_bytes(),
            _ => ints[(k * 5) % ints.len()].to_le_bytes(),
        })
        .collect()
}

#[test]
fn row_writes_match_the_interpreter_with_rounding_and_saturation() {
    let m = build(
        "kernel void wf(write_only image2d_t img, global const float4 *c, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            write_imagef(img, (int2)(x + dx, y + dy), c[y * get_global_size(0) + x]);
        }
        kernel void wi(write_only image2d_t img, global const int4 *c, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            write_imagei(img, (int2)(x + dx, y + dy), c[y * get_global_size(0) + x]);
        }
        kernel void wu(write_only image2d_t img, global const uint4 *c, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            write_imageui(img, (int2)(x + dx, y + dy), c[y * get_global_size(0) + x]);
        }
        kernel void wd(write_only image2d_t img, global const float4 *c, int dx, int dy) {
            int x = get_global_id(0), y = get_global_id(1);
            if (x % 9 != 4)
                write_imagef(img, (int2)(x + dx, y + dy), c[y * get_global_size(0) + x]);
        }",
    );
    let compiled = compile_rows(&m, &["wf", "wi", "wu", "wd"]);
    assert!(compiled
        .iter()
        .all(|(_, _, k)| k.explain().contains("image accesses of consecutive")));
    let (global, size) = ([72, 6], [70, 5, 1]);
    let mut cases = 0;
    for &(o, t) in &ROW_FORMATS {
        let desc = ImageDesc::packed(object::IMAGE2D, o, t, size, 0).unwrap();
        let blank = KernelArg::Image {
            desc,
            pixels: vec![0x5A; desc.byte_len() as usize],
        };
        // The format's own class, and floats into every format (the
        // undefined mismatches reinterpret the bits, as the host does).
        let own = match value_class(t) {
            ValueClass::Float => "wf",
            ValueClass::Int => "wi",
            ValueClass::Uint => "wu",
        };
        for kernel in [own, "wf", "wd"] {
            let class = if kernel == "wi" {
                ValueClass::Int
            } else if kernel == "wu" {
                ValueClass::Uint
            } else {
                ValueClass::Float
            };
            for (dx, dy) in [(0, 0), (-3, -1), (5, 1), (0, -6)] {
                for local in [[72, 1], [24, 3], [1, 2]] {
                    let args = [
                        blank.clone(),
                        KernelArg::Buffer(row_colors(class, 72 * 6)),
                        int(dx),
                        int(dy),
                    ];
                    let what = format!("{o:#x}/{t:#x} shift ({dx}, {dy}) local {local:?}");
                    let out =
                        versus_rows(&m, &compiled, kernel, &args, &range2(global, local), &what);
                    if (dx, dy) == (0, -6) {
                        // Every row is above the image: nothing written.
                        assert_eq!(out[0], blank, "{what}");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, ROW_FORMATS.len() * 3 * 4 * 3);
}

#[test]
fn row_writes_of_1d_and_3d_images_and_of_coordinates_that_are_not_a_row() {
    let m = build(
        "kernel void k(write_only image1d_t a, write_only image3d_t c, write_only image2d_t d,
                       global const float4 *col, int dx, int z) {
            int i = get_global_id(0);
            float4 v = col[i];
            write_imagef(a, i + dx, v);
            write_imagef(c, (int4)(i + dx, 2, z, 0), v);
            write_imagef(d, (int2)(2 * i, 0), v);
            write_imagef(d, (int2)(i ^ 1, 1), v);
            write_imagef(d, (int2)(i, 2 + i % 2), v);
        }",
    );
    let compiled = compile_rows(&m, &["k"]);
    let n = 80u64;
    let blank = |ty, o, t, size: [u64; 3]| {
        let desc = ImageDesc::packed(ty, o, t, size, 0).unwrap();
        KernelArg::Image {
            desc,
            pixels: vec![0xC3; desc.byte_len() as usize],
        }
    };
    for (dx, z) in [(0, 0), (0, 1), (-5, 2), (3, 3), (0, -1)] {
        for local in [n, 40] {
            let args = [
                blank(
                    object::IMAGE1D,
                    order::RGBA,
                    channel::UNORM_INT8,
                    [76, 1, 1],
                ),
                blank(object::IMAGE3D, order::RGBA, channel::FLOAT, [70, 3, 3]),
                blank(
                    object::IMAGE2D,
                    order::BGRA,
                    channel::UNORM_INT8,
                    [170, 4, 1],
                ),
                KernelArg::Buffer(row_colors(ValueClass::Float, n as usize)),
                int(dx),
                int(z),
            ];
            let what = format!("dx {dx} z {z} local {local}");
            versus_rows(&m, &compiled, "k", &args, &NdRange::linear(n, local), &what);
        }
    }
}

#[test]
fn row_reads_of_float_coordinates_with_nearest_unnormalised_samplers() {
    // `floor(c)` is the texel for unnormalised nearest samplers; the
    // others (normalised, linear) and indices past `int` keep the host
    // call. A NaN y reads row 0 on both paths.
    let m = build(
        "kernel void rf(read_only image2d_t img, sampler_t s, global float4 *out, float fx, float fy) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imagef(img, s, (float2)(x + fx, y + fy));
        }
        kernel void ri(read_only image2d_t img, sampler_t s, global int4 *out, float fx, float fy) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imagei(img, s, (float2)(x + fx, y + fy));
        }
        kernel void ru(read_only image2d_t img, sampler_t s, global uint4 *out, float fx, float fy) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * get_global_size(0) + x] = read_imageui(img, s, (float2)(x + fx, y + fy));
        }",
    );
    let compiled = compile_rows(&m, &["rf", "ri", "ru"]);
    assert!(compiled
        .iter()
        .all(|(_, _, k)| k.explain().contains("image accesses of consecutive")));
    let (global, size) = ([72, 6], [70, 5, 1]);
    let formats = [
        (order::R, channel::FLOAT, "rf"),
        (order::RGBA, channel::UNORM_INT8, "rf"),
        (order::BGRA, channel::UNORM_INT8, "rf"),
        (order::RGBA, channel::SIGNED_INT32, "ri"),
        (order::RGBA, channel::UNSIGNED_INT8, "ru"),
        (order::RG, channel::UNORM_INT16, "rf"),
    ];
    let mut samplers: Vec<u32> = [
        SAMPLER_ADDRESS_NONE,
        SAMPLER_ADDRESS_CLAMP_TO_EDGE,
        SAMPLER_ADDRESS_CLAMP,
        SAMPLER_ADDRESS_REPEAT,
        SAMPLER_ADDRESS_MIRRORED_REPEAT,
    ]
    .iter()
    .map(|a| a | SAMPLER_FILTER_NEAREST)
    .collect();
    samplers.push(SAMPLER_NORMALIZED | SAMPLER_ADDRESS_CLAMP | SAMPLER_FILTER_NEAREST);
    samplers.push(SAMPLER_ADDRESS_CLAMP_TO_EDGE | SAMPLER_FILTER_LINEAR);
    let shifts = [
        (0.0f32, 0.0f32),
        (0.5, 0.5),
        (-2.25, -0.75),
        (3.999, 1.5),
        (-70.5, 0.0),
        (0.25, f32::NAN),
        (3.0e9, 0.0),
    ];
    for (f, &(o, t, kernel)) in formats.iter().enumerate() {
        let img = image(object::IMAGE2D, o, t, size, 0, 20 + f as u32);
        for &s in &samplers {
            for &(fx, fy) in &shifts {
                let args = [
                    img.clone(),
                    value(&s.to_le_bytes()),
                    floats(72 * 6),
                    value(&fx.to_le_bytes()),
                    value(&fy.to_le_bytes()),
                ];
                let what = format!("{o:#x}/{t:#x} sampler {s:#x} shift ({fx}, {fy})");
                versus_rows(
                    &m,
                    &compiled,
                    kernel,
                    &args,
                    &range2(global, [72, 1]),
                    &what,
                );
            }
        }
    }
}

#[test]
fn coordinates_whose_x_is_uniform_keep_the_host_call() {
    let m = build(
        "kernel void k(read_only image2d_t img, sampler_t s, global float4 *out) {
            int i = get_global_id(0);
            out[i] = read_imagef(img, s, (int2)(3, i));
        }",
    );
    let k = compile(&m, "k", 8);
    assert!(!k.explain().contains("image accesses of consecutive"));
}

/// `x` rounded to the nearest `half` (ties to even), as bits: the check
/// of `read_imageh` against `read_imagef`, written apart from the
/// conversions under test.
fn half_bits(x: f32) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = f64::from(x.abs());
    if a.is_nan() {
        return 0x7e00;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    let e = if a < 2f64.powi(-14) {
        -14
    } else {
        a.log2().floor() as i32
    };
    let m = (a / 2f64.powi(e - 10)).round_ties_even() as u16;
    if e == -14 && m < 1024 {
        sign | m
    } else {
        sign | ((((e + 15) as u16) << 10) + (m - 1024))
    }
}

#[test]
fn half_reads_and_writes_of_every_float_format() {
    let m = build(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void hr(read_only image2d_t img, global half4 *h, global float4 *f) {
            int i = get_global_id(0);
            int2 p = (int2)(i % 4, i / 4);
            if (i % 5 != 2) {
                h[i] = read_imageh(img, p);
                f[i] = read_imagef(img, p);
            }
        }
        kernel void hw(write_only image2d_t img, global const half4 *c) {
            int i = get_global_id(0);
            if (i % 5 != 2)
                write_imageh(img, (int2)(i % 4, i / 4), c[i]);
        }
        kernel void fw(write_only image2d_t img, global const half4 *c) {
            int i = get_global_id(0);
            if (i % 5 != 2)
                write_imagef(img, (int2)(i % 4, i / 4), convert_float4(c[i]));
        }",
    );
    let n: usize = 12;
    let range = NdRange::linear(n as u64, 4);
    let mut formats = 0;
    for &(o, t) in SUPPORTED_FORMATS {
        if value_class(t) != ValueClass::Float {
            continue;
        }
        let img = image(object::IMAGE2D, o, t, [4, 3, 1], 0, 5);
        let args = [img, KernelArg::Buffer(vec![0; n * 8]), floats(n)];
        let want = versus(&m, "hr", &args, &range);
        let got16 = run_jit(&m, "hr", 16, &args, &range);
        assert_eq!(want, got16, "hr {o:#x}/{t:#x} W=16");
        let (KernelArg::Buffer(h), KernelArg::Buffer(f)) = (&want[1], &want[2]) else {
            unreachable!()
        };
        for k in 0..n * 4 {
            let fv = f32::from_le_bytes(f[k * 4..k * 4 + 4].try_into().unwrap());
            let hv = u16::from_le_bytes(h[k * 2..k * 2 + 2].try_into().unwrap());
            if fv.is_nan() {
                assert!(
                    hv & 0x7c00 == 0x7c00 && hv & 0x3ff != 0,
                    "{o:#x}/{t:#x}: NaN"
                );
            } else {
                // Exact for a half image: its texels are halves.
                assert_eq!(hv, half_bits(fv), "{o:#x}/{t:#x} texel component {k}: {fv}");
            }
        }
        // write_imageh writes what write_imagef of the widened colour does.
        let colors: Vec<u8> = (0..n * 4)
            .flat_map(|k| half_bits(((k * 13) % 29) as f32 * 0.09 - 0.6).to_le_bytes())
            .collect();
        let desc = ImageDesc::packed(object::IMAGE2D, o, t, [4, 3, 1], 0).unwrap();
        let blank = KernelArg::Image {
            desc,
            pixels: vec![0x11; desc.byte_len() as usize],
        };
        let args = [blank, KernelArg::Buffer(colors)];
        let by_h = versus(&m, "hw", &args, &range);
        assert_eq!(by_h, run_jit(&m, "hw", 16, &args, &range), "hw W=16");
        let by_f = versus(&m, "fw", &args, &range);
        assert_eq!(by_h[0], by_f[0], "write_imageh {o:#x}/{t:#x}");
        formats += 1;
    }
    assert!(formats >= 8, "{formats} float formats");
}

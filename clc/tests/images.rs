//! Image kernels through the front end and the reference interpreter: the
//! types, qualifiers and argument info, samplers at program and function
//! scope, every builtin's overloads, and the values read and written.

use vecl_ir::image::{self, channel, object, order, ImageDesc, PixelValue};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::{AccessQualifier, AddressSpace, Type};

fn build(src: &str) -> vecl_ir::Module {
    let built = vecl_clc::build(src, "").unwrap_or_else(|e| panic!("{e}"));
    vecl_ir::verify::verify_module(&built.module)
        .unwrap_or_else(|e| panic!("{}", vecl_ir::verify::format_errors(&e)));
    built.module
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A 4×2 `CL_RGBA`/`CL_UNORM_INT8` image whose pixel (x, y) is
/// (x, y, x + y, 1) · 50 / 255.
fn rgba8_4x2() -> KernelArg {
    let desc = ImageDesc::packed(
        object::IMAGE2D,
        order::RGBA,
        channel::UNORM_INT8,
        [4, 2, 1],
        0,
    )
    .unwrap();
    let mut pixels = Vec::new();
    for y in 0..2u8 {
        for x in 0..4u8 {
            pixels.extend_from_slice(&[x * 50, y * 50, (x + y) * 50, 50]);
        }
    }
    KernelArg::Image { desc, pixels }
}

#[test]
fn image_parameters_are_global_byte_pointers_with_arg_info() {
    let m = build(
        "kernel void k(read_only image2d_t a, __write_only image3d_t b, image1d_buffer_t c, sampler_t s, global int *o) {
            o[0] = get_image_width(a) + (int)s;
        }",
    );
    let f = &m.functions[0];
    let u8_ptr = Type::ptr(AddressSpace::Global, Type::Scalar(vecl_ir::Scalar::U8));
    assert_eq!(f.params[0].ty, u8_ptr);
    assert_eq!(f.params[1].ty, u8_ptr);
    assert_eq!(f.params[3].ty, Type::U32);
    let info = f.kernel.as_ref().unwrap();
    let names: Vec<&str> = info.args.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(
        names,
        [
            "image2d_t",
            "image3d_t",
            "image1d_buffer_t",
            "sampler_t",
            "int*"
        ]
    );
    let access: Vec<AccessQualifier> = info.args.iter().map(|a| a.access).collect();
    assert_eq!(
        access,
        [
            AccessQualifier::ReadOnly,
            AccessQualifier::WriteOnly,
            AccessQualifier::ReadOnly,
            AccessQualifier::None,
            AccessQualifier::None
        ]
    );
}

#[test]
fn sampled_reads_with_program_and_function_scope_samplers() {
    let m = build(
        "__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
        float4 blend(read_only image2d_t img, sampler_t s, float2 at) { return read_imagef(img, s, at); }
        kernel void k(read_only image2d_t img, global float4 *out) {
            const sampler_t linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
            out[0] = read_imagef(img, nearest, (float2)(2.5f, 1.2f));
            out[1] = blend(img, linear, (float2)(0.25f, 0.5f));
            out[2] = read_imagef(img, (int2)(3, 0));
            out[3] = read_imagef(img, nearest, (int2)(-4, 9));
        }",
    );
    let mut args = [rgba8_4x2(), KernelArg::Buffer(vec![0; 64])];
    run_kernel(&m, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    let KernelArg::Buffer(out) = &args[1] else {
        unreachable!()
    };
    let out = f32s(out);
    let n = |v: u8| f32::from(v) / 255.0;
    assert_eq!(&out[0..4], &[n(100), n(50), n(150), n(50)]);
    // (0.25, 0.5) normalised on 4×2 is (1, 1): i0 = (0, 0), i1 = (1, 1),
    // a = b = 0.5: the mean of pixels (0,0), (1,0), (0,1), (1,1).
    let mean = |c: [u8; 4]| c.iter().map(|v| n(*v)).sum::<f32>() * 0.25;
    let want = [
        mean([0, 50, 0, 50]),
        mean([0, 0, 50, 50]),
        mean([0, 50, 50, 100]),
        n(50),
    ];
    for (g, w) in out[4..8].iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
    assert_eq!(&out[8..12], &[n(150), 0.0, n(150), n(50)]);
    assert_eq!(&out[12..16], &[0.0, n(50), n(50), n(50)]);
}

#[test]
fn writes_and_queries() {
    let m = build(
        "kernel void k(write_only image2d_array_t img, global int *info) {
            int x = get_global_id(0);
            write_imagei(img, (int4)(x, 1, 2, 0), (int4)(x, -x, 300, -300));
            int2 d = get_image_dim(img);
            info[0] = d.x; info[1] = d.y; info[2] = (int)get_image_array_size(img);
            info[3] = get_image_channel_order(img) == CLK_RGBA;
            info[4] = get_image_channel_data_type(img) == CLK_SIGNED_INT8;
            info[5] = get_image_height(img);
        }",
    );
    let desc = ImageDesc::packed(
        object::IMAGE2D_ARRAY,
        order::RGBA,
        channel::SIGNED_INT8,
        [3, 2, 1],
        3,
    )
    .unwrap();
    let mut args = [
        KernelArg::Image {
            desc,
            pixels: vec![0; desc.byte_len() as usize],
        },
        KernelArg::Buffer(vec![0; 24]),
    ];
    run_kernel(&m, "k", &mut args, &NdRange::linear(3, 3)).unwrap();
    let KernelArg::Image { pixels, .. } = &args[0] else {
        unreachable!()
    };
    for x in 0..3usize {
        let at = 2 * 24 + 12 + 4 * x;
        let px = image::decode_pixel(order::RGBA, channel::SIGNED_INT8, &pixels[at..at + 4]);
        let x = x as i32;
        assert_eq!(px, PixelValue::Int([x, -x, 127, -128]));
    }
    assert_eq!(pixels.iter().filter(|b| **b != 0).count(), 2 + 4 + 4);
    let KernelArg::Buffer(info) = &args[1] else {
        unreachable!()
    };
    assert_eq!(i32s(info), [3, 2, 3, 1, 1, 2]);
}

#[test]
fn every_image_type_and_read_form_resolves() {
    let m = build(
        "kernel void k(image1d_t a, image1d_array_t b, image2d_t c, image2d_array_t d, image3d_t e,
                       image1d_buffer_t f, sampler_t s, global float4 *o, global int4 *oi, global uint4 *ou) {
            o[0] = read_imagef(a, s, 0.5f) + read_imagef(a, s, 1) + read_imagef(a, 0);
            o[1] = read_imagef(b, s, (float2)(0.5f, 1.0f)) + read_imagef(b, (int2)(0, 1));
            oi[0] = read_imagei(c, s, (float2)(0.5f)) + read_imagei(c, (int2)(0));
            ou[0] = read_imageui(d, s, (float4)(0.5f)) + read_imageui(d, s, (int4)(0));
            o[2] = read_imagef(e, s, (float4)(0.5f)) + read_imagef(e, (int4)(0));
            o[3] = read_imagef(f, 3);
            o[4] = (float4)(get_image_depth(e), get_image_width(f), get_image_array_size(b), 0);
            int4 dim = get_image_dim(e);
            o[5] = convert_float4(dim);
        }",
    );
    let names: Vec<String> = m.functions[0]
        .insts
        .iter()
        .filter_map(|i| match &i.inst {
            vecl_ir::Inst::Builtin(n, args) => Some(format!("{n}/{}", args.len())),
            _ => None,
        })
        .collect();
    assert!(names.contains(&"read_imagef/3".to_string()), "{names:?}");
    assert!(names.contains(&"read_imageui/3".to_string()), "{names:?}");
    assert!(names.contains(&"read_imagei/2".to_string()), "{names:?}");
}

#[test]
fn clk_constants_have_the_header_values() {
    let m = build(
        "kernel void k(global int *o) {
            o[0] = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;
            o[1] = CLK_RGBA; o[2] = CLK_UNORM_INT8; o[3] = CLK_BGRA; o[4] = CLK_FLOAT;
        #ifdef __IMAGE_SUPPORT__
            o[5] = __IMAGE_SUPPORT__;
        #endif
        }",
    );
    let mut args = [KernelArg::Buffer(vec![0; 24])];
    run_kernel(&m, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
    let KernelArg::Buffer(o) = &args[0] else {
        unreachable!()
    };
    assert_eq!(i32s(o), [0x29, 0x10B5, 0x10D2, 0x10B6, 0x10DE, 1]);
}

#[test]
fn program_scope_samplers_with_const_or_constant() {
    for decl in [
        "const sampler_t s",
        "__constant sampler_t s",
        "constant const sampler_t s",
    ] {
        let src = format!(
            "{decl} = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
            kernel void k(read_only image2d_t img, global float4 *o) {{
                o[0] = read_imagef(img, s, (int2)(1, 0));
                o[1] = read_imagef(img, s, (int2)(-1, 0));
            }}"
        );
        let m = build(&src);
        let mut args = [rgba8_4x2(), KernelArg::Buffer(vec![0; 32])];
        run_kernel(&m, "k", &mut args, &NdRange::linear(1, 1)).unwrap();
        let KernelArg::Buffer(out) = &args[1] else {
            unreachable!()
        };
        let n = |v: u8| f32::from(v) / 255.0;
        assert_eq!(
            f32s(out),
            [n(50), 0.0, n(50), n(50), 0.0, 0.0, 0.0, 0.0],
            "{decl}"
        );
    }
}

#[test]
fn image_misuse_is_an_error_never_a_panic() {
    let bodies = [
        "float4 v = *img;",
        "int x = img + 1;",
        "img++;",
        "int x = -img;",
        "int x = !img;",
        "int x = img ? 1 : 2;",
        "if (img) { }",
        "int x = (int)img;",
        "int x = sizeof(*img);",
        "int x = img->x;",
        "int x = img.x;",
        "image2d_t copy = img;",
        "global uchar *p = img;",
        "global image2d_t *p = &img;",
        "float4 v = read_imagef(img, 0, (float2)(0), 1);",
        "float4 v = read_imagef(img);",
        "int2 d = get_image_dim(img, img);",
        "write_imageui(img, (int2)(0), (uint4)(0));",
    ];
    for body in bodies {
        let src = format!("kernel void k(read_only image2d_t img, global int *o) {{ {body} }}");
        let result = std::panic::catch_unwind(|| vecl_clc::build(&src, ""));
        match result {
            Ok(Err(vecl_clc::BuildError::Failed { log })) => {
                assert!(log.contains("error"), "{body}: {log}")
            }
            Ok(Ok(_)) => panic!("built without error: {body}"),
            Ok(Err(e)) => panic!("{body}: {e:?}"),
            Err(_) => panic!("panic on: {body}"),
        }
    }
}

#[test]
fn image_extension_and_feature_macros_are_defined() {
    let src = "#ifndef cl_khr_3d_image_writes
               #error no 3-D image writes
               #endif
               #if __OPENCL_C_VERSION__ >= 300 && !(defined(__opencl_c_images) \\
                   && defined(__opencl_c_3d_image_writes) && defined(__opencl_c_read_write_images))
               #error no image features
               #endif
               kernel void k(write_only image3d_t img) {
                   write_imagef(img, (int4)(0, 0, 0, 0), (float4)(1.0f));
               }";
    for options in ["", "-cl-std=CL3.0"] {
        if let Err(e) = vecl_clc::build(src, options) {
            panic!("{options}: {e}");
        }
    }
}

//! Instruction families of the SPIR-V front end, each against the OpenCL
//! C builtins it maps onto: a module in `tests/data/NAME.spvasm`
//! (assembled with `spirv-as` here) and its twin `NAME.cl` (built by the
//! OpenCL C front end) run on the interpreter with the same arguments,
//! and every buffer and image must come out the same. The modules hold
//! what the OpenCL C twin does, instruction for instruction:
//!
//! - `non_uniform`: the `OpGroupNonUniform*` family, the sub-group
//!   built-in variables (`SubgroupSize`, `SubgroupLocalInvocationId`,
//!   `SubgroupLtMask`), a barrier of sub-group scope and
//!   `OpGroupNonUniformRotateKHR`, at two sub-group sizes;
//! - `async_copy`: `OpGroupAsyncCopy` and `OpGroupWaitEvents`;
//! - `images`: `OpImageRead/Write`, `OpSampledImage` with a constant and
//!   an argument sampler, `OpImageSampleExplicitLod`, the size, format and
//!   order queries and a 1-D image array (the module is clang's and
//!   llvm-spirv's output for `images.cl`); once as written (with the
//!   `SignExtend` operands SPIR-V 1.4 gives integer texels) and once
//!   without them, where the channel type picks the signed write.
//!
//! Then SPIR-V 1.4 instructions with their results written out
//! (`OpCopyLogical`, `OpPtrDiff`), and `OpTypeOpaque`.
//!
//! `spirv-as` comes with `spirv-tools` (`scripts/install-deps.sh`);
//! without it the tests say so and pass.

use std::path::PathBuf;
use std::process::Command;
use vecl_ir::image::{self, channel, object, order, ImageDesc};
use vecl_ir::interp::{run_kernel_with, KernelArg, NdRange, RunOptions};
use vecl_ir::Module;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Assembles SPIR-V text; `None` (said on stderr) without `spirv-as`.
fn assemble(text: &str, env: &str) -> Option<Vec<u32>> {
    let dir = std::env::temp_dir().join(format!("vecl-spirv-as-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let src = dir.join(format!("{}-{k}.spvasm", text.len()));
    let out = src.with_extension("spv");
    std::fs::write(&src, text).expect("writes the assembly");
    let run = Command::new("spirv-as")
        .args(["--target-env", env])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output();
    let Ok(run) = run else {
        eprintln!("spirv-as is not installed: skipping (scripts/install-deps.sh installs it)");
        return None;
    };
    assert!(
        run.status.success(),
        "spirv-as: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&out).expect("reads the module");
    Some(vecl_spirv::words_from_bytes(&bytes).expect("whole words"))
}

fn translate(words: &[u32]) -> Module {
    match vecl_spirv::translate(words, &Default::default()) {
        Ok(unit) => unit.module,
        Err(e) => panic!("the module does not translate: {e}"),
    }
}

fn build_cl(name: &str) -> Module {
    let source = std::fs::read_to_string(data(name)).expect("reads the twin");
    match vecl_clc::build(&source, "-cl-std=CL2.0") {
        Ok(b) => b.module,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn range(global: [u64; 2], local: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

fn run(m: &Module, kernel: &str, args: &[KernelArg], r: &NdRange, sg: u32) -> Vec<KernelArg> {
    let mut args = args.to_vec();
    let opts = RunOptions { sub_group_size: sg };
    if let Err(e) = run_kernel_with(m, kernel, &mut args, r, &opts) {
        panic!("{kernel}: {e}");
    }
    args
}

/// The bytes of every buffer and image after a run.
fn outputs(args: &[KernelArg]) -> Vec<Vec<u8>> {
    args.iter()
        .filter_map(|a| match a {
            KernelArg::Buffer(b) | KernelArg::Image { pixels: b, .. } => Some(b.clone()),
            _ => None,
        })
        .collect()
}

fn same_outputs(
    spirv: &Module,
    cl: &Module,
    kernel: &str,
    args: &[KernelArg],
    r: &NdRange,
    sg: u32,
) {
    let want = outputs(&run(cl, kernel, args, r, sg));
    let got = outputs(&run(spirv, kernel, args, r, sg));
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        let first = w.iter().zip(g).position(|(a, b)| a != b);
        assert!(
            first.is_none(),
            "{kernel} (sub-groups of {sg}): output {i} differs from byte {}: SPIR-V {:?}, OpenCL C {:?}",
            first.unwrap_or(0),
            &g[first.unwrap_or(0)..(first.unwrap_or(0) + 16).min(g.len())],
            &w[first.unwrap_or(0)..(first.unwrap_or(0) + 16).min(w.len())],
        );
    }
    assert!(
        want.iter().any(|b| b.iter().any(|x| *x != 0)),
        "{kernel}: the run wrote nothing"
    );
}

fn words_of(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn non_uniform_group_instructions_are_the_sub_group_builtins() {
    let text = std::fs::read_to_string(data("non_uniform.spvasm")).expect("reads");
    let Some(words) = assemble(&text, "spv1.3") else {
        return;
    };
    let spirv = translate(&words);
    let cl = build_cl("non_uniform.cl");
    // Odd and even, small and large, and negative as signed.
    let input: Vec<u32> = (0..16u32)
        .map(|i| match i % 5 {
            0 => i * 37 + 1,
            1 => i * 3,
            2 => (-(i as i32) * 11) as u32,
            3 => 150 + i,
            _ => i ^ 0x55,
        })
        .collect();
    let args = [
        KernelArg::Buffer(words_of(&input)),
        KernelArg::Buffer(vec![0; 16 * 24 * 4]),
    ];
    for sg in [4, 8] {
        same_outputs(&spirv, &cl, "nu", &args, &range([16, 1], [8, 1]), sg);
    }
}

#[test]
fn async_copies_are_async_work_group_copies() {
    let text = std::fs::read_to_string(data("async_copy.spvasm")).expect("reads");
    let Some(words) = assemble(&text, "spv1.0") else {
        return;
    };
    let spirv = translate(&words);
    let cl = build_cl("async_copy.cl");
    let input: Vec<u32> = (0..16).map(|i| i * i + 3).collect();
    let args = [
        KernelArg::Buffer(words_of(&input)),
        KernelArg::Buffer(vec![0; 16 * 4]),
        KernelArg::Buffer(vec![0; 32 * 4]),
        KernelArg::Local(8 * 4),
    ];
    same_outputs(&spirv, &cl, "ac", &args, &range([16, 1], [8, 1]), 4);
}

/// An image argument of `w`×`h` (×`layers`) with pixels from `fill`.
fn image_arg(kind: u32, ord: u32, ch: u32, size: [u64; 2], layers: u64) -> KernelArg {
    let desc = ImageDesc::packed(kind, ord, ch, [size[0], size[1], 1], layers)
        .expect("a supported format");
    let len = desc.slice_pitch * desc.array_size.max(1) * desc.depth;
    let pixels = (0..len).map(|i| (i * 29 + 7) as u8).collect();
    KernelArg::Image { desc, pixels }
}

fn image_args() -> (Vec<KernelArg>, Vec<KernelArg>) {
    // Floats made from the bytes above stay finite: use small values.
    let mut src = image_arg(object::IMAGE2D, order::RGBA, channel::FLOAT, [4, 3], 0);
    if let KernelArg::Image { pixels, .. } = &mut src {
        let n = pixels.len() / 4;
        *pixels = (0..n)
            .flat_map(|i| (i as f32 * 0.25 - 3.0).to_le_bytes())
            .collect();
    }
    let dst = image_arg(object::IMAGE2D, order::RGBA, channel::FLOAT, [4, 3], 0);
    let sampler = image::SAMPLER_ADDRESS_CLAMP | image::SAMPLER_FILTER_NEAREST;
    let float_args = vec![
        src,
        dst,
        KernelArg::Buffer(vec![0; 24 * 16]),
        KernelArg::Buffer(vec![0; 72 * 4]),
        KernelArg::Value(sampler.to_le_bytes().to_vec()),
    ];
    let int_args = vec![
        image_arg(
            object::IMAGE2D,
            order::RGBA,
            channel::SIGNED_INT8,
            [4, 3],
            0,
        ),
        image_arg(
            object::IMAGE2D,
            order::RGBA,
            channel::SIGNED_INT8,
            [4, 3],
            0,
        ),
        image_arg(
            object::IMAGE1D_ARRAY,
            order::RGBA,
            channel::UNSIGNED_INT8,
            [4, 1],
            3,
        ),
        KernelArg::Buffer(vec![0; 12 * 4]),
    ];
    (float_args, int_args)
}

#[test]
fn image_instructions_are_the_image_builtins() {
    let text = std::fs::read_to_string(data("images.spvasm")).expect("reads");
    let cl = build_cl("images.cl");
    // As compiled, then with the writes' SignExtend operands removed: the
    // signed channel type must then choose the signed write.
    let unmarked: String = text
        .lines()
        .map(|l| {
            if l.contains("OpImageWrite") {
                l.replace(" SignExtend", "")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(
        unmarked, text,
        "the module writes an integer texel with SignExtend"
    );
    for t in [text.clone(), unmarked] {
        let Some(words) = assemble(&t, "spv1.4") else {
            return;
        };
        let spirv = translate(&words);
        let (float_args, int_args) = image_args();
        let r = range([4, 3], [2, 3]);
        same_outputs(&spirv, &cl, "img", &float_args, &r, 4);
        same_outputs(&spirv, &cl, "img_int", &int_args, &r, 4);
    }
}

#[test]
fn image_arguments_carry_their_type_and_access() {
    let text = std::fs::read_to_string(data("images.spvasm")).expect("reads");
    let Some(words) = assemble(&text, "spv1.4") else {
        return;
    };
    let m = translate(&words);
    let (_, k) = m.function_by_name("img").expect("the kernel");
    let info = k.kernel.as_ref().expect("a kernel");
    let names: Vec<&str> = info.args.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(names[0], "image2d_t");
    assert_eq!(names[1], "image2d_t");
    assert_eq!(names[4], "sampler_t");
    assert_eq!(info.args[0].access, vecl_ir::AccessQualifier::ReadOnly);
    assert_eq!(info.args[1].access, vecl_ir::AccessQualifier::WriteOnly);
    let (_, k) = m.function_by_name("img_int").expect("the kernel");
    let info = k.kernel.as_ref().expect("a kernel");
    assert_eq!(info.args[2].type_name, "image1d_array_t");
}

const SPIRV_14: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %copy \"copy\"
               OpEntryPoint Kernel %diff \"diff\"
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
       %void = OpTypeVoid
   %struct_a = OpTypeStruct %uint %float
   %struct_b = OpTypeStruct %uint %float
      %p_b = OpTypePointer CrossWorkgroup %struct_b
     %p_uint = OpTypePointer CrossWorkgroup %uint
     %p_long = OpTypePointer CrossWorkgroup %ulong
    %copy_ty = OpTypeFunction %void %p_b
    %diff_ty = OpTypeFunction %void %p_uint %p_long
  %uint_1024 = OpConstant %uint 1024
  %float_2_5 = OpConstant %float 2.5
    %ulong_1 = OpConstant %ulong 1
    %ulong_3 = OpConstant %ulong 3
    %ulong_5 = OpConstant %ulong 5
        %src = OpConstantComposite %struct_a %uint_1024 %float_2_5
       %copy = OpFunction %void None %copy_ty
        %dst = OpFunctionParameter %p_b
         %e1 = OpLabel
          %b = OpCopyLogical %struct_b %src
               OpStore %dst %b
               OpReturn
               OpFunctionEnd
       %diff = OpFunction %void None %diff_ty
          %a = OpFunctionParameter %p_uint
        %out = OpFunctionParameter %p_long
         %e2 = OpLabel
         %a5 = OpInBoundsPtrAccessChain %p_uint %a %ulong_5
         %a3 = OpInBoundsPtrAccessChain %p_uint %a %ulong_3
         %d1 = OpPtrDiff %ulong %a5 %a
         %d2 = OpPtrDiff %ulong %a %a3
               OpStore %out %d1
         %o1 = OpInBoundsPtrAccessChain %p_long %out %ulong_1
               OpStore %o1 %d2
               OpReturn
               OpFunctionEnd
";

#[test]
fn copy_logical_copies_between_matching_structs_and_ptr_diff_counts_elements() {
    let Some(words) = assemble(SPIRV_14, "spv1.4") else {
        return;
    };
    let m = translate(&words);
    let r = range([1, 1], [1, 1]);
    let out = run(&m, "copy", &[KernelArg::Buffer(vec![0; 8])], &r, 4);
    let KernelArg::Buffer(b) = &out[0] else {
        unreachable!()
    };
    assert_eq!(u32::from_le_bytes(b[0..4].try_into().unwrap()), 1024);
    assert_eq!(f32::from_le_bytes(b[4..8].try_into().unwrap()), 2.5);
    let args = [
        KernelArg::Buffer(vec![0; 32]),
        KernelArg::Buffer(vec![0; 16]),
    ];
    let out = run(&m, "diff", &args, &r, 4);
    let KernelArg::Buffer(b) = &out[1] else {
        unreachable!()
    };
    assert_eq!(i64::from_le_bytes(b[0..8].try_into().unwrap()), 5);
    assert_eq!(i64::from_le_bytes(b[8..16].try_into().unwrap()), -3);
}

#[test]
fn an_opaque_type_is_a_struct_known_by_pointers_only() {
    let text = "
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"opaque\"
               OpDecorate %store LinkageAttributes \"opaque_store\" Import
      %ulong = OpTypeInt 64 0
       %void = OpTypeVoid
     %opaque = OpTypeOpaque \"opaque_t\"
   %p_opaque = OpTypePointer CrossWorkgroup %opaque
       %k_ty = OpTypeFunction %void %p_opaque
   %store_ty = OpTypeFunction %void %p_opaque %ulong
    %ulong_7 = OpConstant %ulong 7
      %store = OpFunction %void None %store_ty
         %p0 = OpFunctionParameter %p_opaque
         %p1 = OpFunctionParameter %ulong
               OpFunctionEnd
          %k = OpFunction %void None %k_ty
         %in = OpFunctionParameter %p_opaque
          %e = OpLabel
          %c = OpFunctionCall %void %store %in %ulong_7
               OpReturn
               OpFunctionEnd
";
    let Some(words) = assemble(text, "spv1.0") else {
        return;
    };
    let unit = vecl_spirv::translate(&words, &Default::default()).expect("translates");
    let (_, k) = unit.module.function_by_name("opaque").expect("the kernel");
    let info = k.kernel.as_ref().expect("a kernel");
    assert_eq!(info.args[0].type_name, "struct opaque_t*");
    assert!(unit.functions.contains(&vecl_ir::link::Linkage::Import));
}

#[test]
fn half_arithmetic_under_the_float16_capability() {
    // out[i] = (half)(a[i] * a[i] + 0.5h), the product rounded to half
    // before the sum as OpFMul then OpFAdd say, then widened to float.
    let text = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Float16
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"hk\" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
      %ulong = OpTypeInt 64 0
    %ulong3 = OpTypeVector %ulong 3
   %p_ulong3 = OpTypePointer Input %ulong3
       %half = OpTypeFloat 16
      %float = OpTypeFloat 32
       %void = OpTypeVoid
     %p_half = OpTypePointer CrossWorkgroup %half
    %p_float = OpTypePointer CrossWorkgroup %float
       %k_ty = OpTypeFunction %void %p_half %p_float
   %half_0_5 = OpConstant %half 0.5
        %gid = OpVariable %p_ulong3 Input
          %k = OpFunction %void None %k_ty
          %a = OpFunctionParameter %p_half
        %out = OpFunctionParameter %p_float
          %e = OpLabel
         %g3 = OpLoad %ulong3 %gid
          %i = OpCompositeExtract %ulong %g3 0
         %pa = OpInBoundsPtrAccessChain %p_half %a %i
          %x = OpLoad %half %pa
         %xx = OpFMul %half %x %x
          %s = OpFAdd %half %xx %half_0_5
          %f = OpFConvert %float %s
         %po = OpInBoundsPtrAccessChain %p_float %out %i
               OpStore %po %f
               OpReturn
               OpFunctionEnd
";
    let Some(words) = assemble(text, "spv1.0") else {
        return;
    };
    let m = translate(&words);
    // 1.5, 3.0, 0.1 (as the half 0x2E66) and 300.0 (whose square
    // overflows the half range).
    let a: [u16; 4] = [0x3E00, 0x4200, 0x2E66, 0x5CB0];
    let bytes: Vec<u8> = a.iter().flat_map(|h| h.to_le_bytes()).collect();
    let args = [KernelArg::Buffer(bytes), KernelArg::Buffer(vec![0; 16])];
    let r = NdRange {
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [4, 1, 1],
        local_size: [4, 1, 1],
    };
    let out = run(&m, "hk", &args, &r, 4);
    let KernelArg::Buffer(b) = &out[1] else {
        unreachable!()
    };
    let got: Vec<f32> = b
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // 0x2E66 is 0.0999755859375; its square 0.00999511… rounds to the
    // half 0.0099945068359375, and + 0.5 to the half 0.509765625
    // (1044 / 2048).
    assert_eq!(got[..3], [2.75, 9.5, 1044.0 / 2048.0]);
    assert!(got[3].is_infinite() && got[3] > 0.0, "{}", got[3]);
}

#[test]
fn integer_dot_products_are_the_cl_khr_integer_dot_product_builtins() {
    let text = std::fs::read_to_string(data("dot_product.spvasm")).expect("reads");
    let Some(words) = assemble(&text, "spv1.0") else {
        return;
    };
    let spirv = translate(&words);
    let cl = build_cl("dot_product.cl");
    // Bytes at the ends of both ranges (0x7f, 0x80, 0xff, 0), and
    // accumulators that saturate either way, signed and unsigned.
    let a: [u32; 8] = [
        0x7f7f_7f7f,
        0x8080_8080,
        0xffff_ffff,
        0x0102_0304,
        0x80ff_7f00,
        0xdead_beef,
        0x7f80_7f80,
        0,
    ];
    let b: [u32; 8] = [
        0x7f7f_7f7f,
        0x8080_8080,
        0x8080_8080,
        0xfffe_fdfc,
        0x7f80_ff01,
        0x1234_5678,
        0x8080_8080,
        0xffff_ffff,
    ];
    let acc: [u32; 8] = [
        0x7fff_fff0,
        0x8000_0010,
        0xffff_fff0,
        5,
        0x7fff_ffff,
        0x8000_0000,
        (-70000i32) as u32,
        0xffff_ffff,
    ];
    let args = [
        KernelArg::Buffer(words_of(&a)),
        KernelArg::Buffer(words_of(&b)),
        KernelArg::Buffer(words_of(&acc)),
        KernelArg::Buffer(vec![0; 8 * 12 * 4]),
    ];
    let r = NdRange {
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [8, 1, 1],
        local_size: [8, 1, 1],
    };
    same_outputs(&spirv, &cl, "dp", &args, &r, 8);
    // One value worked by hand: SDot of 0x7f7f7f7f with itself is
    // 4 · 127², and SDotAccSat of that and 0x7ffffff0 saturates.
    let out = run(&spirv, "dp", &args, &r, 8);
    let KernelArg::Buffer(o) = &out[3] else {
        unreachable!()
    };
    let word = |k: usize| u32::from_le_bytes(o[k * 4..k * 4 + 4].try_into().unwrap());
    assert_eq!(word(0), 4 * 127 * 127);
    assert_eq!(word(3), 0x7fff_ffff);
    assert_eq!(word(6), 4 * 127 * 127);
}

#[test]
fn dot_products_of_other_inputs_are_refused_by_name() {
    let text = std::fs::read_to_string(data("dot_product.spvasm"))
        .expect("reads")
        .replace("%54 = OpSDot %uint %vx %vy", "%54 = OpSDot %uint %39 %39");
    let Some(words) = assemble(&text, "spv1.0") else {
        return;
    };
    let e = vecl_spirv::translate(&words, &Default::default())
        .map(|_| ())
        .expect_err("a dot product of 64-bit vectors is not supported");
    let msg = e.to_string();
    assert!(
        msg.contains("SDot") && msg.contains("four 8-bit integers"),
        "{msg}"
    );
}

#[test]
fn half_texels_are_read_imageh_and_write_imageh() {
    let text = std::fs::read_to_string(data("half_images.spvasm")).expect("reads");
    let Some(words) = assemble(&text, "spv1.0") else {
        return;
    };
    let spirv = translate(&words);
    let cl = build_cl("half_images.cl");
    let sampler = image::SAMPLER_ADDRESS_CLAMP | image::SAMPLER_FILTER_NEAREST;
    for (src_ch, dst_ch) in [
        (channel::HALF_FLOAT, channel::HALF_FLOAT),
        (channel::UNORM_INT8, channel::HALF_FLOAT),
        (channel::HALF_FLOAT, channel::UNORM_INT16),
        (channel::FLOAT, channel::SNORM_INT8),
    ] {
        let mut src = image_arg(object::IMAGE2D, order::RGBA, src_ch, [4, 3], 0);
        if src_ch == channel::FLOAT {
            if let KernelArg::Image { pixels, .. } = &mut src {
                let n = pixels.len() / 4;
                *pixels = (0..n)
                    .flat_map(|i| (i as f32 * 0.0625 - 1.5).to_le_bytes())
                    .collect();
            }
        }
        let args = [
            src.clone(),
            KernelArg::Value(sampler.to_le_bytes().to_vec()),
            image_arg(object::IMAGE2D, order::RGBA, dst_ch, [4, 3], 0),
            KernelArg::Buffer(vec![0; 24 * 8]),
        ];
        let r = range([4, 3], [2, 3]);
        same_outputs(&spirv, &cl, "hk", &args, &r, 4);
        if src_ch == channel::HALF_FLOAT {
            // A half image's texels come back as they are, both reads.
            let out = run(&spirv, "hk", &args, &r, 4);
            let (KernelArg::Image { pixels, .. }, KernelArg::Buffer(o)) = (&src, &out[3]) else {
                unreachable!()
            };
            assert_eq!(&o[..8], &pixels[..8], "read_imageh");
            assert_eq!(&o[8..16], &pixels[..8], "sampled read_imageh");
        }
    }
}

"""SPIR-V programs through the ICD loader and PyOpenCL (`cl.Program(ctx,
il_bytes)` calls clCreateProgramWithIL): the device's IL queries, a kernel
compiled by clang-15 + llvm-spirv-15 built, compiled and linked and run
against numpy, specialisation constants, CL_PROGRAM_IL, and malformed
modules refused with a build log that names the word offset."""

import ctypes
import ctypes.util
import shutil
import subprocess

import numpy as np
import pyopencl as cl
import pytest

mf = cl.mem_flags

SOURCE = """
kernel void poly(global const float *x, global float *y, global int *flags, float a, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
    float acc = 0.0f;
    for (int k = 0; k < 4; k++)
        acc = acc * v + a * (k + 1);
    y[i] = acc;
    flags[i] = (v > 0.5f) ? i * 3 : -i;
}
"""

# A kernel with a specialisation constant (SpecId 7, default 5): out[i] = i * K.
SPEC_ASM = """
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "scale" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %K SpecId 7
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
   %ptr_in   = OpTypePointer Input %v3ulong
   %ptr_gl   = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr_gl
          %K = OpSpecConstant %uint 5
        %gid = OpVariable %ptr_in Input
          %k = OpFunction %void None %fnty
        %out = OpFunctionParameter %ptr_gl
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid
          %g = OpCompositeExtract %ulong %g3 0
         %gi = OpUConvert %uint %g
          %v = OpIMul %uint %gi %K
          %p = OpInBoundsPtrAccessChain %ptr_gl %out %g
               OpStore %p %v
               OpReturn
               OpFunctionEnd
"""


def tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (scripts/install-deps.sh)")
    return path


@pytest.fixture(scope="module")
def poly_il(tmp_path_factory):
    clang, translator = tool("clang-15"), tool("llvm-spirv-15")
    d = tmp_path_factory.mktemp("spirv")
    (d / "poly.cl").write_text(SOURCE)
    subprocess.run(
        [clang, "-cl-std=CL2.0", "-target", "spir64", "-O2", "-emit-llvm", "-c",
         str(d / "poly.cl"), "-o", str(d / "poly.bc")],
        check=True,
    )
    subprocess.run([translator, str(d / "poly.bc"), "-o", str(d / "poly.spv")], check=True)
    return (d / "poly.spv").read_bytes()


def test_device_reports_spirv(device):
    versions = device.get_info(cl.device_info.IL_VERSION).split()
    assert versions[0] == "SPIR-V_1.0" and "SPIR-V_1.5" in versions
    assert "cl_khr_il_program" in device.extensions.split()
    ils = device.get_info(cl.device_info.ILS_WITH_VERSION)
    assert {il.name for il in ils} == {"SPIR-V"}
    assert len(ils) == len(versions)
    assert "SPIR-V_1.6" in versions
    # The SPIR-V extensions the front end implements, in both lists.
    spirv_extensions = {"cl_khr_spirv_no_integer_wrap_decoration",
                        "cl_khr_spirv_linkonce_odr", "cl_khr_expect_assume"}
    assert spirv_extensions <= set(device.extensions.split())
    versioned = {e.name for e in device.get_info(cl.device_info.EXTENSIONS_WITH_VERSION)}
    assert spirv_extensions <= versioned


def run_poly(ctx, queue, program, n=37):
    rng = np.random.default_rng(7)
    x = rng.random(n, dtype=np.float32)
    y = np.zeros(n + 3, np.float32)
    flags = np.zeros(n + 3, np.int32)
    xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    yb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    fb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=flags)
    program.poly(queue, (n + 3,), None, xb, yb, fb, np.float32(0.25), np.int32(n))
    cl.enqueue_copy(queue, y, yb)
    cl.enqueue_copy(queue, flags, fb)
    want = np.zeros(n, np.float32)
    for k in range(4):
        want = want * x + np.float32(0.25 * (k + 1))
    np.testing.assert_allclose(y[:n], want, rtol=1e-6)
    assert (y[n:] == 0).all()
    idx = np.arange(n, dtype=np.int32)
    np.testing.assert_array_equal(flags[:n], np.where(x > 0.5, idx * 3, -idx))


CL_PROGRAM_IL = 0x1169


def program_il(program):
    """CL_PROGRAM_IL's bytes (PyOpenCL decodes the value as text)."""
    lib = ctypes.CDLL(ctypes.util.find_library("OpenCL"))
    handle = ctypes.c_void_p(program.int_ptr)
    size = ctypes.c_size_t()
    assert lib.clGetProgramInfo(handle, CL_PROGRAM_IL, 0, None, ctypes.byref(size)) == 0
    buf = ctypes.create_string_buffer(size.value)
    assert lib.clGetProgramInfo(handle, CL_PROGRAM_IL, size, buf, None) == 0
    return buf.raw


def test_il_program_builds_and_runs(ctx, queue, poly_il):
    program = cl.Program(ctx, poly_il).build()
    assert program_il(program) == poly_il
    assert program_il(cl.Program(ctx, SOURCE)) == b""
    assert program.get_info(cl.program_info.KERNEL_NAMES) == "poly"
    run_poly(ctx, queue, program)


def test_il_program_compiles_and_links(ctx, queue, poly_il):
    obj = cl.Program(ctx, poly_il).compile()
    program = cl.link_program(ctx, [obj])
    run_poly(ctx, queue, program)


def test_specialisation_constant(ctx, queue, tmp_path):
    assembler = tool("spirv-as")
    (tmp_path / "k.spvasm").write_text(SPEC_ASM)
    subprocess.run(
        [assembler, "--target-env", "spv1.0", str(tmp_path / "k.spvasm"), "-o", str(tmp_path / "k.spv")],
        check=True,
    )
    il = (tmp_path / "k.spv").read_bytes()
    out = np.zeros(8, np.uint32)

    def run(program):
        ob = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
        program.scale(queue, (8,), None, ob)
        got = np.empty_like(out)
        cl.enqueue_copy(queue, got, ob)
        return got

    np.testing.assert_array_equal(run(cl.Program(ctx, il).build()), np.arange(8) * 5)
    program = cl.Program(ctx, il)
    program._prg.set_specialization_constant(7, np.uint32(11))
    np.testing.assert_array_equal(run(program.build()), np.arange(8) * 11)
    with pytest.raises(cl.Error) as e:
        cl.Program(ctx, il)._prg.set_specialization_constant(8, np.uint32(1))
    assert e.value.code == cl.status_code.INVALID_SPEC_ID
    with pytest.raises(cl.Error) as e:
        cl.Program(ctx, il)._prg.set_specialization_constant(7, np.uint64(1))
    assert e.value.code == cl.status_code.INVALID_VALUE


def test_malformed_module_is_a_build_error_with_its_word(ctx, poly_il):
    # Cut the module inside an instruction: the log names where.
    cut = poly_il[: (len(poly_il) // 8) * 4]
    program = cl.Program(ctx, cut)
    with pytest.raises(cl.RuntimeError):
        program.build()
    log = program.get_build_info(ctx.devices[0], cl.program_build_info.LOG)
    assert "word" in log and "SPIR-V" in log, log


def test_not_spirv_is_invalid_value(ctx):
    # PyOpenCL takes bytes without the magic number for source: call
    # clCreateProgramWithIL directly.
    with pytest.raises(cl.Error) as e:
        cl._cl._create_program_with_il(ctx, b"\x00\x01\x02\x03\x04\x05\x06\x07")
    assert e.value.code == cl.status_code.INVALID_VALUE
    with pytest.raises(cl.Error) as e:
        # The magic number, then a length that is not whole words.
        cl._cl._create_program_with_il(ctx, b"\x03\x02\x23\x07\x00")
    assert e.value.code == cl.status_code.INVALID_VALUE


def clang_il(tmp_path, name, source, extra=()):
    """`source` compiled to SPIR-V by clang-15 (-O2) and llvm-spirv-15."""
    clang, translator = tool("clang-15"), tool("llvm-spirv-15")
    (tmp_path / f"{name}.cl").write_text(source)
    subprocess.run(
        [clang, "-cl-std=CL2.0", "-target", "spir64", "-O2", "-emit-llvm", "-c", *extra,
         str(tmp_path / f"{name}.cl"), "-o", str(tmp_path / f"{name}.bc")],
        check=True,
    )
    subprocess.run(
        [translator, str(tmp_path / f"{name}.bc"), "-o", str(tmp_path / f"{name}.spv")],
        check=True,
    )
    return (tmp_path / f"{name}.spv").read_bytes()


# `int` in and out, with a division whose result depends on the sign.
DIVIDE = "int divide(int x, int k) { return x / k - (x < 0); }\n"
CALL_DIVIDE = """
int divide(int x, int k);
kernel void use(global int *out)
{
    int i = get_global_id(0);
    out[i] = divide(i - 10, 3);
}
"""


def check_divide(queue, ctx, program):
    out = np.zeros(21, np.int32)
    ob = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    program.use(queue, out.shape, None, ob)
    cl.enqueue_copy(queue, out, ob)
    x = np.arange(21, dtype=np.int32) - 10
    want = np.trunc(x / 3).astype(np.int32) - (x < 0)
    np.testing.assert_array_equal(out, want)


def test_signed_functions_link_between_il_and_opencl_c(ctx, queue, tmp_path):
    # SPIR-V integers are signless: the IL side's `int` is the OpenCL C
    # side's `int` to the linker, whichever side defines the function.
    il_def = cl.Program(ctx, clang_il(tmp_path, "def", DIVIDE)).compile()
    c_use = cl.Program(ctx, CALL_DIVIDE).compile()
    check_divide(queue, ctx, cl.link_program(ctx, [il_def, c_use]))
    il_use = cl.Program(ctx, clang_il(tmp_path, "use", CALL_DIVIDE)).compile()
    c_def = cl.Program(ctx, DIVIDE).compile()
    check_divide(queue, ctx, cl.link_program(ctx, [c_def, il_use]))
    check_divide(queue, ctx, cl.link_program(ctx, [il_use, c_def]))
    # An `int` variable defined in OpenCL C, declared `extern` in the IL
    # (where it is the IR's `uint`).
    reader = ("extern global int offset;\n"
              "kernel void shifted(global int *out) { out[get_global_id(0)] = offset / 2; }\n")
    il_reader = cl.Program(ctx, clang_il(tmp_path, "reader", reader)).compile()
    c_var = cl.Program(ctx, "global int offset = -7;").compile(options="-cl-std=CL2.0")
    program = cl.link_program(ctx, [il_reader, c_var])
    out = np.zeros(4, np.int32)
    ob = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    program.shifted(queue, out.shape, None, ob)
    cl.enqueue_copy(queue, out, ob)
    assert list(out) == [-3] * 4
    # A float is still not an int.
    c_float = cl.Program(ctx, "float divide(float x, float k) { return x / k; }").compile()
    with pytest.raises(cl.RuntimeError) as e:
        cl.link_program(ctx, [c_float, il_use])
    assert e.value.code == cl.status_code.LINK_PROGRAM_FAILURE


IMAGES = """
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
kernel void blur(read_only image2d_t src, write_only image2d_t dst, sampler_t s, global int *q)
{
    int x = get_global_id(0), y = get_global_id(1);
    float4 a = read_imagef(src, smp, (float2)(x - 0.5f, y + 0.5f));
    float4 b = read_imagef(src, s, (int2)(x + 1, y));
    float4 c = read_imagef(src, (int2)(x, y));
    write_imagef(dst, (int2)(x, y), (a + b + c) / 3.0f);
    if (x == 0 && y == 0) {
        q[0] = get_image_width(src);
        q[1] = get_image_height(dst);
        q[2] = get_image_channel_data_type(src);
        q[3] = get_image_channel_order(src);
    }
}
"""


def test_image_kernel_through_the_il_path(ctx, queue, tmp_path):
    """The same image kernel from SPIR-V and from OpenCL C: same texels."""
    h, w = 5, 7
    rng = np.random.default_rng(3)
    pixels = rng.random((h, w, 4), dtype=np.float32)
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    sampler = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP, cl.filter_mode.NEAREST)
    results = []
    for program in (cl.Program(ctx, clang_il(tmp_path, "img", IMAGES)).build(),
                    cl.Program(ctx, IMAGES).build()):
        src = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(w, h), hostbuf=pixels)
        dst = cl.Image(ctx, mf.WRITE_ONLY, fmt, shape=(w, h))
        q = cl.Buffer(ctx, mf.READ_WRITE, 16)
        kernel = cl.Kernel(program, "blur")
        kernel(queue, (w, h), None, src, dst, sampler, q)
        out = np.zeros((h, w, 4), np.float32)
        cl.enqueue_copy(queue, out, dst, origin=(0, 0), region=(w, h))
        qs = np.zeros(4, np.int32)
        cl.enqueue_copy(queue, qs, q)
        results.append((out, qs))
        assert kernel.get_arg_info(0, cl.kernel_arg_info.TYPE_NAME) == "image2d_t"
        assert kernel.get_arg_info(1, cl.kernel_arg_info.ACCESS_QUALIFIER) == \
            cl.kernel_arg_access_qualifier.WRITE_ONLY
    (il_out, il_q), (c_out, c_q) = results
    np.testing.assert_array_equal(il_out, c_out)
    assert list(il_q) == [w, h, cl.channel_type.FLOAT, cl.channel_order.RGBA]
    assert list(c_q) == list(il_q)
    # Not a trivial image: the three reads differ somewhere.
    assert not np.allclose(il_out, pixels)

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

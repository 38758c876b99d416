"""Programs and kernels through PyOpenCL: builds, kernel objects and their
queries, launches, and PyOpenCL's array, reduction and scan machinery.

These need vecl's kernel compiler (the JIT); while vecl is built without
it, each test is an expected failure (see conftest.build)."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

from conftest import build

mf = cl.mem_flags

VADD = """
kernel void vadd(global const float *a, global const float *b, global float *c, int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
"""

LOCAL_SUM = """
kernel void group_sums(global const int *in, global int *out, local int *scratch)
{
    size_t lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
"""

MATMUL = """
kernel void matmul(global const float *a, global const float *b, global float *c, int n)
{
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
"""


def test_vector_add(ctx, queue):
    program = build(ctx, VADD)
    n = 1000
    a = np.random.default_rng(1).random(n, dtype=np.float32)
    b = np.random.default_rng(2).random(n, dtype=np.float32)
    a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    c_buf = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
    program.vadd(queue, (1024,), (64,), a_buf, b_buf, c_buf, np.int32(n))
    c = np.empty_like(a)
    cl.enqueue_copy(queue, c, c_buf)
    assert np.array_equal(c, a + b)


def test_large_launches_write_streamed_outputs(ctx, queue):
    """2^23 work-items: vecl writes outputs the kernel never reads with
    non-temporal stores (line-aligned device buffers) and plain stores (a
    host pointer 12 bytes into a line); both must hold every element."""
    program = build(
        ctx,
        "kernel void add(global const float* a, global const float* b, global float* c) {"
        " size_t i = get_global_id(0); c[i] = a[i] + b[i]; }",
    )
    n = 1 << 23
    a = np.random.default_rng(3).random(n, dtype=np.float32)
    b = np.random.default_rng(4).random(n, dtype=np.float32)
    a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    c_buf = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
    host = np.zeros(n + 16, dtype=np.float32)
    start = (-host.ctypes.data // 4) % 16 + 3
    h_buf = cl.Buffer(ctx, mf.WRITE_ONLY | mf.USE_HOST_PTR, hostbuf=host[start:start + n])
    kernel = cl.Kernel(program, "add")
    for out in (c_buf, h_buf):
        kernel(queue, (n,), None, a_buf, b_buf, out)
        c = np.empty_like(a)
        cl.enqueue_copy(queue, c, out)
        assert np.array_equal(c, a + b)


def test_local_memory_and_barriers(ctx, queue):
    program = build(ctx, LOCAL_SUM)
    data = np.arange(4096, dtype=np.int32)
    in_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    out_buf = cl.Buffer(ctx, mf.WRITE_ONLY, 16 * 4)
    program.group_sums(queue, (4096,), (256,), in_buf, out_buf, cl.LocalMemory(256 * 4))
    out = np.empty(16, dtype=np.int32)
    cl.enqueue_copy(queue, out, out_buf)
    assert np.array_equal(out, data.reshape(16, 256).sum(axis=1))


def test_two_dimensional_matmul(ctx, queue):
    program = build(ctx, MATMUL)
    n = 32
    rng = np.random.default_rng(3)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    c_buf = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
    program.matmul(queue, (n, n), (8, 8), a_buf, b_buf, c_buf, np.int32(n))
    c = np.empty_like(a)
    cl.enqueue_copy(queue, c, c_buf)
    assert np.allclose(c, a @ b, rtol=1e-5)


def test_kernel_queries(ctx, device):
    program = build(ctx, VADD + MATMUL)
    assert sorted(program.kernel_names.split(";")) == ["matmul", "vadd"]
    assert program.num_kernels == 2
    kernel = cl.Kernel(program, "vadd")
    assert kernel.function_name == "vadd"
    assert kernel.num_args == 4
    assert kernel.get_arg_info(0, cl.kernel_arg_info.NAME) == "a"
    assert kernel.get_arg_info(0, cl.kernel_arg_info.ADDRESS_QUALIFIER) == cl.kernel_arg_address_qualifier.GLOBAL
    assert kernel.get_arg_info(3, cl.kernel_arg_info.TYPE_NAME) == "int"
    assert kernel.get_arg_info(0, cl.kernel_arg_info.TYPE_QUALIFIER) & cl.kernel_arg_type_qualifier.CONST
    wg = kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device)
    assert 1 <= wg <= device.max_work_group_size
    kernels = program.all_kernels()
    assert sorted(k.function_name for k in kernels) == ["matmul", "vadd"]


def test_clone_kernel_keeps_arguments(ctx, queue):
    program = build(ctx, VADD)
    kernel = cl.Kernel(program, "vadd")
    ones = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.ones(64, dtype=np.float32))
    out = cl.Buffer(ctx, mf.WRITE_ONLY, 256)
    kernel.set_args(ones, ones, out, np.int32(64))
    clone = kernel.clone()
    cl.enqueue_nd_range_kernel(queue, clone, (64,), None)
    result = np.empty(64, dtype=np.float32)
    cl.enqueue_copy(queue, result, out)
    assert np.all(result == 2.0)


def test_binary_round_trip(ctx, queue, device):
    program = build(ctx, VADD)
    (binary,) = program.binaries
    again = cl.Program(ctx, [device], [binary]).build()
    assert again.kernel_names == "vadd"
    a = cl_array.to_device(queue, np.arange(16, dtype=np.float32))
    c = cl_array.empty_like(a)
    again.vadd(queue, (16,), None, a.data, a.data, c.data, np.int32(16))
    assert np.array_equal(c.get(), 2 * np.arange(16, dtype=np.float32))


def test_build_errors_are_reported(ctx):
    build(ctx, "kernel void ok(global int *a) { a[0] = 1; }")
    # The low-level program object: pyopencl.Program drops a program whose
    # build failed, so its log could not be read afterwards.
    program = cl._cl._Program(ctx, "kernel void broken(global int *a) { a[0] = ; }")
    with pytest.raises(cl.RuntimeError):
        program.build(b"", ctx.devices)
    log = program.get_build_info(ctx.devices[0], cl.program_build_info.LOG)
    assert "<source>:1:" in log and "error" in log and "^" in log
    status = program.get_build_info(ctx.devices[0], cl.program_build_info.STATUS)
    assert status == -2  # CL_BUILD_ERROR (PyOpenCL has no enum for build statuses)


def test_array_arithmetic(ctx, queue, compiler):
    x = np.linspace(0, 1, 5000, dtype=np.float32)
    y = np.linspace(1, 2, 5000, dtype=np.float32)
    a = cl_array.to_device(queue, x)
    b = cl_array.to_device(queue, y)
    assert np.allclose((a + b).get(), x + y)
    assert np.allclose((2 * a - b).get(), 2 * x - y)
    assert np.allclose((a * b / 3).get(), x * y / 3, rtol=1e-6)


def test_reduction_kernel(ctx, queue, compiler):
    # pyopencl.reduction generates its kernels with Mako templates.
    pytest.importorskip("mako")
    from pyopencl.reduction import ReductionKernel

    data = np.arange(100_000, dtype=np.int64) % 1000
    dot = ReductionKernel(ctx, np.int64, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]", arguments="__global const long *x")
    result = dot(cl_array.to_device(queue, data)).get()
    assert result == int((data * data).sum())


def test_inclusive_scan(ctx, queue, compiler):
    # pyopencl.scan generates its kernels with Mako templates.
    pytest.importorskip("mako")
    from pyopencl.scan import GenericScanKernel

    scan = GenericScanKernel(
        ctx, np.int32,
        arguments="__global int *ary",
        input_expr="ary[i]",
        scan_expr="a+b", neutral="0",
        output_statement="ary[i] = item;",
    )
    data = np.random.default_rng(4).integers(0, 100, 10_000, dtype=np.int32)
    dev = cl_array.to_device(queue, data)
    scan(dev)
    assert np.array_equal(dev.get(), np.cumsum(data, dtype=np.int32))


VECTOR_ELEMENTS = """
typedef struct { float x, y, z, w; } Particle;

kernel void scale4(global const float4 *in, global float4 *out, float k)
{
    size_t i = get_global_id(0);
    out[i] = in[i].wzyx * k + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
}

kernel void bgra(global const uchar4 *in, global uchar4 *out)
{
    size_t i = get_global_id(0);
    uchar4 p = in[i];
    out[i] = (uchar4)(p.z, p.y, p.x, p.w);
}

kernel void drift(global Particle *p, float dt)
{
    size_t i = get_global_id(0);
    Particle q = p[i];
    q.x += q.z * dt;
    q.y += q.w * dt;
    p[i] = q;
}
"""


def test_vector_and_struct_elements_of_consecutive_items(ctx, queue):
    """float4, uchar4 and four-float struct elements, which consecutive
    work-items read and write as whole vectors, over sizes with and
    without a partial last chunk."""
    program = build(ctx, VECTOR_ELEMENTS)
    rng = np.random.default_rng(7)
    for n in (1 << 16, 1000, 37):
        a = rng.random((n, 4), dtype=np.float32)
        a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
        out = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
        program.scale4(queue, (n,), None, a_buf, out, np.float32(3.0))
        got = np.empty_like(a)
        cl.enqueue_copy(queue, got, out)
        want = a[:, ::-1] * np.float32(3.0) + np.float32([1, 2, 3, 4])
        assert np.allclose(got, want, rtol=1e-6), n

        px = rng.integers(0, 256, (n, 4), dtype=np.uint8)
        px_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=px)
        px_out = cl.Buffer(ctx, mf.WRITE_ONLY, px.nbytes)
        program.bgra(queue, (n,), None, px_buf, px_out)
        swapped = np.empty_like(px)
        cl.enqueue_copy(queue, swapped, px_out)
        assert np.array_equal(swapped, px[:, [2, 1, 0, 3]]), n

        p_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
        program.drift(queue, (n,), None, p_buf, np.float32(0.5))
        moved = np.empty_like(a)
        cl.enqueue_copy(queue, moved, p_buf)
        want = a.copy()
        want[:, 0] += a[:, 2] * np.float32(0.5)
        want[:, 1] += a[:, 3] * np.float32(0.5)
        assert np.allclose(moved, want, rtol=1e-6), n


LOCAL_SHAPE = """
kernel void shape(global uint* out) {
    out[get_global_id(0)] = get_local_size(0);
}
kernel __attribute__((reqd_work_group_size(16, 1, 1))) void fixed(global uint* out) {
    out[get_global_id(0)] = get_local_size(0);
}
kernel void plane(global uint* out) {
    out[0] = 1;
}
"""


def test_launch_shapes_are_chosen_and_checked_at_enqueue(ctx, queue, device):
    program = cl.Program(ctx, LOCAL_SHAPE).build()
    multiple = program.shape.get_work_group_info(
        cl.kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, device
    )
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4 * 4096)
    # No local size: whole SIMD chunks per group where the global size has
    # such a divisor, and a divisor of the global size in any case.
    for n in (1008, 4000, 4096, 48):
        program.shape(queue, (n,), None, out)
        got = np.empty(n, np.uint32)
        cl.enqueue_copy(queue, got, out)
        local = int(got[0])
        assert (got == local).all()
        assert n % local == 0, (n, local)
        assert local % multiple == 0, (n, local, multiple)
    # A required size that does not divide the global size: refused by the
    # enqueue itself, not by the launch's event.
    with pytest.raises(cl.Error) as caught:
        program.fixed(queue, (24,), None, out)
    assert caught.value.code == cl.status_code.INVALID_WORK_GROUP_SIZE
    program.fixed(queue, (32,), None, out)
    got = np.empty(32, np.uint32)
    cl.enqueue_copy(queue, got, out)
    assert (got == 16).all()
    # A global size whose item count overflows.
    with pytest.raises(cl.Error) as caught:
        program.plane(queue, (1 << 40, 1 << 40), None, out)
    assert caught.value.code == cl.status_code.INVALID_GLOBAL_WORK_SIZE


def test_feature_macros_match_the_reported_features(ctx, device):
    """Under -cl-std=CL3.0 a kernel sees exactly the __opencl_c_* macros of
    the features the device reports, no more and no fewer."""
    names = [
        "__opencl_c_3d_image_writes", "__opencl_c_atomic_order_acq_rel",
        "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
        "__opencl_c_atomic_scope_all_devices", "__opencl_c_device_enqueue",
        "__opencl_c_fp64", "__opencl_c_generic_address_space", "__opencl_c_images",
        "__opencl_c_int64", "__opencl_c_pipes", "__opencl_c_program_scope_global_variables",
        "__opencl_c_read_write_images", "__opencl_c_subgroups", "__opencl_c_work_group_collective_functions",
        "__opencl_c_fp16", "__opencl_c_integer_dot_product_input_4x8bit",
        "__opencl_c_integer_dot_product_input_4x8bit_packed",
    ]
    checks = "\n".join(
        f"#ifdef {n}\n    out[{i}] = 1;\n#endif" for i, n in enumerate(names)
    )
    src = f"__kernel void k(__global int *out) {{\n{checks}\n}}"
    program = cl.Program(ctx, src).build(options="-cl-std=CL3.0")
    queue = cl.CommandQueue(ctx)
    out = np.zeros(len(names), dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    program.k(queue, (1,), None, buf)
    cl.enqueue_copy(queue, out, buf)
    defined = {n for n, v in zip(names, out) if v}
    reported = {f.name for f in device.opencl_c_features}
    assert defined == reported & set(names), (defined, reported)
    assert reported <= set(names), reported - set(names)


def test_private_memory_size_is_reported(ctx, device):
    """CL_KERNEL_PRIVATE_MEM_SIZE counts a work-item's private arrays, with
    or without barriers in the kernel."""
    src = """
    __kernel void flat(__global float *o) {
        float tmp[64];
        for (int i = 0; i < 64; i++) tmp[i] = i * o[0];
        o[get_global_id(0)] = tmp[get_global_id(0) & 63];
    }
    __kernel void none(__global float *o) { o[get_global_id(0)] = 1.0f; }
    """
    program = cl.Program(ctx, src).build()
    info = cl.kernel_work_group_info.PRIVATE_MEM_SIZE
    assert program.flat.get_work_group_info(info, device) >= 64 * 4
    assert program.none.get_work_group_info(info, device) == 0


@pytest.mark.parametrize("words", [1 << 16, 1 << 18])
def test_large_private_arrays_run(ctx, queue, device, words):
    """A work-item's private array of 256 KiB or 1 MiB is larger than a
    worker thread's stack can hold for a whole chunk of work-items: it
    runs (from heap memory), with every work-item's copy its own, and its
    size is reported."""
    src = f"""
    __kernel void big(__global uint *o) {{
        uint a[{words}];
        uint gid = get_global_id(0);
        for (uint i = 0; i < {words}u; i++) a[i] = i * 2654435761u + gid;
        uint s = 0;
        for (uint i = 0; i < {words}u; i += 97) s += a[(i * 31u + gid) & {words - 1}u];
        o[gid] = s;
    }}
    """
    big = cl.Kernel(cl.Program(ctx, src).build(), "big")
    info = cl.kernel_work_group_info.PRIVATE_MEM_SIZE
    assert big.get_work_group_info(info, device) >= words * 4
    n = 64
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, n * 4)
    big(queue, (n,), (16,), out)
    got = np.empty(n, np.uint32)
    cl.enqueue_copy(queue, got, out)
    i = np.arange(0, words, 97, dtype=np.uint64)
    want = []
    for gid in range(n):
        idx = (i * 31 + gid) & (words - 1)
        want.append(int(((idx * 2654435761 + gid) & 0xFFFFFFFF).sum()) & 0xFFFFFFFF)
    assert got.tolist() == want

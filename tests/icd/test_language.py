"""OpenCL C 2.0/3.0 language features through the ICD loader: the feature
and extension lists the device reports and what kernels see, C11 atomics
under contention across work-groups, cl_khr_integer_dot_product and
cl_khr_extended_bit_ops against numpy."""

import ctypes

import numpy as np
import pyopencl as cl
import pytest

from conftest import build

CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR = 0x1073
CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR = 0x1074
CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR = 0x1075


def raw_device_info(device, param, size):
    """clGetDeviceInfo for a query PyOpenCL does not know: the bytes."""
    lib = ctypes.CDLL("libOpenCL.so.1")
    lib.clGetDeviceInfo.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_size_t),
    ]
    needed = ctypes.c_size_t()
    assert lib.clGetDeviceInfo(device.int_ptr, param, 0, None, ctypes.byref(needed)) == 0
    assert needed.value == size
    buf = ctypes.create_string_buffer(size)
    assert lib.clGetDeviceInfo(device.int_ptr, param, size, buf, None) == 0
    return buf.raw


def test_extensions_with_version_list_exactly_the_extensions(device):
    named = set(device.extensions.split())
    versioned = {e.name: e.version for e in device.extensions_with_version}
    assert set(versioned) == named
    assert {"cl_khr_integer_dot_product", "cl_khr_extended_bit_ops"} <= named
    # cl_khr_integer_dot_product 2.0.0 added the acceleration queries.
    assert versioned["cl_khr_integer_dot_product"] == (2 << 22)
    assert versioned["cl_khr_extended_bit_ops"] == (1 << 22)


def test_opencl_c_versions_and_features_are_consistent(device):
    versions = {(v.version >> 22, (v.version >> 12) & 0x3FF) for v in device.opencl_c_all_versions}
    assert {(1, 0), (1, 1), (1, 2), (3, 0)} <= versions
    # OpenCL C 2.0 requires pipes and device-side enqueue, which vecl lacks:
    # -cl-std=CL2.0 is accepted, but 2.0 is not claimed.
    assert (2, 0) not in versions
    assert device.opencl_c_version.startswith("OpenCL C 1.2")
    features = {f.name for f in device.opencl_c_features}
    memory = device.atomic_memory_capabilities
    fence = device.atomic_fence_capabilities
    caps = cl.device_atomic_capabilities
    for name, bit in [
        ("__opencl_c_atomic_order_acq_rel", caps.ORDER_ACQ_REL),
        ("__opencl_c_atomic_order_seq_cst", caps.ORDER_SEQ_CST),
        ("__opencl_c_atomic_scope_device", caps.SCOPE_DEVICE),
        ("__opencl_c_atomic_scope_all_devices", caps.SCOPE_ALL_DEVICES),
    ]:
        assert name in features
        assert memory & bit and fence & bit, name
    assert memory & caps.ORDER_RELAXED and memory & caps.SCOPE_WORK_GROUP
    assert fence & caps.SCOPE_WORK_ITEM


def test_integer_dot_product_queries(device):
    (caps,) = np.frombuffer(
        raw_device_info(device, CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR, 8), np.uint64
    )
    assert caps == 0b11  # 4x8-bit packed and 4x8-bit vectors
    features = {f.name for f in device.opencl_c_features}
    assert "__opencl_c_integer_dot_product_input_4x8bit" in features
    assert "__opencl_c_integer_dot_product_input_4x8bit_packed" in features
    for query in (
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR,
    ):
        flags = np.frombuffer(raw_device_info(device, query, 6 * 4), np.uint32)
        assert list(flags) == [0] * 6


@pytest.mark.parametrize("std", ["CL1.2", "CL3.0"])
def test_dot_products_match_numpy(ctx, queue, std):
    rng = np.random.default_rng(26)
    n = 4099  # not a multiple of any SIMD width
    a = rng.integers(0, 256, size=(n, 4), dtype=np.uint8)
    b = rng.integers(0, 256, size=(n, 4), dtype=np.uint8)
    acc = rng.integers(-(2**31), 2**31, size=n, dtype=np.int64).astype(np.int32)
    acc[::3] = np.int32(2**31 - 1) - acc[::3] % 1000  # near the top: saturates
    src = """
    __kernel void k(__global const uchar4 *a, __global const uchar4 *b,
                    __global const int *acc, __global int *out)
    {
        size_t i = get_global_id(0);
        uchar4 x = a[i], y = b[i];
        uint px = as_uint(x), py = as_uint(y);
        __global int *o = out + 8 * i;
        o[0] = dot(x, y);
        o[1] = dot(as_char4(x), as_char4(y));
        o[2] = dot(x, as_char4(y));
        o[3] = dot_acc_sat(as_char4(x), y, acc[i]);
        o[4] = dot_acc_sat(as_char4(x), as_char4(y), acc[i]);
        o[5] = dot_acc_sat_4x8packed_uu_uint(px, py, (uint)acc[i]);
        o[6] = dot_4x8packed_su_int(px, py);
        o[7] = dot_acc_sat_4x8packed_us_int(px, py, acc[i]);
    }
    """
    program = build(ctx, src, options=f"-cl-std={std}")
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x) for x in (a, b, acc)]
    out = np.zeros(8 * n, np.int32)
    dst = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    program.k(queue, (n,), None, *bufs, dst)
    cl.enqueue_copy(queue, out, dst)
    out = out.reshape(n, 8)
    ua, ub = a.astype(np.int64), b.astype(np.int64)
    sa, sb = a.view(np.int8).astype(np.int64), b.view(np.int8).astype(np.int64)
    acc64 = acc.astype(np.int64)
    uacc = acc64 & 0xFFFFFFFF
    want = np.stack(
        [
            (ua * ub).sum(1),
            (sa * sb).sum(1),
            (ua * sb).sum(1),
            np.clip(acc64 + (sa * ub).sum(1), -(2**31), 2**31 - 1),
            np.clip(acc64 + (sa * sb).sum(1), -(2**31), 2**31 - 1),
            np.clip(uacc + (ua * ub).sum(1), 0, 2**32 - 1),
            (sa * ub).sum(1),
            np.clip(acc64 + (ua * sb).sum(1), -(2**31), 2**31 - 1),
        ],
        axis=1,
    )
    np.testing.assert_array_equal(out, want.astype(np.uint32).view(np.int32))


def test_extended_bit_ops_match_numpy(ctx, queue):
    rng = np.random.default_rng(7)
    n = 1031
    x = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    y = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    offset = rng.integers(0, 33, size=n).astype(np.uint32)
    count = np.array([rng.integers(0, 33 - o) for o in offset], dtype=np.uint32)
    src = """
    __kernel void k(__global const uint *x, __global const uint *y, __global const uint *off,
                    __global const uint *cnt, __global uint *out)
    {
        size_t i = get_global_id(0);
        __global uint *o = out + 4 * i;
        o[0] = bitfield_insert(x[i], y[i], off[i], cnt[i]);
        o[1] = bitfield_extract_signed(x[i], off[i], cnt[i]);
        o[2] = bitfield_extract_unsigned(x[i], off[i], cnt[i]);
        o[3] = bit_reverse(x[i]);
    }
    """
    program = build(ctx, src)
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=v) for v in (x, y, offset, count)]
    out = np.zeros(4 * n, np.uint32)
    dst = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    program.k(queue, (n,), None, *bufs, dst)
    cl.enqueue_copy(queue, out, dst)
    out = out.reshape(n, 4)
    for i in range(n):
        xi, yi, o, c = int(x[i]), int(y[i]), int(offset[i]), int(count[i])
        field = ((1 << c) - 1) << o
        inserted = (xi & ~field | (yi << o) & field) & 0xFFFFFFFF
        unsigned = (xi >> o) & ((1 << c) - 1)
        signed = unsigned - (1 << c) if c and unsigned >> (c - 1) else unsigned
        reverse = int(format(xi, "032b")[::-1], 2)
        assert list(out[i]) == [inserted, signed & 0xFFFFFFFF, unsigned, reverse], (xi, yi, o, c)


def test_c11_atomics_across_work_groups(ctx, queue):
    """Threads of the pool run different work-groups at once: the C11
    atomics must be real atomics on __global memory, and a compare-exchange
    loop must build a float sum no update of which is lost."""
    n = 1 << 16
    src = """
    __kernel void k(__global const float *x, __global atomic_int *count,
                    __global atomic_float *sum, __global atomic_long *bits)
    {
        size_t i = get_global_id(0);
        atomic_fetch_add_explicit(count, 1, memory_order_relaxed, memory_scope_device);
        float cur = atomic_load_explicit(sum, memory_order_acquire, memory_scope_device);
        while (!atomic_compare_exchange_weak_explicit(sum, &cur, cur + x[i], memory_order_acq_rel,
                                                      memory_order_relaxed, memory_scope_device))
            ;
        atomic_fetch_or_explicit(bits, 1l << (i % 64), memory_order_seq_cst,
                                 memory_scope_all_devices);
    }
    """
    program = build(ctx, src, options="-cl-std=CL3.0")
    mf = cl.mem_flags
    x = np.full(n, 0.5, np.float32)  # sums exactly in any order
    xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    count = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int32))
    total = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.float32))
    bits = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int64))
    program.k(queue, (n,), (64,), xb, count, total, bits)
    got = [np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros(1, np.int64)]
    for host, buf in zip(got, (count, total, bits)):
        cl.enqueue_copy(queue, host, buf)
    assert got[0][0] == n
    assert got[1][0] == n * 0.5
    assert got[2][0] == -1


def suggested_local_size(platform, queue, kernel, global_size, offset=None):
    """clGetKernelSuggestedLocalWorkSizeKHR through the extension lookup:
    (error code, suggested sizes)."""
    lib = ctypes.CDLL("libOpenCL.so.1")
    lib.clGetExtensionFunctionAddressForPlatform.restype = ctypes.c_void_p
    lib.clGetExtensionFunctionAddressForPlatform.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    address = lib.clGetExtensionFunctionAddressForPlatform(
        platform.int_ptr, b"clGetKernelSuggestedLocalWorkSizeKHR"
    )
    assert address
    size_array = ctypes.c_size_t * 3
    prototype = ctypes.CFUNCTYPE(
        ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32,
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
    )
    function = prototype(address)
    dims = len(global_size)
    glob = size_array(*global_size)
    off = size_array(*offset) if offset else None
    out = size_array()
    code = function(queue.int_ptr, kernel.int_ptr, dims, off, glob, out)
    return code, list(out)[:dims]


def test_suggested_local_work_size(platform, device, ctx, queue):
    assert "cl_khr_suggested_local_work_size" in device.extensions.split()
    src = "__kernel void k(__global int *a) { a[get_global_id(0)] = get_local_size(0); }"
    reqd = (
        "__kernel __attribute__((reqd_work_group_size(4, 2, 1)))"
        " void k(__global int *a) { a[get_global_id(0)] = 1; }"
    )
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 4096)
    uniform = build(ctx, src).k
    uniform.set_arg(0, out)
    code, local = suggested_local_size(platform, queue, uniform, [1000])
    assert code == 0 and 1000 % local[0] == 0, local
    code, local = suggested_local_size(platform, queue, uniform, [1000, 6], offset=[3, 1])
    assert code == 0 and 1000 % local[0] == 0 and 6 % local[1] == 0, local
    # A prime global size: OpenCL C 1.2 needs a divisor; under 3.0 the
    # device may choose whole SIMD chunks and a partial last group, and the
    # launch runs with what it suggested.
    code, local = suggested_local_size(platform, queue, uniform, [1009])
    assert code == 0 and local == [1]
    non_uniform = build(ctx, src, options="-cl-std=CL3.0").k
    non_uniform.set_arg(0, out)
    code, local = suggested_local_size(platform, queue, non_uniform, [1009])
    assert code == 0 and local[0] > 1, local
    cl.enqueue_nd_range_kernel(queue, non_uniform, (1009,), tuple(local))
    seen = np.zeros(1009, np.int32)
    cl.enqueue_copy(queue, seen, out)
    last = 1009 % local[0] or local[0]
    assert set(seen[: 1009 - last]) == {local[0]} and set(seen[1009 - last:]) == {last}
    fixed = build(ctx, reqd).k
    fixed.set_arg(0, out)
    assert suggested_local_size(platform, queue, fixed, [64, 4]) == (0, [4, 2])
    # Errors the extension lists.
    assert suggested_local_size(platform, queue, uniform, [0])[0] == cl.status_code.INVALID_GLOBAL_WORK_SIZE
    unset = build(ctx, src).k
    assert suggested_local_size(platform, queue, unset, [64])[0] == cl.status_code.INVALID_KERNEL_ARGS


def test_program_scope_globals_are_one_object_for_the_program(device, ctx, queue):
    """A program-scope __global variable is shared by every kernel of the
    program and keeps its value between launches (OpenCL C 2.0 6.5.1);
    another program has its own; a pointer initialised with an address
    holds it from the start."""
    assert "__opencl_c_program_scope_global_variables" in {
        f.name for f in device.opencl_c_features
    }
    assert device.max_global_variable_size == 64 << 20
    src = """
    __global int counter = 5;
    __global float2 table[4] = { (float2)(1.0f, 2.0f) };
    __global int *where = &counter;
    __kernel void bump(int by) { *where += by; table[3].y = (float)counter; }
    __kernel void read(__global int *out, __global float *f)
    {
        out[0] = *where;
        f[0] = table[0].x + table[0].y + table[3].y;
    }
    """
    first = build(ctx, src, options="-cl-std=CL2.0")
    second = build(ctx, src, options="-cl-std=CL2.0")
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    f = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    first.bump(queue, (1,), None, np.int32(10))
    first.bump(queue, (1,), None, np.int32(7))
    got, gotf = np.zeros(1, np.int32), np.zeros(1, np.float32)
    first.read(queue, (1,), None, out, f)
    cl.enqueue_copy(queue, got, out)
    cl.enqueue_copy(queue, gotf, f)
    assert got[0] == 22 and gotf[0] == 1.0 + 2.0 + 22.0
    second.read(queue, (1,), None, out, f)
    cl.enqueue_copy(queue, got, out)
    cl.enqueue_copy(queue, gotf, f)
    assert got[0] == 5 and gotf[0] == 3.0
    assert first.get_build_info(
        ctx.devices[0], cl.program_build_info.GLOBAL_VARIABLE_TOTAL_SIZE
    ) == 4 + 4 * 8 + 8

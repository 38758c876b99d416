"""8- and 16-bit elements (char, uchar, short, ushort, half) read and
written by consecutive work-items, through the ICD loader, against NumPy:
odd global sizes (partial chunks), global offsets, stores under a mask
that leaves lanes off (their bytes must stay), and a neighbour access whose
chunks are consecutive except at the edge. Also the cl_khr_fp16 pragma's
`disable` and the warning for an unknown extension in the build log."""

import numpy as np
import pyopencl as cl
import pytest

from conftest import build

TYPES = [
    ("char", np.int8),
    ("uchar", np.uint8),
    ("short", np.int16),
    ("ushort", np.uint16),
    ("half", np.float16),
]

PRAGMA = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"

SRC = """kernel void k(global const T *a, global T *o, global T *p, global T *q) {
    size_t g = get_global_id(0);
    T x = a[g];
    o[g] = x * (T)3 + (T)1;
    if (g % 3 != 1) p[g] = x;
    int i = (int)g;
    q[i] = a[i + 1] - x;
}
"""


def values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.float16:
        # Small integers: every result below is exact in half.
        return rng.integers(-40, 40, n).astype(np.float16)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, n).astype(dtype)


def expected_wrapping(dtype, f):
    """f computed in int64 (or float32 for half), then brought back to dtype
    as OpenCL's conversion of the int result does (wrapping)."""
    with np.errstate(over="ignore"):
        r = f()
    if dtype == np.float16:
        return r.astype(np.float16)
    return r.astype(np.int64).astype(dtype)


@pytest.mark.parametrize("name,dtype", TYPES)
@pytest.mark.parametrize("n,offset", [(4099, 0), (1000, 7), (33, 3), (16, 0)])
def test_consecutive_narrow_accesses_match_numpy(ctx, queue, name, dtype, n, offset):
    prg = build(ctx, PRAGMA + SRC.replace("T", name))
    end = n + offset
    a = values(dtype, end + 1, 1)
    keep = values(dtype, end, 2)
    mf = cl.mem_flags
    ab = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=keep) for _ in range(3)]
    prg.k(queue, (n,), None, ab, *bufs, global_offset=(offset,))
    o, p, q = (np.empty_like(keep) for _ in range(3))
    for host, dev in zip((o, p, q), bufs):
        cl.enqueue_copy(queue, host, dev)
    wide = np.float32 if dtype == np.float16 else np.int64
    x = a[:end].astype(wide)
    nxt = a[1 : end + 1].astype(wide)
    want_o = keep.copy()
    want_o[offset:] = expected_wrapping(dtype, lambda: x * 3 + 1)[offset:]
    want_p = keep.copy()
    g = np.arange(end)
    on = (g >= offset) & (g % 3 != 1)
    want_p[on] = a[:end][on]
    want_q = keep.copy()
    want_q[offset:] = expected_wrapping(dtype, lambda: nxt - x)[offset:]
    np.testing.assert_array_equal(o.view(np.uint8), want_o.view(np.uint8))
    np.testing.assert_array_equal(p.view(np.uint8), want_p.view(np.uint8))
    np.testing.assert_array_equal(q.view(np.uint8), want_q.view(np.uint8))


def test_fp16_disable_takes_half_arithmetic_away(ctx):
    src = (
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
        "kernel void a(global half *p) { p[0] = p[1] + p[2]; }\n"
        "#pragma OPENCL EXTENSION cl_khr_fp16 : disable\n"
        "kernel void b(global half *p) { p[0] = p[1] + p[2]; }\n"
    )
    with pytest.raises(cl.RuntimeError) as e:
        cl.Program(ctx, src).build()
    assert ":4:45: error:" in str(e.value)
    assert "cl_khr_fp16 : disable" in str(e.value)


def test_unknown_extension_pragma_warns_in_the_build_log(ctx, device):
    src = (
        "#pragma OPENCL EXTENSION cl_vendor_magic : enable\n"
        "kernel void k(global int *a) { a[0] = 1; }\n"
    )
    # Not through PyOpenCL's binary cache, whose programs have no log.
    prg = cl.Program(ctx, src).build(cache_dir=False)
    log = prg.get_build_info(device, cl.program_build_info.LOG)
    assert "1:26: warning: unknown OpenCL extension 'cl_vendor_magic' - ignoring" in log

"""Launches whose work-groups are one work-item wide in dimension 0, through
the ICD loader: (1, 256) groups of a kernel with a barrier and __local
memory (run by vecl's copy of the kernel with lanes along dimension 1), and
1x1 and 1xN groups of a kernel that cannot observe its groups' shape (run
with groups vecl chooses), each compared with a host reference."""

import numpy as np
import pyopencl as cl

from conftest import build

mf = cl.mem_flags

REVERSE_COLUMNS = """
kernel void reverse(global const float *a, global float *out, local float *t)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t w = get_global_size(0);
    size_t ly = get_local_id(1), n = get_local_size(1);
    t[ly] = a[y * w + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[y * w + x] = t[n - 1 - ly] * 2.0f + (float)(get_group_id(1) * 1000 + get_local_id(0));
}
"""

TRANSPOSE = """
kernel void transpose(global const float *a, global float *out)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t w = get_global_size(0), h = get_global_size(1);
    out[x * h + y] = a[y * w + x] + (float)x - 0.5f * (float)y;
}
"""


def run(ctx, queue, program, kernel, a, out_shape, global_size, local_size, *extra):
    a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    out = np.zeros(out_shape, dtype=np.float32)
    out_buf = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    cl.Kernel(program, kernel)(queue, global_size, local_size, a_buf, out_buf, *extra)
    cl.enqueue_copy(queue, out, out_buf)
    return out


def test_groups_1_by_256_with_a_barrier_and_local_memory(ctx, queue):
    program = build(ctx, REVERSE_COLUMNS)
    w, h, n = 64, 512, 256
    a = np.random.default_rng(5).random((h, w), dtype=np.float32)
    got = run(ctx, queue, program, "reverse", a, (h, w), (w, h), (1, n),
              cl.LocalMemory(4 * n))
    want = np.empty_like(a)
    for g in range(h // n):
        block = a[g * n:(g + 1) * n, :]
        want[g * n:(g + 1) * n, :] = block[::-1, :] * 2.0 + np.float32(g * 1000)
    assert np.array_equal(got, want)


def test_tiny_groups_of_a_kernel_blind_to_their_shape(ctx, queue):
    program = build(ctx, TRANSPOSE)
    for (w, h), local in [((256, 300), (1, 1)), ((256, 300), (1, 100)),
                          ((37, 64), (1, 64)), ((1, 96), (1, 1))]:
        a = np.random.default_rng(w + h).random((h, w), dtype=np.float32)
        got = run(ctx, queue, program, "transpose", a, (w, h), (w, h), local)
        xs = np.arange(w, dtype=np.float32)[:, None]
        ys = np.arange(h, dtype=np.float32)[None, :]
        want = a.T + xs - np.float32(0.5) * ys
        assert np.array_equal(got, want), (w, h, local)

"""A chain of small launches through the ICD loader: a streaming kernel
whose wide code prefetches runs its first launches on that code and, from
the eighth launch of fewer than 2^18 work-items, on a copy compiled
without prefetches (docs/wide.md, "Small launches run a copy without
prefetches"). Every launch of the chain, small and large, 1-D and 2-D,
with a partial last group and with an offset, gives NumPy's results, and
so does a large launch after the copy exists."""

import numpy as np
import pyopencl as cl

from conftest import build

mf = cl.mem_flags

STEP = """
kernel void step(global float *h, global const float *e, int nx, float c)
{
    int i = get_global_id(0), j = get_global_id(1);
    int k = j * nx + i;
    if (i < nx - 1) h[k] += c * (e[k + 1] - e[k]);
}
"""


def test_a_chain_of_small_launches_keeps_its_results(ctx, queue):
    program = build(ctx, STEP)
    kernel = cl.Kernel(program, "step")
    rng = np.random.default_rng(5)
    for nx, ny, local, offset in [
        (256, 256, (256, 1), None),
        (100, 37, None, None),
        (64, 64, (16, 4), (16, 8)),
        (1024, 512, (256, 1), None),
    ]:
        e = rng.standard_normal(nx * ny).astype(np.float32)
        h = rng.standard_normal(nx * ny).astype(np.float32)
        e_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=e)
        h_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=h)
        want = h.reshape(ny, nx).copy()
        ev = e.reshape(ny, nx)
        gx, gy = (nx, ny) if offset is None else (nx - offset[0], ny - offset[1])
        ox, oy = offset or (0, 0)
        for _ in range(12):
            kernel(queue, (gx, gy), local, h_buf, e_buf, np.int32(nx), np.float32(0.5), global_offset=offset)
            cols = slice(ox, min(ox + gx, nx - 1))
            rows = slice(oy, oy + gy)
            want[rows, cols] += np.float32(0.5) * (ev[rows, cols.start + 1 : cols.stop + 1] - ev[rows, cols])
            got = np.empty_like(h)
            cl.enqueue_copy(queue, got, h_buf)
            np.testing.assert_allclose(got.reshape(ny, nx), want, rtol=1e-6, atol=1e-6)

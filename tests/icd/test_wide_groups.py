"""Work-group queries and 2-D work-groups on the wide code through the
driver (docs/wide.md, "Group queries from the group's coordinate"): a
tiled transpose in 16 x 16 groups (a `__local` tile, a barrier, indices
built from `get_group_id` and `get_local_id`), a hotspot-like stencil in
groups of every width (the one-chunk program beside chunks in flight),
and every group query of a 3-D launch with offsets and a non-uniform last
group. Each result is checked against NumPy, and the wide code's bytes
against Cranelift's (VECL_WIDE=0)."""

import textwrap

from conftest import run_script

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    src = '''
    kernel void transpose(global const float *in, global float *out, int w, int h) {
        local float tile[16][17];
        int lx = get_local_id(0), ly = get_local_id(1);
        int x = get_group_id(0) * 16 + lx, y = get_group_id(1) * 16 + ly;
        if (x < w && y < h) tile[ly][lx] = in[y * w + x];
        barrier(CLK_LOCAL_MEM_FENCE);
        x = get_group_id(1) * 16 + lx;
        y = get_group_id(0) * 16 + ly;
        if (x < h && y < w) out[y * h + x] = tile[lx][ly];
    }
    kernel void stencil(global const float *t, global float *o, int r, int c) {
        int col = get_global_id(0), row = get_global_id(1);
        if (row >= r || col >= c) return;
        int i = row * c + col;
        float n = row > 0 ? t[i - c] : t[i];
        float s = row < r - 1 ? t[i + c] : t[i];
        float e = col < c - 1 ? t[i + 1] : t[i];
        float w = col > 0 ? t[i - 1] : t[i];
        float a = t[i] + 0.5f * ((s + n - 2.0f * t[i]) * 0.25f + (e + w - 2.0f * t[i]) * 0.5f);
        float b = (((0.375f * a - 1.25f) * a + 0.5f) * a - 2.0f) / (a * a + 1.5f);
        o[i] = b > 7.0f ? b - 7.0f : b * 0.75f + a;
    }
    kernel void queries(global int *q, int w, int h) {
        int i = ((int)get_global_id(2) * h + (int)get_global_id(1)) * w + (int)get_global_id(0);
        q[i * 9 + 0] = get_local_id(0);
        q[i * 9 + 1] = get_local_id(1);
        q[i * 9 + 2] = get_local_id(2);
        q[i * 9 + 3] = get_group_id(0);
        q[i * 9 + 4] = get_group_id(1);
        q[i * 9 + 5] = get_group_id(2);
        q[i * 9 + 6] = get_local_size(0);
        q[i * 9 + 7] = get_local_size(1);
        q[i * 9 + 8] = get_local_size(2);
    }
    '''
    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, src).build("-cl-std=CL2.0")
    mf = cl.mem_flags
    rng = np.random.default_rng(11)

    for w, h in ((64, 48), (48, 80), (256, 16)):
        a = rng.standard_normal((h, w)).astype(np.float32)
        ib = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
        ob = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
        program.transpose(queue, (w, h), (16, 16), ib, ob, np.int32(w), np.int32(h))
        out = np.empty((w, h), np.float32)
        cl.enqueue_copy(queue, out, ob)
        assert (out == a.T).all(), (w, h)
        print("transpose", w, h, out.tobytes().hex()[:256])

    r, c = 40, 96
    t = rng.standard_normal((r, c)).astype(np.float32)
    tb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=t)
    for local in ((16, 16), (8, 8), (16, 4), (32, 2), (48, 1), (96, 1), (1, 8)):
        ob = cl.Buffer(ctx, mf.WRITE_ONLY, t.nbytes)
        program.stencil(queue, (c, r), local, tb, ob, np.int32(r), np.int32(c))
        out = np.empty_like(t)
        cl.enqueue_copy(queue, out, ob)
        print("stencil", local, out.tobytes().hex())

    # Offsets in every dimension; the last group of dimension 0 smaller
    # (OpenCL 2.0's non-uniform groups).
    gsize, lsize, off = (37, 6, 4), (16, 3, 2), (5, 2, 1)
    w, h, d = (off[k] + gsize[k] for k in range(3))
    qb = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * 9 * w * h * d)
    cl.enqueue_fill_buffer(queue, qb, np.int32(-1), 0, 4 * 9 * w * h * d)
    program.queries(queue, gsize, lsize, qb, np.int32(w), np.int32(h), global_offset=off)
    q = np.empty((d, h, w, 9), np.int32)
    cl.enqueue_copy(queue, q, qb)
    for z in range(off[2], d):
        for y in range(off[1], h):
            for x in range(off[0], w):
                ids = (x, y, z)
                want = []
                for k in range(3):
                    t_ = ids[k] - off[k]
                    want.append(t_ % lsize[k])
                for k in range(3):
                    want.append((ids[k] - off[k]) // lsize[k])
                for k in range(3):
                    g = (ids[k] - off[k]) // lsize[k]
                    want.append(min(lsize[k], gsize[k] - g * lsize[k]))
                assert list(q[z, y, x]) == want, (ids, list(q[z, y, x]), want)
    print("queries", q.tobytes().hex()[:512])
    queue.finish()
    """
)


def run(extra):
    return run_script(SCRIPT, extra)


def test_group_queries_and_2d_groups_agree_with_numpy_and_cranelift():
    wide = run({"VECL_WIDE": "1"})
    assert wide.count("transpose ") == 3 and wide.count("stencil ") == 7, wide
    assert wide.count("queries ") == 1, wide
    assert wide == run({"VECL_WIDE": "0"})

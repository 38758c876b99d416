"""`__local` memory and barriers on the wide code through the driver
(docs/wide.md): the bench's nbody (float4 bodies, a `__local` tile
between two barriers) in groups of 64 and 48 work-items, and a reduction
tree in a `__local` array with its barrier in a loop, give with
VECL_WIDE=1 the bytes they give with VECL_WIDE=0 when `rsqrt` is the
square root and division of Cranelift's code (VECL_RSQRT=divide), and
nbody's within 1e-5 with the wide code's Newton step (VECL_RSQRT=newton,
the default where the CPU's divider is slow)."""

import pathlib
import textwrap

import numpy as np

from conftest import run_script

NBODY = (pathlib.Path(__file__).resolve().parents[2] / "benches" / "nbody.cl").read_text()

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    reduce_src = '''
    __kernel void tree(__global const int *in, __global int *out) {
        __local int scratch[64];
        int lid = get_local_id(0);
        scratch[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = (int)get_local_size(0) / 2; s > 0; s >>= 1) {
            if (lid < s) {
                scratch[lid] += scratch[lid + s];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            out[get_group_id(0)] = scratch[0];
        }
    }
    '''
    program = cl.Program(ctx, sys.stdin.read() + reduce_src).build()
    mf = cl.mem_flags
    rng = np.random.default_rng(7)
    for n, local in ((960, 64), (960, 48)):
        pos = rng.standard_normal(4 * n).astype(np.float32)
        pos[3::4] = np.abs(pos[3::4])
        vel = rng.standard_normal(4 * n).astype(np.float32)
        pb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=pos)
        vb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=vel)
        npb = cl.Buffer(ctx, mf.WRITE_ONLY, pos.nbytes)
        nvb = cl.Buffer(ctx, mf.WRITE_ONLY, vel.nbytes)
        program.nbody(queue, (n,), (local,), pb, vb, npb, nvb,
                      cl.LocalMemory(16 * local), np.int32(n),
                      np.float32(0.01), np.float32(0.05))
        new_pos = np.empty_like(pos)
        new_vel = np.empty_like(vel)
        cl.enqueue_copy(queue, new_pos, npb)
        cl.enqueue_copy(queue, new_vel, nvb)
        print("nbody", n, local, new_pos.tobytes().hex()[:4000], new_vel.tobytes().hex()[-4000:])
    data = (np.arange(4096, dtype=np.int32) * 7) % 23 - 11
    ib = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    for local in (64, 32, 16):
        ob = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * (4096 // local))
        program.tree(queue, (4096,), (local,), ib, ob)
        sums = np.empty(4096 // local, np.int32)
        cl.enqueue_copy(queue, sums, ob)
        want = data.reshape(-1, local).sum(axis=1)
        assert (sums == want).all(), (local, sums[:8], want[:8])
        print("tree", local, sums.tobytes().hex())
    queue.finish()
    """
)


def run(extra):
    return run_script(SCRIPT, extra, stdin=NBODY)


def test_local_memory_and_barriers_give_the_same_bytes_on_the_wide_code():
    plain = run({"VECL_WIDE": "0"})
    wide = run({"VECL_WIDE": "1", "VECL_RSQRT": "divide"})
    assert wide.count("nbody ") == 2 and wide.count("tree ") == 3, wide
    assert wide == plain


def floats(hex_text):
    return np.frombuffer(bytes.fromhex(hex_text), dtype=np.float32)


def test_rsqrt_by_a_newton_step_stays_close_to_the_division():
    plain = run({"VECL_WIDE": "0"}).splitlines()
    newton = run({"VECL_WIDE": "1", "VECL_RSQRT": "newton"}).splitlines()
    assert len(newton) == len(plain) == 5, newton
    for a, b in zip(newton, plain):
        if a.startswith("tree "):
            assert a == b
            continue
        fa, fb = a.split(), b.split()
        assert fa[:3] == fb[:3]
        for x, y in zip(fa[3:], fb[3:]):
            x, y = floats(x), floats(y)
            assert np.allclose(x, y, rtol=1e-5, atol=1e-5), np.abs(x - y).max()

"""VECL_WIDE=1 through the driver for the wide code's math, integer
division and group queries (docs/wide.md): the bench's blackscholes
(exp, log, a divide, selects on float compares), 32-bit division and
remainder with zero divisors and INT_MIN / -1, and the group queries
over a launch with a partial last group give the results they give on
Cranelift's code; the division also matches C's rules computed here."""

import os
import pathlib
import subprocess
import sys
import textwrap

BLACKSCHOLES = (pathlib.Path(__file__).parents[2] / "benches" / "blackscholes.cl").read_text()

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    def buf(a):
        return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
    def back(b, a):
        cl.enqueue_copy(queue, a, b)
        return a

    bs = cl.Program(ctx, sys.stdin.read()).build()
    n = 1003
    rng = np.random.default_rng(7)
    spot = rng.uniform(5, 30, n).astype(np.float32)
    strike = rng.uniform(1, 100, n).astype(np.float32)
    years = rng.uniform(0.25, 10, n).astype(np.float32)
    call, put = np.zeros(n, np.float32), np.zeros(n, np.float32)
    cb, pb = buf(call), buf(put)
    bs.blackscholes(queue, (n,), None, buf(spot), buf(strike), buf(years), cb, pb,
                    np.float32(0.02), np.float32(0.3))
    print("call", back(cb, call).tobytes().hex())
    print("put", back(pb, put).tobytes().hex())

    src = '''
    __kernel void divide(__global const int *a, __global const int *b, __global int *q,
                         __global int *r, __global uint *uq, __global uint *ur) {
        int i = get_global_id(0);
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
        uq[i] = (uint)a[i] / (uint)b[i];
        ur[i] = (uint)a[i] % (uint)b[i];
    }
    __kernel void groups(__global int *out) {
        int x = get_global_id(0);
        int y = get_global_id(1);
        int at = (y * (int)get_global_size(0) + x) * 6;
        out[at + 0] = get_local_id(0);
        out[at + 1] = get_local_id(1);
        out[at + 2] = get_group_id(0);
        out[at + 3] = get_group_id(1);
        out[at + 4] = get_local_size(0);
        out[at + 5] = get_num_groups(0);
    }
    '''
    p = cl.Program(ctx, src).build(options=["-cl-std=CL2.0"])
    a = np.array([-2**31, -2**31, 7, -7, 7, -7, 0, 2**31 - 1, -1, 5, 12345678] * 10, np.int32)
    b = np.array([-1, 0, 2, 2, -2, -2, 0, -1, 3, 0, -1000] * 10, np.int32)
    m = a.size
    outs = [np.zeros(m, np.int32), np.zeros(m, np.int32), np.zeros(m, np.uint32),
            np.zeros(m, np.uint32)]
    bufs = [buf(o) for o in outs]
    p.divide(queue, (m,), None, buf(a), buf(b), *bufs)
    q, r, uq, ur = [back(bb, o) for bb, o in zip(bufs, outs)]
    for i in range(m):
        x, y = int(a[i]), int(b[i])
        ux, uy = x & 0xffffffff, y & 0xffffffff
        if y == 0:
            want = (0, 0, 0, 0)
        else:
            t = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            t = (t + 2**31) % 2**32 - 2**31
            rem = x - t * y
            rem = (rem + 2**31) % 2**32 - 2**31
            want = (t, rem, ux // uy, ux % uy)
        got = (int(q[i]), int(r[i]), int(uq[i]), int(ur[i]))
        assert got == want, (x, y, got, want)
    print("divide", q.tobytes().hex(), r.tobytes().hex(), uq.tobytes().hex(), ur.tobytes().hex())

    gx, gy = 45, 3
    g = np.zeros(gx * gy * 6, np.int32)
    gb = buf(g)
    p.groups(queue, (gx, gy), (16, 2), gb)
    print("groups", back(gb, g).tobytes().hex())
    queue.finish()
    """
)


def run(extra):
    env = dict(os.environ, **extra)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=BLACKSCHOLES,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_wide_math_division_and_group_queries_give_the_same_results():
    plain = run({"VECL_WIDE": "0"})
    wide = run({"VECL_WIDE": "1"})
    for what in ("call ", "put ", "divide ", "groups "):
        assert what in wide, wide
    assert wide == plain

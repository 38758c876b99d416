"""Whole programs through the driver: the radix-2 FFT of
`benches/programs.py` (`__local` transposes, `sincos` twiddles, a barrier
per round) against NumPy's FFT, and `size_t` arithmetic across a barrier
(64-bit operations the wide code narrows to 32-bit lanes, docs/wide.md)
against NumPy, each with VECL_WIDE=1 and VECL_WIDE=0, which must give the
same bytes."""

import pathlib
import textwrap

from conftest import run_script

BENCHES = pathlib.Path(__file__).resolve().parents[2] / "benches"

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyopencl as cl

    sys.path.insert(0, sys.argv[1])
    import programs

    STAGED = '''
    kernel void staged(global const float* in, global float* out, local float* t) {
        size_t lid = get_local_id(0), n = get_local_size(0);
        t[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        size_t j = n - 1 - lid;
        out[get_global_id(0)] = t[j] + t[lid / 2] * (float)(lid >> 1) + (float)(n % 3);
    }
    '''

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, programs.SOURCE + STAGED).build()
    mf = cl.mem_flags
    rng = np.random.default_rng(5)
    for n, count in ((2, 5), (16, 3), (64, 7), (1024, 9)):
        x = (rng.standard_normal((count, n)) + 1j * rng.standard_normal((count, n))).astype(np.complex64)
        src = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
        dst = cl.Buffer(ctx, mf.WRITE_ONLY, x.nbytes)
        la, lb = cl.LocalMemory(8 * n), cl.LocalMemory(8 * n)
        program.fft(queue, (count * n // 2,), (n // 2,), src, dst, la, lb)
        got = np.empty_like(x)
        cl.enqueue_copy(queue, got, dst)
        want = np.fft.fft(x.astype(np.complex128), axis=1)
        err = np.abs(got - want).max() / np.abs(want).max()
        assert err < 1e-5, (n, count, err)
        print("fft", n, count, got.tobytes().hex()[:4000])
    for size, local in ((4096, 256), (960, 64), (1000, 40)):
        data = rng.standard_normal(size).astype(np.float32)
        ib = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
        ob = cl.Buffer(ctx, mf.WRITE_ONLY, data.nbytes)
        program.staged(queue, (size,), (local,), ib, ob, cl.LocalMemory(4 * local))
        got = np.empty_like(data)
        cl.enqueue_copy(queue, got, ob)
        g = data.reshape(-1, local)
        lid = np.arange(local)
        want = g[:, local - 1 - lid] + g[:, lid // 2] * (lid >> 1).astype(np.float32) + np.float32(local % 3)
        # (the front end may contract the product and sum into an fma)
        assert np.allclose(got, want.reshape(-1), rtol=1e-6, atol=1e-5), (size, local)
        print("staged", size, local, got.tobytes().hex()[:4000])
    queue.finish()
    """
)


def run(extra):
    return run_script(SCRIPT, extra, BENCHES)


def test_the_fft_and_size_t_arithmetic_agree_with_numpy_on_both_codes():
    wide = run({"VECL_WIDE": "1"})
    plain = run({"VECL_WIDE": "0"})
    assert wide.count("fft ") == 4 and wide.count("staged ") == 3, wide
    assert wide == plain

"""A huge kernel through the driver (jit/src/frame.rs): at VECL_SIMD_WIDTH=32
the quick tier's code of a kernel of tens of thousands of instructions needs
a stack frame of megabytes, which overflowed the 2 MiB stack of the thread
running the command and aborted the process ("has overflowed its stack").
The kernel is compiled at the widest width whose frame fits: the program
builds, the command completes and gives the results of the 4-lane code."""

import os
import subprocess
import sys
import textwrap

N = 2000

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyopencl as cl

    n = int(sys.argv[1])
    lines = [
        "__kernel void big(__global float *a, int k) {",
        "    int i = get_global_id(0);",
        "    float x = a[i], y = (float)i;",
    ]
    for j in range(1, n):
        lines.append(f"    x = x * 0.{5 + j % 4}f + y; y = y * 0.5f + (float)(k ^ {j});")
        lines.append(f"    if (x > {j % 97}.0f) x = x - y * 0.25f;")
    lines += ["    a[i] = x + y;", "}"]
    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, "\\n".join(lines)).build()
    big = cl.Kernel(program, "big")
    data = (np.arange(256) % 9 - 4).astype(np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    big.set_args(buf, np.int32(5))
    cl.enqueue_nd_range_kernel(queue, big, (256,), (32,))
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    print("out", out.tobytes().hex())
    """
)


def run(width):
    env = dict(os.environ)
    env["VECL_SIMD_WIDTH"] = str(width)
    env["VECL_JIT_TIERS"] = "quick"
    # A fresh build each time (PyOpenCL's cache would hand back the binary).
    env["PYOPENCL_NO_CACHE"] = "1"
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, str(N)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_a_huge_kernel_at_width_32_runs_with_the_results_of_the_narrow_code():
    narrow = run(4)
    assert narrow.returncode == 0, narrow.stderr
    wide = run(32)
    assert wide.returncode == 0, wide.stderr[-2000:]
    assert "overflowed its stack" not in wide.stderr
    assert "out " in wide.stdout, wide.stdout
    assert wide.stdout == narrow.stdout

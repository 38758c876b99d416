"""VECL_KERNEL_TIMEOUT_MS through the driver: an endless kernel is stopped
with CL_OUT_OF_RESOURCES and a message on stderr (no context callback),
the process survives and the queue runs the next kernel."""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void spin(__global int *o) {
        size_t g = get_global_id(0);
        int i = 0;
        while (o[g] == 0) { i++; }
        o[g] = i;
    }
    __kernel void add_one(__global int *o) { o[get_global_id(0)] += 1; }
    '''
    program = cl.Program(ctx, src).build()
    spin = cl.Kernel(program, "spin")
    add_one = cl.Kernel(program, "add_one")
    host = np.zeros(64, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    spin(queue, (64,), None, buf)
    try:
        queue.finish()
        print("finished?")
    except cl.Error as e:
        print("error", e.code)
    add_one(queue, (64,), None, buf)
    out = np.empty(64, np.int32)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    print("next", int(out.min()) >= 1)
    """
)


def test_time_limit_stops_an_endless_kernel():
    env = dict(os.environ, VECL_KERNEL_TIMEOUT_MS="200")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    # CL_OUT_OF_RESOURCES is -5.
    assert "error" in lines and lines[lines.index("error") + 1] == "-5", done.stdout
    assert "next True" in done.stdout, done.stdout
    assert "kernel `spin` stopped: it ran past its time limit of 200 ms" in done.stderr, done.stderr

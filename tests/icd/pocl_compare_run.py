"""Runs the same kernels on every OpenCL platform visible and prints the
results as JSON: run by test_pocl_compare.py in a process whose loader sees
both vecl and PoCL."""

import json

import numpy as np
import pyopencl as cl

SOURCE = """
kernel void saxpy(float a, global const float *x, global float *y)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
kernel void collatz(global const uint *start, global uint *steps)
{
    size_t i = get_global_id(0);
    uint n = start[i], count = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        count++;
    }
    steps[i] = count;
}
"""


def run(platform):
    device = platform.get_devices()[0]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    result = {"platform": platform.name, "device_type": int(device.type)}
    try:
        program = cl.Program(ctx, SOURCE).build()
    except cl.RuntimeError as error:
        result["build_error"] = str(error)
        return result
    mf = cl.mem_flags
    x = np.arange(256, dtype=np.float32)
    y = np.ones(256, dtype=np.float32)
    x_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    y_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    program.saxpy(queue, (256,), None, np.float32(2.5), x_buf, y_buf)
    cl.enqueue_copy(queue, y, y_buf)
    starts = np.arange(1, 513, dtype=np.uint32)
    steps = np.empty_like(starts)
    s_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=starts)
    o_buf = cl.Buffer(ctx, mf.WRITE_ONLY, steps.nbytes)
    program.collatz(queue, (512,), None, s_buf, o_buf)
    cl.enqueue_copy(queue, steps, o_buf)
    result["saxpy"] = y.tolist()
    result["collatz"] = steps.tolist()
    return result


print(json.dumps([run(p) for p in cl.get_platforms()]))

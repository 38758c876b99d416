"""A process that forks after building kernels: the child shares the
parent's memory pages, so what the child lets go of must not disturb the
code the parent goes on running."""

import os

import numpy as np
import pyopencl as cl

from conftest import build

mf = cl.mem_flags


def test_a_child_dropping_inherited_kernels_leaves_the_parents_code(ctx, queue):
    programs = [
        build(ctx, f"kernel void k{i}(global float *a) {{ a[get_global_id(0)] += {i}.0f; }}")
        for i in range(6)
    ]
    kernels = [getattr(p, f"k{i}") for i, p in enumerate(programs)]
    a = np.zeros(4096, np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
    for k in kernels:
        k(queue, (4096,), None, buf)
    queue.finish()
    pid = os.fork()
    if pid == 0:
        # The child releases every kernel and program it inherited (their
        # code is freed), then ends without running the parent's cleanup.
        code = 0
        try:
            del kernels, programs
            import gc

            gc.collect()
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    for _ in range(3):
        for k in kernels:
            k(queue, (4096,), None, buf)
    queue.finish()
    cl.enqueue_copy(queue, a, buf)
    assert (a == 4 * sum(range(6))).all(), a[:4]

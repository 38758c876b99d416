"""Robust buffer access through the driver: off by default (the C API keeps
the unchecked code), on with the build option -cl-vecl-robust-access or
-cl-vecl-checked, or with the link option of the same name. A kernel
writing past its buffer then fails its command with CL_OUT_OF_RESOURCES and
a message naming kernel, work-item and argument on stderr; the process
survives, the buffers around are intact and the queue runs the next
command. PyOpenCL caches built programs as binaries, so the second time
this runs the programs come from clCreateProgramWithBinary: the checks must
survive that too."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void fill(__global float *out) {
        int i = get_global_id(0);
        out[i] = (float)i;
    }
    '''
    how = sys.argv[1]
    if how == "link":
        obj = cl.Program(ctx, src).compile()
        program = cl.link_program(ctx, [obj], options="-cl-vecl-robust-access")
    else:
        program = cl.Program(ctx, src).build(options=how)
    fill = cl.Kernel(program, "fill")
    mf = cl.mem_flags
    around = [
        cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.full(16, k, np.float32))
        for k in range(8)
    ]
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.full(16, -1, np.float32))
    around += [
        cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.full(16, k, np.float32))
        for k in range(8, 16)
    ]
    fill(queue, (256,), None, buf)
    try:
        queue.finish()
        print("finished?")
    except cl.Error as e:
        print("error", e.code)
    intact = True
    for k, b in enumerate(around):
        got = np.empty(16, np.float32)
        cl.enqueue_copy(queue, got, b)
        intact &= bool((got == k).all())
    print("intact", intact)
    fill(queue, (16,), None, buf)
    out = np.empty(16, np.float32)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    print("next", bool((out == np.arange(16)).all()))
    """
)


def run(how):
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, how],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_build_and_link_options_turn_robust_access_on():
    for how in ["-cl-vecl-robust-access", "-cl-vecl-checked", "link"]:
        done = run(how)
        assert done.returncode == 0, (how, done.stderr)
        lines = done.stdout.split()
        # CL_OUT_OF_RESOURCES is -5.
        assert "error" in lines and lines[lines.index("error") + 1] == "-5", (how, done.stdout)
        assert "intact True" in done.stdout, (how, done.stdout)
        assert "next True" in done.stdout, (how, done.stdout)
        for part in [
            "kernel `fill` stopped: out-of-bounds store of 4 bytes",
            "by work-item (16, 0, 0)",
            "past the end of argument 0, a buffer of 64 bytes",
        ]:
            assert part in done.stderr, (how, part, done.stderr)

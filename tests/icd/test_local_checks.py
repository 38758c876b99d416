"""Checked mode's __local checks through the driver: the kernels of
tests/buggy/ built with -cl-vecl-checked fail their command with
CL_OUT_OF_RESOURCES and a message on stderr naming the kind of bug, both
work-items and both source lines, at every SIMD width (VECL_SIMD_WIDTH);
a store past a __local argument names it; the queue runs the next
command; built without the option (unchecked, the
driver's default) the racy kernels run. Each case runs in a process of its
own, since the driver reads the width once."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

BUGGY = pathlib.Path(__file__).resolve().parents[1] / "buggy"

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyopencl as cl

    path, kernel, options = sys.argv[1], sys.argv[2], sys.argv[3]
    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, open(path).read()).build(options=options)
    k = cl.Kernel(program, kernel)
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    # A __local argument after the buffer: one int per work-item.
    extra = [cl.LocalMemory(64 * 4)] * (k.get_info(cl.kernel_info.NUM_ARGS) - 1)
    k(queue, (64,), (64,), out, *extra)
    try:
        queue.finish()
        print("finished")
    except cl.Error as e:
        print("error", e.code)
    # The queue goes on: a copy after the failed command runs.
    got = np.full(64, 7, np.int32)
    cl.enqueue_copy(queue, out, got)
    back = np.zeros(64, np.int32)
    cl.enqueue_copy(queue, back, out)
    queue.finish()
    print("next", bool((back == 7).all()))
    """
)

CASES = {
    "local_race": [
        "kernel `local_race` stopped: data race on __local memory",
        "read of 4 bytes",
        "by the work-item with local id (0, 0, 0) at line 9:",
        "after a write by the work-item with local id (1, 0, 0) at line 8:",
        "(`t`, byte 4)",
    ],
    "uninit_local": [
        "kernel `uninit_local` stopped: read of uninitialised __local memory",
        "by the work-item with local id (0, 0, 0) at line 11:",
        "which no work-item of the group had written",
        "(`t`, byte 252)",
    ],
    "atomic_mixed": [
        "kernel `atomic_mixed` stopped: atomic and plain accesses of one __local word",
        "by the work-item with local id (5, 0, 0) at line 13:",
        "after an atomic by the work-item with local id (0, 0, 0) at line 11:",
        "(`count`, byte 0)",
    ],
    "tree_overlap": [
        "kernel `tree_overlap` stopped: data race on __local memory",
        "by the work-item with local id (32, 0, 0) at line 14:",
        "after a read by the work-item with local id (0, 0, 0) at line 14:",
        "(`t`, byte 128)",
    ],
    "local_arg_oob": [
        "kernel `local_arg_oob` stopped: out-of-bounds store of 4 bytes",
        "by work-item (63, 0, 0) at line 7:",
        "(4 bytes past the end of __local argument 1, of 256 bytes)",
    ],
    "divergent_barrier": [
        "kernel `divergent_barrier` stopped: barrier at line 8:9",
        "but not by the one with local id (20, 0, 0)",
    ],
}


def run(kernel, options, width):
    env = dict(os.environ)
    env["VECL_SIMD_WIDTH"] = str(width)
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, str(BUGGY / f"{kernel}.cl"), kernel, options],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.parametrize("kernel", sorted(CASES))
@pytest.mark.parametrize("width", [4, 8, 16, 32])
def test_checked_builds_report_the_bug(kernel, width):
    done = run(kernel, "-cl-vecl-checked", width)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    # CL_OUT_OF_RESOURCES is -5.
    assert "error" in lines and lines[lines.index("error") + 1] == "-5", done.stdout
    assert "next True" in done.stdout, done.stdout
    for part in CASES[kernel]:
        assert part in done.stderr, (part, done.stderr)


@pytest.mark.parametrize("kernel", ["local_race", "uninit_local", "atomic_mixed", "tree_overlap"])
def test_unchecked_builds_run_the_racy_kernels(kernel):
    done = run(kernel, "", 8)
    assert done.returncode == 0, done.stderr
    assert "finished" in done.stdout, (done.stdout, done.stderr)

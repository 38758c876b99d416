"""What an asynchronous command engine must do, through the ICD loader.

engine.c holds one C program of many cases (see its header); each runs as
its own process with its own time limit, so a hang or a crash fails that
case alone, with the stage it was in. The PyOpenCL checks below run the
same way: this file, run as a script with a check's name, performs the
check (`python3 test_engine.py spin_nonblocking`), and the test runs it as
a subprocess.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import threading

import numpy as np
import pyopencl as cl
import pytest

from conftest import NO_COMPILER

HERE = pathlib.Path(__file__).resolve().parent

# Each case's own watchdog (engine.c) fires first; this limit is the backstop.
CASE_LIMIT_S = 60

# The kernel that stores out of bounds, in engine.c and below: its name must
# reach the failure's message.
OOB_KERNEL = "oob_store_kernel"

C_CASES = [
    "nonblocking_kernel",
    "shared_inorder",
    "user_event_fanin",
    "user_event_fanin_ooo",
    "callback_chain",
    "callback_wait",
    "checked_failure",
    "checked_failure_stderr",
    "rect_overflow",
    "queue_on_device",
    "ooo_concurrency",
]


def as_text(output):
    if isinstance(output, bytes):
        return output.decode(errors="replace")
    return output or ""


def run_limited(command, env=None, limit=CASE_LIMIT_S):
    """Runs `command`; a hang past `limit` seconds fails the test, naming it."""
    try:
        return subprocess.run(
            command, capture_output=True, text=True, timeout=limit, env=env or dict(os.environ)
        )
    except subprocess.TimeoutExpired as hung:
        output = as_text(hung.stdout) + as_text(hung.stderr)
        pytest.fail(f"{' '.join(map(str, command))} hung: no result after {limit} s\n{output}")


def check_finished(result, name):
    """Fails unless the process exited 0 after printing `NAME ok`."""
    output = result.stdout + result.stderr
    if NO_COMPILER in output:
        pytest.xfail("vecl is built without its kernel compiler")
    if result.returncode < 0:
        pytest.fail(f"{name} crashed with signal {-result.returncode}\n{output}")
    assert result.returncode == 0, output
    assert f"{name} ok" in result.stdout, output


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path_factory.mktemp("engine") / "engine"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(binary), str(HERE / "engine.c"), "-lOpenCL", "-lpthread"],
        check=True,
    )
    return binary


@pytest.mark.parametrize("case", C_CASES)
def test_engine(engine, case):
    env = dict(os.environ)
    if case.startswith("checked_failure"):
        env["VECL_CHECKED"] = "1"
    result = run_limited([str(engine), case], env=env)
    check_finished(result, case)
    if case == "checked_failure_stderr":
        # Without a pfn_notify, the failure's message goes to stderr.
        assert OOB_KERNEL in result.stderr, result.stdout + result.stderr


# ---- PyOpenCL checks, each run as `python3 test_engine.py NAME` ----------

SPIN = """
kernel void spin(volatile global int *flag, global int *out) {
    long rounds = 0;
    while (atomic_or(flag, 0) == 0 && rounds < 268435456L) rounds++;
    out[0] = atomic_or(flag, 0) != 0 ? 42 : -1;
}
"""

OOB = f"""
kernel void {OOB_KERNEL}(global int *data, int n) {{
    data[n + get_global_id(0)] = 7;
}}
"""

BUMP = "kernel void bump(global int *data, int slot) { data[slot] += 1; }"

mf = cl.mem_flags


def vecl_context():
    return cl.Context(dev_type=cl.device_type.ALL)


def build_or_report(ctx, source):
    try:
        return cl.Program(ctx, source).build()
    except cl.RuntimeError as error:
        if NO_COMPILER in str(error):
            print(NO_COMPILER)
            sys.exit(1)
        raise


def spin_nonblocking():
    """A kernel launched without waiting spins until a write on a second
    queue sets its flag: the launch returns before the kernel is complete."""
    ctx = vecl_context()
    first, second = cl.CommandQueue(ctx), cl.CommandQueue(ctx)
    program = build_or_report(ctx, SPIN)
    zero = np.zeros(1, np.int32)
    flag = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=zero)
    out = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=zero)
    spun = program.spin(first, (1,), (1,), flag, out)
    status = spun.command_execution_status
    assert status != cl.command_execution_status.COMPLETE, (
        f"the spinning kernel's event was {status} when the launch returned"
    )
    first.flush()
    cl.enqueue_copy(second, flag, np.ones(1, np.int32), is_blocking=True)
    first.finish()
    result = np.empty(1, np.int32)
    cl.enqueue_copy(first, result, out, is_blocking=True)
    assert result[0] == 42, f"out[0] = {result[0]} (-1: the kernel never saw its flag)"
    assert spun.command_execution_status == cl.command_execution_status.COMPLETE


def checked_out_of_bounds():
    """(VECL_CHECKED=1) an out-of-bounds store fails its command with
    CL_OUT_OF_RESOURCES; the message goes to stderr."""
    assert os.environ.get("VECL_CHECKED") == "1"
    ctx = vecl_context()
    queue = cl.CommandQueue(ctx)
    program = build_or_report(ctx, OOB)
    data = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.arange(256, dtype=np.int32))
    failed = getattr(program, OOB_KERNEL)(queue, (1,), (1,), data, np.int32(256))
    try:
        queue.finish()
    except cl.Error as error:
        print(f"queue.finish() raised {error}")
    status = failed.command_execution_status
    print(f"kernel event status {status}")
    assert status == cl.status_code.OUT_OF_RESOURCES, (
        f"the out-of-bounds kernel's event is {status}, expected CL_OUT_OF_RESOURCES (-5)"
    )
    intact = np.empty(256, np.int32)
    cl.enqueue_copy(queue, intact, data, is_blocking=True)
    assert (intact == np.arange(256)).all()


THREADS = 8
ROUNDS = 500  # 3 commands a round


def threads_share_a_queue():
    """8 Python threads enqueue write, kernel, read into one in-order queue;
    every read must see its own write plus one."""
    ctx = vecl_context()
    queue = cl.CommandQueue(ctx)
    program = build_or_report(ctx, BUMP)
    data = cl.Buffer(ctx, mf.READ_WRITE, size=4 * THREADS)
    src = np.arange(THREADS * ROUNDS, dtype=np.int32).reshape(THREADS, ROUNDS) * 10
    dst = np.full((THREADS, ROUNDS), -1, np.int32)
    errors = []

    def work(slot):
        try:
            kernel = cl.Kernel(program, "bump")
            kernel.set_args(data, np.int32(slot))
            for r in range(ROUNDS):
                cl.enqueue_copy(queue, data, src[slot, r : r + 1], dst_offset=4 * slot, is_blocking=False)
                cl.enqueue_nd_range_kernel(queue, kernel, (1,), (1,))
                cl.enqueue_copy(queue, dst[slot, r : r + 1], data, src_offset=4 * slot, is_blocking=False)
        except Exception as error:  # reported by the main thread
            errors.append(f"thread {slot}: {error!r}")

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queue.finish()
    assert not errors, errors
    wrong = np.argwhere(dst != src + 1)
    assert len(wrong) == 0, f"{len(wrong)} wrong results, first at (thread, round) {tuple(wrong[0])}"


CHAIN = f"""
kernel void advance(global float *u, int t) {{
    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0);
    u[k] += (float)t;
}}
{OOB}
"""

CHAIN_LAUNCHES = 600
CHAIN_FAILS_AT = 300


def chain_of_small_launches():
    """(VECL_CHECKED=1, VECL_THREADS=4 on any machine) 600 launches of a
    256x256 kernel into one in-order queue, each a few microseconds, so
    the pool runs most alone and splits few; a callback on every launch's
    completion; an out-of-bounds launch in the middle. Every launch adds
    its `t` to every element, every callback runs once with CL_COMPLETE,
    and the failing launch's event reports CL_OUT_OF_RESOURCES while the
    launches after it still run."""
    assert os.environ.get("VECL_CHECKED") == "1"
    ctx = vecl_context()
    queue = cl.CommandQueue(ctx)
    program = build_or_report(ctx, CHAIN)
    side = 256
    grid = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(side * side, np.float32))
    small = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(16, np.int32))
    advance = cl.Kernel(program, "advance")
    oob = cl.Kernel(program, OOB_KERNEL)
    oob.set_args(small, np.int32(16))
    completed, lock = [], threading.Lock()

    def record(n):
        def callback(status):
            with lock:
                completed.append((n, status))

        return callback

    events, failing = [], None
    for n in range(CHAIN_LAUNCHES):
        if n == CHAIN_FAILS_AT:
            failing = cl.enqueue_nd_range_kernel(queue, oob, (1,), (1,))
        advance.set_args(grid, np.int32(n % 7))
        event = cl.enqueue_nd_range_kernel(queue, advance, (side, side), None)
        event.set_callback(cl.command_execution_status.COMPLETE, record(n))
        events.append(event)
    try:
        queue.finish()
    except cl.Error as error:
        print(f"queue.finish() raised {error}")
    assert failing.command_execution_status == cl.status_code.OUT_OF_RESOURCES, (
        f"the out-of-bounds launch's event is {failing.command_execution_status}"
    )
    got = np.empty(side * side, np.float32)
    cl.enqueue_copy(queue, got, grid, is_blocking=True)
    want = float(sum(n % 7 for n in range(CHAIN_LAUNCHES)))
    assert (got == want).all(), f"element 0 is {got[0]}, not {want}"
    cl.wait_for_events(events)
    # Callbacks run on the runtime's callback thread; wait for the last.
    for _ in range(2000):
        with lock:
            if len(completed) == CHAIN_LAUNCHES:
                break
        threading.Event().wait(0.005)
    # (PyOpenCL runs each callback on a thread of its own, so the order in
    # which they reach Python says nothing; engine.c's `callback_chain`
    # checks the order in C.)
    with lock:
        launches = sorted(n for n, _ in completed)
        statuses = {status for _, status in completed}
    assert launches == list(range(CHAIN_LAUNCHES)), f"{len(launches)} callbacks ran"
    assert statuses == {cl.command_execution_status.COMPLETE}, statuses


CHECKS = {
    "spin_nonblocking": spin_nonblocking,
    "checked_out_of_bounds": checked_out_of_bounds,
    "threads_share_a_queue": threads_share_a_queue,
    "chain_of_small_launches": chain_of_small_launches,
}


def run_check(name, extra_env=None):
    env = dict(os.environ, **(extra_env or {}))
    result = run_limited([sys.executable, __file__, name], env=env)
    check_finished(result, name)
    return result


def test_pyopencl_spin_nonblocking():
    run_check("spin_nonblocking")


def test_pyopencl_checked_out_of_bounds():
    result = run_check("checked_out_of_bounds", {"VECL_CHECKED": "1"})
    assert OOB_KERNEL in result.stderr, result.stdout + result.stderr


def test_pyopencl_threads_share_a_queue():
    run_check("threads_share_a_queue")


def test_pyopencl_chain_of_small_launches():
    result = run_check("chain_of_small_launches", {"VECL_CHECKED": "1", "VECL_THREADS": "4"})
    assert OOB_KERNEL in result.stderr, result.stdout + result.stderr


if __name__ == "__main__":
    CHECKS[sys.argv[1]]()
    print(f"{sys.argv[1]} ok", flush=True)

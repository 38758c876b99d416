"""Robust buffer access through the driver: off by default (the C API keeps
the unchecked code), on with the build option -cl-vecl-robust-access or
-cl-vecl-checked, or with the link option of the same name. A kernel
writing past its buffer then fails its command with CL_OUT_OF_RESOURCES and
a message naming kernel, work-item and argument on stderr; the process
survives, the buffers around are intact and the queue runs the next
command. PyOpenCL caches built programs as binaries, so the second time
this runs the programs come from clCreateProgramWithBinary: the checks must
survive that too."""

import re
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


SCAN = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void scan(__global const int *in, __global int *out, __local int *tmp,
                       int reach) {
        int lid = get_local_id(0);
        int n = get_local_size(0);
        tmp[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int offset = 1; offset < n; offset <<= 1) {
            int add = lid >= offset ? tmp[lid - offset + reach] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            tmp[lid] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = tmp[lid];
    }
    '''
    program = cl.Program(ctx, src).build(options="-cl-vecl-robust-access")
    scan = cl.Kernel(program, "scan")
    mf = cl.mem_flags
    data = (np.arange(1024, dtype=np.int32) % 7) - 3
    src_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    out_buf = cl.Buffer(ctx, mf.READ_WRITE, size=data.nbytes)
    for reach in [0, 2]:
        scan.set_args(src_buf, out_buf, cl.LocalMemory(4 * 128), np.int32(reach))
        cl.enqueue_nd_range_kernel(queue, scan, (1024,), (128,))
        try:
            queue.finish()
        except cl.Error as e:
            print("reach", reach, "error", e.code)
            continue
        out = np.empty_like(data)
        cl.enqueue_copy(queue, out, out_buf)
        want = np.concatenate([np.cumsum(g) for g in data.reshape(8, 128)])
        print("reach", reach, "ok", bool((out == want).all()))
    """
)


def test_a_scan_reads_shifted_local_indices_and_names_the_one_item_past_the_end():
    # `tmp[lid - offset]` under `lid >= offset`: the lanes that are off
    # would read before `tmp`; they are not tested. Shifted by two more,
    # the last item of each group reads one int past `tmp`: the groups run
    # on several threads, and the first to fault is named.
    done = subprocess.run(
        [sys.executable, "-c", SCAN], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "reach 0 ok True" in done.stdout, (done.stdout, done.stderr)
    assert "reach 2 error -5" in done.stdout, (done.stdout, done.stderr)
    for part in ["kernel `scan` stopped: out-of-bounds load of 4 bytes", "at line 9:"]:
        assert part in done.stderr, (part, done.stderr)
    item = re.search(r"by work-item \((\d+), 0, 0\)", done.stderr)
    assert item and int(item.group(1)) % 128 == 127, done.stderr


REDUCE = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void reduce(__global const float *in, __global float *partial,
                         __local float *scratch) {
        size_t lid = get_local_id(0);
        size_t n = get_local_size(0);
        scratch[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t s = n / 2; s > 0; s >>= 1) {
            if (lid < s)
                scratch[lid] += scratch[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            partial[get_group_id(0)] = scratch[0];
    }
    '''
    program = cl.Program(ctx, src).build(options="-cl-vecl-robust-access")
    reduce = cl.Kernel(program, "reduce")
    mf = cl.mem_flags
    data = (np.arange(2048) % 9).astype(np.float32)
    in_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    for local in [64, 256]:
        groups = 2048 // local
        for size in [4 * local, 4 * local - 4]:
            out_buf = cl.Buffer(ctx, mf.READ_WRITE, size=4 * groups)
            reduce.set_args(in_buf, out_buf, cl.LocalMemory(size))
            cl.enqueue_nd_range_kernel(queue, reduce, (2048,), (local,))
            try:
                queue.finish()
            except cl.Error as e:
                print("local", local, "size", size, "error", e.code)
                continue
            out = np.empty(groups, np.float32)
            cl.enqueue_copy(queue, out, out_buf)
            want = data.reshape(groups, local).sum(axis=1)
            print("local", local, "size", size, "ok", bool((out == want).all()))
    """
)


def test_a_tree_reduction_trusts_its_local_argument_and_names_the_item_past_a_short_one():
    # The `scratch` accesses are trusted for groups whose `__local`
    # argument holds a float per work-item; one float short, the launch
    # runs the code that tests every access, and the last item of a group
    # is named for its store past the end.
    done = subprocess.run(
        [sys.executable, "-c", REDUCE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for local in [64, 256]:
        assert f"local {local} size {4 * local} ok True" in done.stdout, (done.stdout, done.stderr)
        assert f"local {local} size {4 * local - 4} error -5" in done.stdout, (
            done.stdout,
            done.stderr,
        )
    reports = re.findall(r"kernel `reduce` stopped: out-of-bounds store of 4 bytes .*", done.stderr)
    assert len(reports) == 2, done.stderr
    for report, local in zip(reports, [64, 256]):
        item = re.search(r"by work-item \((\d+), 0, 0\) at line 6:", report)
        assert item and int(item.group(1)) % local == local - 1, report


BLACK_SCHOLES = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = open(BENCH).read()
    robust = cl.Program(ctx, src).build(options="-cl-vecl-robust-access")
    plain = cl.Program(ctx, src).build()
    mf = cl.mem_flags
    n = 1000
    rng = np.random.default_rng(7)
    spot = rng.uniform(5, 30, n).astype(np.float32)
    strike = rng.uniform(1, 100, n).astype(np.float32)
    years = rng.uniform(0.25, 10, n).astype(np.float32)

    def run(program, spot_len, items, local):
        k = cl.Kernel(program, "blackscholes")
        ins = [
            cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a[:spot_len] if i == 0 else a)
            for i, a in enumerate([spot, strike, years])
        ]
        outs = [cl.Buffer(ctx, mf.READ_WRITE, size=4 * n) for _ in range(2)]
        k.set_args(*ins, *outs, np.float32(0.02), np.float32(0.30))
        cl.enqueue_nd_range_kernel(queue, k, (items,), (local,))
        try:
            queue.finish()
        except cl.Error as e:
            return "error %d" % e.code
        got = [np.empty(n, np.float32) for _ in range(2)]
        for g, o in zip(got, outs):
            cl.enqueue_copy(queue, g, o)
        return got

    a = run(robust, n, n, 100)
    b = run(plain, n, n, 100)
    print("in bounds same", all((x.view(np.uint32) == y.view(np.uint32)).all() for x, y in zip(a, b)))
    print("short", run(robust, 20, 64, 64))
    """
)


def test_robust_black_scholes_matches_the_unchecked_code_and_names_the_first_item_past_a_short_input():
    # In bounds, the robust code runs two chunks in flight untested and
    # gives the unchecked code's bits; `spot` 20 floats long in a group of
    # 64: item 20, the first lane of the second chunk of the first pair,
    # is the one named.
    bench = __file__.rsplit("/tests/", 1)[0] + "/benches/blackscholes.cl"
    done = subprocess.run(
        [sys.executable, "-c", "BENCH = %r\n" % bench + BLACK_SCHOLES],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "in bounds same True" in done.stdout, (done.stdout, done.stderr)
    assert "short error -5" in done.stdout, (done.stdout, done.stderr)
    for part in [
        "kernel `blackscholes` stopped: out-of-bounds load of 4 bytes",
        "by work-item (20, 0, 0)",
        "at line 17:",
    ]:
        assert part in done.stderr, (part, done.stderr)

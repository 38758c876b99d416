"""VECL_WIDE=1 through the driver: kernels in the wide code generator's
subset (AVX-512, docs/wide.md) give the results they give
without it, over launches whose sizes are not multiples of 16; a kernel
that never ends is still stopped by VECL_KERNEL_TIMEOUT_MS; bytes past a
buffer stop a robust kernel with the report Cranelift's code gives."""

import os
import subprocess
import sys
import textwrap

from conftest import run_script

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void mandel(__global int *out, int width, int height, int max_iter) {
        int x = get_global_id(0);
        int y = get_global_id(1);
        float cr = -2.0f + 3.0f * x / width;
        float ci = -1.5f + 3.0f * y / height;
        float zr = 0.0f, zi = 0.0f;
        int i = 0;
        while (i < max_iter && zr * zr + zi * zi <= 4.0f) {
            float t = zr * zr - zi * zi + cr;
            zi = 2.0f * zr * zi + ci;
            zr = t;
            i++;
        }
        out[y * width + x] = i;
    }
    __kernel void saxpy(float a, __global const float *x, __global float *y) {
        size_t i = get_global_id(0);
        y[i] = a * x[i] + y[i];
    }
    '''
    program = cl.Program(ctx, src).build()
    w, h = 203, 37
    out = np.zeros(w * h, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    program.mandel(queue, (w, h), None, buf, np.int32(w), np.int32(h), np.int32(300))
    cl.enqueue_copy(queue, out, buf)
    n = 1001
    x = np.arange(n, dtype=np.float32) * 0.25
    y = np.arange(n, dtype=np.float32)[::-1].copy()
    xb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    yb = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=y)
    program.saxpy(queue, (n,), None, np.float32(1.5), xb, yb)
    got = np.empty(n, np.float32)
    cl.enqueue_copy(queue, got, yb)
    queue.finish()
    # The front end contracts a * x + y into one fma: compared between the
    # two runs, not against numpy's rounding.
    print("saxpy", got.tobytes().hex())
    print("mandel", int(out.sum()), int(out.max()), int(out[w * h - 1]))
    """
)


def run(extra):
    return run_script(SCRIPT, extra)


def test_wide_code_gives_the_same_results():
    plain = run({"VECL_WIDE": "0"})
    wide = run({"VECL_WIDE": "1"})
    assert "saxpy " in wide and "mandel " in wide, wide
    assert wide == plain


SPIN = textwrap.dedent(
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
    '''
    program = cl.Program(ctx, src).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=np.zeros(40, np.int32))
    program.spin(queue, (40,), None, buf)
    try:
        queue.finish()
        print("finished?")
    except cl.Error as e:
        print("error", e.code)
    """
)


def test_an_endless_wide_kernel_is_stopped():
    out = run_script(SPIN, {"VECL_WIDE": "1", "VECL_KERNEL_TIMEOUT_MS": "200"}, timeout=120)
    # CL_OUT_OF_RESOURCES is -5.
    assert "error -5" in out, out


ROWS = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void rows(__global const float *a, __global const float *x,
                       __global float *y, int n, int m) {
        int i = get_global_id(0);
        if (i < m) {
            float s = 0.0f;
            for (int j = 0; j < n; j++) s += a[i * n + j] * x[j];
            y[i] = s;
        }
    }
    '''
    program = cl.Program(ctx, src).build()
    rng = np.random.default_rng(5)
    # Rows 40 bytes apart (chunks in flight) and 2 KiB and 4.4 KiB apart
    # (one chunk at a time, chosen at the call from n).
    for n, m in [(10, 300), (512, 77), (1100, 133)]:
        a = rng.random(n * m, dtype=np.float32)
        x = rng.random(n, dtype=np.float32)
        ab = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
        xb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
        yb = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4 * m)
        program.rows(queue, (m,), None, ab, xb, yb, np.int32(n), np.int32(m))
        y = np.empty(m, np.float32)
        cl.enqueue_copy(queue, y, yb)
        want = a.reshape(m, n).astype(np.float64) @ x.astype(np.float64)
        assert np.allclose(y, want, rtol=1e-4), (n, m)
        print(n, m, y.tobytes().hex())
    """
)


def test_rows_far_apart_give_the_same_results():
    plain = run_script(ROWS, {"VECL_WIDE": "0"})
    wide = run_script(ROWS, {"VECL_WIDE": "1"})
    assert wide.count("\n") == 3, wide
    assert wide == plain


BFS = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void step(__global const int *start, __global const int *edges,
                       __global char *mask, __global char *updating,
                       __global const char *visited, __global int *cost, int n) {
        int tid = get_global_id(0);
        if (tid < n && mask[tid]) {
            mask[tid] = 0;
            for (int i = start[tid]; i < start[tid] + 4; i++) {
                int id = edges[i];
                if (!visited[id]) { cost[id] = cost[tid] + 1; updating[id] = 1; }
            }
        }
    }
    __kernel void levels(__global const uchar *in, __global uchar *out,
                         __global const char *lut, int n) {
        int i = get_global_id(0);
        if (i < n) out[i] = (uchar)(in[i] / 2 + lut[in[i] & 15] + lut[3]);
    }
    '''
    program = cl.Program(ctx, src).build()
    rng = np.random.default_rng(9)
    mf = cl.mem_flags
    # A frontier of about a third of 10,001 vertices (a ragged last chunk),
    # four edges each.
    n = 10001
    start = (np.arange(n) * 4).astype(np.int32)
    edges = rng.integers(0, n, 4 * n).astype(np.int32)
    mask = (rng.random(n) < 0.3).astype(np.int8)
    # The frontier visited (as BFS keeps it), its costs equal: a vertex
    # written is never read, and every writer writes the same value.
    visited = ((rng.random(n) < 0.5) | (mask == 1)).astype(np.int8)
    cost = np.where(mask == 1, 5, rng.integers(0, 100, n)).astype(np.int32)
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=h)
            for h in (start, edges, mask, np.zeros(n, np.int8), visited, cost)]
    program.step(queue, (n,), None, *bufs, np.int32(n))
    got = [np.empty_like(h) for h in (mask, visited, cost)]
    cl.enqueue_copy(queue, got[0], bufs[2])
    updating = np.empty(n, np.int8)
    cl.enqueue_copy(queue, updating, bufs[3])
    cl.enqueue_copy(queue, got[2], bufs[5])
    want_upd = np.zeros(n, np.int8)
    want_cost = cost.copy()
    for t in np.nonzero(mask)[0]:
        for e in edges[4 * t: 4 * t + 4]:
            if not visited[e]:
                want_cost[e] = cost[t] + 1
                want_upd[e] = 1
    assert not got[0].any()
    assert (updating == want_upd).all()
    assert (got[2] == want_cost).all()
    print(updating.tobytes().hex(), got[2].tobytes().hex())
    # Every byte value, 4093 of them (not a whole number of words).
    m = 4093
    levels = (np.arange(m) * 7 % 256).astype(np.uint8)
    lut = (np.arange(16) * 9 - 70).astype(np.int8)
    ib = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=levels)
    lb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=lut)
    ob = cl.Buffer(ctx, mf.WRITE_ONLY, m)
    program.levels(queue, (m,), None, ib, ob, lb, np.int32(m))
    out = np.empty(m, np.uint8)
    cl.enqueue_copy(queue, out, ob)
    want = (levels.astype(np.int32) // 2 + lut[levels & 15] + lut[3]) & 255
    assert (out == want.astype(np.uint8)).all()
    print(out.tobytes().hex())
    """
)


def test_byte_buffers_give_the_same_results():
    plain = run_script(BFS, {"VECL_WIDE": "0"})
    wide = run_script(BFS, {"VECL_WIDE": "1"})
    assert wide.count("\n") == 2, wide
    assert wide == plain


BYTE_FAULTS = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    __kernel void load(__global const uchar *a, __global int *out) {
        int i = get_global_id(0);
        out[i] = a[i] + 1;
    }
    __kernel void store(__global const int *a, __global char *out) {
        int i = get_global_id(0);
        out[i] = (char)a[i];
    }
    '''
    program = cl.Program(ctx, src).build(options="-cl-vecl-robust-access")
    mf = cl.mem_flags
    # 37 bytes: not a whole number of 4-byte words.
    short = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR,
                      hostbuf=np.arange(37, dtype=np.uint8))
    ints = cl.Buffer(ctx, mf.READ_WRITE, 4 * 64)
    for name, args in (("load", (short, ints)), ("store", (ints, short))):
        try:
            getattr(program, name)(queue, (64,), None, *args).wait()
            print(name, "ran")
        except cl.Error:
            print(name, "stopped")
    """
)


def test_bytes_past_a_buffer_stop_the_kernel_with_the_report():
    # Robust access (a build option): a byte load and a byte store past the
    # end of a 37-byte buffer stop the kernel with the same report on the
    # wide code and on Cranelift's.
    for wide in ("1", "0"):
        done = subprocess.run(
            [sys.executable, "-c", BYTE_FAULTS],
            env=dict(os.environ, VECL_WIDE=wide),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == "load stopped\nstore stopped\n", done.stdout
        for kind, arg in (("load", 0), ("store", 1)):
            assert f"out-of-bounds {kind} of 1 bytes at" in done.stderr, done.stderr
            assert (
                f"by work-item (37, 0, 0) at line {4 if kind == 'load' else 8}:"
                in done.stderr
            ), done.stderr
            assert (
                f"1 bytes past the end of argument {arg}, a buffer of 37 bytes"
                in done.stderr
            ), done.stderr


DOUBLES = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void daxpy(__global const double *x, __global double *y, double a) {
        int i = get_global_id(0);
        y[i] = a * exp(x[i]) + sqrt(y[i]);
    }
    __kernel void mix(__global const double *x, __global const double *y,
                      __global double *o, __global int *n, __global float *f) {
        int i = get_global_id(0);
        double u = x[i], v = y[i];
        o[3 * i] = (u + v) / v - u;
        o[3 * i + 1] = u < v ? log(fabs(u) + 1.0) : log10(fabs(v) + 2.0);
        o[3 * i + 2] = fmax(floor(u * 8.0), v) + exp2(-u);
        n[i] = (int)(u * 1000.0);
        f[i] = (float)(u + v);
    }
    '''
    program = cl.Program(ctx, src).build()
    rng = np.random.default_rng(4)
    mf = cl.mem_flags
    # 10,001 items: a ragged last chunk.
    m = 10001
    x = rng.standard_normal(m) * 4.0
    y = rng.random(m) * 3.0 + 0.25
    xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    yb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    ob = cl.Buffer(ctx, mf.WRITE_ONLY, 8 * 3 * m)
    nb = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * m)
    fb = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * m)
    program.mix(queue, (m,), None, xb, yb, ob, nb, fb)
    o = np.empty(3 * m)
    n = np.empty(m, np.int32)
    f = np.empty(m, np.float32)
    cl.enqueue_copy(queue, o, ob)
    cl.enqueue_copy(queue, n, nb)
    cl.enqueue_copy(queue, f, fb)
    # Exact operations bit for bit, the logarithms and exp2 closely.
    assert (o[0::3] == (x + y) / y - x).all()
    assert (n == (x * 1000.0).astype(np.int32)).all()
    assert (f == (x + y).astype(np.float32)).all()
    want = np.where(x < y, np.log(np.abs(x) + 1.0), np.log10(np.abs(y) + 2.0))
    assert np.allclose(o[1::3], want, rtol=1e-15, atol=0)
    want = np.maximum(np.floor(x * 8.0), y) + np.exp2(-x)
    assert np.allclose(o[2::3], want, rtol=1e-15, atol=0)
    program.daxpy(queue, (m,), None, xb, yb, np.float64(0.5))
    out = np.empty(m)
    cl.enqueue_copy(queue, out, yb)
    assert np.allclose(out, 0.5 * np.exp(x) + np.sqrt(y), rtol=1e-15, atol=0)
    print(o.tobytes().hex())
    print(out.tobytes().hex())
    """
)


def test_double_buffers_give_the_same_results():
    # `double` values on the wide code (two zmm halves of eight doubles),
    # bit for bit against Cranelift's code and close to NumPy's.
    plain = run_script(DOUBLES, {"VECL_WIDE": "0"})
    wide = run_script(DOUBLES, {"VECL_WIDE": "1"})
    assert wide.count("\n") == 2, wide
    assert wide == plain


LOCAL_TREES = textwrap.dedent(
    """
    import numpy as np
    import pyopencl as cl

    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    src = '''
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void ddot(__global const double *x, __global const double *y,
                       __global double *partial, __local double *t, int n) {
        int lid = get_local_id(0);
        double acc = 0.0;
        for (int i = get_global_id(0); i < n; i += get_global_size(0))
            acc = fma(x[i], y[i], acc);
        t[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (lid < s) t[lid] += t[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) partial[get_group_id(0)] = t[0];
    }
    __kernel void fsum(__global const float *x, __global float *partial, int n) {
        __local float t[128];
        int lid = get_local_id(0);
        float acc = 0.0f;
        for (int i = get_global_id(0); i < n; i += get_global_size(0))
            acc += x[i];
        t[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (lid < s) t[lid] += t[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) partial[get_group_id(0)] = t[0];
    }
    '''
    program = cl.Program(ctx, src).build()
    rng = np.random.default_rng(9)
    mf = cl.mem_flags
    n = 100003
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    yb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=y)
    ddot = program.ddot
    for groups, local in [(64, 256), (40, 64), (24, 32)]:
        pb = cl.Buffer(ctx, mf.WRITE_ONLY, 8 * groups)
        ddot(queue, (groups * local,), (local,), xb, yb, pb,
                     cl.LocalMemory(8 * local), np.int32(n))
        p = np.empty(groups)
        cl.enqueue_copy(queue, p, pb)
        assert abs(p.sum() - x.dot(y)) < 1e-9 * np.abs(x * y).sum()
        print(p.tobytes().hex())
    xf = x.astype(np.float32)
    fb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=xf)
    pb = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * 32)
    program.fsum(queue, (32 * 128,), (128,), fb, pb, np.int32(n))
    p = np.empty(32, np.float32)
    cl.enqueue_copy(queue, p, pb)
    assert abs(float(p.sum()) - float(xf.sum(dtype=np.float64))) < 1e-3
    print(p.tobytes().hex())
    """
)


def test_trees_in_local_memory_give_the_same_results():
    # A grid-stride loop then a tree in `__local` memory (`double` and
    # `float`): the wide code skips the tree's later chunks; bit for bit
    # against Cranelift's code, close to NumPy's sums.
    plain = run_script(LOCAL_TREES, {"VECL_WIDE": "0"})
    wide = run_script(LOCAL_TREES, {"VECL_WIDE": "1"})
    assert wide.count("\n") == 4, wide
    assert wide == plain

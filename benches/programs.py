"""Kernels of the kinds whole applications are made of, on every OpenCL
platform the ICD loader offers, in one run: an image box filter and a Sobel
filter (texel reads), a radix-2 FFT with `__local` transposes, a
cyclic-reduction tridiagonal solver (one system per work-group, a barrier
per level), and a 2-D FDTD step launched many times in one in-order queue.

    OCL_ICD_VENDORS=DIR python3 benches/programs.py [--runs R] [--only NAME]

where DIR holds the `.icd` files of the platforms to compare (vecl's from
`scripts/install-icd.sh`, PoCL's, Intel's). Each program's output is checked
against NumPy before it is timed (a fast wrong answer is reported as an
error, not a time); the time is the wall-clock median of R runs of the
whole program (every launch of it, enqueue to `finish`), and the last
columns are each platform's time over vecl's.
"""

import argparse
import statistics
import time

import numpy as np
import pyopencl as cl

mf = cl.mem_flags

SOURCE = r"""
kernel void box3(read_only image2d_t src, sampler_t s, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            acc += read_imagef(src, s, (int2)(x + dx, y + dy)).x;
    out[y * get_global_size(0) + x] = acc / 9.0f;
}

kernel void sobel(read_only image2d_t src, sampler_t s, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float p[3][3];
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            p[dy + 1][dx + 1] = read_imagef(src, s, (int2)(x + dx, y + dy)).x;
    float gx = (p[0][2] + 2.0f * p[1][2] + p[2][2]) - (p[0][0] + 2.0f * p[1][0] + p[2][0]);
    float gy = (p[2][0] + 2.0f * p[2][1] + p[2][2]) - (p[0][0] + 2.0f * p[0][1] + p[0][2]);
    out[y * get_global_size(0) + x] = sqrt(gx * gx + gy * gy);
}

/* One FFT of N = 2 * get_local_size(0) points per work-group (Stockham,
   radix 2): each round, every work-item combines one butterfly, reading
   and writing __local arrays it swaps with its neighbours' results. */
kernel void fft(global const float2 *in, global float2 *out, local float2 *a, local float2 *b) {
    int t = get_local_id(0), h = get_local_size(0), n = 2 * h;
    global const float2 *src = in + get_group_id(0) * n;
    a[t] = src[t];
    a[t + h] = src[t + h];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int span = 1; span < n; span *= 2) {
        int k = t % span;
        float ang = -3.14159265358979f * (float)k / (float)span;
        float c, s = sincos(ang, &c);
        float2 u = a[t], v = a[t + h];
        float2 w = (float2)(v.x * c - v.y * s, v.x * s + v.y * c);
        int j = (t - k) * 2 + k;
        b[j] = u + w;
        b[j + span] = u - w;
        barrier(CLK_LOCAL_MEM_FENCE);
        local float2 *tmp = a; a = b; b = tmp;
    }
    global float2 *dst = out + get_group_id(0) * n;
    dst[t] = a[t];
    dst[t + h] = a[t + h];
}

/* Cyclic reduction for one tridiagonal system of N = get_local_size(0)
   unknowns per work-group: a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i. */
kernel void tridiag(global const float *ga, global const float *gb, global const float *gc,
                    global const float *gd, global float *gx,
                    local float *a, local float *b, local float *c, local float *d, local float *x) {
    int i = get_local_id(0), n = get_local_size(0);
    int base = get_group_id(0) * n;
    a[i] = ga[base + i]; b[i] = gb[base + i]; c[i] = gc[base + i]; d[i] = gd[base + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    int stride = 1;
    for (; stride < n / 2; stride *= 2) {
        int r = 2 * stride * i + 2 * stride - 1;
        float na = 0, nb = 0, nc = 0, nd = 0;
        bool on = r < n;
        if (on) {
            int lo = r - stride, hi = r + stride;
            float k1 = a[r] / b[lo];
            float k2 = hi < n ? c[r] / b[hi] : 0.0f;
            na = -a[lo] * k1;
            nb = b[r] - c[lo] * k1 - (hi < n ? a[hi] * k2 : 0.0f);
            nc = hi < n ? -c[hi] * k2 : 0.0f;
            nd = d[r] - d[lo] * k1 - (hi < n ? d[hi] * k2 : 0.0f);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (on) { a[r] = na; b[r] = nb; c[r] = nc; d[r] = nd; }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i == 0) {
        int p = stride - 1, q = 2 * stride - 1;
        float det = b[p] * b[q] - c[p] * a[q];
        x[p] = (d[p] * b[q] - c[p] * d[q]) / det;
        x[q] = (b[p] * d[q] - d[p] * a[q]) / det;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (stride /= 2; stride >= 1; stride /= 2) {
        int r = 2 * stride * i + stride - 1;
        if (r < n) {
            int lo = r - stride, hi = r + stride;
            float xl = lo >= 0 ? x[lo] : 0.0f;
            x[r] = (d[r] - a[r] * xl - c[r] * x[hi]) / b[r];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    gx[base + i] = x[i];
}

kernel void fdtd_h(global float *hx, global float *hy, global const float *ez, int nx, int ny) {
    int i = get_global_id(0), j = get_global_id(1);
    int k = j * nx + i;
    if (j < ny - 1) hx[k] -= 0.5f * (ez[k + nx] - ez[k]);
    if (i < nx - 1) hy[k] += 0.5f * (ez[k + 1] - ez[k]);
}

kernel void fdtd_e(global float *ez, global const float *hx, global const float *hy, int nx, int ny, int t) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i < 1 || j < 1) return;
    int k = j * nx + i;
    ez[k] += 0.5f * ((hy[k] - hy[k - 1]) - (hx[k] - hx[k - nx]));
    if (i == nx / 2 && j == ny / 2) ez[k] += sin(0.1f * (float)t);
}
"""


def timed(queue, run, runs):
    """Median wall-clock seconds of `runs` calls of `run` (after one warm-up)."""
    run()
    queue.finish()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        queue.finish()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def filters(ctx, queue, prg, name, size=2048):
    rng = np.random.default_rng(1)
    img = rng.random((size, size), dtype=np.float32)
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    src = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(size, size), hostbuf=img)
    out = cl.Buffer(ctx, mf.WRITE_ONLY, img.nbytes)
    smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    kernel = cl.Kernel(prg, name)

    def run():
        kernel(queue, (size, size), None, src, smp, out)

    run()
    got = np.empty_like(img)
    cl.enqueue_copy(queue, got, out)
    p = np.pad(img, 1, mode="edge")
    win = [[p[1 + dy : 1 + dy + size, 1 + dx : 1 + dx + size] for dx in (-1, 0, 1)] for dy in (-1, 0, 1)]
    if name == "box3":
        want = sum(w for row in win for w in row) / np.float32(9)
    else:
        gx = (win[0][2] + 2 * win[1][2] + win[2][2]) - (win[0][0] + 2 * win[1][0] + win[2][0])
        gy = (win[2][0] + 2 * win[2][1] + win[2][2]) - (win[0][0] + 2 * win[0][1] + win[0][2])
        want = np.sqrt(gx * gx + gy * gy)
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        raise AssertionError(f"{name}: largest error {np.abs(got - want).max()}")
    return run, f"{size}x{size} R/FLOAT"


def fft(ctx, queue, prg, n=1024, count=4096):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((count, n)) + 1j * rng.standard_normal((count, n))).astype(np.complex64)
    src = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    dst = cl.Buffer(ctx, mf.WRITE_ONLY, x.nbytes)
    la, lb = cl.LocalMemory(8 * n), cl.LocalMemory(8 * n)
    kernel = cl.Kernel(prg, "fft")

    def run():
        kernel(queue, (count * n // 2,), (n // 2,), src, dst, la, lb)

    run()
    got = np.empty_like(x)
    cl.enqueue_copy(queue, got, dst)
    want = np.fft.fft(x.astype(np.complex128), axis=1)
    err = np.abs(got - want).max() / np.abs(want).max()
    if err > 1e-4:
        raise AssertionError(f"fft: relative error {err}")
    return run, f"{count} x {n}-point complex"


def tridiag(ctx, queue, prg, n=256, count=8192):
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (count, n)).astype(np.float32)
    c = rng.uniform(-1, 1, (count, n)).astype(np.float32)
    b = (np.abs(a) + np.abs(c) + rng.uniform(1, 2, (count, n))).astype(np.float32)
    d = rng.uniform(-1, 1, (count, n)).astype(np.float32)
    a[:, 0] = 0
    c[:, -1] = 0
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=v) for v in (a, b, c, d)]
    out = cl.Buffer(ctx, mf.WRITE_ONLY, d.nbytes)
    locs = [cl.LocalMemory(4 * n) for _ in range(5)]
    kernel = cl.Kernel(prg, "tridiag")

    def run():
        kernel(queue, (count * n,), (n,), *bufs, out, *locs)

    run()
    got = np.empty_like(d)
    cl.enqueue_copy(queue, got, out)
    resid = b * got - d
    resid[:, 1:] += a[:, 1:] * got[:, :-1]
    resid[:, :-1] += c[:, :-1] * got[:, 1:]
    if np.abs(resid).max() > 1e-3:
        raise AssertionError(f"tridiag: residual {np.abs(resid).max()}")
    return run, f"{count} systems of {n}"


def fdtd(ctx, queue, prg, n=256, steps=1000):
    zero = np.zeros(n * n, np.float32)
    ez, hx, hy = (cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=zero) for _ in range(3))
    kh, ke = cl.Kernel(prg, "fdtd_h"), cl.Kernel(prg, "fdtd_e")
    kh.set_args(hx, hy, ez, np.int32(n), np.int32(n))

    def run():
        for t in range(steps):
            cl.enqueue_nd_range_kernel(queue, kh, (n, n), None)
            ke.set_args(ez, hx, hy, np.int32(n), np.int32(n), np.int32(t))
            cl.enqueue_nd_range_kernel(queue, ke, (n, n), None)

    # The reference: the same steps in NumPy from zero fields.
    for buf in (ez, hx, hy):
        cl.enqueue_copy(queue, buf, zero)
    run()
    got = np.empty_like(zero)
    cl.enqueue_copy(queue, got, ez)
    e, h1, h2 = (np.zeros((n, n), np.float32) for _ in range(3))
    for t in range(steps):
        h1[:-1, :] -= np.float32(0.5) * (e[1:, :] - e[:-1, :])
        h2[:, :-1] += np.float32(0.5) * (e[:, 1:] - e[:, :-1])
        e[1:, 1:] += np.float32(0.5) * ((h2[1:, 1:] - h2[1:, :-1]) - (h1[1:, 1:] - h1[:-1, 1:]))
        e[n // 2, n // 2] += np.float32(np.sin(np.float32(0.1) * np.float32(t)))
    if not np.allclose(got.reshape(n, n), e, rtol=1e-3, atol=1e-3):
        raise AssertionError(f"fdtd: largest error {np.abs(got.reshape(n, n) - e).max()}")
    return run, f"{n}x{n}, {steps} steps (2 launches each)"


PROGRAMS = {
    "box filter": lambda ctx, q, p: filters(ctx, q, p, "box3"),
    "sobel filter": lambda ctx, q, p: filters(ctx, q, p, "sobel"),
    "fft": fft,
    "tridiagonal": tridiag,
    "fdtd": fdtd,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    platforms = []
    for platform in cl.get_platforms():
        devices = platform.get_devices(device_type=cl.device_type.CPU)
        if devices:
            ctx = cl.Context(devices[:1])
            queue = cl.CommandQueue(ctx)
            prg = cl.Program(ctx, SOURCE).build()
            platforms.append((platform.name.split()[0], ctx, queue, prg))
    platforms.sort(key=lambda p: p[0] != "vecl")
    names = [p[0] for p in platforms]
    print(f"{'program':14} {'size':34} " + " ".join(f"{n:>12}" for n in names)
          + "".join(f" {n + '/vecl':>12}" for n in names[1:]))
    for name, make in PROGRAMS.items():
        if args.only not in name:
            continue
        times, size = [], ""
        for _, ctx, queue, prg in platforms:
            try:
                run, size = make(ctx, queue, prg)
                times.append(timed(queue, run, args.runs))
            except Exception as e:  # noqa: BLE001 - reported per platform
                print(f"  {name}: {e}")
                times.append(None)
        cells = " ".join(f"{t * 1e3:10.2f}ms" if t else f"{'error':>12}" for t in times)
        ratios = "".join(
            f" {t / times[0]:11.2f}x" if t and times[0] else f" {'-':>12}" for t in times[1:]
        )
        print(f"{name:14} {size:34} {cells}{ratios}")


if __name__ == "__main__":
    main()

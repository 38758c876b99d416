"""Image reads and writes on every OpenCL platform the ICD loader offers, in
one run: nanoseconds per work-item (one texel access each) of small kernels
over a 2048 x 2048 image, the median of several launches timed by profiling
events.

    OCL_ICD_VENDORS=DIR python3 benches/images.py [--size N] [--runs R]

where DIR holds `vecl.icd` and `pocl.icd` (files whose content is the path of
each library). Every kernel's output is checked against NumPy before it is
timed, so a fast wrong answer is reported as an error, not a time.
"""

import argparse
import statistics

import numpy as np
import pyopencl as cl

mf = cl.mem_flags

SOURCE = r"""
kernel void read_r_float(read_only image2d_t img, sampler_t s, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 v = read_imagef(img, s, (int2)(x, y));
    out[y * get_global_size(0) + x] = v.x + v.w;
}

kernel void read_r_float_nosampler(read_only image2d_t img, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 v = read_imagef(img, (int2)(x, y));
    out[y * get_global_size(0) + x] = v.x + v.w;
}

kernel void read_r_float_fcoord(read_only image2d_t img, sampler_t s, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 v = read_imagef(img, s, (float2)(x + 0.5f, y + 0.5f));
    out[y * get_global_size(0) + x] = v.x + v.w;
}

kernel void read_rgba_unorm8(read_only image2d_t img, sampler_t s, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 v = read_imagef(img, s, (int2)(x, y));
    out[y * get_global_size(0) + x] = v.x + v.y + v.z + v.w;
}

kernel void copy_rgba_unorm8(read_only image2d_t src, write_only image2d_t dst, sampler_t s) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(dst, (int2)(x, y), read_imagef(src, s, (int2)(x, y)));
}

kernel void write_r_float(write_only image2d_t img, global const float *in) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(img, (int2)(x, y), (float4)(in[y * get_global_size(0) + x], 0, 0, 1));
}

kernel void copy_buffer(global const float *in, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int i = y * get_global_size(0) + x;
    out[i] = in[i] + 1.0f;
}
"""


def timed(queue, kernel, n, args, runs):
    """Median nanoseconds per work-item of `runs` launches over n x n."""
    kernel.set_args(*args)
    cl.enqueue_nd_range_kernel(queue, kernel, (n, n), None).wait()
    times = []
    for _ in range(runs):
        ev = cl.enqueue_nd_range_kernel(queue, kernel, (n, n), None)
        ev.wait()
        times.append(ev.profile.end - ev.profile.start)
    return statistics.median(times) / (n * n)


def bench(platform, n, runs):
    device = platform.get_devices()[0]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    prg = cl.Program(ctx, SOURCE).build()
    rng = np.random.default_rng(7)
    r_float = rng.standard_normal((n, n), dtype=np.float32)
    rgba8 = rng.integers(0, 256, (n, n, 4), dtype=np.uint8)
    fmt_rf = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    fmt_u8 = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
    img_rf = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt_rf, shape=(n, n), hostbuf=r_float)
    img_u8 = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt_u8, shape=(n, n), hostbuf=rgba8)
    dst_u8 = cl.create_image(ctx, mf.WRITE_ONLY, fmt_u8, shape=(n, n))
    dst_rf = cl.create_image(ctx, mf.WRITE_ONLY, fmt_rf, shape=(n, n))
    inbuf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=r_float)
    out = cl.Buffer(ctx, mf.READ_WRITE, n * n * 4)
    smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    host = np.empty((n, n), np.float32)
    unorm = rgba8.astype(np.float32) / np.float32(255)

    def check_out(expect, name):
        cl.enqueue_copy(queue, host, out).wait()
        if not np.allclose(host, expect, rtol=1e-6, atol=1e-6):
            raise SystemExit(f"{platform.name} {name}: wrong result")

    rows = []
    cases = [
        ("read_imagef R/FLOAT, sampler", prg.read_r_float, (img_rf, smp, out), r_float + 1),
        ("read_imagef R/FLOAT, no sampler", prg.read_r_float_nosampler, (img_rf, out), r_float + 1),
        ("read_imagef R/FLOAT, float coords", prg.read_r_float_fcoord, (img_rf, smp, out), r_float + 1),
        ("read_imagef RGBA/UNORM_INT8", prg.read_rgba_unorm8, (img_u8, smp, out), unorm.sum(axis=2)),
        ("copy_buffer (no image)", prg.copy_buffer, (inbuf, out), r_float + 1),
    ]
    for name, kernel, args, expect in cases:
        kernel.set_args(*args)
        cl.enqueue_nd_range_kernel(queue, kernel, (n, n), None).wait()
        check_out(expect, name)
        rows.append((name, timed(queue, kernel, n, args, runs)))
    # Writes: checked by reading the image back.
    k = prg.copy_rgba_unorm8
    k.set_args(img_u8, dst_u8, smp)
    cl.enqueue_nd_range_kernel(queue, k, (n, n), None).wait()
    back = np.empty_like(rgba8)
    cl.enqueue_copy(queue, back, dst_u8, origin=(0, 0), region=(n, n)).wait()
    if not np.array_equal(back, rgba8):
        raise SystemExit(f"{platform.name} copy RGBA/UNORM_INT8: wrong result")
    rows.append(("read+write_imagef RGBA/UNORM_INT8", timed(queue, k, n, (img_u8, dst_u8, smp), runs)))
    k = prg.write_r_float
    k.set_args(dst_rf, inbuf)
    cl.enqueue_nd_range_kernel(queue, k, (n, n), None).wait()
    back = np.empty_like(r_float)
    cl.enqueue_copy(queue, back, dst_rf, origin=(0, 0), region=(n, n)).wait()
    if not np.array_equal(back, r_float):
        raise SystemExit(f"{platform.name} write_imagef R/FLOAT: wrong result")
    rows.append(("write_imagef R/FLOAT", timed(queue, k, n, (dst_rf, inbuf), runs)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    results = {p.name: bench(p, a.size, a.runs) for p in cl.get_platforms()}
    names = list(results)
    print(f"{a.size} x {a.size}, ns per work-item (median of {a.runs} launches)")
    print(f"{'kernel':40}" + "".join(f"{p:>22}" for p in names))
    for i, (row, _) in enumerate(results[names[0]]):
        print(f"{row:40}" + "".join(f"{results[p][i][1]:22.2f}" for p in names))


if __name__ == "__main__":
    main()

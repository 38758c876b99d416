"""The cost of a kernel launch, on every OpenCL platform the ICD loader
offers, in one run: loops of many launches into one in-order queue, with
`finish` at the end, timed whole.

    OCL_ICD_VENDORS=DIR python3 benches/launch.py [--runs R] [--launches N] [--only NAME]

Rows:

- `empty, N items`: a kernel that stores one word per work-item, over
  64 and 4096 work-items: the launch path alone (enqueue, the event, the
  queue's hand-off, waking the threads and joining them).
- `fdtd step 256x256`: `benches/programs.py`'s FDTD, two launches a step
  with a scalar argument set between them, as an application loop does.

Each cell is the median over R runs of (wall time, process CPU time) per
launch in µs; CPU time counts every thread of the process, so a runtime
that spins while it waits shows it there. Outputs are checked once.
"""

import argparse
import resource
import statistics
import time

import numpy as np
import pyopencl as cl

mf = cl.mem_flags

SOURCE = r"""
kernel void stamp(global int *out) {
    out[get_global_id(0)] = (int)get_global_id(0);
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


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def empty(items):
    def make(ctx, queue, prg, launches):
        out = cl.Buffer(ctx, mf.READ_WRITE, 4 * items)
        k = cl.Kernel(prg, "stamp")
        k.set_args(out)

        def run(keep=out):  # the buffer lives as long as the loop
            for _ in range(launches):
                cl.enqueue_nd_range_kernel(queue, k, (items,), None)

        run()
        queue.finish()
        got = np.empty(items, np.int32)
        cl.enqueue_copy(queue, got, out)
        if not np.array_equal(got, np.arange(items, dtype=np.int32)):
            raise AssertionError("stamp: wrong output")
        return run, launches

    return make


def fdtd(ctx, queue, prg, launches, n=256):
    zero = np.zeros(n * n, np.float32)
    ez, hx, hy = (cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=zero) for _ in range(3))
    kh, ke = cl.Kernel(prg, "fdtd_h"), cl.Kernel(prg, "fdtd_e")
    kh.set_args(hx, hy, ez, np.int32(n), np.int32(n))
    steps = launches // 2

    def run(keep=(ez, hx, hy)):  # the buffers live as long as the loop
        for t in range(steps):
            cl.enqueue_nd_range_kernel(queue, kh, (n, n), None)
            ke.set_args(ez, hx, hy, np.int32(n), np.int32(n), np.int32(t))
            cl.enqueue_nd_range_kernel(queue, ke, (n, n), None)

    run()
    queue.finish()
    got = np.empty_like(zero)
    cl.enqueue_copy(queue, got, ez)
    if not np.isfinite(got).all() or not got.any():
        raise AssertionError("fdtd: no field")
    return run, 2 * steps


ROWS = {
    "empty, 64 items": empty(64),
    "empty, 4096 items": empty(4096),
    "fdtd step 256x256": fdtd,
}


def timed(queue, run, count, runs):
    """Median (wall, CPU) µs per launch over `runs` runs of `run`."""
    walls, cpus = [], []
    for _ in range(runs):
        queue.finish()
        w0, c0 = time.perf_counter(), cpu_seconds()
        run()
        queue.finish()
        walls.append((time.perf_counter() - w0) / count * 1e6)
        cpus.append((cpu_seconds() - c0) / count * 1e6)
    return statistics.median(walls), statistics.median(cpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--launches", type=int, default=2000)
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
    print("µs per launch, wall / CPU (median of %d runs of %d launches)" % (args.runs, args.launches))
    print(f"{'row':20} " + " ".join(f"{n:>16}" for n in names))
    for name, make in ROWS.items():
        if args.only not in name:
            continue
        cells = []
        for _, ctx, queue, prg in platforms:
            try:
                run, count = make(ctx, queue, prg, args.launches)
                wall, cpu = timed(queue, run, count, args.runs)
                cells.append(f"{wall:7.1f} /{cpu:7.1f}")
            except Exception as e:  # noqa: BLE001 - reported per platform
                print(f"  {name}: {e}")
                cells.append(f"{'error':>16}")
        print(f"{name:20} " + " ".join(f"{c:>16}" for c in cells))


if __name__ == "__main__":
    main()

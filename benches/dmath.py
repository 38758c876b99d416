"""CPU time per launch of `double` math kernels over 4M doubles, on several
OpenCL drivers in one run.

    python3 benches/dmath.py NAME=ICD_FILE ... [--runs R] [--launches L]

Each driver runs in its own process with `OCL_ICD_VENDORS` set to its
`.icd` file (so two builds of vecl can be compared); the rounds alternate
between the drivers. A kernel's result is checked against NumPy first (a
fast wrong answer is an error, not a time). The time is the process's CPU
time (all threads) over L launches and a `finish`, per launch; the table
gives the median of R rounds, and each driver's time over the first's.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

N = 4 << 20

KERNELS = {
    "exp": ("y[i] = exp(x[i]);", (-20.0, 20.0)),
    "log": ("y[i] = log(x[i]);", (1e-3, 1e3)),
    "sin": ("y[i] = sin(x[i]);", (-100.0, 100.0)),
    "cos": ("y[i] = cos(x[i]);", (-100.0, 100.0)),
    "exp_sqrt": ("y[i] = a * exp(x[i]) + sqrt(y[i]);", (-20.0, 20.0)),
    "sqrt": ("y[i] = a * x[i] + sqrt(y[i]);", (-20.0, 20.0)),
    # The same memory traffic with no math: the floor of the others.
    "scale": ("y[i] = a * x[i];", (-20.0, 20.0)),
}


def child(names, launches, runs):
    import numpy as np
    import pyopencl as cl

    plat = cl.get_platforms()[0]
    dev = plat.get_devices()[0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    rng = np.random.default_rng(7)
    out = {}
    for name in names:
        body, (lo, hi) = KERNELS[name]
        src = (
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "kernel void k(global const double *x, global double *y, double a) {"
            f" size_t i = get_global_id(0); {body} }}"
        )
        k = cl.Program(ctx, src).build().k
        x = rng.uniform(lo, hi, N)
        y0 = rng.uniform(0.0, 4.0, N)
        xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
        yb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y0)
        k.set_args(xb, yb, np.float64(1.5))
        cl.enqueue_nd_range_kernel(q, k, (N,), None)
        y = np.empty(N)
        cl.enqueue_copy(q, y, yb)
        want = {
            "exp": np.exp(x),
            "log": np.log(x),
            "sin": np.sin(x),
            "cos": np.cos(x),
            "exp_sqrt": 1.5 * np.exp(x) + np.sqrt(y0),
            "scale": 1.5 * x,
            "sqrt": 1.5 * x + np.sqrt(y0),
        }[name]
        err = np.max(np.abs(y - want) / np.maximum(np.abs(want), 1e-300))
        if err > 1e-14:
            out[name] = f"wrong (relative error {err:.3g})"
            continue
        times = []
        for _ in range(runs):
            t0 = time.process_time()
            for _ in range(launches):
                cl.enqueue_nd_range_kernel(q, k, (N,), None)
            q.finish()
            times.append((time.process_time() - t0) / launches * 1e3)
        out[name] = times
    print(json.dumps({"platform": plat.name, "times": out}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("drivers", nargs="*", help="NAME=ICD_FILE")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--launches", type=int, default=5)
    ap.add_argument("--only", default=",".join(KERNELS))
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    names = a.only.split(",")
    if a.child:
        child(names, a.launches, 1)
        return
    drivers = [d.split("=", 1) for d in a.drivers]
    res = {d: {n: [] for n in names} for d, _ in drivers}
    for _ in range(a.runs):
        for d, icd in drivers:
            env = dict(os.environ, OCL_ICD_VENDORS=icd)
            cmd = [sys.executable, __file__, "--child", "--only", a.only, "--launches", str(a.launches)]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{d}: {p.stderr[-2000:]}")
            r = json.loads(p.stdout.strip().splitlines()[-1])
            for n, t in r["times"].items():
                if isinstance(t, str):
                    sys.exit(f"{d} {n}: {t}")
                res[d][n].extend(t)
    first = drivers[0][0]
    print(f"{'kernel':10}" + "".join(f"{d:>14}" for d, _ in drivers) + "   (ms CPU per launch, median; ratio to " + first + ")")
    for n in names:
        base = statistics.median(res[first][n])
        row = f"{n:10}"
        for d, _ in drivers:
            m = statistics.median(res[d][n])
            row += f"{m:8.2f} {m / base:4.2f}x"
        print(row)


if __name__ == "__main__":
    main()

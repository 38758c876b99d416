#!/usr/bin/env python3
"""Mandelbrot's trip of four chunks in flight, as the wide code emits it,
copied into hand-written loops and timed in variants (`docs/wide.md`,
"Compares under the loop's mask").

Each variant is the loop of `VECL_JIT_DISASM=1`'s mandelbrot code (four
chunks: `i < max_iter`, `zr*zr + zi*zi <= 4`, the loop's mask, the two
products and three FMAs, the masked `i++`, the or of the four masks),
changed in one respect, in GNU inline assembly, compiled with `cc` and run
for N trips; it prints cycles a trip from the thread's CPU time at the
clock given (4.2 GHz on the 2-core development machine, measured by a
chain of dependent adds). The masks stay full (the point never escapes):
the loops measure the instructions' throughput and chains, not
divergence.

    python3 scripts/mandelbrot_trip.py [N] [GHZ]
"""

import os
import subprocess
import sys
import tempfile

VARIANTS = {
    "as emitted (two kandw a chunk)": "base",
    "int compare under the mask, float compare under that": "fold",
    "float compare under the mask, int compare under that": "fold3",
    "only the float compare under the int one, one kandw": "fold2",
    "2*zr as zr+zr": "add2",
    "float then int under the mask, and zr+zr": "fold3add",
    "no compares, no mask and (the arithmetic alone)": "nocmp",
}


def chunk(v, zr, zi, i, cr, ci, k, t):
    s = [f"vmulps %{zi}, %{zi}, %{t}", f"vmovaps %{zr}, %zmm7",
         f"vfmadd213ps %{t}, %zmm7, %zmm7"]
    if v in ("base", "add2"):
        s = [f"vpcmpd $1, %zmm4, %{i}, %k3"] + s + [
            "vcmpps $2, %zmm8, %zmm7, %k4", "kandw %k4, %k3, %k3",
            f"kandw %k3, %{k}, %{k}"]
    elif v == "fold":
        s = [f"vpcmpd $1, %zmm4, %{i}, %k3{{%{k}}}"] + s + [
            f"vcmpps $2, %zmm8, %zmm7, %{k}{{%k3}}"]
    elif v in ("fold3", "fold3add"):
        s += [f"vcmpps $2, %zmm8, %zmm7, %k3{{%{k}}}",
              f"vpcmpd $1, %zmm4, %{i}, %{k}{{%k3}}"]
    elif v == "fold2":
        s = [f"vpcmpd $1, %zmm4, %{i}, %k3"] + s + [
            "vcmpps $2, %zmm8, %zmm7, %k4{%k3}", f"kandw %k4, %{k}, %{k}"]
    s += [f"vfmsub231ps %{zr}, %{zr}, %{t}", f"vaddps %{cr}, %{t}, %{t}"]
    if v in ("add2", "fold3add"):
        s += [f"vaddps %{zr}, %{zr}, %{zr}"]
    else:
        s += [f"vmulps %zmm9, %{zr}, %{zr}"]
    s += [f"vfmadd213ps %{ci}, %{zr}, %{zi}",
          f"vpaddd %zmm10, %{i}, %{i}{{%{k}}}", f"vmovaps %{t}, %{zr}"]
    return s


REGS = [("zmm11", "zmm12", "zmm13", "zmm14", "zmm15", "k1", "zmm16"),
        ("zmm17", "zmm18", "zmm19", "zmm20", "zmm21", "k2", "zmm22"),
        ("zmm23", "zmm24", "zmm25", "zmm26", "zmm27", "k5", "zmm28"),
        ("zmm29", "zmm30", "zmm31", "zmm0", "zmm1", "k6", "zmm2")]


def source(v):
    body = [line for r in REGS for line in chunk(v, *r)]
    if v != "nocmp":
        body += ["korw %k2, %k1, %k3", "korw %k5, %k3, %k3",
                 "korw %k6, %k3, %k3", "kortestw %k3, %k3"]
    zero = " ".join(f"vpxord %%{z}, %%{z}, %%{z}\\n" for r in REGS
                    for z in r[:2] + r[3:5])
    asm = "".join('"' + line.replace("%", "%%").replace("{", "%{")
                  .replace("}", "%}") + '\\n"\n' for line in body)
    return f"""#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {{
    struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}}
int main(int argc, char **argv) {{
    long n = atol(argv[1]), trips = n; double ghz = atof(argv[2]);
    float two = 2.0f, four = 1e30f; int one = 0, big = 0x7fffffff;
    double t0 = now();
    __asm__ volatile(
        "{zero}"
        "vpbroadcastd %[two], %%zmm9\\n vpbroadcastd %[four], %%zmm8\\n"
        "vpbroadcastd %[one], %%zmm10\\n vpbroadcastd %[big], %%zmm4\\n"
        "kxnorw %%k1, %%k1, %%k1\\n kxnorw %%k2, %%k2, %%k2\\n"
        "kxnorw %%k5, %%k5, %%k5\\n kxnorw %%k6, %%k6, %%k6\\n"
        "1:\\n"
{asm}        "dec %[n]\\n jnz 1b\\n"
        : [n] "+r"(n)
        : [two] "r"(two), [four] "r"(four), [one] "r"(one), [big] "r"(big)
        : "memory", "cc");
    printf("%.2f\\n", (now() - t0) * ghz * 1e9 / trips);
    return 0;
}}
"""


def main():
    n = sys.argv[1] if len(sys.argv) > 1 else "50000000"
    ghz = sys.argv[2] if len(sys.argv) > 2 else "4.2"
    with tempfile.TemporaryDirectory() as d:
        for name, v in VARIANTS.items():
            c, exe = os.path.join(d, v + ".c"), os.path.join(d, v)
            with open(c, "w") as f:
                f.write(source(v))
            subprocess.run(["cc", "-O1", "-mavx512f", "-o", exe, c], check=True)
            runs = [subprocess.run([exe, n, ghz], capture_output=True, text=True,
                                   check=True).stdout.strip() for _ in range(3)]
            print(f"{name:60} {' '.join(runs)} cycles a trip")


if __name__ == "__main__":
    main()

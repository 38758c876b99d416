#!/usr/bin/env python3
"""Per-instruction profile of JIT-compiled kernel code.

    VECL_JIT_DISASM=1 perf record -o perf.data -- vecl run FILE.cl --kernel K ...
    python3 scripts/jitprof.py perf.data /tmp/vecl-jit-K-ADDR.bin [MIN_PERCENT]

`VECL_JIT_DISASM=1` makes the JIT write each kernel's machine code to
`$TMPDIR/vecl-jit-<kernel>-<load address in hex>.bin` (with two tiers, the
optimised code is the file written last). This script reads the sample
addresses from `perf script`, keeps those inside that code, and prints the
`objdump` disassembly of the code with the share of the kernel's samples on
each instruction (only lines with at least MIN_PERCENT when given).
"""
import collections
import re
import subprocess
import sys


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    data, code_file = sys.argv[1], sys.argv[2]
    min_percent = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    found = re.search(r"-([0-9a-f]+)\.bin$", code_file)
    if not found:
        sys.exit("the code file's name must end in -<hex address>.bin")
    base = int(found.group(1), 16)
    with open(code_file, "rb") as f:
        size = len(f.read())
    ips = subprocess.run(
        ["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True, check=True
    ).stdout.split()
    hits = collections.Counter()
    total = 0
    for word in ips:
        try:
            ip = int(word, 16)
        except ValueError:
            continue
        total += 1
        if base <= ip < base + size:
            hits[ip - base] += 1
    in_code = sum(hits.values())
    print(f"samples: {total}, in this code: {in_code}")
    listing = subprocess.run(
        ["objdump", "-D", "-b", "binary", "-mi386:x86-64", code_file],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in listing.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s", line)
        if not m:
            continue
        share = 100.0 * hits.get(int(m.group(1), 16), 0) / max(in_code, 1)
        if share >= min_percent:
            print(f"{share:5.1f} {line}")


if __name__ == "__main__":
    main()

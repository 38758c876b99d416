"""Compiles barrier_divergence.c and runs it: a program with a barrier under
`if (gid < n)` builds through the ICD loader, runs where every group agrees,
fails with CL_OUT_OF_RESOURCES and a message naming the barrier and the
work-items where a group splits, and its other kernel still runs."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def test_barrier_checked_at_run_time(tmp_path):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path / "barrier_divergence"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(binary), str(HERE / "barrier_divergence.c"), "-lOpenCL", "-lpthread"],
        check=True,
    )
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "barrier divergence ok"

"""Compiles launch_attacks.c against the ICD loader and runs it with only
vecl installed: launches with offsets near SIZE_MAX, odd global and local
sizes (merged into rows or not), huge `__local` sizes, kernels released
while queued, events waited on from eight threads, failing kernels; every
call must return the specification's code and every result be right."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("wide", ["0", "1"])
def test_launch_attacks(tmp_path, wide):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path / "launch_attacks"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(binary), str(HERE / "launch_attacks.c"), "-lOpenCL", "-lpthread"],
        check=True,
    )
    env = dict(os.environ, VECL_WIDE=wide)
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    checks, failed = int(last.split()[1]), int(last.split()[3])
    assert failed == 0
    assert checks >= 200

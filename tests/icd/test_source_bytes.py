"""Compiles source_bytes.c and runs it: program source that is not UTF-8
builds, keeps its literals' bytes, and comes back unchanged."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def test_source_is_bytes(tmp_path):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path / "source_bytes"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(binary), str(HERE / "source_bytes.c"), "-lOpenCL"],
        check=True,
    )
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "source bytes ok"

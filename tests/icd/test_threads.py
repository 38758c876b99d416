"""Compiles threads.c and runs it: eight threads share one context and
create, use and release queues, buffers, sub-buffers and events at once;
every byte read back must be the byte written."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def test_threads_share_a_context(tmp_path):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path / "threads"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(binary), str(HERE / "threads.c"), "-lOpenCL", "-lpthread"],
        check=True,
    )
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "threads ok"

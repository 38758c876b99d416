"""Compiles api_errors.c against the ICD loader and runs it with only vecl
installed: wrong handles, null pointers, wrong sizes and indices must give
the specification's error codes, and nothing may crash."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def api_errors_binary(tmp_path_factory):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("c") / "api_errors"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(out), str(HERE / "api_errors.c"), "-lOpenCL"],
        check=True,
    )
    return out


def test_every_bad_call_returns_its_error_code(api_errors_binary):
    result = subprocess.run(
        [str(api_errors_binary)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    checks, failed = int(last.split()[1]), int(last.split()[3])
    assert failed == 0
    assert checks >= 450

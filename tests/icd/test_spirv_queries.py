"""Compiles spirv_queries.c against the ICD loader and runs it with only vecl
installed: cl_khr_spirv_queries is named, its three queries answer, every
capability, extension and extended instruction set reported builds in a
module that declares it, and what is not reported is refused by name."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def queries_binary(tmp_path_factory):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("c") / "spirv_queries"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(out), str(HERE / "spirv_queries.c"), "-lOpenCL"],
        check=True,
    )
    return out


def test_spirv_queries_agree_with_the_reader(queries_binary):
    result = subprocess.run(
        [str(queries_binary)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    checks, failed = int(last.split()[1]), int(last.split()[3])
    assert failed == 0
    # 34 required capabilities, and one build per reported entry.
    assert checks >= 80

"""Compiles link.c against the ICD loader and runs it with only vecl
installed: clCompileProgram keeps each unit's options and headers,
clLinkProgram merges the units' IR (externs resolved, statics and structs
per unit), reports missing and duplicate definitions in the log, makes
libraries that link again, and binaries of objects, libraries and
executables read back."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def link_binary(tmp_path_factory):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("c") / "link"
    subprocess.run(
        [compiler, "-Wall", "-Werror", "-o", str(out), str(HERE / "link.c"), "-lOpenCL"],
        check=True,
    )
    return out


def test_separate_compilation_links_ir(link_binary):
    result = subprocess.run(
        [str(link_binary)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    checks, failed = int(last.split()[1]), int(last.split()[3])
    assert failed == 0
    assert checks >= 100

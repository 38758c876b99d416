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


def test_no_relocation_binds_to_an_exported_entry_point():
    """The dispatch table must reach vecl's own functions: a relocation
    against one of the exported cl* names would bind to the loader's
    function of that name, which calls back through the table forever
    (clGetExtensionFunctionAddressForPlatform once did, after the compiler
    merged it with its internal twin)."""
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("no readelf")
    vendors = pathlib.Path(os.environ["OCL_ICD_VENDORS"])
    library = (vendors / "vecl.icd").read_text().strip()
    exported = subprocess.run(
        [readelf, "--dyn-syms", "-W", library], capture_output=True, text=True, check=True
    ).stdout
    names = {
        fields[7]
        for fields in (line.split() for line in exported.splitlines())
        if len(fields) >= 8 and fields[7].startswith("cl") and fields[6] != "UND"
    }
    assert "clGetExtensionFunctionAddressForPlatform" in names
    relocations = subprocess.run(
        [readelf, "-rW", library], capture_output=True, text=True, check=True
    ).stdout
    bound = [line for line in relocations.splitlines() if set(line.split()) & names]
    assert bound == []

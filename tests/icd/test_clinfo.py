"""clinfo, run with vecl as the only platform, lists it without errors."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import compiler_missing


@pytest.fixture(scope="module")
def clinfo():
    if shutil.which("clinfo") is None:
        pytest.skip("clinfo not installed")
    result = subprocess.run(["clinfo"], capture_output=True, text=True, timeout=60, env=dict(os.environ))
    return result


def test_clinfo_lists_vecl(clinfo):
    assert clinfo.returncode == 0, clinfo.stderr
    assert re.search(r"^Number of platforms\s+1$", clinfo.stdout, re.M)
    assert re.search(r"^\s+Platform Name\s+vecl$", clinfo.stdout, re.M)
    assert re.search(r"^\s+Platform Extensions function suffix\s+vecl$", clinfo.stdout, re.M)
    assert re.search(r"^\s+Device Type\s+CPU$", clinfo.stdout, re.M)
    assert re.search(r"^\s+Device Version\s+OpenCL 3\.0", clinfo.stdout, re.M)


def test_clinfo_reports_no_errors(clinfo):
    if compiler_missing():
        # clinfo builds a kernel to query the kernel work-group multiple.
        pytest.xfail("vecl is built without its kernel compiler (vecl-jit compile_kernel)")
    bad = [
        line
        for line in (clinfo.stdout + clinfo.stderr).splitlines()
        if re.search(r"error|warning|invalid", line, re.I) and "Error Correction" not in line
    ]
    assert bad == []

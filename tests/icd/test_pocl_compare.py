"""vecl next to PoCL: both platforms load through one loader, and the same
kernels give the same results on both."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import compiler_missing

HERE = pathlib.Path(__file__).resolve().parent
POCL_ICD = pathlib.Path("/etc/OpenCL/vendors/pocl.icd")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    if not POCL_ICD.exists():
        pytest.skip("PoCL is not installed")
    vendors = tmp_path_factory.mktemp("vendors")
    shutil.copy(pathlib.Path(os.environ["OCL_ICD_VENDORS"]) / "vecl.icd", vendors)
    shutil.copy(POCL_ICD, vendors)
    env = dict(os.environ, OCL_ICD_VENDORS=str(vendors))
    result = subprocess.run(
        [sys.executable, str(HERE / "pocl_compare_run.py")],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert result.returncode == 0, result.stderr
    return {run["platform"]: run for run in json.loads(result.stdout)}


def test_both_platforms_load(both):
    assert "vecl" in both
    assert "Portable Computing Language" in both
    assert both["vecl"]["device_type"] == both["Portable Computing Language"]["device_type"]


def test_same_results_as_pocl(both):
    if compiler_missing():
        pytest.xfail("vecl is built without its kernel compiler (vecl-jit compile_kernel)")
    vecl, pocl = both["vecl"], both["Portable Computing Language"]
    assert "build_error" not in vecl, vecl.get("build_error")
    assert vecl["saxpy"] == pocl["saxpy"]
    assert vecl["collatz"] == pocl["collatz"]

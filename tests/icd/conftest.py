"""Shared fixtures for the tests of libvecl.so through the ICD loader.

The tests run with OCL_ICD_VENDORS pointing at a directory holding only
vecl.icd (scripts/test.sh sets it; when unset, target/vendors of the
checkout is used), so every platform PyOpenCL sees is vecl.
"""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
os.environ.setdefault("OCL_ICD_VENDORS", str(ROOT / "target" / "vendors"))

import pyopencl as cl  # noqa: E402  (the loader reads the variable on first use)

# What a program build reports while vecl is built without its kernel compiler.
NO_COMPILER = "the kernel compiler (vecl-jit) is not available"


@pytest.fixture(scope="session")
def platform():
    platforms = cl.get_platforms()
    assert [p.name for p in platforms] == ["vecl"]
    return platforms[0]


@pytest.fixture(scope="session")
def device(platform):
    devices = platform.get_devices()
    assert len(devices) == 1
    return devices[0]


@pytest.fixture
def ctx(device):
    return cl.Context([device])


@pytest.fixture
def queue(ctx):
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


def compiler_missing():
    """Whether program builds fail because vecl has no kernel compiler."""
    ctx = cl.Context(dev_type=cl.device_type.ALL)
    try:
        cl.Program(ctx, "kernel void probe(global int *a) { a[0] = 1; }").build()
    except cl.RuntimeError as error:
        return NO_COMPILER in str(error)
    return False


def build(ctx, source, options=""):
    """Builds a program; marks the test xfail when vecl has no kernel compiler."""
    try:
        return cl.Program(ctx, source).build(options=options)
    except cl.RuntimeError as error:
        if NO_COMPILER in str(error):
            pytest.xfail("vecl is built without its kernel compiler (vecl-jit compile_kernel)")
        raise


@pytest.fixture
def compiler(ctx):
    """Skips to xfail unless programs can be built."""
    build(ctx, "kernel void probe(global int *a) { a[0] = 1; }")
    return True


def run_script(script, extra_env, *args, stdin=None, timeout=300):
    """Runs `script` in a fresh Python process with `extra_env` added to the
    environment (a variable such as VECL_WIDE is read once per process) and
    returns its standard output; a failing script fails the test with its
    standard error."""
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        input=stdin,
        env=dict(os.environ, **extra_env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout

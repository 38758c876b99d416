#!/usr/bin/env bash
# Installs the system and Python packages vecl's tests use: the OpenCL ICD
# loader, clinfo, PoCL (the reference CPU implementation), clang 15 and the
# LLVM/SPIR-V translator and SPIRV-Tools (the SPIR-V tests compile the corpus
# and assemble modules with them), PyOpenCL, and
# Intel's CPU runtime for OpenCL (the second reference of `vecl bench`).
# Idempotent: does nothing when everything is present.
set -euo pipefail
need_apt=()
for pkg in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers clinfo pocl-opencl-icd \
        clang-15 llvm-spirv-15 spirv-tools; do
    dpkg -s "$pkg" > /dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" > /dev/null
fi
if ! python3 -c 'import pyopencl, numpy, pytest, mako' > /dev/null 2>&1; then
    python3 -m pip install -q pyopencl numpy pytest mako
fi

# Intel's CPU Runtime for OpenCL, the strongest reference `vecl bench`
# compares with (it runs on AMD processors too). Best effort: no test needs
# it, so a machine without the package index only loses that column.
# It lives in its own virtual environment; its RUNPATH finds the libraries
# beside libintelocl.so, so registering that one file is enough.
INTEL_OCL_VENV=${VECL_INTEL_OCL_VENV:-/opt/intel-opencl-rt}
if [ ! -e "$INTEL_OCL_VENV/lib/libintelocl.so" ]; then
    if ! { python3 -m venv "$INTEL_OCL_VENV" \
            && "$INTEL_OCL_VENV/bin/pip" install -q intel-opencl-rt intel-cmplr-lib-rt; } > /dev/null 2>&1; then
        echo "install-deps: Intel's CPU runtime for OpenCL not installed (pip failed); vecl bench compares with the other platforms only" >&2
    fi
fi
if [ -e "$INTEL_OCL_VENV/lib/libintelocl.so" ] && [ -w /etc/OpenCL/vendors ] \
        && [ ! -e /etc/OpenCL/vendors/intel-cpu.icd ]; then
    echo "$INTEL_OCL_VENV/lib/libintelocl.so" > /etc/OpenCL/vendors/intel-cpu.icd
fi

#!/usr/bin/env bash
# Installs the system and Python packages vecl's tests use: the OpenCL ICD
# loader, clinfo, PoCL (the reference CPU implementation), PyOpenCL.
# Idempotent: does nothing when everything is present.
set -euo pipefail
need_apt=()
for pkg in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers clinfo pocl-opencl-icd; do
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

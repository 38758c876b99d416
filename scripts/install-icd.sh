#!/usr/bin/env bash
# Registers libvecl.so with the OpenCL ICD loaders.
#
#   bash scripts/install-icd.sh DIR            # writes DIR/../vendors/vecl.icd
#   bash scripts/install-icd.sh DIR --system   # also /etc/OpenCL/vendors/vecl.icd
#
# DIR is the directory holding libvecl.so (e.g. target/release, which gives
# target/vendors). The vendors directory sits beside DIR so that builds in
# different target directories (CARGO_TARGET_DIR) do not overwrite each
# other's vendor file. The vendor file holds the library's absolute path.
# Point a loader at it with OCL_ICD_VENDORS="$PWD/target/vendors" (ocl-icd
# then loads only the .icd files found there).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ]; then
    echo "usage: $0 DIR [--system]" >&2
    exit 2
fi
lib="$(cd "$1" && pwd)/libvecl.so"
if [ ! -f "$lib" ]; then
    echo "install-icd: $lib not found (build with: cargo build --release -p vecl-icd)" >&2
    exit 1
fi

vendors="$(cd "$1/.." && pwd)/vendors"
mkdir -p "$vendors"
echo "$lib" > "$vendors/vecl.icd"
echo "install-icd: $vendors/vecl.icd -> $lib"

if [ "${2:-}" = "--system" ]; then
    mkdir -p /etc/OpenCL/vendors
    echo "$lib" > /etc/OpenCL/vendors/vecl.icd
    echo "install-icd: /etc/OpenCL/vendors/vecl.icd -> $lib"
fi

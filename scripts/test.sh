#!/usr/bin/env bash
# vecl's test command: everything the project checks, on a fresh machine.
# Installs what the tests need (idempotent), then runs the Rust tests and the
# tests of the OpenCL driver through the ICD loader.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

# Time limits turn a hung test into a failure that names itself.
timeout 40m cargo test --workspace --release 2>&1

if [ -d tests/icd ] && compgen -G "tests/icd/test_*.py" > /dev/null; then
    # The library lands in CARGO_TARGET_DIR when that is set.
    target="${CARGO_TARGET_DIR:-target}"
    cargo build --release -p vecl-icd
    bash scripts/install-icd.sh "$target/release"
    OCL_ICD_VENDORS="$(cd "$target" && pwd)/vendors" timeout 15m python3 -m pytest -q tests/icd
fi

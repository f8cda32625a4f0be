#!/usr/bin/env bash
# Builds the library (Release) and runs the abort-free showcase (examples/demo). Usage:
#   bash scripts/demo-abort-free.sh [n_tokens]
# Needs cmake, make and a C compiler (installed when missing and root); OpenCL is optional.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/setup-demo.sh
mkdir -p build
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >build/demo.configure.log 2>&1 || { cat build/demo.configure.log; exit 1; }
cmake --build build/release -j "$(nproc 2>/dev/null || echo 2)" --target demo >build/demo.build.log 2>&1 || { tail -n 40 build/demo.build.log; exit 1; }
./build/release/examples/demo "$@"

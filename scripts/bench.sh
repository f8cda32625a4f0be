#!/usr/bin/env bash
# Builds and runs the benchmarks (not tests): bench/matmul prints the CPU backend's matrix
# product beside OpenBLAS measured in the same run (see docs/bench-matmul.md).
# Usage: bash scripts/bench.sh [quick]      (installs libopenblas-dev when missing and root)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/setup.sh

# OpenBLAS: the benchmark's peer, a benchmark-only dependency
any_exists() { # true when one of the paths (globs expanded by the caller) exists
    local f
    for f in "$@"; do [ -e "$f" ] && return 0; done
    return 1
}
have_openblas() {
    any_exists /usr/include/*/openblas-pthread/openblas_config.h /usr/include/openblas/openblas_config.h \
               /usr/include/openblas_config.h &&
    any_exists /usr/lib/*/libopenblas.so /usr/lib/*/openblas-pthread/libopenblas.so /usr/lib/libopenblas.so
}
if ! have_openblas; then
    if [ "$(id -u)" != "0" ]; then
        echo "bench: OpenBLAS (libopenblas-dev) is missing; run as root or install it" >&2
        exit 1
    fi
    echo "bench: installing libopenblas-dev"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends libopenblas-dev >/dev/null
fi

# CLBlast: the OpenCL benchmark's peer (benchmark-only too); optional, as that benchmark is
have_clblast() { any_exists /usr/include/clblast_c.h && any_exists /usr/lib/*/libclblast.so /usr/lib/libclblast.so; }
if ! have_clblast && [ "$(id -u)" = "0" ]; then
    echo "bench: installing libclblast-dev"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends libclblast-dev >/dev/null; } ||
        echo "bench: libclblast-dev not installed"
fi

mkdir -p build
dir=build/bench
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGGML_BUILD_TESTS=OFF >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }

exe="$dir/bench/matmul"
if grep -q "add_subdirectory(bench)" CMakeLists.txt; then
    cmake --build "$dir" -j "$jobs" --target bench-matmul >"$dir.build.log" 2>&1 || { tail -n 40 "$dir.build.log"; exit 1; }
else
    # the top-level CMakeLists.txt does not list bench/ yet: build the library, then link by hand
    cmake --build "$dir" -j "$jobs" --target ggml-static >"$dir.build.log" 2>&1 || { tail -n 40 "$dir.build.log"; exit 1; }
    inc=/usr/include
    for f in /usr/include/*/openblas-pthread/openblas_config.h /usr/include/openblas/openblas_config.h; do
        if [ -e "$f" ]; then inc=$(dirname "$f"); break; fi
    done
    mkdir -p "$dir/bench"
    cc -std=c11 -O2 -Wall -Wextra -Iinclude -I"$inc" bench/matmul.c "$dir/src/libggml.a" \
       -lopenblas -lm -lpthread -ldl -o "$exe"
fi

"$exe" "$@"

# the OpenCL backend against CLBlast, when that benchmark was configured (OpenCL + CLBlast found)
if cmake --build "$dir" -j "$jobs" --target bench-opencl-matmul >>"$dir.build.log" 2>&1; then
    echo
    "$dir/bench/opencl-matmul" "$@"
else
    echo "bench: bench/opencl-matmul not built (needs the OpenCL backend and CLBlast: libclblast-dev)"
fi

# framework overhead: a chain of 1000 tiny adds, microseconds per node (1 and 2 threads)
cmake --build "$dir" -j "$jobs" --target bench-graph-overhead >>"$dir.build.log" 2>&1 || { tail -n 40 "$dir.build.log"; exit 1; }
echo
"$dir/bench/graph-overhead"

# few columns (M = 1 .. 16) as GB/s of weights beside the memory read (docs/bench-matmul.md)
cmake --build "$dir" -j "$jobs" --target bench-matmul-cols >>"$dir.build.log" 2>&1 || { tail -n 40 "$dir.build.log"; exit 1; }
echo
"$dir/bench/matmul-cols"

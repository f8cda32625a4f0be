#!/usr/bin/env bash
# What the demos need, and nothing more: cmake, make, a C compiler and, with --model (the model
# demo downloads SmolLM2 from PyPI), python3 with pip; optionally the OpenCL
# headers, the ICD loader and PoCL, so that an OpenCL device (PoCL's, on the CPU) shows next to
# the CPU. As root on Debian/Ubuntu it installs what is missing; otherwise it says what is missing
# and goes on when only the optional part is (the demo then runs on the CPU alone).
set -euo pipefail

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v make  >/dev/null 2>&1 || need+=(make)
{ command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || command -v clang >/dev/null 2>&1; } || need+=(gcc libc6-dev)
if [ "${1:-}" = "--model" ]; then
    command -v python3 >/dev/null 2>&1 || need+=(python3)
    python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
fi

have_opencl_headers() { [ -f /usr/include/CL/cl.h ]; }
have_icd_loader()     { ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1 '; }
have_opencl_driver()  { ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; }
optional=()
have_opencl_headers || optional+=(opencl-headers)
have_icd_loader     || optional+=(ocl-icd-libopencl1)
have_opencl_driver  || optional+=(pocl-opencl-icd)

if [ ${#need[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    echo "setup-demo: installing ${need[*]} ${optional[*]}"
    apt-get update -qq
    if [ ${#need[@]} -gt 0 ]; then
        apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    fi
    if [ ${#optional[@]} -gt 0 ]; then
        apt-get install -y -qq --no-install-recommends "${optional[@]}" >/dev/null ||
            echo "setup-demo: OpenCL packages not installed: the demo runs on the CPU alone"
    fi
    exit 0
fi
if [ ${#need[@]} -gt 0 ]; then
    echo "setup-demo: missing ${need[*]} (needed to build the demo); install them, or run as root on Debian/Ubuntu" >&2
    exit 1
fi
echo "setup-demo: no OpenCL device will show (missing ${optional[*]}; optional): the demo runs on the CPU"

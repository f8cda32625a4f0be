#!/usr/bin/env bash
# Builds and runs every test: first the sanitizer build (AddressSanitizer + UndefinedBehavior-
# Sanitizer), then the normal optimized build whose ctest summary closes the output.
# Usage: bash scripts/test.sh            (from anywhere; installs missing packages when root)
#
# Every stage that runs OpenCL code does so with a private, empty PoCL kernel cache, so that the
# path every new machine takes (PoCL compiling the kernels through LLVM inside the test process)
# is the one tested. Sanitizer settings for that third-party code: tests/sanitizer-third-party.conf
# (applied by ctest itself). With PoCL installed, as setup installs it, a missing OpenCL device
# fails the OpenCL tests instead of skipping them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/setup.sh

if ls /etc/OpenCL/vendors/*pocl* >/dev/null 2>&1; then
    export GGML_TEST_REQUIRE_OPENCL=1
fi
# setup installs SIMDe: the emulated AVX-512 kernel tests (tests/avx512-emu/) must run, not skip
export GGML_TEST_REQUIRE_SIMDE=1
pocl_caches=()
cleanup() { if [ ${#pocl_caches[@]} -gt 0 ]; then rm -rf "${pocl_caches[@]}"; fi; }
trap cleanup EXIT
cold_pocl_cache() { # a fresh empty PoCL cache for the next stage
    POCL_CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pocl-cache.XXXXXX")
    export POCL_CACHE_DIR
    pocl_caches+=("$POCL_CACHE_DIR")
}

jobs=$(nproc 2>/dev/null || echo 2)

build_and_test() { # dir, extra cmake args...
    local dir="$1"; shift
    echo "== configure $dir $*"
    cmake -S . -B "$dir" -DGGML_BUILD_TESTS=ON "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
    echo "== build $dir"
    cmake --build "$dir" -j "$jobs" >"$dir.build.log" 2>&1 || { tail -n 60 "$dir.build.log"; return 1; }
    if grep -E "warning:" "$dir.build.log" >/dev/null; then
        echo "compiler warnings in $dir:"; grep -E "warning:" "$dir.build.log" | sort -u; return 1
    fi
    echo "== test $dir"
    local status=0
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" 2>&1 | tee "$dir.ctest.log" || status=$?
    [ "$status" -eq 0 ] && return 0
    # LeakSanitizer's own stop-the-world tracer sometimes crashes at a passing test's exit while
    # other threads (PoCL's) are live ("Tracer caught signal 11", google/sanitizers#1353): no leak
    # is reported and the test's checks have passed. Only when every failure is that crash are the
    # failed tests run once more; any other failure fails the stage at once.
    local failed crashes
    failed=$(awk '/^The following tests FAILED:/ { on = 1; next } on && /^[[:space:]]+[0-9]+ - / { n++; next } { on = 0 } END { print n + 0 }' "$dir.ctest.log")
    crashes=$(grep -c 'LeakSanitizer has encountered a fatal error' "$dir.ctest.log" || true)
    if [ "$failed" -gt 0 ] && [ "$crashes" -ge "$failed" ]; then
        echo "== test $dir: $failed failure(s), all LeakSanitizer tracer crashes; running them once more"
        ctest --test-dir "$dir" --output-on-failure --rerun-failed
        return
    fi
    return "$status"
}

mkdir -p build
# sanitizers: leaks, out-of-bounds accesses and undefined behaviour fail the tests. This build is
# also the portable one (no -march=native): SIMD kernels are reached only through run-time dispatch.
cold_pocl_cache
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    build_and_test build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGGML_SANITIZE=address,undefined -DGGML_NATIVE=OFF

# ThreadSanitizer on the tests that run several threads (the thread pool, the scheduler, the
# registry, concurrent backends, the meta device's per-device threads); the other tests are single-threaded and covered above
tsan_tests="test-cpu-threadpool|test-cpu-backend|test-sched|test-sched-run|test-backend-reg|test-concurrency|test-meta-block"
echo "== configure build/tsan"
cmake -S . -B build/tsan -DGGML_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGGML_SANITIZE=thread >build/tsan.configure.log 2>&1 \
    || { cat build/tsan.configure.log; exit 1; }
echo "== build build/tsan"
# shellcheck disable=SC2086
cmake --build build/tsan -j "$jobs" --target $(echo "$tsan_tests" | tr '|' ' ') ggml-testmod >build/tsan.build.log 2>&1 \
    || { tail -n 60 build/tsan.build.log; exit 1; }
echo "== test build/tsan"
cold_pocl_cache
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir build/tsan --output-on-failure -R "^($tsan_tests)\$"

# fuzzing: each libFuzzer target with a fixed seed and run count (the same inputs every time, so
# that CI does not depend on luck; at most 60 s each); longer random runs: bash scripts/fuzz.sh SECONDS
FUZZ_SEED=1 FUZZ_RUNS=4000 bash scripts/fuzz.sh 60

# the optimized build last, so that its ctest summary is the closing line
cold_pocl_cache
build_and_test build/release -DCMAKE_BUILD_TYPE=Release

#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang in build/fuzz and runs each for a bounded
# time. A crash or finding leaves its input in build/fuzz/findings/<target>/ and makes the script
# fail; to keep it as a regression test, copy the input to tests/fuzz/corpus/<target>/ (the ctest
# entries test-fuzz-replay-<target> replay that directory in every build).
#
# Usage: bash scripts/fuzz.sh [seconds per target, default 60] [target ...]
#   CI:  FUZZ_SEED=1 FUZZ_RUNS=4000 bash scripts/fuzz.sh 60   (a fixed seed and run count: the same
#        inputs on every run, so CI does not depend on luck; longer random runs are for developers)
# Needs clang and its compiler runtime (package libclang-rt-<clang major>-dev; scripts/setup.sh installs it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

secs="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(api load gguf)
fi

cc="${CC_FUZZ:-}"
if [ -z "$cc" ]; then
    for c in clang clang-16 clang-15 clang-14; do
        if command -v "$c" >/dev/null 2>&1; then cc="$c"; break; fi
    done
fi
if [ -z "$cc" ]; then
    echo "fuzz: clang not found (bash scripts/setup.sh installs it with its runtime)" >&2
    exit 1
fi

dir=build/fuzz
# the fuzz targets use the CPU and TEST backends only; the OpenCL backend stays out of this build
# (its ICD loader and an instrumented PoCL do not mix well with the sanitizers)
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$dir"
echo "== configure $dir ($cc)"
cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGGML_BUILD_TESTS=ON \
    -DGGML_FUZZ=ON -DGGML_OPENCL=OFF -DGGML_SANITIZE=address,undefined,fuzzer-no-link >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; exit 1; }
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "fuzz-$t"); done
echo "== build ${build_targets[*]}"
cmake --build "$dir" -j "$jobs" "${build_targets[@]}" >"$dir.build.log" 2>&1 \
    || { tail -n 40 "$dir.build.log"; echo "fuzz: build failed (is tests/fuzz added by tests/CMakeLists.txt?)" >&2; exit 1; }

status=0
for t in "${targets[@]}"; do
    exe=$(find "$dir" -type f -name "fuzz-$t" -perm -u+x | head -n 1)
    if [ -z "$exe" ]; then
        echo "fuzz: fuzz-$t was not built" >&2; status=1; continue
    fi
    work="$dir/corpus/$t"          # the growing corpus, seeded from the repository's
    findings="$dir/findings/$t"
    mkdir -p "$work" "$findings"
    if [ -d "tests/fuzz/corpus/$t" ]; then
        cp -n tests/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
    fi
    echo "== fuzz-$t for ${secs}s"
    log="$dir/fuzz-$t.log"
    # leaks and UB stop the run like crashes; -rss_limit guards against runaway allocations
    if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$exe" "$work" -max_total_time="$secs" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} \
            -rss_limit_mb=4096 -timeout=30 -max_len=4096 \
            -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1; then
        execs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}')
        echo "fuzz-$t: ${execs:-?} executions (at most ${secs}s), no finding"
    else
        status=1
        echo "fuzz-$t: FINDING (input in $findings/):"
        grep -E "FINDING|ERROR: |SUMMARY|runtime error" "$log" | head -n 20 || tail -n 30 "$log"
    fi
done
exit $status

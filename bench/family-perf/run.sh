#!/usr/bin/env bash
# The issue-19 table: each case through the family's library and through ours, in separate
# processes, alternating (the order reversing every round), ratio = the family's time / ours.
#
# Usage: bash bench/family-perf/run.sh FAMILY_SRC [rounds] [threads] [reps]
#   FAMILY_SRC  a checkout or unpacked source of the family's ggml (github ggml-org/ggml, or the
#               vendor/llama.cpp/ggml folder of the llama-cpp-python sdist). Nothing is fetched
#               here and nothing of it is committed: its library is built under FAMILY_SRC/build-perf
#               (Release, native, static) unless that folder already has it.
#   rounds      blocks per library and case (default 5); threads (default 2); reps per block (default 5)
# FAMILY_LIBDIR (environment): a folder with the family's shared libggml.so, libggml-cpu.so and
#               libggml-base.so already built (e.g. llama.cpp's build/bin); then FAMILY_SRC only
#               gives the headers (FAMILY_SRC/include) and nothing of the family is built here.
# PERF_CLOCK=cpu (environment): time the process's CPU time instead of the wall clock (use it
#               with 1 thread on a loaded machine).
# CASES (environment): an extended regular expression; only the cases whose names match run.
# Ours: build/release (configured and built here when missing). Output: one line per case with
# both medians (over all rounds' block medians), the ratio, then the geomean and the worst ratio.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
fam="${1:?usage: run.sh FAMILY_SRC [rounds] [threads] [reps]}"
rounds="${2:-5}"; nth="${3:-2}"; reps="${4:-5}"
fam="$(cd "$fam" && pwd)"
out="$root/build/family-perf"
mkdir -p "$out"

# the family's library
if [ -n "${FAMILY_LIBDIR:-}" ]; then
    fl="$(cd "$FAMILY_LIBDIR" && pwd)"
    cc -O2 -std=c11 -I"$fam/include" "$root/bench/family-perf/driver.c" -L"$fl" -Wl,-rpath,"$fl" \
       -lggml -lggml-cpu -lggml-base -lm -lpthread -o "$out/driver-family"
else
    fb="$fam/build-perf"
    if [ ! -f "$fb/src/libggml-cpu.a" ]; then
        cmake -S "$fam" -B "$fb" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON \
              -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF >/dev/null
        cmake --build "$fb" -j2 --target ggml ggml-cpu ggml-base >/dev/null
    fi
    famlibs=("$fb/src/libggml.a" "$fb/src/libggml-cpu.a" "$fb/src/libggml-base.a")
    omp=""
    if grep -q "GGML_OPENMP:BOOL=ON" "$fb/CMakeCache.txt" 2>/dev/null; then omp="-fopenmp"; fi
    cc -O2 -std=c11 -I"$fam/include" "$root/bench/family-perf/driver.c" "${famlibs[@]}" $omp -lstdc++ -lm -lpthread \
       -o "$out/driver-family"
fi
clk=""
if [ "${PERF_CLOCK:-}" = cpu ]; then clk="cpu"; fi

# ours
if [ ! -f "$root/build/release/src/libggml.a" ]; then
    cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$root/build/release" -j2 --target ggml-static >/dev/null
fi
cc -O2 -std=c11 -I"$root/include" "$root/bench/family-perf/driver.c" "$root/build/release/src/libggml.a" -lm -lpthread \
   -o "$out/driver-ours"

mapfile -t names < <("$out/driver-ours" list)
n=${#names[@]}
sel=()
for ((c = 0; c < n; c++)); do
    if [ -z "${CASES:-}" ] || printf '%s\n' "${names[$c]}" | grep -Eq -- "$CASES"; then sel+=("$c"); fi
done
declare -A times
for ((r = 0; r < rounds; r++)); do
    for c in "${sel[@]}"; do
        if (( r % 2 == 0 )); then order="family ours"; else order="ours family"; fi
        for lib in $order; do
            t="$("$out/driver-$lib" "$c" "$nth" "$reps" $clk)" || t="nan"
            times[$lib,$c]="${times[$lib,$c]:-} $t"
        done
    done
done

printf '%-58s %14s %14s %7s\n' "case ($nth threads, $rounds rounds x $reps runs${clk:+, CPU time})" "family us" "ours us" "ratio"
for c in "${sel[@]}"; do
    printf '%s\t%s\t%s\n' "${names[$c]}" "${times[family,$c]}" "${times[ours,$c]}"
done | python3 -c '
import sys, math, statistics
rat = []
for line in sys.stdin:
    name, f, o = line.rstrip("\n").split("\t")
    fv = [float(x) for x in f.split() if x != "nan"]
    ov = [float(x) for x in o.split() if x != "nan"]
    if not fv or not ov:
        print("%-58s %14s %14s %7s" % (name, "failed" if not fv else "", "failed" if not ov else "", "-"))
        continue
    fm, om = statistics.median(fv), statistics.median(ov)
    rat.append((fm / om, name))
    print("%-58s %14.1f %14.1f %7.2f" % (name, fm, om, fm / om))
if rat:
    g = math.exp(sum(math.log(r) for r, _ in rat) / len(rat))
    w = min(rat)
    print("geomean ratio %.2f over %d cases; worst %.2f (%s)" % (g, len(rat), w[0], w[1]))
'

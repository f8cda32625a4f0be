#!/usr/bin/env bash
# ggml-llm against the family's llama-bench on SmolLM2-135M-Instruct Q4_1: pp512 (a prompt of 512
# tokens) and tg128 (128 generated tokens), 2 threads, each run in its own process, the two
# runtimes alternating, medians of REPS runs; then the ratio, the machine's generation limit
# (weight bytes read per token / memory bandwidth measured in the same run) and our fraction of it.
#   bash scripts/bench-llm.sh LLAMA_CPP_SRC [REPS]
# LLAMA_CPP_SRC: the llama.cpp sources, e.g. the llama-cpp-python sdist's vendor/llama.cpp
# (pip download --no-deps --no-binary :all: llama-cpp-python; unpack). llama-bench is built from it
# into build/llama-bench (Release, native); LLAMA_BENCH=path/to/llama-bench skips that build.
# Figures are only meaningful on a quiet machine (uptime is printed with them). BENCH_PP and
# BENCH_TG change the sizes (512 and 128) for a quick check of the script.
set -euo pipefail
src=${1:?usage: bench-llm.sh LLAMA_CPP_SRC [REPS]}
reps=${2:-3}
threads=2
pp=${BENCH_PP:-512}
tg=${BENCH_TG:-128}
src=$(cd "$src" && pwd)
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mkdir -p build

bench=${LLAMA_BENCH:-}
if [ -z "$bench" ]; then
    echo "== building llama-bench from $src"
    cmake -S "$src" -B build/llama-bench -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
          -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >build/llama-bench.configure.log 2>&1 ||
        { tail -n 30 build/llama-bench.configure.log; exit 1; }
    cmake --build build/llama-bench -j "$(nproc 2>/dev/null || echo 2)" --target llama-bench >build/llama-bench.build.log 2>&1 ||
        { tail -n 30 build/llama-bench.build.log; exit 1; }
    bench=build/llama-bench/bin/llama-bench
fi
echo "== building ggml-llm and llm-membw"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >build/bench-llm.configure.log 2>&1 || { cat build/bench-llm.configure.log; exit 1; }
cmake --build build/release -j "$(nproc 2>/dev/null || echo 2)" --target ggml-llm llm-membw >build/bench-llm.build.log 2>&1 ||
    { tail -n 30 build/bench-llm.build.log; exit 1; }
llm=build/release/tools/llm/ggml-llm
model=$(sh tests/data/gguf/fetch-smollm2.sh)

# tokens/s of one run
family() {   # pp|tg
    local args
    if [ "$1" = pp ]; then args="-p $pp -n 0"; else args="-p 0 -n $tg"; fi
    # csv: the last field of the data row is stddev_ts, the one before avg_ts
    "$bench" -m "$model" $args -t $threads -r 1 -o csv 2>/dev/null | tail -n 1 | awk -F, '{ gsub(/"/, ""); printf "%.1f\n", $(NF-1) }'
}
ours() {   # pp|tg; the generation figure counts the sampled tokens; the evaluations are one fewer
    if [ "$1" = pp ]; then
        "$llm" -m "$model" --random-prompt "$pp" -n 0 --threads $threads | sed -n 's/^prompt: .* tokens in .* ms, \(.*\) tokens\/s$/\1/p'
    else
        "$llm" -m "$model" --random-prompt 1 -n $((tg + 1)) --ignore-eos --threads $threads |
            sed -n 's/^generation: \([0-9]*\) tokens in \(.*\) ms, .*$/\1 \2/p' | awk '{ printf "%.1f\n", ($1 - 1) * 1000 / $2 }'
    fi
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== $reps runs each, alternating ($(uptime | sed 's/.*load/load/'))"
: > build/bench-llm.runs
for i in $(seq "$reps"); do
    for test in pp tg; do
        f=$(family $test); o=$(ours $test)
        echo "$test family $f" >> build/bench-llm.runs
        echo "$test ours $o" >> build/bench-llm.runs
        echo "  run $i $test: llama-bench $f t/s, ggml-llm $o t/s"
    done
done
bw=$(build/release/tools/llm/llm-membw $threads 512 | sed -n 's/^bandwidth: \([0-9.]*\) GB\/s.*/\1/p')
bytes=$("$llm" -m "$model" --random-prompt 1 -n 1 --verbose 2>&1 | sed -n 's/.*weights read per generated token: \([0-9]*\) bytes/\1/p')
pick() { awk -v t="$1" -v w="$2" '$1 == t && $2 == w { print $3 }' build/bench-llm.runs | median; }
pf=$(pick pp family); po=$(pick pp ours); tf=$(pick tg family); to=$(pick tg ours)
limit=$(awk -v bw="$bw" -v b="$bytes" 'BEGIN { printf "%.0f", bw * 1e9 / b }')
echo
echo "SmolLM2-135M-Instruct Q4_1, $threads threads, medians of $reps ($(uptime | sed 's/.*load/load/'))"
printf '| %-6s | %12s | %12s | %6s |\n' test "llama-bench" "ggml-llm" ratio
printf '|--------|--------------|--------------|--------|\n'
printf '| %-6s | %12s | %12s | %6s |\n' "pp$pp" "$pf" "$po" "$(awk -v a="$po" -v b="$pf" 'BEGIN { printf "%.2f", a / b }')"
printf '| %-6s | %12s | %12s | %6s |\n' "tg$tg" "$tf" "$to" "$(awk -v a="$to" -v b="$tf" 'BEGIN { printf "%.2f", a / b }')"
echo "generation limit: $bytes bytes of weights per token / $bw GB/s = $limit tokens/s;" \
     "llama-bench reaches $(awk -v a="$tf" -v l="$limit" 'BEGIN { printf "%.0f%%", 100 * a / l }'), ggml-llm $(awk -v a="$to" -v l="$limit" 'BEGIN { printf "%.0f%%", 100 * a / l }')"

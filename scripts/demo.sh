#!/usr/bin/env bash
# The model demo: SmolLM2-135M-Instruct (Q4_1 GGUF) with ggml-llm on every device.
#   bash scripts/demo.sh            (from any directory)
# Installs what it needs when missing and root (cmake, a C compiler, pip for the download; OpenCL
# optional), builds ggml-llm (Release), fetches the model into ${XDG_CACHE_HOME:-~/.cache}/ggml-c
# (98 MB, once), prints the device table, answers a chat prompt on the best device with the text
# streaming, then measures each device on the same prompt: prompt and generation tokens/s, and
# whether its greedy tokens equal the CPU's. The abort-free showcase is scripts/demo-abort-free.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/setup-demo.sh --model
mkdir -p build
echo "== building ggml-llm (Release)"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >build/demo.configure.log 2>&1 || { cat build/demo.configure.log; exit 1; }
cmake --build build/release -j "$(nproc 2>/dev/null || echo 2)" --target ggml-llm >build/demo.build.log 2>&1 || { tail -n 40 build/demo.build.log; exit 1; }
llm=build/release/tools/llm/ggml-llm

echo "== fetching the model (cached)"
model=$(sh tests/data/gguf/fetch-smollm2.sh) || { echo "demo: cannot fetch the model (see above)"; exit 1; }
echo "$model"

echo "== devices"
"$llm" --list-devices | tee build/demo.devices.txt
# the best device: the first GPU, else the CPU
best=$(awk '$2 == "GPU" || $2 == "iGPU" { print $1; exit }' build/demo.devices.txt)
best=${best:-CPU}
has_opencl=$(awk '$1 == "OpenCL0" { print "yes" }' build/demo.devices.txt)

question="Explain in three sentences why the sky is blue."
echo "== chat on $best: $question"
"$llm" -m "$model" --device "$best" --chat -p "$question" -n 128

# each device on the same prompt: the prompt and generation figures, and the greedy ids
prompt="The history of astronomy begins with the first people who looked at the night sky and tried to explain the motion of the Sun, the Moon and the planets. Over thousands of years"
n_gen=32
configs=("CPU|1" "CPU|2")
if [ -n "$has_opencl" ]; then
    configs+=("OpenCL0|2" "meta:OpenCL0,CPU|2")
else
    configs+=("meta:CPU,CPU|2")
fi
echo
echo "== $n_gen greedy tokens after a $(echo "$prompt" | wc -w)-word prompt, on each device"
printf '%-20s %8s %16s %20s %18s\n' device threads "prompt tok/s" "generation tok/s" "same ids as CPU"
ref=""
for c in "${configs[@]}"; do
    dev=${c%|*}
    th=${c#*|}
    if out=$("$llm" -m "$model" --device "$dev" --threads "$th" -p "$prompt" -n "$n_gen" --ignore-eos --ids 2>build/demo.err); then
        ids=$(printf '%s\n' "$out" | tail -n 3 | head -n 1)
        pp=$(printf '%s\n' "$out" | sed -n 's/^prompt: .* tokens in .* ms, \(.*\) tokens\/s$/\1/p')
        tg=$(printf '%s\n' "$out" | sed -n 's/^generation: .* tokens in .* ms, \(.*\) tokens\/s$/\1/p')
        if [ -z "$ref" ]; then ref=$ids; same="(reference)"; elif [ "$ids" = "$ref" ]; then same=yes; else same=no; fi
        printf '%-20s %8s %16s %20s %18s\n' "$dev" "$th" "$pp" "$tg" "$same"
    else
        printf '%-20s %8s %s\n' "$dev" "$th" "failed: $(head -n 1 build/demo.err)"
    fi
done

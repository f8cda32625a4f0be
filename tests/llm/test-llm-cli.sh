#!/bin/sh
# ggml-llm on the tiny models (made by gen-tiny-llama): it generates with the output lines the
# issue names; the same greedy ids with batch 512 and batch 3, on meta:CPU,CPU, and on OpenCL0 when present; bad
# input gives one clear line and a non-zero exit.
#   test-llm-cli.sh PATH/TO/ggml-llm PATH/TO/tiny-llama   (the models are PREFIX-f32.gguf etc.)
LLM=$1
TINY=$2
fail=0
tmp=${TMPDIR:-/tmp}/test-llm-cli.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

ids() {   # the --ids line of a run
    "$LLM" "$@" --ids -n 12 --ignore-eos > "$tmp/out" 2> "$tmp/err" || { echo "FAIL run: $*"; cat "$tmp/err"; fail=1; return; }
    grep -q '^prompt: [0-9]* tokens in .* ms, .* tokens/s$' "$tmp/out" || { echo "FAIL no prompt line: $*"; fail=1; }
    grep -q '^generation: 12 tokens in .* ms, .* tokens/s$' "$tmp/out" || { echo "FAIL no generation line: $*"; fail=1; }
    tail -n 3 "$tmp/out" | head -n 1
}

for m in f32 f16 qwen2; do
    a=$(ids -m "$TINY-$m.gguf" -p "the weather in the north is on the way")
    b=$(ids -m "$TINY-$m.gguf" -p "the weather in the north is on the way" --batch 3)
    c=$(ids -m "$TINY-$m.gguf" -p "hello" --chat)
    n=$(echo "$a" | wc -w)
    if [ "$n" -ne 12 ] || [ "$a" != "$b" ]; then echo "FAIL $m: batch 512 gives '$a', batch 3 gives '$b'"; fail=1; else echo "ok   $m: 12 greedy ids, batch 3 == batch 512: $a"; fi
    [ -n "$c" ] || { echo "FAIL $m: --chat"; fail=1; }
    e=$(ids -m "$TINY-$m.gguf" -p "the weather in the north is on the way" --device meta:CPU,CPU)
    if [ "$a" != "$e" ]; then echo "FAIL $m: meta:CPU,CPU gives '$e', CPU '$a'"; fail=1; else echo "ok   $m: meta:CPU,CPU == CPU"; fi
    if "$LLM" --verbose -m "$TINY-$m.gguf" -p x -n 1 2>&1 | grep -q '^  OpenCL0 '; then
        d=$(ids -m "$TINY-$m.gguf" -p "the weather in the north is on the way" --device OpenCL0)
        if [ "$a" != "$d" ]; then echo "FAIL $m: OpenCL0 gives '$d', CPU '$a'"; fail=1; else echo "ok   $m: OpenCL0 == CPU"; fi
    else
        echo "skip $m: no OpenCL0 device"
    fi
done

# --verbose: the device table, where the layers went and the one-token graph's placement
"$LLM" --verbose -m "$TINY-f32.gguf" -p x -n 1 > /dev/null 2> "$tmp/verbose"
if grep -q '^  CPU  *CPU ' "$tmp/verbose" && grep -q '^  layers 0-1: .* MiB of weights each in CPU, KV cache (f16, .*) in CPU$' "$tmp/verbose" &&
   grep -q '^one-token graph: [0-9]* nodes in 1 splits: [0-9]* on CPU; attention by ' "$tmp/verbose"; then
    echo "ok   --verbose: device table, layer placement, graph placement"
else
    echo "FAIL --verbose:"; cat "$tmp/verbose"; fail=1
fi

# --list-devices prints the table and exits; --random-prompt N evaluates N token ids (benchmarks)
"$LLM" --list-devices > "$tmp/devices" 2>&1 && grep -q '^  CPU  *CPU ' "$tmp/devices" &&
    echo "ok   --list-devices" || { echo "FAIL --list-devices:"; cat "$tmp/devices"; fail=1; }
"$LLM" -m "$TINY-f32.gguf" --random-prompt 20 -n 3 --ignore-eos > "$tmp/out" 2>&1 &&
    grep -q '^prompt: 20 tokens in ' "$tmp/out" && grep -q '^generation: 3 tokens in ' "$tmp/out" &&
    echo "ok   --random-prompt 20" || { echo "FAIL --random-prompt:"; cat "$tmp/out"; fail=1; }

# --help / -h: the options on stdout, exit 0
for h in --help -h; do
    "$LLM" $h > "$tmp/out" 2>&1 && grep -q -- '--model FILE' "$tmp/out" && grep -q -- '--device NAME' "$tmp/out" &&
        echo "ok   $h" || { echo "FAIL $h:"; cat "$tmp/out"; fail=1; }
done

# sampling with a seed is reproducible
s1=$(ids -m "$TINY-f32.gguf" -p "the" --temp 1.0 --seed 7)
s2=$(ids -m "$TINY-f32.gguf" -p "the" --temp 1.0 --seed 7)
[ -n "$s1" ] && [ "$s1" = "$s2" ] && echo "ok   --temp 1 --seed 7 reproducible" || { echo "FAIL sampling: '$s1' vs '$s2'"; fail=1; }

bad() {   # expect a non-zero exit and one line on stderr that starts with "error:"
    what=$1; shift
    "$LLM" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -ne 0 ] && [ "$(grep -c '^error: ' "$tmp/err")" -ge 1 ]; then
        echo "ok   $what: $(grep '^error: ' "$tmp/err" | head -n 1)"
    else
        echo "FAIL $what: exit $rc"; cat "$tmp/err"; fail=1
    fi
}
printf 'GGUF\003\000\000\000garbage' > "$tmp/corrupt.gguf"
long=$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "the weather "; }')
bad "missing file" -m "$tmp/none.gguf" -p hi
bad "corrupt file" -m "$tmp/corrupt.gguf" -p hi
bad "unknown architecture" -m "$TINY-mistery.gguf" -p hi
bad "prompt longer than the context" -m "$TINY-f32.gguf" -p "$long"
bad "unknown device" -m "$TINY-f32.gguf" -p hi --device NoSuchDevice
bad "unknown device in a meta list" -m "$TINY-f32.gguf" -p hi --device meta:CPU,NoSuchDevice
exit $fail

#!/usr/bin/env bash
# Quantized MUL_MAT, ours beside the family's CPU backend: bench/quant-matmul.c (public API only)
# built against our library and against the family's, each run in its own process, alternating
# (the order reversing every round); the table gives per type the medians over the rounds.
#
# Usage: bash bench/quant-peer.sh FAMILY_SRC [threads] [prompt_N] [types] [rounds] [clock]
#   FAMILY_SRC  the family's sources: the llama.cpp folder of the unpacked llama-cpp-python sdist
#               (vendor/llama.cpp), or its ggml/ folder. Nothing is downloaded and nothing of it is
#               committed. Its shared libraries are built under /tmp/ggml-quant-peer/build (Release,
#               native) unless FAMILY_LIBDIR names a folder that already holds libggml.so,
#               libggml-base.so and libggml-cpu.so of a build of the same sources.
#   threads 2, prompt_N 14336 (0: decode only), types "q4_0,q4_1,q8_0,q4_K,q5_K,q6_K,iq4_nl,iq4_xs", rounds 3,
#   clock wall (or cpu: process CPU time, for 1-thread comparisons on a loaded machine).
# Ours: build/release (configured and built here when missing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fam="${1:?usage: quant-peer.sh FAMILY_SRC [threads] [prompt_N] [types] [rounds] [clock]}"
nth="${2:-2}"; pn="${3:-14336}"; types="${4:-q4_0,q4_1,q8_0,q4_K,q5_K,q6_K,iq4_nl,iq4_xs}"
rounds="${5:-3}"; clk="${6:-wall}"
fam="$(cd "$fam" && pwd)"
# a llama.cpp tree is configured at its top (its ggml/ folder alone lacks files that a standalone
# ggml configure needs); a ggml checkout as it is
if [ -d "$fam/ggml/include" ]; then ggml_src="$fam/ggml"; else ggml_src="$fam"; fi
[ -f "$ggml_src/include/ggml-cpu.h" ] || { echo "quant-peer: no ggml-cpu.h under $ggml_src/include" >&2; exit 1; }

# the family's build is kept between runs in its own folder; each run's programs and outputs go
# to a fresh folder of its own (two runs at once would otherwise mix their results)
famb=/tmp/ggml-quant-peer/build
tmp="$(mktemp -d "${TMPDIR:-/tmp}/quant-peer.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
libdir="${FAMILY_LIBDIR:-}"
if [ -z "$libdir" ]; then
    libdir="$famb/bin"
    if [ ! -f "$libdir/libggml-cpu.so" ]; then
        cmake -S "$fam" -B "$famb" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=ON \
              -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
              -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF >/dev/null
        cmake --build "$famb" -j2 --target ggml ggml-cpu ggml-base >/dev/null
        [ -f "$libdir/libggml-cpu.so" ] || libdir="$(dirname "$(find "$famb" -name libggml-cpu.so | head -1)")"
    fi
fi
cc -O2 -std=c11 -I"$ggml_src/include" "$root/bench/quant-matmul.c" -L"$libdir" -Wl,-rpath,"$libdir" \
   -lggml -lggml-cpu -lggml-base -lpthread -lm -o "$tmp/quant-matmul-family"

if [ ! -f "$root/build/release/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$root/build/release" -j2 --target bench-quant-matmul >/dev/null
ours="$root/build/release/bench/quant-matmul"

echo "quant-peer: $nth threads, prompt N=$pn, $rounds rounds, clock $clk; load: $(uptime | sed 's/.*load average: //')"
for ((r = 0; r < rounds; r++)); do
    if (( r % 2 == 0 )); then order="ours family"; else order="family ours"; fi
    for lib in $order; do
        if [ "$lib" = ours ]; then bin="$ours"; else bin="$tmp/quant-matmul-family"; fi
        "$bin" "$nth" "$pn" "$types" "$clk" > "$tmp/out-$lib-$r.txt" 2>/dev/null || true
    done
done
echo "quant-peer: load after: $(uptime | sed 's/.*load average: //')"

python3 - "$tmp" "$rounds" <<'EOF'
import statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
# quant-matmul's rows: type | decode | read | 1-stream read | copy | fraction | prompt | of peak
def table(lib):
    rows, peaks = {}, []
    for r in range(rounds):
        for line in open(f"{tmp}/out-{lib}-{r}.txt"):
            if "int8 dot peak" in line:
                peaks.append(float(line.rsplit("peak", 1)[1].split()[0]))
            f = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(f) == 8 and f[0] not in ("type", "---"):
                star = f[6].endswith("*")
                pv = f[6].rstrip("*")
                rows.setdefault(f[0], []).append((float(f[1]), float(f[2]), float(pv) if pv != "-" else float("nan"), star))
    return rows, (statistics.median(peaks) if peaks else 0.0)
ours, peak = table("ours")
fam, _ = table("family")
med = lambda v, i: statistics.median(x[i] for x in v)
print(f"int8 dot peak (ours' runs): {peak:.1f} GOP/s; read: 4 streams per thread over 4x the L3, in each library's runs")
print("| type | decode GB/s | family decode GB/s | read GB/s | fraction | family fraction | prompt GFLOP/s | of int8 peak | family prompt GFLOP/s | prompt ratio |")
print("|---|---|---|---|---|---|---|---|---|---|")
for t, v in ours.items():
    d, m, p = med(v, 0), med(v, 1), med(v, 2)
    f = fam.get(t)
    fd = med(f, 0) if f else float("nan")
    fm = med(f, 1) if f else float("nan")
    fp = med(f, 2) if f else float("nan")
    star = "*" if v[0][3] else ""
    if p != p:  # decode only (prompt_N 0)
        print(f"| {t} | {d:.1f} | {fd:.1f} | {m:.1f} | {d/m:.2f} | {fd/fm:.2f} | - | - | - | - |")
        continue
    print(f"| {t} | {d:.1f} | {fd:.1f} | {m:.1f} | {d/m:.2f} | {fd/fm:.2f} | {p:.1f}{star} | {p/peak if peak else 0:.2f} | {fp:.1f} | {p/fp:.2f} |")
EOF

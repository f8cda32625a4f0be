#!/usr/bin/env bash
# Loads GGUF models in the family's own runtime: llama-cpp-python from PyPI (built from source by
# pip into a virtual environment under ${XDG_CACHE_HOME:-~/.cache}/ggml-c/llama-venv, kept for
# the next run), and generates a few tokens greedily from each. Used to check that files written
# by tools/quantize load and run there. Not run by CI (the build of llama-cpp-python takes long).
#
#   scripts/check-gguf-llama-cpp.sh MODEL.gguf [MODEL2.gguf ...]
# Prints each model's continuation of PROMPT (default "The capital of France is"); exit status 1
# when a model does not load or generates nothing.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,9p' "$0"; exit 2; }
venv="${LLAMA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ggml-c/llama-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import llama_cpp" 2>/dev/null; then
    echo "check: building llama-cpp-python into $venv (several minutes)" >&2
    CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-2}" \
        "$venv/bin/pip" install -q --disable-pip-version-check llama-cpp-python
fi
status=0
for model in "$@"; do
    "$venv/bin/python" - "$model" "${PROMPT:-The capital of France is}" <<'PY' || status=1
import sys
from llama_cpp import Llama
path, prompt = sys.argv[1], sys.argv[2]
llm = Llama(model_path=path, n_ctx=128, verbose=False)
text = llm(prompt, max_tokens=12, temperature=0.0)["choices"][0]["text"]
print(f"{path}: {prompt!r} -> {text!r}")
sys.exit(0 if text.strip() else 1)
PY
done
exit $status

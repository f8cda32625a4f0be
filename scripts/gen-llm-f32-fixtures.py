#!/usr/bin/env python3
"""Writes the unquantized-weights fixture of ggml-llm with the family's runtime (llama-cpp-python).

The quantized model's logits differ between any two runtimes by up to ~1 (each layer quantizes its
activations to 8 bits again, and a last-bit difference flips a rounding that the 30 layers amplify),
which hides real errors. With every weight dequantized to F32 nothing is re-quantized, and the two
runtimes must agree closely. Not run by CI (it needs llama-cpp-python and the `gguf` package):
    PYTHON scripts/gen-llm-f32-fixtures.py MODEL.Q4_1.gguf OUT_DIR

Writes OUT_DIR/f32-reference.txt, one line per configuration x prompt, tab-separated:
  config   "exact" (no flash attention, F32 KV cache) or "flash" (flash attention, F16 KV cache)
  kind     "plain" or "chat"
  prompt   JSON
  top      the 10 largest logits of the first generated position, "id:logit" space-separated
  greedy   32 greedy ids
  margins  their top-1 minus top-2 logits
The F32 model itself is written next to MODEL (MODEL with .F32.gguf) and not kept in the repository;
the test writes its own copy with this library's GGUF writer.
"""
import json
import os
import sys

PROMPTS = [("plain", "The capital of France is"), ("plain", "def fibonacci(n):"),
           ("plain", "Once upon a time"), ("chat", "What is the boiling point of water?"),
           ("chat", "Write a haiku about the sea.")]
CONFIGS = [("exact", False, 0), ("flash", True, 1)]   # name, flash attention, KV type (0 F32, 1 F16)
N_GEN = 32


def to_f32(src, dst):
    """Every tensor of src dequantized to F32 (metadata kept as it is)."""
    import numpy as np
    import gguf
    r = gguf.GGUFReader(src)
    w = gguf.GGUFWriter(dst, r.fields["general.architecture"].contents())
    for name, f in r.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        if f.types[0] == gguf.GGUFValueType.ARRAY:
            w.add_key_value(name, f.contents(), f.types[0], sub_type=f.types[-1])
        else:
            w.add_key_value(name, f.contents(), f.types[0])
    for t in r.tensors:
        data = gguf.quants.dequantize(t.data, t.tensor_type)
        shape = [int(x) for x in reversed(t.shape)]
        w.add_tensor(t.name, np.ascontiguousarray(np.asarray(data, dtype=np.float32).reshape(shape)))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def last_logits(llm):
    import llama_cpp
    import numpy as np
    ptr = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
    return np.array(np.ctypeslib.as_array(ptr, shape=(llm.n_vocab(),)), dtype=np.float64)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    import numpy as np
    from llama_cpp import Llama
    src, out = sys.argv[1], sys.argv[2]
    f32 = os.path.splitext(src)[0] + ".F32.gguf"
    if not os.path.exists(f32):
        to_f32(src, f32)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "f32-reference.txt"), "w") as f:
        for config, flash, kv_type in CONFIGS:
            llm = Llama(model_path=f32, n_ctx=512, n_threads=2, logits_all=False, flash_attn=flash,
                        type_k=kv_type, type_v=kv_type, verbose=False)
            for kind, prompt in PROMPTS:
                text = f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n" if kind == "chat" else prompt
                tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
                llm.reset()
                llm.eval(tokens)
                logits = last_logits(llm)
                top = " ".join(f"{i}:{logits[i]:.6f}" for i in np.argsort(-logits, kind="stable")[:10])
                ids, margins = [], []
                for _ in range(N_GEN):
                    two = np.partition(logits, -2)[-2:]
                    ids.append(int(np.argmax(logits)))
                    margins.append(abs(two[1] - two[0]))
                    llm.eval([ids[-1]])
                    logits = last_logits(llm)
                f.write("\t".join([config, kind, json.dumps(prompt), top, " ".join(map(str, ids)),
                                   " ".join(f"{m:.4f}" for m in margins)]) + "\n")
            del llm
    return 0


if __name__ == "__main__":
    sys.exit(main())

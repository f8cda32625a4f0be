#!/usr/bin/env python3
"""Writes the real-model fixtures of ggml-llm with the family's runtime (llama-cpp-python).

Not run by CI: it needs `pip install llama-cpp-python` (a source build of several minutes).
    PYTHON scripts/gen-llm-fixtures.py MODEL.gguf OUT_DIR

Writes to OUT_DIR:
  tokenizer.txt    one line per corpus line: the line's ids (space-separated), a tab, the line as
                   JSON (so whitespace and control characters survive)
  greedy.txt       per prompt: "plain"/"chat", a tab, the prompt as JSON, a tab, 64 greedy ids, a tab,
                   the 64 margins (top-1 minus top-2 logit) of those positions
  top-logits.txt   per prompt: the top-10 (id, logit) pairs of the first generated position
"""
import json
import os
import sys


def corpus():
    """A few thousand lines: English, code, numbers, Unicode, emoji, whitespace runs, specials."""
    words = ("the quick brown fox jumps over the lazy dog while Hello World isn't it we'll "
             "they've I'm you'd she's DON'T WE'RE O'Neil rock'n'roll").split()
    lines = []
    for i in range(1500):
        n = 3 + i % 11
        lines.append(" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(n)))
    for i in range(300):
        lines.append(f"{i * 7919 % 100000} + {i * 31} = {i * 7919 % 100000 + i * 31}; pi ~ 3.{i:04d}")
    numbers = ["1,234,567.89", "-0.5e-10", "0x1F", "v1.2.3", "2024-01-31T12:00:00Z", "½ ¾ ² ³",
               "٠١٢٣٤٥ ۶۷", "१२३ ४५६", "１２３ＡＢＣ", "Ⅻ ⅻ ① ⑳", "10^9 ≈ 1e9", "$3.50 €4,20 ¥100"]
    for i in range(150):
        lines.append(numbers[i % len(numbers)] + ("" if i % 3 else " ") + str(i * 13))
    code = ["def f(x):\n    return x ** 2", "for (int i = 0; i < n; i++) { s += a[i]; }",
            "if __name__ == '__main__':\n\tmain()", "SELECT * FROM t WHERE id = 42;",
            "fn main() { println!(\"{}\", 1 << 3); }", "<div class=\"x\">&amp;</div>",
            "    x = {'a': [1, 2], \"b\": None}  # comment", "#include <stdio.h>\r\nint main(void);"]
    for i in range(300):
        lines.append(code[i % len(code)] + " " * (i % 5))
    uni = ["café naïve résumé", "日本語のテキスト", "中文分词测试，标点。", "Ελληνικά και русский",
           "emoji 😀👍🏽🇫🇷 mixed", "¿Qué tal? ¡Bien!", "math ∑ ∫ √ ≤ ≥", "العربية", "한국어 문장",
           "e\u0301 a\u0308 n\u0303 (combining)", "Zalgo z\u0336\u0337a\u0352", "Ångström ﬁ ﬂ straße",
           "“quotes” ‘single’ — dash … ellipsis", "tab\u00a0nbsp\u3000ideo\u2009thin", "हिन्दी देवनागरी",
           "ไทย ภาษา", "עברית", "👨‍👩‍👧‍👦 family ❤️ ✨", "Ω≈ç√∫˜µ≤≥÷", "ß ẞ İ ı ǅ ǈ", "\u200bzero\u200dwidth",
           "Straße_123_ÄÖÜ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛", "\u0085next\u2028line\u2029para"]
    for i in range(600):
        lines.append(uni[i % len(uni)] + (" " * (i % 4)) + str(i))
    for i in range(200):
        lines.append(" " * (1 + i % 6) + "x" + "\t" * (i % 3) + "y" + "\n" * (i % 2) + " " * (i % 4) +
                     ("z" if i % 5 else "") + "\r\n" * (i % 7 == 0))
    specials = ["<|im_start|>user\nhi<|im_end|>", "<|endoftext|>", "a<|im_end|>b", "<|im_start|>assistant\n",
                "x <|im_end|> y", "<|im_start|><|im_end|>", "<not special>", "<|im_end"]
    for i in range(120):
        lines.append(specials[i % len(specials)])
    return lines


PROMPTS = [("plain", "The capital of France is"), ("plain", "def fibonacci(n):"),
           ("plain", "Once upon a time"), ("chat", "What is the boiling point of water?"),
           ("chat", "Write a haiku about the sea.")]


def last_logits(llm):
    """The logits of the last evaluated token (Llama.scores stays empty without logits_all)."""
    import llama_cpp
    import numpy as np
    ptr = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
    return np.array(np.ctypeslib.as_array(ptr, shape=(llm.n_vocab(),)), dtype=np.float64)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    from llama_cpp import Llama  # only needed here
    import numpy as np
    model, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    # flash attention on, as ggml-llm uses it by default on the CPU: the family's CPU attention with
    # and without it differs by ~0.3 on the first logits of these prompts (its F16 rounding differs)
    llm = Llama(model_path=model, n_ctx=2048, n_threads=2, logits_all=False, flash_attn=True, verbose=False)
    with open(os.path.join(out, "tokenizer.txt"), "w", encoding="utf-8") as f:  # (independent of flash_attn)
        for line in corpus():
            ids = llm.tokenize(line.encode("utf-8"), add_bos=False, special=True)
            f.write(" ".join(map(str, ids)) + "\t" + json.dumps(line, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "greedy.txt"), "w") as g, open(os.path.join(out, "top-logits.txt"), "w") as t:
        for kind, prompt in PROMPTS:
            text = (f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n" if kind == "chat" else prompt)
            tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            llm.reset()
            llm.eval(tokens)
            logits = last_logits(llm)
            top = np.argsort(-logits, kind="stable")[:10]
            t.write(" ".join(f"{i}:{logits[i]:.6f}" for i in top) + "\n")
            out_ids, margins = [], []
            for _ in range(64):
                nxt = int(np.argmax(logits))
                top2 = np.partition(logits, -2)[-2:]
                margins.append(abs(top2[1] - top2[0]))
                out_ids.append(nxt)
                llm.eval([nxt])
                logits = last_logits(llm)
            g.write(kind + "\t" + json.dumps(prompt) + "\t" + " ".join(map(str, out_ids)) + "\t" +
                    " ".join(f"{m:.3f}" for m in margins) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

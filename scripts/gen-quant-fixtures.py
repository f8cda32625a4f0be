#!/usr/bin/env python3
"""Write the quantization fixtures of tests/test-quants-reference.c into tests/data/quants/.

The reference is the `gguf` Python package (gguf.quants, the family's own). Not run by CI; the
fixtures are committed. Rerun after a gguf release changes a format:

    pip install gguf && python3 scripts/gen-quant-fixtures.py [--seed N]

One file per type, <type name>.bin, little-endian:
    char[4] "GQF1"; u32 type id; u32 n_per_row; u32 rows_q; u32 rows_d; u32 row_bytes
    rows_q x n_per_row f32    input rows          } where the package quantizes the type
    rows_q x row_bytes        the package's bytes }
    rows_d x row_bytes        random valid blocks           } where the package dequantizes it
    rows_d x n_per_row f32    the package's dequantization  }
"""
import argparse
import os
import struct

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants as gq
from gguf.constants import GGML_QUANT_SIZES

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "quants")
N_PER_ROW = 256

QUANTIZED_BY_PACKAGE = [T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.MXFP4, T.TQ1_0, T.TQ2_0]
DEQUANTIZED_BY_PACKAGE = [T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K,
                          T.IQ2_XXS, T.IQ2_XS, T.IQ2_S, T.IQ3_XXS, T.IQ3_S, T.IQ1_S, T.IQ1_M,
                          T.IQ4_NL, T.IQ4_XS, T.TQ1_0, T.TQ2_0, T.MXFP4, T.NVFP4]

# byte offsets of the fp16 scales in a block: set to finite values in all but the last random row
FP16_SCALES = {
    T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
    T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208],
    T.IQ2_XXS: [0], T.IQ2_XS: [0], T.IQ2_S: [0], T.IQ3_XXS: [0], T.IQ3_S: [0], T.IQ1_S: [0],
    T.IQ4_NL: [0], T.IQ4_XS: [0], T.TQ1_0: [52], T.TQ2_0: [64],
}


def quantize_inputs(rng, block):
    rows = []
    for e in range(-6, 5):  # every scale 1e-6 .. 1e4
        rows.append(rng.standard_normal(N_PER_ROW) * 10.0 ** e)
    rows.append(np.zeros(N_PER_ROW))                       # zero blocks
    rows.append(np.full(N_PER_ROW, 0.7))                   # constant blocks
    rows.append(np.full(N_PER_ROW, -3.25e3))
    r = rng.uniform(-1, 1, N_PER_ROW)                      # one spike per block, rest tiny
    r[::block] = 6.0e4 * np.sign(rng.standard_normal(N_PER_ROW // block))
    rows.append(r)
    r = rng.standard_normal(N_PER_ROW) * 10.0 ** rng.uniform(-7, 4, N_PER_ROW)  # mixed scales
    r[rng.integers(0, N_PER_ROW, 8)] = 0.0
    rows.append(r)
    return np.array(rows, dtype=np.float32)


def random_blocks(rng, qtype, rows):
    block, tsize = GGML_QUANT_SIZES[qtype]
    nb = N_PER_ROW // block
    data = rng.integers(0, 256, (rows, nb, tsize), dtype=np.uint8)
    offs = FP16_SCALES.get(qtype, [])
    for r in range(rows - 1):  # the last row keeps whatever the random bytes say (NaN/Inf included)
        for off in offs:
            d = (rng.standard_normal(nb) * 10.0 ** rng.uniform(-5, 2, nb)).astype(np.float16)
            data[r, :, off:off + 2] = d.view(np.uint8).reshape(nb, 2)
    if qtype == T.IQ1_M and rows > 1:  # the scale lives in the top nibbles of 4 words: make it finite
        sc = data[:rows - 1, :, 48:56].copy().view(np.uint16)
        d = (rng.standard_normal((rows - 1, nb)) * 0.01).astype(np.float16).view(np.uint16)
        for w in range(4):
            nib = (d >> (4 * w)) & 0xF
            sc[..., w] = (sc[..., w] & 0x0FFF) | (nib << 12).astype(np.uint16)
        data[:rows - 1, :, 48:56] = sc.view(np.uint8)
    return data.reshape(rows, nb * tsize)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--rows-d", type=int, default=6)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for qtype in sorted(set(QUANTIZED_BY_PACKAGE) | set(DEQUANTIZED_BY_PACKAGE), key=int):
        block, tsize = GGML_QUANT_SIZES[qtype]
        row_bytes = N_PER_ROW // block * tsize
        parts = []
        rows_q = rows_d = 0
        if qtype in QUANTIZED_BY_PACKAGE:
            x = quantize_inputs(rng, block)
            q = gq.quantize(x, qtype)
            rows_q = x.shape[0]
            parts += [x.tobytes(), np.ascontiguousarray(q).tobytes()]
        if qtype in DEQUANTIZED_BY_PACKAGE:
            blocks = random_blocks(rng, qtype, a.rows_d)
            with np.errstate(all="ignore"):
                y = gq.dequantize(blocks, qtype).astype(np.float32)
            rows_d = blocks.shape[0]
            parts += [blocks.tobytes(), y.tobytes()]
        head = b"GQF1" + struct.pack("<5I", int(qtype), N_PER_ROW, rows_q, rows_d, row_bytes)
        path = os.path.join(OUT, qtype.name.lower() + ".bin")
        with open(path, "wb") as f:
            f.write(head + b"".join(parts))
        total += os.path.getsize(path)
    print(f"gen-quant-fixtures: wrote {OUT} ({total} bytes)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the GGUF test fixtures of tests/data/gguf/ with the `gguf` Python package (the format's
reference implementation), and beside each X.gguf the file X.expected: the file as the package
reads it back (tests/data/gguf/canon-dump.py). tests/test-gguf-fixtures.c reads every fixture
with our reader and compares.

Usage: python3 scripts/gen-gguf-fixtures.py   (needs: pip install gguf numpy)
The fixtures are committed; rerun only to change them.
"""
import os
import runpy
import sys

import numpy as np
import gguf
from gguf import GGUFWriter, GGUFValueType, GGMLQuantizationType

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out_dir = os.path.join(root, "tests", "data", "gguf")
dump = runpy.run_path(os.path.join(out_dir, "canon-dump.py"))["dump"]
rng = np.random.default_rng(1234)

SCALARS = [
    ("t.u8", 200, GGUFValueType.UINT8), ("t.i8", -100, GGUFValueType.INT8),
    ("t.u16", 60000, GGUFValueType.UINT16), ("t.i16", -30000, GGUFValueType.INT16),
    ("t.u32", 4000000000, GGUFValueType.UINT32), ("t.i32", -2000000000, GGUFValueType.INT32),
    ("t.f32", 3.14159274, GGUFValueType.FLOAT32), ("t.bool", True, GGUFValueType.BOOL),
    ("t.bool_false", False, GGUFValueType.BOOL),
    ("t.str", "hello", GGUFValueType.STRING), ("t.str_empty", "", GGUFValueType.STRING),
    ("t.str_unicode", "Grüße, 世界 🌍", GGUFValueType.STRING),
    ("t.u64", 18000000000000000000, GGUFValueType.UINT64), ("t.i64", -9000000000000000000, GGUFValueType.INT64),
    ("t.f64", -2.718281828459045, GGUFValueType.FLOAT64),
    ("ключ.unicode", 7, GGUFValueType.UINT32),
]

ARRAYS = [
    ("a.u8", [0, 1, 255], GGUFValueType.UINT8), ("a.i8", [-128, 0, 127], GGUFValueType.INT8),
    ("a.u16", [1, 65535], GGUFValueType.UINT16), ("a.i16", [-32768, 32767], GGUFValueType.INT16),
    ("a.u32", [1, 2, 3, 4294967295], GGUFValueType.UINT32), ("a.i32", [-5, 5, -2147483648], GGUFValueType.INT32),
    ("a.f32", [0.5, -1.25, 1e-30, 3e38], GGUFValueType.FLOAT32), ("a.bool", [True, False, True], GGUFValueType.BOOL),
    ("a.u64", [0, 18446744073709551615], GGUFValueType.UINT64),
    ("a.i64", [-9223372036854775808, 9223372036854775807], GGUFValueType.INT64),
    ("a.f64", [1e-300, -1e300, 0.1], GGUFValueType.FLOAT64),
    ("a.str", ["a", "", "ünïcödé", "tab\tand\nnewline"], GGUFValueType.STRING),
    ("a.empty_u32", [], GGUFValueType.UINT32), ("a.empty_str", [], GGUFValueType.STRING),
]


class Writer(GGUFWriter):
    """The package's writer refuses empty arrays, which the format allows (and which the family's
    files contain, e.g. an empty merges list): this packs them as type, sub-type, count 0."""

    def _pack_val(self, val, vtype, add_vtype, sub_type=None):
        if vtype == GGUFValueType.ARRAY and isinstance(val, (list, tuple)) and len(val) == 0:
            out = self._pack("I", vtype) if add_vtype else b""
            return out + self._pack("I", sub_type) + self._pack("Q", 0)
        return super()._pack_val(val, vtype, add_vtype, sub_type=sub_type)


def add_kv(w):
    for key, val, t in SCALARS:
        w.add_key_value(key, val, t)
    for key, val, t in ARRAYS:
        w.add_key_value(key, val, GGUFValueType.ARRAY, sub_type=t)


def finish(w, path):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with open(path[:-5] + ".expected", "w", encoding="utf-8") as f:
        f.write(dump(path))
    print("wrote", os.path.relpath(path, root))


def q8_0_bytes(rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    return gguf.quants.quantize(x, GGMLQuantizationType.Q8_0)


def q4_0_bytes(rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    return gguf.quants.quantize(x, GGMLQuantizationType.Q4_0)


def add_tensors(w):
    w.add_tensor("f32.matrix", rng.standard_normal((3, 5)).astype(np.float32))
    w.add_tensor("f32.vector_odd", rng.standard_normal(7).astype(np.float32))
    w.add_tensor("f16.weight", rng.standard_normal((2, 9)).astype(np.float16))
    w.add_tensor("i32.ids", np.arange(-3, 10, dtype=np.int32))
    w.add_tensor("q8_0.weight", q8_0_bytes(4, 64), raw_dtype=GGMLQuantizationType.Q8_0)
    w.add_tensor("q4_0.weight", q4_0_bytes(2, 32), raw_dtype=GGMLQuantizationType.Q4_0)
    w.add_tensor("f32.4d", rng.standard_normal((2, 3, 1, 4)).astype(np.float32))
    w.add_tensor("blk.0.ünï", rng.standard_normal(3).astype(np.float32))


def main():
    # every key/value type, no tensors
    w = Writer(os.path.join(out_dir, "kv-all-types.gguf"), arch="fixture")
    add_kv(w)
    finish(w, os.path.join(out_dir, "kv-all-types.gguf"))

    # tensors of several types, default alignment (32)
    path = os.path.join(out_dir, "tensors-align32.gguf")
    w = Writer(path, arch="fixture")
    w.add_key_value("t.name", "align 32", GGUFValueType.STRING)
    add_tensors(w)
    finish(w, path)

    # the same with general.alignment = 64 and every key type
    path = os.path.join(out_dir, "tensors-align64.gguf")
    w = Writer(path, arch="fixture")
    w.add_custom_alignment(64)
    add_kv(w)
    add_tensors(w)
    finish(w, path)

    # a tensor holding a NaN: read fine, refused by `gguf check`
    path = os.path.join(out_dir, "nan-f32.gguf")
    w = Writer(path, arch="fixture")
    w.add_tensor("good", np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32))
    w.add_tensor("bad", np.array([1.0, np.nan, 3.0, 4.0], dtype=np.float32))
    finish(w, path)

    # nothing but the header and the architecture
    path = os.path.join(out_dir, "minimal.gguf")
    w = Writer(path, arch="fixture")
    finish(w, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

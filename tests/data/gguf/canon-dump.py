#!/usr/bin/env python3
"""Prints a GGUF file as the `gguf` Python package reads it, in a canonical text form that the
C tests (tests/test-gguf-fixtures.c, tests/test-gguf-interop.c) print the same way:

    version V / alignment A / [data_offset D]
    kv <key, hex> <type> <value>               (scalars)
    kv <key, hex> arr[<type>] <n> <v1> <v2> ... (arrays)
    tensor <name, hex> <ggml type id> <ne0>,<ne1>,<ne2>,<ne3> <offset in the data section> <FNV-1a 64 of the data>

Integers in decimal, f32 as %.9g, f64 as %.17g, bools 0/1, strings as the hex of their UTF-8
bytes ("-" when empty). Exit status 77 when the gguf package is not installed.
Usage: canon-dump.py [--no-data] FILE   (--no-data: every data hash printed as 0)
"""
import sys

try:
    import numpy as np
    from gguf import GGUFReader, GGUFValueType
except ImportError as e:  # the C tests skip when the package is missing
    print(f"canon-dump: the gguf Python package is not installed ({e})", file=sys.stderr)
    sys.exit(77)

TYPE_NAMES = {
    GGUFValueType.UINT8: "u8", GGUFValueType.INT8: "i8", GGUFValueType.UINT16: "u16",
    GGUFValueType.INT16: "i16", GGUFValueType.UINT32: "u32", GGUFValueType.INT32: "i32",
    GGUFValueType.FLOAT32: "f32", GGUFValueType.BOOL: "bool", GGUFValueType.STRING: "str",
    GGUFValueType.UINT64: "u64", GGUFValueType.INT64: "i64", GGUFValueType.FLOAT64: "f64",
}


def fnv1a64(data: bytes) -> int:
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def hexs(b: bytes) -> str:
    return b.hex() if b else "-"


def fmt(t, part) -> str:
    if t == GGUFValueType.STRING:
        return hexs(bytes(part))
    v = part[0]
    if t == GGUFValueType.FLOAT32:
        return "%.9g" % float(v)
    if t == GGUFValueType.FLOAT64:
        return "%.17g" % float(v)
    if t == GGUFValueType.BOOL:
        return "1" if int(v) != 0 else "0"
    return str(int(v))


def dump(path: str, with_data: bool = True) -> str:
    r = GGUFReader(path)
    out = []
    out.append("version %d" % int(r.fields["GGUF.version"].parts[-1][0]))
    out.append("alignment %d" % r.alignment)
    if len(r.tensors) > 0:
        out.append("data_offset %d" % r.data_offset)
    for name, f in r.fields.items():
        if name.startswith("GGUF."):
            continue
        key = hexs(name.encode("utf-8"))
        t = f.types[0]
        if t == GGUFValueType.ARRAY:
            # parts: key length, key, ARRAY, element type, count, elements...
            sub = GGUFValueType(int(f.parts[3][0]))
            n = int(f.parts[4][0])
            vals = [fmt(sub, f.parts[i]) for i in f.data]
            assert len(vals) == n
            out.append(" ".join(["kv", key, "arr[%s]" % TYPE_NAMES[sub], str(len(vals))] + vals))
        else:
            out.append(" ".join(["kv", key, TYPE_NAMES[t], fmt(t, f.parts[f.data[0]])]))
    for t in r.tensors:
        ne = [int(x) for x in t.shape] + [1] * (4 - len(t.shape))
        digest = fnv1a64(np.ascontiguousarray(t.data).tobytes()) if with_data else 0
        out.append("tensor %s %d %s %d %016x" % (hexs(t.name.encode("utf-8")), int(t.tensor_type),
                                                ",".join(str(x) for x in ne), t.data_offset - r.data_offset,
                                                digest))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--no-data"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.stdout.write(dump(args[0], with_data="--no-data" not in sys.argv))

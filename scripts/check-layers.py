#!/usr/bin/env python3
"""Checks the library's layering from the symbols of its object files.

Layers, from the bottom:
  core     src/*.c except the two below: tensors, ops, graphs, types, memory, log
  backend  src/ggml-backend*.c, src/ggml-alloc*.c: buffers, backends, registry, scheduler, allocators
  gguf     src/gguf*.c: the model file format; it reads and writes tensors through backend buffers
  cpu      src/ggml-cpu/     } two backends side by side: they may use core and backend,
  opencl   src/ggml-opencl/  } not each other
(tests and tools link the library and sit above everything; they are not checked here.)

A file may use symbols of its own layer and of the layers below. Every other edge (a file using
a symbol defined in a higher layer or in a sibling backend) must be listed in the allow-list,
one `<file> <symbol>` per line with a comment saying why; anything else fails.

  check-layers.py --objects DIR [--nm NM] [--allow FILE] [--src SRC] [--extra PATH=OBJECT ...]

DIR is the object directory of the ggml-obj target (build/<x>/src/CMakeFiles/ggml-obj.dir); the
source path of each object is read from its place there. --extra adds an object as if it were
compiled from PATH (the checker's own test injects an upward edge this way).
"""

import argparse
import os
import subprocess
import sys

LAYER_RANK = {"core": 0, "backend": 1, "gguf": 2, "cpu": 3, "opencl": 3}


def layer_of(path):
    """path is relative to the repository root, e.g. src/ggml-cpu/ops-copy.c"""
    parts = path.split("/")
    # a backend's folder and everything under it (src/ggml-cpu/arch/x86/... is the CPU layer)
    if len(parts) >= 3 and parts[0] == "src" and parts[1] == "ggml-cpu":
        return "cpu"
    if len(parts) >= 3 and parts[0] == "src" and parts[1] == "ggml-opencl":
        return "opencl"
    if len(parts) == 2 and parts[0] == "src":
        name = parts[1]
        if name.startswith("ggml-backend") or name.startswith("ggml-alloc"):
            return "backend"
        if name.startswith("gguf"):
            return "gguf"
        return "core"
    return None


def upward(from_layer, to_layer):
    if from_layer == to_layer:
        return False
    return LAYER_RANK[to_layer] >= LAYER_RANK[from_layer]


def symbols_of_all(nm, objs):
    """{object: (defined globals, undefined)}, from one run of nm"""
    out = subprocess.run([nm, "-P", "-A"] + objs, check=True, capture_output=True, text=True).stdout
    table = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        # "<object>: <name> <type> [<value> <size>]"; the object's path may hold spaces
        head, sep, rest = line.rpartition(": ")
        fields = rest.split()
        if not sep or head not in table or len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            table[head][1].add(name)
        elif kind in "TDBRCVWGS":  # upper case: global
            table[head][0].add(name)
    return table


def read_allow(path):
    allowed = {}
    if path is None:
        return allowed
    with open(path) as f:
        for n, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            fields = text.split()
            if len(fields) != 2:
                sys.exit(f"{path}:{n}: expected '<file> <symbol>', got: {line.rstrip()}")
            allowed[(fields[0], fields[1])] = n
    return allowed


def main():
    ap = argparse.ArgumentParser(description="layer check over nm of the object files")
    ap.add_argument("--objects", required=True)
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--allow")
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"),
                    help="the source tree's src/ (objects whose source no longer exists are stale and skipped)")
    ap.add_argument("--extra", action="append", default=[], metavar="PATH=OBJECT")
    args = ap.parse_args()

    objects = {}  # source path -> object file
    for root, _, files in os.walk(args.objects):
        for f in files:
            if not f.endswith(".c.o"):
                continue
            rel = os.path.relpath(os.path.join(root, f), args.objects)[: -len(".o")].replace(os.sep, "/")
            if os.path.exists(os.path.join(args.src, rel)):
                objects["src/" + rel] = os.path.join(root, f)
    for e in args.extra:
        path, _, obj = e.partition("=")
        objects[path] = obj
    if not objects:
        sys.exit(f"check-layers: no object files under {args.objects}")

    by_object = symbols_of_all(args.nm, list(objects.values()))
    table = {p: by_object[o] for p, o in objects.items()}
    definer = {}
    for p, (defined, _) in table.items():
        for s in defined:
            definer.setdefault(s, p)

    allowed = read_allow(args.allow)
    used_allow = set()
    violations = []
    n_edges = 0
    for p in sorted(table):
        lp = layer_of(p)
        if lp is None:
            continue
        for s in sorted(table[p][1]):
            q = definer.get(s)
            if q is None or q == p:
                continue  # outside the library (libc, OpenCL, sanitizer runtime) or its own
            lq = layer_of(q)
            if lq is None or not upward(lp, lq):
                continue
            n_edges += 1
            if (p, s) in allowed:
                used_allow.add((p, s))
            else:
                violations.append(f"layer violation: {lp} {p} -> {lq} {q}: {s}")

    for (p, s), n in sorted(allowed.items(), key=lambda kv: kv[1]):
        if (p, s) not in used_allow and p in table:
            print(f"check-layers: note: allow-list line {n} ({p} {s}) is not used by this build")
    for v in violations:
        print(v)
    print(f"check-layers: {len(table)} objects, {n_edges} cross-layer edges, {len(violations)} not allowed")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())

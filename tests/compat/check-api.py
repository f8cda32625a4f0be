#!/usr/bin/env python3
# Polices the public API surface against the shared library:
#   - every function our public headers declare (GGML_API / GGML_BACKEND_API) must be exported by
#     libggml.so, or programs linking the installed library fail to link (exit code 1 if not);
#   - with --family, also lists the functions of the ggml family (tests/compat/family-api.txt) that
#     our headers do not declare yet: the compatibility gaps (informational, exit code unaffected).
# A header given with --optional (a backend that may be left out of the build, e.g. ggml-opencl.h)
# is only checked when the library exports at least one of its functions.
#
# usage: check-api.py --include DIR --lib libggml.so [--nm nm] [--family family-api.txt] [--optional HEADER]...

import argparse
import os
import re
import subprocess
import sys

DECL = re.compile(r'\bGGML(?:_BACKEND)?_API\b[^;{}]*?\b((?:ggml|gguf)_\w+)\s*\(', re.S)
COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)


def declared_functions(include_dir):
    names = {}
    for fname in sorted(os.listdir(include_dir)):
        if not fname.endswith('.h'):
            continue
        with open(os.path.join(include_dir, fname), encoding='utf-8') as f:
            text = COMMENT.sub(' ', f.read())
        for m in DECL.finditer(text):
            names.setdefault(m.group(1), fname)
    return names


def exported_functions(nm, lib):
    out = subprocess.run([nm, '-D', '--defined-only', lib], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in ('T', 'W', 'i'):
            names.add(parts[2].split('@')[0])
    return names


def family_functions(path):
    names, section = {}, ''
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            if line.startswith('['):
                section = line.strip('[]')
                continue
            names.setdefault(line, section)
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--include', required=True)
    ap.add_argument('--lib', required=True)
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--family')
    ap.add_argument('--optional', action='append', default=[])
    args = ap.parse_args()

    declared = declared_functions(args.include)
    exported = exported_functions(args.nm, args.lib)
    for header in args.optional:
        names = [n for n, h in declared.items() if h == header]
        if names and not any(n in exported for n in names):
            print(f'check-api: {header} not built into the library, its {len(names)} functions are not checked')
            for n in names:
                exported.add(n)
    missing = sorted(n for n in declared if n not in exported)

    print(f'check-api: {len(declared)} functions declared in {args.include}, {len(exported)} exported by {os.path.basename(args.lib)}')
    for n in missing:
        print(f'  NOT EXPORTED: {n} (declared in {declared[n]})')

    if args.family:
        family = family_functions(args.family)
        gaps = [n for n in family if n not in declared]
        print(f'check-api: {len(family)} functions of the family, {len(gaps)} not declared by our headers')
        by_section = {}
        for n in gaps:
            by_section.setdefault(family[n], []).append(n)
        for section, names in by_section.items():
            print(f'  gaps in {section}: ' + ' '.join(names))

    print(f'check-api: {"FAILED" if missing else "ok"}')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())

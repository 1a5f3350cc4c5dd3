#!/usr/bin/env python3
"""Cuts the translation units of a clang-tidy run into batches (tools/lint.sh).

Usage: lint-batches.py BUILD_DIR OUT_DIR BATCH_SIZE [--header-filter REGEX] FILE...

FILE: absolute paths of .cc files that BUILD_DIR/compile_commands.json
compiles. Files of one target compiled with the same flags (same directory
and command but for the source and its object file) are cut, in path
order, into batches of at most BATCH_SIZE and near-equal size; each batch
is a generated source in OUT_DIR that includes its files, and
OUT_DIR/compile_commands.json compiles it with their flags. A file left
alone keeps its own compile command.

clang-tidy spends most of its time on what a unit includes (the standard
library, GoogleTest, nlohmann-json, yaml-cpp), not on the file itself, so
one unit of many files costs far less than a unit per file. The files' own
diagnostics are unchanged: they are included files under the
HeaderFilterRegex of .clang-tidy, reported with their own paths and lines.
--header-filter: that regex; a file it does not match (whose findings
clang-tidy would drop as an included file's) is never batched.

Prints one line per unit: its path, a tab, the files it checks (spaces
between). Exit 2 on a file the compile commands do not hold.
"""
import json
import os
import re
import shlex
import sys


def arguments(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def flags(entry):
    """The compile command without the source, -c and the object file, and
    the target the object file belongs to (CMake: its CMakeFiles/<target>.dir):
    files of two programs (two main functions) are never one unit."""
    args, out, target, skip = arguments(entry), [], "", False
    for a in args:
        if skip:
            skip = False
            target = a.split(".dir/")[0] if ".dir/" in a else ""
        elif a == "-o":
            skip = True
        elif a == "-c" or a == entry["file"] or a.startswith("-o"):
            continue
        else:
            out.append(a)
    return target, out


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    build, out_dir, size, files = argv[0], argv[1], int(argv[2]), argv[3:]
    header_filter = None
    if files[:1] == ["--header-filter"] and len(files) >= 2:
        header_filter, files = re.compile(files[1]), files[2:]
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = {e["file"]: e for e in json.load(f)}
    groups = {}
    for path in sorted(set(files)):
        if path not in entries:
            print(f"lint-batches: {path}: not in {build}/compile_commands.json", file=sys.stderr)
            return 2
        e = entries[path]
        target, args = flags(e)
        if header_filter and not header_filter.search(path):
            target = path  # a group of its own
        groups.setdefault((e["directory"], target, tuple(args)), []).append(path)
    os.makedirs(out_dir, exist_ok=True)
    database, lines = [], []
    for (directory, _, args), paths in groups.items():
        count = -(-len(paths) // max(size, 1))  # batches of near-equal size
        for i in range(count):
            chunk = paths[i * len(paths) // count:(i + 1) * len(paths) // count]
            if len(chunk) == 1:
                database.append(entries[chunk[0]])
                lines.append(f"{chunk[0]}\t{chunk[0]}")
                continue
            unit = os.path.join(out_dir, f"batch_{len(lines):03d}.cc")
            with open(unit, "w", encoding="utf-8") as f:
                f.write("// tools/lint.sh: these files checked as one unit\n")
                f.writelines(f'#include "{p}"\n' for p in chunk)
            database.append({"directory": directory, "arguments": list(args) + ["-c", unit], "file": unit})
            lines.append(f"{unit}\t{' '.join(chunk)}")
    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(database, f, indent=1)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

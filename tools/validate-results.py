#!/usr/bin/env python3
"""Validates results.json files against schema/results.schema.json.

Usage: validate-results.py [--expect-invalid] PATH...

Each PATH is a file or a directory searched for results.json files. Every
file is checked with the jsonschema package (Debian: python3-jsonschema), an
implementation of JSON Schema independent of nbcguard's own reader.

Exit 0 when every file is valid (with --expect-invalid: when every file is
rejected), 1 otherwise, 2 when no file was found, 77 (CTest's skip code)
when the jsonschema package is missing.
"""
import json
import os
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema", "results.schema.json")


def files_under(paths):
    found = []
    for p in paths:
        if os.path.isfile(p):
            found.append(p)
        for root, _, names in os.walk(p):
            found += [os.path.join(root, n) for n in names if n == "results.json"]
    return sorted(set(found))


def where(error):
    path = ""
    for part in error.absolute_path:
        path += "[%d]" % part if isinstance(part, int) else ("." if path else "") + part
    return path or "(document)"


def main(argv):
    expect_invalid = "--expect-invalid" in argv
    paths = [a for a in argv if a != "--expect-invalid"]
    try:
        import jsonschema
    except ImportError:
        print("validate-results: SKIP: the jsonschema package is missing (apt-get install python3-jsonschema)")
        return 77
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = files_under(paths)
    if not files:
        print("validate-results: no results.json under " + " ".join(paths))
        return 2
    wrong = 0
    for name in files:
        try:
            with open(name, encoding="utf-8") as f:
                doc = json.load(f)
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
            problem = "%s: %s" % (where(errors[0]), errors[0].message) if errors else ""
        except (ValueError, RecursionError) as e:  # not JSON, or nested past Python's recursion limit
            problem = "not valid JSON: %s" % (str(e)[:200] or type(e).__name__)
        if bool(problem) != expect_invalid:
            wrong += 1
        status = ("rejected: " + problem) if problem else "valid"
        print("%s: %s" % (name, status))
    expected = "rejected" if expect_invalid else "valid"
    print("validate-results: %d file(s), %d not %s as expected" % (len(files), wrong, expected))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The CI tier's split of the library-independent tests, on this build's own
test list (ctest --show-only=json-v1).

NBCGUARD_CI_SHARED_TESTS names the one library whose build runs the tests
labelled library-independent in its CI tier (quick); "all" means every
build. In a build that keeps them, every one of them is in quick. In a
build that does not, none is, and none is lost: an MPI one is in the
nightly tier, any other keeps a label of its own kind (unit, report,
history, ...). Every MPI test, shared or not, is in exactly one of quick
and nightly.

    check_shared_split.py CTEST BUILD_DIR SETTING IMPL

Exit 0 when the list agrees, 1 with one line per test that does not.
"""
import json
import subprocess
import sys

SHARED = "library-independent"
TIERS = ("quick", "nightly")


def labels_of(test):
    for prop in test.get("properties", []):
        if prop.get("name") == "LABELS":
            return set(prop.get("value", []))
    return set()


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[-3].strip(), file=sys.stderr)
        return 2
    ctest, build, setting, impl = argv[1:]
    listing = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, check=True,
                             capture_output=True, text=True).stdout
    tests = {t["name"]: labels_of(t) for t in json.loads(listing)["tests"]}
    keep = setting in ("all", impl)
    shared = {name: labels for name, labels in tests.items() if SHARED in labels}
    errors = []
    if not any("mpi" in labels for labels in shared.values()):
        errors.append(f"no MPI test is labelled {SHARED}: the split has nothing to move")
    if not any("mpi" not in labels for labels in shared.values()):
        errors.append(f"no test without MPI is labelled {SHARED}")
    for name, labels in sorted(shared.items()):
        if keep and "quick" not in labels:
            errors.append(f"{name}: NBCGUARD_CI_SHARED_TESTS={setting} keeps it in this build's CI tier, "
                          f"but it is not labelled quick ({';'.join(sorted(labels))})")
        if not keep and "quick" in labels:
            errors.append(f"{name}: NBCGUARD_CI_SHARED_TESTS={setting} runs it in the {setting} build's CI tier, "
                          f"but this {impl} build has it in quick too")
        if not keep and "mpi" in labels and "nightly" not in labels:
            errors.append(f"{name}: moved out of quick but not into nightly: no tier runs it")
        if not labels - {SHARED, *TIERS}:
            errors.append(f"{name}: no label of its own kind ({';'.join(sorted(labels))})")
    for name, labels in sorted(tests.items()):
        if "mpi" in labels and len(labels & set(TIERS)) != 1:
            errors.append(f"{name}: an MPI test must be in exactly one of quick and nightly "
                          f"({';'.join(sorted(labels))})")
    for line in errors:
        print(line)
    mpi = sum("mpi" in labels for labels in shared.values())
    where = "kept in quick" if keep else "out of quick"
    print(f"{impl} build, NBCGUARD_CI_SHARED_TESTS={setting}: {len(shared)} library-independent test(s) "
          f"({mpi} MPI), {where}; {len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

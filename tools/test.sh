#!/usr/bin/env bash
# The test suite: installs what is missing, then for Open MPI and MPICH
# configures, builds and runs `ctest` (unit tests, MPI integration tests and
# the quick tier of cases/; the nightly tier is excluded by the test preset).
# Both libraries always run; the exit code is non-zero if either failed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh || exit 1

status=0
for preset in ${NBCGUARD_PRESETS:-openmpi mpich}; do
  echo "=== nbcguard: $preset ==="
  if ! cmake --workflow --preset "$preset"; then
    echo "=== nbcguard: $preset FAILED ==="
    status=1
  fi
done
exit $status

#!/usr/bin/env bash
# The test suite: installs what is missing, then runs the project's GitLab
# pipeline (.gitlab-ci.yml) on this machine with gitlab-ci-local, as a merge
# request would (build Open MPI and MPICH, ctest -L quick: unit tests, MPI
# integration tests, the CI tier of cases/) and as a nightly schedule would
# (the dashboard script and the baseline comparison, on a short label
# selection). Ends with one line
# "nbcguard: N passed, N failed, N skipped (N of them INCONCLUSIVE)"; the exit code is non-zero if any job failed. See tools/pipeline.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh || exit 1
bash tools/pipeline.sh "${1:-both}"

#!/usr/bin/env bash
# The flakiness budget: runs the CI tier (the test presets, as tools/test.sh
# does) N times in a row for each built preset, alternating libraries, and
# keeps every run's results. Then prints, per library, the failures of each
# run and the spread of every point's r_overhead median across runs.
#   bash tools/flakiness.sh [N] [OUT]     (default 20, build/flakiness)
# Build both presets first (cmake --workflow --preset <p>, or tools/test.sh).
# A series can be resumed: a run whose directory holds its exit code is kept
# and skipped, so rerunning the same command after an interruption goes on
# where it stopped. The series' commit is recorded in OUT/commit, and a
# resume is refused if anything but README.md, docs/ or this script has changed.
# NBCGUARD_FLAKINESS_SELECT, a ctest -R regular expression, runs only the
# tests it matches in each run (the fixtures they need come with them): for
# example '\.n[0-9]+\.|reference-background$', the tier's measuring tests
# (its case tests and the background reference's known-answer test), all a
# results history ingests (tools/ci-tier-history.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
out=${2:-build/flakiness}
mkdir -p "$out"
# Only what is measured must stay unchanged: notes in README.md, docs/ or this
# script may be committed while a series runs.
if [ -f "$out/commit" ]; then
  was=$(cat "$out/commit")
  if ! git diff --quiet "$was" -- . ':!README.md' ':!docs' ':!tools/flakiness.sh'; then
    echo "flakiness: $out was measured on $was and the tree has changed since;" \
         "a series must run on one build (choose another OUT)" >&2
    exit 2
  fi
else
  git rev-parse HEAD > "$out/commit"
fi
for ((i = 1; i <= n; i++)); do
  for preset in ${NBCGUARD_PRESETS:-openmpi mpich}; do
    dir="$out/$preset/run$i"
    [ -f "$dir/exit" ] && continue
    rm -rf "$dir" "build/$preset/results" "build/$preset/mpi-tests"
    mkdir -p "$dir"
    start=$(date +%s)
    ctest --preset "$preset" ${NBCGUARD_FLAKINESS_SELECT:+-R "$NBCGUARD_FLAKINESS_SELECT"} --output-junit "$PWD/$dir/junit.xml" > "$dir/ctest.log" 2>&1
    rc=$?
    echo "$preset run $i: exit $rc, $(( $(date +%s) - start )) s, $(grep -c '\*\*\*Failed\|\*\*\*Timeout' "$dir/ctest.log") failed" | tee -a "$out/summary.txt"
    grep -E '\*\*\*Failed|\*\*\*Timeout' "$dir/ctest.log" | sed 's/^/    /' | tee -a "$out/summary.txt"
    cp -r "build/$preset/results" "$dir/results" 2>/dev/null
    cp -r "build/$preset/mpi-tests" "$dir/mpi-tests" 2>/dev/null
    echo "$rc" > "$dir/exit"
  done
done
driver=build/mpich/harness/nbcguard
[ -x "$driver" ] || driver=build/openmpi/harness/nbcguard
"$driver" envelope --per-point "$out" | tee "$out/spread.txt"

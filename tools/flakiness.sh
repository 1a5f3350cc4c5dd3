#!/usr/bin/env bash
# The flakiness budget: runs the CI tier (the test presets, as tools/test.sh
# does) N times in a row for each built preset, alternating libraries, and
# keeps every run's results. Then prints, per library, the failures of each
# run and the spread of every point's r_overhead median across runs.
#   bash tools/flakiness.sh [N] [OUT]     (default 20, build/flakiness)
# Build both presets first (cmake --workflow --preset <p>, or tools/test.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
out=${2:-build/flakiness}
mkdir -p "$out"
for ((i = 1; i <= n; i++)); do
  for preset in ${NBCGUARD_PRESETS:-openmpi mpich}; do
    dir="$out/$preset/run$i"
    rm -rf "$dir" "build/$preset/results" "build/$preset/mpi-tests"
    mkdir -p "$dir"
    start=$(date +%s)
    ctest --preset "$preset" --output-junit "$PWD/$dir/junit.xml" > "$dir/ctest.log" 2>&1
    rc=$?
    echo "$preset run $i: exit $rc, $(( $(date +%s) - start )) s, $(grep -c '\*\*\*Failed\|\*\*\*Timeout' "$dir/ctest.log") failed" | tee -a "$out/summary.txt"
    grep -E '\*\*\*Failed|\*\*\*Timeout' "$dir/ctest.log" | sed 's/^/    /' | tee -a "$out/summary.txt"
    cp -r "build/$preset/results" "$dir/results" 2>/dev/null
    cp -r "build/$preset/mpi-tests" "$dir/mpi-tests" 2>/dev/null
  done
done
driver=build/mpich/harness/nbcguard
[ -x "$driver" ] || driver=build/openmpi/harness/nbcguard
"$driver" envelope --per-point "$out" | tee "$out/spread.txt"

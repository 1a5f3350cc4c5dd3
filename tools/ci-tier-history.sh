#!/usr/bin/env bash
# The CI tier's runs as nights of a results history: the runs of one or
# more flakiness series (tools/flakiness.sh OUT directories, in order),
# each run one night dated a day after the last from 2026-01-01, then
# `nbcguard history check` over them. A night is the run's case tests
# (results/) and its known-answer test of the background reference
# (mpi-tests/reference-background, its last job); the other MPI tests break runs on
# purpose (faults, torn files) and are no nights. Shows whether unchanged
# code is left alone by the change-point check (docs/measurements/history-series.md).
#   tools/ci-tier-history.sh PRESET DB SERIES_DIR...
# Prints one line per night, the runs' INCONCLUSIVE tests, and the check.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
preset=$1 db=$2
shift 2
driver=build/$preset/harness/nbcguard
[ -x "$driver" ] || { echo "ci-tier-history.sh: no driver at $driver" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
night=0
for series in "$@"; do
  for run in $(ls -d "$series/$preset"/run* | sort -V); do
    [ -f "$run/exit" ] || continue
    night=$((night + 1))
    date=$(date -u -d "2026-01-01 + $((night - 1)) days" +%Y-%m-%d)
    dir=$work/night-$night
    mkdir -p "$dir"
    cp -r "$run/results/." "$dir/"
    # The known-answer test measures again in job2/, job3/ ... while
    # undecided: its last job is the one that decided, and a night holds one
    # job of each test.
    ref=$run/mpi-tests/reference-background
    if [ -d "$ref" ]; then
      last=$(ls -d "$ref"/job[0-9]* 2>/dev/null | sort -V | tail -1)
      if [ -n "$last" ]; then cp -r "$last/." "$dir/"; else cp -r "$ref/." "$dir/"; fi
    fi
    inconclusive=$(bash tools/inconclusive-tests.sh "$run/junit.xml" 2>/dev/null | cut -d: -f1 | tr '\n' ' ')
    out=$("$driver" history ingest "$dir" --db "$db" --date "$date" --revision "$(cat "$series/commit" | cut -c1-7)" 2>&1) ||
      { echo "night $night ($date, $run): ingest failed: $out"; continue; }
    echo "night $night ($date, $run): ctest exit $(cat "$run/exit"); INCONCLUSIVE: ${inconclusive:-none}"
  done
done
"$driver" history check --db "$db" --verbose

#!/usr/bin/env bash
# A real series for the results history: the same case run night after
# night ("nights" are runs, dated one day apart from 2026-01-01), each run
# ingested, then the same case with a change applied for some more nights,
# then `nbcguard history check` over all of them. Shows on real runs of this
# machine whether unchanged code is left alone and whether a real change is
# found at the night it began (docs/measurements/history-series.md).
#
#   tools/history-series.sh PRESET DB NIGHTS CHANGED CASE [RUN_ARGS...] -- [CHANGE_ARGS...]
#
# PRESET: the build (build/PRESET); DB: the history (a new SQLite file is
# best); NIGHTS unchanged runs, then CHANGED runs with CHANGE_ARGS added to
# `nbcguard run CASE RUN_ARGS...`. Revisions are "base" and "changed"
# (NBCGUARD_SERIES_REVISION names the changed nights); NBCGUARD_SERIES_FIRST
# (default 1) numbers the first night, to append to an earlier series;
# NBCGUARD_SERIES_KEEP=DIR (relative to the repository) keeps each night's
# run directory as DIR/night-<i> and its log as DIR/log-<i>, replacing an
# earlier one of that number, so that the same runs can be ingested again
# later (tools/history-replay.sh).
# Prints one line per night and the check's output; exits with the check's
# exit code (1: a regression among the newest nights).
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 6 ] || { sed -n '2,21p' "$0" >&2; exit 2; }
preset=$1 db=$2 nights=$3 changed=$4 case=$5
shift 5
run_args=() change_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do run_args+=("$1"); shift; done
[ "${1:-}" = -- ] || { echo "history-series.sh: '--' before the change's arguments is missing" >&2; exit 2; }
shift
change_args=("$@")
for n in "$nights" "$changed"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "history-series.sh: NIGHTS and CHANGED must be whole numbers, got '$n'" >&2; exit 2; }
done
driver=build/$preset/harness/nbcguard
[ -x "$driver" ] || { echo "history-series.sh: no driver at $driver (cmake --build --preset $preset)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${NBCGUARD_SERIES_KEEP:-}" ]; then
  mkdir -p "$NBCGUARD_SERIES_KEEP" || exit 2
  work_runs=$NBCGUARD_SERIES_KEEP
else
  work_runs=$work
fi
first=${NBCGUARD_SERIES_FIRST:-1}
[[ $first =~ ^[1-9][0-9]*$ ]] || { echo "history-series.sh: NBCGUARD_SERIES_FIRST must be a night number, got '$first'" >&2; exit 2; }
total=$((first - 1 + nights + changed))
for i in $(seq "$first" "$total"); do
  date=$(date -u -d "2026-01-01 + $((i - 1)) days" +%Y-%m-%d)
  args=("${run_args[@]}")
  rev=base
  if [ "$i" -gt $((first - 1 + nights)) ]; then args+=("${change_args[@]}"); rev=${NBCGUARD_SERIES_REVISION:-changed}; fi
  out=$work_runs/night-$i
  rm -rf "$out"
  "$driver" run "$case" "${args[@]}" --out "$out" >"$work_runs/log-$i" 2>&1
  rc=$?
  verdict=$(grep -h -E '^verdict( after confirmation)?:' "$work_runs/log-$i" | tail -n 1)
  "$driver" history ingest "$out" --db "$db" --date "$date" --revision "$rev" >/dev/null 2>"$work/ingest-$i" ||
    { echo "night $i ($date): ingest failed: $(cat "$work/ingest-$i")"; continue; }
  echo "night $i ($date, $rev): run exit $rc; $verdict"
done
"$driver" history check --db "$db" --verbose

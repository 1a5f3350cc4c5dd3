#!/usr/bin/env bash
# Kept run directories replayed into a new results history, one "night"
# each (dated one day apart from 2026-01-01), with `nbcguard history check`
# after each night from CHECK_FROM on: what the check said on the night a
# change began and on the nights after, with this build's check, on runs
# measured earlier (tools/history-series.sh with NBCGUARD_SERIES_KEEP,
# tools/baseline-self-compare.sh).
#
#   tools/history-replay.sh PRESET DB CHECK_FROM RUN_DIR... [-- CHANGED_DIR...]
#
# RUN_DIR: nights of revision "base"; CHANGED_DIR: nights of revision
# NBCGUARD_SERIES_REVISION (default "changed"). DB: an SQLite file's path,
# removed first (a new history each replay).
# Prints, per checked night, the check's findings but UNDECIDED lines and
# its summary. Exit code: the last check's (1: a regression among the
# newest nights), 2 on a usage error or a failed ingest.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
preset=$1 db=$2 from=$3
shift 3
[[ $from =~ ^[1-9][0-9]*$ ]] || { echo "history-replay.sh: CHECK_FROM must be a night number, got '$from'" >&2; exit 2; }
case "$db" in *:*) echo "history-replay.sh: DB must be an SQLite file's path (it is removed first), got '$db'" >&2; exit 2 ;; esac
nights=0
for dir in "$@"; do [ "$dir" = -- ] || nights=$((nights + 1)); done
[ "$from" -le "$nights" ] || { echo "history-replay.sh: CHECK_FROM $from is past the $nights night(s) given" >&2; exit 2; }
driver=build/$preset/harness/nbcguard
[ -x "$driver" ] || { echo "history-replay.sh: no driver at $driver (cmake --build --preset $preset)" >&2; exit 2; }
rm -f "$db" "$db-wal" "$db-shm"
i=0 rev=base rc=0
for dir in "$@"; do
  if [ "$dir" = -- ]; then rev=${NBCGUARD_SERIES_REVISION:-changed}; continue; fi
  i=$((i + 1))
  date=$(date -u -d "2026-01-01 + $((i - 1)) days" +%Y-%m-%d)
  "$driver" history ingest "$dir" --db "$db" --date "$date" --revision "$rev" >/dev/null ||
    { echo "history-replay.sh: night $i ($dir) not ingested" >&2; exit 2; }
  if [ "$i" -ge "$from" ]; then
    echo "== after night $i ($date, $rev: $dir)"
    "$driver" history check --db "$db" | grep -v -E '^(UNDECIDED|history: [0-9]+ run)'
    rc=${PIPESTATUS[0]}
  fi
done
exit "$rc"

#!/usr/bin/env bash
# A fixed duty-cycle load, the way a shared CI runner is busy: one process
# that keeps one CPU SHARE busy (busy SHARE x PERIOD, then asleep for the
# rest of each PERIOD), not bound to any core, until stopped.
#
#   tools/duty-load.sh start [SHARE] [PERIOD_S]   # default 0.3 of 0.1 s; prints the pid file
#   tools/duty-load.sh stop                       # ends it
#   tools/duty-load.sh run SHARE PERIOD_S -- CMD  # CMD with the load beside it, then stops it
set -euo pipefail
pidfile=${NBCGUARD_LOAD_PIDFILE:-/tmp/nbcguard-duty-load.pid}

usage() { sed -n '2,9p' "$0" >&2; exit 2; }

check_share() {
  [[ $1 =~ ^0?\.[0-9]+$|^1(\.0*)?$ ]] || { echo "duty-load.sh: SHARE must be in (0, 1], got '$1'" >&2; exit 2; }
  [[ $2 =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "duty-load.sh: PERIOD_S must be a positive number of seconds, got '$2'" >&2; exit 2; }
}

loop() {
  local busy_us idle
  busy_us=$(awk -v s="$1" -v p="$2" 'BEGIN{printf "%d", s * p * 1e6}')
  idle=$(awk -v s="$1" -v p="$2" 'BEGIN{printf "%.6f", (1 - s) * p}')
  while :; do
    local t=${EPOCHREALTIME/./}
    local end=$((t + busy_us))
    while ((${EPOCHREALTIME/./} < end)); do :; done
    [[ $idle == 0.000000 ]] || sleep "$idle"
  done
}

start() {
  local share=${1:-0.3} period=${2:-0.1}
  check_share "$share" "$period"
  [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null && { echo "duty-load.sh: already running ($pidfile)" >&2; exit 1; }
  loop "$share" "$period" </dev/null >/dev/null 2>&1 &
  echo $! >"$pidfile"
  echo "duty-load.sh: pid $(cat "$pidfile") keeps one CPU $share busy every ${period}s ($pidfile)"
}

stop() {
  [[ -f $pidfile ]] || return 0
  kill "$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  run)
    shift
    [[ $# -ge 3 && $3 == -- ]] || usage
    share=$1 period=$2
    shift 3
    start "$share" "$period"
    trap stop EXIT INT TERM
    "$@"
    ;;
  *) usage ;;
esac

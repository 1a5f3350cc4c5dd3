#!/usr/bin/env bash
# A run that is stopped from outside: nothing of the job outlives the
# driver, nothing stale passes for current, completed points are kept.
#   1. kill -9 of the driver while a rank hangs at the second grid point:
#      the launcher and both ranks are gone within 3 s; the previous run's
#      results.json is moved aside (results.previous.json) and summary lists
#      the test as UNFINISHED, not as the old verdict.
#   2. SIGINT to the driver in the same state: it stops the job, writes
#      results.json with the completed first point and why the run stopped,
#      ends by the signal (exit 130), and leaves no process behind.
# Usage: check_interrupt.sh DRIVER CONFIG CASE OUT PREVIOUS_RESULTS
set -uo pipefail
driver=$1 config=$2 case_file=$3 out=$4 previous=$5
dir="$out/fault/n2/basic"
fail() { echo "FAIL: $*"; cleanup; exit 1; }
cleanup() { pkill -9 -f -- "$out/" 2> /dev/null; }

rm -rf "$out" && mkdir -p "$dir"
cp "$previous" "$dir/results.json"

# Starts the driver in the background (pid in $pid) and waits until the
# injected hang began (the rank says so on stderr), the first point measured.
start() {
  "$driver" run "$case_file" --config "$config" --out "$out" --inject-fault hang --timeout 90 --no-confirm \
    > "$out/$1.out" 2> "$out/$1.err" &
  pid=$!
  for _ in $(seq 300); do
    grep -q 'injected fault: hanging' "$out/$1.err" && break
    kill -0 "$pid" 2> /dev/null || fail "$1: the driver ended before the hang: $(cat "$out/$1.out" "$out/$1.err")"
    sleep 0.2
  done
  grep -q 'injected fault: hanging' "$out/$1.err" || fail "$1: the rank did not hang within 60 s"
  sleep 1
}

# True when no process of the job (the output path is on every command line
# of the launcher and the ranks) is left after up to 3 s.
gone() {
  for _ in $(seq 15); do
    pgrep -f -- "$out/" > /dev/null || return 0
    sleep 0.2
  done
  return 1
}

# 1. kill -9
start kill9
kill -9 "$pid"
wait "$pid" 2> /dev/null
gone || fail "kill -9 of the driver left processes: $(pgrep -af -- "$out/")"
[ -f "$dir/run-unfinished.json" ] || fail "kill -9: no run-unfinished.json marker in $dir"
cmp -s "$previous" "$dir/results.previous.json" || fail "kill -9: the previous results.json was not kept as results.previous.json"
summary=$("$driver" summary "$out")
echo "$summary"
grep -q 'UNFINISHED' <<< "$summary" || fail "summary does not list the killed run as UNFINISHED"
grep -q 'did not finish' <<< "$summary" || fail "summary does not say the run did not finish"
grep -q 'PASS' <<< "$summary" && fail "summary reports the previous run's PASS as current"
echo "kill -9: no process left, previous results aside, summary: UNFINISHED"

# 2. SIGINT
start sigint
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
cat "$out/sigint.out" "$out/sigint.err"
[ "$rc" -eq 130 ] || fail "SIGINT: the driver exited $rc, expected 130 (ended by the signal)"
gone || fail "SIGINT left processes: $(pgrep -af -- "$out/")"
grep -q 'stopped by signal 2' "$out/sigint.err" || fail "SIGINT: no 'stopped by signal 2' line"
[ -f "$dir/run-unfinished.json" ] && fail "SIGINT: the run wrote its results but left the unfinished marker"
[ -f "$dir/results.json" ] || fail "SIGINT: no results.json"
grep -q '"harness_error": *"the run was interrupted' "$dir/results.json" ||
  fail "SIGINT: results.json does not say the run was interrupted"
# The first point completed before the hang: it is kept (valid, or refused
# by a gate on a busy machine, but measured), the second is not measured.
python3 - "$dir/results.json" << 'EOF' || fail "SIGINT: the completed first point is not kept"
import json, sys
points = json.load(open(sys.argv[1]))["points"]
def measured(p):
    return p["valid"] or not p.get("invalid_reason", "").startswith("not measured")
sys.exit(0 if len(points) == 2 and measured(points[0]) and not measured(points[1]) else 1)
EOF
"$driver" summary "$out" | grep -q 'interrupted' || fail "summary does not show why the run stopped"
echo "SIGINT: exit 130, no process left, results.json with the first point and the reason"
cleanup
exit 0

#!/bin/bash
# Runs a command (nbcguard run) while a CPU load disturbs it, as another
# user's job would on a shared machine: `hogs` busy processes start once
# the first job's raw log (under `dir`) records a communication
# calibration (clock sync and computation calibration were undisturbed),
# and stop when the second job (dir/confirm) starts or the command ends.
# Prints what it did; exits with the command's exit code.
#   disturb.sh <dir> <hogs> <command...>
set -u
dir=$1 hogs=$2
shift 2
"$@" &
cmd=$!
pids=()
# (`wait` without a pid would also reap the command and lose its exit code.)
stop_hogs() {
  [ ${#pids[@]} -eq 0 ] && return
  kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  pids=()
}
trap 'stop_hogs; kill $cmd 2>/dev/null' EXIT
started=0
while kill -0 $cmd 2>/dev/null; do
  if [ $started = 0 ] && grep -qs '"comm_calibration"' "$dir"/raw.jsonl; then
    for _ in $(seq "$hogs"); do
      bash -c 'while :; do :; done' &
      pids+=($!)
    done
    started=1
    echo "disturb: $hogs busy processes started after the communication calibration"
  fi
  if [ $started = 1 ] && [ -d "$dir/confirm" ]; then
    stop_hogs
    started=2
    echo "disturb: busy processes stopped; the second job runs undisturbed"
  fi
  sleep 0.05
done
stop_hogs
wait $cmd
rc=$?
[ $started = 0 ] && echo "disturb: the run ended before its communication calibration; no load was started"
exit $rc

#!/usr/bin/env bash
# The netns-labelled test: a small overlap case and the clock check with one
# rank per host of tools/netns-cluster.sh (this build's
# nbcguard-config-netns.json: the library's launcher through
# tools/netns-agent.sh, TCP only). Passes when
#   - the run passes its verdict, was launched by the netns launcher, and
#     its two ranks ran on two hosts (check_netns_results.cmake);
#   - the broadcast's bytes really crossed the links: the bridge side of
#     host 1's link sent it at least the largest calibrated message times
#     the repetitions (counters of the veth, before and after);
#   - the clock check recovers rank 1's injected offset and drift within
#     MAX_ERROR_US over real round trips.
# SKIPs (exit 77) with the reason when no cluster is started; with
# NBCGUARD_REQUIRE_NETNS=1 (the CI job, which started one) that fails.
#   check_netns.sh DRIVER CONFIG OUT CASE MAX_ERROR_US
set -uo pipefail
driver=$1 config=$2 out=$3 case=$4 max_error_us=$5
here=$(dirname "$0")
dir=${NBCGUARD_NETNS_DIR:-/var/tmp/nbcguard-netns}

. "$here/../launchers/skip_or_fail.sh"

[ -f "$dir/hosts" ] || not_here NBCGUARD_REQUIRE_NETNS "no netns cluster started ($dir/hosts missing; bash tools/netns-cluster.sh start)"
[ "$(wc -l < "$dir/hosts")" -ge 2 ] || not_here NBCGUARD_REQUIRE_NETNS "the netns cluster has fewer than 2 hosts"
[ -r /sys/class/net/nbcg-v1/statistics/tx_bytes ] || not_here NBCGUARD_REQUIRE_NETNS "no link nbcg-v1 to host 1 in this namespace"
echo "netns: hosts $(tr '\n' ' ' < "$dir/hosts")"

to_h1() { cat /sys/class/net/nbcg-v1/statistics/tx_bytes; }
before_run() { rm -rf "$out"; before=$(to_h1); }  # the bytes of the last attempt only
run_decided "$driver" run "$case" --config "$config" --out "$out/run" --calibration-cache off
run_rc=$?
after=$(to_h1)
if [ $run_rc -ne 0 ] && [ $run_rc -ne 5 ]; then
  echo "FAIL: nbcguard run through the netns launcher exited $run_rc (0 = verdict PASS, 5 = INCONCLUSIVE)"
  exit 1
fi
cmake -DRESULTS="$out/run/netns-ibcast/n2/basic/results.json" -DLINK_BYTES="$((after - before))" \
      -DINCONCLUSIVE=$([ $run_rc -eq 5 ] && echo 1 || echo 0) -P "$here/check_netns_results.cmake" || exit 1

"$driver" clock-check --config "$config" --inject-offset 0.05 --inject-drift 1e-4 --wait 2 \
          --max-error-us "$max_error_us" --out "$out/clock-check"
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: clock-check across the namespaces exited $rc (bound ${max_error_us} us)"
  exit 1
fi
if [ $run_rc -eq 5 ]; then
  echo "INCONCLUSIVE netns: points refused in all $attempts runs (launch, links and clock check passed; the overlap is undecided)"
  exit 0
fi
echo "PASS: overlap case and clock check across the netns hosts"

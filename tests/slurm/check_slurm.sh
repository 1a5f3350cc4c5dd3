#!/usr/bin/env bash
# One slurm-labelled test: a small overlap case through srun, with this
# build's srun config (nbcguard-config-srun.json). Passes when the run passes
# its verdict (measured again, at most 3 runs, while INCONCLUSIVE; still
# INCONCLUSIVE after 3, the launch is checked and the test SKIPs with a line
# "INCONCLUSIVE slurm:") and results.json says it was launched by srun as configured
# (check_slurm_results.cmake). SKIPs (exit 77) with the reason when srun was
# not found at configure time or no Slurm cluster answers (sinfo); with
# NBCGUARD_REQUIRE_SLURM=1 (the CI job, which started a cluster) those are
# failures instead: a job that meant to test Slurm must not skip it.
#   check_slurm.sh DRIVER CONFIG OUT CASE MPI_PLUGIN
set -uo pipefail
driver=$1 config=$2 out=$3 case=$4 plugin=$5
here=$(dirname "$0")

. "$here/../launchers/skip_or_fail.sh"

[ -f "$config" ] || not_here NBCGUARD_REQUIRE_SLURM "$config is missing: srun was not found when this build was configured (install slurm-client and configure again)"
if ! info=$(sinfo --noheader --format='%n %t %c' 2>&1); then
  not_here NBCGUARD_REQUIRE_SLURM "no Slurm cluster reachable: sinfo: $(echo "$info" | tail -n 1) (a one-node cluster on this machine: bash tools/slurm-cluster.sh start)"
fi
echo "slurm: sinfo: $info"

before_run() { rm -rf "$out"; }
run_decided "$driver" run "$case" --config "$config" --out "$out"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 5 ]; then
  echo "FAIL: nbcguard run through srun exited $rc (0 = verdict PASS, 5 = INCONCLUSIVE)"
  exit 1
fi
cmake -DRESULTS="$out/slurm-ibcast/n2/basic/results.json" -DPLUGIN="$plugin" \
      -DINCONCLUSIVE=$([ $rc -eq 5 ] && echo 1 || echo 0) -P "$here/check_slurm_results.cmake" || exit 1
if [ $rc -eq 5 ]; then
  echo "INCONCLUSIVE slurm: points refused in all $attempts runs (the launch through srun checked; the overlap is undecided)"
fi

#!/usr/bin/env bash
# Benchmark of the tool's own cost: the CI tier's case tests (ctest -L cases
# -L quick) of each library, first with an empty calibration cache (cold),
# then again with the cache the first pass left (warm). Prints the time to
# verdict of each pass and, from the results (nbcguard cost), the time in
# clock synchronization, calibration, measurement and the r_mpi_impact
# jobs, the confirmation jobs, the timed samples and the duty cycle (timed
# samples / wall time), and size evaluations per calibrated target. A benchmark: it prints
# figures and fails only when a test or a build fails.
#   bash tools/time-to-verdict.sh [openmpi|mpich|both]   (default both)
# NBCGUARD_TTV_PASSES: the passes, in order (default "cold warm"; "warm"
# alone keeps the cache as it is). The tests see the caller's environment,
# e.g. NBCGUARD_IMPACT_REUSE=0 for every test measuring its own r_mpi_impact.
# Builds the presets when missing; results under build/time-to-verdict/.
set -uo pipefail
cd "$(dirname "$0")/.."
which=${1:-both}
case "$which" in
  openmpi|mpich) libs=("$which") ;;
  both) libs=(openmpi mpich) ;;
  *) echo "time-to-verdict.sh: unknown library '$which' (allowed: openmpi, mpich, both)" >&2; exit 2 ;;
esac
out=build/time-to-verdict
status=0
report=()
for lib in "${libs[@]}"; do
  if [ ! -x "build/$lib/harness/nbcguard" ]; then
    bash tools/configure.sh "$lib" >/dev/null && cmake --build --preset "$lib" >/dev/null || { echo "build of $lib failed" >&2; exit 1; }
  fi
  cache=$(sed -n 's/.*"calibration_cache": "\(.*\)".*/\1/p' "build/$lib/nbcguard-config.json")
  if [ -z "$cache" ]; then
    echo "time-to-verdict.sh: build/$lib has no calibration cache (NBCGUARD_CALIBRATION_CACHE is empty)" >&2
    exit 2
  fi
  declare -A seconds=()
  for pass in ${NBCGUARD_TTV_PASSES:-cold warm}; do
    case "$pass" in cold|warm) ;; *) echo "time-to-verdict.sh: unknown pass '$pass' in NBCGUARD_TTV_PASSES (allowed: cold, warm)" >&2; exit 2 ;; esac
    [ "$pass" = cold ] && rm -rf "$cache"
    rm -rf "build/$lib/results" "$out/$lib/$pass"
    mkdir -p "$out/$lib/$pass"
    start=$(date +%s.%N)
    ctest --test-dir "build/$lib" -L cases -L quick > "$out/$lib/$pass/ctest.log" 2>&1 || status=1
    end=$(date +%s.%N)
    seconds[$pass]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
    cp -r "build/$lib/results" "$out/$lib/$pass/results" 2>/dev/null
    summary=$(grep -E "tests passed|tests failed" "$out/$lib/$pass/ctest.log" | tail -1)
    echo "=== $lib, $pass cache: time to verdict ${seconds[$pass]} s (ctest -L cases -L quick: $summary)"
    "build/$lib/harness/nbcguard" cost "$out/$lib/$pass/results" | grep -E "^(test|sum $lib)"
  done
  line="$lib:"
  for pass in ${NBCGUARD_TTV_PASSES:-cold warm}; do line+=" $pass ${seconds[$pass]} s,"; done
  if [ -n "${seconds[cold]:-}" ] && [ -n "${seconds[warm]:-}" ]; then
    line+=" warm/cold $(awk -v c="${seconds[cold]}" -v w="${seconds[warm]}" 'BEGIN { printf "%.2f", w / c }')"
  fi
  report+=("${line%,}")
  unset seconds
done
echo "=== time to verdict of the CI tier's cases"
printf '%s\n' "${report[@]}"
echo "per test: build/$lib/harness/nbcguard cost $out/<library>/<cold|warm>/results"
exit $status

#!/usr/bin/env bash
# Two normal runs of the same build compared: what the local scheduled
# pipeline does (its nightly job's tests with the merge-request run's results
# as the baseline), repeated, so that a false regression rate can be counted.
# One baseline run of the cases, then N nights, each `nbcguard run CASES
# --baseline <the baseline>`: per night, the tests the first job alone would
# have failed on a regression, and the tests that failed after the second
# job (a regression fails only when a second job of its points confirms it).
# Both should be 0 for the same code: every one is a false regression. A
# ratio regression seen by both jobs while the results history knows no
# spread for it leaves its test INCONCLUSIVE instead, counted per night.
#   bash tools/baseline-self-compare.sh PRESET N OUT [CASE...]
#       (default cases: cases/ibcast.yaml cases/ibcast-progress.yaml, the
#       local scheduled pipeline's selection)
# Build the preset first. Kept: OUT/base, OUT/night-<i>/ (results and
# run.log), OUT/summary.txt. Exit code: 0 when no night failed a test on a
# regression, 1 otherwise, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."
preset=${1:-}
n=${2:-}
out=${3:-}
[ -n "$preset" ] && [[ $n =~ ^[1-9][0-9]*$ ]] && [ -n "$out" ] || { sed -n '10,12p' "$0" >&2; exit 2; }
shift 3
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(cases/ibcast.yaml cases/ibcast-progress.yaml)
driver=build/$preset/harness/nbcguard
[ -x "$driver" ] || { echo "baseline-self-compare: $driver not built (cmake --workflow --preset $preset)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out"
mkdir -p "$out"
git rev-parse --short HEAD > "$out/commit"

"$driver" run "${cases[@]}" --out "$out/base" > "$out/base.log" 2>&1
echo "baseline: exit $? ($(grep -c '^results: ' "$out/base.log") test(s))" | tee "$out/summary.txt"
failed_nights=0
for ((i = 1; i <= n; i++)); do
  dir=$out/night-$i
  start=$(date +%s)
  "$driver" run "${cases[@]}" --out "$dir" --baseline "$out/base" > "$dir.log" 2>&1
  rc=$?
  # One "FAIL <test>: N regression(s) against the baseline" per test the
  # regressions failed; "confirmed:" / "not confirmed:" per regression of a
  # first job that a second job measured again.
  first=$(grep -c '^baseline: regressions of the first job' "$dir.log")
  failed=$(grep -c '^FAIL .* regression(s) against the baseline' "$dir.log")
  confirmed=$(grep -c '^  confirmed: REGRESSION' "$dir.log")
  unconfirmed=$(grep -c '^  not confirmed: REGRESSION' "$dir.log")
  undecided=$(grep -c '^  undecided (the second job could not compare it): REGRESSION' "$dir.log")
  # Seen by every job, but of a ratio whose between-run spread the results
  # history (NBCGUARD_HISTORY, none by default here) does not know.
  no_spread=$(grep -c '^  undecided (seen by [^:]*between-run spread[^:]*: [^)]*): REGRESSION' "$dir.log")
  inconclusive=$(grep -c '^INCONCLUSIVE .*: undecided regression(s) against the baseline' "$dir.log")
  echo "night $i: exit $rc, $(($(date +%s) - start)) s; tests with a regression in the first job: $first;" \
       "failed on a regression: $failed; INCONCLUSIVE on one: $inconclusive; regressions confirmed" \
       "$confirmed, not confirmed $unconfirmed, undecided $undecided, seen without a known between-run" \
       "spread $no_spread" |
    tee -a "$out/summary.txt"
  grep -E '^  ((not )?confirmed: |undecided [^:]*: )?REGRESSION' "$dir.log" | sed 's/^ */    /' >> "$out/summary.txt"
  [ "$failed" -eq 0 ] || failed_nights=$((failed_nights + 1))
done
echo "nights that failed a test on a regression: $failed_nights of $n" | tee -a "$out/summary.txt"
[ "$failed_nights" -eq 0 ]

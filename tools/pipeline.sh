#!/usr/bin/env bash
# Runs .gitlab-ci.yml on this machine as GitLab would, with gitlab-ci-local
# (shell executor, one job at a time: the test jobs are timing measurements),
# for both kinds of pipeline:
#   1. merge request: build both libraries, then the CI tier (ctest -L quick)
#      and the slurm job (a one-node Slurm cluster, ctest -L slurm) and the
#      netns job (two network-namespace hosts, ctest -L netns);
#   2. schedule: the nightly stage through the CTest dashboard script, with
#      the merge-request run's results as the baseline. Kept short here: the
#      labels NBCGUARD_LOCAL_NIGHTLY_LABELS (default: the ibcast tests of the
#      CI tier but ibcast-strategies, see below; NBCGUARD_LOCAL_NIGHTLY_EXCLUDE
#      overrides the excluded labels) instead of the nightly tier's hours. Two normal runs, so the
#      baseline comparison must find no regression (the libraries in
#      NBCGUARD_LOCAL_BASELINE_LIBS, default both; see below).
# Then prints one closing line counting the tests of both pipelines (from
# their JUnit files). Exit code: non-zero if either pipeline failed.
# NBCGUARD_TEST_LABELS narrows the merge-request tests (default: quick).
#   bash tools/pipeline.sh [mr|schedule|both]     (default both)
set -uo pipefail
cd "$(dirname "$0")/.."
which=${1:-both}
glci=(gitlab-ci-local --force-shell-executor --concurrency 1 --max-job-name-padding 0 --no-color)
keep=build/pipeline
status=0

junit_counts() {  # prints "tests failures skipped" summed over the files given
  local t=0 f=0 s=0 file line
  for file in "$@"; do
    [ -f "$file" ] || continue
    line=$(tr '\n\t' '  ' < "$file" | grep -m1 -o '<testsuite [^>]*>')  # ctest splits it over lines
    t=$((t + $(sed -n 's/.* tests="\([0-9]*\)".*/\1/p' <<<"$line")))
    f=$((f + $(sed -n 's/.* failures="\([0-9]*\)".*/\1/p' <<<"$line")))
    s=$((s + $(sed -n 's/.* skipped="\([0-9]*\)".*/\1/p' <<<"$line")))
  done
  echo "$t $f $s"
}

junits=()
keep_reports() {  # keep_reports mr|schedule: what the pipeline left in build/<mpi>/
  rm -rf "${keep:?}/$1"
  for mpi in openmpi mpich; do
    mkdir -p "$keep/$1/$mpi"
    cp -r "build/$mpi/report" "build/$mpi/results" "$keep/$1/$mpi/" 2>/dev/null
    junits+=("$keep/$1/$mpi/report/junit.xml")
    for extra in slurm netns; do  # the slurm and netns jobs (merge request), their own reports
      if [ -d "build/$mpi/report-$extra" ]; then
        mv "build/$mpi/report-$extra" "$keep/$1/$mpi/"
        junits+=("$keep/$1/$mpi/report-$extra/junit.xml")
      fi
    done
  done
  # the sanitize job (merge request): unit tests and fuzzers under ASan/UBSan
  if [ -d build/sanitize/report ]; then
    mv build/sanitize/report "$keep/$1/sanitize-report"
    junits+=("$keep/$1/sanitize-report/junit.xml")
  fi
}

# The slurm and netns jobs' reports are counted only for the pipeline that
# ran them (keep_reports moves them away).
rm -rf build/*/report-slurm build/*/report-netns build/sanitize/report

if [ "$which" = mr ] || [ "$which" = both ]; then
  echo "=== pipeline: merge request (build, test: ctest -L quick, slurm: ctest -L slurm, netns: ctest -L netns, sanitize: ctest -L sanitize) ==="
  mr_vars=(--variable CI_PIPELINE_SOURCE=merge_request_event)
  [ -n "${NBCGUARD_TEST_LABELS:-}" ] && mr_vars+=(--variable "NBCGUARD_TEST_LABELS=$NBCGUARD_TEST_LABELS")
  "${glci[@]}" "${mr_vars[@]}" || status=1
  keep_reports mr
fi

if [ "$which" = schedule ] || [ "$which" = both ]; then
  echo "=== pipeline: schedule (build, nightly: dashboard script + baseline comparison) ==="
  rm -rf "$keep/baseline"
  # The libraries whose merge-request results serve as baseline: both.
  # MPICH 4.0.2's basic Ibcast on this VM once serialized in one run and
  # partly progressed in the background in the next (r_comm 1.24 and 0.03
  # at 500us x 2ms, 2026-11-23), which left it out of this self-comparison;
  # since a regression fails a test only when a second job of its points
  # confirms it, 19 self-comparisons of MPICH's selection (2026-11-27,
  # tools/baseline-self-compare.sh, docs/measurements/self-compare-2026-11-27.md)
  # had no regression, confirmed or not. A clean-clone run of the README's
  # test command then had two jobs of MPICH's ibcast-progress
  # both read r_comp_slowdown 1.01 at 16ms x 16ms against the merge-request
  # run's 0.75: the jobs of one run share the machine's phase. A ratio
  # regression is now decided only against the between-run spread of the
  # results history (6 nights or more); with this run's history of at most
  # one night it is INCONCLUSIVE, listed and skipped below
  # (docs/nightly.md, "nbcguard run --baseline").
  for mpi in ${NBCGUARD_LOCAL_BASELINE_LIBS:-openmpi mpich}; do
    if [ -d "$keep/mr/$mpi/results" ]; then
      mkdir -p "$keep/baseline"
      cp -r "$keep/mr/$mpi/results" "$keep/baseline/$mpi"
    fi
  done
  # The tests: the Ibcast cases of the CI tier (labels match the collective
  # "ibcast"), without the nightly tier and without ibcast-strategies. The
  # application-side strategies are not two equal runs here either: how much
  # of a progress thread's polling lands on the computing core varies from
  # run to run on this 2-vCPU VM (Open MPI thread-bind at 2ms x 2ms:
  # r_comp_slowdown 1.86 [1.78,1.94] in one run, 2.64 [2.54,2.71] in the
  # next, same build, 2026-11-23), so compare rightly reports a change. A
  # self-comparison must be one whose answer is known: "no regression".
  # INCONCLUSIVE tests: listed, but not failing the local schedule pipeline
  # (NBCGUARD_LOCAL_INCONCLUSIVE, default skip; GitLab's nightly default is
  # fail). On this 2-vCPU VM a point stays undecided in some runs (the
  # nightly job of a clean-clone run of 83a6bee, 2026-11-25: Open MPI's
  # ibcast n2 basic, its ranks computing 1.4x apart), and the local run's
  # job is to show that the pipeline works, not to judge the VM.
  vars=(--variable CI_PIPELINE_SOURCE=schedule
        --variable "NBCGUARD_INCONCLUSIVE=${NBCGUARD_LOCAL_INCONCLUSIVE:-skip}"
        --variable "NBCGUARD_NIGHTLY_LABELS=${NBCGUARD_LOCAL_NIGHTLY_LABELS:-ibcast}"
        --variable "NBCGUARD_NIGHTLY_EXCLUDE=${NBCGUARD_LOCAL_NIGHTLY_EXCLUDE:-nightly|ibcast-strategies}")
  [ -d "$keep/baseline" ] && vars+=(--variable "NBCGUARD_BASELINE_ROOT=$PWD/$keep/baseline")
  "${glci[@]}" "${vars[@]}" || status=1
  keep_reports schedule
fi

read -r tests failed skipped < <(junit_counts "${junits[@]}")
echo "pipelines: reports in $keep/{mr,schedule}/<library>/report (junit.xml, metrics.txt, summary.md, index.html)"
if [ "$tests" -eq 0 ]; then
  echo "pipelines: no test ran"
  status=1
fi
inconclusive=0
for j in "${junits[@]}"; do
  [ -f "$j" ] && inconclusive=$((inconclusive + $(bash tools/inconclusive-tests.sh "$j" | wc -l)))
done
# The failed tests by name, so that the end of a long log says which.
for j in "${junits[@]}"; do
  [ -f "$j" ] && bash tools/failed-tests.sh "$j" | sed "s|^|FAILED (${j#"$keep/"}) |"
done
echo "nbcguard: $((tests - failed - skipped)) passed, $failed failed, $skipped skipped ($inconclusive of them INCONCLUSIVE)"
exit $status

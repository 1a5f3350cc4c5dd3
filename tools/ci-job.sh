#!/usr/bin/env bash
# One pipeline job for one MPI library, after the build job (.gitlab-ci.yml):
#   bash tools/ci-job.sh test    <openmpi|mpich>   the CI tier: ctest -L quick
#       (NBCGUARD_TEST_LABELS: another label regex)
#   bash tools/ci-job.sh nightly <openmpi|mpich>   the nightly tier through the
#       CTest dashboard script, each test also compared with the baseline
#       (the last good night; a regression confirmed by a second job fails
#       it), then the whole run compared with it as a report
# Both write build/<mpi>/report/: junit.xml (each failure's and skip's reason
# in its message), metrics.txt (OpenMetrics),
# summary.md, index.html (+ heat-maps beside each results.json); nightly adds
# regressions.md and history.txt / history.json (the results history's check). The exit code is the tests' (and the history check's).
set -uo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: ci-job.sh test|nightly MPI}
mpi=${2:?usage: ci-job.sh test|nightly MPI}
bin="build/$mpi"
driver="$bin/harness/nbcguard"
report="$bin/report"
if [ ! -x "$driver" ]; then
  echo "ci-job: $driver is missing: the build job of $mpi did not run or failed" >&2
  exit 2
fi
# What an INCONCLUSIVE test (a verdict still undecided after the most jobs
# its test allows: the machine too noisy to tell) does to this job. CTest
# and JUnit always show it as skipped, with its reason; this job lists it
# (report/inconclusive.txt) and, with NBCGUARD_INCONCLUSIVE=fail, fails.
# Default: skip in the merge-request tier (a noisy runner must not block a
# merge on what it could not decide), fail in the nightly tier (a night that
# decides nothing is a night to look at). docs/ctest-and-ci.md.
if [ "$kind" = nightly ]; then policy=${NBCGUARD_INCONCLUSIVE:-fail}; else policy=${NBCGUARD_INCONCLUSIVE:-skip}; fi
case "$policy" in
  skip|fail) ;;
  *) echo "ci-job: NBCGUARD_INCONCLUSIVE is '$policy'; allowed: skip, fail (empty: the tier's default)" >&2; exit 2 ;;
esac
rm -rf "$report" "$bin/results"
mkdir -p "$report"
status=0
# The commands that read what the tests left (summary, compare, history)
# run under a time limit: whatever a results file holds, the job ends.
report_limit=${NBCGUARD_REPORT_TIMEOUT:-600}
nbcguard() {
  timeout --kill-after=10 "$report_limit" "$driver" "$@"
  local rc=$?
  [ $rc -eq 124 ] && echo "ci-job: nbcguard $1 did not finish within ${report_limit} s" >&2
  return $rc
}
trends=()  # nightly: --trends DIR for the HTML summary

case "$kind" in
  test)
    # One test per core: every test that measures (MPI, cases, install,
    # conformance) is RUN_SERIAL, which CTest runs with no other test beside
    # it; only the unit, report, CLI and history tests share the cores.
    ctest --test-dir "$bin" -L "${NBCGUARD_TEST_LABELS:-quick}" --parallel "$(nproc)" --output-on-failure \
      --output-junit "$PWD/$report/junit.xml" || status=1
    ;;
  nightly)
    # The baseline: given (NBCGUARD_BASELINE_ROOT/<mpi>), or this branch's
    # last successful nightly job's artifacts on GitLab, or none (the first
    # night: its results become the next night's baseline).
    baseline=""
    if [ -n "${NBCGUARD_BASELINE_ROOT:-}" ]; then
      [ -d "$NBCGUARD_BASELINE_ROOT" ] || { echo "ci-job: NBCGUARD_BASELINE_ROOT $NBCGUARD_BASELINE_ROOT does not exist" >&2; exit 2; }
      if [ -d "$NBCGUARD_BASELINE_ROOT/$mpi" ]; then
        baseline="$NBCGUARD_BASELINE_ROOT/$mpi"
      else
        echo "ci-job: NBCGUARD_BASELINE_ROOT has no $mpi/ directory"
      fi
    elif [ -n "${CI_JOB_TOKEN:-}" ] && [ -n "${CI_API_V4_URL:-}" ]; then
      job=$(printf 'nightly: [%s]' "$mpi" | sed 's/ /%20/g; s/:/%3A/g; s/\[/%5B/g; s/\]/%5D/g')
      url="$CI_API_V4_URL/projects/$CI_PROJECT_ID/jobs/artifacts/$CI_COMMIT_REF_NAME/download?job=$job"
      if curl --fail --silent --show-error --location --header "JOB-TOKEN: $CI_JOB_TOKEN" \
              --output "$report/baseline.zip" "$url"; then
        unzip -q -o "$report/baseline.zip" -d "$report/baseline-artifacts" "$bin/results/*" &&
          baseline="$report/baseline-artifacts/$bin/results"
      fi
    fi
    if [ -z "$baseline" ]; then
      echo "ci-job: no baseline (first night, or none kept): thresholds only; this night's results become the baseline"
    else
      echo "ci-job: baseline $baseline"
    fi
    # The results history (docs/history.md). NBCGUARD_HISTORY: a PostgreSQL
    # server (postgresql://...) or an SQLite file; default history/<mpi>.db,
    # which .gitlab-ci.yml keeps between pipelines as the job's cache.
    # Exported: the tests' baseline comparisons and `compare` below judge a
    # change against the spread between the nights stored so far.
    # Made absolute: the tests run in their own directories.
    history=${NBCGUARD_HISTORY:-history/$mpi.db}
    case "$history" in
      postgres* | /* | sqlite:/*) ;;
      sqlite:*) history="sqlite:$PWD/${history#sqlite:}" ;;
      *) history="$PWD/$history" ;;
    esac
    export NBCGUARD_HISTORY=$history
    case "$history" in postgres*) ;; *) mkdir -p "$(dirname "${history#sqlite:}")" ;; esac
    # The night measures its own r_mpi_impact: one kept in the build's
    # calibration cache by an earlier run (the merge-request tier minutes
    # before, on a runner that keeps the build) would be reused for 600 s,
    # and compared with its own copy in a baseline taken from that run. The
    # night's tests still share the one its first test measures.
    cache=$(sed -n 's/^NBCGUARD_CALIBRATION_CACHE:[A-Z]*=//p' "$bin/CMakeCache.txt" 2>/dev/null)
    if [ -n "$cache" ] && [ -d "$cache/impact" ]; then
      echo "ci-job: earlier runs' r_mpi_impact measurements removed from $cache/impact"
      rm -rf "$cache/impact"
    fi
    # --no-compress-output: the tests' output stays readable in junit.xml
    # (and on CDash), where the INCONCLUSIVE lines are looked up.
    ctest --no-compress-output -S tools/dashboard.cmake -DMPI="$mpi" -DBINARY_DIR="$PWD/$bin" \
          -DLABELS="${NBCGUARD_NIGHTLY_LABELS:-^nightly\$}" -DEXCLUDE_LABELS="${NBCGUARD_NIGHTLY_EXCLUDE:-}" \
          -DBASELINE="$baseline" -DCDASH_URL="${NBCGUARD_CDASH_URL:-}" -DJUNIT="$PWD/$report/junit.xml" \
          -VV || status=1
    # The whole night against the baseline, as a report: each case test
    # above was compared with it already, and failed only on a regression a
    # second job of its points confirmed (docs/nightly.md). This comparison
    # sees the first jobs alone, so its regressions do not fail the job a
    # second time; a comparison that could not run (exit 2) does.
    if [ -n "$baseline" ]; then
      nbcguard compare "$baseline" "$bin/results" --format markdown > "$report/regressions.md"
      rc=$?
      printf '\n%s\n' "The case tests judged each regression with a second job of its points: only those it confirmed failed them (their output, and \"baseline\" in their results.json)." >> "$report/regressions.md"
      cat "$report/regressions.md"
      [ $rc -le 1 ] || status=1
    fi
    # This night joins the nights before it, and a change point that is a
    # new regression fails the job. A run the history refuses (a torn or
    # incomplete results.json) fails the job: a night must not go missing
    # unnoticed.
    if [ -d "$bin/results" ]; then
      nbcguard history ingest "$bin/results" --db "$history" || status=1
      nbcguard history check --db "$history" --library "$mpi" --json "$report/history.json" > "$report/history.txt"
      rc=$?
      cat "$report/history.txt"
      [ $rc -eq 0 ] || status=1
      # Every series as a trend (report/trends/index.html, PNG and SVG), and
      # the ones with findings in the HTML summary. A picture never decides.
      if nbcguard history plot --db "$history" --library "$mpi" --out "$report/trends"; then
        trends=(--trends "$report/trends")
      else
        echo "ci-job: the trend pictures were not drawn (above); the summary goes without them"
      fi
    fi
    ;;
  *)
    echo "ci-job: unknown job kind '$kind' (test or nightly)" >&2
    exit 2
    ;;
esac

if [ -f "$report/junit.xml" ]; then
  # Each failed or skipped test's reason into its `message`, where GitLab's
  # test report shows it (CTest writes a generic word there).
  nbcguard junit "$report/junit.xml" || status=1
  nbcguard junit --list inconclusive "$report/junit.xml" > "$report/inconclusive.txt" || status=1
  n=$(wc -l < "$report/inconclusive.txt")
  if [ "$n" -gt 0 ]; then
    echo "ci-job: $n test(s) INCONCLUSIVE, undecided and not passed (NBCGUARD_INCONCLUSIVE=$policy):"
    sed 's/^/  /' "$report/inconclusive.txt"
    if [ "$policy" = fail ]; then
      echo "ci-job: failing the job on them (NBCGUARD_INCONCLUSIVE=fail)"
      status=1
    fi
  fi
fi

# What a person and the merge request see. A run in which no test wrote
# results (all skipped, or the build broke) still gets its report files.
if [ -d "$bin/results" ]; then
  nbcguard summary "$bin/results" --format text || true
  nbcguard summary "$bin/results" --format markdown --output "$report/summary.md" || status=1
  nbcguard summary "$bin/results" --format html --output "$report/index.html" "${trends[@]}" || status=1
  nbcguard summary "$bin/results" --format openmetrics --output "$report/metrics.txt" || status=1
else
  echo "ci-job: no results under $bin/results" | tee "$report/summary.md"
  : > "$report/metrics.txt"
fi
exit $status
